/* dqn.c: dueling double deep Q-learning (paper 004 IV-D and Table VI) on the MLP: replay
 * buffer, epsilon-greedy acting over allowed actions, Huber TD loss, Adam, target network.
 * Single-threaded (one sgemm thread), so a seed gives the same network bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"

struct ms_dqn {
    ms_dqn_config cfg;
    ms_rl_env_ops ops;
    void *env;
    int obs_size, nact;
    long total_steps, steps, updates;
    ms_mlp net, target;
    ms_adam adam;
    ms_rng rng;
    ms_mlp_work work1, workb; /* one row (acting), one batch (learning) */
    /* Replay ring: transition i is (obs, act, rew, next obs, next mask, done). */
    float *obs, *next, *rew;
    uint8_t *next_mask, *done;
    int *act;
    long stored;
    /* Current observation and the episode so far. */
    float *cur, *q1;
    uint8_t *cur_mask;
    double ep_ret;
    /* Batch scratch. */
    float *x, *xn, *qb, *dadv, *dval, *grad, *y;
    int *idx, *best;
};

void ms_dqn_config_default(ms_dqn_config *c)
{
    memset(c, 0, sizeof *c);
    c->nhidden = 3;
    c->hidden[0] = 512;
    c->hidden[1] = 256;
    c->hidden[2] = 128;
    c->lr = 1e-4f;
    c->gamma = 0.99f;
    c->max_grad_norm = 10.0f;
    c->huber = 1.0f;
    c->batch = 64;
    c->replay = 50000;
    c->learn_start = 1000;
    c->train_every = 1;
    c->target_every = 500;
    c->eps_start = 1.0f;
    c->eps_end = 0.01f;
}

void ms_dqn_q(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows, float *q)
{
    ms_mlp_forward(m, w, x, rows);
    int A = m->nact;
    for (int r = 0; r < rows; r++) {
        const float *adv = w->logits + (size_t)r * A;
        double mean = 0;
        for (int a = 0; a < A; a++)
            mean += adv[a];
        float base = w->value[r] - (float)(mean / A);
        for (int a = 0; a < A; a++)
            q[(size_t)r * A + a] = base + adv[a];
    }
}

int ms_dqn_greedy(const ms_mlp *m, ms_mlp_work *w, const float *obs, const uint8_t *mask, float *q)
{
    ms_dqn_q(m, w, obs, 1, q);
    return ms_policy_argmax(q, mask, m->nact);
}

static float epsilon(const ms_dqn *d)
{
    long n = d->cfg.eps_steps > 0 ? d->cfg.eps_steps : d->total_steps / 2;
    if (n <= 0 || d->steps >= n)
        return d->cfg.eps_end;
    return d->cfg.eps_start + (d->cfg.eps_end - d->cfg.eps_start) * (float)d->steps / (float)n;
}

static int observe(ms_dqn *d, ms_error *err)
{
    d->ops.observe(d->env, d->cur);
    if (d->ops.mask(d->env, d->cur_mask) < 1)
        return ms_error_set(err, MS_EINVAL, "dqn: the environment allows no action");
    return MS_OK;
}

static int random_allowed(ms_dqn *d)
{
    int n = 0;
    for (int a = 0; a < d->nact; a++)
        n += d->cur_mask[a] != 0;
    int k = (int)ms_rng_below(&d->rng, (uint64_t)n);
    for (int a = 0; a < d->nact; a++)
        if (d->cur_mask[a] && k-- == 0)
            return a;
    return -1; /* not reached: observe() checked n >= 1 */
}

/* The Huber loss (threshold h; h <= 0: squared error) of the error td, added to *loss;
 * returns its derivative in td. */
static float huber(float td, float h, double *loss)
{
    if (h > 0 && fabsf(td) > h) {
        *loss += h * (fabsf(td) - 0.5 * h);
        return td > 0 ? h : -h;
    }
    *loss += 0.5 * td * td;
    return td;
}

/* One Adam step from the gradients of the dueling heads (dadv, dval) of the rows of x the
 * last forward pass of workb saw. */
