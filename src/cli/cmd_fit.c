/* cmd_fit.c: `gpuplan fit`: memory per GPU, and one GPU or several, and why. */
#include "cli.h"

#include <string.h>

static json_t *memory_json(const gp_memory *m)
{
    json_t *c = json_pack("{sI sI sI sI sI sI}", "weights", (json_int_t)m->weights, "kv_cache",
                          (json_int_t)m->kv_cache, "activations", (json_int_t)m->activations, "gradients",
                          (json_int_t)m->gradients, "optimizer", (json_int_t)m->optimizer, "overhead",
                          (json_int_t)m->overhead);
    return json_pack("{sI sI sI sb so sI}", "per_gpu_bytes", (json_int_t)m->per_gpu, "capacity_bytes",
                     (json_int_t)m->capacity, "headroom_bytes", (json_int_t)m->headroom, "fits", m->fits,
                     "components", c, "cpu_offload_bytes", (json_int_t)m->cpu_offload);
}

static json_t *layout_json(const gp_layout *l)
{
    return json_pack("{si si si si si si sb sI sI ss si}", "tp", l->tp, "pp", l->pp, "dp", l->dp, "cp", l->cp,
                     "ep", l->ep, "zero", l->zero, "sequence_parallel", l->sequence_parallel, "micro_batch",
                     (json_int_t)l->micro_batch, "global_batch", (json_int_t)l->global_batch, "recompute",
                     gp_recompute_name(l->recompute), "gpus", gp_layout_gpus(l));
}

static json_t *kv_json(const gp_memory *m)
{
    return json_pack("{sI sI sI sf sI}", "bytes", (json_int_t)m->kv_cache_bytes, "tokens", (json_int_t)m->kv_tokens,
                     "blocks", (json_int_t)m->kv_blocks, "max_concurrency", m->max_concurrency,
                     "engine_budget_bytes", (json_int_t)m->engine_budget);
}

