/* direct.c: DIRECTALG (paper 003 5.4): the mixed integer program over x (interval lengths),
 * y (edges of the degree-2 graph) and f (a degree-one task paying for its only edge), solved
 * with GLPK's branch and cut under a time limit; cycles of y are cut at their cheapest edge. */
#include <glpk.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"

/* Column layout: x_e and y_e for each edge e of G(S) (loops first), then f for each arc. */
typedef struct milp {
    const ms_cosched_instance *in;
    int n, ne, narcs;
    ms_cosched_edge *e; /* loops 0..n-1, then pairs */
    int *arc_from, *arc_edge;
    int heur_done;
    double bound;
    double *start; /* first incumbent, indexed by column */
} milp;

static int col_x(const milp *m, int k) { return 1 + k; }
static int col_y(const milp *m, int k) { return 1 + m->ne + k; }
static int col_f(const milp *m, int a) { return 1 + 2 * m->ne + a; }

typedef struct rows {
    int nz, cap, *ia, *ja;
    double *ar;
} rows;

static int put(rows *r, int row, int col, double v)
{
    if (r->nz + 1 >= r->cap) {
        int cap = r->cap * 2 + 64;
        int *ia = realloc(r->ia, sizeof(int) * (size_t)cap);
        if (ia)
            r->ia = ia;
        int *ja = ia ? realloc(r->ja, sizeof(int) * (size_t)cap) : NULL;
        if (ja)
            r->ja = ja;
        double *ar = ja ? realloc(r->ar, sizeof(double) * (size_t)cap) : NULL;
        if (!ar)
            return MS_ENOMEM;
        r->ar = ar, r->cap = cap;
    }
    r->nz++;
    r->ia[r->nz] = row, r->ja[r->nz] = col, r->ar[r->nz] = v;
    return MS_OK;
}

static int build_edges(milp *m)
{
    const ms_cosched_instance *in = m->in;
    int n = in->n, cap = n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            cap += ms_cosched_is_edge(in, i, j);
    m->e = malloc(sizeof *m->e * (size_t)cap);
    m->arc_from = malloc(sizeof(int) * (size_t)(2 * cap));
    m->arc_edge = malloc(sizeof(int) * (size_t)(2 * cap));
    if (!m->e || !m->arc_from || !m->arc_edge)
        return MS_ENOMEM;
    m->n = n, m->ne = 0, m->narcs = 0;
    for (int i = 0; i < n; i++)
        m->e[m->ne++] = (ms_cosched_edge){i, i, 0};
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if (ms_cosched_is_edge(in, i, j)) {
                m->arc_from[m->narcs] = i, m->arc_edge[m->narcs++] = m->ne;
                m->arc_from[m->narcs] = j, m->arc_edge[m->narcs++] = m->ne;
                m->e[m->ne++] = (ms_cosched_edge){i, j, 0};
            }
    return MS_OK;
}

