/* concat_join.c: paper 000 section 4's concatenation for a batch planned while another plan
 * runs (migschedd's batch mode). The running plan is fixed (its tasks started or promised);
 * the new batch keeps its plan's structure (instances, their tasks' order, each GPU's order
 * of creations and destructions) and is retimed against it: each instance is created as
 * soon as its slots are free of the running plan's instances and of the batch's own earlier
 * ones, in a gap of the GPU's one-at-a-time clock, no earlier than `now`. A batch planned
 * from what the running plan leaves (ms_schedule_join_layout) runs on the instances it
 * keeps (after their last task) and destroys the ones it does not, as planned. Reverse
 * (4.2): the batch also runs mirrored (its last configuration first), and the shorter join
 * is kept. Overlap (4.3): then moves and swaps of the batch's tasks between its same-size
 * instances, chosen as far_batches.c chooses them, each kept only if the joint makespan
 * drops. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/offline.h"

#define JOIN_DEFAULT_OPS 64

/* The batch's structure: per instance its tasks in run order; per GPU its operations
 * (instance << 1 | destroy) in run order. */
typedef struct jn_batch {
    int ninst, ntasks;
    int *tasks; /* [inst_first[i] .. + inst_n[i]): next's task indices */
    int *inst_first, *inst_n;
    bool *destroyed; /* per instance: the batch destroys it */
    int *ops, nops;  /* every GPU's operations, GPU by GPU */
} jn_batch;

/* Times of the join: the batch's instances and tasks, the running plan's instances left
 * alive that the batch needs destroyed. */
typedef struct jn_times {
    double *cs, *ce, *ds, *de; /* per batch instance (ds = NAN: alive at the end) */
    double *ts;                /* per batch task (by next's index in s->task) */
    double *run_ds;            /* per running instance: its new destruction (NAN: none) */
    double makespan;
} jn_times;

typedef struct jn_ctx {
    const ms_schedule *run, *next;
    const ms_workload *w;
    double now;
    /* per GPU busy intervals of the clock, [a, b) pairs, kept sorted */
    double *busy;
    int *nbusy, cap;
    /* the running plan's instances still there at `now` (the rest cannot meet the batch),
     * with their last task's end */
    int *live, nlive;
    double *last_end;
    /* per batch instance present before it (no creation): the running plan's instance it
     * is (alive at that plan's end, same placement); -1 for the others (one with no
     * creation that the running plan does not hold is created like them) */
    int *same;
} jn_ctx;

static double task_time(const jn_ctx *c, int t, int inst)
{
    const ms_sched_task *k = &c->next->task[t];
    return c->w->tasks[k->index].time[c->next->gpu.profiles[c->next->inst[inst].profile].slices];
}

/* The earliest t >= ready at which [t, t + d) is free on GPU g's clock; reserved. */
static double reserve(jn_ctx *c, int g, double ready, double d)
{
    double *b = c->busy + (size_t)g * c->cap * 2;
    int n = c->nbusy[g], at = 0;
    double t = ready;
    for (; at < n; at++) {
        if (b[2 * at + 1] <= t)
            continue;
        if (b[2 * at] >= t + d)
            break;
        t = b[2 * at + 1];
    }
    memmove(b + 2 * at + 2, b + 2 * at, (size_t)(n - at) * 2 * sizeof *b);
    b[2 * at] = t;
    b[2 * at + 1] = t + d;
    c->nbusy[g]++;
    return t;
}

static void busy_add(jn_ctx *c, int g, double a, double b)
{
    if (!isnan(a) && b > a)
        reserve(c, g, a, b - a);
}

static bool overlaps(const ms_schedule *s, const ms_sched_instance *x, int gpu, uint32_t mask)
{
    return x->gpu == gpu &&
           (ms_gpu_slot_mask(&s->gpu, (ms_placement){x->profile, x->start_slot}) & mask);
}

