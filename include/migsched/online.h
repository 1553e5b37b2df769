/* online.h: online multi-GPU MIG scheduling (paper 002): fragmentation cost, conditional
 * load balancing, dynamic partitioning, departure migration, baselines, and the
 * discrete-event simulator that evaluates them. */
#ifndef MIGSCHED_ONLINE_H
#define MIGSCHED_ONLINE_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/rng.h"

/* ---- Fragmentation on one GPU (paper 002 III, IV-B; DESIGN.md definitions) ---- */

/* F(g) from the GPU's free memory slots (bit i = slot i holds no job) and free compute
 * slices: mean over profiles with ideal > 0 of 1 - valid/ideal. */
double ms_online_frag_masks(const ms_gpu_model *m, uint32_t free_slots, uint32_t free_slices);
/* ideal(p,g) and valid(p,g) of the same definition. */
int ms_online_ideal(const ms_gpu_model *m, int profile, uint32_t free_slots, uint32_t free_slices);
int ms_online_valid(const ms_gpu_model *m, int profile, uint32_t free_slots);
/* F(g) of a GPU whose job-holding instances are `busy`. */
double ms_online_frag(const ms_gpu_model *m, const ms_partition *busy);
/* True when placement p is allowed and overlaps no instance of `busy`. */
bool ms_online_fits(const ms_gpu_model *m, const ms_partition *busy, ms_placement p);
/* The placement of `profile` that leaves the lowest F(g) next to `busy`; on equal F one
 * that reuses an instance of `idle` (idle instances of the GPU), then the lowest start.
 * Returns false when no placement fits. */
bool ms_online_best_placement(const ms_gpu_model *m, const ms_partition *busy,
                              const ms_partition *idle, int profile, ms_placement *out,
                              double *frag_after);
/* Intra-GPU migration step (IV-D): the move of one busy instance to a free allowed
 * placement of its profile that lowers F(g) the most. Returns false when none lowers it. */
bool ms_online_best_move(const ms_gpu_model *m, const ms_partition *busy, int *which,
                         ms_placement *to, double *frag_after);

/* ---- The placement decision (paper 002 IV-C), shared by the simulator and migschedd ---- */

/* F(g) of every (free slot mask, free compute slice count) of one model, precomputed. */
typedef struct ms_online_frag_table ms_online_frag_table;
ms_online_frag_table *ms_online_frag_table_new(const ms_gpu_model *m);
void ms_online_frag_table_free(ms_online_frag_table *t);
/* F(g) when the instances that count (those holding jobs) take these slots and slices. */
double ms_online_frag_lookup(const ms_online_frag_table *t, const ms_gpu_model *m,
                             uint32_t taken_slots, uint32_t taken_slices);

/* What the decision needs to know of one GPU. */
typedef struct ms_online_gpu_view {
    uint32_t job_slots;        /* slots of instances holding (or reserved for) a job */
    uint32_t frag_slots;       /* slots and slices F(g) counts as taken: the job-holding */
    uint32_t frag_slices;      /*   instances, once pending migrations end */
    uint32_t locked_slots;     /* instances that cannot be destroyed now (held, creating) */
    int8_t idle[MS_MAX_SLOTS]; /* by start slot: profile of an idle instance there, -1 */
    int load;                  /* busy compute slices (Lazy iff load < tau x slices) */
} ms_online_gpu_view;

/* Which GPU a rule prefers before F and reuse (ties: the lowest index). */
enum ms_online_fit {
    MS_FIT_FIRST = 0, /* none: the lowest index (first fit, paper 002) */
    MS_FIT_BEST = 1,  /* the fewest free compute slices (OWP's packing) */
    MS_FIT_WORST = 2, /* the most free compute slices (ElasticBatch's spreading) */
};

typedef struct ms_online_rule {
    bool frag;    /* min-F placement (paper 002); false: first fit */
    int fit;      /* enum ms_online_fit */
    bool balance; /* conditional load balancing: Busy GPUs only when no Lazy fits */
    bool dynamic; /* idle instances may be destroyed and new ones created */
    double tau;
} ms_online_rule;

