/* root_files.c: files and folders that are safe to write as root in folders others might
 * reach (no symbolic link, FIFO or device is ever written through). */
#include "migsched/files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        return ms_error_set(err, MS_EIO,
                            "%s: owned by uid %u, not by uid %u or root: "
                            "refused (never read, never acted on)",
                            shown, (unsigned)st.st_uid, (unsigned)geteuid());
    return MS_OK;
}

int ms_dir_check(const char *what, const char *path, unsigned create_mode, ms_error *err)
{
    if (create_mode && mkdir(path, (mode_t)create_mode) != 0 && errno != EEXIST)
        return ms_error_set(err, MS_EIO, "%s %s: cannot create: %s", what, path, strerror(errno));
    struct stat st;
    /* A link is trusted only as far as its own owner: someone else's could be re-pointed. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != 0 && st.st_uid != geteuid())
        return ms_error_set(err, MS_EIO,
                            "%s %s: a symbolic link owned by uid %u: it must be "
                            "owned by root or uid %u",
                            what, path, (unsigned)st.st_uid, (unsigned)geteuid());
    if (stat(path, &st) != 0)
        return ms_error_set(err, MS_EIO, "%s %s: %s", what, path, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return ms_error_set(err, MS_EIO, "%s %s: not a folder", what, path);
    if ((st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)))
        return ms_error_set(err, MS_EIO,
                            "%s %s: owned by uid %u with mode %04o: it must be "
                            "owned by root or uid %u and writable by its owner only (chmod "
                            "go-w)",
                            what, path, (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777),
                            (unsigned)geteuid());
    return MS_OK;
}
