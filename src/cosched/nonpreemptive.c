/* nonpreemptive.c: NONPREEMPTIVEALG (paper 003 Algorithm 4): from x*, build G-hat (G(x*)
 * without its degree-1 tasks), solve PATHCOVER on it (degree-2 LP on trees, each cycle edge
 * broken in turn on pseudo-trees) and break the edges left out of the cover. */
#include <glpk.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"

/* Maximum-weight subgraph of degree <= 2 over edges ids[0..m) (minus skip) of a tree: the LP
 * of paper 003 5.2, integral on bipartite graphs. Marks keep[]; returns the weight. */
static double degree2_lp(const ms_cosched_edge *e, const double *w, const int *ids, int m, int skip,
                         int *keep, int *vmap, int *nvmap_mem, ms_error *err, int *rc)
{
    int nv = 0;
    for (int k = 0; k < m; k++) {
        int a = e[ids[k]].a, b = e[ids[k]].b;
        if (vmap[a] < 0)
            vmap[a] = nv, nvmap_mem[nv++] = a;
        if (vmap[b] < 0)
            vmap[b] = nv, nvmap_mem[nv++] = b;
    }
    glp_term_out(GLP_OFF);
    glp_prob *P = glp_create_prob();
    glp_set_obj_dir(P, GLP_MAX);
    glp_add_rows(P, nv);
    for (int v = 0; v < nv; v++)
        glp_set_row_bnds(P, v + 1, GLP_UP, 0, 2);
    glp_add_cols(P, m);
    int *ia = malloc(sizeof(int) * (size_t)(2 * m + 1)),
        *ja = malloc(sizeof(int) * (size_t)(2 * m + 1));
    double *ar = malloc(sizeof(double) * (size_t)(2 * m + 1)), total = 0;
    int nz = 0;
    if (!ia || !ja || !ar) {
        *rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    for (int k = 0; k < m; k++) {
        glp_set_col_bnds(P, k + 1, ids[k] == skip ? GLP_FX : GLP_DB, 0, ids[k] == skip ? 0 : 1);
        glp_set_obj_coef(P, k + 1, w[ids[k]]);
        nz++, ia[nz] = vmap[e[ids[k]].a] + 1, ja[nz] = k + 1, ar[nz] = 1;
        nz++, ia[nz] = vmap[e[ids[k]].b] + 1, ja[nz] = k + 1, ar[nz] = 1;
    }
    glp_load_matrix(P, nz, ia, ja, ar);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    if (glp_simplex(P, &parm) || glp_get_status(P) != GLP_OPT) {
        *rc = ms_error_set(err, MS_EBACKEND, "PathCover: GLPK simplex failed");
        goto out;
    }
    for (int k = 0; k < m; k++) {
        keep[ids[k]] = glp_get_col_prim(P, k + 1) > 0.5;
        total += keep[ids[k]] ? w[ids[k]] : 0;
    }
out:
    for (int v = 0; v < nv; v++)
        vmap[nvmap_mem[v]] = -1;
    free(ia), free(ja), free(ar);
    glp_delete_prob(P);
    return total;
}

static int find(int *uf, int x)
{
    while (uf[x] != x)
        x = uf[x] = uf[uf[x]];
    return x;
}

/* PATHCOVER on a pseudo-forest (edges flagged in_hat): keep[] marks the cover's edges. */
static int path_cover(int n, const ms_cosched_edge *e, const double *w, int ne, const int *in_hat,
                      int *keep, ms_error *err)
{
    int rc = MS_OK;
    int *uf = malloc(sizeof(int) * (size_t)(n + 1)), *ids = malloc(sizeof(int) * (size_t)(ne + 1));
    int *deg = calloc((size_t)n + 1, sizeof(int)), *vmap = malloc(sizeof(int) * (size_t)(n + 1));
    int *vmem = malloc(sizeof(int) * (size_t)(n + 1)),
        *best = malloc(sizeof(int) * (size_t)(ne + 1));
    int *stack = malloc(sizeof(int) * (size_t)(n + 1)), *adjc = calloc((size_t)n + 1, sizeof(int));
    if (!uf || !ids || !deg || !vmap || !vmem || !best || !stack || !adjc) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    for (int v = 0; v < n; v++)
        uf[v] = v, vmap[v] = -1;
    for (int k = 0; k < ne; k++)
        if (in_hat[k]) {
            int a = find(uf, e[k].a), b = find(uf, e[k].b);
            uf[a > b ? a : b] = a < b ? a : b;
            deg[e[k].a]++, deg[e[k].b]++;
        }
    /* Cycle edges: those left after stripping degree-1 vertices. */
    memcpy(adjc, deg, sizeof(int) * (size_t)n);
    int top = 0;
    for (int v = 0; v < n; v++)
        if (adjc[v] == 1)
            stack[top++] = v;
    while (top) {
        int x = stack[--top];
        adjc[x] = 0;
        for (int k = 0; k < ne; k++)
            if (in_hat[k] && (e[k].a == x || e[k].b == x)) {
                int y = e[k].a == x ? e[k].b : e[k].a;
                if (adjc[y] > 0 && --adjc[y] == 1)
                    stack[top++] = y;
            }
    }
    for (int r = 0; r < n && !rc; r++) {
        int m = 0, cyc = 0;
        for (int k = 0; k < ne; k++)
            if (in_hat[k] && find(uf, e[k].a) == r) {
                ids[m++] = k;
                cyc += adjc[e[k].a] > 0 && adjc[e[k].b] > 0;
            }
        if (!m)
            continue;
        if (!cyc) {
            degree2_lp(e, w, ids, m, -1, keep, vmap, vmem, err, &rc);
            continue;
        }
        double bw = -1;
        for (int q = 0; q < m && !rc; q++) {
            int k = ids[q];
            if (!(adjc[e[k].a] > 0 && adjc[e[k].b] > 0))
                continue;
            double v = degree2_lp(e, w, ids, m, k, keep, vmap, vmem, err, &rc);
            if (v > bw) {
                bw = v;
                for (int t = 0; t < m; t++)
                    best[ids[t]] = keep[ids[t]];
            }
        }
        for (int t = 0; t < m; t++)
            keep[ids[t]] = best[ids[t]];
    }
out:
    free(uf), free(ids), free(deg), free(vmap), free(vmem), free(best), free(stack), free(adjc);
    return rc;
}

void ms_cosched_cover_fini(ms_cosched_cover *c)
{
    free(c->spine), free(c->pend), free(c->alone);
    c->spine = c->pend = NULL, c->alone = NULL;
}

int ms_cosched_nonpreemptive_cover(const ms_cosched_instance *in, const ms_cosched_lp *lp,
                                   ms_cosched_cover *c, ms_error *err)
{
    int n = in->n, ne = lp->nedges, rc = MS_OK;
    const ms_cosched_edge *e = lp->e;
    int *deg = calloc((size_t)n + 1, sizeof(int)), *in_hat = calloc((size_t)ne + 1, sizeof(int));
    int *keep = calloc((size_t)ne + 1, sizeof(int));
    double *w = malloc(sizeof(double) * (size_t)(ne + 1));
    *c = (ms_cosched_cover){n,
                            0,
                            0,
                            malloc(sizeof(ms_cosched_edge) * (size_t)(ne + 1)),
                            malloc(sizeof(ms_cosched_edge) * (size_t)(ne + 1)),
                            calloc((size_t)n + 1, sizeof(double))};
    if (!deg || !in_hat || !keep || !w || !c->spine || !c->pend || !c->alone) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    /* A loop counts: it is an edge to a private leaf (the task's time alone), so a task
     * with time alone and one partner stays in G-hat (paper 003 4.2.2). */
    for (int k = 0; k < ne; k++)
        deg[e[k].a]++, deg[e[k].b] += e[k].a != e[k].b;
    /* G-hat: edges between tasks of degree >= 2; the others hang as pendants. */
    for (int k = 0; k < ne; k++) {
        int a = e[k].a, b = e[k].b;
        w[k] = e[k].x * (ms_cosched_s(in, a, b) + ms_cosched_s(in, b, a) - 1);
        if (a == b)
            c->alone[a] += e[k].x;
        else if (deg[a] >= 2 && deg[b] >= 2)
            in_hat[k] = 1;
        else if (deg[a] >= 2 || (deg[b] == 1 && a < b))
            c->pend[c->npend++] = (ms_cosched_edge){a, b, e[k].x};
        else
            c->pend[c->npend++] = (ms_cosched_edge){b, a, e[k].x};
    }
    rc = path_cover(n, e, w, ne, in_hat, keep, err);
    for (int k = 0; k < ne && !rc; k++) {
        if (!in_hat[k])
            continue;
        int a = e[k].a, b = e[k].b;
        if (keep[k])
            c->spine[c->nspine++] = e[k];
        else { /* broken: each task runs alone for the work it did together */
            c->alone[a] += e[k].x * ms_cosched_s(in, a, b);
            c->alone[b] += e[k].x * ms_cosched_s(in, b, a);
        }
    }
out:
    free(deg), free(in_hat), free(keep), free(w);
    if (rc)
        ms_cosched_cover_fini(c);
    return rc;
}

int ms_cosched_nonpreemptive(const ms_cosched_instance *in, const ms_cosched_lp *lp,
                             ms_cosched_schedule **out, ms_error *err)
{
    *out = NULL;
    ms_cosched_cover c;
    int rc = ms_cosched_nonpreemptive_cover(in, lp, &c, err);
    if (!rc)
        rc = ms_cosched_cover_schedule(&c, out, err);
    ms_cosched_cover_fini(&c);
    return rc;
}
