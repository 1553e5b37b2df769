/* layout.c: static layouts for the first-fit-static baseline (paper 002 V-C): one multiset
 * of instances whose profile counts follow the distribution of requests, the same in every
 * layout, spread over the GPUs in several ways. Each instance goes to the placement that
 * keeps F(g) lowest. */
#include "internal.h"
#include "migsched/io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const layout_names[MS_LAYOUT_COUNT] = {"packed", "small-first", "spread",
                                                          "grouped"};

const char *ms_online_layout_name(int layout)
{
    return layout >= 0 && layout < MS_LAYOUT_COUNT ? layout_names[layout] : "best";
}

int ms_online_layout_parse(const char *text)
{
    if (!strcmp(text, "best"))
        return MS_LAYOUT_BEST;
    int i = ms_name_index(layout_names, MS_LAYOUT_COUNT, text);
    return i < 0 ? -2 : i;
}

static bool add_to(const ms_gpu_model *m, ms_partition *part, int profile)
{
    ms_placement p;
    if (part->n == MS_MAX_INSTANCES || !ms_online_best_placement(m, part, NULL, profile, &p, NULL))
        return false;
    part->inst[part->n++] = p;
    return true;
}

/* Tries GPUs from `first` on (cyclically); returns the GPU used or -1. */
static int place_one(const ms_gpu_model *m, ms_partition *parts, int gpus, int first, int profile)
{
    for (int i = 0; i < gpus; i++) {
        int g = (first + i) % gpus;
        if (add_to(m, &parts[g], profile))
            return g;
    }
    return -1;
}

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Order of instances to insert: one of each requested profile first (so every profile has
 * a home when it fits at all), then the rest by the layout's rule. Profiles are encoded
 * as sort keys so that qsort gives the wanted order. */
static int instance_order(const ms_gpu_model *m, const int *want, int layout, int *order,
                          int *nfirst)
{
    int n = 0, total = 0;
    for (int p = 0; p < m->nprofiles; p++)
        total += want[p];
    int *keys = malloc((size_t)(total ? total : 1) * sizeof *keys);
    if (!keys)
        return -1;
    for (int p = 0; p < m->nprofiles; p++)
        for (int k = 1; k < want[p]; k++) {
            int size = m->profiles[p].slices;
            int key = layout == MS_LAYOUT_SMALL_FIRST ? size * 64 + p
                      : layout == MS_LAYOUT_GROUPED   ? p * 64 + k % 64
                                                      : (MS_MAX_SLICES - size) * 64 + p;
            keys[n++] = key * 4096 + p;
        }
    qsort(keys, (size_t)n, sizeof *keys, cmp_int);
    int out = 0, firsts[MS_MAX_PROFILES], nf = 0;
    for (int p = 0; p < m->nprofiles; p++)
        if (want[p] > 0)
            firsts[nf++] = p;
    for (int i = 0; i < nf; i++) { /* largest first: they are the hardest to fit */
        int best = i;
        for (int k = i + 1; k < nf; k++)
            if (m->profiles[firsts[k]].slices > m->profiles[firsts[best]].slices)
                best = k;
        int t = firsts[i];
        firsts[i] = firsts[best];
        firsts[best] = t;
        order[out++] = firsts[i];
    }
    *nfirst = nf;
    for (int i = 0; i < n; i++)
        order[out++] = keys[i] % 4096;
    free(keys);
    return out;
}

/* The multiset: n_p = floor(k x share_p) instances of each requested profile (at least
 * one), for the largest k whose multiset one of the layout rules can place whole. Every
 * layout then holds the same instances (paper 002 V-C); only their placement differs. */
static bool counts_for(const ms_gpu_model *m, const double *share, double k, int *want)
{
    bool any = false;
    for (int p = 0; p < m->nprofiles; p++) {
        want[p] = share[p] > 0 ? (int)floor(k * share[p] + 1e-9) : 0;
        want[p] = share[p] > 0 && want[p] < 1 ? 1 : want[p];
        any |= want[p] > 0;
    }
    return any;
}

static int place_all(const ms_gpu_model *m, const int *want, int gpus, int layout,
                     ms_partition *parts, int *missing)
{
    int count = 0;
    for (int p = 0; p < m->nprofiles; p++)
        count += want[p];
    int *order = malloc((size_t)(count + MS_MAX_PROFILES) * sizeof *order);
    if (!order)
        return MS_ENOMEM;
    int nfirst, n = instance_order(m, want, layout, order, &nfirst);
    if (n < 0) {
        free(order);
        return MS_ENOMEM;
    }
    memset(parts, 0, (size_t)gpus * sizeof *parts);
    int next = 0, rc = MS_OK;
    for (int i = 0; i < n && !rc; i++) {
        int g = place_one(m, parts, gpus, layout == MS_LAYOUT_SPREAD ? next : 0, order[i]);
        if (g < 0) {
            *missing = order[i];
            rc = MS_EINFEASIBLE;
        }
        next = (g + 1) % gpus;
    }
    free(order);
    return rc;
}

int msi_build_layout(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_config *c,
                     int layout, ms_partition *parts, ms_error *err)
{
    double share[MS_MAX_PROFILES] = {0}, slices = 0, slots = 0, sum = 0;
    for (int p = 0; p < m->nprofiles; p++)
        sum += c->layout_share[p];
    for (int p = 0; p < m->nprofiles; p++) /* the given shares, else the workload's counts */
        share[p] = sum > 0 ? c->layout_share[p] / sum : 0;
    for (int j = 0; sum <= 0 && j < w->n; j++)
        share[w->jobs[j].profile] += 1.0 / w->n;
    for (int p = 0; p < m->nprofiles; p++) {
        slices += share[p] * m->profiles[p].slices;
        slots += share[p] * m->profiles[p].size_slots;
    }
    double top = fmin(c->gpus * m->slices / slices, c->gpus * m->slots / slots);
    int want[MS_MAX_PROFILES], missing = -1;
    for (int k = (int)floor(top + 1e-9); k >= 0; k--) {
        counts_for(m, share, k, want);
        for (int l = 0; l < MS_LAYOUT_COUNT; l++) {
            int rc = place_all(m, want, c->gpus, l, parts, &missing);
            if (rc == MS_ENOMEM)
                return ms_error_set(err, rc, "out of memory building a static layout");
            if (rc == MS_OK)
                goto found;
        }
    }
    return ms_error_set(err, MS_EINFEASIBLE,
                        "static layout '%s': no room for a %s instance "
                        "on %d GPU(s) beside one of every other requested profile",
                        ms_online_layout_name(layout), m->profiles[missing].name, c->gpus);
found:;
    int rc = place_all(m, want, c->gpus, layout, parts, &missing);
    if (rc == MS_ENOMEM)
        return ms_error_set(err, rc, "out of memory building a static layout");
    if (rc)
        return ms_error_set(err, MS_EINFEASIBLE,
                            "static layout '%s': no room for every "
                            "instance of the multiset on %d GPU(s) (a %s is left over)",
                            ms_online_layout_name(layout), c->gpus, m->profiles[missing].name);
    return MS_OK;
}
