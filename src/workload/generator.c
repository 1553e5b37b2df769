/* generator.c: synthetic task times (paper 000 6.3, paper 001 5.1.2): per-size shares of
 * tasks that scale well up to each size, super-linear starts, clipped-normal speedups. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/workload.h"

/* Absorbs representation error in n * p (0.29 * 100 = 28.999999999999996). */
#define FLOOR_EPS 1e-9

static int check_params(const ms_gpu_model *gpu, const ms_gen_params *pa, int n, ms_error *err)
{
    if (n < 1)
        return ms_error_set(err, MS_EINVAL, "number of tasks must be at least 1 (got %d)", n);
    if (!(pa->tmin > 0) || !isfinite(pa->tmax) || !(pa->tmax >= pa->tmin))
        return ms_error_set(err, MS_EINVAL, "need 0 < tmin <= tmax < inf (got tmin=%g, tmax=%g)",
                            pa->tmin, pa->tmax);
    if (!(pa->p_sup >= 0 && pa->p_sup <= 1))
        return ms_error_set(err, MS_EINVAL, "p_sup must be in [0, 1] (got %g)", pa->p_sup);
    if (!(pa->p_stop >= 0 && pa->p_stop <= 1))
        return ms_error_set(err, MS_EINVAL, "p_stop must be in [0, 1] (got %g)", pa->p_stop);
    double sum = 0;
    for (int s = 1; s <= MS_MAX_SLICES; s++) {
        if (!(pa->p[s] >= 0 && pa->p[s] <= 1))
            return ms_error_set(err, MS_EINVAL, "share p[%d] must be in [0, 1] (got %g)", s,
                                pa->p[s]);
        if (pa->p[s] > 0 && ms_gpu_size_index(gpu, s) < 0)
            return ms_error_set(err, MS_EINVAL,
                                "share p[%d] = %g but %s has no %d-slice "
                                "instances",
                                s, pa->p[s], gpu->name, s);
        sum += pa->p[s];
    }
    if (fabs(sum - 1) > 1e-6)
        return ms_error_set(err, MS_EINVAL, "shares p[s] over %s's sizes must sum to 1 (got %g)",
                            gpu->name, sum);
    return MS_OK;
}

int ms_gen_class_counts(const ms_gpu_model *gpu, const ms_gen_params *pa, int n,
                        int count[MS_MAX_SLICES + 1], int sup[MS_MAX_SLICES + 1], ms_error *err)
{
    int rc = check_params(gpu, pa, n, err);
    if (rc)
        return rc;
    memset(count, 0, (MS_MAX_SLICES + 1) * sizeof *count);
    memset(sup, 0, (MS_MAX_SLICES + 1) * sizeof *sup);
    int total = 0;
    for (int k = 0; k < gpu->nsizes; k++) {
        int s = gpu->sizes[k];
        count[s] = (int)floor(n * pa->p[s] + FLOOR_EPS);
        total += count[s];
    }
    /* Footnote 8: one more to the size farthest below its exact share (ties: smaller). */
    while (total < n) {
        int best = gpu->sizes[0];
        for (int k = 1; k < gpu->nsizes; k++) {
            int s = gpu->sizes[k];
            if (n * pa->p[s] - count[s] > n * pa->p[best] - count[best])
                best = s;
        }
        count[best]++;
        total++;
    }
    /* Tasks that only exploit the smallest size scale sub-linearly from the start. */
    for (int k = 1; k < gpu->nsizes; k++) {
        int s = gpu->sizes[k];
        sup[s] = (int)floor(pa->p_sup * count[s] + FLOOR_EPS);
    }
    return MS_OK;
}

/* r of t(s+1) = (s + r) / (s + 1) * t(s) for each kind of speedup step. */
static double r_super(ms_rng *rng) { return ms_rng_normal_clipped(rng, -0.25, 0.25, -0.5, 0); }
static double r_near(ms_rng *rng) { return ms_rng_normal_clipped(rng, 0.1, 0.1, 0, 0.2); }
static double r_sub(ms_rng *rng) { return ms_rng_normal_clipped(rng, 0.75, 0.25, 0.5, 1); }

/* Times for every slice count 1..largest of a task that scales well up to size `good`;
 * a memory-bound task starts super-linear and, before each later step within `good`,
 * turns compute-bound (near-linear) with probability p_stop. */
