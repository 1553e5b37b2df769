/* capi_env.c: one scheduling environment through the flat API: episodes on a caller's
 * workload or a generated one, steps checked against the mask, observations into the
 * caller's buffers, the episode as a schedule and a plan carried out as actions. */
#include <stdlib.h>
#include <string.h>

#include "capi_env_internal.h"
#include "capi_internal.h"
#include "migsched/clock.h"

struct msc_env {
    msc_env_settings set;
    ms_env *e;
    ms_workload *own; /* the generated workload of the episode (NULL: the caller's) */
    uint8_t *mask;    /* the current state's mask, which steps are checked against */
    int allowed;
    ms_env_follow follow;
    bool following;
};

int msc_env_new(const ms_gpu_model *gpu, const char *config_json, msc_env **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(gpu);
    msc_env *x = calloc(1, sizeof *x);
    if (!x)
        return msc_failf(MS_ENOMEM, "out of memory");
    int rc = msc_env_settings_parse(gpu, config_json, &x->set);
    if (rc) {
        free(x);
        return rc;
    }
    ms_error err;
    if (!(x->e = ms_env_new(gpu, &x->set.env, &err))) {
        free(x);
        return msc_fail(&err);
    }
    if (!(x->mask = calloc(1, (size_t)ms_env_num_actions(x->e)))) {
        msc_env_free(x);
        return msc_failf(MS_ENOMEM, "out of memory");
    }
    *out = x;
    return MS_OK;
}

void msc_env_free(msc_env *e)
{
    if (!e)
        return;
    ms_env_free(e->e);
    ms_workload_free(e->own);
    free(e->mask);
    free(e);
}

int msc_env_describe(const msc_env *e, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(e);
    return msc_env_settings_describe(&e->set, e->e, 0, json);
}

int msc_env_obs_size(const msc_env *e) { return ms_env_obs_size(e->e); }
int msc_env_num_actions(const msc_env *e) { return ms_env_num_actions(e->e); }

/* After a reset or a step: the mask of the new state. */
static void update_mask(msc_env *e) { e->allowed = ms_env_mask(e->e, e->mask); }

/* Starts an episode on w; own (may be NULL) becomes the environment's to free. */
static int start(msc_env *e, const ms_workload *w, ms_workload *own)
{
    ms_error err;
    int rc = ms_workload_check_gpu(w, ms_env_gpu(e->e), &err);
    if (!rc)
        rc = ms_env_reset(e->e, w, &err);
    ms_workload_free(e->own);
    e->own = own;
    e->following = false;
    update_mask(e);
    return rc ? msc_fail(&err) : MS_OK;
}

int msc_env_reset(msc_env *e, const ms_workload *w)
{
    MSC_NEED(e);
    MSC_NEED(w);
    return start(e, w, NULL);
}

/* Starts an episode on a workload the generator draws from rng. */
static int start_generated(msc_env *e, ms_rng *rng)
{
    ms_workload *w;
    ms_error err;
    if (ms_generate(ms_env_gpu(e->e), &e->set.gen, e->set.tasks, rng, &w, &err))
        return msc_fail(&err);
    return start(e, w, w);
}

int msc_env_reset_seed(msc_env *e, uint64_t seed)
{
    MSC_NEED(e);
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    return start_generated(e, &rng);
}

int msc_env_step(msc_env *e, int action, double *reward, int *done)
{
    MSC_NEED(e);
    MSC_NEED(reward);
    MSC_NEED(done);
    int n = ms_env_num_actions(e->e);
    if (ms_env_done(e->e))
        return msc_failf(MS_EINVAL, "environment: no episode going on (reset first)");
    if (action < 0 || action >= n || !e->mask[action])
        return msc_failf(MS_EINVAL,
                         "environment: action %d is not allowed here (%d actions, %d of them "
                         "allowed: see the mask)",
                         action, n, e->allowed);
    bool d;
    *reward = ms_env_step(e->e, action, &d);
    *done = d;
    update_mask(e);
    return MS_OK;
}

int msc_env_mask(const msc_env *e, uint8_t *mask)
{
    memcpy(mask, e->mask, (size_t)ms_env_num_actions(e->e));
    return e->allowed;
}

void msc_env_observe(const msc_env *e, float *obs) { ms_env_observe(e->e, obs); }
int msc_env_done(const msc_env *e) { return ms_env_done(e->e); }
double msc_env_now(const msc_env *e) { return ms_env_now(e->e); }
double msc_env_makespan_bound(const msc_env *e) { return ms_env_makespan_bound(e->e); }
double msc_env_scale(const msc_env *e) { return ms_env_scale(e->e); }
int msc_env_steps(const msc_env *e) { return ms_env_steps(e->e); }
int msc_env_reconfigurations(const msc_env *e) { return ms_env_reconfigurations(e->e); }

int msc_env_episode_schedule(const ms_env *env, const char *algorithm, ms_schedule **out)
{
    *out = NULL;
    if (!ms_env_workload(env))
        return msc_failf(MS_EINVAL, "environment: no episode (reset first)");
    ms_error err;
    return ms_env_to_schedule(env, algorithm ? algorithm : "rl", out, &err) ? msc_fail(&err) : 0;
}

int msc_env_episode_workload(const ms_env *env, ms_workload **out)
{
    const ms_workload *w = ms_env_workload(env);
    *out = NULL;
    if (!w)
        return msc_failf(MS_EINVAL, "environment: no episode (reset first)");
    return (*out = ms_workload_slice(w, 0, w->n)) ? 0 : msc_failf(MS_ENOMEM, "out of memory");
}

int msc_env_to_schedule(const msc_env *e, const char *algorithm, ms_schedule **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(e);
    return msc_env_episode_schedule(e->e, algorithm, out);
}

int msc_env_workload(const msc_env *e, ms_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(e);
    return msc_env_episode_workload(e->e, out);
}

int msc_env_follow_start(msc_env *e, const ms_schedule *s)
{
    MSC_NEED(e);
    MSC_NEED(s);
    ms_error err;
    e->following = false;
    if (ms_env_follow_start(&e->follow, e->e, s, &err))
        return msc_fail(&err);
    e->following = true;
    return MS_OK;
}

int msc_env_follow_action(msc_env *e)
{
    return e->following ? ms_env_follow_action(&e->follow, e->e) : -1;
}

int msc_env_random_steps(msc_env *e, long steps, uint64_t seed, double *seconds, long *episodes)
{
    MSC_NEED(e);
    MSC_NEED(seconds);
    MSC_NEED(episodes);
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    float *obs = malloc((size_t)ms_env_obs_size(e->e) * sizeof *obs);
    if (!obs)
        return msc_failf(MS_ENOMEM, "out of memory");
    int n = ms_env_num_actions(e->e), rc = MS_OK;
    *episodes = 0;
    double t0 = ms_monotonic_seconds();
    for (long s = 0; s < steps; s++) {
        if (ms_env_done(e->e) && (rc = start_generated(e, &rng)))
            break;
        ms_env_observe(e->e, obs);
        bool done;
        ms_env_step(e->e, ms_env_random_action(e->mask, n, e->allowed, &rng), &done);
        update_mask(e);
        *episodes += done;
    }
    *seconds = ms_monotonic_seconds() - t0;
    free(obs);
    return rc;
}
