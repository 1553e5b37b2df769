/* test_online_cluster.c: the cluster simulator: Slurm's admission by counts, backfill and
 * plugin waits computed by hand on one and two nodes, static layouts that never create an
 * instance, every node's plan valid (the online simulator's invariant check after every
 * event) on random traces, Slurm's counts never over a node's capacity, one node equal to
 * the single-node simulator whenever Slurm holds no job, determinism, the static best
 * layout, the offered-load scale, and Slurm's delays (launch overhead, tick, backfill
 * interval, time limits, slurm-node's count) on hand-checked instances. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "migsched/online.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static int prof(const char *name)
{
    int p = ms_gpu_profile_by_name(a100(), name);
    assert_true(p >= 0);
    return p;
}

static void add(ms_online_workload *w, double arrival, const char *profile, double work)
{
    if (w->n == w->cap) {
        w->cap = w->cap ? 2 * w->cap : 16;
        w->jobs = realloc(w->jobs, (size_t)w->cap * sizeof *w->jobs);
        assert_non_null(w->jobs);
    }
    w->jobs[w->n++] = (ms_online_job){arrival, prof(profile), work, -1};
}

/* Hand-checkable nodes: no contention, no migration, invariants after every event. */
static ms_online_cluster_config config(int policy, int nodes, int gpus, int node_policy)
{
    ms_online_cluster_config c;
    ms_online_cluster_config_defaults(&c);
    c.policy = policy;
    c.nodes = nodes;
    c.node.gpus = gpus;
    c.node.policy = node_policy;
    c.node.kappa = 0;
    c.node.migration = false;
    c.node.check = true;
    c.node.check_full_every = 1;
    return c;
}

/* Static, 2 nodes x 1 whole GPU: A and B (7g, 100 s) start at once on nodes 0 and 1; C
 * (7g, t = 10) and D (1g, t = 20, asking the 7g type: the smallest there) wait for them:
 * at t = 100 node 0's finish comes first and gives C node 0, then D takes node 1. */
static void test_static_two_nodes_by_hand(void **state)
{
    (void)state;
    ms_online_workload w = {0};
    add(&w, 0, "7g.40gb", 100);
    add(&w, 0, "7g.40gb", 100);
    add(&w, 10, "7g.40gb", 50);
    add(&w, 20, "1g.5gb", 10);
    ms_online_cluster_config c = config(MS_CLUSTER_STATIC, 2, 1, MS_POLICY_FRAG);
    assert_int_equal(ms_online_cluster_layout_parse(a100(), "7", 1, c.layout, NULL), 0);
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(a100(), &w, &c, &r, NULL), 0);
    const double start[] = {0, 0, 100, 100}, end[] = {100, 100, 150, 110};
    const int node[] = {0, 1, 0, 1};
    for (int j = 0; j < 4; j++) {
        assert_near(r.start[j], start[j], 1e-9);
        assert_near(r.end[j], end[j], 1e-9);
        assert_int_equal(r.node[j], node[j]);
        assert_int_equal(r.type[j], prof("7g.40gb"));
    }
    assert_near(r.all.mean_wait, (90.0 + 80.0) / 4, 1e-9);
    assert_near(r.all.mean_turnaround, (100 + 100 + 140 + 90) / 4.0, 1e-9);
    assert_near(r.makespan, 150, 1e-9);
    assert_near(r.utilisation, 7.0 * (100 + 100 + 50 + 10) / (14 * 150), 1e-9);
    assert_int_equal(r.held, 2);
    assert_int_equal(r.creations + r.destructions + r.plugin_waits, 0);
    ms_online_cluster_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* Dynamic, 1 node x 1 GPU (7 slices). A (4g, 100 s) runs; B (4g, t = 1) is blocked and
 * reserves the node for t = 100 (A's limit), when 3 slices beyond B's 4 are free. C (2g,
 * 10 s, t = 2) ends before that: backfilled. D (3g, t = 3) does not fit (1 slice free).
 * E (1g, 500 s, t = 3) runs past t = 100 but within the 3 spare slices: backfilled. At
 * A's end B reuses A's idle 4g instance; D gets its node when B ends and its 3g at slot 0
 * once A's old 4g there is destroyed (E's 1g holds slot 6, so not at slot 4). */
