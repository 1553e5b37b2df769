/* test_initial.c: what the GPUs hold before a plan (--initial): the layout's parser, printer
 * and comparison; the validator's initial-layout rule; and, for random workloads and random
 * initial layouts on every model, every algorithm's plan validates against its layout and
 * respects the lower bounds taken from it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"
#include "migsched/offline.h"
#include "migsched/rng.h"

static const ms_gpu_model *a30(void) { return ms_gpu_builtin("A30-24GB"); }
static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static void parse_ok(const char *text, const ms_gpu_model *gpu, int gpus, const char *shown, int n)
{
    ms_initial l;
    ms_error err = {0};
    if (ms_initial_parse(text, gpu, gpus, &l, &err))
        fail_msg("'%s': %s", text, err.msg);
    char buf[128];
    ms_initial_format(&l, gpu, gpus, buf, sizeof buf);
    assert_string_equal(buf, shown);
    assert_int_equal(l.n, n);
    for (int i = 1; i < l.n; i++) /* kept sorted by GPU, then slot */
        assert_true(
            l.inst[i - 1].gpu < l.inst[i].gpu ||
            (l.inst[i - 1].gpu == l.inst[i].gpu && l.inst[i - 1].at.start < l.inst[i].at.start));
    ms_initial_fini(&l);
}

static void parse_bad(const char *text, const ms_gpu_model *gpu, int gpus, const char *says)
{
    ms_initial l;
    ms_error err = {0};
    assert_int_equal(ms_initial_parse(text, gpu, gpus, &l, &err), MS_EINVAL);
    if (!strstr(err.msg, says))
        fail_msg("'%s': message '%s' lacks '%s'", text, err.msg, says);
    assert_int_equal(l.n, 0);
}

static void parser(void **state)
{
    parse_ok("empty", a30(), 1, "empty", 0);
    parse_ok("2-1-1", a30(), 1, "2-1-1", 3);
    parse_ok("4", a30(), 2, "4", 2); /* one item: every GPU */
    parse_ok("4-3,empty", a100(), 2, "4-3,empty", 2);
    parse_ok("2-2-2-1", a100(), 1, "2-2-2-1", 4);
    char idx[16];
    snprintf(idx, sizeof idx, "%d", ms_partition_parse(a30(), "2-1-1") + 1);
    parse_ok(idx, a30(), 1, "2-1-1", 3); /* the index fixpart: takes */
    parse_bad("3-3", a30(), 1, "'3-3' is not a partition of A30-24GB");
    parse_bad("4,4,4", a30(), 2, "3 layouts for 2 GPUs");
    parse_bad("4,", a30(), 2, "an empty item");
    parse_bad("device", a30(), 1, "only `migsched run` and migschedd");
    parse_bad("", a30(), 1, "expected empty, device or a partition");
    assert_true(ms_initial_is_device("device") && !ms_initial_is_device("empty"));
}

static void add_and_diff(void **state)
{
    const ms_gpu_model *gpu = a30();
    ms_initial a, b;
    ms_error err = {0};
    ms_initial_init(&a);
    int p2 = ms_gpu_profile_by_name(gpu, "2g.12gb"), p1 = ms_gpu_profile_by_name(gpu, "1g.6gb");
    assert_int_equal(ms_initial_add(&a, gpu, 0, (ms_placement){p2, 0}, 0, &err), 0);
    assert_int_equal(ms_initial_add(&a, gpu, 0, (ms_placement){p1, 1}, 0, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "overlaps"));
    assert_int_equal(ms_initial_add(&a, gpu, 0, (ms_placement){p2, 1}, 0, &err), MS_EINVAL);
    assert_int_equal(ms_initial_add(&a, gpu, 0, (ms_placement){p1, 2}, -1, &err), MS_EINVAL);
    assert_int_equal(ms_initial_add(&a, gpu, 0, (ms_placement){p1, 3}, 2.5, &err), 0);
    assert_int_equal(ms_initial_parse("2-1-1", gpu, 1, &b, &err), 0);
    char msg[256];
    assert_int_equal(ms_initial_diff(&a, &b, gpu, "in the plan", "on the device", msg, sizeof msg),
                     1);
    assert_string_equal(msg, "GPU 0: 1g.6gb at slot 2 is on the device, not in the plan");
    assert_int_equal(ms_initial_diff(&b, &b, gpu, "x", "y", msg, sizeof msg), 0);
    assert_string_equal(msg, "");
    assert_int_equal(ms_initial_present_sizes(&a, gpu), (1u << 2) | (1u << 1));
    ms_initial_fini(&a);
    ms_initial_fini(&b);
}

