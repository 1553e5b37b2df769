/* far.c: FAR end to end (paper 000): per batch the allocation family and Algorithm 1
 * (phases 1-2), Algorithm 2 (phase 3), then the batches' concatenation and the schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "far_internal.h"

#define FAR_MAX_GPUS 64
#define FAR_MAX_TIME 1e15

typedef struct far_totals {
    int allocations, evaluated;
    int whole_gpu; /* batches whose plan is the whole-GPU allocation */
    far_refine_stats refine;
    double phase2; /* makespan before refinement (one batch) */
} far_totals;

/* Phase 3 on batch b of p, when asked for; *st gets its counts. */
static int refine_batch(far_plan *p, int b, const ms_offline_options *opt, far_engine *e,
                        far_refine_stats *st, ms_error *err)
{
    *st = (far_refine_stats){0};
    int rc = opt->far.refine ? far_refine_run(p, b, e, opt, st) : MS_OK;
    return rc ? ms_error_set(err, rc, "out of memory in refinement") : MS_OK;
}

/* Beyond the paper (docs/far.md): paper 000's family ends once the longest task has the
 * whole GPU, so it never holds "every task on the whole GPU", which wins when all tasks
 * scale well. That allocation, refined like the family's best, replaces batch b's plan
 * (and *st) when it ends earlier; a cheap lower bound skips it almost always otherwise.
 * *alt is scratch space, set up on first use. */
static int try_whole_gpu(far_search *srch, far_plan *p, far_plan **alt, int b, int first, int n,
                         const ms_offline_options *opt, far_engine *e, far_refine_stats *st,
                         far_totals *tot, ms_error *err)
{
    int rc = far_engine_run(e, p, b, b + 1, false, true);
    if (rc)
        return ms_error_set(err, rc, "out of memory");
    double current = e->makespan;
    if (far_whole_gpu_bound(p, first, n) >= current)
        return MS_OK;
    if (!*alt && (!(*alt = malloc(sizeof **alt)) ||
                  far_plan_init(*alt, p->w, p->gpu, p->gpus, p->batches))) {
        free(*alt);
        *alt = NULL;
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    far_plan_set_rules(*alt, opt);
    int allocs, evals;
    far_refine_stats alt_st;
    rc = far_search_run(srch, *alt, b, first, n, true, &allocs, &evals, NULL);
    if (rc == MS_EINFEASIBLE)
        return MS_OK; /* some task cannot run on the whole GPU */
    if (rc || (rc = refine_batch(*alt, b, opt, e, &alt_st, err)) ||
        (rc = far_engine_run(e, *alt, b, b + 1, false, true)))
        return ms_error_set(err, rc, "out of memory");
    tot->allocations += allocs;
    tot->evaluated += evals;
    if (!(e->makespan < current))
        return MS_OK;
    *st = alt_st;
    tot->whole_gpu++;
    return far_plan_copy_batch(p, b, *alt, b) ? ms_error_set(err, MS_ENOMEM, "out of memory")
                                              : MS_OK;
}

static int schedule_batches(far_plan *p, int per_batch, const ms_offline_options *opt,
                            far_engine *e, far_totals *tot, ms_error *err)
{
    far_search *srch = far_search_new();
    far_plan *alt = NULL;
    int rc = MS_OK;
    if (!srch)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int b = 0; b < p->batches && !rc; b++) {
        int first = b * per_batch, n = p->w->n - first < per_batch ? p->w->n - first : per_batch;
        int allocs, evals;
        rc = far_search_run(srch, p, b, first, n, false, &allocs, &evals, err);
        if (rc)
            break;
        tot->allocations += allocs;
        tot->evaluated += evals;
        if (p->batches == 1) {
            if ((rc = far_engine_run(e, p, 0, 1, false, true)))
                break;
            tot->phase2 = e->makespan;
        }
        far_refine_stats st;
        rc = refine_batch(p, b, opt, e, &st, err);
        if (!rc && !opt->far.paper_family)
            rc = try_whole_gpu(srch, p, &alt, b, first, n, opt, e, &st, tot, err);
        tot->refine.moves += st.moves;
        tot->refine.swaps += st.swaps;
        tot->refine.iterations += st.iterations;
    }
    if (alt) {
        far_plan_free(alt);
        free(alt);
    }
    far_search_free(srch);
    return rc;
}

