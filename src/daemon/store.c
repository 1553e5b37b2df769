/* store.c: migschedd's SQLite store (schema, migrations, job transitions, plans,
 * instances). Every statement is prepared and every return code checked; errors name the
 * database's path. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migsched/io.h"

struct md_store {
    sqlite3 *db;
    char *path;
    const ms_gpu_model *gpu;
};

/* Append only: a released migration never changes, a new one goes at the end. */
static const char *const MIGRATIONS[] = {
    /* 1: the tables. Times are seconds since the epoch; profiles are stored by name so a
     * database does not depend on profile indices. */
    "CREATE TABLE jobs(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,"
    " spec TEXT NOT NULL, state TEXT NOT NULL, attempts INTEGER NOT NULL,"
    " submitted REAL, started REAL, ended REAL, gpu INTEGER, profile TEXT,"
    " start_slot INTEGER, mig_uuid TEXT, exit_status INTEGER);"
    "CREATE INDEX jobs_by_state ON jobs(state, id);"
    "CREATE TABLE transitions(seq INTEGER PRIMARY KEY AUTOINCREMENT,"
    " job INTEGER NOT NULL REFERENCES jobs(id), at REAL NOT NULL, event TEXT NOT NULL,"
    " from_state TEXT NOT NULL, to_state TEXT NOT NULL);"
    "CREATE TABLE plans(id INTEGER PRIMARY KEY AUTOINCREMENT, created REAL NOT NULL,"
    " schedule TEXT NOT NULL);"
    "CREATE TABLE instances(id INTEGER PRIMARY KEY AUTOINCREMENT, gpu INTEGER NOT NULL,"
    " profile TEXT NOT NULL, start_slot INTEGER NOT NULL, gi_id INTEGER NOT NULL,"
    " ci_id INTEGER NOT NULL, uuid TEXT NOT NULL, created REAL NOT NULL, destroyed REAL);",
    /* 2: a job's history and the live instances are read by index, not by scans. */
    "CREATE INDEX transitions_by_job ON transitions(job, seq);"
    "CREATE INDEX instances_live ON instances(destroyed, id);",
    /* 3: the Slurm steps holding each allocation (a job with a slurm_job_id in its spec). */
    "CREATE TABLE allocation_steps(job INTEGER NOT NULL REFERENCES jobs(id),"
    " step INTEGER NOT NULL, PRIMARY KEY(job, step)) WITHOUT ROWID;",
    /* 4: each job's owner (whom it runs as); jobs from before were run by root. Listed by
     * owner a page at a time. */
    "ALTER TABLE jobs ADD COLUMN owner_uid INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN owner_gid INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE jobs ADD COLUMN owner_name TEXT NOT NULL DEFAULT 'root';"
    "CREATE INDEX jobs_by_owner ON jobs(owner_name, id);",
    /* 5: why a job is in its state, recorded with each transition; the runs a job lost to
     * daemon crashes (poison jobs fail after max-attempts); finished jobs found by their
     * end for retention. */
    "ALTER TABLE jobs ADD COLUMN reason TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE jobs ADD COLUMN crashes INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE transitions ADD COLUMN reason TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX jobs_by_end ON jobs(ended) WHERE ended IS NOT NULL;",
};
#define NMIGRATIONS ((int)(sizeof MIGRATIONS / sizeof *MIGRATIONS))

int md_store_migration_count(void) { return NMIGRATIONS; }

const char *md_store_migration_sql(int i)
{
    return i >= 0 && i < NMIGRATIONS ? MIGRATIONS[i] : NULL;
}

static int db_error(md_store *st, const char *what, ms_error *err)
{
    return ms_error_set(err, MS_EIO, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int exec(md_store *st, const char *sql, ms_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = ms_error_set(err, MS_EIO, "%s: %.60s: %s", st->path, sql,
                              msg ? msg : sqlite3_errmsg(st->db));
        sqlite3_free(msg);
        return rc;
    }
    return MS_OK;
}

static int prepare(md_store *st, const char *sql, sqlite3_stmt **s, ms_error *err)
{
    if (sqlite3_prepare_v2(st->db, sql, -1, s, NULL) != SQLITE_OK)
        return db_error(st, "prepare", err);
    return MS_OK;
}

/* Steps a statement that returns no rows and finalizes it. */
static int step_done(md_store *st, sqlite3_stmt *s, const char *what, ms_error *err)
{
    int rc = sqlite3_step(s) == SQLITE_DONE ? MS_OK : db_error(st, what, err);
    sqlite3_finalize(s);
    return rc;
}

static int pragma_int(md_store *st, const char *sql, int *out, ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, sql, &s, err);
    if (rc)
        return rc;
    if (sqlite3_step(s) != SQLITE_ROW)
        rc = db_error(st, sql, err);
    else
        *out = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return rc;
}

