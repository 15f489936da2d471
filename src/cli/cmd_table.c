/*
 * cmd_table.c: `gpuplan table`: the classic LLM sizing table (7B/13B/70B/405B class) computed
 * from the catalog's real configs, rules of thumb side by side with gpuplan's accounting.
 *
 * Every figure comes from the library: gp_model_total_params, gp_memory_estimate on one GPU
 * (the whole job on one device) and gp_fit (the smallest layout of --gpu that holds it). The
 * only arithmetic here is the rules of thumb themselves (2 and 16 bytes per parameter) and
 * percentages of the library's totals.
 */
#include "cli.h"

#include <string.h>

#define TABLE_GB 1e9

/* The rows: one real catalog model per classic size class. */
static const char *const table_models[] = {"llama-3.1-8b", "llama-2-13b", "llama-3.1-70b", "llama-3.1-405b"};
#define TABLE_ROWS (sizeof table_models / sizeof table_models[0])

/* Rules of thumb, bytes per parameter. Inference: 16-bit weights. Training with AdamW in mixed
 * precision: 2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master, momentum, variance),
 * Rajbhandari et al. 2020 (ZeRO), section 3; commonly quoted as 12-18 bytes/param. */
#define RULE_INFER_BYTES 2
#define RULE_TRAIN_BYTES 16
#define RULE_TRAIN_LOW 12
#define RULE_TRAIN_HIGH 18

typedef struct table_part {
    gp_memory one;          /* the whole job on one GPU (TP = PP = DP = 1) */
    gp_fit_result fit;      /* the smallest layout of --gpu that holds it */
    char layout[64];        /* "2x TP2", "1x", "none" */
} table_part;

typedef struct table_row {
    gp_model m;
    int64_t params;
    table_part infer, train;
} table_row;

static void layout_label(const gp_fit_result *r, char *buf, size_t n)
{
    if (!r->fits) {
        snprintf(buf, n, "none");
        return;
    }
    const gp_layout *l = &r->min_layout;
    size_t o = (size_t)snprintf(buf, n, "%dx", r->min_gpus);
    if (l->tp > 1 && o < n) o += (size_t)snprintf(buf + o, n - o, " TP%d", l->tp);
    if (l->pp > 1 && o < n) o += (size_t)snprintf(buf + o, n - o, " PP%d", l->pp);
    if (l->dp > 1 && o < n) o += (size_t)snprintf(buf + o, n - o, " DP%d", l->dp);
    if (l->zero > 0 && o < n) snprintf(buf + o, n - o, " ZeRO-%d", l->zero);
}

/* Size one part (inference or training) of a row through the library. */
static int size_part(cli_common *common, const gp_catalog *cat, const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                     gp_recompute recompute, table_part *out)
{
    gp_error err;
    gp_layout one;
    gp_layout_defaults(&one);
    one.recompute = recompute;
    if (gp_memory_estimate(m, gpu, w, &one, &out->one, &err) != GP_OK)
        return cli_error(common, &err);
    gp_layout given; /* nothing fixed but the micro-batch and the recomputation */
    memset(&given, 0, sizeof given);
    given.micro_batch = 1;
    given.recompute = recompute;
    if (gp_fit(cat, m, gpu, w, &given, &out->fit, &err) != GP_OK)
        return cli_error(common, &err);
    layout_label(&out->fit, out->layout, sizeof out->layout);
    return EXIT_OK;
}

static double pct(double part, double whole) { return whole > 0 ? 100.0 * part / whole : 0.0; }

static json_t *layout_json(const table_part *p)
{
    if (!p->fit.fits)
        return json_null();
    const gp_layout *l = &p->fit.min_layout;
    return json_pack("{ss si si si si si sb}", "label", p->layout, "gpus", p->fit.min_gpus, "tp", l->tp,
                     "pp", l->pp, "dp", l->dp, "zero", l->zero, "sequence_parallel", l->sequence_parallel);
}

