/* sim_state.c: the sim state file on disk: every look or change under an exclusive flock
 * on FILE.lock (the file itself is replaced by each write, so it cannot carry the lock),
 * writes all-or-nothing (temporary file, fsync, rename, fsync of the folder), and a new
 * file made from `--gpus NxMODEL`. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "migsched/exec_sim_state.h"
#include "migsched/files.h"

int ms_sim_state_read(const char *path, ms_sim_state *out, ms_error *err)
{
    char *text;
    size_t len;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    rc = ms_sim_state_parse(text, len, path, out, err);
    free(text);
    return rc;
}

static int write_all(int fd, const char *text, size_t len)
{
    for (size_t at = 0; at < len;) {
        ssize_t k = write(fd, text + at, len - at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        at += (size_t)k;
    }
    return 0;
}

static void folder_of(const char *path, char *dir, size_t len)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(dir, len, "%s", dirname(copy));
}

int ms_sim_state_write(const char *path, const ms_sim_state *s, ms_error *err)
{
    char *text = ms_sim_state_dump(s);
    if (!text)
        return ms_error_set(err, MS_ENOMEM, "out of memory writing %s", path);
    char dir[PATH_MAX], tmp[PATH_MAX + 16];
    folder_of(path, dir, sizeof dir);
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    int rc = MS_OK;
    if (fd < 0) {
        rc = ms_error_set(err, MS_EIO, "%s: cannot make a temporary file beside it: %s", path,
                          strerror(errno));
    } else {
        bool ok = fchmod(fd, 0644) == 0 && write_all(fd, text, strlen(text)) == 0 &&
                  write_all(fd, "\n", 1) == 0 && fsync(fd) == 0;
        ok &= close(fd) == 0;
        if (!ok || rename(tmp, path) != 0) {
            rc = ms_error_set(err, MS_EIO, "%s: write failed: %s", path, strerror(errno));
            unlink(tmp);
        }
    }
    /* The rename itself is durable only once the folder is. */
    int dfd = rc ? -1 : open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    free(text);
    return rc;
}

static int lock_state(const char *path, int *fd, ms_error *err)
{
    char lock[PATH_MAX + 8];
    snprintf(lock, sizeof lock, "%s.lock", path);
    *fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (*fd < 0)
        return ms_error_set(err, MS_EIO, "%s: cannot open the state's lock: %s", lock,
                            strerror(errno));
    while (flock(*fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            close(*fd);
            return ms_error_set(err, MS_EIO, "%s: cannot lock: %s", lock, strerror(errno));
        }
    return MS_OK;
}

int ms_sim_state_update(const char *path, ms_sim_state_fn fn, void *arg, ms_error *err)
{
    ms_sim_state *s = malloc(sizeof *s);
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "out of memory reading %s", path);
    int fd;
    int rc = lock_state(path, &fd, err);
    if (rc) {
        free(s);
        return rc;
    }
    bool changed = false;
    rc = ms_sim_state_read(path, s, err);
    if (!rc)
        rc = fn(s, arg, &changed, err);
    if (!rc && changed)
        rc = ms_sim_state_write(path, s, err);
    close(fd); /* drops the lock */
    free(s);
    return rc;
}

int ms_sim_state_parse_gpus(const char *spec, ms_sim_state *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    char copy[512];
    if (snprintf(copy, sizeof copy, "%s", spec) >= (int)sizeof copy || !*spec)
        return ms_error_set(err, MS_EINVAL, "--gpus: '%s' is not NxMODEL[,...]", spec);
    char *save = NULL;
    for (char *part = strtok_r(copy, ",", &save); part; part = strtok_r(NULL, ",", &save)) {
        char *x = strchr(part, 'x'), *end = NULL;
        long n = 1;
        const char *name = part;
        if (x && x > part && strspn(part, "0123456789") == (size_t)(x - part)) {
            n = strtol(part, &end, 10);
            name = x + 1;
        }
        const ms_gpu_model *m = ms_gpu_builtin(name);
        if (!m)
            return ms_error_set(err, MS_EINVAL, "--gpus: '%s' is not a built-in GPU model", name);
        if (n < 1 || out->ngpus + n > MS_RUN_MAX_GPUS)
            return ms_error_set(err, MS_EINVAL, "--gpus: '%s' asks for %s than %d GPUs", spec,
                                n < 1 ? "fewer" : "more", n < 1 ? 1 : MS_RUN_MAX_GPUS);
        for (long k = 0; k < n; k++) {
            ms_sim_gpu *g = &out->gpu[out->ngpus++];
            g->model = *m;
            g->mig = true;
        }
    }
    return MS_OK;
}

