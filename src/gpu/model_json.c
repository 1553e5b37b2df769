/* model_json.c: loading a custom GPU model from JSON:
 * {"name": "X", "slots": 8, "slices": 7,
 *  "profiles": [{"name": "1g.5gb", "slices": 1, "memory_gb": 5, "size_slots": 1,
 *                "starts": [0,1,2,3,4,5,6], "nvml_index": 0}, ...],
 *  "reconfig": {"1": {"create": 0.16, "destroy": 0.20}, ...}} */
#include <ctype.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/gpu.h"
#include "migsched/io.h"

/* Bounds beyond which a field is a typo, not a GPU. */
#define MEMORY_GB_MAX  1e6
#define NVML_INDEX_MAX 63

static int get_int(json_t *obj, const char *key, int lo, int hi, int *out, const char *where,
                   ms_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
        return ms_error_set(err, MS_EINVAL, "%s: field '%s' must be an integer in %d..%d", where,
                            key, lo, hi);
    *out = (int)json_integer_value(v);
    return MS_OK;
}

/* A number in [0, hi] (hi = MS_TIME_MAX for times); above 0 when positive. */
static int get_number(json_t *obj, const char *key, bool positive, double hi, double *out,
                      const char *where, ms_error *err)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        return ms_error_set(err, MS_EINVAL, "%s: field '%s' is missing", where, key);
    double x = json_number_value(v);
    if (!json_is_number(v) || x < 0 || (positive && x == 0))
        return ms_error_set(err, MS_EINVAL, "%s: field '%s' must be a number %s 0", where, key,
                            positive ? ">" : ">=");
    if (x > hi)
        return ms_error_set(err, MS_EINVAL, "%s: field '%s' = %g is over the limit of %g", where,
                            key, x, hi);
    *out = x;
    return MS_OK;
}

static int parse_profile(json_t *jp, ms_profile *p, int slots, const char *where, ms_error *err)
{
    static const char *const keys[] = {"name",   "slices",     "memory_gb", "size_slots",
                                       "starts", "nvml_index", NULL};
    if (!json_is_object(jp))
        return ms_error_set(err, MS_EINVAL, "%s: must be an object", where);
    int rc = ms_json_check_keys(jp, keys, where, err);
    if (rc)
        return rc;
    const char *name = json_string_value(json_object_get(jp, "name"));
    if (!name || !*name || strlen(name) >= MS_NAME_LEN)
        return ms_error_set(err, MS_EINVAL, "%s: field 'name' must be a string of 1..%d characters",
                            where, MS_NAME_LEN - 1);
    strcpy(p->name, name);
    if ((rc = get_int(jp, "slices", 1, MS_MAX_SLICES, &p->slices, where, err)) ||
        (rc = get_number(jp, "memory_gb", true, MEMORY_GB_MAX, &p->memory_gb, where, err)) ||
        (rc = get_int(jp, "size_slots", 1, MS_MAX_SLOTS, &p->size_slots, where, err)))
        return rc;
    p->nvml_index = -1;
    if (json_object_get(jp, "nvml_index") &&
        (rc = get_int(jp, "nvml_index", -1, NVML_INDEX_MAX, &p->nvml_index, where, err)))
        return rc;
    json_t *starts = json_object_get(jp, "starts");
    if (!json_is_array(starts) || json_array_size(starts) == 0 ||
        json_array_size(starts) > MS_MAX_SLOTS)
        return ms_error_set(err, MS_EINVAL, "%s: field 'starts' must be an array of 1..%d slots",
                            where, MS_MAX_SLOTS);
    p->nstarts = (int)json_array_size(starts);
    for (int i = 0; i < p->nstarts; i++) {
        json_t *s = json_array_get(starts, (size_t)i);
        if (!json_is_integer(s) || json_integer_value(s) < 0 || json_integer_value(s) >= slots)
            return ms_error_set(err, MS_EINVAL, "%s: starts[%d] must be a slot 0..%d", where, i,
                                slots - 1);
        p->starts[i] = (int)json_integer_value(s);
        if (i && p->starts[i] <= p->starts[i - 1])
            return ms_error_set(
                err, MS_EINVAL, "%s: starts[%d]: slot %d %s", where, i, p->starts[i],
                p->starts[i] == p->starts[i - 1] ? "appears twice"
                                                 : "is below the one before (list them ascending)");
    }
    return MS_OK;
}

