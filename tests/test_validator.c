/* test_validator.c: one invalid schedule per validity rule, each rejected for that rule
 * only; valid schedules (initial instances, several GPUs, touching intervals) accepted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/schedule.h"
#include "support.h"

static const ms_gpu_model *A100(void) { return ms_gpu_builtin("A100-40GB"); }
static int prof(const char *name) { return ms_gpu_profile_by_name(A100(), name); }

/* a, b, c with times on 1, 2, 3, 4, 7 slices. */
static ms_workload *workload3(void)
{
    static const double t[3][5] = {{4, 2, 2, 1, 1}, {6, 3, 2, 2, 1}, {2, 1, 1, 1, 1}};
    static const int sz[5] = {1, 2, 3, 4, 7};
    static const char *names[3] = {"a", "b", "c"};
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < 3; i++) {
        double time[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            time[s] = INFINITY;
        for (int k = 0; k < 5; k++)
            time[sz[k]] = t[i][k];
        assert_int_equal(ms_workload_add(w, names[i], time, NULL, NULL, NULL), 0);
    }
    return w;
}

/* 4g@0 runs a then is destroyed; 3g@4 runs b; 2g@0 is created on the freed slots for c.
 * A100 times: create 4g 0.21, 3g 0.20, 2g 0.17; destroy 4g 0.21. */
static ms_schedule *base(void)
{
    ms_schedule *s = ms_schedule_new(A100(), 1, "test");
    assert_int_equal(ms_schedule_add_instance(s, 0, prof("4g.20gb"), 0, 0, 0.21, 1.21, 1.42), 0);
    assert_int_equal(ms_schedule_add_instance(s, 0, prof("3g.20gb"), 4, 0.21, 0.41, NAN, NAN), 1);
    assert_int_equal(ms_schedule_add_instance(s, 0, prof("2g.10gb"), 0, 1.42, 1.59, NAN, NAN), 2);
    assert_int_equal(ms_schedule_add_task(s, 0, 0, 0.21, 1.21), 0);
    assert_int_equal(ms_schedule_add_task(s, 1, 1, 0.41, 2.41), 0);
    assert_int_equal(ms_schedule_add_task(s, 2, 2, 1.59, 2.59), 0);
    return s;
}

static void print_violations(const ms_validation *v)
{
    for (int i = 0; i < v->n; i++)
        print_message("  [%s] %s\n", v->v[i].rule, v->v[i].msg);
}

/* Rejected, every violation of the given rule; returns the first message. */
static void expect_only(ms_schedule *s, const char *rule, const char *msg_part)
{
    ms_workload *w = workload3();
    ms_validation v;
    int n = ms_schedule_validate(s, w, &v);
    print_violations(&v);
    assert_true(n >= 1);
    assert_int_equal(n, v.n);
    for (int i = 0; i < v.n; i++)
        assert_string_equal(v.v[i].rule, rule);
    if (msg_part)
        assert_non_null(strstr(v.v[0].msg, msg_part));
    ms_validation_fini(&v);
    ms_workload_free(w);
    ms_schedule_free(s);
}

static void expect_valid(ms_schedule *s, ms_workload *w)
{
    ms_validation v;
    int n = ms_schedule_validate(s, w, &v);
    print_violations(&v);
    assert_int_equal(n, 0);
    ms_validation_fini(&v);
    ms_schedule_free(s);
    ms_workload_free(w);
}

static void test_base_valid(void **st)
{
    (void)st;
    expect_valid(base(), workload3());
}

static void test_missing(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->ntasks = 2;
    expect_only(s, MS_RULE_TASK_MISSING, "task 2 (c)");
}

static void test_duplicate(void **st)
{
    (void)st;
    ms_schedule *s = base();
    ms_schedule_add_task(s, 2, 1, 2.41, 3.41); /* c again, on 3g after b */
    expect_only(s, MS_RULE_TASK_DUPLICATE, "task 2 (c) scheduled again at 2.41");
}

static void test_bad_index(void **st)
{
    (void)st;
    ms_schedule *s = base();
    ms_schedule_add_task(s, 7, 1, 2.41, 3.41);
    expect_only(s, MS_RULE_TASK_DUPLICATE, "task index 7");
}

static void test_duration(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[0].end = 1.11; /* a needs 1 s on 4 slices */
    expect_only(s, MS_RULE_TASK_DURATION, "task 0 (a)");
}

static void test_duration_cannot_run(void **st)
{
    (void)st;
    ms_workload *w = workload3();
    w->tasks[2].time[2] = INFINITY; /* c does not fit 2g */
    ms_schedule *s = base();
    ms_validation v;
    assert_int_equal(ms_schedule_validate(s, w, &v), 1);
    assert_string_equal(v.v[0].rule, MS_RULE_TASK_DURATION);
    assert_non_null(strstr(v.v[0].msg, "cannot run on 2 slices"));
    ms_validation_fini(&v);
    ms_schedule_free(s);
    ms_workload_free(w);
}

