/* spawn.h: the environment a task process starts with (ms_exec_spawn is in
 * migsched/process.h). Private to src/exec. */
#ifndef MIGSCHED_EXEC_SPAWN_H
#define MIGSCHED_EXEC_SPAWN_H

#include "migsched/process.h"

/* A copy of the environment without CUDA_VISIBLE_DEVICES, MIGSCHED_TASK_INDEX,
 * MIGSCHED_SLICES and the CUDA_MPS_PIPE/LOG_DIRECTORY of an outside MPS server, with
 * `extra` NULL slots at the end for the caller to fill; *n = entries including them. */
char **exec_env(int extra, int *n);

#endif
