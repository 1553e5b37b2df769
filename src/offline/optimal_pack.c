/* optimal_pack.c: the exact scheduler's packing bounds (docs/optimal.md, Bounds). Under a
 * cut-off, a remaining task can only run on the sizes where it can still end before it. The
 * geometry lets only m_s instances of at least s slices coexist, each running one task at a
 * time: the tasks that need such an instance and the live ones' remaining work are jobs on
 * m_s parallel machines from the first moment a new instance of those sizes can run one.
 * And each memory slot runs one task at a time: the slots are bins of the time left. */
#include "optimal_internal.h"

/* The most placements of at least `least` slices that hold no slot in common, among the
 * candidates from `from` on, counted one each or (by_slices) by their slices (each
 * placement holds a candidate's slots with its size, so no set of instances holds more). */
static int most_disjoint(const opt_problem *o, int least, bool by_slices, int from, uint32_t held)
{
    int best = 0;
    for (int p = from; p < o->ncand; p++)
        if (o->size[p] >= least && !(o->mask[p] & held)) {
            int k = (by_slices ? o->size[p] : 1) +
                    most_disjoint(o, least, by_slices, p + 1, held | o->mask[p]);
            if (k > best)
                best = k;
        }
    return best;
}

/* Bins for weighting w: every memory slot (w = 0), or those a placement of the least size
 * holds (w = 1; on the A100 the seven of a 1g instance, the eighth held only by 3g and 7g
 * instances). An instance's weight is the bins it holds: per size the least over its
 * candidates; a non-candidate placement holds a candidate's slots with its size. */
static void find_bins(opt_problem *o, int w)
{
    uint32_t bins = 0;
    for (int p = 0; p < o->ncand; p++)
        if (w == 0 || o->size[p] == o->g->sizes[0])
            bins |= o->mask[p];
    o->bin_count[w] = __builtin_popcount(bins);
    for (int k = 0; k < o->g->nsizes; k++)
        o->bin_weight[w][k] = MS_MAX_SLOTS;
    for (int p = 0; p < o->ncand; p++) {
        int k = ms_gpu_size_index(o->g, o->size[p]), held = __builtin_popcount(o->mask[p] & bins);
        if (held < o->bin_weight[w][k])
            o->bin_weight[w][k] = held;
    }
    for (int p = 0; p < o->npl; p++)
        o->bin_held[w][p] = __builtin_popcount(o->mask[p] & bins);
}

void opt_pack_init(opt_problem *o)
{
    o->slice_cap = most_disjoint(o, 0, true, 0, 0);
    for (int k = 0; k < o->g->nsizes; k++)
        o->pack_machines[k] = most_disjoint(o, o->g->sizes[k], false, 0, 0);
    find_bins(o, 0);
    find_bins(o, 1);
}

/* Inserts len into the descending jobs[0..*n). */
static void add_job(double *jobs, int *n, double len)
{
    int j = (*n)++;
    for (; j > 0 && jobs[j - 1] < len; j--)
        jobs[j] = jobs[j - 1];
    jobs[j] = len;
}

/* A lower bound on the makespan of the jobs (descending) on m parallel machines, each job
 * on one machine: the mean load, and for every q >= 1, one machine runs q + 1 of the q m + 1
 * longest jobs, at least the q + 1 shortest of them. */
static double machines_bound(const double *jobs, int n, int m)
{
    double total = 0, lb;
    for (int j = 0; j < n; j++)
        total += jobs[j];
    lb = total / m;
    for (int q = 1; q * m < n; q++) {
        double load = 0;
        for (int j = q * m; j >= q * m - q; j--)
            load += jobs[j];
        lb = lb > load ? lb : load;
    }
    return lb;
}

/* The dual feasible functions u^eps of Fekete and Schepers on a bin of height H: lengths
 * adding up to at most H have images adding up to at most H (one above (1 - eps) H leaves
 * only lengths below eps H, mapped to 0). */
static const double dff_eps[] = {0.1, 0.2, 0.3, 0.4, 0.5};
#define NEPS (int)(sizeof dff_eps / sizeof dff_eps[0])

/* Each memory slot is a bin of height c - first (first: when the first new instance can run
 * a task): the tasks on instances holding it and the live ones' remaining work run one at a
 * time there. True when, under some u^eps and weighting, their images over the slots exceed
 * the bins. Every function and weighting in one pass over the jobs: most calls cut, but
 * under different ones. */
