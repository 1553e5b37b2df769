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
/* Whether process group pgid recorded with its leader's start time has a live
 * (non-zombie) member and is not provably someone else's: a leader that exists must have
 * that start time (else the pid was reused). With the leader gone it cannot tell: once the
 * group emptied, its id may have been reused by another group whose leader left too. So it
 * only follows a group already proved ours (proc_group_leader_is) while it is signalled. */
bool proc_group_ours_alive(pid_t pgid, unsigned long long leader_start);
/* Whether the leader of process group pgid still exists (a zombie too) with the recorded
 * start time: the only proof that a signal to the group reaches the recorded group. */
bool proc_group_leader_is(pid_t pgid, unsigned long long leader_start);

#endif
