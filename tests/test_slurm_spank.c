/* test_slurm_spank.c: the SPANK plugin without Slurm: its plugstack.conf arguments, --mig's
 * value made the allocation request's body, and the retry policy of its requests (which
 * failures are retried, the backoff's cap, the deadline), also against a stand-in for
 * migschedd on a Unix socket. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "spank_args.h"
#include "spank_client.h"
#include "spank_mig_check.h"
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
    assert_int_equal(c.requeue_exit, 0);
    char *ok[] = {"socket=/tmp/m.sock",     "timeout=2.5",    "isolation=none", "dev_dir=/tmp/dev",
                  "mig_minors=/tmp/minors", "requeue_exit=75"};
    assert_int_equal(msp_parse_args(6, ok, &c, err, sizeof err), 0);
    assert_int_equal(c.requeue_exit, 75);
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
                       "isolation=devices|none, dev_dir=PATH, mig_minors=PATH, requeue_exit=N, "
                       "gpu_model=NAME[,NAME...])"},
        {"gpu_model=V100", "gpu_model=V100: unknown GPU model \"V100\" (built-in: A30-24GB, "
                           "A100-40GB, A100-80GB, H100-80GB, H200-141GB, B200)"},
        {"gpu_model=", "gpu_model=: expected gpu_model=NAME[,NAME...]"},
        {"gpu_model=,", "expected gpu_model=NAME[,NAME...]"},
        {"isolation=cgroup", "isolation=cgroup: expected isolation=devices or isolation=none"},
        {"dev_dir=dev", "dev_dir=dev: expected an absolute path"},
        {"mig_minors=", "mig_minors=: expected an absolute path"},
        {"requeue_exit=0", "requeue_exit=0: expected an exit status 1..255"},
        {"requeue_exit=256", "expected an exit status 1..255"},
        {"requeue_exit=7x", "expected an exit status 1..255"},
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
    assert_string_equal(body, "{\"slices\": 3}"); /* untouched by a refusal */
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

/* What a restarting migschedd gives is retried; an answer of its own is final. */
static void test_retry_reason(void **state)
{
    (void)state;
    assert_string_equal(msp_retry_reason(0, ECONNREFUSED, false), "connection refused");
    assert_string_equal(msp_retry_reason(0, ENOENT, false), "no socket file");
    assert_string_equal(msp_retry_reason(503, 0, false), "migschedd is stopping (HTTP 503)");
    assert_string_equal(msp_retry_reason(0, 0, true),
                        "migschedd closed the connection without a reply");
    static const long FINAL[] = {400, 403, 404, 409, 429, 500};
    for (size_t i = 0; i < sizeof FINAL / sizeof *FINAL; i++)
        assert_null(msp_retry_reason(FINAL[i], 0, false));
    assert_null(msp_retry_reason(0, 0, false)); /* a timeout */
    assert_null(
        msp_retry_reason(0, EACCES, false)); /* the socket's mode: waiting changes nothing */
}

/* Pauses double from 0.1 s to the 2 s cap; the last is cut at the deadline, then none. */
static void test_backoff(void **state)
{
    (void)state;
    msp_backoff b;
    msp_backoff_init(&b, 100, 10);
    static const double WANT[] = {0.1, 0.2, 0.4, 0.8, 1.6, 2, 2, 2};
    double now = 100;
    for (size_t i = 0; i < sizeof WANT / sizeof *WANT; i++) {
        double w = msp_backoff_next(&b, now);
        assert_near(w, WANT[i], 1e-12);
        now += w;
    }
    assert_near(now, 109.1, 1e-9);
    assert_near(msp_backoff_next(&b, now), 0.9, 1e-9); /* up to the deadline only */
    assert_true(msp_backoff_next(&b, 110) < 0);
    assert_true(msp_backoff_next(&b, 250) < 0);
    msp_backoff_init(&b, 5, 0.05);
    assert_near(msp_backoff_next(&b, 5), 0.05, 1e-12);
}

/* A stand-in for migschedd: answers each connection with the next of its replies; a reply
 * of status 0 closes the connection unanswered, as a migschedd killed mid-request does. */
