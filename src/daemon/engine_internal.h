/* engine_internal.h: the engine's state shared by its files, which lie in layers (each
 * calls only files listed above it):
 *   engine_core.c     clocks, histograms, the queue and its tallies, group commit, a job's end
 *   engine_exec.c     the nvml jobs' processes: spawned in their cgroups, journalled, stopped
 *   engine_gpu.c      the MIG instances and the starts on them
 *   engine_online.c   online mode's placement: paper 002's policy over the FCFS queue
 *   engine_batch.c    batch mode: batches planned offline and joined to the running plan
 *   engine_api.c      the API's calls: submissions, cancel, the views, the metrics snapshot
 *   engine_alloc.c    Slurm jobs' allocations and the steps holding them
 *   engine_recover.c  the nvml start after a previous owner: its processes and instances
 *   engine_nvml.c     the nvml side's open and close: devices, log folder, cgroups, journal
 *   engine_sim_state.c the open of sim GPUs kept in a state file (sim-state)
 *   engine.c          the lifecycle (open, stop, close) and the scheduling thread
 * Private to src/daemon. */
#ifndef MIGSCHED_DAEMON_ENGINE_INTERNAL_H
#define MIGSCHED_DAEMON_ENGINE_INTERNAL_H

#include <pthread.h>

#include "backoff.h"
#include "engine.h"
#include "migsched/clock.h"
#include "migsched/exec.h"
#include "migsched/online.h"
#include "migsched/schedule.h"
#include "migsched/workload.h"

/* EI_DRAINING: its job has ended, leaving processes in its cgroup that are being stopped;
 * idle once they are gone. */
typedef enum { EI_NONE = 0, EI_CREATING, EI_IDLE, EI_BUSY, EI_DESTROYING, EI_DRAINING } ei_state;

/* One MIG instance the engine created, by start slot (at most one instance starts at a
 * slot). */
typedef struct ei_inst {
    int profile; /* -1: none starts here */
    ei_state state;
    int64_t job;                       /* the job it holds (or is created for), 0 when idle */
    ms_mig_instance mig;               /* as the backend reported it */
    int64_t store_id;                  /* its row in the store's instances table */
    char drain[MS_JOURNAL_CGROUP_LEN]; /* draining: the ended job's cgroup */
    int drain_pgid;                    /* draining: that job's process group and leader's start */
    unsigned long long drain_pstart;   /*   time, as journalled */
    double drain_kill_at;              /* draining: SIGKILL what is left then (monotonic) */
} ei_inst;

typedef struct ei_gpu {
    ms_backend *be;
    ms_device_lock *lock; /* nvml, sim-state: this process owns the device */
    int device;           /* sim: 0..gpus-1; nvml: the device index */
    char uuid[96];
    /* Its identity in DCGM's labels (pci_bus_id, device, modelName): read once at open; ""
     * and -1 when the backend could not tell (logged). */
    char pci_bus_id[MS_PCI_BUS_ID_LEN];
    int minor;
    char model_name[96];
    uint32_t foreign_slots;  /* nvml: slots of instances not ours: never used */
    uint32_t foreign_slices; /*   and their compute slices (F counts them taken) */
    ei_inst inst[MS_MAX_SLOTS];
} ei_gpu;

/* A job the engine started (running in the store), or is starting. */
typedef struct ei_run {
    md_job job; /* the engine's copy, as the store has it */
    int gpu, slot;
    double end_mono;                    /* sim: when its hold ends (monotonic seconds) */
    bool cancel;                        /* a client asked to cancel it */
    bool release;                       /* an allocation's last step ended: it is done */
    pid_t pid;                          /* nvml: its process (group leader), 0 once reaped */
    pid_t pgid;                         /* nvml: its process group, as journalled */
    unsigned long long pstart;          /* nvml: its leader's start time, as journalled */
    char cgroup[MS_JOURNAL_CGROUP_LEN]; /* nvml: the cgroup of all its processes ("" none,
                                   or removed once empty) */
    double kill_at;     /* nvml: SIGKILL the group then (monotonic); 0 = not signalled */
    bool exited;        /* nvml: the process ended with exit_status (what it left in
                           its cgroup is stopped while its instance drains) */
    int exit_status;    /* 128 + n for a signal */
    bool node_fault;    /* nvml: its start ran nothing for the node's reason (the
                           error in job.start_error): it is requeued, not failed */
    double comment_due; /* an allocation whose AdminComment is being set: shown not yet
                           ready until then (monotonic) or until it was tried (0) */
} ei_run;

