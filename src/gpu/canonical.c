/* canonical.c: equivalent configurations (paper 001 Definition 1) and the canonical
 * representative of each class (the lexicographically highest slice vector). */
#include <string.h>

#include "migsched/gpu.h"

static bool vector_in_set(const ms_gpu_model *m, const int v[MS_MAX_SLICES], uint64_t valid)
{
    for (int p = 0; p < m->npartitions; p++) {
        if (!(valid & (1ull << p)))
            continue;
        int c[MS_MAX_SLICES];
        ms_partition_slice_vector(m, &m->partitions[p], c);
        if (!memcmp(c, v, sizeof c))
            return true;
    }
    return false;
}

/* Condition 2: every valid configuration, read in the other basis, is valid. */
static bool preimages_valid(const ms_gpu_model *m, const int sigma[MS_MAX_SLICES], uint64_t valid)
{
    int inv[MS_MAX_SLICES];
    for (int i = 0; i < m->slices; i++)
        inv[sigma[i]] = i;
    for (int p = 0; p < m->npartitions; p++) {
        if (!(valid & (1ull << p)))
            continue;
        int c[MS_MAX_SLICES], pre[MS_MAX_SLICES] = {0};
        ms_partition_slice_vector(m, &m->partitions[p], c);
        for (int i = 0; i < m->slices; i++)
            pre[i] = c[inv[i]];
        if (!vector_in_set(m, pre, valid))
            return false;
    }
    return true;
}

/* Backtracking over bijections from b's instances to a's instances of equal size; each
 * gives a block permutation of slices (condition 1 holds by construction). */
static bool match(const ms_gpu_model *m, const ms_partition *a, const ms_partition *b, int k,
                  uint32_t used, int sigma[MS_MAX_SLICES], uint64_t valid, int unused_slices_a[],
                  int nunused)
{
    if (k == b->n) {
        /* Slices no instance uses map to each other in order. */
        int c[MS_MAX_SLICES], j = 0;
        ms_partition_slice_vector(m, b, c);
        for (int i = 0; i < m->slices; i++)
            if (c[i] == 0) {
                if (j >= nunused)
                    return false;
                sigma[i] = unused_slices_a[j++];
            }
        return j == nunused && preimages_valid(m, sigma, valid);
    }
    const ms_placement *pb = &b->inst[k];
    int size = m->profiles[pb->profile].slices;
    for (int i = 0; i < a->n; i++) {
        const ms_placement *pa = &a->inst[i];
        if ((used & (1u << i)) || m->profiles[pa->profile].slices != size ||
            m->profiles[pa->profile].size_slots != m->profiles[pb->profile].size_slots)
            continue;
        uint32_t ma = ms_gpu_slice_mask(m, *pa), mb = ms_gpu_slice_mask(m, *pb);
        if (__builtin_popcount(ma) != __builtin_popcount(mb))
            continue;
        int sa[MS_MAX_SLICES], na = 0;
        for (int s = 0; s < m->slices; s++)
            if (ma & (1u << s))
                sa[na++] = s;
        int j = 0;
        for (int s = 0; s < m->slices; s++)
            if (mb & (1u << s))
                sigma[s] = sa[j++];
        if (match(m, a, b, k + 1, used | (1u << i), sigma, valid, unused_slices_a, nunused))
            return true;
    }
    return false;
}

bool ms_partition_equivalent(const ms_gpu_model *m, int a, int b, uint64_t valid,
                             int sigma[MS_MAX_SLICES])
{
    const ms_partition *pa = &m->partitions[a], *pb = &m->partitions[b];
    if (pa->n != pb->n)
        return false;
    int ca[MS_MAX_SLICES], unused[MS_MAX_SLICES], nunused = 0;
    ms_partition_slice_vector(m, pa, ca);
    for (int i = 0; i < m->slices; i++)
        if (ca[i] == 0)
            unused[nunused++] = i;
    for (int i = 0; i < MS_MAX_SLICES; i++)
        sigma[i] = i;
    return match(m, pa, pb, 0, 0, sigma, valid, unused, nunused);
}

/* a > b in lexicographic order of slice vectors. */
static int cmp_vectors(const ms_gpu_model *m, int a, int b)
{
    int ca[MS_MAX_SLICES], cb[MS_MAX_SLICES];
    ms_partition_slice_vector(m, &m->partitions[a], ca);
    ms_partition_slice_vector(m, &m->partitions[b], cb);
    for (int i = 0; i < m->slices; i++)
        if (ca[i] != cb[i])
            return ca[i] - cb[i];
    return 0;
}

void ms_gpu_every_partition(const ms_gpu_model *m, bool drop_useless, ms_canon_set *out)
{
    memset(out, 0, sizeof *out);
    for (int p = 0; p < m->npartitions; p++) {
        bool kept = !drop_useless || !ms_partition_useless(m, &m->partitions[p]);
        out->canon_of[p] = kept ? out->n : -1;
        if (kept)
            out->partition[out->n++] = p;
        for (int i = 0; i < MS_MAX_SLICES; i++)
            out->sigma[p][i] = i;
    }
}

void ms_gpu_canonical(const ms_gpu_model *m, bool drop_useless, ms_canon_set *out)
{
    memset(out, 0, sizeof *out);
    uint64_t valid = 0;
    for (int p = 0; p < m->npartitions; p++)
        if (!drop_useless || !ms_partition_useless(m, &m->partitions[p]))
            valid |= 1ull << p;
    for (int p = 0; p < m->npartitions; p++) {
        out->canon_of[p] = -1;
        for (int i = 0; i < MS_MAX_SLICES; i++)
            out->sigma[p][i] = i;
    }
    for (int p = 0; p < m->npartitions; p++) {
        if (!(valid & (1ull << p)) || out->canon_of[p] >= 0)
            continue;
        /* The class of p: every partition equivalent to it; the representative is the
         * highest vector. */
        int rep = p;
        for (int q = 0; q < m->npartitions; q++) {
            int sigma[MS_MAX_SLICES];
            if ((valid & (1ull << q)) && q != p && ms_partition_equivalent(m, p, q, valid, sigma) &&
                cmp_vectors(m, q, rep) > 0)
                rep = q;
        }
        int id = out->n++;
        out->partition[id] = rep;
        for (int q = 0; q < m->npartitions; q++) {
            int sigma[MS_MAX_SLICES];
            if (!(valid & (1ull << q)) || out->canon_of[q] >= 0)
                continue;
            /* sigma: canonical position i holds real slice sigma[i] of q. */
            if (q == rep || ms_partition_equivalent(m, q, rep, valid, sigma)) {
                out->canon_of[q] = id;
                if (q != rep)
                    memcpy(out->sigma[q], sigma, sizeof sigma);
            }
        }
    }
}
