/*
 * gpuplan.h: the one public header of libgpuplan.
 *
 * If a function, type or constant is not declared in this file (or the headers it includes),
 * it is not API (SQLite's rule).
 *
 * Conventions
 *  - Every public name starts with gp_ / GP_.
 *  - Every fallible call returns gp_status (GP_OK == 0) and, when `err` is not NULL, fills it
 *    with a message fit to show a user, plus where the problem is (file, line/column or byte
 *    offset, field). Nothing in the library prints or exits.
 *  - Units are in names or comments: _bytes, _s (seconds), _gbps (GB/s, 10^9 bytes per second),
 *    _tflops (10^12 FLOP/s). Counts and exact bytes are int64_t/uint64_t; physical
 *    quantities are double.
 *  - Ownership: a function that allocates names its matching _free; every _free accepts NULL.
 *    Plain structs (gp_model, gp_gpu, breakdowns) are values the caller owns; opaque handles
 *    (gp_catalog) own resources.
 *  - Thread safety: no global mutable state. Distinct handles may be used from distinct
 *    threads; a const catalog may be shared by readers.
 *
 * Reading a declaration (each function's comment says where it differs)
 *  - Parameters: pointers must be valid and not NULL, except `err` (always optional: NULL
 *    means the caller does not want the details) and the argument of a _free (NULL is a no-op).
 *    A comment saying "NULL: ..." gives what NULL means for that parameter.
 *  - Returned strings are constants of the library (never freed, never NULL unless said);
 *    returned pointers into a catalog or a result are borrowed and live as long as it does.
 *  - Output structs (`out`) are the caller's; on failure their contents are unspecified
 *    unless the comment says otherwise.
 *  - "Thread-safe" means callable from any thread at once with distinct outputs: every
 *    function here is, except those that change a handle (gp_catalog_apply_profile,
 *    gp_scenario_set, the _free functions), which need the handle to themselves.
 *
 * What is API: include/gpuplan.h and the headers of include/gpuplan/ it includes; the exported
 * functions are listed in tests/data/api_exports.txt. The library's modules talk through
 * private headers (src/lib/private/, docs/architecture.md "Public and private").
 */
#ifndef GPUPLAN_H
#define GPUPLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(GP_BUILDING_LIBRARY) && defined(__GNUC__)
#define GP_API __attribute__((visibility("default")))
#else
#define GP_API
#endif

#define GP_VERSION_STRING "0.1.0"

/* The version of the library actually loaded ("0.1.0"), to compare with GP_VERSION_STRING
 * (the headers compiled against). Constant string; thread-safe. */
GP_API const char *gp_version(void);

/* ============================================================================================
 * Status and errors
 * ========================================================================================== */

typedef enum gp_status {
    GP_OK = 0,           /* success */
    GP_EINVAL = 1,       /* invalid argument or value (a number out of range, an unknown name) */
    GP_EIO = 2,          /* a file could not be opened or read */
    GP_EPARSE = 3,       /* malformed input (JSON syntax, a truncated or hostile binary header) */
    GP_ENOTFOUND = 4,    /* no such model, GPU or file */
    GP_EUNSUPPORTED = 5, /* well-formed but not supported (an unknown tensor type, say) */
    GP_ELIMIT = 6,       /* input exceeds a safety limit (header size, tensor count) */
    GP_ENOMEM = 7,       /* an allocation failed */
    GP_EUSAGE = 8,       /* a question incomplete or contradictory (two loads, no model) */
    GP_ECANCELED = 9,    /* the caller's progress callback asked to stop */
    GP_STATUS_COUNT
} gp_status;

#define GP_ERROR_MSG_MAX   512
#define GP_ERROR_PATH_MAX  512
#define GP_ERROR_FIELD_MAX 128

/* Where and why a call failed. Fields that do not apply are 0 / empty / -1 (offset). */
typedef struct gp_error {
    gp_status code;
    char msg[GP_ERROR_MSG_MAX];     /* one sentence a user can act on */
    char path[GP_ERROR_PATH_MAX];   /* the input file, when one is involved */
    int line;                       /* 1-based line in a text file, 0 if unknown */
    int column;                     /* 1-based column in a text file, 0 if unknown */
    int64_t offset;                 /* byte offset in a binary file, -1 if unknown */
    char field[GP_ERROR_FIELD_MAX]; /* the JSON key or header field at fault, if any */
} gp_error;

/* Short constant name of a status ("parse error"); "unknown status" for a value out of range;
 * never NULL. Thread-safe. */
GP_API const char *gp_status_str(gp_status code);

/* Reset an error to "no error" (code GP_OK, empty strings, offset -1). err may be NULL (no-op).
 * A failing call fills `err`; a succeeding one need not touch it, so clear it before a call
 * whose `err` is read whatever the status. */
GP_API void gp_error_clear(gp_error *err);

