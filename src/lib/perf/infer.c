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
#include "hw/kernels.h"

#include <math.h>
#include <string.h>

/* ---- calibrated constants (docs/serving.md, "Calibration": fitted on the TRT-LLM H100
 * rows of validation/public.jsonl, checked on the others) ---------------------------------------- */

/* Achieved fraction of the dense tensor-core peak in the GEMMs of a serving step. cuBLAS
 * reaches 70-80% of the H100 BF16 peak on large square GEMMs, less in FP8 and on the skinny
 * shapes of mixed prefill/decode batches (llm-analysis suggests 0.7 as flops efficiency).
 * Fitted: 0.50 on the TensorRT-LLM H100 rows (FP8) of validation/public.jsonl. */
#define GP_COMPUTE_EFFICIENCY 0.50
/* Achieved fraction of HBM bandwidth when streaming weights and KV: ~80-90% of the peak in
 * bandwidth tests (llm-analysis suggests hbm_memory_efficiency 0.9). Fitted: 0.85 on the
 * same rows. */
#define GP_BANDWIDTH_EFFICIENCY 0.85
/* Fixed cost per engine step, seconds: CPU scheduling, launches, sampling not hidden behind
 * the GPU. TensorRT-LLM (C++ runtime, CUDA graphs, overlap scheduler): fitted 0.5 ms on the
 * same rows. vLLM >= 0.6 (CUDA graphs, async output processing, multi-step/async
 * scheduling): 3 ms, assumed (no case of a current vLLM in validation/). vLLM 0.5's
 * larger Python-side overhead is a constant of the validation mapper, validate_serve.c. */
#define GP_STEP_OVERHEAD_TRTLLM_S 0.0005
#define GP_STEP_OVERHEAD_VLLM_S   0.0030
/* Fixed cost of one all-reduce: launch and synchronisation of the custom (one-shot) all-reduce
 * kernels vLLM and TensorRT-LLM use on NVLink for small messages; NCCL's ring latency on 8
 * NVLink GPUs is of the same order (tens of microseconds, nccl-tests). Assumed, not fitted. */
#define GP_COLLECTIVE_LATENCY_S 8e-6
/* Activations exchanged between GPUs are 16-bit. */
#define GP_ACT_BYTES 2.0

/* Expert load of the busiest GPU over the mean under expert parallelism. With the
 * engines' load balancers (DeepSeek's EPLB, vLLM --enable-eplb, SGLang --enable-eplb)
 * replicating hot experts, the busiest GPU carries ~1.1-1.3x the mean; without, more.
 * Assumed 1.2 (docs/serving.md, "Expert parallelism"); not fitted. */
#define GP_EXPERT_IMBALANCE 1.2
/* One all-to-all (dispatch or combine) inside a node: a launch plus a barrier of the EP
 * group, of the order of the all-reduce latency; assumed 2x it. */
#define GP_A2A_LATENCY_S 16e-6
/* Added per collective that crosses nodes: InfiniBand/RoCE small-message latency of a few
 * microseconds per hop plus the proxy thread of NCCL/NVSHMEM; assumed 15 us. */
#define GP_INTER_NODE_LATENCY_S 15e-6
/* Network per GPU between nodes when none is named: 400 Gb/s (InfiniBand NDR, one NIC per
 * GPU as in DGX H100/H200 nodes): 50 GB/s per direction. */
#define GP_DEFAULT_INTER_GBPS 50.0

void gpi_perf_params_defaults(gpi_perf_params *p, gp_engine engine)
{
    p->compute_efficiency = GP_COMPUTE_EFFICIENCY;
    p->bandwidth_efficiency = GP_BANDWIDTH_EFFICIENCY;
    p->step_overhead_s = engine == GP_ENGINE_TRTLLM ? GP_STEP_OVERHEAD_TRTLLM_S : GP_STEP_OVERHEAD_VLLM_S;
    p->collective_latency_s = GP_COLLECTIVE_LATENCY_S;
    p->seq_overhead_s = 0.0; /* C++ runtimes and vLLM >= 0.6: hidden behind the GPU step */
    p->a2a_latency_s = GP_A2A_LATENCY_S;
    p->expert_imbalance = GP_EXPERT_IMBALANCE;
    p->inter_node_latency_s = GP_INTER_NODE_LATENCY_S;
    p->gemm_fraction = 0.0; /* GP_SERVE_GEMM_FRACTION */
    p->eager_layer_s = 0.0; /* the engine profiles set theirs (data/engines.json eager_layer_us) */
    p->host_overlap = 0;    /* serial host work; the engine profiles set theirs */
    p->dp_balance = 0;      /* attention-DP ranks schedule their prefills independently */
}

/* The GEMM precision: W8A8 / FP4 paths when the GPU has them, else 16-bit (weight-only
 * quantization dequantizes to 16 bits before the multiply). */
static double gemm_peak_tflops(const gp_gpu *g, gp_dtype wt)
{
    double bf16 = g->tflops[GP_DTYPE_BF16] > 0 ? g->tflops[GP_DTYPE_BF16] : g->tflops[GP_DTYPE_F16];
    /* a catalog GPU with only its low-precision peak: 16-bit is half the FP8 rate, a quarter
     * of the FP4 rate, the tensor-core ratio of every NVIDIA generation since Hopper */
    if (!(bf16 > 0))
        bf16 = g->tflops[GP_DTYPE_FP8] > 0 ? g->tflops[GP_DTYPE_FP8] / 2.0 : g->tflops[GP_DTYPE_FP4] / 4.0;
    switch (wt) {
    case GP_DTYPE_FP8: return g->tflops[GP_DTYPE_FP8] > 0 ? g->tflops[GP_DTYPE_FP8] : bf16;
    case GP_DTYPE_INT8: return g->tflops[GP_DTYPE_INT8] > 0 ? g->tflops[GP_DTYPE_INT8] : bf16;
    case GP_DTYPE_FP4:
    case GP_DTYPE_MXFP4: return g->tflops[GP_DTYPE_FP4] > 0 ? g->tflops[GP_DTYPE_FP4] : bf16;
    case GP_DTYPE_F32: return g->tflops[GP_DTYPE_F32] > 0 ? g->tflops[GP_DTYPE_F32] : bf16;
    default: return bf16;
    }
}

