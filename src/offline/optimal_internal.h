/* optimal_internal.h: the exact scheduler's problem tables and search state, shared by the
 * branch and bound (optimal_search.c), its run below an incumbent as a schedule
 * (optimal_improve.c) and the entry point (optimal.c). docs/optimal.md gives the schedule
 * class and why it holds an optimum. */
#ifndef MIGSCHED_OPTIMAL_INTERNAL_H
#define MIGSCHED_OPTIMAL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/offline.h"

#define OPT_MAX_TASKS 64
#define OPT_MAX_PL    (MS_MAX_SLOTS * MS_MAX_PROFILES)
#define OPT_MAX_AUTO  1024 /* slot permutations kept as symmetries */
#define OPT_MAX_STEPS (OPT_MAX_TASKS + MS_MAX_SLOTS)
#define OPT_MAX_SETS  (1u << MS_MAX_SLICES)

_Static_assert(MS_MAX_SLOTS <= 8, "a set of slots is a byte in auto_used");

/* One decision: an instance at placement pl running the tasks of mask `tasks` back to back
 * (ascending index); initial = one of the layout's instances (no creation; its tasks, maybe
 * none, from when it is free), else created once the live instances overlapping it are
 * destroyed. */
typedef struct opt_step {
    int pl;
    bool initial;
    uint64_t tasks;
} opt_step;

typedef struct opt_live {
    int pl;
    int step; /* the step that made it: tie-break among equal finish times */
    double f; /* when its last task ends */
} opt_live;

typedef struct opt_problem {
    const ms_gpu_model *g;
    const ms_workload *w;
    int n;
    /* candidate placements (0..ncand-1: one per slot mask and size, the fewest slots), then
     * the layout's placements that are not candidates (never created) */
    int ncand, npl;
    ms_placement pl[OPT_MAX_PL];
    uint32_t mask[OPT_MAX_PL];
    int size[OPT_MAX_PL];
    int nslots[OPT_MAX_PL];   /* slots each holds */
    int noverlap[OPT_MAX_PL]; /* the placements whose slots meet each one's */
    uint8_t overlap[OPT_MAX_PL][OPT_MAX_PL];
    double create[OPT_MAX_PL], destroy[OPT_MAX_PL]; /* the model's times, looked up once */
    /* geometry symmetries: the image of each set of slots and the placement permutation */
    int nauto;
    uint8_t (*auto_used)[1 << MS_MAX_SLOTS]; /* the image of each set of slots */
    int (*auto_pl)[OPT_MAX_PL];
    double t[OPT_MAX_TASKS][MS_MAX_SLICES + 1];
    int same_prev[OPT_MAX_TASKS];      /* previous task with identical times, -1 if none */
    int same_next[OPT_MAX_TASKS];      /* next task with identical times, -1 if none */
    int size_slots[MS_MAX_SLICES + 1]; /* fewest slots an instance of each size holds */
    int slice_cap;                     /* most slices a feasible set holds */
    double min_create_area;            /* least s * create(s) over candidate sizes */
    /* l_bound terms per set of sizes S: coef[i][S] = min_{s in S} weight_S(s) t_i(s) */
    unsigned nsets;
    double set_create[OPT_MAX_SETS];
    double (*coef)[OPT_MAX_SETS];
    /* the layout before the plan, in slot order: placement, busy until, and the symmetries
     * that map it onto itself (as a permutation of its instances) */
    int ninit;
    int init_pl[MS_MAX_SLOTS];
    double init_busy[MS_MAX_SLOTS];
    unsigned init_sizes[MS_MAX_SLOTS]; /* bit k: size g->sizes[k] (as l_bound's sets) */
    int ninit_auto;
    int (*init_perm)[MS_MAX_SLOTS]; /* init_perm[a][q]: the instance whose image is q */
    /* the packing bound: most instances of at least g->sizes[k] slices that coexist */
    int pack_machines[MS_MAX_SLICES];
    /* its bins (two weightings of the slots): how many, per size index the least an
     * instance holds, per placement what it holds */
    int bin_count[2], bin_weight[2][MS_MAX_SLICES], bin_held[2][OPT_MAX_PL];
    bool no_rules;  /* tests: bounds only, no dominance or symmetry pruning */
    bool no_pack;   /* tests: without the packing bound */
    bool no_assign; /* tests: without the slot-assignment bound */
    /* limits and results */
    long node_limit;
    double deadline; /* CLOCK_MONOTONIC seconds; 0 = none */
    long nodes;
    bool stopped;
    double best;                     /* makespan of the best schedule known */
    double proved_below;             /* no schedule is shorter than this */
    uint64_t init_key[MS_MAX_SLOTS]; /* initial phase: each instance's task classes */
    int best_len;                    /* -1: the incumbent (not a search path) */
    opt_step best_path[OPT_MAX_STEPS];
    int len;
    opt_step path[OPT_MAX_STEPS];
} opt_problem;

/* Fills the tables for w on g from the layout `initial` (NULL: empty); MS_EINVAL when w has
 * more than OPT_MAX_TASKS tasks or the layout holds an instance off GPU 0. */
int opt_problem_init(opt_problem *o, const ms_workload *w, const ms_gpu_model *g,
                     const ms_initial *initial, ms_error *err);
void opt_problem_free(opt_problem *o);

/* optimal_pack.c: fills slice_cap and the packing bounds' tables (pack_machines, the bins)
 * from the candidate placements. */
void opt_pack_init(opt_problem *o);

/* The packing bounds under the cut-off c: true when no completion ends before c. ready[s]:
 * the earliest start of a task on size s; rem: the tasks not yet on an instance; live: the
 * instances whose task sets are fixed, busy until their f. */
bool opt_pack_cuts(const opt_problem *o, const double *ready, uint64_t rem, const opt_live *live,
                   int nlive, double c);

/* optimal_assign.c: the slot-assignment bound under the cut-off c, once every remaining task
 * (rem) runs on an instance still to be created: true when no completion ends before c.
 * chain[p]: when the destructions before a creation at candidate p can end at the earliest. */
bool opt_assign_cuts(const opt_problem *o, const double *chain, uint64_t rem, double c);

/* Runs the branch and bound below o->best; improves best/best_path. */
void opt_search(opt_problem *o);
/* CLOCK_MONOTONIC in seconds: the clock of o->deadline. */
double opt_now_s(void);

/* Destroys the live instances overlapping placement p in order of finish time, the first
 * starting at R; returns when the last one ends (R if none). keep[] receives the live
 * instances that stay; start/end (may be NULL) each destroyed one's times, by live index. */
double opt_clear(const opt_problem *o, const opt_live *live, int nlive, int p, double R,
                 opt_live *keep, int *nkeep, double *start, double *end);

/* optimal_improve.c: runs the branch and bound below `incumbent` (INFINITY: none) with o's
 * limits; *out gets the best schedule it found, NULL when it found none shorter. */
int opt_search_below(opt_problem *o, double incumbent, ms_schedule **out);

/* The branch and bound from the layout `initial` (NULL: empty) below `incumbent` (a
 * makespan; INFINITY: none), stopped after node_limit nodes (0: none), without the
 * heuristics' incumbent: *out gets the best schedule found shorter than incumbent, or NULL;
 * *nodes the nodes expanded. For search's exact phase on small batches. */
int opt_improve(const ms_workload *w, const ms_gpu_model *gpu, const ms_initial *initial,
                double incumbent, long node_limit, ms_schedule **out, long *nodes, ms_error *err);

#endif
