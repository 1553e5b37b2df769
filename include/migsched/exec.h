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

/* ---- The plan executor (`migsched run`) ------------------------------------------ */

#define MS_RUN_MAX_GPUS 16

/* MPS inside GPU instances (paper 004 plans, docs/hier.md): the instances whose tasks share
 * them through an MPS control daemon. The run starts `control -d` once such an instance
 * exists, with CUDA_VISIBLE_DEVICES=<its MIG uuid> and CUDA_MPS_PIPE_DIRECTORY and
 * CUDA_MPS_LOG_DIRECTORY under <root>/dev<D>-inst<K>/, gives its tasks the same two
 * variables, and stops the daemon (`echo quit | control`) before destroying the instance.
 * Only the nvml backend starts daemons; --dry-run lists the commands. */
typedef struct ms_mps_plan {
    int ninst;
    bool *daemon;       /* per plan instance */
    char control[512];  /* nvidia-cuda-mps-control (a path, or a name looked up on PATH) */
    char root[512];
} ms_mps_plan;
/* Reads {"format": "migsched-mps/1", "instances": [ids]} for plan s; control and root get
 * $MIGSCHED_MPS_CONTROL or "nvidia-cuda-mps-control", and "/tmp/migsched-mps". */
int ms_mps_plan_read(const char *path, const ms_schedule *s, ms_mps_plan **out, ms_error *err);
int ms_mps_plan_write_json(const int *daemon, int ninst, FILE *f, ms_error *err);
void ms_mps_plan_free(ms_mps_plan *p);

typedef enum ms_on_failure { MS_ON_FAILURE_CONTINUE, MS_ON_FAILURE_ABORT } ms_on_failure;

typedef struct ms_run_options {
    const char *backend;          /* "nvml" or "sim" */
    ms_backend_options backend_opt;
    int ndevices;                 /* plan GPU g runs on devices[g] */
    int devices[MS_RUN_MAX_GPUS];
    bool dry_run;                 /* print the operations and commands, touch nothing */
    const char *logs_dir;         /* per-task stdout/stderr files (created if missing) */
    ms_on_failure on_failure;
    bool wait_on_stop;            /* on abort/signal: let running tasks finish (else kill) */
    bool enable_mig;              /* enable MIG mode where it is off (else refuse) */
    bool keep_final;              /* leave the instances alive at the plan's end */
    const char *journal;          /* NULL = no journal (sim always goes without) */
    double time_scale;            /* sim: 0 = virtual time; s > 0 = sleep s x planned time */
    FILE *progress;               /* one line per event (NULL = quiet) */
    FILE *dry_out;                /* where --dry-run writes (NULL = stdout) */
    const ms_mps_plan *mps;       /* MPS daemons to run in instances (NULL = none) */
} ms_run_options;

typedef enum ms_run_state {
    MS_RUN_PENDING = 0, /* not started (never started if the run stopped) */
    MS_RUN_RUNNING,
    MS_RUN_OK,
    MS_RUN_FAILED,      /* task: non-zero exit or killed; op: the backend failed */
    MS_RUN_SKIPPED,     /* not run because its instance or the run failed */
} ms_run_state;

typedef struct ms_run_task {
    int index, instance, gpu;
    double planned_start, planned_end;
    double start, end;            /* seconds of plan time (0 = once the plan's initial
                                   * instances exist); NAN if not run */
    ms_run_state state;
    int exit_status;              /* exit code, or -signal when killed; -1000 if not run */
    char log[256];                /* stdout log path ("" if none); stderr is *.err beside */
} ms_run_task;

typedef enum ms_op_kind { MS_OP_CREATE, MS_OP_DESTROY } ms_op_kind;

typedef struct ms_run_op {
    ms_op_kind kind;
    int instance, gpu;
    double planned_start, planned_end;  /* -INFINITY/INFINITY: before/after the plan */
    double start, end;
    ms_run_state state;
    unsigned gi_id;               /* the GPU instance created / destroyed */
    char uuid[96];
    char error[MS_ERR_LEN];
} ms_run_op;

typedef struct ms_run_report {
    char backend[16];
    char gpu_model[MS_NAME_LEN];
    int ndevices;
    int devices[MS_RUN_MAX_GPUS];
    int ntasks;
    ms_run_task *tasks;           /* in plan order (planned start) */
    int nops;
    ms_run_op *ops;               /* in execution order per GPU */
    double makespan_planned, makespan;
    bool ok;                      /* every task ran and exited 0, nothing left behind */
    char stopped[160];            /* why the run stopped early, "" if it did not */
    int signal;                   /* SIGINT/SIGTERM that stopped it, 0 if none */
    int nleft;                    /* instances this run created that are still alive */
    char left[MS_MAX_MIG * MS_RUN_MAX_GPUS][96];
} ms_run_report;

/* Carries the plan out. Tasks need a command unless the backend is sim. Returns MS_OK
 * when the run took place (see report->ok for its outcome), or an error when it could not
 * start (bad options, foreign instances in the way, MIG off, ...). While it runs SIGINT
 * and SIGTERM are taken by the run (stop, clean up, report) and SIGCHLD/SIGUSR1 are
 * blocked in the calling thread; the previous mask is restored on return. */
int ms_run(const ms_schedule *s, const ms_workload *w, const ms_run_options *opt,
           ms_run_report **out, ms_error *err);
void ms_run_report_free(ms_run_report *r);
/* {"tasks": [...], "reconfigurations": [...], ...} (docs/exec.md). */
int ms_run_report_write_json(const ms_run_report *r, const ms_workload *w, FILE *f,
                             ms_error *err);
/* Paper 000 Table 3: planned vs real end of each task, deviation % = (real-plan)/real. */
void ms_run_report_print(const ms_run_report *r, const ms_workload *w, FILE *f);

/* Destroys what the runs recorded in the journal created and did not destroy (after a
 * crash); *destroyed counts them. Instances that were not migsched's are never touched. */
int ms_run_cleanup(const char *journal, const ms_backend_options *bo, FILE *progress,
                   int *destroyed, ms_error *err);

/* ---- Layouts for NVIDIA's tooling (`migsched layout`) ------------------------------ */

/* The instances of GPU g alive at time t (created by t, not yet destroyed at t). */
int ms_layout_at(const ms_schedule *s, int gpu, double t, ms_partition *out);
/* mig-parted config (YAML, version v1) with one entry per GPU of the plan. */
int ms_layout_write_mig_parted(const ms_schedule *s, double t, const char *config_name,
                               FILE *f, ms_error *err);
int ms_layout_write_json(const ms_schedule *s, double t, FILE *f, ms_error *err);

/* ---- The profiler (`migsched profile`) -------------------------------------------- */

typedef struct ms_profile_options {
    const char *backend;          /* "nvml" or "sim" (sim: instances simulated, tasks real) */
    ms_backend_options backend_opt;
    int device;
    const ms_gpu_model *gpu;      /* NULL = the device's model */
    int reps;                     /* runs of each task per size (and creations per size) */
    int nsizes;                   /* sizes to profile; 0 = every size of the model */
    int sizes[MS_MAX_SLICES];
    const char *logs_dir;         /* task output; NULL = discarded */
    const char *journal;          /* NULL = none */
    FILE *progress;               /* NULL = quiet */
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
