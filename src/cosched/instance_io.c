/* instance_io.c: reading co-scheduling instances from JSON or CSV and writing them as JSON. */
#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"
#include "migsched/io.h"

#define MS_COSCHED_MAX_TASKS 100000

static int parse_json_root(json_t *root, int catalogue, ms_cosched_instance **out, ms_error *err)
{
    if (!json_is_object(root))
        return ms_error_set(err, MS_EINVAL, "top level must be an object");
    json_t *tasks = json_object_get(root, "tasks"), *speed = json_object_get(root, "speed");
    if (!json_is_array(tasks) || json_array_size(tasks) == 0)
        return ms_error_set(err, MS_EINVAL, "field 'tasks' must be a non-empty array");
    if (json_array_size(tasks) > MS_COSCHED_MAX_TASKS)
        return ms_error_set(err, MS_EINVAL, "field 'tasks': more than %d tasks",
                            MS_COSCHED_MAX_TASKS);
    int n = (int)json_array_size(tasks);
    if (!json_is_array(speed) || json_array_size(speed) != (size_t)n)
        return ms_error_set(err, MS_EINVAL,
                            "field 'speed' must be an array of %d rows (one per task)", n);
    ms_cosched_instance *in = ms_cosched_instance_new(n);
    if (!in)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    int rc = MS_OK;
    for (int i = 0; i < n && !rc; i++) {
        json_t *t = json_array_get(tasks, (size_t)i);
        const char *name = json_string_value(json_object_get(t, "name"));
        json_t *p = json_object_get(t, "p");
        if (!json_is_object(t))
            rc = ms_error_set(err, MS_EINVAL, "tasks[%d]: must be an object", i);
        else if (!name || !*name)
            rc = ms_error_set(err, MS_EINVAL, "tasks[%d]: field 'name' must be a non-empty string",
                              i);
        else if (!json_is_number(p))
            rc = ms_error_set(err, MS_EINVAL, "tasks[%d]: field 'p' must be a number", i);
        else if (!(in->names[i] = strdup(name)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        else
            in->p[i] = json_number_value(p);
        json_t *row = json_array_get(speed, (size_t)i);
        if (!rc && (!json_is_array(row) || json_array_size(row) != (size_t)n))
            rc = ms_error_set(err, MS_EINVAL,
                              "speed[%d]: must be an array of %d numbers (square matrix)", i, n);
        for (int j = 0; j < n && !rc; j++) {
            json_t *v = json_array_get(row, (size_t)j);
            if (!json_is_number(v))
                rc = ms_error_set(err, MS_EINVAL, "speed[%d][%d]: must be a number", i, j);
            else
                in->speed[(size_t)i * (size_t)n + (size_t)j] = json_number_value(v);
        }
    }
    if (!rc)
        rc = ms_cosched_instance_check(in, catalogue, err);
    if (rc) {
        ms_cosched_instance_free(in);
        return rc;
    }
    *out = in;
    return MS_OK;
}

int ms_cosched_parse_json(const char *text, const char *where, int catalogue,
                          ms_cosched_instance **out, ms_error *err)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s: line %d: invalid JSON: %s", where, je.line,
                            je.text);
    int rc = parse_json_root(root, catalogue, out, err);
    json_decref(root);
    if (rc)
        ms_error_prefix(err, "%s", where);
    return rc;
}

/* CSV: split one line into comma-separated fields (no quoting: names hold no commas). */
static int split_fields(char *line, char ***fields, int *nf)
{
    int cap = 16, k = 0;
    char **f = malloc(sizeof *f * (size_t)cap);
    if (!f)
        return MS_ENOMEM;
    for (char *s = line;;) {
        if (k == cap) {
            char **nfp = realloc(f, sizeof *f * (size_t)(cap *= 2));
            if (!nfp) {
                free(f);
                return MS_ENOMEM;
            }
            f = nfp;
        }
        char *c = strchr(s, ',');
        if (c)
            *c = '\0';
        while (isspace((unsigned char)*s))
            s++;
        char *e = s + strlen(s);
        while (e > s && isspace((unsigned char)e[-1]))
            *--e = '\0';
        f[k++] = s;
        if (!c)
            break;
        s = c + 1;
    }
    *fields = f;
    *nf = k;
    return MS_OK;
}

static int parse_number(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return *s && !*end && !errno && isfinite(*v);
}

/* Next non-empty, non-comment line; *lineno tracks the 1-based number. */
static char *next_line(char **cursor, int *lineno)
{
    while (**cursor) {
        char *line = *cursor, *nl = strchr(line, '\n');
        *cursor = nl ? nl + 1 : line + strlen(line);
        if (nl)
            *nl = '\0';
        (*lineno)++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\r')
            line[len - 1] = '\0';
        const char *t = line;
        while (isspace((unsigned char)*t))
            t++;
        if (*t && *t != '#')
            return line;
    }
    return NULL;
}

