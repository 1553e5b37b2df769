/* workload_csv.c: workload CSV reader and writer (header name,<sizes...>[,command][,cwd]). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "csv_lexer.h"
#include "migsched/io.h"
#include "migsched/workload.h"
#include "workload_internal.h"

/* What each CSV column holds: a compute size (> 0), the name, command or cwd. */
enum { COL_NAME = 0, COL_COMMAND = -1, COL_CWD = -2 };

typedef struct csv_header {
    int ncols;
    int col[1 + MS_MAX_SLICES + 2];
    int command_col, cwd_col;   /* -1 when absent */
} csv_header;

static int header_error(const csv_lexer *lx, const csv_record *rec, const ms_gpu_model *gpu,
                        ms_error *err, const char *problem, int field)
{
    char sizes[64] = "1,2,4", shown[48];
    if (gpu)
        wl_sizes_text(gpu, sizes, sizeof sizes);
    const char *what = field < rec->n ? wl_quote(csv_field(rec, field), shown, sizeof shown) : "";
    return ms_error_set(err, MS_EINVAL,
                        "%s:%ld: header column %d ('%s'): %s (expected a header like "
                        "'name,%s' with optional trailing 'command,cwd')",
                        lx->source, rec->line, field + 1, what, problem, sizes);
}

static int parse_size_column(const char *text, int *size)
{
    if (!*text || strlen(text) > 2 || strspn(text, "0123456789") != strlen(text))
        return -1;
    *size = atoi(text);
    return 0;
}

static int parse_header(const csv_lexer *lx, const csv_record *rec, const ms_gpu_model *gpu,
                        csv_header *h, ms_error *err)
{
    memset(h, 0, sizeof *h);
    h->command_col = h->cwd_col = -1;
    if (strcasecmp(csv_field(rec, 0), "name"))
        return header_error(lx, rec, gpu, err, "the first column must be 'name'", 0);
    if ((size_t)rec->n > sizeof h->col / sizeof h->col[0])
        return header_error(lx, rec, gpu, err, "too many columns", rec->n - 1);
    bool seen[MS_MAX_SLICES + 1] = {false};
    int nsizes = 0;
    h->ncols = rec->n;
    for (int i = 1; i < rec->n; i++) {
        const char *f = csv_field(rec, i);
        int size;
        if (!strcasecmp(f, "command") || !strcasecmp(f, "cwd")) {
            int *slot = !strcasecmp(f, "command") ? &h->command_col : &h->cwd_col;
            if (*slot >= 0)
                return header_error(lx, rec, gpu, err, "column appears twice", i);
            *slot = i;
            h->col[i] = slot == &h->command_col ? COL_COMMAND : COL_CWD;
            continue;
        }
        if (parse_size_column(f, &size))
            return header_error(lx, rec, gpu, err,
                                "unknown column (not a compute size, 'command' or 'cwd')", i);
        if (h->command_col >= 0 || h->cwd_col >= 0)
            return header_error(lx, rec, gpu, err,
                                "size columns must come before 'command' and 'cwd'", i);
        if (size < 1 || size > MS_MAX_SLICES)
            return header_error(lx, rec, gpu, err, "compute size out of range 1..8", i);
        if (gpu && ms_gpu_size_index(gpu, size) < 0) {
            char problem[96];
            snprintf(problem, sizeof problem, "%d is not a compute size of %s", size, gpu->name);
            return header_error(lx, rec, gpu, err, problem, i);
        }
        if (seen[size])
            return header_error(lx, rec, gpu, err, "size column appears twice", i);
        seen[size] = true;
        h->col[i] = size;
        nsizes++;
    }
    if (!nsizes)
        return header_error(lx, rec, gpu, err, "no compute size columns", rec->n - 1);
    return MS_OK;
}

/* Fills time[] and the optional strings of one data row and adds the task to w. */
static int parse_row(const csv_lexer *lx, const csv_record *rec, const csv_header *h,
                     const ms_gpu_model *gpu, ms_workload *w, ms_error *err)
{
    char shown[48], shown2[48];
    if (rec->n != h->ncols)
        return ms_error_set(err, MS_EINVAL, "%s:%ld: %d fields but the header has %d columns",
                            lx->source, rec->line, rec->n, h->ncols);
    const char *name = csv_field(rec, 0);
    if (!*name)
        return ms_error_set(err, MS_EINVAL, "%s:%ld: column 'name': empty task name",
                            lx->source, rec->line);
    double time[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = INFINITY;
    for (int i = 1; i < rec->n; i++) {
        const char *why;
        if (h->col[i] <= 0)
            continue;
        if (wl_parse_time(csv_field(rec, i), &time[h->col[i]], &why))
            return ms_error_set(err, MS_EINVAL, "%s:%ld: column '%d' (task '%s'): time '%s' %s",
                                lx->source, rec->line, h->col[i],
                                wl_quote(name, shown, sizeof shown),
                                wl_quote(csv_field(rec, i), shown2, sizeof shown2), why);
    }
    if (!wl_task_fits(time, gpu))
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: task '%s' has no finite time: it cannot run on any "
                            "instance size%s%s",
                            lx->source, rec->line, wl_quote(name, shown, sizeof shown),
                            gpu ? " of " : "", gpu ? gpu->name : "");
    const char *command = h->command_col >= 0 ? csv_field(rec, h->command_col) : "";
    const char *cwd = h->cwd_col >= 0 ? csv_field(rec, h->cwd_col) : "";
    return ms_workload_add(w, name, time, *command ? command : NULL, *cwd ? cwd : NULL, err);
}