/* ============================================================================================
 * Work budget and progress (docs/reliability.md, "Bounded work")
 *
 * Every question that simulates or searches (gp_serve_run, gp_train_run, gp_plan_run) has a
 * work budget: it estimates its work before it allocates and refuses with GP_ELIMIT, naming
 * what to lower, when the estimate is over; it counts the work done and stops with GP_ELIMIT
 * if the count passes the limit anyway (preemptions). A unit is one running sequence in one
 * simulated engine step, or a fixed share of a training layout evaluated: 3 to 40 ns of one
 * core (the built-in `gpuplan plan` example spends 2.7e7 units
 * in 0.2 s). The budget is never unbounded: no limit counts above GP_WORK_MAX.
 * ========================================================================================== */

/* A budget for one question, shared by the searches a run function makes (opaque: the run
 * functions keep it; a caller sets gp_run_ctx.max_work and .progress). */
typedef struct gp_work gp_work;

/* The most a budget may hold, whatever its limit says: hours of one core, never unbounded
 * (the CLI's --max-work at most; docs/reliability.md). */
#define GP_WORK_MAX 1e12

/* Where a long question stands, for a front end to show (gp_run_ctx.progress,
 * gp_calibrate_opts.progress). Strings live until the callback returns. */
typedef struct gp_run_progress {
    const char *stage;     /* "sizing" (a plan's candidates), "capacity search", "layout
                              search", "simulation", "reading runs", "fitting" */
    const char *item;      /* the candidate at hand ("H100-SXM-80GB bf16", "64 GPUs"), or "" */
    int step, steps;       /* candidates done of the stage's total (steps 0: not counted) */
    double work, max_work; /* units of work spent and the budget (0: not counted) */
    double elapsed_s;      /* seconds since the question began */
} gp_run_progress;
/* Called from the thread doing the work: when the stage or the candidate changes and about
 * every million units of work; it should return quickly (throttle printing there). */
typedef void (*gp_run_progress_fn)(void *arg, const gp_run_progress *p);

/* ============================================================================================
 * Numeric types (weights, KV cache, compute)
 * ========================================================================================== */

/* Element types of weights and caches. Enum values are stable; new ones go at the end. */
typedef enum gp_dtype {
    GP_DTYPE_UNKNOWN = 0,
    GP_DTYPE_F32,   /* 32-bit float */
    GP_DTYPE_F16,   /* IEEE half */
    GP_DTYPE_BF16,  /* bfloat16 */
    GP_DTYPE_FP8,   /* 8-bit float (E4M3 or E5M2), per-tensor or per-channel scale */
    GP_DTYPE_INT8,  /* 8-bit integer, per-channel scale (LLM.int8, SmoothQuant, W8A8) */
    GP_DTYPE_INT4,  /* 4-bit integer, group-wise fp16 scale + 4-bit zero (GPTQ/AWQ, g=128) */
    GP_DTYPE_NF4,   /* 4-bit NormalFloat with double-quantized scales (QLoRA, bitsandbytes) */
    GP_DTYPE_MXFP4, /* OCP microscaling FP4: E2M1 values + one E8M0 scale per 32 */
    GP_DTYPE_FP4,   /* NVFP4: E2M1 values + one E4M3 scale per 16 (+ per-tensor fp32) */
    GP_DTYPE_F64,   /* 64-bit float */
    GP_DTYPE_COUNT
} gp_dtype;

/* Name of a dtype as the CLI spells it ("bf16"); "unknown" for out-of-range values. Constant
 * string, never NULL; thread-safe. (Parsing a name is the scenario's job: the "dtype" key.) */
GP_API const char *gp_dtype_name(gp_dtype t);
/* Storage bits per element of a quantized or plain weight, scales and zero points included
 * (documented per type in docs/model.md). E.g. bf16 16, int4 (g128) 4.15625, nf4 4.127.
 * 0 for GP_DTYPE_UNKNOWN or a value out of range. Thread-safe. */
GP_API double gp_dtype_bits(gp_dtype t);

/* ============================================================================================
 * Models
 * ========================================================================================== */

#define GP_NAME_MAX        128
#define GP_NOTE_MAX        1024
#define GP_MAX_DTYPE_STATS 16

typedef enum gp_model_origin {
    GP_ORIGIN_FLAGS = 0, /* explicit architecture flags only */
    GP_ORIGIN_CATALOG,   /* the built-in catalog (data/models.json) */
    GP_ORIGIN_HF_CONFIG, /* a Hugging Face config.json */
    GP_ORIGIN_HF_FOLDER, /* a model folder: config.json + safetensors headers */
    GP_ORIGIN_GGUF,      /* a GGUF file's header */
    GP_ORIGIN_COUNT
} gp_model_origin;

typedef enum gp_mlp_kind {
    GP_MLP_GATED = 0, /* SwiGLU/GeGLU: gate, up, down (3 matrices of hidden x ffn) */
    GP_MLP_PLAIN = 1, /* up, down (2 matrices), GELU/ReLU: GPT-2, OPT, Falcon, NeoX */
} gp_mlp_kind;