typedef struct stand_in {
    int fd;
    const char *const *replies; /* "STATUS BODY" each */
    int n, served;
    pthread_t thread;
} stand_in;

static void *serve(void *arg)
{
    stand_in *s = arg;
    for (; s->served < s->n; s->served++) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0)
            break;
        char req[4096];
        size_t got = 0;
        ssize_t k;
        /* Requests here have no body but the PUT's short one, sent with the headers. */
        while (got < sizeof req - 1 && (k = read(c, req + got, sizeof req - 1 - got)) > 0) {
            got += (size_t)k;
            req[got] = '\0';
            char *end = strstr(req, "\r\n\r\n");
            const char *cl = strstr(req, "Content-Length: ");
            if (end && (!cl || strlen(end + 4) >= (size_t)atoi(cl + 16)))
                break;
        }
        int status = atoi(s->replies[s->served]);
        const char *body = strchr(s->replies[s->served], ' ') + 1;
        if (!status) {
            close(c);
            continue;
        }
        char out[1024];
        int len = snprintf(out, sizeof out,
                           "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                           "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                           status, strlen(body), body);
        ssize_t w = write(c, out, (size_t)len);
        close(c);
        if (w != len)
            break; /* the client's assertions then say what is missing */
    }
    return NULL;
}

/* Binds path; listens (with a thread serving replies) only when replies are given, so
 * that without them a connection is refused. */
static void stand_in_start(stand_in *s, const char *path, const char *const *replies, int n)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    unlink(path);
    *s = (stand_in){.fd = socket(AF_UNIX, SOCK_STREAM, 0), .replies = replies, .n = n};
    assert_true(s->fd >= 0 && bind(s->fd, (struct sockaddr *)&a, sizeof a) == 0);
    if (n) {
        assert_int_equal(listen(s->fd, 8), 0);
        assert_int_equal(pthread_create(&s->thread, NULL, serve, s), 0);
    }
}

static void stand_in_stop(stand_in *s, const char *path)
{
    shutdown(s->fd, SHUT_RDWR); /* wakes the thread's accept when the client asked less */
    if (s->n)
        pthread_join(s->thread, NULL);
    close(s->fd);
    unlink(path);
}

static int notes;
static char last_note[256];
static void count_note(const char *msg)
{
    notes++;
    snprintf(last_note, sizeof last_note, "%s", msg);
}

static void stand_in_conf(msp_conf *c, const char *path, double timeout)
{
    char err[256];
    assert_int_equal(msp_parse_args(0, NULL, c, err, sizeof err), 0);
    assert_null(c->note);
    snprintf(c->socket, sizeof c->socket, "%s", path);
    c->timeout = timeout;
    c->note = count_note;
    notes = 0;
}

#define RUNNING                                                         \
    "200 {\"id\": 7, \"state\": \"running\", \"mig_uuid\": \"MIG-x\", " \
    "\"profile\": \"2g.10gb\", \"gpu\": 1}"

/* 503 while stopping, a connection closed unanswered, a queued allocation and one whose
 * AdminComment is being set are waited out; a refusal is final at once. */
