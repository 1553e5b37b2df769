/* cluster_slurm.c: Slurm's side of the cluster simulator: free counts per node (the
 * count-only slice GRES, or one count per instance type), select/cons_tres's choice of a
 * node for a one-node job, the jobs' time limits, and where the oldest blocked job's
 * backfill reservation falls. */
#include "cluster_internal.h"

#include <stdlib.h>
#include <string.h>

#define MOST_BASE (1u << 20) /* tree key = MOST_BASE - free: the most free is the minimum */

static void set_key(mcs_slurm *s, int n)
{
    const mcs_node *nd = &s->node[n];
    for (int r = 0; r < s->nres; r++) {
        uint32_t free = nd->free[r] > 0 ? (uint32_t)nd->free[r] : 0;
        msi_mintree_set(&s->most[r], n, nd->cpus > 0 ? (uint64_t)(MOST_BASE - free) : MSI_NONE);
    }
}

int mcs_init(mcs_slurm *s, int nodes, int nres, const int *free, int cpus)
{
    memset(s, 0, sizeof *s);
    s->nodes = nodes;
    s->nres = nres;
    s->node = calloc((size_t)nodes, sizeof *s->node);
    if (!s->node)
        return MS_ENOMEM;
    for (int r = 0; r < nres; r++)
        if (msi_mintree_init(&s->most[r], nodes))
            return MS_ENOMEM;
    for (int n = 0; n < nodes; n++) {
        memcpy(s->node[n].free, free, (size_t)nres * sizeof *free);
        s->node[n].cpus = cpus;
        set_key(s, n);
    }
    return MS_OK;
}

void mcs_free(mcs_slurm *s)
{
    for (int n = 0; s->node && n < s->nodes; n++)
        free(s->node[n].alloc);
    for (int r = 0; r < MS_MAX_PROFILES; r++)
        msi_mintree_free(&s->most[r]);
    free(s->node);
    memset(s, 0, sizeof *s);
}

bool mcs_fits_somewhere(const mcs_slurm *s, int res, int amount)
{
    uint64_t top = s->most[res].key[1];
    return top != MSI_NONE && top <= (uint64_t)(MOST_BASE - (uint32_t)amount);
}

bool mcs_anything_free(const mcs_slurm *s)
{
    for (int r = 0; r < s->nres; r++)
        if (mcs_fits_somewhere(s, r, 1))
            return true;
    return false;
}

static bool candidate(const mcs_slurm *s, int n, int res, int amount, int exclude)
{
    return n != exclude && s->node[n].cpus > 0 && s->node[n].free[res] >= amount;
}

/* cons_tres's _eval_nodes for one node and one CPU, all node weights equal: the candidate
 * nodes form runs of consecutive indices; the run with the fewest free CPUs in all wins
 * (the first on ties), and in it the node with the fewest free CPUs (the first on ties). */
int mcs_select(const mcs_slurm *s, int res, int amount, int exclude)
{
    if (!mcs_fits_somewhere(s, res, amount))
        return -1;
    int best_first = -1, best_last = -1;
    long best_cpus = 0;
    for (int n = 0; n < s->nodes;) {
        if (!candidate(s, n, res, amount, exclude)) {
            n++;
            continue;
        }
        int first = n;
        long cpus = 0;
        for (; n < s->nodes && candidate(s, n, res, amount, exclude); n++)
            cpus += s->node[n].cpus;
        if (best_first < 0 || cpus < best_cpus) {
            best_first = first;
            best_last = n - 1;
            best_cpus = cpus;
        }
    }
    int best = -1;
    for (int n = best_first; best_first >= 0 && n <= best_last; n++) {
        if (best < 0 || s->node[n].cpus < s->node[best].cpus)
            best = n;
        if (s->node[best].cpus == 1)
            break;
    }
    return best;
}

int mcs_allocate(mcs_slurm *s, int node, int job, int res, int amount, double end)
{
    mcs_node *nd = &s->node[node];
    if (!msi_reserve(&nd->alloc, nd->nalloc, &nd->cap, sizeof *nd->alloc, 8))
        return MS_ENOMEM;
    int i = nd->nalloc++;
    for (; i > 0 && nd->alloc[i - 1].end > end; i--)
        nd->alloc[i] = nd->alloc[i - 1];
    nd->alloc[i] = (mcs_alloc){end, job, res, amount};
    nd->free[res] -= amount;
    nd->cpus--;
    set_key(s, node);
    return MS_OK;
}

void mcs_release(mcs_slurm *s, int node, int job)
{
    mcs_node *nd = &s->node[node];
    int i = 0;
    while (i < nd->nalloc && nd->alloc[i].job != job)
        i++;
    if (i == nd->nalloc)
        return;
    nd->free[nd->alloc[i].res] += nd->alloc[i].amount;
    nd->cpus++;
    memmove(nd->alloc + i, nd->alloc + i + 1, (size_t)(nd->nalloc - i - 1) * sizeof *nd->alloc);
    nd->nalloc--;
    set_key(s, node);
}

void mcs_set_count(mcs_slurm *s, int node, int res, int total)
{
    mcs_node *nd = &s->node[node];
    int given = 0;
    for (int i = 0; i < nd->nalloc; i++)
        if (nd->alloc[i].res == res)
            given += nd->alloc[i].amount;
    nd->free[res] = total - given;
    set_key(s, node);
}

void mcs_reserve(const mcs_slurm *s, int res, int amount, double now, mcs_resv *out)
{
    *out = (mcs_resv){.node = -1, .res = res, .amount = amount, .start = INFINITY};
    for (int n = 0; n < s->nodes && out->start > now; n++) { /* none starts before now */
        const mcs_node *nd = &s->node[n];
        int have = nd->free[res];
        double t = now;
        for (int i = 0; have < amount && i < nd->nalloc; i++)
            if (nd->alloc[i].res == res) {
                have += nd->alloc[i].amount;
                t = nd->alloc[i].end > now ? nd->alloc[i].end : now;
            }
        if (have >= amount && t < out->start) {
            out->node = n;
            out->start = t;
            out->extra = have - amount;
        }
    }
}
