/* initial.c: the layout the GPUs hold before a plan (--initial): parsing, printing,
 * comparing, and reading it off a schedule. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "migsched/schedule.h"

void ms_initial_init(ms_initial *l) { *l = (ms_initial){0, 0, NULL}; }

void ms_initial_fini(ms_initial *l)
{
    free(l->inst);
    ms_initial_init(l);
}

static bool before(const ms_initial_inst *a, int g, int start)
{
    return a->gpu != g ? a->gpu < g : a->at.start < start;
}

int ms_initial_add(ms_initial *l, const ms_gpu_model *gpu, int g, ms_placement at,
                   double busy_until, ms_error *err)
{
    if (g < 0 || !ms_gpu_placement_allowed(gpu, at))
        return ms_error_set(err, MS_EINVAL, "GPU %d: no instance of %s can start at slot %d", g,
                            at.profile >= 0 && at.profile < gpu->nprofiles
                                ? gpu->profiles[at.profile].name
                                : "that profile",
                            at.start);
    if (!(busy_until >= 0) || !isfinite(busy_until))
        return ms_error_set(err, MS_EINVAL, "GPU %d: busy time %g of the instance at slot %d", g,
                            busy_until, at.start);
    uint32_t mask = ms_gpu_slot_mask(gpu, at);
    for (int i = 0; i < l->n; i++)
        if (l->inst[i].gpu == g && (ms_gpu_slot_mask(gpu, l->inst[i].at) & mask))
            return ms_error_set(err, MS_EINVAL, "GPU %d: %s at slot %d overlaps %s at slot %d", g,
                                gpu->profiles[at.profile].name, at.start,
                                gpu->profiles[l->inst[i].at.profile].name, l->inst[i].at.start);
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        ms_initial_inst *p = realloc(l->inst, (size_t)cap * sizeof *p);
        if (!p)
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        l->inst = p;
        l->cap = cap;
    }
    int k = l->n;
    while (k > 0 && !before(&l->inst[k - 1], g, at.start)) {
        l->inst[k] = l->inst[k - 1];
        k--;
    }
    l->inst[k] = (ms_initial_inst){g, at, busy_until};
    l->n++;
    return MS_OK;
}

bool ms_initial_is_device(const char *text) { return text && !strcasecmp(text, "device"); }

/* One comma-separated item onto GPU g. */
static int parse_item(const char *item, const ms_gpu_model *gpu, int g, ms_initial *out,
                      ms_error *err)
{
    if (!strcasecmp(item, "empty"))
        return MS_OK;
    int k = ms_partition_parse(gpu, item);
    if (k < 0)
        return ms_error_set(err, MS_EINVAL,
                            "--initial: '%s' is not a partition of %s (sizes in slot order "
                            "like 4-2-1, a 1-based index as `migsched partitions` lists, "
                            "empty or device)",
                            item, gpu->name);
    const ms_partition *p = &gpu->partitions[k];
    for (int i = 0; i < p->n; i++) {
        int rc = ms_initial_add(out, gpu, g, p->inst[i], 0, err);
        if (rc)
            return rc;
    }
    return MS_OK;
}

int ms_initial_parse(const char *text, const ms_gpu_model *gpu, int gpus, ms_initial *out,
                     ms_error *err)
{
    ms_initial_init(out);
    if (ms_initial_is_device(text))
        return ms_error_set(err, MS_EINVAL,
                            "--initial device: only `migsched run` and migschedd, which see the "
                            "devices, can read what they hold");
    char buf[512];
    if (!text || !*text || strlen(text) >= sizeof buf)
        return ms_error_set(err, MS_EINVAL,
                            "--initial: expected empty, device or a partition "
                            "per GPU (got '%s')",
                            text ? text : "");
    snprintf(buf, sizeof buf, "%s", text);
    int items = 1;
    for (const char *c = buf; *c; c++)
        items += *c == ',';
    if (items != 1 && items != gpus) {
        return ms_error_set(err, MS_EINVAL,
                            "--initial '%s': %d layouts for %d GPU%s (give one for every GPU, "
                            "or one for each)",
                            text, items, gpus, gpus == 1 ? "" : "s");
    }
    char *save = NULL;
    int g = 0, rc = MS_OK;
    for (char *item = strtok_r(buf, ",", &save); item && !rc; item = strtok_r(NULL, ",", &save)) {
        if (items == 1)
            for (int h = 0; h < gpus && !rc; h++)
                rc = parse_item(item, gpu, h, out, err);
        else
            rc = parse_item(item, gpu, g++, out, err);
    }
    if (rc == MS_OK && g != (items == 1 ? 0 : gpus))
        rc = ms_error_set(err, MS_EINVAL, "--initial '%s': an empty item", text);
    if (rc)
        ms_initial_fini(out);
    return rc;
}

