/* place_custom.c: placement by a policy of the caller's (ms_online_config.place, the Python
 * package's policies): the callback is shown every GPU as the built-in decision sees it,
 * its answer is checked against the rule every placement obeys, and the simulator carries
 * it out as its own (creation and destruction times, contention and the queue stay its). */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

static bool fail(msi_sim *s, int code, int j, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records the failure (the run stops after this event) naming the job; always false. */
static bool fail(msi_sim *s, int code, int j, const char *fmt, ...)
{
    char what[MS_ERR_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const ms_profile *pr = &s->m->profiles[s->w->jobs[j].profile];
    ms_error_set(&s->custom->err, code, "placement callback, job %d (%s) at t=%.6g s: %s", j,
                 pr->name, s->now, what);
    s->failed = code;
    return false;
}

/* Why (g, start) cannot take job j's profile now; NULL when it can. */
static const char *refusal(const msi_sim *s, int g, int profile, int start)
{
    ms_online_rule r;
    ms_online_gpu_view v;
    msi_view(s, g, &v, &r);
    if (ms_online_can_take(s->m, &r, &v, profile, start))
        return NULL;
    uint32_t mask = ms_gpu_slot_mask(s->m, (ms_placement){profile, start});
    if (mask & v.job_slots)
        return "its slots hold a job";
    return "an instance in the way is being created";
}

static bool check_answer(msi_sim *s, int j, int g, int start)
{
    const ms_gpu_model *m = s->m;
    int p = s->w->jobs[j].profile;
    if (g < 0 || g >= s->G)
        return fail(s, MS_EINVAL, j, "GPU %d is out of range (the node has GPUs 0 to %d)", g,
                    s->G - 1);
    if (!ms_gpu_placement_allowed(m, (ms_placement){p, start})) {
        char starts[64] = "";
        const ms_profile *pr = &m->profiles[p];
        for (int i = 0, at = 0; i < pr->nstarts && at < (int)sizeof starts; i++)
            at += snprintf(starts + at, sizeof starts - at, "%s%d", i ? ", " : "", pr->starts[i]);
        return fail(s, MS_EINVAL, j, "GPU %d slot %d is not a start %s allows (%s)", g, start,
                    pr->name, starts);
    }
    const char *why = refusal(s, g, p, start);
    if (why) {
        int last = start + m->profiles[p].size_slots - 1;
        char slots[32];
        snprintf(slots, sizeof slots, last > start ? "slots %d-%d" : "slot %d", start, last);
        return fail(s, MS_EINVAL, j, "GPU %d slot %d cannot take it: %s (%s)", g, start, why,
                    slots);
    }
    return true;
}

bool msi_try_place_custom(msi_sim *s, int j)
{
    if (s->failed)
        return false; /* the run is stopping: no more questions */
    for (int g = 0; g < s->G; g++) {
        ms_online_rule r;
        msi_view(s, g, &s->custom->views[g], &r);
    }
    ms_online_place_query q = {s->now, j, s->w->jobs[j].profile, s->G, s->custom->views};
    int g = -1, start = -1;
    int answer = s->c.place(s->c.place_arg, &q, &g, &start);
    switch (answer) {
    case MS_PLACE_WAIT: return false;
    case MS_PLACE_ABORT: return fail(s, MS_EINTR, j, "the policy stopped the simulation");
    case MS_PLACE_PLACED:
        if (!check_answer(s, j, g, start))
            return false;
        msi_place_at(s, j, g, start);
        return true;
    default:
        return fail(s, MS_EINVAL, j,
                    "answer %d is none of placed (0), wait (1) and abort "
                    "(2)",
                    answer);
    }
}
