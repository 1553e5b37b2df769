/* cmd_run.c: `migsched run`: carries a plan out through NVML (or the sim backend), and
 * `migsched run --cleanup` after a crash. */
#include <getopt.h>
#include <signal.h>
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
    fprintf(
        f, "usage: migsched run SCHEDULE.json --workload FILE [--device N[,N...]]\n"
           "                    [--backend nvml|sim] [--dry-run] [--logs DIR]\n"
           "                    [--on-failure continue|abort] [--report FILE.json]\n"
           "                    [--initial empty|LAYOUT|device] [--enable-mig]\n"
           "                    [--journal FILE] [--keep-final] [--wait]\n"
           "                    [--time-scale S] [--gpu MODEL] [--quiet] [--json]\n"
           "                    [--mps FILE [--mps-control PATH] [--mps-root DIR]]\n"
           "       migsched run --cleanup [--journal FILE | --device N[,N...]] [--force]\n"
           "  Creates and destroys MIG instances in plan order on each GPU and runs each\n"
           "  task's command on its instance (CUDA_VISIBLE_DEVICES=MIG-...) once the\n"
           "  instance exists and the tasks before it there have finished (docs/exec.md).\n"
           "  --device       NVML index of the GPU for plan GPU 0, 1, ... (default 0,1,...)\n"
           "  --initial      what the devices hold before the plan, which the plan must\n"
           "                 start from: empty (default; the plan creates every instance),\n"
           "                 a partition (4-3, 2-1-1, an index; a comma list: one per GPU)\n"
           "                 or device (what they hold now); a difference is refused,\n"
           "                 naming it, before anything changes. The plan's initial\n"
           "                 instances are never created, are destroyed where it says only\n"
           "                 while no process runs on them, and are left as they are at the\n"
           "                 end (sim: the simulated GPUs hold the partition)\n"
           "  --backend      nvml (default; dlopen libnvidia-ml.so.1) or sim (no hardware)\n"
           "  --dry-run      print the NVML operations and commands, touch nothing\n"
           "  --logs         per-task stdout/stderr files (default RUNDIR/run-devN.logs)\n"
           "  --on-failure   after a failed task or reconfiguration: continue (default)\n"
           "                 or abort (stop, kill running tasks, destroy, report)\n"
           "  --report       write the run report as JSON to a file\n"
           "  --json         print the run report as JSON instead of the table\n"
           "  --enable-mig   enable MIG mode where it is off (root; may reset the GPU)\n"
           "  --journal      record of what this run creates (default RUNDIR/run-devN.journal)\n"
           "  --cleanup      stop the tasks and destroy the instances a crashed run left\n"
           "  --force        with --cleanup: also destroy instances whose creation was in\n"
           "                 flight at the crash (they may not be migsched's)\n"
           "  --keep-final   leave the instances the plan has alive at its end (initial\n"
           "                 instances are always left)\n"
           "  --wait         on abort or Ctrl-C let running tasks finish (default: kill)\n"
           "  --time-scale   sim: 0 = virtual time (default), S > 0 = sleep S x planned time\n"
           "  --gpu          model JSON file when the plan's model is not built in\n"
           "  --mps          instances whose tasks share them through MPS (mps.json from\n"
           "                 `migsched hier --exec-out`): a control daemon runs in each\n"
           "                 (--mps-control, default $MIGSCHED_MPS_CONTROL or\n"
           "                 nvidia-cuda-mps-control; pipes and logs under --mps-root,\n"
           "                 default /tmp/migsched-mps; docs/hier.md)\n"
           "  Exit status: 0 every task ran and exited 0; 1 otherwise; 2 usage;\n"
           "  130/143 stopped by SIGINT/SIGTERM (after cleaning up).\n"
           "  RUNDIR: $MIGSCHED_RUNTIME_DIR, else /run/migsched (root), $XDG_RUNTIME_DIR/migsched\n"
           "  or ${TMPDIR:-/tmp}/migsched-UID; it also holds the per-GPU locks.\n");
}

/* The journal (and logs) default to the runtime folder, keyed by the devices. */
static int default_path(const char **path, const ms_run_options *o, const char *suffix, char *buf,
                        size_t len)
{
    ms_error err;
    if (*path)
        return 0;
    if (ms_default_run_path(o->devices, o->ndevices ? o->ndevices : 1, suffix, buf, len, &err)) {
        fprintf(stderr, "migsched run: %s\n", err.msg);
        return 1;
    }
    *path = buf;
    return 0;
}

/* Every output is known writable before any device is touched; the journal and logs of a
 * real run default to the runtime folder. */
