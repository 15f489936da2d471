/*
 * train_presets.c: train_throughput cases that name a catalog model ("preset") and state their
 * layout (Megatron-Bridge, NeMo docs, torchtitan, NeMo AutoModel: validation/train_*.jsonl).
 * Compared on tokens/s per GPU, which every such source prints and which needs no FLOP
 * convention. The training stack comes from settings.framework.
 */
#include "validate.h"

#include "hw/kernels.h"

#include <stdlib.h>
#include <string.h>

static gp_dtype precision_of(const char *p)
{
    if (p && (vcontains(p, "fp4") || vcontains(p, "nvfp4")))
        return GP_DTYPE_FP4;
    if (p && vcontains(p, "fp8"))
        return GP_DTYPE_FP8; /* tensor, current, block or MX scaling: the fp8 GEMM rate */
    return GP_DTYPE_BF16;
}

static gp_recompute recompute_of(const char *r)
{
    if (!r || vcontains(r, "none") || strcmp(r, "no") == 0)
        return GP_RECOMPUTE_NONE;
    if (vcontains(r, "per-op") || vcontains(r, "op"))
        return GP_RECOMPUTE_OP;
    return vcontains(r, "selective") ? GP_RECOMPUTE_SELECTIVE : GP_RECOMPUTE_FULL;
}

/* The layout the case states; 0 if it does not add up. */
static int layout_of(json_t *c, const gp_model *m, gp_layout *l, gp_framework *fw)
{
    json_t *par = json_object_get(c, "parallel"), *set = json_object_get(c, "settings");
    json_t *hw = json_object_get(c, "hardware");
    const char *framework = json_string_value(json_object_get(set, "framework"));
    const char *zero = json_string_value(json_object_get(par, "zero"));
    gpi_layout_defaults(l);
    l->tp = vint(par, "tp", 1), l->pp = vint(par, "pp", 1), l->cp = vint(par, "cp", 1);
    l->ep = vint(par, "ep", 1);
    l->micro_batch = vint(par, "micro_batch", 1);
    l->dp = vint(par, "dp", 0);
    int count = vint(hw, "count", 0);
    if (l->dp <= 0 && count > 0)
        l->dp = count / (l->tp * l->pp * l->cp);
    if (l->dp <= 0 || l->pp > m->layers)
        return 0;
    l->virtual_stages = vint(par, "virtual_pp", 1) > 0 ? vint(par, "virtual_pp", 1) : 1;
    /* a looped schedule the row names without its stage count: torchtitan's default, two stages
     * per rank for multi-stage schedules (torchtitan distributed/pipeline, stages_per_rank) */
    const char *sched = json_string_value(json_object_get(par, "pp_schedule"));
    if (l->pp > 1 && !json_object_get(par, "virtual_pp") && sched && vcontains(sched, "Interleaved"))
        l->virtual_stages = 2;
    l->recompute = recompute_of(json_string_value(json_object_get(par, "recompute")));
    if (l->recompute == GP_RECOMPUTE_SELECTIVE) /* Megatron-Core's modules, where the case names them */
        l->recompute_modules = vrecompute_modules(json_string_value(json_object_get(par, "recompute")));
    *fw = framework && (vcontains(framework, "torchtitan") || vcontains(framework, "AutoModel") ||
                        vcontains(framework, "FSDP2"))
              ? GP_FRAMEWORK_FSDP
              : GP_FRAMEWORK_MEGATRON;
    /* Megatron-Core recipes: distributed optimizer (ZeRO-1) and sequence parallelism with TP;
     * FSDP2 / Megatron-FSDP: parameters sharded (ZeRO-3); torchtitan's TP is sequence-parallel */
    l->zero = zero && vcontains(zero, "FSDP") && !vcontains(zero, "FSDP = 0") && !vcontains(zero, "FSDP=0") ? 3 : 1;
    if (zero && (vcontains(zero, "= 1)") || vcontains(zero, "FSDP2 1")) && !vcontains(zero, "= 16"))
        l->zero = l->dp > 1 ? 1 : 0; /* a sharding group of one: replicated parameters */
    l->sequence_parallel = l->tp > 1;
    int64_t gb = vint(par, "global_batch", 0);
    /* torchtitan's pipeline splits each rank's local batch into micro-batches of one */
    if (*fw == GP_FRAMEWORK_FSDP && l->pp > 1 && framework && vcontains(framework, "torchtitan")) {
        if (gb <= 0)
            gb = (int64_t)l->dp * l->micro_batch;
        l->micro_batch = 1;
    }
    if (gb <= 0) {
        int ga = vint(par, "grad_accum", 1);
        gb = (int64_t)l->dp * l->micro_batch * (ga > 0 ? ga : 1);
    }
    if (l->ep > 1 && (m->experts <= 0 || m->experts % l->ep != 0))
        return 0;
    if (gb % ((int64_t)l->dp * l->micro_batch) != 0)
        gb = (gb / ((int64_t)l->dp * l->micro_batch) + 1) * l->dp * l->micro_batch;
    l->global_batch = gb;
    return 1;
}

