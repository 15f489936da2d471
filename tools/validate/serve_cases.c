/* serve_cases.c: serving cases' mapping shared by the harness and bench (serve_cases.h). */
#include "serve_cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0
/* trtllm-bench's KV share of the free memory in its heuristic and on the perf-overview runs
 * ("In many cases, we also use ... --kv_cache_free_gpu_mem_fraction 0.95"). */
#define GPV_TRTLLM_BENCH_KV_FRACTION 0.95
/* tuning.py finetune_setting: caps on the whole batch and on the tokens of one step. */
#define GPV_TRTLLM_BENCH_MAX_BATCH  4096.0
#define GPV_TRTLLM_BENCH_MAX_TOKENS 32768.0

static int has(const char *s, const char *sub)
{
    return s && sub && strstr(s, sub) != NULL;
}

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int64_t gpv_trtllm_requests(int64_t isl, int64_t osl)
{
    if (isl + osl <= 256)
        return 30000;
    if (isl >= 20000 || osl >= 20000)
        return 1000;
    if (isl + osl > 4000 || osl >= 4096 || (isl >= 1000 && osl >= 2000))
        return 1500;
    return 3000;
}

gp_dtype gpv_serve_precision(const char *p)
{
    if (has(p, "nvfp4") || has(p, "FP4"))
        return GP_DTYPE_FP4;
    if (has(p, "mxfp4"))
        return GP_DTYPE_MXFP4;
    if (has(p, "fp16"))
        return GP_DTYPE_F16; /* an engine built without quantization (TensorRT-LLM 0.x pages) */
    if (has(p, "bf16"))
        return GP_DTYPE_BF16;
    return GP_DTYPE_FP8;
}

int gpv_serve_model(const gp_catalog *cat, json_t *mj, gp_model *m)
{
    const char *preset = json_string_value(json_object_get(mj, "preset"));
    const char *name = json_string_value(json_object_get(mj, "name"));
    static const struct {
        const char *pattern, *id;
    } maps[] = {
        {"Llama 3.3 70B", "llama-3.3-70b"}, {"Llama 3.1 405B", "llama-3.1-405b"}, {"Llama 3.1 70B", "llama-3.1-70b"},
        {"Llama 3.1 8B", "llama-3.1-8b"},   {"Llama-3.1-405B", "llama-3.1-405b"}, {"Llama-3.1-70B", "llama-3.1-70b"},
        {"Llama-3.1-8B", "llama-3.1-8b"},
    };
    if (preset && gp_catalog_find_model(cat, preset, m, NULL) == GP_OK)
        return 1;
    for (size_t i = 0; name && i < sizeof maps / sizeof maps[0]; i++)
        if (has(name, maps[i].pattern))
            return gp_catalog_find_model(cat, maps[i].id, m, NULL) == GP_OK;
    return 0;
}

const gp_gpu *gpv_serve_gpu(const gp_catalog *cat, const char *g)
{
    static const struct {
        const char *pattern, *id;
    } maps[] = {
        {"GH200", "GH200"}, /* before "H200", which its name contains */
        {"H200", "H200-SXM-141GB"}, {"H100", "H100-SXM-80GB"},          {"GB200", "GB200"},
        {"B200", "B200"},           {"RTX-PRO-6000", "RTX-PRO-6000"},   {"MI300X", "MI300X"},
        {"GB300", "GB300"},         {"A100-SXM-80GB", "A100-SXM-80GB"}, {"L40S", "L40S"},
    };
    const gp_gpu *out = NULL;
    for (size_t i = 0; g && i < sizeof maps / sizeof maps[0]; i++)
        if (has(g, maps[i].pattern))
            return gp_catalog_find_gpu(cat, maps[i].id, &out, NULL) == GP_OK ? out : NULL;
    return NULL;
}

static int par_int(json_t *par, const char *key)
{
    json_t *v = json_object_get(par, key);
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    return d > 0 ? (int)d : 1;
}

void gpv_serve_layout(json_t *par, gp_layout *l)
{
    l->tp = par_int(par, "tp");
    l->pp = par_int(par, "pp");
    l->ep = par_int(par, "ep");
    l->dp = 1;
    /* attention DP with ep unset (the v1.0 perf-overview page's MoE command passes --ep
     * $ep_size without listing it): experts over the whole group, as that page's later copy
     * labels the same runs DEPn (tp n, ep n) */
    if (json_is_true(json_object_get(par, "attention_dp")) && !json_is_number(json_object_get(par, "ep")))
        l->ep = l->tp;
    if (json_is_true(json_object_get(par, "attention_dp")) && l->ep > 1) {
        l->dp = l->tp; /* attention DP over the TP ranks, experts spread over them */
        l->tp = 1;
    }
}

