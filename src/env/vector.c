/* vector.c: n environments of one GPU and settings stepped in one call (ours), for callers
 * whose per-call cost is high (Python): the observations and masks go straight into the
 * caller's buffers, an ended episode is validated and the environment reset on its next
 * workload within the same step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_internal.h"

struct ms_vec_env {
    ms_vec_config vc;
    int n, obs_size, nact;
    bool started;
    ms_env **env;
    ms_workload **own;  /* each environment's generated workload (NULL with a fixed one) */
    ms_rng *rng;        /* each environment's stream of generated workloads */
    double *ret;        /* each episode's return so far */
    uint8_t *mask;      /* n x nact: the masks last written, which steps are checked against */
    ms_schedule *ended; /* the episode being validated, refilled for each one */
    int *allowed;       /* n: how many actions each of those masks allows */
    ms_rng sampler;     /* ms_vec_env_sample's stream */
    long episodes, invalid, steps;
    char invalid_msg[MS_ERR_LEN];
};

ms_vec_env *ms_vec_env_new(const ms_gpu_model *gpu, const ms_env_config *cfg,
                           const ms_vec_config *vc, ms_error *err)
{
    if (vc->n < 1 || vc->n > MS_VEC_MAX_ENVS) {
        ms_error_set(err, MS_EINVAL, "vector environment: %d environments (1..%d)", vc->n,
                     MS_VEC_MAX_ENVS);
        return NULL;
    }
    if (!vc->fixed && vc->tasks < 1) {
        ms_error_set(err, MS_EINVAL, "vector environment: %d tasks per episode (at least 1)",
                     vc->tasks);
        return NULL;
    }
    if (vc->fixed && ms_workload_check_gpu(vc->fixed, gpu, err))
        return NULL;
    ms_vec_env *v = calloc(1, sizeof *v);
    if (!v)
        goto oom;
    v->vc = *vc;
    v->n = vc->n;
    v->env = calloc((size_t)v->n, sizeof *v->env);
    v->own = calloc((size_t)v->n, sizeof *v->own);
    v->rng = calloc((size_t)v->n, sizeof *v->rng);
    v->ret = calloc((size_t)v->n, sizeof *v->ret);
    v->allowed = calloc((size_t)v->n, sizeof *v->allowed);
    if (!v->env || !v->own || !v->rng || !v->ret || !v->allowed)
        goto oom;
    if (!(v->env[0] = ms_env_new(gpu, cfg, err))) {
        ms_vec_env_free(v);
        return NULL;
    }
    for (int i = 1; i < v->n; i++)
        if (!(v->env[i] = ms_env_new_like(v->env[0], err))) {
            ms_vec_env_free(v);
            return NULL;
        }
    v->obs_size = ms_env_obs_size(v->env[0]);
    v->nact = ms_env_num_actions(v->env[0]);
    v->mask = calloc((size_t)v->n, (size_t)v->nact);
    v->ended = ms_schedule_new(ms_env_gpu(v->env[0]), 1, "environment");
    if (!v->mask || !v->ended)
        goto oom;
    return v;
oom:
    ms_vec_env_free(v);
    ms_error_set(err, MS_ENOMEM, "vector environment: out of memory");
    return NULL;
}

void ms_vec_env_free(ms_vec_env *v)
{
    if (!v)
        return;
    for (int i = 0; v->env && i < v->n; i++)
        ms_env_free(v->env[i]);
    for (int i = 0; v->own && i < v->n; i++)
        ms_workload_free(v->own[i]);
    free(v->env);
    free(v->own);
    free(v->rng);
    free(v->ret);
    free(v->allowed);
    free(v->mask);
    ms_schedule_free(v->ended);
    free(v);
}

const ms_env *ms_vec_env_get(const ms_vec_env *v, int i) { return v->env[i]; }
int ms_vec_env_size(const ms_vec_env *v) { return v->n; }
long ms_vec_env_episodes(const ms_vec_env *v) { return v->episodes; }
long ms_vec_env_invalid(const ms_vec_env *v) { return v->invalid; }
const char *ms_vec_env_invalid_message(const ms_vec_env *v) { return v->invalid_msg; }
long ms_vec_env_steps(const ms_vec_env *v) { return v->steps; }

