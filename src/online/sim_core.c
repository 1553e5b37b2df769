/* sim_core.c: the simulator's primitives below placement, queue and migration: growing
 * arrays, the event heap, a GPU's masks and counters recounted from its instances, the
 * system's F, and the running jobs' rates under contention. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static bool ev_before(const msi_event *a, const msi_event *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->kind != b->kind)
        return a->kind < b->kind;
    return a->seq < b->seq;
}

bool msi_reserve(void *arr_ptr, int n, int *cap, size_t size, int first)
{
    if (n < *cap)
        return true;
    int grown = *cap ? 2 * *cap : first;
    void *arr;
    memcpy(&arr, arr_ptr, sizeof arr); /* arr_ptr points at some T *: read it as void * */
    arr = realloc(arr, (size_t)grown * size);
    if (!arr)
        return false;
    memcpy(arr_ptr, &arr, sizeof arr);
    *cap = grown;
    return true;
}

void msi_push(msi_sim *s, double t, int kind, int id, int slot, uint32_t version)
{
    if (!msi_reserve(&s->heap, s->nheap, &s->capheap, sizeof *s->heap, 1024)) {
        s->failed = MS_ENOMEM;
        return;
    }
    msi_event e = {t, s->seq++, kind, id, slot, version};
    int i = s->nheap++;
    while (i > 0 && ev_before(&e, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = e;
}

msi_event msi_pop(msi_sim *s)
{
    msi_event top = s->heap[0], last = s->heap[--s->nheap];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && ev_before(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!ev_before(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap > 0)
        s->heap[i] = last;
    return top;
}

static bool executing_here(const msi_sim *s, int g, int k, int j)
{
    const msi_job *jb = &s->job[j];
    return jb->state == MSI_J_RUNNING && jb->gpu == g && jb->slot == k;
}

/* Recomputes a GPU's masks and counters from its instances (at most 8). */
void msi_recount(msi_sim *s, int g)
{
    msi_gpu *gp = &s->gpu[g];
    const ms_gpu_model *m = s->m;
    gp->used = gp->lock = gp->jobslots = gp->keepslots = gp->keepslices = 0;
    gp->load = gp->nrunning = gp->ninst = gp->nbusy = 0;
    for (int k = 0; k < m->slots; k++) {
        const msi_inst *in = &gp->inst[k];
        if (in->profile < 0)
            continue;
        ms_placement p = {in->profile, k};
        uint32_t mask = ms_gpu_slot_mask(m, p);
        gp->used |= mask;
        gp->ninst++;
        if (in->state == MSI_I_CREATING)
            gp->lock |= mask;
        if (in->job < 0)
            continue;
        const msi_job *jb = &s->job[in->job];
        gp->lock |= mask;
        gp->jobslots |= mask;
        gp->nbusy++;
        bool keep = jb->tgpu < 0 ? (jb->gpu == g && jb->slot == k)
                                 : (jb->tgpu == g && jb->tslot == k);
        if (keep) {
            gp->keepslots |= mask;
            gp->keepslices |= ms_gpu_slice_mask(m, p);
            gp->load += m->profiles[in->profile].slices;
        }
        gp->nrunning += executing_here(s, g, k, in->job);
    }
}

double msi_system_frag(const msi_sim *s) { return (double)s->frag_sum * 1e-12 / s->G; }

static void progress(msi_sim *s, msi_job *jb)
{
    jb->remaining -= (s->now - jb->last) * jb->rate;
    if (jb->remaining < 0)
        jb->remaining = 0;
    jb->last = s->now;
}

/* The running jobs of g advance at 1 / (1 + kappa * (others running on g)). */
void msi_rerate(msi_sim *s, int g)
{
    msi_gpu *gp = &s->gpu[g];
    double rate = 1.0 / (1.0 + s->c.kappa * (gp->nrunning > 0 ? gp->nrunning - 1 : 0));
    for (int k = 0; k < s->m->slots; k++) {
        int j = gp->inst[k].profile >= 0 ? gp->inst[k].job : -1;
        if (j < 0 || !executing_here(s, g, k, j))
            continue;
        msi_job *jb = &s->job[j];
        progress(s, jb);
        if (jb->rate == rate && jb->version > 0)
            continue; /* its finish event still holds */
        jb->rate = rate;
        jb->version++;
        msi_push(s, s->now + jb->remaining / rate, MSI_EV_FINISH, j, 0, jb->version);
    }
}
