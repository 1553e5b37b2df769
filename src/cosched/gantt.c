/* gantt.c: a co-schedule drawn as a two-stream Gantt chart (SVG), its time axis and text
 * through the chart writer. */
#include <math.h>
#include <stdio.h>

#include "migsched/chart.h"
#include "migsched/cosched.h"
#include "migsched/io.h"

enum { X0 = 20, X1 = 1000, AXIS_Y = 175 };

/* Round time ticks under the lanes, 0 to the makespan. */
static void time_axis(FILE *f, double total)
{
    ms_chart_axis a = {.scale = MS_CHART_LINEAR, .lo = 0, .hi = total, .fixed = true};
    ms_chart_ticks t;
    ms_chart_fit(&a, NAN, NAN, 8, &t);
    for (int k = 0; k < t.n; k++) {
        double x = X0 + (X1 - X0) * t.at[k] / total;
        fprintf(f,
                "<line x1='%.2f' y1='%d' x2='%.2f' y2='%d' stroke='#444'/>"
                "<text x='%.2f' y='%d' font-size='11' text-anchor='middle'>%g</text>\n",
                x, AXIS_Y - 10, x, AXIS_Y - 5, x, AXIS_Y + 10, t.at[k]);
    }
}

int ms_cosched_plot(const ms_cosched_instance *in, const ms_cosched_schedule *s, const char *title,
                    const char *path, ms_error *err)
{
    ms_output o;
    int rc = ms_output_open(&o, path, err);
    if (rc)
        return rc;
    FILE *f = o.f;
    double total = ms_cosched_makespan(s), t = 0;
    if (total <= 0)
        total = 1;
    int lane_y[2] = {50, 110}, lane_h = 50, prev[2] = {-1, -1};
    fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='1020' height='200' "
               "font-family='sans-serif'>\n<rect width='100%%' height='100%%' fill='white'/>\n"
               "<text x='20' y='24' font-size='14'>");
    ms_svg_escape(f, title);
    fprintf(f, " (makespan %.6g, %d preemptions)</text>\n", ms_cosched_makespan(s),
            ms_cosched_preemptions(s, NULL));
    for (int l = 0; l < s->len; l++) {
        const ms_cosched_interval *v = &s->iv[l];
        /* Keep a task in the stream it already occupies. */
        int lane[2] = {0, 1}, task[2] = {v->a, v->b};
        if (v->a == prev[1] || (v->b >= 0 && v->b == prev[0]))
            lane[0] = 1, lane[1] = 0;
        double px = X0 + (X1 - X0) * t / total, w = (X1 - X0) * v->d / total;
        int cur[2] = {-1, -1};
        for (int k = 0; k < 2; k++) {
            if (task[k] < 0)
                continue;
            cur[lane[k]] = task[k];
            unsigned h = 2166136261u;
            for (const char *c = in->names[task[k]]; *c; c++)
                h = (h ^ (unsigned char)*c) * 16777619u;
            fprintf(f,
                    "<rect x='%.2f' y='%d' width='%.2f' height='%d' fill='hsl(%u,60%%,70%%)' "
                    "stroke='#333' stroke-width='0.5'><title>",
                    px, lane_y[lane[k]], w, lane_h, h % 360);
            ms_svg_escape(f, in->names[task[k]]);
            fprintf(f, " %.6g..%.6g</title></rect>", t, t + v->d);
            if (w > 40) {
                fprintf(f, "<text x='%.2f' y='%d' font-size='10'>", px + 2, lane_y[lane[k]] + 28);
                ms_svg_escape(f, in->names[task[k]]);
                fprintf(f, "</text>");
            }
            fputc('\n', f);
        }
        prev[0] = cur[0], prev[1] = cur[1];
        t += v->d;
    }
    time_axis(f, total);
    fprintf(f, "</svg>\n");
    return ms_output_commit(&o, err);
}
