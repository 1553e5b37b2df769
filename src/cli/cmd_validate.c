/* cmd_validate.c: `migsched validate`: checks a schedule against its workload. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/schedule.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched validate SCHEDULE.json --workload FILE [--gpu MODEL] [--gantt]\n"
               "                         [--width N] [--initial L] [--json]\n"
               "  Checks that the plan was made for this workload (task indices and names),\n"
               "  that it starts from what the GPUs hold (--initial) and every validity rule\n"
               "  (docs/schedules.md). Prints\n"
               "  'valid makespan=... baseline=... l_bound=... rho=... p_opt=...' and exits 0,\n"
               "  or prints each violation with its rule and exits 1.\n"
               "  --gpu MODEL   built-in model or model JSON file (default: the schedule's\n"
               "                gpu_model, which must then be built in)\n"
               "  --gantt       also draw the schedule as a text Gantt chart (--width columns,\n"
               "                default 80)\n"
               "  --initial L   the layout the plan must start from: empty (default: it creates\n"
               "                every instance), or a partition per GPU (4-3, 2-2-2-1, an index;\n"
               "                comma list for several GPUs): exactly its instances, no creation\n"
               "  --json        print {\"valid\", \"violations\", \"metrics\"} as JSON instead\n");
}

static void print_valid(const ms_metrics *m)
{
    printf("valid makespan=%.6f baseline=%.6f l_bound=%.6f rho=%s p_opt=%s "
           "l_bound_paper=%.6f creations=%d destructions=%d reconfigurations=%d "
           "utilization=%.4f\n",
           m->makespan, m->baseline, m->l_bound, ms_fixed(m->rho, 4).s, ms_fixed(m->p_opt, 2).s,
           m->l_bound_paper, m->creations, m->destructions, m->reconfigurations, m->utilization);
}

static void print_text(int n, const ms_validation *v, const ms_metrics *m)
{
    if (n == 0)
        print_valid(m);
    else
        printf("invalid: %d violation%s\n", n, n == 1 ? "" : "s");
    for (int i = 0; i < v->n; i++)
        printf("  %s: %s\n", v->v[i].rule, v->v[i].msg);
    if (n > v->n)
        printf("  ... and %d more\n", n - v->n);
}

/* Metrics only for a valid plan: an invalid one's makespan means nothing. */
static int print_json(int n, const ms_validation *v, const ms_metrics *m)
{
    json_t *list = json_array();
    for (int i = 0; i < v->n; i++)
        json_array_append_new(
            list, json_pack("{s:s, s:s}", "rule", v->v[i].rule, "message", v->v[i].msg));
    return cli_json_print("validate", json_pack("{s:b, s:i, s:o, s:o}", "valid", n == 0,
                                                "violation_count", n, "violations", list, "metrics",
                                                n ? json_null() : cli_json_metrics(m)));
}

typedef struct validate_args {
    const char *schedule, *workload, *gpu, *initial;
    bool gantt, json;
    int width;
} validate_args;

static int check(const validate_args *a)
{
    ms_error err;
    ms_gpu_model model;
    ms_schedule *s = NULL;
    ms_workload *w = NULL;
    int rc = a->gpu ? ms_gpu_lookup(a->gpu, &model, &err) : MS_OK;
    if (!rc)
        rc = ms_schedule_read_json(a->schedule, a->gpu ? &model : NULL, &s, &err);
    if (!rc)
        rc = ms_workload_read(a->workload, &s->gpu, &w, &err);
    if (!rc && (rc = ms_schedule_match_workload(s, w, &err)))
        ms_error_prefix(&err, "%s", a->schedule);
    if (rc) {
        fprintf(stderr, "migsched validate: %s\n", err.msg);
        ms_workload_free(w);
        ms_schedule_free(s);
        return 1;
    }
    ms_initial init;
    if (cli_initial_parse("validate", a->initial, &s->gpu, s->gpus, &init)) {
        ms_workload_free(w);
        ms_schedule_free(s);
        return 1;
    }
    ms_validation v;
    ms_metrics m;
    int n = ms_schedule_validate_initial(s, w, &init, &v);
    ms_initial_fini(&init);
    rc = n ? 1 : 0;
    if (n == 0)
        ms_schedule_metrics(s, w, &m);
    if (a->json) {
        if (print_json(n, &v, &m))
            rc = 1;
    } else {
        print_text(n, &v, &m);
        if (a->gantt)
            ms_schedule_gantt(s, w, stdout, a->width);
    }
    ms_validation_fini(&v);
    ms_workload_free(w);
    ms_schedule_free(s);
    return rc;
}

const struct option cmd_validate_options[] = {
    {"workload", required_argument, 0, 'w'}, CLI_LONG_GPU,  {"gantt", no_argument, 0, 'T'},
    {"width", required_argument, 0, 'W'},    CLI_LONG_JSON, {"initial", required_argument, 0, 'i'},
    {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};

int cmd_validate(int argc, char **argv)
{
    validate_args a = {.width = 80, .initial = "empty"};
    cli_common co = {.cmd = "validate", .takes = CLI_GPU | CLI_JSON};
    int c;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "w:g:h", cmd_validate_options, NULL)) != -1) {
        switch (c) {
        case 'w': a.workload = optarg; break;
        case 'T': a.gantt = true; break;
        case 'i': a.initial = optarg; break;
        case 'W':
            if (!cli_parse_int(optarg, 20, 1000, &a.width)) {
                fprintf(stderr, "migsched validate: --width: '%s' is not 20..1000\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (!a.workload || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    a.gpu = co.gpu;
    a.json = co.json;
    if (a.gantt && a.json) {
        fprintf(stderr, "migsched validate: --gantt draws text; it does not go with --json\n");
        return 2;
    }
    a.schedule = argv[optind];
    return check(&a);
}
