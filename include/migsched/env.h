/* env.h: the MIG scheduling environment of paper 001 (state, actions, masks, rewards,
 * canonical state), shared by RL training, RL inference and online batch scheduling. */
#ifndef MIGSCHED_ENV_H
#define MIGSCHED_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

typedef enum ms_encoding {
    MS_ENC_FLOAT = 0,  /* level / M per time (paper 001 6.4) */
    MS_ENC_ONEHOT = 1, /* M components per time, all zero for 0, all -1 for infinite */
    MS_ENC_EXACT = 2,  /* ours: t / scale unrounded (at most 1), 0 for free, -1 for infinite;
                        * tasks are still grouped into classes by their levels */
} ms_encoding;

typedef struct ms_env_config {
    int n_batch; /* N: tasks visible at once */
    int levels;  /* M: discretisation levels, 0 reserved for "free" */
    ms_encoding encoding;
    bool direct_reconfig;   /* 6.5.2 DIRECT RECONFIG instead of 4.2 reconfiguration */
    bool online;            /* a started task is replaced by the next queued one (section 3) */
    bool keep_useless;      /* keep the configurations with 3g on slots 0-3 (dropped by default) */
    bool async_reconfig;    /* ours, with direct_reconfig: the clock does not stop for a
                             * reconfiguration; the kept instances take tasks while the changed
                             * ones are destroyed (once free) and created */
    bool longest_first;     /* ours: a class's longest task runs first, not its earliest */
    bool soonest_placement; /* ours: a reconfiguration builds its configuration at the
                             * placement whose destroyed instances free soonest, not at the
                             * one fixed by the current partition's symmetry */
    bool every_partition;   /* ours: every partition is a configuration of its own (the
                             * reconfiguration actions name placements, not symmetry classes);
                             * with keep_useless the follower then carries a plan out as it
                             * is (ms_env_follow_start: with async_reconfig, create_on_use
                             * and task_classes it repeats FAR's plans exactly) */
    bool create_on_use;     /* ours, with async_reconfig (or 4.2 reconfigurations; refused with
                             * direct ones that stop the clock): a reconfiguration destroys as it
                             * would but creates an instance it adds only when a first task is
                             * placed on it (on the one reconfiguration clock; the task starts
                             * at the creation's end), so an instance never used costs nothing,
                             * as in FAR's plans, which hold only the instances they use */
    bool task_classes;      /* ours: every task is a class of its own (paper 001 4.1 makes one
                             * of the tasks of equal levels), so an action names the task; the
                             * classes of equal levels go by runs_before (batch.c) */
} ms_env_config;

/* "float", "one-hot", "exact" and back; parse returns MS_EINVAL for another name. */
const char *ms_env_encoding_name(ms_encoding enc);
int ms_env_encoding_parse(const char *name, ms_encoding *out);

/* N = M = 14, FLOAT, direct reconfiguration, offline. */
void ms_env_config_default(ms_env_config *c);

typedef struct ms_env ms_env;

ms_env *ms_env_new(const ms_gpu_model *gpu, const ms_env_config *cfg, ms_error *err);
/* A new environment with src's GPU, settings and tables (not built again), no episode. */
ms_env *ms_env_new_like(const ms_env *src, ms_error *err);
void ms_env_free(ms_env *e);

/* Sizes: observation vector length and number of actions (1 + #configurations + N * K). */
int ms_env_obs_size(const ms_env *e);
int ms_env_num_actions(const ms_env *e);
const ms_env_config *ms_env_get_config(const ms_env *e);
const ms_gpu_model *ms_env_gpu(const ms_env *e);
const ms_canon_set *ms_env_canon(const ms_env *e);

/* Action numbering (paper 001 4.2): 0 = Advance, 1..C = (direct) reconfiguration to
 * canonical configuration c-1, then 1 + C + j*K + m = run a task of class j on the m-th
 * instance of the canonical configuration. */
#define MS_ACTION_ADVANCE 0
int ms_env_action_reconfig(const ms_env *e, int canon);
int ms_env_action_exec(const ms_env *e, int task_class, int instance);

/* Starts an episode on w (kept by the caller until the episode ends) from an empty GPU.
 * All of w is the queue; the batch shows its first N tasks. Times are discretised against
 * the largest finite task time of w. */
int ms_env_reset(ms_env *e, const ms_workload *w, ms_error *err);

