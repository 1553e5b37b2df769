/* ppo.c: Proximal Policy Optimisation with action masks: vectorised rollouts, GAE,
 * clipped objective, minibatch epochs, Adam, entropy schedule (paper 001 6.1, 6.5.1).
 * Rollouts and gradients are split over worker threads, each owning a fixed share of the
 * environments or of each minibatch, so results depend on the seed and thread count only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/learn.h"
#include "pool.h"

typedef struct worker {
    struct ms_ppo *p;
    int id, env_lo, env_hi, row_lo, row_hi;
    ms_mlp_work work;
    ms_rng rng;
    float *grad, *x, *dlog, *dval, *logp;
    uint8_t *mask;
    int status;
    ms_error err;
    size_t par_lo, par_hi; /* this worker's share of the parameters in the update */
    double sq;             /* sum of squares of the summed gradient over that share */
    /* Statistics of the last rollout / minibatch. */
    int episodes, demos;
    double ret_sum, len_sum;
    double ent, pg, vf, kl, clipped, im;
    int nim; /* labelled rows of the minibatch share, im their cross-entropy */
} worker;

struct ms_ppo {
    ms_ppo_config cfg;
    ms_rl_env_ops ops;
    void **envs;
    int obs_size, nact, nt;
    long total_steps, steps;
    ms_mlp mlp;
    ms_adam adam;
    ms_rng rng;
    worker *w;
    learn_pool *pool;
    float clip_scale;
    /* Rollout buffers, index t * n_envs + e. */
    float *obs, *logp, *val, *rew, *adv, *ret, *last_val, *cur_obs;
    uint8_t *mask, *done, *cur_mask;
    int *act, *perm, *mb;
    int *target;      /* the improved action of a labelled state, else -1 (imitation only) */
    uint8_t *demo;    /* the row's action is a demonstration's (demonstrations only) */
    uint8_t *ep_demo; /* per environment: its episode's demo_state */
    double *ep_ret;
    int *ep_len;
    float mb_mean, mb_std, ent_coef;
};

void ms_ppo_config_default(ms_ppo_config *c)
{
    memset(c, 0, sizeof *c);
    c->n_envs = 16;
    c->n_steps = 128;
    c->n_epochs = 4;
    c->minibatch = 256;
    c->threads = 2;
    c->nhidden = 2;
    c->hidden[0] = c->hidden[1] = 256;
    c->lr = 3e-4f;
    c->gamma = 1.0f;
    c->gae_lambda = 0.95f;
    c->clip = 0.2f;
    c->vf_coef = 0.5f;
    c->max_grad_norm = 0.5f;
    /* The paper prints 0.075 for the second quarter between 0.01 and 0.005: read as 0.0075. */
    c->ent_coef[0] = 0.01f;
    c->ent_coef[1] = 0.0075f;
    c->ent_coef[2] = 0.005f;
    c->ent_coef[3] = 0.0f;
    c->imitate_coef = 1.0f;
    c->imitate_width = 8;
}

void ms_ppo_config_paper(ms_ppo_config *c)
{
    ms_ppo_config_default(c);
    c->n_epochs = 10;
    c->minibatch = 64;
    c->separate = true;
    c->ent_coef[1] = 0.00075f;
    c->ent_coef[2] = 0.0005f;
}

static const char *const decay_names[] = {"none", "linear", "cosine"};

const char *ms_lr_decay_name(ms_lr_decay d) { return decay_names[d]; }

int ms_lr_decay_parse(const char *name, ms_lr_decay *out)
{
    int i = ms_name_index(decay_names, 3, name);
    if (i < 0)
        return MS_EINVAL;
    *out = (ms_lr_decay)i;
    return MS_OK;
}

static void run_workers(ms_ppo *p, void *(*fn)(void *)) { learn_pool_run(p->pool, fn); }

/* Where an environment's episode stands with its demonstrator. */
enum demo_state { DEMO_NONE, DEMO_ENDED, DEMO_GIVING, DEMO_OFFERED };

/* Whether environment e's new episode is offered to its demonstrator. */
static void draw_demo(worker *w, int e)
{
    ms_ppo *p = w->p;
    if (p->cfg.demo_share > 0)
        p->ep_demo[e] = ms_rng_uniform(&w->rng) < p->cfg.demo_share ? DEMO_OFFERED : DEMO_NONE;
}

