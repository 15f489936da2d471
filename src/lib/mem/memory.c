/*
 * memory.c: bytes per GPU for inference and training under a parallel layout.
 *
 * Inference: weights split by TP (column/row-parallel linears, vocab-parallel embedding and
 * head), PP (layers per stage; embedding on the first stage, head on the last) and EP
 * (routed experts); KV cache from gp_model_kv_bytes() split over TP by KV head (replicated
 * when TP exceeds the KV heads; MLA's latent is replicated on every TP rank, as vLLM does);
 * the activation peak of one prefill chunk; logits for the sampled sequences; the runtime's
 * own memory. With --engine vllm, the KV cache is what vLLM allocates: utilization x the
 * CUDA-visible total, minus weights, the profiled peak and non-torch memory.
 *
 * Training: mixed-precision model states after Rajbhandari et al. 2020 (ZeRO, section 3):
 * 2 bytes of 16-bit weights, 2 of gradients, K of optimizer state per parameter, sharded over
 * data parallelism by ZeRO stage; activations per layer after Korthikanti et al. 2022
 * (Table 2), generalised to GQA and gated MLPs and written without dropout masks (modern LLM
 * training uses no dropout); 1F1B keeps up to pp micro-batches in flight on the first stage.
 *
 * Every assumption is a named constant below, with its source; docs/memory.md explains each.
 */
#include "internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define GIB 1073741824.0

/* Memory the driver keeps from CUDA: the CUDA-visible total is below nvidia-smi's total.
 * Measured: A100-80GB 0.72 GiB (vLLM 0.10 logs, validation case vllm-dennislee-*), RTX 3090
 * 0.42 GiB (vLLM issue #10517: 23.58 GiB of 24 GiB); H100 ~0.5 GiB. */
#define GP_DRIVER_RESERVED_BYTES (0.55 * GIB)
/* CUDA context, cuBLAS/NCCL handles and other non-PyTorch memory of one process: vLLM logs
 * "non-torch memory 0.35GiB" for Llama-3.1-8B on an RTX 3090 (vLLM issue #10517). */
#define GP_NON_TORCH_BYTES (0.35 * GIB)
/* vLLM's sampler profiles this many sequences (max_num_seqs default, vLLM EngineArgs). */
#define GP_VLLM_MAX_NUM_SEQS 256
/* Prefill tokens per step vLLM profiles when not told: V1 `vllm serve` default (2048), and
 * on large non-A100 GPUs (H100, H200, B200, MI300X: >= 70 GiB) 8192 tokens and 1024
 * sequences (vLLM EngineArgs.get_batch_defaults). */
#define GP_VLLM_DEFAULT_BATCHED_TOKENS 2048
#define GP_VLLM_BIG_GPU_BATCHED_TOKENS 8192
#define GP_VLLM_BIG_GPU_MAX_NUM_SEQS   1024
/* Logits bytes per (token, vocab entry) in training: bf16 logits (2), their fp32 copy for
 * the loss (4), the fp32 log-softmax output cross_entropy saves (4) and the fp32 gradient
 * (4) (PyTorch cross_entropy on upcast logits, as torchtitan and HF trainers do). */
#define GP_TRAIN_LOGIT_BYTES 14.0
/* PyTorch's caching allocator reserves more than it allocates: fragmentation allowance on
 * the dynamic (activation and gradient) memory of training. PyTorch memory docs; calibrated
 * against torchtitan's reported max reserved (docs/validation.md). */
#define GP_ALLOCATOR_FRAGMENTATION 0.05

/* ---- enum names ---------------------------------------------------------------------- */

static const char *const task_names[GP_TASK_COUNT] = {"infer", "train", "lora", "qlora"};
static const char *const recompute_names[GP_RECOMPUTE_COUNT] = {"none", "selective", "full", "op"};
static const char *const optimizer_names[GP_OPT_COUNT] = {"adamw", "adam8bit", "sgd", "adafactor"};
static const char *const offload_names[GP_OFFLOAD_COUNT] = {"none", "optimizer", "params"};
static const char *const engine_names[GP_ENGINE_COUNT] = {"none", "vllm", "sglang", "tgi", "trtllm", "llamacpp"};
/* How each engine sizes its KV cache (flags in docs/engines.md):
 *  vLLM: gpu_memory_utilization x total memory holds weights, the profiled peak and the KV
 *        pool; blocks of 16 tokens (--block-size).
 *  SGLang: --mem-fraction-static x total holds weights and the KV pool; activations come on
 *        top; the pool is token-granular (--page-size 1).
 *  TGI: --cuda-memory-fraction (default 1.0) x total, its warm-up peak inside; blocks of 16.
 *  TensorRT-LLM: --kv_cache_free_gpu_memory_fraction (default 0.9) of the memory still free
 *        after the weights and buffers; blocks of 32 tokens (--tokens_per_block).
 *  llama.cpp: no pool: the cache of --ctx-size tokens is allocated whole (generic accounting).
 * --gpu-memory-utilization carries the engine's own fraction. */
