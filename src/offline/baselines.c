/* baselines.c: the baselines by name ("miso", "nomig", "fixpartbest", "fixpart:P"). */
#include <string.h>

#include "migsched/offline.h"

static const char FIXPART_PREFIX[] = "fixpart:";

bool ms_baseline_known(const char *algo)
{
    return !strcmp(algo, "miso") || !strcmp(algo, "nomig") || !strcmp(algo, "fixpartbest") ||
           !strncmp(algo, FIXPART_PREFIX, sizeof FIXPART_PREFIX - 1);
}

int ms_baseline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu,
                         int gpus, ms_schedule **out, ms_error *err)
{
    if (!strcmp(algo, "miso"))
        return ms_miso_schedule(w, gpu, gpus, out, err);
    if (!strcmp(algo, "nomig"))
        return ms_nomig_schedule(w, gpu, gpus, out, err);
    if (!strcmp(algo, "fixpartbest"))
        return ms_fixpartbest_schedule(w, gpu, gpus, out, err);
    if (!strncmp(algo, FIXPART_PREFIX, sizeof FIXPART_PREFIX - 1)) {
        const char *spec = algo + sizeof FIXPART_PREFIX - 1;
        int k = ms_partition_parse(gpu, spec);
        if (k < 0)
            return ms_error_set(err, MS_EINVAL,
                                "'%s': '%s' is not a partition of %s (sizes in slot order "
                                "like 4-2-1, or a 1-based index; see migsched partitions)",
                                algo, spec, gpu->name);
        return ms_fixpart_schedule(w, gpu, gpus, k, out, err);
    }
    return ms_error_set(err, MS_EINVAL, "unknown baseline '%s'", algo);
}
