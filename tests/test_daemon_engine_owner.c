/* test_daemon_engine_owner.c: the engine starts a job as its owner (ei_spawn, as root; the
 * tests skip otherwise): a throwaway user's job prints that user's uid, gets their HOME and
 * a clean environment without the daemon's variables, runs in their HOME, and writes
 * files of theirs at mode 0600 in their own folder of log-dir; a job of root's is refused
 * unless allow-root-jobs; an owner without a passwd entry, or a setgroups that fails, runs
 * nothing; a link or a FIFO planted at an output's name redirects nothing, and an owner's
 * folder that is a link or writable by others is refused. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "engine_internal.h"
#include "migsched/io.h"
#include "migsched/process.h"
#include "support.h"

typedef struct owner_fixture {
    char dir[256], logs[320], user[32];
    md_config c;
    md_engine *e;
    md_job_owner owner; /* the throwaway user */
    char home[256];
} owner_fixture;

static int setup_owner(void **state)
{
    if (geteuid() != 0) {
        *state = NULL;
        return 0;
    }
    owner_fixture *f = calloc(1, sizeof *f);
    test_temp_dir("owner", f->dir, sizeof f->dir);
    snprintf(f->logs, sizeof f->logs, "%s/logs", f->dir);
    assert_int_equal(mkdir(f->logs, 0750), 0);
    snprintf(f->user, sizeof f->user, "msown%d", (int)getpid() % 100000);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "useradd -m -U -s /bin/sh %s", f->user);
    assert_int_equal(system(cmd), 0);
    struct passwd *pw = getpwnam(f->user);
    assert_non_null(pw);
    f->owner = (md_job_owner){.uid = pw->pw_uid, .gid = pw->pw_gid};
    snprintf(f->owner.name, sizeof f->owner.name, "%s", f->user);
    snprintf(f->home, sizeof f->home, "%s", pw->pw_dir);
    md_config_defaults(&f->c);
    snprintf(f->c.log_dir, sizeof f->c.log_dir, "%s", f->logs);
    f->c.isolation = MD_ISOLATION_NONE; /* no GPU here: test_exec_isolate covers confinement */
    f->e = calloc(1, sizeof *f->e);     /* only what ei_spawn reads: no journal, GPU 0 */
    f->e->c = &f->c;
    f->e->ngpus = 1;
    *state = f;
    return 0;
}

static int teardown_owner(void **state)
{
    owner_fixture *f = *state;
    if (!f)
        return 0;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "userdel -r %s 2>/dev/null", f->user);
    if (system(cmd) != 0)
        fprintf(stderr, "userdel %s failed\n", f->user);
    test_remove_dir(f->dir);
    free(f->e);
    free(f);
    return 0;
}

#define NEED_ROOT(f) \
    do {             \
        if (!(f))    \
            skip();  \
    } while (0)

/* A running copy of job id owned by owner, running argv (JSON) with extra spec keys. */
static ei_run job(int64_t id, md_job_owner owner, const char *argv, const char *extra)
{
    char text[1024];
    snprintf(text, sizeof text,
             "{\"name\": \"j\", \"command\": %s, \"profile\": \"1g.6gb\", "
             "\"seconds\": 1%s%s}",
             argv, extra ? ", " : "", extra ? extra : "");
    ei_run r = {.job = {.id = id, .owner = owner, .attempts = 1}};
    ms_error e = {0};
    if (md_job_spec_parse(text, strlen(text), ms_gpu_builtin("A30-24GB"), &r.job.spec, &e))
        fail_msg("%s", e.msg);
    return r;
}

/* Starts r and waits for it: its exit status (ei_spawn's when no process started). */
static int run_job(owner_fixture *f, ei_run *r, int *spawn_rc, ms_error *e)
{
    *spawn_rc = ei_spawn(f->e, r, "MIG-00000000-1111-2222-3333-444444444444", e);
    int status = r->exit_status;
    if (r->pid > 0) {
        int ws;
        assert_int_equal(waitpid(r->pid, &ws, 0), r->pid);
        status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    }
    md_job_spec_free(&r->job.spec);
    return status;
}

static char *output(owner_fixture *f, const ei_run *r, const char *ext, struct stat *st)
{
    char path[MD_PATH_LEN + 128], *text = NULL;
    size_t len;
    ms_error e = {0};
    assert_int_equal(md_job_log_path(f->logs, &r->job, 1, ext, path, sizeof path, &e), MS_OK);
    if (st)
        assert_int_equal(lstat(path, st), 0);
    assert_int_equal(ms_read_file(path, &text, &len, &e), MS_OK);
    return text;
}