static void descend(ms_dqn *d, const float *x, int rows)
{
    memset(d->grad, 0, d->net.nparams * sizeof(float));
    ms_mlp_backward(&d->net, &d->workb, x, rows, d->dadv, d->dval, d->grad);
    ms_adam_step(&d->adam, d->net.params, d->grad, d->cfg.max_grad_norm);
}

/* One gradient step on a uniform sample of the replay buffer; returns the mean loss and
 * adds the mean Q of the taken actions to *qsum. */
static float learn(ms_dqn *d, double *qsum)
{
    int B = d->cfg.batch, A = d->nact, O = d->obs_size;
    long n = d->stored < d->cfg.replay ? d->stored : d->cfg.replay;
    for (int r = 0; r < B; r++) {
        int i = (int)ms_rng_below(&d->rng, (uint64_t)n);
        d->idx[r] = i;
        memcpy(d->x + (size_t)r * O, d->obs + (size_t)i * O, (size_t)O * sizeof(float));
        memcpy(d->xn + (size_t)r * O, d->next + (size_t)i * O, (size_t)O * sizeof(float));
    }
    /* Double DQN: the online network picks the next action, the target network values it. */
    ms_dqn_q(&d->net, &d->workb, d->xn, B, d->qb);
    for (int r = 0; r < B; r++)
        d->best[r] = ms_policy_argmax(d->qb + (size_t)r * A, d->next_mask + (size_t)d->idx[r] * A,
                                      A);
    ms_dqn_q(&d->target, &d->workb, d->xn, B, d->qb);
    for (int r = 0; r < B; r++) {
        int i = d->idx[r];
        float boot = d->done[i] || d->best[r] < 0 ? 0 : d->qb[(size_t)r * A + d->best[r]];
        d->y[r] = d->rew[i] + d->cfg.gamma * boot;
    }
    /* The online forward pass last: backward uses its activations. */
    ms_dqn_q(&d->net, &d->workb, d->x, B, d->qb);
    double loss = 0;
    float h = d->cfg.huber;
    for (int r = 0; r < B; r++) {
        int a = d->act[d->idx[r]];
        float q = d->qb[(size_t)r * A + a], td = q - d->y[r];
        *qsum += q;
        float g = huber(td, h, &loss) / (float)B;
        /* dQ_a/dV = 1, dQ_a/dA_j = [j == a] - 1/A. */
        d->dval[r] = g;
        float *da = d->dadv + (size_t)r * A;
        for (int j = 0; j < A; j++)
            da[j] = -g / (float)A;
        da[a] += g;
    }
    descend(d, d->x, B);
    d->updates++;
    if (d->updates % d->cfg.target_every == 0)
        memcpy(d->target.params, d->net.params, d->net.nparams * sizeof(float));
    return (float)(loss / B);
}

/* DQfD's large-margin loss (Hester et al. 2018) on row q with the exact gaps as margins:
 * max_a [Q(a) + y(a_E) - y(a)] - Q(a_E), a_E the target's best allowed action; it is 0 once
 * every action trails a_E by at least its true gap. Adds its gradient (scaled) to da. */
static double margin_loss(const float *q, const float *y, const uint8_t *m, int A, float scale,
                          float *da)
{
    int e = ms_policy_argmax(y, m, A), top = e;
    for (int a = 0; a < A; a++)
        if (m[a] && q[a] + y[e] - y[a] > q[top] + y[e] - y[top])
            top = a;
    if (top == e)
        return 0;
    da[top] += scale;
    da[e] -= scale;
    return q[top] + y[e] - y[top] - q[e];
}

