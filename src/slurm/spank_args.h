/* spank_args.h: the SPANK plugin's words, apart from Slurm so they are tested without it:
 * its plugstack.conf arguments (socket=PATH timeout=SECONDS isolation=devices|none
 * dev_dir=PATH mig_minors=PATH requeue_exit=N gpu_model=NAME[,NAME...]) and the job option
 * --mig=PROFILE|SLICES made the body of migschedd's PUT /v1/allocations/{job}/steps/{step}.
 * See docs/daemon.md ("Slurm"). */
#ifndef MIGSCHED_SLURM_SPANK_ARGS_H
#define MIGSCHED_SLURM_SPANK_ARGS_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/gpu.h"
#include "migsched/isolate.h"

#define MSP_DEFAULT_SOCKET  "/run/migschedd/migschedd.sock"
#define MSP_DEFAULT_TIMEOUT 60.0 /* seconds to wait for an instance */
#define MSP_SOCKET_LEN      108  /* sockaddr_un's sun_path */
#define MSP_PATH_LEN        1024
#define MSP_MAX_MODELS      8 /* gpu_model= names: the GPU models of a cluster's nodes */

typedef struct msp_conf {
    char socket[MSP_SOCKET_LEN];   /* migschedd's Unix socket */
    double timeout;                /* seconds a task waits for its instance, (0, 86400] */
    bool isolate;                  /* isolation=devices: a task sees only its instance's nodes */
    char dev_dir[MSP_PATH_LEN];    /* where the NVIDIA device nodes are (absolute) */
    char mig_minors[MSP_PATH_LEN]; /* the driver's MIG capability minors (absolute) */
    /* 1..255: a task whose instance is still queued at the timeout exits with this status
     * before it runs anything, for slurm.conf's RequeueExit= to requeue its job; 0: the
     * step fails (the default). */
    int requeue_exit;
    /* gpu_model=: the built-in GPU models the nodes have (their names as migsched spells
     * them), against which sbatch, srun and salloc check --mig before they submit; none:
     * --mig's size is checked by migschedd on the node only. */
    int nmodels;
    char models[MSP_MAX_MODELS][MS_NAME_LEN];
    /* Told each retry of a request that migschedd could not take (the plugin logs it at
     * verbose level); NULL: nobody. Not an argument: msp_parse_args sets it to NULL. */
    void (*note)(const char *msg);
} msp_conf;

/* plugstack.conf's arguments (argv[0..argc-1]) over the defaults. Returns 0, or -1 with
 * the problem in err (naming the argument). */
int msp_parse_args(int argc, char *const argv[], msp_conf *out, char *err, size_t errlen);

/* --mig's value: SLICES (an integer 1..7) or PROFILE (a name such as 3g.20gb, which
 * migschedd checks against its GPU model) as the JSON body {"slices": N} or
 * {"profile": "NAME"} (written to body). Returns 0, or -1 with the problem in err. */
int msp_parse_mig(const char *value, char *body, size_t bodylen, char *err, size_t errlen);

/* Names the Slurm job's user in body (msp_parse_mig's object) as "user", so that the
 * allocation migschedd makes is that user's. Returns 0, or -1 with the problem in err (a
 * name outside [A-Za-z0-9._-], or no room). */
int msp_body_user(char *body, size_t bodylen, const char *user, char *err, size_t errlen);

#endif
