/* test_daemon_store.c: migschedd's SQLite store: WAL and synchronous=FULL, jobs and their
 * full transition history across a reopen, the crash-recovery query, migrations from an
 * old schema, refusal of a newer one, plans and instances. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store.h"
#include "support.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

typedef struct fixture {
    char dir[256], path[320];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    test_temp_dir("store", f->dir, sizeof f->dir);
    snprintf(f->path, sizeof f->path, "%s/jobs.db", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    test_remove_dir(f->dir);
    free(f);
    return 0;
}

static md_store *open_ok(const char *path)
{
    md_store *st;
    ms_error e = {0};
    if (md_store_open(path, a100(), &st, &e))
        fail_msg("%s", e.msg);
    return st;
}

/* Parses, submits and stores a job owned by owner (NULL: nobody set, uid 0 and no name);
 * returns its id. */
static int64_t submit_as(md_store *st, const char *name, const char *on_interrupt, double now,
                         const md_job_owner *owner)
{
    char text[256];
    snprintf(text, sizeof text,
             "{\"name\": \"%s\", \"command\": [\"sleep\", \"5\"],"
             " \"on_interrupt\": \"%s\", \"times\": {\"1\": 30, \"7\": 6}}",
             name, on_interrupt);
    md_job_spec s;
    ms_error e = {0};
    assert_int_equal(md_job_spec_parse(text, strlen(text), a100(), &s, &e), MS_OK);
    md_job j;
    md_job_transition t;
    md_job_init(&j, &s);
    if (owner)
        j.owner = *owner;
    assert_int_equal(md_job_submit(&j, now, &t, &e), MS_OK);
    if (md_store_submit(st, &j, &t, &e))
        fail_msg("%s", e.msg);
    assert_true(j.id > 0);
    assert_int_equal(t.job, j.id);
    int64_t id = j.id;
    md_job_free(&j);
    return id;
}

static int64_t submit(md_store *st, const char *name, const char *on_interrupt, double now)
{
    return submit_as(st, name, on_interrupt, now, NULL);
}

/* Loads job id, applies one event through the state machine and stores it. */
static void event(md_store *st, int64_t id, md_job_event ev, double now, int exit_status)
{
    md_job j;
    md_job_transition t;
    ms_error e = {0};
    assert_int_equal(md_store_get_job(st, id, &j, &e), MS_OK);
    ms_placement at = {ms_gpu_profile_by_name(a100(), "7g.40gb"), 0};
    int rc = ev == MD_JOB_EV_START       ? md_job_start(&j, now, 0, at, "MIG-5e1f", &t, &e)
             : ev == MD_JOB_EV_FINISH    ? md_job_finish(&j, now, exit_status, &t, &e)
             : ev == MD_JOB_EV_INTERRUPT ? md_job_interrupt(&j, now, &t, &e)
                                         : md_job_cancel(&j, now, &t, &e);
    assert_int_equal(rc, MS_OK);
    if (md_store_transition(st, &j, &t, &e))
        fail_msg("%s", e.msg);
    md_job_free(&j);
}

/* The connection is at the newest schema, in WAL mode, synchronous=FULL (2). */
static void assert_settings(md_store *st)
{
    int version, sync;
    char mode[16];
    ms_error e = {0};
    assert_int_equal(md_store_settings(st, &version, mode, &sync, &e), MS_OK);
    assert_int_equal(version, md_store_migration_count());
    assert_string_equal(mode, "wal");
    assert_int_equal(sync, 2);
}

static void test_settings(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    assert_settings(st);
    md_store_close(st);
    /* WAL is a property of the file: another connection sees it. */
    sqlite3 *db;
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(s, 0), "wal");
    sqlite3_finalize(s);
    sqlite3_close(db);
}