/* The running plan's instances alive at `now` and each one's last task end (its creation's
 * end when it has none). */
static int find_live(jn_ctx *c)
{
    const ms_schedule *run = c->run;
    int n = run ? run->ninst : 0;
    c->live = malloc((size_t)(n + 1) * sizeof *c->live);
    c->last_end = malloc((size_t)(n + 1) * sizeof *c->last_end);
    if (!c->live || !c->last_end)
        return MS_ENOMEM;
    for (int i = 0; i < n; i++)
        c->last_end[i] = isnan(run->inst[i].create_end) ? 0 : run->inst[i].create_end;
    for (int t = 0; run && t < run->ntasks; t++)
        c->last_end[run->task[t].instance] = fmax(c->last_end[run->task[t].instance],
                                                  run->task[t].end);
    c->nlive = 0;
    for (int i = 0; i < n; i++)
        if (!(run->inst[i].destroy_end <= c->now)) /* NAN: alive at the plan's end */
            c->live[c->nlive++] = i;
    return MS_OK;
}

static bool is_initial(const ms_sched_instance *in) { return isnan(in->create_start); }

/* The running plan's instance each of the batch's initial ones is (c->same). */
static int find_same(jn_ctx *c)
{
    const ms_schedule *run = c->run, *s = c->next;
    c->same = malloc((size_t)(s->ninst + 1) * sizeof *c->same);
    if (!c->same)
        return MS_ENOMEM;
    for (int i = 0; i < s->ninst; i++) {
        const ms_sched_instance *in = &s->inst[i];
        c->same[i] = -1;
        for (int l = 0; is_initial(in) && l < c->nlive; l++) {
            const ms_sched_instance *r = &run->inst[c->live[l]];
            if (isnan(r->destroy_end) && r->gpu == in->gpu && r->profile == in->profile &&
                r->start_slot == in->start_slot)
                c->same[i] = c->live[l];
        }
    }
    return MS_OK;
}

