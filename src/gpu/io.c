/* io.c: whole-file reads, temporary-file-then-rename writes, CSV quoting. */
#include "migsched/io.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ms_read_file(const char *path, char **buf, size_t *len, ms_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ms_error_set(err, MS_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 1 << 16, n = 0, got;
    char *b = malloc(cap);
    while (b && (got = fread(b + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *nb = realloc(b, cap * 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
            cap *= 2;
        }
    }
    int failed = ferror(f);
    fclose(f);
    if (!b)
        return ms_error_set(err, MS_ENOMEM, "%s: out of memory", path);
    if (failed) {
        free(b);
        return ms_error_set(err, MS_EIO, "%s: read error", path);
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return MS_OK;
}

int ms_output_open(ms_output *o, const char *path, ms_error *err)
{
    memset(o, 0, sizeof *o);
    if (!path || !strcmp(path, "-")) {
        o->f = stdout;
        return MS_OK;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        /* A device or pipe (/dev/null, a FIFO): renaming over it would replace it. */
        o->f = fopen(path, "wb");
        o->path = o->f ? strdup(path) : NULL;
        if (!o->f || !o->path) {
            int e = errno;
            if (o->f)
                fclose(o->f);
            return ms_error_set(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
        }
        return MS_OK;
    }
    o->path = strdup(path);
    o->tmp = malloc(strlen(path) + 16);
    if (!o->path || !o->tmp) {
        free(o->path);
        free(o->tmp);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    sprintf(o->tmp, "%s.tmp%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "wb");
    if (!o->f) {
        int e = errno;
        free(o->path);
        free(o->tmp);
        return ms_error_set(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    return MS_OK;
}

int ms_output_commit(ms_output *o, ms_error *err)
{
    if (!o->path)
        /* ferror too: a write that failed earlier leaves nothing for fflush to fail on */
        return fflush(o->f) || ferror(o->f) ? ms_error_set(err, MS_EIO, "stdout: write error")
                                            : MS_OK;
    int bad = ferror(o->f);
    bad |= fclose(o->f) != 0;
    int rc = MS_OK;
    if (!o->tmp) {  /* written in place (a device or pipe) */
        if (bad)
            rc = ms_error_set(err, MS_EIO, "%s: write failed", o->path);
    } else if (bad || rename(o->tmp, o->path)) {
        rc = ms_error_set(err, MS_EIO, "%s: write failed: %s", o->path, strerror(errno));
        unlink(o->tmp);
    }
    free(o->path);
    free(o->tmp);
    o->f = NULL;
    return rc;
}

void ms_output_abort(ms_output *o)
{
    if (!o->path || !o->f)
        return;
    fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    free(o->path);
    free(o->tmp);
    o->f = NULL;
}

void ms_csv_write_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}
