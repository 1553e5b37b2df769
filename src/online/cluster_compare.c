/* cluster_compare.c: what `online simulate --nodes` runs: the trace scaled to an offered
 * load, a training part for the static layout when it is chosen, and each policy on the
 * same evaluated jobs. */
#include "cluster_internal.h"

#include <string.h>

void ms_online_cluster_outcome_fini(ms_online_cluster_outcome *o)
{
    ms_online_workload_fini(&o->eval);
    ms_online_cluster_result_fini(&o->dynamic);
    ms_online_cluster_result_fini(&o->statik);
}

int ms_online_cluster_compare(const ms_gpu_model *m, const ms_online_workload *w,
                              const ms_online_cluster_spec *spec, ms_online_cluster_outcome *out,
                              ms_error *err)
{
    memset(out, 0, sizeof *out);
    const ms_online_cluster_config *c = &spec->cfg;
    int64_t slices = (int64_t)c->nodes * c->node.gpus * m->slices;
    int cut = 0;
    if (spec->static_best && spec->statik) {
        if (!(spec->train_fraction > 0 && spec->train_fraction < 1))
            return ms_error_set(err, MS_EINVAL, "--train-fraction must be in (0, 1)");
        cut = (int)(spec->train_fraction * w->n);
        if (cut < 1 || cut >= w->n)
            return ms_error_set(err, MS_EINVAL,
                                "--train-fraction %g of %d jobs leaves no job to train or to "
                                "evaluate on",
                                spec->train_fraction, w->n);
    }
    ms_online_workload all, train = {0};
    int rc = ms_online_workload_range(w, 0, w->n, &all, err);
    if (!rc && spec->load > 0) { /* the scale that gives the evaluated jobs the load */
        double scale = 1;
        rc = ms_online_workload_range(w, cut, w->n, &train, err);
        if (!rc)
            rc = ms_online_load_scale(m, &train, slices, spec->load, &scale, err);
        ms_online_workload_fini(&train);
        ms_online_scale_arrivals(&all, scale);
    }
    if (!rc && cut)
        rc = ms_online_workload_range(&all, 0, cut, &train, err);
    if (!rc)
        rc = ms_online_workload_range(&all, cut, all.n, &out->eval, err);
    ms_online_workload_fini(&all);
    out->offered_load = rc ? NAN : ms_online_offered_load(m, &out->eval, slices);
    out->train_jobs = cut;
    out->statik_cfg = *c;
    out->statik_cfg.policy = MS_CLUSTER_STATIC;
    if (!rc && cut)
        rc = ms_online_cluster_best_layout(m, &train, &out->eval, &out->statik_cfg,
                                           &out->train_turnaround, &out->candidates, err);
    ms_online_workload_fini(&train);
    if (!rc && spec->dynamic) {
        ms_online_cluster_config d = *c;
        d.policy = MS_CLUSTER_DYNAMIC;
        rc = ms_online_cluster_simulate(m, &out->eval, &d, &out->dynamic, err);
    }
    if (!rc && spec->statik)
        rc = ms_online_cluster_simulate(m, &out->eval, &out->statik_cfg, &out->statik, err);
    if (rc)
        ms_online_cluster_outcome_fini(out);
    return rc;
}