/* "    name          12.34 GB  " with the name padded by characters (UTF-8), the number by locale */
static void bar_label(const char *name, uint64_t bytes, const char *lang)
{
    char b[64];
    int chars = 0;
    for (const char *p = name; *p; p++)
        chars += ((unsigned char)*p & 0xC0) != 0x80;
    printf("    %s%*s %9s GB  ", name, chars < 12 ? 12 - chars : 0, "", gp_format_number(b, sizeof b, (double)bytes / 1e9, 2, lang));
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
    static const struct option opts[] = {CLI_COMMON_OPTS, CLI_MODEL_OPTS, CLI_WORKLOAD_OPTS,
                                         {"lang", required_argument, NULL, 6001}, {0, 0, 0, 0}};
    const char *lang = "en";
    cli_model_opts mo;
    cli_workload_opts wo;
    cli_model_opts_init(&mo);
    cli_workload_opts_init(&wo);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:g:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s%s%s  --lang L             en (default), pt-BR: the verdict's reasons and the text\n"
                   "  --json               machine-readable output\n", fit_help, cli_model_help, cli_workload_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
        if (c == 6001) { /* the reasons and the text in en or pt-BR */
            if (strcmp(optarg, "en") && strcmp(optarg, "pt-BR"))
                return cli_usage_error(common, "fit", "--lang takes en or pt-BR, not '%s'", optarg);
            lang = optarg;
            continue;
        }
        int r = cli_model_opt(common, "fit", c, optarg, &mo);
        if (r == 0)
            r = cli_workload_opt(common, "fit", c, optarg, &wo);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return cli_usage_error(common, "fit", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error(common, "fit", "unexpected argument '%s'", argv[optind]);
    gp_model m;
    gp_catalog *cat;
    const gp_gpu *gpu;
    int rc = cli_model_and_gpu("fit", &mo, wo.gpu, common, &m, &cat, &gpu);
    if (rc)
        return rc;
    gp_error err;
    if (wo.w.task != GP_TASK_INFER && wo.given.micro_batch == 0)
        wo.given.micro_batch = 1;
    gp_fit_result r;
    if (gp_fit(cat, &m, gpu, &wo.w, &wo.given, &r, &err) != GP_OK)
        return cli_error(common, &err);
    gp_fit_set_lang(&r, lang);

    if (common->json) {
        json_t *reasons = json_array();
        for (int i = 0; i < r.n_reasons; i++)
            json_array_append_new(reasons, json_pack("{ss ss}", "code", gp_reason_name(r.reasons[i].code),
                                                     "message", r.reasons[i].message));
        json_t *larger = json_array();
        for (int i = 0; i < r.n_larger; i++)
            json_array_append_new(larger, json_pack("{ss sI}", "gpu", r.larger[i], "capacity_bytes",
                                                    (json_int_t)r.larger_capacity[i]));
        /* "fits": the job as asked (one GPU unless a layout is given); "layout_found": some layout does */
        json_t *verdict = json_pack("{sb sb si so* so sI sI so}", "fits", r.asked_fits, "single_gpu_sufficient",
                                    r.single_gpu_sufficient, "min_gpus", r.min_gpus, "min_layout",
                                    r.fits ? layout_json(&r.min_layout) : NULL, "reasons", reasons, "max_context",
                                    (json_int_t)r.max_context, "max_batch", (json_int_t)r.max_batch,
                                    "larger_gpus", larger);
        json_object_set_new(verdict, "layout_found", json_boolean(r.fits));
        json_object_set_new(verdict, "asked_valid", json_boolean(r.asked_valid));
        json_object_set_new(verdict, "context_capped", json_boolean(r.context_capped));
        json_t *lower = json_array();
        for (int i = 0; i < r.n_lower; i++)
            json_array_append_new(lower, json_pack("{ss sI}", "dtype", gp_dtype_name(r.lower[i]), "per_gpu_bytes",
                                                   (json_int_t)r.lower_bytes[i]));
        json_object_set_new(verdict, "lower_precisions_fit_one_gpu", lower);
        json_t *o = json_pack("{ss ss ss ss ss so so so so}", "model", m.id, "gpu", gpu->id, "task",
                              gp_task_name(wo.w.task), "dtype",
                              gp_dtype_name(wo.w.dtype != GP_DTYPE_UNKNOWN ? wo.w.dtype : m.dtype), "engine",
                              gp_engine_name(wo.w.engine), "layout", layout_json(&r.asked), "memory",
                              memory_json(&r.asked_memory), "verdict", verdict, "kv_cache", kv_json(&r.asked_memory));
        if (r.fits)
            json_object_set_new(o, "recommended", json_pack("{so so so}", "layout", layout_json(&r.min_layout),
                                                            "memory", memory_json(&r.min_memory), "kv_cache",
                                                            kv_json(&r.min_memory)));
        return cli_print_json(common, o);
    }

    char a[64], b[64], title[256], n[4][24];
    const char *dt = gp_dtype_name(wo.w.dtype != GP_DTYPE_UNKNOWN ? wo.w.dtype : (m.quant ? m.quant : m.dtype));
    if (wo.w.task == GP_TASK_INFER)
        gp_text(title, sizeof title, "fit.head_infer", lang,
                (const char *const[]){m.name, gpu->id, gp_format_number(a, sizeof a, (double)wo.w.batch, 0, lang),
                                      gp_format_number(b, sizeof b, (double)wo.w.context, 0, lang), dt}, 5);
    else {
        snprintf(n[0], sizeof n[0], "%lld", (long long)(wo.given.micro_batch ? wo.given.micro_batch : 1));
        gp_text(title, sizeof title, "fit.head_train", lang,
                (const char *const[]){m.name, gpu->id, gp_task_name(wo.w.task),
                                      gp_format_number(a, sizeof a, (double)wo.w.seq, 0, lang), n[0],
                                      gp_optimizer_name(wo.w.optimizer), dt}, 7);
    }
    printf("%s\n\n", title);
    snprintf(n[0], sizeof n[0], "%d", r.asked.tp);
    snprintf(n[1], sizeof n[1], "%d", r.asked.pp);
    snprintf(n[2], sizeof n[2], "%d", r.asked.dp);
    gp_text(title, sizeof title, "fit.asked_layout", lang, (const char *const[]){n[0], n[1], n[2], r.asked.zero ? ", ZeRO" : ""}, 4);
    print_memory(title, &r.asked_memory, &wo.w, lang);
    printf("\n%s\n", gp_text(title, sizeof title, r.single_gpu_sufficient ? "fit.verdict_one" :
                                                   r.fits ? "fit.verdict_several" : "fit.verdict_none", lang, NULL, 0));
    for (int i = 0; i < r.n_reasons; i++)
        printf("  - [%s] %s\n", gp_reason_name(r.reasons[i].code), r.reasons[i].message);
    if (r.fits && (r.min_gpus > 1 || gp_layout_gpus(&r.asked) != 1)) {
        printf("\n");
        const int v[6] = {r.min_gpus, 0, r.min_layout.tp, r.min_layout.pp, r.min_layout.dp, r.min_layout.zero};
        char s6[6][24];
        for (int i = 0; i < 6; i++)
            snprintf(s6[i], sizeof s6[i], "%d", v[i]);
        gp_text(title, sizeof title, "fit.smallest_setup", lang,
                (const char *const[]){s6[0], gpu->id, s6[2], s6[3], s6[4], s6[5]}, 6);
        print_memory(title, &r.min_memory, &wo.w, lang);
    }
    if (r.fits && wo.w.task == GP_TASK_INFER)
        printf("\n%s\n", gp_text(title, sizeof title, "fit.on_setup", lang,
                                 (const char *const[]){gp_format_number(a, sizeof a, (double)r.max_batch, 0, lang),
                                                       gp_format_number(b, sizeof b, (double)wo.w.context, 0, lang),
                                                       gp_format_number(n[3], sizeof n[3], (double)r.max_context, 0, lang)}, 3));
    return EXIT_OK;
}
