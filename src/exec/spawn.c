/* spawn.c: fork/exec of task commands with only async-signal-safe calls in the child (the
 * parent has threads): the identity a child takes (computed before fork), and the tasks'
 * environment. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

int ms_exec_identity_init(ms_exec_identity *id, uid_t uid, gid_t gid, ms_error *err)
{
    *id = (ms_exec_identity){.uid = uid, .gid = gid};
    struct passwd pw, *found = NULL;
    char buf[16384];
    int e = getpwuid_r(uid, &pw, buf, sizeof buf, &found);
    if (!found)
        return ms_error_set(err, MS_EINVAL, "uid %u has no passwd entry%s%s", (unsigned)uid,
                            e ? ": " : "", e ? strerror(e) : "");
    id->name = strdup(pw.pw_name);
    id->home = strdup(pw.pw_dir);
    id->shell = strdup(*pw.pw_shell ? pw.pw_shell : "/bin/sh");
    int n = 32;
    for (;;) {
        gid_t *g = realloc(id->groups, (size_t)n * sizeof *g);
        if (!g) {
            free(id->groups);
            id->groups = NULL;
            break;
        }
        id->groups = g;
        int want = n;
        if (getgrouplist(pw.pw_name, gid, g, &want) >= 0) {
            id->ngroups = want;
            break;
        }
        if (want <= n) { /* refused without asking for more room */
            ms_exec_identity_fini(id);
            return ms_error_set(err, MS_EINVAL, "uid %u (%s): cannot list its groups",
                                (unsigned)uid, pw.pw_name);
        }
        n = want;
    }
    if (!id->name || !id->home || !id->shell || !id->groups) {
        ms_exec_identity_fini(id);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    snprintf(id->failed, sizeof id->failed,
             "migsched: cannot run as %.64s (uid %u, gid %u): ", id->name, (unsigned)uid,
             (unsigned)gid);
    return MS_OK;
}

void ms_exec_identity_fini(ms_exec_identity *id)
{
    free(id->groups);
    free(id->name);
    free(id->home);
    free(id->shell);
    *id = (ms_exec_identity){0};
}

static void say(const char *s)
{
    ssize_t ignored = write(2, s, strlen(s));
    (void)ignored;
}

/* "<prefix>CALL: errno N\n" on stderr (strerror is not async-signal-safe), then exit. */
static void identity_failed(const ms_exec_identity *id, const char *call, int e)
{
    char digits[12], *p = digits + sizeof digits;
    *--p = '\0';
    do
        *--p = (char)('0' + e % 10);
    while ((e /= 10) > 0 && p > digits);
    say(id->failed);
    say(call);
    say(" failed: errno ");
    say(p);
    say(" (nothing was run)\n");
    _exit(MS_EXEC_EXIT_IDENTITY);
}

/* Groups, then gid, then uid (each needs the privilege the next one drops), each checked;
 * and root cannot be taken back. */
static void take_identity(const ms_exec_identity *id)
{
    if (setgroups((size_t)id->ngroups, id->groups) != 0)
        identity_failed(id, "setgroups", errno);
    if (setgid(id->gid) != 0)
        identity_failed(id, "setgid", errno);
    if (setuid(id->uid) != 0)
        identity_failed(id, "setuid", errno);
    if (id->uid != 0 && setuid(0) == 0)
        identity_failed(id, "dropping root", EPERM);
}

/* The child's one path from fork to exec: its process group and go, signals and standard
 * streams; then, while it still has the parent's privileges, whatever needs them; then its
 * identity; then cwd and command, with that identity's rights. */
static void child(const ms_exec_spawn_opts *o, const int gate[2])
{
    setpgid(0, 0);
    if (gate[0] >= 0) { /* wait for the go; EOF means the parent died before recording us */
        close(gate[1]); /* else our own copy would keep the EOF from coming */
        char go;
        ssize_t n;
        while ((n = read(gate[0], &go, 1)) < 0 && errno == EINTR)
            ;
        if (n != 1)
            _exit(MS_EXEC_EXIT_GATE);
        close(gate[0]);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (o->out_fd >= 0)
        dup2(o->out_fd, 1);
    if (o->err_fd >= 0)
        dup2(o->err_fd, 2);
    if (o->iso && ms_devplan_apply(o->iso, NULL, 0)) /* still root: before the identity */
        _exit(MS_EXEC_EXIT_ISOLATION);
    if (o->sleep_s >= 0) {
        double s = o->sleep_s;
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
        _exit(0);
    }
    if (o->as)
        take_identity(o->as);
    if (o->cwd && chdir(o->cwd) != 0) {
        say("migsched: cannot change to the task's cwd\n");
        _exit(MS_EXEC_EXIT_CWD);
    }
    char *argv[] = {"sh", "-c", (char *)o->command, NULL};
    execve("/bin/sh", argv, o->envp);
    _exit(MS_EXEC_EXIT_EXEC);
}

pid_t ms_exec_spawn(const ms_exec_spawn_opts *o, int *gate)
{
    int fds[2] = {-1, -1};
    if (gate && pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0)
        child(o, fds);
    if (pid > 0)
        setpgid(pid, pid); /* also done in the child: whichever runs first */
    if (gate) {
        close(fds[0]);
        if (pid > 0)
            *gate = fds[1];
        else
            close(fds[1]);
    }
    return pid;
}

void ms_exec_release(int gate)
{
    ssize_t ignored = write(gate, "", 1);
    (void)ignored; /* a child that is gone needs no go */
    close(gate);
}

char **exec_env(int extra, int *n)
{
    int total = 0;
    while (environ[total])
        total++;
    char **envp = calloc((size_t)total + (size_t)extra + 1, sizeof *envp);
    if (!envp)
        return NULL;
    int k = 0;
    for (int i = 0; i < total; i++)
        if (strncmp(environ[i], "CUDA_VISIBLE_DEVICES=", 21) &&
            strncmp(environ[i], "MIGSCHED_TASK_INDEX=", 20) &&
            strncmp(environ[i], "MIGSCHED_SLICES=", 16) &&
            strncmp(environ[i], "CUDA_MPS_PIPE_DIRECTORY=", 24) &&
            strncmp(environ[i], "CUDA_MPS_LOG_DIRECTORY=", 23))
            envp[k++] = environ[i];
    *n = k + extra;
    return envp;
}