static int parse_csv_rows(char *cursor, int lineno, char **head, int n, int catalogue,
                          ms_cosched_instance *in, ms_error *err)
{
    for (int i = 0; i < n; i++) {
        char *line = next_line(&cursor, &lineno);
        if (!line)
            return ms_error_set(err, MS_EINVAL,
                                "line %d: missing row for task '%s' (%d rows expected)", lineno + 1,
                                head[i + 2], n);
        char **f;
        int nf;
        if (split_fields(line, &f, &nf))
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        int rc = MS_OK;
        if (nf != n + 2)
            rc = ms_error_set(err, MS_EINVAL,
                              "line %d: %d fields, expected %d (name, p, %d speeds)", lineno, nf,
                              n + 2, n);
        else if (strcmp(f[0], head[i + 2]))
            rc = ms_error_set(err, MS_EINVAL, "line %d: row name '%s' does not match column '%s'",
                              lineno, f[0], head[i + 2]);
        else if (!parse_number(f[1], &in->p[i]))
            rc = ms_error_set(err, MS_EINVAL, "line %d: field 'p': '%s' is not a number", lineno,
                              f[1]);
        for (int j = 0; j < n && !rc; j++)
            if (!parse_number(f[j + 2], &in->speed[(size_t)i * (size_t)n + (size_t)j]))
                rc = ms_error_set(err, MS_EINVAL, "line %d: column '%s': '%s' is not a number",
                                  lineno, head[j + 2], f[j + 2]);
        if (!rc && !(in->names[i] = strdup(f[0])))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        free(f);
        if (rc)
            return rc;
    }
    if (next_line(&cursor, &lineno))
        return ms_error_set(err, MS_EINVAL, "line %d: extra row after the %d tasks", lineno, n);
    return ms_cosched_instance_check(in, catalogue, err);
}

int ms_cosched_parse_csv(const char *text, const char *where, int catalogue,
                         ms_cosched_instance **out, ms_error *err)
{
    *out = NULL;
    char *copy = strdup(text), *cursor = copy, **head = NULL;
    int lineno = 0, nh = 0, rc;
    ms_cosched_instance *in = NULL;
    if (!copy)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    char *line = next_line(&cursor, &lineno);
    if (!line)
        rc = ms_error_set(err, MS_EINVAL, "empty file (expected header 'name,p,<task names>')");
    else if (split_fields(line, &head, &nh))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else if (nh < 3 || strcmp(head[0], "name") || strcmp(head[1], "p"))
        rc = ms_error_set(err, MS_EINVAL, "line %d: header must be 'name,p,<task names>'", lineno);
    else if (nh - 2 > MS_COSCHED_MAX_TASKS)
        rc = ms_error_set(err, MS_EINVAL, "line %d: more than %d tasks", lineno,
                          MS_COSCHED_MAX_TASKS);
    else if (!(in = ms_cosched_instance_new(nh - 2)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else
        rc = parse_csv_rows(cursor, lineno, head, nh - 2, catalogue, in, err);
    free(head);
    free(copy);
    if (rc) {
        ms_cosched_instance_free(in);
        ms_error_prefix(err, "%s", where);
        return rc;
    }
    *out = in;
    return MS_OK;
}

int ms_cosched_read(const char *path, int catalogue, ms_cosched_instance **out, ms_error *err)
{
    *out = NULL;
    char *buf;
    size_t len;
    int rc = ms_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    if (strlen(buf) != len) {
        free(buf);
        return ms_error_set(err, MS_EINVAL, "%s: contains a NUL byte", path);
    }
    const char *t = buf;
    while (isspace((unsigned char)*t))
        t++;
    rc = *t == '{' ? ms_cosched_parse_json(buf, path, catalogue, out, err)
                   : ms_cosched_parse_csv(buf, path, catalogue, out, err);
    free(buf);
    return rc;
}

int ms_cosched_write_json(const ms_cosched_instance *in, const char *path, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    fprintf(o.f, "{\n  \"tasks\": [");
    for (int i = 0; i < in->n; i++) {
        json_t *js = json_string(in->names[i]); /* valid UTF-8: checked when loaded */
        char *name = js ? json_dumps(js, JSON_ENCODE_ANY) : NULL;
        fprintf(o.f, "%s\n    {\"name\": %s, \"p\": %.17g}", i ? "," : "", name ? name : "\"?\"",
                in->p[i]);
        free(name);
        json_decref(js);
    }
    fprintf(o.f, "\n  ],\n  \"speed\": [");
    for (int i = 0; i < in->n; i++) {
        fprintf(o.f, "%s\n    [", i ? "," : "");
        for (int j = 0; j < in->n; j++)
            fprintf(o.f, "%s%.17g", j ? ", " : "", ms_cosched_s(in, i, j));
        fprintf(o.f, "]");
    }
    fprintf(o.f, "\n  ]\n}\n");
    return ms_output_commit(&o, err);
}
