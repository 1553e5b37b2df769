/* cmd_layout.c: `migsched layout`: the MIG layout a plan has alive at a time, for
 * nvidia-mig-parted or as JSON. */
#include <float.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/exec.h"
#include "migsched/io.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched layout PLAN.json [--at T] [--format mig-parted|json] [--json]\n"
               "                       [--name CONFIG] [--gpu MODEL] [-o FILE]\n"
               "  Prints the instances the plan has alive at time T on each GPU.\n"
               "  --at      seconds into the plan (default: its first layout, i.e. what is\n"
               "            created before the first destruction)\n"
               "  --format  mig-parted (default; a v1 config with one entry per GPU,\n"
               "            devices [g]) or json\n"
               "  --json    the same as --format json\n"
               "  --name    the mig-parted config name (default migsched)\n"
               "  --gpu     model JSON file when the plan's model is not built in\n"
               "  -o        output file (default stdout)\n");
}

const struct option cmd_layout_options[] = {{"at", required_argument, 0, 'a'},
                                            {"format", required_argument, 0, 'f'},
                                            {"json", no_argument, 0, 'j'},
                                            {"name", required_argument, 0, 'n'},
                                            CLI_LONG_GPU,
                                            CLI_LONG_OUTPUT,
                                            {"help", no_argument, 0, 'h'},
                                            {0, 0, 0, 0}};

int cmd_layout(int argc, char **argv)
{
    double at = NAN;
    const char *format = "mig-parted", *name = "migsched";
    cli_common co = {.cmd = "layout", .takes = CLI_GPU | CLI_OUTPUT, .output = "-"};
    int c, rc;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "a:f:n:g:o:h", cmd_layout_options, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (!cli_parse_double(optarg, -DBL_MAX, DBL_MAX, &at)) {
                fprintf(stderr, "migsched layout: --at: '%s' is not a time in seconds\n", optarg);
                return 2;
            }
            break;
        case 'f':
            if (strcmp(optarg, "mig-parted") && strcmp(optarg, "json")) {
                fprintf(stderr, "migsched layout: --format: '%s' is not mig-parted or json\n",
                        optarg);
                return 2;
            }
            format = optarg;
            break;
        case 'n':
            if (!*optarg || strcspn(optarg, " :#\"'\t\n") != strlen(optarg)) {
                fprintf(stderr, "migsched layout: --name: '%s' is not a plain YAML key\n", optarg);
                return 2;
            }
            name = optarg;
            break;
        case 'j': format = "json"; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    ms_error err;
    ms_gpu_model model;
    ms_schedule *s = NULL;
    ms_output out = {0};
    const char *gpu = co.gpu;
    rc = gpu ? ms_gpu_lookup(gpu, &model, &err) : MS_OK;
    if (rc == MS_OK)
        rc = ms_schedule_read_json(argv[optind], gpu ? &model : NULL, &s, &err);
    if (rc == MS_OK)
        rc = ms_output_open(&out, co.output, &err);
    if (rc == MS_OK) {
        rc = strcmp(format, "json") ? ms_layout_write_mig_parted(s, at, name, out.f, &err)
                                    : ms_layout_write_json(s, at, out.f, &err);
        if (rc)
            ms_output_abort(&out);
        else
            rc = ms_output_commit(&out, &err);
    }
    if (rc)
        fprintf(stderr, "migsched layout: %s\n", err.msg);
    ms_schedule_free(s);
    return rc ? 1 : 0;
}
