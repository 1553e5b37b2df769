/* cmd_online_cluster.h: `online simulate --nodes N`, the cluster mode of the simulate
 * command: its options (read by cmd_online.c's parser) and its run and output. */
#ifndef MIGSCHED_CLI_CMD_ONLINE_CLUSTER_H
#define MIGSCHED_CLI_CMD_ONLINE_CLUSTER_H

#include <stdbool.h>

#include "migsched/online.h"

typedef struct cluster_opts {
    bool on; /* --nodes given */
    int nodes, node_cpus;
    const char *policies;  /* --cluster-policy dynamic,static */
    const char *layout;    /* --static-layout SPEC|best */
    double train_fraction; /* --train-fraction */
    bool train_set;
    double load;                  /* --load, 0: as is */
    ms_online_slurm_timing slurm; /* --launch-overhead, --slurm-tick, --backfill-interval */
    bool summary_line;            /* --summary-line */
    const char *extra;            /* the last cluster option given (refused without --nodes) */
} cluster_opts;

void cluster_opts_defaults(cluster_opts *o);
/* Runs and prints the cluster mode on workload w with each node's placement `node`;
 * `save` (may be NULL) receives the evaluated stream as a trace CSV. Returns the exit
 * status. */
int cluster_simulate(const cluster_opts *o, const ms_gpu_model *m, const ms_online_workload *w,
                     const ms_online_config *node, bool json, const char *save);

#endif
