/* search_seed.c: the search scheduler's starting schedules (FAR and its variants, the
 * baselines, the learned policy); search_plan.c makes them FAR plans. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/io.h"
#include "migsched/parallel.h"
#include "offline_internal.h"
#include "search_internal.h"

/* The schedules search starts from, in tie-break order: FAR as configured, FAR with the
 * 4-slice instance running 3-slice tasks (paper 000 3.2 read literally), FAR with the other
 * tie rule (3g@4 before 3g@0), the baselines, and the learned policy when a model is given. */
static const struct {
    const char *algo;
    ms_offline_fn run;
    int four_runs_three, tie_right_first;
} start_algos[] = {
    {"far", offline_far, -1, -1},
    {"far", offline_far, 1, -1},
    {"far", offline_far, -1, 1},
    {"fixpartbest", offline_fixpartbest, -1, -1},
    {"miso-eager", offline_miso_eager, -1, -1},
    {"rl", ms_rl_offline_schedule, -1, -1},
};

void search_starts_free(search_starts *st)
{
    for (int i = 0; i < st->n; i++)
        ms_schedule_free(st->start[i].s);
    st->n = 0;
}

#define NSTART_ALGOS (sizeof start_algos / sizeof *start_algos)

/* The starting algorithms' runs, kept by table position. */
typedef struct start_pool {
    const ms_workload *w;
    const ms_gpu_model *gpu;
    int gpus;
    bool skip[NSTART_ALGOS];
    ms_offline_options o[NSTART_ALGOS];
    ms_schedule *s[NSTART_ALGOS];
    int rc[NSTART_ALGOS];
    ms_error err[NSTART_ALGOS];
} start_pool;

static void start_run(int a, void *ctx)
{
    start_pool *p = ctx;
    if (!p->skip[a])
        p->rc[a] = offline_run(start_algos[a].run, p->w, p->gpu, p->gpus, &p->o[a], &p->s[a],
                               &p->err[a]);
}

int search_start_threads(int threads, int ntasks)
{
    int floor = ms_online_cpus() >= 2 && ntasks >= SEARCH_START_PAIR_MIN_TASKS ? 2 : 1;
    return threads > floor ? threads : floor;
}

int search_starts_run(search_starts *st, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                      const ms_offline_options *opt, ms_error *err)
{
    st->n = 0;
    start_pool *p = malloc(sizeof *p);
    if (!p)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    *p = (start_pool){.w = w, .gpu = gpu, .gpus = gpus};
    for (size_t a = 0; a < NSTART_ALGOS; a++) {
        const char *algo = start_algos[a].algo;
        ms_offline_options o = *opt; /* -1: as the caller set it */
        o.rl.no_guard = 1;           /* the agent's own plan: FAR is a start of its own */
        if (start_algos[a].four_runs_three >= 0)
            o.far.four_runs_three = start_algos[a].four_runs_three;
        if (start_algos[a].tie_right_first >= 0)
            o.far.tie_right_first = start_algos[a].tie_right_first;
        p->o[a] = o; /* skipped: no model, or a variant the caller's options already ran */
        p->skip[a] = (!strcmp(algo, "rl") && (!opt->rl.model || gpus != 1)) ||
                     (a > 0 && !strcmp(algo, "far") &&
                      o.far.four_runs_three == opt->far.four_runs_three &&
                      o.far.tie_right_first == opt->far.tie_right_first);
    }
    int to_run = 0;
    for (size_t a = 0; a < NSTART_ALGOS; a++)
        to_run += !p->skip[a];
    int threads = to_run < 2 ? 1 : search_start_threads(opt->search.threads, w->n);
    ms_parallel_for((int)NSTART_ALGOS, threads, start_run, p);
    int rc = MS_OK;
    for (size_t a = 0; a < NSTART_ALGOS; a++) { /* in table order, as if run one by one */
        if (p->skip[a] || rc) {
            ms_schedule_free(p->s[a]);
            continue;
        }
        if (p->rc[a] == MS_EINFEASIBLE && a > 0) {
            ms_schedule_free(p->s[a]);
            continue; /* a baseline that cannot run this workload is no starting point */
        }
        if ((rc = p->rc[a])) {
            search_starts_free(st);
            if (err)
                *err = p->err[a];
            ms_error_prefix(err, "search: starting schedule %s", start_algos[a].algo);
            ms_schedule_free(p->s[a]);
            continue;
        }
        int k = st->n++;
        st->start[k] = (search_start){start_algos[a].algo, p->o[a], p->s[a],
                                      ms_schedule_makespan(p->s[a])};
        for (; k > 0 && st->start[k].makespan < st->start[k - 1].makespan; k--) {
            search_start t = st->start[k];
            st->start[k] = st->start[k - 1];
            st->start[k - 1] = t;
        }
    }
    free(p);
    return rc;
}
