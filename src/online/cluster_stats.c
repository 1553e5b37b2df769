/* cluster_stats.c: a cluster run's per-job results and what they add up to: waits and
 * turnarounds (mean, p50, p99) overall and by profile, makespan, slice utilisation and the
 * plugin waits. */
#include "cluster_internal.h"

#include <stdlib.h>
#include <string.h>

void ms_online_cluster_result_fini(ms_online_cluster_result *r)
{
    free(r->start);
    free(r->end);
    free(r->admitted);
    free(r->plugin_wait);
    free(r->node);
    free(r->type);
    memset(r, 0, sizeof *r);
}

int mcl_result_init(ms_online_cluster_result *r, int n)
{
    memset(r, 0, sizeof *r);
    size_t k = (size_t)(n > 0 ? n : 1);
    r->n = n;
    r->start = calloc(k, sizeof *r->start);
    r->end = calloc(k, sizeof *r->end);
    r->admitted = calloc(k, sizeof *r->admitted);
    r->plugin_wait = calloc(k, sizeof *r->plugin_wait);
    r->node = calloc(k, sizeof *r->node);
    r->type = calloc(k, sizeof *r->type);
    return r->start && r->end && r->admitted && r->plugin_wait && r->node && r->type ? MS_OK
                                                                                     : MS_ENOMEM;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Mean, p50 and p99 of the waits and turnarounds of the jobs of `profile` (-1: all);
 * wait and turn are scratch space for n values. */
static void stat_of(const ms_online_workload *w, const ms_online_cluster_result *r, int profile,
                    double *wait, double *turn, ms_online_cluster_stat *out)
{
    int k = 0;
    double ws = 0, ts = 0;
    for (int j = 0; j < w->n; j++)
        if (profile < 0 || w->jobs[j].profile == profile) {
            wait[k] = r->start[j] - w->jobs[j].arrival;
            turn[k] = r->end[j] - w->jobs[j].arrival;
            ws += wait[k];
            ts += turn[k++];
        }
    qsort(wait, (size_t)k, sizeof *wait, cmp_double);
    qsort(turn, (size_t)k, sizeof *turn, cmp_double);
    *out = (ms_online_cluster_stat){.n = k,
                                    .mean_wait = k ? ws / k : NAN,
                                    .p50_wait = ms_online_quantile(wait, k, 0.5),
                                    .p99_wait = ms_online_quantile(wait, k, 0.99),
                                    .mean_turnaround = k ? ts / k : NAN,
                                    .p50_turnaround = ms_online_quantile(turn, k, 0.5),
                                    .p99_turnaround = ms_online_quantile(turn, k, 0.99)};
}

int mcl_aggregate(const ms_gpu_model *m, const ms_online_workload *w, int64_t slices,
                  ms_online_cluster_result *r)
{
    double *wait = malloc((size_t)w->n * sizeof *wait), *turn = malloc((size_t)w->n * sizeof *turn);
    if (!wait || !turn) {
        free(wait);
        free(turn);
        return MS_ENOMEM;
    }
    stat_of(w, r, -1, wait, turn, &r->all);
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        if (p < m->nprofiles)
            stat_of(w, r, p, wait, turn, &r->by_profile[p]);
        else
            r->by_profile[p] = (ms_online_cluster_stat){0};
    free(wait);
    free(turn);
    double last = 0, held = 0;
    r->plugin_waits = 0;
    r->plugin_wait_total = r->plugin_wait_max = 0;
    for (int j = 0; j < w->n; j++) {
        last = r->end[j] > last ? r->end[j] : last;
        held += m->profiles[r->type[j]].slices * (r->end[j] - r->start[j]);
        if (r->plugin_wait[j] > 0) {
            r->plugin_waits++;
            r->plugin_wait_total += r->plugin_wait[j];
            if (r->plugin_wait[j] > r->plugin_wait_max)
                r->plugin_wait_max = r->plugin_wait[j];
        }
    }
    r->makespan = last - w->jobs[0].arrival;
    r->utilisation = r->makespan > 0 ? held / ((double)slices * r->makespan) : NAN;
    r->plugin_wait_mean = r->plugin_waits ? r->plugin_wait_total / r->plugin_waits : NAN;
    return MS_OK;
}
