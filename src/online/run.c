/* run.c: ms_online_simulate: policy set-up, the best of the static layouts, and the
 * aggregate metrics of a run. */
#include "internal.h"
#include "migsched/io.h"

#include <stdlib.h>
#include <string.h>

static const char *const policy_names[MS_POLICY_COUNT] = {
    "frag", "firstfit-static", "firstfit-dynamic", "owp", "elasticbatch"};

const char *ms_online_policy_name(int policy)
{
    return policy >= 0 && policy < MS_POLICY_COUNT ? policy_names[policy] : "?";
}

int ms_online_policy_parse(const char *text)
{
    return ms_name_index(policy_names, MS_POLICY_COUNT, text);
}

void ms_online_config_defaults(ms_online_config *c)
{
    *c = (ms_online_config){.policy = MS_POLICY_FRAG,
                            .gpus = 4,
                            .tau = 0.4,
                            .kappa = 0.05,
                            .balance = true,
                            .dynamic = true,
                            .migration = true,
                            .migration_cost = 15.0,
                            .migration_rule = MS_MIGRATE_COST_AWARE,
                            .queue = MS_QUEUE_RESERVE,
                            .reserve_after = 7200.0,
                            .layout = MS_LAYOUT_BEST};
}

void ms_online_result_fini(ms_online_result *r)
{
    free(r->start);
    free(r->end);
    free(r->gpu);
    free(r->migrations);
    free(r->samples);
    free(r->mig);
    memset(r, 0, sizeof *r);
}