/* FNV-1a: GPU UUIDs that differ between state files (the device locks are keyed by them)
 * and stay the same for one path. */
static unsigned long long fnv(const char *s)
{
    unsigned long long h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static void name_gpus(const char *path, ms_sim_state *s)
{
    char dir[PATH_MAX], real[PATH_MAX], copy[PATH_MAX], key[2 * PATH_MAX + 2];
    folder_of(path, dir, sizeof dir);
    snprintf(copy, sizeof copy, "%s", path);
    snprintf(key, sizeof key, "%s/%s", realpath(dir, real) ? real : dir, basename(copy));
    unsigned long long h = fnv(key);
    for (int g = 0; g < s->ngpus; g++)
        snprintf(s->gpu[g].uuid, sizeof s->gpu[g].uuid, "GPU-51300000-%04x-4%03x-8000-%012llx",
                 (unsigned)(h >> 48), g, h & 0xffffffffffffull);
}

static void describe_models(const ms_sim_state *s, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int g = 0; g < s->ngpus && at < len; g++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", g ? "," : "", s->gpu[g].model.name);
}

typedef struct prepare_arg {
    const char *path;
    const ms_sim_state *want;
} prepare_arg;

static int check_models(ms_sim_state *s, void *arg, bool *changed, ms_error *err)
{
    const prepare_arg *a = arg;
    (void)changed;
    bool same = s->ngpus == a->want->ngpus;
    for (int g = 0; same && g < s->ngpus; g++)
        same = !strcmp(s->gpu[g].model.name, a->want->gpu[g].model.name);
    if (same)
        return MS_OK;
    char has[300], wants[300];
    describe_models(s, has, sizeof has);
    describe_models(a->want, wants, sizeof wants);
    return ms_error_set(err, MS_EINVAL,
                        "%s holds %d GPU%s (%s), not the %d of --gpus (%s); leave --gpus out to "
                        "use it, or name another file",
                        a->path, s->ngpus, s->ngpus == 1 ? "" : "s", has, a->want->ngpus, wants);
}

int ms_sim_state_prepare(const char *path, const ms_sim_state *want, ms_error *err)
{
    int fd;
    int rc = lock_state(path, &fd, err);
    if (rc)
        return rc;
    struct stat st;
    prepare_arg a = {path, want};
    if (stat(path, &st) != 0 && errno == ENOENT) {
        if (!want) {
            rc = ms_error_set(err, MS_EINVAL,
                              "%s does not exist (create it with --gpus NxMODEL, e.g. "
                              "--gpus 2xA100-40GB)",
                              path);
        } else {
            ms_sim_state *s = malloc(sizeof *s);
            if (!s)
                rc = ms_error_set(err, MS_ENOMEM, "out of memory");
            else {
                *s = *want;
                name_gpus(path, s);
                rc = ms_sim_state_write(path, s, err);
            }
            free(s);
        }
        close(fd);
        return rc;
    }
    close(fd);
    /* An existing file is read (and so checked) whether or not --gpus was given. */
    ms_sim_state *s = malloc(sizeof *s);
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    rc = ms_sim_state_read(path, s, err);
    if (!rc && want)
        rc = check_models(s, &a, NULL, err);
    free(s);
    return rc;
}
