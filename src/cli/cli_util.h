/* cli_util.h: strict number parsing shared by the subcommands; each prints its own message. */
#ifndef MIGSCHED_CLI_UTIL_H
#define MIGSCHED_CLI_UTIL_H

#include <stdbool.h>
#include <stdint.h>

/* A whole decimal integer in lo..hi: no trailing text, no overflow. */
bool cli_parse_long(const char *s, long lo, long hi, long *out);
bool cli_parse_int(const char *s, int lo, int hi, int *out);
/* A non-negative decimal integer up to 2^64-1 (a leading '-' is refused, not wrapped). */
bool cli_parse_seed(const char *s, uint64_t *out);
/* A whole number in [lo, hi]: no trailing text, no overflow or underflow, never NaN. */
bool cli_parse_double(const char *s, double lo, double hi, double *out);
/* Comma-separated layer widths "256,256" (1..65536 each, at most max): fills w, *n. */
bool cli_parse_widths(const char *s, int max, int *w, int *n);

#endif
