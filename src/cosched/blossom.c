/* blossom.c: maximum-weight matching in a general graph with Edmonds' blossom algorithm
 * (primal-dual, O(n^3), after Galil 1986 "Efficient algorithms for finding maximum matching
 * in graphs"). Weights are scaled to integers so that every dual value stays an exact
 * integer in a double: the matching is optimal for the scaled weights (relative rounding
 * 2^-30 of the largest weight). Vertex duals are stored doubled, as in Galil's exposition.
 *
 * INVARIANTS. Vertices are 0 .. nv - 1, blossoms nv .. 2nv - 1; edge k has the endpoints
 * 2k (at eu[k]) and 2k + 1 (at ev[k]), endpoint[p] is p's vertex and p ^ 1 the other end.
 *
 *   1. nb[nb_off[v] .. nb_off[v + 1]) are the remote endpoints of v's edges.
 *   2. mate[v] is the remote endpoint of v's matched edge (-1: v is single), and matching
 *      is symmetric: mate[endpoint[mate[v]]] == mate[v] ^ 1. Each stage that augments adds
 *      one edge to the matching; the first stage that does not ends the algorithm.
 *   3. inblossom[v] is the top-level blossom holding vertex v (v itself when none);
 *      bparent[b] the blossom whose child b is (-1: top level); childs[b] are b's
 *      nchilds[b] sub-blossoms round its odd cycle (3 or more, the base's first) and
 *      endps[b][i] the endpoint in childs[b][i] of the edge to the next one; bbase[b] is
 *      b's base vertex, -1 for a blossom id not in use (those are unused[0 .. nunused)).
 *   4. Within a stage, a top-level blossom's label is 0 (free), 1 (S: outer) or 2 (T:
 *      inner), and 5 only inside scan_blossom (an S-blossom marked as passed, back to 1
 *      before it returns). labelend[b] is the remote endpoint of the edge b got its label
 *      through (-1: an S-root, whose base is single). The queue holds S-vertices to
 *      scan. run_stages clears labels, best edges and allow at the start of each stage.
 *   5. dual[v] is twice the vertex dual u(v), dual[b] the blossom dual z(b). Always
 *      dual[v] >= 0, dual[b] >= 0 for a blossom in use, and every dual is an integer
 *      (slack between two S-vertices is even, so delta stays one). slack(k) >= 0 for an
 *      edge whose ends lie in different top-level blossoms (inside a blossom the z of the
 *      blossoms holding both ends make up for slack), and 0 for a matched one of those.
 *   6. allow[k] set: edge k was found tight this stage and may be used; a clear allow does
 *      not say the edge is not tight.
 *   7. bestedge[v] of a free vertex (or one not reached in a T-blossom) is its least-slack
 *      edge to an S-vertex, and bestedge[b] of a top-level S-blossom its least-slack edge
 *      to another S-blossom (-1: none known); bbest[b] (nbbest[b] entries, -1: not kept)
 *      lists, per neighbouring S-blossom, b's least-slack edge to it.
 *   8. A stage ends without augmenting only when delta is the least vertex dual (type
 *      1). A single vertex has been an S-root in every stage, so all single vertices share
 *      that least dual, which is then 0: with 5, the matching is optimal.
 *
 * Debug builds (MIGSCHED_DEBUG_CHECKS) check 2, 3's odd cycles and 5 after every stage
 * that augments, and 8's single vertices at the end. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"

typedef struct bl {
    int nv, ne;
    const int *eu, *ev;
    double *w, *dual;
    int *endpoint, *nb_off, *nb;
    int *mate, *label, *labelend, *inblossom, *bparent, *bbase, *bestedge, *unused, nunused;
    int **childs, **endps, *nchilds, **bbest, *nbbest;
    char *allow;
    int *queue, qlen, qcap, *tmp;
    int oom;
} bl;

static int wrap(int j, int len) { return ((j % len) + len) % len; }
static double slack(const bl *g, int k)
{
    return g->dual[g->eu[k]] + g->dual[g->ev[k]] - 2 * g->w[k];
}

/* Appends the vertices of blossom b to out. */
static void leaves(const bl *g, int b, int *out, int *n)
{
    if (b < g->nv) {
        out[(*n)++] = b;
        return;
    }
    for (int i = 0; i < g->nchilds[b]; i++)
        leaves(g, g->childs[b][i], out, n);
}

