/* devlock.c: one owner per physical GPU: an exclusive flock on <runtime dir>/<GPU UUID>.lock
 * held for a whole run (the kernel drops it when the owner dies, even by SIGKILL), and the
 * runtime directory where locks, default journals and logs live. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "proc.h"

struct ms_device_lock {
    int fd;
    char path[600];
};

/* mkdir that accepts an existing folder of ours; `private` folders must be owned by us
 * and not a link (a shared /tmp could hold someone else's). */
static int ensure_dir(const char *dir, mode_t mode, bool private, ms_error *err)
{
    if (mkdir(dir, mode) != 0 && errno != EEXIST)
        return ms_error_set(err, MS_EIO, "%s: cannot create the runtime folder: %s", dir,
                            strerror(errno));
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return ms_error_set(err, MS_EIO, "%s: the runtime folder is not a folder", dir);
    if (private && st.st_uid != geteuid())
        return ms_error_set(err, MS_EIO, "%s: the runtime folder belongs to another user", dir);
    if (access(dir, W_OK | X_OK) != 0)
        return ms_error_set(err, MS_EIO, "%s: cannot write in the runtime folder: %s", dir,
                            strerror(errno));
    return MS_OK;
}

int ms_runtime_dir(char *buf, size_t len, ms_error *err)
{
    const char *env = getenv("MIGSCHED_RUNTIME_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    const char *tmp = getenv("TMPDIR");
    bool private = false;
    if (env && *env)
        snprintf(buf, len, "%s", env);
    else if (geteuid() == 0)
        snprintf(buf, len, "/run/migsched");
    else if (xdg && *xdg)
        snprintf(buf, len, "%s/migsched", xdg);
    else {
        snprintf(buf, len, "%s/migsched-%u", tmp && *tmp ? tmp : "/tmp", (unsigned)geteuid());
        private = true;
    }
    return ensure_dir(buf, private ? 0700 : 0755, private, err);
}

int ms_default_run_path(const int *devices, int n, const char *suffix, char *buf, size_t len,
                        ms_error *err)
{
    char dir[400];
    int rc = ms_runtime_dir(dir, sizeof dir, err);
    if (rc)
        return rc;
    char key[128] = "";
    for (int i = 0; i < n && strlen(key) < sizeof key - 8; i++)
        snprintf(key + strlen(key), sizeof key - strlen(key), "%s%d", i ? "-" : "", devices[i]);
    if ((size_t)snprintf(buf, len, "%s/run-dev%s%s", dir, key, suffix) >= len)
        return ms_error_set(err, MS_EINVAL, "%s: runtime folder path too long", dir);
    return MS_OK;
}

/* The PID the holder wrote; it may not have written it yet, so try for a moment. */
static long holder_pid(int fd)
{
    for (int attempt = 0; attempt < 20; attempt++) {
        char text[64] = "";
        ssize_t n = pread(fd, text, sizeof text - 1, 0);
        long pid = n > 0 ? strtol(text, NULL, 10) : 0;
        if (pid > 0)
            return pid;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

int ms_device_lock_acquire(const char *dir, const char *gpu_uuid, ms_device_lock **out,
                           ms_error *err)
{
    *out = NULL;
    char def[400];
    if (!dir) {
        int rc = ms_runtime_dir(def, sizeof def, err);
        if (rc)
            return rc;
        dir = def;
    }
    if (!gpu_uuid || !*gpu_uuid || strchr(gpu_uuid, '/'))
        return ms_error_set(err, MS_EINVAL, "'%s' is not a GPU UUID to lock", gpu_uuid ? gpu_uuid : "");
    ms_device_lock *l = calloc(1, sizeof *l);
    if (!l)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    snprintf(l->path, sizeof l->path, "%s/%s.lock", dir, gpu_uuid);
    l->fd = open(l->path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (l->fd < 0) {
        int rc = ms_error_set(err, MS_EIO, "%s: cannot open the device lock: %s", l->path,
                              strerror(errno));
        free(l);
        return rc;
    }
    int r;
    while ((r = flock(l->fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR)
        ;
    if (r != 0) {
        int e = errno;
        long pid = e == EWOULDBLOCK ? holder_pid(l->fd) : 0;
        close(l->fd);
        int rc;
        if (e != EWOULDBLOCK)
            rc = ms_error_set(err, MS_EIO, "%s: cannot lock: %s", l->path, strerror(e));
        else if (pid > 0)
            rc = ms_error_set(err, MS_EBUSY, "GPU %s is in use by migsched process %ld (lock %s)",
                              gpu_uuid, pid, l->path);
        else
            rc = ms_error_set(err, MS_EBUSY, "GPU %s is in use by another migsched process (lock %s)",
                              gpu_uuid, l->path);
        free(l);
        return rc;
    }
    /* "PID START": who holds it, for the refusal message and for humans. */
    unsigned long long start = 0;
    proc_start_time(getpid(), &start);
    char text[64];
    int n = snprintf(text, sizeof text, "%ld %llu\n", (long)getpid(), start);
    if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, text, (size_t)n, 0) != n) {
        int rc = ms_error_set(err, MS_EIO, "%s: cannot write the device lock: %s", l->path,
                              strerror(errno));
        ms_device_lock_release(l);
        return rc;
    }
    *out = l;
    return MS_OK;
}

void ms_device_lock_release(ms_device_lock *l)
{
    if (!l)
        return;
    /* Emptied first so that the file names nobody (a failure only leaves a stale PID); not
     * unlinked: another process may be opening it to lock it. */
    int ignored = ftruncate(l->fd, 0);
    (void)ignored;
    close(l->fd);
    free(l);
}
