/* cmd_hier.c: `migsched hier`: plan a job window with MIG+MPS setups (paper 004) and list
 * the setups; hands `hier experiment` and `hier train` to their files. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "hier_cli.h"
#include "migsched/hier.h"

static json_t *plan_json(const ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                         ms_hier_policy pol, int cmax, int layout, ms_hier_lookahead la)
{
    ms_hier_metrics m;
    double *sd = calloc(w->n, sizeof *sd), solo = 0;
    ms_hier_plan_metrics(p, w, &m, sd);
    json_t *root = json_object(), *groups = json_array();
    json_object_set_new(root, "policy", json_string(ms_hier_policy_name(pol)));
    json_object_set_new(root, "cmax", json_integer(cmax));
    json_object_set_new(root, "corun",
                        json_string(ms_hier_corun_measured(cr) ? "measured" : "model"));
    if (pol == MS_HIER_DEFAULT && layout >= 0)
        json_object_set_new(root, "layout",
                            json_string(ms_hier_layout_name((ms_hier_layout)layout)));
    if (pol == MS_HIER_RL) {
        json_object_set_new(root, "lookahead", json_integer(la.width));
        json_object_set_new(root, "lookahead_depth", json_integer(la.depth));
    }
    for (size_t i = 0; i < p->n; i++) {
        const ms_hier_group *g = &p->groups[i];
        char nota[256];
        ms_hier_setup_notation(&g->setup, nota, sizeof nota);
        json_t *jg = json_object(), *jobs = json_array();
        json_object_set_new(jg, "setup", json_string(g->setup.id));
        json_object_set_new(jg, "notation", json_string(nota));
        json_object_set_new(jg, "corun", json_real(g->corun));
        for (int k = 0; k < g->c; k++) {
            const ms_hier_profile *pr = &w->jobs[g->job[k]];
            json_t *j = json_object();
            json_object_set_new(j, "name", json_string(pr->name));
            json_object_set_new(j, "index", json_integer(g->job[k]));
            json_object_set_new(j, "class", json_string(ms_hier_class_name(pr->cls)));
            json_object_set_new(j, "time", json_real(g->time[k]));
            json_object_set_new(j, "slowdown", json_real(sd[g->job[k]]));
            json_object_set_new(j, "ci_gpcs", json_integer(g->setup.ci[g->setup.slot[k].ci].gpcs));
            json_object_set_new(j, "mps_percentage", json_integer(g->setup.slot[k].pct));
            json_array_append_new(jobs, j);
        }
        json_object_set_new(jg, "jobs", jobs);
        json_array_append_new(groups, jg);
    }
    for (size_t j = 0; j < w->n; j++)
        solo += w->jobs[j].solo;
    json_object_set_new(root, "groups", groups);
    json_object_set_new(root, "total", json_real(p->total));
    json_object_set_new(root, "solo_total", json_real(solo));
    json_object_set_new(root, "throughput", json_real(m.throughput));
    json_object_set_new(root, "mean_slowdown", json_real(m.mean_slowdown));
    json_object_set_new(root, "fairness", json_real(m.fairness));
    free(sd);
    return root;
}

static void plan_text(const ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                      ms_hier_policy pol, int cmax, int layout)
{
    ms_hier_metrics m;
    double *sd = calloc(w->n, sizeof *sd), solo = 0;
    ms_hier_plan_metrics(p, w, &m, sd);
    printf("policy %s, C_max %d, window of %zu jobs; co-run times from the %s",
           ms_hier_policy_name(pol), cmax, w->n,
           ms_hier_corun_measured(cr) ? "measured table" : "model (not hardware)");
    if (pol == MS_HIER_DEFAULT && layout >= 0)
        printf("; MIG layout %s", ms_hier_layout_name((ms_hier_layout)layout));
    printf("\n%-4s %-48s %-16s %-5s %10s %9s %6s\n", "set", "setup", "job", "class", "time (s)",
           "slowdown", "MPS %");
    for (size_t i = 0; i < p->n; i++) {
        const ms_hier_group *g = &p->groups[i];
        char nota[256];
        ms_hier_setup_notation(&g->setup, nota, sizeof nota);
        for (int k = 0; k < g->c; k++) {
            const ms_hier_profile *pr = &w->jobs[g->job[k]];
            char pct[16] = "-";
            if (g->setup.slot[k].pct > 0 && g->setup.slot[k].pct < 100)
                snprintf(pct, sizeof pct, "%d", g->setup.slot[k].pct);
            char num[24] = "";
            if (k == 0) /* the set's number and setup go on its first line */
                snprintf(num, sizeof num, "%zu", i + 1);
            printf("%-4s %-48s %-16s %-5s %10.2f %9.3f %6s\n", num, k ? "" : nota, pr->name,
                   ms_hier_class_name(pr->cls), g->time[k], sd[g->job[k]], pct);
        }
    }
    for (size_t j = 0; j < w->n; j++)
        solo += w->jobs[j].solo;
    printf("total co-run time %.2f s (time sharing %.2f s): throughput %.3f x time sharing, "
           "mean slowdown %.3f, fairness %.3f\n",
           p->total, solo, m.throughput, m.mean_slowdown, m.fairness);
    free(sd);
}

const struct option cmd_hier_setups_options[] = {
    {"c", required_argument, 0, 'c'}, CLI_LONG_JSON, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};