/* Rows: progress (n), degree (1) (n), loop (2) (n), paying (3) (n), linking (4) (ne). */
static int build_problem(milp *m, glp_prob *P)
{
    const ms_cosched_instance *in = m->in;
    int n = m->n, ne = m->ne, rc = MS_OK;
    rows r = {0, 0, NULL, NULL, NULL};
    glp_set_obj_dir(P, GLP_MIN);
    glp_add_rows(P, 4 * n + ne);
    glp_add_cols(P, 2 * ne + m->narcs);
    int *deg = calloc((size_t)n + 1, sizeof(int));
    if (!deg)
        return MS_ENOMEM;
    for (int k = n; k < ne; k++)
        deg[m->e[k].a]++, deg[m->e[k].b]++;
    for (int i = 0; i < n; i++) {
        glp_set_row_bnds(P, 1 + i, GLP_FX, in->p[i], in->p[i]);
        glp_set_row_bnds(P, 1 + n + i, GLP_UP, 0, 2);
        glp_set_row_bnds(P, 1 + 2 * n + i, GLP_UP, 0, 1);
        glp_set_row_bnds(P, 1 + 3 * n + i, GLP_UP, 0, deg[i]);
    }
    for (int k = 0; k < ne && !rc; k++) {
        int a = m->e[k].a, b = m->e[k].b, link = 1 + 4 * n + k;
        glp_set_col_bnds(P, col_x(m, k), GLP_LO, 0, 0);
        glp_set_obj_coef(P, col_x(m, k), 1);
        glp_set_col_kind(P, col_y(m, k), GLP_BV);
        glp_set_row_bnds(P, link, GLP_UP, 0, 0);
        if (a == b) {
            rc = put(&r, 1 + a, col_x(m, k), 1) || put(&r, 1 + 2 * n + a, col_y(m, k), 1) ||
                 put(&r, link, col_x(m, k), 1) || put(&r, link, col_y(m, k), -in->p[a]);
            continue;
        }
        double sab = ms_cosched_s(in, a, b), sba = ms_cosched_s(in, b, a);
        /* With exact progress, x_ab * S_ab <= p_a bounds x_ab: the big M of (4). */
        double M = INFINITY;
        if (sab > 0)
            M = in->p[a] / sab;
        if (sba > 0 && in->p[b] / sba < M)
            M = in->p[b] / sba;
        rc = put(&r, 1 + a, col_x(m, k), sab) || put(&r, 1 + b, col_x(m, k), sba) ||
             put(&r, 1 + n + a, col_y(m, k), 1) || put(&r, 1 + n + b, col_y(m, k), 1) ||
             put(&r, link, col_x(m, k), 1) || put(&r, link, col_y(m, k), -M);
    }
    for (int q = 0; q < m->narcs && !rc; q++) {
        int k = m->arc_edge[q], i = m->arc_from[q], j = m->e[k].a == i ? m->e[k].b : m->e[k].a;
        double sij = ms_cosched_s(in, i, j), sji = ms_cosched_s(in, j, i), M = INFINITY;
        if (sij > 0)
            M = in->p[i] / sij;
        if (sji > 0 && in->p[j] / sji < M)
            M = in->p[j] / sji;
        glp_set_col_kind(P, col_f(m, q), GLP_BV);
        rc = put(&r, 1 + n + i, col_f(m, q), 2) || put(&r, 1 + 2 * n + i, col_f(m, q), 1) ||
             put(&r, 1 + 3 * n + i, col_f(m, q), deg[i]) ||
             put(&r, 1 + 3 * n + j, col_f(m, q), 1) || put(&r, 1 + 4 * n + k, col_f(m, q), -M);
    }
    if (!rc)
        glp_load_matrix(P, r.nz, r.ia, r.ja, r.ar);
    free(r.ia), free(r.ja), free(r.ar), free(deg);
    return rc ? MS_ENOMEM : MS_OK;
}

/* Branch-and-cut callback: offer the first incumbent, track the best bound. */
static void callback(glp_tree *T, void *info)
{
    milp *m = info;
    int node = glp_ios_best_node(T);
    if (node) {
        double b = glp_ios_node_bound(T, node);
        if (b > m->bound)
            m->bound = b;
    }
    if (glp_ios_reason(T) != GLP_IHEUR || m->heur_done)
        return;
    m->heur_done = 1;
    glp_ios_heur_sol(T, m->start);
}

/* Column values of a cover: spine edges are y edges, a pendant leaf pays (f) for its edge,
 * time alone is a loop. The cover has no cycle, so it is feasible for the MILP. */
