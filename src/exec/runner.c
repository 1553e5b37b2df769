/* runner.c: the plan executor's dependency engine. Reconfigurations run one at a time in
 * plan order on each GPU; an instance's tasks run one after another once it exists (an
 * initial one from the start); a destruction waits for its instance's last task. Tasks on
 * overlapping slots are thereby ordered too: an instance is created only after the earlier
 * instances on its slots were destroyed. Real durations differ from the plan, so nothing
 * here looks at the clock. */
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *profile_name(const run_ctx *c, int inst)
{
    return c->s->gpu.profiles[c->inst[inst].profile].name;
}

void run_stop(run_ctx *c, const char *why)
{
    if (c->stopping)
        return;
    c->stopping = true;
    snprintf(c->r->stopped, sizeof c->r->stopped, "%s", why);
    run_progress(c, "stopping: %s; %s running tasks, then destroying what this run created", why,
                 c->o->wait_on_stop ? "waiting for" : "killing");
    if (!c->o->wait_on_stop)
        c->driver->kill_tasks(c, SIGTERM);
}

/* Tasks of an instance that will never exist are skipped. */
static void skip_tasks(run_ctx *c, run_inst *in)
{
    for (; in->next_task < in->ntasks; in->next_task++)
        c->r->tasks[in->tasks[in->next_task]].state = MS_RUN_SKIPPED;
}

void run_fatal(run_ctx *c, const char *why)
{
    pthread_mutex_lock(&c->lock);
    if (!c->fatal[0])
        snprintf(c->fatal, sizeof c->fatal, "%s", why);
    pthread_mutex_unlock(&c->lock);
}

/* An initial instance is destroyed only while no compute process runs on it: what runs
 * there is someone else's, and migsched stops only what it started. */
static int check_idle(ms_backend *b, const run_ctx *c, const run_inst *in, ms_error *err)
{
    unsigned pids[MS_MAX_PIDS];
    int n = 0;
    int rc = ms_backend_processes(b, in->mi.gi_id, pids, MS_MAX_PIDS, &n, err);
    if (rc || n == 0)
        return rc;
    char list[160] = "";
    for (int i = 0; i < n; i++) {
        size_t used = strlen(list);
        if (used + 12 < sizeof list)
            snprintf(list + used, sizeof list - used, "%s%u", i ? ", " : "", pids[i]);
    }
    return ms_error_set(err, MS_EBUSY,
                        "device %d: GPU instance %u (%s at slot %d, there before the plan) runs "
                        "compute process%s %s that migsched did not start: not destroyed",
                        ms_backend_device(b), in->mi.gi_id, c->s->gpu.profiles[in->profile].name,
                        in->start_slot, n == 1 ? "" : "es", list);
}

void run_do_op(run_ctx *c, int op)
{
    ms_run_op *o = &c->r->ops[op];
    run_inst *in = &c->inst[o->instance];
    ms_backend *b = c->gpu[o->gpu].backend;
    int dev = ms_backend_device(b);
    ms_error err = {0}, jerr;
    int rc;
    if (o->kind == MS_OP_CREATE) {
        ms_mig_instance mi;
        /* No journal record, no creation: cleanup could not know of it. */
        rc = ms_journal_create_begin(c->journal, dev, in->start_slot,
                                     c->s->gpu.profiles[in->profile].size_slots, &err);
        if (rc)
            run_fatal(c, err.msg);
        else
            rc = ms_backend_create_journaled(
                b, c->journal, (ms_placement){in->profile, in->start_slot}, &mi, &err);
        if (rc == MS_OK) {
            in->mi = mi; /* read by the main loop only once this op is done */
            o->gi_id = mi.gi_id;
            snprintf(o->uuid, sizeof o->uuid, "%s", mi.uuid);
            if (ms_journal_created(c->journal, dev, &mi, &jerr))
                run_fatal(c, jerr.msg); /* the stop destroys it: this run knows it is its own */
        }
    } else {
        rc = in->initial ? check_idle(b, c, in, &err) : MS_OK;
        if (rc == MS_OK)
            rc = ms_backend_destroy_owned(b, c->journal, &in->mi, &err);
        if (rc == MS_OK && ms_journal_destroyed(c->journal, dev, in->mi.gi_id, &jerr))
            run_fatal(c, jerr.msg);
        if (rc == MS_ECHANGED) {
            in->changed = true;
            run_fatal(c, err.msg);
        }
        o->gi_id = in->mi.gi_id;
    }
    o->state = rc == MS_OK ? MS_RUN_OK : MS_RUN_FAILED;
    if (rc)
        snprintf(o->error, sizeof o->error, "%s", err.msg);
}

