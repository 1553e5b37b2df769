/* engine_batch.c: batch mode. Queued jobs accumulate; when batch-size jobs no plan holds
 * are queued, or the oldest has waited batch-period, the first batch-size of them are
 * planned with the library's offline planner (search, as `migsched schedule` calls it)
 * from what the GPUs hold (the instances the running plan leaves, busy until its last task
 * on each, and stand-ins keeping the slots of instances not ours out of the plan) and
 * joined to the running plan with paper 000's overlap concatenation (ms_schedule_join:
 * the running plan stays as it is, the batch's instances start as soon as their slots are
 * free); the joint plan is validated before anything of the batch runs. Before a join the
 * running plan drops what is finished (prune), so it holds the work not done. It is
 * carried out in plan order: on each GPU its creations and destructions one after another
 * in planned order (a creation once its slots are really free, a destruction once every
 * task of its instance ended), on each instance its tasks in planned order. Real times
 * follow the jobs, not the plan. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "log.h"
#include "migsched/io.h"
#include "migsched/offline.h"
#include "migsched/schedule.h"

enum { BT_PENDING = 0, BT_RUNNING, BT_ENDED };
enum { BI_PLANNED = 0, BI_ALIVE, BI_GONE };

/* The running plan's execution (e->plan: what is not done of the batches joined). */
struct ei_batch {
    int ninst, ntasks, njobs, cap_inst, cap_tasks, cap_jobs;
    int64_t *job;    /* plan workload index -> job id */
    int *task_state; /* by position in e->plan->task */
    int *inst_state; /* per plan instance: BI_* */
    int *inst_next;  /* per plan instance: its tasks started or skipped */
    int *order;      /* task positions by (instance, planned start) */
    int *inst_first, *inst_n;
    int *ops[MD_MAX_DEVICES]; /* per GPU (instance << 1 | destroy), planned order */
    int nops[MD_MAX_DEVICES], next[MD_MAX_DEVICES];
    int first_open;   /* tasks before it have all ended */
    int64_t *planned; /* job ids of the pending tasks, sorted */
    int nplanned;
};

void ei_batch_free(ei_batch *b)
{
    if (!b)
        return;
    free(b->job);
    free(b->task_state);
    free(b->inst_state);
    free(b->inst_next);
    free(b->order);
    free(b->inst_first);
    free(b->inst_n);
    for (int g = 0; g < MD_MAX_DEVICES; g++)
        free(b->ops[g]);
    free(b->planned);
    free(b);
}

static int grow(void *pp, int *cap, int need, size_t elem, bool zero)
{
    if (need <= *cap)
        return MS_OK;
    int nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    char *q = realloc(*(void **)pp, (size_t)nc * elem);
    if (!q)
        return MS_ENOMEM;
    if (zero)
        memset(q + (size_t)*cap * elem, 0, (size_t)(nc - *cap) * elem);
    *(void **)pp = q;
    *cap = nc;
    return MS_OK;
}

/* Each instance's task order and each GPU's operation order, derived from e->plan (the
 * arrays have room for it). */
static void derive(md_engine *e)
{
    ei_batch *b = e->batch;
    const ms_schedule *p = e->plan;
    ms_schedule_task_order(p, b->order);
    memset(b->inst_n, 0, (size_t)p->ninst * sizeof *b->inst_n);
    for (int t = p->ntasks - 1; t >= 0; t--) {
        int i = p->task[b->order[t]].instance;
        b->inst_first[i] = t;
        b->inst_n[i]++;
    }
    for (int g = 0; g < e->ngpus; g++) {
        b->nops[g] = ms_schedule_ops(p, g, b->ops[g]);
        b->next[g] = 0;
    }
}

/* Extends the execution state to the plan e->plan after a batch was joined (jobs: the
 * batch's job ids by its workload index): the new tasks and instances pending, each
 * instance's task order and each GPU's operation order derived again. */
