/* test_gpu.c: MIG geometry: built-in models, partitions, repartitioning trees, canonical
 * configurations (paper 001 Definition 1) and custom models from JSON. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "migsched/gpu.h"
#include "support.h"

static const ms_gpu_model *model(const char *name)
{
    const ms_gpu_model *m = ms_gpu_builtin(name);
    assert_non_null(m);
    return m;
}

static void test_partition_counts(void **state)
{
    (void)state;
    assert_int_equal(model("A30-24GB")->npartitions, 5);
    const char *seven[] = {"A100-40GB", "A100-80GB", "H100-80GB", "H200-141GB", "B200"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(model(seven[i])->npartitions, 19);
}

static void test_partitions_are_maximal_and_feasible(void **state)
{
    (void)state;
    for (int g = 0; g < ms_gpu_builtin_count(); g++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(g);
        for (int p = 0; p < m->npartitions; p++) {
            const ms_partition *part = &m->partitions[p];
            uint32_t used = 0;
            for (int k = 0; k < part->n; k++) {
                assert_true(ms_gpu_placement_allowed(m, part->inst[k]));
                uint32_t mask = ms_gpu_slot_mask(m, part->inst[k]);
                assert_int_equal(used & mask, 0);
                used |= mask;
            }
            /* No base placement fits in what is left. */
            for (int k = 0; k < m->nsizes; k++) {
                const ms_profile *pr = &m->profiles[m->base_profile[m->sizes[k]]];
                for (int j = 0; j < pr->nstarts; j++) {
                    ms_placement x = {m->base_profile[m->sizes[k]], pr->starts[j]};
                    assert_int_not_equal(used & ms_gpu_slot_mask(m, x), 0);
                }
            }
        }
    }
}

static void test_partition_order_matches_paper(void **state)
{
    (void)state;
    const ms_gpu_model *m = model("A100-40GB");
    const char *expect[] = {"7",           "4-3",       "4-2-1",       "4-1-1-1",      "3-3",
                            "3-2-1",       "3-1-1-1",   "2-2-3",       "2-2-2-1",      "2-2-1-1-1",
                            "2-1-1-3",     "2-1-1-2-1", "2-1-1-1-1-1", "1-1-2-3",      "1-1-2-2-1",
                            "1-1-2-1-1-1", "1-1-1-1-3", "1-1-1-1-2-1", "1-1-1-1-1-1-1"};
    char buf[64];
    for (int i = 0; i < 19; i++) {
        ms_partition_format(m, &m->partitions[i], buf, sizeof buf);
        assert_string_equal(buf, expect[i]);
        assert_int_equal(ms_partition_parse(m, buf), i);
    }
    assert_int_equal(ms_partition_parse(m, "11"), 10);
    assert_int_equal(ms_partition_parse(m, "20"), -1);
    assert_int_equal(ms_partition_parse(m, "4"), 3);
    assert_int_equal(ms_partition_parse(m, "5-2"), -1);
    /* Useless: the three with a 3-slice instance on slots 0-3 (labels 5, 6, 7). */
    for (int i = 0; i < 19; i++)
        assert_int_equal(ms_partition_useless(m, &m->partitions[i]), i >= 4 && i <= 6);
}

/* Paper 000 Fig. 4 / DESIGN.md, as (size@slot -> children) lines. */
static void tree_text(const ms_gpu_model *m, char *buf, size_t len)
{
    size_t off = 0;
    for (int i = 0; i < m->tree.n; i++) {
        const ms_tree_node *n = &m->tree.node[i];
        off += (size_t)snprintf(buf + off, len - off, "%d@%d:", m->profiles[n->at.profile].slices,
                                n->at.start);
        for (int c = 0; c < n->nchildren; c++) {
            const ms_tree_node *k = &m->tree.node[n->children[c]];
            assert_int_equal(k->parent, i);
            off += (size_t)snprintf(buf + off, len - off, " %d@%d",
                                    m->profiles[k->at.profile].slices, k->at.start);
        }
        off += (size_t)snprintf(buf + off, len - off, ";");
    }
}

