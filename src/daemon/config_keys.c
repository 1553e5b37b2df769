/* config_keys.c: migschedd's configuration keys, one row each: its kind, bounds, default and
 * whether a SIGHUP may change it (Redis's config.c table); the lookups by name, and the
 * defaults, read from the rows. */
#include "config_keys.h"

#include <assert.h>
#include <string.h>

#include "migsched/io.h"

static const char *const BACKENDS[] = {"nvml", "sim", NULL};
static const char *const MODES[] = {"online", "batch", NULL};
static const char *const LEVELS[] = {"debug", "info", "warn", "error", NULL};
static const char *const ON_STOP[] = {"wait", "requeue", NULL};
static const char *const ISOLATIONS[] = {"devices", "none", NULL};

#define FIELD(f) .offset = offsetof(md_config, f), .size = sizeof((md_config *)0)->f
#define LIVE     .reloadable = true

const md_key_row md_keys[MD_NKEYS] = {
    [MD_KEY_BACKEND] = {"backend", MD_VALUE_CHOICE, FIELD(backend), .names = BACKENDS,
                        .def = "nvml"},
    [MD_KEY_GPU] = {"gpu", MD_VALUE_PATH, FIELD(gpu)},
    [MD_KEY_GPUS] = {"gpus", MD_VALUE_INT, FIELD(gpus), .lo = 1, .hi = MD_MAX_DEVICES},
    [MD_KEY_DEVICES] = {"devices", MD_VALUE_DEVICES, .lo = 0, .hi = MD_MAX_DEVICES - 1},
    [MD_KEY_LISTEN] = {"listen", MD_VALUE_LISTEN, .def = "unix:" MD_DEFAULT_SOCKET},
    /* Unauthenticated and on any address: off unless named (docs/daemon.md says what it
     * exposes). */
    [MD_KEY_LISTEN_METRICS] = {"listen-metrics", MD_VALUE_METRICS_LISTEN},
    [MD_KEY_TOKEN_FILE] = {"token-file", MD_VALUE_PATH, FIELD(token_file), LIVE},
    [MD_KEY_DB] = {"db", MD_VALUE_PATH, FIELD(db), .def = "/var/lib/migschedd/migschedd.db"},
    [MD_KEY_INIT_STORE] = {"init-store", MD_VALUE_BOOL, FIELD(init_store), .def = "false"},
    [MD_KEY_MODE] = {"mode", MD_VALUE_CHOICE, FIELD(mode), .names = MODES, .def = "online"},
    [MD_KEY_TIME_SCALE] = {"time-scale", MD_VALUE_NUMBER, FIELD(time_scale), LIVE, .lo = 0,
                           .hi = 1e6, .def = "1"},
    [MD_KEY_LOG_LEVEL] = {"log-level", MD_VALUE_CHOICE, FIELD(log_level), LIVE, .names = LEVELS,
                          .def = "info"},
    [MD_KEY_ON_STOP] = {"on-stop", MD_VALUE_CHOICE, FIELD(on_stop), LIVE, .names = ON_STOP,
                        .def = "wait"},
    [MD_KEY_BATCH_SIZE] = {"batch-size", MD_VALUE_INT, FIELD(batch_size), LIVE, .batch_only = true,
                           .lo = 1, .hi = 100000, .def = "16"},
    [MD_KEY_BATCH_PERIOD] = {"batch-period", MD_VALUE_SECONDS, FIELD(batch_period), LIVE,
                             .batch_only = true, .lo = 0, .hi = MS_TIME_MAX, .def = "60"},
    [MD_KEY_BATCH_CONCAT] = {"batch-concat", MD_VALUE_CONCAT, FIELD(batch_concat), LIVE,
                             .batch_only = true, .def = "overlap"},
    [MD_KEY_QUEUE_LIMIT] = {"queue-limit", MD_VALUE_INT, FIELD(queue_limit), LIVE, .lo = 1,
                            .hi = 100000000, .def = "100000"},
    [MD_KEY_STOP_GRACE] = {"stop-grace", MD_VALUE_SECONDS, FIELD(stop_grace), LIVE, .lo = 0,
                           .hi = 3600, .def = "10"},
    [MD_KEY_TAU] = {"tau", MD_VALUE_NUMBER, FIELD(tau), LIVE, .lo = 0, .hi = 1, .def = "0.4"},
    [MD_KEY_LOG_DIR] = {"log-dir", MD_VALUE_PATH, FIELD(log_dir), .def = "/var/log/migschedd"},
    [MD_KEY_SLURM_RECONCILE] = {"slurm-reconcile", MD_VALUE_SECONDS, FIELD(slurm_reconcile),
                                .zero_off = true, .lo = 0, .hi = 86400, .def = "60"},
    [MD_KEY_SLURM_GRES] = {"slurm-gres", MD_VALUE_GRES, FIELD(slurm_gres), .def = "migslice"},
    [MD_KEY_HPC_JOB_MAPPING_DIR] = {"hpc-job-mapping-dir", MD_VALUE_PATH,
                                    FIELD(hpc_job_mapping_dir)},
    [MD_KEY_ALLOW_ROOT_JOBS] = {"allow-root-jobs", MD_VALUE_BOOL, FIELD(allow_root_jobs),
                                .def = "false"},
    [MD_KEY_ADMIN_GROUP] = {"admin-group", MD_VALUE_NAME, FIELD(admin_group), LIVE},
    [MD_KEY_SLURM_USER] = {"slurm-user", MD_VALUE_NAME, FIELD(slurm_user), LIVE, .def = "slurm"},
    [MD_KEY_ISOLATION] = {"isolation", MD_VALUE_CHOICE, FIELD(isolation), .names = ISOLATIONS,
                          .def = "devices"},
    [MD_KEY_DEV_DIR] = {"dev-dir", MD_VALUE_PATH, FIELD(dev_dir), .def = "/dev"},
    [MD_KEY_MIG_MINORS] = {"mig-minors", MD_VALUE_PATH, FIELD(mig_minors),
                           .def = "/proc/driver/nvidia-caps/mig-minors"},
    /* At most 160 bytes: journalled with each job's cgroup name, room for both. */
    [MD_KEY_CGROUP_ROOT] = {"cgroup-root", MD_VALUE_CGROUP, FIELD(cgroup_root), .hi = 160},
    [MD_KEY_USER_QUEUE_LIMIT] = {"user-queue-limit", MD_VALUE_INT, FIELD(user_queue_limit), LIVE,
                                 .lo = 1, .hi = 100000000, .def = "10000"},
    [MD_KEY_USER_QUEUE_BYTES] = {"user-queue-bytes", MD_VALUE_BYTES, FIELD(user_queue_bytes), LIVE,
                                 .lo = 65536, .hi = (double)(1LL << 40), .def = "16777216"},
    [MD_KEY_PEER_CONNECTIONS] = {"peer-connections", MD_VALUE_INT, FIELD(peer_connections), .lo = 1,
                                 .hi = MD_CONNECTION_LIMIT, .def = "32"},
    [MD_KEY_REQUEST_TIMEOUT] = {"request-timeout", MD_VALUE_SECONDS, FIELD(request_timeout),
                                .lo = 0, .hi = 3600, .def = "10"},
    [MD_KEY_MAX_ATTEMPTS] = {"max-attempts", MD_VALUE_INT, FIELD(max_attempts), .lo = 1, .hi = 1000,
                             .def = "3"},
    /* Seven days. */
    [MD_KEY_RETENTION] = {"retention", MD_VALUE_SECONDS, FIELD(retention), .lo = 0,
                          .hi = MS_TIME_MAX, .def = "604800"},
    /* Changes Slurm's node state (its GRES count), so off unless named. */
    [MD_KEY_SLURM_NODE] = {"slurm-node", MD_VALUE_NAME, FIELD(slurm_node)},
    [MD_KEY_SLURM_ADMIN_COMMENT] = {"slurm-admin-comment", MD_VALUE_BOOL,
                                    FIELD(slurm_admin_comment), .def = "true"},
    [MD_KEY_SLURM_SYNC] = {"slurm-sync", MD_VALUE_SECONDS, FIELD(slurm_sync), .zero_off = true,
                           .lo = 0, .hi = 86400, .def = "10"},
    /* Made from gpu and gpus when missing; an existing one must hold them. */
    [MD_KEY_SIM_STATE] = {"sim-state", MD_VALUE_PATH, FIELD(sim_state)},
};

void md_config_defaults(md_config *c)
{
    memset(c, 0, sizeof *c);
    for (int k = 0; k < MD_NKEYS; k++)
        if (md_keys[k].def) {
            int rc = md_value_parse(&md_keys[k], c, md_keys[k].def, "", NULL);
            assert(rc == MS_OK && "every default in the table is a valid value");
            (void)rc;
        }
}

int md_key_parse(const char *name)
{
    for (int k = 0; k < MD_NKEYS; k++)
        if (!strcmp(name, md_keys[k].name))
            return k;
    return -1;
}

const char *md_key_name(int key) { return key >= 0 && key < MD_NKEYS ? md_keys[key].name : "?"; }

bool md_key_reloadable(int key) { return key >= 0 && key < MD_NKEYS && md_keys[key].reloadable; }
