/* config.h: migschedd's configuration: a Redis-style file of `key value` lines whose
 * every key is also a `--key value` flag (flags override the file), its validation, and
 * which keys a SIGHUP may change. Private to the daemon; the keys are in docs/daemon.md. */
#ifndef MIGSCHED_DAEMON_CONFIG_H
#define MIGSCHED_DAEMON_CONFIG_H

#include <stdbool.h>
#include <stdio.h>

#include "migsched/error.h"
#include "migsched/gpu.h"

#define MD_MAX_LISTEN       8
#define MD_MAX_DEVICES      64
#define MD_PATH_LEN         4096
#define MD_WHERE_LEN        160 /* "FILE:LINE" or "--key" */
#define MD_CONNECTION_LIMIT 256 /* open connections per listener, all peers */
/* listen's default; the db's default goes with it (md_config_check). */
#define MD_DEFAULT_SOCKET "/run/migschedd/migschedd.sock"

typedef enum md_backend { MD_NVML = 0, MD_SIM } md_backend;
typedef enum md_mode { MD_ONLINE = 0, MD_BATCH } md_mode;
typedef enum md_log_level { MD_LOG_DEBUG = 0, MD_LOG_INFO, MD_LOG_WARN, MD_LOG_ERROR } md_log_level;
typedef enum md_on_stop { MD_ON_STOP_WAIT = 0, MD_ON_STOP_REQUEUE } md_on_stop;
/* How a job is confined to its MIG instance: a private mount namespace whose NVIDIA device
 * nodes are its own instance's only, or nothing (CUDA_VISIBLE_DEVICES alone, a hint). */
typedef enum md_isolation { MD_ISOLATION_DEVICES = 0, MD_ISOLATION_NONE } md_isolation;

/* One listening address: unix:PATH or tcp:HOST:PORT (HOST a loopback address); or
 * listen-metrics' HOST:PORT (any address), which serves GET /metrics alone, to anyone. */
typedef struct md_listen {
    bool tcp;
    bool metrics_only;
    char path[108]; /* unix: a socket path fits sockaddr_un's sun_path */
    char host[64];  /* tcp: "127.0.0.1", "::1" */
    int port;
    char where[MD_WHERE_LEN];
} md_listen;

/* Keys in docs/daemon.md's order; md_config.where is indexed by them. */
enum md_key {
    MD_KEY_BACKEND,
    MD_KEY_GPU,
    MD_KEY_GPUS,
    MD_KEY_DEVICES,
    MD_KEY_LISTEN,
    MD_KEY_LISTEN_METRICS,
    MD_KEY_TOKEN_FILE,
    MD_KEY_DB,
    MD_KEY_INIT_STORE,
    MD_KEY_MODE,
    MD_KEY_TIME_SCALE,
    MD_KEY_LOG_LEVEL,
    MD_KEY_ON_STOP,
    MD_KEY_BATCH_SIZE,
    MD_KEY_BATCH_PERIOD,
    MD_KEY_BATCH_CONCAT,
    MD_KEY_QUEUE_LIMIT,
    MD_KEY_STOP_GRACE,
    MD_KEY_TAU,
    MD_KEY_LOG_DIR,
    MD_KEY_SLURM_RECONCILE,
    MD_KEY_SLURM_GRES,
    MD_KEY_HPC_JOB_MAPPING_DIR,
    MD_KEY_ALLOW_ROOT_JOBS,
    MD_KEY_ADMIN_GROUP,
    MD_KEY_SLURM_USER,
    MD_KEY_ISOLATION,
    MD_KEY_DEV_DIR,
    MD_KEY_MIG_MINORS,
    MD_KEY_CGROUP_ROOT,
    MD_KEY_USER_QUEUE_LIMIT,
    MD_KEY_USER_QUEUE_BYTES,
    MD_KEY_PEER_CONNECTIONS,
    MD_KEY_REQUEST_TIMEOUT,
    MD_KEY_MAX_ATTEMPTS,
    MD_KEY_RETENTION,
    MD_KEY_SLURM_NODE,
    MD_KEY_SLURM_ADMIN_COMMENT,
    MD_KEY_SLURM_SYNC,
    MD_KEY_SIM_STATE,
    MD_NKEYS
};

