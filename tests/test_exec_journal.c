/* test_exec_journal.c: the run journal's reader and its size: a torn last record (a crash
 * mid-write) dropped and reported, a cut record elsewhere an error, an unreadable journal
 * (NUL byte, over the input limit, EACCES for a reader that is not root) an error naming
 * the file, a missing one absence; a writer opened on a torn journal appends whole
 * records; compaction rewrites the journal as its open records (atomically, mode 0600)
 * and a journal that grows past the compaction size is compacted as it is written. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "migsched/io.h"
#include "support.h"

static char dir[64], path[200];

static int setup(void **unused)
{
    test_temp_dir("journal", dir, sizeof dir);
    snprintf(path, sizeof path, "%s/journal", dir);
    unsetenv("MIGSCHED_MAX_INPUT_BYTES");
    return 0;
}

static int teardown(void **unused)
{
    test_remove_dir(dir);
    unsetenv("MIGSCHED_MAX_INPUT_BYTES");
    return 0;
}

static void put(const char *text, size_t len)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
    chmod(path, 0600);
}

static int count_kind(const ms_journal_state *st, ms_journal_kind kind)
{
    int n = 0;
    for (int i = 0; i < st->n; i++)
        n += st->rec[i].kind == kind;
    return n;
}

/* Loads the journal at path: the reader's outcome, the state in *st (malloc'd). */
static int load(ms_journal_state **st, bool *found, ms_error *err)
{
    *st = malloc(sizeof **st);
    assert_non_null(*st);
    return ms_journal_load(path, *st, found, err);
}

/* "ended 7" cut from "ended 7123": the torn record is dropped whole, never taken for
 * what its first bytes say; the rest is replayed. */
static void test_torn_last_record(void **unused)
{
    static const char text[] = "run nvml A30-24GB 1 1\ntask 0 7123 5 3\nended 7";
    put(text, sizeof text - 1);
    ms_journal_state *st;
    bool found;
    ms_error err = {0};
    assert_int_equal(load(&st, &found, &err), MS_OK);
    assert_true(found);
    assert_int_equal(count_kind(st, MS_JOURNAL_TASK), 1);
    assert_int_equal(st->rec[0].pgid, 7123);
    assert_int_equal(st->torn_line, 3);
    free(st);
    /* A torn record that does not parse either. */
    static const char cut[] = "run nvml A30-24GB 1 1\nbegin 0 0 2\ncreat";
    put(cut, sizeof cut - 1);
    assert_int_equal(load(&st, &found, &err), MS_OK);
    assert_int_equal(count_kind(st, MS_JOURNAL_BEGUN), 1);
    assert_int_equal(st->torn_line, 3);
    free(st);
    /* A whole journal has none. */
    static const char whole[] = "run nvml A30-24GB 1 1\nbegin 0 0 2\n";
    put(whole, sizeof whole - 1);
    assert_int_equal(load(&st, &found, &err), MS_OK);
    assert_int_equal(st->torn_line, 0);
    free(st);
}

/* Only the last record can be an interrupted write: a cut one before it is damage. */
static void test_torn_record_not_last(void **unused)
{
    static const char text[] = "run nvml A30-24GB 1 1\ntask 0 71\nbegin 0 0 2\n";
    put(text, sizeof text - 1);
    ms_journal_state *st;
    bool found;
    ms_error err = {0};
    assert_int_not_equal(load(&st, &found, &err), MS_OK);
    assert_false(found);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, ":2: 'task' needs"));
    free(st);
}

/* A NUL byte or a journal over the input limit stops the reader, naming file and line;
 * a missing journal is none. */
static void test_unreadable_journal(void **unused)
{
    ms_journal_state *st;
    bool found = true;
    ms_error err = {0};
    assert_int_equal(load(&st, &found, &err), MS_OK); /* missing */
    assert_false(found);
    free(st);
    static const char nul[] = "run nvml A30-24GB 1 1\nbegin 0 0 2\nta\0sk 0 71 5 3\n";
    put(nul, sizeof nul - 1);
    assert_int_not_equal(load(&st, &found, &err), MS_OK);
    assert_false(found);
    char want[260];
    snprintf(want, sizeof want, "%s:3: NUL byte", path);
    if (!strstr(err.msg, want))
        fail_msg("'%s' (wanted %s)", err.msg, want);
    free(st);
    static const char text[] = "run nvml A30-24GB 1 1\nbegin 0 0 2\n";
    put(text, sizeof text - 1);
    setenv("MIGSCHED_MAX_INPUT_BYTES", "16", 1);
    assert_int_not_equal(load(&st, &found, &err), MS_OK);
    assert_false(found);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "over the input limit"));
    free(st);
}