int gpi_serve_node_gpus(const gp_gpu *gpu)
{
    return gpu && gpu->scale_up_domain > 1 ? gpu->scale_up_domain : 8;
}

/* The weight and compute precisions, and the KV precision. */
static void step_dtypes(const gp_model *m, const gp_workload *w, gp_dtype *wt, gp_dtype *kt)
{
    *wt = w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : m->quant != GP_DTYPE_UNKNOWN ? m->quant : m->dtype;
    if (*wt == GP_DTYPE_UNKNOWN)
        *wt = GP_DTYPE_BF16;
    *kt = w->kv_dtype;
    if (*kt == GP_DTYPE_UNKNOWN)
        *kt = gp_dtype_bits(*wt) >= 16.0 && *wt != GP_DTYPE_F32 ? *wt : GP_DTYPE_BF16;
}

static gp_status check_layout(const gp_model *m, const gp_layout *l, gp_error *err)
{
    if (l->tp < 1 || l->pp < 1 || l->ep < 1 || l->dp < 1) {
        gpi_error_set_field(err, "layout");
        return gpi_fail(err, GP_EINVAL, "tp, pp, ep and dp must be at least 1");
    }
    if (m->experts > 0 ? m->experts % l->ep != 0 : l->ep != 1) {
        gpi_error_set_field(err, "ep");
        return gpi_fail(err, GP_EINVAL, "ep=%d must divide the %lld routed experts", l->ep, (long long)m->experts);
    }
    if (l->ep > 1 && (l->tp * l->dp) % l->ep != 0) {
        gpi_error_set_field(err, "ep");
        return gpi_fail(err, GP_EINVAL, "ep=%d must divide tp x dp = %d: experts are spread over those GPUs", l->ep,
                        l->tp * l->dp);
    }
    if (l->dp > 1 && (m->experts <= 0 || l->ep != l->tp * l->dp)) {
        gpi_error_set_field(err, "dp");
        return gpi_fail(err, GP_EINVAL,
                        "attention data parallelism inside a replica (dp=%d) needs a MoE model with ep = tp x dp = %d "
                        "(vLLM --enable-expert-parallel, SGLang --enable-dp-attention); a dense model's data "
                        "parallelism is replicas",
                        l->dp, l->tp * l->dp);
    }
    if ((int64_t)l->tp * l->pp * l->dp > 4096) {
        gpi_error_set_field(err, "layout");
        return gpi_fail(err, GP_EINVAL, "a replica of %lld GPUs is beyond the model's range (4096)",
                        (long long)l->tp * l->pp * l->dp);
    }
    return GP_OK;
}

static gp_status check_params(const gpi_perf_params *pp, gp_error *err)
{
    if (!(pp->compute_efficiency > 0 && pp->compute_efficiency <= 1 && pp->bandwidth_efficiency > 0 &&
          pp->bandwidth_efficiency <= 1 && pp->step_overhead_s >= 0 && pp->collective_latency_s >= 0 &&
          pp->seq_overhead_s >= 0 && pp->a2a_latency_s >= 0 && pp->inter_node_latency_s >= 0 &&
          pp->gemm_fraction >= 0 && pp->gemm_fraction <= 1 &&
          (pp->expert_imbalance == 0 || (pp->expert_imbalance >= 1 && pp->expert_imbalance <= 64))))
        return gpi_fail(err, GP_EINVAL,
                        "efficiencies and the GEMM fraction must be in (0, 1], overheads non-negative and expert "
                        "imbalance 1 to 64");
    return GP_OK;
}

/* Routed experts: per GPU bytes of one expert and FLOPs per token (docs/serving.md). */
static void step_experts(const gp_model *m, const gp_param_breakdown *p, const gp_layout *l, double wbytes,
                         const gpi_perf_params *pp, gpi_step_model *out)
{
    if (m->experts <= 0 || p->experts_routed <= 0)
        return;
    double per_expert = (double)p->experts_routed / (double)m->experts;
    double imb = l->ep > 1 ? (pp->expert_imbalance > 0 ? pp->expert_imbalance : GP_EXPERT_IMBALANCE) : 1.0;
    out->experts = (double)m->experts;
    out->experts_active = (double)m->experts_active;
    /* EP spreads whole experts (each split over tp x dp / ep GPUs) over the tp x dp GPUs of
     * a stage; without EP each expert is split over TP */
    out->expert_shards = l->ep > 1 ? (double)(l->tp * l->dp) : (double)l->tp;
    out->expert_bytes = per_expert * wbytes / out->expert_shards;
    out->expert_flops_per_token = 2.0 * out->experts_active * per_expert / out->expert_shards * imb;
    out->expert_token_scale = (double)l->dp;
}

/* Element-wise traffic of a step, counted (not fitted), forward only, 16-bit activations:
 * per layer a fused residual add + RMSNorm before attention and before the MLP (read x and
 * the residual, write both: 4 x h each); the activation function (SwiGLU: read gate and up,
 * write the product: 3 x its width, split over TP); per routed (token, expert) pair the
 * permutation to expert order and back (read + write h, twice) and the experts' activation
 * function. The training model counts the same terms forward and backward (kernels.json
 * fit.elementwise_note). */
