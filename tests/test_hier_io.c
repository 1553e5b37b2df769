/* test_hier_io.c: paper 004's files: windows and catalogues (CSV, JSON) and measured co-run
 * tables; bad input is refused with its file, line or field, and a table replaces the model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/hier.h"
#include "support.h"

static ms_hier_catalog cat;

static int setup(void **state)
{
    (void)state;
    ms_error err;
    return ms_hier_catalog_builtin(&cat, &err);
}

static int teardown(void **state)
{
    (void)state;
    ms_hier_catalog_fini(&cat);
    return 0;
}

/* Reads text as a window; returns the status and leaves the message in err. */
static int read_window(const char *text, ms_hier_window *w, ms_error *err)
{
    char *path = test_write_temp(text);
    int rc = ms_hier_window_read(path, &cat, w, err);
    unlink(path);
    free(path);
    return rc;
}

static void expect_window_error(const char *text, const char *where, const char *what)
{
    ms_hier_window w;
    ms_error err;
    assert_int_equal(read_window(text, &w, &err), MS_EINVAL);
    if (!strstr(err.msg, where) || !strstr(err.msg, what))
        fail_msg("message '%s' lacks '%s' or '%s'", err.msg, where, what);
    assert_null(w.jobs);
}

static void test_window_formats_agree(void **state)
{
    (void)state;
    ms_hier_window a, b;
    ms_error err;
    assert_int_equal(read_window("name,command\nlavaMD,./run a\n\nmine,\n", &a, &err), MS_EINVAL);
    assert_int_equal(
        read_window("name,solo,serial,mem,command\nlavaMD,,,,./run a\nmine,10,0.5,0.9,\n", &a,
                    &err),
        0);
    assert_int_equal(
        read_window("{\"jobs\": [{\"name\": \"lavaMD\", \"command\": \"./run a\"},"
                    " {\"name\": \"mine\", \"solo\": 10, \"serial\": 0.5, \"mem\": 0.9}]}",
                    &b, &err),
        0);
    assert_int_equal(a.n, 2);
    assert_int_equal(b.n, 2);
    assert_memory_equal(a.jobs, b.jobs, 2 * sizeof *a.jobs);
    assert_string_equal(a.commands[0], "./run a");
    assert_null(a.commands[1]);
    assert_string_equal(b.commands[0], "./run a");
    /* the catalogue job is a copy; the new one is classified by V-A2's rule */
    assert_memory_equal(&a.jobs[0], ms_hier_catalog_find(&cat, "lavaMD"), sizeof a.jobs[0]);
    assert_int_equal(a.jobs[1].cls, MS_HIER_MI);
    assert_near(a.jobs[1].cache, 1.0, 0);
    ms_hier_window_fini(&a);
    ms_hier_window_fini(&b);
}

static void test_window_errors(void **state)
{
    (void)state;
    expect_window_error("name\nlavaMD\nnosuchjob\n", ":3:", "unknown job");
    expect_window_error("name,solo\nx,abc\n", ":2:", "'solo' ('abc') is not a number");
    expect_window_error("name,solo,serial,mem\nx,1,0.5,1.5\n", ":2:", "mem must be in [0, 1]");
    expect_window_error("name,solo,serial,mem\nx,1e300,0.5,0.5\n", ":2:", "at most 1e+09");
    expect_window_error("name,solo,serial\nx,1,0.5\n", ":2:", "'mem' missing");
    expect_window_error("name,solo,solo\n", ":1:", "appears twice");
    expect_window_error("job,solo\n", ":1:", "first column must be 'name'");
    expect_window_error("name,solo\nx\n", ":2:", "1 fields, the header has 2");
    expect_window_error("name\n", "", "no jobs");
    expect_window_error("name\na;b\n", ":2:", "';'");
    expect_window_error("{\"jobs\": [\"lavaMD\", 3]}", "jobs[1]", "must be a name");
    expect_window_error("{\"jobs\": [{\"name\": \"x\", \"solo\": \"1\"}]}", "jobs[0].solo",
                        "must be a number");
    expect_window_error("{\"jobs\": [{\"name\": \"x\", \"speed\": 1}]}", "jobs[0].speed",
                        "unknown field");
    expect_window_error("{\"jobs\": [\"lavaMD\",]}", "line 1", "invalid JSON");
    expect_window_error("{\"jobs\": {}}", "", "'jobs' must be an array");
}

static void test_catalogue_file(void **state)
{
    (void)state;
    ms_hier_catalog c;
    ms_error err;
    char *p = test_write_temp("name,solo,serial,mem,unseen\na,10,0.99,0.05,1\nb,20,0.05,0.3,0\n");
    assert_int_equal(ms_hier_catalog_read(p, &c, &err), 0);
    assert_int_equal(c.n, 2);
    assert_false(c.modelled);
    assert_int_equal(c.jobs[0].cls, MS_HIER_US);
    assert_int_equal(c.jobs[0].unseen, 1);
    assert_int_equal(c.jobs[1].cls, MS_HIER_CI);
    ms_hier_catalog_fini(&c);
    unlink(p);
    free(p);
    p = test_write_temp("name,solo,serial,mem\na,10,0.99,0.05\na,20,0.05,0.3\n");
    assert_int_equal(ms_hier_catalog_read(p, &c, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "already used"));
    unlink(p);
    free(p);
    p = test_write_temp("name\nlavaMD\n"); /* a catalogue has no catalogue to look names up in */
    assert_int_equal(ms_hier_catalog_read(p, &c, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, ":2:"));
    unlink(p);
    free(p);
}

