/* experiment.c: paper 003's evaluation (6.2-6.3, Figs. 13-15): generate instances per setting
 * and size, run, validate and time every algorithm, write CSV rows and SVG figures. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "migsched/chart.h"
#include "migsched/cosched.h"
#include "migsched/io.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct stats {
    double ratio, ppt, secs;
    int count;
} stats;

/* Runs one algorithm on one instance, validates it, writes its CSV row, adds to stats. */
static int run_one(const ms_cosched_experiment *e, const ms_cosched_instance *in, int inst,
                   int algo, double opt, FILE *csv, stats *st, ms_error *err)
{
    ms_cosched_schedule *s = NULL;
    int optimal = 1, rc;
    double t0 = now();
    if (algo == MS_COSCHED_DIRECT)
        rc = ms_cosched_direct(in, e->direct_limit, &s, NULL, &optimal, err);
    else
        rc = ms_cosched_run(in, algo, e->direct_limit, &s, err);
    double secs = now() - t0;
    if (rc)
        return rc;
    int nonpre = algo != MS_COSCHED_PLP && algo != MS_COSCHED_CATERPILLAR;
    rc = ms_cosched_validate(in, s, nonpre, err);
    if (rc) {
        ms_error_prefix(err, "%s on n=%d instance %d", ms_cosched_algo_name(algo), in->n, inst);
        ms_cosched_schedule_free(s);
        return rc;
    }
    double mk = ms_cosched_makespan(s);
    int pre = ms_cosched_preemptions(s, NULL);
    fprintf(csv, "%s,%d,%d,%s,%.9g,%.9g,%.9g,%d,%.6g,%.6f,%s\n",
            ms_cosched_setting_name(e->setting), in->n, inst, ms_cosched_algo_name(algo), mk, opt,
            mk / opt, pre, (double)pre / in->n, secs, optimal ? "" : "time-limit");
    st->ratio += mk / opt, st->ppt += (double)pre / in->n, st->secs += secs, st->count++;
    ms_cosched_schedule_free(s);
    return MS_OK;
}

static double mean(const stats *s, int field)
{
    if (!s->count)
        return NAN;
    return (field == 0 ? s->ratio : field == 1 ? s->ppt : s->secs) / s->count;
}

/* One figure: a series per algorithm in list, y = field of its stats, over the ns. */
static int figure(const ms_cosched_experiment *e, const stats *st, const char *suffix,
                  const char *title, const char *ylabel, int field, int logy, const int *algos,
                  int nalgos, ms_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s-%s.svg", e->svg_prefix, suffix);
    double *xs = malloc(sizeof(double) * (size_t)e->nn);
    double *ys = malloc(sizeof(double) * (size_t)(e->nn * nalgos));
    ms_chart_series ser[MS_COSCHED_NALGOS];
    if (!xs || !ys) {
        free(xs), free(ys);
        return ms_error_set(err, MS_ENOMEM, "out of memory");
    }
    for (int i = 0; i < e->nn; i++)
        xs[i] = e->ns[i];
    for (int a = 0; a < nalgos; a++) {
        for (int i = 0; i < e->nn; i++)
            ys[a * e->nn + i] = mean(&st[i * MS_COSCHED_NALGOS + algos[a]], field);
        ser[a] = (ms_chart_series){
            ms_cosched_algo_name(algos[a]), xs, ys + a * e->nn, e->nn, NULL, MS_CHART_POINTS};
    }
    char full[256];
    snprintf(full, sizeof full, "%s (%s setting, mean of %d instances)", title,
             ms_cosched_setting_name(e->setting), e->instances);
    ms_chart_panel panel = {
        .x = {"number of tasks n", "n", MS_CHART_LINEAR, NAN, NAN, false},
        .y = {ylabel, NULL, logy ? MS_CHART_LOG : MS_CHART_LINEAR, NAN, NAN, false},
        .series = ser,
        .nseries = nalgos,
    };
    ms_chart chart = {.title = full};
    int rc = ms_chart_write_file(path, &chart, &panel, 1, err);
    free(xs), free(ys);
    return rc;
}

