/* bench_baselines.c: computing time of MISO-OPT, FIXPART(1,...,1), FIXPARTBEST, NOMIG and
 * FAR by workload size (MIXEDSCALING, WIDETIMES, A100-40GB, fixed seeds; paper 000 6.5.2
 * reports 9-13 ms at n = 15 and 0.9-1.1 s at n = 1000 for its baselines), and the wall time
 * of one `experiment --table sigma` cell. Prints sizes and times; asserts nothing. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "migsched/offline.h"

/* Mean seconds per run over `nw` workloads of n tasks, repeated until ~0.2 s each. */
static double time_algo(const char *algo, const ms_gpu_model *gpu, int n, int nw)
{
    double total = 0;
    long runs = 0;
    for (int k = 0; k < nw; k++) {
        ms_workload *w = bench_generate_seeded("bench_baselines", gpu, "MIXEDSCALING,WIDETIMES", n,
                                               1000 + (uint64_t)k);
        double t0 = bench_now(), t;
        do {
            ms_schedule *s = NULL;
            ms_error err;
            if (ms_offline_schedule(algo, w, gpu, 1, NULL, &s, &err)) {
                fprintf(stderr, "bench_baselines: %s: %s\n", algo, err.msg);
                exit(1);
            }
            ms_schedule_free(s);
            runs++;
            t = bench_now() - t0;
        } while (t < 0.2 / nw);
        total += t;
        ms_workload_free(w);
    }
    return total / runs;
}

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    static const char *const algos[] = {"miso", "fixpart:1-1-1-1-1-1-1", "fixpartbest", "nomig",
                                        "far"};
    static const int ns[] = {15, 100, 1000, 10000};
    printf("bench_baselines: A100-40GB, MIXEDSCALING,WIDETIMES, mean ms per schedule\n");
    printf("%8s", "n");
    for (int a = 0; a < 5; a++)
        printf(" %22s", algos[a]);
    printf("\n");
    for (int i = 0; i < 4; i++) {
        printf("%8d", ns[i]);
        for (int a = 0; a < 5; a++)
            printf(" %22.4f", 1e3 * time_algo(algos[a], gpu, ns[i], ns[i] >= 1000 ? 2 : 8));
        printf("\n");
    }
    ms_experiment e;
    ms_experiment_result r = {0};
    ms_error err;
    if (ms_experiment_init(&e, "sigma", gpu, &err) ||
        ms_experiment_set_rows(&e, "MIXEDSCALING,WIDETIMES", &err)) {
        fprintf(stderr, "bench_baselines: %s\n", err.msg);
        return 1;
    }
    e.threads = 1;
    double t0 = bench_now();
    if (ms_experiment_run(&e, NULL, NULL, NULL, &r, &err)) {
        fprintf(stderr, "bench_baselines: %s\n", err.msg);
        return 1;
    }
    printf("experiment sigma, one cell (1000 datasets of 15 tasks, 5 algorithms + 19 FIXPART"
           " each), 1 thread: %.2f s\n",
           bench_now() - t0);
    ms_experiment_result_fini(&r);
    return 0;
}
