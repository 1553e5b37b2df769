/* offline.h: batch (offline) schedulers behind one entry point: FAR (paper 000) with its
 * refinement and multi-batch concatenation; baselines register further names. */
#ifndef MIGSCHED_OFFLINE_H
#define MIGSCHED_OFFLINE_H

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
/* "trivial", "reverse" or "overlap"; returns -1 for anything else. */
int ms_concat_parse(const char *text);
const char *ms_concat_name(ms_concat_mode m);

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

/* Runs algorithm `algo` (e.g. "far", "far-norefine") on `gpus` GPUs of the model. The
 * schedule carries stats: compute_seconds and the algorithm's own counters. */
int ms_offline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                        int gpus, const ms_offline_options *opt, ms_schedule **out,
                        ms_error *err);

/* FAR itself (paper 000 sections 3-4); opt->refine chooses phase 3. Stats: allocations
 * (family size), evaluated (allocations run through Algorithm 1), makespan_phase2, moves,
 * swaps, refine_iterations; with batches also batches, makespan_trivial, makespan_reverse,
 * p_rev and p_move_swap (percent, paper 000 6.7.1), concat_moves, concat_swaps. */
int ms_far_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                    const ms_offline_options *opt, ms_schedule **out, ms_error *err);

/* Paper 000's execution report: per GPU, the repartitioning tree with each instance's
 * tasks and their end times, `Node(start=0, size=2, tasks=[...], ends=[...])`, children
 * indented under their parent. Works for any schedule whose instances sit on the tree. */
void ms_far_tree_print(const ms_schedule *s, const ms_workload *w, FILE *f);

#endif
