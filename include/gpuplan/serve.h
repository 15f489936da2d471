/*
 * gpuplan/serve.h: serving performance (included by gpuplan.h; not a header of its own).
 *
 * Three layers, each usable alone (docs/serving.md gives every formula and source):
 *  1. Step latency: the time of one engine step (a batch of prefill chunks and decode tokens)
 *     on one replica under a layout, as a roofline per phase plus communication and a fixed
 *     per-step overhead (gp_step_model_init, gp_step_time).
 *  2. Serving simulation: a discrete-event simulation of a continuous-batching engine
 *     (vLLM/SGLang-like: chunked prefill under a token budget, a cap on running sequences,
 *     paged KV blocks with preemption by recomputation) fed by open-loop, closed-loop or
 *     trace traffic (gp_simulate). Deterministic for a seed.
 *  3. Capacity search: the cheapest GPU type x TP x replicas meeting latency targets for a
 *     load, with redundancy, and why fewer GPUs miss (gp_capacity_search).
 * Nothing here prints, exits or keeps global state.
 */
#ifndef GPUPLAN_SERVE_H
#define GPUPLAN_SERVE_H

/* ---- 1. step latency ------------------------------------------------------------------ */

struct gpi_gpu_rates;  /* measured rates (src/lib/hw/kernels.h, private) */
struct gpi_link_curve;

/* The few calibrated constants of the step model, each with a physical meaning. */
typedef struct gp_perf_params {
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
} gp_perf_params;

/* Calibrated values for an engine (docs/serving.md, "Calibration"). GP_ENGINE_NONE and
 * others get vLLM's. */
GP_API void gp_perf_params_defaults(gp_perf_params *p, gp_engine engine);

/* Per-replica constants of the step-time formula, derived once from model, GPU, link,
 * precision and layout; evaluating a step is then O(1). Plain values; no resources. */
typedef struct gp_step_model {
    int tp, pp, ep;
    int dp;                      /* attention data-parallel ranks in the replica (1: none);
                                    the step is one rank's, its MoE layers see dp ranks' tokens */
    int nodes;                   /* nodes the replica spans */
    double peak_flops;           /* dense FLOP/s per GPU at the GEMM precision x efficiency */
    double attn_peak_flops;      /* FLOP/s of the attention core (16-bit) x efficiency */
    double hbm_bytes_per_s;      /* HBM bandwidth per GPU x efficiency */
    /* per GPU, summed over the layers of the whole replica (all pipeline stages) */
    double dense_weight_bytes;   /* attention projections, dense MLPs, shared experts */
    double dense_flops_per_token;/* 2 x those parameters / tp */
    double expert_bytes;         /* ONE routed expert, summed over MoE layers, per GPU */
    double expert_flops_per_token; /* 2 x k experts' parameters per token / shard */
    double experts;              /* routed experts per MoE layer (0: dense) */
    double experts_active;       /* top-k */
    double expert_shards;        /* GPUs an expert's work is spread over (tp, or ep) */
    double head_bytes;           /* LM head (+ embedding row reads, negligible) per GPU */
    double head_flops_per_seq;   /* 2 x vocab x hidden / tp per sampled sequence */
    double attn_flops_per_pair;  /* attention-core FLOPs per (query, key) pair per GPU */
    double kv_bytes_per_token;   /* KV bytes read or written per token of context per GPU */
    /* communication */
    double allreduce_bytes_per_token; /* activation bytes of one all-reduce per token */
    double allreduces;           /* all-reduces per step (2 per layer when tp > 1) */
    double link_bytes_per_s;     /* per direction, the link TP collectives cross */
    double a2a_bytes_per_token;  /* EP dispatch + combine bytes per token per GPU */
    double pp_link_bytes_per_s;  /* per direction between pipeline stages */
    double pp_bytes_per_token;
    double a2a_intra_share;      /* fraction of the all-to-all bytes that stay inside a node */
    double a2a_inter_bytes_per_s;/* per direction, the link between nodes */
    double a2a_count;            /* all-to-alls per step (2 per MoE layer under EP) */
    double a2a_latency_s;        /* per all-to-all, more when it crosses nodes */
    int moe_allgather;           /* 1: the MoE exchange is an all-gather of the dp ranks' tokens
                                    and a reduce-scatter of the outputs (attention DP outside a
                                    multi-node NVLink domain), not a dispatch/combine all-to-all */
    double tp_latency_s;         /* per all-reduce, more when TP crosses nodes */
    double pp_latency_s;         /* per stage boundary */
    double expert_token_scale;   /* tokens the MoE layers see per token of this rank (dp) */
    /* element-wise HBM traffic (norms, residual adds, activation function), per GPU: per
     * token of this rank over every layer, and per routed (token, expert) pair the GPU holds
     * (the MoE permutation to expert order and back, the experts' activation function) */
    double elementwise_bytes_per_token;
    double moe_elementwise_bytes_per_pair;
    double kv_bytes_per_token_replica; /* KV of one token over every layer, once (transfer) */
    gp_perf_params params;
    /* GEMM shapes (per GPU), for the measured rates */
    double hidden;               /* d: the K of the projections into the layer */
    double dense_width;          /* dense weights per layer / (d x tp): the fused N */
    double expert_width;         /* one routed expert's weights per layer on one GPU / d */
    double head_width;           /* vocab / tp */
    double attn_head_dim;        /* (d_qk + d_v) / 2 */
    /* measured rates (data/kernels.json), set by gp_step_model_use_rates; NULL: the
     * datasheet peaks x compute_efficiency / bandwidth_efficiency */
    const struct gpi_gpu_rates *rates;
    const struct gpi_link_curve *tp_curve, *net_curve;
    int gemm_format;             /* the GEMMs' format (gpi_kdtype) */
    double gemm_fraction;        /* share of the measured GEMM rate a serving step reaches */
    double tp_link_gbps;         /* per direction, the link TP / EP cross inside a node */
    double net_gbps;             /* per direction per GPU, between nodes */
    double custom_ar_max_bytes;  /* all-reduces up to this size use the engine's one-shot
                                    kernel (latency + bytes at the curve's asymptote) */
    double cal_gemm, cal_hbm;    /* a calibration profile's GEMM and HBM scales (0: none),
                                    kept for gp_step_model_use_rates (docs/calibration.md) */
} gp_step_model;

