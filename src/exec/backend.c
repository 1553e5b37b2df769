/* backend.c: the backend front door: picks nvml or sim, forwards calls, sorts listings,
 * and maps NVIDIA device names to built-in models. */
#include <stdlib.h>
#include <string.h>

#include "backend.h"

int ms_backend_open(const char *kind, int device, const ms_gpu_model *model,
                    const ms_backend_options *opt, ms_backend **out, ms_error *err)
{
    static const ms_backend_ops *const all[] = {&ms_backend_nvml_ops, &ms_backend_sim_ops};
    const ms_backend_ops *ops = NULL;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(kind, all[i]->kind))
            ops = all[i];
    if (!ops)
        return ms_error_set(err, MS_EINVAL, "unknown backend '%s' (nvml or sim)", kind);
    if (device < 0)
        return ms_error_set(err, MS_EINVAL, "device index %d must be >= 0", device);
    ms_backend_options none = {0};
    ms_backend *b = calloc(1, sizeof *b);
    if (!b)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening a backend");
    b->ops = ops;
    b->device = device;
    int rc = ops->open(b, opt ? opt : &none, model, err);
    if (rc) {
        free(b);
        return rc;
    }
    *out = b;
    return MS_OK;
}

void ms_backend_close(ms_backend *b)
{
    if (!b)
        return;
    b->ops->close(b);
    free(b);
}

const char *ms_backend_kind(const ms_backend *b) { return b->ops->kind; }
const ms_gpu_model *ms_backend_model(const ms_backend *b) { return &b->model; }
const char *ms_backend_device_name(const ms_backend *b) { return b->name; }
int ms_backend_device(const ms_backend *b) { return b->device; }

int ms_backend_mig_mode(ms_backend *b, bool *enabled, ms_error *err)
{
    return b->ops->mig_mode(b, enabled, err);
}

int ms_backend_enable_mig(ms_backend *b, ms_error *err) { return b->ops->enable_mig(b, err); }

static int cmp_start(const void *a, const void *b)
{
    const ms_mig_instance *x = a, *y = b;
    if (x->start_slot != y->start_slot)
        return x->start_slot - y->start_slot;
    return (x->gi_id > y->gi_id) - (x->gi_id < y->gi_id);
}

int ms_backend_list(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n, ms_error *err)
{
    *n = 0;
    int rc = b->ops->list(b, out, n, err);
    if (rc == MS_OK)
        qsort(out, (size_t)*n, sizeof *out, cmp_start);
    return rc;
}

int ms_backend_create(ms_backend *b, ms_placement p, ms_mig_instance *out, ms_error *err)
{
    if (!ms_gpu_placement_allowed(&b->model, p))
        return ms_error_set(err, MS_EINVAL, "device %d: profile %d at slot %d is not an allowed placement",
                            b->device, p.profile, p.start);
    memset(out, 0, sizeof *out);
    return b->ops->create(b, p, out, err);
}

int ms_backend_destroy(ms_backend *b, unsigned gi_id, ms_error *err)
{
    return b->ops->destroy(b, gi_id, err);
}

/* Marketing names carry the family and sometimes the memory ("NVIDIA A100-SXM4-80GB",
 * "NVIDIA H100 80GB HBM3", "NVIDIA A30"); the fake NVML reports "NVIDIA <model>". */
const ms_gpu_model *ms_gpu_model_from_device_name(const char *name)
{
    static const struct {
        const char *family, *memory, *model;
    } rules[] = {
        {"A30", NULL, "A30-24GB"},     {"A100", "80GB", "A100-80GB"},
        {"A100", NULL, "A100-40GB"},   {"H100", "80GB", "H100-80GB"},
        {"H200", NULL, "H200-141GB"},  {"B200", NULL, "B200"},
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
