/* migsched_spank.c: the SPANK plugin (migsched_spank.so). It adds the job option
 * --mig=PROFILE|SLICES, checked against the cluster's GPU models before sbatch, srun or
 * salloc submit (slurm_spank_init_post_opt); each task of a step asks the node's migschedd for the
 * job's instance and waits until it is placed (slurm_spank_task_init_privileged), the step's end
 * releases the step (slurm_spank_exit), the job's epilog the whole job
 * (slurm_spank_job_epilog, which runs even when slurmstepd died). It holds no scheduling
 * logic: migschedd keys the allocation by Slurm job id, counts the steps holding it and
 * places it. See docs/daemon.md ("Slurm") and docs/cluster.md. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <pwd.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* Slurm finds the plugin's symbols by name: these are the only ones exported (the client
 * code linked in is built hidden). */
#pragma GCC visibility push(default)
#include <slurm/spank.h>

#include "spank_args.h"
#include "spank_client.h"
#include "spank_isolate.h"
#include "spank_mig_check.h"

SPANK_PLUGIN(migsched, 1)

/* --mig's value, as SPANK gives the option's callback no context: it runs in each Slurm
 * process that parses the option, slurmstepd included. */
static char mig_value[64];
static bool mig_given;

static int mig_option_cb(int val, const char *optarg, int remote)
{
    char body[128], err[256];
    if (msp_parse_mig(optarg, body, sizeof body, err, sizeof err)) {
        slurm_error("migsched: %s", err);
        return -1;
    }
    snprintf(mig_value, sizeof mig_value, "%s", optarg);
    mig_given = true;
    return 0;
}

static struct spank_option mig_option = {
    "mig",
    "PROFILE|SLICES",
    "Run in a MIG instance of this profile (e.g. 3g.20gb) or this many compute slices "
    "(e.g. 3), placed by the node's migschedd; ask --gres=migslice:N with N at least its "
    "compute slices.",
    1,
    0,
    mig_option_cb};

/* A request retried while migschedd restarts: once per retry, at verbose level. */
static void note_retry(const char *msg) { slurm_verbose("migsched: %s", msg); }

/* The plugin's arguments, parsed in each callback: slurmd runs the job epilog in a process
 * where slurm_spank_init did not run. */
static int load_conf(int ac, char **av, msp_conf *conf)
{
    char err[256];
    if (msp_parse_args(ac, av, conf, err, sizeof err)) {
        slurm_error("migsched_spank: plugstack.conf: %s", err);
        return -1;
    }
    conf->note = note_retry;
    return 0;
}

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    msp_conf conf;
    if (load_conf(ac, av, &conf))
        return -1;
    /* Registered, not a spank_options table: sbatch and salloc see only registered
     * options. */
    spank_err_t rc = spank_option_register(sp, &mig_option);
    if (rc != ESPANK_SUCCESS) {
        slurm_error("migsched_spank: cannot register --mig: %s", spank_strerror(rc));
        return -1;
    }
    return 0;
}

/* After the options, in sbatch, srun and salloc (before they submit): a --mig no GPU model
 * of gpu_model= has is refused here, listing the valid sizes and profiles, instead of
 * failing the job on its node after Slurm allocated it. */
int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    if (!mig_given || (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR))
        return 0;
    msp_conf conf;
    char err[1024];
    if (load_conf(ac, av, &conf))
        return -1;
    if (msp_check_mig(&conf, mig_value, err, sizeof err)) {
        slurm_error("migsched: %s", err);
        return -1;
    }
    return 0;
}

static int job_and_step(spank_t sp, uint32_t *job, uint32_t *step)
{
    if (spank_get_item(sp, S_JOB_ID, job) != ESPANK_SUCCESS ||
        (step && spank_get_item(sp, S_JOB_STEPID, step) != ESPANK_SUCCESS)) {
        slurm_error("migsched: cannot read the Slurm job and step ids");
        return -1;
    }
    return 0;
}

/* The name of the Slurm job's user: the allocation is theirs in migschedd. */
static int job_user(spank_t sp, char *name, size_t len, char *err, size_t errlen)
{
    uid_t uid;
    if (spank_get_item(sp, S_JOB_UID, &uid) != ESPANK_SUCCESS) {
        snprintf(err, errlen, "cannot read the Slurm job's uid");
        return -1;
    }
    struct passwd pw, *found = NULL;
    char buf[4096];
    int e = getpwuid_r(uid, &pw, buf, sizeof buf, &found);
    if (!found || strlen(pw.pw_name) >= len) {
        snprintf(err, errlen, "the Slurm job's uid %u has no usable passwd entry%s%s",
                 (unsigned)uid, e ? ": " : "", e ? strerror(e) : "");
        return -1;
    }
    snprintf(name, len, "%s", pw.pw_name);
    return 0;
}