static void test_dynamic_backfill_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_workload w = {0};
    add(&w, 0, "4g.20gb", 100);
    add(&w, 1, "4g.20gb", 50);
    add(&w, 2, "2g.10gb", 10);
    add(&w, 3, "3g.20gb", 200);
    add(&w, 3, "1g.5gb", 500);
    ms_online_cluster_config c = config(MS_CLUSTER_DYNAMIC, 1, 1, MS_POLICY_FRAG);
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(m, &w, &c, &r, NULL), 0);
    double c4 = ms_gpu_create_time(m, 4), c3 = ms_gpu_create_time(m, 3);
    double c2 = ms_gpu_create_time(m, 2), c1 = ms_gpu_create_time(m, 1);
    double d4 = ms_gpu_destroy_time(m, 4);
    const double admitted[] = {0, 100 + c4, 2, 150 + c4, 3};
    const double start[] = {c4, 100 + c4, 2 + c2, 150 + c4 + d4 + c3, 3 + c1};
    for (int j = 0; j < 5; j++) {
        assert_near(r.admitted[j], admitted[j], 1e-9);
        assert_near(r.start[j], start[j], 1e-9);
        assert_near(r.end[j], start[j] + w.jobs[j].work, 1e-9);
    }
    assert_int_equal(r.backfilled, 2);
    assert_int_equal(r.held, 2);
    assert_int_equal(r.plugin_waits, 0);
    assert_int_equal(r.creations, 4);
    assert_int_equal(r.destructions, 1);
    ms_online_cluster_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* A plugin wait: first fit puts A (4g) at slot 0 and B (1g) at slot 4; C (2g, t = 1) finds
 * 2 free slices, so Slurm admits it, but every 2g placement (slots 0, 2, 4) is taken: it
 * waits on the node until A ends, then takes slot 0 once A's idle 4g is destroyed. */
static void test_plugin_wait_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_workload w = {0};
    add(&w, 0, "4g.20gb", 100);
    add(&w, 0, "1g.5gb", 100);
    add(&w, 1, "2g.10gb", 10);
    ms_online_cluster_config c = config(MS_CLUSTER_DYNAMIC, 1, 1, MS_POLICY_FF_DYNAMIC);
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(m, &w, &c, &r, NULL), 0);
    double c4 = ms_gpu_create_time(m, 4), c2 = ms_gpu_create_time(m, 2);
    double d4 = ms_gpu_destroy_time(m, 4);
    assert_near(r.admitted[2], 1, 1e-9);
    assert_near(r.plugin_wait[2], 100 + c4 - 1, 1e-9);
    assert_near(r.start[2], 100 + c4 + d4 + c2, 1e-9);
    assert_int_equal(r.plugin_waits, 1);
    assert_near(r.plugin_wait_total, 99 + c4, 1e-9);
    assert_int_equal(r.held, 0);
    ms_online_cluster_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* Slurm's launch overhead, static, 1 node x 1 whole GPU: A (t = 0, 100 s) holds the GPU
 * 100 + 5 s, so B (t = 10, 50 s) starts at 105 and ends at 160. */
static void test_launch_overhead_by_hand(void **state)
{
    (void)state;
    ms_online_workload w = {0};
    add(&w, 0, "7g.40gb", 100);
    add(&w, 10, "7g.40gb", 50);
    ms_online_cluster_config c = config(MS_CLUSTER_STATIC, 1, 1, MS_POLICY_FRAG);
    assert_int_equal(ms_online_cluster_layout_parse(a100(), "7", 1, c.layout, NULL), 0);
    c.slurm.launch = 5;
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(a100(), &w, &c, &r, NULL), 0);
    const double start[] = {0, 105}, end[] = {105, 160};
    for (int j = 0; j < 2; j++) {
        assert_near(r.start[j], start[j], 1e-9);
        assert_near(r.end[j], end[j], 1e-9);
    }
    assert_near(r.all.mean_wait, 95.0 / 2, 1e-9);
    assert_near(r.all.mean_turnaround, (105 + 150) / 2.0, 1e-9);
    ms_online_cluster_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* Slurm's tick, static, 1 node x 1 whole GPU, tick 30: A (t = 10) starts at the tick 30;
 * B (t = 125) at A's end, 130, before the next tick; C (t = 200) at the tick 210. */
