/* hier.h: hierarchical MIG+MPS co-scheduling of job windows (paper 004): job profiles and
 * their catalogue, partition setups (Table VII), the co-run time model or measured co-run
 * tables, covers of a window by job sets (IV-A), the baselines, the exhaustive optimum and
 * the metrics of Figs. 8-12. */
#ifndef MIGSCHED_HIER_H
#define MIGSCHED_HIER_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/learn.h"
#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* Table VII defines setups up to C = 4; the exhaustive policies work up to this window. */
#define MS_HIER_MAX_C    4
#define MS_HIER_MAX_W    16
#define MS_HIER_NAME_LEN 64

/* ---- Job profiles (Table III counters, solo time, class of V-A2) ---- */

enum { MS_HIER_NCOUNTERS = 12 };
/* Table III, in its order: Duration, Memory [%], Elapsed Cycles, Grid Size, Registers Per
 * Thread, DRAM Throughput, L1/TEX Cache Throughput, L2 Cache Throughput, SM Active Cycles,
 * Compute (SM) [%], Waves Per SM, Achieved Active Warps Per SM. */
extern const char *const ms_hier_counter_names[MS_HIER_NCOUNTERS];
enum { MS_HIER_C_DURATION = 0, MS_HIER_C_MEMORY_PCT = 1, MS_HIER_C_COMPUTE_PCT = 9 };

typedef enum { MS_HIER_CI = 0, MS_HIER_MI = 1, MS_HIER_US = 2 } ms_hier_class;
const char *ms_hier_class_name(ms_hier_class c); /* "CI", "MI", "US" */

typedef struct ms_hier_profile {
    char name[MS_HIER_NAME_LEN];
    double counters[MS_HIER_NCOUNTERS];
    double solo;   /* seconds alone on the whole GPU (MIG off, 8 GPCs): time sharing */
    double serial; /* s: share of the solo time that more SMs do not shorten */
    double mem;    /* m: share of the solo time bound by memory bandwidth */
    double cache;  /* cache sensitivity: scales the interference a co-runner causes (1 = DESIGN) */
    double t_1gpc; /* time on 1 GPC with private memory (1/8 of the bandwidth); 0 = modelled */
    int unseen;    /* held out of training (the starred programs of Table IV) */
    ms_hier_class cls;
} ms_hier_profile;

/* The model's parameters (docs/hier.md gives their sources and limits). */
typedef struct ms_hier_params {
    double gamma; /* interference per unit of co-runner memory intensity in one memory system */
    /* GPCs a job's serial part needs: with a compute share of fewer (8 beta < serial_width)
     * it slows in proportion, as when MPS copies of a latency-bound job fill an instance;
     * 0 = none, the default (docs/hier.md, "Fitting the model to measurements"). */
    double serial_width;
} ms_hier_params;
ms_hier_params ms_hier_params_default(void);

/* V-A2: US if the 1-GPC private-memory run is < 10% slower than solo; else CI if
 * Compute (SM) [%] / Memory [%] > 0.80; else MI. t_1gpc = 0 uses the model. */
ms_hier_class ms_hier_classify(const ms_hier_profile *p, const ms_hier_params *par);
/* Checks ranges (solo > 0, 0 <= s, m <= 1, cache >= 0, counters finite and >= 0). */
int ms_hier_profile_check(const ms_hier_profile *p, ms_error *err);

/* Table V's twelve W = 12 mixes Q1..Q12 as catalogue names; k in 0..11. */
const char *const *ms_hier_table5_mix(int k, const char **category);

/* A set of profiles to look names up in: the built-in catalogue or one read from a file. */
typedef struct ms_hier_catalog {
    size_t n;
    ms_hier_profile *jobs;
    int modelled; /* 1 for the built-in catalogue */
} ms_hier_catalog;
/* The built-in catalogue: the 27 programs of Table IV, MODELLED (not measured) profiles. */
int ms_hier_catalog_builtin(ms_hier_catalog *out, ms_error *err);
void ms_hier_catalog_fini(ms_hier_catalog *c);
const ms_hier_profile *ms_hier_catalog_find(const ms_hier_catalog *c, const char *name);

/* ---- Windows ---- */

/* The first W jobs of the queue (copies of their profiles). */
typedef struct ms_hier_window {
    size_t n;
    ms_hier_profile *jobs;
    char **commands; /* NULL, or n shell commands (NULL entries: none) for running a plan */
} ms_hier_window;
void ms_hier_window_fini(ms_hier_window *w);
int ms_hier_window_from_names(const ms_hier_catalog *cat, const char *const *names, size_t n,
                              ms_hier_window *out, ms_error *err);