static void test_duration_tolerance(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[2].end = 2.59 + 5e-10; /* c: relative error 5e-10 <= 1e-9: accepted */
    expect_valid(s, workload3());
    s = base();
    s->task[2].end = 2.59 + 1e-8;
    expect_only(s, MS_RULE_TASK_DURATION, NULL);
}

static void test_placement(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[1].start_slot = 3; /* 3g starts at 0 or 4 */
    expect_only(s, MS_RULE_PLACEMENT, "instance 1 (gpu 0, 3g.20gb@3)");
}

static void test_placement_gpu(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[1].gpu = 1; /* the schedule has one GPU */
    expect_only(s, MS_RULE_PLACEMENT, "gpu 1 outside 0..0");
}

static void test_instance_overlap(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[2] = (ms_sched_task){2, 1, 2.0, 3.0, NULL}; /* c on 3g while b runs until 2.41 */
    expect_only(s, MS_RULE_INSTANCE_OVERLAP, "task 1 (b) (0.41-2.41) overlaps task 2 (c)");
}

static void test_lifetime_before_creation(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[1].start = 0.30; /* 3g ready at 0.41 */
    s->task[1].end = 2.30;
    expect_only(s, MS_RULE_TASK_LIFETIME, "before its creation ends at 0.41");
}

static void test_lifetime_after_destruction(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[2] = (ms_sched_task){2, 0, 1.30, 2.30, NULL}; /* c on 4g after destroy_start 1.21 */
    expect_only(s, MS_RULE_TASK_LIFETIME, "after its destruction began at 1.21");
}

static void test_slot_conflict(void **st)
{
    (void)st;
    ms_schedule *s = base();
    /* 2g@0 created while 4g@0 (slots 0-3) is still alive, between other reconfigurations */
    s->inst[2].create_start = 0.41;
    s->inst[2].create_end = 0.58;
    s->task[2].start = 0.58;
    s->task[2].end = 1.58;
    expect_only(s, MS_RULE_SLOT_CONFLICT, "instance 0 (gpu 0, 4g.20gb@0) alive 0-1.42");
}

static void test_slot_conflict_initial(void **st)
{
    (void)st;
    ms_schedule *s = base();
    /* an initial 1g@6 alive forever collides with 3g@4 (slots 4-7) */
    ms_schedule_add_instance(s, 0, prof("1g.5gb"), 6, NAN, NAN, NAN, NAN);
    expect_only(s, MS_RULE_SLOT_CONFLICT, "1g.5gb@6");
}