typedef struct engine_rule {
    int pool;                /* reserves a KV pool from a memory fraction */
    int fraction_of_free;    /* the fraction applies to memory left after the load */
    int activations_outside; /* the fraction holds weights + KV only */
    int64_t block_size;      /* default tokens per KV block */
} engine_rule;

static const engine_rule engine_rules[GP_ENGINE_COUNT] = {
    [GP_ENGINE_NONE] = {0, 0, 0, 16}, [GP_ENGINE_VLLM] = {1, 0, 0, 16},   [GP_ENGINE_SGLANG] = {1, 0, 1, 1},
    [GP_ENGINE_TGI] = {1, 0, 0, 16},  [GP_ENGINE_TRTLLM] = {1, 1, 0, 32}, [GP_ENGINE_LLAMACPP] = {0, 0, 0, 16},
};

/* Optimizer bytes per trainable parameter (fp32 master weights included). */
static const double optimizer_bytes[GP_OPT_COUNT] = {12.0, 6.0, 8.0, 4.0};

static int parse_name(const char *s, const char *const *names, int n)
{
    for (int i = 0; s && i < n; i++)
        if (gpi_strcaseeq(s, names[i]))
            return i;
    return n;
}

const char *gp_task_name(gp_task t)
{
    return (unsigned)t < GP_TASK_COUNT ? task_names[t] : "?";
}
gp_task gpi_task_parse(const char *s)
{
    if (gpi_strcaseeq(s, "inference") || gpi_strcaseeq(s, "serve"))
        return GP_TASK_INFER;
    if (gpi_strcaseeq(s, "finetune") || gpi_strcaseeq(s, "pretrain"))
        return GP_TASK_TRAIN;
    return (gp_task)parse_name(s, task_names, GP_TASK_COUNT);
}
const char *gp_recompute_name(gp_recompute r)
{
    return (unsigned)r < GP_RECOMPUTE_COUNT ? recompute_names[r] : "?";
}
gp_recompute gpi_recompute_parse(const char *s)
{
    return (gp_recompute)parse_name(s, recompute_names, GP_RECOMPUTE_COUNT);
}
static const char *const recompute_module_names[] = {"core_attn", "layernorm",      "mlp",        "moe",
                                                     "moe_act",   "shared_experts", "mla_up_proj"};
#define N_RECOMPUTE_MODULES (sizeof recompute_module_names / sizeof recompute_module_names[0])

int gpi_recompute_modules_parse(const char *s, unsigned *out, const char **bad)
{
    unsigned mods = 0;
    while (s && *s) {
        size_t n = strcspn(s, ", ");
        if (n > 0) {
            size_t i = 0;
            while (i < N_RECOMPUTE_MODULES &&
                   !(strlen(recompute_module_names[i]) == n && strncmp(recompute_module_names[i], s, n) == 0))
                i++;
            if (i == N_RECOMPUTE_MODULES) {
                if (bad)
                    *bad = s;
                return -1;
            }
            mods |= 1u << i;
        }
        s += n + (s[n] != '\0');
    }
    *out = mods;
    return 0;
}

void gpi_recompute_modules_format(unsigned mods, const char *sep, char *buf, size_t n)
{
    size_t used = 0;
    if (n == 0)
        return;
    buf[0] = '\0';
    for (size_t i = 0; i < N_RECOMPUTE_MODULES; i++) {
        if (!(mods & (1u << i)))
            continue;
        int k = snprintf(buf + used, n - used, "%s%s", used ? sep : "", recompute_module_names[i]);
        if (k < 0 || (size_t)k >= n - used) {
            buf[used] = '\0'; /* no room for this name: the names that fit, whole */
            return;
        }
        used += (size_t)k;
    }
}

unsigned gpi_recompute_modules_of(const gp_layout *l)
{
    if (l->recompute != GP_RECOMPUTE_SELECTIVE)
        return 0;
    return l->recompute_modules ? l->recompute_modules : GP_RECOMPUTE_CORE_ATTN;
}

const char *gp_optimizer_name(gp_optimizer o)
{
    return (unsigned)o < GP_OPT_COUNT ? optimizer_names[o] : "?";
}
gp_optimizer gpi_optimizer_parse(const char *s)
{
    if (gpi_strcaseeq(s, "adam"))
        return GP_OPT_ADAMW;
    return (gp_optimizer)parse_name(s, optimizer_names, GP_OPT_COUNT);
}
const char *gp_offload_name(gp_offload o)
{
    return (unsigned)o < GP_OFFLOAD_COUNT ? offload_names[o] : "?";
}
gp_offload gpi_offload_parse(const char *s)
{
    return (gp_offload)parse_name(s, offload_names, GP_OFFLOAD_COUNT);
}
const char *gp_engine_name(gp_engine e)
{
    return (unsigned)e < GP_ENGINE_COUNT ? engine_names[e] : "?";
}
gp_engine gpi_engine_parse(const char *s)
{
    return (gp_engine)parse_name(s, engine_names, GP_ENGINE_COUNT);
}

