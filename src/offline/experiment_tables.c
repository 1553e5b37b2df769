/* experiment_tables.c: one repetition of each of the papers' experiments (paper 000
 * Tables 4-9, paper 001 Table 4 baselines), every schedule validated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "experiment_internal.h"

/* Runs algo (with options; NULL: the defaults) on e's GPU from e's initial layout with e's
 * FAR family and validates the schedule: an invalid one is a bug. */
static int run_valid(const char *algo, const ms_workload *w, const ms_experiment *e,
                     const ms_offline_options *opt, ms_schedule **out, ms_error *err)
{
    ms_offline_options o;
    if (opt)
        o = *opt;
    else
        ms_offline_options_init(&o);
    o.far.paper_family = e->paper_family;
    o.initial = e->initial;
    int rc = ms_offline_schedule(algo, w, &e->gpu, 1, &o, out, err);
    if (rc)
        return rc;
    ms_validation v = {0};
    if (ms_schedule_validate_initial(*out, w, e->initial, &v)) {
        rc = ms_error_set(err, MS_EINVAL, "BUG: %s produced an invalid schedule [%s]: %s", algo,
                          v.v[0].rule, v.v[0].msg);
        ms_schedule_free(*out);
        *out = NULL;
    }
    ms_validation_fini(&v);
    return rc;
}

/* Makespan of a validated schedule; NAN when the algorithm cannot run the workload. */
static int makespan_of(const char *algo, const ms_workload *w, const ms_experiment *e,
                       const ms_offline_options *opt, double *ms, ms_error *err)
{
    ms_schedule *s = NULL;
    int rc = run_valid(algo, w, e, opt, &s, err);
    *ms = rc ? NAN : ms_schedule_makespan(s);
    ms_schedule_free(s);
    return rc == MS_EINFEASIBLE ? MS_OK : rc;
}

static int generate(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                    ms_workload **w, ms_error *err)
{
    return ms_generate(&e->gpu, p, n, rng, w, err);
}

/* The partitions "1-1-...-1" and "whole GPU" of FIXPART(1,...,1) and FIXPART(7). */
static void fixpart_names(const ms_gpu_model *gpu, char *ones, char *whole, size_t len)
{
    size_t o = 0;
    for (int i = 0; i < gpu->slices && o + 3 < len; i++)
        o += (size_t)snprintf(ones + o, len - o, i ? "-1" : "fixpart:1");
    snprintf(whole, len, "fixpart:%d", gpu->slices);
}

static int unit_rho(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                    double *vals, ms_error *err)
{
    ms_workload *w = NULL;
    int rc = generate(e, p, n, rng, &w, err);
    double ms = NAN;
    if (!rc)
        rc = makespan_of("far", w, e, NULL, &ms, err);
    if (!rc)
        vals[0] = ms / ms_bound_baseline(w, &e->gpu, 1);
    ms_workload_free(w);
    return rc;
}

static int unit_sigma(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                      double *vals, ms_error *err)
{
    char ones[64], whole[32];
    fixpart_names(&e->gpu, ones, whole, sizeof ones);
    const char *algos[] = {"far", "miso", ones, "fixpartbest", whole, "miso-eager"};
    double ms[6];
    ms_workload *w = NULL;
    int rc = generate(e, p, n, rng, &w, err);
    for (int a = 0; a < 6 && !rc; a++)
        rc = makespan_of(algos[a], w, e, NULL, &ms[a], err);
    for (int a = 1; a < 6 && !rc; a++)
        vals[a - 1] = ms[a] / ms[0];
    ms_workload_free(w);
    return rc;
}

static int unit_refine(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                       double *vals, ms_error *err)
{
    ms_workload *w = NULL;
    ms_schedule *s = NULL;
    double plain = NAN;
    int rc = generate(e, p, n, rng, &w, err);
    if (!rc)
        rc = run_valid("far", w, e, NULL, &s, err);
    if (!rc)
        rc = makespan_of("far-norefine", w, e, NULL, &plain, err);
    if (!rc) {
        vals[0] = (plain / ms_schedule_makespan(s) - 1) * 100;
        vals[1] = ms_schedule_stat(s, "moves");
        vals[2] = ms_schedule_stat(s, "swaps");
    }
    ms_schedule_free(s);
    ms_workload_free(w);
    return rc;
}

