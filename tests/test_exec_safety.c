/* test_exec_safety.c: the executor's ownership API that `migsched run` and the daemon
 * share: the per-GPU lock, instance identity (a reused GPU-instance id is not the same
 * instance), and the journal writer and reader (durable or refused; impossible records
 * rejected with their line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    assert_int_equal(ms_device_lock_acquire(NULL, "GPU-1234", &a, &err), MS_OK);
    assert_int_equal(ms_device_lock_acquire(NULL, "GPU-1234", &b, &err), MS_EBUSY);
    assert_null(b);
    char pid[64];
    snprintf(pid, sizeof pid, "in use by migsched process %ld", (long)getpid());
    assert_non_null(strstr(err.msg, pid));
    assert_int_equal(ms_device_lock_acquire(dir, "GPU-5678", &other, &err), MS_OK);
    ms_device_lock_release(a);
    assert_int_equal(ms_device_lock_acquire(NULL, "GPU-1234", &b, &err), MS_OK);
    ms_device_lock_release(b);
    ms_device_lock_release(other);
    assert_int_equal(ms_device_lock_acquire(NULL, "../GPU", &b, &err), MS_EINVAL);
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
    assert_int_equal(ms_backend_destroy(b, ours.gi_id, &err), MS_OK);  /* someone else */
    assert_int_equal(ms_backend_create(b, (ms_placement){0, 2}, &theirs, &err), MS_OK);
    assert_int_equal(theirs.gi_id, ours.gi_id);
    assert_false(ms_mig_same_instance(&ours, &theirs));
    assert_int_equal(ms_backend_destroy_owned(b, &ours, &err), MS_ECHANGED);
    assert_non_null(strstr(err.msg, "no longer the one migsched created"));
    int n = 0;
    assert_int_equal(ms_backend_list(b, list, &n, &err), MS_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ms_backend_destroy_owned(b, &theirs, &err), MS_OK);  /* the owner may */
    assert_int_equal(ms_backend_destroy_owned(b, &theirs, &err), MS_ECHANGED);  /* gone */
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
    assert_int_equal(ms_journal_task(j, 0, 4321, 99, 3, &err), MS_OK);
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
    int kinds[4] = {0};
    for (int i = 0; i < st->n; i++)
        kinds[st->rec[i].kind]++;
    assert_int_equal(kinds[MS_JOURNAL_CREATED], 1);  /* its "begin" is closed by "created" */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_device_lock, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reused_id_is_not_ours, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_journal_rejects_impossible_records, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
