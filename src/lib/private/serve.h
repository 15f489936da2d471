/*
 * private/serve.h: the step model, the serving simulator and the capacity search behind gp_serve_run.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_SERVE_H
#define GPI_PRIVATE_SERVE_H

/* Captured CUDA-graph batch sizes an engine profile may list (data/engines.json). */
#define GPI_MAX_GRAPH_SIZES 128

#include "gpuplan.h"
#include "private/base.h"

/* ---- from include/gpuplan/serve.h ---- */
/* The few calibrated constants of the step model, each with a physical meaning. */
typedef struct gpi_perf_params {
    double compute_efficiency;   /* achieved fraction of the dense tensor peak in GEMMs */
    double bandwidth_efficiency; /* achieved fraction of HBM bandwidth on streaming reads */
    double step_overhead_s;      /* per engine step: scheduling, launches, sampling (CPU side) */
    double seq_overhead_s;       /* per sequence per step: CPU bookkeeping that grows with the
                                    batch (scheduler, detokenizer, sampler metadata) */
    double collective_latency_s; /* fixed cost of one TP all-reduce (launch + synchronisation) */
    double a2a_latency_s;        /* fixed cost of one EP all-to-all (dispatch or combine) */
    double expert_imbalance;     /* routed-expert load of the busiest GPU / the mean under EP
                                    (1: perfectly even; 0: the default) */
    double inter_node_latency_s; /* added per collective that crosses nodes */
    double gemm_fraction;        /* share of the measured GEMM rate reached (measured rates
                                    only; 0: the fitted default) */
    double eager_layer_s;        /* host time per layer of a step that runs without a CUDA
                                    graph (one with a context chunk, or a batch above the largest
                                    captured): the engine dispatching each kernel of the layer
                                    from Python; host work like the per-sequence work (0: none) */
    int host_overlap;            /* 1: the host's per-sequence work (seq_overhead_s x sequences)
                                    runs beside the GPU's step (an overlap scheduler), so a step
                                    takes max(GPU, host) + step_overhead_s; 0: the host work is
                                    serial, GPU + host + step_overhead_s */
    int dp_balance;              /* attention DP (dp > 1): 1: the ranks schedule their context
                                    (prefill) work in the same steps (TensorRT-LLM
                                    attention_dp_config.enable_balance); 0: each rank schedules
                                    its own, and every MoE layer of a step waits for the rank
                                    still running its context chunk (docs/serving.md,
                                    "Attention DP") */
} gpi_perf_params;

/* Calibrated values for an engine (docs/serving.md, "Calibration"). GP_ENGINE_NONE and
 * others get vLLM's. */
void gpi_perf_params_defaults(gpi_perf_params *p, gp_engine engine);

/* Per-replica constants of the step-time formula, derived once from model, GPU, link,
 * precision and layout; evaluating a step is then O(1). Plain values; no resources. */
