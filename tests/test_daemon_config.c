/* test_daemon_config.c: migschedd's configuration: the file format, flags over the file,
 * every error naming FILE:LINE or the flag, the rules between keys, SIGHUP's reloadable
 * keys and the effective configuration written back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_keys.h"
#include "tokens.h"
#include "support.h"

typedef struct fixture {
    char dir[256], conf[320], token[320];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    test_temp_dir("config", f->dir, sizeof f->dir);
    snprintf(f->conf, sizeof f->conf, "%s/migschedd.conf", f->dir);
    snprintf(f->token, sizeof f->token, "%s/token", f->dir);
    FILE *t = fopen(f->token, "w");
    fputs("root 0123456789abcdef0123456789abcdef\n", t);
    fclose(t);
    chmod(f->token, 0600);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    test_remove_dir(f->dir);
    free(f);
    return 0;
}

static void write_conf(const fixture *f, const char *text)
{
    FILE *out = fopen(f->conf, "w");
    assert_non_null(out);
    fputs(text, out);
    fclose(out);
}

/* Parses argv (NULL-terminated, argv[0] included) and checks; returns the status. */
static int run(md_config *c, ms_error *e, char **argv)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    int rc = md_config_from_args(c, argc, argv, e);
    return rc ? rc : md_config_check(c, e);
}

#define ARGS(...) ((char *[]){"migschedd", __VA_ARGS__, NULL})

static void test_file_and_flags(void **state)
{
    fixture *f = *state;
    char text[1024];
    snprintf(text, sizeof text,
             "# migschedd on a simulated node\n"
             "\n"
             "backend sim\n"
             "  gpu   A100-40GB  \n"
             "gpus 2\n"
             "listen unix:/tmp/a.sock\n"
             "listen tcp:127.0.0.1:8080\n"
             "token-file %s\n"
             "db /var/tmp/jobs db.sqlite\n"
             "mode batch\n"
             "batch-size 32\r\n"
             "log-level debug\n",
             f->token);
    write_conf(f, text);
    md_config c;
    ms_error e = {0};
    assert_int_equal(run(&c, &e, ARGS("--config", f->conf, "--gpus", "4", "--time-scale=60")),
                     MS_OK);
    assert_int_equal(c.backend, MD_SIM);
    assert_string_equal(c.gpu, "A100-40GB");
    assert_true(c.has_model);
    assert_string_equal(c.model.name, "A100-40GB");
    assert_int_equal(c.gpus, 4); /* the flag wins */
    assert_true(c.time_scale == 60);
    assert_int_equal(c.nlisten, 2);
    assert_int_equal(c.listen_metrics.port, 0); /* none unless named */
    assert_false(c.listen[0].tcp);
    assert_string_equal(c.listen[0].path, "/tmp/a.sock");
    assert_true(c.listen[1].tcp);
    assert_string_equal(c.listen[1].host, "127.0.0.1");
    assert_int_equal(c.listen[1].port, 8080);
    assert_string_equal(c.db, "/var/tmp/jobs db.sqlite"); /* the rest of the line */
    assert_int_equal(c.mode, MD_BATCH);
    assert_int_equal(c.batch_size, 32);
    assert_true(c.batch_period == 60); /* the default */
    assert_int_equal(c.log_level, MD_LOG_DEBUG);
    assert_int_equal(c.on_stop, MD_ON_STOP_WAIT);
    char where[400];
    snprintf(where, sizeof where, "%s:3", f->conf);
    assert_string_equal(c.where[MD_KEY_BACKEND], where);
    assert_string_equal(c.where[MD_KEY_ON_STOP], "");
    assert_string_equal(c.where[MD_KEY_GPUS], "--gpus");

    /* listen flags replace the file's listen lines (then collect). */
    assert_int_equal(run(&c, &e,
                         ARGS("--config", f->conf, "--listen", "unix:/tmp/b.sock", "--listen",
                              "tcp:[::1]:9000")),
                     MS_OK);
    assert_int_equal(c.nlisten, 2);
    assert_string_equal(c.listen[0].path, "/tmp/b.sock");
    assert_string_equal(c.listen[1].host, "::1");
    assert_int_equal(c.listen[1].port, 9000);

    /* Flags alone; the default socket when no listen is given. */
    assert_int_equal(
        run(&c, &e, ARGS("--backend", "nvml", "--devices", "0,3", "--on-stop", "requeue")), MS_OK);
    assert_int_equal(c.ndevices, 2);
    assert_int_equal(c.devices[1], 3);
    assert_false(c.has_model); /* nvml without gpu: the model comes from the device */
    assert_int_equal(c.nlisten, 1);
    assert_string_equal(c.listen[0].path, "/run/migschedd/migschedd.sock");
    assert_int_equal(c.on_stop, MD_ON_STOP_REQUEUE);
}