/* The same, starting on model partition part (-1: empty GPU; a partition the canonical set
 * dropped is refused) whose instances exist before the episode (the schedule lists them as
 * initial), instance k busy with work outside w for busy[k] >= 0 seconds. */
int ms_env_reset_from(ms_env *e, const ms_workload *w, int part, const double *busy, ms_error *err);

/* dst (made for the same GPU and settings) takes src's episode at its current point, to
 * play on from there without touching src; both use src's workload. */
int ms_env_copy(ms_env *dst, const ms_env *src, ms_error *err);

/* mask[a] = 1 iff action a is allowed; never all zero before the episode ends. Returns the
 * number of allowed actions. */
int ms_env_mask(const ms_env *e, uint8_t *mask);
/* Applies an allowed action, then every forced Advance (states where Advance is the only
 * allowed action) so that the caller only sees real decisions. Returns the reward: minus the
 * time spent, in units of the discretisation scale (the episode's return is -makespan/scale).
 * Sets *done when every task has run to completion. */
double ms_env_step(ms_env *e, int action, bool *done);
/* Writes ms_env_obs_size floats. */
void ms_env_observe(const ms_env *e, float *obs);

bool ms_env_done(const ms_env *e);
const ms_workload *ms_env_workload(const ms_env *e); /* the episode's (NULL before a reset) */
double ms_env_now(const ms_env *e);                  /* seconds since the episode started */
/* A lower bound on the episode's makespan from this state on, whatever the actions: no task
 * ends before the latest end so far, a task not yet placed not before now plus its shortest
 * time, and the unplaced tasks' least slice-seconds need room on the slices after each is
 * free (tasks of the batch; the queue's are not looked at). */
double ms_env_makespan_bound(const ms_env *e);
/* Writes the part of e's state that its future depends on (everything but the schedule
 * logged so far) into key, at most MS_ENV_KEY_MAX numbers; returns how many. Two states of
 * one workload's episodes with equal keys go on alike under the same actions. */
#define MS_ENV_KEY_MAX 256
int ms_env_future_key(const ms_env *e, double *key);
double ms_env_scale(const ms_env *e);         /* seconds represented by level M */
int ms_env_canon_config(const ms_env *e);     /* current canonical configuration, -1 = empty */
int ms_env_real_partition(const ms_env *e);   /* current model partition, -1 = empty */
int ms_env_reconfigurations(const ms_env *e); /* reconfiguration actions taken */
int ms_env_steps(const ms_env *e);            /* decisions taken (forced Advances excluded) */

/* The episode so far as a schedule with real times (call when done for a full one). */
int ms_env_to_schedule(const ms_env *e, const char *algorithm, ms_schedule **out, ms_error *err);
/* The same into s, a schedule of e's GPU (ms_schedule_new with ms_env_gpu(e), 1 GPU),
 * cleared first: no allocation once s has room (for callers that convert every episode). */
int ms_env_fill_schedule(const ms_env *e, ms_schedule *s, ms_error *err);

/* ---- A plan as actions (ours; demonstrations for imitation): ms_env_follow_start takes a
 * single-GPU plan of the workload of e's offline one-batch episode, at its start; each
 * ms_env_follow_action then gives the action that carries the plan on at e's state (the
 * caller takes it), or -1 where the plan cannot go on or is complete. The episode ends near
 * the plan's makespan; with every_partition and keep_useless the follower is strict (the
 * plan's own instances, in its order), and with async_reconfig, create_on_use and
 * task_classes as well a FAR plan's episode is that plan, task by task. ---- */
#define MS_FOLLOW_MAX_TASKS  64
#define MS_FOLLOW_MAX_INST   128
#define MS_FOLLOW_MAX_PHASES 64
typedef struct ms_follow_entry {
    uint64_t key; /* the task's class */
    int size;     /* compute slices of its instance in the plan */
    int slot;     /* its instance's start slot in the plan */
    int phase;    /* the partition it starts in */
    int index;    /* in the workload */
    double start; /* planned (strictly, for an instance's first task: its creation's) */
} ms_follow_entry;
typedef struct ms_follow_phase {
    int n;                                                  /* instances the plan holds */
    int8_t size[MS_MAX_INSTANCES], start[MS_MAX_INSTANCES]; /* compute slices, start slot */
} ms_follow_phase;
typedef struct ms_env_follow {
    int nphases, phase; /* phase: the one being carried out (-1: none yet) */
    ms_follow_phase phases[MS_FOLLOW_MAX_PHASES];
    uint32_t on[MS_MAX_SLICES + 1]; /* the sizes a plan's size stands on in this phase */
    int n;                          /* tasks not started yet, by phase then start */
    ms_follow_entry entry[MS_FOLLOW_MAX_TASKS];
} ms_env_follow;
int ms_env_follow_start(ms_env_follow *f, const ms_env *e, const ms_schedule *s, ms_error *err);
int ms_env_follow_action(ms_env_follow *f, const ms_env *e);