static void test_trees(void **state)
{
    (void)state;
    char buf[512];
    tree_text(model("A30-24GB"), buf, sizeof buf);
    assert_string_equal(buf, "4@0: 2@0 2@2;2@0: 1@0 1@1;1@0:;1@1:;2@2: 1@2 1@3;1@2:;1@3:;");
    tree_text(model("A100-40GB"), buf, sizeof buf);
    assert_string_equal(buf, "7@0: 4@0 3@4;4@0: 3@0;3@0: 2@0 2@2;2@0: 1@0 1@1;1@0:;1@1:;"
                             "2@2: 1@2 1@3;1@2:;1@3:;3@4: 2@4 1@6;2@4: 1@4 1@5;1@4:;1@5:;1@6:;");
    tree_text(model("B200"), buf, sizeof buf);
    assert_string_equal(buf, "7@0: 4@0 3@4;4@0: 3@0;3@0: 2@0 2@2;2@0: 1@0 1@1;1@0:;1@1:;"
                             "2@2: 1@2 1@3;1@2:;1@3:;3@4: 2@4 1@6;2@4: 1@4 1@5;1@4:;1@5:;1@6:;");
}

static void test_canonical_counts(void **state)
{
    (void)state;
    ms_canon_set cs;
    ms_gpu_canonical(model("A100-40GB"), true, &cs);
    assert_int_equal(cs.n, 13);
    ms_gpu_canonical(model("A30-24GB"), true, &cs);
    assert_int_equal(cs.n, 4);
    ms_gpu_canonical(model("H100-80GB"), false, &cs);
    /* Keeping the useless ones breaks the three equivalences: 2-1-1-3 and 1-1-2-3 swap
     * slices 0-1 with 2-3, which would carry 3-3 (slices 0-2 used) to no valid vector. */
    assert_int_equal(cs.n, 19);
}

static void test_equivalence_pairs(void **state)
{
    (void)state;
    const ms_gpu_model *m = model("A100-40GB");
    ms_canon_set cs;
    ms_gpu_canonical(m, true, &cs);
    /* Labels 11~14, 12~15, 13~16 (1-based), represented by the higher vector (11,12,13). */
    int pairs[3][2] = {{10, 13}, {11, 14}, {12, 15}};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(cs.canon_of[pairs[i][0]], cs.canon_of[pairs[i][1]]);
        assert_int_equal(cs.partition[cs.canon_of[pairs[i][1]]], pairs[i][0]);
    }
    /* 2-2-1-1-1 (10) and 1-1-2-2-1 (15) reorder to each other but are not equivalent. */
    assert_int_not_equal(cs.canon_of[9], cs.canon_of[14]);
    for (int p = 4; p <= 6; p++)
        assert_int_equal(cs.canon_of[p], -1);
}

/* The permutation carries the real slice vector to the canonical one and back. */
static void test_permutation_round_trip(void **state)
{
    (void)state;
    for (int g = 0; g < ms_gpu_builtin_count(); g++) {
        const ms_gpu_model *m = ms_gpu_builtin_at(g);
        ms_canon_set cs;
        ms_gpu_canonical(m, true, &cs);
        for (int p = 0; p < m->npartitions; p++) {
            if (cs.canon_of[p] < 0)
                continue;
            int real[MS_MAX_SLICES], canon[MS_MAX_SLICES], mapped[MS_MAX_SLICES],
                back[MS_MAX_SLICES];
            ms_partition_slice_vector(m, &m->partitions[p], real);
            ms_partition_slice_vector(m, &m->partitions[cs.partition[cs.canon_of[p]]], canon);
            int seen = 0;
            for (int i = 0; i < m->slices; i++) {
                mapped[i] = real[cs.sigma[p][i]];
                seen |= 1 << cs.sigma[p][i];
            }
            assert_int_equal(seen, (1 << m->slices) - 1); /* a permutation */
            assert_memory_equal(mapped, canon, sizeof(int) * (size_t)m->slices);
            for (int i = 0; i < m->slices; i++)
                back[cs.sigma[p][i]] = mapped[i];
            assert_memory_equal(back, real, sizeof(int) * (size_t)m->slices);
            /* Instances map whole: each canonical instance's slices form one real instance. */
            const ms_partition *cp = &m->partitions[cs.partition[cs.canon_of[p]]];
            for (int k = 0; k < cp->n; k++) {
                uint32_t cmask = ms_gpu_slice_mask(m, cp->inst[k]), rmask = 0;
                for (int i = 0; i < m->slices; i++)
                    if (cmask & (1u << i))
                        rmask |= 1u << cs.sigma[p][i];
                int found = 0;
                for (int j = 0; j < m->partitions[p].n; j++)
                    found |= ms_gpu_slice_mask(m, m->partitions[p].inst[j]) == rmask;
                assert_true(found);
            }
        }
    }
}

