/* backend.c: the backend front door: picks nvml or sim, forwards calls and sorts
 * listings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"

static const exec_backend_ops *backend_ops(const char *kind, ms_error *err)
{
    static const exec_backend_ops *const all[] = {&exec_backend_nvml_ops, &exec_backend_sim_ops};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(kind, all[i]->kind))
            return all[i];
    ms_error_set(err, MS_EINVAL, "unknown backend '%s' (nvml or sim)", kind);
    return NULL;
}

int ms_backend_device_count(const char *kind, const ms_backend_options *opt, int *n, ms_error *err)
{
    const exec_backend_ops *ops = backend_ops(kind, err);
    ms_backend_options none = {0};
    *n = 0;
    return ops ? ops->count(opt ? opt : &none, n, err) : MS_EINVAL;
}

int ms_backend_open(const char *kind, int device, const ms_gpu_model *model,
                    const ms_backend_options *opt, ms_backend **out, ms_error *err)
{
    *out = NULL;
    const exec_backend_ops *ops = backend_ops(kind, err);
    if (!ops)
        return MS_EINVAL;
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
const char *ms_backend_gpu_uuid(const ms_backend *b) { return b->uuid; }

int ms_backend_gpu_minor(const ms_backend *b, unsigned *minor, ms_error *err)
{
    return b->ops->gpu_minor(b, minor, err);
}

int ms_backend_gpu_pci_bus_id(const ms_backend *b, char id[MS_PCI_BUS_ID_LEN], ms_error *err)
{
    return b->ops->gpu_pci_bus_id(b, id, err);
}

const char *ms_backend_geometry_name(const ms_backend *b)
{
    const ms_gpu_model *seen = ms_gpu_model_from_device_name(b->name);
    return seen ? seen->name : b->model.name;
}
const ms_gpu_model *ms_backend_model(const ms_backend *b) { return &b->model; }
const char *ms_backend_device_name(const ms_backend *b) { return b->name; }
int ms_backend_device(const ms_backend *b) { return b->device; }

int ms_backend_mig_mode(ms_backend *b, bool *enabled, ms_error *err)
{
    return b->ops->mig_mode(b, enabled, err);
}

static int cmp_pid(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

int ms_backend_enable_mig(ms_backend *b, ms_error *err) { return b->ops->set_mig(b, true, err); }
int ms_backend_disable_mig(ms_backend *b, ms_error *err) { return b->ops->set_mig(b, false, err); }

int ms_backend_processes(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n,
                         ms_error *err)
{
    *n = 0;
    int rc = b->ops->processes(b, gi_id, pids, max, n, err);
    if (rc)
        return rc;
    /* One PID may run on several compute instances of the GPU instance. */
    qsort(pids, (size_t)*n, sizeof *pids, cmp_pid);
    int k = 0;
    for (int i = 0; i < *n; i++)
        if (k == 0 || pids[k - 1] != pids[i])
            pids[k++] = pids[i];
    *n = k;
    return MS_OK;
}

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

int ms_backend_create_journaled(ms_backend *b, ms_journal *j, ms_placement p, ms_mig_instance *out,
                                ms_error *err)
{
    if (!ms_gpu_placement_allowed(&b->model, p))
        return ms_error_set(err, MS_EINVAL,
                            "device %d: profile %d at slot %d is not an allowed placement",
                            b->device, p.profile, p.start);
    memset(out, 0, sizeof *out);
    return b->ops->create(b, p, j, out, err);
}

int ms_backend_create(ms_backend *b, ms_placement p, ms_mig_instance *out, ms_error *err)
{
    return ms_backend_create_journaled(b, NULL, p, out, err);
}

int ms_backend_destroy(ms_backend *b, unsigned gi_id, ms_error *err)
{
    return b->ops->destroy(b, gi_id, err);
}

bool ms_mig_same_instance(const ms_mig_instance *was, const ms_mig_instance *now)
{
    /* Without a MIG device the profile is all that tells two instances on one place apart. */
    return was->gi_id == now->gi_id && was->start_slot == now->start_slot &&
           was->size_slots == now->size_slots && !strcmp(was->uuid, now->uuid) &&
           (was->uuid[0] || was->profile == now->profile);
}

static void describe(const ms_backend *b, const ms_mig_instance *in, char *buf, size_t len)
{
    snprintf(buf, len, "%s at slots %d-%d, %s",
             in->profile >= 0 && in->profile < b->model.nprofiles
                 ? b->model.profiles[in->profile].name
                 : "unknown profile",
             in->start_slot, in->start_slot + in->size_slots - 1,
             in->uuid[0] ? in->uuid : "no MIG device");
}

/* A failed destroy may have removed the compute instances (and with them the MIG device
 * UUID) before the GPU instance refused: what is left at that id and placement is still
 * the caller's, now known by no UUID. */
static void forget_compute_instances(ms_backend *b, ms_mig_instance *was)
{
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    if (ms_backend_list(b, list, &n, NULL) != MS_OK)
        return;
    ms_mig_instance bare = *was;
    bare.uuid[0] = '\0';
    for (int i = 0; i < n; i++)
        if (ms_mig_same_instance(&bare, &list[i]))
            was->uuid[0] = '\0';
}

int ms_backend_destroy_owned(ms_backend *b, ms_journal *j, ms_mig_instance *was, ms_error *err)
{
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    int rc = ms_backend_list(b, list, &n, err);
    if (rc)
        return rc;
    char before[200], now[200];
    describe(b, was, before, sizeof before);
    for (int i = 0; i < n; i++) {
        if (list[i].gi_id != was->gi_id)
            continue;
        if (ms_mig_same_instance(was, &list[i])) {
            /* Goes ahead if the record cannot be written (a broken journal stops its run,
             * which must still remove its instances): without it a crash in the middle
             * leaves remains a recovery cannot prove ours, reported and left alone. */
            ms_journal_destroying(j, b->device, &b->model, &list[i], NULL);
            rc = ms_backend_destroy(b, was->gi_id, err);
            if (rc)
                forget_compute_instances(b, was);
            return rc;
        }
        describe(b, &list[i], now, sizeof now);
        return ms_error_set(err, MS_ECHANGED,
                            "device %d changed: GPU instance %u is no longer the one migsched "
                            "created (%s); it is now %s and is left alone",
                            b->device, was->gi_id, before, now);
    }
    return ms_error_set(err, MS_ECHANGED,
                        "device %d changed: GPU instance %u (%s) was destroyed by someone else",
                        b->device, was->gi_id, before);
}