static int extend(md_engine *e, const int64_t *jobs, int njobs)
{
    if (!e->batch && !(e->batch = calloc(1, sizeof *e->batch)))
        return MS_ENOMEM;
    ei_batch *b = e->batch;
    const ms_schedule *p = e->plan;
    int ci = b->cap_inst, ct = b->cap_tasks, cj = b->cap_jobs, c2 = b->cap_inst;
    int c3 = b->cap_inst, c4 = b->cap_inst, c5 = b->cap_tasks;
    if (grow(&b->inst_state, &ci, p->ninst, sizeof *b->inst_state, true) ||
        grow(&b->inst_next, &c2, p->ninst, sizeof *b->inst_next, true) ||
        grow(&b->inst_first, &c3, p->ninst, sizeof *b->inst_first, true) ||
        grow(&b->inst_n, &c4, p->ninst, sizeof *b->inst_n, true) ||
        grow(&b->task_state, &ct, p->ntasks, sizeof *b->task_state, true) ||
        grow(&b->order, &c5, p->ntasks, sizeof *b->order, false) ||
        grow(&b->job, &cj, b->njobs + njobs, sizeof *b->job, false))
        return MS_ENOMEM;
    b->cap_inst = ci;
    b->cap_tasks = ct;
    b->cap_jobs = cj;
    for (int g = 0; g < e->ngpus; g++) {
        int *ops = realloc(b->ops[g], (size_t)(2 * p->ninst + 1) * sizeof *ops);
        if (!ops)
            return MS_ENOMEM;
        b->ops[g] = ops;
    }
    memcpy(b->job + b->njobs, jobs, (size_t)njobs * sizeof *jobs);
    b->njobs += njobs;
    b->ninst = p->ninst;
    b->ntasks = p->ntasks;
    derive(e);
    return MS_OK;
}

/* Drops what is finished from the running plan before a batch joins it: the instances
 * destroyed and the tasks ended (ran, or cancelled before they ran). What stays is the
 * work not yet done, so the plan, its execution state and each stored plan stay bounded
 * however long the daemon runs. Times stay seconds since plan_t0; what stays keeps its
 * order and state. On failure (out of memory) nothing changed. */
static int prune(md_engine *e, ms_error *err)
{
    ei_batch *b = e->batch;
    const ms_schedule *p = e->plan;
    if (!b)
        return MS_OK;
    ms_schedule *np = ms_schedule_new(&p->gpu, p->gpus, p->algorithm);
    ms_workload *nw = ms_workload_new();
    int *id = malloc((size_t)(p->ninst + 1) * sizeof *id);
    int64_t *job = malloc((size_t)b->cap_jobs * sizeof *job); /* by the new index */
    int rc = np && nw && id && job ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; !rc && i < p->ninst; i++) {
        const ms_sched_instance *in = &p->inst[i];
        id[i] = b->inst_state[i] == BI_GONE
                    ? -1
                    : ms_schedule_add_instance(np, in->gpu, in->profile, in->start_slot,
                                               in->create_start, in->create_end, in->destroy_start,
                                               in->destroy_end);
        if (b->inst_state[i] != BI_GONE && id[i] < 0)
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    for (int t = 0; !rc && t < p->ntasks; t++) {
        const ms_sched_task *k = &p->task[t];
        if (b->task_state[t] == BT_ENDED)
            continue;
        const ms_task *w = &e->plan_w->tasks[k->index];
        job[nw->n] = b->job[k->index];
        if (ms_schedule_add_task(np, nw->n, id[k->instance], k->start, k->end))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        else
            rc = ms_workload_add(nw, w->name, w->time, NULL, NULL, err);
    }
    if (rc) {
        ms_schedule_free(np);
        ms_workload_free(nw);
        free(id);
        free(job);
        return rc;
    }
    /* The state in place: an instance's or task's new position is never after its old. */
    for (int i = 0; i < p->ninst; i++) {
        if (id[i] < 0)
            continue;
        int next = 0; /* its tasks started or skipped that stay */
        for (int k = 0; k < b->inst_next[i]; k++)
            next += b->task_state[b->order[b->inst_first[i] + k]] != BT_ENDED;
        b->inst_state[id[i]] = b->inst_state[i];
        b->inst_next[id[i]] = next;
    }
    int n = 0;
    for (int t = 0; t < p->ntasks; t++)
        if (b->task_state[t] != BT_ENDED)
            b->task_state[n++] = b->task_state[t];
    /* extend() takes the entries past the plan's end as zero: pending, planned */
    memset(b->task_state + n, 0, (size_t)(p->ntasks - n) * sizeof *b->task_state);
    memset(b->inst_state + np->ninst, 0, (size_t)(p->ninst - np->ninst) * sizeof *b->inst_state);
    memset(b->inst_next + np->ninst, 0, (size_t)(p->ninst - np->ninst) * sizeof *b->inst_next);
    free(b->job);
    b->job = job;
    b->njobs = n;
    b->ninst = np->ninst;
    b->ntasks = np->ntasks;
    b->first_open = 0;
    ms_schedule_free(e->plan);
    ms_workload_free(e->plan_w);
    e->plan = np;
    e->plan_w = nw;
    derive(e);
    free(id);
    return MS_OK;
}