#define GP_SERVE_NORM_UNITS    8.0
#define GP_SERVE_ACT_UNITS     3.0
#define GP_SERVE_PERMUTE_UNITS 4.0
static void step_elementwise(const gp_model *m, const gp_layout *l, gp_engine engine, gpi_step_model *out)
{
    const double h = (double)m->hidden, tp = (double)l->tp;
    int moe_layers = m->experts > 0 ? m->layers - m->dense_layers : 0;
    double mlp_width = m->mlp == GP_MLP_PLAIN ? GP_SERVE_ACT_UNITS - 1.0 : GP_SERVE_ACT_UNITS;
    /* TensorRT-LLM fuses the residual add and RMSNorm into the TP all-reduce kernel
     * (AllReduceFusionOp.RESIDUAL_RMS_NORM, tensorrt_llm/_torch/models/modeling_llama.py): under
     * TP their traffic is the all-reduce's own */
    double norms = engine == GP_ENGINE_TRTLLM && l->tp > 1 ? 0.0 : GP_SERVE_NORM_UNITS * h;
    out->elementwise_bytes_per_token =
        GP_ACT_BYTES * ((double)m->layers * norms + (double)(m->layers - moe_layers) * mlp_width * (double)m->ffn / tp);
    if (moe_layers > 0 && m->experts_active > 0) {
        /* an expert split over tp x dp / ep GPUs (EP) or tp (no EP) computes its share of the
         * activation; the permutation moves whole rows on every GPU that holds the expert */
        double split = l->ep > 1 ? (double)(l->tp * l->dp) / (double)l->ep : tp;
        out->moe_elementwise_bytes_per_pair =
            GP_ACT_BYTES * (double)moe_layers * (GP_SERVE_PERMUTE_UNITS * h + mlp_width * (double)m->moe_ffn / split);
    }
}

/* GEMM shapes per GPU for the measured rates: one fused N per family with K = d. */
static void step_shapes(const gp_model *m, const gp_param_breakdown *p, const gp_layout *l, double dense,
                        gpi_step_model *out)
{
    const double d = (double)m->hidden, layers = (double)m->layers;
    out->hidden = d;
    out->dense_width = dense / (layers * d * (double)l->tp);
    int moe_layers = m->layers - m->dense_layers;
    if (m->experts > 0 && p->experts_routed > 0 && moe_layers > 0) {
        double per_expert_layer = (double)p->experts_routed / (double)m->experts / (double)moe_layers;
        /* under EP a GPU computes whole experts (split over tp x dp / ep GPUs); else 1/tp */
        double split = l->ep > 1 ? (double)(l->tp * l->dp) / (double)l->ep : (double)l->tp;
        out->expert_width = per_expert_layer / (d * split);
    }
    out->head_width = (double)m->vocab / (double)l->tp;
    int mla = m->kv_lora_rank > 0;
    out->attn_head_dim =
        mla ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim) / 2.0 : (double)m->head_dim;
}

/* Attention core and KV: MLA's latent is replicated over TP, GQA's heads split. */
static void step_attention(const gp_model *m, const gp_layout *l, gp_dtype kt, gpi_step_model *out)
{
    const double tp = l->tp;
    int mla = m->kv_lora_rank > 0;
    double dqk = mla ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
    double dv = mla ? (double)m->v_head_dim : (double)m->head_dim;
    double heads_per_gpu = ceil((double)m->heads / tp);
    out->attn_flops_per_pair = 2.0 * heads_per_gpu * (dqk + dv) * (double)m->layers;
    double kv_share = 1.0;
    if (!mla && m->kv_heads > 0)
        kv_share = ceil((double)m->kv_heads / tp) / (double)m->kv_heads;
    out->kv_bytes_per_token_replica = (double)gp_model_kv_bytes_per_token(m, kt);
    if (m->sliding_window > 0 && m->sliding_layers > 0 && m->layers > 0) {
        out->window = (double)m->sliding_window;
        out->window_share = (double)m->sliding_layers / (double)m->layers;
    }
    out->kv_bytes_per_token = out->kv_bytes_per_token_replica * kv_share;
    out->layers = (double)m->layers;
}

/* Bytes (in units of the hidden size) one token of a rank exchanges per MoE layer under EP:
 *  - attention DP inside one node outside a multi-node NVLink domain: every rank's tokens are
 *    all-gathered to every GPU in the expert GEMM's input format and the outputs
 *    reduce-scattered in 16 bits: (g - 1) x (act + 2). TensorRT-LLM's CutlassFusedMoE does
 *    this unless its MNNVL all-to-all is available (GB200/GB300 NVL72; tensorrt_llm/_torch/
 *    modules/fused_moe/fused_moe_cutlass.py, alltoall_method_type, v1.0), as vLLM's
 *    allgather_reducescatter all2all backend and SGLang's DP attention do by default;
 *  - else (an NVL72 domain, or an EP group over nodes, where the engines run DeepEP or
 *    TensorRT-LLM's wide-EP all-to-all) an all-to-all that sends a token once to each other
 *    GPU holding one of its k experts: with experts spread evenly over g
 *    GPUs, a GPU holds none of the k with probability C(E - E/g, k) / C(E, k), so
 *    (g - 1) (1 - that) copies, each dispatched (act) and combined (16 bits). */
