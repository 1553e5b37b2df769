/* test_online_frag.c: paper 002's fragmentation cost, placement and intra-GPU move on the
 * paper's own examples (Figs. 1 and 2) and hand-computed values. */
#include "support.h"

#include "migsched/online.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_placement at(const ms_gpu_model *m, const char *profile, int start)
{
    int p = ms_gpu_profile_by_name(m, profile);
    assert_true(p >= 0);
    return (ms_placement){p, start};
}

static ms_partition parts(int n, const ms_placement *p)
{
    ms_partition out = {.n = n};
    for (int i = 0; i < n; i++)
        out.inst[i] = p[i];
    return out;
}

/* Fig. 1: GPU 1 has slots 4-7 free, GPU 2 slots 0-3: only GPU 2 can host a 4g instance. */
static void test_fig1_contiguous_is_not_enough(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_placement g1_busy[] = {at(m, "4g.20gb", 0)}, g2_busy[] = {at(m, "3g.20gb", 4)};
    ms_partition g1 = parts(1, g1_busy), g2 = parts(1, g2_busy);
    int p4 = ms_gpu_profile_by_name(m, "4g.20gb");
    ms_placement out;
    assert_false(ms_online_fits(m, &g1, at(m, "4g.20gb", 0)));
    assert_false(ms_online_fits(m, &g1, (ms_placement){p4, 4})); /* 4g may start at 0 only */
    assert_false(ms_online_best_placement(m, &g1, NULL, p4, &out, NULL));
    assert_true(ms_online_fits(m, &g2, at(m, "4g.20gb", 0)));
    assert_true(ms_online_best_placement(m, &g2, NULL, p4, &out, NULL));
    assert_int_equal(out.start, 0);
    /* both have four free slots; a 3g still fits on GPU 1, at slot 4 */
    assert_true(ms_online_fits(m, &g1, at(m, "3g.20gb", 4)));
}

static void test_empty_and_full_gpus_have_no_fragmentation(void **state)
{
    (void)state;
    for (int i = 0; i < ms_gpu_builtin_count(); i++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(i);
        ms_partition empty = {0};
        assert_float_equal(ms_online_frag(m, &empty), 0.0, 1e-12);
        ms_placement whole = {m->base_profile[m->slices], 0};
        ms_partition full = parts(1, &whole);
        assert_float_equal(ms_online_frag(m, &full), 0.0, 1e-12);
    }
}

/* III-A: on an empty A100 a 2g instance goes to slot 4, keeping the 4g (slots 0-3)
 * creatable; at 0 or 2 it would leave F = 1/5 (only the 4g term is 1). */
static void test_placement_keeps_larger_profiles_creatable(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_partition empty = {0};
    ms_placement out;
    double f;
    int p2 = ms_gpu_profile_by_name(m, "2g.10gb");
    assert_true(ms_online_best_placement(m, &empty, NULL, p2, &out, &f));
    assert_int_equal(out.start, 4);
    assert_float_equal(f, 0.0, 1e-12);
    ms_partition at0 = parts(1, (ms_placement[]){{p2, 0}});
    ms_partition at2 = parts(1, (ms_placement[]){{p2, 2}});
    assert_float_equal(ms_online_frag(m, &at0), 0.2, 1e-12);
    assert_float_equal(ms_online_frag(m, &at2), 0.2, 1e-12);
}

/* Hand-computed F for busy 1g.5gb@0 and 1g.5gb@5 on an A100-40GB (Fig. 2 after the short
 * jobs left): 1g.5gb 0, 1g.10gb 1/3, 2g 1/2, 3g 1, 4g 1 (7g has ideal 0): F = 17/30. */
