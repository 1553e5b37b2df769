/* engine.h: migschedd's core: the job queue, the scheduling loop (online: paper 002's
 * placement; batch: the offline planner with overlap concatenation), the jobs' execution on
 * the backend (sim: timed holds; nvml: processes in MIG instances), reconciliation at start
 * and the orderly stop. Every function is thread-safe: the HTTP server's threads call them
 * concurrently. It knows nothing of HTTP: callers map its outcomes to status codes.
 * Private to the daemon (src/daemon); see docs/daemon.md. */
#ifndef MIGSCHED_DAEMON_ENGINE_H
#define MIGSCHED_DAEMON_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "config.h"
#include "job.h"
#include "migsched/exec.h"
#include "store.h"

typedef struct ms_engine ms_engine;

/* Why a request was not carried out (the ms_error says what exactly). The HTTP layer maps
 * them: BAD_REQUEST 400, FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409, QUEUE_FULL 429,
 * STOPPING 503, INTERNAL 500. */
typedef enum ms_engine_outcome {
    MS_ENGINE_OK = 0,
    MS_ENGINE_BAD_REQUEST,   /* the request cannot be served as asked (e.g. no GPU can ever fit it) */
    MS_ENGINE_FORBIDDEN,     /* the caller may not (another user's job, a root job) */
    MS_ENGINE_NOT_FOUND,     /* no such job */
    MS_ENGINE_CONFLICT,      /* the job is in a state the request does not apply to */
    MS_ENGINE_QUEUE_FULL,    /* too many queued jobs (all, or the user's) */
    MS_ENGINE_STOPPING,      /* the daemon is shutting down */
    MS_ENGINE_INTERNAL,      /* the store or the backend failed */
} ms_engine_outcome;

/* Opens the configured backend's GPUs (sim: c->gpus simulated c->model; nvml: c->devices,
 * each locked with ms_device_lock_acquire and journalled like `migsched run`), reconciles
 * the store with what the backend and the journal show (instances that exist; jobs that
 * were running: process gone -> ms_job_interrupt, requeued under retry, failed under fail;
 * never a job running twice), then starts the scheduling loop. c must hold a model
 * (has_model; with nvml, every device must be that model) and stay valid until
 * ms_engine_close, st is owned by the caller and used only by the engine until then.
 * Returns 0, or an error (device owned by another process: MS_EBUSY) with nothing left
 * running. */
int ms_engine_open(const ms_daemon_config *c, ms_store *st, ms_engine **out, ms_error *err);

/* The orderly stop (SIGTERM): refuses new submissions (MS_ENGINE_STOPPING), then under
 * c->on_stop `wait` lets running jobs finish and starts no new one, under `requeue` stops
 * them (SIGTERM, then SIGKILL after the grace period) and interrupts them (requeued or
 * failed by their on_interrupt); destroys every instance the engine created; joins its
 * threads. Queued jobs stay queued in the store for the next start. */
int ms_engine_stop(ms_engine *e, ms_error *err);
/* Frees everything (after ms_engine_stop; or after a failed stop, leaving what is left). */
void ms_engine_close(ms_engine *e);

/* SIGHUP: applies the live keys of next (already checked by ms_daemon_config_check and
 * ms_daemon_config_reload_check) to the running engine. */
int ms_engine_reload(ms_engine *e, const ms_daemon_config *next, ms_error *err);

/* ---- The API's calls. Each *_json result is a new reference the caller decrefs. ---- */

/* Who asks: the caller, and whether they are an admin (root or a member of admin-group;
 * the API decides, per request). A job's spec and logs are shown, and it is cancelled,
 * only for its owner or an admin. */
typedef struct ms_engine_actor {
    ms_job_owner who;
    bool admin;
} ms_engine_actor;

/* The live keys the API authorizes with (a SIGHUP changes them): "" for none. */
typedef struct ms_engine_access {
    char admin_group[64];
    char slurm_user[64];
} ms_engine_access;
void ms_engine_access_get(ms_engine *e, ms_engine_access *out);

