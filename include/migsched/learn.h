/* learn.h: small neural networks on OpenBLAS (MLP with policy and value heads), masked
 * categorical policies, Adam, PPO over vectorised environments, a dueling double DQN, model
 * files, and the learned scheduler of paper 001. */
#ifndef MIGSCHED_LEARN_H
#define MIGSCHED_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "migsched/env.h"
#include "migsched/error.h"
#include "migsched/rng.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* ---- MLP: hidden layers (tanh, or ReLU for the DQN) shared by a head over the actions
 * (policy logits, or DQN advantages) and a one-output head (value). ---- */
#define MS_MLP_MAX_HIDDEN 4

typedef enum ms_activation { MS_ACT_TANH = 0, MS_ACT_RELU = 1 } ms_activation;

typedef struct ms_mlp {
    int in, nact, nhidden;
    ms_activation activation; /* of the hidden layers; ms_mlp_init sets tanh */
    bool separate;        /* the value head has hidden layers of its own (SB3's MlpPolicy) */
    int hidden[MS_MLP_MAX_HIDDEN];
    size_t nparams;
    /* Every layer: W (out x in, row-major) then b (out); in order the hidden layers, the
     * policy head, the value head, then (separate) the value network's hidden layers. */
    float *params;
    size_t w_off[2 * MS_MLP_MAX_HIDDEN + 2], b_off[2 * MS_MLP_MAX_HIDDEN + 2];
} ms_mlp;

/* Scratch buffers for batches of up to cap rows. */
typedef struct ms_mlp_work {
    int cap;
    /* Hidden activations (after tanh or ReLU), the value network's after the policy's. */
    float *act[2 * MS_MLP_MAX_HIDDEN];
    float *delta[2 * MS_MLP_MAX_HIDDEN];
    float *logits, *value;
} ms_mlp_work;

/* Checks the architecture and fills the widths, offsets and nparams; allocates nothing
 * (a reader compares nparams with the bytes it has before trusting a header). */
int ms_mlp_shape(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, ms_error *err);
int ms_mlp_init(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, ms_rng *rng,
                ms_error *err);
/* The same with `separate` policy and value networks of the same hidden widths. */
int ms_mlp_shape_sep(ms_mlp *m, int in, int nhidden, const int *hidden, int nact,
                     bool separate, ms_error *err);
int ms_mlp_init_sep(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, bool separate,
                    ms_rng *rng, ms_error *err);
void ms_mlp_destroy(ms_mlp *m);
int ms_mlp_work_init(ms_mlp_work *w, const ms_mlp *m, int cap, ms_error *err);
void ms_mlp_work_destroy(ms_mlp_work *w);
/* x is rows x in; fills w->logits (rows x nact) and w->value (rows). */
void ms_mlp_forward(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows);
/* The same logits without the value (what acting needs). */
void ms_mlp_forward_policy(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows);
/* After ms_mlp_forward on the same x: adds d(loss)/d(params) to grad given d(loss)/d(logits)
 * and d(loss)/d(value). */
void ms_mlp_backward(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows,
                     const float *dlogits, const float *dvalue, float *grad);

/* ---- Masked categorical distribution over logits. ---- */
/* logp[a] = log softmax over allowed actions (-INFINITY where mask[a] = 0); returns the
 * entropy. */
float ms_policy_logp(const float *logits, const uint8_t *mask, int n, float *logp);
int ms_policy_sample(const float *logp, int n, ms_rng *rng);
int ms_policy_argmax(const float *logits, const uint8_t *mask, int n);

/* ---- Adam with global-norm gradient clipping. ---- */
typedef struct ms_adam {
    size_t n;
    float *m, *v;
    long t;
    float lr, beta1, beta2, eps;
} ms_adam;

int ms_adam_init(ms_adam *a, size_t n, float lr, ms_error *err);
void ms_adam_destroy(ms_adam *a);
/* Scales grad to norm <= max_norm (if max_norm > 0), then updates params. Returns the norm
 * before clipping. */
