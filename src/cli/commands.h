/* commands.h: the migsched subcommands; each lives in its own cmd_*.c file. */
#ifndef MIGSCHED_CLI_COMMANDS_H
#define MIGSCHED_CLI_COMMANDS_H

#include <getopt.h>

#include "migsched/client.h"

/* Each returns the process exit status; argv[0] is the subcommand name. */
int cmd_gpus(int argc, char **argv);
int cmd_partitions(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_rl_eval(int argc, char **argv);
int cmd_rl_calibrate(int argc, char **argv);
int cmd_online(int argc, char **argv);
int cmd_online_sweep(int argc, char **argv);
int cmd_schedule(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_bounds(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_plot(int argc, char **argv);
/* `plot --curves`: cmd_plot hands its arguments over (cmd_plot_curves.c). */
int cmd_plot_curves(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_cosched(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_layout(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_hier(int argc, char **argv);
/* Clients of migschedd (migsched/client.h). */
int cmd_submit(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_status(int argc, char **argv);

/* Each command's long options, its getopt_long table: the command reads them, and
 * `migsched completion` completes them. */
extern const struct option cmd_gpus_options[], cmd_partitions_options[], cmd_generate_options[],
    cmd_bounds_options[], cmd_schedule_options[], cmd_validate_options[], cmd_compare_options[],
    cmd_experiment_options[], cmd_train_options[], cmd_rl_eval_options[],
    cmd_rl_calibrate_options[], cmd_plot_options[], cmd_plot_curves_options[], cmd_run_options[],
    cmd_layout_options[], cmd_apply_options[], cmd_export_options[], cmd_profile_options[],
    cmd_online_options[], cmd_online_sweep_options[], cmd_cosched_options[],
    cmd_cosched_generate_options[], cmd_cosched_experiment_options[], cmd_hier_options[],
    cmd_hier_experiment_options[], cmd_hier_setups_options[], cmd_hier_train_options[],
    cmd_hier_fit_options[], cmd_submit_options[], cmd_jobs_options[], cmd_client_options[];

/* The common flags of the client commands, for their --help texts. */
#define CLI_STR_(x) #x
#define CLI_STR(x)  CLI_STR_(x)
#define CLI_CLIENT_FLAGS_HELP                                                                    \
    "  --connect unix:PATH | http://127.0.0.1:PORT   the daemon "                                \
    "(default " MS_CLIENT_DEFAULT_CONNECT ")\n"                                                  \
    "  --token-file FILE   the bearer token for http:// (mode 0600: the token alone)\n"          \
    "  --timeout S         give up on a request after S seconds (default " CLI_STR(              \
        MS_CLIENT_DEFAULT_TIMEOUT) ")\n"                                                         \
                                   "  Unless given, --connect and --token-file come from "       \
                                   "MIGSCHED_CONNECT and\n"                                      \
                                   "  MIGSCHED_TOKEN_FILE, then from "                           \
                                   "${XDG_CONFIG_HOME:-~/.config}/migsched/client.conf\n"        \
                                   "  (connect = ..., token-file = ..., timeout = S), then the " \
                                   "defaults.\n"

#endif
