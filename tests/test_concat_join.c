/* test_concat_join.c: ms_schedule_join, a batch joined to a running plan (paper 000 section
 * 4 for migschedd). Property: on random pairs of batches (A30 and A100, 1-2 GPUs, the
 * generator's presets, some sizes impossible) planned by search and FAR, at a random `now`
 * inside the first plan, in every mode: the joint plan validates on the joint workload,
 * keeps the running plan's tasks as they were, starts nothing of the new batch before now,
 * ends no later than the trivial join, and overlap ends no later than reverse. Golden: a
 * long task on a small instance lets the next batch start beside it, long before it ends;
 * a full GPU does not; plans for other GPUs are refused. Deterministic: same bytes. A batch
 * planned from what the running plan leaves (random pairs, and an idle instance kept). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "migsched/offline.h"

static const char *const presets[] = {"POORSCALING,WIDETIMES", "MIXEDSCALING,NARROWTIMES",
                                      "GOODSCALING,WIDETIMES", "PATHOMIX"};

static ms_workload *random_workload(const ms_gpu_model *gpu, int n, ms_rng *rng)
{
    ms_gen_params params;
    ms_workload *w = NULL;
    ms_error err;
    const char *p = presets[ms_rng_below(rng, 4)];
    if (ms_gen_preset(gpu, p, &params, &err))
        p = presets[0];
    if (ms_gen_preset(gpu, p, &params, &err) || ms_generate(gpu, &params, n, rng, &w, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < w->n; i++)
        if (ms_rng_uniform(rng) < 0.2)
            for (int k = 0; k < gpu->nsizes - 1; k++) /* the whole GPU stays possible */
                if (ms_rng_uniform(rng) < 0.4)
                    w->tasks[i].time[gpu->sizes[k]] = INFINITY;
    return w;
}

static ms_schedule *plan(const char *algo, const ms_workload *w, const ms_gpu_model *gpu, int gpus)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.search.time_budget_ms = 2;
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_offline_schedule(algo, w, gpu, gpus, &o, &s, &err))
        fail_msg("%s: %s", algo, err.msg);
    return s;
}

static ms_workload *joint_workload(const ms_workload *a, const ms_workload *b)
{
    ms_workload *w = ms_workload_slice(a, 0, a->n);
    ms_error err;
    for (int t = 0; t < b->n; t++)
        if (ms_workload_add(w, b->tasks[t].name, b->tasks[t].time, NULL, NULL, &err))
            fail_msg("%s", err.msg);
    return w;
}

static ms_schedule *join(const ms_schedule *run, double now, const ms_schedule *next,
                         const ms_workload *wb, int base, ms_concat_mode mode)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.far.concat = mode;
    ms_schedule *j = NULL;
    ms_error err;
    if (ms_schedule_join(run, now, next, wb, base, &o, &j, &err))
        fail_msg("join: %s", err.msg);
    return j;
}

static void check_valid(const ms_schedule *s, const ms_workload *w, int c)
{
    ms_validation v = {0};
    if (ms_schedule_validate(s, w, &v))
        fail_msg("case %d: joint plan invalid: %s", c, v.v[0].msg);
    ms_validation_fini(&v);
}

static void test_property(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 2026);
    const char *models[] = {"A30-24GB", "A100-40GB"};
    int overlapped = 0, cases = 300;
    for (int c = 0; c < cases; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin(models[c % 2]);
        int gpus = 1 + (int)ms_rng_below(&rng, 2);
        ms_workload *wa = random_workload(gpu, 2 + (int)ms_rng_below(&rng, 10), &rng);
        ms_workload *wb = random_workload(gpu, 2 + (int)ms_rng_below(&rng, 10), &rng);
        ms_schedule *a = plan(c % 3 ? "search" : "far", wa, gpu, gpus);
        ms_schedule *b = plan(c % 4 ? "search" : "far", wb, gpu, gpus);
        /* The first plan joined to nothing is itself, retimed from now. */
        ms_schedule *first = join(NULL, 0, a, wa, 0, MS_CONCAT_OVERLAP);
        check_valid(first, wa, c);
        double now = ms_rng_uniform(&rng) * ms_schedule_makespan(first);
        ms_workload *w = joint_workload(wa, wb);
        double ends[3];
        for (int m = MS_CONCAT_TRIVIAL; m <= MS_CONCAT_OVERLAP; m++) {
            ms_schedule *j = join(first, now, b, wb, wa->n, (ms_concat_mode)m);
            check_valid(j, w, c);
            assert_int_equal(j->ntasks, wa->n + wb->n);
            for (int t = 0; t < first->ntasks; t++) { /* the running plan is fixed */
                assert_int_equal(j->task[t].index, first->task[t].index);
                assert_true(j->task[t].start == first->task[t].start);
            }
            for (int i = 0; i < first->ninst; i++)
                assert_true(j->inst[i].create_start == first->inst[i].create_start);
            double earliest = INFINITY;
            for (int i = first->ninst; i < j->ninst; i++) {
                assert_true(j->inst[i].create_start >= now - 1e-12);
                earliest = fmin(earliest, j->inst[i].create_start);
            }
            ends[m] = ms_schedule_makespan(j);
            assert_true(ends[m] <= ms_schedule_stat(j, "makespan_trivial") + 1e-9);
            if (m == MS_CONCAT_OVERLAP && earliest < ms_schedule_makespan(first))
                overlapped++;
            ms_schedule_free(j);
        }
        assert_true(ends[MS_CONCAT_REVERSE] <= ends[MS_CONCAT_TRIVIAL] + 1e-9);
        assert_true(ends[MS_CONCAT_OVERLAP] <= ends[MS_CONCAT_REVERSE] + 1e-9);
        ms_schedule_free(first);
        ms_schedule_free(a);
        ms_schedule_free(b);
        ms_workload_free(wa);
        ms_workload_free(wb);
        ms_workload_free(w);
    }
    printf("joins where the new batch started before the running plan's end: %d of %d\n",
           overlapped, cases);
    assert_true(overlapped > 0);
}

