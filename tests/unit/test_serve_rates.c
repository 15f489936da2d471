/*
 * test_serve_rates.c: the serving step model on the measured rates of data/kernels.json
 * (gpi_step_model_use_rates) and the engine profiles of data/engines.json
 * (gpi_engine_profile_get), against figures worked by hand in the comments.
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
#include <unistd.h>

#include "gpuplan.h"
#include "hw/kernels.h"
#include "internal.h"

static gp_catalog *cat;

static int setup(void **state)
{
    (void)state;
    return gp_catalog_open(NULL, &cat, NULL) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

#define near(a, b, rel) assert_true(fabs((a) - (b)) <= (rel)*fabs(b))

static const gp_gpu *gpu(const char *id)
{
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, id, &g, NULL), GP_OK);
    return g;
}

/* Llama-3.1-8B on `gpu_id` under `engine` at `dtype`, TP `tp`, no per-step overhead, measured
 * rates. */
static void llama8b_on(gpi_step_model *sm, const char *gpu_id, gp_engine engine, gp_dtype dtype, int tp)
{
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.dtype = dtype;
    w.kv_dtype = GP_DTYPE_BF16;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = tp;
    l.dp = 1;
    gpi_perf_params pp;
    gpi_perf_params_defaults(&pp, engine);
    pp.step_overhead_s = 0.0;
    w.engine = engine;
    const gp_gpu *g = gpu(gpu_id);
    assert_int_equal(gpi_step_model_init_nodes(&m, g, NULL, NULL, &w, &l, &pp, sm, NULL), GP_OK);
    gpi_step_model_use_rates(sm, cat, g, NULL);
    assert_non_null(sm->rates);
}

/* The same on H100 SXM under vLLM. */
static void llama8b(gpi_step_model *sm, gp_dtype dtype, int tp)
{
    llama8b_on(sm, "H100-SXM-80GB", GP_ENGINE_VLLM, dtype, tp);
}

/* Llama-3.1-8B per layer: q 4096 x 4096 + k, v 2 x 4096 x 1024 + o 4096 x 4096 = 41,943,040;
 * MLP 3 x 4096 x 14336 = 176,160,768; x 32 layers = 6,979,321,856 dense parameters (norm
 * weights are not GEMMs: 2 x 4096 x 32 = 262,144 more if the breakdown counts them). */
#define L8B_DENSE 6979321856.0
/* Element-wise traffic per token (docs/serving.md, section 1): 32 layers x (two fused add +
 * RMSNorm, 8 x 4096, + SwiGLU, 3 x 14336) x 2 B = 2 x (1,048,576 + 1,376,256) = 4,849,664 B,
 * at the achievable HBM rate with the linear phase. */
#define L8B_ELEMENTWISE 4849664.0

static void decode_is_weights_at_achievable_hbm(void **state)
{
    (void)state;
    gpi_step_model sm;
    llama8b(&sm, GP_DTYPE_BF16, 1);
    /* achievable HBM: 0.90 x 3350 GB/s = 3015 GB/s (data/kernels.json "hbm-nvidia") */
    near(sm.hbm_bytes_per_s, 3015e9, 1e-9);
    gpi_batch_shape b;
    gpi_batch_decode(NULL, &b, 1, 0);
    gpi_step_breakdown d;
    gpi_step_time(&sm, &b, &d);
    /* one token: the weights read once, 6.9793e9 x 2 B / 3015 GB/s = 4.6297 ms (the compute
     * side at d = 1: 1.3959e10 FLOP / (794.5 TF x 1/101 x 0.65) = 2.73 ms, below it) */
    near(d.linear_s, (L8B_DENSE * 2.0 + L8B_ELEMENTWISE) / 3015e9, 1e-3);
    assert_false(d.compute_bound);
    /* LM head: 128,256 x 4096 x 2 B / 3015 GB/s = 0.34849 ms */
    near(d.head_s, 128256.0 * 4096.0 * 2.0 / 3015e9, 1e-6);
}