/* Environment i's next episode: on the fixed workload or a fresh one from its stream. */
static int next_episode(ms_vec_env *v, int i, ms_error *err)
{
    const ms_workload *w = v->vc.fixed;
    if (!w) {
        ms_workload_free(v->own[i]);
        v->own[i] = NULL;
        int rc = ms_generate(&v->env[i]->gpu, &v->vc.gen, v->vc.tasks, &v->rng[i], &v->own[i], err);
        if (rc)
            return rc;
        w = v->own[i];
    }
    v->ret[i] = 0;
    return ms_env_reset(v->env[i], w, err);
}

/* Writes environment i's observation and mask (kept for the next step's check). */
static void write_state(ms_vec_env *v, int i, const ms_vec_out *out)
{
    uint8_t *mask = v->mask + (size_t)i * (size_t)v->nact;
    v->allowed[i] = ms_env_mask(v->env[i], mask);
    memcpy(out->mask + (size_t)i * (size_t)v->nact, mask, (size_t)v->nact);
    ms_env_observe(v->env[i], out->obs + (size_t)i * (size_t)v->obs_size);
}

int ms_vec_env_reset(ms_vec_env *v, uint64_t seed, const ms_vec_out *out, ms_error *err)
{
    ms_rng base;
    ms_rng_seed(&base, seed);
    ms_rng first = base; /* base's first draw, on a stream no environment uses */
    v->sampler = ms_rng_split(&first, MS_VEC_MAX_ENVS);
    v->started = false;
    v->episodes = v->invalid = v->steps = 0;
    v->invalid_msg[0] = 0;
    for (int i = 0; i < v->n; i++) {
        v->rng[i] = ms_rng_split(&base, (uint64_t)i);
        int rc = next_episode(v, i, err);
        if (rc)
            return rc;
        write_state(v, i, out);
        out->reward[i] = 0;
        out->terminated[i] = 0;
    }
    v->started = true;
    return MS_OK;
}

/* The ended episode of environment i through the validator; counts it. */
static int check_episode(ms_vec_env *v, int i, ms_error *err)
{
    int rc = ms_env_fill_schedule(v->env[i], v->ended, err);
    if (rc)
        return rc;
    ms_validation val = {0};
    if (ms_schedule_validate(v->ended, v->env[i]->w, &val) && v->invalid++ == 0)
        snprintf(v->invalid_msg, sizeof v->invalid_msg, "environment %d, episode %ld: %s: %s", i,
                 v->episodes, val.n ? val.v[0].rule : "?", val.n ? val.v[0].msg : "");
    ms_validation_fini(&val);
    v->episodes++;
    return MS_OK;
}

int ms_vec_env_step(ms_vec_env *v, const int32_t *actions, const ms_vec_out *out, ms_error *err)
{
    if (!v->started)
        return ms_error_set(err, MS_EINVAL, "vector environment: step before reset");
    for (int i = 0; i < v->n; i++)
        if (actions[i] < 0 || actions[i] >= v->nact ||
            !v->mask[(size_t)i * (size_t)v->nact + (size_t)actions[i]])
            return ms_error_set(err, MS_EINVAL,
                                "vector environment: action %d of environment %d is not "
                                "allowed (%d actions, see its mask)",
                                (int)actions[i], i, v->nact);
    for (int i = 0; i < v->n; i++) {
        bool done;
        double r = ms_env_step(v->env[i], actions[i], &done);
        v->ret[i] += r;
        out->reward[i] = r;
        out->terminated[i] = done;
        if (done) {
            out->ep_return[i] = v->ret[i];
            out->ep_makespan[i] = ms_env_now(v->env[i]);
            int rc = check_episode(v, i, err);
            if (rc || (rc = next_episode(v, i, err))) {
                v->started = false; /* environment i has no episode: reset again */
                return rc;
            }
        }
        write_state(v, i, out);
    }
    v->steps += v->n;
    return MS_OK;
}

int ms_vec_env_sample(ms_vec_env *v, int32_t *actions, ms_error *err)
{
    if (!v->started)
        return ms_error_set(err, MS_EINVAL, "vector environment: sample before reset");
    for (int i = 0; i < v->n; i++)
        actions[i] = ms_env_random_action(v->mask + (size_t)i * (size_t)v->nact, v->nact,
                                          v->allowed[i], &v->sampler);
    return MS_OK;
}
