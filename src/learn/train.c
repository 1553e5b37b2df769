/* train.c: PPO on vectorised MIG scheduling environments whose episodes are generated
 * workloads (paper 001 5.1.2-5.1.3), with checkpoints that resume where they stopped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"

/* One vectorised environment: the scheduling environment and its current workload. */
typedef struct mig_slot {
    ms_env *env;
    ms_workload *w;
    const ms_gpu_model *gpu;
    const ms_train_config *cfg;
    ms_rl_rollout *ro;    /* for the imitation term and demonstrations (made on first use) */
    ms_env *scratch;      /* where a demonstration is tried out (made on first use) */
    ms_env_follow follow; /* the demonstration being given */
} mig_slot;

struct ms_trainer {
    ms_gpu_model gpu;
    ms_train_config cfg;
    int n;
    mig_slot *slots;
    void **ptrs;
    ms_ppo *ppo;
    char commit[32]; /* of the code that started the training ("" = this build) */
    double cpu_seconds;
};

/* One batch of N of a class-ordered dataset, as `rl-eval --order sorted` cuts them: its
 * batches hold one or two classes, which shuffled draws almost never do. */
static int sorted_batch(const ms_gpu_model *gpu, const ms_train_config *cfg, ms_rng *rng,
                        ms_workload **out, ms_error *err)
{
    ms_gen_params gen = cfg->gen;
    gen.class_order = true;
    ms_workload *all;
    int rc = ms_generate(gpu, &gen, cfg->sorted.tasks, rng, &all, err);
    if (rc)
        return rc;
    int N = cfg->env.n_batch, nb = (cfg->sorted.tasks + N - 1) / N;
    *out = ms_workload_slice(all, (int)ms_rng_below(rng, (uint64_t)nb) * N, N);
    ms_workload_free(all);
    return *out ? MS_OK : ms_error_set(err, MS_ENOMEM, "train: out of memory");
}

int ms_train_episode(const ms_gpu_model *gpu, const ms_train_config *cfg, ms_rng *rng,
                     ms_workload **out, ms_error *err)
{
    *out = NULL;
    /* No draw without a share: runs without it keep their bytes. */
    if (cfg->sorted.share > 0 && ms_rng_uniform(rng) < cfg->sorted.share)
        return sorted_batch(gpu, cfg, rng, out, err);
    int full = cfg->env.online ? 3 * cfg->env.n_batch : cfg->env.n_batch;
    int n = cfg->tasks_per_episode && !cfg->paper_episodes ? cfg->tasks_per_episode : full;
    /* Otherwise half the episodes are shorter: evaluation batches are not all full (100
     * tasks make 7 batches of 14 and one of 2), and a policy that never saw a short batch
     * fails it. */
    if (!cfg->tasks_per_episode && !cfg->paper_episodes && ms_rng_below(rng, 2))
        n = 1 + (int)ms_rng_below(rng, (uint64_t)full);
    return ms_generate(gpu, &cfg->gen, n, rng, out, err);
}

static int slot_reset(void *arg, ms_rng *rng, ms_error *err)
{
    mig_slot *s = arg;
    ms_workload_free(s->w);
    s->w = NULL;
    if (ms_train_episode(s->gpu, s->cfg, rng, &s->w, err))
        return err ? err->code : MS_EINVAL;
    int rc = ms_env_reset(s->env, s->w, err);
    if (rc || !s->cfg->paper_episodes)
        return rc;
    const ms_canon_set *cs = ms_env_canon(s->env);
    int part = cs->partition[ms_rng_below(rng, (uint64_t)cs->n)];
    double busy[MS_MAX_INSTANCES];
    for (int k = 0; k < s->gpu->partitions[part].n; k++)
        busy[k] = ms_rng_below(rng, 2) ? ms_rng_uniform(rng) * ms_env_scale(s->env) : 0;
    return ms_env_reset_from(s->env, s->w, part, busy, err);
}

static void slot_observe(void *arg, float *obs) { ms_env_observe(((mig_slot *)arg)->env, obs); }
static int slot_mask(void *arg, uint8_t *mask) { return ms_env_mask(((mig_slot *)arg)->env, mask); }
static double slot_step(void *arg, int a, bool *done)
{
    return ms_env_step(((mig_slot *)arg)->env, a, done);
}