static void prefill_is_gemm_rate_at_its_shape(void **state)
{
    (void)state;
    gpi_step_model sm;
    llama8b(&sm, GP_DTYPE_BF16, 1);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 8192);
    gpi_step_breakdown d;
    gpi_step_time(&sm, &b, &d);
    /* 2 x 6.9793e9 x 8192 = 1.14347e14 FLOP; shape 8192 tokens x 53,248 (fused width) x 4096:
     * d = 4096, s = 4096 / (4096 + h) with h kernels.json's fitted gemm_half_dim (refitted on
     * training runs, so read, not copied: 100 gives s = 0.97617); H100 bf16 MAMF 794.5 TF x s x
     * the serving fraction f (fitted on every serving source, so read too: 0.65 gives
     * 504.12 TF -> 0.22683 s; weights 4.63 ms: compute-bound), plus the element-wise traffic of
     * 8192 tokens, 8192 x 4,849,664 B / 3015 GB/s = 13.18 ms */
    double h = sm.rates->fit->gemm_half_dim, f = sm.gemm_fraction;
    assert_true(f > 0.5 && f < 0.9);
    near(d.linear_s,
         2.0 * L8B_DENSE * 8192.0 / (794.5e12 * 4096.0 / (4096.0 + h) * f) + 8192.0 * L8B_ELEMENTWISE / 3015e9, 1e-3);
    assert_true(d.compute_bound);
}

static void fp8_speeds_only_the_gemms(void **state)
{
    (void)state;
    gpi_step_model s16, s8;
    llama8b(&s16, GP_DTYPE_BF16, 1);
    llama8b(&s8, GP_DTYPE_FP8, 1);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 8192);
    gpi_step_breakdown d16, d8;
    gpi_step_time(&s16, &b, &d16);
    gpi_step_time(&s8, &b, &d8);
    /* the GEMMs at the fp8 MAMF 1402.6 TF instead of 794.5 (same shape factor); the
     * element-wise traffic (16-bit activations either way) does not change */
    double ew = 8192.0 * L8B_ELEMENTWISE / 3015e9;
    near((d16.linear_s - ew) / (d8.linear_s - ew), 1402.6 / 794.5, 1e-3);
    /* attention (16-bit kernel, same bf16 KV) and the bf16 LM head do not change */
    near(d8.attention_s, d16.attention_s, 1e-12);
    near(d8.head_s, d16.head_s, 1e-12);
}

static void allreduce_on_the_measured_curve(void **state)
{
    (void)state;
    gpi_step_model sm;
    llama8b(&sm, GP_DTYPE_BF16, 2);
    gpi_batch_shape b;
    gpi_batch_decode(NULL, &b, 64, 100);
    gpi_step_breakdown d;
    gpi_step_time(&sm, &b, &d);
    /* 2 all-reduces per layer x 32 = 64, each of 64 tokens x 4096 x 2 B = 524,288 B, under
     * vLLM's custom all-reduce limit (8 MiB): 8 us + 2 (1/2) x 524,288 B / the NVLink 4 curve's
     * asymptote (482.26 GB/s, nccl-tests on 8 H200 with NVLS) = 9.0871 us -> 0.58158 ms */
    near(d.comm_s, 64.0 * (8e-6 + 524288.0 / 482.26e9), 1e-3);
}

/* Without NVLink the engines run NCCL, not their own all-reduce kernels: TensorRT-LLM's AUTO
 * strategy at any TP, vLLM beyond two GPUs. NCCL's time is the PCIe curve at the message's
 * size. */
