/* device_name.c: NVIDIA device names mapped to built-in GPU models, below the backends
 * that read the names. */
#include <string.h>

#include "migsched/exec.h"

/* Marketing names carry the family and sometimes the memory ("NVIDIA A100-SXM4-80GB",
 * "NVIDIA H100 80GB HBM3", "NVIDIA A30"); the fake NVML reports "NVIDIA <model>". */
const ms_gpu_model *ms_gpu_model_from_device_name(const char *name)
{
    static const struct {
        const char *family, *memory, *model;
    } rules[] = {
        {"A30", NULL, "A30-24GB"},     {"A100", "80GB", "A100-80GB"}, {"A100", NULL, "A100-40GB"},
        {"H100", "80GB", "H100-80GB"}, {"H200", NULL, "H200-141GB"},  {"B200", NULL, "B200"},
    };
    const char *bare = strncmp(name, "NVIDIA ", 7) ? name : name + 7;
    const ms_gpu_model *m = ms_gpu_builtin(bare);
    if (m)
        return m;
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (strstr(bare, rules[i].family) && (!rules[i].memory || strstr(bare, rules[i].memory)))
            return ms_gpu_builtin(rules[i].model);
    return NULL;
}
