/* learn_train.h: PPO training of a scheduling policy on generated workloads, with
 * checkpoints. */
#ifndef MIGSCHED_LEARN_TRAIN_H
#define MIGSCHED_LEARN_TRAIN_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/env.h"
#include "migsched/error.h"
#include "migsched/learn_model.h"
#include "migsched/learn_ppo.h"
#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* ---- Training a scheduling policy on generated workloads (paper 001 6). ---- */
typedef struct ms_train_config {
    ms_env_config env;
    ms_ppo_config ppo;
    ms_gen_params gen; /* workload generator of the training episodes */
    char preset[64];
    /* Tasks per training episode; 0 = half the episodes N (3N online), the other half
     * uniform in 1..N (1..3N). */
    int tasks_per_episode;
    /* Episodes as paper 001's authors wrote them: exactly N tasks (the generator's fixed
     * class proportions), on a random canonical configuration whose instances are each busy
     * with probability 1/2 for a time uniform in [0, scale). Overrides tasks_per_episode. */
    bool paper_episodes;
    ms_sorted_episodes sorted; /* offline only; applies to paper episodes too */
    /* The plan an episode's demonstration carries out (ppo.demo_share > 0; offline only),
     * e.g. FAR's; the episode is one when the plan, followed in the environment
     * (ms_env_follow), ends before the greedy policy's episode. */
    int (*demonstrator)(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out,
                        ms_error *err);
    ms_demo_source demo_source; /* which one demonstrator is, for the checkpoint's header */
    long total_steps;
    uint64_t seed;
} ms_train_config;

typedef struct ms_trainer ms_trainer;

/* The workload of one training episode under cfg, drawn from rng: with probability
 * cfg->sorted.share a sorted batch, else cfg's episode length (the paper's or the varied
 * one) from the generator. */
int ms_train_episode(const ms_gpu_model *gpu, const ms_train_config *cfg, ms_rng *rng,
                     ms_workload **out, ms_error *err);

/* resume (may be NULL): a checkpoint whose parameters, Adam state, steps and RNG continue. */
ms_trainer *ms_trainer_new(const ms_gpu_model *gpu, const ms_train_config *cfg,
                           const ms_rl_model *resume, ms_error *err);
void ms_trainer_free(ms_trainer *t);
int ms_trainer_iterate(ms_trainer *t, ms_ppo_stats *out, ms_error *err);
long ms_trainer_steps(const ms_trainer *t);
/* CPU seconds of the training so far, kept in its checkpoints: the resumed checkpoint's
 * (0 when it has none) until the caller, who measures the process, sets the total. */
double ms_trainer_cpu_seconds(const ms_trainer *t);
void ms_trainer_set_cpu_seconds(ms_trainer *t, double seconds);
/* A view of the current policy as a model (shares the trainer's memory: do not destroy). */
void ms_trainer_model(ms_trainer *t, ms_rl_model *view);
int ms_trainer_save(ms_trainer *t, const char *path, ms_error *err);

#endif
