/*
 * test_train_perf.c: the training step model (src/lib/perf/train.c) on the measured rates of
 * data/kernels.json, against figures worked by hand. A kernels.json in a temporary --data-dir
 * turns the fitted constants off (fractions 1, no shape penalty, no element-wise traffic, no
 * launch floor) so that each term is the table's rate and nothing else.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "hw/kernels.h"

static gp_catalog *cat;
static char dir[] = "/tmp/gp_train_perf_XXXXXX";
static char path[64];

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir))
        return -1;
    snprintf(path, sizeof path, "%s/kernels.json", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fputs("{\"fit\": {\"gemm_half_dim\": 0, \"gemm_train_fraction\": 1, \"attn_train_fraction\": 1,"
          " \"attn_train_fraction_cudnn\": 1, \"elementwise_h\": 0, \"elementwise_f\": 0,"
          " \"layer_overhead_us\": 0, \"range_p10\": -0.2, \"range_p90\": 0.25,"
          " \"range_moe_p10\": -0.3, \"range_moe_p90\": 0.5,"
          " \"range_by_model_type\": {\"gpt_oss\": {\"p10\": 0.1, \"p90\": 0.6, \"cases\": 16}}}}",
          f);
    fclose(f);
    return gp_catalog_open(dir, &cat, NULL) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    unlink(path);
    rmdir(dir);
    return 0;
}

/* One GPT layer: h 4096, 32 heads of 128, plain MLP f 16384, tied vocabulary 4096. */
static void one_layer(gp_model *m)
{
    memset(m, 0, sizeof *m);
    m->layers = 1, m->hidden = 4096, m->heads = 32, m->kv_heads = 32, m->head_dim = 128;
    m->ffn = 16384, m->vocab = 4096, m->mlp = GP_MLP_PLAIN, m->norm = GP_NORM_LAYER;
    m->norms_per_layer = 2, m->tied_embeddings = 1, m->dtype = GP_DTYPE_BF16;
    assert_int_equal(gp_model_validate(m, NULL), GP_OK);
}

static double compute_s_task(gp_dtype dt, gp_task task)
{
    gp_model m;
    one_layer(&m);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    gp_workload w;
    gpi_workload_defaults(&w, task);
    w.seq = 2048, w.dtype = dt, w.lora_rank = 16;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_train_perf p;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_int_equal(p.micro_batches, 1);
    /* no element-wise traffic, no launch floor: only the cross entropy over the vocabulary,
     * T x V x 8 B = 2048 x 4096 x 8 = 67,108,864 B at H100's 3015 GB/s achievable: 22.2583 us */
    assert_true(fabs(p.memory_s - 22.2583e-6) < 1e-10);
    /* the range: step x (1 + p10) .. step x (1 + p90) */
    assert_true(fabs(p.step_time_s_low - 0.8 * p.step_time_s) < 1e-12);
    assert_true(fabs(p.step_time_s_high - 1.25 * p.step_time_s) < 1e-12);
    return p.compute_s;
}

static double compute_s(gp_dtype dt)
{
    return compute_s_task(dt, GP_TASK_TRAIN);
}

/* compute_s on H100 under another training stack */
static double compute_s_fw(gp_dtype dt, gp_framework fw)
{
    gp_model m;
    one_layer(&m);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    c.framework = fw;
    c.attention = GP_ATTENTION_CUDNN; /* the kernel of bf16_step, whatever the stack */
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048, w.dtype = dt;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_train_perf p;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    return p.compute_s;
}

static void bf16_step(void **state)
{
    (void)state;
    /* T = 2048 tokens. GEMMs (H100 bf16 MAMF 794.5 TF; every dimension >= 2048 is compute-
     * bound: intensity >= 1024 FLOP/B x 3015 GB/s): q,k,v,o as one T x 4h x h and the MLP as
     * T x 2f x h: 2 x 2048 x 49152 x 4096 = 824.6 GFLOP forward, x 3 with the backward:
     * 3.11378 ms; the head T x V x h, 68.7 GFLOP x 3: 0.25948 ms. Attention (cuDNN, causal,
     * s = 2048): full work T x 2 x 32 x 256 x 2048 = 68.72 GFLOP, half counted; forward at
     * 484 TF: 70.99 us; backward 2.5 x at 465 x 484 / 617 = 364.76 TF: 235.49 us.
     * Sum: 3.67975 ms. */
    assert_true(fabs(compute_s(GP_DTYPE_BF16) - 3.67975e-3) < 2e-8);
}

