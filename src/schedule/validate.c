/* validate.c: the schedule validator: every validity rule of DESIGN.md (Formats), each
 * violation named by its rule. Sorting makes it O(n log n) in tasks and instances; one
 * allocation holds all its scratch, since environments validate every episode they end. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/schedule.h"

/* At most this many violations are kept; the return value still counts all of them. */
#define KEEP_MAX 1000

typedef struct vctx {
    const ms_schedule *s;
    const ms_workload *w;
    ms_validation *out;
    int count;
    bool *inst_ok;            /* times and placement usable by the cross-instance checks */
    bool *task_ok;            /* times, index and instance usable */
    int *ord;                 /* ntasks + 1: task order of check_task_overlap */
    struct span *sp, *sp_tmp; /* room for every slot span (and a sort's merge buffer) */
    int *pairs;               /* room for 2 per span: the sweep's overlaps */
} vctx;

/* Comparisons forgive rounding: a is after b when a > b + tol(a, b). (Not fmax, a call:
 * where b is NaN, m differs from fmax's, but after is false either way.) */
static double tol(double a, double b)
{
    double fa = fabs(a), fb = fabs(b), m = fa > fb ? fa : fb;
    return 1e-9 * (isfinite(m) && m > 1.0 ? m : 1.0);
}

static bool after(double a, double b) { return a > b + tol(a, b); }

