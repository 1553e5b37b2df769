/* test_learn.c: the network's gradients against finite differences, the masked policy,
 * and PPO reaching the known optimum of a tiny two-step environment. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/learn.h"
#include "support.h"
#include "toy_env.h"

/* loss = sum c .* logits + sum d .* value, so dloss/dlogits = c and dloss/dvalue = d. */
static double loss_of(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows, const float *c,
                      const float *d)
{
    ms_mlp_forward(m, w, x, rows);
    double l = 0;
    for (int i = 0; i < rows * m->nact; i++)
        l += (double)c[i] * w->logits[i];
    for (int i = 0; i < rows; i++)
        l += (double)d[i] * w->value[i];
    return l;
}

typedef struct loss_ctx {
    ms_mlp *m;
    ms_mlp_work *w;
    const float *x;
    int rows;
    const float *c, *d;
} loss_ctx;

static double loss_of_ctx(void *arg)
{
    loss_ctx *a = arg;
    return loss_of(a->m, a->w, a->x, a->rows, a->c, a->d);
}

/* Shared trunk, or (separate) policy and value networks of their own. */
static void check_mlp_gradient(bool separate)
{
    ms_rng rng;
    ms_rng_seed(&rng, 3);
    ms_mlp m;
    ms_mlp_work w;
    int hidden[2] = {7, 6}, rows = 3, in = 5, nact = 4;
    assert_int_equal(ms_mlp_init_sep(&m, in, 2, hidden, nact, separate, &rng, NULL), 0);
    size_t trunk = (size_t)(in * 7 + 7 + 7 * 6 + 6);
    assert_int_equal(m.nparams, trunk * (separate ? 2 : 1) + 6 * nact + nact + 6 + 1);
    /* Larger head weights than the default init so every parameter matters. */
    for (size_t i = 0; i < m.nparams; i++)
        m.params[i] = (float)ms_rng_normal(&rng, 0, 0.5);
    assert_int_equal(ms_mlp_work_init(&w, &m, rows, NULL), 0);
    float x[15], c[12], d[3];
    for (int i = 0; i < 15; i++)
        x[i] = (float)ms_rng_normal(&rng, 0, 1);
    for (int i = 0; i < 12; i++)
        c[i] = (float)ms_rng_normal(&rng, 0, 1);
    for (int i = 0; i < 3; i++)
        d[i] = (float)ms_rng_normal(&rng, 0, 1);
    float *grad = calloc(m.nparams, sizeof(float));
    loss_of(&m, &w, x, rows, c, d);
    ms_mlp_backward(&m, &w, x, rows, c, d, grad);
    loss_ctx ctx = {&m, &w, x, rows, c, d};
    test_check_gradient(m.params, grad, m.nparams, 1e-2f, 2e-3, loss_of_ctx, &ctx);
    if (separate) { /* the value's loss term reaches no policy-trunk parameter */
        memset(grad, 0, m.nparams * sizeof(float));
        float zero[12] = {0};
        loss_of(&m, &w, x, rows, c, d);
        ms_mlp_backward(&m, &w, x, rows, zero, d, grad);
        for (size_t i = 0; i < m.b_off[1] + 6; i++)
            assert_true(grad[i] == 0.0f);
    }
    free(grad);
    ms_mlp_work_fini(&w);
    ms_mlp_fini(&m);
}

static void test_gradient_check(void **state)
{
    check_mlp_gradient(false);
    check_mlp_gradient(true);
}

static void test_masked_policy(void **state)
{
    float logits[4] = {5, 1, 1, -3}, logp[4];
    uint8_t mask[4] = {0, 1, 1, 1};
    float ent = ms_policy_logp(logits, mask, 4, logp);
    assert_true(logp[0] == -INFINITY);
    double sum = exp(logp[1]) + exp(logp[2]) + exp(logp[3]);
    assert_true(fabs(sum - 1) < 1e-6);
    assert_true(fabs(logp[1] - logp[2]) < 1e-7);
    assert_true(ent > 0 && ent < logf(3.0f) + 1e-6f);
    assert_int_equal(ms_policy_argmax(logits, mask, 4), 1);
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    for (int i = 0; i < 1000; i++)
        assert_int_not_equal(ms_policy_sample(logp, 4, &rng), 0);
}

