/*
 * test_run.c: the run functions (src/lib/run/): a scenario in, an opaque versioned result
 * out; the deadline, the cancel hook and the work budget stop a question (GP_ELIMIT) inside
 * the simulation and the layout search; a contradictory question is GP_EUSAGE naming the key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "internal.h"

static gp_catalog *CAT;
static gp_scenario SC;

static int setup(void **state)
{
    (void)state;
    gp_error err;
    return gp_catalog_open(NULL, &CAT, &err) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(CAT);
    return 0;
}

static void scenario(unsigned cmd, const char *json)
{
    gp_error err;
    gp_scenario_init(&SC, cmd);
    assert_int_equal(gp_scenario_parse_json(&SC, json, strlen(json), "t.json", GP_SRC_FILE, &err), GP_OK);
}

static int always(void *arg)
{
    (void)arg;
    return 1;
}

static void test_fit_result(void **state)
{
    (void)state;
    scenario(GP_CMD_FIT, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"H100-SXM-80GB\"}");
    gp_result *r = NULL;
    gp_error err;
    assert_int_equal(gp_fit_run(CAT, &SC, NULL, &r, &err), GP_OK);
    assert_int_equal(gp_result_version(r), GP_RESULT_VERSION);
    assert_int_equal(gp_result_command(r), GP_CMD_FIT);
    assert_non_null(gp_result_fit(r));
    assert_null(gp_result_serve(r)); /* another question's accessor */
    /* 8B parameters at 2 bytes are ~16 GB: one 80 GB H100 holds it */
    assert_true(gp_result_fit(r)->single_gpu_sufficient);
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(gp_result_json(r, &text, &len, &err), GP_OK);
    assert_true(len > 0 && text[len - 1] == '\n');
    assert_non_null(strstr(text, "\"single_gpu_sufficient\": true"));
    gp_text_free(text);
    gp_result_free(r);
}

static void test_usage(void **state)
{
    (void)state;
    gp_result *r = NULL;
    gp_error err;
    scenario(GP_CMD_SERVE, "{\"model\": \"llama-3.1-8b\", \"users\": 10, \"rate\": 2}"); /* two loads */
    assert_int_equal(gp_serve_run(CAT, &SC, NULL, &r, &err), GP_EUSAGE);
    assert_null(r);
    assert_string_equal(err.field, "users");
    scenario(GP_CMD_FIT, "{\"gpu\": \"h100\"}"); /* no model */
    assert_int_equal(gp_fit_run(CAT, &SC, NULL, &r, &err), GP_EUSAGE);
    assert_string_equal(err.field, "model");
}

static void test_deadline_and_cancel(void **state)
{
    (void)state;
    gp_result *r = NULL;
    gp_error err;
    gp_run_ctx ctx;
    gp_run_ctx_defaults(&ctx);
    ctx.deadline_s = gp_run_clock() - 1; /* already past: the simulation's first poll stops it */
    scenario(GP_CMD_SERVE, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"rate\": \"inf\", \"requests\": 100}");
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "deadline"));
    gp_run_ctx_defaults(&ctx);
    ctx.cancel = always; /* a server stopping: the layout search's first poll stops it */
    scenario(GP_CMD_TRAIN, "{\"model\": \"llama-3.1-8b\", \"gpus\": 8}");
    assert_int_equal(gp_train_run(CAT, &SC, &ctx, &r, &err), GP_ELIMIT);
    assert_null(r);
}

static void test_budget(void **state)
{
    (void)state;
    gp_result *r = NULL;
    gp_error err;
    gp_run_ctx ctx;
    gp_run_ctx_defaults(&ctx);
    /* 100 requests x (200 output + 1000/512 + 1 prompt-steps) = 20,295 token-steps > 10,000 */
    ctx.max_work = 1e4;
    scenario(GP_CMD_SERVE, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"rate\": \"inf\", \"requests\": 100}");
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "budget"));
    ctx.max_work = 3e4; /* ... and under 30,000 it runs */
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_OK);
    assert_int_equal(gp_result_serve(r)->mode, GP_SERVE_MODE_EVALUATE);
    assert_int_equal(gp_result_serve(r)->best.sim.requests, 100);
    gp_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_result),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_deadline_and_cancel),
        cmocka_unit_test(test_budget),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