/* Each bad configuration (a file, then flags) and a fragment its message must contain;
 * "@" in the fragment stands for the config file's path. */
static const struct {
    const char *file;
    const char *flags[6];
    const char *msg;
} BAD[] = {
    {"backend sim\ngpu A30\ngpus 1\nport 80\n", {0}, "@:4: unknown key \"port\""},
    {"backend sim\ngpus\n", {0}, "@:2: gpus: missing value"},
    {"backend sim\nbackend nvml\n", {0}, "@:2: backend is already set at @:1"},
    {"backend cuda\n", {0}, "@:1: backend \"cuda\": expected nvml or sim"},
    {"allow-root-jobs yes\n", {0}, "@:1: allow-root-jobs \"yes\": expected true or false"},
    {"admin-group -wheel\n", {0}, "@:1: admin-group \"-wheel\": expected a user or group name"},
    {"slurm-user a/b\n", {0}, "@:1: slurm-user \"a/b\": expected a user or group name"},
    {"slurm-node a/b\n", {0}, "@:1: slurm-node \"a/b\": expected a node name"},
    {"isolation cgroup\n", {0}, "@:1: isolation \"cgroup\": expected devices or none"},
    {"user-queue-limit 0\n", {0}, "@:1: user-queue-limit \"0\": expected an integer"},
    {"user-queue-bytes 100\n", {0}, "@:1: user-queue-bytes \"100\": expected bytes"},
    {"peer-connections 257\n", {0}, "@:1: peer-connections \"257\": expected an integer 1..256"},
    {"request-timeout 0\n", {0}, "@:1: request-timeout \"0\": expected seconds above 0"},
    {"max-attempts 0\n", {0}, "@:1: max-attempts \"0\": expected an integer 1..1000"},
    {"retention -1\n", {0}, "@:1: retention \"-1\": expected seconds above 0"},
    {"gpus 0\n", {0}, "@:1: gpus \"0\": expected an integer 1..64"},
    {"gpus 2x\n", {0}, "@:1: gpus \"2x\": expected an integer"},
    {"devices 0,0\n", {0}, "@:1: devices \"0,0\": a device is listed twice"},
    {"devices 0,\n", {0}, "@:1: devices \"0,\": expected device indices"},
    {"devices a\n", {0}, "@:1: devices \"a\": expected device indices"},
    {"devices 64\n", {0}, "@:1: devices \"64\": expected device indices 0..63"},
    {"listen http://x\n", {0}, "@:1: listen \"http://x\": expected unix:PATH or tcp:"},
    {"listen tcp:10.0.0.1:80\n", {0}, "tcp listens only on a loopback address"},
    {"listen tcp:0.0.0.0:80\n", {0}, "tcp listens only on a loopback address"},
    {"listen tcp:127.0.0.1:0\n", {0}, "the port must be 1..65535"},
    {"listen tcp:127.0.0.1:99999\n", {0}, "the port must be 1..65535"},
    {"listen tcp:[::1:80\n", {0}, "expected [IPV6]:PORT"},
    {"listen-metrics 9400\n", {0}, "@:1: listen-metrics \"9400\": expected HOST:PORT"},
    {"listen-metrics tcp:0.0.0.0:0\n", {0}, "the port must be 1..65535"},
    {"listen-metrics [::1:80\n", {0}, "expected [IPV6]:PORT"},
    {"listen unix:\n", {0}, "the socket path must be 1 to 107 bytes"},
    {"listen unix:/a\nlisten unix:/b\nlisten unix:/c\nlisten unix:/d\nlisten unix:/e\n"
     "listen unix:/f\nlisten unix:/g\nlisten unix:/h\nlisten unix:/i\n",
     {0},
     "@:9: listen \"unix:/i\": more than 8 listen addresses"},
    {"mode fifo\n", {0}, "@:1: mode \"fifo\": expected online or batch"},
    {"time-scale 0\n", {0}, "@:1: time-scale \"0\": expected a number above 0"},
    {"time-scale nan\n", {0}, "@:1: time-scale \"nan\""},
    {"log-level loud\n", {0}, "@:1: log-level \"loud\": expected debug, info, warn or error"},
    {"on-stop kill\n", {0}, "@:1: on-stop \"kill\": expected wait or requeue"},
    {"batch-size -1\n", {0}, "@:1: batch-size \"-1\": expected an integer 1..100000"},
    {"batch-period 2e9\n", {0}, "@:1: batch-period \"2e9\": expected seconds above 0"},
    {"queue-limit 0\n", {0}, "@:1: queue-limit \"0\": expected an integer 1..100000000"},
    {"stop-grace -1\n", {0}, "@:1: stop-grace \"-1\": expected seconds above 0"},
    {"tau 1.5\n", {0}, "@:1: tau \"1.5\": expected a number above 0, at most 1"},
    {NULL, {"--gpu", "A30", "--frobnicate", "1"}, "unknown flag \"--frobnicate\""},
    {NULL, {"--gpus", "1", "--gpus", "2"}, "--gpus: gpus is already set at --gpus"},
    {NULL, {"--gpus"}, "--gpus: missing value"},
    {NULL, {"plan.json"}, "unexpected argument \"plan.json\""},
    {NULL, {"--config", "/nonexistent/migschedd.conf"}, "/nonexistent/migschedd.conf"},
    {NULL,
     {"--backend", "sim", "--gpus", "2"},
     "--backend: backend sim needs gpu MODEL and "
     "gpus N"},
    {"backend sim\ngpu A30\n", {0}, "@:1: backend sim needs gpu MODEL and gpus N"},
    {"backend sim\ngpu A30\ngpus 1\n",
     {"--devices", "0"},
     "--devices: devices is for backend "
     "nvml (backend sim at @:1)"},
    {"gpu A30\n", {0}, "the defaults: backend nvml needs devices"},
    {"devices 0\ngpus 2\n", {0}, "@:2: gpus is for backend sim"},
    {"devices 0\n", {"--time-scale", "10"}, "--time-scale: time-scale is for backend sim"},
    {"devices 0\nbatch-size 8\n", {0}, "@:2: batch-size goes with mode batch"},
    {"devices 0\nlisten tcp:127.0.0.1:8080\n",
     {0},
     "@:2: listen tcp:127.0.0.1:8080 needs a token-file"},
    {"devices 0\ntoken-file /nonexistent/token\n",
     {0},
     "@:2: token-file /nonexistent/token: No such file"},
    {"backend sim\ngpus 1\ngpu Z80\n", {0}, "@:3: gpu: "},
    {"devices 0\nsim-state /tmp/s.json\n", {0}, "@:2: sim-state is for backend sim"},
    {"backend sim\ngpus 17\ngpu A30-24GB\nsim-state /tmp/s.json\n",
     {0},
     "@:4: sim-state holds at most 16 GPUs (gpus is 17)"},
    {"backend sim\ngpus 1\ngpu " MIGSCHED_SOURCE_DIR
     "/tests/fuzz/seeds/fuzz_gpu_model/a30.json\nsim-state s\n",
     {0},
     "@:4: sim-state needs gpu to name a built-in model"},
};

