/* cmd_jobs.c: `migsched jobs` (the daemon's jobs, GET /v1/jobs page by page), `migsched
 * cancel` (DELETE /v1/jobs/ID) and `migsched status` (GPUs and the queue: GET /v1/gpus and
 * /v1/jobs). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "cli_common.h"
#include "cli_util.h"
#include "cli_watch.h"
#include "commands.h"
#include "daemon_reply.h"
#include "migsched/client.h"
#include "migsched/client_conf.h"
#include "migsched/io.h"

/* The most pages `jobs` follows: a daemon that always has one more is not believed. */
#define MAX_PAGES    100000
#define MAX_USER_LEN 256

/* The options every client command takes, and --state, --user, --watch and --interval
 * for jobs. */
struct client_opts {
    ms_client_flags client;
    const char *state, *user;
    bool json, watch, interval_given;
    double interval; /* --watch: seconds between snapshots */
    int first_arg;
};

/* One of the options only jobs takes; false after printing why its value is bad. */
static bool jobs_option(const char *cmd, int opt, const char *arg, struct client_opts *o)
{
    switch (opt) {
    case 's': o->state = arg; return true;
    case 'u': o->user = arg; return true;
    case 'w': o->watch = true; return true;
    default:
        o->interval_given = true;
        if (cli_parse_double(arg, CLI_WATCH_MIN_INTERVAL, CLI_WATCH_MAX_INTERVAL, &o->interval))
            return true;
        ms_client_error(cmd, "--interval: expected seconds in [%g, %g], not \"%.40s\"",
                        CLI_WATCH_MIN_INTERVAL, CLI_WATCH_MAX_INTERVAL, arg);
        return false;
    }
}

/* The options of cancel and status, and of jobs with its own. */
#define CLIENT_LONG_OPTIONS                                                            \
    {"connect", required_argument, 0, 'c'}, {"token-file", required_argument, 0, 'T'}, \
        {"timeout", required_argument, 0, 't'}, CLI_LONG_JSON,                         \
    {                                                                                  \
        "help", no_argument, 0, 'h'                                                    \
    }
const struct option cmd_client_options[] = {CLIENT_LONG_OPTIONS, {0, 0, 0, 0}};
const struct option cmd_jobs_options[] = {CLIENT_LONG_OPTIONS,
                                          {"state", required_argument, 0, 's'},
                                          {"user", required_argument, 0, 'u'},
                                          {"watch", no_argument, 0, 'w'},
                                          {"interval", required_argument, 0, 'i'},
                                          {0, 0, 0, 0}};

/* The options of table opts, and at most max_args arguments after them. Returns -1 to go
 * on, else the exit status (help printed, or bad usage). */
static int parse_opts(const char *cmd, int argc, char **argv, const struct option *opts,
                      int max_args, const char *help, struct client_opts *o)
{
    memset(o, 0, sizeof *o);
    o->interval = CLI_WATCH_DEFAULT_INTERVAL;
    cli_common co = {.cmd = cmd, .takes = CLI_JSON};
    opterr = 0;
    int opt;
    while ((opt = cli_next_option(&co, argc, argv, "h", opts, NULL)) != -1) {
        switch (opt) {
        case 'c': o->client.connect = optarg; break;
        case 'T': o->client.token_file = optarg; break;
        case 't':
            if (!ms_client_parse_timeout(cmd, optarg, &o->client.timeout))
                return 2;
            break;
        case 's':
        case 'u':
        case 'w':
        case 'i':
            if (!jobs_option(cmd, opt, optarg, o))
                return 2;
            break;
        default:
            ms_client_error(cmd, "unknown or incomplete option '%s'", argv[optind - 1]);
            fputs(help, stderr);
            return 2;
        case 'h': fputs(help, stdout); return 0;
        }
    }
    if (co.status)
        return co.status;
    o->json = co.json;
    o->first_arg = optind;
    if (argc - optind > max_args) {
        ms_client_error(cmd, "unexpected argument '%s'", argv[optind + max_args]);
        fputs(help, stderr);
        return 2;
    }
    return -1;
}

/* The connection of o; NULL with *rc the exit status. */
static ms_client *open_client(const char *cmd, const struct client_opts *o, int *rc)
{
    bool usage;
    ms_client *c = ms_client_open_configured(cmd, &o->client, &usage);
    if (!c)
        *rc = usage ? 2 : 1;
    return c;
}

