/*
 * test_scenario.c: the scenario key table and parser (src/lib/scenario/, docs/scenario.md):
 * exact keys only (a shortened key is an error naming it and the key meant), ranges named in
 * errors, the value forms (suffixes, inf, switches, lists), flags after a file replacing its
 * lists, the web API's refusals and bounds, and docs/scenario.md's key table against the
 * library's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static gp_scenario SC; /* ~10 KB: static */

static gp_status parse(unsigned cmd, const char *json, gp_scenario_source src, gp_error *err)
{
    gp_scenario_init(&SC, cmd);
    return gp_scenario_parse_json(&SC, json, strlen(json), "s.json", src, err);
}

static void test_exact_keys(void **state)
{
    (void)state;
    gp_error err;
    /* issue 17 row 1: getopt took "request" for "requests"; the table takes only exact names */
    assert_int_equal(parse(GP_CMD_SERVE, "{\"model\": \"llama-3.1-8b\", \"request\": 5}", GP_SRC_API, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "unknown key 'request'"));
    assert_non_null(strstr(err.msg, "did you mean 'requests'"));
    assert_string_equal(err.field, "request");
    assert_int_equal(parse(GP_CMD_SERVE, "{\"use\": 5}", GP_SRC_API, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "'users'"));
    assert_int_equal(parse(GP_CMD_FIT, "{\"contex\": 5}", GP_SRC_API, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "'context'"));
    assert_int_equal(parse(GP_CMD_FIT, "{\"kv-dtype\": \"fp8\"}", GP_SRC_FILE, &err), GP_EINVAL); /* '_' only */
    /* a key of another command is unknown here: users is a serving key, not fit's */
    assert_int_equal(parse(GP_CMD_FIT, "{\"users\": 5}", GP_SRC_FILE, &err), GP_EINVAL);
    /* documentation keys are ignored */
    assert_int_equal(parse(GP_CMD_PLAN, "{\"description\": \"x\", \"users\": 5}", GP_SRC_FILE, &err), GP_OK);
    assert_int_equal(SC.users, 5);
}

static void test_values(void **state)
{
    (void)state;
    gp_error err;
    assert_int_equal(parse(GP_CMD_TRAIN,
                           "{\"tokens\": \"15T\", \"deadline\": \"30d\", \"seq\": 1e3, \"scaling\": true,"
                           " \"dtype\": [\"bf16\", \"fp8\"], \"zero\": 3}",
                           GP_SRC_FILE, &err),
                     GP_OK);
    assert_true(SC.tokens == 15e12);          /* 15 x 10^12 */
    assert_true(SC.deadline == 30 * 86400.0); /* 2,592,000 s */
    assert_int_equal(SC.seq, 1000);
    assert_int_equal(SC.scaling, 1);
    assert_int_equal(SC.dtype.n, 2);
    assert_string_equal(SC.dtype.v[1], "fp8");
    assert_true(gp_scenario_has(&SC, "zero"));
    assert_false(gp_scenario_has(&SC, "tp"));
    assert_int_equal(parse(GP_CMD_SERVE, "{\"rate\": \"inf\", \"redundancy\": \"n+1\"}", GP_SRC_FILE, &err), GP_OK);
    assert_true(isinf(SC.rate));
    assert_int_equal(SC.redundancy, 1);
}

