/*
 * bench_serve_cases.c: the serving step model and simulator (on the measured rates of
 * data/kernels.json, as the capacity search runs them) against published throughput
 * measurements: validation/serve_trtllm.jsonl, serve_amd_mi300x.jsonl, the TensorRT-LLM rows
 * of public.jsonl, and the SGLang multi-node decode rows. A working tool, not the project's
 * validation harness (tools/validate/ is): it prints each case and the error per group
 * (source, precision, MoE vs dense) as median |error|, p90 |error| and median signed error.
 *
 * Mappings (docs/serving.md, "Validation"):
 *  - trtllm-bench (throughput, infinite rate): a burst of the perf-overview's request count per
 *    ISL/OSL on one replica, fixed lengths, TensorRT-LLM scheduler and KV rules, FP8 KV;
 *    attention DP with tp = t, ep = e becomes tp 1 x dp t (the MoE layers over ep); output
 *    tokens / makespan, x dp ranks.
 *  - AMD vLLM (ROCm) offline throughput: a burst of num_prompts, fixed lengths, vLLM rules,
 *    max_num_seqs as given; the page's "Throughput (tokens/s)" is compared with output tokens/s
 *    (SOURCES.md: whether input tokens count is not stated).
 * Usage: bench_serve_cases [--verbose] FILE.jsonl...
 */
#include "gpuplan.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS 2048
#define MAX_GROUPS 64

typedef struct row {
    char group[96];
    double err; /* predicted / measured - 1 */
} row;

static row rows[MAX_ROWS];
static int n_rows;

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static int has(const char *s, const char *sub) { return s && sub && strstr(s, sub) != NULL; }

/* requests per ISL/OSL of trtllm-bench (perf-overview "Reproducing" table) */
static int64_t trtllm_requests(int64_t isl, int64_t osl)
{
    if (isl + osl <= 256)
        return 30000;
    if (isl >= 20000)
        return 1000;
    if (isl + osl > 4000 || osl >= 4096 || (isl >= 1000 && osl >= 2000))
        return 1500;
    return 3000;
}

static int map_model(const gp_catalog *cat, json_t *mj, gp_model *m)
{
    const char *preset = json_string_value(json_object_get(mj, "preset"));
    const char *name = json_string_value(json_object_get(mj, "name"));
    static const struct { const char *pattern, *id; } maps[] = {
        {"Llama 3.3 70B", "llama-3.3-70b"},   {"Llama 3.1 405B", "llama-3.1-405b"}, {"Llama 3.1 70B", "llama-3.1-70b"},
        {"Llama 3.1 8B", "llama-3.1-8b"},     {"Llama-3.1-405B", "llama-3.1-405b"}, {"Llama-3.1-70B", "llama-3.1-70b"},
        {"Llama-3.1-8B", "llama-3.1-8b"},
    };
    if (preset && gp_catalog_find_model(cat, preset, m, NULL) == GP_OK)
        return 1;
    for (size_t i = 0; name && i < sizeof maps / sizeof maps[0]; i++)
        if (has(name, maps[i].pattern))
            return gp_catalog_find_model(cat, maps[i].id, m, NULL) == GP_OK;
    return 0;
}

static const gp_gpu *map_gpu(const gp_catalog *cat, const char *g)
{
    static const struct { const char *pattern, *id; } maps[] = {
        {"H200", "H200-SXM-141GB"}, {"H100", "H100-SXM-80GB"}, {"GB200", "GB200"}, {"B200", "B200"},
        {"RTX-PRO-6000", "RTX-PRO-6000"}, {"MI300X", "MI300X"}, {"GB300", "GB300"},
    };
    const gp_gpu *out = NULL;
    for (size_t i = 0; g && i < sizeof maps / sizeof maps[0]; i++)
        if (has(g, maps[i].pattern))
            return gp_catalog_find_gpu(cat, maps[i].id, &out, NULL) == GP_OK ? out : NULL;
    return NULL;
}

static gp_dtype map_precision(const char *p)
{
    if (has(p, "nvfp4") || has(p, "FP4"))
        return GP_DTYPE_FP4;
    if (has(p, "mxfp4"))
        return GP_DTYPE_MXFP4;
    return GP_DTYPE_FP8;
}

/* Output tokens/s of a burst on one replica (one attention-DP rank, times dp). */
static double simulate(const gp_catalog *cat, const gp_model *m, const gp_gpu *g, const gp_workload *w,
                       const gp_layout *l, int64_t requests, int64_t isl, int64_t osl, int64_t max_seqs)
{
    gp_sched_config sc;
    gp_step_model sm;
    gp_error err;
    gp_engine_profile prof;
    gp_perf_params pp;
    if (gp_engine_profile_get(cat, w->engine, g, l->tp, &prof, &err) != GP_OK)
        return NAN;
    gp_perf_params_defaults(&pp, w->engine);
    pp.step_overhead_s = prof.step_overhead_s;
    pp.seq_overhead_s = prof.seq_overhead_s;
    if (gp_serve_sched_config_profile(m, g, w, l, isl + osl, &prof, &sc, &err) != GP_OK)
        return NAN;
    if (max_seqs > 0)
        sc.max_num_seqs = max_seqs;
    if (gp_step_model_init_nodes(m, g, NULL, NULL, w, l, &pp, &sm, &err) != GP_OK)
        return NAN;
    gp_step_model_use_rates(&sm, cat, g, NULL);
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_BURST;
    t.seed = 1;
    t.requests = requests / l->dp > 0 ? requests / l->dp : 1;
    t.prompt.mean = (double)isl;
    t.output.mean = (double)osl;
    gp_sim_result r;
    if (gp_simulate(&sm, &sc, &t, NULL, &r, &err) != GP_OK)
        return NAN;
    return r.output_tokens_per_s * l->dp;
}

