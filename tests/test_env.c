/* test_env.c: the scheduling environment: canonical tables, a hand-checked episode, and
 * property tests over random policies (masks never empty, every schedule valid). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/env.h"
#include "support.h"

static ms_env *make_env(const char *gpu, bool direct, bool online, ms_encoding enc, int n)
{
    ms_env_config c;
    ms_env_config_default(&c);
    c.direct_reconfig = direct;
    c.online = online;
    c.encoding = enc;
    c.n_batch = n;
    ms_error err;
    ms_env *e = ms_env_new(ms_gpu_builtin(gpu), &c, &err);
    assert_non_null(e);
    return e;
}

/* e replaced by an environment of its settings with reconfigurations that do not stop the
 * clock (async) and encoding enc. */
static ms_env *remake_env(ms_env *e, bool async, ms_encoding enc)
{
    ms_env_config c = *ms_env_get_config(e);
    const ms_gpu_model *gpu = ms_gpu_builtin(ms_env_gpu(e)->name);
    c.async_reconfig = async;
    c.encoding = enc;
    ms_env_free(e);
    assert_non_null(e = ms_env_new(gpu, &c, NULL));
    return e;
}

/* The finished episode's schedule: valid, and as long as the episode (makespan, checked by
 * hand by the caller); the caller frees it. */
static ms_schedule *checked_schedule(const ms_env *e, const ms_workload *w, double makespan)
{
    ms_schedule *s;
    assert_int_equal(ms_env_to_schedule(e, "rl", &s, NULL), 0);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
    assert_true(fabs(ms_schedule_makespan(s) - makespan) < 1e-12);
    return s;
}

static void slice_vector(const ms_gpu_model *m, int p, int c[MS_MAX_SLICES])
{
    ms_partition_slice_vector(m, &m->partitions[p], c);
}

/* Every partition read through its σ is its representative; σ is a permutation. */
static void test_canonical_roundtrip(void **state)
{
    const char *gpus[] = {"A30-24GB", "A100-40GB", "H100-80GB"};
    const int expect[] = {4, 13, 13};
    for (int g = 0; g < 3; g++) {
        const ms_gpu_model *m = ms_gpu_builtin(gpus[g]);
        ms_canon_set cs;
        ms_gpu_canonical(m, true, &cs);
        assert_int_equal(cs.n, expect[g]);
        for (int p = 0; p < m->npartitions; p++) {
            if (cs.canon_of[p] < 0)
                continue;
            int cp[MS_MAX_SLICES], cr[MS_MAX_SLICES], inv[MS_MAX_SLICES];
            slice_vector(m, p, cp);
            slice_vector(m, cs.partition[cs.canon_of[p]], cr);
            for (int i = 0; i < m->slices; i++)
                inv[i] = -1;
            for (int i = 0; i < m->slices; i++) {
                assert_int_equal(cp[cs.sigma[p][i]], cr[i]);
                assert_int_equal(inv[cs.sigma[p][i]], -1);
                inv[cs.sigma[p][i]] = i;
            }
            for (int i = 0; i < m->slices; i++)
                assert_int_equal(cs.sigma[p][inv[i]], i);
        }
    }
}

static void test_equivalent_classes(void **state)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_canon_set cs;
    ms_gpu_canonical(m, true, &cs);
    int a = ms_partition_parse(m, "2-1-1-3"), b = ms_partition_parse(m, "1-1-2-3");
    int c = ms_partition_parse(m, "2-2-1-1-1"), d = ms_partition_parse(m, "1-1-2-2-1");
    assert_int_equal(cs.canon_of[a], cs.canon_of[b]);
    assert_int_equal(cs.partition[cs.canon_of[b]], a); /* lexicographically highest */
    assert_int_not_equal(cs.canon_of[c], cs.canon_of[d]);
    assert_int_equal(cs.canon_of[ms_partition_parse(m, "3-2-1")], -1); /* useless, dropped */
}

