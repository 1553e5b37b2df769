/* cmd_submit.c: `migsched submit`: one job from flags and a command, or a file of jobs,
 * posted to migschedd (POST /v1/jobs). */
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "daemon_reply.h"
#include "migsched/client.h"
#include "migsched/client_conf.h"
#include "migsched/io.h"
#include "migsched/workload.h"

static const char CMD[] = "submit";

static void usage(FILE *f)
{
    fprintf(f, "usage: migsched submit (--profile P --seconds S | --slices N --seconds S |\n"
               "                        --times 1=T1,2=T2,...) [--name NAME] [--cwd DIR]\n"
               "                       [--env KEY=VALUE]... [--on-interrupt retry|fail]\n"
               "                       [--connect ...] [--token-file FILE] [--timeout S] [--json]\n"
               "                       -- COMMAND [ARGS]\n"
               "       migsched submit --file JOBS.json|JOBS.csv [--connect ...] [--timeout S] "
               "[--json]\n"
               "  Queues jobs on migschedd and prints 'submitted job ID NAME' for each (--json:\n"
               "  the daemon's job objects). The command runs without a shell in --cwd (default\n"
               "  the current folder); NAME defaults to the command's base name.\n"
               "  JOBS.json: an array of job objects as POST /v1/jobs takes them; JOBS.csv: a\n"
               "  workload CSV (name,1,2,...,command[,cwd]) whose rows become jobs with those\n"
               "  times, run with sh -c (docs/daemon.md, \"Clients\").\n" CLI_CLIENT_FLAGS_HELP);
}

/* "1=120,2=64.5" into {"1": 120, "2": 64.5}. */
static json_t *parse_times(const char *s)
{
    json_t *o = json_object();
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && o; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        long size;
        double t;
        if (!eq || (*eq = '\0', !ms_parse_long(tok, 1, 64, &size)) ||
            !cli_parse_double(eq + 1, 1e-300, MS_TIME_MAX, &t)) {
            json_decref(o);
            o = NULL;
            break;
        }
        json_object_set_new(o, tok, json_real(t));
    }
    free(copy);
    return o && json_object_size(o) ? o : (json_decref(o), NULL);
}

struct one_job {
    const char *name, *cwd, *profile, *times, *on_interrupt;
    long slices;
    double seconds;
    json_t *env;
};

/* The job object of the flags and the command argv[0..argc). Returns NULL after printing
 * a usage problem. */
static json_t *job_from_flags(const struct one_job *f, int argc, char **argv)
{
    int kinds = (f->profile != NULL) + (f->slices > 0) + (f->times != NULL);
    if (kinds != 1 || (f->times && f->seconds > 0) || (!f->times && !(f->seconds > 0))) {
        ms_client_error(CMD, "give one of --profile P --seconds S, --slices N --seconds S, "
                             "--times 1=..,2=..");
        return NULL;
    }
    if (argc == 0) {
        ms_client_error(CMD, "missing the command (after --)");
        return NULL;
    }
    json_t *cmd = json_array();
    for (int i = 0; i < argc; i++)
        json_array_append_new(cmd, json_string(argv[i]));
    char cwd[4096];
    const char *dir = f->cwd ? f->cwd : getcwd(cwd, sizeof cwd);
    char *base = strdup(argv[0]);
    json_t *job = json_pack("{s:s, s:o}", "name", f->name ? f->name : basename(base), "command",
                            cmd);
    free(base);
    if (dir)
        json_object_set_new(job, "cwd", json_string(dir));
    if (json_object_size(f->env))
        json_object_set(job, "env", f->env);
    if (f->on_interrupt)
        json_object_set_new(job, "on_interrupt", json_string(f->on_interrupt));
    if (f->profile)
        json_object_set_new(job, "profile", json_string(f->profile));
    if (f->slices > 0)
        json_object_set_new(job, "slices", json_integer(f->slices));
    if (f->times) {
        json_t *t = parse_times(f->times);
        if (!t) {
            ms_client_error(CMD,
                            "--times: expected SIZE=SECONDS,... (e.g. 1=120,2=64), not "
                            "\"%.80s\"",
                            f->times);
            json_decref(job);
            return NULL;
        }
        json_object_set_new(job, "times", t);
    } else {
        json_object_set_new(job, "seconds", json_real(f->seconds));
    }
    return job;
}