static int parse_rows(csv_lexer *lx, csv_record *rec, const csv_header *h,
                      const ms_gpu_model *gpu, ms_workload *w, ms_error *err)
{
    wl_name_set names;
    wl_name_set_init(&names);
    size_t lines = 0; /* at most one task per line left */
    for (const char *c = lx->p; (c = memchr(c, '\n', (size_t)(lx->end - c))); c++)
        lines++;
    int rc = wl_name_set_reserve(&names, lines + 1)
                 ? ms_error_set(err, MS_ENOMEM, "%s: out of memory", lx->source)
                 : MS_OK;
    bool got;
    while (!rc && !(rc = csv_next_record(lx, rec, &got, err)) && got) {
        if (rec->n > 0) /* the slot comes in while the times parse */
            wl_name_set_prefetch(&names, csv_field(rec, 0));
        if ((rc = parse_row(lx, rec, h, gpu, w, err)))
            break;
        long first;
        int dup = wl_name_set_add(&names, w->tasks[w->n - 1].name, rec->line, &first);
        if (dup < 0) {
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", lx->source);
            break;
        }
        if (dup) {
            char shown[48];
            rc = ms_error_set(err, MS_EINVAL, "%s:%ld: duplicate task name '%s' (first on line %ld)",
                              lx->source, rec->line,
                              wl_quote(w->tasks[w->n - 1].name, shown, sizeof shown), first);
            break;
        }
    }
    wl_name_set_free(&names);
    if (!rc && w->n == 0)
        rc = ms_error_set(err, MS_EINVAL, "%s:%ld: no tasks after the header", lx->source,
                          lx->line);
    return rc;
}

int ms_workload_parse_csv(const char *text, size_t len, const char *source,
                          const ms_gpu_model *gpu, ms_workload **out, ms_error *err)
{
    csv_lexer lx;
    csv_record rec = {0};
    csv_header h;
    bool got;
    csv_lexer_init(&lx, text, len, source ? source : "<csv>");
    int rc = csv_next_record(&lx, &rec, &got, err);
    if (!rc && !got)
        rc = ms_error_set(err, MS_EINVAL, "%s: empty file (expected a header like 'name,1,2,4')",
                          lx.source);
    if (!rc)
        rc = parse_header(&lx, &rec, gpu, &h, err);
    ms_workload *w = NULL;
    if (!rc && !(w = ms_workload_new()))
        rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", lx.source);
    if (!rc)
        rc = parse_rows(&lx, &rec, &h, gpu, w, err);
    csv_record_free(&rec);
    if (rc) {
        ms_workload_free(w);
        return rc;
    }
    *out = w;
    return MS_OK;
}

/* Quotes a field when the reader would otherwise split, trim or misread it. */
static void write_field(FILE *f, const char *s)
{
    bool quote = !*s || strpbrk(s, ",\"\r\n") || s[0] == ' ' || s[0] == '\t' ||
                 s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == '\t';
    if (quote)
        ms_csv_write_quoted(f, s);
    else
        fputs(s, f);
}

int ms_workload_write_csv(const ms_workload *w, const ms_gpu_model *gpu, FILE *f)
{
    int size[MS_MAX_SLICES], nsizes = wl_columns(w, gpu, size);
    bool command = false, cwd = false;
    for (int i = 0; i < w->n; i++) {
        command |= w->tasks[i].command != NULL;
        cwd |= w->tasks[i].cwd != NULL;
    }
    command |= cwd;  /* cwd is only ever after command */
    fputs("name", f);
    for (int k = 0; k < nsizes; k++)
        fprintf(f, ",%d", size[k]);
    fputs(command ? (cwd ? ",command,cwd\n" : ",command\n") : "\n", f);
    for (int i = 0; i < w->n; i++) {
        const ms_task *t = &w->tasks[i];
        write_field(f, t->name);
        for (int k = 0; k < nsizes; k++) {
            char num[32];
            wl_format_double(t->time[size[k]], num, sizeof num);
            fprintf(f, ",%s", num);
        }
        if (command) {
            fputc(',', f);
            if (t->command)
                write_field(f, t->command);
        }
        if (cwd) {
            fputc(',', f);
            if (t->cwd)
                write_field(f, t->cwd);
        }
        fputc('\n', f);
    }
    return ferror(f) ? MS_EIO : MS_OK;
}
