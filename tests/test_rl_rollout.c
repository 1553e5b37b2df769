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
    ms_model_destroy(&model);
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

/* The makespan of: the episode's first n actions, then a, then greedy actions, replayed
 * from a reset (no copy, no batched network pass). */
static double replayed(ms_env *e, const ms_workload *w, const int *prefix, int n, int a,
                       ms_mlp_work *work, float *obs, uint8_t *mask)
{
    bool done = false;
    assert_int_equal(ms_env_reset(e, w, NULL), 0);
    for (int i = 0; i < n; i++)
        ms_env_step(e, prefix[i], &done);
    ms_env_step(e, a, &done);
    while (!done)
        ms_env_step(e, greedy_action(e, work, obs, mask), &done);
    return ms_env_now(e);
}

/* Along rollout episodes of small queues, every choice (widths 1, 3 and all) equals the
 * minimum of its candidates' replayed completions, ties to the policy's own action. */
static void test_choice_is_best_completion(void **state)
{
    (void)state;
    ms_env *e = ms_env_new(gpu(), &model.env, NULL), *r = ms_env_new(gpu(), &model.env, NULL);
    ms_rl_rollout *ro = ms_rl_rollout_new(&model.mlp, gpu(), &model.env, NULL);
    ms_mlp_work work;
    assert_int_equal(ms_mlp_work_init(&work, &model.mlp, 1, NULL), 0);
    int nact = model.mlp.nact;
    float *obs = malloc((size_t)model.mlp.in * sizeof(float)), *logits = malloc((size_t)nact * sizeof(float));
    uint8_t *mask = malloc((size_t)nact), *root = malloc((size_t)nact);
    int prefix[512], departed = 0, decisions = 0;
    ms_rng rng;
    ms_rng_seed(&rng, 77);
    const int widths[] = {1, 3, 0};
    for (int q = 0; q < 12; q++) {
        ms_workload *w = generate(2 + (int)ms_rng_below(&rng, 6), &rng);
        int width = widths[q % 3], n = 0;
        assert_int_equal(ms_env_reset(e, w, NULL), 0);
        bool done = ms_env_done(e);
        while (!done) {
            ms_rl_choice ch;
            assert_int_equal(ms_rl_rollout_best(ro, e, width, &ch, NULL), 0);
            /* The candidates: the width allowed actions of highest logits. */
            int allowed = ms_env_mask(e, root), greedy = greedy_action(e, &work, obs, mask);
            memcpy(logits, work.logits, (size_t)nact * sizeof(float));
            assert_int_equal(ch.greedy, greedy);
            assert_int_equal(ch.candidates, width && width < allowed ? width : allowed);
            double best = INFINITY, mine = NAN;
            int tried = 0;
            for (int a = 0; a < nact; a++) {
                if (!root[a])
                    continue;
                int above = 0; /* allowed actions ranked before a */
                for (int b = 0; b < nact; b++)
                    above += root[b] && (logits[b] > logits[a] || (logits[b] == logits[a] && b < a));
                if (above >= ch.candidates || ch.candidates == 1)
                    continue;
                tried++;
                double mk = replayed(r, w, prefix, n, a, &work, obs, mask);
                if (a == greedy)
                    mine = mk;
                best = fmin(best, mk);
            }
            if (ch.candidates == 1) {
                assert_int_equal(ch.best, greedy); /* nothing to compare: no completion */
                assert_true(isnan(ch.best_makespan));
            } else {
                assert_int_equal(tried, ch.candidates);
                assert_true(ch.best_makespan == best);
                assert_true(ch.greedy_makespan == mine);
                if (best == mine)
                    assert_int_equal(ch.best, greedy);
                else
                    assert_true(replayed(r, w, prefix, n, ch.best, &work, obs, mask) == best);
                departed += ch.best != greedy;
                decisions++;
            }
            assert_true(n < 512);
            prefix[n++] = ch.best;
            ms_env_step(e, ch.best, &done);
        }
        ms_workload_free(w);
    }
    assert_true(decisions > 50);
    assert_true(departed > 0); /* the test would not see a wrong choice rule otherwise */
    free(obs);
    free(logits);
    free(mask);
    free(root);
    ms_mlp_work_destroy(&work);
    ms_rl_rollout_free(ro);
    ms_env_free(r);
    ms_env_free(e);
}

static ms_schedule *plan(const ms_workload *w, int rollout)
{
    ms_schedule *s = NULL;
    assert_int_equal(ms_rl_schedule(&model, gpu(), w, false, rollout, &s, NULL), 0);
    ms_validation v = {0};
    if (ms_schedule_validate(s, w, &v)) {
        print_error("rollout %d, n=%d: %s: %s\n", rollout, w->n, v.v[0].rule, v.v[0].msg);
        ms_validation_free(&v);
        fail();
    }
    return s;
}

static double makespan(const ms_workload *w, int rollout)
{
    ms_schedule *s = plan(w, rollout);
    double m = ms_schedule_makespan(s);
    ms_schedule_free(s);
    return m;
}

/* Batches of 1-14 tasks: rollout plans validate, are never longer than the greedy plan
 * (every width), are shorter on some, the same for the same input, and width 1 is the
 * greedy plan itself. */
static void test_never_worse_than_greedy(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 2024);
    int shorter = 0;
    for (int q = 0; q < 40; q++) {
        ms_workload *w = generate(1 + (int)ms_rng_below(&rng, 14), &rng);
        double greedy = makespan(w, 0);
        assert_true(makespan(w, 1) == greedy);
        double k3 = makespan(w, 3), all = makespan(w, MS_RL_ROLLOUT_ALL);
        assert_true(k3 <= greedy * (1 + 1e-12));
        assert_true(all <= greedy * (1 + 1e-12));
        shorter += all < greedy * (1 - 1e-9);
        assert_true(makespan(w, MS_RL_ROLLOUT_ALL) == all);
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
        o.model = test_source_path("models/a100-widetimes.bin");
        o.rl_queue = mode;
        o.no_guard = 1;
        o.rl_rollout = 2;
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
        cmocka_unit_test(test_never_worse_than_greedy),
        cmocka_unit_test(test_offline_entry_point),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
