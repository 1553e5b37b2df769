/* test_dqn.c: the dueling double DQN: gradients of the dueling Q through the ReLU network
 * against finite differences, the optimum of a masked contextual bandit and of a two-step
 * MDP with a trap, determinism for a seed, and model files (round trip, corrupt files). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/learn.h"
#include "support.h"
#include "toy_env.h"

/* loss = sum c .* Q with Q the dueling combination. */
static double q_loss(const ms_mlp *m, ms_mlp_work *w, const float *x, int rows, const float *c,
                     float *q)
{
    ms_dqn_q(m, w, x, rows, q);
    double l = 0;
    for (int i = 0; i < rows * m->nact; i++)
        l += (double)c[i] * q[i];
    return l;
}

typedef struct q_loss_ctx {
    ms_mlp *m;
    ms_mlp_work *w;
    const float *x;
    int rows;
    const float *c;
    float *q;
} q_loss_ctx;

static double q_loss_of(void *arg)
{
    q_loss_ctx *a = arg;
    return q_loss(a->m, a->w, a->x, a->rows, a->c, a->q);
}

static void test_dueling_gradient(void **state)
{
    ms_rng rng;
    ms_rng_seed(&rng, 4);
    ms_mlp m;
    ms_mlp_work w;
    int hidden[3] = {9, 7, 5}, rows = 3, in = 4, A = 3;
    assert_int_equal(ms_mlp_init(&m, in, 3, hidden, A, &rng, NULL), 0);
    m.activation = MS_ACT_RELU;
    for (size_t i = 0; i < m.nparams; i++)
        m.params[i] = (float)ms_rng_normal(&rng, 0, 0.5);
    assert_int_equal(ms_mlp_work_init(&w, &m, rows, NULL), 0);
    float x[12], c[9], q[9], dadv[9], dval[3];
    for (int i = 0; i < 12; i++)
        x[i] = (float)ms_rng_normal(&rng, 0, 1);
    for (int i = 0; i < 9; i++)
        c[i] = (float)ms_rng_normal(&rng, 0, 1);
    /* dL/dV = sum_a c_a; dL/dA_j = c_j - mean(c). */
    for (int r = 0; r < rows; r++) {
        float sum = 0;
        for (int a = 0; a < A; a++)
            sum += c[r * A + a];
        dval[r] = sum;
        for (int a = 0; a < A; a++)
            dadv[r * A + a] = c[r * A + a] - sum / A;
    }
    float *grad = calloc(m.nparams, sizeof(float));
    q_loss(&m, &w, x, rows, c, q);
    ms_mlp_backward(&m, &w, x, rows, dadv, dval, grad);
    q_loss_ctx ctx = {&m, &w, x, rows, c, q};
    test_check_gradient(m.params, grad, m.nparams, 1e-3f, 5e-3, q_loss_of, &ctx);
    /* Q = V + A - mean(A): the mean over actions of Q is V. */
    ms_dqn_q(&m, &w, x, rows, q);
    for (int r = 0; r < rows; r++)
        assert_true(fabsf((q[r * A] + q[r * A + 1] + q[r * A + 2]) / 3 - w.value[r]) < 1e-5f);
    free(grad);
    ms_mlp_work_fini(&w);
    ms_mlp_fini(&m);
}

/* A contextual bandit: 4 contexts, 5 actions; reward of action a in context s is
 * pay[s][a]; action 4 pays most everywhere but is always masked, and in context 3 action 0
 * is masked too. One step per episode. */
static const double pay[4][5] = {{1.0, 0.2, 0.1, 0.0, 5},
                                 {0.0, 0.1, 0.9, 0.3, 5},
                                 {0.4, 0.8, 0.3, 0.0, 5},
                                 {2.0, 0.1, 0.2, 0.7, 5}};
static const int bandit_best[4] = {0, 2, 1, 3};

typedef struct bandit {
    int s;
    int picks[4][5];
} bandit;

static int bandit_reset(void *env, ms_rng *rng, ms_error *err)
{
    ((bandit *)env)->s = (int)ms_rng_below(rng, 4);
    return 0;
}

static void bandit_observe(void *env, float *obs)
{
    for (int i = 0; i < 4; i++)
        obs[i] = (float)(((bandit *)env)->s == i);
}

static int bandit_mask(void *env, uint8_t *mask)
{
    int s = ((bandit *)env)->s;
    for (int a = 0; a < 5; a++)
        mask[a] = a < 4 && !(s == 3 && a == 0);
    return s == 3 ? 3 : 4;
}