/* One 100 s task that runs best on a 1-slice instance (slower on larger ones), then four
 * 10 s tasks (20 s on 3 slices or more): they start on the free slices at once, not after
 * 100 s. */
static void test_starts_beside_long_task(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *wa = ms_workload_new(), *wb = ms_workload_new();
    ms_error err;
    double flat[MS_MAX_SLICES + 1], quick[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        flat[s] = s <= 1 ? 100 : 200, quick[s] = s <= 2 ? 10 : 20;
    assert_int_equal(ms_workload_add(wa, "long", flat, NULL, NULL, &err), MS_OK);
    for (int t = 0; t < 4; t++)
        assert_int_equal(ms_workload_add(wb, "short", quick, NULL, NULL, &err), MS_OK);
    ms_schedule *a = plan("search", wa, gpu, 1), *b = plan("search", wb, gpu, 1);
    ms_schedule *first = join(NULL, 0, a, wa, 0, MS_CONCAT_OVERLAP);
    assert_int_equal(gpu->profiles[first->inst[0].profile].slices, 1);
    ms_schedule *j = join(first, 1, b, wb, 1, MS_CONCAT_OVERLAP);
    ms_workload *w = joint_workload(wa, wb);
    check_valid(j, w, 0);
    double first_end = ms_schedule_makespan(first);
    for (int i = first->ninst; i < j->ninst; i++)
        assert_true(j->inst[i].create_end < first_end - 50); /* all of them beside it */
    assert_true(ms_schedule_makespan(j) < ms_schedule_stat(j, "makespan_trivial"));
    /* trivial: after the long task */
    ms_schedule *t = join(first, 1, b, wb, 1, MS_CONCAT_TRIVIAL);
    check_valid(t, w, 0);
    for (int i = first->ninst; i < t->ninst; i++)
        assert_true(t->inst[i].create_start >= first_end);
    ms_schedule_free(t);
    /* deterministic: the same join twice, the same plan */
    ms_schedule *again = join(first, 1, b, wb, 1, MS_CONCAT_OVERLAP);
    assert_int_equal(again->ninst, j->ninst);
    for (int i = 0; i < j->ninst; i++)
        assert_memory_equal(&again->inst[i], &j->inst[i], sizeof j->inst[i]);
    ms_schedule_free(again);
    ms_schedule_free(j);
    ms_schedule_free(first);
    ms_schedule_free(a);
    ms_schedule_free(b);
    ms_workload_free(wa);
    ms_workload_free(wb);
    ms_workload_free(w);
}

/* A batch planned from what the running plan leaves (ms_schedule_join_layout): on random
 * pairs as above, the batch's plan validates on that layout, and the joint plan validates,
 * keeps the running plan's tasks, and runs the batch's tasks on an instance it keeps after
 * the running plan's tasks there, with no instance created for it. */
static void test_property_from_layout(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 2027);
    const char *models[] = {"A30-24GB", "A100-40GB"};
    int kept = 0, cases = 100;
    for (int c = 0; c < cases; c++) {
        const ms_gpu_model *gpu = ms_gpu_builtin(models[c % 2]);
        int gpus = 1 + (int)ms_rng_below(&rng, 2);
        ms_workload *wa = random_workload(gpu, 2 + (int)ms_rng_below(&rng, 8), &rng);
        ms_workload *wb = random_workload(gpu, 2 + (int)ms_rng_below(&rng, 8), &rng);
        ms_schedule *a = plan("search", wa, gpu, gpus);
        ms_schedule *first = join(NULL, 0, a, wa, 0, MS_CONCAT_OVERLAP);
        double now = ms_rng_uniform(&rng) * 1.2 * ms_schedule_makespan(first);
        ms_initial l;
        ms_initial_init(&l);
        ms_error err;
        if (ms_schedule_join_layout(first, now, &l, &err))
            fail_msg("%s", err.msg);
        ms_offline_options o;
        ms_offline_options_init(&o);
        o.search.time_budget_ms = 2;
        o.initial = &l;
        ms_schedule *b;
        if (ms_offline_schedule("search", wb, gpu, gpus, &o, &b, &err))
            fail_msg("%s", err.msg);
        ms_validation v = {0};
        if (ms_schedule_validate_initial(b, wb, &l, &v))
            fail_msg("case %d: batch invalid on the layout: %s", c, v.v[0].msg);
        ms_validation_fini(&v);
        ms_workload *w = joint_workload(wa, wb);
        for (int m = MS_CONCAT_TRIVIAL; m <= MS_CONCAT_OVERLAP; m++) {
            ms_schedule *j = join(first, now, b, wb, wa->n, (ms_concat_mode)m);
            check_valid(j, w, c);
            for (int t = 0; t < first->ntasks; t++)
                assert_true(j->task[t].start == first->task[t].start);
            for (int t = first->ntasks; t < j->ntasks; t++) {
                const ms_sched_task *k = &j->task[t];
                assert_true(k->start >= now - 1e-12);
                if (k->instance >= first->ninst)
                    continue;
                kept++;
                for (int u = 0; u < first->ntasks; u++)
                    if (first->task[u].instance == k->instance)
                        assert_true(k->start >= first->task[u].end - 1e-9);
            }
            ms_schedule_free(j);
        }
        ms_initial_fini(&l);
        ms_schedule_free(first);
        ms_schedule_free(a);
        ms_schedule_free(b);
        ms_workload_free(wa);
        ms_workload_free(wb);
        ms_workload_free(w);
    }
    printf("tasks of a batch run on an instance of the running plan: %d\n", kept);
    assert_true(kept > 0);
}