typedef struct gpi_step_model {
    int tp, pp, ep;
    int dp;                 /* attention data-parallel ranks in the replica (1: none);
                               the step is one rank's, its MoE layers see dp ranks' tokens */
    int nodes;              /* nodes the replica spans */
    double peak_flops;      /* dense FLOP/s per GPU at the GEMM precision x efficiency */
    double attn_peak_flops; /* FLOP/s of the attention core (16-bit) x efficiency */
    double hbm_bytes_per_s; /* HBM bandwidth per GPU x efficiency */
    /* per GPU, summed over the layers of the whole replica (all pipeline stages) */
    double dense_weight_bytes;     /* attention projections, dense MLPs, shared experts */
    double dense_flops_per_token;  /* 2 x those parameters / tp */
    double expert_bytes;           /* ONE routed expert, summed over MoE layers, per GPU */
    double expert_flops_per_token; /* 2 x k experts' parameters per token / shard */
    double experts;                /* routed experts per MoE layer (0: dense) */
    double experts_active;         /* top-k */
    double expert_shards;          /* GPUs an expert's work is spread over (tp, or ep) */
    double head_bytes;             /* LM head (+ embedding row reads, negligible) per GPU */
    double head_flops_per_seq;     /* 2 x vocab x hidden / tp per sampled sequence */
    double attn_flops_per_pair;    /* attention-core FLOPs per (query, key) pair per GPU */
    double kv_bytes_per_token;     /* KV bytes read or written per token of context per GPU */
    double window;                 /* sliding window in tokens (0: every layer attends to all) */
    double window_share;           /* share of the layers that slide (gpt-oss: 1/2) */
    double layers;                 /* decoder layers of the replica (all pipeline stages) */
    /* communication */
    double allreduce_bytes_per_token; /* activation bytes of one all-reduce per token */
    double allreduces;                /* all-reduces per step (2 per layer when tp > 1) */
    double link_bytes_per_s;          /* per direction, the link TP collectives cross */
    double a2a_bytes_per_token;       /* EP dispatch + combine bytes per token per GPU */
    double pp_link_bytes_per_s;       /* per direction between pipeline stages */
    double pp_bytes_per_token;
    double a2a_intra_share;       /* fraction of the all-to-all bytes that stay inside a node */
    double a2a_inter_bytes_per_s; /* per direction, the link between nodes */
    double a2a_count;             /* all-to-alls per step (2 per MoE layer under EP) */
    double a2a_latency_s;         /* per all-to-all, more when it crosses nodes */
    int moe_allgather;            /* 1: the MoE exchange is an all-gather of the dp ranks' tokens
                                     and a reduce-scatter of the outputs (attention DP outside a
                                     multi-node NVLink domain), not a dispatch/combine all-to-all */
    double tp_latency_s;          /* per all-reduce, more when TP crosses nodes */
    double pp_latency_s;          /* per stage boundary */
    double expert_token_scale;    /* tokens the MoE layers see per token of this rank (dp) */
    /* element-wise HBM traffic (norms, residual adds, activation function), per GPU: per
     * token of this rank over every layer, and per routed (token, expert) pair the GPU holds
     * (the MoE permutation to expert order and back, the experts' activation function) */
    double elementwise_bytes_per_token;
    double moe_elementwise_bytes_per_pair;
    double kv_bytes_per_token_replica; /* KV of one token over every layer, once (transfer) */
    gpi_perf_params params;
    /* GEMM shapes (per GPU), for the measured rates */
    double hidden;        /* d: the K of the projections into the layer */
    double dense_width;   /* dense weights per layer / (d x tp): the fused N */
    double expert_width;  /* one routed expert's weights per layer on one GPU / d */
    double head_width;    /* vocab / tp */
    double attn_head_dim; /* (d_qk + d_v) / 2 */
    /* measured rates (data/kernels.json), set by gpi_step_model_use_rates; NULL: the
     * datasheet peaks x compute_efficiency / bandwidth_efficiency */
    const struct gpi_gpu_rates *rates;
    const struct gpi_link_curve *tp_curve, *net_curve;
    int gemm_format;            /* the GEMMs' format (gpi_kdtype) */
    double gemm_fraction;       /* share of the measured GEMM rate a serving step reaches */
    double tp_link_gbps;        /* per direction, the link TP / EP cross inside a node */
    double net_gbps;            /* per direction per GPU, between nodes */
    int custom_ar;              /* the engine runs its own all-reduce kernels on this TP group
                                   (an NVLink domain, or vLLM/SGLang at TP 2); 0: NCCL only */
    double custom_ar_max_bytes; /* all-reduces up to this size use the engine's one-shot
                                   kernel (latency + bytes at the curve's asymptote) */
    double cal_gemm, cal_hbm;   /* a calibration profile's GEMM and HBM scales (0: none),
                                   kept for gpi_step_model_use_rates (docs/calibration.md) */
} gpi_step_model;

/* Build the step model. `link` is the link TP crosses when it exceeds the GPU's scale-up
 * domain (NULL: PCIe of the GPU's generation at 31.5 GB/s); `w` gives dtype and kv_dtype;
 * `l` tp, pp, ep; `params` NULL: gpi_perf_params_defaults(w->engine). */
gp_status gpi_step_model_init(const gp_model *m, const gp_gpu *gpu, const gpi_link *link, const gp_workload *w,
                              const gp_layout *l, const gpi_perf_params *params, gpi_step_model *out, gp_error *err);

/* GPUs one node of this GPU type holds for serving: its scale-up domain (NVLink: 8, NVL72:
 * 72), or 8 when it has none (a PCIe server). */
int gpi_serve_node_gpus(const gp_gpu *gpu);

