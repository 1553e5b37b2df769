/* test_daemon_conns.c: the listeners' connection registry: a peer gets at most
 * peer-connections (root on the Unix socket excepted, other peers unaffected, room again
 * once one closes); a connection past its deadline is shut down by the watchdog however
 * recently it sent, one whose request is being answered is not. */
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conns.h"
#include "support.h"

static md_peer unix_peer(uint32_t uid) { return (md_peer){.uid = uid, .gid = uid}; }

/* Whether the other end of the pair sees the end within ms (the watchdog's shutdown). */
static bool ended(int fd, int ms)
{
    struct pollfd pf = {.fd = fd, .events = POLLIN};
    char c;
    return poll(&pf, 1, ms) == 1 && read(fd, &c, 1) == 0;
}

static void test_per_peer_limit(void **state)
{
    (void)state;
    md_conns *cs;
    ms_error e = {0};
    assert_int_equal(md_conns_new(16, 2, 60, &cs, &e), MS_OK);
    md_peer alice = unix_peer(1000), bob = unix_peer(1001), root = unix_peer(0);
    md_peer a1 = {.tcp = true, .addr = {[10] = 0xff, [11] = 0xff, 127, 0, 0, 2}};
    md_peer a2 = a1;
    a2.addr[15] = 3;
    md_conn *c1 = md_conns_add(cs, 10, &alice), *c2 = md_conns_add(cs, 11, &alice);
    assert_non_null(c1);
    assert_non_null(c2);
    assert_null(md_conns_add(cs, 12, &alice));
    md_peer alice_other_gid = alice;
    alice_other_gid.gid = 7;
    assert_null(md_conns_add(cs, 12, &alice_other_gid)); /* a uid is one peer */
    md_conn *b1 = md_conns_add(cs, 13, &bob);
    assert_non_null(b1);
    md_conn *r[3];
    for (int i = 0; i < 3; i++)
        assert_non_null(r[i] = md_conns_add(cs, 20 + i, &root));
    md_conn *t1 = md_conns_add(cs, 30, &a1), *t2 = md_conns_add(cs, 31, &a1);
    assert_non_null(t1);
    assert_non_null(t2);
    assert_null(md_conns_add(cs, 32, &a1));
    md_conn *t3 = md_conns_add(cs, 33, &a2);
    assert_non_null(t3);
    assert_int_equal(md_conn_peer(b1)->uid, 1001);
    md_conns_remove(cs, c1);
    md_conn *c3 = md_conns_add(cs, 12, &alice);
    assert_non_null(c3);
    md_conn *all[] = {c2, c3, b1, r[0], r[1], r[2], t1, t2, t3};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        md_conns_remove(cs, all[i]);
    md_conns_free(cs);
}

static void test_deadline(void **state)
{
    (void)state;
    md_conns *cs;
    ms_error e = {0};
    assert_int_equal(md_conns_new(4, 4, 0.3, &cs, &e), MS_OK);
    int slow[2], busy[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, slow), 0);
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, busy), 0);
    md_peer p = unix_peer(1000);
    md_conn *s = md_conns_add(cs, slow[0], &p), *b = md_conns_add(cs, busy[0], &p);
    assert_non_null(s);
    assert_non_null(b);
    assert_true(md_conns_left(cs, s) > 0);
    md_conns_deadline(cs, b, false); /* its request is being answered */
    /* The slow one keeps sending; that does not move its deadline. */
    for (int i = 0; i < 3; i++) {
        assert_int_equal(write(slow[1], "a", 1), 1);
        usleep(50000);
    }
    assert_true(ended(slow[1], 5000));
    assert_true(md_conns_left(cs, s) <= 0);
    assert_false(ended(busy[1], 500));
    assert_true(md_conns_left(cs, b) > 1e6);
    md_conns_deadline(cs, b, true); /* the next request's */
    assert_true(ended(busy[1], 5000));
    md_conns_remove(cs, s);
    md_conns_remove(cs, b);
    md_conns_free(cs);
    for (int i = 0; i < 2; i++) {
        close(slow[i]);
        close(busy[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_per_peer_limit),
        cmocka_unit_test(test_deadline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
