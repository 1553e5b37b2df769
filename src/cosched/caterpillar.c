/* caterpillar.c: CaterpillarSplit (paper 003 4.2): split G(x*) into the fewest edge-disjoint
 * caterpillars and order the LP's intervals caterpillar by caterpillar.
 *
 * Instead of applying Lemmas 2-7 one by one, this solves CATERPILLARSPLIT exactly with a
 * dynamic program over the same structure. Each edge of a caterpillar is, at each end, either
 * a path edge (P), a pendant seen from its centre (C) or seen from its leaf (L). At a vertex
 * the edges it keeps on a path are grouped two by two (a group = one caterpillar through the
 * vertex), pendants join any group, an L edge is alone. Counting half a caterpillar per path
 * end, a vertex with a path edges and b pendants costs a mod 2 (a > 0), 2 (a = 0 < b) or 0.
 * On a tree the minimum total / 2 is the fewest caterpillars (Lemmas 2-4 reach the same
 * optimum). On a pseudo-tree one cycle vertex v must separate its two cycle edges (Lemmas
 * 5-7 choose which): we try every v and type of the removed cycle edge. Preemptions are
 * caterpillars - 1 per tree and caterpillars per pseudo-tree.
 *
 * INVARIANTS (vertex ends of edge e: 0 = eu[e], 1 = ev[e]):
 *
 *   1. adj[adj_off[v] .. adj_off[v + 1]) are the ids of the edges at v: each edge is listed
 *      once at each of its two distinct ends (ctx_init rejects a loop).
 *   2. comp is a union-find over the vertices whose roots are each component's smallest
 *      vertex; cnt[2r] and cnt[2r + 1] count root r's vertices k and edges m. m = k - 1: a
 *      tree; m = k: one cycle (unicyclic); m > k is rejected. There, core[v] = 1 exactly
 *      for the vertices on the cycle of a unicyclic component (what stripping leaves
 *      keeps), so each core vertex has two cycle edges (possibly parallel ones).
 *   3. During one DP from a root (c->cut: the cycle edge taken out, -1 none):
 *      order[0 .. norder) lists the component in BFS order without edge cut, parent_edge[x]
 *      is the edge to x's parent (-1 at the root), so a vertex comes after its parent.
 *   4. A state s = 2a + b at a vertex: a = its path (P) ends so far, exact up to 6 and
 *      then 5 or 6 with the true count's parity (f_cost and f_sep need a exactly only up to
 *      4, then whether it is 0 and its parity); b = whether a pendant centre (C) end is
 *      there. Vertex extra_v also counts edge cut's end there, in role extra_role.
 *   5. Once dp_up has passed x, dp[3x + r] is the least total f_cost over x's subtree (x
 *      included) when x's parent edge has role r at x; it is finite. layers[i * NS + s]
 *      after child_layers: the least total over x's first i children's subtrees that
 *      leaves x in state s (INF: none does).
 *   6. A total counts 2 per caterpillar: one at each end of its path, or 2 at the centre
 *      of a star (a path of one vertex). So a tree's least total is twice its fewest
 *      caterpillars, and so is a unicyclic component's least total over the cycle
 *      vertices its cycle may be split at (solve_at each).
 *   7. After the fixing passes, role[2e + j] is e's role at end j and the two ends pair up:
 *      (P, P), (C, L) or (L, C). sep[r] holds a unicyclic component's split (its cycle
 *      vertex v, the cycle edges e1 = the cut one and e2 kept apart, and how many other
 *      path edges x1, x2 join each); sep[r].v = -1 for a tree.
 *   8. gid[2e + j] is the copy of e's end-j vertex that e's caterpillar passes: a copy
 *      holds at most two P ends, any number of C ends, and an L end only alone. Edges that
 *      share a copy are one caterpillar (uf over the edges); there are splits + the number
 *      of tree components of them.
 *   9. order receives every edge once, a caterpillar's edges one after another: along its
 *      path, each stop's pendants before the path edge out of it.
 *
 * Debug builds (MIGSCHED_DEBUG_CHECKS) check 7's role pairs, 8 and 9 after each solve. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"

enum { R_P, R_C, R_L, NROLES };
#define NA  7 /* path-edge count a: exact up to 6, then 5 (odd) or 6 (even) */
#define NS  (NA * 2)
#define INF (INT_MAX / 4)

