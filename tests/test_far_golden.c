/* test_far_golden.c: FAR on small workloads worked out by hand from paper 000's rules
 * (phases 1-3, the 4-slice node serving 3-slice tasks, infinite times, several GPUs,
 * batch concatenation); every expected number is derived in the comments. */
#include <math.h>
#include <string.h>

#include "support.h"
#include "migsched/offline.h"

#define EPS 1e-9

static ms_schedule *run(const char *algo, const ms_workload *w, const char *gpu, int gpus,
                        const ms_offline_options *opt)
{
    ms_offline_options def;
    ms_offline_options_init(&def);
    ms_schedule *s = NULL;
    ms_error err;
    int rc = ms_offline_schedule(algo, w, ms_gpu_builtin(gpu), gpus, opt ? opt : &def, &s, &err);
    if (rc)
        fail_msg("%s", err.msg);
    ms_validation v = {0};
    int bad = ms_schedule_validate(s, w, &v);
    for (int i = 0; i < v.n; i++)
        print_error("violation %s: %s\n", v.v[i].rule, v.v[i].msg);
    ms_validation_fini(&v);
    assert_int_equal(bad, 0);
    return s;
}

static const ms_sched_task *task_of(const ms_schedule *s, int index)
{
    for (int i = 0; i < s->ntasks; i++)
        if (s->task[i].index == index)
            return &s->task[i];
    fail_msg("task %d missing", index);
    return NULL;
}

/* Asserts task `index` runs on an instance of `slices` at `slot` from `start`. */
static void expect_task(const ms_schedule *s, int index, int slices, int slot, double start)
{
    const ms_sched_task *t = task_of(s, index);
    const ms_sched_instance *in = &s->inst[t->instance];
    assert_int_equal(s->gpu.profiles[in->profile].slices, slices);
    assert_int_equal(in->start_slot, slot);
    assert_near(t->start, start, EPS);
}

static const ms_sched_instance *instance_at(const ms_schedule *s, int gpu, int slices, int slot)
{
    for (int i = 0; i < s->ninst; i++)
        if (s->inst[i].gpu == gpu && s->inst[i].start_slot == slot &&
            s->gpu.profiles[s->inst[i].profile].slices == slices)
            return &s->inst[i];
    fail_msg("no %dg instance at slot %d", slices, slot);
    return NULL;
}

/* A100-40GB (create 3: 0.20, 4: 0.21; destroy 4: 0.21). T0 needs 4 slices (2 s), T1 and T2
 * need 3 (5 s, 4 s). The root is split unused; 4g@0 (node 1) is created 0-0.21 and runs T0
 * to 2.21; 3g@4 is created 0.21-0.41 and runs T1 to 5.41. At 2.21 no 4-slice task is left,
 * so 4g@0 is destroyed 2.21-2.42 and its only child, 3g@0 on the same slots, is created
 * 2.42-2.62 and runs T2 to 6.62 (paper 000 3.2). Refinement: 3g@0's alternative 3g@4 ends
 * at 5.41 (margin 1.21): T2 cannot move and no swap shortens; 4g@0 has no alternative;
 * the root is opened: stop. */
static void test_four_slice_node_runs_three_slice_task(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "T0", 4, 2);
    test_add_only_task(w, "T1", 3, 5);
    test_add_only_task(w, "T2", 3, 4);
    ms_schedule *s = run("far", w, "A100-40GB", 1, NULL);
    assert_near(ms_schedule_makespan(s), 6.62, EPS);
    expect_task(s, 0, 4, 0, 0.21);
    expect_task(s, 1, 3, 4, 0.41);
    expect_task(s, 2, 3, 0, 2.62);
    const ms_sched_instance *four = instance_at(s, 0, 4, 0);
    assert_near(four->destroy_start, 2.21, EPS);
    assert_near(four->destroy_end, 2.42, EPS);
    assert_near(instance_at(s, 0, 3, 0)->create_start, 2.42, EPS);
    assert_true(isnan(instance_at(s, 0, 3, 4)->destroy_start)); /* alive at the end */
    assert_int_equal(s->ninst, 3);
    assert_near(ms_schedule_stat(s, "moves"), 0, 0);
    assert_near(ms_schedule_stat(s, "swaps"), 0, 0);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* The same workload with tie_right_first: after the unused root is split, 4g@0 and 3g@4
 * tie at 0 and 3g@4 goes first: created 0-0.20, it runs T1 to 5.20; 4g@0 is created
 * 0.20-0.41 and runs T0 to 2.41, is destroyed 2.41-2.62 and 3g@0 (created 2.62-2.82) runs
 * T2 to 6.82. Refinement: T2 neither moves nor swaps into 3g@4 (margin 1.62); stop. */
