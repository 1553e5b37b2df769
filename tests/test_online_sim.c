/* test_online_sim.c: the online simulator: invariants on random traces of every model and
 * 1-16 GPUs under every policy and ablation switch, hand-checked timings with contention,
 * departure migration end to end, static layouts, determinism. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "migsched/online.h"
#include "../src/online/internal.h"

static void random_workload(const ms_gpu_model *m, ms_rng *rng, int n, double mean,
                            ms_online_workload *w)
{
    ms_online_gen g;
    ms_online_gen_defaults(m, &g);
    g.jobs = n;
    g.arrival_mean = mean;
    g.nmix = m->nprofiles; /* every profile, memory-distinct ones and the whole GPU too */
    for (int p = 0; p < m->nprofiles; p++) {
        g.mix_profile[p] = p;
        g.mix_weight[p] = 1.0 + (double)ms_rng_below(rng, 4);
    }
    g.service = (int)ms_rng_below(rng, 2);
    g.service_median = 20 + (double)ms_rng_below(rng, 200);
    assert_int_equal(ms_online_generate(m, &g, rng, w, NULL), 0);
}

/* With a static layout a job starts the moment it is dispatched, so FCFS per profile
 * means jobs of one profile start in arrival order. */
static void assert_fifo_per_profile(const ms_online_workload *w, const ms_online_result *r)
{
    double last[MS_MAX_PROFILES];
    for (int p = 0; p < MS_MAX_PROFILES; p++)
        last[p] = -1;
    for (int j = 0; j < w->n; j++) {
        int p = w->jobs[j].profile;
        assert_true(r->start[j] >= last[p]);
        last[p] = r->start[j];
    }
}

static void assert_timeline(const ms_online_result *r)
{
    assert_true(r->nsamples > 0);
    for (int i = 0; i < r->nsamples; i++) {
        const ms_online_sample *s = &r->samples[i];
        assert_true(s->frag >= 0 && s->frag <= 1);
        assert_true(s->busy >= 0 && s->busy <= s->instances && s->queued >= 0);
        /* Fig. 6's counts: actual instances add up to all instances; every queued job
         * and every job on an instance is desired (a migrating one holds two instances) */
        int desired = 0, actual = 0;
        for (int p = 0; p < MS_MAX_PROFILES; p++) {
            assert_true(s->desired[p] >= 0 && s->actual[p] >= 0);
            desired += s->desired[p];
            actual += s->actual[p];
        }
        assert_int_equal(actual, s->instances);
        assert_true(desired >= s->queued && desired <= s->queued + s->busy);
        if (i > 0)
            assert_true(s->t > r->samples[i - 1].t);
    }
    assert_int_equal(r->samples[r->nsamples - 1].busy, 0); /* everything done at the end */
    assert_int_equal(r->nmig, r->total_migrations);
}

static void assert_sane(const ms_online_workload *w, const ms_online_result *r, double kappa)
{
    for (int j = 0; j < w->n; j++) {
        assert_true(r->start[j] >= w->jobs[j].arrival - 1e-9);
        double exec = r->end[j] - r->start[j];
        assert_true(exec >= w->jobs[j].work * (1 - 1e-9) - 1e-9);
        if (kappa == 0)
            assert_float_equal(exec, w->jobs[j].work, 1e-6 * (1 + w->jobs[j].work));
    }
}

/* The property test: every event checked (no slot used twice, only allowed placements,
 * every job exactly once), on every model, 1-16 GPUs, every policy and switch. */
