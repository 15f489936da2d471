/*
 * train.c: time of one training step under a parallel layout.
 *
 * One micro-batch on one GPU of the slowest pipeline stage:
 *   compute  = matmul FLOPs / (dense peak x GEMM efficiency x shape factor)
 *            + causal attention FLOPs / (dense peak x attention efficiency)
 *     forward matmul FLOPs = 2 x tokens x active linear parameters of the stage / TP
 *     backward = 2 x forward (activation and weight gradients); recomputation adds one
 *     forward (full) or the attention forward (selective) (Narayanan et al. 2021, sec. 5.1).
 *     The shape factor d/(d + d_half) charges the small GEMMs left after TP splits the
 *     hidden size d (cuBLAS efficiency falls with the smallest GEMM dimension).
 *   memory   = bytes of memory-bound work (norms, residual adds, activation functions,
 *              rotary, dropout-free softmax statistics) / (HBM bandwidth x efficiency)
 *   TP       = per layer 2 all-reduces forward and 2 backward of tokens x h x 2 bytes
 *              (reduce-scatter + all-gather with sequence parallelism: the same bytes),
 *              2 more per recomputed forward (Korthikanti et al. 2022, sec. 4.2.2)
 *   CP       = ring exchange of K and V, overlapped with attention; only the excess shows
 *   EP       = all-to-all dispatch and combine, forward and backward
 * A step is m micro-batches through a pipeline of p stages with v virtual stages:
 *   pipeline = (m + (p - 1) / v) x t_microbatch       (1F1B; Narayanan et al. 2021, sec. 2.2)
 * plus data-parallel communication: a gradient all-reduce (ZeRO-1/2: reduce-scatter +
 * all-gather, the same bytes) overlapped with the last micro-batch's backward; ZeRO-3/FSDP
 * gathers parameters for every micro-batch's forward and backward and reduce-scatters
 * gradients, overlapped with compute by prefetching (Zhao et al. 2023, PyTorch FSDP, sec. 4).
 * plus the optimizer step, bound by HBM bandwidth.
 * Collectives: ring algorithm, time = steps x latency + volume / bus bandwidth, volume
 * 2(n-1)/n x bytes for all-reduce, (n-1)/n x bytes for all-gather / reduce-scatter (NCCL
 * performance docs); a group spanning nodes runs at the per-GPU network bandwidth.
 *
 * FLOP conventions (docs/performance.md): model FLOPs per token = 6 x (active linear
 * parameters + head) + 12 x layers x heads x head_dim x seq (PaLM, Chowdhery et al. 2022,
 * appendix B; Megatron's formula counts attention the same way); hardware FLOPs add the
 * recomputed forward. The calibrated constants are few and physical; see GP_TRAIN_* below.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

/* ---- calibrated constants (docs/performance.md, "Calibration") ---- */
/* Fraction of the dense peak large GEMMs reach in training (cuBLAS on A100/H100 reaches
 * 70-90% of peak on large bf16 GEMMs); fitted: 0.80. */
#define GP_TRAIN_GEMM_EFFICIENCY 0.80
/* Width at which a GEMM runs at half its large-shape efficiency: the shape factor is
 * d / (d + GP_TRAIN_GEMM_HALF_DIM) for the per-GPU hidden width d (fitted on MPT sizes). */
#define GP_TRAIN_GEMM_HALF_DIM 100.0 /* fitted */
/* Attention is charged the whole s x s score work (the model-FLOP convention) at this
 * fraction of the 16-bit peak. Causal kernels that skip the masked half at ~60% of peak
 * (FlashAttention-2 reports 50-73% of A100 peak, Dao 2023 sec. 4.1) take the same time;
 * fitted: 0.30. */
#define GP_TRAIN_ATTN_EFFICIENCY 0.30
/* Share of the full score work the attention kernels are charged (see above). */
#define GP_TRAIN_ATTN_WORK_FRACTION 1.0
/* Memory-bound traffic per token per layer, forward + backward, in units of h x 2 bytes:
 * two norms (read, write, and backward re-reads), two residual adds, rotary, dropout-free
 * softmax statistics, and the activation function over the MLP width (counted apart, in
 * units of f x 2 bytes); kernel-launch gaps show up here too. Fitted (120 and 12) on the
 * MPT A100 spread of model sizes: small models feel it most. */
