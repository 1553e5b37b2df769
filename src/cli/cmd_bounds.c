/* cmd_bounds.c: `migsched bounds`: makespan lower bounds of a workload. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/schedule.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched bounds WORKLOAD --gpu MODEL [--gpus G] [--initial L] [--json]\n"
               "  Prints the makespan lower bounds of a workload (CSV or JSON) on G GPUs:\n"
               "  baseline (paper 000 6.4), l_bound (paper 001 5.2 with creation times only,\n"
               "  none for sizes the initial layout holds: a true bound) and l_bound_paper\n"
               "  (5.2 as printed; not always a bound).\n" CLI_INITIAL_HELP
               "  --json prints {\"workload\", \"tasks\", \"gpu_model\", \"gpus\", \"initial\",\n"
               "  \"baseline\", \"l_bound\", \"l_bound_paper\"} instead.\n");
}

const struct option cmd_bounds_options[] = {CLI_LONG_GPU,
                                            CLI_LONG_GPUS,
                                            CLI_LONG_JSON,
                                            {"initial", required_argument, 0, 'i'},
                                            {"help", no_argument, 0, 'h'},
                                            {0, 0, 0, 0}};

int cmd_bounds(int argc, char **argv)
{
    cli_common co = {
        .cmd = "bounds", .takes = CLI_GPU | CLI_GPUS | CLI_JSON, .gpus_max = 4096, .gpus = 1};
    const char *initial = "empty";
    int c;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "g:h", cmd_bounds_options, NULL)) != -1) {
        switch (c) {
        case 'i': initial = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (!co.gpu || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    const char *gpu = co.gpu;
    int gpus = co.gpus;
    ms_error err;
    ms_gpu_model m;
    ms_workload *w;
    if (ms_gpu_lookup(gpu, &m, &err) || ms_workload_read(argv[optind], &m, &w, &err)) {
        fprintf(stderr, "migsched bounds: %s\n", err.msg);
        return 1;
    }
    ms_initial init;
    if (cli_initial_parse("bounds", initial, &m, gpus, &init)) {
        ms_workload_free(w);
        return 1;
    }
    char layout[256];
    ms_initial_format(&init, &m, gpus, layout, sizeof layout);
    double base = ms_bound_baseline(w, &m, gpus), lb, lbp;
    ms_bound_lbound_both(w, &m, gpus, ms_initial_present_sizes(&init, &m), &lb, &lbp);
    ms_initial_fini(&init);
    int n = w->n;
    ms_workload_free(w);
    if (co.json)
        return cli_json_print(
            "bounds", json_pack("{s:s, s:i, s:s, s:i, s:s, s:o, s:o, s:o}", "workload",
                                argv[optind], "tasks", n, "gpu_model", m.name, "gpus", gpus,
                                "initial", layout, "baseline", cli_json_real(base), "l_bound",
                                cli_json_real(lb), "l_bound_paper", cli_json_real(lbp)));
    printf("%s: %d task%s on %d x %s, initial layout %s\n", argv[optind], n, n == 1 ? "" : "s",
           gpus, m.name, layout);
    printf("baseline       %.6f  (least task area / (slices x GPUs), paper 000 6.4)\n", base);
    printf("l_bound        %.6f  (paper 001 5.2 with creation times only: a lower bound)\n", lb);
    printf("l_bound_paper  %.6f  (paper 001 5.2 as printed: not always a lower bound)\n", lbp);
    return 0;
}
