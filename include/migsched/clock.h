/* clock.h: the monotonic clock in seconds, for deadlines and durations. */
#ifndef MIGSCHED_CLOCK_H
#define MIGSCHED_CLOCK_H

/* Seconds on CLOCK_MONOTONIC: never jumps with the wall clock, so intervals stay true. */
double ms_monotonic_seconds(void);

#endif
