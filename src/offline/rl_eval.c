/* rl_eval.c: a trained policy against the offline algorithms on the same generated
 * datasets (paper 001 Tables 4 and 5), every schedule validated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/offline.h"

/* Sums over the datasets; ms_rl_eval_run divides them by the number of sets. */
typedef struct eval_ctx {
    const ms_gpu_model *gpu;
    const ms_rl_eval *e;
    ms_rl_eval_result *r;
    ms_error *err;
} eval_ctx;

/* Makespan of a validated schedule, NAN (err filled) when something fails. */
static double checked(ms_schedule *s, const ms_workload *w, ms_error *err, const char *who)
{
    double mk = NAN;
    if (s && !ms_schedule_validate(s, w, NULL))
        mk = ms_schedule_makespan(s);
    else if (s)
        ms_error_set(err, MS_EINVAL, "%s produced an invalid schedule", who);
    ms_schedule_free(s);
    return mk;
}

static double run_algo(const eval_ctx *c, int k, const ms_workload *w, int batch)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = batch;
    ms_schedule *s = NULL;
    if (ms_offline_schedule(c->e->compare[k], w, c->gpu, 1, &o, &s, c->err))
        return NAN;
    return checked(s, w, c->err, c->e->compare[k]);
}

static double run_policy(const eval_ctx *c, const ms_rl_model *m, const ms_workload *w, bool online)
{
    ms_schedule *s = NULL;
    if (ms_rl_schedule(m, c->gpu, w, online, c->e->rollout, c->e->gap, &s, c->err))
        return NAN;
    return checked(s, w, c->err, "rl");
}

/* Offline: every batch alone, p_opt averaged over the batches. */
static int eval_offline(const eval_ctx *c, const ms_workload *w)
{
    int N = c->e->model->env.n_batch, nb = 0, ncmp = c->e->ncompare;
    double acc[MS_RL_EVAL_MAX_COMPARE + 1] = {0};
    for (int from = 0; from < w->n; from += N, nb++) {
        ms_workload *b = ms_workload_slice(w, from, N);
        if (!b)
            return ms_error_set(c->err, MS_ENOMEM, "out of memory");
        double lb = ms_bound_lbound_paper(b, c->gpu, 1);
        for (int k = -1; k < ncmp; k++) {
            double mk = k < 0 ? run_policy(c, c->e->model, b, false) : run_algo(c, k, b, 0);
            if (isnan(mk)) {
                ms_workload_free(b);
                return MS_EINVAL;
            }
            acc[k + 1] += (mk / lb - 1) * 100;
            if (c->r->npos)
                c->r->by_batch[nb][k + 1] += (mk / lb - 1) * 100;
        }
        ms_workload_free(b);
    }
    for (int k = 0; k <= ncmp; k++)
        c->r->mean[k] += acc[k] / nb;
    return MS_OK;
}

/* Online: the whole dataset; the others relative to the policy's makespan. */
static int eval_online(const eval_ctx *c, const ms_workload *w)
{
    int ncmp = c->e->ncompare;
    double mine = run_policy(c, c->e->model, w, true);
    if (isnan(mine))
        return MS_EINVAL;
    c->r->mean[0] += mine;
    for (int k = 0; k < ncmp; k++) {
        double mk = run_algo(c, k, w, c->e->model->env.n_batch);
        if (isnan(mk))
            return MS_EINVAL;
        c->r->mean[k + 1] += (mk / mine - 1) * 100;
    }
    if (c->e->offline_model) {
        double mk = run_policy(c, c->e->offline_model, w, false);
        if (isnan(mk))
            return MS_EINVAL;
        c->r->mean[ncmp + 1] += (mk / mine - 1) * 100;
    }
    return MS_OK;
}

/* The sums become means over the datasets. */
static void divide(ms_rl_eval_result *r, long sets)
{
    for (int k = 0; k < MS_RL_EVAL_MAX_COMPARE + 2; k++)
        r->mean[k] /= sets;
    for (int b = 0; b < r->npos; b++)
        for (int k = 0; k < MS_RL_EVAL_MAX_COMPARE + 1; k++)
            r->by_batch[b][k] /= sets;
}

int ms_rl_eval_run(const ms_gpu_model *gpu, const ms_rl_eval *e, ms_rl_eval_result *out,
                   ms_error *err)
{
    memset(out, 0, sizeof *out);
    bool online = e->model->env.online;
    if (e->ncompare < 0 || e->ncompare > MS_RL_EVAL_MAX_COMPARE || e->sets < 1 || e->tasks < 1)
        return ms_error_set(err, MS_EINVAL,
                            "rl evaluation: %d compared algorithms (0..%d), "
                            "%ld sets and %d tasks (1 or more)",
                            e->ncompare, MS_RL_EVAL_MAX_COMPARE, e->sets, e->tasks);
    if (e->by_batch && online)
        return ms_error_set(err, MS_EINVAL,
                            "an online policy plans each dataset as one queue, "
                            "not in batches");
    if (e->by_batch) {
        int n = e->model->env.n_batch;
        out->npos = (e->tasks + n - 1) / n;
        out->by_batch = calloc((size_t)out->npos, sizeof *out->by_batch);
        if (!out->by_batch)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    eval_ctx c = {gpu, e, out, err};
    ms_rng rng;
    ms_rng_seed(&rng, e->seed);
    for (long i = 0; i < e->sets; i++) {
        ms_workload *w;
        int rc = ms_generate(gpu, &e->gen, e->tasks, &rng, &w, err);
        if (!rc) {
            rc = online ? eval_online(&c, w) : eval_offline(&c, w);
            ms_workload_free(w);
            if (rc)
                ms_error_prefix(err, "dataset %ld", i);
        }
        if (rc) {
            ms_rl_eval_result_fini(out);
            return rc;
        }
    }
    divide(out, e->sets);
    return MS_OK;
}

void ms_rl_eval_result_fini(ms_rl_eval_result *r)
{
    free(r->by_batch);
    r->by_batch = NULL;
    r->npos = 0;
}