static void test_slurm_tick_by_hand(void **state)
{
    (void)state;
    ms_online_workload w = {0};
    add(&w, 10, "7g.40gb", 100);
    add(&w, 125, "7g.40gb", 20);
    add(&w, 200, "7g.40gb", 10);
    ms_online_cluster_config c = config(MS_CLUSTER_STATIC, 1, 1, MS_POLICY_FRAG);
    assert_int_equal(ms_online_cluster_layout_parse(a100(), "7", 1, c.layout, NULL), 0);
    c.slurm.tick = 30;
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(a100(), &w, &c, &r, NULL), 0);
    const double start[] = {30, 130, 210};
    for (int j = 0; j < 3; j++) {
        assert_near(r.start[j], start[j], 1e-9);
        assert_near(r.end[j], start[j] + w.jobs[j].work, 1e-9);
    }
    assert_int_equal(r.held, 0); /* each job starts at the first pass after its arrival */
    ms_online_cluster_result_fini(&r);
    ms_online_workload_fini(&w);
}

/* The backfill interval, dynamic, 1 node x 1 GPU: A (4g, 100 s) runs; B (7g, t = 1) is
 * blocked; C (3g, t = 2, 10 s) fits beside A and ends before B's reserved start, so the
 * backfill admits it: at once without an interval, at its multiple 50 with one. */