/* One task of 1 s on any size of an A30, on 2g@0, which the GPU may hold before the plan. */
static void validator_rule(void **state)
{
    const ms_gpu_model *gpu = a30();
    ms_workload *w = ms_workload_new();
    double t[MS_MAX_SLICES + 1] = {INFINITY, 1, 1, INFINITY, 1};
    assert_int_equal(ms_workload_add(w, "t", t, NULL, NULL, NULL), 0);
    int p2 = ms_gpu_profile_by_name(gpu, "2g.12gb");
    ms_schedule *s = ms_schedule_new(gpu, 1, "hand");
    ms_schedule_add_instance(s, 0, p2, 0, NAN, NAN, NAN, NAN);
    ms_schedule_add_task(s, 0, 0, 0, 1);
    ms_initial l;
    ms_error err = {0};
    ms_validation v = {0};
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0);             /* structurally fine */
    assert_int_equal(ms_schedule_validate_initial(s, w, NULL, &v), 1); /* not from empty */
    assert_string_equal(v.v[0].rule, MS_RULE_INITIAL);
    ms_validation_fini(&v);
    assert_int_equal(ms_initial_parse("2-1-1", gpu, 1, &l, &err), 0);
    assert_int_equal(ms_schedule_validate_initial(s, w, &l, &v), 2); /* 1g@2, 1g@3 unlisted */
    assert_non_null(strstr(v.v[0].msg, "does not list"));
    ms_validation_fini(&v);
    ms_initial_fini(&l);
    ms_initial_init(&l);
    assert_int_equal(ms_initial_add(&l, gpu, 0, (ms_placement){p2, 0}, 0, &err), 0);
    assert_int_equal(ms_schedule_validate_initial(s, w, &l, NULL), 0);
    l.inst[0].busy_until = 0.5; /* busy: the task may not start before 0.5 */
    assert_int_equal(ms_schedule_validate_initial(s, w, &l, &v), 1);
    assert_non_null(strstr(v.v[0].msg, "busy until 0.5"));
    ms_validation_fini(&v);
    ms_initial_fini(&l);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* A random layout per GPU: empty, a model partition, part of one, or (where the model has
 * one) a profile no partition uses; sometimes busy. */
static void random_layout(const ms_gpu_model *gpu, int gpus, bool busy, ms_rng *r, ms_initial *l)
{
    ms_initial_init(l);
    for (int g = 0; g < gpus; g++) {
        double u = ms_rng_uniform(r);
        if (u < 0.25)
            continue;
        const ms_partition *p = &gpu->partitions[ms_rng_below(r, (uint64_t)gpu->npartitions)];
        for (int i = 0; i < p->n; i++) {
            if (u < 0.4 && ms_rng_uniform(r) < 0.5)
                continue;
            double b = busy && ms_rng_uniform(r) < 0.3 ? 5 * ms_rng_uniform(r) : 0;
            assert_int_equal(ms_initial_add(l, gpu, g, p->inst[i], b, NULL), 0);
        }
        if (u > 0.9) /* one instance of another profile in a free spot, if any fits */
            for (int q = 0; q < gpu->nprofiles; q++)
                for (int k = 0; k < gpu->profiles[q].nstarts; k++)
                    ms_initial_add(l, gpu, g, (ms_placement){q, gpu->profiles[q].starts[k]}, 0,
                                   NULL);
    }
}

static bool has_busy(const ms_initial *l)
{
    for (int i = 0; i < l->n; i++)
        if (l->inst[i].busy_until > 0)
            return true;
    return false;
}