static void push(bl *g, int v)
{
    if (g->qlen == g->qcap) {
        int *q = realloc(g->queue, sizeof(int) * (size_t)(g->qcap * 2));
        if (!q) {
            g->oom = 1;
            return;
        }
        g->queue = q, g->qcap *= 2;
    }
    g->queue[g->qlen++] = v;
}

static void assign_label(bl *g, int w, int t, int p)
{
    int b = g->inblossom[w];
    g->label[w] = g->label[b] = t;
    g->labelend[w] = g->labelend[b] = p;
    g->bestedge[w] = g->bestedge[b] = -1;
    if (t == 1) {
        int n = 0;
        leaves(g, b, g->tmp, &n);
        for (int i = 0; i < n; i++)
            push(g, g->tmp[i]);
    } else {
        int base = g->bbase[b];
        assign_label(g, g->endpoint[g->mate[base]], 1, g->mate[base] ^ 1);
    }
}

/* Traces back from v and w: the base of a new blossom, or -1 for an augmenting path. */
static int scan_blossom(bl *g, int v, int w)
{
    int *path = g->tmp, np = 0, base = -1;
    while (v != -1 || w != -1) {
        int b = g->inblossom[v];
        if (g->label[b] & 4) {
            base = g->bbase[b];
            break;
        }
        path[np++] = b;
        g->label[b] = 5;
        if (g->labelend[b] == -1)
            v = -1;
        else {
            v = g->endpoint[g->labelend[b]];
            b = g->inblossom[v];
            v = g->endpoint[g->labelend[b]];
        }
        if (w != -1) {
            int t = v;
            v = w, w = t;
        }
    }
    for (int i = 0; i < np; i++)
        g->label[path[i]] = 1;
    return base;
}

