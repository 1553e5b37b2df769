/* engine_batch.c: batch mode. Queued jobs accumulate; when batch-size are queued or the
 * oldest has waited batch-period, the first batch-size are planned with the library's
 * offline planner (search, as `migsched schedule` calls it), the batch's plan is appended
 * to the running plan, the whole plan is validated, and the batch is carried out in plan
 * order: on each GPU the creations and destructions one after another in planned order
 * (a destruction once every task of its instance ended), on each instance its tasks in
 * planned order. One batch runs at a time: the next is planned once it has ended. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "log.h"
#include "migsched/offline.h"
#include "migsched/schedule.h"

enum { BT_PENDING = 0, BT_RUNNING, BT_ENDED };

struct ei_batch {
    ms_schedule *s;           /* the batch's plan, times from its start */
    int ntasks;
    int64_t *job;             /* workload index (the plan's task.index) -> job id */
    int *task_state;          /* by position in s->task */
    int *inst_slot_ready;     /* per plan instance: 0 not created, 1 alive, 2 destroyed */
    int *ops;                 /* per GPU, (instance << 1 | destroy) in planned order */
    int nops[MS_DAEMON_MAX_DEVICES], first[MS_DAEMON_MAX_DEVICES], next[MS_DAEMON_MAX_DEVICES];
    int *order;               /* task indices by (instance, planned start) */
    int *inst_first, *inst_n, *inst_next;
};

void ei_batch_free(ei_batch *b)
{
    if (!b)
        return;
    ms_schedule_free(b->s);
    free(b->job);
    free(b->task_state);
    free(b->inst_slot_ready);
    free(b->ops);
    free(b->order);
    free(b->inst_first);
    free(b->inst_n);
    free(b->inst_next);
    free(b);
}

/* An instance the planner assumes present at the start (no creation time) is created
 * before everything else. */
static double op_time(const ms_schedule *s, int op)
{
    const ms_sched_instance *in = &s->inst[op >> 1];
    return op & 1 ? in->destroy_start : isnan(in->create_start) ? -INFINITY : in->create_start;
}

/* Planned order; at equal times a destruction first (it frees the slots a creation needs). */
static int cmp_op(const void *a, const void *b, void *ctx)
{
    int x = *(const int *)a, y = *(const int *)b;
    double tx = op_time(ctx, x), ty = op_time(ctx, y);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    if ((x & 1) != (y & 1))
        return (y & 1) - (x & 1);
    return x - y;
}

static int cmp_task(const void *a, const void *b, void *ctx)
{
    const ms_schedule *s = ctx;
    const ms_sched_task *x = &s->task[*(const int *)a], *y = &s->task[*(const int *)b];
    if (x->instance != y->instance)
        return x->instance - y->instance;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->index - y->index;
}

/* The execution order of plan s. */
static int build_order(ms_engine *e, ei_batch *b)
{
    const ms_schedule *s = b->s;
    int ni = s->ninst, nt = s->ntasks;
    b->ops = malloc((size_t)(2 * ni + 1) * sizeof *b->ops);
    b->order = malloc((size_t)(nt + 1) * sizeof *b->order);
    b->inst_first = calloc((size_t)ni + 1, sizeof *b->inst_first);
    b->inst_n = calloc((size_t)ni + 1, sizeof *b->inst_n);
    b->inst_next = calloc((size_t)ni + 1, sizeof *b->inst_next);
    b->inst_slot_ready = calloc((size_t)ni + 1, sizeof *b->inst_slot_ready);
    if (!b->ops || !b->order || !b->inst_first || !b->inst_n || !b->inst_next ||
        !b->inst_slot_ready)
        return MS_ENOMEM;
    int k = 0;
    for (int g = 0; g < e->ngpus; g++) {
        b->first[g] = k;
        for (int i = 0; i < ni; i++) {
            if (s->inst[i].gpu != g)
                continue;
            b->ops[k++] = i << 1;
            if (!isnan(s->inst[i].destroy_start))
                b->ops[k++] = i << 1 | 1;
        }
        b->nops[g] = k - b->first[g];
        if (b->nops[g] > 0)
            qsort_r(b->ops + b->first[g], (size_t)b->nops[g], sizeof *b->ops, cmp_op,
                    (void *)s);
    }
    for (int t = 0; t < nt; t++)
        b->order[t] = t;
    if (nt > 0)
        qsort_r(b->order, (size_t)nt, sizeof *b->order, cmp_task, (void *)s);
    for (int t = nt - 1; t >= 0; t--) {
        int i = s->task[b->order[t]].instance;
        b->inst_first[i] = t;
        b->inst_n[i]++;
    }
    return MS_OK;
}

