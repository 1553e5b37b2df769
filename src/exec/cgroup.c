/* cgroup.c: per-task cgroups on the unified (v2) hierarchy (migsched/process.h). */
#include "migsched/process.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The longest cgroup path kept (a journal record holds it whole). */
#define MS_CGROUP_PATH_LEN MS_JOURNAL_CGROUP_LEN

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

static bool on_cgroup2(const char *path)
{
    struct statfs fs;
    return statfs(path, &fs) == 0 && fs.f_type == CGROUP2_SUPER_MAGIC;
}

/* mountinfo writes a space, tab, newline and backslash of a path as \ooo. */
static void unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* The unified hierarchy's mount point and the root it shows (mountinfo fields 5 and 4). */
static bool unified_mount(char *point, size_t plen, char *root, size_t rlen)
{
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *sep = strstr(line, " - ");
        char fstype[32], r[2048], p[2048];
        if (!sep || sscanf(sep + 3, "%31s", fstype) != 1 || strcmp(fstype, "cgroup2") ||
            sscanf(line, "%*s %*s %*s %2047s %2047s", r, p) != 2)
            continue;
        unescape(r);
        unescape(p);
        found = strlen(p) < plen && strlen(r) < rlen;
        if (found) {
            snprintf(point, plen, "%s", p);
            snprintf(root, rlen, "%s", r);
        }
    }
    fclose(f);
    return found;
}

/* This process's cgroup on the unified hierarchy ("0::PATH" in /proc/self/cgroup). */
static bool own_cgroup(char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        found = !strncmp(line, "0::", 3) && strlen(line + 3) < len;
        if (found)
            snprintf(out, len, "%s", line + 3);
    }
    fclose(f);
    return found;
}

int ms_cgroup_root(const char *configured, char *out, size_t len, ms_error *err)
{
    if (configured && configured[0]) {
        if (!on_cgroup2(configured))
            return ms_error_set(err, MS_EINVAL, "%s: not a folder of a cgroup v2 file system",
                                configured);
        if ((size_t)snprintf(out, len, "%s", configured) >= len)
            return ms_error_set(err, MS_EINVAL, "%s: path too long", configured);
        return MS_OK;
    }
    char point[1024], root[1024], own[1024];
    if (!unified_mount(point, sizeof point, root, sizeof root))
        return ms_error_set(err, MS_EINVAL,
                            "no cgroup v2 (unified) hierarchy is mounted "
                            "(/proc/self/mountinfo lists no cgroup2)");
    if (!own_cgroup(own, sizeof own))
        return ms_error_set(err, MS_EINVAL,
                            "this process has no cgroup v2 entry in "
                            "/proc/self/cgroup");
    /* A mount of a sub-tree (a container's) shows paths below its root. */
    const char *rel = own;
    size_t rl = strlen(root);
    if (strcmp(root, "/")) {
        if (strncmp(own, root, rl) || (own[rl] != '/' && own[rl] != '\0'))
            return ms_error_set(err, MS_EINVAL,
                                "%s: the cgroup v2 mount at %s shows %s, not "
                                "this process's cgroup",
                                own, point, root);
        rel = own + rl;
    }
    if ((size_t)snprintf(out, len, "%s%s", point, strcmp(rel, "/") ? rel : "") >= len)
        return ms_error_set(err, MS_EINVAL, "%s%s: path too long", point, rel);
    if (!on_cgroup2(out))
        return ms_error_set(err, MS_EINVAL, "%s: not a folder of a cgroup v2 file system", out);
    return MS_OK;
}

/* A file of the cgroup at path, e.g. "cgroup.procs". */
static bool file_of(const char *path, const char *name, char *buf, size_t len)
{
    return (size_t)snprintf(buf, len, "%s/%s", path, name) < len;
}

int ms_cgroup_make(const char *path, ms_error *err)
{
    if (mkdir(path, 0755) == 0)
        return MS_OK;
    /* Left by a run that crashed before recording it: taken only once empty. */
    if (errno == EEXIST && on_cgroup2(path) && !ms_cgroup_populated(path))
        return MS_OK;
    return ms_error_set(err, MS_EIO, "cgroup %s: %s", path,
                        errno == EEXIST ? "exists and is not an empty cgroup" : strerror(errno));
}

int ms_cgroup_ensure(const char *path, ms_error *err)
{
    if (mkdir(path, 0755) == 0 || (errno == EEXIST && on_cgroup2(path)))
        return MS_OK;
    return ms_error_set(err, MS_EIO, "cgroup %s: %s", path,
                        errno == EEXIST ? "exists and is not a cgroup" : strerror(errno));
}

int ms_cgroup_enter(const char *path, pid_t pid, ms_error *err)
{
    char file[MS_CGROUP_PATH_LEN + 32], text[32];
    if (!file_of(path, "cgroup.procs", file, sizeof file))
        return ms_error_set(err, MS_EINVAL, "cgroup %s: path too long", path);
    int fd = open(file, O_WRONLY | O_CLOEXEC);
    int n = snprintf(text, sizeof text, "%d\n", (int)pid);
    bool ok = fd >= 0 && write(fd, text, (size_t)n) == n;
    int saved = errno;
    if (fd >= 0)
        close(fd);
    return ok ? MS_OK
              : ms_error_set(err, MS_EIO, "cgroup %s: cannot move process %d into it: %s", path,
                             (int)pid, strerror(saved));
}