/* Retimes batch b after the running plan, no operation before `floor`. */
static void retime(jn_ctx *c, const jn_batch *b, double floor, jn_times *x)
{
    const ms_schedule *run = c->run, *s = c->next;
    memset(c->nbusy, 0, (size_t)s->gpus * sizeof *c->nbusy);
    for (int l = 0; l < c->nlive; l++) {
        int i = c->live[l];
        busy_add(c, run->inst[i].gpu, run->inst[i].create_start, run->inst[i].create_end);
        busy_add(c, run->inst[i].gpu, run->inst[i].destroy_start, run->inst[i].destroy_end);
    }
    for (int i = 0; run && i < run->ninst; i++)
        x->run_ds[i] = NAN;
    x->makespan = run ? ms_schedule_makespan(run) : 0;
    for (int k = 0; k < b->nops; k++) {
        int i = b->ops[k] >> 1, g = s->inst[i].gpu,
            slices = s->gpu.profiles[s->inst[i].profile].slices;
        /* emptied by moves: not created at all; an initial one without tasks is left as it
         * is, or destroyed where a creation of the batch needs its slots (below) */
        if (b->inst_n[i] == 0)
            continue;
        int same = c->same[i];
        if (b->ops[k] & 1) {
            double last = same >= 0 ? fmax(floor, c->last_end[same]) : x->ce[i];
            for (int j = 0; j < b->inst_n[i]; j++)
                last = fmax(last, x->ts[b->tasks[b->inst_first[i] + j]] +
                                      task_time(c, b->tasks[b->inst_first[i] + j], i));
            x->ds[i] = reserve(c, g, last, ms_gpu_destroy_time(&s->gpu, slices));
            x->de[i] = x->ds[i] + ms_gpu_destroy_time(&s->gpu, slices);
            if (same >= 0)
                x->run_ds[same] = x->ds[i];
            continue;
        }
        if (same >= 0) { /* already there: its tasks after the running plan's */
            double t = fmax(floor, c->last_end[same]);
            for (int j = 0; j < b->inst_n[i]; j++) {
                int task = b->tasks[b->inst_first[i] + j];
                x->ts[task] = t;
                t += task_time(c, task, i);
                x->makespan = fmax(x->makespan, t);
            }
            continue;
        }
        uint32_t mask = ms_gpu_slot_mask(&s->gpu,
                                         (ms_placement){s->inst[i].profile, s->inst[i].start_slot});
        double ready = floor;
        for (int l = 0; l < c->nlive; l++) {
            int j = c->live[l];
            if (!overlaps(run, &run->inst[j], g, mask))
                continue;
            if (isnan(run->inst[j].destroy_end) && isnan(x->run_ds[j])) {
                /* alive at the running plan's end: destroyed once idle, for this batch */
                int sl = run->gpu.profiles[run->inst[j].profile].slices;
                x->run_ds[j] = reserve(c, g, fmax(c->now, c->last_end[j]),
                                       ms_gpu_destroy_time(&run->gpu, sl));
            }
            double de = isnan(run->inst[j].destroy_end)
                            ? x->run_ds[j] +
                                  ms_gpu_destroy_time(
                                      &run->gpu, run->gpu.profiles[run->inst[j].profile].slices)
                            : run->inst[j].destroy_end;
            ready = fmax(ready, de);
        }
        for (int j = 0; j < s->ninst; j++) /* the batch's own, done before in its order */
            if (j != i && !isnan(x->de[j]) && overlaps(s, &s->inst[j], g, mask))
                ready = fmax(ready, x->de[j]);
        x->cs[i] = reserve(c, g, ready, ms_gpu_create_time(&s->gpu, slices));
        x->ce[i] = x->cs[i] + ms_gpu_create_time(&s->gpu, slices);
        double t = x->ce[i];
        for (int j = 0; j < b->inst_n[i]; j++) {
            int task = b->tasks[b->inst_first[i] + j];
            x->ts[task] = t;
            t += task_time(c, task, i);
            x->makespan = fmax(x->makespan, t);
        }
    }
}

static void times_reset(jn_times *x, int ninst)
{
    for (int i = 0; i < ninst; i++)
        x->cs[i] = x->ce[i] = x->ds[i] = x->de[i] = NAN;
}

/* The batch as planned: its tasks per instance by planned start, its operations in
 * planned order (ms_schedule_ops); mirrored (paper 000 4.2's reversal): both reversed, a
 * creation becoming a destruction and back, and an instance destroyed only when a later
 * one needs its slots. */
