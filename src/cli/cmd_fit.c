/* cmd_fit.c: `gpuplan fit`: memory per GPU, and one GPU or several, and why. */
#include "cli.h"

#include <string.h>

/* "    name          12.34 GB  " with the name padded by characters (UTF-8), the number by locale */
static void bar_label(const char *name, uint64_t bytes, const char *lang)
{
    char b[64];
    int chars = 0;
    for (const char *p = name; *p; p++)
        chars += ((unsigned char)*p & 0xC0) != 0x80;
    printf("    %s%*s %9s GB  ", name, chars < 12 ? 12 - chars : 0, "",
           gp_format_number(b, sizeof b, (double)bytes / 1e9, 2, lang));
}

static void bar(const char *name, uint64_t bytes, double scale, const char *lang)
{
    if (!bytes)
        return;
    int n = (int)((double)bytes * scale + 0.5);
    if (n > 50)
        n = 50;
    bar_label(name, bytes, lang);
    for (int i = 0; i < n; i++)
        fputs("#", stdout);
    if (!n)
        fputs(".", stdout);
    printf("\n");
}

/* The memory per GPU as bars, in the question's language (the library's message table). */
static void print_memory(const char *title, const gp_memory *m, const gp_workload *w, const char *lang)
{
    double top = (double)(m->per_gpu > m->capacity ? m->per_gpu : m->capacity);
    double scale = 50.0 / top;
    char a[64], b[64], line[512], f[16];
    gp_format_number(a, sizeof a, (double)m->per_gpu / 1e9, 1, lang);
    gp_format_number(b, sizeof b, (double)m->capacity / 1e9, 1, lang);
    gp_text(f, sizeof f, m->fits ? "fit.fits" : "fit.not_fits", lang, NULL, 0);
    printf("%s\n", gp_text(line, sizeof line, "fit.memory", lang, (const char *const[]){title, a, b, f}, 4));
    static const char *const keys[7] = {"fit.weights", "fit.kv_cache", "fit.activations", "fit.gradients",
                                        "fit.optimizer", "fit.overhead", "fit.capacity"};
    const uint64_t parts[6] = {m->weights, m->kv_cache, m->activations, m->gradients, m->optimizer, m->overhead};
    char name[7][32];
    for (int i = 0; i < 7; i++)
        gp_text(name[i], sizeof name[i], keys[i], lang, NULL, 0);
    for (int i = 0; i < 6; i++)
        bar(name[i], parts[i], scale, lang);
    bar_label(name[6], m->capacity, lang);
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
    const char *lang = sc->lang[0] ? sc->lang : "en";
    char a[64], b[64], c[64], title[256], n[6][24];
    const char *dt = gp_dtype_name(w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : (m->quant ? m->quant : m->dtype));
    if (w->task == GP_TASK_INFER)
        gp_text(title, sizeof title, "fit.head_infer", lang,
                (const char *const[]){m->name, gpu->id, gp_format_number(a, sizeof a, (double)w->batch, 0, lang),
                                      gp_format_number(b, sizeof b, (double)w->context, 0, lang), dt}, 5);
    else {
        snprintf(n[0], sizeof n[0], "%lld", (long long)(sc->micro_batch ? sc->micro_batch : 1));
        gp_text(title, sizeof title, "fit.head_train", lang,
                (const char *const[]){m->name, gpu->id, gp_task_name(w->task),
                                      gp_format_number(a, sizeof a, (double)w->seq, 0, lang), n[0],
                                      gp_optimizer_name(w->optimizer), dt}, 7);
    }
    printf("%s\n\n", title);
    snprintf(n[0], sizeof n[0], "%d", r->asked.tp);
    snprintf(n[1], sizeof n[1], "%d", r->asked.pp);
    snprintf(n[2], sizeof n[2], "%d", r->asked.dp);
    gp_text(title, sizeof title, "fit.asked_layout", lang,
            (const char *const[]){n[0], n[1], n[2], r->asked.zero ? ", ZeRO" : ""}, 4);
    print_memory(title, &r->asked_memory, w, lang);
    printf("\n%s\n", gp_text(title, sizeof title,
                             r->single_gpu_sufficient ? "fit.verdict_one" : r->fits ? "fit.verdict_several" : "fit.verdict_none",
                             lang, NULL, 0));
    for (int i = 0; i < r->n_reasons; i++) /* already in the question's language (gp_fit_run set it) */
        printf("  - [%s] %s\n", gp_reason_name(r->reasons[i].code), r->reasons[i].message);
    if (r->fits && (r->min_gpus > 1 || gp_layout_gpus(&r->asked) != 1)) {
        printf("\n");
        const int v[6] = {r->min_gpus, 0, r->min_layout.tp, r->min_layout.pp, r->min_layout.dp, r->min_layout.zero};
        for (int i = 0; i < 6; i++)
            snprintf(n[i], sizeof n[i], "%d", v[i]);
        gp_text(title, sizeof title, "fit.smallest_setup", lang, (const char *const[]){n[0], gpu->id, n[2], n[3], n[4], n[5]}, 6);
        print_memory(title, &r->min_memory, w, lang);
    }
    if (r->fits && w->task == GP_TASK_INFER)
        printf("\n%s\n", gp_text(title, sizeof title, "fit.on_setup", lang,
                                 (const char *const[]){gp_format_number(a, sizeof a, (double)r->max_batch, 0, lang),
                                                       gp_format_number(b, sizeof b, (double)w->context, 0, lang),
                                                       gp_format_number(c, sizeof c, (double)r->max_context, 0, lang)}, 3));
    gp_result_free(res);
    return EXIT_OK;
}