static void gen_task(const ms_gpu_model *gpu, const ms_gen_params *pa, int good, bool memory,
                     ms_rng *rng, double *time)
{
    int largest = gpu->sizes[gpu->nsizes - 1];
    double t[MS_MAX_SLICES + 1];
    t[1] = pa->tmin + (pa->tmax - pa->tmin) * ms_rng_uniform(rng);
    for (int s = 1; s < largest; s++) {
        double r;
        if (s + 1 > good) {
            r = r_sub(rng);
        } else {
            if (memory && s >= 2 && ms_rng_uniform(rng) < pa->p_stop)
                memory = false;
            r = memory ? r_super(rng) : r_near(rng);
        }
        t[s + 1] = (s + r) / (s + 1) * t[s];
    }
    /* Times of sizes the GPU lacks only served the recurrence. */
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = INFINITY;
    for (int k = 0; k < gpu->nsizes; k++)
        time[gpu->sizes[k]] = t[gpu->sizes[k]];
}

/* A pathological task (paper 001 6.7, Rodinia's CFD): fastest at size `best`, near-linear
 * up to it, 3 slices 2-8 % slower than `best`, and every larger size no faster. */
static void gen_patho_task(const ms_gpu_model *gpu, const ms_gen_params *pa, int best, ms_rng *rng,
                           double *time)
{
    int largest = gpu->sizes[gpu->nsizes - 1];
    double t[MS_MAX_SLICES + 1];
    t[1] = pa->tmin + (pa->tmax - pa->tmin) * ms_rng_uniform(rng);
    for (int s = 1; s < largest; s++)
        t[s + 1] = s + 1 <= best ? (s + r_near(rng)) / (s + 1) * t[s]
                                 : t[s] * (1 + 0.02 * ms_rng_uniform(rng));
    t[3] = t[best] * (1.02 + 0.06 * ms_rng_uniform(rng));
    if (best < 3) /* sizes above 3 are no faster than 3 */
        for (int s = 4; s <= largest; s++)
            t[s] = fmax(t[s], t[3]);
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = INFINITY;
    for (int k = 0; k < gpu->nsizes; k++)
        time[gpu->sizes[k]] = t[gpu->sizes[k]];
}

static bool any_patho(const ms_gen_params *pa)
{
    for (int s = 1; s <= MS_MAX_SLICES; s++)
        if (pa->patho[s] > 0)
            return true;
    return false;
}

static int add_tasks(const double *times, const int *order, int n, ms_workload *w, ms_error *err)
{
    int width = 4;
    for (int m = n; m >= 10000; m /= 10)
        width++;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "t%0*d", width & 15, i + 1); /* width <= 10 */
        int rc = ms_workload_add(w, name, &times[(size_t)order[i] * (MS_MAX_SLICES + 1)], NULL,
                                 NULL, err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

int ms_generate(const ms_gpu_model *gpu, const ms_gen_params *pa, int n, ms_rng *rng,
                ms_workload **out, ms_error *err)
{
    *out = NULL;
    int count[MS_MAX_SLICES + 1], sup[MS_MAX_SLICES + 1];
    bool patho = any_patho(pa);
    ms_gen_params classes = *pa; /* pathological tasks: classes by best size */
    if (patho)
        memcpy(classes.p, pa->patho, sizeof classes.p);
    int rc = ms_gen_class_counts(gpu, &classes, n, count, sup, err);
    if (rc)
        return rc;
    double *times = malloc((size_t)n * (MS_MAX_SLICES + 1) * sizeof *times);
    int *order = malloc((size_t)n * sizeof *order);
    ms_workload *w = ms_workload_new();
    if (!times || !order || !w) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory generating %d tasks", n);
        goto done;
    }
    int i = 0;
    for (int k = 0; k < gpu->nsizes; k++)
        for (int j = 0; j < count[gpu->sizes[k]]; j++, i++) {
            double *time = &times[(size_t)i * (MS_MAX_SLICES + 1)];
            if (patho)
                gen_patho_task(gpu, pa, gpu->sizes[k], rng, time);
            else
                gen_task(gpu, pa, gpu->sizes[k], j < sup[gpu->sizes[k]], rng, time);
        }
    /* Shuffle so that input order carries no information about the class. */
    for (i = 0; i < n; i++)
        order[i] = i;
    for (i = n - 1; i > 0; i--) {
        int j = (int)ms_rng_below(rng, (uint64_t)i + 1), tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (i = 0; pa->class_order && i < n; i++)
        order[i] = i;
    rc = add_tasks(times, order, n, w, err);
done:
    free(times);
    free(order);
    if (rc) {
        ms_workload_free(w);
        return rc;
    }
    *out = w;
    return MS_OK;
}
