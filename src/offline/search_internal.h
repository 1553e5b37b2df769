/* search_internal.h: the search scheduler's parts: starting schedules turned into FAR plans,
 * and the budgeted local search over one batch's plan. */
#ifndef MIGSCHED_SEARCH_INTERNAL_H
#define MIGSCHED_SEARCH_INTERNAL_H

#include "far_internal.h"
#include "migsched/rng.h"

/* Work units the local search does per millisecond of budget on the reference machine
 * (docs/search.md, "Budget"); a unit is one tree node or instance an evaluation walks. */
#define SEARCH_UNITS_PER_MS      40000.0
#define SEARCH_DEFAULT_BUDGET_MS 10.0
#define SEARCH_MAX_THREADS       64
/* One GPU, one batch of at most this many tasks: after the local search (its whole budget),
 * the exact solver's branch and bound runs below its best with this many nodes per ms of
 * budget, counted apart from the local search's units (docs/search.md, step 6): at n = 7 a
 * node costs about 2 us and 6,000 nodes prove most batches (EXPERIMENTS.md, search). */
#define SEARCH_EXACT_MAX_N        7
#define SEARCH_EXACT_NODES_PER_MS 600.0
/* From this many tasks the starting schedules take milliseconds (FAR three times), more
 * than a second thread costs to start. */
#define SEARCH_START_PAIR_MIN_TASKS 2000

/* A starting schedule: the algorithm and options that made it, and its makespan. */
typedef struct search_start {
    const char *algo;
    ms_offline_options opt;
    ms_schedule *s;
    double makespan;
} search_start;

typedef struct search_starts {
    int n;
    search_start start[8];
} search_starts;

/* Runs every starting algorithm (FAR, its variants, FIXPARTBEST, miso-eager, rl when
 * opt->rl.model is set) on w with opt; those that find the workload infeasible are left out.
 * Sorted by makespan (ties: table order). */
int search_starts_run(search_starts *st, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      const ms_offline_options *opt, ms_error *err);
void search_starts_free(search_starts *st);
/* Threads that compute the starting schedules of ntasks tasks: the workers' count, but at
 * least two where two CPUs are online and the workload is large enough to repay a thread,
 * since the starts do not depend on the count (docs/search.md, "Threads"). */
int search_start_threads(int threads, int ntasks);

/* Batch 0 of the one-batch plan p (empty) gets s's tasks on the tree nodes of their
 * instances; false (p left empty) when an instance is not a node of the tree. */
bool search_plan_from_schedule(far_plan *p, const ms_schedule *s);

/* Improves the one-batch plan `best` (on p->w, from the GPUs' layout `initial`) for
 * budget_units work units on `threads` threads, each from its own stream of rng seed `seed` and
 * from seeds[t % nseeds]; `best` gets the best plan found. With `one_batch`, the tree order
 * (reversal, the ranks that order simultaneous creations) is searched too. *evaluations and *units
 * are summed over the threads. */
int search_improve(far_plan *best, far_plan *const *seeds, int nseeds, const ms_initial *initial,
                   uint64_t seed, double budget_units, int threads, bool one_batch,
                   long *evaluations, double *units);

#endif