static void fp8_only_gemms(void **state)
{
    (void)state;
    /* fp8: the layers' GEMMs at H100's fp8 MAMF 1402.6 TF (3.11378 ms x 794.5 / 1402.6 =
     * 1.76380 ms); Megatron-Core keeps the output head at 16 bits (0.25948 ms, a plain
     * ColumnParallelLinear outside Transformer Engine's fp8 autocast) and attention stays at its
     * 16-bit rate (306.48 us): 2.32976 ms */
    assert_true(fabs(compute_s(GP_DTYPE_FP8) - 2.32976e-3) < 2e-8);
    /* an FSDP stack (torchao's float8 converts every linear layer unless filtered): the head at
     * fp8 too, 0.25948 x 794.5 / 1402.6 = 0.14698 ms: 2.21727 ms */
    assert_true(fabs(compute_s_fw(GP_DTYPE_FP8, GP_FRAMEWORK_FSDP) - 2.21727e-3) < 2e-8);
    assert_true(fabs(compute_s_fw(GP_DTYPE_BF16, GP_FRAMEWORK_FSDP) - 3.67975e-3) < 2e-8);
}

static void lora_skips_frozen_gradients(void **state)
{
    (void)state;
    /* LoRA r = 16: the frozen weights' backward computes only the input gradient: 824.6 GFLOP
     * x 2 = 2.07585 ms; head and attention as in bf16_step (0.25948 + 0.30648 ms); adapters:
     * per layer an (in x r) and (r x out) GEMM over in + out = linear params / h + 7h = 49152 +
     * 28672 = 77824, as T x 16 x 38912 and T x 38912 x 16: intensity 2.55 GFLOP / 160.7 MB =
     * 15.87 FLOP/B x 3015 GB/s = 47.8 TF (memory-bound), 53.3 us each, x 3 passes: 319.79 us.
     * Sum: 2.96161 ms */
    assert_true(fabs(compute_s_task(GP_DTYPE_BF16, GP_TASK_LORA) - 2.96161e-3) < 2e-8);
}

/* The FLOP conventions (docs/performance.md, section 3) on one_layer at s = 2048: linear
 * parameters q, k, v, o 4h^2 = 67,108,864 + MLP 2hf = 134,217,728 = 201,326,592, the head
 * V h = 16,777,216: 6 x 218,103,808 = 1,308,622,848; attention 12 L a d s = 12 x 32 x 128 x
 * 2048 = 100,663,296 (PaLM appendix B; MPT's and NeMo's model TFLOP/s): 1,409,286,144 per
 * token. Selective recomputation adds the attention forward, 4 a d s = 33,554,432. */
static void flop_conventions(void **state)
{
    (void)state;
    gp_model m;
    one_layer(&m);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.recompute = GP_RECOMPUTE_SELECTIVE;
    gp_train_perf p;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.model_flops_per_token - 1409286144.0) < 1.0);
    assert_true(fabs(p.hw_flops_per_token - (1409286144.0 + 33554432.0)) < 1.0);
}

