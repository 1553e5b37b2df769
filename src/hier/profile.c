/* profile.c: job profiles: the names of their counters and classes, V-A2's classification,
 * range checks, catalogues, windows built from names and the random job mixes of Table V's
 * four categories. */
#include "migsched/hier.h"
#include "migsched/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const ms_hier_counter_names[MS_HIER_NCOUNTERS] = {
    "duration",         "memory_pct",           "elapsed_cycles",
    "grid_size",        "registers_per_thread", "dram_throughput",
    "l1tex_throughput", "l2_throughput",        "sm_active_cycles",
    "compute_pct",      "waves_per_sm",         "achieved_active_warps"};

const char *ms_hier_class_name(ms_hier_class c)
{
    static const char *const names[] = {"CI", "MI", "US"};
    return names[c];
}

ms_hier_class ms_hier_classify(const ms_hier_profile *p, const ms_hier_params *par)
{
    double t1 = p->t_1gpc;
    if (t1 <= 0) { /* alone in a 1g GI: one GPC of eight, one memory slice of eight */
        ms_hier_setup s;
        memset(&s, 0, sizeof s);
        s.layout = MS_HIER_PRIVATE;
        s.c = 1;
        s.n_ci = 1;
        s.ci[0] = (ms_hier_ci){.gi = 0, .gpcs = 1, .mem8 = 1};
        s.slot[0] = (ms_hier_slot){.ci = 0, .pct = 100};
        const ms_hier_profile *jobs[1] = {p};
        ms_hier_model_times(par, jobs, &s, &t1);
    }
    if (t1 / p->solo - 1.0 < 0.10)
        return MS_HIER_US;
    double mem = p->counters[MS_HIER_C_MEMORY_PCT];
    double comp = p->counters[MS_HIER_C_COMPUTE_PCT];
    if (mem <= 0 || comp / mem > 0.80)
        return MS_HIER_CI;
    return MS_HIER_MI;
}

int ms_hier_profile_check(const ms_hier_profile *p, ms_error *err)
{
    if (!p->name[0])
        return ms_error_set(err, MS_EINVAL, "empty job name");
    if (!(p->solo > 0) || ms_time_check(p->solo))
        return ms_error_set(err, MS_EINVAL,
                            "job %s: solo must be a positive number of seconds "
                            "(at most %g)",
                            p->name, MS_TIME_MAX);
    if (!(p->serial >= 0 && p->serial <= 1))
        return ms_error_set(err, MS_EINVAL, "job %s: serial must be in [0, 1]", p->name);
    if (!(p->mem >= 0 && p->mem <= 1))
        return ms_error_set(err, MS_EINVAL, "job %s: mem must be in [0, 1]", p->name);
    if (!(p->cache >= 0) || !isfinite(p->cache))
        return ms_error_set(err, MS_EINVAL, "job %s: cache must be a finite number >= 0", p->name);
    if (!(p->t_1gpc >= 0) || ms_time_check(p->t_1gpc))
        return ms_error_set(err, MS_EINVAL,
                            "job %s: t_1gpc must be >= 0 (0 = modelled) and at "
                            "most %g s",
                            p->name, MS_TIME_MAX);
    for (int i = 0; i < MS_HIER_NCOUNTERS; i++)
        if (!(p->counters[i] >= 0) || !isfinite(p->counters[i]))
            return ms_error_set(err, MS_EINVAL, "job %s: counter %s must be a finite number >= 0",
                                p->name, ms_hier_counter_names[i]);
    return MS_OK;
}

void ms_hier_catalog_fini(ms_hier_catalog *c)
{
    if (!c)
        return;
    free(c->jobs);
    memset(c, 0, sizeof *c);
}

const ms_hier_profile *ms_hier_catalog_find(const ms_hier_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n; i++)
        if (strcmp(c->jobs[i].name, name) == 0)
            return &c->jobs[i];
    return NULL;
}

void ms_hier_window_fini(ms_hier_window *w)
{
    if (!w)
        return;
    for (size_t i = 0; w->commands && i < w->n; i++)
        free(w->commands[i]);
    free(w->commands);
    free(w->jobs);
    memset(w, 0, sizeof *w);
}

int ms_hier_window_from_names(const ms_hier_catalog *cat, const char *const *names, size_t n,
                              ms_hier_window *out, ms_error *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return ms_error_set(err, MS_EINVAL, "empty window");
    out->jobs = calloc(n, sizeof *out->jobs);
    if (!out->jobs)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const ms_hier_profile *p = ms_hier_catalog_find(cat, names[i]);
        if (!p) {
            ms_hier_window_fini(out);
            return ms_error_set(err, MS_EINVAL, "job %zu: unknown job '%s' (not in the catalogue)",
                                i + 1, names[i]);
        }
        out->jobs[i] = *p;
    }
    out->n = n;
    return MS_OK;
}

const char *ms_hier_mix_name(int category)
{
    static const char *const names[] = {"ci", "mi", "us", "bal"};
    return category >= 0 && category < MS_HIER_NMIX ? names[category] : "?";
}

int ms_hier_window_mix(const ms_hier_catalog *cat, int category, size_t w, int unseen_only,
                       ms_rng *rng, ms_hier_window *out, ms_error *err)
{
    /* Pools of catalogue indices per class; drawn without replacement until one runs dry. */
    size_t *pool[3], npool[3] = {0, 0, 0}, left[3];
    memset(out, 0, sizeof *out);
    if (w == 0 || category < 0 || category >= MS_HIER_NMIX)
        return ms_error_set(err, MS_EINVAL, "bad mix: window %zu, category %d", w, category);
    for (int k = 0; k < 3; k++)
        pool[k] = calloc(cat->n + 1, sizeof **pool);
    out->jobs = calloc(w, sizeof *out->jobs);
    int rc = MS_OK;
    if (!pool[0] || !pool[1] || !pool[2] || !out->jobs) {
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < cat->n; i++)
        if (unseen_only < 0 || cat->jobs[i].unseen == unseen_only)
            pool[cat->jobs[i].cls][npool[cat->jobs[i].cls]++] = i;
    for (int k = 0; k < 3; k++) {
        left[k] = npool[k];
        if (npool[k] == 0) {
            rc = ms_error_set(err, MS_EINVAL, "the catalogue has no %s job to build a mix from",
                              ms_hier_class_name((ms_hier_class)k));
            goto done;
        }
    }
    /* V-A2: the dominant class fills the first half, then the other classes in turn. */
    size_t half = category == MS_HIER_MIX_BALANCED ? 0 : w / 2;
    for (size_t i = 0; i < w; i++) {
        int cls;
        if (i < half)
            cls = category;
        else if (category == MS_HIER_MIX_BALANCED)
            cls = (int)(i % 3);
        else
            cls = (category + 1 + (int)((i - half) % 2)) % 3;
        if (left[cls] == 0)
            left[cls] = npool[cls];
        size_t pick = ms_rng_below(rng, left[cls]);
        size_t idx = pool[cls][pick];
        pool[cls][pick] = pool[cls][left[cls] - 1];
        pool[cls][left[cls] - 1] = idx;
        left[cls]--;
        out->jobs[i] = cat->jobs[idx];
    }
    out->n = w;
done:
    for (int k = 0; k < 3; k++)
        free(pool[k]);
    if (rc)
        ms_hier_window_fini(out);
    return rc;
}
