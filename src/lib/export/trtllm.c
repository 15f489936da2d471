/*
 * trtllm.c: `trtllm-serve` (PyTorch backend) for a serving layout, with the LLM-API options
 * YAML beside it (extra_llm_api_options.yaml, passed with --extra_llm_api_options). Flags:
 * docs/engines.md, section tensorrt_llm (commands/serve.py at commit 00209af1).
 *
 * Start-up rules followed: a prompt longer than max_num_tokens is refused unless chunked
 * prefill is on, so max_num_tokens is the context length unless a smaller prefill chunk is
 * planned (then enable_chunked_prefill); trtllm-serve listens on localhost unless --host says
 * otherwise; more GPUs than one node's run as MPI ranks started by srun (or mpirun) through
 * trtllm-llmapi-launch, one rank per GPU. trtllm-serve has no API key option.
 */
#include "export_impl.h"
#include "private/serve.h"

/* The CUDA graphs the prediction assumes (data/engines.json cuda_graph_batch_sizes, the sizes
 * up to --max_batch_size; docs/serving.md "Simulator rules"): without them TensorRT-LLM
 * captures up to 128 and runs larger decode batches without a graph. */
static void yaml_graphs(const gpx_ctx *c, gpx_buf *y)
{
    gpi_engine_profile p;
    if (!c->job->profiles ||
        gpi_engine_profile_get(c->job->profiles, GP_ENGINE_TRTLLM, c->job->gpu, c->l.tp, &p, NULL) != GP_OK ||
        !p.cuda_graphs || p.n_graph_sizes == 0 || p.graph_sizes[0] > c->max_num_seqs)
        return;
    gpx_add(y, "cuda_graph_config:\n  enable_padding: true\n  batch_sizes: [");
    for (int i = 0; i < p.n_graph_sizes && p.graph_sizes[i] <= c->max_num_seqs; i++)
        gpx_add(y, "%s%lld", i ? ", " : "", (long long)p.graph_sizes[i]);
    gpx_add(y, "]\n");
}

static void yaml_text(const gpx_ctx *c, int chunked, gpx_buf *y)
{
    gpx_add(y, "kv_cache_config:\n  free_gpu_memory_fraction: %g\n",
            c->w->gpu_memory_utilization > 0 ? c->w->gpu_memory_utilization : 0.9);
    if (c->w->kv_dtype == GP_DTYPE_FP8)
        gpx_add(y, "  dtype: fp8\n");
    gpx_add(y, "enable_chunked_prefill: %s\n", chunked ? "true" : "false");
    yaml_graphs(c, y);
}

static gp_status yaml_file(const gpx_ctx *c, int chunked, gp_export_files *out, gp_error *err)
{
    gpx_buf y;
    gpx_buf_init(&y);
    gpx_header(&y, c, "# ", "extra_llm_api_options.yaml");
    yaml_text(c, chunked, &y);
    return gpx_emit(out, "extra_llm_api_options.yaml", &y, 0, err);
}

/* A pod has launch.sh's command but not the YAML beside it: the container writes it first. */
static gp_status deploy(const gpx_ctx *c, const gpx_cmd *cmd, int chunked, gp_export_files *out, gp_error *err)
{
    gpx_buf s;
    gpx_buf_init(&s);
    gpx_add(&s, "cd /tmp && cat > extra_llm_api_options.yaml <<'EOF'\n");
    yaml_text(c, chunked, &s);
    gpx_add(&s, "EOF\n");
    if (s.failed) {
        gpx_buf_free(&s);
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering deploy.json");
    }
    gp_status st = gpx_deploy_files(c, cmd, "/health", s.p, out, err);
    gpx_buf_free(&s);
    return st;
}

