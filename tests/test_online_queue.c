/* test_online_queue.c: the online simulator's queue disciplines (per-profile FCFS, strict
 * FCFS, the aging reservation) on a hand-checked trace and as properties with the
 * reservation invariant checked after every event, the cost-aware migration rule (every
 * decision's gain exceeds its cost; the break-even cost computed by hand), determinism. */
#include "support.h"

#include <stdio.h>
#include <string.h>

#include "migsched/online.h"

static void parse(const ms_gpu_model *m, const char *text, ms_online_workload *w)
{
    ms_error err;
    if (ms_online_trace_parse(text, strlen(text), "test", m, w, &err))
        fail_msg("%s", err.msg);
}

static void simulate(const ms_gpu_model *m, const ms_online_workload *w, const ms_online_config *c,
                     ms_online_result *r)
{
    ms_error err = {0};
    if (ms_online_simulate(m, w, c, r, &err))
        fail_msg("%s", err.msg);
}

/* One A100-40GB, first fit, kappa 0. A (1g, 100 s) takes slot 0 at 0.16; B (4g, at 1) needs
 * slots 0-3; C (1g, 5 s, at 2) and D (1g, 500 s, at 3).
 * - fcfs-profile: C and D go to slots 1 and 2 at once (2.16, 3.16); B waits for D (503.16),
 *   then three idle 1g instances are destroyed (0.20 s each) and a 4g created: 503.97.
 * - fcfs: C and D wait behind B; when A ends (100.16) its instance is destroyed and B's
 *   created (100.57), then C's and D's 1g instances at slots 4 and 5 (100.73, 100.89).
 * - reserve after 0 s: B reserves slots 0-3 from t=1, expected free at 100.16. C is expected
 *   to end at 7.16, so it backfills outside them (slot 4, 2.16); D would run past 100.16
 *   and waits; at 100.16 B starts as under fcfs and D reuses C's idle instance at once.
 * - reserve after 50 s: nothing has waited 50 s before D arrives: as fcfs-profile. */
