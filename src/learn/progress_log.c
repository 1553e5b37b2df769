/* progress_log.c: reads back the progress lines `migsched train` (PPO) and `migsched hier
 * train` (DQN; its --expert-pretrain lines count updates) print on stderr, for learning
 * curves: steps, CPU seconds, p_opt or throughput per line, across resumed runs appended
 * to one log. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/learn.h"

typedef struct reader {
    const char *path;
    int line;
    ms_progress_log *log;
    int cap;
    double cpu_offset; /* CPU of the runs before a resume whose checkpoint had none */
    ms_error *err;
} reader;

/* A number at *p that ends at a space, '%', ',' or the end, finite and >= 0. */
static bool number_at(const char **p, double *out)
{
    char *end;
    double v = strtod(*p, &end);
    if (end == *p || !isfinite(v) || v < 0 || (*end && !strchr(" %,", *end)))
        return false;
    *p = end;
    *out = v;
    return true;
}

static int malformed(reader *r, const char *what, const char *at)
{
    int n = 0;
    while (at[n] && at[n] != ' ' && n < 24)
        n++;
    return ms_error_set(r->err, MS_EINVAL, "%s:%d: malformed %s '%.*s'", r->path, r->line, what, n,
                        at);
}

/* The value after "key" in the line, or NAN when the key is absent. */
static int field(reader *r, const char *s, const char *key, const char *what, double *out)
{
    *out = NAN;
    const char *p = strstr(s, key);
    if (!p)
        return MS_OK;
    p += strlen(key);
    return number_at(&p, out) ? MS_OK : malformed(r, what, p);
}

static int add_point(reader *r, const ms_progress_point *pt)
{
    ms_progress_log *log = r->log;
    if (log->n && pt->steps < log->pts[log->n - 1].steps)
        return ms_error_set(r->err, MS_EINVAL,
                            "%s:%d: steps %ld after %ld at line %d, with no "
                            "'resuming' line between (two runs in one log?)",
                            r->path, r->line, pt->steps, log->pts[log->n - 1].steps,
                            log->pts[log->n - 1].line);
    if (log->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 64;
        ms_progress_point *p = realloc(log->pts, (size_t)cap * sizeof *p);
        if (!p)
            return ms_error_set(r->err, MS_ENOMEM, "%s: out of memory", r->path);
        log->pts = p;
        r->cap = cap;
    }
    log->pts[log->n++] = *pt;
    return MS_OK;
}

/* "steps 501760/3000000  ..." (or hier train's "pretrain 3000/12000  ...", counting
 * updates) with the wrapper's CPU seconds (NAN: none); key is the line's first word. */
static int progress_line(reader *r, const char *s, const char *key, double wrapper_cpu)
{
    ms_progress_point pt = {.line = r->line};
    const char *p = s + strlen(key);
    char *end;
    long total = 0;
    errno = 0;
    pt.steps = strtol(p, &end, 10);
    if (end == p || pt.steps < 0 || *end != '/' ||
        (total = strtol(end + 1, &end, 10), total < 1 || (*end && *end != ' ')) || errno)
        return malformed(r, "step count", p);
    double own;
    int rc = field(r, s, "  cpu ", "CPU time", &own);
    if (!rc)
        rc = field(r, s, "p_opt ", "p_opt", &pt.p_opt);
    if (!rc)
        rc = field(r, s, "throughput ", "throughput", &pt.throughput);
    if (rc)
        return rc;
    if (isnan(pt.p_opt) && isnan(pt.throughput))
        return ms_error_set(r->err, MS_EINVAL,
                            "%s:%d: a progress line with neither p_opt nor "
                            "throughput",
                            r->path, r->line);
    /* train's own count spans its resumed runs; the wrapper's is this process's alone. */
    double raw = isnan(own) ? wrapper_cpu : own;
    pt.cpu = isnan(raw) ? NAN : r->cpu_offset + raw;
    return add_point(r, &pt);
}

/* "resuming FILE at N steps[, cpu X s]": the points past N were lost with the process that
 * printed them; without ", cpu" the resumed run counts its CPU from 0 again. */
static int resume_line(reader *r, const char *s)
{
    const char *p = strstr(s, " at ");
    char *end;
    errno = 0;
    long at = p ? strtol(p + 4, &end, 10) : -1;
    if (!p || end == p + 4 || at < 0 || errno)
        return malformed(r, "resume line", s);
    ms_progress_log *log = r->log;
    while (log->n && log->pts[log->n - 1].steps > at)
        log->n--;
    if (!strstr(s, ", cpu ")) {
        r->cpu_offset = 0;
        for (int i = log->n - 1; i >= 0; i--)
            if (!isnan(log->pts[i].cpu)) {
                r->cpu_offset = log->pts[i].cpu;
                break;
            }
    }
    return MS_OK;
}

/* One line (NUL-terminated, no newline). */
static int read_line(reader *r, char *s)
{
    double wrapper_cpu = NAN;
    /* "UNIXTIME cpu=SECONDS " from a wrapper that logs the process's CPU time. */
    if (isdigit((unsigned char)*s)) {
        char *p = s;
        while (isdigit((unsigned char)*p))
            p++;
        if (strncmp(p, " cpu=", 5))
            return MS_OK; /* a line of something else (the wrapper's "exit=") */
        p += 5;
        const char *q = p;
        if (*p != ' ' && !number_at(&q, &wrapper_cpu))
            return malformed(r, "cpu= prefix", p);
        s = strchr(p, ' ');
        if (!s)
            return MS_OK;
        s++;
    }
    char *cr = strrchr(s, '\r'); /* a terminal's rewritten line: its last state */
    if (cr)
        s = cr + 1;
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "pretrain " : "steps ";
        if (!strncmp(s, key, strlen(key)))
            return progress_line(r, s, key, wrapper_cpu);
    }
    if (!strncmp(s, "resuming ", 9))
        return resume_line(r, s);
    return MS_OK;
}

int ms_progress_log_parse(const char *buf, size_t len, const char *source, ms_progress_log *out,
                          ms_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = {.path = source, .log = out, .err = err};
    char line[4096];
    int rc = MS_OK;
    for (size_t i = 0; i < len && !rc;) {
        size_t j = i;
        while (j < len && buf[j] != '\n')
            j++;
        r.line++;
        size_t n = j - i < sizeof line ? j - i : sizeof line - 1; /* ours are ~200 bytes */
        memcpy(line, buf + i, n);
        line[n] = '\0';
        if (n && memchr(line, '\0', n))
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: a NUL byte (not a text log)", source, r.line);
        else
            rc = read_line(&r, line);
        i = j + 1;
    }
    if (!rc && !out->n)
        rc = ms_error_set(err, MS_EINVAL,
                          "%s: no progress lines ('steps N/TOTAL ...' as "
                          "migsched train or hier train prints them)",
                          source);
    if (rc)
        ms_progress_log_fini(out);
    return rc;
}

int ms_progress_log_read(const char *path, ms_progress_log *out, ms_error *err)
{
    char *buf;
    size_t len;
    memset(out, 0, sizeof *out);
    int rc = ms_read_binary_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = ms_progress_log_parse(buf, len, path, out, err);
    free(buf);
    return rc;
}

void ms_progress_log_fini(ms_progress_log *log)
{
    free(log->pts);
    memset(log, 0, sizeof *log);
}
