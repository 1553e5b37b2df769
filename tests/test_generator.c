/* test_generator.c: presets, footnote-8 class counts, and the scaling classes, monotony,
 * ranges and determinism of generated tasks (paper 000 6.3, paper 001 5.1.2-5.1.3). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/workload.h"
#include "support.h"
#include "workload_assert.h"

static const ms_gpu_model *a30(void) { return ms_gpu_builtin("A30-24GB"); }
static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_gen_params preset(const ms_gpu_model *gpu, const char *list)
{
    ms_gen_params p;
    ms_error err = {0};
    if (ms_gen_preset(gpu, list, &p, &err))
        fail_msg("%s", err.msg);
    return p;
}

static ms_workload *generate(const ms_gpu_model *gpu, const ms_gen_params *p, int n, uint64_t seed)
{
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    ms_workload *w = NULL;
    ms_error err = {0};
    if (ms_generate(gpu, p, n, &rng, &w, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(w->n, n);
    return w;
}

static void assert_shares(const ms_gen_params *p, const double *want)
{
    for (int s = 1; s <= MS_MAX_SLICES; s++)
        if (fabs(p->p[s] - want[s]) > 1e-12)
            fail_msg("p[%d] = %g, want %g", s, p->p[s], want[s]);
}

static void test_presets(void **state)
{
    ms_gen_params p = preset(a100(), "POORSCALING");
    assert_shares(&p, (double[]){0, .5, .5, 0, 0, 0, 0, 0, 0});
    assert_true(p.p_sup == .25 && p.tmin == 90 && p.tmax == 100 && p.p_stop == .3);
    p = preset(a100(), "goodscaling");
    assert_shares(&p, (double[]){0, 0, 0, 0, .5, 0, 0, .5, 0});
    assert_true(p.p_sup == .75);
    p = preset(a100(), " MIXEDSCALING , WIDETIMES ");
    assert_shares(&p, (double[]){0, .2, .2, .2, .2, 0, 0, .2, 0});
    assert_true(p.p_sup == .5 && p.tmin == 1 && p.tmax == 100);
    p = preset(a100(), "MIXSCALINGEXTREME,NARROWTIMES");
    assert_shares(&p, (double[]){0, .45, .05, 0, .05, 0, 0, .45, 0});
    assert_true(p.p_sup == .5 && p.tmin == 90 && p.tmax == 100);
    /* Paper 001's WIDETIMES alone: uniform shares, p_sup 0.5, [1, 100]. */
    p = preset(a100(), "WIDETIMES");
    assert_shares(&p, (double[]){0, .2, .2, .2, .2, 0, 0, .2, 0});
    assert_true(p.p_sup == .5 && p.tmin == 1);
    /* Later presets override what they set; time and scaling presets combine. */
    p = preset(a100(), "POORSCALING,GOODSCALING");
    assert_true(p.p[7] == .5 && p.p[1] == 0 && p.p_sup == .75);
    ms_gen_params q = preset(a100(), "WIDETIMES,GOODSCALING");
    assert_memory_equal(&p.p, &q.p, sizeof p.p);
    assert_true(q.tmin == 1);
    ms_gen_params u = preset(a100(), "MIXSCALINGUNIFORM"), d = preset(a100(), "");
    assert_memory_equal(&u, &d, sizeof u);
    /* A30 (sizes 1, 2, 4): 4 is the whole GPU. */
    p = preset(a30(), "GOODSCALING");
    assert_shares(&p, (double[]){0, 0, 0, 0, 1, 0, 0, 0, 0});
    p = preset(a30(), "MIXSCALINGEXTREME");
    assert_shares(&p, (double[]){0, .45, .05, 0, .5, 0, 0, 0, 0});
    p = preset(a30(), "MIXEDSCALING");
    assert_shares(&p, (double[]){0, 1. / 3, 1. / 3, 0, 1. / 3, 0, 0, 0, 0});
    ms_error err = {0};
    assert_int_equal(ms_gen_preset(a100(), "MIXEDSCALING,FASTSCALING", &p, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "unknown preset 'FASTSCALING'"));
    assert_non_null(strstr(err.msg, "NARROWTIMES"));
    int names = 0;
    for (const char *const *n = ms_gen_preset_names(); *n; n++)
        names++;
    assert_int_equal(names, 10);
}

static void expect_counts(const ms_gpu_model *gpu, const ms_gen_params *p, int n, const int *want,
                          const int *want_sup)
{
    int count[MS_MAX_SLICES + 1], sup[MS_MAX_SLICES + 1];
    ms_error err = {0};
    assert_int_equal(ms_gen_class_counts(gpu, p, n, count, sup, &err), MS_OK);
    for (int k = 0; k < gpu->nsizes; k++) {
        int s = gpu->sizes[k];
        if (count[s] != want[k] || sup[s] != want_sup[k])
            fail_msg("%s n=%d size %d: %d tasks (%d super), want %d (%d)", gpu->name, n, s,
                     count[s], sup[s], want[k], want_sup[k]);
    }
}