#define GP_TRAIN_ELEMENTWISE_H 120.0
#define GP_TRAIN_ELEMENTWISE_F 12.0
/* Fraction of HBM bandwidth streaming kernels reach (STREAM-like copies reach ~90%). */
#define GP_TRAIN_HBM_EFFICIENCY 0.85
/* Fraction of the link bandwidth NCCL collectives reach as bus bandwidth (nccl-tests on
 * NVLink and InfiniBand report ~75-90%). */
#define GP_NCCL_BW_EFFICIENCY 0.8
/* Latency per ring step of a collective: NCCL's low-latency protocol takes ~1-2 us per
 * NVLink hop (an 8-GPU NVSwitch all-reduce of a few KB completes in ~20-30 us, 14 steps);
 * a hop over InfiniBand/RoCE costs several us (NVIDIA's aiconfigurator uses 10 us flat). */
#define GP_COLLECTIVE_STEP_LATENCY_S 2e-6
#define GP_COLLECTIVE_STEP_LATENCY_INTER_S 8e-6
/* Bytes of optimizer traffic per parameter for AdamW (fp32 master, m, v: read + write,
 * gradient read, 16-bit weight write). */
#define GP_OPTIMIZER_BYTES_PER_PARAM 30.0
/* InfiniBand NDR, one 400 Gb/s NIC per GPU (DGX H100), when no inter-node link is given. */
#define GP_DEFAULT_INTER_GBPS 50.0

void gp_cluster_defaults(gp_cluster *c, const gp_catalog *cat, const gp_gpu *gpu, const gp_link *inter)
{
    memset(c, 0, sizeof *c);
    c->gpus_per_node = gpu->scale_up_domain >= 8 ? gpu->scale_up_domain : 8;
    if (c->gpus_per_node > 72)
        c->gpus_per_node = 72;
    const gp_link *intra = cat ? gp_catalog_gpu_link(cat, gpu) : NULL;
    if (gpu->scale_up_domain >= 4 && gpu->scale_up_gbps_bidir > 0) {
        c->intra_gbps = gpu->scale_up_gbps_bidir / 2.0;
        gpi_strlcpy(c->intra_name, gpu->scale_up_name, sizeof c->intra_name);
    } else if (intra) {
        c->intra_gbps = intra->bw_gbps_per_direction;
        gpi_strlcpy(c->intra_name, intra->id, sizeof c->intra_name);
    } else {
        c->intra_gbps = 31.5; /* PCIe 4 x16 */
        gpi_strlcpy(c->intra_name, "pcie4", sizeof c->intra_name);
    }
    if (inter) {
        c->inter_gbps = inter->bw_gbps_per_direction;
        gpi_strlcpy(c->inter_name, inter->id, sizeof c->inter_name);
    } else {
        c->inter_gbps = GP_DEFAULT_INTER_GBPS;
        gpi_strlcpy(c->inter_name, "ib-ndr", sizeof c->inter_name);
    }
}

/* Ring collective over n ranks: all-reduce (factor 2) or all-gather/reduce-scatter (1);
 * `inter` when the ring crosses nodes (higher step latency). */
static double ring_time(double bytes, int n, double gbps, int allreduce, int inter)
{
    if (n <= 1 || bytes <= 0)
        return 0.0;
    double k = allreduce ? 2.0 : 1.0;
    double bw = gbps * 1e9 * GP_NCCL_BW_EFFICIENCY;
    double lat = inter ? GP_COLLECTIVE_STEP_LATENCY_INTER_S : GP_COLLECTIVE_STEP_LATENCY_S;
    return k * (n - 1) * lat + k * (double)(n - 1) / n * bytes / bw;
}

static int crosses(const gp_cluster *c, int n, int stride)
{
    return (int64_t)n * stride > c->gpus_per_node;
}

/* Bus bandwidth of a group of n ranks whose members are `stride` GPUs apart in rank order.
 * Inside a node: the scale-up link. Across nodes, NCCL splits the collective into one ring
 * per NIC and moves each node's share over NVLink, so the k members sharing a node pool
 * their k NICs: min(intra, k x inter) (nccl-tests on 8 x HDR DGX A100 nodes reach
 * ~190 GB/s all-reduce bus bandwidth, eight times one NIC). */
static double group_gbps(const gp_cluster *c, int n, int stride)
{
    if (n <= 1 || (int64_t)n * stride <= c->gpus_per_node)
        return c->intra_gbps;
    int k = stride < c->gpus_per_node ? c->gpus_per_node / stride : 1;
    if (k > n)
        k = n;
    double bw = c->inter_gbps * k;
    return bw < c->intra_gbps ? bw : c->intra_gbps;
}

