/* cmd_hier_experiment.c: `migsched hier experiment`: every policy on job mixes of the four
 * categories of paper 004 Table V, for each window size and C_max asked (Figs. 8-12). */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "hier_cli.h"

#define MAX_POINTS 32

/* "12", "8,12,16" or "8-12" into values within lo..hi. */
static int parse_list(const char *s, int lo, int hi, int *out, int *n)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", s);
    *n = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        char *dash = strchr(tok, '-');
        int a, b;
        if (dash) {
            *dash = 0;
            if (!cli_parse_int(tok, lo, hi, &a) || !cli_parse_int(dash + 1, lo, hi, &b) || b < a)
                return -1;
        } else if (!cli_parse_int(tok, lo, hi, &a)) {
            return -1;
        } else {
            b = a;
        }
        for (int v = a; v <= b; v++) {
            if (*n == MAX_POINTS)
                return -1;
            out[(*n)++] = v;
        }
    }
    return *n ? 0 : -1;
}

typedef struct mix {
    char name[16];
    int category;
    ms_hier_window w;
} mix;

/* Table V's Q1-Q12 (W = 12, unless --mixes), else `per` random mixes per category. */
static int build_mixes(const ms_hier_catalog *cat, int wsize, int per, uint64_t seed, mix **out,
                       int *n, ms_error *err)
{
    int table5 = wsize == 12 && per == 0 && cat->modelled;
    int count = table5 ? 12 : (per ? per : 3) * MS_HIER_NMIX;
    *out = calloc((size_t)count, sizeof **out);
    *n = 0;
    if (!*out)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_rng rng;
    ms_rng_seed(&rng, seed ^ ((uint64_t)wsize << 32));
    for (int i = 0; i < count; i++) {
        mix *m = &(*out)[i];
        int rc;
        if (table5) {
            m->category = i / 3;
            snprintf(m->name, sizeof m->name, "Q%d", i + 1);
            rc = ms_hier_window_from_names(cat, ms_hier_table5_mix(i, NULL), 12, &m->w, err);
        } else {
            m->category = i % MS_HIER_NMIX;
            snprintf(m->name, sizeof m->name, "%s-%d", ms_hier_mix_name(m->category),
                     i / MS_HIER_NMIX + 1);
            rc = ms_hier_window_mix(cat, m->category, (size_t)wsize, -1, &rng, &m->w, err);
        }
        if (rc)
            return rc;
        (*n)++;
    }
    return MS_OK;
}

typedef struct point_result {
    ms_hier_metrics mean[MS_HIER_NPOLICY];
    ms_hier_layout layout;
} point_result;

/* Runs every policy on every mix; per_mix[i * NPOLICY + p] gets mix i's metrics. */
static int run_point(const mix *mixes, int n, const ms_hier_corun *cr, int cmax, const char *model,
                     ms_hier_lookahead lookahead, ms_hier_metrics *per_mix, point_result *res,
                     ms_error *err)
{
    ms_hier_window *ws = malloc((size_t)n * sizeof *ws);
    if (!ws)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int i = 0; i < n; i++)
        ws[i] = mixes[i].w;
    /* Paper 004: the default policy's MIG layout is the best on average over the mixes. */
    int rc = ms_hier_default_layout(ws, (size_t)n, cr, cmax, &res->layout, err);
    free(ws);
    memset(res->mean, 0, sizeof res->mean);
    for (int i = 0; i < n && !rc; i++)
        for (int p = 0; p < MS_HIER_NPOLICY && !rc; p++) {
            if (p == MS_HIER_RL && !model)
                continue;
            ms_hier_plan plan;
            int l = (int)res->layout;
            rc = ms_hier_plan_window(&mixes[i].w, cr, cmax, (ms_hier_policy)p, model, lookahead, &l,
                                     &plan, err);
            if (!rc)
                rc = ms_hier_plan_check(&plan, &mixes[i].w, cr, cmax, err);
            if (rc) {
                ms_error_prefix(err, "mix %s, policy %s", mixes[i].name,
                                ms_hier_policy_name((ms_hier_policy)p));
                break;
            }
            ms_hier_metrics *m = &per_mix[i * MS_HIER_NPOLICY + p];
            ms_hier_plan_metrics(&plan, &mixes[i].w, m, NULL);
            res->mean[p].throughput += m->throughput / n;
            res->mean[p].mean_slowdown += m->mean_slowdown / n;
            res->mean[p].fairness += m->fairness / n;
            ms_hier_plan_fini(&plan);
        }
    return rc;
}

