/* window_io.c: window and catalogue files (docs/hier.md): CSV with a `name` column and
 * optionally the profile columns, or JSON {"jobs": [...]}. Nothing is half-loaded. */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hier_internal.h"
#include "migsched/csv_lexer.h"
#include "migsched/io.h"

/* Profile fields a file may give, besides the name and the Table III counters. */
enum { F_SOLO, F_SERIAL, F_MEM, F_CACHE, F_T1GPC, F_UNSEEN, NPARAM };
static const char *const PARAM_NAMES[NPARAM] = {"solo",  "serial", "mem",
                                                "cache", "t_1gpc", "unseen"};
#define NFIELDS (NPARAM + MS_HIER_NCOUNTERS)

static const char *field_name(int f)
{
    return f < NPARAM ? PARAM_NAMES[f] : ms_hier_counter_names[f - NPARAM];
}

static int field_by_name(const char *name)
{
    int f = ms_name_index_any_case(PARAM_NAMES, NPARAM, name);
    if (f >= 0)
        return f;
    f = ms_name_index_any_case(ms_hier_counter_names, MS_HIER_NCOUNTERS, name);
    return f >= 0 ? NPARAM + f : -1;
}

/* One job as read: which fields it gave, and their values. */
typedef struct job_in {
    char name[MS_HIER_NAME_LEN];
    char *command; /* NULL if none */
    long line;     /* CSV line, 0 for JSON */
    int given[NFIELDS];
    double v[NFIELDS];
} job_in;

/* Builds the profile of one job: a catalogue copy when it gives no field, else its own
 * (solo, serial and mem required; counters not given are derived from the parameters). */
static int build_job(const job_in *in, const ms_hier_catalog *cat, const ms_hier_params *par,
                     ms_hier_profile *out, ms_error *err)
{
    int any = 0;
    for (int f = 0; f < NFIELDS; f++)
        any |= in->given[f];
    if (!any) {
        const ms_hier_profile *p = cat ? ms_hier_catalog_find(cat, in->name) : NULL;
        if (!p)
            return ms_error_set(err, MS_EINVAL, "job '%s': %s", in->name,
                                cat ? "unknown job (not in the catalogue) and no profile given"
                                    : "a catalogue row needs its profile (solo, serial, mem)");
        *out = *p;
        return MS_OK;
    }
    for (int f = F_SOLO; f <= F_MEM; f++)
        if (!in->given[f])
            return ms_error_set(
                err, MS_EINVAL,
                "job '%s': field '%s' missing (a job with a profile needs solo, serial and mem)",
                in->name, field_name(f));
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", in->name);
    out->solo = in->v[F_SOLO];
    out->serial = in->v[F_SERIAL];
    out->mem = in->v[F_MEM];
    out->cache = in->given[F_CACHE] ? in->v[F_CACHE] : 1.0;
    out->t_1gpc = in->given[F_T1GPC] ? in->v[F_T1GPC] : 0;
    if (in->given[F_UNSEEN] && in->v[F_UNSEEN] != 0 && in->v[F_UNSEEN] != 1)
        return ms_error_set(err, MS_EINVAL, "job '%s': field 'unseen' must be 0 or 1", in->name);
    out->unseen = in->given[F_UNSEEN] && in->v[F_UNSEEN] == 1;
    hier_model_counters(out, 0, 0);
    for (int c = 0; c < MS_HIER_NCOUNTERS; c++)
        if (in->given[NPARAM + c])
            out->counters[c] = in->v[NPARAM + c];
    int rc = ms_hier_profile_check(out, err);
    if (!rc)
        out->cls = ms_hier_classify(out, par);
    return rc;
}

static int set_name(job_in *j, const char *name, ms_error *err)
{
    if (!*name)
        return ms_error_set(err, MS_EINVAL, "field 'name' is empty");
    if (strlen(name) >= sizeof j->name)
        return ms_error_set(err, MS_EINVAL, "field 'name' is longer than %d characters",
                            MS_HIER_NAME_LEN - 1);
    if (strpbrk(name, ";|"))
        return ms_error_set(
            err, MS_EINVAL,
            "field 'name' ('%s') must not hold ';' or '|' (co-run table separators)", name);
    snprintf(j->name, sizeof j->name, "%s", name);
    return MS_OK;
}

