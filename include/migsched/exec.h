/* exec.h: carrying plans out on MIG GPUs: the backend interface (nvml, sim), the plan
 * executor with its journal and report, layouts for NVIDIA's tooling, the profiler. */
#ifndef MIGSCHED_EXEC_H
#define MIGSCHED_EXEC_H

#include <stdbool.h>
#include <stddef.h>
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
    /* sim: the instances the simulated GPU holds when opened (NULL: none). */
    const ms_partition *sim_holds;
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
#define MS_RUN_MAX_GPUS 16   /* GPUs one run drives */

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

/* GPUs the backend sees (nvml: nvmlDeviceGetCount_v2; sim: one). */
int ms_backend_device_count(const char *kind, const ms_backend_options *opt, int *n,
                            ms_error *err);

int ms_backend_mig_mode(ms_backend *b, bool *enabled, ms_error *err);
/* Both fail (MS_EBACKEND, saying a GPU reset is needed) when the new mode is only pending;
 * disabling needs a GPU without instances. */
int ms_backend_enable_mig(ms_backend *b, ms_error *err);
int ms_backend_disable_mig(ms_backend *b, ms_error *err);
/* Every GPU instance on the device, sorted by start slot. */
int ms_backend_list(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n, ms_error *err);
/* The run journal (below): what a run owns, for cleanup after a crash. */
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
int ms_backend_create_journaled(ms_backend *b, ms_journal *j, ms_placement p,
                                ms_mig_instance *out, ms_error *err);
/* Destroys every compute instance of the GPU instance, then the GPU instance. */
int ms_backend_destroy(ms_backend *b, unsigned gi_id, ms_error *err);
/* The PIDs of the compute processes running on the GPU instance's MIG devices (nvml:
 * nvmlDeviceGetComputeRunningProcesses_v3 on each MIG device handle of the instance); at
 * most max, sorted, each once; *n = 0 when idle. The sim backend runs nothing. */
#define MS_MAX_PIDS 64
int ms_backend_processes(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n,
                         ms_error *err);

/* The physical GPU's UUID ("GPU-..."; nvml), "" for the sim backend (nothing to own). */
const char *ms_backend_gpu_uuid(const ms_backend *b);
/* The GPU's minor number: its node is /dev/nvidia<minor> and mig-minors lists its MIG
 * capabilities under gpu<minor> (nvml: nvmlDeviceGetMinorNumber, read at open and after a
 * MIG mode change; its failure is reported here, not by the open; sim: the device index). */
int ms_backend_gpu_minor(const ms_backend *b, unsigned *minor, ms_error *err);
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
int ms_backend_destroy_owned(ms_backend *b, ms_journal *j, ms_mig_instance *was,
                             ms_error *err);

/* ---- Device ownership ------------------------------------------------------------- */

/* The folder for device locks and default journals and logs, created if missing:
 * $MIGSCHED_RUNTIME_DIR, else /run/migsched for root, else $XDG_RUNTIME_DIR/migsched, else
 * ${TMPDIR:-/tmp}/migsched-UID (which must be ours). */
int ms_runtime_dir(char *buf, size_t len, ms_error *err);
/* <runtime dir>/run-dev<D1>-<D2>...<suffix>: where a run on those devices keeps its
 * journal (".journal") and logs (".logs") unless told otherwise. */
int ms_default_run_path(const int *devices, int n, const char *suffix, char *buf, size_t len,
                        ms_error *err);

/* One owner per physical GPU: an exclusive flock on <dir>/<GPU UUID>.lock (dir NULL = the
 * runtime dir) holding "PID START". Taken without waiting: MS_EBUSY naming the holder's PID
 * when another process (or another lock in this one) holds it. The kernel releases it when
 * the owner exits, however it dies. */
typedef struct ms_device_lock ms_device_lock;
int ms_device_lock_acquire(const char *dir, const char *gpu_uuid, ms_device_lock **out,
                           ms_error *err);
void ms_device_lock_release(ms_device_lock *l);

/* ---- The run journal -------------------------------------------------------------- */

/* An append-only text file recording what a run owns, each record written (and fsync-ed
 * when it announces a change) before the change: "run BACKEND MODEL PID START",
 * "device DEV GPU-UUID", "foreign DEV GI START SIZE UUID|-", "begin DEV START SIZE",
 * "gi DEV GI START SIZE PROFILE", "created DEV GI START SIZE UUID",
 * "destroying DEV GI START SIZE PROFILE CI UUID", "destroyed DEV GI", "settled DEV START",
 * "task DEV PGID START INDEX", "ended PGID", "finished", "clean" (docs/exec.md). A crash mid-write leaves at most the
 * last record cut short (no final newline): the reader drops it, a writer cuts it off.
 * Every writer returns an error once a write failed (and keeps failing): the caller must
 * stop changing the device. */
