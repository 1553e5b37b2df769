/* optimal.c: the exact scheduler's entry point: checks the request, takes the best of the
 * heuristics as the incumbent, runs the branch and bound below it (optimal_improve.c) and
 * sets the stats proved, nodes and lower_bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "offline_internal.h"
#include "optimal_internal.h"

/* The starting incumbent: every heuristic that is deterministic and fast (far, fixpartbest,
 * miso, miso-eager, nomig, search); search at its default budget is usually at or near the
 * optimum, which leaves the branch and bound little more than the proof. */
static const ms_offline_fn incumbents[] = {offline_far,   offline_fixpartbest,
                                           offline_miso,  offline_miso_eager,
                                           offline_nomig, ms_search_schedule};

static ms_schedule *best_heuristic(const ms_workload *w, const ms_gpu_model *gpu,
                                   const ms_offline_options *opt)
{
    ms_schedule *best = NULL;
    ms_offline_options own = *opt; /* the limits are optimal's own, not search's budget */
    own.search.time_budget_ms = 0;
    own.search.threads = 1;
    for (size_t k = 0; k < sizeof incumbents / sizeof incumbents[0]; k++) {
        ms_schedule *s = NULL;
        ms_error err;
        if (offline_run(incumbents[k], w, gpu, 1, &own, &s, &err))
            continue; /* infeasible for this policy: the others may do */
        if (ms_schedule_validate_initial(s, w, opt->initial, NULL) ||
            (best && ms_schedule_makespan(s) >= ms_schedule_makespan(best))) {
            ms_schedule_free(s);
            continue;
        }
        ms_schedule_free(best);
        best = s;
    }
    return best;
}

int ms_optimal_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    if (gpus != 1)
        return ms_error_set(err, MS_EINVAL,
                            "optimal: the exact scheduler plans one GPU, not %d (use --gpus 1)",
                            gpus);
    if (opt->batch > 0 && opt->batch < w->n)
        return ms_error_set(err, MS_EINVAL,
                            "optimal: the exact scheduler plans one batch; --batch %d would "
                            "split the %d tasks (leave --batch out)",
                            opt->batch, w->n);
    int rc = ms_workload_check_gpu(w, gpu, err);
    if (rc)
        return rc;
    opt_problem *o = malloc(sizeof *o);
    if (!o)
        return ms_error_set(err, MS_ENOMEM, "optimal: out of memory");
    if ((rc = opt_problem_init(o, w, gpu, opt->initial, err))) {
        free(o);
        return rc;
    }
    double t0 = opt_now_s();
    ms_schedule *inc = best_heuristic(w, gpu, opt);
    o->node_limit = opt->optimal.node_limit;
    o->deadline = opt->optimal.time_budget_ms > 0 ? t0 + opt->optimal.time_budget_ms * 1e-3 : 0.0;
    ms_schedule *s = NULL;
    rc = opt_search_below(o, inc ? ms_schedule_makespan(inc) : INFINITY, &s);
    bool found = o->best_len >= 0 || inc, stopped = o->stopped;
    if (!rc && !s && inc) {
        s = ms_schedule_clone(inc); /* nothing better exists, or none was found in time */
        if (s) {
            s->nstats = 0;
            snprintf(s->algorithm, sizeof s->algorithm, "%s", "optimal");
        }
    }
    ms_schedule_free(inc);
    double lower = o->proved_below;
    long nodes = o->nodes;
    opt_problem_free(o);
    free(o);
    if (!s)
        return rc || found ? ms_error_set(err, MS_ENOMEM, "optimal: out of memory")
                           : ms_error_set(err, MS_EINFEASIBLE, "optimal: no valid schedule found%s",
                                          stopped ? " within the budget" : "");
    ms_schedule_normalize(s);
    double makespan = ms_schedule_makespan(s);
    ms_schedule_set_stat(s, "proved", stopped ? 0 : 1);
    ms_schedule_set_stat(s, "nodes", (double)nodes);
    ms_schedule_set_stat(s, "lower_bound", stopped ? fmin(lower, makespan) : makespan);
    *out = s;
    return MS_OK;
}
