/* plan.c: covers of a window by job sets (paper 004 IV-A): groups, their best setup, the
 * plan's checks and the metrics of Figs. 8, 11 and 12. */
#include "hier_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CoRunTime <= SoloRunTime, with room for rounding. */
static int no_slower(double corun, double solo) { return corun <= solo * (1 + 1e-9); }

static double solo_sum(const ms_hier_window *w, const int *jobs, int c)
{
    double s = 0;
    for (int k = 0; k < c; k++)
        s += w->jobs[jobs[k]].solo;
    return s;
}

/* Times of jobs (window indices, slot order) under s; 1 when unknown. */
static int group_times(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs,
                       const ms_hier_setup *s, double *times, double *corun)
{
    const ms_hier_profile *p[MS_HIER_MAX_C];
    for (int k = 0; k < s->c; k++)
        p[k] = &w->jobs[jobs[k]];
    if (ms_hier_corun_times(cr, p, s, times))
        return 1;
    *corun = 0;
    for (int k = 0; k < s->c; k++)
        *corun = fmax(*corun, times[k]);
    return 0;
}

static int same_slot(const ms_hier_setup *s, int a, int b)
{
    return s->slot[a].ci == s->slot[b].ci && s->slot[a].pct == s->slot[b].pct;
}

int hier_order_redundant(const ms_hier_setup *s, const int *perm)
{
    for (int k = 0; k + 1 < s->c; k++)
        if (same_slot(s, k, k + 1) && perm[k] > perm[k + 1])
            return 1;
    return 0;
}

int hier_next_perm(int *perm, int c)
{
    int i = c - 2;
    while (i >= 0 && perm[i] >= perm[i + 1])
        i--;
    if (i < 0)
        return 0;
    int j = c - 1;
    while (perm[j] <= perm[i])
        j--;
    int t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
    for (int a = i + 1, b = c - 1; a < b; a++, b--) {
        t = perm[a];
        perm[a] = perm[b];
        perm[b] = t;
    }
    return 1;
}

int ms_hier_group_setup(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs, int c,
                        const ms_hier_setup *s, ms_hier_group *g)
{
    double limit = solo_sum(w, jobs, c), best = INFINITY;
    int perm[MS_HIER_MAX_C], order[MS_HIER_MAX_C];
    memset(g, 0, sizeof *g);
    for (int k = 0; k < c; k++)
        perm[k] = k;
    do {
        if (hier_order_redundant(s, perm))
            continue;
        for (int k = 0; k < c; k++)
            order[k] = jobs[perm[k]];
        double times[MS_HIER_MAX_C], corun;
        if (group_times(w, cr, order, s, times, &corun))
            continue;
        if (corun < best && no_slower(corun, limit)) {
            best = corun;
            g->c = c;
            memcpy(g->job, order, sizeof order);
            g->setup = *s;
            memcpy(g->time, times, sizeof times);
            g->corun = corun;
        }
    } while (hier_next_perm(perm, c));
    return isfinite(best) ? 0 : 1;
}

int ms_hier_group_best(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs, int c,
                       int families, ms_hier_layout layout, ms_hier_group *g)
{
    ms_hier_setup setups[128];
    size_t n;
    memset(g, 0, sizeof *g);
    if (c == 1) {
        n = ms_hier_setups_for(1, MS_HIER_FAM_SOLO, setups, 1);
    } else if (families & MS_HIER_FAM_DEFAULT) {
        n = ms_hier_default_setups(c, layout, setups, 128);
    } else {
        n = ms_hier_setups_for(c, families & ~MS_HIER_FAM_SOLO, setups, 128);
    }
    int found = 0;
    for (size_t i = 0; i < n; i++) {
        ms_hier_group cand;
        if (!ms_hier_group_setup(w, cr, jobs, c, &setups[i], &cand) &&
            (!found || cand.corun < g->corun)) {
            *g = cand;
            found = 1;
        }
    }
    return found ? 0 : 1;
}

void ms_hier_plan_fini(ms_hier_plan *p)
{
    if (!p)
        return;
    free(p->groups);
    memset(p, 0, sizeof *p);
}