static void test_tie_right_first(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "T0", 4, 2);
    test_add_only_task(w, "T1", 3, 5);
    test_add_only_task(w, "T2", 3, 4);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.far.tie_right_first = 1;
    ms_schedule *s = run("far", w, "A100-40GB", 1, &o);
    assert_near(ms_schedule_makespan(s), 6.82, EPS);
    expect_task(s, 1, 3, 4, 0.20);
    expect_task(s, 0, 4, 0, 0.41);
    expect_task(s, 2, 3, 0, 2.82);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* four_runs_three: T0 runs only on 4 slices (2 s); T1 (3: 5 s, 4: 4 s) and T2 (3: 4 s, 4:
 * 3.5 s) are cheapest on 3 (15 < 16, 12 < 14). Allocation 1: 4g@0 (0-0.21) runs T0 to 2.21,
 * 3g@4 (0.21-0.41) runs T1 to 5.41; at 2.21 no 4-slice task is left and 4g@0 runs T2 at its
 * 4-slice time, 3.5 s, to 5.71 (by default it would be replaced by 3g@0: 6.62). Allocation
 * 2 (T1 on 4 slices) reaches 6.21 >= 5.71 and is cut. The 4g@0 list is kept in decreasing
 * time at 4 slices: T2 0.21-3.71, then T0 to 5.71. By default FAR keeps allocation 2
 * (6.21): 4g@0 runs T1 then T0, 3g@4 runs T2. */
static void test_four_runs_three(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    double t1[MS_MAX_SLICES + 1], t2[MS_MAX_SLICES + 1];
    for (int z = 0; z <= MS_MAX_SLICES; z++)
        t1[z] = t2[z] = INFINITY;
    t1[3] = 5, t1[4] = 4, t2[3] = 4, t2[4] = 3.5;
    test_add_only_task(w, "T0", 4, 2);
    assert_int_equal(ms_workload_add(w, "T1", t1, NULL, NULL, NULL), MS_OK);
    assert_int_equal(ms_workload_add(w, "T2", t2, NULL, NULL, NULL), MS_OK);
    ms_schedule *def = run("far", w, "A100-40GB", 1, NULL);
    assert_near(ms_schedule_makespan(def), 6.21, EPS);
    expect_task(def, 1, 4, 0, 0.21);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.far.four_runs_three = 1;
    ms_schedule *s = run("far", w, "A100-40GB", 1, &o);
    assert_near(ms_schedule_makespan(s), 5.71, EPS);
    expect_task(s, 2, 4, 0, 0.21);
    expect_task(s, 0, 4, 0, 3.71);
    expect_task(s, 1, 3, 4, 0.41);
    assert_int_equal(s->ninst, 2);
    assert_near(ms_schedule_stat(s, "allocations"), 2, 0);
    assert_near(ms_schedule_stat(s, "evaluated"), 2, 0);
    ms_schedule_free(s);
    ms_schedule_free(def);
    ms_workload_free(w);
}

/* The Rodinia sample on an A30 (create 1: 0.11, 2: 0.12; destroy 0.10). lavaMD cannot run on
 * one slice (inf): its smallest area is 2 x 21.697; every other task is cheapest on one slice.
 * Allocation 1: 2g@0 runs lavaMD 0.12-21.817; 2g@2 is split unused, 1g@2 (0.12-0.23) runs
 * gaussian to 22.541 then nw; 1g@3 (0.23-0.34) runs pathfinder to 20.8927 then lu to
 * 29.49148; at 21.817 2g@0 is destroyed (to 21.917) and 1g@0, 1g@1 take heartwall,
 * particlefilter, huffman. Allocation 2 (gaussian on 2 slices, bound 24.8) is tried and
 * gives up once 1g@3 runs past 29.49; allocation 3 (lavaMD on 4 slices) has area / 4 = 31.3
 * and ends the family. Refinement finds neither move nor swap (margin 6.155 < 8.6). */
