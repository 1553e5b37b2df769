/* test_daemon_tokens.c: a bearer token authenticates as the user its line names, and
 * nothing but a whole token does (a prefix, a longer guess, one byte off, another line's
 * user); a user may hold several tokens. */
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "tokens.h"

#define T_ROOT  "0123456789abcdef0123456789abcdef"
#define T_ROOT2 "root-second-token-abcdefghij"
#define T_BIN   "binbinbinbinbinbin0123"

static void test_match(void **state)
{
    (void)state;
    char dir[256], path[320];
    test_temp_dir("tokens", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/tokens", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("root " T_ROOT "\nbin " T_BIN "\nroot " T_ROOT2 "\n", f);
    fclose(f);
    md_tokens *t;
    ms_error e = {0};
    assert_int_equal(md_tokens_read(path, &t, &e), MS_OK);
    assert_int_equal(md_tokens_count(t), 3);
    const struct passwd *bin = getpwnam("bin");
    assert_non_null(bin);
    uid_t bin_uid = bin->pw_uid;
    gid_t bin_gid = bin->pw_gid;

    md_user u;
    assert_true(md_tokens_match(t, T_ROOT, strlen(T_ROOT), &u));
    assert_int_equal(u.uid, 0);
    assert_string_equal(u.name, "root");
    assert_true(md_tokens_match(t, T_BIN, strlen(T_BIN), &u));
    assert_int_equal(u.uid, bin_uid);
    assert_int_equal(u.gid, bin_gid);
    assert_string_equal(u.name, "bin");
    assert_true(md_tokens_match(t, T_ROOT2, strlen(T_ROOT2), &u));
    assert_int_equal(u.uid, 0);

    static const char *const WRONG[] = {"",
                                        "0",
                                        "0123456789abcdef",
                                        T_ROOT "0",
                                        "1123456789abcdef0123456789abcdef",
                                        "0123456789abcdef0123456789abcdeF",
                                        "bin " T_BIN};
    for (size_t i = 0; i < sizeof WRONG / sizeof *WRONG; i++) {
        u.uid = 4242;
        if (md_tokens_match(t, WRONG[i], strlen(WRONG[i]), &u))
            fail_msg("\"%s\" matched", WRONG[i]);
        assert_int_equal(u.uid, 4242); /* untouched */
    }
    /* The guess's length is what the header carries, not up to a NUL. */
    assert_false(md_tokens_match(t, T_ROOT, strlen(T_ROOT) - 1, &u));
    md_tokens_free(t);
    test_remove_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_match)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
