/* test_rl_rollout.c: the learned scheduler improved by rollout: each choice is the best of
 * its candidates' greedy completions, checked against completions replayed from the start
 * of the episode; plans are never longer than the greedy policy's (Bertsekas' cost
 * improvement: the greedy action is always a candidate), validate, and are deterministic. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "migsched/learn.h"
#include "migsched/offline.h"
#include "support.h"

static ms_rl_model model;

static int setup(void **state)
{
    (void)state;
    const char *path = test_source_path("models/a100-widetimes.bin");
    return access(path, R_OK) || ms_model_load(path, &model, NULL) ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    ms_model_fini(&model);
    return 0;
}

static const ms_gpu_model *gpu(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_workload *generate(int n, ms_rng *rng)
{
    ms_gen_params gen;
    ms_workload *w = NULL;
    assert_int_equal(ms_gen_preset(gpu(), "WIDETIMES", &gen, NULL), MS_OK);
    assert_int_equal(ms_generate(gpu(), &gen, n, rng, &w, NULL), MS_OK);
    return w;
}

static int greedy_action(ms_env *e, ms_mlp_work *work, float *obs, uint8_t *mask)
{
    ms_env_observe(e, obs);
    ms_env_mask(e, mask);
    ms_mlp_forward(&model.mlp, work, obs, 1);
    return ms_policy_argmax(work->logits, mask, model.mlp.nact);
}

/* What a test of the rollout's choices works with: the episode e, the replays r, the
 * rollout, and the network's scratch. */
typedef struct rig {
    ms_env *e, *r;
    ms_rl_rollout *ro;
    ms_mlp_work work;
    int *order;
    float *obs;
    uint8_t *mask, *root;
} rig;

static void rig_init(rig *g)
{
    g->e = ms_env_new(gpu(), &model.env, NULL);
    g->r = ms_env_new(gpu(), &model.env, NULL);
    g->ro = ms_rl_rollout_new(&model.mlp, NULL);
    assert_int_equal(ms_mlp_work_init(&g->work, &model.mlp, 1, NULL), 0);
    g->order = malloc((size_t)model.mlp.nact * sizeof(int));
    g->obs = malloc((size_t)model.mlp.in * sizeof(float));
    g->mask = malloc((size_t)model.mlp.nact);
    g->root = malloc((size_t)model.mlp.nact);
}

static void rig_free(rig *g)
{
    free(g->obs);
    free(g->order);
    free(g->mask);
    free(g->root);
    ms_mlp_work_fini(&g->work);
    ms_rl_rollout_free(g->ro);
    ms_env_free(g->r);
    ms_env_free(g->e);
}

/* The makespan of: the episode's first n actions, then a, then greedy actions, replayed
 * from a reset (no copy, no batched network pass). */
static double replayed(rig *g, const ms_workload *w, const int *prefix, int n, int a)
{
    bool done = false;
    assert_int_equal(ms_env_reset(g->r, w, NULL), 0);
    for (int i = 0; i < n; i++)
        ms_env_step(g->r, prefix[i], &done);
    ms_env_step(g->r, a, &done);
    while (!done)
        ms_env_step(g->r, greedy_action(g->r, &g->work, g->obs, g->mask), &done);
    return ms_env_now(g->r);
}

/* The allowed actions by logit into order, highest first (ties: the lower action first, as
 * the greedy policy's argmax takes it); returns how many. */
static int ranked(const float *logits, const uint8_t *allowed, int *order)
{
    int n = 0;
    for (int a = 0; a < model.mlp.nact; a++) {
        if (!allowed[a])
            continue;
        int i = n++;
        while (i > 0 && logits[order[i - 1]] < logits[a]) {
            order[i] = order[i - 1];
            i--;
        }
        order[i] = a;
    }
    return n;
}

/* Along rollout episodes of small queues, every choice (widths 1, 3 and all) equals the
 * minimum of its candidates' replayed completions, ties to the policy's own action. */