/* Build the step model. `link` is the link TP crosses when it exceeds the GPU's scale-up
 * domain (NULL: PCIe of the GPU's generation at 31.5 GB/s); `w` gives dtype and kv_dtype;
 * `l` tp, pp, ep; `params` NULL: gp_perf_params_defaults(w->engine). */
GP_API gp_status gp_step_model_init(const gp_model *m, const gp_gpu *gpu, const gp_link *link,
                                    const gp_workload *w, const gp_layout *l,
                                    const gp_perf_params *params, gp_step_model *out,
                                    gp_error *err);

/* GPUs one node of this GPU type holds for serving: its scale-up domain (NVLink: 8, NVL72:
 * 72), or 8 when it has none (a PCIe server). */
GP_API int gp_serve_node_gpus(const gp_gpu *gpu);

/* The same, for a replica that may span nodes: `intra` is the link inside the scale-up
 * domain's absence (PCIe; NULL: the GPU's PCIe generation), `inter` the network between
 * nodes (NULL: 400 Gb/s, InfiniBand NDR per GPU). l->dp is the attention data-parallel
 * degree inside the replica (vLLM --data-parallel-size with --enable-expert-parallel,
 * SGLang --enable-dp-attention): GPUs per replica = tp x pp x dp; ep must be 1 or divide
 * tp x dp. */
GP_API gp_status gp_step_model_init_nodes(const gp_model *m, const gp_gpu *gpu, const gp_link *intra,
                                          const gp_link *inter, const gp_workload *w,
                                          const gp_layout *l, const gp_perf_params *params,
                                          gp_step_model *out, gp_error *err);

/* Ground the step model on the catalog's measured rates (data/kernels.json): GEMMs at the
 * achievable rate of their shape (tokens x width x d), attention at its kernel's rate, the
 * achievable (not datasheet) HBM bandwidth, TP all-reduces and EP all-to-alls on the measured
 * bus-bandwidth curves of the links they cross (`inter`: the network between nodes, NULL:
 * 400 Gb/s). A catalog without kernel rates leaves `sm` as it was. */
GP_API void gp_step_model_use_rates(gp_step_model *sm, const gp_catalog *cat, const gp_gpu *gpu,
                                    const gp_link *inter);

/* Seconds to move the KV cache of `tokens` prompt tokens of one request from a prefill to a
 * decode instance over `bytes_per_s` (per direction, per GPU) spread over `gpus` senders. */