static double moe_exchange_bytes(const gp_model *m, const gp_layout *l, const gp_gpu *gpu, double act, int *allgather)
{
    double g = (double)(l->tp * l->dp), E = (double)m->experts, k = (double)m->experts_active;
    *allgather = l->dp > 1 && !(gpu->scale_up_domain > 8) && l->tp * l->dp <= gpi_serve_node_gpus(gpu);
    if (*allgather)
        return (g - 1.0) * (act + GP_ACT_BYTES);
    double miss = 1.0, per = E / g;
    for (double i = 0; i < k && i < E; i += 1.0)
        miss *= E - per - i > 0 ? (E - per - i) / (E - i) : 0.0;
    return (g - 1.0) * (1.0 - miss) * (act + GP_ACT_BYTES);
}

/* Links: TP inside a node over the scale-up domain (or PCIe), across nodes over `inter`;
 * the EP all-to-all splits its bytes between the two; pipeline boundaries cross nodes when
 * the replica spans several. */
static void step_links(const gp_model *m, const gp_gpu *gpu, const gpi_link *intra, const gpi_link *inter,
                       const gp_layout *l, double act_bytes, gpi_step_model *out)
{
    const int node = gpi_serve_node_gpus(gpu);
    double su = gpu->scale_up_domain > 1 ? gpu->scale_up_gbps_bidir / 2.0 : 0.0;
    double host = intra ? intra->bw_gbps_per_direction : 0.0;
    if (!(host > 0))
        host = gpi_gpu_pcie_gbps(gpu); /* data/links.json pcie<gen>, through the catalog */
    double in_node = (su > 0 ? su : host) * 1e9 * gpi_cal_scale(gpu->cal_intra_scale); /* a profile's */
    double net = (inter && inter->bw_gbps_per_direction > 0 ? inter->bw_gbps_per_direction : GP_DEFAULT_INTER_GBPS) *
                 1e9 * gpi_cal_scale(gpu->cal_inter_scale);
    double net_lat = out->params.inter_node_latency_s + (inter ? inter->latency_us * 1e-6 : 0.0);
    int gpus = l->tp * l->pp * l->dp;
    out->nodes = (gpus + node - 1) / node;
    /* a PCIe box with no catalog link and TP beyond it used PCIe before nodes existed */
    out->link_bytes_per_s = l->tp <= node ? in_node : net;
    out->tp_latency_s = out->params.collective_latency_s + (l->tp > node ? net_lat : 0.0);
    if (l->tp > 1) {
        out->allreduce_bytes_per_token = (double)m->hidden * GP_ACT_BYTES;
        out->allreduces = 2.0 * (double)m->layers;
    }
    int group = l->tp * l->dp;
    if (l->ep > 1 && m->experts > 0 && group > 1) {
        double moe_layers = (double)(m->layers - m->dense_layers);
        double g = group, h = (double)m->hidden;
        /* per token of this rank, per GPU (its 1/tp share of the rank's tokens), per MoE layer:
         * dispatched in the expert GEMM's input format (act_bytes), combined in 16 bits */
        double per_token_layer = moe_exchange_bytes(m, l, gpu, act_bytes, &out->moe_allgather) * h / (double)l->tp;
        out->a2a_bytes_per_token = per_token_layer * moe_layers;
        int local = group < node ? group : node;
        out->a2a_intra_share = (double)(local - 1) / (g - 1.0);
        out->a2a_inter_bytes_per_s = net;
        out->a2a_count = 2.0 * moe_layers;
        out->a2a_latency_s = (out->params.a2a_latency_s > 0 ? out->params.a2a_latency_s : GP_A2A_LATENCY_S) +
                             (group > node ? net_lat : 0.0);
    }
    if (l->pp > 1) {
        out->pp_bytes_per_token = (double)m->hidden * GP_ACT_BYTES * (double)(l->pp - 1);
        out->pp_link_bytes_per_s = out->nodes > 1 ? net : in_node;
        out->pp_latency_s = out->params.collective_latency_s + (out->nodes > 1 ? net_lat : 0.0);
    }
}

/* Whether the engine's own all-reduce kernels run on a TP group of `tp` GPUs, or NCCL does.
 * They do inside one NVLink domain. Otherwise TensorRT-LLM's AUTO strategy takes NCCL: a group
 * without NVLink between every pair, or one that spans nodes (which setGroupTopology marks as
 * without peer access), falls back to it (AllreducePlugin::selectImplementation,
 * "isAuto && !mIsNVLINKSupported", NVIDIA/TensorRT-LLM @005b299b
 * cpp/tensorrt_llm/plugins/ncclPlugin/allreducePlugin.cpp); vLLM (SGLang shares its kernel)
 * keeps CustomAllreduce only on two PCIe GPUs of one node ("not supported on more than two
 * PCIe-only GPUs", vllm/distributed/device_communicators/custom_all_reduce.py). */
static int engine_custom_ar(const gp_gpu *gpu, gp_engine engine, int tp)
{
    if (gpu->scale_up_domain > 1 && tp <= gpu->scale_up_domain)
        return 1;
    return engine != GP_ENGINE_TRTLLM && tp <= 2 && tp <= gpi_serve_node_gpus(gpu);
}

