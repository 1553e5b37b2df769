/* test_hier_rl_gain.c: the co-run gain features of the agent's state (--gains): at every
 * decision of random episodes each row's three values equal the savings recomputed
 * directly with ms_hier_group_best (so the per-episode cache and the eligibility rule are
 * checked), the Table VI part of the row is unchanged, the setups offered are those no slower
 * than time sharing, and a model trained with them
 * loads back with them and plans validly. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/hier/hier_rl.h"
#include "support.h"

static double saved_direct(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs,
                           int c)
{
    int sorted[MS_HIER_MAX_C];
    double solo = 0;
    memcpy(sorted, jobs, (size_t)c * sizeof *jobs);
    for (int i = 1; i < c; i++) /* ascending, as the cache's job sets list them */
        for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; j--) {
            int t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    for (int i = 0; i < c; i++)
        solo += w->jobs[sorted[i]].solo;
    ms_hier_group g;
    if (c < 2 ||
        ms_hier_group_best(w, cr, sorted, c, MS_HIER_FAM_TABLE7, MS_HIER_NOMIG, &g))
        return 0;
    return fmax(solo - g.corun, 0);
}

static float unit(double saved, double mean_solo)
{
    return (float)fmin(fmax(saved / mean_solo, -10), 10);
}

static void check_rows(const hier_rl_env *e, const float *obs, const float *plain_obs)
{
    const ms_hier_window *w = e->win;
    int R = hier_rl_row_size(e);
    assert_int_equal(R, HIER_RL_FEATURES + HIER_RL_GAIN_FEATURES);
    double now = saved_direct(w, e->cr, e->group, e->gsize);
    for (int i = 0; i < (int)w->n; i++) {
        const float *x = obs + (size_t)i * R;
        assert_memory_equal(x, plain_obs + (size_t)i * HIER_RL_FEATURES,
                            HIER_RL_FEATURES * sizeof(float));
        const float *g = x + HIER_RL_FEATURES;
        assert_float_equal(g[2], unit(now, e->mean_solo), 1e-6);
        bool eligible = e->pending[i] && e->gsize < e->cmax_now && i > e->group[e->gsize - 1];
        float add = 0;
        if (eligible) {
            int jobs[MS_HIER_MAX_C];
            memcpy(jobs, e->group, (size_t)e->gsize * sizeof(int));
            jobs[e->gsize] = i;
            add = unit(saved_direct(w, e->cr, jobs, e->gsize + 1) - now, e->mean_solo);
        }
        assert_float_equal(g[0], add, 1e-6);
        double best = 0;
        for (int j = 0; (e->pending[i] || e->in_group[i]) && j < (int)w->n; j++)
            if (j != i && (e->pending[j] || e->in_group[j])) {
                int pair[2] = {i, j};
                best = fmax(best, saved_direct(w, e->cr, pair, 2));
            }
        assert_float_equal(g[1], unit(best, e->mean_solo), 1e-6);
    }
    for (int i = (int)w->n; i < e->W; i++)
        for (int k = 0; k < R; k++)
            assert_float_equal(obs[(size_t)i * R + k], 0, 0);
}

/* The setups offered to close the open group are those under which it is no slower than
 * time sharing, or, when there is none, every setup of its size. */
static void check_fitting_closes(const hier_rl_env *e, const uint8_t *m)
{
    int fits = 0, offered = 0, of_size = 0;
    for (int k = 0; k < e->nsetups; k++) {
        if (e->setups[k].c != e->gsize) {
            assert_int_equal(m[e->W + k], 0);
            continue;
        }
        ms_hier_group g;
        bool fit = ms_hier_group_setup(e->win, e->cr, e->group, e->gsize, &e->setups[k], &g) == 0;
        fits += fit;
        offered += m[e->W + k];
        of_size++;
        if (fit)
            assert_int_equal(m[e->W + k], 1);
    }
    assert_int_equal(offered, fits ? fits : of_size);
}