GP_API double gp_kv_transfer_time(const gp_step_model *sm, double tokens, double bytes_per_s, int gpus);

/* What one engine step computes, as sums over the sequences it schedules. */
typedef struct gp_batch_shape {
    double tokens;         /* new tokens: prefill chunk tokens + one per decoding sequence */
    double sampled;        /* sequences that sample a token this step (LM head rows) */
    double attn_pairs;     /* sum over new tokens of the keys each attends to (causal) */
    double kv_tokens;      /* sum over scheduled sequences of context held (read once) */
} gp_batch_shape;

typedef struct gp_step_breakdown {
    double linear_s;       /* dense GEMMs: max(compute, weight read) */
    double experts_s;      /* routed experts: max(compute, touched experts' weights) */
    double attention_s;    /* attention core: max(compute, KV read) */
    double head_s;         /* LM head */
    double comm_s;         /* TP all-reduces, EP all-to-all, PP transfers */
    double overhead_s;     /* the step beyond its GPU work: per-step cost + the host's
                              per-sequence work where the GPU does not hide it */
    double total_s;
    double flops;          /* per GPU */
    double bytes;          /* HBM bytes per GPU */
    int compute_bound;     /* 1: the GEMM phase is compute-bound */
} gp_step_breakdown;

/* Time of one step (seconds); `out` may be NULL. */
GP_API double gp_step_time(const gp_step_model *sm, const gp_batch_shape *b, gp_step_breakdown *out);

/* Shapes of the two pure steps: a prefill of `prompt` tokens for one sequence, and one
 * decode token for each of `batch` sequences holding `context` tokens. */
GP_API void gp_batch_prefill(gp_batch_shape *b, double prompt);
GP_API void gp_batch_decode(gp_batch_shape *b, double batch, double context);

/* ---- 2. serving simulation ------------------------------------------------------------ */

typedef enum gp_arrival_kind {
    GP_ARRIVAL_POISSON = 0,  /* open loop, exponential gaps at `rate` */
    GP_ARRIVAL_FIXED_RATE,   /* open loop, gaps of exactly 1/rate */
    GP_ARRIVAL_BURST,        /* every request at t = 0 (rate = inf: offline benchmarks) */
    GP_ARRIVAL_CLOSED_LOOP,  /* `users` each send, wait for the answer, think, send again */
    GP_ARRIVAL_TRACE,        /* arrival times and lengths from a trace */
    GP_ARRIVAL_COUNT
} gp_arrival_kind;

typedef enum gp_length_dist {
    GP_LENGTH_FIXED = 0,     /* always `mean` */
    GP_LENGTH_UNIFORM,       /* uniform integer in [min, max] */
    GP_LENGTH_EXPONENTIAL,   /* exponential with `mean`, clipped to [min, max] */
    GP_LENGTH_LOGNORMAL,     /* log-normal with `mean` and log-space spread `sigma`, clipped */
    GP_LENGTH_COUNT
} gp_length_dist;

typedef struct gp_length_spec {
    gp_length_dist dist;
    double mean;
    int64_t min, max;        /* bounds (0: 1 and unbounded) */
    double sigma;            /* log-normal: standard deviation of ln(length) (0: GP_LOGNORMAL_SIGMA) */
} gp_length_spec;

/* Default spread of the log-normal lengths (docs/serving.md, "Traffic"). */
#define GP_LOGNORMAL_SIGMA 0.5
/* The default length: log-normal with GP_LOGNORMAL_SIGMA around `mean`, clipped to [1, 4 x mean]. */
GP_API void gp_length_default(gp_length_spec *ls, double mean);

typedef struct gp_trace_request {
    double arrival_s;
    int64_t prompt_tokens;
    int64_t output_tokens;
} gp_trace_request;

typedef struct gp_traffic {
    gp_arrival_kind arrival;
    double rate;             /* requests/s (Poisson, fixed rate) */
    int64_t users;           /* closed loop */
    double think_time_s;     /* closed loop, mean (exponential), 0: none */
    int64_t requests;        /* requests to simulate (trace: its length if 0 or larger) */
    gp_length_spec prompt, output;
    const gp_trace_request *trace; /* borrowed */
    size_t trace_len;
    uint64_t seed;
    double prefix_hit;       /* fraction of each prompt already in the prefix cache [0, 1) */
    int lockstep;            /* closed loop: 1 = every user starts at t = 0 (the old fixed
                                mode); 0 = starts spread over one request's duration */
    int (*cancel)(void *arg);      /* polled in the simulation loop: non-zero stops it with
                                      GP_ELIMIT (a deadline, a server stopping); NULL: never */
    void *cancel_arg;
    gp_work *work;           /* the question's budget, shared by the simulations of a search
                                (NULL: GP_WORK_DEFAULT for this call) */
} gp_traffic;