static void test_rodinia_infinite_size(void **state)
{
    (void)state;
    static const char *names[] = {"particlefilter", "nw",        "lu",       "lavaMD",
                                  "huffman",        "heartwall", "gaussian", "pathfinder"};
    static const double t[8][3] = {{1.26246, 1.1136, 1.18849},    {0.79506, 0.43174, 0.501269},
                                   {8.59878, 8.10589, 8.53057},   {INFINITY, 21.697, 17.3214},
                                   {0.314573, 0.24474, 0.316071}, {1.26794, 1.01038, 1.01767},
                                   {22.3109, 11.517, 6.38692},    {20.5527, 20.4842, 20.6617}};
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < 8; i++) {
        double time[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            time[s] = INFINITY;
        time[1] = t[i][0], time[2] = t[i][1], time[4] = t[i][2];
        assert_int_equal(ms_workload_add(w, names[i], time, NULL, NULL, NULL), MS_OK);
    }
    ms_schedule *s = run("far", w, "A30-24GB", 1, NULL);
    assert_near(ms_schedule_makespan(s), 0.34 + 20.5527 + 8.59878, EPS);
    expect_task(s, 3, 2, 0, 0.12);           /* lavaMD: never on its inf size */
    expect_task(s, 6, 1, 2, 0.23);           /* gaussian */
    expect_task(s, 7, 1, 3, 0.34);           /* pathfinder */
    expect_task(s, 2, 1, 3, 0.34 + 20.5527); /* lu */
    expect_task(s, 5, 1, 0, 22.027);         /* heartwall after 2g@0's destruction */
    assert_near(ms_schedule_stat(s, "allocations"), 3, 0);
    assert_near(ms_schedule_stat(s, "evaluated"), 2, 0);
    assert_near(ms_schedule_stat(s, "moves") + ms_schedule_stat(s, "swaps"), 0, 0);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* A30. J1 = 5 s, J2 = 3 s need 2 slices; K = K2 = 10 s need one. Phase 2: 2g@0 (0-0.12)
 * runs J1 to 5.12, 2g@2 (0.12-0.24) runs J2 to 3.24, is destroyed 3.24-3.34, and 1g@2
 * (3.34-3.45), 1g@3 (3.45-3.56) run K to 13.45 and K2 to 13.56. Refinement: 1g@3 is
 * critical; its alternative is 1g@0 (slice free at 5.12, margin 8.44), which cannot take
 * K2 (10 s); the parent 2g@2 is opened and J2 (3 < 8.44) moves to 2g@0 (ends 8.12). Now
 * 2g@2 is never created: 1g@2 is created 0.12-0.23 (K to 10.23) and 1g@3 0.23-0.34 (K2 to
 * 10.34). The next iteration opens the root: stop. One move, makespan 13.56 -> 10.34. */
static void test_refinement_moves(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "J1", 2, 5);
    test_add_only_task(w, "J2", 2, 3);
    test_add_only_task(w, "K", 1, 10);
    test_add_only_task(w, "K2", 1, 10);
    ms_schedule *plain = run("far-norefine", w, "A30-24GB", 1, NULL);
    assert_near(ms_schedule_makespan(plain), 13.56, EPS);
    expect_task(plain, 1, 2, 2, 0.24);
    expect_task(plain, 3, 1, 3, 3.56);
    ms_schedule *s = run("far", w, "A30-24GB", 1, NULL);
    assert_near(ms_schedule_makespan(s), 10.34, EPS);
    assert_near(ms_schedule_stat(s, "makespan_phase2"), 13.56, EPS);
    assert_near(ms_schedule_stat(s, "moves"), 1, 0);
    assert_near(ms_schedule_stat(s, "swaps"), 0, 0);
    expect_task(s, 0, 2, 0, 0.12);
    expect_task(s, 1, 2, 0, 5.12);
    expect_task(s, 2, 1, 2, 0.23);
    expect_task(s, 3, 1, 3, 0.34);
    assert_int_equal(s->ninst, 3);
    ms_schedule_free(s);
    ms_schedule_free(plain);
    ms_workload_free(w);
}

