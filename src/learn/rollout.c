/* rollout.c: one step of policy improvement by rollout (Bertsekas' rollout algorithm, the
 * step of approximate policy iteration): each candidate action of a state is followed by
 * the policy's greedy actions to the end of the episode, on a copy of the environment; the
 * candidate whose episode ends first is the improved policy's action.
 *
 * Three savings leave every choice as it was. A completion stops as soon as the
 * environment's makespan bound reaches the best completion so far (it can no longer be
 * strictly better). Along an episode (ms_rl_rollout_decide) the greedy completion of the
 * action taken is the greedy policy's own future, so it is kept: its states' greedy
 * actions, candidates and makespan serve the following decisions without a network pass,
 * until a rollout departs from it (then the winner's completion is kept instead). And a
 * candidate's completion that reaches the kept completion's state at the same step (the
 * same starts in another order) stops: its future, so its makespan, is the kept one's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"

/* The states of one greedy completion: per state its candidates (the allowed actions of
 * highest logits, greedy first), their logits' gaps below the first and the state's key. */
typedef struct trajectory {
    int len, cap, width; /* states; room; candidates kept per state */
    int *ncand, *cand;   /* len; len x width */
    float *gap;          /* len x width: the first candidate's logit minus each's */
    double *key;         /* len x MS_ENV_KEY_MAX: each state's ms_env_future_key */
    int *keylen;         /* len */
    double makespan;     /* where the completion ended (INFINITY: cut off) */
} trajectory;

struct ms_rl_rollout {
    const ms_mlp *mlp;
    ms_env *env;      /* the completion being played (made like the first state's) */
    ms_mlp_work work; /* one row */
    float *obs;
    uint8_t *mask, *root; /* the completion's, the state's */
    int *cand;            /* allowed actions of the state, highest logit first */
    /* ms_rl_rollout_decide's: the kept completion, whose state pos is the episode's state
     * at its decision step0 + pos; a candidate's completion being played; the best so far. */
    trajectory kept, play, won;
    bool have_kept;
    int step0, pos;
    ms_rl_rollout_stats stats;
};

static void trajectory_free(trajectory *t)
{
    free(t->ncand);
    free(t->cand);
    free(t->gap);
    free(t->key);
    free(t->keylen);
    memset(t, 0, sizeof *t);
}

void ms_rl_rollout_free(ms_rl_rollout *r)
{
    if (!r)
        return;
    ms_env_free(r->env);
    ms_mlp_work_fini(&r->work);
    free(r->obs);
    free(r->mask);
    free(r->root);
    free(r->cand);
    trajectory_free(&r->kept);
    trajectory_free(&r->play);
    trajectory_free(&r->won);
    free(r);
}

ms_rl_rollout *ms_rl_rollout_new(const ms_mlp *mlp, ms_error *err)
{
    ms_rl_rollout *r = calloc(1, sizeof *r);
    int n = mlp->nact;
    if (r) {
        r->mlp = mlp;
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
    r->stats.passes++;
    return ms_rl_greedy_action(r->mlp, &r->work, e, r->obs, mask);
}

/* The allowed actions of mask ordered by the logits in r->work into out (ties: the lower
 * action first, so the greedy action comes first); at most width of them (0: all). */
static int candidates(const ms_rl_rollout *r, const uint8_t *mask, int width, int *out)
{
    int nact = r->mlp->nact, nc = 0;
    const float *lg = r->work.logits;
    for (int a = 0; a < nact; a++) {
        if (!mask[a])
            continue;
        int i = nc++;
        while (i > 0 && lg[out[i - 1]] < lg[a]) {
            out[i] = out[i - 1];
            i--;
        }
        out[i] = a;
    }
    return width > 0 && width < nc ? width : nc;
}

/* Room for state t->len of a completion; false: out of memory. */
static bool trajectory_grow(trajectory *t, int width)
{
    if (t->len < t->cap)
        return true;
    int cap = t->cap ? 2 * t->cap : 64;
    int *ncand = realloc(t->ncand, (size_t)cap * sizeof *ncand);
    if (ncand)
        t->ncand = ncand;
    int *cand = realloc(t->cand, (size_t)cap * (size_t)width * sizeof *cand);
    if (cand)
        t->cand = cand;
    float *gap = realloc(t->gap, (size_t)cap * (size_t)width * sizeof *gap);
    if (gap)
        t->gap = gap;
    double *key = realloc(t->key, (size_t)cap * MS_ENV_KEY_MAX * sizeof *key);
    if (key)
        t->key = key;
    int *keylen = realloc(t->keylen, (size_t)cap * sizeof *keylen);
    if (keylen)
        t->keylen = keylen;
    if (!ncand || !cand || !gap || !key || !keylen)
        return false;
    t->cap = cap;
    return true;
}

/* Whether state i of ref (NULL: none) has the n numbers of key. */
static bool same_state(const trajectory *ref, int i, const double *key, int n)
{
    return ref && i < ref->len && ref->keylen[i] == n &&
           !memcmp(ref->key + (size_t)i * MS_ENV_KEY_MAX, key, (size_t)n * sizeof *key);
}

/* Plays the greedy policy from r->env's state to the episode's end: the makespan, or
 * INFINITY as soon as the episode cannot end before cutoff, or reaches the state of ref at
 * index at + its step (its future, so its makespan, is ref's: no better than cutoff). With
 * rec, each state's candidates (rec->width of them) and key are recorded there; -1: out of
 * memory. */
static double complete(ms_rl_rollout *r, double cutoff, trajectory *rec, const trajectory *ref,
                       int at)
{
    bool done = ms_env_done(r->env);
    if (rec)
        rec->len = 0;
    for (int j = 0; !done; j++) {
        if (ms_env_makespan_bound(r->env) >= cutoff) {
            r->stats.cut++;
            return rec ? (rec->makespan = INFINITY) : INFINITY;
        }
        if (rec) {
            if (!trajectory_grow(rec, rec->width))
                return -1;
            double *key = rec->key + (size_t)rec->len * MS_ENV_KEY_MAX;
            int n = rec->keylen[rec->len] = ms_env_future_key(r->env, key);
            if (same_state(ref, at + j, key, n)) {
                r->stats.merged++;
                return rec->makespan = INFINITY;
            }
        }
        int a = greedy(r, r->env, r->mask);
        if (rec) {
            int *c = rec->cand + (size_t)rec->len * (size_t)rec->width;
            int nc = rec->ncand[rec->len] = candidates(r, r->mask, rec->width, r->cand);
            memcpy(c, r->cand, (size_t)nc * sizeof *c);
            float *g = rec->gap + (size_t)rec->len++ * (size_t)rec->width;
            for (int i = 0; i < nc; i++)
                g[i] = r->work.logits[c[0]] - r->work.logits[c[i]];
        }
        ms_env_step(r->env, a, &done);
    }
    return rec ? (rec->makespan = ms_env_now(r->env)) : ms_env_now(r->env);
}

static int check_env(ms_rl_rollout *r, const ms_env *env, ms_error *err)
{
    if (ms_env_num_actions(env) != r->mlp->nact || ms_env_obs_size(env) != r->mlp->in)
        return ms_error_set(err, MS_EINVAL, "rollout: the environment does not fit the model");
    if (!r->env && !(r->env = ms_env_new_like(env, err)))
        return err ? err->code : MS_ENOMEM;
    return MS_OK;
}

int ms_rl_rollout_greedy(ms_rl_rollout *r, const ms_env *env, double *makespan, ms_error *err)
{
    int rc = check_env(r, env, err);
    if (!rc && !(rc = ms_env_copy(r->env, env, err)))
        *makespan = complete(r, INFINITY, NULL, NULL, 0);
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
    int nc = out->candidates = candidates(r, r->root, width, r->cand);
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
        double mk = complete(r, i == 0 ? INFINITY : out->best_makespan, NULL, NULL, 0);
        if (i == 0)
            out->greedy_makespan = out->best_makespan = mk;
        else if (mk < out->best_makespan) {
            out->best_makespan = mk;
            out->best = r->cand[i];
        }
    }
    return MS_OK;
}

