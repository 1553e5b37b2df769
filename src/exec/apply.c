/* apply.c: `migsched apply` and `migsched export`: a mig-parted config brought about on
 * each GPU with the fewest changes (every device locked and planned before any is
 * changed; busy instances never destroyed), and the devices' layout written back as one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/exec.h"

typedef struct device {
    int index;
    ms_backend *b;
    ms_device_lock *lock;
    const ms_migparted_entry *entry;
    bool mig_on, enable, disable;
    int ncur;
    ms_mig_instance cur[MS_MAX_MIG];
    bool busy[MS_MAX_MIG];
    int npids[MS_MAX_MIG];
    unsigned pids[MS_MAX_MIG][MS_MAX_PIDS];
    ms_apply_plan plan;
} device;

typedef struct apply_ctx {
    const ms_migparted *cfgs;
    const ms_migparted_config *cfg;
    const ms_apply_options *o;
    FILE *out;
    bool dry;    /* --dry-run or --check: print, change nothing */
    int changes; /* made so far (a failure after some is reported so) */
    int n;
    device dev[MS_RUN_MAX_GPUS];
} apply_ctx;

static void describe(const device *d, int i, char *buf, size_t len)
{
    const ms_mig_instance *in = &d->cur[i];
    const ms_gpu_model *m = ms_backend_model(d->b);
    snprintf(buf, len, "%s at slot %d (GPU instance %u, %s)",
             in->profile >= 0 ? m->profiles[in->profile].name : "an unknown profile",
             in->start_slot, in->gi_id, in->uuid[0] ? in->uuid : "no MIG device");
}

static void describe_pids(const device *d, int i, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < d->npids[i] && at + 12 < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s%u", k ? ", " : "", d->pids[i][k]);
}

/* Which devices the command changes: --devices, else every one the config names; each
 * must exist and be in exactly one entry without a device-filter. */
static int select_devices(apply_ctx *c, int count, ms_error *err)
{
    const ms_migparted *f = c->cfgs;
    const ms_migparted_config *cfg = c->cfg;
    for (int i = 0; i < cfg->nentries; i++) {
        const ms_migparted_entry *e = &cfg->entries[i];
        for (int k = 0; k < e->ndevices; k++)
            if (e->devices[k] >= count)
                return ms_error_set(err, MS_EINVAL,
                                    "%s:%d:%d: config '%s' names GPU %d, but there %s %d GPU%s",
                                    f->source, e->line, e->column, cfg->name, e->devices[k],
                                    count == 1 ? "is" : "are", count, count == 1 ? "" : "s");
    }
    int want[MS_MIGPARTED_MAX_DEVICES], nwant = 0;
    if (c->o->ndevices) {
        for (int k = 0; k < c->o->ndevices; k++) {
            int d = c->o->devices[k];
            if (d >= count)
                return ms_error_set(err, MS_EINVAL, "--devices: GPU %d does not exist (%d GPU%s)",
                                    d, count, count == 1 ? "" : "s");
            if (!ms_migparted_entry_for(cfg, d))
                return ms_error_set(err, MS_EINVAL, "%s:%d: config '%s' has no entry for GPU %d",
                                    f->source, cfg->line, cfg->name, d);
            want[nwant++] = d;
        }
    } else {
        for (int d = 0; d < count && nwant < MS_MIGPARTED_MAX_DEVICES; d++)
            if (ms_migparted_entry_for(cfg, d))
                want[nwant++] = d;
    }
    if (nwant > MS_RUN_MAX_GPUS)
        return ms_error_set(err, MS_EINVAL,
                            "config '%s' covers %d GPUs; apply handles %d at a time "
                            "(choose with --devices)",
                            cfg->name, nwant, MS_RUN_MAX_GPUS);
    for (int k = 0; k < nwant; k++) {
        const ms_migparted_entry *e = ms_migparted_entry_for(cfg, want[k]);
        if (e->device_filter)
            return ms_error_set(err, MS_EINVAL,
                                "%s:%d:%d: device-filter is not supported by migsched apply (it "
                                "matches profiles by name against each GPU's model); list the GPUs "
                                "in 'devices'",
                                f->source, e->line, e->column);
        c->dev[c->n++] = (device){.index = want[k], .entry = e};
    }
    return MS_OK;
}