static void test_disciplines_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    parse(m,
          "arrival,profile,work,name\n0,1g.5gb,100,A\n1,4g.20gb,10,B\n2,1g.5gb,5,C\n"
          "3,1g.5gb,500,D\n",
          &w);
    assert_near(ms_gpu_create_time(m, 4), 0.21, 1e-12);
    static const struct {
        int queue;
        double after, start[4];
    } cases[] = {
        {MS_QUEUE_FCFS_PROFILE, 0, {0.16, 503.97, 2.16, 3.16}},
        {MS_QUEUE_FCFS, 0, {0.16, 100.57, 100.73, 100.89}},
        {MS_QUEUE_RESERVE, 0, {0.16, 100.57, 2.16, 100.16}},
        {MS_QUEUE_RESERVE, 50, {0.16, 503.97, 2.16, 3.16}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ms_online_config c;
        ms_online_config_defaults(&c);
        c.gpus = 1;
        c.policy = MS_POLICY_FF_DYNAMIC;
        c.kappa = 0;
        c.queue = cases[i].queue;
        c.reserve_after = cases[i].after;
        c.check = true;
        c.check_full_every = 1;
        ms_online_result r;
        simulate(m, &w, &c, &r);
        for (int j = 0; j < 4; j++)
            assert_near(r.start[j], cases[i].start[j], 1e-9);
        ms_online_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* An overloaded random workload with every profile, the whole GPU included. */
static void overloaded(const ms_gpu_model *m, ms_rng *rng, int gpus, ms_online_workload *w)
{
    ms_online_gen g;
    ms_online_gen_defaults(m, &g);
    g.jobs = 40 + (int)ms_rng_below(rng, 120);
    g.nmix = m->nprofiles;
    for (int p = 0; p < m->nprofiles; p++) {
        g.mix_profile[p] = p;
        g.mix_weight[p] = 1.0 + (double)ms_rng_below(rng, 4);
    }
    g.service = (int)ms_rng_below(rng, 2);
    g.service_median = 20 + (double)ms_rng_below(rng, 100);
    g.arrival_mean = g.service_median / (gpus * (1.0 + (double)ms_rng_below(rng, 4)));
    assert_int_equal(ms_online_generate(m, &g, rng, w, NULL), 0);
}

/* Every discipline on overloaded traces of every model, the whole state checked after every
 * event (the reservation invariant included: nobody takes the reserved slots or is admitted
 * on the reserved GPU unless expected to leave before they free). Strict FCFS on a static
 * layout starts jobs in arrival order. */
static void test_disciplines_keep_invariants(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 17);
    int runs = 0;
    for (int mi = 0; mi < ms_gpu_builtin_count(); mi++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(mi);
        for (int trial = 0; trial < 10; trial++) {
            int gpus = 1 + (int)ms_rng_below(&rng, 6);
            ms_online_workload w;
            overloaded(m, &rng, gpus, &w);
            for (int v = 0; v < 9; v++) {
                ms_online_config c;
                ms_online_config_defaults(&c);
                c.gpus = gpus;
                c.queue = v % 3;
                c.reserve_after = (double)ms_rng_below(&rng, 3) * 30;
                c.policy = v < 3   ? MS_POLICY_FRAG
                           : v < 6 ? MS_POLICY_FF_DYNAMIC
                                   : MS_POLICY_FF_STATIC;
                c.kappa = trial % 2 ? 0.05 : 0.0;
                c.migration_rule = trial % 3 ? MS_MIGRATE_COST_AWARE : MS_MIGRATE_ALWAYS;
                c.check = true;
                c.check_full_every = 1;
                ms_online_result r;
                ms_error err = {0};
                int rc = ms_online_simulate(m, &w, &c, &r, &err);
                if (rc == MS_EINFEASIBLE && c.policy == MS_POLICY_FF_STATIC)
                    continue;
                if (rc)
                    fail_msg("%s, %d GPUs, variant %d: %s", m->name, gpus, v, err.msg);
                for (int j = 0; j < w.n; j++)
                    assert_true(r.start[j] >= w.jobs[j].arrival - 1e-9);
                if (c.queue == MS_QUEUE_FCFS && c.policy == MS_POLICY_FF_STATIC)
                    for (int j = 1; j < w.n; j++)
                        assert_true(r.start[j] >= r.start[j - 1] - 1e-9);
                ms_online_result_fini(&r);
                runs++;
            }
            ms_online_workload_fini(&w);
        }
    }
    assert_true(runs > 400);
}

/* A stream of 1g jobs keeps two GPUs partly busy; a whole-GPU job arriving at 10 s waits
 * until the stream ends under per-profile FCFS, but with a reservation after 60 s it starts
 * within 60 s + one 1g job's 30 s (+ reconfiguration). */
static void test_reservation_ends_starvation(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    char text[64 * 1024] = "arrival,profile,work\n";
    size_t len = strlen(text);
    for (int i = 0; i < 1000; i++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "%d,1g.5gb,30\n", 2 * i);
        if (i == 5)
            len += (size_t)snprintf(text + len, sizeof text - len, "10,7g.40gb,100\n");
    }
    ms_online_workload w;
    parse(m, text, &w);
    int big = 6;
    assert_int_equal(w.jobs[big].profile, ms_gpu_profile_by_name(m, "7g.40gb"));
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = 2;
    c.check = true;
    ms_online_result r;
    simulate(m, &w, &c, &r);
    assert_true(r.start[big] > 1900);
    ms_online_result_fini(&r);
    c.queue = MS_QUEUE_RESERVE;
    c.reserve_after = 60;
    simulate(m, &w, &c, &r);
    assert_true(r.start[big] <= 10 + 60 + 30 + 2);
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* Fig. 2 of paper 002: seven 1g.5gb jobs fill an A100; the short ones leave holes and, with
 * tau 0, departures trigger intra-GPU moves. */
static const char *fig2 = "arrival,profile,work\n0,1g.5gb,100\n0,1g.5gb,5\n0,1g.5gb,100\n"
                          "0,1g.5gb,5\n0,1g.5gb,5\n0,1g.5gb,100\n0,1g.5gb,5\n";

static void fig2_config(ms_online_config *c, double cost)
{
    ms_online_config_defaults(c);
    c->gpus = 1;
    c->tau = 0.0;
    c->kappa = 0.0;
    c->check = true;
    c->timeline = true;
    c->migration_cost = cost;
}

static bool decided(const ms_online_result *r, double t, int job, double rate)
{
    for (int i = 0; i < r->nmig; i++)
        if (r->mig[i].t == t && r->mig[i].job == job && fabs(r->mig[i].gain_rate - rate) < 1e-12)
            return true;
    return false;
}

/* The model (docs/online.md): gain = rate x (expected end - ready - cost), cost = slices x
 * (ready - now + cost). From the first decision at cost 1 s the break-even cost is
 * C* = (rate (end - ready) - c (ready - now)) / (rate + c): just above it that move is not
 * made, just below it is; the unconditional rule makes it at any cost. */
static void test_migration_break_even(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    parse(m, fig2, &w);
    ms_online_config c;
    fig2_config(&c, 1.0);
    ms_online_result r;
    simulate(m, &w, &c, &r);
    assert_true(r.nmig > 0);
    ms_online_migration first = r.mig[0];
    ms_online_result_fini(&r);
    double slices = m->profiles[w.jobs[first.job].profile].slices;
    double end_minus_ready = first.gain / first.gain_rate + 1.0;
    double ready_minus_now = first.cost / slices - 1.0;
    double star = (first.gain_rate * end_minus_ready - slices * ready_minus_now) /
                  (first.gain_rate + slices);
    assert_true(star > 1.0 && star < 100.0);
    fig2_config(&c, star + 1e-3);
    simulate(m, &w, &c, &r);
    assert_false(decided(&r, first.t, first.job, first.gain_rate));
    ms_online_result_fini(&r);
    fig2_config(&c, star - 1e-3);
    simulate(m, &w, &c, &r);
    assert_true(decided(&r, first.t, first.job, first.gain_rate));
    ms_online_result_fini(&r);
    fig2_config(&c, 1e6);
    simulate(m, &w, &c, &r);
    assert_int_equal(r.total_migrations, 0);
    ms_online_result_fini(&r);
    c.migration_rule = MS_MIGRATE_ALWAYS;
    simulate(m, &w, &c, &r);
    assert_true(r.total_migrations > 0);
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* On random loaded traces, every decision of the cost-aware rule has gain > cost (both
 * recorded per decision), at any migration cost. */
static void test_migration_gain_exceeds_cost(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    long decisions = 0;
    for (int trial = 0; trial < 40; trial++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(
            (int)ms_rng_below(&rng, (uint64_t)ms_gpu_builtin_count()));
        int gpus = 1 + (int)ms_rng_below(&rng, 6);
        ms_online_workload w;
        overloaded(m, &rng, gpus, &w);
        static const double costs[] = {0, 1, 10, 30, 120};
        ms_online_config c;
        ms_online_config_defaults(&c);
        c.gpus = gpus;
        c.tau = (double)ms_rng_below(&rng, 11) / 10;
        c.migration_cost = costs[trial % 5];
        c.timeline = true;
        c.check = true;
        ms_online_result r;
        simulate(m, &w, &c, &r);
        assert_int_equal(r.nmig, r.total_migrations);
        for (int i = 0; i < r.nmig; i++)
            assert_true(r.mig[i].gain > r.mig[i].cost);
        decisions += r.nmig;
        ms_online_result_fini(&r);
        ms_online_workload_fini(&w);
    }
    assert_true(decisions > 20);
}

/* Same workload and configuration, same results, under every discipline and rule. */
static void test_deterministic_per_discipline(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    for (int v = 0; v < 2 * MS_QUEUE_COUNT; v++) {
        ms_online_result r[2];
        for (int k = 0; k < 2; k++) {
            ms_rng rng;
            ms_rng_seed(&rng, 42);
            ms_online_workload w;
            overloaded(m, &rng, 3, &w);
            ms_online_config c;
            ms_online_config_defaults(&c);
            c.gpus = 3;
            c.queue = v % MS_QUEUE_COUNT;
            c.reserve_after = 20;
            c.migration_rule = v / MS_QUEUE_COUNT;
            simulate(m, &w, &c, &r[k]);
            ms_online_workload_fini(&w);
        }
        assert_int_equal(r[0].n, r[1].n);
        assert_memory_equal(r[0].start, r[1].start, (size_t)r[0].n * sizeof(double));
        assert_memory_equal(r[0].end, r[1].end, (size_t)r[0].n * sizeof(double));
        assert_int_equal(r[0].total_migrations, r[1].total_migrations);
        ms_online_result_fini(&r[0]);
        ms_online_result_fini(&r[1]);
    }
}

static void test_names(void **state)
{
    (void)state;
    for (int q = 0; q < MS_QUEUE_COUNT; q++)
        assert_int_equal(ms_online_queue_parse(ms_online_queue_name(q)), q);
    assert_int_equal(ms_online_queue_parse("lifo"), -1);
    assert_string_equal(ms_online_migration_rule_name(MS_MIGRATE_COST_AWARE), "cost-aware");
    assert_int_equal(ms_online_migration_rule_parse("always"), MS_MIGRATE_ALWAYS);
    assert_int_equal(ms_online_migration_rule_parse("never"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disciplines_by_hand),
        cmocka_unit_test(test_disciplines_keep_invariants),
        cmocka_unit_test(test_reservation_ends_starvation),
        cmocka_unit_test(test_migration_break_even),
        cmocka_unit_test(test_migration_gain_exceeds_cost),
        cmocka_unit_test(test_deterministic_per_discipline),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
