/* test_exec_isolate.c: device isolation: the mig-minors reader (errors name file:line), the
 * plan of a job's device folder on a fake tree (character devices made with mknod: root
 * only, skipped otherwise), and the plan carried out in a forked child, which sees only
 * its instance's nodes while the folder stays as it was for everyone else. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "migsched/isolate.h"
#include "support.h"

static const char MINORS[] = "config 1\n"
                             "monitor 2\n"
                             "gpu0/gi1/access 3\n"
                             "gpu0/gi1/ci0/access 4\n"
                             "gpu0/gi2/access 5\n"
                             "gpu0/gi2/ci0/access 6\n"
                             "gpu0/gi2/ci1/access 7\n"
                             "gpu1/gi1/access 8\n"
                             "gpu1/gi1/ci0/access 9\n";

static void test_minors(void **state)
{
    (void)state;
    unsigned gi = 0, ci = 0;
    ms_error err;
    assert_int_equal(ms_mig_minors_parse(MINORS, strlen(MINORS), "m", 0, 2, 1, &gi, &ci, &err),
                     MS_OK);
    assert_int_equal(gi, 5);
    assert_int_equal(ci, 7);
    assert_int_equal(ms_mig_minors_parse(MINORS, strlen(MINORS), "m", 1, 1, 0, &gi, &ci, &err),
                     MS_OK);
    assert_int_equal(gi, 8);
    assert_int_equal(ci, 9);
    /* CRLF, blank lines, tabs and no final newline are read as the driver could write. */
    const char loose[] = "\ngpu0/gi1/access\t3\r\n\ngpu0/gi1/ci0/access  4";
    assert_int_equal(ms_mig_minors_parse(loose, strlen(loose), "m", 0, 1, 0, &gi, &ci, &err),
                     MS_OK);
    assert_int_equal(ci, 4);
    char *path = test_write_temp(MINORS);
    assert_int_equal(ms_mig_minors_find(path, 0, 1, 0, &gi, &ci, &err), MS_OK);
    assert_int_equal(gi, 3);
    unlink(path);
    assert_int_equal(ms_mig_minors_find(path, 0, 1, 0, &gi, &ci, &err), MS_EIO);
    assert_non_null(strstr(err.msg, path));
    free(path);
}

static void test_minors_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } BAD[] = {
        {"gpu0/gi1/access 3\ngpu0/gi1/ci0/access\n", "mm:2: expected NAME MINOR"},
        {"gpu0/gi1/access 3 4\n", "mm:1: expected NAME MINOR"},
        {"gpu0/gi1/access x3\n", "mm:1: expected NAME MINOR"},
        {"config 1\n 3\n", "mm:2: expected NAME MINOR"},
        {"config 1\n\ngpu0/gi1/access 99999999999\n", "mm:3: minor 99999999999 is over"},
        {"gpu0/gi1/access 3\ngpu0/gi1/ci0/access 4\ngpu0/gi1/access 5\n",
         "mm:3: gpu0/gi1/access is listed again (first on line 1)"},
        {"gpu0/gi1/access 3\n", "mm lists no gpu0/gi1/ci0/access: no capability node for the "
                                "MIG instance (GPU minor 0, GPU instance 1, compute instance 0)"},
        {"gpu1/gi1/access 3\ngpu1/gi1/ci0/access 4\n", "mm lists no gpu0/gi1/access"},
        {"", "mm lists no gpu0/gi1/access"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
        unsigned gi, ci;
        ms_error err = {0};
        int rc = ms_mig_minors_parse(BAD[i].text, strlen(BAD[i].text), "mm", 0, 1, 0, &gi, &ci,
                                     &err);
        if (rc != MS_EINVAL || !strstr(err.msg, BAD[i].msg))
            fail_msg("case %zu: rc %d \"%s\", expected \"%s\"", i, rc, err.msg, BAD[i].msg);
    }
}

/* ---- A fake device tree: harmless character devices (copies of /dev/null's number) ---- */

typedef struct tree {
    char dir[256], dev[300], minors[300];
    dev_t null_rdev;
} tree;

static void node(const tree *t, const char *name, mode_t mode)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", t->dev, name);
    if (mknod(p, S_IFCHR | mode, t->null_rdev) || chmod(p, mode))
        fail_msg("mknod %s: %s", p, strerror(errno));
}

