/* cluster_best.c: the static layout a site would pick from history: every candidate
 * simulated on a training part of the trace, the lowest mean turnaround kept. */
#include "cluster_internal.h"

#include <stdio.h>

/* The whole-GPU partition of the model (one instance of every slice). */
static int whole_gpu(const ms_gpu_model *m)
{
    char name[8];
    snprintf(name, sizeof name, "%d", m->slices);
    return ms_partition_parse(m, name);
}

/* Every job of w has a type on the layout. */
static bool serves(const ms_gpu_model *m, const ms_partition *layout, int gpus,
                   const ms_online_workload *w)
{
    bool seen[MS_MAX_PROFILES] = {false};
    for (int j = 0; j < w->n; j++) {
        int p = w->jobs[j].profile;
        if (!seen[p] && ms_online_cluster_type(m, layout, gpus, p) < 0)
            return false;
        seen[p] = true;
    }
    return true;
}

int ms_online_cluster_best_layout(const ms_gpu_model *m, const ms_online_workload *train,
                                  const ms_online_workload *eval, ms_online_cluster_config *c,
                                  double *turnaround, int *candidates, ms_error *err)
{
    int G = c->node.gpus, whole = whole_gpu(m);
    ms_online_cluster_config t = *c;
    t.policy = MS_CLUSTER_STATIC;
    double best = INFINITY;
    *candidates = 0;
    for (int p = 0; p < m->npartitions; p++)
        for (int k = 0; k < (p == whole || whole < 0 ? 1 : G); k++) {
            for (int g = 0; g < G; g++)
                t.layout[g] = m->partitions[g < G - k ? p : whole];
            if (!serves(m, t.layout, G, train) || !serves(m, t.layout, G, eval))
                continue;
            ms_online_cluster_result r;
            int rc = ms_online_cluster_simulate(m, train, &t, &r, err);
            if (rc)
                return rc;
            ++*candidates;
            if (r.all.mean_turnaround < best) {
                best = r.all.mean_turnaround;
                for (int g = 0; g < G; g++)
                    c->layout[g] = t.layout[g];
            }
            ms_online_cluster_result_fini(&r);
        }
    if (!*candidates)
        return ms_error_set(err, MS_EINFEASIBLE,
                            "no static layout of %s has an instance for every job", m->name);
    *turnaround = best;
    return MS_OK;
}
