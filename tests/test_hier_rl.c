/* test_hier_rl.c: the co-scheduling agent of paper 004: its action space, plans that pass
 * ms_hier_plan_check from any network (untrained ones included) on random mixes and on
 * windows longer than the agent's, the DQN reaching the exhaustive optimum of a small window
 * (deterministically for a seed), and its model files (round trip, rejections). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/hier.h"
#include "support.h"

typedef struct fixture {
    ms_hier_catalog cat;
    ms_hier_corun *cr;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    ms_hier_params par = ms_hier_params_default();
    if (!f || ms_hier_catalog_builtin(&f->cat, NULL) || !(f->cr = ms_hier_corun_model(&par)))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ms_hier_corun_free(f->cr);
    ms_hier_catalog_free(&f->cat);
    free(f);
    return 0;
}

static bool best_setup; /* the mode small_trainer builds */

static ms_hier_trainer *small_trainer(fixture *f, int W, int cmax, const ms_hier_window *fixed,
                                      long steps, uint64_t seed)
{
    ms_hier_rl_config c;
    ms_hier_rl_config_default(&c);
    c.best_setup = best_setup;
    c.window = W;
    c.cmax = cmax;
    c.ri_weight = 0; /* r_f alone: the return is the throughput gain */
    c.dqn.hidden[0] = 64;
    c.dqn.hidden[1] = 64;
    c.dqn.hidden[2] = 32;
    c.dqn.lr = 1e-3f;
    c.dqn.batch = 32;
    c.dqn.replay = 5000;
    c.dqn.learn_start = 200;
    c.dqn.target_every = 100;
    ms_error err;
    ms_hier_trainer *t = ms_hier_trainer_new(&c, &f->cat, f->cr, fixed, steps, seed, &err);
    if (!t)
        fail_msg("%s", err.msg);
    return t;
}

static void check_plan(const ms_hier_plan *p, const ms_hier_window *w, const ms_hier_corun *cr,
                       int cmax)
{
    ms_error err;
    if (ms_hier_plan_check(p, w, cr, cmax, &err))
        fail_msg("plan check: %s", err.msg);
}

/* Untrained networks of every C_max, in both action modes, plan random mixes of every
 * category validly; the trainer's random-policy episodes run too. */
static void test_plans_valid(void **state)
{
    fixture *f = *state;
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    for (int mode = 0; mode < 2; mode++)
    for (int cmax = 1; cmax <= MS_HIER_MAX_C; cmax++) {
        best_setup = mode;
        ms_hier_trainer *t = small_trainer(f, 12, cmax, NULL, 1000, (uint64_t)cmax);
        ms_dqn_stats st;
        assert_int_equal(ms_hier_trainer_run(t, 300, &st, NULL), 0);
        assert_true(st.episodes > 0);
        for (int k = 0; k < 40; k++) {
            ms_hier_window w;
            size_t n = 2 + ms_rng_below(&rng, 11);
            assert_int_equal(ms_hier_window_mix(&f->cat, k % MS_HIER_NMIX, n, -1, &rng, &w, NULL),
                             0);
            for (int c = 1; c <= cmax; c++) {
                ms_hier_plan p;
                assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, c, &p, NULL), 0);
                check_plan(&p, &w, f->cr, c);
                ms_hier_plan_free(&p);
            }
            ms_hier_window_free(&w);
        }
        /* Groups larger than the agent's action space are refused. */
        ms_hier_window w;
        assert_int_equal(ms_hier_window_mix(&f->cat, 0, 6, -1, &rng, &w, NULL), 0);
        ms_hier_plan p;
        ms_error err;
        assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, cmax + 1, &p, &err), MS_EINVAL);
        ms_hier_window_free(&w);
        ms_hier_trainer_free(t);
    }
    best_setup = false;
}

/* A queue longer than the agent's window is planned W jobs at a time. */
static void test_long_queue(void **state)
{
    fixture *f = *state;
    ms_rng rng;
    ms_rng_seed(&rng, 8);
    ms_hier_trainer *t = small_trainer(f, 4, 3, NULL, 100, 3);
    ms_hier_window w;
    assert_int_equal(ms_hier_window_mix(&f->cat, MS_HIER_MIX_BALANCED, 11, -1, &rng, &w, NULL), 0);
    ms_hier_plan p;
    assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 3, &p, NULL), 0);
    check_plan(&p, &w, f->cr, 3);
    /* No group mixes jobs of two chunks (0-3, 4-7, 8-10). */
    for (size_t g = 0; g < p.n; g++)
        for (int i = 1; i < p.groups[g].c; i++)
            assert_int_equal(p.groups[g].job[i] / 4, p.groups[g].job[0] / 4);
    ms_hier_plan_free(&p);
    ms_hier_window_free(&w);
    ms_hier_trainer_free(t);
}

static void read_all(const char *path, char **buf, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    *len = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    *buf = malloc(*len);
    assert_int_equal(fread(*buf, 1, *len, fp), *len);
    fclose(fp);
}

/* A window of five (two CI, two MI, one US program) whose optimum co-runs jobs: the agent,
 * trained on it alone, finds a plan of the optimum's total; two runs with one seed write
 * the same model bytes; the model file plans the same from disk. */