static void test_backfill_interval_by_hand(void **state)
{
    (void)state;
    ms_online_workload w = {0};
    add(&w, 0, "4g.20gb", 100);
    add(&w, 1, "7g.40gb", 10);
    add(&w, 2, "3g.20gb", 10);
    ms_online_cluster_config c = config(MS_CLUSTER_DYNAMIC, 1, 1, MS_POLICY_FRAG);
    ms_online_cluster_result r;
    for (int with = 0; with < 2; with++) {
        c.slurm.backfill = with ? 50 : 0;
        assert_int_equal(ms_online_cluster_simulate(a100(), &w, &c, &r, NULL), 0);
        assert_near(r.admitted[0], 0, 1e-9);
        assert_near(r.admitted[2], with ? 50 : 2, 1e-9);
        assert_int_equal(r.backfilled, 1);
        ms_online_cluster_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* Time limits, dynamic, 1 node x 1 GPU: A (4g, 100 s) runs; B (7g, t = 1) is blocked and
 * reserves the GPU from A's planned end; C (3g, t = 2, 70 s) backfills by its work (ends
 * at 72 < 100), but not with limits in whole minutes plus one: A's is 180 s, C's 180 s
 * from t = 2, past B's reserved start, so C starts after B. */
static void test_time_limit_unit_by_hand(void **state)
{
    (void)state;
    ms_online_workload w = {0};
    add(&w, 0, "4g.20gb", 100);
    add(&w, 1, "7g.40gb", 10);
    add(&w, 2, "3g.20gb", 70);
    ms_online_cluster_config c = config(MS_CLUSTER_DYNAMIC, 1, 1, MS_POLICY_FRAG);
    ms_online_cluster_result r;
    for (int with = 0; with < 2; with++) {
        c.slurm.limit_unit = with ? 60 : 0;
        assert_int_equal(ms_online_cluster_simulate(a100(), &w, &c, &r, NULL), 0);
        if (with) {
            assert_true(r.admitted[2] > r.admitted[1]);
            assert_near(r.admitted[2], r.end[1], 1e-9);
            assert_int_equal(r.backfilled, 0);
        } else {
            assert_near(r.admitted[2], 2, 1e-9);
            assert_int_equal(r.backfilled, 1);
        }
        ms_online_cluster_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* slurm-node's count, 1 node x 2 GPUs, first fit: A (7g) takes GPU 0, B (4g) and C (1g)
 * GPU 1 at slots 0 and 4. D (2g, t = 1) finds 2 free slices, but no 2g placement is left.
 * By the whole count Slurm admits it to wait in the plugin until A ends; with the count
 * kept at what the node can place (12 held + 1g = 13: 1 free), Slurm holds D until A's
 * end frees GPU 0, and D waits in no plugin. */
static void test_slurm_node_count_by_hand(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_workload w = {0};
    add(&w, 0, "7g.40gb", 100);
    add(&w, 0, "4g.20gb", 200);
    add(&w, 0, "1g.5gb", 200);
    add(&w, 1, "2g.10gb", 10);
    ms_online_cluster_config c = config(MS_CLUSTER_DYNAMIC, 1, 2, MS_POLICY_FF_DYNAMIC);
    ms_online_cluster_result r;
    double a_end = ms_gpu_create_time(m, 7) + 100;
    for (int with = 0; with < 2; with++) {
        c.slurm.node_count = with;
        assert_int_equal(ms_online_cluster_simulate(m, &w, &c, &r, NULL), 0);
        assert_near(r.end[0], a_end, 1e-9);
        assert_near(r.admitted[3], with ? a_end : 1, 1e-9);
        assert_near(r.plugin_wait[3], with ? 0 : a_end - 1, 1e-9);
        assert_int_equal(r.plugin_waits, with ? 0 : 1);
        assert_int_equal(r.held, with);
        ms_online_cluster_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* cons_tres's node choice: among the runs of consecutive candidate nodes the one with the
 * fewest free CPUs, in it the node with the fewest. A (7g, ends at t ~ 5) takes node 0 and
 * B (7g) node 1; four 1g jobs go to node 2, the only one with room. At t = 7 nodes 0 (64
 * free CPUs) and 2 (60) are candidates in two runs: H goes to node 2, not to the first. */
static void test_cons_tres_node_order(void **state)
{
    (void)state;
    ms_online_workload w = {0};
    add(&w, 0, "7g.40gb", 5);
    add(&w, 1, "7g.40gb", 1000);
    for (int k = 0; k < 4; k++)
        add(&w, 2 + k, "1g.5gb", 1000);
    add(&w, 7, "1g.5gb", 1000);
    ms_online_cluster_config c = config(MS_CLUSTER_DYNAMIC, 3, 1, MS_POLICY_FF_DYNAMIC);
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(a100(), &w, &c, &r, NULL), 0);
    const int node[] = {0, 1, 2, 2, 2, 2, 2};
    for (int j = 0; j < 7; j++)
        assert_int_equal(r.node[j], node[j]);
    ms_online_cluster_result_fini(&r);
    ms_online_workload_fini(&w);
}

static void random_trace(ms_rng *rng, const ms_gpu_model *m, int n, double mean,
                         ms_online_workload *w)
{
    ms_online_gen g;
    ms_online_gen_defaults(m, &g);
    g.jobs = n;
    g.arrival_mean = mean;
    g.nmix = m->nprofiles;
    for (int p = 0; p < m->nprofiles; p++) {
        g.mix_profile[p] = p;
        g.mix_weight[p] = 1.0 + (double)ms_rng_below(rng, 4);
    }
    g.service_median = 20 + (double)ms_rng_below(rng, 200);
    assert_int_equal(ms_online_generate(m, &g, rng, w, NULL), 0);
}

/* Slurm's view: on every node the admitted jobs' amounts never exceed its count (slices,
 * or instances of each type), from admission to end. */
static void assert_counts_hold(const ms_gpu_model *m, const ms_online_workload *w,
                               const ms_online_cluster_config *c, const ms_online_cluster_result *r)
{
    for (int n = 0; n < c->nodes; n++)
        for (int j = 0; j < w->n; j++) { /* at each admission on n: what is held there */
            if (r->node[j] != n)
                continue;
            int res = c->policy == MS_CLUSTER_STATIC ? r->type[j] : -1, used = 0, cap = 0;
            for (int k = 0; k < w->n; k++)
                if (r->node[k] == n && r->admitted[k] <= r->admitted[j] &&
                    r->end[k] > r->admitted[j] && (res < 0 || r->type[k] == res))
                    used += res < 0 ? m->profiles[r->type[k]].slices : 1;
            for (int g = 0; g < c->node.gpus; g++)
                for (int i = 0; i < c->layout[g].n; i++)
                    cap += c->layout[g].inst[i].profile == res;
            if (res < 0)
                cap = c->node.gpus * m->slices;
            assert_true(used <= cap);
        }
}

/* Random traces on every built-in model, 1-5 nodes of 1-4 GPUs, both policies and every
 * dynamic node policy: the nodes' invariant check after every event passes (what
 * ms_online_config.check verifies: valid placements, no slot twice, jobs in one state),
 * Slurm's counts hold, times are ordered, and static never creates or waits on a node. */
static void test_random_clusters_valid(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    const int node_policies[] = {MS_POLICY_FRAG, MS_POLICY_FF_DYNAMIC, MS_POLICY_OWP,
                                 MS_POLICY_ELASTICBATCH};
    for (int it = 0; it < 60; it++) {
        const ms_gpu_model *m = ms_gpu_builtin_at((int)ms_rng_below(&rng, ms_gpu_builtin_count()));
        ms_online_workload w;
        int nodes = 1 + (int)ms_rng_below(&rng, 5), gpus = 1 + (int)ms_rng_below(&rng, 4);
        random_trace(&rng, m, 40 + (int)ms_rng_below(&rng, 60), 2 + (double)ms_rng_below(&rng, 30),
                     &w);
        ms_online_cluster_config c = config(it % 2 ? MS_CLUSTER_STATIC : MS_CLUSTER_DYNAMIC, nodes,
                                            gpus, node_policies[ms_rng_below(&rng, 4)]);
        c.node.kappa = 0.05;
        c.node.migration = ms_rng_below(&rng, 2);
        c.node.queue = (int)ms_rng_below(&rng, MS_QUEUE_COUNT);
        c.node_cpus = 1 + (int)ms_rng_below(&rng, 20);
        for (int g = 0; g < gpus; g++) /* the last GPU whole, so every job has a type */
            c.layout[g] = m->partitions[g == gpus - 1 ? 0 : ms_rng_below(&rng, m->npartitions)];
        ms_online_cluster_result r;
        int rc = ms_online_cluster_simulate(m, &w, &c, &r, NULL);
        assert_int_equal(rc, 0);
        for (int j = 0; j < w.n; j++) {
            assert_true(r.admitted[j] >= w.jobs[j].arrival);
            assert_true(r.start[j] >= r.admitted[j] + r.plugin_wait[j] - 1e-9);
            assert_true(r.end[j] >= r.start[j] + w.jobs[j].work - 1e-9);
        }
        assert_counts_hold(m, &w, &c, &r);
        if (c.policy == MS_CLUSTER_STATIC)
            assert_int_equal(r.creations + r.destructions + r.plugin_waits + r.migrations, 0);
        ms_online_cluster_result_fini(&r);
        ms_online_workload_fini(&w);
    }
}

/* One node and no job held by Slurm (light load, CPUs to spare): every job reaches the
 * node at its arrival, so the cluster run is the single-node simulation, job for job. */
static void test_one_node_equals_single_node(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    int compared = 0;
    for (int it = 0; it < 30; it++) {
        ms_online_workload w;
        int gpus = 1 + (int)ms_rng_below(&rng, 4);
        random_trace(&rng, m, 60, 400.0 / gpus, &w);
        ms_online_cluster_config c;
        ms_online_cluster_config_defaults(&c);
        c.node.gpus = gpus;
        c.node_cpus = 1000;
        c.node.queue = (int)ms_rng_below(&rng, MS_QUEUE_COUNT);
        ms_online_cluster_result r;
        ms_online_result s;
        assert_int_equal(ms_online_cluster_simulate(m, &w, &c, &r, NULL), 0);
        assert_int_equal(ms_online_simulate(m, &w, &c.node, &s, NULL), 0);
        if (r.held == 0) {
            compared++;
            for (int j = 0; j < w.n; j++) {
                assert_true(r.start[j] == s.start[j]);
                assert_true(r.end[j] == s.end[j]);
            }
            assert_int_equal(r.creations, s.creations);
            assert_int_equal(r.destructions, s.destructions);
            assert_int_equal(r.migrations, s.total_migrations);
            assert_int_equal(r.events, s.events);
        }
        ms_online_cluster_result_fini(&r);
        ms_online_result_fini(&s);
        ms_online_workload_fini(&w);
    }
    assert_true(compared >= 10);
}

static void test_deterministic(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_rng rng;
    ms_rng_seed(&rng, 3);
    ms_online_workload w;
    random_trace(&rng, m, 300, 3, &w);
    ms_online_cluster_config c;
    ms_online_cluster_config_defaults(&c);
    c.nodes = 4;
    c.node.gpus = 2;
    for (int timed = 0; timed < 2; timed++) { /* and with all of Slurm's delays */
        c.slurm = timed ? (ms_online_slurm_timing){.launch = 0.7,
                                                   .tick = 1.3,
                                                   .backfill = 2.9,
                                                   .limit_unit = 5,
                                                   .node_count = true}
                        : (ms_online_slurm_timing){0};
        ms_online_cluster_result a, b;
        assert_int_equal(ms_online_cluster_simulate(m, &w, &c, &a, NULL), 0);
        assert_int_equal(ms_online_cluster_simulate(m, &w, &c, &b, NULL), 0);
        assert_memory_equal(a.start, b.start, (size_t)w.n * sizeof *a.start);
        assert_memory_equal(a.end, b.end, (size_t)w.n * sizeof *a.end);
        assert_memory_equal(a.node, b.node, (size_t)w.n * sizeof *a.node);
        ms_online_cluster_result_fini(&a);
        ms_online_cluster_result_fini(&b);
    }
    ms_online_workload_fini(&w);
}

/* The static best: no candidate it simulated beats it on the training part, it holds a type
 * for every job, and a workload with a 7g job allows only layouts with a whole GPU. */
static void test_static_best(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    ms_online_workload w;
    random_trace(&rng, m, 120, 4, &w);
    ms_online_cluster_config c;
    ms_online_cluster_config_defaults(&c);
    c.nodes = 2;
    c.node.gpus = 2;
    double best;
    int cands;
    assert_int_equal(ms_online_cluster_best_layout(m, &w, &w, &c, &best, &cands, NULL), 0);
    assert_true(cands > 1);
    ms_online_cluster_config t = c;
    t.policy = MS_CLUSTER_STATIC;
    ms_online_cluster_result r;
    assert_int_equal(ms_online_cluster_simulate(m, &w, &t, &r, NULL), 0);
    assert_near(r.all.mean_turnaround, best, 1e-9);
    ms_online_cluster_result_fini(&r);
    for (int p = 0; p < m->npartitions; p++) { /* each one-partition layout it could take */
        for (int g = 0; g < 2; g++)
            t.layout[g] = m->partitions[p];
        if (ms_online_cluster_simulate(m, &w, &t, &r, NULL))
            continue; /* no type for some job */
        assert_true(r.all.mean_turnaround >= best - 1e-9);
        ms_online_cluster_result_fini(&r);
    }
    ms_online_workload_fini(&w);
}

/* --load: the arrivals stretch so that sum c_p work / (slices x span) is the load. */
static void test_offered_load_scale(void **state)
{
    (void)state;
    const ms_gpu_model *m = a100();
    ms_online_workload w = {0};
    add(&w, 10, "1g.5gb", 100);
    add(&w, 20, "7g.40gb", 100);
    add(&w, 60, "3g.20gb", 50);
    assert_near(ms_online_offered_load(m, &w, 14), (100 + 700 + 150) / (14.0 * 50), 1e-12);
    double scale;
    assert_int_equal(ms_online_load_scale(m, &w, 14, 0.5, &scale, NULL), 0);
    ms_online_scale_arrivals(&w, scale);
    assert_near(ms_online_offered_load(m, &w, 14), 0.5, 1e-12);
    assert_near(w.jobs[0].arrival, 10, 1e-12);
    assert_near(w.jobs[2].arrival - 10, 950.0 / 7, 1e-9);
    assert_int_not_equal(ms_online_load_scale(m, &w, 14, 0, &scale, NULL), 0);
    ms_online_workload_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_two_nodes_by_hand),
        cmocka_unit_test(test_dynamic_backfill_by_hand),
        cmocka_unit_test(test_plugin_wait_by_hand),
        cmocka_unit_test(test_launch_overhead_by_hand),
        cmocka_unit_test(test_slurm_tick_by_hand),
        cmocka_unit_test(test_backfill_interval_by_hand),
        cmocka_unit_test(test_time_limit_unit_by_hand),
        cmocka_unit_test(test_slurm_node_count_by_hand),
        cmocka_unit_test(test_cons_tres_node_order),
        cmocka_unit_test(test_random_clusters_valid),
        cmocka_unit_test(test_one_node_equals_single_node),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_static_best),
        cmocka_unit_test(test_offered_load_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
