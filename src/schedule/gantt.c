/* gantt.c: a text Gantt chart of a schedule for terminals: one row per instance. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/schedule.h"

#define LABEL_W 16

typedef struct axis {
    double scale; /* columns per second */
    int width;
} axis;

static int col(const axis *a, double t)
{
    double x = t * a->scale;
    if (!(x > 0)) /* also NaN */
        return 0;
    return x >= a->width ? a->width : (int)lround(x);
}

/* Fills [from, to) of row with ch (at least one cell, so short events stay visible). */
static void paint(char *row, const axis *a, double from, double to, char ch)
{
    int c0 = col(a, from), c1 = col(a, to);
    if (c1 <= c0)
        c1 = c0 + 1;
    for (int c = c0; c < c1 && c < a->width; c++)
        row[c] = ch;
}

static void paint_task(char *row, const axis *a, const char *name, double from, double to)
{
    int c0 = col(a, from), c1 = col(a, to);
    if (c1 <= c0)
        c1 = c0 + 1;
    if (c1 > a->width)
        c1 = a->width;
    if (c0 >= c1)
        return;
    memset(row + c0, '=', (size_t)(c1 - c0));
    row[c0] = '[';
    if (c1 - c0 >= 2)
        row[c1 - 1] = ']';
    int room = c1 - c0 - 2;
    int len = (int)strlen(name);
    memcpy(row + c0 + 1, name, (size_t)(len < room ? len : room > 0 ? room : 0));
}

static int cmp_row(const void *pa, const void *pb, void *arg)
{
    const ms_schedule *s = arg;
    const ms_sched_instance *a = &s->inst[*(const int *)pa], *b = &s->inst[*(const int *)pb];
    if (a->gpu != b->gpu)
        return a->gpu - b->gpu;
    if (a->start_slot != b->start_slot)
        return a->start_slot - b->start_slot;
    double ca = isnan(a->create_start) ? -1 : a->create_start;
    double cb = isnan(b->create_start) ? -1 : b->create_start;
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return a->id - b->id;
}

/* A round tick step (1, 2 or 5 times a power of ten) giving ticks at least 8 columns apart. */
static double tick_step(const axis *a)
{
    double raw = 8.0 / a->scale, p = pow(10.0, floor(log10(raw)));
    return raw <= p ? p : raw <= 2 * p ? 2 * p : raw <= 5 * p ? 5 * p : 10 * p;
}

/* Tick marks with their times underneath, and M at the makespan. */
static void print_axis(FILE *f, const axis *a, double makespan)
{
    char line[a->width + 2], nums[a->width + 32];
    memset(line, '-', (size_t)a->width + 1);
    memset(nums, ' ', (size_t)a->width + 31);
    double step = tick_step(a);
    int free_from = 0; /* first column a label may use */
    for (int i = 0; col(a, i * step) < a->width || i == 0; i++) {
        int c = col(a, i * step);
        line[c] = '+';
        char t[24];
        int n = snprintf(t, sizeof t, "%g", i * step);
        if (c >= free_from && c + n <= a->width + 30) {
            memcpy(nums + c, t, (size_t)n);
            free_from = c + n + 1;
        }
    }
    line[col(a, makespan)] = 'M';
    line[a->width + 1] = '\0';
    int end = a->width + 31;
    while (end > 0 && nums[end - 1] == ' ')
        end--;
    nums[end] = '\0';
    fprintf(f, "%-*s%s\n%-*s%s  (seconds)\n", LABEL_W, "", line, LABEL_W, "", nums);
}

void ms_schedule_gantt(const ms_schedule *s, const ms_workload *w, FILE *f, int width)
{
    axis a = {0, width < 20 ? 20 : width > 1000 ? 1000 : width};
    double makespan = ms_schedule_makespan(s), horizon = makespan;
    for (int k = 0; k < s->ninst; k++) {
        const ms_sched_instance *in = &s->inst[k];
        double last = isfinite(in->destroy_end) ? in->destroy_end : in->create_end;
        if (isfinite(last) && last > horizon)
            horizon = last;
    }
    a.scale = a.width / (horizon > 0 ? horizon : 1.0);
    fprintf(f, "%s x%d, %s: makespan %.6g s, %d instances, %d tasks\n", s->gpu.name, s->gpus,
            *s->algorithm ? s->algorithm : "schedule", makespan, s->ninst, s->ntasks);
    int *order = malloc((size_t)(s->ninst + 1) * sizeof *order);
    char *row = malloc((size_t)a.width + 1);
    if (!order || !row)
        goto done;
    for (int k = 0; k < s->ninst; k++)
        order[k] = k;
    qsort_r(order, (size_t)s->ninst, sizeof *order, cmp_row, (void *)s);
    for (int r = 0; r < s->ninst; r++) {
        const ms_sched_instance *in = &s->inst[order[r]];
        if (in->profile < 0 || in->profile >= s->gpu.nprofiles)
            continue;
        memset(row, ' ', (size_t)a.width);
        row[a.width] = '\0';
        double born = isnan(in->create_start) ? 0 : in->create_start;
        paint(row, &a, born, isnan(in->destroy_end) ? horizon : in->destroy_end, '.');
        if (!isnan(in->create_start))
            paint(row, &a, in->create_start, in->create_end, '+');
        if (!isnan(in->destroy_start))
            paint(row, &a, in->destroy_start, in->destroy_end, 'x');
        for (int i = 0; i < s->ntasks; i++) {
            const ms_sched_task *t = &s->task[i];
            if (t->instance != in->id)
                continue;
            char name[24];
            if (w && t->index >= 0 && t->index < w->n)
                snprintf(name, sizeof name, "%s", w->tasks[t->index].name);
            else
                snprintf(name, sizeof name, "#%d", t->index);
            paint_task(row, &a, name, t->start, t->end);
        }
        char label[MS_NAME_LEN + 32];
        snprintf(label, sizeof label, "g%d %s@%d", in->gpu, s->gpu.profiles[in->profile].name,
                 in->start_slot);
        int end = a.width;
        while (end > 0 && row[end - 1] == ' ')
            end--;
        fprintf(f, "%-*.*s|%.*s\n", LABEL_W - 1, LABEL_W - 1, label, end, row);
    }
    print_axis(f, &a, makespan);
    fprintf(f, "legend: + creating  x destroying  [name] task  . idle  M makespan\n");
done:
    free(order);
    free(row);
}