static void test_builtin_lookup(void **state)
{
    (void)state;
    assert_ptr_equal(ms_gpu_builtin("a100"), ms_gpu_builtin("A100-40GB"));
    assert_ptr_equal(ms_gpu_builtin("h100-80gb"), ms_gpu_builtin("H100-80GB"));
    assert_null(ms_gpu_builtin("V100"));
    ms_gpu_model m;
    ms_error err;
    assert_int_equal(ms_gpu_lookup("V100", &m, &err), MS_EINVAL);
    assert_non_null(strstr(err.msg, "unknown GPU model 'V100'"));
    const ms_gpu_model *a = model("A100-40GB");
    assert_near(ms_gpu_create_time(a, 7), 0.24, 1e-12);
    assert_near(ms_gpu_destroy_time(a, 3), 0.21, 1e-12);
    assert_near(ms_gpu_create_time(model("A30"), 4), 0.13, 1e-12);
    int p = ms_gpu_profile_by_name(a, "1g.10gb");
    assert_true(p >= 0);
    assert_true(ms_gpu_placement_allowed(a, (ms_placement){p, 6}));
    assert_false(ms_gpu_placement_allowed(a, (ms_placement){p, 5}));
    assert_int_equal(ms_gpu_slot_mask(a, (ms_placement){p, 6}), 0xC0);
    assert_int_equal(ms_gpu_slice_mask(a, (ms_placement){p, 6}), 0x40);
}

static const char *custom_model =
    "{\"name\": \"TOY-2\", \"slots\": 2, \"slices\": 2,"
    " \"profiles\": [{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, \"size_slots\": 1,"
    "                 \"starts\": [0, 1]},"
    "                {\"name\": \"2g.2gb\", \"slices\": 2, \"memory_gb\": 2, \"size_slots\": 2,"
    "                 \"starts\": [0]}],"
    " \"reconfig\": {\"1\": {\"create\": 0.1, \"destroy\": 0.2}, \"2\": {\"create\": 0.3, "
    "\"destroy\": 0.4}}}";

static void test_custom_model(void **state)
{
    (void)state;
    char *path = test_write_temp(custom_model);
    ms_gpu_model m;
    ms_error err;
    assert_int_equal(ms_gpu_lookup(path, &m, &err), MS_OK);
    assert_string_equal(m.name, "TOY-2");
    assert_int_equal(m.npartitions, 2);
    assert_int_equal(m.tree.n, 3);
    assert_near(m.destroy_s[2], 0.4, 1e-12);
    unlink(path);
    free(path);
}

static void expect_model_error(const char *text, const char *needle)
{
    ms_gpu_model m;
    ms_error err;
    assert_int_equal(ms_gpu_parse_json(text, strlen(text), "model.json", &m, &err), MS_EINVAL);
    if (!strstr(err.msg, needle))
        fail_msg("message '%s' lacks '%s'", err.msg, needle);
    assert_non_null(strstr(err.msg, "model.json"));
}

static void test_custom_model_errors(void **state)
{
    (void)state;
    expect_model_error("{", "model.json:");
    expect_model_error("[]", "top level must be an object");
    expect_model_error("{\"name\": \"X\", \"slots\": 2, \"slices\": 2}", "profiles");
    expect_model_error(
        "{\"name\": \"X\", \"slots\": 2, \"slices\": 2, \"profiles\": [{\"name\": \"a\","
        " \"slices\": 1, \"memory_gb\": 1, \"size_slots\": 1, \"starts\": [1, 3]}]}",
        "profiles[0]: starts[1] must be a slot 0..1");
    expect_model_error(
        "{\"name\": \"X\", \"slots\": 2, \"slices\": 2, \"profiles\": [{\"name\": \"a\","
        " \"slices\": 1, \"memory_gb\": 1, \"size_slots\": 1, \"starts\": [0, 1]}]}",
        "no profile spans the whole GPU");
    expect_model_error(
        "{\"name\": \"X\", \"slots\": 2, \"slices\": 2, \"profiles\": [{\"name\": \"a\","
        " \"slices\": \"one\", \"memory_gb\": 1, \"size_slots\": 1, \"starts\": [0]}]}",
        "profiles[0]: field 'slices' must be an integer");
}

