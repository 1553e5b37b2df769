/* test_exec_safety.c: the executor's ownership API that `migsched run` and the daemon
 * share: the per-GPU lock, instance identity (a reused GPU-instance id is not the same
 * instance), the journal writer and reader (durable or refused; impossible records
 * rejected with their line), what open records claim, and `run --cleanup` after a crash
 * between the two steps of a destroy or of a creation. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "migsched/exec.h"
#include "migsched/io.h"
#include "support.h"

#define FAKE_LIB MIGSCHED_BINARY_DIR "/tests/fake_nvml/libnvidia-ml.so.1"

static char dir[64], state[128];

static int setup(void **unused)
{
    test_temp_dir("safety", dir, sizeof dir);
    snprintf(state, sizeof state, "%s/state", dir);
    setenv("FAKE_NVML_STATE", state, 1);
    setenv("FAKE_NVML_DELAY_SCALE", "0", 1);
    setenv("FAKE_NVML_GPU", "A30-24GB", 1);
    setenv("FAKE_NVML_GPUS", "1", 1);
    setenv("MIGSCHED_RUNTIME_DIR", dir, 1);
    setenv("MIGSCHED_NVML_LIBRARY", FAKE_LIB, 1);
    unsetenv("FAKE_NVML_FAIL");
    return 0;
}

static int teardown(void **unused)
{
    test_remove_dir(dir);
    return 0;
}

/* A second owner is refused at once, naming the holder; the lock is free again after
 * release; another GPU is independent. */
static void test_device_lock(void **unused)
{
    ms_device_lock *a, *b, *other;
    ms_error err;
    assert_int_equal(ms_device_lock_open(NULL, "GPU-1234", &a, &err), MS_OK);
    assert_int_equal(ms_device_lock_open(NULL, "GPU-1234", &b, &err), MS_EBUSY);
    assert_null(b);
    char pid[64];
    snprintf(pid, sizeof pid, "in use by migsched process %ld", (long)getpid());
    assert_non_null(strstr(err.msg, pid));
    assert_int_equal(ms_device_lock_open(dir, "GPU-5678", &other, &err), MS_OK);
    ms_device_lock_close(a);
    assert_int_equal(ms_device_lock_open(NULL, "GPU-1234", &b, &err), MS_OK);
    ms_device_lock_close(b);
    ms_device_lock_close(other);
    assert_int_equal(ms_device_lock_open(NULL, "../GPU", &b, &err), MS_EINVAL);
}

/* The driver gives a new instance the lowest free GPU-instance id: after ours is removed
 * behind our back, the next one takes its id, and must not be destroyed as ours. */
static void test_reused_id_is_not_ours(void **unused)
{
    ms_backend_options bo = {.nvml_library = FAKE_LIB};
    ms_backend *b;
    ms_error err;
    assert_int_equal(ms_backend_open("nvml", 0, NULL, &bo, &b, &err), MS_OK);
    assert_string_equal(ms_backend_gpu_uuid(b), "GPU-fa4e0000-0000-4000-8000-000000000000");
    ms_mig_instance ours, theirs, list[MS_MAX_MIG];
    assert_int_equal(ms_backend_create(b, (ms_placement){0, 2}, &ours, &err), MS_OK);
    assert_true(ms_mig_same_instance(&ours, &ours));
    assert_int_equal(ms_backend_destroy(b, ours.gi_id, &err), MS_OK); /* someone else */
    assert_int_equal(ms_backend_create(b, (ms_placement){0, 2}, &theirs, &err), MS_OK);
    assert_int_equal(theirs.gi_id, ours.gi_id);
    assert_false(ms_mig_same_instance(&ours, &theirs));
    assert_int_equal(ms_backend_destroy_owned(b, NULL, &ours, &err), MS_ECHANGED);
    assert_non_null(strstr(err.msg, "no longer the one migsched created"));
    int n = 0;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ms_backend_destroy_owned(b, NULL, &theirs, &err), MS_OK); /* the owner may */
    assert_int_equal(ms_backend_destroy_owned(b, NULL, &theirs, &err), MS_ECHANGED); /* gone */
    ms_backend_close(b);
}

