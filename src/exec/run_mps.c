/* run_mps.c: a run's MPS control daemons (mps.c): one starts in each instance the MPS plan
 * names once that instance exists (nvml backend only; a dry run lists the commands), and
 * stops before the instance is destroyed; its tasks get the variables to reach it. */
#include <stdio.h>
#include <string.h>

#include "mps.h"
#include "runner.h"

static exec_mps_site site_of(const run_ctx *c, int k)
{
    return (exec_mps_site){.plan = c->o->mps,
                           .device = c->o->devices[c->inst[k].gpu],
                           .instance = k,
                           .uuid = c->inst[k].mi.uuid};
}

/* Where a dry run lists the commands; NULL when the run is for real. */
static FILE *dry_out(const run_ctx *c)
{
    return c->o->dry_run ? (c->o->dry_out ? c->o->dry_out : stdout) : NULL;
}

int run_mps_start(run_ctx *c, int k, char *why, size_t len)
{
    if (!exec_mps_wanted(c->o->mps, k))
        return 0;
    if (!c->o->dry_run && strcmp(c->o->backend, "nvml"))
        return 0; /* no GPU behind the sim backend: nothing to share */
    exec_mps_site s = site_of(c, k);
    if (exec_mps_start(&s, dry_out(c), why, len))
        return -1;
    c->inst[k].mps_up = true;
    if (!c->o->dry_run)
        run_progress(c, "MPS control daemon started in instance %d", k);
    return 0;
}

void run_mps_stop(run_ctx *c, int k)
{
    if (!c->inst[k].mps_up)
        return;
    char why[300];
    exec_mps_site s = site_of(c, k);
    c->inst[k].mps_up = false;
    if (exec_mps_stop(&s, dry_out(c), why, sizeof why))
        run_progress(c, "stopping the MPS daemon of instance %d: %s", k, why);
    else if (!c->o->dry_run)
        run_progress(c, "MPS control daemon of instance %d stopped", k);
}

void run_mps_task_env(run_ctx *c, int k, char **env, char *text, size_t len)
{
    env[0] = env[1] = NULL;
    if (text && len)
        text[0] = 0;
    if (!c->inst[k].mps_up)
        return;
    exec_mps_site s = site_of(c, k);
    exec_mps_task_env(&s, c->env_mps_pipe, sizeof c->env_mps_pipe, c->env_mps_log,
                      sizeof c->env_mps_log);
    env[0] = c->env_mps_pipe;
    env[1] = c->env_mps_log;
    if (text)
        snprintf(text, len, "%s %s ", c->env_mps_pipe, c->env_mps_log);
}
