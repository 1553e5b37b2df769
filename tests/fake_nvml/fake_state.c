/* fake_state.c: configuration, persistent state file (flock-ed text) and fault injection
 * for the fake NVML. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "fake.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static fake_state memory_state; /* used when no state file is set */
static bool memory_ready;
static fake_state file_state;
static int state_fd = -1;

bool fake_config_load(fake_config *c)
{
    memset(c, 0, sizeof *c);
    const char *gpu = getenv("FAKE_NVML_GPU");
    ms_error err;
    if (ms_gpu_lookup(gpu && *gpu ? gpu : "A100-40GB", &c->model, &err)) {
        fprintf(stderr, "fake NVML: FAKE_NVML_GPU: %s\n", err.msg);
        return false;
    }
    const char *n = getenv("FAKE_NVML_GPUS");
    c->ngpus = n && *n ? atoi(n) : 1;
    if (c->ngpus < 0 || c->ngpus > FAKE_MAX_GPUS) {
        fprintf(stderr, "fake NVML: FAKE_NVML_GPUS must be 0..%d\n", FAKE_MAX_GPUS);
        return false;
    }
    const char *d = getenv("FAKE_NVML_DELAY_SCALE");
    c->delay_scale = d && *d ? atof(d) : 1.0;
    const char *s = getenv("FAKE_NVML_STATE");
    snprintf(c->state_path, sizeof c->state_path, "%s", s ? s : "");
    const char *m = getenv("FAKE_NVML_MIG");
    c->mig_initially = !(m && !strcmp(m, "0"));
    /* Not the index by default on hardware either: code that mixes them up fails. */
    const char *b = getenv("FAKE_NVML_MINOR_BASE");
    c->minor_base = b && *b ? (unsigned)atoi(b) : 0;
    /* Several emulated nodes on one machine: their GPUs and instances must not share UUIDs,
     * as real ones never do. */
    const char *u = getenv("FAKE_NVML_UUID_PREFIX");
    if (!u || !*u)
        u = "fa4e";
    if (strlen(u) != 4 || strspn(u, "0123456789abcdef") != 4) {
        fprintf(stderr,
                "fake NVML: FAKE_NVML_UUID_PREFIX must be 4 lower-case hex digits (got \"%s\")\n",
                u);
        return false;
    }
    memcpy(c->uuid_prefix, u, 5);
    return true;
}

static void fresh(const fake_config *c, fake_state *st)
{
    memset(st, 0, sizeof *st);
    for (int g = 0; g < FAKE_MAX_GPUS; g++)
        st->gpu[g].mig = c->mig_initially;
}

/* Text format, one record per line: "serial N", "gpu G mig M",
 * "gi G ID PROFILE_NAME START SERIAL", "ci G GI_ID CI_ID CI_PROFILE_INDEX",
 * "proc G GI_ID PID" (a compute process on the instance's MIG device; after its gi). */
static void parse(const fake_config *c, FILE *f, fake_state *st)
{
    char line[256], name[64];
    unsigned g, a, b, d, e;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "serial %u", &a) == 1)
            st->serial = a;
        else if (sscanf(line, "gpu %u mig %u", &g, &a) == 2 && g < FAKE_MAX_GPUS)
            st->gpu[g].mig = a;
        else if (sscanf(line, "gi %u %u %63s %u %u", &g, &a, name, &d, &e) == 5 &&
                 g < FAKE_MAX_GPUS && st->gpu[g].ngi < FAKE_MAX_GI &&
                 ms_gpu_profile_by_name(&c->model, name) >= 0) {
            fake_gi *gi = &st->gpu[g].gi[st->gpu[g].ngi++];
            *gi = (fake_gi){.id = a,
                            .profile = ms_gpu_profile_by_name(&c->model, name),
                            .start = d,
                            .serial = e};
        } else if (sscanf(line, "proc %u %u %u", &g, &a, &b) == 3 && g < FAKE_MAX_GPUS) {
            for (int i = 0; i < st->gpu[g].ngi; i++) {
                fake_gi *gi = &st->gpu[g].gi[i];
                if (gi->id == a && gi->npid < FAKE_MAX_PIDS)
                    gi->pid[gi->npid++] = b;
            }
        } else if (sscanf(line, "ci %u %u %u %u", &g, &a, &b, &d) == 4 && g < FAKE_MAX_GPUS) {
            for (int i = 0; i < st->gpu[g].ngi; i++) {
                fake_gi *gi = &st->gpu[g].gi[i];
                if (gi->id == a && gi->nci < FAKE_MAX_CI)
                    gi->ci[gi->nci++] = (fake_ci){b, d};
            }
        }
    }
}

