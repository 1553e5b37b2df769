/* test_cli_client_conf.c: the client configuration file: key = value lines with blanks
 * and comments around them, "~/" in token-file, an absent file setting nothing; each bad
 * line refused naming the file and its line (counted over blank and comment lines); and
 * the file's place, $XDG_CONFIG_HOME before ~/.config. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/client_conf.h"
#include "support.h"

static char dir[] = "/tmp/test_client_conf.XXXXXX";
static char path[256];

static int read_text(const char *text, ms_client_conf *c, ms_error *err)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return ms_client_conf_read(path, c, err);
}

static void test_good_file(void **state)
{
    (void)state;
    ms_client_conf c;
    ms_error err;
    setenv("HOME", "/home/alice", 1);
    assert_int_equal(read_text("# the node's daemon\n\n  connect =  http://127.0.0.1:8080 \n"
                               "token-file=~/.migsched-token\r\n\t# late\ntimeout = 2.5\n",
                               &c, &err),
                     MS_OK);
    assert_string_equal(c.connect, "http://127.0.0.1:8080");
    assert_string_equal(c.token_file, "/home/alice/.migsched-token");
    assert_near(c.timeout, 2.5, 0);
    assert_int_equal(read_text("", &c, &err), MS_OK);
    assert_string_equal(c.connect, "");
    unlink(path);
    assert_int_equal(ms_client_conf_read(path, &c, &err), MS_OK);
    assert_string_equal(c.token_file, "");
    assert_true(c.timeout == 0);
}

static void test_bad_lines(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg; /* msg follows "PATH:" */
    } CASES[] = {
        {"# c\n\nconect = unix:/x\n", "3: unknown key \"conect\" (connect, token-file, timeout)"},
        {"connect unix:/x\n", "1: expected key = value"},
        {"connect = \n", "1: connect: no value"},
        {"connect = unix:\n", "1: connect: expected unix:PATH or http://127.0.0.1:PORT"},
        {"connect = tcp:127.0.0.1:1\n", "1: connect: expected unix:PATH"},
        {"timeout = 1\n\ntimeout = 2\n", "3: timeout is set twice"},
        {"timeout = -1\n", "1: timeout: expected seconds in (0, 86400], not \"-1\""},
        {"timeout = 5s\n", "1: timeout: expected seconds"},
        {"token-file = tok\n", "1: token-file: expected an absolute path or ~/PATH"},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
        ms_client_conf c;
        ms_error err;
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fwrite(CASES[i].text, 1, strlen(CASES[i].text), f);
        fclose(f);
        assert_int_not_equal(ms_client_conf_read(path, &c, &err), MS_OK);
        char want[512];
        snprintf(want, sizeof want, "%s:%s", path, CASES[i].msg);
        if (strncmp(err.msg, want, strlen(want)))
            fail_msg("case %zu: \"%s\", expected it to begin \"%s\"", i, err.msg, want);
    }
    ms_client_conf c;
    ms_error err;
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite("a\0b = c\n", 1, 8, f);
    fclose(f);
    assert_int_not_equal(ms_client_conf_read(path, &c, &err), MS_OK);
    assert_non_null(strstr(err.msg, "NUL byte"));
}

static void test_path(void **state)
{
    (void)state;
    char p[MS_CLIENT_PATH_LEN];
    setenv("HOME", "/home/bob", 1);
    setenv("XDG_CONFIG_HOME", "/etc/xdg-bob", 1);
    assert_true(ms_client_conf_path(p, sizeof p));
    assert_string_equal(p, "/etc/xdg-bob/migsched/client.conf");
    setenv("XDG_CONFIG_HOME", "relative", 1); /* ignored, as the XDG rule says */
    assert_true(ms_client_conf_path(p, sizeof p));
    assert_string_equal(p, "/home/bob/.config/migsched/client.conf");
    unsetenv("XDG_CONFIG_HOME");
    assert_true(ms_client_conf_path(p, sizeof p));
    assert_string_equal(p, "/home/bob/.config/migsched/client.conf");
    unsetenv("HOME");
    assert_false(ms_client_conf_path(p, sizeof p));
}

int main(void)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/client.conf", dir);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_good_file),
                                       cmocka_unit_test(test_bad_lines),
                                       cmocka_unit_test(test_path)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    unlink(path);
    rmdir(dir);
    return rc;
}
