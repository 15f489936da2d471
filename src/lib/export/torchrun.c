/*
 * torchrun.c: `torchrun` + PyTorch FSDP for a data-parallel training layout (ZeRO stage ->
 * ShardingStrategy). Launcher flags: docs/engines.md, section torchrun (PyTorch
 * commit 010929fd); the FSDP snippet uses only public torch.distributed.fsdp names.
 * Tensor, pipeline, context and expert parallelism are not plain FSDP: such layouts are
 * refused with a pointer to megatron.
 */
#include "export_impl.h"

#include <string.h>

void gpx_torchrun_args(const gpx_ctx *c, gpx_cmd *cmd, int slurm)
{
    gpx_arg(cmd, "%s", slurm ? "srun torchrun" : "torchrun");
    if (c->nodes == 1 && !slurm) {
        gpx_arg(cmd, "--standalone");
        gpx_arg(cmd, "--nnodes 1");
        gpx_arg(cmd, "--nproc-per-node %d", c->gpus);
        return;
    }
    gpx_arg(cmd, "--nnodes %d", c->nodes);
    gpx_arg(cmd, "--nproc-per-node %d", c->nodes > 1 ? c->gpus_per_node : c->gpus);
    gpx_arg(cmd, "--rdzv-id %s", slurm ? "\"$SLURM_JOB_ID\"" : "gpuplan");
    gpx_arg(cmd, "--rdzv-backend c10d");
    gpx_arg(cmd, "--rdzv-endpoint \"$MASTER_ADDR:29500\"");
}

/* Hugging Face transformers decoder-layer class per model_type, for the wrap policy. */
static const struct {
    const char *model_type;
    const char *block;
} blocks[] = {
    {"llama", "LlamaDecoderLayer"},
    {"mistral", "MistralDecoderLayer"},
    {"mixtral", "MixtralDecoderLayer"},
    {"qwen2", "Qwen2DecoderLayer"},
    {"qwen2_moe", "Qwen2MoeDecoderLayer"},
    {"qwen3", "Qwen3DecoderLayer"},
    {"qwen3_moe", "Qwen3MoeDecoderLayer"},
    {"gemma", "GemmaDecoderLayer"},
    {"gemma2", "Gemma2DecoderLayer"},
    {"gemma3_text", "Gemma3DecoderLayer"},
    {"phi3", "Phi3DecoderLayer"},
    {"falcon", "FalconDecoderLayer"},
    {"gpt2", "GPT2Block"},
    {"opt", "OPTDecoderLayer"},
    {"deepseek_v3", "DeepseekV3DecoderLayer"},
    {"gpt_neox", "GPTNeoXLayer"},
};

static const char *block_class(const gp_model *m)
{
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        if (gpi_strcaseeq(m->model_type, blocks[i].model_type))
            return blocks[i].block;
    return NULL;
}

static const char *const strategies[4] = {"NO_SHARD", "SHARD_GRAD_OP", "SHARD_GRAD_OP", "FULL_SHARD"};

static gp_status fsdp_check(const gpx_ctx *c, gp_error *err)
{
    const gp_layout *l = &c->l;
    if (l->tp > 1 || l->pp > 1 || l->cp > 1 || l->ep > 1)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "plain FSDP is data parallel only: TP %d, PP %d, CP %d, EP %d need Megatron-LM "
                        "(export with megatron), or plan with --tp 1 --pp 1 --cp 1 --ep 1",
                        l->tp, l->pp, l->cp, l->ep);
    return GP_OK;
}