static void allreduce_over_pcie_is_nccl(void **state)
{
    (void)state;
    gpi_step_model sm;
    gpi_batch_shape b;
    gpi_step_breakdown d;
    gpi_batch_decode(NULL, &b, 64, 100);
    llama8b_on(&sm, "L40S", GP_ENGINE_TRTLLM, GP_DTYPE_BF16, 4);
    assert_int_equal(sm.custom_ar, 0);
    gpi_step_time(&sm, &b, &d);
    /* 64 all-reduces of 524,288 B over 4 GPUs on PCIe 4: busbw at 512 KiB = 31.5 GB/s x 28/63
     * (the RTX 5090 asymptote) x 9.029 / 28.118 (the PCIe ring's shape: 512 KiB in 87.1 us on
     * 4 RTX PRO 6000, 1.5 x 524288 / 87.1e-6 = 9.029 GB/s) = 4.4956 GB/s; each all-reduce
     * 2 (3/4) x 524,288 / 4.4956e9 = 174.93 us -> 11.195 ms */
    near(d.comm_s, 64.0 * 1.5 * 524288.0 / (14.0e9 * 9.029 / 28.118), 1e-3);
    llama8b_on(&sm, "L40S", GP_ENGINE_VLLM, GP_DTYPE_BF16, 2);
    assert_int_equal(sm.custom_ar, 1); /* vLLM's custom all-reduce on two PCIe GPUs */
    llama8b_on(&sm, "L40S", GP_ENGINE_VLLM, GP_DTYPE_BF16, 4);
    assert_int_equal(sm.custom_ar, 0);
    llama8b_on(&sm, "H100-SXM-80GB", GP_ENGINE_TRTLLM, GP_DTYPE_BF16, 4);
    assert_int_equal(sm.custom_ar, 1); /* NVLink: the engine's one-shot / two-shot kernels */
    /* H100 NVL: NVLink bridges join pairs; TP 4 spans two bridges over PCIe, so NCCL */
    llama8b_on(&sm, "H100-NVL-94GB", GP_ENGINE_VLLM, GP_DTYPE_BF16, 2);
    assert_int_equal(sm.custom_ar, 1);
    llama8b_on(&sm, "H100-NVL-94GB", GP_ENGINE_VLLM, GP_DTYPE_BF16, 4);
    assert_int_equal(sm.custom_ar, 0);
}