/* EP all-to-all, exposed or overlapped (gp_cluster.ep_overlap, Megatron-Core's
 * --overlap-moe-expert-parallel-comm). One MoE layer: h 4096, 32 heads of 128, 8 gated experts
 * of f 4096, top-2; 8 H100s, EP 8, s = 16384, one micro-batch. The dispatch of T x k x h x 2 B =
 * 16384 x 2 x 4096 x 2 = 268,435,456 B (256 MiB) runs at DeepEP's H800 share of the link, 450 x
 * 155.5 / 160 = 437.34375 GB/s, times the NVLink 4 curve's shape at 256 MiB (H200 all-reduce
 * 436.15 of 482.26): 395.528 GB/s; one all-to-all = 7/8 x 268,435,456 B / 395.528 GB/s =
 * 593.84 us; dispatch + combine, forward and backward: 4 x = 2.37537 ms, exposed by default.
 * Overlapped (Megatron-Core's combined 1F1B without pipelining), a micro-batch's forward runs
 * beside the previous one's backward and hides its all-to-alls behind the expert GEMMs (each
 * GPU's one expert sees 16384 x 2 x 8 / 8 = 32,768 tokens: 2 x 32768 x 12288 x 4096 = 3.298
 * TFLOP forward, 4.151 ms at 794.5 TF, 12.45 ms with the backward), but the first forward and
 * the last backward run alone: with one micro-batch
 * nothing hides (2.37537 ms), with four the step shows one micro-batch's worth (2.37537 ms)
 * against four times that exposed. */
static void ep_overlap(void **state)
{
    (void)state;
    gp_model m;
    memset(&m, 0, sizeof m);
    m.layers = 1, m.hidden = 4096, m.heads = 32, m.kv_heads = 32, m.head_dim = 128, m.ffn = 4096;
    m.vocab = 4096, m.mlp = GP_MLP_GATED, m.norms_per_layer = 2, m.tied_embeddings = 1, m.dtype = GP_DTYPE_BF16;
    m.experts = 8, m.experts_active = 2, m.moe_ffn = 4096;
    assert_int_equal(gp_model_validate(&m, NULL), GP_OK);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 16384;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 8, l.ep = 8, l.global_batch = 8;
    gp_train_perf p;
    assert_int_equal(c.ep_overlap, 0); /* Megatron-Core's default */
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_int_equal(p.micro_batches, 1);
    assert_true(fabs(p.ep_comm_s - 4.0 * 0.875 * 268435456.0 / (437.34375e9 * 436.15 / 482.26)) < 1e-9);
    /* a MoE model's range is the MoE one: step x (1 - 0.3) .. x (1 + 0.5); tokens/s / 1.5 .. / 0.7 */
    assert_true(fabs(p.step_time_s_low - 0.7 * p.step_time_s) < 1e-12);
    assert_true(fabs(p.step_time_s_high - 1.5 * p.step_time_s) < 1e-12);
    assert_true(fabs(p.tokens_per_s_high - p.tokens_per_s / 0.7) < 1e-9 * p.tokens_per_s);
    assert_string_equal(p.range_basis, "MoE");
    assert_int_equal(p.range_cases, 0);
    /* ... unless its architecture has its own: gpt_oss's 10th-90th percentile is +10% .. +60% in
     * this file, so the step takes x 1.1 .. x 1.6 and tokens/s / 1.6 .. / 1.1, both below the
     * estimate (gpuplan has been optimistic on those runs) */
    snprintf(m.model_type, sizeof m.model_type, "gpt_oss");
    gp_train_perf q;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &q, NULL), GP_OK);
    assert_true(fabs(q.step_time_s - p.step_time_s) < 1e-12);
    assert_true(fabs(q.step_time_s_low - 1.1 * q.step_time_s) < 1e-12);
    assert_true(fabs(q.step_time_s_high - 1.6 * q.step_time_s) < 1e-12);
    assert_true(fabs(q.tokens_per_s_high - q.tokens_per_s / 1.1) < 1e-9 * q.tokens_per_s);
    assert_true(q.tokens_per_s_high < q.tokens_per_s);
    assert_string_equal(q.range_basis, "gpt_oss");
    assert_int_equal(q.range_cases, 16);
    m.model_type[0] = '\0';
    double one = p.ep_comm_s;
    c.ep_overlap = 1;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.ep_comm_s - one) < 1e-12);
    l.global_batch = 32;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_int_equal(p.micro_batches, 4);
    assert_true(fabs(p.ep_comm_s - one) < 1e-12);
    c.ep_overlap = 0;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.ep_comm_s - 4.0 * one) < 1e-12);
}

