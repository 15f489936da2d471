/*
 * test_model.c: parameter counts, bytes, KV and FLOPs from architectures.
 *
 * Expected values are published counts (tests/data/README.md) or worked out by
 * hand in the comments; none is copied from the program's output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void load_ref(const char *file, gp_model *m)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/models/%s", GP_TEST_DATA_DIR, file);
    gp_error err;
    gp_status st = gp_model_from_hf_config_file(path, m, &err);
    if (st)
        fail_msg("%s: %s", path, err.msg);
}

/* Published exact totals (tests/data/README.md, "from the config" column). */
static void test_reference_counts(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        int64_t total, active;
    } cases[] = {
        {"llama-2-7b.json", 6738415616, 0}, /* published 6,738,417,664 adds 2,048 inv_freq buffers */
        {"llama-3.1-8b.json", 8030261248, 0},
        {"llama-3.1-70b.json", 70553706496, 0},
        {"llama-3.1-405b.json", 405853388800, 0},
        {"mistral-7b-v0.1.json", 7241732096, 0},
        {"mixtral-8x7b-v0.1.json", 46702792704, 12879925248},
        {"qwen2.5-7b.json", 7615616512, 0},
        {"qwen2.5-72b.json", 72706203648, 0},
        {"qwen3-8b.json", 8190735360, 0},
        {"gemma-2-9b.json", 9241705984, 0},
        {"phi-3-mini-4k-instruct.json", 3821079552, 0},
        {"deepseek-v2-lite.json", 15706484224, 2661150208},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_model m;
        gp_param_breakdown p;
        load_ref(cases[i].file, &m);
        assert_int_equal(gp_model_params(&m, &p, NULL), GP_OK);
        if (p.total != cases[i].total)
            fail_msg("%s: total %lld, published %lld", cases[i].file, (long long)p.total, (long long)cases[i].total);
        int64_t active = cases[i].active ? cases[i].active : cases[i].total;
        if (p.active != active)
            fail_msg("%s: active %lld, published %lld", cases[i].file, (long long)p.active, (long long)active);
    }
}

/*
 * A tiny Llama-like model whose every parameter is counted by hand:
 *   V=100, h=16, L=2, H=4, KV=2, d=4, ffn=32, untied, RMSNorm.
 *   embedding 100*16 = 1600; head 1600
 *   attention per layer: q 16*16=256, k 16*8=128, v 128, o 16*16=256 -> 768; x2 = 1536
 *   mlp per layer: 3*16*32 = 1536; x2 = 3072
 *   norms: 2 per layer * 16 * 2 layers + final 16 = 80
 *   total = 1600 + 1600 + 1536 + 3072 + 80 = 7888
 *   bf16 bytes = 15776; int4: linear (1536+3072=4608) * 4.15625/8 = 2394 bytes
 *        + (7888-4608)*2 = 6560 -> 8954
 *   KV per token (bf16): 2 (k,v) * 2 layers * 2 heads * 4 dims * 2 bytes = 64
 */
static const char tiny_config[] =
    "{\"model_type\": \"llama\", \"vocab_size\": 100, \"hidden_size\": 16,\n"
    " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
    " \"intermediate_size\": 32, \"tie_word_embeddings\": false, \"max_position_embeddings\": 64}";

static void test_tiny_by_hand(void **state)
{
    (void)state;
    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_hf_config_text(tiny_config, strlen(tiny_config), "tiny", &m, &err), GP_OK);
    gp_param_breakdown p;
    assert_int_equal(gp_model_params(&m, &p, &err), GP_OK);
    assert_int_equal(p.embedding, 1600);
    assert_int_equal(p.head, 1600);
    assert_int_equal(p.attention, 1536);
    assert_int_equal(p.mlp_dense, 3072);
    assert_int_equal(p.norms, 80);
    assert_int_equal(p.total, 7888);
    assert_int_equal(gp_model_weight_bytes(&m, GP_DTYPE_BF16), 15776);
    assert_int_equal(gp_model_weight_bytes(&m, GP_DTYPE_F32), 31552);
    assert_int_equal(gp_model_weight_bytes(&m, GP_DTYPE_INT4), 8954);
    assert_int_equal(gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16), 64);
    assert_int_equal(gp_model_kv_bytes_per_token(&m, GP_DTYPE_FP8), 32);
    assert_int_equal(gp_model_kv_bytes(&m, GP_DTYPE_BF16, 10), 640);
    /* forward FLOPs at context 0: 2*linear (4608) + 2*V*h (3200) = 12416;
     * at context 10: + 2 layers * 2 * H(4) * (d+d)(8) * 10 = 1280 -> 13696 */
    assert_true(gp_model_forward_flops_per_token(&m, 0) == 12416.0);
    assert_true(gp_model_forward_flops_per_token(&m, 10) == 13696.0);
}

