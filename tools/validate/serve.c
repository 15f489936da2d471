/*
 * validate_serve.c: infer_throughput cases (validation/(name).jsonl) against the step
 * model and the serving simulator. docs/serving.md ("Validation") explains each mapping:
 *  - TensorRT-LLM perf tables: trtllm-bench at an infinite request rate, fixed ISL/OSL,
 *    FP8 ModelOpt checkpoints: a burst of requests on one replica, throughput = output tokens
 *    / makespan;
 *  - Lambda's vLLM 0.5.4 TP table: benchmark_serving.py, 320 ShareGPT prompts at an infinite
 *    rate, max_model_len 2000;
 *  - FasterTransformer (kipply): batch-1 prefill latency and decode latency per token.
 * Cases whose GPU is not stated (Lambda's "v0.5.4 vs v0.6.0" section) are left out.
 */
#include "serve_cases.h"
#include "validate.h"

#include <string.h>

/* vLLM 0.5's per-step overhead: its Python scheduler, input preparation and sampler ran on
 * the critical path between GPU steps (the v0.6.0 release blog, "vLLM v0.6.0: 2.7x
 * Throughput Improvement and 5x Latency Reduction", measured this CPU overhead as the main
 * cost): a fixed part per step and a part per running sequence. Fitted on the Llama-3.1-70B
 * rows of Lambda's table, A100 and H100 (docs/serving.md, "Calibration"); refitted per fold
 * by leave-one-source-out (loso.c). */
#define GP_VLLM_V05_STEP_OVERHEAD_S 0.010
#define GP_VLLM_V05_SEQ_OVERHEAD_S 0.0002

/* The shipped shares of the measured GEMM rate a serving step reaches (src/lib/perf/infer.c,
 * GP_SERVE_GEMM_FRACTION and GP_SERVE_GEMM_FRACTION_FP4; gp_perf_params.gemm_fraction 0
 * selects them). The harness passes 0 while a fit holds these values, so the shipped
 * prediction is the library's own; they are repeated here only as the fit's starting point. */
#define GPV_GEMM_FRACTION 0.75
#define GPV_GEMM_FRACTION_FP4 0.42

/* The fitted constants of the serving model on the measured rates (data/kernels.json), as the
 * harness varies them (serve_params): the GEMM fraction per format as infer.c defines them
 * (NVFP4 / MXFP4, every other format) and the engines' step overheads. */
enum { SP_GEMM_FRAC, SP_GEMM_FRAC_FP4, SP_TRTLLM_STEP, SP_V05_STEP, SP_V05_SEQ, SP_COUNT };
/* ShareGPT as sampled by vLLM's benchmark_serving.py (prompts of 4..1024 tokens, prompt +
 * output <= 2048): mean lengths of the 320 prompts in Lambda's result file
 * results/prompt_320/1xH100-80GB-SXM/Mistral-7B-Instruct-v0.3_tp1_len2000.json
 * (total_input_tokens 73,671 and total_output_tokens 71,810 over 320 requests). Lengths are
 * drawn exponential with these means; the dataset's own lengths are not in the case. */
#define GP_SHAREGPT_MEAN_PROMPT (73671.0 / 320.0)
#define GP_SHAREGPT_MEAN_OUTPUT (71810.0 / 320.0)
#define GP_SHAREGPT_MAX_PROMPT 1024
#define GP_SHAREGPT_MAX_OUTPUT 1024
/* LambdaLabsML/vllm-benchmark benchmark.py: --gpu-memory-utilization 0.95, --max-num-seqs
 * 1024 passed to the server. */
#define GP_LAMBDA_GPU_UTIL 0.95
#define GP_LAMBDA_MAX_SEQS 1024
/* vLLM 0.5 without chunked prefill batches prompts up to max(max_model_len, 2048) tokens. */
#define GP_VLLM_V05_BATCHED_TOKENS 2048
/* Model names in these cases that the table of map.c does not map. */
static int map_model(const gp_catalog *cat, json_t *c, gp_model *m)
{
    if (gpv_serve_model(cat, json_object_get(c, "model"), m))
        return 1; /* model.preset, as bench/bench_serve_cases.c reads it */
    const char *name = json_string_value(json_object_get(json_object_get(c, "model"), "name"));
    static const struct { const char *pattern, *id; } maps[] = {
        {"Llama 3.3 70B", "llama-3.3-70b"},           {"Llama-3.1-405B", "llama-3.1-405b"},
        {"Llama-3.1-70B", "llama-3.1-70b"},           {"Llama-3.1-8B", "llama-3.1-8b"},
        {"Mistral-7B", "mistral-7b-v0.1"}, /* v0.3: same blocks, vocab 32,768 vs 32,000 */
    };
    for (size_t i = 0; name && i < sizeof maps / sizeof maps[0]; i++)
        if (vcontains(name, maps[i].pattern))
            return gp_catalog_find_model(cat, maps[i].id, m, NULL) == GP_OK;
    if (name && vcontains(name, "13B GPT-style")) {
        /* llm-analysis examples test-13b.json (kipply's benchmark model): GPT-style, 40 layers,
         * d 5120, 40 heads, MLP 4d, GPT-2 vocabulary, fp16 */
        memset(m, 0, sizeof *m);
        m->layers = 40;
        m->hidden = 5120;
        m->heads = m->kv_heads = 40;
        m->head_dim = 128;
        m->ffn = 4 * 5120;
        m->vocab = 50257;
        m->mlp = GP_MLP_PLAIN;
        m->norm = GP_NORM_LAYER;
        m->norms_per_layer = 2;
        m->dtype = GP_DTYPE_F16;
        snprintf(m->id, sizeof m->id, "gpt-13b-test");
        return gp_model_validate(m, NULL) == GP_OK;
    }
    return vmap_model(cat, c, m);
}

