/* slurm.c: migschedd's queries to Slurm (squeue, scontrol). */
#include "slurm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"
#include "migsched/io.h"

extern char **environ;

#define OUTPUT_MAX (16u << 20) /* a cluster's running job ids fit many times over */

/* Runs argv (argv[0] looked up on PATH) with stdout and stderr into one pipe; *out is what
 * it printed (malloc'd, NUL-terminated) when it exits 0, else an error quoting its first
 * line. The daemon's blocked signals are not passed on. */
static int capture(char *const argv[], char **out, ms_error *err)
{
    *out = NULL;
    int fd[2];
    if (pipe2(fd, O_CLOEXEC))
        return ms_error_set(err, MS_EIO, "%s: pipe: %s", argv[0], strerror(errno));
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none;
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
    posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
    posix_spawnattr_init(&at);
    posix_spawnattr_setsigmask(&at, &none);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close(fd[1]);
    if (rc) {
        close(fd[0]);
        return ms_error_set(err, MS_EIO, "cannot run %s: %s", argv[0], strerror(rc));
    }
    size_t len = 0, cap = 4096;
    char *buf = malloc(cap);
    for (ssize_t k = 1; buf && k > 0;) {
        if (len + 1 == cap) {
            char *b = cap < OUTPUT_MAX ? realloc(buf, cap * 2) : NULL;
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        k = read(fd[0], buf + len, cap - 1 - len);
        if (k < 0 && errno == EINTR)
            k = 1;
        else if (k > 0)
            len += (size_t)k;
    }
    close(fd[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!buf)
        return ms_error_set(err, MS_ENOMEM, "%s: output too large or out of memory", argv[0]);
    buf[len] = '\0';
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        buf[strcspn(buf, "\n")] = '\0';
        rc = ms_error_set(err, MS_EIO, "%s failed (%s %d): %.200s", argv[0],
                          WIFEXITED(status) ? "exit status" : "signal",
                          WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), buf);
        free(buf);
        return rc;
    }
    *out = buf;
    return MS_OK;
}

/* Makes room for one more element in *arr (n used of *cap, elem bytes each), doubling from
 * 64; on failure frees it, leaving *arr NULL and *n 0 (a parser's result on any error). */
static int room_for_one(void **arr, size_t *n, size_t *cap, size_t elem)
{
    if (*n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    void *b = realloc(*arr, c * elem);
    if (!b) {
        free(*arr);
        *arr = NULL;
        *n = 0;
        return -1;
    }
    *arr = b;
    *cap = c;
    return 0;
}

int md_slurm_parse_job_ids(const char *text, int64_t **ids, size_t *n, ms_error *err)
{
    *ids = NULL;
    *n = 0;
    size_t cap = 0, lineno = 0;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        char buf[32];
        lineno++;
        size_t lead = strspn(line, " \t"), used = len - lead;
        while (used && (line[lead + used - 1] == ' ' || line[lead + used - 1] == '\r'))
            used--;
        long id;
        if (used && (used >= sizeof buf || (memcpy(buf, line + lead, used), buf[used] = '\0',
                                            !ms_parse_long(buf, 1, MD_SLURM_JOB_ID_MAX, &id)))) {
            free(*ids);
            *ids = NULL;
            *n = 0;
            return ms_error_set(err, MS_EINVAL, "squeue: line %zu: not a job id: \"%.*s\"", lineno,
                                (int)(len > 60 ? 60 : len), line);
        }
        if (used) {
            if (room_for_one((void **)ids, n, &cap, sizeof **ids))
                return ms_error_set(err, MS_ENOMEM, "out of memory");
            (*ids)[(*n)++] = id;
        }
        line += len + (line[len] == '\n');
    }
    return MS_OK;
}

int md_slurm_running_jobs(int64_t **ids, size_t *n, ms_error *err)
{
    /* --all: jobs in hidden partitions too (missing one would release its allocation). */
    char *const argv[] = {"squeue",
                          "--all",
                          "--noheader",
                          "--format=%A",
                          "--states=RUNNING,COMPLETING,SUSPENDED,CONFIGURING,STOPPED",
                          NULL};
    char *text;
    int rc = capture(argv, &text, err);
    if (rc)
        return rc;
    rc = md_slurm_parse_job_ids(text, ids, n, err);
    free(text);
    return rc;
}

/* The count of `gres` in a TRES list (items up to a blank or the line's end). */
static int tres_count(const char *f, const char *gres, long *count, ms_error *err)
{
    *count = 0;
    size_t glen = strlen(gres);
    for (const char *item = f; *item && *item != ' ' && *item != '\n';) {
        size_t len = strcspn(item, ", \n");
        char buf[256];
        if (len >= sizeof buf)
            return ms_error_set(err, MS_EINVAL, "a TRES item of over 255 bytes");
        memcpy(buf, item, len);
        buf[len] = '\0';
        char *p = buf;
        if (!strncmp(p, "gres:", 5) || !strncmp(p, "gres/", 5))
            p += 5;
        if (!strncmp(p, gres, glen) && (p[glen] == ':' || p[glen] == '\0')) {
            /* NAME, NAME:TYPE (one each), NAME:N or NAME:TYPE:N. */
            const char *last = strrchr(p, ':');
            long v = 1;
            bool numeric = last && ms_parse_long(last + 1, 0, 1L << 40, &v);
            *count += numeric ? v : 1;
        }
        item += len + (item[len] == ',');
    }
    return MS_OK;
}

