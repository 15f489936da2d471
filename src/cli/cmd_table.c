/*
 * cmd_table.c: `gpuplan table`: the classic LLM sizing table (gp_table_run, src/lib/run/table.c)
 * as text (gp_result_text) or, with --json, the run's document.
 */
#include "cli.h"

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
    return cli_answer(common, "table", argc, argv, table_help);
}