static void test_ranges(void **state)
{
    (void)state;
    gp_error err;
    /* users: 1 .. 2^24 = 16777216 */
    assert_int_equal(parse(GP_CMD_SERVE, "{\"users\": 16777217}", GP_SRC_FILE, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "scenario key 'users' takes a whole number from 1 to 16777216"));
    assert_int_equal(parse(GP_CMD_SERVE, "{\"users\": 2.5}", GP_SRC_FILE, &err), GP_EINVAL);
    assert_int_equal(parse(GP_CMD_FIT, "{\"dtype\": \"fp99\"}", GP_SRC_FILE, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "bf16"));
    assert_int_equal(parse(GP_CMD_FIT, "{\"model\": [\"a\", \"b\"]}", GP_SRC_FILE, &err), GP_EINVAL);
    assert_int_equal(parse(GP_CMD_FIT, "{\"batch\": null}", GP_SRC_FILE, &err), GP_EINVAL);
    assert_int_equal(parse(GP_CMD_FIT, "{\"model\": \"x\",}", GP_SRC_FILE, &err), GP_EPARSE);
    assert_int_equal(err.line, 1);
    /* from a flag the message names the flag */
    gp_scenario_init(&SC, GP_CMD_SERVE);
    assert_int_equal(gp_scenario_set(&SC, gp_scenario_key_find("users"), "abc", GP_SRC_FLAG, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "--users takes a whole number"));
    assert_int_equal(gp_scenario_set(&SC, gp_scenario_key_find("ttft_p99"), NULL, GP_SRC_FLAG, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "--ttft-p99 needs a value"));
}

static void test_api(void **state)
{
    (void)state;
    gp_error err;
    assert_int_equal(parse(GP_CMD_SERVE, "{\"trace\": \"/etc/passwd\"}", GP_SRC_API, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "reads and writes no files"));
    assert_int_equal(parse(GP_CMD_SERVE, "{\"trace\": \"t.csv\"}", GP_SRC_FILE, &err), GP_OK); /* a file may */
    assert_int_equal(parse(GP_CMD_SERVE, "{\"users\": 10001}", GP_SRC_API, &err), GP_OK);
    assert_int_equal(gp_scenario_check_api_bounds(&SC, &err), GP_ELIMIT); /* the API's bound is 10,000 */
    assert_non_null(strstr(err.msg, "bound of 10000"));
}

static void test_flags_replace_lists(void **state)
{
    (void)state;
    gp_error err;
    assert_int_equal(parse(GP_CMD_PLAN, "{\"gpu\": [\"h100\", \"h200\"]}", GP_SRC_FILE, &err), GP_OK);
    const gp_scenario_key *g = gp_scenario_key_find("gpu");
    assert_int_equal(gp_scenario_set(&SC, g, "l4", GP_SRC_FLAG, &err), GP_OK);
    assert_int_equal(gp_scenario_set(&SC, g, "a100-80gb", GP_SRC_FLAG, &err), GP_OK);
    assert_int_equal(SC.gpu.n, 2); /* the file's two replaced by the flags' two */
    assert_string_equal(SC.gpu.v[0], "l4");
}

/* docs/scenario.md's "Keys" table lists every key of the table, and nothing else. */
static void test_docs_table(void **state)
{
    (void)state;
    FILE *f = fopen(GP_SOURCE_DIR "/docs/scenario.md", "r");
    assert_non_null(f);
    char line[4096];
    int in_table = 0, seen[GP_SCENARIO_MAX_KEYS] = {0}, rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## ", 3))
            in_table = !strncmp(line, "## Keys", 7);
        if (!in_table || line[0] != '|' || line[1] != ' ' || line[2] != '`')
            continue;
        char *end = strchr(line + 3, '`');
        assert_non_null(end);
        *end = '\0';
        const gp_scenario_key *k = gp_scenario_key_find(line + 3);
        if (!k || strcmp(k->name, line + 3))
            fail_msg("docs/scenario.md lists '%s', not a scenario key", line + 3);
        seen[k - gp_scenario_key_at(0)] = 1;
        rows++;
    }
    fclose(f);
    for (size_t i = 0; i < gp_scenario_key_count(); i++)
        if (!seen[i])
            fail_msg("docs/scenario.md's Keys table lacks '%s'", gp_scenario_key_at(i)->name);
    assert_int_equal(rows, (int)gp_scenario_key_count());
    assert_true(gp_scenario_key_count() <= GP_SCENARIO_MAX_KEYS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_keys),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_api),
        cmocka_unit_test(test_flags_replace_lists),
        cmocka_unit_test(test_docs_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