static void add_blossom(bl *g, int base, int k)
{
    int v = g->eu[k], w = g->ev[k], bb = g->inblossom[base], bv = g->inblossom[v],
        bw = g->inblossom[w];
    int b = g->unused[--g->nunused], cap = 2 * g->nv + 1;
    int *path = malloc(sizeof(int) * (size_t)cap), *endps = malloc(sizeof(int) * (size_t)cap);
    int *bestto = malloc(sizeof(int) * (size_t)(2 * g->nv)), np = 0, ne = 0;
    if (!path || !endps || !bestto) {
        free(path), free(endps), free(bestto);
        g->oom = 1;
        return;
    }
    g->bbase[b] = base;
    g->bparent[b] = -1;
    g->bparent[bb] = b;
    while (bv != bb) {
        g->bparent[bv] = b;
        path[np++] = bv;
        endps[ne++] = g->labelend[bv];
        v = g->endpoint[g->labelend[bv]];
        bv = g->inblossom[v];
    }
    path[np++] = bb;
    for (int i = 0; i < np / 2; i++) {
        int t = path[i];
        path[i] = path[np - 1 - i], path[np - 1 - i] = t;
    }
    for (int i = 0; i < ne / 2; i++) {
        int t = endps[i];
        endps[i] = endps[ne - 1 - i], endps[ne - 1 - i] = t;
    }
    endps[ne++] = 2 * k;
    while (bw != bb) {
        g->bparent[bw] = b;
        path[np++] = bw;
        endps[ne++] = g->labelend[bw] ^ 1;
        w = g->endpoint[g->labelend[bw]];
        bw = g->inblossom[w];
    }
    g->childs[b] = path, g->endps[b] = endps, g->nchilds[b] = np;
    g->label[b] = 1;
    g->labelend[b] = g->labelend[bb];
    g->dual[b] = 0;
    int nl = 0;
    leaves(g, b, g->tmp, &nl);
    for (int i = 0; i < nl; i++) {
        int x = g->tmp[i];
        if (g->label[g->inblossom[x]] == 2)
            push(g, x); /* a T-vertex becomes an S-vertex inside an S-blossom */
        g->inblossom[x] = b;
    }
    /* Least-slack edges from the new blossom to each neighbouring S-blossom. */
    for (int i = 0; i < 2 * g->nv; i++)
        bestto[i] = -1;
    for (int i = 0; i < np; i++) {
        int s = path[i];
        int *list, nlist = 0, own = 0;
        if (g->nbbest[s] < 0) {
            int nls = 0;
            leaves(g, s, g->tmp, &nls);
            for (int q = 0; q < nls; q++)
                nlist += g->nb_off[g->tmp[q] + 1] - g->nb_off[g->tmp[q]];
            list = malloc(sizeof(int) * (size_t)(nlist + 1));
            if (!list) {
                g->oom = 1;
                break;
            }
            own = 1, nlist = 0;
            for (int q = 0; q < nls; q++)
                for (int r = g->nb_off[g->tmp[q]]; r < g->nb_off[g->tmp[q] + 1]; r++)
                    list[nlist++] = g->nb[r] / 2;
        } else
            list = g->bbest[s], nlist = g->nbbest[s];
        for (int q = 0; q < nlist; q++) {
            int kk = list[q], i2 = g->eu[kk], j2 = g->ev[kk];
            if (g->inblossom[j2] == b)
                j2 = i2;
            int bj = g->inblossom[j2];
            if (bj != b && g->label[bj] == 1 &&
                (bestto[bj] == -1 || slack(g, kk) < slack(g, bestto[bj])))
                bestto[bj] = kk;
        }
        if (own)
            free(list);
        free(g->bbest[s]);
        g->bbest[s] = NULL, g->nbbest[s] = -1;
        g->bestedge[s] = -1;
    }
    int nb = 0;
    for (int i = 0; i < 2 * g->nv; i++)
        if (bestto[i] != -1)
            bestto[nb++] = bestto[i];
    g->bbest[b] = bestto, g->nbbest[b] = nb;
    g->bestedge[b] = -1;
    for (int i = 0; i < nb; i++)
        if (g->bestedge[b] == -1 || slack(g, bestto[i]) < slack(g, g->bestedge[b]))
            g->bestedge[b] = bestto[i];
}

static int child_index(const bl *g, int b, int t)
{
    for (int i = 0; i < g->nchilds[b]; i++)
        if (g->childs[b][i] == t)
            return i;
    return 0;
}

static void expand_blossom(bl *g, int b, int endstage)
{
    for (int i = 0; i < g->nchilds[b]; i++) {
        int s = g->childs[b][i];
        g->bparent[s] = -1;
        if (s < g->nv)
            g->inblossom[s] = s;
        else if (endstage && g->dual[s] == 0)
            expand_blossom(g, s, endstage);
        else {
            int n = 0;
            leaves(g, s, g->tmp, &n);
            for (int q = 0; q < n; q++)
                g->inblossom[g->tmp[q]] = s;
        }
    }
    if (!endstage && g->label[b] == 2) {
        /* Relabel the sub-blossoms of an expanded T-blossom along the even path. */
        int L = g->nchilds[b], *ch = g->childs[b], *ep = g->endps[b];
        int entry = g->inblossom[g->endpoint[g->labelend[b] ^ 1]];
        int j = child_index(g, b, entry), jstep, trick;
        if (j & 1)
            j -= L, jstep = 1, trick = 0;
        else
            jstep = -1, trick = 1;
        int p = g->labelend[b];
        while (j != 0) {
            g->label[g->endpoint[p ^ 1]] = 0;
            g->label[g->endpoint[ep[wrap(j - trick, L)] ^ trick ^ 1]] = 0;
            assign_label(g, g->endpoint[p ^ 1], 2, p);
            g->allow[ep[wrap(j - trick, L)] / 2] = 1;
            j += jstep;
            p = ep[wrap(j - trick, L)] ^ trick;
            g->allow[p / 2] = 1;
            j += jstep;
        }
        int bv = ch[wrap(j, L)];
        g->label[g->endpoint[p ^ 1]] = g->label[bv] = 2;
        g->labelend[g->endpoint[p ^ 1]] = g->labelend[bv] = p;
        g->bestedge[bv] = -1;
        j += jstep;
        while (ch[wrap(j, L)] != entry) {
            bv = ch[wrap(j, L)];
            if (g->label[bv] == 1) {
                j += jstep;
                continue;
            }
            int n = 0, v = -1;
            leaves(g, bv, g->tmp, &n);
            for (int q = 0; q < n; q++)
                if (g->label[g->tmp[q]] != 0) {
                    v = g->tmp[q];
                    break;
                }
            if (v >= 0) {
                g->label[v] = 0;
                g->label[g->endpoint[g->mate[g->bbase[bv]]]] = 0;
                assign_label(g, v, 2, g->labelend[v]);
            }
            j += jstep;
        }
    }
    g->label[b] = g->labelend[b] = -1;
    free(g->childs[b]), free(g->endps[b]), free(g->bbest[b]);
    g->childs[b] = g->endps[b] = g->bbest[b] = NULL;
    g->nchilds[b] = 0, g->nbbest[b] = -1;
    g->bbase[b] = -1;
    g->bestedge[b] = -1;
    g->unused[g->nunused++] = b;
}