/* Queues one job owned by owner (taking ownership of *spec, which is zeroed); returns once
 * its submit transition is durable in the store (group-committed with concurrent
 * submissions), with the job's GET /v1/jobs/{id} JSON (the owner's view) in *job.
 * FORBIDDEN: the owner is uid 0 and allow-root-jobs is false; QUEUE_FULL: queue-limit, or
 * the owner's queued jobs at user-queue-limit or their specs' bytes past user-queue-bytes
 * with this one. */
ms_engine_outcome ms_engine_submit(ms_engine *e, ms_job_spec *spec, const ms_job_owner *owner,
                                   json_t **job, ms_error *err);
/* A queued job is cancelled at once; a running one gets SIGTERM, then SIGKILL after the
 * grace period, then its instance is freed, and is cancelled. *job: its JSON after.
 * FORBIDDEN (naming the owner): who is neither its owner nor an admin. */
ms_engine_outcome ms_engine_cancel(ms_engine *e, int64_t id, const ms_engine_actor *who,
                                   json_t **job, ms_error *err);
/* A job as who may see it (ms_job_to_json's detail for its owner and admins). */
ms_engine_outcome ms_engine_job(ms_engine *e, int64_t id, const ms_engine_actor *who,
                                json_t **job, ms_error *err);
/* Retention: deletes the jobs that finished more than `retention` seconds ago from the
 * store (ms_store_prune). Called at start; the group commit calls it again every
 * retention / 10 (at most hourly), so the store is bounded by what the node ran in a
 * retention period: every row it grows by comes through a commit. */
int ms_engine_prune(ms_engine *e, ms_error *err);
/* {"job": ID, "transitions": [...]}: the job's transitions in order
 * (ms_job_transition_to_json). FORBIDDEN (naming the owner): who is neither its owner nor an admin, as for its spec. */
ms_engine_outcome ms_engine_history(ms_engine *e, int64_t id, const ms_engine_actor *who,
                                    json_t **history, ms_error *err);
/* {"jobs": [...]}: a page of jobs (ms_store_job_page), each as who may see it; *next: the
 * page's last id when more jobs match beyond it, else 0. */
ms_engine_outcome ms_engine_jobs(ms_engine *e, const ms_store_job_query *q,
                                 const ms_engine_actor *who, json_t **jobs, int64_t *next,
                                 ms_error *err);
/* {"gpus": [{"gpu", "uuid", "model", "slots", "slices", "instances": [{"profile",
 * "placement": {"start"}, "gi_id", "mig_uuid", "state": "creating"|"idle"|"busy"|
 * "destroying", "job"}], "fragmentation", "busy_slices"}], "isolation": "devices"|"none"}
 * (what confines jobs: the configuration's isolation) */
ms_engine_outcome ms_engine_gpus(ms_engine *e, json_t **gpus, ms_error *err);
/* The current plan as migsched-schedule/1 JSON text (malloc'd; the caller frees it): online,
 * the running jobs; batch, the running plan as of the last batch's join (finished work
 * dropped), with their instances and times. */
ms_engine_outcome ms_engine_plan(ms_engine *e, char **schedule_json, ms_error *err);

/* ---- Allocations: Slurm jobs holding an instance (online mode; docs/daemon.md). Each
 * *alloc is the allocation's job JSON (GET /v1/jobs/{id}) with "steps" (the Slurm steps
 * holding it) and "gi_id" (its GPU instance id, null until placed). ---- */

/* Adds `step` to the live (queued or running) allocation of Slurm job spec->slurm_job_id,
 * making one from spec (its profile) owned by owner when there is none: idempotent. Takes
 * the spec. CONFLICT: the live allocation has another profile; BAD_REQUEST: mode batch. */
ms_engine_outcome ms_engine_alloc_step(ms_engine *e, ms_job_spec *spec,
                                       const ms_job_owner *owner, int64_t step,
                                       json_t **alloc, ms_error *err);