static void test_round_trip_and_history(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    int64_t a = submit(st, "a", "retry", 100), b = submit(st, "b", "fail", 101);
    assert_int_equal(b, a + 1);
    event(st, a, MD_JOB_EV_START, 102, 0);
    event(st, a, MD_JOB_EV_INTERRUPT, 103, 0);
    event(st, a, MD_JOB_EV_START, 104, 0);
    event(st, a, MD_JOB_EV_FINISH, 110, 0);
    event(st, b, MD_JOB_EV_CANCEL, 105, 0);
    md_store_close(st);

    st = open_ok(f->path); /* everything survives a reopen */
    md_job j;
    ms_error e = {0};
    assert_int_equal(md_store_get_job(st, a, &j, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_DONE);
    assert_int_equal(j.attempts, 2);
    assert_true(j.submitted == 100 && j.started == 104 && j.ended == 110);
    assert_int_equal(j.gpu, 0);
    assert_string_equal(a100()->profiles[j.placement.profile].name, "7g.40gb");
    assert_string_equal(j.mig_uuid, "MIG-5e1f");
    assert_true(j.has_exit);
    assert_int_equal(j.exit_status, 0);
    assert_string_equal(j.spec.name, "a");
    assert_true(j.spec.times[7] == 6);
    md_job_free(&j);

    md_job_transition *h;
    size_t n;
    assert_int_equal(md_store_history(st, a, &h, &n, &e), MS_OK);
    static const struct {
        md_job_event ev;
        md_job_state from, to;
        double at;
    } want[] = {
        {MD_JOB_EV_SUBMIT, MD_JOB_NEW, MD_JOB_QUEUED, 100},
        {MD_JOB_EV_START, MD_JOB_QUEUED, MD_JOB_RUNNING, 102},
        {MD_JOB_EV_INTERRUPT, MD_JOB_RUNNING, MD_JOB_QUEUED, 103},
        {MD_JOB_EV_START, MD_JOB_QUEUED, MD_JOB_RUNNING, 104},
        {MD_JOB_EV_FINISH, MD_JOB_RUNNING, MD_JOB_DONE, 110},
    };
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(h[i].job, a);
        assert_int_equal(h[i].event, want[i].ev);
        assert_int_equal(h[i].from, want[i].from);
        assert_int_equal(h[i].to, want[i].to);
        assert_true(h[i].at == want[i].at);
    }
    free(h);

    md_job *list;
    assert_int_equal(md_store_list_jobs(st, -1, &list, &n, &e), MS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(list[1].state, MD_JOB_CANCELLED);
    md_store_free_jobs(list, n);
    assert_int_equal(md_store_list_jobs(st, MD_JOB_CANCELLED, &list, &n, &e), MS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(list[0].id, b);
    md_store_free_jobs(list, n);

    assert_int_equal(md_store_get_job(st, 99, &j, &e), MS_EINVAL);
    assert_string_equal(e.msg, "no job 99");
    md_store_close(st);
}

/* A transition from a state the row is no longer in (a stale copy) changes nothing. */
static void test_stale_transition_refused(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    int64_t id = submit(st, "a", "retry", 1);
    md_job stale, j;
    md_job_transition t;
    ms_error e = {0};
    assert_int_equal(md_store_get_job(st, id, &stale, &e), MS_OK);
    event(st, id, MD_JOB_EV_CANCEL, 2, 0);
    assert_int_equal(md_job_cancel(&stale, 3, &t, &e), MS_OK);
    assert_int_equal(md_store_transition(st, &stale, &t, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "is not queued in the database"));
    md_job_transition *h;
    size_t n;
    assert_int_equal(md_store_history(st, id, &h, &n, &e), MS_OK);
    assert_int_equal(n, 2); /* submit, the first cancel: the refused one left no row */
    free(h);
    assert_int_equal(md_store_get_job(st, id, &j, &e), MS_OK);
    assert_true(j.ended == 2);
    md_job_free(&j);
    md_job_free(&stale);
    md_store_close(st);
}

/* Stores a job and runs events on it through the state machine, without cmocka (for the
 * child that is killed): 0 or the first failing status. */
static int job_events(md_store *st, const char *on_interrupt, int nev, const md_job_event *ev)
{
    char text[256];
    snprintf(text, sizeof text,
             "{\"name\": \"c\", \"command\": [\"sleep\", \"5\"],"
             " \"on_interrupt\": \"%s\", \"slices\": 7, \"seconds\": 6}",
             on_interrupt);
    md_job_spec s;
    md_job j;
    md_job_transition t;
    ms_error e = {0};
    int rc = md_job_spec_parse(text, strlen(text), a100(), &s, &e);
    if (rc)
        return rc;
    md_job_init(&j, &s);
    ms_placement at = {j.spec.profile, 0};
    if (!(rc = md_job_submit(&j, 1, &t, &e)))
        rc = md_store_submit(st, &j, &t, &e);
    for (int i = 0; i < nev && !rc; i++) {
        rc = ev[i] == MD_JOB_EV_START ? md_job_start(&j, 2 + i, 0, at, "MIG-c", &t, &e)
                                      : md_job_finish(&j, 2 + i, 0, &t, &e);
        if (!rc)
            rc = md_store_transition(st, &j, &t, &e);
    }
    if (rc)
        fprintf(stderr, "child: %s\n", e.msg);
    md_job_free(&j);
    return rc;
}

/* A daemon SIGKILLed with jobs running leaves them running in the database: recovery
 * finds exactly those, and the state machine's interrupt requeues (retry) or fails (fail)
 * them. Jobs 1, 2 running (retry, fail), 3 queued, 4 done. */
static void test_crash_recovery(void **state)
{
    fixture *f = *state;
    const md_job_event start[] = {MD_JOB_EV_START}, done[] = {MD_JOB_EV_START, MD_JOB_EV_FINISH};
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        md_store *cst;
        ms_error ce = {0};
        if (md_store_open(f->path, a100(), &cst, &ce) || job_events(cst, "retry", 1, start) ||
            job_events(cst, "fail", 1, start) || job_events(cst, "retry", 0, NULL) ||
            job_events(cst, "retry", 2, done))
            _exit(2);
        raise(SIGKILL); /* no close, no checkpoint: the WAL holds the commits */
        _exit(3);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    int64_t r1 = 1, r2 = 2, q = 3;

    md_store *st = open_ok(f->path);
    md_job *run;
    size_t n;
    ms_error e = {0};
    assert_int_equal(md_store_running_jobs(st, &run, &n, &e), MS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(run[0].id, r1);
    assert_int_equal(run[1].id, r2);
    for (size_t i = 0; i < n; i++) {
        md_job_transition t;
        assert_int_equal(md_job_interrupt(&run[i], 10, &t, &e), MS_OK);
        assert_int_equal(md_store_transition(st, &run[i], &t, &e), MS_OK);
    }
    md_store_free_jobs(run, n);
    assert_int_equal(md_store_running_jobs(st, &run, &n, &e), MS_OK);
    assert_int_equal(n, 0);
    md_store_free_jobs(run, n);
    md_job j;
    assert_int_equal(md_store_get_job(st, r1, &j, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_QUEUED);
    md_job_free(&j);
    assert_int_equal(md_store_get_job(st, r2, &j, &e), MS_OK);
    assert_int_equal(j.state, MD_JOB_FAILED);
    md_job_free(&j);
    assert_int_equal(md_store_list_jobs(st, MD_JOB_QUEUED, &run, &n, &e), MS_OK);
    assert_int_equal(n, 2); /* q and the requeued r1 */
    assert_int_equal(run[0].id, r1);
    assert_int_equal(run[1].id, q);
    md_store_free_jobs(run, n);
    md_store_close(st);
}

static void exec_sql(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
}

static bool has_index(const char *path, const char *name)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT 1 FROM sqlite_master WHERE type = 'index'"
                                        " AND name = ?",
                                        -1, &s, NULL),
                     SQLITE_OK);
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    bool found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    sqlite3_close(db);
    return found;
}

/* A database left at schema version 1 (with a job in it) is brought to the current
 * version on open, keeping its rows. */
static void test_migration(void **state)
{
    fixture *f = *state;
    assert_true(md_store_migration_count() >= 2);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    exec_sql(db, md_store_migration_sql(0));
    exec_sql(db, "PRAGMA user_version = 1");
    exec_sql(db, "INSERT INTO jobs(name, spec, state, attempts, submitted) VALUES('old',"
                 " '{\"name\":\"old\",\"command\":[\"true\"],\"slices\":2,\"seconds\":9}',"
                 " 'queued', 0, 50)");
    sqlite3_close(db);
    assert_false(has_index(f->path, "transitions_by_job"));

    md_store *st = open_ok(f->path);
    assert_settings(st);
    ms_error e = {0};
    md_job j;
    assert_int_equal(md_store_get_job(st, 1, &j, &e), MS_OK);
    assert_string_equal(j.spec.name, "old");
    assert_int_equal(j.state, MD_JOB_QUEUED);
    assert_string_equal(a100()->profiles[j.spec.profile].name, "2g.10gb");
    md_job_free(&j);
    md_store_close(st);
    assert_true(has_index(f->path, "transitions_by_job"));
}

/* A database of schema version 3 (before jobs had owners) gets the owner columns: its jobs
 * were run by root, so they are root's (uid 0, gid 0, "root"); a job stored afterwards keeps
 * the owner it was given. */
static void test_migration_owners(void **state)
{
    fixture *f = *state;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    for (int i = 0; i < 3; i++)
        exec_sql(db, md_store_migration_sql(i));
    exec_sql(db, "PRAGMA user_version = 3");
    exec_sql(db, "INSERT INTO jobs(name, spec, state, attempts, submitted) VALUES('old',"
                 " '{\"name\":\"old\",\"command\":[\"true\"],\"slices\":2,\"seconds\":9}',"
                 " 'done', 1, 50)");
    sqlite3_close(db);

    md_store *st = open_ok(f->path);
    assert_settings(st);
    ms_error e = {0};
    md_job j;
    assert_int_equal(md_store_get_job(st, 1, &j, &e), MS_OK);
    assert_int_equal(j.owner.uid, 0);
    assert_int_equal(j.owner.gid, 0);
    assert_string_equal(j.owner.name, "root");
    md_job_free(&j);
    md_job_owner alice = {.uid = 4242, .gid = 4343, .name = "alice"};
    int64_t id = submit_as(st, "new", "retry", 60, &alice);
    assert_int_equal(md_store_get_job(st, id, &j, &e), MS_OK);
    assert_int_equal(j.owner.uid, 4242);
    assert_int_equal(j.owner.gid, 4343);
    assert_string_equal(j.owner.name, "alice");
    assert_true(j.spec_bytes > 0);
    md_job_free(&j);
    md_store_close(st);
    assert_true(has_index(f->path, "jobs_by_owner"));
}

/* Pages: ids above after, at most limit, *more while jobs match beyond; filtered by state
 * and by owner (a name, or the uid of an owner without one). */
static void test_job_pages(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    md_job_owner alice = {.uid = 4242, .gid = 4242, .name = "alice"},
                 nameless = {.uid = 5151, .gid = 5151, .name = ""};
    for (int i = 0; i < 7; i++) /* 1..7: alice, nameless, alice, ... */
        submit_as(st, "p", "retry", 10 + i, i % 2 ? &nameless : &alice);
    event(st, 3, MD_JOB_EV_CANCEL, 30, 0);
    md_job *page;
    size_t n;
    bool more;
    ms_error e = {0};
    md_store_job_query q = {.after = 0, .limit = 3};
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_OK);
    assert_int_equal(n, 3);
    assert_true(more);
    assert_int_equal(page[0].id, 1);
    assert_int_equal(page[2].id, 3);
    md_store_free_jobs(page, n);
    q.after = 6;
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_OK);
    assert_int_equal(n, 1);
    assert_false(more);
    assert_int_equal(page[0].id, 7);
    md_store_free_jobs(page, n);
    q = (md_store_job_query){.after = 1, .limit = 2, .user = "alice"};
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_OK);
    assert_int_equal(n, 2);
    assert_true(more);
    assert_int_equal(page[0].id, 3);
    assert_int_equal(page[1].id, 5);
    md_store_free_jobs(page, n);
    q = (md_store_job_query){
        .after = 0, .limit = 10, .states = MD_STORE_STATE(MD_JOB_QUEUED), .user = "alice"};
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_OK);
    assert_int_equal(n, 3); /* 1, 5, 7: 3 is cancelled */
    assert_false(more);
    assert_int_equal(page[1].id, 5);
    md_store_free_jobs(page, n);
    q = (md_store_job_query){.after = 0, .limit = 10, .user = "5151"};
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_OK);
    assert_int_equal(n, 3);
    assert_int_equal(page[0].id, 2);
    assert_int_equal(page[0].owner.uid, 5151);
    md_store_free_jobs(page, n);
    q = (md_store_job_query){.after = 0, .limit = 10, .user = "nobody-here"};
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_OK);
    assert_int_equal(n, 0);
    md_store_free_jobs(page, n);
    q.limit = 0;
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_EINVAL);
    md_store_close(st);
}

