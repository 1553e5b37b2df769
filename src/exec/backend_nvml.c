/* backend_nvml.c: the nvml backend: dlopen of libnvidia-ml.so.1, a table of entry points
 * filled with dlsym (a missing one is reported, never called), every return code checked
 * and turned into a message naming the call and the device. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "nvml_types.h"

#define NVML_DEFAULT_LIBRARY "libnvidia-ml.so.1"

typedef struct nvml_api {
#define X(ret, name, params) ret(*name) params;
    MS_NVML_ENTRY_POINTS(X)
#undef X
} nvml_api;

typedef struct nvml_impl {
    void *lib;
    char path[256];
    nvml_api api;
    nvmlDevice_t dev;
    bool initialized;
    int minor_rc; /* the GPU's minor number, or why NVML gave none */
    unsigned minor;
    ms_error minor_err;
} nvml_impl;

/* NVML's own strings when nvmlErrorString exists; ours (from the documented names) if not. */
static const char *nvml_strerror(const nvml_impl *n, nvmlReturn_t r)
{
    if (n->api.nvmlErrorString)
        return n->api.nvmlErrorString(r);
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient Resources";
    default: return "Unknown Error";
    }
}

/* One call through the table: a missing symbol becomes FUNCTION_NOT_FOUND. */
#define NVML_CALL(n, fn, ...) \
    ((n)->api.fn ? (n)->api.fn(__VA_ARGS__) : (nvmlReturn_t)NVML_ERROR_FUNCTION_NOT_FOUND)

static int nvml_fail(const ms_backend *b, nvmlReturn_t r, const char *call, ms_error *err,
                     const char *what)
{
    const nvml_impl *n = b->impl;
    if (r == NVML_ERROR_FUNCTION_NOT_FOUND)
        return ms_error_set(err, MS_EBACKEND,
                            "device %d: %s: %s does not export %s (driver too old?)", b->device,
                            what, n->path, call);
    const char *hint = r == NVML_ERROR_NO_PERMISSION
                           ? " (MIG changes need root or the mig/config capability)"
                           : "";
    return ms_error_set(err, MS_EBACKEND, "device %d: %s: %s failed: %s (NVML error %d)%s",
                        b->device, what, call, nvml_strerror(n, r), r, hint);
}

static int load_library(nvml_impl *n, const ms_backend_options *opt, ms_error *err)
{
    const char *path = opt->nvml_library ? opt->nvml_library : getenv("MIGSCHED_NVML_LIBRARY");
    if (!path || !*path)
        path = NVML_DEFAULT_LIBRARY;
    snprintf(n->path, sizeof n->path, "%s", path);
    dlerror();
    n->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!n->lib)
        return ms_error_set(err, MS_EBACKEND,
                            "cannot load NVML (%s): %s; is the NVIDIA driver installed?", path,
                            dlerror());
#define X(ret, name, params) *(void **)&n->api.name = dlsym(n->lib, #name);
    MS_NVML_ENTRY_POINTS(X)
#undef X
    /* Without these nothing works; the others are reported when a call needs them. */
    const struct {
        const char *name;
        void *fn;
    } required[] = {
        {"nvmlInit_v2", (void *)n->api.nvmlInit_v2},
        {"nvmlShutdown", (void *)n->api.nvmlShutdown},
        {"nvmlDeviceGetCount_v2", (void *)n->api.nvmlDeviceGetCount_v2},
        {"nvmlDeviceGetHandleByIndex_v2", (void *)n->api.nvmlDeviceGetHandleByIndex_v2},
        {"nvmlDeviceGetName", (void *)n->api.nvmlDeviceGetName},
    };
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!required[i].fn)
            return ms_error_set(err, MS_EBACKEND, "%s does not export %s (not an NVML library?)",
                                path, required[i].name);
    return MS_OK;
}

/* Kept for ms_backend_gpu_minor: only device isolation needs it, so its failure fails
 * nothing else. */
static void read_minor(ms_backend *b)
{
    nvml_impl *n = b->impl;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetMinorNumber, n->dev, &n->minor);
    n->minor_rc = r == NVML_SUCCESS ? MS_OK
                                    : nvml_fail(b, r, "nvmlDeviceGetMinorNumber", &n->minor_err,
                                                "reading the GPU's minor number");
}

