/* test_daemon_engine_node.c: migschedd plans from the instances the node holds, with the
 * offline planners' cost model: a batch keeps an idle instance of the size it needs (no
 * destruction, no creation before its job) and waits for a busy one to finish rather than
 * destroying it early or running beside its job. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

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
    assert_int_equal(ms_engine_plan(f->e, &text, &e), MS_ENGINE_OK);
    ms_schedule *plan;
    if (ms_schedule_parse_json(text, strlen(text), "plan", &f->c.model, &plan, &e))
        fail_msg("%s", e.msg);
    free(text);
    return plan;
}

static ms_job get_job(fixture *f, int64_t id)
{
    ms_job j;
    ms_error e = {0};
    assert_int_equal(ms_store_get_job(f->st, id, &j, &e), MS_OK);
    return j;
}

/* Jobs a and b ran one after the other on the very same instance, which the engine created
 * once: the second batch neither destroyed it nor made another. */
static void check_same_instance(fixture *f, int64_t a, int64_t b)
{
    ms_job ja = get_job(f, a), jb = get_job(f, b);
    assert_int_equal(ja.gpu, jb.gpu);
    assert_int_equal(ja.placement.profile, jb.placement.profile);
    assert_int_equal(ja.placement.start, jb.placement.start);
    assert_string_equal(ja.mig_uuid, jb.mig_uuid);
    assert_true(jb.started >= ja.ended);
    ms_job_free(&ja);
    ms_job_free(&jb);
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
    assert_int_equal(plan->ntasks, 1);  /* b: a's task ended before the join */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_batch_keeps_idle_instance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_batch_waits_for_busy_instance, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