static void test_random_traces_keep_invariants(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 2026);
    int runs = 0;
    for (int mi = 0; mi < ms_gpu_builtin_count(); mi++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(mi);
        for (int trial = 0; trial < 12; trial++) {
            ms_online_workload w;
            int gpus = 1 + (int)ms_rng_below(&rng, 16);
            random_workload(m, &rng, 20 + (int)ms_rng_below(&rng, 60),
                            1 + (double)ms_rng_below(&rng, 40), &w);
            for (int v = 0; v < 10; v++) {
                ms_online_config c;
                ms_online_config_defaults(&c);
                c.gpus = gpus;
                c.check = true;
                c.check_full_every = 1; /* the whole state too, after every event */
                c.timeline = trial % 2;
                c.policy = v < 6    ? MS_POLICY_FRAG
                           : v == 6 ? MS_POLICY_FF_DYNAMIC
                           : v == 7 ? MS_POLICY_FF_STATIC
                           : v == 8 ? MS_POLICY_OWP
                                    : MS_POLICY_ELASTICBATCH;
                c.balance = v & 1;
                c.migration = (v >> 1) & 1;
                c.dynamic = v < 4 || v == 6 || v >= 8;
                c.kappa = trial % 3 ? 0.05 : 0.0;
                c.tau = (double)ms_rng_below(&rng, 11) / 10;
                c.migration_cost = (double)ms_rng_below(&rng, 3);
                ms_online_result r;
                ms_error err = {0};
                int rc = ms_online_simulate(m, &w, &c, &r, &err);
                if (rc == MS_EINFEASIBLE && !c.dynamic) /* static layout lacking a profile */
                    continue;
                if (rc)
                    fail_msg("%s, %d GPUs, variant %d: %s", m->name, gpus, v, err.msg);
                assert_sane(&w, &r, c.kappa);
                if (c.timeline)
                    assert_timeline(&r);
                if (c.policy == MS_POLICY_FF_STATIC)
                    assert_fifo_per_profile(&w, &r);
                if (!c.migration)
                    assert_int_equal(r.total_migrations, 0);
                if (!c.dynamic)
                    assert_int_equal(r.reconfigurations, 0);
                ms_online_result_fini(&r);
                runs++;
            }
            ms_online_workload_fini(&w);
        }
    }
    assert_true(runs > 300);
}

static void parse(const ms_gpu_model *m, const char *text, ms_online_workload *w)
{
    ms_error err;
    if (ms_online_trace_parse(text, strlen(text), "test", m, w, &err))
        fail_msg("%s", err.msg);
}

/* Two 1g.5gb jobs of 10 s at t=0, kappa 0.5, one GPU, dynamic partitioning: instances are
 * created one after the other (0.16 s each); A runs alone 0.16-0.32 then both at rate
 * 1/1.5: A ends at 0.32 + 9.84 * 1.5 = 15.08, B has 0.16 left then and ends at 15.24. */
static void test_contention_timing_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    parse(m, "arrival,profile,work,name\n0,1g.5gb,10,A\n0,1g.5gb,10,B\n", &w);
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = 1;
    c.kappa = 0.5;
    c.check = true;
    ms_online_result r;
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    assert_float_equal(r.start[0], 0.16, 1e-9);
    assert_float_equal(r.start[1], 0.32, 1e-9);
    assert_float_equal(r.end[0], 15.08, 1e-9);
    assert_float_equal(r.end[1], 15.24, 1e-9);
    assert_int_equal(r.creations, 2);
    assert_float_equal(r.makespan, 15.24, 1e-9);
    ms_online_result_fini(&r);
    /* On two GPUs with balancing (tau 0.1: one 1-slice job makes a GPU Busy) they spread
     * and neither slows the other: both end 10 s after their instance is ready. */
    c.gpus = 2;
    c.tau = 0.1;
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    assert_int_not_equal(r.gpu[0], r.gpu[1]);
    assert_float_equal(r.end[0] - r.start[0], 10.0, 1e-9);
    assert_float_equal(r.end[1] - r.start[1], 10.0, 1e-9);
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* Reconfiguration by hand on one A100-40GB: A (7g, 10 s) is created in 0.24 s and ends at
 * 10.24; B (1g.5gb, arrives at 1) waits for the whole GPU, then the idle 7g is destroyed
 * (0.22 s) and a 1g created (0.16 s): B runs 10.62-20.62. C (7g, at 30) destroys B's idle
 * 1g (0.20 s) and creates a 7g (0.24 s): it starts at 30.44. */