typedef struct md_config {
    md_backend backend;
    char gpu[MD_PATH_LEN];       /* a built-in model name or a model JSON path */
    int gpus;                    /* sim: GPUs simulated */
    char sim_state[MD_PATH_LEN]; /* sim: the state file holding them ("" they live in the
                                    process): exec_sim_state.h */
    int ndevices;
    int devices[MD_MAX_DEVICES]; /* nvml: device indices, distinct */
    int nlisten;
    md_listen listen[MD_MAX_LISTEN];
    md_listen listen_metrics; /* port 0: none */
    char token_file[MD_PATH_LEN];
    char db[MD_PATH_LEN];
    bool init_store; /* an empty db file may be made a new store */
    md_mode mode;
    double time_scale; /* sim: task-seconds per real second */
    md_log_level log_level;
    md_on_stop on_stop;
    int batch_size;            /* batch: plan when this many jobs are pending */
    double batch_period;       /* batch: or when the oldest has waited this long (s) */
    int batch_concat;          /* batch: how a batch joins the running plan
                                  (ms_concat_mode; default overlap) */
    int queue_limit;           /* queued jobs beyond which submissions are refused */
    double stop_grace;         /* seconds between SIGTERM and SIGKILL of a job */
    double tau;                /* online: a GPU is Lazy iff busy slices < tau x slices */
    char log_dir[MD_PATH_LEN]; /* nvml: each job's stdout/stderr files */
    double slurm_reconcile;    /* seconds between checks of Slurm's running jobs; 0 off */
    char slurm_gres[64];       /* the count-only GRES an allocation must fit; "none" */
    char hpc_job_mapping_dir[MD_PATH_LEN]; /* DCGM exporter's job files; "" none */
    bool allow_root_jobs;                  /* a job may run as uid 0 */
    char admin_group[64];                  /* members are admins (beside root); "" none */
    char slurm_user[64];                   /* may manage allocations (beside root) */
    md_isolation isolation;
    char dev_dir[MD_PATH_LEN];     /* where the NVIDIA device nodes are */
    char mig_minors[MD_PATH_LEN];  /* the MIG capability minors file */
    char cgroup_root[MD_PATH_LEN]; /* under which jobs get cgroups: "" its own cgroup,
                                      "none" process groups only */
    int user_queue_limit;          /* queued jobs per user */
    long long user_queue_bytes;    /* bytes of queued jobs' specs per user */
    int peer_connections;          /* open connections per peer (uid; TCP: address) */
    double request_timeout;        /* seconds a request may take to send headers and body */
    int max_attempts;              /* runs lost to daemon crashes before a job fails */
    double retention;              /* seconds a finished job is kept before it is pruned */
    char slurm_node[64];           /* this node's Slurm name: its GRES count kept truthful */
    bool slurm_admin_comment;      /* placed allocations named in their jobs' AdminComment */
    double slurm_sync;             /* seconds between the Slurm agent's passes; 0 off */
    /* Where each key was set ("" = the default), for messages. */
    char where[MD_NKEYS][MD_WHERE_LEN];
    /* Filled by md_config_check when gpu is set. */
    bool has_model;
    ms_gpu_model model;
} md_config;

/* Every key's default: its row's in config_keys.c (docs/daemon.md lists them); the db's
 * may then change with listen (see md_config_check). */
void md_config_defaults(md_config *c);

/* Key name ("batch-size") to its index, -1 if unknown. */
int md_key_parse(const char *name);
const char *md_key_name(int key);
/* Whether a SIGHUP may change the key in a running daemon. */
bool md_key_reloadable(int key);

/* Sets one key from its text; `where` ("FILE:LINE" or "--key") goes into every message.
 * A key set twice from the same kind of source (two lines, two flags) is an error, except
 * listen, which collects; the first listen flag replaces the file's listen lines. */
int md_config_set(md_config *c, const char *key, const char *value, const char *where,
                  ms_error *err);
/* Applies a config file: `key value` per line, blank lines and lines starting with '#'
 * ignored; the value is the rest of the line, surrounding blanks trimmed. */
int md_config_load(md_config *c, const char *path, ms_error *err);
/* Defaults, then the file of `--config FILE` (if any), then every other `--key value` or
 * `--key=value` in argv[1..argc-1]. Anything else (an unknown flag, a positional argument)
 * is an error naming it. Does not check the whole: call md_config_check. */
int md_config_from_args(md_config *c, int argc, char **argv, ms_error *err);
/* The rules between keys, each error naming where the key was set: sim needs gpu and gpus
 * (not devices), sim-state goes with sim and a built-in gpu; nvml needs devices (not gpus, not
 * time-scale); tcp listening needs a token-file, not accessible to group or others, of valid `USER
 * TOKEN` lines (tokens.h); batch-size and batch-period go with mode batch. Loads the GPU model
 * (c->model). A db not given is the default one only while listen is the default; otherwise it is
 * the first unix socket's path with ".db" added (ad-hoc daemons never share a store), and a daemon
 * listening on TCP alone must be given one. */
int md_config_check(md_config *c, ms_error *err);
/* For SIGHUP: next (checked) may differ from cur only in reloadable keys; else an error
 * naming the first key that would need a restart and where next sets it. */
int md_config_reload_check(const md_config *cur, const md_config *next, ms_error *err);
/* The effective configuration in the file format, one key per line (listen repeated). */
void md_config_write(const md_config *c, FILE *f);

#endif
