/* workload_json.c: workload JSON reader and writer ({"gpu": ..., "tasks": [...]}) on jansson. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/io.h"
#include "migsched/workload.h"
#include "workload_internal.h"

/* Where a reader is: the source name and the JSON path of the task being read. */
typedef struct json_ctx {
    const char *source;
    const ms_gpu_model *gpu;
    int index;      /* task index */
    char shown[48]; /* scratch for quoting a value */
} json_ctx;

static int bad_key(json_ctx *c, const char *where, const char *key, const char *allowed,
                   ms_error *err)
{
    return ms_error_set(err, MS_EINVAL, "%s: %s: unknown key \"%s\" (allowed: %s)", c->source,
                        where, wl_quote(key, c->shown, sizeof c->shown), allowed);
}

/* One entry of "times": key a compute size, value a positive number, null or "inf". */
static int parse_time(json_ctx *c, const char *key, json_t *v, double *time, ms_error *err)
{
    char sizes[64], path[96];
    snprintf(path, sizeof path, "tasks[%d].times[\"%s\"]", c->index,
             wl_quote(key, c->shown, sizeof c->shown));
    int size = 0;
    if (strlen(key) == 1 && key[0] >= '1' && key[0] <= '0' + MS_MAX_SLICES)
        size = key[0] - '0';
    if (!size)
        return ms_error_set(err, MS_EINVAL, "%s: %s: key is not a compute size (1..%d)", c->source,
                            path, MS_MAX_SLICES);
    if (c->gpu && ms_gpu_size_index(c->gpu, size) < 0)
        return ms_error_set(err, MS_EINVAL, "%s: %s: %d is not a compute size of %s (%s)",
                            c->source, path, size, c->gpu->name,
                            wl_sizes_text(c->gpu, sizes, sizeof sizes));
    const char *why = NULL;
    double x = INFINITY;
    if (json_is_number(v)) {
        x = json_number_value(v);
        if (x < 0 || (x == 0 && signbit(x)))
            why = "is negative (times must be positive seconds)";
        else if (x == 0)
            why = "is zero (times must be positive seconds)";
        else
            why = ms_time_check(x);
    } else if (json_is_string(v)) {
        const char *text = json_string_value(v);
        if (strcasecmp(text, "inf") && strcasecmp(text, "infinity"))
            why = "must be a positive number, null or \"inf\" (got a string)";
    } else if (!json_is_null(v)) {
        why = "must be a positive number, null or \"inf\"";
    }
    if (why)
        return ms_error_set(err, MS_EINVAL, "%s: %s: time %s", c->source, path, why);
    time[size] = x;
    return MS_OK;
}

