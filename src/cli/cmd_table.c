/*
 * cmd_table.c: `gpuplan table`: the classic LLM sizing table (gp_table_run, src/lib/run/table.c)
 * printed as text; --json prints the run's document.
 */
#include "cli.h"

#include <string.h>

#define TABLE_GB 1e9

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

static double gb(uint64_t bytes)
{
    return (double)bytes / TABLE_GB;
}

static void print_table(const gp_table_row *rows, size_t n, const gp_gpu *gpu, const gp_workload *wi,
                        const gp_workload *wt)
{
    char a[64], b[64];
    printf("LLM memory by size class on %s (%.1f GB each); GB = 10^9 bytes, bf16 weights\n\n", gpu->id,
           gb(gpu->memory_bytes));

    printf("Inference: 1 sequence of %s tokens, bf16 KV cache, no serving engine\n",
           cli_fmt_count(a, sizeof a, wi->context));
    printf("  %-15s %9s  %8s %8s  %8s %8s %8s  %7s  %s\n", "", "", "weights", "weights", "KV", "act.+", "", "rule",
           "min GPUs");
    printf("  %-15s %9s  %8s %8s  %8s %8s %8s  %7s  %s\n", "model", "params", "2 B/par", "gpuplan", "cache", "overhd",
           "total", "misses", "(layout)");
    for (size_t k = 0; k < n; k++) {
        const gp_table_row *r = &rows[k];
        const gp_memory *i = &r->infer.one;
        printf("  %-15s %9s  %8.1f %8.1f  %8.1f %8.1f %8.1f  %6.1f%%  %s\n", r->m.id,
               cli_fmt_si(b, sizeof b, (double)r->params), gb((uint64_t)(GP_TABLE_RULE_INFER_BYTES * r->params)),
               gb(i->weights), gb(i->kv_cache), gb(i->activations + i->overhead), gb(i->per_gpu),
               pct((double)(i->kv_cache + i->activations + i->overhead), (double)i->per_gpu), r->infer.layout);
    }

    printf("\nFull training: AdamW mixed precision, %s-token sequences, micro-batch 1, selective recomputation\n",
           cli_fmt_count(a, sizeof a, wt->seq));
    printf("  %-15s %9s  %8s %11s %8s  %8s %8s %8s  %7s  %s\n", "", "", "states", "range", "states", "activ-", "", "",
           "rule", "min GPUs");
    printf("  %-15s %9s  %8s %11s %8s  %8s %8s %8s  %7s  %s\n", "model", "params", "16 B/par", "12-18 B/par", "gpuplan",
           "ations", "overhd", "total", "misses", "(layout)");
    for (size_t k = 0; k < n; k++) {
        const gp_table_row *r = &rows[k];
        const gp_memory *t = &r->train.one;
        char range[32];
        snprintf(range, sizeof range, "%.0f-%.0f", gb((uint64_t)(GP_TABLE_RULE_TRAIN_LOW * r->params)),
                 gb((uint64_t)(GP_TABLE_RULE_TRAIN_HIGH * r->params)));
        printf("  %-15s %9s  %8.1f %11s %8.1f  %8.1f %8.1f %8.1f  %6.1f%%  %s\n", r->m.id,
               cli_fmt_si(b, sizeof b, (double)r->params), gb((uint64_t)(GP_TABLE_RULE_TRAIN_BYTES * r->params)), range,
               gb(t->weights + t->gradients + t->optimizer), gb(t->activations), gb(t->overhead), gb(t->per_gpu),
               pct((double)(t->activations + t->overhead), (double)t->per_gpu), r->train.layout);
    }

    printf("\nTotals are the whole job on one device; min GPUs is the smallest layout of %s that fits\n"
           "(as gpuplan fit finds it).\n", gpu->id);
    printf("The rules of thumb (2 B/param to serve, 16 B/param = 2 + 2 + 12 to train with AdamW) count\n"
           "model states only; \"rule misses\" is the share of the total they leave out: the KV cache at\n"
           "the stated context, activations, and runtime overhead (CUDA context, allocator slack).\n");
}

static const char table_help[] =
    "usage: gpuplan table [--gpu ID] [--context N] [--seq N] [--json]\n\n"
    "The classic LLM sizing table for the 7B/13B/70B/405B classes (Llama-3.1-8B, Llama-2-13B,\n"
    "Llama-3.1-70B, Llama-3.1-405B from the catalog): the rules of thumb (2 bytes/param to serve\n"
    "at 16 bits, 16 bytes/param to train with AdamW) beside gpuplan's accounting, and the smallest\n"
    "number of GPUs (and layout) that holds each job. Here --context defaults to 8192 (one\n"
    "sequence's KV cache) and training uses micro-batch 1; --json gives an array of rows, every\n"
    "size in bytes.\n\nFlags:\n";

int cmd_table(int argc, char **argv, cli_common *common)
{
    gp_result *r = NULL;
    int rc = cli_run_question(common, "table", argc, argv, table_help, &r);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (common->json)
        rc = cli_print_result_json(common, r);
    else {
        const gp_table_answer *a = gp_result_table(r);
        print_table(a->rows, (size_t)a->n, gp_result_gpu(r), &a->infer, &a->train);
    }
    gp_result_free(r);
    return rc;
}
