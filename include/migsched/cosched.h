/* cosched.h: two-stream co-scheduling with a speed matrix (paper 003): instances, schedules,
 * the preemptive LP, CaterpillarSplit, NONPREEMPTIVEALG, MAXPAIR, DIRECTALG, SEQUENTIAL. */
#ifndef MIGSCHED_COSCHED_H
#define MIGSCHED_COSCHED_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/rng.h"

/* n tasks with durations p[i] > 0 and speeds S[i*n+j] = speed of i when running with j.
 * For an instance S[i*n+i] = 1; for a kernel catalogue the diagonal is the speed of two
 * copies of the same kernel running together. */
typedef struct ms_cosched_instance {
    int n;
    char **names;
    double *p;
    double *speed;
} ms_cosched_instance;

ms_cosched_instance *ms_cosched_instance_new(int n);
void ms_cosched_instance_free(ms_cosched_instance *inst);
static inline double ms_cosched_s(const ms_cosched_instance *in, int i, int j)
{
    return in->speed[(size_t)i * (size_t)in->n + (size_t)j];
}
/* True iff tasks i != j are worth running together: S_ij + S_ji > 1 (paper 003 Remark). */
int ms_cosched_is_edge(const ms_cosched_instance *inst, int i, int j);
/* Off-diagonal speeds are 0 (cannot co-run) or in (MS_COSCHED_MIN_SPEED, 1]. */
#define MS_COSCHED_MIN_SPEED 1e-9
/* Checks sizes, names, 0 < p <= MS_TIME_MAX, speeds 0 or in (MS_COSCHED_MIN_SPEED, 1],
 * and S_ii = 1 unless catalogue. */
int ms_cosched_instance_check(const ms_cosched_instance *inst, int catalogue, ms_error *err);

/* Readers: JSON {"tasks":[{"name":..,"p":..}],"speed":[[..]]} or CSV
 * "name,p,<name_1>,..,<name_n>" then one row per task "name,p,S_i1,..,S_in".
 * ms_cosched_read picks the format from the first non-blank character ('{' = JSON).
 * catalogue = 1 reads a kernel catalogue (any diagonal). Messages name file, line, field. */
int ms_cosched_parse_json(const char *text, const char *where, int catalogue,
                          ms_cosched_instance **out, ms_error *err);
int ms_cosched_parse_csv(const char *text, const char *where, int catalogue,
                         ms_cosched_instance **out, ms_error *err);
int ms_cosched_read(const char *path, int catalogue, ms_cosched_instance **out, ms_error *err);
/* Writes the JSON form (deterministic bytes); path "-" = stdout, all-or-nothing otherwise. */
int ms_cosched_write_json(const ms_cosched_instance *inst, const char *path, ms_error *err);

/* A schedule: a sequence of intervals, each running task a alone (b = -1) or a with b. */
typedef struct ms_cosched_interval {
    double d;
    int a, b;
} ms_cosched_interval;

typedef struct ms_cosched_schedule {
    int n;        /* tasks of the instance */
    int len, cap; /* intervals */
    ms_cosched_interval *iv;
} ms_cosched_schedule;

ms_cosched_schedule *ms_cosched_schedule_new(int n);
void ms_cosched_schedule_free(ms_cosched_schedule *s);
/* Appends an interval (ignored when d <= 0); b = -1 or b = a means a alone. */
int ms_cosched_schedule_add(ms_cosched_schedule *s, double d, int a, int b, ms_error *err);
double ms_cosched_makespan(const ms_cosched_schedule *s);
/* Total preemptions; per_task (may be NULL, n entries) gets P(sigma, i) (paper 003 sec. 3). */
int ms_cosched_preemptions(const ms_cosched_schedule *s, int *per_task);
/* Valid iff indices are tasks, durations finite and >= 0, at most two tasks per interval,
 * and every task progresses exactly p_i (relative tolerance 1e-6);
 * nonpreemptive = 1 also requires every task to run in one block. */
