/* presets.c: the named synthetic workloads of paper 000 6.3 and paper 001 5.1.3. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "migsched/workload.h"

/* A preset sets the scaling shares (p, p_sup) or the time range, never both, so a list
 * like "POORSCALING,WIDETIMES" combines them. Shares are given for the A100's sizes
 * 1,2,3,4,7 ("7" standing for the whole GPU) and mapped onto the GPU by map_size(). */
typedef struct preset {
    const char *name;
    bool scaling, uniform;
    double p1, p2, p3, p4, pall;
    double p_sup;
    double tmin, tmax;
    double patho2, patho4; /* pathological shares (paper 001 6.7), best at 2 or 4 slices */
} preset;

static const preset presets[] = {
    {"POORSCALING", true, false, .50, .50, 0, 0, 0, .25, 0, 0, 0, 0},
    {"MIXEDSCALING", true, true, 0, 0, 0, 0, 0, .50, 0, 0, 0, 0},
    {"MIXSCALINGUNIFORM", true, true, 0, 0, 0, 0, 0, .50, 0, 0, 0, 0},
    {"GOODSCALING", true, false, 0, 0, 0, .50, .50, .75, 0, 0, 0, 0},
    {"MIXSCALINGEXTREME", true, false, .45, .05, 0, .05, .45, .50, 0, 0, 0, 0},
    {"WIDETIMES", false, false, 0, 0, 0, 0, 0, 0, 1, 100, 0, 0},
    {"NARROWTIMES", false, false, 0, 0, 0, 0, 0, 0, 90, 100, 0, 0},
    {"PATHO4", true, false, .patho4 = 1},
    {"PATHO2", true, false, .patho2 = 1},
    {"PATHOMIX", true, false, .patho2 = .5, .patho4 = .5},
};
#define NPRESETS (int)(sizeof presets / sizeof presets[0])

const char *const *ms_gen_preset_names(void)
{
    static const char *names[NPRESETS + 1];
    for (int i = 0; i < NPRESETS; i++)
        names[i] = presets[i].name;
    return names;
}

/* The GPU size standing for nominal size s: the largest GPU size <= s (sizes start at 1). */
static int map_size(const ms_gpu_model *gpu, int s)
{
    int best = gpu->sizes[0];
    for (int k = 0; k < gpu->nsizes; k++)
        if (gpu->sizes[k] <= s)
            best = gpu->sizes[k];
    return best;
}

static void uniform_shares(const ms_gpu_model *gpu, ms_gen_params *out)
{
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        out->p[s] = 0;
    for (int k = 0; k < gpu->nsizes; k++)
        out->p[gpu->sizes[k]] = 1.0 / gpu->nsizes;
}

/* A pathological preset needs the 3-slice size and the sizes its tasks are best at. */
static int apply_patho(const ms_gpu_model *gpu, const preset *pr, ms_gen_params *out, ms_error *err)
{
    if (ms_gpu_size_index(gpu, 3) < 0 || (pr->patho2 > 0 && ms_gpu_size_index(gpu, 2) < 0) ||
        (pr->patho4 > 0 && ms_gpu_size_index(gpu, 4) < 0))
        return ms_error_set(err, MS_EINVAL,
                            "preset %s needs instances of 3 slices and of the "
                            "size its tasks are best at (2 or 4); %s lacks one",
                            pr->name, gpu->name);
    out->patho[2] = pr->patho2;
    out->patho[4] = pr->patho4;
    return MS_OK;
}

static int apply(const ms_gpu_model *gpu, const preset *pr, ms_gen_params *out, ms_error *err)
{
    if (!pr->scaling) {
        out->tmin = pr->tmin;
        out->tmax = pr->tmax;
        return MS_OK;
    }
    memset(out->patho, 0, sizeof out->patho);
    if (pr->patho2 > 0 || pr->patho4 > 0)
        return apply_patho(gpu, pr, out, err);
    out->p_sup = pr->p_sup;
    uniform_shares(gpu, out);
    if (pr->uniform)
        return MS_OK;
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        out->p[s] = 0;
    int largest = gpu->sizes[gpu->nsizes - 1];
    out->p[map_size(gpu, 1)] += pr->p1;
    out->p[map_size(gpu, 2)] += pr->p2;
    out->p[map_size(gpu, 3)] += pr->p3;
    out->p[map_size(gpu, 4)] += pr->p4;
    out->p[largest] += pr->pall;
    return MS_OK;
}

static const preset *find(const char *name, size_t len)
{
    for (int i = 0; i < NPRESETS; i++)
        if (strlen(presets[i].name) == len && !strncasecmp(presets[i].name, name, len))
            return &presets[i];
    return NULL;
}

int ms_gen_preset(const ms_gpu_model *gpu, const char *list, ms_gen_params *out, ms_error *err)
{
    /* Defaults: paper 001's MIXSCALINGUNIFORM (uniform shares, p_sup 0.5, 90-100 s). */
    memset(out, 0, sizeof *out);
    uniform_shares(gpu, out);
    out->p_sup = 0.5;
    out->tmin = 90;
    out->tmax = 100;
    out->p_stop = 0.3;
    const char *p = list ? list : "";
    while (*p) {
        while (*p == ',' || isspace((unsigned char)*p))
            p++;
        size_t len = strcspn(p, ",");
        while (len && isspace((unsigned char)p[len - 1]))
            len--;
        if (!len)
            break;
        const preset *pr = find(p, len);
        if (!pr) {
            char known[256] = "";
            for (int i = 0; i < NPRESETS; i++)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "",
                         presets[i].name);
            return ms_error_set(err, MS_EINVAL, "unknown preset '%.*s' (known: %s)",
                                (int)(len > 64 ? 64 : len), p, known);
        }
        int rc = apply(gpu, pr, out, err);
        if (rc)
            return rc;
        p += strcspn(p, ",");
    }
    return MS_OK;
}