/* A file that cannot be read is an error naming it, with nothing left to free. */
static void test_missing_files(void **state)
{
    (void)state;
    ms_error err;
    ms_hier_catalog none;
    memset(&none, 0x5a, sizeof none);
    assert_int_equal(ms_hier_catalog_read("/nonexistent/catalogue.csv", &none, &err), MS_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/catalogue.csv"));
    assert_null(none.jobs);
    assert_int_equal(none.n, 0);
    ms_hier_catalog_fini(&none);
    ms_hier_window win;
    memset(&win, 0x5a, sizeof win);
    assert_int_equal(ms_hier_window_read("/nonexistent/window.csv", NULL, &win, &err), MS_EIO);
    assert_null(win.jobs);
    assert_null(win.commands);
    ms_hier_window_fini(&win);
}

static void expect_table_error(const char *text, const char *where, const char *what)
{
    ms_hier_corun *cr;
    ms_error err;
    char *p = test_write_temp(text);
    assert_int_equal(ms_hier_corun_read(p, NULL, &cr, &err), MS_EINVAL);
    if (!strstr(err.msg, where) || !strstr(err.msg, what))
        fail_msg("message '%s' lacks '%s' or '%s'", err.msg, where, what);
    assert_null(cr);
    unlink(p);
    free(p);
}

static void test_corun_table_errors(void **state)
{
    (void)state;
    expect_table_error("setup,jobs\n", ":1:", "header must be 'setup,jobs,times'");
    expect_table_error("setup,jobs,times\nmps:15+85,a;b,1;2\n",
                       ":2:", "'mps:15+85' is not a setup id");
    expect_table_error("setup,jobs,times\nsolo,a,1\n", ":2:", "not a setup id of 2 to 4 jobs");
    expect_table_error("setup,jobs,times\nmps:10+90,a;b;c,1;2\n",
                       ":2:", "3 job names, setup mps:10+90 has 2");
    expect_table_error("setup,jobs,times\nmps:10+90,a;b,1\n", ":2:", "field 'times': 1 times");
    expect_table_error("setup,jobs,times\nmps:10+90,a;b,1;-2\n", ":2:", "time 2 ('-2')");
    expect_table_error("setup,jobs,times\nmps:10+90,a;a,1;2\n", ":2:", "'a' appears twice");
    expect_table_error(
        "setup,jobs,times\nmps:10+90,a;b,1;2\nmps:20+80,a;b,1;2\nmps:10+90,a;b,3;4\n",
        ":4:", "same setup and jobs as line 2");
    expect_table_error("setup,jobs,times\n", "", "no rows");
    expect_table_error("setup,jobs,times\nmps:10+90,a;b\n", ":2:", "2 fields, expected 3");
}

/* A measured table replaces the model: its times are used, a missing set is unknown. */
static void test_measured_table_replaces_model(void **state)
{
    (void)state;
    ms_hier_corun *cr;
    ms_error err;
    char *p = test_write_temp("setup,jobs,times\n"
                              "private:3g(100)+4g(100),stream;lavaMD,50;60\n"
                              "mps:30+70,lavaMD;stream,90;80\n");
    assert_int_equal(ms_hier_corun_read(p, NULL, &cr, &err), 0);
    unlink(p);
    free(p);
    assert_true(ms_hier_corun_measured(cr));
    const char *names[] = {"lavaMD", "stream", "kmeans"};
    ms_hier_window w;
    assert_int_equal(ms_hier_window_from_names(&cat, names, 3, &w, &err), 0);
    ms_hier_plan plan;
    assert_int_equal(ms_hier_solve(&w, cr, 4, MS_HIER_OPTIMAL, MS_HIER_NOMIG, &plan, &err), 0);
    assert_int_equal(ms_hier_plan_check(&plan, &w, cr, 4, &err), 0);
    /* lavaMD (62 s) + stream (40 s) together in 60 s on the private MIG setup; kmeans alone */
    assert_int_equal(plan.n, 2);
    int pair = plan.groups[0].c == 2 ? 0 : 1;
    assert_string_equal(plan.groups[pair].setup.id, "private:3g(100)+4g(100)");
    assert_near(plan.groups[pair].corun, 60, 1e-12);
    assert_near(plan.total, 60 + 36, 1e-9);
    ms_hier_plan_fini(&plan);
    /* MPS only: the measured MPS row (90 s) beats time sharing (102 s) and is taken */
    assert_int_equal(ms_hier_solve(&w, cr, 4, MS_HIER_MPS, MS_HIER_NOMIG, &plan, &err), 0);
    assert_near(plan.total, 90 + 36, 1e-9);
    ms_hier_plan_fini(&plan);
    ms_hier_window_fini(&w);
    ms_hier_corun_free(cr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_window_formats_agree),
        cmocka_unit_test(test_window_errors),
        cmocka_unit_test(test_catalogue_file),
        cmocka_unit_test(test_missing_files),
        cmocka_unit_test(test_corun_table_errors),
        cmocka_unit_test(test_measured_table_replaces_model),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