/* A 2g task, then a batch of one more once it is done: the batch keeps the idle 2g
 * instance (no destruction, no creation) and its task starts at `now`, where the batch
 * planned from empty GPUs waits for a destruction and a creation. */
static void test_keeps_idle_instance(void **state)
{
    (void)state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = ms_workload_new();
    ms_error err;
    double t[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        t[s] = s == 2 ? 10 : INFINITY;
    assert_int_equal(ms_workload_add(w, "x", t, NULL, NULL, &err), MS_OK);
    ms_schedule *a = plan("search", w, gpu, 1);
    ms_schedule *first = join(NULL, 0, a, w, 0, MS_CONCAT_OVERLAP);
    double now = ms_schedule_makespan(first) + 1;
    ms_initial l;
    ms_initial_init(&l);
    assert_int_equal(ms_schedule_join_layout(first, now, &l, &err), MS_OK);
    assert_int_equal(l.n, 1);
    assert_true(l.inst[0].busy_until == 0);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.initial = &l;
    ms_schedule *b, *empty = plan("far", w, gpu, 1); /* far charges every creation */
    assert_int_equal(ms_offline_schedule("search", w, gpu, 1, &o, &b, &err), MS_OK);
    ms_schedule *kept = join(first, now, b, w, 1, MS_CONCAT_OVERLAP);
    ms_schedule *made = join(first, now, empty, w, 1, MS_CONCAT_OVERLAP);
    assert_int_equal(kept->ninst, 1);
    assert_int_equal(kept->task[1].instance, 0);
    assert_true(kept->task[1].start == now);
    assert_int_equal(made->ninst, 2); /* destroyed and made again */
    assert_true(made->task[1].start >=
                now + ms_gpu_destroy_time(gpu, 2) + ms_gpu_create_time(gpu, 2));
    ms_initial_fini(&l);
    ms_schedule_free(kept);
    ms_schedule_free(made);
    ms_schedule_free(b);
    ms_schedule_free(empty);
    ms_schedule_free(first);
    ms_schedule_free(a);
    ms_workload_free(w);
}

static void test_other_gpu_refused(void **state)
{
    (void)state;
    const ms_gpu_model *a30 = ms_gpu_builtin("A30-24GB");
    ms_workload *w = ms_workload_new();
    ms_error err;
    double t[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        t[s] = 5;
    assert_int_equal(ms_workload_add(w, "x", t, NULL, NULL, &err), MS_OK);
    ms_schedule *one = plan("far", w, a30, 1), *two = plan("far", w, a30, 2), *out = NULL;
    ms_offline_options o;
    ms_offline_options_init(&o);
    assert_int_equal(ms_schedule_join(one, 0, two, w, 1, &o, &out, &err), MS_EINVAL);
    assert_null(out);
    assert_non_null(strstr(err.msg, "different GPUs"));
    ms_schedule_free(one);
    ms_schedule_free(two);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_property),
        cmocka_unit_test(test_starts_beside_long_task),
        cmocka_unit_test(test_other_gpu_refused),
        cmocka_unit_test(test_property_from_layout),
        cmocka_unit_test(test_keeps_idle_instance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
