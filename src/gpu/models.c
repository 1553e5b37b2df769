/* models.c: the built-in GPU models (shared/reference/MIG_PROFILES.md; reconfiguration
 * times from paper 000 Table 1, H200 and B200 using H100's until measured). The "+me"
 * media-extension profiles are left out: they share the geometry of their base profile
 * and the schedulers never ask for media engines. */
#include <ctype.h>
#include <pthread.h>
#include <string.h>

#include "migsched/gpu.h"

#define P(n, sl, mem, sz, idx, ...)                                                    \
    {                                                                                  \
        n, sl, mem, sz, sizeof((int[]){__VA_ARGS__}) / sizeof(int), {__VA_ARGS__}, idx \
    }

/* NVML_GPU_INSTANCE_PROFILE_* values: 1_SLICE 0, 2_SLICE 1, 3_SLICE 2, 4_SLICE 3,
 * 7_SLICE 4, 1_SLICE_REV2 9. */
#define A100_CLASS_PROFILES(m1, m1d, m2, m3, m4, m7, g1, g1d, g2, g3, g4, g7)         \
    P(m1, 1, g1, 1, 0, 0, 1, 2, 3, 4, 5, 6), P(m1d, 1, g1d, 2, 9, 0, 2, 4, 6),        \
        P(m2, 2, g2, 2, 1, 0, 2, 4), P(m3, 3, g3, 4, 2, 0, 4), P(m4, 4, g4, 4, 3, 0), \
        P(m7, 7, g7, 8, 4, 0)

#define A100_TIMES                                       \
    .create_s = {0, 0.16, 0.17, 0.20, 0.21, 0, 0, 0.24}, \
    .destroy_s = {0, 0.20, 0.20, 0.21, 0.21, 0, 0, 0.22}
#define H100_TIMES                                       \
    .create_s = {0, 0.16, 0.21, 0.33, 0.38, 0, 0, 0.42}, \
    .destroy_s = {0, 0.21, 0.23, 0.25, 0.26, 0, 0, 0.26}

static ms_gpu_model builtin[] = {
    {.name = "A30-24GB",
     .slots = 4,
     .slices = 4,
     .nprofiles = 3,
     .profiles = {P("1g.6gb", 1, 6, 1, 0, 0, 1, 2, 3), P("2g.12gb", 2, 12, 2, 1, 0, 2),
                  P("4g.24gb", 4, 24, 4, 3, 0)},
     .create_s = {0, 0.11, 0.12, 0, 0.13},
     .destroy_s = {0, 0.10, 0.10, 0, 0.10}},
    {.name = "A100-40GB",
     .slots = 8,
     .slices = 7,
     .nprofiles = 6,
     .profiles = {A100_CLASS_PROFILES("1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb",
                                      "7g.40gb", 5, 10, 10, 20, 20, 40)},
     A100_TIMES},
    {.name = "A100-80GB",
     .slots = 8,
     .slices = 7,
     .nprofiles = 6,
     .profiles = {A100_CLASS_PROFILES("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb",
                                      "7g.80gb", 10, 20, 20, 40, 40, 80)},
     A100_TIMES},
    {.name = "H100-80GB",
     .slots = 8,
     .slices = 7,
     .nprofiles = 6,
     .profiles = {A100_CLASS_PROFILES("1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb",
                                      "7g.80gb", 10, 20, 20, 40, 40, 80)},
     H100_TIMES},
    {.name = "H200-141GB",
     .slots = 8,
     .slices = 7,
     .nprofiles = 6,
     .profiles = {A100_CLASS_PROFILES("1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb",
                                      "7g.141gb", 18, 35, 35, 71, 71, 141)},
     H100_TIMES},
    {.name = "B200",
     .slots = 8,
     .slices = 7,
     .nprofiles = 6,
     .profiles = {A100_CLASS_PROFILES("1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb",
                                      "7g.180gb", 23, 45, 45, 90, 90, 180)},
     H100_TIMES},
};

#define NBUILTIN ((int)(sizeof builtin / sizeof builtin[0]))

static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void finish_builtins(void)
{
    for (int i = 0; i < NBUILTIN; i++)
        ms_gpu_model_finish(&builtin[i], NULL);
}

int ms_gpu_builtin_count(void) { return NBUILTIN; }

const ms_gpu_model *ms_gpu_builtin_at(int i)
{
    pthread_once(&builtin_once, finish_builtins);
    return i >= 0 && i < NBUILTIN ? &builtin[i] : NULL;
}

const ms_gpu_model *ms_gpu_builtin(const char *name)
{
    pthread_once(&builtin_once, finish_builtins);
    for (int i = 0; i < NBUILTIN; i++)
        if (!strcasecmp(name, builtin[i].name))
            return &builtin[i];
    /* "A100" means the first model whose name starts with "A100-". */
    size_t len = strlen(name);
    for (int i = 0; i < NBUILTIN; i++)
        if (len && !strncasecmp(name, builtin[i].name, len) && builtin[i].name[len] == '-')
            return &builtin[i];
    return NULL;
}
