/* spawn.h: starting a task process (shared by the executor and the profiler). Private to
 * src/exec. */
#ifndef MIGSCHED_EXEC_SPAWN_H
#define MIGSCHED_EXEC_SPAWN_H

#include <sys/types.h>

#include "migsched/isolate.h"

/* Forks a child in its own process group that runs `sh -c command` in cwd (NULL = here)
 * with envp, stdout/stderr on out_fd/err_fd (-1 = inherited); with sleep_s >= 0 it sleeps
 * that long and exits 0 instead (the sim backend's tasks). Returns the pid, -1 on failure.
 * With gate non-NULL the child waits, in its process group, until exec_release(*gate): the
 * caller records the group first, and a child whose parent died before that never runs.
 * With iso non-NULL the child confines itself to those device nodes first, as root (exit
 * 126 if it cannot: ms_devplan_apply reports why). */
pid_t exec_spawn(const char *command, const char *cwd, char *const envp[], int out_fd,
                 int err_fd, double sleep_s, int *gate, const ms_devplan *iso);
void exec_release(int gate);

/* A copy of the environment without CUDA_VISIBLE_DEVICES, MIGSCHED_TASK_INDEX,
 * MIGSCHED_SLICES and the CUDA_MPS_PIPE/LOG_DIRECTORY of an outside MPS server, with
 * `extra` NULL slots at the end for the caller to fill; *n = entries including them. */
char **exec_env(int extra, int *n);

#endif
