/* profile.c: the profiler: every task on an instance of every size, `reps` times, timing
 * the tasks and the instance creations/destructions (as the FAR authors' tool does). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "migsched/clock.h"
#include "migsched/exec.h"
#include "migsched/io.h"
#include "spawn.h"

/* ---- Profiling -------------------------------------------------------------------- */

typedef struct prof {
    const ms_profile_options *o;
    ms_backend *b;
    ms_journal *j;
    ms_device_lock *lock;
    char **envp;
    int nenv;
    char visible[160], slices[32];
    bool have_instance;
    ms_mig_instance mi; /* the instance up now, as created */
} prof;

/* Waits for the task; a SIGINT/SIGTERM kills it and returns MS_EINTR. */
static int wait_task(pid_t pid, int *status, ms_error *err)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    for (;;) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return MS_OK;
        struct timespec tick = {0, 200 * 1000 * 1000};
        int sig = sigtimedwait(&set, NULL, &tick);
        if (sig == SIGINT || sig == SIGTERM) {
            kill(-pid, SIGKILL);
            waitpid(pid, status, 0);
            return ms_error_set(err, MS_EINTR, "interrupted by %s",
                                sig == SIGINT ? "SIGINT" : "SIGTERM");
        }
    }
}

/* One run of a task: its wall time, or INFINITY if it failed. */
static int run_once(prof *p, const ms_task *t, int size, int rep, double *seconds, ms_error *err)
{
    int out_fd = -1;
    if (p->o->logs_dir) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s-size%d-rep%d.log", p->o->logs_dir, t->name, size, rep);
        int rc = ms_open_regular(AT_FDCWD, path, path, O_WRONLY | O_CREAT | O_TRUNC, 0644, &out_fd,
                                 err);
        if (rc)
            return rc;
    } else {
        out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    }
    snprintf(p->slices, sizeof p->slices, "MIGSCHED_SLICES=%d", size);
    p->envp[p->nenv - 2] = p->visible;
    p->envp[p->nenv - 1] = p->slices;
    double t0 = ms_monotonic_seconds();
    pid_t pid = ms_exec_spawn(&(ms_exec_spawn_opts){.command = t->command,
                                                    .cwd = t->cwd,
                                                    .envp = p->envp,
                                                    .out_fd = out_fd,
                                                    .err_fd = out_fd,
                                                    .sleep_s = -1},
                              NULL);
    if (out_fd >= 0)
        close(out_fd);
    if (pid < 0)
        return ms_error_set(err, MS_EIO, "cannot start task %s: %s", t->name, strerror(errno));
    int status = 0;
    int rc = wait_task(pid, &status, err);
    double t1 = ms_monotonic_seconds();
    bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    *seconds = ok ? t1 - t0 : INFINITY;
    if (rc == MS_OK && !ok && p->o->progress)
        fprintf(p->o->progress, "  %s failed on size %d (status 0x%x): recorded as cannot run\n",
                t->name, size, (unsigned)status);
    return rc;
}

/* A free placement of the size's base profile (other instances may hold some slots). */
static int pick_placement(prof *p, int size, ms_placement *out, ms_error *err)
{
    const ms_gpu_model *m = ms_backend_model(p->b);
    int pr = m->base_profile[size];
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    int rc = ms_backend_list(p->b, list, &n, err);
    if (rc)
        return rc;
    for (int i = 0; i < m->profiles[pr].nstarts; i++) {
        ms_placement cand = {pr, m->profiles[pr].starts[i]};
        uint32_t mask = ms_gpu_slot_mask(m, cand), used = 0;
        for (int k = 0; k < n; k++)
            used |= ((1u << list[k].size_slots) - 1u) << list[k].start_slot;
        if (!(mask & used)) {
            *out = cand;
            return MS_OK;
        }
    }
    return ms_error_set(err, MS_EINVAL,
                        "device %d: no free placement for %s (other instances hold its slots)",
                        ms_backend_device(p->b), m->profiles[pr].name);
}

