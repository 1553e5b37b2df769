/* capi_env_internal.h: what the flat API's environment files share: the settings read from
 * the JSON object of `migsched train`'s option names, and their description. */
#ifndef MIGSCHED_CAPI_ENV_INTERNAL_H
#define MIGSCHED_CAPI_ENV_INTERNAL_H

#include "migsched/capi_env.h"
#include "migsched/env.h"

typedef struct msc_env_settings {
    ms_env_config env;
    ms_gen_params gen; /* the generator of episodes' workloads, from preset */
    char preset[128];
    int tasks; /* tasks per generated episode */
} msc_env_settings;

/* Reads json (NULL or "": every default) for gpu; a failure is kept as the last error. */
int msc_env_settings_parse(const ms_gpu_model *gpu, const char *json, msc_env_settings *out);
/* msc_env_describe's JSON for an environment e of settings s; num_envs >= 1 adds
 * "num_envs". */
int msc_env_settings_describe(const msc_env_settings *s, const ms_env *e, int num_envs,
                              char **json);

/* The episode of env as a schedule (algorithm NULL: "rl"), and a copy of its workload; a
 * failure when no episode was started. */
int msc_env_episode_schedule(const ms_env *env, const char *algorithm, ms_schedule **out);
int msc_env_episode_workload(const ms_env *env, ms_workload **out);

#endif
