/* capi_workload.c: workloads through the flat API: built task by task, read from CSV or
 * JSON, drawn by the generator, and written back. */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "capi_internal.h"
#include "migsched/rng.h"
#include "migsched/workload.h"

int msc_workload_new(ms_workload **out)
{
    MSC_NEED(out);
    *out = ms_workload_new();
    return *out ? 0 : msc_failf(MS_ENOMEM, "out of memory");
}

void msc_workload_free(ms_workload *w) { ms_workload_free(w); }

int msc_workload_add(ms_workload *w, const char *name, const double *times, const char *command)
{
    MSC_NEED(w);
    MSC_NEED(name);
    MSC_NEED(times);
    double t[MS_MAX_SLICES + 1] = {INFINITY};
    bool any = false;
    for (int s = 1; s <= MS_MAX_SLICES; s++) {
        t[s] = times[s - 1];
        if (isnan(t[s]) || t[s] <= 0)
            return msc_failf(MS_EINVAL,
                             "task %d (%s): time on %d slices is %g: give a positive "
                             "time, or infinity where it cannot run",
                             w->n, name, s, t[s]);
        any |= isfinite(t[s]);
    }
    if (!any)
        return msc_failf(MS_EINVAL, "task %d (%s): no size has a finite time", w->n, name);
    ms_error err;
    return ms_workload_add(w, name, t, command, NULL, &err) ? msc_fail(&err) : 0;
}

int msc_workload_parse(const char *text, size_t len, const char *source, const ms_gpu_model *gpu,
                       ms_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(text);
    source = source ? source : "<workload>";
    size_t i = 0;
    while (i < len && strchr(" \t\r\n", text[i]))
        i++;
    ms_error err;
    int rc = i < len && text[i] == '{' ? ms_workload_parse_json(text, len, source, gpu, out, &err)
                                       : ms_workload_parse_csv(text, len, source, gpu, out, &err);
    return rc ? msc_fail(&err) : 0;
}

int msc_workload_read(const char *path, const ms_gpu_model *gpu, ms_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(path);
    ms_error err;
    return ms_workload_read(path, gpu, out, &err) ? msc_fail(&err) : 0;
}

int msc_workload_generate(const ms_gpu_model *gpu, const char *presets, int n, uint64_t seed,
                          ms_workload **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(gpu);
    ms_gen_params params;
    ms_error err;
    if (ms_gen_preset(gpu, presets, &params, &err))
        return msc_fail(&err);
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    return ms_generate(gpu, &params, n, &rng, out, &err) ? msc_fail(&err) : 0;
}

static char preset_names[1024];
static void join_preset_names(void)
{
    size_t used = 0;
    for (const char *const *n = ms_gen_preset_names(); *n && used < sizeof preset_names; n++)
        used += (size_t)snprintf(preset_names + used, sizeof preset_names - used, "%s%s",
                                 used ? "," : "", *n);
}

const char *msc_workload_preset_names(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, join_preset_names);
    return preset_names;
}

int msc_workload_size(const ms_workload *w) { return w ? w->n : 0; }

const char *msc_workload_task_name(const ms_workload *w, int i)
{
    return w && i >= 0 && i < w->n ? w->tasks[i].name : NULL;
}

void msc_workload_times(const ms_workload *w, double *times)
{
    for (int i = 0; i < w->n; i++)
        memcpy(times + (size_t)i * MS_MAX_SLICES, &w->tasks[i].time[1],
               MS_MAX_SLICES * sizeof *times);
}

int msc_workload_check(const ms_workload *w, const ms_gpu_model *gpu)
{
    MSC_NEED(w);
    MSC_NEED(gpu);
    ms_error err;
    return ms_workload_check_gpu(w, gpu, &err) ? msc_fail(&err) : 0;
}

int msc_workload_write(const ms_workload *w, const ms_gpu_model *gpu, const char *format,
                       char **text)
{
    MSC_NEED(text);
    *text = NULL;
    MSC_NEED(w);
    MSC_NEED(gpu);
    MSC_NEED(format);
    bool json = !strcmp(format, "json");
    if (!json && strcmp(format, "csv"))
        return msc_failf(MS_EINVAL, "format '%s': give csv or json", format);
    msc_text t;
    if (msc_text_open(&t))
        return MS_ENOMEM;
    ms_error err;
    if (json ? ms_workload_write_json(w, gpu, t.f, &err)
             : ms_workload_write_csv(w, gpu, t.f, &err)) {
        msc_text_drop(&t);
        return msc_fail(&err);
    }
    return msc_text_take(&t, text);
}
