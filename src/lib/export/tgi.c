/*
 * tgi.c: `text-generation-launcher` for a serving layout. Flags: docs/engines.md, section
 * tgi (launcher/src/main.rs at v3.3.7). --dtype and --quantize exclude each other, and a
 * checkpoint that carries its own quantization_config sets the quantization itself, so no
 * --dtype is written for it (the shard refuses "Only 1 can be set between dtype and quantize"). TGI shards with tensor
 * parallelism on one machine only (--num-shard); pipeline parallelism and multi-node replicas are refused.
 */
#include "export_impl.h"

gp_status gpx_render_tgi(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    if (l->pp > 1)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "TGI has no pipeline parallelism (it shards with --num-shard, tensor parallel): PP %d "
                        "cannot be exported; use vllm or sglang, or a layout with PP 1",
                        l->pp);
    if (c->replica_gpus > c->gpus_per_node)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "TGI shards over the GPUs of one machine: TP %d exceeds the %d GPUs per node", c->replica_gpus,
                        c->gpus_per_node);
    if (c->max_model_len < 2)
        return gpi_fail(err, GP_EINVAL, "TGI needs a context of at least 2 tokens (input + output)");
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_arg(&cmd, "text-generation-launcher");
    char path[GP_ERROR_PATH_MAX];
    gpi_strlcpy(path, c->model_path, sizeof path);
    int convert =
        !c->prequantized && (c->weights == GP_DTYPE_INT4 || c->weights == GP_DTYPE_FP4 || c->weights == GP_DTYPE_MXFP4);
    if (convert)
        gpx_quant_path(c, "llm-compressor", path, sizeof path);
    gpx_arg(&cmd, "--model-id %s", path);
    gpx_arg(&cmd, "--num-shard %d", l->tp);
    gpx_arg(&cmd, "--max-input-tokens %lld", (long long)(c->max_model_len - 1));
    gpx_arg(&cmd, "--max-total-tokens %lld", (long long)c->max_model_len);
    gpx_arg(&cmd, "--max-concurrent-requests %lld", (long long)c->max_num_seqs);
    if (w->max_num_batched_tokens >= c->max_model_len - 1)
        gpx_arg(&cmd, "--max-batch-prefill-tokens %lld", (long long)w->max_num_batched_tokens);
    gpx_arg(&cmd, "--cuda-memory-fraction %g", w->gpu_memory_utilization > 0 ? w->gpu_memory_utilization : 0.9);
    const char *q = NULL;
    if (!c->prequantized) {
        if (c->weights == GP_DTYPE_FP8)
            q = "fp8";
        else if (c->weights == GP_DTYPE_NF4)
            q = "bitsandbytes-nf4";
        else if (c->weights == GP_DTYPE_INT8)
            q = "bitsandbytes";
    }
    if (q)
        gpx_arg(&cmd, "--quantize %s", q);
    else if (!c->prequantized && !convert && (c->act == GP_DTYPE_BF16 || c->act == GP_DTYPE_F16))
        gpx_arg(&cmd, "--dtype %s", gpx_torch_dtype(c->act));
    if (w->kv_dtype == GP_DTYPE_FP8)
        gpx_arg(&cmd, "--kv-cache-dtype fp8_e4m3fn");
    else if (w->kv_dtype != GP_DTYPE_UNKNOWN && gp_dtype_bits(w->kv_dtype) < 16)
        gpx_note(out, "TGI has no %s KV cache (fp8_e4m3fn or fp8_e5m2): the cache stays 16-bit",
                 gp_dtype_name(w->kv_dtype));
    if (l->ep > 1 || l->cp > 1)
        gpx_note(out, "TGI has no expert or context parallelism flags: EP %d / CP %d not exported", l->ep, l->cp);
    gpx_service_args(c, &cmd, NULL, "--hostname");
    if (c->audit_log)
        gpx_note(out, "TGI logs every request at its default info level (--json-output for a log collector)");
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "TGI command line too long");

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    if (l->dp > 1) {
        gpx_add(&b,
                "# DP %d: start %d launchers, each on its own %d GPU%s (CUDA_VISIBLE_DEVICES) and port,\n"
                "# behind a load balancer. This is one of them.\n",
                l->dp, l->dp, l->tp, l->tp == 1 ? "" : "s");
        gpx_note(out, "DP %d: run %d TGI launchers on disjoint GPUs and ports", l->dp, l->dp);
    }
    gpx_api_key_var(&b, c);
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    gp_status st = gpx_emit(out, "launch.sh", &b, 1, err);
    if (st == GP_OK && convert)
        st = gpx_quantize_file(c, "llm-compressor", out, err);
    if (st == GP_OK && c->replicas > 1)
        st = gpx_deploy_files(c, &cmd, "/health", NULL, out, err);
    return st;
}