/* `migsched run --cleanup` by a user who may not read root's journal: refused with the
 * reason, not taken for a journal with nothing to clean. */
static void test_cleanup_journal_eacces(void **unused)
{
    if (geteuid() != 0)
        skip();
    char shared[100];
    snprintf(shared, sizeof shared, "%s/shared", dir);
    assert_int_equal(mkdir(shared, 0755), 0);
    assert_int_equal(chmod(dir, 0755), 0);
    snprintf(path, sizeof path, "%s/journal", shared);
    static const char text[] = "run nvml A30-24GB 1 1\ntask 0 71 5 3\n";
    put(text, sizeof text - 1);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        if (setgid(65534) || setuid(65534))
            _exit(3);
        ms_cleanup_options o = {.journal = path};
        ms_cleanup_report rep;
        ms_error err = {0};
        int rc = ms_run_cleanup(&o, &rep, &err);
        if (rc == MS_OK)
            _exit(1);
        _exit(strstr(err.msg, path) && strstr(err.msg, strerror(EACCES)) ? 0 : 2);
    }
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A writer opened on a torn journal cuts the torn record off: what it appends stays
 * whole records that the next reader replays. */
static void test_open_torn_appends_whole(void **unused)
{
    static const char text[] = "run nvml A30-24GB 1 1\ntask 0 7123 5 3\nended 7";
    put(text, sizeof text - 1);
    ms_journal *j;
    ms_error err = {0};
    assert_int_equal(ms_journal_open(path, "nvml", "A30-24GB", &j, &err), MS_OK);
    assert_int_equal(ms_journal_task(j, 0, 4321, 99, 4, NULL, &err), MS_OK);
    assert_int_equal(ms_journal_close(j, false, &err), MS_OK);
    ms_journal_state *st;
    bool found;
    assert_int_equal(load(&st, &found, &err), MS_OK);
    assert_int_equal(st->torn_line, 0);
    assert_int_equal(count_kind(st, MS_JOURNAL_TASK), 2);
    free(st);
}

