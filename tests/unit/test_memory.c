/*
 * test_memory.c: memory per GPU and the verdict. Expected values are worked out by hand in
 * the comments, or published (ZeRO paper, Rajbhandari et al. 2020, Figure 1 and section 3).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "internal.h"

/* the tiny model of test_model.c: 7,888 parameters, 4,608 of them in linear layers */
static void tiny(gp_model *m)
{
    static const char cfg[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 100, \"hidden_size\": 16,\n"
        " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
        " \"intermediate_size\": 32, \"tie_word_embeddings\": false, \"max_position_embeddings\": 64}";
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "tiny", m, NULL), GP_OK);
}

static gp_catalog *cat;
static const gp_gpu *h100;

static int setup(void **state)
{
    (void)state;
    if (gp_catalog_open(NULL, &cat, NULL) != GP_OK)
        return -1;
    return gp_catalog_find_gpu(cat, "H100-SXM-80GB", &h100, NULL) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

/*
 * Inference, by hand. bf16 weights 7,888 x 2 = 15,776 B. KV: 64 B/token x 10 tokens x 2
 * sequences = 1,280 B. Activations: a prefill chunk of min(2048, 2 x 10) = 20 tokens x
 * (3 x 32 + 2 x 16) x 2 B = 5,120 B, plus fp32 logits of the 2 sequences 2 x 100 x 4 = 800.
 * TP=2: linear 4,608 / 2 = 2,304; embedding and head 1,600 / 2 each; norms 80 replicated:
 * (2,304 + 800 + 800 + 80) x 2 B = 7,968 B; KV heads 2 -> 1 per GPU: 640 B.
 */
static void test_infer_by_hand(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 10;
    w.batch = 2;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.weights, 15776);
    assert_int_equal(mem.kv_cache, 1280);
    assert_int_equal(mem.activations, 5920);
    assert_true(mem.fits);
    l.tp = 2;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.weights, 7968);
    assert_int_equal(mem.kv_cache, 640);
    /* int4 weights: linear 4,608 x 4.15625 / 8 = 2,394 B + other 3,280 x 2 = 6,560 -> 8,954 */
    l.tp = 1;
    w.dtype = GP_DTYPE_INT4;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.weights, 8954);
}

/*
 * ZeRO (Rajbhandari et al. 2020, section 3): mixed-precision Adam keeps 2 + 2 + 12 = 16 bytes
 * per parameter; Figure 1's 7.5B model on 64 GPUs: baseline 120 GB, ZeRO-1 4P + 12P/64 =
 * 31.4 GB, ZeRO-2 2P + 14P/64 = 16.6 GB, ZeRO-3 16P/64 = 1.875 GB. With P = the tiny model's
 * 7,888 parameters and dp = 64 the same formulas give exact bytes: baseline 126,208;
 * ZeRO-1 31,552 + 94,656/64 = 33,031; ZeRO-2 15,776 + 110,432/64 = 17,501.
 */
static void test_zero_bytes_per_param(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 8;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.weights + mem.gradients + mem.optimizer, 16 * 7888);
    l.dp = 64;
    l.zero = 1;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.weights + mem.gradients + mem.optimizer, 33031);
    l.zero = 2;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.weights + mem.gradients + mem.optimizer, 17501);
    /* optimizer offload moves the 12 bytes/param to CPU memory */
    l.zero = 0;
    l.dp = 1;
    w.offload = GP_OFFLOAD_OPTIMIZER;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.optimizer, 0);
    assert_int_equal(mem.cpu_offload, 12 * 7888);
}

/* Activations per layer, Korthikanti et al. 2022 Table 2 as generalised in memory.c. For a
 * Llama-3.1-8B layer (h 4096, q 4096, kv 1024, f 14336) with no recomputation the stored
 * set is 2sb x (4h + 2q + 2kv + 3f) = 2sb x 69,632 = sb x 139,264 B (= 34 sbh, the paper's
 * constant without dropout masks but with SwiGLU's third matrix). Full recomputation keeps
 * 2sbh = sb x 8,192 B per layer plus one layer's full set. Checked through the difference
 * between 2 and 1 micro-batch sequences (logits scale too: s x V x 14 B). */