static char *copy_path(const char *cmd, const char *s)
{
    char *d = strdup(s);
    if (!d)
        ms_client_error(cmd, "out of memory");
    return d;
}

/* Calls each(job, arg) for every job of GET path and of the pages its next links name,
 * in order. The ids must increase throughout: a next that does not advance would go
 * round for ever. Returns 0, or 1 after printing why not. */
static int each_job(ms_client *c, const char *cmd, const char *path,
                    int (*each)(json_t *job, void *arg), void *arg)
{
    char *page = copy_path(cmd, path);
    long long last = 0;
    int rc = page ? 0 : 1;
    for (int pages = 1; page && !rc; pages++) {
        json_t *reply, *j;
        if (pages > MAX_PAGES) {
            ms_client_error(cmd, "GET %s: more than %d pages of jobs", page, MAX_PAGES);
            rc = 1;
            break;
        }
        if (ms_client_call_checked(c, "GET", page, NULL, cli_reply_jobs_page, &reply)) {
            rc = 1;
            break;
        }
        json_t *jobs = json_object_get(reply, "jobs"), *next = json_object_get(reply, "next");
        size_t i;
        json_array_foreach(jobs, i, j)
        {
            long long id = (long long)json_integer_value(json_object_get(j, "id"));
            if (id <= last) {
                ms_client_error(cmd,
                                "GET %s: the list of jobs does not advance: job %lld "
                                "after job %lld",
                                page, id, last);
                rc = 1;
                break;
            }
            last = id;
            if ((rc = each(j, arg)))
                break;
        }
        if (!rc && json_is_string(next) && !json_array_size(jobs)) {
            ms_client_error(cmd,
                            "GET %s: the list of jobs does not advance: a page without "
                            "jobs links to another",
                            page);
            rc = 1;
        }
        free(page);
        page = NULL;
        if (!rc && json_is_string(next) && !(page = copy_path(cmd, json_string_value(next))))
            rc = 1;
        json_decref(reply);
    }
    free(page);
    return rc;
}

static const char JOBS_ROW[] = "%8s  %-8s  %-9s  %8s  %-8s  %-10s  %4s  %-16s  %s\n";

static int print_job_row(json_t *j, void *arg)
{
    (void)arg;
    json_t *gpu = json_object_get(j, "gpu"), *ex = json_object_get(j, "exit_status");
    char where[48] = "-", exit_s[24] = "-", id[24], attempts[24];
    if (json_is_integer(gpu))
        snprintf(where, sizeof where, "%lld@%lld", (long long)json_integer_value(gpu),
                 (long long)json_integer_value(
                     json_object_get(json_object_get(j, "placement"), "start")));
    if (json_is_integer(ex))
        snprintf(exit_s, sizeof exit_s, "%lld", (long long)json_integer_value(ex));
    snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(j, "id")));
    snprintf(attempts, sizeof attempts, "%lld",
             (long long)json_integer_value(json_object_get(j, "attempts")));
    char user[CLI_REPLY_TEXT_LEN], state[CLI_REPLY_TEXT_LEN], profile[CLI_REPLY_TEXT_LEN],
        name[CLI_REPLY_TEXT_LEN], reason[CLI_REPLY_TEXT_LEN];
    printf(JOBS_ROW, id, cli_reply_text(j, "user", "-", user),
           cli_reply_text(j, "state", "?", state), attempts, where,
           cli_reply_text(j, "profile", "(times)", profile), exit_s,
           cli_reply_text(j, "name", "", name), cli_reply_text(j, "reason", "-", reason));
    return 0;
}

static int append_job(json_t *j, void *arg)
{
    if (!json_array_append(arg, j))
        return 0;
    ms_client_error("jobs", "out of memory");
    return 1;
}

static bool known_state(const char *s)
{
    for (const char *const *k = cli_job_states; *k; k++)
        if (!strcmp(s, *k))
            return true;
    return false;
}

/* GET /v1/jobs with the filters as query arguments (the user's name escaped for a URL);
 * NULL when out of memory. */
