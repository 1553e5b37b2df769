/* test_env_follow.c: FAR's plans carried out in the environment by the follower (the
 * demonstrations of `train --demonstrate-share`): every action it gives is allowed, the
 * episode it plays validates and ends near FAR's makespan, and with every partition an
 * action and instances created on use it repeats FAR's plan exactly, task by task, on
 * every preset of the A100 and the A30;
 * a static plan of distinct tasks is replayed exactly (checked by hand); plans it cannot
 * follow are refused by name. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/env.h"
#include "migsched/offline.h"
#include "migsched/workload.h"
#include "support.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_env *make_env(bool async, bool online)
{
    ms_env_config c;
    ms_env_config_default(&c);
    c.async_reconfig = async;
    c.encoding = async ? MS_ENC_EXACT : MS_ENC_FLOAT;
    c.online = online;
    ms_env *e = ms_env_new(a100(), &c, NULL);
    assert_non_null(e);
    return e;
}

static ms_schedule *far_plan(const ms_workload *w)
{
    ms_schedule *s = NULL;
    ms_error err;
    if (ms_far_plan(w, a100(), &s, &err))
        fail_msg("far: %s", err.msg);
    return s;
}

/* Follows s in e from its start to the end, every action checked against the mask; the
 * makespan. */
static double follow(ms_env *e, const ms_workload *w, const ms_schedule *s)
{
    ms_env_follow f;
    ms_error err;
    assert_int_equal(ms_env_reset(e, w, NULL), MS_OK);
    if (ms_env_follow_start(&f, e, s, &err))
        fail_msg("follow: %s", err.msg);
    uint8_t mask[1024];
    assert_true(ms_env_num_actions(e) <= (int)sizeof mask);
    bool done = false;
    for (int steps = 0; !done; steps++) {
        int a = ms_env_follow_action(&f, e);
        assert_true(a >= 0);
        ms_env_mask(e, mask);
        assert_true(mask[a]);
        ms_env_step(e, a, &done);
        assert_true(steps < 1000);
    }
    assert_int_equal(f.n, 0);
    assert_int_equal(ms_env_follow_action(&f, e), -1); /* the plan is complete */
    ms_schedule *got = NULL;
    assert_int_equal(ms_env_to_schedule(e, "followed", &got, NULL), MS_OK);
    ms_validation v;
    if (ms_schedule_validate(got, w, &v))
        fail_msg("the followed plan breaks %s: %s", v.v[0].rule, v.v[0].msg);
    ms_validation_fini(&v);
    ms_schedule_free(got);
    return ms_env_now(e);
}

typedef int (*planner)(const ms_workload *, const ms_gpu_model *, ms_schedule **, ms_error *);

/* Batches of every Table 4 type, shuffled and class-sorted, planned by plan and followed in
 * e: the mean of followed makespan / plan makespan. */
static double plans_followed(planner plan, ms_env *e, ms_rng *rng)
{
    const char *presets[] = {"POORSCALING", "GOODSCALING", "MIXSCALINGUNIFORM", "MIXSCALINGEXTREME",
                             "WIDETIMES"};
    double ratio = 0;
    int n = 0;
    for (int p = 0; p < 5; p++)
        for (int sorted = 0; sorted < 2; sorted++) {
            ms_gen_params gen;
            assert_int_equal(ms_gen_preset(a100(), presets[p], &gen, NULL), MS_OK);
            gen.class_order = sorted;
            ms_workload *all = NULL;
            assert_int_equal(ms_generate(a100(), &gen, 100, rng, &all, NULL), MS_OK);
            for (int from = 0; from < 100; from += 14) {
                ms_workload *b = ms_workload_slice(all, from, 14);
                ms_schedule *s = NULL;
                ms_error err;
                if (plan(b, a100(), &s, &err))
                    fail_msg("plan: %s", err.msg);
                ratio += follow(e, b, s) / ms_schedule_makespan(s);
                n++;
                ms_schedule_free(s);
                ms_workload_free(b);
            }
            ms_workload_free(all);
        }
    return ratio / n;
}

/* FAR's plans, synchronous and asynchronous reconfigurations: followed, they end near FAR's
 * own makespans (the environment's classes and clock differ a little: 0.7 % and 0.5 % on
 * the mean here). */
static void test_far_plans_followed(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    for (int async = 0; async < 2; async++) {
        ms_env *e = make_env(async, false);
        double ratio = plans_followed(ms_far_plan, e, &rng);
        assert_true(ratio > 0.97 && ratio < 1.04);
        ms_env_free(e);
    }
}

