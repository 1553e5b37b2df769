/* model_file.h (private to src/learn): the container every model file uses: the magic
 * "MSRLMODL", a little-endian u32 version and u32 header length, a JSON header, then
 * float32 arrays whose sizes the header implies. */
#ifndef MIGSCHED_LEARN_MODEL_FILE_H
#define MIGSCHED_LEARN_MODEL_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "migsched/error.h"

/* Writes header (compact, sorted keys) and the n arrays, all or nothing. */
int modelfile_write(const char *path, json_t *header, const float *const *arrays,
                    const size_t *counts, int n, ms_error *err);

/* Reads a model's header into ctx and names (at most 3) the arrays to fill with their
 * sizes; body is the number of bytes after the header, to check against the architecture
 * before allocating anything (a forged header must not make the reader allocate
 * gigabytes). A non-zero return is an error already set in err. */
typedef int (*modelfile_parse_fn)(const char *path, json_t *header, size_t body, void *ctx,
                                  float **arrays, size_t *counts, int *n, ms_error *err);

/* Checks magic and version, parses the header with parse, then copies the arrays it named
 * out of the body, which must hold exactly their sizes of finite values. On failure the
 * caller destroys what parse built in ctx. */
int modelfile_load(const char *path, modelfile_parse_fn parse, void *ctx, ms_error *err);
/* The same on a file already in memory (path only names it in messages; the fuzz target). */
int modelfile_parse(const char *buf, size_t len, const char *path, modelfile_parse_fn parse,
                    void *ctx, ms_error *err);

#endif