static int nvml_gpu_minor(const ms_backend *b, unsigned *minor, ms_error *err)
{
    const nvml_impl *n = b->impl;
    if (n->minor_rc)
        return ms_error_set(err, n->minor_rc, "%s", n->minor_err.msg);
    *minor = n->minor;
    return MS_OK;
}

static int nvml_gpu_pci_bus_id(const ms_backend *b, char id[MS_PCI_BUS_ID_LEN], ms_error *err)
{
    const nvml_impl *n = b->impl;
    nvmlPciInfo_t pci;
    memset(&pci, 0, sizeof pci);
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetPciInfo_v3, n->dev, &pci);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetPciInfo_v3", err, "reading the GPU's PCI bus id");
    pci.busId[sizeof pci.busId - 1] = '\0'; /* documented as terminated; not relied on */
    snprintf(id, MS_PCI_BUS_ID_LEN, "%s", pci.busId);
    return MS_OK;
}

static int open_device(ms_backend *b, const ms_gpu_model *model, ms_error *err)
{
    nvml_impl *n = b->impl;
    nvmlReturn_t r = n->api.nvmlInit_v2();
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlInit_v2", err, "initialising NVML");
    n->initialized = true;
    unsigned count = 0;
    if ((r = n->api.nvmlDeviceGetCount_v2(&count)) != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetCount_v2", err, "counting GPUs");
    if ((unsigned)b->device >= count)
        return ms_error_set(err, MS_EINVAL, "device %d does not exist (NVML sees %u GPU%s)",
                            b->device, count, count == 1 ? "" : "s");
    if ((r = n->api.nvmlDeviceGetHandleByIndex_v2((unsigned)b->device, &n->dev)) != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetHandleByIndex_v2", err, "opening the GPU");
    if ((r = n->api.nvmlDeviceGetName(n->dev, b->name, sizeof b->name)) != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetName", err, "reading the GPU name");
    /* The lock key: indices can change across reboots, the UUID does not. */
    if ((r = NVML_CALL(n, nvmlDeviceGetUUID, n->dev, b->uuid, sizeof b->uuid)) != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetUUID", err, "reading the GPU UUID");
    read_minor(b);
    const ms_gpu_model *seen = ms_gpu_model_from_device_name(b->name);
    if (model && seen && !exec_same_geometry(seen, model))
        return ms_error_set(err, MS_EINVAL, "device %d is a %s (%s), not a %s", b->device, b->name,
                            seen->name, model->name);
    if (!model && !seen)
        return ms_error_set(err, MS_EINVAL,
                            "device %d (%s) is not a known MIG model; name one with --gpu",
                            b->device, b->name);
    b->model = model ? *model : *seen;
    return MS_OK;
}

static void nvml_close(ms_backend *b)
{
    nvml_impl *n = b->impl;
    if (!n)
        return;
    if (n->initialized)
        n->api.nvmlShutdown();
    if (n->lib)
        dlclose(n->lib);
    free(n);
    b->impl = NULL;
}

static int nvml_open(ms_backend *b, const ms_backend_options *opt, const ms_gpu_model *model,
                     ms_error *err)
{
    nvml_impl *n = calloc(1, sizeof *n);
    if (!n)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening NVML");
    b->impl = n;
    int rc = load_library(n, opt, err);
    if (rc == MS_OK)
        rc = open_device(b, model, err);
    if (rc)
        nvml_close(b);
    return rc;
}

static int nvml_mig_mode(ms_backend *b, bool *enabled, ms_error *err)
{
    nvml_impl *n = b->impl;
    unsigned cur = 0, pending = 0;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetMigMode, n->dev, &cur, &pending);
    if (r == NVML_ERROR_NOT_SUPPORTED)
        return ms_error_set(err, MS_EBACKEND, "device %d (%s) does not support MIG", b->device,
                            b->name);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetMigMode", err, "reading MIG mode");
    *enabled = cur == NVML_DEVICE_MIG_ENABLE;
    return MS_OK;
}

static int nvml_set_mig(ms_backend *b, bool on, ms_error *err)
{
    nvml_impl *n = b->impl;
    nvmlReturn_t activation = NVML_SUCCESS;
    unsigned mode = on ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceSetMigMode, n->dev, mode, &activation);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceSetMigMode", err,
                         on ? "enabling MIG mode" : "disabling MIG mode");
    /* The call can succeed with the change only pending (activationStatus says why):
     * what counts is the current mode read back. */
    bool now = !on;
    int rc = nvml_mig_mode(b, &now, err);
    if (rc)
        return rc;
    read_minor(b); /* the change may have reset the GPU */
    if (now != on)
        return ms_error_set(err, MS_EBACKEND,
                            "device %d: MIG mode %s is pending (activation: %s); stop every GPU "
                            "client and reset the GPU (nvidia-smi -r) or reboot",
                            b->device, on ? "enable" : "disable", nvml_strerror(n, activation));
    return MS_OK;
}

/* NVML profile info of a model profile (by its NVML_GPU_INSTANCE_PROFILE_* index). */
static int gi_profile_info(ms_backend *b, int profile, nvmlGpuInstanceProfileInfo_t *info,
                           ms_error *err)
{
    nvml_impl *n = b->impl;
    const ms_profile *pr = &b->model.profiles[profile];
    if (pr->nvml_index < 0)
        return ms_error_set(err, MS_EINVAL, "device %d: profile %s has no NVML profile index",
                            b->device, pr->name);
    memset(info, 0, sizeof *info);
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetGpuInstanceProfileInfo, n->dev,
                               (unsigned)pr->nvml_index, info);
    char what[96];
    snprintf(what, sizeof what, "looking up profile %s", pr->name);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetGpuInstanceProfileInfo", err, what);
    if ((int)info->sliceCount != pr->slices)
        return ms_error_set(err, MS_EBACKEND,
                            "device %d: NVML profile index %d has %u slices, model says %s has %d",
                            b->device, pr->nvml_index, info->sliceCount, pr->name, pr->slices);
    return MS_OK;
}