static int cover_start(const milp *m, const ms_cosched_cover *c, double *x)
{
    int n = m->n, *idx = malloc(sizeof(int) * (size_t)n * (size_t)n + 1);
    if (!idx)
        return MS_ENOMEM;
    for (int k = n; k < m->ne; k++)
        idx[m->e[k].a * n + m->e[k].b] = idx[m->e[k].b * n + m->e[k].a] = k;
    for (int i = 0; i < n; i++)
        x[col_x(m, i)] = c->alone[i], x[col_y(m, i)] = c->alone[i] > 0;
    for (int q = 0; q < c->nspine; q++) {
        int k = idx[c->spine[q].a * n + c->spine[q].b];
        x[col_x(m, k)] = c->spine[q].x, x[col_y(m, k)] = 1;
    }
    for (int q = 0; q < c->npend; q++) {
        int leaf = c->pend[q].b, k = idx[c->pend[q].a * n + leaf];
        x[col_x(m, k)] = c->pend[q].x;
        x[col_f(m, 2 * (k - n) + (m->e[k].a == leaf ? 0 : 1))] = 1;
    }
    free(idx);
    return MS_OK;
}

/* NONPREEMPTIVEALG's solution as first incumbent; SEQUENTIAL if that is not available. */
static int warm_start(milp *m, int ncols)
{
    m->start = calloc((size_t)ncols + 1, sizeof(double));
    if (!m->start)
        return MS_ENOMEM;
    ms_cosched_lp lp;
    ms_cosched_cover c;
    if (!ms_cosched_plp(m->in, &lp, NULL)) {
        int ok = !ms_cosched_nonpreemptive_cover(m->in, &lp, &c, NULL);
        if (ok && !cover_start(m, &c, m->start))
            ok = 2;
        if (ok)
            ms_cosched_cover_fini(&c);
        ms_cosched_lp_fini(&lp);
        if (ok == 2)
            return MS_OK;
        memset(m->start, 0, sizeof(double) * ((size_t)ncols + 1));
    }
    for (int i = 0; i < m->n; i++)
        m->start[col_x(m, i)] = m->in->p[i], m->start[col_y(m, i)] = 1;
    return MS_OK;
}

