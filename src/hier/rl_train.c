/* rl_train.c: offline training of the co-scheduling agent (paper 004 IV-B, V-A2): the DQN
 * of src/learn on episodes that are job mixes of the programs not held out, checkpoints as
 * DQN model files of the "hier" environment. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hier_rl.h"

/* Pre-training from the exact action values: episodes on a second environment, acted
 * epsilon-greedily by the network being trained (so it learns the values of the states it
 * reaches), their states labelled with Q* and kept in a ring that minibatches are drawn from. */
#define PRE_RING     16384
#define PRE_COLLECT  16 /* states labelled per update */
#define PRE_EPSILON  0.2
#define PRE_EPISODES 8 /* episodes per drawn window: its exact values cost ~800 co-run searches */
typedef struct pretrainer {
    hier_rl_env env;
    hier_rl_expert expert;
    ms_rng rng;
    ms_mlp_work work;
    float *obs, *q, *target, *bx, *by;
    uint8_t *mask, *bm;
    long stored, episodes;
} pretrainer;

struct ms_hier_trainer {
    ms_hier_rl_config cfg;
    hier_rl_env env;
    const ms_hier_catalog *cat;
    ms_dqn *dqn;
    uint64_t seed;
    pretrainer *pre;
};

void ms_hier_rl_config_default(ms_hier_rl_config *c)
{
    memset(c, 0, sizeof *c);
    c->window = 12;
    c->cmax = 4;
    c->ri_weight = 1.0;
    c->saved_weight = 1.0;
    c->rf_weight = 1.0;
    ms_dqn_config_default(&c->dqn);
    /* An episode is a handful of decisions and pays r_f at its end: no discount. */
    c->dqn.gamma = 1.0f;
}

ms_hier_trainer *ms_hier_trainer_new(const ms_hier_rl_config *cfg, const ms_hier_catalog *cat,
                                     const ms_hier_corun *cr, const ms_hier_window *fixed,
                                     long total_steps, uint64_t seed, ms_error *err)
{
    ms_hier_trainer *t = calloc(1, sizeof *t);
    if (!t) {
        ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
        return NULL;
    }
    t->cfg = *cfg;
    t->cat = cat;
    t->seed = seed;
    if (hier_rl_env_init(&t->env, cfg, err))
        goto fail;
    if (fixed && (fixed->n < 1 || fixed->n > (size_t)cfg->window)) {
        ms_error_set(err, MS_EINVAL,
                     "hier rl: the training window has %zu jobs, the agent's "
                     "state %d rows",
                     fixed->n, cfg->window);
        goto fail;
    }
    t->env.cat = cat;
    t->env.fixed = fixed;
    t->env.cr = cr;
    t->dqn = ms_dqn_new(&cfg->dqn, &hier_rl_ops, &t->env, hier_rl_obs_size(&t->env),
                        hier_rl_num_actions(&t->env), total_steps, seed, err);
    if (!t->dqn)
        goto fail;
    return t;
fail:
    ms_hier_trainer_free(t);
    return NULL;
}

static void pretrainer_free(pretrainer *p)
{
    if (!p)
        return;
    hier_rl_env_free(&p->env);
    hier_rl_expert_free(&p->expert);
    ms_mlp_work_fini(&p->work);
    void *bufs[] = {p->obs, p->q, p->target, p->bx, p->by, p->mask, p->bm};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        free(bufs[i]);
    free(p);
}

static int pretrainer_new(ms_hier_trainer *t, ms_error *err)
{
    pretrainer *p = calloc(1, sizeof *p);
    if (!p)
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    t->pre = p;
    if (hier_rl_env_init(&p->env, &t->cfg, err) || hier_rl_expert_init(&p->expert, &p->env, err))
        return err ? err->code : MS_EINVAL;
    p->env.cat = t->env.cat;
    p->env.fixed = t->env.fixed;
    p->env.cr = t->env.cr;
    size_t O = (size_t)hier_rl_obs_size(&p->env), A = (size_t)hier_rl_num_actions(&p->env);
    size_t B = (size_t)t->cfg.dqn.batch;
    p->obs = malloc(PRE_RING * O * sizeof(float));
    p->target = malloc(PRE_RING * A * sizeof(float));
    p->mask = malloc(PRE_RING * A);
    p->q = malloc(A * sizeof(float));
    p->bx = malloc(B * O * sizeof(float));
    p->by = malloc(B * A * sizeof(float));
    p->bm = malloc(B * A);
    if (!p->obs || !p->target || !p->mask || !p->q || !p->bx || !p->by || !p->bm)
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    if (ms_mlp_work_init(&p->work, ms_dqn_mlp(t->dqn), 1, err))
        return err ? err->code : MS_ENOMEM;
    ms_rng_seed(&p->rng, t->seed ^ 0x5851f42d4c957f2dull);
    if (hier_rl_ops.reset(&p->env, &p->rng, err))
        return err ? err->code : MS_EINVAL;
    hier_rl_expert_start(&p->expert, &p->env);
    return MS_OK;
}