static int ready_outputs(ms_run_options *o, const char *report, char *journal, char *logs,
                         size_t len)
{
    bool real = !o->dry_run && !strcmp(o->backend, "nvml");
    if (real && (default_path(&o->journal, o, ".journal", journal, len) ||
                 default_path(&o->logs_dir, o, ".logs", logs, len)))
        return 1;
    ms_output probe = {0};
    ms_error err;
    if (report && ms_output_open(&probe, report, &err))
        return cli_fail("run", "%s", err.msg);
    if (report)
        ms_output_abort(&probe);
    return 0;
}

static int cleanup(ms_run_options *o, bool force)
{
    char journal[512];
    if (default_path(&o->journal, o, ".journal", journal, sizeof journal))
        return 1;
    ms_cleanup_options co = {.journal = o->journal,
                             .backend_opt = o->backend_opt,
                             .lock_dir = o->lock_dir,
                             .force = force,
                             .progress = stdout};
    ms_cleanup_report rep;
    ms_error err;
    if (ms_run_cleanup(&co, &rep, &err))
        return cli_fail("run", "cleanup: %s", err.msg);
    printf("cleanup: %d leftover instance%s destroyed, %d task process group%s stopped\n",
           rep.destroyed, rep.destroyed == 1 ? "" : "s", rep.killed, rep.killed == 1 ? "" : "s");
    for (int i = 0; i < rep.nleft; i++)
        fprintf(stderr, "migsched run: cleanup: LEFT: %s\n", rep.left[i]);
    return rep.nleft ? 1 : 0;
}

static int write_report(const char *path, const ms_run_report *r, const ms_workload *w)
{
    ms_output out = {0};
    ms_error err;
    if (ms_output_open(&out, path, &err) || ms_run_report_write_json(r, w, out.f, &err)) {
        if (out.f)
            ms_output_abort(&out);
        fprintf(stderr, "migsched run: %s\n", err.msg);
        return 1;
    }
    if (ms_output_commit(&out, &err))
        return cli_fail("run", "%s", err.msg);
    return 0;
}

/* Runs only plans the validator accepts: a broken plan could ask for overlapping slots. */
static int validate(const ms_schedule *s, const ms_workload *w, const char *path)
{
    ms_error err;
    if (ms_schedule_match_workload(s, w, &err))
        return cli_fail("run", "%s: %s", path, err.msg);
    ms_validation v;
    int n = ms_schedule_validate(s, w, &v);
    for (int i = 0; i < v.n && i < 5; i++)
        fprintf(stderr, "migsched run: %s: %s: %s\n", path, v.v[i].rule, v.v[i].msg);
    if (n)
        fprintf(stderr, "migsched run: %s: not a valid plan for this workload (%d violation%s)\n",
                path, n, n == 1 ? "" : "s");
    ms_validation_fini(&v);
    return n ? 1 : 0;
}

/* mps[0..2]: the --mps file, --mps-control and --mps-root (NULL when not given). */
static int run(const char *plan, const char *workload, const char *gpu, const char *report,
               bool json, const char *const mps[3], ms_run_options *o)
{
    ms_mps_plan *mp = NULL;
    ms_error err;
    ms_gpu_model model;
    ms_schedule *s = NULL;
    ms_workload *w = NULL;
    ms_run_report *r = NULL;
    int status = 1;
    if (gpu && ms_gpu_lookup(gpu, &model, &err))
        fprintf(stderr, "migsched run: %s\n", err.msg);
    else if (ms_schedule_read_json(plan, gpu ? &model : NULL, &s, &err))
        fprintf(stderr, "migsched run: %s\n", err.msg);
    else if (ms_workload_read(workload, &s->gpu, &w, &err))
        fprintf(stderr, "migsched run: %s\n", err.msg);
    else if (mps[0] && ms_mps_plan_read(mps[0], s, &mp, &err))
        fprintf(stderr, "migsched run: %s\n", err.msg);
    else if (validate(s, w, plan) == 0) {
        if (mp && mps[1])
            snprintf(mp->control, sizeof mp->control, "%s", mps[1]);
        if (mp && mps[2])
            snprintf(mp->root, sizeof mp->root, "%s", mps[2]);
        o->mps = mp;
        if (o->ndevices == 0)
            for (o->ndevices = 0; o->ndevices < s->gpus && o->ndevices < MS_RUN_MAX_GPUS;
                 o->ndevices++)
                o->devices[o->ndevices] = o->ndevices;
        char journal[512], logs[512];
        if (ready_outputs(o, report, journal, logs, sizeof journal) == 0 &&
            ms_run(s, w, o, &r, &err))
            fprintf(stderr, "migsched run: %s\n", err.msg);
        else if (r) {
            status = r->signal ? 128 + r->signal : (r->ok ? 0 : 1);
            if (json && ms_run_report_write_json(r, w, stdout, &err)) {
                fprintf(stderr, "migsched run: %s\n", err.msg);
                status = status ? status : 1;
            } else if (!json && !o->dry_run) {
                ms_run_report_print(r, w, stdout);
            }
            if (report && write_report(report, r, w))
                status = status ? status : 1;
        }
    }
    ms_run_report_free(r);
    ms_mps_plan_free(mp);
    ms_workload_free(w);
    ms_schedule_free(s);
    return status;
}