static void test_gain_rows(void **state)
{
    (void)state;
    ms_hier_catalog cat;
    ms_hier_params par = ms_hier_params_default();
    ms_hier_corun *cr = ms_hier_corun_model(&par);
    assert_int_equal(ms_hier_catalog_builtin(&cat, NULL), 0);
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    ms_hier_rl_config c;
    ms_hier_rl_config_default(&c);
    c.window = 8;
    hier_rl_env *e = calloc(1, sizeof *e), *plain = calloc(1, sizeof *plain);
    assert_non_null(e);
    assert_non_null(plain);
    for (int mode = 0; mode < 2; mode++) {
        c.best_setup = mode;
        c.gains = true;
        assert_int_equal(hier_rl_env_init(e, &c, NULL), 0);
        assert_int_equal(hier_rl_obs_size(e), 8 * (HIER_RL_FEATURES + HIER_RL_GAIN_FEATURES));
        float obs[HIER_RL_MAX_W * (HIER_RL_FEATURES + HIER_RL_GAIN_FEATURES)];
        float plain_obs[HIER_RL_MAX_W * HIER_RL_FEATURES];
        uint8_t m[HIER_RL_MAX_W + HIER_RL_MAX_SETUPS];
        for (int ep = 0; ep < 30; ep++) {
            ms_hier_window w;
            size_t n = 2 + ms_rng_below(&rng, 7);
            assert_int_equal(
                ms_hier_window_mix(&cat, ep % MS_HIER_NMIX, n, -1, &rng, &w, NULL), 0);
            int cmax = 2 + ep % 3;
            hier_rl_env_start(e, &w, cr, cmax);
            for (bool done = false; !done;) {
                hier_rl_ops.observe(e, obs);
                /* The same state without the gains. */
                memcpy(plain, e, sizeof *e);
                plain->gains = false;
                hier_rl_ops.observe(plain, plain_obs);
                check_rows(e, obs, plain_obs);
                int n_allowed = hier_rl_ops.mask(e, m);
                assert_true(n_allowed >= 1);
                if (!mode)
                    check_fitting_closes(e, m);
                int k = (int)ms_rng_below(&rng, (uint64_t)n_allowed), a = 0;
                for (;; a++)
                    if (m[a] && k-- == 0)
                        break;
                hier_rl_ops.step(e, a, &done);
            }
            ms_hier_window_free(&w);
        }
        hier_rl_env_free(e);
    }
    free(e);
    free(plain);
    ms_hier_corun_free(cr);
    ms_hier_catalog_free(&cat);
}

/* A model trained with the gains is saved as such, loads back with them (its network has
 * the wider input) and plans validly from disk. */
static void test_gain_model(void **state)
{
    (void)state;
    ms_hier_catalog cat;
    ms_hier_params par = ms_hier_params_default();
    ms_hier_corun *cr = ms_hier_corun_model(&par);
    assert_int_equal(ms_hier_catalog_builtin(&cat, NULL), 0);
    ms_hier_rl_config c;
    ms_hier_rl_config_default(&c);
    c.window = 6;
    c.cmax = 3;
    c.gains = true;
    c.dqn.hidden[0] = c.dqn.hidden[1] = c.dqn.hidden[2] = 16;
    c.dqn.learn_start = 50;
    c.dqn.batch = 8;
    ms_error err;
    ms_hier_trainer *t = ms_hier_trainer_new(&c, &cat, cr, NULL, 300, 5, &err);
    assert_non_null(t);
    ms_dqn_stats st;
    assert_int_equal(ms_hier_trainer_run(t, 300, &st, NULL), 0);
    char *path = test_write_temp("");
    assert_int_equal(ms_hier_trainer_save(t, path, NULL), 0);
    ms_dqn_model m;
    assert_int_equal(ms_dqn_model_load(path, &m, NULL), 0);
    assert_non_null(strstr(m.env_json, "gains3"));
    assert_int_equal(m.mlp.in, 6 * (HIER_RL_FEATURES + HIER_RL_GAIN_FEATURES));
    ms_dqn_model_destroy(&m);
    ms_rng rng;
    ms_rng_seed(&rng, 3);
    ms_hier_window w;
    assert_int_equal(ms_hier_window_mix(&cat, MS_HIER_MIX_BALANCED, 11, -1, &rng, &w, NULL), 0);
    ms_hier_plan p, q;
    assert_int_equal(ms_hier_rl_plan(&w, cr, 3, path, &p, &err), 0);
    assert_int_equal(ms_hier_plan_check(&p, &w, cr, 3, &err), 0);
    assert_int_equal(ms_hier_trainer_plan(t, &w, cr, 3, &q, NULL), 0);
    assert_int_equal(p.n, q.n);
    assert_float_equal(p.total, q.total, 1e-9);
    ms_hier_plan_free(&p);
    ms_hier_plan_free(&q);
    ms_hier_window_free(&w);
    unlink(path);
    free(path);
    ms_hier_trainer_free(t);
    ms_hier_corun_free(cr);
    ms_hier_catalog_free(&cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gain_rows),
        cmocka_unit_test(test_gain_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