/* The ids of a page, "1,5,7", and whether more match. */
static const char *page_ids(md_store *st, const md_store_job_query *q)
{
    static char buf[128];
    md_job *page;
    size_t n;
    bool more;
    ms_error e = {0};
    if (md_store_job_page(st, q, &page, &n, &more, &e))
        fail_msg("%s", e.msg);
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", i ? "," : "",
                                (long long)page[i].id);
    snprintf(buf + len, sizeof buf - len, "%s", more ? " more" : "");
    md_store_free_jobs(page, n);
    return buf;
}

/* The history's pages: several states at once, merged by id across the states' parts
 * (each cut at the limit), newest first, below `before`. */
static void test_job_pages_states(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    md_job_owner alice = {.uid = 4242, .gid = 4242, .name = "alice"},
                 bob = {.uid = 4343, .gid = 4343, .name = "bob"};
    for (int i = 1; i <= 9; i++)
        submit_as(st, "p", "retry", 10 + i, i % 3 ? &alice : &bob);
    /* 1, 4, 7 done; 2, 5, 8 failed; 3 cancelled; 6, 9 queued */
    for (int64_t id = 1; id <= 8; id++) {
        if (id % 3 == 0) {
            if (id == 3)
                event(st, id, MD_JOB_EV_CANCEL, 30, 0);
            continue;
        }
        event(st, id, MD_JOB_EV_START, 20, 0);
        event(st, id, MD_JOB_EV_FINISH, 30, id % 3 == 1 ? 0 : 3);
    }
    const unsigned ended = MD_STORE_STATE(MD_JOB_DONE) | MD_STORE_STATE(MD_JOB_FAILED) |
                           MD_STORE_STATE(MD_JOB_CANCELLED);
    md_store_job_query q = {.limit = 10, .states = ended};
    assert_string_equal(page_ids(st, &q), "1,2,3,4,5,7,8");
    q.limit = 3;
    assert_string_equal(page_ids(st, &q), "1,2,3 more");
    q.after = 3;
    assert_string_equal(page_ids(st, &q), "4,5,7 more");
    q.after = 5;
    assert_string_equal(page_ids(st, &q), "7,8");
    q = (md_store_job_query){.limit = 3, .states = ended, .newest_first = true};
    assert_string_equal(page_ids(st, &q), "8,7,5 more");
    q.before = 5;
    assert_string_equal(page_ids(st, &q), "4,3,2 more");
    q.before = 2;
    assert_string_equal(page_ids(st, &q), "1");
    q = (md_store_job_query){.limit = 10, .states = ended, .newest_first = true, .user = "alice"};
    assert_string_equal(page_ids(st, &q), "8,7,5,4,2,1");
    q.states = MD_STORE_STATE(MD_JOB_FAILED) | MD_STORE_STATE(MD_JOB_QUEUED);
    q.user = NULL;
    assert_string_equal(page_ids(st, &q), "9,8,6,5,2");
    q = (md_store_job_query){.limit = 2, .after = 1, .before = 8, .newest_first = true};
    assert_string_equal(page_ids(st, &q), "7,6 more");
    q.before = -1;
    md_job *page;
    size_t n;
    bool more;
    ms_error e = {0};
    assert_int_equal(md_store_job_page(st, &q, &page, &n, &more, &e), MS_EINVAL);
    md_store_close(st);
}