static void test_choice_is_best_completion(void **state)
{
    (void)state;
    rig g;
    rig_init(&g);
    int prefix[512], departed = 0, decisions = 0;
    ms_rng rng;
    ms_rng_seed(&rng, 77);
    const int widths[] = {1, 3, 0};
    for (int q = 0; q < 12; q++) {
        ms_workload *w = generate(2 + (int)ms_rng_below(&rng, 6), &rng);
        int width = widths[q % 3], n = 0;
        assert_int_equal(ms_env_reset(g.e, w, NULL), 0);
        bool done = ms_env_done(g.e);
        while (!done) {
            ms_rl_choice ch;
            assert_int_equal(ms_rl_rollout_best(g.ro, g.e, width, &ch, NULL), 0);
            /* The candidates: the width allowed actions of highest logits. */
            ms_env_mask(g.e, g.root);
            int greedy = greedy_action(g.e, &g.work, g.obs, g.mask);
            int allowed = ranked(g.work.logits, g.root, g.order);
            assert_int_equal(ch.greedy, greedy);
            assert_int_equal(g.order[0], greedy);
            assert_int_equal(ch.candidates, width && width < allowed ? width : allowed);
            double best = INFINITY, mine = NAN;
            for (int i = 0; i < ch.candidates && ch.candidates > 1; i++) {
                double mk = replayed(&g, w, prefix, n, g.order[i]);
                if (i == 0)
                    mine = mk;
                best = fmin(best, mk);
            }
            if (ch.candidates == 1) {
                assert_int_equal(ch.best, greedy); /* nothing to compare: no completion */
                assert_true(isnan(ch.best_makespan));
            } else {
                assert_true(ch.best_makespan == best);
                assert_true(ch.greedy_makespan == mine);
                if (best == mine)
                    assert_int_equal(ch.best, greedy);
                else
                    assert_true(replayed(&g, w, prefix, n, ch.best) == best);
                departed += ch.best != greedy;
                decisions++;
            }
            assert_true(n < 512);
            prefix[n++] = ch.best;
            ms_env_step(g.e, ch.best, &done);
        }
        ms_workload_free(w);
    }
    assert_true(decisions > 50);
    assert_true(departed > 0); /* the test would not see a wrong choice rule otherwise */
    rig_free(&g);
}

/* Along episodes of ms_rl_rollout_decide (width 8; logit gaps 0.5, 1 and every decision),
 * every action is the first of the best replayed completions of its candidates: the width
 * allowed actions of highest logits within the gap of the greedy one. So the savings (the
 * makespan bound, the kept completion, states reached again) change no choice; the test
 * also sees each of them at work. */
static void test_decide_is_gated_best_completion(void **state)
{
    (void)state;
    rig g;
    rig_init(&g);
    int prefix[512], departed = 0, rolled = 0;
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    const float gaps[] = {0.5f, 1.0f, INFINITY};
    for (int q = 0; q < 18; q++) {
        ms_workload *w = generate(2 + (int)ms_rng_below(&rng, 13), &rng);
        float gap = gaps[q % 3];
        int n = 0;
        assert_int_equal(ms_env_reset(g.e, w, NULL), 0);
        ms_rl_rollout_forget(g.ro);
        bool done = ms_env_done(g.e);
        while (!done) {
            int a;
            assert_int_equal(ms_rl_rollout_decide(g.ro, g.e, 8, gap, &a, NULL), 0);
            ms_env_mask(g.e, g.root);
            greedy_action(g.e, &g.work, g.obs, g.mask);
            int nc = ranked(g.work.logits, g.root, g.order);
            nc = nc < 8 ? nc : 8;
            while (nc > 1 && !(g.work.logits[g.order[0]] - g.work.logits[g.order[nc - 1]] < gap))
                nc--;
            int expect = g.order[0];
            double best = nc > 1 ? replayed(&g, w, prefix, n, g.order[0]) : 0;
            for (int i = 1; i < nc; i++) {
                double mk = replayed(&g, w, prefix, n, g.order[i]);
                if (mk < best) {
                    best = mk;
                    expect = g.order[i];
                }
            }
            assert_int_equal(a, expect);
            rolled += nc > 1;
            departed += a != g.order[0];
            assert_true(n < 512);
            prefix[n++] = a;
            ms_env_step(g.e, a, &done);
        }
        ms_workload_free(w);
    }
    ms_rl_rollout_stats st = ms_rl_rollout_get_stats(g.ro);
    print_message("decide: %ld decisions, %d rolled out, %d departed; %ld passes, %ld cut, "
                  "%ld merged\n",
                  st.decisions, rolled, departed, st.passes, st.cut, st.merged);
    assert_true(departed > 0 && st.cut > 0 && st.merged > 0);
    rig_free(&g);
}

