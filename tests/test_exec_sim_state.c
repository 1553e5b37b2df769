/* test_exec_sim_state.c: the sim state file: what its reader takes, every rule the driver
 * enforces refused naming the file and the field, the written file read back the same,
 * --gpus specs, a new file made and an existing one checked, and the sim backend on a
 * state (instances persist between opens, the lowest free id, busy instances refused,
 * MIG off, another model refused). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "migsched/exec.h"
#include "support.h"

static const char GOOD[] =
    "{\"format\": \"migsched-sim-state/1\", \"serial\": 7, \"gpus\": ["
    " {\"model\": \"A100-40GB\", \"uuid\": \"GPU-1\", \"mig\": true, \"instances\": ["
    "  {\"gi\": 2, \"profile\": \"3g.20gb\", \"start\": 4, \"uuid\": \"MIG-a\", \"pids\": [77]},"
    "  {\"gi\": 1, \"profile\": \"1g.5gb\", \"start\": 0, \"compute_instances\": 0}]},"
    " {\"model\": \"A30-24GB\", \"uuid\": \"GPU-2\", \"mig\": false}]}";

static ms_sim_state *parse_ok(const char *text)
{
    ms_sim_state *s = malloc(sizeof *s);
    ms_error err = {0};
    if (ms_sim_state_parse(text, strlen(text), "s.json", s, &err))
        fail_msg("parse: %s", err.msg);
    return s;
}

/* GOOD with `from` replaced by `to` fails with a message containing want. */
static void parse_bad(const char *from, const char *to, const char *want)
{
    char text[2048];
    const char *at = strstr(GOOD, from);
    assert_non_null(at);
    snprintf(text, sizeof text, "%.*s%s%s", (int)(at - GOOD), GOOD, to, at + strlen(from));
    ms_sim_state *s = malloc(sizeof *s);
    ms_error err = {0};
    assert_int_equal(ms_sim_state_parse(text, strlen(text), "s.json", s, &err), MS_EINVAL);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
    assert_non_null(strstr(err.msg, "s.json"));
    free(s);
}

static void test_reads_a_state(void **unused)
{
    ms_sim_state *s = parse_ok(GOOD);
    assert_int_equal(s->serial, 7);
    assert_int_equal(s->ngpus, 2);
    assert_string_equal(s->gpu[0].model.name, "A100-40GB");
    assert_true(s->gpu[0].mig);
    assert_false(s->gpu[1].mig);
    assert_int_equal(s->gpu[0].n, 2);
    const ms_sim_instance *a = &s->gpu[0].inst[0];
    assert_int_equal(a->in.gi_id, 2);
    assert_int_equal(a->in.start_slot, 4);
    assert_int_equal(a->in.size_slots, 4);
    assert_int_equal(a->in.nci, 1);
    assert_string_equal(a->in.uuid, "MIG-a");
    assert_int_equal(a->npids, 1);
    assert_int_equal(a->pids[0], 77);
    assert_int_equal(s->gpu[0].inst[1].in.nci, 0);
    assert_string_equal(s->gpu[0].inst[1].in.uuid, "");
    /* Written and read back: the same state, the same bytes again. */
    char *text = ms_sim_state_dump(s);
    ms_sim_state *t = parse_ok(text);
    char *again = ms_sim_state_dump(t);
    assert_string_equal(text, again);
    assert_int_equal(t->gpu[0].inst[0].pids[0], 77);
    free(text);
    free(again);
    free(s);
    free(t);
}

