/*
 * test_runs.c: the readers of measured runs (calibrate/runs*.c) on real log excerpts
 * (tests/data/runs/, sources in SOURCES.md there) and on hostile or broken input.
 *
 * Every expected figure is worked out by hand from the excerpt's lines, in the comment beside
 * it; none is copied from the program's output.
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

static const gpi_measured_run *read_one(gpi_runset *set, const char *file, const char *defaults)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/runs/%s", GP_SOURCE_DIR, file);
    gp_error err;
    gp_error_clear(&err);
    gp_status st = gpi_runset_read(set, path, defaults, &err);
    if (st != GP_OK)
        fail_msg("%s: %s", path, err.msg);
    assert_int_equal(gpi_runset_count(set), 1);
    return gpi_runset_get(set, 0);
}

/* The scenario's value for key, as JSON text ("8", "\"fp8\""), or "" when absent. */
static const char *scn(const gpi_measured_run *r, const char *key)
{
    static char buf[256];
    json_t *o = json_loads(r->scenario_json, 0, NULL);
    assert_non_null(o);
    json_t *v = json_object_get(o, key);
    char *t = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;
    snprintf(buf, sizeof buf, "%s", t ? t : "");
    free(t);
    json_decref(o);
    return buf;
}

static void test_megatron(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    const gpi_measured_run *r =
        read_one(set, "megatron_mixtral_16xh100.log", "{\"gpu\": \"H100-SXM-80GB\", \"gpus\": 16}");
    assert_int_equal(r->kind, GPI_RUN_TRAIN);
    assert_int_equal(r->format, GPI_RUNFMT_MEGATRON);
    assert_int_equal(r->line, 9);    /* the first iteration line */
    assert_int_equal(r->samples, 3); /* iterations 43, 44, 45 */
    /* warm-up: the first of 3 dropped; median of 5533.8 and 5718.6 ms = 5626.2 ms */
    assert_float_equal(r->step_time_s, 5.6262, 1e-9);
    /* median of 236.0 and 228.4 TFLOP/s/GPU = 232.2 */
    assert_float_equal(r->model_tflops_per_gpu, 232.2, 1e-9);
    /* the excerpt has no seq_length or world_size: no tokens/s */
    assert_true(isnan(r->tokens_per_s_per_gpu));
    assert_string_equal(scn(r, "ep"), "8");
    assert_string_equal(scn(r, "ffn"), "14336");
    assert_string_equal(scn(r, "hidden"), "4096");
    assert_string_equal(scn(r, "global_batch"), "128");
    assert_string_equal(scn(r, "recompute"), "\"none\"");
    assert_string_equal(scn(r, "framework"), "\"megatron\"");
    assert_string_equal(scn(r, "dtype"), "");    /* fp8 None, fp16 False, bf16 not shown */
    assert_string_equal(scn(r, "kv_heads"), ""); /* GQA on, but num_query_groups not shown */
    assert_string_equal(scn(r, "gpus"), "16");   /* from the defaults */
    gpi_runset_free(set);
}

static void test_megatron_defaults_do_not_override(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    const gpi_measured_run *r =
        read_one(set, "megatron_mixtral_16xh100.log", "{\"ep\": 2, \"model\": \"mixtral-8x7b\"}");
    assert_string_equal(scn(r, "ep"), "8"); /* the log's own 8 wins over the default 2 */
    assert_string_equal(scn(r, "model"), "\"mixtral-8x7b\"");
    gpi_runset_free(set);
}

static void test_torchtitan(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    const gpi_measured_run *r = read_one(set, "torchtitan_steps.log", NULL);
    assert_int_equal(r->format, GPI_RUNFMT_TORCHTITAN);
    assert_int_equal(r->samples, 8);
    /* steps 15-21 (step 14 is the dropped tenth, at least one line): tps 7334 7313 7282 7322
       7309 7272 7304, sorted 7272 7282 7304 [7309] 7313 7322 7334 */
    assert_float_equal(r->tokens_per_s_per_gpu, 7309, 1e-9);
    assert_float_equal(r->model_tflops_per_gpu, 0.52, 1e-9); /* six of seven are 0.52 */
    assert_float_equal(r->mfu, 0.0017, 1e-12);               /* 0.17% */
    gpi_runset_free(set);
}

