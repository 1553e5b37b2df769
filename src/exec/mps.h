/* mps.h: an MPS control daemon inside one GPU instance (mps.c), given only where it runs;
 * run_mps.c decides, for a run, which instances get one and when. Private to src/exec. */
#ifndef MIGSCHED_EXEC_MPS_H
#define MIGSCHED_EXEC_MPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "migsched/exec_run.h"

/* Where the daemon of plan instance `instance` runs. */
typedef struct exec_mps_site {
    const ms_mps_plan *plan; /* the control binary and the root of the daemons' folders */
    int device;              /* the device that holds the instance */
    int instance;            /* its index in the plan */
    const char *uuid;        /* its MIG device */
} exec_mps_site;

/* Whether the MPS plan p (NULL: none) gives plan instance k a daemon. */
bool exec_mps_wanted(const ms_mps_plan *p, int k);
/* Starts the site's daemon (`control -d`), or with dry non-NULL writes the command there
 * instead. Returns 0, or -1 with why filled. */
int exec_mps_start(const exec_mps_site *s, FILE *dry, char *why, size_t len);
/* Stops it (`echo quit | control`), or lists that in dry. Returns 0, or -1 with why. */
int exec_mps_stop(const exec_mps_site *s, FILE *dry, char *why, size_t len);
/* The two variables the site's tasks reach the daemon by: "CUDA_MPS_PIPE_DIRECTORY=..."
 * and "CUDA_MPS_LOG_DIRECTORY=...". */
void exec_mps_task_env(const exec_mps_site *s, char *pipe_var, size_t pipe_len, char *log_var,
                       size_t log_len);

#endif