static int cmp_id(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Whether queued job id is in no plan yet. */
static bool unplanned(const md_engine *e, int64_t id)
{
    const ei_batch *b = e->batch;
    return !b || !b->nplanned || !bsearch(&id, b->planned, (size_t)b->nplanned, sizeof id, cmp_id);
}

bool ei_batch_planned(const md_engine *e, int64_t id) { return !unplanned(e, id); }

/* Whether queued job j is one the next batch may take: in no plan, and not waiting out
 * its backoff after a start that failed on the node (those after it are taken instead). */
static bool plannable(const md_engine *e, const md_job *j, double now)
{
    return j->not_before <= now && unplanned(e, j->id);
}

/* Stand-ins for the instances not ours on GPU g: placements of the model covering their
 * slots (the smallest that covers each), never over what `l` already holds there, busy until
 * MS_TIME_MAX, so the batch neither uses nor destroys them (standins_kept). */
static int foreign_layout(const md_engine *e, int g, ms_initial *l, ms_error *err)
{
    const ms_gpu_model *m = e->m;
    uint32_t taken = 0;
    ms_placement at[MS_MAX_SLOTS];
    double busy[MS_MAX_SLOTS];
    for (int k = ms_initial_on_gpu(l, g, at, busy) - 1; k >= 0; k--)
        taken |= ms_gpu_slot_mask(m, at[k]);
    for (int slot = 0; slot < m->slots; slot++) {
        if (!(e->gpu[g].foreign_slots >> slot & 1) || (taken >> slot & 1))
            continue;
        ms_placement best = {-1, 0};
        for (int p = 0; p < m->nprofiles; p++)
            for (int k = 0; k < m->profiles[p].nstarts; k++) {
                ms_placement c = {p, m->profiles[p].starts[k]};
                uint32_t mask = ms_gpu_slot_mask(m, c);
                if ((mask >> slot & 1) && !(mask & taken) &&
                    (best.profile < 0 ||
                     m->profiles[p].size_slots < m->profiles[best.profile].size_slots))
                    best = c;
            }
        if (best.profile < 0)
            return ms_error_set(err, MS_EINVAL,
                                "device %d: slot %d, held by an instance not "
                                "ours, cannot be kept out of the plan (no free placement of "
                                "%s covers it)",
                                e->gpu[g].device, slot, m->name);
        int rc = ms_initial_add(l, m, g, best, MS_TIME_MAX, err);
        if (rc)
            return rc;
        taken |= ms_gpu_slot_mask(m, best);
    }
    return MS_OK;
}

/* Whether the batch's plan s leaves every stand-in of layout l as it is: no task on it, no
 * destruction (the planner would do either only after MS_TIME_MAX, for a job that needs
 * those slots). */
static int standins_kept(const md_engine *e, const ms_schedule *s, const ms_initial *l,
                         ms_error *err)
{
    for (int i = 0; i < s->ninst; i++) {
        const ms_sched_instance *in = &s->inst[i];
        bool used = !isnan(in->destroy_start);
        for (int t = 0; t < s->ntasks && !used; t++)
            used = s->task[t].instance == i;
        for (int k = 0; used && isnan(in->create_start) && k < l->n; k++) {
            const ms_initial_inst *x = &l->inst[k];
            if (x->busy_until >= MS_TIME_MAX && x->gpu == in->gpu && x->at.profile == in->profile &&
                x->at.start == in->start_slot)
                return ms_error_set(err, MS_EINVAL,
                                    "the batch needs slots of device %d held "
                                    "by instances not ours (%s at slot %d)",
                                    e->gpu[in->gpu].device, e->m->profiles[in->profile].name,
                                    in->start_slot);
        }
    }
    return MS_OK;
}

/* Whether the running plan's instance at x, alive at its end, is there or yet to be made:
 * one someone else destroyed (ei_destroy's "lost") is not offered to the batch. */
static bool still_there(const md_engine *e, const ms_initial_inst *x)
{
    const ms_schedule *p = e->plan;
    for (int i = 0; i < p->ninst; i++) {
        const ms_sched_instance *in = &p->inst[i];
        if (isnan(in->destroy_end) && in->gpu == x->gpu && in->profile == x->at.profile &&
            in->start_slot == x->at.start)
            return e->batch->inst_state[i] == BI_PLANNED ||
                   e->gpu[x->gpu].inst[x->at.start].profile == x->at.profile;
    }
    return false;
}

/* What the GPUs hold for a batch planned at `now` (the plan's clock): the instances the
 * running plan leaves, each busy until its last task there ends, and stand-ins for the
 * instances not ours. */
static int node_layout(const md_engine *e, double now, ms_initial *l, ms_error *err)
{
    ms_initial left;
    ms_initial_init(&left);
    int rc = e->plan ? ms_schedule_join_layout(e->plan, now, &left, err) : MS_OK;
    for (int k = 0; !rc && k < left.n; k++)
        if (still_there(e, &left.inst[k]))
            rc = ms_initial_add(l, e->m, left.inst[k].gpu, left.inst[k].at, left.inst[k].busy_until,
                                err);
    ms_initial_fini(&left);
    for (int g = 0; !rc && g < e->ngpus; g++)
        rc = foreign_layout(e, g, l, err);
    return rc;
}

/* Plans up to batch-size queued jobs no plan holds from what the GPUs hold, joins them to
 * the running plan and validates the joint plan; on failure the running plan stays as it
 * was. */
static int plan_batch(md_engine *e, ms_error *err)
{
    ms_workload *w = ms_workload_new();
    int64_t *jobs = malloc((size_t)e->batch_size * sizeof *jobs);
    int n = 0, rc = w && jobs ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    double mono = ms_monotonic_seconds();
    for (size_t i = 0; !rc && i < e->nqueue && n < e->batch_size; i++) {
        if (!plannable(e, e->queue[i], mono))
            continue;
        double time[MS_MAX_SLICES + 1];
        ei_spec_times(e->m, &e->queue[i]->spec, time);
        jobs[n++] = e->queue[i]->id;
        rc = ms_workload_add(w, e->queue[i]->spec.name, time, NULL, NULL, err);
    }
    if (!e->plan_t0)
        e->plan_t0 = ei_now();
    double now = ei_now() - e->plan_t0;
    if (!rc)
        rc = prune(e, err);
    ms_initial layout;
    ms_initial_init(&layout);
    if (!rc)
        rc = node_layout(e, now, &layout, err);
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    opt.initial = &layout;
    ms_schedule *s = NULL, *joint = NULL;
    ms_workload *joint_w = NULL;
    if (!rc) /* the call `migsched schedule` makes, with its defaults, from the layout */
        rc = ms_offline_schedule("search", w, e->m, e->ngpus, &opt, &s, err);
    ms_validation v = {0};
    if (!rc && ms_schedule_validate_initial(s, w, &layout, &v))
        rc = ms_error_set(err, MS_EINVAL, "the batch's plan is not valid: %s",
                          v.n ? v.v[0].msg : "?");
    ms_validation_fini(&v);
    if (!rc)
        rc = standins_kept(e, s, &layout, err);
    opt.far.concat = (ms_concat_mode)e->batch_concat;
    if (!rc)
        rc = ms_schedule_join(e->plan, now, s, w, e->plan_w ? e->plan_w->n : 0, &opt, &joint, err);
    if (!rc &&
        !(joint_w = e->plan_w ? ms_workload_slice(e->plan_w, 0, e->plan_w->n) : ms_workload_new()))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int t = 0; !rc && t < w->n; t++)
        rc = ms_workload_add(joint_w, w->tasks[t].name, w->tasks[t].time, NULL, NULL, err);
    if (!rc && ms_schedule_validate(joint, joint_w, &v))
        rc = ms_error_set(err, MS_EINVAL,
                          "the running plan with the new batch is not "
                          "valid: %s",
                          v.n ? v.v[0].msg : "?");
    ms_validation_fini(&v);
    char *text = NULL;
    if (!rc) {
        snprintf(joint->algorithm, sizeof joint->algorithm, "search");
        ms_schedule *old = e->plan;
        ms_workload *old_w = e->plan_w;
        e->plan = joint;
        e->plan_w = joint_w;
        if ((rc = extend(e, jobs, n))) { /* the running plan stays as it was */
            ms_error_set(err, rc, "out of memory");
            e->plan = old;
            e->plan_w = old_w;
        } else {
            ms_schedule_free(old);
            ms_workload_free(old_w);
            joint = NULL;
            joint_w = NULL;
        }
    }
    if (!rc && (text = ei_plan_text(e))) {
        int64_t id;
        pthread_mutex_lock(&e->smu);
        rc = md_store_add_plan(e->st, ei_now(), text, &id, err);
        pthread_mutex_unlock(&e->smu);
    }
    if (!rc)
        md_log(MD_LOG_INFO, "batch.plan",
               "jobs=%d instances=%d makespan=%.3f "
               "joint_makespan=%.3f trivial=%.3f reversed=%d moves=%d swaps=%d",
               n, s->ninst, ms_schedule_makespan(s), ms_schedule_makespan(e->plan),
               ms_schedule_stat(e->plan, "makespan_trivial"),
               (int)ms_schedule_stat(e->plan, "reversed"),
               (int)ms_schedule_stat(e->plan, "concat_moves"),
               (int)ms_schedule_stat(e->plan, "concat_swaps"));
    free(text);
    free(jobs);
    ms_initial_fini(&layout);
    ms_schedule_free(s);
    ms_schedule_free(joint);
    ms_workload_free(w);
    ms_workload_free(joint_w);
    return rc;
}

