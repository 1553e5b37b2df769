/* workload_csv.c: workload CSV reader and writer (header name,<sizes...>[,command][,cwd]). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/csv_lexer.h"
#include "migsched/io.h"
#include "migsched/parallel.h"
#include "migsched/workload.h"
#include "workload_internal.h"

/* What each CSV column holds: a compute size (> 0), the name, command or cwd. */
enum { COL_NAME = 0, COL_COMMAND = -1, COL_CWD = -2 };

typedef struct csv_header {
    int ncols;
    int col[1 + MS_MAX_SLICES + 2];
    int command_col, cwd_col; /* -1 when absent */
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

/* Fills task t from one data row. */
static int parse_row(const csv_lexer *lx, const csv_record *rec, const csv_header *h,
                     const ms_gpu_model *gpu, ms_task *t, ms_error *err)
{
    char shown[48], shown2[48];
    if (rec->n != h->ncols)
        return ms_error_set(err, MS_EINVAL, "%s:%ld: %d fields but the header has %d columns",
                            lx->source, rec->line, rec->n, h->ncols);
    const char *name = csv_field(rec, 0);
    if (!*name)
        return ms_error_set(err, MS_EINVAL, "%s:%ld: column 'name': empty task name", lx->source,
                            rec->line);
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
    if (wl_task_init(t, name, time, *command ? command : NULL, *cwd ? cwd : NULL))
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", lx->source);
    return MS_OK;
}

/* A share of the data rows, parsed (on its own thread) into task[0..n) with each task's
 * line; task and line have room for every line of the share's text. */
typedef struct row_range {
    csv_lexer lx;
    const csv_header *h;
    const ms_gpu_model *gpu;
    ms_task *task;
    long *line;
    size_t n;
    int rc;
    ms_error err;
} row_range;

static void parse_range(int i, void *ctx)
{
    row_range *r = (row_range *)ctx + i;
    csv_record rec = {0};
    bool got;
    while (!(r->rc = csv_next_record(&r->lx, &rec, &got, &r->err)) && got) {
        if ((r->rc = parse_row(&r->lx, &rec, r->h, r->gpu, &r->task[r->n], &r->err)))
            break;
        r->line[r->n++] = rec.line;
    }
    csv_record_free(&rec);
}

static size_t count_lines(const char *p, const char *end)
{
    size_t lines = 0;
    for (; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        lines++;
    return lines;
}

/* Where the rows split in two for two threads: just after the line break nearest past the
 * middle, for rows of at least split_min bytes without quotes (a quoted field may hold a
 * line break); NULL to parse them in one piece. */
static const char *split_point(const csv_lexer *lx, size_t split_min)
{
    size_t len = (size_t)(lx->end - lx->p);
    if (len < split_min || len == 0 || memchr(lx->p, '"', len))
        return NULL;
    const char *nl = memchr(lx->p + len / 2, '\n', len - len / 2);
    return nl && nl + 1 < lx->end ? nl + 1 : NULL;
}

/* The first task, in input order, whose name an earlier one has. */
static int check_names(const ms_workload *w, const long *line, const char *source, ms_error *err)
{
    enum { AHEAD = 8 }; /* slots prefetched ahead: at 10^6 names each one is a cache miss */
    wl_name_set names;
    wl_name_set_init(&names);
    int rc = wl_name_set_reserve(&names, (size_t)w->n)
                 ? ms_error_set(err, MS_ENOMEM, "%s: out of memory", source)
                 : MS_OK;
    for (int i = 0; i < w->n && !rc; i++) {
        if (i + AHEAD < w->n)
            wl_name_set_prefetch(&names, w->tasks[i + AHEAD].name);
        long first;
        int dup = wl_name_set_add(&names, w->tasks[i].name, line[i], &first);
        char shown[48];
        if (dup < 0)
            rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", source);
        else if (dup)
            rc = ms_error_set(err, MS_EINVAL,
                              "%s:%ld: duplicate task name '%s' (first on line %ld)", source,
                              line[i], wl_quote(w->tasks[i].name, shown, sizeof shown), first);
    }
    wl_name_set_free(&names);
    return rc;
}

/* The rows into w: split in two and parsed on two threads when large (the same tasks and
 * the same first error: the rows after a bad one are dropped, and a duplicate name, which
 * lies before any bad row, comes first, as in one pass). */
static int parse_rows(csv_lexer *lx, const csv_header *h, const ms_gpu_model *gpu, size_t split_min,
                      ms_workload *w, ms_error *err)
{
    const char *mid = split_point(lx, split_min);
    size_t lines = count_lines(lx->p, lx->end) + 1; /* at most one task per line */
    long *line = malloc(lines * sizeof *line);
    if (!line || wl_reserve(w, lines)) {
        free(line);
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", lx->source);
    }
    row_range r[2] = {{.lx = *lx, .h = h, .gpu = gpu, .task = w->tasks, .line = line}};
    if (mid) {
        size_t before = count_lines(lx->p, mid);
        r[1] = r[0];
        r[0].lx.end = r[1].lx.p = mid;
        r[1].lx.line += (long)before;
        r[1].task += before;
        r[1].line += before;
    }
    ms_parallel_for(mid ? 2 : 1, 2, parse_range, r);
    w->n = (int)r[0].n;
    const row_range *last = &r[0];
    if (mid && r[0].rc) {
        wl_tasks_free(r[1].task, r[1].n);
    } else if (mid) { /* in input order: the second share's tasks close the first's gap */
        memmove(w->tasks + w->n, r[1].task, r[1].n * sizeof *w->tasks);
        memmove(line + w->n, r[1].line, r[1].n * sizeof *line);
        w->n += (int)r[1].n;
        last = &r[1];
    }
    lx->line = last->lx.line;
    int rc = check_names(w, line, lx->source, err);
    if (!rc && last->rc) {
        rc = last->rc;
        if (err)
            *err = last->err;
    }
    free(line);
    if (!rc && w->n == 0)
        rc = ms_error_set(err, MS_EINVAL, "%s:%ld: no tasks after the header", lx->source,
                          lx->line);
    return rc;
}

/* Rows from this many bytes on are parsed on two threads where two CPUs are online. */
#define SPLIT_MIN_BYTES (1 << 20)

int ms_workload_parse_csv(const char *text, size_t len, const char *source, const ms_gpu_model *gpu,
                          ms_workload **out, ms_error *err)
{
    *out = NULL;
    size_t split_min = ms_online_cpus() >= 2 ? SPLIT_MIN_BYTES : SIZE_MAX;
    return wl_parse_csv(text, len, source, gpu, split_min, out, err);
}

int wl_parse_csv(const char *text, size_t len, const char *source, const ms_gpu_model *gpu,
                 size_t split_min, ms_workload **out, ms_error *err)
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
        rc = parse_rows(&lx, &h, gpu, split_min, w, err);
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

int ms_workload_write_csv(const ms_workload *w, const ms_gpu_model *gpu, FILE *f, ms_error *err)
{
    int size[MS_MAX_SLICES], nsizes = wl_columns(w, gpu, size);
    bool command = false, cwd = false;
    for (int i = 0; i < w->n; i++) {
        command |= w->tasks[i].command != NULL;
        cwd |= w->tasks[i].cwd != NULL;
    }
    command |= cwd; /* cwd is only ever after command */
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
    return ferror(f) ? ms_error_set(err, MS_EIO, "cannot write the workload") : MS_OK;
}
