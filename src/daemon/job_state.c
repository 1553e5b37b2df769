/* job_state.c: the one state machine of jobs, used by the HTTP API and the recovery path:
 *   new -submit-> queued -start-> running -finish-> done (exit 0) | failed
 *   running -interrupt-> queued (on_interrupt retry) | failed (fail)
 *   running -requeue-> queued (its start ran nothing for the node's reason)
 *   queued|running -cancel-> cancelled
 * Anything else is an error and leaves the job unchanged. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "job.h"

static const char *const STATE_NAMES[MD_JOB_NSTATES] = {"new",  "queued", "running",
                                                        "done", "failed", "cancelled"};
static const char *const EVENT_NAMES[] = {"submit",    "start",  "finish",
                                          "interrupt", "cancel", "requeue"};
#define NEVENTS ((int)(sizeof EVENT_NAMES / sizeof *EVENT_NAMES))

const char *md_job_state_name(md_job_state s)
{
    return (int)s >= 0 && s < MD_JOB_NSTATES ? STATE_NAMES[s] : "?";
}

int md_job_state_parse(const char *name)
{
    for (int i = 0; i < MD_JOB_NSTATES; i++)
        if (!strcmp(name, STATE_NAMES[i]))
            return i;
    return -1;
}

const char *md_job_event_name(md_job_event e)
{
    return (int)e >= 0 && (int)e < NEVENTS ? EVENT_NAMES[e] : "?";
}

int md_job_event_parse(const char *name)
{
    for (int i = 0; i < NEVENTS; i++)
        if (!strcmp(name, EVENT_NAMES[i]))
            return i;
    return -1;
}

/* Checks j is in one of the two states (b may repeat a) and fills the transition's start. */
static int expect(const md_job *j, md_job_event e, md_job_state a, md_job_state b, double now,
                  md_job_transition *t, ms_error *err)
{
    if (j->state != a && j->state != b)
        return ms_error_set(err, MS_EINVAL, "job %lld: cannot %s a job that is %s",
                            (long long)j->id, md_job_event_name(e), md_job_state_name(j->state));
    if (isnan(now))
        return ms_error_set(err, MS_EINVAL, "job %lld: %s without a time", (long long)j->id,
                            md_job_event_name(e));
    t->job = j->id;
    t->at = now;
    t->event = e;
    t->from = j->state;
    t->reason[0] = '\0';
    return MS_OK;
}

void md_job_set_reason(md_job *j, md_job_transition *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(j->reason, sizeof j->reason, fmt, ap);
    va_end(ap);
    memcpy(t->reason, j->reason, sizeof t->reason);
}

static void unplace(md_job *j)
{
    j->gpu = -1;
    j->placement.profile = -1;
    j->placement.start = 0;
    j->mig_uuid[0] = '\0';
}

int md_job_submit(md_job *j, double now, md_job_transition *t, ms_error *err)
{
    int rc = expect(j, MD_JOB_EV_SUBMIT, MD_JOB_NEW, MD_JOB_NEW, now, t, err);
    if (rc)
        return rc;
    j->submitted = now;
    j->reason[0] = '\0';
    t->to = j->state = MD_JOB_QUEUED;
    return MS_OK;
}

int md_job_start(md_job *j, double now, int gpu, ms_placement at, const char *mig_uuid,
                 md_job_transition *t, ms_error *err)
{
    int rc = expect(j, MD_JOB_EV_START, MD_JOB_QUEUED, MD_JOB_QUEUED, now, t, err);
    if (rc)
        return rc;
    if (gpu < 0 || at.profile < 0)
        return ms_error_set(err, MS_EINVAL, "job %lld: start without a GPU and instance",
                            (long long)j->id);
    if (mig_uuid && strlen(mig_uuid) >= sizeof j->mig_uuid)
        return ms_error_set(err, MS_EINVAL, "job %lld: MIG UUID longer than %zu bytes",
                            (long long)j->id, sizeof j->mig_uuid - 1);
    j->attempts++;
    j->started = now;
    j->ended = NAN;
    j->has_exit = false;
    j->gpu = gpu;
    j->placement = at;
    snprintf(j->mig_uuid, sizeof j->mig_uuid, "%s", mig_uuid ? mig_uuid : "");
    j->reason[0] = '\0';
    t->to = j->state = MD_JOB_RUNNING;
    return MS_OK;
}