static int migrate(md_store *st, ms_error *err)
{
    int version = 0, rc = pragma_int(st, "PRAGMA user_version", &version, err);
    if (rc)
        return rc;
    if (version > NMIGRATIONS)
        return ms_error_set(err, MS_EINVAL,
                            "%s: schema version %d is newer than this "
                            "migschedd knows (%d); use a newer migschedd",
                            st->path, version, NMIGRATIONS);
    for (int v = version; v < NMIGRATIONS; v++) {
        char bump[48];
        snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
        if ((rc = exec(st, "BEGIN IMMEDIATE", err)))
            return rc;
        if ((rc = exec(st, MIGRATIONS[v], err)) || (rc = exec(st, bump, err))) {
            sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
            ms_error_prefix(err, "migration to schema version %d", v + 1);
            return rc;
        }
        if ((rc = exec(st, "COMMIT", err)))
            return rc;
    }
    return MS_OK;
}

/* "MIGS": a migschedd store, in the database header's application_id. */
#define STORE_APPLICATION_ID 0x4d494753

/* The database and its -wal and -shm (which SQLite creates with the database's mode) at
 * mode 0600, regular files opened without following links: they hold jobs' environments.
 * *size: the database's size before this call (-1: it did not exist). */
static int private_files(const char *path, off_t *size, ms_error *err)
{
    static const char *const SUFFIX[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char name[4200];
        if ((size_t)snprintf(name, sizeof name, "%s%s", path, SUFFIX[i]) >= sizeof name)
            return ms_error_set(err, MS_EINVAL, "%s: path too long", path);
        int fd;
        if (i > 0 && access(name, F_OK) != 0 && errno == ENOENT)
            continue;
        struct stat sb;
        if (i == 0)
            *size = lstat(name, &sb) == 0 ? sb.st_size : -1;
        int rc = ms_open_regular(AT_FDCWD, name, name, O_RDWR | (i == 0 ? O_CREAT : 0), 0600, &fd,
                                 err);
        if (!rc && fchmod(fd, 0600) != 0)
            rc = ms_error_set(err, MS_EIO, "%s: %s", name, strerror(errno));
        if (fd >= 0)
            close(fd);
        if (rc)
            return rc;
    }
    return MS_OK;
}

int md_store_init(const char *path, ms_error *err)
{
    struct stat sb;
    if (lstat(path, &sb) != 0 || sb.st_size != 0)
        return MS_OK; /* missing: md_store_open creates it; with content: never touched */
    sqlite3 *db = NULL;
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
    int rc = MS_OK;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
        rc = ms_error_set(err, MS_EIO, "%s: cannot make a new store: %s", path,
                          db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
    return rc;
}

/* Whether the open database is a migschedd store: its application_id is ours, or it is
 * the file just created (made ours here, in the header, before anything else is written),
 * or a store from before the marker (a schema version and our tables; marked now). */
static int check_marker(md_store *st, off_t size, ms_error *err)
{
    int id = 0, version = 0, tables = 0;
    int rc = pragma_int(st, "PRAGMA application_id", &id, err);
    if (rc) {
        if (sqlite3_errcode(st->db) == SQLITE_NOTADB)
            return ms_error_set(err, MS_EINVAL,
                                "%s: not a migschedd store (not a SQLite "
                                "database)",
                                st->path);
        return rc;
    }
    if (id == STORE_APPLICATION_ID)
        return MS_OK;
    if (size == 0)
        return ms_error_set(err, MS_EINVAL,
                            "%s: the file is empty (zero length), not a "
                            "store: restore it, remove it for a new store, or start once with "
                            "init-store true",
                            st->path);
    if (id != 0)
        return ms_error_set(err, MS_EINVAL,
                            "%s: not a migschedd store (a SQLite database of "
                            "application id %#x)",
                            st->path, (unsigned)id);
    if (size > 0) { /* no marker: a store from before it has a schema version and our tables */
        if ((rc = pragma_int(st, "PRAGMA user_version", &version, err)) ||
            (rc = pragma_int(st,
                             "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND"
                             " name IN ('jobs', 'transitions', 'instances')",
                             &tables, err)))
            return rc;
        if (version < 1 || tables != 3)
            return ms_error_set(err, MS_EINVAL,
                                "%s: not a migschedd store (a SQLite database "
                                "without its marker)",
                                st->path);
    }
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d", STORE_APPLICATION_ID);
    return exec(st, sql, err);
}

/* PRAGMA quick_check's first finding, if it is not "ok". */
static int quick_check(md_store *st, ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, "PRAGMA quick_check(1)", &s, err);
    if (rc) {
        ms_error_prefix(err, "quick_check");
        return rc;
    }
    int step = sqlite3_step(s);
    const char *r = step == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
    if (step != SQLITE_ROW)
        rc = ms_error_set(err, MS_EIO, "%s: damaged store: quick_check: %s", st->path,
                          sqlite3_errmsg(st->db));
    else if (!r || strcmp(r, "ok"))
        rc = ms_error_set(err, MS_EIO, "%s: damaged store: quick_check: %.200s", st->path,
                          r ? r : "no answer");
    sqlite3_finalize(s);
    return rc;
}

