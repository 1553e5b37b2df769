/* cli_util.h: what every subcommand shares: strict number parsing, checked output to
 * stdout and output files, and JSON printing. Each prints its own message. */
#ifndef MIGSCHED_CLI_UTIL_H
#define MIGSCHED_CLI_UTIL_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "migsched/schedule.h"

/* A whole decimal integer in lo..hi: no trailing text, no overflow. */
bool cli_parse_long(const char *s, long lo, long hi, long *out);
bool cli_parse_int(const char *s, int lo, int hi, int *out);
/* A non-negative decimal integer up to 2^64-1 (a leading '-' is refused, not wrapped). */
bool cli_parse_seed(const char *s, uint64_t *out);
/* A whole number in [lo, hi]: no trailing text, no overflow or underflow, never NaN. */
bool cli_parse_double(const char *s, double lo, double hi, double *out);
/* Comma-separated integers in lo..hi, at most max: fills v, *n. */
bool cli_parse_int_list(const char *s, int lo, int hi, int max, int *v, int *n);
/* Comma-separated layer widths "256,256" (1..65536 each, at most max): fills w, *n. */
bool cli_parse_widths(const char *s, int max, int *w, int *n);

/* Flushes stdout; when anything written to it was lost (a full disk, a closed pipe)
 * prints "migsched CMD: standard output: ..." and returns 1, else 0. main() calls it
 * after every command; a command calls it itself before work that should not happen
 * when its result could not be shown (writing files after printing a table). */
int cli_stdout_check(const char *cmd);

/* Checks before any work that each output path can be written (paths NULL or "-" are
 * skipped): its folder exists and is writable and it is not a folder itself, so a
 * command that writes several files does not fail half-way and leave some behind.
 * Returns 0, or prints the problem and returns 1. */
int cli_check_outputs(const char *cmd, const char *const *paths, int n);

/* The learned scheduler's rollout width: "all" (MS_RL_ROLLOUT_ALL) or 1..1000 actions;
 * false when text is neither. */
bool cli_parse_rollout(const char *text, int *out);
/* The logit gap within which the rollout tries the greedy action's rivals: "inf" or a
 * number in 0..1000; false when text is neither. */
bool cli_parse_rollout_gap(const char *text, float *out);

/* --initial LAYOUT for G GPUs of gpu (ms_initial_parse; "device" is refused, as only `run`
 * reads a device): fills out, or prints "migsched CMD: ..." and returns 1. */
int cli_initial_parse(const char *cmd, const char *text, const ms_gpu_model *gpu, int gpus,
                      ms_initial *out);
/* The help line every planning command prints for --initial. */
#define CLI_INITIAL_HELP                                                                        \
    "  --initial L        what the GPUs hold before the plan: empty (default: every instance\n" \
    "                     is created and charged), a partition per GPU (4-3, 2-2-2-1, an\n"     \
    "                     index as fixpart: takes; comma list for several GPUs). Instances\n"   \
    "                     there that the plan keeps cost nothing; those in its way are\n"       \
    "                     destroyed first, and charged (DESIGN.md)\n"

/* CPU seconds this process has used so far, user + system, all threads (getrusage). */
double cli_cpu_seconds(void);

/* A double for JSON: null when it is not finite (JSON has no NaN or infinity). */
json_t *cli_json_real(double v);
/* The papers' metrics of a plan as a JSON object (makespan, bounds, rho, p_opt, ...). */
json_t *cli_json_metrics(const ms_metrics *m);
/* Prints root on stdout (indented, keys in insertion order, newline) and releases it;
 * returns 1 when root is NULL (an allocation failed) or the write failed, else 0. */
int cli_json_print(const char *cmd, json_t *root);

#endif