int md_job_finish(md_job *j, double now, int exit_status, md_job_transition *t, ms_error *err)
{
    int rc = expect(j, MD_JOB_EV_FINISH, MD_JOB_RUNNING, MD_JOB_RUNNING, now, t, err);
    if (rc)
        return rc;
    j->ended = now;
    j->has_exit = true;
    j->exit_status = exit_status;
    t->to = j->state = exit_status == 0 ? MD_JOB_DONE : MD_JOB_FAILED;
    j->reason[0] = '\0';
    if (exit_status > 128)
        md_job_set_reason(j, t, "killed by signal %d", exit_status - 128);
    else if (exit_status)
        md_job_set_reason(j, t, "exit status %d", exit_status);
    return MS_OK;
}

int md_job_interrupt(md_job *j, double now, md_job_transition *t, ms_error *err)
{
    int rc = expect(j, MD_JOB_EV_INTERRUPT, MD_JOB_RUNNING, MD_JOB_RUNNING, now, t, err);
    if (rc)
        return rc;
    if (j->spec.on_interrupt == MD_ON_INTERRUPT_RETRY) {
        /* Waits for a new placement; attempts and the history keep the lost run. */
        unplace(j);
        j->started = NAN;
        t->to = j->state = MD_JOB_QUEUED;
        md_job_set_reason(j, t, "interrupted, requeued");
    } else {
        j->ended = now;
        t->to = j->state = MD_JOB_FAILED;
        md_job_set_reason(j, t, "interrupted (on_interrupt fail)");
    }
    return MS_OK;
}

int md_job_recover(md_job *j, double now, int max_attempts, md_job_transition *t, ms_error *err)
{
    md_on_interrupt asked = j->spec.on_interrupt;
    bool poison = j->crashes + 1 >= max_attempts;
    if (poison)
        j->spec.on_interrupt = MD_ON_INTERRUPT_FAIL;
    int rc = md_job_interrupt(j, now, t, err);
    j->spec.on_interrupt = asked;
    if (rc)
        return rc;
    j->crashes++;
    if (poison)
        md_job_set_reason(j, t, "interrupted %d times", j->crashes);
    else if (j->state == MD_JOB_FAILED)
        md_job_set_reason(j, t, "interrupted by a daemon crash (on_interrupt fail)");
    else
        md_job_set_reason(j, t, "interrupted by a daemon crash, requeued");
    return MS_OK;
}

int md_job_requeue(md_job *j, double now, const char *why, double delay, md_job_transition *t,
                   ms_error *err)
{
    int rc = expect(j, MD_JOB_EV_REQUEUE, MD_JOB_RUNNING, MD_JOB_RUNNING, now, t, err);
    if (rc)
        return rc;
    char copy[sizeof j->start_error]; /* why may be j->start_error itself */
    snprintf(copy, sizeof copy, "%s", why);
    unplace(j);
    j->started = NAN;
    j->start_failures++;
    memcpy(j->start_error, copy, sizeof copy);
    t->to = j->state = MD_JOB_QUEUED;
    md_job_set_reason(j, t, "start failed on this node: %s; next try in %g s", copy, delay);
    return MS_OK;
}

int md_job_cancel(md_job *j, double now, md_job_transition *t, ms_error *err)
{
    int rc = expect(j, MD_JOB_EV_CANCEL, MD_JOB_QUEUED, MD_JOB_RUNNING, now, t, err);
    if (rc)
        return rc;
    j->ended = now;
    t->to = j->state = MD_JOB_CANCELLED;
    md_job_set_reason(j, t, "cancelled");
    return MS_OK;
}
