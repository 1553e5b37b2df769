/* model.c: PPO policy files (container in model_file.c): a JSON header (architecture,
 * environment, GPU, preset, steps, seed, commit, CPU seconds), then the float32 parameters and, in
 * checkpoints, Adam's moments. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"
#include "model_file.h"

#ifndef MIGSCHED_GIT_COMMIT
#define MIGSCHED_GIT_COMMIT "unknown"
#endif

static json_t *header_json(const ms_rl_model *m)
{
    json_t *hidden = json_array();
    for (int l = 0; l < m->mlp.nhidden; l++)
        json_array_append_new(hidden, json_integer(m->mlp.hidden[l]));
    char rng[4][24];
    for (int i = 0; i < 4; i++)
        snprintf(rng[i], sizeof rng[i], "%llu", (unsigned long long)m->rng.s[i]);
    json_t *h = json_pack(
        "{s:s, s:{s:i, s:o, s:i, s:s}, s:{s:i, s:i, s:s, s:b, s:b, s:b}, s:s, s:s, s:I, s:s,"
        " s:I, s:b, s:I, s:[s,s,s,s]}",
        "format", "migsched-rl-model/1", "arch", "in", m->mlp.in, "hidden", hidden, "actions",
        m->mlp.nact, "activation", "tanh", "env", "n_batch", m->env.n_batch, "levels",
        m->env.levels, "encoding", ms_env_encoding_name(m->env.encoding), "direct_reconfig",
        m->env.direct_reconfig, "online", m->env.online, "keep_useless", m->env.keep_useless, "gpu",
        m->gpu, "preset", m->preset, "steps", (json_int_t)m->steps, "git_commit",
        m->commit[0] ? m->commit : MIGSCHED_GIT_COMMIT, "seed", (json_int_t)m->seed, "adam",
        m->has_adam, "adam_t", (json_int_t)m->adam.t, "rng", rng[0], rng[1], rng[2], rng[3]);
    /* Only when set: files of a shared trunk keep the header they always had. */
    if (h && m->mlp.separate)
        json_object_set_new(json_object_get(h, "arch"), "separate", json_true());
    if (h && m->env.async_reconfig) /* likewise */
        json_object_set_new(json_object_get(h, "env"), "async_reconfig", json_true());
    if (h && m->env.longest_first) /* likewise */
        json_object_set_new(json_object_get(h, "env"), "longest_first", json_true());
    if (h && m->env.soonest_placement) /* likewise */
        json_object_set_new(json_object_get(h, "env"), "soonest_placement", json_true());
    if (h && m->has_train) {
        const ms_ppo_config *c = &m->ppo;
        json_object_set_new(h, "train",
                            json_pack("{s:i, s:i, s:i, s:i, s:f, s:[f,f,f,f], s:b}", "envs",
                                      c->n_envs, "rollout", c->n_steps, "epochs", c->n_epochs,
                                      "minibatch", c->minibatch, "lr", (double)c->lr, "ent_coef",
                                      (double)c->ent_coef[0], (double)c->ent_coef[1],
                                      (double)c->ent_coef[2], (double)c->ent_coef[3],
                                      "paper_episodes", m->paper_episodes));
        json_t *t = json_object_get(h, "train");
        /* Only when set: files of a constant rate keep the header they always had. */
        if (c->lr_decay != MS_LR_CONSTANT) {
            json_object_set_new(t, "lr_decay", json_string(ms_lr_decay_name(c->lr_decay)));
            json_object_set_new(t, "lr_min", json_real(c->lr_min));
        }
        if (m->sorted.share > 0) { /* likewise */
            json_object_set_new(t, "sorted_share", json_real(m->sorted.share));
            json_object_set_new(t, "sorted_tasks", json_integer(m->sorted.tasks));
        }
        if (c->imitate_share > 0) /* likewise */
            json_object_update_new(t, json_pack("{s:f, s:i, s:f}", "imitate_share",
                                                (double)c->imitate_share, "imitate_width",
                                                c->imitate_width, "imitate_coef",
                                                (double)c->imitate_coef));
        if (c->demo_share > 0) /* likewise */
            json_object_set_new(t, "demonstrate_share", json_real(c->demo_share));
        if (m->demo_source != MS_DEMO_FAR) /* likewise */
            json_object_set_new(t, "demonstrator",
                                json_string(ms_demo_source_name(m->demo_source)));
    }
    if (h && m->has_cpu)
        json_object_set_new(h, "cpu_seconds", json_real(m->cpu_seconds));
    if (h && m->has_rollout_gap) /* only when calibrated */
        json_object_set_new(h, "rollout_gap", json_real(m->rollout_gap));
    return h;
}

