/* store_lock.c: one daemon per store: an exclusive lock on a file beside the database,
 * held for the daemon's life, naming its holder's PID. */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migsched/io.h"

int md_store_lock(const char *path, int *fd, ms_error *err)
{
    char name[4200];
    *fd = -1;
    if ((size_t)snprintf(name, sizeof name, "%s.lock", path) >= sizeof name)
        return ms_error_set(err, MS_EINVAL, "%s: path too long", path);
    int f, rc = ms_open_regular(AT_FDCWD, name, name, O_RDWR | O_CREAT, 0600, &f, err);
    if (rc)
        return rc;
    if (fchmod(f, 0600) != 0) {
        rc = ms_error_set(err, MS_EIO, "%s: %s", name, strerror(errno));
    } else if (flock(f, LOCK_EX | LOCK_NB) != 0) {
        if (errno == EWOULDBLOCK) {
            char pid[24] = "";
            ssize_t n = pread(f, pid, sizeof pid - 1, 0);
            pid[n > 0 ? n : 0] = '\0';
            pid[strspn(pid, "0123456789")] = '\0';
            rc = ms_error_set(err, MS_EINVAL, "db %s: in use by migschedd pid %s (lock %s)", path,
                              *pid ? pid : "unknown", name);
        } else {
            rc = ms_error_set(err, MS_EIO, "%s: flock: %s", name, strerror(errno));
        }
    } else {
        char pid[24];
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(f, 0) != 0 || pwrite(f, pid, (size_t)n, 0) != n)
            rc = ms_error_set(err, MS_EIO, "%s: %s", name, strerror(errno));
    }
    if (rc) {
        close(f);
        return rc;
    }
    *fd = f;
    return MS_OK;
}
