/*
 * serve.c: infer_throughput cases (validation/(name).jsonl) against the step model and the
 * serving simulator, on the measured rates of data/kernels.json as the product runs them.
 * docs/serving.md ("Checks against published serving runs") explains each mapping:
 *  - TensorRT-LLM perf-overview tables (trtllm-bench at an infinite rate) and AMD's vLLM
 *    (ROCm) table: serve_cases.c, shared with bench/bench_serve_cases.c;
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
#define GP_VLLM_V05_SEQ_OVERHEAD_S  0.0002
/* The same overheads as measured outside Lambda's table, the prior of a fold without it, from
 * two published profiles of vLLM 0.5.x serving Llama 3 8B on one H100:
 *  - vllm-project/vllm issue #6854 (RFC "Multi-Step Scheduling", 2024-07-26): "5-13ms of GPU
 *    bubble" per decode step waiting for the CPU: 5 ms per step at the smallest batches;
 *  - the v0.6.0 release blog (vLLM blog, 2024-09-05, "Performance Diagnosis", v0.5.3): the
 *    HTTP API server 33% and scheduling 29% of the time, the GPU 38%, so the host's work is
 *    62/38 of the GPU's. At vLLM's default max_num_seqs (256) on ShareGPT lengths the step
 *    model puts that GPU step at 13.8 ms (Llama-3.1-8B, BF16, H100, context 342), so the host's
 *    22.6 ms less the 5 ms floor over 256 sequences: 69 us per sequence (on the grid: 70 us). */
#define GP_VLLM_V05_STEP_PRIOR_S 0.005
#define GP_VLLM_V05_SEQ_PRIOR_S  0.00007

/* The shipped values of the constants the harness fits, repeated from the library as the
 * grid's origin only: at these values the prediction uses the library's own (infer.c
 * GP_SERVE_GEMM_FRACTION and GP_SERVE_FP4_RATIO; data/engines.json step_overhead_ms of trtllm
 * and vllm, seq_overhead_ms of trtllm on x86 hosts). */
#define GPV_GEMM_FRACTION 0.70
#define GPV_FP4_RATIO     0.72
#define GPV_TRTLLM_STEP_S 0.00175
#define GPV_TRTLLM_SEQ_S  0.000025
#define GPV_VLLM_STEP_S   0.0045
/* Priors of constants no other source informs (loso.c): FP4 GEMMs reach the share the other
 * formats reach (ratio 1; B200's measured NVFP4/FP8 kernel ratio, 0.74, was tried as the
 * prior: docs/serving.md section 4 says why it is not); TensorRT-LLM's host work per sequence
 * on an x86 host is the Grace figure of data/engines.json (NVIDIA/TensorRT-LLM pull request
 * #16564, 34 us) scaled by the two hosts' boost clocks, one Python thread's work being serial:
 * Grace 3.44 GHz (MLCommons inference_results_v6.1,
 * closed/Crusoe/systems/GB200-NVL72_GB200-186GB_aarch64x16_Dynamo.json,
 * host_processor_frequency "3.1 GHz base / 3.44 GHz boost"), DGX B200's Xeon Platinum 8570
 * 4.0 GHz (NVIDIA DGX B200 User Guide, "Introduction to NVIDIA DGX B200 Systems": 2.1/4 GHz
 * base/max boost): 34 x 3.44 / 4.0 = 29 us (grid: 30 us), instructions per clock taken equal;
 * vLLM V1's step overhead the assumed 3 ms. */
#define GPV_FP4_RATIO_PRIOR    1.0
#define GPV_VLLM_STEP_PRIOR_S  0.003
#define GPV_TRTLLM_SEQ_PRIOR_S 0.000030

/* The fitted constants of the serving model on the measured rates (data/kernels.json), as the
 * harness varies them (serve_params): the GEMM fraction per format as infer.c defines them
 * (NVFP4 / MXFP4, every other format), the engines' step overheads, TensorRT-LLM's host work
 * per sequence (x86 hosts), and vLLM 0.5's overheads. */