/* The settings under which the follower carries a plan out as it is: every partition an
 * action, the useless ones kept, reconfigurations that do not stop the clock, instances
 * created when a task is placed on them, and a class per task (the levels and the
 * encoding do not matter: 14, FLOAT). */
static ms_env *make_exact_env(const ms_gpu_model *g)
{
    ms_env_config c;
    ms_env_config_default(&c);
    c.every_partition = c.keep_useless = c.async_reconfig = c.create_on_use = c.task_classes = true;
    ms_env *e = ms_env_new(g, &c, NULL);
    assert_non_null(e);
    return e;
}

/* FAR's plans of 1..14 tasks of every preset the GPU takes (the pathological ones need a
 * 3g, which the A30 lacks), followed under those settings: each task starts on an instance
 * of its plan's size and slot at its plan's start, so the makespans are equal (1e-9
 * relative), and every episode validates (follow). Without every_partition (a 3g@0 stood
 * for by a 4g, a placement of a symmetry class that is not the plan's) many of these
 * differ, and without create_on_use (a full partition's instances beyond the plan's
 * created first) or task_classes (two tasks of equal levels swapped) a few. */
static void test_far_plans_repeated_exactly(void **state)
{
    (void)state;
    const char *gpus[] = {"A100-40GB", "A30-24GB"};
    int runs = 0;
    for (int gi = 0; gi < 2; gi++) {
        const ms_gpu_model *g = ms_gpu_builtin(gpus[gi]);
        ms_env *e = make_exact_env(g);
        ms_rng rng;
        ms_rng_seed(&rng, 21);
        for (const char *const *p = ms_gen_preset_names(); *p; p++) {
            ms_gen_params gen;
            if (ms_gen_preset(g, *p, &gen, NULL))
                continue;
            for (int n = 1; n <= 14; n++)
                for (int rep = 0; rep < 3; rep++) {
                    ms_workload *w = NULL;
                    assert_int_equal(ms_generate(g, &gen, n, &rng, &w, NULL), MS_OK);
                    ms_schedule *s = NULL, *got = NULL;
                    ms_error err;
                    if (ms_far_plan(w, g, &s, &err))
                        fail_msg("far: %s", err.msg);
                    double want = ms_schedule_makespan(s);
                    double makespan = follow(e, w, s);
                    if (fabs(makespan - want) > 1e-9 * want)
                        fail_msg("%s %s, %d tasks: followed %.12g, FAR %.12g", gpus[gi], *p, n,
                                 makespan, want);
                    assert_int_equal(ms_env_to_schedule(e, "followed", &got, NULL), MS_OK);
                    double start[MS_FOLLOW_MAX_TASKS];
                    int size[MS_FOLLOW_MAX_TASKS], slot[MS_FOLLOW_MAX_TASKS];
                    for (int t = 0; t < s->ntasks; t++) {
                        const ms_sched_instance *in = &s->inst[s->task[t].instance];
                        start[s->task[t].index] = s->task[t].start;
                        size[s->task[t].index] = g->profiles[in->profile].slices;
                        slot[s->task[t].index] = in->start_slot;
                    }
                    for (int t = 0; t < got->ntasks; t++) {
                        const ms_sched_task *x = &got->task[t];
                        const ms_sched_instance *in = &got->inst[x->instance];
                        assert_near(x->start, start[x->index], 1e-9 * want);
                        assert_int_equal(g->profiles[in->profile].slices, size[x->index]);
                        assert_int_equal(in->start_slot, slot[x->index]);
                    }
                    runs++;
                    ms_schedule_free(got);
                    ms_schedule_free(s);
                    ms_workload_free(w);
                }
        }
        ms_env_free(e);
    }
    assert_int_equal(runs, 2 * 14 * 3 * 10 - 14 * 3 * 3); /* the A30 takes 7 presets of 10 */
}

/* Without every_partition the follower stands in: FAR's plans of these GOODSCALING
 * batches end elsewhere for some. */