/* NOT_FOUND: the Slurm job has no live allocation. */
ms_engine_outcome ms_engine_alloc_get(ms_engine *e, int64_t slurm_id, json_t **alloc,
                                      ms_error *err);
/* Removes `step` (or, step -1, every step: the job's epilog); when no step is left the
 * allocation is released (running: done, its instance idle, before this returns; queued:
 * cancelled). NOT_FOUND: no live allocation; STOPPING: the daemon is stopping. */
ms_engine_outcome ms_engine_alloc_release(ms_engine *e, int64_t slurm_id, int64_t step,
                                          json_t **alloc, ms_error *err);
/* Releases the live allocations made before `asked` (seconds since the epoch: when Slurm
 * was asked) whose Slurm job is not among alive[0..n-1]; *released: how many. */
int ms_engine_alloc_reconcile(ms_engine *e, const int64_t *alive, size_t n, double asked,
                              int *released, ms_error *err);
/* Live allocations (the reconciler asks Slurm only when there are some). */
size_t ms_engine_alloc_count(ms_engine *e);

/* ---- Metrics: a consistent snapshot; the HTTP layer renders the exposition. ---- */

#define MS_ENGINE_TIME_BUCKETS 12   /* job wait and turnaround, seconds */
#define MS_ENGINE_RECONF_BUCKETS 10 /* instance creation and destruction, seconds */
extern const double ms_engine_time_bounds[MS_ENGINE_TIME_BUCKETS];   /* upper bounds, ascending */
extern const double ms_engine_reconf_bounds[MS_ENGINE_RECONF_BUCKETS];

/* A Prometheus histogram: count[i] = observations <= bounds[i] (cumulative); +Inf = total. */
typedef struct ms_engine_histogram {
    uint64_t count[MS_ENGINE_TIME_BUCKETS > MS_ENGINE_RECONF_BUCKETS ? MS_ENGINE_TIME_BUCKETS
                                                                     : MS_ENGINE_RECONF_BUCKETS];
    uint64_t total;
    double sum;
} ms_engine_histogram;

typedef struct ms_engine_instance_metrics {
    int profile;              /* index into the GPU model */
    int start;                /* placement */
    unsigned gi_id;
    char mig_uuid[96];
    bool busy;                /* holds a running job */
    int64_t job;              /* 0 when idle */
    char user[64];            /* the job's owner (ms_job_user); "" when idle */
} ms_engine_instance_metrics;

typedef struct ms_engine_gpu_metrics {
    int gpu;                  /* sim: 0..gpus-1; nvml: the device index */
    char uuid[96];            /* the physical GPU's UUID; sim: a stable made-up one */
    double fragmentation;     /* F(g) of DESIGN.md over its busy instances */
    int busy_slices;          /* compute slices of instances holding a running job */
    int ninstances;
    ms_engine_instance_metrics instance[MS_MAX_MIG];
} ms_engine_gpu_metrics;

typedef struct ms_engine_metrics {
    uint64_t jobs[MS_JOB_NSTATES];          /* jobs by state now (MS_JOB_NEW: 0) */
    uint64_t submitted_total;               /* since start, this process */
    uint64_t reconfigurations_total;        /* instance creations + destructions */
    uint64_t creations_total, destructions_total;
    ms_engine_histogram creation_seconds;   /* ms_engine_reconf_bounds */
    ms_engine_histogram destruction_seconds;
    ms_engine_histogram wait_seconds;       /* ms_engine_time_bounds: submit to start */
    ms_engine_histogram turnaround_seconds; /* submit to end, jobs done or failed */
    int ngpus;
    ms_engine_gpu_metrics gpu[MS_DAEMON_MAX_DEVICES];
} ms_engine_metrics;

ms_engine_outcome ms_engine_metrics_snapshot(ms_engine *e, ms_engine_metrics *out,
                                             ms_error *err);

#endif