/* One MoE layer: h 4096, 32 heads of 128, 8 gated experts of f 4096, top-2, vocabulary 4096. */
static void one_moe_layer(gp_model *m)
{
    memset(m, 0, sizeof *m);
    m->layers = 1, m->hidden = 4096, m->heads = 32, m->kv_heads = 32, m->head_dim = 128, m->ffn = 4096;
    m->vocab = 4096, m->mlp = GP_MLP_GATED, m->norms_per_layer = 2, m->tied_embeddings = 1, m->dtype = GP_DTYPE_BF16;
    m->experts = 8, m->experts_active = 2, m->moe_ffn = 4096;
    assert_int_equal(gp_model_validate(m, NULL), GP_OK);
}

/* EP over two 8-GPU nodes (16 H100s, EP 16, one MoE layer of 16 experts, top-2, h 4096,
 * s = 4096, one micro-batch). One dispatch is T x k x h x 2 = 4096 x 2 x 4096 x 2 = 67,108,864 B.
 * NCCL's all-to-all sends half of it (the 8 peers on the other node) through the GPU's 50 GB/s
 * NIC at DeepEP's internode rate, 44.5 of 50 GB/s (data/kernels.json deepep-h800-a2a-inter):
 * 33,554,432 / 44.5e9 = 754.032 us, beside NVLink's 7/16 share (shorter), plus 15 x 8 us of
 * step latency: 874.032 us; four per step (dispatch, combine, forward and backward). DeepEP
 * sends a token once per other node that holds one of its 2 experts: 1 - (1/2)^2 = 3/4 of a
 * copy, 4096 x 4096 x 2 x 3/4 = 25,165,824 B: 565.524 us + 120 us. Under TP 2 (sequence
 * parallel) each GPU dispatches its own half of the tokens: 16,777,216 B off the node,
 * 377.016 us + 120 us. */
static void ep_across_nodes(void **state)
{
    (void)state;
    gp_model m;
    one_moe_layer(&m);
    m.experts = 16;
    assert_int_equal(gp_model_validate(&m, NULL), GP_OK);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    assert_int_equal(c.gpus_per_node, 8);
    assert_int_equal(c.ep_dispatcher, GP_EP_DISPATCHER_ALLTOALL);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 4096;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 16, l.ep = 16, l.global_batch = 16;
    gp_train_perf p;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.ep_comm_s - 4.0 * (33554432.0 / 44.5e9 + 15 * 8e-6)) < 1e-9);
    c.ep_dispatcher = GP_EP_DISPATCHER_DEEPEP;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.ep_comm_s - 4.0 * (25165824.0 / 44.5e9 + 15 * 8e-6)) < 1e-9);
    /* overlapped across nodes, the all-to-all hides behind the other micro-batch's whole
     * compute (attention and expert GEMMs: 2 x 4096 x (4 x 4096^2 + 2 x 3 x 4096^2) = 1.37
     * TFLOP forward, about 5 ms with the backward, more than the 3.5 ms of all-to-all): of four
     * micro-batches, only the first forward's and the last backward's show, one micro-batch's
     * worth */
    c.ep_overlap = 1, l.global_batch = 64;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_int_equal(p.micro_batches, 4);
    assert_true(fabs(p.ep_comm_s - 4.0 * (25165824.0 / 44.5e9 + 15 * 8e-6)) < 1e-9);
    c.ep_overlap = 0;
    c.ep_dispatcher = GP_EP_DISPATCHER_ALLTOALL;
    l.tp = 2, l.dp = 8, l.sequence_parallel = 1, l.global_batch = 8;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.ep_comm_s - 4.0 * (16777216.0 / 44.5e9 + 15 * 8e-6)) < 1e-9);
    /* whole experts, 16 / 16 per GPU, and one expert-data-parallel rank (t d / e = 2 x 8 / 16):
     * the distributed optimizer's shard holds the dense parameters over TP x DP and 1/16 of the
     * routed experts, 30 bytes each over HBM (section 2's optimizer step) */
    l.zero = 1;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    gp_param_breakdown pb;
    assert_int_equal(gp_model_params(&m, &pb, NULL), GP_OK);
    double dense = (double)(pb.total - pb.embedding - pb.head - pb.experts_routed) + (double)pb.embedding;
    double shard = dense / 2.0 / 8.0 + (double)pb.experts_routed / 16.0;
    assert_true(fabs(p.optimizer_s - shard * 30.0 / gpi_hbm_bw(c.rates)) < 1e-12);
    assert_int_equal(gpi_ep_dispatcher_parse("HybridEP"), GP_EP_DISPATCHER_HYBRIDEP);
    assert_int_equal(gpi_ep_dispatcher_parse("flex"), GP_EP_DISPATCHER_DEEPEP);
    assert_int_equal(gpi_ep_dispatcher_parse("nccl"), GP_EP_DISPATCHER_COUNT);
}