/* Speculative decoding: a draft (a small model, or DeepSeek's multi-token-prediction head)
 * proposes `draft_tokens` per step, the target verifies them in the same step; each is
 * accepted with probability `acceptance` until the first rejection, plus one token of the
 * target's own (Leviathan et al. 2023). */
typedef struct gp_spec_decode {
    int draft_tokens;        /* 0: off */
    double acceptance;       /* (0, 1) */
    double draft_cost;       /* one draft token's time / one target decode step (MTP: one
                                layer of ~60: 0.02; a 1B draft for a 70B target: ~0.05) */
} gp_spec_decode;

/* The engine's scheduler limits and KV pool for one replica. */
typedef struct gp_sched_config {
    int64_t max_num_seqs;           /* running sequences at most (vLLM --max-num-seqs) */
    int64_t max_num_batched_tokens; /* token budget per step (chunked prefill) */
    int64_t kv_blocks;              /* KV blocks in the pool */
    int64_t block_size;             /* tokens per block */
    int64_t max_model_len;          /* prompt + output cap (0: none) */
    int reserve_full;               /* 1: admit only when the whole prompt + output fits
                                       (TensorRT-LLM GUARANTEED_NO_EVICT; never preempts);
                                       0: allocate as tokens come, preempt when full (vLLM) */
    gp_spec_decode spec;            /* speculative decoding (draft_tokens 0: off) */
} gp_sched_config;

typedef struct gp_slo {
    double ttft_s;           /* per-request targets for goodput; 0: none */
    double tpot_s;
} gp_slo;

typedef struct gp_latency_stats {
    double mean, p50, p90, p99, max;
} gp_latency_stats;

typedef struct gp_sim_result {
    int64_t requests;          /* completed and counted (closed-loop warm-up excluded) */
    int64_t rejected;          /* longer than max_model_len or the whole KV pool */
    double duration_s;         /* first arrival to last completion of counted requests */
    gp_latency_stats ttft, tpot, e2e; /* seconds; TPOT = (e2e - ttft) / (output - 1) */
    double requests_per_s;
    double output_tokens_per_s;
    double total_tokens_per_s; /* prompt + output */
    double goodput_requests_per_s; /* requests meeting both targets, per second */
    double slo_attainment;     /* fraction of requests meeting both targets */
    double kv_utilization_mean;/* time-weighted fraction of KV blocks in use */
    double kv_utilization_peak;
    double mean_running;       /* time-weighted running sequences */
    int64_t preemptions;
    int64_t steps;
    int stopped_early;         /* 1: stopped once the p99 targets were certain to be missed
                                  (capacity search); the statistics cover the part simulated */
} gp_sim_result;

/* Simulate. Allocates its pools once per call (none per request or step). */
GP_API gp_status gp_simulate(const gp_step_model *sm, const gp_sched_config *sc,
                             const gp_traffic *t, const gp_slo *slo, gp_sim_result *out,
                             gp_error *err);

/* Read a trace: CSV (header optional; columns arrival_s, prompt_tokens, output_tokens) or
 * JSONL (objects with keys arrival_s|timestamp, prompt_tokens|input_tokens,
 * output_tokens). Allocates *out (free with gp_trace_free). Errors name file and line. */
GP_API gp_status gp_trace_read(const char *path, gp_trace_request **out, size_t *n, gp_error *err);
GP_API void gp_trace_free(gp_trace_request *t);

/* ---- 3. capacity search --------------------------------------------------------------- */