/* Footnote 8 by hand: floors, then +1 to the size farthest below n * p (ties: smaller). */
static void test_class_counts(void **state)
{
    ms_gen_params p = preset(a100(), "MIXEDSCALING");
    expect_counts(a100(), &p, 10, (int[]){2, 2, 2, 2, 2}, (int[]){0, 1, 1, 1, 1});
    /* 2.4 each: floors 2 (sum 10), two +1 on the tied sizes 1 and 2. */
    expect_counts(a100(), &p, 12, (int[]){3, 3, 2, 2, 2}, (int[]){0, 1, 1, 1, 1});
    p = preset(a100(), "MIXSCALINGEXTREME");
    /* 4.5, 0.5, 0, 0.5, 4.5: floors 4,0,0,0,4; +1 to 1 (0.5, first), then to 2 (0.5). */
    expect_counts(a100(), &p, 10, (int[]){5, 1, 0, 0, 4}, (int[]){0, 0, 0, 0, 2});
    expect_counts(a100(), &p, 100, (int[]){45, 5, 0, 5, 45}, (int[]){0, 2, 0, 2, 22});
    p = preset(a100(), "POORSCALING");
    expect_counts(a100(), &p, 7, (int[]){4, 3, 0, 0, 0}, (int[]){0, 0, 0, 0, 0});
    expect_counts(a100(), &p, 100, (int[]){50, 50, 0, 0, 0}, (int[]){0, 12, 0, 0, 0});
    p = preset(a100(), "GOODSCALING");
    expect_counts(a100(), &p, 100, (int[]){0, 0, 0, 50, 50}, (int[]){0, 0, 0, 37, 37});
    expect_counts(a100(), &p, 1, (int[]){0, 0, 0, 1, 0}, (int[]){0, 0, 0, 0, 0});
    p = preset(a30(), "MIXEDSCALING");
    expect_counts(a30(), &p, 10, (int[]){4, 3, 3}, (int[]){0, 1, 1});
    /* n * p = 28.999999999999996 in doubles: still 29. */
    p = preset(a30(), "");
    memset(p.p, 0, sizeof p.p);
    p.p[1] = .29;
    p.p[2] = .71;
    expect_counts(a30(), &p, 100, (int[]){29, 71, 0}, (int[]){0, 35, 0});
}

