/* test_rl_eval.c: the evaluation of a trained policy against the offline algorithms
 * (ms_rl_eval_run): offline, p_opt per batch against the paper's bound, recomputed here
 * from the schedulers and the generator; by batch position; online, the policy's makespan
 * and p_online against FAR and the offline policy; inputs it refuses. */
#include <stdio.h>
#include <string.h>

#include "migsched/learn.h"
#include "migsched/offline.h"
#include "support.h"

static ms_rl_model load(const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/models/%s", MIGSCHED_SOURCE_DIR, file);
    ms_rl_model m;
    ms_error err;
    if (ms_model_load(path, &m, &err))
        fail_msg("%s", err.msg);
    return m;
}

static double makespan(ms_schedule *s)
{
    assert_non_null(s);
    double mk = ms_schedule_makespan(s);
    ms_schedule_free(s);
    return mk;
}

static double far_makespan(const ms_workload *w, const ms_gpu_model *gpu, int batch)
{
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.batch = batch;
    ms_schedule *s = NULL;
    ms_error err;
    assert_int_equal(ms_offline_schedule("far", w, gpu, 1, &o, &s, &err), 0);
    return makespan(s);
}

static double policy_makespan(const ms_rl_model *m, const ms_gpu_model *gpu, const ms_workload *w,
                              bool online)
{
    ms_schedule *s = NULL;
    ms_error err;
    assert_int_equal(ms_rl_schedule(m, gpu, w, online, 1, 0, &s, &err), 0);
    return makespan(s);
}

static void setup_eval(ms_rl_eval *e, const ms_rl_model *m, const ms_gpu_model *gpu)
{
    ms_error err;
    memset(e, 0, sizeof *e);
    e->model = m;
    e->rollout = 1;
    e->gap = 0;
    e->ncompare = 1;
    e->compare[0] = "far";
    assert_int_equal(ms_gen_preset(gpu, m->preset, &e->gen, &err), 0);
    e->sets = 2;
    e->tasks = 25;
    e->seed = 11;
}

static void test_offline(void **state)
{
    (void)state;
    ms_rl_model m = load("a100-widetimes.bin");
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_rl_eval e;
    setup_eval(&e, &m, gpu);
    e.by_batch = true;
    ms_rl_eval_result r;
    ms_error err;
    assert_int_equal(ms_rl_eval_run(gpu, &e, &r, &err), 0);
    int N = m.env.n_batch;
    assert_int_equal(r.npos, (25 + N - 1) / N);
    double want[2] = {0, 0}, pos[64][2] = {{0}};
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    for (int set = 0; set < 2; set++) {
        ms_workload *w;
        assert_int_equal(ms_generate(gpu, &e.gen, 25, &rng, &w, &err), 0);
        double acc[2] = {0, 0};
        int nb = 0;
        for (int from = 0; from < w->n; from += N, nb++) {
            ms_workload *b = ms_workload_slice(w, from, N);
            double lb = ms_bound_lbound_paper(b, gpu, 1);
            double p[2] = {(policy_makespan(&m, gpu, b, false) / lb - 1) * 100,
                           (far_makespan(b, gpu, 0) / lb - 1) * 100};
            for (int k = 0; k < 2; k++) {
                acc[k] += p[k];
                pos[nb][k] += p[k] / 2;
            }
            ms_workload_free(b);
        }
        assert_int_equal(nb, r.npos);
        for (int k = 0; k < 2; k++)
            want[k] += acc[k] / nb / 2;
        ms_workload_free(w);
    }
    for (int k = 0; k < 2; k++) {
        assert_near(r.mean[k], want[k], 1e-9);
        for (int b = 0; b < r.npos; b++)
            assert_near(r.by_batch[b][k], pos[b][k], 1e-9);
    }
    ms_rl_eval_result_fini(&r);
    e.ncompare = MS_RL_EVAL_MAX_COMPARE + 1;
    assert_int_equal(ms_rl_eval_run(gpu, &e, &r, &err), MS_EINVAL);
    e.ncompare = 1;
    e.compare[0] = "no-such-algorithm";
    assert_int_not_equal(ms_rl_eval_run(gpu, &e, &r, &err), 0);
    assert_non_null(strstr(err.msg, "dataset 0"));
    ms_model_fini(&m);
}

static void test_online(void **state)
{
    (void)state;
    ms_rl_model m = load("a100-widetimes-online.bin"), off = load("a100-widetimes.bin");
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_rl_eval e;
    setup_eval(&e, &m, gpu);
    e.offline_model = &off;
    e.by_batch = true;
    ms_rl_eval_result r;
    ms_error err;
    assert_int_equal(ms_rl_eval_run(gpu, &e, &r, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "one queue"));
    e.by_batch = false;
    assert_int_equal(ms_rl_eval_run(gpu, &e, &r, &err), 0);
    assert_int_equal(r.npos, 0);
    double want[3] = {0, 0, 0};
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    for (int set = 0; set < 2; set++) {
        ms_workload *w;
        assert_int_equal(ms_generate(gpu, &e.gen, 25, &rng, &w, &err), 0);
        double mine = policy_makespan(&m, gpu, w, true);
        want[0] += mine / 2;
        want[1] += (far_makespan(w, gpu, m.env.n_batch) / mine - 1) * 100 / 2;
        want[2] += (policy_makespan(&off, gpu, w, false) / mine - 1) * 100 / 2;
        ms_workload_free(w);
    }
    for (int k = 0; k < 3; k++)
        assert_near(r.mean[k], want[k], 1e-9);
    ms_rl_eval_result_fini(&r);
    ms_model_fini(&m);
    ms_model_fini(&off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_offline),
        cmocka_unit_test(test_online),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