typedef enum gp_norm_kind {
    GP_NORM_RMS = 0,   /* RMSNorm: one weight vector */
    GP_NORM_LAYER = 1, /* LayerNorm: weight and bias */
} gp_norm_kind;

/* Per-dtype tally of the tensors stored in a file (safetensors or GGUF). */
typedef struct gp_dtype_stat {
    char name[16];    /* the file's own type name: "BF16", "F8_E4M3", "Q4_K", ... */
    int64_t tensors;  /* number of tensors of this type */
    int64_t elements; /* elements (parameters) stored in this type */
    uint64_t bytes;   /* bytes of tensor data in this type */
} gp_dtype_stat;

/*
 * What a model is. Every architecture field is what the model's own config says; derived
 * quantities (parameter counts, bytes, KV per token, FLOPs) come from the functions below.
 * A field that does not apply is 0.
 */
typedef struct gp_model {
    char id[GP_NAME_MAX];           /* catalog id, or the file/folder name */
    char name[GP_NAME_MAX];         /* Hugging Face repo or display name */
    char model_type[64];            /* HF model_type ("llama", "deepseek_v3") or GGUF arch */
    char source[GP_ERROR_PATH_MAX]; /* where it was read from: "catalog", a path */
    gp_model_origin origin;

    /* -- core transformer -- */
    int64_t layers;      /* decoder blocks (num_hidden_layers) */
    int64_t hidden;      /* model width d (hidden_size) */
    int64_t heads;       /* query heads */
    int64_t kv_heads;    /* key/value heads (== heads: MHA; 1: MQA; else GQA) */
    int64_t head_dim;    /* per-head width of q/k/v (hidden/heads unless given) */
    int64_t ffn;         /* dense MLP inner width (intermediate_size) */
    int64_t vocab;       /* vocabulary rows of the embedding and head */
    int64_t max_context; /* max_position_embeddings / context_length */
    int tied_embeddings; /* 1: the output head shares the input embedding */
    gp_mlp_kind mlp;     /* gated (3 matrices) or plain (2) */
    gp_norm_kind norm;   /* RMSNorm or LayerNorm */
    int norms_per_layer; /* normalisation vectors sets per block (2; gemma2/3: 4;
                            falcon-40b+ new arch: 2; parallel falcon-7b: 1) */
    int qkv_bias;        /* biases on q, k, v projections */
    int o_bias;          /* bias on the attention output projection */
    int mlp_bias;        /* biases on MLP projections */
    int qk_norm;         /* per-head RMSNorm on q and k (qwen3, gemma3): 2*head_dim */
    int attn_sinks;      /* learned per-head attention sink logits (gpt-oss) */
    int64_t learned_pos; /* rows of a learned absolute position table (gpt2, opt) */

    /* -- multi-head latent attention (DeepSeek-V2/V3); kv_lora_rank > 0 means MLA -- */
    int64_t q_lora_rank;      /* 0: plain q projection */
    int64_t kv_lora_rank;     /* compressed KV latent width (512) */
    int64_t qk_nope_head_dim; /* per-head q/k width without rotary (128) */
    int64_t qk_rope_head_dim; /* decoupled rotary key width, shared by heads (64) */
    int64_t v_head_dim;       /* per-head value width (128) */

    /* -- mixture of experts; experts > 0 means MoE -- */
    int64_t experts;           /* routed experts per MoE layer */
    int64_t experts_active;    /* routed experts each token uses (top-k) */
    int64_t moe_ffn;           /* inner width of one routed expert */
    int64_t shared_experts;    /* always-active shared experts (DeepSeek, Qwen2-MoE) */
    int64_t shared_expert_ffn; /* inner width of one shared expert (moe_ffn if 0) */
    int shared_expert_gate;    /* Qwen2-MoE: sigmoid gate (hidden x 1) on shared expert */
    int64_t dense_layers;      /* layers with a dense MLP instead of experts
                                  (DeepSeek first_k_dense_replace; Qwen mlp_only_layers) */
    int expert_bias;           /* biases inside experts (gpt-oss) */
    int router_bias;           /* router has a bias (gpt-oss) */
    int router_score_bias;     /* DeepSeek-V3 e_score_correction_bias (experts floats) */
    int64_t mtp_layers;        /* DeepSeek-V3 multi-token-prediction modules (not part of
                                  the main model's count; stored in its checkpoint) */

    /* -- attention window -- */
    int64_t sliding_window; /* window in tokens of sliding-window layers, 0: none */
    int64_t sliding_layers; /* how many of the layers use the window */

    /* -- storage -- */
    gp_dtype dtype;        /* dtype the weights are stored/served in (torch_dtype) */
    gp_dtype quant;        /* weight quantization of linear layers, UNKNOWN: none */
    int64_t quant_group;   /* quantization group size, 0 if none/unknown */
    char quant_method[32]; /* "gptq", "awq", "fp8", "mxfp4", "bitsandbytes", GGUF type */

    /* -- exact figures read from weight files (safetensors / GGUF headers) -- */
    int has_exact;         /* 1: the fields below are filled */
    int64_t exact_params;  /* parameters stored (buffers excluded) */
    int64_t exact_buffers; /* non-parameter tensors' elements (rotary inv_freq ...) */
    int64_t exact_tensors; /* tensors in the file(s) */
    uint64_t exact_bytes;  /* bytes of all tensor data */
    int n_dtype_stats;
    gp_dtype_stat dtype_stats[GP_MAX_DTYPE_STATS];
    int64_t exact_extra_params; /* parameters the config-based count does not cover
                                   (vision tower, MTP layers, quantization scales) */

    /* -- rotary position embedding (config rope_theta / rope_scaling), 0 / "" if not given -- */
    double rope_theta;          /* rotary base (Llama 3: 500000) */
    char rope_scaling_type[16]; /* rope_scaling.rope_type ("llama3", "yarn", ...) */
    double rope_scaling_factor; /* rope_scaling.factor (Llama 3.1: 8) */

    /* -- published figures (catalog), 0 if unknown -- */
    int64_t published_params;
    int64_t published_active_params;

    char notes[GP_NOTE_MAX]; /* warnings and explanations for the user, '\n'-separated */
} gp_model;