static int profile_size(prof *p, const ms_workload *tasks, int size, ms_workload *out,
                        double *create_s, double *destroy_s, ms_error *err)
{
    const ms_profile_options *o = p->o;
    ms_placement at;
    int rc = pick_placement(p, size, &at, err);
    const ms_gpu_model *m = ms_backend_model(p->b);
    double created = 0, destroyed = 0;
    for (int rep = 0; rc == MS_OK && rep < o->reps; rep++) {
        ms_mig_instance mi;
        if ((rc = ms_journal_create_begin(p->j, o->device, at.start,
                                          m->profiles[at.profile].size_slots, err)))
            break;
        double t0 = ms_monotonic_seconds();
        if ((rc = ms_backend_create_journaled(p->b, p->j, at, &mi, err)))
            break;
        created += ms_monotonic_seconds() - t0;
        p->have_instance = true;
        p->mi = mi;
        if ((rc = ms_journal_created(p->j, o->device, &mi, err)))
            break; /* the caller destroys it */
        snprintf(p->visible, sizeof p->visible, "CUDA_VISIBLE_DEVICES=%s", mi.uuid);
        for (int i = 0; rc == MS_OK && i < tasks->n; i++) {
            double s = INFINITY;
            rc = run_once(p, &tasks->tasks[i], size, rep + 1, &s, err);
            out->tasks[i].time[size] += s / o->reps; /* INFINITY stays INFINITY */
            if (o->progress && rc == MS_OK)
                fprintf(o->progress, "size %d rep %d: %-20s %.3f s\n", size, rep + 1,
                        tasks->tasks[i].name, s);
        }
        ms_error derr;
        t0 = ms_monotonic_seconds();
        int drc = ms_backend_destroy_owned(p->b, p->j, &p->mi, rc ? &derr : err);
        if (drc == MS_OK) {
            destroyed += ms_monotonic_seconds() - t0;
            p->have_instance = false;
            drc = ms_journal_destroyed(p->j, o->device, mi.gi_id, rc ? &derr : err);
        }
        p->have_instance &= drc != MS_ECHANGED; /* not ours any more */
        if (rc == MS_OK)
            rc = drc;
    }
    *create_s = created / o->reps;
    *destroy_s = destroyed / o->reps;
    return rc;
}