int md_store_open(const char *path, const ms_gpu_model *gpu, md_store **out, ms_error *err)
{
    *out = NULL;
    md_store *st = calloc(1, sizeof *st);
    if (!st || !(st->path = strdup(path))) {
        free(st);
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    }
    st->gpu = gpu;
    off_t size;
    int rc = private_files(path, &size, err);
    if (rc) {
        md_store_close(st);
        return rc;
    }
    if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        rc = st->db ? db_error(st, "cannot open", err)
                    : ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
        md_store_close(st);
        return rc;
    }
    char mode[16];
    int sync, version;
    /* A busy writer (a sqlite3 shell on the file) makes us wait, not fail at once; another
     * migschedd is kept out by md_store_lock. */
    if (sqlite3_busy_timeout(st->db, 5000) != SQLITE_OK)
        rc = db_error(st, "busy timeout", err);
    else if (!(rc = check_marker(st, size, err)) && !(rc = quick_check(st, err)) &&
             !(rc = exec(st,
                         "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;"
                         " PRAGMA foreign_keys = ON",
                         err)) &&
             !(rc = migrate(st, err)) &&
             !(rc = md_store_settings(st, &version, mode, &sync, err)) && strcmp(mode, "wal"))
        rc = ms_error_set(err, MS_EIO,
                          "%s: journal mode is %s, not wal (a file system "
                          "without shared memory?)",
                          path, mode);
    if (rc) {
        md_store_close(st);
        return rc;
    }
    *out = st;
    return MS_OK;
}

void md_store_close(md_store *st)
{
    if (!st)
        return;
    sqlite3_close(st->db);
    free(st->path);
    free(st);
}

int md_store_settings(md_store *st, int *version, char journal_mode[16], int *synchronous,
                      ms_error *err)
{
    sqlite3_stmt *s;
    int rc = pragma_int(st, "PRAGMA user_version", version, err);
    if (!rc)
        rc = pragma_int(st, "PRAGMA synchronous", synchronous, err);
    if (rc || (rc = prepare(st, "PRAGMA journal_mode", &s, err)))
        return rc;
    if (sqlite3_step(s) != SQLITE_ROW)
        rc = db_error(st, "PRAGMA journal_mode", err);
    else
        snprintf(journal_mode, 16, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return rc;
}

static int bind_time(sqlite3_stmt *s, int i, double t)
{
    return isnan(t) ? sqlite3_bind_null(s, i) : sqlite3_bind_double(s, i, t);
}

/* Binds the job's mutable columns at 1..12: state, attempts, submitted, started, ended,
 * gpu, profile, start_slot, mig_uuid, exit_status, reason, crashes. */
static int bind_job_state(md_store *st, sqlite3_stmt *s, const md_job *j)
{
    bool placed = j->placement.profile >= 0;
    int rc = sqlite3_bind_text(s, 1, md_job_state_name(j->state), -1, SQLITE_STATIC);
    rc = rc ? rc : sqlite3_bind_int(s, 2, j->attempts);
    rc = rc ? rc : bind_time(s, 3, j->submitted);
    rc = rc ? rc : bind_time(s, 4, j->started);
    rc = rc ? rc : bind_time(s, 5, j->ended);
    rc = rc ? rc : j->gpu >= 0 ? sqlite3_bind_int(s, 6, j->gpu) : sqlite3_bind_null(s, 6);
    rc = rc       ? rc
         : placed ? sqlite3_bind_text(s, 7, st->gpu->profiles[j->placement.profile].name, -1,
                                      SQLITE_STATIC)
                  : sqlite3_bind_null(s, 7);
    rc = rc ? rc : placed ? sqlite3_bind_int(s, 8, j->placement.start) : sqlite3_bind_null(s, 8);
    rc = rc               ? rc
         : j->mig_uuid[0] ? sqlite3_bind_text(s, 9, j->mig_uuid, -1, SQLITE_STATIC)
                          : sqlite3_bind_null(s, 9);
    rc = rc ? rc : j->has_exit ? sqlite3_bind_int(s, 10, j->exit_status) : sqlite3_bind_null(s, 10);
    rc = rc ? rc : sqlite3_bind_text(s, 11, j->reason, -1, SQLITE_STATIC);
    rc = rc ? rc : sqlite3_bind_int(s, 12, j->crashes);
    return rc;
}

static int insert_transition(md_store *st, const md_job_transition *t, ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st,
                     "INSERT INTO transitions(job, at, event, from_state, to_state,"
                     " reason) VALUES(?, ?, ?, ?, ?, ?)",
                     &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int64(s, 1, t->job) || sqlite3_bind_double(s, 2, t->at) ||
        sqlite3_bind_text(s, 3, md_job_event_name(t->event), -1, SQLITE_STATIC) ||
        sqlite3_bind_text(s, 4, md_job_state_name(t->from), -1, SQLITE_STATIC) ||
        sqlite3_bind_text(s, 5, md_job_state_name(t->to), -1, SQLITE_STATIC) ||
        sqlite3_bind_text(s, 6, t->reason, -1, SQLITE_STATIC)) {
        sqlite3_finalize(s);
        return db_error(st, "bind transition", err);
    }
    return step_done(st, s, "insert transition", err);
}

/* Ends a transaction begun with BEGIN IMMEDIATE: COMMIT if its body succeeded (rc 0),
 * else ROLLBACK and rc. */
static int finish_txn(md_store *st, int rc, ms_error *err)
{
    if (rc) {
        sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
        return rc;
    }
    return exec(st, "COMMIT", err);
}