static const gp_gpu *map_gpu(const gp_catalog *cat, json_t *c)
{
    const char *g = json_string_value(json_object_get(json_object_get(c, "hardware"), "gpu"));
    const gp_gpu *out = NULL;
    if (g && vcontains(g, "H200 SXM"))
        return gp_catalog_find_gpu(cat, "H200-SXM-141GB", &out, NULL) == GP_OK ? out : NULL;
    if (g && vcontains(g, "A100-40GB"))
        return gp_catalog_find_gpu(cat, "A100-SXM-40GB", &out, NULL) == GP_OK ? out : NULL;
    if (g && vcontains(g, "not stated"))
        return NULL;
    const gp_gpu *v = vmap_gpu(cat, c);
    return v ? v : gpv_serve_gpu(cat, g);
}

/* The step model as the product builds it (src/lib/run/serve.c, src/lib/serving/capacity.c):
 * the peak model, then the measured rates of data/kernels.json in place of its efficiencies. */
static gp_status step_model(const gp_catalog *cat, const gp_model *m, const gp_gpu *g, const gp_workload *w,
                            const gp_layout *l, const gp_perf_params *pp, gp_step_model *sm)
{
    gp_status st = gp_step_model_init_nodes(m, g, NULL, NULL, w, l, pp, sm, NULL);
    if (st == GP_OK)
        gp_step_model_use_rates(sm, cat, g, NULL);
    return st;
}

static double simulate_throughput(const gp_catalog *cat, const gp_model *m, const gp_gpu *g, const gp_workload *w, const gp_layout *l,
                                  const gp_perf_params *pp, const gp_traffic *t, int64_t maxlen, int64_t max_seqs)
{
    gp_sched_config sc;
    if (gp_serve_sched_config(m, g, w, l, maxlen, &sc, NULL) != GP_OK)
        return NAN;
    if (max_seqs > 0)
        sc.max_num_seqs = max_seqs;
    gp_step_model sm; /* TP stays inside the NVLink domain in every case */
    if (step_model(cat, m, g, w, l, pp, &sm) != GP_OK)
        return NAN;
    gp_sim_result r;
    if (gp_simulate(&sm, &sc, t, NULL, &r, NULL) != GP_OK)
        return NAN;
    return r.output_tokens_per_s;
}

/* One case's mapping: model, GPU, layout and the traffic of a burst. */
typedef struct serve_case {
    const gp_catalog *cat;
    json_t *c, *set, *meas;
    const char *id, *name, *engine;
    gp_model m;
    const gp_gpu *g;
    gp_workload w;
    gp_layout l;
    gp_traffic t;
} serve_case;

static int is_fp4(gp_dtype d) { return d == GP_DTYPE_FP4 || d == GP_DTYPE_MXFP4; }

/* The library's serving constants for an engine and GEMM precision, with the harness's
 * parameters in place (the GEMM fraction of the case's format; 0 = the shipped one). */
static void perf_params(gp_engine engine, gp_dtype gemm, const double *v, gp_perf_params *pp)
{
    gp_perf_params_defaults(pp, engine);
    int i = is_fp4(gemm) ? SP_GEMM_FRAC_FP4 : SP_GEMM_FRAC;
    double shipped = i == SP_GEMM_FRAC_FP4 ? GPV_GEMM_FRACTION_FP4 : GPV_GEMM_FRACTION;
    pp->gemm_fraction = fabs(v[i] - shipped) < 1e-9 ? 0.0 : v[i];
    if (engine == GP_ENGINE_TRTLLM)
        pp->step_overhead_s = v[SP_TRTLLM_STEP];
}