static void add(const char *id, const char *group, double meas, double pred, int verbose)
{
    if (isnan(pred) || !(meas > 0) || n_rows >= MAX_ROWS)
        return;
    row *r = &rows[n_rows++];
    snprintf(r->group, sizeof r->group, "%s", group);
    r->err = pred / meas - 1.0;
    if (verbose)
        printf("%-60s %-34s meas %9.0f pred %9.0f %+6.1f%%\n", id, group, meas, pred, 100 * r->err);
}

static void case_one(const gp_catalog *cat, json_t *c, const char *file, int verbose)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    json_t *set = json_object_get(c, "settings"), *meas = json_object_get(c, "measured");
    json_t *par = json_object_get(c, "parallel"), *mj = json_object_get(c, "model");
    const char *engine = json_string_value(json_object_get(set, "engine"));
    gp_model m;
    const gp_gpu *g = map_gpu(cat, json_string_value(json_object_get(json_object_get(c, "hardware"), "gpu")));
    if (!id || !g || !engine || !map_model(cat, mj, &m))
        return;
    int64_t isl = (int64_t)num(set, "isl"), osl = (int64_t)num(set, "osl");
    if (isl <= 0 || osl <= 0)
        return;
    gp_workload w;
    gp_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gp_layout_defaults(&l);
    double tp = num(par, "tp"), pp = num(par, "pp"), ep = num(par, "ep");
    l.tp = tp > 0 ? (int)tp : 1;
    l.pp = pp > 0 ? (int)pp : 1;
    l.ep = ep > 0 ? (int)ep : 1;
    l.dp = 1;
    if (json_is_true(json_object_get(par, "attention_dp")) && l.ep > 1) {
        l.dp = l.tp; /* attention DP over the TP ranks, experts spread over them */
        l.tp = 1;
    }
    const char *prec = json_string_value(json_object_get(set, "precision"));
    w.dtype = map_precision(prec ? prec : "fp8");
    w.kv_dtype = GP_DTYPE_FP8;
    int moe = m.experts > 0;
    char group[96];
    if (has(engine, "TensorRT-LLM")) {
        double mt = num(meas, "total_output_tokens_per_sec");
        w.engine = GP_ENGINE_TRTLLM;
        snprintf(group, sizeof group, "%s %s %s", has(file, "public") ? "trtllm-public" : "trtllm-v1",
                 gp_dtype_name(w.dtype), moe ? "moe" : "dense");
        add(id, group, mt, simulate(cat, &m, g, &w, &l, trtllm_requests(isl, osl), isl, osl, 0), verbose);
    } else if (has(engine, "vLLM") && has(id, "amd-")) {
        double mt = num(meas, "throughput_tokens_per_sec");
        w.engine = GP_ENGINE_VLLM;
        int64_t n = (int64_t)num(set, "num_prompts");
        double ms = num(set, "max_num_seqs");
        snprintf(group, sizeof group, "amd-vllm %s %s", gp_dtype_name(w.dtype), moe ? "moe" : "dense");
        add(id, group, mt, simulate(cat, &m, g, &w, &l, n > 0 ? n : 1000, isl, osl, ms > 0 ? (int64_t)ms : 0), verbose);
    }
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    double k = p * (n - 1);
    int i = (int)k;
    return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (k - i) : v[n - 1];
}

static void summary(const char *name, int (*in)(const row *, const char *), const char *key)
{
    static double a[MAX_ROWS], s[MAX_ROWS];
    int n = 0;
    for (int i = 0; i < n_rows; i++)
        if (in(&rows[i], key)) {
            a[n] = fabs(rows[i].err);
            s[n++] = rows[i].err;
        }
    if (n)
        printf("%-36s %4d  median %5.1f%%  p90 %5.1f%%  signed %+6.1f%%\n", name, n, 100 * pct(a, n, 0.5),
               100 * pct(a, n, 0.9), 100 * pct(s, n, 0.5));
}

static int in_group(const row *r, const char *k) { return strcmp(r->group, k) == 0; }
static int in_word(const row *r, const char *k) { return k[0] == '\0' || strstr(r->group, k) != NULL; }

int main(int argc, char **argv)
{
    gp_catalog *cat;
    gp_error err;
    int verbose = 0;
    if (gp_catalog_open(NULL, &cat, &err)) {
        fprintf(stderr, "bench_serve_cases: %s\n", err.msg);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--verbose")) {
            verbose = 1;
            continue;
        }
        json_error_t je;
        FILE *f = fopen(argv[i], "r");
        char line[16384];
        while (f && fgets(line, sizeof line, f)) {
            json_t *c = json_loads(line, 0, &je);
            if (c && !strcmp(json_string_value(json_object_get(c, "category")) ? json_string_value(json_object_get(c, "category")) : "", "infer_throughput"))
                case_one(cat, c, argv[i], verbose);
            json_decref(c);
        }
        if (f)
            fclose(f);
    }
    char seen[MAX_GROUPS][96];
    int ns = 0;
    for (int i = 0; i < n_rows; i++) {
        int k = 0;
        while (k < ns && strcmp(seen[k], rows[i].group))
            k++;
        if (k == ns && ns < MAX_GROUPS)
            memcpy(seen[ns++], rows[i].group, sizeof rows[i].group);
    }
    for (int k = 0; k < ns; k++)
        summary(seen[k], in_group, seen[k]);
    static const char *const words[] = {"trtllm-public", "trtllm-v1", "amd-vllm", "bf16", "fp8", "fp4", "mxfp4", " moe", "dense"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        summary(words[k], in_word, words[k]);
    summary("all", in_word, "");
    gp_catalog_free(cat);
    return 0;
}
