/* main.c: the migsched command: dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

#ifndef MIGSCHED_VERSION
#define MIGSCHED_VERSION "unknown"
#endif

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"gpus", cmd_gpus, "list the built-in GPU models"},
    {"partitions", cmd_partitions, "list a GPU's valid MIG partitions"},
    {"generate", cmd_generate, "write a synthetic workload (paper presets)"},
    {"bounds", cmd_bounds, "makespan lower bounds of a workload"},
    {"schedule", cmd_schedule, "plan a workload with an offline scheduler (FAR, ...)"},
    {"validate", cmd_validate, "check a schedule against its workload"},
    {"compare", cmd_compare, "run every algorithm on a workload and compare their metrics"},
    {"experiment", cmd_experiment, "run one of the papers' experiment tables (CSV)"},
    {"train", cmd_train, "train a scheduling policy with PPO (paper 001)"},
    {"rl-eval", cmd_rl_eval, "a trained policy against the offline schedulers (paper 001)"},
    {"rl-calibrate", cmd_rl_calibrate, "the rollout rule's gap for a budget of network passes"},
    {"plot", cmd_plot, "draw a schedule as SVG or self-contained HTML"},
    {"run", cmd_run, "carry a plan out on MIG GPUs (NVML) or simulated ones"},
    {"layout", cmd_layout, "the MIG layout a plan has alive at a time (mig-parted, JSON)"},
    {"apply", cmd_apply,
     "reach a mig-parted config with the fewest changes, sparing busy instances"},
    {"export", cmd_export, "print the GPUs' MIG layout as a mig-parted config"},
    {"profile", cmd_profile, "time tasks and reconfigurations on every instance size"},
    {"online", cmd_online, "simulate online multi-GPU scheduling (paper 002)"},
    {"cosched", cmd_cosched, "two-stream co-scheduling with a speed matrix (paper 003)"},
    {"hier", cmd_hier, "co-schedule a job window with MIG+MPS partitions (paper 004)"},
    {"submit", cmd_submit, "queue jobs on migschedd (the node service)"},
    {"jobs", cmd_jobs, "list migschedd's jobs"},
    {"cancel", cmd_cancel, "cancel a job of migschedd"},
    {"status", cmd_status, "migschedd's GPUs, instances and queue"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched COMMAND [options]   (migsched COMMAND --help for details)\n"
               "       migsched --version\n\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return cli_stdout_check(NULL);
    }
    if (!strcmp(argv[1], "--version")) {
        printf("migsched %s\n", MIGSCHED_VERSION);
        return cli_stdout_check(NULL);
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].run(argc - 1, argv + 1);
            /* Output that never arrived is a failure, whatever the command did; a
             * command that already failed has said why. */
            if (rc == 0)
                return cli_stdout_check(commands[i].name);
            fflush(stdout);
            return rc;
        }
    fprintf(stderr, "migsched: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
