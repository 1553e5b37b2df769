/* rl_env.c: the environment of the co-scheduling agent (paper 004 IV-C, V-A3, Table VI).
 * An episode covers one window. The open group starts with the lowest-numbered job not yet
 * placed; each decision either adds a higher-numbered pending job to it (up to C_max) or
 * closes it with a setup of its size, the jobs taking the setup's slots in the order that
 * gives the shortest co-run (at most 4! = 24 evaluations). Each cover is thus reached by one
 * sequence of decisions. Closing pays r_i for every job of the group (Table VI) and the
 * time the group saves over time sharing, in percent of the window's solo time (ours: the
 * sum over an episode falls as the total co-run time grows, like r_f, so the optimum stays
 * and credit comes at once); the last close pays r_f. A group whose best co-run is slower than time
 * sharing (or unknown to a measured table) runs as solo jobs instead, so every plan keeps IV-A's
 * first constraint. */
#include <math.h>
#include <string.h>

#include "hier_rl.h"

int hier_rl_env_init(hier_rl_env *e, const ms_hier_rl_config *c, ms_error *err)
{
    int W = c->window, cmax = c->cmax;
    memset(e, 0, sizeof *e);
    if (W < 1 || W > HIER_RL_MAX_W)
        return ms_error_set(err, MS_EINVAL, "hier rl: window %d out of 1..%d", W, HIER_RL_MAX_W);
    if (cmax < 1 || cmax > MS_HIER_MAX_C)
        return ms_error_set(err, MS_EINVAL, "hier rl: C_max %d out of 1..%d", cmax, MS_HIER_MAX_C);
    if (!(c->ri_weight >= 0) || !(c->saved_weight >= 0) || !(c->rf_weight >= 0))
        return ms_error_set(err, MS_EINVAL, "hier rl: reward weights must be >= 0");
    e->W = W;
    e->cmax = e->cmax_now = cmax;
    e->ri_weight = c->ri_weight;
    e->saved_weight = c->saved_weight;
    e->rf_weight = c->rf_weight;
    e->best_setup = c->best_setup;
    e->gains = c->gains;
    size_t n = ms_hier_setups_for(1, MS_HIER_FAM_SOLO, e->setups, HIER_RL_MAX_SETUPS);
    for (int k = 2; k <= cmax; k++)
        n += ms_hier_setups_for(k, MS_HIER_FAM_TABLE7, e->setups + n, HIER_RL_MAX_SETUPS - n);
    e->nsetups = (int)n;
    return MS_OK;
}

void hier_rl_env_free(hier_rl_env *e) { ms_hier_window_fini(&e->drawn); }

void hier_rl_env_copy(hier_rl_env *dst, const hier_rl_env *src)
{
    memcpy(dst, src, sizeof *dst);
    dst->view.jobs = dst->sorted; /* the episode's window points into the env itself */
    dst->win = &dst->view;
    memset(&dst->drawn, 0, sizeof dst->drawn);
}

int hier_rl_row_size(const hier_rl_env *e)
{
    return HIER_RL_FEATURES + (e->gains ? HIER_RL_GAIN_FEATURES : 0);
}
int hier_rl_obs_size(const hier_rl_env *e) { return e->W * hier_rl_row_size(e); }
int hier_rl_num_actions(const hier_rl_env *e) { return e->W + (e->best_setup ? 1 : e->nsetups); }

/* How a counter becomes a feature: percentages (and warps of 64) as shares, times and
 * cycles relative to the window's mean (as Table VI's ratios), sizes on a log scale. */
enum { F_SHARE, F_RATIO, F_LOG };
static const struct {
    int kind;
    double scale;
} FEAT[MS_HIER_NCOUNTERS] = {
    {F_RATIO, 1},   {F_SHARE, 100}, {F_RATIO, 1}, {F_LOG, 5},     {F_LOG, 5}, {F_SHARE, 100},
    {F_SHARE, 100}, {F_SHARE, 100}, {F_RATIO, 1}, {F_SHARE, 100}, {F_LOG, 5}, {F_SHARE, 64},
};

static double mean_counter(const ms_hier_window *w, int k)
{
    double s = 0;
    for (size_t i = 0; i < w->n; i++)
        s += w->jobs[i].counters[k];
    return w->n ? s / (double)w->n : 0;
}

/* Whether job a of w goes before job b in the state's row order. */
static bool before(const ms_hier_window *w, int a, int b)
{
    const ms_hier_profile *p = &w->jobs[a], *q = &w->jobs[b];
    if (p->cls != q->cls)
        return p->cls < q->cls;
    double pm = p->counters[MS_HIER_C_MEMORY_PCT], qm = q->counters[MS_HIER_C_MEMORY_PCT];
    if (pm != qm)
        return pm < qm;
    if (p->solo != q->solo)
        return p->solo < q->solo;
    return a < b;
}

