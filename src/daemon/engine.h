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

typedef struct md_engine md_engine;

/* Why a request was not carried out (the ms_error says what exactly). The HTTP layer maps
 * them: BAD_REQUEST 400, FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409, QUEUE_FULL 429,
 * STOPPING 503, INTERNAL 500. */
typedef enum md_engine_outcome {
    MD_ENGINE_OK = 0,
    MD_ENGINE_BAD_REQUEST, /* the request cannot be served as asked (e.g. no GPU can ever fit it) */
    MD_ENGINE_FORBIDDEN,   /* the caller may not (another user's job, a root job) */
    MD_ENGINE_NOT_FOUND,   /* no such job */
    MD_ENGINE_CONFLICT,    /* the job is in a state the request does not apply to */
    MD_ENGINE_QUEUE_FULL,  /* too many queued jobs (all, or the user's) */
    MD_ENGINE_STOPPING,    /* the daemon is shutting down */
    MD_ENGINE_INTERNAL,    /* the store or the backend failed */
} md_engine_outcome;

/* Opens the configured backend's GPUs (sim: c->gpus simulated c->model; nvml: c->devices,
 * each locked with ms_device_lock_open and journalled like `migsched run`), reconciles
 * the store with what the backend and the journal show (instances that exist; jobs that
 * were running: process gone -> md_job_interrupt, requeued under retry, failed under fail;
 * never a job running twice), then starts the scheduling loop. c must hold a model
 * (has_model; with nvml, every device must be that model) and stay valid until
 * md_engine_close, st is owned by the caller and used only by the engine until then.
 * Returns 0, or an error (device owned by another process: MS_EBUSY) with nothing left
 * running. */
int md_engine_open(const md_config *c, md_store *st, md_engine **out, ms_error *err);

/* The orderly stop (SIGTERM): refuses new submissions (MD_ENGINE_STOPPING), then under
 * c->on_stop `wait` lets running jobs finish and starts no new one, under `requeue` stops
 * them (SIGTERM, then SIGKILL after the grace period) and interrupts them (requeued or
 * failed by their on_interrupt); destroys every instance the engine created; joins its
 * threads. Queued jobs stay queued in the store for the next start. */
int md_engine_stop(md_engine *e, ms_error *err);
/* Frees everything (after md_engine_stop; or after a failed stop, leaving what is left). */
void md_engine_close(md_engine *e);

/* SIGHUP: applies the live keys of next (already checked by md_config_check and
 * md_config_reload_check) to the running engine. */
int md_engine_reload(md_engine *e, const md_config *next, ms_error *err);

/* ---- The API's calls. Each *_json result is a new reference the caller decrefs. ---- */

/* Who asks: the caller, and whether they are an admin (root or a member of admin-group;
 * the API decides, per request). A job's spec and logs are shown, and it is cancelled,
 * only for its owner or an admin. */
typedef struct md_engine_actor {
    md_job_owner who;
    bool admin;
} md_engine_actor;

/* The live keys the API authorizes with (a SIGHUP changes them): "" for none. */
typedef struct md_engine_access {
    char admin_group[64];
    char slurm_user[64];
} md_engine_access;
void md_engine_access_get(md_engine *e, md_engine_access *out);

/* Queues one job owned by owner (taking ownership of *spec, which is zeroed); returns once
 * its submit transition is durable in the store (group-committed with concurrent
 * submissions), with the job's GET /v1/jobs/{id} JSON (the owner's view) in *job.
 * FORBIDDEN: the owner is uid 0 and allow-root-jobs is false; QUEUE_FULL: queue-limit, or
 * the owner's queued jobs at user-queue-limit or their specs' bytes past user-queue-bytes
 * with this one. */
md_engine_outcome md_engine_submit(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                   json_t **job, ms_error *err);
/* A queued job is cancelled at once; a running one gets SIGTERM, then SIGKILL after the
 * grace period, then its instance is freed, and is cancelled. *job: its JSON after.
 * FORBIDDEN (naming the owner): who is neither its owner nor an admin. */
md_engine_outcome md_engine_cancel(md_engine *e, int64_t id, const md_engine_actor *who,
                                   json_t **job, ms_error *err);
/* A job as who may see it (md_job_to_json's detail for its owner and admins). */
md_engine_outcome md_engine_job(md_engine *e, int64_t id, const md_engine_actor *who, json_t **job,
                                ms_error *err);
/* Retention: deletes the jobs that finished more than `retention` seconds ago from the
 * store (md_store_prune). Called at start; the group commit calls it again every
 * retention / 10 (at most hourly), so the store is bounded by what the node ran in a
 * retention period: every row it grows by comes through a commit. */
int md_engine_prune(md_engine *e, ms_error *err);
/* {"job": ID, "transitions": [...]}: the job's transitions in order
 * (md_job_transition_to_json). FORBIDDEN (naming the owner): who is neither its owner nor an admin,
 * as for its spec. */