static void *reset_envs(void *arg)
{
    worker *w = arg;
    ms_ppo *p = w->p;
    for (int e = w->env_lo; e < w->env_hi && !w->status; e++) {
        w->status = p->ops.reset(p->envs[e], &w->rng, &w->err);
        draw_demo(w, e);
        p->ops.observe(p->envs[e], p->cur_obs + (size_t)e * p->obs_size);
        p->ops.mask(p->envs[e], p->cur_mask + (size_t)e * p->nact);
    }
    return NULL;
}

/* Values of the current observations of this worker's environments into out. */
static void values_now(worker *w, float *out)
{
    ms_ppo *p = w->p;
    int rows = w->env_hi - w->env_lo;
    ms_mlp_forward(&p->mlp, &w->work, p->cur_obs + (size_t)w->env_lo * p->obs_size, rows);
    memcpy(out + w->env_lo, w->work.value, (size_t)rows * sizeof(float));
}

/* The demonstration's action for environment e (-1: none), moving ep_demo along. */
static int demo_action(worker *w, int e)
{
    ms_ppo *p = w->p;
    int d = -1;
    uint8_t *st = &p->ep_demo[e];
    if (*st != DEMO_OFFERED && *st != DEMO_GIVING)
        return -1;
    bool start = *st == DEMO_OFFERED;
    if ((w->status = p->ops.demonstrate(p->envs[e], &p->mlp, start, &d, &w->err)))
        return -1;
    *st = d >= 0 ? DEMO_GIVING : start ? DEMO_NONE : DEMO_ENDED;
    return d;
}

static void *rollout(void *arg)
{
    worker *w = arg;
    ms_ppo *p = w->p;
    int E = p->cfg.n_envs, rows = w->env_hi - w->env_lo;
    w->episodes = w->demos = 0;
    w->ret_sum = w->len_sum = 0;
    for (int t = 0; t < p->cfg.n_steps && !w->status; t++) {
        ms_mlp_forward(&p->mlp, &w->work, p->cur_obs + (size_t)w->env_lo * p->obs_size, rows);
        for (int e = w->env_lo; e < w->env_hi && !w->status; e++) {
            size_t i = (size_t)t * E + e;
            const float *logits = w->work.logits + (size_t)(e - w->env_lo) * p->nact;
            uint8_t *mask = p->cur_mask + (size_t)e * p->nact;
            memcpy(p->obs + i * p->obs_size, p->cur_obs + (size_t)e * p->obs_size,
                   (size_t)p->obs_size * sizeof(float));
            memcpy(p->mask + i * p->nact, mask, (size_t)p->nact);
            ms_policy_logp(logits, mask, p->nact, w->logp);
            int d = p->demo ? demo_action(w, e) : -1;
            if (w->status)
                break;
            int a = d >= 0 ? d : ms_policy_sample(w->logp, p->nact, &w->rng);
            if (p->demo)
                p->demo[i] = d >= 0;
            if (p->target) {
                p->target[i] = d;
                if (d < 0 && p->cfg.imitate_share > 0 &&
                    ms_rng_uniform(&w->rng) < p->cfg.imitate_share &&
                    (w->status = p->ops.improve(p->envs[e], &p->mlp, p->cfg.imitate_width,
                                                &p->target[i], &w->err)))
                    break;
            }
            bool done = false;
            double r = p->ops.step(p->envs[e], a, &done);
            p->act[i] = a;
            p->logp[i] = w->logp[a];
            p->val[i] = w->work.value[e - w->env_lo];
            p->rew[i] = (float)r;
            p->done[i] = done;
            p->ep_ret[e] += r;
            p->ep_len[e]++;
            if (done) {
                if (p->demo && p->ep_demo[e] != DEMO_NONE)
                    w->demos++; /* the demonstrator's episode, not the policy's */
                else {
                    w->episodes++;
                    w->ret_sum += p->ep_ret[e];
                    w->len_sum += p->ep_len[e];
                }
                p->ep_ret[e] = 0;
                p->ep_len[e] = 0;
                w->status = p->ops.reset(p->envs[e], &w->rng, &w->err);
                draw_demo(w, e);
            }
            p->ops.observe(p->envs[e], p->cur_obs + (size_t)e * p->obs_size);
            p->ops.mask(p->envs[e], mask);
        }
    }
    if (!w->status)
        values_now(w, p->last_val);
    return NULL;
}