/* Labels the current state into the ring and takes one epsilon-greedy step. */
static int pretrain_visit(ms_hier_trainer *t, ms_error *err)
{
    pretrainer *p = t->pre;
    hier_rl_env *e = &p->env;
    size_t O = (size_t)hier_rl_obs_size(e), A = (size_t)hier_rl_num_actions(e);
    size_t i = (size_t)(p->stored++ % PRE_RING);
    float *obs = p->obs + i * O;
    uint8_t *m = p->mask + i * A;
    hier_rl_ops.observe(e, obs);
    int allowed = hier_rl_ops.mask(e, m);
    hier_rl_expert_q(&p->expert, e, m, p->target + i * A);
    int a;
    if (ms_rng_uniform(&p->rng) < PRE_EPSILON) {
        int k = (int)ms_rng_below(&p->rng, (uint64_t)allowed);
        for (a = 0; !m[a] || k-- > 0; a++)
            ;
    } else {
        a = ms_dqn_greedy(ms_dqn_mlp(t->dqn), &p->work, obs, m, p->q);
    }
    bool done = false;
    hier_rl_ops.step(e, a, &done);
    if (done && ++p->episodes % PRE_EPISODES) {
        hier_rl_env_restart(e);
    } else if (done) {
        if (hier_rl_ops.reset(e, &p->rng, err))
            return err ? err->code : MS_EINVAL;
        hier_rl_expert_start(&p->expert, e);
    }
    return MS_OK;
}

int ms_hier_trainer_pretrain(ms_hier_trainer *t, long updates, double *loss, ms_error *err)
{
    if (!t->pre && pretrainer_new(t, err)) {
        pretrainer_free(t->pre);
        t->pre = NULL;
        return err ? err->code : MS_EINVAL;
    }
    pretrainer *p = t->pre;
    size_t O = (size_t)hier_rl_obs_size(&p->env), A = (size_t)hier_rl_num_actions(&p->env);
    int B = t->cfg.dqn.batch;
    double sum = 0;
    for (long u = 0; u < updates; u++) {
        for (int k = 0; k < PRE_COLLECT; k++)
            if (pretrain_visit(t, err))
                return err ? err->code : MS_EINVAL;
        long n = p->stored < PRE_RING ? p->stored : PRE_RING;
        for (int r = 0; r < B; r++) {
            size_t i = (size_t)ms_rng_below(&p->rng, (uint64_t)n);
            memcpy(p->bx + (size_t)r * O, p->obs + i * O, O * sizeof(float));
            memcpy(p->by + (size_t)r * A, p->target + i * A, A * sizeof(float));
            memcpy(p->bm + (size_t)r * A, p->mask + i * A, A);
        }
        sum += ms_dqn_fit(t->dqn, p->bx, p->bm, p->by, B);
        t->env.expert_updates++;
    }
    *loss = updates ? sum / (double)updates : NAN;
    return MS_OK;
}

void ms_hier_trainer_free(ms_hier_trainer *t)
{
    if (!t)
        return;
    pretrainer_free(t->pre);
    ms_dqn_free(t->dqn);
    hier_rl_env_free(&t->env);
    free(t);
}

int ms_hier_trainer_run(ms_hier_trainer *t, long steps, ms_dqn_stats *st, ms_error *err)
{
    return ms_dqn_train(t->dqn, steps, st, err);
}

int ms_hier_trainer_save(ms_hier_trainer *t, const char *path, ms_error *err)
{
    ms_dqn_model m;
    memset(&m, 0, sizeof m);
    m.mlp = *ms_dqn_mlp(t->dqn); /* a view: the trainer keeps the parameters */
    m.cfg = t->cfg.dqn;
    snprintf(m.env_kind, sizeof m.env_kind, "hier");
    m.env_json = hier_rl_env_json(&t->env, t->env.fixed ? NULL : t->cat);
    m.steps = ms_dqn_steps(t->dqn);
    m.seed = t->seed;
    if (!m.env_json)
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    int rc = ms_dqn_model_save(path, &m, err);
    free(m.env_json);
    return rc;
}

int ms_hier_trainer_plan(ms_hier_trainer *t, const ms_hier_window *w, const ms_hier_corun *cr,
                         int cmax, ms_hier_lookahead lookahead, ms_hier_plan *out, ms_error *err)
{
    /* A second environment: the training episode in t->env goes on untouched. */
    hier_rl_env *e = malloc(sizeof *e);
    if (!e)
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    int rc = hier_rl_env_init(e, &t->cfg, err);
    memset(out, 0, sizeof *out);
    if (!rc)
        rc = hier_rl_plan(ms_dqn_mlp(t->dqn), e, w, cr, cmax, lookahead, out, err);
    if (rc)
        ms_hier_plan_fini(out);
    hier_rl_env_free(e);
    free(e);
    return rc;
}
