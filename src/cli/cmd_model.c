/* cmd_model.c: `gpuplan model show X` and `gpuplan model list`. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const gp_dtype shown_dtypes[] = {GP_DTYPE_F32, GP_DTYPE_BF16, GP_DTYPE_FP8, GP_DTYPE_INT8,
                                        GP_DTYPE_INT4, GP_DTYPE_NF4, GP_DTYPE_MXFP4};

static const char *origin_name(gp_model_origin o)
{
    static const char *const names[GP_ORIGIN_COUNT] = {"flags", "catalog", "config.json",
                                                       "model folder (config.json + safetensors)", "gguf"};
    return o < GP_ORIGIN_COUNT ? names[o] : "?";
}

static const char *attention_kind(const gp_model *m)
{
    if (m->kv_lora_rank > 0) return "MLA (multi-head latent attention)";
    if (m->kv_heads == 1 && m->heads > 1) return "MQA";
    if (m->kv_heads < m->heads) return "GQA";
    return "MHA";
}

static json_t *model_json(const gp_model *m, const gp_param_breakdown *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(m->id));
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "model_type", json_string(m->model_type));
    json_object_set_new(o, "origin", json_string(origin_name(m->origin)));
    json_object_set_new(o, "source", json_string(m->source));
    json_object_set_new(o, "params_total", json_integer(gp_model_total_params(m)));
    json_object_set_new(o, "params_active", json_integer(p->active));
    json_object_set_new(o, "params_from_config", json_integer(p->total));
    json_object_set_new(o, "layers", json_integer(m->layers));
    json_object_set_new(o, "hidden", json_integer(m->hidden));
    json_object_set_new(o, "heads", json_integer(m->heads));
    json_object_set_new(o, "kv_heads", json_integer(m->kv_heads));
    json_object_set_new(o, "head_dim", json_integer(m->head_dim));
    json_object_set_new(o, "ffn", json_integer(m->ffn));
    json_object_set_new(o, "vocab", json_integer(m->vocab));
    json_object_set_new(o, "max_context", json_integer(m->max_context));
    json_object_set_new(o, "experts", json_integer(m->experts));
    json_object_set_new(o, "experts_active", json_integer(m->experts_active));
    json_object_set_new(o, "moe_ffn", json_integer(m->moe_ffn));
    json_object_set_new(o, "shared_experts", json_integer(m->shared_experts));
    json_object_set_new(o, "tied_embeddings", json_boolean(m->tied_embeddings));
    json_object_set_new(o, "attention", json_string(attention_kind(m)));
    json_object_set_new(o, "kv_lora_rank", json_integer(m->kv_lora_rank));
    json_object_set_new(o, "sliding_window", json_integer(m->sliding_window));
    json_object_set_new(o, "sliding_layers", json_integer(m->sliding_layers));
    json_object_set_new(o, "dtype", json_string(gp_dtype_name(m->dtype)));
    json_object_set_new(o, "quantization", json_string(m->quant_method[0] ? m->quant_method : "none"));
    json_object_set_new(o, "weight_bytes", json_integer((json_int_t)gp_model_weight_bytes(m, GP_DTYPE_UNKNOWN)));
    json_object_set_new(o, "kv_bytes_per_token", json_integer((json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16)));

    json_t *parts = json_pack("{sI sI sI sI sI sI sI sI sI}", "embedding", (json_int_t)p->embedding,
                              "position", (json_int_t)p->position, "attention", (json_int_t)p->attention,
                              "mlp", (json_int_t)p->mlp_dense, "experts_routed", (json_int_t)p->experts_routed,
                              "experts_shared", (json_int_t)p->experts_shared, "router", (json_int_t)p->router,
                              "norms", (json_int_t)p->norms, "head", (json_int_t)p->head);
    json_object_set_new(o, "params_by_part", parts);
    json_t *wb = json_object();
    for (size_t i = 0; i < sizeof shown_dtypes / sizeof shown_dtypes[0]; i++)
        json_object_set_new(wb, gp_dtype_name(shown_dtypes[i]),
                            json_integer((json_int_t)gp_model_weight_bytes(m, shown_dtypes[i])));
    json_object_set_new(o, "weight_bytes_by_dtype", wb);
    json_t *kv = json_object();
    json_object_set_new(kv, "bf16", json_integer((json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16)));
    json_object_set_new(kv, "fp8", json_integer((json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_FP8)));
    json_object_set_new(o, "kv_bytes_per_token_by_dtype", kv);
    int64_t ctx = m->max_context > 0 ? m->max_context : 4096;
    json_object_set_new(o, "kv_bytes_max_context_bf16", json_integer((json_int_t)gp_model_kv_bytes(m, GP_DTYPE_BF16, ctx)));
    double f0 = gp_model_forward_flops_per_token(m, 0);
    json_object_set_new(o, "forward_flops_per_token", json_real(f0));
    json_object_set_new(o, "forward_flops_per_token_at_4096", json_real(gp_model_forward_flops_per_token(m, 4096)));
    json_object_set_new(o, "training_flops_per_token", json_real(3.0 * f0));
    if (m->has_exact) {
        json_t *ex = json_object();
        json_object_set_new(ex, "params", json_integer(m->exact_params));
        json_object_set_new(ex, "buffers", json_integer(m->exact_buffers));
        json_object_set_new(ex, "tensors", json_integer(m->exact_tensors));
        json_object_set_new(ex, "bytes", json_integer((json_int_t)m->exact_bytes));
        json_object_set_new(ex, "extra_params", json_integer(m->exact_extra_params));
        json_t *types = json_array();
        for (int i = 0; i < m->n_dtype_stats; i++)
            json_array_append_new(types, json_pack("{ss sI sI sI}", "type", m->dtype_stats[i].name,
                                                   "tensors", (json_int_t)m->dtype_stats[i].tensors,
                                                   "elements", (json_int_t)m->dtype_stats[i].elements,
                                                   "bytes", (json_int_t)m->dtype_stats[i].bytes));
        json_object_set_new(ex, "by_type", types);
        json_object_set_new(o, "exact", ex);
    } else
        json_object_set_new(o, "exact", json_null());
    json_object_set_new(o, "published_params", json_integer(m->published_params));
    json_object_set_new(o, "published_active_params", json_integer(m->published_active_params));
    json_t *notes = json_array();
    char buf[GP_NOTE_MAX];
    memcpy(buf, m->notes, sizeof buf);
    for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
        json_array_append_new(notes, json_string(line));
    json_object_set_new(o, "notes", notes);
    return o;
}

static void print_part(const char *name, int64_t v, int64_t total)
{
    char a[40];
    if (v)
        printf("    %-16s %20s  %5.1f%%\n", name, cli_fmt_count(a, sizeof a, v), 100.0 * (double)v / (double)total);
}

static void print_model(const gp_model *m, const gp_param_breakdown *p)
{
    char a[64], b[64], c[64];
    printf("%s", m->name);
    if (strcmp(m->id, m->name))
        printf("  [%s]", m->id);
    if (m->origin == GP_ORIGIN_CATALOG)
        printf("\n  from the built-in catalog (data/models.json)\n");
    else
        printf("\n  from %s: %s\n", origin_name(m->origin), m->source);
    printf("\nArchitecture (%s)\n", m->model_type);
    printf("  %lld layers, hidden %lld, vocab %s, context %s tokens\n", (long long)m->layers,
           (long long)m->hidden, cli_fmt_count(a, sizeof a, m->vocab), cli_fmt_count(b, sizeof b, m->max_context));
    if (m->kv_lora_rank > 0)
        printf("  attention: %s, %lld heads, latent %lld + rotary %lld, q rank %lld\n", attention_kind(m),
               (long long)m->heads, (long long)m->kv_lora_rank, (long long)m->qk_rope_head_dim,
               (long long)m->q_lora_rank);
    else
        printf("  attention: %s, %lld query heads, %lld KV heads, head dim %lld\n", attention_kind(m),
               (long long)m->heads, (long long)m->kv_heads, (long long)m->head_dim);
    if (m->sliding_window > 0)
        printf("  sliding window: %lld of %lld layers attend to the last %lld tokens only\n",
               (long long)m->sliding_layers, (long long)m->layers, (long long)m->sliding_window);
    if (m->experts > 0)
        printf("  MoE: %lld routed experts (top-%lld) of width %lld, %lld shared, %lld dense layers\n",
               (long long)m->experts, (long long)m->experts_active, (long long)m->moe_ffn,
               (long long)m->shared_experts, (long long)m->dense_layers);
    if (m->experts == 0 || m->dense_layers > 0)
        printf("  MLP: %s, width %lld\n", m->mlp == GP_MLP_GATED ? "gated (SwiGLU/GeGLU)" : "plain (GELU)", (long long)m->ffn);
    printf("  embeddings %s; stored as %s%s%s\n", m->tied_embeddings ? "tied to the output head" : "untied",
           gp_dtype_name(m->dtype), m->quant_method[0] ? ", quantized: " : "", m->quant_method);

    int64_t total = gp_model_total_params(m);
    printf("\nParameters: %s (%s)", cli_fmt_count(a, sizeof a, total), cli_fmt_si(b, sizeof b, (double)total));
    if (m->experts > 0)
        printf(", active per token %s (%s)", cli_fmt_count(c, sizeof c, p->active), cli_fmt_si(b, sizeof b, (double)p->active));
    printf("\n");
    if (m->has_exact) {
        printf("  exact, from the weight files' headers: %s parameters in %lld tensors, %s\n",
               cli_fmt_count(a, sizeof a, m->exact_params), (long long)m->exact_tensors,
               cli_fmt_bytes(b, sizeof b, (double)m->exact_bytes));
        printf("  from config.json's architecture:       %s%s\n", cli_fmt_count(a, sizeof a, p->total),
               p->total == m->exact_params ? "  (equal)" : "  (differs: see notes)");
        for (int i = 0; i < m->n_dtype_stats; i++)
            printf("    %-10s %6lld tensors %20s elements  %s\n", m->dtype_stats[i].name,
                   (long long)m->dtype_stats[i].tensors, cli_fmt_count(a, sizeof a, m->dtype_stats[i].elements),
                   cli_fmt_bytes(b, sizeof b, (double)m->dtype_stats[i].bytes));
    }
    if (m->published_params > 0)
        printf("  published: %s%s\n", cli_fmt_count(a, sizeof a, m->published_params),
               m->published_params == total ? " (equal)" : "");
    printf("  by part (from the architecture):\n");
    print_part("embedding", p->embedding, p->total);
    print_part("positions", p->position, p->total);
    print_part("attention", p->attention, p->total);
    print_part("mlp", p->mlp_dense, p->total);
    print_part("routed experts", p->experts_routed, p->total);
    print_part("shared experts", p->experts_shared, p->total);
    print_part("router", p->router, p->total);
    print_part("norms", p->norms, p->total);
    print_part("output head", p->head, p->total);

    printf("\nWeight bytes by precision (linear layers quantized; embeddings, head, norms at 16 bits)\n");
    for (size_t i = 0; i < sizeof shown_dtypes / sizeof shown_dtypes[0]; i++)
        printf("  %-6s %s\n", gp_dtype_name(shown_dtypes[i]),
               cli_fmt_bytes(a, sizeof a, (double)gp_model_weight_bytes(m, shown_dtypes[i])));
    if (m->has_exact)
        printf("  as stored in the files: %s\n", cli_fmt_bytes(a, sizeof a, (double)m->exact_bytes));

    uint64_t kv16 = gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16);
    int64_t ctx = m->max_context > 0 ? m->max_context : 4096;
    printf("\nKV cache: %s bytes per token at bf16 (%s at fp8)", cli_fmt_count(a, sizeof a, (int64_t)kv16),
           cli_fmt_count(b, sizeof b, (int64_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_FP8)));
    printf("; one %s-token sequence: %s\n", cli_fmt_count(c, sizeof c, ctx),
           cli_fmt_bytes(a, sizeof a, (double)gp_model_kv_bytes(m, GP_DTYPE_BF16, ctx)));
    if (m->sliding_window > 0)
        printf("  (%lld sliding-window layers hold at most %lld tokens each)\n", (long long)m->sliding_layers,
               (long long)m->sliding_window);
    double f0 = gp_model_forward_flops_per_token(m, 0), f4k = gp_model_forward_flops_per_token(m, 4096);
    printf("\nFLOPs per token: forward %s (at 4,096 tokens of context %s); training %s (3x forward)\n",
           cli_fmt_si(a, sizeof a, f0), cli_fmt_si(b, sizeof b, f4k), cli_fmt_si(c, sizeof c, 3 * f0));
    if (m->notes[0]) {
        printf("\nNotes\n");
        char buf[GP_NOTE_MAX];
        memcpy(buf, m->notes, sizeof buf);
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
            printf("  - %s\n", line);
    }
}

static const char show_help[] =
    "usage: gpuplan model show [MODEL] [--model X] [architecture flags] [--json]\n"
    "       gpuplan model list [--json]\n\n"
    "What a model is: architecture, total and active parameters (exact from safetensors/GGUF\n"
    "headers when given files), parameters by part, weight bytes at each precision, KV-cache\n"
    "bytes per token, FLOPs per token.\n\n";

static int model_show(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, CLI_MODEL_OPTS, {0, 0, 0, 0}};
    cli_model_opts mo;
    cli_model_opts_init(&mo);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s%s  --json               machine-readable output\n", show_help, cli_model_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
        int r = cli_model_opt(common, "model show", c, optarg, &mo);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return cli_usage_error(common, "model show", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc) {
        if (mo.spec || optind + 1 < argc)
            return cli_usage_error(common, "model show", "give one model");
        mo.spec = argv[optind];
    }
    gp_model m;
    int rc = cli_model_build("model show", &mo, common, &m);
    if (rc)
        return rc;
    gp_param_breakdown p;
    gp_error err;
    if (gp_model_params(&m, &p, &err) != GP_OK)
        return cli_error(common, &err);
    if (common->json)
        return cli_print_json(common, model_json(&m, &p));
    print_model(&m, &p);
    return EXIT_OK;
}

static int model_list(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s", show_help);
            return EXIT_OK;
        }
        if (!cli_common_opt(c, optarg, common))
            return cli_usage_error(common, "model list", "unknown option '%s'", argv[optind - 1]);
    }
    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return EXIT_INPUT;
    json_t *arr = common->json ? json_array() : NULL;
    if (!common->json)
        printf("%-24s %-40s %10s %10s %9s %8s\n", "id", "hugging face repo", "params", "active", "context", "KV/tok");
    for (size_t i = 0; i < gp_catalog_model_count(cat); i++) {
        gp_model m;
        gp_param_breakdown p;
        gp_error err;
        if (gp_catalog_model_at(cat, i, &m, &err) != GP_OK || gp_model_params(&m, &p, &err) != GP_OK) {
            json_decref(arr);
            return cli_error(common, &err);
        }
        if (arr) {
            json_array_append_new(arr, json_pack("{ss ss ss sI sI sI sI sI}", "id", m.id, "name", m.name,
                                                 "model_type", m.model_type, "params_total", (json_int_t)p.total,
                                                 "params_active", (json_int_t)p.active, "max_context",
                                                 (json_int_t)m.max_context, "kv_bytes_per_token",
                                                 (json_int_t)gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16),
                                                 "experts", (json_int_t)m.experts));
        } else {
            char a[32], b[32], k[32];
            printf("%-24s %-40s %10s %10s %9lld %8s\n", m.id, m.name, cli_fmt_si(a, sizeof a, (double)p.total),
                   cli_fmt_si(b, sizeof b, (double)p.active), (long long)m.max_context,
                   cli_fmt_count(k, sizeof k, (int64_t)gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16)));
        }
    }
    if (arr)
        return cli_print_json(common, json_pack("{so}", "models", arr));
    return EXIT_OK;
}

int cmd_model(int argc, char **argv, cli_common *common)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("%s%s", show_help, cli_model_help);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "show") == 0)
        return model_show(argc - 1, argv + 1, common);
    if (strcmp(argv[1], "list") == 0)
        return model_list(argc - 1, argv + 1, common);
    return cli_usage_error(common, "model", "unknown subcommand '%s' (show, list)", argv[1]);
}
