/* backoff.h: a step of the scheduling loop that keeps failing (a store commit, a backend
 * call, a spawn, a log file) is retried with capped exponential backoff (the loop's steps:
 * 0.1 s doubling to 5 s; a batch's planning, costlier: 1 s to a minute) and logged once per
 * distinct error: the first failure with its error, then nothing while it repeats, then one
 * summary with the count when the error changes or stops. Not thread-safe: each one
 * belongs to the thread retrying the step. Private to the daemon. */
#ifndef MIGSCHED_DAEMON_BACKOFF_H
#define MIGSCHED_DAEMON_BACKOFF_H

#include <stdbool.h>

#include "migsched/error.h"

/* The scheduling loop's steps: the first wait and the cap (seconds). */
#define MD_BACKOFF_FIRST 0.1
#define MD_BACKOFF_MAX   5.0

typedef struct md_backoff {
    const char *event;      /* the log event ("job.end_failed") */
    double first, max;      /* the first wait and the cap (seconds) */
    double delay;           /* the wait before the next try; 0: not failing */
    double retry_at;        /* when the step is due again (monotonic seconds) */
    unsigned long repeated; /* failures with the same error since it was logged */
    char error[MS_ERR_LEN]; /* the error logged last */
} md_backoff;

/* A step that has not failed yet, logging its failures as `event`, waiting `first` seconds
 * after its first failure and doubling to `max`. */
md_backoff md_backoff_init(const char *event, double first, double max);
/* Whether the step may run at `now` (monotonic): it is not failing or its wait is over. */
bool md_backoff_due(const md_backoff *b, double now);
/* The step failed with `error` at `now`: the next try waits twice as long as the last (at
 * most max). Logged (level error, with retry_s) when it is the first failure or
 * another error than the last one, which then gets its summary first (repeated=N). */
void md_backoff_fail(md_backoff *b, double now, const char *error);
/* The wait after n failures in a row (n >= 1): first, doubled n - 1 times, at most max
 * (what a job whose start keeps failing on the node waits before its next try). */
double md_backoff_delay(double first, double max, int n);
/* The step succeeded: a failing one logs its summary (level info, repeated=N, recovered)
 * and tries at once again from now on. */
void md_backoff_ok(md_backoff *b);

#endif
