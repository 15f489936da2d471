/*
 * memory.c: the memory categories: infer_memory (vLLM start-up logs, Lambda's maximum
 * context, QLoRA model sizes), train_memory (torchtitan peaks, ZeRO Figure 1) and
 * finetune_memory (QLoRA bounds). Every prediction comes from gpi_memory_estimate.
 */
#include "validate.h"

#include <stdlib.h>
#include <string.h>

/* ---- infer_memory: vLLM start-up logs, Lambda max context, QLoRA model sizes ---------- */
static void validate_infer_memory(const gp_catalog *cat, json_t *c, vrows *rs)
{
    gp_model m;
    if (!vmap_model(cat, c, &m))
        return;
    json_t *meas = json_object_get(c, "measured"), *set = json_object_get(c, "settings");
    json_t *par = json_object_get(c, "parallel");
    const char *name = json_string_value(json_object_get(json_object_get(c, "model"), "name"));
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = vint(par, "tp", 1);
    if (!isnan(vnum(meas, "model_size_gb"))) { /* QLoRA Table 1: weights footprint */
        const char *wt = json_string_value(json_object_get(set, "weights"));
        gp_dtype t = wt && vcontains(wt, "4-bit") ? GP_DTYPE_NF4 : GP_DTYPE_F16;
        vadd(rs, c, t == GP_DTYPE_NF4 ? "weights at NF4 (GB)" : "weights at 16 bits (GB)", vnum(meas, "model_size_gb"),
             (double)gp_model_weight_bytes(&m, t) / 1e9, "GB");
        return;
    }
    const gp_gpu *g = vmap_gpu(cat, c);
    if (!g)
        return;
    w.engine = GP_ENGINE_VLLM;
    double util = vnum(set, "gpu_memory_utilization");
    w.gpu_memory_utilization = isnan(util) ? 0.9 : util;
    if (vcontains(name, "FP8"))
        w.dtype = GP_DTYPE_FP8;
    double ctx = vnum(set, "max_model_len");
    const char *engine = json_string_value(json_object_get(set, "engine"));
    int v0 = engine && !vcontains(engine, "V1 engine") &&
             (vcontains(engine, "V0") || vcontains(engine, "2023") || vcontains(engine, "v0.5") ||
              vcontains(engine, "v0.6"));
    w.context = isnan(ctx) ? (m.max_context < 4096 ? m.max_context : 4096) : (int64_t)ctx;
    if (vcontains(json_string_value(json_object_get(c, "id")), "llama2")) /* Llama 2 default max_model_len */
        w.context = 4096;
    /* V0 profiles one prefill of max(max_model_len, 2048) tokens (chunked prefill off) */
    w.max_num_batched_tokens = v0 ? (w.context > 2048 ? w.context : 2048) : 2048;
    w.max_num_seqs = 256; /* the default of the vLLM versions in these logs */
    gp_memory mem;
    if (gpi_memory_estimate(&m, g, &w, &l, &mem, NULL) != GP_OK)
        return;
    if (!isnan(vnum(meas, "weights_gib_per_gpu")))
        vadd(rs, c, "weights per GPU (GiB)", vnum(meas, "weights_gib_per_gpu"), (double)mem.weights / GIB, "GiB");
    if (!isnan(vnum(meas, "weights_gib")))
        vadd(rs, c, "weights (GiB)", vnum(meas, "weights_gib"), (double)mem.weights / GIB, "GiB");
    if (!isnan(vnum(meas, "available_kv_cache_gib_per_gpu")))
        vadd(rs, c, "KV cache per GPU (GiB)", vnum(meas, "available_kv_cache_gib_per_gpu"),
             (double)mem.kv_cache_bytes / GIB, "GiB");
    if (!isnan(vnum(meas, "kv_cache_gib")))
        vadd(rs, c, "KV cache (GiB)", vnum(meas, "kv_cache_gib"), (double)mem.kv_cache_bytes / GIB, "GiB");
    if (!isnan(vnum(meas, "gpu_kv_cache_tokens")))
        vadd(rs, c, "KV cache tokens", vnum(meas, "gpu_kv_cache_tokens"), (double)mem.kv_tokens, "tokens");
    if (!isnan(vnum(meas, "gpu_blocks")))
        vadd(rs, c, "KV blocks", vnum(meas, "gpu_blocks"), (double)mem.kv_blocks, "blocks");
    if (!isnan(vnum(meas, "gpu_blocks_after_fix")))
        vadd(rs, c, "KV blocks", vnum(meas, "gpu_blocks_after_fix"), (double)mem.kv_blocks, "blocks");
    if (!isnan(vnum(meas, "max_concurrency_at_max_len")))
        vadd(rs, c, "max concurrency at max_model_len", vnum(meas, "max_concurrency_at_max_len"), mem.max_concurrency,
             "x");
    const char *maxctx = json_string_value(json_object_get(meas, "max_servable_context"));
    if (maxctx) { /* Lambda's grid: the stated context serves, the next grid step (2x) does not */
        double k = atof(maxctx) * 1024.0;
        gp_memory a, b;
        w.context = (int64_t)k;
        w.max_num_batched_tokens = v0 && w.context > 2048 ? w.context : 2048;
        gpi_memory_estimate(&m, g, &w, &l, &a, NULL);
        w.context = (int64_t)(2 * k);
        w.max_num_batched_tokens = v0 && w.context > 2048 ? w.context : 2048;
        gpi_memory_estimate(&m, g, &w, &l, &b, NULL);
        int top = k >= 131072; /* 128k is the model's own limit: nothing above to fail */
        int pass = a.kv_tokens >= (int64_t)k && (top || b.kv_tokens < (int64_t)(2 * k));
        vadd_bound(rs, c, "max servable context (KV tokens)", k, (double)a.kv_tokens, "tokens", pass);
    }
}

