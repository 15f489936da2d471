/*
 * kernels.h (private): achievable hardware rates from data/kernels.json.
 *
 * What a kernel really reaches on a GPU, not its datasheet peak: dense GEMM rate by dtype and
 * shape, attention rate by kernel, pass, head dim and sequence, achievable HBM bandwidth (which
 * is also the element-wise rate), and collective bus bandwidth by link, operation and message
 * size. Every figure comes from data/kernels.json with its source or derivation rule;
 * docs/performance.md, "Where each rate comes from", explains them.
 *
 * Use: the catalog loads the table once (gpi_kernels_load); gpi_cluster_defaults resolves the
 * GPU's rates and the two links' curves into the gp_cluster (pointers into the catalog, valid
 * while it lives). The accessors below are then pure arithmetic: no allocation, no JSON, no
 * string compare; the layout search calls them millions of times a second.
 *
 * Units: rates in FLOP/s, bandwidths in bytes/s, message sizes in bytes.
 */
#ifndef GPI_KERNELS_H
#define GPI_KERNELS_H

#include "internal.h"
#include <jansson.h>

/* Compute formats of a GEMM. Weight-only formats (W8, W4) run a 16-bit matmul after
 * dequantization: their compute rate is the bf16 one. */
typedef enum gpi_kdtype {
    GPI_K_BF16 = 0,  /* bf16 / fp16 inputs, fp32 accumulate */
    GPI_K_FP8,       /* fp8 E4M3/E5M2, per-tensor scale (Transformer Engine "tensor scaling") */
    GPI_K_FP8_BLOCK, /* fp8 with 1x128 / 128x128 block scales (DeepSeek-V3, DeepGEMM) */
    GPI_K_MXFP8,     /* OCP MXFP8 (Blackwell native block scaling) */
    GPI_K_NVFP4,     /* NVFP4 */
    GPI_K_MXFP4,     /* OCP MXFP4 */
    GPI_K_INT8,      /* W8A8 int8 */
    GPI_K_W8,        /* int8 weight-only, 16-bit activations */
    GPI_K_W4,        /* int4 / nf4 weight-only */
    GPI_K_COUNT
} gpi_kdtype;

typedef enum gpi_attn_kernel {
    GPI_ATTN_FA2 = 0, /* FlashAttention-2 (also PyTorch SDPA's flash backend) */
    GPI_ATTN_FA3,     /* FlashAttention-3 (Hopper) */
    GPI_ATTN_CUDNN,   /* cuDNN fused attention (Transformer Engine, Megatron-Core) */
    GPI_ATTN_DEFAULT, /* the GPU's usual training kernel (data/kernels.json "attention_kernels") */
    GPI_ATTN_KERNEL_COUNT = GPI_ATTN_DEFAULT
} gpi_attn_kernel;

typedef enum gpi_coll_op {
    GPI_COLL_ALL_REDUCE = 0,
    GPI_COLL_ALL_GATHER,
    GPI_COLL_REDUCE_SCATTER,
    GPI_COLL_ALL_TO_ALL,
    GPI_COLL_COUNT
} gpi_coll_op;

typedef struct gpi_kernel_fit {
    double gemm_half_dim;             /* s = d / (d + half_dim), d the smallest GEMM dimension */
    double gemm_train_fraction;       /* share of the MAMF a training step's GEMMs reach */
    double attn_train_fraction;       /* share of FlashAttention-2's benchmark rate a stack reaches */
    double attn_train_fraction_cudnn; /* the same for cuDNN / FlashAttention-3 */
    double elementwise_h;             /* memory-bound bytes per token per layer, units of h x 2 B */
    double elementwise_f;             /* the same for the MLP activation, units of f x 2 B */
    double layer_overhead_s;          /* launch / CPU time per layer per micro-batch (fwd + bwd), dense
                                         or MoE, where no CUDA graph replays the layer */
    double moe_imbalance;             /* routed-expert time x this (the busiest expert's excess) */
    double grouped_gemm_eff;          /* a grouped (MoE expert) GEMM's rate / a dense one's at the
                                         same per-group shape (DeepGEMM, data/kernels.json) */
    /* the likely range (private/base.h, "likely ranges"): range_p10/p90 and range_moe_p10/p90
     * for the dense and MoE pools, range_by_model_type {type: {p10, p90, cases}} for the
     * architectures with enough runs, which take precedence */
    gpi_range_table ranges;
} gpi_kernel_fit;

/* Attention sequence points: 512 << i, i = 0..GPI_ATTN_SEQ_POINTS-1 (512 .. 16,384). */
#define GPI_ATTN_SEQ_POINTS 6
/* Collective size points: 2^(GPI_COLL_LOG2_MIN + i) bytes, 32 KiB .. 16 GiB. */
#define GPI_COLL_LOG2_MIN 15
#define GPI_COLL_POINTS   20