gp_status gpi_step_model_init_nodes(const gp_model *m, const gp_gpu *gpu, const gpi_link *intra, const gpi_link *inter,
                                    const gp_workload *w, const gp_layout *l, const gpi_perf_params *params,
                                    gpi_step_model *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (!m || !gpu || !w || !l)
        return gpi_fail(err, GP_EINVAL, "step model: model, GPU, workload and layout are required");
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (st || (st = check_layout(m, l, err)))
        return st;
    if (params)
        out->params = *params;
    else
        gpi_perf_params_defaults(&out->params, w->engine);
    if ((st = check_params(&out->params, err)))
        return st;
    const gpi_perf_params *pp = &out->params;
    gp_dtype wt, kt;
    step_dtypes(m, w, &wt, &kt);
    const double wbytes = gp_dtype_bits(wt) / 8.0;
    const double other_bytes = wbytes >= 2.0 ? wbytes : 2.0;
    const double tp = l->tp;
    double peak = gemm_peak_tflops(gpu, wt), peak16 = gemm_peak_tflops(gpu, GP_DTYPE_BF16);
    if (!(peak > 0) || !(gpu->hbm_bandwidth_gbps > 0)) {
        gpi_error_set_field(err, "gpu");
        return gpi_fail(err, GP_EINVAL, "GPU %s has no peak TFLOP/s or HBM bandwidth in the catalog", gpu->id);
    }
    out->gemm_format = (int)gpi_kdtype_of(wt);
    out->tp = l->tp;
    out->pp = l->pp;
    out->ep = l->ep;
    out->dp = l->dp;
    out->expert_token_scale = 1.0;
    out->peak_flops = peak * 1e12 * pp->compute_efficiency;
    out->attn_peak_flops = peak16 * 1e12 * pp->compute_efficiency;
    out->hbm_bytes_per_s = gpu->hbm_bandwidth_gbps * 1e9 * pp->bandwidth_efficiency;
    gpi_cal_step_model(gpu, gpi_cal_dtype(wt), w->engine, out); /* a profile's rates (docs/calibration.md) */

    double dense = (double)(p.attention + p.mlp_dense + p.experts_shared + p.router);
    out->dense_weight_bytes = dense * wbytes / tp;
    out->dense_flops_per_token = 2.0 * dense / tp;
    step_experts(m, &p, l, wbytes, pp, out);
    step_shapes(m, &p, l, dense, out);
    step_elementwise(m, l, w->engine, out);
    double head_params = (double)m->vocab * (double)m->hidden;
    out->head_bytes = head_params * other_bytes / tp;
    out->head_flops_per_seq = 2.0 * head_params / tp;
    step_attention(m, l, kt, out);
    /* the expert GEMM's input format: FP8 1 byte, NVFP4 half a byte + one FP8 scale per 16,
     * MXFP4 + one E8M0 scale per 32, else 16-bit */
    double act = wt == GP_DTYPE_FP8     ? 1.0
                 : wt == GP_DTYPE_FP4   ? 0.5 + 1.0 / 16.0
                 : wt == GP_DTYPE_MXFP4 ? 0.5 + 1.0 / 32.0
                                        : GP_ACT_BYTES;
    step_links(m, gpu, intra, inter, l, act, out);
    out->custom_ar = engine_custom_ar(gpu, w->engine, l->tp);
    return GP_OK;
}

gp_status gpi_step_model_init(const gp_model *m, const gp_gpu *gpu, const gpi_link *link, const gp_workload *w,
                              const gp_layout *l, const gpi_perf_params *params, gpi_step_model *out, gp_error *err)
{
    gp_layout ll;
    if (l) {
        ll = *l;
        /* a training layout's dp is replicas, not attention DP inside one */
        if (!(ll.dp > 1 && ll.ep > 1 && ll.ep == ll.tp * ll.dp))
            ll.dp = 1;
        l = &ll;
    }
    return gpi_step_model_init_nodes(m, gpu, link, NULL, w, l, params, out, err);
}

double gpi_kv_transfer_time(const gpi_step_model *sm, double tokens, double bytes_per_s, int gpus)
{
    if (!(bytes_per_s > 0) || gpus < 1 || !(tokens > 0))
        return 0.0;
    return tokens * sm->kv_bytes_per_token_replica / (bytes_per_s * (double)gpus) + sm->tp_latency_s;
}

static double maxd(double a, double b)
{
    return a > b ? a : b;
}

/* ---- measured rates (data/kernels.json) ---------------------------------------------- */

/* Share of the measured GEMM rate (MAMF at its best shape, times the shape factor of
 * kernels.c) that a serving step's GEMMs reach: the GEMMs of a step are interleaved with
 * norms, rotary, quantization of activations and sampling the model does not time one by
 * one. Fitted on every source of validation/ (gpuplan-validate --loso, the "all sources" fit;
 * docs/serving.md, "Calibration"); gpi_perf_params.gemm_fraction overrides it. */
#define GP_SERVE_GEMM_FRACTION 0.70
/* NVFP4 / MXFP4 GEMMs reach this share of what the other formats reach: their rate in
 * data/kernels.json is derived (the FP4 peak x the GPU's FP8 efficiency), not measured, and the
 * only FP4 serving runs (TensorRT-LLM on B200, GB200 and RTX PRO 6000: every Blackwell row is
 * FP4) say 0.72 of it: FP4 GEMMs at about 1.44x the FP8 rate at serving shapes, not 2x
 * (docs/serving.md, "FP4"). Fitted on those rows; with them held out it is 1 (no FP4-specific
 * loss). Since the GEMMs' BF16 output bytes and the CUDA-graph padding of decode steps are
 * counted, the all-sources fit puts it at 0.84; not shipped (docs/serving.md, "Calibration"). */
#define GP_SERVE_FP4_RATIO 0.72
/* All-reduces up to this size run on the engines' one-shot / two-shot custom kernels, not
 * NCCL: vLLM's CustomAllreduce max_size 8 MiB (vllm/distributed/device_communicators/
 * custom_all_reduce.py), TensorRT-LLM's AllReduce ONESHOT/TWOSHOT strategies. Their time is
 * collective_latency_s + the bytes at the link curve's asymptote. */
#define GP_CUSTOM_AR_MAX_BYTES (8.0 * 1024 * 1024)
/* Largest message of the nccl-tests grid: where a curve reaches its asymptote. */
#define GP_CURVE_ASYMPTOTE_BYTES (16.0 * 1024 * 1024 * 1024)