static int a_inc(int a) { return a < 6 ? a + 1 : 5; }
static int f_cost(int a, int b) { return a ? a % 2 : (b ? 2 : 0); }
static int grp_cost(int q) { return q == 0 ? 2 : q == 1 ? 1 : 0; }
static int st(int a, int b) { return a * 2 + b; }

/* Edge types: at (lower end, upper end) = (P,P), (C,L), (L,C) seen from parent x, child c. */
static const int type_at_parent[3] = {R_P, R_C, R_L};
static const int type_at_child[3] = {R_P, R_L, R_C};

typedef struct cat_ctx {
    int nv, ne;
    const int *eu, *ev;
    int *adj_off, *adj; /* CSR: adj holds edge ids */
    int *parent_edge, *order, norder;
    int *dp;                 /* dp[v*3 + role of parent edge at v] */
    int cut;                 /* edge removed to make a tree (-1 none) */
    int extra_v, extra_role; /* the removed edge's role at its far end */
    int *role;               /* role[2*e + (end is ev)] */
} cat_ctx;

static int other(const cat_ctx *c, int e, int x) { return c->eu[e] == x ? c->ev[e] : c->eu[e]; }
static int end_index(const cat_ctx *c, int e, int x) { return c->eu[e] == x ? 0 : 1; }

/* BFS from root over the component, skipping edge cut; fills order and parent_edge. */
static void bfs(cat_ctx *c, int root)
{
    c->norder = 0;
    c->order[c->norder++] = root;
    c->parent_edge[root] = -1;
    for (int h = 0; h < c->norder; h++) {
        int x = c->order[h];
        for (int k = c->adj_off[x]; k < c->adj_off[x + 1]; k++) {
            int e = c->adj[k], y = other(c, e, x);
            if (e == c->cut || e == c->parent_edge[x])
                continue;
            c->parent_edge[y] = e;
            c->order[c->norder++] = y;
        }
    }
}

static void init_state(int a, int b, int role, int *na, int *nb)
{
    *na = role == R_P ? a_inc(a) : a;
    *nb = b || role == R_C;
}

/* Forward DP over x's children (skipping edge skip): layers[(i+1)*NS + s] after child i. */
static int child_layers(const cat_ctx *c, int x, int a0, int b0, int skip, int *layers, int *kids)
{
    int nk = 0;
    for (int k = c->adj_off[x]; k < c->adj_off[x + 1]; k++) {
        int e = c->adj[k];
        if (e != c->cut && e != c->parent_edge[x] && e != skip)
            kids[nk++] = e;
    }
    for (int s = 0; s < NS; s++)
        layers[s] = INF;
    layers[st(a0, b0)] = 0;
    for (int i = 0; i < nk; i++) {
        int y = other(c, kids[i], x), *prev = layers + i * NS, *cur = prev + NS;
        for (int s = 0; s < NS; s++)
            cur[s] = INF;
        for (int s = 0; s < NS; s++) {
            if (prev[s] >= INF)
                continue;
            for (int t = 0; t < 3; t++) {
                int na, nb, v = prev[s] + c->dp[y * 3 + type_at_child[t]];
                init_state(s / 2, s % 2, type_at_parent[t], &na, &nb);
                if (v < cur[st(na, nb)])
                    cur[st(na, nb)] = v;
            }
        }
    }
    return nk;
}

static void start_state(const cat_ctx *c, int x, int parent_role, int *a, int *b)
{
    *a = 0, *b = 0;
    if (parent_role >= 0)
        init_state(*a, *b, parent_role, a, b);
    if (x == c->extra_v)
        init_state(*a, *b, c->extra_role, a, b);
}