void run_op_done(run_ctx *c, int op)
{
    ms_run_op *o = &c->r->ops[op];
    run_inst *in = &c->inst[o->instance];
    c->gpu[o->gpu].busy = false;
    if (o->kind == MS_OP_CREATE && o->state == MS_RUN_OK) {
        if (c->o->dry_run) /* no device: a stand-in identity */
            in->mi = (ms_mig_instance){
                .gi_id = o->gi_id, .profile = in->profile, .start_slot = in->start_slot};
        snprintf(in->mi.uuid, sizeof in->mi.uuid, "%s", o->uuid);
        if (run_mps_start(c, o->instance, o->error, sizeof o->error)) {
            in->alive = true; /* still this run's to destroy; its tasks are skipped below */
            o->state = MS_RUN_FAILED;
        }
    }
    const char *what = o->kind == MS_OP_CREATE ? "create" : "destroy";
    const char *done = o->kind == MS_OP_CREATE ? "created" : "destroyed";
    if (o->state != MS_RUN_OK) {
        run_progress(c, "%s of instance %d (%s at slot %d) failed: %s", what, o->instance,
                     profile_name(c, o->instance), in->start_slot, o->error);
        if (o->kind == MS_OP_CREATE) {
            in->failed = true;
            skip_tasks(c, in);
        }
        if (in->changed)
            in->alive = false; /* what it was is gone; what is there is not ours */
        if (c->o->on_failure == MS_ON_FAILURE_ABORT) {
            char why[160];
            snprintf(why, sizeof why, "%s of instance %d failed", what, o->instance);
            run_stop(c, why);
        }
        return;
    }
    in->alive = o->kind == MS_OP_CREATE;

    run_progress(c, "%s instance %d: %s at slot %d on device %d (GPU instance %u%s%s)", done,
                 o->instance, profile_name(c, o->instance), in->start_slot, c->o->devices[o->gpu],
                 o->gi_id, o->uuid[0] ? ", " : "", o->uuid);
}

void run_task_done(run_ctx *c, int task)
{
    ms_run_task *t = &c->r->tasks[task];
    c->inst[t->instance].running = -1;
    run_progress(c, "task %s (#%d) %s (exit status %d)", c->w->tasks[t->index].name, t->index,
                 t->state == MS_RUN_OK ? "finished" : "failed", t->exit_status);
    if (t->state != MS_RUN_OK && c->o->on_failure == MS_ON_FAILURE_ABORT) {
        char why[160];
        snprintf(why, sizeof why, "task %.60s (#%d) failed", c->w->tasks[t->index].name, t->index);
        run_stop(c, why);
    }
}

static bool tasks_finished(const run_inst *in)
{
    return in->running < 0 && in->next_task == in->ntasks;
}

/* Starts the next op of a GPU if its dependencies allow; returns true if it moved on. */
static bool advance_gpu(run_ctx *c, run_gpu *g)
{
    if (g->busy || g->next >= g->count)
        return false;
    int op = g->first + g->next;
    ms_run_op *o = &c->r->ops[op];
    run_inst *in = &c->inst[o->instance];
    /* A stop destroys only what this run created. */
    bool skip = o->kind == MS_OP_CREATE ? c->stopping : !in->alive || (in->initial && c->stopping);
    if (skip) {
        o->state = MS_RUN_SKIPPED;
        if (o->kind == MS_OP_CREATE) {
            in->failed = true;
            skip_tasks(c, in);
        }
        g->next++;
        return true;
    }
    if (o->kind == MS_OP_DESTROY) {
        if (c->stopping && in->running < 0)
            skip_tasks(c, in);
        if (!tasks_finished(in))
            return false;
    }
    g->next++;
    g->busy = true;
    o->state = MS_RUN_RUNNING;
    if (o->kind == MS_OP_DESTROY)
        run_mps_stop(c, o->instance);
    c->driver->start_op(c, op);
    return true;
}

