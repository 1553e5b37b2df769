/* schedule_internal.h: helpers of the schedule module shared with its tests. */
#ifndef MIGSCHED_SCHEDULE_INTERNAL_H
#define MIGSCHED_SCHEDULE_INTERNAL_H

/* Fewest significant digits p in 1..17 such that "%.{p}g" of x reads back as exactly x
 * (finite x). */
int ms_real_digits(double x);

#endif
