/* test_daemon_log.c: migschedd's log values: plain ones pass through, others are quoted so
 * that a line still splits into key=value pairs; a whole line is logfmt, also when cut. */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
    assert_string_equal(md_log_quote("a\tb", buf, sizeof buf), "\"a\\x09b\"");
    assert_string_equal(md_log_quote("C:\\x", buf, sizeof buf), "\"C:\\\\x\"");
    assert_string_equal(md_log_quote("\x7f", buf, sizeof buf), "\"\\x7f\"");
    /* UTF-8 is kept, inside quotes (a bare value is ASCII only). */
    assert_string_equal(md_log_quote("caf\xc3\xa9", buf, sizeof buf), "\"caf\xc3\xa9\"");
}

/* A cut never splits an escape: the value still closes. */
static void cut_escapes_stay_whole(void **state)
{
    (void)state;
    char buf[12];
    md_log_quote("\"\"\"\"\"\"\"\"", buf, sizeof buf);
    size_t n = strlen(buf);
    assert_int_equal(buf[n - 1], '"');
    size_t slashes = 0;
    for (size_t i = n - 1; i > 0 && buf[i - 1] == '\\'; i--)
        slashes++;
    assert_int_equal(slashes % 2, 0); /* the closing quote is not escaped */
}

/* What md_log writes on stderr while fn runs, in buf (a temporary file stands in for fd 2). */
static void capture(void (*fn)(void), char *buf, size_t n)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
    fn();
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    rewind(tmp);
    size_t got = fread(buf, 1, n - 1, tmp);
    buf[got] = '\0';
    fclose(tmp);
}

static void one_event(void)
{
    char q[64];
    md_log(MD_LOG_INFO, "job.end", "id=5 user=%s transition=finish state=done",
           md_log_quote("a b", q, sizeof q));
}

static void a_line_begins_with_ts_level_event(void **state)
{
    (void)state;
    char out[512];
    capture(one_event, out, sizeof out);
    assert_int_equal(strncmp(out, "ts=", 3), 0);
    const char *rest = strstr(out, "Z level=info event=job.end ");
    assert_non_null(rest);
    assert_string_equal(strchr(rest, ' ') + 1, "level=info event=job.end id=5 user=\"a b\" "
                                               "transition=finish state=done\n");
}

/* Pairs of quoted values 100 bytes long, more than a line holds. */
static void long_event(void)
{
    char v[101], q[128], line[6000];
    memset(v, 'x', 100);
    v[100] = '\0';
    v[50] = ' ';
    md_log_quote(v, q, sizeof q);
    size_t k = 0;
    for (int i = 0; i < 50; i++)
        k += (size_t)snprintf(line + k, sizeof line - k, "%sk%d=%s", i ? " " : "", i, q);
    md_log(MD_LOG_WARN, "long", "%s", line);
}

static void a_long_line_keeps_whole_pairs(void **state)
{
    (void)state;
    char out[8192];
    capture(long_event, out, sizeof out);
    size_t n = strlen(out);
    assert_true(n <= 4096);
    assert_int_equal(out[n - 1], '\n');
    out[n - 1] = '\0';
    const char *cut = " truncated=true";
    assert_string_equal(out + strlen(out) - strlen(cut), cut);
    /* Every value before the cut is whole: an even count of quotes. */
    size_t quotes = 0;
    for (const char *p = out; *p; p++)
        quotes += *p == '"';
    assert_int_equal(quotes % 2, 0);
    assert_non_null(strstr(out, " k0=\""));
    assert_null(strstr(out, " k49="));
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
        cmocka_unit_test(cut_escapes_stay_whole),
        cmocka_unit_test(a_line_begins_with_ts_level_event),
        cmocka_unit_test(a_long_line_keeps_whole_pairs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