/* Appends batch plan s (times from 0) to the engine's running plan at `offset` seconds
 * after the first batch began: instances the previous batches left alive are destroyed
 * first (one destruction at a time per GPU), then the batch follows, shifted. */
static int append_plan(ms_engine *e, const ms_schedule *s, const ms_workload *w, double offset)
{
    if (!e->plan) {
        e->plan = ms_schedule_new(e->m, e->ngpus, "search");
        e->plan_w = ms_workload_new();
        if (!e->plan || !e->plan_w)
            return MS_ENOMEM;
    }
    ms_schedule *p = e->plan;
    double start = fmax(offset, ms_schedule_makespan(p));
    for (int i = 0; i < p->ninst; i++)
        if (!isnan(p->inst[i].destroy_end))
            start = fmax(start, p->inst[i].destroy_end);
    /* Per GPU, one operation at a time: the leftovers' destructions, then the creations of
     * the instances the batch's plan assumes present at its start. */
    double ready[MS_DAEMON_MAX_DEVICES], creating[MS_DAEMON_MAX_DEVICES];
    offset = fmax(offset, start);
    for (int g = 0; g < e->ngpus; g++) {
        double t = start;
        for (int i = 0; i < p->ninst; i++)
            if (p->inst[i].gpu == g && isnan(p->inst[i].destroy_start)) {
                p->inst[i].destroy_start = t;
                t += ms_gpu_destroy_time(e->m, e->m->profiles[p->inst[i].profile].slices);
                p->inst[i].destroy_end = t;
            }
        creating[g] = 0;
        for (int i = 0; i < s->ninst; i++)
            if (s->inst[i].gpu == g && isnan(s->inst[i].create_start))
                creating[g] += ms_gpu_create_time(e->m, e->m->profiles[s->inst[i].profile].slices);
        offset = fmax(offset, t + creating[g]);
    }
    for (int g = 0; g < e->ngpus; g++)  /* the creations end as the batch begins */
        ready[g] = offset - creating[g];
    int base_inst = p->ninst, base_task = e->plan_w->n;
    ms_error err;
    for (int t = 0; t < w->n; t++)
        if (ms_workload_add(e->plan_w, w->tasks[t].name, w->tasks[t].time, NULL, NULL, &err))
            return err.code;
    for (int i = 0; i < s->ninst; i++) {
        const ms_sched_instance *in = &s->inst[i];
        double cs = in->create_start + offset, ce = in->create_end + offset;
        if (isnan(in->create_start)) {
            cs = ready[in->gpu];
            ce = ready[in->gpu] += ms_gpu_create_time(e->m, e->m->profiles[in->profile].slices);
        }
        if (ms_schedule_add_instance(p, in->gpu, in->profile, in->start_slot, cs, ce,
                                     in->destroy_start + offset, in->destroy_end + offset) < 0)
            return MS_ENOMEM;
    }
    for (int t = 0; t < s->ntasks; t++) {
        const ms_sched_task *k = &s->task[t];
        if (ms_schedule_add_task(p, k->index + base_task, k->instance + base_inst,
                                 k->start + offset, k->end + offset))
            return MS_ENOMEM;
    }
    return MS_OK;
}