static void report(vctx *c, const char *rule, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void report(vctx *c, const char *rule, const char *fmt, ...)
{
    c->count++;
    ms_validation *o = c->out;
    if (!o || o->n >= KEEP_MAX)
        return;
    if (o->n == o->cap) {
        int cap = o->cap ? o->cap * 2 : 16;
        ms_violation *v = realloc(o->v, (size_t)cap * sizeof *v);
        if (!v)
            return;
        o->v = v;
        o->cap = cap;
    }
    ms_violation *v = &o->v[o->n++];
    snprintf(v->rule, sizeof v->rule, "%s", rule);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
}

/* "instance 2 (gpu 0, 3g.20gb@4)"; profile may be out of range. */
static const char *inst_label(const vctx *c, int k, char *buf, size_t len)
{
    const ms_sched_instance *in = &c->s->inst[k];
    const ms_gpu_model *g = &c->s->gpu;
    if (in->profile >= 0 && in->profile < g->nprofiles)
        snprintf(buf, len, "instance %d (gpu %d, %s@%d)", k, in->gpu, g->profiles[in->profile].name,
                 in->start_slot);
    else
        snprintf(buf, len, "instance %d (gpu %d, profile #%d@%d)", k, in->gpu, in->profile,
                 in->start_slot);
    return buf;
}

static const char *task_label(const vctx *c, int j, char *buf, size_t len)
{
    int idx = c->s->task[j].index;
    if (idx >= 0 && idx < c->w->n)
        snprintf(buf, len, "task %d (%s)", idx, c->w->tasks[idx].name);
    else
        snprintf(buf, len, "task index %d", idx);
    return buf;
}

/* A lifetime end for messages: null reads as "start" (present before the plan) or "end". */
static const char *when(double t, const char *null_word, char *buf, size_t len)
{
    if (isnan(t))
        return null_word;
    snprintf(buf, len, "%.9g", t);
    return buf;
}

static int inst_slices(const vctx *c, int k)
{
    return c->s->gpu.profiles[c->s->inst[k].profile].slices;
}

/* Times: null pairs together, non-negative, ordered create <= create_end <= destroy. */
static bool check_instance_times(vctx *c, int k)
{
    const ms_sched_instance *in = &c->s->inst[k];
    char l[96];
    bool cnull = isnan(in->create_start) && isnan(in->create_end);
    bool dnull = isnan(in->destroy_start) && isnan(in->destroy_end);
    bool cfin = isfinite(in->create_start) && isfinite(in->create_end);
    bool dfin = isfinite(in->destroy_start) && isfinite(in->destroy_end);
    const char *why = NULL;
    if (!(cnull || cfin) || !(dnull || dfin))
        why = "create/destroy times must be both numbers or both null";
    else if (cfin && (in->create_start < 0 || after(in->create_start, in->create_end)))
        why = "creation must satisfy 0 <= create_start <= create_end";
    else if (dfin && (in->destroy_start < 0 || after(in->destroy_start, in->destroy_end)))
        why = "destruction must satisfy 0 <= destroy_start <= destroy_end";
    else if (cfin && dfin && after(in->create_end, in->destroy_start))
        why = "destroy_start must not precede create_end";
    if (why)
        report(c, MS_RULE_TIMES, "%s: %s (create %.9g-%.9g, destroy %.9g-%.9g)",
               inst_label(c, k, l, sizeof l), why, in->create_start, in->create_end,
               in->destroy_start, in->destroy_end);
    return !why;
}

static bool check_placement(vctx *c, int k)
{
    const ms_sched_instance *in = &c->s->inst[k];
    char l[96];
    if (in->gpu < 0 || in->gpu >= c->s->gpus) {
        report(c, MS_RULE_PLACEMENT, "%s: gpu %d outside 0..%d", inst_label(c, k, l, sizeof l),
               in->gpu, c->s->gpus - 1);
        return false;
    }
    if (!ms_gpu_placement_allowed(&c->s->gpu, (ms_placement){in->profile, in->start_slot})) {
        report(c, MS_RULE_PLACEMENT, "%s: start slot %d is not an allowed placement on %s",
               inst_label(c, k, l, sizeof l), in->start_slot, c->s->gpu.name);
        return false;
    }
    return true;
}

static void check_reconfig_duration(vctx *c, int k)
{
    const ms_sched_instance *in = &c->s->inst[k];
    int sl = inst_slices(c, k);
    double need[2] = {ms_gpu_create_time(&c->s->gpu, sl), ms_gpu_destroy_time(&c->s->gpu, sl)};
    double from[2] = {in->create_start, in->destroy_start};
    double to[2] = {in->create_end, in->destroy_end};
    static const char *what[2] = {"creation", "destruction"};
    char l[96];
    for (int i = 0; i < 2; i++)
        if (isfinite(from[i]) && after(need[i], to[i] - from[i]))
            report(c, MS_RULE_RECONFIG_DURATION, "%s: %s %.9g-%.9g lasts %.9g s, below %.9g s",
                   inst_label(c, k, l, sizeof l), what[i], from[i], to[i], to[i] - from[i],
                   need[i]);
}

static void check_instances(vctx *c)
{
    for (int k = 0; k < c->s->ninst; k++) {
        bool times = check_instance_times(c, k);
        bool place = check_placement(c, k);
        if (times && place)
            check_reconfig_duration(c, k);
        c->inst_ok[k] = times && place;
    }
}

/* Per task: times, index, instance reference, duration; counts per input index. */
static void check_task(vctx *c, int j, int *seen)
{
    const ms_sched_task *t = &c->s->task[j];
    char l[96], il[96];
    bool ok = true;
    if (!isfinite(t->start) || !isfinite(t->end) || t->start < 0 || after(t->start, t->end)) {
        report(c, MS_RULE_TIMES, "%s: start %.9g, end %.9g: need 0 <= start <= end",
               task_label(c, j, l, sizeof l), t->start, t->end);
        ok = false;
    }
    if (t->index < 0 || t->index >= c->w->n) {
        report(c, MS_RULE_TASK_DUPLICATE, "%s: not a task of the workload (it has %d)",
               task_label(c, j, l, sizeof l), c->w->n);
        ok = false;
    } else if (seen[t->index]++) {
        report(c, MS_RULE_TASK_DUPLICATE, "%s scheduled again at %.9g-%.9g",
               task_label(c, j, l, sizeof l), t->start, t->end);
    }
    if (t->instance < 0 || t->instance >= c->s->ninst) {
        report(c, MS_RULE_TASK_INSTANCE, "%s: instance %d does not exist",
               task_label(c, j, l, sizeof l), t->instance);
        ok = false;
    }
    c->task_ok[j] = ok;
    if (!ok || !c->inst_ok[t->instance])
        return;
    int sl = inst_slices(c, t->instance);
    double want = c->w->tasks[t->index].time[sl], got = t->end - t->start;
    if (!isfinite(want))
        report(c, MS_RULE_TASK_DURATION, "%s cannot run on %d slices (%s)",
               task_label(c, j, l, sizeof l), sl, inst_label(c, t->instance, il, sizeof il));
    else if (fabs(got - want) > 1e-9 * want + 4 * DBL_EPSILON * fabs(t->end))
        report(c, MS_RULE_TASK_DURATION, "%s on %s: %.9g-%.9g lasts %.12g s, not %.12g s",
               task_label(c, j, l, sizeof l), inst_label(c, t->instance, il, sizeof il), t->start,
               t->end, got, want);
}

/* A task lies inside [create_end, destroy_start]; one still running at destroy_start
 * breaks destroy-before-task, one starting after it or before create_end task-lifetime. */
static void check_lifetime(vctx *c, int j)
{
    const ms_sched_task *t = &c->s->task[j];
    const ms_sched_instance *in = &c->s->inst[t->instance];
    char l[96], il[96];
    if (isfinite(in->create_end) && after(in->create_end, t->start))
        report(c, MS_RULE_TASK_LIFETIME, "%s starts at %.9g on %s before its creation ends at %.9g",
               task_label(c, j, l, sizeof l), t->start, inst_label(c, t->instance, il, sizeof il),
               in->create_end);
    else if (isfinite(in->destroy_start) && after(t->start, in->destroy_start))
        report(c, MS_RULE_TASK_LIFETIME,
               "%s starts at %.9g on %s after its destruction began at %.9g",
               task_label(c, j, l, sizeof l), t->start, inst_label(c, t->instance, il, sizeof il),
               in->destroy_start);
    else if (isfinite(in->destroy_start) && after(t->end, in->destroy_start))
        report(c, MS_RULE_DESTROY_BEFORE_TASK, "%s destroyed from %.9g while %s runs until %.9g",
               inst_label(c, t->instance, il, sizeof il), in->destroy_start,
               task_label(c, j, l, sizeof l), t->end);
}

static int cmp_task_on_instance(const void *pa, const void *pb, void *arg)
{
    const ms_schedule *s = arg;
    const ms_sched_task *a = &s->task[*(const int *)pa], *b = &s->task[*(const int *)pb];
    if (a->instance != b->instance)
        return a->instance < b->instance ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->end > b->end) - (a->end < b->end);
}

