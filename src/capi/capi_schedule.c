/* capi_schedule.c: planning through the flat API: the offline algorithms as `migsched
 * schedule` runs them, plan files, the validator, metrics, lower bounds and the drawing. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "capi_internal.h"
#include "migsched/offline.h"
#include "migsched/plot.h"
#include "migsched/schedule.h"

int msc_algorithms(char **json)
{
    MSC_NEED(json);
    json_t *a = json_array();
    for (int i = 0; i < ms_offline_algo_count(); i++) {
        const ms_offline_algo *al = ms_offline_algo_at(i);
        json_array_append_new(a, json_pack("{s:s, s:s}", "name", al->name, "summary", al->summary));
    }
    return msc_json_text(a, json);
}

/* The options of `migsched schedule` that the call names; what it does not name keeps
 * the algorithms' defaults. */
static int options(const char *algo, int batch, uint64_t seed, double budget_ms, int threads,
                   const char *model, const char *concat, ms_offline_options *o)
{
    ms_offline_options_init(o);
    if (!ms_offline_known(algo))
        return msc_failf(MS_EINVAL, "algorithm '%s' is not known (msc_algorithms lists them)",
                         algo);
    if (batch < 0 || threads < 0 || threads > 64 || !(budget_ms >= 0) || isinf(budget_ms))
        return msc_failf(MS_EINVAL,
                         "batch %d, threads %d, budget %g ms: give batch >= 0, "
                         "threads 0-64 and a finite budget >= 0",
                         batch, threads, budget_ms);
    if (model && strcmp(algo, "rl") && strcmp(algo, "search"))
        return msc_failf(MS_EINVAL, "a model goes with algorithm rl or search, not %s", algo);
    int mode = concat ? ms_concat_parse(concat) : (int)o->far.concat;
    if (mode < 0)
        return msc_failf(MS_EINVAL, "concat '%s': give trivial, reverse or overlap", concat);
    o->far.concat = (ms_concat_mode)mode;
    o->batch = batch;
    o->seed = seed;
    o->search.time_budget_ms = budget_ms;
    o->optimal.time_budget_ms = budget_ms;
    o->search.threads = threads;
    o->rl.model = model;
    return 0;
}

/* A plan the validator rejects is a bug in migsched: an error, not a result. */
static int check(const ms_schedule *s, const ms_workload *w, const ms_initial *initial)
{
    ms_validation v = {0};
    int bad = ms_schedule_validate_initial(s, w, initial, &v);
    int rc = bad ? msc_failf(MS_EINVAL, "%s made an invalid plan (%s): %s", s->algorithm,
                             v.v[0].rule, v.v[0].msg)
                 : 0;
    ms_validation_fini(&v);
    return rc;
}

int msc_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus, const char *algo,
                 int batch, uint64_t seed, double budget_ms, int threads, const char *initial,
                 const char *model, const char *concat, ms_schedule **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(w);
    MSC_NEED(gpu);
    MSC_NEED(algo);
    if (gpus < 1 || gpus > 4096)
        return msc_failf(MS_EINVAL, "gpus %d: give 1 to 4096", gpus);
    ms_offline_options o;
    int rc = options(algo, batch, seed, budget_ms, threads, model, concat, &o);
    if (rc)
        return rc;
    ms_initial init;
    ms_initial_init(&init);
    o.initial = &init;
    ms_error err;
    ms_schedule *s = NULL;
    if (ms_workload_check_gpu(w, gpu, &err) ||
        ms_initial_parse(initial ? initial : "empty", gpu, gpus, &init, &err) ||
        ms_offline_schedule(algo, w, gpu, gpus, &o, &s, &err))
        rc = msc_fail(&err);
    else if (!(rc = check(s, w, &init)))
        *out = s;
    if (rc)
        ms_schedule_free(s);
    ms_initial_fini(&init);
    return rc;
}

void msc_schedule_free(ms_schedule *s) { ms_schedule_free(s); }

int msc_schedule_to_json(const ms_schedule *s, const ms_workload *w, int timings, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(s);
    MSC_NEED(w);
    ms_schedule *c = ms_schedule_clone(s);
    msc_text t;
    if (!c || msc_text_open(&t)) {
        ms_schedule_free(c);
        return msc_failf(MS_ENOMEM, "out of memory");
    }
    if (!timings)
        ms_schedule_drop_timings(c);
    ms_error err;
    int rc = ms_schedule_write_json(c, w, t.f, &err);
    ms_schedule_free(c);
    if (rc) {
        msc_text_drop(&t);
        return msc_fail(&err);
    }
    return msc_text_take(&t, json);
}