static int batch_build(const ms_schedule *s, bool mirror, jn_batch *b)
{
    int ni = s->ninst, nt = s->ntasks;
    b->ninst = ni;
    b->ntasks = nt;
    b->tasks = malloc((size_t)(nt + 1) * sizeof *b->tasks);
    b->inst_first = calloc((size_t)ni + 1, sizeof *b->inst_first);
    b->inst_n = calloc((size_t)ni + 1, sizeof *b->inst_n);
    b->destroyed = calloc((size_t)ni + 1, sizeof *b->destroyed);
    b->ops = malloc((size_t)(2 * ni + 1) * sizeof *b->ops);
    if (!b->tasks || !b->inst_first || !b->inst_n || !b->destroyed || !b->ops)
        return MS_ENOMEM;
    ms_schedule_task_order(s, b->tasks);
    for (int t = nt - 1; t >= 0; t--) {
        int i = s->task[b->tasks[t]].instance;
        b->inst_first[i] = t;
        b->inst_n[i]++;
    }
    b->nops = 0;
    for (int g = 0; g < s->gpus; g++)
        b->nops += ms_schedule_ops(s, g, b->ops + b->nops);
    if (!mirror) {
        for (int i = 0; i < ni; i++)
            b->destroyed[i] = !isnan(s->inst[i].destroy_start);
        return MS_OK;
    }
    for (int i = 0; i < ni; i++)
        for (int l = 0, r = b->inst_n[i] - 1; l < r; l++, r--) {
            int t = b->tasks[b->inst_first[i] + l];
            b->tasks[b->inst_first[i] + l] = b->tasks[b->inst_first[i] + r];
            b->tasks[b->inst_first[i] + r] = t;
        }
    /* Reversed per GPU; an instance the batch leaves alive is created first. */
    int *m = malloc((size_t)(2 * ni + 1) * sizeof *m), k = 0;
    if (!m)
        return MS_ENOMEM;
    for (int g = 0, base = 0; g < s->gpus; g++) {
        int n = 0;
        while (base + n < b->nops && s->inst[b->ops[base + n] >> 1].gpu == g)
            n++;
        for (int i = 0; i < ni; i++)
            if (s->inst[i].gpu == g && isnan(s->inst[i].destroy_start))
                m[k++] = i << 1;
        for (int j = base + n - 1; j >= base; j--)
            if (b->ops[j] & 1)
                m[k++] = b->ops[j] & ~1;
        base += n;
    }
    /* Destructions: after an instance's tasks, right before the next creation on its
     * slots (none when no later instance needs them). */
    int nk = 0, *out = b->ops;
    for (int j = 0; j < k; j++) {
        int i = m[j] >> 1;
        uint32_t mask = ms_gpu_slot_mask(&s->gpu,
                                         (ms_placement){s->inst[i].profile, s->inst[i].start_slot});
        for (int p = 0; p < j; p++) {
            int o = m[p] >> 1;
            if (!b->destroyed[o] && o != i && s->inst[o].gpu == s->inst[i].gpu &&
                (ms_gpu_slot_mask(&s->gpu,
                                  (ms_placement){s->inst[o].profile, s->inst[o].start_slot}) &
                 mask)) {
                b->destroyed[o] = true;
                out[nk++] = o << 1 | 1;
            }
        }
        out[nk++] = m[j];
    }
    b->nops = nk;
    free(m);
    return MS_OK;
}

static void batch_free(jn_batch *b)
{
    free(b->tasks);
    free(b->inst_first);
    free(b->inst_n);
    free(b->destroyed);
    free(b->ops);
}

static int times_init(jn_times *x, int ninst, int ntasks, int nrun)
{
    x->cs = malloc((size_t)(4 * ninst + 1) * sizeof *x->cs);
    x->ts = malloc((size_t)(ntasks + 1) * sizeof *x->ts);
    x->run_ds = malloc((size_t)(nrun + 1) * sizeof *x->run_ds);
    if (!x->cs || !x->ts || !x->run_ds)
        return MS_ENOMEM;
    x->ce = x->cs + ninst;
    x->ds = x->ce + ninst;
    x->de = x->ds + ninst;
    return MS_OK;
}

static void times_free(jn_times *x)
{
    free(x->cs);
    free(x->ts);
    free(x->run_ds);
}

static double joined(jn_ctx *c, const jn_batch *b, double floor, jn_times *x)
{
    times_reset(x, b->ninst);
    retime(c, b, floor, x);
    return x->makespan;
}

/* The end of batch instance i: its last task's, or its creation's when it has none. */
static double inst_end(const jn_ctx *c, const jn_batch *b, const jn_times *x, int i)
{
    if (b->inst_n[i] == 0)
        return x->ce[i];
    int last = b->tasks[b->inst_first[i] + b->inst_n[i] - 1];
    return x->ts[last] + task_time(c, last, i);
}

/* Moves the task at position pos of instance a's list to the end of instance z's (the
 * lists are contiguous slices of one array: the task travels through the ones between). */