gp_status gpx_render_trtllm(const gpx_ctx *c, gp_export_files *out, gp_error *err)
{
    const gp_layout *l = &c->l;
    const gp_workload *w = c->w;
    char path[GP_ERROR_PATH_MAX];
    gpi_strlcpy(path, c->model_path, sizeof path);
    int convert = !c->prequantized && gp_dtype_bits(c->weights) < 16;
    if (convert && !gpx_quant_known(c, "modelopt"))
        return gpi_fail(err, GP_EUNSUPPORTED, "TensorRT-LLM: no conversion to %s weights is known",
                        gp_dtype_name(c->weights));
    if (convert)
        gpx_quant_path(c, "modelopt", path, sizeof path);
    int64_t tokens = w->max_num_batched_tokens > 0 ? w->max_num_batched_tokens
                     : c->max_model_len > 8192     ? c->max_model_len
                                                   : 8192;
    int chunked = tokens < c->max_model_len;
    int multinode = c->replica_gpus > c->gpus_per_node;
    gpx_cmd cmd;
    gpx_cmd_init(&cmd);
    if (multinode)
        gpx_arg(&cmd, "srun --mpi=pmix --nodes %d --ntasks %d --ntasks-per-node %d trtllm-llmapi-launch",
                (c->replica_gpus + c->gpus_per_node - 1) / c->gpus_per_node, c->replica_gpus, c->gpus_per_node);
    gpx_arg(&cmd, "trtllm-serve %s", path);
    gpx_arg(&cmd, "--backend pytorch");
    gpx_arg(&cmd, "--tp_size %d", l->tp);
    gpx_arg(&cmd, "--pp_size %d", l->pp);
    if (l->cp > 1)
        gpx_arg(&cmd, "--cp_size %d", l->cp);
    if (l->ep > 1 && c->m->experts > 0)
        gpx_arg(&cmd, "--ep_size %d", l->ep);
    gpx_arg(&cmd, "--max_seq_len %lld", (long long)c->max_model_len);
    gpx_arg(&cmd, "--max_batch_size %lld", (long long)c->max_num_seqs);
    gpx_arg(&cmd, "--max_num_tokens %lld", (long long)tokens);
    gpx_arg(&cmd, "--kv_cache_free_gpu_memory_fraction %g",
            w->gpu_memory_utilization > 0 ? w->gpu_memory_utilization : 0.9);
    if (multinode)
        gpx_arg(&cmd, "--gpus_per_node %d", c->gpus_per_node);
    gpx_arg(&cmd, "--extra_llm_api_options extra_llm_api_options.yaml");
    gpx_arg(&cmd, "--host %s", c->host);
    gpx_arg(&cmd, "--port %d", c->port);
    if (cmd.overflow)
        return gpi_fail(err, GP_ELIMIT, "TensorRT-LLM command line too long");
    if (c->api_key_env[0])
        gpx_note(out,
                 "trtllm-serve has no API key option: put an authenticating proxy (or gateway) checking $%s "
                 "in front of it",
                 c->api_key_env);
    if (w->kv_dtype != GP_DTYPE_UNKNOWN && w->kv_dtype != GP_DTYPE_FP8 && gp_dtype_bits(w->kv_dtype) < 16)
        gpx_note(out, "TensorRT-LLM has no %s KV cache here (fp8 only): the cache stays 16-bit",
                 gp_dtype_name(w->kv_dtype));

    gpx_buf b;
    gpx_buf_init(&b);
    gpx_sh_preamble(&b, c, "launch.sh");
    if (multinode) {
        gpx_add(&b,
                "# TP x PP = %d GPUs over %d nodes: one MPI rank per GPU, started by srun inside a\n"
                "# Slurm allocation of those nodes (or: mpirun -np %d -H <node0>:%d,... trtllm-llmapi-launch\n"
                "# trtllm-serve ...); rank 0 serves HTTP.\n",
                c->replica_gpus, (c->replica_gpus + c->gpus_per_node - 1) / c->gpus_per_node, c->replica_gpus,
                c->gpus_per_node);
        gpx_note(out, "multi-node: srun starts %d MPI ranks through trtllm-llmapi-launch", c->replica_gpus);
    }
    if (l->dp > 1) {
        gpx_add(&b, "# DP %d: start %d servers on disjoint GPUs and ports behind a load balancer.\n", l->dp, l->dp);
        gpx_note(out, "DP %d: run %d trtllm-serve processes on disjoint GPUs and ports", l->dp, l->dp);
    }
    gpx_cmd_lines(&b, &cmd, "  ");
    gpx_cmd_line(out->command, sizeof out->command, &cmd);
    gp_status st = gpx_emit(out, "launch.sh", &b, 1, err);
    if (st == GP_OK)
        st = yaml_file(c, chunked, out, err);
    if (st == GP_OK && convert)
        st = gpx_quantize_file(c, "modelopt", out, err);
    if (st == GP_OK && c->replicas > 1)
        st = deploy(c, &cmd, chunked, out, err);
    return st;
}