void gpi_workload_defaults(gp_workload *w, gp_task task)
{
    memset(w, 0, sizeof *w);
    w->task = task;
    w->dtype = GP_DTYPE_UNKNOWN; /* as the model is stored */
    w->kv_dtype = GP_DTYPE_UNKNOWN;
    w->context = 4096;
    w->batch = 1;
    w->seq = 4096;
    w->optimizer = GP_OPT_ADAMW;
    w->lora_rank = 16;
    w->flash_attention = 1;
    w->engine = GP_ENGINE_NONE;
    w->gpu_memory_utilization = 0.9;
    w->block_size = 0;   /* the engine's own (engine_rules) */
    w->max_num_seqs = 0; /* the engine's default (vLLM: 256, or 1024 on large GPUs) */
}

void gpi_layout_defaults(gp_layout *l)
{
    memset(l, 0, sizeof *l);
    l->tp = l->pp = l->dp = l->cp = l->ep = 1;
    l->virtual_stages = 1;
    l->micro_batch = 1;
}

int gp_layout_gpus(const gp_layout *l)
{
    /* in int64 (four degrees of up to 2^20 would overflow int); saturates at INT_MAX */
    int64_t n = (int64_t)l->tp * l->pp;
    if (!gpi_mul_i64_checked(n, (int64_t)l->dp * l->cp, &n) || n > INT_MAX)
        return INT_MAX;
    return (int)n;
}

/* ---- the split of parameters over one GPU ---------------------------------------------- */

typedef struct split {
    double linear;       /* matrix parameters on this GPU (quantizable) */
    double other;        /* embeddings, head, norms, routers on this GPU */
    double layers;       /* decoder layers on this GPU's stage */
    double layer_linear; /* matrix parameters of ONE layer on this GPU */
    int last_stage_heavier;
} split;

static void split_params(const gp_model *m, const gp_param_breakdown *p, const gp_layout *l, split *s)
{
    const double tp = l->tp;
    /* Routed experts: sharded by TP inside each expert (vLLM's default, Megatron ETP = TP),
     * or, with expert parallelism, whole experts spread over ep ranks of the tp x dp GPUs
     * (vLLM --enable-expert-parallel; Megatron EP carved from DP x TP). */
    const double expert_split = l->ep > 1 ? (double)l->ep : tp;
    const double L = (double)m->layers;
    const double per_layer_linear =
        ((double)(p->attention + p->mlp_dense + p->experts_shared) / tp + (double)p->experts_routed / expert_split) / L;
    const double final_norm = m->norm == GP_NORM_LAYER ? 2.0 * (double)m->hidden : (double)m->hidden;
    const double per_layer_other = ((double)p->router + (double)p->norms - final_norm) / L;
    const double stage_layers = ceil(L / l->pp);
    const double emb = (double)p->embedding / tp + (double)p->position;
    double head = (double)(m->tied_embeddings ? p->embedding : p->head) / tp;
    s->layers = stage_layers;
    s->layer_linear = per_layer_linear;
    s->linear = per_layer_linear * stage_layers;
    if (l->pp == 1) {
        s->other = per_layer_other * stage_layers + emb + (m->tied_embeddings ? 0 : head) + final_norm;
        s->last_stage_heavier = 0;
    } else {
        double first = emb, last = head + final_norm;
        s->last_stage_heavier = last > first;
        s->other = per_layer_other * stage_layers + (last > first ? last : first);
    }
}

static double bits_of(gp_dtype t)
{
    return gp_dtype_bits(t);
}

/* Weight bytes on this GPU at the serving/storage precision. */
static double weight_bytes(const gp_model *m, const gp_param_breakdown *p, const split *s, gp_dtype t)
{
    if (t == GP_DTYPE_UNKNOWN) {
        if (m->has_exact && m->exact_bytes > 0 && p->total > 0) /* as stored, exact */
            return (double)m->exact_bytes * (s->linear + s->other) / (double)p->total;
        t = m->quant != GP_DTYPE_UNKNOWN ? m->quant : m->dtype;
    }
    double b = bits_of(t);
    double other_bits = b >= 16.0 ? b : 16.0;
    return s->linear * b / 8.0 + s->other * other_bits / 8.0;
}

static gp_dtype compute_dtype(const gp_model *m, const gp_workload *w)
{
    gp_dtype t = w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : m->dtype;
    if (t == GP_DTYPE_UNKNOWN || bits_of(t) < 16.0)
        return GP_DTYPE_BF16; /* weight-only quantized models compute in 16 bits */
    return t;
}

/* KV bytes on this GPU for `tokens` tokens of one sequence. */
static double kv_bytes_gpu(const gp_model *m, const gp_workload *w, const gp_layout *l, int64_t tokens)
{
    gp_dtype kt = w->kv_dtype;
    if (kt == GP_DTYPE_UNKNOWN) {
        kt = compute_dtype(m, w);
        if (bits_of(kt) > 16.0)
            kt = GP_DTYPE_BF16;
    }
    double per_seq = (double)gp_model_kv_bytes(m, kt, tokens);
    double stage = ceil((double)m->layers / l->pp) / (double)m->layers;
    double tp_share = 1.0;
    if (m->kv_lora_rank == 0) {
        double kv = (double)m->kv_heads, per_rank = ceil(kv / l->tp);
        tp_share = per_rank / kv;
    }
    return per_seq * stage * tp_share;
}