float ms_adam_step(ms_adam *a, float *params, float *grad, float max_norm);
/* The same in parts, for a step split over threads: ms_adam_begin counts the step and
 * returns the clipping scale for a gradient of norm `norm`; ms_adam_apply updates
 * parameters [lo, hi) with the scaled gradient. ms_sq_sum: the sum of squares of g[0..n),
 * always summed in the same order. */
float ms_adam_begin(ms_adam *a, float norm, float max_norm);
void ms_adam_apply(ms_adam *a, float *params, const float *grad, float scale, size_t lo,
                   size_t hi);
double ms_sq_sum(const float *g, size_t n);

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
    int n_envs;          /* vectorised environments */
    int n_steps;         /* steps per environment per rollout */
    int n_epochs;
    int minibatch;
    int threads;         /* workers for rollouts and gradients (both cores by default) */
    int nhidden;
    int hidden[MS_MLP_MAX_HIDDEN];
    bool separate;       /* separate policy and value networks (SB3's MlpPolicy) */
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
    long steps;               /* environment steps so far */
    int episodes;             /* finished in the last rollout */
    double mean_return;       /* over those episodes (NAN if none) */
    double mean_length;
    float entropy, policy_loss, value_loss, grad_norm, approx_kl, clip_frac, ent_coef;
    float lr;                 /* the learning rate of the last update */
    float imitate_loss;       /* mean cross-entropy of the labelled rows (NAN if none) */
    int demonstrations;       /* episodes of the last rollout that began as one (not in
                               * episodes and the means) */
} ms_ppo_stats;

typedef struct ms_ppo ms_ppo;

/* envs: n_envs environment objects sharing ops, each of obs_size / nact. total_steps sets
 * the entropy schedule. */
ms_ppo *ms_ppo_new(const ms_ppo_config *cfg, const ms_rl_env_ops *ops, void **envs,
                   int obs_size, int nact, long total_steps, uint64_t seed, ms_error *err);
void ms_ppo_free(ms_ppo *p);
/* One rollout of n_envs x n_steps steps and its update. */
int ms_ppo_iterate(ms_ppo *p, ms_ppo_stats *out, ms_error *err);
ms_mlp *ms_ppo_mlp(ms_ppo *p);
ms_adam *ms_ppo_adam(ms_ppo *p);
long ms_ppo_steps(const ms_ppo *p);
void ms_ppo_set_steps(ms_ppo *p, long steps);
ms_rng *ms_ppo_rng(ms_ppo *p);

/* ---- Model files: "MSRLMODL", version, JSON header, float32 parameters (+ Adam state). */
#define MS_MODEL_VERSION 1

/* A share of the training episodes cut as `rl-eval --order sorted` cuts its batches: a
 * dataset of `tasks` tasks from the generator in class order, one of its batches of N
 * (the short last one included), drawn uniformly. share 0: none (files before it). */
typedef struct ms_sorted_episodes {
    double share;
    int tasks;
} ms_sorted_episodes;

/* Whose plans demonstrate (train --demonstrator; header train.demonstrator, written only
 * when not FAR): FAR's, or the search scheduler's (docs/search.md). */
typedef enum ms_demo_source { MS_DEMO_FAR, MS_DEMO_SEARCH } ms_demo_source;
/* "far", "search" and back; parse returns MS_EINVAL for another name. */
const char *ms_demo_source_name(ms_demo_source s);
int ms_demo_source_parse(const char *name, ms_demo_source *out);

