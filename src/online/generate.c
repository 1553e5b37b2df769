/* generate.c: synthetic online workloads in the shape of paper 002 V-A2: Poisson
 * arrivals, a profile mix, and "Normal"/"Long" service times that depend on the profile
 * (documented in docs/online.md: log-normal, Long = its upper half, scaled per profile),
 * and the offered load such a generator puts on a node. */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void ms_online_gen_defaults(const ms_gpu_model *m, ms_online_gen *g)
{
    memset(g, 0, sizeof *g);
    g->jobs = 200;
    g->arrival_mean = 25.0;
    g->service = MS_SERVICE_NORMAL;
    g->service_median = 150.0;
    g->service_sigma = 0.6;
    for (int k = 0; k < m->nsizes; k++)
        if (m->sizes[k] < m->slices) {
            g->mix_profile[g->nmix] = m->base_profile[m->sizes[k]];
            g->mix_weight[g->nmix++] = 1.0;
        }
}

double ms_online_service_scale(const ms_gpu_model *m, int profile)
{
    int c = m->profiles[profile].slices;
    return (c >= 3 ? 2.0 : 1.0) / sqrt((double)c);
}

double ms_online_tpot_alone(const ms_gpu_model *m, int profile)
{
    return 0.1 * ms_online_service_scale(m, profile);
}

/* E[exp(sigma Z)] for Normal, E[exp(sigma |Z|)] = 2 exp(sigma^2/2) Phi(sigma) for Long. */
static double lognormal_mean(const ms_online_gen *g)
{
    double s = g->service_sigma, m = exp(s * s / 2);
    return g->service == MS_SERVICE_LONG ? m * erfc(-s / sqrt(2.0)) : m;
}

static double scale_of(const ms_gpu_model *m, const ms_online_gen *g, int profile)
{
    return g->flat_service ? 1.0 : ms_online_service_scale(m, profile);
}

double ms_online_gen_load(const ms_gpu_model *m, const ms_online_gen *g, int gpus)
{
    double total = 0, slice_s = 0;
    for (int i = 0; i < g->nmix; i++) {
        int p = g->mix_profile[i];
        total += g->mix_weight[i];
        slice_s += g->mix_weight[i] * m->profiles[p].slices * scale_of(m, g, p);
    }
    slice_s *= g->service_median * lognormal_mean(g) / total;
    return slice_s / g->arrival_mean / ((double)gpus * m->slices);
}

void ms_online_gen_set_load(const ms_gpu_model *m, ms_online_gen *g, int gpus, double load)
{
    g->arrival_mean = 1.0;
    g->arrival_mean = ms_online_gen_load(m, g, gpus) / load;
}

int ms_online_parse_mix(const ms_gpu_model *m, const char *text, ms_online_gen *g, ms_error *err)
{
    char buf[512];
    if (strlen(text) >= sizeof buf)
        return ms_error_set(err, MS_EINVAL, "--mix: too long");
    strcpy(buf, text);
    int n = 0;
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(item, ':');
        double wgt = 1.0;
        if (colon) {
            *colon = '\0';
            char *end;
            wgt = strtod(colon + 1, &end);
            if (end == colon + 1 || *end || !(wgt > 0 && wgt < 1e9))
                return ms_error_set(err, MS_EINVAL, "--mix: weight '%s' of %s is not a number > 0",
                                    colon + 1, item);
        }
        int p = ms_gpu_profile_by_name(m, item);
        if (p < 0)
            return ms_error_set(err, MS_EINVAL, "--mix: '%s' is not a profile of %s", item,
                                m->name);
        if (n == MS_MAX_PROFILES)
            return ms_error_set(err, MS_EINVAL, "--mix: too many entries");
        g->mix_profile[n] = p;
        g->mix_weight[n++] = wgt;
    }
    if (n == 0)
        return ms_error_set(err, MS_EINVAL, "--mix: no profiles given");
    g->nmix = n;
    return MS_OK;
}

static int draw_profile(const ms_online_gen *g, ms_rng *rng)
{
    double total = 0, u;
    for (int i = 0; i < g->nmix; i++)
        total += g->mix_weight[i];
    u = ms_rng_uniform(rng) * total;
    for (int i = 0; i < g->nmix; i++) {
        if (u < g->mix_weight[i])
            return g->mix_profile[i];
        u -= g->mix_weight[i];
    }
    return g->mix_profile[g->nmix - 1];
}

int ms_online_generate(const ms_gpu_model *m, const ms_online_gen *g, ms_rng *rng,
                       ms_online_workload *w, ms_error *err)
{
    memset(w, 0, sizeof *w);
    if (g->jobs < 1 || g->jobs > 100000000)
        return ms_error_set(err, MS_EINVAL,
                            "generator: jobs %d not in 1..100000000 (an empty "
                            "workload simulates nothing)",
                            g->jobs);
    if (!(g->arrival_mean > 0) || g->nmix < 1 || !(g->service_median > 0) ||
        !(g->service_sigma >= 0))
        return ms_error_set(err, MS_EINVAL,
                            "generator: jobs, arrival mean, mix or service "
                            "parameters out of range");
    for (int i = 0; i < g->nmix; i++)
        if (g->mix_profile[i] < 0 || g->mix_profile[i] >= m->nprofiles || !(g->mix_weight[i] > 0))
            return ms_error_set(err, MS_EINVAL, "generator: mix entry %d is not a profile of %s", i,
                                m->name);
    w->jobs = malloc((size_t)g->jobs * sizeof *w->jobs);
    if (!w->jobs)
        return ms_error_set(err, MS_ENOMEM, "generator: out of memory");
    w->cap = g->jobs;
    double t = 0;
    for (int j = 0; j < g->jobs; j++) {
        if (j > 0)
            t += ms_rng_exponential(rng, g->arrival_mean);
        int p = draw_profile(g, rng);
        double z = ms_rng_normal(rng, 0.0, 1.0);
        if (g->service == MS_SERVICE_LONG)
            z = fabs(z); /* the upper half of the distribution: above its median */
        double work = g->service_median * scale_of(m, g, p) * exp(g->service_sigma * z);
        w->jobs[j] = (ms_online_job){t, p, work, -1};
    }
    w->n = g->jobs;
    return MS_OK;
}
