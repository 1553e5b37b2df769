/* cleanup.c: `migsched run --cleanup`: after a crashed run, stop the tasks it left (by
 * their cgroups, else their process groups), then destroy the instances it created, each only if it
 * is still the very instance the journal recorded. */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "migsched/exec.h"
#include "migsched/io.h"
#include "migsched/process.h"
#include "proc.h"

typedef struct cleaner {
    const ms_cleanup_options *o;
    const ms_journal_state *st;
    ms_cleanup_report *rep;
    ms_journal *j;
    bool ours[MS_JOURNAL_MAX_RECORDS]; /* task groups proved the run's: only those signalled */
    ms_backend *b[MS_RUN_MAX_GPUS];
    ms_device_lock *lock[MS_RUN_MAX_GPUS];
    int dev[MS_RUN_MAX_GPUS], ndev;
} cleaner;

static void say(cleaner *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void say(cleaner *c, const char *fmt, ...)
{
    if (!c->o->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->o->progress, fmt, ap);
    va_end(ap);
    fputc('\n', c->o->progress);
}

static void left(cleaner *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void left(cleaner *c, const char *fmt, ...)
{
    ms_cleanup_report *r = c->rep;
    if (r->nleft == MS_CLEANUP_MAX_LEFT)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->left[r->nleft++], sizeof r->left[0], fmt, ap);
    va_end(ap);
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* ---- Task process groups ---------------------------------------------------------- */

static bool any_alive(const cleaner *c)
{
    for (int i = 0; i < c->st->n; i++) {
        const ms_journal_rec *r = &c->st->rec[i];
        if (c->ours[i] && ms_proc_group_ours_alive(r->pgid, r->pstart))
            return true;
    }
    return false;
}

static void signal_groups(cleaner *c, int sig)
{
    for (int i = 0; i < c->st->n; i++) {
        const ms_journal_rec *r = &c->st->rec[i];
        if (c->ours[i] && ms_proc_group_ours_alive(r->pgid, r->pstart) &&
            kill(-r->pgid, sig) == 0 && sig == SIGTERM)
            c->rep->killed++;
    }
}

/* A group is the run's only while its leader is the recorded process, never by its id
 * alone: with the leader gone, another group may have taken the id. Such a group is
 * reported and left alone. */
static void prove_groups(cleaner *c)
{
    for (int i = 0; i < c->st->n; i++) {
        const ms_journal_rec *r = &c->st->rec[i];
        if (r->kind != MS_JOURNAL_TASK || r->cgroup[0] ||
            !ms_proc_group_ours_alive(r->pgid, r->pstart))
            continue;
        c->ours[i] = ms_proc_group_leader_is(r->pgid, r->pstart);
        if (!c->ours[i])
            left(c,
                 "task process group %d (task #%d, device %d): its leader is gone, so it "
                 "cannot be told from another group that took its id: left alone (see `ps "
                 "-o pid,lstart,args -g %d`)",
                 r->pgid, r->task, r->device, r->pgid);
    }
}

/* Waits up to `seconds` for every group to go; true if they did. */
static bool wait_groups(const cleaner *c, double seconds)
{
    for (double waited = 0; any_alive(c); waited += 0.05) {
        if (waited >= seconds)
            return false;
        sleep_s(0.05);
    }
    return true;
}

/* Tasks recorded with a cgroup (migschedd's jobs) are stopped by it, all together:
 * everything each started goes, whatever its process group. */
static void stop_cgroups(cleaner *c, double grace)
{
    bool held[MS_JOURNAL_MAX_RECORDS], gone[MS_JOURNAL_MAX_RECORDS];
    ms_cgroup_stop_tasks(c->st, grace, held, gone);
    for (int k = 0; k < c->st->n; k++) {
        const ms_journal_rec *r = &c->st->rec[k];
        c->rep->killed += held[k];
        if (r->kind == MS_JOURNAL_TASK && r->cgroup[0] && !gone[k])
            left(c, "task cgroup %s (task #%d) still holds a process after SIGKILL", r->cgroup,
                 r->task);
    }
}

/* Before the instances: a task still running on one keeps it busy (IN_USE). */
static void stop_tasks(cleaner *c)
{
    double grace = c->o->kill_grace_s > 0 ? c->o->kill_grace_s : 5.0;
    stop_cgroups(c, grace);
    if (c->rep->killed)
        say(c, "stopped %d task cgroup%s of the crashed run", c->rep->killed,
            c->rep->killed == 1 ? "" : "s");
    prove_groups(c);
    if (!any_alive(c))
        return;
    int before = c->rep->killed;
    signal_groups(c, SIGTERM);
    int groups = c->rep->killed - before;
    say(c, "sent SIGTERM to %d task process group%s of the crashed run", groups,
        groups == 1 ? "" : "s");
    if (wait_groups(c, grace))
        return;
    signal_groups(c, SIGKILL);
    say(c, "sent SIGKILL to what was still running after %.1f s", grace);
    if (wait_groups(c, 2.0))
        return;
    for (int i = 0; i < c->st->n; i++) {
        const ms_journal_rec *r = &c->st->rec[i];
        if (c->ours[i] && ms_proc_group_ours_alive(r->pgid, r->pstart))
            left(c, "task process group %d (task #%d, device %d) survived SIGKILL", r->pgid,
                 r->task, r->device);
    }
}

/* ---- Devices ---------------------------------------------------------------------- */

static const char *recorded_uuid(const ms_journal_state *st, int device)
{
    for (int k = 0; k < st->ndev; k++)
        if (st->dev[k].device == device)
            return st->dev[k].uuid;
    return NULL;
}

/* Opens and locks every device with open instance records; refuses (touching nothing)
 * when one is owned by a live process or is no longer the GPU the journal names. */
static int take_devices(cleaner *c, ms_error *err)
{
    const ms_gpu_model *model = ms_gpu_builtin(c->st->model);
    for (int i = 0; i < c->st->n; i++) {
        const ms_journal_rec *r = &c->st->rec[i];
        bool seen = false;
        for (int k = 0; k < c->ndev; k++)
            seen |= c->dev[k] == r->device;
        if (r->kind == MS_JOURNAL_FOREIGN || r->kind == MS_JOURNAL_TASK || seen)
            continue;
        if (c->ndev == MS_RUN_MAX_GPUS)
            return ms_error_set(err, MS_EINVAL, "%s: more than %d devices", c->o->journal,
                                MS_RUN_MAX_GPUS);
        int k = c->ndev++;
        c->dev[k] = r->device;
        int rc = ms_backend_open(c->st->backend, r->device, model, &c->o->backend_opt, &c->b[k],
                                 err);
        if (rc)
            return rc;
        const char *uuid = ms_backend_gpu_uuid(c->b[k]);
        const char *was = recorded_uuid(c->st, r->device);
        if (was && strcmp(was, uuid))
            return ms_error_set(err, MS_ECHANGED,
                                "device %d is now %s, not %s as the journal recorded: the GPUs "
                                "were renumbered; nothing touched",
                                r->device, uuid, was);
        if (uuid[0] && (rc = ms_device_lock_open(c->o->lock_dir, uuid, &c->lock[k], err)))
            return rc;
    }
    return MS_OK;
}

static bool listed_foreign(const ms_journal_state *st, int device, const ms_mig_instance *in)
{
    for (int i = 0; i < st->n; i++) {
        const ms_journal_rec *r = &st->rec[i];
        if (r->kind == MS_JOURNAL_FOREIGN && r->device == device && r->gi_id == in->gi_id &&
            r->start == in->start_slot && !strcmp(r->uuid, in->uuid))
            return true;
    }
    return false;
}

static void destroy(cleaner *c, ms_backend *b, const ms_mig_instance *in, const char *why)
{
    int dev = ms_backend_device(b);
    ms_error e;
    ms_mig_instance was = *in; /* journalled "destroying": a crash here is recoverable too */
    int rc = ms_backend_destroy_owned(b, c->j, &was, &e);
    if (rc) {
        left(c, "device %d: GPU instance %u (slots %d-%d): %s", dev, in->gi_id, in->start_slot,
             in->start_slot + in->size_slots - 1, e.msg);
        return;
    }
    ms_journal_destroyed(c->j, dev, in->gi_id, NULL);
    c->rep->destroyed++;
    say(c, "device %d: destroyed leftover GPU instance %u (slots %d-%d, %s)%s", dev, in->gi_id,
        in->start_slot, in->start_slot + in->size_slots - 1,
        in->uuid[0] ? in->uuid : "no MIG device", why);
}

/* An instance that may be the journal's but whose identity cannot be proved: removed only
 * with --force, else reported with the commands that remove it. */
static void unsure(cleaner *c, ms_backend *b, const ms_mig_instance *in, const char *why, int line)
{
    int dev = ms_backend_device(b);
    if (c->o->force) {
        destroy(c, b, in, " (identity unknown; --force)");
        return;
    }
    left(c,
         "device %d: GPU instance %u (slots %d-%d, %s) %s (%s line %d): it may be migsched's "
         "or someone else's. Remove it with `migsched run --cleanup --journal %s --force` or "
         "`nvidia-smi mig -i %d -gi %u -dci && nvidia-smi mig -i %d -gi %u -dgi`",
         dev, in->gi_id, in->start_slot, in->start_slot + in->size_slots - 1,
         in->uuid[0] ? in->uuid : "no compute instance", why, c->o->journal, line, c->o->journal,
         dev, in->gi_id, dev, in->gi_id);
}

static int clean_device(cleaner *c, ms_backend *b, ms_error *err)
{
    int dev = ms_backend_device(b);
    ms_mig_instance list[MS_MAX_MIG];
    int n = 0;
    int rc = ms_backend_list(b, list, &n, err);
    if (rc)
        return rc;
    for (int i = 0; i < n; i++) {
        const ms_mig_instance *in = &list[i];
        const ms_journal_rec *cr;
        ms_claim claim = ms_journal_claim(c->st, dev, ms_backend_model(b), in, &cr);
        if (claim == MS_CLAIM_OURS) {
            destroy(c, b, in,
                    cr->kind == MS_JOURNAL_GI_MADE ? " (its creation was under way at the crash)"
                    : in->uuid[0]                  ? ""
                                                   : " (its destroy was under way at the crash)");
            continue;
        }
        if (claim == MS_CLAIM_UNPROVEN) { /* not ours for sure */
            unsure(c, b, in,
                   cr->kind == MS_JOURNAL_GI_MADE
                       ? "was being made at the crash but has a compute instance "
                         "the journal does not name"
                       : "has the recorded id and slots but lost its MIG device",
                   cr->line);
            continue;
        }
        if (claim == MS_CLAIM_STRANGER)
            say(c,
                "device %d: GPU instance %u is not the one the journal recorded (line %d: "
                "%s%sslots %d-%d, %s; now slots %d-%d, %s): not migsched's, left alone",
                dev, in->gi_id, cr->line, cr->profile, cr->profile[0] ? " at " : "", cr->start,
                cr->start + cr->size - 1, cr->uuid[0] ? cr->uuid : "no MIG device", in->start_slot,
                in->start_slot + in->size_slots - 1, in->uuid[0] ? in->uuid : "no MIG device");
        /* A creation in flight at the crash may have made this instance, or someone else
         * may have: its identity was never recorded. */
        for (int k = 0; k < c->st->n; k++) {
            const ms_journal_rec *r = &c->st->rec[k];
            if (r->kind == MS_JOURNAL_BEGUN && r->device == dev && r->start == in->start_slot &&
                r->size == in->size_slots && !listed_foreign(c->st, dev, in)) {
                unsure(c, b, in, "sits where a creation was in flight at the crash", r->line);
                break;
            }
        }
    }
    return MS_OK;
}

/* The journal of a run that is still going is its own business. */
static int check_owner(const ms_journal_state *st, const char *path, ms_error *err)
{
    if (st->owner_pid && !st->finished && proc_alive(st->owner_pid, st->owner_start))
        return ms_error_set(err, MS_EBUSY,
                            "%s: the run that wrote it (process %d) is still running; it cleans "
                            "up after itself when it ends or is stopped (kill -INT %d)",
                            path, st->owner_pid, st->owner_pid);
    return MS_OK;
}

/* Only a journal of ours (or root's) in a folder only we can write: another user's could
 * name any process group and instance. */
static int read_journal(const char *path, ms_journal_state *st, ms_error *err)
{
    bool found;
    int rc = ms_journal_load(path, st, &found, err);
    if (!rc && !found)
        rc = ms_error_set(err, MS_EIO, "%s: cannot open the journal: %s", path, strerror(ENOENT));
    return rc;
}

int ms_run_cleanup(const ms_cleanup_options *o, ms_cleanup_report *rep, ms_error *err)
{
    memset(rep, 0, sizeof *rep);
    ms_journal_state *st = malloc(sizeof *st);
    if (!st)
        return ms_error_set(err, MS_ENOMEM, "out of memory reading the journal");
    cleaner c = {.o = o, .st = st, .rep = rep};
    int rc = read_journal(o->journal, st, err);
    if (rc == MS_OK && st->torn_line)
        say(&c, "%s:%d: the last record was cut short by a crash mid-write: dropped", o->journal,
            st->torn_line);
    if (rc == MS_OK)
        rc = check_owner(st, o->journal, err);
    if (rc == MS_OK && st->n)
        rc = take_devices(&c, err);
    if (rc == MS_OK && st->n)
        rc = ms_journal_open(o->journal, NULL, NULL, &c.j, err);
    if (rc == MS_OK)
        stop_tasks(&c);
    for (int k = 0; rc == MS_OK && k < c.ndev; k++)
        rc = clean_device(&c, c.b[k], err);
    /* Nothing of the journal's is left: later cleanups have nothing to do, and the
     * journal shrinks to its header. */
    if (rc == MS_OK && c.j && rep->nleft == 0)
        rc = ms_journal_clean(c.j, err);
    if (rc == MS_OK && c.j)
        rc = ms_journal_compact(c.j, err);
    ms_journal_close(c.j, false, NULL);
    for (int k = 0; k < c.ndev; k++) {
        ms_backend_close(c.b[k]);
        ms_device_lock_close(c.lock[k]);
    }
    free(st);
    return rc;
}
