/* cmd_validate.c: `migsched validate`: checks a schedule against its workload. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "migsched/io.h"
#include "migsched/schedule.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched validate SCHEDULE.json --workload FILE [--gpu MODEL] [--gantt]\n"
               "                         [--width N]\n"
               "  Checks every validity rule (docs/schedules.md). Prints\n"
               "  'valid makespan=... baseline=... l_bound=... rho=... p_opt=...' and exits 0,\n"
               "  or prints each violation with its rule and exits 1.\n"
               "  --gpu MODEL   built-in model or model JSON file (default: the schedule's\n"
               "                gpu_model, which must then be built in)\n"
               "  --gantt       also draw the schedule as a text Gantt chart (--width columns,\n"
               "                default 80)\n");
}

static void print_valid(const ms_schedule *s, const ms_workload *w)
{
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    printf("valid makespan=%.6f baseline=%.6f l_bound=%.6f rho=%s p_opt=%s "
           "l_bound_paper=%.6f creations=%d destructions=%d reconfigurations=%d "
           "utilization=%.4f\n",
           m.makespan, m.baseline, m.l_bound, ms_fixed(m.rho, 4).s, ms_fixed(m.p_opt, 2).s,
           m.l_bound_paper, m.creations, m.destructions, m.reconfigurations, m.utilization);
}

static int check(const char *sched_path, const char *wl_path, const char *gpu_name,
                 bool gantt, int width)
{
    ms_error err;
    ms_gpu_model model;
    if (gpu_name && ms_gpu_lookup(gpu_name, &model, &err)) {
        fprintf(stderr, "migsched validate: %s\n", err.msg);
        return 1;
    }
    ms_schedule *s;
    if (ms_schedule_read_json(sched_path, gpu_name ? &model : NULL, &s, &err)) {
        fprintf(stderr, "migsched validate: %s\n", err.msg);
        return 1;
    }
    ms_workload *w;
    if (ms_workload_read(wl_path, &s->gpu, &w, &err)) {
        fprintf(stderr, "migsched validate: %s\n", err.msg);
        ms_schedule_free(s);
        return 1;
    }
    ms_validation v;
    int n = ms_schedule_validate(s, w, &v);
    if (n == 0)
        print_valid(s, w);
    else
        printf("invalid: %d violation%s\n", n, n == 1 ? "" : "s");
    for (int i = 0; i < v.n; i++)
        printf("  %s: %s\n", v.v[i].rule, v.v[i].msg);
    if (n > v.n)
        printf("  ... and %d more\n", n - v.n);
    if (gantt)
        ms_schedule_gantt(s, w, stdout, width);
    ms_validation_free(&v);
    ms_workload_free(w);
    ms_schedule_free(s);
    return n ? 1 : 0;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option opts[] = {{"workload", required_argument, 0, 'w'},
                                         {"gpu", required_argument, 0, 'g'},
                                         {"gantt", no_argument, 0, 'G'},
                                         {"width", required_argument, 0, 'W'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *workload = NULL, *gpu = NULL;
    bool gantt = false;
    int width = 80, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "w:g:h", opts, NULL)) != -1) {
        switch (c) {
        case 'w': workload = optarg; break;
        case 'g': gpu = optarg; break;
        case 'G': gantt = true; break;
        case 'W':
            if (!cli_parse_int(optarg, 20, 1000, &width)) {
                fprintf(stderr, "migsched validate: --width: '%s' is not 20..1000\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!workload || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    return check(argv[optind], workload, gpu, gantt, width);
}