float ms_dqn_fit(ms_dqn *d, const float *x, const uint8_t *mask, const float *target, int rows)
{
    int A = d->nact;
    ms_dqn_q(&d->net, &d->workb, x, rows, d->qb);
    double loss = 0;
    long n = 0;
    for (int r = 0; r < rows; r++)
        for (int a = 0; a < A; a++)
            n += mask[(size_t)r * A + a] != 0;
    float h = d->cfg.huber;
    for (int r = 0; r < rows; r++) {
        const float *q = d->qb + (size_t)r * A, *y = target + (size_t)r * A;
        const uint8_t *m = mask + (size_t)r * A;
        float *da = d->dadv + (size_t)r * A, gsum = 0;
        for (int a = 0; a < A; a++)
            da[a] = m[a] ? huber(q[a] - y[a], h, &loss) / (float)n : 0;
        loss += margin_loss(q, y, m, A, 1.0f / (float)rows, da) * (double)n / rows;
        for (int a = 0; a < A; a++)
            gsum += da[a];
        /* dQ_a/dV = 1, dQ_a/dA_j = [j == a] - 1/A, summed over the allowed a. */
        d->dval[r] = gsum;
        for (int a = 0; a < A; a++)
            da[a] -= gsum / (float)A;
    }
    descend(d, x, rows);
    memcpy(d->target.params, d->net.params, d->net.nparams * sizeof(float));
    return n ? (float)(loss / n) : 0;
}

int ms_dqn_train(ms_dqn *d, long nsteps, ms_dqn_stats *st, ms_error *err)
{
    memset(st, 0, sizeof *st);
    int O = d->obs_size, A = d->nact;
    double ret_sum = 0, loss_sum = 0, q_sum = 0;
    long nupd = 0;
    for (long k = 0; k < nsteps; k++) {
        int a = ms_rng_uniform(&d->rng) < epsilon(d)
                    ? random_allowed(d)
                    : ms_dqn_greedy(&d->net, &d->work1, d->cur, d->cur_mask, d->q1);
        bool done = false;
        double r = d->ops.step(d->env, a, &done);
        long i = d->stored % d->cfg.replay;
        memcpy(d->obs + (size_t)i * O, d->cur, (size_t)O * sizeof(float));
        d->act[i] = a;
        d->rew[i] = (float)r;
        d->done[i] = done;
        d->ep_ret += r;
        d->steps++;
        if (done) {
            st->episodes++;
            ret_sum += d->ep_ret;
            d->ep_ret = 0;
            /* The next state of a terminal transition is never bootstrapped. */
            memset(d->next + (size_t)i * O, 0, (size_t)O * sizeof(float));
            memset(d->next_mask + (size_t)i * A, 0, (size_t)A);
            if (d->ops.reset(d->env, &d->rng, err))
                return err ? err->code : MS_EINVAL;
        }
        if (observe(d, err))
            return MS_EINVAL;
        if (!done) {
            memcpy(d->next + (size_t)i * O, d->cur, (size_t)O * sizeof(float));
            memcpy(d->next_mask + (size_t)i * A, d->cur_mask, (size_t)A);
        }
        d->stored++;
        if (d->stored >= d->cfg.learn_start && d->stored >= d->cfg.batch &&
            d->steps % d->cfg.train_every == 0) {
            loss_sum += learn(d, &q_sum);
            nupd++;
        }
    }
    st->steps = d->steps;
    st->updates = d->updates;
    st->mean_return = st->episodes ? ret_sum / st->episodes : NAN;
    st->epsilon = epsilon(d);
    st->loss = nupd ? (float)(loss_sum / nupd) : NAN;
    st->mean_q = nupd ? (float)(q_sum / ((double)nupd * d->cfg.batch)) : NAN;
    return MS_OK;
}