/* algo's plan from l validates against l and lies above the bounds from l. */
static void check_algo(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus,
                       const ms_initial *l, const ms_offline_options *base)
{
    ms_offline_options o = *base;
    o.initial = l;
    ms_schedule *s = NULL;
    ms_error err = {0};
    int rc = ms_offline_schedule(algo, w, gpu, gpus, &o, &s, &err);
    if (rc == MS_EINFEASIBLE)
        return;
    char layout[128];
    ms_initial_format(l, gpu, gpus, layout, sizeof layout);
    if (rc)
        fail_msg("%s on %s x%d from %s, n=%d: %s", algo, gpu->name, gpus, layout, w->n, err.msg);
    ms_validation v = {0};
    int bad = ms_schedule_validate_initial(s, w, l, &v);
    for (int i = 0; i < v.n && i < 5; i++)
        print_error("%s on %s x%d from %s, n=%d: [%s] %s\n", algo, gpu->name, gpus, layout, w->n,
                    v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    assert_int_equal(bad, 0);
    double lb = ms_bound_lbound_present(w, gpu, gpus, ms_initial_present_sizes(l, gpu));
    double mk = ms_schedule_makespan(s), base_lb = ms_bound_baseline(w, gpu, gpus);
    if (w->n && !(mk >= lb * (1 - 1e-9) && mk >= base_lb * (1 - 1e-9)))
        fail_msg("%s on %s x%d from %s: makespan %.9g below l_bound %.9g or baseline %.9g", algo,
                 gpu->name, gpus, layout, mk, lb, base_lb);
    ms_schedule_free(s);
}

static void every_algorithm(void **state)
{
    static const char *const algos[] = {
        "far",         "far-norefine", "search",    "miso",    "miso-eager",
        "fixpartbest", "nomig",        "fixpart:2", "optimal", "rl"};
    const char *model = test_source_path("models/a100-widetimes.bin");
    ms_offline_options base;
    ms_offline_options_init(&base);
    base.search.time_budget_ms = 1;
    base.optimal.time_budget_ms = 1;
    base.optimal.node_limit = 20000;
    ms_rng r;
    ms_rng_seed(&r, 20261202);
    int runs = 0;
    for (int rep = 0; rep < 200; rep++)
        for (int m = 0; m < ms_gpu_builtin_count(); m++) {
            const ms_gpu_model *gpu = ms_gpu_builtin_at(m);
            int gpus = 1 + (int)ms_rng_below(&r, 2), n = (int)ms_rng_below(&r, 9);
            ms_workload *w = n ? test_random_preset_workload(gpu, n, &r) : ms_workload_new();
            ms_initial l;
            random_layout(gpu, gpus, rep % 3 == 2, &r, &l);
            for (size_t a = 0; a < sizeof algos / sizeof *algos; a++) {
                bool one_gpu = !strcmp(algos[a], "optimal") || !strcmp(algos[a], "rl");
                if ((one_gpu && gpus > 1) || (!strcmp(algos[a], "optimal") && n > 5))
                    continue;
                if (!strcmp(algos[a], "rl") && has_busy(&l)) /* the agent cannot wait */
                    continue;
                if (!strcmp(algos[a], "rl") && (strcmp(gpu->name, "A100-40GB") || n == 0))
                    continue; /* the policy is the A100's; it refuses an empty queue */
                ms_offline_options o = base;
                o.rl.model = !strcmp(algos[a], "rl") ? model : NULL;
                check_algo(algos[a], w, gpu, gpus, &l, &o);
                runs++;
            }
            ms_initial_fini(&l);
            ms_workload_free(w);
        }
    print_message("%d plans checked against their initial layouts\n", runs);
}

/* A plan keeps what it can use: FIXPART(P) from P creates and destroys nothing, and every
 * instance takes its first task at time 0 (list scheduling is not monotone in the
 * instances' ready times, so its makespan is not compared with the plan from empty). */
static void keeping_is_free(void **state)
{
    ms_rng r;
    ms_rng_seed(&r, 5);
    for (int rep = 0; rep < 200; rep++) {
        const ms_gpu_model *gpu = rep % 2 ? a30() : a100();
        int k = (int)ms_rng_below(&r, (uint64_t)gpu->npartitions);
        ms_workload *w = test_random_preset_workload(gpu, 1 + (int)ms_rng_below(&r, 12), &r);
        ms_initial held;
        ms_initial_init(&held);
        for (int i = 0; i < gpu->partitions[k].n; i++)
            assert_int_equal(ms_initial_add(&held, gpu, 0, gpu->partitions[k].inst[i], 0, NULL), 0);
        ms_schedule *from_empty = NULL, *from_held = NULL;
        int rc = ms_fixpart_schedule(w, gpu, 1, NULL, k, &from_empty, NULL);
        assert_int_equal(ms_fixpart_schedule(w, gpu, 1, &held, k, &from_held, NULL), rc);
        if (rc == MS_OK) {
            ms_metrics m;
            ms_schedule_metrics(from_held, w, &m);
            assert_int_equal(m.creations, 0);
            assert_int_equal(m.destructions, 0);
            for (int i = 0; i < from_held->ntasks; i++)
                assert_true(from_held->task[i].start >= 0);
            for (int j = 0; j < from_held->ninst; j++) {
                double first = INFINITY;
                for (int i = 0; i < from_held->ntasks; i++)
                    if (from_held->task[i].instance == j)
                        first = fmin(first, from_held->task[i].start);
                assert_true(isinf(first) || first == 0);
            }
            assert_int_equal(ms_schedule_validate_initial(from_held, w, &held, NULL), 0);
        }
        ms_schedule_free(from_empty);
        ms_schedule_free(from_held);
        ms_initial_fini(&held);
        ms_workload_free(w);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parser),          cmocka_unit_test(add_and_diff),
        cmocka_unit_test(validator_rule),  cmocka_unit_test(every_algorithm),
        cmocka_unit_test(keeping_is_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
