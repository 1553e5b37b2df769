/* env_internal.h: the environment's state, shared by the files of src/env only. */
#ifndef MIGSCHED_ENV_INTERNAL_H
#define MIGSCHED_ENV_INTERNAL_H

#include "migsched/env.h"

#define ENV_MAX_N 64
#define ENV_EMPTY MS_MAX_PARTITIONS /* row of the transition table for the empty GPU */

/* Going from a real partition to a canonical configuration (paper 001 4.2, through σ⁻¹). */
typedef struct env_trans {
    int target;       /* real partition reached */
    uint32_t changed; /* real slices destroyed or created */
    int ndestroy, ncreate;
    uint8_t destroy[MS_MAX_INSTANCES]; /* instance indices in the source partition */
    uint8_t create[MS_MAX_INSTANCES];  /* instance indices in the target partition */
} env_trans;

/* An instance as it appears in the schedule being built. */
typedef struct env_log_inst {
    int profile, start;
    double create_start, create_end, destroy_start, destroy_end;
} env_log_inst;

typedef struct env_log_task {
    int inst;
    double start, end;
} env_log_task;

struct ms_env {
    ms_gpu_model gpu;
    ms_env_config cfg;
    ms_canon_set canon;
    int K, S, C, nact, obs_size;
    /* Static tables. */
    env_trans trans[MS_MAX_PARTITIONS + 1][MS_MAX_PARTITIONS];
    int ninst[MS_MAX_PARTITIONS];                        /* instances of each partition */
    uint8_t cinst[MS_MAX_PARTITIONS][MS_MAX_INSTANCES];  /* canonical order -> instance */
    uint32_t imask[MS_MAX_PARTITIONS][MS_MAX_INSTANCES]; /* real slice masks */
    int isize[MS_MAX_PARTITIONS][MS_MAX_INSTANCES];      /* compute slices */
    uint32_t csizes[MS_MAX_PARTITIONS];                  /* bit s: canonical config has size s */
    int ident[MS_MAX_SLICES];                            /* σ of the empty GPU */

    /* Episode (ms_env_copy copies every field from here on, buffers by content and not
     * their capacities: add a new field there too): the
     * workload and its discretised classes (allocated at reset). */
    const ms_workload *w;
    double scale;
    int task_cap;
    uint8_t *level;  /* task * S + size index */
    uint64_t *key;   /* Num of each task's class */
    int next_queued; /* first task not yet in the batch */
    int nbatch, batch[ENV_MAX_N];
    int nclass, class_task[ENV_MAX_N], class_count[ENV_MAX_N];
    uint32_t batch_sizes; /* bit s: some batch task can run on s slices */

    /* GPU. */
    int part;                   /* real partition, -1 = empty */
    int live[MS_MAX_INSTANCES]; /* log id of each instance of part */
    double now, reconfig_until;
    double last_end; /* latest task end so far */
    double free_at[MS_MAX_SLICES];
    bool last_reconfig, done, failed;
    int nreconf, nsteps;

    /* Schedule log. */
    int nlog, log_cap;
    env_log_inst *log;
    env_log_task *tlog;
};

int env_build_tables(ms_env *e, ms_error *err);
/* The instances to destroy and create to go from partition from (-1: empty) to q. */
void env_transition_between(const ms_env *e, int from, int q, env_trans *t);
/* When instance k of partition part is free: the latest end of a task on its slices (0 if
 * none ran there). */
double env_instance_free_at(const ms_env *e, int part, int k);
/* The transition a reconfiguration to canonical configuration c takes from e's partition:
 * the fixed one of the tables, or with soonest_placement possibly another placement of c,
 * built in *scratch. */
const env_trans *env_transition(const ms_env *e, int c, env_trans *scratch);
/* Batch classes (paper 001 4.1): rebuilt whenever the batch changes. */
void env_rebuild_classes(ms_env *e);
void env_refill(ms_env *e);
uint32_t env_busy_slices(const ms_env *e);

#endif