/* Activation bytes per token of a forward pass (inference, no storage for backward): the
 * largest live set is the MLP: gate and up outputs (2f) and their product (f) beside the
 * residual stream and normed input (2h); MoE: the top-k experts' intermediates. */
static double infer_act_bytes_per_token(const gp_model *m, const gp_layout *l, double elem)
{
    double f = (double)m->ffn;
    double moe = (double)m->experts_active * (double)m->moe_ffn +
                 (double)m->shared_experts * (double)(m->shared_expert_ffn ? m->shared_expert_ffn : m->moe_ffn);
    if (m->experts > 0 && (moe > f || m->dense_layers == 0))
        f = moe;
    double mult = m->mlp == GP_MLP_GATED ? 3.0 : 2.0;
    return (mult * f / l->tp + 2.0 * (double)m->hidden) * elem;
}

/* Training activation bytes of ONE layer for one micro-batch of s tokens (s already / cp),
 * 16-bit activations, no dropout. Korthikanti et al. 2022 Table 2 generalised:
 *   norm inputs 2 x 2sbh; attention: qkv input 2sbh, q 2sb*qd, k,v 2*2sb*kvd, attention
 *   output 2sb*qd; MLP: input 2sbh, gated 2*2sb*f + 2sb*f (plain: 2*2sb*f); non-flash
 *   attention adds scores and probabilities 2*2*a*s^2*b. The norm and linear inputs
 *   (8sbh) are replicated over TP unless sequence parallelism splits them. */
static double train_act_layer_bytes(const gp_model *m, const gp_layout *l, const gp_workload *w, double s, double b)
{
    const double h = (double)m->hidden, tp = l->tp;
    double qd = (double)m->heads * (double)m->head_dim, kvd = (double)m->kv_heads * (double)m->head_dim;
    if (m->kv_lora_rank > 0) {
        qd = (double)(m->heads * (m->qk_nope_head_dim + m->qk_rope_head_dim));
        kvd = (double)(m->heads * (m->qk_nope_head_dim + m->v_head_dim)) / 2.0;
    }
    double f = (double)m->ffn;
    int moe = m->experts > 0 && m->dense_layers == 0;
    double f_routed = moe ? (double)m->experts_active * (double)m->moe_ffn : 0.0;
    double f_shared =
        moe ? (double)m->shared_experts * (double)(m->shared_expert_ffn ? m->shared_expert_ffn : m->moe_ffn) : 0.0;
    if (moe)
        f = f_routed + f_shared;
    double act = m->mlp == GP_MLP_GATED ? 3.0 : 2.0; /* MLP inner activations per unit of f */
    double mlp_inner = act * f;
    /* Megatron-Core's selective modules (gpi_recompute_modules_of) store less: "layernorm" not
     * the norms' outputs (the qkv and MLP inputs), "moe_act" not the routed experts' activation
     * outputs (f of their 3 f), "shared_experts" / "mlp" / "moe" nothing inside that MLP */
    unsigned mods = gpi_recompute_modules_of(l);
    double norm_outputs = (mods & GP_RECOMPUTE_LAYERNORM) ? 0.0 : 2.0 * h;
    if (moe && (mods & GP_RECOMPUTE_MOE_ACT))
        mlp_inner -= f_routed;
    if (moe && (mods & GP_RECOMPUTE_SHARED_EXPERTS) && !(mods & GP_RECOMPUTE_MOE))
        mlp_inner -= act * f_shared;
    if ((moe && (mods & GP_RECOMPUTE_MOE)) || (m->experts == 0 && (mods & GP_RECOMPUTE_MLP)))
        mlp_inner = 0.0;
    double replicated = 2.0 * s * b * (2.0 * h + norm_outputs);          /* 2 norms, qkv, mlp inputs */
    double split_part = 2.0 * s * b * (qd + 2.0 * kvd + qd + mlp_inner); /* split by TP */
    int scores_kept = l->recompute == GP_RECOMPUTE_NONE ||
                      (l->recompute == GP_RECOMPUTE_SELECTIVE && !(mods & GP_RECOMPUTE_CORE_ATTN));
    if (!w->flash_attention && scores_kept)
        split_part += 4.0 * (double)m->heads * s * s * b;
    double sp = l->sequence_parallel ? tp : 1.0;
    if (l->recompute == GP_RECOMPUTE_FULL)
        return 2.0 * s * b * h / sp; /* the layer's input only */
    if (l->recompute == GP_RECOMPUTE_OP) {
        /* torchtitan's op-level policy (torch.utils.checkpoint, SAC): save the attention
         * output and every other matmul output, recompute the element-wise rest: the block
         * input (h) + attention output (qd) + half of the matmul outputs q, k, v, o, the MLP
         * projections and down (qd + 2 kvd + h + mlp_outputs + h) */
        double mlp_out = m->mlp == GP_MLP_GATED ? 2.0 * f : f;
        return 2.0 * s * b * (h / sp + qd / tp + 0.5 * ((qd + 2.0 * kvd + mlp_out) / tp + 2.0 * h / sp));
    }
    return replicated / sp + split_part / tp;
}

