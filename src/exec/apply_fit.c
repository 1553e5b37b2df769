/* apply_fit.c: why a target does not fit on a GPU, instance by instance: a profile asked
 * for more often than the GPU has room for it, more memory or compute slices than the GPU
 * has, or, when the totals fit, the instances no arrangement can place and the instances
 * each of their placements would overlap. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "apply_fit.h"

typedef struct buf {
    char *s;
    size_t len, at;
} buf;

__attribute__((format(printf, 2, 3))) static void add(buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (b->at < b->len)
        b->at += (size_t)vsnprintf(b->s + b->at, b->len - b->at, fmt, ap);
    va_end(ap);
}

static void add_sep(buf *b)
{
    if (b->at)
        add(b, "; ");
}

/* The most instances of profile p alone that fit side by side. */
static int most_of(const ms_gpu_model *m, int p, int from, uint32_t used)
{
    int best = 0;
    const ms_profile *pr = &m->profiles[p];
    for (int i = from; i < pr->nstarts; i++) {
        uint32_t mask = ms_gpu_slot_mask(m, (ms_placement){p, pr->starts[i]});
        if (!(mask & used)) {
            int n = 1 + most_of(m, p, i + 1, used | mask);
            best = n > best ? n : best;
        }
    }
    return best;
}

typedef struct arrangement {
    const ms_gpu_model *m;
    int n, profile[MS_MAX_INSTANCES];
    ms_placement at[MS_MAX_INSTANCES]; /* start -1: not placed */
    int placed, best_placed;
    ms_placement best[MS_MAX_INSTANCES];
} arrangement;

/* The arrangement placing the most instances (the rest left out), first found on ties. */
static void place_most(arrangement *a, int k, uint32_t used)
{
    if (a->placed + (a->n - k) <= a->best_placed)
        return;
    if (k == a->n) {
        a->best_placed = a->placed;
        memcpy(a->best, a->at, sizeof a->best);
        return;
    }
    const ms_profile *pr = &a->m->profiles[a->profile[k]];
    for (int i = 0; i < pr->nstarts; i++) {
        ms_placement p = {a->profile[k], pr->starts[i]};
        uint32_t mask = ms_gpu_slot_mask(a->m, p);
        if (mask & used)
            continue;
        a->at[k] = p;
        a->placed++;
        place_most(a, k + 1, used | mask);
        a->placed--;
    }
    a->at[k] = (ms_placement){a->profile[k], -1};
    place_most(a, k + 1, used);
}

/* For each instance the best arrangement leaves out: what each of its placements hits. */
static void explain_overlaps(const arrangement *a, buf *b)
{
    const ms_gpu_model *m = a->m;
    for (int k = 0; k < a->n; k++) {
        if (a->best[k].start >= 0)
            continue;
        const ms_profile *pr = &m->profiles[a->profile[k]];
        add_sep(b);
        add(b, "%s does not fit: ", pr->name);
        for (int i = 0; i < pr->nstarts; i++) {
            uint32_t mask = ms_gpu_slot_mask(m, (ms_placement){a->profile[k], pr->starts[i]});
            for (int j = 0; j < a->n; j++) {
                ms_placement q = a->best[j];
                if (q.start >= 0 && (ms_gpu_slot_mask(m, q) & mask)) {
                    add(b, "%sat %d overlaps %s at %d", i ? ", " : "", pr->starts[i],
                        m->profiles[q.profile].name, q.start);
                    break;
                }
            }
        }
    }
}

void exec_apply_explain_misfit(const ms_gpu_model *m, const int count[MS_MAX_PROFILES], char *out,
                               size_t len)
{
    buf b = {out, len, 0};
    out[0] = '\0';
    int slots = 0, slices = 0, n = 0;
    for (int p = 0; p < m->nprofiles; p++) {
        if (count[p] <= 0)
            continue;
        slots += count[p] * m->profiles[p].size_slots;
        slices += count[p] * m->profiles[p].slices;
        n += count[p];
        int most = most_of(m, p, 0, 0);
        if (count[p] > most) {
            add_sep(&b);
            add(&b, "%d x %s: at most %d fit on the GPU", count[p], m->profiles[p].name, most);
        }
    }
    if (slots > m->slots) {
        add_sep(&b);
        add(&b, "memory slices: %d needed, the GPU has %d", slots, m->slots);
    }
    if (slices > m->slices) {
        add_sep(&b);
        add(&b, "compute slices: %d needed, the GPU has %d", slices, m->slices);
    }
    if (b.at || n > MS_MAX_INSTANCES)
        return;
    arrangement a = {.m = m};
    /* Largest first, as the planner orders them. */
    for (int size = MS_MAX_SLOTS; size > 0; size--)
        for (int p = 0; p < m->nprofiles; p++)
            for (int i = 0; m->profiles[p].size_slots == size && i < count[p]; i++)
                a.profile[a.n++] = p;
    a.best_placed = -1;
    place_most(&a, 0, 0);
    explain_overlaps(&a, &b);
}