/* TOY-2 with one part replaced: P1 and P2 are the profiles, R the reconfig object. */
#define TOY(top, p1, p2, r) \
    "{\"name\": \"TOY-2\", \"slots\": 2, \"slices\": 2" top ", \"profiles\": [" p1 ", " p2 "]" r "}"
#define P1                                                                                        \
    "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, \"size_slots\": 1, \"starts\": [0, " \
    "1]}"
#define P2 \
    "{\"name\": \"2g.2gb\", \"slices\": 2, \"memory_gb\": 2, \"size_slots\": 2, \"starts\": [0]}"
#define R                                                                                    \
    ", \"reconfig\": {\"1\": {\"create\": 0.1, \"destroy\": 0.2}, \"2\": {\"create\": 0.3, " \
    "\"destroy\": 0.4}}"

/* The reader is strict: every defect is an error naming the field. */
static void test_custom_model_strict(void **state)
{
    (void)state;
    ms_gpu_model m;
    assert_int_equal(
        ms_gpu_parse_json(TOY("", P1, P2, R), strlen(TOY("", P1, P2, R)), "model.json", &m, NULL),
        MS_OK);
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, "
                           "\"size_slots\": 1, \"starts\": [0, 0, 1]}",
                           P2, R),
                       "profiles[0]: starts[1]: slot 0 appears twice");
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, "
                           "\"size_slots\": 1, \"starts\": [1, 0]}",
                           P2, R),
                       "profiles[0]: starts[1]: slot 0 is below the one before");
    expect_model_error(TOY("", P2, P2, R), "profiles[1]: name '2g.2gb' is also profiles[0]'s");
    expect_model_error(TOY(", \"slot\": 3", P1, P2, R), "model: unknown key \"slot\"");
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, "
                           "\"size_slots\": 1, \"starts\": [0, 1], \"nvml\": 0}",
                           P2, R),
                       "profiles[0]: unknown key \"nvml\"");
    expect_model_error(TOY("", P1, P2,
                           ", \"reconfig\": {\"1\": {\"create\": 0.1, \"destroy\": 0.2}, "
                           "\"2\": {\"create\": 0.3, \"destory\": 0.4}}"),
                       "reconfig[\"2\"]: unknown key \"destory\"");
    expect_model_error(TOY("", P1, P2, ""), "field 'reconfig' must be an object");
    expect_model_error(
        TOY("", P1, P2, ", \"reconfig\": {\"2\": {\"create\": 0.3, \"destroy\": 0.4}}"),
        "reconfig: times of size 1 are missing");
    expect_model_error(TOY("", P1, P2,
                           ", \"reconfig\": {\"1\": {\"create\": 0.1}, "
                           "\"2\": {\"create\": 0.3, \"destroy\": 0.4}}"),
                       "reconfig[\"1\"]: field 'destroy' is missing");
    expect_model_error(TOY("", P1, P2,
                           ", \"reconfig\": {\"1\": {\"create\": -0.1, \"destroy\": 0.2}, "
                           "\"2\": {\"create\": 0.3, \"destroy\": 0.4}}"),
                       "reconfig[\"1\"]: field 'create' must be a number >= 0");
    expect_model_error(TOY("", P1, P2,
                           ", \"reconfig\": {\"1\": {\"create\": 1e300, \"destroy\": 0.2}, "
                           "\"2\": {\"create\": 0.3, \"destroy\": 0.4}}"),
                       "reconfig[\"1\"]: field 'create' = 1e+300 is over the limit of 1e+09");
    expect_model_error(TOY("", P1, P2,
                           ", \"reconfig\": {\"1\": {\"create\": 0.1, \"destroy\": 0.2}, "
                           "\"01\": {\"create\": 0.1, \"destroy\": 0.2}, \"2\": {\"create\": 0.3, "
                           "\"destroy\": 0.4}}"),
                       "size 1 is given twice");
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": -1, "
                           "\"size_slots\": 1, \"starts\": [0, 1]}",
                           P2, R),
                       "profiles[0]: field 'memory_gb' must be a number > 0");
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1e300, "
                           "\"size_slots\": 1, \"starts\": [0, 1]}",
                           P2, R),
                       "profiles[0]: field 'memory_gb' = 1e+300 is over the limit");
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, "
                           "\"size_slots\": 4294967297, \"starts\": [0, 1]}",
                           P2, R),
                       "profiles[0]: field 'size_slots' must be an integer in 1..8");
    expect_model_error(TOY("",
                           "{\"name\": \"1g.1gb\", \"slices\": 1, \"memory_gb\": 1, "
                           "\"size_slots\": 1, \"starts\": [0, 1], \"nvml_index\": -7}",
                           P2, R),
                       "profiles[0]: field 'nvml_index' must be an integer in -1..63");
    expect_model_error("{\"name\": \"X\", \"slots\": -8, \"slices\": 2}",
                       "model: field 'slots' must be an integer in 1..8");
    /* A built-in name with another geometry is refused; with its own geometry (the
     * profiler's output: measured times under the device's name) it is accepted. */
    const char *a30_toy = "{\"name\": \"a30-24gb\", \"slots\": 2, \"slices\": 2, \"profiles\": [" P1
                          ", " P2 "]" R "}";
    expect_model_error(a30_toy, "field 'name': 'a30-24gb' is the built-in A30-24GB");
    const char *a30 = "{\"name\": \"A30-24GB\", \"slots\": 4, \"slices\": 4, \"profiles\": ["
                      "{\"name\": \"1g.6gb\", \"slices\": 1, \"memory_gb\": 6, \"size_slots\": 1, "
                      "\"starts\": [0, 1, 2, 3]},"
                      "{\"name\": \"2g.12gb\", \"slices\": 2, \"memory_gb\": 12, \"size_slots\": "
                      "2, \"starts\": [0, 2]},"
                      "{\"name\": \"4g.24gb\", \"slices\": 4, \"memory_gb\": 24, \"size_slots\": "
                      "4, \"starts\": [0]}],"
                      "\"reconfig\": {\"1\": {\"create\": 1, \"destroy\": 1}, \"2\": {\"create\": "
                      "1, \"destroy\": 1},"
                      " \"4\": {\"create\": 2, \"destroy\": 2}}}";
    ms_error err;
    if (ms_gpu_parse_json(a30, strlen(a30), "model.json", &m, &err))
        fail_msg("%s", err.msg);
    assert_near(m.create_s[4], 2, 0);
}

