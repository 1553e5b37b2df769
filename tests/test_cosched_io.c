/* test_cosched_io.c: co-scheduling instance readers (JSON, CSV), their errors, round trips. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/cosched.h"
#include "support.h"

static const char *good_json = "{\"tasks\": [{\"name\": \"a\", \"p\": 2}, {\"name\": \"b\", \"p\": "
                               "1.5}],\n"
                               " \"speed\": [[1, 0.7], [0.6, 1]]}";
static const char *good_csv = "# comment\nname,p,a,b\na,2,1,0.7\nb,1.5,0.6,1\n";

static void test_json_and_csv_agree(void **state)
{
    (void)state;
    ms_cosched_instance *j, *c;
    ms_error err;
    assert_int_equal(ms_cosched_parse_json(good_json, "x.json", 0, &j, &err), 0);
    assert_int_equal(ms_cosched_parse_csv(good_csv, "x.csv", 0, &c, &err), 0);
    assert_int_equal(j->n, 2);
    assert_int_equal(c->n, 2);
    for (int i = 0; i < 2; i++) {
        assert_string_equal(j->names[i], c->names[i]);
        assert_true(j->p[i] == c->p[i]);
        for (int k = 0; k < 2; k++)
            assert_true(ms_cosched_s(j, i, k) == ms_cosched_s(c, i, k));
    }
    assert_true(ms_cosched_is_edge(j, 0, 1));
    ms_cosched_instance_free(j);
    ms_cosched_instance_free(c);
}

static void test_round_trip(void **state)
{
    (void)state;
    ms_rng r;
    ms_rng_seed(&r, 3);
    ms_cosched_instance *cat = ms_cosched_catalogue_synthetic(20, &r), *in, *back;
    assert_int_equal(ms_cosched_generate(cat, MS_COSCHED_RANDOM, 15, &r, &in, NULL), 0);
    char *path = test_write_temp("");
    assert_int_equal(ms_cosched_write_json(in, path, NULL), 0);
    assert_int_equal(ms_cosched_read(path, 0, &back, NULL), 0);
    assert_int_equal(back->n, 15);
    for (int i = 0; i < 15; i++) {
        assert_string_equal(back->names[i], in->names[i]);
        assert_true(back->p[i] == in->p[i]);
        for (int k = 0; k < 15; k++)
            assert_true(ms_cosched_s(back, i, k) == ms_cosched_s(in, i, k));
    }
    /* A catalogue (any diagonal) is not an instance. */
    assert_int_equal(ms_cosched_write_json(cat, path, NULL), 0);
    ms_error err;
    ms_cosched_instance *c2;
    int diag_not_one = 0;
    for (int k = 0; k < cat->n; k++)
        diag_not_one |= ms_cosched_s(cat, k, k) != 1;
    if (diag_not_one)
        assert_int_not_equal(ms_cosched_read(path, 0, &c2, &err), 0);
    assert_int_equal(ms_cosched_read(path, 1, &c2, &err), 0);
    ms_cosched_instance_free(c2);
    unlink(path);
    free(path);
    ms_cosched_instance_free(back);
    ms_cosched_instance_free(in);
    ms_cosched_instance_free(cat);
}

static void expect_json_error(const char *text, const char *needle)
{
    ms_cosched_instance *in = NULL;
    ms_error err;
    assert_int_not_equal(ms_cosched_parse_json(text, "bad.json", 0, &in, &err), 0);
    assert_null(in);
    if (!strstr(err.msg, needle) || !strstr(err.msg, "bad.json"))
        print_message("message '%s' lacks '%s'\n", err.msg, needle);
    assert_non_null(strstr(err.msg, needle));
    assert_non_null(strstr(err.msg, "bad.json"));
}

static void expect_csv_error(const char *text, const char *needle)
{
    ms_cosched_instance *in = NULL;
    ms_error err;
    assert_int_not_equal(ms_cosched_parse_csv(text, "bad.csv", 0, &in, &err), 0);
    assert_null(in);
    if (!strstr(err.msg, needle))
        print_message("message '%s' lacks '%s'\n", err.msg, needle);
    assert_non_null(strstr(err.msg, needle));
}

