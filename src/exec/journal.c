/* journal.c: the run journal: writing records durably (or failing loudly), replaying a
 * journal's text into what it leaves open, and compacting it to its open records. */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "migsched/io.h"
#include "proc.h"

struct ms_journal {
    int fd;
    char path[512];
    pthread_mutex_t lock;    /* op threads and the main loop write it */
    char failed[MS_ERR_LEN]; /* the first write error; every later write fails with it */
    size_t bytes;            /* the file's size: past MS_JOURNAL_COMPACT_BYTES it is compacted */
};

static int compact_locked(ms_journal *j, ms_error *err);

/* The longest record, newline not counted: a task's with its cgroup path is the longest. */
#define MS_JOURNAL_RECORD_MAX 511

/* One record, written whole with one write(2) and, when `sync`, fsync-ed: the record
 * announces a change that cleanup must know of even if the machine then crashes. */
static int record(ms_journal *j, bool sync, ms_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int record(ms_journal *j, bool sync, ms_error *err, const char *fmt, ...)
{
    if (!j)
        return MS_OK;
    char line[MS_JOURNAL_RECORD_MAX + 2];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&j->lock);
    if (!j->failed[0]) {
        ssize_t w = n > 0 && n < (int)sizeof line ? write(j->fd, line, (size_t)n) : -1;
        if (w != n)
            snprintf(j->failed, sizeof j->failed, "%.300s: cannot write the journal: %s", j->path,
                     w < 0 ? strerror(errno) : "short write");
        else if (sync && fsync(j->fd) != 0)
            snprintf(j->failed, sizeof j->failed, "%.300s: cannot sync the journal: %s", j->path,
                     strerror(errno));
        j->bytes += w > 0 ? (size_t)w : 0;
        ms_error cerr;
        if (!j->failed[0] && j->bytes > MS_JOURNAL_COMPACT_BYTES && compact_locked(j, &cerr))
            snprintf(j->failed, sizeof j->failed, "%s", cerr.msg);
    }
    int rc = j->failed[0] ? ms_error_set(err, MS_EIO, "%s", j->failed) : MS_OK;
    pthread_mutex_unlock(&j->lock);
    return rc;
}

/* A journal we may act on: in a folder only we (or root) can write, never through a link
 * nor a FIFO, a regular file of ours (or root's); fd opened with flags and mode. */
static int open_trusted(const char *path, int flags, int *fd, ms_error *err)
{
    char dir[512];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    int rc = ms_dir_check("the journal's folder", dir, 0, err);
    if (!rc)
        rc = ms_open_regular(AT_FDCWD, path, path, flags, 0600, fd, err);
    if (!rc && (rc = ms_file_check_ours(*fd, path, err))) {
        close(*fd);
        *fd = -1;
    }
    if (rc)
        ms_error_prefix(err, "%s: cannot open the journal", path);
    return rc;
}

/* A record cut short by a crash mid-write (bytes after the last newline; at most one
 * record's length) is cut off, so that what is appended stays whole records: the reader
 * drops it too (ms_journal_parse). Sets *size to what is left. */
static int cut_torn(int fd, const char *path, size_t *size, ms_error *err)
{
    struct stat s;
    if (fstat(fd, &s) != 0)
        return ms_error_set(err, MS_EIO, "%s: cannot read the journal: %s", path, strerror(errno));
    *size = (size_t)s.st_size;
    char tail[256];
    size_t from = *size > sizeof tail ? *size - sizeof tail : 0;
    ssize_t n = *size ? pread(fd, tail, *size - from, (off_t)from) : 0;
    if (n < 0 || (size_t)n != *size - from)
        return ms_error_set(err, MS_EIO, "%s: cannot read the journal: %s", path,
                            n < 0 ? strerror(errno) : "short read");
    if (n == 0 || tail[n - 1] == '\n')
        return MS_OK;
    const char *nl = memrchr(tail, '\n', (size_t)n);
    if (!nl && from > 0) /* longer than any record: damage, for the reader to report */
        return MS_OK;
    size_t keep = nl ? from + (size_t)(nl - tail) + 1 : 0;
    if (ftruncate(fd, (off_t)keep) != 0 || fsync(fd) != 0)
        return ms_error_set(err, MS_EIO, "%s: cannot cut the torn last record: %s", path,
                            strerror(errno));
    *size = keep;
    return MS_OK;
}

