/* slurm_reconcile.h: a thread that every `period` seconds, while there are live
 * allocations, asks Slurm for its running jobs (slurm.h) and releases the allocations of
 * jobs that are gone; a failed query releases nothing (logged). Private to the daemon. */
#ifndef MIGSCHED_DAEMON_SLURM_RECONCILE_H
#define MIGSCHED_DAEMON_SLURM_RECONCILE_H

#include "engine.h"

typedef struct md_slurm_reconciler md_slurm_reconciler;
int md_slurm_reconciler_start(md_engine *e, double period, md_slurm_reconciler **out,
                              ms_error *err);
void md_slurm_reconciler_stop(md_slurm_reconciler *r);

#endif