/* Llama-3.1-70B KV per token: 2 * 80 layers * 8 KV heads * 128 * 2 bytes = 327,680. */
static void test_kv_gqa(void **state)
{
    (void)state;
    gp_model m;
    load_ref("llama-3.1-70b.json", &m);
    assert_int_equal(gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16), 327680);
    /* 8,192 tokens: 2.68 GB = 327,680 * 8,192 = 2,684,354,560 */
    assert_int_equal(gp_model_kv_bytes(&m, GP_DTYPE_BF16, 8192), 2684354560ull);
}

/* DeepSeek-V2-Lite MLA: latent 512 + rotary 64 = 576 elements per layer per token,
 * 27 layers, bf16: 576 * 27 * 2 = 31,104 bytes (vLLM's MLA page holds one latent per token). */
static void test_kv_mla(void **state)
{
    (void)state;
    gp_model m;
    load_ref("deepseek-v2-lite.json", &m);
    assert_int_equal(m.kv_lora_rank, 512);
    assert_int_equal(gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16), 31104);
}

/* Mistral-7B v0.1: sliding window 4096 on all 32 layers: a 10,000-token sequence caches only
 * 4,096 tokens: 2 * 32 * 8 * 128 * 2 bytes = 131,072 per token -> 131,072 * 4,096 = 536,870,912.
 * Gemma-2-9B: 42 layers, 21 sliding (window 4096) + 21 global; KV per token per layer
 * 2 * 8 * 256 * 2 = 8,192 B; 8,192 tokens -> 21*8192*8192 + 21*4096*8192 = 2,113,929,216. */
static void test_kv_sliding(void **state)
{
    (void)state;
    gp_model m;
    load_ref("mistral-7b-v0.1.json", &m);
    assert_int_equal(m.sliding_window, 4096);
    assert_int_equal(m.sliding_layers, 32);
    assert_int_equal(gp_model_kv_bytes(&m, GP_DTYPE_BF16, 10000), 536870912ull);
    load_ref("gemma-2-9b.json", &m);
    assert_int_equal(m.sliding_layers, 21);
    assert_int_equal(gp_model_kv_bytes(&m, GP_DTYPE_BF16, 8192), 2113929216ull);
}

/* GPT-2 small (124,439,808 parameters, a well-known count: Radford et al. 2019 / HF):
 * learned positions, LayerNorm with bias, plain MLP with biases, tied head. */
static void test_gpt2(void **state)
{
    (void)state;
    static const char cfg[] = "{\"model_type\":\"gpt2\",\"n_layer\":12,\"n_embd\":768,\"n_head\":12,"
                              "\"n_positions\":1024,\"vocab_size\":50257,\"n_inner\":null}";
    gp_model m;
    gp_param_breakdown p;
    gp_error err;
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "gpt2", &m, &err), GP_OK);
    assert_int_equal(gp_model_params(&m, &p, &err), GP_OK);
    assert_int_equal(p.total, 124439808);
}

/* gpt-oss-20b: OpenAI's model card gives 20.91B total and 3.61B active parameters, the
 * latter excluding the embedding table: 20,914,757,184 total counted by hand in
 * docs/model.md; active = total - 24 layers * (32-4) experts * 24,891,840 per expert. */
static void test_gpt_oss(void **state)
{
    (void)state;
    static const char cfg[] =
        "{\"model_type\":\"gpt_oss\",\"num_hidden_layers\":24,\"hidden_size\":2880,"
        "\"num_attention_heads\":64,\"num_key_value_heads\":8,\"head_dim\":64,\"intermediate_size\":2880,"
        "\"num_local_experts\":32,\"num_experts_per_tok\":4,\"vocab_size\":201088,"
        "\"tie_word_embeddings\":false,\"attention_bias\":true,\"sliding_window\":128,"
        "\"max_position_embeddings\":131072}";
    gp_model m;
    gp_param_breakdown p;
    gp_error err;
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "gpt-oss-20b", &m, &err), GP_OK);
    assert_int_equal(gp_model_params(&m, &p, &err), GP_OK);
    assert_int_equal(p.total, 20914757184);
    assert_int_equal(p.active, 20914757184 - 24LL * 28 * 24891840);
    /* active without the 201,088 x 2,880 embedding = 3.61B as published */
    assert_int_equal((p.active - p.embedding + 5e6) / 1e7, 361);
}

