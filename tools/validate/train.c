/*
 * validate_train.c: train_throughput cases. Like is compared with like: MPT's and NeMo's
 * model TFLOP/s with gpuplan's model TFLOP/s; Megatron SC'21's and BLOOM's TFLOP/s, which
 * count the recomputed forward, with gpuplan's hardware TFLOP/s; IBM's tokens/s per GPU
 * and MFU with gpuplan's. Architectures are built from the fields each case states.
 */
#include "validate.h"

#include <string.h>

/* GPT-style (Megatron, MPT, BLOOM, GPT-3): plain GELU MLP, LayerNorm, tied embeddings. */
static int gpt_model(json_t *mod, gp_model *m, int64_t vocab_default, int64_t pos)
{
    memset(m, 0, sizeof *m);
    m->layers = vint(mod, "layers", 0);
    m->hidden = vint(mod, "hidden", 0);
    m->heads = vint(mod, "heads", 0);
    if (!m->layers || !m->hidden || !m->heads)
        return 0;
    m->kv_heads = vint(mod, "kv_heads", (int)m->heads);
    m->head_dim = m->hidden / m->heads;
    m->ffn = vint(mod, "ffn", (int)(4 * m->hidden));
    m->vocab = vint(mod, "vocab", (int)vocab_default);
    m->mlp = GP_MLP_PLAIN;
    m->norm = GP_NORM_LAYER;
    m->norms_per_layer = 2;
    m->tied_embeddings = 1;
    m->learned_pos = pos;
    m->dtype = GP_DTYPE_BF16;
    snprintf(m->id, sizeof m->id, "gpt");
    return gp_model_validate(m, NULL) == GP_OK;
}

static const gp_gpu *gpu_named(const gp_catalog *cat, const char *s)
{
    static const struct { const char *pattern, *id; } maps[] = {
        {"a100_40gb", "A100-SXM-40GB"}, {"a100_80gb", "A100-SXM-80GB"}, {"h100_80gb", "H100-SXM-80GB"},
        {"H100", "H100-SXM-80GB"}, {"A100-SXM4-80GB", "A100-SXM-80GB"}, {"A100-80GB", "A100-SXM-80GB"},
        {"A100", "A100-SXM-80GB"},
    };
    for (size_t i = 0; s && i < sizeof maps / sizeof maps[0]; i++) {
        if (vcontains(s, maps[i].pattern)) {
            const gp_gpu *g;
            return gp_catalog_find_gpu(cat, maps[i].id, &g, NULL) == GP_OK ? g : NULL;
        }
    }
    return NULL;
}

static gp_recompute recompute_of(json_t *par)
{
    const char *r = json_string_value(json_object_get(par, "recompute"));
    if (!r || vcontains(r, "none") || strcmp(r, "no") == 0)
        return GP_RECOMPUTE_NONE;
    if (vcontains(r, "selective"))
        return GP_RECOMPUTE_SELECTIVE;
    return GP_RECOMPUTE_FULL;
}

