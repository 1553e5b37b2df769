/* gpu.h: MIG geometry: GPU models, profiles, placements, valid partitions,
 * repartitioning trees, reconfiguration times and canonical configurations. */
#ifndef MIGSCHED_GPU_H
#define MIGSCHED_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "migsched/error.h"

#define MS_MAX_SLOTS      8 /* NVML memory-slice placement units */
#define MS_MAX_SLICES     8 /* compute slices; sizes are 1..MS_MAX_SLICES */
#define MS_MAX_PROFILES   16
#define MS_MAX_PARTITIONS 64
#define MS_MAX_INSTANCES  8 /* instances in one partition */
#define MS_MAX_TREE_NODES 32
#define MS_NAME_LEN       32

typedef struct ms_profile {
    char name[MS_NAME_LEN]; /* e.g. "3g.20gb" */
    int slices;             /* compute slices */
    double memory_gb;
    int size_slots; /* placement size in memory slots */
    int nstarts;
    int starts[MS_MAX_SLOTS]; /* allowed start slots, ascending */
    int nvml_index;           /* NVML_GPU_INSTANCE_PROFILE_* value, -1 if unknown */
} ms_profile;

/* One GPU instance at a placement: profile index into the model and start slot. */
typedef struct ms_placement {
    int profile;
    int start;
} ms_placement;

/* A set of instances, sorted by start slot. */
typedef struct ms_partition {
    int n;
    ms_placement inst[MS_MAX_INSTANCES];
} ms_partition;

/* Repartitioning tree (paper 000 Fig. 4): children's slots lie inside the parent's. */
typedef struct ms_tree_node {
    ms_placement at;
    int parent; /* -1 for the root */
    int nchildren;
    int children[MS_MAX_INSTANCES];
} ms_tree_node;

typedef struct ms_tree {
    int n; /* node 0 is the root */
    ms_tree_node node[MS_MAX_TREE_NODES];
} ms_tree;

typedef struct ms_gpu_model {
    char name[MS_NAME_LEN];
    int slots;  /* memory slots (4 on A30, 8 on A100-class) */
    int slices; /* compute slices (4 or 7) */
    int nprofiles;
    ms_profile profiles[MS_MAX_PROFILES];
    /* Reconfiguration times by compute size (index = slices), seconds. */
    double create_s[MS_MAX_SLICES + 1];
    double destroy_s[MS_MAX_SLICES + 1];
    /* Derived by ms_gpu_model_finish(): */
    int nsizes;
    int sizes[MS_MAX_SLICES];                   /* distinct compute sizes, ascending */
    int base_profile[MS_MAX_SLICES + 1];        /* smallest-memory profile per size, -1 if none */
    int npartitions;                            /* valid partitions of the base profiles */
    ms_partition partitions[MS_MAX_PARTITIONS]; /* in the papers' Fig. 1 order */
    ms_tree tree;
} ms_gpu_model;

/* Built-in models: A30-24GB, A100-40GB, A100-80GB, H100-80GB, H200-141GB, B200. */
int ms_gpu_builtin_count(void);
const ms_gpu_model *ms_gpu_builtin_at(int i);
/* Case-insensitive; also accepts the name without the memory suffix ("A100"). */
const ms_gpu_model *ms_gpu_builtin(const char *name);

/* A built-in name or the path of a JSON model file. */
int ms_gpu_lookup(const char *name_or_path, ms_gpu_model *out, ms_error *err);
int ms_gpu_load_json(const char *path, ms_gpu_model *out, ms_error *err);
int ms_gpu_parse_json(const char *text, size_t len, const char *source, ms_gpu_model *out,
                      ms_error *err);
/* Fills the derived fields; checks the geometry is consistent. */
int ms_gpu_model_finish(ms_gpu_model *m, ms_error *err);

int ms_gpu_profile_by_name(const ms_gpu_model *m, const char *name);
/* Index of a compute size in m->sizes, -1 if the GPU has no such size. */
int ms_gpu_size_index(const ms_gpu_model *m, int slices);
bool ms_gpu_placement_allowed(const ms_gpu_model *m, ms_placement p);
/* Bit i set = memory slot i used by the instance. */
uint32_t ms_gpu_slot_mask(const ms_gpu_model *m, ms_placement p);
/* Bit i set = compute slice i used (slices start at the start slot). */
uint32_t ms_gpu_slice_mask(const ms_gpu_model *m, ms_placement p);
double ms_gpu_create_time(const ms_gpu_model *m, int slices);
double ms_gpu_destroy_time(const ms_gpu_model *m, int slices);

/* Room for the lists below: every profile's name and its separator. */
#define MS_GPU_LIST_LEN (MS_MAX_PROFILES * (MS_NAME_LEN + 2))
/* "1, 2, 3, 4, 7": m's compute sizes, ascending (for messages that list the valid ones). */
void ms_gpu_sizes_text(const ms_gpu_model *m, char *buf, size_t len);
/* "1g.5gb, 1g.10gb, ...": m's profile names in the model's order. */
void ms_gpu_profiles_text(const ms_gpu_model *m, char *buf, size_t len);

/* Sorts placements by start slot (the order partitions are kept in). */
void ms_placements_sort(ms_placement *p, int n);

/* "4-2-1": instance sizes in slot order. */
void ms_partition_format(const ms_gpu_model *m, const ms_partition *p, char *buf, int len);
/* Accepts "4-2-1" or a 1-based index into m->partitions (a size list is tried first, so
 * "7" is the whole GPU); returns the index or -1. */
int ms_partition_parse(const ms_gpu_model *m, const char *text);
/* Slice vector of paper 001 Definition 1: c[i] = size of the instance holding compute
 * slice i, 0 for a slice no instance uses. */
void ms_partition_slice_vector(const ms_gpu_model *m, const ms_partition *p, int c[MS_MAX_SLICES]);
/* True when an instance holds slots whose compute slice it cannot use (3g on slots 0-3). */
bool ms_partition_useless(const ms_gpu_model *m, const ms_partition *p);

/* Canonical configurations (paper 001 4.1). sigma maps canonical slice position to real
 * slice: canonical slice i is real slice sigma[p][i]. */
typedef struct ms_canon_set {
    int n;                                       /* canonical configurations */
    int partition[MS_MAX_PARTITIONS];            /* model partition of each canonical one */
    int canon_of[MS_MAX_PARTITIONS];             /* per model partition, -1 if dropped */
    int sigma[MS_MAX_PARTITIONS][MS_MAX_SLICES]; /* per model partition */
} ms_canon_set;

void ms_gpu_canonical(const ms_gpu_model *m, bool drop_useless, ms_canon_set *out);
/* The same shape with every (kept) partition a class of its own, identity sigmas: symmetric
 * placements stay apart. */
void ms_gpu_every_partition(const ms_gpu_model *m, bool drop_useless, ms_canon_set *out);
/* Definition 1 between two model partitions over the given valid set (a bitmask of model
 * partitions); fills sigma (canonical/b position -> a slice) when equivalent. */
bool ms_partition_equivalent(const ms_gpu_model *m, int a, int b, uint64_t valid,
                             int sigma[MS_MAX_SLICES]);

#endif
