/* cmd_apply.c: `migsched apply` (a mig-parted config reached with the fewest changes,
 * never touching busy instances) and `migsched export` (the devices' layout as one). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/exec.h"
#include "migsched/io.h"

#define SIM_STATE_HELP                                                                           \
    "  --state FILE   simulated GPUs kept in FILE (implies --backend sim): their MIG mode\n"     \
    "                 and instances persist between commands (docs/exec.md, \"The sim\n"         \
    "                 state file\")\n"                                                           \
    "  --gpus SPEC    with --state: the GPUs of a new FILE (2xA100-40GB, A100-40GB,A30-24GB);\n" \
    "                 an existing FILE must hold these\n"

static void apply_usage(FILE *f)
{
    fprintf(f,
            "usage: migsched apply -f CONFIG.yaml -c NAME [--devices N[,N...]] [--dry-run]\n"
            "                      [--check] [--mode-only] [--backend nvml|sim] [--gpu MODEL]\n"
            "                      [--state FILE [--gpus NxMODEL[,...]]]\n"
            "  Brings each GPU to the layout of config NAME (nvidia-mig-parted's v1 format)\n"
            "  with the fewest changes: instances the target also holds are kept, idle ones it\n"
            "  drops or whose slots it needs are destroyed (whoever created them), the missing\n"
            "  ones are created at placements chosen to keep the most. A busy instance (one\n"
            "  with compute processes) is never destroyed: when the target needs its slots,\n"
            "  apply refuses, naming it and its PIDs, and changes nothing.\n"
            "  -f, --file     the config file (YAML; `migsched layout` and `migsched export`\n"
            "                 print such files)\n"
            "  -c, --config   the config to apply\n"
            "  --devices      only these GPUs (NVML indices; default: every GPU the config names)\n"
            "  --dry-run      print the NVML operations, change nothing\n"
            "  --check        print only what differs from the layout (\"GPU 0: already holds\n"
            "                 the layout\" when nothing) and change nothing; exit 0 when every\n"
            "                 GPU holds it, 1 when changes are needed (nvidia-mig-parted\n"
            "                 assert), 3 when it cannot tell (a config that does not fit or\n"
            "                 is refused, a backend error)\n"
            "  --mode-only    only the MIG mode (nvidia-mig-parted apply --mode-only): enable\n"
            "                 it where the config wants it; mig-enabled: false still clears\n"
            "                 the GPU first\n"
            "  --backend      nvml (default) or sim (an empty simulated GPU of --gpu)\n"
            "  --gpu          the model: required with sim without --state; with nvml a model\n"
            "                 JSON file for a device migsched does not know\n" SIM_STATE_HELP
            "  Exit: 0 done, 1 refused or failed (the message says whether anything changed),\n"
            "  2 bad usage; --check: 0 in step, 1 changes needed, 3 cannot tell.\n");
}

static void export_usage(FILE *f)
{
    fprintf(f, "usage: migsched export [--devices N[,N...]] [--name NAME] [--backend nvml|sim]\n"
               "                       [--gpu MODEL] [--state FILE [--gpus SPEC]] [-o FILE]\n"
               "  Prints the GPUs' current MIG layout as an nvidia-mig-parted v1 config (one\n"
               "  entry per GPU, placements in comments) that `migsched apply` accepts.\n"
               "  --devices  only these GPUs (default: all)\n"
               "  --name     the config name (default current)\n"
               "  --backend  nvml (default) or sim; --gpu, --state, --gpus as for apply\n"
               "  -o         output file (default stdout)\n");
}

/* Which GPUs the commands drive. */
typedef struct devices_opt {
    const char *backend; /* NULL until --backend or --state */
    const char *state, *gpus;
    int devices[MS_RUN_MAX_GPUS], ndevices;
} devices_opt;

#define DEVICE_LONG_OPTIONS                                                         \
    {"devices", required_argument, 0, 'd'}, {"backend", required_argument, 0, 'b'}, \
        {"state", required_argument, 0, 's'},                                       \
    {                                                                               \
        "gpus", required_argument, 0, 'G'                                           \
    }

/* The options both commands share (--gpu in co); returns 0 when taken, 2 on bad usage, -1
 * if not one. */
static int device_option(cli_common *co, int c, devices_opt *d)
{
    int rc = cli_common_option(co, c, optarg);
    if (rc >= 0)
        return rc;
    int *devices = d->devices, *ndevices = &d->ndevices;
    switch (c) {
    case 'b':
        if (strcmp(optarg, "nvml") && strcmp(optarg, "sim"))
            return cli_usage_error(co->cmd, NULL, "--backend: '%s' is not nvml or sim", optarg);
        d->backend = optarg;
        return 0;
    case 's': d->state = optarg; return 0;
    case 'G': d->gpus = optarg; return 0;
    case 'd':
        if (!cli_parse_int_list(optarg, 0, 255, MS_RUN_MAX_GPUS, devices, ndevices))
            return cli_usage_error(co->cmd, NULL, "--devices: '%s' is not a list of GPU indices",
                                   optarg);
        for (int i = 0; i < *ndevices; i++)
            for (int j = 0; j < i; j++)
                if (devices[i] == devices[j])
                    return cli_usage_error(co->cmd, NULL, "--devices: GPU %d is listed twice",
                                           devices[i]);
        return 0;
    default: return -1;
    }
}

/* The backend settled (--state means sim), --gpu read (required for sim without a
 * state), and the state file made or checked against --gpus. */