static void test_far_plans_not_exact_by_default(void **state)
{
    (void)state;
    ms_env_config c;
    ms_env_config_default(&c);
    c.async_reconfig = c.keep_useless = true;
    c.encoding = MS_ENC_EXACT;
    c.levels = 250;
    ms_env *e = ms_env_new(a100(), &c, NULL);
    assert_non_null(e);
    ms_rng rng;
    ms_rng_seed(&rng, 21);
    ms_gen_params gen;
    assert_int_equal(ms_gen_preset(a100(), "GOODSCALING", &gen, NULL), MS_OK);
    int differ = 0;
    for (int rep = 0; rep < 10; rep++) {
        ms_workload *w = NULL;
        assert_int_equal(ms_generate(a100(), &gen, 10, &rng, &w, NULL), MS_OK);
        ms_schedule *s = far_plan(w);
        differ += fabs(follow(e, w, s) - ms_schedule_makespan(s)) > 1e-9 * ms_schedule_makespan(s);
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    assert_true(differ > 0);
    ms_env_free(e);
}

/* The search scheduler's plans (`train --demonstrator search`), in the environment such
 * training uses (asynchronous reconfigurations, exact times, a class's longest task
 * first): every action allowed, every episode valid; they lose more than FAR's to the
 * environment's phases (2.7 % on the mean here), as their instances change in more
 * places, and less where reconfigurations take the placement that frees soonest (1.6 %). */
static void test_search_plans_followed(void **state)
{
    (void)state;
    double ratio[2];
    for (int soonest = 0; soonest < 2; soonest++) {
        ms_rng rng;
        ms_rng_seed(&rng, 12);
        ms_env_config c;
        ms_env_config_default(&c);
        c.async_reconfig = c.longest_first = true;
        c.soonest_placement = soonest;
        c.encoding = MS_ENC_EXACT;
        ms_env *e = ms_env_new(a100(), &c, NULL);
        assert_non_null(e);
        ratio[soonest] = plans_followed(ms_search_plan, e, &rng);
        assert_true(ratio[soonest] > 0.97 && ratio[soonest] < 1.06);
        ms_env_free(e);
    }
    assert_true(ratio[1] < ratio[0]);
}

/* By hand: 4g@0 runs a (10 s) then b (20 s), 3g@4 runs c (12 s) then d (15 s). The
 * environment creates the 4g then the 3g and, reconfigurations stopping its clock, starts
 * a and c when both exist: a, b end at create(4) + create(3) + 30 s, the makespan. */
static void test_static_plan_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *g = a100();
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "a", 4, 10);
    test_add_only_task(w, "b", 4, 20);
    test_add_only_task(w, "c", 3, 12);
    test_add_only_task(w, "d", 3, 15);
    ms_schedule *s = ms_schedule_new(g, 1, "by-hand");
    int p4 = ms_gpu_profile_by_name(g, "4g.20gb"), p3 = ms_gpu_profile_by_name(g, "3g.20gb");
    double c4 = ms_gpu_create_time(g, 4), c3 = ms_gpu_create_time(g, 3);
    int i4 = ms_schedule_add_instance(s, 0, p4, 0, 0, c4, NAN, NAN);
    int i3 = ms_schedule_add_instance(s, 0, p3, 4, c4, c4 + c3, NAN, NAN);
    assert_int_equal(ms_schedule_add_task(s, 0, i4, c4, c4 + 10), 0);
    assert_int_equal(ms_schedule_add_task(s, 1, i4, c4 + 10, c4 + 30), 0);
    assert_int_equal(ms_schedule_add_task(s, 2, i3, c4 + c3, c4 + c3 + 12), 0);
    assert_int_equal(ms_schedule_add_task(s, 3, i3, c4 + c3 + 12, c4 + c3 + 27), 0);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
    ms_env *e = make_env(false, false);
    assert_near(follow(e, w, s), c4 + c3 + 30, 1e-9);
    ms_schedule *got = NULL;
    assert_int_equal(ms_env_to_schedule(e, "followed", &got, NULL), MS_OK);
    double start[4];
    for (int t = 0; t < got->ntasks; t++)
        start[got->task[t].index] = got->task[t].start;
    assert_near(start[0], c4 + c3, 1e-9);
    assert_near(start[1], c4 + c3 + 10, 1e-9);
    assert_near(start[2], c4 + c3, 1e-9);
    assert_near(start[3], c4 + c3 + 12, 1e-9);
    assert_int_equal(ms_env_reconfigurations(e), 1);
    ms_schedule_free(got);
    ms_schedule_free(s);
    ms_env_free(e);
    ms_workload_free(w);
}

