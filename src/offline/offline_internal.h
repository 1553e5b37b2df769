/* offline_internal.h: the algorithms of the registry's table (offline.c) and their run as it
 * does them, for the registry and for the schedulers that run others (optimal's incumbents,
 * search's starting schedules) without going through it by name. */
#ifndef MIGSCHED_OFFLINE_INTERNAL_H
#define MIGSCHED_OFFLINE_INTERNAL_H

#include "migsched/offline.h"

/* offline_algos.c: the algorithms whose own signature is not ms_offline_fn, behind it. */
int offline_far(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                const ms_offline_options *opt, ms_schedule **out, ms_error *err);
int offline_far_norefine(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_offline_options *opt, ms_schedule **out, ms_error *err);
int offline_miso(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                 const ms_offline_options *opt, ms_schedule **out, ms_error *err);
int offline_miso_eager(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_offline_options *opt, ms_schedule **out, ms_error *err);
int offline_fixpartbest(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err);
int offline_nomig(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                  const ms_offline_options *opt, ms_schedule **out, ms_error *err);

/* offline_run.c: runs `run` as ms_offline_schedule does: the initial instances the plan
 * leaves alone listed in *out, its stat compute_seconds set; on an error *out is NULL. */
int offline_run(ms_offline_fn run, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                const ms_offline_options *opt, ms_schedule **out, ms_error *err);
/* The same for the FIXPART baseline named `algo` ("fixpart:4-2-1"; ms_baseline_schedule). */
int offline_run_baseline(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_offline_options *opt, ms_schedule **out, ms_error *err);

#endif
