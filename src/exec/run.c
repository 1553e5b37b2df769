/* run.c: ms_run: checks the plan against the workload and the devices (what they hold
 * before the plan, MIG mode, foreign instances in the way), lays out the ops and tasks,
 * picks the driver, runs the engine. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "spawn.h"

static double or_inf(double t, double inf) { return isnan(t) ? inf : t; }

static int cmp_task(const void *a, const void *b)
{
    const ms_run_task *x = a, *y = b;
    if (x->planned_start != y->planned_start)
        return x->planned_start < y->planned_start ? -1 : 1;
    return x->index - y->index;
}

/* GPU order, then planned start; at equal times destructions first (they free slots). */
static int cmp_op(const void *a, const void *b)
{
    const ms_run_op *x = a, *y = b;
    if (x->gpu != y->gpu)
        return x->gpu - y->gpu;
    if (x->planned_start != y->planned_start)
        return x->planned_start < y->planned_start ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind == MS_OP_DESTROY ? -1 : 1;
    return x->instance - y->instance;
}

static int check_inputs(const ms_schedule *s, const ms_workload *w, const ms_run_options *o,
                        ms_error *err)
{
    if (s->gpus < 1 || s->gpus > MS_RUN_MAX_GPUS)
        return ms_error_set(err, MS_EINVAL, "the plan uses %d GPUs (1..%d supported)", s->gpus,
                            MS_RUN_MAX_GPUS);
    if (o->ndevices < s->gpus)
        return ms_error_set(err, MS_EINVAL, "the plan uses %d GPUs but %d device%s given", s->gpus,
                            o->ndevices, o->ndevices == 1 ? " was" : "s were");
    for (int g = 0; g < o->ndevices; g++)
        for (int h = 0; h < g; h++)
            if (o->devices[g] == o->devices[h])
                return ms_error_set(err, MS_EINVAL,
                                    "device %d is given twice: each plan GPU needs its own device",
                                    o->devices[g]);
    for (int k = 0; k < s->ninst; k++)
        if (s->inst[k].gpu < 0 || s->inst[k].gpu >= s->gpus ||
            !ms_gpu_placement_allowed(&s->gpu,
                                      (ms_placement){s->inst[k].profile, s->inst[k].start_slot}))
            return ms_error_set(err, MS_EINVAL, "plan instance %d: bad GPU or placement", k);
    for (int i = 0; i < s->ntasks; i++) {
        const ms_sched_task *t = &s->task[i];
        if (t->index < 0 || t->index >= w->n)
            return ms_error_set(err, MS_EINVAL,
                                "plan task %d has index %d; the workload has %d tasks", i, t->index,
                                w->n);
        if (t->instance < 0 || t->instance >= s->ninst)
            return ms_error_set(err, MS_EINVAL,
                                "plan task %d names instance %d, which does not exist", i,
                                t->instance);
        const ms_task *wt = &w->tasks[t->index];
        bool needs_command = !o->dry_run && strcmp(o->backend, "sim");
        if (needs_command && !wt->command)
            return ms_error_set(
                err, MS_EINVAL,
                "task %s (#%d) has no command: give the workload a 'command' column", wt->name,
                t->index);
        /* Found out now, not when the task's turn comes with instances already made. */
        struct stat st;
        if (needs_command && wt->cwd && stat(wt->cwd, &st) != 0)
            return ms_error_set(err, MS_EINVAL, "task %s (#%d): its cwd %s: %s", wt->name, t->index,
                                wt->cwd, strerror(errno));
        if (needs_command && wt->cwd && !S_ISDIR(st.st_mode))
            return ms_error_set(err, MS_EINVAL, "task %s (#%d): its cwd %s is not a folder",
                                wt->name, t->index, wt->cwd);
    }
    return MS_OK;
}

