/* test_exec_layout.c: the layout alive at a time of a plan, as mig-parted YAML and JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_plans.h"
#include "support.h"

static const plan_inst phases[] = {{"7g.40gb", 0, 1}, {NULL},           {"4g.20gb", 0, 1},
                                   {"3g.20gb", 4, 1}, {NULL},           {"2g.10gb", 0, 1},
                                   {"2g.10gb", 2, 1}, {"1g.5gb", 4, 1}, {"1g.5gb", 5, 1},
                                   {"1g.5gb", 6, 1},  {NULL},           {NULL}};

static char *render(const ms_schedule *s, double t, bool yaml)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ms_error err;
    int rc = yaml ? ms_layout_write_mig_parted(s, t, "plan", f, &err)
                  : ms_layout_write_json(s, t, f, &err);
    assert_int_equal(rc, MS_OK);
    fclose(f);
    return buf;
}

static void test_layout_times(void **unused)
{
    ms_workload *w;
    ms_schedule *s = plan_phases(ms_gpu_builtin("A100-40GB"), 2, phases, 1.0, "true", &w);
    ms_partition p;
    /* Default: the first partition, on each GPU. */
    assert_int_equal(ms_layout_at(s, 1, NAN, &p), MS_OK);
    assert_int_equal(p.n, 1);
    assert_string_equal(s->gpu.profiles[p.inst[0].profile].name, "7g.40gb");
    /* Inside the second phase: 4g@0 and 3g@4. */
    double t = s->inst[2].create_end + 0.5;
    assert_int_equal(ms_layout_at(s, 0, t, &p), MS_OK);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.inst[0].start, 0);
    assert_int_equal(p.inst[1].start, 4);
    /* After everything: nothing alive. */
    assert_int_equal(ms_layout_at(s, 0, 1e9, &p), MS_OK);
    assert_int_equal(p.n, 0);

    char *yaml = render(s, s->inst[4].create_end + 0.5, true);
    assert_non_null(strstr(yaml, "version: v1\nmig-configs:\n  plan:\n    - devices: [0]\n"));
    assert_non_null(strstr(yaml, "    - devices: [1]\n"));
    assert_non_null(strstr(yaml, "        \"1g.5gb\": 3\n        \"2g.10gb\": 2\n"));
    assert_non_null(strstr(yaml, "# placements: 2g.10gb@0 2g.10gb@2 1g.5gb@4 1g.5gb@5 1g.5gb@6"));
    free(yaml);
    yaml = render(s, 1e9, true);
    assert_non_null(strstr(yaml, "mig-devices: {}"));
    free(yaml);
    char *json = render(s, NAN, false);
    assert_non_null(strstr(json, "\"format\": \"migsched-layout/1\""));
    assert_non_null(strstr(json, "\"profile\": \"7g.40gb\""));
    assert_non_null(strstr(json, "\"at\": null"));
    free(json);
    ms_workload_free(w);
    plan_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_layout_times)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
