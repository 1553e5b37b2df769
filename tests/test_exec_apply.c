/* test_exec_apply.c: `apply`'s planner on hand-checked cases, then ms_apply on the fake
 * NVML: every pair of the 19 A100 partitions (no more destroys than instances that
 * differ, as few as an independent search allows), and random busy instances (seeded):
 * a busy instance is never destroyed, and apply either reaches the target or refuses,
 * naming the instance and its PIDs, exactly when no arrangement keeps every busy one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "migsched/rng.h"
#include "exec_plans.h"
#include "support.h"

#define FAKE_LIB MIGSCHED_BINARY_DIR "/tests/fake_nvml/libnvidia-ml.so.1"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_placement at(const char *profile, int start)
{
    int p = ms_gpu_profile_by_name(a100(), profile);
    assert_true(p >= 0);
    return (ms_placement){p, start};
}

static ms_mig_instance inst(const char *profile, int start, unsigned gi)
{
    ms_placement p = at(profile, start);
    ms_mig_instance in = {.gi_id = gi,
                          .nci = 1,
                          .profile = p.profile,
                          .start_slot = start,
                          .size_slots = a100()->profiles[p.profile].size_slots};
    snprintf(in.uuid, sizeof in.uuid, "MIG-test-%u", gi);
    return in;
}

static void counts_of(const ms_partition *p, int count[MS_MAX_PROFILES])
{
    memset(count, 0, MS_MAX_PROFILES * sizeof *count);
    for (int i = 0; i < p->n; i++)
        count[p->inst[i].profile]++;
}

/* ---- The independent oracle: arrangements found by scanning slots left to right ---- */

typedef struct oracle {
    const ms_gpu_model *m;
    const ms_placement *have;
    int nhave;
    uint32_t must; /* bit i: have[i] must be kept */
    int left[MS_MAX_PROFILES];
    int n;
    ms_placement at[MS_MAX_INSTANCES];
    int best;
} oracle;

static void oracle_leaf(oracle *o)
{
    int kept = 0;
    for (int i = 0; i < o->nhave; i++) {
        bool in = false;
        for (int k = 0; k < o->n; k++)
            in |= o->at[k].profile == o->have[i].profile && o->at[k].start == o->have[i].start;
        if (!in && (o->must & (1u << i)))
            return;
        kept += in;
    }
    if (kept > o->best)
        o->best = kept;
}

static void oracle_scan(oracle *o, int slot, uint32_t used)
{
    if (slot == o->m->slots) {
        for (int p = 0; p < o->m->nprofiles; p++)
            if (o->left[p])
                return;
        oracle_leaf(o);
        return;
    }
    oracle_scan(o, slot + 1, used); /* nothing starts here */
    for (int p = 0; p < o->m->nprofiles; p++) {
        ms_placement q = {p, slot};
        if (!o->left[p] || !ms_gpu_placement_allowed(o->m, q) || (ms_gpu_slot_mask(o->m, q) & used))
            continue;
        o->left[p]--;
        o->at[o->n++] = q;
        oracle_scan(o, slot + 1, used | ms_gpu_slot_mask(o->m, q));
        o->n--;
        o->left[p]++;
    }
}

/* The most of `have` an arrangement of count keeps while keeping all of `must`; -1 if
 * none does. */
static int most_kept(const ms_gpu_model *m, const int count[MS_MAX_PROFILES],
                     const ms_placement *have, int nhave, uint32_t must)
{
    oracle o = {.m = m, .have = have, .nhave = nhave, .must = must, .best = -1};
    memcpy(o.left, count, sizeof o.left);
    oracle_scan(&o, 0, 0);
    return o.best;
}

/* ---- The planner ---------------------------------------------------------------- */

static void test_plan_keeps_and_moves(void **unused)
{
    ms_mig_instance cur[] = {inst("4g.20gb", 0, 1), inst("3g.20gb", 4, 2)};
    bool busy[2] = {false, true};
    int count[MS_MAX_PROFILES] = {0};
    count[at("3g.20gb", 0).profile] = 2;
    ms_apply_plan p;
    ms_error err;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 2, busy, count, &p, &err), MS_OK);
    assert_int_equal(p.nkeep, 1);
    assert_int_equal(p.keep[0], 1);
    assert_int_equal(p.ndestroy, 1);
    assert_int_equal(p.destroy[0], 0);
    assert_int_equal(p.ncreate, 1);
    assert_int_equal(p.create[0].start, 0);
}

