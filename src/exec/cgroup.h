/* cgroup.h: a cgroup v2 folder per task, so that everything a task started (background and
 * setsid children included, which leave its process group) is found, signalled and waited
 * for: cgroup.procs lists its processes, cgroup.events says when none is left, cgroup.kill
 * ends them all at once. A task cannot leave its cgroup: moving a process needs write access
 * to the cgroup.procs of the common ancestor, which is root's. Private to src/exec and its
 * users. */
#ifndef MIGSCHED_EXEC_CGROUP_H
#define MIGSCHED_EXEC_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "migsched/error.h"
#include "migsched/exec.h"

/* The longest cgroup path kept (a journal record holds it whole). */
#define MS_CGROUP_PATH_LEN MS_JOURNAL_CGROUP_LEN

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
