/* schedule.h: the schedule (plan) type, migsched-schedule/1 JSON, the validator,
 * lower bounds, metrics and a text Gantt view. */
#ifndef MIGSCHED_SCHEDULE_H
#define MIGSCHED_SCHEDULE_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/workload.h"

/* Times are seconds; NAN stands for JSON null (an instance present before the plan has
 * NAN create times, one alive at the end NAN destroy times). */
typedef struct ms_sched_instance {
    int id;
    int gpu;
    int profile; /* index into the model's profiles */
    int start_slot;
    double create_start, create_end;
    double destroy_start, destroy_end;
} ms_sched_instance;

typedef struct ms_sched_task {
    int index;    /* position in the input workload */
    int instance; /* ms_sched_instance.id */
    double start, end;
    char *name; /* the name a plan file gave the task (owned), NULL otherwise */
} ms_sched_task;

typedef struct ms_stat {
    char key[MS_NAME_LEN];
    double value;
} ms_stat;

#define MS_MAX_STATS 32

typedef struct ms_schedule {
    ms_gpu_model gpu; /* a copy, so a schedule stands on its own */
    int gpus;
    char algorithm[MS_NAME_LEN];
    int ninst, inst_cap;
    ms_sched_instance *inst; /* inst[k].id == k */
    int ntasks, task_cap;
    ms_sched_task *task;
    int nstats;
    ms_stat stats[MS_MAX_STATS];
} ms_schedule;

ms_schedule *ms_schedule_new(const ms_gpu_model *gpu, int gpus, const char *algorithm);
void ms_schedule_free(ms_schedule *s);
ms_schedule *ms_schedule_clone(const ms_schedule *s);
/* Removes every instance, task and stat, keeping the GPU, algorithm and the room already
 * allocated: for a caller that refills one schedule again and again. */
void ms_schedule_clear(ms_schedule *s);
/* Returns the new instance id (or -1 on allocation failure). */
int ms_schedule_add_instance(ms_schedule *s, int gpu, int profile, int start_slot,
                             double create_start, double create_end, double destroy_start,
                             double destroy_end);
int ms_schedule_add_task(ms_schedule *s, int index, int instance, double start, double end);
void ms_schedule_set_stat(ms_schedule *s, const char *key, double value);
/* NAN if absent. */
double ms_schedule_stat(const ms_schedule *s, const char *key);
/* Removes the measured durations (stats named *_seconds), whose values change from run
 * to run, so that output is the same bytes for the same input. */
void ms_schedule_drop_timings(ms_schedule *s);
/* Sorts tasks by (start, index) and keeps ids dense: deterministic output order. */
void ms_schedule_normalize(ms_schedule *s);
double ms_schedule_makespan(const ms_schedule *s);
/* The creations and destructions on GPU `gpu` as (instance << 1 | is_destroy), in planned
 * order (an instance present at the start first; at equal times a destruction first) into
 * ops (room for 2 * ninst); returns their count. ms_schedule_sort_ops sorts any such list
 * the same way. */
int ms_schedule_ops(const ms_schedule *s, int gpu, int *ops);
void ms_schedule_sort_ops(const ms_schedule *s, int *ops, int n);
/* Task positions by (instance, planned start, index): each instance's run order. */
void ms_schedule_task_order(const ms_schedule *s, int *order);

/* JSON (migsched-schedule/1). The writer fills makespan and the bounds from w. */
int ms_schedule_write_json(const ms_schedule *s, const ms_workload *w, FILE *f, ms_error *err);
/* gpu may be NULL: then the schedule's "gpu_model" must name a built-in model. */
int ms_schedule_parse_json(const char *text, size_t len, const char *source,
                           const ms_gpu_model *gpu, ms_schedule **out, ms_error *err);
int ms_schedule_read_json(const char *path, const ms_gpu_model *gpu, ms_schedule **out,
                          ms_error *err);

