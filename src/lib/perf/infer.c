/*
 * infer.c: time of one inference engine step on one replica (docs/serving.md, "Step time").
 *
 * A step runs every layer once over the batch's new tokens (prefill chunks plus one token per
 * decoding sequence). Per phase, the time is a roofline: max(FLOPs / (peak x e_c),
 * bytes / (HBM bandwidth x e_m)) (Williams, Waterman, Patterson 2009; the method of
 * LLM-Viewer, Yuan et al. 2024, and llm-analysis). Phases:
 *   linear     dense GEMMs (attention projections, dense MLP, shared experts): every weight
 *              read once per step, 2 FLOPs per parameter per token;
 *   experts    routed experts: each token computes top-k experts, but the step reads every
 *              expert the batch touches, E (1 - (1 - k/E)^T) of them for T tokens routed
 *              uniformly;
 *   attention  q.k and p.v over the context: 2 x heads x (d_qk + d_v) FLOPs per (query, key)
 *              pair; the KV of each scheduled sequence read once (FlashAttention/paged
 *              attention stream it), the new tokens' KV written;
 *   head       the LM head over the sequences that sample a token.
 * Plus communication: two ring all-reduces per layer under tensor parallelism
 * (Megatron-LM, Shoeybi et al. 2019, section 3), 2 (t-1)/t x bytes / link bandwidth + a
 * fixed latency each; an all-to-all dispatch and combine per MoE layer under expert
 * parallelism; activation transfers between pipeline stages. Plus a fixed per-step
 * overhead (scheduling, kernel launches, sampling). The step of a pipelined replica
 * traverses every stage (no micro-batch interleaving is modelled).
 */
#include "internal.h"

#include <math.h>
#include <string.h>

/* ---- calibrated constants (docs/serving.md, "Calibration": fitted on the TRT-LLM H100
 * rows of shared/validation, checked on the others) ---------------------------------------- */

/* Achieved fraction of the dense tensor-core peak in the GEMMs of a serving step. cuBLAS
 * reaches 70-80% of the H100 BF16 peak on large square GEMMs, less in FP8 and on the skinny
 * shapes of mixed prefill/decode batches (llm-analysis suggests 0.7 as flops efficiency).
 * Fitted: 0.50 on the TensorRT-LLM H100 rows (FP8) of shared/validation. */
#define GP_COMPUTE_EFFICIENCY 0.50
/* Achieved fraction of HBM bandwidth when streaming weights and KV: ~80-90% of the peak in
 * bandwidth tests (llm-analysis suggests hbm_memory_efficiency 0.9). Fitted: 0.85 on the
 * same rows. */
#define GP_BANDWIDTH_EFFICIENCY 0.85
/* Fixed cost per engine step, seconds: CPU scheduling, launches, sampling not hidden behind
 * the GPU. TensorRT-LLM (C++ runtime, CUDA graphs, overlap scheduler): fitted 0.5 ms on the
 * same rows. vLLM >= 0.6 (CUDA graphs, async output processing, multi-step/async
 * scheduling): 3 ms, assumed (no case of a current vLLM in shared/validation). vLLM 0.5's
 * larger Python-side overhead is a constant of the validation mapper, validate_serve.c. */
#define GP_STEP_OVERHEAD_TRTLLM_S 0.0005
#define GP_STEP_OVERHEAD_VLLM_S 0.0030
/* Fixed cost of one all-reduce: launch and synchronisation of the custom (one-shot) all-reduce
 * kernels vLLM and TensorRT-LLM use on NVLink for small messages; NCCL's ring latency on 8
 * NVLink GPUs is of the same order (tens of microseconds, nccl-tests). Assumed, not fitted. */
#define GP_COLLECTIVE_LATENCY_S 8e-6
/* Activations exchanged between GPUs are 16-bit. */
#define GP_ACT_BYTES 2.0
/* PCIe x16 per direction when the catalog gives no link (Gen4: 31.5 GB/s, PCI-SIG). */
#define GP_DEFAULT_PCIE_GBPS 31.5

void gp_perf_params_defaults(gp_perf_params *p, gp_engine engine)
{
    p->compute_efficiency = GP_COMPUTE_EFFICIENCY;
    p->bandwidth_efficiency = GP_BANDWIDTH_EFFICIENCY;
    p->step_overhead_s = engine == GP_ENGINE_TRTLLM ? GP_STEP_OVERHEAD_TRTLLM_S : GP_STEP_OVERHEAD_VLLM_S;
    p->collective_latency_s = GP_COLLECTIVE_LATENCY_S;
    p->seq_overhead_s = 0.0; /* C++ runtimes and vLLM >= 0.6: hidden behind the GPU step */
}

/* The GEMM precision: W8A8 / FP4 paths when the GPU has them, else 16-bit (weight-only
 * quantization dequantizes to 16 bits before the multiply). */
