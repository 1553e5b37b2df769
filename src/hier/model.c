/* model.c: the co-run time model of DESIGN.md ("Co-run model for MIG+MPS"), run in phases:
 * whenever a co-runner finishes, the others' bandwidth shares, interference and (for default
 * MPS) compute shares are recomputed, because the partition itself stays fixed until the
 * whole set is done (MIG cannot be reconfigured while jobs run). */
#include "migsched/hier.h"

#include <math.h>

ms_hier_params ms_hier_params_default(void)
{
    /* docs/hier.md: chosen, not fitted, so that two memory-intensive jobs co-run slower than
     * time sharing under MPS and faster with private memory (paper 004 Fig. 4's finding). */
    return (ms_hier_params){.gamma = 0.4};
}

int ms_hier_n_gi(const ms_hier_setup *s) { return s->layout == MS_HIER_PRIVATE ? 2 : 1; }

double ms_hier_gi_mem(const ms_hier_setup *s, int gi)
{
    if (s->layout != MS_HIER_PRIVATE)
        return 1.0;
    for (int ci = 0; ci < s->n_ci; ci++)
        if (s->ci[ci].gi == gi)
            return s->ci[ci].mem8 / 8.0;
    return 0;
}

double ms_hier_slot_compute(const ms_hier_setup *s, int k)
{
    const ms_hier_slot *sl = &s->slot[k];
    double ci = s->ci[sl->ci].gpcs / 8.0;
    return ci * (sl->pct > 0 ? sl->pct / 100.0 : 1.0);
}

/* Compute share of slot k while `active` jobs run: a default-MPS client shares its CI
 * equally with the CI's other running clients (no thread limit, work-conserving). */
static double compute_share(const ms_hier_setup *s, int k, const int *active)
{
    if (s->slot[k].pct > 0)
        return ms_hier_slot_compute(s, k);
    int peers = 0;
    for (int i = 0; i < s->c; i++)
        if (active[i] && s->slot[i].ci == s->slot[k].ci)
            peers++;
    return s->ci[s->slot[k].ci].gpcs / 8.0 / peers;
}

/* The memory system a slot uses: its GI when memory is private, else the whole GPU. */
static int mem_domain(const ms_hier_setup *s, int k)
{
    return s->layout == MS_HIER_PRIVATE ? s->ci[s->slot[k].ci].gi : 0;
}

/* Durations (full job, current conditions) of the active jobs. */
static void durations(const ms_hier_params *par, const ms_hier_profile *const *jobs,
                      const ms_hier_setup *s, const int *active, double *dur)
{
    double tc[MS_HIER_MAX_C], demand[MS_HIER_MAX_C];
    for (int k = 0; k < s->c; k++) {
        if (!active[k])
            continue;
        const ms_hier_profile *p = jobs[k];
        double beta = compute_share(s, k, active);
        tc[k] = p->solo * (p->serial * fmax(1.0, par->serial_width / (8.0 * beta)) +
                           (1.0 - p->serial) / beta);
        /* Bandwidth (share of the GPU's) the job would draw running compute-bound. */
        demand[k] = p->mem * p->solo / tc[k];
    }
    for (int k = 0; k < s->c; k++) {
        if (!active[k])
            continue;
        const ms_hier_profile *p = jobs[k];
        int d = mem_domain(s, k);
        double sum = 0, others_m = 0;
        for (int i = 0; i < s->c; i++) {
            if (!active[i] || mem_domain(s, i) != d)
                continue;
            sum += demand[i];
            if (i != k)
                others_m += jobs[i]->mem;
        }
        double tm = 0;
        if (p->mem > 0) {
            double alpha = ms_hier_gi_mem(s, d) * demand[k] / sum;
            tm = p->solo * p->mem / alpha * (1.0 + par->gamma * p->cache * others_m);
        }
        dur[k] = fmax(tc[k], tm);
    }
}

void ms_hier_model_times(const ms_hier_params *par, const ms_hier_profile *const *jobs,
                         const ms_hier_setup *s, double *times)
{
    int active[MS_HIER_MAX_C];
    double left[MS_HIER_MAX_C], dur[MS_HIER_MAX_C];
    for (int k = 0; k < s->c; k++) {
        active[k] = 1;
        left[k] = 1.0; /* share of the job still to do */
    }
    double now = 0;
    for (int running = s->c; running > 0;) {
        durations(par, jobs, s, active, dur);
        int first = -1;
        double step = INFINITY;
        for (int k = 0; k < s->c; k++)
            if (active[k] && left[k] * dur[k] < step) {
                step = left[k] * dur[k];
                first = k;
            }
        now += step;
        for (int k = 0; k < s->c; k++) {
            if (!active[k])
                continue;
            left[k] -= step / dur[k];
            /* Ties finish together; the tolerance absorbs rounding in left. */
            if (k == first || left[k] <= 1e-12) {
                active[k] = 0;
                times[k] = now;
                running--;
            }
        }
    }
}
