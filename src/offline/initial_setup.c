/* initial_setup.c: one GPU from its initial layout to a partition (initial_setup.h). */
#include <math.h>

#include "initial_setup.h"

static bool same(ms_placement a, ms_placement b)
{
    return a.profile == b.profile && a.start == b.start;
}

int setup_partition(const ms_gpu_model *gpu, const ms_initial *initial, int g,
                    const ms_partition *p, ms_schedule *s, int *id, double *ready)
{
    ms_placement at[MS_MAX_SLOTS];
    double busy[MS_MAX_SLOTS];
    int n = ms_initial_on_gpu(initial, g, at, busy);
    uint32_t wanted = 0;
    for (int i = 0; i < p->n; i++)
        wanted |= ms_gpu_slot_mask(gpu, p->inst[i]);
    int kept_by[MS_MAX_INSTANCES]; /* p's instance i: the initial one it keeps, -1: none */
    bool kept[MS_MAX_SLOTS] = {false}, in_way[MS_MAX_SLOTS];
    for (int i = 0; i < p->n; i++) {
        kept_by[i] = -1;
        for (int k = 0; k < n; k++)
            if (same(at[k], p->inst[i]))
                kept_by[i] = k;
        if (kept_by[i] >= 0)
            kept[kept_by[i]] = true;
    }
    for (int k = 0; k < n; k++)
        in_way[k] = !kept[k] && (ms_gpu_slot_mask(gpu, at[k]) & wanted) != 0;
    /* Destructions by the time each instance is free (idle ones at 0 first). */
    int order[MS_MAX_SLOTS], nd = 0;
    for (int k = 0; k < n; k++)
        if (in_way[k]) {
            int j = nd++;
            while (j > 0 && busy[order[j - 1]] > busy[k]) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = k;
        }
    double clock = 0;
    for (int k = 0; k < n; k++) /* untouched: listed as they are */
        if (!in_way[k] && !kept[k] && s &&
            ms_schedule_add_instance(s, g, at[k].profile, at[k].start, NAN, NAN, NAN, NAN) < 0)
            return -1;
    for (int j = 0; j < nd; j++) {
        int k = order[j];
        double d0 = fmax(clock, busy[k]);
        clock = d0 + ms_gpu_destroy_time(gpu, gpu->profiles[at[k].profile].slices);
        if (s &&
            ms_schedule_add_instance(s, g, at[k].profile, at[k].start, NAN, NAN, d0, clock) < 0)
            return -1;
    }
    for (int i = 0; i < p->n; i++) {
        int sid = 0;
        if (kept_by[i] >= 0) {
            ready[i] = busy[kept_by[i]];
            if (s)
                sid = ms_schedule_add_instance(s, g, p->inst[i].profile, p->inst[i].start, NAN, NAN,
                                               NAN, NAN);
        } else {
            double c0 = clock;
            clock += ms_gpu_create_time(gpu, gpu->profiles[p->inst[i].profile].slices);
            ready[i] = clock;
            if (s)
                sid = ms_schedule_add_instance(s, g, p->inst[i].profile, p->inst[i].start, c0,
                                               clock, NAN, NAN);
        }
        if (sid < 0)
            return -1;
        if (id)
            id[i] = sid;
    }
    return 0;
}
