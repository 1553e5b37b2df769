/* exec_backend.h: one opened MIG GPU behind the nvml or sim backend (its MIG mode, its
 * instances, creating and destroying them) and the identity of an instance it lists. */
#ifndef MIGSCHED_EXEC_BACKEND_H
#define MIGSCHED_EXEC_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/error.h"
#include "migsched/gpu.h"

/* ---- Backends: one opened GPU ---------------------------------------------------- */

typedef struct ms_backend ms_backend;

typedef struct ms_backend_options {
    /* nvml: library to dlopen; NULL = $MIGSCHED_NVML_LIBRARY or "libnvidia-ml.so.1". */
    const char *nvml_library;
    /* sim: multiplies the model's create/destroy times (each call sleeps that long);
     * 0 = instant. */
    double sim_delay_scale;
    /* sim: the instances the simulated GPU holds when opened (NULL: none). */
    const ms_partition *sim_holds;
    /* sim: the state file holding the GPUs (exec_sim_state.h; it must exist); NULL: one
     * GPU of the given model living in the process. */
    const char *sim_state;
} ms_backend_options;

/* A GPU instance (with its compute instances) as the device reports it. */
typedef struct ms_mig_instance {
    unsigned gi_id; /* driver-assigned GPU-instance id */
    unsigned ci_id; /* id of the first compute instance (valid if nci > 0) */
    int nci;        /* compute instances inside */
    int profile;    /* index into the device model's profiles, -1 if unknown */
    int start_slot, size_slots;
    char uuid[96]; /* "MIG-..." of the first compute instance, "" if none */
} ms_mig_instance;

#define MS_MAX_MIG      16 /* GPU instances one GPU can hold (7 on A100-class) */
#define MS_RUN_MAX_GPUS 16 /* GPUs one run drives */

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

/* GPUs the backend sees (nvml: nvmlDeviceGetCount_v2; sim: the state file's, else one). */
int ms_backend_device_count(const char *kind, const ms_backend_options *opt, int *n, ms_error *err);

int ms_backend_mig_mode(ms_backend *b, bool *enabled, ms_error *err);
/* Both fail (MS_EBACKEND, saying a GPU reset is needed) when the new mode is only pending;
 * disabling needs a GPU without instances. */
int ms_backend_enable_mig(ms_backend *b, ms_error *err);
int ms_backend_disable_mig(ms_backend *b, ms_error *err);
/* Every GPU instance on the device, sorted by start slot. */
int ms_backend_list(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n, ms_error *err);
/* The run journal (exec_journal.h): what a run owns, for cleanup after a crash. */
typedef struct ms_journal ms_journal;
/* Creates a GPU instance at the placement and one compute instance spanning it; on a
 * failure after the GPU instance exists, destroys it again before returning. */
int ms_backend_create(ms_backend *b, ms_placement p, ms_mig_instance *out, ms_error *err);
/* The same, journalled: the GPU instance is recorded in j ("gi", synced) as soon as it
 * exists, before its compute instance is made, so that a crash in between leaves an
 * instance the journal names; if that record cannot be written the GPU instance is
 * destroyed again and the write error returned. A GPU instance made and destroyed again
 * inside the call is recorded "destroyed". The caller journals "begin" before and
 * "created" after. j NULL: no journal (ms_backend_create). */
int ms_backend_create_journaled(ms_backend *b, ms_journal *j, ms_placement p, ms_mig_instance *out,
                                ms_error *err);
/* Destroys every compute instance of the GPU instance, then the GPU instance. */
int ms_backend_destroy(ms_backend *b, unsigned gi_id, ms_error *err);
/* The PIDs of the compute processes running on the GPU instance's MIG devices (nvml:
 * nvmlDeviceGetComputeRunningProcesses_v3 on each MIG device handle of the instance); at
 * most max, sorted, each once; *n = 0 when idle. The sim backend runs nothing. */
#define MS_MAX_PIDS 64
int ms_backend_processes(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n,
                         ms_error *err);

/* The physical GPU's UUID ("GPU-..."; nvml, or a sim state file's), "" for a sim GPU living
 * in the process (nothing to own). */
const char *ms_backend_gpu_uuid(const ms_backend *b);
/* The GPU's minor number: its node is /dev/nvidia<minor> and mig-minors lists its MIG
 * capabilities under gpu<minor> (nvml: nvmlDeviceGetMinorNumber, read at open and after a
 * MIG mode change; its failure is reported here, not by the open; sim: the device index). */
int ms_backend_gpu_minor(const ms_backend *b, unsigned *minor, ms_error *err);
/* The GPU's PCI bus id, domain:bus:device.function as NVML and DCGM write it
 * ("00000000:3B:00.0"; nvml: nvmlDeviceGetPciInfo_v3's busId; sim: a made-up one,
 * "00000000:<device + 1>:00.0" in hex, distinct per device). */
#define MS_PCI_BUS_ID_LEN 32
int ms_backend_gpu_pci_bus_id(const ms_backend *b, char id[MS_PCI_BUS_ID_LEN], ms_error *err);
/* Name of the built-in model whose geometry the device has (what journals record). */
const char *ms_backend_geometry_name(const ms_backend *b);

/* Built-in model a device name denotes ("NVIDIA A100-SXM4-40GB" -> A100-40GB), or NULL. */
const ms_gpu_model *ms_gpu_model_from_device_name(const char *name);

/* ---- Instance identity ------------------------------------------------------------ */

/* Whether `now` (as the device lists it) is the instance recorded as `was` when it was
 * created: same GPU-instance id, placement and MIG device UUID (and, when `was` has no MIG
 * device left, the same profile). The driver reuses GPU-instance ids and slots; a MIG
 * device UUID is new for every creation. */
bool ms_mig_same_instance(const ms_mig_instance *was, const ms_mig_instance *now);
/* Destroys the GPU instance recorded as `was` only if the device still holds that very
 * instance (checked just before); MS_ECHANGED, touching nothing, when it is gone or
 * another instance now has its id. Between the check and the destroy it journals
 * "destroying" (synced) in j (NULL: none), so that a crash between the compute and the GPU
 * instance steps leaves a record naming what is ours (ms_journal_claim). When the destroy
 * fails after removing the compute instances, was->uuid is emptied: the remains are still
 * the caller's to destroy. */
int ms_backend_destroy_owned(ms_backend *b, ms_journal *j, ms_mig_instance *was, ms_error *err);

#endif
