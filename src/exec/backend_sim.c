/* backend_sim.c: the sim backend: an in-memory MIG GPU of the plan's model with the
 * driver's rules (allowed placements, no overlap), reconfigurations optionally taking the
 * model's times scaled; nothing touches hardware. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"

typedef struct sim_impl {
    double delay_scale;
    bool mig;
    int n;
    ms_mig_instance inst[MS_MAX_MIG];
    unsigned next_gi;
    unsigned serial;
} sim_impl;

static void sim_sleep(double seconds)
{
    if (!(seconds > 0))
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The instance appears at once: what the GPU holds when opened, or a creation's end. */
static int sim_add(ms_backend *b, ms_placement p, ms_mig_instance *out, ms_error *err)
{
    sim_impl *s = b->impl;
    const ms_profile *pr = &b->model.profiles[p.profile];
    uint32_t mask = ms_gpu_slot_mask(&b->model, p);
    for (int i = 0; i < s->n; i++) {
        ms_placement q = {s->inst[i].profile, s->inst[i].start_slot};
        if (ms_gpu_slot_mask(&b->model, q) & mask)
            return ms_error_set(
                err, MS_EBACKEND,
                "device %d: creating %s at slot %d: slots taken by GPU instance %u (sim)",
                b->device, pr->name, p.start, s->inst[i].gi_id);
    }
    if (s->n == MS_MAX_MIG)
        return ms_error_set(err, MS_EBACKEND, "device %d: too many GPU instances (sim)", b->device);
    ms_mig_instance *in = &s->inst[s->n++];
    memset(in, 0, sizeof *in);
    in->gi_id = s->next_gi++;
    in->ci_id = 0;
    in->nci = 1;
    in->profile = p.profile;
    in->start_slot = p.start;
    in->size_slots = pr->size_slots;
    snprintf(in->uuid, sizeof in->uuid, "MIG-51300000-0000-4000-8000-%04d%08u", b->device,
             ++s->serial);
    *out = *in;
    return MS_OK;
}

static int sim_open(ms_backend *b, const ms_backend_options *opt, const ms_gpu_model *model,
                    ms_error *err)
{
    if (!model)
        return ms_error_set(err, MS_EINVAL, "the sim backend needs a GPU model");
    sim_impl *s = calloc(1, sizeof *s);
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening the sim backend");
    s->delay_scale = opt->sim_delay_scale;
    s->mig = true;
    s->next_gi = 1;
    b->impl = s;
    b->model = *model;
    snprintf(b->name, sizeof b->name, "simulated %s", model->name);
    ms_mig_instance held;
    for (int i = 0; opt->sim_holds && i < opt->sim_holds->n; i++) {
        int rc = ms_gpu_placement_allowed(model, opt->sim_holds->inst[i])
                     ? sim_add(b, opt->sim_holds->inst[i], &held, err)
                     : ms_error_set(err, MS_EINVAL, "the sim backend cannot hold that placement");
        if (rc) {
            free(s);
            return rc;
        }
    }
    return MS_OK;
}

static void sim_close(ms_backend *b)
{
    free(b->impl);
    b->impl = NULL;
}

static int sim_mig_mode(ms_backend *b, bool *enabled, ms_error *err)
{
    *enabled = ((sim_impl *)b->impl)->mig;
    return MS_OK;
}

static int sim_set_mig(ms_backend *b, bool on, ms_error *err)
{
    sim_impl *s = b->impl;
    if (!on && s->n)
        return ms_error_set(
            err, MS_EBACKEND,
            "device %d: MIG mode cannot be disabled while GPU instances exist (sim)", b->device);
    s->mig = on;
    return MS_OK;
}

/* Nothing runs on a simulated GPU. */
static int sim_processes(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n,
                         ms_error *err)
{
    *n = 0;
    return MS_OK;
}

static int sim_count(const ms_backend_options *opt, int *n, ms_error *err)
{
    *n = 1;
    return MS_OK;
}

static int sim_gpu_minor(const ms_backend *b, unsigned *minor, ms_error *err)
{
    *minor = (unsigned)b->device;
    return MS_OK;
}

/* No bus to read: one id per device index, in NVML's format. */
static int sim_gpu_pci_bus_id(const ms_backend *b, char id[MS_PCI_BUS_ID_LEN], ms_error *err)
{
    snprintf(id, MS_PCI_BUS_ID_LEN, "00000000:%02X:00.0", (unsigned)(b->device + 1) & 0xff);
    return MS_OK;
}

static int sim_list(ms_backend *b, ms_mig_instance out[MS_MAX_MIG], int *n, ms_error *err)
{
    sim_impl *s = b->impl;
    memcpy(out, s->inst, (size_t)s->n * sizeof *out);
    *n = s->n;
    return MS_OK;
}

/* A sim instance lives in this process only and is made in one step: no crash can leave it
 * half made, and none survives one, so it needs no journal record. */
static int sim_create(ms_backend *b, ms_placement p, ms_journal *j, ms_mig_instance *out,
                      ms_error *err)
{
    (void)j;
    sim_impl *s = b->impl;
    sim_sleep(ms_gpu_create_time(&b->model, b->model.profiles[p.profile].slices) * s->delay_scale);
    return sim_add(b, p, out, err);
}

static int sim_destroy(ms_backend *b, unsigned gi_id, ms_error *err)
{
    sim_impl *s = b->impl;
    for (int i = 0; i < s->n; i++) {
        if (s->inst[i].gi_id != gi_id)
            continue;
        sim_sleep(ms_gpu_destroy_time(&b->model, b->model.profiles[s->inst[i].profile].slices) *
                  s->delay_scale);
        s->inst[i] = s->inst[--s->n];
        return MS_OK;
    }
    return ms_error_set(err, MS_EBACKEND, "device %d: no GPU instance %u (sim)", b->device, gi_id);
}

const exec_backend_ops exec_backend_sim_ops = {
    .kind = "sim",
    .open = sim_open,
    .close = sim_close,
    .mig_mode = sim_mig_mode,
    .set_mig = sim_set_mig,
    .list = sim_list,
    .create = sim_create,
    .destroy = sim_destroy,
    .processes = sim_processes,
    .count = sim_count,
    .gpu_minor = sim_gpu_minor,
    .gpu_pci_bus_id = sim_gpu_pci_bus_id,
};