static void test_refuses_bad_states(void **unused)
{
    ms_sim_state *s = malloc(sizeof *s);
    ms_error err = {0};
    assert_int_equal(ms_sim_state_parse("[]", 2, "s.json", s, &err), MS_EINVAL);
    assert_string_equal(err.msg, "s.json: (top): must be an object");
    const char *none = "{\"format\": \"migsched-sim-state/1\", \"serial\": 0, \"gpus\": []}";
    assert_int_equal(ms_sim_state_parse(none, strlen(none), "s.json", s, &err), MS_EINVAL);
    assert_string_equal(err.msg, "s.json: gpus: must be an array of 1 to 16 GPUs");
    free(s);
    parse_bad("migsched-sim-state/1", "migsched-sim-state/2", "format");
    parse_bad("\"serial\": 7", "\"serial\": -1", "serial: -1 is outside");
    parse_bad("\"serial\": 7, ", "", "serial: missing");
    parse_bad("\"A30-24GB\"", "\"A31\"", "gpus[1].model: 'A31' is not a built-in GPU model");
    parse_bad("\"GPU-2\"", "\"GPU-1\"", "gpus[1].uuid: GPU-1 is also GPU 0's");
    parse_bad("\"GPU-2\"", "\"2\"", "gpus[1].uuid: must start with GPU-");
    parse_bad("\"mig\": false", "\"mig\": 0", "gpus[1].mig: must be true or false");
    parse_bad("\"mig\": false", "\"mig\": false, \"colour\": 1", "gpus[1].colour: unknown key");
    parse_bad("\"start\": 4", "\"start\": 3",
              "gpus[0].instances[0].start: 3 is not an allowed placement of 3g.20gb on "
              "A100-40GB (0, 4)");
    parse_bad("\"start\": 0", "\"start\": 5",
              "gpus[0].instances[1].start: 1g.5gb at 5 overlaps GPU instance 2 (3g.20gb at 4)");
    parse_bad("\"gi\": 1", "\"gi\": 2", "gpus[0].instances[1].gi: GPU instance id 2 is used twice");
    parse_bad("\"profile\": \"3g.20gb\"", "\"profile\": \"3g.24gb\"",
              "gpus[0].instances[0].profile: '3g.24gb' is not a profile of A100-40GB");
    parse_bad("\"uuid\": \"MIG-a\", ", "", "gpus[0].instances[0].uuid: missing");
    parse_bad("\"compute_instances\": 0", "\"compute_instances\": 0, \"uuid\": \"MIG-b\"",
              "gpus[0].instances[1].uuid: an instance without a compute instance");
    parse_bad("[77]", "[0]", "gpus[0].instances[0].pids: a PID must be a positive integer");
    parse_bad("\"compute_instances\": 0", "\"compute_instances\": 0, \"pids\": [5]",
              "gpus[0].instances[1].pids: processes need a compute instance");
    parse_bad("\"mig\": false}", "\"mig\": false, \"instances\": [{\"gi\": 1}]}",
              "gpus[1].instances: GPU instances need MIG mode on");
    parse_bad("\"mig\": false}", "\"mig\": false, \"instances\": [{\"gi\": 1}]}", "mig: true");
    parse_bad("\"serial\": 7,", "\"serial\": 7, \"x\": 1,", "s.json: x: unknown key");
    parse_bad("\"serial\": 7,", "\"serial\": 7, \"serial\": 8,", "not JSON");
    parse_bad("false}]}", "false}]", "not JSON");
}

static void test_gpu_specs(void **unused)
{
    ms_sim_state *s = malloc(sizeof *s);
    ms_error err = {0};
    assert_int_equal(ms_sim_state_parse_gpus("2xA100-40GB,A30-24GB", s, &err), MS_OK);
    assert_int_equal(s->ngpus, 3);
    assert_string_equal(s->gpu[1].model.name, "A100-40GB");
    assert_string_equal(s->gpu[2].model.name, "A30-24GB");
    assert_true(s->gpu[2].mig);
    assert_int_equal(ms_sim_state_parse_gpus("2xA99", s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "'A99' is not a built-in GPU model"));
    assert_int_equal(ms_sim_state_parse_gpus("17xA30-24GB", s, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "more than 16"));
    assert_int_equal(ms_sim_state_parse_gpus("0xA30-24GB", s, &err), MS_EINVAL);
    free(s);
}

/* A new file is made once; it must then hold what --gpus says; a corrupt one is refused
 * and left as it is. */
