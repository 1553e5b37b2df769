/* observe.c: the observation vector (FLOAT / ONE-HOT / EXACT, paper 001 4.1): the
 * configuration, the slices' free times and the batch's classes, above the dynamics. */
#include <math.h>

#include "env_internal.h"

/* One discretised time: FLOAT writes 1 value, ONE-HOT writes M. */
static float *put_level(const ms_env *e, float *o, int level)
{
    int M = e->cfg.levels;
    if (e->cfg.encoding == MS_ENC_FLOAT) {
        *o++ = level > M ? -1.0f : (float)level / (float)M;
        return o;
    }
    for (int l = 1; l <= M; l++)
        *o++ = level > M ? -1.0f : (float)(l == level);
    return o;
}

/* One time (at most 0: free or padding): its level, or with EXACT t / scale itself. */
static float *put_time(const ms_env *e, float *o, double t)
{
    if (e->cfg.encoding != MS_ENC_EXACT)
        return put_level(e, o, ms_env_level(t, e->scale, e->cfg.levels));
    *o++ = isinf(t) ? -1.0f : t > 0 ? (float)fmin(t / e->scale, 1.0) : 0.0f;
    return o;
}

void ms_env_observe(const ms_env *e, float *obs)
{
    float *o = obs;
    int canon = ms_env_canon_config(e);
    for (int c = 0; c <= e->C; c++)
        *o++ = (float)(c == (canon < 0 ? e->C : canon));
    const int *sigma = e->part < 0 ? e->ident : e->canon.sigma[e->part];
    for (int i = 0; i < e->K; i++)
        o = put_time(e, o, e->free_at[sigma[i]] - e->now);
    for (int j = 0; j < e->cfg.n_batch; j++) {
        int t = j < e->nclass ? e->class_task[j] : -1; /* the class's next task; -1 padding */
        for (int k = 0; k < e->S; k++) /* levels as discretised at reset, or exact times */
            o = e->cfg.encoding == MS_ENC_EXACT
                    ? put_time(e, o, t < 0 ? 0 : e->w->tasks[t].time[e->gpu.sizes[k]])
                    : put_level(e, o, t < 0 ? 0 : e->level[t * e->S + k]);
        *o++ = j < e->nclass ? (float)e->class_count[j] / (float)e->cfg.n_batch : 0.0f;
    }
    *o++ = (float)e->last_reconfig;
}