enum { SP_GEMM_FRAC, SP_FP4_RATIO, SP_TRTLLM_STEP, SP_TRTLLM_SEQ, SP_VLLM_STEP, SP_V05_STEP, SP_V05_SEQ, SP_COUNT };
/* ShareGPT as sampled by vLLM's benchmark_serving.py (prompts of 4..1024 tokens, prompt +
 * output <= 2048): mean lengths of the 320 prompts in Lambda's result file
 * results/prompt_320/1xH100-80GB-SXM/Mistral-7B-Instruct-v0.3_tp1_len2000.json
 * (total_input_tokens 73,671 and total_output_tokens 71,810 over 320 requests). Lengths are
 * drawn exponential with these means; the dataset's own lengths are not in the case. */
#define GP_SHAREGPT_MEAN_PROMPT (73671.0 / 320.0)
#define GP_SHAREGPT_MEAN_OUTPUT (71810.0 / 320.0)
#define GP_SHAREGPT_MAX_PROMPT  1024
#define GP_SHAREGPT_MAX_OUTPUT  1024
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
    static const struct {
        const char *pattern, *id;
    } maps[] =
        {
            {"Llama 3.3 70B", "llama-3.3-70b"}, {"Llama-3.1-405B", "llama-3.1-405b"},
            {"Llama-3.1-70B", "llama-3.1-70b"}, {"Llama-3.1-8B", "llama-3.1-8b"},
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
                            const gp_layout *l, const gpi_perf_params *pp, gpi_step_model *sm)
{
    gp_status st = gpi_step_model_init_nodes(m, g, NULL, NULL, w, l, pp, sm, NULL);
    if (st == GP_OK)
        gpi_step_model_use_rates(sm, cat, g, NULL);
    return st;
}

