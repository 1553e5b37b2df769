/* fake_nvml.c: a libnvidia-ml.so.1 stand-in exporting the NVML entry points migsched uses,
 * emulating MIG GPUs of a built-in model: placement rules, INSUFFICIENT_RESOURCES on
 * overlap, IN_USE when a GPU instance still holds a compute instance, the model's
 * create/destroy times (scaled), fault injection. Handles encode (kind, gpu, gi, ci) so
 * they stay meaningful across processes sharing a state file. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "fake.h"
#include "nvml_types.h"

#define API __attribute__((visibility("default")))

enum { K_DEV = 1, K_GI = 2, K_CI = 3, K_MIG = 4 };

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static int init_count;
static fake_config cfg;

static void *encode(int kind, unsigned g, unsigned gi, unsigned ci)
{
    return (void *)(uintptr_t)(((uintptr_t)kind << 28) | (g << 16) | (gi << 8) | ci);
}

static void decode(const void *h, int *kind, unsigned *g, unsigned *gi, unsigned *ci)
{
    uintptr_t v = (uintptr_t)h;
    *kind = (int)(v >> 28);
    *g = (unsigned)(v >> 16) & 0xff;
    *gi = (unsigned)(v >> 8) & 0xff;
    *ci = (unsigned)v & 0xff;
}

static void pause_for(double seconds)
{
    if (!(seconds > 0))
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* Every entry point starts with this: injected fault, then the initialisation check. */
#define ENTER(name)                          \
    do {                                     \
        int fault_ = fake_fault(#name);      \
        if (fault_)                          \
            return fault_;                   \
        if (!init_count)                     \
            return NVML_ERROR_UNINITIALIZED; \
    } while (0)

/* The GPU a device handle names, NULL if it is not one. */
static fake_gpu *gpu_of(fake_state *st, nvmlDevice_t dev, int want_kind, unsigned *g_out)
{
    int kind;
    unsigned g, gi, ci;
    decode(dev, &kind, &g, &gi, &ci);
    if (kind != want_kind || g >= (unsigned)cfg.ngpus)
        return NULL;
    if (g_out)
        *g_out = g;
    return &st->gpu[g];
}

static fake_gi *gi_by_id(fake_gpu *gpu, unsigned id)
{
    for (int i = 0; i < gpu->ngi; i++)
        if (gpu->gi[i].id == id)
            return &gpu->gi[i];
    return NULL;
}

static fake_gi *gi_of(fake_state *st, const void *h, int kind, unsigned *g, unsigned *ci)
{
    int k;
    unsigned gi;
    decode(h, &k, g, &gi, ci);
    if (k != kind || *g >= (unsigned)cfg.ngpus)
        return NULL;
    return gi_by_id(&st->gpu[*g], gi);
}

static fake_ci *ci_by_id(fake_gi *gi, unsigned id)
{
    for (int i = 0; i < gi->nci; i++)
        if (gi->ci[i].id == id)
            return &gi->ci[i];
    return NULL;
}

static int ci_slices(unsigned index)
{
    for (int s = 1; s <= 8; s++)
        if (nvml_ci_profile_index(s) == (int)index)
            return s;
    return 0;
}

/* Copies a name into the caller's buffer of `length` bytes, as NVML's string getters do. */
static nvmlReturn_t copy_string(const char *buf, char *out, unsigned length)
{
    if (!out || strlen(buf) >= length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, buf, strlen(buf) + 1);
    return NVML_SUCCESS;
}

/* How a list getter ends: *count gets the number found; INSUFFICIENT_SIZE when the caller's
 * array (of *count entries, absent when has_array is false) could not hold them all. */
static nvmlReturn_t list_result(unsigned found, bool has_array, unsigned *count)
{
    nvmlReturn_t r = found > *count || (found && !has_array) ? NVML_ERROR_INSUFFICIENT_SIZE
                                                             : NVML_SUCCESS;
    *count = found;
    return r;
}

API nvmlReturn_t nvmlInit_v2(void)
{
    int fault = fake_fault("nvmlInit_v2");
    if (fault)
        return fault;
    pthread_mutex_lock(&init_lock);
    nvmlReturn_t r = NVML_SUCCESS;
    if (init_count == 0 && !fake_config_load(&cfg))
        r = NVML_ERROR_DRIVER_NOT_LOADED;
    else
        init_count++;
    pthread_mutex_unlock(&init_lock);
    return r;
}

API nvmlReturn_t nvmlShutdown(void)
{
    ENTER(nvmlShutdown);
    pthread_mutex_lock(&init_lock);
    init_count--;
    pthread_mutex_unlock(&init_lock);
    return NVML_SUCCESS;
}

API const char *nvmlErrorString(nvmlReturn_t r)
{
    switch (r) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_IN_USE: return "In use by another client";
    case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient Resources";
    default: return "Unknown Error";
    }
}