/* Swaps matched and unmatched edges on the path through blossom b from v to its base. */
static void augment_blossom(bl *g, int b, int v)
{
    int t = v;
    while (g->bparent[t] != b)
        t = g->bparent[t];
    if (t >= g->nv)
        augment_blossom(g, t, v);
    int L = g->nchilds[b], i = child_index(g, b, t), j = i, jstep, trick;
    int *ch = g->childs[b], *ep = g->endps[b];
    if (i & 1)
        j -= L, jstep = 1, trick = 0;
    else
        jstep = -1, trick = 1;
    while (j != 0) {
        j += jstep;
        t = ch[wrap(j, L)];
        int p = ep[wrap(j - trick, L)] ^ trick;
        if (t >= g->nv)
            augment_blossom(g, t, g->endpoint[p]);
        j += jstep;
        t = ch[wrap(j, L)];
        if (t >= g->nv)
            augment_blossom(g, t, g->endpoint[p ^ 1]);
        g->mate[g->endpoint[p]] = p ^ 1;
        g->mate[g->endpoint[p ^ 1]] = p;
    }
    /* Rotate so that the new base comes first. */
    int *nc = malloc(sizeof(int) * (size_t)L), *ne = malloc(sizeof(int) * (size_t)L);
    if (!nc || !ne) {
        free(nc), free(ne);
        g->oom = 1;
        return;
    }
    for (int q = 0; q < L; q++)
        nc[q] = ch[(i + q) % L], ne[q] = ep[(i + q) % L];
    memcpy(ch, nc, sizeof(int) * (size_t)L);
    memcpy(ep, ne, sizeof(int) * (size_t)L);
    free(nc), free(ne);
    g->bbase[b] = g->bbase[ch[0]];
}

static void augment_matching(bl *g, int k)
{
    int ends[2][2] = {{g->eu[k], 2 * k + 1}, {g->ev[k], 2 * k}};
    for (int side = 0; side < 2; side++) {
        int s = ends[side][0], p = ends[side][1];
        for (;;) {
            int bs = g->inblossom[s];
            if (bs >= g->nv)
                augment_blossom(g, bs, s);
            g->mate[s] = p;
            if (g->labelend[bs] == -1)
                break;
            int t = g->endpoint[g->labelend[bs]], bt = g->inblossom[t];
            s = g->endpoint[g->labelend[bt]];
            int j = g->endpoint[g->labelend[bt] ^ 1];
            if (bt >= g->nv)
                augment_blossom(g, bt, j);
            g->mate[j] = g->labelend[bt];
            p = g->labelend[bt] ^ 1;
        }
    }
}

