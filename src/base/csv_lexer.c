/* csv_lexer.c: splits CSV text into records and fields (RFC 4180 quoting, CRLF, BOM). */
#include "migsched/csv_lexer.h"

#include <stdlib.h>
#include <string.h>

void csv_lexer_init(csv_lexer *lx, const char *text, size_t len, const char *source)
{
    lx->p = text;
    lx->end = text + len;
    lx->source = source;
    lx->line = 1;
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) /* UTF-8 byte order mark */
        lx->p += 3;
}

void csv_record_free(csv_record *rec)
{
    free(rec->off);
    free(rec->buf);
    memset(rec, 0, sizeof *rec);
}

static int put_char(csv_record *rec, char c)
{
    if (rec->blen == rec->bcap) {
        size_t cap = rec->bcap ? rec->bcap * 2 : 256;
        char *b = realloc(rec->buf, cap);
        if (!b)
            return -1;
        rec->buf = b;
        rec->bcap = cap;
    }
    rec->buf[rec->blen++] = c;
    return 0;
}

static int start_field(csv_record *rec)
{
    if (rec->n == rec->cap) {
        int cap = rec->cap ? rec->cap * 2 : 16;
        size_t *o = realloc(rec->off, (size_t)cap * sizeof *o);
        if (!o)
            return -1;
        rec->off = o;
        rec->cap = cap;
    }
    rec->off[rec->n++] = rec->blen;
    return 0;
}

static bool at_line_end(const csv_lexer *lx)
{
    const char *p = lx->p;
    return p == lx->end || *p == '\n' || (*p == '\r' && (p + 1 == lx->end || p[1] == '\n'));
}

static void skip_blanks(csv_lexer *lx)
{
    while (lx->p < lx->end && (*lx->p == ' ' || *lx->p == '\t'))
        lx->p++;
}

#define OOM(lx, err) ms_error_set(err, MS_ENOMEM, "%s: out of memory", (lx)->source)

/* A quoted field; lx->p is just past the opening quote. */
static int quoted_field(csv_lexer *lx, csv_record *rec, ms_error *err)
{
    long opened = lx->line;
    for (;;) {
        if (lx->p == lx->end)
            return ms_error_set(err, MS_EINVAL, "%s:%ld: field %d: quoted field never closed",
                                lx->source, opened, rec->n);
        char c = *lx->p++;
        if (c == '"') {
            if (lx->p < lx->end && *lx->p == '"')
                lx->p++; /* "" is an escaped quote */
            else
                break;
        } else if (c == '\0') {
            return ms_error_set(err, MS_EINVAL, "%s:%ld: field %d: NUL byte in text", lx->source,
                                lx->line, rec->n);
        } else if (c == '\n') {
            lx->line++;
        }
        if (put_char(rec, c))
            return OOM(lx, err);
    }
    skip_blanks(lx);
    if (lx->p < lx->end && *lx->p != ',' && !at_line_end(lx))
        return ms_error_set(err, MS_EINVAL,
                            "%s:%ld: field %d: unexpected character after closing quote",
                            lx->source, lx->line, rec->n);
    return MS_OK;
}

/* An unquoted field, trimmed of surrounding blanks. */
static int plain_field(csv_lexer *lx, csv_record *rec, ms_error *err)
{
    size_t start = rec->blen;
    while (lx->p < lx->end && *lx->p != ',' && !at_line_end(lx)) {
        char c = *lx->p++;
        if (c == '"')
            return ms_error_set(err, MS_EINVAL,
                                "%s:%ld: field %d: stray '\"' inside an unquoted field "
                                "(quote the whole field and double inner quotes)",
                                lx->source, lx->line, rec->n);
        if (c == '\0')
            return ms_error_set(err, MS_EINVAL, "%s:%ld: field %d: NUL byte in text", lx->source,
                                lx->line, rec->n);
        if (put_char(rec, c))
            return OOM(lx, err);
    }
    while (rec->blen > start && (rec->buf[rec->blen - 1] == ' ' || rec->buf[rec->blen - 1] == '\t'))
        rec->blen--;
    return MS_OK;
}

static int read_record(csv_lexer *lx, csv_record *rec, ms_error *err)
{
    rec->n = 0;
    rec->blen = 0;
    rec->line = lx->line;
    for (;;) {
        if (start_field(rec))
            return OOM(lx, err);
        skip_blanks(lx);
        int rc;
        if (lx->p < lx->end && *lx->p == '"') {
            lx->p++;
            rc = quoted_field(lx, rec, err);
        } else {
            rc = plain_field(lx, rec, err);
        }
        if (rc)
            return rc;
        if (put_char(rec, '\0'))
            return OOM(lx, err);
        if (lx->p < lx->end && *lx->p == ',') {
            lx->p++;
            continue;
        }
        /* End of record: consume the line break. */
        if (lx->p < lx->end && *lx->p == '\r')
            lx->p++;
        if (lx->p < lx->end && *lx->p == '\n') {
            lx->p++;
            lx->line++;
        }
        return MS_OK;
    }
}

int csv_next_record(csv_lexer *lx, csv_record *rec, bool *got, ms_error *err)
{
    *got = false;
    while (lx->p < lx->end) {
        const char *before = lx->p;
        int rc = read_record(lx, rec, err);
        if (rc)
            return rc;
        bool blank_line = rec->n == 1 && *before != '"' && rec->buf[0] == '\0';
        if (!blank_line) {
            *got = true;
            return MS_OK;
        }
    }
    return MS_OK;
}