/* Bottom-up: dp of every non-root vertex for each role of its parent edge. */
static void dp_up(cat_ctx *c, int *layers, int *kids)
{
    for (int h = c->norder - 1; h >= 1; h--) {
        int x = c->order[h];
        for (int r = 0; r < NROLES; r++) {
            int a, b, best = INF;
            start_state(c, x, r, &a, &b);
            int nk = child_layers(c, x, a, b, -1, layers, kids);
            for (int s = 0; s < NS; s++)
                if (layers[nk * NS + s] < INF && layers[nk * NS + s] + f_cost(s / 2, s % 2) < best)
                    best = layers[nk * NS + s] + f_cost(s / 2, s % 2);
            c->dp[x * 3 + r] = best;
        }
    }
}

/* Walks the layers back from final state s, fixing each child's edge type. */
static void backtrack(cat_ctx *c, int x, int nk, int s, const int *layers, const int *kids)
{
    for (int i = nk - 1; i >= 0; i--) {
        int e = kids[i], y = other(c, e, x), found = 0;
        for (int p = 0; p < NS && !found; p++) {
            if (layers[i * NS + p] >= INF)
                continue;
            for (int t = 0; t < 3 && !found; t++) {
                int na, nb;
                init_state(p / 2, p % 2, type_at_parent[t], &na, &nb);
                if (st(na, nb) == s && layers[i * NS + p] + c->dp[y * 3 + type_at_child[t]] ==
                                           layers[(i + 1) * NS + s]) {
                    c->role[2 * e + end_index(c, e, x)] = type_at_parent[t];
                    c->role[2 * e + end_index(c, e, y)] = type_at_child[t];
                    s = p;
                    found = 1;
                }
            }
        }
    }
}

/* Top-down: fix the edge types of every non-root vertex's children. */
static void fix_below(cat_ctx *c, int *layers, int *kids)
{
    for (int h = 1; h < c->norder; h++) {
        int x = c->order[h], pe = c->parent_edge[x], r = c->role[2 * pe + end_index(c, pe, x)];
        int a, b, best = INF, bs = 0;
        start_state(c, x, r, &a, &b);
        int nk = child_layers(c, x, a, b, -1, layers, kids);
        for (int s = 0; s < NS; s++)
            if (layers[nk * NS + s] < INF && layers[nk * NS + s] + f_cost(s / 2, s % 2) < best)
                best = layers[nk * NS + s] + f_cost(s / 2, s % 2), bs = s;
        backtrack(c, x, nk, bs, layers, kids);
    }
}

/* Cost at the cycle root v: e1 (role r1) and e2 (role r2) must be in different groups.
 * *x1, *x2 get how many other path edges join each of their groups. */
static int f_sep(int a, int b, int r1, int r2, int *x1o, int *x2o)
{
    *x1o = *x2o = 0;
    if (r1 == R_L || r2 == R_L) {
        int na = a, nb = b;
        if (r1 != R_L)
            init_state(na, nb, r1, &na, &nb);
        if (r2 != R_L)
            init_state(na, nb, r2, &na, &nb);
        return f_cost(na, nb);
    }
    int pp1 = r1 == R_P, pp2 = r2 == R_P, best = INF;
    for (int x1 = 0; x1 <= 2 - pp1; x1++)
        for (int x2 = 0; x2 <= 2 - pp2; x2++) {
            if (x1 + x2 > a)
                continue;
            int rest = a - x1 - x2;
            int v = grp_cost(pp1 + x1) + grp_cost(pp2 + x2) + (rest > 0 ? rest % 2 : 0);
            if (v < best)
                best = v, *x1o = x1, *x2o = x2;
        }
    return best;
}