static double greedy_return(ms_mlp *m)
{
    ms_mlp_work w;
    assert_int_equal(ms_mlp_work_init(&w, m, 1, NULL), 0);
    toy t;
    toy_reset(&t, NULL, NULL);
    bool done = false;
    double ret = 0;
    while (!done) {
        float obs[3];
        uint8_t mask[3];
        toy_observe(&t, obs);
        toy_mask(&t, mask);
        ms_mlp_forward(m, &w, obs, 1);
        ret += toy_step(&t, ms_policy_argmax(w.logits, mask, 3), &done);
    }
    ms_mlp_work_fini(&w);
    return ret;
}

/* PPO's settings for four toy environments: rollouts of 128 steps, lr 3e-3 (decayed to
 * 3e-4 unless decay is constant). */
static void toy_config(ms_ppo_config *c, int threads, ms_lr_decay decay)
{
    ms_ppo_config_default(c);
    c->n_envs = 4;
    c->n_steps = 32;
    c->minibatch = 32;
    c->hidden[0] = c->hidden[1] = 16;
    c->lr = 3e-3f;
    c->lr_decay = decay;
    c->lr_min = 3e-4f;
    c->threads = threads;
}

/* PPO of settings c on four toy environments for iters rollouts. */
static ms_ppo *toy_new_with(const ms_ppo_config *c, const ms_rl_env_ops *ops, toy *envs,
                            void **ptrs, int iters)
{
    for (int i = 0; i < 4; i++)
        ptrs[i] = &envs[i];
    ms_ppo *p = ms_ppo_new(c, ops, ptrs, 3, 3, (long)iters * 128, 11, NULL);
    assert_non_null(p);
    return p;
}

static ms_ppo *toy_new(int threads, toy *envs, void **ptrs, int iters, ms_lr_decay decay)
{
    ms_ppo_config c;
    toy_config(&c, threads, decay);
    return toy_new_with(&c, &toy_ops, envs, ptrs, iters);
}

static ms_ppo *toy_train(int threads, toy *envs, void **ptrs, int iters)
{
    ms_ppo *p = toy_new(threads, envs, ptrs, iters, MS_LR_CONSTANT);
    for (int i = 0; i < iters; i++) {
        ms_ppo_stats st;
        assert_int_equal(ms_ppo_iterate(p, &st, NULL), 0);
        assert_true(isfinite(st.policy_loss) && isfinite(st.value_loss));
    }
    return p;
}

static void test_ppo_toy_optimum(void **state)
{
    toy envs[4];
    void *ptrs[4];
    ms_ppo *p = toy_train(2, envs, ptrs, 60);
    assert_true(fabs(greedy_return(ms_ppo_mlp(p)) - 1.0) < 1e-9);
    assert_int_equal(ms_ppo_steps(p), 60 * 128);
    /* Same seed and threads: the same parameters. */
    toy envs2[4];
    void *ptrs2[4];
    ms_ppo *q = toy_train(2, envs2, ptrs2, 5);
    ms_ppo *r = toy_train(2, envs2, ptrs2, 5);
    assert_memory_equal(ms_ppo_mlp(q)->params, ms_ppo_mlp(r)->params,
                        ms_ppo_mlp(q)->nparams * sizeof(float));
    ms_ppo_free(p);
    ms_ppo_free(q);
    ms_ppo_free(r);
}

/* An "improved" policy that always takes action 1: the trap at s0, worth 0.5 in all. */
static int toy_expert(void *env, const ms_mlp *mlp, int width, int *action, ms_error *err)
{
    *action = 1;
    return 0;
}

/* The imitation term: with every state labelled by the expert and a coefficient that
 * outweighs the advantages, the greedy policy follows the expert into the trap (return 0.5,
 * where PPO alone finds 1: test_ppo_toy_optimum), and the cross-entropy falls. Without an
 * improve operation, imitation is refused. */
static void test_ppo_imitation(void **state)
{
    ms_rl_env_ops ops = toy_ops;
    ops.improve = toy_expert;
    ms_ppo_config c;
    toy_config(&c, 2, MS_LR_CONSTANT);
    c.imitate_share = 1;
    c.imitate_coef = 100;
    toy envs[4];
    void *ptrs[4];
    ms_ppo *p = toy_new_with(&c, &ops, envs, ptrs, 60);
    float first = NAN, last = NAN;
    for (int i = 0; i < 60; i++) {
        ms_ppo_stats st;
        assert_int_equal(ms_ppo_iterate(p, &st, NULL), 0);
        assert_true(isfinite(st.imitate_loss));
        if (i == 0)
            first = st.imitate_loss;
        last = st.imitate_loss;
    }
    assert_true(last < first / 10);
    assert_true(fabs(greedy_return(ms_ppo_mlp(p)) - 0.5) < 1e-9);
    ms_ppo_free(p);
    ms_error err;
    assert_null(ms_ppo_new(&c, &toy_ops, ptrs, 3, 3, 128, 11, &err));
    assert_non_null(strstr(err.msg, "imitation"));
}