static void test_activations(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 1000;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory a, b;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &a, NULL), GP_OK);
    l.micro_batch = 2;
    l.global_batch = 2;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &b, NULL), GP_OK);
    /* one more sequence of 1,000 tokens: 32 layers x 1,000 x 139,264 + 1,000 x 128,256 x 14 */
    int64_t want = 32LL * 1000 * 139264 + 1000LL * 128256 * 14;
    int64_t got = (int64_t)b.activations - (int64_t)a.activations;
    assert_true(got >= want - 2 && got <= want + 2);
    l.micro_batch = 1;
    l.global_batch = 0;
    l.recompute = GP_RECOMPUTE_FULL;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &b, NULL), GP_OK);
    /* 32 x 1,000 x 8,192 + one layer 1,000 x 139,264 + logits 1,000 x 128,256 x 14 */
    want = 32LL * 1000 * 8192 + 1000LL * 139264 + 1000LL * 128256 * 14;
    assert_true((int64_t)b.activations >= want - 2 && (int64_t)b.activations <= want + 2);
    /* Megatron-Core's selective modules layernorm + mlp store neither the norms' outputs (2 x 2h)
     * nor the MLP's inside (3f): per token and layer 2 x 2h + 2 x (q 4096 + k, v 2 x 1024 + attention
     * output 4096) = 16,384 + 20,480 = 36,864 B, against 139,264 without */
    l.recompute = GP_RECOMPUTE_SELECTIVE;
    l.recompute_modules = GP_RECOMPUTE_LAYERNORM | GP_RECOMPUTE_MLP;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &b, NULL), GP_OK);
    want = 32LL * 1000 * 36864 + 1000LL * 128256 * 14;
    assert_true((int64_t)b.activations >= want - 2 && (int64_t)b.activations <= want + 2);
    /* moe_act names an MoE model's experts: Megatron-Core refuses it without them */
    l.recompute_modules = GP_RECOMPUTE_MOE_ACT;
    gp_error err;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &b, &err), GP_EINVAL);
    assert_string_equal(err.field, "recompute_modules");
    l.recompute = GP_RECOMPUTE_FULL, l.recompute_modules = GP_RECOMPUTE_LAYERNORM;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &b, &err), GP_EINVAL);
}

/* Megatron-Core's module names, parsed and printed back (gpi_recompute_modules_parse/_format). */
static void test_recompute_module_names(void **state)
{
    (void)state;
    unsigned mods = 0;
    const char *bad = NULL;
    assert_int_equal(gpi_recompute_modules_parse("layernorm,moe_act", &mods, &bad), 0);
    assert_int_equal(mods, GP_RECOMPUTE_LAYERNORM | GP_RECOMPUTE_MOE_ACT);
    assert_int_equal(gpi_recompute_modules_parse("moe shared_experts, mla_up_proj", &mods, &bad), 0);
    assert_int_equal(mods, GP_RECOMPUTE_MOE | GP_RECOMPUTE_SHARED_EXPERTS | GP_RECOMPUTE_MLA_UP_PROJ);
    assert_int_equal(gpi_recompute_modules_parse("layernorm,moe_ac", &mods, &bad), -1);
    assert_string_equal(bad, "moe_ac");
    char buf[96];
    gpi_recompute_modules_format(GP_RECOMPUTE_MOE_ACT | GP_RECOMPUTE_LAYERNORM, " ", buf, sizeof buf);
    assert_string_equal(buf, "layernorm moe_act");
    gpi_recompute_modules_format(GP_RECOMPUTE_MODULES_ALL, ",", buf, 12); /* truncated, terminated */
    assert_string_equal(buf, "core_attn");
    gp_layout l;
    gpi_layout_defaults(&l);
    l.recompute = GP_RECOMPUTE_SELECTIVE;
    assert_int_equal(gpi_recompute_modules_of(&l), GP_RECOMPUTE_CORE_ATTN); /* Megatron's default */
    l.recompute = GP_RECOMPUTE_FULL;
    assert_int_equal(gpi_recompute_modules_of(&l), 0);
}

static int has_reason(const gp_fit_result *r, gp_reason_code c)
{
    for (int i = 0; i < r->n_reasons; i++)
        if (r->reasons[i].code == c)
            return 1;
    return 0;
}

/* The headline: Llama-3.1-70B at bf16 does not fit one H100 (141 GB of weights >
 * 85.5 GB); two with TP=2 do (70.6 GB each); one H200 (143,771 MiB = 150.8 GB) holds it. */
static void test_verdict_weights(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-70b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_fit_result r;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_false(r.single_gpu_sufficient);
    assert_true(has_reason(&r, GP_REASON_WEIGHTS_EXCEED_VRAM));
    assert_int_equal(r.min_gpus, 2);
    assert_int_equal(r.min_layout.tp, 2);
    assert_int_equal(r.min_layout.pp, 1);
    assert_true(has_reason(&r, GP_REASON_LARGER_GPU_FITS));
    int h200 = 0;
    for (int i = 0; i < r.n_larger; i++)
        h200 |= strcmp(r.larger[i], "H200-SXM-141GB") == 0;
    assert_true(h200);
    /* room for KV on TP=2: (85.52 - 70.56 - activations - overhead) GB / 163,840 B/token:
     * between 80k and 95k tokens of one sequence */
    assert_true(r.max_context > 80000 && r.max_context < 95000);
    /* the same under vLLM's accounting: 141 GB of weights overrun its 0.9 x 85 GB budget */
    w.engine = GP_ENGINE_VLLM;
    gp_memory mem;
    gp_layout one;
    gpi_layout_defaults(&one);
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &one, &mem, NULL), GP_OK);
    assert_false(mem.fits);
    assert_true(mem.per_gpu > mem.weights);
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_false(r.single_gpu_sufficient);
    assert_int_equal(r.min_gpus, 2);
}

