/* far_engine.c: FAR's timing engine: from task lists on tree nodes to creation,
 * destruction and task times, with one reconfiguration clock per GPU (Algorithm 1's
 * reconfig_end, replayed for any plan: after refinement, reversal or several batches). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "far_internal.h"

typedef struct far_op {
    double key;
    int gpu, seq, inst;
    int destroy; /* 0 = create, 1 = destroy */
} far_op;

static bool op_less(const far_op *a, const far_op *b)
{
    if (a->key != b->key)
        return a->key < b->key;
    if (a->gpu != b->gpu)
        return a->gpu < b->gpu;
    if (a->seq != b->seq)
        return a->seq < b->seq;
    return a->destroy < b->destroy;
}

static void heap_push(far_op *h, int *n, far_op op)
{
    int i = (*n)++;
    while (i > 0) {
        int up = (i - 1) / 2;
        if (!op_less(&op, &h[up]))
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = op;
}

static far_op heap_pop(far_op *h, int *n)
{
    far_op top = h[0], last = h[--*n];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && op_less(&h[c + 1], &h[c]))
            c++;
        if (!op_less(&h[c], &last))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/* An initial instance as a run sees it. */
typedef struct far_init {
    int gpu;
    ms_placement at;
    uint32_t slots;
    double busy;
    int kept_by;                       /* the engine instance that is it, -1: none */
    double destroy_start, destroy_end; /* NAN: not destroyed */
} far_init;

/* Reads the initial layout for a run from batch b0 (none unless b0 is 0) and matches each
 * initial instance with the first-layer instance of batch 0 at its placement. */
static int match_initial(far_engine *e, const far_plan *p, int b0)
{
    e->ninit = 0;
    for (int i = 0; i < e->n; i++)
        e->inst[i].keeps = -1;
    const ms_initial *l = b0 == 0 ? e->initial : NULL;
    if (!l || l->n == 0)
        return MS_OK;
    if (l->n > e->init_cap) {
        far_init *in = realloc(e->init, (size_t)l->n * sizeof *in);
        if (!in)
            return MS_ENOMEM;
        e->init = in;
        e->init_cap = l->n;
    }
    for (int j = 0; j < l->n; j++) {
        const ms_initial_inst *x = &l->inst[j];
        if (x->gpu >= p->gpus)
            continue;
        far_init *f = &e->init[e->ninit];
        *f = (far_init){x->gpu, x->at, ms_gpu_slot_mask(p->gpu, x->at), x->busy_until, -1,
                        NAN,    NAN};
        for (int i = 0; i < e->n && f->kept_by < 0; i++) {
            far_inst *in = &e->inst[i];
            ms_placement at = p->gpu->tree.node[in->node].at;
            if (in->batch == 0 && in->gpu == x->gpu && in->npred == 0 && in->cont < 0 &&
                at.profile == x->at.profile && at.start == x->at.start) {
                f->kept_by = i;
                in->keeps = e->ninit;
            }
        }
        e->ninit++;
    }
    return MS_OK;
}

/* Before a creation on `slots` of GPU g: the initial instances there that the plan does
 * not keep are destroyed, each once free, on the GPU's clock. */
static void clear_initial(far_engine *e, const ms_gpu_model *gpu, int g, uint32_t slots,
                          double *clock)
{
    for (int j = 0; j < e->ninit; j++) {
        far_init *f = &e->init[j];
        if (f->gpu != g || f->kept_by >= 0 || !isnan(f->destroy_start) || !(f->slots & slots))
            continue;
        f->destroy_start = fmax(*clock, f->busy);
        f->destroy_end = *clock = f->destroy_start +
                                  gpu->destroy_s[gpu->profiles[f->at.profile].slices];
    }
}

void far_engine_free(far_engine *e)
{
    free(e->init);
    free(e->inst);
    free(e->order);
    free(e->succ_start);
    free(e->succ);
    free(e->heap);
    free(e->held);
    memset(e, 0, sizeof *e);
}

static int reserve(far_engine *e, int n, int batches)
{
    if (n > e->cap) {
        int cap = e->cap ? e->cap : 32;
        while (cap < n)
            cap *= 2;
        far_inst *in = realloc(e->inst, (size_t)cap * sizeof *in);
        if (in)
            e->inst = in;
        int *ss = realloc(e->succ_start, (size_t)(cap + 1) * sizeof *ss);
        if (ss)
            e->succ_start = ss;
        int *su = realloc(e->succ, (size_t)cap * MS_MAX_SLOTS * sizeof *su);
        if (su)
            e->succ = su;
        far_op *h = realloc(e->heap, (size_t)cap * 2 * sizeof *h);
        if (h)
            e->heap = h;
        int *od = realloc(e->order, (size_t)(cap + 1) * sizeof *od);
        if (od)
            e->order = od;
        if (!in || !ss || !su || !h || !od)
            return MS_ENOMEM;
        e->cap = cap;
    }
    if (batches * 2 > e->held_cap) { /* per batch: first instance, creations left */
        int *hd = realloc(e->held, (size_t)batches * 2 * sizeof *hd);
        if (!hd)
            return MS_ENOMEM;
        e->held = hd;
        e->held_cap = batches * 2;
    }
    return MS_OK;
}

/* Where a batch starts with the very instance the previous batch ended with on those slots
 * (same GPU and node, nothing else in between), the instance is kept instead of destroyed
 * and re-created (paper 000 4.2: reversal can eliminate such reconfigurations). */
static void link_continuations(far_engine *e)
{
    for (int i = 0; i < e->n; i++) {
        far_inst *in = &e->inst[i];
        if (in->npred != 1)
            continue;
        int x = in->pred[0];
        far_inst *px = &e->inst[x];
        if (px->gpu == in->gpu && px->node == in->node && px->batch < in->batch &&
            e->succ_start[x + 1] - e->succ_start[x] == 1) {
            in->cont = x;
            px->cont_by = i;
            px->has_succ = false;
        }
    }
}

/* Collects the used nodes of batches [b0, b1) batch-major, and links each instance to the
 * instances it must wait for: per slot, the latest earlier instance holding it. */
static int collect(far_engine *e, const far_plan *p, int b0, int b1)
{
    const far_tree *t = &p->tree;
    int total = 0;
    for (int b = b0; b < b1; b++)
        for (int g = 0; g < p->gpus; g++)
            for (int v = 0; v < t->n; v++)
                total += far_plan_list((far_plan *)p, b, g, v)->n > 0;
    if (reserve(e, total > 0 ? total : 1, b1 - b0))
        return MS_ENOMEM;
    int last[MS_MAX_SLOTS * 64];
    int *lastp = p->gpus <= 64 ? last : malloc((size_t)p->gpus * MS_MAX_SLOTS * sizeof *lastp);
    if (!lastp)
        return MS_ENOMEM;
    for (int i = 0; i < p->gpus * MS_MAX_SLOTS; i++)
        lastp[i] = -1;
    e->n = 0;
    for (int b = b0; b < b1; b++) {
        e->held[(b - b0) * 2] = e->n;
        for (int g = 0; g < p->gpus; g++)
            for (int k = 0; k < t->n; k++) {
                int v = t->order[p->reversed[b]][k];
                const far_list *l = far_plan_list((far_plan *)p, b, g, v);
                if (l->n == 0)
                    continue;
                far_inst *in = &e->inst[e->n];
                memset(in, 0, sizeof *in);
                in->batch = b, in->gpu = g, in->node = v, in->list = l;
                in->cont = in->cont_by = -1;
                in->seq = (b - b0) * MS_MAX_TREE_NODES +
                          (p->reversed[b] ? t->n - 1 - t->rank[v] : t->rank[v]);
                int *lg = lastp + g * MS_MAX_SLOTS;
                for (int s = 0; s < MS_MAX_SLOTS; s++) {
                    if (!(t->slots[v] & (1u << s)))
                        continue;
                    int q = lg[s];
                    bool seen = q < 0;
                    for (int j = 0; j < in->npred && !seen; j++)
                        seen = in->pred[j] == q;
                    if (!seen) {
                        in->pred[in->npred++] = q;
                        e->inst[q].has_succ = true;
                    }
                    lg[s] = e->n;
                }
                in->pending = in->npred;
                e->n++;
            }
        e->held[(b - b0) * 2 + 1] = e->n - e->held[(b - b0) * 2];
    }
    if (lastp != last)
        free(lastp);
    /* CSR successor lists from the predecessor lists. */
    memset(e->succ_start, 0, (size_t)(e->n + 1) * sizeof *e->succ_start);
    for (int i = 0; i < e->n; i++)
        for (int j = 0; j < e->inst[i].npred; j++)
            e->succ_start[e->inst[i].pred[j] + 1]++;
    for (int i = 0; i < e->n; i++)
        e->succ_start[i + 1] += e->succ_start[i];
    int *ord = e->order; /* fill pointers */
    for (int i = 0; i < e->n; i++)
        ord[i] = e->succ_start[i];
    for (int i = 0; i < e->n; i++)
        for (int j = 0; j < e->inst[i].npred; j++)
            e->succ[ord[e->inst[i].pred[j]]++] = i;
    link_continuations(e);
    return MS_OK;
}

static double run_tasks(const far_plan *p, const far_inst *in, bool exact)
{
    if (!exact)
        return in->task_start + in->list->sum;
    double t = in->task_start;
    for (int k = 0; k < in->list->n; k++)
        t += far_time(p, in->list->task[k], in->node);
    return t;
}

/* A creation whose predecessors are gone: queued, or held (pending = -1) while an earlier
 * batch is still being placed under the barrier. */
static void ready(far_engine *e, int i, bool barrier, int done_batch, double start_at, int *nh)
{
    far_inst *r = &e->inst[i];
    int bi = r->batch - e->b0;
    if (barrier && bi > done_batch + 1) {
        r->pending = -1;
        return;
    }
    double key = barrier && bi > 0 ? fmax(r->ready, start_at) : r->ready;
    heap_push(e->heap, nh, (far_op){key, r->gpu, r->seq, i, 0});
}

/* Barrier bookkeeping after a creation in batch bi: once every batch up to some k is
 * fully created, batch k + 1 may start at the latest task end so far. */
static void release_batches(far_engine *e, int bi, int nb, int *done_batch, double *start_at,
                            double batch_end, int *nh)
{
    e->held[bi * 2 + 1]--;
    while (*done_batch + 1 < nb && e->held[(*done_batch + 1) * 2 + 1] == 0) {
        ++*done_batch;
        *start_at = batch_end;
        int next = *done_batch + 1;
        if (next >= nb)
            break;
        int to = next + 1 < nb ? e->held[(next + 1) * 2] : e->n;
        for (int j = e->held[next * 2]; j < to; j++)
            if (e->inst[j].pending == -1) {
                e->inst[j].pending = 0;
                ready(e, j, true, *done_batch, *start_at, nh);
            }
    }
}

int far_engine_run(far_engine *e, const far_plan *p, int b0, int b1, bool barrier, bool exact)
{
    if (collect(e, p, b0, b1) || match_initial(e, p, b0))
        return MS_ENOMEM;
    e->b0 = b0;
    const ms_gpu_model *gpu = p->gpu;
    double clock_small[64];
    double *clock = p->gpus <= 64 ? clock_small : calloc((size_t)p->gpus, sizeof *clock);
    if (!clock)
        return MS_ENOMEM;
    for (int g = 0; g < p->gpus; g++)
        clock[g] = 0;
    int nh = 0, done_batch = -1;
    double batch_end = 0, start_at = 0;
    for (int i = 0; i < e->n; i++)
        if (e->inst[i].npred == 0)
            ready(e, i, barrier, done_batch, start_at, &nh);
    e->makespan = 0;
    while (nh > 0) {
        far_op op = heap_pop(e->heap, &nh);
        far_inst *in = &e->inst[op.inst];
        double *rc = &clock[op.gpu];
        int size = p->tree.size[in->node];
        if (!op.destroy) {
            if (in->cont >= 0 || in->keeps >= 0) {
                /* kept from the previous batch, or there before the plan: no creation */
                in->create_start = in->create_end = NAN;
                in->task_start = in->keeps >= 0 ? fmax(op.key, e->init[in->keeps].busy) : op.key;
            } else {
                clear_initial(e, gpu, op.gpu, p->tree.slots[in->node], rc);
                in->create_start = fmax(*rc, op.key);
                in->task_start = in->create_end = *rc = in->create_start + gpu->create_s[size];
            }
            in->end = run_tasks(p, in, exact);
            if (in->end > e->makespan)
                e->makespan = in->end;
            if (in->has_succ)
                heap_push(e->heap, &nh, (far_op){in->end, op.gpu, in->seq, op.inst, 1});
            else
                in->destroy_start = in->destroy_end = NAN;
            if (in->cont_by >= 0) {
                far_inst *next = &e->inst[in->cont_by];
                next->ready = in->end;
                if (--next->pending == 0)
                    ready(e, in->cont_by, barrier, done_batch, start_at, &nh);
            }
            if (in->end > batch_end)
                batch_end = in->end;
            if (barrier)
                release_batches(e, in->batch - b0, b1 - b0, &done_batch, &start_at, batch_end, &nh);
        } else {
            in->destroy_start = fmax(*rc, op.key); /* after its last task, so once free */
            in->destroy_end = *rc = in->destroy_start + gpu->destroy_s[size];
            for (int k = e->succ_start[op.inst]; k < e->succ_start[op.inst + 1]; k++) {
                far_inst *s = &e->inst[e->succ[k]];
                if (in->end > s->ready)
                    s->ready = in->end;
                if (--s->pending == 0)
                    ready(e, e->succ[k], barrier, done_batch, start_at, &nh);
            }
        }
    }
    if (clock != clock_small)
        free(clock);
    return MS_OK;
}

int far_engine_emit(const far_engine *e, const far_plan *p, ms_schedule *s)
{
    int *sid = e->order; /* schedule instance id per engine instance */
    for (int i = 0; i < e->n; i++) {
        const far_inst *in = &e->inst[i];
        const ms_placement at = p->gpu->tree.node[in->node].at;
        int id;
        if (in->cont >= 0) { /* one instance: the continued one now ends as this one does */
            id = sid[in->cont];
            s->inst[id].destroy_start = in->destroy_start;
            s->inst[id].destroy_end = in->destroy_end;
        } else {
            id = ms_schedule_add_instance(s, in->gpu, at.profile, at.start, in->create_start,
                                          in->create_end, in->destroy_start, in->destroy_end);
        }
        if (id < 0)
            return MS_ENOMEM;
        sid[i] = id;
        double t = in->task_start;
        for (int k = 0; k < in->list->n; k++) {
            double d = far_time(p, in->list->task[k], in->node);
            if (ms_schedule_add_task(s, in->list->task[k], id, t, t + d))
                return MS_ENOMEM;
            t += d;
        }
    }
    for (int j = 0; j < e->ninit; j++) {
        const far_init *f = &e->init[j];
        if (f->kept_by < 0 && ms_schedule_add_instance(s, f->gpu, f->at.profile, f->at.start, NAN,
                                                       NAN, f->destroy_start, f->destroy_end) < 0)
            return MS_ENOMEM;
    }
    return MS_OK;
}