static size_t queue_index(const md_engine *e, int64_t id)
{
    for (size_t i = 0; i < e->nqueue; i++)
        if (e->queue[i]->id == id)
            return i;
    return (size_t)-1;
}

static bool running(const md_engine *e, int64_t id)
{
    for (size_t i = 0; i < e->nrun; i++)
        if (e->run[i].job.id == id)
            return true;
    return false;
}

/* Whether an instance of ours really holds a slot of (g, p). */
static bool slots_taken(const md_engine *e, int g, ms_placement p)
{
    uint32_t mask = ms_gpu_slot_mask(e->m, p);
    if (mask & e->gpu[g].foreign_slots)
        return true;
    for (int k = 0; k < e->m->slots; k++) {
        const ei_inst *o = &e->gpu[g].inst[k];
        if (o->profile >= 0 && (ms_gpu_slot_mask(e->m, (ms_placement){o->profile, k}) & mask))
            return true;
    }
    return false;
}

/* The tasks' states: ended ones (and those cancelled before they ran); the pending ones'
 * jobs become the planned set. */
static int task_states(md_engine *e)
{
    ei_batch *b = e->batch;
    const ms_schedule *s = e->plan;
    int cap = b->nplanned, n = 0;
    bool open = true;
    for (int t = b->first_open; t < b->ntasks; t++) {
        int64_t id = b->job[s->task[t].index];
        if (b->task_state[t] == BT_RUNNING && !running(e, id))
            b->task_state[t] = BT_ENDED;
        /* Cancelled (or requeued by a stop) before it ran: nothing left to run. */
        if (b->task_state[t] == BT_PENDING && queue_index(e, id) == (size_t)-1 && !running(e, id))
            b->task_state[t] = BT_ENDED;
        if (open && b->task_state[t] == BT_ENDED)
            b->first_open = t + 1;
        else
            open = false;
        if (b->task_state[t] != BT_PENDING)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            int64_t *q = realloc(b->planned, (size_t)cap * sizeof *q);
            if (!q)
                return MS_ENOMEM;
            b->planned = q;
        }
        b->planned[n++] = id;
    }
    b->nplanned = n;
    if (n) /* planned is NULL until a job is: qsort must not see it */
        qsort(b->planned, (size_t)n, sizeof *b->planned, cmp_id);
    return MS_OK;
}