static void make_tree(tree *t)
{
    struct stat st;
    assert_int_equal(stat("/dev/null", &st), 0);
    t->null_rdev = st.st_rdev;
    test_temp_dir("iso", t->dir, sizeof t->dir);
    snprintf(t->dev, sizeof t->dev, "%s/dev", t->dir);
    snprintf(t->minors, sizeof t->minors, "%s/mig-minors", t->dir);
    char p[512];
    assert_int_equal(mkdir(t->dev, 0755), 0);
    snprintf(p, sizeof p, "%s/nvidia-caps", t->dev);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/sub", t->dev);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/sub/inside", t->dev);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("kept\n", f);
    fclose(f);
    snprintf(p, sizeof p, "%s/fd", t->dev);
    assert_int_equal(symlink("/proc/self/fd", p), 0);
    snprintf(p, sizeof p, "%s/gpu-alias", t->dev);
    assert_int_equal(symlink("nvidia1", p), 0);
    node(t, "nvidiactl", 0666);
    node(t, "nvidia-uvm", 0666);
    node(t, "nvidia-uvm-tools", 0666);
    node(t, "nvidia0", 0666);
    node(t, "nvidia1", 0666);
    node(t, "nvidia-modeset", 0666);
    node(t, "unrelated", 0640);
    for (int k = 1; k <= 9; k++) {
        char name[64];
        snprintf(name, sizeof name, "nvidia-caps/nvidia-cap%d", k);
        node(t, name, k == 1 ? 0400 : 0444);
    }
    f = fopen(t->minors, "w");
    assert_non_null(f);
    fputs(MINORS, f);
    fclose(f);
}

static bool root(void) { return geteuid() == 0; }

static int plan_for(const tree *t, unsigned gpu, unsigned gi, unsigned ci, ms_devplan **p,
                    ms_error *err)
{
    ms_devplan_target target = {
        .dev_dir = t->dev, .mig_minors = t->minors, .gpu_minor = gpu, .gi_id = gi, .ci_id = ci};
    return ms_devplan_make(&target, p, err);
}

static void test_plan(void **state)
{
    (void)state;
    if (!root())
        skip();
    tree t;
    make_tree(&t);
    ms_devplan *p;
    ms_error err;
    assert_int_equal(plan_for(&t, 0, 2, 1, &p, &err), MS_OK);
    assert_int_equal(p->gi_minor, 5);
    assert_int_equal(p->ci_minor, 7);
    /* Sorted by name; other GPUs' and instances' nodes and nvidia-modeset are left out;
     * the link to nvidia1 is not NVIDIA's by name and stays (it resolves to nothing). */
    static const struct {
        ms_iso_kind kind;
        const char *name;
    } WANT[] = {
        {MS_ISO_LINK, "fd"},
        {MS_ISO_LINK, "gpu-alias"},
        {MS_ISO_DIR, "nvidia-caps"},
        {MS_ISO_NODE, "nvidia-caps/nvidia-cap5"},
        {MS_ISO_NODE, "nvidia-caps/nvidia-cap7"},
        {MS_ISO_NODE, "nvidia-uvm"},
        {MS_ISO_NODE, "nvidia-uvm-tools"},
        {MS_ISO_NODE, "nvidia0"},
        {MS_ISO_NODE, "nvidiactl"},
        {MS_ISO_BIND, "sub"},
        {MS_ISO_BIND, "unrelated"},
    };
    size_t nw = sizeof WANT / sizeof *WANT;
    size_t k = 0;
    for (size_t i = 0; i < p->n; i++) {
        const ms_iso_entry *e = &p->entry[i];
        if (k >= nw || e->kind != WANT[k].kind || strcmp(e->name, WANT[k].name))
            fail_msg("entry %zu: %d %s, expected %d %s", i, e->kind, e->name,
                     k < nw ? (int)WANT[k].kind : -1, k < nw ? WANT[k].name : "(none)");
        k++;
    }
    assert_int_equal(k, nw);
    for (size_t i = 0; i < p->n; i++) {
        const ms_iso_entry *e = &p->entry[i];
        char want[512];
        snprintf(want, sizeof want, "%s/%s", t.dev, e->name);
        assert_string_equal(e->path, want);
        if (e->kind == MS_ISO_NODE) {
            assert_true(S_ISCHR(e->mode));
            assert_true(e->rdev == t.null_rdev);
            assert_int_equal(e->mode & 07777, 0444 + (strstr(e->name, "cap") ? 0 : 0222));
        }
        if (!strcmp(e->name, "fd"))
            assert_string_equal(e->target, "/proc/self/fd");
        if (!strcmp(e->name, "gpu-alias"))
            assert_string_equal(e->target, "nvidia1");
        if (!strcmp(e->name, "sub"))
            assert_true(e->dir);
        if (!strcmp(e->name, "unrelated"))
            assert_false(e->dir);
    }
    ms_devplan_free(p);
    test_remove_dir(t.dir);
}