/* A job of `profile` can take `start`: its slots hold no job, and either an idle instance
 * of that profile sits there or (dynamic) only idle, unlocked instances do. */
bool ms_online_can_take(const ms_gpu_model *m, const ms_online_rule *r, const ms_online_gpu_view *g,
                        int profile, int start);
#define MS_ONLINE_NO_FIT UINT64_MAX
/* The best start of `profile` on one GPU under the rule and its key (lower is better;
 * MS_ONLINE_NO_FIT when nothing fits): the rule's fit first, then min F(g) after placing,
 * then reusing an idle instance, then the lowest start; a Busy GPU's keys rank after every
 * Lazy GPU's. Slots of
 * jobs are never taken; under dynamic, idle unlocked instances in the way are destroyed. */
uint64_t ms_online_place_key(const ms_gpu_model *m, const ms_online_rule *r,
                             const ms_online_frag_table *ft, const ms_online_gpu_view *g,
                             int profile, int *start);
/* The GPU (the lowest key, the first on ties) and start for a job of `profile`; false
 * when no GPU can hold it now. */
bool ms_online_place(const ms_gpu_model *m, const ms_online_rule *r, const ms_online_frag_table *ft,
                     const ms_online_gpu_view *gpus, int ngpus, int profile, int *gpu, int *start);

/* ---- Workloads ---- */

typedef struct ms_online_job {
    double arrival; /* seconds */
    int profile;    /* index into the model's profiles */
    double work;    /* seconds of execution alone at that profile */
    int name;       /* offset into the workload's name buffer, -1 for none */
} ms_online_job;

typedef struct ms_online_workload {
    int n, cap;
    ms_online_job *jobs; /* sorted by arrival (stable) */
    char *names;         /* NUL-separated names */
    size_t names_len, names_cap;
    int skipped; /* input records left out (Alibaba reader), see docs */
    int skipped_multi_gpu, skipped_no_gpu, skipped_bad_time;
} ms_online_workload;

void ms_online_workload_fini(ms_online_workload *w);
const char *ms_online_job_name(const ms_online_workload *w, int i);

/* Trace CSV: header `arrival,profile,work[,name]`, one job per line; profile is a profile
 * name of the model. Errors name the file and line. */
int ms_online_trace_parse(const char *text, size_t len, const char *source, const ms_gpu_model *m,
                          ms_online_workload *w, ms_error *err);
int ms_online_trace_read(const char *path, const ms_gpu_model *m, ms_online_workload *w,
                         ms_error *err);
int ms_online_trace_write(const char *path, const ms_gpu_model *m, const ms_online_workload *w,
                          ms_error *err);
/* Alibaba cluster-trace-gpu-v2023 pod list: one-GPU pods only; gpu_milli/1000 maps to the
 * smallest base profile whose compute share (slices / GPU slices) covers it; arrival =
 * creation_time - first creation_time; work = deletion_time - creation_time. limit > 0
 * keeps the first `limit` jobs. */
int ms_online_alibaba_read(const char *path, const ms_gpu_model *m, int limit,
                           ms_online_workload *w, ms_error *err);
int ms_online_alibaba_parse(const char *text, size_t len, const char *source, const ms_gpu_model *m,
                            int limit, ms_online_workload *w, ms_error *err);

enum ms_online_service { MS_SERVICE_NORMAL = 0, MS_SERVICE_LONG = 1 };

typedef struct ms_online_gen {
    int jobs;
    double arrival_mean; /* mean inter-arrival time, seconds (Poisson process) */
    int nmix;
    int mix_profile[MS_MAX_PROFILES];
    double mix_weight[MS_MAX_PROFILES];
    int service;           /* enum ms_online_service */
    double service_median; /* median "Normal" service time of a 1g job, seconds */
    double service_sigma;  /* log-normal shape */
    bool flat_service;     /* every profile has the same service time (scale 1) */
} ms_online_gen;

