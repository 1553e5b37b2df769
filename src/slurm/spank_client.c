/* spank_client.c: the plugin's requests to migschedd (the CLI's libcurl client). */
#include "spank_client.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../cli/daemon_client.h"

#define FIRST_POLL_SECONDS 0.005
#define POLL_SECONDS 0.1
#define REQUEST_SLACK_SECONDS 30

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static cli_client *connect_to(const msp_conf *c, char *err, size_t errlen)
{
    char where[MSP_SOCKET_LEN + 8];
    snprintf(where, sizeof where, "unix:%s", c->socket);
    bool usage;
    cli_client *cl = cli_client_open("migsched_spank", where, NULL, &usage);
    if (!cl) {
        snprintf(err, errlen, "cannot open a connection to migschedd at %s", where);
        return NULL;
    }
    cli_client_capture_errors(cl, err, errlen);
    /* One request never outlasts the wait, plus room for migschedd asking Slurm. */
    cli_client_timeout(cl, c->timeout + REQUEST_SLACK_SECONDS);
    return cl;
}

static long id_or_none(json_t *a, const char *key)
{
    json_t *v = json_object_get(a, key);
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (long)json_integer_value(v) : -1;
}

/* Fills out from a running allocation's JSON; 0 when it runs, 1 while queued, -1 when it
 * is neither (err says). */
static int placed(json_t *a, msp_instance *out, char *err, size_t errlen)
{
    const char *state = json_string_value(json_object_get(a, "state"));
    if (state && !strcmp(state, "queued"))
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

int msp_acquire(const msp_conf *c, uint32_t job, uint32_t step, const char *body,
                msp_instance *out, char *err, size_t errlen)
{
    cli_client *cl = connect_to(c, err, errlen);
    if (!cl)
        return -1;
    char path[96];
    snprintf(path, sizeof path, "/v1/allocations/%u/steps/%u", job, step);
    json_t *a = NULL;
    int rc = cli_client_call(cl, "PUT", path, body, &a, NULL) ? -1 : placed(a, out, err, errlen);
    double until = mono() + c->timeout, pause = FIRST_POLL_SECONDS;
    snprintf(path, sizeof path, "/v1/allocations/%u", job);
    while (rc == 1) {
        if (mono() >= until) {
            snprintf(err, errlen, "no MIG instance for job %u within %g s (its allocation is "
                     "still queued: the node's GPUs are busy)", job, c->timeout);
            rc = -1;
            break;
        }
        /* Placement often takes milliseconds (an idle instance reused): look soon, then
         * back off to POLL_SECONDS. */
        struct timespec ts = {0, (long)(pause * 1e9)};
        nanosleep(&ts, NULL);
        pause = fmin(2 * pause, POLL_SECONDS);
        json_decref(a);
        a = NULL;
        rc = cli_client_call(cl, "GET", path, NULL, &a, NULL) ? -1 : placed(a, out, err, errlen);
    }
    json_decref(a);
    cli_client_close(cl);
    return rc;
}

int msp_release(const msp_conf *c, uint32_t job, uint32_t step, int all_steps, char *err,
                size_t errlen)
{
    cli_client *cl = connect_to(c, err, errlen);
    if (!cl)
        return -1;
    char path[96];
    if (all_steps)
        snprintf(path, sizeof path, "/v1/allocations/%u", job);
    else
        snprintf(path, sizeof path, "/v1/allocations/%u/steps/%u", job, step);
    json_t *a = NULL;
    long status = 0;
    int rc = cli_client_call(cl, "DELETE", path, NULL, &a, &status) && status != 404 ? -1 : 0;
    if (rc == 0)
        err[0] = '\0';
    json_decref(a);
    cli_client_close(cl);
    return rc;
}
