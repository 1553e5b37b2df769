/* mintree.c: a leftmost-minimum segment tree, so choosing a GPU costs O(log G) per change
 * instead of a scan over every GPU per event. */
#include "internal.h"

#include <stdlib.h>

int msi_mintree_init(msi_mintree *t, int n)
{
    t->n = 1;
    while (t->n < n)
        t->n *= 2;
    t->key = malloc(2 * (size_t)t->n * sizeof *t->key);
    if (!t->key)
        return MS_ENOMEM;
    for (int i = 0; i < 2 * t->n; i++)
        t->key[i] = MSI_NONE;
    return MS_OK;
}

void msi_mintree_free(msi_mintree *t)
{
    free(t->key);
    t->key = NULL;
}

void msi_mintree_set(msi_mintree *t, int i, uint64_t key)
{
    int k = t->n + i;
    if (t->key[k] == key)
        return;
    t->key[k] = key;
    for (k /= 2; k >= 1; k /= 2) {
        uint64_t a = t->key[2 * k], b = t->key[2 * k + 1], v = a < b ? a : b;
        if (t->key[k] == v)
            break; /* ancestors are unchanged too */
        t->key[k] = v;
    }
}

uint64_t msi_mintree_get(const msi_mintree *t, int i) { return t->key[t->n + i]; }

int msi_mintree_argmin(const msi_mintree *t)
{
    if (t->key[1] == MSI_NONE)
        return -1;
    int k = 1;
    while (k < t->n)
        k = t->key[2 * k] == t->key[k] ? 2 * k : 2 * k + 1;
    return k - t->n;
}
