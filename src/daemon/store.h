/* store.h: migschedd's state in SQLite: jobs, every state transition, plans and the MIG
 * instances the daemon created. WAL journal, synchronous=FULL: a transition the API
 * acknowledged survives a crash. Private to the daemon; see docs/daemon.md. */
#ifndef MIGSCHED_DAEMON_STORE_H
#define MIGSCHED_DAEMON_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "job.h"

typedef struct md_store md_store;

/* The schema's migrations, oldest first: migration i takes user_version i to i + 1. */
int md_store_migration_count(void);
const char *md_store_migration_sql(int i);

/* One daemon per store: an exclusive flock on PATH.lock (a regular file, never followed as
 * a link, mode 0600), which then holds the caller's pid; *fd keeps the lock until it is
 * closed (or the process dies). Held by another process: MS_EINVAL "db PATH: in use by
 * migschedd pid N", at once. */
int md_store_lock(const char *path, int *fd, ms_error *err);
/* A zero-length file at path is made a new, empty store (its format marker written); a
 * missing file or one with content is left alone (md_store_open decides). */
int md_store_init(const char *path, ms_error *err);

/* Opens (creating if missing) the database at path and applies the migrations it lacks,
 * each in its own transaction. A store carries a format marker (the database header's
 * application_id, "MIGS"): a missing file is created as a new store, a store of before the
 * marker (its schema there) is marked; an empty file (unless md_store_init made it a store),
 * another SQLite database or a file that is not one are refused (MS_EINVAL, "not a migschedd
 * store", never written); PRAGMA quick_check finds damage (MS_EIO "damaged store"). A
 * database of a newer version than this build knows is refused (MS_EINVAL). Jobs are
 * parsed back against gpu, which the store keeps a pointer to. Errors name the path. */
int md_store_open(const char *path, const ms_gpu_model *gpu, md_store **out, ms_error *err);
void md_store_close(md_store *st);

/* The connection's user_version, journal mode ("wal") and synchronous level (2 = FULL). */
int md_store_settings(md_store *st, int *version, char journal_mode[16], int *synchronous,
                      ms_error *err);

/* Inserts a new job with its submit transition in one transaction; sets j->id and t->job.
 * j must have just been through md_job_submit. */
int md_store_submit(md_store *st, md_job *j, md_job_transition *t, ms_error *err);
/* Writes the job's new state and the transition that led to it in one transaction. */
int md_store_transition(md_store *st, const md_job *j, const md_job_transition *t, ms_error *err);
/* Group commit: n submissions (or n transitions) in one transaction, so one fsync makes
 * them all durable; all or none (on failure no job keeps an id). */
int md_store_submit_many(md_store *st, md_job *const *jobs, md_job_transition *ts, size_t n,
                         ms_error *err);
int md_store_transitions(md_store *st, const md_job *const *jobs, const md_job_transition *ts,
                         size_t n, ms_error *err);
/* Both at once: nsub submissions and n transitions of other jobs in one transaction. */
int md_store_commit(md_store *st, md_job *const *subs, md_job_transition *sts, size_t nsub,
                    const md_job *const *jobs, const md_job_transition *ts, size_t n,
                    ms_error *err);

/* One job by id (MS_EINVAL "no job N" when absent); the caller frees it with md_job_free. */
int md_store_get_job(md_store *st, int64_t id, md_job *out, ms_error *err);
/* Jobs in one state (or every job when state is -1), by id; *out is malloc'd, free each
 * job then the array (md_store_free_jobs). */
int md_store_list_jobs(md_store *st, int state, md_job **out, size_t *n, ms_error *err);
void md_store_free_jobs(md_job *jobs, size_t n);
/* A page of jobs (GET /v1/jobs): ids above after and below before (0: no bound), by id
 * (newest_first: descending), at most limit (>= 1), in one of the states of the mask
 * states (MD_STORE_STATE(s) for each; 0: any), owned by user (NULL: anyone; an owner's
 * name, or the uid in decimal of one that has none). */
typedef struct md_store_job_query {
    int64_t after, before;
    int limit;
    unsigned states;
    const char *user;
    bool newest_first;
} md_store_job_query;
#define MD_STORE_STATE(s) (1u << (s))
/* A page ends early once its jobs' specs pass this many bytes (it always holds one job):
 * a page of 1000 jobs of 64 KiB specs would hold 64 MiB, many times over once rendered. */
#define MD_STORE_PAGE_BYTES (4u << 20)
/* *more: whether jobs beyond the page match. The page is read with SQL's LIMIT on an
 * index (one statement per state asked for), never the whole table. *out as
 * md_store_list_jobs's. */
int md_store_job_page(md_store *st, const md_store_job_query *q, md_job **out, size_t *n,
                      bool *more, ms_error *err);
/* How many jobs are in each state (counts[MD_JOB_NEW] is 0), counted by SQL. */
int md_store_count_jobs(md_store *st, uint64_t counts[MD_JOB_NSTATES], ms_error *err);
/* Retention: deletes the jobs that finished (done, failed, cancelled) before `before`
 * (seconds since the epoch) with their transitions and allocation steps, in one
 * transaction; counts[state] gets how many of each state went. */
int md_store_prune(md_store *st, double before, uint64_t counts[MD_JOB_NSTATES], ms_error *err);
/* The recovery query: jobs that were running when the daemon stopped (or crashed). */
int md_store_running_jobs(md_store *st, md_job **out, size_t *n, ms_error *err);
/* A job's transitions in the order they happened. */
int md_store_history(md_store *st, int64_t job, md_job_transition **out, size_t *n, ms_error *err);

/* A plan the daemon executes (the migsched-schedule/1 JSON text); *id is its number. */
int md_store_add_plan(md_store *st, double now, const char *schedule_json, int64_t *id,
                      ms_error *err);
/* The most recent plan (malloc'd text, NULL when none). */
int md_store_latest_plan(md_store *st, int64_t *id, char **schedule_json, ms_error *err);

/* A MIG instance the daemon created; live until md_store_instance_destroyed. */
typedef struct md_store_instance {
    int64_t id;
    int gpu;
    ms_placement at;
    int gi_id, ci_id;
    char uuid[96];
    double created;
} md_store_instance;
int md_store_add_instance(md_store *st, md_store_instance *inst, ms_error *err);
int md_store_instance_destroyed(md_store *st, int64_t id, double now, ms_error *err);
/* Instances created and not yet destroyed, by id (*out malloc'd). */
int md_store_live_instances(md_store *st, md_store_instance **out, size_t *n, ms_error *err);

/* The Slurm steps holding an allocation (job: its id here): a step is added once however
 * often it is added, removed if there; *out malloc'd, ascending. */
int md_store_step_add(md_store *st, int64_t job, int64_t step, ms_error *err);
int md_store_step_remove(md_store *st, int64_t job, int64_t step, ms_error *err);
int md_store_steps_clear(md_store *st, int64_t job, ms_error *err);
int md_store_steps(md_store *st, int64_t job, int64_t **out, size_t *n, ms_error *err);

#endif