gp_status gpx_fsdp_file(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    gp_status st = fsdp_check(c, err);
    if (st != GP_OK)
        return st;
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    const char *block = block_class(c->m);
    int ckpt = l->recompute != GP_RECOMPUTE_NONE;
    int mixed = c->act != GP_DTYPE_F32;
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_header(&b, c, "# ", "fsdp_config.py");
    gpx_add(&b, "\"\"\"FSDP settings for train.py: `from fsdp_config import wrap` and `model = wrap(model, "
                "block_cls)`.\"\"\"\n");
    gpx_add(&b, "import functools\n\nimport torch\n");
    if (ckpt)
        gpx_add(&b, "from torch.distributed.algorithms._checkpoint.checkpoint_wrapper import (\n"
                    "    CheckpointImpl, apply_activation_checkpointing, checkpoint_wrapper)\n");
    gpx_add(&b, "from torch.distributed.fsdp import BackwardPrefetch, CPUOffload, MixedPrecision, ShardingStrategy\n"
                "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
                "from torch.distributed.fsdp.wrap import transformer_auto_wrap_policy\n\n");
    gpx_add(&b, "SEQ_LEN = %lld\n", (long long)w->seq);
    gpx_add(&b, "MICRO_BATCH = %lld  # sequences per GPU per forward/backward\n", (long long)l->micro_batch);
    gpx_add(&b, "GRAD_ACCUM = %lld  # micro-batches per optimizer step\n", (long long)c->grad_accum);
    gpx_add(&b, "GLOBAL_BATCH = %lld  # MICRO_BATCH x GRAD_ACCUM x %d GPUs\n", (long long)l->global_batch, l->dp);
    gpx_add(&b, "BLOCK_CLASS = \"%s\"  # the decoder layer class passed as block_cls\n\n",
            block ? block : "DecoderLayer");
    gpx_add(&b, "\ndef wrap(model, block_cls):\n");
    gpx_add(&b, "    model = FSDP(\n        model,\n");
    gpx_add(&b, "        sharding_strategy=ShardingStrategy.%s,  # ZeRO-%d\n", strategies[l->zero], l->zero);
    gpx_add(&b, "        auto_wrap_policy=functools.partial(transformer_auto_wrap_policy, "
                "transformer_layer_cls={block_cls}),\n");
    if (mixed) {
        const char *t = c->act == GP_DTYPE_F16 ? "torch.float16" : "torch.bfloat16";
        gpx_add(&b,
                "        mixed_precision=MixedPrecision(param_dtype=%s, reduce_dtype=torch.float32, "
                "buffer_dtype=%s),\n",
                t, t);
    }
    gpx_add(&b, "        cpu_offload=CPUOffload(offload_params=%s),\n",
            w->offload == GP_OFFLOAD_PARAMS ? "True" : "False");
    gpx_add(&b, "        backward_prefetch=BackwardPrefetch.BACKWARD_PRE,\n"
                "        device_id=torch.cuda.current_device(),\n"
                "        use_orig_params=True,\n    )\n");
    if (ckpt)
        gpx_add(&b, "    apply_activation_checkpointing(\n"
                    "        model,\n"
                    "        checkpoint_wrapper_fn=functools.partial(checkpoint_wrapper, "
                    "checkpoint_impl=CheckpointImpl.NO_REENTRANT),\n"
                    "        check_fn=lambda m: isinstance(m, block_cls),\n    )\n");
    gpx_add(&b, "    return model\n");

    if (l->zero == 1)
        gpx_note(out, "FSDP has no ZeRO-1: SHARD_GRAD_OP (ZeRO-2) is written, which uses less memory");
    if (l->recompute == GP_RECOMPUTE_SELECTIVE)
        gpx_note(out, "FSDP has no selective recomputation: whole decoder layers are checkpointed (less memory, "
                      "more recompute than planned)");
    if (w->offload == GP_OFFLOAD_OPTIMIZER)
        gpx_note(out, "FSDP offloads parameters and optimizer states together (CPUOffload): optimizer-only "
                      "offload is not available, so none is written");
    if (c->weights == GP_DTYPE_FP8)
        gpx_note(out, "FSDP mixed precision has no FP8: bf16 is written");
    if (w->task == GP_TASK_LORA || w->task == GP_TASK_QLORA)
        gpx_note(out,
                 "%s: add the rank-%lld adapters in train.py before wrap() (use_orig_params=True allows "
                 "frozen base weights)",
                 gp_task_name(w->task), (long long)w->lora_rank);
    if (w->optimizer != GP_OPT_ADAMW)
        gpx_note(out, "optimizer %s: create it in train.py after wrap()", gp_optimizer_name(w->optimizer));
    if (!block)
        gpx_note(out, "unknown decoder layer class for model_type '%s': set BLOCK_CLASS", c->m->model_type);
    return gpx_emit(out, "fsdp_config.py", &b, 0, err);
}

gp_status gpx_render_torchrun(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    gp_status st = fsdp_check(c, err);
    if (st != GP_OK)
        return st;
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_torchrun_args(c, &cmd, 0);
    gpx_arg(&cmd, "train.py");
    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    gpx_add(&b, "# train.py is your training script; it wraps the model with fsdp_config.wrap().\n");
    if (c->nodes > 1) {
        gpx_add(&b,
                "# Run on each of the %d nodes with MASTER_ADDR the address of node 0.\n"
                "MASTER_ADDR=${MASTER_ADDR:?set MASTER_ADDR to node 0}\n",
                c->nodes);
        gpx_note(out, "multi-node: run launch.sh on each of the %d nodes with MASTER_ADDR set", c->nodes);
    }
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    st = gpx_emit(out, "launch.sh", &b, 1, err);
    if (st == GP_OK)
        st = gpx_fsdp_file(c, out, err);
    return st;
}
