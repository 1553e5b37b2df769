/* exec_run.h: the plan executor (`migsched run`) with its MPS plan and report, and the
 * cleanup after a crashed run. */
#ifndef MIGSCHED_EXEC_RUN_H
#define MIGSCHED_EXEC_RUN_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/exec_backend.h"
#include "migsched/gpu.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* MPS inside GPU instances (paper 004 plans, docs/hier.md): the instances whose tasks share
 * them through an MPS control daemon. The run starts `control -d` once such an instance
 * exists, with CUDA_VISIBLE_DEVICES=<its MIG uuid> and CUDA_MPS_PIPE_DIRECTORY and
 * CUDA_MPS_LOG_DIRECTORY under <root>/dev<D>-inst<K>/, gives its tasks the same two
 * variables, and stops the daemon (`echo quit | control`) before destroying the instance.
 * Only the nvml backend starts daemons; --dry-run lists the commands. */
typedef struct ms_mps_plan {
    int ninst;
    bool *daemon;      /* per plan instance */
    char control[512]; /* nvidia-cuda-mps-control (a path, or a name looked up on PATH) */
    char root[512];
} ms_mps_plan;
/* Reads {"format": "migsched-mps/1", "instances": [ids]} for plan s; control and root get
 * $MIGSCHED_MPS_CONTROL or "nvidia-cuda-mps-control", and "/tmp/migsched-mps". */
int ms_mps_plan_read(const char *path, const ms_schedule *s, ms_mps_plan **out, ms_error *err);
int ms_mps_plan_write_json(const int *daemon, int ninst, FILE *f, ms_error *err);
void ms_mps_plan_free(ms_mps_plan *p);

typedef enum ms_on_failure { MS_ON_FAILURE_CONTINUE, MS_ON_FAILURE_ABORT } ms_on_failure;

typedef struct ms_run_options {
    const char *backend; /* "nvml" or "sim" */
    ms_backend_options backend_opt;
    int ndevices; /* plan GPU g runs on devices[g] */
    int devices[MS_RUN_MAX_GPUS];
    bool dry_run;         /* print the operations and commands, touch nothing */
    const char *logs_dir; /* per-task stdout/stderr files (created if missing) */
    ms_on_failure on_failure;
    bool wait_on_stop; /* on abort/signal: let running tasks finish (else kill) */
    bool enable_mig;   /* enable MIG mode where it is off (else refuse) */
    bool keep_final;   /* leave the instances alive at the plan's end */
    /* What the devices hold before the plan, which the plan must start from: NULL or
     * "empty" (nothing: the plan creates every instance), a layout as ms_initial_parse
     * reads it, or "device" (what the plan's devices hold now). The sim backend's GPUs
     * hold the layout ("device": nothing). */
    const char *initial;
    const char *journal;    /* NULL = no journal (sim always goes without) */
    const char *lock_dir;   /* device locks (nvml); NULL = ms_runtime_dir */
    double time_scale;      /* sim: 0 = virtual time; s > 0 = sleep s x planned time */
    FILE *progress;         /* one line per event (NULL = quiet) */
    FILE *dry_out;          /* where --dry-run writes (NULL = stdout) */
    const ms_mps_plan *mps; /* MPS daemons to run in instances (NULL = none) */
} ms_run_options;

typedef enum ms_run_state {
    MS_RUN_PENDING = 0, /* not started (never started if the run stopped) */
    MS_RUN_RUNNING,
    MS_RUN_OK,
    MS_RUN_FAILED,  /* task: non-zero exit or killed; op: the backend failed */
    MS_RUN_SKIPPED, /* not run because its instance or the run failed */
} ms_run_state;

typedef struct ms_run_task {
    int index, instance, gpu;
    double planned_start, planned_end;
    double start, end; /* seconds of plan time (0 = the run's start); NAN if
                        * not run */
    ms_run_state state;
    int exit_status; /* exit code, or -signal when killed; -1000 if not run */
    char log[256];   /* stdout log path ("" if none); stderr is *.err beside */
} ms_run_task;

