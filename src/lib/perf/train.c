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
 *              rotary, dropout-free softmax statistics; MoE token permutation, router scores
 *              and expert biases; the cross entropy over the vocabulary) / (HBM bandwidth x
 *              efficiency), plus the host time of launching each layer where no CUDA graph
 *              replays it
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
#include "hw/kernels.h"
#include "perf/train_internal.h"

#include <math.h>
#include <string.h>

/* ---- constants ------------------------------------------------------------------------
 * The hardware rates (GEMM, attention, HBM, bus bandwidth) come from data/kernels.json via
 * src/lib/hw/kernels.c; the fitted constants from its "fit" object. The values below are
 * only the fallback for a gp_cluster built by hand without rates (no catalog), and the
 * latencies NCCL's measured curves do not cover (rings longer than the 8- and 32-rank
 * measurements). */
#define GP_FALLBACK_GEMM_EFFICIENCY 0.80
#define GP_FALLBACK_GEMM_HALF_DIM   100.0
#define GP_FALLBACK_ATTN_EFFICIENCY 0.30
#define GP_FALLBACK_ELEMENTWISE_H   120.0
#define GP_FALLBACK_ELEMENTWISE_F   12.0
#define GP_FALLBACK_HBM_EFFICIENCY  0.85
#define GP_NCCL_BW_EFFICIENCY       0.8
/* Latency per ring step across nodes: a hop over InfiniBand/RoCE costs several us (NVIDIA's
 * aiconfigurator uses 10 us flat); inside a node the measured curves include it. */
#define GP_COLLECTIVE_STEP_LATENCY_S       2e-6
#define GP_COLLECTIVE_STEP_LATENCY_INTER_S 8e-6
/* Bytes of optimizer traffic per parameter for AdamW (fp32 master, m, v: read + write,
 * gradient read, 16-bit weight write). */
#define GP_OPTIMIZER_BYTES_PER_PARAM 30.0
/* InfiniBand NDR, one 400 Gb/s NIC per GPU (DGX H100), when no inter-node link is given. */
#define GP_DEFAULT_INTER_GBPS 50.0
/* Megatron-Core's DDP bucket: 40 M parameters (bucket_size in DistributedDataParallelConfig);
 * the gradient all-reduce runs in messages of this size. */
#define GP_DP_BUCKET_PARAMS 40e6
/* Eager attention: passes of the s x s score matrix over HBM in the forward (GEMM output
 * written, softmax read and written, read by the AV GEMM); counted from Megatron-LM's fused
 * scale-mask-softmax path (Korthikanti et al. 2022, sec. 4: the softmax and its output
 * dominate the activation memory). */
#define GP_EAGER_SCORE_PASSES 4.0
/* DeepSpeed ZeRO-3 gathers each module's parameters separately and fetches at most this many
 * parameter elements ahead of use (prefetch_bucket_size, default 5e7:
 * deepspeed/runtime/zero/config.py, "Maximum number of parameter elements to fetch ahead"). */
#define GP_DEEPSPEED_PREFETCH_PARAMS 5e7
/* FlashAttention counts the backward as 2.5 forwards (the score recomputed: Dao 2023). */
#define GP_ATTN_BWD_WORK 2.5
/* Flash kernels walk the keys in tiles of 128 (FlashAttention-3 hopper/tile_size.h: kBlockN 128
 * for head dims <= 128; FlashAttention-2 and cuDNN alike): a sliding-window layer skips the tiles
 * outside the band but computes every tile the band of `window` keys touches for a tile of
 * queries whole (masked), about window + 2 tiles of keys per query. */
#define GP_ATTN_KEY_TILE 128.0
/* Cross entropy over the vocabulary, bytes per logit (16-bit): the forward reads the logits twice
 * (maximum, then the sum of exponentials), the backward reads them and writes their gradient
 * (Megatron-Core's vocab-parallel cross entropy; a fused kernel does no less). */
#define GP_CE_BYTES_PER_LOGIT 8.0
/* Expert biases (gpt-oss) in Megatron-Core's grouped MLP: the second linear layer's bias is added
 * per expert, weighted by the token's routing probability, outside the grouped GEMM
 * (TEGroupedMLP._apply_bias, core_v0.15-0.18 moe/experts.py: b x p, t + b x p, torch.cat): per
 * routed token x hidden element 12 bytes forward (write b x p, read both and write the sum, read
 * and write the concatenation) and 12 backward (the bias and probability gradients: two products
 * written and reduced), at 16 bits. */
#define GP_EXPERT_BIAS_BYTES_FWD 12.0
#define GP_EXPERT_BIAS_BYTES_BWD 12.0
/* The router's scores, bytes per token per expert: the fp32 logits written, the softmax (or
 * sigmoid) reading and writing them, top-k reading the probabilities (16); the backward reads the
 * probabilities and their gradient and writes the logits' gradient (12). */
#define GP_ROUTER_BYTES_PER_SCORE     28.0
#define GP_ROUTER_BYTES_PER_SCORE_FWD 16.0 /* the forward's part, run again by a recomputed MoE layer */
/* torchao.float8's casts of a linear's input and output gradient to fp8, bytes per element over
 * the forward and backward, with torch.compile fusing the amax into the kernel that produced the
 * tensor (torchao @0598012907d6 torchao/testing/training/roofline_utils.py,
 * get_tensor_memory_traffic_ovhd_s, fuse_with_prev): tensorwise reads the 16-bit tensor once and
 * writes it twice in fp8 (row- and column-major), 2 + 2 x 1; rowwise writes fp8 and a 16-bit
 * transpose in one kernel (1 + 2) and casts the transpose along the other axis in a second
 * (2 + 1). Transformer Engine fuses its casts into the norm, activation and cast-transpose kernels
 * the layer runs anyway (GP_FP8_RECIPE_FUSED: none counted). */
#define GP_FP8_CAST_BYTES_TENSORWISE 4.0
#define GP_FP8_CAST_BYTES_ROWWISE    6.0

gp_framework gpi_framework_parse(const char *s)
{
    if (!s)
        return GP_FRAMEWORK_COUNT;
    if (gpi_strcaseeq(s, "megatron") || gpi_strcaseeq(s, "megatron-core") || gpi_strcaseeq(s, "nemo"))
        return GP_FRAMEWORK_MEGATRON;
    if (gpi_strcaseeq(s, "fsdp") || gpi_strcaseeq(s, "fsdp2") || gpi_strcaseeq(s, "torchtitan"))
        return GP_FRAMEWORK_FSDP;
    if (gpi_strcaseeq(s, "deepspeed") || gpi_strcaseeq(s, "zero"))
        return GP_FRAMEWORK_DEEPSPEED;
    return GP_FRAMEWORK_COUNT;
}

const char *gpi_framework_name(gp_framework f)
{
    static const char *const names[GP_FRAMEWORK_COUNT] = {"megatron", "fsdp", "deepspeed"};
    return f >= 0 && f < GP_FRAMEWORK_COUNT ? names[f] : "unknown";
}

gp_cuda_graphs gpi_cuda_graphs_parse(const char *s)
{
    if (!s)
        return GP_CUDA_GRAPHS_COUNT;
    if (gpi_strcaseeq(s, "none") || gpi_strcaseeq(s, "off"))
        return GP_CUDA_GRAPHS_NONE;
    if (gpi_strcaseeq(s, "layer") || gpi_strcaseeq(s, "local"))
        return GP_CUDA_GRAPHS_LAYER;
    if (gpi_strcaseeq(s, "full") || gpi_strcaseeq(s, "full_iteration"))
        return GP_CUDA_GRAPHS_FULL;
    return GP_CUDA_GRAPHS_COUNT;
}

const char *gpi_cuda_graphs_name(gp_cuda_graphs g)
{
    static const char *const names[GP_CUDA_GRAPHS_COUNT] = {"none", "layer", "full"};
    return g >= 0 && g < GP_CUDA_GRAPHS_COUNT ? names[g] : "unknown";
}

gp_ep_dispatcher gpi_ep_dispatcher_parse(const char *s)
{
    if (!s)
        return GP_EP_DISPATCHER_COUNT;
    for (int d = 0; d < GP_EP_DISPATCHER_COUNT; d++)
        if (gpi_strcaseeq(s, gpi_ep_dispatcher_name((gp_ep_dispatcher)d)))
            return (gp_ep_dispatcher)d;
    return gpi_strcaseeq(s, "flex") ? GP_EP_DISPATCHER_DEEPEP : GP_EP_DISPATCHER_COUNT;
}

const char *gpi_ep_dispatcher_name(gp_ep_dispatcher d)
{
    static const char *const names[GP_EP_DISPATCHER_COUNT] = {"alltoall", "deepep", "hybridep"};
    return d >= 0 && d < GP_EP_DISPATCHER_COUNT ? names[d] : "unknown";
}