static int entries(const char *folder)
{
    DIR *d = opendir(folder);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static off_t size_of(const char *p)
{
    struct stat s;
    assert_int_equal(stat(p, &s), 0);
    return s.st_size;
}

/* The journal is rewritten as the records still open: the same state, a small file of
 * mode 0600 in place of the old one (no temporary left), and later records appended to
 * the new file. */
static void test_compact(void **unused)
{
    ms_journal *j;
    ms_error err = {0};
    assert_int_equal(ms_journal_open(path, "nvml", "A30-24GB", &j, &err), MS_OK);
    assert_int_equal(ms_journal_device(j, 0, "GPU-x", &err), MS_OK);
    ms_mig_instance fo = {.gi_id = 9, .start_slot = 3, .size_slots = 1, .uuid = "MIG-f"};
    ms_mig_instance a = {.gi_id = 1, .start_slot = 0, .size_slots = 2, .uuid = "MIG-a"};
    ms_mig_instance d = {.gi_id = 2,
                         .start_slot = 2,
                         .size_slots = 1,
                         .uuid = "MIG-d",
                         .ci_id = 0,
                         .nci = 1,
                         .profile = ms_gpu_profile_by_name(ms_gpu_builtin("A30-24GB"), "1g.6gb")};
    assert_int_equal(ms_journal_foreign(j, 0, &fo, &err), MS_OK);
    for (int k = 0; k < 200; k++) { /* what a long run leaves: all ended */
        assert_int_equal(ms_journal_task(j, 0, 1000 + k, 5, k, NULL, &err), MS_OK);
        assert_int_equal(ms_journal_task_ended(j, 1000 + k, 5, &err), MS_OK);
        assert_int_equal(ms_journal_create_begin(j, 0, 0, 2, &err), MS_OK);
        assert_int_equal(ms_journal_created(j, 0, &a, &err), MS_OK);
        assert_int_equal(ms_journal_destroyed(j, 0, a.gi_id, &err), MS_OK);
    }
    assert_int_equal(ms_journal_create_begin(j, 0, 0, 2, &err), MS_OK);
    assert_int_equal(ms_journal_created(j, 0, &a, &err), MS_OK);
    assert_int_equal(ms_journal_destroying(j, 0, ms_gpu_builtin("A30-24GB"), &d, &err), MS_OK);
    assert_int_equal(ms_journal_create_begin(j, 0, 2, 1, &err), MS_OK);
    ms_mig_instance h = {.gi_id = 4, .start_slot = 3, .size_slots = 1, .profile = d.profile};
    assert_int_equal(ms_journal_create_begin(j, 0, 3, 1, &err), MS_OK);
    assert_int_equal(ms_journal_gi_made(j, 0, ms_gpu_builtin("A30-24GB"), &h, &err), MS_OK);
    assert_int_equal(ms_journal_task(j, 0, 4321, 99, 3, NULL, &err), MS_OK);
    ms_journal_state *before, *after;
    bool found;
    assert_int_equal(load(&before, &found, &err), MS_OK);
    off_t grown = size_of(path);
    assert_int_equal(ms_journal_compact(j, &err), MS_OK);
    assert_true(size_of(path) < 400 && size_of(path) < grown / 20);
    struct stat s;
    assert_int_equal(stat(path, &s), 0);
    assert_int_equal(s.st_mode & 07777, 0600);
    assert_int_equal(entries(dir), 1);
    assert_int_equal(load(&after, &found, &err), MS_OK);
    assert_string_equal(after->backend, before->backend);
    assert_string_equal(after->model, before->model);
    assert_int_equal(after->owner_pid, before->owner_pid);
    assert_int_equal(after->owner_start, before->owner_start);
    assert_int_equal(after->finished, before->finished);
    assert_int_equal(after->ndev, 1);
    assert_string_equal(after->dev[0].uuid, "GPU-x");
    assert_int_equal(after->n, before->n);
    assert_int_equal(after->n, 6); /* foreign, created, destroying, begun, gi, task */
    for (int i = 0; i < before->n; i++) {
        bool same = false;
        const ms_journal_rec *b = &before->rec[i];
        for (int k = 0; k < after->n && !same; k++) {
            const ms_journal_rec *r = &after->rec[k];
            same = r->kind == b->kind && r->device == b->device && r->gi_id == b->gi_id &&
                   r->start == b->start && r->size == b->size && !strcmp(r->uuid, b->uuid) &&
                   !strcmp(r->profile, b->profile) && r->ci == b->ci && r->pgid == b->pgid &&
                   r->task == b->task && r->pstart == b->pstart;
        }
        if (!same)
            fail_msg("record %d (kind %d, line %d) lost by the compaction", i, b->kind, b->line);
    }
    free(after);
    assert_int_equal(ms_journal_task_ended(j, 4321, 99, &err), MS_OK); /* into the new file */
    assert_int_equal(ms_journal_close(j, true, &err), MS_OK);
    assert_int_equal(load(&after, &found, &err), MS_OK);
    assert_int_equal(count_kind(after, MS_JOURNAL_TASK), 0);
    assert_true(after->finished);
    free(after);
    free(before);
}

/* A long run's journal stays under the compaction size as it is written. */
static void test_compacted_as_written(void **unused)
{
    ms_journal *j;
    ms_error err = {0};
    assert_int_equal(ms_journal_open(path, "nvml", "A30-24GB", &j, &err), MS_OK);
    assert_int_equal(ms_journal_task(j, 0, 4321, 99, 3, NULL, &err), MS_OK);
    for (int k = 0; k < 3 * MS_JOURNAL_COMPACT_BYTES / 16; k++)
        assert_int_equal(ms_journal_task_ended(j, 100000 + k, 0, &err), MS_OK);
    assert_true(size_of(path) <= MS_JOURNAL_COMPACT_BYTES + 512);
    assert_int_equal(ms_journal_close(j, false, &err), MS_OK);
    ms_journal_state *st;
    bool found;
    assert_int_equal(load(&st, &found, &err), MS_OK);
    assert_int_equal(count_kind(st, MS_JOURNAL_TASK), 1);
    assert_int_equal(entries(dir), 1);
    free(st);
}

/* A task's cgroup is kept whole through compaction; a record with a relative or spaced
 * cgroup path is refused (writing or reading), naming the line. */
static void test_task_cgroup(void **unused)
{
    static const char cg[] = "/sys/fs/cgroup/system.slice/migschedd.service/migschedd-7/job-12.3";
    ms_journal *j;
    ms_error err = {0};
    assert_int_equal(ms_journal_open(path, "nvml", "A30-24GB", &j, &err), MS_OK);
    assert_int_equal(ms_journal_task(j, 0, 4321, 99, 12, cg, &err), MS_OK);
    assert_int_equal(ms_journal_task(j, 0, 4322, 99, 13, "/a b", &err), MS_EINVAL);
    assert_int_equal(ms_journal_compact(j, &err), MS_OK);
    assert_int_equal(ms_journal_close(j, false, &err), MS_OK);
    ms_journal_state *st;
    bool found;
    assert_int_equal(load(&st, &found, &err), MS_OK);
    assert_int_equal(count_kind(st, MS_JOURNAL_TASK), 1);
    for (int k = 0; k < st->n; k++)
        if (st->rec[k].kind == MS_JOURNAL_TASK)
            assert_string_equal(st->rec[k].cgroup, cg);
    free(st);
    static const char bad[] = "run nvml A30-24GB 1 1\ntask 0 7123 5 3 job-3.1\n";
    put(bad, sizeof bad - 1);
    assert_int_equal(load(&st, &found, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, ":2: 'task' needs DEV PGID START INDEX [CGROUP]"));
    free(st);
}

/* An end names its task by the leader's pid and start time: a reused pid's end leaves the
 * first task's record open (its cgroup may still drain); an end without the start, from an
 * older writer, ends every task of that pgid. */
static void test_ended_names_its_task(void **unused)
{
    static const char text[] = "run nvml A30-24GB 1 1\ntask 0 100 5 1 /cg/job-1.1\n"
                               "task 0 100 9 2 /cg/job-2.1\nended 100 9\n";
    ms_journal_state *st = malloc(sizeof *st);
    ms_error err = {0};
    assert_int_equal(ms_journal_parse(text, sizeof text - 1, "j", st, &err), MS_OK);
    assert_int_equal(count_kind(st, MS_JOURNAL_TASK), 1);
    assert_string_equal(st->rec[0].cgroup, "/cg/job-1.1");
    static const char legacy[] = "run nvml A30-24GB 1 1\ntask 0 100 5 1\ntask 0 100 9 2\n"
                                 "ended 100\n";
    assert_int_equal(ms_journal_parse(legacy, sizeof legacy - 1, "j", st, &err), MS_OK);
    assert_int_equal(count_kind(st, MS_JOURNAL_TASK), 0);
    free(st);
}

/* A process group whose leader exited, leaving a member: its id could be anyone's group
 * now. Returns the group's id and the member in *member. */
static pid_t leaderless_group(pid_t *member)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t leader = fork();
    assert_true(leader >= 0);
    if (leader == 0) {
        setpgid(0, 0);
        pid_t m = fork();
        if (m == 0) {
            execlp("sleep", "sleep", "60", (char *)NULL);
            _exit(127);
        }
        _exit(write(fds[1], &m, sizeof m) == sizeof m ? 0 : 1);
    }
    assert_int_equal(read(fds[0], member, sizeof *member), sizeof *member);
    close(fds[0]);
    close(fds[1]);
    assert_int_equal(waitpid(leader, NULL, 0), leader);
    return leader;
}