static double bandit_step(void *env, int a, bool *done)
{
    bandit *b = env;
    assert_true(a >= 0 && a < 4 && !(b->s == 3 && a == 0)); /* masks are respected */
    b->picks[b->s][a]++;
    *done = true;
    return pay[b->s][a];
}

static const ms_rl_env_ops bandit_ops = {bandit_reset, bandit_observe, bandit_mask,
                                         bandit_step,  NULL,           NULL};

static void small_config(ms_dqn_config *c)
{
    ms_dqn_config_default(c);
    c->hidden[0] = 32;
    c->hidden[1] = 32;
    c->hidden[2] = 16;
    c->lr = 2e-3f;
    c->batch = 32;
    c->replay = 2000;
    c->learn_start = 100;
    c->target_every = 50;
    c->gamma = 1.0f;
}

static ms_dqn *train_bandit(bandit *b, long steps, uint64_t seed)
{
    ms_dqn_config c;
    small_config(&c);
    memset(b, 0, sizeof *b);
    ms_dqn *d = ms_dqn_new(&c, &bandit_ops, b, 4, 5, steps, seed, NULL);
    assert_non_null(d);
    ms_dqn_stats st;
    assert_int_equal(ms_dqn_train(d, steps, &st, NULL), 0);
    assert_int_equal(st.steps, steps);
    assert_true(st.updates > 0 && isfinite(st.loss) && st.episodes == steps);
    assert_true(fabsf(st.epsilon - 0.01f) < 1e-6f);
    return d;
}

static void test_bandit_optimum(void **state)
{
    bandit b;
    ms_dqn *d = train_bandit(&b, 3000, 21);
    ms_mlp *m = ms_dqn_mlp(d);
    ms_mlp_work w;
    assert_int_equal(ms_mlp_work_init(&w, m, 1, NULL), 0);
    for (int s = 0; s < 4; s++) {
        b.s = s;
        float obs[4], q[5];
        uint8_t mask[5];
        bandit_observe(&b, obs);
        bandit_mask(&b, mask);
        assert_int_equal(ms_dqn_greedy(m, &w, obs, mask, q), bandit_best[s]);
        /* The learned Q of the best action is close to its reward. */
        assert_true(fabs(q[bandit_best[s]] - pay[s][bandit_best[s]]) < 0.15);
    }
    ms_mlp_work_fini(&w);

    /* Same seed, same network bit for bit; another seed, another network. */
    bandit b2;
    ms_dqn *d2 = train_bandit(&b2, 3000, 21), *d3 = train_bandit(&b2, 3000, 22);
    assert_memory_equal(ms_dqn_mlp(d2)->params, m->params, m->nparams * sizeof(float));
    assert_true(memcmp(ms_dqn_mlp(d3)->params, m->params, m->nparams * sizeof(float)));
    ms_dqn_free(d);
    ms_dqn_free(d2);
    ms_dqn_free(d3);
}

static void test_mdp_optimum(void **state)
{
    ms_dqn_config c;
    small_config(&c);
    toy t;
    ms_dqn *d = ms_dqn_new(&c, &toy_ops, &t, 3, 3, 3000, 5, NULL);
    assert_non_null(d);
    ms_dqn_stats st;
    assert_int_equal(ms_dqn_train(d, 3000, &st, NULL), 0);
    ms_mlp *m = ms_dqn_mlp(d);
    ms_mlp_work w;
    assert_int_equal(ms_mlp_work_init(&w, m, 1, NULL), 0);
    toy_reset(&t, NULL, NULL);
    bool done = false;
    double ret = 0;
    float q0[3];
    int steps = 0;
    while (!done) {
        float obs[3], q[3];
        uint8_t mask[3];
        toy_observe(&t, obs);
        toy_mask(&t, mask);
        int a = ms_dqn_greedy(m, &w, obs, mask, q);
        if (steps++ == 0)
            memcpy(q0, q, sizeof q);
        ret += toy_step(&t, a, &done);
    }
    assert_true(fabs(ret - 1.0) < 1e-9);
    assert_true(fabsf(q0[0] - 1.0f) < 0.15f && fabsf(q0[1] - 0.5f) < 0.15f);
    ms_mlp_work_fini(&w);
    ms_dqn_free(d);
}

