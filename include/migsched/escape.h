/* escape.h: text that came from migschedd made safe to print: control characters and
 * bytes that are not UTF-8 become visible escapes, so that a job's name or a daemon's
 * message cannot drive the terminal (clear it, retitle it, hide lines). */
#ifndef MIGSCHED_ESCAPE_H
#define MIGSCHED_ESCAPE_H

#include <stddef.h>

/* Room for any escaped text of n bytes (each byte at most 4 characters) and the NUL. */
#define MS_ESCAPED_LEN(n) (4 * (size_t)(n) + 1)

/* Writes s's n bytes into buf (len bytes, always NUL-terminated) with \n, \r, \t and \\
 * as such, other C0 controls, DEL and bytes that are not valid UTF-8 as \xHH, C1
 * controls (U+0080..U+009F) as \u00HH; text that does not fit ends in "...".
 * Returns buf. */
const char *ms_escape(const char *s, size_t n, char *buf, size_t len);

#endif