static void test_fig2_fragmentation_value(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_partition busy = parts(2, (ms_placement[]){at(m, "1g.5gb", 0), at(m, "1g.5gb", 5)});
    uint32_t free_slots = 0xFF & ~0x21u, free_slices = 0x7F & ~0x21u;
    assert_int_equal(
        ms_online_ideal(m, ms_gpu_profile_by_name(m, "1g.10gb"), free_slots, free_slices), 3);
    assert_int_equal(ms_online_valid(m, ms_gpu_profile_by_name(m, "1g.10gb"), free_slots), 2);
    assert_int_equal(ms_online_valid(m, ms_gpu_profile_by_name(m, "2g.10gb"), free_slots), 1);
    assert_int_equal(
        ms_online_ideal(m, ms_gpu_profile_by_name(m, "7g.40gb"), free_slots, free_slices), 0);
    assert_float_equal(ms_online_frag(m, &busy), 17.0 / 30.0, 1e-12);
}

/* Fig. 2: migrating within the GPU lowers F; the chosen move is the best single move. */
static void test_fig2_migration_lowers_fragmentation(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_partition busy = parts(2, (ms_placement[]){at(m, "1g.5gb", 0), at(m, "1g.5gb", 5)});
    int which;
    ms_placement to;
    double after;
    assert_true(ms_online_best_move(m, &busy, &which, &to, &after));
    assert_true(after < ms_online_frag(m, &busy) - 1e-9);
    ms_partition moved = busy;
    moved.inst[which] = to;
    assert_float_equal(ms_online_frag(m, &moved), after, 1e-12);
    assert_float_equal(after, 0.0, 1e-12); /* e.g. 1g@5 -> 1g@1: slots 2-7 stay whole */
    /* and no move improves the result further */
    assert_false(ms_online_best_move(m, &moved, &which, &to, &after));
}

/* Brute force on random states of every model: the chosen placement has the least F of
 * all fitting ones, and reuses an idle instance whenever one ties for the least. */
static void test_best_placement_is_minimal(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    for (int mi = 0; mi < ms_gpu_builtin_count(); mi++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(mi);
        for (int trial = 0; trial < 300; trial++) {
            ms_partition busy = {0}, idle = {0};
            for (int k = 0; k < 6; k++) { /* random feasible busy set, then idle ones */
                int p = (int)ms_rng_below(&rng, (uint64_t)m->nprofiles);
                ms_placement pl = {
                    p, m->profiles[p].starts[ms_rng_below(&rng, (uint64_t)m->profiles[p].nstarts)]};
                ms_partition both = busy;
                for (int i = 0; i < idle.n; i++)
                    both.inst[both.n++] = idle.inst[i];
                if (both.n < MS_MAX_INSTANCES && ms_online_fits(m, &both, pl)) {
                    ms_partition *dst = ms_rng_below(&rng, 2) ? &busy : &idle;
                    dst->inst[dst->n++] = pl;
                }
            }
            for (int p = 0; p < m->nprofiles; p++) {
                ms_placement out;
                double f;
                bool found = ms_online_best_placement(m, &busy, &idle, p, &out, &f);
                double best = 2.0;
                bool tie_reuse = false;
                for (int j = 0; j < m->profiles[p].nstarts; j++) {
                    ms_placement pl = {p, m->profiles[p].starts[j]};
                    if (!ms_online_fits(m, &busy, pl))
                        continue;
                    ms_partition after = busy;
                    after.inst[after.n++] = pl;
                    double fa = ms_online_frag(m, &after);
                    bool reuse = false;
                    for (int i = 0; i < idle.n; i++)
                        reuse |= idle.inst[i].profile == p && idle.inst[i].start == pl.start;
                    if (fa < best - 1e-9)
                        tie_reuse = reuse;
                    else if (fa < best + 1e-9)
                        tie_reuse |= reuse;
                    best = fa < best ? fa : best;
                }
                assert_int_equal(found, best < 2.0);
                if (!found)
                    continue;
                assert_float_equal(f, best, 1e-9);
                bool chose_reuse = false;
                for (int i = 0; i < idle.n; i++)
                    chose_reuse |= idle.inst[i].profile == p && idle.inst[i].start == out.start;
                assert_int_equal(chose_reuse, tie_reuse);
            }
        }
    }
}

