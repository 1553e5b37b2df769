/* test_hier_rl.c: the co-scheduling agent of paper 004: its action space, plans that pass
 * ms_hier_plan_check from any network (untrained ones included) on random mixes and on
 * windows longer than the agent's, the DQN reaching the exhaustive optimum of a small
 * window (for one of a few seeds; each seed deterministic), its model files (round trip,
 * rejections), and the co-run gain features (--gains): at every decision of random episodes
 * each row's three values equal the savings recomputed directly with ms_hier_group_best (so
 * the per-episode cache and the eligibility rule are checked), the Table VI part of the row
 * is unchanged, the setups offered are those no slower than time sharing, and a model
 * trained with them loads back with them and plans validly; the rollout lookahead (never
 * slower than the greedy agent, deterministic, valid MIG placements) and r_f's weight; the
 * exact action values of --expert-pretrain (equal to brute force) and pre-training on them
 * reaching the optimum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/hier/hier_rl.h"
#include "migsched/gpu.h"
#include "migsched/hier.h"
#include "migsched/schedule.h"
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
    ms_hier_catalog_fini(&f->cat);
    free(f);
    return 0;
}

static bool best_setup, gains; /* the modes small_trainer builds */

static ms_hier_trainer *small_trainer(fixture *f, int W, int cmax, const ms_hier_window *fixed,
                                      long steps, uint64_t seed)
{
    ms_hier_rl_config c;
    ms_hier_rl_config_default(&c);
    c.best_setup = best_setup;
    c.gains = gains;
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

/* Untrained networks of every C_max, in both action modes and with the gains, plan random
 * mixes of every category validly; the trainer's random-policy episodes run too. */
static void test_plans_valid(void **state)
{
    fixture *f = *state;
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    for (int mode = 0; mode < 3; mode++)
        for (int cmax = 1; cmax <= MS_HIER_MAX_C; cmax++) {
            best_setup = mode == 1;
            gains = mode == 2;
            ms_hier_trainer *t = small_trainer(f, 12, cmax, NULL, 1000, (uint64_t)cmax);
            ms_dqn_stats st;
            assert_int_equal(ms_hier_trainer_run(t, 300, &st, NULL), 0);
            assert_true(st.episodes > 0);
            for (int k = 0; k < 40; k++) {
                ms_hier_window w;
                size_t n = 2 + ms_rng_below(&rng, 11);
                assert_int_equal(
                    ms_hier_window_mix(&f->cat, k % MS_HIER_NMIX, n, -1, &rng, &w, NULL), 0);
                for (int c = 1; c <= cmax; c++) {
                    ms_hier_plan p;
                    assert_int_equal(
                        ms_hier_trainer_plan(t, &w, f->cr, c, MS_HIER_GREEDY, &p, NULL), 0);
                    check_plan(&p, &w, f->cr, c);
                    ms_hier_plan_fini(&p);
                }
                ms_hier_window_fini(&w);
            }
            /* Groups larger than the agent's action space are refused. */
            ms_hier_window w;
            assert_int_equal(ms_hier_window_mix(&f->cat, 0, 6, -1, &rng, &w, NULL), 0);
            ms_hier_plan p;
            ms_error err;
            assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, cmax + 1, MS_HIER_GREEDY, &p, &err),
                             MS_EINVAL);
            ms_hier_window_fini(&w);
            ms_hier_trainer_free(t);
        }
    best_setup = gains = false;
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
    assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 3, MS_HIER_GREEDY, &p, NULL), 0);
    check_plan(&p, &w, f->cr, 3);
    /* No group mixes jobs of two chunks (0-3, 4-7, 8-10). */
    for (size_t g = 0; g < p.n; g++)
        for (int i = 1; i < p.groups[g].c; i++)
            assert_int_equal(p.groups[g].job[i] / 4, p.groups[g].job[0] / 4);
    ms_hier_plan_fini(&p);
    ms_hier_window_fini(&w);
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