API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count)
{
    ENTER(nvmlDeviceGetCount_v2);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    *count = (unsigned)cfg.ngpus;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    ENTER(nvmlDeviceGetHandleByIndex_v2);
    if (!device || index >= (unsigned)cfg.ngpus)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = encode(K_DEV, index, 0, 0);
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    ENTER(nvmlDeviceGetName);
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci_id;
    char buf[128];
    nvmlReturn_t r = NVML_SUCCESS;
    fake_gi *gi = gi_of(st, device, K_MIG, &g, &ci_id);
    if (gpu_of(st, device, K_DEV, NULL))
        snprintf(buf, sizeof buf, "NVIDIA %s", cfg.model.name);
    else if (gi && ci_by_id(gi, ci_id))
        snprintf(buf, sizeof buf, "NVIDIA %s MIG %s", cfg.model.name,
                 cfg.model.profiles[gi->profile].name);
    else
        r = NVML_ERROR_INVALID_ARGUMENT;
    fake_state_end(&cfg, false);
    return r == NVML_SUCCESS ? copy_string(buf, name, length) : r;
}

API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    ENTER(nvmlDeviceGetUUID);
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci_id;
    char buf[96];
    nvmlReturn_t r = NVML_SUCCESS;
    fake_gi *gi = gi_of(st, device, K_MIG, &g, &ci_id);
    if (gpu_of(st, device, K_DEV, &g))
        snprintf(buf, sizeof buf, "GPU-%s0000-0000-4000-8000-%012u", cfg.uuid_prefix, g);
    else if (gi && ci_by_id(gi, ci_id))
        snprintf(buf, sizeof buf, "MIG-%s%04x-%04x-4%03x-8%03x-%012u", cfg.uuid_prefix, g, gi->id,
                 ci_id, gi->start, gi->serial);
    else
        r = NVML_ERROR_INVALID_ARGUMENT;
    fake_state_end(&cfg, false);
    return r == NVML_SUCCESS ? copy_string(buf, uuid, length) : r;
}

API nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    ENTER(nvmlDeviceGetMinorNumber);
    if (!minorNumber)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g = 0;
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    if (gpu)
        *minorNumber = cfg.minor_base + g;
    fake_state_end(&cfg, false);
    return gpu ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* GPU g sits on bus 0x10 + g of domain 0 (distinct, and in NVML's two spellings). */
API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    ENTER(nvmlDeviceGetPciInfo_v3);
    if (!pci)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g = 0;
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    if (gpu) {
        memset(pci, 0, sizeof *pci);
        pci->bus = 0x10 + g;
        pci->pciDeviceId = 0x20B010DE;
        snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
        snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
    }
    fake_state_end(&cfg, false);
    return gpu ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current,
                                      unsigned int *pending)
{
    ENTER(nvmlDeviceGetMigMode);
    if (!current || !pending)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    fake_gpu *gpu = gpu_of(st, device, K_DEV, NULL);
    if (gpu)
        *current = *pending = gpu->mig;
    fake_state_end(&cfg, false);
    return gpu ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode,
                                      nvmlReturn_t *activationStatus)
{
    ENTER(nvmlDeviceSetMigMode);
    if (!activationStatus || mode > NVML_DEVICE_MIG_ENABLE)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    fake_gpu *gpu = gpu_of(st, device, K_DEV, NULL);
    nvmlReturn_t r = !gpu ? NVML_ERROR_INVALID_ARGUMENT
                          : (gpu->ngi && !mode ? NVML_ERROR_IN_USE : NVML_SUCCESS);
    if (r == NVML_SUCCESS) {
        gpu->mig = mode;
        *activationStatus = NVML_SUCCESS;
    }
    fake_state_end(&cfg, r == NVML_SUCCESS);
    return r;
}

