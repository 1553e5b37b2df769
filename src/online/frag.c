/* frag.c: paper 002's fragmentation cost F(g) (IV-B, DESIGN.md) and the single-GPU
 * placement and intra-GPU move choices built on it. */
#include "internal.h"

#include <string.h>

static uint32_t all_bits(int n) { return (1u << n) - 1u; }

int ms_online_ideal(const ms_gpu_model *m, int profile, uint32_t free_slots, uint32_t free_slices)
{
    const ms_profile *p = &m->profiles[profile];
    int by_slices = __builtin_popcount(free_slices & all_bits(m->slices)) / p->slices;
    int by_slots = __builtin_popcount(free_slots & all_bits(m->slots)) / p->size_slots;
    return by_slices < by_slots ? by_slices : by_slots;
}

/* Placements of one profile are equal-length intervals, so taking the leftmost one that
 * fits, repeatedly, gives the most that fit at once (interval scheduling). A placement
 * whose slots are free has free compute slices too: an instance's slices lie in its slots. */
int ms_online_valid(const ms_gpu_model *m, int profile, uint32_t free_slots)
{
    const ms_profile *p = &m->profiles[profile];
    int count = 0;
    for (int j = 0; j < p->nstarts; j++) {
        uint32_t mask = ms_gpu_slot_mask(m, (ms_placement){profile, p->starts[j]});
        if ((mask & free_slots) == mask) {
            count++;
            free_slots &= ~mask;
        }
    }
    return count;
}

double ms_online_frag_masks(const ms_gpu_model *m, uint32_t free_slots, uint32_t free_slices)
{
    double sum = 0.0;
    int counted = 0;
    for (int p = 0; p < m->nprofiles; p++) {
        int ideal = ms_online_ideal(m, p, free_slots, free_slices);
        if (ideal <= 0)
            continue;
        sum += 1.0 - (double)ms_online_valid(m, p, free_slots) / ideal;
        counted++;
    }
    return counted ? sum / counted : 0.0;
}

void msi_frag_table_init(msi_frag_table *t, const ms_gpu_model *m)
{
    int nslots = 1 << m->slots;
    for (int s = 0; s < nslots; s++)
        for (int k = 0; k <= m->slices; k++)
            t->f[s][k] = ms_online_frag_masks(m, (uint32_t)s, all_bits(k));
}

static void partition_masks(const ms_gpu_model *m, const ms_partition *busy, uint32_t *slots,
                            uint32_t *slices)
{
    *slots = 0;
    *slices = 0;
    for (int i = 0; i < busy->n; i++) {
        *slots |= ms_gpu_slot_mask(m, busy->inst[i]);
        *slices |= ms_gpu_slice_mask(m, busy->inst[i]);
    }
}

double ms_online_frag(const ms_gpu_model *m, const ms_partition *busy)
{
    uint32_t slots, slices;
    partition_masks(m, busy, &slots, &slices);
    return ms_online_frag_masks(m, ~slots & all_bits(m->slots), ~slices & all_bits(m->slices));
}

bool ms_online_fits(const ms_gpu_model *m, const ms_partition *busy, ms_placement p)
{
    uint32_t slots, slices;
    partition_masks(m, busy, &slots, &slices);
    return ms_gpu_placement_allowed(m, p) && !(ms_gpu_slot_mask(m, p) & slots);
}

bool ms_online_best_placement(const ms_gpu_model *m, const ms_partition *busy,
                              const ms_partition *idle, int profile, ms_placement *out,
                              double *frag_after)
{
    uint32_t slots, slices;
    partition_masks(m, busy, &slots, &slices);
    bool found = false, best_reuse = false;
    double best = 0.0;
    const ms_profile *pr = &m->profiles[profile];
    for (int j = 0; j < pr->nstarts; j++) {
        ms_placement p = {profile, pr->starts[j]};
        uint32_t mask = ms_gpu_slot_mask(m, p);
        if (mask & slots)
            continue;
        double f = ms_online_frag_masks(m, ~(slots | mask) & all_bits(m->slots),
                                        ~(slices | ms_gpu_slice_mask(m, p)) & all_bits(m->slices));
        bool reuse = false;
        for (int i = 0; idle && i < idle->n; i++)
            reuse |= idle->inst[i].profile == profile && idle->inst[i].start == p.start;
        if (!found || msi_frag_less(f, best) || (msi_frag_equal(f, best) && reuse && !best_reuse)) {
            found = true;
            best = f;
            best_reuse = reuse;
            *out = p;
        }
    }
    if (found && frag_after)
        *frag_after = best;
    return found;
}

bool ms_online_best_move(const ms_gpu_model *m, const ms_partition *busy, int *which,
                         ms_placement *to, double *frag_after)
{
    double best = ms_online_frag(m, busy);
    bool found = false;
    uint32_t slots, slices;
    partition_masks(m, busy, &slots, &slices);
    for (int i = 0; i < busy->n; i++) {
        ms_partition rest = *busy;
        memmove(&rest.inst[i], &rest.inst[i + 1], (size_t)(rest.n - i - 1) * sizeof rest.inst[0]);
        rest.n--;
        const ms_profile *pr = &m->profiles[busy->inst[i].profile];
        for (int j = 0; j < pr->nstarts; j++) {
            ms_placement p = {busy->inst[i].profile, pr->starts[j]};
            if (ms_gpu_slot_mask(m, p) & slots) /* the replica runs beside the original */
                continue;
            rest.inst[rest.n] = p;
            rest.n++;
            double f = ms_online_frag(m, &rest);
            rest.n--;
            if (msi_frag_less(f, best)) {
                best = f;
                found = true;
                *which = i;
                *to = p;
            }
        }
    }
    if (found && frag_after)
        *frag_after = best;
    return found;
}
