/* spank_mig_check.c: --mig against the cluster's GPU models, above the arguments
 * (spank_args.c). */
#include "spank_mig_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool model_has(const ms_gpu_model *m, const char *value)
{
    if (strspn(value, "0123456789") != strlen(value))
        return ms_gpu_profile_by_name(m, value) >= 0;
    long n = strtol(value, NULL, 10);
    return n >= 1 && n <= MS_MAX_SLICES && m->base_profile[n] >= 0;
}

int msp_check_mig(const msp_conf *conf, const char *value, char *err, size_t errlen)
{
    for (int i = 0; i < conf->nmodels; i++)
        if (model_has(ms_gpu_builtin(conf->models[i]), value))
            return 0;
    if (!conf->nmodels)
        return 0;
    bool slices = strspn(value, "0123456789") == strlen(value);
    int n = snprintf(
        err, errlen, "--mig=%.40s: no GPU model of this cluster has %s %.40s%s; valid:", value,
        slices ? "an instance of" : "the profile", value, slices ? " compute slices" : "");
    for (int i = 0; i < conf->nmodels && n > 0 && (size_t)n < errlen; i++) {
        const ms_gpu_model *m = ms_gpu_builtin(conf->models[i]);
        char sizes[MS_GPU_LIST_LEN], profiles[MS_GPU_LIST_LEN];
        ms_gpu_sizes_text(m, sizes, sizeof sizes);
        ms_gpu_profiles_text(m, profiles, sizeof profiles);
        n += snprintf(err + n, errlen - n, "%s %s: %s or a profile %s", i ? ";" : "", m->name,
                      sizes, profiles);
    }
    return -1;
}