/* TensorRT-LLM perf-overview rows: trtllm-bench at an infinite rate, fixed ISL/OSL; the
 * measured figure is the whole GPU group's (serve_cases.h: attention DP runs dp replicas). */
static void trtllm_row(serve_case *sc, const double *v, vrows *rs)
{
    int64_t isl = (int64_t)vnum(sc->set, "isl"), osl = (int64_t)vnum(sc->set, "osl");
    double meas_tps = vnum(sc->meas, "total_output_tokens_per_sec");
    if (isl <= 0 || osl <= 0 || isnan(meas_tps))
        return;
    sc->w.engine = GP_ENGINE_TRTLLM;
    /* ModelOpt checkpoints: W8A8 FP8 GEMMs unless settings.precision says FP4 */
    sc->w.dtype = gpv_serve_precision(json_string_value(json_object_get(sc->set, "precision")));
    sc->w.kv_dtype = GP_DTYPE_FP8; /* and their FP8 KV cache */
    gpv_serve_layout(json_object_get(sc->c, "parallel"), &sc->l);
    gp_perf_params pp;
    perf_params(sc->w.engine, sc->w.dtype, v, &pp);
    int64_t n = gpv_trtllm_requests(isl, osl) / sc->l.dp;
    sc->t.requests = n > 0 ? n : 1;
    sc->t.prompt.mean = (double)isl;
    sc->t.output.mean = (double)osl;
    double pred = simulate_throughput(sc->cat, &sc->m, sc->g, &sc->w, &sc->l, &pp, &sc->t, isl + osl, 0) * sc->l.dp;
    if (!isnan(pred))
        vadd(rs, sc->c, "output tokens/s (trtllm-bench)", meas_tps, pred, "tok/s");
}

/* Lambda's vLLM 0.5.4 TP table: 320 ShareGPT prompts at an infinite rate. */
static void lambda_row(serve_case *sc, const double *v, vrows *rs)
{
    double meas_tps = vnum(sc->meas, "output_tokens_per_sec");
    if (isnan(meas_tps))
        return;
    sc->w.engine = GP_ENGINE_VLLM;
    sc->w.dtype = sc->name && vcontains(sc->name, "FP8") ? GP_DTYPE_FP8 : GP_DTYPE_BF16;
    sc->w.kv_dtype = GP_DTYPE_BF16;
    sc->w.gpu_memory_utilization = GP_LAMBDA_GPU_UTIL;
    sc->w.max_num_batched_tokens = GP_VLLM_V05_BATCHED_TOKENS;
    gp_perf_params pp;
    perf_params(sc->w.engine, sc->w.dtype, v, &pp);
    pp.step_overhead_s = v[SP_V05_STEP];
    pp.seq_overhead_s = v[SP_V05_SEQ];
    gp_traffic *t = &sc->t;
    t->requests = (int64_t)vnum(sc->set, "num_prompts");
    if (t->requests <= 0)
        t->requests = 320;
    t->prompt.dist = t->output.dist = GP_LENGTH_EXPONENTIAL;
    t->prompt.mean = GP_SHAREGPT_MEAN_PROMPT;
    t->prompt.min = 4;
    t->prompt.max = GP_SHAREGPT_MAX_PROMPT;
    t->output.mean = GP_SHAREGPT_MEAN_OUTPUT;
    t->output.min = 1;
    t->output.max = GP_SHAREGPT_MAX_OUTPUT;
    double pred = simulate_throughput(sc->cat, &sc->m, sc->g, &sc->w, &sc->l, &pp, t, 2000, GP_LAMBDA_MAX_SEQS);
    if (!isnan(pred))
        vadd(rs, sc->c, "output tokens/s (vLLM ShareGPT)", meas_tps, pred, "tok/s");
}

/* FasterTransformer (kipply): batch-1 prefill latency and decode latency per token. */
static void fastertransformer_row(serve_case *sc, const double *v, vrows *rs)
{
    double ctx = vnum(sc->set, "context_len");
    if (isnan(ctx))
        return;
    sc->w.engine = GP_ENGINE_TRTLLM; /* FasterTransformer: the C++ runtime TRT-LLM grew from */
    sc->w.dtype = GP_DTYPE_F16;
    gp_step_model sm;
    gp_perf_params pp;
    perf_params(sc->w.engine, sc->w.dtype, v, &pp);
    if (step_model(sc->cat, &sc->m, sc->g, &sc->w, &sc->l, &pp, &sm) != GP_OK)
        return;
    gp_batch_shape b;
    gp_batch_prefill(&b, ctx);
    if (!isnan(vnum(sc->meas, "prefill_latency_ms")))
        vadd(rs, sc->c, "prefill latency, batch 1 (ms)", vnum(sc->meas, "prefill_latency_ms"),
             gp_step_time(&sm, &b, NULL) * 1e3, "ms");
    gp_batch_decode(&b, 1, ctx + vnum(sc->set, "generated_tokens") / 2.0);
    if (!isnan(vnum(sc->meas, "decode_latency_ms_per_token")))
        vadd(rs, sc->c, "decode tokens/s, batch 1", 1e3 / vnum(sc->meas, "decode_latency_ms_per_token"),
             1.0 / gp_step_time(&sm, &b, NULL), "tok/s");
}

