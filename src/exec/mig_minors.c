/* mig_minors.c: the driver's MIG capability minors (/proc/driver/nvidia-caps/mig-minors):
 * one "NAME MINOR" per line, e.g. "gpu0/gi1/access 21" and "gpu0/gi1/ci0/access 66"; the
 * device node of minor N is nvidia-caps/nvidia-cap<N>. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/isolate.h"

#define MINOR_MAX 0xFFFFFu /* Linux minors have 20 bits */

/* One line (without its newline): its name into name[], its minor. */
static int parse_line(const char *s, size_t n, const char *path, int line, char *name, size_t cap,
                      unsigned *minor, ms_error *err)
{
    size_t k = 0;
    while (k < n && s[k] != ' ' && s[k] != '\t')
        k++;
    size_t gap = k;
    while (gap < n && (s[gap] == ' ' || s[gap] == '\t'))
        gap++;
    size_t digits = gap;
    unsigned long v = 0;
    for (; digits < n && s[digits] >= '0' && s[digits] <= '9'; digits++)
        if (v <= MINOR_MAX) /* past it, only that it is too big matters */
            v = v * 10 + (unsigned long)(s[digits] - '0');
    if (k == 0 || gap == k || digits == gap || digits != n)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%d: expected NAME MINOR (e.g. gpu0/gi1/access "
                            "21), got \"%.*s\"",
                            path, line, (int)(n < 80 ? n : 80), s);
    if (v > MINOR_MAX)
        return ms_error_set(err, MS_EINVAL, "%s:%d: minor %.*s is over %u", path, line,
                            (int)(n - gap < 20 ? n - gap : 20), s + gap, MINOR_MAX);
    if (k >= cap)
        return ms_error_set(err, MS_EINVAL, "%s:%d: name of %zu bytes is too long", path, line, k);
    memcpy(name, s, k);
    name[k] = '\0';
    *minor = (unsigned)v;
    return MS_OK;
}

int ms_mig_minors_parse(const char *text, size_t len, const char *path, unsigned gpu_minor,
                        unsigned gi_id, unsigned ci_id, unsigned *gi_minor, unsigned *ci_minor,
                        ms_error *err)
{
    char want[2][64];
    snprintf(want[0], sizeof want[0], "gpu%u/gi%u/access", gpu_minor, gi_id);
    snprintf(want[1], sizeof want[1], "gpu%u/gi%u/ci%u/access", gpu_minor, gi_id, ci_id);
    unsigned *out[2] = {gi_minor, ci_minor};
    int found_on[2] = {0, 0};
    int line = 0;
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
        const char *s = text + at;
        at += n + 1;
        line++;
        if (n && s[n - 1] == '\r')
            n--;
        if (n == 0)
            continue;
        char name[128];
        unsigned minor = 0;
        int rc = parse_line(s, n, path, line, name, sizeof name, &minor, err);
        if (rc)
            return rc;
        for (int w = 0; w < 2; w++) {
            if (strcmp(name, want[w]))
                continue;
            if (found_on[w])
                return ms_error_set(err, MS_EINVAL,
                                    "%s:%d: %s is listed again (first on line "
                                    "%d)",
                                    path, line, name, found_on[w]);
            found_on[w] = line;
            *out[w] = minor;
        }
    }
    for (int w = 0; w < 2; w++)
        if (!found_on[w])
            return ms_error_set(err, MS_EINVAL,
                                "%s lists no %s: no capability node for the "
                                "MIG instance (GPU minor %u, GPU instance %u, compute instance "
                                "%u)",
                                path, want[w], gpu_minor, gi_id, ci_id);
    return MS_OK;
}

int ms_mig_minors_find(const char *path, unsigned gpu_minor, unsigned gi_id, unsigned ci_id,
                       unsigned *gi_minor, unsigned *ci_minor, ms_error *err)
{
    char *text = NULL;
    size_t len = 0;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc == MS_OK)
        rc = ms_mig_minors_parse(text, len, path, gpu_minor, gi_id, ci_id, gi_minor, ci_minor, err);
    free(text);
    return rc;
}
