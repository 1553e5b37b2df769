/* backoff.c: capped exponential backoff for a failing step, logged once per distinct error
 * with a count (backoff.h). */
#include "backoff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

ms_backoff ms_backoff_init(const char *event, double first, double max)
{
    return (ms_backoff){.event = event, .first = first, .max = max};
}

bool ms_backoff_due(const ms_backoff *b, double now)
{
    return b->delay == 0 || now >= b->retry_at;
}

/* The last error's summary: how often it came back after it was logged, and why it ended. */
static void summary(const ms_backoff *b, ms_log_level level, const char *why)
{
    char q[MS_ERR_LEN + 32];
    ms_dlog(level, b->event, "error=%s repeated=%lu summary=%s",
            ms_dlog_quote(b->error, q, sizeof q), b->repeated, why);
}

void ms_backoff_fail(ms_backoff *b, double now, const char *error)
{
    bool same = b->delay > 0 && strcmp(b->error, error) == 0;
    if (b->delay > 0 && !same)
        summary(b, MS_LOG_ERROR, "changed");
    b->delay = b->delay > 0 ? fmin(2 * b->delay, b->max) : b->first;
    b->retry_at = now + b->delay;
    if (same) {
        b->repeated++;
        return;
    }
    snprintf(b->error, sizeof b->error, "%s", error);
    b->repeated = 0;
    char q[MS_ERR_LEN + 32];
    ms_dlog(MS_LOG_ERROR, b->event, "error=%s retry_s=%g", ms_dlog_quote(error, q, sizeof q),
            b->delay);
}

double ms_backoff_delay(double first, double max, int n)
{
    double d = first;
    for (int k = 1; k < n && d < max; k++)
        d *= 2;
    return fmin(d, max);
}

void ms_backoff_ok(ms_backoff *b)
{
    if (b->delay == 0)
        return;
    summary(b, MS_LOG_INFO, "recovered");
    b->delay = 0;
    b->error[0] = '\0';
    b->repeated = 0;
}
