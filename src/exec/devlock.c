/* devlock.c: one owner per physical GPU: an exclusive flock on <runtime dir>/<GPU UUID>.lock
 * held for a whole run (the kernel drops it when the owner dies, even by SIGKILL), and the
 * runtime directory where locks, default journals and logs live (only its owner, or
 * root, may write it). */
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
#include "migsched/io.h"
#include "proc.h"

struct ms_device_lock {
    int fd;
    char path[600];
};

/* A runtime folder only we (or root) can write: a shared one would let another user plant
 * the journals and locks we act on. */
static int ensure_dir(const char *dir, mode_t mode, ms_error *err)
{
    int rc = ms_dir_check("the runtime folder", dir, mode, err);
    if (!rc && access(dir, W_OK | X_OK) != 0)
        rc = ms_error_set(err, MS_EIO, "%s: cannot write in the runtime folder: %s", dir,
                          strerror(errno));
    return rc;
}

int ms_runtime_dir(char *buf, size_t len, ms_error *err)
{
    const char *env = getenv("MIGSCHED_RUNTIME_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    const char *tmp = getenv("TMPDIR");
    mode_t mode = 0755;
    if (env && *env)
        snprintf(buf, len, "%s", env);
    else if (geteuid() == 0)
        snprintf(buf, len, "/run/migsched");
    else if (xdg && *xdg)
        snprintf(buf, len, "%s/migsched", xdg);
    else {
        snprintf(buf, len, "%s/migsched-%u", tmp && *tmp ? tmp : "/tmp", (unsigned)geteuid());
        mode = 0700;
    }
    return ensure_dir(buf, mode, err);
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

int ms_device_lock_open(const char *dir, const char *gpu_uuid, ms_device_lock **out, ms_error *err)
{
    *out = NULL;
    char def[400];
    int rc = dir ? ensure_dir(dir, 0, err) : ms_runtime_dir(def, sizeof def, err);
    if (rc)
        return rc;
    if (!dir)
        dir = def;
    if (!gpu_uuid || !*gpu_uuid || strchr(gpu_uuid, '/'))
        return ms_error_set(err, MS_EINVAL, "'%s' is not a GPU UUID to lock",
                            gpu_uuid ? gpu_uuid : "");
    ms_device_lock *l = calloc(1, sizeof *l);
    if (!l)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    snprintf(l->path, sizeof l->path, "%s/%s.lock", dir, gpu_uuid);
    /* Never through a link nor on a FIFO, and only a lock of ours or root's. */
    if ((rc = ms_open_regular(AT_FDCWD, l->path, l->path, O_RDWR | O_CREAT, 0644, &l->fd, err)) ||
        (rc = ms_file_check_ours(l->fd, l->path, err))) {
        if (l->fd >= 0)
            close(l->fd);
        ms_error_prefix(err, "the device lock");
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
        if (e != EWOULDBLOCK)
            rc = ms_error_set(err, MS_EIO, "%s: cannot lock: %s", l->path, strerror(e));
        else if (pid > 0)
            rc = ms_error_set(err, MS_EBUSY, "GPU %s is in use by migsched process %ld (lock %s)",
                              gpu_uuid, pid, l->path);
        else
            rc = ms_error_set(err, MS_EBUSY,
                              "GPU %s is in use by another migsched process (lock %s)", gpu_uuid,
                              l->path);
        free(l);
        return rc;
    }
    /* "PID START": who holds it, for the refusal message and for humans. */
    unsigned long long start = 0;
    ms_proc_start_time(getpid(), &start);
    char text[64];
    int n = snprintf(text, sizeof text, "%ld %llu\n", (long)getpid(), start);
    if (ftruncate(l->fd, 0) != 0 || pwrite(l->fd, text, (size_t)n, 0) != n) {
        rc = ms_error_set(err, MS_EIO, "%s: cannot write the device lock: %s", l->path,
                          strerror(errno));
        ms_device_lock_close(l);
        return rc;
    }
    *out = l;
    return MS_OK;
}

void ms_device_lock_close(ms_device_lock *l)
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
