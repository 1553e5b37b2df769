/* rollout.c: one step of policy improvement by rollout (Bertsekas' rollout algorithm, the
 * step of approximate policy iteration): each candidate action of a state is followed by
 * the policy's greedy actions to the end of the episode, on a copy of the environment; the
 * candidate whose episode ends first is the improved policy's action. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"

struct ms_rl_rollout {
    const ms_mlp *mlp;
    ms_env_config cfg;
    ms_gpu_model gpu;
    ms_env *env;      /* the completion being played (made on first use) */
    ms_mlp_work work; /* one row */
    float *obs;
    uint8_t *mask, *root; /* the completion's, the state's */
    int *cand;        /* allowed actions of the state, highest logit first */
};

void ms_rl_rollout_free(ms_rl_rollout *r)
{
    if (!r)
        return;
    ms_env_free(r->env);
    ms_mlp_work_destroy(&r->work);
    free(r->obs);
    free(r->mask);
    free(r->root);
    free(r->cand);
    free(r);
}

ms_rl_rollout *ms_rl_rollout_new(const ms_mlp *mlp, const ms_gpu_model *gpu,
                                 const ms_env_config *cfg, ms_error *err)
{
    ms_rl_rollout *r = calloc(1, sizeof *r);
    int n = mlp->nact;
    if (r) {
        r->mlp = mlp;
        r->cfg = *cfg;
        r->gpu = *gpu;
        r->obs = malloc((size_t)mlp->in * sizeof(float));
        r->mask = malloc((size_t)n);
        r->root = malloc((size_t)n);
        r->cand = malloc((size_t)n * sizeof *r->cand);
    }
    if (!r || !r->obs || !r->mask || !r->root || !r->cand) {
        ms_rl_rollout_free(r);
        ms_error_set(err, MS_ENOMEM, "rollout: out of memory");
        return NULL;
    }
    if (ms_mlp_work_init(&r->work, mlp, 1, err)) {
        ms_rl_rollout_free(r);
        return NULL;
    }
    return r;
}

/* The policy's greedy action at e, its logits left in r->work. One network pass per state,
 * as the greedy scheduler makes them: a batched pass would round some rows differently
 * (OpenBLAS sums blocks of rows in another order) and a completion must be exactly the
 * greedy policy's own episode. */
static int greedy(ms_rl_rollout *r, const ms_env *e, uint8_t *mask)
{
    return ms_rl_greedy_action(r->mlp, &r->work, e, r->obs, mask);
}

/* The allowed actions of root ordered by the logits in r->work (ties: the lower action
 * first, so the greedy action comes first); at most width of them (0: all). */
static int candidates(ms_rl_rollout *r, int width)
{
    int nact = r->mlp->nact, nc = 0;
    const float *lg = r->work.logits;
    for (int a = 0; a < nact; a++) {
        if (!r->root[a])
            continue;
        int i = nc++;
        while (i > 0 && lg[r->cand[i - 1]] < lg[a]) {
            r->cand[i] = r->cand[i - 1];
            i--;
        }
        r->cand[i] = a;
    }
    return width > 0 && width < nc ? width : nc;
}

/* Plays the greedy policy from r->env's state to the episode's end: the makespan. */
static double complete(ms_rl_rollout *r)
{
    bool done = ms_env_done(r->env);
    while (!done)
        ms_env_step(r->env, greedy(r, r->env, r->mask), &done);
    return ms_env_now(r->env);
}

static int check_env(ms_rl_rollout *r, const ms_env *env, ms_error *err)
{
    if (ms_env_num_actions(env) != r->mlp->nact || ms_env_obs_size(env) != r->mlp->in)
        return ms_error_set(err, MS_EINVAL, "rollout: the environment does not fit the model");
    if (!r->env && !(r->env = ms_env_new(&r->gpu, &r->cfg, err)))
        return err ? err->code : MS_ENOMEM;
    return MS_OK;
}

int ms_rl_rollout_greedy(ms_rl_rollout *r, const ms_env *env, double *makespan, ms_error *err)
{
    int rc = check_env(r, env, err);
    if (!rc && !(rc = ms_env_copy(r->env, env, err)))
        *makespan = complete(r);
    return rc;
}

int ms_rl_rollout_best(ms_rl_rollout *r, const ms_env *env, int width, ms_rl_choice *out,
                       ms_error *err)
{
    int rc = check_env(r, env, err);
    if (rc)
        return rc;
    if (ms_env_done(env))
        return ms_error_set(err, MS_EINVAL, "rollout: the episode is over");
    out->greedy = out->best = greedy(r, env, r->root);
    int nc = out->candidates = candidates(r, width);
    out->greedy_makespan = out->best_makespan = NAN;
    if (nc == 1)
        return MS_OK;
    /* Candidate 0 is the greedy action, and ties go to the earlier candidate: the improved
     * policy only departs from the policy where that is strictly better. */
    for (int i = 0; i < nc; i++) {
        if (ms_env_copy(r->env, env, err))
            return err ? err->code : MS_EINVAL;
        bool done;
        ms_env_step(r->env, r->cand[i], &done);
        double mk = complete(r);
        if (i == 0)
            out->greedy_makespan = out->best_makespan = mk;
        else if (mk < out->best_makespan) {
            out->best_makespan = mk;
            out->best = r->cand[i];
        }
    }
    return MS_OK;
}
