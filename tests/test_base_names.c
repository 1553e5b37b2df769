/* test_base_names.c: name tables looked up exactly and ignoring case. */
#include "migsched/parse.h"
#include "support.h"

static const char *const names[] = {"fill", "split", "best"};

static void test_exact(void **state)
{
    (void)state;
    assert_int_equal(ms_name_index(names, 3, "fill"), 0);
    assert_int_equal(ms_name_index(names, 3, "best"), 2);
    assert_int_equal(ms_name_index(names, 3, "Best"), -1);
    assert_int_equal(ms_name_index(names, 3, "bes"), -1);
    assert_int_equal(ms_name_index(names, 2, "best"), -1); /* only the first n count */
    assert_int_equal(ms_name_index(names, 0, "fill"), -1);
}

static void test_any_case(void **state)
{
    (void)state;
    assert_int_equal(ms_name_index_any_case(names, 3, "SPLIT"), 1);
    assert_int_equal(ms_name_index_any_case(names, 3, "Best"), 2);
    assert_int_equal(ms_name_index_any_case(names, 3, "fil"), -1);
    assert_int_equal(ms_name_index_any_case(names, 0, "fill"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact),
        cmocka_unit_test(test_any_case),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