static void test_prepare(void **unused)
{
    char dir[256], path[300];
    test_temp_dir("sim_state", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/s.json", dir);
    ms_sim_state *want = malloc(sizeof *want), *s = malloc(sizeof *s);
    ms_error err = {0};
    assert_int_equal(ms_sim_state_prepare(path, NULL, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "does not exist (create it with --gpus"));
    assert_int_equal(ms_sim_state_parse_gpus("2xA100-40GB", want, &err), MS_OK);
    assert_int_equal(ms_sim_state_prepare(path, want, &err), MS_OK);
    assert_int_equal(ms_sim_state_read(path, s, &err), MS_OK);
    assert_int_equal(s->ngpus, 2);
    assert_string_not_equal(s->gpu[0].uuid, s->gpu[1].uuid);
    assert_int_equal(ms_sim_state_prepare(path, want, &err), MS_OK);
    assert_int_equal(ms_sim_state_prepare(path, NULL, &err), MS_OK);
    assert_int_equal(ms_sim_state_parse_gpus("A100-40GB", want, &err), MS_OK);
    assert_int_equal(ms_sim_state_prepare(path, want, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "holds 2 GPUs (A100-40GB,A100-40GB), not the 1 of --gpus"));
    FILE *f = fopen(path, "w");
    fputs("{\"format\": \"migsched-sim-state/1\", \"serial\": 0, \"gpus\": [{}]}", f);
    fclose(f);
    assert_int_equal(ms_sim_state_prepare(path, NULL, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "gpus[0].model: missing"));
    assert_non_null(strstr(err.msg, path));
    free(want);
    free(s);
    test_remove_dir(dir);
}

/* The sim backend on a state file: what one open makes, the next sees. */
static void test_backend_on_a_state(void **unused)
{
    char dir[256], path[300];
    test_temp_dir("sim_backend", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/s.json", dir);
    ms_sim_state *s = malloc(sizeof *s);
    ms_error err = {0};
    assert_int_equal(ms_sim_state_parse_gpus("A100-40GB,A30-24GB", s, &err), MS_OK);
    assert_int_equal(ms_sim_state_prepare(path, s, &err), MS_OK);
    ms_backend_options opt = {.sim_state = path};
    int n = 0;
    assert_int_equal(ms_backend_device_count("sim", &opt, &n, &err), MS_OK);
    assert_int_equal(n, 2);
    ms_backend *b = NULL;
    assert_int_equal(ms_backend_open("sim", 2, NULL, &opt, &b, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "device 2 does not exist (the sim state has 2 GPUs)"));
    assert_int_equal(ms_backend_open("sim", 1, ms_gpu_builtin("A100-40GB"), &opt, &b, &err),
                     MS_EINVAL);
    assert_non_null(strstr(err.msg, "device 1 is a simulated A30-24GB"));
    assert_int_equal(ms_backend_open("sim", 0, NULL, &opt, &b, &err), MS_OK);
    assert_string_equal(ms_backend_model(b)->name, "A100-40GB");
    assert_true(ms_backend_gpu_uuid(b)[0]);
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB"); /* outlives the opens below */
    ms_mig_instance a, c;
    assert_int_equal(
        ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(m, "3g.20gb"), 4}, &a, &err),
        MS_OK);
    assert_int_equal(
        ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(m, "1g.5gb"), 0}, &c, &err),
        MS_OK);
    assert_int_equal(a.gi_id, 1);
    assert_int_equal(c.gi_id, 2);
    assert_int_equal(
        ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(m, "1g.5gb"), 5}, &c, &err),
        MS_EBACKEND);
    assert_non_null(strstr(err.msg, "slots taken by GPU instance 1"));
    ms_backend_close(b);
    /* Another open (another command) sees them; the lowest free id is taken again. */
    assert_int_equal(ms_backend_open("sim", 0, NULL, &opt, &b, &err), MS_OK);
    ms_mig_instance list[MS_MAX_MIG];
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 2);
    assert_true(ms_mig_same_instance(&a, &list[1]));
    assert_int_equal(ms_backend_destroy(b, a.gi_id, &err), MS_OK);
    ms_mig_instance d;
    assert_int_equal(
        ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(m, "4g.20gb"), 4}, &d, &err),
        MS_EINVAL); /* 4g.20gb starts at 0 only */
    assert_int_equal(
        ms_backend_create(b, (ms_placement){ms_gpu_profile_by_name(m, "3g.20gb"), 4}, &d, &err),
        MS_OK);
    assert_int_equal(d.gi_id, 1);
    assert_string_not_equal(d.uuid, a.uuid); /* a new MIG device: not the destroyed one */
    assert_false(ms_mig_same_instance(&a, &d));
    ms_backend_close(b);
    /* PIDs in the file make an instance busy: listed, and never destroyed. */
    assert_int_equal(ms_sim_state_read(path, s, &err), MS_OK);
    s->gpu[0].inst[0].pids[s->gpu[0].inst[0].npids++] = 4242;
    assert_int_equal(ms_sim_state_write(path, s, &err), MS_OK);
    assert_int_equal(ms_backend_open("sim", 0, NULL, &opt, &b, &err), MS_OK);
    unsigned pids[MS_MAX_PIDS];
    unsigned busy = s->gpu[0].inst[0].in.gi_id;
    assert_int_equal(ms_backend_processes(b, busy, pids, MS_MAX_PIDS, &n, &err), MS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(pids[0], 4242);
    assert_int_equal(ms_backend_destroy(b, busy, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "compute processes run on it (PID 4242"));
    assert_int_equal(ms_backend_disable_mig(b, &err), MS_EBACKEND);
    ms_backend_close(b);
    /* MIG off on GPU 1: no listing, no creation, until it is enabled. */
    assert_int_equal(ms_backend_open("sim", 1, NULL, &opt, &b, &err), MS_OK);
    assert_int_equal(ms_backend_disable_mig(b, &err), MS_OK);
    bool on = true;
    assert_int_equal(ms_backend_mig_mode(b, &on, &err), MS_OK);
    assert_false(on);
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_EBACKEND);
    assert_int_equal(ms_backend_create(b, (ms_placement){0, 0}, &d, &err), MS_EBACKEND);
    assert_non_null(strstr(err.msg, "MIG mode is off"));
    assert_int_equal(ms_backend_enable_mig(b, &err), MS_OK);
    ms_backend_close(b);
    free(s);
    test_remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_a_state),      cmocka_unit_test(test_refuses_bad_states),
        cmocka_unit_test(test_gpu_specs),          cmocka_unit_test(test_prepare),
        cmocka_unit_test(test_backend_on_a_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
