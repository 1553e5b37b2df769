/* run_real.c: the executor's real driver: reconfigurations in one thread per GPU (the
 * driver calls block), tasks as child processes in their own process groups with
 * CUDA_VISIBLE_DEVICES set and output to log files; SIGCHLD, SIGINT, SIGTERM and a
 * wake-up SIGUSR1 from the op threads are taken with sigtimedwait in the main thread. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "migsched/clock.h"
#include "migsched/io.h"
#include "runner.h"
#include "proc.h"
#include "spawn.h"

#define KILL_GRACE_S 5.0 /* real seconds between SIGTERM and SIGKILL */

static double real_now(run_ctx *c) { return (ms_monotonic_seconds() - c->t0) / c->time_unit; }

typedef struct op_arg {
    run_ctx *c;
    int op;
} op_arg;

static void *op_thread(void *p)
{
    op_arg a = *(op_arg *)p;
    free(p);
    run_ctx *c = a.c;
    run_do_op(c, a.op);
    ms_run_op *o = &c->r->ops[a.op];
    pthread_mutex_lock(&c->lock);
    o->end = run_now(c);
    c->op_finished[o->gpu] = true;
    pthread_mutex_unlock(&c->lock);
    pthread_kill(c->main_thread, SIGUSR1);
    return NULL;
}

static void real_start_op(run_ctx *c, int op)
{
    ms_run_op *o = &c->r->ops[op];
    o->start = run_now(c);
    op_arg *a = malloc(sizeof *a);
    int rc = a ? 0 : ENOMEM;
    if (a) {
        *a = (op_arg){c, op};
        c->op_running[o->gpu] = op;
        rc = pthread_create(&c->op_thread[o->gpu], NULL, op_thread, a);
    }
    if (rc) {
        free(a);
        o->state = MS_RUN_FAILED;
        o->end = o->start;
        snprintf(o->error, sizeof o->error, "cannot start a thread: %s", strerror(rc));
        run_op_done(c, op);
    }
}

