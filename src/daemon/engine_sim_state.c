/* engine_sim_state.c: the sim engine's GPUs kept in a state file (`sim-state FILE`), so
 * that the daemon runs on simulated GPUs that `migsched apply` and `export` prepared and
 * read: made from gpu and gpus when missing, locked like nvml devices, and whatever they
 * hold when the daemon starts is foreign (never used or destroyed), as an nvml device's
 * instances that no journal proves ours are, except a held allocation's instance, adopted
 * by its MIG UUID as with nvml. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "log.h"

static int open_gpu(md_engine *e, int g, const ms_backend_options *opt, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    gp->device = g;
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        gp->inst[k] = (ei_inst){.profile = -1};
    int rc = ms_backend_open("sim", g, e->m, opt, &gp->be, err);
    bool on = false;
    if (!rc)
        rc = ms_backend_mig_mode(gp->be, &on, err);
    if (!rc && !on)
        rc = ms_error_set(err, MS_EINVAL,
                          "%s: GPU %d: MIG mode is off (enable it, e.g. with migsched apply "
                          "--state %s)",
                          e->c->sim_state, g, e->c->sim_state);
    if (rc)
        return rc;
    snprintf(gp->uuid, sizeof gp->uuid, "%s", ms_backend_gpu_uuid(gp->be));
    if ((rc = ms_device_lock_open(NULL, gp->uuid, &gp->lock, err)))
        return rc;
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    rc = ms_backend_list(gp->be, list, &n, err);
    for (int i = 0; !rc && i < n; i++) {
        bool adopted = false; /* a Slurm job's allocation still uses it */
        if ((rc = ei_alloc_adopt(e, g, &list[i], &adopted, err)) || adopted)
            continue;
        rc = ei_foreign(e, g, &list[i], err);
        md_log(MD_LOG_INFO, "instance.foreign", "gpu=%d gi=%u start=%d size=%d", g, list[i].gi_id,
               list[i].start_slot, list[i].size_slots);
    }
    return rc;
}

int ei_sim_state_open(md_engine *e, ms_error *err)
{
    const md_config *c = e->c;
    ms_sim_state *want = calloc(1, sizeof *want);
    if (!want)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    /* md_config_check made sure the model is a built-in one. */
    want->ngpus = c->gpus;
    for (int g = 0; g < c->gpus; g++) {
        want->gpu[g].model = *ms_gpu_builtin(c->gpu);
        want->gpu[g].mig = true;
    }
    int rc = ms_sim_state_prepare(c->sim_state, want, err);
    free(want);
    if (rc) {
        ms_error_prefix(err, "sim-state");
        return rc;
    }
    /* Creations and destructions take the model's times, scaled like the jobs. */
    ms_backend_options opt = {.sim_delay_scale = 1.0 / c->time_scale, .sim_state = c->sim_state};
    e->ngpus = c->gpus;
    for (int g = 0; !rc && g < e->ngpus; g++)
        rc = open_gpu(e, g, &opt, err);
    return rc;
}