static int need_rollout(mig_slot *s, const ms_mlp *mlp, ms_error *err)
{
    if (!s->ro && !(s->ro = ms_rl_rollout_new(mlp, err)))
        return err ? err->code : MS_ENOMEM;
    return MS_OK;
}

static int slot_improve(void *arg, const ms_mlp *mlp, int width, int *action, ms_error *err)
{
    mig_slot *s = arg;
    if (need_rollout(s, mlp, err))
        return err ? err->code : MS_ENOMEM;
    ms_rl_choice c;
    int rc = ms_rl_rollout_best(s->ro, s->env, width, &c, err);
    if (!rc)
        *action = c.best;
    return rc;
}

/* The demonstrator's plan of the episode, followed on the scratch environment: its
 * makespan (INFINITY where the follower cannot carry it out); s->follow is left at the
 * episode's start. */
static int try_plan(mig_slot *s, double *makespan, ms_error *err)
{
    ms_schedule *plan = NULL;
    *makespan = INFINITY;
    if (!s->scratch && !(s->scratch = ms_env_new(s->gpu, &s->cfg->env, err)))
        return err ? err->code : MS_ENOMEM;
    int rc = s->cfg->demonstrator(s->w, s->gpu, &plan, err);
    bool followed = !rc && !ms_env_follow_start(&s->follow, s->env, plan, NULL);
    ms_schedule_free(plan);
    if (!followed || (rc = ms_env_copy(s->scratch, s->env, err)))
        return rc;
    ms_env_follow trial = s->follow;
    bool done = false;
    int a;
    while (!done && (a = ms_env_follow_action(&trial, s->scratch)) >= 0)
        ms_env_step(s->scratch, a, &done);
    if (done)
        *makespan = ms_env_now(s->scratch);
    return MS_OK;
}

/* At the episode's start the demonstration is given only if it ends before the greedy
 * policy's episode: the policy is taught what it does not already do. */
static int slot_demonstrate(void *arg, const ms_mlp *mlp, bool start, int *action, ms_error *err)
{
    mig_slot *s = arg;
    *action = -1;
    if (start) {
        double plan, mine;
        if (try_plan(s, &plan, err) || need_rollout(s, mlp, err) ||
            ms_rl_rollout_greedy(s->ro, s->env, &mine, err))
            return err ? err->code : MS_EINVAL;
        if (!(plan < mine))
            return MS_OK;
    }
    *action = ms_env_follow_action(&s->follow, s->env);
    return MS_OK;
}

static const ms_rl_env_ops mig_ops = {slot_reset, slot_observe, slot_mask,
                                      slot_step,  slot_improve, slot_demonstrate};

static bool same_arch(const ms_mlp *a, const ms_mlp *b)
{
    if (a->in != b->in || a->nact != b->nact || a->nhidden != b->nhidden ||
        a->separate != b->separate)
        return false;
    for (int l = 0; l < a->nhidden; l++)
        if (a->hidden[l] != b->hidden[l])
            return false;
    return true;
}

static int apply_resume(ms_trainer *t, const ms_rl_model *r, ms_error *err)
{
    ms_mlp *m = ms_ppo_mlp(t->ppo);
    if (!same_arch(m, &r->mlp))
        return ms_error_set(err, MS_EINVAL,
                            "resume: the checkpoint's network does not match "
                            "the requested architecture and environment");
    memcpy(m->params, r->mlp.params, m->nparams * sizeof(float));
    if (r->has_adam) {
        ms_adam *a = ms_ppo_adam(t->ppo);
        memcpy(a->m, r->adam.m, m->nparams * sizeof(float));
        memcpy(a->v, r->adam.v, m->nparams * sizeof(float));
        a->t = r->adam.t;
    }
    ms_ppo_set_steps(t->ppo, r->steps);
    snprintf(t->commit, sizeof t->commit, "%s", r->commit);
    t->cpu_seconds = r->has_cpu ? r->cpu_seconds : 0;
    if (r->rng.s[0] | r->rng.s[1] | r->rng.s[2] | r->rng.s[3])
        *ms_ppo_rng(t->ppo) = r->rng;
    return MS_OK;
}