static ms_schedule *plan(const ms_workload *w, int rollout, float gap)
{
    ms_schedule *s = NULL;
    assert_int_equal(ms_rl_schedule(&model, gpu(), w, false, rollout, gap, &s, NULL), 0);
    ms_validation v = {0};
    if (ms_schedule_validate(s, w, &v)) {
        print_error("rollout %d, gap %g, n=%d: %s: %s\n", rollout, (double)gap, w->n, v.v[0].rule,
                    v.v[0].msg);
        ms_validation_fini(&v);
        fail();
    }
    return s;
}

static double makespan(const ms_workload *w, int rollout, float gap)
{
    ms_schedule *s = plan(w, rollout, gap);
    double m = ms_schedule_makespan(s);
    ms_schedule_free(s);
    return m;
}

/* Batches of 1-14 tasks: rollout plans validate, are never longer than the greedy plan
 * (every width and gap, the default rule too), are shorter on some, the same for the same
 * input, and width 1 or gap 0 is the greedy plan itself. */
static void test_never_worse_than_greedy(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 2024);
    int shorter = 0;
    for (int q = 0; q < 40; q++) {
        ms_workload *w = generate(1 + (int)ms_rng_below(&rng, 14), &rng);
        double greedy = makespan(w, 1, INFINITY);
        assert_true(makespan(w, 8, 0) == greedy);
        double k3 = makespan(w, 3, INFINITY), all = makespan(w, MS_RL_ROLLOUT_ALL, INFINITY);
        double rule = makespan(w, MS_RL_ROLLOUT_DEFAULT, MS_RL_GAP_DEFAULT);
        assert_true(k3 <= greedy * (1 + 1e-12));
        assert_true(all <= greedy * (1 + 1e-12));
        assert_true(rule <= greedy * (1 + 1e-12));
        shorter += all < greedy * (1 - 1e-9);
        assert_true(makespan(w, MS_RL_ROLLOUT_ALL, INFINITY) == all);
        ms_workload_free(w);
    }
    assert_true(shorter > 0);
}

/* Through the offline entry point: a queue longer than N (both queue modes, no guard)
 * validates and says it used the rollout. */
static void test_offline_entry_point(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 9);
    ms_workload *w = generate(20, &rng);
    for (int mode = MS_RL_QUEUE_FILL; mode <= MS_RL_QUEUE_SPLIT; mode++) {
        ms_offline_options o;
        ms_offline_options_init(&o);
        o.rl.model = test_source_path("models/a100-widetimes.bin");
        o.rl.queue = mode;
        o.rl.no_guard = 1;
        o.rl.rollout = 2;
        o.rl.rollout_gap = INFINITY;
        ms_schedule *s = NULL;
        ms_error err;
        if (ms_offline_schedule("rl", w, gpu(), 1, &o, &s, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
        assert_true(ms_schedule_stat(s, "rollout") == 2);
        ms_schedule_free(s);
    }
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_choice_is_best_completion),
        cmocka_unit_test(test_decide_is_gated_best_completion),
        cmocka_unit_test(test_never_worse_than_greedy),
        cmocka_unit_test(test_offline_entry_point),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
