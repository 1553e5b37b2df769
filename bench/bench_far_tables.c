/* bench_far_tables.c: paper 000's Tables 6 and 7 for migsched's FAR on an A100-40GB:
 * refinement gain p_ref with moves and swaps (1000 workloads per cell), and p_rev /
 * p_move_swap over 1000 concatenations of two FAR batches. Prints markdown tables. */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "migsched/offline.h"

#define RUNS 1000

static const char *const configs[] = {"POORSCALING,NARROWTIMES",  "POORSCALING,WIDETIMES",
                                      "MIXEDSCALING,NARROWTIMES", "MIXEDSCALING,WIDETIMES",
                                      "GOODSCALING,NARROWTIMES",  "GOODSCALING,WIDETIMES"};
static const int sizes[] = {10, 20, 30};

static ms_schedule *run(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                        const ms_offline_options *o)
{
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_offline_schedule(algo, w, gpu, 1, o, &s, &err)) {
        fprintf(stderr, "bench_far_tables: %s\n", err.msg);
        exit(1);
    }
    return s;
}

/* Table 6: p_ref = (w_noref / w_ref - 1) * 100, moves and swaps, means over RUNS. */
static void refinement(const ms_gpu_model *gpu)
{
    printf("| configuration | n=10 p_ref | moves | swaps | n=20 p_ref | moves | swaps | n=30 p_ref "
           "| moves | swaps |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    ms_offline_options o;
    ms_offline_options_init(&o);
    for (int c = 0; c < 6; c++) {
        printf("| %s |", configs[c]);
        for (int k = 0; k < 3; k++) {
            ms_rng rng;
            ms_rng_seed(&rng, 600 + (uint64_t)(c * 3 + k));
            double p = 0, moves = 0, swaps = 0;
            for (int r = 0; r < RUNS; r++) {
                ms_workload *w = bench_generate("bench_far_tables", gpu, configs[c], sizes[k],
                                                &rng);
                ms_schedule *a = run("far-norefine", w, gpu, &o), *b = run("far", w, gpu, &o);
                p += ms_schedule_makespan(a) / ms_schedule_makespan(b) - 1;
                moves += ms_schedule_stat(b, "moves");
                swaps += ms_schedule_stat(b, "swaps");
                ms_schedule_free(a);
                ms_schedule_free(b);
                ms_workload_free(w);
            }
            printf(" %.2f | %.2f | %.2f |", p * 100 / RUNS, moves / RUNS, swaps / RUNS);
        }
        printf("\n");
    }
}

/* Table 7: two consecutive batches of n tasks (the second reversed), RUNS pairs per cell. */
static void concatenation(const ms_gpu_model *gpu)
{
    printf("| configuration | n=10 p_rev | p_move_swap | moves | swaps | n=20 p_rev | p_move_swap "
           "| moves | swaps | n=30 p_rev | p_move_swap | moves | swaps |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.far.concat = MS_CONCAT_OVERLAP;
    for (int c = 0; c < 6; c++) {
        printf("| %s |", configs[c]);
        for (int k = 0; k < 3; k++) {
            ms_rng rng;
            ms_rng_seed(&rng, 700 + (uint64_t)(c * 3 + k));
            double prev = 0, pms = 0, moves = 0, swaps = 0;
            o.batch = sizes[k];
            for (int r = 0; r < RUNS; r++) {
                ms_workload *w = bench_generate("bench_far_tables", gpu, configs[c], 2 * sizes[k],
                                                &rng);
                ms_schedule *s = run("far", w, gpu, &o);
                prev += ms_schedule_stat(s, "p_rev");
                pms += ms_schedule_stat(s, "p_move_swap");
                moves += ms_schedule_stat(s, "concat_moves");
                swaps += ms_schedule_stat(s, "concat_swaps");
                ms_schedule_free(s);
                ms_workload_free(w);
            }
            printf(" %.2f | %.2f | %.2f | %.2f |", prev / RUNS, pms / RUNS, moves / RUNS,
                   swaps / RUNS);
        }
        printf("\n");
    }
}

int main(void)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    printf("bench_far_tables: paper 000 Table 6 (refinement), %d workloads per cell, %s\n\n", RUNS,
           gpu->name);
    refinement(gpu);
    printf("\nbench_far_tables: paper 000 Table 7 (concatenation of two batches, the second "
           "reversed), %d pairs per cell\n\n",
           RUNS);
    concatenation(gpu);
    return 0;
}
