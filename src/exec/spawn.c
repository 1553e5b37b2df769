/* spawn.c: fork/exec of task commands with only async-signal-safe calls in the child (the
 * parent has threads), and the tasks' environment. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static void child(const char *command, const char *cwd, char *const envp[], int out_fd,
                  int err_fd, double sleep_s, const int gate[2], const ms_devplan *iso)
{
    setpgid(0, 0);
    if (gate[0] >= 0) {  /* wait for the go; EOF means the parent died before recording us */
        close(gate[1]);  /* else our own copy would keep the EOF from coming */
        char go;
        ssize_t n;
        while ((n = read(gate[0], &go, 1)) < 0 && errno == EINTR)
            ;
        if (n != 1)
            _exit(125);
        close(gate[0]);
    }
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (out_fd >= 0)
        dup2(out_fd, 1);
    if (err_fd >= 0)
        dup2(err_fd, 2);
    if (iso && ms_devplan_apply(iso, NULL, 0))  /* still root: before any identity change */
        _exit(126);
    if (sleep_s >= 0) {
        struct timespec ts = {(time_t)sleep_s, (long)((sleep_s - (double)(time_t)sleep_s) * 1e9)};
        while (nanosleep(&ts, &ts) != 0)
            ;
        _exit(0);
    }
    if (cwd && chdir(cwd) != 0) {
        static const char msg[] = "migsched: cannot change to the task's cwd\n";
        ssize_t ignored = write(2, msg, sizeof msg - 1);
        (void)ignored;
        _exit(126);
    }
    char *argv[] = {"sh", "-c", (char *)command, NULL};
    execve("/bin/sh", argv, envp);
    _exit(127);
}

pid_t exec_spawn(const char *command, const char *cwd, char *const envp[], int out_fd,
                 int err_fd, double sleep_s, int *gate, const ms_devplan *iso)
{
    int fds[2] = {-1, -1};
    if (gate && pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0)
        child(command, cwd, envp, out_fd, err_fd, sleep_s, fds, iso);
    if (pid > 0)
        setpgid(pid, pid);  /* also done in the child: whichever runs first */
    if (gate) {
        close(fds[0]);
        if (pid > 0)
            *gate = fds[1];
        else
            close(fds[1]);
    }
    return pid;
}

void exec_release(int gate)
{
    ssize_t ignored = write(gate, "", 1);
    (void)ignored;  /* a child that is gone needs no go */
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