/* ---- train_memory: torchtitan peaks, ZeRO Figure 1 ------------------------------------ */
static void validate_train_memory(const gp_catalog *cat, json_t *c, vrows *rs)
{
    json_t *meas = json_object_get(c, "measured"), *par = json_object_get(c, "parallel");
    json_t *mod = json_object_get(c, "model");
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_model m;
    if (!isnan(vnum(meas, "model_state_gb_per_device"))) {
        /* ZeRO Fig. 1 is analytical over Psi = 7.5B parameters: a model of many thin layers
         * makes the ZeRO-3 gathered-layer working set negligible. */
        memset(&m, 0, sizeof m);
        m.hidden = 256;
        m.heads = m.kv_heads = 4;
        m.head_dim = 64;
        m.ffn = 1024;
        m.vocab = 8;
        m.norms_per_layer = 2;
        m.dtype = GP_DTYPE_F16;
        m.layers = (int64_t)(vnum(mod, "params") / (4.0 * 256 * 256 + 3.0 * 256 * 1024 + 512) + 0.5);
        gp_param_breakdown p;
        if (gp_model_params(&m, &p, NULL))
            return;
        const char *z = json_string_value(json_object_get(par, "zero"));
        l.dp = vint(par, "dp", 1);
        l.zero = vcontains(z, "+p") ? 3 : vcontains(z, "+g") ? 2 : vcontains(z, "Pos") ? 1 : 0;
        gp_memory mem;
        if (gpi_memory_estimate(&m, NULL, &w, &l, &mem, NULL))
            return;
        double states = (double)(mem.weights + mem.gradients + mem.optimizer) / 1e9 * 7.5e9 / (double)p.total;
        vadd(rs, c, "model states per GPU (GB)", vnum(meas, "model_state_gb_per_device"), states, "GB");
        return;
    }
    if (!vmap_model(cat, c, &m))
        return;
    const char *zero = json_string_value(json_object_get(par, "zero"));
    if (zero && vcontains(zero, "FSDP")) {
        l.dp = vint(par, "zero", 1);
        l.zero = l.dp > 1 ? 3 : 0;
    }
    l.cp = vint(par, "cp", 1);
    if (zero && vcontains(zero, "FSDP") && l.dp * l.cp > 1)
        l.zero = 3; /* torchtitan shards over dp_shard x cp, so "FSDP 1" with CP 8 still shards 8 ways */
    l.micro_batch = vint(par, "micro_batch", 1);
    const char *rc = json_string_value(json_object_get(par, "recompute"));
    /* torchtitan's "selective" is PyTorch op-level checkpointing (selective_ac_option "op") */
    l.recompute = rc && vcontains(rc, "full")        ? GP_RECOMPUTE_FULL
                  : rc && vcontains(rc, "selective") ? GP_RECOMPUTE_OP
                                                     : GP_RECOMPUTE_NONE;
    double seq = vnum(mod, "seq_len");
    w.seq = isnan(seq) ? 8192 : (int64_t)seq; /* torchtitan llama3_8b.toml: seq_len 8192 */
    gp_memory mem;
    if (gpi_memory_estimate(&m, NULL, &w, &l, &mem, NULL))
        return;
    if (!isnan(vnum(meas, "peak_memory_gib_per_gpu")))
        vadd(rs, c, "peak memory per GPU (GiB)", vnum(meas, "peak_memory_gib_per_gpu"), (double)mem.per_gpu / GIB,
             "GiB");
}

