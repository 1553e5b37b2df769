/* test_workload_csv.c: the workload CSV reader's accepted forms, every rejection (code and
 * message naming file and line/column), writer round trips and a 200k-task file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "migsched/io.h"
#include "migsched/rng.h"
#include "migsched/workload.h"
#include "../src/workload/workload_internal.h"
#include "support.h"
#include "workload_assert.h"

static const ms_gpu_model *a30(void) { return ms_gpu_builtin("A30-24GB"); }
static const ms_gpu_model *a100(void) { return ms_gpu_builtin("A100-40GB"); }

static ms_workload *parse_ok(const char *text, const ms_gpu_model *gpu)
{
    ms_workload *w = NULL;
    ms_error err = {0};
    int rc = ms_workload_parse_csv(text, strlen(text), "t.csv", gpu, &w, &err);
    if (rc)
        fail_msg("unexpected error %d: %s", rc, err.msg);
    assert_non_null(w);
    return w;
}

/* A rejected input: MS_EINVAL, *out untouched, every needle in the message. */
typedef struct bad_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    int gpu;    /* 0 none, 1 A30, 2 A100 */
    const char *needle[3];
} bad_case;

static void expect_bad(const bad_case *c)
{
    ms_workload sentinel, *w = &sentinel;
    ms_error err = {0};
    const ms_gpu_model *gpu = c->gpu == 1 ? a30() : c->gpu == 2 ? a100() : NULL;
    size_t len = c->len ? c->len : strlen(c->text);
    int rc = ms_workload_parse_csv(c->text, len, "t.csv", gpu, &w, &err);
    if (rc != MS_EINVAL)
        fail_msg("input %s: expected MS_EINVAL, got %d (%s)", c->text, rc, err.msg);
    assert_int_equal(err.code, MS_EINVAL);
    assert_null(w); /* a failure leaves NULL */
    for (int i = 0; i < 3 && c->needle[i]; i++)
        if (!strstr(err.msg, c->needle[i]))
            fail_msg("message \"%s\" lacks \"%s\"", err.msg, c->needle[i]);
}