static void expect_plan_error(const tree *t, unsigned gpu, unsigned gi, unsigned ci,
                              const char *msg)
{
    ms_devplan *p = NULL;
    ms_error err = {0};
    int rc = plan_for(t, gpu, gi, ci, &p, &err);
    if (rc == MS_OK || !strstr(err.msg, msg))
        fail_msg("rc %d \"%s\", expected \"%s\"", rc, err.msg, msg);
    assert_null(p);
}

static void test_plan_errors(void **state)
{
    (void)state;
    if (!root())
        skip();
    tree t;
    make_tree(&t);
    char p[512];
    expect_plan_error(&t, 0, 3, 0, "lists no gpu0/gi3/access");
    expect_plan_error(&t, 2, 1, 0, "lists no gpu2/gi1/access");
    snprintf(p, sizeof p, "%s/nvidia-caps/nvidia-cap7", t.dev);
    assert_int_equal(unlink(p), 0);
    snprintf(p, sizeof p,
             "%s/nvidia-caps/nvidia-cap7 (the compute instance's capability): No "
             "such file",
             t.dev);
    expect_plan_error(&t, 0, 2, 1, p);
    snprintf(p, sizeof p, "%s/nvidia-caps/nvidia-cap7", t.dev);
    FILE *f = fopen(p, "w"); /* a plain file where a node belongs */
    fclose(f);
    expect_plan_error(&t, 0, 2, 1,
                      "nvidia-cap7 (the compute instance's capability) is not a "
                      "character device");
    snprintf(p, sizeof p, "%s/nvidia1", t.dev);
    assert_int_equal(unlink(p), 0);
    snprintf(p, sizeof p, "%s/nvidia1 (the GPU's node) is missing", t.dev);
    expect_plan_error(&t, 1, 1, 0, p);
    snprintf(p, sizeof p, "%s/nvidia-caps", t.dev);
    test_remove_dir(p);
    expect_plan_error(&t, 0, 1, 0, "nvidia-caps is missing: no MIG capability nodes");
    ms_devplan_target rel = {.dev_dir = "dev", .mig_minors = t.minors};
    ms_devplan *none;
    ms_error err;
    assert_int_equal(ms_devplan_make(&rel, &none, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "dev-dir dev: expected an absolute path"));
    test_remove_dir(t.dir);
}

/* What a confined child sees: "NAME" per entry of the folder and of nvidia-caps, then
 * "open NAME: ERRNO" for each of `tries` it tried to open, on the pipe's end. */
static void look_around(const ms_devplan *p, const char *const *tries, int fd)
{
    char line[600];
    for (int pass = 0; pass < 2; pass++) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s%s", p->dev_dir, pass ? "/nvidia-caps" : "");
        char cmd[1300];
        snprintf(cmd, sizeof cmd, "LC_ALL=C ls -A %s", dir);
        FILE *ls = popen(cmd, "r");
        while (ls && fgets(line, sizeof line, ls))
            dprintf(fd, "%s%s", pass ? "nvidia-caps/" : "", line);
        if (ls)
            pclose(ls);
    }
    for (int i = 0; tries[i]; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s", p->dev_dir, tries[i]);
        int f = open(path, O_RDONLY);
        dprintf(fd, "open %s: %d\n", tries[i], f < 0 ? errno : 0);
    }
    char here[400];
    dprintf(fd, "cwd %s\n", getcwd(here, sizeof here) ? here : "?");
    mode_t m = umask(0);
    dprintf(fd, "umask %03o\n", (unsigned)m);
}