/* Each update's rate follows the schedule over the run's steps (after rollout i of n, a
 * fraction i/n of them: lr_min after the last), and a decayed run ends elsewhere than a
 * constant one; constant keeps lr throughout. */
static void test_lr_decay(void **state)
{
    const int n = 8;
    ms_ppo *p[3];
    for (int d = MS_LR_CONSTANT; d <= MS_LR_COSINE; d++) {
        toy envs[4];
        void *ptrs[4];
        p[d] = toy_new(1, envs, ptrs, n, (ms_lr_decay)d);
        for (int i = 1; i <= n; i++) {
            ms_ppo_stats st;
            assert_int_equal(ms_ppo_iterate(p[d], &st, NULL), 0);
            double x = (double)i / n;
            double f = d == MS_LR_CONSTANT ? 1
                       : d == MS_LR_LINEAR ? 1 - x
                                           : 0.5 * (1 + cos(M_PI * x));
            assert_near(st.lr, d == MS_LR_CONSTANT ? 3e-3 : 3e-4 + 2.7e-3 * f, 1e-8);
        }
    }
    size_t bytes = ms_ppo_mlp(p[0])->nparams * sizeof(float);
    assert_memory_not_equal(ms_ppo_mlp(p[0])->params, ms_ppo_mlp(p[1])->params, bytes);
    assert_memory_not_equal(ms_ppo_mlp(p[1])->params, ms_ppo_mlp(p[2])->params, bytes);
    for (int d = 0; d < 3; d++)
        ms_ppo_free(p[d]);
    ms_lr_decay back;
    assert_int_equal(ms_lr_decay_parse("cosine", &back), 0);
    assert_int_equal(back, MS_LR_COSINE);
    assert_string_equal(ms_lr_decay_name(MS_LR_LINEAR), "linear");
    assert_int_equal(ms_lr_decay_parse("step", &back), MS_EINVAL);
}

/* The MIG environment on paper 001 Table 2 (A30): the optimum is 2-2 with task1 on one
 * instance and tasks 2 and 3 one after the other on the other, makespan 0.24 + 10 = 10.24 s
 * (task1 alone needs 10 s on 2 or 4 slices after a creation; see test_env). */
typedef struct fixed_env {
    ms_env *env;
    ms_workload *w;
} fixed_env;

static int fixed_reset(void *arg, ms_rng *rng, ms_error *err)
{
    fixed_env *f = arg;
    return ms_env_reset(f->env, f->w, err);
}
static void fixed_observe(void *arg, float *obs) { ms_env_observe(((fixed_env *)arg)->env, obs); }
static int fixed_mask(void *arg, uint8_t *m) { return ms_env_mask(((fixed_env *)arg)->env, m); }
static double fixed_step(void *arg, int a, bool *done)
{
    return ms_env_step(((fixed_env *)arg)->env, a, done);
}

static const ms_rl_env_ops fixed_ops = {fixed_reset, fixed_observe, fixed_mask,
                                        fixed_step,  NULL,          NULL};

