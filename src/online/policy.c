/* policy.c: paper 002's placement decision (IV-C) on a view of each GPU, the one code path
 * the simulator's event loop and migschedd's engine both call: conditional load balancing
 * (Lazy GPUs first), min-F placement and the reuse of idle instances; the baselines' GPU
 * order (first, best or worst fit) is a term of the same key. */
#include <stdlib.h>

#include "internal.h"

static uint32_t bits(int n) { return (1u << n) - 1u; }

ms_online_frag_table *ms_online_frag_table_new(const ms_gpu_model *m)
{
    ms_online_frag_table *t = malloc(sizeof *t);
    if (t)
        msi_frag_table_init(t, m);
    return t;
}

void ms_online_frag_table_free(ms_online_frag_table *t) { free(t); }

double ms_online_frag_lookup(const ms_online_frag_table *t, const ms_gpu_model *m,
                             uint32_t taken_slots, uint32_t taken_slices)
{
    return t->f[~taken_slots & bits(m->slots)]
               [m->slices - __builtin_popcount(taken_slices & bits(m->slices))];
}

static bool reusable(const ms_online_gpu_view *g, int profile, int start)
{
    return g->idle[start] == profile;
}

bool ms_online_can_take(const ms_gpu_model *m, const ms_online_rule *r, const ms_online_gpu_view *g,
                        int profile, int start)
{
    uint32_t mask = ms_gpu_slot_mask(m, (ms_placement){profile, start});
    if (mask & g->job_slots)
        return false;
    if (reusable(g, profile, start))
        return true;
    return r->dynamic && !(mask & g->locked_slots);
}

uint64_t ms_online_place_key(const ms_gpu_model *m, const ms_online_rule *r,
                             const ms_online_frag_table *ft, const ms_online_gpu_view *g,
                             int profile, int *start)
{
    const ms_profile *pr = &m->profiles[profile];
    uint64_t best = MS_ONLINE_NO_FIT;
    for (int j = 0; j < pr->nstarts; j++) {
        int st = pr->starts[j];
        if (!ms_online_can_take(m, r, g, profile, st))
            continue;
        ms_placement p = {profile, st};
        uint64_t key = (uint64_t)!reusable(g, profile, st) << 1;
        if (r->frag) {
            double f = ms_online_frag_lookup(ft, m, g->frag_slots | ms_gpu_slot_mask(m, p),
                                             g->frag_slices | ms_gpu_slice_mask(m, p));
            key |= (uint64_t)llround(f * 1e9) << 2;
        }
        if (key < best) {
            best = key;
            *start = st;
        }
    }
    if (best == MS_ONLINE_NO_FIT)
        return best;
    if (r->balance && !(g->load < r->tau * m->slices))
        best |= 1ull << 40; /* Busy GPUs only when no Lazy GPU can host the job */
    if (r->fit == MS_FIT_BEST)
        best |= (uint64_t)(m->slices - g->load) << 41;
    else if (r->fit == MS_FIT_WORST)
        best |= (uint64_t)g->load << 41;
    return best;
}

bool ms_online_place(const ms_gpu_model *m, const ms_online_rule *r, const ms_online_frag_table *ft,
                     const ms_online_gpu_view *gpus, int ngpus, int profile, int *gpu, int *start)
{
    uint64_t best = MS_ONLINE_NO_FIT;
    for (int g = 0; g < ngpus; g++) {
        int st = -1;
        uint64_t key = ms_online_place_key(m, r, ft, &gpus[g], profile, &st);
        if (key < best) {
            best = key;
            *gpu = g;
            *start = st;
        }
    }
    return best != MS_ONLINE_NO_FIT;
}
