/* instance.c: co-scheduling instances (durations + speed matrix): allocation and validation. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/cosched.h"
#include "migsched/io.h"

ms_cosched_instance *ms_cosched_instance_new(int n)
{
    if (n < 0)
        return NULL;
    ms_cosched_instance *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
    in->n = n;
    in->names = calloc((size_t)n + 1, sizeof *in->names);
    in->p = calloc((size_t)n + 1, sizeof *in->p);
    in->speed = calloc((size_t)n * (size_t)n + 1, sizeof *in->speed);
    if (!in->names || !in->p || !in->speed) {
        ms_cosched_instance_free(in);
        return NULL;
    }
    return in;
}

void ms_cosched_instance_free(ms_cosched_instance *in)
{
    if (!in)
        return;
    if (in->names)
        for (int i = 0; i < in->n; i++)
            free(in->names[i]);
    free(in->names);
    free(in->p);
    free(in->speed);
    free(in);
}

int ms_cosched_is_edge(const ms_cosched_instance *in, int i, int j)
{
    return i != j && ms_cosched_s(in, i, j) + ms_cosched_s(in, j, i) > 1.0;
}

int ms_cosched_instance_check(const ms_cosched_instance *in, int catalogue, ms_error *err)
{
    if (in->n < 1)
        return ms_error_set(err, MS_EINVAL, "no tasks");
    for (int i = 0; i < in->n; i++) {
        if (!in->names[i] || !in->names[i][0])
            return ms_error_set(err, MS_EINVAL, "task %d: empty name", i);
        /* Names go into JSON output: they must be valid UTF-8. */
        json_t *js = json_string(in->names[i]);
        if (!js)
            return ms_error_set(err, MS_EINVAL, "task %d: name is not valid UTF-8", i);
        json_decref(js);
        for (int k = 0; k < i; k++)
            if (!strcmp(in->names[k], in->names[i]))
                return ms_error_set(err, MS_EINVAL, "task %d: duplicate name '%s'", i,
                                    in->names[i]);
        if (!isfinite(in->p[i]) || in->p[i] <= 0)
            return ms_error_set(err, MS_EINVAL, "task '%s': p must be a positive number",
                                in->names[i]);
        const char *why = ms_time_check(in->p[i]);
        if (why)
            return ms_error_set(err, MS_EINVAL, "task '%s': p %g %s", in->names[i], in->p[i], why);
        for (int j = 0; j < in->n; j++) {
            double s = ms_cosched_s(in, i, j);
            if (!isfinite(s) || s < 0)
                return ms_error_set(err, MS_EINVAL,
                                    "speed[%d][%d]: must be a finite non-negative number", i, j);
            /* 0 = the pair cannot co-run; a speed-up (> 1) or a speed too small to progress
             * would let a pairing starve a task or an LP lose it in round-off. */
            if ((catalogue || j != i) && (s > 1 || (s > 0 && s <= MS_COSCHED_MIN_SPEED)))
                return ms_error_set(err, MS_EINVAL,
                                    "speed[%d][%d]: %g %s (task '%s' with '%s'); a co-run speed "
                                    "is 0 (cannot co-run) or in (%g, 1]",
                                    i, j, s,
                                    s > 1 ? "is faster than alone" : "is too small to progress",
                                    in->names[i], in->names[j], MS_COSCHED_MIN_SPEED);
        }
        if (!catalogue && ms_cosched_s(in, i, i) != 1.0)
            return ms_error_set(err, MS_EINVAL, "speed[%d][%d]: diagonal must be 1 (got %g)", i, i,
                                ms_cosched_s(in, i, i));
    }
    return MS_OK;
}
