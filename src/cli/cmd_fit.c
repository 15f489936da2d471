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
    printf("%s: %.1f GB per GPU of %.1f GB (%s)\n", title, (double)m->per_gpu / 1e9,
           (double)m->capacity / 1e9, m->fits ? "fits" : "does NOT fit");
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
    static const struct option opts[] = {CLI_COMMON_OPTS, CLI_MODEL_OPTS, CLI_WORKLOAD_OPTS, {0, 0, 0, 0}};
    cli_model_opts mo;
    cli_workload_opts wo;
    cli_model_opts_init(&mo);
    cli_workload_opts_init(&wo);
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:g:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s%s%s  --json               machine-readable output\n", fit_help, cli_model_help, cli_workload_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
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

    char a[64], b[64];
    printf("%s on %s: %s", m.name, gpu->id, gp_task_name(wo.w.task));
    if (wo.w.task == GP_TASK_INFER)
        printf(", %s x %s-token sequences", cli_fmt_count(a, sizeof a, wo.w.batch), cli_fmt_count(b, sizeof b, wo.w.context));
    else
        printf(", %s-token sequences, micro-batch %lld, %s", cli_fmt_count(a, sizeof a, wo.w.seq),
               (long long)(wo.given.micro_batch ? wo.given.micro_batch : 1), gp_optimizer_name(wo.w.optimizer));
    printf(", weights %s\n\n", gp_dtype_name(wo.w.dtype != GP_DTYPE_UNKNOWN ? wo.w.dtype
                                             : (m.quant ? m.quant : m.dtype)));
    char title[128];
    snprintf(title, sizeof title, "Asked layout (TP %d, PP %d, DP %d%s)", r.asked.tp, r.asked.pp, r.asked.dp,
             r.asked.zero ? ", ZeRO" : "");
    print_memory(title, &r.asked_memory, &wo.w);
    printf("\nVerdict: %s\n", r.single_gpu_sufficient ? "ONE GPU is enough." :
                              r.fits ? "one GPU is NOT enough." : "no layout fits.");
    for (int i = 0; i < r.n_reasons; i++)
        printf("  - [%s] %s\n", gp_reason_name(r.reasons[i].code), r.reasons[i].message);
    if (r.fits && (r.min_gpus > 1 || gp_layout_gpus(&r.asked) != 1)) {
        printf("\n");
        snprintf(title, sizeof title, "Smallest setup: %d x %s (TP %d, PP %d, DP %d, ZeRO-%d)", r.min_gpus, gpu->id,
                 r.min_layout.tp, r.min_layout.pp, r.min_layout.dp, r.min_layout.zero);
        print_memory(title, &r.min_memory, &wo.w);
    }
    if (r.fits && wo.w.task == GP_TASK_INFER)
        printf("\nOn that setup: up to %s concurrent %s-token sequences, or one sequence of up to %s tokens.\n",
               cli_fmt_count(a, sizeof a, r.max_batch), cli_fmt_count(b, sizeof b, wo.w.context),
               cli_fmt_count(title, sizeof title, r.max_context));
    return EXIT_OK;
}