/* Scans the queue of S-vertices; returns 1 when the matching was augmented. */
static int scan_queue(bl *g)
{
    while (g->qlen > 0 && !g->oom) {
        int v = g->queue[--g->qlen];
        for (int r = g->nb_off[v]; r < g->nb_off[v + 1]; r++) {
            int p = g->nb[r], k = p / 2, w = g->endpoint[p];
            double ks = 0;
            if (g->inblossom[v] == g->inblossom[w])
                continue;
            if (!g->allow[k]) {
                ks = slack(g, k);
                if (ks <= 0)
                    g->allow[k] = 1;
            }
            if (g->allow[k]) {
                if (g->label[g->inblossom[w]] == 0)
                    assign_label(g, w, 2, p ^ 1);
                else if (g->label[g->inblossom[w]] == 1) {
                    int base = scan_blossom(g, v, w);
                    if (base >= 0)
                        add_blossom(g, base, k);
                    else {
                        augment_matching(g, k);
                        return 1;
                    }
                } else if (g->label[w] == 0) {
                    g->label[w] = 2;
                    g->labelend[w] = p ^ 1;
                }
            } else if (g->label[g->inblossom[w]] == 1) {
                int b = g->inblossom[v];
                if (g->bestedge[b] == -1 || ks < slack(g, g->bestedge[b]))
                    g->bestedge[b] = k;
            } else if (g->label[w] == 0) {
                if (g->bestedge[w] == -1 || ks < slack(g, g->bestedge[w]))
                    g->bestedge[w] = k;
            }
        }
    }
    return 0;
}

/* Dual adjustment; returns 1 when the optimum is reached (delta1). */
static int update_duals(bl *g)
{
    int nv = g->nv, type = 1, dedge = -1, dbl = -1;
    double delta = INFINITY;
    for (int v = 0; v < nv; v++)
        if (g->dual[v] < delta)
            delta = g->dual[v];
    for (int v = 0; v < nv; v++)
        if (g->label[g->inblossom[v]] == 0 && g->bestedge[v] != -1 &&
            slack(g, g->bestedge[v]) < delta)
            delta = slack(g, g->bestedge[v]), type = 2, dedge = g->bestedge[v];
    for (int b = 0; b < 2 * nv; b++)
        if (g->bparent[b] == -1 && g->label[b] == 1 && g->bestedge[b] != -1 &&
            slack(g, g->bestedge[b]) / 2 < delta)
            delta = slack(g, g->bestedge[b]) / 2, type = 3, dedge = g->bestedge[b];
    for (int b = nv; b < 2 * nv; b++)
        if (g->bbase[b] >= 0 && g->bparent[b] == -1 && g->label[b] == 2 && g->dual[b] < delta)
            delta = g->dual[b], type = 4, dbl = b;
    for (int v = 0; v < nv; v++) {
        int l = g->label[g->inblossom[v]];
        g->dual[v] += l == 1 ? -delta : l == 2 ? delta : 0;
    }
    for (int b = nv; b < 2 * nv; b++)
        if (g->bbase[b] >= 0 && g->bparent[b] == -1)
            g->dual[b] += g->label[b] == 1 ? delta : g->label[b] == 2 ? -delta : 0;
    if (type == 1)
        return 1;
    if (type == 4) {
        expand_blossom(g, dbl, 0);
        return 0;
    }
    g->allow[dedge] = 1;
    int i = g->eu[dedge];
    if (type == 2 && g->label[g->inblossom[i]] == 0)
        i = g->ev[dedge];
    push(g, i);
    return 0;
}

