/* offline.h: batch (offline) schedulers behind one entry point: FAR (paper 000) with its
 * refinement and multi-batch concatenation; baselines register further names. */
#ifndef MIGSCHED_OFFLINE_H
#define MIGSCHED_OFFLINE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/learn.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* How the schedules of consecutive batches are joined (paper 000 section 4). */
typedef enum ms_concat_mode {
    MS_CONCAT_TRIVIAL = 0, /* a batch starts once the previous batch's last task ends */
    MS_CONCAT_REVERSE,     /* every other batch reversed, overlapping on free slots (4.2) */
    MS_CONCAT_OVERLAP,     /* reverse, then move/swap tasks to overlap more (4.3) */
} ms_concat_mode;

/* FAR's settings (paper 000), also read by what runs FAR or joins batches as it does (the
 * learned scheduler's guard and queues, search's starts, ms_schedule_join). */
typedef struct ms_far_options {
    int refine;             /* FAR phase 3 on (1) or off (0); "far-norefine" forces 0 */
    int refine_max_iters;   /* iterations of Algorithm 2; 0 = until it stops by itself */
    double refine_min_gain; /* stop when an iteration gains less than this fraction */
    ms_concat_mode concat;
    int concat_max_ops;  /* move/swap attempts per concatenation; 0 = default 64 */
    int paper_family;    /* 1: FAR walks only paper 000's family of allocations; 0
                          * (default): it also tries every task on the whole GPU */
    int four_runs_three; /* FAR: the 4-slice instance also runs 3-slice tasks (at its
                          * own 4-slice times) before it is split (paper 000 3.2 read
                          * literally); 0 (default): it is replaced by 3g@0 */
    int tie_right_first; /* FAR: equal end times in Algorithm 1 go to the tree's right
                          * branch first (3g@4 before 3g@0); 0 (default): preorder */
} ms_far_options;

/* The learned scheduler's settings ("rl"). */
typedef struct ms_rl_options {
    const char *model; /* the policy file (models/a100-*.bin) */
    int online;        /* online batches (paper 001 section 3) */
    int queue;         /* how a queue longer than the policy's N is planned
                        * (ms_rl_queue_mode; ms_rl_options_init sets the default) */
    int no_guard;      /* the agent's plan alone; 0 (default): the better of the
                        * agent's and FAR's plan of the queue */
    int rollout;       /* 0 or 1 the policy's greedy actions; K > 1 the policy
                        * improved by rollout over its K best actions
                        * (MS_RL_ROLLOUT_ALL, -1: all of them) where their logits
                        * are within rollout_gap of the greedy one's (INFINITY: at
                        * every decision; NAN: the policy's calibrated gap);
                        * ms_rl_options_init sets MS_RL_ROLLOUT_DEFAULT (learn_sched.h)
                        * and NAN */
    float rollout_gap;
} ms_rl_options;

/* The search scheduler's settings ("search"). */
typedef struct ms_search_options {
    double time_budget_ms; /* budget per batch in milliseconds; 0 = the default */
    int threads;           /* worker threads; 0 or 1 = one */
} ms_search_options;

/* The exact scheduler's settings ("optimal"); 0 = no limit. */
typedef struct ms_optimal_options {
    double time_budget_ms; /* budget in milliseconds */
    long node_limit;       /* branch-and-bound nodes */
} ms_optimal_options;

/* Every algorithm's settings: the common ones, then each algorithm's own. */
typedef struct ms_offline_options {
    int batch;                 /* tasks per batch in arrival order; 0 = one batch */
    uint64_t seed;             /* for randomised algorithms (FAR is deterministic) */
    const ms_initial *initial; /* what the GPUs hold before the plan (DESIGN.md); NULL:
                                * empty. Every algorithm plans from it. */
    ms_far_options far;
    ms_rl_options rl;
    ms_search_options search;
    ms_optimal_options optimal;
} ms_offline_options;

/* Queues longer than a policy's batch N (docs/rl.md, "Queues of any length"). */
typedef enum ms_rl_queue_mode {
    MS_RL_QUEUE_FILL = 0,  /* the batch is refilled from the queue as tasks are placed */
    MS_RL_QUEUE_SPLIT = 1, /* balanced batches of at most N, joined by FAR's overlap
                            * concatenation (paper 000 4.3) */
    MS_RL_QUEUE_BEST = 2,  /* both, the shorter plan (the default) */
} ms_rl_queue_mode;

/* Each sets its algorithm's defaults: FAR refines and joins batches trivially; rl plans
 * long queues both ways (MS_RL_QUEUE_BEST) and rolls out as MS_RL_ROLLOUT_DEFAULT with the
 * policy's gap; search and optimal take their own defaults (0). ms_offline_options_init
 * sets the common settings to 0 (one batch, empty GPUs) and calls the four. */
