/* fake.h: the emulated GPUs of the fake NVML: configuration from the environment, the
 * instance state (in memory or in a locked file shared across processes), fault injection. */
#ifndef FAKE_NVML_FAKE_H
#define FAKE_NVML_FAKE_H

#include <stdbool.h>

#include "migsched/gpu.h"

#define FAKE_MAX_GPUS 8
#define FAKE_MAX_GI   16
#define FAKE_MAX_CI   8
#define FAKE_MAX_PIDS 8

typedef struct fake_ci {
    unsigned id;
    unsigned profile_index; /* NVML_COMPUTE_INSTANCE_PROFILE_* (= its id here) */
} fake_ci;

typedef struct fake_gi {
    unsigned id;
    int profile; /* index into the model's profiles */
    unsigned start;
    unsigned serial; /* makes every created instance's UUID new */
    int nci;
    fake_ci ci[FAKE_MAX_CI];
    /* Compute processes "running" on the instance (busy): set only by writing "proc"
     * records into the state file; its compute instances then refuse to go (IN_USE). */
    int npid;
    unsigned pid[FAKE_MAX_PIDS];
} fake_gi;

typedef struct fake_gpu {
    unsigned mig; /* current MIG mode */
    int ngi;
    fake_gi gi[FAKE_MAX_GI];
} fake_gpu;

typedef struct fake_state {
    unsigned serial;
    fake_gpu gpu[FAKE_MAX_GPUS];
} fake_state;

typedef struct fake_config {
    ms_gpu_model model;
    int ngpus;
    double delay_scale;
    char state_path[512]; /* "" = state lives in this process only */
    bool mig_initially;
    unsigned minor_base; /* GPU g's minor number is minor_base + g */
    char uuid_prefix[5]; /* the UUIDs' first 4 hex digits: distinct per emulated node */
} fake_config;

/* Reads FAKE_NVML_GPU, FAKE_NVML_GPUS, FAKE_NVML_DELAY_SCALE, FAKE_NVML_STATE, FAKE_NVML_MIG,
 * FAKE_NVML_MINOR_BASE, FAKE_NVML_UUID_PREFIX;
 * returns false (and prints why on stderr) when they are wrong. */
bool fake_config_load(fake_config *c);

/* Locks and loads the state (fresh if the file is missing or empty); fake_state_end saves
 * it when changed and unlocks. The caller holds it for the whole entry point. */
fake_state *fake_state_begin(const fake_config *c);
void fake_state_end(const fake_config *c, bool changed);

/* Fault injection (FAKE_NVML_FAIL=<entry point>:<k>[:<code>|kill],...): counts this call of
 * the entry point and returns the code to fail it with, or 0 to go on. */
int fake_fault(const char *entry);

/* NVML profile id of a model profile (the ids MIG_PROFILES.md lists, so that code mixing up
 * index and id fails here as it would on hardware). */
unsigned fake_profile_id(const ms_gpu_model *m, int profile);

#endif
