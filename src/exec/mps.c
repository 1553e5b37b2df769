/* mps.c: MPS control daemons inside GPU instances (paper 004's hierarchical plans): the
 * mps.json reader and writer, starting and stopping `nvidia-cuda-mps-control` in one
 * instance, and the variables its tasks need to reach it (run_mps.c decides when). */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "migsched/io.h"
#include "mps.h"
#include "spawn.h"

void ms_mps_plan_free(ms_mps_plan *p)
{
    if (!p)
        return;
    free(p->daemon);
    free(p);
}

int ms_mps_plan_read(const char *path, const ms_schedule *s, ms_mps_plan **out, ms_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    int rc = ms_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!root)
        return ms_error_set(err, MS_EINVAL, "%s: line %d: invalid JSON: %s", path, je.line,
                            je.text);
    ms_mps_plan *p = calloc(1, sizeof *p);
    if (p)
        p->daemon = calloc((size_t)s->ninst + 1, sizeof *p->daemon);
    json_t *ids = json_object_get(root, "instances");
    const char *fmt = json_string_value(json_object_get(root, "format"));
    if (!p || !p->daemon)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else if (!fmt || strcmp(fmt, "migsched-mps/1"))
        rc = ms_error_set(err, MS_EINVAL, "%s: field 'format' must be \"migsched-mps/1\"", path);
    else if (!json_is_array(ids))
        rc = ms_error_set(err, MS_EINVAL,
                          "%s: field 'instances' must be an array of plan instance ids", path);
    for (size_t i = 0; !rc && i < json_array_size(ids); i++) {
        json_t *v = json_array_get(ids, i);
        json_int_t k = json_is_integer(v) ? json_integer_value(v) : -1;
        if (k < 0 || k >= s->ninst)
            rc = ms_error_set(err, MS_EINVAL,
                              "%s: instances[%zu]: must be an instance id of the plan (0..%d)",
                              path, i, s->ninst - 1);
        else if (p->daemon[k])
            rc = ms_error_set(err, MS_EINVAL, "%s: instances[%zu]: instance %lld listed twice",
                              path, i, (long long)k);
        else
            p->daemon[k] = true;
    }
    json_decref(root);
    if (rc) {
        ms_mps_plan_free(p);
        return rc;
    }
    p->ninst = s->ninst;
    const char *control = getenv("MIGSCHED_MPS_CONTROL");
    snprintf(p->control, sizeof p->control, "%s",
             control && *control ? control : "nvidia-cuda-mps-control");
    snprintf(p->root, sizeof p->root, "/tmp/migsched-mps");
    *out = p;
    return MS_OK;
}

int ms_mps_plan_write_json(const int *daemon, int ninst, FILE *f, ms_error *err)
{
    fprintf(f, "{\n  \"format\": \"migsched-mps/1\",\n  \"instances\": [");
    int first = 1;
    for (int k = 0; k < ninst; k++)
        if (daemon[k]) {
            fprintf(f, "%s%d", first ? "" : ", ", k);
            first = 0;
        }
    fprintf(f, "]\n}\n");
    return ferror(f) ? ms_error_set(err, MS_EIO, "cannot write the MPS plan") : MS_OK;
}

bool exec_mps_wanted(const ms_mps_plan *p, int k) { return p && k < p->ninst && p->daemon[k]; }