static void test_errors(void **state)
{
    (void)state;
    gp_model m;
    gp_error err;
    /* syntax error on line 2, column 16 */
    static const char bad[] = "{\"model_type\": \"llama\",\n \"hidden_size\": }";
    assert_int_equal(gp_model_from_hf_config_text(bad, strlen(bad), "cfg.json", &m, &err), GP_EPARSE);
    assert_int_equal(err.line, 2);
    assert_true(err.column > 0);
    assert_non_null(strstr(err.msg, "cfg.json:2:"));
    /* wrong type names the field */
    static const char wrong[] = "{\"num_hidden_layers\": \"eighty\", \"hidden_size\": 8}";
    assert_int_equal(gp_model_from_hf_config_text(wrong, strlen(wrong), "cfg.json", &m, &err), GP_EINVAL);
    assert_string_equal(err.field, "num_hidden_layers");
    /* missing width */
    static const char missing[] = "{\"num_hidden_layers\": 2, \"num_attention_heads\": 2, \"vocab_size\": 5}";
    assert_int_equal(gp_model_from_hf_config_text(missing, strlen(missing), "cfg.json", &m, &err), GP_EINVAL);
    assert_string_equal(err.field, "hidden_size");
    /* heads not divisible by kv heads */
    static const char gqa[] = "{\"num_hidden_layers\": 2, \"hidden_size\": 16, \"num_attention_heads\": 4,"
                              " \"num_key_value_heads\": 3, \"vocab_size\": 5, \"intermediate_size\": 8}";
    assert_int_equal(gp_model_from_hf_config_text(gqa, strlen(gqa), "cfg.json", &m, &err), GP_EINVAL);
    assert_string_equal(err.field, "kv_heads");
    /* absurd numbers */
    static const char huge[] = "{\"num_hidden_layers\": 1e300, \"hidden_size\": 16, \"num_attention_heads\": 4,"
                               " \"vocab_size\": 5, \"intermediate_size\": 8}";
    assert_int_equal(gp_model_from_hf_config_text(huge, strlen(huge), "cfg.json", &m, &err), GP_EINVAL);
    static const char big[] = "{\"num_hidden_layers\": 1000000, \"hidden_size\": 1000000, \"num_attention_heads\": 4,"
                              " \"vocab_size\": 5, \"intermediate_size\": 1000000}";
    assert_int_equal(gp_model_from_hf_config_text(big, strlen(big), "cfg.json", &m, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "10^15"));
    /* not an object */
    assert_int_equal(gp_model_from_hf_config_text("[1]", 3, "cfg.json", &m, &err), GP_EPARSE);
    /* unknown model_type still loads, with a note */
    static const char unk[] = "{\"model_type\": \"brand_new\", \"num_hidden_layers\": 2, \"hidden_size\": 16,"
                              " \"num_attention_heads\": 4, \"vocab_size\": 100, \"intermediate_size\": 32}";
    assert_int_equal(gp_model_from_hf_config_text(unk, strlen(unk), "cfg.json", &m, &err), GP_OK);
    assert_non_null(strstr(m.notes, "brand_new"));
    /* missing file */
    assert_int_equal(gp_model_from_hf_config_file("/nonexistent/config.json", &m, &err), GP_ENOTFOUND);
}

/* Every catalog entry loads, validates and agrees with its published count: exactly where an
 * exact count is published (Llama-2-7B's published figure also counts 2,048 stored rotary
 * inv_freq buffers), and within the published figure's rounding where only a rounded one is
 * (70B: +-5B; 20.91B: +-5M), or 1% where a model card rounds further (Qwen2.5-14B card
 * "14.7B" vs 14.77B). Multimodal checkpoints, whose totals include a vision tower, are
 * compared text-only and skipped here. */
static void test_catalog(void **state)
{
    (void)state;
    gp_catalog *cat;
    gp_error err;
    assert_int_equal(gp_catalog_open(NULL, &cat, &err), GP_OK);
    assert_true(gp_catalog_model_count(cat) >= 30);
    for (size_t i = 0; i < gp_catalog_model_count(cat); i++) {
        gp_model m;
        gp_param_breakdown p;
        if (gp_catalog_model_at(cat, i, &m, &err) != GP_OK)
            fail_msg("catalog model %zu: %s", i, err.msg);
        assert_int_equal(gp_model_params(&m, &p, &err), GP_OK);
        if (!m.published_params || strstr(m.notes, "text_config"))
            continue;
        int64_t unit = 1;
        while (m.published_params % (unit * 10) == 0)
            unit *= 10;
        double tol = (double)unit / 2;
        if (tol < 0.01 * (double)m.published_params && unit > 1)
            tol = 0.01 * (double)m.published_params;
        int64_t diff = p.total - m.published_params;
        if (strcmp(m.id, "llama-2-7b") == 0)
            diff += 2048;
        if ((double)(diff < 0 ? -diff : diff) > tol)
            fail_msg("%s: %lld vs published %lld", m.id, (long long)p.total, (long long)m.published_params);
    }
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "META-LLAMA/llama-3.1-70b", &m, &err), GP_OK);
    assert_string_equal(m.id, "llama-3.1-70b");
    assert_int_equal(gp_catalog_find_model(cat, "no-such-model", &m, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "no-such-model"));
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "h100", &g, &err), GP_OK);
    assert_string_equal(g->id, "H100-SXM-80GB");
    /* nvidia-smi reports 81,559 MiB on an H100 80GB HBM3 (shared/reference/hardware.md) */
    assert_int_equal(g->memory_bytes, 81559ull * 1048576ull);
    gp_catalog_free(cat);
}

