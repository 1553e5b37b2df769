/* search.c: the search scheduler end to end: per batch, the starting schedules become FAR
 * plans, local search improves the best of them within the budget, the batches are joined
 * like FAR's, and the result is never worse than the best starting schedule. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/parallel.h"
#include "migsched/parse.h"
#include "optimal_internal.h"
#include "search_internal.h"

typedef struct search_totals {
    long evaluations, nodes;
    double units;
    int seeds;
} search_totals;

/* The plans (on wb) of the starting schedules, built side by side on threads. */
typedef struct seed_job {
    const search_starts *st;
    const ms_workload *wb;
    const ms_gpu_model *gpu;
    int gpus;
    far_plan *plan[8]; /* NULL: out of memory, or the start is not on the tree */
    bool oom[8];
} seed_job;

static void seed_build(int i, void *ctx)
{
    seed_job *j = ctx;
    far_plan *p = malloc(sizeof *p);
    if (!p || far_plan_init(p, j->wb, j->gpu, j->gpus, 1)) {
        free(p);
        j->oom[i] = true;
        return;
    }
    far_plan_set_rules(p, &j->st->start[i].opt); /* the tie rule it was made with */
    if (search_plan_from_schedule(p, j->st->start[i].s)) {
        j->plan[i] = p;
    } else {
        far_plan_free(p);
        free(p);
    }
}

/* Plans (on wb) of the starting schedules that sit on the repartitioning tree, in the
 * starts' order. */
static int make_seeds(const search_starts *st, const ms_workload *wb, const ms_gpu_model *gpu,
                      int gpus, int threads, far_plan **seeds, int *nseeds)
{
    seed_job j = {.st = st, .wb = wb, .gpu = gpu, .gpus = gpus};
    ms_parallel_for(st->n, threads, seed_build, &j);
    bool oom = false;
    *nseeds = 0;
    for (int i = 0; i < st->n; i++) {
        oom |= j.oom[i];
        if (j.plan[i])
            seeds[(*nseeds)++] = j.plan[i];
    }
    return oom ? MS_ENOMEM : MS_OK;
}

static void free_seeds(far_plan **seeds, int n)
{
    for (int i = 0; i < n; i++) {
        far_plan_free(seeds[i]);
        free(seeds[i]);
    }
}

/* Searches batch b (tasks first..first+n-1) and writes its best plan into batch b of p. */
static int search_batch(far_plan *p, int b, int first, int n, const search_starts *whole,
                        const ms_offline_options *opt, double units, int threads,
                        search_totals *tot, ms_error *err)
{
    bool alone = p->batches == 1;
    ms_workload *wb = alone ? (ms_workload *)p->w : ms_workload_slice(p->w, first, n);
    search_starts own = {0};
    const search_starts *st = whole;
    ms_offline_options one = *opt;
    one.batch = 0;
    if (b > 0) /* a later batch starts from what the one before leaves (concatenation) */
        one.initial = NULL;
    int rc = wb ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    if (!rc && !alone) {
        rc = search_starts_run(&own, wb, p->gpu, p->gpus, &one, err);
        st = &own;
    }
    far_plan *seeds[8], best;
    int nseeds = 0;
    bool have_best = false;
    if (!rc && (rc = make_seeds(st, wb, p->gpu, p->gpus, search_start_threads(threads, n), seeds,
                                &nseeds)))
        ms_error_set(err, rc, "out of memory");
    if (!rc && nseeds == 0)
        rc = ms_error_set(err, MS_EINVAL, "search: no starting schedule on the tree of %s",
                          p->gpu->name);
    if (!rc && (rc = far_plan_init(&best, wb, p->gpu, p->gpus, 1)))
        ms_error_set(err, rc, "out of memory");
    have_best = !rc;
    if (!rc) {
        ms_rng root;
        ms_rng_seed(&root, opt->seed);
        ms_rng r = ms_rng_split(&root, (uint64_t)b);
        long ev;
        double un;
        rc = search_improve(&best, seeds, nseeds, one.initial, ms_rng_next(&r), units, threads,
                            alone, &ev, &un);
        if (rc)
            ms_error_set(err, rc, "out of memory in search");
        tot->evaluations += ev;
        tot->units += un;
        tot->seeds += nseeds;
    }
    if (!rc && (rc = far_plan_put_batch(p, b, first, &best)))
        ms_error_set(err, rc, "out of memory");
    if (!rc && alone) {
        memcpy(p->tree.rank, best.tree.rank, sizeof p->tree.rank);
        memcpy(p->tree.order, best.tree.order, sizeof p->tree.order);
    }
    if (have_best)
        far_plan_free(&best);
    free_seeds(seeds, nseeds);
    search_starts_free(&own);
    if (!alone)
        ms_workload_free(wb);
    return rc;
}

/* The searched plan as a schedule: one batch timed exactly, several joined as opt asks. */
static int emit_plan(far_plan *p, const ms_offline_options *opt, ms_schedule *s, ms_error *err)
{
    far_engine e = {.initial = opt->initial};
    int rc;
    if (p->batches > 1) {
        rc = far_concat_run(p, &e, opt, s, err);
    } else {
        rc = far_engine_run(&e, p, 0, 1, false, true);
        if (!rc)
            rc = far_engine_emit(&e, p, s);
        if (rc)
            ms_error_set(err, rc, "out of memory");
    }
    far_engine_free(&e);
    return rc;
}

