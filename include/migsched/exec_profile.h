/* exec_profile.h: the profiler (`migsched profile`): task times per instance size and the
 * device's create and destroy times. */
#ifndef MIGSCHED_EXEC_PROFILE_H
#define MIGSCHED_EXEC_PROFILE_H

#include <stddef.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/exec_backend.h"
#include "migsched/gpu.h"
#include "migsched/workload.h"

typedef struct ms_profile_options {
    const char *backend; /* "nvml" or "sim" (sim: instances simulated, tasks real) */
    ms_backend_options backend_opt;
    int device;
    const ms_gpu_model *gpu; /* NULL = the device's model */
    int reps;                /* runs of each task per size (and creations per size) */
    int nsizes;              /* sizes to profile; 0 = every size of the model */
    int sizes[MS_MAX_SLICES];
    const char *logs_dir; /* task output; NULL = discarded */
    const char *journal;  /* NULL = none */
    const char *lock_dir; /* device lock (nvml); NULL = ms_runtime_dir */
    FILE *progress;       /* NULL = quiet */
} ms_profile_options;

/* A task list: the FAR authors' format ("name dir script" per line, '#' comments; the
 * command is ./script run in dir, relative dirs taken from the list's folder) or a
 * migsched workload CSV/JSON whose tasks have commands. */
int ms_profile_read_tasks(const char *path, ms_workload **out, ms_error *err);
/* The same from memory; source names it in messages (and is the folder for relative dirs). */
int ms_profile_parse_tasks(const char *text, size_t len, const char *source, ms_workload **out,
                           ms_error *err);
/* Runs every task `reps` times on an instance of every size and times the creations and
 * destructions. *out gets the mean time per size (INFINITY where a run failed: the task
 * cannot run there); *measured the model with the measured create/destroy means. Stops
 * with MS_EINTR on SIGINT/SIGTERM after destroying its instance. */
int ms_profile_run(const ms_workload *tasks, const ms_profile_options *o, ms_workload **out,
                   ms_gpu_model *measured, ms_error *err);
/* A GPU model as JSON that ms_gpu_load_json reads back. */
int ms_profile_write_model_json(const ms_gpu_model *m, FILE *f, ms_error *err);

#endif
