/* corun.c: where co-run times come from: the model, or a measured table that replaces it
 * (then a job set and setup missing from the table is unknown, never modelled). */
#include "hier_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ms_hier_corun *ms_hier_corun_model(const ms_hier_params *par)
{
    ms_hier_corun *cr = calloc(1, sizeof *cr);
    if (cr)
        cr->par = par ? *par : ms_hier_params_default();
    return cr;
}

void ms_hier_corun_free(ms_hier_corun *cr)
{
    if (!cr)
        return;
    free(cr->rows);
    free(cr);
}

int ms_hier_corun_measured(const ms_hier_corun *cr) { return cr->measured; }

const ms_hier_params *ms_hier_corun_params(const ms_hier_corun *cr) { return &cr->par; }

void hier_corun_key(const char *setup_id, const char *const *names, int c, char *key, size_t len)
{
    size_t at = (size_t)snprintf(key, len, "%s", setup_id);
    for (int k = 0; k < c && at < len; k++)
        at += (size_t)snprintf(key + at, len - at, "|%s", names[k]);
}

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const hier_corun_row *)a)->key, ((const hier_corun_row *)b)->key);
}

void hier_corun_sort(ms_hier_corun *cr) { qsort(cr->rows, cr->n, sizeof *cr->rows, row_cmp); }

const hier_corun_row *hier_corun_find(const ms_hier_corun *cr, const char *key)
{
    hier_corun_row probe;
    snprintf(probe.key, sizeof probe.key, "%s", key);
    return bsearch(&probe, cr->rows, cr->n, sizeof *cr->rows, row_cmp);
}

int ms_hier_corun_times(const ms_hier_corun *cr, const ms_hier_profile *const *jobs,
                        const ms_hier_setup *s, double *times)
{
    if (s->family == MS_HIER_FAM_SOLO) {
        times[0] = jobs[0]->solo;
        return 0;
    }
    if (!cr->measured) {
        ms_hier_model_times(&cr->par, jobs, s, times);
        return 0;
    }
    const char *names[MS_HIER_MAX_C];
    char key[HIER_KEY_LEN];
    for (int k = 0; k < s->c; k++)
        names[k] = jobs[k]->name;
    hier_corun_key(s->id, names, s->c, key, sizeof key);
    const hier_corun_row *r = hier_corun_find(cr, key);
    if (!r)
        return 1;
    memcpy(times, r->times, (size_t)s->c * sizeof *times);
    return 0;
}