static void test_stand_in_replies(void **state)
{
    (void)state;
    char path[64], err[1024];
    snprintf(path, sizeof path, "/tmp/msp-test-%ld.sock", (long)getpid());
    msp_conf c;
    stand_in s;
    msp_instance in;
    static const char *const STOPPING[] = {
        "503 {\"error\": \"migschedd is stopping: no new allocations\"}",
        "503 {\"error\": \"migschedd is stopping: no new allocations\"}",
        "200 {\"id\": 7, \"state\": \"queued\"}", RUNNING};
    stand_in_start(&s, path, STOPPING, 4);
    stand_in_conf(&c, path, 30);
    assert_int_equal(msp_acquire(&c, 12, 0, "{\"slices\": 2}", &in, err, sizeof err), 0);
    stand_in_stop(&s, path);
    assert_int_equal(s.served, 4);
    assert_int_equal(notes, 2); /* once per retry, not for the queued wait */
    assert_string_equal(last_note, "job 12: PUT /v1/allocations/12/steps/0: migschedd is "
                                   "stopping (HTTP 503); retrying in 0.2 s");
    assert_string_equal(in.mig_uuid, "MIG-x");
    assert_int_equal(in.allocation, 7);

    /* Placed, its AdminComment not yet set: the task waits for it. */
    static const char *const COMMENTING[] = {
        "200 {\"id\": 7, \"state\": \"running\", \"mig_uuid\": \"MIG-x\", "
        "\"profile\": \"2g.10gb\", \"gpu\": 1, \"comment_pending\": true}",
        "200 {\"id\": 7, \"state\": \"running\", \"mig_uuid\": \"MIG-x\", "
        "\"profile\": \"2g.10gb\", \"gpu\": 1, \"comment_pending\": false}"};
    stand_in_start(&s, path, COMMENTING, 2);
    stand_in_conf(&c, path, 30);
    assert_int_equal(msp_acquire(&c, 12, 0, "{\"slices\": 2}", &in, err, sizeof err), 0);
    stand_in_stop(&s, path);
    assert_int_equal(s.served, 2);
    assert_int_equal(notes, 0);

    static const char *const CONFLICT[] = {"409 {\"error\": \"holds an allocation of 3g\"}"};
    stand_in_start(&s, path, CONFLICT, 1);
    stand_in_conf(&c, path, 30);
    assert_int_equal(msp_acquire(&c, 12, 1, "{\"slices\": 2}", &in, err, sizeof err), -1);
    stand_in_stop(&s, path);
    assert_int_equal(notes, 0);
    assert_string_equal(err, "holds an allocation of 3g (HTTP 409)");

    /* Accepted but never placed: the timeout is told apart from a refusal (the plugin
     * turns it into requeue_exit's status). */
    static const char *const QUEUED[] = {
        "200 {\"id\": 7, \"state\": \"queued\"}", "200 {\"id\": 7, \"state\": \"queued\"}",
        "200 {\"id\": 7, \"state\": \"queued\"}", "200 {\"id\": 7, \"state\": \"queued\"}",
        "200 {\"id\": 7, \"state\": \"queued\"}", "200 {\"id\": 7, \"state\": \"queued\"}",
        "200 {\"id\": 7, \"state\": \"queued\"}", "200 {\"id\": 7, \"state\": \"queued\"}"};
    stand_in_start(&s, path, QUEUED, 8);
    stand_in_conf(&c, path, 0.05);
    assert_int_equal(msp_acquire(&c, 12, 2, "{\"slices\": 2}", &in, err, sizeof err),
                     MSP_STILL_QUEUED);
    stand_in_stop(&s, path);
    assert_true(s.served >= 2 && s.served < 8);
    assert_non_null(strstr(err, "no MIG instance for job 12 within 0.05 s (its allocation is "
                                "still queued"));

    /* Killed mid-request: every request of the plugin is idempotent, so it is sent again. */
    static const char *const KILLED[] = {"0 ", RUNNING};
    stand_in_start(&s, path, KILLED, 2);
    stand_in_conf(&c, path, 30);
    assert_int_equal(msp_acquire(&c, 12, 2, "{\"slices\": 2}", &in, err, sizeof err), 0);
    stand_in_stop(&s, path);
    assert_int_equal(notes, 1);
    assert_string_equal(last_note, "job 12: PUT /v1/allocations/12/steps/2: migschedd closed the "
                                   "connection without a reply; retrying in 0.1 s");

    static const char *const RELEASED[] = {"503 {\"error\": \"migschedd is stopping\"}",
                                           "404 {\"error\": \"Slurm job 12 holds no allocation\"}"};
    stand_in_start(&s, path, RELEASED, 2);
    stand_in_conf(&c, path, 30);
    assert_int_equal(msp_release(&c, 12, 0, 0, err, sizeof err), 0);
    stand_in_stop(&s, path);
    assert_int_equal(notes, 1);
}

/* Nothing listening, or no socket file: retried until the timeout, then the last reason
 * and the time waited are named. */
