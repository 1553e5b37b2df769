/* error.c: filling ms_error messages. */
#include "migsched/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ms_error_set(ms_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

void ms_error_prefix(ms_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char old[MS_ERR_LEN];
    memcpy(old, err->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof err->msg - 2)
        return;
    /* The prefix is kept whole; the old message is cut if both do not fit. */
    size_t room = sizeof err->msg - (size_t)n;
    memcpy(err->msg + n, ": ", 3);
    strncat(err->msg + n + 2, old, room - 3);
}
