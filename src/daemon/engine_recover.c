/* engine_recover.c: the nvml engine's start after its previous owner (a clean stop or a
 * crash): the processes that owner's journal records still running are stopped (by their
 * cgroups where they have them, never by a process-group id alone), its instances destroyed
 * if still the very ones, every other instance recorded foreign, and the journal rewritten
 * as what is live. */
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>

#include "engine_internal.h"
#include "log.h"
#include "migsched/process.h"

static void pause_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    nanosleep(&ts, NULL);
}

/* Waits up to `seconds` for the group to go; true if it did. */
static bool group_gone(const ms_journal_rec *r, double seconds)
{
    for (double waited = 0; ms_proc_group_ours_alive(r->pgid, r->pstart); waited += 0.05) {
        if (waited >= seconds)
            return false;
        pause_s(0.05);
    }
    return true;
}

/* A process group of the previous owner that still runs is ours only while its leader is
 * the recorded process (pgid and start time), never by its id alone; it is not our child:
 * we cannot wait for its exit status, so it is stopped and its job interrupted (retried
 * under retry), never run twice at once. A group whose leader is gone cannot be told from
 * another that took its id: logged and left alone. Returns whether the record is settled
 * (the group gone, stopped, or not provably ours), so that its end is journalled. */
static bool stop_leftover(md_engine *e, const ms_journal_rec *r)
{
    if (!ms_proc_group_ours_alive(r->pgid, r->pstart))
        return true;
    if (!ms_proc_group_leader_is(r->pgid, r->pstart)) {
        md_log(MD_LOG_WARN, "recover.unproven_group",
               "pgid=%d job=%d reason=\"its leader "
               "is gone: the group cannot be told from another that took its id; left "
               "alone\"",
               r->pgid, r->task);
        return true;
    }
    md_log(MD_LOG_WARN, "recover.stop_process", "pgid=%d job=%d", r->pgid, r->task);
    kill(-r->pgid, SIGTERM);
    if (group_gone(r, e->stop_grace))
        return true;
    kill(-r->pgid, SIGKILL);
    if (group_gone(r, 2.0))
        return true;
    md_log(MD_LOG_ERROR, "recover.survived",
           "pgid=%d job=%d reason=\"survived SIGKILL: its "
           "record stays open\"",
           r->pgid, r->task);
    return false;
}

/* The previous owner's jobs that still run are stopped: those with a cgroup by it, together
 * (everything each started, whatever its process group), the others by their process
 * group. settled[k]: task record k is settled (its end is journalled). */
static void stop_leftovers(md_engine *e, const ms_journal_state *old, bool *settled)
{
    bool held[MS_JOURNAL_MAX_RECORDS], gone[MS_JOURNAL_MAX_RECORDS];
    char q[MS_JOURNAL_CGROUP_LEN + 16];
    ms_cgroup_stop_tasks(old, e->stop_grace, held, gone);
    for (int k = 0; k < old->n; k++) {
        const ms_journal_rec *r = &old->rec[k];
        if (r->kind != MS_JOURNAL_TASK)
            continue;
        if (!r->cgroup[0]) {
            settled[k] = stop_leftover(e, r);
            continue;
        }
        settled[k] = gone[k];
        if (held[k])
            md_log(MD_LOG_WARN, "recover.stop_cgroup", "cgroup=%s job=%d",
                   md_log_quote(r->cgroup, q, sizeof q), r->task);
        if (!gone[k])
            md_log(MD_LOG_ERROR, "recover.survived",
                   "cgroup=%s job=%d reason=\"a process "
                   "survived SIGKILL: its record stays open\"",
                   md_log_quote(r->cgroup, q, sizeof q), r->task);
    }
}

/* The end of every task record of the previous journal that recovery settled, each named
 * by its leader's pid and start time. */
static int journal_settled(md_engine *e, const ms_journal_state *old, const bool *settled,
                           ms_error *err)
{
    int rc = MS_OK;
    for (int k = 0; !rc && old && k < old->n; k++)
        if (settled[k])
            rc = ms_journal_task_ended(e->journal, old->rec[k].pgid, old->rec[k].pstart, err);
    return rc;
}

/* An instance at an id the previous journal recorded that is not provably ours: reported
 * and left alone. A stranger's ends our record (ours is gone); an unproven one keeps it,
 * for an operator's `migsched run --cleanup --force` once the daemon is stopped. */
static int not_ours(md_engine *e, int g, const ms_mig_instance *in, ms_claim c,
                    const ms_journal_rec *r, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    md_log(MD_LOG_WARN, "recover.not_ours",
           "gpu=%d gi=%u start=%d size=%d mig_uuid=%s journal_line=%d reason=\"%s\"", gp->device,
           in->gi_id, in->start_slot, in->size_slots, in->uuid[0] ? in->uuid : "-", r->line,
           c == MS_CLAIM_STRANGER
               ? "not the instance the journal recorded at this id: someone else's"
           : r->kind == MS_JOURNAL_GI_MADE
               ? "being made at the crash, with a compute instance the journal does "
                 "not name: it cannot be told from someone else's"
               : "the recorded id and slots without a MIG device, and no destroy of "
                 "ours was under way: it cannot be told from someone else's");
    return c == MS_CLAIM_STRANGER ? ms_journal_destroyed(e->journal, gp->device, r->gi_id, err)
                                  : MS_OK;
}