void validate_train_throughput(const gp_catalog *cat, json_t *c, vrows *rs)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    json_t *mod = json_object_get(c, "model"), *par = json_object_get(c, "parallel");
    json_t *hw = json_object_get(c, "hardware"), *set = json_object_get(c, "settings");
    json_t *meas = json_object_get(c, "measured");
    const char *name = json_string_value(json_object_get(mod, "name"));
    if (id && (strncmp(id, "mbridge-", 8) == 0 || strncmp(id, "nemo25", 6) == 0 || strncmp(id, "torchtitan-", 11) == 0 ||
               strncmp(id, "automodel-", 10) == 0)) {
        validate_train_preset(cat, c, rs);
        return;
    }
    const gp_gpu *g = gpu_named(cat, json_string_value(json_object_get(hw, "gpu")));
    if (!g || !id)
        return;
    gp_model m;
    int mpt = strncmp(id, "mpt-", 4) == 0, megatron = strncmp(id, "megatron", 8) == 0;
    int bloom = strncmp(id, "bloom", 5) == 0, nemo = strncmp(id, "nemo", 4) == 0, ibm = strncmp(id, "ibm", 3) == 0;
    int ok = 0;
    if (mpt)
        ok = gpt_model(mod, &m, 50368, 0); /* ALiBi: no position table */
    else if (megatron)
        ok = gpt_model(mod, &m, 51200, vint(mod, "seq_len", 2048));
    else if (bloom)
        ok = gpt_model(mod, &m, 250680, 0);
    else if (nemo) {
        if (vcontains(name, "GPT3-175B")) {
            json_t *o = json_pack("{si si si}", "layers", 96, "hidden", 12288, "heads", 96);
            ok = gpt_model(o, &m, 50304, 2048);
            json_decref(o);
        } else if (vcontains(name, "GPT3-5B")) {
            json_t *o = json_pack("{si si si}", "layers", 24, "hidden", 4096, "heads", 32);
            ok = gpt_model(o, &m, 50304, 2048);
            json_decref(o);
        } else if (vcontains(name, "GPT3-20B")) {
            json_t *o = json_pack("{si si si}", "layers", 44, "hidden", 6144, "heads", 48);
            ok = gpt_model(o, &m, 50304, 2048);
            json_decref(o);
        } else {
            static const struct { const char *pat, *cat_id; } llamas[] = {
                {"LLAMA2-7B", "llama-2-7b"}, {"LLAMA2-13B", "llama-2-13b"}, {"LLAMA2-70B", "llama-2-70b"},
                {"LLAMA3-8B", "llama-3-8b"}, {"LLAMA3-70B", "llama-3.1-70b"}};
            for (size_t i = 0; i < sizeof llamas / sizeof llamas[0] && !ok; i++)
                if (vcontains(name, llamas[i].pat))
                    ok = gp_catalog_find_model(cat, llamas[i].cat_id, &m, NULL) == GP_OK;
        }
    } else if (ibm) {
        static const struct { const char *pat, *cat_id; } llamas[] = {
            {"Llama 2 7B", "llama-2-7b"}, {"Llama 2 13B", "llama-2-13b"}, {"Llama 2 70B", "llama-2-70b"}};
        for (size_t i = 0; i < sizeof llamas / sizeof llamas[0] && !ok; i++)
            if (vcontains(name, llamas[i].pat))
                ok = gp_catalog_find_model(cat, llamas[i].cat_id, &m, NULL) == GP_OK;
        if (!ok && vcontains(name, "34B")) { /* CodeLlama-34B architecture */
            memset(&m, 0, sizeof m);
            m.layers = 48, m.hidden = 8192, m.heads = 64, m.kv_heads = 8, m.head_dim = 128;
            m.ffn = 22016, m.vocab = 32000, m.norms_per_layer = 2, m.dtype = GP_DTYPE_BF16;
            ok = gp_model_validate(&m, NULL) == GP_OK;
        }
    }
    if (!ok)
        return;

    gp_workload w;
    gp_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = vint(mod, "seq_len", 2048);
    const char *prec = json_string_value(json_object_get(set, "precision"));
    w.dtype = prec && vcontains(prec, "fp8") ? GP_DTYPE_FP8 : GP_DTYPE_BF16;
    gp_layout l;
    gp_layout_defaults(&l);
    int count = vint(hw, "count", 0);
    l.tp = vint(par, "tp", 1);
    l.pp = vint(par, "pp", 1);
    l.cp = vint(par, "cp", 1);
    l.micro_batch = vint(par, "micro_batch", 1);
    l.recompute = recompute_of(par);
    int vpp = vint(par, "virtual_pp", 1);
    if (vpp < 1)
        vpp = 1;
    int vlayers = vint(par, "virtual_pipeline_layers_per_stage", 0);
    if (vlayers > 0 && l.pp > 1)
        vpp = (int)(m.layers / l.pp / vlayers);
    l.virtual_stages = vpp > 0 ? vpp : 1;
    const char *zero = json_string_value(json_object_get(par, "zero"));
    l.dp = vint(par, "dp", 0);
    if (l.dp <= 0 && count > 0)
        l.dp = count / (l.tp * l.pp * l.cp);
    if (l.dp <= 0)
        return;
    if (zero && vcontains(zero, "FSDP"))
        l.zero = 3;
    else if (json_is_integer(json_object_get(par, "zero")))
        l.zero = vint(par, "zero", 0);
    if (megatron || nemo)
        l.sequence_parallel = nemo && l.tp > 1;
    l.global_batch = vint(par, "global_batch", 0);
    if (ibm) { /* ~1M tokens per batch on 128 GPUs (the blog); micro-batch 2 */
        l.dp = count > 0 ? count : 128;
        l.global_batch = (int64_t)l.dp * l.micro_batch;
    }
    if (l.global_batch <= 0)
        l.global_batch = (int64_t)l.dp * l.micro_batch;
    if (l.global_batch % ((int64_t)l.dp * l.micro_batch) != 0)
        l.global_batch = (l.global_batch / ((int64_t)l.dp * l.micro_batch) + 1) * l.dp * l.micro_batch;

    /* Megatron SC'21 (2021) and BLOOM (2022) predate FlashAttention in Megatron: the s x s
     * scores went through HBM (fused scale-mask-softmax) */
    if ((megatron || bloom) && !vcontains(json_string_value(json_object_get(set, "attention")), "flash"))
        w.flash_attention = 0;
    gp_cluster cl;
    const gp_link *inter = NULL;
    const char *ic = json_string_value(json_object_get(hw, "interconnect"));
    if (ic && (vcontains(ic, "200Gb/s HDR") || vcontains(ic, "1600 Gbps") || vcontains(ic, "Omni-Path")))
        gp_catalog_find_link(cat, "ib-hdr", &inter, NULL); /* 8 x 200 Gb/s per node: 25 GB/s per GPU */
    gp_cluster_defaults(&cl, cat, g, inter);
    /* the training stack the source names: MPT (Composer + FSDP) and IBM's runs are FSDP */
    const char *fw = json_string_value(json_object_get(set, "framework"));
    if (mpt || ibm || (fw && (vcontains(fw, "FSDP") || vcontains(fw, "torchtitan"))))
        cl.framework = GP_FRAMEWORK_FSDP;
    /* MPT's tables (2023) and IBM's runs predate PyTorch 2.5's cuDNN SDPA: FlashAttention-2 */
    if (mpt || ibm)
        cl.attention = GP_ATTENTION_FA2;
    else if (fw && vcontains(fw, "DeepSpeed") && !bloom)
        cl.framework = GP_FRAMEWORK_DEEPSPEED;
    gp_train_perf perf;
    if (gp_train_perf_estimate(&m, g, &cl, &w, &l, 0, &perf, NULL) != GP_OK)
        return;
    if (mpt && !isnan(vnum(meas, "model_tflops_per_gpu")))
        vadd(rs, c, "model TFLOP/s per GPU", vnum(meas, "model_tflops_per_gpu"), perf.model_tflops_per_gpu, "TF/s");
    else if (nemo && !isnan(vnum(meas, "model_tflops_per_gpu")))
        vadd(rs, c, "model TFLOP/s per GPU", vnum(meas, "model_tflops_per_gpu"), perf.model_tflops_per_gpu, "TF/s");
    else if ((megatron || bloom) && !isnan(vnum(meas, "tflops_per_gpu")))
        vadd(rs, c, "hardware TFLOP/s per GPU", vnum(meas, "tflops_per_gpu"), perf.hw_tflops_per_gpu, "TF/s");
    else if (ibm && !isnan(vnum(meas, "tokens_per_sec_per_gpu")))
        vadd(rs, c, "tokens/s per GPU", vnum(meas, "tokens_per_sec_per_gpu"), perf.tokens_per_s_per_gpu, "tok/s");
}