/* A job whose start keeps failing for the node's reason waits 1 s, doubling to a minute
 * (md_backoff_delay over its job.start_failures). */
#define EI_START_FIRST 1.0
#define EI_START_MAX   60.0

typedef struct ei_batch ei_batch; /* engine_batch.c */

/* Online: the start whose instance is being made (reused, or created after the idle
 * instances in its way are destroyed). */
typedef struct ei_making {
    int64_t job; /* 0: none */
    int gpu;
    ms_placement at;
    double ready; /* when it is expected to start (monotonic, ei_ready) */
} ei_making;

/* A start whose instance is claimed but whose transition is not yet durable: the pass's
 * starts are committed together (ei_start_flush). */
typedef struct ei_starting {
    int64_t id;
    int gpu;
    ms_placement at;
    bool cancel; /* a client cancelled it while its start was committed */
} ei_starting;

/* One user's queued jobs (and submissions in flight), against user-queue-limit and
 * user-queue-bytes. */
typedef struct ei_tally {
    uint32_t uid;
    size_t jobs;
    uint64_t bytes; /* of their specs (md_job.spec_bytes) */
} ei_tally;

/* A submission (job) or n transitions of other jobs (jobs, ts) waiting for their group
 * commit. */
typedef struct ei_submit {
    md_job *job;
    md_job_transition t;
    const md_job *const *jobs;
    const md_job_transition *ts;
    size_t n;
    int rc;
    ms_error err;
    bool done;
    struct ei_submit *next;
} ei_submit;

struct md_engine {
    const md_config *c;
    const ms_gpu_model *m;
    bool nvml;
    ms_journal *journal; /* nvml: what the engine creates and runs, like migsched run */
    char cgroup[MS_JOURNAL_CGROUP_LEN]; /* nvml: the folder of its jobs' cgroups ("" none:
                                   process groups only) */
    md_store *st;
    ms_online_frag_table *ft;
    int ngpus;
    ei_gpu gpu[MD_MAX_DEVICES];

    /* mu guards everything below it but the store (smu) and the commit queue (cmu).
     * Lock order: mu, then cmu, then smu. */
    pthread_mutex_t mu;
    pthread_cond_t wake;    /* the scheduling thread has something to do */
    pthread_cond_t changed; /* a running job ended (cancel waits on it) */
    pthread_t thread;
    bool thread_started, stopping, quit;
    double stop_mono; /* when the stop began (monotonic) */
    size_t abandoned; /* jobs a stop left running: their ends could not be stored */
    bool kicked;      /* woken: the scheduling thread passes again before waiting
                         (the wake-up may come while it has mu dropped) */
    /* the live keys (SIGHUP) */
    double time_scale, stop_grace, tau, batch_period;
    int queue_limit, batch_size, batch_concat;
    md_on_stop on_stop;
    int user_queue_limit;
    long long user_queue_bytes;
    md_engine_access access;

    md_job *held; /* open only: allocations running when the last process */
    size_t nheld; /*   ended (engine_alloc.c adopts their instances) */

    md_job **queue; /* queued jobs, by id (FIFO) */
    size_t nqueue, capqueue;
    size_t inflight; /* submissions counted against the limit, not yet queued */
    ei_tally *tally; /* per owner with queued jobs (allocations not counted) */
    size_t ntally, captally;
    ei_run *run; /* running jobs */
    size_t nrun, caprun;
    ei_starting *starting; /* claimed this pass, to be committed by ei_start_flush */
    size_t nstarting, capstarting;
    ei_making making;            /* the claim whose backend calls have mu dropped */
    bool flushing;               /* transitions committed with mu dropped and not yet acted on
                                    (starts or ends): the views wait for them (ei_settle) */
    md_backoff ends, schedule;   /* the scheduling thread's failing steps (backoff.h) */
    md_backoff starts, destroys; /* logging only: starts that failed for the node's reason
                                   (each job waits out its own not_before), destructions */
    ei_batch *batch;             /* batch mode: the running plan's execution */
    ms_schedule *plan;           /* batch mode: the batches' work not done at the last join, */
    ms_workload *plan_w;         /*   their jobs as its workload */
    double plan_t0;              /* when its time 0 was (seconds since the epoch) */
    md_backoff plan_retry;       /* batch mode: a failed planning is tried again later */

