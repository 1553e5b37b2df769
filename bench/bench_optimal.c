/* bench_optimal.c: the exact scheduler's time to proof by batch size on an A100-40GB, n = 4
 * to 10, one batch per generator preset (fixed seeds), each stopped after a node limit (high
 * enough for every batch here to be proved; whether one is does not depend on the machine). Prints per n how many were proved, the CPU seconds to proof
 * (median, largest), the nodes, and FAR's gap to the proved optimum; with -v, each batch's
 * CPU seconds, nodes and optimum too (before/after comparisons on the same batches).
 * Arguments: [-v] [N_MIN [N_MAX]] (default 4 to 10). Asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "migsched/offline.h"

#define NODE_LIMIT 40000000L

static const char *const presets[] = {"MIXEDSCALING", "POORSCALING", "GOODSCALING",
                                      "MIXSCALINGEXTREME"};
#define NPRESETS (int)(sizeof presets / sizeof presets[0])

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static ms_schedule *run(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                        const ms_offline_options *o)
{
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_offline_schedule(algo, w, gpu, 1, o, &s, &err)) {
        fprintf(stderr, "bench_optimal: %s: %s\n", algo, err.msg);
        exit(1);
    }
    return s;
}

int main(int argc, char **argv)
{
    int verbose = argc > 1 && !strcmp(argv[1], "-v");
    int n_min = argc > 1 + verbose ? atoi(argv[1 + verbose]) : 4;
    int n_max = argc > 2 + verbose ? atoi(argv[2 + verbose]) : 10;
    if (n_min < 1 || n_max < n_min) {
        fprintf(stderr, "usage: bench_optimal [-v] [N_MIN [N_MAX]]\n");
        return 2;
    }
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.node_limit = NODE_LIMIT;
    printf("optimal: time to proof on A100-40GB, one batch per preset (%d presets), at most "
           "%ld nodes each\n", NPRESETS, NODE_LIMIT);
    printf("   n  proved  cpu_s_median  cpu_s_max  wall_s_max  nodes_max  far_gap_%%_mean\n");
    for (int n = n_min; n <= n_max; n++) {
        double cpu[NPRESETS], wall_max = 0, gap = 0, nodes_max = 0;
        int proved = 0;
        for (int k = 0; k < NPRESETS; k++) {
            ms_workload *w = bench_generate_seeded("bench_optimal", gpu, presets[k], n,
                                                   500 + (uint64_t)n);
            double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
            ms_schedule *s = run("optimal", w, gpu, &o);
            double c = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0, t = bench_now() - t0;
            ms_schedule *far = run("far", w, gpu, &o);
            if (verbose)
                printf("      n=%d %-17s proved %.0f  cpu_s %8.3f  nodes %10.0f  makespan %.3f\n",
                       n, presets[k], ms_schedule_stat(s, "proved"), c,
                       ms_schedule_stat(s, "nodes"), ms_schedule_makespan(s));
            if (ms_schedule_stat(s, "proved") == 1) {
                cpu[proved++] = c;
                gap += (ms_schedule_makespan(far) / ms_schedule_makespan(s) - 1) * 100;
                wall_max = fmax(wall_max, t);
                nodes_max = fmax(nodes_max, ms_schedule_stat(s, "nodes"));
            }
            ms_schedule_free(far);
            ms_schedule_free(s);
            ms_workload_free(w);
        }
        qsort(cpu, (size_t)proved, sizeof cpu[0], cmp_double);
        if (proved)
            printf("%4d  %3d/%d  %12.3f  %9.3f  %10.3f  %9.0f  %14.2f\n", n, proved, NPRESETS,
                   cpu[proved / 2], cpu[proved - 1], wall_max, nodes_max, gap / proved);
        else
            printf("%4d  %3d/%d  (none proved within the node limit)\n", n, proved, NPRESETS);
        fflush(stdout);
    }
    return 0;
}