/* Plans the first batch-size queued jobs and makes them the running batch. */
static int plan_batch(ms_engine *e, ms_error *err)
{
    int n = (int)(e->nqueue < (size_t)e->batch_size ? e->nqueue : (size_t)e->batch_size);
    ms_workload *w = ms_workload_new();
    ei_batch *b = calloc(1, sizeof *b);
    if (!w || !b) {
        ms_workload_free(w);
        free(b);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    b->job = malloc((size_t)n * sizeof *b->job);
    b->task_state = calloc((size_t)n, sizeof *b->task_state);
    int rc = b->job && b->task_state ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < n; i++) {
        double time[MS_MAX_SLICES + 1];
        ei_spec_times(e->m, &e->queue[i]->spec, time);
        b->job[i] = e->queue[i]->id;
        rc = ms_workload_add(w, e->queue[i]->spec.name, time, NULL, NULL, err);
    }
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    if (!rc)  /* the very call `migsched schedule` makes, with its defaults */
        rc = ms_offline_schedule("search", w, e->m, e->ngpus, &opt, &b->s, err);
    ms_validation v = {0};
    if (!rc && ms_schedule_validate(b->s, w, &v))
        rc = ms_error_set(err, MS_EINVAL, "the batch's plan is not valid: %s",
                          v.n ? v.v[0].msg : "?");
    ms_validation_free(&v);
    b->ntasks = n;
    if (!rc && (rc = build_order(e, b)))
        ms_error_set(err, rc, "out of memory");
    if (!rc) {
        ms_schedule *keep = e->plan ? ms_schedule_clone(e->plan) : NULL;
        ms_workload *keep_w = e->plan_w ? ms_workload_slice(e->plan_w, 0, e->plan_w->n) : NULL;
        double offset = e->plan_t0 > 0 ? ei_now() - e->plan_t0 : 0;
        if (!e->plan)
            e->plan_t0 = ei_now();
        rc = append_plan(e, b->s, w, offset);
        ms_validation all = {0};
        if (!rc && ms_schedule_validate(e->plan, e->plan_w, &all))
            rc = ms_error_set(err, MS_EINVAL, "the running plan with the new batch is not "
                              "valid: %s", all.n ? all.v[0].msg : "?");
        ms_validation_free(&all);
        if (rc) {  /* the running plan stays as it was */
            ms_schedule_free(e->plan);
            ms_workload_free(e->plan_w);
            e->plan = keep;
            e->plan_w = keep_w;
        } else {
            ms_schedule_free(keep);
            ms_workload_free(keep_w);
        }
    }
    char *text = NULL;
    if (!rc && (text = ei_plan_text(e))) {
        int64_t id;
        pthread_mutex_lock(&e->smu);
        rc = ms_store_add_plan(e->st, ei_now(), text, &id, err);
        pthread_mutex_unlock(&e->smu);
    }
    free(text);
    ms_workload_free(w);
    if (rc) {
        ei_batch_free(b);
        return rc;
    }
    ms_dlog(MS_LOG_INFO, "batch.plan", "jobs=%d instances=%d makespan=%.3f", n, b->s->ninst,
            ms_schedule_makespan(b->s));
    e->batch = b;
    return MS_OK;
}

static size_t queue_index(const ms_engine *e, int64_t id)
{
    for (size_t i = 0; i < e->nqueue; i++)
        if (e->queue[i]->id == id)
            return i;
    return (size_t)-1;
}

static bool running(const ms_engine *e, int64_t id)
{
    for (size_t i = 0; i < e->nrun; i++)
        if (e->run[i].job.id == id)
            return true;
    return false;
}