ms_trainer *ms_trainer_new(const ms_gpu_model *gpu, const ms_train_config *cfg,
                           const ms_rl_model *resume, ms_error *err)
{
    ms_trainer *t = calloc(1, sizeof *t);
    if (!t) {
        ms_error_set(err, MS_ENOMEM, "train: out of memory");
        return NULL;
    }
    t->gpu = *gpu;
    t->cfg = *cfg;
    if (cfg->sorted.share > 0 && (cfg->env.online || cfg->sorted.tasks < 1)) {
        ms_error_set(err, MS_EINVAL,
                     "train: sorted episodes need an offline policy and a "
                     "dataset of at least 1 task");
        free(t);
        return NULL;
    }
    if (cfg->ppo.demo_share > 0 && (cfg->env.online || !cfg->demonstrator)) {
        ms_error_set(err, MS_EINVAL,
                     "train: demonstrations need an offline policy and a "
                     "demonstrator");
        free(t);
        return NULL;
    }
    t->n = cfg->ppo.n_envs;
    t->slots = calloc((size_t)t->n, sizeof *t->slots);
    t->ptrs = calloc((size_t)t->n, sizeof *t->ptrs);
    if (!t->slots || !t->ptrs) {
        ms_error_set(err, MS_ENOMEM, "train: out of memory");
        goto fail;
    }
    for (int i = 0; i < t->n; i++) {
        mig_slot *s = &t->slots[i];
        s->gpu = &t->gpu;
        s->cfg = &t->cfg;
        if (!(s->env = ms_env_new(&t->gpu, &cfg->env, err)))
            goto fail;
        t->ptrs[i] = s;
    }
    t->ppo = ms_ppo_new(&cfg->ppo, &mig_ops, t->ptrs, ms_env_obs_size(t->slots[0].env),
                        ms_env_num_actions(t->slots[0].env), cfg->total_steps, cfg->seed, err);
    if (!t->ppo || (resume && apply_resume(t, resume, err)))
        goto fail;
    return t;
fail:
    ms_trainer_free(t);
    return NULL;
}

void ms_trainer_free(ms_trainer *t)
{
    if (!t)
        return;
    ms_ppo_free(t->ppo);
    for (int i = 0; t->slots && i < t->n; i++) {
        ms_env_free(t->slots[i].env);
        ms_workload_free(t->slots[i].w);
        ms_rl_rollout_free(t->slots[i].ro);
        ms_env_free(t->slots[i].scratch);
    }
    free(t->slots);
    free(t->ptrs);
    free(t);
}

int ms_trainer_iterate(ms_trainer *t, ms_ppo_stats *out, ms_error *err)
{
    return ms_ppo_iterate(t->ppo, out, err);
}

long ms_trainer_steps(const ms_trainer *t) { return ms_ppo_steps(t->ppo); }

double ms_trainer_cpu_seconds(const ms_trainer *t) { return t->cpu_seconds; }

void ms_trainer_set_cpu_seconds(ms_trainer *t, double seconds) { t->cpu_seconds = seconds; }

void ms_trainer_model(ms_trainer *t, ms_rl_model *view)
{
    memset(view, 0, sizeof *view);
    view->mlp = *ms_ppo_mlp(t->ppo);
    view->env = t->cfg.env;
    snprintf(view->gpu, sizeof view->gpu, "%s", t->gpu.name);
    snprintf(view->preset, sizeof view->preset, "%s", t->cfg.preset);
    view->steps = ms_ppo_steps(t->ppo);
    view->seed = t->cfg.seed;
    snprintf(view->commit, sizeof view->commit, "%s", t->commit);
    view->has_adam = true;
    view->adam = *ms_ppo_adam(t->ppo);
    view->rng = *ms_ppo_rng(t->ppo);
    view->has_train = true;
    view->ppo = t->cfg.ppo;
    view->paper_episodes = t->cfg.paper_episodes;
    view->sorted = t->cfg.sorted;
    view->demo_source = t->cfg.demo_source;
    view->has_cpu = true;
    view->cpu_seconds = t->cpu_seconds;
}

int ms_trainer_save(ms_trainer *t, const char *path, ms_error *err)
{
    ms_rl_model view;
    ms_trainer_model(t, &view);
    return ms_model_save(path, &view, err);
}
