/*
 * vllm.c: `vllm serve` for a serving layout. Flags: shared/reference/engines.md, section vllm
 * (engine args at commit 99d7eb5d, v0.11.x; --port from the serve frontend args).
 */
#include "export_impl.h"

gp_status gpx_render_vllm(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_arg(&cmd, "vllm serve %s", c->model_path);
    gpx_arg(&cmd, "--tensor-parallel-size %d", l->tp);
    gpx_arg(&cmd, "--pipeline-parallel-size %d", l->pp);
    if (l->dp > 1)
        gpx_arg(&cmd, "--data-parallel-size %d", l->dp);
    if (l->ep > 1 && c->m->experts > 0)
        gpx_arg(&cmd, "--enable-expert-parallel");
    gpx_arg(&cmd, "--max-model-len %lld", (long long)c->max_model_len);
    gpx_arg(&cmd, "--gpu-memory-utilization %g", w->gpu_memory_utilization > 0 ? w->gpu_memory_utilization : 0.9);
    gpx_arg(&cmd, "--max-num-seqs %lld", (long long)c->max_num_seqs);
    if (w->block_size > 0 && w->block_size != 16)
        gpx_arg(&cmd, "--block-size %lld", (long long)w->block_size);
    if (w->max_num_batched_tokens > 0)
        gpx_arg(&cmd, "--max-num-batched-tokens %lld", (long long)w->max_num_batched_tokens);
    gpx_arg(&cmd, "--dtype %s", gpx_torch_dtype(c->act));
    if (!c->prequantized && c->weights == GP_DTYPE_FP8)
        gpx_arg(&cmd, "--quantization fp8");
    else if (!c->prequantized && c->weights == GP_DTYPE_NF4)
        gpx_arg(&cmd, "--quantization bitsandbytes");
    else if (!c->prequantized && gp_dtype_bits(c->weights) < 16)
        gpx_note(out, "vLLM reads %s weights from a pre-quantized checkpoint (GPTQ, AWQ, compressed-tensors): "
                      "point the model at one; no --quantization flag was written",
                 gp_dtype_name(c->weights));
    if (w->kv_dtype == GP_DTYPE_FP8)
        gpx_arg(&cmd, "--kv-cache-dtype fp8");
    else if (w->kv_dtype != GP_DTYPE_UNKNOWN && gp_dtype_bits(w->kv_dtype) < 16)
        gpx_note(out, "vLLM has no %s KV cache (auto or fp8): the cache stays 16-bit", gp_dtype_name(w->kv_dtype));
    int multinode = c->replica_gpus > c->gpus_per_node;
    if (multinode)
        gpx_arg(&cmd, "--distributed-executor-backend ray");
    if (l->cp > 1)
        gpx_note(out, "context parallelism (CP %d) is not exported for vLLM serving", l->cp);
    gpx_arg(&cmd, "--port %d", c->port);
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "vLLM command line too long");

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    if (multinode) {
        gpx_add(&b, "# One replica spans %d GPUs, more than the %d of a node: start a Ray cluster over\n"
                    "# the %d nodes (the head node first, then each worker joins it), then run this on the head.\n",
                c->replica_gpus, c->gpus_per_node, c->nodes);
        gpx_note(out, "multi-node: TP x PP = %d GPUs > %d per node; the command uses Ray across %d nodes",
                 c->replica_gpus, c->gpus_per_node, c->nodes);
    } else if (c->gpus > c->gpus_per_node)
        gpx_note(out, "DP %d replicas span %d nodes: run one vLLM per node with its share of replicas", l->dp,
                 c->nodes);
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    return gpx_emit(out, "launch.sh", &b, 1, err);
}