static int open_device(apply_ctx *c, device *d, ms_error *err)
{
    int rc = ms_backend_open(c->o->backend, d->index, c->o->model, &c->o->backend_opt, &d->b, err);
    if (rc == MS_OK && !c->dry && ms_backend_gpu_uuid(d->b)[0])
        rc = ms_device_lock_open(c->o->lock_dir, ms_backend_gpu_uuid(d->b), &d->lock, err);
    if (rc == MS_OK)
        rc = ms_backend_mig_mode(d->b, &d->mig_on, err);
    if (rc == MS_OK && d->mig_on)
        rc = ms_backend_list(d->b, d->cur, &d->ncur, err);
    for (int i = 0; rc == MS_OK && i < d->ncur; i++) {
        rc = ms_backend_processes(d->b, d->cur[i].gi_id, d->pids[i], MS_MAX_PIDS, &d->npids[i],
                                  err);
        d->busy[i] = d->npids[i] > 0;
    }
    return rc;
}

/* The entry's counts as profile indices of the device's model. */
static int target_counts(apply_ctx *c, device *d, int count[MS_MAX_PROFILES], ms_error *err)
{
    const ms_gpu_model *m = ms_backend_model(d->b);
    memset(count, 0, MS_MAX_PROFILES * sizeof *count);
    char others[200] = ""; /* the unknown profiles after the first, each with its place */
    const ms_migparted_count *first = NULL;
    for (int i = 0; i < d->entry->ncounts; i++) {
        const ms_migparted_count *t = &d->entry->counts[i];
        int p = ms_gpu_profile_by_name(m, t->profile);
        if (p >= 0)
            count[p] = t->count;
        else if (!first)
            first = t;
        else
            snprintf(others + strlen(others), sizeof others - strlen(others), "; %d:%d: '%s'",
                     t->line, t->column, t->profile);
    }
    if (!first)
        return MS_OK;
    char names[256] = "";
    for (int k = 0; k < m->nprofiles; k++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? ", " : "",
                 m->profiles[k].name);
    return ms_error_set(err, MS_EINVAL,
                        "%s:%d:%d: mig-devices: '%s' is not a profile of GPU %d (%s: %s)%s%s",
                        c->cfgs->source, first->line, first->column, first->profile, d->index,
                        m->name, names, others[0] ? "; nor are" : "", others + (others[0] ? 1 : 0));
}

static int refuse_busy(apply_ctx *c, device *d, uint32_t blocking, const char *why, ms_error *err)
{
    char msg[MS_ERR_LEN] = "", what[160], pids[96];
    for (int i = 0; i < d->ncur; i++) {
        if (!(blocking & (1u << i)))
            continue;
        describe(d, i, what, sizeof what);
        describe_pids(d, i, pids, sizeof pids);
        snprintf(msg + strlen(msg), sizeof msg - strlen(msg), "%s%s, used by PID%s %s",
                 msg[0] ? "; " : "", what, d->npids[i] == 1 ? "" : "s", pids);
    }
    return ms_error_set(err, MS_EBUSY, "GPU %d: config '%s' %s: %.300s; nothing was changed",
                        d->index, c->cfg->name, why, msg);
}

static int plan_device(apply_ctx *c, device *d, ms_error *err)
{
    if (!d->entry->mig_enabled) {
        uint32_t busy = 0;
        for (int i = 0; i < d->ncur; i++) {
            if (d->busy[i])
                busy |= 1u << i;
            else
                d->plan.destroy[d->plan.ndestroy++] = i;
        }
        if (busy)
            return refuse_busy(c, d, busy, "disables MIG, which needs every instance gone", err);
        d->disable = d->mig_on;
        return MS_OK;
    }
    int count[MS_MAX_PROFILES];
    int rc = target_counts(c, d, count, err);
    if (rc)
        return rc;
    d->enable = !d->mig_on;
    if (c->o->mode_only)
        return MS_OK;
    rc = ms_apply_plan_device(ms_backend_model(d->b), d->cur, d->ncur, d->busy, count, &d->plan,
                              err);
    if (rc == MS_EBUSY)
        return refuse_busy(c, d, d->plan.blocking, "needs the slots of", err);
    if (rc)
        ms_error_prefix(err, "%s:%d:%d: config '%s' on GPU %d", c->cfgs->source, d->entry->line,
                        d->entry->column, c->cfg->name, d->index);
    return rc;
}

/* A destroy goes ahead only if the instance is still idle and still the one planned on. */
static int do_destroy(apply_ctx *c, device *d, int i, ms_error *err)
{
    char what[160];
    describe(d, i, what, sizeof what);
    fprintf(c->out, "GPU %d: destroy %s: nvmlComputeInstanceDestroy + nvmlGpuInstanceDestroy\n",
            d->index, what);
    if (c->dry)
        return MS_OK;
    int rc = ms_backend_processes(d->b, d->cur[i].gi_id, d->pids[i], MS_MAX_PIDS, &d->npids[i],
                                  err);
    if (rc)
        return rc;
    if (d->npids[i]) {
        char pids[96];
        describe_pids(d, i, pids, sizeof pids);
        return ms_error_set(err, MS_EBUSY, "GPU %d: %s became busy (PIDs %s) and is left alone",
                            d->index, what, pids);
    }
    rc = ms_backend_destroy_owned(d->b, NULL, &d->cur[i], err);
    c->changes += rc == MS_OK;
    return rc;
}

