/* maxpair.c: the MAXPAIR baseline (paper 003 Algorithm 3, after Wen et al.): pair tasks by a
 * maximum-weight matching of the time saved by running them together; and SEQUENTIAL. */
#include <stdlib.h>

#include "migsched/cosched.h"

/* Time to run i and j together until one ends, then the other alone. */
static double pair_time(const ms_cosched_instance *in, int i, int j, double *d)
{
    double sij = ms_cosched_s(in, i, j), sji = ms_cosched_s(in, j, i);
    double ti = sij > 0 ? in->p[i] / sij : -1, tj = sji > 0 ? in->p[j] / sji : -1;
    *d = ti < 0 ? tj : tj < 0 ? ti : (ti < tj ? ti : tj);
    return *d + (in->p[i] - *d * sij) + (in->p[j] - *d * sji);
}

/* Emits i with j: together for d, then whichever is left alone for its remaining work. */
static int emit_pair(const ms_cosched_instance *in, int i, int j, ms_cosched_schedule *s,
                     ms_error *err)
{
    double d;
    pair_time(in, i, j, &d);
    int rc = ms_cosched_schedule_add(s, d, i, j, err);
    double ri = in->p[i] - d * ms_cosched_s(in, i, j), rj = in->p[j] - d * ms_cosched_s(in, j, i);
    /* The task that finished has rounding-level leftovers only. */
    if (!rc && ri > 1e-12 * in->p[i] && ri >= rj)
        rc = ms_cosched_schedule_add(s, ri, i, -1, err);
    else if (!rc && rj > 1e-12 * in->p[j])
        rc = ms_cosched_schedule_add(s, rj, j, -1, err);
    return rc;
}

int ms_cosched_maxpair(const ms_cosched_instance *in, ms_cosched_schedule **out, ms_error *err)
{
    *out = NULL;
    int n = in->n, m = 0, cap = 1, rc = MS_OK;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            cap += ms_cosched_is_edge(in, i, j);
    int *eu = malloc(sizeof(int) * (size_t)cap), *ev = malloc(sizeof(int) * (size_t)cap);
    int *mate = malloc(sizeof(int) * (size_t)(n + 1));
    double *w = malloc(sizeof(double) * (size_t)cap);
    ms_cosched_schedule *s = ms_cosched_schedule_new(n);
    if (!eu || !ev || !mate || !w || !s) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto out;
    }
    /* Edge weight: the time saved by running the pair together instead of one by one. */
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d, saved;
            if (ms_cosched_is_edge(in, i, j) &&
                (saved = in->p[i] + in->p[j] - pair_time(in, i, j, &d)) > 0)
                eu[m] = i, ev[m] = j, w[m++] = saved;
        }
    rc = ms_max_weight_matching(n, m, eu, ev, w, mate, err);
    for (int i = 0; i < n && !rc; i++) {
        if (mate[i] < 0)
            rc = ms_cosched_schedule_add(s, in->p[i], i, -1, err);
        else if (mate[i] > i)
            rc = emit_pair(in, i, mate[i], s, err);
    }
out:
    free(eu), free(ev), free(mate), free(w);
    if (rc) {
        ms_cosched_schedule_free(s);
        return rc;
    }
    *out = s;
    return MS_OK;
}

int ms_cosched_sequential(const ms_cosched_instance *in, ms_cosched_schedule **out, ms_error *err)
{
    *out = NULL;
    ms_cosched_schedule *s = ms_cosched_schedule_new(in->n);
    int rc = s ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; i < in->n && !rc; i++)
        rc = ms_cosched_schedule_add(s, in->p[i], i, -1, err);
    if (rc) {
        ms_cosched_schedule_free(s);
        return rc;
    }
    *out = s;
    return MS_OK;
}
