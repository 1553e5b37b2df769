/* test_daemon_placement.c: migschedd's online placement with waiting jobs' sizes in view
 * (placement.h), against paper 002's policy alone, and what a node can still place. */
#include <string.h>

#include "migsched/online.h"
#include "placement.h"
#include "support.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static int prof(const ms_gpu_model *m, const char *name)
{
    int p = ms_gpu_profile_by_name(m, name);
    assert_true(p >= 0);
    return p;
}

static void empty(ms_online_gpu_view *v)
{
    memset(v, 0, sizeof *v);
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        v->idle[k] = -1;
}

/* A running job's instance on view v, as engine_online.c's ei_view counts it. */
static void busy(const ms_gpu_model *m, ms_online_gpu_view *v, const char *name, int start)
{
    ms_placement p = {prof(m, name), start};
    uint32_t mask = ms_gpu_slot_mask(m, p);
    v->job_slots |= mask;
    v->locked_slots |= mask;
    v->frag_slots |= mask;
    v->frag_slices |= ms_gpu_slice_mask(m, p);
    v->load += m->profiles[p.profile].slices;
}

static const ms_online_rule RULE = {.frag = true, .balance = true, .dynamic = true, .tau = 0.4};

/* Hand-checked: GPU 0 runs a 1g.5gb at slot 4, GPU 1 two 1g.5gb at slots 0 and 4; a 3g.20gb
 * waits (Slurm's pending job). The only room for a 3g is GPU 0's slots 0-3 (GPU 0's slots
 * 4-7 and both halves of GPU 1 hold a 1g). A 2g.10gb arrives: the policy alone puts it at
 * GPU 0 slot 0 (both GPUs Lazy, the lowest F) and the 3g has no room left on the node; with
 * the 3g in view it goes to GPU 1 slots 2-3, and GPU 0's slots 0-3 still take the 3g. */
static void test_keeps_room_for_pending_3g(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_frag_table *ft = ms_online_frag_table_new(m);
    assert_non_null(ft);
    ms_online_gpu_view v[2];
    empty(&v[0]);
    empty(&v[1]);
    busy(m, &v[0], "1g.5gb", 4);
    busy(m, &v[1], "1g.5gb", 0);
    busy(m, &v[1], "1g.5gb", 4);
    int p2 = prof(m, "2g.10gb"), p3 = prof(m, "3g.20gb");
    int g, st;
    assert_true(ms_online_place(m, &RULE, ft, v, 2, p2, &g, &st));
    assert_int_equal(g, 0);
    assert_int_equal(st, 0);
    ms_online_gpu_view old[2] = {v[0], v[1]};
    busy(m, &old[g], "2g.10gb", st);
    assert_false(md_placeable(m, &RULE, old, 2, p3)); /* the old choice blocks the 3g */

    int demand[MS_MAX_PROFILES] = {0};
    demand[p3] = 1;
    assert_true(md_place_for_demand(m, &RULE, ft, v, 2, p2, demand, &g, &st));
    assert_int_equal(g, 1);
    assert_int_equal(st, 2);
    busy(m, &v[g], "2g.10gb", st);
    assert_true(md_placeable(m, &RULE, v, 2, p3));
    ms_online_frag_table_free(ft);
}

/* Nothing waits, or what waits has no room anyway: exactly the policy's choice, on every
 * layout of up to one running instance per GPU and every arriving profile. */