static int do_create(apply_ctx *c, device *d, ms_placement p, ms_error *err)
{
    const ms_profile *pr = &ms_backend_model(d->b)->profiles[p.profile];
    fprintf(c->out,
            "GPU %d: create %s at slot %d: nvmlDeviceCreateGpuInstanceWithPlacement(%s [NVML "
            "profile index %d], start %d, size %d) + nvmlGpuInstanceCreateComputeInstance(%d-slice "
            "profile)\n",
            d->index, pr->name, p.start, pr->name, pr->nvml_index, p.start, pr->size_slots,
            pr->slices);
    if (c->dry)
        return MS_OK;
    ms_mig_instance made;
    int rc = ms_backend_create(d->b, p, &made, err);
    if (rc == MS_OK) {
        c->changes++;
        fprintf(c->out, "GPU %d: created GPU instance %u, %s\n", d->index, made.gi_id, made.uuid);
    }
    return rc;
}

/* --check: one line per GPU, naming only what differs from the layout. */
static void print_differences(apply_ctx *c, const device *d)
{
    const ms_gpu_model *m = ms_backend_model(d->b);
    int changes = 0;
    fprintf(c->out, "GPU %d: ", d->index);
    if (d->enable)
        fprintf(c->out, "%senable MIG mode", changes++ ? "; " : "");
    for (int k = 0; k < d->plan.ndestroy; k++) {
        const ms_mig_instance *in = &d->cur[d->plan.destroy[k]];
        fprintf(c->out, "%sdestroy %s at %d", changes++ ? "; " : "",
                in->profile >= 0 ? m->profiles[in->profile].name : "an unknown profile",
                in->start_slot);
    }
    for (int k = 0; k < d->plan.ncreate; k++)
        fprintf(c->out, "%screate %s at %d", changes++ ? "; " : "",
                m->profiles[d->plan.create[k].profile].name, d->plan.create[k].start);
    if (d->disable)
        fprintf(c->out, "%sdisable MIG mode", changes++ ? "; " : "");
    fprintf(c->out, "%s\n",
            changes           ? ""
            : c->o->mode_only ? "already holds the MIG mode of the layout"
                              : "already holds the layout");
}

static int change_device(apply_ctx *c, device *d, ms_error *err)
{
    if (c->o->check) {
        print_differences(c, d);
        return MS_OK;
    }
    char what[160];
    int rc = MS_OK;
    for (int k = 0; k < d->plan.nkeep; k++) {
        describe(d, d->plan.keep[k], what, sizeof what);
        fprintf(c->out, "GPU %d: keep %s%s\n", d->index, what,
                d->busy[d->plan.keep[k]] ? " (busy)" : "");
    }
    if (d->enable) {
        fprintf(c->out, "GPU %d: enable MIG mode: nvmlDeviceSetMigMode(ENABLE)\n", d->index);
        if (!c->dry && (rc = ms_backend_enable_mig(d->b, err)) == MS_OK)
            c->changes++;
    }
    for (int k = 0; rc == MS_OK && k < d->plan.ndestroy; k++)
        rc = do_destroy(c, d, d->plan.destroy[k], err);
    for (int k = 0; rc == MS_OK && k < d->plan.ncreate; k++)
        rc = do_create(c, d, d->plan.create[k], err);
    if (rc == MS_OK && d->disable) {
        fprintf(c->out, "GPU %d: disable MIG mode: nvmlDeviceSetMigMode(DISABLE)\n", d->index);
        if (!c->dry && (rc = ms_backend_disable_mig(d->b, err)) == MS_OK)
            c->changes++;
    }
    if (rc == MS_OK && c->o->mode_only && d->entry->mig_enabled)
        fprintf(c->out, "GPU %d (%s): MIG mode on%s\n", d->index, ms_backend_model(d->b)->name,
                c->dry ? " (dry run: nothing changed)" : "");
    else if (rc == MS_OK)
        fprintf(c->out, "GPU %d (%s): kept %d, destroyed %d, created %d%s\n", d->index,
                ms_backend_model(d->b)->name, d->plan.nkeep, d->plan.ndestroy, d->plan.ncreate,
                c->dry ? " (dry run: nothing changed)" : "");
    return rc;
}