/* One GPU's rates, precomputed at load. */
typedef struct gpi_gpu_rates {
    double gemm[GPI_K_COUNT];       /* achievable dense GEMM FLOP/s at a large shape (MAMF) */
    int gemm_measured[GPI_K_COUNT]; /* 1: a published figure for this GPU; 0: derived */
    double hbm;                     /* achievable HBM bytes/s (= the element-wise rate) */
    double hbm_peak;                /* datasheet bytes/s */
    /* attention FLOP/s by kernel, pass (0 fwd, 1 bwd), mask (0 full, 1 causal) and sequence
     * point, for head dim 128; a causal rate counts only the unmasked half of the work */
    double attn[GPI_ATTN_KERNEL_COUNT][2][2][GPI_ATTN_SEQ_POINTS];
    gpi_attn_kernel attn_default;
    const gpi_kernel_fit *fit;
} gpi_gpu_rates;

/* One link's bus-bandwidth curve: busbw = link bandwidth x frac[op][size point]. */
typedef struct gpi_link_curve {
    double frac[GPI_COLL_COUNT][GPI_COLL_POINTS];
    int ranks; /* the GPUs its all-reduce curve was measured on ("gpus"); 0 when not stated */
} gpi_link_curve;

typedef struct gpi_kernels gpi_kernels;

/* Build the table from data/kernels.json (`root`) for the catalog's GPUs and links. */
gp_status gpi_kernels_load(json_t *root, const gp_gpu *gpus, size_t n_gpus, const gpi_link *links, size_t n_links,
                           gpi_kernels **out, gp_error *err);
void gpi_kernels_free(gpi_kernels *k);

/* The rates of catalog GPU #i / the curve of catalog link #i; NULL when out of range. */
const gpi_gpu_rates *gpi_kernels_gpu(const gpi_kernels *k, size_t i);
const gpi_link_curve *gpi_kernels_link(const gpi_kernels *k, size_t i);
/* The curve for scale-out links a caller names by bandwidth only (no catalog link). */
const gpi_link_curve *gpi_kernels_scale_out(const gpi_kernels *k);
const gpi_kernel_fit *gpi_kernels_fit(const gpi_kernels *k);

/* Lookups by catalog (linear in the catalog size: call once, not per layout). NULL when the
 * GPU / link is not the catalog's own or no kernels table is loaded. */
const gpi_gpu_rates *gpi_gpu_rates_of(const gp_catalog *cat, const gp_gpu *gpu);
const gpi_link_curve *gpi_link_curve_of(const gp_catalog *cat, const char *link_id);
const gpi_kernels *gpi_catalog_kernels(const gp_catalog *cat);

/* ---- the hot-path accessors (arithmetic only) --------------------------------------- */

/* Achievable FLOP/s of one m x k by k x n GEMM in `dt`: min(MAMF x s(d), intensity x HBM),
 * s(d) = d / (d + fit->gemm_half_dim), d = min(m, n, k); intensity = 2mnk / (bytes per
 * element x (mk + kn + mn)). Not scaled by gemm_train_fraction (the caller applies it). */
double gpi_gemm_rate(const gpi_gpu_rates *r, gpi_kdtype dt, double m, double n, double k);

/* Seconds of `flops` in a grouped GEMM (MoE experts: one m x k by k x n GEMM per expert, m
 * the tokens routed to it): flops / (gpi_gemm_rate(m, n, k) x fit->grouped_gemm_eff x
 * `fraction`). gpi_gemm_rate is already the max of the compute and memory sides of one
 * group (its weights read at the achievable HBM rate when m is small), so the sum over
 * groups is the max of every active expert's weights read and the FLOPs at the shape's
 * rate. Used by the training and the serving step models alike. 0 when nothing to do. */
double gpi_grouped_gemm_s(const gpi_gpu_rates *r, gpi_kdtype dt, double flops, double m, double n, double k,
                          double fraction);

/* Attention FLOP/s for `kernel` (GPI_ATTN_DEFAULT: the GPU's), pass 0 forward / 1 backward,
 * causal 0/1, at head dim `head_dim` and sequence `seq` (interpolated in log2 seq, clamped to
 * 512..16,384). The causal rate counts the unmasked half: time = (full work / 2) / rate. */
double gpi_attn_rate(const gpi_gpu_rates *r, gpi_attn_kernel kernel, int pass, int causal, double head_dim, double seq);

/* Achievable HBM bytes/s. */
double gpi_hbm_bw(const gpi_gpu_rates *r);

/* Bus bandwidth (bytes/s) of `op` moving a `bytes` buffer (nccl-tests' size: the whole
 * buffer of an all-reduce, the gathered output of an all-gather) over a link of
 * `link_gbps` GB/s per direction, from the link's measured curve (interpolated in log2 bytes,
 * clamped to 32 KiB .. 16 GiB). Time of the collective = bytes x factor / busbw, factor
 * 2(n-1)/n for all-reduce, (n-1)/n for the others (nccl-tests doc/PERFORMANCE.md). */
double gpi_collective_busbw(const gpi_link_curve *lc, gpi_coll_op op, double bytes, double link_gbps);

/* The same by catalog (a convenience for callers outside the hot path: serving, tests). */
double gpi_gemm_rate_cat(const gp_catalog *cat, const gp_gpu *gpu, gpi_kdtype dt, double m, double n, double k);

/* Map a gp_dtype (a workload's compute dtype) to its GEMM format. */
gpi_kdtype gpi_kdtype_of(gp_dtype dt);

#endif