gp_fp8_recipe gpi_fp8_recipe_parse(const char *s)
{
    if (!s)
        return GP_FP8_RECIPE_COUNT;
    for (int r = 0; r < GP_FP8_RECIPE_COUNT; r++)
        if (gpi_strcaseeq(s, gpi_fp8_recipe_name((gp_fp8_recipe)r)))
            return (gp_fp8_recipe)r;
    return gpi_strcaseeq(s, "te") ? GP_FP8_RECIPE_FUSED : GP_FP8_RECIPE_COUNT;
}

const char *gpi_fp8_recipe_name(gp_fp8_recipe r)
{
    static const char *const names[GP_FP8_RECIPE_COUNT] = {"default", "fused", "tensorwise", "rowwise"};
    return r >= 0 && r < GP_FP8_RECIPE_COUNT ? names[r] : "unknown";
}

void gpi_cluster_set_link(gp_cluster *c, const gp_catalog *cat, const gpi_link *link, int inter)
{
    if (!link)
        return;
    const gpi_link_curve *lc = gpi_link_curve_of(cat, link->id);
    if (inter) {
        c->inter_gbps = link->bw_gbps_per_direction;
        gpi_strlcpy(c->inter_name, link->id, sizeof c->inter_name);
        c->inter_curve = lc ? lc : gpi_kernels_scale_out(gpi_catalog_kernels(cat));
    } else {
        c->intra_gbps = link->bw_gbps_per_direction;
        gpi_strlcpy(c->intra_name, link->id, sizeof c->intra_name);
        c->intra_curve = lc;
    }
}

void gpi_cluster_defaults(gp_cluster *c, const gp_catalog *cat, const gp_gpu *gpu, const gpi_link *inter)
{
    memset(c, 0, sizeof *c);
    c->gpus_per_node = gpu->scale_up_domain >= 8 ? gpu->scale_up_domain : 8;
    if (c->gpus_per_node > 72)
        c->gpus_per_node = 72;
    const gpi_link *intra = cat ? gpi_catalog_gpu_link(cat, gpu) : NULL;
    if (gpu->scale_up_domain >= 4 && gpu->scale_up_gbps_bidir > 0) {
        c->intra_gbps = gpu->scale_up_gbps_bidir / 2.0;
        gpi_strlcpy(c->intra_name, gpu->scale_up_name, sizeof c->intra_name);
    } else if (intra) {
        c->intra_gbps = intra->bw_gbps_per_direction;
        gpi_strlcpy(c->intra_name, intra->id, sizeof c->intra_name);
    } else {
        c->intra_gbps = gpi_gpu_pcie_gbps(gpu); /* no catalog: the GPU's own PCIe figure */
        gpi_strlcpy(c->intra_name, "pcie4", sizeof c->intra_name);
    }
    if (inter) {
        c->inter_gbps = inter->bw_gbps_per_direction;
        gpi_strlcpy(c->inter_name, inter->id, sizeof c->inter_name);
    } else {
        c->inter_gbps = GP_DEFAULT_INTER_GBPS;
        gpi_strlcpy(c->inter_name, "ib-ndr", sizeof c->inter_name);
    }
    c->framework = GP_FRAMEWORK_MEGATRON;
    c->rates = gpi_gpu_rates_of(cat, gpu);
    c->intra_curve = gpi_link_curve_of(cat, intra ? intra->id : "pcie4");
    c->inter_curve = gpi_link_curve_of(cat, c->inter_name);
    if (!c->inter_curve)
        c->inter_curve = gpi_kernels_scale_out(gpi_catalog_kernels(cat));
}