#ifdef MIGSCHED_DEBUG_CHECKS
/* Invariants 2 (with `stages` augmenting stages done), 3's odd cycles and 5. */
static void check_stage(const bl *g, int stages)
{
    int matched = 0;
    for (int v = 0; v < g->nv; v++) {
        int p = g->mate[v];
        if (p >= 0 && g->mate[g->endpoint[p]] != (p ^ 1))
            ms_invariant_failed("blossom", "vertex %d's mate %d is matched elsewhere", v,
                                g->endpoint[p]);
        matched += p >= 0;
        if (g->dual[v] < 0 || g->dual[v] != floor(g->dual[v]))
            ms_invariant_failed("blossom", "vertex %d has dual %g", v, g->dual[v]);
    }
    if (matched != 2 * stages)
        ms_invariant_failed("blossom", "%d matched vertices after %d augmentations", matched,
                            stages);
    for (int b = g->nv; b < 2 * g->nv; b++)
        if (g->bbase[b] >= 0 && (g->dual[b] < 0 || g->dual[b] != floor(g->dual[b]) ||
                                 g->nchilds[b] < 3 || g->nchilds[b] % 2 == 0))
            ms_invariant_failed("blossom", "blossom %d has dual %g and %d children", b, g->dual[b],
                                g->nchilds[b]);
    for (int k = 0; k < g->ne; k++) {
        if (g->inblossom[g->eu[k]] == g->inblossom[g->ev[k]])
            continue;
        double s = slack(g, k);
        if (s < 0 || (g->mate[g->eu[k]] == 2 * k + 1 && s != 0))
            ms_invariant_failed("blossom", "edge %d has slack %g", k, s);
    }
}

/* Invariant 8 at the end: no single vertex keeps a positive dual. */
static void check_optimum(const bl *g)
{
    for (int v = 0; v < g->nv; v++)
        if (g->mate[v] < 0 && g->dual[v] != 0)
            ms_invariant_failed("blossom", "single vertex %d keeps dual %g", v, g->dual[v]);
}
#endif

static void run_stages(bl *g)
{
    int nv = g->nv;
    for (int stage = 0; stage < nv && !g->oom; stage++) {
        for (int b = 0; b < 2 * nv; b++)
            g->label[b] = 0, g->bestedge[b] = -1;
        for (int b = nv; b < 2 * nv; b++) {
            free(g->bbest[b]);
            g->bbest[b] = NULL, g->nbbest[b] = -1;
        }
        memset(g->allow, 0, (size_t)g->ne + 1);
        g->qlen = 0;
        for (int v = 0; v < nv; v++)
            if (g->mate[v] == -1 && g->label[g->inblossom[v]] == 0)
                assign_label(g, v, 1, -1);
        int augmented = 0;
        while (!g->oom) {
            if ((augmented = scan_queue(g)))
                break;
            if (update_duals(g))
                break;
        }
        if (!augmented)
            break;
        for (int b = nv; b < 2 * nv; b++)
            if (g->bparent[b] == -1 && g->bbase[b] >= 0 && g->label[b] == 1 && g->dual[b] == 0)
                expand_blossom(g, b, 1);
#ifdef MIGSCHED_DEBUG_CHECKS
        if (!g->oom)
            check_stage(g, stage + 1);
#endif
    }
#ifdef MIGSCHED_DEBUG_CHECKS
    if (!g->oom)
        check_optimum(g);
#endif
}

