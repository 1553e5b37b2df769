/* rl_agent.c: the trained co-scheduling agent: model files of the "hier" environment (their
 * action space checked against this build's setups on load) and their plans of windows, W
 * jobs at a time (greedy, or with the rollout lookahead of rl_lookahead.c). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hier_rl.h"

#define HIER_RL_FEATURES_ID "table3-share-ratio-log+5/1"
#define HIER_RL_GAINS_ID    "table3-share-ratio-log+5+gains3/1" /* with --gains */

struct ms_hier_agent {
    ms_dqn_model model;
    hier_rl_env env;
};

int hier_rl_plan(const ms_mlp *net, hier_rl_env *e, const ms_hier_window *w,
                 const ms_hier_corun *cr, int cmax, ms_hier_lookahead lookahead, ms_hier_plan *out,
                 ms_error *err)
{
    if (cmax < 1 || cmax > e->cmax)
        return ms_error_set(err, MS_EINVAL,
                            "hier rl: the model plans groups of up to %d jobs, "
                            "C_max %d asked",
                            e->cmax, cmax);
    hier_rl_decider d;
    int rc = hier_rl_decider_init(&d, net, e, lookahead, err);
    for (size_t off = 0; off < w->n && !rc; off += (size_t)e->W) {
        ms_hier_window chunk = {.n = w->n - off < (size_t)e->W ? w->n - off : (size_t)e->W,
                                .jobs = w->jobs + off};
        hier_rl_env_start(e, &chunk, cr, cmax);
        for (bool done = false; !done;)
            hier_rl_ops.step(e, hier_rl_decide(&d, e), &done);
        for (int g = 0; g < e->ngroups && !rc; g++) {
            int jobs[MS_HIER_MAX_C];
            for (int i = 0; i < e->groups[g].c; i++)
                jobs[i] = e->order[e->groups[g].job[i]] + (int)off;
            rc = ms_hier_plan_add(out, w, cr, jobs, &e->setups[e->groups[g].setup], err);
        }
    }
    hier_rl_decider_free(&d);
    return rc;
}

char *hier_rl_env_json(const hier_rl_env *e, const ms_hier_catalog *cat)
{
    json_t *setups = json_array(), *progs = json_array();
    for (int k = 0; k < e->nsetups; k++)
        json_array_append_new(setups, json_string(e->setups[k].id));
    for (size_t i = 0; cat && i < cat->n; i++)
        if (!cat->jobs[i].unseen)
            json_array_append_new(progs, json_string(cat->jobs[i].name));
    const char *feat = e->gains ? HIER_RL_GAINS_ID : HIER_RL_FEATURES_ID;
    json_t *j = json_pack("{s:i, s:i, s:f, s:f, s:f, s:b, s:f, s:s, s:o, s:o}", "window", e->W,
                          "cmax", e->cmax, "ri_weight", e->ri_weight, "saved_weight",
                          e->saved_weight, "rf_weight", e->rf_weight, "best_setup", e->best_setup,
                          "reward_scale", HIER_RL_REWARD_SCALE, "features", feat, "setups", setups,
                          "trained_on", progs);
    if (j && e->expert_updates) /* only then, so DQN-only files keep their bytes */
        json_object_set_new(j, "expert_pretrain", json_integer(e->expert_updates));
    char *text = j ? json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    json_decref(j);
    return text;
}