/* Two trainers of one seed on the 5-job window w (`updates` pre-training updates, then
 * `steps` DQN steps) plan w validly and alike and write the same bytes, to paths[0] and
 * paths[1]; returns those bytes (malloc'd, *len long when len is not NULL), and in *optimal
 * whether the plans reach the optimum opt. */
static char *train_twice(fixture *f, const ms_hier_window *w, const ms_hier_plan *opt, long updates,
                         long steps, uint64_t seed, char *paths[2], size_t *len, bool *optimal)
{
    double total[2];
    for (int run = 0; run < 2; run++) {
        ms_hier_trainer *t = small_trainer(f, 5, 3, w, steps, seed);
        double loss = 0;
        ms_dqn_stats st;
        if (updates)
            assert_int_equal(ms_hier_trainer_pretrain(t, updates, &loss, NULL), 0);
        assert_true(loss >= 0 && isfinite(loss));
        if (steps)
            assert_int_equal(ms_hier_trainer_run(t, steps, &st, NULL), 0);
        ms_hier_plan p;
        assert_int_equal(ms_hier_trainer_plan(t, w, f->cr, 3, MS_HIER_GREEDY, &p, NULL), 0);
        check_plan(&p, w, f->cr, 3);
        total[run] = p.total;
        ms_hier_plan_fini(&p);
        paths[run] = test_write_temp("");
        assert_int_equal(ms_hier_trainer_save(t, paths[run], NULL), 0);
        ms_hier_trainer_free(t);
    }
    assert_true(total[0] == total[1]);
    *optimal = total[0] <= opt->total * (1 + 1e-9);
    char *a, *b;
    size_t la, lb;
    read_all(paths[0], &a, &la);
    read_all(paths[1], &b, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(a, b, la);
    free(b);
    if (len)
        *len = la;
    return a;
}

static void unlink_both(char *paths[2])
{
    for (int run = 0; run < 2; run++) {
        unlink(paths[run]);
        free(paths[run]);
    }
}

/* A window of five (two CI, two MI, one US program) whose optimum co-runs jobs: the agent,
 * trained on it alone, finds a plan of the optimum's total for one of five seeds; two runs
 * with one seed write the same model bytes; the model file plans the optimum from disk.
 * Not one fixed seed: 10,000 DQN steps reach the optimum for about three seeds in four
 * (9 of seeds 40-51), and which ones depends on the rounding of the BLAS kernels the CPU
 * gets (seed 42 does with OpenBLAS's Haswell and Zen kernels, not its SkylakeX ones). */
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
    bool optimal = false;
    for (uint64_t seed = 42; seed < 47 && !optimal; seed++) {
        free(train_twice(f, &w, &opt, 0, 10000, seed, paths, NULL, &optimal));
        if (!optimal)
            unlink_both(paths);
    }
    assert_true(optimal);

    ms_hier_plan p;
    assert_int_equal(ms_hier_rl_plan(&w, f->cr, 3, paths[0], MS_HIER_GREEDY, &p, NULL), 0);
    assert_true(p.total <= opt.total * (1 + 1e-9));
    ms_hier_plan_fini(&p);
    ms_error err;
    assert_int_equal(ms_hier_rl_plan(&w, f->cr, 4, paths[0], MS_HIER_GREEDY, &p, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "up to 3"));
    unlink_both(paths);
    ms_hier_plan_fini(&opt);
    ms_hier_plan_fini(&ts);
    ms_hier_window_fini(&w);
}

/* The agent, trained in the modes set on the 5-job window below alone, plans its optimum. */
static void learn_small_optimum(fixture *f)
{
    const char *names[] = {"lavaMD", "stream", "kmeans", "bt_solver_B", "sp_solver_A"};
    ms_hier_window w;
    assert_int_equal(ms_hier_window_from_names(&f->cat, names, 5, &w, NULL), 0);
    ms_hier_plan opt, p;
    assert_int_equal(ms_hier_solve(&w, f->cr, 3, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &opt, NULL), 0);
    ms_hier_trainer *t = small_trainer(f, 5, 3, &w, 10000, 42);
    ms_dqn_stats st;
    assert_int_equal(ms_hier_trainer_run(t, 10000, &st, NULL), 0);
    assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 3, MS_HIER_GREEDY, &p, NULL), 0);
    check_plan(&p, &w, f->cr, 3);
    if (p.total > opt.total * (1 + 1e-9))
        fail_msg("agent total %.6f, optimum %.6f", p.total, opt.total);
    ms_hier_plan_fini(&p);
    ms_hier_plan_fini(&opt);
    ms_hier_trainer_free(t);
    ms_hier_window_fini(&w);
}

