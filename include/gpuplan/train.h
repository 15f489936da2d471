/*
 * gpuplan/train.h: what a training answer holds: step time, TFLOP/s, MFU of a layout and the
 * layout search's candidates (included by gpuplan.h; not meant to be included alone).
 * gp_train_run (gpuplan/run.h) fills them; the model and the search behind them are the
 * library's own (src/lib/private/train.h). Formulas and constants: docs/performance.md.
 * Ownership: plain values inside a gp_result; pointers in them borrow the result or the
 * catalog. Thread safety: read-only once returned.
 */
#ifndef GPUPLAN_TRAIN_H
#define GPUPLAN_TRAIN_H

/* The training software stack: what overlaps with compute and how parameters are gathered
 * (docs/performance.md, "Frameworks"). */
typedef enum gp_framework {
    GP_FRAMEWORK_MEGATRON = 0, /* Megatron-Core / NeMo (the default) */
    GP_FRAMEWORK_FSDP,         /* PyTorch FSDP2 / torchtitan */
    GP_FRAMEWORK_DEEPSPEED,    /* DeepSpeed ZeRO */
    GP_FRAMEWORK_COUNT
} gp_framework;

/* The attention kernel the stack runs (docs/performance.md, "Where each rate comes from"). */
typedef enum gp_attention {
    GP_ATTENTION_DEFAULT = 0, /* the framework's: Megatron-Core the GPU's usual (cuDNN via
                                 Transformer Engine on Hopper/Blackwell, FlashAttention-2
                                 before); FSDP / DeepSpeed stacks FlashAttention-2 (what the
                                 torchtitan and llm-foundry measurements behave like) */
    GP_ATTENTION_FA2,
    GP_ATTENTION_FA3,
    GP_ATTENTION_CUDNN, /* cuDNN fused attention (Transformer Engine) */
    GP_ATTENTION_COUNT
} gp_attention;

/* CUDA graphs the training stack replays (docs/performance.md, section 2): what they remove is
 * the host time of launching each layer's kernels one by one. */
typedef enum gp_cuda_graphs {
    GP_CUDA_GRAPHS_NONE = 0, /* kernels launched eagerly (Megatron-Core's default; FSDP stacks) */
    GP_CUDA_GRAPHS_LAYER,    /* one graph per transformer layer of static shapes (Megatron-Core
                                --cuda-graph-impl local): a dropless MoE layer keeps its host-side
                                token-count sync and its launches */
    GP_CUDA_GRAPHS_FULL,     /* the whole forward-backward iteration in one graph
                                (--cuda-graph-impl full_iteration) */
    GP_CUDA_GRAPHS_COUNT
} gp_cuda_graphs;

/* How the stack casts the inputs of its fp8 GEMMs from 16 bits (docs/performance.md,
 * "fp8 casts"): the casts are memory-bound passes that stay 16-bit around every fp8 linear. */
typedef enum gp_fp8_recipe {
    GP_FP8_RECIPE_DEFAULT = 0, /* the framework's: Megatron-Core and DeepSpeed fused (Transformer
                                  Engine), FSDP stacks tensorwise (torchao.float8) */
    GP_FP8_RECIPE_FUSED,       /* Transformer Engine: the casts ride on the norm, activation and
                                  cast-transpose kernels that produce the GEMM inputs */
    GP_FP8_RECIPE_TENSORWISE,  /* torchao.float8 tensorwise: one dynamic scale per tensor; with TP
                                  the input is cast before a float8 all-gather */
    GP_FP8_RECIPE_ROWWISE,     /* torchao.float8 rowwise: a scale per row, the backward casts again
                                  along the other axis; TP all-gathers in 16 bits */
    GP_FP8_RECIPE_COUNT
} gp_fp8_recipe;

/* How Megatron-Core moves the tokens of an expert-parallel MoE layer between GPUs
 * (docs/performance.md, "MoE"): it matters where the EP group spans nodes. */
typedef enum gp_ep_dispatcher {
    GP_EP_DISPATCHER_ALLTOALL = 0, /* NCCL all-to-all (--moe-token-dispatcher-type alltoall, the
                                      default here): one copy of a token per chosen expert */
    GP_EP_DISPATCHER_DEEPEP,       /* the flex dispatcher with DeepEP or HybridEP
                                      (--moe-flex-dispatcher-backend deepep|hybridep): one copy per
                                      destination node over the network, forwarded over NVLink */
    GP_EP_DISPATCHER_HYBRIDEP,
    GP_EP_DISPATCHER_COUNT
} gp_ep_dispatcher;

struct gpi_gpu_rates;
struct gpi_link_curve;

/* Where the GPUs sit: how many per node, and the links inside and between nodes. */
typedef struct gp_cluster {
    int gpus_per_node;              /* GPUs sharing the scale-up link (8 for HGX/DGX) */
    double intra_gbps;              /* per GPU, one direction, GB/s, inside a node (0: from the GPU) */
    double inter_gbps;              /* per GPU, one direction, GB/s, between nodes (NIC share) */
    char intra_name[48];            /* "NVLink 4", "pcie5" */
    char inter_name[48];            /* "ib-ndr" */
    gp_framework framework;         /* the training stack (default Megatron-Core) */
    gp_attention attention;         /* its attention kernel (default: the framework's) */
    int ep_overlap;                 /* Megatron-Core: the EP all-to-all overlapped with another micro-batch's
                                       expert GEMMs (--overlap-moe-expert-parallel-comm); 0 (its default):
                                       exposed */
    gp_cuda_graphs cuda_graphs;     /* what the stack captures in CUDA graphs (default none) */
    gp_ep_dispatcher ep_dispatcher; /* Megatron-Core's EP token dispatcher (default alltoall) */
    gp_fp8_recipe fp8_recipe;       /* how fp8 training casts the GEMM inputs (default: the framework's) */
    int tp_overlap;                 /* FSDP stacks: TP collectives decomposed and overlapped with the GEMMs
                                       (torchtitan's async TP); Megatron-Core overlaps them with sequence
                                       parallelism regardless (tp_comm_overlap) */
    /* Measured rates (data/kernels.json), set by the library: pointers into the catalog, valid
     * while it is open. NULL (a cluster built by hand): the model falls back to the datasheet peaks with the generic
     * efficiencies of train.c. */
    const struct gpi_gpu_rates *rates;
    const struct gpi_link_curve *intra_curve, *inter_curve;
} gp_cluster;