/* ---- input ranges: what the arithmetic below can hold (docs/reliability.md, "Limits") ---- */

#define GP_MAX_DEGREE      65536     /* any one parallel degree */
#define GP_MAX_LAYOUT_GPUS (1 << 24) /* tp x pp x dp x cp */

static gp_status bad_field(gp_error *err, const char *field, long long v, long long lo, long long hi)
{
    gpi_error_set_field(err, field);
    return gpi_fail(err, GP_EINVAL, "%s is %lld: it must be between %lld and %lld", field, v, lo, hi);
}

#define RANGE(field, v, lo, hi)                                                                                        \
    do {                                                                                                               \
        if ((int64_t)(v) < (int64_t)(lo) || (int64_t)(v) > (int64_t)(hi))                                              \
            return bad_field(err, field, (long long)(v), (long long)(lo), (long long)(hi));                            \
    } while (0)

/* The modules a layout names, as Megatron-Core takes them: known bits, selective recomputation
 * only, moe_act for an MoE model, mla_up_proj for an MLA one (transformer_config.py:1784-1792 at
 * core_v0.19.0). */
gp_status gpi_recompute_modules_check(const gp_model *m, const gp_layout *l, gp_error *err)
{
    if (l->recompute_modules & ~GP_RECOMPUTE_MODULES_ALL) {
        gpi_error_set_field(err, "recompute_modules");
        return gpi_fail(err, GP_EINVAL, "recompute_modules holds unknown bits 0x%x", l->recompute_modules);
    }
    if (l->recompute_modules && l->recompute != GP_RECOMPUTE_SELECTIVE) {
        gpi_error_set_field(err, "recompute_modules");
        return gpi_fail(err, GP_EINVAL, "recompute modules apply to selective recomputation, not '%s'",
                        gp_recompute_name(l->recompute));
    }
    if ((l->recompute_modules & GP_RECOMPUTE_MOE_ACT) && m->experts == 0) {
        gpi_error_set_field(err, "recompute_modules");
        return gpi_fail(err, GP_EINVAL, "moe_act recomputes MoE experts' activation: %s has no experts", m->id);
    }
    if ((l->recompute_modules & GP_RECOMPUTE_MLA_UP_PROJ) && m->kv_lora_rank == 0) {
        gpi_error_set_field(err, "recompute_modules");
        return gpi_fail(err, GP_EINVAL, "mla_up_proj recomputes MLA's up projections: %s has no MLA", m->id);
    }
    return GP_OK;
}

static gp_status check_layout(const gp_model *m, const gp_layout *l, gp_error *err)
{
    RANGE("tp", l->tp, 1, GP_MAX_DEGREE);
    RANGE("pp", l->pp, 1, GP_MAX_DEGREE);
    RANGE("dp", l->dp, 1, GP_MAX_DEGREE * 16);
    RANGE("cp", l->cp, 1, GP_MAX_DEGREE);
    RANGE("ep", l->ep, 1, GP_MAX_DEGREE);
    RANGE("zero", l->zero, 0, 3);
    RANGE("micro_batch", l->micro_batch, 1, GPI_MAX_SEQS);
    RANGE("global_batch", l->global_batch, 0, GPI_MAX_SEQS * 1024);
    RANGE("virtual_stages", l->virtual_stages, 1, 1024);
    RANGE("recompute", l->recompute, 0, GP_RECOMPUTE_COUNT - 1);
    gp_status st = gpi_recompute_modules_check(m, l, err);
    if (st)
        return st;
    if ((double)l->tp * l->pp * l->dp * l->cp > GP_MAX_LAYOUT_GPUS) {
        gpi_error_set_field(err, "layout");
        return gpi_fail(err, GP_EINVAL, "tp x pp x dp x cp = %.0f GPUs: a layout may have at most %d",
                        (double)l->tp * l->pp * l->dp * l->cp, GP_MAX_LAYOUT_GPUS);
    }
    if (l->pp > m->layers) {
        gpi_error_set_field(err, "pp");
        return gpi_fail(err, GP_EINVAL, "pp=%d stages exceeds the model's %lld layers", l->pp, (long long)m->layers);
    }
    if (m->experts > 0 ? m->experts % l->ep != 0 : l->ep != 1) {
        gpi_error_set_field(err, "ep");
        return gpi_fail(err, GP_EINVAL, "ep=%d must divide the %lld routed experts", l->ep, (long long)m->experts);
    }
    if (l->ep > 1 && ((int64_t)l->tp * l->dp) % l->ep != 0) {
        gpi_error_set_field(err, "ep");
        return gpi_fail(err, GP_EINVAL,
                        "ep=%d must divide tp x dp = %lld: expert parallelism spreads experts over those GPUs", l->ep,
                        (long long)l->tp * l->dp);
    }
    return GP_OK;
}