static void test_reconfiguration_timing_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    parse(m, "arrival,profile,work\n0,7g.40gb,10\n1,1g.5gb,10\n30,7g.40gb,5\n", &w);
    for (int policy = MS_POLICY_FRAG; policy <= MS_POLICY_FF_DYNAMIC; policy += 2) {
        ms_online_config c;
        ms_online_config_defaults(&c);
        c.policy = policy;
        c.gpus = 1;
        c.check = true;
        ms_online_result r;
        assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
        assert_float_equal(r.start[0], 0.24, 1e-9);
        assert_float_equal(r.end[0], 10.24, 1e-9);
        assert_float_equal(r.start[1], 10.62, 1e-9);
        assert_float_equal(r.end[1], 20.62, 1e-9);
        assert_float_equal(r.start[2], 30.44, 1e-9);
        assert_int_equal(r.creations, 3);
        assert_int_equal(r.destructions, 2);
        assert_float_equal(r.mean_wait, (0.24 + 9.62 + 0.44) / 3, 1e-9);
        /* turnarounds 5.44, 10.24, 19.62: h = 2 * 0.95 = 1.9 (docs/online.md) */
        assert_float_equal(r.p95_turnaround, 10.24 + 0.9 * (19.62 - 10.24), 1e-9);
        ms_online_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* Fig. 2 end to end: seven 1g.5gb jobs fill an A100; the short ones leave holes; with tau 0
 * the GPU stays Busy, so departures trigger intra-GPU moves that each lower F(g). */
static void test_departure_migration_lowers_fragmentation(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    parse(m,
          "arrival,profile,work\n0,1g.5gb,100\n0,1g.5gb,5\n0,1g.5gb,100\n0,1g.5gb,5\n"
          "0,1g.5gb,5\n0,1g.5gb,100\n0,1g.5gb,5\n",
          &w);
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = 1;
    c.tau = 0.0;
    c.kappa = 0.0;
    c.check = true;
    c.timeline = true;
    ms_online_result r;
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    assert_true(r.intra_migrations > 0);
    assert_int_equal(r.inter_migrations, 0);
    assert_int_equal(r.nmig, r.total_migrations);
    for (int i = 0; i < r.nmig; i++)
        assert_true(r.mig[i].frag_after < r.mig[i].frag_before - 1e-9);
    assert_sane(&w, &r, 0.0);
    ms_online_result_fini(&r);
    c.migration = false;
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    assert_int_equal(r.total_migrations, 0);
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* A GPU left Lazy by a departure pulls a job from a more loaded Busy GPU. */
static void test_inter_gpu_migration_balances(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    /* tau 0.5: the 4g job (4/7) makes GPU 0 Busy, so the 3g and 2g jobs go to GPU 1 (Busy
     * at 5/7); when the 4g job leaves, GPU 0 is Lazy and takes the 2g job (moving the 3g
     * would leave GPU 0 no less loaded than GPU 1: 3 vs 2 slices). */
    parse(m, "arrival,profile,work\n0,4g.20gb,10\n1,3g.20gb,100\n2,2g.10gb,100\n", &w);
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = 2;
    c.tau = 0.5;
    c.check = true;
    c.migration_cost = 1;
    ms_online_result r;
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    assert_int_equal(r.inter_migrations, 1);
    assert_int_not_equal(r.gpu[1], r.gpu[2]);
    ms_online_result_fini(&r);
    c.migration_cost = 1000; /* the job would end before the move: not worth it */
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    assert_int_equal(r.inter_migrations, 0);
    ms_online_result_fini(&r);
    ms_online_workload_fini(&w);
}

static void test_static_layouts(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    /* one GPU cannot hold 4g, 3g, 2g and 1g at once: no static layout serves them all */
    parse(m, "arrival,profile,work\n0,4g.20gb,1\n0,3g.20gb,1\n0,2g.10gb,1\n0,1g.5gb,1\n", &w);
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = 1;
    c.policy = MS_POLICY_FF_STATIC;
    ms_online_result r;
    ms_error err;
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, &err), MS_EINFEASIBLE);
    assert_non_null(strstr(err.msg, "no room"));
    c.gpus = 2; /* two GPUs can; each layout works and best is no worse than any */
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
    double best = r.mean_turnaround;
    ms_online_result_fini(&r);
    for (int l = 0; l < MS_LAYOUT_COUNT; l++) {
        c.layout = l;
        assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
        assert_int_equal(r.layout, l);
        assert_true(best <= r.mean_turnaround + 1e-9);
        assert_int_equal(r.reconfigurations, 0);
        ms_online_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* Linear interpolation between closest ranks, checked by hand: on 1..20, h = 19 * 0.95 =
 * 18.05, so p95 = 19 + 0.05 * (20 - 19). */
static void test_quantile_golden(void **state)
{
    (void)state;
    double x[20];
    for (int i = 0; i < 20; i++)
        x[i] = i + 1;
    assert_float_equal(ms_online_quantile(x, 20, 0.95), 19.05, 1e-12);
    assert_float_equal(ms_online_quantile(x, 20, 0.5), 10.5, 1e-12);
    assert_float_equal(ms_online_quantile(x, 20, 0), 1, 0);
    assert_float_equal(ms_online_quantile(x, 20, 1), 20, 0);
    assert_float_equal(ms_online_quantile(x, 1, 0.95), 1, 0);
    double y[] = {2, 4, 8, 16}; /* h = 2.85: 8 + 0.85 * 8 */
    assert_float_equal(ms_online_quantile(y, 4, 0.95), 14.8, 1e-12);
}

static void test_deterministic(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("H100-80GB");
    ms_online_result r[2];
    for (int k = 0; k < 2; k++) {
        ms_rng rng;
        ms_rng_seed(&rng, 99);
        ms_online_workload w;
        random_workload(m, &rng, 300, 10, &w);
        ms_online_config c;
        ms_online_config_defaults(&c);
        c.gpus = 3;
        assert_int_equal(ms_online_simulate(m, &w, &c, &r[k], NULL), 0);
        ms_online_workload_fini(&w);
    }
    assert_memory_equal(r[0].end, r[1].end, (size_t)r[0].n * sizeof(double));
    assert_int_equal(r[0].total_migrations, r[1].total_migrations);
    ms_online_result_fini(&r[0]);
    ms_online_result_fini(&r[1]);
}

/* The baselines' GPU order: a 4g job holds GPU 0, then a 1g job arrives. First fit and
 * OWP (best fit: the fewest free slices) put it on GPU 0, ElasticBatch (worst fit) on
 * GPU 1. */
static void test_owp_elasticbatch_gpu_order(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    parse(m, "arrival,profile,work\n0,4g.20gb,100\n1,1g.5gb,10\n", &w);
    static const struct {
        int policy, gpu;
    } want[] = {{MS_POLICY_FF_DYNAMIC, 0}, {MS_POLICY_OWP, 0}, {MS_POLICY_ELASTICBATCH, 1}};
    for (int i = 0; i < 3; i++) {
        ms_online_config c;
        ms_online_config_defaults(&c);
        c.gpus = 2;
        c.check = true;
        c.policy = want[i].policy;
        ms_online_result r;
        assert_int_equal(ms_online_simulate(m, &w, &c, &r, NULL), 0);
        assert_int_equal(r.gpu[0], 0);
        assert_int_equal(r.gpu[1], want[i].gpu);
        assert_int_equal(r.total_migrations, 0);
        ms_online_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* Like-for-like static layouts: every layout rule holds the same multiset of instances,
 * whose counts follow the requests' shares (paper 002 V-C): on 4 A100s with equal shares
 * of 1g/2g/3g/4g, two of each (20 of 28 slices; three of each would need 30). */
static void test_layouts_same_multiset(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_config c;
    ms_online_config_defaults(&c);
    const char *names[] = {"1g.5gb", "2g.10gb", "3g.20gb", "4g.20gb"};
    for (int i = 0; i < 4; i++)
        c.layout_share[ms_gpu_profile_by_name(m, names[i])] = 1;
    ms_online_workload w = {0};
    for (int gpus = 2; gpus <= 8; gpus += 2) {
        c.gpus = gpus;
        int ref[MS_MAX_PROFILES] = {0}, feasible = 0;
        for (int l = 0; l < MS_LAYOUT_COUNT; l++) {
            ms_partition parts[8];
            if (msi_build_layout(m, &w, &c, l, parts, NULL))
                continue;
            int count[MS_MAX_PROFILES] = {0};
            for (int g = 0; g < gpus; g++) {
                uint32_t used = 0;
                for (int k = 0; k < parts[g].n; k++) {
                    ms_placement p = parts[g].inst[k];
                    assert_true(ms_gpu_placement_allowed(m, p));
                    assert_int_equal(used & ms_gpu_slot_mask(m, p), 0);
                    used |= ms_gpu_slot_mask(m, p);
                    count[p.profile]++;
                }
            }
            if (feasible++ == 0)
                memcpy(ref, count, sizeof ref);
            assert_memory_equal(ref, count, sizeof ref);
        }
        assert_true(feasible >= 1);
        if (gpus == 4)
            for (int i = 0; i < 4; i++)
                assert_int_equal(ref[ms_gpu_profile_by_name(m, names[i])], 2);
    }
}

/* The sweep: load and policy lists parse strictly; each point is the mean over its seeds
 * of what ms_online_run_seed gives (the arrival mean set by the offered load); pooled
 * quantiles are ordered; the static point names its out-of-sample layout; same bytes twice. */
static void test_sweep(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_sweep *s = calloc(1, sizeof *s);
    assert_non_null(s);
    ms_error err;
    assert_int_equal(ms_online_sweep_parse_loads("0.5:1.1:0.05", s, &err), 0);
    assert_int_equal(s->nloads, 13);
    assert_float_equal(s->loads[12], 1.1, 1e-12);
    const char *bad[] = {"0.5:1.1", "1:2:3:4", "0:1:0.1", "1.1:0.5:0.1", "0.5:1:0", "x", "0.5:"};
    for (int i = 0; i < 7; i++)
        assert_int_equal(ms_online_sweep_parse_loads(bad[i], s, &err), MS_EINVAL);
    assert_int_equal(ms_online_sweep_parse_policies("frag,nope", s, &err), MS_EINVAL);
    assert_int_equal(ms_online_sweep_parse_policies("frag/lifo", s, &err), MS_EINVAL);
    assert_int_equal(ms_online_sweep_parse_policies("frag/reserve,firstfit-static", s, &err), 0);
    assert_int_equal(s->npolicies, 2);
    assert_int_equal(s->queues[0], MS_QUEUE_RESERVE);
    assert_int_equal(s->queues[1], -1);
    assert_int_equal(ms_online_sweep_parse_loads("0.6:0.9:0.3", s, &err), 0);
    ms_online_gen_defaults(m, &s->gen);
    s->gen.jobs = 80;
    ms_online_config_defaults(&s->cfg);
    s->cfg.gpus = 3;
    s->seed = 7;
    s->seeds = 2;
    ms_online_point *a, *b;
    assert_int_equal(ms_online_sweep_run(m, s, NULL, NULL, &a, &err), 0);
    assert_int_equal(ms_online_sweep_run(m, s, NULL, NULL, &b, &err), 0);
    for (int k = 0; k < 4; k++) { /* field by field: padding bytes are not compared */
        assert_true(a[k].turnaround == b[k].turnaround && a[k].makespan == b[k].makespan);
        assert_true(a[k].wait == b[k].wait && a[k].utilisation == b[k].utilisation);
        assert_true(a[k].fragmentation == b[k].fragmentation && a[k].layout == b[k].layout);
        assert_memory_equal(a[k].p99_wait, b[k].p99_wait, sizeof a[k].p99_wait);
    }
    assert_string_equal(a[0].label, "frag/reserve");
    assert_string_equal(a[2].label, "firstfit-static");
    for (int k = 0; k < 4; k++) {
        const ms_online_point *pt = &a[k];
        assert_true(pt->utilisation > 0 && pt->utilisation <= 1);
        assert_true((pt->layout >= 0) == (pt->policy == MS_POLICY_FF_STATIC));
        for (int i = 0; i < s->gen.nmix; i++) {
            int p = s->gen.mix_profile[i];
            assert_true(pt->p50_wait[p] >= 0 && pt->p99_wait[p] >= pt->p50_wait[p]);
        }
        ms_online_gen g = s->gen; /* the point is the mean of its seeds' runs */
        ms_online_gen_set_load(m, &g, 3, pt->load);
        assert_float_equal(pt->arrival_mean, g.arrival_mean, 1e-12);
        ms_online_config c = s->cfg;
        c.policy = pt->policy;
        c.queue = pt->queue;
        if (pt->layout >= 0) {
            assert_int_equal(ms_online_choose_layout(m, &g, &c, MS_ONLINE_TRAIN_SEED(7), 2, &err),
                             0);
            assert_int_equal(c.layout, pt->layout);
        }
        double turn = 0;
        for (int i = 0; i < 2; i++) {
            ms_online_workload w;
            ms_online_result r;
            assert_int_equal(ms_online_run_seed(m, &g, &c, 7 + i, &w, &r, &err), 0);
            turn += r.mean_turnaround / 2;
            ms_online_result_fini(&r);
            ms_online_workload_fini(&w);
        }
        assert_float_equal(pt->turnaround, turn, 1e-9 * turn);
    }
    free(a);
    free(b);
    free(s);
}

static void count_rows(void *arg, int row, const ms_online_ablation_table *t)
{
    (void)t;
    int *done = arg;
    assert_int_equal(row, *done);
    (*done)++;
}

/* The ablation: every row is reported once, in order; a dynamic row's cell is the mean of
 * its seeds' runs with its techniques; a static row on one GPU, where no static layout
 * holds the mix, is n/a (NAN), not a failure; same numbers twice. */
static void test_ablation(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_error err;
    ms_online_ablation a = {.seed = 3, .seeds = 2};
    ms_online_gen_defaults(m, &a.gen);
    a.gen.jobs = 12;
    ms_online_config_defaults(&a.cfg);
    a.cfg.gpus = 2;
    ms_online_ablation_table t, again;
    int done = 0;
    assert_int_equal(ms_online_ablation_run(m, &a, count_rows, &done, &t, &err), 0);
    assert_int_equal(done, MS_ABLATION_ROWS);
    assert_string_equal(ms_online_ablation_row_name(0), "firstfit-static");
    assert_string_equal(ms_online_ablation_load_name(1), "Long(25)");
    assert_int_equal(ms_online_ablation_run(m, &a, NULL, NULL, &again, &err), 0);
    for (int i = 0; i < MS_ABLATION_ROWS; i++)
        for (int l = 0; l < MS_ABLATION_LOADS; l++)
            assert_true(t.cell[i][l].turnaround == again.cell[i][l].turnaround &&
                        t.cell[i][l].wait == again.cell[i][l].wait &&
                        t.cell[i][l].execution == again.cell[i][l].execution);
    ms_online_gen g = a.gen; /* "all (+migration)" on Long(50) */
    g.service = MS_SERVICE_LONG;
    g.arrival_mean = 50;
    ms_online_config c = a.cfg;
    c.policy = MS_POLICY_FRAG;
    c.balance = c.dynamic = c.migration = true;
    double turn = 0, wait = 0;
    for (int s = 0; s < 2; s++) {
        ms_online_workload w;
        ms_online_result r;
        assert_int_equal(ms_online_run_seed(m, &g, &c, 3 + s, &w, &r, &err), 0);
        turn += r.mean_turnaround / 2;
        wait += r.mean_wait / 2;
        ms_online_result_fini(&r);
        ms_online_workload_fini(&w);
    }
    assert_true(t.cell[3][3].turnaround == turn && t.cell[3][3].wait == wait);
    a.cfg.gpus = 1;
    assert_int_equal(ms_online_ablation_run(m, &a, NULL, NULL, &t, &err), 0);
    assert_true(isnan(t.cell[0][0].turnaround) && isnan(t.cell[0][0].execution));
    assert_false(isnan(t.cell[2][0].turnaround));
    a.seeds = 0;
    assert_int_equal(ms_online_ablation_run(m, &a, NULL, NULL, &t, &err), MS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_traces_keep_invariants),
        cmocka_unit_test(test_contention_timing_by_hand),
        cmocka_unit_test(test_reconfiguration_timing_by_hand),
        cmocka_unit_test(test_departure_migration_lowers_fragmentation),
        cmocka_unit_test(test_inter_gpu_migration_balances),
        cmocka_unit_test(test_static_layouts),
        cmocka_unit_test(test_owp_elasticbatch_gpu_order),
        cmocka_unit_test(test_layouts_same_multiset),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_ablation),
        cmocka_unit_test(test_quantile_golden),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
