/* tune.c: runs over seeds: one seed's generated workload simulated, and the static
 * baseline's layout chosen out of sample on workloads drawn from the same generator with
 * seeds the evaluation does not use (the per-run "best of four" looks at the very
 * workload it is judged on). */
#include "internal.h"

#include <string.h>

int ms_online_run_seed(const ms_gpu_model *m, const ms_online_gen *g, const ms_online_config *c,
                       unsigned long long seed, ms_online_workload *w, ms_online_result *r,
                       ms_error *err)
{
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    memset(r, 0, sizeof *r);
    int rc = ms_online_generate(m, g, &rng, w, err);
    if (!rc && (rc = ms_online_simulate(m, w, c, r, err))) {
        ms_online_result_fini(r); /* a failed run may hold its per-job arrays */
        ms_online_workload_fini(w);
    }
    return rc;
}

int ms_online_choose_layout(const ms_gpu_model *m, const ms_online_gen *g, ms_online_config *c,
                            unsigned long long seed, int seeds, ms_error *err)
{
    memset(c->layout_share, 0, sizeof c->layout_share);
    for (int i = 0; i < g->nmix; i++)
        c->layout_share[g->mix_profile[i]] += g->mix_weight[i];
    double best = INFINITY;
    int chosen = -1;
    ms_error last = {0};
    for (int l = 0; l < MS_LAYOUT_COUNT; l++) {
        double sum = 0;
        int rc = MS_OK;
        ms_online_config t = *c;
        t.layout = l;
        for (int s = 0; s < seeds && !rc; s++) {
            ms_online_workload w;
            ms_online_result r;
            if ((rc = ms_online_run_seed(m, g, &t, seed + (unsigned long long)s, &w, &r, &last)))
                break;
            sum += r.mean_turnaround;
            ms_online_workload_fini(&w);
            ms_online_result_fini(&r);
        }
        if (rc && rc != MS_EINFEASIBLE) {
            if (err)
                *err = last;
            return rc;
        }
        if (!rc && sum < best) {
            best = sum;
            chosen = l;
        }
    }
    if (chosen < 0) {
        if (err)
            *err = last;
        return last.code ? last.code : MS_EINFEASIBLE;
    }
    c->layout = chosen;
    return MS_OK;
}
