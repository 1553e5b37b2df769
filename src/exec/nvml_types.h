/* nvml_types.h: the few NVML types, constants and entry-point signatures migsched uses,
 * declared from NVIDIA's documented API (shared/reference/NVML_MIG.md, sections 3-5) so
 * that building needs no NVIDIA package. Shared by the nvml backend and the fake NVML. */
#ifndef MIGSCHED_NVML_TYPES_H
#define MIGSCHED_NVML_TYPES_H

typedef int nvmlReturn_t;

#define NVML_SUCCESS                      0
#define NVML_ERROR_UNINITIALIZED          1
#define NVML_ERROR_INVALID_ARGUMENT       2
#define NVML_ERROR_NOT_SUPPORTED          3
#define NVML_ERROR_NO_PERMISSION          4
#define NVML_ERROR_NOT_FOUND              6
#define NVML_ERROR_INSUFFICIENT_SIZE      7
#define NVML_ERROR_DRIVER_NOT_LOADED      9
#define NVML_ERROR_FUNCTION_NOT_FOUND     13
#define NVML_ERROR_GPU_IS_LOST            15
#define NVML_ERROR_IN_USE                 19
#define NVML_ERROR_INSUFFICIENT_RESOURCES 23
#define NVML_ERROR_UNKNOWN                999

#define NVML_DEVICE_MIG_DISABLE                     0
#define NVML_DEVICE_MIG_ENABLE                      1
#define NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED 0
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE             96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE             96
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE          32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE       16

/* Opaque handles (pointers in NVML's ABI). */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct nvmlGpuInstance_st *nvmlGpuInstance_t;
typedef struct nvmlComputeInstance_st *nvmlComputeInstance_t;

typedef struct nvmlGpuInstancePlacement_st {
    unsigned int start; /* first memory slice */
    unsigned int size;  /* memory slices */
} nvmlGpuInstancePlacement_t;

typedef struct nvmlGpuInstanceProfileInfo_st { /* v1, 48 bytes */
    unsigned int id;
    unsigned int isP2pSupported;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int copyEngineCount;
    unsigned int decoderCount;
    unsigned int encoderCount;
    unsigned int jpegCount;
    unsigned int ofaCount;
    unsigned long long memorySizeMB;
} nvmlGpuInstanceProfileInfo_t;

typedef struct nvmlGpuInstanceInfo_st { /* 24 bytes */
    nvmlDevice_t device;
    unsigned int id;
    unsigned int profileId;
    nvmlGpuInstancePlacement_t placement;
} nvmlGpuInstanceInfo_t;

typedef struct nvmlComputeInstanceProfileInfo_st { /* v1, 36 bytes */
    unsigned int id;
    unsigned int sliceCount;
    unsigned int instanceCount;
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
} nvmlComputeInstanceProfileInfo_t;

typedef struct nvmlComputeInstancePlacement_st {
    unsigned int start;
    unsigned int size;
} nvmlComputeInstancePlacement_t;

typedef struct nvmlComputeInstanceInfo_st { /* layout of nvmlComputeInstanceGetInfo_v2 */
    nvmlDevice_t device;
    nvmlGpuInstance_t gpuInstance;
    unsigned int id;
    unsigned int profileId;
    nvmlComputeInstancePlacement_t placement;
} nvmlComputeInstanceInfo_t;

/* PCI information of a GPU (nvmlPciInfo_t as nvmlDeviceGetPciInfo_v3 fills it, 68 bytes:
 * NVML's nvmlDeviceStructs reference). */
typedef struct nvmlPciInfo_st {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE]; /* "0000:3B:00.0" */
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId; /* device id << 16 | vendor id */
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE]; /* "00000000:3B:00.0", NUL-terminated */
} nvmlPciInfo_t;

/* One process of a running-process query (the _v2/_v3 layout, 24 bytes). */
typedef struct nvmlProcessInfo_st {
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId; /* 0xFFFFFFFF when not a MIG device */
    unsigned int computeInstanceId;
} nvmlProcessInfo_t;

/* X-macro of every entry point: (return type, versioned name to dlsym, parameters).
 * The nvml backend builds its function-pointer table from it; the fake defines them. */
