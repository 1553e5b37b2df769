/* test_daemon_log.c: migschedd's log values: plain ones pass through, others are quoted so
 * that a line still splits into key=value pairs. */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "log.h"

static void plain_values_pass(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(md_log_quote("3g.20gb", buf, sizeof buf), "3g.20gb");
    assert_string_equal(md_log_quote("/run/x.sock", buf, sizeof buf), "/run/x.sock");
}

static void others_are_quoted(void **state)
{
    (void)state;
    char buf[64];
    assert_string_equal(md_log_quote("", buf, sizeof buf), "\"\"");
    assert_string_equal(md_log_quote("a b", buf, sizeof buf), "\"a b\"");
    assert_string_equal(md_log_quote("k=v", buf, sizeof buf), "\"k=v\"");
    assert_string_equal(md_log_quote("say \"hi\"\n", buf, sizeof buf), "\"say \\\"hi\\\"\\n\"");
    assert_string_equal(md_log_quote("\x01", buf, sizeof buf), "\"\\x01\"");
}

static void long_values_are_cut_and_closed(void **state)
{
    (void)state;
    char buf[16];
    md_log_quote("a very long value with blanks", buf, sizeof buf);
    size_t n = strlen(buf);
    assert_true(n < sizeof buf);
    assert_int_equal(buf[0], '"');
    assert_int_equal(buf[n - 1], '"');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_values_pass),
        cmocka_unit_test(others_are_quoted),
        cmocka_unit_test(long_values_are_cut_and_closed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