/* With --best-setup the agent picks job sets only, and with --gains it sees the co-run
 * gains: each way it finds the optimum's cover. */
static void test_modes_optimum(void **state)
{
    fixture *f = *state;
    for (int mode = 0; mode < 2; mode++) {
        best_setup = mode == 0;
        gains = mode == 1;
        learn_small_optimum(f);
    }
    best_setup = gains = false;
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
    ms_mlp_fini(&m.mlp);
    ms_rng rng;
    ms_rng_seed(&rng, 1);
    assert_int_equal(ms_mlp_init(&m.mlp, 4 * 17 + 1, 3, m.cfg.hidden, 4 + 8, &rng, NULL), 0);
    m.mlp.activation = MS_ACT_RELU;
    assert_int_equal(ms_dqn_model_save(path, &m, NULL), 0);
    assert_int_equal(ms_hier_agent_load(path, &a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "inputs"));
    ms_dqn_model_fini(&m);
    /* Not a model at all. */
    FILE *fp = fopen(path, "wb");
    fputs("lavaMD,stream\n", fp);
    fclose(fp);
    assert_int_equal(ms_hier_agent_load(path, &a, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "bad magic"));
    unlink(path);
    free(path);
}

static double saved_direct(const ms_hier_window *w, const ms_hier_corun *cr, const int *jobs, int c)
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
    if (c < 2 || ms_hier_group_best(w, cr, sorted, c, MS_HIER_FAM_TABLE7, MS_HIER_NOMIG, &g))
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
    fixture *f = *state;
    const ms_hier_catalog *cat = &f->cat;
    ms_hier_corun *cr = f->cr;
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
            assert_int_equal(ms_hier_window_mix(cat, ep % MS_HIER_NMIX, n, -1, &rng, &w, NULL), 0);
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
            ms_hier_window_fini(&w);
        }
        hier_rl_env_free(e);
    }
    free(e);
    free(plain);
}

/* A model trained with the gains is saved as such, loads back with them (its network has
 * the wider input) and plans validly from disk. */
static void test_gain_model(void **state)
{
    fixture *f = *state;
    const ms_hier_catalog *cat = &f->cat;
    ms_hier_corun *cr = f->cr;
    ms_hier_rl_config c;
    ms_hier_rl_config_default(&c);
    c.window = 6;
    c.cmax = 3;
    c.gains = true;
    c.dqn.hidden[0] = c.dqn.hidden[1] = c.dqn.hidden[2] = 16;
    c.dqn.learn_start = 50;
    c.dqn.batch = 8;
    ms_error err;
    ms_hier_trainer *t = ms_hier_trainer_new(&c, cat, cr, NULL, 300, 5, &err);
    assert_non_null(t);
    ms_dqn_stats st;
    assert_int_equal(ms_hier_trainer_run(t, 300, &st, NULL), 0);
    char *path = test_write_temp("");
    assert_int_equal(ms_hier_trainer_save(t, path, NULL), 0);
    ms_dqn_model m;
    assert_int_equal(ms_dqn_model_load(path, &m, NULL), 0);
    assert_non_null(strstr(m.env_json, "gains3"));
    assert_int_equal(m.mlp.in, 6 * (HIER_RL_FEATURES + HIER_RL_GAIN_FEATURES));
    ms_dqn_model_fini(&m);
    ms_rng rng;
    ms_rng_seed(&rng, 3);
    ms_hier_window w;
    assert_int_equal(ms_hier_window_mix(cat, MS_HIER_MIX_BALANCED, 11, -1, &rng, &w, NULL), 0);
    ms_hier_plan p, q;
    assert_int_equal(ms_hier_rl_plan(&w, cr, 3, path, MS_HIER_GREEDY, &p, &err), 0);
    assert_int_equal(ms_hier_plan_check(&p, &w, cr, 3, &err), 0);
    assert_int_equal(ms_hier_trainer_plan(t, &w, cr, 3, MS_HIER_GREEDY, &q, NULL), 0);
    assert_int_equal(p.n, q.n);
    assert_float_equal(p.total, q.total, 1e-9);
    ms_hier_plan_fini(&p);
    ms_hier_plan_fini(&q);
    ms_hier_window_fini(&w);
    unlink(path);
    free(path);
    ms_hier_trainer_free(t);
}