/* The counts by state, by SQL. */
static void test_job_counts(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    md_job_owner alice = {.uid = 4242, .gid = 4242, .name = "alice"};
    for (int i = 0; i < 7; i++)
        submit_as(st, "p", "retry", 10 + i, &alice);
    event(st, 3, MD_JOB_EV_CANCEL, 30, 0);
    ms_error e = {0};
    uint64_t counts[MD_JOB_NSTATES];
    assert_int_equal(md_store_count_jobs(st, counts, &e), MS_OK);
    assert_int_equal(counts[MD_JOB_QUEUED], 6);
    assert_int_equal(counts[MD_JOB_CANCELLED], 1);
    assert_int_equal(counts[MD_JOB_RUNNING] + counts[MD_JOB_DONE] + counts[MD_JOB_NEW], 0);
    md_store_close(st);
}

static void test_newer_version_refused(void **state)
{
    fixture *f = *state;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(f->path, &db), SQLITE_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", md_store_migration_count() + 1);
    exec_sql(db, "PRAGMA application_id = 1296648019"); /* "MIGS": a store of a newer build */
    exec_sql(db, sql);
    sqlite3_close(db);
    md_store *st;
    ms_error e = {0};
    assert_int_equal(md_store_open(f->path, a100(), &st, &e), MS_EINVAL);
    assert_null(st);
    assert_non_null(strstr(e.msg, f->path));
    if (!strstr(e.msg, "is newer than this migschedd knows"))
        fail_msg("%s", e.msg);
}

