/* placement.c: the online placement with the waiting jobs' sizes in view (placement.h). */
#include "placement.h"

#include <stdint.h>
#include <string.h>

bool md_placeable(const ms_gpu_model *m, const ms_online_rule *r, const ms_online_gpu_view *gpus,
                  int ngpus, int profile)
{
    const ms_profile *pr = &m->profiles[profile];
    for (int g = 0; g < ngpus; g++)
        for (int j = 0; j < pr->nstarts; j++)
            if (ms_online_can_take(m, r, &gpus[g], profile, pr->starts[j]))
                return true;
    return false;
}

int md_largest_placeable(const ms_gpu_model *m, const ms_online_rule *r,
                         const ms_online_gpu_view *gpus, int ngpus)
{
    int best = 0;
    for (int p = 0; p < m->nprofiles; p++)
        if (m->profiles[p].slices > best && md_placeable(m, r, gpus, ngpus, p))
            best = m->profiles[p].slices;
    return best;
}

long md_slurm_count(const ms_gpu_model *m, long held, int placeable)
{
    long floor = 0;
    for (int p = 0; p < m->nprofiles; p++)
        if (m->profiles[p].slices > floor)
            floor = m->profiles[p].slices;
    return held + placeable > floor ? held + placeable : floor;
}

int md_profile_for_slices(const ms_gpu_model *m, int slices)
{
    int best = -1;
    for (int p = 0; p < m->nprofiles; p++) {
        const ms_profile *c = &m->profiles[p];
        if (c->slices < slices)
            continue;
        const ms_profile *b = best >= 0 ? &m->profiles[best] : NULL;
        if (!b || c->slices < b->slices ||
            (c->slices == b->slices && c->size_slots < b->size_slots))
            best = p;
    }
    return best;
}

/* Waiting jobs left without room on the node once `profile` takes (g, start): those of a
 * size that had room before and has none after. */
static int blocked_by(const ms_gpu_model *m, const ms_online_rule *r,
                      const ms_online_gpu_view *gpus, int ngpus, int g, ms_placement p,
                      const int *demand, const bool *before)
{
    ms_online_gpu_view after[MD_MAX_DEVICES];
    memcpy(after, gpus, (size_t)ngpus * sizeof *after);
    uint32_t mask = ms_gpu_slot_mask(m, p);
    after[g].job_slots |= mask;
    after[g].locked_slots |= mask;
    int n = 0;
    for (int q = 0; q < m->nprofiles; q++)
        if (demand[q] > 0 && before[q] && !md_placeable(m, r, after, ngpus, q))
            n += demand[q];
    return n;
}

/* The policy's key of one start on GPU g (MS_ONLINE_NO_FIT when the rule does not allow
 * it): ms_online_place_key on a view where the profile's other starts are taken (their
 * slots hold no job that F counts, so the key is the policy's own for this start). */
static uint64_t key_of_start(const ms_gpu_model *m, const ms_online_rule *r,
                             const ms_online_frag_table *ft, const ms_online_gpu_view *g,
                             int profile, int start)
{
    ms_online_gpu_view only = *g;
    const ms_profile *pr = &m->profiles[profile];
    uint32_t mine = ms_gpu_slot_mask(m, (ms_placement){profile, start});
    for (int j = 0; j < pr->nstarts; j++) {
        uint32_t other = ms_gpu_slot_mask(m, (ms_placement){profile, pr->starts[j]});
        if (!(other & mine))
            only.job_slots |= other;
    }
    int st = -1;
    uint64_t key = ms_online_place_key(m, r, ft, &only, profile, &st);
    return st == start ? key : MS_ONLINE_NO_FIT;
}

bool md_place_for_demand(const ms_gpu_model *m, const ms_online_rule *r,
                         const ms_online_frag_table *ft, const ms_online_gpu_view *gpus, int ngpus,
                         int profile, const int *demand, int *gpu, int *start)
{
    bool any = false, before[MS_MAX_PROFILES] = {false};
    for (int q = 0; demand && q < m->nprofiles; q++)
        if (demand[q] > 0 && (before[q] = md_placeable(m, r, gpus, ngpus, q)))
            any = true;
    if (!any) /* nothing waits that could be kept from its room: the policy decides */
        return ms_online_place(m, r, ft, gpus, ngpus, profile, gpu, start);
    const ms_profile *pr = &m->profiles[profile];
    int best_blocked = -1;
    uint64_t best_key = MS_ONLINE_NO_FIT;
    for (int g = 0; g < ngpus; g++)
        for (int j = 0; j < pr->nstarts; j++) {
            uint64_t key = key_of_start(m, r, ft, &gpus[g], profile, pr->starts[j]);
            if (key == MS_ONLINE_NO_FIT)
                continue;
            int b = blocked_by(m, r, gpus, ngpus, g, (ms_placement){profile, pr->starts[j]}, demand,
                               before);
            if (best_blocked < 0 || b < best_blocked || (b == best_blocked && key < best_key)) {
                best_blocked = b;
                best_key = key;
                *gpu = g;
                *start = pr->starts[j];
            }
        }
    return best_blocked >= 0;
}
