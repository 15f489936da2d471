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
#include "render/json.h"
#include "render/text.h"

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

/* The scenario's max_work is the run's budget: it lowers or lifts the front end's; an API
 * context may lower it only. */
static void test_max_work(void **state)
{
    (void)state;
    gp_result *r = NULL;
    gp_error err;
    gp_run_ctx ctx;
    gp_run_ctx_defaults(&ctx);
    /* 100 requests x (200 + 1000/512 + 1) = 20,295 token-steps (test_budget) */
    scenario(GP_CMD_SERVE, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"rate\": \"inf\", \"requests\": 100, "
                           "\"max_work\": 2e4}");
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "budget of 2e+04"));
    ctx.max_work = 1e3; /* the key replaces the CLI's figure, up or down */
    scenario(GP_CMD_SERVE, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"h100\", \"rate\": \"inf\", \"requests\": 100, "
                           "\"max_work\": 3e4}");
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_OK);
    gp_result_free(r);
    r = NULL;
    ctx.api = 1; /* the API's 1e3 is a cap: 3e4 is refused, naming the key */
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_ELIMIT);
    assert_string_equal(err.field, "max_work");
    assert_null(r);
    ctx.max_work = 0; /* GP_RUN_API_WORK (1e10) */
    assert_int_equal(gp_serve_run(CAT, &SC, &ctx, &r, &err), GP_OK);
    gp_result_free(r);
    r = NULL;
    /* the layout search counts 50 units a layout: 8B on 64 GPUs has 5,272 valid layouts,
     * 263,600 units, over 1e5 */
    gp_run_ctx_defaults(&ctx);
    scenario(GP_CMD_TRAIN, "{\"model\": \"llama-3.1-8b\", \"gpus\": 64, \"max_work\": 1e5}");
    assert_int_equal(gp_train_run(CAT, &SC, &ctx, &r, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "budget of 1e+05"));
    scenario(GP_CMD_TRAIN, "{\"model\": \"llama-3.1-8b\", \"gpus\": 64, \"max_work\": 3e5}");
    assert_int_equal(gp_train_run(CAT, &SC, &ctx, &r, &err), GP_OK);
    assert_int_equal(gp_result_train(r)->res->valid, 5272);
    gp_result_free(r);
}

/* What a run told its progress callback. */
typedef struct seen {
    int calls, last_step, steps, stage_ok, work_grows;
    double last_work;
    char stage[32], first_item[64];
} seen;

static void record(void *arg, const gp_run_progress *p)
{
    seen *s = arg;
    if (!s->calls++) {
        snprintf(s->stage, sizeof s->stage, "%s", p->stage);
        snprintf(s->first_item, sizeof s->first_item, "%s", p->item);
        s->stage_ok = s->work_grows = 1;
    }
    s->stage_ok &= !strcmp(p->stage, s->stage);
    s->work_grows &= p->work >= s->last_work && p->max_work == 1e11;
    s->last_work = p->work;
    s->last_step = p->step;
    s->steps = p->steps;
}

static void test_progress(void **state)
{
    (void)state;
    gp_result *r = NULL;
    gp_error err;
    gp_run_ctx ctx;
    gp_run_ctx_defaults(&ctx);
    seen s;
    memset(&s, 0, sizeof s);
    ctx.progress = record;
    ctx.progress_arg = &s;
    /* a plan of one GPU in two precisions: two candidate setups, reported in order; the
     * capacity search inside each keeps the plan's stage */
    scenario(GP_CMD_PLAN, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"H100-SXM-80GB\", \"dtype\": [\"bf16\", \"fp8\"], "
                          "\"users\": 50}");
    assert_int_equal(gp_plan_run(CAT, &SC, &ctx, &r, &err), GP_OK);
    gp_result_free(r);
    r = NULL;
    assert_true(s.calls >= 2);
    assert_string_equal(s.stage, "sizing");
    assert_string_equal(s.first_item, "H100-SXM-80GB bf16");
    assert_true(s.stage_ok);
    assert_true(s.work_grows);
    assert_int_equal(s.steps, 2);
    assert_int_equal(s.last_step, 1);
    /* the layout search: its GPU count */
    memset(&s, 0, sizeof s);
    scenario(GP_CMD_TRAIN, "{\"model\": \"llama-3.1-8b\", \"gpus\": 8}");
    assert_int_equal(gp_train_run(CAT, &SC, &ctx, &r, &err), GP_OK);
    gp_result_free(r);
    assert_string_equal(s.stage, "layout search");
    assert_string_equal(s.first_item, "8 GPUs");
    assert_true(s.stage_ok);
}

