/* io.h: whole-file reads, all-or-nothing file writes and CSV quoting shared by every
 * reader/writer. */
#ifndef MIGSCHED_IO_H
#define MIGSCHED_IO_H

#include <stdio.h>

#include "migsched/error.h"

/* Reads path into a NUL-terminated malloc'd buffer (*len excludes the NUL). */
int ms_read_file(const char *path, char **buf, size_t *len, ms_error *err);

/* Writing a file so that readers never see half of it: write to a temporary file beside
 * the target, then ms_output_commit renames it over the target ("-" = stdout). */
typedef struct ms_output {
    FILE *f;
    char *path, *tmp;
} ms_output;

int ms_output_open(ms_output *o, const char *path, ms_error *err);
/* Closes and renames; on a write error removes the temporary file and fails. */
int ms_output_commit(ms_output *o, ms_error *err);
/* Closes and removes the temporary file (on an error path). */
void ms_output_abort(ms_output *o);

/* Writes s as one double-quoted CSV field, doubling the quotes inside (RFC 4180). */
void ms_csv_write_quoted(FILE *f, const char *s);

#endif
