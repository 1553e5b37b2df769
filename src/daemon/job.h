/* job.h: migschedd's jobs: what a client submits (the spec, parsed from JSON), the record
 * the daemon keeps (state, attempts, times, placement), and the state machine's events.
 * Private to the daemon (src/daemon); see docs/daemon.md for the JSON formats. */
#ifndef MIGSCHED_DAEMON_JOB_H
#define MIGSCHED_DAEMON_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "migsched/error.h"
#include "migsched/gpu.h"

/* Size limits of a submission: beyond them a client is mistaken or hostile. */
#define MD_JOB_BODY_MAX   (64 * 1024) /* bytes of one JSON job */
#define MD_JOB_NAME_MAX   128         /* bytes of the name */
#define MD_JOB_ARGS_MAX   256         /* command arguments */
#define MD_JOB_STRING_MAX 4096        /* bytes of one argument, the cwd, one env value */
#define MD_JOB_ENV_MAX    128         /* environment variables */
#define MD_JOB_REASON_MAX 256         /* bytes of a reason, with its NUL */

/* MD_JOB_NEW is a job not yet submitted: the "from" of the submit transition. */
typedef enum md_job_state {
    MD_JOB_NEW = 0,
    MD_JOB_QUEUED,
    MD_JOB_RUNNING,
    MD_JOB_DONE,
    MD_JOB_FAILED,
    MD_JOB_CANCELLED,
} md_job_state;
#define MD_JOB_NSTATES 6

typedef enum md_job_event {
    MD_JOB_EV_SUBMIT = 0,
    MD_JOB_EV_START,
    MD_JOB_EV_FINISH,
    MD_JOB_EV_INTERRUPT,
    MD_JOB_EV_CANCEL,
    MD_JOB_EV_REQUEUE,
} md_job_event;

typedef enum md_on_interrupt { MD_ON_INTERRUPT_RETRY = 0, MD_ON_INTERRUPT_FAIL } md_on_interrupt;

/* What a client asked for. Either profile >= 0 with seconds (a fixed instance), or
 * profile == -1 with times[size] > 0 for each size it can run on (the planner picks). */
typedef struct md_job_spec {
    char *name;
    int argc;
    char **argv; /* argc strings: the command and its arguments (no shell) */
    char *cwd;   /* NULL: the daemon's working directory */
    int nenv;
    char **env_keys, **env_values;
    md_on_interrupt on_interrupt;
    int profile;                     /* index into the GPU model, -1 with times */
    double seconds;                  /* expected run time on profile */
    double times[MS_MAX_SLICES + 1]; /* by compute slices; 0 = cannot run at that size */
    /* > 0: a Slurm job's allocation (docs/daemon.md, Allocations): it runs no command and
     * holds its instance (profile) until released; argc 0, seconds 0, on_interrupt fail. */
    int64_t slurm_job_id;
    /* "user": whom an admin submits for (an allocation: the Slurm job's user); NULL: the
     * caller. It becomes the job's owner and is not part of the spec's JSON. */
    char *user;
} md_job_spec;

/* Whom a job belongs to (and runs as): who submitted it, or whom an admin submitted it for. */
typedef struct md_job_owner {
    uint32_t uid, gid;
    char name[64];
} md_job_owner;

/* The daemon's record of a job. Times are seconds since the epoch, NAN while unset. */
typedef struct md_job {
    int64_t id; /* 0 until the store assigns one */
    md_job_spec spec;
    md_job_owner owner;
    size_t spec_bytes; /* of the spec's JSON as the store keeps it (md_job_spec_text) */
    md_job_state state;
    int attempts; /* starts so far */
    double submitted, started, ended;
    int gpu;                /* -1 unless running or ended after running */
    ms_placement placement; /* profile -1 when unplaced */
    char mig_uuid[96];      /* "" when none */
    bool has_exit;
    int exit_status;
    int crashes; /* runs lost to a daemon crash (md_job_recover) */
    /* Why it is in its state: failed, interrupted, requeued or waiting; "" when it needs
     * no explanation (submitted, running, done). Set by each transition. */
    char reason[MD_JOB_REASON_MAX];
    /* The engine's, in memory only (never stored; zero when read from the store): starts
     * in a row that ran nothing for the node's reason (md_job_requeue), the last one's
     * error, and the monotonic time before which it is not placed again; whether it
     * found no room once. */
    int start_failures;
    char start_error[MD_JOB_REASON_MAX];
    double not_before;
    bool found_no_room; /* an allocation that found no room at a placement pass */
} md_job;

/* One state change, as the store records it. */
typedef struct md_job_transition {
    int64_t job;
    double at;
    md_job_event event;
    md_job_state from, to;
    char reason[MD_JOB_REASON_MAX]; /* the job's reason after it */
} md_job_transition;