static int result_init(ms_online_result *r, int n)
{
    memset(r, 0, sizeof *r);
    size_t k = (size_t)(n ? n : 1);
    r->n = n;
    r->start = calloc(k, sizeof *r->start);
    r->end = calloc(k, sizeof *r->end);
    r->gpu = calloc(k, sizeof *r->gpu);
    r->migrations = calloc(k, sizeof *r->migrations);
    return r->start && r->end && r->gpu && r->migrations ? MS_OK : MS_ENOMEM;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double ms_online_quantile(const double *sorted, int n, double q)
{
    if (n < 1)
        return NAN;
    double h = (n - 1) * q;
    int lo = (int)floor(h);
    if (lo >= n - 1)
        return sorted[n - 1];
    return sorted[lo] + (h - lo) * (sorted[lo + 1] - sorted[lo]);
}

static void tpot_means(ms_online_result *r, const ms_gpu_model *m, const ms_online_workload *w)
{
    double sum[MS_MAX_PROFILES] = {0};
    int n[MS_MAX_PROFILES] = {0};
    for (int j = 0; j < w->n; j++) {
        int p = w->jobs[j].profile;
        if (w->jobs[j].work > 0) { /* a zero-work job has no tokens */
            sum[p] += (r->end[j] - r->start[j]) / w->jobs[j].work;
            n[p]++;
        }
    }
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        r->tpot[p] = n[p] ? ms_online_tpot_alone(m, p) * sum[p] / n[p] : NAN;
}

static int aggregate(ms_online_result *r, const ms_gpu_model *m, const ms_online_workload *w)
{
    tpot_means(r, m, w);
    if (w->n == 0)
        return MS_OK;
    double *turn = malloc((size_t)w->n * sizeof *turn), last = 0;
    if (!turn)
        return MS_ENOMEM;
    double wait = 0, exec = 0, tsum = 0;
    for (int j = 0; j < w->n; j++) {
        double wj = r->start[j] - w->jobs[j].arrival;
        wait += wj;
        exec += r->end[j] - r->start[j];
        turn[j] = r->end[j] - w->jobs[j].arrival;
        tsum += turn[j];
        r->max_wait = wj > r->max_wait ? wj : r->max_wait;
        last = r->end[j] > last ? r->end[j] : last;
    }
    r->mean_wait = wait / w->n;
    r->mean_exec = exec / w->n;
    r->mean_turnaround = tsum / w->n;
    r->makespan = last - w->jobs[0].arrival;
    qsort(turn, (size_t)w->n, sizeof *turn, cmp_double);
    r->p95_turnaround = ms_online_quantile(turn, w->n, 0.95);
    free(turn);
    r->reconfigurations = r->creations + r->destructions;
    return MS_OK;
}

static int run_one(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_config *c,
                   int layout, ms_online_result *r, ms_error *err)
{
    ms_partition *parts = NULL;
    int rc = result_init(r, w->n);
    if (rc)
        return ms_error_set(err, rc, "out of memory for the online results");
    if (!c->dynamic) {
        parts = malloc((size_t)c->gpus * sizeof *parts);
        if (!parts)
            return ms_error_set(err, MS_ENOMEM, "out of memory for a static layout");
        rc = msi_build_layout(m, w, c, layout, parts, err);
    }
    if (!rc)
        rc = msi_run(m, w, c, parts, r, err);
    if (!rc)
        rc = aggregate(r, m, w);
    r->layout = c->dynamic ? MS_LAYOUT_BEST : layout;
    free(parts);
    return rc;
}

static int check_config(const ms_gpu_model *m, const ms_online_workload *w,
                        const ms_online_config *c, ms_error *err)
{
    if (c->gpus < 1 || c->gpus > (1 << 20))
        return ms_error_set(err, MS_EINVAL, "--gpus must be between 1 and %d", 1 << 20);
    if (!(c->tau >= 0 && c->tau <= 1))
        return ms_error_set(err, MS_EINVAL, "--tau must be in [0, 1]");
    if (!(c->kappa >= 0 && c->kappa < 1e6) || !(c->migration_cost >= 0 && c->migration_cost < 1e9))
        return ms_error_set(err, MS_EINVAL, "--kappa and the migration cost must be >= 0");
    if (c->queue < 0 || c->queue >= MS_QUEUE_COUNT ||
        (c->migration_rule != MS_MIGRATE_COST_AWARE && c->migration_rule != MS_MIGRATE_ALWAYS))
        return ms_error_set(err, MS_EINVAL, "unknown queue discipline or migration rule");
    if (!(c->reserve_after >= 0 && c->reserve_after < 1e9) || c->check_full_every < 0)
        return ms_error_set(err, MS_EINVAL,
                            "--reserve-after must be in [0, 1e9) s and the "
                            "full-check period >= 0");
    if (c->policy < 0 || c->policy >= MS_POLICY_COUNT || c->layout < MS_LAYOUT_BEST ||
        c->layout >= MS_LAYOUT_COUNT)
        return ms_error_set(err, MS_EINVAL, "unknown policy or layout");
    if (c->place) { /* migration and the reservation place by the built-in decision */
        const char *what = c->migration                   ? "departure migration (turn it off)"
                           : c->queue == MS_QUEUE_RESERVE ? "the reserve queue (take fcfs-profile "
                                                            "or fcfs)"
                           : !c->dynamic ? "a static layout (it partitions dynamically)"
                                         : NULL;
        if (what)
            return ms_error_set(err, MS_EINVAL, "a placement callback does not go with %s", what);
    }
    return msi_workload_check(m, w, err);
}

int ms_online_simulate(const ms_gpu_model *m, const ms_online_workload *w,
                       const ms_online_config *cfg, ms_online_result *r, ms_error *err)
{
    memset(r, 0, sizeof *r);
    int rc = check_config(m, w, cfg, err);
    if (rc)
        return rc;
    ms_online_config c = *cfg;
    if (c.place) /* the callback decides; the policy's keys, kept up to date, go unused */
        c.policy = MS_POLICY_FF_DYNAMIC;
    if (c.policy != MS_POLICY_FRAG) { /* the baselines use none of paper 002's techniques */
        c.balance = c.migration = false;
        c.dynamic = c.policy != MS_POLICY_FF_STATIC;
    }
    if (c.dynamic || c.layout != MS_LAYOUT_BEST)
        return run_one(m, w, &c, c.layout, r, err);
    rc = MS_EINFEASIBLE;
    for (int l = 0; l < MS_LAYOUT_COUNT; l++) {
        ms_online_result t;
        ms_error e;
        int lrc = run_one(m, w, &c, l, &t, &e);
        if (lrc == MS_EINFEASIBLE) { /* a layout without room for some profile */
            if (err && rc)
                *err = e;
            ms_online_result_fini(&t);
            continue;
        }
        if (lrc) {
            ms_online_result_fini(r);
            ms_online_result_fini(&t);
            if (err)
                *err = e;
            return lrc;
        }
        if (rc || t.mean_turnaround < r->mean_turnaround) {
            ms_online_result_fini(r);
            *r = t;
            rc = MS_OK;
        } else {
            ms_online_result_fini(&t);
        }
    }
    return rc;
}