static ms_workload *table2_workload(void)
{
    ms_workload *w = ms_workload_new();
    double t1[MS_MAX_SLICES + 1], t2[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        t1[s] = t2[s] = INFINITY;
    t1[1] = 25, t1[2] = 10, t1[4] = 10;
    t2[1] = 12, t2[2] = 5, t2[4] = 2;
    assert_int_equal(ms_workload_add(w, "task1", t1, NULL, NULL, NULL), 0);
    assert_int_equal(ms_workload_add(w, "task2", t2, NULL, NULL, NULL), 0);
    assert_int_equal(ms_workload_add(w, "task3", t2, NULL, NULL, NULL), 0);
    return w;
}

/* Paper 001 Table 2 on A30 with 2-2 (Fig. 2, right), checked by hand: creations 0.12 + 0.12
 * one after the other, task1 on the first 2g (10 s), task2 then task3 on the second (5 s
 * each): makespan 0.24 + 10 = 10.24. */
static void test_table2_episode(void **state)
{
    ms_env *e = make_env("A30-24GB", true, false, MS_ENC_FLOAT, 14);
    const ms_gpu_model *m = ms_env_gpu(e);
    ms_workload *w = table2_workload();
    assert_int_equal(ms_env_reset(e, w, NULL), 0);
    assert_true(ms_env_scale(e) == 25);
    uint8_t mask[256];
    int n = ms_env_mask(e, mask);
    assert_int_equal(n, 4); /* empty GPU: only the 4 canonical configurations */
    int c22 = ms_env_canon(e)->canon_of[ms_partition_parse(m, "2-2")];
    bool done;
    double ret = ms_env_step(e, ms_env_action_reconfig(e, c22), &done);
    assert_true(fabs(ms_env_now(e) - 0.24) < 1e-12);
    ms_env_mask(e, mask);
    assert_false(mask[MS_ACTION_ADVANCE]);              /* GPU idle */
    assert_false(mask[ms_env_action_reconfig(e, c22)]); /* not twice in a row */
    assert_true(mask[ms_env_action_exec(e, 0, 0)] && mask[ms_env_action_exec(e, 1, 1)]);
    assert_false(mask[ms_env_action_exec(e, 2, 0)]);           /* padding */
    assert_false(mask[ms_env_action_exec(e, 0, 2)]);           /* no third instance */
    ret += ms_env_step(e, ms_env_action_exec(e, 0, 0), &done); /* class 0 = task1 */
    ret += ms_env_step(e, ms_env_action_exec(e, 0, 1), &done); /* now task2/3 */
    assert_false(done);
    ms_env_mask(e, mask);
    assert_false(mask[ms_env_action_exec(e, 0, 0)] || mask[ms_env_action_exec(e, 0, 1)]);
    ret += ms_env_step(e, MS_ACTION_ADVANCE, &done);
    assert_true(fabs(ms_env_now(e) - 5.24) < 1e-12);
    ret += ms_env_step(e, ms_env_action_exec(e, 0, 1), &done);
    assert_true(done);
    assert_true(fabs(ms_env_now(e) - 10.24) < 1e-12);
    assert_true(fabs(ret + 10.24 / 25) < 1e-12);
    ms_schedule_free(checked_schedule(e, w, 10.24));
    ms_workload_free(w);
    ms_env_free(e);
}

/* The same with reconfigurations that do not stop the clock (async_reconfig), by hand: the
 * step that orders 2-2 returns at 0.12, when the first 2g is created (forced Advance), and
 * task1 starts there (10 s: ends 10.12) while the second is created until 0.24; task2 and
 * task3 then run on it one after the other: makespan 10.24, and task1 ends 0.12 s sooner. */
static void test_table2_episode_async(void **state)
{
    ms_env *e = remake_env(make_env("A30-24GB", true, false, MS_ENC_FLOAT, 14), true, MS_ENC_FLOAT);
    ms_workload *w = table2_workload();
    assert_int_equal(ms_env_reset(e, w, NULL), 0);
    uint8_t mask[256];
    bool done;
    int c22 = ms_env_canon(e)->canon_of[ms_partition_parse(ms_env_gpu(e), "2-2")];
    double ret = ms_env_step(e, ms_env_action_reconfig(e, c22), &done);
    assert_true(fabs(ms_env_now(e) - 0.12) < 1e-12);
    ms_env_mask(e, mask);
    assert_true(mask[MS_ACTION_ADVANCE]); /* the second 2g is still being created */
    int ready = mask[ms_env_action_exec(e, 0, 0)] ? 0 : 1;
    assert_true(mask[ms_env_action_exec(e, 0, ready)]);
    assert_false(mask[ms_env_action_exec(e, 0, 1 - ready)]);
    ret += ms_env_step(e, ms_env_action_exec(e, 0, ready), &done); /* task1 */
    ret += ms_env_step(e, MS_ACTION_ADVANCE, &done);
    assert_true(fabs(ms_env_now(e) - 0.24) < 1e-12);
    ret += ms_env_step(e, ms_env_action_exec(e, 0, 1 - ready), &done); /* task2 */
    ret += ms_env_step(e, MS_ACTION_ADVANCE, &done);
    assert_true(fabs(ms_env_now(e) - 5.24) < 1e-12);
    ret += ms_env_step(e, ms_env_action_exec(e, 0, 1 - ready), &done); /* task3 */
    assert_true(done);
    assert_true(fabs(ms_env_now(e) - 10.24) < 1e-12);
    assert_true(fabs(ret + 10.24 / 25) < 1e-12);
    ms_schedule *s = checked_schedule(e, w, 10.24);
    for (int t = 0; t < s->ntasks; t++)
        if (s->task[t].index == 0)
            assert_true(fabs(s->task[t].end - 10.12) < 1e-12);
    ms_schedule_free(s);
    ms_workload_free(w);
    ms_env_free(e);
}

/* EXACT writes t / scale where FLOAT writes level / M (Table 2 on A30, scale 25, by hand):
 * task1 (25, 10, 10 s) and the class of task2 and task3 (12, 5, 2 s), and after 2-2 is
 * created and task1 started on one 2g, that instance's 10 s left. */
static void test_exact_times(void **state)
{
    ms_env *e = make_env("A30-24GB", true, false, MS_ENC_FLOAT, 14);
    int n = ms_env_obs_size(e);
    e = remake_env(e, false, MS_ENC_EXACT);
    assert_int_equal(ms_env_obs_size(e), n);
    ms_workload *w = table2_workload();
    assert_int_equal(ms_env_reset(e, w, NULL), 0);
    float obs[256];
    ms_env_observe(e, obs);
    const float *rows = obs + 5 + 4; /* 4 configurations + empty, 4 slices */
    const float want[2][4] = {{1, 0.4f, 0.4f, 1 / 14.0f}, {0.48f, 0.2f, 0.08f, 2 / 14.0f}};
    for (int j = 0; j < 2; j++)
        for (int k = 0; k < 4; k++)
            assert_float_equal(rows[j * 4 + k], want[j][k], 1e-6);
    bool done;
    ms_env_step(e,
                ms_env_action_reconfig(
                    e, ms_env_canon(e)->canon_of[ms_partition_parse(ms_env_gpu(e), "2-2")]),
                &done);
    ms_env_step(e, ms_env_action_exec(e, 0, 0), &done);
    ms_env_observe(e, obs);
    int busy = 0;
    for (int i = 0; i < 4; i++) {
        assert_true(obs[5 + i] == 0 || fabsf(obs[5 + i] - 0.4f) < 1e-6f);
        busy += obs[5 + i] > 0;
    }
    assert_int_equal(busy, 2); /* both slices of task1's 2g: 10 s of 25 */
    const char *names[] = {"float", "one-hot", "exact"};
    for (int i = 0; i < 3; i++) {
        ms_encoding enc;
        assert_int_equal(ms_env_encoding_parse(names[i], &enc), 0);
        assert_string_equal(ms_env_encoding_name(enc), names[i]);
    }
    ms_encoding enc;
    assert_int_equal(ms_env_encoding_parse("exactly", &enc), MS_EINVAL);
    ms_workload_free(w);
    ms_env_free(e);
}

/* Tasks whose times round to the same levels form one class: the earliest runs first
 * (paper 001), or with longest_first the longest. A30, M = 14, scale 25: 12 and 12.4 s are
 * both level 7 on one slice, 5 and 5.1 level 3 on two, 2 and 2.05 level 1 on four. */
static void test_longest_first(void **state)
{
    ms_workload *w = table2_workload();
    double t[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        t[s] = INFINITY;
    t[1] = 12.4, t[2] = 5.1, t[4] = 2.05;
    assert_int_equal(ms_workload_add(w, "task4", t, NULL, NULL, NULL), 0);
    for (int longest = 0; longest < 2; longest++) {
        ms_env_config c;
        ms_env_config_default(&c);
        c.encoding = MS_ENC_EXACT;
        c.longest_first = longest;
        ms_env *e = ms_env_new(ms_gpu_builtin("A30-24GB"), &c, NULL);
        assert_non_null(e);
        assert_int_equal(ms_env_reset(e, w, NULL), 0);
        float obs[256];
        const float *row1 = obs + 5 + 4 + 4; /* the second class's times and count */
        ms_env_observe(e, obs);
        assert_float_equal(row1[0], (longest ? 12.4f : 12.0f) / 25, 1e-6);
        assert_float_equal(row1[3], 3 / 14.0f, 1e-6);
        bool done;
        ms_env_step(e,
                    ms_env_action_reconfig(
                        e, ms_env_canon(e)->canon_of[ms_partition_parse(ms_env_gpu(e), "2-2")]),
                    &done);
        ms_env_step(e, ms_env_action_exec(e, 1, 0), &done);
        ms_env_observe(e, obs);
        /* The other task of the class is next: task2 (12 s) after task4, else task3. */
        assert_float_equal(row1[0], 12.0f / 25, 1e-6);
        assert_float_equal(row1[3], 2 / 14.0f, 1e-6);
        while (!done) { /* the rest: any start allowed, else the advance */
            uint8_t mask[128];
            ms_env_mask(e, mask);
            int a = ms_env_num_actions(e) - 1;
            while (a > 0 && !mask[a])
                a--;
            ms_env_step(e, a, &done);
        }
        ms_schedule *s;
        assert_int_equal(ms_env_to_schedule(e, "rl", &s, NULL), 0);
        assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
        ms_schedule_free(s);
        ms_env_free(e);
    }
    ms_workload_free(w);
}

/* Random tasks: times non-increasing in size, sometimes infinite on small sizes. */
static ms_workload *random_workload(const ms_gpu_model *m, int n, ms_rng *rng)
{
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < n; i++) {
        double t[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            t[s] = INFINITY;
        double cur = 1 + 99 * ms_rng_uniform(rng);
        int inf_below = ms_rng_below(rng, 8) == 0 ? m->sizes[ms_rng_below(rng, m->nsizes)] : 0;
        for (int k = 0; k < m->nsizes; k++) {
            int s = m->sizes[k];
            t[s] = s < inf_below ? INFINITY : cur;
            cur *= 0.5 + 0.5 * ms_rng_uniform(rng);
        }
        char name[16];
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(ms_workload_add(w, name, t, NULL, NULL, NULL), 0);
    }
    return w;
}

static void random_episodes(const char *gpu, bool direct, bool online, ms_encoding enc, bool async,
                            bool soonest, bool on_use, int episodes, uint64_t seed)
{
    ms_env *e = remake_env(make_env(gpu, direct, online, MS_ENC_FLOAT, online ? 5 : 7), async, enc);
    if (soonest || on_use) {
        ms_env_config c = *ms_env_get_config(e);
        c.soonest_placement = soonest;
        c.every_partition = c.keep_useless = c.create_on_use = c.task_classes = on_use;
        ms_env_free(e);
        assert_non_null(e = ms_env_new(ms_gpu_builtin(gpu), &c, NULL));
    }
    const ms_gpu_model *m = ms_env_gpu(e);
    int A = ms_env_num_actions(e);
    uint8_t *mask = malloc((size_t)A);
    float *obs = malloc((size_t)ms_env_obs_size(e) * sizeof(float));
    ms_rng rng;
    ms_rng_seed(&rng, seed);
    for (int ep = 0; ep < episodes; ep++) {
        ms_workload *w = random_workload(m, 1 + (int)ms_rng_below(&rng, 20), &rng);
        assert_int_equal(ms_env_reset(e, w, NULL), 0);
        int part = -1; /* every third episode: a random configuration, some instances busy */
        if (ep % 3 == 2) {
            const ms_canon_set *cs = ms_env_canon(e);
            part = cs->partition[ms_rng_below(&rng, (uint64_t)cs->n)];
            double busy[MS_MAX_INSTANCES];
            for (int k = 0; k < m->partitions[part].n; k++)
                busy[k] = ms_rng_below(&rng, 2) ? ms_rng_uniform(&rng) * ms_env_scale(e) : 0;
            assert_int_equal(ms_env_reset_from(e, w, part, busy, NULL), 0);
            assert_int_equal(ms_env_real_partition(e), part);
        }
        bool done = false;
        double ret = 0, bound = 0; /* the highest makespan bound along the episode */
        int steps = 0;
        while (!done) {
            int n = ms_env_mask(e, mask);
            assert_true(n >= 1);
            bound = fmax(bound, ms_env_makespan_bound(e));
            ms_env_observe(e, obs);
            const float *rem = obs + ms_env_canon(e)->n + 1; /* remaining times */
            for (int i = 0; enc == MS_ENC_EXACT && i < m->slices; i++)
                assert_true(rem[i] >= 0 && rem[i] <= 1);
            int pick = (int)ms_rng_below(&rng, (uint64_t)n), a = 0;
            for (a = 0; a < A; a++)
                if (mask[a] && pick-- == 0)
                    break;
            /* Every other episode reconfigures whenever it may (the highest allowed
             * configuration): episodes must still end. */
            for (int c = ms_env_canon(e)->n - 1; (ep & 1) && c >= 0; c--)
                if (mask[ms_env_action_reconfig(e, c)]) {
                    a = ms_env_action_reconfig(e, c);
                    break;
                }
            ret += ms_env_step(e, a, &done);
            assert_true(++steps < 100000);
        }
        assert_int_equal(ms_env_mask(e, mask), 0);
        assert_true(bound <= ms_env_now(e)); /* a bound, exactly: rollouts cut against it */
        assert_true(ms_env_makespan_bound(e) == ms_env_now(e));
        ms_schedule *s;
        assert_int_equal(ms_env_to_schedule(e, "rl", &s, NULL), 0);
        ms_validation v = {0};
        int bad = ms_schedule_validate(s, w, &v);
        if (bad)
            fail_msg("%s direct=%d online=%d async=%d soonest=%d episode %d: %s: %s", gpu, direct,
                     online, async, soonest, ep, v.v[0].rule, v.v[0].msg);
        ms_validation_fini(&v);
        int initial = 0;
        for (int i = 0; i < s->ninst; i++)
            initial += isnan(s->inst[i].create_start);
        assert_int_equal(initial, part < 0 ? 0 : m->partitions[part].n);
        double mk = ms_schedule_makespan(s);
        assert_true(fabs(mk - ms_env_now(e)) < 1e-9 * (1 + mk));
        assert_true(fabs(ret + mk / ms_env_scale(e)) < 1e-9 * (1 + mk));
        ms_schedule_free(s);
        ms_workload_free(w);
    }
    free(mask);
    free(obs);
    ms_env_free(e);
}

static void test_random_policies(void **state)
{
    /* A configuration the canonical set dropped (3g on slots 0-3) is refused by name. */
    ms_env *e = make_env("A100-40GB", true, false, MS_ENC_FLOAT, 7);
    const ms_canon_set *cs = ms_env_canon(e);
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    ms_workload *w = random_workload(ms_env_gpu(e), 3, &rng);
    double busy[MS_MAX_INSTANCES] = {0};
    ms_error err;
    for (int p = 0; p < ms_env_gpu(e)->npartitions; p++)
        if (cs->canon_of[p] < 0) {
            assert_int_equal(ms_env_reset_from(e, w, p, busy, &err), MS_EINVAL);
            assert_non_null(strstr(err.msg, "configurations"));
        }
    ms_workload_free(w);
    ms_env_free(e);

    const char *gpus[] = {"A30-24GB", "A100-40GB", "H100-80GB"};
    for (int g = 0; g < 3; g++)
        for (int mode = 0; mode < 10; mode++) {
            /* 4, 5: direct and asynchronous; 6: those with the soonest placement, 7: the 4.2
             * reconfigurations with it; 8, 9: asynchronous, every partition, instances
             * created on use, a class per task, offline and online. */
            bool async = mode >= 4 && mode != 7, online = mode < 4 ? mode & 2 : mode % 4 == 1;
            random_episodes(gpus[g], (mode & 1 || async) && mode != 7, online,
                            async      ? MS_ENC_EXACT
                            : mode & 1 ? MS_ENC_FLOAT
                                       : MS_ENC_ONEHOT,
                            async, mode == 6 || mode == 7, mode >= 8, 150,
                            17 + (uint64_t)(g * 8 + mode));
        }
}

/* With the soonest placement a reconfiguration takes, of the placements of its canonical
 * configuration, the one whose destroyed instances free first. A100, seven 1g instances,
 * slots 0 and 1 busy for 100 s: to 2g + five 1g, the fixed placement merges slots 0-1 (the
 * partition's σ is the identity) and waits for them; the soonest merges the free slots 2-3.
 * A direct reconfiguration stops the clock until its instance is created, after the two
 * destructions. */
static void test_soonest_placement(void **state)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    int seven = ms_partition_parse(m, "1-1-1-1-1-1-1"), at0 = ms_partition_parse(m, "2-1-1-1-1-1"),
        at2 = ms_partition_parse(m, "1-1-2-1-1-1");
    ms_rng rng;
    ms_rng_seed(&rng, 3);
    ms_workload *w = random_workload(m, 4, &rng);
    double busy[MS_MAX_INSTANCES] = {100, 100, 0, 0, 0, 0, 0};
    for (int soonest = 0; soonest < 2; soonest++) {
        ms_env_config c;
        ms_env_config_default(&c);
        c.soonest_placement = soonest;
        ms_env *e = ms_env_new(m, &c, NULL);
        assert_non_null(e);
        assert_int_equal(ms_env_reset_from(e, w, seven, busy, NULL), 0);
        int canon = ms_env_canon(e)->canon_of[at0];
        assert_int_equal(ms_env_canon(e)->canon_of[at2], canon);
        bool done;
        ms_env_step(e, ms_env_action_reconfig(e, canon), &done);
        assert_int_equal(ms_env_real_partition(e), soonest ? at2 : at0);
        assert_int_equal(ms_env_canon_config(e), canon);
        double created = 2 * ms_gpu_destroy_time(m, 1) + ms_gpu_create_time(m, 2);
        assert_true(fabs(ms_env_now(e) - ((soonest ? 0 : 100) + created)) < 1e-9);
        ms_env_free(e);
    }
    ms_workload_free(w);
}

/* every_partition: each kept partition is its own configuration (19 on the A100 with the
 * useless ones, 13 without, as many as the canonical classes are not), and a
 * reconfiguration reaches exactly the partition it names, of two symmetric placements too. */
static void test_every_partition(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    int at0 = ms_partition_parse(m, "2-1-1-1-1-1"), at2 = ms_partition_parse(m, "1-1-2-1-1-1");
    for (int keep = 0; keep < 2; keep++) {
        ms_env_config c;
        ms_env_config_default(&c);
        c.every_partition = true;
        c.keep_useless = keep;
        ms_env *e = ms_env_new(m, &c, NULL);
        assert_non_null(e);
        const ms_canon_set *cs = ms_env_canon(e);
        int kept = 0;
        for (int p = 0; p < m->npartitions; p++)
            kept += !ms_partition_useless(m, &m->partitions[p]);
        assert_int_equal(cs->n, keep ? m->npartitions : kept);
        assert_int_equal(m->npartitions, 19);
        assert_int_not_equal(cs->canon_of[at0], cs->canon_of[at2]);
        ms_rng rng;
        ms_rng_seed(&rng, 3);
        ms_workload *w = random_workload(m, 4, &rng);
        for (int c0 = 0; c0 < cs->n; c0++) {
            assert_int_equal(cs->canon_of[cs->partition[c0]], c0);
            assert_int_equal(ms_env_reset_from(e, w, at0, (double[MS_MAX_INSTANCES]){0}, NULL), 0);
            if (cs->partition[c0] == at0)
                continue;
            bool done;
            ms_env_step(e, ms_env_action_reconfig(e, c0), &done);
            assert_int_equal(ms_env_real_partition(e), cs->partition[c0]);
        }
        ms_workload_free(w);
        ms_env_free(e);
    }
}

/* create_on_use, by hand on the A100: a (10 s, 1 slice only) and b (5 s, 7 slices only).
 * To seven 1g instances, a on 1g@3 creates that one alone (at 0) and starts when it exists;
 * then to the whole GPU: only 1g@3 is destroyed (once a ends), and b's 7g is created when
 * b is placed: makespan c1 + 10 + d1 + c7 + 5, two instances in the schedule. Creating
 * every instance at the reconfiguration, a's exists after four creations (4 c1, and eight
 * instances). */
static void test_create_on_use(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "a", 1, 10);
    test_add_only_task(w, "b", 7, 5);
    double c1 = ms_gpu_create_time(m, 1), c7 = ms_gpu_create_time(m, 7);
    double d1 = ms_gpu_destroy_time(m, 1);
    ms_env_config stop;
    ms_env_config_default(&stop);
    stop.create_on_use = true; /* direct reconfigurations that stop the clock: refused */
    ms_error err;
    assert_null(ms_env_new(m, &stop, &err));
    assert_non_null(strstr(err.msg, "create-on-use needs async-reconfig"));
    for (int on_use = 0; on_use < 2; on_use++) {
        ms_env_config c;
        ms_env_config_default(&c);
        c.async_reconfig = c.every_partition = c.keep_useless = true;
        c.create_on_use = on_use;
        c.encoding = MS_ENC_EXACT;
        ms_env *e = ms_env_new(m, &c, NULL);
        assert_non_null(e);
        const ms_canon_set *cs = ms_env_canon(e);
        int seven = cs->canon_of[ms_partition_parse(m, "1-1-1-1-1-1-1")];
        int whole = cs->canon_of[ms_partition_parse(m, "7")];
        assert_int_equal(ms_env_reset(e, w, NULL), 0);
        bool done;
        ms_env_step(e, ms_env_action_reconfig(e, seven), &done);
        uint8_t mask[256];
        assert_true(ms_env_num_actions(e) <= (int)sizeof mask);
        for (bool placed = false; !placed;) { /* a on 1g@3 once it may run there */
            ms_env_mask(e, mask);
            int a = MS_ACTION_ADVANCE;
            for (int j = 0; j < 2; j++)
                if (mask[ms_env_action_exec(e, j, 3)])
                    a = ms_env_action_exec(e, j, 3);
            placed = a != MS_ACTION_ADVANCE;
            ms_env_step(e, a, &done);
        }
        ms_env_step(e, ms_env_action_reconfig(e, whole), &done);
        while (!done) { /* then b once it may run */
            ms_env_mask(e, mask);
            int b = ms_env_action_exec(e, 0, 0);
            ms_env_step(e, mask[b] ? b : MS_ACTION_ADVANCE, &done);
        }
        ms_schedule *s = checked_schedule(e, w, (on_use ? c1 : 4 * c1) + 10 + d1 + c7 + 5);
        assert_int_equal(s->ninst, on_use ? 2 : 8);
        ms_schedule_free(s);
        ms_env_free(e);
    }
    ms_workload_free(w);
}