static void test_trtllm(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    const gpi_measured_run *r = read_one(set, "trtllm_bench_deepseek_r1_fp4.txt", NULL);
    assert_int_equal(r->kind, GPI_RUN_SERVE);
    assert_float_equal(r->output_tokens_per_s, 7517.2584, 1e-9);
    assert_true(isnan(r->total_tokens_per_s)); /* the excerpt stops before it */
    assert_true(isinf(r->request_rate_per_s));
    assert_string_equal(scn(r, "model"), "\"deepseek-ai/DeepSeek-R1\"");
    assert_string_equal(scn(r, "dtype"), "\"fp4\"");    /* Quantization: NVFP4 */
    assert_string_equal(scn(r, "kv_dtype"), "\"fp8\""); /* KV Cache Dtype: FP8 */
    assert_string_equal(scn(r, "tp"), "4");
    assert_string_equal(scn(r, "ep"), "4");
    assert_string_equal(scn(r, "requests"), "6144"); /* not the 1018.8 "concurrent" line */
    assert_string_equal(scn(r, "prompt_tokens"), "1024");
    assert_string_equal(scn(r, "batch"), "1024");
    assert_string_equal(scn(r, "engine"), "\"trtllm\"");
    gpi_runset_free(set);
}

static void check_vllm_llama8b(const gpi_measured_run *r)
{
    assert_float_equal(r->output_tokens_per_s, 6582.87, 1e-9);
    assert_float_equal(r->total_tokens_per_s, 14029.44, 1e-9);
    assert_float_equal(r->ttft_p50_s, 9.4597, 1e-12);  /* 9459.70 ms */
    assert_float_equal(r->tpot_p50_s, 0.04884, 1e-12); /* 48.84 ms */
    assert_true(isinf(r->request_rate_per_s));
    assert_string_equal(scn(r, "requests"), "1000");
    assert_string_equal(scn(r, "prompt_tokens"), "230"); /* 229,711 / 1,000 = 229.7 */
    assert_string_equal(scn(r, "output_tokens"), "203"); /* 203,068 / 1,000 = 203.1 */
    assert_string_equal(scn(r, "rate"), "\"inf\"");
    assert_string_equal(scn(r, "engine"), "\"vllm\"");
}

static void test_vllm_text_and_json(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    const gpi_measured_run *r = read_one(set, "vllm_bench_serve_llama31_8b.txt", NULL);
    assert_int_equal(r->format, GPI_RUNFMT_SERVE_TEXT);
    assert_int_equal(r->line, 2);
    check_vllm_llama8b(r);
    gpi_runset_free(set);
    set = gpi_runset_new();
    r = read_one(set, "vllm_bench_serve_llama31_8b.json", NULL);
    assert_int_equal(r->format, GPI_RUNFMT_VLLM_BENCH);
    check_vllm_llama8b(r);
    assert_string_equal(scn(r, "model"), "\"meta-llama/Llama-3.1-8B-Instruct\"");
    assert_string_equal(scn(r, "users"), ""); /* max_concurrency null */
    gpi_runset_free(set);
}

static void test_nccl(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    const gpi_measured_run *r = read_one(set, "nccl_allreduce_2xgb10.txt", NULL);
    assert_int_equal(r->kind, GPI_RUN_COLLECTIVE);
    assert_int_equal(r->op, GPI_COLLECTIVE_ALL_REDUCE); /* "Collective test starting: all_reduce_perf" */
    assert_int_equal(r->ranks, 2);                      /* two "Rank" lines */
    assert_int_equal(r->points, 4);
    assert_int_equal(r->line, 12);
    assert_float_equal(r->bytes[0], 8192, 0);
    assert_float_equal(r->busbw_gbps[0], 0.23, 1e-12); /* out-of-place busbw */
    assert_float_equal(r->bytes[3], 65536, 0);
    assert_float_equal(r->busbw_gbps[3], 0.96, 1e-12);
    assert_string_equal(scn(r, "gpus"), "2");
    gpi_runset_free(set);
}

