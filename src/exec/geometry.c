/* geometry.c: whether a model given by the caller is the one a device has (the nvml
 * device's built-in model, a sim state file's), so that profiled times still apply. */
#include <stdbool.h>

#include "backend.h"

/* A model loaded from JSON (e.g. with profiled times) fits a device whose built-in model has
 * the same slots, slices and profiles. */
bool exec_same_geometry(const ms_gpu_model *a, const ms_gpu_model *b)
{
    if (a->slots != b->slots || a->slices != b->slices || a->nprofiles != b->nprofiles)
        return false;
    for (int i = 0; i < b->nprofiles; i++) {
        int k = ms_gpu_profile_by_name(a, b->profiles[i].name);
        if (k < 0 || a->profiles[k].slices != b->profiles[i].slices ||
            a->profiles[k].size_slots != b->profiles[i].size_slots ||
            a->profiles[k].nvml_index != b->profiles[i].nvml_index)
            return false;
    }
    return true;
}