static bool exists(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static void test_runs_as_owner(void **state)
{
    owner_fixture *f = *state;
    NEED_ROOT(f);
    setenv("MIGSCHED_CANARY", "the daemon's", 1);
    ei_run r = job(7, f->owner,
                   "[\"sh\", \"-c\", \"id -u; id -g; echo $HOME $USER $LOGNAME "
                   "$SHELL; echo $PATH; echo ${MIGSCHED_CANARY-none}; echo $GREETING "
                   "$CUDA_VISIBLE_DEVICES; pwd\"]",
                   "\"env\": {\"GREETING\": \"hi\"}");
    ms_error e = {0};
    int rc;
    assert_int_equal(run_job(f, &r, &rc, &e), 0);
    assert_int_equal(rc, MS_OK);
    unsetenv("MIGSCHED_CANARY");
    struct stat st;
    char *text = output(f, &r, "out", &st), want[1024];
    snprintf(want, sizeof want,
             "%u\n%u\n%s %s %s /bin/sh\n/usr/local/bin:/usr/bin:/bin\nnone\n"
             "hi MIG-00000000-1111-2222-3333-444444444444\n%s\n",
             (unsigned)f->owner.uid, (unsigned)f->owner.gid, f->home, f->user, f->user, f->home);
    assert_string_equal(text, want);
    free(text);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_uid, f->owner.uid);
    assert_int_equal(st.st_mode & 07777, 0600);
    char folder[400];
    snprintf(folder, sizeof folder, "%s/%s", f->logs, f->user);
    assert_int_equal(lstat(folder, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_uid, f->owner.uid);
    assert_int_equal(st.st_mode & 07777, 0700);
}

static void test_root_refused(void **state)
{
    owner_fixture *f = *state;
    NEED_ROOT(f);
    char argv[400];
    snprintf(argv, sizeof argv, "[\"touch\", \"%s/ran\"]", f->dir);
    md_job_owner root = {.uid = 0, .gid = 0, .name = "root"};
    ei_run r = job(8, root, argv, NULL);
    ms_error e = {0};
    int rc;
    assert_int_equal(run_job(f, &r, &rc, &e), MS_EXEC_EXIT_IDENTITY);
    assert_int_not_equal(rc, MS_OK);
    assert_false(r.node_fault); /* the job's own fault: it fails */
    assert_int_equal(r.pid, 0);
    assert_false(exists(f->dir, "ran"));
    char *text = output(f, &r, "err", NULL);
    assert_non_null(strstr(text, "job 8 would run as root (uid 0): refused"));
    free(text);
    f->c.allow_root_jobs = true; /* the operator allows it */
    r = job(9, root, argv, NULL);
    assert_int_equal(run_job(f, &r, &rc, &e), 0);
    assert_true(exists(f->dir, "ran"));
}

static void test_no_passwd_entry(void **state)
{
    owner_fixture *f = *state;
    NEED_ROOT(f);
    char argv[400];
    snprintf(argv, sizeof argv, "[\"touch\", \"%s/ran\"]", f->dir);
    md_job_owner nobody = {.uid = 3999999, .gid = 3999999};
    assert_null(getpwuid(nobody.uid));
    ei_run r = job(10, nobody, argv, NULL);
    ms_error e = {0};
    int rc;
    assert_int_equal(run_job(f, &r, &rc, &e), MS_EXEC_EXIT_IDENTITY);
    assert_int_equal(r.pid, 0);
    assert_false(exists(f->dir, "ran"));
    char *text = output(f, &r, "err", NULL);
    assert_non_null(strstr(text, "uid 3999999 has no passwd entry"));
    free(text);
}

/* Drops CAP_SETGID and CAP_SETUID from this process (it stays uid 0): setgroups fails. */
static void drop_setid_caps(void)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct d[2];
    if (syscall(SYS_capget, &h, d) != 0)
        _exit(90);
    unsigned drop = (1u << CAP_SETGID) | (1u << CAP_SETUID);
    d[0].effective &= ~drop;
    d[0].permitted &= ~drop;
    if (syscall(SYS_capset, &h, d) != 0)
        _exit(91);
}