/* The lists the refusals of a size or a profile print: every size or name once, in order,
 * and cut short (still terminated) when the buffer is small. */
static void test_model_text(void **state)
{
    char buf[MS_GPU_LIST_LEN];
    ms_gpu_sizes_text(ms_gpu_builtin("A100-40GB"), buf, sizeof buf);
    assert_string_equal(buf, "1, 2, 3, 4, 7");
    ms_gpu_sizes_text(ms_gpu_builtin("A30-24GB"), buf, sizeof buf);
    assert_string_equal(buf, "1, 2, 4");
    ms_gpu_profiles_text(ms_gpu_builtin("A100-40GB"), buf, sizeof buf);
    assert_string_equal(buf, "1g.5gb, 1g.10gb, 2g.10gb, 3g.20gb, 4g.20gb, 7g.40gb");
    char small[8];
    ms_gpu_profiles_text(ms_gpu_builtin("A30-24GB"), small, sizeof small);
    assert_string_equal(small, "1g.6gb,");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_partition_counts),
        cmocka_unit_test(test_model_text),
        cmocka_unit_test(test_partitions_are_maximal_and_feasible),
        cmocka_unit_test(test_partition_order_matches_paper),
        cmocka_unit_test(test_trees),
        cmocka_unit_test(test_canonical_counts),
        cmocka_unit_test(test_equivalence_pairs),
        cmocka_unit_test(test_permutation_round_trip),
        cmocka_unit_test(test_builtin_lookup),
        cmocka_unit_test(test_custom_model),
        cmocka_unit_test(test_custom_model_errors),
        cmocka_unit_test(test_custom_model_strict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