static int hier_setups(int argc, char **argv)
{
    cli_common co = {.cmd = "hier", .takes = CLI_JSON};
    int c0 = 1, c1 = MS_HIER_MAX_C, o;
    optind = 1;
    while ((o = cli_next_option(&co, argc, argv, "h", cmd_hier_setups_options, NULL)) != -1) {
        if (o == 'c') {
            if (!cli_parse_int(optarg, 1, MS_HIER_MAX_C, &c0))
                return cli_usage_error("hier", hier_usage, "--c must be an integer in 1..4");
            c1 = c0;
        } else if (o == 'h') {
            return hier_help();
        } else {
            return cli_usage_error("hier", hier_usage, "unknown option");
        }
    }
    if (co.status)
        return co.status;
    if (optind < argc)
        return cli_usage_error("hier", hier_usage, "setups takes no arguments");
    json_t *arr = json_array();
    for (int c = c0; c <= c1; c++) {
        ms_hier_setup s[128];
        size_t n = ms_hier_setups_for(
            c, MS_HIER_FAM_SOLO | MS_HIER_FAM_TABLE7 | MS_HIER_FAM_DEFAULT, s, 128);
        for (size_t i = 0; i < n; i++) {
            char nota[256];
            const char *fam = s[i].family == MS_HIER_FAM_SOLO   ? "solo"
                              : s[i].family == MS_HIER_FAM_MPS  ? "mps"
                              : s[i].family == MS_HIER_FAM_MIG  ? "mig"
                              : s[i].family == MS_HIER_FAM_HIER ? "hier"
                                                                : "default";
            ms_hier_setup_notation(&s[i], nota, sizeof nota);
            if (co.json) {
                json_t *j = json_object();
                json_object_set_new(j, "c", json_integer(c));
                json_object_set_new(j, "family", json_string(fam));
                json_object_set_new(j, "id", json_string(s[i].id));
                json_object_set_new(j, "notation", json_string(nota));
                json_array_append_new(arr, j);
            } else {
                printf("%d  %-8s %-30s %s\n", c, fam, s[i].id, nota);
            }
        }
    }
    if (co.json) {
        json_dumpf(arr, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        putchar('\n');
    }
    json_decref(arr);
    return 0;
}

const struct option cmd_hier_options[] = {{"window", required_argument, 0, 'w'},
                                          {"policy", required_argument, 0, 'p'},
                                          {"cmax", required_argument, 0, 'c'},
                                          {"model", required_argument, 0, 'm'},
                                          CLI_LONG_JSON,
                                          {"exec-out", required_argument, 0, 'x'},
                                          CLI_LONG_GPU,
                                          HIER_LONG_WINDOW_OPTIONS,
                                          {"help", no_argument, 0, 'h'},
                                          {0, 0, 0, 0}};

int cmd_hier(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "experiment"))
        return hier_experiment(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "setups"))
        return hier_setups(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "train"))
        return hier_train(argc - 1, argv + 1);
    if (argc > 1 && !strcmp(argv[1], "fit"))
        return hier_fit(argc - 1, argv + 1);
    const char *window = NULL, *model = NULL, *exec_out = NULL;
    cli_common co = {.cmd = "hier", .takes = CLI_GPU | CLI_JSON, .gpu = "A100-40GB"};
    hier_sources src = {NULL, NULL, ms_hier_params_default().gamma, 0};
    int cmax = 4, have_policy = 0, o, rc;
    ms_hier_lookahead lookahead = {MS_HIER_LOOKAHEAD_DEFAULT, 1};
    ms_hier_policy pol = MS_HIER_OPTIMAL;
    optind = 1;
    while ((o = cli_next_option(&co, argc, argv, "h", cmd_hier_options, NULL)) != -1) {
        switch (o) {
        case 'w': window = optarg; break;
        case 'p':
            if (ms_hier_policy_parse(optarg, &pol))
                return cli_usage_error("hier", hier_usage,
                                       "--policy must be timeshare, mig2, mps, default, rl or "
                                       "optimal");
            have_policy = 1;
            break;
        case 'c':
            if (!cli_parse_int(optarg, 1, MS_HIER_MAX_C, &cmax))
                return cli_usage_error("hier", hier_usage,
                                       "--cmax must be an integer in 1..4 (Table VII's setups)");
            break;
        case 'm': model = optarg; break;
        case 'x': exec_out = optarg; break;
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
        return cli_usage_error("hier", hier_usage,
                               "unexpected argument (the window is given with --window)");
    if (!window || !have_policy)
        return cli_usage_error("hier", hier_usage, "--window and --policy are required");
    if (pol == MS_HIER_RL && !model)
        return cli_fail("hier", "no model: --policy rl needs --model FILE (a trained DQN agent)");
    ms_hier_catalog cat;
    ms_hier_corun *cr;
    if (hier_load_sources(&src, &cat, &cr))
        return 1;
    ms_error err;
    ms_hier_window w;
    ms_hier_plan plan = {0};
    int layout = -1;
    rc = ms_hier_window_read(window, &cat, &w, &err);
    if (!rc)
        rc = ms_hier_plan_window(&w, cr, cmax, pol, model, lookahead, &layout, &plan, &err);
    if (!rc)
        rc = ms_hier_plan_check(&plan, &w, cr, cmax, &err);
    if (!rc && exec_out)
        rc = hier_write_exec(&plan, &w, co.gpu, exec_out, &err);
    if (rc) {
        cli_fail("hier", "%s", err.msg);
    } else if (co.json) {
        json_t *root = plan_json(&plan, &w, cr, pol, cmax, layout, lookahead);
        json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
        putchar('\n');
        json_decref(root);
    } else {
        plan_text(&plan, &w, cr, pol, cmax, layout);
    }
    ms_hier_plan_fini(&plan);
    ms_hier_window_fini(&w);
    ms_hier_corun_free(cr);
    ms_hier_catalog_fini(&cat);
    return rc ? 1 : 0;
}
