/* isolate.c: a job's device folder holding only its MIG instance's nodes. The plan is made
 * in the parent (the minors file, readdir and lstat of the device folder); the job's
 * process carries it out with syscalls only: a new mount namespace, a tmpfs over the
 * device folder with copies of the allowed NVIDIA nodes, bind mounts of every other entry
 * (reached through a descriptor of the folder opened before it is covered: no staging
 * folder to choose or to trust), the symlinks made again. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "migsched/isolate.h"

/* The NVIDIA nodes every CUDA process needs beside its GPU's (when the host has them). */
static const char *const CONTROL_NODES[] = {"nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"};
#define CAPS_DIR "nvidia-caps"

void ms_devplan_free(ms_devplan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->entry[i].name);
        free(p->entry[i].path);
        free(p->entry[i].target);
    }
    free(p->entry);
    free(p->dev_dir);
    free(p->cwd);
    free(p);
}

static char *join(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *s = malloc(a + b + 2);
    if (s) {
        memcpy(s, dir, a);
        s[a] = '/';
        memcpy(s + a + 1, name, b + 1);
    }
    return s;
}

static int add(ms_devplan *p, size_t *cap, ms_iso_kind kind, const char *name,
               const struct stat *st, ms_error *err)
{
    if (p->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        ms_iso_entry *ne = realloc(p->entry, nc * sizeof *ne);
        if (!ne)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        p->entry = ne;
        *cap = nc;
    }
    ms_iso_entry *e = &p->entry[p->n];
    *e = (ms_iso_entry){.kind = kind,
                        .dir = S_ISDIR(st->st_mode),
                        .mode = st->st_mode,
                        .uid = st->st_uid,
                        .gid = st->st_gid,
                        .rdev = st->st_rdev};
    e->name = strdup(name);
    e->path = join(p->dev_dir, name);
    p->n++; /* counted as soon as it holds anything to free */
    if (!e->name || !e->path)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    if (kind == MS_ISO_LINK) {
        /* st_size is the target's length (0 for some pseudo-filesystems: then PATH_MAX). */
        size_t cap_t = st->st_size > 0 ? (size_t)st->st_size + 1 : PATH_MAX;
        e->target = malloc(cap_t);
        ssize_t got = e->target ? readlink(e->path, e->target, cap_t) : -1;
        if (got < 0 || (size_t)got >= cap_t)
            return ms_error_set(err, e->target ? MS_EIO : MS_ENOMEM,
                                "%s: cannot read the "
                                "link: %s",
                                e->path, got < 0 ? strerror(errno) : "changed");
        e->target[got] = '\0';
    }
    return MS_OK;
}

/* An allowed NVIDIA node: there, and a character device. */
static int add_node(ms_devplan *p, size_t *cap, const char *name, const char *why, ms_error *err)
{
    char *path = join(p->dev_dir, name);
    struct stat st;
    int rc = MS_OK;
    if (!path)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else if (lstat(path, &st))
        rc = ms_error_set(err, MS_EIO, "%s (%s): %s", path, why, strerror(errno));
    else if (!S_ISCHR(st.st_mode))
        rc = ms_error_set(err, MS_EINVAL, "%s (%s) is not a character device", path, why);
    else
        rc = add(p, cap, MS_ISO_NODE, name, &st, err);
    free(path);
    return rc;
}