/* A30. J1 = 8, J2 = 6, J3 = 5 s need 2 slices; K = K2 = 10 s need one. Phase 2: 2g@0
 * (0-0.12) runs J1 to 8.12; 2g@2 (0.12-0.24) runs J2 to 6.24 and J3 to 11.24; 2g@0 is
 * destroyed 8.12-8.22; 1g@0 (8.22-8.33) and 1g@1 (8.33-8.44) run K, K2 to 18.33, 18.44.
 * Refinement: the alternative of 1g@1 is 1g@2 (free at 11.24, margin 7.2 < 10); the parent
 * 2g@0 is opened: J1 (8) cannot move into 7.2, but swapping J1 with J3 gains 3 (the
 * difference closest to 3.6 among 2 and 3): 2g@0 runs J3 to 5.12, is destroyed 5.12-5.22,
 * 1g@0 (5.22-5.33) and 1g@1 (5.33-5.44) end at 15.33 and 15.44; 2g@2 runs J1, J2 to 14.24.
 * One swap, makespan 18.44 -> 15.44. */
static void test_refinement_swaps(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "J1", 2, 8);
    test_add_only_task(w, "J2", 2, 6);
    test_add_only_task(w, "J3", 2, 5);
    test_add_only_task(w, "K", 1, 10);
    test_add_only_task(w, "K2", 1, 10);
    ms_schedule *s = run("far", w, "A30-24GB", 1, NULL);
    assert_near(ms_schedule_stat(s, "makespan_phase2"), 18.44, EPS);
    assert_near(ms_schedule_makespan(s), 15.44, EPS);
    assert_near(ms_schedule_stat(s, "moves"), 0, 0);
    assert_near(ms_schedule_stat(s, "swaps"), 1, 0);
    expect_task(s, 2, 2, 0, 0.12);
    expect_task(s, 0, 2, 2, 0.24);
    expect_task(s, 1, 2, 2, 8.24);
    expect_task(s, 3, 1, 0, 5.33);
    expect_task(s, 4, 1, 1, 5.44);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Two A30s, three 4-slice tasks (5, 3, 2 s): both roots start in the heap at 0 with their
 * own reconfiguration clock, so both are created 0-0.13; GPU 0 runs the 5 s task, GPU 1 the
 * 3 s one and then the 2 s one (it frees first, at 3.13). Makespan 5.13. */
static void test_two_gpus_two_clocks(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "A", 4, 5);
    test_add_only_task(w, "B", 4, 3);
    test_add_only_task(w, "C", 4, 2);
    ms_schedule *s = run("far", w, "A30-24GB", 2, NULL);
    assert_near(ms_schedule_makespan(s), 5.13, EPS);
    assert_int_equal(s->inst[task_of(s, 0)->instance].gpu, 0);
    assert_int_equal(s->inst[task_of(s, 1)->instance].gpu, 1);
    assert_int_equal(s->inst[task_of(s, 2)->instance].gpu, 1);
    assert_near(task_of(s, 1)->start, 0.13, EPS);
    assert_near(task_of(s, 2)->start, 3.13, EPS);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Phase 1 on an A30: a takes 8 s on 1 slice or 4 s on 2 (equal areas: the smaller size
 * first), b 6 s on 1 or 2 slices. Allocation 1 (a:1, b:1): the tree is split down to the
 * leaves; 1g@0 (0-0.11) runs a to 8.11, 1g@1 (0.11-0.22) runs b to 6.22: 8.11. Allocation 2
 * (the longest, a, grows to 2 slices; bound max(6, 14/4) < 8.11): 2g@0 (0-0.12) runs a to
 * 4.12, 2g@2 is split and 1g@2 (0.12-0.23) runs b to 6.23: the best so far. Allocation 3
 * (b, now the longest, grows to 2; bound max(6, 20/4) < 6.23): LPT puts b first, on 2g@0
 * (0-0.12) to 6.12, and a on 2g@2 (0.12-0.24) to 4.24: 6.12, the best. b cannot grow
 * further (no finite 4-slice time): the family ends after 3 allocations, all evaluated. */
