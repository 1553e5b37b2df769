/* capi_online.c: the online simulator through the flat API: options set by the CLI's names,
 * a run under a built-in policy or a placement callback of the caller's (shown flat arrays
 * instead of the simulator's views), and the results as JSON, arrays and the CLI's files. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_internal.h"
#include "migsched/parse.h"

_Static_assert(MSC_ONLINE_SLOTS == MS_MAX_SLOTS, "capi_online.h's slot count is gpu.h's");

struct msc_online_config {
    ms_online_config c;
};

struct msc_online_result {
    ms_gpu_model m;
    ms_online_config c; /* the run's (the summary names the policy and options); place is
                         * set where a callback placed, place_arg no longer valid */
    ms_online_result r;
};

int msc_online_config_new(msc_online_config **out)
{
    MSC_NEED(out);
    *out = malloc(sizeof **out);
    if (!*out)
        return msc_failf(MS_ENOMEM, "out of memory");
    ms_online_config_defaults(&(*out)->c);
    return 0;
}

void msc_online_config_free(msc_online_config *c) { free(c); }

static int number(const char *key, const char *value, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (end == value || *end || errno || !(v >= lo && v <= hi))
        return msc_failf(MS_EINVAL, "online option %s must be a number in [%g, %g], got '%s'", key,
                         lo, hi, value);
    *out = v;
    return 0;
}

static int onoff(const char *key, const char *value, bool *out)
{
    static const char *const names[] = {"off", "on", "false", "true", "no", "yes", "0", "1"};
    int i = ms_name_index(names, 8, value);
    if (i < 0)
        return msc_failf(MS_EINVAL, "online option %s must be on or off, got '%s'", key, value);
    *out = i % 2;
    return 0;
}

/* An enumeration's value by name; what the option takes in the message. */
static int named(const char *key, const char *value, int v, const char *choices, int *out)
{
    if (v < 0)
        return msc_failf(MS_EINVAL, "online option %s must be %s, got '%s'", key, choices, value);
    *out = v;
    return 0;
}

enum {
    K_POLICY,
    K_GPUS,
    K_TAU,
    K_KAPPA,
    K_MIGRATION,
    K_BALANCE,
    K_DYNAMIC,
    K_MIGRATION_COST,
    K_MIGRATION_RULE,
    K_QUEUE,
    K_RESERVE_AFTER,
    K_LAYOUT,
    K_CHECK,
    K_TIMELINE,
    NKEYS
};
static const char *const keys[NKEYS] = {
    [K_POLICY] = "policy",
    [K_GPUS] = "gpus",
    [K_TAU] = "tau",
    [K_KAPPA] = "kappa",
    [K_MIGRATION] = "migration",
    [K_BALANCE] = "balance",
    [K_DYNAMIC] = "dynamic",
    [K_MIGRATION_COST] = "migration-cost",
    [K_MIGRATION_RULE] = "migration-rule",
    [K_QUEUE] = "queue",
    [K_RESERVE_AFTER] = "reserve-after",
    [K_LAYOUT] = "layout",
    [K_CHECK] = "check",
    [K_TIMELINE] = "timeline",
};