/* Forks a child that applies p and reports what it sees; returns it (malloc'd). */
static char *confined_view(ms_devplan *p, const char *const *tries, int *exit_status, ms_error *why)
{
    int out[2], report[2];
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe2(report, O_CLOEXEC), 0);
    p->report_fd = report[1];
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(out[0]);
        close(report[0]);
        umask(027);
        if (ms_devplan_apply(p, NULL, 0))
            _exit(126);
        look_around(p, tries, out[1]);
        _exit(0);
    }
    close(out[1]);
    close(report[1]);
    p->report_fd = -1;
    int rc = ms_devplan_wait(report[0], why);
    close(report[0]);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    ssize_t k;
    while ((k = read(out[0], buf + n, cap - 1 - n)) > 0)
        n += (size_t)k;
    buf[n] = '\0';
    close(out[0]);
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    *exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (rc == MS_OK)
        assert_int_equal(*exit_status, 0);
    return buf;
}

static char *host_listing(const tree *t)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "LC_ALL=C ls -lnA %s %s/nvidia-caps %s/sub", t->dev, t->dev, t->dev);
    FILE *ls = popen(cmd, "r");
    assert_non_null(ls);
    char *buf = calloc(1, 1 << 16);
    size_t n = fread(buf, 1, (1 << 16) - 1, ls);
    buf[n] = '\0';
    pclose(ls);
    return buf;
}

static void test_apply(void **state)
{
    (void)state;
    if (!root())
        skip();
    tree t;
    make_tree(&t);
    char *before = host_listing(&t);
    ms_devplan *p;
    ms_error err;
    assert_int_equal(plan_for(&t, 0, 2, 1, &p, &err), MS_OK);
    static const char *const TRIES[] = {"nvidia0",
                                        "nvidia-caps/nvidia-cap5",
                                        "nvidia-caps/nvidia-cap7",
                                        "nvidia1",
                                        "nvidia-caps/nvidia-cap3",
                                        "nvidia-caps/nvidia-cap1",
                                        "gpu-alias",
                                        "unrelated",
                                        "sub/inside",
                                        NULL};
    int status;
    char *seen = confined_view(p, TRIES, &status, &err);
    char want[1024];
    snprintf(want, sizeof want,
             "fd\ngpu-alias\nnvidia-caps\nnvidia-uvm\nnvidia-uvm-tools\nnvidia0\n"
             "nvidiactl\nsub\nunrelated\n"
             "nvidia-caps/nvidia-cap5\nnvidia-caps/nvidia-cap7\n"
             "open nvidia0: 0\nopen nvidia-caps/nvidia-cap5: 0\nopen nvidia-caps/nvidia-cap7: 0\n"
             "open nvidia1: %d\nopen nvidia-caps/nvidia-cap3: %d\n"
             "open nvidia-caps/nvidia-cap1: %d\nopen gpu-alias: %d\nopen unrelated: 0\n"
             "open sub/inside: 0\ncwd %s\numask 027\n",
             ENOENT, ENOENT, ENOENT, ENOENT, getcwd((char[400]){0}, 400));
    assert_string_equal(seen, want);
    free(seen);
    char *after = host_listing(&t);
    assert_string_equal(after, before);
    free(after);

    /* Two instances of one GPU: disjoint capability nodes. */
    ms_devplan *q;
    assert_int_equal(plan_for(&t, 0, 1, 0, &q, &err), MS_OK);
    static const char *const NONE[] = {NULL};
    seen = confined_view(q, NONE, &status, &err);
    assert_non_null(strstr(seen, "nvidia-caps/nvidia-cap3\nnvidia-caps/nvidia-cap4\ncwd"));
    assert_null(strstr(seen, "nvidia-cap5"));
    free(seen);
    ms_devplan_free(q);

    /* What cannot be set up is reported by the child and nothing runs. */
    free(p->dev_dir);
    p->dev_dir = strdup("/nonexistent-migsched-dev");
    seen = confined_view(p, NONE, &status, &err);
    assert_int_equal(status, 126);
    assert_string_equal(seen, "");
    assert_int_equal(err.code, MS_EBACKEND);
    assert_non_null(strstr(err.msg, "device isolation: cannot open /nonexistent-migsched-dev: "
                                    "No such file or directory"));
    free(seen);
    ms_devplan_free(p);
    after = host_listing(&t);
    assert_string_equal(after, before);
    free(after);
    free(before);
    test_remove_dir(t.dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_minors), cmocka_unit_test(test_minors_errors),
        cmocka_unit_test(test_plan),   cmocka_unit_test(test_plan_errors),
        cmocka_unit_test(test_apply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
