/* engine_exec.c: the nvml backend's jobs: each job's command as a process group (and
 * cgroup) in its MIG instance, journalled with the same records as `migsched run`, so
 * `migsched run --cleanup --device ...` reads what the daemon left; stopped after a grace. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine_internal.h"
#include "log.h"
#include "migsched/io.h"
#include "migsched/isolate.h"
#include "migsched/process.h"

/* argv as one sh command, each word single-quoted; `exec` so the group leader is the
 * command itself. */
static char *shell_command(const md_job_spec *s)
{
    size_t len = 6;
    for (int i = 0; i < s->argc; i++)
        len += 3 + 4 * strlen(s->argv[i]);
    char *cmd = malloc(len), *p = cmd;
    if (!cmd)
        return NULL;
    p += sprintf(p, "exec");
    for (int i = 0; i < s->argc; i++) {
        *p++ = ' ';
        *p++ = '\'';
        for (const char *q = s->argv[i]; *q; q++)
            p += *q == '\'' ? sprintf(p, "'\\''") : sprintf(p, "%c", *q);
        *p++ = '\'';
    }
    *p = '\0';
    return cmd;
}

/* Sets KEY=VALUE in env (n entries so far), replacing an entry of the same key. */
static bool env_put(char **env, int *n, const char *key, const char *value)
{
    size_t kl = strlen(key), l = kl + strlen(value) + 2;
    char *kv = malloc(l);
    if (!kv)
        return false;
    snprintf(kv, l, "%s=%s", key, value);
    for (int i = 0; i < *n; i++)
        if (!strncmp(env[i], key, kl) && env[i][kl] == '=') {
            free(env[i]);
            env[i] = kv;
            return true;
        }
    env[(*n)++] = kv;
    return true;
}

static void env_free(char **env)
{
    for (int i = 0; env && env[i]; i++)
        free(env[i]);
    free(env);
}

/* A clean environment, never the daemon's: the owner's HOME, USER, LOGNAME and SHELL, a
 * default PATH, then the job's variables, then CUDA_VISIBLE_DEVICES=<its MIG UUID>. */
static char **job_env(const md_job_spec *s, const ms_exec_identity *id, const char *mig_uuid)
{
    char **env = calloc((size_t)s->nenv + 7, sizeof *env);
    int n = 0;
    bool ok = env && env_put(env, &n, "HOME", id->home) && env_put(env, &n, "USER", id->name) &&
              env_put(env, &n, "LOGNAME", id->name) && env_put(env, &n, "SHELL", id->shell) &&
              env_put(env, &n, "PATH", "/usr/local/bin:/usr/bin:/bin");
    for (int v = 0; ok && v < s->nenv; v++)
        ok = env_put(env, &n, s->env_keys[v], s->env_values[v]);
    if (ok && env_put(env, &n, "CUDA_VISIBLE_DEVICES", mig_uuid))
        return env;
    env_free(env);
    return NULL;
}

/* The owner's folder in log-dir, opened so that nothing its owner controls redirects root:
 * made by root if missing (then given to the owner, mode 0700), never through a link, and
 * kept only if it is a folder of root's or the owner's that nobody else can write. Returns
 * its descriptor, -1 with err filled. */