/* Tree component rooted at root: returns the minimum total of half-caterpillars. */
static int solve_tree(cat_ctx *c, int root, int *layers, int *kids, int fix)
{
    bfs(c, root);
    dp_up(c, layers, kids);
    int best = INF, bs = 0, nk = child_layers(c, root, 0, 0, -1, layers, kids);
    for (int s = 0; s < NS; s++)
        if (layers[nk * NS + s] < INF && layers[nk * NS + s] + f_cost(s / 2, s % 2) < best)
            best = layers[nk * NS + s] + f_cost(s / 2, s % 2), bs = s;
    if (fix) {
        backtrack(c, root, nk, bs, layers, kids);
        fix_below(c, layers, kids);
    }
    return best;
}

typedef struct cycle_choice {
    int v, e1, e2, t1, t2, x1, x2, cost;
} cycle_choice;

/* Unicyclic component: v on the cycle with cycle edges e1 (removed) and e2. */
static cycle_choice solve_at(cat_ctx *c, int v, int e1, int e2, int *layers, int *kids)
{
    cycle_choice best = {v, e1, e2, 0, 0, 0, 0, INF};
    for (int t1 = 0; t1 < 3; t1++) {
        c->cut = e1;
        c->extra_v = other(c, e1, v);
        c->extra_role = type_at_child[t1];
        bfs(c, v);
        dp_up(c, layers, kids);
        int nk = child_layers(c, v, 0, 0, e2, layers, kids), u2 = other(c, e2, v);
        for (int s = 0; s < NS; s++) {
            if (layers[nk * NS + s] >= INF)
                continue;
            for (int t2 = 0; t2 < 3; t2++) {
                int x1, x2;
                int cost = layers[nk * NS + s] + c->dp[u2 * 3 + type_at_child[t2]] +
                           f_sep(s / 2, s % 2, type_at_parent[t1], type_at_parent[t2], &x1, &x2);
                if (cost < best.cost)
                    best = (cycle_choice){v, e1, e2, t1, t2, x1, x2, cost};
            }
        }
    }
    return best;
}

/* Fixes roles for the best cycle choice (recomputes its DP). */
static void fix_cycle(cat_ctx *c, const cycle_choice *ch, int *layers, int *kids)
{
    c->cut = ch->e1;
    c->extra_v = other(c, ch->e1, ch->v);
    c->extra_role = type_at_child[ch->t1];
    bfs(c, ch->v);
    dp_up(c, layers, kids);
    int v = ch->v, nk = child_layers(c, v, 0, 0, ch->e2, layers, kids);
    int u2 = other(c, ch->e2, v), bs = -1;
    for (int s = 0; s < NS && bs < 0; s++) {
        int x1, x2;
        if (layers[nk * NS + s] < INF &&
            layers[nk * NS + s] + c->dp[u2 * 3 + type_at_child[ch->t2]] +
                    f_sep(s / 2, s % 2, type_at_parent[ch->t1], type_at_parent[ch->t2], &x1, &x2) ==
                ch->cost)
            bs = s;
    }
    backtrack(c, v, nk, bs, layers, kids);
    int e1 = ch->e1, e2 = ch->e2;
    c->role[2 * e1 + end_index(c, e1, v)] = type_at_parent[ch->t1];
    c->role[2 * e1 + 1 - end_index(c, e1, v)] = type_at_child[ch->t1];
    c->role[2 * e2 + end_index(c, e2, v)] = type_at_parent[ch->t2];
    c->role[2 * e2 + 1 - end_index(c, e2, v)] = type_at_child[ch->t2];
    fix_below(c, layers, kids);
}

static int uf_find(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}
static void uf_union(int *uf, int a, int b)
{
    a = uf_find(uf, a), b = uf_find(uf, b);
    if (a != b)
        uf[a > b ? a : b] = a < b ? a : b;
}

/* Groups the edges at x by their roles: each group is one copy of x (gid = copy id); the
 * edges of one group lie in one caterpillar. */
static void join(const cat_ctx *c, int *gid, int x, int keep, int e)
{
    gid[2 * e + end_index(c, e, x)] = gid[2 * keep + end_index(c, keep, x)];
}