/* The same, for a replica that may span nodes: `intra` is the link inside the scale-up
 * domain's absence (PCIe; NULL: the GPU's PCIe generation), `inter` the network between
 * nodes (NULL: 400 Gb/s, InfiniBand NDR per GPU). l->dp is the attention data-parallel
 * degree inside the replica (vLLM --data-parallel-size with --enable-expert-parallel,
 * SGLang --enable-dp-attention): GPUs per replica = tp x pp x dp; ep must be 1 or divide
 * tp x dp. */
gp_status gpi_step_model_init_nodes(const gp_model *m, const gp_gpu *gpu, const gpi_link *intra, const gpi_link *inter,
                                    const gp_workload *w, const gp_layout *l, const gpi_perf_params *params,
                                    gpi_step_model *out, gp_error *err);

/* Ground the step model on the catalog's measured rates (data/kernels.json): GEMMs at the
 * achievable rate of their shape (tokens x width x d), attention at its kernel's rate, the
 * achievable (not datasheet) HBM bandwidth, TP all-reduces and EP all-to-alls on the measured
 * bus-bandwidth curves of the links they cross (`inter`: the network between nodes, NULL:
 * 400 Gb/s). A catalog without kernel rates leaves `sm` as it was. */
void gpi_step_model_use_rates(gpi_step_model *sm, const gp_catalog *cat, const gp_gpu *gpu, const gpi_link *inter);

/* Seconds to move the KV cache of `tokens` prompt tokens of one request from a prefill to a
 * decode instance over `bytes_per_s` (per direction, per GPU) spread over `gpus` senders. */
double gpi_kv_transfer_time(const gpi_step_model *sm, double tokens, double bytes_per_s, int gpus);

/* What one engine step computes, as sums over the sequences it schedules. */
typedef struct gpi_batch_shape {
    double tokens;     /* new tokens: prefill chunk tokens + one per decoding sequence */
    double sampled;    /* sequences that sample a token this step (LM head rows) */
    double attn_pairs; /* sum over new tokens of the keys each attends to (causal) */
    double kv_tokens;  /* sum over scheduled sequences of context held (read once) */
    /* the same two sums on a sliding-window layer (each query attends to, and each sequence
     * reads, at most the window's keys); read only when the model has sliding layers */
    double win_pairs, win_kv_tokens;
} gpi_batch_shape;

typedef struct gpi_step_breakdown {
    double linear_s;    /* dense GEMMs: max(compute, weight read) */
    double experts_s;   /* routed experts: max(compute, touched experts' weights) */
    double attention_s; /* attention core: max(compute, KV read) */
    double head_s;      /* LM head */
    double comm_s;      /* TP all-reduces, EP all-to-all, PP transfers */
    double overhead_s;  /* the step beyond its GPU work: per-step cost + the host's
                           per-sequence work where the GPU does not hide it */
    double total_s;
    double flops;      /* per GPU */
    double bytes;      /* HBM bytes per GPU */
    int compute_bound; /* 1: the GEMM phase is compute-bound */
} gpi_step_breakdown;

/* Time of one step (seconds); `out` may be NULL. */
double gpi_step_time(const gpi_step_model *sm, const gpi_batch_shape *b, gpi_step_breakdown *out);

/* Adds to `b` one sequence's `k` new tokens after `c` cached ones: its tokens, attention
 * pairs and context read, on full and on sliding layers. `sm` gives the sliding window
 * (NULL: none); `context` 1: a prefill chunk, whose attention the window does not bound. */
void gpi_batch_add(const gpi_step_model *sm, gpi_batch_shape *b, double k, double c, int context);

/* Shapes of the two pure steps: a prefill of `prompt` tokens for one sequence, and one
 * decode token for each of `batch` sequences holding `context` tokens. `sm` gives the
 * sliding window (NULL: none). */
void gpi_batch_prefill(const gpi_step_model *sm, gpi_batch_shape *b, double prompt);

void gpi_batch_decode(const gpi_step_model *sm, gpi_batch_shape *b, double batch, double context);

/* Default spread of the log-normal lengths (docs/serving.md, "Traffic"). */
#define GPI_LOGNORMAL_SIGMA 0.5

/* The default length: log-normal with GPI_LOGNORMAL_SIGMA around `mean`, clipped to [1, 4 x mean]. */
void gpi_length_default(gp_length_spec *ls, double mean);

