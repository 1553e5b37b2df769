/* layout.c: the MIG layout a plan has alive at a time, as a mig-parted configuration or
 * JSON, so that a static plan (FIXPART, a batch's first partition) can be applied with
 * the tools operators already run. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/exec.h"

/* t = NAN: the plan's first layout on that GPU, i.e. every instance whose creation starts
 * before the GPU's first destruction (all of them if nothing is destroyed). */
int ms_layout_at(const ms_schedule *s, int gpu, double t, ms_partition *out)
{
    if (isnan(t)) {
        t = INFINITY;
        for (int k = 0; k < s->ninst; k++)
            if (s->inst[k].gpu == gpu && !isnan(s->inst[k].destroy_start))
                t = fmin(t, s->inst[k].destroy_start);
        t = nextafter(t, -INFINITY);
    }
    out->n = 0;
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        bool born = isnan(in->create_start) || in->create_start <= t;
        bool alive = isnan(in->destroy_start) || in->destroy_start > t;
        if (in->gpu != gpu || !born || !alive)
            continue;
        if (out->n == MS_MAX_INSTANCES)
            return MS_EINVAL;
        out->inst[out->n++] = (ms_placement){in->profile, in->start_slot};
    }
    ms_placements_sort(out->inst, out->n);
    return MS_OK;
}

static int layout_or_fail(const ms_schedule *s, int g, double t, ms_partition *p, ms_error *err)
{
    if (ms_layout_at(s, g, t, p))
        return ms_error_set(err, MS_EINVAL, "GPU %d has more than %d instances alive at once", g,
                            MS_MAX_INSTANCES);
    return MS_OK;
}

int ms_layout_write_mig_parted(const ms_schedule *s, double t, const char *config_name, FILE *f,
                               ms_error *err)
{
    fprintf(f, "# MIG layout of a plan for %s (algorithm %s) %s, for nvidia-mig-parted.\n",
            s->gpu.name, s->algorithm, isnan(t) ? "at its start" : "at the requested time");
    fprintf(f, "# mig-parted chooses placements itself; the plan's are in the comments.\n");
    fprintf(f, "version: v1\nmig-configs:\n  %s:\n", config_name);
    for (int g = 0; g < s->gpus; g++) {
        ms_partition p;
        int rc = layout_or_fail(s, g, t, &p, err);
        if (rc)
            return rc;
        ms_migparted_write_entry(f, &s->gpu, g, true, &p);
    }
    return ferror(f) ? ms_error_set(err, MS_EIO, "cannot write the layout") : MS_OK;
}

int ms_layout_write_json(const ms_schedule *s, double t, FILE *f, ms_error *err)
{
    json_t *gpus = json_array();
    int rc = MS_OK;
    for (int g = 0; rc == MS_OK && g < s->gpus; g++) {
        ms_partition p;
        rc = layout_or_fail(s, g, t, &p, err);
        json_t *inst = json_array();
        for (int i = 0; rc == MS_OK && i < p.n; i++) {
            const ms_profile *pr = &s->gpu.profiles[p.inst[i].profile];
            json_array_append_new(inst, json_pack("{s:s, s:i, s:i, s:i}", "profile", pr->name,
                                                  "start_slot", p.inst[i].start, "size_slots",
                                                  pr->size_slots, "slices", pr->slices));
        }
        json_array_append_new(gpus, json_pack("{s:i, s:o}", "gpu", g, "instances", inst));
    }
    json_t *root = json_pack("{s:s, s:s, s:o, s:o}", "format", "migsched-layout/1", "gpu_model",
                             s->gpu.name, "at", isnan(t) ? json_null() : json_real(t), "gpus",
                             gpus);
    if (rc == MS_OK && (json_dumpf(root, f, JSON_INDENT(2)) || fputc('\n', f) == EOF))
        rc = ms_error_set(err, MS_EIO, "cannot write the layout");
    json_decref(root);
    return rc;
}
