/* bench_daemon.c: migschedd's submission throughput over its Unix socket and the latency
 * from submission to start under load. Starts the built migschedd (sim backend, 8
 * simulated A100-40GB at time-scale 1000, a fresh database with synchronous=FULL in a
 * temporary folder) and has 8 threads each post N jobs (argument 1, default 1000) over one
 * keep-alive libcurl connection: first jobs that hold their instances (the submission path
 * alone), then, on a fresh daemon, 1 ms jobs that run while submissions pour in, whose
 * started - submitted (the daemon's own timestamps, GET /v1/jobs) gives the latency's p50,
 * p99 and max. */
#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

#define CLIENTS 8

static char sock[256];

struct client {
    int id, n, failed;
    double seconds;
};

/* The 201's body is not needed: the job's times are read at the end. */
static size_t sink(char *p, size_t size, size_t n, void *cls) { return size * n; }

/* Appends the reply to a growing buffer. */
struct buf {
    char *p;
    size_t len;
};
static size_t collect(char *p, size_t size, size_t n, void *cls)
{
    struct buf *b = cls;
    char *q = realloc(b->p, b->len + size * n + 1);
    if (!q)
        return 0;
    memcpy(q + b->len, p, size * n);
    b->p = q;
    b->len += size * n;
    b->p[b->len] = '\0';
    return size * n;
}

static CURL *handle(void)
{
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, sock);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    return c;
}

static void *client(void *arg)
{
    struct client *cl = arg;
    CURL *c = handle();
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    h = curl_slist_append(h, "Expect:");
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_URL, "http://localhost/v1/jobs");
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink);
    for (int i = 0; i < cl->n; i++) {
        char body[256];
        snprintf(body, sizeof body,
                 "{\"name\":\"b%d-%d\",\"command\":[\"true\"],\"profile\":\"1g.5gb\","
                 "\"seconds\":%g}",
                 cl->id, i, cl->seconds);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
        long code = 0;
        if (curl_easy_perform(c) != CURLE_OK ||
            (curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code), code != 201))
            cl->failed++;
    }
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    return NULL;
}

static json_t *get_json(const char *path)
{
    CURL *c = handle();
    char url[256];
    snprintf(url, sizeof url, "http://localhost%s", path);
    struct buf b = {0};
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &b);
    json_t *o = NULL;
    if (curl_easy_perform(c) == CURLE_OK && b.p)
        o = json_loadb(b.p, b.len, 0, NULL);
    free(b.p);
    curl_easy_cleanup(c);
    return o;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Starts migschedd on a fresh database in dir; returns its pid once it answers. */
static pid_t start_daemon(const char *dir)
{
    char db[300], listen[300];
    snprintf(sock, sizeof sock, "%s/d.sock", dir);
    snprintf(db, sizeof db, "%s/d.db", dir);
    snprintf(listen, sizeof listen, "unix:%s", sock);
    unlink(db);
    pid_t pid = fork();
    if (pid == 0) {
        execl(MIGSCHED_DAEMON_PATH, "migschedd", "--backend", "sim", "--gpu", "A100-40GB", "--gpus",
              "8", "--time-scale", "1000", "--listen", listen, "--db", db, "--log-level", "warn",
              "--on-stop", "requeue", (char *)NULL);
        perror("bench_daemon: " MIGSCHED_DAEMON_PATH);
        _exit(127);
    }
    json_t *h = NULL;
    for (int i = 0; i < 100 && !(h = get_json("/healthz")); i++)
        usleep(50000);
    if (!h) {
        fprintf(stderr, "bench_daemon: migschedd did not start\n");
        kill(pid, SIGKILL);
        exit(1);
    }
    json_decref(h);
    return pid;
}

static void stop_daemon(pid_t pid)
{
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}

/* CLIENTS threads post per_client jobs of `seconds` each; returns submissions/s. */
static double submit_all(int per_client, double seconds, int *failed)
{
    struct client cl[CLIENTS];
    pthread_t th[CLIENTS];
    double t0 = bench_now();
    for (int i = 0; i < CLIENTS; i++) {
        cl[i] = (struct client){.id = i, .n = per_client, .seconds = seconds};
        pthread_create(&th[i], NULL, client, &cl[i]);
    }
    *failed = 0;
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(th[i], NULL);
        *failed += cl[i].failed;
    }
    return CLIENTS * per_client / (bench_now() - t0);
}

int main(int argc, char **argv)
{
    int per_client = argc > 1 ? atoi(argv[1]) : 1000;
    int total = CLIENTS * per_client;
    char dir[] = "/tmp/migsched-bench-daemon-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("bench_daemon: mkdtemp");
        return 1;
    }
    curl_global_init(CURL_GLOBAL_DEFAULT);
    printf("bench_daemon: %d clients x %d submissions over the Unix socket (sim, 8 x "
           "A100-40GB, 1g.5gb jobs, synchronous=FULL)\n",
           CLIENTS, per_client);

    /* 1. Throughput: jobs too long to end meanwhile, so the daemon does little but take
     * submissions (56 start, the rest queue). */
    pid_t pid = start_daemon(dir);
    int failed1, failed2;
    double rate1 = submit_all(per_client, 1e5, &failed1);
    stop_daemon(pid);

    /* 2. Under load: 1 ms jobs run while submissions pour in; each job's wait from the
     * daemon's own timestamps once every job is done. */
    pid = start_daemon(dir);
    double rate2 = submit_all(per_client, 1, &failed2);
    json_t *jobs = NULL;
    for (int tries = 0; tries < 2400; tries++) {
        json_decref(jobs);
        jobs = get_json("/v1/jobs?state=done");
        if (jobs && (int)json_array_size(json_object_get(jobs, "jobs")) == total - failed2)
            break;
        usleep(250000);
    }
    stop_daemon(pid);
    json_t *list = json_object_get(jobs, "jobs");
    size_t n = json_array_size(list);
    double *wait = malloc((n ? n : 1) * sizeof *wait);
    size_t i;
    json_t *j;
    json_array_foreach(list, i, j) wait[i] = json_number_value(json_object_get(j, "started")) -
                                             json_number_value(json_object_get(j, "submitted"));
    qsort(wait, n, sizeof *wait, cmp_double);
    printf("%-28s %10s %8s %10s %14s %14s %14s\n", "phase", "submitted", "refused", "subs/s",
           "start p50 (ms)", "start p99 (ms)", "start max (ms)");
    printf("%-28s %10d %8d %10.0f %14s %14s %14s\n", "queue only (jobs held)", total - failed1,
           failed1, rate1, "-", "-", "-");
    if (n)
        printf("%-28s %10d %8d %10.0f %14.1f %14.1f %14.1f\n", "under load (1 ms jobs)",
               total - failed2, failed2, rate2, 1e3 * wait[n / 2],
               1e3 * wait[(size_t)floor(0.99 * (double)(n - 1))], 1e3 * wait[n - 1]);
    free(wait);
    json_decref(jobs);
    curl_global_cleanup();
    char rm[400];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
    return system(rm) || failed1 || failed2 || n != (size_t)total;
}