/* The previous journal's instances still on device g are destroyed (idle: their processes
 * are stopped) unless a held allocation's; what else is there is foreign, recorded and
 * never touched. Only what the journal proves ours counts (ms_journal_claim): a GPU
 * instance without its compute instance is ours only if a "destroying" record names it
 * (a destroy under way at the crash) or a "gi" record (a creation under way). */
static int reconcile_device(md_engine *e, int g, const ms_journal_state *old, ms_error *err)
{
    ei_gpu *gp = &e->gpu[g];
    const ms_gpu_model *m = ms_backend_model(gp->be);
    ms_mig_instance list[MS_MAX_MIG];
    int n;
    int rc = ms_backend_list(gp->be, list, &n, err);
    for (int i = 0; !rc && i < n; i++) {
        const ms_journal_rec *r = NULL;
        ms_claim c = old ? ms_journal_claim(old, gp->device, m, &list[i], &r) : MS_CLAIM_NONE;
        if (c == MS_CLAIM_OURS) {
            bool adopted = false; /* a Slurm job's allocation still uses it */
            ms_mig_instance was = list[i];
            if ((rc = ei_alloc_adopt(e, g, &list[i], &adopted, err)) || adopted ||
                (rc = ms_backend_destroy_owned(gp->be, e->journal, &was, err)) ||
                (rc = ms_journal_destroyed(e->journal, gp->device, was.gi_id, err)))
                continue;
            /* Which of our steps the crash cut short, if any: what made the instance ours. */
            md_log(MD_LOG_INFO, "recover.destroy",
                   "gpu=%d gi=%u start=%d interrupted=%s mig_device=%s", gp->device, was.gi_id,
                   was.start_slot,
                   r->kind == MS_JOURNAL_GI_MADE      ? "create"
                   : r->kind == MS_JOURNAL_DESTROYING ? "destroy"
                                                      : "no",
                   list[i].uuid[0] ? "yes" : "no");
            continue;
        }
        if (c != MS_CLAIM_NONE && (rc = not_ours(e, g, &list[i], c, r, err)))
            continue;
        rc = ei_foreign(e, g, &list[i], err);
        md_log(MD_LOG_INFO, "recover.foreign", "gpu=%d gi=%u start=%d size=%d", gp->device,
               list[i].gi_id, list[i].start_slot, list[i].size_slots);
    }
    /* Recorded instances that are gone (destroyed before the crash was journalled, or by
     * someone else): settled, so that no later start takes a new instance for them. A
     * creation in flight at the crash before NVML made its GPU instance ("begin" without
     * "gi") is settled too: what it may have made is recorded foreign above. */
    for (int k = 0; !rc && old && k < old->n; k++) {
        const ms_journal_rec *r = &old->rec[k];
        bool listed = false;
        for (int i = 0; i < n; i++)
            listed |= list[i].gi_id == r->gi_id;
        if (r->device == gp->device && !listed &&
            (r->kind == MS_JOURNAL_CREATED || r->kind == MS_JOURNAL_DESTROYING ||
             r->kind == MS_JOURNAL_GI_MADE))
            rc = ms_journal_destroyed(e->journal, gp->device, r->gi_id, err);
        else if (r->device == gp->device && r->kind == MS_JOURNAL_BEGUN)
            rc = ms_journal_begin_settled(e->journal, gp->device, r->start, err);
    }
    return rc;
}

int ei_recover(md_engine *e, const char *path, ms_error *err)
{
    int rc = MS_OK;
    /* The previous owner's journal (the device locks say it is gone): one that cannot be
     * read stops the start, for its processes and instances would be taken for none. */
    ms_journal_state *old = malloc(sizeof *old);
    bool found = false, settled[MS_JOURNAL_MAX_RECORDS] = {0};
    if (!old)
        rc = ms_error_set(err, MS_ENOMEM, "out of memory");
    else
        rc = ms_journal_load(path, old, &found, err);
    if (!found) {
        free(old);
        old = NULL;
    }
    char q[600];
    if (!rc && old && old->torn_line)
        md_log(MD_LOG_WARN, "journal.torn_record",
               "journal=%s line=%d reason=\"cut short by "
               "a crash mid-write: dropped\"",
               md_log_quote(path, q, sizeof q), old->torn_line);
    if (!rc && old)
        stop_leftovers(e, old, settled);
    if (!rc)
        rc = ms_journal_open(path, "nvml", ms_backend_geometry_name(e->gpu[0].be), &e->journal,
                             err);
    if (!rc)
        rc = journal_settled(e, old, settled, err);
    for (int g = 0; !rc && g < e->ngpus; g++)
        rc = ms_journal_device(e->journal, e->gpu[g].device, e->gpu[g].uuid, err);
    for (int g = 0; !rc && g < e->ngpus; g++)
        rc = reconcile_device(e, g, old, err);
    free(old);
    /* What is left open is what is live: the journal is rewritten as just that. */
    if (!rc)
        rc = ms_journal_compact(e->journal, err);
    return rc;
}