/* Log file names: <logs>/<index>-<name>.out/.err with the name made file-safe. */
static void log_path(run_ctx *c, int task, const char *ext, char *buf, size_t len)
{
    const ms_run_task *t = &c->r->tasks[task];
    char safe[64];
    snprintf(safe, sizeof safe, "%s", c->w->tasks[t->index].name);
    for (char *p = safe; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
    snprintf(buf, len, "%s/%d-%s.%s", c->o->logs_dir, t->index, safe, ext);
}

static void real_start_task(run_ctx *c, int task)
{
    ms_run_task *t = &c->r->tasks[task];
    const run_inst *in = &c->inst[t->instance];
    char err_path[300];
    int out_fd = -1, err_fd = -1;
    ms_error lerr = {0};
    if (c->o->logs_dir && !c->sim_tasks) { /* sim tasks only sleep: nothing to log */
        log_path(c, task, "out", t->log, sizeof t->log);
        log_path(c, task, "err", err_path, sizeof err_path);
        if (ms_open_regular(AT_FDCWD, t->log, t->log, O_WRONLY | O_CREAT | O_TRUNC, 0644, &out_fd,
                            &lerr) == MS_OK)
            ms_open_regular(AT_FDCWD, err_path, err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644,
                            &err_fd, &lerr);
    }
    /* The environment's last five slots: this task's device, index, size and MPS daemon. */
    snprintf(c->env_visible, sizeof c->env_visible, "CUDA_VISIBLE_DEVICES=%s", in->mi.uuid);
    snprintf(c->env_index, sizeof c->env_index, "MIGSCHED_TASK_INDEX=%d", t->index);
    snprintf(c->env_slices, sizeof c->env_slices, "MIGSCHED_SLICES=%d",
             c->s->gpu.profiles[in->profile].slices);
    c->envp[c->nenv - 5] = c->env_visible;
    c->envp[c->nenv - 4] = c->env_index;
    c->envp[c->nenv - 3] = c->env_slices;
    run_mps_task_env(c, t->instance, &c->envp[c->nenv - 2], NULL, 0);
    const ms_task *wt = &c->w->tasks[t->index];
    double sleep_s = c->sim_tasks ? (t->planned_end - t->planned_start) * c->time_unit : -1;
    t->start = run_now(c);
    int gate = -1;
    pid_t pid = lerr.msg[0] ? -1
                            : ms_exec_spawn(&(ms_exec_spawn_opts){.command = wt->command,
                                                                  .cwd = wt->cwd,
                                                                  .envp = c->envp,
                                                                  .out_fd = out_fd,
                                                                  .err_fd = err_fd,
                                                                  .sleep_s = sleep_s},
                                            c->journal ? &gate : NULL);
    if (out_fd >= 0)
        close(out_fd);
    if (err_fd >= 0)
        close(err_fd);
    if (pid < 0) {
        t->end = t->start;
        t->state = MS_RUN_FAILED;
        run_progress(c, "cannot start task %s: %s", c->w->tasks[t->index].name,
                     lerr.msg[0] ? lerr.msg : strerror(errno));
        run_task_done(c, task);
        return;
    }
    c->pids[task] = pid;
    /* Recorded (with the leader's start time, against pid reuse) before the command runs,
     * so that a cleanup after a crash of this process can stop the group. */
    unsigned long long started = 0;
    ms_proc_start_time(pid, &started);
    c->pstarts[task] = started;
    ms_error jerr;
    if (ms_journal_task(c->journal, ms_backend_device(c->gpu[t->gpu].backend), pid, started,
                        t->index, NULL, &jerr))
        run_fatal(c, jerr.msg); /* the stop kills it */
    if (gate >= 0)
        ms_exec_release(gate);
    run_progress(c, "task %s (#%d) started on instance %d (%s)", c->w->tasks[t->index].name,
                 t->index, t->instance, in->mi.uuid);
}

static void real_kill_tasks(run_ctx *c, int sig)
{
    for (int i = 0; i < c->r->ntasks; i++)
        if (c->pids[i] > 0)
            kill(-c->pids[i], sig);
    if (sig == SIGTERM)
        c->kill_at = ms_monotonic_seconds() + KILL_GRACE_S;
}

static void reap(run_ctx *c)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < c->r->ntasks; i++) {
            if (c->pids[i] != pid)
                continue;
            ms_run_task *t = &c->r->tasks[i];
            c->pids[i] = 0;
            ms_error jerr;
            if (ms_journal_task_ended(c->journal, pid, c->pstarts[i], &jerr))
                run_fatal(c, jerr.msg);
            t->end = run_now(c);
            t->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
            t->state = t->exit_status == 0 ? MS_RUN_OK : MS_RUN_FAILED;
            run_task_done(c, i);
        }
    }
}

static void take_ops(run_ctx *c)
{
    for (int g = 0; g < c->ngpus; g++) {
        pthread_mutex_lock(&c->lock);
        bool done = c->op_finished[g];
        c->op_finished[g] = false;
        pthread_mutex_unlock(&c->lock);
        if (!done)
            continue;
        pthread_join(c->op_thread[g], NULL);
        run_op_done(c, c->op_running[g]);
    }
}

static void real_wait(run_ctx *c)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct timespec timeout = {0, 200 * 1000 * 1000}; /* a lost wake-up costs 0.2 s */
    int sig = sigtimedwait(&set, NULL, &timeout);
    if (sig == SIGINT || sig == SIGTERM) {
        if (c->stopping) {
            real_kill_tasks(c, SIGKILL); /* asked twice: no more waiting */
        } else {
            c->stop_signal = sig;
            run_stop(c, sig == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)");
        }
    }
    if (c->stopping && c->kill_at > 0 && ms_monotonic_seconds() > c->kill_at)
        real_kill_tasks(c, SIGKILL);
    reap(c);
    take_ops(c);
}

const run_driver run_real_driver = {real_start_op, real_start_task, real_wait, real_kill_tasks,
                                    real_now};