/* A task of t seconds on 3 or 4 slices. */
static void add_3g_or_4g_task(ms_workload *w, const char *name, double t)
{
    double time[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        time[s] = s == 3 || s == 4 ? t : INFINITY;
    assert_int_equal(ms_workload_add(w, name, time, NULL, NULL, NULL), MS_OK);
}

/* By hand, a task waiting for its own instance: the plan's 3g@0 runs a (10 s) then, after
 * 2 s idle, d (100 s); its 3g@4 runs b (12 s) then c (50 s). The environment holds them
 * as 4g@0 (the canonical set has no 3g@0) and 3g@4, created by T = create(4) + create(3).
 * c comes first in start order (both start at 12 s, c has the lower index); when a ends,
 * c's own 3g@4 is 2 s from free, within a tenth of c's 50 s, so c waits for it and d takes
 * the free 4g@0 at once: the makespan is T + 110. c on the free 4g@0 (the follower before
 * this rule) would leave d to 3g@4 at T + 12 and end at T + 112. */
static void test_waits_for_its_own_instance(void **state)
{
    (void)state;
    const ms_gpu_model *g = a100();
    ms_workload *w = ms_workload_new();
    add_3g_or_4g_task(w, "a", 10);
    add_3g_or_4g_task(w, "b", 12);
    add_3g_or_4g_task(w, "c", 50);
    add_3g_or_4g_task(w, "d", 100);
    ms_schedule *s = ms_schedule_new(g, 1, "by-hand");
    int p3 = ms_gpu_profile_by_name(g, "3g.20gb");
    double c3 = ms_gpu_create_time(g, 3), t = 2 * c3;
    int i0 = ms_schedule_add_instance(s, 0, p3, 0, 0, c3, NAN, NAN);
    int i4 = ms_schedule_add_instance(s, 0, p3, 4, c3, t, NAN, NAN);
    double te = ms_gpu_create_time(g, 4) + c3; /* T in the environment */
    assert_int_equal(ms_schedule_add_task(s, 0, i0, t, t + 10), 0);
    assert_int_equal(ms_schedule_add_task(s, 1, i4, t, t + 12), 0);
    assert_int_equal(ms_schedule_add_task(s, 2, i4, t + 12, t + 62), 0);
    assert_int_equal(ms_schedule_add_task(s, 3, i0, t + 12, t + 112), 0);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
    ms_env_config cfg;
    ms_env_config_default(&cfg);
    cfg.encoding = MS_ENC_EXACT; /* a class per task */
    ms_env *e = ms_env_new(g, &cfg, NULL);
    assert_non_null(e);
    assert_near(follow(e, w, s), te + 110, 1e-9);
    ms_schedule *got = NULL;
    assert_int_equal(ms_env_to_schedule(e, "followed", &got, NULL), MS_OK);
    double start[4];
    int slot[4];
    for (int k = 0; k < got->ntasks; k++) {
        start[got->task[k].index] = got->task[k].start;
        slot[got->task[k].index] = got->inst[got->task[k].instance].start_slot;
    }
    assert_near(start[2], te + 12, 1e-9);
    assert_int_equal(slot[2], 4);
    assert_near(start[3], te + 10, 1e-9);
    assert_int_equal(slot[3], 0);
    ms_schedule_free(got);
    ms_schedule_free(s);
    ms_env_free(e);
    ms_workload_free(w);
}

/* Refused by name: an episode under way, an online environment, a plan of other tasks. */
static void test_refusals(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    ms_gen_params gen;
    assert_int_equal(ms_gen_preset(a100(), "GOODSCALING", &gen, NULL), MS_OK);
    ms_workload *w = NULL, *fewer = NULL;
    assert_int_equal(ms_generate(a100(), &gen, 6, &rng, &w, NULL), MS_OK);
    fewer = ms_workload_slice(w, 0, 5);
    ms_schedule *s = far_plan(w), *s5 = far_plan(fewer);
    ms_env *e = make_env(false, false), *on = make_env(false, true);
    ms_env_follow f;
    ms_error err;
    assert_int_equal(ms_env_reset(e, w, NULL), MS_OK);
    assert_int_equal(ms_env_follow_start(&f, e, s5, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "not one of this episode's 6 tasks"));
    bool done;
    assert_int_equal(ms_env_follow_start(&f, e, s, NULL), MS_OK);
    ms_env_step(e, ms_env_follow_action(&f, e), &done);
    assert_int_equal(ms_env_follow_start(&f, e, s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "at its start"));
    assert_int_equal(ms_env_reset(on, w, NULL), MS_OK);
    assert_int_equal(ms_env_follow_start(&f, on, s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "offline"));
    ms_env_free(e);
    ms_env_free(on);
    ms_schedule_free(s);
    ms_schedule_free(s5);
    ms_workload_free(w);
    ms_workload_free(fewer);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_far_plans_followed),
        cmocka_unit_test(test_far_plans_repeated_exactly),
        cmocka_unit_test(test_far_plans_not_exact_by_default),
        cmocka_unit_test(test_search_plans_followed),
        cmocka_unit_test(test_static_plan_by_hand),
        cmocka_unit_test(test_waits_for_its_own_instance),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
