/* cmd_model.c: `gpuplan model show X` and `gpuplan model list`. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const gp_dtype shown_dtypes[] = {GP_DTYPE_F32,  GP_DTYPE_BF16, GP_DTYPE_FP8,  GP_DTYPE_INT8,
                                        GP_DTYPE_INT4, GP_DTYPE_NF4,  GP_DTYPE_MXFP4};

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
        printf("\n  from %s: %s\n", gp_model_origin_name(m->origin), m->source);
    printf("\nArchitecture (%s)\n", m->model_type);
    printf("  %lld layers, hidden %lld, vocab %s, context %s tokens\n", (long long)m->layers, (long long)m->hidden,
           cli_fmt_count(a, sizeof a, m->vocab), cli_fmt_count(b, sizeof b, m->max_context));
    if (m->kv_lora_rank > 0)
        printf("  attention: %s, %lld heads, latent %lld + rotary %lld, q rank %lld\n", gp_model_attention_name(m),
               (long long)m->heads, (long long)m->kv_lora_rank, (long long)m->qk_rope_head_dim,
               (long long)m->q_lora_rank);
    else
        printf("  attention: %s, %lld query heads, %lld KV heads, head dim %lld\n", gp_model_attention_name(m),
               (long long)m->heads, (long long)m->kv_heads, (long long)m->head_dim);
    if (m->sliding_window > 0)
        printf("  sliding window: %lld of %lld layers attend to the last %lld tokens only\n",
               (long long)m->sliding_layers, (long long)m->layers, (long long)m->sliding_window);
    if (m->experts > 0)
        printf("  MoE: %lld routed experts (top-%lld) of width %lld, %lld shared, %lld dense layers\n",
               (long long)m->experts, (long long)m->experts_active, (long long)m->moe_ffn, (long long)m->shared_experts,
               (long long)m->dense_layers);
    if (m->experts == 0 || m->dense_layers > 0)
        printf("  MLP: %s, width %lld\n", m->mlp == GP_MLP_GATED ? "gated (SwiGLU/GeGLU)" : "plain (GELU)",
               (long long)m->ffn);
    printf("  embeddings %s; stored as %s%s%s\n", m->tied_embeddings ? "tied to the output head" : "untied",
           gp_dtype_name(m->dtype), m->quant_method[0] ? ", quantized: " : "", m->quant_method);

    int64_t total = gp_model_total_params(m);
    printf("\nParameters: %s (%s)", cli_fmt_count(a, sizeof a, total), cli_fmt_si(b, sizeof b, (double)total));
    if (m->experts > 0)
        printf(", active per token %s (%s)", cli_fmt_count(c, sizeof c, p->active),
               cli_fmt_si(b, sizeof b, (double)p->active));
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
    gp_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return cli_usage_error(common, "model show", "out of memory");
    gp_scenario_init(sc, GP_CMD_MODEL);
    const char *pos[1] = {NULL};
    int help = 0, n_pos = 0;
    int rc = cli_parse_flags(common, "model show", argc, argv, sc, &help, pos, 1, &n_pos);
    gp_error err;
    if (rc == EXIT_OK && help)
        cli_print_help(show_help, GP_CMD_MODEL);
    else if (rc == EXIT_OK && n_pos && sc->model[0])
        rc = cli_usage_error(common, "model show", "give one model");
    else if (rc == EXIT_OK && n_pos && gp_scenario_set(sc, gp_scenario_key_find("model"), pos[0], GP_SRC_FLAG, &err))
        rc = cli_usage_error(common, "model show", "%s", err.msg);
    gp_catalog *cat = rc == EXIT_OK && !help ? cli_catalog(common) : NULL;
    if (rc == EXIT_OK && !help && !cat)
        rc = EXIT_INPUT;
    gp_model m;
    gp_param_breakdown p;
    if (cat && gp_scenario_model(cat, sc, NULL, &m, &err) != GP_OK)
        rc = cli_run_error(common, "model show", &err);
    else if (cat && gp_model_params(&m, &p, &err) != GP_OK)
        rc = cli_error(common, &err);
    else if (cat && common->json) {
        char *text = NULL;
        size_t len = 0;
        rc = gp_model_json(&m, &text, &len, &err) == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
    } else if (cat)
        print_model(&m, &p);
    free(sc);
    return rc;
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
    if (common->json) {
        char *text = NULL;
        size_t len = 0;
        gp_error err;
        return gp_catalog_models_json(cat, &text, &len, &err) == GP_OK ? cli_print_text(text, len)
                                                                       : cli_error(common, &err);
    }
    printf("%-24s %-40s %10s %10s %9s %8s\n", "id", "hugging face repo", "params", "active", "context", "KV/tok");
    for (size_t i = 0; i < gp_catalog_model_count(cat); i++) {
        gp_model m;
        gp_param_breakdown p;
        gp_error err;
        if (gp_catalog_model_at(cat, i, &m, &err) != GP_OK || gp_model_params(&m, &p, &err) != GP_OK)
            return cli_error(common, &err);
        char a[32], b[32], k[32];
        printf("%-24s %-40s %10s %10s %9lld %8s\n", m.id, m.name, cli_fmt_si(a, sizeof a, (double)p.total),
               cli_fmt_si(b, sizeof b, (double)p.active), (long long)m.max_context,
               cli_fmt_count(k, sizeof k, (int64_t)gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16)));
    }
    return EXIT_OK;
}

int cmd_model(int argc, char **argv, cli_common *common)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cli_print_help(show_help, GP_CMD_MODEL);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "show") == 0)
        return model_show(argc - 1, argv + 1, common);
    if (strcmp(argv[1], "list") == 0)
        return model_list(argc - 1, argv + 1, common);
    return cli_usage_error(common, "model", "unknown subcommand '%s' (show, list)", argv[1]);
}