static void group_at(const cat_ctx *c, int x, const cycle_choice *sep, int *gid, int *ngid,
                     int *buf)
{
    int deg = c->adj_off[x + 1] - c->adj_off[x], np = 0, nc = 0, *P = buf, *C = buf + deg;
    int g1 = -1, g2 = -1, x1 = 0, x2 = 0;
    if (sep && sep->v == x && c->role[2 * sep->e1 + end_index(c, sep->e1, x)] != R_L &&
        c->role[2 * sep->e2 + end_index(c, sep->e2, x)] != R_L)
        g1 = sep->e1, g2 = sep->e2, x1 = sep->x1, x2 = sep->x2;
    for (int k = c->adj_off[x]; k < c->adj_off[x + 1]; k++) {
        int e = c->adj[k], r = c->role[2 * e + end_index(c, e, x)];
        gid[2 * e + end_index(c, e, x)] = (*ngid)++;
        if (e == g1 || e == g2)
            continue;
        if (r == R_P)
            P[np++] = e;
        else if (r == R_C)
            C[nc++] = e;
    }
    int k = 0;
    if (g1 >= 0) { /* the cycle root keeps its two cycle edges apart */
        for (int i = 0; i < x1; i++)
            join(c, gid, x, g1, P[k++]);
        for (int i = 0; i < x2; i++)
            join(c, gid, x, g2, P[k++]);
        for (int i = 0; i < nc; i++)
            join(c, gid, x, g1, C[i]);
    } else if (np) {
        for (int i = 0; i < nc; i++)
            join(c, gid, x, P[0], C[i]);
    } else {
        for (int i = 1; i < nc; i++)
            join(c, gid, x, C[0], C[i]);
    }
    for (; k + 1 < np; k += 2)
        join(c, gid, x, P[k], P[k + 1]);
}

/* Appends one caterpillar's edges in schedule order: along its path, pendants at each stop.
 * Vertices are vertex copies (gid), so a caterpillar is a tree even around a split vertex. */
static void emit_caterpillar(const cat_ctx *c, const int *gid, const int *edges, int m, int *pdeg,
                             int *padj, int *phead, int *pnext, int *out, int *nout)
{
    int start = -1;
    for (int i = 0; i < m; i++) {
        int e = edges[i], gu = gid[2 * e], gv = gid[2 * e + 1];
        if (c->role[2 * e] == R_P && c->role[2 * e + 1] == R_P) {
            padj[2 * gu + pdeg[gu]++] = e;
            padj[2 * gv + pdeg[gv]++] = e;
        } else {
            int centre = c->role[2 * e] == R_C ? gu : gv;
            pnext[e] = phead[centre], phead[centre] = e;
            if (start < 0)
                start = centre;
        }
    }
    for (int i = 0; i < m; i++) { /* a path end starts the walk */
        int e = edges[i], ends[2] = {gid[2 * e], gid[2 * e + 1]};
        for (int j = 0; j < 2; j++)
            if (pdeg[ends[j]] == 1 && (start < 0 || pdeg[start] != 1))
                start = ends[j];
    }
    for (int x = start, prev = -1; x >= 0;) {
        for (int e = phead[x]; e >= 0; e = pnext[e])
            out[(*nout)++] = e;
        int next = -1;
        for (int j = 0; j < pdeg[x]; j++)
            if (padj[2 * x + j] != prev)
                next = padj[2 * x + j];
        if (next >= 0)
            out[(*nout)++] = next;
        prev = next;
        x = next < 0 ? -1 : gid[2 * next] == x ? gid[2 * next + 1] : gid[2 * next];
    }
    for (int i = 0; i < m; i++) {
        int e = edges[i];
        pdeg[gid[2 * e]] = pdeg[gid[2 * e + 1]] = 0;
        phead[gid[2 * e]] = phead[gid[2 * e + 1]] = -1;
    }
}