/* A GPU view with job-holding instances `busy` (n of them), nothing idle. */
static ms_online_gpu_view busy_view(const ms_gpu_model *m, int n, const ms_placement *busy)
{
    ms_online_gpu_view v = {0};
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        v.idle[k] = -1;
    for (int i = 0; i < n; i++) {
        v.job_slots |= ms_gpu_slot_mask(m, busy[i]);
        v.locked_slots |= ms_gpu_slot_mask(m, busy[i]);
        v.frag_slices |= ms_gpu_slice_mask(m, busy[i]);
        v.load += m->profiles[busy[i].profile].slices;
    }
    v.frag_slots = v.job_slots;
    return v;
}

/* The shared decision (what the simulator and migschedd call): a Lazy GPU before a Busy
 * one, min F on a GPU, an idle instance reused on equal F, and no fit over a job. */
static void test_shared_placement_decision(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_frag_table *ft = ms_online_frag_table_new(m);
    assert_non_null(ft);
    ms_online_rule r = {.frag = true, .balance = true, .dynamic = true, .tau = 0.4};
    ms_placement b0[] = {at(m, "4g.20gb", 0)}, b1[] = {at(m, "1g.5gb", 0)};
    ms_online_gpu_view v[2] = {busy_view(m, 1, b0), busy_view(m, 1, b1)};
    int g = -1, start = -1, p1 = at(m, "1g.5gb", 0).profile;
    /* GPU 0 is Busy (4 of 7 slices >= 0.4 x 7): GPU 1 gets the job, next to its 1g. */
    assert_true(ms_online_place(m, &r, ft, v, 2, p1, &g, &start));
    assert_int_equal(g, 1);
    assert_int_equal(start, 1);
    /* Without balancing, the placement of least F anywhere: GPU 0's slots 4-7 take it at
     * the same F as GPU 1, and GPU 0 comes first. */
    ms_online_rule nb = r;
    nb.balance = false;
    uint64_t k0 = ms_online_place_key(m, &nb, ft, &v[0], p1, &start);
    uint64_t k1 = ms_online_place_key(m, &nb, ft, &v[1], p1, &start);
    assert_true(k0 != MS_ONLINE_NO_FIT && k1 != MS_ONLINE_NO_FIT);
    assert_true(ms_online_place(m, &nb, ft, v, 2, p1, &g, &start));
    assert_int_equal(g, k0 <= k1 ? 0 : 1);
    /* An idle 1g where F is least is reused: same F, reuse bit clear. */
    ms_online_gpu_view w = busy_view(m, 0, NULL);
    int best = -1;
    uint64_t fresh = ms_online_place_key(m, &r, ft, &w, p1, &best);
    assert_int_equal(fresh & 2, 2);
    w.idle[best] = (int8_t)p1;
    assert_int_equal(ms_online_place_key(m, &r, ft, &w, p1, &start), fresh & ~2ull);
    assert_int_equal(start, best);
    /* Reuse only (no dynamic partitioning): nothing fits where no idle instance is. */
    ms_online_rule st = r;
    st.dynamic = false;
    ms_online_gpu_view empty = busy_view(m, 0, NULL);
    assert_int_equal(ms_online_place_key(m, &st, ft, &empty, p1, &start), MS_ONLINE_NO_FIT);
    /* A locked instance (being created, say) is never destroyed for another profile. */
    w.locked_slots = ms_gpu_slot_mask(m, at(m, "1g.5gb", best));
    int p2 = at(m, "1g.10gb", 0).profile, over = best & ~1, away = over ? 0 : 2;
    assert_false(ms_online_can_take(m, &r, &w, p2, over));
    assert_true(ms_online_can_take(m, &r, &w, p2, away));
    ms_online_frag_table_free(ft);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig1_contiguous_is_not_enough),
        cmocka_unit_test(test_empty_and_full_gpus_have_no_fragmentation),
        cmocka_unit_test(test_placement_keeps_larger_profiles_creatable),
        cmocka_unit_test(test_fig2_fragmentation_value),
        cmocka_unit_test(test_fig2_migration_lowers_fragmentation),
        cmocka_unit_test(test_best_placement_is_minimal),
        cmocka_unit_test(test_shared_placement_decision),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