void ms_rl_rollout_forget(ms_rl_rollout *r) { r->have_kept = false; }

ms_rl_rollout_stats ms_rl_rollout_get_stats(const ms_rl_rollout *r) { return r->stats; }

/* Plays action a (or none: -1) from env, then the greedy completion into t. */
static int play(ms_rl_rollout *r, const ms_env *env, int a, double cutoff, trajectory *t,
                const trajectory *ref, int at, ms_error *err)
{
    if (ms_env_copy(r->env, env, err))
        return err ? err->code : MS_EINVAL;
    bool done;
    if (a >= 0)
        ms_env_step(r->env, a, &done);
    if (complete(r, cutoff, t, ref, at) < 0)
        return ms_error_set(err, MS_ENOMEM, "rollout: out of memory");
    return MS_OK;
}

int ms_rl_rollout_decide(ms_rl_rollout *r, const ms_env *env, int width, float gap, int *action,
                         ms_error *err)
{
    int rc = check_env(r, env, err);
    if (rc)
        return rc;
    if (ms_env_done(env))
        return ms_error_set(err, MS_EINVAL, "rollout: the episode is over");
    int keep = width > 0 && width < r->mlp->nact ? width : r->mlp->nact;
    int step = ms_env_steps(env);
    r->stats.decisions++;
    if (!r->have_kept || r->kept.width != keep || step != r->step0 + r->pos ||
        r->pos >= r->kept.len) {
        if (r->kept.width != keep) { /* the buffers' rows are as wide as the candidates */
            trajectory_free(&r->kept);
            trajectory_free(&r->play);
            trajectory_free(&r->won);
            r->kept.width = r->play.width = r->won.width = keep;
        }
        if ((rc = play(r, env, -1, INFINITY, &r->kept, NULL, 0, err)))
            return rc;
        r->have_kept = true;
        r->step0 = step;
        r->pos = 0;
    }
    trajectory *k = &r->kept;
    const int *cand = k->cand + (size_t)r->pos * (size_t)keep;
    const float *g = k->gap + (size_t)r->pos * (size_t)keep;
    int nc = k->ncand[r->pos++];
    *action = cand[0];
    while (nc > 1 && !(g[nc - 1] < gap)) /* the candidates within gap of the greedy logit */
        nc--;
    /* As ms_rl_rollout_best: ties go to the earlier candidate. The greedy candidate's
     * completion is the rest of the kept one, whose state r->pos is the greedy action's. */
    double best = k->makespan;
    bool departed = false;
    for (int i = 1; i < nc; i++) {
        if ((rc = play(r, env, cand[i], best, &r->play, &r->kept, r->pos, err)))
            return rc;
        if (r->play.makespan < best) {
            best = r->play.makespan;
            *action = cand[i];
            trajectory t = r->won;
            r->won = r->play;
            r->play = t;
            departed = true;
        }
    }
    if (departed) { /* the winner's completion is the greedy future from the next state */
        trajectory t = r->kept;
        r->kept = r->won;
        r->won = t;
        r->step0 = step + 1;
        r->pos = 0;
    }
    return MS_OK;
}