/* 7g@0 and 4g@0 share four slots: one violation, not one per slot. */
static void test_slot_conflict_reported_once(void **st)
{
    (void)st;
    ms_schedule *s = ms_schedule_new(A100(), 1, "test");
    ms_schedule_add_instance(s, 0, prof("7g.40gb"), 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_instance(s, 0, prof("4g.20gb"), 0, 0.24, 0.45, NAN, NAN);
    ms_schedule_add_task(s, 0, 0, 0.24, 1.24);
    ms_schedule_add_task(s, 1, 1, 0.45, 2.45);
    ms_schedule_add_task(s, 2, 0, 1.24, 2.24);
    expect_only(s, MS_RULE_SLOT_CONFLICT,
                "instance 0 (gpu 0, 7g.40gb@0) alive 0-end and instance 1");
    ms_workload *w = workload3();
    s = ms_schedule_new(A100(), 1, "test");
    ms_schedule_add_instance(s, 0, prof("7g.40gb"), 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_instance(s, 0, prof("4g.20gb"), 0, 0.24, 0.45, NAN, NAN);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 3 + 1); /* 3 missing + 1 conflict */
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Thousands of violations: all counted, the first 1000 kept. */
static void test_many_violations(void **st)
{
    (void)st;
    ms_workload *w = ms_workload_new();
    double t[MS_MAX_SLICES + 1];
    for (int k = 0; k <= MS_MAX_SLICES; k++)
        t[k] = 1;
    for (int i = 0; i < 1500; i++)
        ms_workload_add(w, "x", t, NULL, NULL, NULL);
    ms_schedule *s = ms_schedule_new(A100(), 1, "test");
    ms_validation v;
    assert_int_equal(ms_schedule_validate(s, w, &v), 1500);
    assert_int_equal(v.n, 1000);
    assert_string_equal(v.v[999].rule, MS_RULE_TASK_MISSING);
    assert_non_null(strstr(v.v[999].msg, "task 999 (x)"));
    ms_validation_fini(&v);
    ms_schedule_free(s);
    ms_workload_free(w);
}

static void test_reconfig_serial(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[1].create_start = 0.10; /* during the 4g creation 0-0.21 */
    s->inst[1].create_end = 0.30;
    expect_only(s, MS_RULE_RECONFIG_SERIAL, "creation of instance 0");
}

static void test_reconfig_serial_destroy(void **st)
{
    (void)st;
    ms_schedule *s = base();
    /* 3g destroyed after b (2.41-2.62) while the 2g is being created */
    s->inst[1].destroy_start = 2.41;
    s->inst[1].destroy_end = 2.62;
    s->inst[2].create_start = 2.50; /* overlaps the 3g destruction 2.41-2.62 */
    s->inst[2].create_end = 2.67;
    s->task[2].start = 2.67;
    s->task[2].end = 3.67;
    expect_only(s, MS_RULE_RECONFIG_SERIAL, "destruction of instance 1");
}

static void test_reconfig_duration(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[1].create_end = 0.30; /* 3g creation takes 0.20 s */
    expect_only(s, MS_RULE_RECONFIG_DURATION, "below 0.2 s");
}

static void test_destroy_before_task(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[0].destroy_start = 1.10; /* a runs until 1.21 */
    s->inst[0].destroy_end = 1.31;
    expect_only(s, MS_RULE_DESTROY_BEFORE_TASK,
                "destroyed from 1.1 while task 0 (a) runs until 1.21");
}

static void test_times_null_pair(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[1].destroy_start = 3.0; /* destroy_end stays null */
    expect_only(s, MS_RULE_TIMES, "both numbers or both null");
}

static void test_times_negative(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->inst[0].create_start = -0.5;
    expect_only(s, MS_RULE_TIMES, NULL);
}

static void test_times_task_unordered(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[1].start = 2.41;
    s->task[1].end = 0.41;
    expect_only(s, MS_RULE_TIMES, "task 1 (b): start 2.41, end 0.41");
}

static void test_task_instance(void **st)
{
    (void)st;
    ms_schedule *s = base();
    s->task[2].instance = 9;
    expect_only(s, MS_RULE_TASK_INSTANCE, "instance 9 does not exist");
}

/* An instance present before the plan (null creation) runs c and is destroyed for the 4g. */
static void test_initial_valid(void **st)
{
    (void)st;
    ms_schedule *s = ms_schedule_new(A100(), 1, "test");
    ms_schedule_add_instance(s, 0, prof("2g.10gb"), 0, NAN, NAN, 1.0, 1.2);
    ms_schedule_add_instance(s, 0, prof("4g.20gb"), 0, 1.2, 1.41, NAN, NAN);
    ms_schedule_add_instance(s, 0, prof("3g.20gb"), 4, 0, 0.2, NAN, NAN);
    ms_schedule_add_task(s, 2, 0, 0, 1);
    ms_schedule_add_task(s, 0, 1, 1.41, 2.41);
    ms_schedule_add_task(s, 1, 2, 0.2, 2.2);
    expect_valid(s, workload3());
}

/* Two GPUs: same slots and simultaneous reconfigurations on different GPUs are fine. */
static void test_two_gpus_valid(void **st)
{
    (void)st;
    ms_schedule *s = ms_schedule_new(A100(), 2, "test");
    ms_schedule_add_instance(s, 0, prof("7g.40gb"), 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_instance(s, 1, prof("7g.40gb"), 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_task(s, 0, 0, 0.24, 1.24);
    ms_schedule_add_task(s, 2, 0, 1.24, 2.24);
    ms_schedule_add_task(s, 1, 1, 0.24, 1.24);
    expect_valid(s, workload3());
    /* the same on one GPU breaks three rules at once */
    s = ms_schedule_new(A100(), 2, "test");
    ms_schedule_add_instance(s, 0, prof("7g.40gb"), 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_instance(s, 0, prof("7g.40gb"), 0, 0, 0.24, NAN, NAN);
    ms_schedule_add_task(s, 0, 0, 0.24, 1.24);
    ms_schedule_add_task(s, 2, 0, 1.24, 2.24);
    ms_schedule_add_task(s, 1, 1, 0.24, 1.24);
    ms_workload *w = workload3();
    ms_validation v;
    assert_int_equal(ms_schedule_validate(s, w, &v), 2);
    assert_string_equal(v.v[0].rule, MS_RULE_SLOT_CONFLICT);
    assert_string_equal(v.v[1].rule, MS_RULE_RECONFIG_SERIAL);
    ms_validation_fini(&v);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Many tasks one after another on seven 1g instances: valid, and a late overlap found. */
static void test_large(void **st)
{
    (void)st;
    enum { N = 20000 };
    ms_workload *w = ms_workload_new();
    double time[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = 1.0 / (s ? s : 1);
    char name[16];
    for (int i = 0; i < N; i++) {
        snprintf(name, sizeof name, "t%d", i);
        ms_workload_add(w, name, time, NULL, NULL, NULL);
    }
    ms_schedule *s = ms_schedule_new(A100(), 1, "test");
    double t = 0;
    for (int k = 0; k < 7; k++, t += 0.16)
        ms_schedule_add_instance(s, 0, prof("1g.5gb"), k, t, t + 0.16, NAN, NAN);
    double ready[7];
    for (int k = 0; k < 7; k++)
        ready[k] = s->inst[k].create_end;
    for (int i = N - 1; i >= 0; i--) { /* reverse order: the validator must sort */
        int k = i % 7;
        ms_schedule_add_task(s, i, k, ready[k], ready[k] + 1.0);
        ready[k] += 1.0;
    }
    ms_validation v;
    assert_int_equal(ms_schedule_validate(s, w, &v), 0);
    ms_validation_fini(&v);
    s->task[N - 1].start -= 0.5; /* the last task on its instance now overlaps the one before */
    s->task[N - 1].end -= 0.5;
    assert_int_equal(ms_schedule_validate(s, w, &v), 1);
    assert_string_equal(v.v[0].rule, MS_RULE_INSTANCE_OVERLAP);
    ms_validation_fini(&v);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* True when some violation of v has the rule. */
static bool has_rule(const ms_validation *v, const char *rule)
{
    for (int i = 0; i < v->n; i++)
        if (!strcmp(v->v[i].rule, rule))
            return true;
    return false;
}

/* Applies mutate(s, k) to a fresh base schedule for every k below count and checks that
 * the rule is among the violations found. */
static void mutate_all(int count, void (*mutate)(ms_schedule *, int), const char *rule)
{
    ms_workload *w = workload3();
    for (int k = 0; k < count; k++) {
        ms_schedule *s = base();
        mutate(s, k);
        ms_validation v;
        ms_schedule_validate(s, w, &v);
        if (!has_rule(&v, rule))
            print_message("mutation %d: %s not found\n", k, rule);
        assert_true(has_rule(&v, rule));
        ms_validation_fini(&v);
        ms_schedule_free(s);
    }
    ms_workload_free(w);
}

static void longer_task(ms_schedule *s, int k) { s->task[k].end += 0.5; }
static void early_task(ms_schedule *s, int k)
{
    s->task[k].start -= 0.1;
    s->task[k].end -= 0.1;
}
static void drop_task(ms_schedule *s, int k) { s->task[k].index = 3; }
static void short_creation(ms_schedule *s, int k)
{
    s->inst[k].create_end = s->inst[k].create_start + 0.05;
}
static void bad_slot(ms_schedule *s, int k) { s->inst[k].start_slot = 7; }
static void early_destroy(ms_schedule *s, int k)
{
    s->inst[k].destroy_start = s->inst[k].create_end + 0.3;
    s->inst[k].destroy_end = s->inst[k].destroy_start + 0.25;
}

/* Every single mutation of one kind, on every task or instance, is caught by its rule. */
static void test_mutations(void **st)
{
    (void)st;
    mutate_all(3, longer_task, MS_RULE_TASK_DURATION);
    mutate_all(3, early_task, MS_RULE_TASK_LIFETIME); /* every task starts at create_end */
    mutate_all(3, drop_task, MS_RULE_TASK_MISSING);
    mutate_all(3, drop_task, MS_RULE_TASK_DUPLICATE);
    mutate_all(3, short_creation, MS_RULE_RECONFIG_DURATION);
    mutate_all(3, bad_slot, MS_RULE_PLACEMENT);
    mutate_all(3, early_destroy, MS_RULE_DESTROY_BEFORE_TASK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_valid),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_duplicate),
        cmocka_unit_test(test_bad_index),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_duration_cannot_run),
        cmocka_unit_test(test_duration_tolerance),
        cmocka_unit_test(test_placement),
        cmocka_unit_test(test_placement_gpu),
        cmocka_unit_test(test_instance_overlap),
        cmocka_unit_test(test_lifetime_before_creation),
        cmocka_unit_test(test_lifetime_after_destruction),
        cmocka_unit_test(test_slot_conflict),
        cmocka_unit_test(test_slot_conflict_initial),
        cmocka_unit_test(test_slot_conflict_reported_once),
        cmocka_unit_test(test_many_violations),
        cmocka_unit_test(test_reconfig_serial),
        cmocka_unit_test(test_reconfig_serial_destroy),
        cmocka_unit_test(test_reconfig_duration),
        cmocka_unit_test(test_destroy_before_task),
        cmocka_unit_test(test_times_null_pair),
        cmocka_unit_test(test_times_negative),
        cmocka_unit_test(test_times_task_unordered),
        cmocka_unit_test(test_task_instance),
        cmocka_unit_test(test_initial_valid),
        cmocka_unit_test(test_two_gpus_valid),
        cmocka_unit_test(test_large),
        cmocka_unit_test(test_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
