/* capi_online_workload.c: online workloads through the flat API: trace CSV and Alibaba pod
 * lists read, the generator's draws, jobs from arrays, and what a workload holds. Each
 * keeps a copy of its GPU model, which its profile indices refer to. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_internal.h"
#include "migsched/parse.h"
#include "migsched/rng.h"

/* A new handle for gpu's jobs; NULL with MS_ENOMEM recorded. */
static msc_online_workload *handle(const ms_gpu_model *gpu)
{
    msc_online_workload *h = calloc(1, sizeof *h);
    if (!h) {
        msc_failf(MS_ENOMEM, "out of memory");
        return NULL;
    }
    h->m = *gpu;
    return h;
}

/* The handle with its jobs, or freed with the error recorded when rc is one. */
static int keep(msc_online_workload *h, int rc, const ms_error *err, msc_online_workload **out)
{
    if (rc) {
        ms_online_workload_fini(&h->w);
        free(h);
        return msc_fail(err);
    }
    *out = h;
    return 0;
}

int msc_online_trace_read(const char *path, const ms_gpu_model *gpu, msc_online_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(path);
    MSC_NEED(gpu);
    msc_online_workload *h = handle(gpu);
    if (!h)
        return MS_ENOMEM;
    ms_error err;
    return keep(h, ms_online_trace_read(path, &h->m, &h->w, &err), &err, out);
}

int msc_online_trace_parse(const char *text, size_t len, const char *source,
                           const ms_gpu_model *gpu, msc_online_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(text);
    MSC_NEED(gpu);
    msc_online_workload *h = handle(gpu);
    if (!h)
        return MS_ENOMEM;
    ms_error err;
    return keep(h,
                ms_online_trace_parse(text, len, source ? source : "<trace>", &h->m, &h->w, &err),
                &err, out);
}

int msc_online_alibaba_read(const char *path, const ms_gpu_model *gpu, int limit,
                            msc_online_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(path);
    MSC_NEED(gpu);
    if (limit < 0)
        return msc_failf(MS_EINVAL, "limit %d: give 0 (every pod) or a positive count", limit);
    msc_online_workload *h = handle(gpu);
    if (!h)
        return MS_ENOMEM;
    ms_error err;
    return keep(h, ms_online_alibaba_read(path, &h->m, limit, &h->w, &err), &err, out);
}

/* The generator's parameters as `online simulate` sets them from its options. */
static int gen_params(const ms_gpu_model *m, int jobs, double arrival_mean, const char *mix,
                      const char *service, const char *times, double median, double sigma,
                      ms_online_gen *g, ms_error *err)
{
    ms_online_gen_defaults(m, g);
    if (jobs < 1 || jobs > 10000000 || !(arrival_mean >= 1e-6 && arrival_mean <= 1e9))
        return ms_error_set(err, MS_EINVAL,
                            "jobs %d, arrival mean %g s: give 1 to 10000000 jobs and a mean "
                            "in [1e-6, 1e9] s",
                            jobs, arrival_mean);
    if (isnan(median) || median > 1e9 || isnan(sigma) || sigma > 100)
        return ms_error_set(err, MS_EINVAL,
                            "service median %g s, sigma %g: give a median up to 1e9 s (<= 0: "
                            "150) and a sigma up to 100 (< 0: 0.6)",
                            median, sigma);
    g->jobs = jobs;
    g->arrival_mean = arrival_mean;
    if (median > 0)
        g->service_median = median;
    if (sigma >= 0)
        g->service_sigma = sigma;
    if (mix && *mix && ms_online_parse_mix(m, mix, g, err))
        return err->code;
    if (service && strcmp(service, "normal") && strcmp(service, "long"))
        return ms_error_set(err, MS_EINVAL, "service must be normal or long, got '%s'", service);
    g->service = service && !strcmp(service, "long") ? MS_SERVICE_LONG : MS_SERVICE_NORMAL;
    if (times && strcmp(times, "profile") && strcmp(times, "flat"))
        return ms_error_set(err, MS_EINVAL, "service times must be profile or flat, got '%s'",
                            times);
    g->flat_service = times && !strcmp(times, "flat");
    return MS_OK;
}

int msc_online_generate(const ms_gpu_model *gpu, int jobs, double arrival_mean, const char *mix,
                        const char *service, const char *service_times, double service_median,
                        double service_sigma, uint64_t seed, msc_online_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(gpu);
    msc_online_workload *h = handle(gpu);
    if (!h)
        return MS_ENOMEM;
    ms_error err = {0};
    ms_online_gen g;
    int rc = gen_params(&h->m, jobs, arrival_mean, mix, service, service_times, service_median,
                        service_sigma, &g, &err);
    if (!rc) {
        ms_rng rng;
        ms_rng_seed(&rng, seed);
        rc = ms_online_generate(&h->m, &g, &rng, &h->w, &err);
    }
    return keep(h, rc, &err, out);
}

/* Job j of the arrays, checked as the trace reader checks a line. */
static int array_job(const ms_gpu_model *m, int j, const double *arrival, const int *profile,
                     const double *work, ms_error *err)
{
    const char *why = ms_time_check(arrival[j]);
    if (why || arrival[j] < 0)
        return ms_error_set(err, MS_EINVAL, "job %d: arrival %g %s", j, arrival[j],
                            why ? why : "is negative");
    if (j > 0 && arrival[j] < arrival[j - 1])
        return ms_error_set(err, MS_EINVAL,
                            "job %d: arrival %g comes before job %d's %g (arrivals must not "
                            "decrease)",
                            j, arrival[j], j - 1, arrival[j - 1]);
    if (profile[j] < 0 || profile[j] >= m->nprofiles)
        return ms_error_set(err, MS_EINVAL, "job %d: profile %d is not one of %s's 0 to %d", j,
                            profile[j], m->name, m->nprofiles - 1);
    if ((why = ms_time_check(work[j])) || work[j] < 0)
        return ms_error_set(err, MS_EINVAL, "job %d: work %g %s", j, work[j],
                            why ? why : "is negative");
    return MS_OK;
}

