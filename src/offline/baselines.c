/* baselines.c: FIXPART by name ("fixpart:4-2-1", "fixpart:3"). */
#include <string.h>

#include "migsched/offline.h"

static const char FIXPART_PREFIX[] = "fixpart:";

bool ms_baseline_known(const char *algo)
{
    return !strncmp(algo, FIXPART_PREFIX, sizeof FIXPART_PREFIX - 1);
}

int ms_baseline_schedule(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                         const ms_initial *initial, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    if (!strncmp(algo, FIXPART_PREFIX, sizeof FIXPART_PREFIX - 1)) {
        const char *spec = algo + sizeof FIXPART_PREFIX - 1;
        int k = ms_partition_parse(gpu, spec);
        if (k < 0)
            return ms_error_set(err, MS_EINVAL,
                                "'%s': '%s' is not a partition of %s (sizes in slot order "
                                "like 4-2-1, or a 1-based index; see migsched partitions)",
                                algo, spec, gpu->name);
        return ms_fixpart_schedule(w, gpu, gpus, initial, k, out, err);
    }
    return ms_error_set(err, MS_EINVAL, "'%s' is not fixpart:P", algo);
}
