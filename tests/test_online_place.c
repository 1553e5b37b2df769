/* test_online_place.c: the online simulator with a placement callback: a first-fit
 * callback gives firstfit-dynamic's run exactly, one calling the shared decision with the
 * frag rule gives the frag policy's (without migration), and bad answers, an abort and the
 * combinations that cannot work are refused with messages naming the job, GPU and slot. */
#include "support.h"

#include <stdlib.h>
#include <string.h>

#include "migsched/online.h"

typedef struct policy_arg {
    const ms_gpu_model *m;
    ms_online_rule rule; /* the frag callback's */
    ms_online_frag_table *ft;
    int calls;
    int before;             /* the scripted callback: questions first fit answers first */
    int answer, gpu, start; /*   and its fixed answer after them */
} policy_arg;

/* Firstfit-dynamic by hand: the first GPU with an idle instance of the profile (its lowest
 * start), else the first GPU and start where one can be created. */
static int first_fit(void *arg, const ms_online_place_query *q, int *gpu, int *start)
{
    policy_arg *a = arg;
    a->calls++;
    const ms_profile *pr = &a->m->profiles[q->profile];
    ms_online_rule dynamic = {.dynamic = true};
    int cg = -1, cs = -1;
    for (int g = 0; g < q->ngpus; g++)
        for (int i = 0; i < pr->nstarts; i++) {
            int st = pr->starts[i];
            if (!ms_online_can_take(a->m, &dynamic, &q->gpus[g], q->profile, st))
                continue;
            if (q->gpus[g].idle[st] == q->profile) {
                *gpu = g;
                *start = st;
                return MS_PLACE_PLACED;
            }
            if (cg < 0) {
                cg = g;
                cs = st;
            }
        }
    if (cg < 0)
        return MS_PLACE_WAIT;
    *gpu = cg;
    *start = cs;
    return MS_PLACE_PLACED;
}

/* The shared decision on the views it is shown. */
static int by_rule(void *arg, const ms_online_place_query *q, int *gpu, int *start)
{
    policy_arg *a = arg;
    a->calls++;
    return ms_online_place(a->m, &a->rule, a->ft, q->gpus, q->ngpus, q->profile, gpu, start)
               ? MS_PLACE_PLACED
               : MS_PLACE_WAIT;
}

/* The same answer every time, after first fit answered the first `a->before` questions. */
static int scripted(void *arg, const ms_online_place_query *q, int *gpu, int *start)
{
    policy_arg *a = arg;
    if (a->before-- > 0)
        return first_fit(arg, q, gpu, start);
    *gpu = a->gpu;
    *start = a->start;
    return a->answer;
}

static void workload(const ms_gpu_model *m, ms_rng *rng, int n, double mean, ms_online_workload *w)
{
    ms_online_gen g;
    ms_online_gen_defaults(m, &g);
    g.jobs = n;
    g.arrival_mean = mean;
    g.nmix = m->nprofiles; /* every profile, the whole GPU too */
    for (int p = 0; p < m->nprofiles; p++) {
        g.mix_profile[p] = p;
        g.mix_weight[p] = 1.0 + (double)ms_rng_below(rng, 4);
    }
    g.service_median = 20 + (double)ms_rng_below(rng, 200);
    assert_int_equal(ms_online_generate(m, &g, rng, w, NULL), 0);
}

static void assert_same_run(const ms_online_workload *w, const ms_online_result *a,
                            const ms_online_result *b)
{
    for (int j = 0; j < w->n; j++) {
        if (a->start[j] != b->start[j] || a->end[j] != b->end[j] || a->gpu[j] != b->gpu[j])
            fail_msg("job %d: start %.17g/%.17g end %.17g/%.17g gpu %d/%d", j, a->start[j],
                     b->start[j], a->end[j], b->end[j], a->gpu[j], b->gpu[j]);
    }
    assert_int_equal(a->events, b->events);
    assert_int_equal(a->creations, b->creations);
    assert_int_equal(a->destructions, b->destructions);
    assert_true(a->mean_frag == b->mean_frag && a->mean_turnaround == b->mean_turnaround);
}