/* Reads a window file (docs/hier.md): CSV with a `name` column and optionally every profile
 * column, or JSON {"jobs": ["name" | {profile}, ...]}. Names not given with a profile are
 * looked up in cat. Errors name the file, line and field. */
int ms_hier_window_read(const char *path, const ms_hier_catalog *cat, ms_hier_window *out,
                        ms_error *err);
/* Reads a catalogue file: the same format, every row a full profile. */
int ms_hier_catalog_read(const char *path, ms_hier_catalog *out, ms_error *err);
/* Mix categories of Table V: CI-, MI-, US-dominant, balanced (names "ci", "mi", "us", "bal"). */
enum { MS_HIER_MIX_CI = 0, MS_HIER_MIX_MI, MS_HIER_MIX_US, MS_HIER_MIX_BALANCED, MS_HIER_NMIX };
const char *ms_hier_mix_name(int category);
/* A random mix of W jobs drawn from cat as V-A2 builds them: half of the dominant class and
 * the rest round-robin over the other two (balanced: round-robin over all three); jobs of one
 * class are distinct while the class has enough. unseen_only = -1 any, 0 seen, 1 unseen. */
int ms_hier_window_mix(const ms_hier_catalog *cat, int category, size_t w, int unseen_only,
                       ms_rng *rng, ms_hier_window *out, ms_error *err);

/* ---- Partition setups (Table VII, notation of V-A5) ---- */

enum {
    MS_HIER_FAM_SOLO = 1,    /* one job alone on the whole GPU (time sharing) */
    MS_HIER_FAM_MPS = 2,     /* MPS only, 10% steps, plus the equal split */
    MS_HIER_FAM_MIG = 4,     /* 3g + 4g MIG only, shared or private memory (C = 2) */
    MS_HIER_FAM_HIER = 8,    /* MIG 3g + 4g with MPS clients inside (C = 3, 4) */
    MS_HIER_FAM_DEFAULT = 16 /* default MPS (no thread limit) over a fixed layout */
};
/* The agent's action space: Table VII's right column. */
#define MS_HIER_FAM_TABLE7 (MS_HIER_FAM_MPS | MS_HIER_FAM_MIG | MS_HIER_FAM_HIER)

/* Memory layout: no MIG (whole GPU, 8 GPCs), MIG with one 7g GI holding a 3g and a 4g CI
 * (shared memory), or MIG with a 3g and a 4g GI (private memory, half the bandwidth each). */
typedef enum { MS_HIER_NOMIG = 0, MS_HIER_SHARED = 1, MS_HIER_PRIVATE = 2 } ms_hier_layout;
const char *ms_hier_layout_name(ms_hier_layout l); /* "nomig", "shared", "private" */

typedef struct ms_hier_ci {
    int gi;   /* its GPU instance (0 when no MIG or shared memory) */
    int gpcs; /* 3, 4, or 8 for the whole GPU without MIG */
    int mem8; /* memory slices of its GI, of 8 (4 for 3g.20gb and 4g.20gb on A100-40GB) */
} ms_hier_ci;

typedef struct ms_hier_slot {
    int ci;  /* the compute instance the job runs in */
    int pct; /* CUDA_MPS_ACTIVE_THREAD_PERCENTAGE of that CI, 1..100; 0 = default (no limit) */
} ms_hier_slot;

typedef struct ms_hier_setup {
    int family;
    ms_hier_layout layout;
    int c; /* jobs (MPS clients or sole processes), slot order = job order of a group */
    ms_hier_slot slot[MS_HIER_MAX_C];
    int n_ci; /* 1 (no MIG) or 2 (3g then 4g) */
    ms_hier_ci ci[2];
    char id[48]; /* compact, comma-free key used by co-run tables: "mps:10+90" */
} ms_hier_setup;

/* Bandwidth share of GI g: 1 for no MIG or shared memory, else its memory slices / 8 (0.5
 * for each of 3g.20gb and 4g.20gb on A100-40GB). */
double ms_hier_gi_mem(const ms_hier_setup *s, int gi);
int ms_hier_n_gi(const ms_hier_setup *s);
/* Compute share of the whole GPU a slot gets with a fixed percentage: GPCs/8 * pct/100. */
double ms_hier_slot_compute(const ms_hier_setup *s, int k);