static gp_status check_workload(const gp_workload *w, gp_error *err)
{
    RANGE("task", w->task, 0, GP_TASK_COUNT - 1);
    RANGE("dtype", w->dtype, 0, GP_DTYPE_COUNT - 1);
    RANGE("kv_dtype", w->kv_dtype, 0, GP_DTYPE_COUNT - 1);
    RANGE("optimizer", w->optimizer, 0, GP_OPT_COUNT - 1);
    RANGE("offload", w->offload, 0, GP_OFFLOAD_COUNT - 1);
    RANGE("engine", w->engine, 0, GP_ENGINE_COUNT - 1);
    RANGE("context", w->context, 1, GPI_MAX_TOKENS);
    RANGE("batch", w->batch, 1, GPI_MAX_SEQS);
    RANGE("seq", w->seq, 1, GPI_MAX_TOKENS);
    RANGE("block_size", w->block_size, 0, GPI_MAX_TOKENS);
    RANGE("max_num_batched_tokens", w->max_num_batched_tokens, 0, GPI_MAX_TOKENS);
    RANGE("max_num_seqs", w->max_num_seqs, 0, GPI_MAX_SEQS);
    if (w->task == GP_TASK_LORA || w->task == GP_TASK_QLORA)
        RANGE("lora_rank", w->lora_rank, 1, 1 << 20);
    if (w->engine != GP_ENGINE_NONE && !(w->gpu_memory_utilization > 0.0 && w->gpu_memory_utilization <= 1.0)) {
        gpi_error_set_field(err, "gpu_memory_utilization");
        return gpi_fail(err, GP_EINVAL, "gpu_memory_utilization must be in (0, 1], not %g", w->gpu_memory_utilization);
    }
    return GP_OK;
}

/* One memory figure from double to bytes: refused (GP_ELIMIT, naming what drives it) past
 * GPI_MAX_BYTES, where a cast would be undefined or a sum could wrap. */
static gp_status to_bytes(double v, uint64_t *out, gp_error *err, const char *field, const char *what, const char *hint)
{
    if (gpi_u64_from_double(v, GPI_MAX_BYTES, out))
        return GP_OK;
    char b[48];
    gpi_format_bytes(b, sizeof b, v);
    gpi_error_set_field(err, field);
    return gpi_fail(err, GP_ELIMIT, "%s needs %s per GPU, beyond the 2^60 bytes (1.15 EB) gpuplan counts: %s", what,
                    isfinite(v) ? b : "an unbounded amount", hint);
}

/* Sum of the components (each <= 2^60, so no wrap). */
static uint64_t sum_bytes(const gp_memory *o)
{
    return o->weights + o->kv_cache + o->activations + o->gradients + o->optimizer + o->overhead;
}

/* ---- inference ------------------------------------------------------------------------- */

static gp_status engine_pool(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                             const engine_rule *er, gp_memory *out, gp_error *err)
{
    double visible = (double)gpu->memory_bytes - GP_DRIVER_RESERVED_BYTES;
    double budget, kv;
    double frac = w->gpu_memory_utilization;
    if (er->fraction_of_free) { /* TRT-LLM: a fraction of what is free after the load */
        double free = visible - (double)out->weights - (double)out->activations - GP_NON_TORCH_BYTES;
        kv = free > 0 ? frac * free : free;
        budget = (double)out->weights + (double)out->activations + GP_NON_TORCH_BYTES + (kv > 0 ? kv : 0);
    } else if (er->activations_outside) { /* SGLang: the static fraction holds weights + KV */
        budget = visible * frac;
        kv = budget - (double)out->weights;
        budget += (double)out->activations + GP_NON_TORCH_BYTES;
    } else { /* vLLM, TGI: a fraction of the whole, the profiled peak inside it */
        budget = visible * frac;
        kv = budget - (double)out->weights - (double)out->activations - GP_NON_TORCH_BYTES;
    }
    out->engine_budget = gpi_u64_sat(budget);
    int64_t bs = w->block_size > 0 ? w->block_size : er->block_size;
    out->kv_block_size = bs;
    double per_token = kv_bytes_gpu(m, w, l, 1);
    if (m->sliding_window > 0) /* the pool is sized per full-attention token */
        per_token = kv_bytes_gpu(m, w, l, m->sliding_window) / (double)m->sliding_window;
    double block = per_token * (double)bs;
    if (kv > 0 && block > 0) {
        /* kv <= the device's memory and block >= 1 byte: blocks and tokens fit int64 */
        out->kv_blocks = gpi_i64_sat(floor(kv / block));
        if (!gpi_mul_i64_checked(out->kv_blocks, bs, &out->kv_tokens))
            out->kv_tokens = INT64_MAX;
        out->kv_cache_bytes = gpi_u64_sat((double)out->kv_blocks * block);
        out->max_concurrency = (double)out->kv_tokens / (double)w->context;
    }
    /* vLLM's accounting: the pool it reserves replaces the KV asked for */
    double per_gpu = budget + GP_DRIVER_RESERVED_BYTES;
    /* short of the KV asked for: by what the pool lacks, and when the weights and the
     * profiled peak alone overrun the budget (kv < 0), by that overrun too */
    if (kv < (double)out->kv_cache)
        per_gpu += (double)out->kv_cache - kv;
    return to_bytes(per_gpu, &out->per_gpu, err, "context", "the engine's memory with the KV cache asked for",
                    "lower --context or --batch");
}

