/* test_env_vector.c: the vector environment: each environment plays what a lone environment
 * plays on the same workloads (same bytes), ended episodes are reset at once and all
 * validate, steps are checked against the masks, its random picks are allowed, uniform and
 * seeded, and the settings are checked. */
#include <stdlib.h>
#include <string.h>

#include "migsched/env.h"
#include "support.h"

static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

/* The buffers of n environments of e's sizes. */
typedef struct bufs {
    ms_vec_out out;
    int obs_size, nact;
} bufs;

static void bufs_init(bufs *b, const ms_vec_env *v)
{
    int n = ms_vec_env_size(v);
    b->obs_size = ms_env_obs_size(ms_vec_env_get(v, 0));
    b->nact = ms_env_num_actions(ms_vec_env_get(v, 0));
    b->out.obs = calloc((size_t)n * (size_t)b->obs_size, sizeof(float));
    b->out.mask = calloc((size_t)n, (size_t)b->nact);
    b->out.reward = calloc((size_t)n, sizeof(double));
    b->out.terminated = calloc((size_t)n, 1);
    b->out.ep_return = calloc((size_t)n, sizeof(double));
    b->out.ep_makespan = calloc((size_t)n, sizeof(double));
    assert_non_null(b->out.obs);
    assert_non_null(b->out.mask);
}

static void bufs_fini(bufs *b)
{
    free(b->out.obs);
    free(b->out.mask);
    free(b->out.reward);
    free(b->out.terminated);
    free(b->out.ep_return);
    free(b->out.ep_makespan);
}

static ms_vec_env *make_vec(int n, const ms_workload *fixed, int tasks, bool async)
{
    ms_env_config c;
    ms_env_config_default(&c);
    c.async_reconfig = async;
    ms_vec_config vc = {.n = n, .fixed = fixed, .tasks = tasks};
    assert_int_equal(ms_gen_preset(a100(), "MIXEDSCALING,WIDETIMES", &vc.gen, NULL), MS_OK);
    ms_error err;
    ms_vec_env *v = ms_vec_env_new(a100(), &c, &vc, &err);
    if (!v)
        fail_msg("%s", err.msg);
    return v;
}

/* Uniformly random allowed actions from the masks last written. */
static void random_actions(const bufs *b, int n, ms_rng *rng, int32_t *actions)
{
    for (int i = 0; i < n; i++) {
        const uint8_t *m = b->out.mask + (size_t)i * (size_t)b->nact;
        int allowed = 0;
        for (int a = 0; a < b->nact; a++)
            allowed += m[a];
        assert_true(allowed > 0);
        actions[i] = ms_env_random_action(m, b->nact, allowed, rng);
    }
}

/* Environment i of a vector, replayed alone: a lone environment on the workloads of the
 * stream the vector gives i (the seed's i-th split) under the same actions writes the same
 * observations, masks and rewards, ends its episodes at the same steps with the same
 * makespans, and hundreds of episodes end, every one valid. */
