/* process.h: a task's processes as migschedd's jobs run them: starting one (as its owner,
 * confined to its device nodes), knowing a recorded one again by its start time, and
 * holding everything it starts in a cgroup, stopped after a grace period. */
#ifndef MIGSCHED_PROCESS_H
#define MIGSCHED_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "migsched/error.h"
#include "migsched/exec_journal.h"
#include "migsched/isolate.h"

/* ---- Starting a task process ------------------------------------------------------ */

/* The exit statuses of a child that ran nothing (a shell's are 126 and 127 too). */
enum {
    MS_EXEC_EXIT_ISOLATION = 123, /* it could not confine itself to its device nodes */
    MS_EXEC_EXIT_IDENTITY = 124,  /* it could not take its owner's groups, gid or uid */
    MS_EXEC_EXIT_GATE = 125,      /* the parent died before releasing it */
    MS_EXEC_EXIT_CWD = 126,       /* it could not change to its cwd */
    MS_EXEC_EXIT_EXEC = 127,      /* /bin/sh could not be executed */
};

/* Whom a child runs as: filled before fork (ms_exec_identity_init), taken in the child. */
typedef struct ms_exec_identity {
    uid_t uid;
    gid_t gid;
    gid_t *groups; /* the supplementary groups, from getgrouplist */
    int ngroups;
    char *name, *home, *shell; /* the passwd entry's */
    char failed[160];          /* the child's message prefix when a call fails */
} ms_exec_identity;

/* The passwd entry of uid (MS_EINVAL when it has none) and its groups with gid. */
int ms_exec_identity_init(ms_exec_identity *id, uid_t uid, gid_t gid, ms_error *err);
void ms_exec_identity_fini(ms_exec_identity *id);

/* How a child starts: everything computed before fork, so that the child (the parent has
 * threads) makes only async-signal-safe calls. */
typedef struct ms_exec_spawn_opts {
    const char *command; /* run as `sh -c command` */
    const char *cwd;     /* NULL = the parent's */
    char *const *envp;
    int out_fd, err_fd;         /* stdout and stderr; -1 = inherited */
    double sleep_s;             /* >= 0: sleep that long and exit 0 instead (sim tasks) */
    const ms_devplan *iso;      /* NULL: not confined; else its device nodes only, set up first,
                                   as root (exit MS_EXEC_EXIT_ISOLATION if it cannot:
                                   ms_devplan_apply reports why) */
    const ms_exec_identity *as; /* NULL: the parent's identity; else taken before cwd and exec */
} ms_exec_spawn_opts;

/* Forks a child in its own process group that runs o's command. Returns the pid, -1 on
 * failure. With gate non-NULL the child waits, in its process group, until
 * ms_exec_release(*gate): the caller records the group first, and a child whose parent died
 * before that never runs. A child that cannot take o->as writes why to its stderr and
 * exits MS_EXEC_EXIT_IDENTITY having run nothing. */
pid_t ms_exec_spawn(const ms_exec_spawn_opts *o, int *gate);
void ms_exec_release(int gate);

/* ---- Process identity (pid + start time, so that a reused pid is not mistaken) ------ */

/* Start time of pid in clock ticks since boot (/proc/PID/stat field 22); false if pid does
 * not exist. */
bool ms_proc_start_time(pid_t pid, unsigned long long *ticks);
/* Whether process group pgid recorded with its leader's start time has a live
 * (non-zombie) member and is not provably someone else's: a leader that exists must have
 * that start time (else the pid was reused). With the leader gone it cannot tell: once the
 * group emptied, its id may have been reused by another group whose leader left too. So it
 * only follows a group already proved ours (ms_proc_group_leader_is) while it is signalled. */
bool ms_proc_group_ours_alive(pid_t pgid, unsigned long long leader_start);
/* Whether the leader of process group pgid still exists (a zombie too) with the recorded
 * start time: the only proof that a signal to the group reaches the recorded group. */
bool ms_proc_group_leader_is(pid_t pgid, unsigned long long leader_start);

/* ---- Cgroups ---------------------------------------------------------------------- */

/* A cgroup v2 folder per task, so that everything a task started (background and
 * setsid children included, which leave its process group) is found, signalled and waited
 * for: cgroup.procs lists its processes, cgroup.events says when none is left, cgroup.kill
 * ends them all at once. A task cannot leave its cgroup: moving a process needs write access
 * to the cgroup.procs of the common ancestor, which is root's. */

/* The folder under which tasks get their cgroups: `configured` when given (a folder on a
 * cgroup v2 file system), else this process's own cgroup on the unified hierarchy, found
 * in /proc/self/mountinfo wherever it is mounted (/sys/fs/cgroup, /sys/fs/cgroup/unified).
 * MS_EINVAL with the reason when there is none (no cgroup v2, a v1-only system). */
int ms_cgroup_root(const char *configured, char *out, size_t len, ms_error *err);

/* Whether tasks can be held under the folder dir: a child is moved into a cgroup made there,
 * seen in it, killed through it and seen gone, and the cgroup removed. Where the hierarchy
 * lets a folder be made but not used (no right to move processes, a threaded subtree), the
 * reason is given. */
int ms_cgroup_probe(const char *dir, ms_error *err);

/* Makes the cgroup at path (mode 0755, root's); one already there is taken if empty. */
int ms_cgroup_make(const char *path, ms_error *err);
/* Makes the cgroup at path unless one is there (whatever it holds). */
int ms_cgroup_ensure(const char *path, ms_error *err);
/* Moves process pid into the cgroup at path. */
int ms_cgroup_enter(const char *path, pid_t pid, ms_error *err);
/* Whether a process is left in the cgroup or below it (cgroup.events); a cgroup that is
 * gone holds none. An unreadable one counts as populated: nothing is reused on a guess. */
bool ms_cgroup_populated(const char *path);
/* Sends sig to every process of the cgroup (SIGKILL: cgroup.kill, which no fork outruns,
 * or each process where the kernel has no cgroup.kill); returns how many were signalled. */
int ms_cgroup_signal(const char *path, int sig);
/* Removes the empty cgroup at path (one that is gone is fine). */
int ms_cgroup_remove(const char *path, ms_error *err);

/* Removes the cgroup at path with the cgroups below it (one level), where they are empty;
 * a populated one stays (rmdir refuses it). */
void ms_cgroup_prune(const char *path);

/* Stops the tasks of a crashed run's journal that name a cgroup, all together: SIGTERM to
 * every process of each, up to `grace` seconds for them to go, then SIGKILL and 2 s more;
 * each emptied cgroup is removed. For such a record k: held[k] whether its cgroup held a
 * process, gone[k] whether it is empty now (false: something survived SIGKILL, e.g. stuck
 * in the kernel). Other records are left false. */
void ms_cgroup_stop_tasks(const ms_journal_state *st, double grace, bool *held, bool *gone);

#endif