static json_t *row_json(const table_row *r, const gp_workload *wi, const gp_workload *wt)
{
    const gp_memory *i = &r->infer.one, *t = &r->train.one;
    const double it = (double)i->per_gpu, tt = (double)t->per_gpu;
    const uint64_t states = t->weights + t->gradients + t->optimizer;
    json_t *inf = json_pack(
        "{ss sI sI sI sI sI sI sI sI sI so sI sb s{sf sf sf sf}}",
        "dtype", gp_dtype_name(wi->dtype), "context", (json_int_t)wi->context, "batch", (json_int_t)wi->batch,
        "rule_of_thumb_weights_bytes", (json_int_t)(RULE_INFER_BYTES * r->params),
        "weights_bytes", (json_int_t)i->weights, "kv_cache_bytes", (json_int_t)i->kv_cache,
        "activations_bytes", (json_int_t)i->activations, "overhead_bytes", (json_int_t)i->overhead,
        "total_bytes", (json_int_t)i->per_gpu, "min_gpus", (json_int_t)r->infer.fit.min_gpus,
        "min_layout", layout_json(&r->infer), "min_per_gpu_bytes", (json_int_t)r->infer.fit.min_memory.per_gpu,
        "single_gpu_sufficient", r->infer.fit.single_gpu_sufficient,
        "rule_of_thumb_leaves_out_pct", "kv_cache", pct((double)i->kv_cache, it), "activations",
        pct((double)i->activations, it), "overhead", pct((double)i->overhead, it), "total",
        pct((double)(i->kv_cache + i->activations + i->overhead), it));
    json_t *tr = json_pack(
        "{ss ss sI sI ss sI sI sI sI sI sI sI sI sI sI sI so sI sb s{sf sf sf}}",
        "optimizer", gp_optimizer_name(wt->optimizer), "dtype", gp_dtype_name(wt->dtype),
        "seq", (json_int_t)wt->seq, "micro_batch", (json_int_t)1, "recompute",
        gp_recompute_name(GP_RECOMPUTE_SELECTIVE),
        "rule_of_thumb_states_bytes", (json_int_t)(RULE_TRAIN_BYTES * r->params),
        "rule_of_thumb_low_bytes", (json_int_t)(RULE_TRAIN_LOW * r->params),
        "rule_of_thumb_high_bytes", (json_int_t)(RULE_TRAIN_HIGH * r->params),
        "model_states_bytes", (json_int_t)states, "weights_bytes", (json_int_t)t->weights,
        "gradients_bytes", (json_int_t)t->gradients, "optimizer_bytes", (json_int_t)t->optimizer,
        "activations_bytes", (json_int_t)t->activations, "overhead_bytes", (json_int_t)t->overhead,
        "total_bytes", (json_int_t)t->per_gpu, "min_gpus", (json_int_t)r->train.fit.min_gpus,
        "min_layout", layout_json(&r->train), "min_per_gpu_bytes", (json_int_t)r->train.fit.min_memory.per_gpu,
        "single_gpu_sufficient", r->train.fit.single_gpu_sufficient,
        "rule_of_thumb_leaves_out_pct", "activations", pct((double)t->activations, tt), "overhead",
        pct((double)t->overhead, tt), "total", pct((double)(t->activations + t->overhead), tt));
    return json_pack("{ss ss sI so so}", "model", r->m.id, "name", r->m.name, "params", (json_int_t)r->params,
                     "inference", inf, "training", tr);
}

static double gb(uint64_t bytes) { return (double)bytes / TABLE_GB; }

static void print_table(const table_row *rows, size_t n, const gp_gpu *gpu, const gp_workload *wi,
                        const gp_workload *wt)
{
    char a[64], b[64];
    printf("LLM memory by size class on %s (%.1f GB each); GB = 10^9 bytes, bf16 weights\n\n", gpu->id,
           gb(gpu->memory_bytes));

    printf("Inference: 1 sequence of %s tokens, bf16 KV cache, no serving engine\n",
           cli_fmt_count(a, sizeof a, wi->context));
    printf("  %-15s %9s  %8s %8s  %8s %8s %8s  %7s  %s\n", "", "", "weights", "weights", "KV", "act.+", "",
           "rule", "min GPUs");
    printf("  %-15s %9s  %8s %8s  %8s %8s %8s  %7s  %s\n", "model", "params", "2 B/par", "gpuplan", "cache",
           "overhd", "total", "misses", "(layout)");
    for (size_t k = 0; k < n; k++) {
        const table_row *r = &rows[k];
        const gp_memory *i = &r->infer.one;
        printf("  %-15s %9s  %8.1f %8.1f  %8.1f %8.1f %8.1f  %6.1f%%  %s\n", r->m.id,
               cli_fmt_si(b, sizeof b, (double)r->params), gb((uint64_t)(RULE_INFER_BYTES * r->params)),
               gb(i->weights), gb(i->kv_cache), gb(i->activations + i->overhead), gb(i->per_gpu),
               pct((double)(i->kv_cache + i->activations + i->overhead), (double)i->per_gpu), r->infer.layout);
    }

    printf("\nFull training: AdamW mixed precision, %s-token sequences, micro-batch 1, selective recomputation\n",
           cli_fmt_count(a, sizeof a, wt->seq));
    printf("  %-15s %9s  %8s %11s %8s  %8s %8s %8s  %7s  %s\n", "", "", "states", "range", "states", "activ-",
           "", "", "rule", "min GPUs");
    printf("  %-15s %9s  %8s %11s %8s  %8s %8s %8s  %7s  %s\n", "model", "params", "16 B/par", "12-18 B/par",
           "gpuplan", "ations", "overhd", "total", "misses", "(layout)");
    for (size_t k = 0; k < n; k++) {
        const table_row *r = &rows[k];
        const gp_memory *t = &r->train.one;
        char range[32];
        snprintf(range, sizeof range, "%.0f-%.0f", gb((uint64_t)(RULE_TRAIN_LOW * r->params)),
                 gb((uint64_t)(RULE_TRAIN_HIGH * r->params)));
        printf("  %-15s %9s  %8.1f %11s %8.1f  %8.1f %8.1f %8.1f  %6.1f%%  %s\n", r->m.id,
               cli_fmt_si(b, sizeof b, (double)r->params), gb((uint64_t)(RULE_TRAIN_BYTES * r->params)), range,
               gb(t->weights + t->gradients + t->optimizer), gb(t->activations), gb(t->overhead), gb(t->per_gpu),
               pct((double)(t->activations + t->overhead), (double)t->per_gpu), r->train.layout);
    }

    printf("\nTotals are the whole job on one device; min GPUs is gp_fit's smallest layout of %s.\n", gpu->id);
    printf("The rules of thumb (2 B/param to serve, 16 B/param = 2 + 2 + 12 to train with AdamW) count\n"
           "model states only; \"rule misses\" is the share of the total they leave out: the KV cache at\n"
           "the stated context, activations, and runtime overhead (CUDA context, allocator slack).\n");
}

