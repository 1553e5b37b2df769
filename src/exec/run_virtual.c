/* run_virtual.c: the executor's virtual-time driver: the sim backend with time_scale 0
 * (reconfigurations take the model's times, tasks their planned times, on a virtual
 * clock) and --dry-run (the same walk, printing each NVML operation and command instead
 * of doing it). */
#include <math.h>
#include <stdio.h>

#include "runner.h"

static FILE *dry_out(run_ctx *c) { return c->o->dry_out ? c->o->dry_out : stdout; }

static void virtual_start_op(run_ctx *c, int op)
{
    ms_run_op *o = &c->r->ops[op];
    const run_inst *in = &c->inst[o->instance];
    const ms_profile *pr = &c->s->gpu.profiles[in->profile];
    o->start = c->vclock;
    if (c->o->dry_run) {
        int dev = c->o->devices[o->gpu];
        if (o->kind == MS_OP_CREATE)
            fprintf(dry_out(c),
                    "device %d: create instance %d: nvmlDeviceCreateGpuInstanceWithPlacement(%s "
                    "[NVML profile index %d], start %d, size %d) + "
                    "nvmlGpuInstanceCreateComputeInstance(%d-slice profile)\n",
                    dev, o->instance, pr->name, pr->nvml_index, in->start_slot, pr->size_slots,
                    pr->slices);
        else
            fprintf(dry_out(c),
                    "device %d: destroy instance %d: nvmlComputeInstanceDestroy + "
                    "nvmlGpuInstanceDestroy (%s at slot %d)\n",
                    dev, o->instance, pr->name, in->start_slot);
        o->state = MS_RUN_OK;
        o->gi_id = (unsigned)o->instance + 1;
        snprintf(o->uuid, sizeof o->uuid, "MIG-<instance %d>", o->instance);
    } else {
        run_do_op(c, op);
    }
    double d = o->kind == MS_OP_CREATE ? ms_gpu_create_time(&c->s->gpu, pr->slices)
                                       : ms_gpu_destroy_time(&c->s->gpu, pr->slices);
    c->op_done_at[op] = c->vclock + d;
}

static void virtual_start_task(run_ctx *c, int task)
{
    ms_run_task *t = &c->r->tasks[task];
    const ms_task *wt = &c->w->tasks[t->index];
    char mps[1400];
    run_mps_task_env(c, t->instance, (char *[2]){0}, mps, sizeof mps);
    if (c->o->dry_run)
        fprintf(dry_out(c),
                "run task %s (#%d) on instance %d: cd %s && CUDA_VISIBLE_DEVICES=%s %s%s\n",
                wt->name, t->index, t->instance, wt->cwd ? wt->cwd : ".",
                c->inst[t->instance].mi.uuid, mps, wt->command ? wt->command : "<no command>");
    t->start = c->vclock;
    run_progress(c, "task %s (#%d) started on instance %d (%s)", wt->name, t->index, t->instance,
                 c->inst[t->instance].mi.uuid);
    c->task_done_at[task] = c->vclock + (t->planned_end - t->planned_start);
}

/* Ends the earliest event; on a tie, ops before tasks and lower indices first. */
static void virtual_wait(run_ctx *c)
{
    double best = INFINITY;
    int op = -1, task = -1;
    for (int i = 0; i < c->r->nops; i++)
        if (!isnan(c->op_done_at[i]) && c->op_done_at[i] < best)
            best = c->op_done_at[i], op = i;
    for (int i = 0; i < c->r->ntasks; i++)
        if (!isnan(c->task_done_at[i]) && c->task_done_at[i] < best)
            best = c->task_done_at[i], task = i, op = -1;
    if (op < 0 && task < 0)
        return;
    c->vclock = best;
    if (op >= 0) {
        c->op_done_at[op] = NAN;
        c->r->ops[op].end = best;
        run_op_done(c, op);
    } else {
        c->task_done_at[task] = NAN;
        ms_run_task *t = &c->r->tasks[task];
        t->end = best;
        t->exit_status = 0;
        t->state = MS_RUN_OK;
        run_task_done(c, task);
    }
}

static void virtual_kill_tasks(run_ctx *c, int sig)
{
    for (int i = 0; i < c->r->ntasks; i++) {
        if (isnan(c->task_done_at[i]))
            continue;
        c->task_done_at[i] = NAN;
        ms_run_task *t = &c->r->tasks[i];
        t->end = c->vclock;
        t->exit_status = -sig;
        t->state = MS_RUN_FAILED;
        run_task_done(c, i);
    }
}

static double virtual_now(run_ctx *c) { return c->vclock; }

const run_driver run_virtual_driver = {virtual_start_op, virtual_start_task, virtual_wait,
                                       virtual_kill_tasks, virtual_now};
