/* rl.c: the learned scheduler (paper 001) behind the offline entry point: loads the
 * policy file named in the options and runs it greedily. */
#include "migsched/learn.h"
#include "migsched/offline.h"

int ms_rl_offline_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                           const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    if (!opt->model)
        return ms_error_set(err, MS_EINVAL, "rl: a policy file is required (--model FILE)");
    if (gpus != 1)
        return ms_error_set(err, MS_EINVAL, "rl: the learned policy schedules one GPU, not %d",
                            gpus);
    ms_rl_model m;
    if (ms_model_load(opt->model, &m, err))
        return err ? err->code : MS_EINVAL;
    int rc = ms_rl_schedule(&m, gpu, w, opt->online, out, err);
    if (rc)
        ms_error_prefix(err, "%s", opt->model);
    ms_model_destroy(&m);
    return rc;
}
