/* error.h: how library functions report failure (code + message, never exit()). */
#ifndef MIGSCHED_ERROR_H
#define MIGSCHED_ERROR_H

#include <stddef.h>

#define MS_ERR_LEN 512

/* Every fallible function returns 0 on success or one of these, and fills an ms_error. One
 * that hands back an object through an out-parameter (T **out) sets *out to NULL when it
 * fails, so a caller never holds a stale or freed pointer. */
enum ms_status {
    MS_OK = 0,
    MS_EINVAL = 1, /* bad input: file contents, arguments */
    MS_EIO = 2,    /* cannot read or write a file */
    MS_ENOMEM = 3,
    MS_EINFEASIBLE = 4, /* no valid schedule exists for this input */
    MS_EBACKEND = 5,    /* hardware/driver failure */
    MS_EINTR = 6,       /* interrupted by a signal */
    MS_EBUSY = 7,       /* a resource (a GPU) is owned by another process */
    MS_ECHANGED = 8,    /* the hardware is no longer what was recorded (a foreign change) */
};

typedef struct ms_error {
    int code;
    char msg[MS_ERR_LEN];
} ms_error;

/* Fills err (may be NULL) with a printf-style message; returns code. */
int ms_error_set(ms_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Prepends "prefix: " to an existing message (e.g. a file name). */
void ms_error_prefix(ms_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A debug build's check of an algorithm's invariant failed (MIGSCHED_DEBUG_CHECKS): a bug in
 * migsched, not in its input, so the one place that stops the process. Prints "where:
 * message" to stderr and aborts. */
_Noreturn void ms_invariant_failed(const char *where, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
