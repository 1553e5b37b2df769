/* optimal_improve.c: the branch and bound below an incumbent, as a schedule: the best
 * decision sequence it finds replayed with the times of docs/optimal.md. */
#include <math.h>
#include <stdlib.h>

#include "optimal_internal.h"

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

int opt_search_below(opt_problem *o, double incumbent, ms_schedule **out)
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
                double incumbent, long node_limit, ms_schedule **out, long *nodes, ms_error *err)
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
    if ((rc = opt_search_below(o, incumbent, out)))
        ms_error_set(err, rc, "optimal: out of memory");
    *nodes = o->nodes;
    opt_problem_free(o);
    free(o);
    return rc;
}