/* Lookahead (rollout over the agent's K best actions by Q): for briefly trained networks in
 * both action modes and with the gains, on random mixes of every category (up to two
 * windows long), each K in 2..4 gives a plan never slower than the greedy agent's (K = 1),
 * and at depth 2 never slower than at depth 1, the same plan when asked twice, a plan that
 * passes ms_hier_plan_check and renders to a valid MIG schedule; some plans are strictly
 * faster at each step; K outside 1..8 and depths outside 1..3 are refused. */
static void test_lookahead(void **state)
{
    fixture *f = *state;
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    int faster = 0, deeper_faster = 0;
    for (int mode = 0; mode < 3; mode++) {
        best_setup = mode == 1;
        gains = mode == 2;
        ms_hier_trainer *t = small_trainer(f, 8, 4, NULL, 1000, (uint64_t)(5 + mode));
        ms_dqn_stats st;
        assert_int_equal(ms_hier_trainer_run(t, 300, &st, NULL), 0);
        for (int k = 0; k < 12; k++) {
            ms_hier_window w;
            size_t n = 2 + ms_rng_below(&rng, 15);
            assert_int_equal(ms_hier_window_mix(&f->cat, k % MS_HIER_NMIX, n, -1, &rng, &w, NULL),
                             0);
            ms_hier_plan g;
            assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 4, MS_HIER_GREEDY, &g, NULL), 0);
            for (int K = 2; K <= 4; K++) {
                ms_hier_plan p, again, deeper;
                ms_error err;
                ms_hier_lookahead la = {K, 1}, la2 = {K, 2};
                assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 4, la, &p, NULL), 0);
                check_plan(&p, &w, f->cr, 4);
                if (p.total > g.total * (1 + 1e-12))
                    fail_msg("lookahead %d: %.9g s, the greedy agent %.9g s", K, p.total, g.total);
                faster += p.total < g.total * (1 - 1e-9);
                /* Depth 2 rolls out with the depth-1 rule as its base: never worse than it. */
                assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 4, la2, &deeper, NULL), 0);
                check_plan(&deeper, &w, f->cr, 4);
                if (deeper.total > p.total * (1 + 1e-12))
                    fail_msg("lookahead %d depth 2: %.9g s, depth 1 %.9g s", K, deeper.total,
                             p.total);
                deeper_faster += deeper.total < p.total * (1 - 1e-9);
                ms_hier_plan_fini(&deeper);
                assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 4, la, &again, NULL), 0);
                assert_int_equal(again.n, p.n);
                assert_true(again.total == p.total);
                for (size_t i = 0; i < p.n; i++) {
                    assert_string_equal(again.groups[i].setup.id, p.groups[i].setup.id);
                    assert_memory_equal(again.groups[i].job, p.groups[i].job,
                                        sizeof p.groups[i].job);
                }
                ms_hier_exec x;
                assert_int_equal(ms_hier_render(&p, &w, gpu, &x, &err), 0);
                ms_validation v = {0};
                if (ms_schedule_validate(x.schedule, x.workload, &v))
                    fail_msg("lookahead %d: %s: %s", K, v.v[0].rule, v.v[0].msg);
                ms_validation_fini(&v);
                ms_hier_exec_fini(&x);
                ms_hier_plan_fini(&again);
                ms_hier_plan_fini(&p);
            }
            ms_hier_plan_fini(&g);
            ms_hier_window_fini(&w);
        }
        ms_hier_window w;
        assert_int_equal(ms_hier_window_mix(&f->cat, 0, 6, -1, &rng, &w, NULL), 0);
        static const ms_hier_lookahead bad[] = {{0, 1}, {9, 1}, {3, 0}, {3, 4}};
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            ms_hier_plan p;
            ms_error err;
            assert_int_equal(ms_hier_trainer_plan(t, &w, f->cr, 4, bad[b], &p, &err), MS_EINVAL);
            assert_non_null(strstr(err.msg, "lookahead"));
        }
        ms_hier_window_fini(&w);
        ms_hier_trainer_free(t);
    }
    best_setup = gains = false;
    assert_true(faster > 0);
    assert_true(deeper_faster > 0);
}