static double peak_tflops(const gp_gpu *g, gp_dtype t)
{
    double p = g->tflops[t];
    if (p <= 0)
        p = g->tflops[GP_DTYPE_BF16] > 0 ? g->tflops[GP_DTYPE_BF16] : g->tflops[GP_DTYPE_F16];
    return p;
}

gp_status gp_train_perf_estimate(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c,
                                 const gp_workload *w, const gp_layout *l, double train_tokens,
                                 gp_train_perf *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (st)
        return st;
    if (l->tp < 1 || l->pp < 1 || l->dp < 1 || l->cp < 1 || l->ep < 1 || l->micro_batch < 1 || l->pp > m->layers) {
        gpi_error_set_field(err, "layout");
        return gpi_fail(err, GP_EINVAL, "every parallel degree and the micro-batch must be at least 1, and pp at most the layers");
    }
    if (!c || c->intra_gbps <= 0 || c->inter_gbps <= 0 || c->gpus_per_node < 1) {
        gpi_error_set_field(err, "cluster");
        return gpi_fail(err, GP_EINVAL, "the cluster needs GPUs per node and positive link bandwidths");
    }
    int64_t gb = l->global_batch > 0 ? l->global_batch : (int64_t)l->dp * l->micro_batch;
    if (gb % ((int64_t)l->dp * l->micro_batch) != 0) {
        gpi_error_set_field(err, "global_batch");
        return gpi_fail(err, GP_EINVAL, "global batch %lld is not a multiple of dp x micro-batch = %lld",
                        (long long)gb, (long long)l->dp * l->micro_batch);
    }
    if (w->seq < 1 || w->seq % l->cp != 0) {
        gpi_error_set_field(err, "seq");
        return gpi_fail(err, GP_EINVAL, "sequence length %lld must be a positive multiple of cp = %d",
                        (long long)w->seq, l->cp);
    }
    gp_dtype cdt = w->dtype == GP_DTYPE_FP8 || w->dtype == GP_DTYPE_FP4 ? w->dtype : GP_DTYPE_BF16;
    const double peak = peak_tflops(gpu, cdt) * 1e12;
    const double peak16 = peak_tflops(gpu, GP_DTYPE_BF16) * 1e12;
    const double hbm = gpu->hbm_bandwidth_gbps * 1e9 * GP_TRAIN_HBM_EFFICIENCY;
    if (peak <= 0 || hbm <= 0) {
        gpi_error_set_field(err, "gpu");
        return gpi_fail(err, GP_EINVAL, "GPU %s has no dense peak or memory bandwidth in the catalog", gpu->id);
    }
    const double L = (double)m->layers, h = (double)m->hidden, tp = l->tp, seq = (double)w->seq;
    const int64_t m_micro = gb / ((int64_t)l->dp * l->micro_batch);
    const double tokens_mb = (double)l->micro_batch * seq / l->cp; /* per GPU per micro-batch */
    const double stage_layers = ceil(L / l->pp);
    const double moe_frac = m->experts > 0 ? (double)(m->layers - m->dense_layers) / L : 0.0;

    /* --- compute per micro-batch on the slowest stage ------------------------------- */
    const double lin_per_layer = (double)p.linear_active / L;            /* active, whole layer */
    const double head = (double)m->vocab * h;                            /* the output projection */
    const double dqk = m->kv_lora_rank > 0 ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
    const double dv = m->kv_lora_rank > 0 ? (double)m->v_head_dim : (double)m->head_dim;
    double attn_ctx = seq; /* keys each query sees, full (model-FLOP convention) */
    double attn_layers_full = L, attn_layers_win = 0;
    if (m->sliding_window > 0 && m->sliding_window < w->seq) {
        attn_layers_win = (double)m->sliding_layers;
        attn_layers_full = L - attn_layers_win;
    }
    /* forward attention FLOPs per token per layer (QK^T and AV), full convention */
    const double attn_fwd_tok_layer = 2.0 * (double)m->heads * (dqk + dv) * attn_ctx;
    const double attn_fwd_tok_layer_win = 2.0 * (double)m->heads * (dqk + dv) * (double)m->sliding_window;

    double d_gemm = h / tp;
    double shape = d_gemm / (d_gemm + GP_TRAIN_GEMM_HALF_DIM);
    double gemm_rate = peak * GP_TRAIN_GEMM_EFFICIENCY * shape;
    double attn_rate = peak16 * GP_TRAIN_ATTN_EFFICIENCY * shape; /* flash attention runs in 16 bits */

    /* forward passes of the matmuls: full recomputation repeats the forward; op-level
     * checkpointing recomputes every other matmul */
    double fwd_passes = 1.0 + (l->recompute == GP_RECOMPUTE_FULL ? 1.0 : l->recompute == GP_RECOMPUTE_OP ? 0.5 : 0.0);
    double attn_fwd_passes = 1.0 + (l->recompute == GP_RECOMPUTE_FULL || l->recompute == GP_RECOMPUTE_SELECTIVE ? 1.0 : 0.0);
    /* matmul work on the stage (fwd + bwd + recompute), per micro-batch per GPU */
    double stage_lin = lin_per_layer * stage_layers / tp;
    /* the last stage (the slowest) also runs the output head, which is never recomputed */
    double mm_flops = 2.0 * tokens_mb * (stage_lin * (2.0 + fwd_passes) + head / tp * 3.0);
    double stage_frac = stage_layers / L;
    double attn_tok = (attn_layers_full * attn_fwd_tok_layer + attn_layers_win * attn_fwd_tok_layer_win) *
                      GP_TRAIN_ATTN_WORK_FRACTION * stage_frac;
    double attn_flops = tokens_mb * attn_tok / tp * (2.0 + attn_fwd_passes);
    double t_compute = mm_flops / gemm_rate + attn_flops / attn_rate;

    /* memory-bound work */
    double f_act = m->experts > 0 ? (double)(m->experts_active * m->moe_ffn) * moe_frac + (double)m->ffn * (1 - moe_frac)
                                  : (double)m->ffn;
    double sp = l->sequence_parallel ? tp : 1.0;
    double elem_bytes = tokens_mb * stage_layers * 2.0 *
                        (GP_TRAIN_ELEMENTWISE_H * h / sp + GP_TRAIN_ELEMENTWISE_F * f_act / tp) *
                        (fwd_passes + 2.0) / 3.0;
    double t_memory = elem_bytes / hbm;

    /* tensor parallel: 2 collectives forward, 2 backward, 2 per recomputed forward */
    int stride_tp = 1;
    double tp_bw = group_gbps(c, l->tp, stride_tp);
    double tp_bytes = tokens_mb * h * 2.0;
    double n_tp_coll = stage_layers * (2.0 * fwd_passes + 2.0);
    double t_tp = l->tp > 1 ? n_tp_coll * ring_time(tp_bytes, l->tp, tp_bw, 1, crosses(c, l->tp, 1)) : 0.0;

    /* context parallel: K and V of the local chunk travel cp-1 hops per layer, fwd + bwd */
    double t_cp = 0.0;
    if (l->cp > 1) {
        double kv_bytes = tokens_mb * 2.0 * (double)(m->kv_heads * m->head_dim) / tp * 2.0;
        double cp_bw = group_gbps(c, l->cp, l->tp) * 1e9 * GP_NCCL_BW_EFFICIENCY;
        double lat = crosses(c, l->cp, l->tp) ? GP_COLLECTIVE_STEP_LATENCY_INTER_S : GP_COLLECTIVE_STEP_LATENCY_S;
        double t_comm = stage_layers * 3.0 * (l->cp - 1) * kv_bytes / cp_bw;
        double t_attn = attn_flops / attn_rate;
        /* the ring overlaps with attention; its per-hop latency does not hide */
        t_cp = (t_comm > t_attn ? t_comm - t_attn : 0.0) + stage_layers * 3.0 * (l->cp - 1) * lat;
    }

    /* expert parallel: dispatch + combine, forward and backward, per MoE layer */
    double t_ep = 0.0;
    if (m->experts > 0 && l->ep > 1) {
        double a2a_bytes = tokens_mb * h * 2.0 * (double)m->experts_active * (l->ep - 1) / l->ep;
        double ep_bw = group_gbps(c, l->ep, l->tp) * 1e9 * GP_NCCL_BW_EFFICIENCY;
        t_ep = stage_layers * moe_frac * (2.0 * fwd_passes + 2.0) * a2a_bytes / ep_bw;
    }

    /* pipeline: activations to the next stage, forward and backward */
    double t_pp = 0.0;
    if (l->pp > 1) {
        double pp_bw = group_gbps(c, 2, l->tp * l->cp * l->dp) * 1e9 * GP_NCCL_BW_EFFICIENCY;
        t_pp = 2.0 * tokens_mb * h * 2.0 / sp / pp_bw + 2.0 * GP_COLLECTIVE_STEP_LATENCY_S;
    }
    double t_mb = t_compute + t_memory + t_tp + t_cp + t_ep + t_pp;

    /* --- data parallel and ZeRO ------------------------------------------------------ */
    double stage_params = ((double)(p.total - p.embedding - p.head) * stage_layers / L +
                           (double)(m->tied_embeddings ? p.embedding : p.head)) / tp;
    int dp_group = l->dp * l->cp;
    double dp_bw = group_gbps(c, dp_group, l->tp);
    double t_dp = 0.0, t_fsdp_mb = 0.0;
    double bwd_share = t_compute * 2.0 / (2.0 + fwd_passes); /* backward part of a micro-batch */
    if (dp_group > 1) {
        int x = crosses(c, dp_group, l->tp);
        double ag = ring_time(stage_params * 2.0, dp_group, dp_bw, 0, x);
        double rs = ring_time(stage_params * 2.0, dp_group, dp_bw, 0, x);
        if (l->zero >= 3) {
            /* per micro-batch: all-gather (fwd), all-gather (bwd), reduce-scatter grads */
            double comm = ag * (1.0 + (l->recompute == GP_RECOMPUTE_FULL ? 1.0 : 0.0)) + ag + rs;
            t_fsdp_mb = comm > t_mb ? comm - t_mb : 0.0; /* prefetch overlaps with compute */
        } else if (l->zero == 2 && m_micro > 1) {
            /* sharded gradients: reduce-scatter every micro-batch's gradients (overlapped with
             * its backward), then all-gather the updated weights once per step */
            t_fsdp_mb = rs > bwd_share ? rs - bwd_share : 0.0;
            t_dp = ag;
        } else {
            double ar = ring_time(stage_params * 2.0, dp_group, dp_bw, 1, x);
            t_dp = ar > bwd_share ? ar - bwd_share : 0.0; /* bucketed, overlapped with backward */
        }
    }
    double t_mb_total = t_mb + t_fsdp_mb;
    double v = l->virtual_stages > 1 ? (double)l->virtual_stages : 1.0;
    double bubble = l->pp > 1 ? (double)(l->pp - 1) / v * t_mb_total : 0.0;
    double pipeline = (double)m_micro * t_mb_total + bubble;

    /* optimizer step on this GPU's shard */
    double opt_params = stage_params / (l->zero >= 1 ? (double)dp_group : 1.0);
    double t_opt = opt_params * GP_OPTIMIZER_BYTES_PER_PARAM / hbm;

    out->step_time_s = pipeline + t_dp + t_opt;
    double mm = (double)m_micro;
    out->compute_s = mm * t_compute;
    out->memory_s = mm * t_memory;
    out->tp_comm_s = mm * t_tp;
    out->cp_comm_s = mm * t_cp;
    out->ep_comm_s = mm * t_ep;
    out->pp_comm_s = mm * t_pp;
    out->dp_comm_s = t_dp + mm * t_fsdp_mb;
    out->bubble_s = bubble;
    out->optimizer_s = t_opt;
    out->micro_batches = m_micro;
    out->gpus = gp_layout_gpus(l);

    double tokens_step = (double)gb * seq;
    out->tokens_per_s = tokens_step / out->step_time_s;
    out->tokens_per_s_per_gpu = out->tokens_per_s / out->gpus;
    double attn_model = 2.0 * (attn_layers_full * attn_fwd_tok_layer + attn_layers_win * attn_fwd_tok_layer_win);
    out->model_flops_per_token = 6.0 * ((double)p.linear_active + head) + 3.0 * attn_model;
    double extra = 0.0;
    if (l->recompute == GP_RECOMPUTE_FULL)
        extra = 2.0 * (double)p.linear_active + attn_model; /* layers only; the head is not recomputed */
    else if (l->recompute == GP_RECOMPUTE_SELECTIVE)
        extra = attn_model;
    else if (l->recompute == GP_RECOMPUTE_OP)
        extra = (double)p.linear_active; /* half the matmuls' forward again */
    out->hw_flops_per_token = out->model_flops_per_token + extra;
    out->model_tflops_per_gpu = out->model_flops_per_token * out->tokens_per_s_per_gpu / 1e12;
    out->hw_tflops_per_gpu = out->hw_flops_per_token * out->tokens_per_s_per_gpu / 1e12;
    out->mfu = out->model_tflops_per_gpu * 1e12 / peak;
    out->hfu = out->hw_tflops_per_gpu * 1e12 / peak;
    if (train_tokens > 0)
        out->time_to_train_s = train_tokens / out->tokens_per_s;
    return GP_OK;
}
