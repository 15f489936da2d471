/*
 * llamacpp.c: `llama-server` for a serving layout. Flags: docs/engines.md, section llama_cpp
 * (common/arg.cpp at commit 145b6280). llama.cpp splits a model over the GPUs of one machine by
 * layers; its context (--ctx-size) is shared by the --parallel slots. A quantized V cache
 * needs flash attention: without it context creation fails (src/llama-context.cpp, "V cache
 * quantization requires flash_attn"), so a q8_0 cache switches flash attention on.
 */
#include "export_impl.h"

#include <string.h>

gp_status gpx_render_llamacpp(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    if (c->replica_gpus > c->gpus_per_node)
        return gpi_fail(err, GP_EUNSUPPORTED,
                        "llama.cpp splits a model over the GPUs of one machine: %d GPUs per replica exceed the %d "
                        "per node",
                        c->replica_gpus, c->gpus_per_node);
    int64_t slots = w->batch > 0 ? w->batch : 1;
    if (c->max_model_len > INT64_MAX / slots)
        return gpi_fail(err, GP_EINVAL, "context x batch overflows");
    char path[GP_ERROR_PATH_MAX];
    int convert = !gpi_ends_with(c->model_path_raw, ".gguf");
    if (convert)
        gpx_quant_path(c, "gguf", path, sizeof path);
    else
        gpi_strlcpy(path, c->model_path, sizeof path);
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    gpx_arg(&cmd, "llama-server");
    gpx_arg(&cmd, "--model %s", path);
    gpx_arg(&cmd, "--ctx-size %lld", (long long)(c->max_model_len * slots));
    gpx_arg(&cmd, "--parallel %lld", (long long)slots);
    gpx_arg(&cmd, "--gpu-layers 999");
    if (c->replica_gpus > 1) {
        char split[GPX_ARG_MAX];
        size_t n = 0;
        split[0] = '\0';
        for (int i = 0; i < c->replica_gpus && n + 3 < sizeof split; i++)
            n += (size_t)snprintf(split + n, sizeof split - n, "%s1", i ? "," : "");
        gpx_arg(&cmd, "--split-mode layer");
        gpx_arg(&cmd, "--tensor-split %s", split);
        if (l->tp > 1)
            gpx_note(out,
                     "llama.cpp splits by layers over the %d GPUs (one GPU computes at a time per token), "
                     "not tensor parallel: expect less speed than TP %d",
                     c->replica_gpus, l->tp);
    }
    int quant_v = w->kv_dtype == GP_DTYPE_INT8;
    gpx_arg(&cmd, "--flash-attn %s", w->flash_attention || quant_v ? "on" : "off");
    if (quant_v && !w->flash_attention)
        gpx_note(out, "a q8_0 V cache needs flash attention (llama.cpp refuses the context without it): "
                      "--flash-attn on is written");
    if (quant_v) {
        gpx_arg(&cmd, "--cache-type-k q8_0");
        gpx_arg(&cmd, "--cache-type-v q8_0");
    } else if (w->kv_dtype != GP_DTYPE_UNKNOWN && gp_dtype_bits(w->kv_dtype) < 16)
        gpx_note(out, "llama.cpp has no %s KV cache; q8_0 (--kv-dtype int8) is the nearest",
                 gp_dtype_name(w->kv_dtype));
    if (l->ep > 1 || l->cp > 1)
        gpx_note(out, "llama.cpp has no expert or context parallelism: EP %d / CP %d not exported", l->ep, l->cp);
    gpx_arg(&cmd, "--alias %s", c->served_name);
    gpx_arg(&cmd, "--host %s", c->host);
    gpx_arg(&cmd, "--port %d", c->port);
    if (c->api_key_env[0])
        gpx_arg(&cmd, "--api-key \"$%s\"", c->api_key_env);
    if (c->audit_log)
        gpx_arg(&cmd, "--log-file llama-server.log");
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "llama.cpp command line too long");

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    if (l->dp > 1) {
        gpx_add(&b, "# DP %d: start %d servers, each on its own GPU%s (CUDA_VISIBLE_DEVICES) and port.\n", l->dp, l->dp,
                c->replica_gpus == 1 ? "" : "s");
        gpx_note(out, "DP %d: run %d llama-server processes on disjoint GPUs and ports", l->dp, l->dp);
    }
    gpx_api_key_var(&b, c);
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    gp_status st = gpx_emit(out, "launch.sh", &b, 1, err);
    if (st == GP_OK && convert)
        st = gpx_quantize_file(c, "gguf", out, err);
    if (st == GP_OK && c->replicas > 1)
        st = gpx_deploy_files(c, &cmd, "/health", NULL, out, err);
    return st;
}