#ifdef MIGSCHED_DEBUG_CHECKS
/* Invariant 7's role pairs, 8 (ngid copies; uf links the edges of a caterpillar) and 9. */
static void check_solution(const cat_ctx *c, const int *gid, int ngid, int *uf, const int *comp_cnt,
                           int *comp, const int *order, int splits)
{
    int *p_ends = calloc((size_t)ngid + 1, sizeof(int)),
        *ends = calloc((size_t)ngid + 1, sizeof(int));
    int *l_ends = calloc((size_t)ngid + 1, sizeof(int)),
        *seen = calloc((size_t)c->ne + 1, sizeof(int));
    if (p_ends && ends && l_ends && seen) {
        for (int e = 0; e < c->ne; e++) {
            int a = c->role[2 * e], b = c->role[2 * e + 1];
            if (!(a == R_P ? b == R_P : a == R_C ? b == R_L : a == R_L && b == R_C))
                ms_invariant_failed("caterpillar", "edge %d has roles %d and %d", e, a, b);
            for (int j = 0; j < 2; j++) {
                int r = c->role[2 * e + j], g = gid[2 * e + j];
                ends[g]++, p_ends[g] += r == R_P, l_ends[g] += r == R_L;
            }
            if (order[e] < 0 || order[e] >= c->ne || seen[order[e]]++)
                ms_invariant_failed("caterpillar",
                                    "position %d of the order repeats or "
                                    "misses an edge",
                                    e);
        }
        for (int g = 0; g < ngid; g++)
            if (p_ends[g] > 2 || (l_ends[g] && ends[g] > 1))
                ms_invariant_failed("caterpillar",
                                    "vertex copy %d holds %d path and %d leaf "
                                    "ends of %d",
                                    g, p_ends[g], l_ends[g], ends[g]);
        int caterpillars = 0, trees = 0;
        for (int e = 0; e < c->ne; e++)
            caterpillars += uf_find(uf, e) == e;
        for (int v = 0; v < c->nv; v++)
            trees += uf_find(comp, v) == v && comp_cnt[2 * v + 1] > 0 &&
                     comp_cnt[2 * v + 1] == comp_cnt[2 * v] - 1;
        if (caterpillars != splits + trees)
            ms_invariant_failed("caterpillar", "%d caterpillars for %d splits in %d trees",
                                caterpillars, splits, trees);
    }
    free(p_ends), free(ends), free(l_ends), free(seen);
}
#endif

/* Solves every component; fills order (edge ids in schedule order). Returns the number of
 * splits (preemptions) or -1 when the graph is not a pseudo-forest or memory runs out. */