static bool inst_done(const ei_batch *b, int i)
{
    for (int k = 0; k < b->inst_n[i]; k++)
        if (b->task_state[b->order[b->inst_first[i] + k]] != BT_ENDED)
            return false;
    return true;
}

/* One pass over the running plan: ends, operations, starts. */
static int advance(md_engine *e, ms_error *err)
{
    ei_batch *b = e->batch;
    const ms_schedule *s = e->plan;
    for (int g = 0; g < e->ngpus; g++) {
        while (b->next[g] < b->nops[g] && b->inst_state[b->ops[g][b->next[g]] >> 1] ==
                                              ((b->ops[g][b->next[g]] & 1) ? BI_GONE : BI_ALIVE))
            b->next[g]++;
        for (int k = b->next[g]; k < b->nops[g]; k++) {
            int op = b->ops[g][k], i = op >> 1;
            const ms_sched_instance *in = &s->inst[i];
            ms_placement at = {in->profile, in->start_slot};
            if (op & 1) {
                if (b->inst_state[i] == BI_GONE)
                    continue;
                /* no instance there: someone else removed it (ei_destroy's "lost"); one
                 * whose last job's leftovers are being stopped waits for them */
                const ei_inst *now = &e->gpu[g].inst[in->start_slot];
                if (!inst_done(b, i) || now->state == EI_DRAINING ||
                    (now->profile >= 0 && ei_destroy(e, g, in->start_slot, err)))
                    break;
                b->inst_state[i] = BI_GONE;
            } else {
                if (b->inst_state[i] != BI_PLANNED)
                    continue;
                /* the plan frees the slots first; real times may lag behind it */
                if (e->stopping || slots_taken(e, g, at) || ei_create(e, g, at, 0, err))
                    break;
                e->gpu[g].inst[in->start_slot].state = EI_IDLE;
                b->inst_state[i] = BI_ALIVE;
            }
        }
    }
    for (int i = 0; i < s->ninst && !e->stopping; i++) {
        if (b->inst_state[i] != BI_ALIVE || b->inst_next[i] == b->inst_n[i])
            continue;
        int t = b->order[b->inst_first[i] + b->inst_next[i]];
        if (b->task_state[t] != BT_PENDING) {
            b->inst_next[i]++;
            i--; /* look at its next task */
            continue;
        }
        if (e->gpu[s->inst[i].gpu].inst[s->inst[i].start_slot].state != EI_IDLE)
            continue; /* its previous task still runs */
        size_t q = queue_index(e, b->job[s->task[t].index]);
        if (q == (size_t)-1) { /* cancelled while a backend call had mu dropped */
            b->task_state[t] = BT_ENDED;
            continue;
        }
        if (ei_start(e, q, s->inst[i].gpu,
                     (ms_placement){s->inst[i].profile, s->inst[i].start_slot}, err))
            continue;
        b->task_state[t] = BT_RUNNING;
        b->inst_next[i]++;
    }
    /* The pass's starts in one transaction; if it fails they are tried again. */
    int rc = ei_start_flush(e, err);
    if (rc)
        for (int i = 0; i < s->ninst; i++)
            for (int k = 0; k < b->inst_next[i]; k++) {
                int t = b->order[b->inst_first[i] + k];
                if (b->task_state[t] == BT_RUNNING && !running(e, b->job[s->task[t].index])) {
                    b->task_state[t] = BT_PENDING;
                    b->inst_next[i] = k;
                }
            }
    return rc;
}