/* Tasks of one instance, sorted by start, never overlap (compare with the latest end). */
static void check_task_overlap(vctx *c)
{
    int n = 0, *ord = c->ord;
    for (int j = 0; j < c->s->ntasks; j++)
        if (c->task_ok[j] && c->inst_ok[c->s->task[j].instance])
            ord[n++] = j;
    if (n > 32)
        qsort_r(ord, (size_t)n, sizeof *ord, cmp_task_on_instance, (void *)c->s);
    else /* an episode's few tasks: insertion, stable like glibc's merge sort, no calls */
        for (int i = 1; i < n; i++) {
            int x = ord[i], j = i;
            for (; j > 0 && cmp_task_on_instance(&ord[j - 1], &x, (void *)c->s) > 0; j--)
                ord[j] = ord[j - 1];
            ord[j] = x;
        }
    char l1[96], l2[96], il[96];
    for (int a = 1, last = n ? ord[0] : 0; a < n; a++) {
        const ms_sched_task *p = &c->s->task[last], *q = &c->s->task[ord[a]];
        if (p->instance != q->instance) {
            last = ord[a];
            continue;
        }
        if (after(p->end, q->start))
            report(c, MS_RULE_INSTANCE_OVERLAP, "%s: %s (%.9g-%.9g) overlaps %s (%.9g-%.9g)",
                   inst_label(c, q->instance, il, sizeof il), task_label(c, last, l1, sizeof l1),
                   p->start, p->end, task_label(c, ord[a], l2, sizeof l2), q->start, q->end);
        if (q->end > p->end)
            last = ord[a];
    }
}

/* An interval of one GPU resource: a memory slot's occupancy or a reconfiguration. */
typedef struct span {
    int key; /* gpu * MS_MAX_SLOTS + slot, or gpu */
    int inst;
    int kind; /* 0 creation, 1 destruction (reconfiguration spans) */
    double lo, hi;
} span;