/* The model profile with this NVML_GPU_INSTANCE_PROFILE_* index, or with this id. */
static int profile_by_index(unsigned index)
{
    for (int p = 0; p < cfg.model.nprofiles; p++)
        if (cfg.model.profiles[p].nvml_index == (int)index)
            return p;
    return -1;
}

static int profile_by_id(unsigned id)
{
    for (int p = 0; p < cfg.model.nprofiles; p++)
        if (fake_profile_id(&cfg.model, p) == id)
            return p;
    return -1;
}

API nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                     nvmlGpuInstanceProfileInfo_t *info)
{
    ENTER(nvmlDeviceGetGpuInstanceProfileInfo);
    if (!info || profile > 0x11)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    fake_gpu *gpu = gpu_of(st, device, K_DEV, NULL);
    int p = profile_by_index(profile);
    nvmlReturn_t r = !gpu ? NVML_ERROR_INVALID_ARGUMENT
                          : (!gpu->mig || p < 0 ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS);
    fake_state_end(&cfg, false);
    if (r != NVML_SUCCESS)
        return r;
    const ms_profile *pr = &cfg.model.profiles[p];
    memset(info, 0, sizeof *info);
    info->id = fake_profile_id(&cfg.model, p);
    info->sliceCount = (unsigned)pr->slices;
    info->instanceCount = (unsigned)pr->nstarts;
    info->multiprocessorCount = 14u * (unsigned)pr->slices;
    info->memorySizeMB = (unsigned long long)(pr->memory_gb * 1024.0);
    return NVML_SUCCESS;
}

/* Left out of the "old driver" build, to test how a missing entry point is reported. */
#ifndef FAKE_NVML_WITHOUT_PLACEMENT
static bool placement_ok(int p, const nvmlGpuInstancePlacement_t *pl)
{
    const ms_profile *pr = &cfg.model.profiles[p];
    if (pl->size != (unsigned)pr->size_slots)
        return false;
    return ms_gpu_placement_allowed(&cfg.model, (ms_placement){p, (int)pl->start});
}

static unsigned free_gi_id(const fake_gpu *gpu)
{
    for (unsigned id = 1;; id++) {
        bool used = false;
        for (int i = 0; i < gpu->ngi; i++)
            used |= gpu->gi[i].id == id;
        if (!used)
            return id;
    }
}

API nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(
    nvmlDevice_t device, unsigned int profileId, const nvmlGpuInstancePlacement_t *placement,
    nvmlGpuInstance_t *gpuInstance)
{
    ENTER(nvmlDeviceCreateGpuInstanceWithPlacement);
    if (!placement || !gpuInstance)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g = 0;
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    int p = profile_by_id(profileId);
    nvmlReturn_t r = NVML_SUCCESS;
    if (!gpu || p < 0 || !placement_ok(p, placement))
        r = NVML_ERROR_INVALID_ARGUMENT;
    else if (!gpu->mig)
        r = NVML_ERROR_NOT_SUPPORTED;
    else if (gpu->ngi == FAKE_MAX_GI)
        r = NVML_ERROR_INSUFFICIENT_RESOURCES;
    for (int i = 0; r == NVML_SUCCESS && i < gpu->ngi; i++) {
        ms_placement have = {gpu->gi[i].profile, (int)gpu->gi[i].start};
        ms_placement want = {p, (int)placement->start};
        if (ms_gpu_slot_mask(&cfg.model, have) & ms_gpu_slot_mask(&cfg.model, want))
            r = NVML_ERROR_INSUFFICIENT_RESOURCES;
    }
    if (r == NVML_SUCCESS) {
        /* The driver works one reconfiguration at a time: sleep holding the lock. */
        pause_for(ms_gpu_create_time(&cfg.model, cfg.model.profiles[p].slices) * cfg.delay_scale);
        fake_gi *gi = &gpu->gi[gpu->ngi++];
        *gi = (fake_gi){
            .id = free_gi_id(gpu), .profile = p, .start = placement->start, .serial = ++st->serial};
        *gpuInstance = encode(K_GI, g, gi->id, 0);
    }
    fake_state_end(&cfg, r == NVML_SUCCESS);
    return r;
}

