/* spank_client.h: the SPANK plugin's round trips with migschedd, on the migsched CLI's
 * libcurl client (src/cli/daemon_client.c): ask for a step's instance and wait until it is
 * placed, release a step, release a job. No scheduling here: migschedd decides. */
#ifndef MIGSCHED_SLURM_SPANK_CLIENT_H
#define MIGSCHED_SLURM_SPANK_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "spank_args.h"

/* What a placed allocation tells the task. */
typedef struct msp_instance {
    char mig_uuid[96];     /* MIG-<uuid>: CUDA_VISIBLE_DEVICES */
    long long allocation;  /* migschedd's job id of the allocation */
    int gpu;               /* the GPU (NVML index; sim: 0..gpus-1) */
    char profile[32];
    long gpu_minor;        /* the GPU's minor number (/dev/nvidia<minor>); -1: unknown */
    long gi_id, ci_id;     /* the MIG instance's GPU and compute instance ids; -1: none */
} msp_instance;

/* PUT /v1/allocations/{job}/steps/{step} with body (msp_parse_mig's), then GET
 * /v1/allocations/{job} (after 5 ms, doubling to every 100 ms) until it runs or c->timeout
 * seconds have passed.
 * Returns 0, or -1 with migschedd's error, the unreachable socket or the timeout in err. */
int msp_acquire(const msp_conf *c, uint32_t job, uint32_t step, const char *body,
                msp_instance *out, char *err, size_t errlen);
/* DELETE /v1/allocations/{job}/steps/{step}, or (all_steps) /v1/allocations/{job}. A job
 * with no allocation is not an error (another step released it, or it never got one).
 * Returns 0, or -1 with the problem in err. */
int msp_release(const msp_conf *c, uint32_t job, uint32_t step, int all_steps, char *err,
                size_t errlen);

#endif
