/* cluster_load.c: a workload's offered load on a number of compute slices, the time scale
 * of its arrivals that sets one, and copies of a range of its jobs (a training part and an
 * evaluation part of one trace). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

double ms_online_offered_load(const ms_gpu_model *m, const ms_online_workload *w, int64_t slices)
{
    if (w->n < 2 || slices < 1)
        return NAN;
    double demand = 0;
    for (int j = 0; j < w->n; j++)
        demand += m->profiles[w->jobs[j].profile].slices * w->jobs[j].work;
    double span = w->jobs[w->n - 1].arrival - w->jobs[0].arrival;
    return span > 0 ? demand / ((double)slices * span) : NAN;
}

int ms_online_load_scale(const ms_gpu_model *m, const ms_online_workload *w, int64_t slices,
                         double load, double *scale, ms_error *err)
{
    double now = ms_online_offered_load(m, w, slices);
    if (!(load > 0 && load <= 1e3))
        return ms_error_set(err, MS_EINVAL, "--load must be in (0, 1000], got %g", load);
    if (!isfinite(now) || now <= 0)
        return ms_error_set(err, MS_EINVAL,
                            "the jobs' arrivals span no time (or they ask no work): no time "
                            "scale gives them an offered load");
    *scale = now / load;
    return MS_OK;
}

void ms_online_scale_arrivals(ms_online_workload *w, double scale)
{
    double t0 = w->n ? w->jobs[0].arrival : 0;
    for (int j = 0; j < w->n; j++)
        w->jobs[j].arrival = t0 + (w->jobs[j].arrival - t0) * scale;
}

int ms_online_workload_range(const ms_online_workload *w, int from, int to, ms_online_workload *out,
                             ms_error *err)
{
    memset(out, 0, sizeof *out);
    if (from < 0 || to > w->n || from >= to)
        return ms_error_set(err, MS_EINVAL, "empty or bad job range [%d, %d) of %d jobs", from, to,
                            w->n);
    out->n = out->cap = to - from;
    out->jobs = malloc((size_t)out->n * sizeof *out->jobs);
    out->names = w->names_len ? malloc(w->names_len) : NULL;
    if (!out->jobs || (w->names_len && !out->names)) {
        ms_online_workload_fini(out);
        return ms_error_set(err, MS_ENOMEM, "out of memory copying a workload");
    }
    memcpy(out->jobs, w->jobs + from, (size_t)out->n * sizeof *out->jobs);
    if (w->names_len)
        memcpy(out->names, w->names, w->names_len);
    out->names_len = out->names_cap = w->names_len;
    return MS_OK;
}