/* The memory-bound traffic of an MoE layer, counted (no fitted constant): one_moe_layer on one
 * H100, s = 16384, one micro-batch (T = 16384), element-wise terms off. Token permutation to
 * expert order and back, forward and backward: T x k x h x 8 B = 16384 x 2 x 4096 x 8 =
 * 1,073,741,824 B; the router's scores T x E x 28 B = 3,670,016 B; the cross entropy T x V x 8 B
 * = 536,870,912 B: 1,614,282,752 B at 3015 GB/s = 535.417 us. Biases inside the experts
 * (gpt-oss) add the per-expert bias step, T x k x h x (12 + 12) B = 3,221,225,472 B: 1068.40 us. */
static void moe_memory_traffic(void **state)
{
    (void)state;
    gp_model m;
    one_moe_layer(&m);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 16384;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_train_perf p;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.memory_s - 535.417e-6) < 2e-9);
    m.expert_bias = 1;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    assert_true(fabs(p.memory_s - (535.417e-6 + 1068.400e-6)) < 2e-9);
}

/* Megatron-Core's selective modules (--recompute-modules): each named module's forward runs again.
 * one_layer, s = 2048 (T = 2048), fractions 1, element-wise terms off (the cross entropy alone:
 * 22.2583 us of memory-bound time, compute_s). core_attn (the default of selective) repeats the
 * attention forward: 3.67975 ms (bf16_step) + 70.99 us = 3.75074 ms. layernorm repeats the two
 * norms' forward, read + write of h per norm: T x 4h x 2 B = 67,108,864 B = 22.2583 us more memory
 * time and no attention. mlp repeats the MLP's GEMMs, T x 2f x h: 2 x 2048 x 32768 x 4096 =
 * 549.76 GFLOP at 794.5 TF = 691.952 us, and its (plain) activation, read f + write f:
 * T x 2f x 2 B = 134,217,728 B = 44.5167 us. one_moe_layer, s = 16384 (moe_memory_traffic's
 * 535.417 us): moe repeats the permutation forward (T k h x 4 B = 536,870,912 B), the router's
 * forward scores (T E x 16 B = 2,097,152 B) and the gated experts' activation (read 2, write 1 of
 * k f: T x 3 x 8192 x 2 B = 805,306,368 B): 1,344,274,432 B = 445.862 us; moe_act that
 * activation alone, 267.100 us. */
static double perf_with(gp_model *m, int64_t seq, gp_recompute r, unsigned mods, double *memory_s)
{
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    c.attention = GP_ATTENTION_CUDNN;
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = seq;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.recompute = r, l.recompute_modules = mods;
    gp_train_perf p;
    assert_int_equal(gpi_train_perf_estimate(m, g, &c, &w, &l, 0, &p, NULL), GP_OK);
    *memory_s = p.memory_s;
    return p.compute_s;
}