int ms_apply(const ms_migparted *cfgs, const char *name, const ms_apply_options *o, ms_error *err)
{
    apply_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    c->cfgs = cfgs;
    c->o = o;
    c->out = o->out ? o->out : stdout;
    c->dry = o->dry_run || o->check;
    c->cfg = ms_migparted_find(cfgs, name);
    int rc = MS_OK, count = 0;
    if (!c->cfg) {
        char names[300] = "";
        for (int i = 0; i < cfgs->nconfigs; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     cfgs->configs[i].name);
        rc = ms_error_set(err, MS_EINVAL, "%s: no config '%s' (it has: %.300s)", cfgs->source, name,
                          names);
    }
    if (rc == MS_OK)
        rc = ms_backend_device_count(o->backend, &o->backend_opt, &count, err);
    if (rc == MS_OK)
        rc = select_devices(c, count, err);
    /* Everything is known and locked before the first change. */
    for (int k = 0; rc == MS_OK && k < c->n; k++)
        if ((rc = open_device(c, &c->dev[k], err)) == MS_OK)
            rc = plan_device(c, &c->dev[k], err);
    for (int k = 0; rc == MS_OK && k < c->n; k++)
        rc = change_device(c, &c->dev[k], err);
    for (int k = 0; rc == MS_OK && o->check && k < c->n; k++) {
        const device *d = &c->dev[k];
        int todo = d->enable + d->disable + d->plan.ndestroy + d->plan.ncreate;
        if (todo)
            rc = ms_error_set(err, MS_ECHANGED,
                              "GPU %d does not hold %sconfig '%s' (%d change%s "
                              "needed)",
                              d->index, o->mode_only ? "the MIG mode of " : "", c->cfg->name, todo,
                              todo == 1 ? "" : "s");
    }
    if (rc && c->changes)
        ms_error_prefix(err, "stopped after %d change%s (run apply again to finish)", c->changes,
                        c->changes == 1 ? "" : "s");
    for (int k = 0; k < c->n; k++) {
        ms_device_lock_close(c->dev[k].lock);
        ms_backend_close(c->dev[k].b);
    }
    free(c);
    if (rc == MS_OK && ferror(o->out ? o->out : stdout))
        rc = ms_error_set(err, MS_EIO, "cannot write the operations");
    return rc;
}

int ms_export(const char *backend, const ms_backend_options *bo, const ms_gpu_model *model,
              const int *devices, int ndevices, const char *name, FILE *f, ms_error *err)
{
    int count = 0;
    int rc = ms_backend_device_count(backend, bo, &count, err);
    int n = ndevices ? ndevices : count;
    for (int k = 0; rc == MS_OK && k < ndevices; k++)
        if (devices[k] >= count)
            rc = ms_error_set(err, MS_EINVAL, "--devices: GPU %d does not exist (%d GPU%s)",
                              devices[k], count, count == 1 ? "" : "s");
    if (rc == MS_OK && n == 0)
        rc = ms_error_set(err, MS_EINVAL, "the %s backend sees no GPU", backend);
    if (rc)
        return rc;
    fprintf(f,
            "# The MIG layout of %d GPU%s as the %s backend reports it (migsched export).\n"
            "version: v1\nmig-configs:\n  %s:\n",
            n, n == 1 ? "" : "s", backend, name);
    for (int k = 0; rc == MS_OK && k < n; k++) {
        int index = ndevices ? devices[k] : k;
        ms_backend *b = NULL;
        bool on = false;
        ms_mig_instance cur[MS_MAX_MIG];
        int ncur = 0;
        ms_partition p = {0};
        rc = ms_backend_open(backend, index, model, bo, &b, err);
        if (rc == MS_OK)
            rc = ms_backend_mig_mode(b, &on, err);
        if (rc == MS_OK && on)
            rc = ms_backend_list(b, cur, &ncur, err);
        for (int i = 0; rc == MS_OK && i < ncur; i++) {
            if (cur[i].profile < 0 || p.n == MS_MAX_INSTANCES)
                rc = ms_error_set(
                    err, MS_EINVAL,
                    "GPU %d: GPU instance %u (slots %d-%d) has a profile the %s model "
                    "does not list; a mig-parted config cannot name it",
                    index, cur[i].gi_id, cur[i].start_slot,
                    cur[i].start_slot + cur[i].size_slots - 1, ms_backend_model(b)->name);
            else
                p.inst[p.n++] = (ms_placement){cur[i].profile, cur[i].start_slot};
        }
        if (rc == MS_OK)
            ms_migparted_write_entry(f, ms_backend_model(b), index, on, &p);
        ms_backend_close(b);
    }
    if (rc == MS_OK && ferror(f))
        rc = ms_error_set(err, MS_EIO, "cannot write the layout");
    return rc;
}
