/* export.c: an episode as a migsched-schedule/1 with the real times. */
#include <math.h>

#include "env_internal.h"

int ms_env_fill_schedule(const ms_env *e, ms_schedule *s, ms_error *err)
{
    if (e->failed)
        return ms_error_set(err, MS_ENOMEM, "environment: out of memory during the episode");
    ms_schedule_clear(s);
    for (int i = 0; i < e->nlog; i++) {
        const env_log_inst *l = &e->log[i];
        if (ms_schedule_add_instance(s, 0, l->profile, l->start, l->create_start, l->create_end,
                                     l->destroy_start, l->destroy_end) < 0)
            return ms_error_set(err, MS_ENOMEM, "environment: out of memory");
    }
    for (int t = 0; e->w && t < e->w->n; t++)
        if (e->tlog[t].inst >= 0 &&
            ms_schedule_add_task(s, t, e->tlog[t].inst, e->tlog[t].start, e->tlog[t].end))
            return ms_error_set(err, MS_ENOMEM, "environment: out of memory");
    ms_schedule_set_stat(s, "reconfigurations", e->nreconf);
    ms_schedule_set_stat(s, "decisions", e->nsteps);
    ms_schedule_normalize(s);
    return MS_OK;
}

int ms_env_to_schedule(const ms_env *e, const char *algorithm, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    ms_schedule *s = ms_schedule_new(&e->gpu, 1, algorithm);
    if (!s)
        return ms_error_set(err, MS_ENOMEM, "environment: out of memory");
    int rc = ms_env_fill_schedule(e, s, err);
    if (rc)
        ms_schedule_free(s);
    else
        *out = s;
    return rc;
}