static void save(const fake_config *c, const fake_state *st)
{
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", c->state_path);
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "fake NVML: cannot write %s: %s\n", tmp, strerror(errno));
        return;
    }
    fprintf(f, "serial %u\n", st->serial);
    for (int g = 0; g < c->ngpus; g++) {
        const fake_gpu *gpu = &st->gpu[g];
        fprintf(f, "gpu %d mig %u\n", g, gpu->mig);
        for (int i = 0; i < gpu->ngi; i++) {
            const fake_gi *gi = &gpu->gi[i];
            fprintf(f, "gi %d %u %s %u %u\n", g, gi->id, c->model.profiles[gi->profile].name,
                    gi->start, gi->serial);
            for (int k = 0; k < gi->nci; k++)
                fprintf(f, "ci %d %u %u %u\n", g, gi->id, gi->ci[k].id, gi->ci[k].profile_index);
            for (int k = 0; k < gi->npid; k++)
                fprintf(f, "proc %d %u %u\n", g, gi->id, gi->pid[k]);
        }
    }
    if (fclose(f) != 0 || rename(tmp, c->state_path) != 0)
        fprintf(stderr, "fake NVML: cannot save %s: %s\n", c->state_path, strerror(errno));
}

fake_state *fake_state_begin(const fake_config *c)
{
    pthread_mutex_lock(&lock);
    if (!c->state_path[0]) {
        if (!memory_ready)
            fresh(c, &memory_state);
        memory_ready = true;
        return &memory_state;
    }
    /* A lock file beside the state: the state file itself is replaced by rename. */
    char lock_path[600];
    snprintf(lock_path, sizeof lock_path, "%s.lock", c->state_path);
    state_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (state_fd >= 0)
        while (flock(state_fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    fresh(c, &file_state);
    FILE *f = fopen(c->state_path, "r");
    if (f) {
        parse(c, f, &file_state);
        fclose(f);
    }
    return &file_state;
}

/* Set by a "killafter" fault: the call does its work, saves it, then the process dies. */
static _Thread_local bool kill_after;

void fake_state_end(const fake_config *c, bool changed)
{
    if (c->state_path[0]) {
        if (changed)
            save(c, &file_state);
        if (state_fd >= 0)
            close(state_fd); /* releases the flock */
        state_fd = -1;
    }
    pthread_mutex_unlock(&lock);
    if (kill_after)
        raise(SIGKILL); /* a crash right after the call's effect, before its caller knew */
}

int fake_fault(const char *entry)
{
    static pthread_mutex_t count_lock = PTHREAD_MUTEX_INITIALIZER;
    static struct {
        char name[64];
        long calls;
    } counts[64];
    const char *spec = getenv("FAKE_NVML_FAIL");
    if (!spec || !*spec)
        return 0;
    pthread_mutex_lock(&count_lock);
    long calls = 0;
    for (int i = 0; i < 64; i++) {
        if (!counts[i].name[0])
            snprintf(counts[i].name, sizeof counts[i].name, "%s", entry);
        if (!strcmp(counts[i].name, entry)) {
            calls = ++counts[i].calls;
            break;
        }
    }
    pthread_mutex_unlock(&count_lock);
    /* Each comma-separated item is name:k[:code|kill|killafter]. */
    char buf[512];
    snprintf(buf, sizeof buf, "%s", spec);
    for (char *save_ptr = NULL, *item = strtok_r(buf, ",", &save_ptr); item;
         item = strtok_r(NULL, ",", &save_ptr)) {
        char *k = strchr(item, ':');
        if (!k)
            continue;
        *k++ = '\0';
        char *code = strchr(k, ':');
        if (code)
            *code++ = '\0';
        if (strcmp(item, entry) || atol(k) != calls)
            continue;
        if (code && !strcmp(code, "kill"))
            raise(SIGKILL); /* a crash in the middle of a call, for journal tests */
        if (code && !strcmp(code, "killafter")) {
            kill_after = true;
            return 0;
        }
        return code ? atoi(code) : 999; /* NVML_ERROR_UNKNOWN */
    }
    return 0;
}

unsigned fake_profile_id(const ms_gpu_model *m, int profile)
{
    /* Index -> id, from MIG_PROFILES.md (A30 and A100/H100 families). */
    static const unsigned a30[] = {[0] = 14, [1] = 5, [3] = 0};
    static const unsigned a100[] = {[0] = 19, [1] = 14, [2] = 9, [3] = 5, [4] = 0, [9] = 15};
    int idx = m->profiles[profile].nvml_index;
    if (m->slots == 4 && idx >= 0 && idx < 4 && (idx == 3 || a30[idx]))
        return a30[idx];
    if (m->slots == 8 && idx >= 0 && idx < 10 && (idx == 4 || a100[idx]))
        return a100[idx];
    return 100u + (unsigned)profile;
}