int ms_cosched_validate(const ms_cosched_instance *inst, const ms_cosched_schedule *s,
                        int nonpreemptive, ms_error *err);
/* JSON object {"algorithm","makespan","preemptions","preempted_tasks","intervals":[..]}. */
int ms_cosched_schedule_write_json(const ms_cosched_instance *inst, const ms_cosched_schedule *s,
                                   const char *algorithm, FILE *f, ms_error *err);

/* The preemptive LP (PLP) solution x*: durations of the positive configurations.
 * An edge with a == b is the task running alone. */
typedef struct ms_cosched_edge {
    int a, b;
    double x;
} ms_cosched_edge;

typedef struct ms_cosched_lp {
    int n;
    double makespan;
    int nedges;
    ms_cosched_edge *e; /* the edges of G(x*) (x > 0), loops included */
} ms_cosched_lp;

/* Solves PLP with GLPK (simplex, presolve). Equality constraints: a task progresses exactly
 * p_i, which has the same optimum as the paper's >= when every S_ij <= 1. */
int ms_cosched_plp(const ms_cosched_instance *inst, ms_cosched_lp *lp, ms_error *err);
void ms_cosched_lp_fini(ms_cosched_lp *lp);

/* CaterpillarSplit: an ordering of lp's intervals with the fewest preemptions. */
int ms_cosched_caterpillar(const ms_cosched_instance *inst, const ms_cosched_lp *lp,
                           ms_cosched_schedule **out, ms_error *err);
/* Minimum number of caterpillars (= preemptions) for a pseudo-forest given as an edge list
 * over nv vertices without loops; exposed for tests. Returns -1 if not a pseudo-forest. */
int ms_cosched_caterpillar_count(int nv, int ne, const int *eu, const int *ev);

/* NONPREEMPTIVEALG (Algorithm 4) from an LP solution. */
int ms_cosched_nonpreemptive(const ms_cosched_instance *inst, const ms_cosched_lp *lp,
                             ms_cosched_schedule **out, ms_error *err);
/* MAXPAIR (Algorithm 3), SEQUENTIAL. */
int ms_cosched_maxpair(const ms_cosched_instance *inst, ms_cosched_schedule **out, ms_error *err);
int ms_cosched_sequential(const ms_cosched_instance *inst, ms_cosched_schedule **out,
                          ms_error *err);
/* DIRECTALG: the MILP of paper 003 5.4 with GLPK under a time limit (seconds), cutting the
 * cheapest edge of each cycle, started from NONPREEMPTIVEALG's schedule (or SEQUENTIAL if
 * the LP fails) as first incumbent. *lower gets the MILP's best bound (may be NULL);
 * *optimal (may be NULL) is 1 when GLPK proved optimality within the limit. */
int ms_cosched_direct(const ms_cosched_instance *inst, double time_limit, ms_cosched_schedule **out,
                      double *lower, int *optimal, ms_error *err);

/* Maximum-weight matching (Edmonds' blossom algorithm, O(n^3)) in a general graph:
 * mate[v] = partner or -1. Weights > 0 matter; others are ignored. */
int ms_max_weight_matching(int nv, int ne, const int *eu, const int *ev, const double *w, int *mate,
                           ms_error *err);

/* Builds a schedule with no preemption from a path cover: spine edges (each vertex on at
 * most two, no cycle), pendant edges (leaf[k] attached to centre[k]) and per-task time
 * alone. Shared by NONPREEMPTIVEALG and DIRECTALG. */
typedef struct ms_cosched_cover {
    int n;
    int nspine, npend;
    ms_cosched_edge *spine; /* a-b run together for x */
    ms_cosched_edge *pend;  /* a = centre, b = leaf */
    double *alone;          /* n entries */
} ms_cosched_cover;
int ms_cosched_cover_schedule(const ms_cosched_cover *c, ms_cosched_schedule **out, ms_error *err);
/* NONPREEMPTIVEALG's cover of an LP solution (ms_cosched_nonpreemptive schedules it). */
int ms_cosched_nonpreemptive_cover(const ms_cosched_instance *inst, const ms_cosched_lp *lp,
                                   ms_cosched_cover *c, ms_error *err);
