/* rl_sched.c: the learned scheduler: the policy's most likely allowed action at every
 * decision (paper 001 4), offline in batches of N or online, and its p_opt evaluation. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"

static int check_model(const ms_rl_model *model, const ms_env *e, ms_error *err)
{
    if (model->mlp.in != ms_env_obs_size(e) || model->mlp.nact != ms_env_num_actions(e))
        return ms_error_set(err, MS_EINVAL,
                            "rl: the model (%d inputs, %d actions, trained on %s) does not fit "
                            "%s (%d inputs, %d actions)",
                            model->mlp.in, model->mlp.nact, model->gpu, ms_env_gpu(e)->name,
                            ms_env_obs_size(e), ms_env_num_actions(e));
    return MS_OK;
}

/* Runs one episode on w with the greedy policy, or the rollout-improved one when ro (over
 * width candidates within gap of the greedy logit). */
static int run_episode(const ms_rl_model *model, ms_env *e, const ms_workload *w, int part,
                       const double *busy, ms_mlp_work *work, float *obs, uint8_t *mask,
                       ms_rl_rollout *ro, int width, float gap, ms_error *err)
{
    if (ms_env_reset_from(e, w, part, busy, err))
        return err ? err->code : MS_EINVAL;
    if (ro)
        ms_rl_rollout_forget(ro);
    bool done = ms_env_done(e);
    while (!done) {
        int a;
        if (ro) {
            if (ms_rl_rollout_decide(ro, e, width, gap, &a, err))
                return err ? err->code : MS_EINVAL;
        } else
            a = ms_rl_greedy_action(&model->mlp, work, e, obs, mask);
        ms_env_step(e, a, &done);
    }
    return MS_OK;
}

typedef struct runner {
    ms_env *env;
    ms_mlp_work work;
    float *obs;
    uint8_t *mask;
    ms_rl_rollout *ro; /* NULL: greedy */
} runner;

static void runner_free(runner *r)
{
    ms_rl_rollout_free(r->ro);
    ms_env_free(r->env);
    ms_mlp_work_fini(&r->work);
    free(r->obs);
    free(r->mask);
}

static int runner_init(runner *r, const ms_rl_model *model, const ms_gpu_model *gpu, bool online,
                       bool rollout, ms_error *err)
{
    memset(r, 0, sizeof *r);
    ms_env_config cfg = model->env;
    cfg.online = online;
    if (!(r->env = ms_env_new(gpu, &cfg, err)))
        return err ? err->code : MS_EINVAL;
    if (check_model(model, r->env, err) || ms_mlp_work_init(&r->work, &model->mlp, 1, err)) {
        runner_free(r);
        return err ? err->code : MS_EINVAL;
    }
    r->obs = malloc((size_t)model->mlp.in * sizeof(float));
    r->mask = malloc((size_t)model->mlp.nact);
    if (!r->obs || !r->mask) {
        runner_free(r);
        return ms_error_set(err, MS_ENOMEM, "rl: out of memory");
    }
    if (rollout && !(r->ro = ms_rl_rollout_new(&model->mlp, err))) {
        runner_free(r);
        return err ? err->code : MS_ENOMEM;
    }
    return MS_OK;
}

bool ms_rl_rule_rolls_out(int rollout, float gap)
{
    return (rollout > 1 || rollout == MS_RL_ROLLOUT_ALL) && gap > 0;
}

int ms_rl_schedule(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                   bool online, int rollout, float gap, ms_schedule **out, ms_error *err)
{
    return ms_rl_schedule_from(model, gpu, w, online, rollout, gap, -1, NULL, out, err);
}

int ms_rl_schedule_from(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                        bool online, int rollout, float gap, int part, const double *busy,
                        ms_schedule **out, ms_error *err)
{
    *out = NULL;
    runner r;
    if (isnan(gap))
        gap = ms_rl_model_gap(model);
    if (runner_init(&r, model, gpu, online, ms_rl_rule_rolls_out(rollout, gap), err))
        return err ? err->code : MS_EINVAL;
    int rc = run_episode(model, r.env, w, part, busy, &r.work, r.obs, r.mask, r.ro,
                         rollout == MS_RL_ROLLOUT_ALL ? 0 : rollout, gap, err);
    if (!rc && !(rc = ms_env_to_schedule(r.env, online ? "rl-online" : "rl", out, err))) {
        int decisions = ms_env_steps(r.env);
        ms_schedule_set_stat(*out, "decisions", decisions);
        ms_schedule_set_stat(*out, "network_passes",
                             r.ro ? (double)ms_rl_rollout_get_stats(r.ro).passes : decisions);
    }
    runner_free(&r);
    return rc;
}

int ms_rl_eval_popt(const ms_rl_model *model, const ms_gpu_model *gpu, const ms_workload *w,
                    double *mean_popt, ms_error *err)
{
    runner r;
    if (runner_init(&r, model, gpu, model->env.online, false, err))
        return err ? err->code : MS_EINVAL;
    int N = model->env.online ? w->n : model->env.n_batch, nb = 0, rc = MS_OK;
    double sum = 0;
    for (int from = 0; from < w->n && !rc; from += N, nb++) {
        ms_workload *b = ms_workload_slice(w, from, N);
        if (!b) {
            rc = ms_error_set(err, MS_ENOMEM, "rl: out of memory");
            break;
        }
        rc = run_episode(model, r.env, b, -1, NULL, &r.work, r.obs, r.mask, NULL, 0, 0, err);
        if (!rc)
            sum += (ms_env_now(r.env) / ms_bound_lbound_paper(b, gpu, 1) - 1) * 100;
        ms_workload_free(b);
    }
    runner_free(&r);
    *mean_popt = nb ? sum / nb : NAN;
    return rc;
}
