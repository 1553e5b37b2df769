/* generate.c: co-scheduling instances: the synthetic kernel catalogue, the paper's three
 * settings (6.2), the 3-PARTITION reduction (Theorem 2) and the worst cases of Figs. 10-11. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"
#include "migsched/parse.h"

static const char *const setting_names[] = {"uniform", "weighted", "random"};

int ms_cosched_setting_lookup(const char *name) { return ms_name_index(setting_names, 3, name); }

const char *ms_cosched_setting_name(int s) { return s >= 0 && s < 3 ? setting_names[s] : "?"; }

static int set_name(ms_cosched_instance *in, int i, const char *fmt, int a, int b)
{
    char buf[64];
    snprintf(buf, sizeof buf, fmt, a, b);
    return (in->names[i] = strdup(buf)) ? MS_OK : MS_ENOMEM;
}

/* Each kernel has a resource demand a in [0,1]. Two kernels can co-run with probability
 * 1 - (a_k + a_l)/2 (one half on average, less for hungry kernels). When they can, k's speed
 * is t = (u + (1 - a_l))/2 for a fresh uniform u, passed through the CDF of that triangular
 * sum so that speeds are uniform on (0,1) while staying correlated with l's demand. */
static double uniformize(double t) { return t <= 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t); }

static double corun_speed(double a_other, ms_rng *r)
{
    return fmax(uniformize((ms_rng_uniform(r) + 1 - a_other) / 2), 0.01);
}

ms_cosched_instance *ms_cosched_catalogue_synthetic(int k, ms_rng *r)
{
    ms_cosched_instance *c = ms_cosched_instance_new(k);
    double *a = malloc(sizeof(double) * (size_t)(k + 1));
    if (!c || !a) {
        free(a);
        ms_cosched_instance_free(c);
        return NULL;
    }
    for (int i = 0; i < k; i++) {
        a[i] = ms_rng_uniform(r);
        /* standalone times spread over three decades (10 ms .. 10 s) */
        c->p[i] = 0.01 * pow(1000.0, ms_rng_uniform(r));
        if (set_name(c, i, "k%02d", i, 0)) {
            free(a);
            ms_cosched_instance_free(c);
            return NULL;
        }
    }
    for (int i = 0; i < k; i++)
        for (int j = i; j < k; j++) {
            int corun = ms_rng_uniform(r) < 1 - (a[i] + a[j]) / 2;
            double sij = corun_speed(a[j], r), sji = corun_speed(a[i], r);
            c->speed[(size_t)i * (size_t)k + (size_t)j] = corun ? sij : 0;
            c->speed[(size_t)j * (size_t)k + (size_t)i] = corun ? (i == j ? sij : sji) : 0;
        }
    free(a);
    return c;
}

/* Kernel index drawn with probability proportional to 1 / its time (weighted setting). */
static int pick_weighted(const ms_cosched_instance *cat, double total_inv, ms_rng *r)
{
    double u = ms_rng_uniform(r) * total_inv;
    for (int k = 0; k < cat->n; k++) {
        u -= 1.0 / cat->p[k];
        if (u < 0)
            return k;
    }
    return cat->n - 1;
}

