/* engine_nvml.c: the nvml engine's open and close: its devices (locked like `migsched
 * run`), the log folder, the reconciliation with the previous owner (engine_recover.c),
 * the jobs' cgroups, and the journal closed at the end. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "log.h"
#include "migsched/io.h"
#include "migsched/isolate.h"
#include "migsched/process.h"

static int open_device(md_engine *e, int g, int device, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    gp->device = device;
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        gp->inst[k] = (ei_inst){.profile = -1};
    int rc = ms_backend_open("nvml", device, e->m, NULL, &gp->be, err);
    if (rc)
        return rc;
    bool on;
    if ((rc = ms_backend_mig_mode(gp->be, &on, err)))
        return rc;
    if (!on)
        return ms_error_set(err, MS_EINVAL,
                            "device %d: MIG mode is off (enable it, e.g. with "
                            "migsched run --enable-mig or nvidia-smi -mig 1)",
                            device);
    snprintf(gp->uuid, sizeof gp->uuid, "%s", ms_backend_gpu_uuid(gp->be));
    return ms_device_lock_open(NULL, gp->uuid, &gp->lock, err);
}

/* What jobs will be confined by, said once at start: nothing (a warning), or why every
 * job of a GPU will fail to start. */
static void note_isolation(const md_engine *e)
{
    char q[MS_ERR_LEN + 64];
    if (e->c->isolation == MD_ISOLATION_NONE) {
        md_log(MD_LOG_WARN, "isolation.none", "warning=%s",
               md_log_quote("isolation none: jobs can reach every MIG instance on the node", q,
                            sizeof q));
        return;
    }
    for (int g = 0; g < e->ngpus; g++) {
        unsigned minor;
        ms_error err = {0};
        if (ms_backend_gpu_minor(e->gpu[g].be, &minor, &err))
            md_log(MD_LOG_WARN, "isolation.unavailable", "gpu=%d error=%s", e->gpu[g].device,
                   md_log_quote(err.msg, q, sizeof q));
    }
    if (access(e->c->mig_minors, R_OK)) {
        char qe[160];
        md_log(MD_LOG_WARN, "isolation.unavailable", "mig_minors=%s error=%s",
               md_log_quote(e->c->mig_minors, q, sizeof q),
               md_log_quote(strerror(errno), qe, sizeof qe));
    }
}

/* Whether pid is a live process, whatever its name: the engine also runs inside other
 * programs (the tests embed it), and a folder whose pid was reused merely waits for a
 * later start, empty. */
static bool process_alive(long pid) { return kill((pid_t)pid, 0) == 0 || errno == EPERM; }

/* Under root, the folders of daemons that are gone (a crash's, emptied by recovery) are
 * removed with their empty job cgroups, so that crashes leave none behind. */
static void sweep_cgroups(const char *root)
{
    DIR *d = opendir(root);
    for (struct dirent *de; d && (de = readdir(d));) {
        char path[MS_JOURNAL_CGROUP_LEN + 256], *end;
        long pid = !strncmp(de->d_name, "migschedd-", 10) ? strtol(de->d_name + 10, &end, 10) : 0;
        if (pid > 0 && !*end && pid != getpid() && !process_alive(pid) &&
            (size_t)snprintf(path, sizeof path, "%s/%s", root, de->d_name) < sizeof path)
            ms_cgroup_prune(path);
    }
    if (d)
        closedir(d);
}

/* The folder of the jobs' cgroups, e->cgroup: cgroup-root/migschedd-PID (a folder per
 * daemon, so that daemons of other stores under one cgroup never meet). With cgroup-root
 * left to its default, no usable cgroup v2 is said once and jobs are tracked by process
 * group (docs/daemon.md, Crash recovery); a cgroup-root set and unusable stops the start. */
static int open_cgroups(md_engine *e, ms_error *err)
{
    const char *conf = e->c->cgroup_root;
    char root[MS_JOURNAL_CGROUP_LEN], q[MS_ERR_LEN + 64];
    ms_error why = {0};
    bool off = !strcmp(conf, "none");
    int rc = off ? ms_error_set(&why, MS_EINVAL, "cgroup-root is none")
                 : ms_cgroup_root(conf, root, sizeof root, &why);
    /* Room for "/job-ID.ATTEMPT" after it. */
    if (!rc && (size_t)snprintf(e->cgroup, sizeof e->cgroup, "%s/migschedd-%d", root,
                                (int)getpid()) >= sizeof e->cgroup - 48)
        rc = ms_error_set(&why, MS_EINVAL, "%s: path too long for the journal", root);
    if (!rc) {
        sweep_cgroups(root);
        rc = ms_cgroup_make(e->cgroup, &why);
    }
    if (!rc && (rc = ms_cgroup_probe(e->cgroup, &why)))
        ms_cgroup_remove(e->cgroup, NULL);
    if (!rc) {
        md_log(MD_LOG_INFO, "cgroup.root", "path=%s", md_log_quote(e->cgroup, q, sizeof q));
        return MS_OK;
    }
    e->cgroup[0] = '\0';
    if (conf[0] && !off)
        return ms_error_set(err, rc, "cgroup-root %s: %s", conf, why.msg);
    md_log(MD_LOG_WARN, "cgroup.unavailable",
           "reason=%s warning=\"jobs are tracked by "
           "process group: a child that leaves it (setsid) outlives its job\"",
           md_log_quote(why.msg, q, sizeof q));
    return MS_OK;
}

int ei_nvml_open(md_engine *e, ms_error *err)
{
    const md_config *c = e->c;
    e->nvml = true;
    e->ngpus = c->ndevices;
    int rc = MS_OK;
    for (int g = 0; g < e->ngpus && !rc; g++)
        rc = open_device(e, g, c->devices[g], err);
    if (!rc)
        rc = ms_dir_check("log-dir", c->log_dir, 0750, err);
    char path[512];
    if (!rc)
        rc = ms_default_run_path(c->devices, c->ndevices, ".journal", path, sizeof path, err);
    if (rc)
        return rc;
    if (!rc)
        rc = ei_recover(e, path, err);
    if (!rc)
        rc = open_cgroups(e, err);
    if (!rc)
        note_isolation(e);
    return rc;
}

void ei_nvml_close(md_engine *e, bool clean)
{
    if (e->cgroup[0]) /* busy only with jobs a failing stop left: the next start's */
        ms_cgroup_remove(e->cgroup, NULL);
    if (e->journal)
        ms_journal_close(e->journal, clean, NULL);
    e->journal = NULL;
    for (int g = 0; g < e->ngpus; g++) {
        ms_device_lock_close(e->gpu[g].lock);
        e->gpu[g].lock = NULL;
    }
}
