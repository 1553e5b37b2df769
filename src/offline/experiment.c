/* experiment.c: runs an experiment table's (cell, repetition) units on a pool of threads,
 * deterministically, and writes the per-cell means as CSV. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"
#include "migsched/io.h"
#include "migsched/parallel.h"

int ms_experiment_init(ms_experiment *e, const char *table, const ms_gpu_model *gpu, ms_error *err)
{
    const exp_table *t = exp_table_find(table);
    if (!t)
        return ms_error_set(err, MS_EINVAL, "unknown table '%s' (tables: %s)", table,
                            exp_table_names());
    memset(e, 0, sizeof *e);
    snprintf(e->table, sizeof e->table, "%s", table);
    e->gpu = gpu ? *gpu : *ms_gpu_builtin("A100-40GB");
    e->reps = t->reps;
    e->batch = t->batch;
    e->batches = t->batches;
    e->seed = 1;
    char rows[MS_EXP_MAX_ROWS * MS_EXP_ROW_LEN];
    exp_table_rows(t, &e->gpu, rows, sizeof rows);
    int rc = ms_experiment_set_rows(e, rows, err);
    return rc ? rc : ms_experiment_set_n(e, t->n, err);
}

/* "PRESETS[@p_sup]" -> generator parameters for the experiment's GPU. */
static int row_params(const ms_experiment *e, const char *row, ms_gen_params *p, ms_error *err)
{
    char presets[MS_EXP_ROW_LEN];
    snprintf(presets, sizeof presets, "%s", row);
    char *at = strchr(presets, '@');
    if (at)
        *at++ = '\0';
    int rc = ms_gen_preset(&e->gpu, presets, p, err);
    if (rc)
        return rc;
    if (at) {
        char *end;
        double v = strtod(at, &end);
        if (*end || end == at || !(v >= 0 && v <= 1))
            return ms_error_set(err, MS_EINVAL, "row '%s': p_sup '%s' is not in [0, 1]", row, at);
        p->p_sup = v;
    }
    return MS_OK;
}

int ms_experiment_set_rows(ms_experiment *e, const char *list, ms_error *err)
{
    ms_experiment tmp = *e;
    tmp.nrows = 0;
    const char *c = list;
    while (*c) {
        size_t len = strcspn(c, ";");
        if (tmp.nrows == MS_EXP_MAX_ROWS || len == 0 || len >= MS_EXP_ROW_LEN)
            return ms_error_set(err, MS_EINVAL,
                                "workloads: give 1..%d non-empty rows of < %d characters, "
                                "separated by ';'",
                                MS_EXP_MAX_ROWS, MS_EXP_ROW_LEN);
        memcpy(tmp.rows[tmp.nrows], c, len);
        tmp.rows[tmp.nrows][len] = '\0';
        ms_gen_params p;
        int rc = row_params(&tmp, tmp.rows[tmp.nrows++], &p, err);
        if (rc)
            return rc;
        c += len + (c[len] == ';');
    }
    if (!tmp.nrows)
        return ms_error_set(err, MS_EINVAL, "workloads: the list is empty");
    *e = tmp;
    return MS_OK;
}

int ms_experiment_set_n(ms_experiment *e, const char *list, ms_error *err)
{
    int n[MS_EXP_MAX_COLS], k = 0;
    const char *c = list;
    while (*c) {
        char *end;
        long v = strtol(c, &end, 10);
        if (end == c || (*end && *end != ',') || v < 1 || v > 100000 || k == MS_EXP_MAX_COLS)
            return ms_error_set(err, MS_EINVAL,
                                "n: '%s' is not a list of 1..%d task counts in 1..100000", list,
                                MS_EXP_MAX_COLS);
        n[k++] = (int)v;
        c = *end ? end + 1 : end;
    }
    if (!k)
        return ms_error_set(err, MS_EINVAL, "n: the list is empty");
    memcpy(e->n, n, sizeof n);
    e->ncols = k;
    return MS_OK;
}

/* Work shared by the threads. */
typedef struct pool {
    const ms_experiment *e;
    const exp_table *t;
    ms_gen_params params[MS_EXP_MAX_ROWS];
    ms_experiment_result *r;
    long total, finished;
    int rc;
    ms_error err;
    volatile sig_atomic_t *stop;
    ms_experiment_progress progress;
    void *arg;
    pthread_mutex_t lock;
} pool;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The dataset of (row, n, rep) is the same whatever else the experiment holds. */
static ms_rng unit_rng(const ms_experiment *e, int row, int n, int rep)
{
    ms_rng base;
    ms_rng_seed(&base, e->seed ^ fnv1a(e->rows[row]));
    return ms_rng_split(&base, ((uint64_t)n << 32) | (uint64_t)rep);
}

/* Unit u: units go repetition-major so an interrupted run has every cell about equally
 * done; after a failure or a stop the units not yet begun are skipped. */