/* Inserts one submitted job and its transition inside the caller's transaction. */
static int insert_job(md_store *st, md_job *j, md_job_transition *t, ms_error *err)
{
    if (j->state != MD_JOB_QUEUED || t->event != MD_JOB_EV_SUBMIT)
        return ms_error_set(err, MS_EINVAL, "%s: a job is stored when it is submitted", st->path);
    char *spec = md_job_spec_text(&j->spec, st->gpu);
    if (!spec)
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
    j->spec_bytes = strlen(spec);
    sqlite3_stmt *s = NULL;
    int rc = prepare(st,
                     "INSERT INTO jobs(state, attempts, submitted, started, ended, gpu,"
                     " profile, start_slot, mig_uuid, exit_status, reason, crashes, name,"
                     " spec, owner_uid, owner_gid, owner_name) VALUES(?, ?, ?, ?, ?, ?, ?,"
                     " ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                     &s, err);
    if (!rc &&
        (bind_job_state(st, s, j) || sqlite3_bind_text(s, 13, j->spec.name, -1, SQLITE_STATIC) ||
         sqlite3_bind_text(s, 14, spec, -1, SQLITE_STATIC) ||
         sqlite3_bind_int64(s, 15, j->owner.uid) || sqlite3_bind_int64(s, 16, j->owner.gid) ||
         sqlite3_bind_text(s, 17, j->owner.name, -1, SQLITE_STATIC))) {
        sqlite3_finalize(s);
        rc = db_error(st, "bind job", err);
    } else if (!rc) {
        rc = step_done(st, s, "insert job", err);
    }
    if (!rc) {
        j->id = t->job = sqlite3_last_insert_rowid(st->db);
        rc = insert_transition(st, t, err);
    }
    free(spec);
    return rc;
}

int md_store_submit_many(md_store *st, md_job *const *jobs, md_job_transition *ts, size_t n,
                         ms_error *err)
{
    return md_store_commit(st, jobs, ts, n, NULL, NULL, 0, err);
}

int md_store_submit(md_store *st, md_job *j, md_job_transition *t, ms_error *err)
{
    return md_store_submit_many(st, &j, t, 1, err);
}

/* Writes one job's new state and its transition inside the caller's transaction. */
static int update_job(md_store *st, const md_job *j, const md_job_transition *t, ms_error *err)
{
    if (t->job != j->id || t->to != j->state || t->event == MD_JOB_EV_SUBMIT)
        return ms_error_set(err, MS_EINVAL,
                            "%s: job %lld: the transition is not the "
                            "job's last",
                            st->path, (long long)j->id);
    sqlite3_stmt *s;
    int rc = prepare(st,
                     "UPDATE jobs SET state = ?, attempts = ?, submitted = ?, started = ?,"
                     " ended = ?, gpu = ?, profile = ?, start_slot = ?, mig_uuid = ?,"
                     " exit_status = ?, reason = ?, crashes = ? WHERE id = ? AND state = ?",
                     &s, err);
    if (!rc && (bind_job_state(st, s, j) || sqlite3_bind_int64(s, 13, j->id) ||
                sqlite3_bind_text(s, 14, md_job_state_name(t->from), -1, SQLITE_STATIC))) {
        sqlite3_finalize(s);
        rc = db_error(st, "bind job", err);
    } else if (!rc && !(rc = step_done(st, s, "update job", err)) && sqlite3_changes(st->db) != 1) {
        /* The row is not in the state the transition starts from: a second writer, or a
         * caller whose copy of the job is stale. */
        rc = ms_error_set(err, MS_EINVAL, "%s: job %lld is not %s in the database", st->path,
                          (long long)j->id, md_job_state_name(t->from));
    }
    return rc ? rc : insert_transition(st, t, err);
}

int md_store_transitions(md_store *st, const md_job *const *jobs, const md_job_transition *ts,
                         size_t n, ms_error *err)
{
    return md_store_commit(st, NULL, NULL, 0, jobs, ts, n, err);
}

int md_store_commit(md_store *st, md_job *const *subs, md_job_transition *sts, size_t nsub,
                    const md_job *const *jobs, const md_job_transition *ts, size_t n, ms_error *err)
{
    int rc = exec(st, "BEGIN IMMEDIATE", err);
    for (size_t i = 0; !rc && i < nsub; i++)
        rc = insert_job(st, subs[i], &sts[i], err);
    for (size_t i = 0; !rc && i < n; i++)
        rc = update_job(st, jobs[i], &ts[i], err);
    rc = finish_txn(st, rc, err);
    for (size_t i = 0; rc && i < nsub; i++)
        subs[i]->id = sts[i].job = 0;
    return rc;
}

int md_store_transition(md_store *st, const md_job *j, const md_job_transition *t, ms_error *err)
{
    return md_store_transitions(st, &j, t, 1, err);
}

static double column_time(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

#define JOB_COLUMNS                                                         \
    "id, spec, state, attempts, submitted, started, ended, gpu, profile,"   \
    " start_slot, mig_uuid, exit_status, owner_uid, owner_gid, owner_name," \
    " reason, crashes"

/* One row of JOB_COLUMNS into a job; a row this build cannot read is an error naming it. */
static int read_job(md_store *st, sqlite3_stmt *s, md_job *j, ms_error *err)
{
    int64_t id = sqlite3_column_int64(s, 0);
    const char *spec = (const char *)sqlite3_column_text(s, 1);
    const char *state = (const char *)sqlite3_column_text(s, 2);
    md_job_spec parsed;
    int st_idx = state ? md_job_state_parse(state) : -1;
    if (!spec || st_idx <= MD_JOB_NEW)
        return ms_error_set(err, MS_EINVAL, "%s: job %lld: bad row", st->path, (long long)id);
    int rc = md_job_spec_parse(spec, strlen(spec), st->gpu, &parsed, err);
    if (rc) {
        ms_error_prefix(err, "%s: job %lld", st->path, (long long)id);
        return rc;
    }
    md_job_init(j, &parsed);
    j->id = id;
    j->spec_bytes = strlen(spec);
    j->owner.uid = (uint32_t)sqlite3_column_int64(s, 12);
    j->owner.gid = (uint32_t)sqlite3_column_int64(s, 13);
    const char *owner = (const char *)sqlite3_column_text(s, 14);
    snprintf(j->owner.name, sizeof j->owner.name, "%s", owner ? owner : "");
    j->state = (md_job_state)st_idx;
    j->attempts = sqlite3_column_int(s, 3);
    j->submitted = column_time(s, 4);
    j->started = column_time(s, 5);
    j->ended = column_time(s, 6);
    if (sqlite3_column_type(s, 7) != SQLITE_NULL)
        j->gpu = sqlite3_column_int(s, 7);
    const char *prof = (const char *)sqlite3_column_text(s, 8);
    if (prof) {
        j->placement.profile = ms_gpu_profile_by_name(st->gpu, prof);
        j->placement.start = sqlite3_column_int(s, 9);
        if (j->placement.profile < 0) {
            md_job_free(j);
            return ms_error_set(err, MS_EINVAL, "%s: job %lld: %s has no profile \"%.40s\"",
                                st->path, (long long)id, st->gpu->name, prof);
        }
    }
    const char *uuid = (const char *)sqlite3_column_text(s, 10);
    snprintf(j->mig_uuid, sizeof j->mig_uuid, "%s", uuid ? uuid : "");
    if ((j->has_exit = sqlite3_column_type(s, 11) != SQLITE_NULL))
        j->exit_status = sqlite3_column_int(s, 11);
    const char *reason = (const char *)sqlite3_column_text(s, 15);
    snprintf(j->reason, sizeof j->reason, "%s", reason ? reason : "");
    j->crashes = sqlite3_column_int(s, 16);
    return MS_OK;
}

int md_store_get_job(md_store *st, int64_t id, md_job *out, ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, "SELECT " JOB_COLUMNS " FROM jobs WHERE id = ?", &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int64(s, 1, id) != SQLITE_OK) {
        rc = db_error(st, "bind", err);
    } else {
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW)
            rc = read_job(st, s, out, err);
        else if (step == SQLITE_DONE)
            rc = ms_error_set(err, MS_EINVAL, "no job %lld", (long long)id);
        else
            rc = db_error(st, "select job", err);
    }
    sqlite3_finalize(s);
    return rc;
}

