/* rl_gain.c: the co-run gain features of the agent's state (ours, `--gains`; Table VI's
 * state has the counters only). A cover's total is the solo time less what its groups
 * save over time sharing, and the counters show that only through the co-run model; these
 * features give the network the saving itself: per row, what adding the job to the open
 * group would save, what the job saves with its best partner, and what the open group saves
 * now, each under the best Table VII setup and in units of the window's mean solo time.
 * Savings are remembered per job set for the episode (793 sets at W 12, C_max 4). With the
 * gains the mask also drops the setups under which the open group would be slower than time
 * sharing (IV-A's first constraint; the environment would run its jobs solo instead). */
#include <math.h>
#include <string.h>

#include "hier_rl.h"

void hier_rl_gain_start(hier_rl_env *e)
{
    if (++e->gain_stamp == 0) { /* wrapped: no entry may look current */
        memset(e->gain_at, 0, sizeof e->gain_at);
        e->gain_stamp = 1;
    }
    e->gain_used = 0;
    e->fit_set = 0;
}

static double compute_saved(const hier_rl_env *e, uint64_t set)
{
    int jobs[MS_HIER_MAX_C], c = 0;
    double solo = 0;
    for (int i = 0; i < (int)e->win->n && c < MS_HIER_MAX_C; i++)
        if (set >> i & 1) {
            jobs[c++] = i;
            solo += e->win->jobs[i].solo;
        }
    ms_hier_group g;
    if (c < 2 || ms_hier_group_best(e->win, e->cr, jobs, c, MS_HIER_FAM_TABLE7, MS_HIER_NOMIG, &g))
        return 0;
    return fmax(solo - g.corun, 0);
}

double hier_rl_saved(hier_rl_env *e, uint64_t set)
{
    /* Open addressing on a multiplicative hash; a full table computes without keeping. */
    unsigned h = (unsigned)((set * 0x9e3779b97f4a7c15ull) >> 52) % HIER_RL_GAIN_CACHE;
    for (int probe = 0; probe < HIER_RL_GAIN_CACHE; probe++) {
        unsigned k = (h + (unsigned)probe) % HIER_RL_GAIN_CACHE;
        if (e->gain_at[k] != e->gain_stamp) {
            double v = compute_saved(e, set);
            if (4 * e->gain_used < 3 * HIER_RL_GAIN_CACHE) {
                e->gain_at[k] = e->gain_stamp;
                e->gain_key[k] = set;
                e->gain_val[k] = v;
                e->gain_used++;
            }
            return v;
        }
        if (e->gain_key[k] == set)
            return e->gain_val[k];
    }
    return compute_saved(e, set);
}

static float unit(const hier_rl_env *e, double saved)
{
    return (float)fmin(fmax(saved / e->mean_solo, -10), 10);
}

void hier_rl_gain_row(hier_rl_env *e, int i, float *x)
{
    uint64_t open = 0;
    for (int k = 0; k < e->gsize; k++)
        open |= 1ull << e->group[k];
    double now = hier_rl_saved(e, open);
    x[0] = x[1] = 0;
    x[2] = unit(e, now);
    bool live = e->pending[i] || e->in_group[i];
    if (e->pending[i] && e->gsize > 0 && e->gsize < e->cmax_now && i > e->group[e->gsize - 1])
        x[0] = unit(e, hier_rl_saved(e, open | 1ull << i) - now);
    double best = 0;
    for (int j = 0; live && j < (int)e->win->n; j++)
        if (j != i && (e->pending[j] || e->in_group[j]))
            best = fmax(best, hier_rl_saved(e, 1ull << i | 1ull << j));
    x[1] = unit(e, best);
}

bool hier_rl_setup_fits(hier_rl_env *e, int k)
{
    uint64_t open = 0;
    for (int i = 0; i < e->gsize; i++)
        open |= 1ull << e->group[i];
    if (open != e->fit_set) {
        e->fit_set = open;
        for (int s = 0; s < e->nsetups; s++) {
            ms_hier_group g;
            e->fit[s] = e->setups[s].c == e->gsize &&
                        ms_hier_group_setup(e->win, e->cr, e->group, e->gsize, &e->setups[s], &g) ==
                            0;
        }
    }
    return e->fit[k];
}
