/* cluster_internal.h: the cluster simulator's private types: Slurm's side (cluster_slurm.c:
 * counts per node, select/cons_tres's node choice, time limits and the backfill
 * reservation) and the loop over the nodes' simulators (cluster_sim.c). */
#ifndef MIGSCHED_ONLINE_CLUSTER_INTERNAL_H
#define MIGSCHED_ONLINE_CLUSTER_INTERNAL_H

#include "internal.h"

/* A job as Slurm accounts it on its node: `amount` of resource `res` until `end`, the
 * job's admission plus its time limit. */
typedef struct mcs_alloc {
    double end;
    int job, res, amount;
} mcs_alloc;

typedef struct mcs_node {
    int free[MS_MAX_PROFILES]; /* by resource: slices (dynamic) or instances of a type */
    int cpus;                  /* free CPUs */
    int nalloc, cap;
    mcs_alloc *alloc; /* by end, earliest first */
} mcs_node;

typedef struct mcs_slurm {
    int nodes, nres;
    mcs_node *node;
    msi_mintree most[MS_MAX_PROFILES]; /* per resource: the node with the most free first */
} mcs_slurm;

/* The backfill reservation of the oldest blocked job: `amount` of `res` on `node` from
 * `start`, when `extra` more of it will be free there. */
typedef struct mcs_resv {
    int node, res, amount, extra;
    double start;
} mcs_resv;

/* cluster_slurm.c */
int mcs_init(mcs_slurm *s, int nodes, int nres, const int *free, int cpus);
void mcs_free(mcs_slurm *s);
/* Some node has `amount` of res free and a free CPU. */
bool mcs_fits_somewhere(const mcs_slurm *s, int res, int amount);
bool mcs_anything_free(const mcs_slurm *s);
/* select/cons_tres's choice for a one-node job of one CPU (docs/online.md), -1 for none;
 * node `exclude` is not a candidate. */
int mcs_select(const mcs_slurm *s, int res, int amount, int exclude);
int mcs_allocate(mcs_slurm *s, int node, int job, int res, int amount, double end);
void mcs_release(mcs_slurm *s, int node, int job);
/* The node's count of res is now `total` (slurm-node's update): free is it less what the
 * node's jobs were given, below 0 while it is under that. */
void mcs_set_count(mcs_slurm *s, int node, int res, int total);
/* Where and when `amount` of res frees first from the time limits of the jobs there (a job
 * past its limit counts as ending now). */
void mcs_reserve(const mcs_slurm *s, int res, int amount, double now, mcs_resv *out);

/* cluster_stats.c: the per-job arrays for n jobs, and the aggregates of a run on a
 * cluster of `slices` compute slices. */
int mcl_result_init(ms_online_cluster_result *r, int n);
int mcl_aggregate(const ms_gpu_model *m, const ms_online_workload *w, int64_t slices,
                  ms_online_cluster_result *r);

/* cluster_sim.c: one run; per job the resource and amount it asks Slurm and the profile
 * its node places. */
int mcl_run(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_cluster_config *c,
            const int *res, const int *amount, const int *type, ms_online_cluster_result *r,
            ms_error *err);

#endif