/* One dataset cut into offline batches of e->batch tasks (paper 001 3 and 5.2). */
typedef struct batches {
    int n;
    ms_workload **b;
    double *lb; /* l_bound_paper of each batch */
} batches;

static void batches_free(batches *bs)
{
    for (int i = 0; i < bs->n; i++)
        ms_workload_free(bs->b[i]);
    free(bs->b);
    free(bs->lb);
}

static int cut_batches(const ms_experiment *e, const ms_workload *w, batches *bs, ms_error *err)
{
    int count = (w->n + e->batch - 1) / e->batch;
    bs->n = 0;
    bs->b = calloc((size_t)count + 1, sizeof *bs->b);
    bs->lb = calloc((size_t)count + 1, sizeof *bs->lb);
    if (!bs->b || !bs->lb)
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int from = 0; from < w->n; from += e->batch) {
        bs->b[bs->n] = ms_workload_slice(w, from, w->n - from < e->batch ? w->n - from : e->batch);
        if (!bs->b[bs->n])
            return ms_error_set(err, MS_ENOMEM, "out of memory");
        bs->lb[bs->n] = ms_bound_lbound_paper(bs->b[bs->n], &e->gpu, 1);
        bs->n++;
    }
    return MS_OK;
}

/* Mean p_opt of algo over the batches; *total = summed makespans (NAN if infeasible). */
static int mean_popt(const char *algo, const ms_experiment *e, const batches *bs, double *mean,
                     double *total, ms_error *err)
{
    double sum = 0;
    *total = 0;
    for (int i = 0; i < bs->n; i++) {
        double ms;
        int rc = makespan_of(algo, bs->b[i], e, NULL, &ms, err);
        if (rc)
            return rc;
        sum += (ms / bs->lb[i] - 1) * 100;
        *total += ms;
    }
    *mean = bs->n ? sum / bs->n : NAN;
    return MS_OK;
}

/* FIXBEST read as one partition for the whole dataset (the lowest summed makespan). */
static int dataset_fixbest(const ms_experiment *e, const batches *bs, double *mean, ms_error *err)
{
    double best_total = INFINITY;
    *mean = NAN;
    for (int k = 0; k < e->gpu.npartitions; k++) {
        char algo[24];
        snprintf(algo, sizeof algo, "fixpart:%d", k + 1);
        double m, total;
        int rc = mean_popt(algo, e, bs, &m, &total, err);
        if (rc)
            return rc;
        if (total < best_total) { /* NAN (infeasible) never wins */
            best_total = total;
            *mean = m;
        }
    }
    return MS_OK;
}

/* p_opt of each baseline over offline batches, averaged per dataset (paper 001 5.2). */
static int unit_popt(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                     double *vals, ms_error *err)
{
    static const char *const algos[] = {"far", "miso", "fixpartbest", "nomig"};
    ms_workload *w = NULL;
    batches bs = {0};
    int rc = generate(e, p, n, rng, &w, err);
    if (!rc)
        rc = cut_batches(e, w, &bs, err);
    for (int a = 0; a < 4 && !rc; a++) {
        double total;
        rc = mean_popt(algos[a], e, &bs, &vals[a], &total, err);
    }
    if (!rc)
        rc = dataset_fixbest(e, &bs, &vals[4], err);
    if (!rc) {
        double total;
        rc = mean_popt("miso-eager", e, &bs, &vals[5], &total, err);
    }
    batches_free(&bs);
    ms_workload_free(w);
    return rc;
}

/* Per-batch makespans of algo (opt may be NULL); NAN where it cannot run a batch. */
static int batch_makespans(const char *algo, const ms_experiment *e, const batches *bs,
                           const ms_offline_options *opt, double *ms, ms_error *err)
{
    int rc = MS_OK;
    for (int i = 0; i < bs->n && !rc; i++)
        rc = makespan_of(algo, bs->b[i], e, opt, &ms[i], err);
    return rc;
}

static double mean_popt_of(const batches *bs, const double *ms)
{
    double sum = 0;
    for (int i = 0; i < bs->n; i++)
        sum += (ms[i] / bs->lb[i] - 1) * 100;
    return bs->n ? sum / bs->n : NAN;
}