typedef struct ms_rl_model {
    ms_mlp mlp;
    ms_env_config env;
    char gpu[MS_NAME_LEN];
    char preset[64];
    long steps;
    uint64_t seed;
    char commit[32];
    bool has_adam;
    ms_adam adam;            /* only when has_adam (for --resume) */
    ms_rng rng;              /* trainer state at the checkpoint */
    /* Training settings (header "train"; files from before it have none): PPO's (threads
     * excepted) and the episodes', so that a resumed run continues as it started. */
    bool has_train;
    ms_ppo_config ppo;
    bool paper_episodes;
    ms_sorted_episodes sorted; /* header "sorted_share", "sorted_tasks" (only when share > 0) */
    ms_demo_source demo_source; /* header "demonstrator" (only when not FAR) */
    /* Process CPU seconds the training has used so far, over every resumed run (header
     * "cpu_seconds"; files from before it have none: has_cpu false). */
    bool has_cpu;
    double cpu_seconds;
    /* The logit gap of the rollout rule calibrated for this policy (header "rollout_gap",
     * written by `migsched rl-calibrate`; training does not carry it over): without one,
     * MS_RL_GAP_DEFAULT. */
    bool has_rollout_gap;
    float rollout_gap;
} ms_rl_model;

/* The policy's calibrated gap, else MS_RL_GAP_DEFAULT. */
float ms_rl_model_gap(const ms_rl_model *m);

int ms_model_save(const char *path, const ms_rl_model *m, ms_error *err);
int ms_model_load(const char *path, ms_rl_model *out, ms_error *err);
/* The same from a buffer (source names it in messages); nothing is kept on error. */
int ms_model_parse(const char *buf, size_t len, const char *source, ms_rl_model *out,
                   ms_error *err);
void ms_model_destroy(ms_rl_model *m);

/* ---- Dueling double DQN (paper 004 Table VI): the MLP's action head gives advantages A,
 * its one-output head the state value V, and Q = V + A - mean(A) (Wang et al.); targets
 * take the online network's best allowed next action evaluated by a target network synced
 * every target_every updates (van Hasselt et al.); uniform replay; epsilon-greedy over the
 * allowed actions, decaying linearly; Adam on the Huber loss. ---- */
typedef struct ms_dqn_config {
    int nhidden;
    int hidden[MS_MLP_MAX_HIDDEN];
    float lr, gamma, max_grad_norm;
    float huber;          /* Huber threshold on the TD error; 0 = squared error */
    int batch;            /* transitions per gradient step */
    int replay;           /* replay buffer capacity in transitions */
    int learn_start;      /* transitions stored before the first gradient step */
    int train_every;      /* environment steps per gradient step */
    int target_every;     /* gradient steps between copies into the target network */
    float eps_start, eps_end;
    long eps_steps;       /* environment steps of the linear decay (0 = half the total) */
} ms_dqn_config;

/* 512/256/128 ReLU (Table VI), lr 1e-4, gamma 0.99, grad norm 10, Huber 1, batch 64,
 * replay 50000, learning from 1000 transitions, every step, target every 500 updates,
 * epsilon 1 -> 0.01 (Table VI's schedule) over half the steps. */
void ms_dqn_config_default(ms_dqn_config *c);

typedef struct ms_dqn_stats {
    long steps, updates;      /* totals so far */
    int episodes;             /* finished during the call */
    double mean_return;       /* over those episodes (NAN if none) */
    float epsilon, loss, mean_q; /* at the end; loss and Q averaged over the call's updates */
} ms_dqn_stats;

typedef struct ms_dqn ms_dqn;

/* One environment (ops as PPO's) with obs_size inputs and nact actions; total_steps sets
 * the epsilon schedule when eps_steps is 0. */
ms_dqn *ms_dqn_new(const ms_dqn_config *cfg, const ms_rl_env_ops *ops, void *env,
                   int obs_size, int nact, long total_steps, uint64_t seed, ms_error *err);
void ms_dqn_free(ms_dqn *d);
/* n environment steps, epsilon-greedy, with the gradient steps they call for. */
int ms_dqn_train(ms_dqn *d, long n, ms_dqn_stats *out, ms_error *err);
ms_mlp *ms_dqn_mlp(ms_dqn *d);
long ms_dqn_steps(const ms_dqn *d);
/* One supervised Adam step (ours, for pre-training from an expert's exact values): the Huber
 * loss of Q(x_r, a) against target[r * nact + a] over every allowed action of each of the
 * rows (at most the batch size), plus DQfD's large-margin loss on the target's best action
 * with the target's gaps as margins (mean over rows); the target network is then set to the
 * network, so that TD learning goes on from it. Returns the loss per allowed action. */
