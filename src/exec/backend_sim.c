/* backend_sim.c: the sim backend: a MIG GPU with the driver's rules (allowed placements, no
 * overlap, the lowest free GPU-instance id, a busy instance refusing to be destroyed),
 * reconfigurations optionally taking the model's times scaled; nothing touches hardware.
 * It lives in the process (one empty GPU of the plan's model, or the --initial layout), or,
 * given a state file (ms_backend_options.sim_state), in that file: every call then reads
 * and writes it under its lock, so the GPUs persist between commands and processes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "migsched/exec_sim_state.h"

typedef struct sim_impl {
    double delay_scale;
    const char *state; /* NULL: the GPU below lives in this process */
    ms_sim_gpu gpu;
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

/* ---- The rules, on one GPU wherever it lives ------------------------------------- */

static unsigned lowest_free_id(const ms_sim_gpu *g)
{
    for (unsigned id = 1;; id++) {
        bool used = false;
        for (int i = 0; i < g->n; i++)
            used |= g->inst[i].in.gi_id == id;
        if (!used)
            return id;
    }
}

/* The instance appears at once: what the GPU holds when opened, or a creation's end. */
static int gpu_add(const ms_backend *b, ms_sim_gpu *g, unsigned *serial, ms_placement p,
                   ms_mig_instance *out, ms_error *err)
{
    const ms_profile *pr = &g->model.profiles[p.profile];
    if (!g->mig)
        return ms_error_set(err, MS_EBACKEND, "device %d: creating %s: MIG mode is off (sim)",
                            b->device, pr->name);
    uint32_t mask = ms_gpu_slot_mask(&g->model, p);
    for (int i = 0; i < g->n; i++) {
        const ms_mig_instance *o = &g->inst[i].in;
        if (ms_gpu_slot_mask(&g->model, (ms_placement){o->profile, o->start_slot}) & mask)
            return ms_error_set(
                err, MS_EBACKEND,
                "device %d: creating %s at slot %d: slots taken by GPU instance %u (sim)",
                b->device, pr->name, p.start, o->gi_id);
    }
    if (g->n == MS_MAX_MIG)
        return ms_error_set(err, MS_EBACKEND, "device %d: too many GPU instances (sim)", b->device);
    unsigned id = lowest_free_id(g);
    /* Kept in slot order, so that a state file reads like the GPU. */
    int at = g->n;
    while (at > 0 && g->inst[at - 1].in.start_slot > p.start)
        at--;
    memmove(&g->inst[at + 1], &g->inst[at], (size_t)(g->n - at) * sizeof g->inst[at]);
    ms_sim_instance *si = &g->inst[at];
    memset(si, 0, sizeof *si);
    ms_mig_instance *in = &si->in;
    in->gi_id = id;
    in->nci = 1;
    in->profile = p.profile;
    in->start_slot = p.start;
    in->size_slots = pr->size_slots;
    /* A file's GPUs take their UUID's distinct part, so files never share a MIG UUID. */
    snprintf(in->uuid, sizeof in->uuid, "MIG-51300000-%.4s-4%03x-8000-%04d%08u",
             g->uuid[0] ? g->uuid + 13 : "0000", b->device & 0xfff, b->device, ++*serial);
    g->n++;
    *out = *in;
    return MS_OK;
}

static int gpu_destroy(const ms_backend *b, ms_sim_gpu *g, unsigned gi_id, ms_error *err)
{
    for (int i = 0; i < g->n; i++) {
        if (g->inst[i].in.gi_id != gi_id)
            continue;
        if (g->inst[i].npids)
            return ms_error_set(err, MS_EBACKEND,
                                "device %d: destroying GPU instance %u: compute processes "
                                "run on it (PID %u; sim: IN_USE)",
                                b->device, gi_id, g->inst[i].pids[0]);
        memmove(&g->inst[i], &g->inst[i + 1], (size_t)(g->n - i - 1) * sizeof g->inst[i]);
        g->n--;
        return MS_OK;
    }
    return ms_error_set(err, MS_EBACKEND, "device %d: no GPU instance %u (sim)", b->device, gi_id);
}