static int parse_reconfig(json_t *reconf, ms_gpu_model *m, ms_error *err)
{
    static const char *const keys[] = {"create", "destroy", NULL};
    if (!json_is_object(reconf))
        return ms_error_set(err, MS_EINVAL,
                            "field 'reconfig' must be an object keyed by size "
                            "(the create/destroy times of each)");
    const char *key;
    json_t *val;
    int rc;
    bool seen[MS_MAX_SLICES + 1] = {false};
    json_object_foreach(reconf, key, val)
    {
        char *end;
        long s = isdigit((unsigned char)key[0]) ? strtol(key, &end, 10) : 0;
        char where[48];
        snprintf(where, sizeof where, "reconfig[\"%.8s\"]", key);
        if (!s || *end || s > m->slices || m->base_profile[s] < 0)
            return ms_error_set(err, MS_EINVAL, "%s: key must be a compute size of a profile",
                                where);
        if (seen[s])
            return ms_error_set(err, MS_EINVAL, "%s: size %ld is given twice", where, s);
        seen[s] = true;
        if (!json_is_object(val))
            return ms_error_set(err, MS_EINVAL, "%s: must be an object", where);
        if ((rc = ms_json_check_keys(val, keys, where, err)) ||
            (rc = get_number(val, "create", false, MS_TIME_MAX, &m->create_s[s], where, err)) ||
            (rc = get_number(val, "destroy", false, MS_TIME_MAX, &m->destroy_s[s], where, err)))
            return rc;
    }
    for (int k = 0; k < m->nsizes; k++)
        if (!seen[m->sizes[k]])
            return ms_error_set(err, MS_EINVAL,
                                "reconfig: times of size %d are missing (every "
                                "profile size needs create and destroy)",
                                m->sizes[k]);
    return MS_OK;
}

/* A built-in name must mean the built-in geometry: plans name their GPU model, and a file
 * reusing the name with other slots or profiles would make them mean something else. Times
 * and memory may differ (a profiled model keeps its device's name). */
static int check_builtin_name(const ms_gpu_model *m, ms_error *err)
{
    const ms_gpu_model *b = ms_gpu_builtin(m->name);
    if (!b)
        return MS_OK;
    bool same = b->slots == m->slots && b->slices == m->slices && b->nprofiles == m->nprofiles;
    for (int i = 0; same && i < m->nprofiles; i++) {
        const ms_profile *p = &m->profiles[i];
        int j = ms_gpu_profile_by_name(b, p->name);
        same = j >= 0 && b->profiles[j].slices == p->slices &&
               b->profiles[j].size_slots == p->size_slots && b->profiles[j].nstarts == p->nstarts &&
               !memcmp(b->profiles[j].starts, p->starts, sizeof(int) * (size_t)p->nstarts);
    }
    if (!same)
        return ms_error_set(err, MS_EINVAL,
                            "field 'name': '%s' is the built-in %s, but the "
                            "slots, slices or profiles differ from it (give the model another "
                            "name)",
                            m->name, b->name);
    return MS_OK;
}

static int parse_model(json_t *root, ms_gpu_model *m, ms_error *err)
{
    static const char *const keys[] = {"name", "slots", "slices", "profiles", "reconfig", NULL};
    memset(m, 0, sizeof *m);
    if (!json_is_object(root))
        return ms_error_set(err, MS_EINVAL, "top level must be an object");
    int rc = ms_json_check_keys(root, keys, "model", err);
    if (rc)
        return rc;
    const char *name = json_string_value(json_object_get(root, "name"));
    if (!name || !*name || strlen(name) >= MS_NAME_LEN)
        return ms_error_set(err, MS_EINVAL, "field 'name' must be a string of 1..%d characters",
                            MS_NAME_LEN - 1);
    strcpy(m->name, name);
    if ((rc = get_int(root, "slots", 1, MS_MAX_SLOTS, &m->slots, "model", err)) ||
        (rc = get_int(root, "slices", 1, MS_MAX_SLICES, &m->slices, "model", err)))
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
        if ((rc = parse_profile(json_array_get(profiles, (size_t)i), &m->profiles[i], m->slots,
                                where, err)))
            return rc;
        for (int k = 0; k < i; k++)
            if (!strcmp(m->profiles[k].name, m->profiles[i].name))
                return ms_error_set(err, MS_EINVAL, "%s: name '%s' is also profiles[%d]'s", where,
                                    m->profiles[i].name, k);
    }
    /* The geometry first: it gives the sizes whose reconfiguration times are required. */
    if ((rc = ms_gpu_model_finish(m, err)) ||
        (rc = parse_reconfig(json_object_get(root, "reconfig"), m, err)) ||
        (rc = check_builtin_name(m, err)))
        return rc;
    return MS_OK;
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