static json_t *metrics_json(const ms_hier_metrics *m)
{
    json_t *j = json_object();
    json_object_set_new(j, "throughput", json_real(m->throughput));
    json_object_set_new(j, "slowdown", json_real(m->mean_slowdown));
    json_object_set_new(j, "fairness", json_real(m->fairness));
    return j;
}

static json_t *point_json(int wsize, int cmax, const mix *mixes, int n,
                          const ms_hier_metrics *per_mix, const point_result *res,
                          const char *model)
{
    json_t *pt = json_object(), *pols = json_object(), *jm = json_array();
    json_object_set_new(pt, "window", json_integer(wsize));
    json_object_set_new(pt, "cmax", json_integer(cmax));
    json_object_set_new(pt, "default_layout", json_string(ms_hier_layout_name(res->layout)));
    for (int p = 0; p < MS_HIER_NPOLICY; p++)
        if (p != MS_HIER_RL || model)
            json_object_set_new(pols, ms_hier_policy_name((ms_hier_policy)p),
                                metrics_json(&res->mean[p]));
    json_object_set_new(pt, "policies", pols);
    for (int i = 0; i < n; i++) {
        json_t *o = json_object(), *mp = json_object(), *jobs = json_array();
        json_object_set_new(o, "name", json_string(mixes[i].name));
        json_object_set_new(o, "category", json_string(ms_hier_mix_name(mixes[i].category)));
        for (size_t j = 0; j < mixes[i].w.n; j++)
            json_array_append_new(jobs, json_string(mixes[i].w.jobs[j].name));
        json_object_set_new(o, "jobs", jobs);
        for (int p = 0; p < MS_HIER_NPOLICY; p++)
            if (p != MS_HIER_RL || model)
                json_object_set_new(mp, ms_hier_policy_name((ms_hier_policy)p),
                                    metrics_json(&per_mix[i * MS_HIER_NPOLICY + p]));
        json_object_set_new(o, "policies", mp);
        json_array_append_new(jm, o);
    }
    json_object_set_new(pt, "mixes", jm);
    return pt;
}

static void point_text(int wsize, int cmax, const mix *mixes, int n, const ms_hier_metrics *per_mix,
                       const point_result *res, const char *model)
{
    printf("W = %d, C_max = %d, %d mixes; default policy's MIG layout: %s\n", wsize, cmax, n,
           ms_hier_layout_name(res->layout));
    printf("%-8s %-4s", "mix", "cat");
    for (int p = 0; p < MS_HIER_NPOLICY; p++)
        if (p != MS_HIER_RL || model)
            printf(" %10s", ms_hier_policy_name((ms_hier_policy)p));
    printf("   (throughput relative to time sharing)\n");
    for (int i = 0; i < n; i++) {
        printf("%-8s %-4s", mixes[i].name, ms_hier_mix_name(mixes[i].category));
        for (int p = 0; p < MS_HIER_NPOLICY; p++)
            if (p != MS_HIER_RL || model)
                printf(" %10.3f", per_mix[i * MS_HIER_NPOLICY + p].throughput);
        putchar('\n');
    }
    static const char *rows[] = {"AM thr.", "slowdown", "fairness"};
    for (int r = 0; r < 3; r++) {
        printf("%-13s", rows[r]);
        for (int p = 0; p < MS_HIER_NPOLICY; p++) {
            const ms_hier_metrics *m = &res->mean[p];
            if (p != MS_HIER_RL || model)
                printf(" %10.3f", r == 0 ? m->throughput : r == 1 ? m->mean_slowdown : m->fairness);
        }
        putchar('\n');
    }
}

const struct option cmd_hier_experiment_options[] = {{"window", required_argument, 0, 'w'},
                                                     {"cmax", required_argument, 0, 'c'},
                                                     {"mixes", required_argument, 0, 'n'},
                                                     CLI_LONG_SEED,
                                                     {"model", required_argument, 0, 'm'},
                                                     CLI_LONG_JSON,
                                                     HIER_LONG_WINDOW_OPTIONS,
                                                     {"help", no_argument, 0, 'h'},
                                                     {0, 0, 0, 0}};