static void gae(ms_ppo *p)
{
    int E = p->cfg.n_envs, T = p->cfg.n_steps;
    for (int e = 0; e < E; e++) {
        float next_adv = 0, next_val = p->last_val[e];
        for (int t = T - 1; t >= 0; t--) {
            size_t i = (size_t)t * E + e;
            float nonterminal = p->done[i] ? 0.0f : 1.0f;
            float delta = p->rew[i] + p->cfg.gamma * next_val * nonterminal - p->val[i];
            next_adv = delta + p->cfg.gamma * p->cfg.gae_lambda * nonterminal * next_adv;
            p->adv[i] = next_adv;
            p->ret[i] = next_adv + p->val[i];
            next_val = p->val[i];
        }
    }
}

/* Gradient of the PPO loss on rows [row_lo, row_hi) of the current minibatch. */
static void *minibatch_grad(void *arg)
{
    worker *w = arg;
    ms_ppo *p = w->p;
    int rows = w->row_hi - w->row_lo, B = p->cfg.minibatch, A = p->nact;
    memset(w->grad, 0, p->mlp.nparams * sizeof(float));
    w->ent = w->pg = w->vf = w->kl = w->clipped = w->im = 0;
    w->nim = 0;
    for (int r = 0; r < rows; r++) {
        int i = p->mb[w->row_lo + r];
        memcpy(w->x + (size_t)r * p->obs_size, p->obs + (size_t)i * p->obs_size,
               (size_t)p->obs_size * sizeof(float));
    }
    ms_mlp_forward(&p->mlp, &w->work, w->x, rows);
    float eps = p->cfg.clip, c = p->ent_coef, ic = p->cfg.imitate_coef;
    for (int r = 0; r < rows; r++) {
        int i = p->mb[w->row_lo + r];
        const uint8_t *mask = p->mask + (size_t)i * A;
        float *dl = w->dlog + (size_t)r * A;
        float ent = ms_policy_logp(w->work.logits + (size_t)r * A, mask, A, w->logp);
        float adv = (p->adv[i] - p->mb_mean) / p->mb_std;
        float lr = w->logp[p->act[i]] - p->logp[i];
        float ratio = expf(lr);
        float clipped = fminf(fmaxf(ratio, 1 - eps), 1 + eps);
        bool active = adv >= 0 ? ratio <= 1 + eps : ratio >= 1 - eps;
        /* A demonstrated row only teaches its label. */
        bool own = !(p->demo && p->demo[i]);
        float g = active && own ? -adv * ratio / B : 0.0f, ent_c = own ? c : 0.0f;
        int tg = p->target ? p->target[i] : -1;
        for (int a = 0; a < A; a++) {
            if (!mask[a]) {
                dl[a] = 0;
                continue;
            }
            float pa = expf(w->logp[a]);
            dl[a] = g * ((a == p->act[i]) - pa) + ent_c * pa * (w->logp[a] + ent) / B;
            if (tg >= 0) /* d(-log p_tg)/d logit_a */
                dl[a] += ic * (pa - (a == tg)) / B;
        }
        if (tg >= 0) {
            w->im -= w->logp[tg];
            w->nim++;
        }
        float v = w->work.value[r];
        w->dval[r] = own ? p->cfg.vf_coef * 2.0f * (v - p->ret[i]) / B : 0.0f;
        w->ent += ent;
        w->pg += -fminf(ratio * adv, clipped * adv);
        w->vf += (v - p->ret[i]) * (v - p->ret[i]);
        w->kl += (ratio - 1) - lr;
        w->clipped += fabsf(ratio - 1) > eps;
    }
    ms_mlp_backward(&p->mlp, &w->work, w->x, rows, w->dlog, w->dval, w->grad);
    return NULL;
}

/* This worker's share of the parameters: the workers' gradients summed (in worker order)
 * into worker 0's, and their sum of squares. */
