/* test_exec_property.c: for plans of every offline algorithm on random workloads of every
 * built-in model (1 and 2 GPUs), the sim backend's virtual-time replay runs every task and
 * never starts or ends anything later than planned: the executor only waits for what a
 * valid plan also waits for. Every plan goes through the validator first. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "migsched/exec.h"
#include "migsched/offline.h"
#include "support.h"

#define SEEDS 10
#define TASKS 30

static void replay(const ms_schedule *s, const ms_workload *w, const char *what)
{
    ms_validation v;
    if (ms_schedule_validate(s, w, &v))
        fail_msg("%s: invalid plan: %s: %s", what, v.v[0].rule, v.v[0].msg);
    ms_validation_fini(&v);
    ms_run_options o = {.backend = "sim", .ndevices = s->gpus};
    for (int g = 0; g < s->gpus; g++)
        o.devices[g] = g;
    ms_run_report *r;
    ms_error err;
    if (ms_run(s, w, &o, &r, &err))
        fail_msg("%s: %s", what, err.msg);
    if (!r->ok)
        fail_msg("%s: replay not ok", what);
    for (int i = 0; i < r->ntasks; i++) {
        const ms_run_task *t = &r->tasks[i];
        if (t->start > t->planned_start + 1e-9 || t->end > t->planned_end + 1e-9)
            fail_msg("%s: task %d ran [%g, %g], planned [%g, %g]", what, t->index, t->start, t->end,
                     t->planned_start, t->planned_end);
    }
    for (int i = 0; i < r->nops; i++)
        if (isfinite(r->ops[i].planned_start) && r->ops[i].start > r->ops[i].planned_start + 1e-9)
            fail_msg("%s: reconfiguration %d late", what, i);
    assert_true(r->makespan <= ms_schedule_makespan(s) + 1e-9);
    ms_run_report_free(r);
}

static void test_replay_never_late(void **unused)
{
    int plans = 0;
    for (int m = 0; m < ms_gpu_builtin_count(); m++) {
        const ms_gpu_model *gpu = ms_gpu_builtin_at(m);
        for (int seed = 1; seed <= SEEDS; seed++) {
            ms_error err;
            ms_gen_params params;
            ms_rng rng;
            ms_rng_seed(&rng, (uint64_t)seed);
            ms_workload *w;
            assert_int_equal(
                ms_gen_preset(gpu, seed % 2 ? "MIXEDSCALING" : "WIDETIMES", &params, &err), MS_OK);
            assert_int_equal(ms_generate(gpu, &params, TASKS, &rng, &w, &err), MS_OK);
            for (int a = 0; a < ms_offline_algo_count(); a++) {
                const ms_offline_algo *algo = ms_offline_algo_at(a);
                if (!strcmp(algo->name, "optimal"))
                    continue; /* exponential on 30 tasks; tests/test_optimal.c covers it */
                ms_offline_options opt;
                ms_offline_options_init(&opt);
                opt.seed = (uint64_t)seed;
                opt.batch = seed % 3 ? 0 : 8; /* some multi-batch plans */
                int gpus = 1 + seed % 2;
                ms_schedule *s;
                char what[96];
                snprintf(what, sizeof what, "%s %s seed %d gpus %d", gpu->name, algo->name, seed,
                         gpus);
                if (ms_offline_schedule(algo->name, w, gpu, gpus, &opt, &s, &err))
                    continue; /* an algorithm may not support every option */
                replay(s, w, what);
                ms_schedule_free(s);
                plans++;
            }
            ms_workload_free(w);
        }
    }
    print_message("%d plans replayed\n", plans);
    assert_true(plans >= ms_gpu_builtin_count() * SEEDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_replay_never_late)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
