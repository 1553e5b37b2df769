/* main.c: the migsched command: dispatches to a subcommand. */
#include <stdio.h>
#include <string.h>

#include "cli_completion.h"
#include "cli_util.h"
#include "commands.h"

#ifndef MIGSCHED_VERSION
#define MIGSCHED_VERSION "unknown"
#endif

static int completion(int argc, char **argv);

/* Subcommands that their command dispatches: names and options for completion. */
#define SUB(name, options)              \
    {                                   \
        name, NULL, NULL, options, NULL \
    }
static const cli_command online_subcommands[] = {SUB("simulate", cmd_online_options),
                                                 SUB("ablation", cmd_online_options),
                                                 SUB("sweep", cmd_online_sweep_options),
                                                 {0}};
static const cli_command cosched_subcommands[] = {SUB("generate", cmd_cosched_generate_options),
                                                  SUB("experiment", cmd_cosched_experiment_options),
                                                  {0}};
static const cli_command hier_subcommands[] = {SUB("experiment", cmd_hier_experiment_options),
                                               SUB("setups", cmd_hier_setups_options),
                                               SUB("train", cmd_hier_train_options),
                                               SUB("fit", cmd_hier_fit_options),
                                               {0}};
static const cli_command completion_subcommands[] = {SUB("bash", NULL), {0}};

static const cli_command commands[] = {
    {"gpus", cmd_gpus, "list the built-in GPU models", cmd_gpus_options, NULL},
    {"partitions", cmd_partitions, "list a GPU's valid MIG partitions", cmd_partitions_options,
     NULL},
    {"generate", cmd_generate, "write a synthetic workload (paper presets)", cmd_generate_options,
     NULL},
    {"bounds", cmd_bounds, "makespan lower bounds of a workload", cmd_bounds_options, NULL},
    {"schedule", cmd_schedule, "plan a workload with an offline scheduler (FAR, ...)",
     cmd_schedule_options, NULL},
    {"validate", cmd_validate, "check a schedule against its workload", cmd_validate_options, NULL},
    {"compare", cmd_compare, "run every algorithm on a workload and compare their metrics",
     cmd_compare_options, NULL},
    {"experiment", cmd_experiment, "run one of the papers' experiment tables (CSV)",
     cmd_experiment_options, NULL},
    {"train", cmd_train, "train a scheduling policy with PPO (paper 001)", cmd_train_options, NULL},
    {"rl-eval", cmd_rl_eval, "a trained policy against the offline schedulers (paper 001)",
     cmd_rl_eval_options, NULL},
    {"rl-calibrate", cmd_rl_calibrate, "the rollout rule's gap for a budget of network passes",
     cmd_rl_calibrate_options, NULL},
    {"plot", cmd_plot, "draw a schedule as SVG or self-contained HTML", cmd_plot_options, NULL},
    {"run", cmd_run, "carry a plan out on MIG GPUs (NVML) or simulated ones", cmd_run_options,
     NULL},
    {"layout", cmd_layout, "the MIG layout a plan has alive at a time (mig-parted, JSON)",
     cmd_layout_options, NULL},
    {"apply", cmd_apply,
     "reach a mig-parted config with the fewest changes, sparing busy instances", cmd_apply_options,
     NULL},
    {"export", cmd_export, "print the GPUs' MIG layout as a mig-parted config", cmd_export_options,
     NULL},
    {"profile", cmd_profile, "time tasks and reconfigurations on every instance size",
     cmd_profile_options, NULL},
    {"online", cmd_online, "simulate online multi-GPU scheduling (paper 002)", NULL,
     online_subcommands},
    {"cosched", cmd_cosched, "two-stream co-scheduling with a speed matrix (paper 003)",
     cmd_cosched_options, cosched_subcommands},
    {"hier", cmd_hier, "co-schedule a job window with MIG+MPS partitions (paper 004)",
     cmd_hier_options, hier_subcommands},
    {"submit", cmd_submit, "queue jobs on migschedd (the node service)", cmd_submit_options, NULL},
    {"jobs", cmd_jobs, "list migschedd's jobs", cmd_jobs_options, NULL},
    {"cancel", cmd_cancel, "cancel a job of migschedd", cmd_client_options, NULL},
    {"status", cmd_status, "migschedd's GPUs, instances and queue", cmd_client_options, NULL},
    {"completion", completion, "print a shell completion script (bash)", NULL,
     completion_subcommands},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static int completion(int argc, char **argv)
{
    return cli_completion(argc, argv, commands, NCOMMANDS);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched COMMAND [options]   (migsched COMMAND --help for details)\n"
               "       migsched --version\n\n");
    for (size_t i = 0; i < NCOMMANDS; i++)
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
    for (size_t i = 0; i < NCOMMANDS; i++)
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