static void *reduce_grad(void *arg)
{
    worker *w = arg;
    ms_ppo *p = w->p;
    float *g = p->w[0].grad;
    for (int k = 1; k < p->nt; k++)
        for (size_t i = w->par_lo; i < w->par_hi; i++)
            g[i] += p->w[k].grad[i];
    w->sq = ms_sq_sum(g + w->par_lo, w->par_hi - w->par_lo);
    return NULL;
}

static void *adam_share(void *arg)
{
    worker *w = arg;
    ms_ppo *p = w->p;
    ms_adam_apply(&p->adam, p->mlp.params, p->w[0].grad, p->clip_scale, w->par_lo, w->par_hi);
    return NULL;
}

/* Adam on the summed gradient with global-norm clipping, every step split over the
 * workers' shares of the parameters. Returns the norm before clipping. */
static float step_parallel(ms_ppo *p)
{
    run_workers(p, reduce_grad);
    double sq = 0;
    for (int k = 0; k < p->nt; k++)
        sq += p->w[k].sq;
    float norm = (float)sqrt(sq);
    p->clip_scale = ms_adam_begin(&p->adam, norm, p->cfg.max_grad_norm);
    run_workers(p, adam_share);
    return norm;
}

static float entropy_coef(const ms_ppo *p)
{
    long q = p->total_steps > 0 ? p->steps * 4 / p->total_steps : 0;
    return p->cfg.ent_coef[q < 0 ? 0 : q > 3 ? 3 : q];
}

/* The learning rate at this point of the run: lr, or decayed towards lr_min over the
 * steps (a smaller step as the policy settles, instead of Adam's constant-size noise). */
static float learning_rate(const ms_ppo *p)
{
    const ms_ppo_config *c = &p->cfg;
    if (c->lr_decay == MS_LR_CONSTANT || p->total_steps <= 0)
        return c->lr;
    double x = (double)p->steps / (double)p->total_steps;
    x = x < 0 ? 0 : x > 1 ? 1 : x;
    double f = c->lr_decay == MS_LR_LINEAR ? 1 - x : 0.5 * (1 + cos(M_PI * x));
    return (float)(c->lr_min + (c->lr - c->lr_min) * f);
}

static void update(ms_ppo *p, ms_ppo_stats *st)
{
    int N = p->cfg.n_envs * p->cfg.n_steps, B = p->cfg.minibatch;
    double ent = 0, pg = 0, vf = 0, kl = 0, clipped = 0, norm = 0, im = 0;
    int nmb = 0, nim = 0;
    p->ent_coef = entropy_coef(p);
    p->adam.lr = learning_rate(p);
    for (int ep = 0; ep < p->cfg.n_epochs; ep++) {
        for (int i = N - 1; i > 0; i--) {
            int j = (int)ms_rng_below(&p->rng, (uint64_t)i + 1), t = p->perm[i];
            p->perm[i] = p->perm[j];
            p->perm[j] = t;
        }
        for (int s = 0; s + B <= N; s += B, nmb++) {
            p->mb = p->perm + s;
            double sum = 0, sq = 0;
            for (int r = 0; r < B; r++) {
                sum += p->adv[p->mb[r]];
                sq += (double)p->adv[p->mb[r]] * p->adv[p->mb[r]];
            }
            p->mb_mean = (float)(sum / B);
            double var = sq / B - (sum / B) * (sum / B);
            p->mb_std = (float)sqrt(var > 0 ? var : 0) + 1e-8f;
            for (int k = 0; k < p->nt; k++) {
                p->w[k].row_lo = B * k / p->nt;
                p->w[k].row_hi = B * (k + 1) / p->nt;
            }
            run_workers(p, minibatch_grad);
            norm += step_parallel(p);
            for (int k = 0; k < p->nt; k++) {
                ent += p->w[k].ent;
                pg += p->w[k].pg;
                vf += p->w[k].vf;
                kl += p->w[k].kl;
                clipped += p->w[k].clipped;
                im += p->w[k].im;
                nim += p->w[k].nim;
            }
        }
    }
    double rows = (double)nmb * B;
    st->entropy = (float)(ent / rows);
    st->policy_loss = (float)(pg / rows);
    st->value_loss = (float)(vf / rows);
    st->approx_kl = (float)(kl / rows);
    st->clip_frac = (float)(clipped / rows);
    st->grad_norm = (float)(norm / (nmb ? nmb : 1));
    st->ent_coef = p->ent_coef;
    st->lr = p->adam.lr;
    st->imitate_loss = nim ? (float)(im / nim) : NAN;
}