int ms_cosched_generate(const ms_cosched_instance *cat, int setting, int n, ms_rng *r,
                        ms_cosched_instance **out, ms_error *err)
{
    *out = NULL;
    if (n < 1 || setting < 0 || setting > 2)
        return ms_error_set(err, MS_EINVAL, "generate: need n >= 1 and a known setting");
    ms_cosched_instance *in = ms_cosched_instance_new(n);
    int *kern = malloc(sizeof(int) * (size_t)(n + 1)), rc = MS_OK;
    if (!in || !kern) {
        free(kern);
        ms_cosched_instance_free(in);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    double total_inv = 0;
    for (int k = 0; k < cat->n; k++)
        total_inv += 1.0 / cat->p[k];
    for (int i = 0; i < n && !rc; i++) {
        int k = setting == MS_COSCHED_WEIGHTED ? pick_weighted(cat, total_inv, r)
                                               : (int)ms_rng_below(r, (uint64_t)cat->n);
        kern[i] = k;
        /* random durations: uniform in (0, 10] */
        in->p[i] = setting == MS_COSCHED_RANDOM ? 10.0 * (1.0 - ms_rng_uniform(r)) : cat->p[k];
        char buf[96];
        snprintf(buf, sizeof buf, "t%d_%s", i, cat->names[k]);
        if (!(in->names[i] = strdup(buf)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < n && !rc; i++)
        for (int j = 0; j < n; j++)
            in->speed[(size_t)i * (size_t)n + (size_t)j] = i == j ? 1
                                                                  : ms_cosched_s(cat, kern[i],
                                                                                 kern[j]);
    free(kern);
    if (rc) {
        ms_cosched_instance_free(in);
        return rc;
    }
    *out = in;
    return MS_OK;
}

static void set_s(ms_cosched_instance *in, int i, int j, double v)
{
    in->speed[(size_t)i * (size_t)in->n + (size_t)j] = v;
}

int ms_cosched_three_partition(const int *a, int m, int B, ms_cosched_instance **out, ms_error *err)
{
    *out = NULL;
    long sum = 0;
    for (int i = 0; i < 3 * m; i++) {
        if (a[i] <= 0)
            return ms_error_set(err, MS_EINVAL, "3-PARTITION: a[%d] must be positive", i);
        sum += a[i];
    }
    if (m < 1 || B <= 0 || sum != (long)m * B)
        return ms_error_set(err, MS_EINVAL, "3-PARTITION: the %d values must sum to m*B = %ld",
                            3 * m, (long)m * B);
    int n = 8 * m, rc = MS_OK;
    ms_cosched_instance *in = ms_cosched_instance_new(n);
    if (!in)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    static const char *const g = "ABCXY";
    static const double len[5] = {2, 3, 2, 1, 1};
    /* Group j: A=5j, B=5j+1, C=5j+2, X=5j+3, Y=5j+4; V_i = 5m+i. */
    for (int j = 0; j < m && !rc; j++) {
        for (int t = 0; t < 5 && !rc; t++) {
            char fmt[16];
            snprintf(fmt, sizeof fmt, "%c%%d", g[t]);
            rc = set_name(in, 5 * j + t, fmt, j, 0);
            in->p[5 * j + t] = len[t] * B;
        }
        int A = 5 * j, Bj = A + 1, C = A + 2, X = A + 3, Y = A + 4;
        set_s(in, A, Bj, 1), set_s(in, Bj, A, 1), set_s(in, A, X, 1), set_s(in, X, A, 1);
        set_s(in, Bj, C, 1), set_s(in, C, Bj, 1), set_s(in, C, Y, 1), set_s(in, Y, C, 1);
        for (int i = 0; i < 3 * m; i++)
            set_s(in, 5 * m + i, Bj, 1), set_s(in, Bj, 5 * m + i, 1);
    }
    for (int i = 0; i < 3 * m && !rc; i++) {
        rc = set_name(in, 5 * m + i, "V%d", i, 0);
        in->p[5 * m + i] = a[i];
    }
    for (int i = 0; i < n; i++)
        set_s(in, i, i, 1);
    if (rc) {
        ms_cosched_instance_free(in);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    *out = in;
    return MS_OK;
}

ms_cosched_instance *ms_cosched_fig10(int k)
{
    ms_cosched_instance *in = ms_cosched_instance_new(k + 1);
    if (!in)
        return NULL;
    for (int i = 0; i <= k; i++) {
        in->p[i] = i ? 1 : k;
        set_s(in, i, i, 1);
        set_s(in, 0, i, 1), set_s(in, i, 0, 1);
        if (set_name(in, i, i ? "leaf%d" : "centre", i, 0)) {
            ms_cosched_instance_free(in);
            return NULL;
        }
    }
    return in;
}

static void link2(ms_cosched_instance *in, int i, int j) { set_s(in, i, j, 1), set_s(in, j, i, 1); }

ms_cosched_instance *ms_cosched_fig11(int k, double eps)
{
    /* Centres 0 and 1; wheel w: ring 2+2kw+i, exterior 2+2kw+k+i. */
    ms_cosched_instance *in = ms_cosched_instance_new(4 * k + 2);
    if (!in)
        return NULL;
    link2(in, 0, 1);
    int rc = set_name(in, 0, "centre%d", 0, 0) || set_name(in, 1, "centre%d", 1, 0);
    in->p[0] = in->p[1] = k;
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < k; i++) {
            int ring = 2 + 2 * k * w + i, ext = ring + k, next = 2 + 2 * k * w + (i + 1) % k;
            in->p[ring] = 1 + eps, in->p[ext] = eps;
            link2(in, w, ring), link2(in, ring, ext), link2(in, ring, next);
            rc = rc || set_name(in, ring, "ring%d_%d", w, i) || set_name(in, ext, "ext%d_%d", w, i);
        }
    for (int i = 0; i < in->n; i++)
        set_s(in, i, i, 1);
    if (rc) {
        ms_cosched_instance_free(in);
        return NULL;
    }
    return in;
}