/* Queued jobs the next batch may take, and the oldest one's submission time. */
static size_t unplanned_jobs(const md_engine *e, double *oldest)
{
    size_t n = 0;
    *oldest = INFINITY;
    double mono = ms_monotonic_seconds();
    for (size_t i = 0; i < e->nqueue; i++)
        if (plannable(e, e->queue[i], mono)) {
            n++;
            *oldest = fmin(*oldest, e->queue[i]->submitted);
        }
    return n;
}

int ei_batch_step(md_engine *e, ms_error *err)
{
    if (e->batch && task_states(e))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    double due = ei_batch_due(e);
    if (due <= ei_now()) {
        ms_error perr = {0};
        if (plan_batch(e, &perr))
            md_backoff_fail(&e->plan_retry, ms_monotonic_seconds(), perr.msg);
        else
            md_backoff_ok(&e->plan_retry);
    }
    return e->batch ? advance(e, err) : MS_OK;
}

double ei_batch_due(const md_engine *e)
{
    if (e->nqueue == 0 || e->stopping)
        return INFINITY;
    double oldest;
    size_t n = unplanned_jobs(e, &oldest);
    if (n == 0)
        return INFINITY;
    const md_backoff *b = &e->plan_retry; /* after a failure */
    double retry = ei_now() + (b->delay > 0 ? fmax(0, b->retry_at - ms_monotonic_seconds()) : 0);
    if (n >= (size_t)e->batch_size)
        return retry; /* due now: e.g. jobs that came while the last batch ran */
    return fmax(oldest + e->batch_period, retry);
}