void ms_far_options_init(ms_far_options *o);
void ms_rl_options_init(ms_rl_options *o);
void ms_search_options_init(ms_search_options *o);
void ms_optimal_options_init(ms_optimal_options *o);
void ms_offline_options_init(ms_offline_options *o);
/* "fill", "split" or "best"; returns -1 for anything else. */
int ms_rl_queue_parse(const char *text);
const char *ms_rl_queue_name(ms_rl_queue_mode m);
/* "trivial", "reverse" or "overlap"; returns -1 for anything else. */
int ms_concat_parse(const char *text);
const char *ms_concat_name(ms_concat_mode m);

/* One scheduling algorithm. A new one is one line in the table of offline.c (and a wrapper in
 * offline_algos.c when its own function takes other arguments). */
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
/* A name in the table or a parametrised baseline ("fixpart:4-2-1", "fixpart:3"). */
bool ms_offline_known(const char *name);

/* Runs algorithm `algo` (e.g. "far", "far-norefine", "miso", "fixpart:4-2-1") on `gpus` GPUs of the
 * model. The schedule carries stats: compute_seconds and the algorithm's own counters. */
int ms_offline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err);

/* FAR itself (paper 000 sections 3-4); opt->far.refine chooses phase 3. Stats: allocations
 * (family size), evaluated (allocations run through Algorithm 1), makespan_phase2, moves,
 * swaps, refine_iterations; with batches also batches, makespan_trivial, makespan_reverse,
 * p_rev and p_move_swap (percent, paper 000 6.7.1), concat_moves, concat_swaps. */
int ms_far_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                    const ms_offline_options *opt, ms_schedule **out, ms_error *err);
/* FAR with the default options on one GPU: the default demonstrator of `train
 * --demonstrate-share` (ms_train_config.demonstrator). */
int ms_far_plan(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out, ms_error *err);

/* Paper 000 section 4's concatenation of a batch planned while another plan runs
 * (src/offline/concat_join.c, docs/daemon.md): `next` (the batch's plan from time 0 on the
 * same GPUs, its tasks indexing next_w) is joined to `run` (NULL: none), whose instances and
 * tasks stay as they are, with nothing of the batch before `now` (run's clock). The batch
 * keeps its structure and is retimed: trivial (opt->far.concat) after run's last task and
 * operation; reverse: as soon as its slots are free, as planned or mirrored (4.2),
 * whichever ends first; overlap: then moves and swaps of the batch's own tasks between its
 * same-size instances (4.3, at most opt->far.concat_max_ops), each kept only if the joint
 * makespan drops; never a plan ending later than trivial. run's instances left alive are
 * destroyed once idle where the batch needs their slots. A batch planned from
 * ms_schedule_join_layout's layout lists those instances as initial (no creation): its
 * tasks on one run on that very instance after run's tasks there, one it destroys is
 * destroyed as planned, and such a batch is not mirrored; an initial instance run does not
 * hold is created like the others when it has tasks, else left out. The joint plan's task
 * indices are run's, then next's shifted by base_task. Stats: makespan_trivial,
 * makespan_reverse, makespan_overlap, concat_moves, concat_swaps, concat_used, reversed. */
int ms_schedule_join(const ms_schedule *run, double now, const ms_schedule *next,
                     const ms_workload *next_w, int base_task, const ms_offline_options *opt,
                     ms_schedule **out, ms_error *err);
/* What run (NULL: none) leaves on the GPUs for a batch planned at `now` (run's clock), as
 * that batch's initial layout (out: initialised by the caller, added to): every instance
 * alive at run's end, busy until its last task's end (its creation's when it has none) less
 * now, 0 once past. */
int ms_schedule_join_layout(const ms_schedule *run, double now, ms_initial *out, ms_error *err);

/* The search scheduler (docs/search.md): local search over task sizes, order and
 * reconfigurations from the best of FAR, FIXPARTBEST, miso-eager and (with opt->rl.model) the
 * learned policy, within opt->search.time_budget_ms per batch (a deterministic work budget) on
 * opt->search.threads threads, and on one GPU with at most 6 tasks the exact solver's branch and
 * bound below its best with half the budget; never worse than its best starting schedule.
 * Deterministic for a seed and thread count. Stats: evaluations, work_units, nodes,
 * budget_ms, threads, seeds, start_makespan, from_start (1: no search plan beat the best
 * starting schedule). */
int ms_search_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_offline_options *opt, ms_schedule **out, ms_error *err);
/* The search with the default options (10 ms of work, one thread) on one GPU: a
 * demonstrator of `train --demonstrator search`. */