/* task_classes: a (10 s) and b (9.9 s), 1 slice only, share a class at 14 levels (b runs
 * as it, the class's earliest being a); with a class per task b can be named, and runs on
 * the instance it is given. */
static void test_task_classes(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_workload *w = ms_workload_new();
    test_add_only_task(w, "a", 1, 10);
    test_add_only_task(w, "b", 1, 9.9);
    for (int own = 0; own < 2; own++) {
        ms_env_config c;
        ms_env_config_default(&c);
        c.task_classes = own;
        ms_env *e = ms_env_new(m, &c, NULL);
        assert_non_null(e);
        assert_int_equal(ms_env_reset(e, w, NULL), 0);
        bool done;
        int seven = ms_env_canon(e)->canon_of[ms_partition_parse(m, "1-1-1-1-1-1-1")];
        ms_env_step(e, ms_env_action_reconfig(e, seven), &done);
        uint8_t mask[256];
        ms_env_mask(e, mask);
        assert_int_equal(mask[ms_env_action_exec(e, 1, 0)], own);
        ms_env_step(e, ms_env_action_exec(e, own, 0), &done); /* b, or a as the class */
        ms_env_step(e, ms_env_action_exec(e, 0, 1), &done);
        assert_true(done);
        ms_schedule *s;
        assert_int_equal(ms_env_to_schedule(e, "rl", &s, NULL), 0);
        assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
        for (int t = 0; t < s->ntasks; t++)
            if (s->task[t].index == 1) /* b on the first instance only when named */
                assert_int_equal(s->inst[s->task[t].instance].start_slot, own ? 0 : 1);
        ms_schedule_free(s);
        ms_env_free(e);
    }
    ms_workload_free(w);
}