void gpi_step_model_use_rates(gpi_step_model *sm, const gp_catalog *cat, const gp_gpu *gpu, const gpi_link *inter)
{
    const gpi_gpu_rates *r = gpi_gpu_rates_of(cat, gpu);
    if (!sm || !r || !(gpi_hbm_bw(r) > 0))
        return;
    int fmt = sm->gemm_format;
    if (!(r->gemm[fmt] > 0))
        fmt = GPI_K_BF16;
    if (!(r->gemm[GPI_K_BF16] > 0))
        return; /* no 16-bit rate for the attention and LM head: keep the peak model */
    sm->rates = r;
    sm->gemm_format = fmt;
    int fp4 = fmt == GPI_K_NVFP4 || fmt == GPI_K_MXFP4;
    sm->gemm_fraction = sm->params.gemm_fraction > 0 ? sm->params.gemm_fraction
                        : fp4                        ? GP_SERVE_GEMM_FRACTION * GP_SERVE_FP4_RATIO
                                                     : GP_SERVE_GEMM_FRACTION;
    sm->hbm_bytes_per_s = gpi_hbm_bw(r);
    const gpi_link *own = gpi_catalog_gpu_link(cat, gpu);
    sm->tp_curve = gpi_link_curve_of(cat, own ? own->id : "pcie4");
    sm->tp_link_gbps = sm->link_bytes_per_s / 1e9;
    sm->net_curve = inter ? gpi_link_curve_of(cat, inter->id) : NULL;
    if (!sm->net_curve)
        sm->net_curve = gpi_kernels_scale_out(gpi_catalog_kernels(cat));
    sm->net_gbps = sm->a2a_inter_bytes_per_s > 0               ? sm->a2a_inter_bytes_per_s / 1e9
                   : inter && inter->bw_gbps_per_direction > 0 ? inter->bw_gbps_per_direction
                                                               : GP_DEFAULT_INTER_GBPS;
    if (sm->tp > gpi_serve_node_gpus(gpu))
        sm->tp_link_gbps = sm->net_gbps;
    sm->custom_ar_max_bytes = sm->custom_ar ? GP_CUSTOM_AR_MAX_BYTES : 0.0;
    sm->gemm_fraction *= gpi_cal_scale(sm->cal_gemm); /* a profile's rates (docs/calibration.md) */
    sm->hbm_bytes_per_s *= gpi_cal_scale(sm->cal_hbm);
}

/* Seconds of `flops` in GEMMs of m tokens x n x k on the compute side: the measured rate at
 * a large shape (MAMF) x the shape factor s(d) = d / (d + half_dim), d = min(m, n, k)
 * (data/kernels.json "shape_rule", the same factor as gpi_gemm_rate) x the serving
 * fraction. The memory side (weights at the achievable HBM rate) is the caller's max. */
static double gemm_s(const gpi_step_model *sm, int fmt, double flops, double m, double n, double k)
{
    if (!(flops > 0) || !(m > 0) || !(n > 0) || !(k > 0))
        return 0.0;
    const gpi_gpu_rates *r = sm->rates;
    double d = m < n ? m : n;
    d = d < k ? d : k;
    double half = r->fit ? r->fit->gemm_half_dim : 0.0;
    double rate = r->gemm[fmt] * d / (d + half) * sm->gemm_fraction;
    return rate > 0 ? flops / rate : 0.0;
}

/* One collective of `bytes` (nccl-tests' size) over `g` ranks on curve `lc` at `gbps`. */
static double coll_s(const gpi_step_model *sm, const gpi_link_curve *lc, gpi_coll_op op, double bytes, double g,
                     double gbps)
{
    if (!(bytes > 0) || g <= 1)
        return 0.0;
    double factor = (op == GPI_COLL_ALL_REDUCE ? 2.0 : 1.0) * (g - 1.0) / g;
    if (!lc)
        return factor * bytes / (gbps * 1e9) + sm->tp_latency_s;
    if (op == GPI_COLL_ALL_REDUCE && bytes <= sm->custom_ar_max_bytes)
        return sm->tp_latency_s + factor * bytes / gpi_collective_busbw(lc, op, GP_CURVE_ASYMPTOTE_BYTES, gbps);
    double bus = gpi_collective_busbw(lc, op, bytes, gbps);
    return bus > 0 ? factor * bytes / bus : 0.0;
}

/* Communication on the measured curves: TP all-reduces, EP dispatch + combine, PP sends. */
static double comm_rates(const gpi_step_model *sm, double T)
{
    double s = 0.0;
    if (sm->tp > 1 && sm->allreduces > 0) {
        const gpi_link_curve *lc =
            sm->tp > 1 && sm->tp_link_gbps == sm->net_gbps && sm->nodes > 1 ? sm->net_curve : sm->tp_curve;
        s += sm->allreduces *
             coll_s(sm, lc, GPI_COLL_ALL_REDUCE, T * sm->allreduce_bytes_per_token, sm->tp, sm->tp_link_gbps);
    }
    if (sm->a2a_bytes_per_token > 0 && sm->a2a_count > 0) {
        /* per all-to-all, the bytes each GPU sends; nccl-tests' size is the whole buffer */
        double g = (double)(sm->tp * sm->dp);
        double per = T * sm->a2a_bytes_per_token / sm->a2a_count, buf = per * g / (g - 1.0);
        gpi_coll_op op = sm->moe_allgather ? GPI_COLL_ALL_GATHER : GPI_COLL_ALL_TO_ALL;
        double bus_in = gpi_collective_busbw(sm->tp_curve, op, maxd(buf, GP_CURVE_ASYMPTOTE_BYTES), sm->tp_link_gbps);
        double bus_net = gpi_collective_busbw(sm->net_curve, op, GP_CURVE_ASYMPTOTE_BYTES, sm->net_gbps);
        if (!(bus_in > 0))
            bus_in = sm->tp_link_gbps * 1e9;
        if (!(bus_net > 0))
            bus_net = sm->net_gbps * 1e9;
        double intra = per * sm->a2a_intra_share / bus_in;
        double inter = sm->a2a_intra_share < 1.0 ? per * (1.0 - sm->a2a_intra_share) / bus_net : 0.0;
        s += sm->a2a_count * (maxd(intra, inter) + sm->a2a_latency_s);
    }
    if (sm->pp > 1 && sm->pp_link_bytes_per_s > 0)
        s += T * sm->pp_bytes_per_token / sm->pp_link_bytes_per_s + (sm->pp - 1) * sm->pp_latency_s;
    return s;
}

