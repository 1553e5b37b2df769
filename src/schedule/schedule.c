/* schedule.c: the schedule (plan) type: instances with lifetimes, tasks on instances. */
#include "migsched/schedule.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

ms_schedule *ms_schedule_new(const ms_gpu_model *gpu, int gpus, const char *algorithm)
{
    ms_schedule *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->gpu = *gpu;
    s->gpus = gpus;
    snprintf(s->algorithm, sizeof s->algorithm, "%s", algorithm ? algorithm : "");
    return s;
}

void ms_schedule_clear(ms_schedule *s)
{
    for (int i = 0; i < s->ntasks; i++)
        free(s->task[i].name);
    s->ninst = s->ntasks = s->nstats = 0;
}

void ms_schedule_free(ms_schedule *s)
{
    if (!s)
        return;
    ms_schedule_clear(s);
    free(s->inst);
    free(s->task);
    free(s);
}

ms_schedule *ms_schedule_clone(const ms_schedule *s)
{
    ms_schedule *c = malloc(sizeof *c);
    if (!c)
        return NULL;
    *c = *s;
    c->inst = NULL;
    c->task = NULL;
    c->ntasks = 0; /* counts the tasks copied, so that a failure frees only those */
    c->inst_cap = s->ninst;
    c->task_cap = s->ntasks;
    if (s->ninst && !(c->inst = malloc((size_t)s->ninst * sizeof *c->inst)))
        goto fail;
    if (s->ntasks && !(c->task = malloc((size_t)s->ntasks * sizeof *c->task)))
        goto fail;
    if (s->ninst)
        memcpy(c->inst, s->inst, (size_t)s->ninst * sizeof *c->inst);
    for (int i = 0; i < s->ntasks; i++) {
        c->task[i] = s->task[i];
        c->task[i].name = NULL;
        c->ntasks = i + 1;
        if (s->task[i].name && !(c->task[i].name = strdup(s->task[i].name)))
            goto fail;
    }
    return c;
fail:
    ms_schedule_free(c);
    return NULL;
}

/* Grows *arr (of *cap elements of size elem) to hold at least n + 1. */
static int grow(void **arr, int *cap, int n, size_t elem)
{
    if (n < *cap)
        return 0;
    int ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*arr, (size_t)ncap * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = ncap;
    return 0;
}

int ms_schedule_add_instance(ms_schedule *s, int gpu, int profile, int start_slot,
                             double create_start, double create_end, double destroy_start,
                             double destroy_end)
{
    if (grow((void **)&s->inst, &s->inst_cap, s->ninst, sizeof *s->inst))
        return -1;
    int id = s->ninst++;
    s->inst[id] = (ms_sched_instance){id,           gpu,        profile,       start_slot,
                                      create_start, create_end, destroy_start, destroy_end};
    return id;
}

int ms_schedule_add_task(ms_schedule *s, int index, int instance, double start, double end)
{
    if (grow((void **)&s->task, &s->task_cap, s->ntasks, sizeof *s->task))
        return MS_ENOMEM;
    s->task[s->ntasks++] = (ms_sched_task){index, instance, start, end, NULL};
    return MS_OK;
}

void ms_schedule_set_stat(ms_schedule *s, const char *key, double value)
{
    for (int i = 0; i < s->nstats; i++)
        if (!strcmp(s->stats[i].key, key)) {
            s->stats[i].value = value;
            return;
        }
    if (s->nstats == MS_MAX_STATS)
        return; /* a fixed table: the algorithms report a handful of numbers */
    /* snprintf's "%s" without its cost (environments set stats on every episode). */
    size_t len = strnlen(key, sizeof s->stats[0].key - 1);
    memcpy(s->stats[s->nstats].key, key, len);
    s->stats[s->nstats].key[len] = 0;
    s->stats[s->nstats++].value = value;
}

double ms_schedule_stat(const ms_schedule *s, const char *key)
{
    for (int i = 0; i < s->nstats; i++)
        if (!strcmp(s->stats[i].key, key))
            return s->stats[i].value;
    return NAN;
}

void ms_schedule_drop_timings(ms_schedule *s)
{
    static const char suffix[] = "_seconds";
    int kept = 0;
    for (int i = 0; i < s->nstats; i++) {
        size_t len = strlen(s->stats[i].key);
        if (len >= sizeof suffix - 1 &&
            !strcmp(s->stats[i].key + len - (sizeof suffix - 1), suffix))
            continue;
        s->stats[kept++] = s->stats[i];
    }
    s->nstats = kept;
}

/* NaN sorts first, so the order is total even for broken times. */
static int cmp_time(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(b) - isnan(a);
    return (a > b) - (a < b);
}

static int cmp_task(const void *pa, const void *pb)
{
    const ms_sched_task *a = pa, *b = pb;
    int c = cmp_time(a->start, b->start);
    if (!c)
        c = (a->index > b->index) - (a->index < b->index);
    if (!c)
        c = (a->instance > b->instance) - (a->instance < b->instance);
    return c;
}

/* Instances keep their order and ids (callers may hold ids); only the task order, which
 * schedulers build in whatever order they place tasks, is made canonical. */
void ms_schedule_normalize(ms_schedule *s)
{
    for (int k = 0; k < s->ninst; k++)
        s->inst[k].id = k;
    if (s->ntasks)
        qsort(s->task, (size_t)s->ntasks, sizeof *s->task, cmp_task);
}

double ms_schedule_makespan(const ms_schedule *s)
{
    double m = 0.0;
    for (int i = 0; i < s->ntasks; i++)
        if (s->task[i].end > m)
            m = s->task[i].end;
    return m;
}

/* Planned order of operations: an instance present at the start first, then by time, at
 * equal times a destruction first (it frees the slots a creation needs), then by id. */
static double op_time(const ms_schedule *s, int op)
{
    const ms_sched_instance *in = &s->inst[op >> 1];
    return op & 1 ? in->destroy_start : isnan(in->create_start) ? -INFINITY : in->create_start;
}

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

void ms_schedule_sort_ops(const ms_schedule *s, int *ops, int n)
{
    if (n > 1)
        qsort_r(ops, (size_t)n, sizeof *ops, cmp_op, (void *)s);
}

int ms_schedule_ops(const ms_schedule *s, int gpu, int *ops)
{
    int k = 0;
    for (int i = 0; i < s->ninst; i++) {
        if (s->inst[i].gpu != gpu)
            continue;
        ops[k++] = i << 1;
        if (!isnan(s->inst[i].destroy_start))
            ops[k++] = i << 1 | 1;
    }
    ms_schedule_sort_ops(s, ops, k);
    return k;
}

static int cmp_task_run(const void *a, const void *b, void *ctx)
{
    const ms_schedule *s = ctx;
    const ms_sched_task *x = &s->task[*(const int *)a], *y = &s->task[*(const int *)b];
    if (x->instance != y->instance)
        return x->instance - y->instance;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->index - y->index;
}

void ms_schedule_task_order(const ms_schedule *s, int *order)
{
    for (int t = 0; t < s->ntasks; t++)
        order[t] = t;
    if (s->ntasks > 1)
        qsort_r(order, (size_t)s->ntasks, sizeof *order, cmp_task_run, (void *)s);
}
