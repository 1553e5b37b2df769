/* cmd_gpus.c: `migsched gpus` and `migsched partitions`. */
#include <getopt.h>
#include <stdbool.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_util.h"
#include "commands.h"
#include "migsched/exec.h"
#include "migsched/gpu.h"

/* Each model in the GPU model JSON format, so that an entry can be saved and given to
 * --gpu as a file. */
static int gpus_json(void)
{
    ms_error err;
    printf("[");
    for (int i = 0; i < ms_gpu_builtin_count(); i++) {
        printf(i ? ",\n" : "\n");
        if (ms_profile_write_model_json(ms_gpu_builtin_at(i), stdout, &err)) {
            fprintf(stderr, "migsched gpus: %s\n", err.msg);
            return 1;
        }
    }
    printf("]\n");
    return 0;
}

const struct option cmd_gpus_options[] = {
    CLI_LONG_JSON, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};

int cmd_gpus(int argc, char **argv)
{
    cli_common co = {.cmd = "gpus", .takes = CLI_JSON};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = cli_next_option(&co, argc, argv, "+h", cmd_gpus_options, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: migsched gpus [--json]\n"
                   "  Lists the built-in GPU models with their profiles; --json prints each model\n"
                   "  in the GPU model JSON format that --gpu accepts as a file.\n");
            return 0;
        }
        return cli_usage_error("gpus", NULL, "unexpected argument '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error("gpus", NULL, "unexpected argument '%s'", argv[optind]);
    bool json = co.json;
    if (json)
        return gpus_json();
    for (int i = 0; i < ms_gpu_builtin_count(); i++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(i);
        printf("%-11s slots=%d slices=%d partitions=%d profiles:", m->name, m->slots, m->slices,
               m->npartitions);
        for (int p = 0; p < m->nprofiles; p++)
            printf(" %s", m->profiles[p].name);
        printf("\n");
    }
    return 0;
}

static json_t *partition_json(const ms_gpu_model *m, const ms_partition *p)
{
    json_t *arr = json_array();
    for (int k = 0; k < p->n; k++) {
        const ms_profile *pr = &m->profiles[p->inst[k].profile];
        json_array_append_new(arr, json_pack("{s:s, s:i, s:i, s:i}", "profile", pr->name,
                                             "start_slot", p->inst[k].start, "size_slots",
                                             pr->size_slots, "slices", pr->slices));
    }
    return arr;
}

static void partitions_usage(FILE *f)
{
    fprintf(f, "usage: migsched partitions --gpu MODEL [--canonical] [--keep-useless] [--json]\n"
               "  Lists the valid partitions (maximal sets of instances of the smallest-memory\n"
               "  profile per size). --canonical keeps one per class of equivalent ones\n"
               "  (paper 001 Definition 1) and drops the useless ones unless --keep-useless.\n");
}

const struct option cmd_partitions_options[] = {
    CLI_LONG_GPU,  {"canonical", no_argument, 0, 'c'}, {"keep-useless", no_argument, 0, 'k'},
    CLI_LONG_JSON, {"help", no_argument, 0, 'h'},      {0, 0, 0, 0}};

int cmd_partitions(int argc, char **argv)
{
    cli_common co = {.cmd = "partitions", .takes = CLI_GPU | CLI_JSON};
    int canonical = 0, keep_useless = 0, c;
    optind = 1;
    while ((c = cli_next_option(&co, argc, argv, "g:h", cmd_partitions_options, NULL)) != -1) {
        switch (c) {
        case 'c': canonical = 1; break;
        case 'k': keep_useless = 1; break;
        case 'h': partitions_usage(stdout); return 0;
        default: partitions_usage(stderr); return 2;
        }
    }
    if (co.status)
        return co.status;
    if (!co.gpu || optind < argc) {
        partitions_usage(stderr);
        return 2;
    }
    ms_gpu_model m;
    ms_error err;
    if (ms_gpu_lookup(co.gpu, &m, &err))
        return cli_fail("partitions", "%s", err.msg);
    int list[MS_MAX_PARTITIONS], n = 0;
    ms_canon_set cs;
    if (canonical) {
        ms_gpu_canonical(&m, !keep_useless, &cs);
        for (int i = 0; i < cs.n; i++)
            list[n++] = cs.partition[i];
    } else {
        for (int i = 0; i < m.npartitions; i++)
            list[n++] = i;
    }
    if (co.json) {
        json_t *arr = json_array();
        for (int i = 0; i < n; i++)
            json_array_append_new(arr, partition_json(&m, &m.partitions[list[i]]));
        return cli_json_print("partitions",
                              json_pack("{s:s, s:o}", "gpu", m.name, "partitions", arr));
    }
    printf("%s: %d %spartitions\n", m.name, n, canonical ? "canonical " : "");
    for (int i = 0; i < n; i++) {
        const ms_partition *p = &m.partitions[list[i]];
        char buf[64];
        ms_partition_format(&m, p, buf, sizeof buf);
        printf("%3d  %-16s", list[i] + 1, buf);
        for (int k = 0; k < p->n; k++)
            printf(" %s@%d", m.profiles[p->inst[k].profile].name, p->inst[k].start);
        if (canonical) {
            printf("   equivalent:");
            for (int q = 0; q < m.npartitions; q++)
                if (cs.canon_of[q] == i && q != list[i])
                    printf(" %d", q + 1);
        }
        printf("\n");
    }
    return 0;
}