/* Defaults: the model's base profiles of every size but the whole GPU, equal weights;
 * median 150 s, sigma 0.6, service times by profile (see docs/online.md). */
void ms_online_gen_defaults(const ms_gpu_model *m, ms_online_gen *g);
/* How much longer a job of `profile` runs than a 1g job (paper 002 runs the larger models
 * on 3g/4g): large-model class (>= 3 slices) x2, speed growing with sqrt(slices). */
double ms_online_service_scale(const ms_gpu_model *m, int profile);
/* Time per output token (s) of a job of `profile` running alone: the generator's job is
 * service_median / 0.1 s = 1,500 median output tokens at 0.1 s x scale per token. */
double ms_online_tpot_alone(const ms_gpu_model *m, int profile);
/* Offered load of the generator on `gpus` GPUs: arrival rate x expected compute-slice
 * seconds of a job / (gpus x slices); ms_online_gen_set_load sets arrival_mean for one. */
double ms_online_gen_load(const ms_gpu_model *m, const ms_online_gen *g, int gpus);
void ms_online_gen_set_load(const ms_gpu_model *m, ms_online_gen *g, int gpus, double load);
/* "1g.5gb:2,3g.20gb:1" (weights optional, default 1). */
int ms_online_parse_mix(const ms_gpu_model *m, const char *text, ms_online_gen *g, ms_error *err);
int ms_online_generate(const ms_gpu_model *m, const ms_online_gen *g, ms_rng *rng,
                       ms_online_workload *w, ms_error *err);

/* ---- Policies and the simulator ---- */

enum ms_online_policy {
    MS_POLICY_FRAG = 0,         /* paper 002: balance + min-F placement + reuse */
    MS_POLICY_FF_STATIC = 1,    /* first fit on a static layout */
    MS_POLICY_FF_DYNAMIC = 2,   /* first fit, instances created/destroyed on demand */
    MS_POLICY_OWP = 3,          /* OWP's heuristic: best fit (pack), dynamic */
    MS_POLICY_ELASTICBATCH = 4, /* ElasticBatch's deploy manager: worst fit, dynamic */
    MS_POLICY_COUNT = 5,
};

/* Static layouts: how a fixed multiset of instances is spread over the GPUs. */
enum ms_online_layout {
    MS_LAYOUT_BEST = -1,       /* simulate each and keep the lowest mean turnaround */
    MS_LAYOUT_PACKED = 0,      /* largest instances first, into the first GPU they fit */
    MS_LAYOUT_SMALL_FIRST = 1, /* smallest first, first GPU */
    MS_LAYOUT_SPREAD = 2,      /* largest first, round-robin over GPUs */
    MS_LAYOUT_GROUPED = 3,     /* one profile after another, first GPU */
    MS_LAYOUT_COUNT = 4,
};
const char *ms_online_layout_name(int layout);
int ms_online_layout_parse(const char *text);

/* Queue disciplines for jobs that cannot be placed at once (docs/online.md, "Queue"). */
enum ms_online_queue {
    MS_QUEUE_FCFS_PROFILE = 0, /* FCFS per profile: a blocked job holds back only its profile */
    MS_QUEUE_FCFS = 1,         /* strict FCFS: a blocked job holds back every later job */
    MS_QUEUE_RESERVE = 2,      /* FCFS per profile plus an aging reservation (beyond paper 002) */
    MS_QUEUE_COUNT = 3,
};
const char *ms_online_queue_name(int queue);
int ms_online_queue_parse(const char *text);

/* When a departure migration is carried out (docs/online.md, "Departure migration"). */
enum ms_online_migration_rule {
    MS_MIGRATE_COST_AWARE = 0, /* only when the expected gain exceeds the cost */
    MS_MIGRATE_ALWAYS = 1,     /* paper 002's rule: whenever it lowers F or the load gap */
};
const char *ms_online_migration_rule_name(int rule);
int ms_online_migration_rule_parse(const char *text);

