/* plot_svg.c: a schedule drawn as SVG: per GPU, compute slices against time, task boxes,
 * creation/destruction periods, makespan and lower bound lines. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "migsched/chart.h"
#include "migsched/plot.h"
#include "plot_internal.h"

enum {
    WIDTH = 1000,
    LEFT = 90,
    RIGHT = 30,
    TOP = 40,
    ROW = 26,
    PANEL_HEAD = 22,
    PANEL_GAP = 14,
    AXIS = 34,
    LEGEND = 26,
};

#define CREATE_COLOUR  "#17becf"
#define DESTROY_COLOUR "#d62728"

typedef struct frame {
    double tmax; /* time at the right edge */
    int height;
} frame;

static double x_of(const frame *fr, double t)
{
    return LEFT + t / fr->tmax * (WIDTH - LEFT - RIGHT);
}

static int panel_top(const ms_schedule *s, int g)
{
    return TOP + g * (PANEL_HEAD + s->gpu.slices * ROW + PANEL_GAP);
}

static void set_frame(const ms_schedule *s, const ms_plot_labels *lab, frame *fr)
{
    double t = ms_schedule_makespan(s);
    if (isfinite(lab->l_bound))
        t = fmax(t, lab->l_bound);
    for (int k = 0; k < s->ninst; k++) {
        if (isfinite(s->inst[k].create_end))
            t = fmax(t, s->inst[k].create_end);
        if (isfinite(s->inst[k].destroy_end))
            t = fmax(t, s->inst[k].destroy_end);
    }
    fr->tmax = t > 0 ? t * 1.02 : 1.0;
    fr->height = panel_top(s, s->gpus) + AXIS + LEGEND;
}

static void task_name(const ms_plot_labels *lab, int index, char *buf, size_t len)
{
    if (lab->w && index >= 0 && index < lab->w->n)
        snprintf(buf, len, "%s", lab->w->tasks[index].name);
    else if (lab->names && index >= 0 && index < lab->nnames && lab->names[index])
        snprintf(buf, len, "%s", lab->names[index]);
    else
        snprintf(buf, len, "task %d", index);
}

static void instance_name(const ms_schedule *s, const ms_sched_instance *in, char *buf, size_t len)
{
    const char *prof = in->profile >= 0 && in->profile < s->gpu.nprofiles
                           ? s->gpu.profiles[in->profile].name
                           : "?";
    snprintf(buf, len, "instance %d (%s@%d, GPU %d)", in->id, prof, in->start_slot, in->gpu);
}

/* Rows of the instance: its compute slices. */
static void rows_of(const ms_schedule *s, const ms_sched_instance *in, int *first, int *n)
{
    *first = 0;
    *n = s->gpu.slices;
    if (in->profile < 0 || in->profile >= s->gpu.nprofiles)
        return;
    uint32_t mask = ms_gpu_slice_mask(&s->gpu, (ms_placement){in->profile, in->start_slot});
    if (!mask)
        return;
    *first = __builtin_ctz(mask);
    *n = __builtin_popcount(mask);
}

/* A rectangle with a <title> and the same text in data-tip (the HTML tooltip). */
static void box(FILE *f, const char *cls, double x0, double x1, double y, double h,
                const char *fill, const char *tip)
{
    fprintf(f,
            "<rect class=\"%s\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\"",
            cls, x0, y, fmax(x1 - x0, 1.5), h, fill);
    fputs(" data-tip=\"", f);
    ms_svg_escape(f, tip);
    fputs("\"><title>", f);
    ms_svg_escape(f, tip);
    fputs("</title></rect>\n", f);
}