static void test_open_errors(void **state)
{
    fixture *f = *state;
    md_store *st;
    ms_error e = {0};
    char path[400];
    snprintf(path, sizeof path, "%s/missing/dir/jobs.db", f->dir);
    assert_int_equal(md_store_open(path, a100(), &st, &e), MS_EIO);
    assert_non_null(strstr(e.msg, path));
    /* Not a database: refused, naming the file, and left as it was. */
    FILE *out = fopen(f->path, "w");
    fputs("this is not a SQLite database, just some text long enough to have a header\n", out);
    fclose(out);
    assert_int_not_equal(md_store_open(f->path, a100(), &st, &e), MS_OK);
    assert_non_null(strstr(e.msg, f->path));
    assert_non_null(strstr(e.msg, "not a migschedd store"));
}

/* One daemon per store: a second lock on the same db is refused at once, naming the
 * holder's pid; the lock file is 0600 with that pid; once released it can be taken again;
 * a link where the lock file goes is refused, its target untouched. */
static void test_lock(void **state)
{
    fixture *f = *state;
    ms_error e = {0};
    int a, b;
    assert_int_equal(md_store_lock(f->path, &a, &e), MS_OK);
    char lock[600], want[64], text[32] = "";
    snprintf(lock, sizeof lock, "%s.lock", f->path);
    struct stat sb;
    assert_int_equal(stat(lock, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    FILE *in = fopen(lock, "r");
    assert_non_null(fgets(text, sizeof text, in));
    fclose(in);
    snprintf(want, sizeof want, "%ld\n", (long)getpid());
    assert_string_equal(text, want);
    assert_int_equal(md_store_lock(f->path, &b, &e), MS_EINVAL);
    assert_int_equal(b, -1);
    snprintf(want, sizeof want, "in use by migschedd pid %ld", (long)getpid());
    assert_non_null(strstr(e.msg, want));
    assert_non_null(strstr(e.msg, f->path));
    close(a);
    assert_int_equal(md_store_lock(f->path, &b, &e), MS_OK);
    close(b);

    char target[400], other[400];
    snprintf(target, sizeof target, "%s/target", f->dir);
    snprintf(other, sizeof other, "%s/l.db", f->dir);
    snprintf(lock, sizeof lock, "%s.lock", other);
    FILE *t = fopen(target, "w");
    fputs("keep", t);
    fclose(t);
    assert_int_equal(symlink(target, lock), 0);
    assert_int_not_equal(md_store_lock(other, &b, &e), MS_OK);
    assert_non_null(strstr(e.msg, lock));
    assert_int_equal(stat(target, &sb), 0);
    assert_int_equal(sb.st_size, 4);
}

static void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    assert_int_equal(fwrite(data, 1, n, out), n);
    fclose(out);
}

static void expect_refused(const char *path, const char *text)
{
    md_store *st;
    ms_error e = {0};
    assert_int_not_equal(md_store_open(path, a100(), &st, &e), MS_OK);
    assert_null(st);
    if (!strstr(e.msg, path) || !strstr(e.msg, text))
        fail_msg("%s: expected \"%s\": %s", path, text, e.msg);
}

static int application_id(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    int id = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return id;
}

/* The format marker: a new store carries it; an empty file is refused unless
 * md_store_init made it a store; another SQLite database is refused, by open and by init
 * alike, and left as it was; a store of before the marker is marked and opens. */
static void test_format_marker(void **state)
{
    fixture *f = *state;
    ms_error e = {0};
    md_store_close(open_ok(f->path));
    assert_int_equal(application_id(f->path), 0x4d494753);

    char empty[400], foreign[400], old[400];
    snprintf(empty, sizeof empty, "%s/empty.db", f->dir);
    write_bytes(empty, "", 0);
    expect_refused(empty, "is empty");
    struct stat sb;
    assert_int_equal(stat(empty, &sb), 0);
    assert_int_equal(sb.st_size, 0);
    assert_int_equal(md_store_init(empty, &e), MS_OK);
    md_store *st = open_ok(empty);
    submit(st, "first", "retry", 10);
    md_store_close(st);
    assert_int_equal(md_store_init(empty, &e), MS_OK); /* a store: left alone */
    st = open_ok(empty);
    uint64_t counts[MD_JOB_NSTATES];
    assert_int_equal(md_store_count_jobs(st, counts, &e), MS_OK);
    assert_int_equal(counts[MD_JOB_QUEUED], 1);
    md_store_close(st);

    snprintf(foreign, sizeof foreign, "%s/foreign.db", f->dir);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(foreign, &db), SQLITE_OK);
    exec_sql(db, "CREATE TABLE t(x); INSERT INTO t VALUES(42)");
    sqlite3_close(db);
    assert_int_equal(stat(foreign, &sb), 0);
    off_t size = sb.st_size;
    assert_int_equal(md_store_init(foreign, &e), MS_OK);
    expect_refused(foreign, "not a migschedd store");
    assert_int_equal(application_id(foreign), 0);
    assert_int_equal(stat(foreign, &sb), 0);
    assert_int_equal(sb.st_size, size);
    assert_int_equal(sqlite3_open(foreign, &db), SQLITE_OK);
    exec_sql(db, "PRAGMA application_id = 7");
    sqlite3_close(db);
    expect_refused(foreign, "application id 0x7");

    snprintf(old, sizeof old, "%s/old.db", f->dir);
    assert_int_equal(sqlite3_open(old, &db), SQLITE_OK);
    exec_sql(db, md_store_migration_sql(0));
    exec_sql(db, "PRAGMA user_version = 1");
    sqlite3_close(db);
    md_store_close(open_ok(old));
    assert_int_equal(application_id(old), 0x4d494753);
}

