/* test_daemon_slurm.c: what migschedd reads from Slurm's commands (squeue's job ids and
 * pending jobs' GRES, scontrol's TresPerNode), the scontrol updates it builds (a job's
 * AdminComment, the node's GRES count) and the DCGM exporter's job-mapping files it writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hpc_mapping.h"
#include "migsched/io.h"
#include "slurm.h"
#include "support.h"

static void test_job_ids(void **state)
{
    (void)state;
    int64_t *ids;
    size_t n;
    ms_error e = {0};
    assert_int_equal(md_slurm_parse_job_ids("101\n  7 \n\n4294967295\n", &ids, &n, &e), MS_OK);
    assert_int_equal(n, 3);
    assert_true(ids[0] == 101 && ids[1] == 7 && ids[2] == 4294967295LL);
    free(ids);
    assert_int_equal(md_slurm_parse_job_ids("", &ids, &n, &e), MS_OK); /* nothing runs */
    assert_int_equal(n, 0);
    assert_null(ids);
    /* Anything else is an error, so that a message is never read as "no jobs". */
    static const char *const BAD[] = {
        "101\nsqueue: error: Invalid user\n", "12_3\n", "0\n", "4294967296\n", "-5\n", "1 2\n"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        e.msg[0] = '\0';
        if (md_slurm_parse_job_ids(BAD[i], &ids, &n, &e) != MS_EINVAL ||
            !strstr(e.msg, "not a job id") || ids || n)
            fail_msg("\"%s\": \"%s\"", BAD[i], e.msg);
    }
}

static void test_gres(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        long count;
    } CASES[] = {
        {"JobId=5 JobName=x TresPerNode=gres:migslice:3 Partition=p", 3},
        {"JobId=5 TresPerNode=gres/migslice:4", 4},
        {"JobId=5 TresPerNode=migslice:2", 2},
        {"JobId=5 TresPerNode=gres:gpu:1,gres:migslice:5\n", 5},
        {"JobId=5 TresPerNode=gres:migslice", 1},
        {"JobId=5 TresPerNode=gres:migslice:a100:2", 2},
        {"JobId=5 TresPerNode=gres:migslicex:6", 0},
        {"JobId=5 TresPerNode=gres:gpu:1", 0},
        {"JobId=5 JobName=x Partition=p", 0},
        {"JobId=5 MyTresPerNode=gres:migslice:9", 0},
    };
    for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
        long c = -1;
        ms_error e = {0};
        assert_int_equal(md_slurm_parse_gres(CASES[i].text, "migslice", &c, &e), MS_OK);
        if (c != CASES[i].count)
            fail_msg("\"%s\": %ld, expected %ld", CASES[i].text, c, CASES[i].count);
    }
}

static char *read_text(const char *path)
{
    char *text;
    size_t len;
    ms_error e;
    return ms_read_file(path, &text, &len, &e) ? NULL : text;
}

static void test_mapping(void **state)
{
    (void)state;
    char dir[] = "/tmp/migsched-map-XXXXXX", path[128];
    assert_non_null(mkdtemp(dir));
    ms_error e = {0};
    int64_t jobs[] = {4242, 7};
    assert_int_equal(md_hpc_mapping_set(dir, 1, 3, jobs, 2, &e), MS_OK);
    snprintf(path, sizeof path, "%s/1.3", dir);
    char *t = read_text(path);
    assert_string_equal(t, "4242\n7\n");
    free(t);
    assert_int_equal(md_hpc_mapping_set(dir, 1, 3, jobs, 1, &e), MS_OK); /* rewritten */
    t = read_text(path);
    assert_string_equal(t, "4242\n");
    free(t);
    assert_int_equal(md_hpc_mapping_set(dir, 1, 3, NULL, 0, &e), MS_OK); /* no job: gone */
    assert_int_not_equal(access(path, F_OK), 0);
    assert_int_equal(md_hpc_mapping_set(dir, 1, 3, NULL, 0, &e), MS_OK); /* gone already */
    /* Prune: the GPU's stale instance files go; kept ones, other GPUs' and others' stay. */
    const char *names[] = {"0.1", "0.2", "0.9", "1.1", "0", "0.x", "notes"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
    unsigned keep[] = {2};
    assert_int_equal(md_hpc_mapping_prune(dir, 0, keep, 1, &e), MS_OK);
    const bool left[] = {false, true, false, true, true, true, true};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if ((access(path, F_OK) == 0) != left[i])
            fail_msg("%s: %s", names[i], left[i] ? "removed" : "kept");
        unlink(path);
    }
    rmdir(dir);
    assert_int_equal(md_hpc_mapping_set("/nonexistent/dir", 0, 1, jobs, 1, &e), MS_EIO);
    assert_non_null(strstr(e.msg, "/nonexistent/dir"));
    assert_int_equal(md_hpc_mapping_prune("/nonexistent/dir", 0, keep, 1, &e), MS_EIO);
    assert_non_null(strstr(e.msg, "hpc-job-mapping-dir /nonexistent/dir"));
}

