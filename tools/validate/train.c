/*
 * validate_train.c: train_throughput cases. Like is compared with like: MPT's and NeMo's
 * model TFLOP/s with gpuplan's model TFLOP/s; Megatron SC'21's and BLOOM's TFLOP/s, which
 * count the recomputed forward, with gpuplan's hardware TFLOP/s; IBM's tokens/s per GPU
 * and MFU with gpuplan's. Architectures are built from the fields each case states.
 */
#include "validate.h"
#include "loso.h"

#include "hw/kernels.h"

#include <stdlib.h>
#include <string.h>

/* GPT-style (Megatron, MPT, BLOOM, GPT-3): plain GELU MLP, LayerNorm, tied embeddings. */
static int gpt_model(json_t *mod, gp_model *m, int64_t vocab_default, int64_t pos, const char *model_type)
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
    snprintf(m->model_type, sizeof m->model_type, "%s", model_type); /* Hugging Face's name for it */
    return gp_model_validate(m, NULL) == GP_OK;
}

static const gp_gpu *gpu_named(const gp_catalog *cat, const char *s)
{
    static const struct {
        const char *pattern, *id;
    } maps[] = {
        {"a100_40gb", "A100-SXM-40GB"}, {"a100_80gb", "A100-SXM-80GB"},      {"h100_80gb", "H100-SXM-80GB"},
        {"H100", "H100-SXM-80GB"},      {"A100-SXM4-80GB", "A100-SXM-80GB"}, {"A100-80GB", "A100-SXM-80GB"},
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

/* Which publication a case comes from (its id's prefix): each states its figures its own way. */
typedef enum { SRC_OTHER, SRC_MPT, SRC_MEGATRON, SRC_BLOOM, SRC_NEMO, SRC_IBM } train_source;

static train_source source_of(const char *id)
{
    static const struct {
        const char *prefix;
        train_source s;
    } prefixes[] = {
        {"mpt-", SRC_MPT}, {"megatron", SRC_MEGATRON}, {"bloom", SRC_BLOOM}, {"nemo", SRC_NEMO}, {"ibm", SRC_IBM},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(id, prefixes[i].prefix, strlen(prefixes[i].prefix)) == 0)
            return prefixes[i].s;
    return SRC_OTHER;
}

/* A catalog model named by a pattern of the case's model name. */
static int catalog_llama(const gp_catalog *cat, const char *name, const char *const (*map)[2], size_t n, gp_model *m)
{
    for (size_t i = 0; i < n; i++)
        if (vcontains(name, map[i][0]))
            return gp_catalog_find_model(cat, map[i][1], m, NULL) == GP_OK;
    return 0;
}

/* NeMo 24.07's table names GPT-3 sizes (from NeMo's own configs) and Llama checkpoints. */
static int nemo_model(const gp_catalog *cat, const char *name, gp_model *m)
{
    static const struct {
        const char *pat;
        int layers, hidden, heads;
    } gpts[] = {{"GPT3-175B", 96, 12288, 96}, {"GPT3-5B", 24, 4096, 32}, {"GPT3-20B", 44, 6144, 48}};
    for (size_t i = 0; i < sizeof gpts / sizeof gpts[0]; i++) {
        if (!vcontains(name, gpts[i].pat))
            continue;
        json_t *o = json_pack("{si si si}", "layers", gpts[i].layers, "hidden", gpts[i].hidden, "heads", gpts[i].heads);
        int ok = o && gpt_model(o, m, 50304, 2048, "gpt2");
        json_decref(o);
        return ok;
    }
    static const char *const llamas[][2] = {{"LLAMA2-7B", "llama-2-7b"},
                                            {"LLAMA2-13B", "llama-2-13b"},
                                            {"LLAMA2-70B", "llama-2-70b"},
                                            {"LLAMA3-8B", "llama-3-8b"},
                                            {"LLAMA3-70B", "llama-3.1-70b"}};
    return catalog_llama(cat, name, llamas, sizeof llamas / sizeof llamas[0], m);
}

/* IBM's FSDP blog: Llama 2 sizes and CodeLlama-34B. */
static int ibm_model(const gp_catalog *cat, const char *name, gp_model *m)
{
    static const char *const llamas[][2] = {
        {"Llama 2 7B", "llama-2-7b"}, {"Llama 2 13B", "llama-2-13b"}, {"Llama 2 70B", "llama-2-70b"}};
    if (catalog_llama(cat, name, llamas, sizeof llamas / sizeof llamas[0], m))
        return 1;
    if (!vcontains(name, "34B"))
        return 0;
    memset(m, 0, sizeof *m); /* CodeLlama-34B architecture */
    m->layers = 48, m->hidden = 8192, m->heads = 64, m->kv_heads = 8, m->head_dim = 128;
    m->ffn = 22016, m->vocab = 32000, m->norms_per_layer = 2, m->dtype = GP_DTYPE_BF16;
    snprintf(m->model_type, sizeof m->model_type, "llama");
    return gp_model_validate(m, NULL) == GP_OK;
}

static int train_model(const gp_catalog *cat, train_source src, json_t *mod, gp_model *m)
{
    const char *name = json_string_value(json_object_get(mod, "name"));
    switch (src) {
    case SRC_MPT: return gpt_model(mod, m, 50368, 0, "mpt"); /* ALiBi: no position table */
    case SRC_MEGATRON: return gpt_model(mod, m, 51200, vint(mod, "seq_len", 2048), "gpt2");
    case SRC_BLOOM: return gpt_model(mod, m, 250680, 0, "bloom");
    case SRC_NEMO: return nemo_model(cat, name, m);
    case SRC_IBM: return ibm_model(cat, name, m);
    default: return 0;
    }
}

/* Batch sizes: the stated global batch, rounded up to a whole number of micro-batches. */
static void train_batch(train_source src, json_t *par, int count, gp_layout *l)
{
    l->global_batch = vint(par, "global_batch", 0);
    if (src == SRC_IBM) { /* ~1M tokens per batch on 128 GPUs (the blog); micro-batch 2 */
        l->dp = count > 0 ? count : 128;
        l->global_batch = (int64_t)l->dp * l->micro_batch;
    }
    int64_t per_step = (int64_t)l->dp * l->micro_batch;
    if (l->global_batch <= 0)
        l->global_batch = per_step;
    if (l->global_batch % per_step != 0)
        l->global_batch = (l->global_batch / per_step + 1) * per_step;
}

/* The layout the case states; 0 when its data-parallel size cannot be worked out. */
static int train_layout(train_source src, json_t *c, const gp_model *m, gp_layout *l)
{
    json_t *par = json_object_get(c, "parallel");
    int count = vint(json_object_get(c, "hardware"), "count", 0);
    gpi_layout_defaults(l);
    l->tp = vint(par, "tp", 1);
    l->pp = vint(par, "pp", 1);
    l->cp = vint(par, "cp", 1);
    l->micro_batch = vint(par, "micro_batch", 1);
    l->recompute = recompute_of(par);
    if (l->recompute == GP_RECOMPUTE_SELECTIVE)
        l->recompute_modules = vrecompute_modules(json_string_value(json_object_get(par, "recompute")));
    int vpp = vint(par, "virtual_pp", 1);
    if (vpp < 1)
        vpp = 1;
    int vlayers = vint(par, "virtual_pipeline_layers_per_stage", 0);
    if (vlayers > 0 && l->pp > 1)
        vpp = (int)(m->layers / l->pp / vlayers);
    l->virtual_stages = vpp > 0 ? vpp : 1;
    const char *zero = json_string_value(json_object_get(par, "zero"));
    l->dp = vint(par, "dp", 0);
    if (l->dp <= 0 && count > 0)
        l->dp = count / (l->tp * l->pp * l->cp);
    if (l->dp <= 0)
        return 0;
    if (zero && vcontains(zero, "FSDP"))
        l->zero = 3;
    else if (json_is_integer(json_object_get(par, "zero")))
        l->zero = vint(par, "zero", 0);
    if (src == SRC_MEGATRON || src == SRC_NEMO)
        l->sequence_parallel = src == SRC_NEMO && l->tp > 1;
    train_batch(src, par, count, l);
    return 1;
}

/* Like with like: each source's figure against gpuplan's figure of the same definition.
 * Tokens/s per GPU where the source prints it (MPT, NeMo: no FLOP convention in between),
 * else its TFLOP/s under its own convention. */
static void train_compare(train_source src, json_t *c, const gp_train_perf *perf, vrows *rs)
{
    json_t *meas = json_object_get(c, "measured");
    if ((src == SRC_MPT || src == SRC_NEMO) && !isnan(vnum(meas, "tokens_per_sec_per_gpu")))
        vadd(rs, c, "tokens/s per GPU", vnum(meas, "tokens_per_sec_per_gpu"), perf->tokens_per_s_per_gpu, "tok/s");
    else if ((src == SRC_MPT || src == SRC_NEMO) && !isnan(vnum(meas, "model_tflops_per_gpu")))
        vadd(rs, c, "model TFLOP/s per GPU", vnum(meas, "model_tflops_per_gpu"), perf->model_tflops_per_gpu, "TF/s");
    else if ((src == SRC_MEGATRON || src == SRC_BLOOM) && !isnan(vnum(meas, "tflops_per_gpu")))
        vadd(rs, c, "hardware TFLOP/s per GPU", vnum(meas, "tflops_per_gpu"), perf->hw_tflops_per_gpu, "TF/s");
    else if (src == SRC_IBM && !isnan(vnum(meas, "tokens_per_sec_per_gpu")))
        vadd(rs, c, "tokens/s per GPU", vnum(meas, "tokens_per_sec_per_gpu"), perf->tokens_per_s_per_gpu, "tok/s");
}

/* The training stack the source names: MPT (Composer + FSDP) and IBM's runs are FSDP, and
 * predate PyTorch 2.5's cuDNN SDPA (FlashAttention-2). */
static void train_stack(train_source src, json_t *set, gp_cluster *cl)
{
    const char *fw = json_string_value(json_object_get(set, "framework"));
    if (src == SRC_MPT || src == SRC_IBM || (fw && (vcontains(fw, "FSDP") || vcontains(fw, "torchtitan"))))
        cl->framework = GP_FRAMEWORK_FSDP;
    if (src == SRC_MPT || src == SRC_IBM)
        cl->attention = GP_ATTENTION_FA2;
    /* llm-foundry's fp8 runs Transformer Engine's layers (precision amp_fp8: te.fp8_autocast) */
    if (src == SRC_MPT)
        cl->fp8_recipe = GP_FP8_RECIPE_FUSED;
    else if (fw && vcontains(fw, "DeepSpeed") && src != SRC_BLOOM)
        cl->framework = GP_FRAMEWORK_DEEPSPEED;
}

static void train_predict(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    json_t *mod = json_object_get(c, "model"), *hw = json_object_get(c, "hardware");
    json_t *set = json_object_get(c, "settings");
    /* the cases that name a catalog model and state their layout (mcore-: Megatron-Core runs
     * published outside Megatron-Bridge's page, validation/train_moe_sources.jsonl) */
    static const char *const preset_ids[] = {"mbridge-", "mcore-", "nemo25", "torchtitan-", "automodel-"};
    for (size_t i = 0; id && i < sizeof preset_ids / sizeof preset_ids[0]; i++)
        if (strncmp(id, preset_ids[i], strlen(preset_ids[i])) == 0) {
            validate_train_preset(cat, c, v, rs);
            return;
        }
    const gp_gpu *g = gpu_named(cat, json_string_value(json_object_get(hw, "gpu")));
    if (!g || !id)
        return;
    train_source src = source_of(id);
    gp_model m;
    gp_layout l;
    if (!train_model(cat, src, mod, &m) || !train_layout(src, c, &m, &l))
        return;
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = vint(mod, "seq_len", 2048);
    const char *prec = json_string_value(json_object_get(set, "precision"));
    w.dtype = prec && vcontains(prec, "fp8") ? GP_DTYPE_FP8 : GP_DTYPE_BF16;
    /* Megatron SC'21 (2021) and BLOOM (2022) predate FlashAttention in Megatron: the s x s
     * scores went through HBM (fused scale-mask-softmax) */
    if ((src == SRC_MEGATRON || src == SRC_BLOOM) &&
        !vcontains(json_string_value(json_object_get(set, "attention")), "flash"))
        w.flash_attention = 0;
    gp_cluster cl;
    const gpi_link *inter = NULL;
    const char *ic = json_string_value(json_object_get(hw, "interconnect"));
    if (ic && (vcontains(ic, "200Gb/s HDR") || vcontains(ic, "1600 Gbps") || vcontains(ic, "Omni-Path")))
        gpi_catalog_find_link(cat, "ib-hdr", &inter, NULL); /* 8 x 200 Gb/s per node: 25 GB/s per GPU */
    gpi_cluster_defaults(&cl, cat, g, inter);
    /* a bare "<N> Gbps" is the node's network (IBM's FSDP blog: 400 Gbps per A100 node, 800 per
     * H100 node, against DGX's 8 x 400 Gb/s): N / 8 GB/s shared by the node's GPUs */
    double node_gbps = ic && !inter ? atof(ic) : 0.0;
    if (node_gbps > 0 && vcontains(ic, "Gbps") && !vcontains(ic, "per GPU"))
        cl.inter_gbps = node_gbps / 8.0 / cl.gpus_per_node;
    train_stack(src, set, &cl);
    gp_train_perf perf;
    if (vtrain_estimate(&m, g, &cl, &w, &l, v, &perf) == GP_OK) {
        train_compare(src, c, &perf, rs);
        vtrain_tag(rs, &m, &w, &cl);
    }
}

/* ---- the fitted constants (data/kernels.json "fit"), as the harness varies them ---------- */

enum { TF_GEMM_FRAC, TF_ATTN_FRAC, TF_LAYER_US, TF_COUNT };

/* The grid each constant is searched on (docs/performance.md, "Calibration"). */
static const gpv_param train_params[TF_COUNT] = {
    [TF_GEMM_FRAC] = {"gemm_train_fraction", "", 0.50, 1.20, 0.025},
    [TF_ATTN_FRAC] = {"attn_train_fraction", "", 0.10, 1.50, 0.05},
    [TF_LAYER_US] = {"layer_overhead_us", "us", 0.0, 3000.0, 50.0},
};

/* The shipped values: the catalog's (data/kernels.json "fit", or a --data-dir override). */
static void train_defaults(const gp_catalog *cat, double *v)
{
    const gpi_kernel_fit *f = gpi_kernels_fit(gpi_catalog_kernels(cat));
    v[TF_GEMM_FRAC] = f ? f->gemm_train_fraction : 1.0;
    v[TF_ATTN_FRAC] = f ? f->attn_train_fraction : 1.0;
    v[TF_LAYER_US] = f ? f->layer_overhead_s * 1e6 : 0.0;
}

/* Neutral priors, where every fit starts: the kernels reach their benchmark rates (the MAMF,
 * the attention curves) at every shape, and a layer costs no time beyond its kernels. */
static void train_priors(const gp_catalog *cat, double *v)
{
    (void)cat;
    v[TF_GEMM_FRAC] = 1.0;
    v[TF_ATTN_FRAC] = 1.0;
    v[TF_LAYER_US] = 0.0;
}

gp_status vtrain_estimate(const gp_model *m, const gp_gpu *g, const gp_cluster *cl, const gp_workload *w,
                          const gp_layout *l, const double *v, gp_train_perf *out)
{
    gp_cluster c = *cl;
    gpi_gpu_rates rates;
    gpi_kernel_fit fit;
    if (c.rates && c.rates->fit) { /* the constants v in place of the catalog's, for this call only */
        rates = *c.rates;
        fit = *rates.fit;
        fit.gemm_train_fraction = v[TF_GEMM_FRAC];
        fit.attn_train_fraction = v[TF_ATTN_FRAC]; /* one share for every kernel's benchmark curve */
        fit.attn_train_fraction_cudnn = v[TF_ATTN_FRAC];
        fit.layer_overhead_s = v[TF_LAYER_US] * 1e-6;
        rates.fit = &fit;
        c.rates = &rates;
    }
    gp_status st = gpi_train_perf_estimate(m, g, &c, w, l, 0, out, NULL);
    if (st == GP_OK && getenv("GPV_TRACE")) /* the breakdown of every training estimate, for study */
        fprintf(
            stderr,
            "trace %s %s tp%d pp%d dp%d cp%d ep%d mb%d m%lld: step %.4g s = compute %.4g memory %.4g tp %.4g cp %.4g "
            "ep %.4g pp %.4g dp %.4g bubble %.4g opt %.4g; %.0f tok/s/GPU, %.0f model TF/s\n",
            m->id, g->id, l->tp, l->pp, l->dp, l->cp, l->ep, (int)l->micro_batch, (long long)out->micro_batches,
            out->step_time_s, out->compute_s, out->memory_s, out->tp_comm_s, out->cp_comm_s, out->ep_comm_s,
            out->pp_comm_s, out->dp_comm_s, out->bubble_s, out->optimizer_s, out->tokens_per_s_per_gpu,
            out->model_tflops_per_gpu);
    return st;
}

void vtrain_tag(vrows *rs, const gp_model *m, const gp_workload *w, const gp_cluster *cl)
{
    if (rs->n == 0)
        return;
    vrow *r = &rs->r[rs->n - 1];
    const char *prec = w->dtype == GP_DTYPE_FP8                                 ? "fp8"
                       : w->dtype == GP_DTYPE_FP4 || w->dtype == GP_DTYPE_MXFP4 ? "fp4"
                                                                                : "16-bit";
    snprintf(r->precision, sizeof r->precision, "%s", prec);
    snprintf(r->moe, sizeof r->moe, "%s", m->experts > 0 ? "MoE" : "dense");
    snprintf(r->framework, sizeof r->framework, "%s", gpi_framework_name(cl->framework));
    snprintf(r->group, sizeof r->group, "%s %s", r->moe, r->precision); /* not the case's free text */
    vtag_model_type(rs, m);
}

/* The training model's fitted constants live in data/kernels.json's "fit" object (issue 11):
 * the library reads them through the catalog; the harness predicts with any other values by
 * handing the estimate a copy of the GPU's rates that points at them (vtrain_estimate), so
 * --loso refits them without each source, blind (from the neutral priors), and fits them on
 * every source: that all-data fit is what data/kernels.json ships. */
const gpv_model gpv_model_train_throughput = {
    .category = "train_throughput",
    .nparams = TF_COUNT,
    .params = train_params,
    .defaults = train_defaults,
    .priors = train_priors,
    .predict = train_predict,
    .blind = 1,
    .objective = vfit_objective_huber, /* smooth: the median-based one left held-out fits on ledges */
};