static void test_environments_play_as_lone_ones(void **state)
{
    enum { N = 6, STEPS = 1500, TASKS = 10 };
    ms_vec_env *v = make_vec(N, NULL, TASKS, false);
    bufs b;
    bufs_init(&b, v);
    assert_int_equal(ms_vec_env_reset(v, 77, &b.out, NULL), MS_OK);

    ms_env_config c;
    ms_env_config_default(&c);
    ms_env *lone[N];
    ms_workload *w[N];
    ms_rng stream[N], base;
    ms_gen_params gen;
    ms_gen_preset(a100(), "MIXEDSCALING,WIDETIMES", &gen, NULL);
    ms_rng_seed(&base, 77);
    for (int i = 0; i < N; i++) {
        stream[i] = ms_rng_split(&base, (uint64_t)i);
        assert_non_null(lone[i] = ms_env_new(a100(), &c, NULL));
        assert_int_equal(ms_generate(a100(), &gen, TASKS, &stream[i], &w[i], NULL), MS_OK);
        assert_int_equal(ms_env_reset(lone[i], w[i], NULL), MS_OK);
    }
    float *obs = malloc((size_t)b.obs_size * sizeof(float));
    uint8_t *mask = malloc((size_t)b.nact);
    ms_rng pick;
    ms_rng_seed(&pick, 5);
    long ended = 0;
    double ret[N] = {0};
    for (int step = 0; step < STEPS; step++) {
        for (int i = 0; i < N; i++) {
            ms_env_observe(lone[i], obs);
            ms_env_mask(lone[i], mask);
            assert_memory_equal(obs, b.out.obs + (size_t)i * (size_t)b.obs_size,
                                (size_t)b.obs_size * sizeof(float));
            assert_memory_equal(mask, b.out.mask + (size_t)i * (size_t)b.nact, (size_t)b.nact);
        }
        int32_t actions[N];
        random_actions(&b, N, &pick, actions);
        assert_int_equal(ms_vec_env_step(v, actions, &b.out, NULL), MS_OK);
        for (int i = 0; i < N; i++) {
            bool done;
            double r = ms_env_step(lone[i], actions[i], &done);
            ret[i] += r;
            assert_true(r == b.out.reward[i]);
            assert_int_equal(done, b.out.terminated[i]);
            if (!done)
                continue;
            ended++;
            assert_true(b.out.ep_makespan[i] == ms_env_now(lone[i]));
            assert_true(b.out.ep_return[i] == ret[i]);
            /* The return is minus the makespan in the episode's scale. */
            assert_near(ret[i], -ms_env_now(lone[i]) / ms_env_scale(lone[i]), 1e-9);
            ret[i] = 0;
            ms_workload_free(w[i]);
            assert_int_equal(ms_generate(a100(), &gen, TASKS, &stream[i], &w[i], NULL), MS_OK);
            assert_int_equal(ms_env_reset(lone[i], w[i], NULL), MS_OK);
        }
    }
    assert_true(ended >= 300);
    assert_int_equal(ms_vec_env_episodes(v), ended);
    assert_int_equal(ms_vec_env_invalid(v), 0);
    assert_string_equal(ms_vec_env_invalid_message(v), "");
    assert_int_equal(ms_vec_env_steps(v), (long)N * STEPS);
    for (int i = 0; i < N; i++) {
        ms_env_free(lone[i]);
        ms_workload_free(w[i]);
    }
    free(obs);
    free(mask);
    bufs_fini(&b);
    ms_vec_env_free(v);
}

/* Steps played from a seed, observations and makespans summed into a digest. */
static double digest(ms_vec_env *v, bufs *b, uint64_t seed, int steps)
{
    int n = ms_vec_env_size(v);
    assert_int_equal(ms_vec_env_reset(v, seed, &b->out, NULL), MS_OK);
    ms_rng pick;
    ms_rng_seed(&pick, 9);
    int32_t *actions = malloc((size_t)n * sizeof *actions);
    double sum = 0;
    for (int s = 0; s < steps; s++) {
        random_actions(b, n, &pick, actions);
        assert_int_equal(ms_vec_env_step(v, actions, &b->out, NULL), MS_OK);
        for (int i = 0; i < n; i++) {
            sum += b->out.terminated[i] ? b->out.ep_makespan[i] : 0;
            for (int k = 0; k < b->obs_size; k++)
                sum += (double)b->out.obs[(size_t)i * (size_t)b->obs_size + (size_t)k] * (k + 1);
        }
    }
    free(actions);
    return sum;
}

/* A reset with the same seed plays the same episodes; another seed other ones; with
 * asynchronous reconfigurations too, every episode valid. */
static void test_seeded_and_deterministic(void **state)
{
    for (int async = 0; async < 2; async++) {
        ms_vec_env *v = make_vec(4, NULL, 14, async);
        bufs b;
        bufs_init(&b, v);
        double d1 = digest(v, &b, 3, 400), d2 = digest(v, &b, 3, 400), d3 = digest(v, &b, 4, 400);
        assert_true(d1 == d2);
        assert_true(d1 != d3);
        assert_true(ms_vec_env_episodes(v) > 20);
        assert_int_equal(ms_vec_env_invalid(v), 0);
        bufs_fini(&b);
        ms_vec_env_free(v);
    }
}

/* Environment i's episodes do not depend on how many environments the vector holds. */
static void test_streams_independent_of_the_count(void **state)
{
    ms_vec_env *two = make_vec(2, NULL, 9, false), *five = make_vec(5, NULL, 9, false);
    bufs b2, b5;
    bufs_init(&b2, two);
    bufs_init(&b5, five);
    assert_int_equal(ms_vec_env_reset(two, 8, &b2.out, NULL), MS_OK);
    assert_int_equal(ms_vec_env_reset(five, 8, &b5.out, NULL), MS_OK);
    size_t row = (size_t)b2.obs_size * sizeof(float);
    assert_memory_equal(b2.out.obs, b5.out.obs, 2 * row);
    assert_memory_not_equal(b5.out.obs, b5.out.obs + b5.obs_size, row);
    bufs_fini(&b2);
    bufs_fini(&b5);
    ms_vec_env_free(two);
    ms_vec_env_free(five);
}

