/* test_cli_escape.c: the clients' escaping of daemon text: controls (C0, DEL, C1),
 * bidirectional controls and bytes that are not UTF-8 become visible escapes, printable
 * UTF-8 stays, and text that does not fit is cut short on a whole escape with "...". */
#include <string.h>

#include "migsched/escape.h"
#include "support.h"

static const char *esc(const char *s, size_t n, size_t len)
{
    static char buf[256];
    return ms_escape(s, n, buf, len);
}

static void test_escapes(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        size_t n;
        const char *out;
    } CASES[] = {
        {"plain name-1.sh", 15, "plain name-1.sh"},
        {"\x1b[2J", 4, "\\x1b[2J"},
        {"\x1b]0;t\x07", 6, "\\x1b]0;t\\x07"},
        {"a\nb\tc\rd\\e", 9, "a\\nb\\tc\\rd\\\\e"},
        {"\x7f", 1, "\\x7f"},
        {"x\0y", 3, "x\\x00y"},
        {"\xc2\x9b"
         "31m",
         5, "\\u009b31m"},                           /* U+009B, CSI */
        {"\xc2\x85", 2, "\\u0085"},                  /* U+0085, NEL */
        {"\xc2\xa0\xc3\xa9", 4, "\xc2\xa0\xc3\xa9"}, /* NBSP, é: printable */
        /* Bidirectional controls would reorder the rest of a printed row (a job's name
         * making its user and state read as others): escaped like controls. */
        {"a\xe2\x80\xae"
         "b",
         5, "a\\u202eb"},                                  /* U+202E, RIGHT-TO-LEFT OVERRIDE */
        {"\xe2\x81\xa6\xe2\x81\xa9", 6, "\\u2066\\u2069"}, /* isolates */
        {"\xe2\x80\x8f\xd8\x9c", 5, "\\u200f\\u061c"},     /* RLM, ARABIC LETTER MARK */
        {"\xe2\x80\xa8", 3, "\\u2028"},                    /* LINE SEPARATOR */
        {"\xe2\x82\xac\xf0\x9f\x98\x80", 7, "\xe2\x82\xac\xf0\x9f\x98\x80"},
        {"\x9b", 1, "\\x9b"}, /* a lone C1 byte */
        {"\xff\xfe", 2, "\\xff\\xfe"},
        {"\xc0\xaf", 2, "\\xc0\\xaf"},                   /* overlong '/' */
        {"\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf"},          /* overlong, 3 bytes */
        {"\xed\xa0\x80", 3, "\\xed\\xa0\\x80"},          /* a surrogate */
        {"\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80"}, /* above U+10FFFF */
        {"\xe2\x82", 2, "\\xe2\\x82"},                   /* cut short */
        {"\xc3"
         "A",
         2, "\\xc3A"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        const char *got = esc(CASES[i].in, CASES[i].n, 256);
        if (strcmp(got, CASES[i].out))
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, got, CASES[i].out);
    }
}

static void test_fit(void **state)
{
    (void)state;
    /* MS_ESCAPED_LEN always holds the whole text. */
    char big[64];
    memset(big, 0x1b, sizeof big);
    char out[MS_ESCAPED_LEN(sizeof big)];
    ms_escape(big, sizeof big, out, sizeof out);
    assert_int_equal(strlen(out), 4 * sizeof big);
    /* Exactly filling the buffer is no cut; one more is, on a whole escape. */
    assert_string_equal(esc("abcdef", 6, 7), "abcdef");
    assert_string_equal(esc("abcdefg", 7, 7), "abc...");
    assert_string_equal(esc("ab\x1b"
                            "cdef",
                            7, 9),
                        "ab...");
    assert_string_equal(esc("ab\x1b", 3, 7), "ab\\x1b");
    assert_string_equal(esc("\xe2\x82\xac\xe2\x82\xac", 6, 7), "\xe2\x82\xac\xe2\x82\xac");
    assert_string_equal(esc("\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac", 9, 7), "\xe2\x82\xac...");
    assert_string_equal(esc("abcdef", 6, 3), "");
    assert_string_equal(esc("", 0, 1), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_escapes), cmocka_unit_test(test_fit)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