/* The engine's scheduler limits and KV pool for one replica. */
typedef struct gpi_sched_config {
    int64_t max_num_seqs;           /* running sequences at most (vLLM --max-num-seqs) */
    int64_t max_num_batched_tokens; /* token budget per step (chunked prefill) */
    int64_t kv_blocks;              /* KV blocks in the pool */
    int64_t block_size;             /* tokens per block */
    int64_t max_model_len;          /* prompt + output cap (0: none) */
    int reserve_full;               /* 1: admit only when the whole prompt + output fits
                                       (TensorRT-LLM GUARANTEED_NO_EVICT; never preempts);
                                       0: allocate as tokens come, preempt when full (vLLM) */
    gp_spec_decode spec;            /* speculative decoding (draft_tokens 0: off) */
    /* CUDA-graph padding: a step with no prefill chunk runs the smallest captured batch
     * size >= its sequences, the extra rows dummy requests (their GPU work counts, not their
     * host work); none captured that large: the step runs as it is. Ascending; 0: none. */
    int64_t graph_sizes[GPI_MAX_GRAPH_SIZES];
    int n_graph_sizes;
} gpi_sched_config;

/* The decode batch a step of `batch` sequences runs under sc's CUDA-graph padding. */
double gpi_graph_batch(const gpi_sched_config *sc, double batch);

/* Simulate. Allocates its pools once per call (none per request or step). */
gp_status gpi_simulate(const gpi_step_model *sm, const gpi_sched_config *sc, const gp_traffic *t, const gp_slo *slo,
                       gp_sim_result *out, gp_error *err);

/* Read a trace: CSV (header optional; columns arrival_s, prompt_tokens, output_tokens) or
 * JSONL (objects with keys arrival_s|timestamp, prompt_tokens|input_tokens,
 * output_tokens). Allocates *out (free with gpi_trace_free). Errors name file and line. */
gp_status gpi_trace_read(const char *path, gp_trace_request **out, size_t *n, gp_error *err);

void gpi_trace_free(gp_trace_request *t);

typedef struct gpi_capacity_request {
    const gp_model *model;
    const gp_workload *w;      /* dtype, kv_dtype, engine, gpu_memory_utilization, block size */
    gp_traffic traffic;        /* the whole load (users or rate), split over replicas */
    gp_slo slo;                /* p99 targets (0: none) */
    int redundancy;            /* extra replicas that may fail (n+1: 1) */
    const gp_gpu *const *gpus; /* candidate GPU types (NULL: every priced catalog GPU) */
    size_t n_gpus;
    int fixed_tp;                     /* > 0: only this TP */
    int max_replicas;                 /* search limit (0: 1024) */
    const gpi_perf_params *params;    /* NULL: engine defaults */
    int fixed_pp, fixed_ep, fixed_dp; /* > 0: only this degree */
    const gpi_link *inter_node;       /* network between nodes (NULL: the catalog's ib-ndr) */
    int max_nodes;                    /* nodes per replica at most (0: 4) */
    gp_spec_decode spec;              /* speculative decoding for every setup (draft_tokens 0: off) */
    /* the budget of the whole search is traffic.work (NULL: GPI_WORK_DEFAULT for this call) */
} gpi_capacity_request;

/* The reasons in the language asked: "pt-BR" puts each message_pt in message; else nothing. */
void gpi_capacity_set_lang(gp_capacity_result *r, const char *lang);

/* Price per GPU-hour (USD) of the built-in data/prices.json, ignoring --data-dir; 0 if none.
 * Deprecated: gpi_catalog_gpu_price is the price the search ranks by. */
double gpi_gpu_hourly_price(const gp_gpu *gpu);

/* Search. The result is large (caller-owned); `cat` gives links and, with gpus NULL, the
 * candidates. */
/* One scheduler's share of a load split over n schedulers (replicas x attention-DP ranks),
 * with the request counts the search simulates: closed-loop users and open-loop rates are
 * divided; an unset request count becomes the search's (10 per user, 1,000 to 4,000). */
gp_traffic gpi_capacity_share(const gp_traffic *t, int n);

gp_status gpi_capacity_search(const gp_catalog *cat, const gpi_capacity_request *req, gp_capacity_result *out,
                              gp_error *err);