/* A step's callback in slurmstepd: 1 with the arguments and ids when the job asked --mig,
 * 0 when there is nothing to do here, -1 on an error (logged). */
static int step_context(spank_t sp, int ac, char **av, msp_conf *conf, uint32_t *job,
                        uint32_t *step)
{
    if (!mig_given || spank_remote(sp) != 1)
        return 0;
    return load_conf(ac, av, conf) || job_and_step(sp, job, step) ? -1 : 1;
}

/* Once per task, as root, in the task's process before its exec: the task waits for its
 * instance, then is confined to its device nodes. A refusal, a timeout or a confinement
 * that cannot be set up fails the step (FAILED, exit 1:0; the node is not drained); with
 * requeue_exit=N a timeout ends the task with status N instead. */
int slurm_spank_task_init_privileged(spank_t sp, int ac, char **av)
{
    uint32_t job, step;
    msp_conf conf;
    int ctx = step_context(sp, ac, av, &conf, &job, &step);
    if (ctx <= 0)
        return ctx;
    char body[256], err[1024], user[128];
    msp_instance in;
    int rc = msp_parse_mig(mig_value, body, sizeof body, err, sizeof err) ||
                     job_user(sp, user, sizeof user, err, sizeof err) ||
                     msp_body_user(body, sizeof body, user, err, sizeof err)
                 ? -1
                 : msp_acquire(&conf, job, step, body, &in, err, sizeof err);
    if (rc == MSP_STILL_QUEUED && conf.requeue_exit) {
        /* This is the task's own process, before its exec: its exit status is the task's,
         * which RequeueExit= turns into a requeue (slurm_spank_exit still releases the
         * step, so the queued allocation goes). */
        slurm_error("migsched: job %u --mig=%s: %s; the task exits %d for RequeueExit", job,
                    mig_value, err, conf.requeue_exit);
        _exit(conf.requeue_exit);
    }
    if (rc) {
        slurm_error("migsched: job %u --mig=%s: %s", job, mig_value, err);
        return -1;
    }
    char alloc[32], gpu[16];
    snprintf(alloc, sizeof alloc, "%lld", in.allocation);
    snprintf(gpu, sizeof gpu, "%d", in.gpu);
    if (spank_setenv(sp, "CUDA_VISIBLE_DEVICES", in.mig_uuid, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "MIGSCHED_ALLOCATION", alloc, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "MIGSCHED_GPU", gpu, 1) != ESPANK_SUCCESS ||
        spank_setenv(sp, "MIGSCHED_MIG_PROFILE", in.profile, 1) != ESPANK_SUCCESS) {
        slurm_error("migsched: job %u: cannot set the task's environment", job);
        return -1;
    }
    if (msp_isolate(&conf, &in, err, sizeof err)) {
        slurm_error("migsched: job %u step %u: %s", job, step, err);
        return -1;
    }
    slurm_verbose("migsched: job %u step %u: %s on GPU %d (%s)", job, step, in.mig_uuid, in.gpu,
                  in.profile);
    return 0;
}

/* The step ended (normally, failed or cancelled; not when slurmstepd was killed, which
 * the epilog and migschedd's reconciliation cover): its hold ends. */
int slurm_spank_exit(spank_t sp, int ac, char **av)
{
    uint32_t job, step;
    msp_conf conf;
    char err[1024];
    if (step_context(sp, ac, av, &conf, &job, &step) <= 0)
        return 0;
    if (msp_release(&conf, job, step, 0, err, sizeof err))
        slurm_error("migsched: job %u step %u: release: %s", job, step, err);
    return 0; /* the step is over either way; the epilog releases the job */
}

/* In slurmd after the job, also when slurmstepd died: every step's hold ends. A failure
 * is logged, not returned (a failed epilog drains the node; the reconciliation releases
 * the allocation later). */
int slurm_spank_job_epilog(spank_t sp, int ac, char **av)
{
    char *optarg = NULL;
    if (spank_option_getopt(sp, &mig_option, &optarg) != ESPANK_SUCCESS)
        return 0;
    uint32_t job;
    msp_conf conf;
    char err[1024];
    if (load_conf(ac, av, &conf) || job_and_step(sp, &job, NULL))
        return 0;
    if (msp_release(&conf, job, 0, 1, err, sizeof err))
        slurm_error("migsched: job %u: epilog release: %s", job, err);
    return 0;
}
#pragma GCC visibility pop