/* Opens path for appending (a regular file, created if missing with mode 0600) and writes
 * the "run" record (this process) durably; backend NULL appends without a "run" record
 * (cleanup). A journal is used only in a folder that only we (or root) can write, and only
 * if it is a regular file of ours or root's, opened without following a link: anything
 * else is refused, naming it, and never read nor acted on. */
int ms_journal_open(const char *path, const char *backend, const char *model, ms_journal **out,
                    ms_error *err);
/* Appends "clean": nothing the journal recorded is left (cleanup's last word). */
int ms_journal_clean(ms_journal *j, ms_error *err);
/* Appends "finished" and compacts when asked; closes. */
int ms_journal_close(ms_journal *j, bool finished, ms_error *err);
int ms_journal_device(ms_journal *j, int device, const char *gpu_uuid, ms_error *err);
int ms_journal_foreign(ms_journal *j, int device, const ms_mig_instance *in, ms_error *err);
int ms_journal_create_begin(ms_journal *j, int device, int start_slot, int size_slots,
                            ms_error *err);
/* NVML made the GPU instance `in` (m names its profile); its compute instance is not made
 * yet: synced, so that a crash before "created" leaves an instance the journal names. */
int ms_journal_gi_made(ms_journal *j, int device, const ms_gpu_model *m,
                       const ms_mig_instance *in, ms_error *err);
int ms_journal_created(ms_journal *j, int device, const ms_mig_instance *in, ms_error *err);
/* A destroy of `in` (as the device lists it; m names its profile) is about to start. */
int ms_journal_destroying(ms_journal *j, int device, const ms_gpu_model *m,
                          const ms_mig_instance *in, ms_error *err);
int ms_journal_destroyed(ms_journal *j, int device, unsigned gi_id, ms_error *err);
/* A task process group (its leader's pid and start time), with the cgroup that holds all of
 * its processes (NULL or "": none; a path without whitespace, shorter than
 * MS_JOURNAL_CGROUP_LEN), and its end. */
int ms_journal_task(ms_journal *j, int device, int pgid, unsigned long long start, int index,
                    const char *cgroup, ms_error *err);
/* The end names the task by its leader's pid and start time: once the leader is reaped its
 * pid may lead another task while this one's cgroup still drains. */
int ms_journal_task_ended(ms_journal *j, int pgid, unsigned long long start, ms_error *err);
/* A creation begun at start_slot that recovery settled (what is there now is recorded as
 * found): its "begin" record is closed. */
int ms_journal_begin_settled(ms_journal *j, int device, int start_slot, ms_error *err);
/* Rewrites the journal as the records it leaves open (the same state on replay): a new
 * file from mkstemp in its folder (mode 0600), synced, renamed over it, the folder synced.
 * A journal that grows past MS_JOURNAL_COMPACT_BYTES is compacted as it is written; a
 * clean close ("finished") compacts it too. */
#define MS_JOURNAL_COMPACT_BYTES (256 * 1024)
int ms_journal_compact(ms_journal *j, ms_error *err);

/* What a journal leaves open after replay. */
#define MS_JOURNAL_MAX_RECORDS 512

typedef enum ms_journal_kind {
    MS_JOURNAL_CREATED,   /* created and not destroyed: migsched's (gi_id, uuid known) */
    MS_JOURNAL_BEGUN,     /* creation asked for, never confirmed (crash inside it) */
    MS_JOURNAL_FOREIGN,   /* present when the last run started: never migsched's */
    MS_JOURNAL_TASK,      /* a task process group that was not seen to end */
    MS_JOURNAL_DESTROYING,  /* migsched's, its destroy begun and not seen to end */
    MS_JOURNAL_GI_MADE,   /* a GPU instance of migsched's whose creation (its compute
                           * instance) was not confirmed: gi_id, slots, profile known */
} ms_journal_kind;

#define MS_JOURNAL_CGROUP_LEN 256