/* nvidia-caps as a fresh folder holding the instance's two capability nodes only. */
static int add_caps(ms_devplan *p, size_t *cap, const struct stat *st, ms_error *err)
{
    if (!S_ISDIR(st->st_mode))
        return ms_error_set(err, MS_EINVAL, "%s/%s is not a folder", p->dev_dir, CAPS_DIR);
    int rc = add(p, cap, MS_ISO_DIR, CAPS_DIR, st, err);
    const unsigned minor[2] = {p->gi_minor, p->ci_minor};
    static const char *const why[2] = {"the GPU instance's capability",
                                       "the compute instance's capability"};
    for (int k = 0; k < 2 && !rc; k++) {
        char name[64];
        snprintf(name, sizeof name, CAPS_DIR "/nvidia-cap%u", minor[k]);
        rc = add_node(p, cap, name, why[k], err);
    }
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The folder's names, sorted (the plan is the same for the same folder). */
static int list_names(const char *dir, char ***out, size_t *n, ms_error *err)
{
    *out = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return ms_error_set(err, MS_EIO, "dev-dir %s: %s", dir, strerror(errno));
    size_t cap = 0;
    int rc = MS_OK;
    struct dirent *de;
    errno = 0;
    while (!rc && (de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 256;
            char **nn = realloc(*out, cap * sizeof *nn);
            if (!nn) {
                rc = ms_error_set(err, MS_ENOMEM, "out of memory");
                break;
            }
            *out = nn;
        }
        if (!((*out)[*n] = strdup(de->d_name)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        else
            (*n)++;
        errno = 0;
    }
    if (!rc && errno)
        rc = ms_error_set(err, MS_EIO, "dev-dir %s: %s", dir, strerror(errno));
    closedir(d);
    if (*n)
        qsort(*out, *n, sizeof **out, by_name);
    return rc;
}

/* One entry of the device folder: NVIDIA's by name (only the allowed ones, copied),
 * everything else as it is. */
static int add_entry(ms_devplan *p, size_t *cap, const char *name, unsigned gpu_minor, bool *caps,
                     bool *gpu, ms_error *err)
{
    char *path = join(p->dev_dir, name);
    if (!path)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    struct stat st;
    int rc = MS_OK;
    if (lstat(path, &st)) /* gone since readdir: nothing to give */
        rc = errno == ENOENT ? MS_OK : ms_error_set(err, MS_EIO, "%s: %s", path, strerror(errno));
    else if (!strncmp(name, "nvidia", 6)) {
        char gpu_node[32];
        snprintf(gpu_node, sizeof gpu_node, "nvidia%u", gpu_minor);
        bool control = false;
        for (size_t i = 0; i < sizeof CONTROL_NODES / sizeof *CONTROL_NODES; i++)
            control |= !strcmp(name, CONTROL_NODES[i]);
        if (!strcmp(name, CAPS_DIR)) {
            *caps = true;
            rc = add_caps(p, cap, &st, err);
        } else if (!strcmp(name, gpu_node)) {
            *gpu = true;
            rc = add_node(p, cap, name, "the GPU's node", err);
        } else if (control) {
            rc = add_node(p, cap, name, "a control node", err);
        }
    } else {
        rc = add(p, cap, S_ISLNK(st.st_mode) ? MS_ISO_LINK : MS_ISO_BIND, name, &st, err);
    }
    free(path);
    return rc;
}

static int plan_entries(ms_devplan *p, unsigned gpu_minor, ms_error *err)
{
    char **names;
    size_t n, cap = 0;
    int rc = list_names(p->dev_dir, &names, &n, err);
    bool caps = false, gpu = false;
    for (size_t i = 0; !rc && i < n; i++)
        rc = add_entry(p, &cap, names[i], gpu_minor, &caps, &gpu, err);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    if (!rc && !gpu)
        rc = ms_error_set(err, MS_EINVAL, "%s/nvidia%u (the GPU's node) is missing", p->dev_dir,
                          gpu_minor);
    if (!rc && !caps)
        rc = ms_error_set(err, MS_EINVAL,
                          "%s/" CAPS_DIR " is missing: no MIG capability nodes "
                          "(nvidia-smi or nvidia-modprobe makes them)",
                          p->dev_dir);
    return rc;
}

int ms_devplan_make(const ms_devplan_target *t, ms_devplan **out, ms_error *err)
{
    *out = NULL;
    if (!t->dev_dir || t->dev_dir[0] != '/')
        return ms_error_set(err, MS_EINVAL, "dev-dir %s: expected an absolute path",
                            t->dev_dir ? t->dev_dir : "(none)");
    unsigned gim, cim;
    int rc = ms_mig_minors_find(t->mig_minors, t->gpu_minor, t->gi_id, t->ci_id, &gim, &cim, err);
    if (rc)
        return rc;
    ms_devplan *p = calloc(1, sizeof *p);
    if (!p || !(p->dev_dir = strdup(t->dev_dir))) {
        free(p);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    p->gi_minor = gim;
    p->ci_minor = cim;
    p->close_fds = t->close_fds;
    p->report_fd = -1;
    struct rlimit rl;
    p->fd_limit = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > INT_MAX ? 65536 : (int)rl.rlim_cur;
    struct stat st;
    if (stat(p->dev_dir, &st))
        rc = ms_error_set(err, MS_EIO, "dev-dir %s: %s", p->dev_dir, strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        rc = ms_error_set(err, MS_EINVAL, "dev-dir %s is not a folder", p->dev_dir);
    if (!rc) {
        p->mode = st.st_mode;
        p->uid = st.st_uid;
        p->gid = st.st_gid;
        /* Its size bounds what a job could write there if the folder is writable to it. */
        snprintf(p->tmpfs_options, sizeof p->tmpfs_options, "mode=%04o,uid=%u,gid=%u,size=8m",
                 (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, (unsigned)st.st_gid);
        rc = plan_entries(p, t->gpu_minor, err);
    }
    char here[PATH_MAX];
    if (!rc && !(p->cwd = strdup(getcwd(here, sizeof here) ? here : "/")))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    if (rc) {
        ms_devplan_free(p);
        return rc;
    }
    *out = p;
    return MS_OK;
}

/* ---- In the job's process: async-signal-safe calls only ---- */

static void append(char *buf, size_t *n, size_t cap, const char *s)
{
    size_t k = strlen(s);
    if (k > cap - 1 - *n)
        k = cap - 1 - *n;
    memcpy(buf + *n, s, k);
    *n += k;
    buf[*n] = '\0';
}

/* Reports "migsched: device isolation: WHAT PATH: REASON" (strerrordesc_np is a table
 * lookup: no locale, no allocation, unlike strerror). */
static int fail(const ms_devplan *p, const char *what, const char *path, int errnum, char *msg,
                size_t len)
{
    static const char prefix[] = "migsched: ";
    char line[1024];
    size_t n = 0;
    const char *why = strerrordesc_np(errnum);
    append(line, &n, sizeof line, prefix);
    append(line, &n, sizeof line, "device isolation: ");
    append(line, &n, sizeof line, what);
    append(line, &n, sizeof line, " ");
    append(line, &n, sizeof line, path);
    append(line, &n, sizeof line, ": ");
    append(line, &n, sizeof line, why ? why : "unknown error");
    if (msg && len) {
        size_t m = 0;
        msg[0] = '\0';
        append(msg, &m, len, line + sizeof prefix - 1);
    }
    append(line, &n, sizeof line, "\n");
    ssize_t ignored = write(2, line, n);
    if (p->report_fd >= 0)
        ignored = write(p->report_fd, line, n);
    (void)ignored;
    return -1;
}

/* The daemon's descriptors must not reach the job; close_range needs Linux 5.11. */
static void close_on_exec_from(int first, int limit)
{
    if (close_range((unsigned)first, ~0U, CLOSE_RANGE_CLOEXEC) == 0)
        return;
    for (int fd = first; fd < limit; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC); /* EBADF for the closed ones */
}

/* One entry (the cwd is the covered original folder, which relative names reach). */
static int make(const ms_devplan *p, const ms_iso_entry *e, char *msg, size_t len)
{
    mode_t perm = e->mode & 07777;
    switch (e->kind) {
    case MS_ISO_NODE:
        if (mknod(e->path, S_IFCHR | perm, e->rdev))
            return fail(p, "cannot make", e->path, errno, msg, len);
        break;
    case MS_ISO_DIR:
        if (mkdir(e->path, perm))
            return fail(p, "cannot make", e->path, errno, msg, len);
        break;
    case MS_ISO_LINK:
        if (symlink(e->target, e->path))
            return fail(p, "cannot make", e->path, errno, msg, len);
        break;
    case MS_ISO_BIND: {
        int fd = -1;
        if (e->dir ? mkdir(e->path, 0755)
                   : (fd = open(e->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
            return fail(p, "cannot make", e->path, errno, msg, len);
        if (fd >= 0)
            close(fd);
        if (mount(e->name, e->path, NULL, MS_BIND | MS_REC, NULL) == 0)
            return 0;
        if (errno != ENOENT) /* else gone since the plan: nothing to give */
            return fail(p, "cannot bind", e->path, errno, msg, len);
        if (e->dir ? rmdir(e->path) : unlink(e->path))
            return fail(p, "cannot remove", e->path, errno, msg, len);
        return 0;
    }
    }
    /* A bind keeps its owner; what was made here takes the original's. */
    if (fchownat(AT_FDCWD, e->path, e->uid, e->gid, AT_SYMLINK_NOFOLLOW))
        return fail(p, "cannot set the owner of", e->path, errno, msg, len);
    return 0;
}

static int confine(const ms_devplan *p, char *msg, size_t len)
{
    if (p->close_fds)
        close_on_exec_from(3, p->fd_limit);
    if (unshare(CLONE_NEWNS))
        return fail(p, "cannot make a mount namespace for", p->dev_dir, errno, msg, len);
    if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
        return fail(p, "cannot detach the mounts from the host's at", "/", errno, msg, len);
    int orig = open(p->dev_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (orig < 0)
        return fail(p, "cannot open", p->dev_dir, errno, msg, len);
    int rc = 0;
    if (mount("tmpfs", p->dev_dir, "tmpfs", MS_NOSUID, p->tmpfs_options))
        rc = fail(p, "cannot mount a tmpfs on", p->dev_dir, errno, msg, len);
    else if (fchdir(orig))
        rc = fail(p, "cannot enter", p->dev_dir, errno, msg, len);
    for (size_t i = 0; !rc && i < p->n; i++)
        rc = make(p, &p->entry[i], msg, len);
    close(orig);
    if (!rc && chdir(p->cwd))
        rc = fail(p, "cannot return to", p->cwd, errno, msg, len);
    return rc;
}

int ms_devplan_apply(const ms_devplan *p, char *msg, size_t len)
{
    mode_t mask = umask(0); /* the nodes get the originals' modes exactly */
    int rc = confine(p, msg, len);
    umask(mask);
    if (rc == 0 && p->report_fd >= 0) {
        ssize_t ignored = write(p->report_fd, "", 1);
        (void)ignored;
    }
    return rc;
}

int ms_devplan_wait(int fd, ms_error *err)
{
    char buf[MS_ERR_LEN];
    size_t n = 0;
    while (n < sizeof buf - 1) {
        ssize_t k = read(fd, buf + n, sizeof buf - 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        n += (size_t)k;
        if (buf[0] == '\0')
            return MS_OK;
    }
    if (n == 0)
        return MS_OK;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    const char *s = strncmp(buf, "migsched: ", 10) ? buf : buf + 10;
    return ms_error_set(err, MS_EBACKEND, "%s", s);
}
