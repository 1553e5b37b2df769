/* fit_corun.c: the co-run model fitted to a measured co-run table (docs/hier.md's
 * setup,jobs,times format): each job's s and m (T is its catalogue solo time, which a table
 * of sets of 2 or more jobs does not hold; c = 1) and the global gamma, by least squares on
 * the relative error of every co-run time. Jobs interact, so the fit goes round the jobs
 * (Levenberg-Marquardt on one job's s, m with the others held, from a grid start on the
 * first round) and gamma until the sum of squares stops falling. Leaving one job out, the
 * same fit runs on the rows without it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "migsched/hier_fit.h"

#define ROUNDS 30

/* One row of the table, resolved: its setup and its jobs as catalogue indices. */
typedef struct table_row {
    ms_hier_setup setup;
    int job[MS_HIER_MAX_C];
    const double *times;
    long line;
} table_row;

typedef struct corun_ctx {
    const table_row *rows;
    size_t n_rows;
    ms_hier_profile *jobs; /* the catalogue's, s and m being fitted */
    ms_hier_params par;
    int job;      /* the job whose s, m are varied; -1: gamma is */
    size_t *used; /* rows holding that job (all rows for gamma) */
    int n_used;
} corun_ctx;

static int row_resid(const corun_ctx *ctx, const table_row *r, double *out)
{
    const ms_hier_profile *jobs[MS_HIER_MAX_C];
    double t[MS_HIER_MAX_C];
    for (int k = 0; k < r->setup.c; k++)
        jobs[k] = &ctx->jobs[r->job[k]];
    ms_hier_model_times(&ctx->par, jobs, &r->setup, t);
    for (int k = 0; k < r->setup.c; k++)
        out[k] = t[k] / r->times[k] - 1.0;
    return r->setup.c;
}

static void resid(const double *p, double *r, void *vctx)
{
    corun_ctx *ctx = vctx;
    if (ctx->job >= 0) {
        ctx->jobs[ctx->job].serial = p[0];
        ctx->jobs[ctx->job].mem = p[1];
    } else {
        ctx->par.gamma = p[0];
    }
    int at = 0;
    for (int i = 0; i < ctx->n_used; i++)
        at += row_resid(ctx, &ctx->rows[ctx->used[i]], r + at);
}

/* Every fitted job's s, m, then gamma (when fitted) at once. */
typedef struct joint_ctx {
    corun_ctx *c;
    const int *idx; /* the fitted jobs */
    int n_jobs, gamma;
} joint_ctx;

static void joint_resid(const double *p, double *r, void *vctx)
{
    joint_ctx *jc = vctx;
    for (int i = 0; i < jc->n_jobs; i++) {
        jc->c->jobs[jc->idx[i]].serial = p[2 * i];
        jc->c->jobs[jc->idx[i]].mem = p[2 * i + 1];
    }
    if (jc->gamma)
        jc->c->par.gamma = p[2 * jc->n_jobs];
    int at = 0;
    for (size_t i = 0; i < jc->c->n_rows; i++)
        at += row_resid(jc->c, &jc->c->rows[i], r + at);
}

static double cost_of(corun_ctx *ctx, const double *p, int nr, double *r)
{
    resid(p, r, ctx);
    double c = 0;
    for (int i = 0; i < nr; i++)
        c += r[i] * r[i];
    return c;
}

static int row_has(const table_row *r, int job)
{
    for (int k = 0; k < r->setup.c; k++)
        if (r->job[k] == job)
            return 1;
    return 0;
}

/* The rows holding job j (j < 0: every row) into used; returns their residual count. */
static int rows_of(const corun_ctx *ctx, int j, size_t *used, int *n_used)
{
    int nr = 0;
    *n_used = 0;
    for (size_t i = 0; i < ctx->n_rows; i++) {
        if (j < 0 || row_has(&ctx->rows[i], j)) {
            used[(*n_used)++] = i;
            nr += ctx->rows[i].setup.c;
        }
    }
    return nr;
}

static void fit_one_job(corun_ctx *ctx, int j, double *r)
{
    int nr = rows_of(ctx, j, ctx->used, &ctx->n_used);
    double p[2] = {ctx->jobs[j].serial, ctx->jobs[j].mem};
    ctx->job = j;
    { /* a grid start (the kinks of max() trap LM), kept only when better */
        double best = cost_of(ctx, p, nr, r), start[2] = {p[0], p[1]};
        for (int si = 0; si <= 20; si++)
            for (int mi = 0; mi <= 20; mi++) {
                double q[2] = {si / 20.0, mi / 20.0}, c = cost_of(ctx, q, nr, r);
                if (c < best) {
                    best = c;
                    start[0] = q[0];
                    start[1] = q[1];
                }
            }
        p[0] = start[0];
        p[1] = start[1];
    }
    static const double lo[2] = {0, 0}, hi[2] = {1, 1};
    hier_lm(resid, ctx, 2, nr, p, lo, hi);
    resid(p, r, ctx); /* leaves the job's s, m at the result */
}

