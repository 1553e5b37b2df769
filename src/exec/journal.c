/* journal.c: writing the run journal and cleaning up after a crashed run from it. */
#include "journal.h"

#include "migsched/io.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ms_journal {
    FILE *f;
    pthread_mutex_t lock;
};

int ms_journal_open(const char *path, const char *backend, const char *model, ms_journal **out,
                    ms_error *err)
{
    ms_journal *j = calloc(1, sizeof *j);
    if (!j)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening the journal");
    j->f = fopen(path, "a");
    if (!j->f) {
        free(j);
        return ms_error_set(err, MS_EIO, "%s: cannot open the journal: %s", path, strerror(errno));
    }
    pthread_mutex_init(&j->lock, NULL);
    *out = j;
    fprintf(j->f, "run %s %s\n", backend, model);
    fflush(j->f);
    return MS_OK;
}

static void record(ms_journal *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void record(ms_journal *j, const char *fmt, ...)
{
    if (!j)
        return;
    pthread_mutex_lock(&j->lock);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(j->f, fmt, ap);
    va_end(ap);
    /* Flushed so that a crash of this process right after still leaves the record. No
     * fsync: MIG instances do not survive a reboot, so a lost tail loses nothing. */
    fflush(j->f);
    pthread_mutex_unlock(&j->lock);
}

void ms_journal_close(ms_journal *j, bool finished)
{
    if (!j)
        return;
    if (finished)
        record(j, "finished\n");
    fclose(j->f);
    pthread_mutex_destroy(&j->lock);
    free(j);
}

void ms_journal_foreign(ms_journal *j, int device, const ms_mig_instance *in)
{
    record(j, "foreign %d %u %d %d\n", device, in->gi_id, in->start_slot, in->size_slots);
}

void ms_journal_create_begin(ms_journal *j, int device, int start_slot, int size_slots)
{
    record(j, "begin %d %d %d\n", device, start_slot, size_slots);
}

void ms_journal_created(ms_journal *j, int device, const ms_mig_instance *in)
{
    record(j, "created %d %u %d %d %s\n", device, in->gi_id, in->start_slot, in->size_slots,
           in->uuid[0] ? in->uuid : "-");
}

void ms_journal_destroyed(ms_journal *j, int device, unsigned gi_id)
{
    record(j, "destroyed %d %u\n", device, gi_id);
}

/* ---- Cleanup ---------------------------------------------------------------------- */

static int jstate_add(ms_journal_state *st, ms_journal_rec r, const char *source, int lineno,
                      ms_error *err)
{
    if (st->n == MS_JOURNAL_MAX_RECORDS)
        return ms_error_set(err, MS_EINVAL, "%s:%d: more than %d open records", source, lineno,
                            MS_JOURNAL_MAX_RECORDS);
    st->rec[st->n++] = r;
    return MS_OK;
}

static void jstate_drop(ms_journal_state *st, int device, unsigned gi_id, int start, bool any_begin)
{
    for (int i = 0; i < st->n; i++) {
        ms_journal_rec *r = &st->rec[i];
        bool same = r->device == device && !r->foreign &&
                    ((gi_id && r->gi_id == gi_id) || (any_begin && !r->gi_id && r->start == start));
        if (same) {
            *r = st->rec[--st->n];
            return;
        }
    }
}

/* One record; "run" starts a run: foreign lists belong to one run, pending records carry
 * over. */
static int replay_line(ms_journal_state *st, const char *line, const char *source, int lineno,
                       ms_error *err)
{
    ms_journal_rec r = {0};
    char b[16], m[MS_NAME_LEN];
    if (sscanf(line, "run %15s %31s", b, m) == 2) {
        for (int i = 0; i < st->n; i++)
            if (st->rec[i].foreign)
                st->rec[i--] = st->rec[--st->n];
        snprintf(st->backend, sizeof st->backend, "%s", b);
        snprintf(st->model, sizeof st->model, "%s", m);
        return MS_OK;
    }
    if (!strncmp(line, "finished", 8))
        return MS_OK;
    if (!strncmp(line, "clean", 5)) {
        st->n = 0;
        return MS_OK;
    }
    if (!st->backend[0])
        return ms_error_set(err, MS_EINVAL, "%s:%d: record before any 'run' line", source, lineno);
    if (sscanf(line, "foreign %d %u %d %d", &r.device, &r.gi_id, &r.start, &r.size) == 4) {
        r.foreign = true;
        return jstate_add(st, r, source, lineno, err);
    }
    if (sscanf(line, "begin %d %d %d", &r.device, &r.start, &r.size) == 3)
        return jstate_add(st, r, source, lineno, err);
    if (sscanf(line, "created %d %u %d %d", &r.device, &r.gi_id, &r.start, &r.size) == 4) {
        jstate_drop(st, r.device, 0, r.start, true);
        return jstate_add(st, r, source, lineno, err);
    }
    if (sscanf(line, "destroyed %d %u", &r.device, &r.gi_id) == 2) {
        jstate_drop(st, r.device, r.gi_id, 0, false);
        return MS_OK;
    }
    return ms_error_set(err, MS_EINVAL, "%s:%d: not a journal record: %.60s", source, lineno, line);
}

int ms_journal_parse(const char *text, size_t len, const char *source, ms_journal_state *st,
                     ms_error *err)
{
    memset(st, 0, sizeof *st);
    int lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(end - pos < 255 ? end - pos : 255), text + pos);
        pos = end + 1;
        lineno++;
        if (!line[0])
            continue;
        int rc = replay_line(st, line, source, lineno, err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

static bool is_ours(const ms_journal_state *st, int device, const ms_mig_instance *in)
{
    for (int i = 0; i < st->n; i++) {
        const ms_journal_rec *r = &st->rec[i];
        if (r->device != device || r->foreign || r->start != in->start_slot)
            continue;
        if (r->gi_id == in->gi_id && r->size == in->size_slots)
            return true;
        if (!r->gi_id) {  /* a creation that may have happened: only if not foreign */
            bool foreign = false;
            for (int k = 0; k < st->n; k++)
                foreign |= st->rec[k].foreign && st->rec[k].device == device &&
                           st->rec[k].gi_id == in->gi_id && st->rec[k].start == in->start_slot;
            if (!foreign && r->size == in->size_slots)
                return true;
        }
    }
    return false;
}

static int clean_device(const ms_journal_state *st, int device, const ms_backend_options *bo,
                        ms_journal *j, FILE *progress, int *destroyed, ms_error *err)
{
    const ms_gpu_model *model = ms_gpu_builtin(st->model);
    ms_backend *b = NULL;
    int rc = ms_backend_open(st->backend, device, model, bo, &b, err);
    if (rc)
        return rc;
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    rc = ms_backend_list(b, list, &n, err);
    for (int i = 0; rc == MS_OK && i < n; i++) {
        if (!is_ours(st, device, &list[i]))
            continue;
        rc = ms_backend_destroy(b, list[i].gi_id, err);
        if (rc == MS_OK) {
            ms_journal_destroyed(j, device, list[i].gi_id);
            (*destroyed)++;
            if (progress)
                fprintf(progress, "device %d: destroyed leftover GPU instance %u (slots %d-%d)\n",
                        device, list[i].gi_id, list[i].start_slot,
                        list[i].start_slot + list[i].size_slots - 1);
        }
    }
    ms_backend_close(b);
    return rc;
}

int ms_run_cleanup(const char *journal, const ms_backend_options *bo, FILE *progress,
                   int *destroyed, ms_error *err)
{
    *destroyed = 0;
    ms_journal_state *st = malloc(sizeof *st);
    char *text = NULL;
    size_t len;
    if (!st)
        return ms_error_set(err, MS_ENOMEM, "out of memory reading the journal");
    int rc = ms_read_file(journal, &text, &len, err);
    if (rc == MS_OK)
        rc = ms_journal_parse(text, len, journal, st, err);
    free(text);
    ms_journal *j = NULL;
    if (rc == MS_OK && st->n)
        rc = ms_journal_open(journal, st->backend, st->model, &j, err);
    bool seen[MS_RUN_MAX_GPUS * 4] = {false};
    for (int i = 0; rc == MS_OK && i < st->n; i++) {
        int d = st->rec[i].device;
        if (st->rec[i].foreign || d < 0 || d >= (int)(sizeof seen) || seen[d])
            continue;
        seen[d] = true;
        rc = clean_device(st, d, bo, j, progress, destroyed, err);
    }
    if (j) {
        if (rc == MS_OK)
            record(j, "clean\n");
        ms_journal_close(j, false);
    }
    free(st);
    return rc;
}
