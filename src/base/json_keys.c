/* json_keys.c: refusing the keys of a JSON object that a reader does not know. */
#include "migsched/parse.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

int ms_json_check_keys(json_t *obj, const char *const *allowed, const char *where, ms_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        int k = 0;
        while (allowed[k] && strcmp(allowed[k], key))
            k++;
        if (!allowed[k]) {
            char list[160] = "";
            for (k = 0; allowed[k]; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                         allowed[k]);
            return ms_error_set(err, MS_EINVAL, "%s: unknown key \"%.40s\" (allowed: %s)", where,
                                key, list);
        }
    }
    return MS_OK;
}
