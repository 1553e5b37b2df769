/* summary_json.c: a run's summary as JSON, the object `online simulate --json` prints and
 * the flat API hands over: the policy and the options that shaped the run, then the
 * result's means, counts and (with tpot) time per output token by profile. */
#include <jansson.h>
#include <math.h>

#include "internal.h"

/* null for NAN and infinities, which JSON cannot hold. */
static json_t *real(double v) { return isfinite(v) ? json_real(v) : json_null(); }

/* The policy, with the techniques only where the policy has them. */
static json_t *options(const ms_online_config *c, const ms_online_result *r)
{
    bool callback = c->place != NULL;
    json_t *o = json_pack("{s:s}", "policy",
                          callback ? "callback" : ms_online_policy_name(c->policy));
    if (!callback && c->policy == MS_POLICY_FRAG)
        json_object_update_new(o,
                               json_pack("{s:b, s:b, s:b, s:s}", "balance", c->balance, "dynamic",
                                         c->dynamic, "migration", c->migration, "migration_rule",
                                         ms_online_migration_rule_name(c->migration_rule)));
    if (r->layout >= 0)
        json_object_set_new(o, "static_layout", json_string(ms_online_layout_name(r->layout)));
    json_object_set_new(o, "queue", json_string(ms_online_queue_name(c->queue)));
    if (c->queue == MS_QUEUE_RESERVE)
        json_object_set_new(o, "reserve_after", real(c->reserve_after));
    return o;
}

struct json_t *ms_online_summary_json(const ms_gpu_model *m, const ms_online_config *c,
                                      const ms_online_result *r, bool tpot)
{
    json_t *o = options(c, r);
    json_object_update_new(
        o, json_pack("{s:o, s:o, s:i, s:s, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:I, s:I, s:I, "
                     "s:I, s:I, s:I, s:o, s:I}",
                     "tau", real(c->tau), "kappa", real(c->kappa), "gpus", c->gpus, "gpu_model",
                     m->name, "jobs", r->n, "mean_wait", real(r->mean_wait), "mean_execution",
                     real(r->mean_exec), "mean_turnaround", real(r->mean_turnaround),
                     "p95_turnaround", real(r->p95_turnaround), "max_wait", real(r->max_wait),
                     "makespan", real(r->makespan), "migrations", (json_int_t)r->total_migrations,
                     "intra_migrations", (json_int_t)r->intra_migrations, "inter_migrations",
                     (json_int_t)r->inter_migrations, "reconfigurations",
                     (json_int_t)r->reconfigurations, "creations", (json_int_t)r->creations,
                     "destructions", (json_int_t)r->destructions, "mean_fragmentation",
                     real(r->mean_frag), "events", (json_int_t)r->events));
    if (tpot) {
        json_t *t = json_object();
        for (int p = 0; p < m->nprofiles; p++)
            if (!isnan(r->tpot[p]))
                json_object_set_new(t, m->profiles[p].name, real(1000 * r->tpot[p]));
        json_object_set_new(o, "tpot_ms", t);
    }
    return o;
}