char *ei_plan_text(md_engine *e)
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

json_t *ei_plan_live(md_engine *e)
{
    char *text = ei_plan_text(e);
    json_t *o = text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    json_t *tasks = json_object_get(o, "tasks"), *live = json_array();
    for (int t = 0; live && t < e->plan->ntasks && t < (int)json_array_size(tasks); t++) {
        int64_t id = e->batch->job[e->plan->task[t].index];
        bool run = running(e, id);
        if (!run && queue_index(e, id) == (size_t)-1)
            continue; /* ended: ran, or cancelled before it ran */
        json_t *k = json_array_get(tasks, (size_t)t);
        if (json_object_set_new(k, "job", json_integer(id)) ||
            json_object_set_new(k, "state", json_string(run ? "running" : "planned")) ||
            json_array_append(live, k)) {
            json_decref(live);
            live = NULL;
        }
    }
    double now = ei_now();
    json_t *clock = json_pack("{s:f, s:f}", "t0", e->plan_t0, "now", now - e->plan_t0);
    if (!o || !live || !clock) {
        json_decref(o);
        json_decref(live);
        json_decref(clock);
        return NULL;
    }
    int bad = json_object_set_new(o, "tasks", live); /* each takes its reference */
    bad |= json_object_set_new(o, "clock", clock);
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
