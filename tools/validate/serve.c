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
#include "validate.h"

#include <string.h>

/* vLLM 0.5's per-step overhead: its Python scheduler, input preparation and sampler ran on
 * the critical path between GPU steps (the v0.6.0 release blog, "vLLM v0.6.0: 2.7x
 * Throughput Improvement and 5x Latency Reduction", measured this CPU overhead as the main
 * cost): a fixed part per step and a part per running sequence. Fitted on the Llama-3.1-70B
 * rows of Lambda's table, A100 and H100 (docs/serving.md, "Calibration"). */
#define GP_VLLM_V05_STEP_OVERHEAD_S 0.010
#define GP_VLLM_V05_SEQ_OVERHEAD_S 0.0002
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
/* trtllm-bench requests per ISL/OSL row (TensorRT-LLM perf-overview "Reproducing" table:
 * 30000 for 128/128, 3000 for the mid rows, 1500 for the long ones, 1000 for 20000/2000). */
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

/* Model names in these cases that the table of map.c does not map. */
static int map_model(const gp_catalog *cat, json_t *c, gp_model *m)
{
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
    return vmap_gpu(cat, c);
}

static double simulate_throughput(const gp_model *m, const gp_gpu *g, const gp_workload *w, const gp_layout *l,
                                  const gp_perf_params *pp, const gp_traffic *t, int64_t maxlen, int64_t max_seqs)
{
    gp_sched_config sc;
    if (gp_serve_sched_config(m, g, w, l, maxlen, &sc, NULL) != GP_OK)
        return NAN;
    if (max_seqs > 0)
        sc.max_num_seqs = max_seqs;
    gp_step_model sm; /* TP stays inside the NVLink domain in every case */
    if (gp_step_model_init(m, g, NULL, w, l, pp, &sm, NULL) != GP_OK)
        return NAN;
    gp_sim_result r;
    if (gp_simulate(&sm, &sc, t, NULL, &r, NULL) != GP_OK)
        return NAN;
    return r.output_tokens_per_s;
}

void validate_infer_throughput(const gp_catalog *cat, json_t *c, vrows *rs)
{
    const char *id = json_string_value(json_object_get(c, "id"));
    json_t *set = json_object_get(c, "settings"), *meas = json_object_get(c, "measured");
    json_t *par = json_object_get(c, "parallel");
    gp_model m;
    const gp_gpu *g = map_gpu(cat, c);
    if (!id || !g || !map_model(cat, c, &m))
        return;
    const char *name = json_string_value(json_object_get(json_object_get(c, "model"), "name"));
    const char *engine = json_string_value(json_object_get(set, "engine"));
    gp_workload w;
    gp_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gp_layout_defaults(&l);
    l.tp = vint(par, "tp", 1);
    gp_perf_params pp;
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_BURST;
    t.seed = 1;

    if (engine && vcontains(engine, "TensorRT-LLM")) {
        int64_t isl = (int64_t)vnum(set, "isl"), osl = (int64_t)vnum(set, "osl");
        double meas_tps = vnum(meas, "total_output_tokens_per_sec");
        if (isl <= 0 || osl <= 0 || isnan(meas_tps))
            return;
        w.engine = GP_ENGINE_TRTLLM;
        w.dtype = GP_DTYPE_FP8;    /* ModelOpt FP8 checkpoints: W8A8 GEMMs */
        w.kv_dtype = GP_DTYPE_FP8; /* and their FP8 KV cache */
        gp_perf_params_defaults(&pp, w.engine);
        t.requests = trtllm_requests(isl, osl);
        t.prompt.mean = (double)isl;
        t.output.mean = (double)osl;
        double pred = simulate_throughput(&m, g, &w, &l, &pp, &t, isl + osl, 0);
        if (!isnan(pred))
            vadd(rs, c, "output tokens/s (trtllm-bench)", meas_tps, pred, "tok/s");
        return;
    }
    if (engine && vcontains(engine, "vLLM") && vcontains(id, "lambda-vllm-tp-")) {
        double meas_tps = vnum(meas, "output_tokens_per_sec");
        if (isnan(meas_tps))
            return;
        w.engine = GP_ENGINE_VLLM;
        w.dtype = name && vcontains(name, "FP8") ? GP_DTYPE_FP8 : GP_DTYPE_BF16;
        w.kv_dtype = GP_DTYPE_BF16;
        w.gpu_memory_utilization = GP_LAMBDA_GPU_UTIL;
        w.max_num_batched_tokens = GP_VLLM_V05_BATCHED_TOKENS;
        gp_perf_params_defaults(&pp, w.engine);
        pp.step_overhead_s = GP_VLLM_V05_STEP_OVERHEAD_S;
        pp.seq_overhead_s = GP_VLLM_V05_SEQ_OVERHEAD_S;
        t.requests = (int64_t)vnum(set, "num_prompts");
        if (t.requests <= 0)
            t.requests = 320;
        t.prompt.dist = t.output.dist = GP_LENGTH_EXPONENTIAL;
        t.prompt.mean = GP_SHAREGPT_MEAN_PROMPT;
        t.prompt.min = 4;
        t.prompt.max = GP_SHAREGPT_MAX_PROMPT;
        t.output.mean = GP_SHAREGPT_MEAN_OUTPUT;
        t.output.min = 1;
        t.output.max = GP_SHAREGPT_MAX_OUTPUT;
        double pred = simulate_throughput(&m, g, &w, &l, &pp, &t, 2000, GP_LAMBDA_MAX_SEQS);
        if (!isnan(pred))
            vadd(rs, c, "output tokens/s (vLLM ShareGPT)", meas_tps, pred, "tok/s");
        return;
    }
    if (engine && vcontains(engine, "FasterTransformer")) {
        double ctx = vnum(set, "context_len");
        if (isnan(ctx))
            return;
        w.engine = GP_ENGINE_TRTLLM; /* FasterTransformer: the C++ runtime TRT-LLM grew from */
        w.dtype = GP_DTYPE_F16;
        gp_step_model sm;
        gp_perf_params_defaults(&pp, w.engine);
        if (gp_step_model_init(&m, g, NULL, &w, &l, &pp, &sm, NULL) != GP_OK)
            return;
        gp_batch_shape b;
        gp_batch_prefill(&b, ctx);
        if (!isnan(vnum(meas, "prefill_latency_ms")))
            vadd(rs, c, "prefill latency, batch 1 (ms)", vnum(meas, "prefill_latency_ms"), gp_step_time(&sm, &b, NULL) * 1e3,
                 "ms");
        gp_batch_decode(&b, 1, ctx + vnum(set, "generated_tokens") / 2.0);
        if (!isnan(vnum(meas, "decode_latency_ms_per_token")))
            vadd(rs, c, "decode tokens/s, batch 1", 1e3 / vnum(meas, "decode_latency_ms_per_token"),
                 1.0 / gp_step_time(&sm, &b, NULL), "tok/s");
    }
}