/* The names' buffer: each name NUL-terminated, w->jobs[j].name its offset (-1: none). */
static int array_names(ms_online_workload *w, const char *const *names)
{
    size_t len = 0;
    for (int j = 0; names && j < w->n; j++)
        len += names[j] ? strlen(names[j]) + 1 : 0;
    w->names = len ? malloc(len) : NULL;
    if (len && !w->names)
        return MS_ENOMEM;
    w->names_len = w->names_cap = len;
    size_t at = 0;
    for (int j = 0; j < w->n; j++) {
        w->jobs[j].name = names && names[j] ? (int)at : -1;
        if (w->jobs[j].name >= 0) {
            memcpy(w->names + at, names[j], strlen(names[j]) + 1);
            at += strlen(names[j]) + 1;
        }
    }
    return MS_OK;
}

int msc_online_workload_from_arrays(const ms_gpu_model *gpu, int n, const double *arrival,
                                    const int *profile, const double *work,
                                    const char *const *names, msc_online_workload **out)
{
    MSC_NEED(arrival);
    MSC_NEED(profile);
    MSC_NEED(work);
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(gpu);
    if (n < 1)
        return msc_failf(MS_EINVAL, "the workload has no jobs (n = %d)", n);
    msc_online_workload *h = handle(gpu);
    if (!h)
        return MS_ENOMEM;
    ms_error err = {0};
    int rc = MS_OK;
    for (int j = 0; j < n && !rc; j++)
        rc = array_job(&h->m, j, arrival, profile, work, &err);
    h->w.jobs = rc ? NULL : malloc((size_t)n * sizeof *h->w.jobs);
    if (!rc && !h->w.jobs)
        rc = ms_error_set(&err, MS_ENOMEM, "out of memory");
    if (!rc) {
        h->w.n = h->w.cap = n;
        for (int j = 0; j < n; j++)
            h->w.jobs[j] = (ms_online_job){arrival[j], profile[j], work[j], -1};
        if (array_names(&h->w, names))
            rc = ms_error_set(&err, MS_ENOMEM, "out of memory");
    }
    return keep(h, rc, &err, out);
}

int msc_online_workload_scaled(const msc_online_workload *w, double scale,
                               msc_online_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(w);
    if (!(scale > 0 && scale <= 1e6))
        return msc_failf(MS_EINVAL, "scale %g: give a factor in (0, 1e6]", scale);
    msc_online_workload *h = handle(&w->m);
    if (!h)
        return MS_ENOMEM;
    ms_error err = {0};
    int rc = ms_online_workload_range(&w->w, 0, w->w.n, &h->w, &err);
    if (!rc)
        ms_online_scale_arrivals(&h->w, scale);
    return keep(h, rc, &err, out);
}

void msc_online_workload_free(msc_online_workload *w)
{
    if (!w)
        return;
    ms_online_workload_fini(&w->w);
    free(w);
}

int msc_online_workload_size(const msc_online_workload *w) { return w ? w->w.n : 0; }

void msc_online_workload_jobs(const msc_online_workload *w, double *arrival, int *profile,
                              double *work)
{
    for (int j = 0; w && j < w->w.n; j++) {
        if (arrival)
            arrival[j] = w->w.jobs[j].arrival;
        if (profile)
            profile[j] = w->w.jobs[j].profile;
        if (work)
            work[j] = w->w.jobs[j].work;
    }
}

const char *msc_online_workload_job_name(const msc_online_workload *w, int i)
{
    return w && i >= 0 && i < w->w.n ? ms_online_job_name(&w->w, i) : NULL;
}

int msc_online_workload_describe(const msc_online_workload *w, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(w);
    const ms_online_workload *x = &w->w;
    json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:i, s:i}", "gpu_model", w->m.name, "jobs", x->n,
                          "skipped", x->skipped, "skipped_multi_gpu", x->skipped_multi_gpu,
                          "skipped_no_gpu", x->skipped_no_gpu, "skipped_bad_time",
                          x->skipped_bad_time);
    return msc_json_text(o, json);
}

int msc_online_workload_load(const msc_online_workload *w, int gpus, double *load)
{
    MSC_NEED(w);
    MSC_NEED(load);
    if (gpus < 1 || gpus > (1 << 20))
        return msc_failf(MS_EINVAL, "gpus %d: give 1 to %d", gpus, 1 << 20);
    *load = ms_online_offered_load(&w->m, &w->w, (int64_t)gpus * w->m.slices);
    return isnan(*load) ? msc_failf(MS_EINVAL,
                                    "the offered load needs arrivals spread over time (every "
                                    "job arrives at %g s)",
                                    w->w.n ? w->w.jobs[0].arrival : 0.0)
                        : 0;
}

int msc_online_trace_write(const msc_online_workload *w, const char *path)
{
    MSC_NEED(w);
    MSC_NEED(path);
    ms_error err;
    return ms_online_trace_write(path, &w->m, &w->w, &err) ? msc_fail(&err) : 0;
}