/* ---- trtllm-bench ------------------------------------------------------------------------ */

static double round_up(double v, double step)
{
    return step * ceil(v / step);
}

void gpv_trtllm_bench_limits(const gp_model *m, const gp_gpu *g, gp_dtype weights, gp_dtype kv, int tp, int pp,
                             int64_t isl, int64_t osl, int64_t *max_batch, int64_t *max_tokens)
{
    gp_param_breakdown p;
    *max_batch = 2048, *max_tokens = 8192; /* BuildConfig's defaults, if the model is refused */
    if (gp_model_params(m, &p, NULL) != GP_OK || osl <= 0)
        return;
    /* BYTES_PER_ELEM: NVFP4 0.5, FP8 1, else 2 (MXFP4 is not in its table) */
    double wb = weights == GP_DTYPE_FP4 ? 0.5 : weights == GP_DTYPE_FP8 ? 1.0 : 2.0;
    double kb = kv == GP_DTYPE_FP8 ? 1.0 : 2.0;
    /* per token of the whole TP group: 2 x layers x max(tp, kv heads) x head size; a model
     * without kv_heads (MLA) reads as heads of hidden / heads, as its HF config does */
    int mla = m->kv_lora_rank > 0;
    double heads = mla ? (double)m->heads : (double)m->kv_heads,
           hs = mla ? (double)m->hidden / (double)m->heads : (double)m->head_dim;
    double per_token = 2.0 * (double)m->layers * fmax((double)tp, heads) * hs * kb / GIB;
    double engine = (double)p.total * wb / GIB;
    double avail = (double)g->memory_bytes / GIB * tp * pp - engine;
    double req = avail * GPV_TRTLLM_BENCH_KV_FRACTION / (per_token * (double)(isl + osl));
    if (!(req >= 1))
        return;
    double bs = fmin(req, GPV_TRTLLM_BENCH_MAX_BATCH) / pp;
    double tok = fmin(bs * (1.0 + (double)isl / (double)osl), GPV_TRTLLM_BENCH_MAX_TOKENS);
    bs = bs < 256 ? fmax(64, round_up(bs, 32)) : bs < 1024 ? round_up(bs, 128) : round_up(bs, 256);
    tok = tok < 4096 ? fmax(2048, round_up(tok, 256)) : tok < 8192 ? round_up(tok, 512) : round_up(tok, 1024);
    *max_batch = (int64_t)bs;
    *max_tokens = (int64_t)fmax(tok, (double)isl);
}

/* TensorRT-LLM 0.x's TensorRT-engine flow (trtllm-bench build + throughput, the C++ runtime):
 * the engine's kernels are enqueued from C++, not dispatched one by one from Python, so a step
 * with a context chunk pays no eager dispatch; trtllm-bench asks for no CUDA graphs, so decode
 * batches are not padded (NVIDIA/TensorRT-LLM @000a01de66f0eab4ab05640711f0253f50f5209c,
 * tensorrt_llm/bench/dataclasses/configuration.py: PerformanceOptions.cuda_graphs False, passed
 * as ExtendedRuntimePerfKnobConfig.cuda_graph_mode). The profile's host work per sequence is
 * the PyTorch executor's Python work per request and step (PR #16564 measured it there); the
 * C++ runtime's batch manager does that work in C++, taken as none (no figure of its own was
 * found). The per-step overhead stays the profile's. */
int gpv_serve_cpp_runtime(json_t *c)
{
    return has(json_string_value(json_object_get(json_object_get(c, "settings"), "backend")), "tensorrt");
}

static void trt_engine_backend(gpv_serve_run *r)
{
    r->prof.eager_layer_s = 0.0;
    r->prof.seq_overhead_s = 0.0;
    r->prof.cuda_graphs = 0;
    r->prof.n_graph_sizes = 0;
}

/* trtllm-bench throughput rows of the perf-overview pages: a burst of the page's request
 * count per ISL/OSL on one replica (one attention-DP rank), fixed lengths, FP8 KV, the
 * engine's profile with trtllm-bench's limits and KV share. */