static void engine_profiles_from_data(void **state)
{
    (void)state;
    gpi_engine_profile p;
    /* vLLM serve on >= 70 GiB, not A100: 8192 tokens, 1024 sequences; A100 80GB: 2048, 256 */
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_VLLM, gpu("H100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_string_equal(p.id, "vllm");
    assert_int_equal(p.max_num_batched_tokens, 8192);
    assert_int_equal(p.max_num_seqs, 1024);
    assert_int_equal(p.block_size, 16);
    assert_true(p.chunked_prefill && !p.reserve_full);
    /* the per-step overhead is fitted on AMD's vLLM table (docs/serving.md): a few ms, read */
    assert_true(p.step_overhead_s > 0.001 && p.step_overhead_s < 0.01);
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_VLLM, gpu("A100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.max_num_batched_tokens, 2048);
    assert_int_equal(p.max_num_seqs, 256);
    /* the tiers test the GPU's vllm_large_device field, not its memory or name: an H100 whose
     * field says false gets the small defaults (one rule, in data/gpus.json) */
    gp_gpu h100 = *gpu("H100-SXM-80GB");
    h100.vllm_large_device = 0;
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_VLLM, &h100, 1, &p, NULL), GP_OK);
    assert_int_equal(p.max_num_batched_tokens, 2048);
    assert_int_equal(p.max_num_seqs, 256);
    /* SGLang chunked_prefill_size: H100 (79.6 GiB) 8192, B200 (179 GiB) 16384, A10 (22.5 GiB)
     * 2048; CUDA graphs up to 256 at TP1 and 512 at TP8 on H100 */
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_SGLANG, gpu("H100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.max_num_batched_tokens, 8192);
    assert_int_equal(p.cuda_graph_max_batch, 256);
    assert_int_equal(p.block_size, 1);
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_SGLANG, gpu("H100-SXM-80GB"), 8, &p, NULL), GP_OK);
    assert_int_equal(p.cuda_graph_max_batch, 512);
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_SGLANG, gpu("B200"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.max_num_batched_tokens, 16384);
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_SGLANG, gpu("A10"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.max_num_batched_tokens, 2048);
    /* TensorRT-LLM: 8192 tokens, batch 2048, 32-token blocks, 90% of free memory, no evict,
     * chunked prefill off by default */
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_TRTLLM, gpu("H100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.max_num_batched_tokens, 8192);
    assert_int_equal(p.max_num_seqs, 2048);
    assert_int_equal(p.block_size, 32);
    near(p.kv_fraction, 0.9, 1e-12);
    assert_true(p.reserve_full && !p.chunked_prefill);
    /* host work per sequence and the overlap scheduler: TensorRT-LLM on a Grace superchip
     * 34 us (NVIDIA/TensorRT-LLM pull request #16564: an 8.8 ms host tail for 256 requests on
     * GB200, 8.8 / 256 = 34.4 us), overlapped, but not with pipeline parallelism
     * (py_executor.py runs _executor_loop_pp); x86 hosts cost less than Grace; vLLM v0.11
     * runs its host work serially (async scheduling off by default) */
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_TRTLLM, gpu("GB200"), 1, &p, NULL), GP_OK);
    near(p.seq_overhead_s, 34e-6, 1e-12);
    assert_true(p.host_overlap && !p.host_overlap_pp);
    double grace = p.seq_overhead_s;
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_TRTLLM, gpu("B200"), 1, &p, NULL), GP_OK);
    assert_true(p.seq_overhead_s > 0 && p.seq_overhead_s < grace);
    gpi_perf_params pp;
    gpi_perf_params_profile(&pp, GP_ENGINE_TRTLLM, &p, 1);
    assert_true(pp.host_overlap);
    near(pp.seq_overhead_s, p.seq_overhead_s, 1e-15);
    gpi_perf_params_profile(&pp, GP_ENGINE_TRTLLM, &p, 4); /* pipelined: serial */
    assert_false(pp.host_overlap);
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_VLLM, gpu("H100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_false(p.host_overlap);
    /* engines without a profile use vLLM's */
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_TGI, gpu("H100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_string_equal(p.id, "vllm");
    /* no catalog: a clear error */
    gp_error err;
    assert_int_equal(gpi_engine_profile_get(NULL, GP_ENGINE_VLLM, gpu("H100-SXM-80GB"), 1, &p, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "vllm"));
}

static void sched_config_follows_the_profile(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.engine = GP_ENGINE_SGLANG;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 1;
    gpi_engine_profile p;
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_SGLANG, gpu("B200"), 1, &p, NULL), GP_OK);
    gpi_sched_config sc;
    assert_int_equal(gpi_serve_sched_config_profile(&m, gpu("B200"), &w, &l, 4096, &p, &sc, NULL), GP_OK);
    assert_int_equal(sc.max_num_batched_tokens, 16384); /* the B200 tier */
    assert_int_equal(sc.max_num_seqs, 4096);
    assert_false(sc.reserve_full);
    /* SGLang's captured sizes ([1, 2, 4, 8, 12] + 16..256 step 8 + 272..496 step 16 +
     * 512..1024 step 32: 5 + 31 + 15 + 17 = 68) up to its B200 TP1 cuda_graph_max_bs 512:
     * 5 + 31 + 15 + 1 = 52; a decode batch of 13 runs 16, of 257 runs 272, of 600 none */
    assert_int_equal(p.n_graph_sizes, 68);
    assert_int_equal(sc.n_graph_sizes, 52);
    assert_int_equal(sc.graph_sizes[51], 512);
    near(gpi_graph_batch(&sc, 13), 16.0, 1e-15);
    near(gpi_graph_batch(&sc, 257), 272.0, 1e-15);
    near(gpi_graph_batch(&sc, 600), 600.0, 1e-15);
    /* TensorRT-LLM (the perf-overview's list, 15 sizes to 8192) under its batch cap 2048 */
    w.engine = GP_ENGINE_TRTLLM;
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_TRTLLM, gpu("B200"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.n_graph_sizes, 15);
    assert_int_equal(gpi_serve_sched_config_profile(&m, gpu("B200"), &w, &l, 4096, &p, &sc, NULL), GP_OK);
    assert_int_equal(sc.n_graph_sizes, 13); /* 1 .. 2048 */
    /* its eager dispatch: ~17 launches per layer x 35 us (engines.json eager_layer_source) */
    near(p.eager_layer_s, 600e-6, 1e-12);
    near(gpi_graph_batch(&sc, 370), 384.0, 1e-15);
    near(gpi_graph_batch(&sc, 1100), 2048.0, 1e-15);
    /* vLLM: [1, 2, 4] + 8..248 step 8 + 256..512 step 16 = 51 */
    assert_int_equal(gpi_engine_profile_get(cat, GP_ENGINE_VLLM, gpu("H100-SXM-80GB"), 1, &p, NULL), GP_OK);
    assert_int_equal(p.n_graph_sizes, 51);
    assert_int_equal(p.graph_sizes[50], 512);
    near(p.eager_layer_s, 0.0, 1e-15); /* piecewise graphs cover mixed batches */
}

/* The likely range: a model architecture's own group where engines.json has one (it may lie to
 * one side of 0), else the dense / MoE pool's (which must hold 0), with whose runs it is. */