/* Parameters by part. Every figure is an exact count of scalars. */
typedef struct gp_param_breakdown {
    int64_t embedding;      /* input token embedding (vocab x hidden) */
    int64_t position;       /* learned position embeddings */
    int64_t attention;      /* q/k/v/o (or MLA) projections, their biases, q/k norms, sinks */
    int64_t mlp_dense;      /* dense MLPs (all layers of a dense model; MoE dense layers) */
    int64_t experts_routed; /* all routed experts */
    int64_t experts_shared; /* shared experts (+ their gates) */
    int64_t router;         /* routers (gates), with biases */
    int64_t norms;          /* all normalisation weights/biases, final norm included */
    int64_t head;           /* output head (0 when tied) */
    int64_t total;          /* sum of the above */
    int64_t active;         /* used per token: total - unused routed experts */
    int64_t linear;         /* weights of matrix multiplies inside the blocks (what
                               weight-only quantization compresses) */
    int64_t linear_active;  /* of those, used per token */
} gp_param_breakdown;

/* The figures of a model (m: from a loader, the catalog or gp_result_model; never changed).
 * Pure functions of m: thread-safe. Those without a status return 0 for an architecture
 * gp_model_validate refuses. */

/* Count parameters from the architecture (not from files) into *out. Returns GP_EINVAL with a
 * message if the architecture is inconsistent (heads not dividing, zero layers, overflow). */
GP_API gp_status gp_model_params(const gp_model *m, gp_param_breakdown *out, gp_error *err);

/* The model's total parameters: exact count from files if read, else from the architecture. */
GP_API int64_t gp_model_total_params(const gp_model *m);

/* Bytes of the weights stored at dtype `t` (linear layers at t; embeddings, head and norms
 * at 16 bits when t is a quantized type, as GPTQ/AWQ/bnb/FP8 checkpoints keep them). */
GP_API uint64_t gp_model_weight_bytes(const gp_model *m, gp_dtype t);

/* KV-cache bytes per token summed over all layers at `kv_dtype`, ignoring sliding windows
 * (MLA: the compressed latent plus the rotary key, per layer). */
GP_API uint64_t gp_model_kv_bytes_per_token(const gp_model *m, gp_dtype kv_dtype);

/* KV-cache bytes for ONE sequence of `tokens` tokens: sliding-window layers hold at most
 * `sliding_window` tokens. */
GP_API uint64_t gp_model_kv_bytes(const gp_model *m, gp_dtype kv_dtype, int64_t tokens);

/* Forward FLOPs for one token at context position `context` (attention over `context`
 * previous tokens): 2 x active linear params + 2 x head + attention score/value products.
 * Training FLOPs per token are 3x this (forward + backward); see docs/model.md. */
GP_API double gp_model_forward_flops_per_token(const gp_model *m, int64_t context);

/* Validate an architecture: GP_OK, or GP_EINVAL with err->field naming the field at fault. */
GP_API gp_status gp_model_validate(const gp_model *m, gp_error *err);

/* ---- loaders ----------------------------------------------------------------------------
 * Each fills *out (the caller's; on failure its contents are unspecified) from a file or text,
 * reading headers only, within the parser limits of docs/reliability.md (GP_ELIMIT past one).
 * Errors: GP_EIO / GP_ENOTFOUND for the file, GP_EPARSE with line and column (or byte offset),
 * GP_EUNSUPPORTED, GP_EINVAL with the field. Thread-safe (no shared state). gp_model_resolve
 * below picks the loader from a `--model` string. */

