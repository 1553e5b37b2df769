/* learn_ppo.h: PPO over vectorised environments, and the operations an environment
 * gives its learners (PPO, the DQN). */
#ifndef MIGSCHED_LEARN_PPO_H
#define MIGSCHED_LEARN_PPO_H

#include <stdbool.h>
#include <stdint.h>

#include "migsched/error.h"
#include "migsched/learn_mlp.h"
#include "migsched/rng.h"

/* ---- Environments seen by PPO: anything with these operations. ---- */
typedef struct ms_rl_env_ops {
    /* Starts a new episode (the rng draws its data). */
    int (*reset)(void *env, ms_rng *rng, ms_error *err);
    void (*observe)(void *env, float *obs);
    int (*mask)(void *env, uint8_t *mask);
    double (*step)(void *env, int action, bool *done);
    /* Optional (NULL: none): the action of the policy of mlp improved by rollout over its
     * width best allowed actions (0: all) at env's current state, for the imitation term. */
    int (*improve)(void *env, const ms_mlp *mlp, int width, int *action, ms_error *err);
    /* Optional (NULL: none): the action of a demonstration at env's current state, or -1
     * where there is none (start: the episode's first state, where the environment may
     * decline, e.g. when its demonstrator would do no better than the greedy policy of
     * mlp); once it gives -1 the episode goes on without. */
    int (*demonstrate)(void *env, const ms_mlp *mlp, bool start, int *action, ms_error *err);
} ms_rl_env_ops;

typedef enum ms_lr_decay { MS_LR_CONSTANT, MS_LR_LINEAR, MS_LR_COSINE } ms_lr_decay;

typedef struct ms_ppo_config {
    int n_envs;  /* vectorised environments */
    int n_steps; /* steps per environment per rollout */
    int n_epochs;
    int minibatch;
    int threads; /* workers for rollouts and gradients (both cores by default) */
    int nhidden;
    int hidden[MS_MLP_MAX_HIDDEN];
    bool separate; /* separate policy and value networks (SB3's MlpPolicy) */
    float lr, gamma, gae_lambda, clip, vf_coef, max_grad_norm;
    /* Entropy coefficient per quarter of the training steps (paper 001 6.5.1). */
    float ent_coef[4];
    /* Learning rate over the training steps: lr throughout, or from lr down to lr_min at
     * the last step, linearly or along a half cosine. */
    ms_lr_decay lr_decay;
    float lr_min;
    /* Imitation of the policy improved by rollout (ours; expert iteration): a share of the
     * rollout's states is labelled with the improved action (over the imitate_width best
     * allowed actions, 0 all), and imitate_coef x its cross-entropy is added to the loss.
     * Share 0: none (no random number is drawn for it). */
    float imitate_share, imitate_coef;
    int imitate_width;
    /* Demonstrations (ours): a share of the episodes is offered to the environments'
     * demonstrate; a state it answers takes its action, labelled for the imitation term,
     * and adds nothing to the policy, value and entropy terms (the action is not the
     * policy's). Share 0: none (no random number is drawn for it). */
    float demo_share;
} ms_ppo_config;

/* 256x256, 16 envs x 128 steps, 4 epochs of minibatches of 256, lr 3e-4, gamma 1,
 * lambda 0.95, clip 0.2, vf 0.5, grad norm 0.5, entropy 0.01/0.0075/0.005/0. */
void ms_ppo_config_default(ms_ppo_config *c);
/* The settings paper 001's authors trained with (Stable-Baselines3's PPO defaults): 10
 * epochs of minibatches of 64, separate 256x256 policy and value networks, entropy
 * 0.01/0.00075/0.0005/0; the rest as ms_ppo_config_default. */
void ms_ppo_config_paper(ms_ppo_config *c);
/* "none", "linear", "cosine" and back; parse returns MS_EINVAL for another name. */
const char *ms_lr_decay_name(ms_lr_decay d);
int ms_lr_decay_parse(const char *name, ms_lr_decay *out);

typedef struct ms_ppo_stats {
    long steps;         /* environment steps so far */
    int episodes;       /* finished in the last rollout */
    double mean_return; /* over those episodes (NAN if none) */
    double mean_length;
    float entropy, policy_loss, value_loss, grad_norm, approx_kl, clip_frac, ent_coef;
    float lr;           /* the learning rate of the last update */
    float imitate_loss; /* mean cross-entropy of the labelled rows (NAN if none) */
    int demonstrations; /* episodes of the last rollout that began as one (not in
                         * episodes and the means) */
} ms_ppo_stats;

typedef struct ms_ppo ms_ppo;

/* envs: n_envs environment objects sharing ops, each of obs_size / nact. total_steps sets
 * the entropy schedule. */
ms_ppo *ms_ppo_new(const ms_ppo_config *cfg, const ms_rl_env_ops *ops, void **envs, int obs_size,
                   int nact, long total_steps, uint64_t seed, ms_error *err);
void ms_ppo_free(ms_ppo *p);
/* One rollout of n_envs x n_steps steps and its update. */
int ms_ppo_iterate(ms_ppo *p, ms_ppo_stats *out, ms_error *err);
ms_mlp *ms_ppo_mlp(ms_ppo *p);
ms_adam *ms_ppo_adam(ms_ppo *p);
long ms_ppo_steps(const ms_ppo *p);
void ms_ppo_set_steps(ms_ppo *p, long steps);
ms_rng *ms_ppo_rng(ms_ppo *p);

#endif
