/* mps.h: MPS control daemons inside GPU instances during a run (mps.c). Private to
 * src/exec. */
#ifndef MIGSCHED_EXEC_MPS_H
#define MIGSCHED_EXEC_MPS_H

#include <stddef.h>

#include "runner.h"

/* After instance k exists: starts its daemon if the plan asks (nvml backend) or lists the
 * command (dry run). Returns 0, or -1 with why filled. */
int exec_mps_start(run_ctx *c, int k, char *why, size_t len);
/* Before instance k is destroyed: stops its daemon if one runs. */
void exec_mps_stop(run_ctx *c, int k);
/* The MPS part of task environment: fills the two slots env[0..1] (NULL when instance k
 * has no daemon) and, for dry runs, text (may be NULL) with "VAR=... VAR=... ". */
void exec_mps_task_env(run_ctx *c, int k, char **env, char *text, size_t len);

#endif