int ms_hier_plan_add(ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                     const int *jobs, const ms_hier_setup *s, ms_error *err)
{
    ms_hier_group g;
    memset(&g, 0, sizeof g);
    g.c = s->c;
    g.setup = *s;
    for (int k = 0; k < s->c; k++) {
        if (jobs[k] < 0 || (size_t)jobs[k] >= w->n)
            return ms_error_set(err, MS_EINVAL, "job index %d outside the window of %zu", jobs[k],
                                w->n);
        g.job[k] = jobs[k];
    }
    if (group_times(w, cr, g.job, s, g.time, &g.corun))
        return ms_error_set(err, MS_EINVAL, "no co-run time for setup %s with these jobs", s->id);
    if (!no_slower(g.corun, solo_sum(w, g.job, g.c)))
        return ms_error_set(err, MS_EINVAL,
                            "setup %s: CoRunTime %.6g s exceeds time sharing %.6g s", s->id,
                            g.corun, solo_sum(w, g.job, g.c));
    ms_hier_group *ng = realloc(p->groups, (p->n + 1) * sizeof *ng);
    if (!ng)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    p->groups = ng;
    p->groups[p->n++] = g;
    p->total += g.corun;
    return MS_OK;
}

int ms_hier_plan_check(const ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                       int cmax, ms_error *err)
{
    int *seen = calloc(w->n ? w->n : 1, sizeof *seen);
    if (!seen)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    int rc = MS_OK;
    double total = 0;
    for (size_t i = 0; i < p->n && !rc; i++) {
        const ms_hier_group *g = &p->groups[i];
        if (g->c < 1 || g->c > cmax || g->c != g->setup.c) {
            rc = ms_error_set(err, MS_EINVAL, "group %zu: %d jobs (C_max %d, setup for %d)", i,
                              g->c, cmax, g->setup.c);
            break;
        }
        for (int k = 0; k < g->c && !rc; k++) {
            if (g->job[k] < 0 || (size_t)g->job[k] >= w->n || seen[g->job[k]]++)
                rc = ms_error_set(err, MS_EINVAL,
                                  "group %zu: job %d is outside the window or in two groups", i,
                                  g->job[k]);
        }
        if (rc)
            break;
        double times[MS_HIER_MAX_C], corun;
        if (group_times(w, cr, g->job, &g->setup, times, &corun)) {
            rc = ms_error_set(err, MS_EINVAL, "group %zu: no co-run time for setup %s", i,
                              g->setup.id);
            break;
        }
        for (int k = 0; k < g->c; k++)
            if (fabs(times[k] - g->time[k]) > 1e-9 * fmax(1.0, times[k]))
                rc = ms_error_set(err, MS_EINVAL, "group %zu: job %d's time %.9g differs from %.9g",
                                  i, g->job[k], g->time[k], times[k]);
        if (!rc && fabs(corun - g->corun) > 1e-9 * fmax(1.0, corun))
            rc = ms_error_set(err, MS_EINVAL, "group %zu: CoRunTime %.9g differs from %.9g", i,
                              g->corun, corun);
        if (!rc && !no_slower(corun, solo_sum(w, g->job, g->c)))
            rc = ms_error_set(err, MS_EINVAL, "group %zu: slower than time sharing", i);
        total += corun;
    }
    for (size_t j = 0; j < w->n && !rc; j++)
        if (!seen[j])
            rc = ms_error_set(err, MS_EINVAL, "job %zu (%s) is in no group", j, w->jobs[j].name);
    if (!rc && fabs(total - p->total) > 1e-9 * fmax(1.0, total))
        rc = ms_error_set(err, MS_EINVAL, "total %.9g differs from the groups' sum %.9g", p->total,
                          total);
    free(seen);
    return rc;
}

void ms_hier_plan_metrics(const ms_hier_plan *p, const ms_hier_window *w, ms_hier_metrics *m,
                          double *slowdown)
{
    double solo = 0, sum = 0, lo = INFINITY, hi = 0;
    for (size_t j = 0; j < w->n; j++)
        solo += w->jobs[j].solo;
    for (size_t i = 0; i < p->n; i++) {
        const ms_hier_group *g = &p->groups[i];
        for (int k = 0; k < g->c; k++) {
            double sd = g->time[k] / w->jobs[g->job[k]].solo;
            if (slowdown)
                slowdown[g->job[k]] = sd;
            sum += sd;
            lo = fmin(lo, sd);
            hi = fmax(hi, sd);
        }
    }
    m->throughput = p->total > 0 ? solo / p->total : 0;
    m->mean_slowdown = w->n ? sum / (double)w->n : 0;
    m->fairness = hi > 0 ? lo / hi : 0;
}