/* The share of the tensor-core clock a GPU keeps under the power limit a row states
 * (hardware.variant "<N> W power limit", torchtitan's Grand Teton H100s at 500 W): the clock
 * NVIDIA's spec sheets give the same GH100 die at 400 W (H100 NVL, 835.5 dense bf16 TFLOP/s) and
 * at 700 W (H100 SXM, 989.5), straight between the two; 1 where no lower limit is stated. */
static double power_cap_share(const gp_catalog *cat, const gp_gpu *g, json_t *hw)
{
    const char *var = json_string_value(json_object_get(hw, "variant"));
    const char *at = var ? strstr(var, " W power limit") : NULL;
    const gp_gpu *low;
    if (!at || g->tdp_w <= 0 || g->tflops[GP_DTYPE_BF16] <= 0 || !vcontains(g->id, "H100") ||
        gp_catalog_find_gpu(cat, "H100-NVL-94GB", &low, NULL) != GP_OK || low->tdp_w >= g->tdp_w)
        return 1.0;
    while (at > var && (at[-1] >= '0' && at[-1] <= '9'))
        at--;
    double watts = atof(at);
    if (watts <= 0 || watts >= g->tdp_w)
        return 1.0;
    double t = (watts - low->tdp_w) / (g->tdp_w - low->tdp_w);
    t = t < 0 ? 0 : t;
    return (low->tflops[GP_DTYPE_BF16] + t * (g->tflops[GP_DTYPE_BF16] - low->tflops[GP_DTYPE_BF16])) /
           g->tflops[GP_DTYPE_BF16];
}

/* `r` as `in`, its tensor-core rates (GEMM, attention) scaled by `share` */
static void rates_scaled(const gpi_gpu_rates *in, double share, gpi_gpu_rates *r)
{
    *r = *in;
    for (int k = 0; k < GPI_K_COUNT; k++)
        r->gemm[k] *= share;
    for (int a = 0; a < GPI_ATTN_KERNEL_COUNT; a++)
        for (int p = 0; p < 2; p++)
            for (int m = 0; m < 2; m++)
                for (int i = 0; i < GPI_ATTN_SEQ_POINTS; i++)
                    r->attn[a][p][m][i] *= share;
}