static void launch_ready(run_ctx *c)
{
    char fatal[MS_ERR_LEN];
    pthread_mutex_lock(&c->lock);
    snprintf(fatal, sizeof fatal, "%s", c->fatal);
    pthread_mutex_unlock(&c->lock);
    if (fatal[0])
        run_stop(c, fatal);
    bool moved = true;
    while (moved) {
        moved = false;
        for (int g = 0; g < c->ngpus; g++)
            moved |= advance_gpu(c, &c->gpu[g]);
    }
    if (c->stopping)
        return;
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        if (!in->alive || in->running >= 0 || in->next_task >= in->ntasks)
            continue;
        int t = in->tasks[in->next_task++];
        in->running = t;
        c->r->tasks[t].state = MS_RUN_RUNNING;
        c->driver->start_task(c, t);
    }
}

static bool anything_running(const run_ctx *c)
{
    for (int g = 0; g < c->ngpus; g++)
        if (c->gpu[g].busy)
            return true;
    for (int k = 0; k < c->s->ninst; k++)
        if (c->inst[k].running >= 0)
            return true;
    return false;
}

/* Whether the run leaves instance k alive at its end on purpose: it was there before the
 * plan (not this run's), or the plan keeps it and the caller asked to keep it. */
static bool left_on_purpose(const run_ctx *c, int k)
{
    return c->inst[k].initial ||
           (c->o->keep_final && isnan(c->s->inst[k].destroy_start) && !c->stopping);
}

/* Destroys whatever this run created and still holds (after a stop or failed destroys),
 * except what it leaves on purpose; this run's MPS daemons stop in any case. */
static void sweep(run_ctx *c)
{
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        if (in->alive && in->initial)
            run_mps_stop(c, k);
        if (!in->alive || left_on_purpose(c, k))
            continue;
        ms_error err;
        ms_backend *b = c->gpu[in->gpu].backend;
        run_mps_stop(c, k);
        int rc = ms_backend_destroy_owned(b, c->journal, &in->mi, &err);
        if (rc == MS_OK) {
            ms_journal_destroyed(c->journal, ms_backend_device(b), in->mi.gi_id, NULL);
            in->alive = false;
            run_progress(c, "destroyed instance %d (cleanup)", k);
        } else {
            in->alive = rc != MS_ECHANGED; /* changed: nothing of ours is left there */
            run_progress(c, "cleanup of instance %d failed: %s", k, err.msg);
        }
    }
    int room = (int)(sizeof c->r->left / sizeof c->r->left[0]);
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        if (in->alive && !in->initial &&
            !(c->o->keep_final && isnan(c->s->inst[k].destroy_start)) && c->r->nleft < room)
            snprintf(c->r->left[c->r->nleft++], sizeof c->r->left[0],
                     "device %d: GPU instance %u (%s at slot %d)",
                     ms_backend_device(c->gpu[in->gpu].backend), in->mi.gi_id, profile_name(c, k),
                     in->start_slot);
    }
}

/* The initial instances exist from the start: their MPS daemons start first. */
static void start_initial(run_ctx *c)
{
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        char why[MS_ERR_LEN];
        if (!in->initial || !in->alive)
            continue;
        run_progress(c,
                     "instance %d: %s at slot %d on device %d is there before the plan (GPU "
                     "instance %u%s%s)",
                     k, profile_name(c, k), in->start_slot, c->o->devices[in->gpu], in->mi.gi_id,
                     in->mi.uuid[0] ? ", " : "", in->mi.uuid);
        if (run_mps_start(c, k, why, sizeof why) == 0)
            continue;
        run_progress(c,
                     "instance %d (%s at slot %d, there before the plan): %s; its tasks are "
                     "skipped",
                     k, profile_name(c, k), in->start_slot, why);
        skip_tasks(c, in);
    }
}

void run_engine(run_ctx *c)
{
    start_initial(c);
    for (;;) {
        launch_ready(c);
        if (!anything_running(c))
            break;
        c->driver->wait(c);
    }
    sweep(c);
    double planned = 0, real = 0;
    bool ok = !c->stopping && c->r->nleft == 0;
    for (int i = 0; i < c->r->ntasks; i++) {
        ms_run_task *t = &c->r->tasks[i];
        planned = fmax(planned, t->planned_end);
        if (t->state == MS_RUN_OK || t->state == MS_RUN_FAILED)
            real = fmax(real, t->end);
        ok &= t->state == MS_RUN_OK;
    }
    for (int i = 0; i < c->r->nops; i++)
        ok &= c->r->ops[i].state != MS_RUN_FAILED;
    c->r->makespan_planned = planned;
    c->r->makespan = real;
    c->r->ok = ok;
}