#endif

API nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId,
                                           nvmlGpuInstance_t *gpuInstances, unsigned int *count)
{
    ENTER(nvmlDeviceGetGpuInstances);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g = 0;
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    int p = profile_by_id(profileId);
    nvmlReturn_t r = !gpu || p < 0 ? NVML_ERROR_INVALID_ARGUMENT
                                   : (!gpu->mig ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS);
    unsigned found = 0;
    for (int i = 0; r == NVML_SUCCESS && i < gpu->ngi; i++) {
        if (gpu->gi[i].profile != p)
            continue;
        if (gpuInstances && found < *count)
            gpuInstances[found] = encode(K_GI, g, gpu->gi[i].id, 0);
        found++;
    }
    fake_state_end(&cfg, false);
    return r == NVML_SUCCESS ? list_result(found, gpuInstances != NULL, count) : r;
}

API nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id,
                                              nvmlGpuInstance_t *gpuInstance)
{
    ENTER(nvmlDeviceGetGpuInstanceById);
    if (!gpuInstance)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g = 0;
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    nvmlReturn_t r = !gpu ? NVML_ERROR_INVALID_ARGUMENT
                          : (!gi_by_id(gpu, id) ? NVML_ERROR_NOT_FOUND : NVML_SUCCESS);
    if (r == NVML_SUCCESS)
        *gpuInstance = encode(K_GI, g, id, 0);
    fake_state_end(&cfg, false);
    return r;
}

API nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info)
{
    ENTER(nvmlGpuInstanceGetInfo);
    if (!info)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci;
    fake_gi *gi = gi_of(st, gpuInstance, K_GI, &g, &ci);
    if (gi) {
        info->device = encode(K_DEV, g, 0, 0);
        info->id = gi->id;
        info->profileId = fake_profile_id(&cfg.model, gi->profile);
        info->placement.start = gi->start;
        info->placement.size = (unsigned)cfg.model.profiles[gi->profile].size_slots;
    }
    fake_state_end(&cfg, false);
    return gi ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance)
{
    ENTER(nvmlGpuInstanceDestroy);
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci;
    fake_gi *gi = gi_of(st, gpuInstance, K_GI, &g, &ci);
    nvmlReturn_t r = !gi ? NVML_ERROR_INVALID_ARGUMENT
                         : (gi->nci ? NVML_ERROR_IN_USE : NVML_SUCCESS);
    if (r == NVML_SUCCESS) {
        pause_for(ms_gpu_destroy_time(&cfg.model, cfg.model.profiles[gi->profile].slices) *
                  cfg.delay_scale);
        fake_gpu *gpu = &st->gpu[g];
        *gi = gpu->gi[--gpu->ngi];
    }
    fake_state_end(&cfg, r == NVML_SUCCESS);
    return r;
}

API nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(
    nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile,
    nvmlComputeInstanceProfileInfo_t *info)
{
    ENTER(nvmlGpuInstanceGetComputeInstanceProfileInfo);
    if (!info || profile > 8 || engProfile != NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci;
    fake_gi *gi = gi_of(st, gpuInstance, K_GI, &g, &ci);
    int gi_slices = gi ? cfg.model.profiles[gi->profile].slices : 0;
    fake_state_end(&cfg, false);
    int slices = ci_slices(profile);
    if (!gi)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (!slices || slices > gi_slices)
        return NVML_ERROR_NOT_SUPPORTED;
    memset(info, 0, sizeof *info);
    info->id = profile;
    info->sliceCount = (unsigned)slices;
    info->instanceCount = (unsigned)(gi_slices / slices);
    info->multiprocessorCount = 14u * (unsigned)slices;
    return NVML_SUCCESS;
}

API nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gpuInstance,
                                                      unsigned int profileId,
                                                      nvmlComputeInstance_t *computeInstance)
{
    ENTER(nvmlGpuInstanceCreateComputeInstance);
    if (!computeInstance)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci;
    fake_gi *gi = gi_of(st, gpuInstance, K_GI, &g, &ci);
    int slices = ci_slices(profileId), used = 0;
    for (int i = 0; gi && i < gi->nci; i++)
        used += ci_slices(gi->ci[i].profile_index);
    nvmlReturn_t r = NVML_SUCCESS;
    if (!gi || !slices)
        r = NVML_ERROR_INVALID_ARGUMENT;
    else if (used + slices > cfg.model.profiles[gi->profile].slices || gi->nci == FAKE_MAX_CI)
        r = NVML_ERROR_INSUFFICIENT_RESOURCES;
    if (r == NVML_SUCCESS) {
        unsigned id = 0;
        while (ci_by_id(gi, id))
            id++;
        gi->ci[gi->nci++] = (fake_ci){id, profileId};
        *computeInstance = encode(K_CI, g, gi->id, id);
    }
    fake_state_end(&cfg, r == NVML_SUCCESS);
    return r;
}

API nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance,
                                                    unsigned int profileId,
                                                    nvmlComputeInstance_t *computeInstances,
                                                    unsigned int *count)
{
    ENTER(nvmlGpuInstanceGetComputeInstances);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci;
    fake_gi *gi = gi_of(st, gpuInstance, K_GI, &g, &ci);
    unsigned found = 0;
    for (int i = 0; gi && i < gi->nci; i++) {
        if (gi->ci[i].profile_index != profileId)
            continue;
        if (computeInstances && found < *count)
            computeInstances[found] = encode(K_CI, g, gi->id, gi->ci[i].id);
        found++;
    }
    fake_state_end(&cfg, false);
    return gi ? list_result(found, computeInstances != NULL, count) : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance,
                                               nvmlComputeInstanceInfo_t *info)
{
    ENTER(nvmlComputeInstanceGetInfo_v2);
    if (!info)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci_id;
    fake_gi *gi = gi_of(st, computeInstance, K_CI, &g, &ci_id);
    fake_ci *ci = gi ? ci_by_id(gi, ci_id) : NULL;
    if (ci) {
        info->device = encode(K_DEV, g, 0, 0);
        info->gpuInstance = encode(K_GI, g, gi->id, 0);
        info->id = ci->id;
        info->profileId = ci->profile_index;
        info->placement.start = 0;
        info->placement.size = (unsigned)ci_slices(ci->profile_index);
    }
    fake_state_end(&cfg, false);
    return ci ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance)
{
    ENTER(nvmlComputeInstanceDestroy);
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci_id;
    fake_gi *gi = gi_of(st, computeInstance, K_CI, &g, &ci_id);
    fake_ci *ci = gi ? ci_by_id(gi, ci_id) : NULL;
    /* Processes still running on it: the driver refuses. */
    nvmlReturn_t r = !ci        ? NVML_ERROR_INVALID_ARGUMENT
                     : gi->npid ? NVML_ERROR_IN_USE
                                : NVML_SUCCESS;
    if (r == NVML_SUCCESS)
        *ci = gi->ci[--gi->nci];
    fake_state_end(&cfg, r == NVML_SUCCESS);
    return r;
}

API nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    ENTER(nvmlDeviceGetMaxMigDeviceCount);
    if (!count)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    fake_gpu *gpu = gpu_of(st, device, K_DEV, NULL);
    if (gpu)
        *count = gpu->mig ? (unsigned)cfg.model.slices : 0;
    fake_state_end(&cfg, false);
    return gpu ? NVML_SUCCESS : NVML_ERROR_INVALID_ARGUMENT;
}