int ms_journal_open(const char *path, const char *backend, const char *model, ms_journal **out,
                    ms_error *err)
{
    *out = NULL;
    ms_journal *j = calloc(1, sizeof *j);
    if (!j)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening the journal");
    int rc = open_trusted(path, O_RDWR | O_APPEND | O_CREAT, &j->fd, err);
    if (!rc && (rc = cut_torn(j->fd, path, &j->bytes, err)))
        close(j->fd);
    if (rc) {
        free(j);
        return rc;
    }
    snprintf(j->path, sizeof j->path, "%s", path);
    pthread_mutex_init(&j->lock, NULL);
    unsigned long long start = 0;
    ms_proc_start_time(getpid(), &start);
    rc = backend
             ? record(j, true, err, "run %s %s %ld %llu\n", backend, model, (long)getpid(), start)
             : MS_OK;
    if (rc) {
        ms_journal_close(j, false, NULL);
        return rc;
    }
    *out = j;
    return MS_OK;
}

int ms_journal_load(const char *path, ms_journal_state *st, bool *found, ms_error *err)
{
    *found = false;
    int fd = -1;
    struct stat s;
    if (lstat(path, &s) != 0 && errno == ENOENT)
        return MS_OK;
    int rc = open_trusted(path, O_RDONLY, &fd, err);
    char *text = NULL;
    size_t len = 0;
    if (!rc) {
        close(fd); /* read by name: the folder is ours, so the name is still this file */
        rc = ms_read_file(path, &text, &len, err);
    }
    if (!rc)
        rc = ms_journal_parse(text, len, path, st, err);
    free(text);
    *found = rc == MS_OK;
    return rc;
}

int ms_journal_close(ms_journal *j, bool finished, ms_error *err)
{
    if (!j)
        return MS_OK;
    int rc = finished ? record(j, true, err, "finished\n") : MS_OK;
    if (!rc && finished)
        rc = ms_journal_compact(j, err);
    close(j->fd);
    pthread_mutex_destroy(&j->lock);
    free(j);
    return rc;
}

int ms_journal_clean(ms_journal *j, ms_error *err) { return record(j, true, err, "clean\n"); }

int ms_journal_device(ms_journal *j, int device, const char *gpu_uuid, ms_error *err)
{
    return record(j, true, err, "device %d %s\n", device, gpu_uuid);
}

int ms_journal_foreign(ms_journal *j, int device, const ms_mig_instance *in, ms_error *err)
{
    return record(j, false, err, "foreign %d %u %d %d %s\n", device, in->gi_id, in->start_slot,
                  in->size_slots, in->uuid[0] ? in->uuid : "-");
}

int ms_journal_create_begin(ms_journal *j, int device, int start_slot, int size_slots,
                            ms_error *err)
{
    return record(j, true, err, "begin %d %d %d\n", device, start_slot, size_slots);
}

static const char *profile_name(const ms_gpu_model *m, int profile)
{
    return profile >= 0 && profile < m->nprofiles ? m->profiles[profile].name : "-";
}

/* Synced: a crash from here to "created" leaves a GPU instance without (or with a just
 * made) compute instance that only this record tells from a stranger's at that place. */
int ms_journal_gi_made(ms_journal *j, int device, const ms_gpu_model *m, const ms_mig_instance *in,
                       ms_error *err)
{
    if (in->profile < 0 || in->profile >= m->nprofiles)
        return ms_error_set(err, MS_EINVAL,
                            "device %d: GPU instance %u: profile %d is not one "
                            "of %s's: not journalled",
                            device, in->gi_id, in->profile, m->name);
    return record(j, true, err, "gi %d %u %d %d %s\n", device, in->gi_id, in->start_slot,
                  in->size_slots, m->profiles[in->profile].name);
}

int ms_journal_created(ms_journal *j, int device, const ms_mig_instance *in, ms_error *err)
{
    return record(j, true, err, "created %d %u %d %d %s\n", device, in->gi_id, in->start_slot,
                  in->size_slots, in->uuid[0] ? in->uuid : "-");
}

/* Synced before the first NVML call of the destroy: a crash between removing the compute
 * instance and the GPU instance leaves a GPU instance with no MIG device, which only this
 * record (its profile and compute instance) tells from a stranger's at our old place. */