static void move_task(jn_batch *b, int a, int pos, int z)
{
    int from = b->inst_first[a] + pos, task = b->tasks[from];
    int to = z > a ? b->inst_first[z] + b->inst_n[z] - 1 : b->inst_first[z] + b->inst_n[z];
    if (to > from)
        memmove(b->tasks + from, b->tasks + from + 1, (size_t)(to - from) * sizeof *b->tasks);
    else
        memmove(b->tasks + to + 1, b->tasks + to, (size_t)(from - to) * sizeof *b->tasks);
    b->tasks[to] = task;
    b->inst_n[a]--;
    b->inst_n[z]++;
    int lo = a < z ? a : z, hi = a < z ? z : a;
    for (int i = lo + 1; i <= hi; i++)
        b->inst_first[i] += a < z ? -1 : 1;
}

/* One improving move or swap between the batch's same-size instances (4.3, as
 * far_batches.c's improve_pair): instances latest end first, each against the same-size
 * instance ending first, margin = makespan - its end, the task (or the pair of tasks
 * whose difference) closest to half the margin. Returns 1 move, 2 swap, 0 none. */
static int improve(jn_ctx *c, jn_batch *b, jn_times *x, double *omega)
{
    const ms_schedule *s = c->next;
    int ni = b->ninst, nc = 0;
    int *cand = malloc((size_t)(ni + 1) * sizeof *cand);
    double *end = malloc((size_t)(ni + 1) * sizeof *end);
    if (!cand || !end) {
        free(cand);
        free(end);
        return -1;
    }
    for (int i = 0; i < ni; i++) {
        end[i] = inst_end(c, b, x, i);
        if (b->inst_n[i] > 0)
            cand[nc++] = i;
    }
    for (int i = 1; i < nc; i++) /* latest end first (insertion sort: few instances) */
        for (int j = i; j > 0 && end[cand[j]] > end[cand[j - 1]]; j--) {
            int t = cand[j];
            cand[j] = cand[j - 1], cand[j - 1] = t;
        }
    int result = 0;
    for (int ci = 0; ci < nc && !result; ci++) {
        int li = cand[ci];
        int size = s->gpu.profiles[s->inst[li].profile].slices, la = -1;
        double aend = INFINITY;
        for (int j = 0; j < ni; j++)
            if (j != li && s->gpu.profiles[s->inst[j].profile].slices == size && end[j] < aend) {
                aend = end[j];
                la = j;
            }
        if (la < 0 || !(aend < *omega))
            continue;
        double margin = *omega - aend, best = INFINITY;
        int pick = -1;
        for (int k = 0; k < b->inst_n[li]; k++) {
            double t = task_time(c, b->tasks[b->inst_first[li] + k], li);
            double d = fabs(t - margin / 2);
            if (t < margin && d < best)
                best = d, pick = k;
        }
        if (pick >= 0) {
            move_task(b, li, pick, la);
            double w = joined(c, b, c->now, x);
            if (w < *omega) {
                *omega = w;
                result = 1;
                break;
            }
            move_task(b, la, b->inst_n[la] - 1, li);
            /* back at the end: put it at its old position */
            int from = b->inst_first[li] + b->inst_n[li] - 1, to = b->inst_first[li] + pick;
            int task = b->tasks[from];
            memmove(b->tasks + to + 1, b->tasks + to, (size_t)(from - to) * sizeof *b->tasks);
            b->tasks[to] = task;
            joined(c, b, c->now, x);
        }
        int pk = -1, pj = -1;
        best = INFINITY;
        for (int k = 0; k < b->inst_n[li]; k++)
            for (int j = 0; j < b->inst_n[la]; j++) {
                double d = task_time(c, b->tasks[b->inst_first[li] + k], li) -
                           task_time(c, b->tasks[b->inst_first[la] + j], la);
                if (d > 0 && d < margin && fabs(d - margin / 2) < best)
                    best = fabs(d - margin / 2), pk = k, pj = j;
            }
        if (pk >= 0) {
            int *u = &b->tasks[b->inst_first[li] + pk], *v = &b->tasks[b->inst_first[la] + pj];
            int t = *u;
            *u = *v, *v = t;
            double w = joined(c, b, c->now, x);
            if (w < *omega) {
                *omega = w;
                result = 2;
                break;
            }
            t = *u;
            *u = *v, *v = t;
            joined(c, b, c->now, x);
        }
    }
    free(cand);
    free(end);
    return result;
}

