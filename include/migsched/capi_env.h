/* capi_env.h: the flat API's scheduling environment (paper 001's MIG environment, env.h):
 * one environment stepped a decision at a time, and a vector of environments stepped in one
 * call into the caller's buffers. capi.h's conventions hold (0 or an ms_status code, the
 * message through msc_last_error).
 *
 * Settings are a JSON object whose keys are `migsched train`'s option names (all optional):
 * "n-batch" (14), "levels" (14), "encoding" ("float", "one-hot", "exact"), "no-direct",
 * "online", "async-reconfig", "longest-first", "soonest-placement", "keep-useless",
 * "every-partition", "create-on-use", "task-classes" (booleans, false; the last four are
 * not `train` options), and for generated episodes "preset" (the generator's presets,
 * "MIXEDSCALING,WIDETIMES" by default) and "tasks" (tasks per episode, default n-batch).
 * NULL or "" is {}. */
#ifndef MIGSCHED_CAPI_ENV_H
#define MIGSCHED_CAPI_ENV_H

#include <stddef.h>
#include <stdint.h>

typedef struct ms_gpu_model ms_gpu_model;
typedef struct ms_workload ms_workload;
typedef struct ms_schedule ms_schedule;
typedef struct msc_env msc_env;
typedef struct msc_vec_env msc_vec_env;

/* ---- One environment ---- */
int msc_env_new(const ms_gpu_model *gpu, const char *config_json, msc_env **out);
void msc_env_free(msc_env *e);
/* {"obs_size","num_actions","configurations","slices","sizes","n_batch","levels",
 * "encoding","no_direct","online","async_reconfig","longest_first","soonest_placement",
 * "keep_useless","every_partition","create_on_use","task_classes","preset","tasks",
 * "obs_low","obs_high"}: action a is 0 Advance, 1..configurations a reconfiguration, then
 * 1 + configurations + j * slices + m a task of class j on instance m; every observation
 * entry lies in [obs_low, obs_high]. */
int msc_env_describe(const msc_env *e, char **json);
int msc_env_obs_size(const msc_env *e);
int msc_env_num_actions(const msc_env *e);
/* Starts an episode on w (kept by the caller until the next reset or the free). */
int msc_env_reset(msc_env *e, const ms_workload *w);
/* Starts an episode on a workload drawn by the generator (the settings' preset and tasks)
 * from seed. */
int msc_env_reset_seed(msc_env *e, uint64_t seed);
/* Takes an allowed action (then every forced Advance): *reward the time it took, minus,
 * in units of the episode's scale; *done 1 when every task has run. An action the mask does
 * not allow, or a step with no episode going on, is MS_EINVAL. */
int msc_env_step(msc_env *e, int action, double *reward, int *done);
/* Writes num_actions bytes (1 = allowed); returns how many are allowed (0 once done). */
int msc_env_mask(const msc_env *e, uint8_t *mask);
/* Writes obs_size floats. */
void msc_env_observe(const msc_env *e, float *obs);
int msc_env_done(const msc_env *e);   /* 1 when the episode has ended (or none started) */
double msc_env_now(const msc_env *e); /* seconds since the episode started */
/* A lower bound on the episode's makespan from this state on, whatever the actions. */
double msc_env_makespan_bound(const msc_env *e);
double msc_env_scale(const msc_env *e);         /* seconds that level M stands for */
int msc_env_steps(const msc_env *e);            /* decisions taken (forced Advances excluded) */
int msc_env_reconfigurations(const msc_env *e); /* reconfiguration actions taken */
/* The episode so far as a schedule (full once done), named algorithm (NULL: "rl"). */
int msc_env_to_schedule(const msc_env *e, const char *algorithm, ms_schedule **out);
/* A copy of the episode's workload (the one given or the one generated). */
int msc_env_workload(const msc_env *e, ms_workload **out);
/* Follows a single-GPU plan of the episode's workload (offline, one batch: tasks <= n-batch),
 * from the episode's start: after msc_env_follow_start, each msc_env_follow_action gives
 * the action that carries the plan on at the current state, or -1 where it is complete
 * or cannot go on. */
int msc_env_follow_start(msc_env *e, const ms_schedule *s);
int msc_env_follow_action(msc_env *e);
/* Plays steps decisions of uniformly random allowed actions, with mask and observation at
 * each (episodes generated from seed, one after another): *seconds the time they took,
 * *episodes how many ended. The environment's own speed, beside a caller's loop. */
int msc_env_random_steps(msc_env *e, long steps, uint64_t seed, double *seconds, long *episodes);

/* ---- A vector of environments ---- */
/* n environments of gpu and the settings, every episode on fixed (kept by the caller) or,
 * fixed NULL, generated: environment i draws from its own stream of the reset's seed. */
int msc_vec_env_new(const ms_gpu_model *gpu, const char *config_json, int n,
                    const ms_workload *fixed, msc_vec_env **out);
void msc_vec_env_free(msc_vec_env *v);
/* As msc_env_describe, and "num_envs". */
int msc_vec_env_describe(const msc_vec_env *v, char **json);
/* Starts every environment's first episode; writes obs (n x obs_size) and mask
 * (n x num_actions). */
int msc_vec_env_reset(msc_vec_env *v, uint64_t seed, float *obs, uint8_t *mask);
/* actions[i] in environment i; writes obs and mask of the next states, reward[i],
 * terminated[i] (1: an episode ended, environment i is at its next one's start) and there
 * the ended episode's return and makespan (seconds). A disallowed action is MS_EINVAL
 * before any environment moves. */
int msc_vec_env_step(msc_vec_env *v, const int32_t *actions, float *obs, uint8_t *mask,
                     double *reward, uint8_t *terminated, double *episode_return,
                     double *episode_makespan);
/* A uniformly random allowed action per environment, of the masks last written, into
 * actions (n): the random policy in one call, drawn from a stream of the reset's seed that
 * no environment uses (the same seed, the same picks). MS_EINVAL before a reset. */
int msc_vec_env_sample_actions(msc_vec_env *v, int32_t *actions);
/* Episodes ended since the reset; those whose schedule the validator refused (always 0:
 * another count is a bug, described by msc_vec_env_invalid_message); steps since the reset,
 * one per environment per msc_vec_env_step. */
int64_t msc_vec_env_episodes(const msc_vec_env *v);
int64_t msc_vec_env_invalid(const msc_vec_env *v);
const char *msc_vec_env_invalid_message(const msc_vec_env *v);
int64_t msc_vec_env_steps(const msc_vec_env *v);
/* Environment i's episode so far as a schedule, and a copy of its workload. */
int msc_vec_env_to_schedule(const msc_vec_env *v, int i, ms_schedule **out);
int msc_vec_env_workload(const msc_vec_env *v, int i, ms_workload **out);
/* Resets with seed, then plays steps vector steps of msc_vec_env_sample_actions' picks:
 * *seconds the steps took (the vector's own speed). */
int msc_vec_env_random_steps(msc_vec_env *v, long steps, uint64_t seed, double *seconds);

#endif