/* 3g + 2g + 1g fits two ways around a busy 2g@4 and an idle 1g@6: the one keeping both. */
static void test_plan_prefers_the_arrangement_keeping_most(void **unused)
{
    ms_mig_instance cur[] = {inst("2g.10gb", 4, 1), inst("1g.5gb", 6, 2)};
    bool busy[2] = {true, false};
    int count[MS_MAX_PROFILES] = {0};
    count[at("3g.20gb", 0).profile] = 1;
    count[at("2g.10gb", 0).profile] = 1;
    count[at("1g.5gb", 0).profile] = 1;
    ms_apply_plan p;
    ms_error err;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 2, busy, count, &p, &err), MS_OK);
    assert_int_equal(p.nkeep, 2);
    assert_int_equal(p.ndestroy, 0);
    assert_int_equal(p.ncreate, 1);
    assert_int_equal(p.create[0].profile, at("3g.20gb", 0).profile);
    assert_int_equal(p.create[0].start, 0);
}

static void test_plan_refuses_for_busy_and_infeasible(void **unused)
{
    ms_mig_instance cur[] = {inst("2g.10gb", 0, 1), inst("1g.5gb", 2, 2), inst("3g.20gb", 4, 3)};
    bool busy[3] = {false, true, true};
    int count[MS_MAX_PROFILES] = {0};
    count[at("1g.5gb", 0).profile] = 7;
    ms_apply_plan p;
    ms_error err;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 3, busy, count, &p, &err), MS_EBUSY);
    assert_int_equal(p.blocking, 1u << 2); /* the 1g@2 fits the target; the 3g does not */
    count[at("1g.5gb", 0).profile] = 8;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 0, busy, count, &p, &err), MS_EINFEASIBLE);
    memset(count, 0, sizeof count);
    count[at("4g.20gb", 0).profile] = 2;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 0, busy, count, &p, &err), MS_EINFEASIBLE);
    assert_string_equal(err.msg, "the target does not fit on a A100-40GB: 2 x 4g.20gb: at most 1 "
                                 "fit on the GPU; compute slices: 8 needed, the GPU has 7");
    memset(count, 0, sizeof count);
    count[at("3g.20gb", 0).profile] = 2;
    count[at("1g.5gb", 0).profile] = 1;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 0, busy, count, &p, &err), MS_EINFEASIBLE);
    assert_string_equal(err.msg,
                        "the target does not fit on a A100-40GB: memory slices: 9 needed, the "
                        "GPU has 8");
}

/* When the totals fit but no arrangement does, each instance left out is named with what
 * each of its placements would overlap (a model whose 3g.20gb may start at 0 only). */
static void test_plan_names_overlaps(void **unused)
{
    ms_gpu_model m = *a100();
    int p3 = ms_gpu_profile_by_name(&m, "3g.20gb"), p4 = ms_gpu_profile_by_name(&m, "4g.20gb");
    m.profiles[p3].nstarts = 1;
    int count[MS_MAX_PROFILES] = {0};
    count[p3] = 1;
    count[p4] = 1;
    ms_apply_plan p;
    ms_error err;
    bool busy[1] = {false};
    assert_int_equal(ms_apply_plan_device(&m, NULL, 0, busy, count, &p, &err), MS_EINFEASIBLE);
    assert_string_equal(err.msg, "the target does not fit on a A100-40GB: 4g.20gb does not fit: "
                                 "at 0 overlaps 3g.20gb at 0");
}

/* A GPU instance split into two compute instances, or of a profile the model lacks, is
 * not the MIG device a profile name denotes: recreated when idle, in the way when busy. */
static void test_plan_odd_instances(void **unused)
{
    ms_mig_instance cur[] = {inst("3g.20gb", 0, 1), inst("3g.20gb", 4, 2)};
    cur[0].nci = 2;
    cur[1].profile = -1;
    bool busy[2] = {false, false};
    int count[MS_MAX_PROFILES] = {0};
    count[at("3g.20gb", 0).profile] = 2;
    ms_apply_plan p;
    ms_error err;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 2, busy, count, &p, &err), MS_OK);
    assert_int_equal(p.ndestroy, 2);
    assert_int_equal(p.ncreate, 2);
    busy[1] = true;
    assert_int_equal(ms_apply_plan_device(a100(), cur, 2, busy, count, &p, &err), MS_EBUSY);
    assert_int_equal(p.blocking, 1u << 1);
}

/* ---- ms_apply on the fake NVML -------------------------------------------------- */

static char *state_path;
static char lock_dir[256];