static void error_range_by_architecture(void **state)
{
    (void)state;
    char dir[] = "/tmp/gp_serve_range_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/engines.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"error_ranges\": {\"groups\": ["
          "{\"moe\": false, \"p10\": -0.2, \"p90\": 0.1, \"cases\": 400},"
          "{\"moe\": true, \"p10\": -0.3, \"p90\": 0.4, \"cases\": 300},"
          "{\"model_type\": \"gpt_oss\", \"p10\": -0.5, \"p90\": 0.6, \"cases\": 44},"
          "{\"model_type\": \"mistral\", \"p10\": -0.25, \"p90\": -0.01, \"cases\": 35}]}}",
          f);
    fclose(f);
    gp_catalog *c;
    assert_int_equal(gp_catalog_open(dir, &c, NULL), GP_OK);
    gp_model m;
    memset(&m, 0, sizeof m);
    double lo, hi;
    char basis[32];
    int n;
    snprintf(m.model_type, sizeof m.model_type, "gpt_oss");
    m.experts = 128;
    gpi_serve_error_range(c, &m, &lo, &hi, basis, sizeof basis, &n);
    near(lo, -0.5, 1e-12), near(hi, 0.6, 1e-12);
    assert_string_equal(basis, "gpt_oss");
    assert_int_equal(n, 44);
    /* another MoE architecture: the MoE pool, no count of its own */
    snprintf(m.model_type, sizeof m.model_type, "mixtral");
    gpi_serve_error_range(c, &m, &lo, &hi, basis, sizeof basis, &n);
    near(lo, -0.3, 1e-12), near(hi, 0.4, 1e-12);
    assert_string_equal(basis, "MoE");
    assert_int_equal(n, 0);
    /* an architecture's range may leave the estimate out (gpuplan pessimistic on every run but a
     * tenth of them: -25% .. -1%) */
    m.experts = 0;
    snprintf(m.model_type, sizeof m.model_type, "mistral");
    gpi_serve_error_range(c, &m, &lo, &hi, basis, sizeof basis, &n);
    near(lo, -0.25, 1e-12), near(hi, -0.01, 1e-12);
    assert_string_equal(basis, "mistral");
    /* a dense model of no listed architecture: the dense pool */
    snprintf(m.model_type, sizeof m.model_type, "llama");
    gpi_serve_error_range(c, &m, &lo, &hi, basis, sizeof basis, &n);
    near(lo, -0.2, 1e-12), near(hi, 0.1, 1e-12);
    assert_string_equal(basis, "dense");
    assert_int_equal(n, 0);
    /* the callers that need no basis pass NULL */
    gpi_serve_error_range(c, &m, &lo, &hi, NULL, 0, NULL);
    near(hi, 0.1, 1e-12);
    gp_catalog_free(c);
    /* a bad group is refused when the catalog opens, naming the field: a pool that leaves the
     * estimate out, an architecture without its count of runs or listed twice, the dense pool
     * twice (a group without "moe" is dense), groups that are not a list */
    const char *bad[] = {"[{\"moe\": true, \"p10\": 0.1, \"p90\": 0.4}]",
                         "[{\"model_type\": \"x\", \"p10\": -0.1, \"p90\": 0.4}]",
                         ("[{\"model_type\": \"x\", \"p10\": -0.1, \"p90\": 0.4, \"cases\": 9},"
                          " {\"model_type\": \"x\", \"p10\": -0.1, \"p90\": 0.4, \"cases\": 9}]"),
                         "[{\"moe\": false, \"p10\": -0.1, \"p90\": 0.1}, {\"p10\": -0.2, \"p90\": 0.2}]", "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = fopen(path, "w");
        assert_non_null(f);
        fprintf(f, "{\"error_ranges\": {\"groups\": %s}}", bad[i]);
        fclose(f);
        gp_error err;
        assert_int_equal(gp_catalog_open(dir, &c, &err), GP_EPARSE);
        assert_string_equal(err.field, "error_ranges.groups");
    }
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decode_is_weights_at_achievable_hbm), cmocka_unit_test(prefill_is_gemm_rate_at_its_shape),
        cmocka_unit_test(fp8_speeds_only_the_gemms),           cmocka_unit_test(allreduce_on_the_measured_curve),
        cmocka_unit_test(allreduce_over_pcie_is_nccl),         cmocka_unit_test(engine_profiles_from_data),
        cmocka_unit_test(sched_config_follows_the_profile),    cmocka_unit_test(error_range_by_architecture),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