/* ---- What the GPUs hold before a plan (DESIGN.md, --initial) -----------------------
 * An input of planning, the same for every algorithm and the lower bounds: an initial
 * instance the plan keeps costs nothing, one it does not keep is destroyed first and
 * charged. Empty (n = 0, or a NULL pointer where one is taken) means nothing is there. */
typedef struct ms_initial_inst {
    int gpu;
    ms_placement at;
    double busy_until; /* 0: idle; t > 0: running work outside the plan until t, so the
                        * plan neither runs a task on it nor destroys it before t */
} ms_initial_inst;

typedef struct ms_initial {
    int n, cap;
    ms_initial_inst *inst; /* sorted by (gpu, start slot) */
} ms_initial;

void ms_initial_init(ms_initial *l);
void ms_initial_fini(ms_initial *l);
/* Adds an instance, keeping the order; MS_EINVAL (err says why) for a placement the model
 * does not allow or one overlapping an instance already there. */
int ms_initial_add(ms_initial *l, const ms_gpu_model *gpu, int g, ms_placement at,
                   double busy_until, ms_error *err);
/* "empty", or per GPU a partition ("4-3", "2-2-2-1", a 1-based index as fixpart: takes,
 * or "empty"), comma-separated: one item applies to every GPU, else one item per GPU.
 * "device" is refused here: only `run` and migschedd, which see a device, read it. */
int ms_initial_parse(const char *text, const ms_gpu_model *gpu, int gpus, ms_initial *out,
                     ms_error *err);
/* True for the keyword "device". */
bool ms_initial_is_device(const char *text);
/* "empty", or one partition per GPU joined by commas (one item when every GPU holds the
 * same). */
void ms_initial_format(const ms_initial *l, const ms_gpu_model *gpu, int gpus, char *buf,
                       size_t len);
/* The instances of l on GPU g, in slot order, into at/busy (room for MS_MAX_SLOTS); returns
 * their count. */
int ms_initial_on_gpu(const ms_initial *l, int g, ms_placement *at, double *busy);
/* Bit s set = an instance of s compute slices is there on some GPU (ms_bound_lbound_present). */
unsigned ms_initial_present_sizes(const ms_initial *l, const ms_gpu_model *gpu);
/* The initial instances a schedule lists (NaN create times), as a layout. */
int ms_initial_of_schedule(const ms_schedule *s, ms_initial *out, ms_error *err);
/* Describes how `have` differs from `want` (at most len bytes); the names say where each
 * is: with "in the plan's layout" and "on the device", "GPU 0: 3g.20gb at slot 4 is in
 * the plan's layout, not on the device; ...". Returns the number of differences. */
int ms_initial_diff(const ms_initial *want, const ms_initial *have, const ms_gpu_model *gpu,
                    const char *want_name, const char *have_name, char *buf, size_t len);

/* Plan and workload agree: every task's index is a workload position and, where the plan
 * names its tasks, the name is the workload's at that index (a workload with rows swapped
 * or a task renamed is not the one the plan was made for). Run before the validator,
 * whose timing violations would hide the cause; err names the first mismatch. */
int ms_schedule_match_workload(const ms_schedule *s, const ms_workload *w, ms_error *err);

/* Validator: every rule of DESIGN.md. Each violation names its rule. */
typedef struct ms_violation {
    char rule[MS_NAME_LEN];
    char msg[384];
} ms_violation;

typedef struct ms_validation {
    int n, cap;
    ms_violation *v;
} ms_validation;

/* Returns the number of violations (0 = valid); out may be NULL. Call
 * ms_validation_fini on out afterwards. */
int ms_schedule_validate(const ms_schedule *s, const ms_workload *w, ms_validation *out);
/* The same, and the plan starts from `initial` (NULL: empty): its instances without a
 * creation are exactly those of the layout, and none that is busy runs a task or is
 * destroyed before its busy_until (rule initial-layout). */
