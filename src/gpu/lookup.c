/* lookup.c: a GPU model by built-in name or by the path of a JSON model file, above the
 * built-in table (models.c) and the JSON loader (model_json.c). */
#include <stdio.h>
#include <string.h>

#include "migsched/gpu.h"

int ms_gpu_lookup(const char *name_or_path, ms_gpu_model *out, ms_error *err)
{
    const ms_gpu_model *m = ms_gpu_builtin(name_or_path);
    if (m) {
        *out = *m;
        return MS_OK;
    }
    FILE *f = fopen(name_or_path, "r");
    if (!f) {
        char names[256] = "";
        for (int i = 0; i < ms_gpu_builtin_count(); i++) {
            strncat(names, i ? ", " : "", sizeof names - strlen(names) - 1);
            strncat(names, ms_gpu_builtin_at(i)->name, sizeof names - strlen(names) - 1);
        }
        return ms_error_set(err, MS_EINVAL,
                            "unknown GPU model '%s' (built-in: %s; or a JSON model file)",
                            name_or_path, names);
    }
    fclose(f);
    return ms_gpu_load_json(name_or_path, out, err);
}