static int open_devices(const char *cmd, devices_opt *d, const char *gpu, ms_gpu_model *m,
                        ms_backend_options *bo)
{
    ms_error err;
    if (d->state && d->backend && strcmp(d->backend, "sim"))
        return cli_usage_error(cmd, NULL, "--state is for --backend sim");
    if (d->gpus && !d->state)
        return cli_usage_error(cmd, NULL, "--gpus goes with --state FILE");
    if (!d->backend)
        d->backend = d->state ? "sim" : "nvml";
    if (!gpu && !d->state && !strcmp(d->backend, "sim"))
        return cli_usage_error(cmd, NULL, "--backend sim needs --gpu MODEL (or --state FILE)");
    if (gpu && ms_gpu_lookup(gpu, m, &err))
        return cli_fail(cmd, "--gpu: %s", err.msg);
    if (!d->state)
        return 0;
    ms_sim_state *want = NULL;
    int rc = MS_OK;
    if (d->gpus && !(want = malloc(sizeof *want)))
        return cli_fail(cmd, "out of memory");
    if (want)
        rc = ms_sim_state_parse_gpus(d->gpus, want, &err);
    if (rc == MS_OK)
        rc = ms_sim_state_prepare(d->state, want, &err);
    free(want);
    if (rc)
        return cli_fail(cmd, "%s", err.msg);
    bo->sim_state = d->state;
    return 0;
}

const struct option cmd_apply_options[] = {{"file", required_argument, 0, 'f'},
                                           {"config", required_argument, 0, 'c'},
                                           {"dry-run", no_argument, 0, 'n'},
                                           {"check", no_argument, 0, 'k'},
                                           {"mode-only", no_argument, 0, 'm'},
                                           DEVICE_LONG_OPTIONS,
                                           CLI_LONG_GPU,
                                           {"help", no_argument, 0, 'h'},
                                           {0, 0, 0, 0}};

int cmd_apply(int argc, char **argv)
{
    ms_apply_options o = {0};
    devices_opt d = {0};
    cli_common co = {.cmd = "apply", .takes = CLI_GPU};
    const char *file = NULL, *name = NULL;
    int c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, "f:c:h", cmd_apply_options, NULL)) != -1) {
        if ((rc = device_option(&co, c, &d)) >= 0) {
            if (rc)
                return rc;
            continue;
        }
        switch (c) {
        case 'f': file = optarg; break;
        case 'c': name = optarg; break;
        case 'n': o.dry_run = true; break;
        case 'k': o.check = true; break;
        case 'm': o.mode_only = true; break;
        case 'h': apply_usage(stdout); return 0;
        default: apply_usage(stderr); return 2;
        }
    }
    if (optind != argc || !file || !name) {
        if (optind == argc)
            fprintf(stderr, "migsched apply: %s\n",
                    !file ? "-f CONFIG.yaml is required" : "-c NAME is required");
        apply_usage(stderr);
        return 2;
    }
    ms_gpu_model model;
    if ((rc = open_devices("apply", &d, co.gpu, &model, &o.backend_opt)))
        return rc;
    o.backend = d.backend;
    memcpy(o.devices, d.devices, sizeof o.devices);
    o.ndevices = d.ndevices;
    o.model = co.gpu ? &model : NULL;
    ms_error err;
    ms_migparted *cfg = NULL;
    rc = ms_migparted_read(file, &cfg, &err);
    if (rc == MS_OK)
        rc = ms_apply(cfg, name, &o, &err);
    if (rc)
        fprintf(stderr, "migsched apply: %s\n", err.msg);
    ms_migparted_free(cfg);
    if (o.check && rc && rc != MS_ECHANGED)
        return 3;
    return rc ? 1 : 0;
}

const struct option cmd_export_options[] = {
    {"name", required_argument, 0, 'N'}, DEVICE_LONG_OPTIONS, CLI_LONG_GPU, CLI_LONG_OUTPUT,
    {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};

int cmd_export(int argc, char **argv)
{
    cli_common co = {.cmd = "export", .takes = CLI_GPU | CLI_OUTPUT, .output = "-"};
    const char *name = "current";
    devices_opt d = {0};
    int c, rc;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", cmd_export_options, NULL)) != -1) {
        if ((rc = device_option(&co, c, &d)) >= 0) {
            if (rc)
                return rc;
            continue;
        }
        switch (c) {
        case 'N':
            if (!*optarg || strcspn(optarg, " :#\"'\t\n{}[],&*!|>%@`") != strlen(optarg))
                return cli_usage_error("export", NULL, "--name: '%s' is not a plain YAML key",
                                       optarg);
            name = optarg;
            break;
        case 'h': export_usage(stdout); return 0;
        default: export_usage(stderr); return 2;
        }
    }
    if (optind != argc) {
        export_usage(stderr);
        return 2;
    }
    ms_gpu_model model;
    const char *gpu = co.gpu;
    ms_backend_options bo = {0};
    if ((rc = open_devices("export", &d, gpu, &model, &bo)))
        return rc;
    ms_error err;
    ms_output out = {0};
    rc = ms_output_open(&out, co.output, &err);
    if (rc == MS_OK) {
        rc = ms_export(d.backend, &bo, gpu ? &model : NULL, d.devices, d.ndevices, name, out.f,
                       &err);
        if (rc)
            ms_output_abort(&out);
        else
            rc = ms_output_commit(&out, &err);
    }
    if (rc)
        fprintf(stderr, "migsched export: %s\n", err.msg);
    return rc ? 1 : 0;
}