static void recompute_modules(void **state)
{
    (void)state;
    gp_model m;
    one_layer(&m);
    double mem, ce = 22.2583e-6;
    assert_true(fabs(perf_with(&m, 2048, GP_RECOMPUTE_NONE, 0, &mem) - 3.67975e-3) < 2e-8);
    assert_true(fabs(perf_with(&m, 2048, GP_RECOMPUTE_SELECTIVE, 0, &mem) - 3.75074e-3) < 2e-8);
    assert_true(fabs(perf_with(&m, 2048, GP_RECOMPUTE_SELECTIVE, GP_RECOMPUTE_CORE_ATTN, &mem) - 3.75074e-3) < 2e-8);
    assert_true(fabs(perf_with(&m, 2048, GP_RECOMPUTE_SELECTIVE, GP_RECOMPUTE_LAYERNORM, &mem) - 3.67975e-3) < 2e-8);
    assert_true(fabs(mem - 2.0 * ce) < 1e-10);
    assert_true(fabs(perf_with(&m, 2048, GP_RECOMPUTE_SELECTIVE, GP_RECOMPUTE_MLP, &mem) - (3.67975e-3 + 691.952e-6)) <
                2e-8);
    assert_true(fabs(mem - (ce + 44.5167e-6)) < 1e-10);
    one_moe_layer(&m);
    perf_with(&m, 16384, GP_RECOMPUTE_NONE, 0, &mem);
    assert_true(fabs(mem - 535.417e-6) < 2e-9);
    perf_with(&m, 16384, GP_RECOMPUTE_SELECTIVE, GP_RECOMPUTE_MOE, &mem);
    assert_true(fabs(mem - (535.417e-6 + 445.862e-6)) < 2e-9);
    perf_with(&m, 16384, GP_RECOMPUTE_SELECTIVE, GP_RECOMPUTE_MOE_ACT, &mem);
    assert_true(fabs(mem - (535.417e-6 + 267.100e-6)) < 2e-9);
}

/* A sliding-window layer computes whole 128-key tiles: with a window of 128 keys about 128 + 2 x
 * 128 = 384 keys per query, unmasked. one_layer made two layers, one of them windowed, s = 2048
 * (T = 2048): the window layer's work T x 2 x 32 x 256 x 384 = 12,884,901,888 FLOP at cuDNN's
 * non-causal H100 rates of its shortest measured sequence (512: 497 TF forward, 305 TF backward):
 * 25.925 us + 2.5 x 42.246 us = 131.540 us, where the full causal layer took 306.48 us (bf16_step):
 * the windowed model computes 174.94 us less. */
static void sliding_window_tiles(void **state)
{
    (void)state;
    gp_model m;
    one_layer(&m);
    m.layers = 2;
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_train_perf full, win;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &full, NULL), GP_OK);
    m.sliding_window = 128, m.sliding_layers = 1;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &win, NULL), GP_OK);
    assert_true(fabs((full.compute_s - win.compute_s) - 174.94e-6) < 2e-8);
}

/* CUDA graphs replay launches without the host: a catalog whose fit charges 1 ms of host time
 * per layer per micro-batch. One dense layer: 1 ms without graphs, none with per-layer or
 * full-iteration graphs. One (dropless) MoE layer: 1 ms without graphs and with per-layer graphs
 * (Megatron-Core cannot capture it: its token counts go to the host), none with a graph of the
 * whole iteration. Memory traffic as counted elsewhere; s = 2048, one micro-batch. */