/* A workload CSV's tasks as jobs: their times, their command through sh -c. */
static json_t *jobs_from_workload(const char *path)
{
    ms_error err;
    ms_workload *w;
    if (ms_workload_read(path, NULL, &w, &err)) {
        ms_client_error(CMD, "%s", err.msg);
        return NULL;
    }
    json_t *jobs = json_array();
    for (int i = 0; i < w->n && jobs; i++) {
        const ms_task *t = &w->tasks[i];
        if (!t->command) {
            ms_client_error(CMD, "%s: task %d (%s) has no command", path, i + 1, t->name);
            json_decref(jobs);
            jobs = NULL;
            break;
        }
        json_t *times = json_object();
        for (int s = 1; s <= MS_MAX_SLICES; s++)
            if (isfinite(t->time[s]) && t->time[s] > 0) {
                char k[8];
                snprintf(k, sizeof k, "%d", s);
                json_object_set_new(times, k, json_real(t->time[s]));
            }
        json_t *job = json_pack("{s:s, s:[s,s,s], s:o}", "name", t->name, "command", "/bin/sh",
                                "-c", t->command, "times", times);
        if (t->cwd)
            json_object_set_new(job, "cwd", json_string(t->cwd));
        json_array_append_new(jobs, job);
    }
    ms_workload_free(w);
    return jobs;
}

/* JOBS.json (an array of job objects) or a workload file. */
static json_t *jobs_from_file(const char *path)
{
    ms_error err;
    char *text;
    size_t len;
    if (ms_read_file(path, &text, &len, &err)) {
        ms_client_error(CMD, "%s", err.msg);
        return NULL;
    }
    size_t lead = strspn(text, " \t\r\n");
    if (text[lead] != '[') {
        free(text);
        return jobs_from_workload(path);
    }
    json_error_t je;
    json_t *jobs = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    free(text);
    if (!jobs) {
        ms_client_error(CMD, "%s:%d:%d: %s", path, je.line, je.column, je.text);
        return NULL;
    }
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) if (!json_is_object(j))
    {
        ms_client_error(CMD, "%s: job %zu: expected a JSON object", path, i + 1);
        json_decref(jobs);
        return NULL;
    }
    if (!json_array_size(jobs)) {
        ms_client_error(CMD, "%s: no jobs", path);
        json_decref(jobs);
        return NULL;
    }
    return jobs;
}

/* Posts each job in order; stops at the first refusal, saying which were queued. */
static int post_all(ms_client *c, json_t *jobs, const char *file, bool as_json)
{
    json_t *out = json_array();
    size_t i;
    json_t *j;
    int rc = 0;
    json_array_foreach(jobs, i, j)
    {
        char *body = json_dumps(j, JSON_COMPACT);
        json_t *reply = NULL;
        if (!body) {
            ms_client_error(CMD, "out of memory");
            rc = 1;
            break;
        }
        rc = ms_client_call_checked(c, "POST", "/v1/jobs", body, cli_reply_one_job, &reply);
        free(body);
        if (rc) {
            if (file)
                ms_client_error(CMD, "%s: job %zu (%s) refused; %zu before it were queued", file,
                                i + 1, json_string_value(json_object_get(j, "name")) ?: "?", i);
            break;
        }
        if (as_json)
            json_array_append_new(out, reply);
        else {
            char name[CLI_REPLY_TEXT_LEN];
            printf("submitted job %lld %s\n",
                   (long long)json_integer_value(json_object_get(reply, "id")),
                   cli_reply_text(reply, "name", "", name));
            json_decref(reply);
        }
    }
    if (as_json && !rc)
        return cli_reply_print_json(CMD, out);
    json_decref(out);
    return rc;
}

