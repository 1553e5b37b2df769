/* rl_lookahead.c: the agent's decisions, greedy or improved by rollout (Bertsekas' policy
 * improvement with the learned Q-function as the base policy). With lookahead K > 1 each
 * decision tries the K allowed actions of highest Q on a copy of the episode, lets the base
 * rule finish each copy, and takes the action whose finished window has the least co-run
 * time (the model's exact cost), the earlier candidate on ties. At depth 1 the base rule is
 * the greedy agent; at depth D it is this rule at depth D - 1 (nested rollout). The base
 * rule's own action is always among the K tried (it is the greedy one, or the best of the
 * same K at depth D - 1), and a deterministic base rule's completion continues from the
 * state it leads to, so the best completion's cost never rises from one decision to the
 * next: the plan is never worse than the base rule's, hence never worse than the greedy
 * agent's. The Q-function picks the candidates and every completion; the cost is at most
 * K^D greedy completions per decision. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "hier_rl.h"

int hier_rl_decider_init(hier_rl_decider *d, const ms_mlp *net, const hier_rl_env *e,
                         ms_hier_lookahead lookahead, ms_error *err)
{
    memset(d, 0, sizeof *d);
    if (lookahead.width < 1 || lookahead.width > MS_HIER_MAX_LOOKAHEAD)
        return ms_error_set(err, MS_EINVAL, "hier rl: lookahead %d out of 1..%d", lookahead.width,
                            MS_HIER_MAX_LOOKAHEAD);
    if (lookahead.depth < 1 || lookahead.depth > MS_HIER_MAX_LOOKAHEAD_DEPTH)
        return ms_error_set(err, MS_EINVAL, "hier rl: lookahead depth %d out of 1..%d",
                            lookahead.depth, MS_HIER_MAX_LOOKAHEAD_DEPTH);
    bool rollout = lookahead.width > 1;
    int nact = hier_rl_num_actions(e);
    d->net = net;
    d->lookahead = lookahead;
    d->obs = malloc((size_t)hier_rl_obs_size(e) * sizeof(float));
    d->q = malloc((size_t)nact * sizeof(float));
    d->m = malloc((size_t)nact);
    d->trial = rollout ? malloc((size_t)lookahead.depth * sizeof *d->trial) : NULL;
    bool ok = d->obs && d->q && d->m && (!rollout || d->trial);
    if (!ok || ms_mlp_work_init(&d->work, net, 1, err)) {
        free(d->obs);
        free(d->q);
        free(d->m);
        free(d->trial);
        memset(d, 0, sizeof *d);
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    }
    return MS_OK;
}

void hier_rl_decider_free(hier_rl_decider *d)
{
    if (!d->net)
        return;
    ms_mlp_work_fini(&d->work);
    free(d->obs);
    free(d->q);
    free(d->m);
    free(d->trial);
    memset(d, 0, sizeof *d);
}

static int greedy(hier_rl_decider *d, hier_rl_env *e)
{
    hier_rl_ops.observe(e, d->obs);
    hier_rl_ops.mask(e, d->m);
    return ms_dqn_greedy(d->net, &d->work, d->obs, d->m, d->q);
}

static int decide_at(hier_rl_decider *d, hier_rl_env *e, int depth);

/* The co-run time of e's window once a and then the actions of the rule of `depth` are
 * taken (depth 0: the greedy agent). */
static double completion(hier_rl_decider *d, hier_rl_env *e, int a, int depth)
{
    bool done = false;
    hier_rl_ops.step(e, a, &done);
    while (!done)
        hier_rl_ops.step(e, depth ? decide_at(d, e, depth) : greedy(d, e), &done);
    return e->corun_total;
}

/* The allowed actions in decreasing Q (lower index first on ties), the greedy one a first;
 * returns how many, at most k. */
static int top_k(const hier_rl_decider *d, int nact, int a, int k, int *out)
{
    int n = 0;
    out[n++] = a;
    while (n < k) {
        int best = -1;
        for (int b = 0; b < nact; b++) {
            bool taken = false;
            for (int i = 0; i < n && !taken; i++)
                taken = out[i] == b;
            if (d->m[b] && !taken && (best < 0 || d->q[b] > d->q[best]))
                best = b;
        }
        if (best < 0)
            break;
        out[n++] = best;
    }
    return n;
}

/* The rule of `depth` >= 1 (each level has its own trial copy: the levels below run on
 * copies of it). */
static int decide_at(hier_rl_decider *d, hier_rl_env *e, int depth)
{
    int a = greedy(d, e);
    if (d->lookahead.width == 1)
        return a;
    int cand[MS_HIER_MAX_LOOKAHEAD];
    int n = top_k(d, hier_rl_num_actions(e), a, d->lookahead.width, cand);
    int best = a;
    double best_cost = DBL_MAX;
    hier_rl_env *trial = &d->trial[depth - 1];
    for (int i = 0; i < n && n > 1; i++) {
        hier_rl_env_copy(trial, e);
        double cost = completion(d, trial, cand[i], depth - 1);
        if (cost < best_cost) {
            best_cost = cost;
            best = cand[i];
        }
    }
    return best;
}

int hier_rl_decide(hier_rl_decider *d, hier_rl_env *e)
{
    return decide_at(d, e, d->lookahead.depth);
}