/* The joint plan: the running plan with the destructions the batch needs, then the batch's
 * instances and tasks (task indices shifted by base_task). */
static int emit(const jn_ctx *c, const jn_batch *b, const jn_times *x, int base_task,
                ms_schedule *out)
{
    const ms_schedule *s = c->next;
    for (int i = 0; c->run && i < c->run->ninst; i++)
        if (!isnan(x->run_ds[i])) {
            out->inst[i].destroy_start = x->run_ds[i];
            out->inst[i].destroy_end = x->run_ds[i] +
                                       ms_gpu_destroy_time(
                                           &s->gpu, s->gpu.profiles[out->inst[i].profile].slices);
        }
    for (int i = 0; i < s->ninst; i++) {
        if (b->inst_n[i] == 0)
            continue;
        int id = c->same[i] >= 0 ? c->same[i]
                                 : ms_schedule_add_instance(out, s->inst[i].gpu, s->inst[i].profile,
                                                            s->inst[i].start_slot, x->cs[i],
                                                            x->ce[i], x->ds[i], x->de[i]);
        if (id < 0)
            return MS_ENOMEM;
        for (int j = 0; j < b->inst_n[i]; j++) {
            int t = b->tasks[b->inst_first[i] + j];
            if (ms_schedule_add_task(out, s->task[t].index + base_task, id, x->ts[t],
                                     x->ts[t] + task_time(c, t, i)))
                return MS_ENOMEM;
        }
    }
    return MS_OK;
}

