/* metrics.c: what the papers report about a schedule: makespan, bounds, rho, p_opt,
 * reconfiguration counts and busy-slice utilization. */
#include <math.h>

#include "migsched/schedule.h"

unsigned ms_schedule_present_sizes(const ms_schedule *s)
{
    unsigned mask = 0;
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        if (isnan(in->create_start) && in->profile >= 0 && in->profile < s->gpu.nprofiles)
            mask |= 1u << s->gpu.profiles[in->profile].slices;
    }
    return mask;
}

void ms_schedule_metrics(const ms_schedule *s, const ms_workload *w, ms_metrics *out)
{
    const ms_gpu_model *g = &s->gpu;
    ms_metrics m = {0};
    m.makespan = ms_schedule_makespan(s);
    m.baseline = ms_bound_baseline(w, g, s->gpus);
    ms_bound_lbound_both(w, g, s->gpus, ms_schedule_present_sizes(s), &m.l_bound, &m.l_bound_paper);
    m.rho = m.baseline > 0 ? m.makespan / m.baseline : NAN;
    m.p_opt = m.l_bound_paper > 0 ? (m.makespan / m.l_bound_paper - 1.0) * 100.0 : NAN;
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        m.creations += !isnan(in->create_start);
        m.destructions += !isnan(in->destroy_start);
        /* A destruction before the last task ends makes room for other instances: a
         * repartition. Destructions after it only tidy up. */
        m.reconfigurations += !isnan(in->destroy_start) && in->destroy_start < m.makespan;
    }
    double busy = 0.0;
    for (int i = 0; i < s->ntasks; i++) {
        const ms_sched_task *t = &s->task[i];
        if (t->instance < 0 || t->instance >= s->ninst)
            continue;
        int p = s->inst[t->instance].profile;
        if (p >= 0 && p < g->nprofiles)
            busy += (t->end - t->start) * g->profiles[p].slices;
    }
    m.utilization = m.makespan > 0 ? busy / (g->slices * (double)s->gpus * m.makespan) : 0.0;
    *out = m;
}
