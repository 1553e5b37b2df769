/* trace.c: online workloads from files: the trace CSV (`arrival,profile,work[,name]`) and
 * the Alibaba GPU-sharing pod list (cluster-trace-gpu-v2023); the job list type. */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"

void ms_online_workload_fini(ms_online_workload *w)
{
    free(w->jobs);
    free(w->names);
    memset(w, 0, sizeof *w);
}

int msi_workload_check(const ms_gpu_model *m, const ms_online_workload *w, ms_error *err)
{
    if (w->n < 1)
        return ms_error_set(err, MS_EINVAL, "the workload has no jobs");
    for (int j = 0; j < w->n; j++)
        if (w->jobs[j].profile < 0 || w->jobs[j].profile >= m->nprofiles ||
            !(w->jobs[j].work >= 0) || (j && w->jobs[j].arrival < w->jobs[j - 1].arrival))
            return ms_error_set(err, MS_EINVAL, "job %d: bad profile, work or arrival order", j);
    return MS_OK;
}

const char *ms_online_job_name(const ms_online_workload *w, int i)
{
    return w->jobs[i].name >= 0 ? w->names + w->jobs[i].name : NULL;
}

static int add_job(ms_online_workload *w, double arrival, int profile, double work,
                   const char *name, size_t name_len)
{
    if (!msi_reserve(&w->jobs, w->n, &w->cap, sizeof *w->jobs, 256))
        return MS_ENOMEM;
    int off = -1;
    if (name && name_len > 0) {
        if (w->names_len + name_len + 1 > w->names_cap) {
            size_t cap = w->names_cap ? 2 * w->names_cap : 4096;
            while (cap < w->names_len + name_len + 1)
                cap *= 2;
            char *n = realloc(w->names, cap);
            if (!n)
                return MS_ENOMEM;
            w->names = n;
            w->names_cap = cap;
        }
        off = (int)w->names_len;
        memcpy(w->names + off, name, name_len);
        w->names[off + name_len] = '\0';
        w->names_len += name_len + 1;
    }
    w->jobs[w->n++] = (ms_online_job){arrival, profile, work, off};
    return MS_OK;
}

static int cmp_arrival(const void *a, const void *b)
{
    const ms_online_job *x = a, *y = b;
    if (x->arrival != y->arrival)
        return x->arrival < y->arrival ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* The end of a read: frees w if rc is an error, else sorts its jobs by arrival. */
static int sort_or_free(ms_online_workload *w, int rc)
{
    if (rc) {
        ms_online_workload_fini(w);
        return rc;
    }
    if (w->n > 1) /* qsort must not see the NULL of an empty list */
        qsort(w->jobs, (size_t)w->n, sizeof *w->jobs, cmp_arrival);
    return MS_OK;
}

/* Splits one line (modified in place) into at most max fields at commas. */
static int split(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p; p++)
        if (*p == ',') {
            *p = '\0';
            if (n == max)
                return max + 1;
            f[n++] = p + 1;
        }
    return n;
}