static void test_bad_params(void **state)
{
    struct {
        const char *field;
        double value;
        const char *needle;
    } cases[] = {
        {"p2", .3, "must sum to 1"},  {"p3", .2, "has no 3-slice"}, {"tmin", 0, "0 < tmin"},
        {"tmax", 50, "tmin <= tmax"}, {"p_sup", 1.5, "p_sup"},      {"p_stop", -1, "p_stop"},
        {"tmax", INFINITY, "tmax"},   {"p1", NAN, "p[1]"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_gen_params p = preset(a30(), "POORSCALING");
        double *f = !strcmp(cases[i].field, "p2")      ? &p.p[2]
                    : !strcmp(cases[i].field, "p3")    ? &p.p[3]
                    : !strcmp(cases[i].field, "p1")    ? &p.p[1]
                    : !strcmp(cases[i].field, "tmin")  ? &p.tmin
                    : !strcmp(cases[i].field, "tmax")  ? &p.tmax
                    : !strcmp(cases[i].field, "p_sup") ? &p.p_sup
                                                       : &p.p_stop;
        *f = cases[i].value;
        ms_workload sentinel, *w = &sentinel;
        ms_rng rng;
        ms_rng_seed(&rng, 1);
        ms_error err = {0};
        assert_int_equal(ms_generate(a30(), &p, 5, &rng, &w, &err), MS_EINVAL);
        assert_null(w); /* a failure leaves NULL */
        if (!strstr(err.msg, cases[i].needle))
            fail_msg("%s: \"%s\" lacks \"%s\"", cases[i].field, err.msg, cases[i].needle);
    }
    ms_gen_params p = preset(a30(), "POORSCALING");
    ms_workload *w = NULL;
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    ms_error err = {0};
    assert_int_equal(ms_generate(a30(), &p, 0, &rng, &w, &err), MS_EINVAL);
}

/* Every generated task: times only on the GPU's sizes, non-increasing, t(1) in range,
 * names t0001..; and the class histogram is exactly footnote 8's. */
static void check_workload(const ms_gpu_model *gpu, const ms_gen_params *p, int n,
                           const ms_workload *w)
{
    int count[MS_MAX_SLICES + 1], sup[MS_MAX_SLICES + 1], seen[MS_MAX_SLICES + 1] = {0};
    int strict_super = 0, weak_super = 0;
    assert_int_equal(ms_gen_class_counts(gpu, p, n, count, sup, NULL), MS_OK);
    for (int i = 0; i < w->n; i++) {
        const ms_task *t = &w->tasks[i];
        char name[16];
        snprintf(name, sizeof name, n < 10000 ? "t%04d" : "t%05d", i + 1);
        assert_string_equal(t->name, name);
        for (int s = 1; s <= MS_MAX_SLICES; s++)
            assert_true(ms_gpu_size_index(gpu, s) >= 0 ? isfinite(t->time[s]) && t->time[s] > 0
                                                       : isinf(t->time[s]));
        for (int k = 1; k < gpu->nsizes; k++)
            assert_true(t->time[gpu->sizes[k]] <= t->time[gpu->sizes[k - 1]]);
        assert_true(t->time[1] >= p->tmin && t->time[1] <= p->tmax);
        seen[test_task_class(t, gpu)]++;
        double r1 = 2 * t->time[2] / t->time[1] - 1; /* t(2) = (1 + r)/2 t(1) */
        strict_super += r1 < -1e-12;
        weak_super += r1 <= 1e-12;
    }
    int total_sup = 0;
    for (int k = 0; k < gpu->nsizes; k++) {
        int s = gpu->sizes[k];
        if (seen[s] != count[s])
            fail_msg("%s n=%d: %d tasks scale well up to %d, footnote 8 says %d", gpu->name, n,
                     seen[s], s, count[s]);
        total_sup += sup[s];
    }
    /* r = 0 exactly (clipping) is both near- and super-linear: bounds, not equality. */
    assert_true(strict_super <= total_sup && total_sup <= weak_super);
}

static void test_generated_classes(void **state)
{
    const char *presets[] = {
        "POORSCALING",       "MIXEDSCALING",           "GOODSCALING",
        "MIXSCALINGEXTREME", "MIXEDSCALING,WIDETIMES", "GOODSCALING,WIDETIMES"};
    const int ns[] = {1, 10, 37, 100, 10001};
    for (int g = 0; g < ms_gpu_builtin_count(); g++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(g);
        for (size_t i = 0; i < sizeof presets / sizeof presets[0]; i++)
            for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++) {
                ms_gen_params p = preset(gpu, presets[i]);
                ms_workload *w = generate(gpu, &p, ns[j], 1000 * i + j);
                check_workload(gpu, &p, ns[j], w);
                ms_workload_free(w);
            }
    }
}

/* The presets' promises, stated directly on the times. */
static void test_preset_promises(void **state)
{
    ms_gen_params p = preset(a100(), "POORSCALING");
    ms_workload *w = generate(a100(), &p, 1000, 7);
    /* No task improves near- or super-linearly beyond 2 slices. */
    for (int i = 0; i < w->n; i++)
        assert_true(w->tasks[i].time[3] / w->tasks[i].time[2] >= 2.5 / 3 - 1e-12);
    ms_workload_free(w);
    p = preset(a100(), "GOODSCALING");
    w = generate(a100(), &p, 1000, 7);
    int to7 = 0;
    for (int i = 0; i < w->n; i++) {
        const double *t = w->tasks[i].time;
        assert_true(t[4] / t[1] <= test_ratio_bound(1, 4, 0.2) * (1 + 1e-12));
        to7 += t[7] / t[4] <= test_ratio_bound(4, 7, 0.2) * (1 + 1e-12);
    }
    assert_int_equal(to7, 500);
    ms_workload_free(w);
    p = preset(a30(), "POORSCALING,WIDETIMES");
    w = generate(a30(), &p, 1000, 7);
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < w->n; i++) {
        lo = fmin(lo, w->tasks[i].time[1]);
        hi = fmax(hi, w->tasks[i].time[1]);
        assert_true(w->tasks[i].time[4] / w->tasks[i].time[2] >=
                    test_ratio_bound(2, 4, 0.5) - 1e-12);
    }
    assert_true(lo >= 1 && lo < 5 && hi <= 100 && hi > 95);
    ms_workload_free(w);
}

/* Fraction of super-linear starters (r < 0 from 1 to 2) still super-linear from 2 to 3. */
static double still_super(double p_stop)
{
    ms_gen_params p = preset(a100(), "GOODSCALING");
    p.p_stop = p_stop;
    p.p_sup = 1;
    ms_workload *w = generate(a100(), &p, 20000, 3);
    int starters = 0, kept = 0;
    for (int i = 0; i < w->n; i++) {
        const double *t = w->tasks[i].time;
        if (t[2] / t[1] < 0.5 - 1e-12) {
            starters++;
            kept += t[3] / t[2] < 2.0 / 3 - 1e-12;
        }
    }
    ms_workload_free(w);
    return (double)kept / starters;
}