/* The optional "train" object: PPO's settings over the defaults, checked like the CLI's. */
static int parse_train(const char *path, json_t *t, ms_rl_model *m, ms_error *err)
{
    if (!t)
        return MS_OK;
    ms_ppo_config *c = &m->ppo;
    ms_ppo_config_default(c);
    double lr, e[4], lr_min = 0, share = 0, im_share = 0, im_coef = c->imitate_coef;
    double demo_share = 0;
    int paper = 0, sorted_tasks = 0;
    const char *decay = "none", *demonstrator = "far";
    json_error_t je;
    if (json_unpack_ex(t, &je, JSON_STRICT,
                       "{s:i, s:i, s:i, s:i, s:F, s:[FFFF], s:b, s?s, s?F, s?F, s?i, s?F, s?i,"
                       " s?F, s?F, s?s}",
                       "envs", &c->n_envs, "rollout", &c->n_steps, "epochs", &c->n_epochs,
                       "minibatch", &c->minibatch, "lr", &lr, "ent_coef", &e[0], &e[1], &e[2],
                       &e[3], "paper_episodes", &paper, "lr_decay", &decay, "lr_min", &lr_min,
                       "sorted_share", &share, "sorted_tasks", &sorted_tasks, "imitate_share",
                       &im_share, "imitate_width", &c->imitate_width, "imitate_coef", &im_coef,
                       "demonstrate_share", &demo_share, "demonstrator", &demonstrator))
        return ms_error_set(err, MS_EINVAL, "%s: header: train: %s", path, je.text);
    if (ms_lr_decay_parse(decay, &c->lr_decay))
        return ms_error_set(err, MS_EINVAL, "%s: header: train: lr_decay: unknown '%s'", path,
                            decay);
    if (ms_demo_source_parse(demonstrator, &m->demo_source))
        return ms_error_set(err, MS_EINVAL, "%s: header: train: demonstrator: unknown '%s'", path,
                            demonstrator);
    c->lr_min = (float)lr_min;
    bool ok = c->n_envs >= 1 && c->n_steps >= 1 && c->n_epochs >= 1 && c->minibatch >= 1 &&
              c->minibatch <= c->n_envs * c->n_steps && lr > 0 && lr < 1 && lr_min >= 0 &&
              lr_min <= lr && share >= 0 && share <= 1 && (share == 0 || sorted_tasks >= 1) &&
              im_share >= 0 && im_share <= 1 && c->imitate_width >= 0 && im_coef > 0 &&
              im_coef <= 100 && demo_share >= 0 && demo_share <= 1;
    for (int i = 0; i < 4; i++) {
        ok &= e[i] >= 0 && e[i] < 1;
        c->ent_coef[i] = (float)e[i];
    }
    if (!ok)
        return ms_error_set(err, MS_EINVAL, "%s: header: train: a setting out of range", path);
    c->lr = (float)lr;
    c->imitate_share = (float)im_share;
    c->imitate_coef = (float)im_coef;
    c->demo_share = (float)demo_share;
    m->has_train = true;
    m->paper_episodes = paper;
    m->sorted = (ms_sorted_episodes){share, share > 0 ? sorted_tasks : 0};
    return MS_OK;
}

int ms_model_save(const char *path, const ms_rl_model *m, ms_error *err)
{
    json_t *h = header_json(m);
    size_t n = m->mlp.nparams, counts[3] = {n, n, n};
    const float *arrays[3] = {m->mlp.params, m->adam.m, m->adam.v};
    int rc = modelfile_write(path, h, arrays, counts, m->has_adam ? 3 : 1, err);
    json_decref(h);
    return rc;
}

