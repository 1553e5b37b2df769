/* bench_optimal.c: the exact scheduler's time to proof by batch size, one batch per
 * generator preset (fixed seeds), each stopped after a node limit (whether one is proved then
 * does not depend on the machine) or, with --limit-s, after S seconds of wall-clock time.
 * Prints per n how many were proved, the CPU seconds to proof (median, largest), the nodes,
 * and FAR's gap to the proved optimum; with -v, each batch's CPU seconds, nodes and optimum
 * too (before/after comparisons on the same batches).
 * Arguments: [-v] [--gpu NAME] [--initial LAYOUT] [--limit-s S] [N_MIN [N_MAX]] (default
 * A100-40GB, an empty GPU, 4 to 10; n at most 12). Asserts nothing. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "migsched/offline.h"

#define NODE_LIMIT 40000000L
#define N_LARGEST  12

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

static int usage(const char *why)
{
    fprintf(stderr,
            "bench_optimal: %s\nusage: bench_optimal [-v] [--gpu NAME] "
            "[--initial LAYOUT] [--limit-s S] [N_MIN [N_MAX]] (1 <= N_MIN <= N_MAX <= %d)\n",
            why, N_LARGEST);
    return 2;
}

int main(int argc, char **argv)
{
    int verbose = 0, n_min = 4, n_max = 10, nargs = 0;
    const char *gpu_name = "A100-40GB", *layout_text = "empty";
    double limit_s = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-v"))
            verbose = 1;
        else if (!strcmp(argv[a], "--gpu") && a + 1 < argc)
            gpu_name = argv[++a];
        else if (!strcmp(argv[a], "--initial") && a + 1 < argc)
            layout_text = argv[++a];
        else if (!strcmp(argv[a], "--limit-s") && a + 1 < argc) {
            limit_s = atof(argv[++a]);
            if (!(limit_s > 0))
                return usage("--limit-s takes a positive number of seconds");
        } else if (argv[a][0] != '-' && nargs < 2)
            *(nargs++ ? &n_max : &n_min) = atoi(argv[a]);
        else
            return usage("unknown or incomplete argument");
    }
    if (nargs == 1 && n_max < n_min)
        n_max = n_min; /* N_MIN alone above the default range: that n only */
    if (n_min < 1 || n_max < n_min || n_max > N_LARGEST)
        return usage("bad range of n");
    const ms_gpu_model *gpu = ms_gpu_builtin(gpu_name);
    if (!gpu)
        return usage("unknown GPU model");
    ms_initial layout;
    ms_error err;
    if (ms_initial_parse(layout_text, gpu, 1, &layout, &err))
        return usage(err.msg);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.initial = &layout;
    char limit[64];
    if (limit_s > 0) {
        o.optimal.time_budget_ms = limit_s * 1e3;
        snprintf(limit, sizeof limit, "%g s of wall-clock time", limit_s);
    } else {
        o.optimal.node_limit = NODE_LIMIT;
        snprintf(limit, sizeof limit, "%ld nodes", NODE_LIMIT);
    }
    printf("optimal: time to proof on %s from initial layout %s, one batch per preset (%d "
           "presets), at most %s each\n",
           gpu->name, layout_text, NPRESETS, limit);
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
            printf("%4d  %3d/%d  (none proved within the limit)\n", n, proved, NPRESETS);
        fflush(stdout);
    }
    ms_initial_fini(&layout);
    return 0;
}
