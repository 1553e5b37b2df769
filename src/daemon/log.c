/* log.c: migschedd's logfmt event lines on stderr. Each line is formatted into one buffer
 * and written with a single write(2), so lines of concurrent threads never interleave. */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static _Atomic int current_level = MD_LOG_INFO;
static const char *const LEVEL_NAMES[] = {"debug", "info", "warn", "error"};

void md_log_set_level(md_log_level level) { atomic_store(&current_level, (int)level); }

md_log_level md_log_get_level(void) { return (md_log_level)atomic_load(&current_level); }

static bool plain(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c <= ' ' || c >= 0x7f || c == '"' || c == '\\' || c == '=')
            return false;
    }
    return true;
}

const char *md_log_quote(const char *s, char *buf, size_t n)
{
    if (plain(s)) {
        snprintf(buf, n, "%s", s);
        return buf;
    }
    size_t k = 0;
    buf[k++] = '"';
    for (; *s && k + 6 < n; s++) { /* room for the longest escape and the closing quote */
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            buf[k++] = '\\';
            buf[k++] = (char)c;
        } else if (c == '\n') {
            buf[k++] = '\\';
            buf[k++] = 'n';
        } else if (c < ' ' || c == 0x7f) {
            k += (size_t)snprintf(buf + k, n - k, "\\x%02x", c);
        } else {
            buf[k++] = (char)c;
        }
    }
    buf[k++] = '"';
    buf[k] = '\0';
    return buf;
}

/* The end of the last whole key=value pair in line[0..n): the last blank outside quotes. */
static size_t last_pair_end(const char *line, size_t n)
{
    size_t end = 0;
    bool quoted = false;
    for (size_t i = 0; i < n; i++) {
        if (quoted && line[i] == '\\')
            i++;
        else if (line[i] == '"')
            quoted = !quoted;
        else if (!quoted && line[i] == ' ')
            end = i;
    }
    return end;
}

void md_log(md_log_level level, const char *event, const char *fmt, ...)
{
    if ((int)level < atomic_load(&current_level))
        return;
    static const char CUT[] = " truncated=true";
    char line[4096];
    /* Room for the newline and for CUT after the pairs that fit. */
    const size_t room = sizeof line - sizeof CUT - 1;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    int k = snprintf(line, sizeof line, "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ level=%s event=%s",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     ts.tv_nsec / 1000000, LEVEL_NAMES[level], event);
    size_t n = k < 0 ? 0 : (size_t)k;
    if (fmt && *fmt && n < room) {
        line[n++] = ' ';
        va_list ap;
        va_start(ap, fmt);
        int m = vsnprintf(line + n, sizeof line - n, fmt, ap);
        va_end(ap);
        n = m < 0 ? n - 1 : n + (size_t)m;
    }
    if (n > room) { /* cut after the last whole pair: the line still parses */
        n = last_pair_end(line, room);
        memcpy(line + n, CUT, sizeof CUT - 1);
        n += sizeof CUT - 1;
    }
    line[n++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, n);
    (void)w; /* nowhere to report a failed log write */
}