/* Fills gi_id, placement, profile and the first CI's id and MIG UUID of one GI. */
static int describe_gi(ms_backend *b, nvmlGpuInstance_t gi, int profile, ms_mig_instance *out,
                       ms_error *err);

/* Scans every NVML profile index (not only the model's: a foreign instance may use a
 * profile migsched does not schedule, such as +me) until NVML says INVALID_ARGUMENT. */
static int nvml_list(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n_out, ms_error *err)
{
    nvml_impl *n = b->impl;
    for (unsigned idx = 0; idx < 64; idx++) {
        nvmlGpuInstanceProfileInfo_t info;
        memset(&info, 0, sizeof info);
        nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetGpuInstanceProfileInfo, n->dev, idx, &info);
        if (r == NVML_ERROR_INVALID_ARGUMENT)
            break;
        if (r == NVML_ERROR_NOT_SUPPORTED)
            continue;
        if (r != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlDeviceGetGpuInstanceProfileInfo", err,
                             "listing GPU instances");
        int profile = -1;
        for (int p = 0; p < b->model.nprofiles; p++)
            if (b->model.profiles[p].nvml_index == (int)idx)
                profile = p;
        nvmlGpuInstance_t gis[MS_MAX_MIG];
        unsigned count = MS_MAX_MIG;
        r = NVML_CALL(n, nvmlDeviceGetGpuInstances, n->dev, info.id, gis, &count);
        if (r != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlDeviceGetGpuInstances", err, "listing GPU instances");
        for (unsigned i = 0; i < count && *n_out < MS_MAX_MIG; i++) {
            int rc = describe_gi(b, gis[i], profile, &out[*n_out], err);
            if (rc)
                return rc;
            (*n_out)++;
        }
    }
    return MS_OK;
}

/* Calls fn on every MIG device handle of GPU instance gi_id, walking the parent's handles
 * (NOT_FOUND holes are normal). fn returns MS_OK to go on, MS_STOP to end the walk, or an
 * error. */
#define MS_STOP (-1)
typedef int (*mig_visit)(ms_backend *b, nvmlDevice_t mig, unsigned ci_id, void *arg, ms_error *err);