/* MIG devices are numbered over the GPU's compute instances in GI order; a GI without a
 * compute instance leaves a hole (NOT_FOUND), as real drivers can. */
API nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                     nvmlDevice_t *migDevice)
{
    ENTER(nvmlDeviceGetMigDeviceHandleByIndex);
    if (!migDevice)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g = 0;
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    nvmlReturn_t r = !gpu ? NVML_ERROR_INVALID_ARGUMENT : NVML_ERROR_NOT_FOUND;
    unsigned k = 0;
    for (int i = 0; gpu && i < gpu->ngi; i++) {
        const fake_gi *gi = &gpu->gi[i];
        if (gi->nci == 0)
            k++;
        for (int c = 0; c < gi->nci; c++, k++)
            if (k == index && r == NVML_ERROR_NOT_FOUND) {
                *migDevice = encode(K_MIG, g, gi->id, gi->ci[c].id);
                r = NVML_SUCCESS;
            }
    }
    fake_state_end(&cfg, false);
    return r;
}

static nvmlReturn_t mig_ids(nvmlDevice_t device, unsigned *gi_id, unsigned *ci_id)
{
    fake_state *st = fake_state_begin(&cfg);
    unsigned g;
    fake_gi *gi = gi_of(st, device, K_MIG, &g, ci_id);
    fake_ci *ci = gi ? ci_by_id(gi, *ci_id) : NULL;
    if (ci)
        *gi_id = gi->id;
    fake_state_end(&cfg, false);
    if (ci)
        return NVML_SUCCESS;
    return gpu_of(st, device, K_DEV, NULL) ? NVML_ERROR_NOT_SUPPORTED : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    ENTER(nvmlDeviceGetGpuInstanceId);
    unsigned ci;
    return id ? mig_ids(device, id, &ci) : NVML_ERROR_INVALID_ARGUMENT;
}

API nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    ENTER(nvmlDeviceGetComputeInstanceId);
    unsigned gi;
    return id ? mig_ids(device, &gi, id) : NVML_ERROR_INVALID_ARGUMENT;
}

/* Copies gi's processes after the `found` already listed (as many as fit in infos). */
static unsigned add_procs(const fake_gi *gi, nvmlProcessInfo_t *infos, unsigned room,
                          unsigned found)
{
    for (int k = 0; k < gi->npid; k++, found++)
        if (infos && found < room)
            infos[found] = (nvmlProcessInfo_t){gi->pid[k], 1ull << 20, gi->id,
                                               gi->nci ? gi->ci[0].id : 0};
    return found;
}

/* On a MIG device handle: the processes of its GPU instance, all shown on the instance's
 * first compute instance. On the parent device: every instance's, as a privileged caller
 * sees them. */
API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                         unsigned int *infoCount,
                                                         nvmlProcessInfo_t *infos)
{
    ENTER(nvmlDeviceGetComputeRunningProcesses_v3);
    if (!infoCount)
        return NVML_ERROR_INVALID_ARGUMENT;
    fake_state *st = fake_state_begin(&cfg);
    unsigned g, ci_id;
    fake_gi *mig_gi = gi_of(st, device, K_MIG, &g, &ci_id);
    fake_gpu *gpu = gpu_of(st, device, K_DEV, &g);
    nvmlReturn_t r = (mig_gi && ci_by_id(mig_gi, ci_id)) || gpu ? NVML_SUCCESS
                                                                : NVML_ERROR_INVALID_ARGUMENT;
    unsigned found = 0;
    for (int i = 0; r == NVML_SUCCESS && gpu && i < gpu->ngi; i++)
        found = add_procs(&gpu->gi[i], infos, *infoCount, found);
    if (r == NVML_SUCCESS && mig_gi && mig_gi->ci[0].id == ci_id)
        found = add_procs(mig_gi, infos, *infoCount, found);
    fake_state_end(&cfg, false);
    return r == NVML_SUCCESS ? list_result(found, infos != NULL, infoCount) : r;
}