static int is_lambda(const char *engine, const char *id)
{
    return engine && vcontains(engine, "vLLM") && vcontains(id, "lambda-vllm-tp-");
}

static void serve_predict(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    serve_case sc;
    memset(&sc, 0, sizeof sc);
    sc.cat = cat;
    sc.c = c;
    sc.id = json_string_value(json_object_get(c, "id"));
    sc.set = json_object_get(c, "settings");
    sc.meas = json_object_get(c, "measured");
    sc.g = map_gpu(cat, c);
    if (!sc.id || !sc.g || !map_model(cat, c, &sc.m))
        return;
    sc.name = json_string_value(json_object_get(json_object_get(c, "model"), "name"));
    sc.engine = json_string_value(json_object_get(sc.set, "engine"));
    gp_workload_defaults(&sc.w, GP_TASK_INFER);
    gp_layout_defaults(&sc.l);
    sc.l.tp = vint(json_object_get(c, "parallel"), "tp", 1);
    sc.t.arrival = GP_ARRIVAL_BURST;
    sc.t.seed = 1;
    if (sc.engine && vcontains(sc.engine, "TensorRT-LLM"))
        trtllm_row(&sc, v, rs);
    else if (is_lambda(sc.engine, sc.id))
        lambda_row(&sc, v, rs);
    else if (sc.engine && vcontains(sc.engine, "FasterTransformer"))
        fastertransformer_row(&sc, v, rs);
}

/* Which parameters a case's prediction reads (the fit's cache keys on these only). */
static unsigned serve_depends(json_t *c)
{
    const char *engine = json_string_value(json_object_get(json_object_get(c, "settings"), "engine"));
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *prec = json_string_value(json_object_get(json_object_get(c, "settings"), "precision"));
    unsigned both = prec && vcontains(prec, "fp4") ? 1u << SP_GEMM_FRAC_FP4 : 1u << SP_GEMM_FRAC;
    return is_lambda(engine, id) ? both | 1u << SP_V05_STEP | 1u << SP_V05_SEQ : both | 1u << SP_TRTLLM_STEP;
}

static void serve_defaults(const gp_catalog *cat, double *v)
{
    (void)cat; /* the serving constants are the library's compiled-in ones */
    gp_perf_params trt;
    gp_perf_params_defaults(&trt, GP_ENGINE_TRTLLM);
    v[SP_GEMM_FRAC] = GPV_GEMM_FRACTION;
    v[SP_GEMM_FRAC_FP4] = GPV_GEMM_FRACTION_FP4;
    v[SP_TRTLLM_STEP] = trt.step_overhead_s;
    v[SP_V05_STEP] = GP_VLLM_V05_STEP_OVERHEAD_S;
    v[SP_V05_SEQ] = GP_VLLM_V05_SEQ_OVERHEAD_S;
}

/* Without a case that reads them, vLLM 0.5's overheads are those of the engine the library
 * models (vLLM >= 0.6: its step overhead, nothing per sequence). */
static void serve_priors(const gp_catalog *cat, double *v)
{
    gp_perf_params vllm;
    gp_perf_params_defaults(&vllm, GP_ENGINE_VLLM);
    serve_defaults(cat, v);
    v[SP_V05_STEP] = vllm.step_overhead_s;
    v[SP_V05_SEQ] = 0.0;
}

/* The grid each fitted constant is searched on (docs/validation.md, "Leave one source out"). */
static const gpv_param serve_params[SP_COUNT] = {
    [SP_GEMM_FRAC] = {"gemm_fraction", "", 0.40, 1.00, 0.05},
    [SP_GEMM_FRAC_FP4] = {"gemm_fraction_fp4", "", 0.22, 0.82, 0.05},
    [SP_TRTLLM_STEP] = {"step_overhead_trtllm", "s", 0.0, 0.002, 0.00025},
    [SP_V05_STEP] = {"step_overhead_vllm_0.5", "s", 0.0, 0.020, 0.001},
    [SP_V05_SEQ] = {"seq_overhead_vllm_0.5", "s", 0.0, 0.0005, 0.00005},
};

const gpv_model gpv_model_infer_throughput = {
    .category = "infer_throughput", .nparams = SP_COUNT, .params = serve_params, .defaults = serve_defaults,
    .priors = serve_priors, .depends = serve_depends, .predict = serve_predict,
};