/* The 0.3 per-slice chance to stop superscaling: exact at 0 and 1, about 0.7 x P(r < 0)
 * = 0.7 x 0.841 = 0.589 at 0.3 (fixed seed, so no flakiness). */
static void test_stop_superscaling(void **state)
{
    assert_true(still_super(1) == 0);
    double never = still_super(0), paper = still_super(0.3);
    assert_true(never > 0.82 && never < 0.86);
    assert_true(paper > 0.56 && paper < 0.62);
}

/* Pathological presets (paper 001 6.7): every task fastest at its best size (4 or 2), 3
 * slices 2-8 % slower, no larger size faster; PATHOMIX splits the tasks half and half;
 * a GPU without 3-slice instances is refused with the preset named. */
static void test_pathological(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    static const char *const names[] = {"PATHO4", "PATHO2", "PATHOMIX,WIDETIMES"};
    for (int k = 0; k < 3; k++) {
        ms_gen_params p;
        ms_workload *w = NULL;
        ms_error err;
        ms_rng rng;
        ms_rng_seed(&rng, 11);
        assert_int_equal(ms_gen_preset(gpu, names[k], &p, &err), MS_OK);
        assert_int_equal(ms_generate(gpu, &p, 40, &rng, &w, &err), MS_OK);
        int at[MS_MAX_SLICES + 1] = {0};
        for (int i = 0; i < w->n; i++) {
            const double *t = w->tasks[i].time;
            int best = t[4] < t[2] ? 4 : 2;
            at[best]++;
            for (int s = 1; s <= 7; s++)
                if (isfinite(t[s]))
                    assert_true(t[s] >= t[best]);
            assert_true(t[3] >= 1.02 * t[best] * (1 - 1e-12) &&
                        t[3] <= 1.08 * t[best] * (1 + 1e-12));
            assert_true(t[1] >= p.tmin && t[1] <= p.tmax);
        }
        assert_int_equal(at[4], k == 0 ? 40 : k == 1 ? 0 : 20);
        ms_workload_free(w);
    }
    ms_gen_params p;
    ms_error err;
    assert_int_equal(ms_gen_preset(a30(), "PATHO4", &p, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "PATHO4"));
}

static void test_deterministic_and_shuffled(void **state)
{
    ms_gen_params p = preset(a100(), "POORSCALING");
    ms_workload *a = generate(a100(), &p, 200, 42), *b = generate(a100(), &p, 200, 42),
                *c = generate(a100(), &p, 200, 43);
    assert_same_workload(a, b, a100());
    int same = 0;
    for (int i = 0; i < a->n; i++)
        same += a->tasks[i].time[1] == c->tasks[i].time[1];
    assert_int_equal(same, 0);
    /* Classes are interleaved, not listed class by class. */
    int first_half_poor = 0;
    for (int i = 0; i < 100; i++)
        first_half_poor += test_task_class(&a->tasks[i], a100()) == 1;
    assert_true(first_half_poor > 25 && first_half_poor < 75);
    ms_workload_free(a);
    ms_workload_free(b);
    ms_workload_free(c);
}

/* class_order: the same tasks as the shuffled dataset of the seed, listed class by class
 * (the size each scales up to, non-decreasing). */
static void test_class_order(void **state)
{
    ms_gen_params p = preset(a100(), "MIXSCALINGUNIFORM");
    ms_workload *a = generate(a100(), &p, 100, 42);
    p.class_order = true;
    ms_workload *b = generate(a100(), &p, 100, 42);
    assert_int_equal(a->n, b->n);
    int found = 0;
    for (int i = 0; i < b->n; i++) {
        if (i)
            assert_true(test_task_class(&b->tasks[i - 1], a100()) <=
                        test_task_class(&b->tasks[i], a100()));
        for (int j = 0; j < a->n; j++)
            if (!memcmp(a->tasks[j].time, b->tasks[i].time, sizeof a->tasks[j].time)) {
                found++;
                break;
            }
    }
    assert_int_equal(found, b->n);
    assert_true(test_task_class(&b->tasks[0], a100()) <
                test_task_class(&b->tasks[b->n - 1], a100()));
    ms_workload_free(a);
    ms_workload_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets),
        cmocka_unit_test(test_class_counts),
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_generated_classes),
        cmocka_unit_test(test_preset_promises),
        cmocka_unit_test(test_stop_superscaling),
        cmocka_unit_test(test_deterministic_and_shuffled),
        cmocka_unit_test(test_pathological),
        cmocka_unit_test(test_class_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