static int check_options(const ms_offline_options *opt, ms_error *err)
{
    if (!(opt->search.time_budget_ms >= 0) || !isfinite(opt->search.time_budget_ms))
        return ms_error_set(err, MS_EINVAL, "search: time budget must be >= 0 ms, not %g",
                            opt->search.time_budget_ms);
    if (opt->search.threads < 0 || opt->search.threads > SEARCH_MAX_THREADS)
        return ms_error_set(err, MS_EINVAL, "search: threads must be 0..%d, not %d",
                            SEARCH_MAX_THREADS, opt->search.threads);
    return MS_OK;
}

static void put_stats(ms_schedule *s, const search_totals *tot, const search_starts *whole,
                      int batches, double budget_ms, int threads, bool from_start)
{
    /* The concatenation's figures stay; a starting schedule's own counters would mislead. */
    static const char *const keep[] = {"batches",       "makespan_trivial", "makespan_reverse",
                                       "p_rev",         "concat_used",      "makespan_overlap",
                                       "p_move_swap",   "concat_moves",     "concat_swaps",
                                       "concat_seconds"};
    int n = 0;
    for (int i = 0; i < s->nstats; i++)
        if (ms_name_index(keep, (int)(sizeof keep / sizeof *keep), s->stats[i].key) >= 0)
            s->stats[n++] = s->stats[i];
    s->nstats = n;
    snprintf(s->algorithm, sizeof s->algorithm, "search");
    ms_schedule_set_stat(s, "batches", batches);
    ms_schedule_set_stat(s, "evaluations", (double)tot->evaluations);
    ms_schedule_set_stat(s, "nodes", (double)tot->nodes);
    ms_schedule_set_stat(s, "work_units", tot->units);
    ms_schedule_set_stat(s, "budget_ms", budget_ms);
    ms_schedule_set_stat(s, "threads", threads);
    ms_schedule_set_stat(s, "seeds", tot->seeds);
    ms_schedule_set_stat(s, "start_makespan", whole->start[0].makespan);
    ms_schedule_set_stat(s, "from_start", from_start);
}

int ms_search_schedule(const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    *out = NULL;
    int rc = check_options(opt, err);
    search_starts whole = {0};
    if (rc || (rc = search_starts_run(&whole, w, gpu, gpus, opt, err)))
        return rc; /* FAR, the first starting algorithm, checks the input */
    double budget_ms = opt->search.time_budget_ms > 0 ? opt->search.time_budget_ms
                                                      : SEARCH_DEFAULT_BUDGET_MS;
    int threads = opt->search.threads > 1 ? opt->search.threads : 1;
    int per_batch = opt->batch > 0 && opt->batch < w->n ? opt->batch : (w->n > 0 ? w->n : 1);
    int batches = w->n > 0 ? (w->n + per_batch - 1) / per_batch : 0;
    double units = budget_ms * SEARCH_UNITS_PER_MS;
    bool exact = gpus == 1 && batches == 1 && w->n <= SEARCH_EXACT_MAX_N;
    search_totals tot = {0};
    ms_schedule *s = NULL;
    far_plan p;
    bool have_plan = false;
    if (batches > 0) {
        if ((rc = far_plan_init(&p, w, gpu, gpus, batches)))
            ms_error_set(err, rc, "out of memory");
        have_plan = !rc;
        for (int b = 0; b < batches && !rc; b++) {
            int first = b * per_batch, n = w->n - first < per_batch ? w->n - first : per_batch;
            rc = search_batch(&p, b, first, n, &whole, opt, units, threads, &tot, err);
        }
        if (!rc && !(s = ms_schedule_new(gpu, gpus, "search")))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
        if (!rc)
            rc = emit_plan(&p, opt, s, err);
    }
    if (have_plan)
        far_plan_free(&p);
    bool from_start = !rc && (!s || !(ms_schedule_makespan(s) <= whole.start[0].makespan));
    if (from_start) { /* never worse than where it started */
        ms_schedule_free(s);
        if (!(s = ms_schedule_clone(whole.start[0].s)))
            rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    if (!rc && exact) { /* below the best so far: a shorter schedule of any shape */
        ms_schedule *x = NULL;
        long limit = (long)(budget_ms * SEARCH_EXACT_NODES_PER_MS);
        rc = opt_improve(w, gpu, opt->initial, ms_schedule_makespan(s), limit > 0 ? limit : 1, &x,
                         &tot.nodes, err);
        if (x) {
            ms_schedule_free(s);
            s = x;
            from_start = false;
        }
    }
    if (!rc) {
        ms_schedule_normalize(s);
        put_stats(s, &tot, &whole, batches, budget_ms, threads, from_start);
        *out = s;
    } else {
        ms_schedule_free(s);
    }
    search_starts_free(&whole);
    return rc;
}

int ms_search_plan(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out, ms_error *err)
{
    ms_offline_options opt;
    ms_offline_options_init(&opt);
    return ms_search_schedule(w, gpu, 1, &opt, out, err);
}
