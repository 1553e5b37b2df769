/* read_file.c: whole-file reads under the input limit. */
#include "migsched/files.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

size_t ms_input_max(void)
{
    const char *env = getenv("MIGSCHED_MAX_INPUT_BYTES");
    char *end;
    errno = 0;
    unsigned long long v = env ? strtoull(env, &end, 10) : 0;
    if (!env || !*env || *end || errno || v == 0 || v > SIZE_MAX / 2)
        return MS_INPUT_MAX_DEFAULT;
    return (size_t)v;
}

/* text: refuse NUL bytes (every text reader would silently cut its strings there). */
static int read_whole(const char *path, bool text, char **buf, size_t *len, ms_error *err)
{
    *buf = NULL;
    FILE *f = fopen(path, "rbe"); /* close-on-exec: never inherited by a job */
    if (!f)
        return ms_error_set(err, MS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st = {0};
    size_t max = ms_input_max(), cap = 1 << 16, n = 0, got;
    int rc = MS_OK;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
        rc = ms_error_set(err, MS_EINVAL, "%s: is a directory, not a file", path);
    else if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
        rc = ms_error_set(err, MS_EINVAL,
                          "%s: %lld bytes, over the input limit of %zu bytes "
                          "(MIGSCHED_MAX_INPUT_BYTES)",
                          path, (long long)st.st_size, max);
    else if (S_ISREG(st.st_mode) && (size_t)st.st_size >= cap)
        cap = (size_t)st.st_size + 2; /* one allocation: room for the NUL and the EOF read */
    char *b = rc ? NULL : malloc(cap);
    if (!rc && !b)
        rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    /* Devices and pipes have no size: read in chunks and stop at the limit. */
    while (!rc && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        char *nul = text ? memchr(b + n, '\0', got) : NULL;
        if (nul) {
            size_t at = (size_t)(nul - b), line = 1;
            for (size_t i = 0; i < at; i++)
                line += b[i] == '\n';
            rc = ms_error_set(err, MS_EINVAL, "%s:%zu: NUL byte at offset %zu (not a text file)",
                              path, line, at);
            break;
        }
        n += got;
        if (n > max) {
            rc = ms_error_set(err, MS_EINVAL,
                              "%s: over the input limit of %zu bytes "
                              "(MIGSCHED_MAX_INPUT_BYTES)",
                              path, max);
            break;
        }
        if (cap - n - 1 == 0) {
            char *nb = realloc(b, cap * 2);
            if (!nb)
                rc = ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
            else
                b = nb;
            cap *= 2;
        }
    }
    if (!rc && ferror(f))
        rc = ms_error_set(err, MS_EIO, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (rc) {
        free(b);
        return rc;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return MS_OK;
}

int ms_read_file(const char *path, char **buf, size_t *len, ms_error *err)
{
    return read_whole(path, true, buf, len, err);
}

int ms_read_binary_file(const char *path, char **buf, size_t *len, ms_error *err)
{
    return read_whole(path, false, buf, len, err);
}
