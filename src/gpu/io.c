/* io.c: whole-file reads, temporary-file-then-rename writes, files and folders that are
 * safe to write as root, CSV quoting. */
#include "migsched/io.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int ms_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 1 ? (n < 1024 ? (int)n : 1024) : 1;
}

/* text: refuse NUL bytes (every text reader would silently cut its strings there). */
static int read_whole(const char *path, bool text, char **buf, size_t *len, ms_error *err)
{
    FILE *f = fopen(path, "rbe");  /* close-on-exec: never inherited by a job */
    if (!f)
        return ms_error_set(err, MS_EIO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st = {0};
    size_t max = ms_input_max(), cap = 1 << 16, n = 0, got;
    int rc = MS_OK;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
        rc = ms_error_set(err, MS_EINVAL, "%s: is a directory, not a file", path);
    else if (S_ISREG(st.st_mode) && (unsigned long long)st.st_size > max)
        rc = ms_error_set(err, MS_EINVAL, "%s: %lld bytes, over the input limit of %zu bytes "
                          "(MIGSCHED_MAX_INPUT_BYTES)", path, (long long)st.st_size, max);
    else if (S_ISREG(st.st_mode) && (size_t)st.st_size >= cap)
        cap = (size_t)st.st_size + 2;  /* one allocation: room for the NUL and the EOF read */
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
            rc = ms_error_set(err, MS_EINVAL, "%s: over the input limit of %zu bytes "
                              "(MIGSCHED_MAX_INPUT_BYTES)", path, max);
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

int ms_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

ms_num_text ms_fixed(double x, int decimals)
{
    ms_num_text t;
    if (isfinite(x) && fabs(x) < 1e12)
        snprintf(t.s, sizeof t.s, "%.*f", decimals, x);
    else
        snprintf(t.s, sizeof t.s, "%.6g", x);
    return t;
}

const char *ms_time_check(double x)
{
    if (isnan(x))
        return "is not a number";
    if (fabs(x) > MS_TIME_MAX)
        return "is over the ceiling of 1e9 s for times";
    return NULL;
}

int ms_open_regular(int dirfd, const char *name, const char *shown, int flags, unsigned mode,
                    int *fd, ms_error *err)
{
    /* O_TRUNC waits for fstat: whatever is not a regular file is never touched. */
    *fd = openat(dirfd, name, (flags & ~O_TRUNC) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
                 (mode_t)mode);
    if (*fd < 0)
        return ms_error_set(err, MS_EIO, "%s: cannot open: %s", shown,
                            errno == ELOOP ? "it is a symbolic link" : strerror(errno));
    struct stat st;
    int rc = MS_OK;
    if (fstat(*fd, &st) != 0)
        rc = ms_error_set(err, MS_EIO, "%s: %s", shown, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = ms_error_set(err, MS_EIO,
                          "%s: must be a regular file (not a FIFO, a device or a folder)", shown);
    else if ((flags & O_TRUNC) && ftruncate(*fd, 0) != 0)
        rc = ms_error_set(err, MS_EIO, "%s: cannot truncate: %s", shown, strerror(errno));
    else if (fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK) != 0)
        rc = ms_error_set(err, MS_EIO, "%s: %s", shown, strerror(errno));
    if (rc) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

int ms_file_check_ours(int fd, const char *shown, ms_error *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return ms_error_set(err, MS_EIO, "%s: %s", shown, strerror(errno));
    if (st.st_uid != 0 && st.st_uid != geteuid())
        return ms_error_set(err, MS_EIO, "%s: owned by uid %u, not by uid %u or root: "
                            "refused (never read, never acted on)", shown, (unsigned)st.st_uid,
                            (unsigned)geteuid());
    return MS_OK;
}

int ms_dir_check(const char *what, const char *path, unsigned create_mode, ms_error *err)
{
    if (create_mode && mkdir(path, (mode_t)create_mode) != 0 && errno != EEXIST)
        return ms_error_set(err, MS_EIO, "%s %s: cannot create: %s", what, path, strerror(errno));
    struct stat st;
    /* A link is trusted only as far as its own owner: someone else's could be re-pointed. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 &&
        st.st_uid != geteuid())
        return ms_error_set(err, MS_EIO, "%s %s: a symbolic link owned by uid %u: it must be "
                            "owned by root or uid %u", what, path, (unsigned)st.st_uid,
                            (unsigned)geteuid());
    if (stat(path, &st) != 0)
        return ms_error_set(err, MS_EIO, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ms_error_set(err, MS_EIO, "%s %s: not a folder", what, path);
    if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return ms_error_set(err, MS_EIO, "%s %s: owned by uid %u with mode %04o: it must be "
                            "owned by root or uid %u and writable by its owner only (chmod "
                            "go-w)", what, path, (unsigned)st.st_uid,
                            (unsigned)(st.st_mode & 07777), (unsigned)geteuid());
    return MS_OK;
}

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

bool ms_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

int ms_json_check_keys(json_t *obj, const char *const *allowed, const char *where,
                       ms_error *err)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        int k = 0;
        while (allowed[k] && strcmp(allowed[k], key))
            k++;
        if (!allowed[k]) {
            char list[160] = "";
            for (k = 0; allowed[k]; k++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", k ? ", " : "",
                         allowed[k]);
            return ms_error_set(err, MS_EINVAL, "%s: unknown key \"%.40s\" (allowed: %s)", where,
                                key, list);
        }
    }
    return MS_OK;
}