/* The index of a uniformly random allowed action: the pick-th set entry of mask (n_allowed
 * of its num_actions entries are set, n_allowed >= 1). */
int ms_env_random_action(const uint8_t *mask, int num_actions, int n_allowed, ms_rng *rng);

/* ---- Vector environment (ours): n environments of one GPU and settings stepped in one
 * call, writing into the caller's buffers; an episode that ends is followed at once by the
 * environment's next one (same-step autoreset) and its schedule goes through the
 * validator. ---- */
typedef struct ms_vec_config {
    int n; /* environments, 1..MS_VEC_MAX_ENVS */
    /* Every episode on this workload (kept by the caller while the vector lives), or NULL:
     * each episode's workload drawn by the generator, tasks of gen, environment i from its
     * own stream of the seed given to ms_vec_env_reset. */
    const ms_workload *fixed;
    ms_gen_params gen;
    int tasks;
} ms_vec_config;
#define MS_VEC_MAX_ENVS 65536

/* What a reset or step writes, row i for environment i. */
typedef struct ms_vec_out {
    float *obs;          /* n x obs_size: the observation (of the next episode's start, after
                          * an end) */
    uint8_t *mask;       /* n x num_actions: the allowed actions there */
    double *reward;      /* n: the step's reward (of the ended episode's last step) */
    uint8_t *terminated; /* n: 1 where an episode ended at this step */
    double *ep_return;   /* n: where terminated, the ended episode's return (its rewards' sum) */
    double *ep_makespan; /* n: where terminated, its makespan in seconds */
} ms_vec_out;

typedef struct ms_vec_env ms_vec_env;

ms_vec_env *ms_vec_env_new(const ms_gpu_model *gpu, const ms_env_config *cfg,
                           const ms_vec_config *vc, ms_error *err);
void ms_vec_env_free(ms_vec_env *v);
/* Environment i (its sizes, state and the schedule of its episode so far). */
const ms_env *ms_vec_env_get(const ms_vec_env *v, int i);
int ms_vec_env_size(const ms_vec_env *v);
/* Starts every environment's first episode, generated ones from seed's streams (environment
 * i's stream depends on seed and i only, not on n); writes obs and mask (reward 0, nothing
 * terminated). */
int ms_vec_env_reset(ms_vec_env *v, uint64_t seed, const ms_vec_out *out, ms_error *err);
/* Takes actions[i] in environment i. An action out of range or not allowed by the mask
 * last written is MS_EINVAL naming the environment, before any environment moves. A failure
 * after that (out of memory) leaves the vector to be reset. */
int ms_vec_env_step(ms_vec_env *v, const int32_t *actions, const ms_vec_out *out, ms_error *err);
/* Episodes ended since the reset, and those of them whose schedule the validator refused
 * (a bug in the environment: always 0), with the first refusal's message ("" if none). */
long ms_vec_env_episodes(const ms_vec_env *v);
long ms_vec_env_invalid(const ms_vec_env *v);
const char *ms_vec_env_invalid_message(const ms_vec_env *v);
/* Steps taken since the reset (one per environment per ms_vec_env_step). */
long ms_vec_env_steps(const ms_vec_env *v);
/* A uniformly random allowed action per environment (of the masks last written) into
 * actions[0..n): the random policy without a caller's loop over the masks. Drawn from a
 * stream of the reset's seed that no environment uses: the same seed, the same picks. */
int ms_vec_env_sample(ms_vec_env *v, int32_t *actions, ms_error *err);

/* Discretisation of a time t >= 0 against scale: 0 for 0, else the nearest of the levels
 * 1..M (times above the scale map to M), M + 1 for infinity. */
int ms_env_level(double t, double scale, int levels);

#endif