static int setup(void **unused)
{
    state_path = fake_nvml_begin("A100-40GB", 1);
    test_temp_dir("apply-locks", lock_dir, sizeof lock_dir);
    return 0;
}

static int teardown(void **unused)
{
    fake_nvml_end(state_path);
    test_remove_dir(lock_dir);
    return 0;
}

static void reset_device(void)
{
    FILE *f = fopen(state_path, "w");
    assert_non_null(f);
    fclose(f);
}

static ms_backend *open_fake(void) { return fake_nvml_open(FAKE_LIB, NULL); }

static int list_now(ms_mig_instance out[MS_MAX_MIG])
{
    ms_backend *b = open_fake();
    ms_error err = {0};
    int n = 0;
    if (ms_backend_list(b, out, &n, &err))
        fail_msg("list: %s", err.msg);
    ms_backend_close(b);
    return n;
}

static int build(const ms_partition *p, ms_mig_instance out[MS_MAX_MIG])
{
    reset_device();
    ms_backend *b = open_fake();
    ms_error err = {0};
    for (int i = 0; i < p->n; i++)
        if (ms_backend_create(b, p->inst[i], &out[i], &err))
            fail_msg("create: %s", err.msg);
    ms_backend_close(b);
    return p->n;
}

/* Marks an instance busy with one process, as a CUDA program in it would be. */
static void make_busy(unsigned gi_id, unsigned pid)
{
    FILE *f = fopen(state_path, "a");
    assert_non_null(f);
    fprintf(f, "proc 0 %u %u\n", gi_id, pid);
    fclose(f);
}

static int apply_counts(const int count[MS_MAX_PROFILES], bool dry, ms_error *err)
{
    const ms_gpu_model *m = a100();
    char text[1024];
    int len = snprintf(text, sizeof text,
                       "version: v1\nmig-configs:\n  target:\n    - devices: [0]\n"
                       "      mig-enabled: true\n      mig-devices: {");
    for (int p = 0, first = 1; p < m->nprofiles; p++)
        if (count[p]) {
            len += snprintf(text + len, sizeof text - (size_t)len, "%s\"%s\": %d",
                            first ? "" : ", ", m->profiles[p].name, count[p]);
            first = 0;
        }
    snprintf(text + len, sizeof text - (size_t)len, "}\n");
    ms_migparted *cfg = NULL;
    if (ms_migparted_parse(text, strlen(text), "target.yaml", &cfg, err))
        fail_msg("config: %s", err->msg);
    FILE *out = fopen("/dev/null", "w");
    ms_apply_options o = {.backend = "nvml",
                          .backend_opt = {.nvml_library = FAKE_LIB},
                          .dry_run = dry,
                          .lock_dir = lock_dir,
                          .out = out};
    int rc = ms_apply(cfg, "target", &o, err);
    fclose(out);
    ms_migparted_free(cfg);
    return rc;
}

static bool has_uuid(const ms_mig_instance *list, int n, const char *uuid)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(list[i].uuid, uuid))
            return true;
    return false;
}

/* The device holds exactly count, at allowed, disjoint placements. */
static void assert_reached(const ms_mig_instance *now, int n, const int count[MS_MAX_PROFILES])
{
    int seen[MS_MAX_PROFILES] = {0};
    uint32_t used = 0;
    for (int i = 0; i < n; i++) {
        ms_placement q = {now[i].profile, now[i].start_slot};
        assert_true(q.profile >= 0 && ms_gpu_placement_allowed(a100(), q));
        assert_int_equal(ms_gpu_slot_mask(a100(), q) & used, 0);
        used |= ms_gpu_slot_mask(a100(), q);
        seen[q.profile]++;
    }
    assert_memory_equal(seen, count, sizeof seen);
}

static void placements(const ms_mig_instance *in, int n, ms_placement *out)
{
    for (int i = 0; i < n; i++)
        out[i] = (ms_placement){in[i].profile, in[i].start_slot};
}