static void test_errors(void **state)
{
    fixture *f = *state;
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        char *argv[12] = {"migschedd"};
        int argc = 1;
        if (BAD[i].file) {
            write_conf(f, BAD[i].file);
            argv[argc++] = "--config";
            argv[argc++] = f->conf;
        }
        for (int k = 0; k < 6 && BAD[i].flags[k]; k++)
            argv[argc++] = (char *)BAD[i].flags[k];
        /* The expected message with @ replaced by the file's path. */
        char want[600] = "";
        for (const char *p = BAD[i].msg; *p; p++)
            if (*p == '@')
                strcat(want, f->conf);
            else
                strncat(want, p, 1);
        md_config c;
        ms_error e = {0};
        int rc = run(&c, &e, argv);
        if (rc != MS_EINVAL && rc != MS_EIO)
            fail_msg("case %zu: status %d, expected an error \"%s\"", i, rc, want);
        if (!strstr(e.msg, want))
            fail_msg("case %zu: message \"%s\", expected \"%s\"", i, e.msg, want);
    }
}

static void write_token_file(const fixture *f, const char *text)
{
    FILE *t = fopen(f->token, "w");
    assert_non_null(t);
    fputs(text, t);
    fclose(t);
}

static void test_token_file_rules(void **state)
{
    fixture *f = *state;
    md_config c;
    ms_error e = {0};
    char text[600];
    snprintf(text, sizeof text,
             "devices 0\nlisten tcp:localhost:8080\ntoken-file %s\n"
             "db /tmp/x.db\n",
             f->token);
    write_conf(f, text);
    assert_int_equal(run(&c, &e, ARGS("--config", f->conf)), MS_OK);

    chmod(f->token, 0640);
    assert_int_equal(run(&c, &e, ARGS("--config", f->conf)), MS_EINVAL);
    assert_non_null(strstr(e.msg, "readable by group or others"));
    chmod(f->token, 0600);

    /* Comments, blank lines, tabs, CRLF; a user with two tokens. */
    write_token_file(f, "# operators\n\n  \t\nroot\t0123456789abcdef\r\n"
                        "  # rotated\nroot  fedcba9876543210fedcba9876543210  \n");
    assert_int_equal(run(&c, &e, ARGS("--config", f->conf)), MS_OK);

    /* Each error names the file and line (and never quotes the token). */
    static const struct {
        const char *text, *msg;
    } BAD_FILES[] = {
        {"0123456789abcdef0123\n", ":1: expected USER TOKEN"},
        {"# c\nroot 0123456789abcdef extra\n", ":2: expected USER TOKEN"},
        {"root\n", ":1: expected USER TOKEN"},
        {"root short\n", ":1: a token of 5 bytes: expected 16 to 4096"},
        {"root 0123456789abcd\x01"
         "ef\n",
         ":1: the token holds a byte that is not printable"},
        {"root 0123456789abcdef\n\nno-such-user-x7q 0123456789abcdeg\n",
         ":3: no local user \"no-such-user-x7q\""},
        {"root 0123456789abcdef\nroot 0123456789abcdeg\nroot 0123456789abcdef\n",
         ":3: the token of line 1 listed again"},
        {"# nothing\n\n", ": no token in it (expected USER TOKEN lines)"},
        {"", ": no token in it"},
    };
    for (size_t i = 0; i < sizeof BAD_FILES / sizeof *BAD_FILES; i++) {
        write_token_file(f, BAD_FILES[i].text);
        char want[400];
        snprintf(want, sizeof want, "token-file: %s%s", f->token, BAD_FILES[i].msg);
        if (run(&c, &e, ARGS("--config", f->conf)) != MS_EINVAL || !strstr(e.msg, want))
            fail_msg("case %zu: \"%s\", expected \"%s\"", i, e.msg, want);
        assert_null(strstr(e.msg, "0123456789abcd"));
    }
    char big[MD_TOKEN_MAX + 16] = "root ";
    memset(big + 5, 'x', MD_TOKEN_MAX + 1);
    big[5 + MD_TOKEN_MAX + 1] = '\0';
    write_token_file(f, big);
    assert_int_equal(run(&c, &e, ARGS("--config", f->conf)), MS_EINVAL);
    assert_non_null(strstr(e.msg, ":1: a token of 4097 bytes"));
}