typedef enum gp_serve_reason_code {
    GP_SERVE_ONE_GPU_ENOUGH = 0,   /* one GPU meets the targets */
    GP_SERVE_MODEL_DOES_NOT_FIT,   /* the weights (+ minimal KV) exceed one GPU */
    GP_SERVE_CONCURRENCY,          /* one replica's KV/throughput cannot carry the load */
    GP_SERVE_LATENCY,              /* the latency target needs more GPUs per replica (TP) */
    GP_SERVE_REDUNDANCY,           /* n+1: one more replica to survive a failure */
    GP_SERVE_LARGER_GPU_BETTER,    /* one larger GPU per replica beats two smaller */
    GP_SERVE_NO_SETUP,             /* nothing up to the search limits meets the targets */
    GP_SERVE_MULTI_NODE,           /* the replica spans nodes (the model needs them), or why
                                      one node wins over a multi-node layout */
    GP_SERVE_EXPERT_PARALLEL,      /* EP / attention DP beats TP for the MoE layers, or not */
    GP_SERVE_REASON_COUNT
} gp_serve_reason_code;

GP_API const char *gp_serve_reason_name(gp_serve_reason_code c); /* "concurrency" */

typedef struct gp_serve_reason {
    gp_serve_reason_code code;
    char message[GP_ERROR_MSG_MAX];
    char message_pt[GP_ERROR_MSG_MAX]; /* the same in Brazilian Portuguese (render/messages.c) */
} gp_serve_reason;

#define GP_SERVE_MAX_CANDIDATES 64
#define GP_SERVE_MAX_REASONS 8

/* One evaluated setup. */
typedef struct gp_serve_option {
    char gpu[64];
    int tp, pp, ep, replicas;
    int gpus_total;
    int dp;                    /* attention data-parallel ranks inside a replica */
    int gpus_per_replica;      /* tp x pp x dp */
    int nodes_per_replica;
    double usd_per_hour;       /* gpus_total x price per GPU-hour (0: no price known) */
    int fits;                  /* weights and at least one full sequence fit */
    int meets;                 /* the targets hold at the load (with n+1: on replicas-1) */
    int64_t kv_tokens;         /* per replica */
    double max_concurrency;    /* per replica, sequences of prompt+output tokens */
    gp_sim_result sim;         /* the load on one replica (the worst case for redundancy) */
    double single_ttft_s, single_tpot_s; /* one request alone on one replica */
} gp_serve_option;

typedef struct gp_capacity_request {
    const gp_model *model;
    const gp_workload *w;      /* dtype, kv_dtype, engine, gpu_memory_utilization, block size */
    gp_traffic traffic;        /* the whole load (users or rate), split over replicas */
    gp_slo slo;                /* p99 targets (0: none) */
    int redundancy;            /* extra replicas that may fail (n+1: 1) */
    const gp_gpu *const *gpus; /* candidate GPU types (NULL: every priced catalog GPU) */
    size_t n_gpus;
    int fixed_tp;              /* > 0: only this TP */
    int max_replicas;          /* search limit (0: 1024) */
    const gp_perf_params *params; /* NULL: engine defaults */
    int fixed_pp, fixed_ep, fixed_dp; /* > 0: only this degree */
    const gp_link *inter_node; /* network between nodes (NULL: the catalog's ib-ndr) */
    int max_nodes;             /* nodes per replica at most (0: 4) */
    gp_spec_decode spec;       /* speculative decoding for every setup (draft_tokens 0: off) */
    /* the budget of the whole search is traffic.work (NULL: GP_WORK_DEFAULT for this call) */
} gp_capacity_request;

typedef struct gp_capacity_result {
    int found;
    gp_serve_option best;      /* the cheapest setup meeting the targets */
    int n_options;             /* the cheapest meeting setup per (GPU, TP), and misses */
    gp_serve_option options[GP_SERVE_MAX_CANDIDATES];
    int has_fewer;             /* 1: `fewer` holds the best setup with one replica less */
    gp_serve_option fewer;     /* ... and its (missed) latencies, the evidence for `best` */
    int n_reasons;
    gp_serve_reason reasons[GP_SERVE_MAX_REASONS];
} gp_capacity_result;

/* The reasons in the language asked: "pt-BR" puts each message_pt in message; else nothing. */
GP_API void gp_capacity_set_lang(gp_capacity_result *r, const char *lang);

/* Price per GPU-hour (USD) of the built-in data/prices.json, ignoring --data-dir; 0 if none.
 * Deprecated: gp_catalog_gpu_price is the price the search ranks by. */
GP_API double gp_gpu_hourly_price(const gp_gpu *gpu);

/* Search. The result is large (caller-owned); `cat` gives links and, with gpus NULL, the
 * candidates. */
/* One scheduler's share of a load split over n schedulers (replicas x attention-DP ranks),
 * with the request counts the search simulates: closed-loop users and open-loop rates are
 * divided; an unset request count becomes the search's (10 per user, 1,000 to 4,000). */
