/* offline.h: batch schedulers: FAR and the baselines of paper 000 6.5 / paper 001 5.3. */
#ifndef MIGSCHED_OFFLINE_H
#define MIGSCHED_OFFLINE_H

#include <stdbool.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* ---- Baselines (docs/baselines.md) ------------------------------------------------------
 * Each fills *out with a schedule that passes ms_schedule_validate, or returns
 * MS_EINFEASIBLE (with a message naming the task) when the policy cannot run the workload.
 * gpus >= 1 GPUs of the model. */

/* FIXPART(P): partition index `partition` of gpu->partitions set up before the plan on
 * every GPU (no reconfiguration cost); tasks in FIFO order, each on the first instance to
 * become free that can run it. */
int ms_fixpart_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus, int partition,
                        ms_schedule **out, ms_error *err);
/* FIXPARTBEST: FIXPART with the partition giving the lowest makespan (first on ties);
 * infeasible partitions are skipped. Stat "partition" = the 1-based partition chosen. */
int ms_fixpartbest_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                            ms_schedule **out, ms_error *err);
/* NOMIG: each GPU whole (its largest instance, present from the start), FIFO. */
int ms_nomig_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      ms_schedule **out, ms_error *err);
/* MISO-OPT: FIFO rounds; each round takes the partition maximising the summed speedups
 * t(1)/t(s) of the next |P| tasks under their best assignment, reconfigures only the
 * instances that change, and ends when its tasks are done. Stat "rounds". */
int ms_miso_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                     ms_schedule **out, ms_error *err);

/* By name: "miso", "nomig", "fixpartbest", "fixpart:4-2-1" or "fixpart:<1-based index>". */
bool ms_baseline_known(const char *algo);
int ms_baseline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                         int gpus, ms_schedule **out, ms_error *err);

#endif
