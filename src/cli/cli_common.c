/* cli_common.c: the options most commands share and the messages they fail with. */
#include "cli_common.h"

#include <stdarg.h>

#include "cli_util.h"

static void vsay(const char *cmd, const char *fmt, va_list ap)
{
    fprintf(stderr, "migsched %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cmd, fmt, ap);
    va_end(ap);
    return 1;
}

int cli_usage_error(const char *cmd, void (*usage)(FILE *f), const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(cmd, fmt, ap);
    va_end(ap);
    if (usage)
        usage(stderr);
    return 2;
}

/* what, e.g. "a non-negative integer" or "a count in 1..64", in the command's wording. */
static int bad_value(const cli_common *c, const char *opt, const char *arg, const char *what)
{
    switch (c->say) {
    case CLI_SAY_IS_NOT:
        return cli_usage_error(c->cmd, NULL, "--%s: '%s' is not %s", opt, arg, what);
    case CLI_SAY_MUST_BE:
        return cli_usage_error(c->cmd, NULL, "--%s must be %s, not '%s'", opt, what, arg);
    default: return cli_usage_error(c->cmd, c->usage, "--%s must be %s", opt, what);
    }
}

static int count(const cli_common *c, const char *opt, const char *arg, int max, int *out)
{
    if (cli_parse_int(arg, 1, max, out))
        return 0;
    char what[64];
    snprintf(what, sizeof what, "%s1..%d", c->range_words ? c->range_words : "", max);
    return bad_value(c, opt, arg, what);
}

static unsigned option_bit(int opt)
{
    switch (opt) {
    case CLI_OPT_GPU: return CLI_GPU;
    case CLI_OPT_OUTPUT: return CLI_OUTPUT;
    case CLI_OPT_SEED: return CLI_SEED;
    case CLI_OPT_THREADS: return CLI_THREADS;
    case CLI_OPT_GPUS: return CLI_GPUS;
    case CLI_OPT_JSON: return CLI_JSON;
    default: return 0;
    }
}

int cli_common_option(cli_common *c, int opt, const char *arg)
{
    if (!(option_bit(opt) & c->takes))
        return -1;
    switch (opt) {
    case CLI_OPT_GPU: c->gpu = arg; return 0;
    case CLI_OPT_OUTPUT: c->output = arg; return 0;
    case CLI_OPT_JSON: c->json = true; return 0;
    case CLI_OPT_GPUS: return count(c, "gpus", arg, c->gpus_max, &c->gpus);
    case CLI_OPT_THREADS: return count(c, "threads", arg, c->threads_max, &c->threads);
    default:
        return cli_parse_seed(arg, &c->seed) ? 0
                                             : bad_value(c, "seed", arg, "a non-negative integer");
    }
}

int cli_next_option(cli_common *c, int argc, char **argv, const char *shortopts,
                    const struct option *longopts, int *longindex)
{
    int opt, rc;
    c->status = 0;
    while ((opt = getopt_long(argc, argv, shortopts, longopts, longindex)) != -1) {
        if ((rc = cli_common_option(c, opt, optarg)) < 0)
            return opt;
        if (rc) {
            c->status = rc;
            return -1;
        }
    }
    return -1;
}