/* On a fixed workload every environment starts alike and goes on to it again after an
 * end. */
static void test_fixed_workload(void **state)
{
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    ms_workload *w = test_random_preset_workload(a100(), 8, &rng);
    ms_vec_env *v = make_vec(3, w, 0, false);
    bufs b;
    bufs_init(&b, v);
    assert_int_equal(ms_vec_env_reset(v, 0, &b.out, NULL), MS_OK);
    float *first = malloc((size_t)b.obs_size * sizeof(float));
    memcpy(first, b.out.obs, (size_t)b.obs_size * sizeof(float));
    for (int i = 1; i < 3; i++)
        assert_memory_equal(first, b.out.obs + (size_t)i * (size_t)b.obs_size,
                            (size_t)b.obs_size * sizeof(float));
    int32_t actions[3];
    bool ended = false;
    for (int s = 0; s < 500 && !ended; s++) {
        random_actions(&b, 3, &rng, actions);
        assert_int_equal(ms_vec_env_step(v, actions, &b.out, NULL), MS_OK);
        if (b.out.terminated[0]) {
            ended = true;
            assert_memory_equal(first, b.out.obs, (size_t)b.obs_size * sizeof(float));
        }
    }
    assert_true(ended);
    free(first);
    bufs_fini(&b);
    ms_vec_env_free(v);
    ms_workload_free(w);
}

/* An action the mask does not allow (or out of range) is refused by name before any
 * environment moves; a step before the reset too. */
static void test_refused_actions(void **state)
{
    ms_vec_env *v = make_vec(2, NULL, 6, false);
    bufs b;
    bufs_init(&b, v);
    int32_t actions[2] = {0, 0};
    ms_error err;
    assert_int_equal(ms_vec_env_step(v, actions, &b.out, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "before reset"));
    assert_int_equal(ms_vec_env_reset(v, 1, &b.out, NULL), MS_OK);
    ms_rng rng;
    ms_rng_seed(&rng, 2);
    random_actions(&b, 2, &rng, actions);
    int32_t bad[2] = {actions[0], -1};
    for (int a = 0; a < b.nact; a++)
        if (!b.out.mask[b.nact + a])
            bad[1] = a;
    float *before = malloc((size_t)2 * (size_t)b.obs_size * sizeof(float));
    memcpy(before, b.out.obs, (size_t)2 * (size_t)b.obs_size * sizeof(float));
    assert_int_equal(ms_vec_env_step(v, bad, &b.out, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "environment 1"));
    bad[1] = b.nact;
    assert_int_equal(ms_vec_env_step(v, bad, &b.out, &err), MS_EINVAL);
    assert_memory_equal(before, b.out.obs, (size_t)2 * (size_t)b.obs_size * sizeof(float));
    assert_int_equal(ms_vec_env_steps(v), 0);
    assert_int_equal(ms_vec_env_step(v, actions, &b.out, NULL), MS_OK);
    free(before);
    bufs_fini(&b);
    ms_vec_env_free(v);
}

/* ms_vec_env_sample: only allowed actions, uniform among them, the same picks from the same
 * seed (other ones from another), refused before a reset. */