/* Picks the k-th allowed action (k below the number allowed). */
static int allowed_at(const uint8_t *mask, int A, uint64_t k)
{
    for (int a = 0; a < A; a++)
        if (mask[a] && k-- == 0)
            return a;
    return -1;
}

/* A copy taken mid-episode plays on exactly as the original would (same observations, masks,
 * rewards and schedule under the same actions), and playing it leaves the original as it
 * was; environments of other settings refuse to copy. */
static void test_copy(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        ms_env *e = make_env("A100-40GB", true, mode, MS_ENC_FLOAT, 7);
        ms_env *c = make_env("A100-40GB", true, mode, MS_ENC_FLOAT, 7);
        int A = ms_env_num_actions(e), O = ms_env_obs_size(e);
        uint8_t *m1 = malloc((size_t)A), *m2 = malloc((size_t)A);
        float *o1 = malloc((size_t)O * sizeof(float)), *o2 = malloc((size_t)O * sizeof(float));
        ms_rng rng;
        ms_rng_seed(&rng, 41 + (uint64_t)mode);
        for (int ep = 0; ep < 60; ep++) {
            ms_workload *w = random_workload(ms_env_gpu(e), 1 + (int)ms_rng_below(&rng, 18), &rng);
            assert_int_equal(ms_env_reset(e, w, NULL), 0);
            bool done = false;
            int at = (int)ms_rng_below(&rng, 6);
            for (int i = 0; i < at && !done; i++)
                ms_env_step(e, allowed_at(m1, A, ms_rng_below(&rng, (uint64_t)ms_env_mask(e, m1))),
                            &done);
            if (done) {
                ms_workload_free(w);
                continue;
            }
            assert_int_equal(ms_env_copy(c, e, NULL), 0);
            double k1[MS_ENV_KEY_MAX], k2[MS_ENV_KEY_MAX];
            int nk = ms_env_future_key(e, k1);
            assert_int_equal(ms_env_future_key(c, k2), nk);
            assert_memory_equal(k1, k2, (size_t)nk * sizeof *k1);
            ms_env_observe(e, o1);
            ms_rng branch = rng; /* the copy and then the original play the same actions */
            bool dc = false;
            while (!dc) {
                uint64_t k = ms_rng_below(&branch, (uint64_t)ms_env_mask(c, m2));
                ms_env_step(c, allowed_at(m2, A, k), &dc);
            }
            ms_env_observe(e, o2); /* the original did not move */
            assert_memory_equal(o1, o2, (size_t)O * sizeof(float));
            ms_schedule *sc, *se;
            assert_int_equal(ms_env_to_schedule(c, "rl", &sc, NULL), 0);
            while (!done) {
                int n = ms_env_mask(e, m1);
                assert_int_equal(n, ms_env_mask(e, m2));
                ms_env_step(e, allowed_at(m1, A, ms_rng_below(&rng, (uint64_t)n)), &done);
            }
            assert_int_equal(ms_env_to_schedule(e, "rl", &se, NULL), 0);
            assert_true(ms_env_now(c) == ms_env_now(e));
            assert_int_equal(ms_env_steps(c), ms_env_steps(e));
            assert_int_equal(sc->ninst, se->ninst);
            assert_int_equal(sc->ntasks, se->ntasks);
            for (int t = 0; t < sc->ntasks; t++) {
                assert_int_equal(sc->task[t].index, se->task[t].index);
                assert_int_equal(sc->task[t].instance, se->task[t].instance);
                assert_true(sc->task[t].start == se->task[t].start);
            }
            assert_int_equal(ms_schedule_validate(sc, w, NULL), 0);
            ms_schedule_free(sc);
            ms_schedule_free(se);
            ms_workload_free(w);
        }
        ms_env *other = make_env("A100-40GB", true, !mode, MS_ENC_FLOAT, 7);
        ms_error err;
        assert_int_equal(ms_env_copy(other, e, &err), MS_EINVAL);
        assert_non_null(strstr(err.msg, "same GPU"));
        ms_env_free(other);
        free(m1);
        free(m2);
        free(o1);
        free(o2);
        ms_env_free(c);
        ms_env_free(e);
    }
}