typedef enum ms_op_kind { MS_OP_CREATE, MS_OP_DESTROY } ms_op_kind;

typedef struct ms_run_op {
    ms_op_kind kind;
    int instance, gpu;
    double planned_start, planned_end; /* INFINITY: after the plan (the destruction of
                                        * an instance it leaves alive) */
    double start, end;
    ms_run_state state;
    unsigned gi_id; /* the GPU instance created / destroyed */
    char uuid[96];
    char error[MS_ERR_LEN];
} ms_run_op;

typedef struct ms_run_report {
    char backend[16];
    char gpu_model[MS_NAME_LEN];
    int ndevices;
    int devices[MS_RUN_MAX_GPUS];
    int ntasks;
    ms_run_task *tasks; /* in plan order (planned start) */
    int nops;
    ms_run_op *ops; /* in execution order per GPU */
    double makespan_planned, makespan;
    bool ok;                  /* every task ran and exited 0, nothing left behind */
    char stopped[MS_ERR_LEN]; /* why the run stopped early, "" if it did not */
    int signal;               /* SIGINT/SIGTERM that stopped it, 0 if none */
    int nleft;                /* instances this run created that are still alive (an
                               * initial instance is never this run's) */
    char left[MS_MAX_MIG * MS_RUN_MAX_GPUS][96];
} ms_run_report;

/* Carries the plan out. Tasks need a command unless the backend is sim. Returns MS_OK
 * when the run took place (see report->ok for its outcome), or an error when it could not
 * start (bad options, foreign instances in the way, MIG off, a plan that does not start
 * from opt->initial or devices that do not hold it, ...). The plan's initial instances
 * (null creation) are never created: their tasks run on them as the devices hold them, one
 * the plan destroys is destroyed only if no compute process runs on it, and none is
 * destroyed at the end nor on a stop. The journal records them as foreign. While it runs SIGINT
 * and SIGTERM are taken by the run (stop, clean up, report) and SIGCHLD/SIGUSR1 are
 * blocked in the calling thread; the previous mask is restored on return. */
int ms_run(const ms_schedule *s, const ms_workload *w, const ms_run_options *opt,
           ms_run_report **out, ms_error *err);
void ms_run_report_free(ms_run_report *r);
/* {"tasks": [...], "reconfigurations": [...], ...} (docs/exec.md). */
int ms_run_report_write_json(const ms_run_report *r, const ms_workload *w, FILE *f, ms_error *err);
/* Paper 000 Table 3: planned vs real end of each task, deviation % = (real-plan)/real. */
void ms_run_report_print(const ms_run_report *r, const ms_workload *w, FILE *f);

typedef struct ms_cleanup_options {
    const char *journal;
    ms_backend_options backend_opt;
    const char *lock_dir; /* NULL = ms_runtime_dir */
    bool force;           /* also destroy instances whose creation was in flight */
    double kill_grace_s;  /* SIGTERM -> SIGKILL for surviving tasks (0 = 5 s) */
    FILE *progress;       /* one line per action (NULL = quiet) */
} ms_cleanup_options;

#define MS_CLEANUP_MAX_LEFT 64

typedef struct ms_cleanup_report {
    int destroyed; /* instances removed */
    int killed;    /* task process groups stopped */
    int nleft;     /* what could not be removed, each with the reason */
    char left[MS_CLEANUP_MAX_LEFT][400];
} ms_cleanup_report;

/* After a crash: stops the task process groups the journal's runs left (SIGTERM, then
 * SIGKILL after the grace period), then destroys the instances they created and did not
 * destroy, each only if it is still the very instance recorded (ms_mig_same_instance).
 * Creations in flight at the crash are reported with the command that removes them and
 * destroyed only with `force`. Goes on past failures; rep lists what is left. Refuses
 * (MS_EBUSY) while the run that wrote the journal is alive or holds a device lock. */
int ms_run_cleanup(const ms_cleanup_options *o, ms_cleanup_report *rep, ms_error *err);

#endif