static void test_bad_config(void **state)
{
    ms_dqn_config c;
    ms_dqn_config_default(&c);
    c.replay = 10; /* smaller than the batch */
    toy t;
    ms_error err;
    assert_null(ms_dqn_new(&c, &toy_ops, &t, 3, 3, 100, 1, &err));
    assert_int_equal(err.code, MS_EINVAL);
    assert_non_null(strstr(err.msg, "replay"));
}

static void make_model(ms_dqn_model *m)
{
    memset(m, 0, sizeof *m);
    ms_rng rng;
    ms_rng_seed(&rng, 6);
    ms_dqn_config_default(&m->cfg);
    m->cfg.hidden[0] = 8;
    m->cfg.hidden[1] = 6;
    m->cfg.hidden[2] = 4;
    m->cfg.eps_steps = 999;
    assert_int_equal(ms_mlp_init(&m->mlp, 5, 3, m->cfg.hidden, 7, &rng, NULL), 0);
    m->mlp.activation = MS_ACT_RELU;
    snprintf(m->env_kind, sizeof m->env_kind, "toy");
    m->env_json = strdup("{\"window\": 12, \"names\": [\"a\", \"b\"]}");
    m->steps = 4242;
    m->seed = 9;
}

static void expect_reject(const char *path, const char *what)
{
    ms_dqn_model r;
    ms_error err;
    assert_int_equal(ms_dqn_model_load(path, &r, &err), MS_EINVAL);
    if (!strstr(err.msg, path) || !strstr(err.msg, what))
        fail_msg("expected '%s' in: %s", what, err.msg);
}

/* Rewrites byte off of path with v. */
static void poke(const char *path, long off, const void *v, size_t n)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, off, SEEK_SET);
    assert_int_equal(fwrite(v, 1, n, f), n);
    fclose(f);
}

static void test_model_file(void **state)
{
    ms_dqn_model m, r;
    make_model(&m);
    char *path = test_write_temp("");
    assert_int_equal(ms_dqn_model_save(path, &m, NULL), 0);
    assert_int_equal(ms_dqn_model_load(path, &r, NULL), 0);
    assert_int_equal(r.mlp.nparams, m.mlp.nparams);
    assert_int_equal(r.mlp.activation, MS_ACT_RELU);
    assert_memory_equal(r.mlp.params, m.mlp.params, m.mlp.nparams * sizeof(float));
    assert_string_equal(r.env_kind, "toy");
    assert_string_equal(r.env_json, "{\"names\":[\"a\",\"b\"],\"window\":12}");
    assert_int_equal(r.steps, 4242);
    assert_int_equal(r.seed, 9);
    assert_int_equal(r.cfg.eps_steps, 999);
    assert_int_equal(r.cfg.hidden[1], 6);
    assert_true(r.cfg.lr == m.cfg.lr && r.cfg.gamma == m.cfg.gamma);
    ms_dqn_model_fini(&r);

    /* A PPO policy file is refused by format. */
    ms_rl_model p;
    memset(&p, 0, sizeof p);
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    int hid[1] = {4};
    assert_int_equal(ms_mlp_init(&p.mlp, 3, 1, hid, 2, &rng, NULL), 0);
    ms_env_config_default(&p.env);
    char *ppo = test_write_temp("");
    assert_int_equal(ms_model_save(ppo, &p, NULL), 0);
    expect_reject(ppo, "expected migsched-dqn-model/1");
    ms_mlp_fini(&p.mlp);
    ms_error err;
    /* And the PPO reader refuses the DQN file by format. */
    assert_int_equal(ms_model_load(path, &p, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "not a PPO policy"));
    unlink(ppo);
    free(ppo);

    /* Corruptions: a truncated body, a non-finite parameter, another version, bad magic. */
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fclose(f);
    float nan = NAN;
    poke(path, len - 4, &nan, 4);
    expect_reject(path, "not finite");
    assert_int_equal(truncate(path, len - 4), 0);
    expect_reject(path, "bytes of parameters");
    assert_int_equal(ms_dqn_model_save(path, &m, NULL), 0);
    unsigned char v2[4] = {2, 0, 0, 0};
    poke(path, 8, v2, 4);
    expect_reject(path, "model version 2");
    poke(path, 0, "XX", 2);
    expect_reject(path, "bad magic");
    unlink(path);
    free(path);
    ms_dqn_model_fini(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dueling_gradient), cmocka_unit_test(test_bandit_optimum),
        cmocka_unit_test(test_mdp_optimum),      cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_model_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
