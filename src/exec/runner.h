/* runner.h: the executor's state shared by the dependency engine (runner.c), its two
 * drivers: real processes and threads (run_real.c), virtual time and dry runs
 * (run_virtual.c), and the run's clock and progress lines (run_log.c). Private to
 * src/exec. */
#ifndef MIGSCHED_EXEC_RUNNER_H
#define MIGSCHED_EXEC_RUNNER_H

#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include "migsched/exec.h"

typedef struct run_inst {
    int gpu, profile, start_slot;
    int ntasks, *tasks; /* report task indices in planned order */
    int next_task;      /* first task not started */
    int running;        /* report task index running on it, -1 if none */
    bool alive;         /* exists (created by this run, or initial) and not destroyed */
    bool initial;       /* held before the plan: never created, never this run's */
    bool failed;        /* its creation failed or was skipped */
    bool changed;       /* someone else destroyed or replaced it (set by its op) */
    ms_mig_instance mi; /* what was created (or found, initial): the identity every
                         * destroy checks */
    bool mps_up;        /* an MPS control daemon of this run serves it */
} run_inst;

typedef struct run_gpu {
    ms_backend *backend;
    int first, count; /* its ops: report->ops[first .. first+count) */
    int next;         /* first op not started */
    bool busy;        /* an op is in flight */
} run_gpu;

typedef struct run_ctx run_ctx;

typedef struct run_driver {
    void (*start_op)(run_ctx *c, int op);
    void (*start_task)(run_ctx *c, int task);
    /* Blocks until something finishes (calling run_op_done / run_task_done) or a stop
     * signal arrives (calling run_stop). */
    void (*wait)(run_ctx *c);
    void (*kill_tasks)(run_ctx *c, int sig);
    /* Plan seconds since the run started: real time (scaled) or the virtual clock. */
    double (*now)(run_ctx *c);
} run_driver;

struct run_ctx {
    const ms_schedule *s;
    const ms_workload *w;
    const ms_run_options *o;
    ms_run_report *r;
    run_inst *inst;
    int ngpus;
    run_gpu gpu[MS_RUN_MAX_GPUS];
    const run_driver *driver;
    ms_journal *journal;
    ms_device_lock *locks[MS_RUN_MAX_GPUS];
    char fatal[MS_ERR_LEN]; /* why the run must stop whatever --on-failure says (journal
                             * write failed, device changed); guarded by lock */
    bool stopping;
    int stop_signal; /* SIGINT/SIGTERM that stopped the run, 0 if none */
    /* real driver */
    double t0;
    pthread_t main_thread;
    pthread_mutex_t lock;
    pid_t *pids;                 /* per report task, 0 if not running */
    unsigned long long *pstarts; /* per report task, its leader's start time (journalled) */
    char **envp;                 /* environment for tasks; the last five slots are ours */
    int nenv;
    char env_visible[160], env_index[48], env_slices[32]; /* what those slots point to */
    char env_mps_pipe[640], env_mps_log[640];             /* the two MPS slots (run_mps.c) */
    bool sim_tasks;   /* tasks sleep their planned time instead of running */
    double time_unit; /* real seconds per plan second (sim scaled time), else 1 */
    double kill_at;   /* when stopping: SIGKILL what still runs after this time */
    pthread_t op_thread[MS_RUN_MAX_GPUS];
    bool op_finished[MS_RUN_MAX_GPUS]; /* set by the op thread, taken by the main loop */
    int op_running[MS_RUN_MAX_GPUS];   /* op in flight per GPU */
    /* virtual driver */
    double vclock;
    double *op_done_at, *task_done_at; /* NAN when not in flight */
};

/* run_log.c */
double run_now(run_ctx *c);
void run_progress(run_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* runner.c: results from a driver: the op/task has ended (state, times and ids filled in). */
void run_op_done(run_ctx *c, int op);
void run_task_done(run_ctx *c, int task);
void run_stop(run_ctx *c, const char *why);
/* Records a reason to stop that --on-failure cannot override (any thread). */
void run_fatal(run_ctx *c, const char *why);
/* The plan's initial instances (run_initial.c): the layout c->o->initial names, checked
 * against the plan before any device is opened (in *sim_holds per GPU: what the sim
 * backend's GPUs hold); then every device against it, before anything changes there,
 * taking each initial instance's identity from the device (or a stand-in, dry run). */
int exec_initial_layout(run_ctx *c, ms_partition sim_holds[MS_RUN_MAX_GPUS], ms_error *err);
int exec_initial_find(run_ctx *c, ms_error *err);
/* Whether device instance `d` of GPU g is one of the plan's initial instances. */
bool exec_initial_is(const run_ctx *c, int g, const ms_mig_instance *d);
/* run_mps.c: after instance k exists, starts its MPS daemon if the plan asks (nvml
 * backend) or lists the command (dry run); returns 0, or -1 with why filled. Before it is
 * destroyed, stops the daemon if one runs. The MPS part of a task's environment: fills the
 * two slots env[0..1] (NULL when instance k has no daemon) and, for dry runs, text (may be
 * NULL) with "VAR=... VAR=... ". */
int run_mps_start(run_ctx *c, int k, char *why, size_t len);
void run_mps_stop(run_ctx *c, int k);
void run_mps_task_env(run_ctx *c, int k, char **env, char *text, size_t len);
/* Carries out one op on its backend (called by the drivers, maybe in a thread). */
void run_do_op(run_ctx *c, int op);
/* Runs the engine to the end (including the final cleanup) and fills the report. */
void run_engine(run_ctx *c);

extern const run_driver run_real_driver;
extern const run_driver run_virtual_driver;

#endif