int ms_initial_on_gpu(const ms_initial *l, int g, ms_placement *at, double *busy)
{
    int n = 0;
    for (int i = 0; l && i < l->n; i++)
        if (l->inst[i].gpu == g && n < MS_MAX_SLOTS) {
            if (at)
                at[n] = l->inst[i].at;
            if (busy)
                busy[n] = l->inst[i].busy_until;
            n++;
        }
    return n;
}

/* GPU g's layout as "4-3", "empty" when it holds nothing. */
static void format_gpu(const ms_initial *l, const ms_gpu_model *gpu, int g, char *buf, size_t len)
{
    ms_partition p = {0};
    p.n = ms_initial_on_gpu(l, g, p.inst, NULL);
    if (p.n > MS_MAX_INSTANCES)
        p.n = MS_MAX_INSTANCES;
    if (p.n == 0)
        snprintf(buf, len, "empty");
    else
        ms_partition_format(gpu, &p, buf, (int)len);
}

void ms_initial_format(const ms_initial *l, const ms_gpu_model *gpu, int gpus, char *buf,
                       size_t len)
{
    char first[64], one[64];
    format_gpu(l, gpu, 0, first, sizeof first);
    bool same = true;
    for (int g = 1; g < gpus && same; g++) {
        format_gpu(l, gpu, g, one, sizeof one);
        same = !strcmp(one, first);
    }
    if (same) {
        snprintf(buf, len, "%s", first);
        return;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int g = 0; g < gpus && used + 1 < len; g++) {
        format_gpu(l, gpu, g, one, sizeof one);
        int w = snprintf(buf + used, len - used, "%s%s", g ? "," : "", one);
        used += w > 0 ? (size_t)w : 0;
    }
}

unsigned ms_initial_present_sizes(const ms_initial *l, const ms_gpu_model *gpu)
{
    unsigned present = 0;
    for (int i = 0; l && i < l->n; i++)
        present |= 1u << gpu->profiles[l->inst[i].at.profile].slices;
    return present;
}

int ms_initial_of_schedule(const ms_schedule *s, ms_initial *out, ms_error *err)
{
    ms_initial_init(out);
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        if (!isnan(in->create_start))
            continue;
        int rc = ms_initial_add(out, &s->gpu, in->gpu, (ms_placement){in->profile, in->start_slot},
                                0, err);
        if (rc) {
            ms_initial_fini(out);
            return rc;
        }
    }
    return MS_OK;
}

static bool holds(const ms_initial *l, const ms_initial_inst *x)
{
    for (int i = 0; l && i < l->n; i++)
        if (l->inst[i].gpu == x->gpu && l->inst[i].at.profile == x->at.profile &&
            l->inst[i].at.start == x->at.start)
            return true;
    return false;
}

/* Appends "GPU g: PROFILE at slot S is <a_name>, not <b_name>" for what a has and b lacks. */
static int missing(const ms_initial *a, const ms_initial *b, const ms_gpu_model *gpu,
                   const char *a_name, const char *b_name, char *buf, size_t len, size_t *used)
{
    int n = 0;
    for (int i = 0; a && i < a->n; i++) {
        if (holds(b, &a->inst[i]))
            continue;
        n++;
        if (*used + 1 >= len)
            continue;
        int w = snprintf(buf + *used, len - *used, "%sGPU %d: %s at slot %d is %s, not %s",
                         *used ? "; " : "", a->inst[i].gpu,
                         gpu->profiles[a->inst[i].at.profile].name, a->inst[i].at.start, a_name,
                         b_name);
        *used += w > 0 ? (size_t)w : 0;
        if (*used >= len)
            *used = len - 1;
    }
    return n;
}

int ms_initial_diff(const ms_initial *want, const ms_initial *have, const ms_gpu_model *gpu,
                    const char *want_name, const char *have_name, char *buf, size_t len)
{
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    int n = missing(want, have, gpu, want_name, have_name, buf, len, &used);
    return n + missing(have, want, gpu, have_name, want_name, buf, len, &used);
}