/* Lays out the run; check_inputs has already vetted every instance and task index. */
static int build(run_ctx *c, ms_error *err)
{
    const ms_schedule *s = c->s;
    ms_run_report *r = c->r;
    r->tasks = calloc((size_t)s->ntasks + 1, sizeof *r->tasks);
    r->ops = calloc(2 * (size_t)s->ninst + 1, sizeof *r->ops);
    c->inst = calloc((size_t)s->ninst + 1, sizeof *c->inst);
    if (!r->tasks || !r->ops || !c->inst)
        return ms_error_set(err, MS_ENOMEM, "out of memory laying out the run");
    for (int i = 0; i < s->ntasks; i++) {
        const ms_sched_task *t = &s->task[i];
        r->tasks[r->ntasks++] = (ms_run_task){.index = t->index,
                                              .instance = t->instance,
                                              .gpu = s->inst[t->instance].gpu,
                                              .planned_start = t->start,
                                              .planned_end = t->end,
                                              .start = NAN,
                                              .end = NAN,
                                              .exit_status = -1000};
    }
    qsort(r->tasks, (size_t)r->ntasks, sizeof *r->tasks, cmp_task);
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *si = &s->inst[k];
        bool initial = isnan(si->create_start);
        c->inst[k] = (run_inst){.gpu = si->gpu,
                                .profile = si->profile,
                                .start_slot = si->start_slot,
                                .running = -1,
                                .initial = initial};
        /* An initial instance is there already; one alive at the plan's end is destroyed
         * last unless kept, or initial (not this run's). */
        if (!initial)
            r->ops[r->nops++] = (ms_run_op){.kind = MS_OP_CREATE,
                                            .instance = k,
                                            .gpu = si->gpu,
                                            .planned_start = si->create_start,
                                            .planned_end = si->create_end,
                                            .start = NAN,
                                            .end = NAN};
        if (!isnan(si->destroy_start) || !(c->o->keep_final || initial))
            r->ops[r->nops++] = (ms_run_op){.kind = MS_OP_DESTROY,
                                            .instance = k,
                                            .gpu = si->gpu,
                                            .planned_start = or_inf(si->destroy_start, INFINITY),
                                            .planned_end = or_inf(si->destroy_end, INFINITY),
                                            .start = NAN,
                                            .end = NAN};
        c->inst[k].tasks = calloc((size_t)s->ntasks + 1, sizeof(int));
        if (!c->inst[k].tasks)
            return ms_error_set(err, MS_ENOMEM, "out of memory laying out the run");
    }
    for (int i = 0; i < r->ntasks; i++) {
        run_inst *in = &c->inst[r->tasks[i].instance];
        in->tasks[in->ntasks++] = i;
    }
    qsort(r->ops, (size_t)r->nops, sizeof *r->ops, cmp_op);
    c->ngpus = s->gpus;
    for (int i = 0; i < r->nops; i++) {
        run_gpu *g = &c->gpu[r->ops[i].gpu];
        if (g->count++ == 0)
            g->first = i;
    }
    return MS_OK;
}

/* Refuses when an instance that is not this run's, nor one the plan starts from, sits on
 * slots the plan needs. */
static int check_foreign(run_ctx *c, int g, ms_error *err)
{
    ms_backend *b = c->gpu[g].backend;
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    int rc = ms_backend_list(b, list, &n, err);
    if (rc)
        return rc;
    uint32_t needed = 0;
    for (int k = 0; k < c->s->ninst; k++)
        if (c->s->inst[k].gpu == g)
            needed |= ms_gpu_slot_mask(
                &c->s->gpu, (ms_placement){c->s->inst[k].profile, c->s->inst[k].start_slot});
    char in_way[MS_ERR_LEN / 2] = "";
    for (int i = 0; i < n; i++) {
        rc = ms_journal_foreign(c->journal, ms_backend_device(b), &list[i], err);
        if (rc)
            return rc;
        if (exec_initial_is(c, g, &list[i]))
            continue;
        uint32_t mask = ((1u << list[i].size_slots) - 1u) << list[i].start_slot;
        if (!(mask & needed))
            continue;
        size_t len = strlen(in_way);
        snprintf(in_way + len, sizeof in_way - len, "%sGPU instance %u (%s, slots %d-%d)",
                 len ? ", " : "", list[i].gi_id,
                 list[i].profile >= 0 ? c->s->gpu.profiles[list[i].profile].name
                                      : "unknown profile",
                 list[i].start_slot, list[i].start_slot + list[i].size_slots - 1);
    }
    if (in_way[0])
        return ms_error_set(err, MS_EINVAL,
                            "device %d: the plan needs slots held by instances migsched did not "
                            "create: %s; remove them (or run --cleanup if a crashed run left them)",
                            ms_backend_device(b), in_way);
    return MS_OK;
}