static void test_reloadable_keys(void **state)
{
    (void)state;
    static const char *const live[] = {
        "token-file",   "time-scale",   "log-level",        "on-stop",         "batch-size",
        "batch-period", "batch-concat", "queue-limit",      "stop-grace",      "tau",
        "admin-group",  "slurm-user",   "user-queue-limit", "user-queue-bytes"};
    int nlive = 0;
    for (int k = 0; k < MD_NKEYS; k++) {
        assert_int_equal(md_key_parse(md_key_name(k)), k);
        bool want = false;
        for (size_t i = 0; i < sizeof live / sizeof *live; i++)
            want |= !strcmp(live[i], md_key_name(k));
        assert_int_equal(md_key_reloadable(k), want);
        nlive += want;
    }
    assert_int_equal(nlive, 14);
    assert_int_equal(md_key_parse("config"), -1);
}

/* Each integer key's bounds come from its row: hi is taken, hi + 1 refused by a message
 * naming lo..hi. */
static void test_integer_bounds_from_rows(void **state)
{
    (void)state;
    int checked = 0;
    for (int k = 0; k < MD_NKEYS; k++) {
        const md_key_row *row = &md_keys[k];
        if (row->kind != MD_VALUE_INT && row->kind != MD_VALUE_BYTES)
            continue;
        md_config c;
        md_config_defaults(&c);
        ms_error e = {0};
        char value[32], range[80];
        snprintf(value, sizeof value, "%.0f", row->hi);
        assert_int_equal(md_config_set(&c, row->name, value, "--x", &e), MS_OK);
        md_config_defaults(&c);
        snprintf(value, sizeof value, "%.0f", row->hi + 1);
        snprintf(range, sizeof range, " %.0f..%.0f", row->lo, row->hi);
        assert_int_equal(md_config_set(&c, row->name, value, "--x", &e), MS_EINVAL);
        if (!strstr(e.msg, range))
            fail_msg("%s: message \"%s\", expected \"%s\"", row->name, e.msg, range);
        checked++;
    }
    assert_int_equal(checked, 7);
}