static double gemm_peak_tflops(const gp_gpu *g, gp_dtype wt)
{
    double bf16 = g->tflops[GP_DTYPE_BF16] > 0 ? g->tflops[GP_DTYPE_BF16] : g->tflops[GP_DTYPE_F16];
    switch (wt) {
    case GP_DTYPE_FP8:
        return g->tflops[GP_DTYPE_FP8] > 0 ? g->tflops[GP_DTYPE_FP8] : bf16;
    case GP_DTYPE_INT8:
        return g->tflops[GP_DTYPE_INT8] > 0 ? g->tflops[GP_DTYPE_INT8] : bf16;
    case GP_DTYPE_FP4:
    case GP_DTYPE_MXFP4:
        return g->tflops[GP_DTYPE_FP4] > 0 ? g->tflops[GP_DTYPE_FP4] : bf16;
    case GP_DTYPE_F32:
        return g->tflops[GP_DTYPE_F32] > 0 ? g->tflops[GP_DTYPE_F32] : bf16;
    default:
        return bf16;
    }
}

gp_status gp_step_model_init(const gp_model *m, const gp_gpu *gpu, const gp_link *link, const gp_workload *w,
                             const gp_layout *l, const gp_perf_params *params, gp_step_model *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (!m || !gpu || !w || !l)
        return gpi_fail(err, GP_EINVAL, "step model: model, GPU, workload and layout are required");
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (st)
        return st;
    if (l->tp < 1 || l->pp < 1 || l->ep < 1) {
        gpi_error_set_field(err, "layout");
        return gpi_fail(err, GP_EINVAL, "tp, pp and ep must be at least 1");
    }
    if (m->experts > 0 ? m->experts % l->ep != 0 : l->ep != 1) {
        gpi_error_set_field(err, "ep");
        return gpi_fail(err, GP_EINVAL, "ep=%d must divide the %lld routed experts", l->ep, (long long)m->experts);
    }
    if (params)
        out->params = *params;
    else
        gp_perf_params_defaults(&out->params, w->engine);
    const gp_perf_params *pp = &out->params;
    if (!(pp->compute_efficiency > 0 && pp->compute_efficiency <= 1 && pp->bandwidth_efficiency > 0 &&
          pp->bandwidth_efficiency <= 1 && pp->step_overhead_s >= 0 && pp->collective_latency_s >= 0 &&
          pp->seq_overhead_s >= 0))
        return gpi_fail(err, GP_EINVAL, "efficiencies must be in (0, 1] and overheads non-negative");

    gp_dtype wt = w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : m->quant != GP_DTYPE_UNKNOWN ? m->quant : m->dtype;
    if (wt == GP_DTYPE_UNKNOWN)
        wt = GP_DTYPE_BF16;
    gp_dtype kt = w->kv_dtype;
    if (kt == GP_DTYPE_UNKNOWN)
        kt = gp_dtype_bits(wt) >= 16.0 && wt != GP_DTYPE_F32 ? wt : GP_DTYPE_BF16;
    const double wbytes = gp_dtype_bits(wt) / 8.0;
    const double other_bytes = wbytes >= 2.0 ? wbytes : 2.0;
    const double tp = l->tp;
    double peak = gemm_peak_tflops(gpu, wt), peak16 = gemm_peak_tflops(gpu, GP_DTYPE_BF16);
    if (!(peak > 0) || !(gpu->hbm_bandwidth_gbps > 0)) {
        gpi_error_set_field(err, "gpu");
        return gpi_fail(err, GP_EINVAL, "GPU %s has no peak TFLOP/s or HBM bandwidth in the catalog", gpu->id);
    }
    out->tp = l->tp;
    out->pp = l->pp;
    out->ep = l->ep;
    out->peak_flops = peak * 1e12 * pp->compute_efficiency;
    out->attn_peak_flops = peak16 * 1e12 * pp->compute_efficiency;
    out->hbm_bytes_per_s = gpu->hbm_bandwidth_gbps * 1e9 * pp->bandwidth_efficiency;

    double dense = (double)(p.attention + p.mlp_dense + p.experts_shared + p.router);
    out->dense_weight_bytes = dense * wbytes / tp;
    out->dense_flops_per_token = 2.0 * dense / tp;
    if (m->experts > 0 && p.experts_routed > 0) {
        double per_expert = (double)p.experts_routed / (double)m->experts;
        out->experts = (double)m->experts;
        out->experts_active = (double)m->experts_active;
        out->expert_shards = l->ep > 1 ? (double)l->ep : tp;
        out->expert_bytes = per_expert * wbytes / out->expert_shards;
        out->expert_flops_per_token = 2.0 * out->experts_active * per_expert / out->expert_shards;
    }
    double head_params = (double)m->vocab * (double)m->hidden;
    out->head_bytes = head_params * other_bytes / tp;
    out->head_flops_per_seq = 2.0 * head_params / tp;

    int mla = m->kv_lora_rank > 0;
    double dqk = mla ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
    double dv = mla ? (double)m->v_head_dim : (double)m->head_dim;
    double heads_per_gpu = ceil((double)m->heads / tp);
    out->attn_flops_per_pair = 2.0 * heads_per_gpu * (dqk + dv) * (double)m->layers;
    double kv_share = 1.0;
    if (!mla && m->kv_heads > 0)
        kv_share = ceil((double)m->kv_heads / tp) / (double)m->kv_heads;
    out->kv_bytes_per_token = (double)gp_model_kv_bytes_per_token(m, kt) * kv_share;

    /* TP collectives: inside the scale-up domain over its links, else over `link` (PCIe) */
    double su = gpu->scale_up_gbps_bidir / 2.0;
    double host = link ? link->bw_gbps_per_direction : 0.0;
    if (!(host > 0))
        host = gpu->pcie_gen == 3 ? 15.75 : gpu->pcie_gen == 5 ? 63.0 : gpu->pcie_gen == 6 ? 121.0 : GP_DEFAULT_PCIE_GBPS;
    out->link_bytes_per_s = (l->tp <= gpu->scale_up_domain && su > 0 ? su : host) * 1e9;
    if (l->tp > 1) {
        out->allreduce_bytes_per_token = (double)m->hidden * GP_ACT_BYTES;
        out->allreduces = 2.0 * (double)m->layers;
    }
    if (l->ep > 1 && m->experts > 0) {
        double moe_layers = (double)(m->layers - m->dense_layers);
        double e = l->ep;
        out->a2a_bytes_per_token = 2.0 * out->experts_active * (double)m->hidden * GP_ACT_BYTES * (e - 1.0) / (e * e) *
                                   moe_layers;
    }
    if (l->pp > 1) {
        out->pp_bytes_per_token = (double)m->hidden * GP_ACT_BYTES * (double)(l->pp - 1);
        out->pp_link_bytes_per_s = out->link_bytes_per_s;
    }
    return GP_OK;
}

