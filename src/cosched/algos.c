/* algos.c: the co-scheduling algorithms by name, and running one on an instance. */
#include "migsched/cosched.h"
#include "migsched/parse.h"

static const char *const algo_names[MS_COSCHED_NALGOS] = {"plp",     "caterpillar", "nonpreemptive",
                                                          "maxpair", "direct",      "sequential"};

const char *ms_cosched_algo_name(int algo)
{
    return algo >= 0 && algo < MS_COSCHED_NALGOS ? algo_names[algo] : "?";
}

int ms_cosched_algo_lookup(const char *name)
{
    return ms_name_index(algo_names, MS_COSCHED_NALGOS, name);
}

/* The LP's intervals in the order of its columns: optimal makespan, arbitrary preemptions. */
static int lp_schedule(const ms_cosched_instance *in, const ms_cosched_lp *lp,
                       ms_cosched_schedule **out, ms_error *err)
{
    ms_cosched_schedule *s = ms_cosched_schedule_new(in->n);
    int rc = s ? MS_OK : ms_error_set(err, MS_ENOMEM, "out of memory");
    for (int k = 0; k < lp->nedges && !rc; k++)
        rc = ms_cosched_schedule_add(s, lp->e[k].x, lp->e[k].a, lp->e[k].b, err);
    if (rc) {
        ms_cosched_schedule_free(s);
        return rc;
    }
    *out = s;
    return MS_OK;
}

int ms_cosched_run(const ms_cosched_instance *in, int algo, double time_limit,
                   ms_cosched_schedule **out, ms_error *err)
{
    *out = NULL;
    switch (algo) {
    case MS_COSCHED_MAXPAIR: return ms_cosched_maxpair(in, out, err);
    case MS_COSCHED_SEQUENTIAL: return ms_cosched_sequential(in, out, err);
    case MS_COSCHED_DIRECT: return ms_cosched_direct(in, time_limit, out, NULL, NULL, err);
    case MS_COSCHED_PLP:
    case MS_COSCHED_CATERPILLAR:
    case MS_COSCHED_NONPREEMPTIVE: break;
    default: return ms_error_set(err, MS_EINVAL, "unknown algorithm %d", algo);
    }
    ms_cosched_lp lp;
    int rc = ms_cosched_plp(in, &lp, err);
    if (rc)
        return rc;
    if (algo == MS_COSCHED_PLP)
        rc = lp_schedule(in, &lp, out, err);
    else if (algo == MS_COSCHED_CATERPILLAR)
        rc = ms_cosched_caterpillar(in, &lp, out, err);
    else
        rc = ms_cosched_nonpreemptive(in, &lp, out, err);
    ms_cosched_lp_fini(&lp);
    return rc;
}