static void test_family_walk(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    double a[MS_MAX_SLICES + 1], b[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        a[s] = b[s] = INFINITY;
    a[1] = 8, a[2] = 4;
    b[1] = 6, b[2] = 6;
    assert_int_equal(ms_workload_add(w, "a", a, NULL, NULL, NULL), MS_OK);
    assert_int_equal(ms_workload_add(w, "b", b, NULL, NULL, NULL), MS_OK);
    ms_schedule *s = run("far-norefine", w, "A30-24GB", 1, NULL);
    assert_near(ms_schedule_makespan(s), 6.12, EPS);
    expect_task(s, 1, 2, 0, 0.12);
    expect_task(s, 0, 2, 2, 0.24);
    assert_near(ms_schedule_stat(s, "allocations"), 3, 0);
    assert_near(ms_schedule_stat(s, "evaluated"), 3, 0);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* Two batches of one 4-slice task each on an A30 (create 4: 0.13). Batch 0's 4g (0-0.13)
 * runs A to 5.13; batch 1 starts with the very same instance, so it is kept (no destroy and
 * re-create) and runs B from 5.13 to 8.13: one instance in all. With one instance per batch
 * reversal changes nothing (p_rev = 0) and no move or swap is possible. */
static void test_batches_keep_the_shared_instance(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "A", 4, 5);
    test_add_only_task(w, "B", 4, 3);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = 1;
    for (int mode = MS_CONCAT_TRIVIAL; mode <= MS_CONCAT_OVERLAP; mode++) {
        o.far.concat = (ms_concat_mode)mode;
        ms_schedule *s = run("far", w, "A30-24GB", 1, &o);
        assert_near(ms_schedule_makespan(s), 8.13, EPS);
        assert_near(task_of(s, 1)->start, 5.13, EPS);
        assert_int_equal(s->ninst, 1);
        assert_true(isnan(s->inst[0].destroy_start));
        assert_near(ms_schedule_stat(s, "batches"), 2, 0);
        assert_near(ms_schedule_stat(s, "makespan_trivial"), 8.13, EPS);
        if (mode != MS_CONCAT_TRIVIAL)
            assert_near(ms_schedule_stat(s, "p_rev"), 0, EPS);
        ms_schedule_free(s);
    }
    ms_workload_free(w);
}

/* Two batches on an A30: batch 0 = {A: 4 slices, 4 s}, batch 1 = {B: 2 slices, 3 s}.
 * Trivial: 4g (0-0.13) runs A to 4.13 and is destroyed 4.13-4.23 (2g@0 needs its slots);
 * batch 1 may start at 4.13 (the barrier): 2g@0 is created 4.23-4.35 and runs B to 7.35.
 * Reversed batch 1 has the same single instance: the same plan. */
static void test_batches_destroy_between(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "A", 4, 4);
    test_add_only_task(w, "B", 2, 3);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = 1;
    for (int mode = MS_CONCAT_TRIVIAL; mode <= MS_CONCAT_REVERSE; mode++) {
        o.far.concat = (ms_concat_mode)mode;
        ms_schedule *s = run("far", w, "A30-24GB", 1, &o);
        assert_near(ms_schedule_makespan(s), 7.35, EPS);
        const ms_sched_instance *four = instance_at(s, 0, 4, 0);
        assert_near(four->destroy_start, 4.13, EPS);
        assert_near(four->destroy_end, 4.23, EPS);
        assert_near(instance_at(s, 0, 2, 0)->create_start, 4.23, EPS);
        assert_near(task_of(s, 1)->start, 4.35, EPS);
        ms_schedule_free(s);
    }
    ms_workload_free(w);
}

/* Two batches on an A30: batch 0 = {A: 2 slices, 5 s; C: 1 slice, 1 s}, batch 1 = {D: 2
 * slices, 2 s; E: 1 slice, 4 s}. FAR puts each batch's 2-slice task on 2g@0 (0-0.12) and its
 * 1-slice task on 1g@2 (0.12-0.23): batch 0 ends A at 5.12 and C at 1.23. Batch 1 uses the same
 * two instances, which are kept. Trivial: batch 1 waits for 5.12, so D runs 5.12-7.12 and E
 * 5.12-9.12: 9.12. Reverse (batch 1 leaves first, no barrier): E follows C at 1.23 and ends at
 * 5.23, D follows A to 7.12: 7.12, p_rev = (9.12 / 7.12 - 1) * 100. Overlap tries moving E to
 * 1g@3 (free from the start) but the pair still ends at 7.12: kept as reversed. */