static void test_dtypes(void **state)
{
    (void)state;
    assert_int_equal(gpi_dtype_parse("BFloat16"), GP_DTYPE_BF16);
    assert_int_equal(gpi_dtype_parse("awq"), GP_DTYPE_INT4);
    assert_int_equal(gpi_dtype_parse("e4m3"), GP_DTYPE_FP8);
    assert_int_equal(gpi_dtype_parse("nope"), GP_DTYPE_UNKNOWN);
    assert_true(gp_dtype_bits(GP_DTYPE_INT4) == 4.15625);
    assert_true(gp_dtype_bits(GP_DTYPE_MXFP4) == 4.25);
    assert_string_equal(gp_dtype_name(GP_DTYPE_NF4), "nf4");
}

/* Issue 17 row 6: 16 MiB of `[{},{},...]` (5.6 million empty objects) made Jansson allocate
 * 1.26 GB. The structural pass refuses it before any tree exists, at the 16,385th container:
 * the outer array is the first, so it is object number 16,384, which starts at byte
 * 1 + 3 x 16,383 = 49,150. */
static void test_hostile_config_bounded(void **state)
{
    (void)state;
    size_t n = (size_t)16 << 20;
    char *text = malloc(n);
    assert_non_null(text);
    text[0] = '[';
    size_t i = 1;
    while (i + 3 < n) {
        memcpy(text + i, "{},", 3);
        i += 3;
    }
    text[i - 1] = ']';
    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_hf_config_text(text, i, "config.json", &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "objects and arrays"));
    assert_true(err.offset == 1 + 3 * 16383);
    /* nesting 65 deep */
    memset(text, '[', 65);
    memset(text + 65, ']', 65);
    assert_int_equal(gp_model_from_hf_config_text(text, 130, "config.json", &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "nested too deep"));
    /* broken structure is left to Jansson: line and column */
    assert_int_equal(gp_model_from_hf_config_text("{\"a\": [1,]}", 11, "config.json", &m, &err), GP_EPARSE);
    assert_int_equal(err.line, 1);
    free(text);
}

/* Issue 17 row 10: the real size of a file that is too large ("a 200 MB file"), not the
 * 16,777,217 bytes read to find out. */
static void test_config_size_message(void **state)
{
    (void)state;
    char path[] = "/tmp/gp_cfg_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 200000000), 0); /* sparse: no 200 MB written */
    close(fd);
    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_hf_config_file(path, &m, &err), GP_ELIMIT);
    unlink(path);
    assert_non_null(strstr(err.msg, "a 200 MB file"));
    assert_null(strstr(err.msg, "16777217"));
}

/* A flag error carries no byte offset (the CLI printed "(at byte offset <garbage>)"). */
static void test_error_offset_cleared(void **state)
{
    (void)state;
    gp_catalog *cat;
    assert_int_equal(gp_catalog_open(NULL, &cat, NULL), GP_OK);
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    gp_catalog_free(cat);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.pp = 99;
    gp_memory mem;
    gp_error err;
    memset(&err, 0x5a, sizeof err); /* as an uninitialised caller's */
    assert_int_equal(gpi_memory_estimate(&m, NULL, &w, &l, &mem, &err), GP_EINVAL);
    assert_true(err.offset == -1 && err.line == 0);
    assert_string_equal(err.field, "pp");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reference_counts),
        cmocka_unit_test(test_tiny_by_hand),
        cmocka_unit_test(test_kv_gqa),
        cmocka_unit_test(test_kv_mla),
        cmocka_unit_test(test_kv_sliding),
        cmocka_unit_test(test_gpt2),
        cmocka_unit_test(test_gpt_oss),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_catalog),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_hostile_config_bounded),
        cmocka_unit_test(test_config_size_message),
        cmocka_unit_test(test_error_offset_cleared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
