/* mps.c: MPS control daemons inside the GPU instances of a run (paper 004's hierarchical
 * plans): the mps.json reader and writer, starting and stopping `nvidia-cuda-mps-control`
 * per instance, and the variables its tasks need to reach it. */
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
        return ms_error_set(err, MS_EINVAL, "%s: line %d: invalid JSON: %s", path, je.line, je.text);
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
        rc = ms_error_set(err, MS_EINVAL, "%s: field 'instances' must be an array of plan instance ids", path);
    for (size_t i = 0; !rc && i < json_array_size(ids); i++) {
        json_t *v = json_array_get(ids, i);
        json_int_t k = json_is_integer(v) ? json_integer_value(v) : -1;
        if (k < 0 || k >= s->ninst)
            rc = ms_error_set(err, MS_EINVAL, "%s: instances[%zu]: must be an instance id of the plan (0..%d)",
                              path, i, s->ninst - 1);
        else if (p->daemon[k])
            rc = ms_error_set(err, MS_EINVAL, "%s: instances[%zu]: instance %lld listed twice", path, i, (long long)k);
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
    snprintf(p->control, sizeof p->control, "%s", control && *control ? control : "nvidia-cuda-mps-control");
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

static bool wants(const run_ctx *c, int k)
{
    return c->o->mps && k < c->o->mps->ninst && c->o->mps->daemon[k];
}

static void dir_of(const run_ctx *c, int k, const char *leaf, char *buf, size_t len)
{
    snprintf(buf, len, "%s/dev%d-inst%d/%s", c->o->mps->root,
             c->o->devices[c->inst[k].gpu], k, leaf);
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

/* Runs `command` (sh -c) with the instance's three variables; 0 if it exited 0. */
static int control(run_ctx *c, int k, const char *uuid, const char *command, char *why, size_t len)
{
    int n;
    char **envp = exec_env(3, &n);
    char vis[160], pipe_dir[600], log_dir[600], pipe_var[640], log_var[640];
    if (!envp) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    dir_of(c, k, "pipe", pipe_dir, sizeof pipe_dir);
    dir_of(c, k, "log", log_dir, sizeof log_dir);
    snprintf(vis, sizeof vis, "CUDA_VISIBLE_DEVICES=%s", uuid);
    snprintf(pipe_var, sizeof pipe_var, "CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
    snprintf(log_var, sizeof log_var, "CUDA_MPS_LOG_DIRECTORY=%s", log_dir);
    envp[n - 3] = vis;
    envp[n - 2] = pipe_var;
    envp[n - 1] = log_var;
    int rc = -1, status = 0;
    if (mkdirs(pipe_dir) || mkdirs(log_dir)) {
        snprintf(why, len, "cannot create %s or %s: %s", pipe_dir, log_dir, strerror(errno));
    } else {
        pid_t pid = exec_spawn(command, NULL, envp, -1, -1, -1, NULL, NULL);
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
static void quoted_control(const run_ctx *c, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "'");
    for (const char *p = c->o->mps->control; *p && at + 5 < len; p++)
        at += (size_t)(*p == '\'' ? snprintf(buf + at, len - at, "'\\''") : snprintf(buf + at, len - at, "%c", *p));
    snprintf(buf + at, len - at, "'");
}

int exec_mps_start(run_ctx *c, int k, char *why, size_t len)
{
    if (!wants(c, k))
        return 0;
    char ctl[1100], cmd[1200], pipe_dir[600], log_dir[600];
    quoted_control(c, ctl, sizeof ctl);
    snprintf(cmd, sizeof cmd, "%s -d", ctl);
    if (c->o->dry_run) {
        dir_of(c, k, "pipe", pipe_dir, sizeof pipe_dir);
        dir_of(c, k, "log", log_dir, sizeof log_dir);
        fprintf(c->o->dry_out ? c->o->dry_out : stdout,
                "device %d: start MPS in instance %d: CUDA_VISIBLE_DEVICES=%s CUDA_MPS_PIPE_DIRECTORY=%s "
                "CUDA_MPS_LOG_DIRECTORY=%s %s\n",
                c->o->devices[c->inst[k].gpu], k, c->inst[k].mi.uuid, pipe_dir, log_dir, cmd);
        c->inst[k].mps_up = true;
        return 0;
    }
    if (strcmp(c->o->backend, "nvml"))
        return 0; /* no GPU behind the sim backend: nothing to share */
    if (control(c, k, c->inst[k].mi.uuid, cmd, why, len))
        return -1;
    c->inst[k].mps_up = true;
    run_progress(c, "MPS control daemon started in instance %d", k);
    return 0;
}

void exec_mps_stop(run_ctx *c, int k)
{
    if (!c->inst[k].mps_up)
        return;
    char ctl[1100], cmd[1200], why[300];
    quoted_control(c, ctl, sizeof ctl);
    snprintf(cmd, sizeof cmd, "echo quit | %s", ctl);
    c->inst[k].mps_up = false;
    if (c->o->dry_run) {
        char pipe_dir[600];
        dir_of(c, k, "pipe", pipe_dir, sizeof pipe_dir);
        fprintf(c->o->dry_out ? c->o->dry_out : stdout,
                "device %d: stop MPS in instance %d: echo quit | CUDA_MPS_PIPE_DIRECTORY=%s %s\n",
                c->o->devices[c->inst[k].gpu], k, pipe_dir, ctl);
        return;
    }
    if (control(c, k, c->inst[k].mi.uuid, cmd, why, sizeof why))
        run_progress(c, "stopping the MPS daemon of instance %d: %s", k, why);
    else
        run_progress(c, "MPS control daemon of instance %d stopped", k);
}

void exec_mps_task_env(run_ctx *c, int k, char **env, char *text, size_t len)
{
    env[0] = env[1] = NULL;
    if (text && len)
        text[0] = 0;
    if (!c->inst[k].mps_up)
        return;
    char pipe_dir[600], log_dir[600];
    dir_of(c, k, "pipe", pipe_dir, sizeof pipe_dir);
    dir_of(c, k, "log", log_dir, sizeof log_dir);
    snprintf(c->env_mps_pipe, sizeof c->env_mps_pipe, "CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
    snprintf(c->env_mps_log, sizeof c->env_mps_log, "CUDA_MPS_LOG_DIRECTORY=%s", log_dir);
    env[0] = c->env_mps_pipe;
    env[1] = c->env_mps_log;
    if (text)
        snprintf(text, len, "%s %s ", c->env_mps_pipe, c->env_mps_log);
}