typedef struct ms_journal_rec {
    ms_journal_kind kind;
    int device;
    unsigned gi_id;
    int start, size;
    char uuid[96];
    char profile[MS_NAME_LEN];   /* destroying, gi made: the profile's name, "" if unknown */
    int ci;                      /* destroying: its compute instance, -1 if none */
    int pgid, task;
    unsigned long long pstart;   /* task leader's start time */
    char cgroup[MS_JOURNAL_CGROUP_LEN]; /* task: the cgroup of all its processes, "" if none */
    int line;                    /* where it was recorded */
} ms_journal_rec;

typedef struct ms_journal_state {
    char backend[16], model[MS_NAME_LEN];
    int owner_pid;               /* the last run's process */
    unsigned long long owner_start;
    bool finished;               /* the last run ended normally */
    int torn_line;               /* the last record, cut short by a crash: dropped (0: none) */
    int ndev;
    struct { int device; char uuid[96]; } dev[MS_RUN_MAX_GPUS];
    int n;
    ms_journal_rec rec[MS_JOURNAL_MAX_RECORDS];
} ms_journal_state;

/* Reads and replays the journal at path under the rules of ms_journal_open; *found false
 * (and MS_OK) when there is no file there. Any other failure (EACCES, a NUL byte, over the
 * input limit, a bad record) is an error naming the file (and line): never no journal. */
int ms_journal_load(const char *path, ms_journal_state *st, bool *found, ms_error *err);
/* Replays a journal's text. Impossible records (negative ids, an unknown model, placements
 * outside the model, trailing junk, a NUL byte) are errors naming source and line; text
 * after the last newline is a record cut short (torn_line), dropped. */
int ms_journal_parse(const char *text, size_t len, const char *source, ms_journal_state *st,
                     ms_error *err);

/* What the open CREATED, GI_MADE and DESTROYING records of a device say about an instance
 * that device lists now (m: the device's model, naming its profile): the strongest claim, and
 * in *why the record making it (NULL for MS_CLAIM_NONE). */
typedef enum ms_claim {
    MS_CLAIM_NONE,       /* another GPU-instance id: the record says nothing about it */
    MS_CLAIM_STRANGER,   /* the recorded id, but not the recorded instance: never touched */
    MS_CLAIM_UNPROVEN,   /* created: the recorded id and slots but no MIG device, and no
                          * destroy of ours under way; or (gi made) the recorded id, slots
                          * and profile with a compute instance: a stranger's new instance
                          * looks the same */
    MS_CLAIM_OURS,       /* the very instance recorded, or (destroying) its remains with the
                          * recorded id, slots and profile and no compute instance, or (gi
                          * made) the recorded id, slots and profile without one */
} ms_claim;
ms_claim ms_journal_claim(const ms_journal_state *st, int device, const ms_gpu_model *m,
                          const ms_mig_instance *now, const ms_journal_rec **why);

/* ---- The plan executor (`migsched run`) ------------------------------------------ */

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
    /* What the devices hold before the plan, which the plan must start from: NULL or
     * "empty" (nothing: the plan creates every instance), a layout as ms_initial_parse
     * reads it, or "device" (what the plan's devices hold now). The sim backend's GPUs
     * hold the layout ("device": nothing). */
    const char *initial;
    const char *journal;          /* NULL = no journal (sim always goes without) */
    const char *lock_dir;         /* device locks (nvml); NULL = ms_runtime_dir */
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
    double start, end;            /* seconds of plan time (0 = the run's start); NAN if
                                   * not run */
    ms_run_state state;
    int exit_status;              /* exit code, or -signal when killed; -1000 if not run */
    char log[256];                /* stdout log path ("" if none); stderr is *.err beside */
} ms_run_task;

typedef enum ms_op_kind { MS_OP_CREATE, MS_OP_DESTROY } ms_op_kind;

