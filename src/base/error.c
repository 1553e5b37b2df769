/* error.c: filling ms_error messages; stopping on a broken invariant in debug builds. */
#include "migsched/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message cut to the buffer may end inside a UTF-8 character, which a JSON encoder then
 * refuses: the cut is moved back to the character's start. n: what was asked to fit. */
static void cut_at_character(char *msg, size_t n)
{
    if (n < MS_ERR_LEN - 1)
        return;
    size_t end = MS_ERR_LEN - 1, start = end;
    while (start > 0 && ((unsigned char)msg[start - 1] & 0xc0) == 0x80 && end - start < 3)
        start--;
    unsigned char lead = start > 0 ? (unsigned char)msg[start - 1] : 0;
    size_t want = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (lead >= 0xc0 && end - start + 1 < want)
        msg[start - 1] = '\0';
}

int ms_error_set(ms_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (n > 0)
            cut_at_character(err->msg, (size_t)n);
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
    cut_at_character(err->msg, (size_t)n + 2 + strlen(old));
}

void ms_invariant_failed(const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: invariant broken: ", where);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}
