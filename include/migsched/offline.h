/* offline.h: batch (offline) schedulers behind one entry point: FAR (paper 000) with its
 * refinement and multi-batch concatenation; baselines register further names. */
#ifndef MIGSCHED_OFFLINE_H
#define MIGSCHED_OFFLINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* How the schedules of consecutive batches are joined (paper 000 section 4). */
typedef enum ms_concat_mode {
    MS_CONCAT_TRIVIAL = 0, /* a batch starts once the previous batch's last task ends */
    MS_CONCAT_REVERSE,     /* every other batch reversed, overlapping on free slots (4.2) */
    MS_CONCAT_OVERLAP,     /* reverse, then move/swap tasks to overlap more (4.3) */
} ms_concat_mode;

typedef struct ms_offline_options {
    int refine;                  /* FAR phase 3 on (1) or off (0); "far-norefine" forces 0 */
    int refine_max_iters;        /* iterations of Algorithm 2; 0 = until it stops by itself */
    double refine_min_gain;      /* stop when an iteration gains less than this fraction */
    int batch;                   /* tasks per batch in arrival order; 0 = one batch */
    ms_concat_mode concat;
    int concat_max_ops;          /* move/swap attempts per concatenation; 0 = default 64 */
    uint64_t seed;               /* for randomised algorithms (FAR is deterministic) */
} ms_offline_options;

void ms_offline_options_init(ms_offline_options *o);

/* One scheduling algorithm. A new one is one line in the table of offline.c. */
typedef int (*ms_offline_fn)(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                             const ms_offline_options *opt, ms_schedule **out, ms_error *err);

typedef struct ms_offline_algo {
    const char *name;
    const char *summary;
    ms_offline_fn run;
} ms_offline_algo;

int ms_offline_algo_count(void);
const ms_offline_algo *ms_offline_algo_at(int i);
const ms_offline_algo *ms_offline_find(const char *name);
/* A name in the table or a parametrised baseline ("fixpart:4-2-1"). */
bool ms_offline_known(const char *name);

/* Runs algorithm `algo` (e.g. "far", "miso", "fixpart:3-2-2") on `gpus` GPUs of the
 * model; opt may be NULL (defaults). The schedule carries the stat compute_seconds. */
int ms_offline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                        int gpus, const ms_offline_options *opt, ms_schedule **out,
                        ms_error *err);

/* ---- Baselines (docs/baselines.md) ------------------------------------------------------
 * Each fills *out with a schedule that passes ms_schedule_validate, or returns
 * MS_EINFEASIBLE (with a message naming the task) when the policy cannot run the workload.
 * gpus >= 1 GPUs of the model. */

/* FIXPART(P): partition index `partition` of gpu->partitions set up before the plan on
 * every GPU (no reconfiguration cost); tasks in FIFO order, each on the first instance to
 * become free that can run it. */
int ms_fixpart_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus, int partition,
                        ms_schedule **out, ms_error *err);
/* FIXPARTBEST: FIXPART with the partition giving the lowest makespan (first on ties);
 * infeasible partitions are skipped. Stat "partition" = the 1-based partition chosen. */
int ms_fixpartbest_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                            ms_schedule **out, ms_error *err);
/* NOMIG: each GPU whole (its largest instance, present from the start), FIFO. */
int ms_nomig_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      ms_schedule **out, ms_error *err);
/* MISO-OPT: FIFO rounds; each round takes the partition maximising the summed speedups
 * t(1)/t(s) of the next |P| tasks under their best assignment, reconfigures only the
 * instances that change, and ends when its tasks are done. Stat "rounds". */
int ms_miso_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                     ms_schedule **out, ms_error *err);

/* By name: "miso", "nomig", "fixpartbest", "fixpart:4-2-1" or "fixpart:<1-based index>". */
bool ms_baseline_known(const char *algo);
int ms_baseline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                         int gpus, ms_schedule **out, ms_error *err);

#endif