static ms_online_config callback_config(int gpus, int queue, ms_online_place_fn fn, void *arg)
{
    ms_online_config c;
    ms_online_config_defaults(&c);
    c.gpus = gpus;
    c.queue = queue;
    c.migration = false;
    c.check = true;
    c.check_full_every = 7;
    c.place = fn;
    c.place_arg = arg;
    return c;
}

/* Every model, 1-8 GPUs, both queues the callback takes, with and without contention. */
static void test_first_fit_callback_is_firstfit_dynamic(void **state)
{
    (void)state;
    ms_rng rng;
    ms_rng_seed(&rng, 41);
    int runs = 0;
    for (int mi = 0; mi < ms_gpu_builtin_count(); mi++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(mi);
        for (int trial = 0; trial < 8; trial++) {
            ms_online_workload w;
            int gpus = 1 + (int)ms_rng_below(&rng, 8);
            workload(m, &rng, 40 + (int)ms_rng_below(&rng, 80), 1 + (double)ms_rng_below(&rng, 30),
                     &w);
            policy_arg a = {.m = m};
            int queue = trial % 2 ? MS_QUEUE_FCFS : MS_QUEUE_FCFS_PROFILE;
            ms_online_config cb = callback_config(gpus, queue, first_fit, &a);
            cb.kappa = trial % 3 ? 0.05 : 0.0;
            ms_online_config ff = cb;
            ff.place = NULL;
            ff.policy = MS_POLICY_FF_DYNAMIC;
            ms_online_result r1, r2;
            ms_error err;
            if (ms_online_simulate(m, &w, &ff, &r1, &err) ||
                ms_online_simulate(m, &w, &cb, &r2, &err))
                fail_msg("%s, %d GPUs: %s", m->name, gpus, err.msg);
            assert_true(a.calls >= w.n);
            assert_same_run(&w, &r1, &r2);
            ms_online_result_fini(&r1);
            ms_online_result_fini(&r2);
            ms_online_workload_fini(&w);
            runs++;
        }
    }
    assert_true(runs >= 16);
}

/* The views carry what the frag rule needs (F's slots and slices, the load): the shared
 * decision called from the callback is the frag policy without migration. */
static void test_rule_callback_is_frag_policy(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    for (int trial = 0; trial < 6; trial++) {
        ms_online_workload w;
        workload(m, &rng, 150, 4, &w);
        bool balance = trial % 2;
        policy_arg a = {.m = m,
                        .rule = {.frag = true, .balance = balance, .dynamic = true, .tau = 0.4},
                        .ft = ms_online_frag_table_new(m)};
        assert_non_null(a.ft);
        ms_online_config cb = callback_config(1 + trial, MS_QUEUE_FCFS_PROFILE, by_rule, &a);
        ms_online_config frag = cb;
        frag.place = NULL;
        frag.policy = MS_POLICY_FRAG;
        frag.balance = balance;
        ms_online_result r1, r2;
        ms_error err;
        if (ms_online_simulate(m, &w, &frag, &r1, &err) ||
            ms_online_simulate(m, &w, &cb, &r2, &err))
            fail_msg("%s", err.msg);
        assert_same_run(&w, &r1, &r2);
        ms_online_result_fini(&r1);
        ms_online_result_fini(&r2);
        ms_online_frag_table_free(a.ft);
        ms_online_workload_fini(&w);
    }
}

/* Jobs 0 and 1 (1g.5gb, 100 s) arrive at 0 and 1 s, job 2 (3g.20gb) at 2 s on 2 GPUs:
 * the scripted answer is given to job `after` and its message must hold every piece. */