static char *jobs_path(const char *user, const char *state)
{
    char *u = user ? curl_easy_escape(NULL, user, 0) : NULL;
    if (user && !u)
        return NULL;
    size_t n = 64 + (u ? strlen(u) : 0) + (state ? strlen(state) : 0);
    char *path = malloc(n);
    if (path)
        snprintf(path, n, "/v1/jobs%s%s%s%s%s%s", u || state ? "?" : "", u ? "user=" : "",
                 u ? u : "", u && state ? "&" : "", state ? "state=" : "", state ? state : "");
    curl_free(u);
    return path;
}

static const char JOBS_HELP[] =
    "usage: migsched jobs [--user NAME] [--state queued|running|done|failed|cancelled]\n"
    "                     [--watch [--interval S]] [--json] [--connect ...]\n"
    "                     [--token-file FILE] [--timeout S]\n"
    "  The daemon's jobs by id, every page of them: user, state, attempts, GPU@slot,\n"
    "  profile, exit status, name, reason (why it failed, was interrupted or waits; --json:\n"
    "  {\"jobs\": [...]} of all the pages). --user and --state: only that user's jobs, only\n"
    "  jobs in that state. --watch: the list again every --interval seconds (default 2)\n"
    "  until Ctrl-C or SIGTERM, redrawn on a terminal, else each list after an empty line.\n"
    "  What the daemon sent is printed with control characters escaped (\\x1b, \\n, "
    "...).\n" CLI_CLIENT_FLAGS_HELP;

/* One listing of the jobs: the table, or {"jobs": [...]} with --json. */
struct listing {
    ms_client *c;
    const char *path;
    bool json;
};

static int list_jobs(void *arg)
{
    const struct listing *l = arg;
    json_t *all = l->json ? json_array() : NULL;
    if (l->json && !all) {
        ms_client_error("jobs", "out of memory");
        return 1;
    }
    if (!l->json)
        printf(JOBS_ROW, "id", "user", "state", "attempts", "gpu@slot", "profile", "exit", "name",
               "reason");
    int rc = each_job(l->c, "jobs", l->path, l->json ? append_job : print_job_row, all);
    if (l->json && !rc)
        return cli_reply_print_json("jobs", json_pack("{s:o}", "jobs", all));
    json_decref(all);
    return rc;
}

int cmd_jobs(int argc, char **argv)
{
    struct client_opts o;
    int rc = parse_opts("jobs", argc, argv, cmd_jobs_options, 0, JOBS_HELP, &o);
    if (rc >= 0)
        return rc;
    if (o.state && !known_state(o.state)) {
        ms_client_error("jobs",
                        "--state: expected queued, running, done, failed or "
                        "cancelled, not \"%.40s\"",
                        o.state);
        return 2;
    }
    if (o.user && (!*o.user || strlen(o.user) > MAX_USER_LEN)) {
        ms_client_error("jobs", "--user: expected a user name (1 to %d bytes)", MAX_USER_LEN);
        return 2;
    }
    if (o.interval_given && !o.watch) {
        ms_client_error("jobs", "--interval goes with --watch");
        return 2;
    }
    ms_client *c = open_client("jobs", &o, &rc);
    if (!c)
        return rc;
    char *path = jobs_path(o.user, o.state);
    struct listing l = {c, path, o.json};
    if (!path) {
        ms_client_error("jobs", "out of memory");
        rc = 1;
    } else {
        rc = o.watch ? cli_watch("migsched jobs", o.interval, list_jobs, &l) : list_jobs(&l);
    }
    free(path);
    ms_client_close(c);
    return rc;
}

static const char CANCEL_HELP[] =
    "usage: migsched cancel ID [--json] [--connect ...] [--token-file FILE] [--timeout S]\n"
    "  Cancels a job: a queued one is removed from the queue, a running one is stopped\n"
    "  (SIGTERM, then SIGKILL after the grace period) and its instance "
    "freed.\n" CLI_CLIENT_FLAGS_HELP;