static void test_reload_check(void **state)
{
    fixture *f = *state;
    md_config cur, next;
    ms_error e = {0};
    write_conf(f, "backend sim\ngpu A30\ngpus 2\nmode batch\nlog-level info\n");
    assert_int_equal(run(&cur, &e, ARGS("--config", f->conf)), MS_OK);
    write_conf(f, "backend sim\ngpu A30\ngpus 2\nmode batch\nlog-level debug\n"
                  "batch-size 4\ntime-scale 100\n");
    assert_int_equal(run(&next, &e, ARGS("--config", f->conf)), MS_OK);
    assert_int_equal(md_config_reload_check(&cur, &next, &e), MS_OK);

    write_conf(f, "backend sim\ngpu A30\ngpus 3\nmode batch\n");
    assert_int_equal(run(&next, &e, ARGS("--config", f->conf)), MS_OK);
    assert_int_equal(md_config_reload_check(&cur, &next, &e), MS_EINVAL);
    char want[400];
    snprintf(want, sizeof want, "%s:3: gpus cannot change while migschedd runs", f->conf);
    assert_non_null(strstr(e.msg, want));

    write_conf(f, "backend sim\ngpu A30\ngpus 2\nmode batch\nlisten unix:/tmp/other.sock\n");
    assert_int_equal(run(&next, &e, ARGS("--config", f->conf)), MS_OK);
    assert_int_equal(md_config_reload_check(&cur, &next, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "listen cannot change"));
}

