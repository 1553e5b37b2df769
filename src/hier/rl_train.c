/* rl_train.c: offline training of the co-scheduling agent (paper 004 IV-B, V-A2): the DQN
 * of src/learn on episodes that are job mixes of the programs not held out, checkpoints as
 * DQN model files of the "hier" environment. */
#include <stdlib.h>
#include <string.h>

#include "hier_rl.h"

struct ms_hier_trainer {
    ms_hier_rl_config cfg;
    hier_rl_env env;
    const ms_hier_catalog *cat;
    ms_dqn *dqn;
    uint64_t seed;
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
        ms_error_set(err, MS_EINVAL, "hier rl: the training window has %zu jobs, the agent's "
                                     "state %d rows", fixed->n, cfg->window);
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

void ms_hier_trainer_free(ms_hier_trainer *t)
{
    if (!t)
        return;
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
                         int cmax, int lookahead, ms_hier_plan *out, ms_error *err)
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
        ms_hier_plan_free(out);
    hier_rl_env_free(e);
    free(e);
    return rc;
}
