/* runner.c: the plan executor's dependency engine. Reconfigurations run one at a time in
 * plan order on each GPU; an instance's tasks run one after another once it exists; a
 * destruction waits for its instance's last task. Tasks on overlapping slots are thereby
 * ordered too: an instance is created only after the earlier instances on its slots were
 * destroyed. Real durations differ from the plan, so nothing here looks at the clock. */
#include "runner.h"

#include "mps.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void run_progress(run_ctx *c, const char *fmt, ...)
{
    if (!c->o->progress || c->o->dry_run)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->o->progress, "[%9.3f] ", run_now(c));
    vfprintf(c->o->progress, fmt, ap);
    fputc('\n', c->o->progress);
    va_end(ap);
    fflush(c->o->progress);
}

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
    run_progress(c, "stopping: %s; %s running tasks, then destroying what this run created",
                 why, c->o->wait_on_stop ? "waiting for" : "killing");
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
            rc = ms_backend_create_journaled(b, c->journal,
                                             (ms_placement){in->profile, in->start_slot}, &mi,
                                             &err);
        if (rc == MS_OK) {
            in->mi = mi;  /* read by the main loop only once this op is done */
            o->gi_id = mi.gi_id;
            snprintf(o->uuid, sizeof o->uuid, "%s", mi.uuid);
            if (ms_journal_created(c->journal, dev, &mi, &jerr))
                run_fatal(c, jerr.msg);  /* the stop destroys it: this run knows it is its own */
        }
    } else {
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
        if (c->o->dry_run)  /* no device: a stand-in identity */
            in->mi = (ms_mig_instance){.gi_id = o->gi_id, .profile = in->profile,
                                       .start_slot = in->start_slot};
        snprintf(in->mi.uuid, sizeof in->mi.uuid, "%s", o->uuid);
        if (exec_mps_start(c, o->instance, o->error, sizeof o->error)) {
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
            in->alive = false;  /* what it was is gone; what is there is not ours */
        if (c->o->on_failure == MS_ON_FAILURE_ABORT) {
            char why[160];
            snprintf(why, sizeof why, "%s of instance %d failed", what, o->instance);
            run_stop(c, why);
        }
        return;
    }
    in->alive = o->kind == MS_OP_CREATE;

    run_progress(c, "%s instance %d: %s at slot %d on device %d (GPU instance %u%s%s)", done,
                 o->instance, profile_name(c, o->instance), in->start_slot,
                 c->o->devices[o->gpu], o->gi_id, o->uuid[0] ? ", " : "",
                 o->uuid);
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

static bool tasks_finished(const run_inst *in) { return in->running < 0 && in->next_task == in->ntasks; }

/* The creation of an instance the plan assumes present before it starts. */
static bool is_initial(const ms_run_op *o) { return o->planned_start == -INFINITY; }

/* Starts the next op of a GPU if its dependencies allow; returns true if it moved on. */
static bool advance_gpu(run_ctx *c, run_gpu *g)
{
    if (g->busy || g->next >= g->count)
        return false;
    int op = g->first + g->next;
    ms_run_op *o = &c->r->ops[op];
    run_inst *in = &c->inst[o->instance];
    if (c->prelude && !is_initial(o))
        return false;
    bool skip = o->kind == MS_OP_CREATE ? c->stopping : !in->alive;
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
        exec_mps_stop(c, o->instance);
    c->driver->start_op(c, op);
    return true;
}

static bool prelude_done(const run_ctx *c)
{
    for (int g = 0; g < c->ngpus; g++) {
        const run_gpu *gp = &c->gpu[g];
        if (gp->busy || (gp->next < gp->count && is_initial(&c->r->ops[gp->first + gp->next])))
            return false;
    }
    return true;
}

/* The plan's time 0 is when its initial layout exists: the clock restarts there and the
 * initial creations keep negative times. */
static void end_prelude(run_ctx *c)
{
    double shift = run_now(c);
    for (int i = 0; i < c->r->nops; i++)
        if (is_initial(&c->r->ops[i])) {
            c->r->ops[i].start -= shift;
            c->r->ops[i].end -= shift;
        }
    if (c->driver == &run_virtual_driver)
        c->vclock = 0;
    else
        c->t0 += shift * c->time_unit;
    c->prelude = false;
    run_progress(c, "the plan's initial instances took %.3f s; plan time 0 starts now", shift);
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
        if (c->prelude && prelude_done(c)) {
            end_prelude(c);
            moved = true;
        }
        for (int g = 0; g < c->ngpus; g++)
            moved |= advance_gpu(c, &c->gpu[g]);
    }
    if (c->stopping || c->prelude)
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

/* Destroys whatever this run created and still holds (after a stop or failed destroys),
 * except what the plan leaves alive when the caller asked to keep it. */
static void sweep(run_ctx *c)
{
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        bool planned_alive = isnan(c->s->inst[k].destroy_start);
        if (!in->alive || (c->o->keep_final && planned_alive && !c->stopping))
            continue;
        ms_error err;
        ms_backend *b = c->gpu[in->gpu].backend;
        exec_mps_stop(c, k);
        int rc = ms_backend_destroy_owned(b, c->journal, &in->mi, &err);
        if (rc == MS_OK) {
            ms_journal_destroyed(c->journal, ms_backend_device(b), in->mi.gi_id, NULL);
            in->alive = false;
            run_progress(c, "destroyed instance %d (cleanup)", k);
        } else {
            in->alive = rc != MS_ECHANGED;  /* changed: nothing of ours is left there */
            run_progress(c, "cleanup of instance %d failed: %s", k, err.msg);
        }
    }
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        if (in->alive && !(c->o->keep_final && isnan(c->s->inst[k].destroy_start)) &&
            c->r->nleft < (int)(sizeof c->r->left / sizeof c->r->left[0]))
            snprintf(c->r->left[c->r->nleft++], sizeof c->r->left[0],
                     "device %d: GPU instance %u (%s at slot %d)",
                     ms_backend_device(c->gpu[in->gpu].backend), in->mi.gi_id, profile_name(c, k),
                     in->start_slot);
    }
}

void ms_run_engine(run_ctx *c)
{
    for (int i = 0; i < c->r->nops; i++)
        c->prelude |= is_initial(&c->r->ops[i]);
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
