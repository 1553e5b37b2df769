/* spank_client.c: the plugin's requests to migschedd (migschedd's libcurl client). */
#include "spank_client.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "migsched/clock.h"
#include "migsched/client.h"

#define FIRST_POLL_SECONDS    0.005
#define POLL_SECONDS          0.1
#define REQUEST_SLACK_SECONDS 30

static void pause_for(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - floor(seconds)) * 1e9)};
    nanosleep(&ts, NULL);
}

const char *msp_retry_reason(long status, long connect_errno, bool dropped)
{
    if (status == 503)
        return "migschedd is stopping (HTTP 503)";
    if (status)
        return NULL; /* migschedd answered: its refusal stands */
    if (connect_errno == ECONNREFUSED)
        return "connection refused";
    if (connect_errno == ENOENT)
        return "no socket file";
    if (dropped)
        return "migschedd closed the connection without a reply";
    return NULL;
}

void msp_backoff_init(msp_backoff *b, double now, double timeout)
{
    b->start = now;
    b->until = now + timeout;
    b->pause = MSP_RETRY_FIRST;
}

double msp_backoff_next(msp_backoff *b, double now)
{
    if (now >= b->until)
        return -1;
    double wait = fmin(b->pause, b->until - now);
    b->pause = fmin(2 * b->pause, MSP_RETRY_CAP);
    return wait;
}

static ms_client *connect_to(const msp_conf *c, char *err, size_t errlen)
{
    char where[MSP_SOCKET_LEN + 8];
    snprintf(where, sizeof where, "unix:%s", c->socket);
    bool usage;
    ms_client *cl = ms_client_open("migsched_spank", where, NULL, &usage);
    if (!cl) {
        snprintf(err, errlen, "cannot open a connection to migschedd at %s", where);
        return NULL;
    }
    ms_client_capture_errors(cl, err, errlen);
    /* One request never outlasts the wait, plus room for migschedd asking Slurm. */
    ms_client_timeout(cl, c->timeout + REQUEST_SLACK_SECONDS);
    return cl;
}

static long id_or_none(json_t *a, const char *key)
{
    json_t *v = json_object_get(a, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (long)json_integer_value(v) : -1;
}

/* Fills out from a running allocation's JSON; 0 when it runs, 1 while queued or while
 * migschedd sets the job's AdminComment (so that a job that ends at once has it too), -1
 * when it is neither (err says). */
static int placed(json_t *a, msp_instance *out, char *err, size_t errlen)
{
    const char *state = json_string_value(json_object_get(a, "state"));
    if ((state && !strcmp(state, "queued")) || json_is_true(json_object_get(a, "comment_pending")))
        return 1;
    const char *uuid = json_string_value(json_object_get(a, "mig_uuid"));
    const char *profile = json_string_value(json_object_get(a, "profile"));
    if (!state || strcmp(state, "running") || !uuid || !profile) {
        snprintf(err, errlen, "migschedd answered an allocation in state %s",
                 state ? state : "(none)");
        return -1;
    }
    snprintf(out->mig_uuid, sizeof out->mig_uuid, "%s", uuid);
    snprintf(out->profile, sizeof out->profile, "%s", profile);
    out->allocation = (long long)json_integer_value(json_object_get(a, "id"));
    out->gpu = (int)json_integer_value(json_object_get(a, "gpu"));
    out->gpu_minor = id_or_none(a, "gpu_minor");
    out->gi_id = id_or_none(a, "gi_id");
    out->ci_id = id_or_none(a, "ci_id");
    return 0;
}

/* One request of Slurm job `job`, tried again while msp_retry_reason says so and b's
 * deadline allows. Returns 0 with *reply, or -1 with the error in err (the client's; when
 * the deadline ran out, also the last reason and the time waited). status: as
 * ms_client_call's. */
static int call(ms_client *cl, const msp_conf *c, msp_backoff *b, uint32_t job, const char *method,
                const char *path, const char *body, json_t **reply, long *status, char *err,
                size_t errlen)
{
    for (;;) {
        if (!ms_client_call(cl, method, path, body, reply, status)) {
            b->pause = MSP_RETRY_FIRST; /* a later outage starts short again */
            return 0;
        }
        const char *why = msp_retry_reason(*status, ms_client_connect_errno(cl),
                                           ms_client_dropped(cl));
        if (!why)
            return -1;
        double now = ms_monotonic_seconds(), wait = msp_backoff_next(b, now);
        if (wait < 0) {
            size_t n = strlen(err);
            snprintf(err + n, errlen - n, " (%s; gave up after %.1f s, the plugin's timeout)", why,
                     now - b->start);
            return -1;
        }
        if (c->note) {
            char msg[256];
            snprintf(msg, sizeof msg, "job %u: %s %s: %s; retrying in %.1f s", job, method, path,
                     why, wait);
            c->note(msg);
        }
        pause_for(wait);
    }
}

int msp_acquire(const msp_conf *c, uint32_t job, uint32_t step, const char *body, msp_instance *out,
                char *err, size_t errlen)
{
    ms_client *cl = connect_to(c, err, errlen);
    if (!cl)
        return -1;
    msp_backoff b;
    msp_backoff_init(&b, ms_monotonic_seconds(), c->timeout);
    char path[96];
    snprintf(path, sizeof path, "/v1/allocations/%u/steps/%u", job, step);
    json_t *a = NULL;
    long status;
    int rc = call(cl, c, &b, job, "PUT", path, body, &a, &status, err, errlen)
                 ? -1
                 : placed(a, out, err, errlen);
    double pause = FIRST_POLL_SECONDS;
    snprintf(path, sizeof path, "/v1/allocations/%u", job);
    while (rc == 1) {
        if (ms_monotonic_seconds() >= b.until) {
            snprintf(err, errlen,
                     "no MIG instance for job %u within %g s (its allocation is "
                     "still queued: the node's GPUs are busy)",
                     job, c->timeout);
            rc = MSP_STILL_QUEUED;
            break;
        }
        /* Placement often takes milliseconds (an idle instance reused): look soon, then
         * back off to POLL_SECONDS. */
        pause_for(pause);
        pause = fmin(2 * pause, POLL_SECONDS);
        json_decref(a);
        a = NULL;
        rc = call(cl, c, &b, job, "GET", path, NULL, &a, &status, err, errlen)
                 ? -1
                 : placed(a, out, err, errlen);
    }
    json_decref(a);
    ms_client_close(cl);
    return rc;
}

int msp_release(const msp_conf *c, uint32_t job, uint32_t step, int all_steps, char *err,
                size_t errlen)
{
    ms_client *cl = connect_to(c, err, errlen);
    if (!cl)
        return -1;
    char path[96];
    if (all_steps)
        snprintf(path, sizeof path, "/v1/allocations/%u", job);
    else
        snprintf(path, sizeof path, "/v1/allocations/%u/steps/%u", job, step);
    msp_backoff b;
    msp_backoff_init(&b, ms_monotonic_seconds(), c->timeout);
    json_t *a = NULL;
    long status = 0;
    int rc = call(cl, c, &b, job, "DELETE", path, NULL, &a, &status, err, errlen) && status != 404
                 ? -1
                 : 0;
    if (rc == 0)
        err[0] = '\0';
    json_decref(a);
    ms_client_close(cl);
    return rc;
}