int ms_search_plan(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out, ms_error *err);

/* The learned scheduler of paper 001 (src/learn) on one GPU: opt->rl.model names the
 * policy file, opt->rl.online picks online batches, opt->rl.queue how a queue longer than
 * the policy's N is planned, and unless opt->rl.no_guard the plan is replaced by FAR's plan
 * of the queue or (queues longer than N) by the agent's plan of the first N tasks followed by
 * FAR's plan of the rest, whichever is shortest. Stats: rl_queue (the mode whose plan was
 * kept), guard, and with the guard guard_won (0 the agent, 1 FAR, 2 the agent's first N
 * then FAR), agent_makespan, far_makespan, head_far_makespan; split plans add the
 * concatenation's (batches, makespan_trivial, ...). */
int ms_rl_offline_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_offline_options *opt, ms_schedule **out, ms_error *err);

/* The exact scheduler (docs/optimal.md): branch and bound over left-shifted schedules on
 * one GPU, from the best heuristic schedule; opt->optimal.time_budget_ms and
 * opt->optimal.node_limit stop it early (0 = no limit). Stats: proved (1 when no schedule
 * is shorter), nodes, and lower_bound (the makespan when proved). MS_EINVAL for gpus > 1, a
 * batch smaller than the workload or more than 64 tasks. */
int ms_optimal_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err);

/* Paper 000's execution report: per GPU, the repartitioning tree with each instance's
 * tasks and their end times, `Node(start=0, size=2, tasks=[...], ends=[...])`, children
 * indented under their parent. Works for any schedule whose instances sit on the tree. */
void ms_far_tree_print(const ms_schedule *s, const ms_workload *w, FILE *f);

/* ---- Baselines (docs/baselines.md) ------------------------------------------------------
 * Each fills *out with a schedule that passes ms_schedule_validate, or returns
 * MS_EINFEASIBLE (with a message naming the task) when the policy cannot run the workload.
 * gpus >= 1 GPUs of the model. */

/* Each takes the layout the GPUs hold before the plan (NULL: empty; DESIGN.md). */

/* FIXPART(P): partition index `partition` of gpu->partitions set up on every GPU from the
 * initial layout (an instance already there kept, the others in the way destroyed, the
 * rest created, one at a time); tasks in FIFO order, each on the first instance to become
 * free that can run it. */
int ms_fixpart_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_initial *initial, int partition, ms_schedule **out, ms_error *err);
/* FIXPARTBEST: FIXPART with the partition giving the lowest makespan (first on ties);
 * infeasible partitions are skipped. Stat "partition" = the 1-based partition chosen. */
int ms_fixpartbest_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                            const ms_initial *initial, ms_schedule **out, ms_error *err);
/* NOMIG: each GPU whole (its largest instance, set up like FIXPART's), FIFO. */
int ms_nomig_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      const ms_initial *initial, ms_schedule **out, ms_error *err);
/* MISO-OPT: FIFO rounds; each round takes the partition maximising the summed speedups
 * t(1)/t(s) of the next |P| tasks under their best assignment, reconfigures only the
 * instances that change, and ends when its tasks are done. Stat "rounds". */
int ms_miso_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                     const ms_initial *initial, ms_schedule **out, ms_error *err);
/* MISO as paper 001 words it, without rounds: whenever instances are free, the partition
 * that keeps the running instances and maximises the summed speedups of the next tasks
 * on its free instances; the head task waits when it fits none. Stat "decisions". */
int ms_miso_eager_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_initial *initial, ms_schedule **out, ms_error *err);

/* FIXPART by name: "fixpart:4-2-1" or "fixpart:<1-based index>" (the other baselines are
 * in the table of ms_offline_find). */
bool ms_baseline_known(const char *algo);
int ms_baseline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_initial *initial, ms_schedule **out, ms_error *err);

/* ---- Experiments (papers' protocols; docs/baselines.md) ---------------------------------
 * Tables: "rho" (paper 000 Table 4), "sigma" (Table 5), "refine" (Table 6), "concat"
 * (Tables 7-8), "multibatch" (Table 9), "popt" (paper 001 Table 4, baseline columns),
 * "search" (p_opt of FAR, FIXBEST, MISO, the agent and search, and on batches of at most 8
 * tasks the gaps of search and FAR to the proved optimum).
 * A cell is a row (generator presets) x a task count n; each repetition is one dataset
 * whose random stream depends only on (seed, row, n, repetition), so results do not
 * depend on the number of threads. */
#define MS_EXP_MAX_ROWS   16
#define MS_EXP_MAX_COLS   16
#define MS_EXP_MAX_VALUES 16
#define MS_EXP_ROW_LEN    96

