/* escape.c: daemon text made safe for the terminal. */
#include "migsched/escape.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at s (n bytes left) and its code point, or 0
 * when s does not start one (a stray continuation, an overlong form, a surrogate, a code
 * point above U+10FFFF, a sequence cut short). */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned *cp)
{
    size_t k;
    unsigned c, min;
    if (s[0] < 0x80) {
        *cp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        k = 2, c = s[0] & 0x1f, min = 0x80;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        k = 3, c = s[0] & 0x0f, min = 0x800;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        k = 4, c = s[0] & 0x07, min = 0x10000;
    else
        return 0;
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = c << 6 | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return k;
}

/* Unicode's bidirectional controls and line separators: printable as far as the terminal
 * knows, but they reorder or break the rest of the line (a job's name could make the user
 * and state printed after it read as others). */
static bool reorders(unsigned cp)
{
    return cp == 0x061c || cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
           (cp >= 0x2066 && cp <= 0x2069);
}

const char *ms_escape(const char *s, size_t n, char *buf, size_t len)
{
    static const char NAMED[] = "\n\r\t\\", LETTER[] = "nrt\\";
    const unsigned char *p = (const unsigned char *)s;
    size_t out = 0, keep = 0; /* keep: where "..." goes if the text is cut short */
    if (!len)
        return buf;
    for (size_t i = 0, k; i < n; i += k) {
        unsigned cp;
        char esc[8];
        const char *piece = esc;
        k = utf8_seq(p + i, n - i, &cp);
        if (k == 0) {
            snprintf(esc, sizeof esc, "\\x%02x", p[i]);
            k = 1;
        } else if (cp && cp < 0x80 && strchr(NAMED, (int)cp)) {
            snprintf(esc, sizeof esc, "\\%c", LETTER[strchr(NAMED, (int)cp) - NAMED]);
        } else if (cp < 0x20 || cp == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", cp);
        } else if ((cp >= 0x80 && cp <= 0x9f) || reorders(cp)) {
            snprintf(esc, sizeof esc, "\\u%04x", cp);
        } else {
            piece = s + i; /* printable: as it is */
        }
        size_t plen = piece == esc ? strlen(esc) : k;
        if (out + plen >= len) {
            out = keep + 3 < len ? keep + 3 : keep;
            memcpy(buf + keep, "...", out - keep);
            break;
        }
        memcpy(buf + out, piece, plen);
        out += plen;
        if (out + 3 < len)
            keep = out;
    }
    buf[out] = '\0';
    return buf;
}
