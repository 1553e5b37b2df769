/* migschedd.c: the node service's main: configuration, the one place signals are handled
 * (a signalfd read by the main thread), the start order (listeners, store, engine, HTTP)
 * and the clean stop in reverse. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "engine.h"
#include "http.h"
#include "log.h"
#include "migsched/exec.h"
#include "migsched/io.h"
#include "slurm_agent.h"
#include "slurm_reconcile.h"

#ifndef MIGSCHED_VERSION
#define MIGSCHED_VERSION "unknown"
#endif

static void usage(FILE *f)
{
    fprintf(f, "usage: migschedd [--config FILE] [--KEY VALUE | --KEY=VALUE]...\n"
               "       migschedd --help | --version\n\n"
               "Accepts jobs over HTTP, places them onto MIG GPUs and runs them as their owners.\n"
               "Every configuration key is also a flag; flags override the file:\n"
               "  --backend nvml|sim      --gpu MODEL           --gpus N (sim)\n"
               "  --devices 0,1 (nvml)    --listen unix:PATH | tcp:127.0.0.1:PORT (repeatable)\n"
               "  --listen-metrics HOST:PORT|none (GET /metrics only, no token, any address)\n"
               "  --token-file FILE       --db PATH             --init-store true|false\n"
               "  --mode online|batch\n"
               "  --time-scale X (sim)    --log-level debug|info|warn|error\n"
               "  --on-stop wait|requeue  --batch-size N        --batch-period S\n"
               "  --batch-concat trivial|reverse|overlap\n"
               "  --slurm-reconcile S     --slurm-gres NAME|none --hpc-job-mapping-dir DIR\n"
               "  --slurm-node NAME|none  --slurm-admin-comment true|false  --slurm-sync S\n"
               "  --allow-root-jobs true|false  --admin-group GROUP  --slurm-user USER\n"
               "  --isolation devices|none  --dev-dir DIR  --mig-minors FILE\n"
               "  --cgroup-root DIR|none (nvml)\n"
               "  --user-queue-limit N    --user-queue-bytes B  --peer-connections N\n"
               "  --request-timeout S\n"
               "and the engine's keys listed in docs/daemon.md (\"Configuration\").\n"
               "SIGTERM or SIGINT stops cleanly; SIGHUP re-reads the configuration (live keys).\n"
               "Exit status: 0 clean stop, 1 error, 2 bad usage.\n");
}

static int load_config(int argc, char **argv, md_config *c, ms_error *err)
{
    int rc = md_config_from_args(c, argc, argv, err);
    return rc ? rc : md_config_check(c, err);
}

/* nvml without a gpu key: the model is the first device's, learnt before the store and the
 * API parse jobs against it (the engine then checks every device is that model). */
static int identify_model(md_config *c, ms_error *err)
{
    if (c->backend != MD_NVML || c->has_model)
        return MS_OK;
    ms_backend *b;
    int rc = ms_backend_open("nvml", c->devices[0], NULL, NULL, &b, err);
    if (rc)
        return rc;
    c->model = *ms_backend_model(b);
    c->has_model = true;
    ms_backend_close(b);
    return MS_OK;
}

/* The folders root writes in must be root's (or the daemon's user's) and writable by their
 * owner only, else a user could plant links or FIFOs where root writes; missing ones are
 * made (the database's 0700, log-dir 0750, the mapping folder 0755: the exporter reads it). */
static int check_folders(const md_config *c, ms_error *err)
{
    char dir[MD_PATH_LEN];
    const char *slash = strrchr(c->db, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - c->db) + (slash == c->db) : 1,
             slash ? c->db : ".");
    int rc = ms_dir_check("the db's folder", dir, 0700, err);
    if (!rc && *c->hpc_job_mapping_dir)
        rc = ms_dir_check("hpc-job-mapping-dir", c->hpc_job_mapping_dir, 0755, err);
    if (!rc && c->backend == MD_NVML)
        rc = ms_dir_check("log-dir", c->log_dir, 0750, err);
    if (!rc && c->backend == MD_NVML) /* device locks and the journal */
        rc = ms_runtime_dir(dir, sizeof dir, err);
    return rc;
}

/* A flag problem (not the file's, not a rule between keys) is bad usage: exit 2. */
static bool usage_error(const ms_error *err)
{
    return !strncmp(err->msg, "unknown flag", 12) ||
           !strncmp(err->msg, "unexpected argument", 19) ||
           (!strncmp(err->msg, "--", 2) && strstr(err->msg, ": missing "));
}

/* A start refused before the service runs: one log line like every other (hint: what to do,
 * or NULL); returns status. */
static int refused(const char *event, const ms_error *err, const char *hint, int status)
{
    char q[MS_ERR_LEN + 64], qh[128];
    if (hint)
        md_log(MD_LOG_ERROR, event, "error=%s hint=%s", md_log_quote(err->msg, q, sizeof q),
               md_log_quote(hint, qh, sizeof qh));
    else
        md_log(MD_LOG_ERROR, event, "error=%s", md_log_quote(err->msg, q, sizeof q));
    return status;
}

/* SIGHUP: the new configuration applies only if every changed key is live; a refused
 * reload changes nothing. */
