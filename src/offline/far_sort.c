/* far_sort.c: FAR's LPT orders (decreasing time, equal times in input order) of up to a
 * million (time, task) pairs, as a stable LSD radix sort on the times' bits: a comparison
 * sort through a function pointer cost about 20 comparisons per task there. */
#include <stdint.h>
#include <string.h>

#include "far_internal.h"

/* An unsigned key whose increasing order is the decreasing order of t (NaN aside). */
static uint64_t desc_key(double t)
{
    uint64_t b;
    memcpy(&b, &t, sizeof b);
    b = (b >> 63) ? ~b : b | (UINT64_C(1) << 63);
    return ~b;
}

void far_sort_lpt(far_lpt_entry *e, far_lpt_entry *tmp, int n)
{
    if (n < 32) { /* insertion sort: stable, and cheaper than 8 histograms */
        for (int i = 1; i < n; i++) {
            far_lpt_entry x = e[i];
            int j = i;
            for (; j > 0 && e[j - 1].time < x.time; j--)
                e[j] = e[j - 1];
            e[j] = x;
        }
        return;
    }
    size_t count[8][256] = {{0}};
    for (int i = 0; i < n; i++) {
        uint64_t k = desc_key(e[i].time);
        for (int d = 0; d < 8; d++)
            count[d][(k >> (8 * d)) & 255]++;
    }
    far_lpt_entry *src = e, *dst = tmp;
    for (int d = 0; d < 8; d++) {
        size_t *c = count[d];
        if (c[(desc_key(src[0].time) >> (8 * d)) & 255] == (size_t)n)
            continue; /* every key has this digit: the pass would not move anything */
        size_t at = 0;
        for (int b = 0; b < 256; b++) {
            size_t k = c[b];
            c[b] = at;
            at += k;
        }
        for (int i = 0; i < n; i++)
            dst[c[(desc_key(src[i].time) >> (8 * d)) & 255]++] = src[i];
        far_lpt_entry *t = src;
        src = dst, dst = t;
    }
    if (src != e)
        memcpy(e, src, (size_t)n * sizeof *e);
}