md_engine_outcome md_engine_history(md_engine *e, int64_t id, const md_engine_actor *who,
                                    json_t **history, ms_error *err);
/* {"jobs": [...]}: a page of jobs (md_store_job_page), each as who may see it; *next: the
 * page's last id when more jobs match beyond it, else 0. */
md_engine_outcome md_engine_jobs(md_engine *e, const md_store_job_query *q,
                                 const md_engine_actor *who, json_t **jobs, int64_t *next,
                                 ms_error *err);
/* {"gpus": [{"gpu", "uuid", "model", "slots", "slices", "instances": [{"profile",
 * "placement": {"start"}, "gi_id", "mig_uuid", "state": "creating"|"idle"|"busy"|
 * "destroying", "job", "job_name", "user"}], "fragmentation", "busy_slices"}], "isolation":
 * "devices"|"none"} (what confines jobs: the configuration's isolation; a running job's
 * name and owner are public fields) */
md_engine_outcome md_engine_gpus(md_engine *e, json_t **gpus, ms_error *err);
/* The current plan as migsched-schedule/1 JSON text (malloc'd; the caller frees it): online,
 * the running jobs; batch, the running plan as of the last batch's join (finished work
 * dropped), with their instances and times. */
md_engine_outcome md_engine_plan(md_engine *e, char **schedule_json, ms_error *err);
/* The plan as the status page draws it (GET /v1/plan?live=true): md_engine_plan's without
 * the tasks whose jobs have ended, each task with "job" (its id) and "state" ("running",
 * "planned"), "clock": {"t0": the plan's time 0 in seconds since the epoch (online, or
 * before a batch's first plan: 0, the times are such seconds already), "now": the plan's
 * time now}, and "mode": "online"|"batch". */
md_engine_outcome md_engine_plan_live(md_engine *e, json_t **plan, ms_error *err);

/* ---- Allocations: Slurm jobs holding an instance (online mode; docs/daemon.md). Each
 * *alloc is the allocation's job JSON (GET /v1/jobs/{id}) with "steps" (the Slurm steps
 * holding it) and "gi_id" (its GPU instance id, null until placed). ---- */

/* Whether this migschedd makes allocations: OK in mode online, else BAD_REQUEST with the
 * reason in err (the mode is fixed at start: asked before anything else of a request). */
md_engine_outcome md_engine_alloc_mode(const md_engine *e, ms_error *err);
/* Adds `step` to the live (queued or running) allocation of Slurm job spec->slurm_job_id,
 * making one from spec (its profile) owned by owner when there is none: idempotent. Takes
 * the spec. CONFLICT: the live allocation has another profile; BAD_REQUEST: mode batch. */
md_engine_outcome md_engine_alloc_step(md_engine *e, md_job_spec *spec, const md_job_owner *owner,
                                       int64_t step, json_t **alloc, ms_error *err);
/* NOT_FOUND: the Slurm job has no live allocation. */
md_engine_outcome md_engine_alloc_get(md_engine *e, int64_t slurm_id, json_t **alloc,
                                      ms_error *err);
/* Removes `step` (or, step -1, every step: the job's epilog); when no step is left the
 * allocation is released (running: done, its instance idle, before this returns; queued:
 * cancelled). NOT_FOUND: no live allocation; STOPPING: the daemon is stopping. */
md_engine_outcome md_engine_alloc_release(md_engine *e, int64_t slurm_id, int64_t step,
                                          json_t **alloc, ms_error *err);
/* Releases the live allocations made before `asked` (seconds since the epoch: when Slurm
 * was asked) whose Slurm job is not among alive[0..n-1]; *released: how many. */
int md_engine_alloc_reconcile(md_engine *e, const int64_t *alive, size_t n, double asked,
                              int *released, ms_error *err);
/* Live allocations (the reconciler asks Slurm only when there are some). */
size_t md_engine_alloc_count(md_engine *e);

/* ---- Slurm's view of the node (engine_slurm.c; slurm_agent.c keeps Slurm in step) ---- */

/* An allocation placed since the last md_engine_slurm_take: what its Slurm job's
 * AdminComment names. */
typedef struct md_engine_placed {
    int64_t slurm_job_id;
    char profile[32];
    int gpu; /* the device index */
    char gpu_uuid[96], mig_uuid[96];
    double placed; /* when it started (monotonic seconds) */
} md_engine_placed;

typedef struct md_engine_slurm_view {
    /* The count-only GRES that keeps Slurm's admission truthful (md_slurm_count): the
     * compute slices of the running allocations plus the most one instance could have if
     * placed now, at least the model's largest instance. */
    long node_slices;
    md_engine_placed *placed; /* malloc'd; the caller frees it */
    size_t nplaced;
} md_engine_slurm_view;

/* The longest a placed allocation is shown not yet ready ("comment_pending") while its
 * AdminComment is being set: Slurm slow or down delays a job's start by this at most. */
