/* plp.c: the preemptive linear program (PLP) of paper 003 4.1 solved with GLPK, and G(x*). */
#include <glpk.h>
#include <stdlib.h>

#include "migsched/cosched.h"

void ms_cosched_lp_fini(ms_cosched_lp *lp)
{
    if (lp)
        free(lp->e);
    if (lp)
        lp->e = NULL;
}

/* Columns: one per edge of G(S), loops first (task alone), then pairs i<j in input order. */
static int build_columns(const ms_cosched_instance *in, ms_cosched_edge **cols, int *ncols)
{
    int n = in->n, cap = n, k = 0;
    ms_cosched_edge *c = malloc(sizeof *c * (size_t)cap);
    if (!c)
        return MS_ENOMEM;
    for (int i = 0; i < n; i++)
        c[k++] = (ms_cosched_edge){i, i, 0};
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (!ms_cosched_is_edge(in, i, j))
                continue;
            if (k == cap) {
                ms_cosched_edge *nc = realloc(c, sizeof *c * (size_t)(cap *= 2));
                if (!nc) {
                    free(c);
                    return MS_ENOMEM;
                }
                c = nc;
            }
            c[k++] = (ms_cosched_edge){i, j, 0};
        }
    *cols = c;
    *ncols = k;
    return MS_OK;
}

int ms_cosched_plp(const ms_cosched_instance *in, ms_cosched_lp *lp, ms_error *err)
{
    ms_cosched_edge *cols;
    int ncols, n = in->n;
    lp->e = NULL;
    lp->nedges = 0;
    lp->n = n;
    if (build_columns(in, &cols, &ncols))
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    int nz = 2 * ncols - n;
    int *ia = malloc(sizeof *ia * (size_t)(nz + 1)), *ja = malloc(sizeof *ja * (size_t)(nz + 1));
    double *ar = malloc(sizeof *ar * (size_t)(nz + 1));
    if (!ia || !ja || !ar) {
        free(ia), free(ja), free(ar), free(cols);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    glp_term_out(GLP_OFF);
    glp_prob *P = glp_create_prob();
    glp_set_obj_dir(P, GLP_MIN);
    glp_add_rows(P, n);
    for (int i = 0; i < n; i++)
        glp_set_row_bnds(P, i + 1, GLP_FX, in->p[i], in->p[i]);
    glp_add_cols(P, ncols);
    int k = 0;
    for (int c = 0; c < ncols; c++) {
        int a = cols[c].a, b = cols[c].b;
        glp_set_col_bnds(P, c + 1, GLP_LO, 0, 0);
        glp_set_obj_coef(P, c + 1, 1.0);
        k++, ia[k] = a + 1, ja[k] = c + 1, ar[k] = ms_cosched_s(in, a, b == a ? a : b);
        if (b != a)
            k++, ia[k] = b + 1, ja[k] = c + 1, ar[k] = ms_cosched_s(in, b, a);
    }
    glp_load_matrix(P, k, ia, ja, ar);
    free(ia), free(ja), free(ar);
    glp_smcp parm;
    glp_init_smcp(&parm);
    parm.presolve = GLP_ON;
    parm.msg_lev = GLP_MSG_OFF;
    int rc = glp_simplex(P, &parm);
    /* The postsolved point can miss the equalities by ~1e-4 relative; a second pass from
     * the recovered basis without presolve makes it exact (usually no pivot at all). */
    parm.presolve = GLP_OFF;
    if (!rc)
        rc = glp_simplex(P, &parm);
    int status = glp_get_status(P);
    if (rc || status != GLP_OPT) {
        glp_delete_prob(P);
        free(cols);
        return ms_error_set(err, MS_EBACKEND, "PLP: GLPK simplex failed (code %d, status %d)", rc,
                            status);
    }
    /* Keep the positive configurations: these are the edges of G(x*). */
    double scale = 0;
    for (int i = 0; i < n; i++)
        scale += in->p[i];
    int m = 0;
    for (int c = 0; c < ncols; c++) {
        double x = glp_get_col_prim(P, c + 1);
        if (x > 1e-12 * scale)
            cols[m] = cols[c], cols[m++].x = x;
    }
    lp->makespan = glp_get_obj_val(P);
    glp_delete_prob(P);
    lp->e = cols;
    lp->nedges = m;
    return MS_OK;
}