static void test_ppo_table2_optimum(void **state)
{
    ms_workload *w = ms_workload_new();
    double t1[MS_MAX_SLICES + 1], t2[MS_MAX_SLICES + 1];
    for (int s = 0; s <= MS_MAX_SLICES; s++)
        t1[s] = t2[s] = INFINITY;
    t1[1] = 25, t1[2] = 10, t1[4] = 10;
    t2[1] = 12, t2[2] = 5, t2[4] = 2;
    ms_workload_add(w, "task1", t1, NULL, NULL, NULL);
    ms_workload_add(w, "task2", t2, NULL, NULL, NULL);
    ms_workload_add(w, "task3", t2, NULL, NULL, NULL);
    ms_env_config ec;
    ms_env_config_default(&ec);
    ec.n_batch = 3;
    fixed_env envs[8];
    void *ptrs[8];
    for (int i = 0; i < 8; i++) {
        envs[i].env = ms_env_new(ms_gpu_builtin("A30-24GB"), &ec, NULL);
        envs[i].w = w;
        ptrs[i] = &envs[i];
    }
    ms_ppo_config c;
    ms_ppo_config_default(&c);
    c.n_envs = 8;
    c.n_steps = 32;
    c.minibatch = 64;
    c.hidden[0] = c.hidden[1] = 32;
    c.lr = 1e-3f;
    int obs_n = ms_env_obs_size(envs[0].env), nact = ms_env_num_actions(envs[0].env);
    ms_ppo *p = ms_ppo_new(&c, &fixed_ops, ptrs, obs_n, nact, 80 * 256, 7, NULL);
    assert_non_null(p);
    for (int i = 0; i < 80; i++) {
        ms_ppo_stats st;
        assert_int_equal(ms_ppo_iterate(p, &st, NULL), 0);
    }
    /* The greedy policy reaches the optimum. */
    ms_rl_model view;
    memset(&view, 0, sizeof view);
    view.mlp = *ms_ppo_mlp(p);
    view.env = ec;
    ms_schedule *s;
    assert_int_equal(ms_rl_schedule(&view, ms_gpu_builtin("A30-24GB"), w, false, 1, 0, &s, NULL),
                     0);
    assert_int_equal(ms_schedule_validate(s, w, NULL), 0);
    assert_true(fabs(ms_schedule_makespan(s) - 10.24) < 1e-9);
    ms_schedule_free(s);
    ms_ppo_free(p);
    for (int i = 0; i < 8; i++)
        ms_env_free(envs[i].env);
    ms_workload_free(w);
}