static int bl_init(bl *g, int nv, int ne, const int *eu, const int *ev)
{
    memset(g, 0, sizeof *g);
    g->nv = nv, g->ne = ne, g->eu = eu, g->ev = ev, g->qcap = 4 * nv + 4;
    size_t n2 = (size_t)(2 * nv + 1);
    g->w = calloc((size_t)ne + 1, sizeof(double)), g->dual = calloc(n2, sizeof(double));
    g->endpoint = malloc(sizeof(int) * (size_t)(2 * ne + 1));
    g->nb_off = calloc((size_t)nv + 2, sizeof(int)),
    g->nb = malloc(sizeof(int) * (size_t)(2 * ne + 1));
    g->mate = malloc(sizeof(int) * n2), g->label = calloc(n2, sizeof(int));
    g->labelend = malloc(sizeof(int) * n2), g->inblossom = malloc(sizeof(int) * n2);
    g->bparent = malloc(sizeof(int) * n2), g->bbase = malloc(sizeof(int) * n2);
    g->bestedge = malloc(sizeof(int) * n2), g->unused = malloc(sizeof(int) * n2);
    g->childs = calloc(n2, sizeof(int *)), g->endps = calloc(n2, sizeof(int *));
    g->nchilds = calloc(n2, sizeof(int)), g->bbest = calloc(n2, sizeof(int *));
    g->nbbest = malloc(sizeof(int) * n2), g->allow = calloc((size_t)ne + 1, 1);
    g->queue = malloc(sizeof(int) * (size_t)g->qcap), g->tmp = malloc(sizeof(int) * n2);
    if (!g->w || !g->dual || !g->endpoint || !g->nb_off || !g->nb || !g->mate || !g->label ||
        !g->labelend || !g->inblossom || !g->bparent || !g->bbase || !g->bestedge || !g->unused ||
        !g->childs || !g->endps || !g->nchilds || !g->bbest || !g->nbbest || !g->allow ||
        !g->queue || !g->tmp)
        return MS_ENOMEM;
    for (int k = 0; k < ne; k++) {
        g->endpoint[2 * k] = eu[k], g->endpoint[2 * k + 1] = ev[k];
        g->nb_off[eu[k] + 2]++, g->nb_off[ev[k] + 2]++;
    }
    for (int v = 0; v < nv; v++)
        g->nb_off[v + 2] += g->nb_off[v + 1];
    for (int k = 0; k < ne; k++)
        g->nb[g->nb_off[eu[k] + 1]++] = 2 * k + 1, g->nb[g->nb_off[ev[k] + 1]++] = 2 * k;
    for (int v = 0; v < nv; v++)
        g->mate[v] = -1, g->inblossom[v] = v;
    for (int b = 0; b < 2 * nv; b++) {
        g->labelend[b] = -1, g->bparent[b] = -1, g->bestedge[b] = -1, g->nbbest[b] = -1;
        g->bbase[b] = b < nv ? b : -1;
    }
    for (int b = 2 * nv - 1; b >= nv; b--)
        g->unused[g->nunused++] = b;
    return MS_OK;
}

static void bl_free(bl *g)
{
    for (int b = 0; b < 2 * g->nv && g->childs; b++) {
        free(g->childs[b]), free(g->endps[b]);
        if (g->bbest)
            free(g->bbest[b]);
    }
    free(g->w), free(g->dual), free(g->endpoint), free(g->nb_off), free(g->nb), free(g->mate);
    free(g->label), free(g->labelend), free(g->inblossom), free(g->bparent), free(g->bbase);
    free(g->bestedge), free(g->unused), free(g->childs), free(g->endps), free(g->nchilds);
    free(g->bbest), free(g->nbbest), free(g->allow), free(g->queue), free(g->tmp);
}

int ms_max_weight_matching(int nv, int ne, const int *eu, const int *ev, const double *w, int *mate,
                           ms_error *err)
{
    /* Keep positive-weight edges between distinct vertices. */
    int *ku = malloc(sizeof(int) * (size_t)(ne + 1)), *kv = malloc(sizeof(int) * (size_t)(ne + 1));
    int m = 0, rc = MS_OK;
    double wmax = 0;
    bl g;
    memset(&g, 0, sizeof g);
    if (!ku || !kv) {
        free(ku), free(kv);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    for (int k = 0; k < ne; k++) {
        if (eu[k] < 0 || ev[k] < 0 || eu[k] >= nv || ev[k] >= nv) {
            free(ku), free(kv);
            return ms_error_set(err, MS_EINVAL, "matching: edge %d has a bad endpoint", k);
        }
        if (eu[k] != ev[k] && w[k] > 0 && isfinite(w[k]))
            ku[m] = eu[k], kv[m++] = ev[k], wmax = w[k] > wmax ? w[k] : wmax;
    }
    if (bl_init(&g, nv, m, ku, kv))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else {
        for (int k = 0, q = 0; k < ne; k++)
            if (eu[k] != ev[k] && w[k] > 0 && isfinite(w[k]))
                g.w[q++] = round(w[k] / wmax * 1073741824.0);
        for (int v = 0; v < nv; v++)
            g.dual[v] = 1073741824.0; /* max weight (scaled) */
        run_stages(&g);
        if (g.oom)
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        for (int v = 0; v < nv && !rc; v++)
            mate[v] = g.mate[v] >= 0 ? g.endpoint[g.mate[v]] : -1;
    }
    bl_free(&g);
    free(ku), free(kv);
    return rc;
}