int cmd_cancel(int argc, char **argv)
{
    struct client_opts o;
    int rc = parse_opts("cancel", argc, argv, cmd_client_options, 1, CANCEL_HELP, &o);
    if (rc >= 0)
        return rc;
    long id;
    if (o.first_arg == argc || !ms_parse_long(argv[o.first_arg], 1, INT64_MAX, &id)) {
        ms_client_error("cancel", "expected one job id (a positive integer)");
        fputs(CANCEL_HELP, stderr);
        return 2;
    }
    ms_client *c = open_client("cancel", &o, &rc);
    if (!c)
        return rc;
    char path[64];
    snprintf(path, sizeof path, "/v1/jobs/%ld", id);
    json_t *reply;
    rc = ms_client_call_checked(c, "DELETE", path, NULL, cli_reply_one_job, &reply);
    ms_client_close(c);
    if (rc)
        return rc;
    if (o.json)
        return cli_reply_print_json("cancel", reply);
    char name[CLI_REPLY_TEXT_LEN], state[CLI_REPLY_TEXT_LEN];
    printf("job %ld %s: %s\n", id, cli_reply_text(reply, "name", "", name),
           cli_reply_text(reply, "state", "?", state));
    json_decref(reply);
    return 0;
}

static const char STATUS_HELP[] =
    "usage: migsched status [--json] [--connect ...] [--token-file FILE] [--timeout S]\n"
    "  Each GPU's instances (profile@slot, state, job) and the jobs by state, over every\n"
    "  page of jobs (--json: {\"gpus\": [...] as GET /v1/gpus, \"jobs\": {state: "
    "count}}).\n" CLI_CLIENT_FLAGS_HELP;

static int count_job(json_t *j, void *counts)
{
    json_t *n = json_object_get(counts, json_string_value(json_object_get(j, "state")));
    json_integer_set(n, json_integer_value(n) + 1);
    return 0;
}

static void print_gpu(json_t *g)
{
    char model[CLI_REPLY_TEXT_LEN], uuid[CLI_REPLY_TEXT_LEN];
    printf("gpu %lld  %s  %s  busy %lld/%lld slices  fragmentation %.2f\n",
           (long long)json_integer_value(json_object_get(g, "gpu")),
           cli_reply_text(g, "model", "?", model), cli_reply_text(g, "uuid", "?", uuid),
           (long long)json_integer_value(json_object_get(g, "busy_slices")),
           (long long)json_integer_value(json_object_get(g, "slices")),
           json_number_value(json_object_get(g, "fragmentation")));
    size_t k;
    json_t *in;
    json_array_foreach(json_object_get(g, "instances"), k, in)
    {
        char profile[CLI_REPLY_TEXT_LEN], state[CLI_REPLY_TEXT_LEN];
        json_t *job = json_object_get(in, "job");
        printf("  %s@%lld  %-10s", cli_reply_text(in, "profile", "?", profile),
               (long long)json_integer_value(
                   json_object_get(json_object_get(in, "placement"), "start")),
               cli_reply_text(in, "state", "?", state));
        if (json_is_integer(job))
            printf("  job %lld", (long long)json_integer_value(job));
        printf("\n");
    }
}

int cmd_status(int argc, char **argv)
{
    struct client_opts o;
    int rc = parse_opts("status", argc, argv, cmd_client_options, 0, STATUS_HELP, &o);
    if (rc >= 0)
        return rc;
    ms_client *c = open_client("status", &o, &rc);
    if (!c)
        return rc;
    json_t *gpus = NULL, *counts = json_object();
    for (const char *const *s = cli_job_states; counts && *s; s++)
        if (json_object_set_new(counts, *s, json_integer(0)))
            counts = (json_decref(counts), NULL);
    if (!counts) {
        ms_client_error("status", "out of memory");
        rc = 1;
    } else {
        rc = ms_client_call_checked(c, "GET", "/v1/gpus", NULL, cli_reply_gpus, &gpus) ||
             each_job(c, "status", "/v1/jobs", count_job, counts);
    }
    ms_client_close(c);
    if (rc) {
        json_decref(gpus);
        json_decref(counts);
        return 1;
    }
    if (o.json) {
        json_object_set_new(gpus, "jobs", counts);
        return cli_reply_print_json("status", gpus);
    }
    size_t i;
    json_t *g, *n;
    json_array_foreach(json_object_get(gpus, "gpus"), i, g) print_gpu(g);
    const char *key;
    printf("jobs:");
    json_object_foreach(counts, key, n) printf(" %s %lld", key, (long long)json_integer_value(n));
    printf("\n");
    json_decref(counts);
    json_decref(gpus);
    return 0;
}
