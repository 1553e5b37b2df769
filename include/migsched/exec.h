/* exec.h: carrying plans out on MIG GPUs: the backend interface (nvml, sim), the plan
 * executor with its journal and report, layouts for NVIDIA's tooling, the profiler. */
#ifndef MIGSCHED_EXEC_H
#define MIGSCHED_EXEC_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* ---- Backends: one opened GPU ---------------------------------------------------- */

typedef struct ms_backend ms_backend;

typedef struct ms_backend_options {
    /* nvml: library to dlopen; NULL = $MIGSCHED_NVML_LIBRARY or "libnvidia-ml.so.1". */
    const char *nvml_library;
    /* sim: multiplies the model's create/destroy times (each call sleeps that long);
     * 0 = instant. */
    double sim_delay_scale;
} ms_backend_options;

/* A GPU instance (with its compute instances) as the device reports it. */
typedef struct ms_mig_instance {
    unsigned gi_id;          /* driver-assigned GPU-instance id */
    unsigned ci_id;          /* id of the first compute instance (valid if nci > 0) */
    int nci;                 /* compute instances inside */
    int profile;             /* index into the device model's profiles, -1 if unknown */
    int start_slot, size_slots;
    char uuid[96];           /* "MIG-..." of the first compute instance, "" if none */
} ms_mig_instance;

#define MS_MAX_MIG 16        /* GPU instances one GPU can hold (7 on A100-class) */

/* kind: "nvml" or "sim". model: the GPU the plan is for; nvml checks the device is that
 * model (when it can tell from the device name), sim emulates it; NULL = identify the
 * device (nvml) / required (sim). */
int ms_backend_open(const char *kind, int device, const ms_gpu_model *model,
                    const ms_backend_options *opt, ms_backend **out, ms_error *err);
void ms_backend_close(ms_backend *b);
const char *ms_backend_kind(const ms_backend *b);
const ms_gpu_model *ms_backend_model(const ms_backend *b);
const char *ms_backend_device_name(const ms_backend *b);
int ms_backend_device(const ms_backend *b);

int ms_backend_mig_mode(ms_backend *b, bool *enabled, ms_error *err);
int ms_backend_enable_mig(ms_backend *b, ms_error *err);
/* Every GPU instance on the device, sorted by start slot. */
int ms_backend_list(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n, ms_error *err);
/* Creates a GPU instance at the placement and one compute instance spanning it; on a
 * failure after the GPU instance exists, destroys it again before returning. */
int ms_backend_create(ms_backend *b, ms_placement p, ms_mig_instance *out, ms_error *err);
/* Destroys every compute instance of the GPU instance, then the GPU instance. */
int ms_backend_destroy(ms_backend *b, unsigned gi_id, ms_error *err);

/* Built-in model a device name denotes ("NVIDIA A100-SXM4-40GB" -> A100-40GB), or NULL. */
const ms_gpu_model *ms_gpu_model_from_device_name(const char *name);

#endif
