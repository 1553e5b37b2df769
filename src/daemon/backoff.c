/* backoff.c: capped exponential backoff for a failing step, logged once per distinct error
 * with a count (backoff.h). */
#include "backoff.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "log.h"

md_backoff md_backoff_init(const char *event, double first, double max)
{
    return (md_backoff){.event = event, .first = first, .max = max};
}

bool md_backoff_due(const md_backoff *b, double now) { return b->delay == 0 || now >= b->retry_at; }

/* The last error's summary: how often it came back after it was logged, and why it ended. */
static void summary(const md_backoff *b, md_log_level level, const char *why)
{
    char q[MS_ERR_LEN + 32];
    md_log(level, b->event, "error=%s repeated=%lu summary=%s", md_log_quote(b->error, q, sizeof q),
           b->repeated, why);
}

void md_backoff_fail(md_backoff *b, double now, const char *error)
{
    bool same = b->delay > 0 && strcmp(b->error, error) == 0;
    if (b->delay > 0 && !same)
        summary(b, MD_LOG_ERROR, "changed");
    b->delay = b->delay > 0 ? fmin(2 * b->delay, b->max) : b->first;
    b->retry_at = now + b->delay;
    if (same) {
        b->repeated++;
        return;
    }
    snprintf(b->error, sizeof b->error, "%s", error);
    b->repeated = 0;
    char q[MS_ERR_LEN + 32];
    md_log(MD_LOG_ERROR, b->event, "error=%s retry_s=%g", md_log_quote(error, q, sizeof q),
           b->delay);
}

double md_backoff_delay(double first, double max, int n)
{
    double d = first;
    for (int k = 1; k < n && d < max; k++)
        d *= 2;
    return fmin(d, max);
}

void md_backoff_ok(md_backoff *b)
{
    if (b->delay == 0)
        return;
    summary(b, MD_LOG_INFO, "recovered");
    b->delay = 0;
    b->error[0] = '\0';
    b->repeated = 0;
}