static int parse_csv(const char *text, size_t len, const char *path, job_in **jobs, size_t *n,
                     ms_error *err)
{
    csv_lexer lx;
    csv_record rec = {0};
    bool got;
    int col[NFIELDS + 2], ncol = 0, cmd_col = -1, rc;
    csv_lexer_init(&lx, text, len, path);
    *jobs = NULL;
    *n = 0;
    if ((rc = csv_next_record(&lx, &rec, &got, err)))
        goto done;
    if (!got) {
        rc = ms_error_set(err, MS_EINVAL, "%s: empty file (expected a header starting with 'name')",
                          path);
        goto done;
    }
    ncol = rec.n;
    if (ncol > NFIELDS + 2 || strcasecmp(csv_field(&rec, 0), "name")) {
        rc = ms_error_set(err, MS_EINVAL, "%s:%ld: header: the first column must be 'name'%s", path,
                          rec.line, ncol > NFIELDS + 2 ? " and columns may not repeat" : "");
        goto done;
    }
    for (int i = 1; i < ncol; i++) {
        if (!strcasecmp(csv_field(&rec, i), "command") && cmd_col < 0) {
            cmd_col = i;
            col[i] = -1;
            continue;
        }
        int f = field_by_name(csv_field(&rec, i));
        for (int k = 1; k < i && f >= 0; k++)
            if (col[k] == f)
                f = -2;
        if (f < 0) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: header column %d ('%s'): %s", path, rec.line,
                              i + 1, csv_field(&rec, i),
                              f == -2 ? "column appears twice"
                                      : "unknown column (see docs/hier.md)");
            goto done;
        }
        col[i] = f;
    }
    for (;;) {
        if ((rc = csv_next_record(&lx, &rec, &got, err)) || !got)
            break;
        if (rec.n != ncol) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: %d fields, the header has %d", path,
                              rec.line, rec.n, ncol);
            break;
        }
        job_in *nj = realloc(*jobs, (*n + 1) * sizeof *nj);
        if (!nj) {
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        *jobs = nj;
        job_in *j = &nj[(*n)++];
        memset(j, 0, sizeof *j);
        j->line = rec.line;
        if ((rc = set_name(j, csv_field(&rec, 0), err))) {
            ms_error_prefix(err, "%s:%ld", path, rec.line);
            break;
        }
        if (cmd_col > 0 && *csv_field(&rec, cmd_col) &&
            !(j->command = strdup(csv_field(&rec, cmd_col)))) {
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        for (int i = 1; i < ncol && !rc; i++) {
            const char *t = csv_field(&rec, i);
            if (!*t || i == cmd_col)
                continue;
            if (hier_parse_number(t, &j->v[col[i]]))
                rc = ms_error_set(err, MS_EINVAL, "%s:%ld: field '%s' ('%s') is not a number", path,
                                  rec.line, field_name(col[i]), t);
            j->given[col[i]] = 1;
        }
        if (rc)
            break;
    }
done:
    csv_record_free(&rec);
    return rc;
}

static int parse_json(const char *text, const char *path, job_in **jobs, size_t *n, ms_error *err)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    *jobs = NULL;
    *n = 0;
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s: line %d: invalid JSON: %s", path, je.line,
                            je.text);
    json_t *arr = json_object_get(root, "jobs");
    int rc = MS_OK;
    if (!json_is_object(root) || !json_is_array(arr)) {
        rc = ms_error_set(err, MS_EINVAL, "%s: field 'jobs' must be an array", path);
        goto done;
    }
    *jobs = calloc(json_array_size(arr) + 1, sizeof **jobs);
    if (!*jobs) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < json_array_size(arr) && !rc; i++) {
        json_t *e = json_array_get(arr, i);
        job_in *j = &(*jobs)[(*n)++];
        const char *name = json_is_string(e) ? json_string_value(e)
                                             : json_string_value(json_object_get(e, "name"));
        if (!name) {
            rc = ms_error_set(err, MS_EINVAL,
                              "%s: jobs[%zu]: must be a name or an object with a string 'name'",
                              path, i);
            break;
        }
        if ((rc = set_name(j, name, err))) {
            ms_error_prefix(err, "%s: jobs[%zu]", path, i);
            break;
        }
        if (json_is_string(e))
            continue;
        const char *key;
        json_t *v;
        json_object_foreach(e, key, v)
        {
            if (!strcmp(key, "name"))
                continue;
            if (!strcmp(key, "command")) {
                if (!json_is_string(v) || !*json_string_value(v)) {
                    rc = ms_error_set(err, MS_EINVAL,
                                      "%s: jobs[%zu].command: must be a non-empty string", path, i);
                    break;
                }
                if (!(j->command = strdup(json_string_value(v)))) {
                    rc = ms_error_set(err, MS_ENOMEM, "out of memory");
                    break;
                }
                continue;
            }
            int f = field_by_name(key);
            if (f < 0) {
                rc = ms_error_set(err, MS_EINVAL,
                                  "%s: jobs[%zu].%s: unknown field (see docs/hier.md)", path, i,
                                  key);
                break;
            }
            if (!json_is_number(v)) {
                rc = ms_error_set(err, MS_EINVAL, "%s: jobs[%zu].%s: must be a number", path, i,
                                  key);
                break;
            }
            j->v[f] = json_number_value(v);
            j->given[f] = 1;
        }
    }
