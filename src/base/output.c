/* output.c: writing a file so that readers never see half of it: a temporary file beside
 * the target, renamed over it once complete. */
#include "migsched/files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What the process's umask leaves of 0666 (Linux's /proc; read-only, unlike umask(2),
 * which other threads would see changed); 0600 when it cannot be read. */
static mode_t default_file_mode(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    char line[128];
    unsigned mask = 077;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Umask: %o", &mask) == 1)
            break;
    if (f)
        fclose(f);
    return (mode_t)(0666 & ~mask);
}

/* A temporary file from mkstemp beside path (O_EXCL, a name nobody can predict), with
 * mode. */
static int open_temporary(ms_output *o, const char *path, mode_t mode, ms_error *err)
{
    o->path = strdup(path);
    o->tmp = malloc(strlen(path) + 16);
    if (!o->path || !o->tmp) {
        free(o->path);
        free(o->tmp);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    sprintf(o->tmp, "%s.tmpXXXXXX", path);
    int fd = mkostemp(o->tmp, O_CLOEXEC);
    if (fd >= 0 && (fchmod(fd, mode) != 0 || !(o->f = fdopen(fd, "wb")))) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        errno = e;
        fd = -1;
    }
    if (fd < 0) {
        int e = errno;
        free(o->path);
        free(o->tmp);
        return ms_error_set(err, MS_EIO, "%s: cannot write: %s", path, strerror(e));
    }
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
        /* A device or pipe (/dev/null, a FIFO): renaming over it would replace it. A FIFO
         * nobody reads is refused rather than waited for. */
        int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd >= 0 && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == 0)
            o->f = fdopen(fd, "wb");
        o->path = o->f ? strdup(path) : NULL;
        if (!o->f || !o->path) {
            int e = errno == ENXIO ? EPIPE : errno;
            if (o->f)
                fclose(o->f);
            else if (fd >= 0)
                close(fd);
            return ms_error_set(err, MS_EIO, "%s: cannot write: %s", path,
                                e == EPIPE ? "a FIFO with no reader" : strerror(e));
        }
        return MS_OK;
    }
    return open_temporary(o, path, default_file_mode(), err);
}

int ms_output_open_file(ms_output *o, const char *path, unsigned mode, ms_error *err)
{
    memset(o, 0, sizeof *o);
    return open_temporary(o, path, (mode_t)mode, err);
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
    if (!o->tmp) { /* written in place (a device or pipe) */
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