/* ---- A placement policy of the caller's (the Python package's) ---- */

/* What a placement callback is asked: where a job that may start now goes, with the GPUs
 * as the decision sees them (gpus[g] for g < ngpus, valid during the call only). */
typedef struct ms_online_place_query {
    double now;
    int job;     /* index into the workload */
    int profile; /* the job's profile */
    int ngpus;
    const ms_online_gpu_view *gpus;
} ms_online_place_query;

enum ms_online_place_answer {
    MS_PLACE_PLACED = 0, /* *gpu and *start hold the job's place */
    MS_PLACE_WAIT = 1,   /* the job waits in its queue until something frees */
    MS_PLACE_ABORT = 2,  /* the simulation stops (MS_EINTR) */
};

/* The simulator checks every answer (a GPU in range, a start the profile allows,
 * ms_online_can_take under dynamic partitioning) and fails with MS_EINVAL on a bad one. */
typedef int (*ms_online_place_fn)(void *arg, const ms_online_place_query *q, int *gpu, int *start);

typedef struct ms_online_config {
    int policy;
    int gpus;
    double tau;            /* Lazy iff load < tau (default 0.4) */
    double kappa;          /* contention slowdown per co-running job (0.05) */
    bool balance;          /* conditional load balancing (frag policy) */
    bool dynamic;          /* dynamic partitioning (frag policy; off = static layout) */
    bool migration;        /* departure migration (frag policy) */
    double migration_cost; /* seconds a migration takes beyond the instance creation */
    int migration_rule;    /* enum ms_online_migration_rule */
    int queue;             /* enum ms_online_queue */
    double reserve_after;  /* MS_QUEUE_RESERVE: wait (s) after which a job reserves a GPU */
    int layout;            /* static layouts: enum ms_online_layout */
    double layout_share[MS_MAX_PROFILES]; /* requests' shares by profile the static
                                           * multiset follows; all 0: the workload's job counts */
    bool check;                           /* invariant check after every event (what it changed) */
    int check_full_every;     /* with check: also the whole state every N events (0: at the
                               * end only; Debug builds: at least every 1024 events) */
    bool timeline;            /* record fragmentation/instances over time */
    ms_online_place_fn place; /* non-NULL: it chooses every job's GPU and start in place of
                               * the policy's (dynamic partitioning; no migration, no
                               * reserve queue); policy and balance are not used */
    void *place_arg;          /* its first argument */
} ms_online_config;

void ms_online_config_defaults(ms_online_config *c);
const char *ms_online_policy_name(int policy);
int ms_online_policy_parse(const char *text);

typedef struct ms_online_sample {
    double t;
    double frag; /* mean F(g) over GPUs */
    int instances, busy, queued;
    /* per profile (paper 002 Fig. 6): desired = jobs of it in the node (queued, starting or
     * running); actual = instances of it (being created, idle or busy) */
    int32_t desired[MS_MAX_PROFILES], actual[MS_MAX_PROFILES];
} ms_online_sample;

typedef struct ms_online_migration {
    double t; /* decision time */
    int job, from_gpu, to_gpu;
    double frag_before, frag_after; /* system F around the decision */
    double gain, cost; /* the cost-aware rule's expected gain and cost (slice-seconds) */
    double gain_rate;  /* its gain per second of the window the move pays off in */
} ms_online_migration;

