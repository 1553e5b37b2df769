/* capi_gpu.c: GPU models through the flat API: the built-in ones, JSON model files, and a
 * model's geometry described as JSON. */
#include <jansson.h>
#include <stdlib.h>

#include "capi_internal.h"

int msc_gpu_builtin_count(void) { return ms_gpu_builtin_count(); }

const char *msc_gpu_builtin_name(int i)
{
    return i >= 0 && i < ms_gpu_builtin_count() ? ms_gpu_builtin_at(i)->name : NULL;
}

static int keep(ms_gpu_model *g, int rc, const ms_error *err, ms_gpu_model **out)
{
    if (rc) {
        free(g);
        return msc_fail(err);
    }
    *out = g;
    return 0;
}

int msc_gpu_lookup(const char *name_or_path, ms_gpu_model **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(name_or_path);
    ms_gpu_model *g = malloc(sizeof *g);
    if (!g)
        return msc_failf(MS_ENOMEM, "out of memory");
    ms_error err;
    return keep(g, ms_gpu_lookup(name_or_path, g, &err), &err, out);
}

int msc_gpu_parse_json(const char *text, size_t len, const char *source, ms_gpu_model **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(text);
    ms_gpu_model *g = malloc(sizeof *g);
    if (!g)
        return msc_failf(MS_ENOMEM, "out of memory");
    ms_error err;
    return keep(g, ms_gpu_parse_json(text, len, source ? source : "<gpu>", g, &err), &err, out);
}

void msc_gpu_free(ms_gpu_model *g) { free(g); }

static json_t *int_array(const int *v, int n)
{
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_integer(v[i]));
    return a;
}

/* Seconds by compute size, for the sizes the model has. */
static json_t *by_size(const ms_gpu_model *g, const double *seconds)
{
    json_t *o = json_object();
    for (int k = 0; k < g->nsizes; k++) {
        char key[8];
        snprintf(key, sizeof key, "%d", g->sizes[k]);
        json_object_set_new(o, key, json_real(seconds[g->sizes[k]]));
    }
    return o;
}

static json_t *describe(const ms_gpu_model *g)
{
    json_t *profiles = json_array();
    for (int i = 0; i < g->nprofiles; i++) {
        const ms_profile *p = &g->profiles[i];
        json_array_append_new(profiles,
                              json_pack("{s:s, s:i, s:f, s:i, s:o}", "name", p->name, "slices",
                                        p->slices, "memory_gb", p->memory_gb, "size_slots",
                                        p->size_slots, "starts", int_array(p->starts, p->nstarts)));
    }
    json_t *partitions = json_array();
    for (int i = 0; i < g->npartitions; i++) {
        char text[64];
        ms_partition_format(g, &g->partitions[i], text, sizeof text);
        json_array_append_new(partitions, json_string(text));
    }
    return json_pack("{s:s, s:i, s:i, s:o, s:o, s:o, s:o, s:o}", "name", g->name, "slots", g->slots,
                     "slices", g->slices, "sizes", int_array(g->sizes, g->nsizes), "profiles",
                     profiles, "partitions", partitions, "create_s", by_size(g, g->create_s),
                     "destroy_s", by_size(g, g->destroy_s));
}

int msc_gpu_describe(const ms_gpu_model *g, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(g);
    json_t *o = describe(g);
    return msc_json_text(o, json);
}
