/* bench_search.c: the search scheduler's makespan gain over FAR as a function of its budget
 * (1, 10, 100 ms per batch), on batches of 14 tasks of paper 001's workload types and the
 * pathological set, A100-40GB, fixed seeds; with the CPU time per schedule, which shows how
 * the work budget maps to this machine's milliseconds. Prints; asserts nothing. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "migsched/offline.h"

#define WORKLOADS 20

static ms_schedule *schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                             const ms_offline_options *o)
{
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_offline_schedule(algo, w, gpu, 1, o, &s, &err)) {
        fprintf(stderr, "bench_search: %s: %s\n", algo, err.msg);
        exit(1);
    }
    return s;
}

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    static const char *const rows[] = {"POORSCALING",
                                       "GOODSCALING",
                                       "MIXSCALINGUNIFORM",
                                       "MIXSCALINGEXTREME",
                                       "MIXSCALINGUNIFORM,WIDETIMES",
                                       "PATHO4"};
    static const double budgets[] = {1, 10, 100};
    printf("bench_search: A100-40GB, %d batches of 14 tasks per workload type; makespan gain\n"
           "over FAR (mean %%, 100 * (FAR / search - 1)) and CPU ms per schedule\n",
           WORKLOADS);
    printf("%-30s", "workload");
    for (int b = 0; b < 3; b++)
        printf("  %6s@%-3g %7s", "gain", budgets[b], "cpu_ms");
    printf("\n");
    for (int r = 0; r < 6; r++) {
        printf("%-30s", rows[r]);
        for (int b = 0; b < 3; b++) {
            double gain = 0, cpu = 0;
            for (int k = 0; k < WORKLOADS; k++) {
                ms_workload *w = bench_generate_seeded("bench_search", gpu, rows[r], 14,
                                                       500 + (uint64_t)k);
                ms_offline_options o;
                ms_offline_options_init(&o);
                o.search.time_budget_ms = budgets[b];
                ms_schedule *far = schedule("far", w, gpu, &o);
                double t0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
                ms_schedule *s = schedule("search", w, gpu, &o);
                cpu += bench_clock(CLOCK_PROCESS_CPUTIME_ID) - t0;
                gain += (ms_schedule_makespan(far) / ms_schedule_makespan(s) - 1) * 100;
                ms_schedule_free(far);
                ms_schedule_free(s);
                ms_workload_free(w);
            }
            printf("  %10.2f %7.2f", gain / WORKLOADS, cpu / WORKLOADS * 1e3);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