static void draw_instance(FILE *f, const ms_schedule *s, const frame *fr,
                          const ms_sched_instance *in)
{
    int r0, nr;
    rows_of(s, in, &r0, &nr);
    double y = panel_top(s, in->gpu) + PANEL_HEAD + r0 * ROW + 1, h = nr * ROW - 2;
    double born = isfinite(in->create_start) ? in->create_start : 0.0;
    double gone = isfinite(in->destroy_end) ? in->destroy_end : fr->tmax;
    char name[128], tip[256];
    instance_name(s, in, name, sizeof name);
    snprintf(tip, sizeof tip, "%s alive %.3f - %s", name, born,
             isfinite(in->destroy_end) ? "" : "end");
    if (isfinite(in->destroy_end))
        snprintf(tip + strlen(tip), sizeof tip - strlen(tip), "%.3f s", in->destroy_end);
    fprintf(f,
            "<rect class=\"lifetime\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
            "fill=\"#f3f3f3\" stroke=\"#888\" stroke-width=\"0.6\"/>\n",
            x_of(fr, born), y, fmax(x_of(fr, gone) - x_of(fr, born), 0.5), h);
    if (isfinite(in->create_start) && isfinite(in->create_end)) {
        snprintf(tip, sizeof tip, "create %s: %.3f - %.3f s", name, in->create_start,
                 in->create_end);
        box(f, "create", x_of(fr, in->create_start), x_of(fr, in->create_end), y, h, CREATE_COLOUR,
            tip);
    }
    if (isfinite(in->destroy_start) && isfinite(in->destroy_end)) {
        snprintf(tip, sizeof tip, "destroy %s: %.3f - %.3f s", name, in->destroy_start,
                 in->destroy_end);
        box(f, "destroy", x_of(fr, in->destroy_start), x_of(fr, in->destroy_end), y, h,
            DESTROY_COLOUR, tip);
    }
}

static void draw_task(FILE *f, const ms_schedule *s, const ms_plot_labels *lab, const frame *fr,
                      const ms_sched_task *t)
{
    if (t->instance < 0 || t->instance >= s->ninst)
        return;
    const ms_sched_instance *in = &s->inst[t->instance];
    int r0, nr;
    rows_of(s, in, &r0, &nr);
    double y = panel_top(s, in->gpu) + PANEL_HEAD + r0 * ROW + 3, h = nr * ROW - 6;
    char name[160], iname[128], tip[400];
    task_name(lab, t->index, name, sizeof name);
    instance_name(s, in, iname, sizeof iname);
    snprintf(tip, sizeof tip, "%s (task %d) on %s: %.3f - %.3f s", name, t->index, iname, t->start,
             t->end);
    double x0 = x_of(fr, t->start), x1 = x_of(fr, t->end);
    box(f, "task", x0, x1, y, h, ms_chart_colour(t->index < 0 ? 0 : t->index), tip);
    /* The name inside the box, clipped to it so narrow boxes stay readable. */
    fprintf(f,
            "<svg x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\"><text x=\"3\" y=\"%.2f\" "
            "font-size=\"11\" fill=\"#111\" pointer-events=\"none\">",
            x0, y, fmax(x1 - x0, 0.5), h, h / 2 + 4);
    ms_svg_escape(f, name);
    fputs("</text></svg>\n", f);
}

static void draw_frame(FILE *f, const ms_schedule *s, const frame *fr)
{
    for (int g = 0; g < s->gpus; g++) {
        int top = panel_top(s, g);
        fprintf(
            f, "<text x=\"%d\" y=\"%d\" font-size=\"13\" font-weight=\"bold\">GPU %d (%s)</text>\n",
            LEFT, top + 15, g, s->gpu.name);
        for (int r = 0; r < s->gpu.slices; r++)
            fprintf(
                f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">slice %d</text>\n",
                LEFT - 6, top + PANEL_HEAD + r * ROW + ROW / 2 + 4, r);
        fprintf(
            f,
            "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n",
            LEFT, top + PANEL_HEAD, WIDTH - LEFT - RIGHT, s->gpu.slices * ROW);
    }
    int axis_y = panel_top(s, s->gpus);
    double step = ms_chart_nice_step(fr->tmax, 8);
    for (double t = 0; t <= fr->tmax + 1e-9; t += step)
        fprintf(f,
                "<line x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#444\"/>"
                "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%g</text>\n",
                x_of(fr, t), axis_y - PANEL_GAP, x_of(fr, t), axis_y - PANEL_GAP + 5, x_of(fr, t),
                axis_y + 4, t);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">time (s)</text>\n",
            (WIDTH + LEFT) / 2, axis_y + 18);
}