/* Every setup of concurrency c (1..MS_HIER_MAX_C) whose family is in `families`, in a fixed
 * order; writes up to cap into out (out may be NULL) and returns how many exist. With
 * MS_HIER_FAM_TABLE7 the counts are 7, 19, 60 for C = 2, 3, 4 (docs/hier.md). */
size_t ms_hier_setups_for(int c, int families, ms_hier_setup *out, size_t cap);
/* The default-MPS setups of a layout for c jobs: every split of the jobs over its CIs. */
size_t ms_hier_default_setups(int c, ms_hier_layout layout, ms_hier_setup *out, size_t cap);
/* V-A5 notation, e.g. "[{(0.375)}, 0.5m] + [(0.1)+(0.9), {0.5}, 0.5m]". */
void ms_hier_setup_notation(const ms_hier_setup *s, char *buf, size_t len);
/* Looks a setup up by id among every family for its concurrency; 0 found, -1 not. */
int ms_hier_setup_by_id(const char *id, ms_hier_setup *out);

/* ---- Co-run times: the model, or a measured table ---- */

typedef struct ms_hier_corun ms_hier_corun;
ms_hier_corun *ms_hier_corun_model(const ms_hier_params *par);
/* Reads a measured co-run table (CSV "setup,jobs,times", docs/hier.md). */
int ms_hier_corun_read(const char *path, const ms_hier_params *par, ms_hier_corun **out,
                       ms_error *err);
void ms_hier_corun_free(ms_hier_corun *cr);
int ms_hier_corun_measured(const ms_hier_corun *cr); /* 1 when times come from a table */
const ms_hier_params *ms_hier_corun_params(const ms_hier_corun *cr);

/* Per-job co-run times of jobs[0..c-1] placed in the slots of s in that order. Returns 0 and
 * fills times[c]; 1 when unknown (a table without that job set and setup). A single job on
 * the solo setup takes its solo time. */
int ms_hier_corun_times(const ms_hier_corun *cr, const ms_hier_profile *const *jobs,
                        const ms_hier_setup *s, double *times);
/* The model alone (DESIGN.md "Co-run model for MIG+MPS"); never unknown. */
void ms_hier_model_times(const ms_hier_params *par, const ms_hier_profile *const *jobs,
                         const ms_hier_setup *s, double *times);

/* ---- Covers of a window (IV-A) ---- */

typedef struct ms_hier_group {
    int c;
    int job[MS_HIER_MAX_C]; /* window indices, in slot order */
    ms_hier_setup setup;
    double time[MS_HIER_MAX_C]; /* per-job co-run times */
    double corun;               /* CoRunTime: the group's makespan */
} ms_hier_group;

typedef struct ms_hier_plan {
    size_t n;
    ms_hier_group *groups;
    double total; /* sum of CoRunTime over the groups */
} ms_hier_plan;
void ms_hier_plan_fini(ms_hier_plan *p);
/* Appends a group, computing its times; MS_EINVAL if unknown or slower than time sharing
 * (CoRunTime > SoloRunTime(JS), the first constraint of IV-A). */
int ms_hier_plan_add(ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                     const int *jobs, const ms_hier_setup *s, ms_error *err);
/* Every job exactly once, 1 <= C_i <= cmax, each group's times as the co-run source gives
 * them and no slower than time sharing, total = sum of the groups. */
int ms_hier_plan_check(const ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                       int cmax, ms_error *err);

/* The best slot order of jobs[0..c-1] under setup s (c == s->c), no slower than time
 * sharing: fills g and returns 0, or 1 when no order is known and fast enough. */
int ms_hier_group_setup(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs, int c,
                        const ms_hier_setup *s, ms_hier_group *g);

/* The best slot order and setup for one job set among `families` (default setups of
 * `layout` when families has MS_HIER_FAM_DEFAULT): fills g and returns 0, or 1 when no setup
 * is known and no slower than time sharing. A single job always runs solo. */
int ms_hier_group_best(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs, int c,
                       int families, ms_hier_layout layout, ms_hier_group *g);

/* One decision of the agent: a job set, in slot order, on setup `setup` of
 * ms_hier_setups_for(c, families) (c = 1: the solo setup). */