static void test_json_errors(void **state)
{
    (void)state;
    expect_json_error("{\"tasks\": [", "line 1");
    expect_json_error("[]", "top level");
    expect_json_error("{\"speed\": [[1]]}", "'tasks'");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1}]}", "'speed'");
    expect_json_error("{\"tasks\": [{\"p\": 1}], \"speed\": [[1]]}", "tasks[0]: field 'name'");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": \"x\"}], \"speed\": [[1]]}",
                      "tasks[0]: field 'p'");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": -1}], \"speed\": [[1]]}", "positive");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1}, {\"name\": \"b\", \"p\": 1}],"
                      " \"speed\": [[1, 0.5], [0.5]]}",
                      "speed[1]: must be an array of 2");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1}, {\"name\": \"b\", \"p\": 1}],"
                      " \"speed\": [[1, -0.5], [0.5, 1]]}",
                      "speed[0][1]");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1}, {\"name\": \"b\", \"p\": 1}],"
                      " \"speed\": [[1, 0.5], [0.5, 0.9]]}",
                      "speed[1][1]: diagonal must be 1");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1}, {\"name\": \"a\", \"p\": 1}],"
                      " \"speed\": [[1, 0.5], [0.5, 1]]}",
                      "duplicate name");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1}], \"speed\": [[1]], "
                      "\"tasks\": []}",
                      "duplicate");
    /* co-run speeds: 0 (cannot co-run) or in (1e-9, 1]; a speed-up or a vanishing speed
     * used to reach the algorithms and end as "internal error: invalid schedule" */
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 2}, {\"name\": \"b\", \"p\": 1}],"
                      " \"speed\": [[1, 0.5], [1.5, 1]]}",
                      "speed[1][0]: 1.5 is faster than alone (task 'b' with 'a')");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 2}, {\"name\": \"b\", \"p\": 1}],"
                      " \"speed\": [[1, 0.5], [1e300, 1]]}",
                      "speed[1][0]: 1e+300 is faster than alone");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 2}, {\"name\": \"b\", \"p\": 1}],"
                      " \"speed\": [[1, 1e-12], [1, 1]]}",
                      "speed[0][1]: 1e-12 is too small to progress");
    expect_json_error("{\"tasks\": [{\"name\": \"a\", \"p\": 1e300}], \"speed\": [[1]]}",
                      "task 'a': p 1e+300 is over the ceiling of 1e9 s");
}

static void test_csv_errors(void **state)
{
    (void)state;
    expect_csv_error("", "empty file");
    expect_csv_error("task,p,a\na,1,1\n", "line 1: header");
    expect_csv_error("name,p,a,b\na,1,1,0.5\n", "line 3: missing row for task 'b'");
    expect_csv_error("name,p,a,b\na,1,1\nb,1,0.5,1\n", "line 2: 3 fields, expected 4");
    expect_csv_error("name,p,a,b\na,1,1,0.5\nc,1,0.5,1\n", "line 3: row name 'c'");
    expect_csv_error("name,p,a,b\na,one,1,0.5\nb,1,0.5,1\n", "line 2: field 'p'");
    expect_csv_error("name,p,a,b\na,1,1,fast\nb,1,0.5,1\n", "line 2: column 'b': 'fast'");
    expect_csv_error("name,p,a,b\na,1,1,1.5\nb,1,0,1\n", "speed[0][1]: 1.5 is faster than alone");
    expect_csv_error("name,p,a,b\na,1,1,0.5\nb,1e12,0,1\n",
                     "task 'b': p 1e+12 is over the ceiling");
    expect_csv_error("name,p,a,b\na,1,1,0.5\nb,1,0.5,1\nb,1,0.5,1\n", "line 4: extra row");
    expect_csv_error("name,p,a\na,0,1\n", "positive");
    expect_csv_error("name,p,a\na,1,2\n", "diagonal must be 1");
    expect_csv_error("name,p,\xff\n\xff,1,1\n", "not valid UTF-8");
}

static void test_read_errors(void **state)
{
    (void)state;
    int stale; /* a failure leaves NULL, never what *out held before */
    ms_cosched_instance *in = (ms_cosched_instance *)&stale;
    ms_error err;
    assert_int_equal(ms_cosched_read("/nonexistent/x.json", 0, &in, &err), MS_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/x.json"));
    assert_null(in);
    char *path = test_write_temp("  {\"tasks\": 3}");
    in = (ms_cosched_instance *)&stale;
    assert_int_equal(ms_cosched_read(path, 0, &in, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, path));
    assert_null(in);
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_and_csv_agree), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_json_errors),        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_read_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