static int write_figures(const ms_cosched_experiment *e, const stats *st, ms_error *err)
{
    static const int pre[] = {MS_COSCHED_CATERPILLAR};
    static const int nonpre[] = {MS_COSCHED_NONPREEMPTIVE, MS_COSCHED_MAXPAIR, MS_COSCHED_DIRECT};
    static const int all[] = {MS_COSCHED_PLP, MS_COSCHED_CATERPILLAR, MS_COSCHED_NONPREEMPTIVE,
                              MS_COSCHED_MAXPAIR, MS_COSCHED_DIRECT};
    int rc = figure(e, st, "fig13", "CaterpillarSplit preemptions per task", "preemptions / n", 1,
                    0, pre, 1, err);
    if (!rc)
        rc = figure(e, st, "fig14", "Non-preemptive makespan / preemptive optimum", "ratio", 0, 0,
                    nonpre, e->direct_max_n > 0 ? 3 : 2, err);
    if (!rc)
        rc = figure(e, st, "fig15", "Running time", "seconds (log scale)", 2, 1, all,
                    e->direct_max_n > 0 ? 5 : 4, err);
    return rc;
}

static void summary(const ms_cosched_experiment *e, const stats *st)
{
    fprintf(e->summary, "%-8s %5s %10s %10s %10s %10s %10s %10s\n", "setting", "n", "cat_ppt",
            "nonpre", "maxpair", "direct", "t_nonpre", "t_maxpair");
    for (int i = 0; i < e->nn; i++) {
        const stats *r = st + i * MS_COSCHED_NALGOS;
        fprintf(e->summary, "%-8s %5d %10.4f %10.4f %10.4f %10.4f %10.4f %10.4f\n",
                ms_cosched_setting_name(e->setting), e->ns[i], mean(&r[MS_COSCHED_CATERPILLAR], 1),
                mean(&r[MS_COSCHED_NONPREEMPTIVE], 0), mean(&r[MS_COSCHED_MAXPAIR], 0),
                mean(&r[MS_COSCHED_DIRECT], 0), mean(&r[MS_COSCHED_NONPREEMPTIVE], 2),
                mean(&r[MS_COSCHED_MAXPAIR], 2));
    }
}

static int run_size(const ms_cosched_experiment *e, const ms_cosched_instance *cat, int ni,
                    FILE *csv, stats *st, ms_error *err)
{
    int n = e->ns[ni], rc = MS_OK;
    for (int inst = 0; inst < e->instances && !rc; inst++) {
        if (e->stop && *e->stop)
            return ms_error_set(err, MS_EINTR, "interrupted: nothing written");
        /* Each (n, instance) has its own stream: results do not depend on the other sizes. */
        ms_rng base, r;
        ms_rng_seed(&base, e->seed);
        r = ms_rng_split(&base, (uint64_t)n * 1000003u + (uint64_t)inst);
        ms_cosched_instance *in;
        ms_cosched_lp lp;
        if ((rc = ms_cosched_generate(cat, e->setting, n, &r, &in, err)))
            break;
        if (!(rc = ms_cosched_plp(in, &lp, err))) {
            for (int a = 0; a < MS_COSCHED_NALGOS && !rc; a++) {
                if (a == MS_COSCHED_DIRECT && n > e->direct_max_n)
                    continue;
                rc = run_one(e, in, inst, a, lp.makespan, csv, &st[ni * MS_COSCHED_NALGOS + a],
                             err);
            }
            ms_cosched_lp_fini(&lp);
        }
        ms_cosched_instance_free(in);
        if (e->progress)
            fprintf(stderr, "\rcosched experiment: n=%d instance %d/%d   ", n, inst + 1,
                    e->instances);
    }
    return rc;
}

int ms_cosched_experiment_run(const ms_cosched_experiment *e, ms_error *err)
{
    if (e->nn < 1 || e->instances < 1)
        return ms_error_set(err, MS_EINVAL, "experiment: need at least one size and instance");
    ms_rng r;
    ms_rng_seed(&r, e->seed);
    ms_cosched_instance *own = e->catalogue ? NULL : ms_cosched_catalogue_synthetic(60, &r);
    const ms_cosched_instance *cat = e->catalogue ? e->catalogue : own;
    stats *st = calloc((size_t)e->nn * MS_COSCHED_NALGOS, sizeof *st);
    ms_output o;
    int rc = !cat || !st ? ms_error_set(err, MS_ENOMEM, "out of memory")
                         : ms_output_open(&o, e->csv_path, err);
    if (!rc) {
        fprintf(o.f, "setting,n,instance,algorithm,makespan,plp_makespan,ratio,preemptions,"
                     "preemptions_per_task,seconds,note\n");
        for (int i = 0; i < e->nn && !rc; i++)
            rc = run_size(e, cat, i, o.f, st, err);
        if (e->progress)
            fprintf(stderr, "\n");
        if (rc)
            ms_output_abort(&o);
        else
            rc = ms_output_commit(&o, err);
    }
    if (!rc && e->svg_prefix)
        rc = write_figures(e, st, err);
    if (!rc && e->summary)
        summary(e, st);
    free(st);
    ms_cosched_instance_free(own);
    return rc;
}