static int cmp_span(const span *a, const span *b)
{
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return a->inst - b->inst;
}

static int cmp_pair(const void *pa, const void *pb)
{
    const int *a = pa, *b = pb;
    return a[0] != b[0] ? a[0] - b[0] : a[1] - b[1];
}

/* Sorts a[0..n) stably (as glibc's merge sort qsort does, so ties keep their order):
 * insertion-sorted runs merged through tmp, a merge skipped where its halves are already in
 * order, so the nearly sorted spans of a plan cost about n comparisons. */
static void sort_spans(span *a, int n, span *tmp)
{
    enum { RUN = 16 };
    for (int lo = 0; lo < n; lo += RUN)
        for (int i = lo + 1; i < n && i < lo + RUN; i++) {
            span x = a[i];
            int j = i;
            for (; j > lo && cmp_span(&a[j - 1], &x) > 0; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    for (int w = RUN; w < n; w *= 2)
        for (int lo = 0; lo + w < n; lo += 2 * w) {
            int mid = lo + w, hi = mid + w < n ? mid + w : n;
            if (cmp_span(&a[mid - 1], &a[mid]) <= 0)
                continue;
            memcpy(tmp, a + lo, (size_t)w * sizeof *a);
            int i = 0, j = mid, k = lo;
            while (i < w && j < hi)
                a[k++] = cmp_span(&a[j], &tmp[i]) < 0 ? a[j++] : tmp[i++];
            while (i < w)
                a[k++] = tmp[i++];
        }
}

/* Sorts spans and, per key, finds each span starting before the latest end so far:
 * pairs[2i], pairs[2i+1] are the positions (in the sorted sp) of such an overlap. */
static int sweep(span *sp, int n, span *tmp, int *pairs)
{
    sort_spans(sp, n, tmp);
    int np = 0;
    for (int a = 1, last = 0; a < n; a++) {
        if (sp[a].key != sp[last].key) {
            last = a;
            continue;
        }
        if (after(sp[last].hi, sp[a].lo)) {
            pairs[2 * np] = last;
            pairs[2 * np + 1] = a;
            np++;
        }
        if (sp[a].hi > sp[last].hi)
            last = a;
    }
    return np;
}

/* Instances whose slots overlap on one GPU have disjoint [create_start, destroy_end).
 * A pair sharing several slots is found once per slot and reported once. The spans go in
 * slot by slot (instances usually come in creation order), so they are nearly sorted. */
static void check_slot_conflicts(vctx *c)
{
    const ms_schedule *s = c->s;
    span *sp = c->sp;
    int *pairs = c->pairs, n = 0;
    uint32_t *mask = (uint32_t *)c->sp_tmp; /* free until the sweep */
    for (int k = 0; k < s->ninst; k++)
        mask[k] = c->inst_ok[k] ? ms_gpu_slot_mask(&s->gpu, (ms_placement){s->inst[k].profile,
                                                                           s->inst[k].start_slot})
                                : 0;
    for (int q = 0; q < s->gpu.slots; q++)
        for (int k = 0; k < s->ninst; k++) {
            const ms_sched_instance *in = &s->inst[k];
            if (mask[k] & (1u << q))
                sp[n++] = (span){in->gpu * MS_MAX_SLOTS + q, k, 0,
                                 isnan(in->create_start) ? -INFINITY : in->create_start,
                                 isnan(in->destroy_end) ? INFINITY : in->destroy_end};
        }
    int np = sweep(sp, n, c->sp_tmp, pairs);
    for (int i = 0; i < np; i++) {
        int a = sp[pairs[2 * i]].inst, b = sp[pairs[2 * i + 1]].inst;
        pairs[2 * i] = a < b ? a : b;
        pairs[2 * i + 1] = a < b ? b : a;
    }
    qsort(pairs, (size_t)np, 2 * sizeof *pairs, cmp_pair);
    char l1[96], l2[96], t[4][32];
    for (int i = 0; i < np; i++) {
        int a = pairs[2 * i], b = pairs[2 * i + 1];
        if (i && a == pairs[2 * i - 2] && b == pairs[2 * i - 1])
            continue;
        const ms_sched_instance *ia = &s->inst[a], *ib = &s->inst[b];
        report(c, MS_RULE_SLOT_CONFLICT, "%s alive %s-%s and %s alive %s-%s share memory slots",
               inst_label(c, a, l1, sizeof l1), when(ia->create_start, "start", t[0], 32),
               when(ia->destroy_end, "end", t[1], 32), inst_label(c, b, l2, sizeof l2),
               when(ib->create_start, "start", t[2], 32), when(ib->destroy_end, "end", t[3], 32));
    }
}

/* On each GPU the driver runs creations and destructions one at a time (paper 000 2.1). */
static void check_reconfig_serial(vctx *c)
{
    const ms_schedule *s = c->s;
    span *sp = c->sp;
    int *pairs = c->pairs, n = 0;
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        if (!c->inst_ok[k])
            continue;
        if (isfinite(in->create_start))
            sp[n++] = (span){in->gpu, k, 0, in->create_start, in->create_end};
        if (isfinite(in->destroy_start))
            sp[n++] = (span){in->gpu, k, 1, in->destroy_start, in->destroy_end};
    }
    int np = sweep(sp, n, c->sp_tmp, pairs);
    static const char *what[2] = {"creation", "destruction"};
    char l1[96], l2[96];
    for (int i = 0; i < np; i++) {
        const span *a = &sp[pairs[2 * i]], *b = &sp[pairs[2 * i + 1]];
        report(c, MS_RULE_RECONFIG_SERIAL,
               "gpu %d: %s of %s (%.9g-%.9g) overlaps %s of %s (%.9g-%.9g)", s->inst[a->inst].gpu,
               what[a->kind], inst_label(c, a->inst, l1, sizeof l1), a->lo, a->hi, what[b->kind],
               inst_label(c, b->inst, l2, sizeof l2), b->lo, b->hi);
    }
}

static void check_missing(vctx *c, const int *seen)
{
    for (int i = 0; i < c->w->n; i++)
        if (!seen[i])
            report(c, MS_RULE_TASK_MISSING, "task %d (%s) is not scheduled", i,
                   c->w->tasks[i].name);
}

/* The plan's instances without a creation are exactly the layout's; a busy one runs no task
 * and is not destroyed before it is free. */
static void check_initial(vctx *c, const ms_initial *l)
{
    const ms_schedule *s = c->s;
    char lab[96], lab2[96];
    bool *matched = calloc((size_t)(l ? l->n : 0) + 1, sizeof *matched);
    double *busy = calloc((size_t)s->ninst + 1, sizeof *busy); /* per instance, 0: none */
    if (!matched || !busy) {
        report(c, "out-of-memory", "out of memory while validating");
        free(matched);
        free(busy);
        return;
    }
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        if (!c->inst_ok[k] || !isnan(in->create_start))
            continue;
        int at = -1;
        for (int i = 0; l && i < l->n && at < 0; i++)
            if (!matched[i] && l->inst[i].gpu == in->gpu && l->inst[i].at.profile == in->profile &&
                l->inst[i].at.start == in->start_slot)
                at = i;
        if (at < 0) {
            report(c, MS_RULE_INITIAL,
                   "%s has no creation, but the GPUs do not hold it before "
                   "the plan",
                   inst_label(c, k, lab, sizeof lab));
            continue;
        }
        matched[at] = true;
        busy[k] = l->inst[at].busy_until;
        if (after(busy[k], in->destroy_start))
            report(c, MS_RULE_INITIAL, "%s is destroyed at %.9g but busy until %.9g",
                   inst_label(c, k, lab, sizeof lab), in->destroy_start, busy[k]);
    }
    for (int j = 0; j < s->ntasks; j++) { /* one pass, however many instances are busy */
        int k = s->task[j].instance;
        if (c->task_ok[j] && busy[k] > 0 && after(busy[k], s->task[j].start))
            report(c, MS_RULE_INITIAL, "%s starts at %.9g on %s, busy until %.9g",
                   task_label(c, j, lab, sizeof lab), s->task[j].start,
                   inst_label(c, k, lab2, sizeof lab2), busy[k]);
    }
    for (int i = 0; l && i < l->n; i++)
        if (!matched[i])
            report(c, MS_RULE_INITIAL,
                   "gpu %d holds %s at slot %d before the plan, which the "
                   "plan does not list",
                   l->inst[i].gpu, s->gpu.profiles[l->inst[i].at.profile].name,
                   l->inst[i].at.start);
    free(matched);
    free(busy);
}