bool ms_cgroup_populated(const char *path)
{
    char file[MS_CGROUP_PATH_LEN + 32];
    if (!file_of(path, "cgroup.events", file, sizeof file))
        return true;
    FILE *f = fopen(file, "re");
    if (!f)
        return errno != ENOENT;
    char line[64];
    bool populated = true;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "populated ", 10))
            populated = line[10] != '0';
    fclose(f);
    return populated;
}

/* Writes "1" to cgroup.kill; false where the kernel has none (before Linux 5.14). */
static bool kill_all(const char *path)
{
    char file[MS_CGROUP_PATH_LEN + 32];
    int fd = file_of(path, "cgroup.kill", file, sizeof file) ? open(file, O_WRONLY | O_CLOEXEC)
                                                             : -1;
    bool ok = fd >= 0 && write(fd, "1", 1) == 1;
    if (fd >= 0)
        close(fd);
    return ok;
}

int ms_cgroup_signal(const char *path, int sig)
{
    bool killed = sig == SIGKILL && kill_all(path);
    char file[MS_CGROUP_PATH_LEN + 32];
    FILE *f = file_of(path, "cgroup.procs", file, sizeof file) ? fopen(file, "re") : NULL;
    if (!f)
        return 0;
    int n = 0;
    long pid;
    while (fscanf(f, "%ld", &pid) == 1)
        n += pid > 0 && (killed || kill((pid_t)pid, sig) == 0);
    fclose(f);
    return n;
}

int ms_cgroup_remove(const char *path, ms_error *err)
{
    if (rmdir(path) == 0 || errno == ENOENT)
        return MS_OK;
    return ms_error_set(err, MS_EIO, "cgroup %s: cannot remove it: %s", path, strerror(errno));
}

void ms_cgroup_prune(const char *path)
{
    DIR *d = opendir(path);
    for (struct dirent *de; d && (de = readdir(d));) {
        char child[MS_CGROUP_PATH_LEN + 256];
        if (de->d_type == DT_DIR && strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
            (size_t)snprintf(child, sizeof child, "%s/%s", path, de->d_name) < sizeof child)
            rmdir(child);
    }
    if (d)
        closedir(d);
    rmdir(path);
}

/* Waits up to `seconds` for the n cgroups to empty; true if they did. */
static bool wait_empty(const char *const *paths, int n, double seconds)
{
    for (double waited = 0;; waited += 0.05) {
        bool any = false;
        for (int i = 0; i < n && !any; i++)
            any = ms_cgroup_populated(paths[i]);
        if (!any)
            return true;
        if (waited >= seconds)
            return false;
        nanosleep(&(struct timespec){0, 50 * 1000 * 1000}, NULL);
    }
}

void ms_cgroup_stop_tasks(const ms_journal_state *st, double grace, bool *held, bool *gone)
{
    const char *paths[MS_JOURNAL_MAX_RECORDS];
    int at[MS_JOURNAL_MAX_RECORDS], n = 0, left = 0;
    for (int k = 0; k < st->n; k++) {
        held[k] = gone[k] = false;
        if (st->rec[k].kind != MS_JOURNAL_TASK || !st->rec[k].cgroup[0])
            continue;
        paths[n] = st->rec[k].cgroup;
        at[n] = k;
        held[k] = ms_cgroup_signal(paths[n], SIGTERM) > 0 || ms_cgroup_populated(paths[n]);
        left += held[at[n++]];
    }
    if (left && !wait_empty(paths, n, grace)) {
        for (int i = 0; i < n; i++)
            ms_cgroup_signal(paths[i], SIGKILL);
        wait_empty(paths, n, 2.0);
    }
    for (int i = 0; i < n; i++)
        gone[at[i]] = !ms_cgroup_populated(paths[i]) && ms_cgroup_remove(paths[i], NULL) == MS_OK;
}

int ms_cgroup_probe(const char *dir, ms_error *err)
{
    char path[MS_CGROUP_PATH_LEN];
    if ((size_t)snprintf(path, sizeof path, "%s/probe", dir) >= sizeof path)
        return ms_error_set(err, MS_EINVAL, "%s: path too long", dir);
    int rc = ms_cgroup_make(path, err), gate[2] = {-1, -1};
    if (rc)
        return rc;
    pid_t pid = pipe2(gate, O_CLOEXEC) == 0 ? fork() : -1;
    if (pid == 0) { /* waits until killed or its parent goes (the pipe's end) */
        char c;
        close(gate[1]);
        _exit(read(gate[0], &c, 1) < 0 ? 1 : 0);
    }
    if (pid < 0)
        rc = ms_error_set(err, MS_EIO, "cannot start a process: %s", strerror(errno));
    if (!rc)
        rc = ms_cgroup_enter(path, pid, err);
    const char *one[1] = {path};
    if (!rc && !ms_cgroup_populated(path))
        rc = ms_error_set(err, MS_EIO, "cgroup %s: a process moved into it is not seen there",
                          path);
    if (!rc) { /* how many it signalled may be 0: the kill can beat the listing */
        ms_cgroup_signal(path, SIGKILL);
        if (!wait_empty(one, 1, 2.0))
            rc = ms_error_set(err, MS_EIO,
                              "cgroup %s: its process cannot be killed through "
                              "it",
                              path);
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
    for (int i = 0; i < 2; i++)
        if (gate[i] >= 0)
            close(gate[i]);
    int removed = ms_cgroup_remove(path, rc ? NULL : err);
    return rc ? rc : removed;
}
