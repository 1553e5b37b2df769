/* cluster.c: ms_online_cluster_simulate: the two ways Slurm sees MIG GPUs set up over the
 * cluster simulator, dynamic (a count of compute slices; each node's migsched placement,
 * with its creation and destruction times) and static (a fixed layout; a count per
 * instance type, each job asking its type), and the run's aggregates. */
#include "cluster_internal.h"

#include <stdlib.h>
#include <string.h>

void ms_online_cluster_config_defaults(ms_online_cluster_config *c)
{
    *c = (ms_online_cluster_config){.policy = MS_CLUSTER_DYNAMIC, .nodes = 1, .node_cpus = 64};
    ms_online_config_defaults(&c->node);
    c->node.gpus = 1;
}

static int check(const ms_gpu_model *m, const ms_online_workload *w,
                 const ms_online_cluster_config *c, ms_error *err)
{
    if (c->nodes < 1 || c->nodes > 1000000)
        return ms_error_set(err, MS_EINVAL, "--nodes must be between 1 and 1000000");
    if (c->node.gpus < 1 || c->node.gpus > MS_CLUSTER_MAX_GPUS)
        return ms_error_set(err, MS_EINVAL, "a node holds 1 to %d GPUs", MS_CLUSTER_MAX_GPUS);
    if (c->node_cpus < 1 || c->node_cpus > 1000000)
        return ms_error_set(err, MS_EINVAL, "--node-cpus must be between 1 and 1000000");
    const ms_online_slurm_timing *t = &c->slurm;
    if (!(t->launch >= 0 && t->launch < 1e12 && t->tick >= 0 && t->tick < 1e12 &&
          t->backfill >= 0 && t->backfill < 1e12 && t->limit_unit >= 0 && t->limit_unit < 1e12))
        return ms_error_set(err, MS_EINVAL,
                            "Slurm's delays (--launch-overhead, --slurm-tick, --backfill-interval, "
                            "--time-limit-unit) "
                            "must be between 0 and 1e12 s");
    if (c->node.place)
        return ms_error_set(err, MS_EINVAL,
                            "the cluster's nodes place with the built-in policies, not a "
                            "placement callback");
    if (c->policy != MS_CLUSTER_DYNAMIC && c->policy != MS_CLUSTER_STATIC)
        return ms_error_set(err, MS_EINVAL, "unknown cluster policy %d", c->policy);
    if (c->policy == MS_CLUSTER_DYNAMIC && (c->node.policy == MS_POLICY_FF_STATIC ||
                                            (c->node.policy == MS_POLICY_FRAG && !c->node.dynamic)))
        return ms_error_set(err, MS_EINVAL,
                            "the dynamic cluster policy needs a node policy that partitions "
                            "dynamically");
    return msi_workload_check(m, w, err);
}

/* The node's own placement: migsched's policy for dynamic (the baselines without paper
 * 002's techniques, as ms_online_simulate runs them), first fit on the layout for static. */
static ms_online_cluster_config node_setup(const ms_online_cluster_config *in)
{
    ms_online_cluster_config c = *in;
    if (c.policy == MS_CLUSTER_STATIC) {
        c.node.policy = MS_POLICY_FF_STATIC;
        c.node.dynamic = false;
    }
    if (c.node.policy != MS_POLICY_FRAG) {
        c.node.balance = c.node.migration = false;
        c.node.dynamic = c.node.policy != MS_POLICY_FF_STATIC;
    }
    return c;
}

int ms_online_cluster_simulate(const ms_gpu_model *m, const ms_online_workload *w,
                               const ms_online_cluster_config *cfg, ms_online_cluster_result *r,
                               ms_error *err)
{
    memset(r, 0, sizeof *r);
    int rc = check(m, w, cfg, err);
    if (rc)
        return rc;
    ms_online_cluster_config c = node_setup(cfg);
    int *res = malloc((size_t)w->n * sizeof *res), *amount = malloc((size_t)w->n * sizeof *amount);
    int *type = malloc((size_t)w->n * sizeof *type);
    if (!res || !amount || !type || mcl_result_init(r, w->n))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory for the cluster simulation");
    for (int j = 0; !rc && j < w->n; j++) {
        int p = w->jobs[j].profile;
        bool typed = c.policy == MS_CLUSTER_STATIC;
        type[j] = typed ? ms_online_cluster_type(m, c.layout, c.node.gpus, p) : p;
        res[j] = typed ? type[j] : 0;
        amount[j] = typed ? 1 : m->profiles[p].slices;
        if (type[j] < 0)
            rc = ms_error_set(err, MS_EINFEASIBLE,
                              "job %d asks %s, and the static layout has no instance that "
                              "large",
                              j, m->profiles[p].name);
    }
    if (!rc)
        rc = mcl_run(m, w, &c, res, amount, type, r, err);
    int64_t slices = (int64_t)c.nodes * c.node.gpus * m->slices;
    if (!rc && mcl_aggregate(m, w, slices, r))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory for the cluster results");
    if (rc)
        ms_online_cluster_result_fini(r);
    free(res);
    free(amount);
    free(type);
    return rc;
}