/* The effective configuration, written and read back, is the same configuration. */
/* listen-metrics takes any address and needs no token file: it serves /metrics alone. */
static void test_listen_metrics(void **state)
{
    (void)state;
    md_config c;
    ms_error e = {0};
    assert_int_equal(run(&c, &e,
                         ARGS("--backend", "sim", "--gpu", "A30", "--gpus", "1", "--listen",
                              "unix:/tmp/m.sock", "--listen-metrics", "0.0.0.0:9400")),
                     MS_OK);
    assert_int_equal(c.nlisten, 1);
    assert_true(c.listen_metrics.tcp && c.listen_metrics.metrics_only);
    assert_string_equal(c.listen_metrics.host, "0.0.0.0");
    assert_int_equal(c.listen_metrics.port, 9400);
    assert_string_equal(c.listen_metrics.where, "--listen-metrics");
    assert_int_equal(run(&c, &e,
                         ARGS("--backend", "sim", "--gpu", "A30", "--gpus", "1", "--listen-metrics",
                              "[fd00::7]:9400")),
                     MS_OK);
    assert_string_equal(c.listen_metrics.host, "fd00::7");
    assert_false(c.listen[0].metrics_only); /* the default socket stays the API's */
}

static void test_write_round_trip(void **state)
{
    fixture *f = *state;
    md_config c, back;
    ms_error e = {0};
    assert_int_equal(
        run(&c, &e,
            ARGS("--backend", "sim", "--gpu", "H100", "--gpus", "3", "--listen", "unix:/tmp/x.sock",
                 "--listen", "tcp:[::1]:7000", "--listen-metrics", "[::]:9400", "--token-file",
                 f->token, "--mode", "batch", "--batch-period", "2.5", "--time-scale", "0.125",
                 "--slurm-reconcile", "0", "--hpc-job-mapping-dir", "/run/dcgm-map")),
        MS_OK);
    char *text;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    md_config_write(&c, out);
    fclose(out);
    char want[2048];
    snprintf(
        want, sizeof want,
        "backend sim\ngpu H100\ngpus 3\nlisten unix:/tmp/x.sock\nlisten tcp:[::1]:7000\n"
        "listen-metrics [::]:9400\ntoken-file %s\ndb /tmp/x.sock.db\ninit-store false\nmode batch\n"
        "time-scale 0.125\nlog-level info\non-stop wait\nbatch-size 16\n"
        "batch-period 2.5\nbatch-concat overlap\nqueue-limit 100000\nstop-grace 10\n"
        "tau 0.4\nlog-dir /var/log/migschedd\nslurm-reconcile 0\nslurm-gres migslice\n"
        "hpc-job-mapping-dir /run/dcgm-map\nallow-root-jobs false\nadmin-group none\n"
        "slurm-user slurm\nisolation devices\ndev-dir /dev\n"
        "mig-minors /proc/driver/nvidia-caps/mig-minors\nuser-queue-limit 10000\n"
        "user-queue-bytes 16777216\npeer-connections 32\nrequest-timeout 10\n"
        "max-attempts 3\nretention 604800\nslurm-node none\n"
        "slurm-admin-comment true\nslurm-sync 10\n",
        f->token);
    assert_string_equal(text, want);
    write_conf(f, text);
    assert_int_equal(run(&back, &e, ARGS("--config", f->conf)), MS_OK);
    assert_int_equal(md_config_reload_check(&c, &back, &e), MS_OK);
    char *text2;
    out = open_memstream(&text2, &len);
    md_config_write(&back, out);
    fclose(out);
    assert_string_equal(text, text2);
    free(text);
    free(text2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_file_and_flags, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_token_file_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reloadable_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_integer_bounds_from_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reload_check, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listen_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_write_round_trip, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