int msc_online_config_set(msc_online_config *cfg, const char *key, const char *value)
{
    MSC_NEED(cfg);
    MSC_NEED(key);
    MSC_NEED(value);
    ms_online_config *c = &cfg->c;
    double v = 0;
    int rc;
    switch (ms_name_index(keys, NKEYS, key)) {
    case K_POLICY:
        return named(key, value, ms_online_policy_parse(value),
                     "frag, firstfit-static, firstfit-dynamic, owp or elasticbatch", &c->policy);
    case K_GPUS:
        rc = number(key, value, 1, 1 << 20, &v);
        if (!rc && v != floor(v))
            rc = msc_failf(MS_EINVAL, "online option gpus must be a whole number, got '%s'", value);
        c->gpus = rc ? c->gpus : (int)v;
        return rc;
    case K_TAU: return number(key, value, 0, 1, &c->tau);
    case K_KAPPA: return number(key, value, 0, 1e6, &c->kappa);
    case K_MIGRATION: return onoff(key, value, &c->migration);
    case K_BALANCE: return onoff(key, value, &c->balance);
    case K_DYNAMIC: return onoff(key, value, &c->dynamic);
    case K_MIGRATION_COST: return number(key, value, 0, 1e9, &c->migration_cost);
    case K_MIGRATION_RULE:
        return named(key, value, ms_online_migration_rule_parse(value), "cost-aware or always",
                     &c->migration_rule);
    case K_QUEUE:
        return named(key, value, ms_online_queue_parse(value), "fcfs-profile, fcfs or reserve",
                     &c->queue);
    case K_RESERVE_AFTER: return number(key, value, 0, 1e8, &c->reserve_after);
    case K_LAYOUT:
        return named(key, value,
                     !strcmp(value, "best") ? MS_LAYOUT_BEST : ms_online_layout_parse(value),
                     "best, packed, small-first, spread or grouped", &c->layout);
    case K_CHECK: return onoff(key, value, &c->check);
    case K_TIMELINE: return onoff(key, value, &c->timeline);
    default:
        return msc_failf(MS_EINVAL,
                         "unknown online option '%s' (policy, gpus, tau, kappa, migration, "
                         "balance, dynamic, migration-cost, migration-rule, queue, reserve-after, "
                         "layout, check, timeline)",
                         key);
    }
}

static const char *layout_name(int layout)
{
    return layout == MS_LAYOUT_BEST ? "best" : ms_online_layout_name(layout);
}

int msc_online_config_describe(const msc_online_config *cfg, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(cfg);
    const ms_online_config *c = &cfg->c;
    json_t *o = json_pack(
        "{s:s, s:i, s:f, s:f, s:b, s:b, s:b, s:f, s:s, s:s, s:f, s:s, s:b, s:b}", "policy",
        ms_online_policy_name(c->policy), "gpus", c->gpus, "tau", c->tau, "kappa", c->kappa,
        "migration", c->migration, "balance", c->balance, "dynamic", c->dynamic, "migration-cost",
        c->migration_cost, "migration-rule", ms_online_migration_rule_name(c->migration_rule),
        "queue", ms_online_queue_name(c->queue), "reserve-after", c->reserve_after, "layout",
        layout_name(c->layout), "check", c->check, "timeline", c->timeline);
    return msc_json_text(o, json);
}

/* The caller's callback and the flat arrays it is shown, one block for the run. */
typedef struct place_ctx {
    msc_online_place_fn fn;
    void *arg;
    uint32_t *job_slots, *frag_slots, *frag_slices, *locked;
    int32_t *load;
    int8_t *idle;
} place_ctx;

static int place_ctx_init(place_ctx *x, int gpus)
{
    size_t g = (size_t)gpus;
    void *block = malloc(g * (4 * sizeof(uint32_t) + sizeof(int32_t) + MS_MAX_SLOTS));
    if (!block)
        return msc_failf(MS_ENOMEM, "out of memory");
    x->job_slots = block;
    x->frag_slots = x->job_slots + g;
    x->frag_slices = x->frag_slots + g;
    x->locked = x->frag_slices + g;
    x->load = (int32_t *)(x->locked + g);
    x->idle = (int8_t *)(x->load + g);
    return 0;
}

static int place_flat(void *arg, const ms_online_place_query *q, int *gpu, int *start)
{
    place_ctx *x = arg;
    for (int g = 0; g < q->ngpus; g++) {
        const ms_online_gpu_view *v = &q->gpus[g];
        x->job_slots[g] = v->job_slots;
        x->frag_slots[g] = v->frag_slots;
        x->frag_slices[g] = v->frag_slices;
        x->locked[g] = v->locked_slots;
        x->load[g] = v->load;
        memcpy(x->idle + (size_t)g * MS_MAX_SLOTS, v->idle, MS_MAX_SLOTS);
    }
    return x->fn(x->arg, q->now, q->job, q->profile, q->ngpus, x->job_slots, x->frag_slots,
                 x->frag_slices, x->locked, x->load, x->idle, gpu, start);
}