static void test_verdict_other_reasons(void **state)
{
    (void)state;
    gp_model m;
    gp_fit_result r;
    gp_workload w;
    /* fits */
    tiny(&m);
    gpi_workload_defaults(&w, GP_TASK_INFER);
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_true(r.single_gpu_sufficient);
    assert_true(has_reason(&r, GP_REASON_FITS));
    /* KV: Llama-3.1-8B (16 GB of weights) with 64 x 32,768 tokens = 2,097,152 tokens x
     * 131,072 B = 275 GB of KV cache */
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    w.batch = 64;
    w.context = 32768;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_true(has_reason(&r, GP_REASON_KV_CACHE_EXCEEDS_VRAM));
    assert_true(r.min_gpus >= 4); /* 275 GB + 16 GB over 85.5 GB GPUs */
    /* training states: 8.03B x 16 B = 128 GB > 85.5 GB */
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_true(has_reason(&r, GP_REASON_TRAINING_STATE_EXCEEDS_VRAM));
    /* activations: Llama-3.2-1B's states are 1.24B x 16 B = 19.8 GB, but 131,072-token
     * sequences need 16 layers x 131,072 x 2 x (4 x 2048 + ...) B, far more than 85 GB */
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.2-1b", &m, NULL), GP_OK);
    w.seq = 131072;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_true(has_reason(&r, GP_REASON_ACTIVATIONS_EXCEED_VRAM));
    /* nothing fits: one sequence of 2^31 tokens of Llama-3.1-405B (516,096 B/token) needs
     * 1.1 PB of KV cache; inference splits it over at most TP 8 x PP 126 GPUs */
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-405b", &m, NULL), GP_OK);
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = (int64_t)1 << 31;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_false(r.fits);
    assert_true(has_reason(&r, GP_REASON_NO_LAYOUT_FITS));
}

/*
 * Engine accounting by hand, the tiny model (15,776 B of bf16 weights, 64 B of KV per token)
 * on an H100 (85,520,809,984 B; CUDA sees 0.55 GiB less: 84,930,251,980.8 B), fraction 0.9.
 * The profiled peak on a >= 70 GiB GPU: 8,192 tokens x (3 x 32 + 2 x 16) x 2 B = 2,097,152 B
 * plus fp32 logits of 1,024 sequences x 100 x 4 B = 409,600 B: 2,506,752 B; non-torch 0.35 GiB.
 *  vLLM: 0.9 x 84,930,251,980.8 - 15,776 - 2,506,752 - 375,809,638.4 = 76,058,894,616 B
 *        / (64 x 16 B blocks) = 74,276,264 blocks = 1,188,420,224 tokens
 *  SGLang: 0.9 x visible - weights = 76,437,211,006.7 B / 64 B (token pages) = 1,194,331,421
 *  TensorRT-LLM: 0.9 x (visible - weights - peak - non-torch) = 76,096,727,832.96 B
 *        / (64 x 32 B blocks) = 37,156,605 blocks = 1,189,011,360 tokens
 */
static void test_engines(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 10;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    w.engine = GP_ENGINE_VLLM;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.kv_block_size, 16);
    assert_int_equal(mem.kv_blocks, 74276264);
    assert_int_equal(mem.kv_tokens, 1188420224);
    w.engine = GP_ENGINE_SGLANG;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.kv_block_size, 1);
    assert_int_equal(mem.kv_tokens, 1194331421);
    w.engine = GP_ENGINE_TRTLLM;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.kv_block_size, 32);
    assert_int_equal(mem.kv_blocks, 37156605);
    assert_int_equal(mem.kv_tokens, 1189011360);
    /* llama.cpp allocates the asked cache whole: no pool, the generic accounting */
    w.engine = GP_ENGINE_LLAMACPP;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_int_equal(mem.kv_tokens, 0);
    assert_int_equal(mem.kv_cache, 640); /* 64 B x 10 tokens */
}

static void test_errors(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    gp_error err;
    l.pp = 3; /* 2 layers */
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_EINVAL);
    assert_string_equal(err.field, "pp");
    l.pp = 1;
    l.tp = 0;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_EINVAL);
    l.tp = 1;
    w.context = 0;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_EINVAL);
    w.context = 10;
    w.engine = GP_ENGINE_VLLM;
    w.gpu_memory_utilization = 1.5;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_EINVAL);
    assert_string_equal(err.field, "gpu_memory_utilization");
    assert_int_equal(gpi_task_parse("qlora"), GP_TASK_QLORA);
    assert_int_equal(gpi_recompute_parse("bogus"), GP_RECOMPUTE_COUNT);
    assert_string_equal(gp_reason_name(GP_REASON_KV_CACHE_EXCEEDS_VRAM), "kv_cache_exceeds_vram");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_infer_by_hand),   cmocka_unit_test(test_zero_bytes_per_param),
        cmocka_unit_test(test_activations),     cmocka_unit_test(test_recompute_module_names),
        cmocka_unit_test(test_verdict_weights), cmocka_unit_test(test_verdict_other_reasons),
        cmocka_unit_test(test_engines),         cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