/* Records written by the journal come back from the reader; a device is no journal. */
static void test_journal_round_trip(void **unused)
{
    char path[128];
    snprintf(path, sizeof path, "%s/journal", dir);
    ms_journal *j;
    ms_error err;
    assert_int_equal(ms_journal_open("/dev/full", "nvml", "A30-24GB", &j, &err), MS_EIO);
    assert_non_null(strstr(err.msg, "regular file"));
    assert_int_equal(ms_journal_open(path, "nvml", "A30-24GB", &j, &err), MS_OK);
    ms_mig_instance fo = {.gi_id = 9, .start_slot = 3, .size_slots = 1, .uuid = "MIG-f"};
    ms_mig_instance a = {.gi_id = 1, .start_slot = 0, .size_slots = 2, .uuid = "MIG-a"};
    assert_int_equal(ms_journal_device(j, 0, "GPU-x", &err), MS_OK);
    assert_int_equal(ms_journal_foreign(j, 0, &fo, &err), MS_OK);
    assert_int_equal(ms_journal_create_begin(j, 0, 0, 2, &err), MS_OK);
    assert_int_equal(ms_journal_created(j, 0, &a, &err), MS_OK);
    assert_int_equal(ms_journal_task(j, 0, 4321, 99, 3, NULL, &err), MS_OK);
    assert_int_equal(ms_journal_create_begin(j, 0, 2, 1, &err), MS_OK);
    assert_int_equal(ms_journal_close(j, false, &err), MS_OK);
    char *text;
    size_t len;
    assert_int_equal(ms_read_file(path, &text, &len, &err), MS_OK);
    ms_journal_state *st = malloc(sizeof *st);
    assert_int_equal(ms_journal_parse(text, len, path, st, &err), MS_OK);
    free(text);
    assert_string_equal(st->model, "A30-24GB");
    assert_int_equal(st->owner_pid, getpid());
    assert_false(st->finished);
    assert_int_equal(st->ndev, 1);
    assert_string_equal(st->dev[0].uuid, "GPU-x");
    int kinds[5] = {0};
    for (int i = 0; i < st->n; i++)
        kinds[st->rec[i].kind]++;
    assert_int_equal(kinds[MS_JOURNAL_CREATED], 1); /* its "begin" is closed by "created" */
    assert_int_equal(kinds[MS_JOURNAL_BEGUN], 1);
    assert_int_equal(kinds[MS_JOURNAL_FOREIGN], 1);
    assert_int_equal(kinds[MS_JOURNAL_TASK], 1);
    free(st);
}

static void reject_n(const char *text, size_t len, const char *want)
{
    ms_journal_state *st = malloc(sizeof *st);
    ms_error err;
    if (ms_journal_parse(text, len, "j", st, &err) == MS_OK)
        fail_msg("accepted: %s", text);
    if (!strstr(err.msg, want))
        fail_msg("'%s' for %s (wanted %s)", err.msg, text, want);
    free(st);
}

static void reject(const char *text, const char *want) { reject_n(text, strlen(text), want); }

static void test_journal_rejects_impossible_records(void **unused)
{
    reject("run nvml A30-24GB 1 1\ncreated 0 -1 0 2 MIG-x\n", "j:2:");
    reject("run nvml A30-24GB 1 1\ndestroyed -3 1\n", "j:2:");
    reject("run nvml B9000 1 1\n", "j:1: 'run': unknown GPU model");
    reject("run nvml A30-24GB 0 1\n", "j:1: 'run': bad process id");
    reject("run nvml A30-24GB 1 1\ncreated 0 1 3 2 MIG-x\n", "j:2: placement outside");
    reject("run nvml A30-24GB 1 1\nforeign 0 1 3 4 MIG-x\n", "j:2: placement outside");
    reject("run nvml A30-24GB 1 1\ncreated 0 1 0 2 -\n", "without a MIG device UUID");
    reject("run nvml A30-24GB 1 1\ntask 0 1 5 0\n", "j:2: 'task' needs");
    reject("run nvml A30-24GB 1 1\nfinished now\n", "j:2: junk");
    reject("created 0 1 0 2 MIG-x\n", "j:1: record before any 'run'");
    static const char nul[] = "run nvml A30-24GB 1 1\nbegin 0 0 2\0x\n";
    reject_n(nul, sizeof nul - 1, "j:2: NUL");
}

static ms_claim claim_text(const char *text, const ms_mig_instance *now)
{
    ms_journal_state *st = malloc(sizeof *st);
    ms_error err;
    if (ms_journal_parse(text, strlen(text), "j", st, &err))
        fail_msg("%s", err.msg);
    const ms_journal_rec *why;
    ms_claim c = ms_journal_claim(st, 0, ms_gpu_builtin("A100-40GB"), now, &why);
    assert_true((c == MS_CLAIM_NONE) == (why == NULL));
    free(st);
    return c;
}

/* What open records claim (A100-40GB, where 1g.10gb and 2g.10gb share slots 0-1): a
 * "destroying" record claims its instance and its remains with no compute instance and the
 * same profile, nothing else at its id; a "created" record only its very instance, and an
 * instance there without a MIG device is unproven; a "destroyed" ends both. */