/* Random bytes over a store's last page: found at open by quick_check, naming the file. */
static void test_quick_check(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    for (int i = 0; i < 60; i++)
        submit(st, "a job whose name takes some room in a page", "retry", 10 + i);
    md_store_close(st);
    struct stat sb;
    assert_int_equal(stat(f->path, &sb), 0);
    assert_true(sb.st_size >= 3 * 4096);
    unsigned char page[4096];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof page; i++)
        page[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    FILE *out = fopen(f->path, "r+");
    assert_int_equal(fseek(out, sb.st_size - (off_t)sizeof page, SEEK_SET), 0);
    assert_int_equal(fwrite(page, 1, sizeof page, out), sizeof page);
    fclose(out);
    expect_refused(f->path, "damaged store: quick_check");
}

/* An allocation's steps: a set per job (a step added twice is there once), removed one by
 * one or all at once, kept by a reopen; another job's steps are its own. */
static void test_allocation_steps(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    ms_error e = {0};
    int64_t a = submit(st, "a", "fail", 1), b = submit(st, "b", "fail", 2), *steps;
    size_t n;
    assert_int_equal(md_store_step_add(st, a, 4294967291LL, &e), MS_OK);
    assert_int_equal(md_store_step_add(st, a, 0, &e), MS_OK);
    assert_int_equal(md_store_step_add(st, a, 0, &e), MS_OK);
    assert_int_equal(md_store_step_add(st, b, 3, &e), MS_OK);
    md_store_close(st);
    st = open_ok(f->path);
    assert_int_equal(md_store_steps(st, a, &steps, &n, &e), MS_OK);
    assert_int_equal(n, 2);
    assert_true(steps[0] == 0 && steps[1] == 4294967291LL);
    free(steps);
    assert_int_equal(md_store_step_remove(st, a, 0, &e), MS_OK);
    assert_int_equal(md_store_step_remove(st, a, 7, &e), MS_OK); /* not there: no error */
    assert_int_equal(md_store_steps(st, a, &steps, &n, &e), MS_OK);
    assert_int_equal(n, 1);
    free(steps);
    assert_int_equal(md_store_steps_clear(st, a, &e), MS_OK);
    assert_int_equal(md_store_steps(st, a, &steps, &n, &e), MS_OK);
    assert_int_equal(n, 0);
    assert_null(steps);
    assert_int_equal(md_store_steps(st, b, &steps, &n, &e), MS_OK);
    assert_true(n == 1 && steps[0] == 3);
    free(steps);
    md_store_close(st);
}