/* `migsched run --cleanup` on a journal whose task record names a group whose leader is
 * gone: never signalled by its id alone, reported as left. */
static void test_cleanup_leaves_unproven_group(void **unused)
{
    pid_t member, group = leaderless_group(&member);
    char text[200];
    int n = snprintf(text, sizeof text, "run nvml A30-24GB %d 1\ntask 0 %d 5 7\n", (int)group,
                     (int)group);
    put(text, (size_t)n);
    ms_cleanup_options o = {.journal = path, .kill_grace_s = 0.5};
    ms_cleanup_report rep;
    ms_error err = {0};
    int rc = ms_run_cleanup(&o, &rep, &err);
    usleep(200 * 1000);
    bool alive = test_process_running(member);
    kill(-group, SIGKILL);
    assert_int_equal(rc, MS_OK);
    assert_true(alive);
    assert_int_equal(rep.killed, 0);
    assert_int_equal(rep.nleft, 1);
    assert_non_null(strstr(rep.left[0], "its leader is gone"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_torn_last_record, setup, teardown),
        cmocka_unit_test_setup_teardown(test_torn_record_not_last, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_journal, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleanup_journal_eacces, setup, teardown),
        cmocka_unit_test_setup_teardown(test_open_torn_appends_whole, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleanup_leaves_unproven_group, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compact, setup, teardown),
        cmocka_unit_test_setup_teardown(test_compacted_as_written, setup, teardown),
        cmocka_unit_test_setup_teardown(test_task_cgroup, setup, teardown),
        cmocka_unit_test_setup_teardown(test_ended_names_its_task, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
