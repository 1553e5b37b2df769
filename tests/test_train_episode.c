/* test_train_episode.c: the workloads training episodes are drawn on; sorted episodes are
 * the batches `rl-eval --order sorted` cuts, told apart by the tasks' classes alone. */
#include <stdlib.h>
#include <string.h>

#include "migsched/learn.h"
#include "support.h"

#define TASKS 100 /* rl-eval's dataset */
#define N     14

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_train_config config(const char *preset, double share)
{
    ms_train_config c;
    memset(&c, 0, sizeof c);
    ms_env_config_default(&c.env);
    ms_ppo_config_default(&c.ppo);
    c.env.n_batch = N;
    ms_error err;
    if (ms_gen_preset(a100(), preset, &c.gen, &err))
        fail_msg("%s", err.msg);
    c.sorted = (ms_sorted_episodes){share, TASKS};
    c.total_steps = 1000;
    c.seed = 1;
    return c;
}

/* The classes of a class-ordered dataset of TASKS tasks, position by position: footnote
 * 8's counts, smallest size first. */
static void sorted_classes(const ms_gen_params *gen, int *cls)
{
    int count[MS_MAX_SLICES + 1], sup[MS_MAX_SLICES + 1], i = 0;
    ms_error err;
    assert_int_equal(ms_gen_class_counts(a100(), gen, TASKS, count, sup, &err), MS_OK);
    for (int k = 0; k < a100()->nsizes; k++)
        for (int j = 0; j < count[a100()->sizes[k]]; j++)
            cls[i++] = a100()->sizes[k];
    assert_int_equal(i, TASKS);
}

/* The batch of the sorted dataset w is, or -1: its length and classes are those of one
 * batch of N at the batch's position. */
static int which_batch(const ms_workload *w, const int *cls)
{
    for (int b = 0; b * N < TASKS; b++) {
        int len = TASKS - b * N < N ? TASKS - b * N : N, i = 0;
        while (w->n == len && i < len && test_task_class(&w->tasks[i], a100()) == cls[b * N + i])
            i++;
        if (w->n == len && i == len)
            return b;
    }
    return -1;
}

/* Draws `draws` episodes; seen[b] counts those that are batch b (b = nb: none). */
static void draw(const ms_train_config *c, int draws, int *seen)
{
    int cls[TASKS], nb = (TASKS + N - 1) / N;
    sorted_classes(&c->gen, cls);
    memset(seen, 0, (size_t)(nb + 1) * sizeof *seen);
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    for (int d = 0; d < draws; d++) {
        ms_workload *w;
        ms_error err;
        if (ms_train_episode(a100(), c, &rng, &w, &err))
            fail_msg("%s", err.msg);
        int b = which_batch(w, cls);
        seen[b < 0 ? nb : b]++;
        ms_workload_free(w);
    }
}

/* Share 1: every episode is one of the sorted dataset's batches, the short last one (2
 * tasks) included, each of them drawn. */
static void test_all_sorted(void **state)
{
    ms_train_config c = config("MIXSCALINGUNIFORM", 1);
    int seen[9];
    draw(&c, 400, seen);
    assert_int_equal(seen[8], 0);
    for (int b = 0; b < 8; b++)
        assert_true(seen[b] > 20);
}

/* Share 0: the shuffled draws of before, which are (almost) never sorted batches; a half
 * share gives sorted full batches about 7/8 of half the time. */
static void test_shares(void **state)
{
    ms_train_config c = config("MIXSCALINGEXTREME", 0);
    int seen[9], full = 0;
    draw(&c, 800, seen);
    for (int b = 0; b < 7; b++)
        full += seen[b];
    assert_int_equal(full, 0);
    c.sorted.share = 0.5;
    draw(&c, 800, seen);
    for (int b = 0; b < 7; b++)
        full += seen[b];
    assert_true(full > 0.35 * 800 && full < 0.52 * 800);
}

/* Sorted batches are cut for offline batches of N; an online trainer refuses them. */
static void test_online_refused(void **state)
{
    ms_train_config c = config("WIDETIMES", 0.5);
    c.env.online = true;
    ms_error err;
    assert_null(ms_trainer_new(a100(), &c, NULL, &err));
    assert_non_null(strstr(err.msg, "sorted episodes need an offline policy"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_sorted),
        cmocka_unit_test(test_shares),
        cmocka_unit_test(test_online_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