float ms_dqn_fit(ms_dqn *d, const float *x, const uint8_t *mask, const float *target,
                 int rows);

/* Q values (rows x m->nact) of a dueling network at x (rows x m->in); w holds >= rows. */
void ms_dqn_q(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows, float *q);
/* The allowed action of highest Q at one observation (-1 if none is allowed); q (m->nact
 * floats) receives the Q values. */
int ms_dqn_greedy(const ms_mlp *m, ms_mlp_work *w, const float *obs, const uint8_t *mask,
                  float *q);

/* DQN model files: the container of policy files with format "migsched-dqn-model/1": the
 * network, the training settings, and the environment's own description (a JSON object the
 * environment writes and checks; this module only carries it). */
typedef struct ms_dqn_model {
    ms_mlp mlp;
    ms_dqn_config cfg;
    char env_kind[32];        /* which environment the network was trained for */
    char *env_json;           /* that environment's settings (a JSON object, malloc'd) */
    long steps;
    uint64_t seed;
    char commit[32];          /* of the code that trained it ("" = this build's) */
} ms_dqn_model;

int ms_dqn_model_save(const char *path, const ms_dqn_model *m, ms_error *err);
/* Rejects other formats, versions, architectures that do not match the stored parameters,
 * truncated or non-finite parameters, naming path and the problem. */
int ms_dqn_model_load(const char *path, ms_dqn_model *out, ms_error *err);
void ms_dqn_model_destroy(ms_dqn_model *m);