static void reload(int argc, char **argv, const md_config *cur, md_engine *e, md_http *h)
{
    md_config *next = malloc(sizeof *next);
    ms_error err = {0};
    char q[MS_ERR_LEN + 64];
    if (!next) {
        md_log(MD_LOG_ERROR, "config.reload_refused", "error=\"out of memory\"");
        return;
    }
    if (load_config(argc, argv, next, &err) || md_config_reload_check(cur, next, &err) ||
        md_http_reload(h, next, &err) || md_engine_reload(e, next, &err)) {
        md_log(MD_LOG_ERROR, "config.reload_refused", "error=%s",
               md_log_quote(err.msg, q, sizeof q));
    } else {
        md_log_set_level(next->log_level);
        static const char *const LEVELS[] = {"debug", "info", "warn", "error"};
        md_log(MD_LOG_INFO, "config.reloaded", "log_level=%s", LEVELS[next->log_level]);
    }
    free(next);
}

/* Reads signals until SIGTERM or SIGINT. */
static int serve(int sfd, int argc, char **argv, const md_config *c, md_engine *e, md_http *h)
{
    for (;;) {
        struct signalfd_siginfo si;
        ssize_t n = read(sfd, &si, sizeof si);
        if (n != (ssize_t)sizeof si) {
            if (n < 0 && errno == EINTR)
                continue;
            char q[160];
            md_log(MD_LOG_ERROR, "daemon.signalfd", "error=%s",
                   md_log_quote(strerror(errno), q, sizeof q));
            return 1;
        }
        if (si.ssi_signo == SIGHUP) {
            md_log(MD_LOG_INFO, "signal", "name=SIGHUP");
            reload(argc, argv, c, e, h);
            continue;
        }
        md_log(MD_LOG_INFO, "signal", "name=%s", si.ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        return 0;
    }
}

static int run(int argc, char **argv, const md_config *c, int sfd)
{
    char q[MS_ERR_LEN + 64];
    ms_error err = {0};
    md_http *h = NULL;
    md_store *st = NULL;
    md_engine *e = NULL;
    md_slurm_reconciler *rec = NULL;
    md_slurm_agent *agent = NULL;
    const ms_gpu_model *model = c->has_model ? &c->model : NULL;
    if (md_http_open(c, &h, &err) || (c->init_store && md_store_init(c->db, &err)) ||
        md_store_open(c->db, model, &st, &err) || md_engine_open(c, st, &e, &err) ||
        md_engine_prune(e, &err) || md_http_start(h, e, model, c->slurm_gres, &err) ||
        (c->slurm_reconcile > 0 && md_slurm_reconciler_start(e, c->slurm_reconcile, &rec, &err)) ||
        md_slurm_agent_start(e, c, &agent, &err)) {
        md_log(MD_LOG_ERROR, "daemon.start_failed", "error=%s", md_log_quote(err.msg, q, sizeof q));
        md_slurm_reconciler_stop(rec);
        if (e) {
            md_http_close(h);
            h = NULL;
            md_engine_stop(e, &err);
            md_engine_close(e);
        }
        md_http_close(h);
        if (st)
            md_store_close(st);
        return 1;
    }
    md_log(MD_LOG_INFO, "daemon.start", "version=%s backend=%s pid=%ld", MIGSCHED_VERSION,
           c->backend == MD_SIM ? "sim" : "nvml", (long)getpid());
    int rc = serve(sfd, argc, argv, c, e, h);
    md_slurm_agent_stop(agent);
    md_slurm_reconciler_stop(rec);
    /* Submissions are refused first (503) while status requests are still answered; the
     * listeners close once the engine has stopped. */
    if (md_engine_stop(e, &err)) {
        md_log(MD_LOG_ERROR, "daemon.stop_failed", "error=%s", md_log_quote(err.msg, q, sizeof q));
        rc = 1;
    }
    md_http_close(h);
    md_engine_close(e);
    md_store_close(st);
    md_log(MD_LOG_INFO, "daemon.stop", "status=%d", rc);
    return rc;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return fflush(stdout) ? 1 : 0;
        }
        if (!strcmp(argv[i], "--version")) {
            printf("migschedd %s\n", MIGSCHED_VERSION);
            return fflush(stdout) ? 1 : 0;
        }
    }
    md_config *c = malloc(sizeof *c);
    ms_error err = {0};
    if (!c) {
        ms_error_set(&err, MS_ENOMEM, "out of memory");
        return refused("daemon.start_failed", &err, NULL, 1);
    }
    if (load_config(argc, argv, c, &err)) {
        bool usage_err = usage_error(&err);
        free(c);
        return usage_err ? refused("config.invalid", &err, "migschedd --help lists the flags", 2)
                         : refused("config.invalid", &err, NULL, 1);
    }
    md_log_set_level(c->log_level);
    /* The store's lock comes before anything else is touched (the devices, the socket, the
     * store): a second daemon on the store stops here, held for the process's life. */
    int lock = -1;
    if (check_folders(c, &err) || md_store_lock(c->db, &lock, &err)) {
        free(c);
        return refused("daemon.start_failed", &err, NULL, 1);
    }
    if (identify_model(c, &err)) {
        ms_error_prefix(&err, "device %d", c->devices[0]);
        close(lock);
        free(c);
        return refused("daemon.start_failed", &err, NULL, 1);
    }
    /* Blocked before any thread starts, so every thread inherits the mask and the signals
     * arrive only through the signalfd. SIGPIPE (a client gone mid-reply) is blocked too,
     * not ignored: jobs' processes get the default back when their mask is reset. */
    sigset_t set, blocked;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    blocked = set;
    sigaddset(&blocked, SIGPIPE);
    int sfd = -1;
    if (sigprocmask(SIG_BLOCK, &blocked, NULL) || (sfd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
        ms_error_set(&err, MS_EIO, "signalfd: %s", strerror(errno));
        close(lock);
        free(c);
        return refused("daemon.start_failed", &err, NULL, 1);
    }
    int rc = run(argc, argv, c, sfd);
    close(sfd);
    close(lock);
    free(c);
    return rc;
}
