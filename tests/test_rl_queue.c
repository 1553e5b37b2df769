/* test_rl_queue.c: the learned scheduler on queues of any length: a 15-task
 * queue planned with an N = 14 policy is no worse than its first 14 tasks followed by the
 * 15th planned by FAR alone; the agent's schedules (its default rule of decision, both queue
 * modes, no guard) validate on random queues of 1-60 tasks for every shipped policy (and,
 * on one in a hundred, are never longer than the greedy policy's); the guard is never worse
 * than FAR or the agent. MS_RL_QUEUES sets the random queues per policy (default 60; `make
 * test-long` runs 10,000). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "migsched/learn.h"
#include "migsched/offline.h"
#include "support.h"

static const struct {
    const char *file, *preset;
} models[] = {
    {"models/a100-poorscaling.bin", "POORSCALING"},
    {"models/a100-goodscaling.bin", "GOODSCALING"},
    {"models/a100-mixscalinguniform.bin", "MIXSCALINGUNIFORM"},
    {"models/a100-mixscalingextreme.bin", "MIXSCALINGEXTREME"},
    {"models/a100-widetimes.bin", "WIDETIMES"},
    {"models/a100-widetimes-online.bin", "WIDETIMES"},
};
#define NMODELS (int)(sizeof models / sizeof *models)

static char model_path[NMODELS][4096];

static ms_schedule *plan_with(const char *algo, const ms_workload *w, int model, int queue,
                              int no_guard, int rollout)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.rl.model = model >= 0 ? model_path[model] : NULL;
    o.rl.queue = queue;
    o.rl.no_guard = no_guard;
    o.rl.rollout = rollout;
    ms_schedule *s = NULL;
    ms_error err = {0};
    if (ms_offline_schedule(algo, w, ms_gpu_builtin("A100-40GB"), 1, &o, &s, &err))
        fail_msg("%s (%s, n=%d): %s", algo, model >= 0 ? models[model].file : "-", w->n, err.msg);
    ms_validation v = {0};
    if (ms_schedule_validate(s, w, &v)) {
        print_error("%s (%s, n=%d, queue %s): %s: %s\n", algo,
                    model >= 0 ? models[model].file : "-", w->n,
                    ms_rl_queue_name((ms_rl_queue_mode)queue), v.v[0].rule, v.v[0].msg);
        ms_validation_fini(&v);
        fail();
    }
    return s;
}

/* With the agent's default rule of decision. */
static ms_schedule *plan(const char *algo, const ms_workload *w, int model, int queue, int no_guard)
{
    return plan_with(algo, w, model, queue, no_guard, MS_RL_ROLLOUT_DEFAULT);
}

static double makespan(const char *algo, const ms_workload *w, int model, int queue, int no_guard)
{
    ms_schedule *s = plan(algo, w, model, queue, no_guard);
    double m = ms_schedule_makespan(s);
    ms_schedule_free(s);
    return m;
}

static ms_workload *generate(int model, int n, ms_rng *rng)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_gen_params gen;
    ms_workload *w = NULL;
    assert_int_equal(ms_gen_preset(gpu, models[model].preset, &gen, NULL), MS_OK);
    assert_int_equal(ms_generate(gpu, &gen, n, rng, &w, NULL), MS_OK);
    return w;
}

static int setup(void **state)
{
    (void)state;
    for (int m = 0; m < NMODELS; m++) {
        snprintf(model_path[m], sizeof model_path[m], "%s", test_source_path(models[m].file));
        if (access(model_path[m], R_OK))
            return -1;
    }
    return 0;
}

/* The required showing: 15 tasks with an N = 14 offline policy (`--algo rl` as it
 * defaults) take no longer than the agent's plan of the first 14 tasks followed by FAR's
 * plan of the 15th alone: their makespans added, plus the destruction of the 14-task plan's
 * instances still alive at its end (what running one after the other costs). 20 fixed
 * queues per offline policy. */