GP_API gp_traffic gp_capacity_share(const gp_traffic *t, int n);

GP_API gp_status gp_capacity_search(const gp_catalog *cat, const gp_capacity_request *req,
                                    gp_capacity_result *out, gp_error *err);

/* ---- 4. disaggregated prefill / decode ------------------------------------------------- */

/* One pool of a disaggregated setup: `instances` engines of one layout on one GPU type. */
typedef struct gp_disagg_pool {
    int found;
    char gpu[64];
    int tp, pp, ep, dp;
    int instances;
    int gpus_per_instance, gpus_total;
    double usd_per_hour;
    gp_sim_result sim;         /* one instance (one attention-DP rank) under its share */
} gp_disagg_pool;

typedef struct gp_disagg_result {
    int found;
    gp_disagg_pool prefill, decode;
    char kv_link[48];          /* the link the KV cache crosses from prefill to decode */
    double kv_transfer_s;      /* for a request of the mean prompt */
    double request_rate;       /* requests/s the users send (from the decode pool's loop) */
    double ttft_p99_s;         /* prefill p99 + KV transfer + the decode's first step */
    double tpot_p99_s;
    double usd_per_hour;
    int gpus_total;
    int has_aggregated;        /* the aggregated search's answer for the same load */
    gp_serve_option aggregated;
    int pays;                  /* 1: the disaggregated setup costs less per hour */
    char why[GP_ERROR_MSG_MAX];
} gp_disagg_result;

/* The cheapest split into x prefill and y decode instances (each pool its own GPU type and
 * layout among req's candidates) meeting req->slo, the KV cache crossing `kv_link` (NULL:
 * InfiniBand NDR); and the aggregated answer beside it. A closed-loop load (users). */
GP_API gp_status gp_disagg_search(const gp_catalog *cat, const gp_capacity_request *req, const gp_link *kv_link,
                                  gp_disagg_result *out, gp_error *err);

/* ---- 5. engine profiles (data/engines.json) -------------------------------------------- */

/* How an engine schedules by default, resolved for one GPU type and TP (docs/serving.md,
 * "Engine profiles"). vLLM, SGLang and TensorRT-LLM have their own; the others get vLLM's. */
typedef struct gp_engine_profile {
    char id[16];                    /* "vllm", "sglang", "trtllm" */
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
    double step_overhead_s, seq_overhead_s; /* per step; host work per sequence per step */
    int host_overlap;               /* 1: an overlap scheduler hides the host work behind the
                                       GPU step (gp_perf_params.host_overlap) */
    int host_overlap_pp;            /* ... also when the replica is pipelined (pp > 1) */
} gp_engine_profile;

/* The profile of `engine` for `gpu` at TP `tp` from the catalog's engines.json. GP_ENOTFOUND
 * when the catalog has none for it. */
GP_API gp_status gp_engine_profile_get(const gp_catalog *cat, gp_engine engine, const gp_gpu *gpu, int tp,
                                       gp_engine_profile *out, gp_error *err);

/* The step model's parameters under a profile: gp_perf_params_defaults of `engine` with the
 * profile's per-step overhead and host work per sequence, overlapped with the GPU step when
 * the engine's overlap scheduler runs at pipeline degree `pp` (TensorRT-LLM's does only
 * without pipeline parallelism). `prof` NULL: the defaults alone. */
GP_API void gp_perf_params_profile(gp_perf_params *p, gp_engine engine, const gp_engine_profile *prof, int pp);

/* gp_serve_sched_config under a profile (NULL: the built-in vLLM / TensorRT-LLM rules). */
GP_API gp_status gp_serve_sched_config_profile(const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                                               const gp_layout *l, int64_t max_model_len,
                                               const gp_engine_profile *prof, gp_sched_config *sc,
                                               gp_error *err);

/* KV pool and scheduler limits of one replica under the engine's accounting (vLLM rules via
 * gp_memory_estimate): fills sc; returns GP_EINVAL with a message if the weights do not
 * fit. `max_model_len` caps prompt + output. */
GP_API gp_status gp_serve_sched_config(const gp_model *m, const gp_gpu *gpu,
                                       const gp_workload *w, const gp_layout *l,
                                       int64_t max_model_len, gp_sched_config *sc,
                                       gp_error *err);

#endif /* GPUPLAN_SERVE_H */
