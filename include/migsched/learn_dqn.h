/* learn_dqn.h: the dueling double DQN and its model files. */
#ifndef MIGSCHED_LEARN_DQN_H
#define MIGSCHED_LEARN_DQN_H

#include <stdint.h>

#include "migsched/error.h"
#include "migsched/learn_mlp.h"
#include "migsched/learn_ppo.h"

/* ---- Dueling double DQN (paper 004 Table VI): the MLP's action head gives advantages A,
 * its one-output head the state value V, and Q = V + A - mean(A) (Wang et al.); targets
 * take the online network's best allowed next action evaluated by a target network synced
 * every target_every updates (van Hasselt et al.); uniform replay; epsilon-greedy over the
 * allowed actions, decaying linearly; Adam on the Huber loss. ---- */
typedef struct ms_dqn_config {
    int nhidden;
    int hidden[MS_MLP_MAX_HIDDEN];
    float lr, gamma, max_grad_norm;
    float huber;      /* Huber threshold on the TD error; 0 = squared error */
    int batch;        /* transitions per gradient step */
    int replay;       /* replay buffer capacity in transitions */
    int learn_start;  /* transitions stored before the first gradient step */
    int train_every;  /* environment steps per gradient step */
    int target_every; /* gradient steps between copies into the target network */
    float eps_start, eps_end;
    long eps_steps; /* environment steps of the linear decay (0 = half the total) */
} ms_dqn_config;

/* 512/256/128 ReLU (Table VI), lr 1e-4, gamma 0.99, grad norm 10, Huber 1, batch 64,
 * replay 50000, learning from 1000 transitions, every step, target every 500 updates,
 * epsilon 1 -> 0.01 (Table VI's schedule) over half the steps. */
void ms_dqn_config_default(ms_dqn_config *c);

typedef struct ms_dqn_stats {
    long steps, updates;         /* totals so far */
    int episodes;                /* finished during the call */
    double mean_return;          /* over those episodes (NAN if none) */
    float epsilon, loss, mean_q; /* at the end; loss and Q averaged over the call's updates */
} ms_dqn_stats;

typedef struct ms_dqn ms_dqn;

/* One environment (ops as PPO's) with obs_size inputs and nact actions; total_steps sets
 * the epsilon schedule when eps_steps is 0. */
ms_dqn *ms_dqn_new(const ms_dqn_config *cfg, const ms_rl_env_ops *ops, void *env, int obs_size,
                   int nact, long total_steps, uint64_t seed, ms_error *err);
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
float ms_dqn_fit(ms_dqn *d, const float *x, const uint8_t *mask, const float *target, int rows);

/* Q values (rows x m->nact) of a dueling network at x (rows x m->in); w holds >= rows. */
void ms_dqn_q(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows, float *q);
/* The allowed action of highest Q at one observation (-1 if none is allowed); q (m->nact
 * floats) receives the Q values. */
int ms_dqn_greedy(const ms_mlp *m, ms_mlp_work *w, const float *obs, const uint8_t *mask, float *q);

/* DQN model files: the container of policy files with format "migsched-dqn-model/1": the
 * network, the training settings, and the environment's own description (a JSON object the
 * environment writes and checks; this module only carries it). */
typedef struct ms_dqn_model {
    ms_mlp mlp;
    ms_dqn_config cfg;
    char env_kind[32]; /* which environment the network was trained for */
    char *env_json;    /* that environment's settings (a JSON object, malloc'd) */
    long steps;
    uint64_t seed;
    char commit[32]; /* of the code that trained it ("" = this build's) */
} ms_dqn_model;

int ms_dqn_model_save(const char *path, const ms_dqn_model *m, ms_error *err);
/* Rejects other formats, versions, architectures that do not match the stored parameters,
 * truncated or non-finite parameters, naming path and the problem. */
int ms_dqn_model_load(const char *path, ms_dqn_model *out, ms_error *err);
void ms_dqn_model_fini(ms_dqn_model *m);

#endif
