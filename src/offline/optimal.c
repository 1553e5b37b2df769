/* optimal.c: the exact scheduler's entry point: checks the request, takes the best of the
 * heuristics as the incumbent, runs the branch and bound (optimal_search.c) and turns its
 * best decision sequence into a schedule with stats proved, nodes and lower_bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "optimal_internal.h"

/* The starting incumbent: every heuristic that is deterministic and fast; search at its
 * default budget is usually at or near the optimum, which leaves the branch and bound
 * little more than the proof. */
static const char *const incumbents[] = {"far", "fixpartbest", "miso", "miso-eager", "nomig",
                                         "search"};

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
        if (ms_offline_schedule(incumbents[k], w, gpu, 1, &own, &s, &err))
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

/* Replays the decision sequence with the times docs/optimal.md gives it: the layout's
 * instances first (instance and step k are the layout's k-th), live from the start. */
static int build(const opt_problem *o, ms_schedule *s)
{
    opt_live live[MS_MAX_SLOTS], keep[MS_MAX_SLOTS];
    int id_of[OPT_MAX_STEPS];
    int nlive = 0, nkeep;
    double R = 0.0;
    for (int k = 0; k < o->ninit; k++) {
        ms_placement at = o->pl[o->init_pl[k]];
        id_of[k] = ms_schedule_add_instance(s, 0, at.profile, at.start, NAN, NAN, NAN, NAN);
        if (id_of[k] < 0)
            return MS_ENOMEM;
        live[nlive++] = (opt_live){o->init_pl[k], k, o->init_busy[k]};
    }
    for (int k = 0; k < o->best_len; k++) {
        const opt_step *st = &o->best_path[k];
        ms_placement at = o->pl[st->pl];
        double t = 0.0;
        if (st->initial) {
            t = o->init_busy[k];
            for (int j = 0; j < nlive; j++)
                if (live[j].step == k)
                    live[j] = live[--nlive]; /* back below with its tasks' end */
        } else {
            double ds[MS_MAX_SLOTS], de[MS_MAX_SLOTS];
            for (int j = 0; j < nlive; j++)
                ds[j] = NAN;
            double c0 = opt_clear(o, live, nlive, st->pl, R, keep, &nkeep, ds, de);
            for (int j = 0; j < nlive; j++)
                if (!isnan(ds[j])) {
                    s->inst[id_of[live[j].step]].destroy_start = ds[j];
                    s->inst[id_of[live[j].step]].destroy_end = de[j];
                }
            t = R = c0 + ms_gpu_create_time(o->g, o->size[st->pl]);
            id_of[k] = ms_schedule_add_instance(s, 0, at.profile, at.start, c0, R, NAN, NAN);
            nlive = nkeep;
            for (int j = 0; j < nlive; j++)
                live[j] = keep[j];
        }
        if (id_of[k] < 0)
            return MS_ENOMEM;
        for (uint64_t r = st->tasks; r; r &= r - 1) {
            int i = __builtin_ctzll(r);
            double d = o->t[i][o->size[st->pl]];
            if (ms_schedule_add_task(s, i, id_of[k], t, t + d))
                return MS_ENOMEM;
            t += d;
        }
        live[nlive++] = (opt_live){st->pl, k, t};
    }
    return MS_OK;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Runs the branch and bound below `incumbent` (INFINITY: none) with o's limits; *out gets
 * the best schedule it found, NULL when it found none shorter. */
static int search_below(opt_problem *o, double incumbent, ms_schedule **out)
{
    *out = NULL;
    o->best = incumbent;
    opt_search(o);
    if (o->best_len < 0)
        return MS_OK;
    ms_schedule *s = ms_schedule_new(o->g, 1, "optimal");
    if (!s || build(o, s)) {
        ms_schedule_free(s);
        return MS_ENOMEM;
    }
    *out = s;
    return MS_OK;
}

int opt_improve(const ms_workload *w, const ms_gpu_model *gpu, const ms_initial *initial,
                double incumbent, long node_limit, ms_schedule **out, long *nodes,
                ms_error *err)
{
    *out = NULL;
    *nodes = 0;
    opt_problem *o = malloc(sizeof *o);
    if (!o)
        return ms_error_set(err, MS_ENOMEM, "optimal: out of memory");
    int rc = opt_problem_init(o, w, gpu, initial, err);
    if (rc) {
        free(o);
        return rc;
    }
    o->node_limit = node_limit;
    if ((rc = search_below(o, incumbent, out)))
        ms_error_set(err, rc, "optimal: out of memory");
    *nodes = o->nodes;
    opt_problem_free(o);
    free(o);
    return rc;
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
    double t0 = now_s();
    ms_schedule *inc = best_heuristic(w, gpu, opt);
    o->node_limit = opt->optimal.node_limit;
    o->deadline = opt->optimal.time_budget_ms > 0 ? t0 + opt->optimal.time_budget_ms * 1e-3 : 0.0;
    ms_schedule *s = NULL;
    rc = search_below(o, inc ? ms_schedule_makespan(inc) : INFINITY, &s);
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