static int gpu_set_mig(const ms_backend *b, ms_sim_gpu *g, bool on, ms_error *err)
{
    if (!on && g->n)
        return ms_error_set(
            err, MS_EBACKEND,
            "device %d: MIG mode cannot be disabled while GPU instances exist (sim)", b->device);
    g->mig = on;
    return MS_OK;
}

/* ---- One call: on the process's GPU, or read, done and written back in the file ---- */

typedef enum op_kind { OP_LOOK, OP_CREATE, OP_DESTROY, OP_SET_MIG } op_kind;

typedef struct op {
    ms_backend *b;
    op_kind kind;
    ms_placement p;
    unsigned gi_id;
    bool on;
    ms_mig_instance *made;
    ms_sim_gpu *seen; /* OP_LOOK: a copy of the GPU */
} op;

static int do_op(ms_sim_gpu *g, unsigned *serial, op *o, bool *changed, ms_error *err)
{
    int rc = MS_OK;
    switch (o->kind) {
    case OP_LOOK: *o->seen = *g; return MS_OK;
    case OP_CREATE: rc = gpu_add(o->b, g, serial, o->p, o->made, err); break;
    case OP_DESTROY: rc = gpu_destroy(o->b, g, o->gi_id, err); break;
    case OP_SET_MIG: rc = gpu_set_mig(o->b, g, o->on, err); break;
    }
    *changed = rc == MS_OK;
    return rc;
}

static int in_file(ms_sim_state *s, void *arg, bool *changed, ms_error *err)
{
    op *o = arg;
    int d = o->b->device;
    if (d >= s->ngpus)
        return ms_error_set(err, MS_EINVAL, "device %d does not exist (the sim state has %d GPU%s)",
                            d, s->ngpus, s->ngpus == 1 ? "" : "s");
    return do_op(&s->gpu[d], &s->serial, o, changed, err);
}

static int run_op(ms_backend *b, op *o, ms_error *err)
{
    sim_impl *s = b->impl;
    o->b = b;
    if (s->state)
        return ms_sim_state_update(s->state, in_file, o, err);
    bool changed;
    return do_op(&s->gpu, &s->serial, o, &changed, err);
}

static int look(ms_backend *b, ms_sim_gpu *seen, ms_error *err)
{
    op o = {.kind = OP_LOOK, .seen = seen};
    return run_op(b, &o, err);
}

/* ---- The backend ------------------------------------------------------------------ */

static int open_state(ms_backend *b, sim_impl *s, const ms_gpu_model *model, ms_error *err)
{
    int rc = look(b, &s->gpu, err);
    if (rc)
        return rc;
    if (model && !exec_same_geometry(&s->gpu.model, model))
        return ms_error_set(err, MS_EINVAL,
                            "device %d is a simulated %s (%s), not a %s: the plan or --gpu is "
                            "for another model",
                            b->device, s->gpu.model.name, s->state, model->name);
    b->model = model ? *model : s->gpu.model;
    snprintf(b->uuid, sizeof b->uuid, "%s", s->gpu.uuid);
    return MS_OK;
}

static int sim_open(ms_backend *b, const ms_backend_options *opt, const ms_gpu_model *model,
                    ms_error *err)
{
    if (!model && !opt->sim_state)
        return ms_error_set(err, MS_EINVAL, "the sim backend needs a GPU model");
    sim_impl *s = calloc(1, sizeof *s);
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "out of memory opening the sim backend");
    s->delay_scale = opt->sim_delay_scale;
    s->state = opt->sim_state;
    b->impl = s;
    int rc = MS_OK;
    if (s->state) {
        rc = open_state(b, s, model, err);
    } else {
        s->gpu.model = *model;
        s->gpu.mig = true;
        b->model = *model;
    }
    snprintf(b->name, sizeof b->name, "simulated %s", b->model.name);
    ms_mig_instance held;
    for (int i = 0; !rc && opt->sim_holds && i < opt->sim_holds->n; i++) {
        ms_placement p = opt->sim_holds->inst[i];
        op o = {.kind = OP_CREATE, .p = p, .made = &held};
        rc = ms_gpu_placement_allowed(&b->model, p)
                 ? run_op(b, &o, err)
                 : ms_error_set(err, MS_EINVAL, "the sim backend cannot hold that placement");
    }
    if (rc) {
        free(s);
        b->impl = NULL;
    }
    return rc;
}