/* Read a Hugging Face config.json. Errors name the file, line and column (syntax) or the
 * field (semantics). An unknown model_type with the standard fields loads with a note. */
GP_API gp_status gp_model_from_hf_config_file(const char *path, gp_model *out, gp_error *err);
/* Same from a JSON text in memory: `len` bytes (need not be NUL-terminated); `name` is used in
 * messages (NULL: "config.json"). */
GP_API gp_status gp_model_from_hf_config_text(const char *json, size_t len, const char *name, gp_model *out,
                                              gp_error *err);

/* Read a model folder: config.json plus the headers of every *.safetensors file (the index,
 * model.safetensors.index.json, names the shards when present). Exact counts are filled;
 * weight data is never read. */
GP_API gp_status gp_model_from_folder(const char *dir, gp_model *out, gp_error *err);

/* Read a GGUF file's header: metadata and tensor infos, never the tensor data. */
GP_API gp_status gp_model_from_gguf_file(const char *path, gp_model *out, gp_error *err);

/* ============================================================================================
 * Hardware
 * ========================================================================================== */

/* One calibrated entry of a GPU type (a profile's fitted parameters; docs/calibration.md).
 * It applies only to predictions of the same use (training or serving), compute precision
 * and, for serving, engine: a profile never extrapolates to what it saw no run of. Each
 * scale multiplies the rate the model would otherwise use (1: unchanged). */
typedef enum gp_cal_use { GP_CAL_TRAIN = 1, GP_CAL_SERVE = 2 } gp_cal_use;

typedef struct gp_gpu_cal {
    int use;                /* GP_CAL_TRAIN or GP_CAL_SERVE */
    gp_dtype dtype;         /* compute precision of the runs (bf16 for every 16-bit one) */
    int engine;             /* serving: the gp_engine the runs used; training: 0 */
    int runs;               /* runs the values were fitted on */
    double gemm_scale;      /* achievable GEMM rate */
    double attn_scale;      /* attention kernels' rate */
    double hbm_scale;       /* achievable HBM bandwidth (memory-bound work) */
    double comm_scale;      /* collectives' bus bandwidth inside and across nodes */
    double step_overhead_s; /* serving: per engine step, replaces the engine's (< 0: keep) */
} gp_gpu_cal;

#define GP_GPU_CAL_MAX 8

typedef struct gp_gpu {
    char id[64]; /* "H100-SXM-80GB" */
    char vendor[32];
    char name[96];
    double memory_marketed_gb;     /* as marketed, 10^9 bytes */
    uint64_t memory_bytes;         /* what the device reports */
    double hbm_bandwidth_gbps;     /* GB/s */
    double tflops[GP_DTYPE_COUNT]; /* dense peak TFLOP/s by compute dtype, 0 if unsupported
                                      (INT4/NF4/MXFP4 use the fp4 or int8 path, see docs) */
    double tf32_tflops;
    char scale_up_name[48];     /* "NVLink 4", "PCIe" */
    double scale_up_gbps_bidir; /* per GPU, both directions */
    int scale_up_domain;        /* GPUs in one scale-up domain (1: none) */
    int pcie_gen;
    double tdp_w;
    int launch_year;
    /* calibration applied from a profile (gp_catalog_apply_profile); n_cal 0: none */
    int n_cal;
    gp_gpu_cal cal[GP_GPU_CAL_MAX];
    double cal_intra_scale;  /* collectives' bus bandwidth inside a node (0: 1) */
    double cal_inter_scale;  /* ... across nodes (0: 1) */
    int cal_collective_runs; /* collective benchmarks behind the two scales */
    char scale_up_link[48];  /* data/links.json id of its scale-up fabric ("nvlink4"); "" if none */
    double pcie_gbps;        /* its PCIe x16 link (links.json pcie<gen>), GB/s per direction */
    int vllm_large_device;   /* vLLM `serve` picks its large-device defaults here (docs/hardware.md) */
    int consumer;            /* 1: a consumer (GeForce) card: no datacenter ECC/NVLink, and a
                                driver licence that excludes datacenter deployment
                                (gpus.json "consumer") */
} gp_gpu;

/* The catalog of built-in data (models, GPUs); see "Catalog" below. */
typedef struct gp_catalog gp_catalog;

/* ============================================================================================
 * Workloads and layouts
 * ========================================================================================== */

typedef enum gp_task {
    GP_TASK_INFER = 0, /* serving / inference */
    GP_TASK_TRAIN,     /* full training or full fine-tuning */
    GP_TASK_LORA,      /* LoRA: frozen 16-bit base, trainable adapters */
    GP_TASK_QLORA,     /* QLoRA: frozen NF4 base (double-quantized), adapters, paged optimizer */
    GP_TASK_COUNT
} gp_task;

