/* test_slurm_spank.c: the SPANK plugin's parsing without Slurm: its plugstack.conf
 * arguments and --mig's value made the allocation request's body. */
#include <string.h>

#include "spank_args.h"
#include "support.h"

static void test_args(void **state)
{
    (void)state;
    msp_conf c;
    char err[256];
    assert_int_equal(msp_parse_args(0, NULL, &c, err, sizeof err), 0);
    assert_string_equal(c.socket, "/run/migschedd/migschedd.sock");
    assert_true(c.timeout == 60);
    assert_true(c.isolate);
    assert_string_equal(c.dev_dir, "/dev");
    assert_string_equal(c.mig_minors, "/proc/driver/nvidia-caps/mig-minors");
    char *ok[] = {"socket=/tmp/m.sock", "timeout=2.5", "isolation=none", "dev_dir=/tmp/dev",
                  "mig_minors=/tmp/minors"};
    assert_int_equal(msp_parse_args(5, ok, &c, err, sizeof err), 0);
    assert_string_equal(c.socket, "/tmp/m.sock");
    assert_true(c.timeout == 2.5);
    assert_false(c.isolate);
    assert_string_equal(c.dev_dir, "/tmp/dev");
    assert_string_equal(c.mig_minors, "/tmp/minors");
    static const struct {
        const char *arg, *msg;
    } BAD[] = {
        {"socket=rel.sock", "socket=rel.sock: expected an absolute socket path"},
        {"socket=", "expected an absolute socket path"},
        {"timeout=0", "timeout=0: expected seconds above 0"},
        {"timeout=-3", "expected seconds above 0"},
        {"timeout=5s", "expected seconds above 0"},
        {"timeout=86401", "at most 86400"},
        {"timeout=nan", "expected seconds"},
        {"colour=red", "unknown argument \"colour=red\" (socket=PATH, timeout=SECONDS, "
                       "isolation=devices|none, dev_dir=PATH, mig_minors=PATH)"},
        {"isolation=cgroup", "isolation=cgroup: expected isolation=devices or isolation=none"},
        {"dev_dir=dev", "dev_dir=dev: expected an absolute path"},
        {"mig_minors=", "mig_minors=: expected an absolute path"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        char *one[] = {(char *)BAD[i].arg};
        err[0] = '\0';
        if (msp_parse_args(1, one, &c, err, sizeof err) != -1 || !strstr(err, BAD[i].msg))
            fail_msg("%s: \"%s\", expected \"%s\"", BAD[i].arg, err, BAD[i].msg);
    }
    char longp[200] = "socket=/";
    memset(longp + 8, 'x', 150);
    longp[158] = '\0';
    char *one[] = {longp};
    assert_int_equal(msp_parse_args(1, one, &c, err, sizeof err), -1);
}

static void test_mig(void **state)
{
    (void)state;
    char body[128], err[256];
    assert_int_equal(msp_parse_mig("3", body, sizeof body, err, sizeof err), 0);
    assert_string_equal(body, "{\"slices\": 3}");
    assert_int_equal(msp_parse_mig("7", body, sizeof body, err, sizeof err), 0);
    assert_string_equal(body, "{\"slices\": 7}");
    assert_int_equal(msp_parse_mig("3g.20gb", body, sizeof body, err, sizeof err), 0);
    assert_string_equal(body, "{\"profile\": \"3g.20gb\"}");
    assert_int_equal(msp_parse_mig("1g.10gb+me", body, sizeof body, err, sizeof err), 0);
    assert_string_equal(body, "{\"profile\": \"1g.10gb+me\"}");
    /* The job's user joins the body; a name that could break the JSON is refused. */
    assert_int_equal(msp_body_user(body, sizeof body, "al.ice_9-x", err, sizeof err), 0);
    assert_string_equal(body, "{\"profile\": \"1g.10gb+me\", \"user\": \"al.ice_9-x\"}");
    assert_int_equal(msp_parse_mig("3", body, sizeof body, err, sizeof err), 0);
    assert_int_equal(msp_body_user(body, sizeof body, "bob\"", err, sizeof err), -1);
    assert_non_null(strstr(err, "is not one migsched takes"));
    assert_int_equal(msp_body_user(body, sizeof body, "", err, sizeof err), -1);
    assert_string_equal(body, "{\"slices\": 3}");  /* untouched by a refusal */
    char small[20] = "{\"slices\": 3}";
    assert_int_equal(msp_body_user(small, sizeof small, "alice", err, sizeof err), -1);
    assert_non_null(strstr(err, "no room"));
    static const struct {
        const char *value, *msg;
    } BAD[] = {
        {"", "--mig needs a profile"},
        {"0", "--mig=0: a number of compute slices is 1..7"},
        {"8", "1..7"},
        {"007", "1..7"},
        {"99999999999999999999", "1..7"},
        {"3g", "expected a MIG profile such as 1g.5gb"},
        {"g.5gb", "expected a MIG profile"},
        {"3g.20gb\"}", "expected a MIG profile"},
        {"-1", "expected a MIG profile"},
        {"big", "expected a MIG profile"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        err[0] = '\0';
        if (msp_parse_mig(BAD[i].value, body, sizeof body, err, sizeof err) != -1 ||
            !strstr(err, BAD[i].msg))
            fail_msg("%s: \"%s\", expected \"%s\"", BAD[i].value, err, BAD[i].msg);
    }
    assert_int_equal(msp_parse_mig(NULL, body, sizeof body, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_args), cmocka_unit_test(test_mig)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
