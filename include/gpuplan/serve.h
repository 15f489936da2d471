/*
 * gpuplan/serve.h: what a serving answer holds (included by gpuplan.h; not a header of its own).
 *
 * gp_serve_run (gpuplan/run.h) answers with a gp_serve_answer: the load as simulated
 * (gp_traffic), the setups evaluated (gp_serve_option, each with its simulated latencies,
 * gp_sim_result), the capacity search's reasons (gp_capacity_result) and, when asked, the
 * disaggregated prefill/decode pools (gp_disagg_result). docs/serving.md gives every formula
 * and source. The step model, the simulator and the search behind them are the library's own
 * (src/lib/private/serve.h), not API.
 *
 * Ownership: every struct here is a plain value inside a gp_result (or copied out of one);
 * pointers in them are borrowed from the result. Thread safety: read-only once returned.
 */
#ifndef GPUPLAN_SERVE_H
#define GPUPLAN_SERVE_H

struct gpi_gpu_rates; /* measured rates (src/lib/hw/kernels.h, private) */
struct gpi_link_curve;

/* ---- 2. serving simulation ------------------------------------------------------------ */

typedef enum gp_arrival_kind {
    GP_ARRIVAL_POISSON = 0, /* open loop, exponential gaps at `rate` */
    GP_ARRIVAL_FIXED_RATE,  /* open loop, gaps of exactly 1/rate */
    GP_ARRIVAL_BURST,       /* every request at t = 0 (rate = inf: offline benchmarks) */
    GP_ARRIVAL_CLOSED_LOOP, /* `users` each send, wait for the answer, think, send again */
    GP_ARRIVAL_TRACE,       /* arrival times and lengths from a trace */
    GP_ARRIVAL_COUNT
} gp_arrival_kind;

typedef enum gp_length_dist {
    GP_LENGTH_FIXED = 0,   /* always `mean` */
    GP_LENGTH_UNIFORM,     /* uniform integer in [min, max] */
    GP_LENGTH_EXPONENTIAL, /* exponential with `mean`, clipped to [min, max] */
    GP_LENGTH_LOGNORMAL,   /* log-normal with `mean` and log-space spread `sigma`, clipped */
    GP_LENGTH_COUNT
} gp_length_dist;

typedef struct gp_length_spec {
    gp_length_dist dist;
    double mean;
    int64_t min, max; /* bounds (0: 1 and unbounded) */
    double sigma;     /* log-normal: standard deviation of ln(length) (0: 0.5, docs/serving.md) */
} gp_length_spec;

typedef struct gp_trace_request {
    double arrival_s;
    int64_t prompt_tokens;
    int64_t output_tokens;
} gp_trace_request;

typedef struct gp_traffic {
    gp_arrival_kind arrival;
    double rate;         /* requests/s (Poisson, fixed rate) */
    int64_t users;       /* closed loop */
    double think_time_s; /* closed loop, mean (exponential), 0: none */
    int64_t requests;    /* requests to simulate (trace: its length if 0 or larger) */
    gp_length_spec prompt, output;
    const gp_trace_request *trace; /* borrowed */
    size_t trace_len;
    uint64_t seed;
    double prefix_hit;        /* fraction of each prompt already in the prefix cache [0, 1) */
    int lockstep;             /* closed loop: 1 = every user starts at t = 0 (the old fixed
                                 mode); 0 = starts spread over one request's duration */
    int (*cancel)(void *arg); /* polled in the simulation loop: non-zero stops it with
                                 GP_ELIMIT (a deadline, a server stopping); NULL: never */
    void *cancel_arg;
    gp_work *work; /* the question's budget, shared by the simulations of a search
                      (set by the run functions; NULL in a result) */
} gp_traffic;

/* Speculative decoding: a draft (a small model, or DeepSeek's multi-token-prediction head)
 * proposes `draft_tokens` per step, the target verifies them in the same step; each is
 * accepted with probability `acceptance` until the first rejection, plus one token of the
 * target's own (Leviathan et al. 2023). */
typedef struct gp_spec_decode {
    int draft_tokens;  /* 0: off */
    double acceptance; /* (0, 1) */
    double draft_cost; /* one draft token's time / one target decode step (MTP: one
                          layer of ~60: 0.02; a 1B draft for a 70B target: ~0.05) */
} gp_spec_decode;

typedef struct gp_slo {
    double ttft_s; /* per-request targets for goodput; 0: none */
    double tpot_s;
} gp_slo;

typedef struct gp_latency_stats {
    double mean, p50, p90, p99, max;
} gp_latency_stats;

