/* run_initial.c: what the devices hold before the plan (--initial). The plan must start
 * from the layout named (its instances without a creation are exactly that layout's) and
 * every device must hold it: nothing else on the slots the plan uses, and for "device"
 * nothing else at all. A difference is refused before anything changes, naming it per
 * GPU. Each initial instance's identity (its MIG device, which its tasks run on) is the
 * device's, found by its placement. */
#include <stdlib.h>
#include <string.h>

#include "runner.h"

/* Appends "; "-separated text to buf (len bytes), keeping what fits. */
static void append(char *buf, size_t len, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < len)
        snprintf(buf + used, len - used, "%s%s", used ? "; " : "", text);
}

/* The validator's initial-layout rule: the plan's instances without a creation are l's. */
static int check_plan(const run_ctx *c, const ms_initial *l, const char *name, ms_error *err)
{
    ms_validation v;
    ms_schedule_validate_initial(c->s, c->w, l, &v);
    char why[MS_ERR_LEN] = "";
    int n = 0;
    for (int i = 0; i < v.n; i++)
        if (!strcmp(v.v[i].rule, MS_RULE_INITIAL)) {
            append(why, sizeof why, v.v[i].msg);
            n++;
        }
    ms_validation_fini(&v);
    return n ? ms_error_set(err, MS_EINVAL,
                            "--initial %s: the plan does not start from that "
                            "layout: %s",
                            name, why)
             : MS_OK;
}

/* A dry run reads no device: each initial instance gets a stand-in identity. */
static void stand_ins(run_ctx *c)
{
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        if (!in->initial)
            continue;
        in->mi = (ms_mig_instance){.gi_id = (unsigned)k + 1,
                                   .nci = 1,
                                   .profile = in->profile,
                                   .start_slot = in->start_slot,
                                   .size_slots = c->s->gpu.profiles[in->profile].size_slots};
        snprintf(in->mi.uuid, sizeof in->mi.uuid, "MIG-<instance %d>", k);
        in->alive = true;
    }
}

int exec_initial_layout(run_ctx *c, ms_partition sim_holds[MS_RUN_MAX_GPUS], ms_error *err)
{
    const char *text = c->o->initial ? c->o->initial : "empty";
    memset(sim_holds, 0, MS_RUN_MAX_GPUS * sizeof *sim_holds);
    if (ms_initial_is_device(text))
        return c->o->dry_run ? ms_error_set(err, MS_EINVAL,
                                            "--initial device: a dry run reads no device; name "
                                            "the layout the devices hold (e.g. --initial 4-3)")
                             : MS_OK; /* the plan is checked against the devices */
    ms_initial l;
    int rc = ms_initial_parse(text, &c->s->gpu, c->s->gpus, &l, err);
    if (rc)
        return rc;
    rc = check_plan(c, &l, text, err);
    for (int g = 0; rc == MS_OK && g < c->s->gpus; g++)
        sim_holds[g].n = ms_initial_on_gpu(&l, g, sim_holds[g].inst, NULL);
    ms_initial_fini(&l);
    if (rc == MS_OK && c->o->dry_run)
        stand_ins(c);
    return rc;
}

static uint32_t slots_of(const ms_mig_instance *d)
{
    return ((1u << d->size_slots) - 1u) << d->start_slot;
}

/* The slots plan GPU g's instances use, initial or not. */
static uint32_t plan_slots(const run_ctx *c, int g)
{
    uint32_t mask = 0;
    for (int k = 0; k < c->s->ninst; k++)
        if (c->s->inst[k].gpu == g)
            mask |= ms_gpu_slot_mask(
                &c->s->gpu, (ms_placement){c->s->inst[k].profile, c->s->inst[k].start_slot});
    return mask;
}

/* What GPU g holds that the comparison looks at into `have` (profiles the model lacks into
 * `unknown`, counted in *nunknown): everything for "device", else what is on the plan's
 * slots. A GPU with MIG mode off holds nothing. */