int md_slurm_parse_gres(const char *text, const char *gres, long *count, ms_error *err)
{
    *count = 0;
    const char *f = strstr(text, "TresPerNode=");
    while (f && f != text && f[-1] != ' ' && f[-1] != '\n')
        f = strstr(f + 1, "TresPerNode=");
    if (!f)
        return MS_OK; /* the job asks no GRES */
    ms_error why = {0};
    if (tres_count(f + strlen("TresPerNode="), gres, count, &why))
        return ms_error_set(err, MS_EINVAL, "scontrol: TresPerNode: %s", why.msg);
    return MS_OK;
}

int md_slurm_parse_pending(const char *text, const char *gres, long **slices, size_t *n,
                           ms_error *err)
{
    *slices = NULL;
    *n = 0;
    size_t cap = 0, lineno = 0;
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        lineno++;
        const char *tres = line + strspn(line, " \t");
        tres += strcspn(tres, " \t\n"); /* the job id */
        tres += strspn(tres, " \t");    /* then its TRES per node */
        long count = 0;
        ms_error why = {0};
        if (tres < line + len && tres_count(tres, gres, &count, &why)) {
            free(*slices);
            *slices = NULL;
            *n = 0;
            return ms_error_set(err, MS_EINVAL, "squeue: line %zu: %s", lineno, why.msg);
        }
        if (count > 0) {
            if (room_for_one((void **)slices, n, &cap, sizeof **slices))
                return ms_error_set(err, MS_ENOMEM, "out of memory");
            (*slices)[(*n)++] = count;
        }
        line += len + (line[len] == '\n');
    }
    return MS_OK;
}

int md_slurm_pending_jobs(const char *gres, long **slices, size_t *n, ms_error *err)
{
    char *const argv[] = {"squeue",           "--all",          "--noheader",
                          "--states=PENDING", "--format=%i %b", NULL};
    char *text;
    int rc = capture(argv, &text, err);
    if (rc)
        return rc;
    rc = md_slurm_parse_pending(text, gres, slices, n, err);
    free(text);
    return rc;
}

/* Whether s is one word Slurm's parser takes as it is: no blank, quote, '=' or comma of its
 * own, only what the names migschedd writes are made of. */
static bool plain(const char *s)
{
    size_t n = strlen(s);
    return n &&
           strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-") == n;
}

static void update_argv(md_slurm_update *u)
{
    u->argv[0] = "scontrol";
    u->argv[1] = "update";
    u->argv[2] = u->target;
    u->argv[3] = u->value;
    u->argv[4] = NULL;
}

int md_slurm_comment_update(md_slurm_update *u, int64_t job, const char *profile, int gpu,
                            const char *gpu_uuid, const char *mig_uuid, ms_error *err)
{
    if (job < 1 || job > MD_SLURM_JOB_ID_MAX || gpu < 0 || !plain(profile) || !plain(gpu_uuid) ||
        !plain(mig_uuid))
        return ms_error_set(err, MS_EINVAL,
                            "Slurm job %lld: the instance's names are not plain words "
                            "([A-Za-z0-9._+-]): no AdminComment",
                            (long long)job);
    snprintf(u->target, sizeof u->target, "JobId=%lld", (long long)job);
    int len = snprintf(u->value, sizeof u->value,
                       "AdminComment=migsched:profile=%s,gpu=%d,gpu_uuid=%s,mig_uuid=%s", profile,
                       gpu, gpu_uuid, mig_uuid);
    if (len < 0 || (size_t)len >= sizeof u->value)
        return ms_error_set(err, MS_EINVAL, "Slurm job %lld: AdminComment too long",
                            (long long)job);
    update_argv(u);
    return MS_OK;
}

int md_slurm_node_update(md_slurm_update *u, const char *node, const char *gres, long count,
                         ms_error *err)
{
    if (!plain(node) || !plain(gres) || count < 0)
        return ms_error_set(err, MS_EINVAL, "node \"%.64s\", GRES \"%.64s\": not plain names", node,
                            gres);
    snprintf(u->target, sizeof u->target, "NodeName=%s", node);
    snprintf(u->value, sizeof u->value, "Gres=%s:%ld", gres, count);
    update_argv(u);
    return MS_OK;
}

int md_slurm_run_update(const md_slurm_update *u, ms_error *err)
{
    char *text;
    int rc = capture(u->argv, &text, err);
    free(text);
    return rc;
}

int md_slurm_job_gres(int64_t job, const char *gres, long *count, ms_error *err)
{
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)job);
    char *const argv[] = {"scontrol", "--oneliner", "show", "job", id, NULL};
    char *text;
    int rc = capture(argv, &text, err);
    if (rc)
        return rc;
    rc = md_slurm_parse_gres(text, gres, count, err);
    free(text);
    return rc;
}
