/* cli_completion.h: the command table's shape, which main.c fills and `migsched completion
 * bash` reads to write a completion script: commands, subcommands, each one's long options
 * (its getopt_long table), the values some options take. */
#ifndef MIGSCHED_CLI_COMPLETION_H
#define MIGSCHED_CLI_COMPLETION_H

#include <getopt.h>
#include <stddef.h>

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv); /* NULL for a subcommand: its command dispatches */
    const char *summary;
    const struct option *options;          /* its getopt_long table; NULL: none */
    const struct cli_command *subcommands; /* ended by a NULL name; NULL: none */
} cli_command;

/* `migsched completion bash`: prints the bash completion script of the n commands. Returns
 * the exit status. */
int cli_completion(int argc, char **argv, const cli_command *commands, size_t n);

#endif
