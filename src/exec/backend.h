/* backend.h: what a backend implements behind ms_backend (private to src/exec). */
#ifndef MIGSCHED_EXEC_BACKEND_OPS_H
#define MIGSCHED_EXEC_BACKEND_OPS_H

#include "migsched/exec.h"

typedef struct exec_backend_ops {
    const char *kind;
    int (*open)(ms_backend *b, const ms_backend_options *opt, const ms_gpu_model *model,
                ms_error *err);
    void (*close)(ms_backend *b);
    int (*mig_mode)(ms_backend *b, bool *enabled, ms_error *err);
    int (*set_mig)(ms_backend *b, bool on, ms_error *err);
    int (*list)(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n, ms_error *err);
    /* j (NULL: none) records the GPU instance as soon as it exists
     * (ms_backend_create_journaled). */
    int (*create)(ms_backend *b, ms_placement p, ms_journal *j, ms_mig_instance *out,
                  ms_error *err);
    int (*destroy)(ms_backend *b, unsigned gi_id, ms_error *err);
    int (*processes)(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n, ms_error *err);
    int (*count)(const ms_backend_options *opt, int *n, ms_error *err);
    int (*gpu_minor)(const ms_backend *b, unsigned *minor, ms_error *err);
    int (*gpu_pci_bus_id)(const ms_backend *b, char id[MS_PCI_BUS_ID_LEN], ms_error *err);
} exec_backend_ops;

struct ms_backend {
    const exec_backend_ops *ops;
    int device;
    ms_gpu_model model; /* filled by open */
    char name[96];      /* device name as reported */
    char uuid[96];      /* the physical GPU's UUID (nvml), "" if none */
    void *impl;
};

/* A model loaded from JSON (e.g. with profiled times) fits a device whose built-in model has
 * the same slots, slices and profiles. */
bool exec_same_geometry(const ms_gpu_model *a, const ms_gpu_model *b);

extern const exec_backend_ops exec_backend_nvml_ops;
extern const exec_backend_ops exec_backend_sim_ops;

#endif