    /* metrics */
    uint64_t jobs[MD_JOB_NSTATES]; /* by state: under smu, counted as commits make them durable */
    double prune_at;               /* retention's next pass (monotonic; under smu) */
    uint64_t submitted_total, creations_total, destructions_total;
    md_engine_histogram creation_seconds, destruction_seconds, wait_seconds, turnaround_seconds;
    md_engine_histogram alloc_wait_seconds;
    uint64_t alloc_blocked_total, alloc_unplaced_total;

    /* Slurm (engine_slurm.c) */
    int slurm_pending[MS_MAX_PROFILES]; /* pending Slurm jobs by the profile they likely ask */
    md_engine_placed *placed;           /* allocations placed, not yet told to Slurm */
    size_t nplaced, capplaced;
    void (*slurm_hook)(void *ctx);
    void *slurm_hook_ctx;
    bool slurm_comments; /* the hook's owner sets placed allocations' AdminComment */

    pthread_mutex_t cmu;
    pthread_cond_t committed;
    ei_submit *pending, **pending_tail;
    bool committing;

    pthread_mutex_t smu;
};

/* engine_core.c */
/* Waits (mu held) until the transitions being committed are acted on, so that a view of
 * the engine agrees with the store. */
static inline void ei_settle(md_engine *e)
{
    while (e->flushing)
        pthread_cond_wait(&e->changed, &e->mu);
}

/* Slurm's view changed (mu held): an allocation placed or a job ended. */
static inline void ei_slurm_changed(md_engine *e)
{
    if (e->slurm_hook)
        e->slurm_hook(e->slurm_hook_ctx);
}

/* Wakes the scheduling thread (mu held). */
static inline void ei_wake(md_engine *e)
{
    e->kicked = true;
    pthread_cond_broadcast(&e->wake);
}
/* Queues j (owned from then on) in id order: FIFO, though concurrent commits and retried
 * jobs come back out of order; counted in its owner's tally. MS_ENOMEM leaves j the
 * caller's. */
int ei_queue_insert(md_engine *e, md_job *j);
/* Takes queue[at] out of the queue (and its owner's tally); the caller owns it. */
md_job *ei_queue_remove(md_engine *e, size_t at);
/* Counts (delta 1) or uncounts (-1) one job of uid weighing bytes in uid's tally. MS_ENOMEM:
 * nothing counted. An uncount never fails. */
int ei_tally_add(md_engine *e, uint32_t uid, size_t bytes, int delta);
/* uid's tally (zeros when it has none). */
ei_tally ei_tally_get(const md_engine *e, uint32_t uid);
/* Counts (1) or uncounts (-1) queued job j in its owner's tally; allocations are Slurm's
 * (limited by Slurm): they count in no user's tally. */
int ei_tally_job(md_engine *e, const md_job *j, int delta);
double ei_now(void); /* seconds since the epoch */
void ei_observe(md_engine_histogram *h, const double *bounds, int nb, double v);
/* Where queued job id is in the queue; nqueue when it is not there. */
size_t ei_queued_at(const md_engine *e, int64_t id);
/* Room for `more` running jobs beyond nrun: MS_OK or MS_ENOMEM. */
int ei_grow_run(md_engine *e, size_t more);
/* Job j's end is durable, however it ended (done, failed, cancelled queued or running,
 * interrupted at open): an allocation's steps are forgotten. */
void ei_job_ended(md_engine *e, const md_job *j);
/* Makes n transitions of jobs durable in the next group commit (with the submissions and
 * other transitions waiting: one transaction, one fsync) and counts them by state. Called
 * with mu held; drop_mu releases it while waiting (the scheduling thread, whose state
 * nothing else changes meanwhile), so that submissions go on. */
int ei_commit(md_engine *e, const md_job *const *jobs, const md_job_transition *ts, size_t n,
              bool drop_mu, ms_error *err);
/* The leader of a group commit writes every pending submission in one transaction; the
 * others wait for it. Called with cmu held and r pending; returns with cmu held once r is
 * done. */