typedef struct ms_experiment {
    char table[16];
    ms_gpu_model gpu;
    int nrows;
    char rows[MS_EXP_MAX_ROWS][MS_EXP_ROW_LEN]; /* "PRESET[,PRESET...][@p_sup]" */
    int ncols;
    int n[MS_EXP_MAX_COLS]; /* tasks per dataset, or per batch for concat/multibatch */
    int reps;               /* datasets per cell */
    int batch;              /* popt: offline batch size N */
    int batches;            /* multibatch: batches per dataset */
    uint64_t seed;
    int threads;               /* 0: one per online core */
    int paper_family;          /* FAR's ms_offline_options.far.paper_family in every table */
    const char *model;         /* "search": the agent's policy file (NULL: no agent column) */
    const ms_initial *initial; /* what the GPU holds before each plan (NULL: empty), the
                                * same for every algorithm */
} ms_experiment;

/* The papers' defaults for `table` on gpu (NULL: A100-40GB); MS_EINVAL for an unknown
 * table or a default row the GPU's generator rejects. */
int ms_experiment_init(ms_experiment *e, const char *table, const ms_gpu_model *gpu, ms_error *err);
/* Rows separated by ';' (each "PRESET[,PRESET...][@p_sup]"), task counts by ','. */
int ms_experiment_set_rows(ms_experiment *e, const char *list, ms_error *err);
int ms_experiment_set_n(ms_experiment *e, const char *list, ms_error *err);

typedef struct ms_experiment_result {
    int ncells, nvalues, reps;
    const char *const *value_names;
    double *values;      /* [cell][rep][value]; NAN where not defined */
    unsigned char *done; /* [cell][rep] */
} ms_experiment_result;

typedef void (*ms_experiment_progress)(long done, long total, void *arg);

/* Runs every (cell, repetition) on e->threads threads. Stops early, keeping what is done,
 * when *stop becomes non-zero (MS_EINTR). Each schedule is validated (a failure is an
 * error). progress (may be NULL) is called under a lock after each repetition. */
int ms_experiment_run(const ms_experiment *e, ms_experiment_progress progress, void *arg,
                      volatile sig_atomic_t *stop, ms_experiment_result *out, ms_error *err);
/* One line per cell: table, gpu, workload, n, the mean of each value over the finished
 * repetitions (in repetition order; the maximum for values named "worst_*"), and how many
 * there were. */
int ms_experiment_write_csv(const ms_experiment *e, const ms_experiment_result *r, FILE *f,
                            ms_error *err);
void ms_experiment_result_fini(ms_experiment_result *r);

/* ---- A trained policy against the offline algorithms on the same generated datasets
 * (paper 001): p_opt per batch for offline policies (Table 4), p_online^A for online
 * ones (Table 5). Every schedule goes through the validator. ---- */

#define MS_RL_EVAL_MAX_COMPARE 8

typedef struct ms_rl_eval {
    const ms_rl_model *model;         /* the policy evaluated */
    const ms_rl_model *offline_model; /* online models: an offline policy compared (or NULL) */
    int rollout;                      /* the policies' rule of decision (ms_rl_schedule) */
    float gap;
    int ncompare;                                /* offline algorithms (ms_offline_known) run on */
    const char *compare[MS_RL_EVAL_MAX_COMPARE]; /* the same data */
    ms_gen_params gen; /* the datasets: sets of `tasks` tasks drawn with seed */
    long sets;
    int tasks;
    uint64_t seed;
    bool by_batch; /* offline policies: also p_opt per batch position */
} ms_rl_eval;

/* Means over the datasets, the policy first, then each compared algorithm, then the
 * offline policy. Offline policies: p_opt % = mean over each dataset's batches of N of
 * (makespan / l_bound_paper - 1) x 100, each batch scheduled alone (also for the compared
 * algorithms). Online policies: the whole dataset is one queue; mean[0] is the policy's
 * makespan (s), the others p_online^A % = (makespan of A / the policy's - 1) x 100, A given
 * the dataset in batches of N. */
typedef struct ms_rl_eval_result {
    double mean[MS_RL_EVAL_MAX_COMPARE + 2];
    int npos;                                       /* by_batch: the batch positions, else 0 */
    double (*by_batch)[MS_RL_EVAL_MAX_COMPARE + 1]; /* [position]: p_opt of the k-th batch */
} ms_rl_eval_result;

/* Fills *out (ms_rl_eval_result_fini releases it); an error names the dataset. */
int ms_rl_eval_run(const ms_gpu_model *gpu, const ms_rl_eval *e, ms_rl_eval_result *out,
                   ms_error *err);
void ms_rl_eval_result_fini(ms_rl_eval_result *r);

#endif