#define MS_NVML_ENTRY_POINTS(X)                                                                  \
    X(nvmlReturn_t, nvmlInit_v2, (void))                                                         \
    X(nvmlReturn_t, nvmlShutdown, (void))                                                        \
    X(const char *, nvmlErrorString, (nvmlReturn_t result))                                      \
    X(nvmlReturn_t, nvmlDeviceGetCount_v2, (unsigned int *count))                                \
    X(nvmlReturn_t, nvmlDeviceGetHandleByIndex_v2, (unsigned int index, nvmlDevice_t *device))   \
    X(nvmlReturn_t, nvmlDeviceGetName, (nvmlDevice_t device, char *name, unsigned int length))   \
    X(nvmlReturn_t, nvmlDeviceGetUUID, (nvmlDevice_t device, char *uuid, unsigned int length))   \
    X(nvmlReturn_t, nvmlDeviceGetMinorNumber, (nvmlDevice_t device, unsigned int *minorNumber))  \
    X(nvmlReturn_t, nvmlDeviceGetPciInfo_v3, (nvmlDevice_t device, nvmlPciInfo_t * pci))         \
    X(nvmlReturn_t, nvmlDeviceGetMigMode,                                                        \
      (nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode))               \
    X(nvmlReturn_t, nvmlDeviceSetMigMode,                                                        \
      (nvmlDevice_t device, unsigned int mode, nvmlReturn_t *activationStatus))                  \
    X(nvmlReturn_t, nvmlDeviceGetGpuInstanceProfileInfo,                                         \
      (nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_t *info))           \
    X(nvmlReturn_t, nvmlDeviceCreateGpuInstanceWithPlacement,                                    \
      (nvmlDevice_t device, unsigned int profileId, const nvmlGpuInstancePlacement_t *placement, \
       nvmlGpuInstance_t *gpuInstance))                                                          \
    X(nvmlReturn_t, nvmlDeviceGetGpuInstances,                                                   \
      (nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances,             \
       unsigned int *count))                                                                     \
    X(nvmlReturn_t, nvmlDeviceGetGpuInstanceById,                                                \
      (nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance))                    \
    X(nvmlReturn_t, nvmlGpuInstanceGetInfo,                                                      \
      (nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t * info))                             \
    X(nvmlReturn_t, nvmlGpuInstanceDestroy, (nvmlGpuInstance_t gpuInstance))                     \
    X(nvmlReturn_t, nvmlGpuInstanceGetComputeInstanceProfileInfo,                                \
      (nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile,             \
       nvmlComputeInstanceProfileInfo_t *info))                                                  \
    X(nvmlReturn_t, nvmlGpuInstanceCreateComputeInstance,                                        \
      (nvmlGpuInstance_t gpuInstance, unsigned int profileId,                                    \
       nvmlComputeInstance_t *computeInstance))                                                  \
    X(nvmlReturn_t, nvmlGpuInstanceGetComputeInstances,                                          \
      (nvmlGpuInstance_t gpuInstance, unsigned int profileId,                                    \
       nvmlComputeInstance_t *computeInstances, unsigned int *count))                            \
    X(nvmlReturn_t, nvmlComputeInstanceGetInfo_v2,                                               \
      (nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t * info))                 \
    X(nvmlReturn_t, nvmlComputeInstanceDestroy, (nvmlComputeInstance_t computeInstance))         \
    X(nvmlReturn_t, nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t device, unsigned int *count))  \
    X(nvmlReturn_t, nvmlDeviceGetMigDeviceHandleByIndex,                                         \
      (nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice))                        \
    X(nvmlReturn_t, nvmlDeviceGetGpuInstanceId, (nvmlDevice_t device, unsigned int *id))         \
    X(nvmlReturn_t, nvmlDeviceGetComputeInstanceId, (nvmlDevice_t device, unsigned int *id))     \
    X(nvmlReturn_t, nvmlDeviceGetComputeRunningProcesses_v3,                                     \
      (nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos))

/* Compute-instance profile index (NVML_COMPUTE_INSTANCE_PROFILE_*) for a slice count,
 * -1 if none. */
static inline int nvml_ci_profile_index(int slices)
{
    switch (slices) {
    case 1: return 0;
    case 2: return 1;
    case 3: return 2;
    case 4: return 3;
    case 7: return 4;
    case 8: return 5;
    case 6: return 6;
    default: return -1;
    }
}

#endif
