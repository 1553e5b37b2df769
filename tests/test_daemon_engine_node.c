/* test_daemon_engine_node.c: migschedd plans from the instances the node holds, with the
 * offline planners' cost model: a batch keeps an idle instance of the size it needs (no
 * destruction, no creation before its job) and waits for a busy one to finish rather than
 * destroying it early or running beside its job; online placement's start estimate charges
 * the creation and the destructions a placement needs (none when it reuses an idle
 * instance), and a queued job whose instance is being made says when it starts. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "engine_internal.h"
#include "engine_support.h"
#include "migsched/schedule.h"

/* Instances the engine ever created (rows of the store's instances table). */
static int instances_created(fixture *f)
{
    sqlite3 *db;
    sqlite3_stmt *q;
    assert_int_equal(sqlite3_open_v2(f->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM instances", -1, &q, NULL),
                     SQLITE_OK);
    assert_int_equal(sqlite3_step(q), SQLITE_ROW);
    int n = sqlite3_column_int(q, 0);
    sqlite3_finalize(q);
    sqlite3_close(db);
    return n;
}

static ms_schedule *running_plan(fixture *f)
{
    char *text;
    ms_error e = {0};
    assert_int_equal(md_engine_plan(f->e, &text, &e), MD_ENGINE_OK);
    ms_schedule *plan;
    if (ms_schedule_parse_json(text, strlen(text), "plan", &f->c.model, &plan, &e))
        fail_msg("%s", e.msg);
    free(text);
    return plan;
}

static md_job get_job(fixture *f, int64_t id)
{
    md_job j;
    ms_error e = {0};
    assert_int_equal(md_store_get_job(f->st, id, &j, &e), MS_OK);
    return j;
}

/* Jobs a and b ran one after the other on the very same instance, which the engine created
 * once: the second batch neither destroyed it nor made another. */
static void check_same_instance(fixture *f, int64_t a, int64_t b)
{
    md_job ja = get_job(f, a), jb = get_job(f, b);
    assert_int_equal(ja.gpu, jb.gpu);
    assert_int_equal(ja.placement.profile, jb.placement.profile);
    assert_int_equal(ja.placement.start, jb.placement.start);
    assert_string_equal(ja.mig_uuid, jb.mig_uuid);
    assert_true(jb.started >= ja.ended);
    md_job_free(&ja);
    md_job_free(&jb);
    assert_int_equal(instances_created(f), 1);
}

/* The second batch comes once the first has finished: the 2g instance it made is idle. The
 * batch keeps it: the plan holds that one instance (planned from empty GPUs it would hold a
 * second, created after the first's destruction) and the job starts on it. */
static void test_batch_keeps_idle_instance(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "mode", "batch", "batch-size", "1",
              "batch-period", "1000", NULL);
    open_engine(f);
    int64_t a = submit_ok(f, "\"profile\": \"2g.12gb\", \"seconds\": 20", NULL);
    wait_state(f, a, "done");
    int64_t b = submit_ok(f, "\"profile\": \"2g.12gb\", \"seconds\": 20", NULL);
    wait_state(f, b, "done");
    ms_schedule *plan = running_plan(f);
    stop_engine(f);
    check_all_done(f, 2);
    assert_int_equal(plan->ntasks, 1); /* b: a's task ended before the join */
    assert_int_equal(plan->ninst, 1);
    const ms_sched_instance *in = &plan->inst[plan->task[0].instance];
    assert_true(isnan(in->destroy_start));
    assert_true(in->create_end <= plan->task[0].start);
    ms_schedule_free(plan);
    check_same_instance(f, a, b);
}

/* The second batch comes while the first's job runs on the whole GPU: the batch waits for
 * that instance (busy until the job's expected end) and runs its job there after it; it
 * neither destroys it early nor runs a task on it before. */
static void test_batch_waits_for_busy_instance(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "mode", "batch", "batch-size", "1",
              "batch-period", "1000", "time-scale", "1000", NULL);
    open_engine(f);
    int64_t a = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 1500", NULL);
    wait_state(f, a, "running");
    int64_t b = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 50", NULL);
    wait_state(f, b, "done");
    ms_schedule *plan = running_plan(f);
    stop_engine(f);
    check_all_done(f, 2);
    /* a's task ran when b's batch joined: both are in the plan, on one instance */
    assert_int_equal(plan->ntasks, 2);
    assert_int_equal(plan->ninst, 1);
    assert_true(isnan(plan->inst[0].destroy_start));
    const ms_sched_task *first = &plan->task[0], *second = &plan->task[1];
    if (first->start > second->start) {
        const ms_sched_task *t = first;
        first = second;
        second = t;
    }
    assert_true(second->start >= first->end);
    ms_schedule_free(plan);
    check_same_instance(f, a, b);
}