static void test_nccl_mpi_rank_tags(void **state)
{
    (void)state;
    /* rows as mpirun prefixes them: "[0]" at the start and glued to the root column
       (NVIDIA/nccl issue #1453), under an older header without "#" */
    const char *text =
        "       size         count    type   redop    root     time   algbw   busbw  #wrong     time   "
        "algbw   busbw  #wrong\n"
        "[0]      4194304       1048576     float     sum      -1[0]     622.6    6.74   12.91      0[0]  "
        "   625.8    6.70   12.85      0\n";
    gpi_runset *set = gpi_runset_new();
    gp_error err;
    assert_int_equal(gpi_runset_parse(set, "all_reduce.txt", text, strlen(text), NULL, &err), GP_OK);
    const gpi_measured_run *r = gpi_runset_get(set, 0);
    assert_int_equal(r->points, 1);
    assert_float_equal(r->busbw_gbps[0], 12.91, 1e-12);
    assert_int_equal(r->op, GPI_COLLECTIVE_ALL_REDUCE);
    gpi_runset_free(set);
}

static void test_jsonl_and_csv(void **state)
{
    (void)state;
    gpi_runset *set = gpi_runset_new();
    gp_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/runs/runs.jsonl", GP_SOURCE_DIR);
    assert_int_equal(gpi_runset_read(set, path, NULL, &err), GP_OK);
    snprintf(path, sizeof path, "%s/tests/data/runs/runs.csv", GP_SOURCE_DIR);
    assert_int_equal(gpi_runset_read(set, path, NULL, &err), GP_OK);
    assert_int_equal(gpi_runset_count(set), 4);
    const gpi_measured_run *a = gpi_runset_get(set, 0), *b = gpi_runset_get(set, 1);
    assert_string_equal(a->id, "mixtral-16xh100");
    assert_float_equal(a->model_tflops_per_gpu, 232.2, 0);
    assert_string_equal(a->scenario_json, "{\"ep\":8,\"global_batch\":128,\"gpu\":\"H100-SXM-80GB\",\"gpus\":16,"
                                          "\"model\":\"mixtral-8x7b-v0.1\"}");
    assert_int_equal(b->kind, GPI_RUN_SERVE);
    assert_int_equal(b->line, 3); /* line 1 is a comment */
    assert_float_equal(b->request_rate_per_s, 4, 0);
    const gpi_measured_run *c = gpi_runset_get(set, 2), *d = gpi_runset_get(set, 3);
    assert_string_equal(c->id, "a \"quoted\" id");
    assert_float_equal(c->mfu, 0.41, 0);
    assert_true(isnan(c->step_time_s)); /* an empty cell is absent */
    assert_string_equal(scn(d, "model"), "\"llama-3.1-70b\"");
    assert_string_equal(scn(d, "tp"), "8");
    assert_float_equal(d->step_time_s, 12.5, 0);
    gpi_runset_free(set);
}

/* A broken input fails with file:line and the field, and appends nothing. */
static void expect_fail(const char *name, const char *text, gp_status code, int line, const char *field)
{
    gpi_runset *set = gpi_runset_new();
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_runset_parse(set, name, text, strlen(text), NULL, &err), code);
    assert_int_equal(gpi_runset_count(set), 0);
    assert_int_equal(err.line, line);
    assert_string_equal(err.field, field);
    assert_non_null(strstr(err.msg, name));
    gpi_runset_free(set);
}