/* One pass over the running batch: ends, operations, starts. True once it is over. */
static bool advance(ms_engine *e, ms_error *err)
{
    ei_batch *b = e->batch;
    const ms_schedule *s = b->s;
    bool over = true;
    for (int t = 0; t < b->ntasks; t++) {
        int64_t id = b->job[s->task[t].index];
        if (b->task_state[t] == BT_RUNNING && !running(e, id))
            b->task_state[t] = BT_ENDED;
        /* Cancelled (or requeued by a stop) before it ran: nothing left to run. */
        if (b->task_state[t] == BT_PENDING && queue_index(e, id) == (size_t)-1 &&
            !running(e, id))
            b->task_state[t] = BT_ENDED;
        over &= b->task_state[t] == BT_ENDED;
    }
    for (int g = 0; g < e->ngpus; g++) {
        while (b->next[g] < b->nops[g]) {
            int op = b->ops[b->first[g] + b->next[g]], i = op >> 1;
            const ms_sched_instance *in = &s->inst[i];
            if (op & 1) {
                bool done = true;
                for (int k = 0; k < b->inst_n[i]; k++)
                    done &= b->task_state[b->order[b->inst_first[i] + k]] == BT_ENDED;
                if (!done || ei_destroy(e, g, in->start_slot, err))
                    break;
                b->inst_slot_ready[i] = 2;
            } else {
                if (e->stopping ||
                    ei_create(e, g, (ms_placement){in->profile, in->start_slot}, 0, err))
                    break;
                e->gpu[g].inst[in->start_slot].state = EI_IDLE;
                b->inst_slot_ready[i] = 1;
            }
            b->next[g]++;
        }
        over &= b->next[g] == b->nops[g];
    }
    for (int i = 0; i < s->ninst && !e->stopping; i++) {
        if (b->inst_slot_ready[i] != 1 || b->inst_next[i] == b->inst_n[i])
            continue;
        int t = b->order[b->inst_first[i] + b->inst_next[i]];
        if (b->task_state[t] != BT_PENDING) {
            b->inst_next[i]++;
            i--;  /* look at its next task */
            continue;
        }
        if (e->gpu[s->inst[i].gpu].inst[s->inst[i].start_slot].state != EI_IDLE)
            continue;  /* its previous task still runs */
        size_t q = queue_index(e, b->job[s->task[t].index]);
        if (q == (size_t)-1) {  /* cancelled while a backend call had mu dropped */
            b->task_state[t] = BT_ENDED;
            continue;
        }
        if (ei_start(e, q, s->inst[i].gpu, (ms_placement){s->inst[i].profile,
                                                          s->inst[i].start_slot}, err))
            continue;
        b->task_state[t] = BT_RUNNING;
        b->inst_next[i]++;
    }
    return over;
}

int ei_batch_step(ms_engine *e, ms_error *err)
{
    if (!e->batch) {
        if (e->stopping || e->nqueue == 0 || ei_mono() < e->plan_retry)
            return MS_OK;
        bool due = e->nqueue >= (size_t)e->batch_size ||
                   ei_now() - e->queue[0]->submitted >= e->batch_period;
        if (!due)
            return MS_OK;
        int rc = plan_batch(e, err);
        if (rc) {
            e->plan_retry = ei_mono() + 1;  /* not at every pass: the log would flood */
            return rc;
        }
    }
    if (advance(e, err)) {
        ms_dlog(MS_LOG_INFO, "batch.end", "jobs=%d", e->batch->ntasks);
        ei_batch_free(e->batch);
        e->batch = NULL;
        /* What the plan leaves alive is destroyed before the next batch (it plans on empty
         * GPUs); append_plan times these destructions in the running plan. */
        return ei_destroy_all(e, err);
    }
    return MS_OK;
}

double ei_batch_due(const ms_engine *e)
{
    if (e->batch || e->nqueue == 0 || e->stopping)
        return INFINITY;
    if (e->nqueue >= (size_t)e->batch_size)
        return ei_now();  /* due now: e.g. jobs that came while the last batch ran */
    return e->queue[0]->submitted + e->batch_period;
}

char *ei_plan_text(ms_engine *e)
{
    if (!e->plan)
        return NULL;
    char *text = NULL;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    ms_error err;
    int rc = ms_schedule_write_json(e->plan, e->plan_w, f, &err);
    fclose(f);
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}
