/* spank_driver.c: the SPANK plugin's calls without Slurm, for tests/daemon/slurm_alloc.sh:
 * the same argument and --mig parsing and the same client round trips the plugin makes in
 * slurm_spank_task_init_privileged, slurm_spank_exit and slurm_spank_job_epilog.
 *   spank_driver "PLUGIN ARGS" acquire JOB STEP MIG   prints the task's environment
 *   spank_driver "PLUGIN ARGS" release JOB STEP
 *   spank_driver "PLUGIN ARGS" epilog JOB
 * Exit status 0, or 1 with the plugin's message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spank_args.h"
#include "spank_client.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: spank_driver \"ARGS\" acquire JOB STEP MIG | release JOB STEP "
                        "| epilog JOB\n");
        return 2;
    }
    char args[1024], *words[16];
    int nwords = 0;
    snprintf(args, sizeof args, "%s", argv[1]);
    for (char *save, *w = strtok_r(args, " ", &save); w && nwords < 16;
         w = strtok_r(NULL, " ", &save))
        words[nwords++] = w;
    msp_conf conf;
    char err[1024], body[128];
    if (msp_parse_args(nwords, words, &conf, err, sizeof err)) {
        fprintf(stderr, "plugstack.conf: %s\n", err);
        return 1;
    }
    const char *cmd = argv[2];
    uint32_t job = (uint32_t)strtoul(argv[3], NULL, 10);
    uint32_t step = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 0;
    if (!strcmp(cmd, "acquire") && argc == 6) {
        msp_instance in;
        if (msp_parse_mig(argv[5], body, sizeof body, err, sizeof err) ||
            msp_acquire(&conf, job, step, body, &in, err, sizeof err)) {
            fprintf(stderr, "migsched: job %u --mig=%s: %s\n", job, argv[5], err);
            return 1;
        }
        printf("CUDA_VISIBLE_DEVICES=%s\nMIGSCHED_ALLOCATION=%lld\nMIGSCHED_GPU=%d\n"
               "MIGSCHED_MIG_PROFILE=%s\n",
               in.mig_uuid, in.allocation, in.gpu, in.profile);
        return 0;
    }
    if ((!strcmp(cmd, "release") && argc == 5) || (!strcmp(cmd, "epilog") && argc == 4)) {
        if (msp_release(&conf, job, step, cmd[0] == 'e', err, sizeof err)) {
            fprintf(stderr, "migsched: job %u: release: %s\n", job, err);
            return 1;
        }
        return 0;
    }
    fprintf(stderr, "spank_driver: bad arguments\n");
    return 2;
}
