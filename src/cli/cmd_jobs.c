/* cmd_jobs.c: `migsched jobs` (the daemon's jobs, GET /v1/jobs), `migsched cancel`
 * (DELETE /v1/jobs/ID) and `migsched status` (GPUs and the queue: GET /v1/gpus and
 * /v1/jobs). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"
#include "daemon_client.h"
#include "migsched/io.h"

/* The options every client command takes, and --state for jobs. */
struct client_opts {
    const char *connect, *token, *state;
    bool json;
    int first_arg;
};

/* At most max_args arguments after the options. Returns -1 to go on, else the exit
 * status (help printed, or bad usage). */
static int parse_opts(const char *cmd, int argc, char **argv, bool with_state, int max_args,
                      const char *help, struct client_opts *o)
{
    static const struct option opts[] = {
        {"connect", required_argument, 0, 'c'}, {"token-file", required_argument, 0, 'T'},
        {"json", no_argument, 0, 'j'},          {"state", required_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case 'c': o->connect = optarg; break;
        case 'T': o->token = optarg; break;
        case 'j': o->json = true; break;
        case 's':
            if (with_state) {
                o->state = optarg;
                break;
            }
            /* only jobs takes --state */
            __attribute__((fallthrough));
        default:
            cli_client_error(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
            fputs(help, stderr);
            return 2;
        case 'h': fputs(help, stdout); return 0;
        }
    }
    o->first_arg = optind;
    if (argc - optind > max_args) {
        cli_client_error(cmd, "unexpected argument '%s'", argv[optind + max_args]);
        fputs(help, stderr);
        return 2;
    }
    return -1;
}

/* One request on a fresh connection: 0 with *reply, else the exit status. */
static int request(const char *cmd, const struct client_opts *o, const char *method,
                   const char *path, json_t **reply)
{
    bool usage;
    cli_client *c = cli_client_open(cmd, o->connect, o->token, &usage);
    if (!c)
        return usage ? 2 : 1;
    int rc = cli_client_call(c, method, path, NULL, reply, NULL);
    cli_client_close(c);
    return rc;
}

static const char *str_or(json_t *v, const char *dflt)
{
    return json_is_string(v) ? json_string_value(v) : dflt;
}

static void print_job_row(json_t *j)
{
    json_t *gpu = json_object_get(j, "gpu"), *pl = json_object_get(j, "placement");
    char where[32] = "-";
    if (json_is_integer(gpu))
        snprintf(where, sizeof where, "%lld@%lld", (long long)json_integer_value(gpu),
                 (long long)json_integer_value(json_object_get(pl, "start")));
    json_t *ex = json_object_get(j, "exit_status");
    char exit_s[16] = "-";
    if (json_is_integer(ex))
        snprintf(exit_s, sizeof exit_s, "%lld", (long long)json_integer_value(ex));
    printf("%8lld  %-9s  %8lld  %-8s  %-10s  %4s  %s\n",
           (long long)json_integer_value(json_object_get(j, "id")),
           str_or(json_object_get(j, "state"), "?"),
           (long long)json_integer_value(json_object_get(j, "attempts")), where,
           str_or(json_object_get(j, "profile"), "(times)"), exit_s,
           str_or(json_object_get(j, "name"), ""));
}

static const char JOBS_HELP[] =
    "usage: migsched jobs [--state queued|running|done|failed|cancelled] [--json]\n"
    "                     [--connect ...] [--token-file FILE]\n"
    "  The daemon's jobs by id: state, attempts, GPU@slot, profile, exit status, name\n"
    "  (--json: the daemon's {\"jobs\": [...]}).\n" CLI_CLIENT_FLAGS_HELP;

int cmd_jobs(int argc, char **argv)
{
    struct client_opts o;
    int rc = parse_opts("jobs", argc, argv, true, 0, JOBS_HELP, &o);
    if (rc >= 0)
        return rc;
    char path[128] = "/v1/jobs";
    if (o.state) {
        static const char *const states[] = {"queued", "running", "done", "failed", "cancelled"};
        bool known = false;
        for (size_t i = 0; i < sizeof states / sizeof *states; i++)
            known |= !strcmp(o.state, states[i]);
        if (!known) {
            cli_client_error("jobs", "--state: expected queued, running, done, failed or "
                             "cancelled, not \"%.40s\"", o.state);
            return 2;
        }
        snprintf(path, sizeof path, "/v1/jobs?state=%s", o.state);
    }
    json_t *reply;
    if ((rc = request("jobs", &o, "GET", path, &reply)))
        return rc;
    if (o.json)
        return cli_json_print("jobs", reply);
    printf("%8s  %-9s  %8s  %-8s  %-10s  %4s  %s\n", "id", "state", "attempts", "gpu@slot",
           "profile", "exit", "name");
    size_t i;
    json_t *j;
    json_array_foreach(json_object_get(reply, "jobs"), i, j) print_job_row(j);
    json_decref(reply);
    return 0;
}

static const char CANCEL_HELP[] =
    "usage: migsched cancel ID [--json] [--connect ...] [--token-file FILE]\n"
    "  Cancels a job: a queued one is removed from the queue, a running one is stopped\n"
    "  (SIGTERM, then SIGKILL after the grace period) and its instance freed.\n"
    CLI_CLIENT_FLAGS_HELP;

int cmd_cancel(int argc, char **argv)
{
    struct client_opts o;
    int rc = parse_opts("cancel", argc, argv, false, 1, CANCEL_HELP, &o);
    if (rc >= 0)
        return rc;
    long id;
    if (o.first_arg == argc || !ms_parse_long(argv[o.first_arg], 1, INT64_MAX, &id)) {
        cli_client_error("cancel", "expected one job id (a positive integer)");
        fputs(CANCEL_HELP, stderr);
        return 2;
    }
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    json_t *reply;
    if ((rc = request("cancel", &o, "DELETE", path, &reply)))
        return rc;
    if (o.json)
        return cli_json_print("cancel", reply);
    printf("job %ld %s: %s\n", id, str_or(json_object_get(reply, "name"), ""),
           str_or(json_object_get(reply, "state"), "?"));
    json_decref(reply);
    return 0;
}

static const char STATUS_HELP[] =
    "usage: migsched status [--json] [--connect ...] [--token-file FILE]\n"
    "  Each GPU's instances (profile@slot, state, job) and the jobs by state\n"
    "  (--json: {\"gpus\": [...] as GET /v1/gpus, \"jobs\": {state: count}}).\n"
    CLI_CLIENT_FLAGS_HELP;

int cmd_status(int argc, char **argv)
{
    struct client_opts o;
    int rc = parse_opts("status", argc, argv, false, 0, STATUS_HELP, &o);
    if (rc >= 0)
        return rc;
    json_t *gpus = NULL, *jobs = NULL;
    if ((rc = request("status", &o, "GET", "/v1/gpus", &gpus)))
        return rc;
    if ((rc = request("status", &o, "GET", "/v1/jobs", &jobs))) {
        json_decref(gpus);
        return rc;
    }
    json_t *counts = json_pack("{s:i, s:i, s:i, s:i, s:i}", "queued", 0, "running", 0, "done",
                               0, "failed", 0, "cancelled", 0);
    size_t i, k;
    json_t *j, *g, *in;
    json_array_foreach(json_object_get(jobs, "jobs"), i, j) {
        json_t *n = json_object_get(counts, str_or(json_object_get(j, "state"), ""));
        if (n)
            json_integer_set(n, json_integer_value(n) + 1);
    }
    json_decref(jobs);
    if (o.json) {
        json_object_set_new(gpus, "jobs", counts);
        return cli_json_print("status", gpus);
    }
    json_array_foreach(json_object_get(gpus, "gpus"), i, g) {
        printf("gpu %lld  %s  %s  busy %lld/%lld slices  fragmentation %.2f\n",
               (long long)json_integer_value(json_object_get(g, "gpu")),
               str_or(json_object_get(g, "model"), "?"), str_or(json_object_get(g, "uuid"), "?"),
               (long long)json_integer_value(json_object_get(g, "busy_slices")),
               (long long)json_integer_value(json_object_get(g, "slices")),
               json_number_value(json_object_get(g, "fragmentation")));
        json_array_foreach(json_object_get(g, "instances"), k, in) {
            json_t *job = json_object_get(in, "job");
            printf("  %s@%lld  %-10s", str_or(json_object_get(in, "profile"), "?"),
                   (long long)json_integer_value(json_object_get(json_object_get(in, "placement"),
                                                                 "start")),
                   str_or(json_object_get(in, "state"), "?"));
            if (json_is_integer(job) && json_integer_value(job) > 0)
                printf("  job %lld", (long long)json_integer_value(job));
            printf("\n");
        }
    }
    const char *key;
    json_t *n;
    printf("jobs:");
    json_object_foreach(counts, key, n) printf(" %s %lld", key, (long long)json_integer_value(n));
    printf("\n");
    json_decref(counts);
    json_decref(gpus);
    return 0;
}