static void fit_gamma_table(corun_ctx *ctx, double *r)
{
    int nr = rows_of(ctx, -1, ctx->used, &ctx->n_used);
    double g = ctx->par.gamma;
    ctx->job = -1;
    static const double lo[1] = {0}, hi[1] = {100};
    double best = cost_of(ctx, &g, nr, r);
    for (int k = 0; k <= 40; k++) { /* a grid start on [0, 2]: the kinks of max() trap LM */
        double q = k / 20.0, c = cost_of(ctx, &q, nr, r);
        if (c < best) {
            best = c;
            g = q;
        }
    }
    hier_lm(resid, ctx, 1, nr, &g, lo, hi);
    resid(&g, r, ctx);
}

/* The table's rows with their setups and jobs, each job looked up in cat. */
static int resolve(const ms_hier_corun *table, const ms_hier_catalog *cat, table_row *rows,
                   ms_error *err)
{
    for (size_t i = 0; i < table->n; i++) {
        const hier_corun_row *tr = &table->rows[i];
        char key[HIER_KEY_LEN], *parts[MS_HIER_MAX_C + 1];
        int n = 0;
        snprintf(key, sizeof key, "%s", tr->key);
        for (char *tok = key; tok && n <= MS_HIER_MAX_C; n++) {
            parts[n] = tok;
            tok = strchr(tok, '|');
            if (tok)
                *tok++ = 0;
        }
        table_row *r = &rows[i];
        if (ms_hier_setup_by_id(parts[0], &r->setup))
            return ms_error_set(err, MS_EINVAL, "co-run table line %ld: setup '%s' unknown",
                                tr->line, parts[0]);
        for (int k = 0; k < r->setup.c; k++) {
            const ms_hier_profile *p = ms_hier_catalog_find(cat, parts[k + 1]);
            if (!p)
                return ms_error_set(err, MS_EINVAL,
                                    "co-run table line %ld: job '%s' is not in the catalogue "
                                    "(its solo time is needed)",
                                    tr->line, parts[k + 1]);
            r->job[k] = (int)(p - cat->jobs);
        }
        r->times = tr->times;
        r->line = tr->line;
    }
    return MS_OK;
}

/* Fits the jobs of rows (n of them) from cat's values: s, m of every job in them, and
 * gamma unless fix_gamma >= 0; jobs not in rows keep cat's values. Returns the context
 * left at the fit, on jobs and used (buffers of cat->n and n). */
static corun_ctx fit_rows(const table_row *rows, size_t n, const ms_hier_catalog *cat,
                          const ms_hier_params *start, double fix_gamma, ms_hier_profile *jobs,
                          int *fitted, size_t *used, double *r)
{
    memcpy(jobs, cat->jobs, cat->n * sizeof *jobs);
    memset(fitted, 0, cat->n * sizeof *fitted);
    corun_ctx ctx = {.rows = rows, .n_rows = n, .jobs = jobs, .used = used, .par = *start};
    if (fix_gamma >= 0)
        ctx.par.gamma = fix_gamma;
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < rows[i].setup.c; k++) {
            jobs[rows[i].job[k]].cache = 1;
            fitted[rows[i].job[k]] = 1;
        }
    if (!n)
        return ctx;
    double last = INFINITY;
    for (int round = 0; round < ROUNDS; round++) {
        for (size_t j = 0; j < cat->n; j++)
            if (fitted[j])
                fit_one_job(&ctx, (int)j, r);
        if (fix_gamma < 0)
            fit_gamma_table(&ctx, r);
        int nr = rows_of(&ctx, -1, used, &ctx.n_used);
        ctx.job = -1;
        double g = ctx.par.gamma, c = cost_of(&ctx, &g, nr, r);
        if (!(c < last * (1 - 1e-12)))
            break;
        last = c;
    }
    /* Then all at once, when the parameters are few enough. */
    int idx[HIER_LM_MAX_P], nj = 0, ok = 1;
    for (size_t j = 0; j < cat->n && ok; j++)
        if (fitted[j]) {
            ok = 2 * (nj + 1) + (fix_gamma < 0) <= HIER_LM_MAX_P;
            if (ok)
                idx[nj++] = (int)j;
        }
    if (ok) {
        joint_ctx jc = {.c = &ctx, .idx = idx, .n_jobs = nj, .gamma = fix_gamma < 0};
        double p[HIER_LM_MAX_P], lo[HIER_LM_MAX_P], hi[HIER_LM_MAX_P];
        int np = 2 * nj + jc.gamma, nr = rows_of(&ctx, -1, used, &ctx.n_used);
        for (int i = 0; i < nj; i++) {
            p[2 * i] = jobs[idx[i]].serial;
            p[2 * i + 1] = jobs[idx[i]].mem;
        }
        for (int i = 0; i < np; i++) {
            lo[i] = 0;
            hi[i] = i < 2 * nj ? 1 : 100;
        }
        if (jc.gamma)
            p[2 * nj] = ctx.par.gamma;
        hier_lm(joint_resid, &jc, np, nr, p, lo, hi);
        joint_resid(p, r, &jc);
    }
    return ctx;
}