int ms_journal_destroying(ms_journal *j, int device, const ms_gpu_model *m,
                          const ms_mig_instance *in, ms_error *err)
{
    char ci[16] = "-";
    if (in->nci > 0)
        snprintf(ci, sizeof ci, "%u", in->ci_id);
    return record(j, true, err, "destroying %d %u %d %d %s %s %s\n", device, in->gi_id,
                  in->start_slot, in->size_slots, profile_name(m, in->profile), ci,
                  in->uuid[0] ? in->uuid : "-");
}

/* Not synced: a lost "destroyed" only makes cleanup look for an instance that is gone,
 * and the identity check keeps it off whatever took the id. */
int ms_journal_destroyed(ms_journal *j, int device, unsigned gi_id, ms_error *err)
{
    return record(j, false, err, "destroyed %d %u\n", device, gi_id);
}

int ms_journal_task(ms_journal *j, int device, int pgid, unsigned long long start, int index,
                    const char *cgroup, ms_error *err)
{
    if (cgroup && cgroup[0] &&
        (strlen(cgroup) >= MS_JOURNAL_CGROUP_LEN || strpbrk(cgroup, " \t\n")))
        return ms_error_set(err, MS_EINVAL,
                            "cgroup %.300s: a journal records a path shorter than "
                            "%d characters without whitespace",
                            cgroup, MS_JOURNAL_CGROUP_LEN);
    return record(j, true, err, "task %d %d %llu %d%s%s\n", device, pgid, start, index,
                  cgroup && cgroup[0] ? " " : "", cgroup ? cgroup : "");
}

int ms_journal_task_ended(ms_journal *j, int pgid, unsigned long long start, ms_error *err)
{
    return record(j, false, err, "ended %d %llu\n", pgid, start);
}

int ms_journal_begin_settled(ms_journal *j, int device, int start_slot, ms_error *err)
{
    return record(j, false, err, "settled %d %d\n", device, start_slot);
}

/* ---- Replay ----------------------------------------------------------------------- */

static int jstate_add(ms_journal_state *st, ms_journal_rec r, const char *source, int lineno,
                      ms_error *err)
{
    if (st->n == MS_JOURNAL_MAX_RECORDS)
        return ms_error_set(err, MS_EINVAL, "%s:%d: more than %d open records", source, lineno,
                            MS_JOURNAL_MAX_RECORDS);
    r.line = lineno;
    st->rec[st->n++] = r;
    return MS_OK;
}

/* Drops the open records `match` selects. */
static void jstate_drop(ms_journal_state *st,
                        bool (*match)(const ms_journal_rec *, const ms_journal_rec *),
                        const ms_journal_rec *key)
{
    for (int i = 0; i < st->n; i++)
        if (match(&st->rec[i], key))
            st->rec[i--] = st->rec[--st->n];
}

static bool is_foreign(const ms_journal_rec *r, const ms_journal_rec *k)
{
    (void)k;
    return r->kind == MS_JOURNAL_FOREIGN;
}

/* A confirmed creation ends the begun one at its placement; a destruction the creation. */
static bool begun_at(const ms_journal_rec *r, const ms_journal_rec *k)
{
    return r->kind == MS_JOURNAL_BEGUN && r->device == k->device && r->start == k->start;
}

/* A destruction ends the instance's gi, creation or destroying record; a destroying or gi
 * record replaces any of them (the instance at that id is now the one it names). */
static bool instance_as(const ms_journal_rec *r, const ms_journal_rec *k)
{
    return (r->kind == MS_JOURNAL_CREATED || r->kind == MS_JOURNAL_DESTROYING ||
            r->kind == MS_JOURNAL_GI_MADE) &&
           r->device == k->device && r->gi_id == k->gi_id;
}

/* A creation confirmed ("created") supersedes the gi record of its id. */
static bool gi_made_as(const ms_journal_rec *r, const ms_journal_rec *k)
{
    return r->kind == MS_JOURNAL_GI_MADE && r->device == k->device && r->gi_id == k->gi_id;
}

/* k: an "ended" record's pgid and, unless ULLONG_MAX (written before ends named the start),
 * its leader's start time. */
static bool task_of(const ms_journal_rec *r, const ms_journal_rec *k)
{
    return r->kind == MS_JOURNAL_TASK && r->pgid == k->pgid &&
           (k->pstart == ULLONG_MAX || r->pstart == k->pstart);
}

/* How many whitespace-separated tokens a record has; the first `most` go to tok. */
static int tokens(char *line, char **tok, int most)
{
    int n = 0;
    for (char *save = NULL, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save))
        if (n++ < most)
            tok[n - 1] = t;
    return n;
}