static void cuda_graphs(void **state)
{
    (void)state;
    char d[] = "/tmp/gp_train_graphs_XXXXXX", kp[64];
    assert_non_null(mkdtemp(d));
    snprintf(kp, sizeof kp, "%s/kernels.json", d);
    FILE *f = fopen(kp, "w");
    assert_non_null(f);
    fputs("{\"fit\": {\"gemm_half_dim\": 0, \"gemm_train_fraction\": 1, \"attn_train_fraction\": 1,"
          " \"elementwise_h\": 0, \"elementwise_f\": 0, \"layer_overhead_us\": 1000,"
          " \"range_p10\": -0.2, \"range_p90\": 0.25}}",
          f);
    fclose(f);
    gp_catalog *c1;
    assert_int_equal(gp_catalog_open(d, &c1, NULL), GP_OK);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(c1, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_model dense, moe;
    one_layer(&dense);
    one_moe_layer(&moe);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048;
    gp_layout l;
    gpi_layout_defaults(&l);
    static const double host_ms[GP_CUDA_GRAPHS_COUNT][2] = {{1, 1}, {0, 1}, {0, 0}}; /* dense, MoE */
    for (int k = 0; k < GP_CUDA_GRAPHS_COUNT; k++) {
        gp_cluster c;
        gpi_cluster_defaults(&c, c1, g, NULL);
        c.cuda_graphs = (gp_cuda_graphs)k;
        gp_train_perf p0, p1, b0, b1;
        gp_cluster c0 = c;
        c0.cuda_graphs = GP_CUDA_GRAPHS_FULL; /* the same traffic without host time */
        assert_int_equal(gpi_train_perf_estimate(&dense, g, &c, &w, &l, 0, &p0, NULL), GP_OK);
        assert_int_equal(gpi_train_perf_estimate(&dense, g, &c0, &w, &l, 0, &b0, NULL), GP_OK);
        assert_int_equal(gpi_train_perf_estimate(&moe, g, &c, &w, &l, 0, &p1, NULL), GP_OK);
        assert_int_equal(gpi_train_perf_estimate(&moe, g, &c0, &w, &l, 0, &b1, NULL), GP_OK);
        assert_true(fabs(p0.memory_s - b0.memory_s - host_ms[k][0] * 1e-3) < 1e-12);
        assert_true(fabs(p1.memory_s - b1.memory_s - host_ms[k][1] * 1e-3) < 1e-12);
    }
    assert_int_equal(gpi_cuda_graphs_parse("full_iteration"), GP_CUDA_GRAPHS_FULL);
    assert_int_equal(gpi_cuda_graphs_parse("bogus"), GP_CUDA_GRAPHS_COUNT);
    assert_string_equal(gpi_cuda_graphs_name(GP_CUDA_GRAPHS_LAYER), "layer");
    gp_catalog_free(c1);
    unlink(kp);
    rmdir(d);
}

/* DeepSpeed ZeRO-3 at scale: GPT-3 175B data-parallel only on 1,024 A100s over HDR. FSDP2's
 * per-layer gathers hide behind each layer's compute (~150 ms against ~30 ms of traffic);
 * DeepSpeed gathers 6 modules per layer, each hidden only behind the compute of the 5e7
 * parameters it prefetches (1.8 B per layer: 2.8% of a pass), each paying 1,023 ring hops of
 * 8 us: its exposed traffic is more than ten times FSDP's. An invariant, with the built-in
 * (fitted) constants. */
static void deepspeed_zero3_at_scale(void **state)
{
    (void)state;
    gp_catalog *c0;
    assert_int_equal(gp_catalog_open(NULL, &c0, NULL), GP_OK);
    gp_model m;
    assert_int_equal(gp_catalog_find_model(c0, "gpt-3-175b", &m, NULL), GP_OK);
    const gp_gpu *g;
    const gpi_link *hdr;
    assert_int_equal(gp_catalog_find_gpu(c0, "A100-SXM-80GB", &g, NULL), GP_OK);
    assert_int_equal(gpi_catalog_find_link(c0, "ib-hdr", &hdr, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, c0, g, hdr);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 1024, l.zero = 3, l.recompute = GP_RECOMPUTE_FULL, l.global_batch = 2048;
    gp_train_perf fsdp, ds;
    c.framework = GP_FRAMEWORK_FSDP;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &fsdp, NULL), GP_OK);
    c.framework = GP_FRAMEWORK_DEEPSPEED;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &ds, NULL), GP_OK);
    assert_true(ds.dp_comm_s > 10.0 * fsdp.dp_comm_s);
    assert_true(ds.step_time_s > fsdp.step_time_s);
    assert_true(fabs(ds.compute_s - fsdp.compute_s) < 1e-9); /* same kernels: only overlap differs */
    gp_catalog_free(c0);
}

/* torchao.float8's casts (gp_cluster.fp8_recipe), memory-bound passes at 16 bits around every
 * fp8 linear: one_layer in fp8 on one H100 under FSDP, s = 2048 (T = 2048), no recomputation.
 * Per token, elements cast: attention inputs 3 h (q, k, v) + 4096 (o's input, the q width) =
 * 16,384, output gradients h (o) + (2 x 4096 + 2 x 4096 - 4096) (q, k, v) = 16,384; the plain
 * MLP's inputs h + f = 20,480 and gradients f + h = 20,480: 73,728 elements. Tensorwise casts
 * 4 B each (read 16-bit, write fp8 twice), rowwise 6 B (torchao's roofline_utils.py with the
 * amax fused into the producer): 2048 x 73,728 x 4 = 603,979,776 B at 3015 GB/s = 200.325 us,
 * x 6 / 4 = 300.487 us; Transformer Engine's fused casts add nothing. */
