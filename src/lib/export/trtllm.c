/*
 * trtllm.c: `trtllm-serve` (PyTorch backend) for a serving layout. Flags: shared/reference/
 * engines.md, section tensorrt_llm (commands/serve.py at commit 00209af1). Options that only
 * exist as LLM-API YAML keys (KV-cache dtype, attention DP) are left to notes.
 */
#include "export_impl.h"

gp_status gpx_render_trtllm(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_arg(&cmd, "trtllm-serve %s", c->model_path);
    gpx_arg(&cmd, "--backend pytorch");
    gpx_arg(&cmd, "--tp_size %d", l->tp);
    gpx_arg(&cmd, "--pp_size %d", l->pp);
    if (l->cp > 1)
        gpx_arg(&cmd, "--cp_size %d", l->cp);
    if (l->ep > 1 && c->m->experts > 0)
        gpx_arg(&cmd, "--ep_size %d", l->ep);
    gpx_arg(&cmd, "--max_seq_len %lld", (long long)c->max_model_len);
    gpx_arg(&cmd, "--max_batch_size %lld", (long long)c->max_num_seqs);
    if (w->max_num_batched_tokens > 0)
        gpx_arg(&cmd, "--max_num_tokens %lld", (long long)w->max_num_batched_tokens);
    gpx_arg(&cmd, "--kv_cache_free_gpu_memory_fraction %g",
            w->gpu_memory_utilization > 0 ? w->gpu_memory_utilization : 0.9);
    int multinode = c->replica_gpus > c->gpus_per_node;
    if (multinode)
        gpx_arg(&cmd, "--gpus_per_node %d", c->gpus_per_node);
    gpx_arg(&cmd, "--port %d", c->port);
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "TensorRT-LLM command line too long");
    if (!c->prequantized && gp_dtype_bits(c->weights) < 16)
        gpx_note(out, "trtllm-serve has no quantization flag: quantize to %s first (TensorRT Model Optimizer) "
                      "and serve that checkpoint",
                 gp_dtype_name(c->weights));
    if (w->kv_dtype != GP_DTYPE_UNKNOWN && gp_dtype_bits(w->kv_dtype) < 16)
        gpx_note(out, "a %s KV cache is set in the LLM-API YAML passed with --config, not by a flag",
                 gp_dtype_name(w->kv_dtype));

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    if (multinode) {
        gpx_add(&b, "# TP x PP = %d GPUs over %d nodes: start this under MPI (mpirun or srun with\n"
                    "# trtllm-llmapi-launch), one process per GPU.\n",
                c->replica_gpus, c->nodes);
        gpx_note(out, "multi-node: run under MPI with one rank per GPU (%d ranks)", c->replica_gpus);
    }
    if (l->dp > 1) {
        gpx_add(&b, "# DP %d: start %d servers on disjoint GPUs and ports behind a load balancer.\n", l->dp, l->dp);
        gpx_note(out, "DP %d: run %d trtllm-serve processes on disjoint GPUs and ports", l->dp, l->dp);
    }
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    return gpx_emit(out, "launch.sh", &b, 1, err);
}
