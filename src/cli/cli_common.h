/* cli_common.h: the options most commands take (--gpu, --gpus, --json, --seed, -o/--output,
 * --threads) read in one place, and the messages a command fails with. Each command says
 * which of the options it takes and how its messages read, so that every command keeps
 * its own wording. */
#ifndef MIGSCHED_CLI_COMMON_H
#define MIGSCHED_CLI_COMMON_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* The options, as getopt_long returns them: --gpu, -o, --seed, --threads and --gpus have
 * the letters their short forms have where a command gives one (-g, -o, -s, -j, -G). */
enum {
    CLI_OPT_GPU = 'g',
    CLI_OPT_OUTPUT = 'o',
    CLI_OPT_SEED = 's',
    CLI_OPT_THREADS = 'j',
    CLI_OPT_GPUS = 'G',
    CLI_OPT_JSON = 0x1000,
};
/* Their entries for a command's table of long options. */
#define CLI_LONG_GPU                             \
    {                                            \
        "gpu", required_argument, 0, CLI_OPT_GPU \
    }
#define CLI_LONG_OUTPUT                                \
    {                                                  \
        "output", required_argument, 0, CLI_OPT_OUTPUT \
    }
#define CLI_LONG_SEED                              \
    {                                              \
        "seed", required_argument, 0, CLI_OPT_SEED \
    }
#define CLI_LONG_THREADS                                 \
    {                                                    \
        "threads", required_argument, 0, CLI_OPT_THREADS \
    }
#define CLI_LONG_GPUS                              \
    {                                              \
        "gpus", required_argument, 0, CLI_OPT_GPUS \
    }
#define CLI_LONG_JSON                        \
    {                                        \
        "json", no_argument, 0, CLI_OPT_JSON \
    }

/* Which of them a command takes (cli_common.takes). */
enum {
    CLI_GPU = 1 << 0,
    CLI_OUTPUT = 1 << 1,
    CLI_SEED = 1 << 2,
    CLI_THREADS = 1 << 3,
    CLI_GPUS = 1 << 4,
    CLI_JSON = 1 << 5,
};

/* How a bad value is told: "migsched CMD: --OPT: 'VALUE' is not WHAT" (CLI_SAY_IS_NOT),
 * "migsched CMD: --OPT must be WHAT, not 'VALUE'" (CLI_SAY_MUST_BE), or "migsched CMD:
 * --OPT must be WHAT" followed by the command's usage (CLI_SAY_MUST_BE_USAGE). */
typedef enum { CLI_SAY_IS_NOT, CLI_SAY_MUST_BE, CLI_SAY_MUST_BE_USAGE } cli_say;

typedef struct cli_common {
    /* What the command sets before reading its options. */
    const char *cmd; /* "bounds", "online simulate": the messages' prefix */
    unsigned takes;  /* CLI_GPU | CLI_JSON | ... */
    cli_say say;
    void (*usage)(FILE *f);    /* CLI_SAY_MUST_BE_USAGE: prints the usage on f */
    int gpus_max, threads_max; /* --gpus and --threads take 1..max */
    const char *range_words;   /* before "1..max" in WHAT: "a count in ", "" */
    /* The values read (the command sets the defaults). */
    const char *gpu; /* NULL: --gpu not given */
    const char *output;
    uint64_t seed;
    int threads, gpus;
    bool json;
    int status; /* after cli_next_option returned -1: 2 when a value was bad, else 0 */
} cli_common;

/* Reads opt (getopt_long's return) with its argument when it is one of the options
 * c->takes. Returns -1 when it is not (the command reads it), 0 when it was read, 2 after
 * printing why its value is bad. */
int cli_common_option(cli_common *c, int opt, const char *arg);
/* getopt_long that reads the options c->takes itself: returns the next option the command
 * reads, or -1 at the end of the options or after a bad value (then c->status is 2, the
 * reason printed), so a command's loop is `while ((o = cli_next_option(...)) != -1)`
 * followed by `if (co.status) return co.status;`. longindex as getopt_long's. */
int cli_next_option(cli_common *c, int argc, char **argv, const char *shortopts,
                    const struct option *longopts, int *longindex);

/* Prints "migsched CMD: MESSAGE" on stderr; returns 1 (the input or the work failed). */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints "migsched CMD: MESSAGE" on stderr, then usage(stderr) when usage is given;
 * returns 2 (the command was called wrongly). */
int cli_usage_error(const char *cmd, void (*usage)(FILE *f), const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