/* The observation is canonical: the same batch on equivalent real partitions reads the same. */
static void test_observation_layout(void **state)
{
    ms_env *e = make_env("A100-40GB", true, false, MS_ENC_ONEHOT, 14);
    assert_int_equal(ms_env_num_actions(e), 1 + 13 + 14 * 7);
    assert_int_equal(ms_env_obs_size(e), 14 + 7 * 14 + 14 * (5 * 14 + 1) + 1);
    ms_env_free(e);
    e = make_env("A100-40GB", true, false, MS_ENC_FLOAT, 14);
    assert_int_equal(ms_env_obs_size(e), 14 + 7 + 14 * 6 + 1);
    ms_env_free(e);
    assert_int_equal(ms_env_level(0, 10, 14), 0);
    assert_int_equal(ms_env_level(0.01, 10, 14), 1);
    assert_int_equal(ms_env_level(5, 10, 14), 7);
    assert_int_equal(ms_env_level(50, 10, 14), 14);
    assert_int_equal(ms_env_level(INFINITY, 10, 14), 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_canonical_roundtrip), cmocka_unit_test(test_equivalent_classes),
        cmocka_unit_test(test_table2_episode),      cmocka_unit_test(test_table2_episode_async),
        cmocka_unit_test(test_exact_times),         cmocka_unit_test(test_longest_first),
        cmocka_unit_test(test_soonest_placement),   cmocka_unit_test(test_random_policies),
        cmocka_unit_test(test_observation_layout),  cmocka_unit_test(test_copy),
        cmocka_unit_test(test_every_partition),     cmocka_unit_test(test_create_on_use),
        cmocka_unit_test(test_task_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