int ms_schedule_validate_initial(const ms_schedule *s, const ms_workload *w,
                                 const ms_initial *initial, ms_validation *out);
void ms_validation_fini(ms_validation *v);

/* Rule names used by the validator. */
#define MS_RULE_TASK_MISSING        "task-missing"     /* an input task not scheduled */
#define MS_RULE_TASK_DUPLICATE      "task-duplicate"   /* scheduled more than once / bad index */
#define MS_RULE_TASK_DURATION       "task-duration"    /* end - start != time at the size */
#define MS_RULE_PLACEMENT           "placement"        /* not an allowed placement / bad gpu */
#define MS_RULE_INSTANCE_OVERLAP    "instance-overlap" /* two tasks overlap on one instance */
#define MS_RULE_TASK_LIFETIME       "task-lifetime"   /* task outside [create_end, destroy_start] */
#define MS_RULE_SLOT_CONFLICT       "slot-conflict"   /* overlapping slots, overlapping lifetimes */
#define MS_RULE_RECONFIG_SERIAL     "reconfig-serial" /* two reconfigurations at once on a GPU */
#define MS_RULE_RECONFIG_DURATION   "reconfig-duration"   /* shorter than the model's time */
#define MS_RULE_DESTROY_BEFORE_TASK "destroy-before-task" /* destroyed before last task ends */
#define MS_RULE_TIMES               "times"               /* NaN, negative or unordered times */
#define MS_RULE_TASK_INSTANCE       "task-instance"  /* a task on an instance that does not exist */
#define MS_RULE_INITIAL             "initial-layout" /* not what the GPUs held before the plan */

/* Lower bounds (DESIGN.md, Lower bounds), for `gpus` GPUs of the model. */
double ms_bound_baseline(const ms_workload *w, const ms_gpu_model *gpu, int gpus);
double ms_bound_lbound(const ms_workload *w, const ms_gpu_model *gpu, int gpus);
double ms_bound_lbound_paper(const ms_workload *w, const ms_gpu_model *gpu, int gpus);
/* l_bound when instances of some sizes exist at the start (bit s set = an instance of s
 * compute slices is present): those sizes are not charged a creation. */
double ms_bound_lbound_present(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                               unsigned present);
/* ms_bound_lbound_present(present) and ms_bound_lbound_paper, the same values, from one
 * pass over the tasks (the schedule writers need both). */
void ms_bound_lbound_both(const ms_workload *w, const ms_gpu_model *gpu, int gpus, unsigned present,
                          double *l_bound, double *l_bound_paper);
/* One term of l_bound, for callers that evaluate it on many subsets of tasks: for the
 * non-empty set S of sizes (bit k = gpu->sizes[k]) fills weight[s] = s + Idle(s, S) for s
 * in S (0 elsewhere) and returns sum_{s in S} s * create(s), sizes in `present` not
 * charged. l_bound = min over S of (that + sum_i min_{s in S} weight[s] t_i(s)) / (slices
 * * gpus). */
double ms_bound_lbound_set(const ms_gpu_model *gpu, unsigned S, unsigned present,
                           double weight[MS_MAX_SLICES + 1]);
/* The present-sizes mask of a schedule's initial instances (NaN create times). */
unsigned ms_schedule_present_sizes(const ms_schedule *s);

typedef struct ms_metrics {
    double makespan;
    double baseline, l_bound, l_bound_paper;
    double rho;   /* makespan / baseline */
    double p_opt; /* (makespan / l_bound_paper - 1) * 100 */
    int creations, destructions;
    int reconfigurations; /* instances destroyed while tasks remain (repartitions) */
    double utilization;   /* busy slice-seconds / (slices * gpus * makespan) */
} ms_metrics;

void ms_schedule_metrics(const ms_schedule *s, const ms_workload *w, ms_metrics *out);

/* Text Gantt, one row per instance, `width` columns of time. */
void ms_schedule_gantt(const ms_schedule *s, const ms_workload *w, FILE *f, int width);

#endif
