/* metrics.c: the Prometheus text exposition of an engine metrics snapshot. */
#include "metrics.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static void head(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value with the format's escapes (backslash, double quote, newline). */
static void label_value(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '\\' || *s == '"')
            fputc('\\', f);
        if (*s == '\n') {
            fputs("\\n", f);
            continue;
        }
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The labels DCGM exporter 4.x puts on a GPU's series, in its order:
 * {gpu="0",UUID="GPU-...",pci_bus_id="00000000:3B:00.0",device="nvidia0",modelName="...",
 * then GPU_I_PROFILE and GPU_I_ID for an instance (in != NULL), then Hostname. Left open
 * for more labels. */
static void dcgm_labels(FILE *f, const md_engine_gpu_metrics *g,
                        const md_engine_instance_metrics *in, const ms_gpu_model *model,
                        const char *host)
{
    fprintf(f, "{gpu=\"%d\",UUID=", g->gpu);
    label_value(f, g->uuid);
    fputs(",pci_bus_id=", f);
    label_value(f, g->pci_bus_id);
    if (g->minor >= 0)
        fprintf(f, ",device=\"nvidia%d\"", g->minor);
    else
        fputs(",device=\"\"", f);
    fputs(",modelName=", f);
    label_value(f, g->model_name);
    if (in) {
        fputs(",GPU_I_PROFILE=", f);
        label_value(f, in->profile >= 0 && in->profile < model->nprofiles
                           ? model->profiles[in->profile].name
                           : "");
        fprintf(f, ",GPU_I_ID=\"%u\"", in->gi_id);
    }
    fputs(",Hostname=", f);
    label_value(f, host);
}

static void histogram(FILE *f, const char *name, const char *help, const md_engine_histogram *h,
                      const double *bounds, int nb)
{
    head(f, name, "histogram", help);
    for (int i = 0; i < nb; i++)
        fprintf(f, "%s_bucket{le=\"%.6g\"} %" PRIu64 "\n", name, bounds[i], h->count[i]);
    fprintf(f, "%s_bucket{le=\"+Inf\"} %" PRIu64 "\n", name, h->total);
    fprintf(f, "%s_sum %.9g\n%s_count %" PRIu64 "\n", name, h->sum, name, h->total);
}

static void counter(FILE *f, const char *name, const char *help, uint64_t v)
{
    head(f, name, "counter", help);
    fprintf(f, "%s %" PRIu64 "\n", name, v);
}

static void per_gpu(FILE *f, const md_engine_metrics *m, const ms_gpu_model *model,
                    const char *host)
{
    head(f, "migsched_gpu_fragmentation", "gauge",
         "Fragmentation F(g) of the GPU's free slots (0: every free slice usable)");
    for (int i = 0; i < m->ngpus; i++) {
        fputs("migsched_gpu_fragmentation", f);
        dcgm_labels(f, &m->gpu[i], NULL, model, host);
        fprintf(f, "} %.6g\n", m->gpu[i].fragmentation);
    }
    head(f, "migsched_gpu_busy_slices", "gauge",
         "Compute slices of the GPU's instances that hold a running job");
    for (int i = 0; i < m->ngpus; i++) {
        fputs("migsched_gpu_busy_slices", f);
        dcgm_labels(f, &m->gpu[i], NULL, model, host);
        fprintf(f, "} %d\n", m->gpu[i].busy_slices);
    }
}

static void per_instance(FILE *f, const md_engine_metrics *m, const ms_gpu_model *model,
                         const char *host)
{
    head(f, "migsched_instance_busy", "gauge",
         "1 while the MIG instance holds a running job (user: its owner), 0 while idle");
    for (int i = 0; i < m->ngpus; i++)
        for (int k = 0; k < m->gpu[i].ninstances; k++) {
            const md_engine_instance_metrics *in = &m->gpu[i].instance[k];
            fputs("migsched_instance_busy", f);
            dcgm_labels(f, &m->gpu[i], in, model, host);
            fprintf(f, ",start=\"%d\",user=", in->start);
            label_value(f, in->user);
            fprintf(f, "} %d\n", in->busy);
        }
}

/* One series per running job, on its instance's labels: who runs what where. */
static void per_job(FILE *f, const md_engine_metrics *m, const ms_gpu_model *model,
                    const char *host)
{
    head(f, "migsched_job_start_time_seconds", "gauge",
         "Start of each running job (Unix seconds), on its MIG instance; id: migschedd's job id, "
         "user: its owner, job: its name, slurm_job: its Slurm job (\"\" if none)");
    for (int i = 0; i < m->ngpus; i++)
        for (int k = 0; k < m->gpu[i].ninstances; k++) {
            const md_engine_instance_metrics *in = &m->gpu[i].instance[k];
            if (!in->busy || !in->job)
                continue;
            fputs("migsched_job_start_time_seconds", f);
            dcgm_labels(f, &m->gpu[i], in, model, host);
            fprintf(f, ",id=\"%" PRId64 "\",user=", in->job);
            label_value(f, in->user);
            fputs(",job=", f);
            label_value(f, in->name);
            if (in->slurm_job)
                fprintf(f, ",slurm_job=\"%" PRId64 "\"", in->slurm_job);
            else
                fputs(",slurm_job=\"\"", f);
            fprintf(f, "} %.3f\n", in->started);
        }
}

char *md_metrics_render(const md_engine_metrics *m, const ms_gpu_model *model, const char *hostname,
                        size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    head(f, "migsched_jobs", "gauge", "Jobs by state (queued: the queue's length)");
    for (int s = MD_JOB_QUEUED; s < MD_JOB_NSTATES; s++)
        fprintf(f, "migsched_jobs{state=\"%s\"} %" PRIu64 "\n", md_job_state_name(s), m->jobs[s]);
    head(f, "migsched_running_jobs", "gauge", "Jobs running now");
    fprintf(f, "migsched_running_jobs %" PRIu64 "\n", m->jobs[MD_JOB_RUNNING]);
    counter(f, "migsched_jobs_submitted_total", "Jobs submitted since this process started",
            m->submitted_total);
    counter(f, "migsched_reconfigurations_total",
            "MIG instance creations and destructions since this process started",
            m->reconfigurations_total);
    histogram(f, "migsched_instance_creation_seconds", "Time to create a MIG instance",
              &m->creation_seconds, md_engine_reconf_bounds, MD_ENGINE_RECONF_BUCKETS);
    histogram(f, "migsched_instance_destruction_seconds", "Time to destroy a MIG instance",
              &m->destruction_seconds, md_engine_reconf_bounds, MD_ENGINE_RECONF_BUCKETS);
    histogram(f, "migsched_job_wait_seconds", "Time from a job's submission to its start",
              &m->wait_seconds, md_engine_time_bounds, MD_ENGINE_TIME_BUCKETS);
    histogram(f, "migsched_job_turnaround_seconds",
              "Time from a job's submission to its end (done or failed)", &m->turnaround_seconds,
              md_engine_time_bounds, MD_ENGINE_TIME_BUCKETS);
    histogram(f, "migsched_allocation_wait_seconds",
              "Time from the SPANK plugin's first ask for a Slurm job's instance to its placement",
              &m->alloc_wait_seconds, md_engine_time_bounds, MD_ENGINE_TIME_BUCKETS);
    counter(f, "migsched_allocations_no_room_total",
            "Slurm allocations that found no room on the node at their first placement try",
            m->alloc_blocked_total);
    counter(f, "migsched_allocations_unplaced_total",
            "Slurm allocations released before they were placed (the step gave up or ended)",
            m->alloc_unplaced_total);
    per_gpu(f, m, model, hostname);
    per_instance(f, m, model, hostname);
    per_job(f, m, model, hostname);
    if (fclose(f)) {
        free(text);
        return NULL;
    }
    return text;
}
