/* bench_hier.c: CPU time of the exhaustive co-scheduling policies of paper 004 per window
 * (W = 8, 12, 16; C_max = 4) on modelled catalogue mixes, and their throughput. */
#include <stdio.h>

#include "bench_util.h"
#include "migsched/hier.h"

int main(void)
{
    static const int sizes[] = {8, 12, 16};
    static const ms_hier_policy pols[] = {MS_HIER_MIG2, MS_HIER_MPS, MS_HIER_DEFAULT,
                                          MS_HIER_OPTIMAL};
    const int reps = 4;
    ms_hier_catalog cat;
    ms_error err;
    if (ms_hier_catalog_builtin(&cat, &err))
        return 1;
    ms_hier_corun *cr = ms_hier_corun_model(NULL);
    ms_rng r;
    ms_rng_seed(&r, 7);
    printf("%4s %-9s %16s %12s   (modelled catalogue, C_max 4, %d balanced mixes)\n", "W", "policy",
           "cpu s/window", "throughput", reps);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        ms_hier_window w[4];
        for (int k = 0; k < reps; k++)
            if (ms_hier_window_mix(&cat, MS_HIER_MIX_BALANCED, (size_t)sizes[si], -1, &r, &w[k],
                                   &err)) {
                fprintf(stderr, "bench_hier: %s\n", err.msg);
                return 1;
            }
        for (size_t p = 0; p < sizeof pols / sizeof pols[0]; p++) {
            double cpu = 0, thr = 0;
            for (int k = 0; k < reps; k++) {
                ms_hier_plan plan;
                ms_hier_metrics m;
                double t0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
                if (ms_hier_solve(&w[k], cr, 4, pols[p], MS_HIER_PRIVATE, &plan, &err)) {
                    fprintf(stderr, "bench_hier: %s\n", err.msg);
                    return 1;
                }
                cpu += bench_clock(CLOCK_PROCESS_CPUTIME_ID) - t0;
                ms_hier_plan_metrics(&plan, &w[k], &m, NULL);
                thr += m.throughput;
                ms_hier_plan_fini(&plan);
            }
            printf("%4d %-9s %16.4f %12.3f\n", sizes[si], ms_hier_policy_name(pols[p]), cpu / reps,
                   thr / reps);
        }
        for (int k = 0; k < reps; k++)
            ms_hier_window_fini(&w[k]);
    }
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return 0;
}