/* Opens every device and takes its lock: nothing changes on a device another process owns.
 * The sim backend's GPUs hold what sim_holds says. */
static int own_devices(run_ctx *c, const ms_partition *sim_holds, ms_error *err)
{
    const ms_run_options *o = c->o;
    ms_backend_options bo = o->backend_opt;
    if (c->sim_tasks && o->time_scale > 0)
        bo.sim_delay_scale = o->time_scale; /* scaled time: reconfigurations too */
    for (int g = 0; g < c->ngpus; g++) {
        if (c->sim_tasks)
            bo.sim_holds = &sim_holds[g];
        int rc = ms_backend_open(o->backend, o->devices[g], &c->s->gpu, &bo, &c->gpu[g].backend,
                                 err);
        const char *uuid = rc ? "" : ms_backend_gpu_uuid(c->gpu[g].backend);
        if (rc == MS_OK && uuid[0])
            rc = ms_device_lock_open(o->lock_dir, uuid, &c->locks[g], err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

/* The journal first, then what the devices hold against the plan's initial layout, then
 * MIG mode and the foreign check: every change is recorded, and none is made on devices
 * that do not hold what the plan starts from. */
static int ready_devices(run_ctx *c, ms_error *err)
{
    const ms_run_options *o = c->o;
    int rc = MS_OK;
    if (o->journal && !c->sim_tasks) {
        rc = ms_journal_open(o->journal, o->backend, ms_backend_geometry_name(c->gpu[0].backend),
                             &c->journal, err);
        for (int g = 0; rc == MS_OK && g < c->ngpus; g++)
            rc = ms_journal_device(c->journal, o->devices[g],
                                   ms_backend_gpu_uuid(c->gpu[g].backend), err);
    }
    if (rc == MS_OK)
        rc = exec_initial_find(c, err);
    for (int g = 0; rc == MS_OK && g < c->ngpus; g++) {
        bool on = false;
        rc = ms_backend_mig_mode(c->gpu[g].backend, &on, err);
        if (rc == MS_OK && !on && !o->enable_mig)
            rc = ms_error_set(err, MS_EINVAL,
                              "device %d: MIG mode is off; rerun with --enable-mig (needs root; "
                              "stop every GPU client first, the GPU may be reset)",
                              o->devices[g]);
        if (rc == MS_OK && !on)
            rc = ms_backend_enable_mig(c->gpu[g].backend, err);
        if (rc == MS_OK)
            rc = check_foreign(c, g, err);
    }
    return rc;
}

/* The log folder exists and takes files before any device is touched. */
static int ready_logs(const char *dir, ms_error *err)
{
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return ms_error_set(err, MS_EIO, "%s: cannot create the log folder: %s", dir,
                            strerror(errno));
    if (access(dir, W_OK | X_OK) != 0)
        return ms_error_set(err, MS_EIO, "%s: cannot write in the log folder: %s", dir,
                            strerror(errno));
    return MS_OK;
}

static int build_env(run_ctx *c, ms_error *err)
{
    c->envp = exec_env(5, &c->nenv); /* the last five are filled per task */
    return c->envp ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
}

static int prepare(run_ctx *c, ms_error *err)
{
    const ms_run_options *o = c->o;
    bool is_virtual = o->dry_run || (!strcmp(o->backend, "sim") && !(o->time_scale > 0));
    c->driver = is_virtual ? &run_virtual_driver : &run_real_driver;
    c->sim_tasks = !strcmp(o->backend, "sim");
    c->time_unit = c->sim_tasks && o->time_scale > 0 ? o->time_scale : 1.0;
    c->pids = calloc((size_t)c->r->ntasks + 1, sizeof *c->pids);
    c->pstarts = calloc((size_t)c->r->ntasks + 1, sizeof *c->pstarts);
    c->op_done_at = malloc(((size_t)c->r->nops + 1) * sizeof(double));
    c->task_done_at = malloc(((size_t)c->r->ntasks + 1) * sizeof(double));
    if (!c->pids || !c->pstarts || !c->op_done_at || !c->task_done_at)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; i < c->r->nops; i++)
        c->op_done_at[i] = NAN;
    for (int i = 0; i < c->r->ntasks; i++)
        c->task_done_at[i] = NAN;
    ms_partition sim_holds[MS_RUN_MAX_GPUS];
    int rc = exec_initial_layout(c, sim_holds, err);
    if (rc || o->dry_run)
        return rc; /* a dry run's listing is the output: no progress lines */
    rc = o->logs_dir && !c->sim_tasks ? ready_logs(o->logs_dir, err) : MS_OK;
    if (rc == MS_OK)
        rc = own_devices(c, sim_holds, err);
    if (rc == MS_OK)
        rc = ready_devices(c, err);
    if (rc == MS_OK && c->driver == &run_real_driver)
        rc = build_env(c, err);
    return rc;
}

static void release(run_ctx *c)
{
    for (int g = 0; g < MS_RUN_MAX_GPUS; g++) {
        ms_backend_close(c->gpu[g].backend);
        ms_device_lock_close(c->locks[g]);
    }
    for (int k = 0; c->inst && k < c->s->ninst; k++)
        free(c->inst[k].tasks);
    free(c->inst);
    free(c->pids);
    free(c->pstarts);
    free(c->envp);
    free(c->op_done_at);
    free(c->task_done_at);
    pthread_mutex_destroy(&c->lock);
}

int ms_run(const ms_schedule *s, const ms_workload *w, const ms_run_options *o, ms_run_report **out,
           ms_error *err)
{
    *out = NULL;
    int rc = check_inputs(s, w, o, err);
    if (rc)
        return rc;
    ms_run_report *r = calloc(1, sizeof *r);
    if (!r)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    snprintf(r->backend, sizeof r->backend, "%s", o->dry_run ? "dry-run" : o->backend);
    snprintf(r->gpu_model, sizeof r->gpu_model, "%s", s->gpu.name);
    r->ndevices = s->gpus;
    memcpy(r->devices, o->devices, sizeof r->devices);
    run_ctx c = {.s = s, .w = w, .o = o, .r = r, .main_thread = pthread_self()};
    pthread_mutex_init(&c.lock, NULL);
    /* Signals are taken synchronously by the main loop; threads inherit the mask. SIGPIPE
     * too: progress piped into `head` must not kill the run before it cleans up. */
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    rc = build(&c, err);
    if (rc == MS_OK)
        rc = prepare(&c, err);
    if (rc == MS_OK) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        c.t0 = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
        run_engine(&c);
        r->signal = c.stop_signal;
    }
    ms_journal_close(c.journal, rc == MS_OK && r->nleft == 0, NULL);
    release(&c);
    /* Drop our pending wake-ups and child notices before restoring the mask; a pending
     * SIGINT/SIGTERM that stopped the run is consumed too (the report says so). */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&set, NULL, &zero) > 0)
        ;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) {
        ms_run_report_free(r);
        return rc;
    }
    *out = r;
    return MS_OK;
}

void ms_run_report_free(ms_run_report *r)
{
    if (!r)
        return;
    free(r->tasks);
    free(r->ops);
    free(r);
}