/* An engine with only what online placement reads: one A30, no instance. */
static md_engine *bare_engine(const ms_gpu_model *m)
{
    md_engine *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->m = m;
    e->ngpus = 1;
    e->tau = 0.4;
    assert_non_null(e->ft = ms_online_frag_table_new(m));
    for (int k = 0; k < MS_MAX_SLOTS; k++)
        e->gpu[0].inst[k] = (ei_inst){.profile = -1};
    return e;
}

/* Where the policy puts a job of profile `name` and when it could start there. */
static double placed(md_engine *e, const char *name, int *start)
{
    int p = ms_gpu_profile_by_name(e->m, name), g;
    assert_true(ei_place(e, p, NULL, &g, start));
    assert_int_equal(g, 0);
    return ei_ready(e, g, (ms_placement){p, *start});
}

static void test_online_start_charges_reconfiguration(void **state)
{
    (void)state;
    const ms_gpu_model *m = ms_gpu_builtin("A30-24GB");
    md_engine *e = bare_engine(m);
    int two = ms_gpu_profile_by_name(m, "2g.12gb"), one = ms_gpu_profile_by_name(m, "1g.6gb");
    int start;
    /* empty: the job waits for its instance's creation */
    assert_true(placed(e, "2g.12gb", &start) == ms_gpu_create_time(m, 2));
    /* an idle 2g instance: reused, at once */
    e->gpu[0].inst[2] = (ei_inst){.profile = two, .state = EI_IDLE};
    assert_true(placed(e, "2g.12gb", &start) == 0);
    assert_int_equal(start, 2);
    /* a whole-GPU job: the idle instance destroyed first, then its own created */
    assert_true(placed(e, "4g.24gb", &start) ==
                ms_gpu_destroy_time(m, 2) + ms_gpu_create_time(m, 4));
    /* one reconfiguration at a time: a creation under way elsewhere on the GPU goes first */
    e->gpu[0].inst[2] = (ei_inst){.profile = -1};
    e->gpu[0].inst[0] = (ei_inst){.profile = one, .state = EI_CREATING, .job = 1};
    assert_true(placed(e, "2g.12gb", &start) ==
                ms_gpu_create_time(m, 1) + ms_gpu_create_time(m, 2));
    assert_int_equal(start, 2);
    ms_online_frag_table_free(e->ft);
    free(e);
}

/* While its instance is created (2.6 s at time-scale 0.05), a queued job says so, and when
 * it starts: within the creation's time. */
static void test_online_reason_while_made(void **state)
{
    fixture *f = *state;
    configure(f, "sim", "gpu", "A30-24GB", "gpus", "1", "time-scale", "0.05", NULL);
    open_engine(f);
    int64_t id = submit_ok(f, "\"profile\": \"4g.24gb\", \"seconds\": 0.01", NULL);
    char want[128];
    snprintf(want, sizeof want,
             "its instance is being made (4g.24gb at slot 0 of GPU 0): "
             "starts in about ");
    bool seen = false;
    for (int i = 0; i < 6000 && !seen && strcmp(state_of(f, id), "queued") == 0; i++) {
        json_t *job;
        ms_error e = {0};
        assert_int_equal(md_engine_job(f->e, id, &ROOT_ACTOR, &job, &e), MD_ENGINE_OK);
        const char *reason = json_string_value(json_object_get(job, "reason"));
        if (reason && !strncmp(reason, want, strlen(want))) {
            seen = true;
            assert_true(atoi(reason + strlen(want)) <=
                        (int)ceil(ms_gpu_create_time(&f->c.model, 4) / 0.05));
        }
        json_decref(job);
        if (!seen)
            pause_ms(10);
    }
    assert_true(seen);
    wait_state(f, id, "done");
    stop_engine(f);
    check_all_done(f, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_keeps_idle_instance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_waits_for_busy_instance, setup, teardown),
        cmocka_unit_test(test_online_start_charges_reconfiguration),
        cmocka_unit_test_setup_teardown(test_online_reason_while_made, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