/* Retention: finished jobs that ended before the cut are deleted with their transitions
 * and allocation steps, counted by state; queued, running and recent ones stay. */
static void test_prune(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    ms_error e = {0};
    int64_t done = submit(st, "done", "retry", 1), failed = submit(st, "failed", "retry", 2),
            cancelled = submit(st, "cancelled", "retry", 3), queued = submit(st, "q", "retry", 4),
            running = submit(st, "r", "retry", 5), recent = submit(st, "recent", "retry", 6);
    event(st, done, MD_JOB_EV_START, 10, 0);
    event(st, done, MD_JOB_EV_FINISH, 20, 0);
    event(st, failed, MD_JOB_EV_START, 10, 0);
    event(st, failed, MD_JOB_EV_FINISH, 30, 2);
    event(st, cancelled, MD_JOB_EV_CANCEL, 40, 0);
    event(st, running, MD_JOB_EV_START, 10, 0);
    event(st, recent, MD_JOB_EV_START, 10, 0);
    event(st, recent, MD_JOB_EV_FINISH, 1000, 0);
    assert_int_equal(md_store_step_add(st, cancelled, 1, &e), MS_OK);
    uint64_t gone[MD_JOB_NSTATES];
    assert_int_equal(md_store_prune(st, 500, gone, &e), MS_OK);
    assert_true(gone[MD_JOB_DONE] == 1 && gone[MD_JOB_FAILED] == 1 && gone[MD_JOB_CANCELLED] == 1 &&
                gone[MD_JOB_QUEUED] == 0 && gone[MD_JOB_RUNNING] == 0);
    md_store_close(st);
    st = open_ok(f->path);
    md_job j;
    int64_t pruned[] = {done, failed, cancelled};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(md_store_get_job(st, pruned[i], &j, &e), MS_EINVAL);
        md_job_transition *ts;
        size_t n;
        assert_int_equal(md_store_history(st, pruned[i], &ts, &n, &e), MS_OK);
        assert_int_equal(n, 0);
        free(ts);
    }
    int64_t *steps;
    size_t n;
    assert_int_equal(md_store_steps(st, cancelled, &steps, &n, &e), MS_OK);
    assert_int_equal(n, 0);
    free(steps);
    int64_t kept[] = {queued, running, recent};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(md_store_get_job(st, kept[i], &j, &e), MS_OK);
        md_job_free(&j);
    }
    uint64_t counts[MD_JOB_NSTATES];
    assert_int_equal(md_store_count_jobs(st, counts, &e), MS_OK);
    assert_true(counts[MD_JOB_QUEUED] == 1 && counts[MD_JOB_RUNNING] == 1 &&
                counts[MD_JOB_DONE] == 1 && counts[MD_JOB_FAILED] == 0);
    /* Nothing more to prune: a second pass deletes nothing. */
    assert_int_equal(md_store_prune(st, 500, gone, &e), MS_OK);
    assert_true(gone[MD_JOB_DONE] == 0 && gone[MD_JOB_FAILED] == 0 && gone[MD_JOB_CANCELLED] == 0);
    md_store_close(st);
}