static double simulate_throughput(const gp_catalog *cat, const gp_model *m, const gp_gpu *g, const gp_workload *w,
                                  const gp_layout *l, const gpi_perf_params *pp, const gp_traffic *t, int64_t maxlen,
                                  int64_t max_seqs)
{
    gpi_sched_config sc;
    if (gpi_serve_sched_config(m, g, w, l, maxlen, &sc, NULL) != GP_OK)
        return NAN;
    if (max_seqs > 0)
        sc.max_num_seqs = max_seqs;
    gpi_step_model sm; /* TP stays inside the NVLink domain in every case */
    if (step_model(cat, m, g, w, l, pp, &sm) != GP_OK)
        return NAN;
    gp_sim_result r;
    if (gpi_simulate(&sm, &sc, t, NULL, &r, NULL) != GP_OK)
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

static int is_fp4(gp_dtype d)
{
    return d == GP_DTYPE_FP4 || d == GP_DTYPE_MXFP4;
}

/* v[i] where it moved from its shipped value, else the library's own `lib` (so the shipped
 * prediction is the product's even if this file's copy of a value were stale). */
static double fitted(const double *v, int i, double shipped, double lib)
{
    return fabs(v[i] - shipped) < 1e-12 ? lib : v[i];
}

/* The GEMM fraction of the case's format (0: the shipped one, infer.c's): FP4 GEMMs reach the
 * FP4 ratio of the other formats' share. */
static void gemm_params(gp_dtype gemm, const double *v, gpi_perf_params *pp)
{
    int moved = fabs(v[SP_GEMM_FRAC] - GPV_GEMM_FRACTION) > 1e-12 ||
                (is_fp4(gemm) && fabs(v[SP_FP4_RATIO] - GPV_FP4_RATIO) > 1e-12);
    pp->gemm_fraction = !moved ? 0.0 : v[SP_GEMM_FRAC] * (is_fp4(gemm) ? v[SP_FP4_RATIO] : 1.0);
}

/* The library's constants for an engine and GEMM precision, with the harness's in place
 * (TensorRT-LLM's step overhead as its engine profile has it: FasterTransformer's rows). */
static void perf_params(gp_engine engine, gp_dtype gemm, const double *v, gpi_perf_params *pp)
{
    gpi_perf_params_defaults(pp, engine);
    gemm_params(gemm, v, pp);
    if (engine == GP_ENGINE_TRTLLM)
        pp->step_overhead_s = v[SP_TRTLLM_STEP];
}

/* A run of serve_cases.c (TensorRT-LLM perf overview, AMD vLLM): the product's parameters for
 * its engine and layout, the fitted constants in place. TensorRT-LLM's host work per sequence
 * is fitted on x86 hosts only; the Grace figure of engines.json is measured. */
static void run_row(const gp_catalog *cat, json_t *c, const double *v, vrows *rs)
{
    gpv_serve_run r;
    if (!gpv_serve_run_map(cat, c, &r))
        return;
    gpi_perf_params pp;
    gpv_serve_run_params(&r, &pp);
    gemm_params(r.w.dtype, v, &pp);
    if (r.w.engine == GP_ENGINE_TRTLLM) {
        pp.step_overhead_s = fitted(v, SP_TRTLLM_STEP, GPV_TRTLLM_STEP_S, pp.step_overhead_s);
        if (strncmp(r.g->id, "GB", 2) != 0 && !gpv_serve_cpp_runtime(c))
            pp.seq_overhead_s = fitted(v, SP_TRTLLM_SEQ, GPV_TRTLLM_SEQ_S, pp.seq_overhead_s);
    } else {
        pp.step_overhead_s = fitted(v, SP_VLLM_STEP, GPV_VLLM_STEP_S, pp.step_overhead_s);
    }
    double pred = gpv_serve_run_predict(cat, &r, &pp);
    if (!isnan(pred)) {
        vadd(rs, c, r.bench == GPV_BENCH_TRTLLM ? "output tokens/s (trtllm-bench)" : "output tokens/s (vLLM, AMD)",
             r.measured, pred, "tok/s");
        vtag_model_type(rs, &r.m);
    }
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
    gpi_perf_params pp;
    perf_params(sc->w.engine, sc->w.dtype, v, &pp);
    pp.step_overhead_s = v[SP_V05_STEP]; /* vLLM 0.5: serial host work (no overlap) */
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
    if (!isnan(pred)) {
        vadd(rs, sc->c, "output tokens/s (vLLM ShareGPT)", meas_tps, pred, "tok/s");
        vtag_model_type(rs, &sc->m);
    }
}

/* FasterTransformer (kipply): batch-1 prefill latency and decode latency per token. */
static void fastertransformer_row(serve_case *sc, const double *v, vrows *rs)
{
    double ctx = vnum(sc->set, "context_len");
    if (isnan(ctx))
        return;
    sc->w.engine = GP_ENGINE_TRTLLM; /* FasterTransformer: the C++ runtime TRT-LLM grew from */
    sc->w.dtype = GP_DTYPE_F16;
    gpi_step_model sm;
    gpi_perf_params pp;
    perf_params(sc->w.engine, sc->w.dtype, v, &pp);
    if (step_model(sc->cat, &sc->m, sc->g, &sc->w, &sc->l, &pp, &sm) != GP_OK)
        return;
    gpi_batch_shape b;
    gpi_batch_prefill(&sm, &b, ctx);
    if (!isnan(vnum(sc->meas, "prefill_latency_ms")))
        vadd(rs, sc->c, "prefill latency, batch 1 (ms)", vnum(sc->meas, "prefill_latency_ms"),
             gpi_step_time(&sm, &b, NULL) * 1e3, "ms");
    gpi_batch_decode(&sm, &b, 1, ctx + vnum(sc->set, "generated_tokens") / 2.0);
    if (!isnan(vnum(sc->meas, "decode_latency_ms_per_token")))
        vadd(rs, sc->c, "decode tokens/s, batch 1", 1e3 / vnum(sc->meas, "decode_latency_ms_per_token"),
             1.0 / gpi_step_time(&sm, &b, NULL), "tok/s");
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
    sc.engine = json_string_value(json_object_get(sc.set, "engine"));
    if (sc.engine &&
        (vcontains(sc.engine, "TensorRT-LLM") || (vcontains(sc.engine, "vLLM") && sc.id && vcontains(sc.id, "amd-")))) {
        run_row(cat, c, v, rs);
        return;
    }
    sc.g = map_gpu(cat, c);
    if (!sc.id || !sc.g || !map_model(cat, c, &sc.m))
        return;
    sc.name = json_string_value(json_object_get(json_object_get(c, "model"), "name"));
    gpi_workload_defaults(&sc.w, GP_TASK_INFER);
    gpi_layout_defaults(&sc.l);
    sc.l.tp = vint(json_object_get(c, "parallel"), "tp", 1);
    sc.t.arrival = GP_ARRIVAL_BURST;
    sc.t.seed = 1;
    if (is_lambda(sc.engine, sc.id))
        lambda_row(&sc, v, rs);
    else if (sc.engine && vcontains(sc.engine, "FasterTransformer"))
        fastertransformer_row(&sc, v, rs);
}

/* Which parameters a case's prediction reads (the fit's cache keys on these only). */
static unsigned serve_depends(json_t *c)
{
    json_t *set = json_object_get(c, "settings");
    const char *engine = json_string_value(json_object_get(set, "engine"));
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *prec = json_string_value(json_object_get(set, "precision"));
    const char *gpu = json_string_value(json_object_get(json_object_get(c, "hardware"), "gpu"));
    unsigned gemm = 1u << SP_GEMM_FRAC | (prec && vcontains(prec, "fp4") ? 1u << SP_FP4_RATIO : 0u);
    if (is_lambda(engine, id))
        return gemm | 1u << SP_V05_STEP | 1u << SP_V05_SEQ;
    if (engine && vcontains(engine, "vLLM"))
        return gemm | 1u << SP_VLLM_STEP;
    if (engine && vcontains(engine, "TensorRT-LLM") && !(gpu && strncmp(gpu, "GB", 2) == 0) &&
        !gpv_serve_cpp_runtime(c))
        return gemm | 1u << SP_TRTLLM_STEP | 1u << SP_TRTLLM_SEQ;
    return gemm | 1u << SP_TRTLLM_STEP;
}

static void serve_defaults(const gp_catalog *cat, double *v)
{
    (void)cat; /* the serving constants are the harness's (validate.h) */
    v[SP_GEMM_FRAC] = GPV_GEMM_FRACTION;
    v[SP_FP4_RATIO] = GPV_FP4_RATIO;
    v[SP_TRTLLM_STEP] = GPV_TRTLLM_STEP_S;
    v[SP_TRTLLM_SEQ] = GPV_TRTLLM_SEQ_S;
    v[SP_VLLM_STEP] = GPV_VLLM_STEP_S;
    v[SP_V05_STEP] = GP_VLLM_V05_STEP_OVERHEAD_S;
    v[SP_V05_SEQ] = GP_VLLM_V05_SEQ_OVERHEAD_S;
}

/* The values of constants no case of a fold reads, each from outside the fitted sources. */
static void serve_priors(const gp_catalog *cat, double *v)
{
    serve_defaults(cat, v);
    v[SP_FP4_RATIO] = GPV_FP4_RATIO_PRIOR;
    v[SP_TRTLLM_SEQ] = GPV_TRTLLM_SEQ_PRIOR_S;
    v[SP_VLLM_STEP] = GPV_VLLM_STEP_PRIOR_S; /* assumed, not fitted (data/engines.json before AMD's rows) */
    v[SP_V05_STEP] = GP_VLLM_V05_STEP_PRIOR_S;
    v[SP_V05_SEQ] = GP_VLLM_V05_SEQ_PRIOR_S;
}

/* The grid each fitted constant is searched on (docs/validation.md, "Leave one source out"). */
static const gpv_param serve_params[SP_COUNT] = {
    [SP_GEMM_FRAC] = {"gemm_fraction", "", 0.40, 1.00, 0.05},
    [SP_FP4_RATIO] = {"fp4_ratio", "", 0.32, 1.20, 0.04},
    [SP_TRTLLM_STEP] = {"step_overhead_trtllm", "s", 0.0, 0.002, 0.00025},
    [SP_TRTLLM_SEQ] = {"seq_overhead_trtllm", "s", 0.0, 0.0001, 0.000005},
    [SP_VLLM_STEP] = {"step_overhead_vllm", "s", 0.0, 0.010, 0.0005},
    [SP_V05_STEP] = {"step_overhead_vllm_0.5", "s", 0.0, 0.020, 0.001},
    [SP_V05_SEQ] = {"seq_overhead_vllm_0.5", "s", 0.0, 0.0005, 0.00001},
};

const gpv_model gpv_model_infer_throughput = {
    .category = "infer_throughput",
    .nparams = SP_COUNT,
    .params = serve_params,
    .defaults = serve_defaults,
    .priors = serve_priors,
    .depends = serve_depends,
    .predict = serve_predict,
};
