/* test_train_demo.c: demonstrations in training (`train --demonstrate-share`): FAR's plans
 * are given where they beat the untrained policy and teach through the imitation term
 * (the only labels here); a plan no better than the policy's own episode is never given; a
 * demonstrator's error stops training with its message; online policies are refused; the share
 * survives a checkpoint. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/learn.h"
#include "migsched/offline.h"
#include "support.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

/* Every task one after the other on the whole GPU: for 14 tasks that scale poorly far
 * longer than the shipped POORSCALING policy's episodes. */
static int serial_plan(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out,
                       ms_error *err)
{
    ms_schedule *s = ms_schedule_new(gpu, 1, "serial");
    int K = gpu->slices;
    double c = ms_gpu_create_time(gpu, K), t = c;
    int in = ms_schedule_add_instance(s, 0, gpu->base_profile[K], 0, 0, c, NAN, NAN);
    for (int i = 0; i < w->n; i++) {
        ms_schedule_add_task(s, i, in, t, t + w->tasks[i].time[K]);
        t += w->tasks[i].time[K];
    }
    *out = s;
    return MS_OK;
}

static int failing_plan(const ms_workload *w, const ms_gpu_model *gpu, ms_schedule **out,
                        ms_error *err)
{
    (void)w;
    (void)gpu;
    (void)out;
    return ms_error_set(err, MS_EINVAL, "demonstrator out of order");
}

static ms_train_config config(int (*demonstrator)(const ms_workload *, const ms_gpu_model *,
                                                  ms_schedule **, ms_error *))
{
    ms_train_config c;
    memset(&c, 0, sizeof c);
    ms_env_config_default(&c.env);
    ms_ppo_config_default(&c.ppo);
    c.ppo.threads = 1;
    c.ppo.demo_share = 0.5f;
    c.demonstrator = demonstrator;
    assert_int_equal(ms_gen_preset(a100(), "POORSCALING", &c.gen, NULL), MS_OK);
    snprintf(c.preset, sizeof c.preset, "POORSCALING");
    c.total_steps = 1 << 20;
    c.seed = 3;
    return c;
}

static void test_given_where_better(void **state)
{
    (void)state;
    ms_train_config c = config(ms_far_plan);
    ms_trainer *t = ms_trainer_new(a100(), &c, NULL, NULL);
    assert_non_null(t);
    ms_ppo_stats st;
    assert_int_equal(ms_trainer_iterate(t, &st, NULL), MS_OK);
    /* Half the episodes offered: FAR beats the untrained policy on them. */
    assert_true(st.demonstrations > 0 && st.episodes > 0);
    assert_false(isnan(st.imitate_loss)); /* the demonstrations are the only labels */
    ms_trainer_free(t);

    c = config(serial_plan);
    c.tasks_per_episode = 14;
    ms_rl_model m;
    assert_int_equal(ms_model_load(test_source_path("models/a100-poorscaling.bin"), &m, NULL),
                     MS_OK);
    c.env = m.env;
    c.ppo.separate = m.mlp.separate;
    t = ms_trainer_new(a100(), &c, &m, NULL);
    assert_non_null(t);
    ms_model_fini(&m);
    ms_error err;
    if (ms_trainer_iterate(t, &st, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(st.demonstrations, 0);
    assert_true(st.episodes > 0);
    assert_true(isnan(st.imitate_loss)); /* nothing labelled */
    ms_trainer_free(t);
}

static void test_errors(void **state)
{
    (void)state;
    ms_train_config c = config(failing_plan);
    ms_error err;
    ms_trainer *t = ms_trainer_new(a100(), &c, NULL, &err);
    assert_non_null(t); /* the demonstrator is first asked in the rollout */
    ms_ppo_stats st;
    assert_int_equal(ms_trainer_iterate(t, &st, &err), MS_EINVAL);
    ms_trainer_free(t);
    assert_non_null(strstr(err.msg, "demonstrator out of order"));

    c = config(ms_far_plan);
    c.env.online = true;
    assert_null(ms_trainer_new(a100(), &c, NULL, &err));
    assert_non_null(strstr(err.msg, "demonstrations need an offline policy"));
    c = config(NULL);
    assert_null(ms_trainer_new(a100(), &c, NULL, &err));
    assert_non_null(strstr(err.msg, "demonstrator"));
}

static void test_checkpoint_keeps_share(void **state)
{
    (void)state;
    ms_train_config c = config(ms_far_plan);
    c.ppo.demo_share = 0.3f;
    ms_trainer *t = ms_trainer_new(a100(), &c, NULL, NULL);
    assert_non_null(t);
    char dir[256], path[300];
    test_temp_dir("demo", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/m.bin", dir);
    assert_int_equal(ms_trainer_save(t, path, NULL), MS_OK);
    ms_rl_model m;
    assert_int_equal(ms_model_load(path, &m, NULL), MS_OK);
    assert_true(m.has_train);
    assert_near(m.ppo.demo_share, 0.3, 1e-7);
    ms_model_fini(&m);
    ms_trainer_free(t);
    test_remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_given_where_better),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_checkpoint_keeps_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