/* With r_i and r_f weighted 0 an episode's return is the time its cover saves over time
 * sharing as a share of the window's solo time (IV-A's objective); r_f's weight is kept in
 * model files, and files without it (older ones) pay r_f in full. */
static void test_rf_weight(void **state)
{
    fixture *f = *state;
    ms_hier_rl_config c;
    ms_hier_rl_config_default(&c);
    c.window = 8;
    c.ri_weight = c.rf_weight = 0;
    hier_rl_env *e = malloc(sizeof *e);
    assert_int_equal(hier_rl_env_init(e, &c, NULL), 0);
    ms_rng rng;
    ms_rng_seed(&rng, 4);
    uint8_t m[HIER_RL_MAX_W + HIER_RL_MAX_SETUPS];
    for (int ep = 0; ep < 20; ep++) {
        ms_hier_window w;
        assert_int_equal(ms_hier_window_mix(&f->cat, ep % MS_HIER_NMIX, 8, -1, &rng, &w, NULL), 0);
        hier_rl_env_start(e, &w, f->cr, 4);
        double ret = 0;
        for (bool done = false; !done;) {
            int n = hier_rl_ops.mask(e, m), pick = (int)ms_rng_below(&rng, (uint64_t)n), a = 0;
            for (;; a++)
                if (m[a] && pick-- == 0)
                    break;
            ret += hier_rl_ops.step(e, a, &done);
        }
        assert_float_equal(ret, 1 - e->corun_total / e->solo_total, 1e-9);
        ms_hier_window_fini(&w);
    }
    char *json = hier_rl_env_json(e, NULL);
    assert_non_null(strstr(json, "\"rf_weight\":0"));
    assert_int_equal(hier_rl_env_from_json("x", json, e, NULL), 0);
    assert_true(e->rf_weight == 0);
    char *old = strstr(json, "\"rf_weight\":0.0,");
    assert_non_null(old);
    memmove(old, old + strlen("\"rf_weight\":0.0,"),
            strlen(old + strlen("\"rf_weight\":0.0,")) + 1);
    assert_int_equal(hier_rl_env_from_json("x", json, e, NULL), 0);
    assert_true(e->rf_weight == 1);
    free(json);
    hier_rl_env_free(e);
    free(e);
}

/* The best return reachable from e's state by any sequence of decisions (brute force). */
static double best_return(const hier_rl_env *e)
{
    uint8_t m[HIER_RL_MAX_W + HIER_RL_MAX_SETUPS];
    hier_rl_env *c = malloc(sizeof *c);
    hier_rl_env_copy(c, e);
    int nact = hier_rl_num_actions(c);
    hier_rl_ops.mask(c, m);
    double best = -INFINITY;
    for (int a = 0; a < nact; a++) {
        if (!m[a])
            continue;
        hier_rl_env_copy(c, e);
        bool done = false;
        double r = hier_rl_ops.step(c, a, &done);
        if (!done)
            r += best_return(c);
        best = fmax(best, r);
    }
    free(c);
    return best;
}

/* The expert's Q*(s, a) (rl_expert.c) equals the best return after a found by brute force,
 * at every decision of random episodes, in both action modes and with r_f weighted or not;
 * and it refuses r_i, which it does not value. */
