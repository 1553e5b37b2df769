/* commands.h: the migsched subcommands; each lives in its own cmd_*.c file. */
#ifndef MIGSCHED_CLI_COMMANDS_H
#define MIGSCHED_CLI_COMMANDS_H

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
/* Clients of migschedd (daemon_client.h). */
int cmd_submit(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_cancel(int argc, char **argv);
int cmd_status(int argc, char **argv);

#endif