static void test_header_errors(void **state)
{
    static const bad_case cases[] = {
        {"", 0, 0, {"t.csv: empty file", "name,1,2,4"}},
        {"\n\n  \r\n\t\n", 0, 0, {"t.csv: empty file"}},
        {"\xEF\xBB\xBF", 0, 0, {"t.csv: empty file"}},
        {"task,1,2\na,1,2\n", 0, 0, {"t.csv:1:", "column 1 ('task')", "must be 'name'"}},
        {"\n\nname,1,foo\na,1,2\n", 0, 0, {"t.csv:3:", "column 3 ('foo')", "unknown column"}},
        {"name,1,5\na,1,2\n",
         0,
         2,
         {"t.csv:1:", "column 3 ('5')", "not a compute size of A100-40GB"}},
        {"name,1,3\na,1,2\n",
         0,
         1,
         {"t.csv:1:", "3 is not a compute size of A30-24GB", "name,1,2,4"}},
        {"name,1,9\na,1,2\n", 0, 0, {"t.csv:1:", "column 3 ('9')", "out of range"}},
        {"name,1,0\na,1,2\n", 0, 0, {"t.csv:1:", "out of range"}},
        {"name,2,2\na,1,2\n", 0, 0, {"t.csv:1:", "column 3 ('2')", "appears twice"}},
        {"name,command\na,x\n", 0, 0, {"t.csv:1:", "no compute size columns"}},
        {"name,1,command,2\na,1,x,2\n", 0, 0, {"t.csv:1:", "column 4", "before 'command'"}},
        {"name,1,cwd,cwd\n", 0, 0, {"t.csv:1:", "column 4 ('cwd')", "appears twice"}},
        {"name,1,-2\n", 0, 0, {"t.csv:1:", "unknown column"}},
        {"name,1,2\n", 0, 0, {"t.csv:2:", "no tasks"}},
        {"name,1,2\n\n\n", 0, 2, {"t.csv:4:", "no tasks"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(&cases[i]);
}

static void test_time_errors(void **state)
{
    static const bad_case cases[] = {
        {"name,1,2\na,-1,2\n", 0, 0, {"t.csv:2:", "column '1' (task 'a')", "negative"}},
        {"name,1,2\na,1,-0\n", 0, 0, {"t.csv:2:", "column '2'", "negative"}},
        {"name,1,2\na,0,2\n", 0, 0, {"t.csv:2:", "column '1'", "zero"}},
        {"name,1,2\na,0.0e5,2\n", 0, 0, {"t.csv:2:", "zero"}},
        {"name,1,2\na,1,nan\n", 0, 0, {"t.csv:2:", "column '2'", "NaN"}},
        {"name,1,2\na,1,NaN\n", 0, 0, {"t.csv:2:", "NaN"}},
        {"name,1,2\na,12abc,2\n", 0, 0, {"t.csv:2:", "time '12abc' is not a number"}},
        {"name,1,2\na,0x10,2\n", 0, 0, {"t.csv:2:", "'0x10' is not a number"}},
        {"name,1,2\na,1.2.3,2\n", 0, 0, {"t.csv:2:", "not a number"}},
        {"name,1,2\na,-inf,2\n", 0, 0, {"t.csv:2:", "not a number"}},
        {"name,1,2\na,1e999,2\n", 0, 0, {"t.csv:2:", "out of range"}},
        {"name,1,2\na,1e300,2\n", 0, 0, {"t.csv:2:", "'1e300' is over the ceiling of 1e9 s"}},
        {"name,1,2\na,1e-999,2\n", 0, 0, {"t.csv:2:", "zero"}},
        {"name,1,2\na,\"1 2\",2\n", 0, 0, {"t.csv:2:", "not a number"}},
        {"name,1,2\r\nb,1,2\r\na,1,x\r\n", 0, 0, {"t.csv:3:", "column '2' (task 'a')"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(&cases[i]);
}

static void test_row_errors(void **state)
{
    static const char nul[] = "name,1,2\na\0b,1,2\n";
    static const bad_case cases[] = {
        {"name,1,2\na,1,2\nb,1,2\na,3,4\n",
         0,
         0,
         {"t.csv:4:", "duplicate task name 'a'", "first on line 2"}},
        {"name,1,2\na,inf,\n", 0, 0, {"t.csv:2:", "task 'a'", "cannot run"}},
        {"name,1,2,4\na,inf,,INF\n", 0, 1, {"t.csv:2:", "cannot run on any instance size of A30"}},
        {"name,1,2\na,1\n", 0, 0, {"t.csv:2:", "2 fields but the header has 3"}},
        {"name,1,2\nb,1,2\na,1,2,3\n", 0, 0, {"t.csv:3:", "4 fields but the header has 3"}},
        {"name,1,2\n,1,2\n", 0, 0, {"t.csv:2:", "empty task name"}},
        {"name,1,2\n\"\",1,2\n", 0, 0, {"t.csv:2:", "empty task name"}},
        {"name,1,2,command\na,1,2,\"run\nb,1,2,x\n", 0, 0, {"t.csv:2:", "field 4", "never closed"}},
        {"name,1,2,command\na,1,2,ru\"n\n", 0, 0, {"t.csv:2:", "field 4", "stray"}},
        {"name,1,2\n\"a\"x,1,2\n", 0, 0, {"t.csv:2:", "field 1", "after closing quote"}},
        {nul, sizeof nul - 1, 0, {"t.csv:2:", "NUL byte"}},
        /* Line numbers keep counting through a quoted field that spans lines. */
        {"name,1,2,command\na,1,2,\"x\ny\"\nb,1,-2,z\n", 0, 0, {"t.csv:4:", "task 'b'"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_bad(&cases[i]);
}

static void test_rodinia_sample(void **state)
{
    ms_workload *w = NULL;
    ms_error err = {0};
    int rc = ms_workload_read(test_source_path("../shared/data/rodinia_a30_8tasks.csv"), a30(), &w,
                              &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(w->n, 8);
    assert_string_equal(w->tasks[3].name, "lavaMD");
    assert_true(isinf(w->tasks[3].time[1]));
    assert_true(w->tasks[3].time[2] == 21.697);
    assert_true(w->tasks[6].time[4] == 6.38692);
    assert_true(isinf(w->tasks[0].time[3])); /* no column: cannot run */
    assert_null(w->tasks[0].command);
    assert_int_equal(ms_workload_check_gpu(w, a30(), &err), MS_OK);
    ms_workload_free(w);
}

static void test_accepted_values(void **state)
{
    const char *text = "\xEF\xBB\xBFName , 7,1, Command,CWD\r\n\r\n"
                       " a , 3.5 , 10 ,\"python -c \"\"print(1,2)\"\"\",/tmp/x y\r\n"
                       "\"c,d\",1e1,20,  \"\" ,\"\"";
    ms_workload *w = parse_ok(text, a100());
    assert_int_equal(w->n, 2);
    assert_string_equal(w->tasks[0].name, "a");
    assert_true(w->tasks[0].time[7] == 3.5);
    assert_true(w->tasks[0].time[1] == 10);
    assert_true(isinf(w->tasks[0].time[2]) && isinf(w->tasks[0].time[4]));
    assert_string_equal(w->tasks[0].command, "python -c \"print(1,2)\"");
    assert_string_equal(w->tasks[0].cwd, "/tmp/x y");
    assert_string_equal(w->tasks[1].name, "c,d");
    assert_true(w->tasks[1].time[7] == 10);
    assert_null(w->tasks[1].command);
    assert_null(w->tasks[1].cwd);
    ms_workload_free(w);
    /* Without a GPU any size 1..8 is accepted; a task may have inf on the GPU's sizes only
     * when it runs elsewhere. */
    w = parse_ok("name,3,8\nx,inf,2\n", NULL);
    assert_true(w->tasks[0].time[8] == 2);
    ms_error err = {0};
    assert_int_equal(ms_workload_check_gpu(w, a100(), &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "task 0 ('x')"));
    assert_non_null(strstr(err.msg, "A100-40GB (1,2,3,4,7)"));
    /* Without a GPU the writer's columns are the sizes some task can run on. */
    size_t len;
    char *out = write_to_string(w, NULL, 0, &len);
    assert_string_equal(out, "name,8\nx,2\n");
    free(out);
    ms_workload_free(w);
    w = parse_ok("name,3\nx,2\n", NULL);
    assert_int_equal(ms_workload_check_gpu(w, a100(), &err), MS_OK);
    assert_int_equal(ms_workload_check_gpu(w, a30(), &err), MS_EINVAL);
    ms_workload_free(w);
}

/* Reads the one-column CSV text (rows t0.. with the times field[0..rows)) and checks every
 * time is strtod's reading of its field; frees text and field. */
static void assert_read_as_strtod(char *text, size_t len, char (*field)[40], int rows)
{
    ms_workload *w = NULL;
    ms_error err = {0};
    if (ms_workload_parse_csv(text, len, "t.csv", NULL, &w, &err))
        fail_msg("%s", err.msg);
    for (int i = 0; i < rows; i++)
        if (w->tasks[i].time[1] != strtod(field[i], NULL))
            fail_msg("'%s' read as %.17g, strtod %.17g", field[i], w->tasks[i].time[1],
                     strtod(field[i], NULL));
    ms_workload_free(w);
    free(text);
    free(field);
}

/* The reader's times equal strtod's on 40,000 random decimals: 1 to 20 digits, leading
 * zeros, a point anywhere or none, some with an exponent (the short cut for plain decimals
 * must round as strtod does). */
static void test_times_as_strtod(void **state)
{
    enum { ROWS = 40000 };
    ms_rng rng;
    ms_rng_seed(&rng, 99);
    char *text = malloc((size_t)ROWS * 48 + 16), (*field)[40] = malloc(sizeof *field * ROWS);
    size_t len = (size_t)sprintf(text, "name,1\n");
    for (int i = 0; i < ROWS; i++) {
        char *f = field[i];
        do { /* times are in (0, 1e9] */
            int digits = 1 + (int)ms_rng_below(&rng, 20), point = (int)ms_rng_below(&rng, 24);
            int n = 0;
            for (int d = 0; d < digits; d++) {
                if (d == point)
                    f[n++] = '.';
                f[n++] = (char)('0' + (d == 0 && i % 3 ? 1 + ms_rng_below(&rng, 9)
                                                       : ms_rng_below(&rng, 10)));
            }
            if (i % 17 == 0)
                n += sprintf(f + n, "e%d", (int)ms_rng_below(&rng, 21) - 10);
            f[n] = '\0';
        } while (!(strtod(f, NULL) > 0 && strtod(f, NULL) <= 1e9));
        len += (size_t)sprintf(text + len, "t%d,%s\n", i, f);
    }
    assert_read_as_strtod(text, len, field, ROWS);
}

/* Decimals of 17 to 19 digits at and around the midpoints between adjacent doubles, where
 * a reading that rounds twice (to 64 bits, then to 53) can differ from strtod: the midpoint
 * itself cut to 19 significant digits, and its 19-digit neighbours, for 20,000 random times
 * in (1, 10^6). Every one must read as strtod reads it. */
static void test_times_near_midpoints(void **state)
{
    enum { TIMES = 20000, PER = 4 };
    ms_rng rng;
    ms_rng_seed(&rng, 7);
    char *text = malloc((size_t)TIMES * PER * 48 + 16);
    char(*field)[40] = malloc(sizeof *field * TIMES * PER);
    size_t len = (size_t)sprintf(text, "name,1\n");
    int rows = 0;
    for (int i = 0; i < TIMES; i++) {
        double x = 1 + ms_rng_uniform(&rng) * 1e6;
        char mid[64]; /* x + half an ulp (exact in a long double), of which 19 digits are kept */
        snprintf(mid, sizeof mid, "%.29Le",
                 (long double)x + (long double)(nextafter(x, INFINITY) - x) / 2);
        char digits[24];
        int nd = 0, exp10 = atoi(strchr(mid, 'e') + 1);
        for (const char *c = mid; *c != 'e' && nd < 19; c++)
            if (*c >= '0' && *c <= '9')
                digits[nd++] = *c;
        digits[nd] = '\0';
        unsigned long long d = strtoull(digits, NULL, 10);
        /* 19, 19, 19 and 17 significant digits */
        const unsigned long long variant[PER] = {d, d - 1, d + 1, d / 100};
        for (int v = 0; v < PER; v++) {
            char dd[24];
            int ip = exp10 + 1; /* integer digits */
            snprintf(dd, sizeof dd, "%llu", variant[v]);
            snprintf(field[rows], sizeof field[rows], "%.*s.%s", ip, dd, dd + ip);
            len += (size_t)sprintf(text + len, "t%d,%s\n", rows, field[rows]);
            rows++;
        }
    }
    assert_read_as_strtod(text, len, field, rows);
}

static void test_round_trip(void **state)
{
    ms_workload *w = awkward_workload();
    char *text;
    ms_workload *back = round_trip(w, a100(), 0, &text);
    assert_non_null(strstr(text, "name,1,2,3,4,7,command,cwd\n"));
    free(text);
    ms_workload_free(back);
    ms_workload_free(w);
}

/* The Rodinia sample's bytes are what the writer produces for it. */
static void test_writer_format(void **state)
{
    char *orig;
    size_t olen;
    ms_error err = {0};
    assert_int_equal(
        ms_read_file(test_source_path("../shared/data/rodinia_a30_8tasks.csv"), &orig, &olen, &err),
        MS_OK);
    ms_workload *w = parse_ok(orig, a30());
    size_t len;
    char *text = write_to_string(w, a30(), 0, &len);
    assert_int_equal(len, olen);
    assert_memory_equal(text, orig, len);
    free(text);
    free(orig);
    ms_workload_free(w);
}

/* A failed write comes back through err. */
static void test_writer_error(void **state)
{
    ms_workload *w = parse_ok("name,1\ng,22.3\n", a30());
    FILE *full = fopen("/dev/full", "w");
    assert_non_null(full);
    setvbuf(full, NULL, _IONBF, 0); /* each write fails at once, not at fclose */
    ms_error err = {0};
    assert_int_equal(ms_workload_write_csv(w, a30(), full, &err), MS_EIO);
    assert_string_equal(err.msg, "cannot write the workload");
    fclose(full);
    ms_workload_free(w);
}

/* The shared CSV quoting: always quoted, inner quotes doubled, commas kept. */
static void test_csv_write_quoted(void **state)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    ms_csv_write_quoted(f, "a \"b\", c");
    fputc('|', f);
    ms_csv_write_quoted(f, "");
    fclose(f);
    assert_string_equal(buf, "\"a \"\"b\"\", c\"|\"\"");
    free(buf);
}

/* 200k tasks with a duplicate on the last line: linear-time reading (no quadratic duplicate
 * check or buffer handling); the test just has to finish quickly. */
static void test_large_file(void **state)
{
    enum { N = 200000 };
    size_t cap = (size_t)N * 64 + 64, len = 0;
    char *text = malloc(cap);
    len += (size_t)sprintf(text, "name,1,2,3,4,7,command\n");
    for (int i = 0; i < N; i++)
        len += (size_t)sprintf(text + len, "task%06d,%d.5,%d,inf,%d.25,1,\"./run %d\"\n", i,
                               100 + i % 7, 60 + i % 5, 30 + i % 3, i);
    ms_workload *w = parse_ok(text, a100());
    assert_int_equal(w->n, N);
    assert_string_equal(w->tasks[N - 1].name, "task199999");
    assert_true(w->tasks[N - 1].time[4] == 30 + (N - 1) % 3 + 0.25);
    ms_workload_free(w);
    len += (size_t)sprintf(text + len, "task000017,1,2,3,4,5,\n");
    ms_workload sentinel, *out = &sentinel;
    ms_error err = {0};
    assert_int_equal(ms_workload_parse_csv(text, len, "big.csv", a100(), &out, &err), MS_EINVAL);
    assert_null(out); /* a failure leaves NULL */
    assert_non_null(
        strstr(err.msg, "big.csv:200002: duplicate task name 'task000017' (first on line 19)"));
    free(text);
}

/* Parses text in one piece and with the rows split in two at several points: the same
 * workload, or the same error, every time. */
static void expect_split_same(const char *text, int expect_rc)
{
    size_t len = strlen(text), split[] = {0, 1, len / 3, len / 2, len - len / 10};
    ms_workload *one = NULL;
    ms_error e1 = {0};
    int rc1 = wl_parse_csv(text, len, "s.csv", a100(), SIZE_MAX, &one, &e1);
    if (rc1 != expect_rc)
        fail_msg("expected %d, got %d (%s)", expect_rc, rc1, e1.msg);
    for (size_t k = 0; k < sizeof split / sizeof *split; k++) {
        ms_workload *two = NULL;
        ms_error e2 = {0};
        int rc2 = wl_parse_csv(text, len, "s.csv", a100(), split[k], &two, &e2);
        assert_int_equal(rc2, rc1);
        if (rc1) {
            assert_null(two);
            assert_string_equal(e2.msg, e1.msg);
        } else {
            assert_same_workload(one, two, a100());
            ms_workload_free(two);
        }
    }
    ms_workload_free(one);
}

/* Rows of `n` tasks, with `blank` blank lines and CRLF ends when asked; line L (1-based,
 * the header is line 1) replaced by bad[] where bad_line[] says. */
static char *split_text(int n, int blank_every, bool crlf, const int *bad_line,
                        const char *const *bad, int nbad)
{
    char *text = malloc((size_t)n * 80 + 1024), *p = text;
    const char *eol = crlf ? "\r\n" : "\n";
    int line = 1;
    p += sprintf(p, "name,1,2,3,4,7%s", eol);
    for (int i = 0; i < n; i++) {
        line++;
        if (blank_every && i % blank_every == 3) {
            p += sprintf(p, "%s", eol);
            line++;
        }
        int b = 0;
        while (b < nbad && bad_line[b] != line)
            b++;
        if (b < nbad)
            p += sprintf(p, "%s%s", bad[b], eol);
        else
            p += sprintf(p, "t%d,%d.5,%d,%d.25,inf,1.0%d%s", i, 100 + i % 7, 60 + i % 5, 30 + i % 3,
                         i % 10, eol);
    }
    return text;
}

/* The reader's two threads: the same tasks, and the same first error (its line, the
 * duplicate's first line), wherever the split falls relative to bad rows and duplicates. */
static void test_split_rows(void **state)
{
    enum { N = 3000 };
    struct {
        int blank;
        bool crlf;
        int nbad, line[3];
        const char *bad[3];
        int rc;
    } cases[] = {
        {0, false, 0, {0}, {NULL}, MS_OK},
        {50, false, 0, {0}, {NULL}, MS_OK},
        {0, true, 0, {0}, {NULL}, MS_OK},
        {7, true, 0, {0}, {NULL}, MS_OK},
        {0, false, 1, {2}, {"x,1,2,3,4,bad"}, MS_EINVAL},
        {0, false, 1, {1500}, {"x,1,2,3"}, MS_EINVAL},
        {0, false, 1, {2999}, {"x,1,2,3,4,-1"}, MS_EINVAL},
        {0, false, 1, {N + 1}, {",1,2,3,4,5"}, MS_EINVAL},
        {0, false, 2, {100, 2500}, {"x,1,2,3,4,bad", "x,1,2"}, MS_EINVAL},
        {0, false, 1, {2500}, {"t10,1,2,3,4,5"}, MS_EINVAL},
        {0, false, 1, {500}, {"t10,1,2,3,4,5"}, MS_EINVAL},
        {0, false, 1, {2900}, {"t2800,1,2,3,4,5"}, MS_EINVAL},
        {0, false, 2, {400, 2500}, {"x,1,2,3,4,bad", "t10,1,2,3,4,5"}, MS_EINVAL},
        {0, false, 2, {2500, 2600}, {"t10,1,2,3,4,5", "x,1,2,3,4,bad"}, MS_EINVAL},
        {0, false, 2, {600, 2600}, {"t10,1,2,3,4,5", "x,1,2,3,4,bad"}, MS_EINVAL},
        {0, false, 2, {1400, 1700}, {"dup,1,2,3,4,5", "dup,1,2,3,4,5"}, MS_EINVAL},
        {11, true, 2, {900, 2600}, {"x,1,2", "t10,1,2,3,4,5"}, MS_EINVAL},
        {0, false, 1, {1200}, {"q,1,2,3,4,\"5\""}, MS_OK},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        char *text = split_text(N, cases[c].blank, cases[c].crlf, cases[c].line, cases[c].bad,
                                cases[c].nbad);
        expect_split_same(text, cases[c].rc);
        free(text);
    }
    /* The last line without its line break, and rows that are only blank lines. */
    expect_split_same("name,1,2,3,4,7\na,1,2,3,4,5\nb,1,2,3,4,5\nc,1,2,3,4,5", MS_OK);
    expect_split_same("name,1,2,3,4,7\n\n\n\n", MS_EINVAL);
}

static void test_read_sniffs_format(void **state)
{
    char *csv = test_write_temp("name,1,2,4\nx,3,2,1\n");
    char *json = test_write_temp("\n  {\"tasks\": [{\"name\": \"x\", \"times\": {\"1\": 3}}]}");
    ms_workload *w = NULL;
    ms_error err = {0};
    assert_int_equal(ms_workload_read(csv, a30(), &w, &err), MS_OK);
    assert_true(w->tasks[0].time[4] == 1);
    ms_workload_free(w);
    assert_int_equal(ms_workload_read(json, a30(), &w, &err), MS_OK);
    assert_true(w->tasks[0].time[1] == 3 && isinf(w->tasks[0].time[2]));
    ms_workload_free(w);
    /* The message names the file path. */
    char *bad = test_write_temp("name,1,2\nx,1,-4\n");
    assert_int_equal(ms_workload_read(bad, NULL, &w, &err), MS_EINVAL);
    char expect[256];
    snprintf(expect, sizeof expect, "%s:2:", bad);
    assert_non_null(strstr(err.msg, expect));
    int stale; /* a failure leaves NULL, never what *out held before */
    w = (ms_workload *)&stale;
    assert_int_equal(ms_workload_read("/nonexistent/w.csv", NULL, &w, &err), MS_EIO);
    assert_null(w);
    unlink(csv);
    unlink(json);
    unlink(bad);
    free(csv);
    free(json);
    free(bad);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_errors),        cmocka_unit_test(test_time_errors),
        cmocka_unit_test(test_row_errors),           cmocka_unit_test(test_rodinia_sample),
        cmocka_unit_test(test_accepted_values),      cmocka_unit_test(test_times_as_strtod),
        cmocka_unit_test(test_times_near_midpoints), cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_writer_format),        cmocka_unit_test(test_writer_error),
        cmocka_unit_test(test_large_file),           cmocka_unit_test(test_read_sniffs_format),
        cmocka_unit_test(test_csv_write_quoted),     cmocka_unit_test(test_split_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