static void test_plans_and_instances(void **state)
{
    fixture *f = *state;
    md_store *st = open_ok(f->path);
    ms_error e = {0};
    int64_t id;
    char *text;
    assert_int_equal(md_store_latest_plan(st, &id, &text, &e), MS_OK);
    assert_null(text);
    assert_int_equal(
        md_store_add_plan(st, 1, "{\"format\":\"migsched-schedule/1\",\"n\":1}", &id, &e), MS_OK);
    assert_int_equal(
        md_store_add_plan(st, 2, "{\"format\":\"migsched-schedule/1\",\"n\":2}", &id, &e), MS_OK);
    int64_t latest;
    assert_int_equal(md_store_latest_plan(st, &latest, &text, &e), MS_OK);
    assert_int_equal(latest, id);
    assert_string_equal(text, "{\"format\":\"migsched-schedule/1\",\"n\":2}");
    free(text);

    md_store_instance a = {.gpu = 0,
                           .at = {ms_gpu_profile_by_name(a100(), "3g.20gb"), 4},
                           .gi_id = 2,
                           .ci_id = 0,
                           .uuid = "MIG-aaaa",
                           .created = 10};
    md_store_instance b = a;
    b.gpu = 1;
    snprintf(b.uuid, sizeof b.uuid, "MIG-bbbb");
    assert_int_equal(md_store_add_instance(st, &a, &e), MS_OK);
    assert_int_equal(md_store_add_instance(st, &b, &e), MS_OK);
    assert_int_equal(md_store_instance_destroyed(st, a.id, 20, &e), MS_OK);
    assert_int_equal(md_store_instance_destroyed(st, a.id, 21, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "no live instance"));
    md_store_close(st);

    st = open_ok(f->path);
    md_store_instance *live;
    size_t n;
    assert_int_equal(md_store_live_instances(st, &live, &n, &e), MS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(live[0].id, b.id);
    assert_int_equal(live[0].gpu, 1);
    assert_int_equal(live[0].at.profile, b.at.profile);
    assert_int_equal(live[0].at.start, 4);
    assert_int_equal(live[0].gi_id, 2);
    assert_string_equal(live[0].uuid, "MIG-bbbb");
    assert_true(live[0].created == 10);
    free(live);
    md_store_instance nouuid = a;
    nouuid.uuid[0] = '\0';
    assert_int_equal(md_store_add_instance(st, &nouuid, &e), MS_EINVAL);
    md_store_close(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_settings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_round_trip_and_history, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stale_transition_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crash_recovery, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_migration_owners, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_pages, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_pages_states, setup, teardown),
        cmocka_unit_test_setup_teardown(test_job_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_newer_version_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_format_marker, setup, teardown),
        cmocka_unit_test_setup_teardown(test_quick_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_prune, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plans_and_instances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_allocation_steps, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