static int parse_times(json_ctx *c, json_t *times, double *time, ms_error *err)
{
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = INFINITY;
    if (!json_is_object(times))
        return ms_error_set(
            err, MS_EINVAL,
            "%s: tasks[%d].times: must be an object like {\"1\": 22.3, \"2\": 11.5}", c->source,
            c->index);
    const char *key;
    json_t *v;
    json_object_foreach(times, key, v)
    {
        int rc = parse_time(c, key, v, time, err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

/* "command" and "cwd": a string, null or absent. */
static int optional_string(json_ctx *c, json_t *task, const char *key, const char **out,
                           ms_error *err)
{
    json_t *v = json_object_get(task, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return MS_OK;
    if (!json_is_string(v))
        return ms_error_set(err, MS_EINVAL, "%s: tasks[%d].%s: must be a string or null", c->source,
                            c->index, key);
    *out = json_string_value(v);
    return MS_OK;
}

static int parse_task(json_ctx *c, json_t *task, ms_workload *w, ms_error *err)
{
    char where[32];
    snprintf(where, sizeof where, "tasks[%d]", c->index);
    if (!json_is_object(task))
        return ms_error_set(err, MS_EINVAL, "%s: %s: must be an object", c->source, where);
    const char *key;
    json_t *v;
    json_object_foreach(task, key, v)
    {
        if (strcmp(key, "name") && strcmp(key, "times") && strcmp(key, "command") &&
            strcmp(key, "cwd"))
            return bad_key(c, where, key, "name, times, command, cwd", err);
    }
    json_t *name = json_object_get(task, "name");
    if (!json_is_string(name) || !*json_string_value(name))
        return ms_error_set(err, MS_EINVAL, "%s: %s.name: %s", c->source, where,
                            name ? "must be a non-empty string" : "missing");
    double time[MS_MAX_SLICES + 1];
    json_t *times = json_object_get(task, "times");
    if (!times)
        return ms_error_set(err, MS_EINVAL, "%s: %s.times: missing", c->source, where);
    const char *command, *cwd;
    int rc = parse_times(c, times, time, err);
    if (!rc)
        rc = optional_string(c, task, "command", &command, err);
    if (!rc)
        rc = optional_string(c, task, "cwd", &cwd, err);
    if (rc)
        return rc;
    if (!wl_task_fits(time, c->gpu))
        return ms_error_set(err, MS_EINVAL,
                            "%s: %s (\"%s\"): no finite time: it cannot run on any instance "
                            "size%s%s",
                            c->source, where,
                            wl_quote(json_string_value(name), c->shown, sizeof c->shown),
                            c->gpu ? " of " : "", c->gpu ? c->gpu->name : "");
    return ms_workload_add(w, json_string_value(name), time, command, cwd, err);
}

static int parse_tasks(json_ctx *c, json_t *tasks, ms_workload *w, ms_error *err)
{
    if (!json_is_array(tasks) || json_array_size(tasks) == 0)
        return ms_error_set(err, MS_EINVAL, "%s: tasks: %s", c->source,
                            tasks ? "must be a non-empty array of tasks" : "missing");
    wl_name_set names;
    wl_name_set_init(&names);
    int rc = wl_name_set_reserve(&names, json_array_size(tasks))
                 ? ms_error_set(err, MS_ENOMEM, "%s: out of memory", c->source)
                 : MS_OK;
    for (size_t i = 0; i < json_array_size(tasks) && !rc; i++) {
        c->index = (int)i;
        if ((rc = parse_task(c, json_array_get(tasks, i), w, err)))
            break;
        long first;
        int dup = wl_name_set_add(&names, w->tasks[w->n - 1].name, (long)i, &first);
        if (dup < 0)
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", c->source);
        else if (dup)
            rc = ms_error_set(err, MS_EINVAL,
                              "%s: tasks[%zu].name: duplicate task name \"%s\" "
                              "(first at tasks[%ld])",
                              c->source, i,
                              wl_quote(w->tasks[w->n - 1].name, c->shown, sizeof c->shown), first);
    }
    wl_name_set_free(&names);
    return rc;
}

static int parse_root(json_ctx *c, json_t *root, ms_workload *w, ms_error *err)
{
    if (!json_is_object(root))
        return ms_error_set(err, MS_EINVAL,
                            "%s: the top level must be an object {\"gpu\": ..., \"tasks\": [...]}",
                            c->source);
    const char *key;
    json_t *v;
    json_object_foreach(root, key, v)
    {
        if (strcmp(key, "gpu") && strcmp(key, "tasks"))
            return bad_key(c, "top level", key, "gpu, tasks", err);
    }
    json_t *gpu = json_object_get(root, "gpu");
    if (gpu && !json_is_null(gpu)) {
        if (!json_is_string(gpu) || strlen(json_string_value(gpu)) >= sizeof w->gpu)
            return ms_error_set(err, MS_EINVAL,
                                "%s: gpu: must be a model name of at most %zu "
                                "characters",
                                c->source, sizeof w->gpu - 1);
        strcpy(w->gpu, json_string_value(gpu));
    }
    return parse_tasks(c, json_object_get(root, "tasks"), w, err);
}

int ms_workload_parse_json(const char *text, size_t len, const char *source,
                           const ms_gpu_model *gpu, ms_workload **out, ms_error *err)
{
    *out = NULL;
    json_ctx c = {.source = source ? source : "<json>", .gpu = gpu};
    json_error_t je;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) { /* jansson rejects a BOM */
        text += 3;
        len -= 3;
    }
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s:%d:%d: invalid JSON: %s", c.source, je.line,
                            je.column, je.text);
    ms_workload *w = ms_workload_new();
    int rc = w ? parse_root(&c, root, w, err)
               : ms_error_set(err, MS_ENOMEM, "%s: out of memory", c.source);
    json_decref(root);
    if (rc) {
        ms_workload_free(w);
        return rc;
    }
    *out = w;
    return MS_OK;
}

/* NULL when a string is not valid UTF-8 (jansson refuses it) or memory runs out. */
static json_t *task_json(const ms_task *t, const int *size, int nsizes)
{
    json_t *times = json_object();
    for (int k = 0; times && k < nsizes; k++) {
        char key[4];
        snprintf(key, sizeof key, "%d", size[k]);
        double x = t->time[size[k]];
        json_object_set_new(times, key, isfinite(x) ? json_real(x) : json_null());
    }
    json_t *o = json_pack("{s:s, s:o}", "name", t->name, "times", times);
    if (o && ((t->command && json_object_set_new(o, "command", json_string(t->command))) ||
              (t->cwd && json_object_set_new(o, "cwd", json_string(t->cwd))))) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* 15 significant digits when they reproduce every time exactly (readable), else 17. */
static int real_precision(const ms_workload *w, const int *size, int nsizes)
{
    for (int i = 0; i < w->n; i++)
        for (int k = 0; k < nsizes; k++) {
            double x = w->tasks[i].time[size[k]];
            char buf[32];
            snprintf(buf, sizeof buf, "%.15g", x);
            if (isfinite(x) && strtod(buf, NULL) != x)
                return 17;
        }
    return 15;
}

int ms_workload_write_json(const ms_workload *w, const ms_gpu_model *gpu, FILE *f, ms_error *err)
{
    int size[MS_MAX_SLICES], nsizes = wl_columns(w, gpu, size);
    json_t *root = json_object(), *tasks = json_array();
    const char *model = gpu ? gpu->name : w->gpu;
    if (*model)
        json_object_set_new(root, "gpu", json_string(model));
    json_object_set_new(root, "tasks", tasks);
    int rc = MS_OK;
    for (int i = 0; i < w->n && !rc; i++)
        if (json_array_append_new(tasks, task_json(&w->tasks[i], size, nsizes))) {
            char shown[48];
            rc = ms_error_set(err, MS_EINVAL,
                              "task %d ('%s'): its name, command or cwd is not "
                              "valid UTF-8 (or memory ran out)",
                              i, wl_quote(w->tasks[i].name, shown, sizeof shown));
        }
    int flags = JSON_INDENT(2) | JSON_REAL_PRECISION(real_precision(w, size, nsizes));
    if (!rc && (json_dumpf(root, f, flags) || fputc('\n', f) == EOF))
        rc = ms_error_set(err, MS_EIO, "cannot write the workload");
    json_decref(root);
    return rc;
}
