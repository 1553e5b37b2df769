/* cli_util.c: number parsing, checked output and JSON printing shared by the
 * subcommands. */
#include "cli_util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "migsched/io.h"
#include "migsched/learn.h"

bool cli_parse_long(const char *s, long lo, long hi, long *out)
{
    return ms_parse_long(s, lo, hi, out);
}

bool cli_parse_int(const char *s, int lo, int hi, int *out)
{
    long v;
    if (!cli_parse_long(s, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

bool cli_parse_rollout(const char *s, int *out)
{
    if (!strcmp(s, "all")) {
        *out = MS_RL_ROLLOUT_ALL;
        return true;
    }
    return cli_parse_int(s, 1, 1000, out);
}

bool cli_parse_rollout_gap(const char *s, float *out)
{
    if (!strcmp(s, "inf")) {
        *out = INFINITY;
        return true;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= 0 && v <= 1000))
        return false;
    *out = (float)v;
    return true;
}

bool cli_parse_seed(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || *end || errno || *s == '-')
        return false;
    *out = v;
    return true;
}

bool cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= lo && v <= hi))
        return false;
    *out = v;
    return true;
}

int cli_stdout_check(const char *cmd)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "migsched%s%s: standard output: write error%s%s\n", cmd ? " " : "",
            cmd ? cmd : "", errno ? ": " : "", errno ? strerror(errno) : "");
    return 1;
}

int cli_check_outputs(const char *cmd, const char *const *paths, int n)
{
    for (int i = 0; i < n; i++) {
        const char *p = paths[i];
        if (!p || !strcmp(p, "-"))
            continue;
        struct stat st;
        if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "migsched %s: %s: is a directory, not a file\n", cmd, p);
            return 1;
        }
        if (stat(p, &st) == 0 && !S_ISREG(st.st_mode))
            continue; /* a device or FIFO: opening it to probe could block or consume */
        /* The temporary file ms_output_open creates is exactly what writing will need. */
        ms_output o;
        ms_error err;
        if (ms_output_open(&o, p, &err)) {
            fprintf(stderr, "migsched %s: %s\n", cmd, err.msg);
            return 1;
        }
        ms_output_abort(&o);
    }
    return 0;
}

int cli_initial_parse(const char *cmd, const char *text, const ms_gpu_model *gpu, int gpus,
                      ms_initial *out)
{
    ms_error err;
    if (ms_initial_parse(text, gpu, gpus, out, &err) == MS_OK)
        return 0;
    fprintf(stderr, "migsched %s: %s\n", cmd, err.msg);
    return 1;
}

double cli_cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return 0;
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

json_t *cli_json_real(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *cli_json_metrics(const ms_metrics *m)
{
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:i, s:o}", "makespan",
                     cli_json_real(m->makespan), "baseline", cli_json_real(m->baseline), "l_bound",
                     cli_json_real(m->l_bound), "l_bound_paper", cli_json_real(m->l_bound_paper),
                     "rho", cli_json_real(m->rho), "p_opt", cli_json_real(m->p_opt), "creations",
                     m->creations, "destructions", m->destructions, "reconfigurations",
                     m->reconfigurations, "utilization", cli_json_real(m->utilization));
}

int cli_json_print(const char *cmd, json_t *root)
{
    if (!root) {
        fprintf(stderr, "migsched %s: out of memory\n", cmd);
        return 1;
    }
    int rc = json_dumpf(root, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (rc == 0 && fputc('\n', stdout) != EOF)
        return 0;
    if (!cli_stdout_check(cmd))
        fprintf(stderr, "migsched %s: cannot print the JSON result\n", cmd);
    return 1;
}

bool cli_parse_int_list(const char *s, int lo, int hi, int max, int *v, int *n)
{
    *n = 0;
    while (*s) {
        char *end;
        long x = strtol(s, &end, 10);
        if (end == s || x < lo || x > hi || *n == max || (*end && *end != ','))
            return false;
        v[(*n)++] = (int)x;
        s = *end ? end + 1 : end;
    }
    return *n > 0 && s[-1] != ',';
}

bool cli_parse_widths(const char *s, int max, int *w, int *n)
{
    return cli_parse_int_list(s, 1, 65536, max, w, n);
}