int ms_schedule_join(const ms_schedule *run, double now, const ms_schedule *next,
                     const ms_workload *next_w, int base_task, const ms_offline_options *opt,
                     ms_schedule **out, ms_error *err)
{
    *out = NULL;
    if (run && (run->gpus != next->gpus || strcmp(run->gpu.name, next->gpu.name)))
        return ms_error_set(err, MS_EINVAL,
                            "join: the plans are for different GPUs (%d x %s, "
                            "%d x %s)",
                            run->gpus, run->gpu.name, next->gpus, next->gpu.name);
    jn_ctx c = {.run = run, .next = next, .w = next_w, .now = now};
    int rc = find_live(&c);
    if (!rc)
        rc = find_same(&c);
    /* A batch that runs on or destroys the running plan's instances is not mirrored:
     * mirrored, they would come last. */
    bool mirror = true;
    for (int i = 0; !rc && i < next->ninst; i++)
        mirror = mirror && c.same[i] < 0;
    c.cap = 3 * c.nlive + 2 * next->ninst + 1; /* intervals per GPU at most */
    c.busy = malloc((size_t)next->gpus * c.cap * 2 * sizeof *c.busy);
    c.nbusy = calloc((size_t)next->gpus, sizeof *c.nbusy);
    jn_batch fwd = {0}, rev = {0};
    jn_times x = {0};
    int nrun = run ? run->ninst : 0;
    if (!rc && (!c.busy || !c.nbusy))
        rc = MS_ENOMEM;
    if (!rc)
        rc = batch_build(next, false, &fwd);
    if (!rc && mirror)
        rc = batch_build(next, true, &rev);
    if (!rc)
        rc = times_init(&x, next->ninst, next->ntasks, nrun);
    double run_end = 0; /* trivial: after the running plan's last task and operation */
    for (int i = 0; run && i < run->ninst; i++)
        run_end = fmax(run_end,
                       fmax(run->inst[i].create_end,
                            isnan(run->inst[i].destroy_end) ? 0 : run->inst[i].destroy_end));
    run_end = fmax(fmax(now, run_end), run ? ms_schedule_makespan(run) : 0);
    double w_trivial = NAN, w_reverse = NAN, w_overlap = NAN;
    int moves = 0, swaps = 0;
    jn_batch *pick = &fwd;
    double pick_floor = run_end;
    if (!rc) {
        w_trivial = joined(&c, &fwd, run_end, &x);
        if (opt->far.concat != MS_CONCAT_TRIVIAL) {
            /* the batch as planned or mirrored, whichever joins shorter (ties: as planned) */
            double wf = joined(&c, &fwd, now, &x);
            double wr = mirror ? joined(&c, &rev, now, &x) : INFINITY;
            w_reverse = fmin(wf, wr);
            if (w_reverse < w_trivial) {
                pick = wr < wf ? &rev : &fwd;
                pick_floor = now;
            }
        }
        if (opt->far.concat == MS_CONCAT_OVERLAP && pick_floor == now) {
            double omega = joined(&c, pick, now, &x);
            int max_ops = opt->far.concat_max_ops > 0 ? opt->far.concat_max_ops : JOIN_DEFAULT_OPS;
            for (int k = 0; k < max_ops; k++) {
                int r = improve(&c, pick, &x, &omega);
                if (r < 0)
                    rc = MS_ENOMEM;
                if (r <= 0)
                    break;
                r == 1 ? moves++ : swaps++;
            }
            w_overlap = omega;
        }
    }
    ms_schedule *joint = NULL;
    if (!rc) {
        joined(&c, pick, pick_floor, &x);
        joint = run ? ms_schedule_clone(run)
                    : ms_schedule_new(&next->gpu, next->gpus, next->algorithm);
        rc = joint ? emit(&c, pick, &x, base_task, joint) : MS_ENOMEM;
    }
    if (!rc) {
        ms_schedule_set_stat(joint, "makespan_trivial", w_trivial);
        ms_schedule_set_stat(joint, "concat_used",
                             pick_floor == run_end ? MS_CONCAT_TRIVIAL
                             : moves + swaps > 0   ? MS_CONCAT_OVERLAP
                                                   : MS_CONCAT_REVERSE);
        ms_schedule_set_stat(joint, "reversed", pick == &rev);
        if (opt->far.concat != MS_CONCAT_TRIVIAL)
            ms_schedule_set_stat(joint, "makespan_reverse", w_reverse);
        if (opt->far.concat == MS_CONCAT_OVERLAP) {
            ms_schedule_set_stat(joint, "makespan_overlap",
                                 isnan(w_overlap) ? w_reverse : w_overlap);
            ms_schedule_set_stat(joint, "concat_moves", moves);
            ms_schedule_set_stat(joint, "concat_swaps", swaps);
        }
        *out = joint;
    } else {
        ms_schedule_free(joint);
        ms_error_set(err, rc, "out of memory joining a batch of %d tasks", next->ntasks);
    }
    batch_free(&fwd);
    batch_free(&rev);
    times_free(&x);
    free(c.busy);
    free(c.nbusy);
    free(c.live);
    free(c.last_end);
    free(c.same);
    return rc;
}

int ms_schedule_join_layout(const ms_schedule *run, double now, ms_initial *out, ms_error *err)
{
    jn_ctx c = {.run = run, .now = now};
    int rc = find_live(&c) ? ms_error_set(err, MS_ENOMEM, "out of memory") : MS_OK;
    for (int l = 0; !rc && l < c.nlive; l++) {
        const ms_sched_instance *in = &run->inst[c.live[l]];
        if (isnan(in->destroy_end))
            rc = ms_initial_add(out, &run->gpu, in->gpu,
                                (ms_placement){in->profile, in->start_slot},
                                fmax(0, c.last_end[c.live[l]] - now), err);
    }
    free(c.live);
    free(c.last_end);
    return rc;
}
