/* cmd_fit.c: `gpuplan fit`: memory per GPU, and one GPU or several, and why. */
#include "cli.h"

#include <string.h>

static void bar(const char *name, uint64_t bytes, double scale)
{
    if (!bytes)
        return;
    char b[64];
    int n = (int)((double)bytes * scale + 0.5);
    if (n > 50)
        n = 50;
    printf("    %-12s %9.2f GB  ", name, (double)bytes / 1e9);
    (void)b;
    for (int i = 0; i < n; i++)
        fputs("#", stdout);
    if (!n)
        fputs(".", stdout);
    printf("\n");
}

static void print_memory(const char *title, const gp_memory *m, const gp_workload *w)
{
    double top = (double)(m->per_gpu > m->capacity ? m->per_gpu : m->capacity);
    double scale = 50.0 / top;
    char a[64], b[64];
    printf("%s: %.1f GB per GPU of %.1f GB (%s)\n", title, (double)m->per_gpu / 1e9, (double)m->capacity / 1e9,
           m->fits ? "fits" : "does NOT fit");
    bar("weights", m->weights, scale);
    bar("kv cache", m->kv_cache, scale);
    bar("activations", m->activations, scale);
    bar("gradients", m->gradients, scale);
    bar("optimizer", m->optimizer, scale);
    bar("overhead", m->overhead, scale);
    printf("    %-12s %9.2f GB  ", "capacity", (double)m->capacity / 1e9);
    int n = (int)((double)m->capacity * scale + 0.5);
    for (int i = 0; i < n; i++)
        fputs("-", stdout);
    printf("|\n");
    if (m->cpu_offload)
        printf("    offloaded to CPU memory: %.2f GB per GPU\n", (double)m->cpu_offload / 1e9);
    if (w->engine != GP_ENGINE_NONE && w->task == GP_TASK_INFER)
        printf("    %s: budget %.2f GB (%.2f x CUDA-visible memory); KV cache %.2f GB = %s tokens in %s blocks of %lld;"
               " max concurrency at %lld tokens: %.2fx\n",
               gp_engine_name(w->engine), (double)m->engine_budget / 1e9, w->gpu_memory_utilization,
               (double)m->kv_cache_bytes / 1e9, cli_fmt_count(a, sizeof a, m->kv_tokens),
               cli_fmt_count(b, sizeof b, m->kv_blocks), (long long)m->kv_block_size, (long long)w->context,
               m->max_concurrency);
}

static const char fit_help[] =
    "usage: gpuplan fit --model X [--gpu ID] [workload and layout flags] [--json]\n\n"
    "Memory per GPU (weights, KV cache, activations, gradients, optimizer, overhead) and the\n"
    "verdict: does it fit on one GPU of the type; if not, the smallest number that holds it,\n"
    "with its layout, why, and which single larger GPU would hold it alone.\n\n";

int cmd_fit(int argc, char **argv, cli_common *common)
{
    gp_result *res = NULL;
    int rc = cli_run_question(common, "fit", argc, argv, fit_help, &res);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (common->json) {
        rc = cli_print_result_json(common, res);
        gp_result_free(res);
        return rc;
    }
    const gp_fit_result *r = gp_result_fit(res);
    const gp_model *m = gp_result_model(res);
    const gp_gpu *gpu = gp_result_gpu(res);
    const gp_workload *w = gp_result_workload(res);
    const gp_scenario *sc = gp_result_scenario(res);
    char a[64], b[64];
    printf("%s on %s: %s", m->name, gpu->id, gp_task_name(w->task));
    if (w->task == GP_TASK_INFER)
        printf(", %s x %s-token sequences", cli_fmt_count(a, sizeof a, w->batch),
               cli_fmt_count(b, sizeof b, w->context));
    else
        printf(", %s-token sequences, micro-batch %lld, %s", cli_fmt_count(a, sizeof a, w->seq),
               (long long)(sc->micro_batch ? sc->micro_batch : 1), gp_optimizer_name(w->optimizer));
    printf(", weights %s\n\n",
           gp_dtype_name(w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : (m->quant ? m->quant : m->dtype)));
    char title[128];
    snprintf(title, sizeof title, "Asked layout (TP %d, PP %d, DP %d%s)", r->asked.tp, r->asked.pp, r->asked.dp,
             r->asked.zero ? ", ZeRO" : "");
    print_memory(title, &r->asked_memory, w);
    printf("\nVerdict: %s\n", r->single_gpu_sufficient ? "ONE GPU is enough."
                              : r->fits                ? "one GPU is NOT enough."
                                                       : "no layout fits.");
    for (int i = 0; i < r->n_reasons; i++)
        printf("  - [%s] %s\n", gp_reason_name(r->reasons[i].code), r->reasons[i].message);
    if (r->fits && (r->min_gpus > 1 || gp_layout_gpus(&r->asked) != 1)) {
        printf("\n");
        snprintf(title, sizeof title, "Smallest setup: %d x %s (TP %d, PP %d, DP %d, ZeRO-%d)", r->min_gpus, gpu->id,
                 r->min_layout.tp, r->min_layout.pp, r->min_layout.dp, r->min_layout.zero);
        print_memory(title, &r->min_memory, w);
    }
    if (r->fits && w->task == GP_TASK_INFER)
        printf("\nOn that setup: up to %s concurrent %s-token sequences, or one sequence of up to %s tokens.\n",
               cli_fmt_count(a, sizeof a, r->max_batch), cli_fmt_count(b, sizeof b, w->context),
               cli_fmt_count(title, sizeof title, r->max_context));
    gp_result_free(res);
    return EXIT_OK;
}
