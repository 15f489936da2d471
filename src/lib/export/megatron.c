/*
 * megatron.c: `torchrun ... pretrain_gpt.py` with Megatron-LM arguments for a training layout.
 * Flags: shared/reference/engines.md, section megatron (core_v0.19.0); the launcher's flags
 * from its torchrun section. Megatron has no --virtual-pipeline-model-parallel-size in this
 * version: interleaving is --num-layers-per-virtual-pipeline-stage.
 */
#include "export_impl.h"

gp_status gpx_megatron_args(const gpx_ctx *c, gpx_cmd *cmd, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    const gp_model *m = c->m;
    if (w->task != GP_TASK_TRAIN)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "Megatron-LM's pretrain_gpt.py trains every weight; a %s job needs adapters: export it "
                        "with deepspeed or torchrun-fsdp",
                        gp_task_name(w->task));
    if (w->optimizer == GP_OPT_ADAM8BIT || w->optimizer == GP_OPT_ADAFACTOR)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "Megatron-LM has no %s optimizer (adam, sgd, ...): plan with --optimizer adamw or sgd",
                        gp_optimizer_name(w->optimizer));
    if (w->offload == GP_OFFLOAD_PARAMS)
        return gpi_fail(err, GP_EUNSUPPORTED, "Megatron-LM does not offload parameters to CPU (only optimizer states)");
    if (w->offload == GP_OFFLOAD_OPTIMIZER && l->zero < 1)
        return gpi_fail(err, GP_EINVAL, "Megatron-LM offloads optimizer states with the distributed optimizer: "
                                        "use ZeRO 1 or more");
    if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0)
        return gpi_fail(err, GP_EINVAL, "the model's layers, hidden size and heads are needed for Megatron-LM");
    if (m->layers % l->pp != 0)
        return gpi_fail(err, GP_EINVAL, "%lld layers do not split evenly into %d pipeline stages",
                        (long long)m->layers, l->pp);
    if (l->virtual_stages > 1 && (m->layers / l->pp) % l->virtual_stages != 0)
        return gpi_fail(err, GP_EINVAL, "%lld layers per stage do not split into %d virtual stages",
                        (long long)(m->layers / l->pp), l->virtual_stages);

    gpx_arg(cmd, "pretrain_gpt.py");
    gpx_arg(cmd, "--tensor-model-parallel-size %d", l->tp);
    gpx_arg(cmd, "--pipeline-model-parallel-size %d", l->pp);
    if (l->cp > 1)
        gpx_arg(cmd, "--context-parallel-size %d", l->cp);
    if (l->ep > 1)
        gpx_arg(cmd, "--expert-model-parallel-size %d", l->ep);
    if (l->sequence_parallel && l->tp > 1)
        gpx_arg(cmd, "--sequence-parallel");
    if (l->virtual_stages > 1)
        gpx_arg(cmd, "--num-layers-per-virtual-pipeline-stage %lld",
                (long long)(m->layers / l->pp / l->virtual_stages));

    /* model shape */
    gpx_arg(cmd, "--num-layers %lld", (long long)m->layers);
    gpx_arg(cmd, "--hidden-size %lld", (long long)m->hidden);
    gpx_arg(cmd, "--num-attention-heads %lld", (long long)m->heads);
    if (m->kv_lora_rank > 0) {
        gpx_arg(cmd, "--multi-latent-attention");
        if (m->q_lora_rank > 0)
            gpx_arg(cmd, "--q-lora-rank %lld", (long long)m->q_lora_rank);
        gpx_arg(cmd, "--kv-lora-rank %lld", (long long)m->kv_lora_rank);
        gpx_arg(cmd, "--qk-head-dim %lld", (long long)m->qk_nope_head_dim);
        gpx_arg(cmd, "--qk-pos-emb-head-dim %lld", (long long)m->qk_rope_head_dim);
        gpx_arg(cmd, "--v-head-dim %lld", (long long)m->v_head_dim);
    } else {
        if (m->kv_heads > 0 && m->kv_heads < m->heads) {
            gpx_arg(cmd, "--group-query-attention");
            gpx_arg(cmd, "--num-query-groups %lld", (long long)m->kv_heads);
        }
        if (m->head_dim > 0 && m->head_dim * m->heads != m->hidden)
            gpx_arg(cmd, "--kv-channels %lld", (long long)m->head_dim);
    }
    if (m->ffn > 0)
        gpx_arg(cmd, "--ffn-hidden-size %lld", (long long)m->ffn);
    if (m->experts > 0) {
        gpx_arg(cmd, "--num-experts %lld", (long long)m->experts);
        gpx_arg(cmd, "--moe-router-topk %lld", (long long)m->experts_active);
        gpx_arg(cmd, "--moe-ffn-hidden-size %lld", (long long)m->moe_ffn);
        if (m->shared_experts > 0)
            gpx_arg(cmd, "--moe-shared-expert-intermediate-size %lld",
                    (long long)(m->shared_experts * (m->shared_expert_ffn > 0 ? m->shared_expert_ffn : m->moe_ffn)));
        if (m->dense_layers > 0 && m->dense_layers < m->layers)
            gpx_arg(cmd, "--moe-layer-freq '([0]*%lld+[1]*%lld)'", (long long)m->dense_layers,
                    (long long)(m->layers - m->dense_layers));
        gpx_arg(cmd, "--moe-grouped-gemm");
        if (l->ep > 1)
            gpx_arg(cmd, "--moe-token-dispatcher-type alltoall");
    }
    gpx_arg(cmd, "--seq-length %lld", (long long)w->seq);
    gpx_arg(cmd, "--max-position-embeddings %lld",
            (long long)(m->max_context > w->seq ? m->max_context : w->seq));
    gpx_arg(cmd, "--position-embedding-type %s", m->learned_pos > 0 ? "learned_absolute" : "rope");
    if (m->mlp == GP_MLP_GATED)
        gpx_arg(cmd, "--swiglu");
    if (m->norm == GP_NORM_RMS)
        gpx_arg(cmd, "--normalization RMSNorm");
    if (!m->qkv_bias && !m->o_bias && !m->mlp_bias)
        gpx_arg(cmd, "--disable-bias-linear");
    else if (m->qkv_bias && !m->o_bias && !m->mlp_bias) {
        gpx_arg(cmd, "--disable-bias-linear");
        gpx_arg(cmd, "--add-qkv-bias");
    }
    if (m->qk_norm)
        gpx_arg(cmd, "--qk-layernorm");
    if (!m->tied_embeddings)
        gpx_arg(cmd, "--untie-embeddings-and-output-weights");

    /* batch, precision, sharding, recomputation */
    gpx_arg(cmd, "--micro-batch-size %lld", (long long)l->micro_batch);
    gpx_arg(cmd, "--global-batch-size %lld", (long long)l->global_batch);
    if (c->act == GP_DTYPE_BF16)
        gpx_arg(cmd, "--bf16");
    else if (c->act == GP_DTYPE_F16)
        gpx_arg(cmd, "--fp16");
    if (c->weights == GP_DTYPE_FP8)
        gpx_arg(cmd, "--fp8-format hybrid");
    else if (gp_dtype_bits(c->weights) < 16)
        gpx_note(out, "Megatron-LM trains in bf16/fp16/fp8: %s weights are not exported", gp_dtype_name(c->weights));
    if (l->zero >= 1)
        gpx_arg(cmd, "--use-distributed-optimizer");
    if (l->zero >= 2) {
        gpx_arg(cmd, "--use-megatron-fsdp");
        gpx_arg(cmd, "--data-parallel-sharding-strategy %s", l->zero == 2 ? "optim_grads" : "optim_grads_params");
    }
    if (w->offload == GP_OFFLOAD_OPTIMIZER)
        gpx_arg(cmd, "--optimizer-cpu-offload");
    gpx_arg(cmd, "--optimizer %s", w->optimizer == GP_OPT_SGD ? "sgd" : "adam");
    if (l->recompute == GP_RECOMPUTE_SELECTIVE)
        gpx_arg(cmd, "--recompute-activations");
    else if (l->recompute == GP_RECOMPUTE_FULL) {
        gpx_arg(cmd, "--recompute-granularity full");
        gpx_arg(cmd, "--recompute-method uniform");
        gpx_arg(cmd, "--recompute-num-layers 1");
    }

    /* data and schedule: set in the script's variables */
    gpx_arg(cmd, "--train-iters \"$TRAIN_ITERS\"");
    gpx_arg(cmd, "--lr \"$LR\"");
    gpx_arg(cmd, "--data-path \"$DATA_PATH\"");
    gpx_arg(cmd, "--tokenizer-type HuggingFaceTokenizer");
    gpx_arg(cmd, "--tokenizer-model \"$TOKENIZER\"");
    if (cmd->overflow)
        return gpi_fail(err, GP_ELIMIT, "Megatron-LM command line too long");
    return GP_OK;
}

