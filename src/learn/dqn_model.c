/* dqn_model.c: DQN model files ("migsched-dqn-model/1" in the container of model_file.c):
 * the dueling network, the training settings and the environment's description. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"
#include "model_file.h"

#ifndef MIGSCHED_GIT_COMMIT
#define MIGSCHED_GIT_COMMIT "unknown"
#endif

#define DQN_FORMAT "migsched-dqn-model/1"

static json_t *header_json(const ms_dqn_model *m, ms_error *err)
{
    json_error_t je;
    json_t *env = json_loads(m->env_json ? m->env_json : "{}", 0, &je);
    if (!json_is_object(env)) {
        json_decref(env);
        ms_error_set(err, MS_EINVAL,
                     "dqn model: the environment description is not a JSON "
                     "object");
        return NULL;
    }
    json_t *hidden = json_array();
    for (int l = 0; l < m->mlp.nhidden; l++)
        json_array_append_new(hidden, json_integer(m->mlp.hidden[l]));
    const ms_dqn_config *c = &m->cfg;
    json_t *h = json_pack(
        "{s:s, s:{s:i, s:o, s:i, s:s, s:s}, s:s, s:o, s:{s:f, s:f, s:f, s:f, s:i, s:i, s:i, s:i,"
        " s:i, s:f, s:f, s:I}, s:I, s:I, s:s}",
        "format", DQN_FORMAT, "arch", "in", m->mlp.in, "hidden", hidden, "actions", m->mlp.nact,
        "activation", m->mlp.activation == MS_ACT_RELU ? "relu" : "tanh", "heads", "dueling",
        "env_kind", m->env_kind, "env", env, "train", "lr", (double)c->lr, "gamma",
        (double)c->gamma, "max_grad_norm", (double)c->max_grad_norm, "huber", (double)c->huber,
        "batch", c->batch, "replay", c->replay, "learn_start", c->learn_start, "train_every",
        c->train_every, "target_every", c->target_every, "eps_start", (double)c->eps_start,
        "eps_end", (double)c->eps_end, "eps_steps", (json_int_t)c->eps_steps, "steps",
        (json_int_t)m->steps, "seed", (json_int_t)m->seed, "git_commit",
        m->commit[0] ? m->commit : MIGSCHED_GIT_COMMIT);
    if (!h)
        ms_error_set(err, MS_ENOMEM, "dqn model: cannot build the header");
    return h;
}

int ms_dqn_model_save(const char *path, const ms_dqn_model *m, ms_error *err)
{
    json_t *h = header_json(m, err);
    if (!h)
        return err ? err->code : MS_EINVAL;
    const float *arrays[1] = {m->mlp.params};
    size_t counts[1] = {m->mlp.nparams};
    int rc = modelfile_write(path, h, arrays, counts, 1, err);
    json_decref(h);
    return rc;
}

static int parse_header(const char *path, json_t *h, size_t body, ms_dqn_model *m, ms_error *err)
{
    const char *format = json_string_value(json_object_get(h, "format"));
    if (!format || strcmp(format, DQN_FORMAT))
        return ms_error_set(err, MS_EINVAL, "%s: format '%s', expected %s (a DQN model)", path,
                            format ? format : "(none)", DQN_FORMAT);
    json_t *hidden = NULL, *env = NULL;
    const char *act = NULL, *heads = NULL, *kind = NULL, *commit = "";
    double lr, gamma, gn, huber, e0, e1;
    json_int_t esteps, steps, seed;
    int in, nact;
    ms_dqn_config *c = &m->cfg;
    json_error_t je;
    if (json_unpack_ex(h, &je, 0,
                       "{s:{s:i, s:o, s:i, s:s, s:s}, s:s, s:o, s:{s:F, s:F, s:F, s:F, s:i, s:i,"
                       " s:i, s:i, s:i, s:F, s:F, s:I}, s:I, s:I, s?s}",
                       "arch", "in", &in, "hidden", &hidden, "actions", &nact, "activation", &act,
                       "heads", &heads, "env_kind", &kind, "env", &env, "train", "lr", &lr, "gamma",
                       &gamma, "max_grad_norm", &gn, "huber", &huber, "batch", &c->batch, "replay",
                       &c->replay, "learn_start", &c->learn_start, "train_every", &c->train_every,
                       "target_every", &c->target_every, "eps_start", &e0, "eps_end", &e1,
                       "eps_steps", &esteps, "steps", &steps, "seed", &seed, "git_commit", &commit))
        return ms_error_set(err, MS_EINVAL, "%s: header: %s", path, je.text);
    if (strcmp(act, "relu") || strcmp(heads, "dueling"))
        return ms_error_set(err, MS_EINVAL,
                            "%s: header: arch is %s with %s heads, this build "
                            "reads relu with dueling heads",
                            path, act, heads);
    if (!json_is_array(hidden) || json_array_size(hidden) < 1 ||
        json_array_size(hidden) > MS_MLP_MAX_HIDDEN)
        return ms_error_set(err, MS_EINVAL, "%s: header: arch.hidden must list 1..%d widths", path,
                            MS_MLP_MAX_HIDDEN);
    if (!json_is_object(env))
        return ms_error_set(err, MS_EINVAL, "%s: header: env must be an object", path);
    c->lr = (float)lr;
    c->gamma = (float)gamma;
    c->max_grad_norm = (float)gn;
    c->huber = (float)huber;
    c->eps_start = (float)e0;
    c->eps_end = (float)e1;
    c->eps_steps = esteps;
    c->nhidden = (int)json_array_size(hidden);
    for (int l = 0; l < c->nhidden; l++) {
        json_t *v = json_array_get(hidden, (size_t)l);
        c->hidden[l] = json_is_integer(v) ? (int)json_integer_value(v) : 0;
    }
    snprintf(m->env_kind, sizeof m->env_kind, "%s", kind);
    snprintf(m->commit, sizeof m->commit, "%s", commit);
    m->steps = steps;
    m->seed = (uint64_t)seed;
    m->env_json = json_dumps(env, JSON_SORT_KEYS | JSON_COMPACT);
    if (!m->env_json)
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    ms_mlp shape;
    if (ms_mlp_shape(&shape, in, c->nhidden, c->hidden, nact, err)) {
        ms_error_prefix(err, "%s: header", path);
        return err ? err->code : MS_EINVAL;
    }
    if (body != shape.nparams * sizeof(float)) /* checked before allocating */
        return ms_error_set(err, MS_EINVAL,
                            "%s: %zu bytes of parameters, the header's "
                            "architecture needs %zu",
                            path, body, shape.nparams * sizeof(float));
    ms_rng dummy;
    ms_rng_seed(&dummy, 0);
    if (ms_mlp_init(&m->mlp, in, c->nhidden, c->hidden, nact, &dummy, err)) {
        ms_error_prefix(err, "%s: header", path);
        return err ? err->code : MS_EINVAL;
    }
    m->mlp.activation = MS_ACT_RELU;
    return MS_OK;
}

static int parse_dqn(const char *path, json_t *h, size_t body, void *ctx, float **arrays,
                     size_t *counts, int *n, ms_error *err)
{
    ms_dqn_model *m = ctx;
    int rc = parse_header(path, h, body, m, err);
    if (rc)
        return rc;
    arrays[0] = m->mlp.params;
    counts[0] = m->mlp.nparams;
    *n = 1;
    return MS_OK;
}

int ms_dqn_model_load(const char *path, ms_dqn_model *m, ms_error *err)
{
    memset(m, 0, sizeof *m);
    int rc = modelfile_load(path, parse_dqn, m, err);
    if (rc)
        ms_dqn_model_fini(m);
    return rc;
}

void ms_dqn_model_fini(ms_dqn_model *m)
{
    ms_mlp_fini(&m->mlp);
    free(m->env_json);
    m->env_json = NULL;
}
