/* cover.c: turning a path cover (spine paths, pendant leaves, time alone) into a schedule
 * without preemption: walk each path, and at each stop run the task alone, then its
 * pendant leaves one after the other, then the next spine edge (paper 003 Algorithm 4). */
#include <stdlib.h>

#include "migsched/cosched.h"

typedef struct cover_walk {
    const ms_cosched_cover *c;
    int *sdeg, *sadj, *phead, *pnext, *is_leaf, *seen;
    ms_cosched_schedule *s;
} cover_walk;

static int emit_stop(cover_walk *w, int u, ms_error *err)
{
    const ms_cosched_cover *c = w->c;
    int rc = ms_cosched_schedule_add(w->s, c->alone[u], u, -1, err);
    for (int k = w->phead[u]; k >= 0 && !rc; k = w->pnext[k]) {
        int leaf = c->pend[k].b;
        rc = ms_cosched_schedule_add(w->s, c->alone[leaf], leaf, -1, err);
        if (!rc)
            rc = ms_cosched_schedule_add(w->s, c->pend[k].x, u, leaf, err);
    }
    return rc;
}

static int walk_path(cover_walk *w, int start, ms_error *err)
{
    int u = start, prev = -1, rc = MS_OK;
    while (u >= 0 && !rc) {
        w->seen[u] = 1;
        rc = emit_stop(w, u, err);
        int next = -1;
        for (int j = 0; j < w->sdeg[u]; j++)
            if (w->sadj[2 * u + j] != prev)
                next = w->sadj[2 * u + j];
        if (next >= 0 && !rc) {
            const ms_cosched_edge *e = &w->c->spine[next];
            rc = ms_cosched_schedule_add(w->s, e->x, e->a, e->b, err);
            u = e->a == u ? e->b : e->a;
        } else
            u = -1;
        prev = next;
    }
    return rc;
}

static int check_cover(cover_walk *w, ms_error *err)
{
    const ms_cosched_cover *c = w->c;
    for (int k = 0; k < c->nspine; k++) {
        int a = c->spine[k].a, b = c->spine[k].b;
        if (a < 0 || b < 0 || a >= c->n || b >= c->n || a == b)
            return ms_error_set(err, MS_EINVAL, "cover: bad spine edge %d", k);
        if (w->sdeg[a] == 2 || w->sdeg[b] == 2)
            return ms_error_set(err, MS_EINVAL, "cover: a task has more than two spine edges");
        w->sadj[2 * a + w->sdeg[a]++] = k;
        w->sadj[2 * b + w->sdeg[b]++] = k;
    }
    for (int k = 0; k < c->npend; k++) {
        int a = c->pend[k].a, b = c->pend[k].b;
        if (a < 0 || b < 0 || a >= c->n || b >= c->n || a == b || w->is_leaf[b] || w->sdeg[b])
            return ms_error_set(err, MS_EINVAL, "cover: bad pendant edge %d", k);
        w->is_leaf[b] = 1;
        w->pnext[k] = w->phead[a], w->phead[a] = k;
    }
    for (int k = 0; k < c->npend; k++)
        if (w->is_leaf[c->pend[k].a])
            return ms_error_set(err, MS_EINVAL, "cover: pendant centre is itself a leaf");
    return MS_OK;
}

int ms_cosched_cover_schedule(const ms_cosched_cover *c, ms_cosched_schedule **out, ms_error *err)
{
    *out = NULL;
    int n = c->n, rc = MS_OK;
    cover_walk w = {c, NULL, NULL, NULL, NULL, NULL, NULL, ms_cosched_schedule_new(n)};
    int *mem = calloc((size_t)(6 * n + c->npend + 1), sizeof(int));
    if (!mem || !w.s) {
        free(mem);
        ms_cosched_schedule_free(w.s);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    w.sdeg = mem, w.sadj = mem + n, w.phead = mem + 3 * n, w.is_leaf = mem + 4 * n;
    w.seen = mem + 5 * n, w.pnext = mem + 6 * n;
    for (int i = 0; i < n; i++)
        w.phead[i] = -1;
    rc = check_cover(&w, err);
    /* Paths from their lower-numbered end; what is left unseen lies on a cycle. */
    for (int u = 0; u < n && !rc; u++)
        if (!w.is_leaf[u] && !w.seen[u] && w.sdeg[u] <= 1)
            rc = walk_path(&w, u, err);
    for (int u = 0; u < n && !rc; u++)
        if (!w.is_leaf[u] && !w.seen[u])
            rc = ms_error_set(err, MS_EINVAL, "cover: spine edges form a cycle");
    free(mem);
    if (rc) {
        ms_cosched_schedule_free(w.s);
        return rc;
    }
    *out = w.s;
    return MS_OK;
}
