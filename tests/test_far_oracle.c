/* test_far_oracle.c: FAR's output must not change when its implementation is made faster.
 * tests/data/far_oracle.txt holds, per case, a 64-bit FNV-1a hash of the schedule JSON
 * (without measured times) that FAR produced before the n log n work (a65dc09):
 * random workloads of every model and preset, 1-4 GPUs, n up to 3,000 (every 50th case up
 * to 20,000), one batch or several in every concatenation mode, with and without
 * refinement, the paper's family and the rule options. Each case has its own seed, so any
 * prefix can be checked: MIGSCHED_PROPERTY_CASES sets how many (the sanitizer build checks
 * 300). MIGSCHED_WRITE_ORACLE=FILE writes the hashes instead (only to regenerate the oracle
 * after an intended change of FAR's results). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "migsched/offline.h"

#define ORACLE_CASES 4000
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_CASES 300
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DEFAULT_CASES 300
#endif
#endif
#ifndef DEFAULT_CASES
#define DEFAULT_CASES ORACLE_CASES
#endif

static uint64_t fnv1a(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* The hash of case c's schedule JSON. */
static uint64_t run_case(int c)
{
    ms_rng rng;
    ms_rng_seed(&rng, 0x0FA2C0DEull + (uint64_t)c);
    const ms_gpu_model *gpu = ms_gpu_builtin_at(c % ms_gpu_builtin_count());
    int gpus = 1 + (int)ms_rng_below(&rng, 4);
    int n = c % 50 == 7  ? 5000 + (int)ms_rng_below(&rng, 15000)
            : c % 5 == 3 ? 100 + (int)ms_rng_below(&rng, 2900)
                         : 1 + (int)ms_rng_below(&rng, 80);
    ms_workload *w = test_random_preset_workload(gpu, n, &rng);
    ms_error err;
    if (ms_rng_below(&rng, 2))
        test_perturb_workload(w, gpu, &rng);
    ms_offline_options o;
    ms_offline_options_init(&o);
    o.far.refine = ms_rng_below(&rng, 4) != 0;
    o.far.paper_family = ms_rng_below(&rng, 4) == 0;
    int rules = (int)ms_rng_below(&rng, 6); /* half the cases: no rule option */
    o.far.four_runs_three = rules == 1 || rules == 3;
    o.far.tie_right_first = rules == 2 || rules == 3;
    if (ms_rng_below(&rng, 3) == 0) {
        static const int sizes[] = {1, 3, 10, 30, 200};
        o.batch = sizes[ms_rng_below(&rng, 5)];
        o.far.concat = (ms_concat_mode)ms_rng_below(&rng, 3);
    }
    ms_schedule *s = NULL;
    if (ms_offline_schedule(o.far.refine ? "far" : "far-norefine", w, gpu, gpus, &o, &s, &err))
        fail_msg("case %d: %s", c, err.msg);
    ms_schedule_drop_timings(s);
    size_t len;
    char *buf = test_schedule_json_text(s, w, &len);
    uint64_t h = fnv1a(buf, len);
    free(buf);
    ms_schedule_free(s);
    ms_workload_free(w);
    return h;
}

static void test_far_matches_oracle(void **state)
{
    (void)state;
    const char *out = getenv("MIGSCHED_WRITE_ORACLE");
    if (out) {
        FILE *f = fopen(out, "w");
        assert_non_null(f);
        for (int c = 0; c < ORACLE_CASES; c++)
            fprintf(f, "%016" PRIx64 "\n", run_case(c));
        assert_int_equal(fclose(f), 0);
        print_message("wrote %d hashes to %s\n", ORACLE_CASES, out);
        return;
    }
    const char *env = getenv("MIGSCHED_PROPERTY_CASES");
    int cases = env && atoi(env) > 0 ? atoi(env) : DEFAULT_CASES;
    if (cases > ORACLE_CASES)
        cases = ORACLE_CASES;
    FILE *f = fopen(test_source_path("tests/data/far_oracle.txt"), "r");
    assert_non_null(f);
    int bad = 0;
    for (int c = 0; c < cases; c++) {
        uint64_t want;
        if (fscanf(f, "%" SCNx64, &want) != 1)
            fail_msg("far_oracle.txt: no hash for case %d", c);
        uint64_t got = run_case(c);
        if (got != want && bad++ < 10)
            print_error("case %d: schedule JSON hash %016" PRIx64 ", oracle %016" PRIx64 "\n", c,
                        got, want);
    }
    fclose(f);
    assert_int_equal(bad, 0);
    print_message("FAR oracle: %d cases byte-identical\n", cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_far_matches_oracle)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