int hier_experiment(int argc, char **argv)
{
    int ws[MAX_POINTS] = {12}, nw = 1, cs[MAX_POINTS] = {4}, nc = 1, per = 0, o, rc;
    ms_hier_lookahead lookahead = {MS_HIER_LOOKAHEAD_DEFAULT, 1};
    cli_common co = {.cmd = "hier",
                     .takes = CLI_SEED | CLI_JSON,
                     .say = CLI_SAY_MUST_BE_USAGE,
                     .usage = hier_usage,
                     .seed = 1};
    const char *model = NULL;
    hier_sources src = {NULL, NULL, ms_hier_params_default().gamma, 0};
    optind = 1;
    while ((o = cli_next_option(&co, argc, argv, "h", cmd_hier_experiment_options, NULL)) != -1) {
        switch (o) {
        case 'w':
            if (parse_list(optarg, 2, MS_HIER_MAX_W, ws, &nw))
                return cli_usage_error("hier", hier_usage,
                                       "--window must be a list or range of sizes in 2..16 "
                                       "(exhaustive policies)");
            break;
        case 'c':
            if (parse_list(optarg, 1, MS_HIER_MAX_C, cs, &nc))
                return cli_usage_error("hier", hier_usage,
                                       "--cmax must be a list or range in 1..4");
            break;
        case 'n':
            if (!cli_parse_int(optarg, 1, 1000, &per))
                return cli_usage_error("hier", hier_usage, "--mixes must be an integer in 1..1000");
            break;
        case 'm': model = optarg; break;
        case 'h': return hier_help();
        default:
            if ((rc = hier_window_option(o, optarg, &lookahead, &src)) < 0)
                return cli_usage_error("hier", hier_usage, "unknown option");
            if (rc)
                return rc;
            break;
        }
    }
    if (co.status)
        return co.status;
    if (optind < argc)
        return cli_usage_error("hier", hier_usage, "experiment takes no arguments");
    ms_hier_catalog cat;
    ms_hier_corun *cr;
    if (hier_load_sources(&src, &cat, &cr))
        return 1;
    json_t *runs = json_array();
    ms_error err;
    rc = MS_OK;
    int progress = isatty(STDERR_FILENO);
    for (int a = 0; a < nw && !rc; a++)
        for (int b = 0; b < nc && !rc; b++) {
            mix *mixes = NULL;
            int n = 0;
            ms_hier_metrics *per_mix = NULL;
            point_result res;
            if (progress)
                fprintf(stderr, "hier experiment: W = %d, C_max = %d\n", ws[a], cs[b]);
            rc = build_mixes(&cat, ws[a], per, co.seed, &mixes, &n, &err);
            if (!rc && !(per_mix = calloc((size_t)n * MS_HIER_NPOLICY, sizeof *per_mix)))
                rc = ms_error_set(&err, MS_ENOMEM, "out of memory");
            if (!rc)
                rc = run_point(mixes, n, cr, cs[b], model, lookahead, per_mix, &res, &err);
            if (!rc && co.json)
                json_array_append_new(runs,
                                      point_json(ws[a], cs[b], mixes, n, per_mix, &res, model));
            else if (!rc)
                point_text(ws[a], cs[b], mixes, n, per_mix, &res, model);
            for (int i = 0; i < n; i++)
                ms_hier_window_fini(&mixes[i].w);
            free(mixes);
            free(per_mix);
        }
    if (rc) {
        cli_fail("hier", "%s", err.msg);
    } else if (co.json) {
        json_t *root;
        if (json_array_size(runs) == 1) { /* one point: its object, "policies" at the top */
            root = json_incref(json_array_get(runs, 0));
        } else {
            root = json_object();
            json_object_set(root, "runs", runs);
        }
        json_object_set_new(root, "corun",
                            json_string(ms_hier_corun_measured(cr) ? "measured" : "model"));
        json_object_set_new(root, "seed", json_integer((json_int_t)co.seed));
        if (model) {
            json_object_set_new(root, "lookahead", json_integer(lookahead.width));
            json_object_set_new(root, "lookahead_depth", json_integer(lookahead.depth));
        }
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        putchar('\n');
        json_decref(root);
    } else {
        if (model && lookahead.width > 1 && lookahead.depth > 1)
            printf("(rl: the agent with lookahead %d, depth %d: its %d best actions by Q tried "
                   "per decision, each finished by the lookahead of depth %d)\n",
                   lookahead.width, lookahead.depth, lookahead.width, lookahead.depth - 1);
        else if (model && lookahead.width > 1)
            printf("(rl: the agent with lookahead %d: its %d best actions by Q tried per decision, "
                   "each finished by the greedy agent)\n",
                   lookahead.width, lookahead.width);
        else if (model)
            printf("(rl: the greedy agent)\n");
        if (!ms_hier_corun_measured(cr))
            printf("(co-run times produced by the model of docs/hier.md, not measured on "
                   "hardware)\n");
    }
    json_decref(runs);
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return rc ? 1 : 0;
}