static void test_errors(void **state)
{
    (void)state;
    const char *good = "{\"command\":\"train\",\"measured\":{\"mfu\":0.4}}\n";
    char two[512];
    snprintf(two, sizeof two, "%s{\"command\":\"train\",\"measured\":{\"mfuu\":0.4}}\n", good);
    expect_fail("r.jsonl", two, GP_EINVAL, 2, "mfuu"); /* and the good first line is rolled back */
    expect_fail("r.jsonl", "{\"command\":\"train\",\"measured\":{\"mfu\":1.5}}", GP_EINVAL, 1, "mfu");
    expect_fail("r.jsonl", "{\"command\":\"fit\",\"measured\":{\"mfu\":0.5}}", GP_EINVAL, 1, "command");
    expect_fail("r.jsonl", "{\"command\":\"serve\",\"measured\":{\"mfu\":0.5}}", GP_EINVAL, 1, "mfu");
    expect_fail("r.jsonl", "{\"command\":\"train\",\"measured\":{}}", GP_EINVAL, 1, "measured");
    expect_fail("r.jsonl", "{\"command\":\"train\",\"measured\":{\"mfu\":0.5},\"tp\":{\"a\":1}}", GP_EINVAL, 1, "tp");
    expect_fail("r.jsonl", "{\"command\":\"serve\",\"rate\":-1,\"measured\":{\"output_tokens_per_s\":5}}", GP_EINVAL, 1,
                "rate");
    snprintf(two, sizeof two, "%s{\"command\": \"train\", \"measured\": {\"mfu\": 0.4}\n", good);
    expect_fail("r.jsonl", two, GP_EPARSE, 2, "");
    expect_fail("r.csv", "id,command,mfu\na,train,0.4,9\n", GP_EPARSE, 2, "");
    expect_fail("r.csv", "id,command,mfu\n\"a,train,0.4\n", GP_EPARSE, 2, "");
    expect_fail("r.log", "iteration 1 | elapsed time per iteration (ms): nan |\n", GP_EPARSE, 0, "");
    expect_fail("r.txt", "hello world\n", GP_EUNSUPPORTED, 0, "");
    expect_fail("r.json", "{\"output_throughput\": 5, \"ttfts\": [1, 2", GP_EPARSE, 0, "");
    expect_fail("r.json", "{\"output_throughput\": -5}", GP_EPARSE, 0, "output_throughput");
}

static void test_hostile_sizes(void **state)
{
    (void)state;
    /* a vLLM result with a million-element array is read in constant memory: only the
       scalars are parsed (here checked for the answer; the memory bound is the design) */
    size_t n = 1000000, cap = n * 2 + 128;
    char *text = malloc(cap);
    assert_non_null(text);
    size_t k = (size_t)snprintf(text, cap, "{\"itls\": [");
    for (size_t i = 0; i < n; i++) {
        text[k++] = '0';
        text[k++] = i + 1 < n ? ',' : ']';
    }
    k += (size_t)snprintf(text + k, cap - k, ", \"output_throughput\": 12.5}");
    gpi_runset *set = gpi_runset_new();
    gp_error err;
    assert_int_equal(gpi_runset_parse(set, "big.json", text, k, NULL, &err), GP_OK);
    assert_float_equal(gpi_runset_get(set, 0)->output_tokens_per_s, 12.5, 0);
    gpi_runset_free(set);
    free(text);
    /* an overlong JSON Lines line is refused, not parsed */
    size_t m = 70 * 1024;
    char *line = malloc(m + 1);
    assert_non_null(line);
    memset(line, ' ', m);
    line[0] = '{';
    line[m - 1] = '}';
    line[m] = '\0';
    expect_fail("long.jsonl", line, GP_ELIMIT, 1, "");
    free(line);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_megatron),
        cmocka_unit_test(test_megatron_defaults_do_not_override),
        cmocka_unit_test(test_torchtitan),
        cmocka_unit_test(test_trtllm),
        cmocka_unit_test(test_vllm_text_and_json),
        cmocka_unit_test(test_nccl),
        cmocka_unit_test(test_nccl_mpi_rank_tags),
        cmocka_unit_test(test_jsonl_and_csv),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_hostile_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