static int each_mig(ms_backend *b, unsigned gi_id, const char *what, mig_visit fn, void *arg,
                    ms_error *err)
{
    nvml_impl *n = b->impl;
    unsigned max = 0;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetMaxMigDeviceCount, n->dev, &max);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetMaxMigDeviceCount", err, what);
    for (unsigned i = 0; i < max; i++) {
        nvmlDevice_t mig;
        r = NVML_CALL(n, nvmlDeviceGetMigDeviceHandleByIndex, n->dev, i, &mig);
        if (r == NVML_ERROR_NOT_FOUND)
            continue;
        if (r != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlDeviceGetMigDeviceHandleByIndex", err, what);
        unsigned g = 0, c = 0;
        if ((r = NVML_CALL(n, nvmlDeviceGetGpuInstanceId, mig, &g)) != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlDeviceGetGpuInstanceId", err, what);
        if (g != gi_id)
            continue;
        if ((r = NVML_CALL(n, nvmlDeviceGetComputeInstanceId, mig, &c)) != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlDeviceGetComputeInstanceId", err, what);
        int rc = fn(b, mig, c, arg, err);
        if (rc)
            return rc == MS_STOP ? MS_OK : rc;
    }
    return MS_OK;
}

typedef struct uuid_query {
    unsigned ci_id;
    char *uuid;
    unsigned len;
    bool found;
} uuid_query;

static int note_uuid(ms_backend *b, nvmlDevice_t mig, unsigned ci_id, void *arg, ms_error *err)
{
    nvml_impl *n = b->impl;
    uuid_query *q = arg;
    if (ci_id != q->ci_id)
        return MS_OK;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetUUID, mig, q->uuid, q->len);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetUUID", err, "reading the MIG device UUID");
    q->found = true;
    return MS_STOP;
}

/* The UUID of the MIG device for (gi_id, ci_id). */
static int mig_uuid(ms_backend *b, unsigned gi_id, unsigned ci_id, char *uuid, unsigned len,
                    ms_error *err)
{
    uuid_query q = {ci_id, uuid, len, false};
    int rc = each_mig(b, gi_id, "finding the MIG device", note_uuid, &q, err);
    if (rc == MS_OK && !q.found)
        rc = ms_error_set(err, MS_EBACKEND,
                          "device %d: no MIG device for GPU instance %u / compute instance %u",
                          b->device, gi_id, ci_id);
    return rc;
}

/* Calls fn on every compute instance of gi (scanning CI profile indices until NVML says
 * INVALID_ARGUMENT); stops at the first failure. */
typedef int (*ci_visit)(ms_backend *b, nvmlComputeInstance_t ci, void *arg, ms_error *err);

static int each_ci(ms_backend *b, nvmlGpuInstance_t gi, ci_visit fn, void *arg, ms_error *err)
{
    nvml_impl *n = b->impl;
    for (unsigned idx = 0; idx < 16; idx++) {
        nvmlComputeInstanceProfileInfo_t info;
        nvmlReturn_t r = NVML_CALL(n, nvmlGpuInstanceGetComputeInstanceProfileInfo, gi, idx,
                                   NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &info);
        if (r == NVML_ERROR_INVALID_ARGUMENT)
            break;
        if (r == NVML_ERROR_NOT_SUPPORTED)
            continue;
        if (r != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlGpuInstanceGetComputeInstanceProfileInfo", err,
                             "listing compute instances");
        nvmlComputeInstance_t cis[MS_MAX_SLICES];
        unsigned count = MS_MAX_SLICES;
        r = NVML_CALL(n, nvmlGpuInstanceGetComputeInstances, gi, info.id, cis, &count);
        if (r != NVML_SUCCESS)
            return nvml_fail(b, r, "nvmlGpuInstanceGetComputeInstances", err,
                             "listing compute instances");
        for (unsigned i = 0; i < count; i++) {
            int rc = fn(b, cis[i], arg, err);
            if (rc)
                return rc;
        }
    }
    return MS_OK;
}

static int note_ci(ms_backend *b, nvmlComputeInstance_t ci, void *arg, ms_error *err)
{
    nvml_impl *n = b->impl;
    ms_mig_instance *out = arg;
    nvmlComputeInstanceInfo_t info;
    memset(&info, 0, sizeof info);
    nvmlReturn_t r = NVML_CALL(n, nvmlComputeInstanceGetInfo_v2, ci, &info);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlComputeInstanceGetInfo_v2", err, "reading a compute instance");
    if (out->nci++ == 0) {
        out->ci_id = info.id;
        return mig_uuid(b, out->gi_id, info.id, out->uuid, sizeof out->uuid, err);
    }
    return MS_OK;
}

static int describe_gi(ms_backend *b, nvmlGpuInstance_t gi, int profile, ms_mig_instance *out,
                       ms_error *err)
{
    nvml_impl *n = b->impl;
    nvmlGpuInstanceInfo_t info;
    memset(&info, 0, sizeof info);
    nvmlReturn_t r = NVML_CALL(n, nvmlGpuInstanceGetInfo, gi, &info);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlGpuInstanceGetInfo", err, "reading a GPU instance");
    memset(out, 0, sizeof *out);
    out->gi_id = info.id;
    out->profile = profile;
    out->start_slot = (int)info.placement.start;
    out->size_slots = (int)info.placement.size;
    return each_ci(b, gi, note_ci, out, err);
}

static int destroy_ci(ms_backend *b, nvmlComputeInstance_t ci, void *arg, ms_error *err)
{
    nvml_impl *n = b->impl;
    nvmlReturn_t r = NVML_CALL(n, nvmlComputeInstanceDestroy, ci);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlComputeInstanceDestroy", err, arg);
    return MS_OK;
}

/* Compute instances first: NVML refuses (IN_USE) to destroy a GI that still has one. */
static int destroy_gi(ms_backend *b, nvmlGpuInstance_t gi, const char *what, ms_error *err)
{
    nvml_impl *n = b->impl;
    int rc = each_ci(b, gi, destroy_ci, (void *)what, err);
    if (rc)
        return rc;
    nvmlReturn_t r = NVML_CALL(n, nvmlGpuInstanceDestroy, gi);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlGpuInstanceDestroy", err, what);
    return MS_OK;
}

static int nvml_create(ms_backend *b, ms_placement p, ms_journal *j, ms_mig_instance *out,
                       ms_error *err)
{
    nvml_impl *n = b->impl;
    const ms_profile *pr = &b->model.profiles[p.profile];
    nvmlGpuInstanceProfileInfo_t info;
    int rc = gi_profile_info(b, p.profile, &info, err);
    if (rc)
        return rc;
    char what[96];
    snprintf(what, sizeof what, "creating %s at slot %d", pr->name, p.start);
    nvmlGpuInstancePlacement_t place = {(unsigned)p.start, (unsigned)pr->size_slots};
    nvmlGpuInstance_t gi;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceCreateGpuInstanceWithPlacement, n->dev, info.id, &place,
                               &gi);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceCreateGpuInstanceWithPlacement", err, what);
    /* Recorded before its compute instance is made: a crash from here on leaves a GPU
     * instance the journal names as ours (its id, slots and profile). */
    ms_mig_instance made;
    bool recorded = false;
    if (j && !(rc = describe_gi(b, gi, p.profile, &made, err)))
        recorded = !(rc = ms_journal_gi_made(j, b->device, &b->model, &made, err));
    nvmlComputeInstanceProfileInfo_t ci_info;
    nvmlComputeInstance_t ci;
    int ci_index = nvml_ci_profile_index(pr->slices);
    if (!rc &&
        (r = NVML_CALL(n, nvmlGpuInstanceGetComputeInstanceProfileInfo, gi, (unsigned)ci_index,
                       NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &ci_info)) != NVML_SUCCESS)
        rc = nvml_fail(b, r, "nvmlGpuInstanceGetComputeInstanceProfileInfo", err, what);
    else if (!rc && (r = NVML_CALL(n, nvmlGpuInstanceCreateComputeInstance, gi, ci_info.id, &ci)) !=
                        NVML_SUCCESS)
        rc = nvml_fail(b, r, "nvmlGpuInstanceCreateComputeInstance", err, what);
    else if (!rc)
        rc = describe_gi(b, gi, p.profile, out, err);
    if (rc) {
        /* Leave nothing half-made behind; the first error is the one reported. */
        ms_error second;
        if (destroy_gi(b, gi, what, &second)) {
            if (err) {
                char first[MS_ERR_LEN];
                memcpy(first, err->msg, sizeof first);
                ms_error_set(err, rc, "%.240s; cleaning up also failed: %.240s", first, second.msg);
            }
        } else if (recorded) {
            ms_journal_destroyed(j, b->device, made.gi_id, NULL);
        }
    }
    return rc;
}

