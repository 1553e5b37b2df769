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
    far_refine_stats refine;
    double phase2;           /* makespan before refinement (one batch) */
} far_totals;

static int schedule_batches(far_plan *p, int per_batch, const ms_offline_options *opt,
                            far_engine *e, far_totals *tot, ms_error *err)
{
    far_search *srch = far_search_new();
    int rc = MS_OK;
    if (!srch)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    srch->whole_gpu_candidate = !opt->paper_family;
    for (int b = 0; b < p->batches && !rc; b++) {
        int first = b * per_batch, n = p->w->n - first < per_batch ? p->w->n - first : per_batch;
        int allocs, evals;
        rc = far_search_run(srch, p, b, first, n, &allocs, &evals, err);
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
        if (opt->refine && (rc = far_refine_run(p, b, e, opt, &st)))
            ms_error_set(err, rc, "out of memory in refinement");
        else if (opt->refine) {
            tot->refine.moves += st.moves;
            tot->refine.swaps += st.swaps;
            tot->refine.iterations += st.iterations;
        }
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
                                    "at most %g s, or inf", i, w->tasks[i].name, t, gpu->sizes[k],
                                    FAR_MAX_TIME);
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
    ms_schedule *s = ms_schedule_new(gpu, gpus, opt->refine ? "far" : "far-norefine");
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (batches == 0) {
        *out = s;
        return MS_OK;
    }
    far_plan p;
    far_engine e = {0};
    far_totals tot = {0};
    if (far_plan_init(&p, w, gpu, gpus, batches)) {
        ms_schedule_free(s);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    rc = schedule_batches(&p, per_batch, opt, &e, &tot, err);
    if (!rc && batches > 1)
        rc = far_concat_run(&p, &e, opt, s, err);
    else if (!rc) {
        if (opt->refine) /* else the engine still holds phase 2's exact run */
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