#define MD_ENGINE_COMMENT_WAIT 5.0

/* The node as Slurm should see it, and the placements not yet told (taken: told once). */
int md_engine_slurm_take(md_engine *e, md_engine_slurm_view *out, ms_error *err);
/* The AdminComment of Slurm job slurm_job's allocation was tried (set, or refused): the
 * allocation is ready. Returns whether it still runs (a refused comment may be tried
 * again while it does). */
bool md_engine_slurm_commented(md_engine *e, int64_t slurm_job);
/* The count-only slices each pending Slurm job asks (squeue), replacing the last ones:
 * placements keep room for their sizes (placement.h). */
void md_engine_slurm_pending(md_engine *e, const long *slices, size_t n);
/* fn(ctx) is called (with the engine's lock held: it must only wake someone) when an
 * allocation is placed or a running job ends, so that Slurm hears of it soon. comments:
 * fn's owner sets each placed allocation's AdminComment (md_engine_slurm_take's placed),
 * and the allocation is shown ready only once md_engine_slurm_commented says it was
 * tried, or MD_ENGINE_COMMENT_WAIT after its start: its job starts with its comment.
 * Turning comments on also takes the allocations running then (recovered at open). */
void md_engine_slurm_hook(md_engine *e, void (*fn)(void *ctx), void *ctx, bool comments);

/* ---- Metrics: a consistent snapshot; the HTTP layer renders the exposition. ---- */

#define MD_ENGINE_TIME_BUCKETS   12 /* job wait and turnaround, seconds */
#define MD_ENGINE_RECONF_BUCKETS 10 /* instance creation and destruction, seconds */
extern const double md_engine_time_bounds[MD_ENGINE_TIME_BUCKETS]; /* upper bounds, ascending */
extern const double md_engine_reconf_bounds[MD_ENGINE_RECONF_BUCKETS];

/* A Prometheus histogram: count[i] = observations <= bounds[i] (cumulative); +Inf = total. */
typedef struct md_engine_histogram {
    uint64_t count[MD_ENGINE_TIME_BUCKETS > MD_ENGINE_RECONF_BUCKETS ? MD_ENGINE_TIME_BUCKETS
                                                                     : MD_ENGINE_RECONF_BUCKETS];
    uint64_t total;
    double sum;
} md_engine_histogram;

typedef struct md_engine_instance_metrics {
    int profile; /* index into the GPU model */
    int start;   /* placement */
    unsigned gi_id;
    char mig_uuid[96];
    bool busy;     /* holds a running job */
    int64_t job;   /* 0 when idle */
    char user[64]; /* the job's owner (md_job_user); "" when idle */
    /* The running job's name, Slurm job id (0: not an allocation) and start (epoch s). */
    char name[MD_JOB_NAME_MAX + 1];
    int64_t slurm_job;
    double started;
} md_engine_instance_metrics;

typedef struct md_engine_gpu_metrics {
    int gpu;       /* sim: 0..gpus-1; nvml: the device index */
    char uuid[96]; /* the physical GPU's UUID; sim: a stable made-up one */
    /* "00000000:3B:00.0" and the minor number of /dev/nvidia<minor> ("" and -1: unknown);
     * the device's name as NVML reports it ("NVIDIA A100-SXM4-40GB"; sim: "simulated
     * A100-40GB"). */
    char pci_bus_id[MS_PCI_BUS_ID_LEN];
    int minor;
    char model_name[96];
    double fragmentation; /* F(g) of DESIGN.md over its busy instances */
    int busy_slices;      /* compute slices of instances holding a running job */
    int ninstances;
    md_engine_instance_metrics instance[MS_MAX_MIG];
} md_engine_gpu_metrics;

typedef struct md_engine_metrics {
    uint64_t jobs[MD_JOB_NSTATES];   /* jobs by state now (MD_JOB_NEW: 0) */
    uint64_t submitted_total;        /* since start, this process */
    uint64_t reconfigurations_total; /* instance creations + destructions */
    uint64_t creations_total, destructions_total;
    md_engine_histogram creation_seconds; /* md_engine_reconf_bounds */
    md_engine_histogram destruction_seconds;
    md_engine_histogram wait_seconds;       /* md_engine_time_bounds: submit to start */
    md_engine_histogram turnaround_seconds; /* submit to end, jobs done or failed */
    /* Slurm allocations: from the plugin's first ask to the placement, and how many found no
     * room at their first try (they waited for a release) or were released unplaced. */
    md_engine_histogram alloc_wait_seconds; /* md_engine_time_bounds */
    uint64_t alloc_blocked_total, alloc_unplaced_total;
    int ngpus;
    md_engine_gpu_metrics gpu[MD_MAX_DEVICES];
} md_engine_metrics;

md_engine_outcome md_engine_metrics_snapshot(md_engine *e, md_engine_metrics *out, ms_error *err);

#endif
