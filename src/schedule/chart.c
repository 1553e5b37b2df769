/* chart.c: the chart writer's drawing: panels laid out row by row, each with its frame,
 * grid, tick labels, axis labels, series, marks and legend; escaped text throughout. */
#include <math.h>
#include <stdio.h>

#include "chart_internal.h"
#include "migsched/io.h"

enum {
    LEFT = 72,  /* left of each plot area: tick labels and the rotated y label */
    HEAD = 26,  /* above it: the panel's title */
    BELOW = 46, /* under it: tick labels and the x label */
    RIGHT = 24, /* right of it when its legend is elsewhere */
    GAP = 20,   /* between it and its legend */
    LEGEND_W = 220,
    LEGEND_ROW = 18,
    TITLE_H = 34,
    NOTE_H = 24,
    DEFAULT_W = 600,
    DEFAULT_H = 360,
};
#define MARK_COLOUR "#d62728"

static const char *const palette[] = {
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2",
    "#ff9da7", "#9c755f", "#8cd17d", "#a0cbe8", "#ffbe7d", "#d4a6c8",
};

const char *ms_chart_colour(int i)
{
    int n = (int)(sizeof palette / sizeof palette[0]);
    return palette[(i % n + n) % n];
}

void ms_svg_escape(FILE *f, const char *text)
{
    for (const char *c = text; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc((unsigned char)*c < 0x20 && *c != '\t' ? '?' : *c, f);
        }
    }
}

/* The sizes every panel shares. */
typedef struct layout {
    int pw, ph, cols, cell_w, width, height;
    bool shared;
} layout;

/* A panel placed: its plot area's top left corner and fitted axes. */
typedef struct placed {
    const ms_chart_panel *p;
    double x0, y0;
    ms_chart_ticks tx, ty;
} placed;

static int legend_entries(const ms_chart_panel *p)
{
    int n = p->marks_label ? 1 : 0;
    for (int i = 0; i < p->nseries; i++)
        n += p->series[i].label != NULL;
    return n;
}

static double px(const placed *q, const layout *l, double x)
{
    return q->x0 + chart_fraction(&q->p->x, &q->tx, x) * l->pw;
}

static double py(const placed *q, const layout *l, double y)
{
    return q->y0 + l->ph - chart_fraction(&q->p->y, &q->ty, y) * l->ph;
}

static bool drawable(const ms_chart_panel *p, const ms_chart_series *s, int k)
{
    return chart_drawable(&p->x, s->x[k]) && chart_drawable(&p->y, s->y[k]);
}

/* About a tick per this many pixels: fewer on smaller panels. */
enum { X_TICK_PX = 100, Y_TICK_PX = 60 };

static void fit(placed *q, const layout *l)
{
    double x[2] = {NAN, NAN}, y[2] = {NAN, NAN};
    for (int i = 0; i < q->p->nseries; i++) {
        const ms_chart_series *s = &q->p->series[i];
        for (int k = 0; k < s->n; k++)
            if (drawable(q->p, s, k)) {
                x[0] = isnan(x[0]) ? s->x[k] : fmin(x[0], s->x[k]);
                x[1] = isnan(x[1]) ? s->x[k] : fmax(x[1], s->x[k]);
                y[0] = isnan(y[0]) ? s->y[k] : fmin(y[0], s->y[k]);
                y[1] = isnan(y[1]) ? s->y[k] : fmax(y[1], s->y[k]);
            }
    }
    ms_chart_fit(&q->p->x, x[0], x[1], l->pw / X_TICK_PX, &q->tx);
    ms_chart_fit(&q->p->y, y[0], y[1], l->ph / Y_TICK_PX, &q->ty);
}

static void text_at(FILE *f, double x, double y, const char *attrs, const char *text)
{
    fprintf(f, "<text x=\"%.2f\" y=\"%.2f\"%s>", x, y, attrs);
    ms_svg_escape(f, text ? text : "");
    fputs("</text>\n", f);
}