/* The element-wise traffic of T tokens of this rank at the HBM rate: the dense part with the
 * linear phase, the MoE part (the (token, expert) pairs of every dp rank this GPU holds)
 * with the experts phase. */
static void elementwise(const gpi_step_model *sm, double T, gpi_step_breakdown *d, double *by)
{
    double dense = T * sm->elementwise_bytes_per_token;
    double pairs = 0.0;
    if (sm->experts > 0 && sm->expert_shards > 0)
        pairs = T * (sm->expert_token_scale > 0 ? sm->expert_token_scale : 1.0) * sm->experts_active *
                (sm->ep > 1 ? 1.0 / sm->expert_shards : 1.0);
    double moe = pairs * sm->moe_elementwise_bytes_per_pair;
    d->linear_s += dense / sm->hbm_bytes_per_s;
    d->experts_s += moe / sm->hbm_bytes_per_s;
    by[0] += dense;
    by[1] += moe;
}

/* The attention pairs and context read averaged over the layers: the sliding layers' own
 * sums where the model has a window (gpt-oss: half its layers see at most 128 keys). */
static void attention_sums(const gpi_step_model *sm, const gpi_batch_shape *b, double *pairs, double *kv)
{
    double s = sm->window > 0 ? sm->window_share : 0.0;
    *pairs = (1.0 - s) * b->attn_pairs + s * b->win_pairs;
    *kv = (1.0 - s) * b->kv_tokens + s * b->win_kv_tokens;
}

/* The phases on the measured rates: GEMMs at their shape (FP8/FP4 only there), attention at
 * the kernel's rate (16-bit), weights and KV at the achievable HBM bandwidth. */
static void step_rates(const gpi_step_model *sm, const gpi_batch_shape *b, gpi_step_breakdown *d, double *f, double *by)
{
    const double T = b->tokens, bw = sm->hbm_bytes_per_s, dim = sm->hidden;
    const int fmt = sm->gemm_format;
    f[0] = T * sm->dense_flops_per_token, by[0] = sm->dense_weight_bytes;
    double lc = gemm_s(sm, fmt, f[0], T, sm->dense_width, dim);
    d->linear_s = maxd(lc, by[0] / bw);
    d->compute_bound = lc > by[0] / bw;
    if (sm->experts > 0 && T > 0) {
        double G = T * (sm->expert_token_scale > 0 ? sm->expert_token_scale : 1.0);
        double touched = sm->experts * (1.0 - pow(1.0 - sm->experts_active / sm->experts, G));
        f[1] = G * sm->expert_flops_per_token, by[1] = touched * sm->expert_bytes;
        double per_expert = touched > 0 ? G * sm->experts_active / touched : 0.0; /* tokens per expert */
        /* a grouped GEMM of the touched experts, each at its own M (docs/serving.md) */
        double g = gpi_grouped_gemm_s(sm->rates, fmt, f[1], per_expert, sm->expert_width, dim, sm->gemm_fraction);
        d->experts_s = maxd(g, by[1] / bw);
    }
    elementwise(sm, T, d, by);
    double pairs, kv;
    attention_sums(sm, b, &pairs, &kv);
    f[2] = pairs * sm->attn_flops_per_pair, by[2] = (kv + T) * sm->kv_bytes_per_token;
    double seq = T > 0 ? 2.0 * pairs / T : 0.0;
    double ar = gpi_attn_rate(sm->rates, GPI_ATTN_DEFAULT, 0, 1, sm->attn_head_dim, seq > 1 ? seq : 1);
    d->attention_s = maxd(ar > 0 ? f[2] / ar : 0.0, by[2] / bw);
    f[3] = b->sampled * sm->head_flops_per_seq, by[3] = b->sampled > 0 ? sm->head_bytes : 0.0;
    d->head_s = maxd(gemm_s(sm, GPI_K_BF16, f[3], b->sampled, sm->head_width, dim), by[3] / bw);
    d->comm_s = comm_rates(sm, T);
}