void validate_train_preset(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    json_t *mod = json_object_get(c, "model"), *set = json_object_get(c, "settings");
    const char *preset = json_string_value(json_object_get(mod, "preset"));
    const char *gpu_id = json_string_value(json_object_get(json_object_get(c, "hardware"), "gpu"));
    double tps = vnum(json_object_get(c, "measured"), "tokens_per_sec_per_gpu");
    const gp_gpu *g;
    gp_model m;
    if (!preset || !gpu_id || isnan(tps) || gp_catalog_find_gpu(cat, gpu_id, &g, NULL) != GP_OK ||
        gp_catalog_find_model(cat, preset, &m, NULL) != GP_OK)
        return;
    const char *variant = json_string_value(json_object_get(set, "model_variant"));
    json_t *mtp = json_object_get(set, "mtp");
    if (json_is_false(mtp) || (variant && vcontains(variant, "w/o MTP")))
        m.mtp_layers = 0;
    /* the task the row states: LoRA trains adapters on frozen weights (Megatron-Bridge's LoRA:
     * rank 32 unless the row says otherwise, megatron/bridge/peft/lora.py `dim`) */
    const char *task = json_string_value(json_object_get(set, "task"));
    int qlora = task && vcontains(task, "qlora"), lora = !qlora && task && vcontains(task, "lora");
    gp_workload w;
    gpi_workload_defaults(&w, qlora ? GP_TASK_QLORA : lora ? GP_TASK_LORA : GP_TASK_TRAIN);
    if (lora || qlora)
        w.lora_rank = vint(
            set, "lora_rank",
            vcontains(json_string_value(json_object_get(set, "framework")), "Megatron-Bridge") ? 32 : (int)w.lora_rank);
    w.seq = vint(mod, "seq_len", 8192); /* torchtitan's llama3 configs: seq_len 8192 */
    w.dtype = precision_of(json_string_value(json_object_get(set, "precision")));
    gp_layout l;
    gp_framework fw;
    if (!layout_of(c, &m, &l, &fw) || w.seq % l.cp != 0)
        return;
    gp_cluster cl;
    gpi_cluster_defaults(&cl, cat, g, NULL);
    cl.framework = fw;
    /* Megatron-Core's EP all-to-all overlap, as the release's recipe set it (settings) */
    cl.ep_overlap = json_is_true(json_object_get(set, "moe_a2a_overlap"));
    /* the CUDA graphs the release's recipe replays (settings.cuda_graph: none, layer, full) */
    const char *graphs = json_string_value(json_object_get(set, "cuda_graph"));
    if (graphs && gpi_cuda_graphs_parse(graphs) < GP_CUDA_GRAPHS_COUNT)
        cl.cuda_graphs = gpi_cuda_graphs_parse(graphs);
    /* torchtitan: the fp8 recipe (torchao.float8 tensorwise unless the row says rowwise) and
     * async TP as the row states them */
    const char *scaling = json_string_value(json_object_get(set, "fp8_scaling"));
    if (scaling && gpi_fp8_recipe_parse(scaling) < GP_FP8_RECIPE_COUNT)
        cl.fp8_recipe = gpi_fp8_recipe_parse(scaling);
    cl.tp_overlap = json_is_true(json_object_get(set, "async_tp"));
    /* the EP token dispatcher the release's recipe set (settings.moe_dispatcher: alltoall,
     * deepep, hybridep); AutoModel's kernel column names DeepEP */
    const char *disp = json_string_value(json_object_get(set, "moe_dispatcher"));
    if (disp && gpi_ep_dispatcher_parse(disp) < GP_EP_DISPATCHER_COUNT)
        cl.ep_dispatcher = gpi_ep_dispatcher_parse(disp);
    const char *kopt = json_string_value(json_object_get(set, "kernel_optimizations"));
    if (kopt && vcontains(kopt, "DeepEP"))
        cl.ep_dispatcher = GP_EP_DISPATCHER_DEEPEP;
    /* NeMo AutoModel runs Transformer Engine's kernels (cuDNN attention) under FSDP2 */
    const char *kern = json_string_value(json_object_get(set, "kernel_optimizations"));
    if (kern && vcontains(kern, "TE"))
        cl.attention = GP_ATTENTION_CUDNN;
    /* ... except where the row names FlexAttention (gpt-oss's sinks and sliding window):
     * Triton kernels that reach about 90% / 85% of FlashAttention-2 forward / backward (PyTorch
     * blog, "FlexAttention", 2024-08); FlashAttention-2's curve is the nearest one measured */
    if (kern && vcontains(kern, "FlexAttn"))
        cl.attention = GP_ATTENTION_FA2;
    gpi_gpu_rates capped;
    double share = power_cap_share(cat, g, json_object_get(c, "hardware"));
    if (share < 1.0 && cl.rates) {
        rates_scaled(cl.rates, share, &capped);
        cl.rates = &capped;
    }
    gp_train_perf perf;
    if (vtrain_estimate(&m, g, &cl, &w, &l, v, &perf) != GP_OK)
        return;
    vadd(rs, c, "tokens/s per GPU", tps, perf.tokens_per_s_per_gpu, "tok/s");
    vtrain_tag(rs, &m, &w, &cl);
}
