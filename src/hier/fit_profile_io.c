/* fit_profile_io.c: measured MPS-inside-MIG profiles (ParvaGPU's CSV shape: per MIG size,
 * batch size and number of identical MPS processes, each process's throughput) read into an
 * observation set. Nothing is half-read: a bad file leaves the set as it was. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/csv_lexer.h"
#include "hier_internal.h"
#include "migsched/files.h"
#include "migsched/hier_fit.h"

const int ms_hier_fit_sizes[MS_HIER_FIT_NSIZES] = {1, 2, 3, 4, 7};
/* A100-80GB: 1g.10gb, 2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb own 1, 2, 4, 4, 8 of 8 slices. */
const int ms_hier_fit_mem_slices[MS_HIER_FIT_NSIZES] = {1, 2, 4, 4, 8};

enum { C_MIG, C_BATCH, C_PROCS, C_RATE, C_LATENCY, NCOLS };
static const char *const COLUMNS[NCOLS] = {"Mig instance", "Batch size", "Workload Number",
                                           "Throughput", "Latency"};

int ms_hier_fit_size_index(int slices)
{
    for (int i = 0; i < MS_HIER_FIT_NSIZES; i++)
        if (ms_hier_fit_sizes[i] == slices)
            return i;
    return -1;
}

/* The model's name: the base name of path without ".csv". */
static int model_name(const char *path, char *out, ms_error *err)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    if (len > 4 && !strcasecmp(base + len - 4, ".csv"))
        len -= 4;
    /* room for "_b" and a batch size in job names */
    if (!len || len >= MS_HIER_NAME_LEN - 12 || memchr(base, ';', len) || memchr(base, '|', len))
        return ms_error_set(err, MS_EINVAL,
                            "%s: the file name must give the model's name (1 to %d characters, "
                            "no ';' or '|')",
                            path, MS_HIER_NAME_LEN - 13);
    memcpy(out, base, len);
    out[len] = 0;
    return MS_OK;
}

/* One row's fields as numbers; batch, size and process count checked. */
static int parse_row(const csv_record *rec, const char *path, double v[NCOLS], ms_error *err)
{
    for (int c = 0; c < NCOLS; c++)
        if (hier_parse_number(csv_field(rec, c), &v[c]) || v[c] < 0)
            return ms_error_set(err, MS_EINVAL, "%s:%ld: field '%s' ('%s') is not a number >= 0",
                                path, rec->line, COLUMNS[c], csv_field(rec, c));
    if (ms_hier_fit_size_index((int)v[C_MIG]) < 0 || v[C_MIG] != (int)v[C_MIG])
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field 'Mig instance' (%g) is not a MIG size of the "
                            "A100 (1, 2, 3, 4 or 7 compute slices)",
                            path, rec->line, v[C_MIG]);
    if (v[C_BATCH] < 1 || v[C_BATCH] > 1e6 || v[C_BATCH] != (int)v[C_BATCH])
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field 'Batch size' (%g) is not an integer in 1..1000000", path,
                            rec->line, v[C_BATCH]);
    if (v[C_PROCS] < 1 || v[C_PROCS] > MS_HIER_FIT_MAX_PROCS || v[C_PROCS] != (int)v[C_PROCS])
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field 'Workload Number' (%g) is not an integer in 1..%d", path,
                            rec->line, v[C_PROCS], MS_HIER_FIT_MAX_PROCS);
    return MS_OK;
}

/* The job of (model, batch), added when new. */
static int job_of(ms_hier_obs_set *s, int model, int batch, long line, ms_error *err)
{
    for (size_t j = 0; j < s->n_jobs; j++)
        if (s->jobs[j].model == model && s->jobs[j].batch == batch)
            return (int)j;
    ms_hier_fit_job *nj = realloc(s->jobs, (s->n_jobs + 1) * sizeof *nj);
    if (!nj)
        return -ms_error_set(err, MS_ENOMEM, "out of memory");
    s->jobs = nj;
    ms_hier_fit_job *j = &nj[s->n_jobs];
    j->model = model;
    j->batch = batch;
    j->line = line;
    snprintf(j->name, sizeof j->name, "%s_b%d", s->models[model], batch);
    return (int)s->n_jobs++;
}

static int add_obs(ms_hier_obs_set *s, const ms_hier_obs *o, const char *path, ms_error *err)
{
    for (size_t i = 0; i < s->n; i++) {
        const ms_hier_obs *q = &s->obs[i];
        if (q->job == o->job && q->slices == o->slices && q->procs == o->procs)
            return ms_error_set(err, MS_EINVAL,
                                "%s:%ld: MIG size %d, batch %d, %d processes already given on "
                                "line %ld",
                                path, o->line, o->slices, s->jobs[o->job].batch, o->procs, q->line);
    }
    ms_hier_obs *no = realloc(s->obs, (s->n + 1) * sizeof *no);
    if (!no)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    s->obs = no;
    no[s->n++] = *o;
    return MS_OK;
}

