/* fit.c: the co-run model fitted to measured MPS-inside-MIG runs by least squares on the
 * relative error of each process's rate: per job T, s, m from its one-process runs (T in
 * closed form for given s, m: the model's times scale with T), then the global gamma from
 * the multi-process runs; and the fit's errors in sample and leaving one model out. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"
#include "migsched/hier_fit.h"

double ms_hier_fit_rate(const ms_hier_params *par, const ms_hier_profile *p, int slices, int procs)
{
    int i = ms_hier_fit_size_index(slices);
    if (i < 0 || procs < 1)
        return NAN;
    /* Default MPS: the copies divide the instance's compute equally; their demands are equal,
     * so they divide its bandwidth equally too. */
    double beta = slices / 8.0 / procs, alpha = ms_hier_fit_mem_slices[i] / 8.0 / procs;
    double tc = p->solo * (p->serial * fmax(1.0, par->serial_width / (8.0 * beta)) +
                           (1.0 - p->serial) / beta),
           tm = 0;
    if (p->mem > 0)
        tm = p->solo * p->mem / alpha * (1.0 + par->gamma * p->cache * (procs - 1) * p->mem);
    return 1.0 / fmax(tc, tm);
}

/* ---- Per job: s, m by Levenberg-Marquardt from a grid start, T projected out ---- */

typedef struct job_ctx {
    const ms_hier_obs *obs[MS_HIER_FIT_NSIZES];
    int n;
    double solo; /* the last T computed */
} job_ctx;

/* The T minimising the squared relative errors for s, m: the rate is 1/(T f), so the
 * residual u a_i - 1 (u = 1/T, a_i = 1 / (f_i rate_i)) is linear in u. */
static void job_resid(const double *p, double *r, void *vctx)
{
    job_ctx *ctx = vctx;
    ms_hier_profile unit = {.solo = 1, .serial = p[0], .mem = p[1], .cache = 1};
    ms_hier_params par = {.gamma = 0};
    double a[MS_HIER_FIT_NSIZES], sa = 0, saa = 0;
    for (int i = 0; i < ctx->n; i++) {
        const ms_hier_obs *o = ctx->obs[i];
        a[i] = ms_hier_fit_rate(&par, &unit, o->slices, 1) / o->rate;
        sa += a[i];
        saa += a[i] * a[i];
    }
    double u = sa / saa;
    ctx->solo = 1.0 / u;
    for (int i = 0; i < ctx->n; i++)
        r[i] = u * a[i] - 1.0;
}

static void fit_job(const ms_hier_obs_set *set, int j, ms_hier_profile *out, int *fitted)
{
    job_ctx ctx = {.n = 0};
    for (size_t i = 0; i < set->n && ctx.n < MS_HIER_FIT_NSIZES; i++)
        if (set->obs[i].job == j && set->obs[i].procs == 1)
            ctx.obs[ctx.n++] = &set->obs[i];
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", set->jobs[j].name);
    out->cache = 1;
    *fitted = ctx.n >= 3;
    if (!*fitted)
        return;
    for (int i = 0; i < ctx.n; i++)
        if (ctx.obs[i]->slices == 1)
            out->t_1gpc = 1.0 / ctx.obs[i]->rate;
    double best[2] = {0, 0}, best_cost = INFINITY, r[MS_HIER_FIT_NSIZES];
    for (int si = 0; si <= 50; si++)
        for (int mi = 0; mi <= 50; mi++) {
            double p[2] = {si / 50.0, mi / 50.0}, c = 0;
            job_resid(p, r, &ctx);
            for (int i = 0; i < ctx.n; i++)
                c += r[i] * r[i];
            if (c < best_cost) {
                best_cost = c;
                best[0] = p[0];
                best[1] = p[1];
            }
        }
    static const double lo[2] = {0, 0}, hi[2] = {1, 1};
    hier_lm(job_resid, &ctx, 2, ctx.n, best, lo, hi);
    job_resid(best, r, &ctx); /* sets ctx.solo for the final s, m */
    out->solo = ctx.solo;
    out->serial = best[0];
    out->mem = best[1];
}

/* ---- Global: gamma and the serial width from the multi-process runs ---- */

/* The serial width stays within [0, 1] GPC: then it never slows a job alone in an
 * instance (of 1 GPC or more), and the one-process fit of T, s, m does not depend on it. */
#define MAX_SERIAL_WIDTH 1.0

typedef struct global_ctx {
    const ms_hier_obs_set *set;
    const ms_hier_fit_result *fit;
    const size_t *idx; /* the runs used */
    int n;
    ms_hier_params par; /* the globals held fixed, and where the free ones are put */
    int free_gamma, free_width;
} global_ctx;

static void global_resid(const double *p, double *r, void *vctx)
{
    global_ctx *ctx = vctx;
    int k = 0;
    if (ctx->free_gamma)
        ctx->par.gamma = p[k++];
    if (ctx->free_width)
        ctx->par.serial_width = p[k];
    for (int i = 0; i < ctx->n; i++) {
        const ms_hier_obs *o = &ctx->set->obs[ctx->idx[i]];
        r[i] = ms_hier_fit_rate(&ctx->par, &ctx->fit->jobs[o->job], o->slices, o->procs) / o->rate -
               1.0;
    }
}

/* The globals fix leaves free (< 0), on a grid start (gamma over [0, 2], the width over
 * [0, 1], steps of 0.05), then by Levenberg-Marquardt. */
