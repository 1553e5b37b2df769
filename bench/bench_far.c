/* bench_far.c: FAR's computing time by workload size (paper 000 6.5: MIXEDSCALING with
 * WIDETIMES on an A100, fixed seeds), its peak memory, and the multi-batch concatenation
 * time for batches of 30 and 1000 tasks. Prints sizes, times and ratios; asserts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench_util.h"
#include "migsched/offline.h"

/* Mean seconds per run of `algo` over `reps` runs on each of `nw` workloads (wall; *cpu
 * gets the CPU time). */
static double time_far(const char *algo, const ms_gpu_model *gpu, int n, int nw, int reps,
                       const ms_offline_options *o, double *rho, double *cpu)
{
    double total = 0, rsum = 0, ctotal = 0;
    for (int k = 0; k < nw; k++) {
        ms_workload *w = bench_generate_seeded("bench_far", gpu, "MIXEDSCALING,WIDETIMES", n,
                                               1000 + (uint64_t)k);
        ms_schedule *s = NULL;
        ms_error err;
        double t0 = bench_clock(CLOCK_MONOTONIC), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
        for (int r = 0; r < reps; r++) {
            ms_schedule_free(s);
            if (ms_offline_schedule(algo, w, gpu, 1, o, &s, &err)) {
                fprintf(stderr, "bench_far: %s\n", err.msg);
                exit(1);
            }
        }
        total += bench_clock(CLOCK_MONOTONIC) - t0;
        ctotal += bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
        rsum += ms_schedule_makespan(s) / ms_bound_baseline(w, gpu, 1);
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    *rho = rsum / nw;
    *cpu = ctotal / ((double)nw * reps);
    return total / ((double)nw * reps);
}

static void concat_bench(const ms_gpu_model *gpu, int per_batch, int batches)
{
    ms_workload *w = bench_generate_seeded("bench_far", gpu, "MIXEDSCALING,WIDETIMES",
                                           per_batch * batches, 77);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = per_batch;
    printf("  N=%-5d batches=%-4d", per_batch, batches);
    double base = 0;
    for (int m = MS_CONCAT_TRIVIAL; m <= MS_CONCAT_OVERLAP; m++) {
        o.far.concat = (ms_concat_mode)m;
        ms_schedule *s = NULL;
        ms_error err;
        if (ms_offline_schedule("far", w, gpu, 1, &o, &s, &err)) {
            fprintf(stderr, "bench_far: %s\n", err.msg);
            exit(1);
        }
        double per = ms_schedule_stat(s, "concat_seconds") / (batches - 1);
        double ms = ms_schedule_makespan(s);
        if (m == MS_CONCAT_TRIVIAL)
            base = ms;
        printf("  %s: %.3f ms/concat, makespan %.1f (%+.2f%%)", ms_concat_name(o.far.concat),
               per * 1e3, ms, (base / ms - 1) * 100);
        ms_schedule_free(s);
    }
    printf("\n");
    ms_workload_free(w);
}

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    static const int sizes[] = {15, 100, 500, 1000, 5000, 20000};
    ms_offline_options o;
    ms_offline_options_init(&o);
    double load[3] = {0};
    FILE *la = fopen("/proc/loadavg", "r");
    if (la) {
        if (fscanf(la, "%lf %lf %lf", &load[0], &load[1], &load[2]) != 3)
            load[0] = -1;
        fclose(la);
    }
    printf("bench_far: FAR on %s, MIXEDSCALING,WIDETIMES, seeds 1000.. (load average %.2f)\n",
           gpu->name, load[0]);
    printf("  mean time per schedule, wall (cpu); paper's C++: 12 ms at n=100, 530 ms at 500,\n"
           "  1621 ms at 1000\n");
    printf("  %6s %6s %24s %24s %8s\n", "n", "runs", "far", "far-norefine", "rho");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        int nw = n <= 100 ? 20 : n <= 1000 ? 5 : 2;
        int reps = n <= 15 ? 2000 : n <= 100 ? 200 : n <= 1000 ? 20 : 3;
        double rho, rho2, c, c2;
        double t = time_far("far", gpu, n, nw, reps, &o, &rho, &c);
        double t2 = time_far("far-norefine", gpu, n, nw, reps, &o, &rho2, &c2);
        printf("  %6d %6d %10.1f us (%8.1f us) %10.1f us (%8.1f us) %8.4f\n", n, nw * reps, t * 1e6,
               c * 1e6, t2 * 1e6, c2 * 1e6, rho);
    }
    printf("multi-batch concatenation (A100, FAR per batch, 20 batches):\n");
    concat_bench(gpu, 30, 20);
    concat_bench(gpu, 1000, 20);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("peak memory (max RSS): %.1f MiB\n", ru.ru_maxrss / 1024.0);
    return 0;
}