void md_store_free_jobs(md_job *jobs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        md_job_free(&jobs[i]);
    free(jobs);
}

/* Grows *arr (of elem-byte items) to hold one more than *n. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 16;
    void *p = realloc(*arr, c * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = c;
    return 0;
}

/* Reads the rows of s (prepared and bound) into *out, at most max; *more: whether a row
 * beyond max was there (NULL: none is asked for). Finalizes s. */
/* Up to max jobs and, past the first, max_bytes of their specs (0: no byte bound). */
static int collect_jobs(md_store *st, sqlite3_stmt *s, size_t max, size_t max_bytes, md_job **out,
                        size_t *n, bool *more, ms_error *err)
{
    size_t cap = 0, bytes = 0;
    int step, rc = MS_OK;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        bytes += (size_t)sqlite3_column_bytes(s, 1); /* the spec's JSON text */
        if (*n == max || (max_bytes && *n && bytes > max_bytes)) {
            if (more)
                *more = true;
            step = SQLITE_DONE;
            break;
        }
        if (grow((void **)out, &cap, *n, sizeof **out))
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
        else if (!(rc = read_job(st, s, &(*out)[*n], err)))
            (*n)++;
        if (rc)
            break;
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_error(st, "select jobs", err);
    sqlite3_finalize(s);
    if (rc) {
        md_store_free_jobs(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int md_store_list_jobs(md_store *st, int state, md_job **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    int rc = state < 0 ? prepare(st, "SELECT " JOB_COLUMNS " FROM jobs ORDER BY id", &s, err)
                       : prepare(st,
                                 "SELECT " JOB_COLUMNS " FROM jobs WHERE state = ?"
                                 " ORDER BY id",
                                 &s, err);
    if (rc)
        return rc;
    if (state >= 0 && sqlite3_bind_text(s, 1, md_job_state_name((md_job_state)state), -1,
                                        SQLITE_STATIC) != SQLITE_OK) {
        sqlite3_finalize(s);
        return db_error(st, "bind", err);
    }
    return collect_jobs(st, s, SIZE_MAX, 0, out, n, NULL, err);
}

/* One state's part of a page (state -1: any state) appended to *out: the rows of q's
 * bounds, order and owner, at most limit and one more, read with LIMIT on an index (the
 * state's, the owner's) in id order. *more when the part was cut. */
static int page_part(md_store *st, const md_store_job_query *q, int state, md_job **out, size_t *n,
                     bool *more, ms_error *err)
{
    /* An owner without a name is listed by its uid in decimal, as it is shown. */
    long uid = -1;
    bool by_uid = q->user && ms_parse_long(q->user, 0, UINT32_MAX, &uid);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT " JOB_COLUMNS " FROM jobs WHERE id > ?1 AND id < ?6%s%s"
             " ORDER BY id%s LIMIT ?2",
             state >= 0 ? " AND state = ?3" : "",
             !q->user ? ""
             : by_uid ? " AND (owner_name = ?4 OR (owner_name = '' AND owner_uid = ?5))"
                      : " AND owner_name = ?4",
             q->newest_first ? " DESC" : "");
    sqlite3_stmt *s;
    int rc = prepare(st, sql, &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int64(s, 1, q->after) || sqlite3_bind_int64(s, 2, (int64_t)q->limit + 1) ||
        (state >= 0 &&
         sqlite3_bind_text(s, 3, md_job_state_name((md_job_state)state), -1, SQLITE_STATIC)) ||
        (q->user && sqlite3_bind_text(s, 4, q->user, -1, SQLITE_STATIC)) ||
        (by_uid && sqlite3_bind_int64(s, 5, uid)) ||
        sqlite3_bind_int64(s, 6, q->before > 0 ? q->before : INT64_MAX)) {
        sqlite3_finalize(s);
        return db_error(st, "bind", err);
    }
    md_job *part = NULL;
    size_t k = 0;
    rc = collect_jobs(st, s, (size_t)q->limit, MD_STORE_PAGE_BYTES, &part, &k, more, err);
    md_job *all = rc ? NULL : realloc(*out, (*n + k + 1) * sizeof *all);
    if (!rc && !all)
        rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
    if (rc) {
        md_store_free_jobs(part, k);
        return rc;
    }
    memcpy(all + *n, part, k * sizeof *part);
    free(part);
    *out = all;
    *n += k;
    return MS_OK;
}

static int by_id(const void *a, const void *b)
{
    int64_t x = ((const md_job *)a)->id, y = ((const md_job *)b)->id;
    return (x > y) - (x < y);
}

static int by_id_desc(const void *a, const void *b) { return by_id(b, a); }

int md_store_job_page(md_store *st, const md_store_job_query *q, md_job **out, size_t *n,
                      bool *more, ms_error *err)
{
    *out = NULL;
    *n = 0;
    *more = false;
    if (q->limit < 1 || q->after < 0 || q->before < 0)
        return ms_error_set(err, MS_EINVAL, "%s: a page needs a limit above 0 and ids from 0",
                            st->path);
    /* Several states: one part per state, merged by id. A part that was cut holds every
     * match up to its last id only, so the page stops at the first such id. */
    md_job *all = NULL;
    size_t nall = 0;
    bool cut = false, first = true;
    int64_t stop = 0;
    int rc = MS_OK;
    for (int state = q->states ? MD_JOB_QUEUED : -1; !rc && state < MD_JOB_NSTATES; state++) {
        if (q->states && !(q->states & MD_STORE_STATE(state)))
            continue;
        size_t before = nall;
        bool part_cut = false;
        rc = page_part(st, q, state, &all, &nall, &part_cut, err);
        if (!rc && part_cut && nall > before) {
            int64_t last = all[nall - 1].id;
            if (first || (q->newest_first ? last > stop : last < stop))
                stop = last;
            first = false;
            cut = true;
        }
        if (!q->states)
            break;
    }
    if (rc) {
        md_store_free_jobs(all, nall);
        return rc;
    }
    qsort(all, nall, sizeof *all, q->newest_first ? by_id_desc : by_id);
    size_t keep = 0, bytes = 0;
    while (keep < nall && keep < (size_t)q->limit &&
           (!cut || (q->newest_first ? all[keep].id >= stop : all[keep].id <= stop)) &&
           (!keep || bytes + all[keep].spec_bytes <= MD_STORE_PAGE_BYTES))
        bytes += all[keep++].spec_bytes;
    *more = cut || keep < nall;
    for (size_t i = keep; i < nall; i++)
        md_job_free(&all[i]);
    *out = all;
    *n = keep;
    return MS_OK;
}

int md_store_count_jobs(md_store *st, uint64_t counts[MD_JOB_NSTATES], ms_error *err)
{
    memset(counts, 0, MD_JOB_NSTATES * sizeof *counts);
    sqlite3_stmt *s;
    int rc = prepare(st, "SELECT state, count(*) FROM jobs GROUP BY state", &s, err);
    if (rc)
        return rc;
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *state = (const char *)sqlite3_column_text(s, 0);
        int k = state ? md_job_state_parse(state) : -1;
        if (k <= MD_JOB_NEW) {
            rc = ms_error_set(err, MS_EINVAL, "%s: a job in state \"%.20s\"", st->path,
                              state ? state : "");
            break;
        }
        counts[k] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_error(st, "count jobs", err);
    sqlite3_finalize(s);
    return rc;
}

/* The jobs retention deletes: finished before the cut (?1). */
#define PRUNED "SELECT id FROM jobs WHERE ended < ?1 AND state IN ('done', 'failed', 'cancelled')"

/* Runs one statement of the prune with the cut bound; counts[] gets the rows of a
 * "SELECT state, count(*)" one. */
static int prune_step(md_store *st, const char *sql, double before, uint64_t counts[MD_JOB_NSTATES],
                      ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, sql, &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_double(s, 1, before) != SQLITE_OK) {
        sqlite3_finalize(s);
        return db_error(st, "bind", err);
    }
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *state = (const char *)sqlite3_column_text(s, 0);
        int k = state ? md_job_state_parse(state) : -1;
        if (counts && k > MD_JOB_NEW)
            counts[k] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    if (step != SQLITE_DONE)
        rc = db_error(st, "prune", err);
    sqlite3_finalize(s);
    return rc;
}

int md_store_prune(md_store *st, double before, uint64_t counts[MD_JOB_NSTATES], ms_error *err)
{
    memset(counts, 0, MD_JOB_NSTATES * sizeof *counts);
    int rc = exec(st, "BEGIN IMMEDIATE", err);
    /* The rows that refer to a job go first: the jobs they name are the same set until
     * the last statement deletes them. */
    rc = rc ? rc
            : prune_step(st,
                         "SELECT state, count(*) FROM jobs WHERE id IN (" PRUNED ")"
                         " GROUP BY state",
                         before, counts, err);
    rc = rc ? rc
            : prune_step(st, "DELETE FROM transitions WHERE job IN (" PRUNED ")", before, NULL,
                         err);
    rc = rc ? rc
            : prune_step(st, "DELETE FROM allocation_steps WHERE job IN (" PRUNED ")", before, NULL,
                         err);
    rc = rc ? rc : prune_step(st, "DELETE FROM jobs WHERE id IN (" PRUNED ")", before, NULL, err);
    rc = finish_txn(st, rc, err);
    if (rc)
        memset(counts, 0, MD_JOB_NSTATES * sizeof *counts);
    return rc;
}

int md_store_running_jobs(md_store *st, md_job **out, size_t *n, ms_error *err)
{
    return md_store_list_jobs(st, MD_JOB_RUNNING, out, n, err);
}

int md_store_history(md_store *st, int64_t job, md_job_transition **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    int rc = prepare(st,
                     "SELECT at, event, from_state, to_state, reason FROM transitions"
                     " WHERE job = ? ORDER BY seq",
                     &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int64(s, 1, job) != SQLITE_OK)
        rc = db_error(st, "bind", err);
    size_t cap = 0;
    int step;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *ev = (const char *)sqlite3_column_text(s, 1);
        const char *from = (const char *)sqlite3_column_text(s, 2);
        const char *to = (const char *)sqlite3_column_text(s, 3);
        md_job_transition t = {.job = job, .at = sqlite3_column_double(s, 0)};
        int e = ev ? md_job_event_parse(ev) : -1, f = from ? md_job_state_parse(from) : -1,
            g = to ? md_job_state_parse(to) : -1;
        if (e < 0 || f < 0 || g < 0) {
            rc = ms_error_set(err, MS_EINVAL, "%s: job %lld: bad transition row", st->path,
                              (long long)job);
        } else if (grow((void **)out, &cap, *n, sizeof **out)) {
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
        } else {
            t.event = (md_job_event)e;
            t.from = (md_job_state)f;
            t.to = (md_job_state)g;
            const char *reason = (const char *)sqlite3_column_text(s, 4);
            snprintf(t.reason, sizeof t.reason, "%s", reason ? reason : "");
            (*out)[(*n)++] = t;
        }
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_error(st, "select transitions", err);
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int md_store_add_plan(md_store *st, double now, const char *schedule_json, int64_t *id,
                      ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, "INSERT INTO plans(created, schedule) VALUES(?, ?)", &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_double(s, 1, now) ||
        sqlite3_bind_text(s, 2, schedule_json, -1, SQLITE_STATIC)) {
        sqlite3_finalize(s);
        return db_error(st, "bind plan", err);
    }
    if (!(rc = step_done(st, s, "insert plan", err)))
        *id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int md_store_latest_plan(md_store *st, int64_t *id, char **schedule_json, ms_error *err)
{
    *schedule_json = NULL;
    *id = 0;
    sqlite3_stmt *s;
    int rc = prepare(st, "SELECT id, schedule FROM plans ORDER BY id DESC LIMIT 1", &s, err);
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        *id = sqlite3_column_int64(s, 0);
        const char *text = (const char *)sqlite3_column_text(s, 1);
        if (!text || !(*schedule_json = strdup(text)))
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
    } else if (step != SQLITE_DONE) {
        rc = db_error(st, "select plan", err);
    }
    sqlite3_finalize(s);
    return rc;
}

int md_store_add_instance(md_store *st, md_store_instance *inst, ms_error *err)
{
    if (inst->at.profile < 0 || inst->at.profile >= st->gpu->nprofiles || !inst->uuid[0])
        return ms_error_set(err, MS_EINVAL, "%s: an instance needs a profile and a UUID", st->path);
    sqlite3_stmt *s;
    int rc = prepare(st,
                     "INSERT INTO instances(gpu, profile, start_slot, gi_id, ci_id, uuid,"
                     " created) VALUES(?, ?, ?, ?, ?, ?, ?)",
                     &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int(s, 1, inst->gpu) ||
        sqlite3_bind_text(s, 2, st->gpu->profiles[inst->at.profile].name, -1, SQLITE_STATIC) ||
        sqlite3_bind_int(s, 3, inst->at.start) || sqlite3_bind_int(s, 4, inst->gi_id) ||
        sqlite3_bind_int(s, 5, inst->ci_id) ||
        sqlite3_bind_text(s, 6, inst->uuid, -1, SQLITE_STATIC) ||
        sqlite3_bind_double(s, 7, inst->created)) {
        sqlite3_finalize(s);
        return db_error(st, "bind instance", err);
    }
    if (!(rc = step_done(st, s, "insert instance", err)))
        inst->id = sqlite3_last_insert_rowid(st->db);
    return rc;
}

int md_store_instance_destroyed(md_store *st, int64_t id, double now, ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, "UPDATE instances SET destroyed = ? WHERE id = ? AND destroyed IS NULL",
                     &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_double(s, 1, now) || sqlite3_bind_int64(s, 2, id)) {
        sqlite3_finalize(s);
        return db_error(st, "bind instance", err);
    }
    if (!(rc = step_done(st, s, "update instance", err)) && sqlite3_changes(st->db) != 1)
        rc = ms_error_set(err, MS_EINVAL, "%s: no live instance %lld", st->path, (long long)id);
    return rc;
}