static void test_sample(void **state)
{
    enum { N = 4, DRAWS = 20000 };
    ms_vec_env *v = make_vec(N, NULL, 8, false);
    bufs b;
    bufs_init(&b, v);
    int32_t a[N], first[2][N];
    ms_error err;
    assert_int_equal(ms_vec_env_sample(v, a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "before reset"));
    for (int seed = 0; seed < 3; seed++) {
        assert_int_equal(ms_vec_env_reset(v, seed % 2 ? 6 : 5, &b.out, NULL), MS_OK);
        int32_t seq[30][N];
        for (int s = 0; s < 30; s++) {
            assert_int_equal(ms_vec_env_sample(v, seq[s], NULL), MS_OK);
            for (int i = 0; i < N; i++)
                assert_true(b.out.mask[(size_t)i * (size_t)b.nact + (size_t)seq[s][i]]);
            assert_int_equal(ms_vec_env_step(v, seq[s], &b.out, NULL), MS_OK);
        }
        if (seed < 2)
            memcpy(first[seed], seq[29], sizeof seq[29]);
        else /* seed 5 again */
            assert_memory_equal(first[0], seq[29], sizeof seq[29]);
    }
    assert_memory_not_equal(first[0], first[1], sizeof first[0]);
    /* Environment 0's mask stays while only sampling: each allowed action ~ DRAWS / k. */
    int *count = calloc((size_t)b.nact, sizeof *count), k = 0;
    for (int d = 0; d < DRAWS; d++) {
        assert_int_equal(ms_vec_env_sample(v, a, NULL), MS_OK);
        count[a[0]]++;
    }
    for (int x = 0; x < b.nact; x++)
        k += b.out.mask[x];
    assert_true(k >= 2);
    for (int x = 0; x < b.nact; x++)
        if (b.out.mask[x])
            assert_true(abs(count[x] - DRAWS / k) < DRAWS / k / 5);
        else
            assert_int_equal(count[x], 0);
    free(count);
    bufs_fini(&b);
    ms_vec_env_free(v);
}

/* ms_env_fill_schedule into one schedule, reused from episode to episode (larger ones and
 * smaller ones), gives what ms_env_to_schedule gives. */
static void test_fill_schedule_reused(void **state)
{
    enum { N = 3 };
    ms_vec_env *v = make_vec(N, NULL, 12, false);
    bufs b;
    bufs_init(&b, v);
    assert_int_equal(ms_vec_env_reset(v, 11, &b.out, NULL), MS_OK);
    ms_schedule *reused = ms_schedule_new(a100(), 1, "environment");
    assert_non_null(reused);
    int32_t a[N];
    int compared = 0, sizes = 0, last = -1;
    for (int s = 0; s < 400; s++) {
        for (int i = 0; i < N; i++) {
            ms_schedule *fresh;
            const ms_env *e = ms_vec_env_get(v, i);
            assert_int_equal(ms_env_to_schedule(e, "environment", &fresh, NULL), MS_OK);
            assert_int_equal(ms_env_fill_schedule(e, reused, NULL), MS_OK);
            assert_int_equal(reused->ninst, fresh->ninst);
            assert_int_equal(reused->ntasks, fresh->ntasks);
            assert_int_equal(reused->nstats, fresh->nstats);
            if (fresh->ninst)
                assert_memory_equal(reused->inst, fresh->inst,
                                    (size_t)fresh->ninst * sizeof *fresh->inst);
            if (fresh->ntasks)
                assert_memory_equal(reused->task, fresh->task,
                                    (size_t)fresh->ntasks * sizeof *fresh->task);
            assert_memory_equal(reused->stats, fresh->stats,
                                (size_t)fresh->nstats * sizeof *fresh->stats);
            sizes += fresh->ninst != last;
            last = fresh->ninst;
            compared++;
            ms_schedule_free(fresh);
        }
        assert_int_equal(ms_vec_env_sample(v, a, NULL), MS_OK);
        assert_int_equal(ms_vec_env_step(v, a, &b.out, NULL), MS_OK);
    }
    assert_true(compared == 400 * N && sizes > 50);
    ms_schedule_free(reused);
    bufs_fini(&b);
    ms_vec_env_free(v);
}

static void test_settings_checked(void **state)
{
    ms_env_config c;
    ms_env_config_default(&c);
    ms_vec_config vc = {.n = 0, .tasks = 5};
    ms_gen_preset(a100(), "WIDETIMES", &vc.gen, NULL);
    ms_error err;
    assert_null(ms_vec_env_new(a100(), &c, &vc, &err));
    assert_non_null(strstr(err.msg, "0 environments"));
    vc.n = 2;
    vc.tasks = 0;
    assert_null(ms_vec_env_new(a100(), &c, &vc, &err));
    assert_non_null(strstr(err.msg, "tasks per episode"));
    vc.tasks = 5;
    c.n_batch = 0;
    assert_null(ms_vec_env_new(a100(), &c, &vc, &err));
    assert_non_null(strstr(err.msg, "n_batch"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_environments_play_as_lone_ones),
        cmocka_unit_test(test_seeded_and_deterministic),
        cmocka_unit_test(test_streams_independent_of_the_count),
        cmocka_unit_test(test_fixed_workload),
        cmocka_unit_test(test_refused_actions),
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_fill_schedule_reused),
        cmocka_unit_test(test_settings_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