/* The text answers are the library's (gp_result_text): fit's names the model and GPU asked and
 * gives the verdict from the message table; an export has files, not text. */
static void test_result_text(void **state)
{
    (void)state;
    scenario(GP_CMD_FIT, "{\"model\": \"llama-3.1-8b\", \"gpu\": \"H100-SXM-80GB\"}");
    gp_result *r = NULL;
    gp_error err;
    assert_int_equal(gp_fit_run(CAT, &SC, NULL, &r, &err), GP_OK);
    char *text = NULL, verdict[256];
    size_t len = 0;
    assert_int_equal(gp_result_text(r, &text, &len, &err), GP_OK);
    assert_int_equal(strlen(text), len);
    const char *nl = strchr(text, '\n');
    assert_non_null(nl);
    char first[512];
    snprintf(first, sizeof first, "%.*s", (int)(nl - text), text);
    assert_non_null(strstr(first, "Llama-3.1-8B"));
    assert_non_null(strstr(first, "H100-SXM-80GB"));
    /* 8B parameters at 2 bytes are ~16 GB: one 80 GB H100 holds it */
    assert_non_null(strstr(text, gp_text(verdict, sizeof verdict, "fit.verdict_one", "en", NULL, 0)));
    gp_text_free(text);
    gp_result_free(r);

    scenario(GP_CMD_EXPORT, "{\"model\": \"llama-3.1-8b\", \"engine\": \"vllm\"}");
    assert_int_equal(gp_export_run(CAT, &SC, NULL, &r, &err), GP_OK);
    assert_int_equal(gp_result_text(r, &text, &len, &err), GP_EINVAL);
    assert_null(text);
    gp_result_free(r);
}

/* Number formats and the likely range, worked by hand. */
static void test_text_formats(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(gpi_fmt_count(b, sizeof b, 70553706496), "70,553,706,496");
    assert_string_equal(gpi_fmt_count(b, sizeof b, -1234), "-1,234");
    assert_string_equal(gpi_fmt_count(b, sizeof b, 999), "999");
    assert_string_equal(gpi_fmt_si(b, sizeof b, 70.55e9), "70.55 B");
    assert_string_equal(gpi_fmt_si(b, sizeof b, 999), "999");
    /* 141e9 B = 141.0 GB; / 2^30 = 131.32 GiB */
    assert_string_equal(gpi_fmt_bytes(b, sizeof b, 141e9), "141.0 GB (131.3 GiB)");
    /* 2.5e6 B = 2.5 MB; / 2^20 = 2.38 MiB */
    assert_string_equal(gpi_fmt_bytes(b, sizeof b, 2.5e6), "2.5 MB (2.4 MiB)");
    assert_string_equal(gpi_fmt_cuda(b, sizeof b, 12040), "12.4");
    double lo, hi;
    /* errors of -10% and +20%: a rate of 100 is likely 100/1.2 = 83.3 to 100/0.9 = 111.1 */
    gpi_serve_range(100, 1, -0.1, 0.2, &lo, &hi);
    assert_float_equal(lo, 83.333, 1e-3);
    assert_float_equal(hi, 111.111, 1e-3);
    /* a latency of 1 s: 0.9 to 1.2 s */
    gpi_serve_range(1, 0, -0.1, 0.2, &lo, &hi);
    assert_float_equal(lo, 0.9, 1e-12);
    assert_float_equal(hi, 1.2, 1e-12);
}

/* The built-in example is the documented headline question (docs/scenario.md). */
static void test_example_and_documents(void **state)
{
    (void)state;
    gp_error err;
    const char *ex = gp_scenario_example();
    gp_scenario_init(&SC, GP_CMD_PLAN);
    assert_int_equal(gp_scenario_parse_json(&SC, ex, strlen(ex), "example", GP_SRC_FILE, &err), GP_OK);
    assert_int_equal(SC.users, 300);
    assert_int_equal(SC.horizon_months, 36);
    assert_string_equal(SC.currency, "BRL");
    char *text = NULL;
    size_t len = 0;
    assert_int_equal(gp_version_json(&text, &len, &err), GP_OK);
    assert_string_equal(text, "{\n  \"version\": \"" GP_VERSION_STRING "\"\n}\n");
    gp_text_free(text);
    assert_int_equal(gp_profile_json("{\"a\":1,\"b\":[2]}", &text, &len, &err), GP_OK);
    assert_string_equal(text, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n");
    gp_text_free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_result),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_deadline_and_cancel),
        cmocka_unit_test(test_budget),
        cmocka_unit_test(test_max_work),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_result_text),
        cmocka_unit_test(test_text_formats),
        cmocka_unit_test(test_example_and_documents),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