static void draw_axes(FILE *f, const placed *q, const layout *l)
{
    char t[32];
    for (int k = 0; k < q->tx.n; k++) {
        double x = px(q, l, q->tx.at[k]);
        chart_tick_text(&q->p->x, &q->tx, q->tx.at[k], t, sizeof t);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e4e4e4\"/>", x,
                q->y0, x, q->y0 + l->ph);
        text_at(f, x, q->y0 + l->ph + 16, " font-size=\"11\" text-anchor=\"middle\"", t);
    }
    for (int k = 0; k < q->ty.n; k++) {
        double y = py(q, l, q->ty.at[k]);
        chart_tick_text(&q->p->y, &q->ty, q->ty.at[k], t, sizeof t);
        fprintf(f, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#e4e4e4\"/>",
                q->x0, y, q->x0 + l->pw, y);
        text_at(f, q->x0 - 6, y + 4, " font-size=\"11\" text-anchor=\"end\"", t);
    }
    fprintf(f,
            "<rect class=\"frame\" x=\"%.2f\" y=\"%.2f\" width=\"%d\" height=\"%d\" "
            "fill=\"none\" stroke=\"#444\"/>\n",
            q->x0, q->y0, l->pw, l->ph);
    if (q->p->title)
        text_at(f, q->x0, q->y0 - 8, " font-size=\"13\" font-weight=\"bold\"", q->p->title);
    if (q->p->x.label)
        text_at(f, q->x0 + l->pw / 2.0, q->y0 + l->ph + 36,
                " font-size=\"12\" text-anchor=\"middle\"", q->p->x.label);
    if (q->p->y.label) {
        char rot[96];
        double x = q->x0 - LEFT + 16, y = q->y0 + l->ph / 2.0;
        snprintf(rot, sizeof rot,
                 " font-size=\"12\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 %.2f %.2f)\"",
                 x, y);
        text_at(f, x, y, rot, q->p->y.label);
    }
}

static const char *colour_of(const ms_chart_series *s, int i)
{
    return s->colour ? s->colour : ms_chart_colour(i);
}

static void draw_series(FILE *f, const placed *q, const layout *l, int i)
{
    const ms_chart_series *s = &q->p->series[i];
    fprintf(f,
            "<polyline class=\"curve\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s "
            "points=\"",
            colour_of(s, i), s->style & MS_CHART_DASHED ? " stroke-dasharray=\"5 3\"" : "");
    const char *sep = "";
    double prev_y = NAN;
    for (int k = 0; k < s->n; k++) {
        if (!drawable(q->p, s, k))
            continue;
        double x = px(q, l, s->x[k]), y = py(q, l, s->y[k]);
        if (s->style & MS_CHART_STEPS && !isnan(prev_y))
            fprintf(f, " %.2f,%.2f", x, prev_y);
        fprintf(f, "%s%.2f,%.2f", sep, x, y);
        sep = " ", prev_y = y;
    }
    fputs("\">", f);
    if (s->label) {
        fputs("<title>", f);
        ms_svg_escape(f, s->label);
        fputs("</title>", f);
    }
    fputs("</polyline>\n", f);
    if (!(s->style & MS_CHART_POINTS))
        return;
    for (int k = 0; k < s->n; k++) {
        if (!drawable(q->p, s, k))
            continue;
        fprintf(f, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\" fill=\"%s\"><title>",
                px(q, l, s->x[k]), py(q, l, s->y[k]), colour_of(s, i));
        ms_svg_escape(f, s->label ? s->label : "");
        fputs(": ", f);
        ms_svg_escape(f, q->p->x.name ? q->p->x.name : "x");
        fprintf(f, " %.6g, ", s->x[k]);
        ms_svg_escape(f, q->p->y.name ? q->p->y.name : "y");
        fprintf(f, " %.6g</title></circle>\n", s->y[k]);
    }
}

static void draw_marks(FILE *f, const placed *q, const layout *l)
{
    for (int k = 0; k < q->p->nmarks; k++) {
        double v = q->p->marks[k];
        if (!chart_drawable(&q->p->x, v) || v < q->tx.lo || v > q->tx.hi)
            continue;
        fprintf(f,
                "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
                "stroke-opacity=\"0.5\"/>\n",
                px(q, l, v), q->y0 + l->ph - 12, px(q, l, v), q->y0 + l->ph, MARK_COLOUR);
    }
}