static int caterpillar_solve(cat_ctx *c, int *order)
{
    int nv = c->nv, ne = c->ne, splits = 0, nout = 0;
    int *comp = malloc(sizeof(int) * (size_t)(nv + 1)),
        *cnt = calloc((size_t)nv + 1, 2 * sizeof(int));
    int *deg = calloc((size_t)nv + 1, sizeof(int)),
        *layers = malloc(sizeof(int) * (size_t)(ne + 2) * NS);
    int *kids = malloc(sizeof(int) * (size_t)(2 * ne + 2)),
        *uf = malloc(sizeof(int) * (size_t)(ne + 1));
    int *stack = malloc(sizeof(int) * (size_t)(nv + 1)),
        *core = malloc(sizeof(int) * (size_t)(nv + 1));
    int *scratch = malloc(sizeof(int) * (size_t)(16 * ne + 2 * nv + 8));
    cycle_choice *sep = malloc(sizeof *sep * (size_t)(nv + 1));
    if (!comp || !cnt || !deg || !layers || !kids || !uf || !stack || !core || !scratch || !sep) {
        splits = -1;
        goto out;
    }
    for (int v = 0; v < nv; v++)
        comp[v] = v, deg[v] = c->adj_off[v + 1] - c->adj_off[v], core[v] = 1, sep[v].v = -1;
    for (int e = 0; e < ne; e++)
        uf_union(comp, c->eu[e], c->ev[e]);
    for (int v = 0; v < nv; v++)
        cnt[2 * uf_find(comp, v)]++;
    for (int e = 0; e < ne; e++)
        cnt[2 * uf_find(comp, c->eu[e]) + 1]++;
    /* Strip leaves: what remains of a unicyclic component is its cycle. */
    int top = 0;
    for (int v = 0; v < nv; v++)
        if (deg[v] <= 1)
            stack[top++] = v, core[v] = 0;
    while (top) {
        int x = stack[--top];
        for (int k = c->adj_off[x]; k < c->adj_off[x + 1]; k++) {
            int y = other(c, c->adj[k], x);
            if (core[y] && --deg[y] <= 1)
                stack[top++] = y, core[y] = 0;
        }
    }
    for (int v = 0; v < nv && splits >= 0; v++) {
        int r = uf_find(comp, v), k = cnt[2 * r], m = cnt[2 * r + 1];
        if (r != v || m == 0)
            continue;
        if (m > k) {
            splits = -1;
            break;
        }
        c->cut = -1, c->extra_v = -1;
        if (m == k - 1) {
            splits += solve_tree(c, v, layers, kids, 1) / 2 - 1;
            continue;
        }
        cycle_choice best = {.cost = INF};
        for (int x = 0; x < nv; x++) {
            if (!core[x] || uf_find(comp, x) != r)
                continue;
            int e1 = -1, e2 = -1;
            for (int q = c->adj_off[x]; q < c->adj_off[x + 1]; q++)
                if (core[other(c, c->adj[q], x)]) {
                    if (e1 < 0)
                        e1 = c->adj[q];
                    else
                        e2 = c->adj[q];
                }
            cycle_choice ch = solve_at(c, x, e1, e2, layers, kids);
            if (ch.cost < best.cost)
                best = ch;
        }
        fix_cycle(c, &best, layers, kids);
        sep[r] = best;
        splits += best.cost / 2;
    }
    if (splits < 0)
        goto out;
    /* Group copies at every vertex, then caterpillars = edges linked through shared copies. */
    int ngid = 0, *gid = scratch, *first = gid + 2 * ne, *buf = first + 2 * ne;
    for (int x = 0; x < nv; x++) {
        int r = uf_find(comp, x);
        group_at(c, x, sep[r].v >= 0 ? &sep[r] : NULL, gid, &ngid, buf);
    }
    for (int e = 0; e < ne; e++)
        uf[e] = e;
    for (int g = 0; g < ngid; g++)
        first[g] = -1;
    for (int e = 0; e < 2 * ne; e++) {
        if (first[gid[e]] < 0)
            first[gid[e]] = e / 2;
        else
            uf_union(uf, first[gid[e]], e / 2);
    }
    /* Edges of each caterpillar; caterpillars by smallest edge id. */
    int *pdeg = buf, *padj = pdeg + ngid, *phead = padj + 2 * ngid, *pnext = phead + ngid;
    int *members = pnext + ne, *head = kids, *nxt = kids + ne;
    for (int g = 0; g < ngid; g++)
        pdeg[g] = 0, phead[g] = -1;
    for (int e = 0; e < ne; e++)
        head[e] = -1;
    for (int e = ne - 1; e >= 0; e--) {
        int root = uf_find(uf, e);
        nxt[e] = head[root], head[root] = e;
    }
    for (int e = 0; e < ne; e++) {
        if (uf_find(uf, e) != e)
            continue;
        int m = 0;
        for (int q = head[e]; q >= 0; q = nxt[q])
            members[m++] = q;
        emit_caterpillar(c, gid, members, m, pdeg, padj, phead, pnext, order, &nout);
    }
    if (nout != ne)
        splits = -1;
#ifdef MIGSCHED_DEBUG_CHECKS
    if (splits >= 0)
        check_solution(c, gid, ngid, uf, cnt, comp, order, splits);
#endif
out:
    free(comp), free(cnt), free(deg), free(layers), free(kids), free(uf), free(stack);
    free(core), free(scratch), free(sep);
    return splits;
}