static int map_trtllm(const gp_catalog *cat, json_t *c, gpv_serve_run *r)
{
    json_t *set = json_object_get(c, "settings"), *meas = json_object_get(c, "measured");
    json_t *par = json_object_get(c, "parallel");
    int64_t isl = (int64_t)num(set, "isl"), osl = (int64_t)num(set, "osl");
    r->measured = num(meas, "total_output_tokens_per_sec");
    if (isnan(r->measured))
        r->measured = num(meas, "total_output_tokens_per_sec_derived"); /* per GPU x GPUs */
    if (isl <= 0 || osl <= 0 || !(r->measured > 0))
        return 0;
    r->bench = GPV_BENCH_TRTLLM;
    r->w.engine = GP_ENGINE_TRTLLM;
    /* attention_dp_config.enable_balance of the page's DeepSeek-R1 llm_options */
    r->dp_balance = json_is_true(json_object_get(set, "attention_dp_balance"));
    /* ModelOpt checkpoints: W8A8 FP8 GEMMs unless settings.precision says FP4, FP8 KV */
    r->w.dtype = gpv_serve_precision(json_string_value(json_object_get(set, "precision")));
    /* moe_config.backend TRITON (the page's GPT-OSS options on Hopper) runs the MXFP4
     * checkpoint openai/gpt-oss ships, its weights dequantized to 16 bits in the kernel:
     * MXFP4 bytes, the 16-bit GEMM rate where the GPU has no FP4 (step model) */
    if (has(json_string_value(json_object_get(set, "moe_backend")), "TRITON"))
        r->w.dtype = GP_DTYPE_MXFP4;
    r->w.kv_dtype = GP_DTYPE_FP8;
    /* kv_cache_config.dtype where the page sets it: "auto" (its GPT-OSS options on Hopper)
     * keeps the checkpoint's 16-bit KV */
    if (has(json_string_value(json_object_get(set, "kv_cache_dtype")), "auto"))
        r->w.kv_dtype = GP_DTYPE_BF16;
    /* an engine built without --quantization keeps its KV in the model's dtype (the 0.17
     * page: "If you specify FP8 quantization, the KV cache will automatically be set to FP8") */
    if (r->w.dtype == GP_DTYPE_F16 || r->w.dtype == GP_DTYPE_BF16)
        r->w.kv_dtype = r->w.dtype;
    gpv_serve_layout(par, &r->l);
    int tp_world = r->l.tp * r->l.dp;
    if (gpi_engine_profile_get(cat, r->w.engine, r->g, r->l.tp, &r->prof, NULL) != GP_OK)
        return 0;
    gpv_trtllm_bench_limits(&r->m, r->g, r->w.dtype, r->w.kv_dtype, tp_world, r->l.pp, isl, osl, &r->prof.max_num_seqs,
                            &r->prof.max_num_batched_tokens);
    r->prof.max_num_seqs *= r->l.pp; /* per micro-batch; pp of them in flight */
    r->prof.kv_fraction = GPV_TRTLLM_BENCH_KV_FRACTION;
    if (gpv_serve_cpp_runtime(c))
        trt_engine_backend(r);
    int64_t n = gpv_trtllm_requests(isl, osl) / r->l.dp;
    r->t.requests = n > 0 ? n : 1;
    r->t.prompt.mean = (double)isl;
    r->t.output.mean = (double)osl;
    r->max_model_len = isl + osl;
    return 1;
}

/* AMD's vLLM (ROCm) throughput table: a burst of num_prompts at max_num_seqs, fixed lengths,
 * FP8 weights and KV (the -FP8-KV checkpoints), vLLM's profile. The page's "Throughput" is
 * read as output tokens/s: its ratios between ISL/OSL rows match output tokens, not totals
 * (docs/serving.md). */
static int map_amd_vllm(json_t *c, const gp_catalog *cat, gpv_serve_run *r)
{
    json_t *set = json_object_get(c, "settings");
    int64_t isl = (int64_t)num(set, "isl"), osl = (int64_t)num(set, "osl");
    double n = num(set, "num_prompts"), seqs = num(set, "max_num_seqs");
    r->measured = num(json_object_get(c, "measured"), "throughput_tokens_per_sec");
    if (isl <= 0 || osl <= 0 || !(n > 0) || !(r->measured > 0))
        return 0;
    r->bench = GPV_BENCH_VLLM_AMD;
    r->w.engine = GP_ENGINE_VLLM;
    r->w.dtype = GP_DTYPE_FP8;
    r->w.kv_dtype = GP_DTYPE_FP8;
    gpv_serve_layout(json_object_get(c, "parallel"), &r->l);
    if (gpi_engine_profile_get(cat, r->w.engine, r->g, r->l.tp, &r->prof, NULL) != GP_OK)
        return 0;
    if (seqs > 0)
        r->prof.max_num_seqs = (int64_t)seqs;
    r->w.max_num_seqs = r->prof.max_num_seqs;
    r->t.requests = (int64_t)n;
    r->t.prompt.mean = (double)isl;
    r->t.output.mean = (double)osl;
    r->max_model_len = isl + osl;
    return 1;
}

