/* engine_support.h: helpers of the engine's tests (test_daemon_engine*.c). */
#ifndef MIGSCHED_TEST_ENGINE_SUPPORT_H
#define MIGSCHED_TEST_ENGINE_SUPPORT_H

#include "engine.h"
#include "support.h"

typedef struct fixture {
    char dir[256], db[320];
    md_config c;
    md_store *st;
    md_engine *e;
    char job_name[32];  /* the name submissions give their jobs ("j" when empty) */
    md_job_owner owner; /* whom submissions belong to: root unless a test says otherwise */
} fixture;

/* Root as the engine sees a caller: an admin. */
extern const md_engine_actor ROOT_ACTOR;

int setup(void **state);
int teardown(void **state);
void set(md_config *c, const char *key, const char *value);
/* Configures backend (key, value pairs follow, NULL-ended) on the fixture's database;
 * sim runs at time-scale 1000 and root's jobs are allowed (allow-root-jobs true) unless a
 * pair says otherwise. */
void configure(fixture *f, const char *backend, ...);
void open_engine(fixture *f);
void stop_engine(fixture *f);
/* Submits {"name", "command": command (JSON), sizing, extra}; returns the outcome and the
 * id in *id. submit_json runs ["true"]; the *_ok forms fail the test unless accepted. */
md_engine_outcome submit_cmd(fixture *f, const char *command, const char *sizing, const char *extra,
                             int64_t *id);
md_engine_outcome submit_json(fixture *f, const char *sizing, const char *extra, int64_t *id);
int64_t submit_cmd_ok(fixture *f, const char *command, const char *sizing, const char *extra);
int64_t submit_ok(fixture *f, const char *sizing, const char *extra);
/* In a forked child, where cmocka cannot fail the test: submits the job JSON text, exits 1
 * unless it is accepted. */
void child_submit(fixture *f, const char *text);
const char *state_of(fixture *f, int64_t id);
/* Jobs in state (-1: all), every page. */
size_t count_state(md_engine *e, int state);
void pause_ms(int ms);
/* Waits (at most a minute: a generous bound for a loaded machine) until n jobs are in
 * `state`. */
void wait_count(md_engine *e, int state, size_t n);
void wait_state(fixture *f, int64_t id, const char *state);
/* The job's history replays through the state machine from new and ends in the job's
 * state; returns how many times it started and how many finish transitions it has. */
void check_history(md_store *st, const md_job *j, int *starts, int *finishes);
/* Every job done, finished once (started once per attempt), and no two jobs ever ran at
 * once on overlapping slots of one GPU. */
void check_all_done(fixture *f, size_t n);
void check_no_instance_left(fixture *f);

#endif