int ms_ppo_iterate(ms_ppo *p, ms_ppo_stats *st, ms_error *err)
{
    memset(st, 0, sizeof *st);
    run_workers(p, rollout);
    for (int k = 0; k < p->nt; k++)
        if (p->w[k].status) {
            if (err)
                *err = p->w[k].err;
            return p->w[k].status;
        }
    p->steps += (long)p->cfg.n_envs * p->cfg.n_steps;
    double ret = 0, len = 0;
    for (int k = 0; k < p->nt; k++) {
        st->episodes += p->w[k].episodes;
        st->demonstrations += p->w[k].demos;
        ret += p->w[k].ret_sum;
        len += p->w[k].len_sum;
    }
    st->mean_return = st->episodes ? ret / st->episodes : NAN;
    st->mean_length = st->episodes ? len / st->episodes : NAN;
    gae(p);
    update(p, st);
    st->steps = p->steps;
    return MS_OK;
}

static int alloc_all(ms_ppo *p, ms_error *err)
{
    size_t N = (size_t)p->cfg.n_envs * p->cfg.n_steps, E = (size_t)p->cfg.n_envs;
    size_t O = (size_t)p->obs_size, A = (size_t)p->nact;
    p->obs = malloc(N * O * sizeof(float));
    p->mask = malloc(N * A);
    p->act = malloc(N * sizeof(int));
    p->perm = malloc(N * sizeof(int));
    p->logp = malloc(N * sizeof(float));
    p->val = malloc(N * sizeof(float));
    p->rew = malloc(N * sizeof(float));
    p->adv = malloc(N * sizeof(float));
    p->ret = malloc(N * sizeof(float));
    p->done = malloc(N);
    p->last_val = malloc(E * sizeof(float));
    p->cur_obs = malloc(E * O * sizeof(float));
    p->cur_mask = malloc(E * A);
    p->ep_ret = calloc(E, sizeof(double));
    p->ep_len = calloc(E, sizeof(int));
    p->w = calloc((size_t)p->nt, sizeof(worker));
    if ((p->cfg.imitate_share > 0 || p->cfg.demo_share > 0) &&
        !(p->target = malloc(N * sizeof(int))))
        return ms_error_set(err, MS_ENOMEM, "ppo: out of memory");
    if (p->cfg.demo_share > 0 && (!(p->demo = malloc(N)) || !(p->ep_demo = calloc(E, 1))))
        return ms_error_set(err, MS_ENOMEM, "ppo: out of memory");
    if (!p->obs || !p->mask || !p->act || !p->perm || !p->logp || !p->val || !p->rew || !p->adv ||
        !p->ret || !p->done || !p->last_val || !p->cur_obs || !p->cur_mask || !p->ep_ret ||
        !p->ep_len || !p->w)
        return ms_error_set(err, MS_ENOMEM, "ppo: out of memory");
    for (size_t i = 0; i < N; i++)
        p->perm[i] = (int)i;
    int rows = p->cfg.minibatch / p->nt + 1;
    int erows = (int)((E + (size_t)p->nt - 1) / (size_t)p->nt);
    for (int k = 0; k < p->nt; k++) {
        worker *w = &p->w[k];
        w->p = p;
        w->id = k;
        w->env_lo = (int)E * k / p->nt;
        w->env_hi = (int)E * (k + 1) / p->nt;
        w->par_lo = p->mlp.nparams * (size_t)k / (size_t)p->nt;
        w->par_hi = p->mlp.nparams * (size_t)(k + 1) / (size_t)p->nt;
        w->rng = ms_rng_split(&p->rng, (uint64_t)k + 1);
        w->grad = malloc(p->mlp.nparams * sizeof(float));
        w->x = malloc((size_t)rows * O * sizeof(float));
        w->dlog = malloc((size_t)rows * A * sizeof(float));
        w->dval = malloc((size_t)rows * sizeof(float));
        w->logp = malloc(A * sizeof(float));
        if (!w->grad || !w->x || !w->dlog || !w->dval || !w->logp ||
            ms_mlp_work_init(&w->work, &p->mlp, rows > erows ? rows : erows, err))
            return ms_error_set(err, MS_ENOMEM, "ppo: out of memory");
    }
    if (!(p->pool = learn_pool_new(p->nt, p->w, sizeof *p->w)))
        return ms_error_set(err, MS_ENOMEM, "ppo: out of memory");
    return MS_OK;
}