typedef struct ms_online_result {
    int n;
    double *start, *end; /* per job, indexed like the workload */
    int *gpu;            /* GPU the job finished on */
    int *migrations;     /* per job */
    double mean_wait, mean_exec, mean_turnaround, max_wait;
    double p95_turnaround; /* ms_online_quantile(turnarounds, n, 0.95) */
    double makespan;       /* last end - first arrival */
    long events, reconfigurations, creations, destructions, total_migrations;
    long intra_migrations, inter_migrations;
    int layout;                   /* static layout used (best when asked) */
    double mean_frag;             /* time-weighted mean of system F */
    double tpot[MS_MAX_PROFILES]; /* mean time per output token by profile (s; NAN: no job):
                                   * ms_online_tpot_alone x execution / work of each job */
    int nsamples, cap_samples;
    ms_online_sample *samples;
    int nmig, cap_mig;
    ms_online_migration *mig;
} ms_online_result;

/* The workload of generator g drawn with `seed`, simulated under c: fills *w and *r (both
 * freed by the callee on failure, by the caller otherwise). */
int ms_online_run_seed(const ms_gpu_model *m, const ms_online_gen *g, const ms_online_config *c,
                       unsigned long long seed, ms_online_workload *w, ms_online_result *r,
                       ms_error *err);
/* The static layout chosen out of sample: the layout rule with the lowest mean turnaround
 * over `seeds` workloads of generator g drawn with seeds seed, seed+1, ... (give seeds the
 * evaluation does not use), each with the multiset of g's mix. Sets c->layout and
 * c->layout_share. */
int ms_online_choose_layout(const ms_gpu_model *m, const ms_online_gen *g, ms_online_config *c,
                            unsigned long long seed, int seeds, ms_error *err);
/* The training seeds for evaluation seeds from `seed`: disjoint while fewer than 10^6. */
#define MS_ONLINE_TRAIN_SEED(seed) ((seed) + 1000003ull)

/* Runs the workload; fails with MS_EINFEASIBLE when a job can never run (a static layout
 * without its profile). */
int ms_online_simulate(const ms_gpu_model *m, const ms_online_workload *w,
                       const ms_online_config *c, ms_online_result *r, ms_error *err);
void ms_online_result_fini(ms_online_result *r);
/* The q-quantile of n ascending values by linear interpolation between closest ranks
 * (Hyndman-Fan type 7, numpy's default): h = (n-1)q, x[floor h] + (h - floor h)(x[floor h + 1]
 * - x[floor h]). p95_turnaround is ms_online_quantile(turnarounds, n, 0.95). */
double ms_online_quantile(const double *sorted, int n, double q);

/* The run's summary as a JSON object (the caller's, NULL when out of memory): the policy
 * ("callback" when c->place was set) and the options that shaped it, the means, counts and,
 * with tpot, "tpot_ms" by profile; what `online simulate --json` prints. */
struct json_t;
struct json_t *ms_online_summary_json(const ms_gpu_model *m, const ms_online_config *c,
                                      const ms_online_result *r, bool tpot);
/* Per-job CSV: name,arrival,profile,work,start,end,wait,exec,turnaround,gpu,migrations. */
int ms_online_write_jobs_csv(const char *path, const ms_gpu_model *m, const ms_online_workload *w,
                             const ms_online_result *r, ms_error *err);
/* Timeline CSV: t,fragmentation,instances,busy,queued, then desired_P,actual_P for each
 * profile P that ever had a job or an instance. Needs a result with a timeline. */
int ms_online_write_timeline_csv(const char *path, const ms_gpu_model *m, const ms_online_result *r,
                                 ms_error *err);
/* SVG: system fragmentation (top), instance counts (middle) and desired against actual
 * instances per profile (bottom) over time, migration decisions marked (paper 002 Figs. 6
 * and 8). Needs a result with a timeline. */
int ms_online_write_svg(const char *path, const ms_gpu_model *m, const ms_online_result *r,
                        const char *title, ms_error *err);

/* ---- Results as curves: policies against offered load ---- */

#define MS_SWEEP_MAX_POLICIES 8
#define MS_SWEEP_MAX_LOADS    1000

