/* cmd_online_cluster.c: `online simulate --nodes N`: the cluster under Slurm, dynamic
 * (count-only slice GRES, migsched on each node) against static (one mig-parted layout,
 * typed GRES), printed as text, JSON or one `cluster_compare` line per policy. */
#include "cmd_online_cluster.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"

#define CMD "online simulate"

void cluster_opts_defaults(cluster_opts *o)
{
    *o = (cluster_opts){.nodes = 1,
                        .node_cpus = 64,
                        .policies = "dynamic,static",
                        .layout = "best",
                        .train_fraction = 0.5};
}

static int read_policies(const char *text, ms_online_cluster_spec *s)
{
    char buf[64];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return cli_usage_error(CMD, NULL, "--cluster-policy '%.20s...' is too long", text);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (!strcmp(t, "dynamic"))
            s->dynamic = true;
        else if (!strcmp(t, "static"))
            s->statik = true;
        else
            return cli_usage_error(CMD, NULL,
                                   "--cluster-policy takes dynamic and/or static, got '%s'", t);
    }
    if (!s->dynamic && !s->statik)
        return cli_usage_error(CMD, NULL, "--cluster-policy names no policy");
    return 0;
}

static void static_label(const ms_gpu_model *m, const ms_online_cluster_spec *s,
                         const ms_online_cluster_outcome *out, char *buf, int len)
{
    char layout[512];
    ms_online_cluster_layout_format(m, out->statik_cfg.layout, s->cfg.node.gpus, layout,
                                    sizeof layout);
    snprintf(buf, (size_t)len, "static-%s", s->static_best ? "best" : layout);
}

static void print_stat_text(const char *name, const ms_online_cluster_stat *v)
{
    printf("  %-10s %6d jobs  wait mean %.3f p50 %.3f p99 %.3f s  turnaround mean %.3f p50 %.3f "
           "p99 %.3f s\n",
           name, v->n, v->mean_wait, v->p50_wait, v->p99_wait, v->mean_turnaround,
           v->p50_turnaround, v->p99_turnaround);
}

static void print_text(const ms_gpu_model *m, const char *label, const ms_online_cluster_result *r)
{
    printf("%s\n", label);
    print_stat_text("all", &r->all);
    for (int p = 0; p < m->nprofiles; p++)
        if (r->by_profile[p].n)
            print_stat_text(m->profiles[p].name, &r->by_profile[p]);
    printf("  makespan %.3f s, utilisation %.4f, plugin waits %ld (total %.3f s, mean %.3f s, max "
           "%.3f s), "
           "held by Slurm %ld, backfilled %ld, creations %ld, destructions %ld, migrations %ld, "
           "events %ld\n",
           r->makespan, r->utilisation, r->plugin_waits, r->plugin_wait_total,
           r->plugin_waits ? r->plugin_wait_mean : 0.0, r->plugin_wait_max, r->held, r->backfilled,
           r->creations, r->destructions, r->migrations, r->events);
}

static void print_summary_line(double load, const char *label, const ms_online_cluster_result *r)
{
    printf("cluster_compare load=%.2f policy=%s mean_wait=%.3f p50_wait=%.3f p99_wait=%.3f "
           "mean_turnaround=%.3f util=%.4f plugin_waits=%ld\n",
           load, label, r->all.mean_wait, r->all.p50_wait, r->all.p99_wait, r->all.mean_turnaround,
           r->utilisation, r->plugin_waits);
}

static json_t *stat_json(const ms_online_cluster_stat *v)
{
    return json_pack("{s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "jobs", v->n, "mean_wait",
                     cli_json_real(v->mean_wait), "p50_wait", cli_json_real(v->p50_wait),
                     "p99_wait", cli_json_real(v->p99_wait), "mean_turnaround",
                     cli_json_real(v->mean_turnaround), "p50_turnaround",
                     cli_json_real(v->p50_turnaround), "p99_turnaround",
                     cli_json_real(v->p99_turnaround));
}

static json_t *result_json(const ms_gpu_model *m, const char *label, const char *layout,
                           const ms_online_cluster_result *r)
{
    json_t *profiles = json_object();
    for (int p = 0; p < m->nprofiles; p++)
        if (r->by_profile[p].n)
            json_object_set_new(profiles, m->profiles[p].name, stat_json(&r->by_profile[p]));
    json_t *o = json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:I}", "policy",
        label, "all", stat_json(&r->all), "profiles", profiles, "makespan",
        cli_json_real(r->makespan), "utilisation", cli_json_real(r->utilisation), "plugin_waits",
        (json_int_t)r->plugin_waits, "plugin_wait_total", cli_json_real(r->plugin_wait_total),
        "plugin_wait_mean", cli_json_real(r->plugin_wait_mean), "plugin_wait_max",
        cli_json_real(r->plugin_wait_max), "held", (json_int_t)r->held, "backfilled",
        (json_int_t)r->backfilled, "creations", (json_int_t)r->creations, "destructions",
        (json_int_t)r->destructions, "migrations", (json_int_t)r->migrations, "events",
        (json_int_t)r->events);
    if (layout)
        json_object_set_new(o, "static_layout", json_string(layout));
    return o;
}