static void legend_entry(FILE *f, double x, double y, const char *colour, bool dashed,
                         const char *label)
{
    fprintf(f,
            "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\" "
            "stroke-width=\"3\"%s/>",
            x, y, x + 26, y, colour, dashed ? " stroke-dasharray=\"5 3\"" : "");
    text_at(f, x + 32, y + 4, " font-size=\"12\"", label);
}

static void draw_legend(FILE *f, const ms_chart_panel *p, double x, double y)
{
    int row = 0;
    for (int i = 0; i < p->nseries; i++)
        if (p->series[i].label)
            legend_entry(f, x, y + 8 + LEGEND_ROW * row++, colour_of(&p->series[i], i),
                         p->series[i].style & MS_CHART_DASHED, p->series[i].label);
    if (p->marks_label)
        legend_entry(f, x, y + 8 + LEGEND_ROW * row, MARK_COLOUR, false, p->marks_label);
}

/* The height of row r's cells: the plot area, or its tallest legend. */
static int row_height(const layout *l, const ms_chart_panel *p, int np, int r)
{
    int h = l->ph;
    for (int i = r * l->cols; i < np && i < (r + 1) * l->cols; i++)
        if (!l->shared || i == 0) {
            int lh = 8 + LEGEND_ROW * legend_entries(&p[i]);
            h = lh > h ? lh : h;
        }
    return HEAD + h + BELOW;
}

static void set_layout(const ms_chart *c, const ms_chart_panel *p, int np, layout *l)
{
    l->pw = c->panel_width > 0 ? c->panel_width : DEFAULT_W;
    l->ph = c->panel_height > 0 ? c->panel_height : DEFAULT_H;
    l->cols = c->columns > 1 ? (c->columns < np ? c->columns : np) : 1;
    l->shared = c->shared_legend;
    l->cell_w = LEFT + l->pw + (l->shared ? RIGHT : GAP + LEGEND_W);
    l->width = l->cols * l->cell_w + (l->shared ? LEGEND_W : 0);
    l->height = TITLE_H + (c->note ? NOTE_H : 0);
    for (int r = 0; r * l->cols < np; r++)
        l->height += row_height(l, p, np, r);
}

int ms_chart_svg(const ms_chart *c, const ms_chart_panel *p, int np, FILE *f, ms_error *err)
{
    if (np < 1)
        return ms_error_set(err, MS_EINVAL, "a chart needs at least one panel");
    layout l;
    set_layout(c, p, np, &l);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n<rect width=\"%d\" "
            "height=\"%d\" fill=\"#fff\"/>\n",
            l.width, l.height, l.width, l.height, l.width, l.height);
    if (c->title)
        text_at(f, LEFT, 22, " font-size=\"14\" font-weight=\"bold\"", c->title);
    int top = TITLE_H;
    for (int i = 0; i < np; i++) {
        int col = i % l.cols;
        placed q = {.p = &p[i], .x0 = col * l.cell_w + LEFT, .y0 = top + HEAD};
        fit(&q, &l);
        draw_axes(f, &q, &l);
        draw_marks(f, &q, &l);
        for (int s = 0; s < p[i].nseries; s++)
            draw_series(f, &q, &l, s);
        if (!l.shared)
            draw_legend(f, &p[i], q.x0 + l.pw + GAP, q.y0);
        else if (i == 0)
            draw_legend(f, &p[0], l.cols * l.cell_w, q.y0);
        if (col == l.cols - 1 || i == np - 1)
            top += row_height(&l, p, np, i / l.cols);
    }
    if (c->note)
        text_at(f, LEFT, l.height - 8, " font-size=\"12\"", c->note);
    fputs("</svg>\n", f);
    if (ferror(f))
        return ms_error_set(err, MS_EIO, "cannot write the SVG");
    return MS_OK;
}

int ms_chart_write_file(const char *path, const ms_chart *c, const ms_chart_panel *p, int np,
                        ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    rc = ms_chart_svg(c, p, np, o.f, err);
    if (rc) {
        ms_output_abort(&o);
        ms_error_prefix(err, "%s", path);
        return rc;
    }
    return ms_output_commit(&o, err);
}
