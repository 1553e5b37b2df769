/* proc.h: process identity from /proc (pid + start time, so that a reused pid is not
 * mistaken for the process recorded) and killing a recorded process group. Private to
 * src/exec. */
#ifndef MIGSCHED_EXEC_PROC_H
#define MIGSCHED_EXEC_PROC_H

#include <stdbool.h>
#include <sys/types.h>

/* Start time of pid in clock ticks since boot (/proc/PID/stat field 22); false if pid does
 * not exist. */
bool proc_start_time(pid_t pid, unsigned long long *ticks);
/* Whether the process recorded as (pid, start) still runs: it exists, is not a zombie and
 * started at `start`. */
bool proc_alive(pid_t pid, unsigned long long start);
/* Whether process group pgid recorded with its leader's start time is still ours and has a
 * live (non-zombie) member: a leader that exists must have that start time (else the pid
 * was reused and the group is someone else's); with the leader gone, members of the group
 * can only be the leader's descendants (a pid is not reused while its group exists). */
bool proc_group_ours_alive(pid_t pgid, unsigned long long leader_start);

#endif