void ei_group_commit(md_engine *e, ei_submit *r);

/* engine_api.c */
/* A job's GET /v1/jobs/{id} JSON from the store, as who may see it (NULL: every field). */
md_engine_outcome ei_get_job(md_engine *e, int64_t id, const md_engine_actor *who, json_t **job,
                             ms_error *err);
/* Whether who may see job j's spec and logs, and cancel it: its owner or an admin. */
static inline bool ei_may_manage(const md_engine_actor *who, const md_job *j)
{
    return !who || who->admin || who->who.uid == j->owner.uid;
}
/* Cancels queue[i] (mu held): its transition, then it leaves the queue. */
int ei_cancel_queued(md_engine *e, size_t i, ms_error *err);
/* Waits (mu held) until the running job id has ended. */
void ei_wait_ended(md_engine *e, int64_t id);

/* engine_alloc.c: Slurm jobs' allocations (mu held unless said) */
static inline bool ei_is_alloc(const md_job *j) { return j->spec.slurm_job_id > 0; }
/* Running jobs that are not allocations (a stop waits for these only: an allocation's
 * instance stays held through a restart). */
size_t ei_jobs_running(const md_engine *e);
/* Open: the allocations the store says are running (before the backends open). */
int ei_alloc_load_held(md_engine *e, ms_error *err);
/* nvml, sim-state open: whether in, found on GPU g and created by the last process, is a held
 * allocation's instance (*adopted); if so it becomes that allocation's (busy) and is
 * journalled as ours. */
int ei_alloc_adopt(md_engine *e, int g, const ms_mig_instance *in, bool *adopted, ms_error *err);
/* Open: whether the store's live instance row is an adopted one (its row is kept). */
bool ei_alloc_keeps_row(md_engine *e, const md_store_instance *row);
/* Open: running allocation j holds its instance again (nvml, sim-state: adopted; sim: made
 * anew at its placement) and runs on (*resumed; j's spec then belongs to the engine), or could
 * not (the caller interrupts it: an allocation fails). */
int ei_alloc_resume(md_engine *e, md_job *j, bool *resumed, ms_error *err);
/* Open, at the end: the mapping files of the held instances, stale ones removed. */
int ei_alloc_mapping_init(md_engine *e, ms_error *err);

/* engine_exec.c (nvml) */
/* Starts r's command in its instance (the start is already durable), as its owner (docs/
 * daemon.md, Execution). When no process started, either it was the job's own fault
 * (r->exit_status says which: a refused identity or device isolation; it fails) or the
 * node's (r->node_fault: its log files, a fork, memory, the journal; it is requeued); the
 * reason is in the job's stderr file when that could be made. */
int ei_spawn(md_engine *e, ei_run *r, const char *mig_uuid, ms_error *err);
/* Reaps r's process if it ended (r->exited); sends SIGTERM when it must stop (cancel, stop
 * with requeue), and SIGKILL after the grace period. */
void ei_watch(md_engine *e, ei_run *r, bool must_stop, double now);
/* Whether r's job, which has ended, left processes in its cgroup: if so they get SIGTERM
 * and its instance (in) drains; else the cgroup is removed and the run's record ended. */
bool ei_leftovers(md_engine *e, ei_run *r, ei_inst *in, double now);
/* A draining instance: SIGKILL (cgroup.kill) what is left once the grace is over; true
 * once nothing is left (the cgroup removed, the record ended): it may then go idle. */
bool ei_drained(md_engine *e, ei_inst *in, double now);

/* engine_recover.c (nvml open, the devices opened and locked) */
/* Reconciles with what the previous owner's journal at path left (ms_journal_load: one
 * that cannot be read stops the start): its processes stopped, its instances destroyed if
 * still the very ones (a held allocation's adopted), every other instance foreign; then
 * opens e->journal there, compacted to what is live. */
int ei_recover(md_engine *e, const char *path, ms_error *err);

/* engine_sim_state.c */
/* Opens the sim GPUs of the sim-state file (made from gpu and gpus when missing, else
 * holding them), locked like nvml devices so that `migsched apply` and `run` keep off
 * them while the daemon runs; every instance the file holds is foreign, never used or
 * destroyed (a held allocation's is adopted), and a GPU with MIG mode off refuses the
 * start. */