static void test_journal_claims(void **unused)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    int p1 = ms_gpu_profile_by_name(m, "1g.10gb"), p2 = ms_gpu_profile_by_name(m, "2g.10gb");
    const char *j = "run nvml A100-40GB 1 1\ncreated 0 3 0 2 MIG-a\n"
                    "destroying 0 3 0 2 1g.10gb 0 MIG-a\ncreated 0 5 4 2 MIG-b\n";
    ms_mig_instance whole = {
        .gi_id = 3, .nci = 1, .profile = p1, .start_slot = 0, .size_slots = 2, .uuid = "MIG-a"};
    ms_mig_instance bare = whole;
    bare.nci = 0;
    bare.uuid[0] = '\0';
    assert_int_equal(claim_text(j, &whole), MS_CLAIM_OURS);
    assert_int_equal(claim_text(j, &bare), MS_CLAIM_OURS);
    ms_mig_instance x = bare;
    x.profile = p2; /* another profile on the same slots */
    assert_int_equal(claim_text(j, &x), MS_CLAIM_STRANGER);
    x = whole;
    snprintf(x.uuid, sizeof x.uuid, "MIG-z"); /* someone's compute instance */
    assert_int_equal(claim_text(j, &x), MS_CLAIM_STRANGER);
    x = whole;
    x.ci_id = 1;
    assert_int_equal(claim_text(j, &x), MS_CLAIM_STRANGER);
    x = bare;
    x.start_slot = 2;
    assert_int_equal(claim_text(j, &x), MS_CLAIM_STRANGER);
    ms_mig_instance five = {
        .gi_id = 5, .nci = 1, .profile = p2, .start_slot = 4, .size_slots = 2, .uuid = "MIG-b"};
    assert_int_equal(claim_text(j, &five), MS_CLAIM_OURS);
    five.nci = 0;
    five.uuid[0] = '\0';
    assert_int_equal(claim_text(j, &five), MS_CLAIM_UNPROVEN);
    snprintf(five.uuid, sizeof five.uuid, "MIG-c");
    assert_int_equal(claim_text(j, &five), MS_CLAIM_STRANGER);
    five.gi_id = 7;
    assert_int_equal(claim_text(j, &five), MS_CLAIM_NONE);
    char ended[256];
    snprintf(ended, sizeof ended, "%sdestroyed 0 3\n", j);
    assert_int_equal(claim_text(ended, &bare), MS_CLAIM_NONE);
    reject("run nvml A100-40GB 1 1\ndestroying 0 3 0 2 3g.20gb 0 MIG-a\n",
           "j:2: 'destroying': the profile");
    reject("run nvml A100-40GB 1 1\ndestroying 0 3 1 2 1g.10gb - -\n",
           "j:2: 'destroying': the profile");
    reject("run nvml A100-40GB 1 1\ndestroying 0 3 0 2 1g.10gb -1 -\n", "j:2: 'destroying' needs");
    reject("run nvml A100-40GB 1 1\ndestroying 0 3 0 2 1g.10gb 0\n", "j:2: 'destroying' needs");
}

/* A "gi" record (NVML made the GPU instance; its compute instance is not confirmed yet)
 * claims the instance at its id, slots and profile while it has no compute instance; with
 * one it is unproven (ours, or someone's made in its place); another profile or place at
 * its id is a stranger's. It ends the
 * "begin" at its place; "created" supersedes it and "destroyed" ends it. */