/* One block for all of c's scratch and seen (per workload task, zeroed with the flags);
 * NULL when out of memory. Spans: MS_MAX_SLOTS per instance covers both sweeps (2 per
 * instance at most). */
static void *alloc_scratch(vctx *c, int **seen)
{
    size_t nsp = (size_t)c->s->ninst * MS_MAX_SLOTS + 1;
    size_t o_tmp = nsp * sizeof(span), o_pairs = 2 * o_tmp;
    size_t o_ord = o_pairs + 2 * nsp * sizeof(int);
    size_t o_seen = o_ord + ((size_t)c->s->ntasks + 1) * sizeof(int);
    size_t o_inst = o_seen + ((size_t)c->w->n + 1) * sizeof(int);
    size_t o_task = o_inst + (size_t)c->s->ninst + 1;
    size_t end = o_task + (size_t)c->s->ntasks + 1;
    char *b = malloc(end);
    if (!b)
        return NULL;
    memset(b + o_seen, 0, end - o_seen);
    c->sp = (span *)b;
    c->sp_tmp = (span *)(b + o_tmp);
    c->pairs = (int *)(b + o_pairs);
    c->ord = (int *)(b + o_ord);
    *seen = (int *)(b + o_seen);
    c->inst_ok = (bool *)(b + o_inst);
    c->task_ok = (bool *)(b + o_task);
    return b;
}