static int read_gpu(run_ctx *c, int g, bool everything, ms_mig_instance *list, int *n,
                    ms_initial *have, char *unknown, size_t len, int *nunknown, ms_error *err)
{
    bool on = false;
    *n = 0;
    int rc = ms_backend_mig_mode(c->gpu[g].backend, &on, err);
    if (rc == MS_OK && on)
        rc = ms_backend_list(c->gpu[g].backend, list, n, err);
    uint32_t needed = plan_slots(c, g);
    for (int i = 0; rc == MS_OK && i < *n; i++) {
        const ms_mig_instance *d = &list[i];
        if (!everything && !(slots_of(d) & needed))
            continue;
        ms_placement at = {d->profile, d->start_slot};
        if (d->profile >= 0 && d->profile < c->s->gpu.nprofiles &&
            ms_gpu_placement_allowed(&c->s->gpu, at)) {
            rc = ms_initial_add(have, &c->s->gpu, g, at, 0, err);
            continue;
        }
        char one[160];
        snprintf(one, sizeof one,
                 "GPU %d: GPU instance %u of a profile %s lacks, at slots %d-%d, "
                 "is on the device, not in the plan's layout",
                 g, d->gi_id, c->s->gpu.name, d->start_slot, d->start_slot + d->size_slots - 1);
        append(unknown, len, one);
        (*nunknown)++;
    }
    return rc;
}

/* Each initial instance takes the identity of the device's instance at its placement. */
static int take_identities(run_ctx *c, int g, const ms_mig_instance *list, int n, ms_error *err)
{
    for (int k = 0; k < c->s->ninst; k++) {
        run_inst *in = &c->inst[k];
        if (!in->initial || in->gpu != g)
            continue;
        for (int i = 0; i < n; i++)
            if (list[i].profile == in->profile && list[i].start_slot == in->start_slot)
                in->mi = list[i];
        if (in->ntasks && !in->mi.uuid[0])
            return ms_error_set(err, MS_EINVAL,
                                "GPU %d: %s at slot %d (GPU instance %u) has no compute instance: "
                                "its tasks have no MIG device to run on",
                                g, c->s->gpu.profiles[in->profile].name, in->start_slot,
                                in->mi.gi_id);
        in->alive = true;
    }
    return MS_OK;
}

/* " (plan GPU 0 is device 3, ...)" when the plan's GPU numbers are not the devices'. */
static void gpu_names(const run_ctx *c, char *buf, size_t len)
{
    bool same = true;
    for (int g = 0; g < c->ngpus; g++)
        same &= c->o->devices[g] == g;
    buf[0] = '\0';
    for (int g = 0; !same && g < c->ngpus; g++) {
        size_t used = strlen(buf);
        snprintf(buf + used, len - used, "%splan GPU %d is device %d", g ? ", " : " (", g,
                 c->o->devices[g]);
    }
    if (!same && strlen(buf) + 1 < len)
        strcat(buf, ")");
}

int exec_initial_find(run_ctx *c, ms_error *err)
{
    bool everything = ms_initial_is_device(c->o->initial);
    ms_initial want, have;
    int rc = ms_initial_of_schedule(c->s, &want, err);
    if (rc)
        return rc;
    if (want.n == 0 && !everything) { /* empty: what is in the way is foreign (run.c) */
        ms_initial_fini(&want);
        return MS_OK;
    }
    ms_initial_init(&have);
    ms_mig_instance(*list)[MS_MAX_MIG] = calloc(MS_RUN_MAX_GPUS, sizeof *list);
    int nlist[MS_RUN_MAX_GPUS] = {0}, nunknown = 0;
    char unknown[MS_ERR_LEN / 2] = "", diff[MS_ERR_LEN / 2], names[160];
    if (!list)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int g = 0; rc == MS_OK && g < c->ngpus; g++)
        rc = read_gpu(c, g, everything, list[g], &nlist[g], &have, unknown, sizeof unknown,
                      &nunknown, err);
    if (rc == MS_OK && ms_initial_diff(&want, &have, &c->s->gpu, "in the plan's layout",
                                       "on the device", diff, sizeof diff) +
                           nunknown) {
        gpu_names(c, names, sizeof names);
        rc = ms_error_set(err, MS_EINVAL,
                          "the devices do not hold the layout the plan starts from (--initial "
                          "%s): %s%s%s; nothing was changed%s",
                          c->o->initial, diff, diff[0] && unknown[0] ? "; " : "", unknown, names);
    }
    for (int g = 0; rc == MS_OK && g < c->ngpus; g++)
        rc = take_identities(c, g, list[g], nlist[g], err);
    free(list);
    ms_initial_fini(&want);
    ms_initial_fini(&have);
    return rc;
}

bool exec_initial_is(const run_ctx *c, int g, const ms_mig_instance *d)
{
    for (int k = 0; k < c->s->ninst; k++)
        if (c->inst[k].initial && c->inst[k].gpu == g && c->inst[k].mi.gi_id == d->gi_id &&
            ms_mig_same_instance(&c->inst[k].mi, d))
            return true;
    return false;
}