/* body: the bytes after the header, which must hold exactly the parameters it describes. */
static int parse_header(const char *path, json_t *h, size_t body, ms_rl_model *m, ms_error *err)
{
    json_t *hidden = NULL, *train = NULL, *cpu = NULL, *gap = NULL;
    const char *enc = NULL, *gpu = NULL, *preset = "", *commit = "", *rng[4] = {0};
    json_int_t steps = 0, seed = 0, adam_t = 0;
    int in = 0, nact = 0, direct = 0, online = 0, useless = 0, adam = 0, separate = 0, async = 0,
        longest = 0, soonest = 0;
    json_error_t je;
    const char *format = json_string_value(json_object_get(h, "format"));
    if (format && strcmp(format, "migsched-rl-model/1"))
        return ms_error_set(err, MS_EINVAL,
                            "%s: a %s file, not a PPO policy "
                            "(migsched-rl-model/1)",
                            path, format);
    if (json_unpack_ex(h, &je, 0,
                       "{s:{s:i, s:o, s:i, s?b},"
                       " s:{s:i, s:i, s:s, s:b, s:b, s:b, s?b, s?b, s?b},"
                       " s:s, s?s, s:I, s?s, s:I, s:b, s?I, s?[ssss], s?o, s?o, s?o}",
                       "arch", "in", &in, "hidden", &hidden, "actions", &nact, "separate",
                       &separate, "env", "n_batch", &m->env.n_batch, "levels", &m->env.levels,
                       "encoding", &enc, "direct_reconfig", &direct, "online", &online,
                       "keep_useless", &useless, "async_reconfig", &async, "longest_first",
                       &longest, "soonest_placement", &soonest, "gpu", &gpu, "preset", &preset,
                       "steps", &steps, "git_commit", &commit, "seed", &seed, "adam", &adam,
                       "adam_t", &adam_t, "rng", &rng[0], &rng[1], &rng[2], &rng[3], "train",
                       &train, "cpu_seconds", &cpu, "rollout_gap", &gap))
        return ms_error_set(err, MS_EINVAL, "%s: header: %s", path, je.text);
    if (cpu &&
        !(json_is_number(cpu) && json_number_value(cpu) >= 0 && isfinite(json_number_value(cpu))))
        return ms_error_set(err, MS_EINVAL, "%s: header: cpu_seconds must be a number >= 0", path);
    if (gap &&
        !(json_is_number(gap) && json_number_value(gap) >= 0 && json_number_value(gap) <= 1000))
        return ms_error_set(err, MS_EINVAL,
                            "%s: header: rollout_gap must be a number in "
                            "0..1000",
                            path);
    m->has_rollout_gap = gap != NULL;
    m->rollout_gap = gap ? (float)json_number_value(gap) : 0;
    m->has_cpu = cpu != NULL;
    m->cpu_seconds = cpu ? json_number_value(cpu) : 0;
    if (!json_is_array(hidden) || json_array_size(hidden) < 1 ||
        json_array_size(hidden) > MS_MLP_MAX_HIDDEN)
        return ms_error_set(err, MS_EINVAL, "%s: header: arch.hidden must list 1..%d widths", path,
                            MS_MLP_MAX_HIDDEN);
    int rc = parse_train(path, train, m, err);
    if (rc)
        return rc;
    if (ms_env_encoding_parse(enc, &m->env.encoding))
        return ms_error_set(err, MS_EINVAL,
                            "%s: header: env.encoding '%s' is not float, "
                            "one-hot or exact",
                            path, enc);
    m->env.direct_reconfig = direct;
    m->env.online = online;
    m->env.keep_useless = useless;
    m->env.async_reconfig = async;
    m->env.longest_first = longest;
    m->env.soonest_placement = soonest;
    snprintf(m->gpu, sizeof m->gpu, "%s", gpu);
    snprintf(m->preset, sizeof m->preset, "%s", preset);
    snprintf(m->commit, sizeof m->commit, "%s", commit);
    m->steps = steps;
    m->seed = (uint64_t)seed;
    m->has_adam = adam;
    for (int i = 0; i < 4; i++)
        m->rng.s[i] = rng[i] ? strtoull(rng[i], NULL, 10) : 0;
    int widths[MS_MLP_MAX_HIDDEN], nh = (int)json_array_size(hidden);
    for (int l = 0; l < nh; l++) {
        json_t *v = json_array_get(hidden, (size_t)l);
        widths[l] = json_is_integer(v) ? (int)json_integer_value(v) : 0;
    }
    if (ms_mlp_shape_sep(&m->mlp, in, nh, widths, nact, separate, err)) {
        ms_error_prefix(err, "%s: header", path);
        return err ? err->code : MS_EINVAL;
    }
    /* Checked before allocating: a forged header must not make us allocate gigabytes. */
    size_t need = (m->has_adam ? 3 : 1) * m->mlp.nparams * sizeof(float);
    if (body != need)
        return ms_error_set(err, MS_EINVAL,
                            "%s: %zu bytes of parameters, the header's "
                            "architecture needs %zu",
                            path, body, need);
    /* No random initialisation: the body overwrites every parameter (drawing them took
     * half of loading a 256x256 policy). */
    if (!(m->mlp.params = malloc(m->mlp.nparams * sizeof(float))))
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    if (m->has_adam && ms_adam_init(&m->adam, m->mlp.nparams, 3e-4f, err))
        return err ? err->code : MS_ENOMEM;
    m->adam.t = adam_t; /* also without the moments: a file saved again keeps its header */
    return MS_OK;
}

static int parse_ppo(const char *path, json_t *h, size_t body, void *ctx, float **arrays,
                     size_t *counts, int *n, ms_error *err)
{
    ms_rl_model *m = ctx;
    int rc = parse_header(path, h, body, m, err);
    if (rc)
        return rc;
    arrays[0] = m->mlp.params;
    arrays[1] = m->adam.m;
    arrays[2] = m->adam.v;
    counts[0] = counts[1] = counts[2] = m->mlp.nparams;
    *n = m->has_adam ? 3 : 1;
    return MS_OK;
}

int ms_model_load(const char *path, ms_rl_model *m, ms_error *err)
{
    memset(m, 0, sizeof *m);
    int rc = modelfile_load(path, parse_ppo, m, err);
    if (rc)
        ms_model_fini(m);
    return rc;
}

int ms_model_parse(const char *buf, size_t len, const char *path, ms_rl_model *m, ms_error *err)
{
    memset(m, 0, sizeof *m);
    int rc = modelfile_parse(buf, len, path, parse_ppo, m, err);
    if (rc)
        ms_model_fini(m);
    return rc;
}

float ms_rl_model_gap(const ms_rl_model *m)
{
    return m->has_rollout_gap ? m->rollout_gap : MS_RL_GAP_DEFAULT;
}

void ms_model_fini(ms_rl_model *m)
{
    ms_mlp_fini(&m->mlp);
    if (m->has_adam)
        ms_adam_fini(&m->adam);
}
