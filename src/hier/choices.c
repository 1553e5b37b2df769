/* choices.c: the decisions a co-scheduler can take on a window: a job set of the jobs still
 * waiting, a setup for its size and an order of its jobs over the setup's slots. */
#include "hier_internal.h"

/* Job sets of size c drawn from `jobs`, as increasing index tuples. */
static size_t sets_of(const int *jobs, int n, int c, int families, int from, int *pick, int depth,
                      const ms_hier_setup *setups, size_t nsetups, ms_hier_choice *out, size_t cap,
                      size_t count)
{
    if (depth == c) {
        for (size_t si = 0; si < nsetups; si++) {
            int perm[MS_HIER_MAX_C];
            for (int k = 0; k < c; k++)
                perm[k] = k;
            do {
                if (hier_order_redundant(&setups[si], perm))
                    continue;
                if (out && count < cap) {
                    ms_hier_choice *ch = &out[count];
                    ch->c = c;
                    ch->setup = (int)si;
                    for (int k = 0; k < c; k++)
                        ch->job[k] = pick[perm[k]];
                    for (int k = c; k < MS_HIER_MAX_C; k++)
                        ch->job[k] = -1;
                }
                count++;
            } while (hier_next_perm(perm, c));
        }
        return count;
    }
    for (int i = from; i < n; i++) {
        pick[depth] = jobs[i];
        count = sets_of(jobs, n, c, families, i + 1, pick, depth + 1, setups, nsetups, out, cap,
                        count);
    }
    return count;
}

size_t ms_hier_choices(unsigned long long free_jobs, int cmax, int families, ms_hier_choice *out,
                       size_t cap)
{
    int jobs[64], n = 0, pick[MS_HIER_MAX_C];
    for (int j = 0; j < 64; j++)
        if (free_jobs >> j & 1)
            jobs[n++] = j;
    size_t count = 0;
    ms_hier_setup setups[128];
    for (int c = 1; c <= cmax && c <= MS_HIER_MAX_C && c <= n; c++) {
        size_t ns = ms_hier_setups_for(c, c == 1 ? MS_HIER_FAM_SOLO : families & ~MS_HIER_FAM_SOLO,
                                       setups, 128);
        count = sets_of(jobs, n, c, families, 0, pick, 0, setups, ns, out, cap, count);
    }
    return count;
}