/* Whether a record has exactly `want` tokens. */
static bool split(char *line, char **tok, int want) { return tokens(line, tok, want) == want; }

/* A decimal integer in [lo, hi]. */
static bool num(const char *t, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(t, &end, 10);
    if (end == t || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool token_ok(const char *t) { return strlen(t) < 96 && t[0] != '\0'; }

/* Start slot and size of some profile's allowed placement on the model. */
static bool placement_ok(const ms_gpu_model *m, long long start, long long size)
{
    for (int p = 0; p < m->nprofiles; p++)
        if (m->profiles[p].size_slots == size &&
            ms_gpu_placement_allowed(m, (ms_placement){p, (int)start}))
            return true;
    return false;
}

static int bad(const char *source, int lineno, const char *what, ms_error *err)
{
    return ms_error_set(err, MS_EINVAL, "%s:%d: %s", source, lineno, what);
}

static int replay_run(ms_journal_state *st, char **tok, const char *source, int lineno,
                      ms_error *err)
{
    long long pid, start;
    if (strcmp(tok[1], "nvml") && strcmp(tok[1], "sim"))
        return bad(source, lineno, "'run': the backend is not nvml or sim", err);
    if (!ms_gpu_builtin(tok[2]))
        return bad(source, lineno, "'run': unknown GPU model", err);
    if (!num(tok[3], 1, 0x7fffffff, &pid) || !num(tok[4], 0, (long long)1 << 62, &start))
        return bad(source, lineno, "'run': bad process id or start time", err);
    jstate_drop(st, is_foreign, NULL); /* foreign lists belong to one run */
    snprintf(st->backend, sizeof st->backend, "%s", tok[1]);
    snprintf(st->model, sizeof st->model, "%s", tok[2]);
    st->owner_pid = (int)pid;
    st->owner_start = (unsigned long long)start;
    st->finished = false;
    return MS_OK;
}

static int replay_device(ms_journal_state *st, char **tok, const char *source, int lineno,
                         ms_error *err)
{
    long long d;
    if (!num(tok[1], 0, 255, &d) || !token_ok(tok[2]))
        return bad(source, lineno, "'device': bad device index or GPU UUID", err);
    int k = 0;
    while (k < st->ndev && st->dev[k].device != d)
        k++;
    if (k == MS_RUN_MAX_GPUS)
        return bad(source, lineno, "too many devices", err);
    st->ndev += k == st->ndev;
    st->dev[k].device = (int)d;
    snprintf(st->dev[k].uuid, sizeof st->dev[k].uuid, "%s", tok[2]);
    return MS_OK;
}

/* Profile p (an index, < 0 for none) has the placement (start, size) on the model. */
static bool profile_placed(const ms_gpu_model *m, int p, long long start, long long size)
{
    return p >= 0 && m->profiles[p].size_slots == size &&
           ms_gpu_placement_allowed(m, (ms_placement){p, (int)start});
}

/* "gi DEV GI START SIZE PROFILE": the GPU instance of a creation in flight; it ends the
 * "begin" at its place (the creation now has an id). */
static int replay_gi(ms_journal_state *st, const ms_gpu_model *m, char *line, const char *source,
                     int lineno, ms_error *err)
{
    char *tok[6] = {0};
    long long dev, gi, start, size;
    if (!split(line, tok, 6) || !num(tok[1], 0, 255, &dev) || !num(tok[2], 0, 0xffffffffLL, &gi) ||
        !num(tok[3], 0, MS_MAX_SLOTS, &start) || !num(tok[4], 1, MS_MAX_SLOTS, &size))
        return bad(source, lineno, "'gi' needs DEV GI START SIZE PROFILE with ids >= 0", err);
    if (!profile_placed(m, ms_gpu_profile_by_name(m, tok[5]), start, size))
        return bad(source, lineno, "'gi': the profile has no such placement on the GPU model", err);
    ms_journal_rec r = {.kind = MS_JOURNAL_GI_MADE,
                        .device = (int)dev,
                        .gi_id = (unsigned)gi,
                        .start = (int)start,
                        .size = (int)size,
                        .ci = -1};
    snprintf(r.profile, sizeof r.profile, "%s", tok[5]);
    jstate_drop(st, begun_at, &r);
    jstate_drop(st, instance_as, &r);
    return jstate_add(st, r, source, lineno, err);
}

static int replay_destroying(ms_journal_state *st, const ms_gpu_model *m, char *line,
                             const char *source, int lineno, ms_error *err)
{
    char *tok[8] = {0};
    long long dev, gi, start, size, ci = -1;
    if (!split(line, tok, 8) || !num(tok[1], 0, 255, &dev) || !num(tok[2], 0, 0xffffffffLL, &gi) ||
        !num(tok[3], 0, MS_MAX_SLOTS, &start) || !num(tok[4], 1, MS_MAX_SLOTS, &size) ||
        (strcmp(tok[6], "-") && !num(tok[6], 0, 0xffffffffLL, &ci)) || !token_ok(tok[7]))
        return bad(source, lineno,
                   "'destroying' needs DEV GI START SIZE PROFILE CI|- UUID|- "
                   "with ids >= 0",
                   err);
    int p = ms_gpu_profile_by_name(m, tok[5]);
    if (strcmp(tok[5], "-") && !profile_placed(m, p, start, size))
        return bad(source, lineno,
                   "'destroying': the profile has no such placement on the GPU "
                   "model",
                   err);
    if (!strcmp(tok[5], "-") && !placement_ok(m, start, size))
        return bad(source, lineno, "placement outside the GPU model", err);
    ms_journal_rec r = {.kind = MS_JOURNAL_DESTROYING,
                        .device = (int)dev,
                        .gi_id = (unsigned)gi,
                        .start = (int)start,
                        .size = (int)size,
                        .ci = (int)ci};
    snprintf(r.profile, sizeof r.profile, "%s", p >= 0 ? tok[5] : "");
    snprintf(r.uuid, sizeof r.uuid, "%s", strcmp(tok[7], "-") ? tok[7] : "");
    jstate_drop(st, instance_as, &r);
    return jstate_add(st, r, source, lineno, err);
}

/* One record (its text in `line`, modified). */
static int replay_line(ms_journal_state *st, char *line, const char *source, int lineno,
                       ms_error *err)
{
    char *tok[6] = {0};
    char first[16];
    snprintf(first, sizeof first, "%.15s", line);
    first[strcspn(first, " ")] = '\0';
    if (!strcmp(first, "run"))
        return split(line, tok, 5)
                   ? replay_run(st, tok, source, lineno, err)
                   : bad(source, lineno, "'run' needs BACKEND MODEL PID START", err);
    if (!strcmp(first, "finished") || !strcmp(first, "clean")) {
        if (!split(line, tok, 1))
            return bad(source, lineno, "junk after the record", err);
        if (first[0] == 'c')
            st->n = 0;
        else
            st->finished = true;
        return MS_OK;
    }
    const ms_gpu_model *m = ms_gpu_builtin(st->model);
    if (!m)
        return ms_error_set(err, MS_EINVAL, "%s:%d: record before any 'run' line", source, lineno);
    ms_journal_rec r = {0};
    long long dev, gi, start, size, pgid, pstart, index;
    if (!strcmp(first, "device"))
        return split(line, tok, 3) ? replay_device(st, tok, source, lineno, err)
                                   : bad(source, lineno, "'device' needs DEV GPU-UUID", err);
    if (!strcmp(first, "foreign") || !strcmp(first, "created")) {
        if (!split(line, tok, 6) || !num(tok[1], 0, 255, &dev) ||
            !num(tok[2], 0, 0xffffffffLL, &gi) || !num(tok[3], 0, MS_MAX_SLOTS, &start) ||
            !num(tok[4], 1, MS_MAX_SLOTS, &size) || !token_ok(tok[5]))
            return bad(source, lineno, "needs DEV GI START SIZE UUID with ids >= 0", err);
        bool foreign = first[0] == 'f';
        if (!foreign && !strcmp(tok[5], "-")) /* confirmed only with its compute instance */
            return bad(source, lineno, "'created' without a MIG device UUID", err);
        /* Foreign instances may use profiles migsched does not schedule: the slots must fit. */
        if (foreign ? start + size > m->slots : !placement_ok(m, start, size))
            return bad(source, lineno, "placement outside the GPU model", err);
        r = (ms_journal_rec){.kind = foreign ? MS_JOURNAL_FOREIGN : MS_JOURNAL_CREATED,
                             .device = (int)dev,
                             .gi_id = (unsigned)gi,
                             .start = (int)start,
                             .size = (int)size};
        snprintf(r.uuid, sizeof r.uuid, "%s", strcmp(tok[5], "-") ? tok[5] : "");
        if (!foreign) {
            jstate_drop(st, begun_at, &r);
            jstate_drop(st, gi_made_as, &r);
        }
        return jstate_add(st, r, source, lineno, err);
    }
    if (!strcmp(first, "destroying"))
        return replay_destroying(st, m, line, source, lineno, err);
    if (!strcmp(first, "gi"))
        return replay_gi(st, m, line, source, lineno, err);
    if (!strcmp(first, "begin")) {
        if (!split(line, tok, 4) || !num(tok[1], 0, 255, &dev) ||
            !num(tok[2], 0, MS_MAX_SLOTS, &start) || !num(tok[3], 1, MS_MAX_SLOTS, &size))
            return bad(source, lineno, "'begin' needs DEV START SIZE", err);
        if (!placement_ok(m, start, size))
            return bad(source, lineno, "placement outside the GPU model", err);
        r = (ms_journal_rec){
            .kind = MS_JOURNAL_BEGUN, .device = (int)dev, .start = (int)start, .size = (int)size};
        return jstate_add(st, r, source, lineno, err);
    }
    if (!strcmp(first, "destroyed")) {
        if (!split(line, tok, 3) || !num(tok[1], 0, 255, &dev) ||
            !num(tok[2], 0, 0xffffffffLL, &gi))
            return bad(source, lineno, "'destroyed' needs DEV GI with ids >= 0", err);
        r = (ms_journal_rec){.device = (int)dev, .gi_id = (unsigned)gi};
        jstate_drop(st, instance_as, &r);
        return MS_OK;
    }
    if (!strcmp(first, "task")) {
        int n = tokens(line, tok, 6);
        if ((n != 5 && n != 6) || !num(tok[1], 0, 255, &dev) ||
            !num(tok[2], 2, 0x7fffffff, &pgid) || !num(tok[3], 0, (long long)1 << 62, &pstart) ||
            !num(tok[4], 0, 0x7fffffff, &index) ||
            (n == 6 && (tok[5][0] != '/' || strlen(tok[5]) >= MS_JOURNAL_CGROUP_LEN)))
            return bad(source, lineno,
                       "'task' needs DEV PGID START INDEX [CGROUP] (PGID > 1, "
                       "CGROUP an absolute path)",
                       err);
        r = (ms_journal_rec){.kind = MS_JOURNAL_TASK,
                             .device = (int)dev,
                             .pgid = (int)pgid,
                             .pstart = (unsigned long long)pstart,
                             .task = (int)index};
        if (n == 6)
            snprintf(r.cgroup, sizeof r.cgroup, "%s", tok[5]);
        return jstate_add(st, r, source, lineno, err);
    }
    if (!strcmp(first, "settled")) {
        if (!split(line, tok, 3) || !num(tok[1], 0, 255, &dev) ||
            !num(tok[2], 0, MS_MAX_SLOTS, &start))
            return bad(source, lineno, "'settled' needs DEV START", err);
        r = (ms_journal_rec){.device = (int)dev, .start = (int)start};
        jstate_drop(st, begun_at, &r);
        return MS_OK;
    }
    if (!strcmp(first, "ended")) {
        int n = tokens(line, tok, 3);
        if ((n != 2 && n != 3) || !num(tok[1], 2, 0x7fffffff, &pgid) ||
            (n == 3 && !num(tok[2], 0, (long long)1 << 62, &pstart)))
            return bad(source, lineno, "'ended' needs PGID [START] (PGID > 1)", err);
        r.pgid = (int)pgid;
        r.pstart = n == 3 ? (unsigned long long)pstart : ULLONG_MAX;
        jstate_drop(st, task_of, &r);
        return MS_OK;
    }
    return ms_error_set(err, MS_EINVAL, "%s:%d: not a journal record: %.60s", source, lineno, line);
}

int ms_journal_parse(const char *text, size_t len, const char *source, ms_journal_state *st,
                     ms_error *err)
{
    memset(st, 0, sizeof *st);
    int lineno = 0;
    /* Each record is written whole with one write(2): bytes after the last newline are one
     * cut short by a crash, never what their first bytes say ("ended 7" of "ended 7123"). */
    if (len > 0 && text[len - 1] != '\n') {
        const char *nl = memrchr(text, '\n', len);
        size_t keep = nl ? (size_t)(nl - text) + 1 : 0;
        for (size_t i = 0; i < keep; i++)
            st->torn_line += text[i] == '\n';
        st->torn_line++;
        if (len - keep > MS_JOURNAL_RECORD_MAX)
            return ms_error_set(err, MS_EINVAL, "%s:%d: record too long", source, st->torn_line);
        len = keep;
    }
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        lineno++;
        if (end - pos > MS_JOURNAL_RECORD_MAX)
            return ms_error_set(err, MS_EINVAL, "%s:%d: record too long", source, lineno);
        char line[MS_JOURNAL_RECORD_MAX + 1];
        size_t n = end - pos;
        memcpy(line, text + pos, n);
        line[n] = '\0';
        pos = end + 1;
        if (strlen(line) != n)
            return ms_error_set(err, MS_EINVAL, "%s:%d: NUL byte in a record", source, lineno);
        if (!line[0])
            continue;
        int rc = replay_line(st, line, source, lineno, err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

/* ---- Compaction ------------------------------------------------------------------- */

/* The journal's open records as a journal, in an order that replays to the same state:
 * a "destroying" record replaces a "created" one of its id and a "created" or "gi" one
 * ends a "begin" at its place, so each comes before what it would end. */
static size_t write_state(const ms_journal_state *st, char *buf, size_t cap)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < cap ? cap - n : 0, __VA_ARGS__))
    if (st->model[0])
        PUT("run %s %s %d %llu\n", st->backend, st->model, st->owner_pid, st->owner_start);
    if (st->finished)
        PUT("finished\n");
    for (int k = 0; k < st->ndev; k++)
        PUT("device %d %s\n", st->dev[k].device, st->dev[k].uuid);
    static const ms_journal_kind order[] = {MS_JOURNAL_DESTROYING, MS_JOURNAL_CREATED,
                                            MS_JOURNAL_GI_MADE,    MS_JOURNAL_BEGUN,
                                            MS_JOURNAL_FOREIGN,    MS_JOURNAL_TASK};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
        for (int i = 0; i < st->n; i++) {
            const ms_journal_rec *r = &st->rec[i];
            const char *uuid = r->uuid[0] ? r->uuid : "-";
            if (r->kind != order[o])
                continue;
            if (r->kind == MS_JOURNAL_DESTROYING) {
                char ci[16] = "-";
                if (r->ci >= 0)
                    snprintf(ci, sizeof ci, "%d", r->ci);
                PUT("destroying %d %u %d %d %s %s %s\n", r->device, r->gi_id, r->start, r->size,
                    r->profile[0] ? r->profile : "-", ci, uuid);
            } else if (r->kind == MS_JOURNAL_CREATED || r->kind == MS_JOURNAL_FOREIGN) {
                PUT("%s %d %u %d %d %s\n", r->kind == MS_JOURNAL_CREATED ? "created" : "foreign",
                    r->device, r->gi_id, r->start, r->size, uuid);
            } else if (r->kind == MS_JOURNAL_GI_MADE) {
                PUT("gi %d %u %d %d %s\n", r->device, r->gi_id, r->start, r->size, r->profile);
            } else if (r->kind == MS_JOURNAL_BEGUN) {
                PUT("begin %d %d %d\n", r->device, r->start, r->size);
            } else {
                PUT("task %d %d %llu %d%s%s\n", r->device, r->pgid, r->pstart, r->task,
                    r->cgroup[0] ? " " : "", r->cgroup);
            }
        }
#undef PUT
    return n;
}

/* Writes text as a new file beside the journal (mkstemp: mode 0600), synced, renamed over
 * the journal and the folder synced: a crash leaves the old journal or the new, whole.
 * Once renamed, *fd is the new file, open for appending (-1 before). */
static int replace_file(const char *path, const char *text, size_t len, int *fd, ms_error *err)
{
    char tmp[sizeof((ms_journal *)0)->path + 16], dir[sizeof tmp];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + (slash == path) : 1,
             slash ? path : ".");
    *fd = -1;
    int f = mkostemp(tmp, O_APPEND | O_CLOEXEC);
    if (f < 0)
        return ms_error_set(err, MS_EIO, "%s: cannot compact the journal: %s", tmp,
                            strerror(errno));
    const char *step = "write";
    ssize_t w = write(f, text, len);
    bool ok = w >= 0 && (size_t)w == len;
    if (ok && !(ok = fchmod(f, 0600) == 0))
        step = "chmod";
    if (ok && !(ok = fsync(f) == 0))
        step = "sync";
    if (ok && !(ok = rename(tmp, path) == 0))
        step = "rename";
    int e = errno;
    if (!ok) {
        unlink(tmp);
        close(f);
        return ms_error_set(err, MS_EIO, "%s: cannot compact the journal (%s): %s", path, step,
                            w >= 0 && (size_t)w != len && step[0] == 'w' ? "short write"
                                                                         : strerror(e));
    }
    *fd = f; /* in place now, synced or not: later records go to it */
    int d = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = d < 0 || fsync(d) != 0 ? ms_error_set(err, MS_EIO,
                                                   "%s: cannot sync the journal's folder after "
                                                   "compacting the journal: %s",
                                                   dir, strerror(errno))
                                    : MS_OK;
    if (d >= 0)
        close(d);
    return rc;
}