/* ---- Training a scheduling policy on generated workloads (paper 001 6). ---- */
typedef struct ms_train_config {
    ms_env_config env;
    ms_ppo_config ppo;
    ms_gen_params gen;       /* workload generator of the training episodes */
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

/* ---- Training progress logs: the lines `migsched train` and `migsched hier train` print
 * on stderr ("steps N/TOTAL ... cpu X s ... p_opt P% ..." or "... throughput T on ..."),
 * each optionally prefixed "UNIXTIME cpu=SECONDS " by a wrapper that logs the process's CPU
 * time. Other lines are skipped; a "resuming FILE at N steps" line drops the points past N
 * (lost with their process) and, unless it says ", cpu X s" (the checkpoint carried the
 * count), continues the CPU axis from the last point. ---- */
typedef struct ms_progress_point {
    long steps;
    double cpu;        /* CPU seconds over the log's runs; NAN when the line has none */
    double p_opt;      /* PPO lines (%), else NAN */
    double throughput; /* DQN lines, else NAN */
    int line;          /* in the log, for messages */
} ms_progress_point;

typedef struct ms_progress_log {
    ms_progress_point *pts;
    int n;
} ms_progress_log;

/* Fails naming the file and line on a malformed number, steps that go back without a
 * resume, or a log with no progress line; nothing is kept on error. */
int ms_progress_log_read(const char *path, ms_progress_log *out, ms_error *err);
int ms_progress_log_parse(const char *buf, size_t len, const char *source, ms_progress_log *out,
                          ms_error *err);
void ms_progress_log_free(ms_progress_log *log);

/* ---- Policy improvement by rollout (ours; Bertsekas' rollout algorithm, the step of
 * approximate policy iteration): each allowed action of a state followed by the policy's
 * greedy actions to the episode's end; the action whose episode ends first. ---- */
typedef struct ms_rl_rollout ms_rl_rollout;

typedef struct ms_rl_choice {
    int candidates;         /* actions tried (allowed ones, at most the width) */
    int greedy;             /* the policy's own action */
    int best;               /* the improved policy's: ties go to greedy, then to the higher
                             * logit (then the lower action number) */
    double greedy_makespan; /* of greedy's completion (NAN with one candidate: none run) */
    double best_makespan;   /* of best's */
} ms_rl_choice;

/* For the network mlp (read at every call), on environments of one GPU and settings. */
ms_rl_rollout *ms_rl_rollout_new(const ms_mlp *mlp, ms_error *err);
void ms_rl_rollout_free(ms_rl_rollout *r);
/* The choice at env's current state (env is not changed; its episode must not be over)
 * among the width allowed actions of highest logits (0: every allowed action). */
int ms_rl_rollout_best(ms_rl_rollout *r, const ms_env *env, int width, ms_rl_choice *out,
                       ms_error *err);
/* The action of the policy improved by rollout along an episode: at env's state, rollout
 * over the width allowed actions of highest logits (0: all) where the gap between the
 * policy's two highest logits is below gap (INFINITY: at every decision), else the greedy
 * action; the same choices as ms_rl_rollout_best's (env is not changed). The episode must
 * move only by the actions this returns; call ms_rl_rollout_forget at its start. */
int ms_rl_rollout_decide(ms_rl_rollout *r, const ms_env *env, int width, float gap,
                         int *action, ms_error *err);
void ms_rl_rollout_forget(ms_rl_rollout *r);
/* What r has done so far: decisions of ms_rl_rollout_decide, network passes (the cost),
 * completions stopped by the makespan bound and by reaching the kept completion's state. */
typedef struct ms_rl_rollout_stats {
    long decisions, passes, cut, merged;
} ms_rl_rollout_stats;
ms_rl_rollout_stats ms_rl_rollout_get_stats(const ms_rl_rollout *r);
/* The makespan of the greedy policy's episode from env's current state (env is not
 * changed). */
int ms_rl_rollout_greedy(ms_rl_rollout *r, const ms_env *env, double *makespan, ms_error *err);

/* ---- The learned scheduler: greedy (argmax) actions of the policy on w, or with rollout
 * > 1 the rollout-improved policy (ms_rl_rollout_decide) over the policy's rollout best
 * actions (MS_RL_ROLLOUT_ALL: every allowed action) within gap of its greedy logit (0:
 * greedy; INFINITY: at every decision; NAN: the model's, ms_rl_model_gap). The defaults are
 * what `schedule --algo rl` and `rl-eval` use (EXPERIMENTS.md, Table 4: the quality;
 * bench_env: the decision time). The plan's stats "decisions" and "network_passes" give
 * its cost. ---- */
#define MS_RL_ROLLOUT_ALL (-1)
#define MS_RL_ROLLOUT_DEFAULT 4
#define MS_RL_GAP_DEFAULT 1.0f
/* The policy's most likely allowed action at e's state (obs and mask receive the state's
 * observation and mask, w's logits row 0 its logits): one network pass, as every decision
 * of the greedy scheduler and of a rollout's completions is made. */
int ms_rl_greedy_action(const ms_mlp *m, ms_mlp_work *w, const ms_env *e, float *obs,
                        uint8_t *mask);
int ms_rl_schedule(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                   bool online, int rollout, float gap, ms_schedule **out, ms_error *err);
/* The same from model partition `part` (-1: an empty GPU; ms_env_reset_from), instance k
 * of it busy for busy[k] seconds. */
int ms_rl_schedule_from(const ms_rl_model *model, const ms_gpu_model *gpu,
                        const ms_workload *w, bool online, int rollout, float gap, int part,
                        const double *busy, ms_schedule **out, ms_error *err);
/* Whether that rule (gap resolved) ever rolls out, or is the greedy policy. */
bool ms_rl_rule_rolls_out(int rollout, float gap);
/* Same, one batch of the environment's episode at a time for p_opt per batch (offline
 * evaluation of paper 001 5.2): mean p_opt over the batches of w. */
int ms_rl_eval_popt(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                    double *mean_popt, ms_error *err);

#endif