static void sim_close(ms_backend *b)
{
    free(b->impl);
    b->impl = NULL;
}

static int sim_mig_mode(ms_backend *b, bool *enabled, ms_error *err)
{
    ms_sim_gpu *g = &((sim_impl *)b->impl)->gpu;
    int rc = ((sim_impl *)b->impl)->state ? look(b, g, err) : MS_OK;
    *enabled = g->mig;
    return rc;
}

static int sim_set_mig(ms_backend *b, bool on, ms_error *err)
{
    op o = {.kind = OP_SET_MIG, .on = on};
    return run_op(b, &o, err);
}

/* What runs on an instance: nothing in the process's GPU; the PIDs a state file lists. */
static int sim_processes(ms_backend *b, unsigned gi_id, unsigned *pids, int max, int *n,
                         ms_error *err)
{
    ms_sim_gpu *g = &((sim_impl *)b->impl)->gpu;
    int rc = ((sim_impl *)b->impl)->state ? look(b, g, err) : MS_OK;
    *n = 0;
    for (int i = 0; !rc && i < g->n; i++)
        for (int k = 0; g->inst[i].in.gi_id == gi_id && k < g->inst[i].npids && *n < max; k++)
            pids[(*n)++] = g->inst[i].pids[k];
    return rc;
}

static int sim_count(const ms_backend_options *opt, int *n, ms_error *err)
{
    *n = 1;
    if (!opt->sim_state)
        return MS_OK;
    ms_sim_state *s = malloc(sizeof *s);
    int rc = s ? ms_sim_state_read(opt->sim_state, s, err)
               : ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc)
        *n = s->ngpus;
    free(s);
    return rc;
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
    ms_sim_gpu *g = &((sim_impl *)b->impl)->gpu;
    int rc = ((sim_impl *)b->impl)->state ? look(b, g, err) : MS_OK;
    *n = 0;
    if (!rc && !g->mig)
        return ms_error_set(err, MS_EBACKEND,
                            "device %d: listing GPU instances: MIG mode is "
                            "off (sim: NOT_SUPPORTED)",
                            b->device);
    for (int i = 0; !rc && i < g->n; i++)
        out[(*n)++] = g->inst[i].in;
    return rc;
}

/* An instance is made in one step (one write of the state file): no crash leaves it half
 * made, so it needs no "gi" record; the caller's "begin" and "created" records still name
 * it, as with NVML. */
static int sim_create(ms_backend *b, ms_placement p, ms_journal *j, ms_mig_instance *out,
                      ms_error *err)
{
    (void)j;
    sim_impl *s = b->impl;
    sim_sleep(ms_gpu_create_time(&b->model, b->model.profiles[p.profile].slices) * s->delay_scale);
    op o = {.kind = OP_CREATE, .p = p, .made = out};
    return run_op(b, &o, err);
}

static int sim_destroy(ms_backend *b, unsigned gi_id, ms_error *err)
{
    sim_impl *s = b->impl;
    ms_sim_gpu *g = &s->gpu;
    int rc = s->state ? look(b, g, err) : MS_OK;
    for (int i = 0; !rc && i < g->n; i++)
        if (g->inst[i].in.gi_id == gi_id)
            sim_sleep(
                ms_gpu_destroy_time(&b->model, b->model.profiles[g->inst[i].in.profile].slices) *
                s->delay_scale);
    op o = {.kind = OP_DESTROY, .gi_id = gi_id};
    return rc ? rc : run_op(b, &o, err);
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