static void test_expert_values(void **state)
{
    fixture *f = *state;
    ms_rng rng;
    ms_rng_seed(&rng, 11);
    uint8_t m[HIER_RL_MAX_W + HIER_RL_MAX_SETUPS];
    float q[HIER_RL_MAX_W + HIER_RL_MAX_SETUPS];
    hier_rl_env *e = malloc(sizeof *e), *c = malloc(sizeof *c);
    for (int mode = 0; mode < 4; mode++) {
        ms_hier_rl_config cfg;
        ms_hier_rl_config_default(&cfg);
        cfg.window = 6;
        cfg.cmax = 3;
        cfg.ri_weight = 0;
        cfg.rf_weight = mode & 1;
        cfg.best_setup = mode & 2;
        cfg.gains = mode == 3;
        assert_int_equal(hier_rl_env_init(e, &cfg, NULL), 0);
        hier_rl_expert x;
        assert_int_equal(hier_rl_expert_init(&x, e, NULL), 0);
        for (int ep = 0; ep < 3; ep++) {
            ms_hier_window w;
            assert_int_equal(ms_hier_window_mix(&f->cat, ep % MS_HIER_NMIX, 6, -1, &rng, &w, NULL),
                             0);
            hier_rl_env_start(e, &w, f->cr, 3);
            hier_rl_expert_start(&x, e);
            for (bool done = false; !done;) {
                int n = hier_rl_ops.mask(e, m), pick = (int)ms_rng_below(&rng, (uint64_t)n);
                hier_rl_expert_q(&x, e, m, q);
                int a = -1;
                for (int b = 0; b < hier_rl_num_actions(e); b++) {
                    if (!m[b])
                        continue;
                    if (pick-- == 0)
                        a = b;
                    hier_rl_env_copy(c, e);
                    bool end = false;
                    double r = hier_rl_ops.step(c, b, &end);
                    if (!end)
                        r += best_return(c);
                    assert_float_equal(q[b], r, 1e-5);
                }
                hier_rl_ops.step(e, a, &done);
            }
            ms_hier_window_fini(&w);
        }
        hier_rl_expert_free(&x);
        hier_rl_env_free(e);
        cfg.ri_weight = 1;
        assert_int_equal(hier_rl_env_init(e, &cfg, NULL), 0);
        ms_error err;
        assert_int_equal(hier_rl_expert_init(&x, e, &err), MS_EINVAL);
        assert_non_null(strstr(err.msg, "--expert-pretrain needs --ri-weight 0"));
        hier_rl_env_free(e);
    }
    free(e);
    free(c);
}

/* Pre-training alone on the exact values (no DQN step) brings the agent to the optimum of a
 * small window, in both action modes; the same seed gives the same model bytes, and the file
 * records the pre-training. */
static void test_expert_pretrain(void **state)
{
    fixture *f = *state;
    const char *names[] = {"lavaMD", "stream", "kmeans", "bt_solver_B", "sp_solver_A"};
    ms_hier_window w;
    assert_int_equal(ms_hier_window_from_names(&f->cat, names, 5, &w, NULL), 0);
    ms_hier_plan opt;
    assert_int_equal(ms_hier_solve(&w, f->cr, 3, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &opt, NULL), 0);
    for (int mode = 0; mode < 2; mode++) {
        best_setup = mode == 1;
        char *paths[2];
        size_t la;
        bool optimal;
        char *a = train_twice(f, &w, &opt, 300, 0, 9, paths, &la, &optimal);
        assert_true(optimal);
        assert_non_null(memmem(a, la, "\"expert_pretrain\":300", 20));
        free(a);
        unlink_both(paths);
    }
    best_setup = false;
    ms_hier_plan_fini(&opt);
    ms_hier_window_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans_valid),      cmocka_unit_test(test_long_queue),
        cmocka_unit_test(test_learns_optimum),   cmocka_unit_test(test_modes_optimum),
        cmocka_unit_test(test_model_rejections), cmocka_unit_test(test_gain_rows),
        cmocka_unit_test(test_gain_model),       cmocka_unit_test(test_lookahead),
        cmocka_unit_test(test_rf_weight),        cmocka_unit_test(test_expert_values),
        cmocka_unit_test(test_expert_pretrain),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
