/* rl_expert.c: the exact action values of the co-scheduling environment (ours, for
 * `hier train --expert-pretrain`; paper 004 trains by DQN alone). The environment is
 * deterministic and a window small, so the most time a cover of any set of jobs can save is
 * a DP over subsets (as the exhaustive solver's), and with r_i left out (--ri-weight 0) an
 * episode's return depends only on the time its cover saves: Q*(s, a) is the return of the
 * best cover reachable after a. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hier_rl.h"

int hier_rl_expert_init(hier_rl_expert *x, const hier_rl_env *e, ms_error *err)
{
    memset(x, 0, sizeof *x);
    if (e->W > MS_HIER_MAX_W)
        return ms_error_set(err, MS_EINVAL,
                            "--expert-pretrain: window %d, the exact values "
                            "take at most %d jobs",
                            e->W, MS_HIER_MAX_W);
    if (e->ri_weight != 0)
        return ms_error_set(err, MS_EINVAL,
                            "--expert-pretrain needs --ri-weight 0 (the exact "
                            "values cover the time saved and r_f, not r_i)");
    size_t n = (size_t)1 << e->W;
    x->saved = malloc(n * sizeof *x->saved);
    x->future = malloc(n * sizeof *x->future);
    if (!x->saved || !x->future) {
        hier_rl_expert_free(x);
        return ms_error_set(err, MS_ENOMEM, "hier rl: out of memory");
    }
    return MS_OK;
}

void hier_rl_expert_free(hier_rl_expert *x)
{
    free(x->saved);
    free(x->future);
    memset(x, 0, sizeof *x);
}

/* future[m] over the subsets holding m's lowest job and up to cmax - 1 of rest[from..]. */
static void best_cover(hier_rl_expert *x, unsigned m, unsigned sub, const int *rest, int nrest,
                       int from, int size, int cmax)
{
    double v = x->saved[sub] + x->future[m & ~sub];
    if (v > x->future[m])
        x->future[m] = v;
    for (int i = from; i < nrest && size < cmax; i++)
        best_cover(x, m, sub | 1u << rest[i], rest, nrest, i + 1, size + 1, cmax);
}

void hier_rl_expert_start(hier_rl_expert *x, hier_rl_env *e)
{
    unsigned nm = 1u << e->win->n;
    for (unsigned m = 0; m < nm; m++)
        x->saved[m] = __builtin_popcount(m) <= e->cmax_now ? hier_rl_saved(e, m) : 0;
    x->future[0] = 0;
    for (unsigned m = 1; m < nm; m++) {
        int jobs[MS_HIER_MAX_W], c = 0;
        for (int j = 0; j < (int)e->win->n; j++)
            if (m >> j & 1)
                jobs[c++] = j;
        x->future[m] = 0;
        best_cover(x, m, 1u << jobs[0], jobs + 1, c - 1, 0, 1, e->cmax_now);
    }
}

/* The most time saved once the open group `group` grows by some of the pending jobs after
 * `last` (up to cmax jobs) and closes, the rest `pending` being covered at best. */
static double best_close(const hier_rl_expert *x, unsigned group, int size, unsigned pending,
                         int last, int n, int cmax)
{
    double best = x->saved[group] + x->future[pending];
    for (int j = last + 1; j < n && size < cmax; j++)
        if (pending >> j & 1) {
            double v = best_close(x, group | 1u << j, size + 1, pending & ~(1u << j), j, n, cmax);
            if (v > best)
                best = v;
        }
    return best;
}

/* The return of the rest of the episode when the window's cover saves `saved_before` before
 * this decision and `ahead` from it on. */
static float value(const hier_rl_env *e, double saved_before, double ahead)
{
    double ret = e->saved_weight * 100 * ahead / e->solo_total +
                 e->rf_weight * (e->solo_total / (e->solo_total - saved_before - ahead) - 1) * 100;
    return (float)(ret * HIER_RL_REWARD_SCALE);
}

void hier_rl_expert_q(const hier_rl_expert *x, hier_rl_env *e, const uint8_t *mask, float *q)
{
    unsigned group = 0, pending = 0;
    double closed_solo = 0;
    for (int i = 0; i < (int)e->win->n; i++) {
        pending |= (unsigned)e->pending[i] << i;
        if (!e->pending[i] && !e->in_group[i])
            closed_solo += e->win->jobs[i].solo;
    }
    for (int k = 0; k < e->gsize; k++)
        group |= 1u << e->group[k];
    double before = closed_solo - e->corun_total, group_solo = 0;
    for (int k = 0; k < e->gsize; k++)
        group_solo += e->win->jobs[e->group[k]].solo;
    int nact = hier_rl_num_actions(e), n = (int)e->win->n;
    for (int a = 0; a < nact; a++) {
        q[a] = 0;
        if (!mask[a])
            continue;
        double ahead;
        if (a < e->W) {
            ahead = best_close(x, group | 1u << a, e->gsize + 1, pending & ~(1u << a), a, n,
                               e->cmax_now);
        } else if (e->best_setup) {
            ahead = x->saved[group] + x->future[pending];
        } else {
            /* Setup a - W as it is: slower than time sharing means solo jobs (rl_env.c). */
            ms_hier_group g;
            double s = ms_hier_group_setup(e->win, e->cr, e->group, e->gsize, &e->setups[a - e->W],
                                           &g)
                           ? 0
                           : group_solo - g.corun;
            ahead = s + x->future[pending];
        }
        q[a] = value(e, before, ahead);
    }
}