static bool parse_num(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* A time field: a number in [0, MS_TIME_MAX] (above 0 if positive); fills *why and fails
 * otherwise. */
static bool parse_time(const char *s, bool positive, double *out, const char **why)
{
    if (!parse_num(s, out) || *out < 0 || (positive && *out == 0)) {
        *why = positive ? "is not a number > 0" : "is not a number >= 0";
        return false;
    }
    return !(*why = ms_time_check(*out));
}

/* Iterates lines of text: returns the next line (NUL-terminated, \r stripped) or NULL. */
static char *next_line(char **cursor, char *end)
{
    if (*cursor >= end)
        return NULL;
    char *line = *cursor, *nl = memchr(line, '\n', (size_t)(end - line));
    char *stop = nl ? nl : end;
    *cursor = nl ? nl + 1 : end;
    *stop = '\0';
    if (stop > line && stop[-1] == '\r')
        stop[-1] = '\0';
    return line;
}

static int parse_trace_line(char *line, int lineno, const char *source, const ms_gpu_model *m,
                            bool has_name, ms_online_workload *w, ms_error *err)
{
    char *f[5];
    int want = has_name ? 4 : 3, n = split(line, f, 4);
    double arrival, work;
    const char *why;
    if (n != want)
        return ms_error_set(err, MS_EINVAL, "%s:%d: expected %d fields, found %d", source, lineno,
                            want, n > 4 ? 5 : n);
    if (!parse_time(f[0], false, &arrival, &why))
        return ms_error_set(err, MS_EINVAL, "%s:%d: arrival '%.40s' %s", source, lineno, f[0], why);
    int p = ms_gpu_profile_by_name(m, f[1]);
    if (p < 0)
        return ms_error_set(err, MS_EINVAL, "%s:%d: profile '%s' is not a profile of %s", source,
                            lineno, f[1], m->name);
    if (!parse_time(f[2], true, &work, &why))
        return ms_error_set(err, MS_EINVAL, "%s:%d: work '%.40s' %s", source, lineno, f[2], why);
    if (add_job(w, arrival, p, work, has_name ? f[3] : NULL, has_name ? strlen(f[3]) : 0))
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", source);
    return MS_OK;
}

int ms_online_trace_parse(const char *text, size_t len, const char *source, const ms_gpu_model *m,
                          ms_online_workload *w, ms_error *err)
{
    memset(w, 0, sizeof *w);
    char *buf = malloc(len + 1), *cur = buf, *line;
    if (!buf)
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", source);
    memcpy(buf, text, len);
    buf[len] = '\0';
    if (memchr(buf, '\0', len)) {
        free(buf);
        return ms_error_set(err, MS_EINVAL, "%s: contains a NUL byte (not a text file)", source);
    }
    int rc = MS_OK, lineno = 1;
    line = next_line(&cur, buf + len);
    bool has_name = line && !strcmp(line, "arrival,profile,work,name");
    if (!line || (!has_name && strcmp(line, "arrival,profile,work")))
        rc = ms_error_set(err, MS_EINVAL, "%s:1: header must be 'arrival,profile,work[,name]'",
                          source);
    while (!rc && (line = next_line(&cur, buf + len))) {
        lineno++;
        if (*line)
            rc = parse_trace_line(line, lineno, source, m, has_name, w, err);
    }
    if (!rc && w->n == 0)
        rc = ms_error_set(err, MS_EINVAL, "%s: no jobs (only a header)", source);
    free(buf);
    return sort_or_free(w, rc);
}

int ms_online_trace_read(const char *path, const ms_gpu_model *m, ms_online_workload *w,
                         ms_error *err)
{
    char *text;
    size_t len;
    memset(w, 0, sizeof *w);
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    rc = ms_online_trace_parse(text, len, path, m, w, err);
    free(text);
    return rc;
}

int ms_online_trace_write(const char *path, const ms_gpu_model *m, const ms_online_workload *w,
                          ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    fprintf(o.f, "arrival,profile,work,name\n");
    for (int j = 0; j < w->n; j++) {
        const char *name = ms_online_job_name(w, j);
        fprintf(o.f, "%.17g,%s,%.17g,", w->jobs[j].arrival, m->profiles[w->jobs[j].profile].name,
                w->jobs[j].work);
        if (name)
            fprintf(o.f, "%s\n", name);
        else
            fprintf(o.f, "job%d\n", j);
    }
    return ms_output_commit(&o, err);
}

/* The smallest base profile whose compute share covers a fraction of one GPU. */
static int profile_for_fraction(const ms_gpu_model *m, double frac)
{
    for (int k = 0; k < m->nsizes; k++)
        if ((double)m->sizes[k] / m->slices >= frac - 1e-12)
            return m->base_profile[m->sizes[k]];
    return -1;
}

#define ALI_MAX_COLS 32

int ms_online_alibaba_read(const char *path, const ms_gpu_model *m, int limit,
                           ms_online_workload *w, ms_error *err)
{
    char *text;
    size_t len;
    memset(w, 0, sizeof *w);
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    rc = ms_online_alibaba_parse(text, len, path, m, limit, w, err);
    free(text);
    return rc;
}

int ms_online_alibaba_parse(const char *data, size_t len, const char *path, const ms_gpu_model *m,
                            int limit, ms_online_workload *w, ms_error *err)
{
    char *line, *f[ALI_MAX_COLS + 1];
    memset(w, 0, sizeof *w);
    char *text = malloc(len + 1);
    if (!text)
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    memcpy(text, data, len);
    text[len] = '\0';
    int rc = MS_OK;
    char *cur = text;
    line = next_line(&cur, text + len);
    int nc = line ? split(line, f, ALI_MAX_COLS) : 0;
    if (nc > ALI_MAX_COLS) {
        free(text);
        return ms_error_set(err, MS_EINVAL, "%s:1: more than %d columns", path, ALI_MAX_COLS);
    }
    const char *const *head = (const char *const *)f;
    int c_name = ms_name_index(head, nc, "name"), c_num = ms_name_index(head, nc, "num_gpu");
    int c_milli = ms_name_index(head, nc, "gpu_milli");
    int c_cre = ms_name_index(head, nc, "creation_time");
    int c_del = ms_name_index(head, nc, "deletion_time"), lineno = 1;
    if (c_name < 0 || c_num < 0 || c_milli < 0 || c_cre < 0 || c_del < 0)
        rc = ms_error_set(err, MS_EINVAL,
                          "%s:1: header lacks name, num_gpu, gpu_milli, "
                          "creation_time or deletion_time",
                          path);
    while (!rc && (line = next_line(&cur, text + len)) && (limit <= 0 || w->n < limit)) {
        lineno++;
        if (!*line)
            continue;
        double num, milli, cre = 0, del = 0;
        const char *why = NULL;
        if (split(line, f, ALI_MAX_COLS) != nc) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: expected %d fields", path, lineno, nc);
        } else if (!parse_num(f[c_num], &num) || !parse_num(f[c_milli], &milli)) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: num_gpu or gpu_milli is not a number", path,
                              lineno);
        } else if (num < 0 || num != floor(num) || num > 1e6) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: num_gpu %g is not a GPU count", path, lineno,
                              num);
        } else if (milli < 0 || milli > 1000 || (num == 1 && milli == 0)) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: gpu_milli %g is out of range (%s)", path,
                              lineno, milli, num == 1 ? "1..1000 for a one-GPU pod" : "0..1000");
        } else if (num != 1) {
            w->skipped++;
            num > 1 ? w->skipped_multi_gpu++ : w->skipped_no_gpu++;
        } else if (*f[c_cre] && !parse_time(f[c_cre], false, &cre, &why)) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: creation_time '%.40s' %s", path, lineno,
                              f[c_cre], why);
        } else if (*f[c_del] && !parse_time(f[c_del], false, &del, &why)) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%d: deletion_time '%.40s' %s", path, lineno,
                              f[c_del], why);
        } else if (!*f[c_cre] || !*f[c_del] || del <= cre) {
            w->skipped++; /* missing or empty lifetime */
            w->skipped_bad_time++;
        } else if (add_job(w, cre, profile_for_fraction(m, milli / 1000.0), del - cre, f[c_name],
                           strlen(f[c_name]))) {
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
        }
    }
    free(text);
    if (!rc && w->n == 0)
        rc = ms_error_set(err, MS_EINVAL,
                          "%s: no usable pods (%d skipped: %d without a GPU, %d "
                          "on several GPUs, %d without a lifetime)",
                          path, w->skipped, w->skipped_no_gpu, w->skipped_multi_gpu,
                          w->skipped_bad_time);
    if ((rc = sort_or_free(w, rc)))
        return rc;
    double t0 = w->n ? w->jobs[0].arrival : 0;
    for (int j = 0; j < w->n; j++)
        w->jobs[j].arrival -= t0;
    return MS_OK;
}
