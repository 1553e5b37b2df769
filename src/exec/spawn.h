/* spawn.h: starting a task process (shared by the executor, the profiler and migschedd's
 * jobs). Private to src/exec and its users. */
#ifndef MIGSCHED_EXEC_SPAWN_H
#define MIGSCHED_EXEC_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

#include "migsched/error.h"
#include "migsched/isolate.h"

/* The exit statuses of a child that ran nothing (a shell's are 126 and 127 too). */
enum {
    EXEC_EXIT_ISOLATION = 123, /* it could not confine itself to its device nodes */
    EXEC_EXIT_IDENTITY = 124,  /* it could not take its owner's groups, gid or uid */
    EXEC_EXIT_GATE = 125,      /* the parent died before releasing it */
    EXEC_EXIT_CWD = 126,       /* it could not change to its cwd */
    EXEC_EXIT_EXEC = 127,      /* /bin/sh could not be executed */
};

/* Whom a child runs as: filled before fork (exec_identity_init), taken in the child. */
typedef struct exec_identity {
    uid_t uid;
    gid_t gid;
    gid_t *groups;             /* the supplementary groups, from getgrouplist */
    int ngroups;
    char *name, *home, *shell; /* the passwd entry's */
    char failed[160];          /* the child's message prefix when a call fails */
} exec_identity;

/* The passwd entry of uid (MS_EINVAL when it has none) and its groups with gid. */
int exec_identity_init(exec_identity *id, uid_t uid, gid_t gid, ms_error *err);
void exec_identity_fini(exec_identity *id);

/* How a child starts: everything computed before fork, so that the child (the parent has
 * threads) makes only async-signal-safe calls. */
typedef struct exec_spawn_opts {
    const char *command;       /* run as `sh -c command` */
    const char *cwd;           /* NULL = the parent's */
    char *const *envp;
    int out_fd, err_fd;        /* stdout and stderr; -1 = inherited */
    double sleep_s;            /* >= 0: sleep that long and exit 0 instead (sim tasks) */
    const ms_devplan *iso;     /* NULL: not confined; else its device nodes only, set up first,
                                  as root (exit EXEC_EXIT_ISOLATION if it cannot:
                                  ms_devplan_apply reports why) */
    const exec_identity *as;   /* NULL: the parent's identity; else taken before cwd and exec */
} exec_spawn_opts;

/* Forks a child in its own process group that runs o's command. Returns the pid, -1 on
 * failure. With gate non-NULL the child waits, in its process group, until
 * exec_release(*gate): the caller records the group first, and a child whose parent died
 * before that never runs. A child that cannot take o->as writes why to its stderr and
 * exits EXEC_EXIT_IDENTITY having run nothing. */
pid_t exec_spawn(const exec_spawn_opts *o, int *gate);
void exec_release(int gate);

/* A copy of the environment without CUDA_VISIBLE_DEVICES, MIGSCHED_TASK_INDEX,
 * MIGSCHED_SLICES and the CUDA_MPS_PIPE/LOG_DIRECTORY of an outside MPS server, with
 * `extra` NULL slots at the end for the caller to fill; *n = entries including them. */
char **exec_env(int extra, int *n);

#endif