static int find(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* Reads the MILP solution into a cover; each cycle of y loses its cheapest edge. */
static int to_cover(const milp *m, glp_prob *P, ms_cosched_cover *c)
{
    const ms_cosched_instance *in = m->in;
    int n = m->n, ns = 0;
    int *spine = malloc(sizeof(int) * (size_t)(m->ne + 1)),
        *uf = malloc(sizeof(int) * (size_t)(n + 1));
    int *cnt = calloc((size_t)n + 1, sizeof(int)), *cheap = malloc(sizeof(int) * (size_t)(n + 1));
    if (!spine || !uf || !cnt || !cheap) {
        free(spine), free(uf), free(cnt), free(cheap);
        return MS_ENOMEM;
    }
    double scale = 0;
    for (int i = 0; i < n; i++)
        scale += in->p[i], uf[i] = i, cheap[i] = -1;
    for (int k = 0; k < m->ne; k++) {
        double x = glp_mip_col_val(P, col_x(m, k));
        int a = m->e[k].a, b = m->e[k].b;
        if (x <= 1e-12 * scale)
            continue;
        if (a == b)
            c->alone[a] += x;
        else if (glp_mip_col_val(P, col_y(m, k)) > 0.5)
            spine[ns++] = k, uf[find(uf, a)] = find(uf, b);
        else {
            int paid = -1; /* the two arcs of pair edge k are 2(k-n) and 2(k-n)+1 */
            for (int q = 2 * (k - n); q < 2 * (k - n) + 2; q++)
                if (glp_mip_col_val(P, col_f(m, q)) > 0.5)
                    paid = m->arc_from[q];
            if (paid >= 0)
                c->pend[c->npend++] = (ms_cosched_edge){paid == a ? b : a, paid, x};
            else /* only rounding can leave x here: run both alone */
                c->alone[a] += x * ms_cosched_s(in, a, b),
                    c->alone[b] += x * ms_cosched_s(in, b, a);
        }
    }
    /* A component of the degree-2 graph with as many edges as vertices is a cycle. */
    for (int q = 0; q < ns; q++) {
        int k = spine[q], r = find(uf, m->e[k].a);
        double w = glp_mip_col_val(P, col_x(m, k)) * (ms_cosched_s(in, m->e[k].a, m->e[k].b) +
                                                      ms_cosched_s(in, m->e[k].b, m->e[k].a) - 1);
        cnt[r]++;
        if (cheap[r] < 0 || w < glp_mip_col_val(P, col_x(m, cheap[r])) *
                                    (ms_cosched_s(in, m->e[cheap[r]].a, m->e[cheap[r]].b) +
                                     ms_cosched_s(in, m->e[cheap[r]].b, m->e[cheap[r]].a) - 1))
            cheap[r] = k;
    }
    int *vc = calloc((size_t)n + 1, sizeof(int));
    for (int i = 0; vc && i < n; i++)
        vc[find(uf, i)]++;
    for (int q = 0; vc && q < ns; q++) {
        int k = spine[q], a = m->e[k].a, b = m->e[k].b, r = find(uf, a);
        double x = glp_mip_col_val(P, col_x(m, k));
        if (cnt[r] == vc[r] && cheap[r] == k)
            c->alone[a] += x * ms_cosched_s(in, a, b), c->alone[b] += x * ms_cosched_s(in, b, a);
        else
            c->spine[c->nspine++] = (ms_cosched_edge){a, b, x};
    }
    int rc = vc ? MS_OK : MS_ENOMEM;
    free(spine), free(uf), free(cnt), free(cheap), free(vc);
    return rc;
}

int ms_cosched_direct(const ms_cosched_instance *in, double time_limit, ms_cosched_schedule **out,
                      double *lower, int *optimal, ms_error *err)
{
    *out = NULL;
    milp m = {in, 0, 0, 0, NULL, NULL, NULL, 0, 0, NULL};
    ms_cosched_cover c = {in->n, 0, 0, NULL, NULL, calloc((size_t)in->n + 1, sizeof(double))};
    int rc = build_edges(&m);
    glp_term_out(GLP_OFF);
    glp_prob *P = glp_create_prob();
    if (!rc)
        rc = build_problem(&m, P);
    if (!rc)
        rc = warm_start(&m, glp_get_num_cols(P));
    c.spine = malloc(sizeof(ms_cosched_edge) * (size_t)(m.ne + 1));
    c.pend = malloc(sizeof(ms_cosched_edge) * (size_t)(m.ne + 1));
    if (rc || !c.spine || !c.pend || !c.alone) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    glp_smcp sp;
    glp_init_smcp(&sp);
    sp.msg_lev = GLP_MSG_OFF;
    sp.presolve = GLP_ON;
    if (glp_simplex(P, &sp) || glp_get_status(P) != GLP_OPT) {
        rc = ms_error_set(err, MS_EBACKEND, "DIRECTALG: GLPK could not solve the LP relaxation");
        goto out;
    }
    m.bound = glp_get_obj_val(P);
    glp_iocp ip;
    glp_init_iocp(&ip);
    ip.msg_lev = GLP_MSG_OFF;
    ip.cb_func = callback;
    ip.cb_info = &m;
    ip.mir_cuts = GLP_ON;
    ip.tm_lim = time_limit > 0 && time_limit < 2e6 ? (int)(time_limit * 1000) : INT_MAX;
    int r = glp_intopt(P, &ip), st = glp_mip_status(P);
    if ((r && r != GLP_ETMLIM) || (st != GLP_OPT && st != GLP_FEAS)) {
        rc = ms_error_set(err, MS_EBACKEND, "DIRECTALG: GLPK branch and cut failed (code %d)", r);
        goto out;
    }
    if (optimal)
        *optimal = st == GLP_OPT;
    if (lower)
        *lower = st == GLP_OPT ? glp_mip_obj_val(P) : m.bound;
    if (to_cover(&m, P, &c))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else
        rc = ms_cosched_cover_schedule(&c, out, err);
out:
    glp_delete_prob(P);
    free(m.e), free(m.arc_from), free(m.arc_edge), free(m.start);
    ms_cosched_cover_fini(&c);
    return rc;
}