int hier_rl_env_from_json(const char *path, const char *text, hier_rl_env *e, ms_error *err)
{
    json_error_t je;
    json_t *j = json_loads(text, 0, &je), *setups = NULL;
    ms_hier_rl_config c;
    int best = 0, rc = MS_EINVAL;
    memset(&c, 0, sizeof c);
    c.rf_weight = 1; /* files from before --rf-weight paid r_f in full */
    const char *feat = NULL;
    if (!j || json_unpack_ex(j, &je, 0, "{s:i, s:i, s:F, s:F, s?F, s:b, s:s, s:o}", "window",
                             &c.window, "cmax", &c.cmax, "ri_weight", &c.ri_weight, "saved_weight",
                             &c.saved_weight, "rf_weight", &c.rf_weight, "best_setup", &best,
                             "features", &feat, "setups", &setups)) {
        ms_error_set(err, rc, "%s: env: %s", path, je.text);
        goto out;
    }
    c.gains = !strcmp(feat, HIER_RL_GAINS_ID);
    if (!c.gains && strcmp(feat, HIER_RL_FEATURES_ID)) {
        ms_error_set(err, rc, "%s: env: features '%s', this build computes '%s' or '%s'", path,
                     feat, HIER_RL_FEATURES_ID, HIER_RL_GAINS_ID);
        goto out;
    }
    c.best_setup = best;
    if (hier_rl_env_init(e, &c, err)) {
        ms_error_prefix(err, "%s: env", path);
        goto out;
    }
    if (!json_is_array(setups) || json_array_size(setups) != (size_t)e->nsetups) {
        ms_error_set(err, rc, "%s: env: %zu setups, this build has %d for C_max %d", path,
                     json_array_size(setups), e->nsetups, c.cmax);
        goto out;
    }
    for (int k = 0; k < e->nsetups; k++) {
        const char *id = json_string_value(json_array_get(setups, (size_t)k));
        if (!id || strcmp(id, e->setups[k].id)) {
            ms_error_set(err, rc, "%s: env: action setup %d is '%s', this build's is '%s'", path, k,
                         id ? id : "(not a string)", e->setups[k].id);
            goto out;
        }
    }
    rc = MS_OK;
out:
    json_decref(j);
    return rc;
}

int ms_hier_agent_load(const char *path, ms_hier_agent **out, ms_error *err)
{
    *out = NULL;
    ms_hier_agent *a = calloc(1, sizeof *a);
    if (!a)
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    int rc = ms_dqn_model_load(path, &a->model, err);
    if (rc) {
        free(a);
        return rc;
    }
    if (strcmp(a->model.env_kind, "hier"))
        rc = ms_error_set(err, MS_EINVAL, "%s: a model of the '%s' environment, not 'hier'", path,
                          a->model.env_kind);
    else
        rc = hier_rl_env_from_json(path, a->model.env_json, &a->env, err);
    if (!rc && (a->model.mlp.in != hier_rl_obs_size(&a->env) ||
                a->model.mlp.nact != hier_rl_num_actions(&a->env)))
        rc = ms_error_set(err, MS_EINVAL,
                          "%s: the network has %d inputs and %d actions, the "
                          "environment %d and %d",
                          path, a->model.mlp.in, a->model.mlp.nact, hier_rl_obs_size(&a->env),
                          hier_rl_num_actions(&a->env));
    if (rc) {
        ms_hier_agent_free(a);
        return rc;
    }
    *out = a;
    return MS_OK;
}

void ms_hier_agent_free(ms_hier_agent *a)
{
    if (!a)
        return;
    ms_dqn_model_fini(&a->model);
    hier_rl_env_free(&a->env);
    free(a);
}

int ms_hier_agent_window(const ms_hier_agent *a) { return a->env.W; }
int ms_hier_agent_cmax(const ms_hier_agent *a) { return a->env.cmax; }

int ms_hier_agent_plan(ms_hier_agent *a, const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                       ms_hier_lookahead lookahead, ms_hier_plan *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    int rc = hier_rl_plan(&a->model.mlp, &a->env, w, cr, cmax, lookahead, out, err);
    if (rc)
        ms_hier_plan_fini(out);
    return rc;
}

int ms_hier_rl_plan(const ms_hier_window *w, const ms_hier_corun *cr, int cmax,
                    const char *model_path, ms_hier_lookahead lookahead, ms_hier_plan *out,
                    ms_error *err)
{
    ms_hier_agent *a;
    int rc = ms_hier_agent_load(model_path, &a, err);
    if (!rc)
        rc = ms_hier_agent_plan(a, w, cr, cmax, lookahead, out, err);
    ms_hier_agent_free(a);
    return rc;
}
