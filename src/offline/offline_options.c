/* offline_options.c: the offline schedulers' options and their keywords, below the
 * algorithms that read them and the registry that runs them (offline.c). */
#include <math.h>
#include <string.h>
#include <strings.h>

#include "migsched/learn.h"
#include "migsched/offline.h"

void ms_far_options_init(ms_far_options *o)
{
    memset(o, 0, sizeof *o);
    o->refine = 1;
    o->concat = MS_CONCAT_TRIVIAL;
}

void ms_rl_options_init(ms_rl_options *o)
{
    memset(o, 0, sizeof *o);
    o->queue = MS_RL_QUEUE_BEST;
    o->rollout = MS_RL_ROLLOUT_DEFAULT;
    o->rollout_gap = NAN; /* the policy's */
}

void ms_search_options_init(ms_search_options *o) { memset(o, 0, sizeof *o); }

void ms_optimal_options_init(ms_optimal_options *o) { memset(o, 0, sizeof *o); }

void ms_offline_options_init(ms_offline_options *o)
{
    memset(o, 0, sizeof *o);
    ms_far_options_init(&o->far);
    ms_rl_options_init(&o->rl);
    ms_search_options_init(&o->search);
    ms_optimal_options_init(&o->optimal);
}

/* A keyword's index in names[0..n), or -1. */
static int keyword(const char *const *names, int n, const char *text)
{
    for (int i = 0; i < n; i++)
        if (!strcasecmp(text, names[i]))
            return i;
    return -1;
}

static const char *const rl_queue_names[] = {"fill", "split", "best"};
static const char *const concat_names[] = {"trivial", "reverse", "overlap"};

int ms_rl_queue_parse(const char *text) { return keyword(rl_queue_names, 3, text); }
int ms_concat_parse(const char *text) { return keyword(concat_names, 3, text); }

const char *ms_rl_queue_name(ms_rl_queue_mode m)
{
    return m >= 0 && m < 3 ? rl_queue_names[m] : "?";
}

const char *ms_concat_name(ms_concat_mode m) { return m >= 0 && m < 3 ? concat_names[m] : "?"; }
