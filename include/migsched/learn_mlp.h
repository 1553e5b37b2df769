/* learn_mlp.h: small neural networks on OpenBLAS (MLP with policy and value heads),
 * the masked categorical policy over their logits, and Adam. */
#ifndef MIGSCHED_LEARN_MLP_H
#define MIGSCHED_LEARN_MLP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "migsched/error.h"
#include "migsched/rng.h"

/* ---- MLP: hidden layers (tanh, or ReLU for the DQN) shared by a head over the actions
 * (policy logits, or DQN advantages) and a one-output head (value). ---- */
#define MS_MLP_MAX_HIDDEN 4

typedef enum ms_activation { MS_ACT_TANH = 0, MS_ACT_RELU = 1 } ms_activation;

typedef struct ms_mlp {
    int in, nact, nhidden;
    ms_activation activation; /* of the hidden layers; ms_mlp_init sets tanh */
    bool separate;            /* the value head has hidden layers of its own (SB3's MlpPolicy) */
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
int ms_mlp_shape_sep(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, bool separate,
                     ms_error *err);
int ms_mlp_init_sep(ms_mlp *m, int in, int nhidden, const int *hidden, int nact, bool separate,
                    ms_rng *rng, ms_error *err);
void ms_mlp_fini(ms_mlp *m);
int ms_mlp_work_init(ms_mlp_work *w, const ms_mlp *m, int cap, ms_error *err);
void ms_mlp_work_fini(ms_mlp_work *w);
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
void ms_adam_fini(ms_adam *a);
/* Scales grad to norm <= max_norm (if max_norm > 0), then updates params. Returns the norm
 * before clipping. */
float ms_adam_step(ms_adam *a, float *params, float *grad, float max_norm);
/* The same in parts, for a step split over threads: ms_adam_begin counts the step and
 * returns the clipping scale for a gradient of norm `norm`; ms_adam_apply updates
 * parameters [lo, hi) with the scaled gradient. ms_sq_sum: the sum of squares of g[0..n),
 * always summed in the same order. */
float ms_adam_begin(ms_adam *a, float norm, float max_norm);
void ms_adam_apply(ms_adam *a, float *params, const float *grad, float scale, size_t lo, size_t hi);
double ms_sq_sum(const float *g, size_t n);

#endif