typedef struct ms_online_sweep {
    ms_online_gen gen;    /* the workload; arrival_mean is set per load */
    ms_online_config cfg; /* gpus, tau, kappa, ...; policy and layout set per run */
    int nloads;
    double loads[MS_SWEEP_MAX_LOADS]; /* offered loads (ms_online_gen_load) */
    int npolicies;
    int policies[MS_SWEEP_MAX_POLICIES];
    int queues[MS_SWEEP_MAX_POLICIES]; /* each policy's queue discipline, -1: cfg.queue */
    unsigned long long seed;           /* evaluation seeds seed .. seed+seeds-1; the static */
    int seeds;                         /*   layout is chosen on MS_ONLINE_TRAIN_SEED(seed) ... */
} ms_online_sweep;

/* One policy at one offered load, over the seeds: means of the per-seed values, and
 * per-profile waits pooled over the seeds' jobs. */
typedef struct ms_online_point {
    int policy;     /* enum ms_online_policy */
    int queue;      /* enum ms_online_queue it ran with */
    char label[40]; /* "frag", or "frag/reserve" when the sweep named a queue */
    double load, arrival_mean;
    double turnaround, makespan, wait, execution;
    double utilisation;   /* busy compute-slice seconds / (GPUs x slices x makespan) */
    double fragmentation; /* time-weighted mean system F */
    int layout;           /* the static layout chosen out of sample, -1 otherwise */
    double p50_wait[MS_MAX_PROFILES], p99_wait[MS_MAX_PROFILES]; /* NAN: profile absent */
    double tpot[MS_MAX_PROFILES];                                /* mean time per output token, s */
} ms_online_point;

/* Parses "POLICY[/QUEUE],..." into s->policies and s->queues. */
int ms_online_sweep_parse_policies(const char *text, ms_online_sweep *s, ms_error *err);
/* Parses "LO:HI:STEP" (or one load) into s->loads; loads must lie in (0, 10]. */
int ms_online_sweep_parse_loads(const char *text, ms_online_sweep *s, ms_error *err);
/* Runs every policy at every load (npolicies x nloads points, policy-major) into *out
 * (caller frees). progress, when given, is called after each point. */
int ms_online_sweep_run(const ms_gpu_model *m, const ms_online_sweep *s,
                        void (*progress)(void *arg, int done, int total), void *arg,
                        ms_online_point **out, ms_error *err);
/* CSV, one line per point: policy,load,arrival_mean,turnaround,makespan,wait,execution,
 * utilisation,fragmentation,layout, then wait_p50_P,wait_p99_P,tpot_ms_P per mix profile. */
int ms_online_sweep_write_csv(const char *path, const ms_gpu_model *m, const ms_online_sweep *s,
                              const ms_online_point *pts, ms_error *err);
/* SVG: turnaround, mean wait, the worst profile's p99 wait, utilisation and fragmentation
 * against offered load, one line per policy. */
int ms_online_sweep_write_svg(const ms_online_sweep *s, const ms_online_point *pts,
                              const char *path, const char *title, ms_error *err);

/* ---- The ablation: the techniques switched on one by one (paper 002) ---- */

/* Rows: firstfit-static, +balance, +balance+dynamic, all (+migration), firstfit-dynamic,
 * all - balance, all - dynamic. Loads: Normal and Long service at mean inter-arrival 25 s
 * and 50 s. */
#define MS_ABLATION_ROWS  7
#define MS_ABLATION_LOADS 4

typedef struct ms_online_ablation {
    ms_online_gen gen;       /* the workload; service and arrival_mean set per load */
    ms_online_config cfg;    /* gpus, tau, kappa, ...; the techniques set per row */
    unsigned long long seed; /* evaluation seeds seed .. seed+seeds-1; a static row's */
    int seeds;               /*   layout is chosen on MS_ONLINE_TRAIN_SEED(seed) ... */
} ms_online_ablation;

/* One row on one load, means over the seeds (s); all NAN when no static layout holds the
 * mix (a static row on one GPU). */
typedef struct ms_online_ablation_cell {
    double turnaround, wait, execution;
} ms_online_ablation_cell;