/* The header line of the text output: the cluster, the stream, the static choice. */
static void print_header(const ms_gpu_model *m, const ms_online_cluster_spec *s,
                         const ms_online_cluster_outcome *out, const char *layout)
{
    const ms_online_config *n = &s->cfg.node;
    printf("cluster %d nodes x %d x %s, %d CPUs per node, %d jobs evaluated, offered load %.4f",
           s->cfg.nodes, n->gpus, m->name, s->cfg.node_cpus, out->eval.n, out->offered_load);
    if (s->dynamic)
        printf(", dynamic node policy %s, queue %s", ms_online_policy_name(n->policy),
               ms_online_queue_name(n->queue));
    printf("\n");
    if (s->statik && s->static_best)
        printf("static layout %s: the best of %d layouts on the first %d jobs (mean turnaround "
               "%.3f s there), evaluated on the other %d\n",
               layout, out->candidates, out->train_jobs, out->train_turnaround, out->eval.n);
    else if (s->statik)
        printf("static layout %s\n", layout);
}

static int emit(const ms_gpu_model *m, const cluster_opts *o, const ms_online_cluster_spec *s,
                const ms_online_cluster_outcome *out, bool json)
{
    char label[600], layout[512];
    static_label(m, s, out, label, sizeof label);
    ms_online_cluster_layout_format(m, out->statik_cfg.layout, s->cfg.node.gpus, layout,
                                    sizeof layout);
    double load = o->load > 0 ? o->load : out->offered_load;
    if (o->summary_line) {
        if (s->dynamic)
            print_summary_line(load, "dynamic", &out->dynamic);
        if (s->statik)
            print_summary_line(load, label, &out->statik);
        return cli_stdout_check(CMD);
    }
    if (!json) {
        print_header(m, s, out, layout);
        if (s->dynamic)
            print_text(m, "dynamic", &out->dynamic);
        if (s->statik)
            print_text(m, label, &out->statik);
        return cli_stdout_check(CMD);
    }
    json_t *pol = json_array();
    if (s->dynamic)
        json_array_append_new(pol, result_json(m, "dynamic", NULL, &out->dynamic));
    if (s->statik)
        json_array_append_new(pol, result_json(m, label, layout, &out->statik));
    json_t *root = json_pack("{s:i, s:i, s:s, s:i, s:i, s:o, s:i, s:o}", "nodes", s->cfg.nodes,
                             "gpus_per_node", s->cfg.node.gpus, "gpu_model", m->name, "node_cpus",
                             s->cfg.node_cpus, "jobs", out->eval.n, "offered_load",
                             cli_json_real(out->offered_load), "train_jobs", out->train_jobs,
                             "policies", pol);
    if (s->statik && s->static_best)
        json_object_update_new(root,
                               json_pack("{s:i, s:o}", "candidates", out->candidates,
                                         "train_turnaround", cli_json_real(out->train_turnaround)));
    return cli_json_print(CMD, root);
}

int cluster_simulate(const cluster_opts *o, const ms_gpu_model *m, const ms_online_workload *w,
                     const ms_online_config *node, bool json, const char *save)
{
    ms_online_cluster_spec s = {.static_best = !strcmp(o->layout, "best"),
                                .train_fraction = o->train_fraction,
                                .load = o->load};
    ms_online_cluster_config_defaults(&s.cfg);
    s.cfg.nodes = o->nodes;
    s.cfg.node_cpus = o->node_cpus;
    s.cfg.node = *node;
    s.cfg.slurm = o->slurm;
    int rc = read_policies(o->policies, &s);
    if (rc)
        return rc;
    if (o->train_set && !s.static_best)
        return cli_usage_error(CMD, NULL, "--train-fraction goes with --static-layout best");
    ms_error err;
    if (!s.static_best &&
        ms_online_cluster_layout_parse(m, o->layout, node->gpus, s.cfg.layout, &err))
        return cli_fail(CMD, "%s", err.msg);
    ms_online_cluster_outcome out;
    if (ms_online_cluster_compare(m, w, &s, &out, &err))
        return cli_fail(CMD, "%s", err.msg);
    rc = emit(m, o, &s, &out, json);
    if (!rc && save && ms_online_trace_write(save, m, &out.eval, &err))
        rc = cli_fail(CMD, "%s", err.msg);
    ms_online_cluster_outcome_fini(&out);
    return rc;
}
