/* test_daemon_backoff.c: a failing step's backoff: the waits double from the first to the
 * cap; an error is logged once, its repeats counted in one summary when it changes or the
 * step succeeds again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "backoff.h"

/* The log lines written while fn runs on b, in buf. */
static void logged(void (*fn)(md_backoff *), md_backoff *b, char *buf, size_t n)
{
    char path[] = "/tmp/migsched-backoff-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    int saved = dup(STDERR_FILENO);
    dup2(fd, STDERR_FILENO);
    fn(b);
    dup2(saved, STDERR_FILENO);
    close(saved);
    ssize_t k = pread(fd, buf, n - 1, 0);
    buf[k > 0 ? k : 0] = '\0';
    close(fd);
    unlink(path);
}

static double now;
static const char *error;

static void fail_now(md_backoff *b) { md_backoff_fail(b, now, error); }

static void ok(md_backoff *b) { md_backoff_ok(b); }

static size_t lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

static void waits_double_to_the_cap(void **state)
{
    (void)state;
    md_backoff b = md_backoff_init("x.failed", MD_BACKOFF_FIRST, MD_BACKOFF_MAX);
    now = 100;
    assert_true(md_backoff_due(&b, now));
    const double want[] = {0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 5, 5};
    char buf[4096];
    error = "disk full";
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        logged(fail_now, &b, buf, sizeof buf);
        assert_int_equal(lines(buf), i == 0); /* once, at the first failure */
        assert_true(b.delay > want[i] - 1e-9 && b.delay < want[i] + 1e-9);
        assert_false(md_backoff_due(&b, now + want[i] - 0.01));
        assert_true(md_backoff_due(&b, now + want[i]));
        now += want[i];
    }
    logged(ok, &b, buf, sizeof buf);
    assert_int_equal(lines(buf), 1);
    assert_non_null(strstr(buf, "level=info event=x.failed error=\"disk full\" repeated=7 "
                                "summary=recovered"));
    assert_true(md_backoff_due(&b, now));
    logged(ok, &b, buf, sizeof buf); /* nothing to say when it did not fail */
    assert_string_equal(buf, "");
    /* A new run of failures starts from the first wait again. */
    logged(fail_now, &b, buf, sizeof buf);
    assert_non_null(strstr(buf, "level=error event=x.failed error=\"disk full\" retry_s=0.1"));
}

static void another_error_is_logged_after_a_summary(void **state)
{
    (void)state;
    md_backoff b = md_backoff_init("x.failed", 1, 60);
    char buf[4096];
    now = 0;
    error = "one";
    logged(fail_now, &b, buf, sizeof buf);
    assert_non_null(strstr(buf, "event=x.failed error=one retry_s=1\n"));
    logged(fail_now, &b, buf, sizeof buf);
    error = "two";
    logged(fail_now, &b, buf, sizeof buf);
    assert_int_equal(lines(buf), 2);
    assert_non_null(strstr(buf, "level=error event=x.failed error=one repeated=1 "
                                "summary=changed\n"));
    assert_non_null(strstr(buf, "event=x.failed error=two retry_s=4\n"));
}

/* A job's wait before its next start after n node failures in a row: 1 s doubling to 60. */
static void delay_after_n_failures(void **state)
{
    (void)state;
    const double want[] = {1, 2, 4, 8, 16, 32, 60, 60};
    for (int n = 1; n <= 8; n++)
        assert_true(md_backoff_delay(1, 60, n) == want[n - 1]);
    assert_true(md_backoff_delay(1, 60, 1000000) == 60);
    assert_true(md_backoff_delay(0.1, 5, 3) > 0.4 - 1e-9);
    assert_true(md_backoff_delay(0.1, 5, 3) < 0.4 + 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(waits_double_to_the_cap),
        cmocka_unit_test(another_error_is_logged_after_a_summary),
        cmocka_unit_test(delay_after_n_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