static gp_status infer_memory(const gp_model *m, const gp_param_breakdown *p, const split *s, const gp_gpu *gpu,
                              const gp_workload *w, const gp_layout *l, gp_memory *out, gp_error *err)
{
    const double elem = bits_of(compute_dtype(m, w)) / 8.0;
    gp_status st =
        to_bytes(weight_bytes(m, p, s, w->dtype), &out->weights, err, "model", "the weights", "check the architecture");
    if (st)
        return st;
    char what[160];
    snprintf(what, sizeof what, "the KV cache of %lld sequences of %lld tokens", (long long)w->batch,
             (long long)w->context);
    st = to_bytes(kv_bytes_gpu(m, w, l, w->context) * (double)w->batch, &out->kv_cache, err,
                  w->batch > 1 ? "batch" : "context", what, "lower --context or --batch, or split over more GPUs");
    if (st)
        return st;
    /* vLLM's `serve` defaults (EngineArgs batch defaults): 8192 tokens and 1024 sequences
     * on GPUs with >= 70 GiB that are not A100s, else 2048 and 256. */
    int big_gpu = gpu && gpu->vllm_large_device; /* data/gpus.json (docs/hardware.md) */
    double chunk = (double)(w->max_num_batched_tokens > 0             ? w->max_num_batched_tokens
                            : w->engine == GP_ENGINE_NONE || !big_gpu ? GP_VLLM_DEFAULT_BATCHED_TOKENS
                                                                      : GP_VLLM_BIG_GPU_BATCHED_TOKENS);
    /* context x batch reaches 2^64: compared in double */
    if (w->engine == GP_ENGINE_NONE && chunk > (double)w->context * (double)w->batch)
        chunk = (double)w->context * (double)w->batch;
    int64_t seqs = w->engine == GP_ENGINE_NONE ? w->batch
                   : w->max_num_seqs > 0       ? w->max_num_seqs
                   : big_gpu                   ? GP_VLLM_BIG_GPU_MAX_NUM_SEQS
                                               : GP_VLLM_MAX_NUM_SEQS;
    double logits = (double)seqs * (double)m->vocab / l->tp * 4.0; /* fp32 logits of the sampled rows */
    st = to_bytes(chunk * infer_act_bytes_per_token(m, l, elem) + logits, &out->activations, err,
                  w->engine == GP_ENGINE_NONE ? "batch" : "max_num_seqs", "the prefill activations and logits",
                  "lower --batch, --max-num-seqs or --max-num-batched-tokens");
    if (st)
        return st;
    out->overhead = (uint64_t)(GP_NON_TORCH_BYTES + GP_DRIVER_RESERVED_BYTES);
    out->per_gpu = sum_bytes(out);
    const engine_rule *er = &engine_rules[w->engine];
    if (er->pool && gpu)
        return engine_pool(m, gpu, w, l, er, out, err);
    return GP_OK;
}

/* ---- training -------------------------------------------------------------------------- */

static gp_status train_states(const gp_model *m, const gp_param_breakdown *p, const split *s, const gp_workload *w,
                              const gp_layout *l, gp_memory *out, gp_error *err)
{
    double wbytes, gbytes, obytes, offload = 0;
    if (w->task != GP_TASK_LORA && w->task != GP_TASK_QLORA) {
        /* ZeRO/FSDP shards over data x context parallel ranks (Megatron's distributed
         * optimizer and torchtitan both fold CP into the sharding group) */
        const double dp = (double)l->dp * l->cp;
        const double params_gpu = s->linear + s->other;
        wbytes = 2.0 * params_gpu;
        gbytes = 2.0 * params_gpu;
        obytes = optimizer_bytes[w->optimizer] * params_gpu;
        if (l->zero >= 1)
            obytes /= dp;
        if (l->zero >= 2)
            gbytes /= dp;
        if (l->zero >= 3) /* sharded weights + the gathered layers in use (current + prefetch) */
            wbytes = wbytes / dp + 2.0 * 2.0 * s->layer_linear;
        if (w->offload != GP_OFFLOAD_NONE) {
            offload += obytes;
            obytes = 0;
        }
        if (w->offload == GP_OFFLOAD_PARAMS) {
            offload += wbytes - 2.0 * 2.0 * s->layer_linear;
            wbytes = 2.0 * 2.0 * s->layer_linear;
        }
    } else {
        /* frozen base: 16-bit (LoRA) or NF4 with double-quantized scales (QLoRA) */
        gp_dtype base = w->task == GP_TASK_QLORA ? GP_DTYPE_NF4 : GP_DTYPE_BF16;
        double base_bytes = weight_bytes(m, p, s, base);
        /* adapters on every linear layer: r x (in + out) per matrix */
        const double h = (double)m->hidden, r = (double)w->lora_rank;
        double qd = (double)m->heads * (double)m->head_dim, kvd = (double)m->kv_heads * (double)m->head_dim;
        double f = (double)(m->experts > 0 && m->dense_layers == 0 ? m->moe_ffn : m->ffn);
        double per_layer = r * ((h + qd) * 2.0 + 2.0 * (h + kvd)) + r * (h + f) * (m->mlp == GP_MLP_GATED ? 3.0 : 2.0);
        double adapters = per_layer * s->layers / l->tp;
        wbytes = base_bytes + 2.0 * adapters;
        gbytes = 2.0 * adapters;
        obytes = optimizer_bytes[w->optimizer] * adapters;
        /* QLoRA's paged optimizer keeps its states in unified memory that pages out to
         * the CPU under memory pressure (Dettmers et al. 2023, sec. 3): they do not
         * decide whether the job fits, so they are counted as CPU-resident. */
        if (w->task == GP_TASK_QLORA || w->offload != GP_OFFLOAD_NONE) {
            offload += obytes;
            obytes = 0;
        }
    }
    const char *hint = "check the architecture and --lora-rank";
    gp_status st = to_bytes(wbytes, &out->weights, err, "model", "the weights", hint);
    if (!st)
        st = to_bytes(gbytes, &out->gradients, err, "model", "the gradients", hint);
    if (!st)
        st = to_bytes(obytes, &out->optimizer, err, "model", "the optimizer states", hint);
    if (!st)
        st = to_bytes(offload, &out->cpu_offload, err, "offload", "the offloaded states", hint);
    return st;
}