int md_store_live_instances(md_store *st, md_store_instance **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    int rc = prepare(st,
                     "SELECT id, gpu, profile, start_slot, gi_id, ci_id, uuid, created"
                     " FROM instances WHERE destroyed IS NULL ORDER BY id",
                     &s, err);
    if (rc)
        return rc;
    size_t cap = 0;
    int step;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        const char *prof = (const char *)sqlite3_column_text(s, 2);
        const char *uuid = (const char *)sqlite3_column_text(s, 6);
        int p = prof ? ms_gpu_profile_by_name(st->gpu, prof) : -1;
        if (p < 0 || !uuid) {
            rc = ms_error_set(err, MS_EINVAL,
                              "%s: instance %lld: profile \"%.40s\" unknown "
                              "to %s",
                              st->path, (long long)sqlite3_column_int64(s, 0), prof ? prof : "",
                              st->gpu->name);
        } else if (grow((void **)out, &cap, *n, sizeof **out)) {
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
        } else {
            md_store_instance *in = &(*out)[(*n)++];
            memset(in, 0, sizeof *in);
            in->id = sqlite3_column_int64(s, 0);
            in->gpu = sqlite3_column_int(s, 1);
            in->at.profile = p;
            in->at.start = sqlite3_column_int(s, 3);
            in->gi_id = sqlite3_column_int(s, 4);
            in->ci_id = sqlite3_column_int(s, 5);
            snprintf(in->uuid, sizeof in->uuid, "%s", uuid);
            in->created = sqlite3_column_double(s, 7);
        }
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_error(st, "select instances", err);
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* Runs sql (a statement on (job) or (job, step)) to completion. */
static int step_stmt(md_store *st, const char *sql, int64_t job, int64_t step, ms_error *err)
{
    sqlite3_stmt *s;
    int rc = prepare(st, sql, &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int64(s, 1, job) ||
        (sqlite3_bind_parameter_count(s) > 1 && sqlite3_bind_int64(s, 2, step))) {
        sqlite3_finalize(s);
        return db_error(st, "bind step", err);
    }
    return step_done(st, s, "allocation step", err);
}

int md_store_step_add(md_store *st, int64_t job, int64_t step, ms_error *err)
{
    return step_stmt(st, "INSERT OR IGNORE INTO allocation_steps(job, step) VALUES(?, ?)", job,
                     step, err);
}

int md_store_step_remove(md_store *st, int64_t job, int64_t step, ms_error *err)
{
    return step_stmt(st, "DELETE FROM allocation_steps WHERE job = ? AND step = ?", job, step, err);
}

int md_store_steps_clear(md_store *st, int64_t job, ms_error *err)
{
    return step_stmt(st, "DELETE FROM allocation_steps WHERE job = ?", job, 0, err);
}

int md_store_steps(md_store *st, int64_t job, int64_t **out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    int rc = prepare(st, "SELECT step FROM allocation_steps WHERE job = ? ORDER BY step", &s, err);
    if (rc)
        return rc;
    if (sqlite3_bind_int64(s, 1, job)) {
        sqlite3_finalize(s);
        return db_error(st, "bind steps", err);
    }
    size_t cap = 0;
    int step;
    while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
        if (grow((void **)out, &cap, *n, sizeof **out))
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", st->path);
        else
            (*out)[(*n)++] = sqlite3_column_int64(s, 0);
    }
    if (!rc && step != SQLITE_DONE)
        rc = db_error(st, "select steps", err);
    sqlite3_finalize(s);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}
