/* fit_lm.c: Levenberg-Marquardt for the co-run model's few parameters (at most
 * HIER_LM_MAX_P): forward-difference Jacobian, damping on the diagonal of J'J (Marquardt's
 * scaling), bounds kept by clipping each step. Deterministic: plain arithmetic only. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hier_internal.h"

static double sum_sq(const double *r, int n)
{
    double s = 0;
    for (int i = 0; i < n; i++)
        s += r[i] * r[i];
    return s;
}

/* Solves a x = b (n x n, a overwritten) by elimination with partial pivoting; 0 if singular. */
static int solve(double a[HIER_LM_MAX_P][HIER_LM_MAX_P], double *b, int n)
{
    for (int c = 0; c < n; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r][c]) > fabs(a[piv][c]))
                piv = r;
        if (!(fabs(a[piv][c]) > 1e-300))
            return 0;
        for (int k = 0; k < n; k++) {
            double t = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = t;
        }
        double t = b[c];
        b[c] = b[piv];
        b[piv] = t;
        for (int r = c + 1; r < n; r++) {
            double f = a[r][c] / a[c][c];
            for (int k = c; k < n; k++)
                a[r][k] -= f * a[c][k];
            b[r] -= f * b[c];
        }
    }
    for (int c = n - 1; c >= 0; c--) {
        for (int k = c + 1; k < n; k++)
            b[c] -= a[c][k] * b[k];
        b[c] /= a[c][c];
    }
    return 1;
}

double hier_lm(hier_lm_fn f, void *ctx, int np, int nr, double *p, const double *lo,
               const double *hi)
{
    double *r = malloc((size_t)nr * sizeof *r), *rt = malloc((size_t)nr * sizeof *rt);
    double *jac = malloc((size_t)nr * (size_t)np * sizeof *jac);
    if (!r || !rt || !jac) {
        free(r);
        free(rt);
        free(jac);
        return INFINITY;
    }
    f(p, r, ctx);
    double cost = sum_sq(r, nr), lambda = 1e-3;
    for (int iter = 0; iter < 200; iter++) {
        for (int k = 0; k < np; k++) {
            double pk = p[k], h = 1e-7 * fmax(1.0, fabs(pk));
            if (pk + h > hi[k])
                h = -h; /* stay inside the bounds */
            p[k] = pk + h;
            f(p, rt, ctx);
            p[k] = pk;
            for (int i = 0; i < nr; i++)
                jac[i * np + k] = (rt[i] - r[i]) / h;
        }
        double a[HIER_LM_MAX_P][HIER_LM_MAX_P] = {{0}}, g[HIER_LM_MAX_P] = {0};
        for (int i = 0; i < nr; i++)
            for (int k = 0; k < np; k++) {
                g[k] -= jac[i * np + k] * r[i];
                for (int l = 0; l < np; l++)
                    a[k][l] += jac[i * np + k] * jac[i * np + l];
            }
        int improved = 0;
        double trial[HIER_LM_MAX_P], tcost = cost;
        for (int tries = 0; tries < 30 && !improved; tries++) {
            double m[HIER_LM_MAX_P][HIER_LM_MAX_P], d[HIER_LM_MAX_P];
            memcpy(m, a, sizeof m);
            memcpy(d, g, sizeof d);
            for (int k = 0; k < np; k++)
                m[k][k] += lambda * (a[k][k] > 0 ? a[k][k] : 1e-12);
            if (solve(m, d, np)) {
                for (int k = 0; k < np; k++)
                    trial[k] = fmin(hi[k], fmax(lo[k], p[k] + d[k]));
                f(trial, rt, ctx);
                tcost = sum_sq(rt, nr);
                improved = tcost < cost;
            }
            lambda = improved ? fmax(lambda / 3, 1e-12) : lambda * 4;
        }
        if (!improved)
            break;
        double gain = cost - tcost;
        memcpy(p, trial, (size_t)np * sizeof *p);
        memcpy(r, rt, (size_t)nr * sizeof *r);
        cost = tcost;
        if (gain <= 1e-15 * (cost + 1e-300))
            break;
    }
    free(r);
    free(rt);
    free(jac);
    return cost;
}