const struct option cmd_run_options[] = {{"workload", required_argument, 0, 'w'},
                                         {"device", required_argument, 0, 'd'},
                                         {"backend", required_argument, 0, 'b'},
                                         {"dry-run", no_argument, 0, 'n'},
                                         {"logs", required_argument, 0, 'l'},
                                         {"on-failure", required_argument, 0, 'f'},
                                         {"report", required_argument, 0, 'r'},
                                         {"enable-mig", no_argument, 0, 'E'},
                                         {"cleanup", no_argument, 0, 'C'},
                                         {"journal", required_argument, 0, 'j'},
                                         {"keep-final", no_argument, 0, 'K'},
                                         {"wait", no_argument, 0, 'W'},
                                         {"time-scale", required_argument, 0, 't'},
                                         CLI_LONG_GPU,
                                         {"quiet", no_argument, 0, 'q'},
                                         CLI_LONG_JSON,
                                         {"help", no_argument, 0, 'h'},
                                         {"mps", required_argument, 0, 'M'},
                                         {"mps-control", required_argument, 0, 'X'},
                                         {"mps-root", required_argument, 0, 'R'},
                                         {"force", no_argument, 0, 'F'},
                                         {"initial", required_argument, 0, 'I'},
                                         {0, 0, 0, 0}};

int cmd_run(int argc, char **argv)
{
    const char *mps[3] = {NULL, NULL, NULL};
    ms_run_options o = {.backend = "nvml", .progress = stderr};
    const char *workload = NULL, *report = NULL;
    cli_common co = {.cmd = "run", .takes = CLI_GPU | CLI_JSON};
    bool do_cleanup = false, force = false;
    int c;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "w:d:b:nl:f:r:j:t:g:qh", cmd_run_options, NULL)) !=
           -1) {
        switch (c) {
        case 'w': workload = optarg; break;
        case 'd':
            if (!cli_parse_int_list(optarg, 0, 255, MS_RUN_MAX_GPUS, o.devices, &o.ndevices))
                return cli_usage_error("run", NULL, "--device: '%s' is not a list of GPU indices",
                                       optarg);
            break;
        case 'b':
            if (strcmp(optarg, "nvml") && strcmp(optarg, "sim"))
                return cli_usage_error("run", NULL, "--backend: '%s' is not nvml or sim", optarg);
            o.backend = optarg;
            break;
        case 'n': o.dry_run = true; break;
        case 'l': o.logs_dir = optarg; break;
        case 'f':
            if (strcmp(optarg, "continue") && strcmp(optarg, "abort"))
                return cli_usage_error("run", NULL, "--on-failure: '%s' is not continue or abort",
                                       optarg);
            o.on_failure = strcmp(optarg, "abort") ? MS_ON_FAILURE_CONTINUE : MS_ON_FAILURE_ABORT;
            break;
        case 'r': report = optarg; break;
        case 'E': o.enable_mig = true; break;
        case 'C': do_cleanup = true; break;
        case 'F': force = true; break;
        case 'j': o.journal = optarg; break;
        case 'K': o.keep_final = true; break;
        case 'I': o.initial = optarg; break;
        case 'W': o.wait_on_stop = true; break;
        case 't':
            if (!cli_parse_double(optarg, 0, 1e3, &o.time_scale))
                return cli_usage_error("run", NULL, "--time-scale: '%s' is not a number in 0..1000",
                                       optarg);
            break;
        case 'q': o.progress = NULL; break;
        case 'M': mps[0] = optarg; break;
        case 'X': mps[1] = optarg; break;
        case 'R': mps[2] = optarg; break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (do_cleanup) {
        if (optind != argc) {
            usage(stderr);
            return 2;
        }
        return cleanup(&o, force);
    }
    if (!workload || optind != argc - 1) {
        usage(stderr);
        return 2;
    }
    if (co.json && o.dry_run)
        return cli_usage_error("run", NULL,
                               "--dry-run prints a listing; it does not go with --json");
    if ((mps[1] || mps[2]) && !mps[0])
        return cli_usage_error("run", usage, "--mps-control and --mps-root need --mps FILE");
    return run(argv[optind], workload, co.gpu, report, co.json, mps, &o);
}