static int compact_locked(ms_journal *j, ms_error *err)
{
    char *text = NULL, *out = NULL;
    size_t len = 0;
    ms_journal_state *st = malloc(sizeof *st);
    int rc = st ? ms_read_file(j->path, &text, &len, err)
                : ms_error_set(err, MS_ENOMEM, "out of memory compacting the journal");
    if (!rc)
        rc = ms_journal_parse(text, len, j->path, st, err);
    /* Each open record takes one line of at most 255 bytes. */
    size_t cap = (size_t)(st && !rc ? st->n + st->ndev + 2 : 0) * 256, n = 0;
    if (!rc && !(out = malloc(cap)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory compacting the journal");
    if (!rc)
        n = write_state(st, out, cap);
    int fd = -1;
    if (!rc)
        rc = replace_file(j->path, out, n, &fd, err);
    if (fd >= 0) {
        close(j->fd);
        j->fd = fd;
        j->bytes = n;
    }
    free(out);
    free(text);
    free(st);
    return rc;
}

int ms_journal_compact(ms_journal *j, ms_error *err)
{
    if (!j)
        return MS_OK;
    pthread_mutex_lock(&j->lock);
    int rc = j->failed[0] ? ms_error_set(err, MS_EIO, "%s", j->failed) : compact_locked(j, err);
    pthread_mutex_unlock(&j->lock);
    return rc;
}

static ms_claim rec_claim(const ms_journal_rec *r, const ms_gpu_model *m,
                          const ms_mig_instance *now)
{
    if ((r->kind != MS_JOURNAL_CREATED && r->kind != MS_JOURNAL_DESTROYING &&
         r->kind != MS_JOURNAL_GI_MADE) ||
        r->gi_id != now->gi_id)
        return MS_CLAIM_NONE;
    bool place = r->start == now->start_slot && r->size == now->size_slots;
    if (r->kind == MS_JOURNAL_CREATED) {
        if (place && !strcmp(r->uuid, now->uuid))
            return MS_CLAIM_OURS;
        return place && !now->uuid[0] ? MS_CLAIM_UNPROVEN : MS_CLAIM_STRANGER;
    }
    const char *profile = now->profile >= 0 && now->profile < m->nprofiles
                              ? m->profiles[now->profile].name
                              : "";
    bool same = place && !strcmp(r->profile, profile);
    /* Made by us at the crash, before its compute instance: ours while it has none. One
     * with a compute instance may be the one we were making or someone else's, made after
     * they removed ours: nothing tells them apart, so it is not taken. */
    if (r->kind == MS_JOURNAL_GI_MADE)
        return !same ? MS_CLAIM_STRANGER : now->uuid[0] ? MS_CLAIM_UNPROVEN : MS_CLAIM_OURS;
    /* Its compute instance is either still the recorded one (the crash came before it was
     * removed) or gone (after): one of someone else's, or another profile, is not ours. */
    same = same && (!now->uuid[0] ||
                    (r->uuid[0] && !strcmp(r->uuid, now->uuid) && r->ci == (int)now->ci_id));
    return same ? MS_CLAIM_OURS : MS_CLAIM_STRANGER;
}

ms_claim ms_journal_claim(const ms_journal_state *st, int device, const ms_gpu_model *m,
                          const ms_mig_instance *now, const ms_journal_rec **why)
{
    ms_claim best = MS_CLAIM_NONE;
    *why = NULL;
    for (int i = 0; i < st->n; i++) {
        ms_claim c = st->rec[i].device == device ? rec_claim(&st->rec[i], m, now) : MS_CLAIM_NONE;
        if (c > best) {
            best = c;
            *why = &st->rec[i];
        }
    }
    return best;
}