typedef enum gp_recompute {
    GP_RECOMPUTE_NONE = 0,  /* store every activation */
    GP_RECOMPUTE_SELECTIVE, /* recompute the attention core (Korthikanti et al. 2022 sec. 5) */
    GP_RECOMPUTE_FULL,      /* store only each layer's input; recompute the layer */
    GP_RECOMPUTE_OP,        /* PyTorch op-level selective checkpointing (torchtitan "selective"
                               op): keep attention outputs and every other matmul output,
                               recompute the rest */
    GP_RECOMPUTE_COUNT
} gp_recompute;

/* Megatron-Core's selective recomputation by module (--recompute-granularity selective
 * --recompute-modules ..., transformer_config.py): bits of gp_layout.recompute_modules, read
 * only with GP_RECOMPUTE_SELECTIVE, where 0 means Megatron's default, the attention core alone.
 * Each recomputed module runs its forward again in the backward and stores less. */
#define GP_RECOMPUTE_CORE_ATTN      (1u << 0) /* "core_attn": scores and values */
#define GP_RECOMPUTE_LAYERNORM      (1u << 1) /* "layernorm": both norms of each layer */
#define GP_RECOMPUTE_MLP            (1u << 2) /* "mlp": a dense layer's MLP */
#define GP_RECOMPUTE_MOE            (1u << 3) /* "moe": the whole MoE layer (router, dispatch, experts, combine) */
#define GP_RECOMPUTE_MOE_ACT        (1u << 4) /* "moe_act": the routed experts' activation function */
#define GP_RECOMPUTE_SHARED_EXPERTS (1u << 5) /* "shared_experts": an MoE layer's shared experts */
#define GP_RECOMPUTE_MLA_UP_PROJ    (1u << 6) /* "mla_up_proj": MLA's up projections */
#define GP_RECOMPUTE_MODULES_ALL    0x7fu

typedef enum gp_optimizer {
    GP_OPT_ADAMW = 0, /* fp32 master weights + two fp32 moments: 12 bytes/param */
    GP_OPT_ADAM8BIT,  /* fp32 master + two 8-bit moments (bitsandbytes): 6 bytes/param */
    GP_OPT_SGD,       /* fp32 master + fp32 momentum: 8 bytes/param */
    GP_OPT_ADAFACTOR, /* fp32 master + factored second moment (~0): 4 bytes/param */
    GP_OPT_COUNT
} gp_optimizer;

typedef enum gp_offload {
    GP_OFFLOAD_NONE = 0,
    GP_OFFLOAD_OPTIMIZER, /* optimizer states (and master weights) in CPU memory */
    GP_OFFLOAD_PARAMS,    /* optimizer states and parameters in CPU memory (ZeRO-Infinity) */
    GP_OFFLOAD_COUNT
} gp_offload;

typedef enum gp_engine {
    GP_ENGINE_NONE = 0, /* generic accounting (no engine-specific reservation) */
    GP_ENGINE_VLLM,     /* gpu_memory_utilization x total, profiled peak, paged KV blocks */
    GP_ENGINE_SGLANG,   /* mem_fraction_static x total, token-granular KV pool */
    GP_ENGINE_TGI,
    GP_ENGINE_TRTLLM,
    GP_ENGINE_LLAMACPP,
    GP_ENGINE_COUNT
} gp_engine;

/* The names the CLI and the JSON use ("infer", "selective", "adamw", "optimizer", "vllm");
 * "?" for a value out of range. Constant strings; thread-safe. Parsing is the scenario's
 * job (gp_scenario_set: keys task, recompute, optimizer, offload, engine). */
GP_API const char *gp_task_name(gp_task t);
GP_API const char *gp_recompute_name(gp_recompute r);
GP_API const char *gp_optimizer_name(gp_optimizer o);
GP_API const char *gp_offload_name(gp_offload o);
GP_API const char *gp_engine_name(gp_engine e);

/* How the work is split over GPUs. Every degree >= 1. */
typedef struct gp_layout {
    int tp;                /* tensor parallel */
    int pp;                /* pipeline parallel stages */
    int dp;                /* data parallel replicas */
    int cp;                /* context (sequence) parallel */
    int ep;                /* expert parallel (routed experts spread over ep groups) */
    int zero;              /* 0..3 ZeRO stage over dp (3 = FSDP full shard) */
    int sequence_parallel; /* Megatron SP: norms/dropout activations split over tp */
    int virtual_stages;    /* interleaved 1F1B model chunks per stage (1 = plain 1F1B) */
    int64_t micro_batch;   /* sequences per micro-batch (training) */
    int64_t global_batch;  /* sequences per optimizer step (training; 0 = dp*micro_batch) */
    gp_recompute recompute;
    unsigned recompute_modules; /* GP_RECOMPUTE_SELECTIVE: GP_RECOMPUTE_CORE_ATTN | ... (0: core_attn) */
} gp_layout;

