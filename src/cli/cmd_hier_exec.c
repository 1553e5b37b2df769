/* cmd_hier_exec.c: `migsched hier --exec-out DIR`: the plan as a schedule, its workload and
 * the MPS daemons it needs, for `migsched run` (docs/hier.md, "Running a plan"). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "hier_cli.h"
#include "migsched/exec.h"
#include "migsched/io.h"

static int write_one(const char *dir, const char *name, int what, const ms_hier_exec *x,
                     ms_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    if (what == 0)
        rc = ms_schedule_write_json(x->schedule, x->workload, o.f, err);
    else if (what == 1) {
        rc = ms_workload_write_json(x->workload, &x->schedule->gpu, o.f, err);
        if (rc)
            ms_error_prefix(err, "%s", path);
    } else
        rc = ms_mps_plan_write_json(x->mps_daemon, x->schedule->ninst, o.f, err);
    if (rc) {
        ms_output_abort(&o);
        return rc;
    }
    return ms_output_commit(&o, err);
}

int hier_write_exec(const ms_hier_plan *p, const ms_hier_window *w, const char *gpu_name,
                    const char *dir, ms_error *err)
{
    ms_gpu_model gpu;
    int rc = ms_gpu_lookup(gpu_name, &gpu, err);
    if (rc)
        return rc;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return ms_error_set(err, MS_EIO, "%s: cannot create the folder: %s", dir, strerror(errno));
    ms_hier_exec x;
    if ((rc = ms_hier_render(p, w, &gpu, &x, err)))
        return rc;
    /* The rendering must be a plan the validator accepts before anything is written. */
    ms_validation v = {0};
    if (ms_schedule_validate(x.schedule, x.workload, &v) > 0)
        rc = ms_error_set(err, MS_EINVAL, "internal: rendered plan invalid (%s: %s)", v.v[0].rule,
                          v.v[0].msg);
    ms_validation_fini(&v);
    for (int what = 0; what < 3 && !rc; what++)
        rc = write_one(dir,
                       what == 0   ? "plan.json"
                       : what == 1 ? "workload.json"
                                   : "mps.json",
                       what, &x, err);
    ms_hier_exec_fini(&x);
    return rc;
}