static void test_all_pairs_of_partitions(void **unused)
{
    const ms_gpu_model *m = a100();
    assert_int_equal(m->npartitions, 19);
    int pairs = 0;
    for (int a = 0; a < m->npartitions; a++)
        for (int t = 0; t < m->npartitions; t++) {
            ms_mig_instance before[MS_MAX_MIG], now[MS_MAX_MIG];
            int nb = build(&m->partitions[a], before);
            int count[MS_MAX_PROFILES];
            counts_of(&m->partitions[t], count);
            ms_error err = {0};
            if (apply_counts(count, false, &err))
                fail_msg("partition %d -> %d: %s", a + 1, t + 1, err.msg);
            int n = list_now(now);
            assert_reached(now, n, count);
            /* Instances that differ: those of a not in t at the same placement. */
            int differ = 0, destroyed = 0;
            for (int i = 0; i < nb; i++) {
                bool in_t = false;
                for (int k = 0; k < m->partitions[t].n; k++)
                    in_t |= m->partitions[t].inst[k].profile == before[i].profile &&
                            m->partitions[t].inst[k].start == before[i].start_slot;
                differ += !in_t;
                destroyed += !has_uuid(now, n, before[i].uuid);
            }
            assert_true(destroyed <= differ);
            ms_placement have[MS_MAX_MIG];
            placements(before, nb, have);
            assert_int_equal(destroyed, nb - most_kept(m, count, have, nb, 0));
            if (a == t)
                assert_int_equal(destroyed, 0);
            pairs++;
        }
    assert_int_equal(pairs, 361);
}

static void test_random_busy_instances(void **unused)
{
    const ms_gpu_model *m = a100();
    ms_rng rng;
    ms_rng_seed(&rng, 13);
    int refused = 0, reached = 0;
    for (int trial = 0; trial < 300; trial++) {
        int a = (int)ms_rng_below(&rng, (uint64_t)m->npartitions);
        int t = (int)ms_rng_below(&rng, (uint64_t)m->npartitions);
        ms_mig_instance before[MS_MAX_MIG], now[MS_MAX_MIG];
        int nb = build(&m->partitions[a], before);
        uint32_t busy = 0;
        for (int i = 0; i < nb; i++)
            if (ms_rng_uniform(&rng) < 0.35) {
                busy |= 1u << i;
                make_busy(before[i].gi_id, 4000u + (unsigned)i);
            }
        int count[MS_MAX_PROFILES];
        counts_of(&m->partitions[t], count);
        ms_placement have[MS_MAX_MIG];
        placements(before, nb, have);
        int best = most_kept(m, count, have, nb, busy);
        ms_error err = {0};
        int rc = apply_counts(count, false, &err);
        int n = list_now(now);
        for (int i = 0; i < nb; i++)
            if (busy & (1u << i))
                assert_true(has_uuid(now, n, before[i].uuid));
        if (best < 0) {
            /* Refused, nothing changed, a busy instance in the way named with its PID. */
            assert_int_equal(rc, MS_EBUSY);
            assert_int_equal(n, nb);
            for (int i = 0; i < nb; i++)
                assert_true(has_uuid(now, n, before[i].uuid));
            bool named = false;
            for (int i = 0; i < nb; i++) {
                char pid[32];
                snprintf(pid, sizeof pid, "PID %u", 4000u + (unsigned)i);
                named |= (busy & (1u << i)) && strstr(err.msg, before[i].uuid) &&
                         strstr(err.msg, pid);
            }
            if (!named)
                fail_msg("refusal names no busy instance: %s", err.msg);
            assert_non_null(strstr(err.msg, "nothing was changed"));
            refused++;
        } else {
            if (rc)
                fail_msg("partition %d -> %d: %s", a + 1, t + 1, err.msg);
            assert_reached(now, n, count);
            int kept = 0;
            for (int i = 0; i < nb; i++)
                kept += has_uuid(now, n, before[i].uuid);
            assert_int_equal(kept, best);
            reached++;
        }
    }
    /* Both outcomes occur for this seed. */
    assert_true(refused > 20 && reached > 20);
}

static void test_dry_run_changes_nothing(void **unused)
{
    const ms_gpu_model *m = a100();
    ms_mig_instance before[MS_MAX_MIG], now[MS_MAX_MIG];
    int nb = build(&m->partitions[0], before);
    int count[MS_MAX_PROFILES];
    counts_of(&m->partitions[18], count);
    ms_error err = {0};
    assert_int_equal(apply_counts(count, true, &err), MS_OK);
    int n = list_now(now);
    assert_int_equal(n, nb);
    assert_string_equal(now[0].uuid, before[0].uuid);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_keeps_and_moves),
        cmocka_unit_test(test_plan_prefers_the_arrangement_keeping_most),
        cmocka_unit_test(test_plan_refuses_for_busy_and_infeasible),
        cmocka_unit_test(test_plan_names_overlaps),
        cmocka_unit_test(test_plan_odd_instances),
        cmocka_unit_test_setup_teardown(test_all_pairs_of_partitions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_random_busy_instances, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run_changes_nothing, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
