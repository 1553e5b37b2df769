/* solve.c: the exhaustive policies of paper 004 V-A4: the minimum sum of CoRunTime over the
 * covers of the window by job sets of size <= C_max (a set-partition DP over subsets), each
 * set with its best setup among the policy's families; and the default policy's layout. */
#include "migsched/hier.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *ms_hier_policy_name(ms_hier_policy p)
{
    static const char *const names[] = {"timeshare", "mig2", "mps", "default", "rl", "optimal"};
    return p >= 0 && p < MS_HIER_NPOLICY ? names[p] : "?";
}

int ms_hier_policy_parse(const char *name, ms_hier_policy *out)
{
    for (int p = 0; p < MS_HIER_NPOLICY; p++)
        if (strcmp(name, ms_hier_policy_name((ms_hier_policy)p)) == 0) {
            *out = (ms_hier_policy)p;
            return 0;
        }
    return -1;
}

static int policy_families(ms_hier_policy p, int *cmax)
{
    switch (p) {
    case MS_HIER_TIMESHARE: *cmax = 1; return MS_HIER_FAM_SOLO;
    case MS_HIER_MIG2: *cmax = *cmax < 2 ? *cmax : 2; return MS_HIER_FAM_MIG;
    case MS_HIER_MPS: return MS_HIER_FAM_MPS;
    case MS_HIER_DEFAULT: return MS_HIER_FAM_DEFAULT;
    default: return MS_HIER_FAM_TABLE7;
    }
}

/* Jobs (window indices) of a bit mask; returns how many. */
static int mask_jobs(unsigned mask, int *jobs)
{
    int c = 0;
    for (int j = 0; mask; j++, mask >>= 1)
        if (mask & 1)
            jobs[c++] = j;
    return c;
}

typedef struct dp_ctx {
    const double *best; /* CoRunTime of each subset's best group, INFINITY if none */
    double *dp;         /* least total covering each mask */
    unsigned *choice;   /* the subset holding the mask's lowest job in that cover */
    int cmax;
} dp_ctx;

/* Subsets of `mask` holding its lowest job and up to cmax - 1 of the others `rest[from..]`. */
static void dp_extend(dp_ctx *x, unsigned mask, unsigned sub, const int *rest, int nrest, int from,
                      int size)
{
    double v = x->best[sub] + x->dp[mask & ~sub];
    if (v < x->dp[mask]) {
        x->dp[mask] = v;
        x->choice[mask] = sub;
    }
    if (size == x->cmax)
        return;
    for (int i = from; i < nrest; i++)
        dp_extend(x, mask, sub | (1u << rest[i]), rest, nrest, i + 1, size + 1);
}

int ms_hier_solve(const ms_hier_window *w, const ms_hier_corun *cr, int cmax, ms_hier_policy p,
                  ms_hier_layout layout, ms_hier_plan *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    if (p == MS_HIER_RL)
        return ms_error_set(err, MS_EINVAL, "policy rl is planned by ms_hier_rl_plan");
    if (w->n == 0 || w->n > MS_HIER_MAX_W)
        return ms_error_set(err, MS_EINVAL,
                            "window of %zu jobs: the exhaustive policies take 1 to %d", w->n,
                            MS_HIER_MAX_W);
    if (cmax < 1 || cmax > MS_HIER_MAX_C)
        return ms_error_set(err, MS_EINVAL, "C_max %d: Table VII defines setups for 1 to %d jobs",
                            cmax, MS_HIER_MAX_C);
    int families = policy_families(p, &cmax);
    size_t nm = (size_t)1 << w->n;
    double *best = malloc(nm * sizeof *best), *dp = malloc(nm * sizeof *dp);
    unsigned *choice = calloc(nm, sizeof *choice);
    int rc = MS_OK;
    if (!best || !dp || !choice) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t m = 0; m < nm; m++) {
        int jobs[MS_HIER_MAX_W];
        best[m] = INFINITY;
        dp[m] = m ? INFINITY : 0;
        if (m == 0 || __builtin_popcount((unsigned)m) > cmax)
            continue;
        int c = mask_jobs((unsigned)m, jobs);
        ms_hier_group g;
        if (ms_hier_group_best(w, cr, jobs, c, families, layout, &g) == 0)
            best[m] = g.corun;
    }
    dp_ctx x = {best, dp, choice, cmax};
    for (size_t m = 1; m < nm; m++) {
        int jobs[MS_HIER_MAX_W];
        int n = mask_jobs((unsigned)m, jobs);
        dp_extend(&x, (unsigned)m, 1u << jobs[0], jobs + 1, n - 1, 0, 1);
    }
    /* Singletons always run solo, so every mask has a cover; rebuild it group by group. */
    for (unsigned m = (unsigned)(nm - 1); m && !rc; m &= ~choice[m]) {
        int jobs[MS_HIER_MAX_C];
        int c = mask_jobs(choice[m], jobs);
        ms_hier_group g;
        ms_hier_group_best(w, cr, jobs, c, families, layout, &g);
        rc = ms_hier_plan_add(out, w, cr, g.job, &g.setup, err);
    }
done:
    free(best);
    free(dp);
    free(choice);
    if (rc)
        ms_hier_plan_fini(out);
    return rc;
}

int ms_hier_default_layout(const ms_hier_window *ws, size_t n, const ms_hier_corun *cr, int cmax,
                           ms_hier_layout *out, ms_error *err)
{
    double best = -1;
    /* Candidates are MIG partitions (paper 004: "the MIG partitioning is selected"). */
    for (ms_hier_layout l = MS_HIER_SHARED; l <= MS_HIER_PRIVATE; l++) {
        double sum = 0;
        for (size_t i = 0; i < n; i++) {
            ms_hier_plan p;
            int rc = ms_hier_solve(&ws[i], cr, cmax, MS_HIER_DEFAULT, l, &p, err);
            if (rc)
                return rc;
            ms_hier_metrics m;
            ms_hier_plan_metrics(&p, &ws[i], &m, NULL);
            sum += m.throughput;
            ms_hier_plan_fini(&p);
        }
        if (sum > best) { /* ties keep the simpler layout */
            best = sum;
            *out = l;
        }
    }
    return MS_OK;
}