static int validate(const ms_schedule *s, const ms_workload *w, const ms_initial *initial,
                    bool check_layout, ms_validation *out)
{
    vctx c = {.s = s, .w = w, .out = out};
    if (out)
        *out = (ms_validation){0, 0, NULL};
    int *seen;
    void *scratch = alloc_scratch(&c, &seen);
    if (!scratch) { /* a schedule that cannot be checked is not accepted */
        report(&c, "out-of-memory", "out of memory while validating");
        return c.count;
    }
    check_instances(&c);
    for (int j = 0; j < s->ntasks; j++) {
        check_task(&c, j, seen);
        if (c.task_ok[j] && c.inst_ok[s->task[j].instance])
            check_lifetime(&c, j);
    }
    check_missing(&c, seen);
    check_task_overlap(&c);
    check_slot_conflicts(&c);
    check_reconfig_serial(&c);
    if (check_layout)
        check_initial(&c, initial);
    free(scratch);
    return c.count;
}

int ms_schedule_validate(const ms_schedule *s, const ms_workload *w, ms_validation *out)
{
    return validate(s, w, NULL, false, out);
}

int ms_schedule_validate_initial(const ms_schedule *s, const ms_workload *w,
                                 const ms_initial *initial, ms_validation *out)
{
    return validate(s, w, initial, true, out);
}

int ms_schedule_match_workload(const ms_schedule *s, const ms_workload *w, ms_error *err)
{
    for (int j = 0; j < s->ntasks; j++) {
        const ms_sched_task *t = &s->task[j];
        if (t->index < 0 || t->index >= w->n)
            return ms_error_set(err, MS_EINVAL,
                                "tasks[%d].index: %d, but the workload has %d task%s "
                                "(a plan made for another workload?)",
                                j, t->index, w->n, w->n == 1 ? "" : "s");
        if (t->name && strcmp(t->name, w->tasks[t->index].name))
            return ms_error_set(err, MS_EINVAL,
                                "tasks[%d]: the plan's task %d is '%s' but the workload's is "
                                "'%s' (rows reordered or renamed since the plan was made?)",
                                j, t->index, t->name, w->tasks[t->index].name);
    }
    return MS_OK;
}

void ms_validation_fini(ms_validation *v)
{
    if (!v)
        return;
    free(v->v);
    *v = (ms_validation){0, 0, NULL};
}
