/* bench_util.h: helpers the benchmarks share: clocks, and generated workloads that exit
 * on error (benchmarks have no caller to hand an error back to). */
#ifndef MIGSCHED_BENCH_UTIL_H
#define MIGSCHED_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "migsched/workload.h"

/* Seconds on clock `id`: CLOCK_MONOTONIC is wall time, CLOCK_PROCESS_CPUTIME_ID this
 * process's CPU time (what the machine's load does not inflate). */
static inline double bench_clock(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Wall-clock seconds. */
static inline double bench_now(void) { return bench_clock(CLOCK_MONOTONIC); }

/* n tasks generated from `presets` with rng; prints "<who>: <error>" and exits on failure. */
static inline ms_workload *bench_generate(const char *who, const ms_gpu_model *gpu,
                                          const char *presets, int n, ms_rng *rng)
{
    ms_gen_params p;
    ms_workload *w = NULL;
    ms_error err;
    if (ms_gen_preset(gpu, presets, &p, &err) || ms_generate(gpu, &p, n, rng, &w, &err)) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        exit(1);
    }
    return w;
}

/* bench_generate from a fresh RNG seeded with `seed`. */
static inline ms_workload *bench_generate_seeded(const char *who, const ms_gpu_model *gpu,
                                                 const char *presets, int n, uint64_t seed)
{
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    return bench_generate(who, gpu, presets, n, &rng);
}

#endif