static void test_stand_in_down(void **state)
{
    (void)state;
    char path[64], err[1024];
    snprintf(path, sizeof path, "/tmp/msp-test-%ld.sock", (long)getpid());
    msp_conf c;
    stand_in s;
    stand_in_start(&s, path, NULL, 0); /* bound, not listening: refused */
    stand_in_conf(&c, path, 0.35);
    assert_int_equal(msp_release(&c, 3, 0, 1, err, sizeof err), -1);
    stand_in_stop(&s, path);
    assert_true(notes >= 2); /* 0.1, 0.2, then what is left of 0.35 s */
    assert_non_null(strstr(last_note, "job 3: DELETE /v1/allocations/3: connection refused; "
                                      "retrying in "));
    assert_non_null(strstr(err, "cannot reach migschedd at unix:"));
    assert_non_null(strstr(err, "(connection refused; gave up after "));
    assert_non_null(strstr(err, " s, the plugin's timeout)"));

    stand_in_conf(&c, path, 0.35); /* the socket file is gone */
    msp_instance in;
    assert_int_equal(msp_acquire(&c, 3, 0, "{\"slices\": 1}", &in, err, sizeof err), -1);
    assert_true(notes >= 2);
    assert_non_null(strstr(err, "(no socket file; gave up after "));
}

/* gpu_model=: names as migsched spells them, each once, over repeated arguments; --mig
 * checked against them (any model that has it will do), the refusal listing every model's
 * sizes and profiles; no model: nothing checked here. */
static void test_mig_check(void **state)
{
    (void)state;
    msp_conf c;
    char err[1024];
    assert_int_equal(msp_parse_args(0, NULL, &c, err, sizeof err), 0);
    assert_int_equal(c.nmodels, 0);
    assert_int_equal(msp_check_mig(&c, "5", err, sizeof err), 0);
    char *one[] = {"gpu_model=a100"};
    assert_int_equal(msp_parse_args(1, one, &c, err, sizeof err), 0);
    assert_int_equal(c.nmodels, 1);
    assert_string_equal(c.models[0], "A100-40GB");
    assert_int_equal(msp_check_mig(&c, "3", err, sizeof err), 0);
    assert_int_equal(msp_check_mig(&c, "3g.20gb", err, sizeof err), 0);
    assert_int_equal(msp_check_mig(&c, "5", err, sizeof err), -1);
    assert_string_equal(err, "--mig=5: no GPU model of this cluster has an instance of 5 compute "
                             "slices; valid: A100-40GB: 1, 2, 3, 4, 7 or a profile 1g.5gb, "
                             "1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb");
    assert_int_equal(msp_check_mig(&c, "3g.40gb", err, sizeof err), -1);
    assert_non_null(strstr(err, "--mig=3g.40gb: no GPU model of this cluster has the profile "
                                "3g.40gb; valid: A100-40GB: "));
    char *two[] = {"gpu_model=A30-24GB,A100-80GB", "gpu_model=A30-24GB"};
    assert_int_equal(msp_parse_args(2, two, &c, err, sizeof err), 0);
    assert_int_equal(c.nmodels, 2);
    assert_int_equal(msp_check_mig(&c, "7", err, sizeof err), 0);      /* the A100's */
    assert_int_equal(msp_check_mig(&c, "1g.6gb", err, sizeof err), 0); /* the A30's */
    assert_int_equal(msp_check_mig(&c, "3g.20gb", err, sizeof err), -1);
    assert_string_equal(err, "--mig=3g.20gb: no GPU model of this cluster has the profile "
                             "3g.20gb; valid: A30-24GB: 1, 2, 4 or a profile 1g.6gb, 2g.12gb, "
                             "4g.24gb; A100-80GB: 1, 2, 3, 4, 7 or a profile 1g.10gb, 1g.20gb, "
                             "2g.20gb, 3g.40gb, 4g.40gb, 7g.80gb");
    assert_int_equal(msp_check_mig(&c, "6", err, sizeof err), -1);
    char small[32];
    assert_int_equal(msp_check_mig(&c, "6", small, sizeof small), -1); /* cut short, ended */
    assert_int_equal(strlen(small), sizeof small - 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_args),         cmocka_unit_test(test_mig),
        cmocka_unit_test(test_mig_check),    cmocka_unit_test(test_retry_reason),
        cmocka_unit_test(test_backoff),      cmocka_unit_test(test_stand_in_replies),
        cmocka_unit_test(test_stand_in_down)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