done:
    json_decref(root);
    return rc; /* on an error the caller frees the jobs read so far */
}

/* Reads the jobs of a file and builds their profiles (catalogue lookups when cat != NULL). */
static void free_jobs(job_in *jobs, size_t n)
{
    for (size_t i = 0; jobs && i < n; i++)
        free(jobs[i].command);
    free(jobs);
}

static int read_jobs(const char *path, const ms_hier_catalog *cat, ms_hier_profile **out,
                     char ***commands, size_t *n, ms_error *err)
{
    char *text;
    size_t len;
    job_in *jobs = NULL;
    *out = NULL;
    *commands = NULL;
    *n = 0;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    rc = *p == '{' ? parse_json(text, path, &jobs, n, err)
                   : parse_csv(text, len, path, &jobs, n, err);
    free(text);
    if (!rc && *n == 0)
        rc = ms_error_set(err, MS_EINVAL, "%s: no jobs", path);
    if (!rc && *n > 4096)
        rc = ms_error_set(err, MS_EINVAL, "%s: %zu jobs, at most 4096", path, *n);
    if (!rc && !(*out = calloc(*n, sizeof **out)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_hier_params par = ms_hier_params_default();
    for (size_t i = 0; i < *n && !rc; i++)
        if ((rc = build_job(&jobs[i], cat, &par, &(*out)[i], err))) {
            if (jobs[i].line)
                ms_error_prefix(err, "%s:%ld", path, jobs[i].line);
            else
                ms_error_prefix(err, "%s: jobs[%zu]", path, i);
        }
    /* Commands move to the window when any job has one (a catalogue keeps none). */
    for (size_t i = 0; i < *n && !rc; i++)
        if (jobs[i].command && !*commands && !(*commands = calloc(*n, sizeof **commands)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (size_t i = 0; i < *n && !rc && *commands; i++) {
        (*commands)[i] = jobs[i].command;
        jobs[i].command = NULL;
    }
    free_jobs(jobs, *n);
    if (rc) {
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

int ms_hier_window_read(const char *path, const ms_hier_catalog *cat, ms_hier_window *out,
                        ms_error *err)
{
    memset(out, 0, sizeof *out);
    return read_jobs(path, cat, &out->jobs, &out->commands, &out->n, err);
}

int ms_hier_catalog_read(const char *path, ms_hier_catalog *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    char **commands = NULL;
    int rc = read_jobs(path, NULL, &out->jobs, &commands, &out->n, err);
    for (size_t i = 0; commands && i < out->n; i++)
        free(commands[i]);
    free(commands);
    /* A quadratic scan: catalogues hold tens of programs (read_jobs caps them at 4096). */
    for (size_t i = 0; i < out->n && !rc; i++)
        for (size_t k = 0; k < i; k++)
            if (!strcmp(out->jobs[i].name, out->jobs[k].name)) {
                rc = ms_error_set(err, MS_EINVAL, "%s: job %zu: name '%s' already used by job %zu",
                                  path, i + 1, out->jobs[i].name, k + 1);
                ms_hier_catalog_fini(out);
                break;
            }
    return rc;
}