static int nvml_destroy(ms_backend *b, unsigned gi_id, ms_error *err)
{
    nvml_impl *n = b->impl;
    char what[64];
    snprintf(what, sizeof what, "destroying GPU instance %u", gi_id);
    nvmlGpuInstance_t gi;
    nvmlReturn_t r = NVML_CALL(n, nvmlDeviceGetGpuInstanceById, n->dev, gi_id, &gi);
    if (r != NVML_SUCCESS)
        return nvml_fail(b, r, "nvmlDeviceGetGpuInstanceById", err, what);
    return destroy_gi(b, gi, what, err);
}

typedef struct pid_list {
    unsigned *pids;
    int max, *n;
} pid_list;

/* Appends the compute processes of one MIG device; the count is asked first and asked
 * again if processes started in between (INSUFFICIENT_SIZE). */
static int mig_processes(ms_backend *b, nvmlDevice_t mig, unsigned ci_id, void *arg, ms_error *err)
{
    nvml_impl *nv = b->impl;
    pid_list *l = arg;
    const char *call = "nvmlDeviceGetComputeRunningProcesses_v3", *what = "listing processes";
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned count = 0;
        nvmlReturn_t r = NVML_CALL(nv, nvmlDeviceGetComputeRunningProcesses_v3, mig, &count, NULL);
        if (r == NVML_SUCCESS)
            return MS_OK; /* none */
        if (r != NVML_ERROR_INSUFFICIENT_SIZE)
            return nvml_fail(b, r, call, err, what);
        count += 8; /* room for processes starting meanwhile */
        nvmlProcessInfo_t *info = calloc(count, sizeof *info);
        if (!info)
            return ms_error_set(err, MS_ENOMEM, "out of memory listing processes");
        r = NVML_CALL(nv, nvmlDeviceGetComputeRunningProcesses_v3, mig, &count, info);
        if (r == NVML_SUCCESS)
            for (unsigned i = 0; i < count && *l->n < l->max; i++)
                l->pids[(*l->n)++] = info[i].pid;
        free(info);
        if (r == NVML_SUCCESS)
            return MS_OK;
        if (r != NVML_ERROR_INSUFFICIENT_SIZE)
            return nvml_fail(b, r, call, err, what);
    }
    return ms_error_set(err, MS_EBACKEND,
                        "device %d: the processes on a MIG device kept changing while listed",
                        b->device);
}