int gpv_serve_run_map(const gp_catalog *cat, json_t *c, gpv_serve_run *r)
{
    memset(r, 0, sizeof *r);
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *engine = json_string_value(json_object_get(json_object_get(c, "settings"), "engine"));
    json_t *hw = json_object_get(c, "hardware");
    r->g = gpv_serve_gpu(cat, json_string_value(json_object_get(hw, "gpu")));
    if (!id || !engine || !r->g || !gpv_serve_model(cat, json_object_get(c, "model"), &r->m))
        return 0;
    gpi_workload_defaults(&r->w, GP_TASK_INFER);
    gpi_layout_defaults(&r->l);
    r->t.arrival = GP_ARRIVAL_BURST;
    r->t.seed = 1;
    if (has(engine, "TensorRT-LLM"))
        return map_trtllm(cat, c, r);
    if (has(engine, "vLLM") && has(id, "amd-"))
        return map_amd_vllm(c, cat, r);
    return 0;
}

void gpv_serve_run_params(const gpv_serve_run *r, gpi_perf_params *pp)
{
    gpi_perf_params_profile(pp, r->w.engine, &r->prof, r->l.pp);
    pp->dp_balance = r->dp_balance;
}

/* One line per case: the limits, the simulated steps and batch, and one mean step's phases. */
static void trace_run(const gpi_step_model *sm, const gpv_serve_run *r, const gp_sim_result *res)
{
    double isl = r->t.prompt.mean, osl = r->t.output.mean, steps = (double)res->steps;
    double reqs = (double)r->t.requests;
    double prefill_tok = reqs * isl / (steps > 0 ? steps : 1); /* prompt tokens per step */
    double run = res->mean_running;
    gpi_batch_shape b, one;
    gpi_batch_decode(sm, &b, run, isl + osl / 2.0);
    gpi_batch_prefill(sm, &one, isl);
    double chunks = prefill_tok / (isl > 0 ? isl : 1);
    b.tokens += chunks * one.tokens, b.attn_pairs += chunks * one.attn_pairs;
    b.win_pairs += chunks * one.win_pairs;
    gpi_step_breakdown d;
    double t = gpi_step_time(sm, &b, &d);
    fprintf(stderr,
            "trace bs=%lld tok=%lld steps=%lld dur=%.2fs step=%.2fms run=%.0f pre/step=%.0f kv=%.2f preempt=%lld | "
            "mean step %.2fms: lin %.2f exp %.2f attn %.2f head %.2f comm %.2f ovh %.2f\n",
            (long long)r->prof.max_num_seqs, (long long)r->prof.max_num_batched_tokens, (long long)res->steps,
            res->duration_s, 1e3 * res->duration_s / (steps > 0 ? steps : 1), run, prefill_tok,
            res->kv_utilization_mean, (long long)res->preemptions, 1e3 * t, 1e3 * d.linear_s, 1e3 * d.experts_s,
            1e3 * d.attention_s, 1e3 * d.head_s, 1e3 * d.comm_s, 1e3 * d.overhead_s);
}

double gpv_serve_run_predict(const gp_catalog *cat, const gpv_serve_run *r, const gpi_perf_params *pp)
{
    gpi_sched_config sc;
    gpi_step_model sm;
    if (gpi_serve_sched_config_profile(&r->m, r->g, &r->w, &r->l, r->max_model_len, &r->prof, &sc, NULL) != GP_OK)
        return NAN;
    if (gpi_step_model_init_nodes(&r->m, r->g, NULL, NULL, &r->w, &r->l, pp, &sm, NULL) != GP_OK)
        return NAN;
    gpi_step_model_use_rates(&sm, cat, r->g, NULL);
    gp_sim_result res;
    if (gpi_simulate(&sm, &sc, &r->t, NULL, &res, NULL) != GP_OK)
        return NAN;
    if (getenv("GPV_TRACE")) /* what the simulation did, for study */
        trace_run(&sm, r, &res);
    return res.output_tokens_per_s * (r->l.dp > 1 ? r->l.dp : 1);
}