/* What is asked of the model. */
typedef struct gp_workload {
    gp_task task;
    gp_dtype dtype;    /* weights (and compute) precision */
    gp_dtype kv_dtype; /* KV-cache precision (UNKNOWN: same as dtype, 16-bit at most) */
    int64_t context;   /* inference: max tokens per sequence (prompt + output) */
    int64_t batch;     /* inference: concurrent sequences */
    int64_t seq;       /* training: sequence length */
    gp_optimizer optimizer;
    gp_offload offload;
    int64_t lora_rank;   /* LoRA/QLoRA adapter rank (on every linear layer) */
    int flash_attention; /* 1: no s^2 attention matrix is stored (default) */
    gp_engine engine;
    double gpu_memory_utilization;  /* vLLM: fraction of total device memory (0.9) */
    int64_t block_size;             /* tokens per KV block (0: the engine's default: 16, SGLang 1,
                                       TensorRT-LLM 32) */
    int64_t max_num_batched_tokens; /* prefill chunk the engine profiles (0: engine default) */
    int64_t max_num_seqs;           /* sequences the engine admits and its sampler profiles (0: the
                                       engine default: vLLM 256, or 1024 on GPUs of >= 70 GiB) */
} gp_workload;

/* GPUs a layout uses: tp*pp*dp*cp (ep is carved from dp*tp), INT_MAX when the product
 * overflows an int. Thread-safe. */
GP_API int gp_layout_gpus(const gp_layout *l);

/* ============================================================================================
 * Memory per GPU (docs/memory.md gives every formula and constant)
 * ========================================================================================== */

typedef struct gp_memory {
    /* bytes per GPU, on the most loaded GPU (first or last pipeline stage) */
    uint64_t weights;     /* parameters resident on this GPU */
    uint64_t kv_cache;    /* KV cache asked for (batch x context), inference */
    uint64_t activations; /* activation/workspace peak (prefill chunk, or training) */
    uint64_t gradients;   /* training */
    uint64_t optimizer;   /* training: master weights + moments */
    uint64_t overhead;    /* CUDA context, engine buffers, allocator fragmentation */
    uint64_t per_gpu;     /* sum of the above */
    uint64_t capacity;    /* device memory as the device reports it */
    int64_t headroom;     /* capacity - per_gpu (negative: does not fit) */
    int fits;             /* per_gpu <= capacity */
    uint64_t cpu_offload; /* bytes moved to CPU memory per GPU (offload) */
    /* engine accounting (engine != NONE, inference) */
    uint64_t engine_budget;  /* what the engine may use: utilization x CUDA-visible total */
    uint64_t kv_cache_bytes; /* KV cache the engine allocates: budget - weights - peak - other */
    int64_t kv_tokens;       /* tokens that cache holds */
    int64_t kv_blocks;       /* paged blocks of kv_block_size tokens */
    int64_t kv_block_size;   /* tokens per block the engine uses (its default unless given) */
    double max_concurrency;  /* kv_tokens / context: sequences of full context at once */
} gp_memory;

/* ============================================================================================
 * The verdict: one GPU or several, and why
 * ========================================================================================== */

typedef enum gp_reason_code {
    GP_REASON_FITS = 0,                    /* fits on one GPU of the type */
    GP_REASON_WEIGHTS_EXCEED_VRAM,         /* the weights alone exceed one GPU */
    GP_REASON_KV_CACHE_EXCEEDS_VRAM,       /* weights fit; context x concurrency does not */
    GP_REASON_TRAINING_STATE_EXCEEDS_VRAM, /* weights + gradients + optimizer exceed one GPU */
    GP_REASON_ACTIVATIONS_EXCEED_VRAM,     /* model states fit; activations do not */
    GP_REASON_LARGER_GPU_FITS,             /* one larger catalog GPU holds it alone */
    GP_REASON_NO_LAYOUT_FITS,              /* no layout up to the search limit fits */
    GP_REASON_INVALID_LAYOUT,              /* the layout asked cannot run (TP must divide the heads) */
    GP_REASON_CONTEXT_ABOVE_MODEL_MAX,     /* the context asked exceeds the model's maximum */
    GP_REASON_LOWER_PRECISION_FITS,        /* 8-bit weights would fit one GPU of the type */
    GP_REASON_UNITS,                       /* GB (10^9) vs GiB (2^30) and marketed vs reported memory */
    GP_REASON_COUNT
} gp_reason_code;

/* The reason's JSON name ("weights_exceed_vram"); "?" out of range. Constant; thread-safe. */
GP_API const char *gp_reason_name(gp_reason_code c);

#define GP_MAX_REASONS      12
#define GP_MAX_ALTERNATIVES 8

typedef struct gp_reason {
    gp_reason_code code;
    char message[GP_ERROR_MSG_MAX];    /* one sentence with the numbers behind it */
    char message_pt[GP_ERROR_MSG_MAX]; /* the same in Brazilian Portuguese ("" where none) */
} gp_reason;