static int alloc_all(ms_dqn *d, ms_error *err)
{
    size_t C = (size_t)d->cfg.replay, O = (size_t)d->obs_size, A = (size_t)d->nact;
    size_t B = (size_t)d->cfg.batch;
    d->obs = malloc(C * O * sizeof(float));
    d->next = malloc(C * O * sizeof(float));
    d->rew = malloc(C * sizeof(float));
    d->next_mask = malloc(C * A);
    d->done = malloc(C);
    d->act = malloc(C * sizeof(int));
    d->cur = malloc(O * sizeof(float));
    d->q1 = malloc(A * sizeof(float));
    d->cur_mask = malloc(A);
    d->x = malloc(B * O * sizeof(float));
    d->xn = malloc(B * O * sizeof(float));
    d->qb = malloc(B * A * sizeof(float));
    d->dadv = malloc(B * A * sizeof(float));
    d->dval = malloc(B * sizeof(float));
    d->y = malloc(B * sizeof(float));
    d->idx = malloc(B * sizeof(int));
    d->best = malloc(B * sizeof(int));
    d->grad = malloc(d->net.nparams * sizeof(float));
    if (!d->obs || !d->next || !d->rew || !d->next_mask || !d->done || !d->act || !d->cur ||
        !d->q1 || !d->cur_mask || !d->x || !d->xn || !d->qb || !d->dadv || !d->dval || !d->y ||
        !d->idx || !d->best || !d->grad)
        return ms_error_set(err, MS_ENOMEM, "dqn: out of memory (replay of %zu transitions)", C);
    if (ms_mlp_work_init(&d->work1, &d->net, 1, err) ||
        ms_mlp_work_init(&d->workb, &d->net, (int)B, err))
        return err ? err->code : MS_ENOMEM;
    return MS_OK;
}

ms_dqn *ms_dqn_new(const ms_dqn_config *cfg, const ms_rl_env_ops *ops, void *env, int obs_size,
                   int nact, long total_steps, uint64_t seed, ms_error *err)
{
    if (cfg->batch < 1 || cfg->replay < cfg->batch || cfg->train_every < 1 ||
        cfg->target_every < 1 || cfg->learn_start < 0 || !(cfg->gamma >= 0 && cfg->gamma <= 1) ||
        !(cfg->lr > 0) || cfg->huber < 0 || cfg->eps_start < cfg->eps_end || cfg->eps_end < 0 ||
        cfg->eps_start > 1) {
        ms_error_set(err, MS_EINVAL,
                     "dqn: need batch >= 1, replay >= batch, train_every, "
                     "target_every >= 1, 0 <= gamma <= 1, lr > 0, huber >= 0 "
                     "and 1 >= eps_start >= eps_end >= 0");
        return NULL;
    }
    ms_dqn *d = calloc(1, sizeof *d);
    if (!d) {
        ms_error_set(err, MS_ENOMEM, "dqn: out of memory");
        return NULL;
    }
    d->cfg = *cfg;
    d->ops = *ops;
    d->env = env;
    d->obs_size = obs_size;
    d->nact = nact;
    d->total_steps = total_steps;
    ms_rng_seed(&d->rng, seed);
    if (ms_mlp_init(&d->net, obs_size, cfg->nhidden, cfg->hidden, nact, &d->rng, err) ||
        ms_mlp_init(&d->target, obs_size, cfg->nhidden, cfg->hidden, nact, &d->rng, err) ||
        ms_adam_init(&d->adam, d->net.nparams, cfg->lr, err) || alloc_all(d, err)) {
        ms_dqn_free(d);
        return NULL;
    }
    d->net.activation = d->target.activation = MS_ACT_RELU;
    memcpy(d->target.params, d->net.params, d->net.nparams * sizeof(float));
    if (ops->reset(env, &d->rng, err) || observe(d, err)) {
        ms_dqn_free(d);
        return NULL;
    }
    return d;
}

void ms_dqn_free(ms_dqn *d)
{
    if (!d)
        return;
    ms_mlp_fini(&d->net);
    ms_mlp_fini(&d->target);
    ms_adam_fini(&d->adam);
    ms_mlp_work_fini(&d->work1);
    ms_mlp_work_fini(&d->workb);
    void *bufs[] = {d->obs,  d->next, d->rew,      d->next_mask, d->done, d->act,
                    d->cur,  d->q1,   d->cur_mask, d->x,         d->xn,   d->qb,
                    d->dadv, d->dval, d->y,        d->idx,       d->best, d->grad};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(d);
}

ms_mlp *ms_dqn_mlp(ms_dqn *d) { return &d->net; }
long ms_dqn_steps(const ms_dqn *d) { return d->steps; }