/* Per-instance lists come from the MIG device handles (on the parent device only
 * privileged callers see them, aggregated). */
static int nvml_processes(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n,
                          ms_error *err)
{
    pid_list l = {pids, max, n};
    return each_mig(b, gi_id, "listing processes", mig_processes, &l, err);
}

static int nvml_count(const ms_backend_options *opt, int *out, ms_error *err)
{
    ms_backend tmp = {.ops = &exec_backend_nvml_ops};
    nvml_impl *n = calloc(1, sizeof *n);
    if (!n)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening NVML");
    tmp.impl = n;
    int rc = load_library(n, opt, err);
    nvmlReturn_t r;
    if (rc == MS_OK && (r = n->api.nvmlInit_v2()) != NVML_SUCCESS)
        rc = nvml_fail(&tmp, r, "nvmlInit_v2", err, "initialising NVML");
    else if (rc == MS_OK) {
        n->initialized = true;
        unsigned count = 0;
        if ((r = n->api.nvmlDeviceGetCount_v2(&count)) != NVML_SUCCESS)
            rc = nvml_fail(&tmp, r, "nvmlDeviceGetCount_v2", err, "counting GPUs");
        *out = (int)count;
    }
    nvml_close(&tmp);
    return rc;
}

const exec_backend_ops exec_backend_nvml_ops = {
    .kind = "nvml",
    .open = nvml_open,
    .close = nvml_close,
    .mig_mode = nvml_mig_mode,
    .set_mig = nvml_set_mig,
    .list = nvml_list,
    .create = nvml_create,
    .destroy = nvml_destroy,
    .processes = nvml_processes,
    .count = nvml_count,
    .gpu_minor = nvml_gpu_minor,
    .gpu_pci_bus_id = nvml_gpu_pci_bus_id,
};