static void test_setgroups_fails(void **state)
{
    owner_fixture *f = *state;
    NEED_ROOT(f);
    char argv[400];
    snprintf(argv, sizeof argv, "[\"touch\", \"%s/ran\"]", f->dir);
    pid_t p = fork();
    if (p == 0) { /* the daemon without the privilege to change identity */
        drop_setid_caps();
        ei_run r = job(11, f->owner, argv, NULL);
        ms_error e = {0};
        int rc;
        _exit(run_job(f, &r, &rc, &e));
    }
    int ws;
    assert_int_equal(waitpid(p, &ws, 0), p);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), MS_EXEC_EXIT_IDENTITY);
    assert_false(exists(f->dir, "ran"));
    ei_run r = {.job = {.id = 11, .owner = f->owner}};
    char *text = output(f, &r, "err", NULL);
    assert_non_null(strstr(text, "cannot run as"));
    assert_non_null(strstr(text, "setgroups failed"));
    free(text);
}

/* The owner planted a link to a root file and a FIFO at the outputs' names: the job's
 * output goes to new files of its own, the victim is untouched, nothing blocks. */
static void test_planted_outputs(void **state)
{
    owner_fixture *f = *state;
    NEED_ROOT(f);
    char folder[400], path[600], victim[400];
    snprintf(victim, sizeof victim, "%s/victim", f->dir);
    FILE *v = fopen(victim, "w");
    fputs("precious\n", v);
    fclose(v);
    snprintf(folder, sizeof folder, "%s/%s", f->logs, f->user);
    assert_int_equal(mkdir(folder, 0700), 0);
    assert_int_equal(chown(folder, f->owner.uid, f->owner.gid), 0);
    snprintf(path, sizeof path, "%s/job-12.1.out", folder);
    assert_int_equal(symlink(victim, path), 0);
    snprintf(path, sizeof path, "%s/job-12.1.err", folder);
    assert_int_equal(mkfifo(path, 0600), 0);
    ei_run r = job(12, f->owner, "[\"sh\", \"-c\", \"echo mine; echo also >&2\"]", NULL);
    ms_error e = {0};
    int rc;
    assert_int_equal(run_job(f, &r, &rc, &e), 0);
    struct stat st;
    char *text = output(f, &r, "out", &st);
    assert_string_equal(text, "mine\n");
    free(text);
    assert_true(S_ISREG(st.st_mode));
    text = output(f, &r, "err", &st);
    assert_string_equal(text, "also\n");
    free(text);
    assert_true(S_ISREG(st.st_mode));
    size_t len;
    assert_int_equal(ms_read_file(victim, &text, &len, &e), MS_OK);
    assert_string_equal(text, "precious\n");
    free(text);
}

/* The owner's folder is a link (to a folder of root's), or writable by others: refused,
 * nothing run, nothing written there; the node's fault (its log-dir), so the job is not
 * failed but tried again later (node_fault, no exit status). */
static void test_owner_folder_refused(void **state)
{
    owner_fixture *f = *state;
    NEED_ROOT(f);
    char folder[400], elsewhere[400], argv[400];
    snprintf(argv, sizeof argv, "[\"touch\", \"%s/ran\"]", f->dir);
    snprintf(elsewhere, sizeof elsewhere, "%s/elsewhere", f->dir);
    assert_int_equal(mkdir(elsewhere, 0700), 0);
    snprintf(folder, sizeof folder, "%s/%s", f->logs, f->user);
    assert_int_equal(symlink(elsewhere, folder), 0);
    ei_run r = job(13, f->owner, argv, NULL);
    ms_error e = {0};
    int rc;
    assert_int_equal(run_job(f, &r, &rc, &e), 0);
    assert_int_not_equal(rc, MS_OK);
    assert_true(r.node_fault);
    assert_non_null(strstr(e.msg, "not a folder"));
    assert_false(exists(f->dir, "ran"));
    assert_false(exists(elsewhere, "job-13.1.out"));
    assert_int_equal(unlink(folder), 0);
    assert_int_equal(mkdir(folder, 0700), 0);
    assert_int_equal(chmod(folder, 0777), 0);
    r = job(14, f->owner, argv, NULL);
    assert_int_equal(run_job(f, &r, &rc, &e), 0);
    assert_true(r.node_fault);
    assert_non_null(strstr(e.msg, "mode 0777"));
    assert_false(exists(f->dir, "ran"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_runs_as_owner, setup_owner, teardown_owner),
        cmocka_unit_test_setup_teardown(test_root_refused, setup_owner, teardown_owner),
        cmocka_unit_test_setup_teardown(test_no_passwd_entry, setup_owner, teardown_owner),
        cmocka_unit_test_setup_teardown(test_setgroups_fails, setup_owner, teardown_owner),
        cmocka_unit_test_setup_teardown(test_planted_outputs, setup_owner, teardown_owner),
        cmocka_unit_test_setup_teardown(test_owner_folder_refused, setup_owner, teardown_owner),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