int ei_sim_state_open(md_engine *e, ms_error *err);

/* engine_nvml.c */
/* Opens and locks the devices, starts the journal, and reconciles with what the previous
 * owner's journal left: its processes stopped, its instances destroyed if still the very
 * ones, every other instance foreign. */
int ei_nvml_open(md_engine *e, ms_error *err);
void ei_nvml_close(md_engine *e, bool clean);

/* engine_batch.c (batch mode; the scheduling thread, mu held) */
/* Plans a batch when one is due (joined to the running plan), carries the plan on. */
int ei_batch_step(md_engine *e, ms_error *err);
/* Whether queued job id is in the running plan (it waits for its instance there). */
bool ei_batch_planned(const md_engine *e, int64_t id);
/* When the oldest queued job the next batch may take makes it due (seconds since the
 * epoch; INFINITY: none). */
double ei_batch_due(const md_engine *e);
void ei_batch_free(ei_batch *b);
/* The running plan as migsched-schedule/1 (malloc'd), NULL when none. */
char *ei_plan_text(md_engine *e);
/* The running plan's live view (mu held; NULL when out of memory or no plan): the plan
 * without the tasks whose jobs have ended, each task left with its "job" (id) and "state"
 * ("running", "planned"), and "clock" (md_engine_plan_live). */
json_t *ei_plan_live(md_engine *e);

/* engine_gpu.c (the scheduling thread only, mu held; it drops mu around backend calls) */
/* The profile and run time a job runs at in online mode. */
void ei_job_size(const ms_gpu_model *m, const md_job_spec *s, int *profile, double *seconds);
/* Its run time per compute size as the batch planner sees it (INFINITY: cannot). */
void ei_spec_times(const ms_gpu_model *m, const md_job_spec *s, double time[MS_MAX_SLICES + 1]);
/* An instance at (g, p) created for job (0: idle once created), and one destroyed. */
int ei_create(md_engine *e, int g, ms_placement p, int64_t job, ms_error *err);
int ei_destroy(md_engine *e, int g, int slot, ms_error *err);
/* Records an instance that is not ours on GPU g (journal, slots): never used or touched. */
int ei_foreign(md_engine *e, int g, const ms_mig_instance *in, ms_error *err);
/* Running allocation r is kept for its Slurm job's AdminComment (slurm_agent.c), which its
 * tasks wait for (md_engine_slurm_hook); memory short, the comment is left out (logged),
 * never the job. mu held. */
void ei_placed_for_slurm(md_engine *e, ei_run *r);
/* Claims (g, p) for queue[i] (the instance reused when idle there, else created); the job
 * stays queued until ei_start_flush. */
int ei_start(md_engine *e, size_t i, int g, ms_placement p, ms_error *err);
/* Makes every claimed start durable in one transaction (one fsync), then runs the jobs.
 * On failure they stay queued and their instances idle. A job cancelled since its claim is
 * left out. */
int ei_start_flush(md_engine *e, ms_error *err);
/* The instance at (g, slot) now holds job j (NULL: none): the HPC job-mapping file. */
void ei_mapping(md_engine *e, int g, int slot, const md_job *j);
/* The GPU model's seconds before placement p on GPU g can hold a job, as the offline
 * planners charge them: none when an idle instance of its profile is there (reused); else
 * its creation after the destruction of each idle instance in its way, one at a time, and
 * after any reconfiguration under way on g (counted whole). */
double ei_ready(const md_engine *e, int g, ms_placement p);
/* The instance at (g, slot) holds no job any more. */
void ei_release(md_engine *e, int g, int slot);
/* Destroys every instance the engine created (stop). */
int ei_destroy_all(md_engine *e, ms_error *err);
int ei_busy_slices(const md_engine *e, int g);

/* engine_online.c (online mode; the scheduling thread, mu held) */
void ei_view(const md_engine *e, int g, ms_online_gpu_view *v);
/* Where paper 002's policy puts a job of profile now (GPU g, start slot), keeping room for
 * the sizes demand[] asks (placement.h; NULL: none); false when no GPU has room for it. */
bool ei_place(const md_engine *e, int profile, const int *demand, int *g, int *start);
/* Places and starts what the queue allows (FCFS per profile, paper 002's policy). */
int ei_place_queued(md_engine *e, ms_error *err);

#endif
