/* corun_table.c: the measured co-run table (docs/hier.md): CSV "setup,jobs,times", one row
 * per job set and setup, jobs and times in slot order separated by ';'. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hier_internal.h"
#include "migsched/csv_lexer.h"
#include "migsched/io.h"

/* Splits s at ';' into at most max trimmed parts (in place); returns the count, or max + 1. */
static int split(char *s, char **parts, int max)
{
    int n = 0;
    for (char *tok = s;; n++) {
        char *semi = strchr(tok, ';');
        if (semi)
            *semi = 0;
        while (isspace((unsigned char)*tok))
            tok++;
        char *e = tok + strlen(tok);
        while (e > tok && isspace((unsigned char)e[-1]))
            *--e = 0;
        if (n < max)
            parts[n] = tok;
        if (!semi)
            return n + 1 > max ? max + 1 : n + 1;
        tok = semi + 1;
    }
}

static int parse_row(const csv_record *rec, const char *path, hier_corun_row *row, ms_error *err)
{
    ms_hier_setup s;
    const char *id = csv_field(rec, 0);
    if (ms_hier_setup_by_id(id, &s) || s.c < 2)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field 'setup': '%s' is not a setup id of 2 to %d jobs "
                            "(docs/hier.md lists them)",
                            path, rec->line, id, MS_HIER_MAX_C);
    char jobs[MS_HIER_MAX_C * MS_HIER_NAME_LEN + 64], times[512];
    char *names[MS_HIER_MAX_C], *tv[MS_HIER_MAX_C];
    if (strlen(csv_field(rec, 1)) >= sizeof jobs || strlen(csv_field(rec, 2)) >= sizeof times)
        return ms_error_set(err, MS_EINVAL, "%s:%ld: field '%s' is too long", path, rec->line,
                            strlen(csv_field(rec, 1)) >= sizeof jobs ? "jobs" : "times");
    snprintf(jobs, sizeof jobs, "%s", csv_field(rec, 1));
    snprintf(times, sizeof times, "%s", csv_field(rec, 2));
    int nj = split(jobs, names, MS_HIER_MAX_C), nt = split(times, tv, MS_HIER_MAX_C);
    if (nj != s.c)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field 'jobs': %s%d job names, setup %s has %d slots", path,
                            rec->line, nj > MS_HIER_MAX_C ? "more than " : "",
                            nj > MS_HIER_MAX_C ? MS_HIER_MAX_C : nj, id, s.c);
    if (nt != s.c)
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field 'times': %s%d times, setup %s has %d slots", path,
                            rec->line, nt > MS_HIER_MAX_C ? "more than " : "",
                            nt > MS_HIER_MAX_C ? MS_HIER_MAX_C : nt, id, s.c);
    for (int k = 0; k < s.c; k++) {
        if (!*names[k] || strlen(names[k]) >= MS_HIER_NAME_LEN || strchr(names[k], '|'))
            return ms_error_set(err, MS_EINVAL,
                                "%s:%ld: field 'jobs': job %d ('%s') must be a name of 1 to %d "
                                "characters without '|'",
                                path, rec->line, k + 1, names[k], MS_HIER_NAME_LEN - 1);
        for (int i = 0; i < k; i++)
            if (!strcmp(names[i], names[k]))
                return ms_error_set(err, MS_EINVAL, "%s:%ld: field 'jobs': '%s' appears twice",
                                    path, rec->line, names[k]);
        char *end;
        double t = strtod(tv[k], &end);
        if (!*tv[k] || *end || t <= 0 || ms_time_check(t))
            return ms_error_set(err, MS_EINVAL,
                                "%s:%ld: field 'times': time %d ('%s') must be a "
                                "positive number of seconds, at most %g",
                                path, rec->line, k + 1, tv[k], MS_TIME_MAX);
        row->times[k] = t;
    }
    hier_corun_key(s.id, (const char *const *)names, s.c, row->key, sizeof row->key);
    return MS_OK;
}

int ms_hier_corun_read(const char *path, const ms_hier_params *par, ms_hier_corun **out,
                       ms_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    ms_hier_corun *cr = ms_hier_corun_model(par);
    csv_lexer lx;
    csv_record rec = {0};
    bool got;
    if (!cr) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto done;
    }
    cr->measured = 1;
    csv_lexer_init(&lx, text, len, path);
    if ((rc = csv_next_record(&lx, &rec, &got, err)))
        goto done;
    if (!got || rec.n != 3 || strcasecmp(csv_field(&rec, 0), "setup") ||
        strcasecmp(csv_field(&rec, 1), "jobs") || strcasecmp(csv_field(&rec, 2), "times")) {
        rc = ms_error_set(err, MS_EINVAL, "%s:%ld: header must be 'setup,jobs,times'", path,
                          got ? rec.line : 1L);
        goto done;
    }
    while (!(rc = csv_next_record(&lx, &rec, &got, err)) && got) {
        if (rec.n != 3) {
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: %d fields, expected 3 (setup,jobs,times)",
                              path, rec.line, rec.n);
            break;
        }
        hier_corun_row *nr = realloc(cr->rows, (cr->n + 1) * sizeof *nr);
        if (!nr) {
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            break;
        }
        cr->rows = nr;
        if ((rc = parse_row(&rec, path, &cr->rows[cr->n], err)))
            break;
        cr->rows[cr->n++].line = rec.line;
    }
    if (rc)
        goto done;
    if (cr->n == 0) {
        rc = ms_error_set(err, MS_EINVAL, "%s: no rows after the header", path);
        goto done;
    }
    /* Rows are keyed; the same job set and setup twice would be ambiguous. */
    hier_corun_sort(cr);
    for (size_t i = 1; i < cr->n && !rc; i++)
        if (!strcmp(cr->rows[i].key, cr->rows[i - 1].key)) {
            long a = cr->rows[i - 1].line, b = cr->rows[i].line;
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: the same setup and jobs as line %ld", path,
                              a > b ? a : b, a > b ? b : a);
        }
done:
    csv_record_free(&rec);
    free(text);
    if (rc)
        ms_hier_corun_free(cr);
    else
        *out = cr;
    return rc;
}