/* squeue --states=PENDING --format="%i %b": the jobs asking the GRES, by their count. */
static void test_pending(void **state)
{
    (void)state;
    long *slices;
    size_t n;
    ms_error e = {0};
    assert_int_equal(md_slurm_parse_pending("12 gres:migslice:3\n13 N/A\n14_[1-4] gres/migslice:7\n"
                                            "15 gres:gpu:1,gres:migslice:2\n\n16\n",
                                            "migslice", &slices, &n, &e),
                     MS_OK);
    assert_int_equal(n, 3);
    assert_true(slices[0] == 3 && slices[1] == 7 && slices[2] == 2);
    free(slices);
    assert_int_equal(md_slurm_parse_pending("", "migslice", &slices, &n, &e), MS_OK);
    assert_int_equal(n, 0);
    char longer[400] = "9 ";
    memset(longer + 2, 'x', 300);
    assert_int_equal(md_slurm_parse_pending(longer, "migslice", &slices, &n, &e), MS_EINVAL);
    assert_non_null(strstr(e.msg, "squeue: line 1: "));
    assert_null(slices);
}

/* The argument vectors run without a shell: scontrol update TARGET VALUE, each one word. */
static void test_updates(void **state)
{
    (void)state;
    md_slurm_update u;
    ms_error e = {0};
    assert_int_equal(
        md_slurm_comment_update(&u, 42, "3g.20gb", 1, "GPU-5f1d-aa", "MIG-9c2e-bb", &e), MS_OK);
    assert_string_equal(u.argv[0], "scontrol");
    assert_string_equal(u.argv[1], "update");
    assert_string_equal(u.argv[2], "JobId=42");
    assert_string_equal(u.argv[3], "AdminComment=migsched:profile=3g.20gb,gpu=1,"
                                   "gpu_uuid=GPU-5f1d-aa,mig_uuid=MIG-9c2e-bb");
    assert_null(u.argv[4]);
    assert_int_equal(md_slurm_comment_update(&u, 42, "1g.5gb+me", 0, "GPU-1", "MIG-2", &e), MS_OK);
    /* Nothing that Slurm's parser or a reader would split: a blank, '=', ',', a quote. */
    static const char *const BAD[] = {"MIG-1 x", "MIG-1,gpu=7", "MIG=1", "MIG\"1", "", "MIG-1\n"};
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        assert_int_equal(md_slurm_comment_update(&u, 42, "3g.20gb", 0, "GPU-1", BAD[i], &e),
                         MS_EINVAL);
        assert_non_null(strstr(e.msg, "Slurm job 42: the instance's names are not plain words"));
        assert_int_equal(md_slurm_comment_update(&u, 42, BAD[i], 0, "GPU-1", "MIG-1", &e),
                         MS_EINVAL);
    }
    assert_int_equal(md_slurm_comment_update(&u, 0, "3g.20gb", 0, "GPU-1", "MIG-1", &e), MS_EINVAL);
    assert_int_equal(md_slurm_node_update(&u, "gpu01", "migslice", 11, &e), MS_OK);
    assert_string_equal(u.argv[2], "NodeName=gpu01");
    assert_string_equal(u.argv[3], "Gres=migslice:11");
    assert_null(u.argv[4]);
    assert_int_equal(md_slurm_node_update(&u, "gpu01 State=DOWN", "migslice", 11, &e), MS_EINVAL);
    assert_int_equal(md_slurm_node_update(&u, "gpu01", "migslice", -1, &e), MS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_ids), cmocka_unit_test(test_gres), cmocka_unit_test(test_pending),
        cmocka_unit_test(test_updates), cmocka_unit_test(test_mapping)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