static void test_journal_claims_half_made(void **unused)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    int p1 = ms_gpu_profile_by_name(m, "1g.10gb"), p2 = ms_gpu_profile_by_name(m, "2g.10gb");
    const char *j = "run nvml A100-40GB 1 1\nbegin 0 0 2\ngi 0 3 0 2 1g.10gb\n";
    ms_mig_instance bare = {.gi_id = 3, .profile = p1, .start_slot = 0, .size_slots = 2};
    ms_mig_instance whole = bare;
    whole.nci = 1;
    snprintf(whole.uuid, sizeof whole.uuid, "MIG-a");
    assert_int_equal(claim_text(j, &bare), MS_CLAIM_OURS);
    assert_int_equal(claim_text(j, &whole), MS_CLAIM_UNPROVEN);
    ms_mig_instance x = bare;
    x.profile = p2; /* another profile on the same slots */
    assert_int_equal(claim_text(j, &x), MS_CLAIM_STRANGER);
    x = bare;
    x.start_slot = 2;
    assert_int_equal(claim_text(j, &x), MS_CLAIM_STRANGER);
    x = bare;
    x.gi_id = 4;
    assert_int_equal(claim_text(j, &x), MS_CLAIM_NONE);
    ms_journal_state *st = malloc(sizeof *st);
    ms_error err;
    assert_int_equal(ms_journal_parse(j, strlen(j), "j", st, &err), MS_OK);
    assert_int_equal(st->n, 1); /* the "begin" is closed */
    assert_int_equal(st->rec[0].kind, MS_JOURNAL_GI_MADE);
    assert_string_equal(st->rec[0].profile, "1g.10gb");
    free(st);
    char more[256];
    snprintf(more, sizeof more, "%screated 0 3 0 2 MIG-a\n", j);
    assert_int_equal(claim_text(more, &whole), MS_CLAIM_OURS);
    assert_int_equal(claim_text(more, &bare), MS_CLAIM_UNPROVEN); /* "created" rules now */
    snprintf(more, sizeof more, "%sdestroyed 0 3\n", j);
    assert_int_equal(claim_text(more, &bare), MS_CLAIM_NONE);
    reject("run nvml A100-40GB 1 1\ngi 0 3 0 2 3g.20gb\n", "j:2: 'gi': the profile");
    reject("run nvml A100-40GB 1 1\ngi 0 3 1 2 1g.10gb\n", "j:2: 'gi': the profile");
    reject("run nvml A100-40GB 1 1\ngi 0 3 0 2\n", "j:2: 'gi' needs");
    reject("run nvml A100-40GB 1 1\ngi 0 -3 0 2 1g.10gb\n", "j:2: 'gi' needs");
}

/* In a child process standing for a run: the device opened, the journal begun with a
 * creation of a 2g.12gb instance at slot 0 (*at). Exits the child on failure. */
static void begin_run(const char *journal, ms_backend **b, ms_journal **j, ms_placement *at)
{
    ms_error err;
    if (ms_backend_open("nvml", 0, NULL, NULL, b, &err) ||
        ms_journal_open(journal, "nvml", "A30-24GB", j, &err) ||
        ms_journal_device(*j, 0, ms_backend_gpu_uuid(*b), &err) ||
        ms_journal_create_begin(*j, 0, 0, 2, &err))
        _exit(1);
    *at = (ms_placement){ms_gpu_profile_by_name(ms_backend_model(*b), "2g.12gb"), 0};
}

/* Waits for the run's child, which the fake NVML's fault must have killed. */
static void await_killed(pid_t child)
{
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

/* A run (a child process) journals an instance it creates and is killed at `fault` (the
 * fake NVML's) inside its destroy, with "destroying" written if `record`. */
static void crash_in_destroy(const char *journal, const char *fault, bool record)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        ms_backend *b;
        ms_journal *j;
        ms_mig_instance mi;
        ms_placement at;
        ms_error err;
        begin_run(journal, &b, &j, &at);
        if (ms_backend_create(b, at, &mi, &err) || ms_journal_created(j, 0, &mi, &err))
            _exit(1);
        setenv("FAKE_NVML_FAIL", fault, 1);
        ms_backend_destroy_owned(b, record ? j : NULL, &mi, &err);
        _exit(2);
    }
    await_killed(child);
}

static int list_device(ms_mig_instance list[MS_MAX_MIG])
{
    ms_backend *b;
    ms_error err;
    int n;
    assert_int_equal(ms_backend_open("nvml", 0, NULL, NULL, &b, &err), MS_OK);
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    ms_backend_close(b);
    return n;
}

static void cleanup(const char *journal, bool force, ms_cleanup_report *rep)
{
    ms_cleanup_options o = {.journal = journal, .force = force};
    ms_error err;
    assert_int_equal(ms_run_cleanup(&o, rep, &err), MS_OK);
}

/* `run --cleanup` after a crash between the destroys of a journalled instance: with the
 * "destroying" record it is ours and destroyed; without it (a journal of an older run) it is
 * unproven: reported, destroyed only with --force; killed before the compute instance
 * went it is still the very instance recorded. */
