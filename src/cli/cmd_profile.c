/* cmd_profile.c: `migsched profile`: times every task on every instance size and the
 * reconfigurations, writing a workload CSV (and a GPU model JSON) for `schedule`. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/exec.h"
#include "migsched/io.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched profile TASKS --device N --reps R -o WORKLOAD.csv\n"
               "                        [--gpu-model-out MODEL.json] [--backend nvml|sim]\n"
               "                        [--sizes 1,2,...] [--gpu MODEL] [--logs DIR]\n"
               "                        [--journal FILE]\n"
               "  Runs every task R times on an instance of every compute size and times\n"
               "  the instance creations and destructions (docs/exec.md).\n"
               "  TASKS      'name dir script' per line (the FAR authors' format) or a\n"
               "             migsched workload CSV/JSON whose tasks have commands\n"
               "  -o         workload CSV: mean seconds per size; inf where a run failed\n"
               "  --gpu-model-out  the device's model with the measured create/destroy means\n"
               "  --sizes    sizes to profile (default: every size of the model)\n"
               "  --backend  nvml (default) or sim (instances simulated, tasks run)\n"
               "  --journal  record of created instances for `migsched run --cleanup`\n"
               "             (default RUNDIR/run-devN.journal, as `migsched run --help` says)\n"
               "  Exit status: 0 done; 1 bad input, a failure or a task that failed on every\n"
               "  size (nothing written); 2 usage; 130 interrupted.\n");
}

static int parse_sizes(const char *text, ms_profile_options *o)
{
    o->nsizes = 0;
    for (const char *p = text; *p;) {
        char *end;
        long s = strtol(p, &end, 10);
        if (end == p || s < 1 || s > MS_MAX_SLICES || o->nsizes == MS_MAX_SLICES ||
            (*end && *end != ','))
            return -1;
        o->sizes[o->nsizes++] = (int)s;
        p = *end ? end + 1 : end;
    }
    return o->nsizes ? 0 : -1;
}

static int write_outputs(const ms_workload *w, const ms_gpu_model *m, const char *csv,
                         const char *model_out, ms_error *err)
{
    ms_output a = {0}, b = {0};
    int rc = ms_output_open(&a, csv, err);
    if (rc == MS_OK && (rc = ms_workload_write_csv(w, m, a.f, err)))
        ms_error_prefix(err, "%s", csv);
    if (rc == MS_OK && model_out && (rc = ms_output_open(&b, model_out, err)) == MS_OK)
        rc = ms_profile_write_model_json(m, b.f, err);
    /* Both files or neither. */
    if (rc == MS_OK && model_out)
        rc = ms_output_commit(&b, err);
    if (rc == MS_OK)
        return ms_output_commit(&a, err);
    if (a.f)
        ms_output_abort(&a);
    if (b.f)
        ms_output_abort(&b);
    return rc;
}

const struct option cmd_profile_options[] = {{"device", required_argument, 0, 'd'},
                                             {"reps", required_argument, 0, 'r'},
                                             CLI_LONG_OUTPUT,
                                             {"gpu-model-out", required_argument, 0, 'm'},
                                             {"backend", required_argument, 0, 'b'},
                                             {"sizes", required_argument, 0, 's'},
                                             CLI_LONG_GPU,
                                             {"logs", required_argument, 0, 'l'},
                                             {"journal", required_argument, 0, 'j'},
                                             {"help", no_argument, 0, 'h'},
                                             {0, 0, 0, 0}};

int cmd_profile(int argc, char **argv)
{
    ms_profile_options o = {.backend = "nvml", .reps = 1};
    const char *model_out = NULL;
    cli_common co = {.cmd = "profile", .takes = CLI_GPU | CLI_OUTPUT};
    int c, rc;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "d:r:o:m:b:s:g:l:j:h", cmd_profile_options,
                                NULL)) != -1) {
        switch (c) {
        case 'd':
            if (!cli_parse_int(optarg, 0, INT_MAX, &o.device))
                return cli_usage_error("profile", NULL, "--device: '%s' is not a GPU index",
                                       optarg);
            break;
        case 'r':
            if (!cli_parse_int(optarg, 1, 1000, &o.reps))
                return cli_usage_error("profile", NULL, "--reps: '%s' is not 1..1000", optarg);
            break;
        case 'm': model_out = optarg; break;
        case 'b':
            if (strcmp(optarg, "nvml") && strcmp(optarg, "sim"))
                return cli_usage_error("profile", NULL, "--backend: '%s' is not nvml or sim",
                                       optarg);
            o.backend = optarg;
            break;
        case 's':
            if (parse_sizes(optarg, &o))
                return cli_usage_error("profile", NULL, "--sizes: '%s' is not a list of sizes",
                                       optarg);
            break;
        case 'l': o.logs_dir = optarg; break;
        case 'j': o.journal = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    const char *output = co.output, *gpu = co.gpu;
    if (!output || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (isatty(2))
        o.progress = stderr;
    ms_error err;
    ms_gpu_model model, measured;
    ms_workload *tasks = NULL, *w = NULL;
    char journal[512];
    rc = gpu ? ms_gpu_lookup(gpu, &model, &err) : MS_OK;
    /* The same journal as `migsched run` on that device, so `run --cleanup` finds it. */
    if (rc == MS_OK && !o.journal && !strcmp(o.backend, "nvml") &&
        (rc = ms_default_run_path(&o.device, 1, ".journal", journal, sizeof journal, &err)) ==
            MS_OK)
        o.journal = journal;
    o.gpu = gpu ? &model : NULL;
    if (rc == MS_OK)
        rc = ms_profile_read_tasks(argv[optind], &tasks, &err);
    if (rc == MS_OK)
        rc = ms_profile_run(tasks, &o, &w, &measured, &err);
    if (rc == MS_OK)
        rc = write_outputs(w, &measured, output, model_out, &err);
    if (rc)
        fprintf(stderr, "migsched profile: %s\n", err.msg);
    ms_workload_free(tasks);
    ms_workload_free(w);
    return rc == MS_EINTR ? 130 : rc ? 1 : 0;
}
