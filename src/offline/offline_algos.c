/* offline_algos.c: FAR with and without refinement and the baselines behind the registry's
 * one signature (ms_offline_fn), the options they read taken from ms_offline_options. */
#include "offline_internal.h"

int offline_far(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    ms_offline_options o = *opt;
    o.far.refine = 1;
    return ms_far_schedule(w, gpu, gpus, &o, out, err);
}

int offline_far_norefine(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    ms_offline_options o = *opt;
    o.far.refine = 0;
    return ms_far_schedule(w, gpu, gpus, &o, out, err);
}

int offline_miso(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                 const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_miso_schedule(w, gpu, gpus, opt->initial, out, err);
}

int offline_miso_eager(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_miso_eager_schedule(w, gpu, gpus, opt->initial, out, err);
}

int offline_fixpartbest(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                        const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_fixpartbest_schedule(w, gpu, gpus, opt->initial, out, err);
}

int offline_nomig(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                  const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    return ms_nomig_schedule(w, gpu, gpus, opt->initial, out, err);
}