static int ctx_init(cat_ctx *c, int nv, int ne, const int *eu, const int *ev)
{
    memset(c, 0, sizeof *c);
    c->nv = nv, c->ne = ne, c->eu = eu, c->ev = ev, c->cut = -1, c->extra_v = -1;
    c->adj_off = calloc((size_t)nv + 2, sizeof(int));
    c->adj = malloc(sizeof(int) * (size_t)(2 * ne + 1));
    c->parent_edge = malloc(sizeof(int) * (size_t)(nv + 1));
    c->order = malloc(sizeof(int) * (size_t)(nv + 1));
    c->dp = malloc(sizeof(int) * (size_t)(3 * nv + 3));
    c->role = malloc(sizeof(int) * (size_t)(2 * ne + 2));
    if (!c->adj_off || !c->adj || !c->parent_edge || !c->order || !c->dp || !c->role)
        return MS_ENOMEM;
    for (int e = 0; e < ne; e++) {
        if (eu[e] < 0 || eu[e] >= nv || ev[e] < 0 || ev[e] >= nv || eu[e] == ev[e])
            return MS_EINVAL;
        c->adj_off[eu[e] + 2]++, c->adj_off[ev[e] + 2]++;
    }
    for (int v = 0; v < nv; v++)
        c->adj_off[v + 2] += c->adj_off[v + 1];
    for (int e = 0; e < ne; e++)
        c->adj[c->adj_off[eu[e] + 1]++] = e, c->adj[c->adj_off[ev[e] + 1]++] = e;
    return MS_OK;
}

static void ctx_free(cat_ctx *c)
{
    free(c->adj_off), free(c->adj), free(c->parent_edge), free(c->order), free(c->dp);
    free(c->role);
}

int ms_cosched_caterpillar_count(int nv, int ne, const int *eu, const int *ev)
{
    cat_ctx c;
    memset(&c, 0, sizeof c);
    int *order = malloc(sizeof(int) * (size_t)(ne + 1)), splits = -1;
    if (order && !ctx_init(&c, nv, ne, eu, ev))
        splits = caterpillar_solve(&c, order);
    ctx_free(&c);
    free(order);
    return splits;
}

int ms_cosched_caterpillar(const ms_cosched_instance *in, const ms_cosched_lp *lp,
                           ms_cosched_schedule **out, ms_error *err)
{
    *out = NULL;
    /* A task running alone is a pendant edge to a private leaf vertex (paper 003 4.2.2). */
    int n = in->n, ne = lp->nedges, nv = n + ne, rc = MS_OK;
    int *eu = malloc(sizeof(int) * (size_t)(ne + 1)), *ev = malloc(sizeof(int) * (size_t)(ne + 1));
    int *order = malloc(sizeof(int) * (size_t)(ne + 1));
    ms_cosched_schedule *s = ms_cosched_schedule_new(n);
    cat_ctx c;
    memset(&c, 0, sizeof c);
    if (!eu || !ev || !order || !s)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int k = 0; k < ne && !rc; k++)
        eu[k] = lp->e[k].a, ev[k] = lp->e[k].a == lp->e[k].b ? n + k : lp->e[k].b;
    if (!rc && ctx_init(&c, nv, ne, eu, ev))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc && caterpillar_solve(&c, order) < 0)
        rc = ms_error_set(err, MS_EBACKEND, "CaterpillarSplit: G(x*) is not a pseudo-forest");
    for (int k = 0; k < ne && !rc; k++) {
        const ms_cosched_edge *e = &lp->e[order[k]];
        rc = ms_cosched_schedule_add(s, e->x, e->a, e->b, err);
    }
    ctx_free(&c);
    free(eu), free(ev), free(order);
    if (rc) {
        ms_cosched_schedule_free(s);
        return rc;
    }
    *out = s;
    return MS_OK;
}
