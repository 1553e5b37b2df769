/* proc.h: process identity from /proc (pid + start time, so that a reused pid is not
 * mistaken for the process recorded): what only src/exec uses of it, the rest being in
 * migsched/process.h. Private to src/exec. */
#ifndef MIGSCHED_EXEC_PROC_H
#define MIGSCHED_EXEC_PROC_H

#include "migsched/process.h"

/* Whether the process recorded as (pid, start) still runs: it exists, is not a zombie and
 * started at `start`. */
bool proc_alive(pid_t pid, unsigned long long start);

#endif