typedef struct gp_fit_result {
    gp_layout asked; /* the layout evaluated first (as given) */
    gp_memory asked_memory;
    int single_gpu_sufficient; /* the workload fits on ONE GPU of this type */
    int fits;                  /* some layout up to the search limit fits */
    int min_gpus;              /* smallest GPU count that fits (0 if none) */
    gp_layout min_layout;      /* its layout */
    gp_memory min_memory;
    int64_t max_context; /* largest context that fits on min_layout at the asked batch */
    int64_t max_batch;   /* largest concurrency that fits at the asked context */
    int n_larger;        /* catalog GPUs that hold it alone (bigger memory) */
    char larger[GP_MAX_ALTERNATIVES][64];
    uint64_t larger_capacity[GP_MAX_ALTERNATIVES];
    int n_reasons;
    gp_reason reasons[GP_MAX_REASONS];
    /* the verdict as asked (issue 16): */
    int asked_valid;    /* the asked layout can run (TP divides the attention heads, ...) */
    int asked_fits;     /* valid and fits: "fits" in the JSON (one GPU unless a layout is given) */
    int context_capped; /* max_context was capped at the model's own maximum */
    int n_lower;        /* 8-bit weight precisions that fit ONE GPU of the type (when the
                           asked precision does not) */
    gp_dtype lower[2];
    uint64_t lower_bytes[2]; /* per GPU with them */
} gp_fit_result;

/* A line of a front end's text from the library's message table (English and Brazilian
 * Portuguese): `key` such as "fit.verdict_one", {0}..{9} filled from args[0..nargs-1]
 * (format numbers with gp_format_number); lang "pt-BR", else (NULL too) English. Writes at
 * most n bytes into out, always NUL-terminated (truncating). Unknown keys give "". Returns
 * out ("" when out is NULL or n is 0). Thread-safe. */
GP_API const char *gp_text(char *out, size_t n, const char *key, const char *lang, const char *const *args, int nargs);
/* 1234567.8 with 1 decimal: "1,234,567.8" (en, or lang NULL) or "1.234.567,8" (pt-BR), into
 * out (n bytes, NUL-terminated, truncating). Returns out. Thread-safe. */
GP_API const char *gp_format_number(char *out, size_t n, double v, int decimals, const char *lang);

/* ============================================================================================
 * Catalog: built-in data (models, GPUs), optionally overridden by user files
 * ========================================================================================== */

/* Load the built-in catalog into a new handle *out (NULL on failure); if `data_dir` is not NULL,
 * files there named like the built-in ones (models.json, gpus.json, links.json, prices.json,
 * compliance.json, kernels.json, engines.json) add to or replace (same id) the built-in entries.
 * Errors name the file, line and field (GP_EIO, GP_EPARSE, GP_EINVAL, GP_ENOMEM). The handle is
 * read-only afterwards (except gp_catalog_apply_profile): any number of threads may read it and
 * run questions on it at once. Free with gp_catalog_free, after every result made from it. */
GP_API gp_status gp_catalog_open(const char *data_dir, gp_catalog **out, gp_error *err);
/* Free a catalog (NULL: no-op). No other thread may be using it. */
GP_API void gp_catalog_free(gp_catalog *cat);

/* Entries of the catalog, by index (0 .. count-1) or by name. cat must not be NULL. */
GP_API size_t gp_catalog_model_count(const gp_catalog *cat);
/* Build model i of the catalog into `out` (the caller's value); GP_ENOTFOUND past the end. */
GP_API gp_status gp_catalog_model_at(const gp_catalog *cat, size_t i, gp_model *out, gp_error *err);
/* Look up a model by id, Hugging Face repo or alias, case-insensitively, into `out`;
 * GP_ENOTFOUND if none. */
GP_API gp_status gp_catalog_find_model(const gp_catalog *cat, const char *name, gp_model *out, gp_error *err);

GP_API size_t gp_catalog_gpu_count(const gp_catalog *cat);
/* GPU i: borrowed pointer valid until gp_catalog_free; NULL past the end. */
GP_API const gp_gpu *gp_catalog_gpu_at(const gp_catalog *cat, size_t i);
/* A GPU by id or alias, case-insensitively: *out borrowed as above; GP_ENOTFOUND if none. */
GP_API gp_status gp_catalog_find_gpu(const gp_catalog *cat, const char *name, const gp_gpu **out, gp_error *err);

/* Resolve `--model X` into `out`: a catalog id/alias/repo, a config.json, a model folder or a
 * .gguf (files read as the loaders above do). cat: the catalog for names (borrowed). spec NULL
 * or "": GP_EINVAL. Thread-safe. */
GP_API gp_status gp_model_resolve(const gp_catalog *cat, const char *spec, gp_model *out, gp_error *err);

#include "gpuplan/train.h"
#include "gpuplan/serve.h"
#include "gpuplan/probe.h"
#include "gpuplan/export.h"
#include "gpuplan/plan.h"
#include "gpuplan/scenario.h"
#include "gpuplan/run.h"
#include "gpuplan/calibrate.h"

#ifdef __cplusplus
}
#endif
#endif /* GPUPLAN_H */
