/* model_file.h (private to src/learn): the container every model file uses: the magic
 * "MSRLMODL", a little-endian u32 version and u32 header length, a JSON header, then
 * float32 arrays whose sizes the header implies. */
#ifndef MIGSCHED_LEARN_MODEL_FILE_H
#define MIGSCHED_LEARN_MODEL_FILE_H

#include <jansson.h>
#include <stddef.h>

#include "migsched/error.h"

/* Writes header (compact, sorted keys) and the n arrays, all or nothing. */
int ms_modelfile_write(const char *path, json_t *header, const float *const *arrays,
                       const size_t *counts, int n, ms_error *err);

/* Checks magic and version and parses the header. On success the caller owns *buf (free)
 * and *header (json_decref); *body points into *buf, *body_len bytes long. */
int ms_modelfile_read(const char *path, char **buf, json_t **header, const char **body,
                      size_t *body_len, ms_error *err);

/* Copies the n arrays out of body, checking that it holds exactly their sizes and that
 * every value is finite (a corrupt file fails here, naming path). */
int ms_modelfile_arrays(const char *path, const char *body, size_t body_len, float *const *arrays,
                        const size_t *counts, int n, ms_error *err);

#endif
