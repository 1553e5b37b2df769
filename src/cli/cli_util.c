/* cli_util.c: strict number parsing shared by the subcommands. */
#include "cli_util.h"

#include <errno.h>
#include <stdlib.h>

bool cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool cli_parse_int(const char *s, int lo, int hi, int *out)
{
    long v;
    if (!cli_parse_long(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

bool cli_parse_seed(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno || *s == '-')
        return false;
    *out = v;
    return true;
}

bool cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

bool cli_parse_widths(const char *s, int max, int *w, int *n)
{
    *n = 0;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 1 || v > 65536 || *n == max || (*end && *end != ','))
            return false;
        w[(*n)++] = (int)v;
        s = *end ? end + 1 : end;
    }
    return *n > 0 && s[-1] != ',';
}
