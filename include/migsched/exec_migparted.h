/* exec_migparted.h: NVIDIA mig-parted configs, read and written, and bringing devices to
 * one with the fewest changes (`migsched apply`) or exporting what they hold. */
#ifndef MIGSCHED_EXEC_MIGPARTED_H
#define MIGSCHED_EXEC_MIGPARTED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/exec_backend.h"
#include "migsched/gpu.h"

/* ---- mig-parted configs (`migsched apply`, `migsched export`) ------------------ */

/* NVIDIA mig-parted's "version: v1" format: named configs, each a list of entries
 * {devices: all | [indices], mig-enabled: bool, mig-devices: {"1g.5gb": 2, ...}}. */
#define MS_MIGPARTED_MAX_DEVICES 64
typedef struct ms_migparted_count {
    char profile[MS_NAME_LEN]; /* as written; checked against a device's model on apply */
    int count;
    int line, column; /* 1-based, where the key is */
} ms_migparted_count;

typedef struct ms_migparted_entry {
    int line, column; /* where the entry starts */
    bool all;         /* devices: all */
    int ndevices;
    int devices[MS_MIGPARTED_MAX_DEVICES];
    bool mig_enabled;
    bool device_filter; /* has a device-filter (not supported by apply) */
    int ncounts;
    ms_migparted_count counts[MS_MAX_PROFILES];
} ms_migparted_entry;

typedef struct ms_migparted_config {
    char name[128];
    int line, column;
    int nentries;
    ms_migparted_entry *entries;
} ms_migparted_config;

typedef struct ms_migparted {
    char source[256];
    int nconfigs;
    ms_migparted_config *configs;
} ms_migparted;

/* Reads with libyaml; errors name the source, line:column and field (an unknown key, a
 * device in two entries of a config, mig-devices without mig-enabled, ...). */
int ms_migparted_read(const char *path, ms_migparted **out, ms_error *err);
int ms_migparted_parse(const char *text, size_t len, const char *source, ms_migparted **out,
                       ms_error *err);
void ms_migparted_free(ms_migparted *c);
/* The config of that name, NULL if none. */
const ms_migparted_config *ms_migparted_find(const ms_migparted *c, const char *name);
/* The entry of cfg that covers the device, NULL if none. */
const ms_migparted_entry *ms_migparted_entry_for(const ms_migparted_config *cfg, int device);
/* One entry "- devices: [device]" for a GPU of model m holding p (placements in a
 * comment, counts per profile in the model's order); what `layout` and `export` print
 * under "mig-configs: NAME:". */
void ms_migparted_write_entry(FILE *f, const ms_gpu_model *m, int device, bool mig_enabled,
                              const ms_partition *p);

/* ---- Applying a layout with the fewest changes (`migsched apply`) ---------------- */

/* What one GPU needs to reach a target: the instances it keeps, the idle ones it
 * destroys, the placements it creates. */
typedef struct ms_apply_plan {
    int nkeep, ndestroy, ncreate;
    int keep[MS_MAX_MIG]; /* indices into the current instances */
    int destroy[MS_MAX_MIG];
    ms_placement create[MS_MAX_INSTANCES]; /* in slot order */
    uint32_t blocking; /* on MS_EBUSY: bit i = busy current instance i in the way */
} ms_apply_plan;

/* Chooses placements for count[p] instances of each profile p of m: over every feasible
 * arrangement, the one that keeps every busy instance and then the most current instances
 * (an instance is kept when the arrangement holds its profile at its placement and it has
 * exactly one compute instance); ties go to the first in a fixed order. MS_EINFEASIBLE
 * when the counts fit no arrangement, MS_EBUSY (plan->blocking set) when every arrangement
 * needs the slots of a busy instance. */
int ms_apply_plan_device(const ms_gpu_model *m, const ms_mig_instance *cur, int ncur,
                         const bool *busy, const int count[MS_MAX_PROFILES], ms_apply_plan *plan,
                         ms_error *err);

typedef struct ms_apply_options {
    const char *backend; /* "nvml" or "sim" */
    ms_backend_options backend_opt;
    const ms_gpu_model *model; /* sim: the GPU to emulate; nvml: NULL = each device's */
    int ndevices;              /* 0 = every device the config names */
    int devices[MS_RUN_MAX_GPUS];
    bool dry_run;         /* print the NVML operations, change nothing */
    bool check;           /* as dry_run, and MS_ECHANGED when anything is to do
                           * (mig-parted's assert) */
    bool mode_only;       /* only MIG mode (mig-parted's --mode-only): enable it
                           * where wanted; disabling still clears the GPU */
    const char *lock_dir; /* NULL = ms_runtime_dir */
    FILE *out;            /* operations done (or, dry, to do); NULL = stdout */
} ms_apply_options;

/* Brings every selected device to the config's layout. Every device is locked and planned
 * before any is changed: a refusal (a busy instance in the way, an unknown profile, a
 * device outside the config) changes nothing. Busy instances are never destroyed; idle
 * ones, migsched's or not, are destroyed only where the target needs their slots or drops
 * their profile. */
int ms_apply(const ms_migparted *cfgs, const char *name, const ms_apply_options *o, ms_error *err);

/* Prints the devices' current layout as a v1 config named `name` (ndevices 0 = all). */
int ms_export(const char *backend, const ms_backend_options *bo, const ms_gpu_model *model,
              const int *devices, int ndevices, const char *name, FILE *f, ms_error *err);

#endif