/* The phases on the datasheet peaks x the efficiencies (no measured rates). */
static void step_peaks(const gpi_step_model *sm, const gpi_batch_shape *b, gpi_step_breakdown *d, double *f, double *by)
{
    const double T = b->tokens, bw = sm->hbm_bytes_per_s;
    f[0] = T * sm->dense_flops_per_token, by[0] = sm->dense_weight_bytes;
    d->linear_s = maxd(f[0] / sm->peak_flops, by[0] / bw);
    d->compute_bound = f[0] / sm->peak_flops > by[0] / bw;
    /* routed experts: those the batch touches are read; under attention DP the MoE layers
     * carry every rank's tokens (ranks assumed alike) */
    if (sm->experts > 0) {
        double G = T * (sm->expert_token_scale > 0 ? sm->expert_token_scale : 1.0);
        double touched = sm->experts * (1.0 - pow(1.0 - sm->experts_active / sm->experts, G));
        f[1] = G * sm->expert_flops_per_token, by[1] = touched * sm->expert_bytes;
        d->experts_s = maxd(f[1] / sm->peak_flops, by[1] / bw);
    }
    double pairs, kv;
    attention_sums(sm, b, &pairs, &kv);
    f[2] = pairs * sm->attn_flops_per_pair, by[2] = (kv + T) * sm->kv_bytes_per_token;
    d->attention_s = maxd(f[2] / sm->attn_peak_flops, by[2] / bw);
    f[3] = b->sampled * sm->head_flops_per_seq, by[3] = b->sampled > 0 ? sm->head_bytes : 0.0;
    d->head_s = maxd(f[3] / sm->attn_peak_flops, by[3] / bw);
    if (sm->tp > 1) {
        double t = sm->tp;
        d->comm_s += sm->allreduces * (2.0 * (t - 1.0) / t * T * sm->allreduce_bytes_per_token / sm->link_bytes_per_s +
                                       sm->tp_latency_s);
    }
    if (sm->a2a_bytes_per_token > 0) {
        double bytes = T * sm->a2a_bytes_per_token;
        double intra = bytes * sm->a2a_intra_share / sm->link_bytes_per_s;
        double inter =
            sm->a2a_intra_share < 1.0 ? bytes * (1.0 - sm->a2a_intra_share) / sm->a2a_inter_bytes_per_s : 0.0;
        d->comm_s += maxd(intra, inter) + sm->a2a_count * sm->a2a_latency_s;
    }
    if (sm->pp > 1 && sm->pp_link_bytes_per_s > 0)
        d->comm_s += T * sm->pp_bytes_per_token / sm->pp_link_bytes_per_s + (sm->pp - 1) * sm->pp_latency_s;
}

double gpi_step_host_s(const gpi_perf_params *p, double gpu_s, double sequences, double eager_s)
{
    double host = p->seq_overhead_s * (sequences > 0 ? sequences : 0.0);
    double eager = eager_s > 0 ? eager_s : 0.0;
    /* an overlap scheduler prepares step n+1 (and processes step n's tokens) while the GPU
     * runs step n: only the host work beyond the GPU's shows (docs/serving.md, "Host work").
     * Launching kernels one by one overlaps the GPU's work in either loop: the GPU runs each
     * kernel as it comes, so dispatch shows only where it outlasts the GPU ("Eager steps"). */
    double seen = p->host_overlap ? maxd(host + eager - gpu_s, 0.0) : host + maxd(eager - gpu_s, 0.0);
    return p->step_overhead_s + seen;
}

double gpi_step_time(const gpi_step_model *sm, const gpi_batch_shape *b, gpi_step_breakdown *out)
{
    gpi_step_breakdown d;
    memset(&d, 0, sizeof d);
    if (b->tokens <= 0 && b->sampled <= 0) {
        if (out)
            *out = d;
        return 0.0;
    }
    double f[4] = {0, 0, 0, 0}, by[4] = {0, 0, 0, 0};
    if (sm->rates)
        step_rates(sm, b, &d, f, by);
    else
        step_peaks(sm, b, &d, f, by);
    double gpu = d.linear_s + d.experts_s + d.attention_s + d.head_s + d.comm_s;
    d.overhead_s = gpi_step_host_s(&sm->params, gpu, b->sampled, 0.0);
    d.flops = f[0] + f[1] + f[2] + f[3];
    d.bytes = by[0] + by[1] + by[2] + by[3];
    d.total_s = gpu + d.overhead_s;
    if (out)
        *out = d;
    return d.total_s;
}

/* Keys the queries at positions c + 1 .. c + k attend to on a layer whose window is w:
 * min(position, w) each (w <= 0: no window). */
static double window_pairs(double k, double c, double w)
{
    if (!(w > 0))
        return k * c + k * (k + 1.0) / 2.0;
    double n1 = w - c; /* positions still inside the window */
    n1 = n1 < 0 ? 0 : n1 > k ? k : n1;
    return n1 * c + n1 * (n1 + 1.0) / 2.0 + (k - n1) * w;
}

void gpi_batch_add(const gpi_step_model *sm, gpi_batch_shape *b, double k, double c, int context)
{
    /* the window bounds decode steps only: a context (prefill) chunk's attention is charged
     * in full, as the published context-heavy runs show (docs/serving.md, "Sliding window") */
    double w = sm && sm->window_share > 0 && !context ? sm->window : 0.0;
    b->tokens += k;
    b->attn_pairs += window_pairs(k, c, 0.0);
    b->kv_tokens += c;
    b->win_pairs += window_pairs(k, c, w);
    b->win_kv_tokens += w > 0 && c > w ? w : c;
}

void gpi_batch_prefill(const gpi_step_model *sm, gpi_batch_shape *b, double prompt)
{
    memset(b, 0, sizeof *b);
    gpi_batch_add(sm, b, prompt, 0.0, 1); /* the prompt's own KV is written (counted with the new tokens) */
    b->sampled = 1;
}

void gpi_batch_decode(const gpi_step_model *sm, gpi_batch_shape *b, double batch, double context)
{
    memset(b, 0, sizeof *b);
    gpi_batch_add(sm, b, 1.0, context, 0);
    b->tokens *= batch, b->attn_pairs *= batch, b->kv_tokens *= batch;
    b->win_pairs *= batch, b->win_kv_tokens *= batch;
    b->sampled = batch;
}