/* Reads the rows of one file into s (whose model index is `model`). */
static int read_rows(ms_hier_obs_set *s, int model, const char *text, size_t len, const char *path,
                     ms_error *err)
{
    csv_lexer lx;
    csv_record rec = {0};
    bool got;
    int rc;
    csv_lexer_init(&lx, text, len, path);
    if ((rc = csv_next_record(&lx, &rec, &got, err)))
        goto done;
    if (!got) {
        rc = ms_error_set(err, MS_EINVAL, "%s: empty file (expected the header '%s,%s,%s,%s,%s')",
                          path, COLUMNS[0], COLUMNS[1], COLUMNS[2], COLUMNS[3], COLUMNS[4]);
        goto done;
    }
    for (int c = 0; c < NCOLS; c++)
        if (rec.n != NCOLS || strcasecmp(csv_field(&rec, c), COLUMNS[c])) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: header column %d must be '%s'", path,
                              rec.line, c + 1, COLUMNS[c]);
            goto done;
        }
    for (;;) {
        if ((rc = csv_next_record(&lx, &rec, &got, err)) || !got)
            break;
        double v[NCOLS];
        if (rec.n != NCOLS) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: %d fields, the header has %d", path,
                              rec.line, rec.n, NCOLS);
            break;
        }
        if ((rc = parse_row(&rec, path, v, err)))
            break;
        if (v[C_RATE] == 0) /* did not fit in the instance's memory */
            continue;
        int job = job_of(s, model, (int)v[C_BATCH], rec.line, err);
        if (job < 0) {
            rc = -job;
            break;
        }
        ms_hier_obs o = {.job = job,
                         .slices = (int)v[C_MIG],
                         .procs = (int)v[C_PROCS],
                         .rate = v[C_RATE],
                         .line = rec.line};
        if ((rc = add_obs(s, &o, path, err)))
            break;
    }
done:
    csv_record_free(&rec);
    return rc;
}

int ms_hier_obs_read(ms_hier_obs_set *set, const char *path, ms_error *err)
{
    char name[MS_HIER_NAME_LEN], *text;
    size_t len;
    int rc = model_name(path, name, err);
    if (rc)
        return rc;
    for (size_t m = 0; m < set->n_models; m++)
        if (!strcmp(set->models[m], name))
            return ms_error_set(err, MS_EINVAL, "%s: model '%s' given twice", path, name);
    if ((rc = ms_read_file(path, &text, &len, err)))
        return rc;
    /* Work on a copy so that a failure leaves set untouched. */
    ms_hier_obs_set s = {.n_models = set->n_models + 1, .n_jobs = set->n_jobs, .n = set->n};
    s.models = malloc(s.n_models * sizeof *s.models);
    s.files = malloc(s.n_models * sizeof *s.files);
    s.jobs = malloc((s.n_jobs + 1) * sizeof *s.jobs);
    s.obs = malloc((s.n + 1) * sizeof *s.obs);
    if (s.files)
        s.files[set->n_models] = strdup(path);
    if (!s.models || !s.files || !s.files[set->n_models] || !s.jobs || !s.obs) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    } else {
        if (set->n_models) {
            memcpy(s.models, set->models, set->n_models * sizeof *s.models);
            memcpy(s.files, set->files, set->n_models * sizeof *s.files);
        }
        if (set->n_jobs)
            memcpy(s.jobs, set->jobs, set->n_jobs * sizeof *s.jobs);
        if (set->n)
            memcpy(s.obs, set->obs, set->n * sizeof *s.obs);
        snprintf(s.models[set->n_models], sizeof s.models[0], "%s", name);
        rc = read_rows(&s, (int)set->n_models, text, len, path, err);
    }
    free(text);
    if (rc) { /* the earlier files' names belong to set */
        if (s.files)
            free(s.files[set->n_models]);
        free(s.models);
        free(s.files);
        free(s.jobs);
        free(s.obs);
        return rc;
    }
    free(set->models);
    free(set->files);
    free(set->jobs);
    free(set->obs);
    *set = s;
    return MS_OK;
}

void ms_hier_obs_fini(ms_hier_obs_set *set)
{
    for (size_t m = 0; set->files && m < set->n_models; m++)
        free(set->files[m]);
    free(set->files);
    free(set->models);
    free(set->jobs);
    free(set->obs);
    memset(set, 0, sizeof *set);
}