/* The cheapest split into x prefill and y decode instances (each pool its own GPU type and
 * layout among req's candidates) meeting req->slo, the KV cache crossing `kv_link` (NULL:
 * InfiniBand NDR); and the aggregated answer beside it. A closed-loop load (users). */
gp_status gpi_disagg_search(const gp_catalog *cat, const gpi_capacity_request *req, const gpi_link *kv_link,
                            gp_disagg_result *out, gp_error *err);

/* How an engine schedules by default, resolved for one GPU type and TP (docs/serving.md,
 * "Engine profiles"). vLLM, SGLang and TensorRT-LLM have their own; the others get vLLM's. */
typedef struct gpi_engine_profile {
    char id[16]; /* "vllm", "sglang", "trtllm" */
    char release[64];
    int chunked_prefill;            /* 1: on by default (the simulator always chunks; 0 is shown) */
    int64_t max_num_batched_tokens; /* token budget per step */
    int64_t max_num_seqs;           /* running sequences at most */
    int64_t block_size;             /* KV tokens per block (page) */
    double kv_fraction;             /* share of the memory left after weights and activations
                                       given to KV (TensorRT-LLM 0.9; 0: the memory model's) */
    int reserve_full;               /* 1: admit only whole prompt + output (never preempt) */
    int cuda_graphs;
    int64_t cuda_graph_max_batch;
    int64_t graph_sizes[GPI_MAX_GRAPH_SIZES]; /* captured batch sizes decode steps are padded
                                                 to (cuda_graph_batch_sizes; 0: no padding) */
    int n_graph_sizes;
    double step_overhead_s, seq_overhead_s; /* per step; host work per sequence per step */
    double eager_layer_s;                   /* host work per layer of a step run without a graph */
    int host_overlap;                       /* 1: an overlap scheduler hides the host work behind the
                                               GPU step (gpi_perf_params.host_overlap) */
    int host_overlap_pp;                    /* ... also when the replica is pipelined (pp > 1) */
} gpi_engine_profile;

/* The profile of `engine` for `gpu` at TP `tp` from the catalog's engines.json. GP_ENOTFOUND
 * when the catalog has none for it. */
gp_status gpi_engine_profile_get(const gp_catalog *cat, gp_engine engine, const gp_gpu *gpu, int tp,
                                 gpi_engine_profile *out, gp_error *err);

/* Checks what gpi_engine_profile_get cannot leave to a tier of `engines` (data/engines.json
 * merged with a user's): every profile's cuda_graph_batch_sizes and eager_layer_us, and that it
 * has the keys every profile needs (a user's profile replaces the built-in one whole: a partial
 * one would otherwise fall back to the built-in rules unnoticed). GP_EPARSE names the file and
 * the field. */
struct json_t;
gp_status gpi_engines_check(struct json_t *engines, gp_error *err);
/* Reads and checks data/engines.json "error_ranges" (the likely ranges of serving estimates:
 * docs/serving.md, "Ranges") into `t`, at catalog load. GP_EPARSE names the bad group. */
gp_status gpi_serve_ranges_load(struct json_t *engines, gpi_range_table *t, gp_error *err);

/* The step model's parameters under a profile: gpi_perf_params_defaults of `engine` with the
 * profile's per-step overhead and host work per sequence, overlapped with the GPU step when
 * the engine's overlap scheduler runs at pipeline degree `pp` (TensorRT-LLM's does only
 * without pipeline parallelism). `prof` NULL: the defaults alone. */
void gpi_perf_params_profile(gpi_perf_params *p, gp_engine engine, const gpi_engine_profile *prof, int pp);

/* gpi_serve_sched_config under a profile (NULL: the built-in vLLM / TensorRT-LLM rules). */
gp_status gpi_serve_sched_config_profile(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                                         int64_t max_model_len, const gpi_engine_profile *prof, gpi_sched_config *sc,
                                         gp_error *err);

/* KV pool and scheduler limits of one replica under the engine's accounting (vLLM rules via
 * gpi_memory_estimate): fills sc; returns GP_EINVAL with a message if the weights do not
 * fit. `max_model_len` caps prompt + output. */
gp_status gpi_serve_sched_config(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                                 int64_t max_model_len, gpi_sched_config *sc, gp_error *err);

#endif /* GPI_PRIVATE_SERVE_H */