int gpi_ep_overlap_admitted(const gp_model *m, const gp_layout *l)
{
    return m && l && m->experts > 0 && l->ep > 1 && l->recompute != GP_RECOMPUTE_FULL &&
           (l->pp <= 1 || l->virtual_stages > 1);
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

/* Time of one collective over n ranks `stride` GPUs apart, moving a `bytes` tensor (the
 * all-reduce's buffer, the all-gather's output) in messages of `msg` bytes: the measured
 * bus bandwidth of the link at that message size (data/kernels.json), time = factor x bytes
 * / busbw with factor 2(n-1)/n for all-reduce and (n-1)/n otherwise (nccl-tests
 * PERFORMANCE.md); across nodes plus the ring's per-hop latency. */
static double coll_time(const gp_cluster *c, gpi_coll_op op, double bytes, double msg, int n, int stride)
{
    if (n <= 1 || bytes <= 0)
        return 0.0;
    int x = crosses(c, n, stride);
    double gbps = group_gbps(c, n, stride);
    const gpi_link_curve *lc = x ? c->inter_curve : c->intra_curve;
    /* a ring of n ranks pays 2(n - 1) step latencies for n shares of the message: the share of
     * latency at a size grows with n (the alpha-beta model; nccl-tests doc/PERFORMANCE.md's bus
     * bandwidth), so a curve measured on N ranks across nodes is read at size x N / n */
    double size = msg > 0 ? msg : bytes;
    if (x && lc && lc->ranks > 0)
        size *= (double)lc->ranks / n;
    double bus = lc ? gpi_collective_busbw(lc, op, size, gbps) : 0.0;
    if (bus <= 0)
        bus = gbps * 1e9 * GP_NCCL_BW_EFFICIENCY;
    double k = op == GPI_COLL_ALL_REDUCE ? 2.0 : 1.0;
    double lat = x    ? k * (n - 1) * GP_COLLECTIVE_STEP_LATENCY_INTER_S
                 : lc ? 0.0
                      : k * (n - 1) * GP_COLLECTIVE_STEP_LATENCY_S;
    return lat + k * (double)(n - 1) / n * bytes / bus;
}

#define GP_A2A_ASYMPTOTE_BYTES 17179869184.0 /* the collective curves' largest size, 16 GiB */

/* An all-to-all whose group spans nodes: nothing is reduced on the way, so each GPU sends the
 * share of its buffer bound for other nodes, (n - local) / n, through one NIC's worth of the
 * node's scale-out bandwidth (every GPU of the node sends at once; DeepEP's internode figures are
 * per GPU and per NIC: data/kernels.json deepep-h800-a2a-inter), while the share for its own
 * node's peers crosses the scale-up link at the same time. Inside a node: coll_time. */
static double a2a_time(const gp_cluster *c, double bytes, int n, double topk)
{
    const int stride = 1; /* EP ranks are consecutive (ctx_init) */
    if (n <= 1 || bytes <= 0)
        return 0.0;
    if (!crosses(c, n, stride))
        return coll_time(c, GPI_COLL_ALL_TO_ALL, bytes, bytes, n, stride);
    int local = stride < c->gpus_per_node ? c->gpus_per_node / stride : 1;
    local = local < n ? local : n;
    /* n concurrent messages of bytes / n, not a ring's 2(n - 1) dependent steps: the curve's
     * all-to-all asymptote (DeepEP's 44.5 of 50 GB/s at a 235 MB buffer), not the ring's shape */
    double inter = c->inter_curve ? gpi_collective_busbw(c->inter_curve, GPI_COLL_ALL_TO_ALL, GP_A2A_ASYMPTOTE_BYTES,
                                                         c->inter_gbps)
                                  : 0.0;
    if (inter <= 0)
        inter = c->inter_gbps * 1e9 * GP_NCCL_BW_EFFICIENCY;
    double off = bytes * (double)(n - local) / n;
    /* DeepEP / HybridEP send a token once to each other node holding one of its top-k experts
     * and forward it there over NVLink (deepseek-ai/DeepEP README, "normal kernels": NVLink
     * forwarding; Megatron-Core's flex dispatcher): with experts spread evenly over N nodes and
     * chosen uniformly, a token reaches (N - 1)(1 - (1 - 1/N)^k) other nodes on average, against
     * k (N - 1) / N copies for the all-to-all */
    if (c->ep_dispatcher != GP_EP_DISPATCHER_ALLTOALL && topk > 1) {
        double nodes = (double)n / local;
        off = bytes / topk * (nodes - 1.0) * (1.0 - pow(1.0 - 1.0 / nodes, topk));
    }
    double t = off / inter;
    if (local > 1) {
        double intra = c->intra_curve ? gpi_collective_busbw(c->intra_curve, GPI_COLL_ALL_TO_ALL, bytes, c->intra_gbps)
                                      : c->intra_gbps * 1e9 * GP_NCCL_BW_EFFICIENCY;
        double t_in = intra > 0 ? bytes * (double)(local - 1) / n / intra : 0.0;
        t = t > t_in ? t : t_in;
    }
    return (n - 1) * GP_COLLECTIVE_STEP_LATENCY_INTER_S + t;
}

static double peak_tflops(const gp_gpu *g, gp_dtype t)
{
    double p = g->tflops[t];
    if (p <= 0)
        p = g->tflops[GP_DTYPE_BF16] > 0 ? g->tflops[GP_DTYPE_BF16] : g->tflops[GP_DTYPE_F16];
    return p;
}

/* The per-micro-batch work of the slowest stage, split by kind, and the rates it runs at. */
typedef struct tctx {
    const gp_model *m;
    const gp_gpu *gpu;
    const gp_cluster *c;
    const gp_workload *w;
    const gp_layout *l;
    gp_param_breakdown p;
    const gpi_gpu_rates *r;      /* NULL: fallback to peaks */
    gpi_kdtype kdt;              /* the GEMMs' format */
    gpi_kdtype head_kdt;         /* the output head's: Megatron-Core keeps it at 16 bits under fp8/fp4 */
    gpi_attn_kernel attn_kernel; /* Megatron-Core: the GPU's usual (cuDNN via Transformer Engine on
                                    Hopper/Blackwell); FSDP / DeepSpeed stacks: FlashAttention-2
                                    (flash-attn, SDPA's flash path); unless the cluster names one */
    double peak, peak16, hbm;    /* FLOP/s, FLOP/s, bytes/s */
    double half_dim, gemm_frac, attn_frac, elem_h, elem_f, moe_imbalance;
    double moe_layer_overhead;   /* host time per MoE layer per micro-batch (a full-iteration graph removes it) */
    double dense_layer_overhead; /* the same per dense layer (per-layer graphs capture these too) */
    double T;                    /* tokens per GPU per micro-batch */
    double T_moe;                /* the tokens one GPU routes, permutes and dispatches (ctx_init) */
    double etp;                  /* the routed experts' split inside each expert: 1 with EP, else TP */
    double stage_layers, moe_layers_stage, dense_layers_stage;
    int lora, qlora;
    gp_fp8_recipe fp8; /* the fp8 casts charged: FUSED (none) unless torchao's recipes run */
    unsigned rc_mods;  /* the modules recomputed selectively (gpi_recompute_modules_of), once per estimate */
    gp_cluster cal_c;  /* the cluster with a profile's collective scales (x->c points here) */
} tctx;

static void ctx_rates(tctx *x)
{
    const gpi_kernel_fit *f = x->r ? x->r->fit : NULL;
    x->half_dim = f ? f->gemm_half_dim : GP_FALLBACK_GEMM_HALF_DIM;
    x->gemm_frac = f ? f->gemm_train_fraction : GP_FALLBACK_GEMM_EFFICIENCY;
    x->attn_frac = f ? f->attn_train_fraction : 1.0;
    if (f && x->r &&
        (x->attn_kernel == GPI_ATTN_CUDNN || x->attn_kernel == GPI_ATTN_FA3 ||
         (x->attn_kernel == GPI_ATTN_DEFAULT && x->r->attn_default != GPI_ATTN_FA2)))
        x->attn_frac = f->attn_train_fraction_cudnn;
    x->elem_h = f ? f->elementwise_h : GP_FALLBACK_ELEMENTWISE_H;
    x->elem_f = f ? f->elementwise_f : GP_FALLBACK_ELEMENTWISE_F;
    /* the host time of launching a layer's kernels one by one; CUDA graphs replay them without
     * the host (Megatron-Bridge docs, "CUDA Graphs"): a graph of the whole iteration leaves none,
     * graphs per layer capture the dense layers, not a dropless MoE layer (Megatron-Core sends
     * its token counts to the host mid-layer: TEGroupedMLP.forward's tokens_per_expert.tolist()) */
    double host = f ? f->layer_overhead_s : 0.0;
    x->moe_layer_overhead = x->c->cuda_graphs == GP_CUDA_GRAPHS_FULL ? 0.0 : host;
    x->dense_layer_overhead = x->c->cuda_graphs == GP_CUDA_GRAPHS_NONE ? host : 0.0;
    x->moe_imbalance = f ? f->moe_imbalance : 1.0;
    x->hbm = x->r ? gpi_hbm_bw(x->r) : x->gpu->hbm_bandwidth_gbps * 1e9 * GP_FALLBACK_HBM_EFFICIENCY;
}

/* A profile's entry for this GPU type and precision scales its rates, and its collective
 * benchmarks the links' bus bandwidth (docs/calibration.md); none: unchanged. */
static void ctx_calibrate(tctx *x, gp_dtype cdt)
{
    const gp_gpu_cal *cal = gpi_cal_find(x->gpu, GP_CAL_TRAIN, cdt, 0);
    double comm = cal ? gpi_cal_scale(cal->comm_scale) : 1.0;
    if (cal) {
        x->gemm_frac *= gpi_cal_scale(cal->gemm_scale);
        x->attn_frac *= gpi_cal_scale(cal->attn_scale);
        x->hbm *= gpi_cal_scale(cal->hbm_scale);
    }
    x->cal_c = *x->c;
    x->cal_c.intra_gbps *= comm * gpi_cal_scale(x->gpu->cal_intra_scale);
    x->cal_c.inter_gbps *= comm * gpi_cal_scale(x->gpu->cal_inter_scale);
    x->c = &x->cal_c;
}

/* The model's uncalibrated rates, for the microbenchmarks' profile (hw/bench.c): an m x n x k
 * GEMM in a compute dtype, memory-bound bytes/s, and the share of a link NCCL reaches without
 * a measured curve. */
double gpi_train_gemm_rate(const gp_catalog *cat, const gp_gpu *g, gp_dtype dt, double m, double n, double k)
{
    gp_dtype cdt = dt == GP_DTYPE_FP8 || dt == GP_DTYPE_FP4 || dt == GP_DTYPE_MXFP4 ? dt : GP_DTYPE_BF16;
    const gpi_gpu_rates *r = gpi_gpu_rates_of(cat, g);
    gpi_kdtype kdt = gpi_kdtype_of(cdt);
    if (r && r->gemm[kdt] > 0)
        return gpi_gemm_rate(r, kdt, m, n, k) * (r->fit ? r->fit->gemm_train_fraction : GP_FALLBACK_GEMM_EFFICIENCY);
    double d = m < n ? m : n;
    d = d < k ? d : k;
    return peak_tflops(g, cdt) * 1e12 * GP_FALLBACK_GEMM_EFFICIENCY * d / (d + GP_FALLBACK_GEMM_HALF_DIM);
}

double gpi_train_hbm_rate(const gp_catalog *cat, const gp_gpu *g)
{
    const gpi_gpu_rates *r = gpi_gpu_rates_of(cat, g);
    return r ? gpi_hbm_bw(r) : g->hbm_bandwidth_gbps * 1e9 * GP_FALLBACK_HBM_EFFICIENCY;
}

double gpi_nccl_efficiency(void)
{
    return GP_NCCL_BW_EFFICIENCY;
}

/* Seconds of one m x k by k x n GEMM in format dt, forward. */
static double gemm_s_dt(const tctx *x, gpi_kdtype dt, double m, double n, double k)
{
    if (m <= 0 || n <= 0 || k <= 0)
        return 0.0;
    double rate;
    if (x->r)
        rate = gpi_gemm_rate(x->r, dt, m, n, k) * x->gemm_frac;
    else {
        double d = m < n ? m : n;
        d = d < k ? d : k;
        rate = (dt == x->kdt ? x->peak : x->peak16) * x->gemm_frac * d / (d + x->half_dim);
    }
    return rate > 0 ? 2.0 * m * n * k / rate : 0.0;
}

static double gemm_s(const tctx *x, double m, double n, double k)
{
    return gemm_s_dt(x, x->kdt, m, n, k);
}

/* Forward GEMM seconds of one layer (dense or MoE) on this GPU, by part: attention
 * projections (of which MLA's up projections), the dense MLP, the routed experts, the shared
 * experts, the router. */
typedef struct layer_gemms {
    double att, mla_up, mlp, routed, shared, router;
} layer_gemms;

static double layer_gemms_sum(const layer_gemms *g)
{
    return g->att + g->mlp + g->routed + g->shared + g->router;
}

static void layer_gemm_parts(const tctx *x, int moe, layer_gemms *g)
{
    const gp_model *m = x->m;
    double h = (double)m->hidden, tp = x->l->tp, T = x->T, L = (double)m->layers;
    double att = (double)x->p.attention / L; /* q, k, v, o (or MLA) per layer */
    *g = (layer_gemms){0};
    g->att = gemm_s(x, T, att / h / tp, h);
    if (m->kv_lora_rank > 0) { /* MLA: q and kv up from their latents (within att's FLOPs) */
        double a = (double)m->heads / tp, nope = (double)m->qk_nope_head_dim;
        g->mla_up = gemm_s(x, T, a * (nope + (double)m->v_head_dim), (double)m->kv_lora_rank);
        if (m->q_lora_rank > 0)
            g->mla_up += gemm_s(x, T, a * (nope + (double)m->qk_rope_head_dim), (double)m->q_lora_rank);
    }
    if (!moe) {
        double nd = m->experts > 0 ? (double)m->dense_layers : L;
        double mlp = nd > 0 ? (double)x->p.mlp_dense / nd : 0.0;
        g->mlp = gemm_s(x, T, mlp / h / tp, h);
        return;
    }
    double nm = (double)(m->layers - m->dense_layers);
    double per_expert = (double)x->p.experts_routed / ((double)m->experts * nm);
    double k = (double)m->experts_active, E = (double)m->experts, ep = x->l->ep;
    /* grouped GEMM: each local expert sees T_moe k ep / E tokens, at 1 / etp of its width (the
     * FLOPs are T k / tp experts' worth either way) */
    double m_e = x->T_moe * k * ep / E;
    double n_e = per_expert / h / x->etp;
    double one = x->r ? gpi_grouped_gemm_s(x->r, x->kdt, 2.0 * m_e * n_e * h, m_e, n_e, h, x->gemm_frac)
                      : gemm_s(x, m_e, n_e, h);
    g->routed = one * (E / ep) * x->moe_imbalance;
    double shared = (double)x->p.experts_shared / nm, router = (double)x->p.router / nm;
    g->shared = gemm_s(x, T, shared / h / tp, h);
    g->router = gemm_s(x, x->T_moe, router / h, h);
}

/* The forward GEMM seconds Megatron-Core's selective modules run again per micro-batch on this
 * stage (gpi_recompute_modules_of): the dense MLPs ("mlp"), the MoE layers whole ("moe") or their
 * shared experts ("shared_experts"), MLA's up projections ("mla_up_proj"); `routed` gets the
 * routed experts' part. */
static double recompute_gemm_fwd(const tctx *x, unsigned mods, const layer_gemms *gd, const layer_gemms *gm,
                                 double *routed)
{
    double t = 0.0;
    *routed = 0.0;
    if (mods & GP_RECOMPUTE_MLP)
        t += gd->mlp * x->dense_layers_stage;
    if (mods & GP_RECOMPUTE_MOE) {
        *routed = gm->routed * x->moe_layers_stage;
        t += (gm->routed + gm->shared + gm->router) * x->moe_layers_stage;
    } else if (mods & GP_RECOMPUTE_SHARED_EXPERTS)
        t += gm->shared * x->moe_layers_stage;
    if (mods & GP_RECOMPUTE_MLA_UP_PROJ)
        t += gd->mla_up * x->dense_layers_stage + gm->mla_up * x->moe_layers_stage;
    return t;
}

/* Attention core (scores and values) of one layer over a context of ctx keys (window: a
 * sliding-window layer's band): forward and backward seconds. */
static void layer_attn(const tctx *x, double ctx, int window, double *fwd, double *bwd)
{
    const gp_model *m = x->m;
    double dqk = m->kv_lora_rank > 0 ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
    double dv = m->kv_lora_rank > 0 ? (double)m->v_head_dim : (double)m->head_dim;
    double per_key = x->T * 2.0 * (double)m->heads * (dqk + dv) / x->l->tp;
    double full = per_key * ctx; /* the s x s work */
    double seq_local = ctx / x->l->cp;
    if (window && x->w->flash_attention) {
        /* every tile of keys the band touches, whole: window + 2 tiles per query, at the
         * unmasked rate of so short a sequence (GP_ATTN_KEY_TILE) */
        double keys = ctx + 2.0 * GP_ATTN_KEY_TILE;
        double seq = (double)x->w->seq / x->l->cp;
        keys = keys < seq ? keys : seq;
        double rf = x->r ? gpi_attn_rate(x->r, x->attn_kernel, 0, 0, dqk, keys) * x->attn_frac
                         : x->peak16 * GP_FALLBACK_ATTN_EFFICIENCY * x->attn_frac;
        double rb = x->r ? gpi_attn_rate(x->r, x->attn_kernel, 1, 0, dqk, keys) * x->attn_frac : rf;
        *fwd = rf > 0 ? per_key * keys / rf : 0.0;
        *bwd = rb > 0 ? GP_ATTN_BWD_WORK * per_key * keys / rb : 0.0;
        return;
    }
    if (!x->w->flash_attention) {
        /* eager attention (Megatron before FlashAttention): QK^T and AV as batched GEMMs over
         * the full s x s scores (masked, not skipped), and the scores cross HBM: written,
         * softmax read + written, read by AV forward; the backward twice that
         * (GP_EAGER_SCORE_PASSES) */
        double heads = (double)m->heads / x->l->tp, b = (double)x->l->micro_batch;
        double g = gemm_s(x, seq_local, ctx, dqk) + gemm_s(x, seq_local, dv, ctx);
        double bytes = b * heads * seq_local * ctx * 2.0;
        *fwd = b * heads * g + bytes * GP_EAGER_SCORE_PASSES / x->hbm;
        *bwd = 2.0 * b * heads * g + 2.0 * bytes * GP_EAGER_SCORE_PASSES / x->hbm;
        return;
    }
    if (x->r) {
        double rf = gpi_attn_rate(x->r, x->attn_kernel, 0, 1, dqk, seq_local) * x->attn_frac;
        double rb = gpi_attn_rate(x->r, x->attn_kernel, 1, 1, dqk, seq_local) * x->attn_frac;
        *fwd = rf > 0 ? full / 2.0 / rf : 0.0; /* causal: the unmasked half */
        *bwd = rb > 0 ? GP_ATTN_BWD_WORK * full / 2.0 / rb : 0.0;
    } else {
        double rate = x->peak16 * GP_FALLBACK_ATTN_EFFICIENCY * x->attn_frac;
        *fwd = full / rate;
        *bwd = 2.0 * full / rate;
    }
}

/* Bytes of torchao.float8's casts per micro-batch on this stage (GP_FP8_CAST_BYTES_*): every
 * linear outside the routed experts (q, k, v, o as torchtitan's and HF's separate linears, and the
 * MLP's) casts its input (again per recomputed forward) and its output gradient. Per token and
 * layer that is (3 + MLP column linears) h inputs read whole by the column-parallel linears,
 * 2 h output gradients of the row-parallel ones, and (attention + MLP parameters) / h / TP of
 * the split sides; tensorwise casts the column inputs before TP's float8 all-gather, on 1 / TP of
 * the tokens (torchtitan parallelize.py, enable_float8_tensorwise_tp; rowwise gathers in 16 bits). */
static double fp8_cast_bytes(const tctx *x, double fwd_passes)
{
    if (x->fp8 != GP_FP8_RECIPE_TENSORWISE && x->fp8 != GP_FP8_RECIPE_ROWWISE)
        return 0.0;
    const gp_model *m = x->m;
    double h = (double)m->hidden, tp = x->l->tp, L = (double)m->layers;
    double ncol = m->mlp == GP_MLP_PLAIN ? 1.0 : 2.0, att = (double)x->p.attention / L;
    double nd = m->experts > 0 ? (double)m->dense_layers : L, nm = (double)(m->layers - m->dense_layers);
    double mlp_dense = nd > 0 ? (double)x->p.mlp_dense / nd : 0.0;
    double shared = m->experts > 0 && nm > 0 ? (double)x->p.experts_shared / nm : 0.0;
    double col = x->fp8 == GP_FP8_RECIPE_TENSORWISE ? 1.0 / tp : 1.0;
    double per = x->fp8 == GP_FP8_RECIPE_TENSORWISE ? GP_FP8_CAST_BYTES_TENSORWISE : GP_FP8_CAST_BYTES_ROWWISE;
    /* attention: q, k, v inputs (column) and o's (row: the q width); o's output gradient h and
     * q, k, v's (the rest of att / h) */
    double q = (double)m->heads * (double)m->head_dim;
    double in_att = 3.0 * h * col + q / tp, gr_att = h + (att / h - q) / tp;
    double in_mlp = ncol * h * col + (mlp_dense / h / tp) / (ncol + 1.0),
           gr_mlp = h + (mlp_dense / h / tp) * ncol / (ncol + 1.0);
    double in_sh = shared > 0 ? ncol * h * col + (shared / h / tp) / (ncol + 1.0) : 0.0;
    double gr_sh = shared > 0 ? h + (shared / h / tp) * ncol / (ncol + 1.0) : 0.0;
    double dense = (in_att + in_mlp) * fwd_passes + gr_att + gr_mlp;
    double moe = (in_att + in_sh) * fwd_passes + gr_att + gr_sh;
    return x->T * per * (dense * x->dense_layers_stage + moe * x->moe_layers_stage);
}

typedef struct mb_time {
    double compute, memory, bwd_share, attn, per_layer, gemm, gemm_fwd, experts;
} mb_time;

/* Memory-bound bytes per micro-batch on this stage that a selective module's forward moves again
 * (gpi_recompute_modules_of), in the units of microbatch_bytes: "layernorm" the two norms' forward
 * (read, write: 2 units of h each), "moe_act" / "mlp" the activation's forward (gated: read 2 f,
 * write f; plain: read f, write f), "moe" that and the permutation, the router's forward scores
 * (GP_ROUTER_BYTES_PER_SCORE_FWD) and the expert biases' forward. */
static double recompute_bytes(const tctx *x, unsigned mods, double f_routed, double f_dense, double f_shared)
{
    const gp_model *m = x->m;
    double h = (double)m->hidden, tp = x->l->tp, sp = x->l->sequence_parallel ? tp : 1.0;
    double act = m->mlp == GP_MLP_GATED ? 3.0 : 2.0, b = 0.0;
    if (mods & GP_RECOMPUTE_LAYERNORM)
        b += x->T * x->stage_layers * 2.0 * 4.0 * h / sp;
    if (mods & GP_RECOMPUTE_MLP)
        b += x->T * x->dense_layers_stage * 2.0 * act * f_dense / tp;
    if (m->experts > 0 && (mods & (GP_RECOMPUTE_MOE | GP_RECOMPUTE_MOE_ACT)))
        b += x->T * x->moe_layers_stage * 2.0 * act * f_routed / tp;
    if (m->experts > 0 && (mods & (GP_RECOMPUTE_MOE | GP_RECOMPUTE_SHARED_EXPERTS)))
        b += x->T * x->moe_layers_stage * 2.0 * act * f_shared / tp;
    if (m->experts > 0 && (mods & GP_RECOMPUTE_MOE)) {
        double k = (double)m->experts_active;
        b += x->T_moe * x->moe_layers_stage * k * h * 2.0 * 2.0;
        b += x->T_moe * x->moe_layers_stage * (double)m->experts * GP_ROUTER_BYTES_PER_SCORE_FWD;
        if (m->expert_bias)
            b += x->T_moe * x->moe_layers_stage * k * h * GP_EXPERT_BIAS_BYTES_FWD;
    }
    return b;
}

/* Memory-bound bytes of one micro-batch on this stage: norms, residuals, rotary, activation
 * function (docs/performance.md), MoE permutation, router scores, expert biases, cross entropy,
 * fp8 casts, QLoRA's dequantization, and what selective modules recompute. */
static double microbatch_bytes(const tctx *x, double fwd_passes, unsigned mods)
{
    const gp_model *m = x->m;
    const gp_layout *l = x->l;
    double h = (double)m->hidden, L = (double)m->layers;
    double moe_frac = m->experts > 0 ? (double)(m->layers - m->dense_layers) / L : 0.0;
    double f_routed = m->experts > 0 ? (double)(m->experts_active * m->moe_ffn) : 0.0;
    double f_shared =
        m->experts > 0 ? (double)m->shared_experts * (double)(m->shared_expert_ffn ? m->shared_expert_ffn : m->moe_ffn)
                       : 0.0;
    double f_act = m->experts > 0 ? f_routed * moe_frac + (double)m->ffn * (1 - moe_frac) : (double)m->ffn;
    double sp = l->sequence_parallel ? l->tp : 1.0;
    double bytes =
        x->T * x->stage_layers * 2.0 * (x->elem_h * h / sp + x->elem_f * f_act / l->tp) * (fwd_passes + 2.0) / 3.0;
    /* MoE permutation: tokens copied to expert order and back, forward and backward */
    bytes += x->T_moe * x->moe_layers_stage * (double)m->experts_active * h * 2.0 * 2.0 * 2.0;
    /* the router's scores (GP_ROUTER_BYTES_PER_SCORE); its GEMM is in layer_gemm_parts */
    if (m->experts > 0)
        bytes += x->T_moe * x->moe_layers_stage * (double)m->experts * GP_ROUTER_BYTES_PER_SCORE;
    /* expert biases added per expert outside the grouped GEMM (GP_EXPERT_BIAS_BYTES_*) */
    if (m->experts > 0 && m->expert_bias)
        bytes += x->T_moe * x->moe_layers_stage * (double)m->experts_active * h *
                 (GP_EXPERT_BIAS_BYTES_FWD * fwd_passes + GP_EXPERT_BIAS_BYTES_BWD);
    /* cross entropy over the vocabulary (GP_CE_BYTES_PER_LOGIT), charged with the head */
    bytes += x->T * (double)m->vocab / l->tp * GP_CE_BYTES_PER_LOGIT;
    bytes += fp8_cast_bytes(x, fwd_passes);
    /* QLoRA: NF4 weights dequantized to 16 bits for every forward and backward pass */
    if (x->qlora)
        bytes += (double)x->p.linear_active * x->stage_layers / L / l->tp * 2.5 * (fwd_passes + 1.0);
    return bytes + recompute_bytes(x, mods, f_routed, (double)m->ffn, f_shared);
}

/* Compute and memory-bound seconds of one micro-batch on the slowest stage. */
static void microbatch_compute(const tctx *x, mb_time *o)
{
    const gp_model *m = x->m;
    const gp_layout *l = x->l;
    double fwd_passes = 1.0 + (l->recompute == GP_RECOMPUTE_FULL ? 1.0 : l->recompute == GP_RECOMPUTE_OP ? 0.5 : 0.0);
    unsigned mods = x->rc_mods;
    int attn_recompute = l->recompute == GP_RECOMPUTE_FULL || (mods & GP_RECOMPUTE_CORE_ATTN);
    /* backward of a linear: dgrad + wgrad = 2 forwards; frozen weights (LoRA) skip wgrad */
    double bwd_mult = x->lora ? 1.0 : 2.0;
    layer_gemms gd, gm = {0};
    layer_gemm_parts(x, 0, &gd);
    if (m->experts > 0)
        layer_gemm_parts(x, 1, &gm);
    double g_dense = layer_gemms_sum(&gd), g_moe = layer_gemms_sum(&gm);
    double g_fwd = g_dense * x->dense_layers_stage + g_moe * x->moe_layers_stage;
    double rc_routed, rc = recompute_gemm_fwd(x, mods, &gd, &gm, &rc_routed);
    double h = (double)m->hidden;
    double head = gemm_s_dt(x, x->head_kdt, x->T, (double)m->vocab / l->tp, h);
    /* LoRA adapters: per linear an (in x r) and (r x out) GEMM; sum of in + out per layer is
     * about linear params / h + 7 h (the q, k, v, o, gate, up, down projections) */
    double adapters = 0.0;
    if (x->lora && x->w->lora_rank > 0) {
        double r = (double)x->w->lora_rank, io = (double)x->p.linear_active / m->layers / h + 7.0 * h;
        adapters = 3.0 * x->stage_layers * (gemm_s(x, x->T, r, io / 2.0) + gemm_s(x, x->T, io / 2.0, r));
    }
    double afw_full, abw_full, afw_win = 0, abw_win = 0;
    double L = (double)m->layers, win_layers = 0;
    layer_attn(x, (double)x->w->seq, 0, &afw_full, &abw_full);
    if (m->sliding_window > 0 && m->sliding_window < x->w->seq) {
        layer_attn(x, (double)m->sliding_window, 1, &afw_win, &abw_win);
        win_layers = (double)m->sliding_layers * x->stage_layers / L;
    }
    double full_layers = x->stage_layers - win_layers;
    double a_fwd = full_layers * afw_full + win_layers * afw_win, a_bwd = full_layers * abw_full + win_layers * abw_win;
    double attn = a_fwd * (1.0 + (attn_recompute ? 1.0 : 0.0)) + a_bwd;
    o->attn = attn;
    o->gemm = g_fwd * (fwd_passes + bwd_mult) + rc;
    o->gemm_fwd = g_fwd * fwd_passes + rc;
    o->experts = m->experts > 0 ? gm.routed * x->moe_layers_stage * (fwd_passes + bwd_mult) + rc_routed : 0.0;
    /* DeepSeek-V3's multi-token prediction: per module one more (MoE) layer, its attention,
     * a 2h -> h projection and the shared output head, on the last stage (DeepSeek-V3 report,
     * sec. 2.2); charged to the slowest stage as the head is */
    double mtp = 0.0;
    if (m->mtp_layers > 0) {
        double one = (m->experts > 0 ? g_moe : g_dense) + gemm_s(x, x->T, h, 2.0 * h);
        mtp = (double)m->mtp_layers * (one * (1.0 + bwd_mult) + head * 3.0 + afw_full + abw_full);
    }
    o->compute = o->gemm + head * 3.0 + adapters + attn + mtp;
    o->bwd_share = g_fwd * bwd_mult + head * 2.0 + a_bwd;
    /* host time per layer where no CUDA graph replays it (ctx_rates) */
    o->memory = microbatch_bytes(x, fwd_passes, mods) / x->hbm + x->dense_layer_overhead * x->dense_layers_stage +
                x->moe_layer_overhead * x->moe_layers_stage;
    o->per_layer = x->stage_layers > 0 ? (o->compute + o->memory) / x->stage_layers : 0.0;
}

/* Exposed communication of one micro-batch on the slowest stage (TP, CP, EP, PP). */
static void microbatch_comm(const tctx *x, const mb_time *mt, double *t_tp, double *t_cp, double *t_ep,
                            double *t_ep_all, double *t_pp)
{
    const gp_model *m = x->m;
    const gp_layout *l = x->l;
    const gp_cluster *c = x->c;
    double h = (double)m->hidden, fwd_passes = 1.0 + (l->recompute == GP_RECOMPUTE_FULL ? 1.0
                                                      : l->recompute == GP_RECOMPUTE_OP ? 0.5
                                                                                        : 0.0);
    double sp = l->sequence_parallel ? l->tp : 1.0;
    /* TP: 2 collectives forward, 2 backward, 2 per recomputed forward, of T x h x 2 bytes
     * (with SP a reduce-scatter + all-gather: the same bytes at the ring's bandwidth) */
    double tp_bytes = x->T * h * 2.0;
    /* torchao's tensorwise fp8 gathers the column-parallel inputs in fp8 (fp8_cast_bytes) */
    double ag_bytes = x->fp8 == GP_FP8_RECIPE_TENSORWISE ? tp_bytes / 2.0 : tp_bytes;
    double one = l->sequence_parallel ? coll_time(c, GPI_COLL_REDUCE_SCATTER, tp_bytes, tp_bytes, l->tp, 1) +
                                            coll_time(c, GPI_COLL_ALL_GATHER, ag_bytes, ag_bytes, l->tp, 1)
                                      : 2.0 * coll_time(c, GPI_COLL_ALL_REDUCE, tp_bytes, tp_bytes, l->tp, 1);
    /* a recomputed MLP or MoE layer ("mlp", "moe") runs its half of a forward's collectives again */
    unsigned mods = x->rc_mods;
    double rc_layers = ((mods & GP_RECOMPUTE_MLP) ? x->dense_layers_stage : 0.0) +
                       ((mods & GP_RECOMPUTE_MOE) ? x->moe_layers_stage : 0.0);
    *t_tp = l->tp > 1 ? (x->stage_layers * (fwd_passes + 1.0) + 0.5 * rc_layers) * one : 0.0;
    /* Megatron-Core with sequence parallelism overlaps the TP all-gather / reduce-scatter
     * with the neighbouring GEMMs (Transformer Engine userbuffers, tp_comm_overlap, which
     * NeMo's performance recipes enable): only the excess over the layer GEMMs shows */
    if (c->framework == GP_FRAMEWORK_MEGATRON && l->sequence_parallel && l->tp > 1)
        *t_tp = *t_tp > mt->gemm ? *t_tp - mt->gemm : 0.0;
    /* an FSDP stack's async TP (gp_cluster.tp_overlap: torchtitan's micro-pipelined all-gather /
     * reduce-scatter matmuls) hides the forward passes' collectives behind the forward GEMMs; the
     * backward's stay exposed, as its authors' figures imply (PyTorch dev-discuss, "Introducing
     * Async Tensor Parallelism in PyTorch", 2024: up to 29% / 20% forward speedup and ~8% end
     * to end on Llama 3 8B / 70B, far below the forward's if the backward gained alike) */
    else if (c->tp_overlap && l->sequence_parallel && l->tp > 1) {
        double fwd = *t_tp * fwd_passes / (fwd_passes + 1.0);
        *t_tp += (fwd > mt->gemm_fwd ? fwd - mt->gemm_fwd : 0.0) - fwd;
    }
    /* CP: K and V of the local chunk pass cp - 1 hops per layer (fwd, bwd: 3 passes),
     * overlapped with the attention; only the excess and the hop latencies show */
    *t_cp = 0.0;
    if (l->cp > 1) {
        double kv_bytes = x->T * 2.0 * (double)(m->kv_heads * m->head_dim) / l->tp * 2.0;
        double hop = coll_time(c, GPI_COLL_ALL_GATHER, kv_bytes * l->cp, kv_bytes * l->cp, l->cp, l->tp);
        double comm = x->stage_layers * 3.0 * hop;
        double lat = crosses(c, l->cp, l->tp) ? GP_COLLECTIVE_STEP_LATENCY_INTER_S : GP_COLLECTIVE_STEP_LATENCY_S;
        *t_cp = (comm > mt->attn ? comm - mt->attn : 0.0) + x->stage_layers * 3.0 * (l->cp - 1) * lat;
    }
    /* EP: all-to-all dispatch and combine of T_moe x top-k x h x 2 bytes, forward and backward
     * (and per recomputed forward), over ep consecutive ranks (ETP 1: ctx_init); not overlapped
     * (Megatron's default dispatcher) */
    *t_ep = *t_ep_all = 0.0;
    if (m->experts > 0 && l->ep > 1) {
        double a2a = x->T_moe * h * 2.0 * (double)m->experts_active;
        double one_a2a = a2a_time(c, a2a, l->ep, (double)m->experts_active);
        /* a recomputed MoE layer ("moe") dispatches and combines once more */
        double rc_a2a = (x->rc_mods & GP_RECOMPUTE_MOE) ? 2.0 : 0.0;
        *t_ep = *t_ep_all = x->moe_layers_stage * (2.0 * fwd_passes + 2.0 + rc_a2a) * one_a2a;
        /* Megatron-Core can overlap dispatch/combine with another micro-batch's compute
         * (--overlap-moe-expert-parallel-comm, Megatron-Core 0.14 MoE README; combined_1f1b.py
         * pairs a forward with another's backward's attention and MLP): only the excess shows.
         * Across nodes the all-to-all's time is the NIC's (RDMA), and that whole compute hides
         * it; inside one NVLink domain it is the SMs' own loads and stores, which contend with
         * the compute for SMs and HBM, and only the expert GEMMs' worth hides it (the overlapped
         * Qwen3-30B-A3B rows on GB200/GB300 come out 16-21% fast with the whole compute, within
         * 10% with the expert GEMMs). Off by default there, as in gp_cluster (ep_overlap) */
        if (c->framework == GP_FRAMEWORK_MEGATRON && c->ep_overlap && gpi_ep_overlap_admitted(m, l)) {
            double win = crosses(c, l->ep, 1) ? mt->compute : mt->experts;
            *t_ep = *t_ep > win ? *t_ep - win : 0.0;
        }
    }
    /* PP: activations to the next stage, forward and backward (point-to-point) */
    *t_pp = 0.0;
    if (l->pp > 1) {
        double act = x->T * h * 2.0 / sp;
        *t_pp = 2.0 * coll_time(c, GPI_COLL_ALL_GATHER, 2.0 * act, act, 2, l->tp * l->cp * l->dp);
    }
}

/* One data-parallel group's collectives for `bytes` of 16-bit parameters over n ranks:
 * per layer (ZeRO-3) and per step. */
typedef struct dp_parts {
    double ag_layer, rs_layer; /* ZeRO-3: one layer's gather / reduce-scatter */
    double rs, ag, ar;         /* the whole stage: reduce-scatter, all-gather, all-reduce */
} dp_parts;

static void dp_group(const tctx *x, double bytes, int n, int stride, dp_parts *d)
{
    const gp_cluster *c = x->c;
    double bucket = GP_DP_BUCKET_PARAMS * 2.0;
    memset(d, 0, sizeof *d);
    if (x->l->zero >= 3) {
        double layer = bytes / (x->stage_layers > 0 ? x->stage_layers : 1.0);
        d->ag_layer = coll_time(c, GPI_COLL_ALL_GATHER, layer, layer, n, stride);
        d->rs_layer = coll_time(c, GPI_COLL_REDUCE_SCATTER, layer, layer, n, stride);
    } else if (x->l->zero == 2) {
        d->rs = coll_time(c, GPI_COLL_REDUCE_SCATTER, bytes, bucket, n, stride);
        d->ag = coll_time(c, GPI_COLL_ALL_GATHER, bytes, bucket, n, stride);
    }
    d->ar = x->l->zero >= 3 ? 0.0 : coll_time(c, GPI_COLL_ALL_REDUCE, bytes, bucket, n, stride);
}

/* DeepSpeed ZeRO-3: one all-gather per module (the layer's linear layers) per pass and a
 * reduce-scatter of its gradients, each hidden only behind the compute of the parameters
 * prefetched ahead (GP_DEEPSPEED_PREFETCH_PARAMS) or of the module itself, whichever is less;
 * each collective pays the ring's latency over all n ranks. Exposed seconds per micro-batch. */
static double deepspeed_zero3(const tctx *x, const mb_time *mt, double params, int n)
{
    const gp_layout *l = x->l;
    double layers = x->stage_layers > 0 ? x->stage_layers : 1.0;
    double layer_params = params / layers;
    double mods = 4.0 + (x->m->mlp == GP_MLP_PLAIN ? 2.0 : 3.0);
    /* AG fwd, AG bwd, RS (+ AG); LoRA reduces no gradient of the frozen weights */
    double events = (x->lora ? 2.0 : 3.0) + (l->recompute == GP_RECOMPUTE_FULL ? 1.0 : 0.0);
    double bytes = layer_params * 2.0 / mods;
    double comm = coll_time(x->c, GPI_COLL_ALL_GATHER, bytes, bytes, n, l->tp);
    double per_event = mt->per_layer / events; /* the layer's compute per pass */
    double ahead = layer_params > 0 ? per_event * (GP_DEEPSPEED_PREFETCH_PARAMS < layer_params
                                                       ? GP_DEEPSPEED_PREFETCH_PARAMS / layer_params
                                                       : 1.0)
                                    : 0.0;
    double window = per_event / mods < ahead ? per_event / mods : ahead;
    double excess = comm > window ? comm - window : 0.0;
    return layers * events * mods * excess + comm;
}

/* Data-parallel and ZeRO communication: exposed seconds per micro-batch (ZeRO-3 gathers,
 * ZeRO-2 reduce-scatters) and per step (the gradient all-reduce tail, ZeRO-2's gather).
 * Dense parameters travel over the data-parallel group (dp x cp ranks); routed experts,
 * already split over EP, over the expert-data-parallel group (dp x cp / ep ranks, at least
 * one: Megatron-Core's expert_data_parallel). */
static void dp_comm(const tctx *x, const mb_time *mt, double dense_params, double expert_params, int64_t m_micro,
                    double *per_mb, double *per_step)
{
    const gp_layout *l = x->l;
    /* the expert-data-parallel group under ETP 1: the tp x dp x cp GPUs of a stage over ep,
     * members ep ranks apart (Megatron-Core's expert rank order tp-ep-dp) */
    int n = l->dp * l->cp, ne = l->ep > 1 ? l->tp * n / l->ep : n;
    ne = ne > 1 ? ne : 1;
    *per_mb = *per_step = 0.0;
    /* LoRA reduces only the adapters' tiny gradients; the frozen base, when ZeRO-3 / FSDP shards
     * it, is still gathered layer by layer for every pass */
    if (n <= 1 || (x->lora && l->zero < 3))
        return;
    dp_parts d, e;
    dp_group(x, dense_params * 2.0, n, l->tp, &d);
    memset(&e, 0, sizeof e);
    if (ne > 1 && expert_params > 0)
        dp_group(x, expert_params * 2.0, ne, l->ep > 1 ? l->ep : l->tp, &e);
    if (l->zero >= 3 && x->c->framework == GP_FRAMEWORK_DEEPSPEED) {
        *per_mb = deepspeed_zero3(x, mt, dense_params + expert_params, n);
    } else if (l->zero >= 3) {
        /* per layer: all-gather (fwd, again for a full recompute and for the backward),
         * reduce-scatter of its gradients; prefetch one layer ahead hides each layer's
         * traffic behind the previous layer's compute: only the excess shows, plus the
         * first layer's gather (Zhao et al. 2023, FSDP sec. 4; torchtitan, DeepSpeed alike) */
        double ag = d.ag_layer + e.ag_layer, rs = x->lora ? 0.0 : d.rs_layer + e.rs_layer;
        double comm_layer = ag * (2.0 + (l->recompute == GP_RECOMPUTE_FULL ? 1.0 : 0.0)) + rs;
        double excess = comm_layer > mt->per_layer ? comm_layer - mt->per_layer : 0.0;
        *per_mb = x->stage_layers * excess + ag;
    } else if (l->zero == 2 && m_micro > 1) {
        double rs = d.rs + e.rs;
        *per_mb = rs > mt->bwd_share ? rs - mt->bwd_share : 0.0;
        *per_step = d.ag + e.ag;
    } else {
        /* bucketed gradient all-reduce overlapped with the last micro-batch's backward
         * (Megatron overlap_grad_reduce, DDP). Megatron-Core's distributed optimizer (ZeRO-1)
         * splits it: the gradients' reduce-scatter under the last backward, the parameters'
         * all-gather under the next step's first forward (overlap_param_gather: core
         * distributed/param_and_grad_buffer.py dispatches each bucket's gather ahead of the
         * forward that uses it) */
        double ar = d.ar + e.ar;
        if (l->zero == 1 && x->c->framework == GP_FRAMEWORK_MEGATRON) {
            double half = ar / 2.0, fwd = mt->compute - mt->bwd_share;
            *per_step = (half > mt->bwd_share ? half - mt->bwd_share : 0.0) + (half > fwd ? half - fwd : 0.0);
        } else
            *per_step = ar > mt->bwd_share ? ar - mt->bwd_share : 0.0;
    }
}

static gp_status check_request(const gp_model *m, const gp_cluster *c, const gp_workload *w, const gp_layout *l,
                               int64_t gb, gp_error *err)
{
    if (l->tp < 1 || l->pp < 1 || l->dp < 1 || l->cp < 1 || l->ep < 1 || l->micro_batch < 1 || l->pp > m->layers) {
        gpi_error_set_field(err, "layout");
        return gpi_fail(err, GP_EINVAL,
                        "every parallel degree and the micro-batch must be at least 1, and pp at most the layers");
    }
    if (!c || c->intra_gbps <= 0 || c->inter_gbps <= 0 || c->gpus_per_node < 1) {
        gpi_error_set_field(err, "cluster");
        return gpi_fail(err, GP_EINVAL, "the cluster needs GPUs per node and positive link bandwidths");
    }
    if (gb % ((int64_t)l->dp * l->micro_batch) != 0) {
        gpi_error_set_field(err, "global_batch");
        return gpi_fail(err, GP_EINVAL, "global batch %lld is not a multiple of dp x micro-batch = %lld", (long long)gb,
                        (long long)l->dp * l->micro_batch);
    }
    if (w->seq < 1 || w->seq % l->cp != 0) {
        gpi_error_set_field(err, "seq");
        return gpi_fail(err, GP_EINVAL, "sequence length %lld must be a positive multiple of cp = %d",
                        (long long)w->seq, l->cp);
    }
    return GP_OK;
}

/* FLOP counts, rates and the honest range (the fit's signed-error percentiles). */
/* FLOPs per token a selective recomputation adds (its modules' forwards, gpi_recompute_modules_of);
 * attn_model: the attention core's forward FLOPs per token. */
static double recompute_model_flops(const tctx *x, double attn_model)
{
    const gp_model *m = x->m;
    unsigned mods = x->rc_mods;
    double e = (mods & GP_RECOMPUTE_CORE_ATTN) ? attn_model : 0.0;
    if (mods & GP_RECOMPUTE_MLP)
        e += 2.0 * (double)x->p.mlp_dense;
    if (m->experts > 0 && (mods & GP_RECOMPUTE_MOE))
        e += 2.0 * ((double)x->p.experts_routed * (double)m->experts_active / (double)m->experts +
                    (double)x->p.experts_shared + (double)x->p.router);
    else if (mods & GP_RECOMPUTE_SHARED_EXPERTS)
        e += 2.0 * (double)x->p.experts_shared;
    return e;
}

static void fill_rates(const tctx *x, int64_t gb, double train_tokens, gp_train_perf *out)
{
    const gp_model *m = x->m;
    double L = (double)m->layers, seq = (double)x->w->seq, h = (double)m->hidden;
    double dqk = m->kv_lora_rank > 0 ? (double)(m->qk_nope_head_dim + m->qk_rope_head_dim) : (double)m->head_dim;
    double dv = m->kv_lora_rank > 0 ? (double)m->v_head_dim : (double)m->head_dim;
    double win = m->sliding_window > 0 && m->sliding_window < x->w->seq ? (double)m->sliding_layers : 0.0;
    /* forward attention FLOPs per token, full s x s (PaLM's 12 L a d s over forward and
     * backward; MPT's and NeMo's model TFLOP/s count it so): QK^T 2 a d_qk s + AV 2 a d_v s */
    double attn_model = 2.0 * (double)m->heads * (dqk + dv) * ((L - win) * seq + win * (double)m->sliding_window);
    out->tokens_per_s = (double)gb * seq / out->step_time_s;
    out->tokens_per_s_per_gpu = out->tokens_per_s / out->gpus;
    out->model_flops_per_token = 6.0 * ((double)x->p.linear_active + (double)m->vocab * h) + 3.0 * attn_model;
    double extra = 0.0;
    if (x->l->recompute == GP_RECOMPUTE_FULL)
        extra = 2.0 * (double)x->p.linear_active + attn_model; /* layers only; the head is not recomputed */
    else if (x->l->recompute == GP_RECOMPUTE_SELECTIVE)
        extra = recompute_model_flops(x, attn_model);
    else if (x->l->recompute == GP_RECOMPUTE_OP)
        extra = (double)x->p.linear_active;
    out->hw_flops_per_token = out->model_flops_per_token + extra;
    out->model_tflops_per_gpu = out->model_flops_per_token * out->tokens_per_s_per_gpu / 1e12;
    out->hw_tflops_per_gpu = out->hw_flops_per_token * out->tokens_per_s_per_gpu / 1e12;
    out->mfu = out->model_tflops_per_gpu * 1e12 / x->peak;
    out->hfu = out->hw_tflops_per_gpu * 1e12 / x->peak;
    if (train_tokens > 0)
        out->time_to_train_s = train_tokens / out->tokens_per_s;
    /* predicted / actual - 1 lies in [p10, p90] on comparable runs: actual = predicted / (1 + e);
     * comparable: the same model architecture where the validation set holds enough runs of it,
     * else MoE or dense models (MoE runs spread wider; data/kernels.json "fit") */
    const gpi_kernel_fit *f = x->r ? x->r->fit : NULL;
    const gpi_range *r = gpi_range_pick(f ? &f->ranges : NULL, m->model_type, m->experts > 0);
    double lo = r ? 1.0 + r->p10 : 1.0, hi = r ? 1.0 + r->p90 : 1.0;
    gpi_strlcpy(out->range_basis, r ? r->basis : "", sizeof out->range_basis);
    out->range_cases = r ? r->cases : 0;
    out->step_time_s_low = out->step_time_s * lo, out->step_time_s_high = out->step_time_s * hi;
    out->tokens_per_s_low = out->tokens_per_s / hi, out->tokens_per_s_high = out->tokens_per_s / lo;
    out->model_tflops_per_gpu_low = out->model_tflops_per_gpu / hi,
    out->model_tflops_per_gpu_high = out->model_tflops_per_gpu / lo;
    out->time_to_train_s_low = out->time_to_train_s * lo, out->time_to_train_s_high = out->time_to_train_s * hi;
}

static gp_status ctx_init(tctx *x, const gp_model *m, const gp_param_breakdown *p, const gp_gpu *gpu,
                          const gp_cluster *c, const gp_workload *w, const gp_layout *l, gp_error *err)
{
    memset(x, 0, sizeof *x);
    x->m = m, x->gpu = gpu, x->c = c, x->w = w, x->l = l;
    x->p = *p;
    gp_dtype cdt =
        w->dtype == GP_DTYPE_FP8 || w->dtype == GP_DTYPE_FP4 || w->dtype == GP_DTYPE_MXFP4 ? w->dtype : GP_DTYPE_BF16;
    x->kdt = gpi_kdtype_of(cdt);
    /* Megatron-Core's output layer is a 16-bit ColumnParallelLinear outside Transformer Engine's
     * fp8/fp4 autocast (core_v0.15 models/gpt/gpt_model.py:234; from v0.18 an MXFP8 head only when
     * fp8_output_proj is set, fp8_utils.py:532) */
    x->head_kdt = c->framework == GP_FRAMEWORK_MEGATRON ? GPI_K_BF16 : x->kdt;
    x->attn_kernel = c->attention == GP_ATTENTION_FA2        ? GPI_ATTN_FA2
                     : c->attention == GP_ATTENTION_FA3      ? GPI_ATTN_FA3
                     : c->attention == GP_ATTENTION_CUDNN    ? GPI_ATTN_CUDNN
                     : c->framework == GP_FRAMEWORK_MEGATRON ? GPI_ATTN_DEFAULT
                                                             : GPI_ATTN_FA2;
    x->peak = peak_tflops(gpu, cdt) * 1e12;
    x->peak16 = peak_tflops(gpu, GP_DTYPE_BF16) * 1e12;
    x->r = c->rates && c->rates->gemm[x->kdt] > 0 ? c->rates : NULL;
    ctx_rates(x);
    ctx_calibrate(x, cdt);
    if (x->peak <= 0 || x->hbm <= 0) {
        gpi_error_set_field(err, "gpu");
        return gpi_fail(err, GP_EINVAL, "GPU %s has no dense peak or memory bandwidth in the catalog", gpu->id);
    }
    x->rc_mods = gpi_recompute_modules_of(l);
    x->fp8 = cdt != GP_DTYPE_FP8                      ? GP_FP8_RECIPE_FUSED
             : c->fp8_recipe != GP_FP8_RECIPE_DEFAULT ? c->fp8_recipe
             : c->framework == GP_FRAMEWORK_FSDP      ? GP_FP8_RECIPE_TENSORWISE
                                                      : GP_FP8_RECIPE_FUSED;
    x->lora = w->task == GP_TASK_LORA || w->task == GP_TASK_QLORA;
    x->qlora = w->task == GP_TASK_QLORA;
    x->T = (double)l->micro_batch * (double)w->seq / l->cp;
    /* With expert parallelism the routed experts sit whole on each GPU, the EP group carved from
     * the TP x DP GPUs (Megatron-Core's parallel folding with expert_tensor_parallel_size 1, as
     * NeMo's performance recipes set it, e.g. Megatron-Bridge @067f987d perf_recipes/qwen/h100/
     * qwen3_moe.py; the memory model splits them alike), and a MoE layer under TP runs
     * sequence-parallel (core_v0.15+ moe/moe_layer.py refuses TP without SP in training): each GPU
     * routes, permutes and dispatches its own T / tp tokens. Without EP the experts are split over
     * TP (ETP = TP) and see the whole micro-batch. */
    x->etp = l->ep > 1 ? 1.0 : (double)l->tp;
    x->T_moe = l->ep > 1 ? x->T / l->tp : x->T;
    x->stage_layers = ceil((double)m->layers / l->pp);
    double moe_frac = m->experts > 0 ? (double)(m->layers - m->dense_layers) / (double)m->layers : 0.0;
    x->moe_layers_stage = x->stage_layers * moe_frac;
    x->dense_layers_stage = x->stage_layers - x->moe_layers_stage;
    return GP_OK;
}

gp_status gpi_train_perf_estimate(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c, const gp_workload *w,
                                  const gp_layout *l, double train_tokens, gp_train_perf *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    return st ? st : gpi_train_perf_estimate_p(m, &p, gpu, c, w, l, train_tokens, out, err);
}

gp_status gpi_train_perf_estimate_p(const gp_model *m, const gp_param_breakdown *pb, const gp_gpu *gpu,
                                    const gp_cluster *c, const gp_workload *w, const gp_layout *l, double train_tokens,
                                    gp_train_perf *out, gp_error *err)
{
    memset(out, 0, sizeof *out);
    int64_t gb = l->global_batch > 0 ? l->global_batch : (int64_t)l->dp * l->micro_batch;
    gp_status st = check_request(m, c, w, l, gb, err);
    tctx x;
    if (!st)
        st = ctx_init(&x, m, pb, gpu, c, w, l, err);
    if (st)
        return st;
    const int64_t m_micro = gb / ((int64_t)l->dp * l->micro_batch);
    mb_time mt;
    microbatch_compute(&x, &mt);
    double t_tp, t_cp, t_ep, t_ep_all, t_pp;
    microbatch_comm(&x, &mt, &t_tp, &t_cp, &t_ep, &t_ep_all, &t_pp);
    /* Without pipelining, Megatron-Core's overlapped schedule runs the first micro-batch's forward
     * and the last one's backward alone, their all-to-alls exposed (core @d98e8a64
     * pipeline_parallel/combined_1f1b.py, combined_1f1b_schedule_for_no_pipelining): one
     * micro-batch's whole all-to-all per step on top of the others' excess */
    double ep_alone = l->pp <= 1 && t_ep_all > t_ep ? t_ep_all - t_ep : 0.0;
    double t_mb = mt.compute + mt.memory + t_tp + t_cp + t_ep + t_pp;

    double L = (double)m->layers;
    /* this GPU's parameters: dense ones split over TP, routed experts over EP (whole experts,
     * ctx_init) or, without EP, over TP */
    double routed = (double)x.p.experts_routed * x.stage_layers / L / (l->ep > 1 ? l->ep : l->tp);
    double dense = ((double)(x.p.total - x.p.embedding - x.p.head - x.p.experts_routed) * x.stage_layers / L +
                    (double)(m->tied_embeddings ? x.p.embedding : x.p.head)) /
                   l->tp;
    double t_fsdp_mb, t_dp;
    dp_comm(&x, &mt, dense, routed, m_micro, &t_fsdp_mb, &t_dp);
    double t_mb_total = t_mb + t_fsdp_mb;
    double v = l->virtual_stages > 1 ? (double)l->virtual_stages : 1.0;
    double bubble = l->pp > 1 ? (double)(l->pp - 1) / v * t_mb_total : 0.0;
    double pipeline = (double)m_micro * t_mb_total + bubble + ep_alone;

    /* optimizer step on this GPU's shard (LoRA: the adapters only, negligible); offloaded
     * states cross PCIe: gradients down and updated 16-bit weights up */
    int n_dp = l->dp * l->cp, n_edp = l->ep > 1 ? l->tp * n_dp / l->ep : n_dp;
    n_edp = n_edp > 1 ? n_edp : 1;
    double opt_params = x.lora ? 0.0 : l->zero >= 1 ? dense / n_dp + routed / n_edp : dense + routed;
    double t_opt = opt_params * GP_OPTIMIZER_BYTES_PER_PARAM / x.hbm;
    if (w->offload != GP_OFFLOAD_NONE && opt_params > 0) {
        double pcie = gpi_gpu_pcie_gbps(gpu) * 1e9 * GP_NCCL_BW_EFFICIENCY; /* data/links.json pcie<gen> */
        t_opt = opt_params * (2.0 + 2.0) / pcie;
    }

    out->step_time_s = pipeline + t_dp + t_opt;
    double mm = (double)m_micro;
    out->compute_s = mm * mt.compute;
    out->memory_s = mm * mt.memory;
    out->tp_comm_s = mm * t_tp;
    out->cp_comm_s = mm * t_cp;
    out->ep_comm_s = mm * t_ep + ep_alone;
    out->pp_comm_s = mm * t_pp;
    out->dp_comm_s = t_dp + mm * t_fsdp_mb;
    out->bubble_s = bubble;
    out->optimizer_s = t_opt;
    out->micro_batches = m_micro;
    out->gpus = gp_layout_gpus(l);
    fill_rates(&x, gb, train_tokens, out);
    return GP_OK;
}
