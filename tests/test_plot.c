/* test_plot.c: the SVG/HTML schedule plots are well-formed and show every task (by name)
 * and every creation and destruction period; the chart writer's axes, escaping and panel
 * layout. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "migsched/chart.h"
#include "migsched/offline.h"
#include "migsched/plot.h"

/* A small XML well-formedness check: balanced tags, quoted attributes, no stray '<' or
 * '&' in text. Returns NULL when well-formed, else a description. */
static const char *xml_check(const char *x)
{
    static char why[160];
    char stack[64][48];
    int depth = 0;
    for (const char *c = x; *c;) {
        if (*c == '&') {
            static const char *const ents[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"};
            size_t k = 0;
            while (k < 5 && strncmp(c, ents[k], strlen(ents[k])))
                k++;
            if (k == 5)
                return "bare '&'";
            c += strlen(ents[k]);
            continue;
        }
        if (*c != '<') {
            if (*c == '>')
                return "stray '>'";
            c++;
            continue;
        }
        if (!strncmp(c, "<?", 2) || !strncmp(c, "<!", 2)) {
            c = strchr(c, '>');
            if (!c)
                return "unterminated declaration";
            c++;
            continue;
        }
        bool closing = c[1] == '/';
        const char *name = c + 1 + closing;
        size_t len = strcspn(name, " \t\n/>");
        if (len == 0 || len >= sizeof stack[0])
            return "bad tag name";
        /* Walk the attributes, honouring quotes. */
        const char *e = name + len;
        while (*e && *e != '>') {
            if (*e == '"') {
                e = strchr(e + 1, '"');
                if (!e)
                    return "unterminated attribute";
            } else if (*e == '<') {
                return "'<' inside a tag";
            }
            e++;
        }
        if (!*e)
            return "unterminated tag";
        bool self = e[-1] == '/';
        if (closing) {
            if (!depth || strlen(stack[depth - 1]) != len || strncmp(stack[depth - 1], name, len)) {
                snprintf(why, sizeof why, "unbalanced </%.*s>", (int)len, name);
                return why;
            }
            depth--;
        } else if (!self) {
            if (depth == 64)
                return "too deep";
            memcpy(stack[depth], name, len);
            stack[depth++][len] = '\0';
        }
        c = e + 1;
    }
    if (depth) {
        snprintf(why, sizeof why, "<%s> not closed", stack[depth - 1]);
        return why;
    }
    return NULL;
}

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char *render(const ms_schedule *s, const ms_workload *w, bool html)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    ms_plot_labels lab;
    ms_plot_labels_from_workload(s, w, &lab);
    assert_int_equal(html ? ms_plot_html(s, &lab, f, NULL) : ms_plot_svg(s, &lab, f, NULL), 0);
    long len = ftell(f);
    char *buf = malloc((size_t)len + 1);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

/* Names with XML specials; MISO reconfigures on them. */
static ms_workload *workload(void)
{
    static const char *const names[] = {"a<b",       "c&d", "\"quoted\"", "plain", "it's", "x>y",
                                        "long-task", "t7",  "t8",         "t9",    "t10",  "t11"};
    ms_workload *w = ms_workload_new();
    for (int i = 0; i < 12; i++) {
        double t[MS_MAX_SLICES + 1];
        for (int s = 0; s <= MS_MAX_SLICES; s++)
            t[s] = INFINITY;
        double base = 5 + 7 * (i % 5);
        t[1] = base;
        t[2] = base / (i % 3 ? 1.9 : 1.1);
        t[3] = t[2] / 1.3;
        t[4] = t[3] / (i % 2 ? 1.3 : 1.01);
        t[7] = t[4] / 1.5;
        assert_int_equal(ms_workload_add(w, names[i], t, NULL, NULL, NULL), 0);
    }
    return w;
}

static void escaped(const char *name, char *out, size_t len)
{
    size_t o = 0;
    for (const char *c = name; *c && o + 7 < len; c++) {
        const char *e = *c == '<'    ? "&lt;"
                        : *c == '>'  ? "&gt;"
                        : *c == '&'  ? "&amp;"
                        : *c == '"'  ? "&quot;"
                        : *c == '\'' ? "&#39;"
                                     : NULL;
        if (e)
            o += (size_t)snprintf(out + o, len - o, "%s", e);
        else
            out[o++] = *c;
    }
    out[o] = '\0';
}

static void svg_shows_everything(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A100-40GB");
    ms_workload *w = workload();
    ms_schedule *s = NULL;
    assert_int_equal(ms_miso_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    int creates = 0, destroys = 0;
    for (int k = 0; k < s->ninst; k++) {
        creates += isfinite(s->inst[k].create_start);
        destroys += isfinite(s->inst[k].destroy_start);
    }
    assert_true(creates > 0 && destroys > 0);
    for (int html = 0; html < 2; html++) {
        char *doc = render(s, w, html);
        const char *why = xml_check(html ? strstr(doc, "<html") : doc);
        if (why)
            fail_msg("%s not well-formed: %s", html ? "HTML" : "SVG", why);
        for (int i = 0; i < w->n; i++) {
            char e[64], title[96];
            escaped(w->tasks[i].name, e, sizeof e);
            snprintf(title, sizeof title, "<title>%s (task %d)", e, i);
            if (!strstr(doc, title))
                fail_msg("task %s missing (%s)", e, html ? "html" : "svg");
        }
        assert_int_equal(count(doc, "class=\"task\""), w->n);
        assert_int_equal(count(doc, "class=\"create\""), creates);
        assert_int_equal(count(doc, "class=\"destroy\""), destroys);
        assert_int_equal(count(doc, "class=\"makespan\""), 1);
        assert_int_equal(count(doc, "class=\"lbound\""), 1);
        if (html) {
            assert_non_null(strstr(doc, "<!DOCTYPE html>"));
            assert_non_null(strstr(doc, "data-tip="));
            /* Self-contained: nothing fetched. */
            assert_null(strstr(doc, "src="));
            assert_null(strstr(doc, "href="));
        }
        free(doc);
    }
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* One panel per GPU. */
static void panels(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("H100-80GB");
    ms_workload *w = workload();
    ms_schedule *s = NULL;
    assert_int_equal(ms_nomig_schedule(w, gpu, 3, NULL, &s, NULL), 0);
    char *doc = render(s, w, false);
    assert_null(xml_check(doc));
    assert_non_null(strstr(doc, "GPU 2 (H100-80GB)"));
    assert_null(strstr(doc, "GPU 3 ("));
    free(doc);
    ms_schedule_free(s);
    ms_workload_free(w);
}

/* The HTML page is well-formed XML too (a FIXPARTBEST schedule: no reconfiguration). */
static void html_well_formed(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = workload();
    ms_schedule *s = NULL;
    assert_int_equal(ms_fixpartbest_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    char *doc = render(s, w, true);
    const char *why = xml_check(strstr(doc, "<html"));
    if (why)
        fail_msg("HTML not well-formed: %s", why);
    free(doc);
    ms_schedule_free(s);
    ms_workload_free(w);
}

static void checker_rejects(void **state)
{
    assert_null(xml_check("<a><b x=\"1\"/>t &amp; u</a>"));
    assert_non_null(xml_check("<a><b></a></b>"));
    assert_non_null(xml_check("<a>x & y</a>"));
    assert_non_null(xml_check("<a>"));
    assert_non_null(xml_check("<a x=\"1></a>"));
}

static char *read_back(FILE *f)
{
    long len = ftell(f);
    char *buf = malloc((size_t)len + 1);
    rewind(f);
    assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void log_axis_ticks(void **state)
{
    ms_chart_axis a = {.scale = MS_CHART_LOG, .lo = NAN, .hi = NAN};
    ms_chart_ticks t;
    ms_chart_fit(&a, 0.03, 250, 6, &t); /* rounded out to decades, a tick at each */
    static const double decades[] = {0.01, 0.1, 1, 10, 100, 1000};
    assert_int_equal(t.n, 6);
    assert_true(fabs(t.lo - 0.01) < 1e-12 && fabs(t.hi - 1000) < 1e-9);
    for (int k = 0; k < 6; k++)
        assert_true(fabs(t.at[k] / decades[k] - 1) < 1e-12);
    ms_chart_fit(&a, 3, 40, 6, &t); /* two decades: 1, 2 and 5 times each */
    static const double few[] = {1, 2, 5, 10, 20, 50, 100};
    assert_int_equal(t.n, 7);
    for (int k = 0; k < 7; k++)
        assert_true(fabs(t.at[k] / few[k] - 1) < 1e-12);
    ms_chart_fit(&a, 1e-6, 1e14, 6, &t); /* twenty decades: every 2nd (or coarser) */
    assert_true(t.n >= 4 && t.n <= 11);
    for (int k = 1; k < t.n; k++)
        assert_true(t.at[k] > t.at[k - 1] * 99);
    ms_chart_axis lin = {.scale = MS_CHART_LINEAR, .lo = 0, .hi = NAN};
    ms_chart_fit(&lin, 250, 1000, 6, &t); /* from 0, round steps */
    assert_true(t.lo == 0 && t.hi == 1000 && t.at[0] == 0 && t.at[t.n - 1] == 1000);
}

static void chart_escapes_text(void **state)
{
    double x[] = {1, 2}, y[] = {3, 4};
    ms_chart_series s = {"a<b & \"c\"", x, y, 2, NULL, MS_CHART_POINTS};
    ms_chart_panel p = {.title = "<&\">",
                        .x = {.label = "x & y", .lo = NAN, .hi = NAN},
                        .y = {.label = "\"y\"", .lo = NAN, .hi = NAN},
                        .series = &s,
                        .nseries = 1};
    ms_chart c = {.title = "t<1>", .note = "n&m"};
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(ms_chart_svg(&c, &p, 1, f, NULL), 0);
    char *doc = read_back(f);
    const char *why = xml_check(doc);
    if (why)
        fail_msg("chart not well-formed: %s", why);
    assert_non_null(strstr(doc, ">a&lt;b &amp; &quot;c&quot;</text>"));
    assert_non_null(strstr(doc, "<title>a&lt;b &amp; &quot;c&quot;: x 1, y 3</title>"));
    assert_non_null(strstr(doc, ">&lt;&amp;&quot;&gt;</text>"));
    assert_non_null(strstr(doc, ">t&lt;1&gt;</text>"));
    assert_non_null(strstr(doc, ">n&amp;m</text>"));
    assert_null(strstr(doc, "a<b"));
    free(doc);
}

/* The frames' corners, in document order. */
static int frames(const char *doc, double *x, double *y, int max)
{
    int n = 0;
    for (const char *p = strstr(doc, "class=\"frame\""); p && n < max;
         p = strstr(p + 1, "class=\"frame\""))
        if (sscanf(p, "class=\"frame\" x=\"%lf\" y=\"%lf\"", &x[n], &y[n]) == 2)
            n++;
    return n;
}

static void chart_panel_layout(void **state)
{
    double x[] = {0, 1, 2}, y[] = {5, 7, 6};
    ms_chart_series s[2] = {{"one", x, y, 3, NULL, MS_CHART_STEPS},
                            {"two", x, x, 3, NULL, MS_CHART_DASHED}};
    ms_chart_panel p[3];
    for (int i = 0; i < 3; i++)
        p[i] = (ms_chart_panel){
            .x = {.lo = NAN, .hi = NAN}, .y = {.lo = NAN, .hi = NAN}, .series = s, .nseries = 2};
    ms_chart c = {.columns = 2, .panel_width = 300, .panel_height = 200, .shared_legend = true};
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(ms_chart_svg(&c, p, 3, f, NULL), 0);
    char *doc = read_back(f);
    assert_null(xml_check(doc));
    double fx[4], fy[4];
    assert_int_equal(frames(doc, fx, fy, 4), 3);
    /* Two in the first row, the third under the first; rows far enough apart. */
    assert_true(fy[0] == fy[1] && fx[1] >= fx[0] + 300);
    assert_true(fx[2] == fx[0] && fy[2] >= fy[0] + 200);
    assert_int_equal(count(doc, "<polyline class=\"curve\""), 6);
    assert_int_equal(count(doc, ">one</text>"), 1); /* one shared legend */
    assert_int_equal(count(doc, "stroke-dasharray"), 3 + 1);
    /* A staircase: 3 points drawn as 5. */
    const char *pts = strstr(doc, "points=\"");
    int commas = 0;
    for (const char *q = pts + 8; *q != '"'; q++)
        commas += *q == ',';
    assert_int_equal(commas, 5);
    free(doc);
    assert_int_equal(ms_chart_svg(&c, p, 0, stdout, NULL), MS_EINVAL);
}

static void write_file_by_extension(void **state)
{
    const ms_gpu_model *gpu = ms_gpu_builtin("A30-24GB");
    ms_workload *w = workload();
    ms_schedule *s = NULL;
    assert_int_equal(ms_nomig_schedule(w, gpu, 1, NULL, &s, NULL), 0);
    ms_plot_labels lab;
    ms_plot_labels_from_workload(s, w, &lab);
    ms_error err = {0};
    assert_int_equal(ms_plot_write_file("/tmp/x.png", s, &lab, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, ".svg"));
    char *path = test_write_temp("");
    char svg[4096];
    snprintf(svg, sizeof svg, "%s.svg", path);
    assert_int_equal(ms_plot_write_file(svg, s, &lab, &err), 0);
    FILE *f = fopen(svg, "r");
    assert_non_null(f);
    char head[64] = {0};
    assert_true(fread(head, 1, sizeof head - 1, f) > 0);
    fclose(f);
    assert_non_null(strstr(head, "<?xml"));
    remove(svg);
    remove(path);
    free(path);
    ms_schedule_free(s);
    ms_workload_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(checker_rejects),         cmocka_unit_test(svg_shows_everything),
        cmocka_unit_test(html_well_formed),        cmocka_unit_test(panels),
        cmocka_unit_test(write_file_by_extension), cmocka_unit_test(log_axis_ticks),
        cmocka_unit_test(chart_escapes_text),      cmocka_unit_test(chart_panel_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