void ms_cosched_cover_fini(ms_cosched_cover *c);

/* Algorithms by name. */
enum ms_cosched_algo {
    MS_COSCHED_PLP,
    MS_COSCHED_CATERPILLAR,
    MS_COSCHED_NONPREEMPTIVE,
    MS_COSCHED_MAXPAIR,
    MS_COSCHED_DIRECT,
    MS_COSCHED_SEQUENTIAL,
    MS_COSCHED_NALGOS
};
const char *ms_cosched_algo_name(int algo);
int ms_cosched_algo_lookup(const char *name);
/* Runs one algorithm; "plp" gives the LP's intervals in input order (preemptive). */
int ms_cosched_run(const ms_cosched_instance *inst, int algo, double time_limit,
                   ms_cosched_schedule **out, ms_error *err);

/* Instance generation (paper 003 6.2). */
enum ms_cosched_setting { MS_COSCHED_UNIFORM, MS_COSCHED_WEIGHTED, MS_COSCHED_RANDOM };
int ms_cosched_setting_lookup(const char *name);
const char *ms_cosched_setting_name(int setting);
/* A synthetic catalogue of k kernels standing in for the paper's unpublished 60-kernel
 * measurements: about half of the pairs cannot co-run, the others have roughly uniform
 * speeds, correlated through a per-kernel resource demand. */
ms_cosched_instance *ms_cosched_catalogue_synthetic(int k, ms_rng *rng);
/* n tasks drawn from a catalogue under a setting. */
int ms_cosched_generate(const ms_cosched_instance *catalogue, int setting, int n, ms_rng *rng,
                        ms_cosched_instance **out, ms_error *err);
/* Theorem 2: the instance built from a 3-PARTITION instance (3m values a[i], sum m*B). */
int ms_cosched_three_partition(const int *a, int m, int B, ms_cosched_instance **out,
                               ms_error *err);
/* Fig. 10: star with k leaves (p_centre = k, p_leaf = 1), MAXPAIR ratio (2k-1)/k. */
ms_cosched_instance *ms_cosched_fig10(int k);
/* Fig. 11: two wheels of size k (even) with exterior nodes, eps > 0. */
ms_cosched_instance *ms_cosched_fig11(int k, double eps);

/* Experiments of paper 003 6.3 (Figs. 13-15): for each n, `instances` instances of the
 * setting, every algorithm run, validated and timed. Writes one CSV row per run, and when
 * svg_prefix is set <prefix>-fig13.svg (CaterpillarSplit preemptions per task),
 * -fig14.svg (non-preemptive makespan / PLP optimum), -fig15.svg (running time). */
typedef struct ms_cosched_experiment {
    int setting;
    const int *ns;
    int nn;
    int instances;
    uint64_t seed;
    double direct_limit;                  /* seconds per DIRECTALG run */
    int direct_max_n;                     /* DIRECTALG only up to this n (0: never) */
    const ms_cosched_instance *catalogue; /* NULL: the synthetic one from seed */
    const char *csv_path;
    const char *svg_prefix;
    FILE *summary;               /* per-n means (may be NULL) */
    int progress;                /* progress lines on stderr */
    volatile sig_atomic_t *stop; /* when set (e.g. by SIGINT): stop, write nothing, MS_EINTR */
} ms_cosched_experiment;
int ms_cosched_experiment_run(const ms_cosched_experiment *e, ms_error *err);

/* Two-stream Gantt chart of a schedule. */
int ms_cosched_plot(const ms_cosched_instance *inst, const ms_cosched_schedule *s,
                    const char *title, const char *path, ms_error *err);

#endif
