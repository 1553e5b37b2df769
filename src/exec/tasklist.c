/* tasklist.c: the profiler's task lists: the FAR authors' "name dir script" lines, or a
 * migsched workload CSV/JSON whose tasks have commands. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/exec.h"
#include "migsched/io.h"

#define FIELD_MAX 512

/* Splits one line (comments cut at '#') into at most 4 blank-separated fields; returns
 * the count, or -1 when a field is too long. */
static int split(const char *line, size_t len, char f[4][FIELD_MAX])
{
    int n = 0;
    size_t i = 0;
    while (i < len && line[i] != '#') {
        while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            i++;
        if (i >= len || line[i] == '#')
            break;
        size_t start = i;
        while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r' && line[i] != '#')
            i++;
        if (i - start >= FIELD_MAX)
            return -1;
        if (n < 4)
            snprintf(f[n], FIELD_MAX, "%.*s", (int)(i - start), line + start);
        n++;
    }
    return n;
}

static int add_far_task(const char *source, int lineno, char f[4][FIELD_MAX], ms_workload *w,
                        ms_error *err)
{
    for (int i = 0; i < w->n; i++)
        if (!strcmp(w->tasks[i].name, f[0]))
            return ms_error_set(err, MS_EINVAL, "%s: line %d: task '%.60s' appears twice", source,
                                lineno, f[0]);
    /* Relative dirs are taken from the list's own folder. */
    const char *slash = strrchr(source, '/');
    int prefix = f[1][0] != '/' && slash ? (int)(slash - source + 1) : 0;
    char cwd[2 * FIELD_MAX], command[FIELD_MAX + 2];
    snprintf(cwd, sizeof cwd, "%.*s%s", prefix, source, f[1]);
    snprintf(command, sizeof command, "%s%s", strchr(f[2], '/') ? "" : "./", f[2]);
    double none[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        none[s] = INFINITY;
    return ms_workload_add(w, f[0], none, command, cwd, err);
}

static int parse_far_list(const char *text, size_t len, const char *source, ms_workload *w,
                          ms_error *err)
{
    int lineno = 0;
    for (size_t pos = 0; pos < len;) {
        const char *nl = memchr(text + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - text) : len;
        lineno++;
        char f[4][FIELD_MAX];
        int n = split(text + pos, end - pos, f);
        pos = end + 1;
        if (n == 0)
            continue;
        if (n != 3)
            return ms_error_set(
                err, MS_EINVAL,
                n < 0 ? "%s: line %d: a field is longer than %d characters"
                      : "%s: line %d: expected 'name dir script' (3 fields), found %d",
                source, lineno, n < 0 ? FIELD_MAX - 1 : n);
        int rc = add_far_task(source, lineno, f, w, err);
        if (rc)
            return rc;
    }
    if (w->n == 0)
        return ms_error_set(err, MS_EINVAL, "%s: no tasks", source);
    return MS_OK;
}

int ms_profile_parse_tasks(const char *text, size_t len, const char *source, ms_workload **out,
                           ms_error *err)
{
    *out = NULL;
    size_t skip = 0;
    while (skip < len && strchr(" \t\r\n", text[skip]) && text[skip])
        skip++;
    bool json = skip < len && text[skip] == '{';
    bool csv = len - skip >= 5 && !strncasecmp(text + skip, "name,", 5);
    int rc;
    if (json || csv) {
        rc = json ? ms_workload_parse_json(text, len, source, NULL, out, err)
                  : ms_workload_parse_csv(text, len, source, NULL, out, err);
        for (int i = 0; rc == MS_OK && i < (*out)->n; i++)
            if (!(*out)->tasks[i].command)
                rc = ms_error_set(err, MS_EINVAL, "%s: task %s has no command", source,
                                  (*out)->tasks[i].name);
    } else {
        *out = ms_workload_new();
        rc = *out ? parse_far_list(text, len, source, *out, err)
                  : ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    if (rc) {
        ms_workload_free(*out);
        *out = NULL;
    }
    return rc;
}

int ms_profile_read_tasks(const char *path, ms_workload **out, ms_error *err)
{
    *out = NULL;
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    rc = ms_profile_parse_tasks(text, len, path, out, err);
    free(text);
    return rc;
}