static void test_policy_when_nothing_to_keep(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_frag_table *ft = ms_online_frag_table_new(m);
    ms_placement all[64];
    int na = 0;
    for (int p = 0; p < m->nprofiles; p++)
        for (int j = 0; j < m->profiles[p].nstarts; j++)
            all[na++] = (ms_placement){p, m->profiles[p].starts[j]};
    int p7 = prof(m, "7g.40gb"), compared = 0;
    for (int a = -1; a < na; a++)
        for (int b = -1; b < na; b++) {
            ms_online_gpu_view v[2];
            empty(&v[0]);
            empty(&v[1]);
            if (a >= 0)
                busy(m, &v[0], m->profiles[all[a].profile].name, all[a].start);
            if (b >= 0)
                busy(m, &v[1], m->profiles[all[b].profile].name, all[b].start);
            int none[MS_MAX_PROFILES] = {0}, full[MS_MAX_PROFILES] = {0};
            full[p7] = 3; /* kept only while a 7g fits: with both GPUs busy, it cannot */
            for (int p = 0; p < m->nprofiles; p++) {
                int g0 = -1, s0 = -1, g1 = -1, s1 = -1, g2 = -1, s2 = -1;
                bool ok = ms_online_place(m, &RULE, ft, v, 2, p, &g0, &s0);
                assert_int_equal(md_place_for_demand(m, &RULE, ft, v, 2, p, none, &g1, &s1), ok);
                assert_int_equal(md_place_for_demand(m, &RULE, ft, v, 2, p, NULL, &g1, &s1), ok);
                if (ok)
                    assert_true(g0 == g1 && s0 == s1);
                if (a >= 0 && b >= 0) {
                    assert_int_equal(md_place_for_demand(m, &RULE, ft, v, 2, p, full, &g2, &s2),
                                     ok);
                    if (ok)
                        assert_true(g0 == g2 && s0 == s2);
                }
                compared++;
            }
        }
    assert_true(compared > 1000);
    ms_online_frag_table_free(ft);
}

/* What the node's count-only GRES is kept at: the largest instance placeable now. */
static void test_largest_placeable(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_gpu_view v[2];
    empty(&v[0]);
    empty(&v[1]);
    assert_int_equal(md_largest_placeable(m, &RULE, v, 2), 7);
    busy(m, &v[0], "1g.5gb", 0);
    busy(m, &v[1], "1g.5gb", 0);
    assert_int_equal(md_largest_placeable(m, &RULE, v, 2), 3); /* 3g.20gb at slot 4 */
    empty(&v[1]);
    busy(m, &v[1], "3g.20gb", 4);
    assert_int_equal(md_largest_placeable(m, &RULE, v, 2), 4); /* GPU 1's 4g.20gb at 0 */
    busy(m, &v[1], "2g.10gb", 2);
    busy(m, &v[0], "1g.10gb", 6); /* slots 6-7 */
    /* GPU 0: slots 1-5 free, no 3g (0-3, 4-7) fits; 2g at 2 or 4 does. */
    assert_int_equal(md_largest_placeable(m, &RULE, v, 2), 2);
    /* An idle instance may be reused or destroyed for a placement; an instance that is
     * not migschedd's (ei_view: its slots taken and locked) is in the way. */
    empty(&v[0]);
    v[0].idle[0] = (int8_t)prof(m, "4g.20gb");
    assert_int_equal(md_largest_placeable(m, &RULE, v, 1), 7);
    v[0].job_slots = v[0].locked_slots = 1u << 7;
    assert_int_equal(md_largest_placeable(m, &RULE, v, 1), 4);
    v[0].job_slots = v[0].locked_slots = 0xff;
    assert_int_equal(md_largest_placeable(m, &RULE, v, 1), 0);
}

/* held + placeable, never below the largest instance (7 slices on an A100). */
static void test_slurm_count(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    assert_int_equal(md_slurm_count(m, 0, 7), 7);
    assert_int_equal(md_slurm_count(m, 0, 3), 7);
    assert_int_equal(md_slurm_count(m, 6, 0), 7);
    assert_int_equal(md_slurm_count(m, 6, 3), 9);
    assert_int_equal(md_slurm_count(m, 14, 0), 14);
    assert_int_equal(md_slurm_count(ms_gpu_builtin("A30-24GB"), 0, 1), 4);
}

static void test_profile_for_slices(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    static const char *const WANT[] = {NULL,      "1g.5gb",  "2g.10gb", "3g.20gb",
                                       "4g.20gb", "7g.40gb", "7g.40gb", "7g.40gb"};
    for (int s = 1; s <= 7; s++)
        assert_string_equal(m->profiles[md_profile_for_slices(m, s)].name, WANT[s]);
    assert_int_equal(md_profile_for_slices(m, 8), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_keeps_room_for_pending_3g),
                                       cmocka_unit_test(test_policy_when_nothing_to_keep),
                                       cmocka_unit_test(test_largest_placeable),
                                       cmocka_unit_test(test_slurm_count),
                                       cmocka_unit_test(test_profile_for_slices)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
