/* csv_lexer.h: an RFC 4180 record reader over a memory buffer (LF or CRLF lines). */
#ifndef MIGSCHED_CSV_LEXER_H
#define MIGSCHED_CSV_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "migsched/error.h"

typedef struct csv_lexer {
    const char *p, *end;
    const char *source; /* file name for messages */
    long line;          /* line of p, 1-based */
} csv_lexer;

/* One record: fields are NUL-terminated strings inside buf. */
typedef struct csv_record {
    long line; /* line the record starts on */
    int n, cap;
    size_t *off; /* field i starts at buf + off[i] */
    char *buf;
    size_t blen, bcap;
} csv_record;

void csv_lexer_init(csv_lexer *lx, const char *text, size_t len, const char *source);
/* Reads the next non-blank record into rec (*got = false at the end of input); fails
 * with err naming the line. */
int csv_next_record(csv_lexer *lx, csv_record *rec, bool *got, ms_error *err);
static inline const char *csv_field(const csv_record *rec, int i) { return rec->buf + rec->off[i]; }
void csv_record_free(csv_record *rec);

#endif