static int open_owner_dir(const md_engine *e, const md_job *j, const char *path, ms_error *err)
{
    const char *log_dir = e->c->log_dir;
    size_t dl = strlen(log_dir);
    const char *name = path + dl + 1, *slash = strchr(name, '/');
    char folder[sizeof j->owner.name + 16];
    size_t fl = slash ? (size_t)(slash - name) : 0;
    if (!slash || strchr(slash + 1, '/') || fl == 0 || fl >= sizeof folder ||
        (name[0] == '.' && (fl == 1 || (fl == 2 && name[1] == '.'))))
        return ms_error_set(err, MS_EINVAL,
                            "job %lld: its owner's name cannot name a folder "
                            "of log-dir",
                            (long long)j->id);
    memcpy(folder, name, fl);
    folder[fl] = '\0';
    int dfd = open(log_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return ms_error_set(err, MS_EIO, "log-dir %s: %s", log_dir, strerror(errno));
    bool made = mkdirat(dfd, folder, 0700) == 0;
    int made_errno = errno;
    int ufd = made || made_errno == EEXIST
                  ? openat(dfd, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                  : -1;
    int oerr = errno;
    close(dfd);
    struct stat st;
    int rc = MS_OK;
    if (ufd < 0)
        rc = ms_error_set(err, MS_EIO, "log-dir %s/%s: %s", log_dir, folder,
                          !made && made_errno != EEXIST      ? strerror(made_errno)
                          : oerr == ELOOP || oerr == ENOTDIR ? "not a folder (a symbolic link?)"
                                                             : strerror(oerr));
    else if (made && fchown(ufd, j->owner.uid, j->owner.gid) != 0)
        rc = ms_error_set(err, MS_EIO, "log-dir %s/%s: cannot give it to uid %u: %s", log_dir,
                          folder, (unsigned)j->owner.uid, strerror(errno));
    else if (fstat(ufd, &st) != 0 || !S_ISDIR(st.st_mode) ||
             (st.st_uid != 0 && st.st_uid != geteuid() && st.st_uid != j->owner.uid) ||
             (st.st_mode & (S_IWGRP | S_IWOTH)))
        rc = ms_error_set(err, MS_EIO,
                          "log-dir %s/%s: owned by uid %u with mode %04o: it must "
                          "be a folder of root's or uid %u's that nobody else can write",
                          log_dir, folder, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                          (unsigned)j->owner.uid);
    if (rc && ufd >= 0)
        close(ufd);
    return rc ? -1 : ufd;
}

/* Attempt j->attempts' output file ext, new (what was at its name is unlinked, never
 * followed), mode 0600, owned by the job's owner. Errors name the owner's folder, not the
 * file: the same fault of the node reads the same for every job (logged once). */
static int open_log(const md_engine *e, const md_job *j, const char *ext, int *fd, ms_error *err)
{
    char path[MD_PATH_LEN + 128];
    int rc = md_job_log_path(e->c->log_dir, j, j->attempts, ext, path, sizeof path, err);
    int ufd = rc ? -1 : open_owner_dir(e, j, path, err);
    if (ufd < 0)
        return rc ? rc : MS_EIO;
    char *file = strrchr(path, '/') + 1, shown[sizeof path + 16];
    snprintf(shown, sizeof shown, "log-dir %.*s", (int)(file - 1 - path), path);
    if (unlinkat(ufd, file, 0) != 0 && errno != ENOENT)
        rc = ms_error_set(err, MS_EIO, "%s: %s", shown, strerror(errno));
    if (!rc)
        rc = ms_open_regular(ufd, file, shown, O_WRONLY | O_CREAT | O_EXCL, 0600, fd, err);
    if (!rc && fchown(*fd, j->owner.uid, j->owner.gid) != 0) {
        rc = ms_error_set(err, MS_EIO, "%s: cannot give a log file to uid %u: %s", shown,
                          (unsigned)j->owner.uid, strerror(errno));
        close(*fd);
        *fd = -1;
    }
    close(ufd);
    return rc;
}

/* Whom job j runs as: its owner, refused as root unless allow-root-jobs. */
static int job_identity(const md_engine *e, const md_job *j, ms_exec_identity *id, ms_error *err)
{
    if (j->owner.uid == 0 && !e->c->allow_root_jobs)
        return ms_error_set(err, MS_EINVAL,
                            "job %lld would run as root (uid 0): refused "
                            "(allow-root-jobs is false)",
                            (long long)j->id);
    int rc = ms_exec_identity_init(id, j->owner.uid, j->owner.gid, err);
    if (rc)
        ms_error_prefix(err, "job %lld: its owner", (long long)j->id);
    return rc;
}

/* The device nodes r's process may see (*iso NULL with isolation none), with the pipe on
 * which the child says whether it could confine itself (report[0] is ours). *refused: the
 * job's device isolation was refused (its fault), not the pipe (the node's). */
static int job_isolation(md_engine *e, const ei_run *r, ms_devplan **iso, int report[2],
                         bool *refused, ms_error *err)
{
    *iso = NULL;
    if (e->c->isolation == MD_ISOLATION_NONE)
        return MS_OK;
    const ei_gpu *gp = &e->gpu[r->gpu];
    const ms_mig_instance *in = &gp->inst[r->slot].mig;
    ms_devplan_target t = {.dev_dir = e->c->dev_dir,
                           .mig_minors = e->c->mig_minors,
                           .gi_id = in->gi_id,
                           .ci_id = in->ci_id,
                           .close_fds = true};
    int rc = in->nci < 1 ? ms_error_set(err, MS_EBACKEND,
                                        "GPU instance %u has no compute "
                                        "instance",
                                        in->gi_id)
                         : ms_backend_gpu_minor(gp->be, &t.gpu_minor, err);
    if (!rc)
        rc = ms_devplan_make(&t, iso, err);
    *refused = rc != MS_OK;
    if (!rc && pipe2(report, O_CLOEXEC))
        rc = ms_error_set(err, MS_EIO, "cannot make a pipe: %s", strerror(errno));
    if (rc) {
        ms_devplan_free(*iso);
        *iso = NULL;
        ms_error_prefix(err, "device isolation");
        return rc;
    }
    (*iso)->report_fd = report[1];
    return MS_OK;
}

/* r's cgroup, made empty in the daemon's folder (made again if something removed it). */
static int job_cgroup(md_engine *e, ei_run *r, ms_error *err)
{
    if (!e->cgroup[0])
        return MS_OK;
    if ((size_t)snprintf(r->cgroup, sizeof r->cgroup, "%s/job-%lld.%d", e->cgroup,
                         (long long)r->job.id, r->job.attempts) >= sizeof r->cgroup) {
        r->cgroup[0] = '\0';
        return ms_error_set(err, MS_EINVAL, "%s: path too long for a job's cgroup", e->cgroup);
    }
    int rc = ms_cgroup_ensure(e->cgroup, err);
    if (!rc)
        rc = ms_cgroup_make(r->cgroup, err);
    if (rc)
        r->cgroup[0] = '\0';
    return rc;
}

/* An emptied cgroup is removed (one that cannot be is said: it stays, empty). */
static void remove_cgroup(const char *path)
{
    ms_error err = {0};
    char q[MS_ERR_LEN + 64];
    if (ms_cgroup_remove(path, &err))
        md_log(MD_LOG_WARN, "cgroup.remove_failed", "error=%s", md_log_quote(err.msg, q, sizeof q));
}

/* r's emptied cgroup, removed and forgotten. */
static void drop_cgroup(ei_run *r)
{
    remove_cgroup(r->cgroup);
    r->cgroup[0] = '\0';
}

int ei_spawn(md_engine *e, ei_run *r, const char *mig_uuid, ms_error *err)
{
    const md_job *j = &r->job;
    int out = -1, errfd = -1, gate = -1, report[2] = {-1, -1};
    int fault = 0; /* the job's own fault: the exit status it fails with */
    ms_devplan *iso = NULL;
    ms_exec_identity id = {0};
    char *cmd = NULL, **envp = NULL;
    int rc = open_log(e, j, "out", &out, err);
    if (!rc)
        rc = open_log(e, j, "err", &errfd, err);
    if (!rc && (rc = job_identity(e, j, &id, err)))
        fault = MS_EXEC_EXIT_IDENTITY;
    if (!rc) {
        cmd = shell_command(&j->spec);
        envp = job_env(&j->spec, &id, mig_uuid);
        if (!cmd || !envp)
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    bool refused = false;
    if (!rc && (rc = job_isolation(e, r, &iso, report, &refused, err)) && refused)
        fault = MS_EXEC_EXIT_ISOLATION;
    /* A daemon that is not root can only run its own user's jobs, as itself. */
    bool same = geteuid() != 0 && id.uid == geteuid() && id.gid == getegid();
    ms_exec_spawn_opts o = {.command = cmd,
                            .cwd = j->spec.cwd ? j->spec.cwd : id.home,
                            .envp = envp,
                            .out_fd = out,
                            .err_fd = errfd,
                            .sleep_s = -1,
                            .iso = iso,
                            .as = same ? NULL : &id};
    if (!rc)
        rc = job_cgroup(e, r, err);
    pid_t pid = rc ? -1 : ms_exec_spawn(&o, &gate);
    if (!rc && pid < 0)
        rc = ms_error_set(err, MS_EIO, "cannot start a process: %s", strerror(errno));
    if (report[1] >= 0)
        close(report[1]);
    if (pid > 0) {
        /* In its cgroup and recorded before the command runs (it waits at the gate): after
         * a crash everything it started is found and stopped. */
        unsigned long long started = 0;
        ms_proc_start_time(pid, &started);
        rc = r->cgroup[0] ? ms_cgroup_enter(r->cgroup, pid, err) : MS_OK;
        if (!rc)
            rc = ms_journal_task(e->journal, e->gpu[r->gpu].device, pid, started, (int)j->id,
                                 r->cgroup, err);
        if (rc)
            kill(-pid, SIGKILL); /* unrecorded: it must not run */
        ms_exec_release(gate);
        if (rc)
            waitpid(pid, NULL, 0); /* killed at its gate: it ran nothing */
        else
            r->pid = r->pgid = pid, r->pstart = started;
        /* Not confined: it ran nothing and has exited; it never started. */
        if (!rc && iso && (rc = ms_devplan_wait(report[0], err))) {
            waitpid(pid, NULL, 0);
            ms_journal_task_ended(e->journal, pid, started, NULL);
            r->pid = 0;
            fault = MS_EXEC_EXIT_ISOLATION;
        }
    }
    if (rc && r->cgroup[0]) /* nothing runs in it */
        drop_cgroup(r);
    /* What ran nothing through no fault of the job's own is the node's: it is tried again. */
    r->exit_status = fault;
    r->node_fault = rc && !fault;
    if (rc && errfd >= 0) /* the owner reads why in the job's stderr file */
        dprintf(errfd, "migschedd: %s\n", err->msg);
    if (report[0] >= 0)
        close(report[0]);
    ms_devplan_free(iso);
    if (out >= 0)
        close(out);
    if (errfd >= 0)
        close(errfd);
    ms_exec_identity_fini(&id);
    env_free(envp);
    free(cmd);
    return rc;
}

/* Signals r's processes: its cgroup's (SIGKILL: cgroup.kill), else its process group. */
static void signal_run(const ei_run *r, int sig)
{
    if (r->cgroup[0])
        ms_cgroup_signal(r->cgroup, sig);
    else if (r->pid > 0)
        kill(-r->pid, sig);
}

void ei_watch(md_engine *e, ei_run *r, bool must_stop, double now)
{
    if (r->pid <= 0)
        return;
    int status;
    if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
        r->exited = true;
        r->exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        r->pid = 0;
        if (!r->cgroup[0])
            ms_journal_task_ended(e->journal, r->pgid, r->pstart, NULL);
        return;
    }
    if (must_stop && r->kill_at == 0) {
        signal_run(r, SIGTERM);
        r->kill_at = now + e->stop_grace;
    } else if (r->kill_at > 0 && now >= r->kill_at) {
        signal_run(r, SIGKILL);
        r->kill_at = INFINITY;
    }
}

bool ei_leftovers(md_engine *e, ei_run *r, ei_inst *in, double now)
{
    if (!r->cgroup[0])
        return false;
    if (!ms_cgroup_populated(r->cgroup)) {
        drop_cgroup(r);
        ms_journal_task_ended(e->journal, r->pgid, r->pstart, NULL);
        return false;
    }
    char uid[16], user[160];
    md_log(MD_LOG_INFO, "job.leftovers",
           "id=%lld user=%s reason=\"its process exited, leaving "
           "processes in its cgroup: stopped before its instance is used again\"",
           (long long)r->job.id, md_log_quote(md_job_user(&r->job.owner, uid), user, sizeof user));
    ms_cgroup_signal(r->cgroup, SIGTERM);
    in->state = EI_DRAINING;
    in->job = 0;
    snprintf(in->drain, sizeof in->drain, "%s", r->cgroup);
    in->drain_pgid = r->pgid;
    in->drain_pstart = r->pstart;
    /* A cancel's grace runs on; its SIGKILL already sent: again at once. */
    in->drain_kill_at = r->kill_at == 0     ? now + e->stop_grace
                        : isinf(r->kill_at) ? now
                                            : r->kill_at;
    r->cgroup[0] = '\0';
    return true;
}

bool ei_drained(md_engine *e, ei_inst *in, double now)
{
    if (ms_cgroup_populated(in->drain)) {
        if (in->drain_kill_at > 0 && now >= in->drain_kill_at) {
            ms_cgroup_signal(in->drain, SIGKILL);
            in->drain_kill_at = INFINITY;
        }
        return false;
    }
    remove_cgroup(in->drain);
    ms_journal_task_ended(e->journal, in->drain_pgid, in->drain_pstart, NULL);
    in->drain[0] = '\0';
    return true;
}
