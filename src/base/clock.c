/* clock.c: the monotonic clock in seconds (clock.h). */
#include "migsched/clock.h"

#include <time.h>

double ms_monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
