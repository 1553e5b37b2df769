/* spank_client.h: the SPANK plugin's round trips with migschedd, on its libcurl client
 * (migsched/client.h, shared with the CLI): ask for a step's instance and wait until it is
 * placed, release a step, release a job; each request waits out a migschedd that is
 * restarting. No scheduling here: migschedd decides. */
#ifndef MIGSCHED_SLURM_SPANK_CLIENT_H
#define MIGSCHED_SLURM_SPANK_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "spank_args.h"

/* What a placed allocation tells the task. */
typedef struct msp_instance {
    char mig_uuid[96];    /* MIG-<uuid>: CUDA_VISIBLE_DEVICES */
    long long allocation; /* migschedd's job id of the allocation */
    int gpu;              /* the GPU (NVML index; sim: 0..gpus-1) */
    char profile[32];
    long gpu_minor;    /* the GPU's minor number (/dev/nvidia<minor>); -1: unknown */
    long gi_id, ci_id; /* the MIG instance's GPU and compute instance ids; -1: none */
} msp_instance;

/* The retry policy of every request: what a restarting migschedd answers (nothing listens
 * on its socket, the socket file is gone, HTTP 503 while it stops) is tried again after a
 * pause that doubles from MSP_RETRY_FIRST to MSP_RETRY_CAP seconds, until the plugin's
 * timeout has passed; any other failure is final at once. */
#define MSP_RETRY_FIRST 0.1
#define MSP_RETRY_CAP   2.0

/* Why a failed request is worth trying again ("connection refused", "no socket file",
 * "migschedd is stopping (HTTP 503)", "migschedd closed the connection without a reply"),
 * or NULL when its failure is final. status: the HTTP status received (0: none);
 * connect_errno: the failed connection's errno (0: none); dropped: the connection was
 * closed before a reply (migschedd killed mid-request; every request of the plugin is
 * idempotent, so sending it again is safe). */
const char *msp_retry_reason(long status, long connect_errno, bool dropped);

/* The pauses between the tries of requests that share one deadline. */
typedef struct msp_backoff {
    double start, until; /* monotonic seconds: the first try, the deadline */
    double pause;        /* the next pause */
} msp_backoff;

void msp_backoff_init(msp_backoff *b, double now, double timeout);
/* The pause before the next try at time now: the current one (then doubled, up to
 * MSP_RETRY_CAP), cut at the deadline; -1 once the deadline has passed. */
double msp_backoff_next(msp_backoff *b, double now);

/* PUT /v1/allocations/{job}/steps/{step} with body (msp_parse_mig's), then GET
 * /v1/allocations/{job} (after 5 ms, doubling to every 100 ms) until it runs or c->timeout
 * seconds have passed since the PUT was first tried; each request is retried as the
 * policy above says, each retry told to c->note.
 * Returns 0; MSP_STILL_QUEUED with the timeout in err when the allocation was accepted
 * but not placed in time; or -1 with migschedd's error or the unreachable socket (with
 * the last reason and the time waited) in err. */
#define MSP_STILL_QUEUED (-2)
int msp_acquire(const msp_conf *c, uint32_t job, uint32_t step, const char *body, msp_instance *out,
                char *err, size_t errlen);
/* DELETE /v1/allocations/{job}/steps/{step}, or (all_steps) /v1/allocations/{job},
 * retried as the policy above says for up to c->timeout seconds. A job with no allocation
 * is not an error (another step released it, or it never got one).
 * Returns 0, or -1 with the problem in err. */
int msp_release(const msp_conf *c, uint32_t job, uint32_t step, int all_steps, char *err,
                size_t errlen);

#endif