static bool slot_bins_overflow(const opt_problem *o, const int *task, const unsigned *fits,
                               int ntasks, const opt_live *live, int nlive, double first, double c)
{
    const ms_gpu_model *g = o->g;
    double H = c - first, lo[NEPS], hi[NEPS], load[2][NEPS] = {{0}};
    for (int e = 0; e < NEPS; e++) {
        lo[e] = dff_eps[e] * H;
        hi[e] = (1 - dff_eps[e]) * H;
    }
    for (int j = 0; j < nlive; j++)
        if (live[j].f > first) {
            double x = live[j].f - first;
            for (int e = 0; e < NEPS; e++) {
                double u = x > hi[e] ? H : x < lo[e] ? 0 : x;
                load[0][e] += o->bin_held[0][live[j].pl] * u;
                load[1][e] += o->bin_held[1][live[j].pl] * u;
            }
        }
    for (int i = 0; i < ntasks; i++) {
        const double *t = o->t[task[i]];
        double least[2][NEPS];
        for (int e = 0; e < NEPS; e++)
            least[0][e] = least[1][e] = INFINITY;
        for (unsigned f = fits[i]; f; f &= f - 1) {
            int k = __builtin_ctz(f);
            double x = t[g->sizes[k]], w0 = o->bin_weight[0][k], w1 = o->bin_weight[1][k];
            for (int e = 0; e < NEPS; e++) {
                double u = x > hi[e] ? H : x < lo[e] ? 0 : x;
                least[0][e] = least[0][e] < w0 * u ? least[0][e] : w0 * u;
                least[1][e] = least[1][e] < w1 * u ? least[1][e] : w1 * u;
            }
        }
        for (int e = 0; e < NEPS; e++) {
            load[0][e] += least[0][e];
            load[1][e] += least[1][e];
        }
    }
    for (int w = 0; w < 2; w++) {
        /* many lengths mapped to H fill the bins exactly: the sum's rounding must not
         * overflow them */
        double cap = o->bin_count[w] * H;
        cap += 1e-9 * cap;
        for (int e = 0; e < NEPS; e++)
            if (load[w][e] > cap)
                return true;
    }
    return false;
}

bool opt_pack_cuts(const opt_problem *o, const double *ready, uint64_t rem, const opt_live *live,
                   int nlive, double c)
{
    const ms_gpu_model *g = o->g;
    /* per remaining task: the sizes (bit k: g->sizes[k]) on which it can end before c, the
     * least of them and its least time there; computed once for every bound below */
    int task[OPT_MAX_TASKS], least[OPT_MAX_TASKS], ntasks = 0;
    unsigned fits[OPT_MAX_TASKS];
    double len[OPT_MAX_TASKS];
    for (uint64_t r = rem; r; r &= r - 1) {
        const double *t = o->t[task[ntasks] = __builtin_ctzll(r)];
        least[ntasks] = -1;
        fits[ntasks] = 0;
        len[ntasks] = INFINITY;
        for (int k = g->nsizes - 1; k >= 0; k--) {
            int s = g->sizes[k];
            if (ready[s] + t[s] < c) {
                least[ntasks] = k;
                fits[ntasks] |= 1u << k;
                len[ntasks] = len[ntasks] < t[s] ? len[ntasks] : t[s];
            }
        }
        ntasks++;
    }
    double first = INFINITY; /* the least ready time over the sizes from k on */
    for (int k = g->nsizes - 1; k >= 0; k--) {
        first = first < ready[g->sizes[k]] ? first : ready[g->sizes[k]];
        if (first >= c)
            continue; /* no task needs these sizes: it would end after c anyway */
        double jobs[OPT_MAX_TASKS + MS_MAX_SLOTS];
        int njobs = 0;
        for (int i = 0; i < ntasks; i++)
            if (least[i] >= k)
                add_job(jobs, &njobs, len[i]);
        if (!njobs)
            continue;
        /* a live instance busy from first on is a job pinned there; one busy until c or
         * later (a layout instance, maybe with no tasks) takes its machine away */
        int m = o->pack_machines[k];
        for (int j = 0; j < nlive; j++)
            if (o->size[live[j].pl] >= g->sizes[k] && live[j].f > first) {
                if (live[j].f >= c)
                    m--;
                else
                    add_job(jobs, &njobs, live[j].f - first);
            }
        if (m <= 0 || first + machines_bound(jobs, njobs, m) >= c)
            return true;
    }
    return slot_bins_overflow(o, task, fits, ntasks, live, nlive, first, c);
}