static int check_input(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_offline_options *opt, ms_error *err)
{
    if (gpus < 1 || gpus > FAR_MAX_GPUS)
        return ms_error_set(err, MS_EINVAL, "FAR: number of GPUs must be 1..%d, not %d",
                            FAR_MAX_GPUS, gpus);
    if (opt->batch < 0)
        return ms_error_set(err, MS_EINVAL, "FAR: batch size must be >= 0, not %d", opt->batch);
    if (gpu->tree.n < 1 || gpu->tree.n > MS_MAX_TREE_NODES)
        return ms_error_set(err, MS_EINVAL, "FAR: GPU model %s has no repartitioning tree",
                            gpu->name);
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < gpu->nsizes; k++) {
            double t = w->tasks[i].time[gpu->sizes[k]];
            /* The cap keeps sums of areas finite; it is about 30 million years. */
            if (!(t > 0) || (t > FAR_MAX_TIME && t != INFINITY))
                return ms_error_set(err, MS_EINVAL,
                                    "FAR: task %d (%s): time %g at size %d must be positive and "
                                    "at most %g s, or inf",
                                    i, w->tasks[i].name, t, gpu->sizes[k], FAR_MAX_TIME);
        }
    return MS_OK;
}

static void put_stats(ms_schedule *s, const far_plan *p, const far_totals *tot)
{
    ms_schedule_set_stat(s, "allocations", tot->allocations);
    ms_schedule_set_stat(s, "evaluated", tot->evaluated);
    ms_schedule_set_stat(s, "moves", tot->refine.moves);
    ms_schedule_set_stat(s, "swaps", tot->refine.swaps);
    ms_schedule_set_stat(s, "refine_iterations", tot->refine.iterations);
    ms_schedule_set_stat(s, "whole_gpu_batches", tot->whole_gpu);
    if (p->batches == 1)
        ms_schedule_set_stat(s, "makespan_phase2", tot->phase2);
}

int ms_far_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                    const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    int rc = check_input(w, gpu, gpus, opt, err);
    if (rc)
        return rc;
    int per_batch = opt->batch > 0 && opt->batch < w->n ? opt->batch : (w->n > 0 ? w->n : 1);
    int batches = w->n > 0 ? (w->n + per_batch - 1) / per_batch : 0;
    ms_schedule *s = ms_schedule_new(gpu, gpus, opt->far.refine ? "far" : "far-norefine");
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (batches == 0) {
        *out = s;
        return MS_OK;
    }
    far_plan p;
    far_engine e = {.initial = opt->initial};
    far_totals tot = {0};
    if (far_plan_init(&p, w, gpu, gpus, batches)) {
        ms_schedule_free(s);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    far_plan_set_rules(&p, opt);
    rc = schedule_batches(&p, per_batch, opt, &e, &tot, err);
    if (!rc && batches > 1)
        rc = far_concat_run(&p, &e, opt, s, err);
    else if (!rc) {
        /* else the engine holds phase 2's exact run */
        if (opt->far.refine || !opt->far.paper_family)
            rc = far_engine_run(&e, &p, 0, 1, false, true);
        if (!rc)
            rc = far_engine_emit(&e, &p, s);
        if (rc)
            ms_error_set(err, rc, "out of memory");
    }
    if (!rc)
        put_stats(s, &p, &tot);
    far_engine_free(&e);
    far_plan_free(&p);
    if (rc) {
        ms_schedule_free(s);
        return rc;
    }
    ms_schedule_normalize(s);
    *out = s;
    return MS_OK;
}

int ms_far_plan(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out, ms_error *err)
{
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    return ms_far_schedule(w, gpu, 1, &opt, out, err);
}