static void fp8_casts(void **state)
{
    (void)state;
    gp_model m;
    one_layer(&m);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    c.framework = GP_FRAMEWORK_FSDP;
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048, w.dtype = GP_DTYPE_FP8;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_train_perf fused, tw, rw, dflt;
    c.fp8_recipe = GP_FP8_RECIPE_FUSED;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &fused, NULL), GP_OK);
    c.fp8_recipe = GP_FP8_RECIPE_TENSORWISE;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &tw, NULL), GP_OK);
    c.fp8_recipe = GP_FP8_RECIPE_ROWWISE;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &rw, NULL), GP_OK);
    c.fp8_recipe = GP_FP8_RECIPE_DEFAULT; /* FSDP: torchao tensorwise */
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &dflt, NULL), GP_OK);
    assert_true(fabs((tw.memory_s - fused.memory_s) - 200.325e-6) < 1e-9);
    assert_true(fabs((rw.memory_s - fused.memory_s) - 300.487e-6) < 1e-9);
    assert_true(dflt.memory_s == tw.memory_s);
    assert_true(tw.compute_s == fused.compute_s);
    c.framework = GP_FRAMEWORK_MEGATRON; /* Transformer Engine by default */
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &dflt, NULL), GP_OK);
    assert_true(dflt.memory_s == fused.memory_s);
    assert_int_equal(gpi_fp8_recipe_parse("rowwise"), GP_FP8_RECIPE_ROWWISE);
    assert_int_equal(gpi_fp8_recipe_parse("te"), GP_FP8_RECIPE_FUSED);
    assert_int_equal(gpi_fp8_recipe_parse("blockwise"), GP_FP8_RECIPE_COUNT);
}

/* An FSDP stack's async TP (gp_cluster.tp_overlap) hides the forward's TP collectives behind the
 * forward GEMMs, not the backward's: one_layer, TP 2 with sequence parallelism, s = 2048, no
 * recomputation (one forward, one backward pass of collectives). The forward's two collectives
 * of 2048 x 4096 x 2 B (16.8 MB, tens of us over NVLink) sit far under its GEMMs (2 x 2048 x
 * 201,326,592 / 2 FLOP at 794.5 TF = 519 us): the exposed TP time halves exactly. */
static void async_tp(void **state)
{
    (void)state;
    gp_model m;
    one_layer(&m);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    c.framework = GP_FRAMEWORK_FSDP;
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 2048;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 2, l.sequence_parallel = 1;
    gp_train_perf vanilla, overlapped;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &vanilla, NULL), GP_OK);
    c.tp_overlap = 1;
    assert_int_equal(gpi_train_perf_estimate(&m, g, &c, &w, &l, 0, &overlapped, NULL), GP_OK);
    assert_true(vanilla.tp_comm_s > 0.0);
    assert_true(fabs(overlapped.tp_comm_s - vanilla.tp_comm_s / 2.0) < 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(bf16_step),
                                       cmocka_unit_test(fp8_only_gemms),
                                       cmocka_unit_test(lora_skips_frozen_gradients),
                                       cmocka_unit_test(flop_conventions),
                                       cmocka_unit_test(ep_overlap),
                                       cmocka_unit_test(ep_across_nodes),
                                       cmocka_unit_test(deepspeed_zero3_at_scale),
                                       cmocka_unit_test(moe_memory_traffic),
                                       cmocka_unit_test(recompute_modules),
                                       cmocka_unit_test(sliding_window_tiles),
                                       cmocka_unit_test(cuda_graphs),
                                       cmocka_unit_test(fp8_casts),
                                       cmocka_unit_test(async_tp)};
    return cmocka_run_group_tests(tests, setup, teardown);
}
