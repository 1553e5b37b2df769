/* parse_number.c: numbers read from text, and the range every reader accepts for times. */
#include "migsched/parse.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

bool ms_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

const char *ms_time_check(double x)
{
    if (isnan(x))
        return "is not a number";
    if (fabs(x) > MS_TIME_MAX)
        return "is over the ceiling of 1e9 s for times";
    return NULL;
}
