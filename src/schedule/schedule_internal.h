/* schedule_internal.h: helpers of the schedule module shared with its tests. */
#ifndef MIGSCHED_SCHEDULE_INTERNAL_H
#define MIGSCHED_SCHEDULE_INTERNAL_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/schedule.h"

/* Fewest significant digits p in 1..17 such that "%.{p}g" of x reads back as exactly x
 * (finite x). */
int real_digits(double x);

/* "%.{p}g" of finite x (p in 1..17) as jansson's json_dumps writes a real: ".0" added when
 * neither a point nor an exponent shows, the exponent without '+' and leading zeros. Writes
 * at most 32 bytes with the NUL; returns the length. */
int real_text(double x, int p, char *out);

/* ms_schedule_write_json with the task lines formatted in blocks of `block` tasks, two
 * blocks at a time on two threads when two_threads is set: the same bytes either way. */
int schedule_write_json_blocks(const ms_schedule *s, const ms_workload *w, FILE *f, int block,
                               bool two_threads, ms_error *err);

#endif