typedef struct ms_online_ablation_table {
    ms_online_ablation_cell cell[MS_ABLATION_ROWS][MS_ABLATION_LOADS];
} ms_online_ablation_table;

const char *ms_online_ablation_row_name(int row);
const char *ms_online_ablation_load_name(int load);
/* Runs every row on every load into *out; row_done, when given, is called after each row
 * with the rows so far (the whole table takes minutes). */
int ms_online_ablation_run(const ms_gpu_model *m, const ms_online_ablation *a,
                           void (*row_done)(void *arg, int row, const ms_online_ablation_table *t),
                           void *arg, ms_online_ablation_table *out, ms_error *err);

/* ---- A cluster of nodes under Slurm (docs/online.md, "Cluster simulation") ---- */

/* How Slurm sees the MIG GPUs of a node. */
enum ms_online_cluster_policy {
    MS_CLUSTER_DYNAMIC = 0, /* a count-only GRES of compute slices; migsched places on the node */
    MS_CLUSTER_STATIC = 1,  /* every GPU partitioned once; a typed GRES per instance type */
};
#define MS_CLUSTER_MAX_GPUS 64

/* Slurm's own delays, in the workload's seconds; 0 leaves each out (docs/online.md,
 * "Slurm's delays"). */
typedef struct ms_online_slurm_timing {
    double launch;     /* a job holds its resources this long past its work (launch, end) */
    double tick;       /* a submission waits for the next multiple of this, or a job's end */
    double backfill;   /* a job behind a blocked one starts only at multiples of this */
    double limit_unit; /* > 0: a job's time limit is its work in whole units plus one */
    bool node_count;   /* dynamic: each node's slice count as migschedd's slurm-node keeps it */
} ms_online_slurm_timing;

typedef struct ms_online_cluster_config {
    int policy; /* enum ms_online_cluster_policy */
    int nodes;
    int node_cpus;         /* CPUs of a node; a job asks one (cons_tres fits by free CPUs) */
    ms_online_config node; /* each node's placement (dynamic); node.gpus = GPUs per node */
    ms_partition layout[MS_CLUSTER_MAX_GPUS]; /* static: GPU g of every node */
    ms_online_slurm_timing slurm;
} ms_online_cluster_config;

/* One node, 64 CPUs, migsched's default placement on 1 GPU, no layout. */
void ms_online_cluster_config_defaults(ms_online_cluster_config *c);

typedef struct ms_online_cluster_stat {
    int n; /* jobs (NAN means when 0) */
    double mean_wait, p50_wait, p99_wait, mean_turnaround, p50_turnaround, p99_turnaround;
} ms_online_cluster_stat;

typedef struct ms_online_cluster_result {
    int n;
    double *start, *end; /* per job of the workload */
    double *admitted;    /* when Slurm gave it a node */
    double *plugin_wait; /* admitted -> given an instance on the node; 0: at once */
    int *node;
    int *type; /* profile of the instance it ran on (static: its typed request) */
    ms_online_cluster_stat all, by_profile[MS_MAX_PROFILES]; /* by the job's own profile */
    double makespan;                                         /* last end - first arrival */
    double utilisation; /* instance slice-seconds held by jobs / (slices x makespan) */
    long plugin_waits;  /* jobs admitted whose instance could not be placed at once */
    double plugin_wait_total, plugin_wait_mean; /* over those jobs (mean NAN when none) */
    double plugin_wait_max;
    long held;       /* jobs Slurm left pending by the first pass after their arrival */
    long backfilled; /* jobs started while an older one was blocked */
    long creations, destructions, migrations, events;
} ms_online_cluster_result;

/* Runs the workload on the cluster: Slurm's FIFO with backfill and select/cons_tres's node
 * choice, then each node's own placement. Static: every job asks the type
 * ms_online_cluster_type gives, and fails with MS_EINFEASIBLE when there is none. */