ms_ppo *ms_ppo_new(const ms_ppo_config *cfg, const ms_rl_env_ops *ops, void **envs, int obs_size,
                   int nact, long total_steps, uint64_t seed, ms_error *err)
{
    if (cfg->n_envs < 1 || cfg->n_steps < 1 || cfg->minibatch < 1 || cfg->n_epochs < 1 ||
        cfg->minibatch > cfg->n_envs * cfg->n_steps) {
        ms_error_set(err, MS_EINVAL,
                     "ppo: need n_envs, n_steps, epochs >= 1 and "
                     "1 <= minibatch <= n_envs * n_steps");
        return NULL;
    }
    if (!(cfg->imitate_share >= 0 && cfg->imitate_share <= 1) || cfg->imitate_width < 0 ||
        !(cfg->imitate_coef >= 0) || (cfg->imitate_share > 0 && !ops->improve)) {
        ms_error_set(err, MS_EINVAL,
                     "ppo: imitation needs a share in [0, 1], a width >= 0, "
                     "a coefficient >= 0 and environments with improve");
        return NULL;
    }
    if (!(cfg->demo_share >= 0 && cfg->demo_share <= 1) ||
        (cfg->demo_share > 0 && !ops->demonstrate)) {
        ms_error_set(err, MS_EINVAL,
                     "ppo: demonstrations need a share in [0, 1] and "
                     "environments with demonstrate");
        return NULL;
    }
    ms_ppo *p = calloc(1, sizeof *p);
    if (!p) {
        ms_error_set(err, MS_ENOMEM, "ppo: out of memory");
        return NULL;
    }
    p->cfg = *cfg;
    p->ops = *ops;
    p->envs = envs;
    p->obs_size = obs_size;
    p->nact = nact;
    p->total_steps = total_steps;
    p->nt = cfg->threads < 1 ? 1 : cfg->threads > 64 ? 64 : cfg->threads;
    if (p->nt > cfg->n_envs)
        p->nt = cfg->n_envs;
    ms_rng_seed(&p->rng, seed);
    if (ms_mlp_init_sep(&p->mlp, obs_size, cfg->nhidden, cfg->hidden, nact, cfg->separate, &p->rng,
                        err) ||
        ms_adam_init(&p->adam, p->mlp.nparams, cfg->lr, err) || alloc_all(p, err)) {
        ms_ppo_free(p);
        return NULL;
    }
    run_workers(p, reset_envs);
    for (int k = 0; k < p->nt; k++)
        if (p->w[k].status) {
            if (err)
                *err = p->w[k].err;
            ms_ppo_free(p);
            return NULL;
        }
    return p;
}

void ms_ppo_free(ms_ppo *p)
{
    if (!p)
        return;
    learn_pool_free(p->pool);
    for (int k = 0; p->w && k < p->nt; k++) {
        worker *w = &p->w[k];
        free(w->grad);
        free(w->x);
        free(w->dlog);
        free(w->dval);
        free(w->logp);
        ms_mlp_work_fini(&w->work);
    }
    free(p->w);
    free(p->obs);
    free(p->mask);
    free(p->act);
    free(p->target);
    free(p->demo);
    free(p->ep_demo);
    free(p->perm);
    free(p->logp);
    free(p->val);
    free(p->rew);
    free(p->adv);
    free(p->ret);
    free(p->done);
    free(p->last_val);
    free(p->cur_obs);
    free(p->cur_mask);
    free(p->ep_ret);
    free(p->ep_len);
    ms_mlp_fini(&p->mlp);
    ms_adam_fini(&p->adam);
    free(p);
}

ms_mlp *ms_ppo_mlp(ms_ppo *p) { return &p->mlp; }
ms_adam *ms_ppo_adam(ms_ppo *p) { return &p->adam; }
long ms_ppo_steps(const ms_ppo *p) { return p->steps; }
void ms_ppo_set_steps(ms_ppo *p, long steps) { p->steps = steps; }
ms_rng *ms_ppo_rng(ms_ppo *p) { return &p->rng; }