const struct option cmd_submit_options[] = {{"profile", required_argument, 0, 'p'},
                                            {"slices", required_argument, 0, 's'},
                                            {"seconds", required_argument, 0, 'S'},
                                            {"times", required_argument, 0, 't'},
                                            {"name", required_argument, 0, 'n'},
                                            {"cwd", required_argument, 0, 'd'},
                                            {"env", required_argument, 0, 'e'},
                                            {"on-interrupt", required_argument, 0, 'i'},
                                            {"file", required_argument, 0, 'f'},
                                            {"connect", required_argument, 0, 'c'},
                                            {"token-file", required_argument, 0, 'T'},
                                            CLI_LONG_JSON,
                                            {"timeout", required_argument, 0, 'o'},
                                            {"help", no_argument, 0, 'h'},
                                            {0, 0, 0, 0}};

int cmd_submit(int argc, char **argv)
{
    struct one_job f = {.env = json_object()};
    const char *file = NULL;
    ms_client_flags cf = {0};
    int opt, rc = 2;
    cli_common co = {.cmd = CMD, .takes = CLI_JSON};
    opterr = 0;
    while ((opt = cli_next_option(&co, argc, argv, "+h", cmd_submit_options, NULL)) != -1) {
        switch (opt) {
        case 'p': f.profile = optarg; break;
        case 's':
            if (!ms_parse_long(optarg, 1, 64, &f.slices)) {
                ms_client_error(CMD, "--slices: expected 1..64, not \"%.40s\"", optarg);
                goto out;
            }
            break;
        case 'S':
            if (!cli_parse_double(optarg, 1e-300, MS_TIME_MAX, &f.seconds)) {
                ms_client_error(CMD,
                                "--seconds: expected a number of seconds in (0, 1e9], "
                                "not \"%.40s\"",
                                optarg);
                goto out;
            }
            break;
        case 't': f.times = optarg; break;
        case 'n': f.name = optarg; break;
        case 'd': f.cwd = optarg; break;
        case 'e': {
            char *eq = strchr(optarg, '=');
            if (!eq || eq == optarg) {
                ms_client_error(CMD, "--env: expected KEY=VALUE, not \"%.80s\"", optarg);
                goto out;
            }
            *eq = '\0';
            json_object_set_new(f.env, optarg, json_string(eq + 1));
            *eq = '=';
            break;
        }
        case 'i':
            if (strcmp(optarg, "retry") && strcmp(optarg, "fail")) {
                ms_client_error(CMD, "--on-interrupt: expected retry or fail, not \"%.40s\"",
                                optarg);
                goto out;
            }
            f.on_interrupt = optarg;
            break;
        case 'f': file = optarg; break;
        case 'c': cf.connect = optarg; break;
        case 'T': cf.token_file = optarg; break;
        case 'o':
            if (!ms_client_parse_timeout(CMD, optarg, &cf.timeout))
                goto out;
            break;
        case 'h':
            usage(stdout);
            rc = 0;
            goto out;
        default:
            ms_client_error(CMD, "unknown or incomplete option '%s'", argv[optind - 1]);
            usage(stderr);
            goto out;
        }
    }
    if (file && (f.profile || f.slices || f.times || f.seconds > 0 || f.name || f.cwd ||
                 json_object_size(f.env) || f.on_interrupt || optind < argc)) {
        ms_client_error(CMD, "--file takes its jobs from the file: no job flags or command");
        goto out;
    }
    json_t *jobs = file ? jobs_from_file(file) : NULL;
    if (!file) {
        json_t *job = job_from_flags(&f, argc - optind, argv + optind);
        if (!job)
            goto out;
        jobs = json_pack("[o]", job);
    } else if (!jobs) {
        rc = 1;
        goto out;
    }
    bool usage_err;
    ms_client *c = ms_client_open_configured(CMD, &cf, &usage_err);
    rc = c ? post_all(c, jobs, file, co.json) : usage_err ? 2 : 1;
    ms_client_close(c);
    json_decref(jobs);
out:
    json_decref(f.env);
    return rc;
}