/* The JSON header of a model file, as text. */
static const char *header_text(const char *path, char *buf)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char lead[16];
    assert_int_equal(fread(lead, 1, 16, f), 16);
    size_t n = lead[12] | lead[13] << 8 | (size_t)lead[14] << 16 | (size_t)lead[15] << 24;
    assert_true(n < 4096);
    assert_int_equal(fread(buf, 1, n, f), n);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void test_model_file(void **state)
{
    char text[4096];
    ms_rl_model m;
    memset(&m, 0, sizeof m);
    ms_rng rng;
    ms_rng_seed(&rng, 5);
    int hidden[2] = {8, 4};
    assert_int_equal(ms_mlp_init(&m.mlp, 6, 2, hidden, 5, &rng, NULL), 0);
    ms_env_config_default(&m.env);
    m.env.encoding = MS_ENC_ONEHOT;
    snprintf(m.gpu, sizeof m.gpu, "A30-24GB");
    snprintf(m.preset, sizeof m.preset, "WIDETIMES");
    m.steps = 12345;
    m.seed = 77;
    m.has_adam = true;
    assert_int_equal(ms_adam_init(&m.adam, m.mlp.nparams, 1e-3f, NULL), 0);
    m.adam.t = 9;
    m.adam.m[3] = 0.5f;
    char *path = test_write_temp("");
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    ms_rl_model r;
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_int_equal(r.mlp.nparams, m.mlp.nparams);
    assert_memory_equal(r.mlp.params, m.mlp.params, m.mlp.nparams * sizeof(float));
    assert_true(r.has_adam && r.adam.t == 9 && r.adam.m[3] == 0.5f);
    assert_int_equal(r.env.encoding, MS_ENC_ONEHOT);
    assert_string_equal(r.gpu, "A30-24GB");
    assert_int_equal(r.steps, 12345);
    assert_int_equal(r.seed, 77);
    assert_false(r.mlp.separate);
    ms_model_fini(&r);

    /* Training settings: a decayed rate and its floor are kept; a constant rate leaves the
     * header as it was before the decay existed. */
    m.has_train = true;
    ms_ppo_config_default(&m.ppo);
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    assert_null(strstr(header_text(path, text), "lr_decay"));
    m.ppo.lr_decay = MS_LR_COSINE;
    m.ppo.lr_min = 2e-5f;
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    assert_non_null(strstr(header_text(path, text), "\"lr_decay\":\"cosine\""));
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_true(r.has_train && r.ppo.lr_decay == MS_LR_COSINE && r.ppo.lr_min == 2e-5f);
    ms_model_fini(&r);
    /* The demonstrator: written only when not FAR; an unknown one is refused by name. */
    assert_null(strstr(header_text(path, text), "demonstrator"));
    m.demo_source = MS_DEMO_SEARCH;
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    assert_non_null(strstr(header_text(path, text), "\"demonstrator\":\"search\""));
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_int_equal(r.demo_source, MS_DEMO_SEARCH);
    ms_model_fini(&r);
    m.demo_source = MS_DEMO_FAR;
    ms_demo_source src;
    assert_int_equal(ms_demo_source_parse("search", &src), 0);
    assert_int_equal(src, MS_DEMO_SEARCH);
    assert_string_equal(ms_demo_source_name(MS_DEMO_FAR), "far");
    assert_int_equal(ms_demo_source_parse("miso", &src), MS_EINVAL);
    m.has_train = false;

    /* Asynchronous reconfigurations, a class's longest task first and the soonest placement:
     * written only when on (older files read as off). */
    const struct {
        const char *key;
        size_t at;
    } flags[] = {{"async_reconfig", offsetof(ms_env_config, async_reconfig)},
                 {"longest_first", offsetof(ms_env_config, longest_first)},
                 {"soonest_placement", offsetof(ms_env_config, soonest_placement)}};
    for (int i = 0; i < 3; i++) {
        bool *on = (bool *)((char *)&m.env + flags[i].at);
        char want[64];
        snprintf(want, sizeof want, "\"%s\":true", flags[i].key);
        assert_null(strstr(header_text(path, text), flags[i].key));
        *on = true;
        assert_int_equal(ms_model_save(path, &m, NULL), 0);
        assert_non_null(strstr(header_text(path, text), want));
        assert_int_equal(ms_model_load(path, &r, NULL), 0);
        assert_true(*(bool *)((char *)&r.env + flags[i].at));
        ms_model_fini(&r);
        *on = false;
    }
    m.env.encoding = MS_ENC_EXACT;
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    assert_non_null(strstr(header_text(path, text), "\"encoding\":\"exact\""));
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_int_equal(r.env.encoding, MS_ENC_EXACT);
    ms_model_fini(&r);
    m.env.encoding = MS_ENC_ONEHOT;

    /* The rollout rule's calibrated gap: written only when set, read back; out of range
     * refused by name. */
    assert_null(strstr(header_text(path, text), "rollout_gap"));
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_true(!r.has_rollout_gap && ms_rl_model_gap(&r) == MS_RL_GAP_DEFAULT);
    ms_model_fini(&r);
    m.has_rollout_gap = true;
    m.rollout_gap = 0.75f;
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    assert_non_null(strstr(header_text(path, text), "\"rollout_gap\":0.75"));
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_true(r.has_rollout_gap && ms_rl_model_gap(&r) == 0.75f);
    ms_model_fini(&r);
    m.rollout_gap = 2000;
    assert_int_equal(ms_model_save(path, &m, NULL), 0);
    ms_error gap_err;
    assert_int_equal(ms_model_load(path, &r, &gap_err), MS_EINVAL);
    assert_non_null(strstr(gap_err.msg, "rollout_gap must be a number in 0..1000"));
    m.has_rollout_gap = false;

    /* Separate policy and value networks: the header says so and the body is read back. */
    ms_rl_model sep = m;
    sep.has_adam = false;
    assert_int_equal(ms_mlp_init_sep(&sep.mlp, 6, 2, hidden, 5, true, &rng, NULL), 0);
    assert_int_equal(ms_model_save(path, &sep, NULL), 0);
    assert_int_equal(ms_model_load(path, &r, NULL), 0);
    assert_true(r.mlp.separate && r.mlp.nparams == sep.mlp.nparams && !r.has_adam);
    assert_int_equal(r.adam.t, 9); /* kept without the moments, for a file saved again */
    assert_memory_equal(r.mlp.params, sep.mlp.params, sep.mlp.nparams * sizeof(float));
    ms_model_fini(&r);
    ms_mlp_fini(&sep.mlp);

    /* A truncated file and a foreign file are rejected with the path in the message. */
    FILE *f = fopen(path, "r+b");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fclose(f);
    assert_int_equal(truncate(path, len - 4), 0);
    ms_error err;
    assert_int_equal(ms_model_load(path, &r, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "parameters"));
    f = fopen(path, "wb");
    fputs("{\"not\": \"a model\"}", f);
    fclose(f);
    assert_int_equal(ms_model_load(path, &r, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "magic"));
    unlink(path);
    free(path);
    ms_model_fini(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gradient_check),     cmocka_unit_test(test_masked_policy),
        cmocka_unit_test(test_ppo_toy_optimum),    cmocka_unit_test(test_ppo_imitation),
        cmocka_unit_test(test_ppo_table2_optimum), cmocka_unit_test(test_lr_decay),
        cmocka_unit_test(test_model_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
