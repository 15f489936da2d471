/*
 * sglang.c: `python -m sglang.launch_server` for a serving layout. Flags: docs/engines.md,
 * section sglang (server_args.py at commit 001067ff, a 2026 main snapshot). bitsandbytes
 * quantization loads with --load-format bitsandbytes (server_args.py checks the pair); the
 * server listens on 127.0.0.1 unless --host says otherwise.
 */
#include "export_impl.h"

gp_status gpx_render_sglang(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_arg(&cmd, "python -m sglang.launch_server");
    char path[GP_ERROR_PATH_MAX];
    gpi_strlcpy(path, c->model_path, sizeof path);
    int convert =
        !c->prequantized && gp_dtype_bits(c->weights) < 16 && c->weights != GP_DTYPE_FP8 && c->weights != GP_DTYPE_NF4;
    if (convert && !gpx_quant_known(c, "llm-compressor"))
        return gpi_fail(err, GP_EUNSUPPORTED, "SGLang: no conversion to %s weights is known",
                        gp_dtype_name(c->weights));
    if (convert)
        gpx_quant_path(c, "llm-compressor", path, sizeof path);
    gpx_arg(&cmd, "--model-path %s", path);
    gpx_arg(&cmd, "--tp-size %d", l->tp);
    if (l->pp > 1)
        gpx_arg(&cmd, "--pp-size %d", l->pp);
    if (l->dp > 1)
        gpx_arg(&cmd, "--dp-size %d", l->dp);
    if (l->ep > 1 && c->m->experts > 0)
        gpx_arg(&cmd, "--ep-size %d", l->ep);
    gpx_arg(&cmd, "--context-length %lld", (long long)c->max_model_len);
    gpx_arg(&cmd, "--mem-fraction-static %g", w->gpu_memory_utilization > 0 ? w->gpu_memory_utilization : 0.9);
    gpx_arg(&cmd, "--max-running-requests %lld", (long long)c->max_num_seqs);
    if (w->max_num_batched_tokens > 0)
        gpx_arg(&cmd, "--chunked-prefill-size %lld", (long long)w->max_num_batched_tokens);
    gpx_arg(&cmd, "--dtype %s", gpx_torch_dtype(c->act));
    if (!c->prequantized && c->weights == GP_DTYPE_FP8)
        gpx_arg(&cmd, "--quantization fp8");
    else if (!c->prequantized && c->weights == GP_DTYPE_NF4) {
        gpx_arg(&cmd, "--quantization bitsandbytes");
        gpx_arg(&cmd, "--load-format bitsandbytes");
    }
    if (w->kv_dtype == GP_DTYPE_FP8)
        gpx_arg(&cmd, "--kv-cache-dtype fp8_e4m3");
    else if (w->kv_dtype != GP_DTYPE_UNKNOWN && gp_dtype_bits(w->kv_dtype) < 16)
        gpx_note(out, "SGLang has no %s KV cache: the cache stays 16-bit", gp_dtype_name(w->kv_dtype));
    int multinode = c->replica_gpus > c->gpus_per_node;
    if (multinode) {
        gpx_arg(&cmd, "--nnodes %d", c->nodes);
        gpx_arg(&cmd, "--node-rank \"$NODE_RANK\"");
        gpx_arg(&cmd, "--dist-init-addr \"$HEAD_ADDR:5000\"");
    }
    if (l->cp > 1)
        gpx_note(out, "context parallelism (CP %d) is not exported for SGLang serving", l->cp);
    gpx_service_args(c, &cmd, "--served-model-name", "--host");
    if (c->audit_log)
        gpx_arg(&cmd, "--log-requests");
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "SGLang command line too long");

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    if (multinode) {
        gpx_add(&b,
                "# Multi-node: run on each of the %d nodes with NODE_RANK=0..%d and HEAD_ADDR the\n"
                "# address of node 0.\n"
                "NODE_RANK=${NODE_RANK:?set NODE_RANK (0 on the head node)}\n"
                "HEAD_ADDR=${HEAD_ADDR:?set HEAD_ADDR to node 0}\n",
                c->nodes, c->nodes - 1);
        gpx_note(out, "multi-node: run launch.sh on each of %d nodes with NODE_RANK and HEAD_ADDR set", c->nodes);
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