/* Gaps (%) of ms to the proved optimum of each batch: mean, worst, share optimal; NAN
 * when no batch's optimum was proved. */
static void gaps(const batches *bs, const double *ms, const double *opt, const double *proved,
                 double *out)
{
    double sum = 0, worst = 0;
    int k = 0, optimal = 0;
    for (int i = 0; i < bs->n; i++) {
        if (!(proved[i] == 1))
            continue;
        double g = (ms[i] / opt[i] - 1) * 100;
        sum += g;
        worst = fmax(worst, g);
        optimal += g <= 1e-7;
        k++;
    }
    out[0] = k ? sum / k : NAN;
    out[1] = k ? worst : NAN;
    out[2] = k ? (double)optimal / k : NAN;
}

/* Paper 001 Table 4's p_opt for FAR, FIXBEST, MISO, the agent (e->model) and search, and
 * where batches are small enough (e->batch <= SEARCH_GAP_MAX_N) the gaps of search and
 * FAR to the optimum that "optimal" proves. */
#define SEARCH_GAP_MAX_N 8
static int unit_search(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                       double *vals, ms_error *err)
{
    static const char *const algos[] = {"far", "fixpartbest", "miso", "miso-eager", "rl", "search"};
    ms_workload *w = NULL;
    batches bs = {0};
    double *ms = NULL;
    int rc = generate(e, p, n, rng, &w, err);
    if (!rc)
        rc = cut_batches(e, w, &bs, err);
    if (!rc && !(ms = malloc((size_t)(bs.n + 1) * 8 * sizeof *ms)))
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    ms_offline_options agent;
    ms_offline_options_init(&agent);
    agent.rl.model = e->model;
    agent.rl.no_guard = 1; /* the agent's column: its plans alone */
    for (int a = 0; a < 6 && !rc; a++) {
        vals[a] = NAN;
        if (a == 4 && (!e->model || e->gpu.slices != 7))
            continue; /* the policies in models/ are for the A100's geometry */
        rc = batch_makespans(algos[a], e, &bs, a == 4 ? &agent : NULL, ms + (size_t)a * bs.n, err);
        if (!rc)
            vals[a] = mean_popt_of(&bs, ms + (size_t)a * bs.n);
    }
    for (int v = 6; v < 12; v++)
        vals[v] = NAN;
    if (!rc && e->batch <= SEARCH_GAP_MAX_N) {
        double *opt = ms + (size_t)6 * bs.n, *proved = ms + (size_t)7 * bs.n;
        for (int i = 0; i < bs.n && !rc; i++) {
            ms_schedule *s = NULL;
            rc = run_valid("optimal", bs.b[i], e, NULL, &s, err);
            if (!rc) {
                opt[i] = ms_schedule_makespan(s);
                proved[i] = ms_schedule_stat(s, "proved");
            }
            ms_schedule_free(s);
        }
        if (!rc) {
            gaps(&bs, ms + (size_t)5 * bs.n, opt, proved, &vals[6]);
            gaps(&bs, ms, opt, proved, &vals[9]);
        }
    }
    free(ms);
    batches_free(&bs);
    ms_workload_free(w);
    return rc;
}

/* FAR's options for batches of n tasks joined by overlapping concatenation (6.7). */
static void overlap_batches(ms_offline_options *opt, int n)
{
    ms_offline_options_init(opt);
    opt->batch = n;
    opt->far.concat = MS_CONCAT_OVERLAP;
}

/* Two batches of n tasks joined by FAR's concatenation (paper 000 6.7.1): the gains of
 * reversal and of reversal plus moves/swaps over the trivial join. */
static int unit_concat(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                       double *vals, ms_error *err)
{
    ms_offline_options opt;
    overlap_batches(&opt, n);
    ms_workload *w = NULL;
    ms_schedule *s = NULL;
    int rc = generate(e, p, 2 * n, rng, &w, err);
    if (!rc)
        rc = run_valid("far", w, e, &opt, &s, err);
    if (!rc) {
        vals[0] = ms_schedule_stat(s, "p_rev");
        vals[1] = ms_schedule_stat(s, "p_move_swap");
        vals[2] = ms_schedule_stat(s, "concat_moves");
        vals[3] = ms_schedule_stat(s, "concat_swaps");
    }
    ms_schedule_free(s);
    ms_workload_free(w);
    return rc;
}