static void test_fifteen_not_worse(void **state)
{
    (void)state;
    ms_offline_options d;
    ms_offline_options_init(&d);
    for (int m = 0; m < NMODELS; m++) {
        if (strstr(models[m].file, "online"))
            continue;
        ms_rng rng;
        ms_rng_seed(&rng, 1500 + (uint64_t)m);
        for (int q = 0; q < 20; q++) {
            ms_workload *w = generate(m, 15, &rng);
            ms_workload *head = ms_workload_slice(w, 0, 14), *last = ms_workload_slice(w, 14, 1);
            ms_schedule *h = plan("rl", head, m, d.rl.queue, 1);
            double seq = ms_schedule_makespan(h) + makespan("far", last, -1, 0, 0);
            for (int i = 0; i < h->ninst; i++)
                if (isnan(h->inst[i].destroy_start))
                    seq += ms_gpu_destroy_time(&h->gpu, h->gpu.profiles[h->inst[i].profile].slices);
            double whole = makespan("rl", w, m, d.rl.queue, 0);
            if (whole > seq * (1 + 1e-12))
                fail_msg("%s, queue %d: 15 tasks take %.4f s, the first 14 then FAR's 15th "
                         "%.4f s",
                         models[m].file, q, whole, seq);
            ms_schedule_free(h);
            ms_workload_free(head);
            ms_workload_free(last);
            ms_workload_free(w);
        }
    }
}

/* Random queues of 1-60 tasks: every plan of the agent alone validates (both queue modes),
 * and the guarded plan is the shorter of the agent's and FAR's. */
static void test_random_queues_validate(void **state)
{
    (void)state;
    const char *env = getenv("MS_RL_QUEUES");
    int count = env && atoi(env) > 0 ? atoi(env) : 60;
    for (int m = 0; m < NMODELS; m++) {
        ms_rng rng;
        ms_rng_seed(&rng, 6000 + (uint64_t)m);
        bool online = strstr(models[m].file, "online") != NULL;
        for (int q = 0; q < count; q++) {
            ms_workload *w = generate(m, 1 + (int)ms_rng_below(&rng, 60), &rng);
            double fill = makespan("rl", w, m, MS_RL_QUEUE_FILL, 1);
            double split = online ? fill : makespan("rl", w, m, MS_RL_QUEUE_SPLIT, 1);
            if (q % 100 == 7) { /* the greedy policy's plan is never shorter */
                ms_schedule *g = plan_with("rl", w, m, MS_RL_QUEUE_FILL, 1, 1);
                assert_true(fill <= ms_schedule_makespan(g) * (1 + 1e-12));
                ms_schedule_free(g);
            }
            if (q % 10 == 0) { /* the default and the guard on a tenth (FAR dominates the time) */
                double best = makespan("rl", w, m, MS_RL_QUEUE_BEST, 1);
                assert_near(best, split < fill ? split : fill, 1e-9);
                double far = makespan("far", w, -1, 0, 0);
                ms_schedule *g = plan("rl", w, m, MS_RL_QUEUE_BEST, 0);
                double seq = ms_schedule_stat(g, "head_far_makespan"), ms = ms_schedule_makespan(g);
                assert_near(ms_schedule_stat(g, "agent_makespan"), best, 1e-9);
                assert_near(ms_schedule_stat(g, "far_makespan"), far, 1e-9);
                assert_true(isnan(seq) == (w->n <= 14 || online));
                double want = fmin(best, fmin(far, isnan(seq) ? INFINITY : seq));
                assert_near(ms, want, 1e-9);
                assert_int_equal(ms_schedule_stat(g, "guard_won"),
                                 ms < best ? (ms == far ? 1 : 2) : 0);
                ms_schedule_free(g);
            }
            ms_workload_free(w);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fifteen_not_worse),
        cmocka_unit_test(test_random_queues_validate),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