static void draw_marks(FILE *f, const ms_schedule *s, const ms_plot_labels *lab, const frame *fr)
{
    int y0 = TOP - 6, y1 = panel_top(s, s->gpus) - PANEL_GAP;
    double ms = ms_schedule_makespan(s);
    fprintf(
        f,
        "<line class=\"makespan\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#000\" "
        "stroke-width=\"1.5\"><title>makespan %.3f s</title></line>\n"
        "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">makespan %.2f s</text>\n",
        x_of(fr, ms), y0, x_of(fr, ms), y1, ms, x_of(fr, ms) - 3, y0 + 2, ms);
    if (!isfinite(lab->l_bound))
        return;
    fprintf(
        f,
        "<line class=\"lbound\" x1=\"%.2f\" y1=\"%d\" x2=\"%.2f\" y2=\"%d\" stroke=\"#7a0177\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"6 4\"><title>lower bound %.3f s</title></line>\n"
        "<text x=\"%.2f\" y=\"%d\" font-size=\"11\" fill=\"#7a0177\">lower bound %.2f s</text>\n",
        x_of(fr, lab->l_bound), y0, x_of(fr, lab->l_bound), y1, lab->l_bound,
        x_of(fr, lab->l_bound) + 3, y0 - 12, lab->l_bound);
}

static void draw_legend(FILE *f, const frame *fr)
{
    int y = fr->height - LEGEND + 6;
    fprintf(f,
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\" font-size=\"11\">instance creation</text>\n"
            "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"12\" fill=\"%s\"/>"
            "<text x=\"%d\" y=\"%d\" font-size=\"11\">instance destruction</text>\n",
            LEFT, y, CREATE_COLOUR, LEFT + 18, y + 10, LEFT + 150, y, DESTROY_COLOUR, LEFT + 168,
            y + 10);
}

void plot_svg_element(const ms_schedule *s, const ms_plot_labels *lab, FILE *f)
{
    frame fr;
    set_frame(s, lab, &fr);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n",
            WIDTH, fr.height, WIDTH, fr.height);
    fprintf(f,
            "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n<text x=\"%d\" y=\"16\" "
            "font-size=\"14\" font-weight=\"bold\">",
            WIDTH, fr.height, LEFT);
    ms_svg_escape(f, lab->title ? lab->title : s->algorithm);
    fputs("</text>\n", f);
    draw_frame(f, s, &fr);
    for (int k = 0; k < s->ninst; k++)
        draw_instance(f, s, &fr, &s->inst[k]);
    for (int i = 0; i < s->ntasks; i++)
        draw_task(f, s, lab, &fr, &s->task[i]);
    draw_marks(f, s, lab, &fr);
    draw_legend(f, &fr);
    fputs("</svg>\n", f);
}

int ms_plot_svg(const ms_schedule *s, const ms_plot_labels *lab, FILE *f, ms_error *err)
{
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    plot_svg_element(s, lab, f);
    if (ferror(f))
        return ms_error_set(err, MS_EIO, "cannot write the SVG");
    return MS_OK;
}

void ms_plot_labels_from_workload(const ms_schedule *s, const ms_workload *w, ms_plot_labels *out)
{
    memset(out, 0, sizeof *out);
    out->w = w;
    ms_metrics m;
    ms_schedule_metrics(s, w, &m);
    out->l_bound = m.l_bound;
}