/* e->batches batches of n tasks in a row (paper 000 6.7.2). */
static int unit_multibatch(const ms_experiment *e, const ms_gen_params *p, int n, ms_rng *rng,
                           double *vals, ms_error *err)
{
    ms_offline_options opt;
    overlap_batches(&opt, n);
    ms_workload *w = NULL;
    double ms = NAN;
    int rc = generate(e, p, n * e->batches, rng, &w, err);
    if (!rc)
        rc = makespan_of("far", w, e, &opt, &ms, err);
    if (!rc)
        vals[0] = (ms / ms_bound_baseline(w, &e->gpu, 1) - 1) * 100;
    ms_workload_free(w);
    return rc;
}

static const char *const RHO_NAMES[] = {"rho"};
static const char *const SIGMA_NAMES[] = {"miso", "fixpart_ones", "fixpartbest", "fixpart_whole",
                                          "miso_eager"};
static const char *const REFINE_NAMES[] = {"p_ref", "moves", "swaps"};
static const char *const POPT_NAMES[] = {"far",       "miso", "fixbest", "nomig", "fixbest_dataset",
                                         "miso_eager"};
static const char *const SEARCH_NAMES[] = {"far",
                                           "fixbest",
                                           "miso",
                                           "miso_eager",
                                           "rl",
                                           "search",
                                           "search_gap",
                                           "worst_search_gap",
                                           "search_share_optimal",
                                           "far_gap",
                                           "worst_far_gap",
                                           "far_share_optimal"};
static const char *const CONCAT_NAMES[] = {"p_rev", "p_move_swap", "moves", "swaps"};
static const char *const MULTI_NAMES[] = {"p_multibatch"};

#define SCALINGS_WIDE "POORSCALING,WIDETIMES;MIXEDSCALING,WIDETIMES;GOODSCALING,WIDETIMES"
#define SCALINGS_BOTH                                                         \
    "POORSCALING,NARROWTIMES;POORSCALING,WIDETIMES;MIXEDSCALING,NARROWTIMES;" \
    "MIXEDSCALING,WIDETIMES;GOODSCALING,NARROWTIMES;GOODSCALING,WIDETIMES"
/* Paper 001 5.1.3 (the presets carry its p_sup and its [90, 100] s default times). */
#define POPT_ROWS \
    "POORSCALING;GOODSCALING;MIXSCALINGUNIFORM;MIXSCALINGEXTREME;MIXSCALINGUNIFORM,WIDETIMES"

static const exp_table TABLES[] = {
    {"rho", 1, RHO_NAMES, unit_rho, SCALINGS_WIDE, "10,15,20,25,30,35", 1000, 0, 0},
    {"sigma", 5, SIGMA_NAMES, unit_sigma, SCALINGS_BOTH, "15", 1000, 0, 0},
    {"refine", 3, REFINE_NAMES, unit_refine, SCALINGS_BOTH, "10,20,30", 1000, 0, 0},
    {"concat", 4, CONCAT_NAMES, unit_concat, SCALINGS_BOTH, "10,20,30", 1000, 0, 0},
    {"multibatch", 1, MULTI_NAMES, unit_multibatch, SCALINGS_WIDE, "10,15,20,25,30,35", 1, 0, 1001},
    {"popt", 6, POPT_NAMES, unit_popt, POPT_ROWS, "100", 1000, 14, 0},
    {"search", 12, SEARCH_NAMES, unit_search, POPT_ROWS, "100", 1000, 14, 0},
};

const exp_table *exp_table_find(const char *name)
{
    for (size_t i = 0; i < sizeof TABLES / sizeof TABLES[0]; i++)
        if (!strcmp(TABLES[i].name, name))
            return &TABLES[i];
    return NULL;
}

/* Default rows; "search" adds the pathological sets where the GPU has 3-slice instances. */
void exp_table_rows(const exp_table *t, const ms_gpu_model *gpu, char *buf, size_t len)
{
    bool patho = !strcmp(t->name, "search") && ms_gpu_size_index(gpu, 3) >= 0;
    snprintf(buf, len, "%s%s", t->rows, patho ? ";PATHO4;PATHO2;PATHOMIX" : "");
}

const char *exp_table_names(void) { return "rho, sigma, refine, concat, multibatch, popt, search"; }