/* The variables the Megatron arguments read, with their defaults. */
void gpx_megatron_vars(gpx_buf *b, const gpx_ctx *c)
{
    char tok[GP_ERROR_PATH_MAX];
    const char *name = c->m->name[0] ? c->m->name : c->m->id;
    gpx_add(b, "export CUDA_DEVICE_MAX_CONNECTIONS=1  # Megatron-LM: ordered TP/SP communication kernels\n");
    gpx_add(b, "DATA_PATH=${DATA_PATH:-%s}  # Megatron indexed dataset prefix\n", c->data_path);
    gpx_add(b, "TOKENIZER=${TOKENIZER:-%s}\n", gpx_shq(tok, sizeof tok, name));
    if (c->train_iters > 0)
        gpx_add(b, "TRAIN_ITERS=${TRAIN_ITERS:-%lld}  # tokens / (global batch %lld x seq %lld)\n",
                (long long)c->train_iters, (long long)c->l.global_batch, (long long)c->w->seq);
    else
        gpx_add(b, "TRAIN_ITERS=${TRAIN_ITERS:-1000}  # optimizer steps (no --tokens given)\n");
    gpx_add(b, "LR=${LR:-3.0e-4}  # peak learning rate: set yours\n");
}

gp_status gpx_render_megatron(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_torchrun_args(c, &cmd, 0);
    gp_status st = gpx_megatron_args(c, &cmd, out, err);
    if (st != GP_OK)
        return st;
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    gpx_add(&b, "# Run from a Megatron-LM checkout (core_v0.19.0)");
    if (c->nodes > 1)
        gpx_add(&b, " on each of the %d nodes, with MASTER_ADDR the address of node 0.\n"
                    "MASTER_ADDR=${MASTER_ADDR:?set MASTER_ADDR to node 0}\n",
                c->nodes);
    else
        gpx_add(&b, ".\n");
    gpx_megatron_vars(&b, c);
    gpx_add(&b, "\n");
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    if (c->nodes > 1)
        gpx_note(out, "multi-node: run launch.sh on each of the %d nodes with MASTER_ADDR set", c->nodes);
    return gpx_emit(out, "launch.sh", &b, 1, err);
}