/* One training step under a layout, and what it costs. Times in seconds, per step. */
typedef struct gp_train_perf {
    double step_time_s; /* one optimizer step */
    /* breakdown (sums to step_time_s) */
    double compute_s;   /* matrix multiplies and attention on the slowest stage */
    double memory_s;    /* memory-bound work: norms, activations, element-wise */
    double tp_comm_s;   /* exposed tensor-parallel collectives */
    double cp_comm_s;   /* exposed context-parallel KV exchange */
    double ep_comm_s;   /* exposed expert-parallel all-to-all */
    double pp_comm_s;   /* pipeline point-to-point sends */
    double dp_comm_s;   /* exposed data-parallel / ZeRO / FSDP communication */
    double bubble_s;    /* pipeline fill and drain */
    double optimizer_s; /* the optimizer step (HBM-bound) */
    /* rates */
    double tokens_per_s; /* whole cluster */
    double tokens_per_s_per_gpu;
    double model_flops_per_token; /* 6N + 12 L H d s (PaLM/Megatron convention, no recompute) */
    double hw_flops_per_token;    /* + the recomputed forward work */
    double model_tflops_per_gpu;  /* achieved, no recomputation counted */
    double hw_tflops_per_gpu;     /* achieved, recomputation counted */
    double mfu;                   /* model_tflops / dense peak of the compute dtype */
    double hfu;                   /* hw_tflops / dense peak */
    double time_to_train_s;       /* for the tokens asked (0 if none) */
    /* the honest range: the 10th-90th percentile of gpuplan's signed error on comparable
     * published runs (data/kernels.json "fit": the model architecture's own range_by_model_type
     * where the validation set holds enough runs of it, else range_moe_* or range_*) applied to
     * this prediction; *_low is the pessimistic end for rates, the optimistic one for times */
    double step_time_s_low, step_time_s_high;
    double tokens_per_s_low, tokens_per_s_high;
    double model_tflops_per_gpu_low, model_tflops_per_gpu_high;
    double time_to_train_s_low, time_to_train_s_high;
    char range_basis[32];  /* whose runs: a model type ("gpt_oss"), "MoE", "dense"; "" without data */
    int range_cases;       /* how many runs of that model type (0: the dense / MoE pools) */
    int64_t micro_batches; /* per step per data-parallel replica */
    int gpus;
} gp_train_perf;

/* ---- layout search ------------------------------------------------------------------ */

typedef enum gp_rank_by {
    GP_RANK_TIME = 0,          /* shortest step (time to train) */
    GP_RANK_COST,              /* lowest cost of the run (GPU-hours x price) */
    GP_RANK_TOKENS_PER_DOLLAR, /* most tokens per unit of money */
    GP_RANK_COUNT
} gp_rank_by;

#define GP_TRAIN_TOP_MAX 32

typedef struct gp_train_candidate {
    gp_layout layout;
    gp_train_perf perf;
    gp_memory memory;
    double cost;                /* price_per_gpu_hour x gpus x time to train (or per step) */
    char why[GP_ERROR_MSG_MAX]; /* why it ranks where it does, in a sentence */
} gp_train_candidate;

typedef struct gp_train_search_opts {
    int gpus;            /* GPUs to use; 0: the smallest count meeting deadline_s */
    double deadline_s;   /* with gpus = 0: finish train_tokens within this */
    double train_tokens; /* tokens of the run (time to train, cost) */
    gp_layout fixed;     /* dimensions > 0 here are fixed (tp, pp, dp, cp, ep,
                            micro_batch, global_batch, virtual_stages); zero/recompute
                            fixed when fix_zero / fix_recompute */
    int fix_zero, fix_recompute;
    int top_k; /* candidates to return (<= GP_TRAIN_TOP_MAX) */
    gp_rank_by rank;
    double price_per_gpu_hour; /* for cost ranking; 0: rank by time */
    int allow_tp_across_nodes; /* TP beyond the scale-up domain */
    int max_gpus;              /* bound for the deadline search (default 65536) */
    int (*cancel)(void *arg);  /* polled per layout: non-zero stops the search with GP_ELIMIT */
    void *cancel_arg;
    gp_work *work; /* the question's budget (NULL in a result) */
} gp_train_search_opts;

typedef struct gp_train_search_result {
    int gpus;             /* GPUs searched at (the smallest meeting the deadline) */
    int64_t global_batch; /* sequences per optimizer step the search used: the fixed one,
                             or the default for the sequence length (even when no layout fits) */
    int64_t evaluated;    /* layouts evaluated */
    int64_t valid;        /* of those, valid (divisibility) */
    int64_t fitting;      /* of those, fitting in memory */
    int n_top;
    gp_train_candidate top[GP_TRAIN_TOP_MAX]; /* best first */
    int n_pareto;                             /* Pareto front of (step time, memory per GPU) */
    gp_train_candidate pareto[GP_TRAIN_TOP_MAX];
    int n_reasons;
    gp_reason reasons[GP_MAX_REASONS];
} gp_train_search_result;

#endif