static const char table_help[] =
    "usage: gpuplan table [--gpu ID] [--context N] [--seq N] [--json]\n\n"
    "The classic LLM sizing table for the 7B/13B/70B/405B classes (Llama-3.1-8B, Llama-2-13B,\n"
    "Llama-3.1-70B, Llama-3.1-405B from the catalog): the rules of thumb (2 bytes/param to serve\n"
    "at 16 bits, 16 bytes/param to train with AdamW) beside gpuplan's accounting, and the smallest\n"
    "number of GPUs (and layout) that holds each job.\n\n"
    "  --gpu ID             GPU type for the GPU counts (default H100-SXM-80GB)\n"
    "  --context N          inference: tokens of the one sequence's KV cache (default 8192)\n"
    "  --seq N              training: sequence length, micro-batch 1 (default 4096)\n"
    "  --data-dir DIR       JSON files overriding the built-in data\n"
    "  --json               machine-readable output: an array of rows, every size in bytes\n";

int cmd_table(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS,
                                         {"gpu", required_argument, NULL, 'g'},
                                         {"context", required_argument, NULL, 2004},
                                         {"seq", required_argument, NULL, 2006},
                                         {0, 0, 0, 0}};
    const char *gpu_id = "H100-SXM-80GB";
    int64_t context = 8192, seq = 4096;
    const int64_t big = (int64_t)1 << 32;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hg:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s", table_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
        switch (c) {
        case 'g': gpu_id = optarg; break;
        case 2004: if (cli_parse_i64(common, "table", "context", optarg, 1, big, &context)) return EXIT_USAGE; break;
        case 2006: if (cli_parse_i64(common, "table", "seq", optarg, 1, big, &seq)) return EXIT_USAGE; break;
        case ':': return cli_usage_error(common, "table", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(common, "table", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(common, "table", "unexpected argument '%s'", argv[optind]);

    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return EXIT_INPUT;
    gp_error err;
    const gp_gpu *gpu;
    if (gp_catalog_find_gpu(cat, gpu_id, &gpu, &err) != GP_OK)
        return cli_error(common, &err);

    gp_workload wi, wt;
    gp_workload_defaults(&wi, GP_TASK_INFER);
    wi.dtype = GP_DTYPE_BF16;
    wi.kv_dtype = GP_DTYPE_BF16;
    wi.context = context;
    wi.batch = 1;
    gp_workload_defaults(&wt, GP_TASK_TRAIN);
    wt.dtype = GP_DTYPE_BF16;
    wt.seq = seq;
    wt.optimizer = GP_OPT_ADAMW;

    static table_row rows[TABLE_ROWS];
    for (size_t k = 0; k < TABLE_ROWS; k++) {
        table_row *r = &rows[k];
        if (gp_catalog_find_model(cat, table_models[k], &r->m, &err) != GP_OK)
            return cli_error(common, &err);
        r->params = gp_model_total_params(&r->m);
        int rc = size_part(common, cat, &r->m, gpu, &wi, GP_RECOMPUTE_NONE, &r->infer);
        if (!rc)
            rc = size_part(common, cat, &r->m, gpu, &wt, GP_RECOMPUTE_SELECTIVE, &r->train);
        if (rc)
            return rc;
    }

    if (common->json) {
        json_t *arr = json_array();
        for (size_t k = 0; k < TABLE_ROWS; k++) {
            json_t *row = row_json(&rows[k], &wi, &wt);
            json_object_set_new(row, "gpu", json_string(gpu->id));
            json_object_set_new(row, "gpu_memory_bytes", json_integer((json_int_t)gpu->memory_bytes));
            json_array_append_new(arr, row);
        }
        return cli_print_json(common, arr);
    }
    print_table(rows, TABLE_ROWS, gpu, &wi, &wt);
    return EXIT_OK;
}
