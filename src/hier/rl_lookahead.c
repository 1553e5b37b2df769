/* rl_lookahead.c: the agent's decisions, greedy or improved by rollout (Bertsekas' policy
 * improvement with the learned Q-function as the base policy). With lookahead K > 1 each
 * decision tries the K allowed actions of highest Q on a copy of the episode, lets the greedy
 * agent finish each copy, and takes the action whose finished window has the least co-run
 * time (the model's exact cost), the greedy action on ties. The greedy action is always
 * tried and its completion continues the previous decision's best one, so the best
 * completion's cost never rises from one decision to the next: the plan is never worse than
 * the greedy agent's. The Q-function picks both the K candidates and every completion; the
 * cost is at most K greedy completions per decision. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "hier_rl.h"

int hier_rl_decider_init(hier_rl_decider *d, const ms_mlp *net, const hier_rl_env *e,
                         int lookahead, ms_error *err)
{
    memset(d, 0, sizeof *d);
    if (lookahead < 1 || lookahead > MS_HIER_MAX_LOOKAHEAD)
        return ms_error_set(err, MS_EINVAL, "hier rl: lookahead %d out of 1..%d", lookahead,
                            MS_HIER_MAX_LOOKAHEAD);
    int nact = hier_rl_num_actions(e);
    d->net = net;
    d->lookahead = lookahead;
    d->obs = malloc((size_t)hier_rl_obs_size(e) * sizeof(float));
    d->q = malloc((size_t)nact * sizeof(float));
    d->m = malloc((size_t)nact);
    d->trial = lookahead > 1 ? malloc(sizeof *d->trial) : NULL;
    bool ok = d->obs && d->q && d->m && (lookahead == 1 || d->trial);
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
    ms_mlp_work_destroy(&d->work);
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

/* The co-run time of e's window once a and then the greedy agent's actions are taken. */
static double completion(hier_rl_decider *d, hier_rl_env *e, int a)
{
    bool done = false;
    hier_rl_ops.step(e, a, &done);
    while (!done)
        hier_rl_ops.step(e, greedy(d, e), &done);
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

int hier_rl_decide(hier_rl_decider *d, hier_rl_env *e)
{
    int a = greedy(d, e);
    if (d->lookahead == 1)
        return a;
    int cand[MS_HIER_MAX_LOOKAHEAD];
    int n = top_k(d, hier_rl_num_actions(e), a, d->lookahead, cand);
    int best = a;
    double best_cost = DBL_MAX;
    for (int i = 0; i < n && n > 1; i++) {
        hier_rl_env_copy(d->trial, e);
        double cost = completion(d, d->trial, cand[i]);
        if (cost < best_cost) {
            best_cost = cost;
            best = cand[i];
        }
    }
    return best;
}