typedef struct ms_hier_choice {
    int c;
    int job[MS_HIER_MAX_C];
    int setup;
} ms_hier_choice;
/* Every (job set, setup, slot order) over the jobs whose bit is set in `free_jobs` (window
 * indices < 64): sets of 1..cmax jobs, setups of `families`, identical slots in one order
 * only. Writes up to cap into out (may be NULL) and returns how many exist; the order is
 * fixed (set size, then jobs, then setup, then slot order). W = 12, C_max = 4, Table VII:
 * 544545 choices (paper 004 V-B's bound sum_C binom(W, C) C! N_C counts every order). */
size_t ms_hier_choices(unsigned long long free_jobs, int cmax, int families, ms_hier_choice *out,
                       size_t cap);

/* Metrics of Figs. 8, 11, 12: throughput = sum of solo times / total, slowdown of a job =
 * co-run time / solo time, fairness = min slowdown / max slowdown. */
typedef struct ms_hier_metrics {
    double throughput;
    double mean_slowdown;
    double fairness;
} ms_hier_metrics;
/* slowdown (may be NULL) gets w->n values. */
void ms_hier_plan_metrics(const ms_hier_plan *p, const ms_hier_window *w, ms_hier_metrics *m,
                          double *slowdown);

/* ---- Policies ---- */

typedef enum {
    MS_HIER_TIMESHARE = 0, /* one job at a time on the whole GPU */
    MS_HIER_MIG2,          /* MIG only, C <= 2, exhaustive */
    MS_HIER_MPS,           /* MPS only, C <= cmax, exhaustive */
    MS_HIER_DEFAULT,       /* fixed MIG layout, default MPS shares, exhaustive job sets */
    MS_HIER_RL,            /* the DQN agent (ms_hier_rl_plan) */
    MS_HIER_OPTIMAL,       /* exhaustive optimum over Table VII's setups */
    MS_HIER_NPOLICY
} ms_hier_policy;
const char *ms_hier_policy_name(ms_hier_policy p);
int ms_hier_policy_parse(const char *name, ms_hier_policy *out);

/* Plans a window with an exhaustive policy (not RL): minimum sum of CoRunTime over covers by
 * job sets of size <= cmax (set-partition DP over subsets; w->n <= MS_HIER_MAX_W), each set
 * with its best setup of the policy's families. layout is used by MS_HIER_DEFAULT only. */
int ms_hier_solve(const ms_hier_window *w, const ms_hier_corun *cr, int cmax, ms_hier_policy p,
                  ms_hier_layout layout, ms_hier_plan *out, ms_error *err);
/* The MIG layout of MS_HIER_DEFAULT: shared or private 3g + 4g, whichever has the best mean
 * throughput over the given windows (paper 004: over Q1-Q12). */
int ms_hier_default_layout(const ms_hier_window *ws, size_t n, const ms_hier_corun *cr, int cmax,
                           ms_hier_layout *out, ms_error *err);

/* ---- Execution: a plan as MIG instances and MPS shares ---- */

/* A plan rendered on a MIG GPU model: groups one after another; in each, one GPU instance
 * per GI of its setup (private memory: the 4g and 3g profiles side by side; otherwise the
 * whole-GPU 7g profile) holding one task that starts every job of that instance together,
 * each with its CUDA_MPS_ACTIVE_THREAD_PERCENTAGE. Valid for the schedule validator. */
typedef struct ms_hier_exec {
    ms_schedule *schedule;
    ms_workload *workload; /* task i: the jobs of one instance of one group */
    int *mps_daemon;       /* per schedule instance: 1 = its jobs share it through MPS */
} ms_hier_exec;
int ms_hier_render(const ms_hier_plan *p, const ms_hier_window *w, const ms_gpu_model *gpu,
                   ms_hier_exec *out, ms_error *err);
void ms_hier_exec_fini(ms_hier_exec *x);
/* The thread percentage slot k gets once rendered: its share of its CI, times the CI's
 * share of the 7g instance when the two CIs of a shared-memory setup become one instance
 * (the executor creates one compute instance per GPU instance); 0 = no limit. */
int ms_hier_render_pct(const ms_hier_setup *s, int k);

/* How the agent decides: width 1 is the greedy agent; width K in 2..8 tries the agent's K
 * actions of highest Q at each decision, finishes each with the rule of depth - 1 (depth 1:
 * the greedy agent) and keeps the one of least co-run time (rollout, nested depth times;
 * never worse than the rule of depth - 1, so never worse than greedy). */