static gp_status train_activations(const gp_model *m, const split *s, const gp_workload *w, const gp_layout *l,
                                   gp_memory *out, gp_error *err)
{
    /* activations: layers of this stage x micro-batches in flight (1F1B: pp on stage 1) */
    double seq = (double)w->seq / l->cp, b = (double)l->micro_batch;
    double gb = l->global_batch > 0 ? (double)l->global_batch : (double)l->dp * b;
    double n_micro = gb / ((double)l->dp * b);
    if (n_micro < 1)
        n_micro = 1;
    double in_flight = l->pp < n_micro ? l->pp : n_micro;
    if (l->pp > 1 && l->virtual_stages > 1)
        in_flight *= 1.0 + (double)(l->pp - 1) / ((double)l->pp * l->virtual_stages);
    double per_layer = train_act_layer_bytes(m, l, w, seq, b);
    double act = per_layer * s->layers * in_flight;
    if (l->recompute == GP_RECOMPUTE_FULL) { /* recomputing one layer needs its full set */
        gp_layout nofull = *l;
        nofull.recompute = GP_RECOMPUTE_SELECTIVE;
        act += train_act_layer_bytes(m, &nofull, w, seq, b);
    }
    double logits = seq * b * (double)m->vocab / l->tp * GP_TRAIN_LOGIT_BYTES;
    if (l->pp == 1)
        act += logits;
    else /* the first stage holds pp micro-batches; the last one micro-batch and logits */
        act = act > logits + per_layer * s->layers ? act : logits + per_layer * s->layers;
    char what[160];
    snprintf(what, sizeof what, "the activations of a micro-batch of %lld sequences of %lld tokens%s",
             (long long)l->micro_batch, (long long)w->seq,
             w->flash_attention || l->recompute != GP_RECOMPUTE_NONE ? "" : " without flash attention");
    gp_status st = to_bytes(act, &out->activations, err, "seq", what,
                            "lower --seq or --micro-batch, use flash attention, recomputation or context parallelism");
    if (st)
        return st;
    return to_bytes(GP_NON_TORCH_BYTES + GP_DRIVER_RESERVED_BYTES +
                        GP_ALLOCATOR_FRAGMENTATION * (act + (double)out->gradients),
                    &out->overhead, err, "seq", what, "lower --seq or --micro-batch");
}

gp_status gpi_memory_estimate(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                              gp_memory *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (!st)
        st = check_layout(m, l, err);
    if (!st)
        st = check_workload(w, err);
    if (st)
        return st;
    split s;
    split_params(m, &p, l, &s);
    out->capacity = gpu ? gpu->memory_bytes : 0;
    if (w->task == GP_TASK_INFER) {
        st = infer_memory(m, &p, &s, gpu, w, l, out, err);
    } else {
        st = train_states(m, &p, &s, w, l, out, err);
        if (!st)
            st = train_activations(m, &s, w, l, out, err);
        out->per_gpu = sum_bytes(out);
    }
    if (st)
        return st;
    /* both are below 2^63 (capacity: checked; per_gpu: a sum of figures <= 2^60) */
    if (out->capacity <= (uint64_t)INT64_MAX && out->per_gpu <= (uint64_t)INT64_MAX)
        out->headroom = (int64_t)out->capacity - (int64_t)out->per_gpu;
    else
        out->headroom = gpi_i64_sat((double)out->capacity - (double)out->per_gpu);
    out->fits = gpu ? out->per_gpu <= out->capacity : 0;
    return GP_OK;
}
