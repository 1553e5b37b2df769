/* capi_vec_env.c: a vector of scheduling environments through the flat API, stepped in one
 * call into the caller's buffers (same-step autoreset, every ended episode validated). */
#include <stdlib.h>

#include "capi_env_internal.h"
#include "capi_internal.h"
#include "migsched/clock.h"

struct msc_vec_env {
    msc_env_settings set;
    ms_vec_env *v;
};

int msc_vec_env_new(const ms_gpu_model *gpu, const char *config_json, int n,
                    const ms_workload *fixed, msc_vec_env **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(gpu);
    msc_vec_env *x = calloc(1, sizeof *x);
    if (!x)
        return msc_failf(MS_ENOMEM, "out of memory");
    int rc = msc_env_settings_parse(gpu, config_json, &x->set);
    ms_vec_config vc = {.n = n, .fixed = fixed, .gen = x->set.gen, .tasks = x->set.tasks};
    ms_error err;
    if (!rc && !(x->v = ms_vec_env_new(gpu, &x->set.env, &vc, &err)))
        rc = msc_fail(&err);
    if (rc) {
        free(x);
        return rc;
    }
    *out = x;
    return MS_OK;
}

void msc_vec_env_free(msc_vec_env *v)
{
    if (!v)
        return;
    ms_vec_env_free(v->v);
    free(v);
}

int msc_vec_env_describe(const msc_vec_env *v, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(v);
    return msc_env_settings_describe(&v->set, ms_vec_env_get(v->v, 0), ms_vec_env_size(v->v), json);
}

/* The step's buffers, which a reset also writes (its rewards 0, nothing terminated). */
static int run(msc_vec_env *v, const int32_t *actions, uint64_t seed, const ms_vec_out *out)
{
    ms_error err;
    int rc = actions ? ms_vec_env_step(v->v, actions, out, &err)
                     : ms_vec_env_reset(v->v, seed, out, &err);
    return rc ? msc_fail(&err) : MS_OK;
}

int msc_vec_env_reset(msc_vec_env *v, uint64_t seed, float *obs, uint8_t *mask)
{
    MSC_NEED(v);
    MSC_NEED(obs);
    MSC_NEED(mask);
    int n = ms_vec_env_size(v->v);
    double *reward = calloc((size_t)n, sizeof *reward);
    uint8_t *terminated = calloc((size_t)n, 1);
    int rc = reward && terminated
                 ? run(v, NULL, seed, &(ms_vec_out){obs, mask, reward, terminated, NULL, NULL})
                 : msc_failf(MS_ENOMEM, "out of memory");
    free(reward);
    free(terminated);
    return rc;
}

int msc_vec_env_step(msc_vec_env *v, const int32_t *actions, float *obs, uint8_t *mask,
                     double *reward, uint8_t *terminated, double *episode_return,
                     double *episode_makespan)
{
    MSC_NEED(v);
    MSC_NEED(actions);
    MSC_NEED(obs);
    MSC_NEED(mask);
    MSC_NEED(reward);
    MSC_NEED(terminated);
    MSC_NEED(episode_return);
    MSC_NEED(episode_makespan);
    return run(v, actions, 0,
               &(ms_vec_out){obs, mask, reward, terminated, episode_return, episode_makespan});
}

int msc_vec_env_sample_actions(msc_vec_env *v, int32_t *actions)
{
    MSC_NEED(v);
    MSC_NEED(actions);
    ms_error err;
    return ms_vec_env_sample(v->v, actions, &err) ? msc_fail(&err) : MS_OK;
}

int64_t msc_vec_env_episodes(const msc_vec_env *v) { return ms_vec_env_episodes(v->v); }
int64_t msc_vec_env_invalid(const msc_vec_env *v) { return ms_vec_env_invalid(v->v); }
const char *msc_vec_env_invalid_message(const msc_vec_env *v)
{
    return ms_vec_env_invalid_message(v->v);
}
int64_t msc_vec_env_steps(const msc_vec_env *v) { return ms_vec_env_steps(v->v); }

/* Environment i of v, or a failure naming i. */
static int member(const msc_vec_env *v, int i, const ms_env **e)
{
    if (i < 0 || i >= ms_vec_env_size(v->v))
        return msc_failf(MS_EINVAL, "vector environment: no environment %d (%d of them)", i,
                         ms_vec_env_size(v->v));
    *e = ms_vec_env_get(v->v, i);
    return MS_OK;
}

int msc_vec_env_to_schedule(const msc_vec_env *v, int i, ms_schedule **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(v);
    const ms_env *e = NULL;
    return member(v, i, &e) ? MS_EINVAL : msc_env_episode_schedule(e, "rl", out);
}

int msc_vec_env_workload(const msc_vec_env *v, int i, ms_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(v);
    const ms_env *e = NULL;
    return member(v, i, &e) ? MS_EINVAL : msc_env_episode_workload(e, out);
}

int msc_vec_env_random_steps(msc_vec_env *v, long steps, uint64_t seed, double *seconds)
{
    MSC_NEED(v);
    MSC_NEED(seconds);
    const ms_env *e0 = ms_vec_env_get(v->v, 0);
    size_t n = (size_t)ms_vec_env_size(v->v), A = (size_t)ms_env_num_actions(e0);
    float *obs = malloc(n * (size_t)ms_env_obs_size(e0) * sizeof *obs);
    uint8_t *mask = malloc(n * A), *terminated = malloc(n);
    double *reward = malloc(n * sizeof *reward), *ret = malloc(n * sizeof *ret),
           *makespan = malloc(n * sizeof *makespan);
    int32_t *actions = malloc(n * sizeof *actions);
    int rc = obs && mask && terminated && reward && ret && makespan && actions
                 ? MS_OK
                 : msc_failf(MS_ENOMEM, "out of memory");
    const ms_vec_out out = {obs, mask, reward, terminated, ret, makespan};
    if (!rc)
        rc = run(v, NULL, seed, &out);
    double t0 = ms_monotonic_seconds();
    for (long s = 0; s < steps && !rc; s++)
        if (!(rc = msc_vec_env_sample_actions(v, actions)))
            rc = run(v, actions, 0, &out);
    *seconds = ms_monotonic_seconds() - t0;
    free(obs);
    free(mask);
    free(terminated);
    free(reward);
    free(ret);
    free(makespan);
    free(actions);
    return rc;
}