static int fit_globals(const ms_hier_obs_set *set, const ms_hier_fit_result *fit, int leave_out,
                       ms_hier_params fix, ms_hier_params *out, ms_error *err)
{
    global_ctx ctx = {
        .set = set, .fit = fit, .free_gamma = fix.gamma < 0, .free_width = fix.serial_width < 0};
    ctx.par = (ms_hier_params){.gamma = ctx.free_gamma ? 0 : fix.gamma,
                               .serial_width = ctx.free_width ? 0 : fix.serial_width};
    int np = ctx.free_gamma + ctx.free_width;
    size_t *idx = malloc((set->n + 1) * sizeof *idx);
    double *r = malloc((set->n + 1) * sizeof *r);
    if (!idx || !r) {
        free(idx);
        free(r);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < set->n; i++) {
        const ms_hier_obs *o = &set->obs[i];
        if (o->procs > 1 && fit->fitted[o->job] && set->jobs[o->job].model != leave_out)
            idx[ctx.n++] = i;
    }
    ctx.idx = idx;
    if (ctx.n && np) {
        double best[2] = {0, 0}, best_cost = INFINITY;
        for (int a = 0; a <= (ctx.free_gamma ? 40 : 0); a++)
            for (int b = 0; b <= (ctx.free_width ? 20 : 0); b++) {
                double p[2], c = 0;
                int k = 0;
                if (ctx.free_gamma)
                    p[k++] = a / 20.0;
                if (ctx.free_width)
                    p[k] = b / 20.0;
                global_resid(p, r, &ctx);
                for (int i = 0; i < ctx.n; i++)
                    c += r[i] * r[i];
                if (c < best_cost) {
                    best_cost = c;
                    best[0] = p[0];
                    best[1] = np == 2 ? p[1] : 0;
                }
            }
        double lo[2] = {0, 0}, hi[2] = {ctx.free_gamma ? 100 : MAX_SERIAL_WIDTH, MAX_SERIAL_WIDTH};
        hier_lm(global_resid, &ctx, np, ctx.n, best, lo, hi);
        global_resid(best, r, &ctx); /* leaves ctx.par at the result */
    }
    *out = ctx.par;
    free(idx);
    free(r);
    return MS_OK;
}

int ms_hier_fit(const ms_hier_obs_set *set, int leave_out, ms_hier_params fix,
                ms_hier_fit_result *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    out->n_jobs = set->n_jobs;
    out->jobs = calloc(set->n_jobs + 1, sizeof *out->jobs);
    out->fitted = calloc(set->n_jobs + 1, sizeof *out->fitted);
    if (!out->jobs || !out->fitted) {
        ms_hier_fit_result_fini(out);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    int any = 0;
    for (size_t j = 0; j < set->n_jobs; j++) {
        fit_job(set, (int)j, &out->jobs[j], &out->fitted[j]);
        any |= out->fitted[j];
    }
    if (!any) {
        ms_hier_fit_result_fini(out);
        return ms_error_set(err, MS_EINVAL,
                            "no job has one-process runs in 3 or more MIG sizes (T, s and m "
                            "need 3)");
    }
    if (fix.serial_width > MAX_SERIAL_WIDTH) {
        ms_hier_fit_result_fini(out);
        return ms_error_set(err, MS_EINVAL, "the serial width must be at most %g GPC",
                            MAX_SERIAL_WIDTH);
    }
    int rc = fit_globals(set, out, leave_out, fix, &out->par, err);
    if (rc)
        ms_hier_fit_result_fini(out);
    return rc;
}

void ms_hier_fit_result_fini(ms_hier_fit_result *r)
{
    free(r->jobs);
    free(r->fitted);
    memset(r, 0, sizeof *r);
}

void ms_hier_fit_errors_add(const ms_hier_obs_set *set, const ms_hier_fit_result *r, int model,
                            ms_hier_fit_errors *e)
{
    for (size_t i = 0; i < set->n; i++) {
        const ms_hier_obs *o = &set->obs[i];
        if (!r->fitted[o->job] || (model >= 0 && set->jobs[o->job].model != model))
            continue;
        double pred = ms_hier_fit_rate(&r->par, &r->jobs[o->job], o->slices, o->procs);
        int s = ms_hier_fit_size_index(o->slices);
        e->sum[s][o->procs - 1] += fabs(pred / o->rate - 1.0);
        e->n[s][o->procs - 1]++;
    }
}

int ms_hier_fit_cv(const ms_hier_obs_set *set, ms_hier_params fix, ms_hier_fit_result *all,
                   ms_hier_fit_errors *in_sample, ms_hier_fit_errors *cv, ms_error *err)
{
    memset(in_sample, 0, sizeof *in_sample);
    memset(cv, 0, sizeof *cv);
    int rc = ms_hier_fit(set, -1, fix, all, err);
    if (rc)
        return rc;
    ms_hier_fit_errors_add(set, all, -1, in_sample);
    for (size_t m = 0; m < set->n_models; m++) {
        ms_hier_fit_result one;
        if ((rc = ms_hier_fit(set, (int)m, fix, &one, err))) {
            ms_hier_fit_result_fini(all);
            return rc;
        }
        ms_hier_fit_errors_add(set, &one, (int)m, cv);
        ms_hier_fit_result_fini(&one);
    }
    return MS_OK;
}