/* ---- finetune_memory: QLoRA bounds ------------------------------------------------------- */
static void validate_finetune_memory(const gp_catalog *cat, json_t *c, vrows *rs)
{
    json_t *meas = json_object_get(c, "measured");
    gp_model m;
    if (!vmap_model(cat, c, &m))
        return;
    gp_workload w;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    if (!isnan(vnum(meas, "finetune_memory_gb_upper_bound"))) {
        /* QLoRA paper: Guanaco 65B on one 48 GB GPU, LoRA r=64 on all linears, seq 512 */
        gpi_workload_defaults(&w, GP_TASK_QLORA);
        w.lora_rank = 64;
        w.seq = 512;
        l.recompute = GP_RECOMPUTE_FULL;
        if (gpi_memory_estimate(&m, NULL, &w, &l, &mem, NULL) == GP_OK) {
            double lim = vnum(meas, "finetune_memory_gb_upper_bound");
            vadd_bound(rs, c, "QLoRA peak < bound (GB)", lim, (double)mem.per_gpu / 1e9, "GB",
                       (double)mem.per_gpu / 1e9 < lim);
        }
        gpi_workload_defaults(&w, GP_TASK_TRAIN);
        w.seq = 512;
        l.recompute = GP_RECOMPUTE_FULL;
        if (gpi_memory_estimate(&m, NULL, &w, &l, &mem, NULL) == GP_OK) {
            double lim = vnum(meas, "full_16bit_finetune_memory_gb_lower_bound");
            vadd_bound(rs, c, "full 16-bit fine-tune > bound (GB)", lim, (double)mem.per_gpu / 1e9, "GB",
                       (double)mem.per_gpu / 1e9 > lim);
        }
    }
    if (!isnan(vnum(meas, "base_model_4bit_mb")))
        vadd(rs, c, "4-bit base model (MB)", vnum(meas, "base_model_4bit_mb"),
             (double)gp_model_weight_bytes(&m, GP_DTYPE_NF4) / 1e6, "MB");
}

/* The memory models have no constant fitted on cases (docs/memory.md derives each): their
 * leave-one-source-out figure is the in-sample one. */
static void infer_memory(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    (void)v;
    validate_infer_memory(cat, c, rs);
}

static void train_memory(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    (void)v;
    validate_train_memory(cat, c, rs);
}

static void finetune_memory(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    (void)v;
    validate_finetune_memory(cat, c, rs);
}

const gpv_model gpv_model_infer_memory = {.category = "infer_memory", .predict = infer_memory};
const gpv_model gpv_model_train_memory = {.category = "train_memory", .predict = train_memory};
const gpv_model gpv_model_finetune_memory = {.category = "finetune_memory", .predict = finetune_memory};
