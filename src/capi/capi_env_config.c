/* capi_env_config.c: the environment's settings as the flat API takes them (a JSON object
 * with `migsched train`'s option names) and describes them. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "capi_env_internal.h"
#include "capi_internal.h"
#include "migsched/parse.h"

#define DEFAULT_PRESET "MIXEDSCALING,WIDETIMES"

static const char *const keys[] = {"n-batch",
                                   "levels",
                                   "encoding",
                                   "no-direct",
                                   "online",
                                   "async-reconfig",
                                   "longest-first",
                                   "soonest-placement",
                                   "keep-useless",
                                   "every-partition",
                                   "create-on-use",
                                   "task-classes",
                                   "preset",
                                   "tasks",
                                   NULL};

/* An integer setting in [lo, hi], left as it is when absent. */
static int get_int(json_t *o, const char *key, int lo, int hi, int *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return MS_OK;
    json_int_t x = json_is_integer(v) ? json_integer_value(v) : lo - 1;
    if (x < lo || x > hi)
        return msc_failf(MS_EINVAL, "environment settings: \"%s\" must be an integer %d..%d", key,
                         lo, hi);
    *out = (int)x;
    return MS_OK;
}

/* A boolean setting, left as it is when absent. */
static int get_bool(json_t *o, const char *key, bool *out)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return MS_OK;
    if (!json_is_boolean(v))
        return msc_failf(MS_EINVAL, "environment settings: \"%s\" must be true or false", key);
    *out = json_is_true(v);
    return MS_OK;
}

/* A string setting into buf, left as it is when absent. */
static int get_string(json_t *o, const char *key, char *buf, size_t len)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return MS_OK;
    if (!json_is_string(v) || strlen(json_string_value(v)) >= len)
        return msc_failf(MS_EINVAL,
                         "environment settings: \"%s\" must be a string (under %zu "
                         "bytes)",
                         key, len);
    strcpy(buf, json_string_value(v));
    return MS_OK;
}

static int read_settings(const ms_gpu_model *gpu, json_t *o, msc_env_settings *s)
{
    ms_error err;
    if (!json_is_object(o))
        return msc_failf(MS_EINVAL, "environment settings: not a JSON object");
    if (ms_json_check_keys(o, keys, "environment settings", &err))
        return msc_fail(&err);
    bool no_direct = !s->env.direct_reconfig;
    char encoding[16] = "float";
    int rc;
    if ((rc = get_int(o, "n-batch", 1, 64, &s->env.n_batch)) ||
        (rc = get_int(o, "levels", 1, 250, &s->env.levels)) ||
        (rc = get_string(o, "encoding", encoding, sizeof encoding)) ||
        (rc = get_bool(o, "no-direct", &no_direct)) ||
        (rc = get_bool(o, "online", &s->env.online)) ||
        (rc = get_bool(o, "async-reconfig", &s->env.async_reconfig)) ||
        (rc = get_bool(o, "longest-first", &s->env.longest_first)) ||
        (rc = get_bool(o, "soonest-placement", &s->env.soonest_placement)) ||
        (rc = get_bool(o, "keep-useless", &s->env.keep_useless)) ||
        (rc = get_bool(o, "every-partition", &s->env.every_partition)) ||
        (rc = get_bool(o, "create-on-use", &s->env.create_on_use)) ||
        (rc = get_bool(o, "task-classes", &s->env.task_classes)) ||
        (rc = get_string(o, "preset", s->preset, sizeof s->preset)))
        return rc;
    s->env.direct_reconfig = !no_direct;
    if (ms_env_encoding_parse(encoding, &s->env.encoding))
        return msc_failf(
            MS_EINVAL, "environment settings: encoding \"%s\" (float, one-hot or exact)", encoding);
    s->tasks = s->env.n_batch;
    if ((rc = get_int(o, "tasks", 1, 1 << 20, &s->tasks)))
        return rc;
    if (ms_gen_preset(gpu, s->preset, &s->gen, &err))
        return msc_fail(&err);
    return MS_OK;
}

int msc_env_settings_parse(const ms_gpu_model *gpu, const char *json, msc_env_settings *out)
{
    memset(out, 0, sizeof *out);
    ms_env_config_default(&out->env);
    snprintf(out->preset, sizeof out->preset, "%s", DEFAULT_PRESET);
    json_error_t jerr;
    json_t *o = json && *json ? json_loads(json, JSON_REJECT_DUPLICATES, &jerr) : json_object();
    if (!o)
        return msc_failf(MS_EINVAL, "environment settings: %s (column %d)", jerr.text, jerr.column);
    int rc = read_settings(gpu, o, out);
    json_decref(o);
    return rc;
}

int msc_env_settings_describe(const msc_env_settings *s, const ms_env *e, int num_envs, char **json)
{
    const ms_gpu_model *gpu = ms_env_gpu(e);
    json_t *sizes = json_array();
    for (int k = 0; k < gpu->nsizes; k++)
        json_array_append_new(sizes, json_integer(gpu->sizes[k]));
    const ms_env_config *c = &s->env;
    json_t *o = json_pack(
        "{si si si si so si si ss sb sb sb sb sb sb sb sb sb ss si sf sf}", "obs_size",
        ms_env_obs_size(e), "num_actions", ms_env_num_actions(e), "configurations",
        ms_env_canon(e)->n, "slices", gpu->slices, "sizes", sizes, "n_batch", c->n_batch, "levels",
        c->levels, "encoding", ms_env_encoding_name(c->encoding), "no_direct", !c->direct_reconfig,
        "online", c->online, "async_reconfig", c->async_reconfig, "longest_first", c->longest_first,
        "soonest_placement", c->soonest_placement, "keep_useless", c->keep_useless,
        "every_partition", c->every_partition, "create_on_use", c->create_on_use, "task_classes",
        c->task_classes, "preset", s->preset, "tasks", s->tasks, "obs_low", -1.0, "obs_high", 1.0);
    if (o && num_envs >= 1)
        json_object_set_new(o, "num_envs", json_integer(num_envs));
    return msc_json_text(o, json);
}