int ms_online_cluster_simulate(const ms_gpu_model *m, const ms_online_workload *w,
                               const ms_online_cluster_config *c, ms_online_cluster_result *r,
                               ms_error *err);
void ms_online_cluster_result_fini(ms_online_cluster_result *r);

/* A static layout: one partition ("3-2-1", ms_partition_parse) for every GPU, or a
 * comma-separated list of `gpus` partitions, GPU 0 first. */
int ms_online_cluster_layout_parse(const ms_gpu_model *m, const char *text, int gpus,
                                   ms_partition *out, ms_error *err);
/* The list form, "4-3,4-3,7" (one partition when every GPU holds the same). */
void ms_online_cluster_layout_format(const ms_gpu_model *m, const ms_partition *layout, int gpus,
                                     char *buf, int len);
/* The typed request of a job of `profile`: the smallest profile of the layout (fewest
 * compute slices, then least memory, then lowest index) with at least its compute slices
 * and memory; -1 when none. */
int ms_online_cluster_type(const ms_gpu_model *m, const ms_partition *layout, int gpus,
                           int profile);
/* The static layout with the lowest mean turnaround on `train` among every GPU holding one
 * partition of the model and that partition on the first GPUs with k whole GPUs after it
 * (k = 1 .. gpus - 1), in the model's partition order (the first on ties). Layouts some job
 * of `train` or `eval` cannot run on are skipped. Writes c->layout; *candidates counts the
 * layouts simulated. */
int ms_online_cluster_best_layout(const ms_gpu_model *m, const ms_online_workload *train,
                                  const ms_online_workload *eval, ms_online_cluster_config *c,
                                  double *turnaround, int *candidates, ms_error *err);

/* Offered load of a workload on `slices` compute slices: sum of c_p x work over
 * slices x (last arrival - first arrival); NAN for a span of 0. */
double ms_online_offered_load(const ms_gpu_model *m, const ms_online_workload *w, int64_t slices);
/* The factor by which w's arrival gaps must stretch for its offered load to become `load`. */
int ms_online_load_scale(const ms_gpu_model *m, const ms_online_workload *w, int64_t slices,
                         double load, double *scale, ms_error *err);
/* Multiplies every arrival's distance from the first by `scale`. */
void ms_online_scale_arrivals(ms_online_workload *w, double scale);
/* A copy of jobs [from, to) of w (names kept). */
int ms_online_workload_range(const ms_online_workload *w, int from, int to, ms_online_workload *out,
                             ms_error *err);

/* What `online simulate --nodes` runs: the workload scaled to an offered load, split into
 * a training part (static best only) and the evaluated rest, then each policy asked for. */
typedef struct ms_online_cluster_spec {
    ms_online_cluster_config cfg; /* nodes, GPUs, node placement, a given static layout */
    bool dynamic, statik;         /* the policies to run */
    bool static_best;             /* choose the layout on the training part */
    double train_fraction;        /* static_best: the first floor(F x jobs) jobs train */
    double load; /* > 0: the arrivals time-scaled so that the evaluated jobs' offered load
                  * on the cluster's slices is this (the training part shares the scale) */
} ms_online_cluster_spec;

typedef struct ms_online_cluster_outcome {
    ms_online_workload eval;             /* the evaluated jobs, as scaled */
    double offered_load;                 /* of eval on the cluster */
    int train_jobs;                      /* static_best: the jobs the layout was chosen on */
    int candidates;                      /* static_best: the layouts simulated */
    double train_turnaround;             /* static_best: the chosen layout's mean there */
    ms_online_cluster_config statik_cfg; /* its layout */
    ms_online_cluster_result dynamic, statik;
} ms_online_cluster_outcome;

int ms_online_cluster_compare(const ms_gpu_model *m, const ms_online_workload *w,
                              const ms_online_cluster_spec *spec, ms_online_cluster_outcome *out,
                              ms_error *err);
void ms_online_cluster_outcome_fini(ms_online_cluster_outcome *o);

#endif