static void run_unit(int u, void *ctx)
{
    pool *p = ctx;
    const ms_experiment *e = p->e;
    pthread_mutex_lock(&p->lock);
    bool skip = p->rc || (p->stop && *p->stop);
    pthread_mutex_unlock(&p->lock);
    if (skip)
        return;
    int ncells = e->nrows * e->ncols;
    int cell = u % ncells, rep = u / ncells;
    int row = cell / e->ncols, n = e->n[cell % e->ncols];
    ms_rng rng = unit_rng(e, row, n, rep);
    double vals[MS_EXP_MAX_VALUES];
    ms_error err = {0};
    int rc = p->t->unit(e, &p->params[row], n, &rng, vals, &err);
    pthread_mutex_lock(&p->lock);
    if (rc && !p->rc) {
        p->rc = rc;
        p->err = err;
        ms_error_prefix(&p->err, "%s, n=%d, repetition %d", e->rows[row], n, rep);
    } else if (!rc) {
        size_t at = (size_t)cell * e->reps + rep;
        memcpy(&p->r->values[at * p->t->nvalues], vals, sizeof(double) * p->t->nvalues);
        p->r->done[at] = 1;
        p->finished++;
        if (p->progress)
            p->progress(p->finished, p->total, p->arg);
    }
    pthread_mutex_unlock(&p->lock);
}

static int alloc_result(const ms_experiment *e, const exp_table *t, ms_experiment_result *r,
                        ms_error *err)
{
    memset(r, 0, sizeof *r);
    if (t->nvalues > MS_EXP_MAX_VALUES) /* each worker's vals[] holds that many */
        return ms_error_set(err, MS_EINVAL, "table %s has %d values, more than %d", e->table,
                            t->nvalues, MS_EXP_MAX_VALUES);
    r->ncells = e->nrows * e->ncols;
    r->nvalues = t->nvalues;
    r->reps = e->reps;
    r->value_names = t->value_names;
    size_t units = (size_t)r->ncells * e->reps;
    if (units > INT_MAX) /* units are indices of one ms_parallel_for */
        return ms_error_set(err, MS_EINVAL,
                            "experiment: %zu units (cells x repetitions), more "
                            "than %d",
                            units, INT_MAX);
    r->values = malloc(units * t->nvalues * sizeof *r->values);
    r->done = calloc(units, 1);
    if (!r->values || !r->done) {
        ms_experiment_result_fini(r);
        return ms_error_set(err, MS_ENOMEM, "out of memory for %zu results", units);
    }
    return MS_OK;
}

int ms_experiment_run(const ms_experiment *e, ms_experiment_progress progress, void *arg,
                      volatile sig_atomic_t *stop, ms_experiment_result *out, ms_error *err)
{
    const exp_table *t = exp_table_find(e->table);
    if (!t)
        return ms_error_set(err, MS_EINVAL, "unknown table '%s'", e->table);
    if (e->reps < 1 || e->nrows < 1 || e->ncols < 1)
        return ms_error_set(err, MS_EINVAL, "experiment: need rows, n values and repetitions");
    static pool zero;
    pool *p = malloc(sizeof *p);
    if (!p)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    *p = zero;
    p->e = e;
    p->t = t;
    p->stop = stop;
    p->progress = progress;
    p->arg = arg;
    p->r = out;
    int rc = MS_OK;
    for (int row = 0; row < e->nrows && !rc; row++)
        rc = row_params(e, e->rows[row], &p->params[row], err);
    if (!rc)
        rc = alloc_result(e, t, out, err);
    if (rc) {
        free(p);
        return rc;
    }
    p->total = (long)out->ncells * e->reps;
    pthread_mutex_init(&p->lock, NULL);
    ms_parallel_for((int)p->total, e->threads > 0 ? e->threads : ms_online_cpus(), run_unit, p);
    pthread_mutex_destroy(&p->lock);
    rc = p->rc;
    if (rc && err)
        *err = p->err;
    else if (!rc && p->finished < p->total)
        rc = ms_error_set(err, MS_EINTR, "interrupted after %ld of %ld repetitions", p->finished,
                          p->total);
    free(p);
    return rc;
}

int ms_experiment_write_csv(const ms_experiment *e, const ms_experiment_result *r, FILE *f,
                            ms_error *err)
{
    fprintf(f, "table,gpu,workload,n");
    for (int v = 0; v < r->nvalues; v++)
        fprintf(f, ",%s", r->value_names[v]);
    fprintf(f, ",reps\n");
    for (int cell = 0; cell < r->ncells; cell++) {
        fprintf(f, "%s,%s,", e->table, e->gpu.name);
        ms_csv_write_quoted(f, e->rows[cell / e->ncols]);
        fprintf(f, ",%d", e->n[cell % e->ncols]);
        int done = 0;
        for (int rep = 0; rep < r->reps; rep++)
            done += r->done[(size_t)cell * r->reps + rep];
        for (int v = 0; v < r->nvalues; v++) {
            bool worst = !strncmp(r->value_names[v], "worst_", 6);
            double sum = 0, max = -INFINITY;
            int k = 0;
            for (int rep = 0; rep < r->reps; rep++) {
                size_t at = (size_t)cell * r->reps + rep;
                double x = r->values[at * r->nvalues + v];
                if (r->done[at] && isfinite(x)) {
                    sum += x;
                    max = fmax(max, x);
                    k++;
                }
            }
            if (k)
                fprintf(f, ",%.6f", worst ? max : sum / k);
            else
                fprintf(f, ",");
        }
        fprintf(f, ",%d\n", done);
    }
    /* Flushed here so that a failed write is this writer's error, named as such. */
    return fflush(f) || ferror(f) ? ms_error_set(err, MS_EIO, "cannot write the experiment table")
                                  : MS_OK;
}

void ms_experiment_result_fini(ms_experiment_result *r)
{
    free(r->values);
    free(r->done);
    r->values = NULL;
    r->done = NULL;
}
