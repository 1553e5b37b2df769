/* test_exec_migparted.c: the mig-parted v1 reader: mig-parted's example configs, bad files
 * with the line, column and field named, and what `layout`/`export` write read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "migsched/exec.h"
#include "support.h"

static ms_migparted *parse_ok(const char *text)
{
    ms_migparted *c = NULL;
    ms_error err = {0};
    if (ms_migparted_parse(text, strlen(text), "t.yaml", &c, &err))
        fail_msg("parse: %s", err.msg);
    return c;
}

/* The text fails to parse with a message containing want. */
static void parse_bad(const char *text, const char *want)
{
    ms_migparted *c = (ms_migparted *)1;
    ms_error err = {0};
    assert_int_equal(ms_migparted_parse(text, strlen(text), "t.yaml", &c, &err), MS_EINVAL);
    assert_null(c);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' lacks '%s'", err.msg, want);
}

static void test_examples(void **unused)
{
    ms_migparted *c = NULL;
    ms_error err = {0};
    int rc = ms_migparted_read(test_source_path("tests/data/migparted/examples.yaml"), &c, &err);
    if (rc)
        fail_msg("%s", err.msg);
    assert_int_equal(c->nconfigs, 7);
    const ms_migparted_config *d = ms_migparted_find(c, "all-disabled");
    assert_non_null(d);
    assert_true(d->entries[0].all);
    assert_false(d->entries[0].mig_enabled);
    const ms_migparted_config *e = ms_migparted_find(c, "all-enabled");
    assert_true(e->entries[0].mig_enabled);
    assert_int_equal(e->entries[0].ncounts, 0);
    const ms_migparted_config *b = ms_migparted_find(c, "all-balanced");
    assert_int_equal(b->nentries, 1);
    assert_int_equal(b->entries[0].ncounts, 3);
    assert_string_equal(b->entries[0].counts[1].profile, "2g.10gb");
    assert_int_equal(b->entries[0].counts[0].count, 2);
    assert_int_equal(b->entries[0].counts[2].line, 37);
    const ms_migparted_config *x = ms_migparted_find(c, "custom-config");
    assert_int_equal(x->nentries, 2);
    assert_ptr_equal(ms_migparted_entry_for(x, 1), &x->entries[1]);
    assert_null(ms_migparted_entry_for(x, 2));
    assert_ptr_equal(ms_migparted_entry_for(b, 5), &b->entries[0]);
    assert_null(ms_migparted_find(c, "all-7g"));
    ms_migparted_free(c);
}

static void test_flow_style_and_yaml11_booleans(void **unused)
{
    ms_migparted *c = parse_ok(
        "{version: v1, mig-configs: {a: [{devices: [2, 0], mig-enabled: yes, "
        "mig-devices: {3g.20gb: 2}}, {devices: [1], mig-enabled: off}]}}");
    const ms_migparted_config *a = &c->configs[0];
    assert_int_equal(a->entries[0].ndevices, 2);
    assert_int_equal(a->entries[0].devices[0], 2);
    assert_true(a->entries[0].mig_enabled);
    assert_false(a->entries[1].mig_enabled);
    assert_int_equal(a->entries[0].counts[0].count, 2);
    ms_migparted_free(c);
}

static void test_bad_files(void **unused)
{
    parse_bad("", "empty file");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: [0\n", "t.yaml:");
    parse_bad("mig-configs: {a: [{devices: all, mig-enabled: false}]}\n",
              "missing required field 'version'");
    parse_bad("version: v2\nmig-configs: {a: [{devices: all, mig-enabled: false}]}\n",
              "t.yaml:1:10: version: 'v2' is not v1");
    parse_bad("version: v1\n", "missing required field 'mig-configs'");
    parse_bad("version: v1\nextra: 1\n", "t.yaml:2:1: unexpected field 'extra'");
    parse_bad("version: v1\nmig-configs: {}\n", "at least one config");
    parse_bad("version: v1\nmig-configs:\n  a: []\n", "config 'a' needs at least one entry");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - mig-enabled: false\n",
              "t.yaml:4:7: missing required field 'devices'");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n",
              "missing required field 'mig-enabled'");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n",
              "missing required field 'mig-devices' when 'mig-enabled' is true");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n"
              "      mig-devices: {1g.5gb: 1}\n",
              "t.yaml:6:20: mig-devices: listed while 'mig-enabled' is false");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: some\n      mig-enabled: false\n",
              "t.yaml:4:16: devices: 'some' is neither 'all' nor a list");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: [0, -1]\n      mig-enabled: false\n",
              "t.yaml:4:20: devices: '-1' is not a whole number");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: [1, 1]\n      mig-enabled: false\n",
              "GPU 1 is listed twice");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: \"true\"\n",
              "mig-enabled: 'true' is not true or false");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n"
              "      mig-devices: {1g.5gb: many}\n",
              "t.yaml:6:29: mig-devices: 1g.5gb: 'many' is not a whole number");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n"
              "      mig-devices: {1g.5gb: 1, 1g.5gb: 2}\n",
              "'1g.5gb' appears twice");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: true\n"
              "      mig-devices: {}\n      mig-enable: true\n",
              "t.yaml:7:7: unexpected field 'mig-enable'");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: [0]\n      mig-enabled: false\n"
              "    - devices: [1, 0]\n      mig-enabled: false\n",
              "t.yaml:6:7: config 'a': GPU 0 is also in the entry at line 4");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: false\n"
              "    - devices: [1]\n      mig-enabled: false\n",
              "'devices: all' leaves no GPU");
    parse_bad("version: v1\nmig-configs:\n  a:\n    - devices: all\n      mig-enabled: "
              "false\n---\nx: 1\n",
              "a second YAML document");
    parse_bad("version: v1\nmig-configs:\n  a: {devices: all}\n", "config 'a' must be a list");
}

/* `migsched layout` and `migsched export` write entries that read back as the layout. */
static void test_written_entries_read_back(void **unused)
{
    const ms_gpu_model *m = ms_gpu_builtin("A100-40GB");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fprintf(f, "version: v1\nmig-configs:\n  here:\n");
    ms_migparted_write_entry(f, m, 0, true, &m->partitions[5]);
    ms_partition none = {0};
    ms_migparted_write_entry(f, m, 1, true, &none);
    ms_migparted_write_entry(f, m, 2, false, &none);
    fclose(f);
    ms_migparted *c = parse_ok(buf);
    const ms_migparted_config *h = ms_migparted_find(c, "here");
    assert_int_equal(h->nentries, 3);
    int total = 0;
    for (int i = 0; i < h->entries[0].ncounts; i++) {
        int p = ms_gpu_profile_by_name(m, h->entries[0].counts[i].profile);
        int want = 0;
        for (int k = 0; k < m->partitions[5].n; k++)
            want += m->partitions[5].inst[k].profile == p;
        assert_int_equal(h->entries[0].counts[i].count, want);
        total += want;
    }
    assert_int_equal(total, m->partitions[5].n);
    assert_true(h->entries[1].mig_enabled);
    assert_int_equal(h->entries[1].ncounts, 0);
    assert_false(h->entries[2].mig_enabled);
    ms_migparted_free(c);
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_flow_style_and_yaml11_booleans),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_written_entries_read_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