typedef struct gp_sim_result {
    int64_t requests;                 /* completed and counted (closed-loop warm-up excluded) */
    int64_t rejected;                 /* longer than max_model_len or the whole KV pool */
    double duration_s;                /* first arrival to last completion of counted requests */
    gp_latency_stats ttft, tpot, e2e; /* seconds; TPOT = (e2e - ttft) / (output - 1) */
    double requests_per_s;
    double output_tokens_per_s;
    double total_tokens_per_s;     /* prompt + output */
    double goodput_requests_per_s; /* requests meeting both targets, per second */
    double slo_attainment;         /* fraction of requests meeting both targets */
    double kv_utilization_mean;    /* time-weighted fraction of KV blocks in use */
    double kv_utilization_peak;
    double mean_running;    /* time-weighted running sequences */
    double host_wait_share; /* share of the busy time the GPU waits on the engine's host: its
                               per-step overhead and the per-sequence work and kernel dispatch
                               the GPU's work does not hide (docs/serving.md, "Host work") */
    int64_t preemptions;
    int64_t steps;
    int stopped_early; /* 1: stopped once the p99 targets were certain to be missed
                          (capacity search); the statistics cover the part simulated */
} gp_sim_result;

/* ---- 3. capacity search --------------------------------------------------------------- */

typedef enum gp_serve_reason_code {
    GP_SERVE_ONE_GPU_ENOUGH = 0, /* one GPU meets the targets */
    GP_SERVE_MODEL_DOES_NOT_FIT, /* the weights (+ minimal KV) exceed one GPU */
    GP_SERVE_CONCURRENCY,        /* one replica's KV/throughput cannot carry the load */
    GP_SERVE_LATENCY,            /* the latency target needs more GPUs per replica (TP) */
    GP_SERVE_REDUNDANCY,         /* n+1: one more replica to survive a failure */
    GP_SERVE_LARGER_GPU_BETTER,  /* one larger GPU per replica beats two smaller */
    GP_SERVE_NO_SETUP,           /* nothing up to the search limits meets the targets */
    GP_SERVE_MULTI_NODE,         /* the replica spans nodes (the model needs them), or why
                                    one node wins over a multi-node layout */
    GP_SERVE_EXPERT_PARALLEL,    /* EP / attention DP beats TP for the MoE layers, or not */
    GP_SERVE_REASON_COUNT
} gp_serve_reason_code;

/* The reason's JSON name ("concurrency"); "?" out of range. Constant string; thread-safe. */
GP_API const char *gp_serve_reason_name(gp_serve_reason_code c);

typedef struct gp_serve_reason {
    gp_serve_reason_code code;
    char message[GP_ERROR_MSG_MAX];
    char message_pt[GP_ERROR_MSG_MAX]; /* the same in Brazilian Portuguese (render/messages.c) */
} gp_serve_reason;

#define GP_SERVE_MAX_CANDIDATES 64
#define GP_SERVE_MAX_REASONS    8

/* One evaluated setup. */
typedef struct gp_serve_option {
    char gpu[64];
    int tp, pp, ep, replicas;
    int gpus_total;
    int dp;               /* attention data-parallel ranks inside a replica */
    int gpus_per_replica; /* tp x pp x dp */
    int nodes_per_replica;
    double usd_per_hour;                 /* gpus_total x price per GPU-hour (0: no price known) */
    int fits;                            /* weights and at least one full sequence fit */
    int meets;                           /* the targets hold at the load (with n+1: on replicas-1) */
    int64_t kv_tokens;                   /* per replica */
    double max_concurrency;              /* per replica, sequences of prompt+output tokens */
    gp_sim_result sim;                   /* the load on one replica (the worst case for redundancy) */
    double single_ttft_s, single_tpot_s; /* one request alone on one replica */
} gp_serve_option;

typedef struct gp_capacity_result {
    int found;
    gp_serve_option best; /* the cheapest setup meeting the targets */
    int n_options;        /* the cheapest meeting setup per (GPU, TP), and misses */
    gp_serve_option options[GP_SERVE_MAX_CANDIDATES];
    int has_fewer;         /* 1: `fewer` holds the best setup with one replica less */
    gp_serve_option fewer; /* ... and its (missed) latencies, the evidence for `best` */
    int n_reasons;
    gp_serve_reason reasons[GP_SERVE_MAX_REASONS];
} gp_capacity_result;

/* ---- 4. disaggregated prefill / decode ------------------------------------------------- */

/* One pool of a disaggregated setup: `instances` engines of one layout on one GPU type. */
typedef struct gp_disagg_pool {
    int found;
    char gpu[64];
    int tp, pp, ep, dp;
    int instances;
    int gpus_per_instance, gpus_total;
    double usd_per_hour;
    gp_sim_result sim; /* one instance (one attention-DP rank) under its share */
} gp_disagg_pool;

typedef struct gp_disagg_result {
    int found;
    gp_disagg_pool prefill, decode;
    char kv_link[48];     /* the link the KV cache crosses from prefill to decode */
    double kv_transfer_s; /* for a request of the mean prompt */
    double request_rate;  /* requests/s the users send (from the decode pool's loop) */
    double ttft_p99_s;    /* prefill p99 + KV transfer + the decode's first step */
    double tpot_p99_s;
    double usd_per_hour;
    int gpus_total;
    int has_aggregated; /* the aggregated search's answer for the same load */
    gp_serve_option aggregated;
    int pays; /* 1: the disaggregated setup costs less per hour */
    char why[GP_ERROR_MSG_MAX];
} gp_disagg_result;

/* ---- 5. engine profiles (data/engines.json) -------------------------------------------- */

#endif /* GPUPLAN_SERVE_H */