typedef struct ms_hier_lookahead {
    int width, depth;
} ms_hier_lookahead;
#define MS_HIER_MAX_LOOKAHEAD       8
#define MS_HIER_MAX_LOOKAHEAD_DEPTH 3
#define MS_HIER_LOOKAHEAD_DEFAULT   3 /* the CLI's --lookahead (EXPERIMENTS.md says why) */
#define MS_HIER_GREEDY              ((ms_hier_lookahead){1, 1})

/* The DQN agent's plan for a window (implemented with the agent in src/hier/rl*.c): loads
 * the model file and fills out with groups of size <= cmax, deciding by lookahead. */
int ms_hier_rl_plan(const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                    const char *model_path, ms_hier_lookahead lookahead, ms_hier_plan *out,
                    ms_error *err);

/* A window planned by policy p: the agent of model_path for MS_HIER_RL (by lookahead),
 * ms_hier_solve otherwise. For MS_HIER_DEFAULT a *layout (an ms_hier_layout) >= 0 is used
 * as given; *layout < 0 picks the layout best for this window and reports it there. */
int ms_hier_plan_window(const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                        ms_hier_policy p, const char *model_path, ms_hier_lookahead lookahead,
                        int *layout, ms_hier_plan *out, ms_error *err);

/* ---- The DQN agent (src/hier/rl_*.c): training and planning ---- */

/* The agent of Table VI: state W x (f + 5), actions = W picks + setups (the solo one and
 * Table VII's for C = 2..cmax), rewards rf_weight * r_f + ri_weight * r_i + saved_weight *
 * (time a closed group saves over time sharing, % of the window's solo time)
 * (docs/hier-agent.md). */
typedef struct ms_hier_rl_config {
    int window, cmax;
    double ri_weight, saved_weight, rf_weight;
    /* The agent picks job sets only and each group gets its best Table VII setup (ours;
     * false: the agent picks the setup too, as paper 004's does). */
    bool best_setup;
    /* Each state row also carries the co-run gains of adding the job to the open group,
     * of its best partner and of the open group (ours; docs/hier-agent.md). */
    bool gains;
    ms_dqn_config dqn;
} ms_hier_rl_config;
/* W 12, C_max 4, the three reward weights 1, the DQN defaults of learn.h with gamma 1. */
void ms_hier_rl_config_default(ms_hier_rl_config *c);

typedef struct ms_hier_trainer ms_hier_trainer;
/* Episodes are mixes of cat's programs not held out (a random Table V category each), or
 * always the window `fixed` when not NULL. total_steps sets the epsilon schedule. */
ms_hier_trainer *ms_hier_trainer_new(const ms_hier_rl_config *cfg, const ms_hier_catalog *cat,
                                     const ms_hier_corun *cr, const ms_hier_window *fixed,
                                     long total_steps, uint64_t seed, ms_error *err);
void ms_hier_trainer_free(ms_hier_trainer *t);
/* steps more environment steps (decisions), learning as they go. */
int ms_hier_trainer_run(ms_hier_trainer *t, long steps, ms_dqn_stats *st, ms_error *err);
/* Pre-training (ours; paper 004 trains by DQN alone): `updates` supervised steps of the
 * network toward the exact action values Q* of the states of training episodes (needs
 * ri_weight 0 and W <= MS_HIER_MAX_W); *loss is their mean loss. The DQN steps of
 * ms_hier_trainer_run go on from the network it leaves. */
int ms_hier_trainer_pretrain(ms_hier_trainer *t, long updates, double *loss, ms_error *err);
/* Writes the current network as a model file (all or nothing). */
int ms_hier_trainer_save(ms_hier_trainer *t, const char *path, ms_error *err);
/* The current network's plan for w (groups of up to cmax; lookahead as ms_hier_rl_plan's). */
int ms_hier_trainer_plan(ms_hier_trainer *t, const ms_hier_window *w, const ms_hier_corun *cr,
                         int cmax, ms_hier_lookahead lookahead, ms_hier_plan *out, ms_error *err);

/* A trained agent loaded once for many windows (ms_hier_rl_plan loads it per call). */
typedef struct ms_hier_agent ms_hier_agent;
int ms_hier_agent_load(const char *path, ms_hier_agent **out, ms_error *err);
void ms_hier_agent_free(ms_hier_agent *a);
int ms_hier_agent_window(const ms_hier_agent *a); /* W: longer queues go W jobs at a time */
int ms_hier_agent_cmax(const ms_hier_agent *a);
int ms_hier_agent_plan(ms_hier_agent *a, const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                       ms_hier_lookahead lookahead, ms_hier_plan *out, ms_error *err);

#endif