const char *md_job_state_name(md_job_state s);
/* -1 for an unknown name. */
int md_job_state_parse(const char *name);

/* Whether s is an integer written the one way printf's %ld writes it: no '+', blank or
 * leading zero, no "-0" ("01" and "1" would otherwise name one thing twice). */
bool md_canonical_integer(const char *s);
const char *md_job_event_name(md_job_event e);
int md_job_event_parse(const char *name);

/* Slurm job ids are 32-bit. */
#define MD_SLURM_JOB_ID_MAX 4294967295LL

/* Parses one job from JSON text (the body of POST /v1/jobs) against the GPU model.
 * Errors (MS_EINVAL) name the field and the problem: malformed JSON, an unknown or
 * missing field, a wrong type, a profile or size the model lacks, a time that is not
 * positive or over MS_TIME_MAX, anything over the size limits above. */
int md_job_spec_parse(const char *text, size_t len, const ms_gpu_model *gpu, md_job_spec *out,
                      ms_error *err);
/* The spec back as JSON, in the form md_job_spec_parse reads (the store keeps this). */
json_t *md_job_spec_to_json(const md_job_spec *s, const ms_gpu_model *gpu);
/* That JSON as the store's compact text (malloc'd; NULL when out of memory): its length is
 * what a spec weighs against user-queue-bytes. */
char *md_job_spec_text(const md_job_spec *s, const ms_gpu_model *gpu);
void md_job_spec_free(md_job_spec *s);

/* A fresh record (state MD_JOB_NEW) owning spec; the caller's spec is zeroed. */
void md_job_init(md_job *j, md_job_spec *spec);
void md_job_free(md_job *j);
/* The owner as the API shows it: the name, or the uid in decimal (in uid) when it has none. */
const char *md_job_user(const md_job_owner *o, char uid[16]);

/* The GET /v1/jobs/{id} shape. Anyone's view (detail false), the public fields: id, name,
 * user, state, reason, attempts, submitted/started/ended, gpu, profile, placement, mig_uuid,
 * exit_status, slurm_job_id (null while unknown or not an allocation). The owner's and
 * admins' view (detail true) adds the spec and "logs": the latest attempt's output files
 * under log_dir (md_job_log_path), null before the first start, for an allocation or when
 * log_dir is NULL (the sim backend writes none). */
json_t *md_job_to_json(const md_job *j, const ms_gpu_model *gpu, bool detail, const char *log_dir);

/* One transition as GET /v1/jobs/{id}/history lists it: {"at", "event", "from", "to",
 * "reason"} (reason null when it has none). */
json_t *md_job_transition_to_json(const md_job_transition *t);

/* Where attempt `attempt` of job j writes its output: LOG_DIR/OWNER/job-ID.ATTEMPT.EXT (OWNER:
 * the owner's name, or the uid where the uid has none; ext "out" or "err"). MS_EINVAL when
 * it does not fit len. */
int md_job_log_path(const char *log_dir, const md_job *j, int attempt, const char *ext, char *buf,
                    size_t len, ms_error *err);

/* The state machine (job_state.c): one function per event, called by the API and by the
 * recovery path alike. Each checks the transition is legal (else MS_EINVAL naming the job,
 * the event and its state, and j is unchanged), applies it at time now and fills *t. */
int md_job_submit(md_job *j, double now, md_job_transition *t, ms_error *err);
int md_job_start(md_job *j, double now, int gpu, ms_placement at, const char *mig_uuid,
                 md_job_transition *t, ms_error *err);
/* Exit status 0: done; anything else (a signal as 128 + n): failed. */
int md_job_finish(md_job *j, double now, int exit_status, md_job_transition *t, ms_error *err);
/* The job's process or instance was lost (daemon crash, stop with requeue): back to queued
 * under on_interrupt retry, failed under fail. */
int md_job_interrupt(md_job *j, double now, md_job_transition *t, ms_error *err);
/* Its start ran nothing for the node's reason (log-dir full, fork failure, ...: `why`):
 * running goes back to queued whatever its on_interrupt, counted in start_failures (not in
 * crashes: it never ran), with the reason "start failed on this node: WHY; next try in
 * DELAY s". */
int md_job_requeue(md_job *j, double now, const char *why, double delay, md_job_transition *t,
                   ms_error *err);
/* A queued or running job is cancelled (the caller stops its process first). */
int md_job_cancel(md_job *j, double now, md_job_transition *t, ms_error *err);
/* The recovery path's interrupt: the job was running when the daemon died. After
 * max_attempts such losses the job is poison (it may be what kills the daemon): it fails
 * with the reason "interrupted N times" whatever its on_interrupt. */
int md_job_recover(md_job *j, double now, int max_attempts, md_job_transition *t, ms_error *err);
/* Replaces the reason a transition just gave j (and t, its record), truncated to fit. */
void md_job_set_reason(md_job *j, md_job_transition *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