void hier_rl_env_start(hier_rl_env *e, const ms_hier_window *win, const ms_hier_corun *cr,
                       int cmax_now)
{
    int n = (int)win->n;
    for (int i = 0; i < n; i++) { /* insertion sort: n <= 64 */
        int j = i;
        for (; j > 0 && before(win, i, e->order[j - 1]); j--)
            e->order[j] = e->order[j - 1];
        e->order[j] = i;
    }
    for (int i = 0; i < n; i++)
        e->sorted[i] = win->jobs[e->order[i]];
    e->view.n = win->n;
    e->view.jobs = e->sorted;
    const ms_hier_window *w = &e->view;
    e->win = w;
    e->cr = cr;
    e->cmax_now = cmax_now < e->cmax ? cmax_now : e->cmax;
    double mean[MS_HIER_NCOUNTERS];
    for (int k = 0; k < MS_HIER_NCOUNTERS; k++)
        mean[k] = mean_counter(w, k);
    e->solo_total = 0;
    for (size_t i = 0; i < w->n; i++)
        e->solo_total += w->jobs[i].solo;
    e->mean_solo = e->solo_total / (double)w->n;
    e->mean_comp = mean[MS_HIER_C_COMPUTE_PCT];
    e->mean_mem = mean[MS_HIER_C_MEMORY_PCT];
    memset(e->feat, 0, sizeof e->feat);
    for (size_t i = 0; i < w->n; i++)
        for (int k = 0; k < MS_HIER_NCOUNTERS; k++) {
            double x = w->jobs[i].counters[k], f;
            if (FEAT[k].kind == F_SHARE)
                f = x / FEAT[k].scale;
            else if (FEAT[k].kind == F_RATIO)
                f = mean[k] > 0 ? x / mean[k] : 0;
            else
                f = log10(1 + x) / FEAT[k].scale;
            e->feat[i][k] = (float)fmin(fmax(f, 0), 10);
        }
    memset(e->pending, 0, sizeof e->pending);
    memset(e->in_group, 0, sizeof e->in_group);
    for (size_t i = 0; i < w->n; i++)
        e->pending[i] = true;
    e->corun_total = 0;
    e->ngroups = 0;
    /* The first group opens with job 0. */
    e->group[0] = 0;
    e->gsize = 1;
    e->pending[0] = false;
    e->in_group[0] = true;
    hier_rl_gain_start(e);
}

void hier_rl_env_restart(hier_rl_env *e)
{
    unsigned stamp = e->gain_stamp;
    int used = e->gain_used;
    hier_rl_env_start(e, e->fixed ? e->fixed : &e->drawn, e->cr, e->cmax);
    e->gain_stamp = stamp;
    e->gain_used = used;
}

static void observe(void *arg, float *obs)
{
    hier_rl_env *e = arg;
    memset(obs, 0, (size_t)hier_rl_obs_size(e) * sizeof(float));
    for (size_t i = 0; i < e->win->n; i++) {
        float *row = obs + i * (size_t)hier_rl_row_size(e);
        memcpy(row, e->feat[i], MS_HIER_NCOUNTERS * sizeof(float));
        float *x = row + MS_HIER_NCOUNTERS;
        x[0] = e->pending[i];
        x[1] = e->in_group[i];
        x[2] = (float)e->gsize / (float)e->cmax;
        x[3] = e->win->jobs[i].cls == MS_HIER_MI;
        x[4] = e->win->jobs[i].cls == MS_HIER_US;
        if (e->gains)
            hier_rl_gain_row(e, (int)i, x + 5);
    }
}

static int mask(void *arg, uint8_t *m)
{
    hier_rl_env *e = arg;
    memset(m, 0, (size_t)hier_rl_num_actions(e));
    int n = 0;
    if (e->gsize < 1)
        return 0; /* episode over */
    if (e->gsize < e->cmax_now)
        for (int j = e->group[e->gsize - 1] + 1; j < (int)e->win->n; j++)
            if (e->pending[j]) {
                m[j] = 1;
                n++;
            }
    if (e->best_setup) {
        m[e->W] = 1;
        return n + 1;
    }
    int closes = 0;
    for (int k = 0; k < e->nsetups; k++)
        if (e->setups[k].c == e->gsize && (!e->gains || hier_rl_setup_fits(e, k))) {
            m[e->W + k] = 1;
            closes++;
        }
    if (!closes) /* no setup fits: any closes, and the group's jobs run solo */
        for (int k = 0; k < e->nsetups; k++)
            if (e->setups[k].c == e->gsize) {
                m[e->W + k] = 1;
                closes++;
            }
    return n + closes;
}