static double maxd(double a, double b) { return a > b ? a : b; }

double gp_step_time(const gp_step_model *sm, const gp_batch_shape *b, gp_step_breakdown *out)
{
    gp_step_breakdown d;
    memset(&d, 0, sizeof d);
    const double T = b->tokens;
    if (T <= 0 && b->sampled <= 0) {
        if (out)
            *out = d;
        return 0.0;
    }
    const double bw = sm->hbm_bytes_per_s;
    /* linear */
    double lf = T * sm->dense_flops_per_token, lb = sm->dense_weight_bytes;
    d.linear_s = maxd(lf / sm->peak_flops, lb / bw);
    d.compute_bound = lf / sm->peak_flops > lb / bw;
    /* routed experts: those the batch touches are read */
    double ef = 0, eb = 0;
    if (sm->experts > 0) {
        double touched = sm->experts * (1.0 - pow(1.0 - sm->experts_active / sm->experts, T));
        ef = T * sm->expert_flops_per_token;
        eb = touched * sm->expert_bytes;
        d.experts_s = maxd(ef / sm->peak_flops, eb / bw);
    }
    /* attention core */
    double af = b->attn_pairs * sm->attn_flops_per_pair;
    double ab = (b->kv_tokens + T) * sm->kv_bytes_per_token;
    d.attention_s = maxd(af / sm->attn_peak_flops, ab / bw);
    /* LM head */
    double hf = b->sampled * sm->head_flops_per_seq, hb = b->sampled > 0 ? sm->head_bytes : 0.0;
    d.head_s = maxd(hf / sm->attn_peak_flops, hb / bw);
    /* communication */
    if (sm->tp > 1) {
        double t = sm->tp;
        d.comm_s += sm->allreduces * (2.0 * (t - 1.0) / t * T * sm->allreduce_bytes_per_token / sm->link_bytes_per_s +
                                      sm->params.collective_latency_s);
    }
    if (sm->a2a_bytes_per_token > 0)
        d.comm_s += T * sm->a2a_bytes_per_token / sm->link_bytes_per_s;
    if (sm->pp > 1)
        d.comm_s += T * sm->pp_bytes_per_token / sm->pp_link_bytes_per_s + (sm->pp - 1) * sm->params.collective_latency_s;
    d.overhead_s = sm->params.step_overhead_s + sm->params.seq_overhead_s * b->sampled;
    d.flops = lf + ef + af + hf;
    d.bytes = lb + eb + ab + hb;
    d.total_s = d.linear_s + d.experts_s + d.attention_s + d.head_s + d.comm_s + d.overhead_s;
    if (out)
        *out = d;
    return d.total_s;
}

void gp_batch_prefill(gp_batch_shape *b, double prompt)
{
    b->tokens = prompt;
    b->sampled = 1;
    b->attn_pairs = prompt * (prompt + 1.0) / 2.0;
    b->kv_tokens = 0; /* the prompt's own KV is written (counted with the new tokens) */
}

void gp_batch_decode(gp_batch_shape *b, double batch, double context)
{
    b->tokens = batch;
    b->sampled = batch;
    b->attn_pairs = batch * (context + 1.0);
    b->kv_tokens = batch * context;
}