static void test_batches_reverse_overlaps(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "A", 2, 5);
    test_add_only_task(w, "C", 1, 1);
    test_add_only_task(w, "D", 2, 2);
    test_add_only_task(w, "E", 1, 4);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = 2;
    ms_schedule *s = run("far", w, "A30-24GB", 1, &o);
    assert_near(ms_schedule_makespan(s), 9.12, EPS);
    assert_near(task_of(s, 3)->start, 5.12, EPS);
    assert_int_equal(s->ninst, 2);
    ms_schedule_free(s);
    for (int mode = MS_CONCAT_REVERSE; mode <= MS_CONCAT_OVERLAP; mode++) {
        o.far.concat = (ms_concat_mode)mode;
        s = run("far", w, "A30-24GB", 1, &o);
        assert_near(ms_schedule_makespan(s), 7.12, EPS);
        assert_near(task_of(s, 3)->start, 1.23, EPS);
        assert_near(task_of(s, 2)->start, 5.12, EPS);
        assert_near(ms_schedule_stat(s, "makespan_trivial"), 9.12, EPS);
        assert_near(ms_schedule_stat(s, "p_rev"), (9.12 / 7.12 - 1) * 100, 1e-6);
        if (mode == MS_CONCAT_OVERLAP)
            assert_near(ms_schedule_stat(s, "p_move_swap"), (9.12 / 7.12 - 1) * 100, 1e-6);
        ms_schedule_free(s);
    }
    ms_workload_free(w);
}

/* A task that fits no size of the GPU is an error naming it, not a dropped task. */
static void test_no_feasible_size_is_an_error(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "ok", 1, 1);
    test_add_only_task(w, "needs3", 3, 1); /* the A30 has no 3-slice instance */
    ms_offline_options o;
    ms_offline_options_init(&o);
    ms_schedule *s = NULL;
    ms_error err;
    assert_int_equal(ms_offline_schedule("far", w, ms_gpu_builtin("A30-24GB"), 1, &o, &s, &err),
                     MS_EINFEASIBLE);
    assert_null(s);
    assert_non_null(strstr(err.msg, "needs3"));
    assert_int_not_equal(
        ms_offline_schedule("nope", w, ms_gpu_builtin("A30-24GB"), 1, &o, &s, &err), MS_OK);
    assert_non_null(strstr(err.msg, "far-norefine"));
    test_add_only_task(w, "huge", 1, 1e300);
    assert_int_equal(ms_offline_schedule("far", w, ms_gpu_builtin("A30-24GB"), 1, &o, &s, &err),
                     MS_EINVAL);
    assert_non_null(strstr(err.msg, "huge"));
    assert_int_equal(ms_offline_schedule("far", w, ms_gpu_builtin("A30-24GB"), 65, &o, &s, &err),
                     MS_EINVAL);
    ms_workload_free(w);
}

/* An empty workload is an empty, valid schedule. */
static void test_empty_workload(void **state)
{
    (void)state;
    ms_workload *w = ms_workload_new();
    ms_schedule *s = run("far", w, "H100-80GB", 2, NULL);
    assert_int_equal(s->ntasks, 0);
    assert_int_equal(s->ninst, 0);
    ms_schedule_free(s);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_four_slice_node_runs_three_slice_task),
        cmocka_unit_test(test_tie_right_first),
        cmocka_unit_test(test_four_runs_three),
        cmocka_unit_test(test_rodinia_infinite_size),
        cmocka_unit_test(test_refinement_moves),
        cmocka_unit_test(test_refinement_swaps),
        cmocka_unit_test(test_two_gpus_two_clocks),
        cmocka_unit_test(test_family_walk),
        cmocka_unit_test(test_batches_keep_the_shared_instance),
        cmocka_unit_test(test_batches_destroy_between),
        cmocka_unit_test(test_batches_reverse_overlaps),
        cmocka_unit_test(test_no_feasible_size_is_an_error),
        cmocka_unit_test(test_empty_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