/* Adds the errors of the fit in ctx on job's times (-1: every time), so that leaving each
 * job out in turn judges every time once. */
static void errors_add(const corun_ctx *ctx, const table_row *rows, size_t n, int job,
                       ms_hier_corun_errors *e)
{
    for (size_t i = 0; i < n; i++) {
        if (job >= 0 && !row_has(&rows[i], job))
            continue;
        double res[MS_HIER_MAX_C];
        int c = row_resid(ctx, &rows[i], res);
        for (int k = 0; k < c; k++)
            if (job < 0 || rows[i].job[k] == job) {
                e->sum[rows[i].setup.layout][c - 1] += fabs(res[k]);
                e->n[rows[i].setup.layout][c - 1]++;
            }
    }
}

/* Each job's times judged by a fit without its rows: gamma and the other jobs' s, m
 * from the rows that do not hold it, its own s, m its catalogue values (every row holding
 * it is a co-run of it, so nothing else identifies them). */
static void leave_one_job_out(const table_row *rows, size_t n, const ms_hier_catalog *cat,
                              const ms_hier_params *start, double fix_gamma, const int *in_table,
                              ms_hier_profile *jobs, int *fitted, table_row *kept, size_t *used,
                              double *r, ms_hier_corun_errors *cv)
{
    for (size_t j = 0; j < cat->n; j++) {
        if (!in_table[j])
            continue;
        size_t nk = 0;
        for (size_t i = 0; i < n; i++)
            if (!row_has(&rows[i], (int)j))
                kept[nk++] = rows[i];
        corun_ctx ctx = fit_rows(kept, nk, cat, start, fix_gamma, jobs, fitted, used, r);
        errors_add(&ctx, rows, n, (int)j, cv);
    }
}

int ms_hier_fit_corun(const ms_hier_catalog *cat, const ms_hier_corun *table, double fix_gamma,
                      ms_hier_fit_result *out, ms_hier_corun_errors *in_sample,
                      ms_hier_corun_errors *cv, ms_error *err)
{
    memset(out, 0, sizeof *out);
    memset(in_sample, 0, sizeof *in_sample);
    if (cv)
        memset(cv, 0, sizeof *cv);
    if (!ms_hier_corun_measured(table) || !table->n)
        return ms_error_set(err, MS_EINVAL, "the co-run table has no rows");
    table_row *rows = calloc(table->n, sizeof *rows);
    table_row *kept = calloc(table->n, sizeof *kept);
    size_t *used = calloc(table->n, sizeof *used);
    double *r = calloc(table->n * MS_HIER_MAX_C, sizeof *r);
    ms_hier_profile *cv_jobs = calloc(cat->n + 1, sizeof *cv_jobs);
    int *cv_fitted = calloc(cat->n + 1, sizeof *cv_fitted);
    out->n_jobs = cat->n;
    out->jobs = calloc(cat->n + 1, sizeof *out->jobs);
    out->fitted = calloc(cat->n + 1, sizeof *out->fitted);
    int rc = !rows || !kept || !used || !r || !cv_jobs || !cv_fitted || !out->jobs || !out->fitted
                 ? ms_error_set(err, MS_ENOMEM, "out of memory")
                 : resolve(table, cat, rows, err);
    if (!rc) {
        /* the serial width stays the table's */
        const ms_hier_params *start = ms_hier_corun_params(table);
        corun_ctx ctx = fit_rows(rows, table->n, cat, start, fix_gamma, out->jobs, out->fitted,
                                 used, r);
        out->par = ctx.par;
        errors_add(&ctx, rows, table->n, -1, in_sample);
        if (cv)
            leave_one_job_out(rows, table->n, cat, start, fix_gamma, out->fitted, cv_jobs,
                              cv_fitted, kept, used, r, cv);
    }
    free(rows);
    free(kept);
    free(used);
    free(r);
    free(cv_jobs);
    free(cv_fitted);
    if (rc)
        ms_hier_fit_result_fini(out);
    return rc;
}