/* The run's model is the workload's: another model's profile indices mean other profiles. */
static int same_model(const ms_gpu_model *a, const ms_gpu_model *b)
{
    bool same = !strcmp(a->name, b->name) && a->nprofiles == b->nprofiles;
    for (int p = 0; same && p < a->nprofiles; p++)
        same = !strcmp(a->profiles[p].name, b->profiles[p].name);
    return same ? 0
                : msc_failf(MS_EINVAL, "the workload's jobs are of %s's profiles, not %s's",
                            b->name, a->name);
}

int msc_online_simulate(const msc_online_workload *w, const ms_gpu_model *gpu,
                        const msc_online_config *c, msc_online_place_fn place, void *arg,
                        msc_online_result **out)
{
    MSC_NEED(out);
    *out = NULL;
    MSC_NEED(w);
    MSC_NEED(gpu);
    MSC_NEED(c);
    int rc = same_model(gpu, &w->m);
    if (rc)
        return rc;
    msc_online_result *h = calloc(1, sizeof *h);
    place_ctx x = {place, arg, NULL, NULL, NULL, NULL, NULL, NULL};
    if (!h || (place && place_ctx_init(&x, c->c.gpus > 0 ? c->c.gpus : 1))) {
        free(h);
        return msc_failf(MS_ENOMEM, "out of memory");
    }
    h->m = w->m;
    h->c = c->c;
    h->c.place = place ? place_flat : NULL;
    h->c.place_arg = &x;
    ms_error err;
    rc = ms_online_simulate(&h->m, &w->w, &h->c, &h->r, &err);
    h->c.place_arg = NULL;
    free(x.job_slots);
    if (rc) {
        ms_online_result_fini(&h->r);
        free(h);
        return msc_fail(&err);
    }
    *out = h;
    return 0;
}

void msc_online_result_free(msc_online_result *r)
{
    if (!r)
        return;
    ms_online_result_fini(&r->r);
    free(r);
}

int msc_online_result_size(const msc_online_result *r) { return r ? r->r.n : 0; }

int msc_online_result_summary(const msc_online_result *h, char **json)
{
    MSC_NEED(json);
    *json = NULL;
    MSC_NEED(h);
    return msc_json_text(ms_online_summary_json(&h->m, &h->c, &h->r, true), json);
}

void msc_online_result_jobs(const msc_online_result *h, double *start, double *end, int *gpu,
                            int *migrations)
{
    for (int j = 0; h && j < h->r.n; j++) {
        if (start)
            start[j] = h->r.start[j];
        if (end)
            end[j] = h->r.end[j];
        if (gpu)
            gpu[j] = h->r.gpu[j];
        if (migrations)
            migrations[j] = h->r.migrations[j];
    }
}

int msc_online_write_jobs_csv(const msc_online_result *r, const msc_online_workload *w,
                              const char *path)
{
    MSC_NEED(r);
    MSC_NEED(w);
    MSC_NEED(path);
    if (w->w.n != r->r.n || same_model(&r->m, &w->m))
        return msc_failf(MS_EINVAL,
                         "the result is of %d jobs of %s, the workload has %d of %s: give the "
                         "workload it was simulated on",
                         r->r.n, r->m.name, w->w.n, w->m.name);
    ms_error err;
    return ms_online_write_jobs_csv(path, &r->m, &w->w, &r->r, &err) ? msc_fail(&err) : 0;
}

/* A timeline file needs the run to have kept one. */
static int timeline_kept(const msc_online_result *r, const char *path)
{
    if (r->c.timeline)
        return 0;
    return msc_failf(MS_EINVAL, "%s: the run kept no timeline (set the option timeline on)", path);
}

int msc_online_write_timeline_csv(const msc_online_result *r, const char *path)
{
    MSC_NEED(r);
    MSC_NEED(path);
    ms_error err;
    if (timeline_kept(r, path))
        return MS_EINVAL;
    return ms_online_write_timeline_csv(path, &r->m, &r->r, &err) ? msc_fail(&err) : 0;
}

int msc_online_write_svg(const msc_online_result *r, const char *title, const char *path)
{
    MSC_NEED(r);
    MSC_NEED(path);
    ms_error err;
    if (timeline_kept(r, path))
        return MS_EINVAL;
    if (!title)
        title = r->c.place ? "callback" : ms_online_policy_name(r->c.policy);
    return ms_online_write_svg(path, &r->m, &r->r, title, &err) ? msc_fail(&err) : 0;
}
