/* run_log.c: the run's clock (its driver's) and its progress lines, below the dependency
 * engine, its drivers and the MPS daemons. */
#include <stdarg.h>
#include <stdio.h>

#include "runner.h"

double run_now(run_ctx *c) { return c->driver->now(c); }

void run_progress(run_ctx *c, const char *fmt, ...)
{
    if (!c->o->progress || c->o->dry_run)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(c->o->progress, "[%9.3f] ", run_now(c));
    vfprintf(c->o->progress, fmt, ap);
    fputc('\n', c->o->progress);
    va_end(ap);
    fflush(c->o->progress);
}