int msc_schedule_parse_json(const char *text, size_t len, const char *source,
                            const ms_gpu_model *gpu, ms_schedule **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(text);
    ms_error err;
    return ms_schedule_parse_json(text, len, source ? source : "<schedule>", gpu, out, &err)
               ? msc_fail(&err)
               : 0;
}

int msc_schedule_validate(const ms_schedule *s, const ms_workload *w, const char *initial,
                          char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(s);
    MSC_NEED(w);
    ms_initial init;
    ms_initial_init(&init);
    ms_error err;
    if (ms_schedule_match_workload(s, w, &err) ||
        ms_initial_parse(initial ? initial : "empty", &s->gpu, s->gpus, &init, &err)) {
        ms_initial_fini(&init);
        return msc_fail(&err);
    }
    ms_validation v = {0};
    ms_schedule_validate_initial(s, w, &init, &v);
    json_t *a = json_array();
    for (int i = 0; i < v.n; i++)
        json_array_append_new(a,
                              json_pack("{s:s, s:s}", "rule", v.v[i].rule, "message", v.v[i].msg));
    ms_validation_fini(&v);
    ms_initial_fini(&init);
    return msc_json_text(a, json);
}

/* null for NAN and infinities, which JSON cannot hold. */
static json_t *number(double v) { return isfinite(v) ? json_real(v) : json_null(); }

int msc_schedule_metrics(const ms_schedule *s, const ms_workload *w, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(s);
    MSC_NEED(w);
    ms_error err;
    if (ms_schedule_match_workload(s, w, &err))
        return msc_fail(&err);
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    const struct {
        const char *key;
        double value;
    } reals[] = {
        {"makespan", m.makespan},           {"baseline", m.baseline}, {"l_bound", m.l_bound},
        {"l_bound_paper", m.l_bound_paper}, {"rho", m.rho},           {"p_opt", m.p_opt},
        {"utilization", m.utilization}};
    json_t *o = json_pack("{s:i, s:i, s:i}", "creations", m.creations, "destructions",
                          m.destructions, "reconfigurations", m.reconfigurations);
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        json_object_set_new(o, reals[i].key, number(reals[i].value));
    json_t *stats = json_object();
    for (int i = 0; i < s->nstats; i++)
        json_object_set_new(stats, s->stats[i].key, number(s->stats[i].value));
    json_object_set_new(o, "stats", stats);
    return msc_json_text(o, json);
}

int msc_schedule_svg(const ms_schedule *s, const ms_workload *w, const char *title, char **svg)
{
    MSC_NEED(svg);
    *svg = NULL;
    MSC_NEED(s);
    MSC_NEED(w);
    ms_error err;
    if (ms_schedule_match_workload(s, w, &err))
        return msc_fail(&err);
    ms_plot_labels lab;
    ms_plot_labels_from_workload(s, w, &lab);
    lab.title = title;
    msc_text t;
    if (msc_text_open(&t))
        return MS_ENOMEM;
    if (ms_plot_svg(s, &lab, t.f, &err)) {
        msc_text_drop(&t);
        return msc_fail(&err);
    }
    return msc_text_take(&t, svg);
}

int msc_bounds(const ms_workload *w, const ms_gpu_model *gpu, int gpus, const char *initial,
               char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(w);
    MSC_NEED(gpu);
    if (gpus < 1 || gpus > 4096)
        return msc_failf(MS_EINVAL, "gpus %d: give 1 to 4096", gpus);
    ms_initial init;
    ms_initial_init(&init);
    ms_error err;
    if (ms_workload_check_gpu(w, gpu, &err) ||
        ms_initial_parse(initial ? initial : "empty", gpu, gpus, &init, &err)) {
        ms_initial_fini(&init);
        return msc_fail(&err);
    }
    double lb, lbp;
    ms_bound_lbound_both(w, gpu, gpus, ms_initial_present_sizes(&init, gpu), &lb, &lbp);
    ms_initial_fini(&init);
    return msc_json_text(json_pack("{s:o, s:o, s:o}", "baseline",
                                   number(ms_bound_baseline(w, gpu, gpus)), "l_bound", number(lb),
                                   "l_bound_paper", number(lbp)),
                         json);
}
