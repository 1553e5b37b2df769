/* model_json.c: loading a custom GPU model from JSON:
 * {"name": "X", "slots": 8, "slices": 7,
 *  "profiles": [{"name": "1g.5gb", "slices": 1, "memory_gb": 5, "size_slots": 1,
 *                "starts": [0,1,2,3,4,5,6], "nvml_index": 0}, ...],
 *  "reconfig": {"1": {"create": 0.16, "destroy": 0.20}, ...}} */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/gpu.h"
#include "migsched/io.h"

static int get_int(json_t *obj, const char *key, int *out, const char *where, ms_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        return ms_error_set(err, MS_EINVAL, "%s: field '%s' must be an integer", where, key);
    *out = (int)json_integer_value(v);
    return MS_OK;
}

static int get_number(json_t *obj, const char *key, double *out, const char *where, ms_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_number(v))
        return ms_error_set(err, MS_EINVAL, "%s: field '%s' must be a number", where, key);
    *out = json_number_value(v);
    return MS_OK;
}

static int parse_profile(json_t *jp, ms_profile *p, const char *where, ms_error *err)
{
    if (!json_is_object(jp))
        return ms_error_set(err, MS_EINVAL, "%s: must be an object", where);
    const char *name = json_string_value(json_object_get(jp, "name"));
    if (!name || !*name || strlen(name) >= MS_NAME_LEN)
        return ms_error_set(err, MS_EINVAL, "%s: field 'name' must be a string of 1..%d characters",
                            where, MS_NAME_LEN - 1);
    strcpy(p->name, name);
    int rc;
    if ((rc = get_int(jp, "slices", &p->slices, where, err)) ||
        (rc = get_number(jp, "memory_gb", &p->memory_gb, where, err)) ||
        (rc = get_int(jp, "size_slots", &p->size_slots, where, err)))
        return rc;
    json_t *nv = json_object_get(jp, "nvml_index");
    p->nvml_index = json_is_integer(nv) ? (int)json_integer_value(nv) : -1;
    json_t *starts = json_object_get(jp, "starts");
    if (!json_is_array(starts) || json_array_size(starts) == 0 ||
        json_array_size(starts) > MS_MAX_SLOTS)
        return ms_error_set(err, MS_EINVAL, "%s: field 'starts' must be an array of 1..%d slots",
                            where, MS_MAX_SLOTS);
    p->nstarts = (int)json_array_size(starts);
    for (int i = 0; i < p->nstarts; i++) {
        json_t *s = json_array_get(starts, (size_t)i);
        if (!json_is_integer(s))
            return ms_error_set(err, MS_EINVAL, "%s: starts[%d] must be an integer", where, i);
        p->starts[i] = (int)json_integer_value(s);
    }
    return MS_OK;
}

static int parse_model(json_t *root, ms_gpu_model *m, ms_error *err)
{
    memset(m, 0, sizeof *m);
    if (!json_is_object(root))
        return ms_error_set(err, MS_EINVAL, "top level must be an object");
    const char *name = json_string_value(json_object_get(root, "name"));
    if (!name || !*name || strlen(name) >= MS_NAME_LEN)
        return ms_error_set(err, MS_EINVAL, "field 'name' must be a string of 1..%d characters",
                            MS_NAME_LEN - 1);
    strcpy(m->name, name);
    int rc;
    if ((rc = get_int(root, "slots", &m->slots, "model", err)) ||
        (rc = get_int(root, "slices", &m->slices, "model", err)))
        return rc;
    json_t *profiles = json_object_get(root, "profiles");
    if (!json_is_array(profiles) || json_array_size(profiles) == 0 ||
        json_array_size(profiles) > MS_MAX_PROFILES)
        return ms_error_set(err, MS_EINVAL, "field 'profiles' must be an array of 1..%d profiles",
                            MS_MAX_PROFILES);
    m->nprofiles = (int)json_array_size(profiles);
    for (int i = 0; i < m->nprofiles; i++) {
        char where[48];
        snprintf(where, sizeof where, "profiles[%d]", i);
        if ((rc = parse_profile(json_array_get(profiles, (size_t)i), &m->profiles[i], where, err)))
            return rc;
    }
    json_t *reconf = json_object_get(root, "reconfig");
    if (reconf && !json_is_object(reconf))
        return ms_error_set(err, MS_EINVAL, "field 'reconfig' must be an object keyed by size");
    const char *key;
    json_t *val;
    json_object_foreach(reconf, key, val) {
        char *end;
        long s = strtol(key, &end, 10);
        char where[48];
        snprintf(where, sizeof where, "reconfig[\"%.8s\"]", key);
        if (*end || s < 1 || s > MS_MAX_SLICES)
            return ms_error_set(err, MS_EINVAL, "%s: key must be a size 1..%d", where, MS_MAX_SLICES);
        if ((rc = get_number(val, "create", &m->create_s[s], where, err)) ||
            (rc = get_number(val, "destroy", &m->destroy_s[s], where, err)))
            return rc;
    }
    return ms_gpu_model_finish(m, err);
}

int ms_gpu_parse_json(const char *text, size_t len, const char *source, ms_gpu_model *out,
                      ms_error *err)
{
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s:%d:%d: %s", source, jerr.line, jerr.column,
                            jerr.text);
    ms_gpu_model m;
    int rc = parse_model(root, &m, err);
    json_decref(root);
    if (rc) {
        ms_error_prefix(err, "%s", source);
        return rc;
    }
    *out = m;
    return MS_OK;
}

int ms_gpu_load_json(const char *path, ms_gpu_model *out, ms_error *err)
{
    char *buf;
    size_t len;
    int rc = ms_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = ms_gpu_parse_json(buf, len, path, out, err);
    free(buf);
    return rc;
}