static void test_learns_optimum(void **state)
{
    fixture *f = *state;
    const char *names[] = {"lavaMD", "stream", "kmeans", "bt_solver_B", "sp_solver_A"};
    ms_hier_window w;
    assert_int_equal(ms_hier_window_from_names(&f->cat, names, 5, &w, NULL), 0);
    ms_hier_plan opt, ts;
    assert_int_equal(ms_hier_solve(&w, f->cr, 3, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &opt, NULL), 0);
    assert_int_equal(ms_hier_solve(&w, f->cr, 3, MS_HIER_TIMESHARE, MS_HIER_NOMIG, &ts, NULL), 0);
    assert_true(opt.total < ts.total * 0.95); /* co-running matters here */

    char *paths[2];
    for (int run = 0; run < 2; run++) {
        ms_hier_trainer *t = small_trainer(f, 5, 3, &w, 10000, 42);
        ms_dqn_stats st;
        assert_int_equal(ms_hier_trainer_run(t, 10000, &st, NULL), 0);
        ms_hier_plan p;
        assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 3, &p, NULL), 0);
        check_plan(&p, &w, f->cr, 3);
        if (p.total > opt.total * (1 + 1e-9))
            fail_msg("agent total %.6f, optimum %.6f", p.total, opt.total);
        ms_hier_plan_free(&p);
        paths[run] = test_write_temp("");
        assert_int_equal(ms_hier_trainer_save(t, paths[run], NULL), 0);
        ms_hier_trainer_free(t);
    }
    char *a, *b;
    size_t la, lb;
    read_all(paths[0], &a, &la);
    read_all(paths[1], &b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(a);
    free(b);

    ms_hier_plan p;
    assert_int_equal(ms_hier_rl_plan(&w, f->cr, 3, paths[0], &p, NULL), 0);
    assert_true(p.total <= opt.total * (1 + 1e-9));
    ms_hier_plan_free(&p);
    ms_error err;
    assert_int_equal(ms_hier_rl_plan(&w, f->cr, 4, paths[0], &p, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "up to 3"));
    for (int run = 0; run < 2; run++) {
        unlink(paths[run]);
        free(paths[run]);
    }
    ms_hier_plan_free(&opt);
    ms_hier_plan_free(&ts);
    ms_hier_window_free(&w);
}

/* With --best-setup the agent picks job sets only: it finds the optimum's cover. */
static void test_best_setup_optimum(void **state)
{
    fixture *f = *state;
    const char *names[] = {"lavaMD", "stream", "kmeans", "bt_solver_B", "sp_solver_A"};
    ms_hier_window w;
    assert_int_equal(ms_hier_window_from_names(&f->cat, names, 5, &w, NULL), 0);
    ms_hier_plan opt, p;
    assert_int_equal(ms_hier_solve(&w, f->cr, 3, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &opt, NULL), 0);
    best_setup = true;
    ms_hier_trainer *t = small_trainer(f, 5, 3, &w, 10000, 42);
    best_setup = false;
    ms_dqn_stats st;
    assert_int_equal(ms_hier_trainer_run(t, 10000, &st, NULL), 0);
    assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 3, &p, NULL), 0);
    check_plan(&p, &w, f->cr, 3);
    if (p.total > opt.total * (1 + 1e-9))
        fail_msg("agent total %.6f, optimum %.6f", p.total, opt.total);
    ms_hier_plan_free(&p);
    ms_hier_plan_free(&opt);
    ms_hier_trainer_free(t);
    ms_hier_window_free(&w);
}

/* A DQN file of another environment, or whose actions are not this build's setups, or a
 * PPO policy, is refused with the path and the reason. */
static void test_model_rejections(void **state)
{
    fixture *f = *state;
    ms_hier_trainer *t = small_trainer(f, 4, 2, NULL, 100, 1);
    char *path = test_write_temp("");
    assert_int_equal(ms_hier_trainer_save(t, path, NULL), 0);
    ms_hier_trainer_free(t);
    ms_hier_agent *a;
    assert_int_equal(ms_hier_agent_load(path, &a, NULL), 0);
    assert_int_equal(ms_hier_agent_window(a), 4);
    assert_int_equal(ms_hier_agent_cmax(a), 2);
    ms_hier_agent_free(a);

    ms_dqn_model m;
    assert_int_equal(ms_dqn_model_load(path, &m, NULL), 0);
    ms_error err;
    /* Another environment. */
    snprintf(m.env_kind, sizeof m.env_kind, "toy");
    assert_int_equal(ms_dqn_model_save(path, &m, NULL), 0);
    assert_int_equal(ms_hier_agent_load(path, &a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "'toy'"));
    assert_non_null(strstr(err.msg, path));
    /* An action that is another setup. */
    snprintf(m.env_kind, sizeof m.env_kind, "hier");
    char *s = strstr(m.env_json, "mps:");
    assert_non_null(s);
    s[0] = 'x';
    assert_int_equal(ms_dqn_model_save(path, &m, NULL), 0);
    assert_int_equal(ms_hier_agent_load(path, &a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "this build's is"));
    s[0] = 'm';
    /* A network whose size does not match the environment. */
    m.mlp.in++;
    ms_mlp_destroy(&m.mlp);
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    assert_int_equal(ms_mlp_init(&m.mlp, 4 * 17 + 1, 3, m.cfg.hidden, 4 + 8, &rng, NULL), 0);
    m.mlp.activation = MS_ACT_RELU;
    assert_int_equal(ms_dqn_model_save(path, &m, NULL), 0);
    assert_int_equal(ms_hier_agent_load(path, &a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "inputs"));
    ms_dqn_model_destroy(&m);
    /* Not a model at all. */
    FILE *fp = fopen(path, "wb");
    fputs("lavaMD,stream\n", fp);
    fclose(fp);
    assert_int_equal(ms_hier_agent_load(path, &a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "bad magic"));
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans_valid),
        cmocka_unit_test(test_long_queue),
        cmocka_unit_test(test_learns_optimum),
        cmocka_unit_test(test_best_setup_optimum),
        cmocka_unit_test(test_model_rejections),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