static int profile_all(prof *p, const ms_workload *tasks, ms_workload *out, ms_gpu_model *measured,
                       ms_error *err)
{
    const ms_profile_options *o = p->o;
    const ms_gpu_model *m = ms_backend_model(p->b);
    *measured = *m;
    /* Its own name: a plan made with measured times must not be read with built-in ones. */
    snprintf(measured->name, sizeof measured->name, "%.20s-profiled", m->name);
    int sizes[MS_MAX_SLICES], nsizes = o->nsizes;
    memcpy(sizes, o->sizes, sizeof sizes);
    if (nsizes == 0) {
        nsizes = m->nsizes;
        memcpy(sizes, m->sizes, sizeof sizes);
    }
    for (int i = 0; i < tasks->n; i++) {
        double zero[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            zero[s] = INFINITY;
        for (int k = 0; k < nsizes; k++)
            zero[sizes[k]] = 0;
        int rc = ms_workload_add(out, tasks->tasks[i].name, zero, tasks->tasks[i].command,
                                 tasks->tasks[i].cwd, err);
        if (rc)
            return rc;
    }
    for (int k = 0; k < nsizes; k++) {
        if (ms_gpu_size_index(m, sizes[k]) < 0)
            return ms_error_set(err, MS_EINVAL, "%s has no instance of size %d", m->name, sizes[k]);
        int rc = profile_size(p, tasks, sizes[k], out, &measured->create_s[sizes[k]],
                              &measured->destroy_s[sizes[k]], err);
        if (rc)
            return rc;
    }
    /* A task that ran on no size is broken (a wrong command or folder), not big: a row of
     * inf would be refused by every reader. */
    for (int i = 0; i < tasks->n; i++) {
        bool ran = false;
        for (int k = 0; k < nsizes; k++)
            ran |= isfinite(out->tasks[i].time[sizes[k]]);
        if (!ran)
            return ms_error_set(err, MS_EINVAL,
                                "task %s failed on every size%s%s: fix it (nothing written)",
                                tasks->tasks[i].name, o->logs_dir ? "; its output is in " : "",
                                o->logs_dir ? o->logs_dir : "");
    }
    return MS_OK;
}

int ms_profile_run(const ms_workload *tasks, const ms_profile_options *o, ms_workload **out,
                   ms_gpu_model *measured, ms_error *err)
{
    *out = NULL;
    if (o->reps < 1)
        return ms_error_set(err, MS_EINVAL, "reps must be >= 1");
    prof p = {.o = o};
    int rc = ms_backend_open(o->backend, o->device, o->gpu, &o->backend_opt, &p.b, err);
    if (rc == MS_OK && ms_backend_gpu_uuid(p.b)[0])
        rc = ms_device_lock_open(o->lock_dir, ms_backend_gpu_uuid(p.b), &p.lock, err);
    if (rc) {
        ms_backend_close(p.b);
        return rc;
    }
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGPIPE); /* a closed progress pipe must not skip the cleanup */
    pthread_sigmask(SIG_BLOCK, &set, &old);
    bool on = false;
    ms_workload *w = ms_workload_new();
    p.envp = exec_env(2, &p.nenv); /* CUDA_VISIBLE_DEVICES, MIGSCHED_SLICES */
    if (!w || !p.envp)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc == MS_OK && (rc = ms_backend_mig_mode(p.b, &on, err)) == MS_OK && !on)
        rc = ms_error_set(err, MS_EINVAL, "device %d: MIG mode is off", o->device);
    if (rc == MS_OK && o->logs_dir && mkdir(o->logs_dir, 0755) && errno != EEXIST)
        rc = ms_error_set(err, MS_EIO, "%s: cannot create: %s", o->logs_dir, strerror(errno));
    if (rc == MS_OK && o->journal && strcmp(o->backend, "sim")) {
        rc = ms_journal_open(o->journal, o->backend, ms_backend_geometry_name(p.b), &p.j, err);
        if (rc == MS_OK)
            rc = ms_journal_device(p.j, o->device, ms_backend_gpu_uuid(p.b), err);
    }
    if (rc == MS_OK)
        rc = profile_all(&p, tasks, w, measured, err);
    if (p.have_instance && ms_backend_destroy_owned(p.b, p.j, &p.mi, NULL) == MS_OK)
        ms_journal_destroyed(p.j, o->device, p.mi.gi_id, NULL); /* interrupted or failed */
    ms_journal_close(p.j, rc == MS_OK, NULL);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&set, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    ms_backend_close(p.b);
    ms_device_lock_close(p.lock);
    free(p.envp);
    if (rc) {
        ms_workload_free(w);
        return rc;
    }
    *out = w;
    return MS_OK;
}

int ms_profile_write_model_json(const ms_gpu_model *m, FILE *f, ms_error *err)
{
    json_t *profiles = json_array(), *reconfig = json_object();
    for (int i = 0; i < m->nprofiles; i++) {
        const ms_profile *pr = &m->profiles[i];
        json_t *starts = json_array();
        for (int k = 0; k < pr->nstarts; k++)
            json_array_append_new(starts, json_integer(pr->starts[k]));
        json_array_append_new(profiles, json_pack("{s:s, s:i, s:f, s:i, s:o, s:i}", "name",
                                                  pr->name, "slices", pr->slices, "memory_gb",
                                                  pr->memory_gb, "size_slots", pr->size_slots,
                                                  "starts", starts, "nvml_index", pr->nvml_index));
    }
    for (int k = 0; k < m->nsizes; k++) {
        char key[8];
        snprintf(key, sizeof key, "%d", m->sizes[k]);
        json_object_set_new(reconfig, key,
                            json_pack("{s:f, s:f}", "create", m->create_s[m->sizes[k]], "destroy",
                                      m->destroy_s[m->sizes[k]]));
    }
    json_t *root = json_pack("{s:s, s:i, s:i, s:o, s:o}", "name", m->name, "slots", m->slots,
                             "slices", m->slices, "profiles", profiles, "reconfig", reconfig);
    int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) || fputc('\n', f) == EOF
                 ? ms_error_set(err, MS_EIO, "cannot write the GPU model")
                 : MS_OK;
    json_decref(root);
    return rc;
}
