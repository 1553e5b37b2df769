/* bench_cosched.c: running time of the polynomial co-scheduling algorithms at n = 50, 100,
 * 200 (paper 003 Fig. 15; target: under a second at n = 200), and their quality. */
#include <stdio.h>

#include "bench_util.h"
#include "migsched/cosched.h"

int main(void)
{
    static const int sizes[] = {50, 100, 200};
    static const int algos[] = {MS_COSCHED_PLP, MS_COSCHED_CATERPILLAR, MS_COSCHED_NONPREEMPTIVE,
                                MS_COSCHED_MAXPAIR, MS_COSCHED_SEQUENTIAL};
    const int reps = 3;
    ms_rng r;
    ms_rng_seed(&r, 42);
    ms_cosched_instance *cat = ms_cosched_catalogue_synthetic(60, &r);
    printf("%-9s %5s %-14s %12s %10s %12s\n", "setting", "n", "algorithm", "seconds(avg)", "ratio",
           "preempt/n");
    for (int setting = 0; setting < 3; setting++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            ms_cosched_instance *in[3];
            ms_cosched_lp lp[3];
            for (int k = 0; k < reps; k++) {
                ms_cosched_generate(cat, setting, sizes[si], &r, &in[k], NULL);
                ms_cosched_plp(in[k], &lp[k], NULL);
            }
            for (size_t a = 0; a < sizeof algos / sizeof algos[0]; a++) {
                double secs = 0, ratio = 0, ppt = 0;
                for (int k = 0; k < reps; k++) {
                    ms_cosched_schedule *s;
                    ms_error err;
                    double t0 = bench_now();
                    if (ms_cosched_run(in[k], algos[a], 0, &s, &err)) {
                        fprintf(stderr, "bench_cosched: %s\n", err.msg);
                        return 1;
                    }
                    secs += bench_now() - t0;
                    ratio += ms_cosched_makespan(s) / lp[k].makespan;
                    ppt += (double)ms_cosched_preemptions(s, NULL) / sizes[si];
                    ms_cosched_schedule_free(s);
                }
                printf("%-9s %5d %-14s %12.4f %10.4f %12.4f\n", ms_cosched_setting_name(setting),
                       sizes[si], ms_cosched_algo_name(algos[a]), secs / reps, ratio / reps,
                       ppt / reps);
            }
            for (int k = 0; k < reps; k++) {
                ms_cosched_lp_fini(&lp[k]);
                ms_cosched_instance_free(in[k]);
            }
        }
    ms_cosched_instance_free(cat);
    return 0;
}