/* Table VI's r_i for the job in slot k of setup s. */
static double r_i(const hier_rl_env *e, const ms_hier_profile *p, const ms_hier_setup *s, int k)
{
    double sm = ms_hier_slot_compute(s, k);
    double mem = ms_hier_gi_mem(s, s->ci[s->slot[k].ci].gi);
    double cr = e->mean_comp > 0 ? p->counters[MS_HIER_C_COMPUTE_PCT] / e->mean_comp : 0;
    double mr = e->mean_mem > 0 ? p->counters[MS_HIER_C_MEMORY_PCT] / e->mean_mem : 0;
    double dr = p->solo / e->mean_solo;
    return (sm * cr + mem * mr) * dr * dr;
}

/* The open group under setup k, or under its best setup when k < 0: returns 0 and fills g
 * and *k, or 1 when no order is known and no slower than time sharing. */
static int group_under(const hier_rl_env *e, int *k, ms_hier_group *g)
{
    if (*k >= 0)
        return ms_hier_group_setup(e->win, e->cr, e->group, e->gsize, &e->setups[*k], g);
    if (ms_hier_group_best(e->win, e->cr, e->group, e->gsize, MS_HIER_FAM_TABLE7, MS_HIER_NOMIG, g))
        return 1;
    for (*k = 0; strcmp(e->setups[*k].id, g->setup.id); ++*k)
        ; /* the action space holds every Table VII setup up to cmax */
    return 0;
}

/* Closes the open group with setup k (k < 0: its best); returns r_i summed over its jobs and
 * adds the time it saves over time sharing to *saved. */
static double close_group(hier_rl_env *e, int k, double *saved)
{
    ms_hier_group g;
    double solo = 0, ri = 0;
    for (int i = 0; i < e->gsize; i++)
        solo += e->win->jobs[e->group[i]].solo;
    if (group_under(e, &k, &g) == 0) {
        hier_rl_group *h = &e->groups[e->ngroups++];
        h->c = g.c;
        h->setup = k;
        memcpy(h->job, g.job, sizeof h->job);
        for (int i = 0; i < g.c; i++)
            ri += r_i(e, &e->win->jobs[g.job[i]], &e->setups[k], i);
        e->corun_total += g.corun;
        *saved += solo - g.corun;
    } else {
        /* Time sharing instead: each job alone (setup 0 is solo). */
        for (int i = 0; i < e->gsize; i++) {
            hier_rl_group *h = &e->groups[e->ngroups++];
            h->c = 1;
            h->setup = 0;
            h->job[0] = e->group[i];
            ri += r_i(e, &e->win->jobs[e->group[i]], &e->setups[0], 0);
        }
        e->corun_total += solo;
    }
    for (int i = 0; i < e->gsize; i++)
        e->in_group[e->group[i]] = false;
    e->gsize = 0;
    for (int j = 0; j < (int)e->win->n; j++)
        if (e->pending[j]) {
            e->group[0] = j;
            e->gsize = 1;
            e->pending[j] = false;
            e->in_group[j] = true;
            break;
        }
    return ri;
}

/* One decision; decisions with a single allowed action are taken here too (their rewards
 * summed), so the agent only sees real choices. */
static double step(void *arg, int a, bool *done)
{
    hier_rl_env *e = arg;
    double r = 0;
    uint8_t m[HIER_RL_MAX_W + HIER_RL_MAX_SETUPS];
    for (;;) {
        if (a < e->W) {
            e->group[e->gsize++] = a;
            e->pending[a] = false;
            e->in_group[a] = true;
        } else {
            double saved = 0;
            r += e->ri_weight * close_group(e, e->best_setup ? -1 : a - e->W, &saved);
            r += e->saved_weight * 100 * saved / e->solo_total;
            if (e->gsize == 0) {
                r += e->rf_weight * (e->solo_total / e->corun_total - 1) * 100;
                *done = true;
                return r * HIER_RL_REWARD_SCALE;
            }
        }
        if (mask(e, m) != 1)
            break;
        for (a = 0; !m[a]; a++)
            ;
    }
    *done = false;
    return r * HIER_RL_REWARD_SCALE;
}

/* Training episodes: a fresh mix of the seen programs (a random Table V category), or the
 * fixed window. */
static int reset(void *arg, ms_rng *rng, ms_error *err)
{
    hier_rl_env *e = arg;
    const ms_hier_window *w = e->fixed;
    if (!w) {
        ms_hier_window_fini(&e->drawn);
        int cat = (int)ms_rng_below(rng, MS_HIER_NMIX);
        if (ms_hier_window_mix(e->cat, cat, (size_t)e->W, 0, rng, &e->drawn, err))
            return err ? err->code : MS_EINVAL;
        w = &e->drawn;
    }
    hier_rl_env_start(e, w, e->cr, e->cmax);
    return MS_OK;
}

const ms_rl_env_ops hier_rl_ops = {reset, observe, mask, step, NULL, NULL};