static void test_cleanup_after_crash_in_destroy(void **unused)
{
    char journal[128];
    ms_cleanup_report rep;
    ms_mig_instance list[MS_MAX_MIG];
    const char *const faults[] = {"nvmlComputeInstanceDestroy:1:kill",
                                  "nvmlComputeInstanceDestroy:1:killafter",
                                  "nvmlGpuInstanceDestroy:1:kill"};
    for (int k = 0; k < 3; k++) {
        snprintf(journal, sizeof journal, "%s/j%d", dir, k);
        crash_in_destroy(journal, faults[k], true);
        assert_int_equal(list_device(list), 1);
        assert_int_equal(list[0].uuid[0] != '\0', k == 0);
        cleanup(journal, false, &rep);
        assert_int_equal(rep.destroyed, 1);
        assert_int_equal(rep.nleft, 0);
        assert_int_equal(list_device(list), 0);
    }
    snprintf(journal, sizeof journal, "%s/old", dir);
    crash_in_destroy(journal, "nvmlGpuInstanceDestroy:1:kill", false);
    cleanup(journal, false, &rep);
    assert_int_equal(rep.destroyed, 0);
    assert_int_equal(rep.nleft, 1);
    assert_non_null(strstr(rep.left[0], "lost its MIG device"));
    assert_int_equal(list_device(list), 1);
    cleanup(journal, true, &rep);
    assert_int_equal(rep.destroyed, 1);
    assert_int_equal(list_device(list), 0);
}

/* After the crash someone else removes our remains and makes their own instance, with its
 * compute instance, at our id and slots: --cleanup leaves it alone, even with --force. */
static void test_cleanup_leaves_stranger(void **unused)
{
    char journal[128];
    snprintf(journal, sizeof journal, "%s/j", dir);
    crash_in_destroy(journal, "nvmlGpuInstanceDestroy:1:kill", true);
    ms_backend *b;
    ms_error err;
    ms_mig_instance list[MS_MAX_MIG], theirs;
    assert_int_equal(list_device(list), 1);
    assert_int_equal(ms_backend_open("nvml", 0, NULL, NULL, &b, &err), MS_OK);
    assert_int_equal(ms_backend_destroy(b, list[0].gi_id, &err), MS_OK);
    assert_int_equal(ms_backend_create(b, (ms_placement){list[0].profile, 0}, &theirs, &err),
                     MS_OK);
    ms_backend_close(b);
    assert_int_equal(theirs.gi_id, list[0].gi_id);
    ms_cleanup_report rep;
    cleanup(journal, true, &rep);
    assert_int_equal(rep.destroyed, 0);
    assert_int_equal(rep.nleft, 0);
    assert_int_equal(list_device(list), 1);
    assert_true(ms_mig_same_instance(&theirs, &list[0]));
}

/* A run (a child process) journals the creation of a 2g.12gb instance at slot 0 and is
 * killed at `fault` (the fake NVML's) inside it. */
static void crash_in_create(const char *journal, const char *fault)
{
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        ms_backend *b;
        ms_journal *j;
        ms_mig_instance mi;
        ms_placement at;
        ms_error err;
        begin_run(journal, &b, &j, &at);
        setenv("FAKE_NVML_FAIL", fault, 1);
        ms_backend_create_journaled(b, j, at, &mi, &err);
        _exit(2);
    }
    await_killed(child);
}

/* `run --cleanup` after a crash inside a creation, once NVML made the GPU instance: killed
 * before its compute instance was made, the instance is the journal's and destroyed; just
 * after, it has a MIG device the journal does not name: reported, and destroyed only with
 * --force. Either way nothing is left open. */
static void test_cleanup_after_crash_in_create(void **unused)
{
    const char *const faults[] = {"nvmlGpuInstanceCreateComputeInstance:1:kill",
                                  "nvmlGpuInstanceCreateComputeInstance:1:killafter"};
    for (int k = 0; k < 2; k++) {
        char journal[128];
        ms_cleanup_report rep;
        ms_mig_instance list[MS_MAX_MIG];
        snprintf(journal, sizeof journal, "%s/c%d", dir, k);
        crash_in_create(journal, faults[k]);
        assert_int_equal(list_device(list), 1);
        assert_int_equal(list[0].uuid[0] != '\0', k == 1);
        cleanup(journal, false, &rep);
        assert_int_equal(rep.nleft, k == 1);
        assert_int_equal(rep.destroyed, k == 0);
        if (k == 1) {
            assert_non_null(strstr(rep.left[0], "has a compute instance the journal does not "
                                                "name"));
            assert_int_equal(list_device(list), 1);
            cleanup(journal, true, &rep);
            assert_int_equal(rep.destroyed, 1);
        }
        assert_int_equal(list_device(list), 0);
        ms_journal_state *st = malloc(sizeof *st);
        bool found;
        ms_error err;
        assert_int_equal(ms_journal_load(journal, st, &found, &err), MS_OK);
        assert_int_equal(st->n, 0);
        free(st);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_device_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reused_id_is_not_ours, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_rejects_impossible_records, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_claims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleanup_after_crash_in_destroy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleanup_leaves_stranger, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_claims_half_made, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleanup_after_crash_in_create, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
