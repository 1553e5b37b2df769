/* exec_sim_state.h: the sim backend's GPUs kept in a JSON file (`--state FILE`), so that
 * their MIG modes and instances outlive one command: apply, export, --check and migschedd
 * can be rehearsed on simulated GPUs. docs/exec.md, "The sim state file", has the format. */
#ifndef MIGSCHED_EXEC_SIM_STATE_H
#define MIGSCHED_EXEC_SIM_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/error.h"
#include "migsched/exec_backend.h"
#include "migsched/gpu.h"

#define MS_SIM_STATE_FORMAT "migsched-sim-state/1"

/* A GPU instance of the file: what the device lists, and the PIDs said to run on it (an
 * instance with PIDs is busy, as with NVML: it is never destroyed). */
typedef struct ms_sim_instance {
    ms_mig_instance in; /* in.nci: 0 (no compute instance, no MIG device) or 1 */
    int npids;
    unsigned pids[MS_MAX_PIDS];
} ms_sim_instance;

typedef struct ms_sim_gpu {
    ms_gpu_model model; /* a built-in model */
    char uuid[96];      /* "GPU-...": the device lock's key */
    bool mig;
    int n;
    ms_sim_instance inst[MS_MAX_MIG];
} ms_sim_gpu;

typedef struct ms_sim_state {
    unsigned serial; /* MIG device UUIDs made so far: every creation gets a new one */
    int ngpus;
    ms_sim_gpu gpu[MS_RUN_MAX_GPUS];
} ms_sim_state;

/* Reads a state file; errors name the source and the field (`s.json: gpus[1].instances[0].
 * start: 3 is not an allowed placement of 3g.20gb on A100-40GB (0, 4)`): every rule the
 * driver enforces (allowed placements, no overlap, unique ids and UUIDs, instances only
 * with MIG on) holds in any state it returns. */
int ms_sim_state_parse(const char *text, size_t len, const char *source, ms_sim_state *out,
                       ms_error *err);
int ms_sim_state_read(const char *path, ms_sim_state *out, ms_error *err);
/* Writes the whole file atomically: a temporary file in its folder, fsync, rename, fsync
 * of the folder. Readers see the old or the new state, never a mix. */
int ms_sim_state_write(const char *path, const ms_sim_state *s, ms_error *err);

/* The file's text (keys in a fixed order), malloc'd; NULL when out of memory. */
char *ms_sim_state_dump(const ms_sim_state *s);

/* "2xA100-40GB", "A100-40GB,A30-24GB", "2xA100-40GB,A30-24GB": the GPUs of a new state. */
int ms_sim_state_parse_gpus(const char *spec, ms_sim_state *out, ms_error *err);
/* Makes sure path holds a state: with want (GPUs from ms_sim_state_parse_gpus) a missing
 * file is created with them (MIG on, no instance) and an existing one must hold the same
 * models in the same order; without want the file must exist. */
int ms_sim_state_prepare(const char *path, const ms_sim_state *want, ms_error *err);

/* One change or look at the file, serialised with every other process using it (an
 * exclusive flock on FILE.lock for the whole call): the state is read, fn called, and
 * the state written back if fn set *changed and returned MS_OK. */
typedef int (*ms_sim_state_fn)(ms_sim_state *s, void *arg, bool *changed, ms_error *err);
int ms_sim_state_update(const char *path, ms_sim_state_fn fn, void *arg, ms_error *err);

#endif