typedef struct ms_run_op {
    ms_op_kind kind;
    int instance, gpu;
    double planned_start, planned_end;  /* INFINITY: after the plan (the destruction of
                                         * an instance it leaves alive) */
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
    char stopped[MS_ERR_LEN];     /* why the run stopped early, "" if it did not */
    int signal;                   /* SIGINT/SIGTERM that stopped it, 0 if none */
    int nleft;                    /* instances this run created that are still alive (an
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
int ms_run_report_write_json(const ms_run_report *r, const ms_workload *w, FILE *f,
                             ms_error *err);
/* Paper 000 Table 3: planned vs real end of each task, deviation % = (real-plan)/real. */
void ms_run_report_print(const ms_run_report *r, const ms_workload *w, FILE *f);

typedef struct ms_cleanup_options {
    const char *journal;
    ms_backend_options backend_opt;
    const char *lock_dir;         /* NULL = ms_runtime_dir */
    bool force;                   /* also destroy instances whose creation was in flight */
    double kill_grace_s;          /* SIGTERM -> SIGKILL for surviving tasks (0 = 5 s) */
    FILE *progress;               /* one line per action (NULL = quiet) */
} ms_cleanup_options;

#define MS_CLEANUP_MAX_LEFT 64

typedef struct ms_cleanup_report {
    int destroyed;                /* instances removed */
    int killed;                   /* task process groups stopped */
    int nleft;                    /* what could not be removed, each with the reason */
    char left[MS_CLEANUP_MAX_LEFT][400];
} ms_cleanup_report;

/* After a crash: stops the task process groups the journal's runs left (SIGTERM, then
 * SIGKILL after the grace period), then destroys the instances they created and did not
 * destroy, each only if it is still the very instance recorded (ms_mig_same_instance).
 * Creations in flight at the crash are reported with the command that removes them and
 * destroyed only with `force`. Goes on past failures; rep lists what is left. Refuses
 * (MS_EBUSY) while the run that wrote the journal is alive or holds a device lock. */
int ms_run_cleanup(const ms_cleanup_options *o, ms_cleanup_report *rep, ms_error *err);

/* ---- Layouts for NVIDIA's tooling (`migsched layout`) ------------------------------ */

/* The instances of GPU g alive at time t (created by t, not yet destroyed at t). */
int ms_layout_at(const ms_schedule *s, int gpu, double t, ms_partition *out);
/* mig-parted config (YAML, version v1) with one entry per GPU of the plan. */
int ms_layout_write_mig_parted(const ms_schedule *s, double t, const char *config_name,
                               FILE *f, ms_error *err);
int ms_layout_write_json(const ms_schedule *s, double t, FILE *f, ms_error *err);

/* ---- mig-parted configs (`migsched apply`, `migsched export`) ------------------ */

/* NVIDIA mig-parted's "version: v1" format: named configs, each a list of entries
 * {devices: all | [indices], mig-enabled: bool, mig-devices: {"1g.5gb": 2, ...}}. */
#define MS_MIGPARTED_MAX_DEVICES 64
typedef struct ms_migparted_count {
    char profile[MS_NAME_LEN];   /* as written; checked against a device's model on apply */
    int count;
    int line, column;            /* 1-based, where the key is */
} ms_migparted_count;

typedef struct ms_migparted_entry {
    int line, column;            /* where the entry starts */
    bool all;                    /* devices: all */
    int ndevices;
    int devices[MS_MIGPARTED_MAX_DEVICES];
    bool mig_enabled;
    bool device_filter;          /* has a device-filter (not supported by apply) */
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
    int keep[MS_MAX_MIG];        /* indices into the current instances */
    int destroy[MS_MAX_MIG];
    ms_placement create[MS_MAX_INSTANCES];  /* in slot order */
    uint32_t blocking;           /* on MS_EBUSY: bit i = busy current instance i in the way */
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
    const char *backend;          /* "nvml" or "sim" */
    ms_backend_options backend_opt;
    const ms_gpu_model *model;    /* sim: the GPU to emulate; nvml: NULL = each device's */
    int ndevices;                 /* 0 = every device the config names */
    int devices[MS_RUN_MAX_GPUS];
    bool dry_run;                 /* print the NVML operations, change nothing */
    bool check;                   /* as dry_run, and MS_ECHANGED when anything is to do
                                   * (mig-parted's assert) */
    bool mode_only;               /* only MIG mode (mig-parted's --mode-only): enable it
                                   * where wanted; disabling still clears the GPU */
    const char *lock_dir;         /* NULL = ms_runtime_dir */
    FILE *out;                    /* operations done (or, dry, to do); NULL = stdout */
} ms_apply_options;

/* Brings every selected device to the config's layout. Every device is locked and planned
 * before any is changed: a refusal (a busy instance in the way, an unknown profile, a
 * device outside the config) changes nothing. Busy instances are never destroyed; idle
 * ones, migsched's or not, are destroyed only where the target needs their slots or drops
 * their profile. */
int ms_apply(const ms_migparted *cfgs, const char *name, const ms_apply_options *o,
             ms_error *err);

/* Prints the devices' current layout as a v1 config named `name` (ndevices 0 = all). */
int ms_export(const char *backend, const ms_backend_options *bo, const ms_gpu_model *model,
              const int *devices, int ndevices, const char *name, FILE *f, ms_error *err);

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
    const char *lock_dir;         /* device lock (nvml); NULL = ms_runtime_dir */
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