static void dir_of(const exec_mps_site *s, const char *leaf, char *buf, size_t len)
{
    snprintf(buf, len, "%s/dev%d-inst%d/%s", s->plan->root, s->device, s->instance, leaf);
}

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            int bad = mkdir(path, 0700) != 0 && errno != EEXIST;
            *p = '/';
            if (bad)
                return -1;
        }
    return mkdir(path, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

void exec_mps_task_env(const exec_mps_site *s, char *pipe_var, size_t pipe_len, char *log_var,
                       size_t log_len)
{
    char pipe_dir[600], log_dir[600];
    dir_of(s, "pipe", pipe_dir, sizeof pipe_dir);
    dir_of(s, "log", log_dir, sizeof log_dir);
    snprintf(pipe_var, pipe_len, "CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
    snprintf(log_var, log_len, "CUDA_MPS_LOG_DIRECTORY=%s", log_dir);
}

/* Runs `command` (sh -c) with the instance's three variables; 0 if it exited 0. */
static int control(const exec_mps_site *s, const char *command, char *why, size_t len)
{
    int n;
    char **envp = exec_env(3, &n);
    char vis[160], pipe_dir[600], log_dir[600], pipe_var[640], log_var[640];
    if (!envp) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    dir_of(s, "pipe", pipe_dir, sizeof pipe_dir);
    dir_of(s, "log", log_dir, sizeof log_dir);
    snprintf(vis, sizeof vis, "CUDA_VISIBLE_DEVICES=%s", s->uuid);
    exec_mps_task_env(s, pipe_var, sizeof pipe_var, log_var, sizeof log_var);
    envp[n - 3] = vis;
    envp[n - 2] = pipe_var;
    envp[n - 1] = log_var;
    int rc = -1, status = 0;
    if (mkdirs(pipe_dir) || mkdirs(log_dir)) {
        snprintf(why, len, "cannot create %s or %s: %s", pipe_dir, log_dir, strerror(errno));
    } else {
        pid_t pid = ms_exec_spawn(
            &(ms_exec_spawn_opts){
                .command = command, .envp = envp, .out_fd = -1, .err_fd = -1, .sleep_s = -1},
            NULL);
        if (pid < 0)
            snprintf(why, len, "cannot start '%s': %s", command, strerror(errno));
        else if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
            snprintf(why, len, "'%s' failed (exit status %d)", command,
                     WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        else
            rc = 0;
    }
    free(envp);
    return rc;
}

/* The control binary as one shell word. */
static void quoted_control(const ms_mps_plan *p, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "'");
    for (const char *q = p->control; *q && at + 5 < len; q++)
        at += (size_t)(*q == '\'' ? snprintf(buf + at, len - at, "'\\''")
                                  : snprintf(buf + at, len - at, "%c", *q));
    snprintf(buf + at, len - at, "'");
}

int exec_mps_start(const exec_mps_site *s, FILE *dry, char *why, size_t len)
{
    char ctl[1100], cmd[1200], pipe_dir[600], log_dir[600];
    quoted_control(s->plan, ctl, sizeof ctl);
    snprintf(cmd, sizeof cmd, "%s -d", ctl);
    if (dry) {
        dir_of(s, "pipe", pipe_dir, sizeof pipe_dir);
        dir_of(s, "log", log_dir, sizeof log_dir);
        fprintf(dry,
                "device %d: start MPS in instance %d: CUDA_VISIBLE_DEVICES=%s "
                "CUDA_MPS_PIPE_DIRECTORY=%s CUDA_MPS_LOG_DIRECTORY=%s %s\n",
                s->device, s->instance, s->uuid, pipe_dir, log_dir, cmd);
        return 0;
    }
    return control(s, cmd, why, len);
}

int exec_mps_stop(const exec_mps_site *s, FILE *dry, char *why, size_t len)
{
    char ctl[1100], cmd[1200];
    quoted_control(s->plan, ctl, sizeof ctl);
    if (dry) {
        char pipe_dir[600];
        dir_of(s, "pipe", pipe_dir, sizeof pipe_dir);
        fprintf(dry,
                "device %d: stop MPS in instance %d: echo quit | "
                "CUDA_MPS_PIPE_DIRECTORY=%s %s\n",
                s->device, s->instance, pipe_dir, ctl);
        return 0;
    }
    snprintf(cmd, sizeof cmd, "echo quit | %s", ctl);
    return control(s, cmd, why, len);
}