static void expect_refusal(int after, int answer, int gpu, int start, int code,
                           const char *const *pieces)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_online_workload w;
    memset(&w, 0, sizeof w);
    const char *trace = "arrival,profile,work\n0,1g.5gb,100\n1,1g.5gb,100\n2,3g.20gb,100\n";
    ms_error perr;
    if (ms_online_trace_parse(trace, strlen(trace), "t", m, &w, &perr))
        fail_msg("%s", perr.msg);
    policy_arg a = {.m = m, .before = after, .answer = answer, .gpu = gpu, .start = start};
    ms_online_config c = callback_config(2, MS_QUEUE_FCFS_PROFILE, scripted, &a);
    ms_online_result r;
    ms_error err = {0};
    assert_int_equal(ms_online_simulate(m, &w, &c, &r, &err), code);
    for (int i = 0; pieces[i]; i++)
        if (!strstr(err.msg, pieces[i]))
            fail_msg("'%s' lacks '%s'", err.msg, pieces[i]);
    ms_online_workload_fini(&w);
}

static void test_bad_answers_are_refused(void **state)
{
    (void)state;
    expect_refusal(0, MS_PLACE_PLACED, 2, 0, MS_EINVAL,
                   (const char *[]){"job 0 (1g.5gb)", "GPU 2 is out of range", "0 to 1", NULL});
    expect_refusal(1, MS_PLACE_PLACED, -1, 0, MS_EINVAL,
                   (const char *[]){"job 1", "GPU -1 is out of range", NULL});
    expect_refusal(
        2, MS_PLACE_PLACED, 1, 1, MS_EINVAL,
        (const char *[]){"job 2 (3g.20gb)", "GPU 1 slot 1 is not a start 3g.20gb", "(0, 4)", NULL});
    /* first fit put job 0 on GPU 0 slot 0: a 1g there, or a 3g over it, is refused */
    expect_refusal(1, MS_PLACE_PLACED, 0, 0, MS_EINVAL,
                   (const char *[]){"job 1 (1g.5gb) at t=1 s", "GPU 0 slot 0 cannot take it",
                                    "hold a job (slot 0)", NULL});
    expect_refusal(2, MS_PLACE_PLACED, 0, 0, MS_EINVAL,
                   (const char *[]){"job 2", "GPU 0 slot 0", "hold a job", "slots 0-3", NULL});
    expect_refusal(1, 7, 0, 0, MS_EINVAL, (const char *[]){"job 1", "answer 7", NULL});
    expect_refusal(2, MS_PLACE_ABORT, 0, 0, MS_EINTR,
                   (const char *[]){"job 2", "stopped the simulation", NULL});
    /* waiting for ever: the jobs never start */
    expect_refusal(2, MS_PLACE_WAIT, 0, 0, MS_EINFEASIBLE,
                   (const char *[]){"1 of 3 jobs could never start", NULL});
}

static void test_combinations_refused(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    ms_rng rng;
    ms_rng_seed(&rng, 3);
    ms_online_workload w;
    workload(m, &rng, 10, 5, &w);
    policy_arg a = {.m = m};
    const char *want[] = {"departure migration", "reserve queue", "static layout"};
    for (int v = 0; v < 3; v++) {
        ms_online_config c = callback_config(2, MS_QUEUE_FCFS_PROFILE, first_fit, &a);
        c.migration = v == 0;
        c.queue = v == 1 ? MS_QUEUE_RESERVE : c.queue;
        c.dynamic = v != 2;
        ms_online_result r;
        ms_error err = {0};
        assert_int_equal(ms_online_simulate(m, &w, &c, &r, &err), MS_EINVAL);
        assert_non_null(strstr(err.msg, "placement callback"));
        assert_non_null(strstr(err.msg, want[v]));
    }
    assert_int_equal(a.calls, 0);
    ms_online_cluster_config cc;
    ms_online_cluster_config_defaults(&cc);
    cc.node = callback_config(1, MS_QUEUE_FCFS_PROFILE, first_fit, &a);
    ms_online_cluster_result cr;
    ms_error err = {0};
    assert_int_equal(ms_online_cluster_simulate(m, &w, &cc, &cr, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "placement callback"));
    ms_online_workload_fini(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_fit_callback_is_firstfit_dynamic),
        cmocka_unit_test(test_rule_callback_is_frag_policy),
        cmocka_unit_test(test_bad_answers_are_refused),
        cmocka_unit_test(test_combinations_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
