/*
 * serve_cases.h: the mapping of published serving runs (validation/serve_trtllm.jsonl, the
 * TensorRT-LLM rows of public.jsonl, serve_amd_mi300x.jsonl) to gpuplan's inputs, shared by
 * the accuracy harness (tools/validate/serve.c) and bench/bench_serve_cases.c so the two
 * read a case the same way. docs/serving.md ("Checks against published serving runs")
 * explains each rule.
 */
#ifndef GPV_SERVE_CASES_H
#define GPV_SERVE_CASES_H

#include "internal.h" /* libgpuplan's private declarations (src/lib): the harness and benches test modules */
#include <jansson.h>
#include <stdint.h>

/* trtllm-bench requests per ISL/OSL row (TensorRT-LLM perf-overview "Reproducing" tables:
 * 30000 for 128/128, 3000 for the mid rows, 1500 for the long ones, 1000 from 20000 tokens). */
int64_t gpv_trtllm_requests(int64_t isl, int64_t osl);
/* settings.precision ("nvfp4", "mxfp4", "fp8"; NULL: fp8, the ModelOpt checkpoints). */
gp_dtype gpv_serve_precision(const char *precision);
/* model.preset (a data/models.json id), else the model name's known spellings; 0 if none. */
int gpv_serve_model(const gp_catalog *cat, json_t *model, gp_model *m);
/* hardware.gpu of these files ("B200", "GB200", "H200-SXM-141GB", ...); NULL if unknown. */
const gp_gpu *gpv_serve_gpu(const gp_catalog *cat, const char *gpu);
/* parallel.{tp, pp, ep, attention_dp}: attention DP with ep > 1 becomes tp 1 x dp t (the MoE
 * layers over ep); the caller runs one replica and multiplies its throughput by l->dp. */
void gpv_serve_layout(json_t *parallel, gp_layout *l);

/* trtllm-bench's scheduler limits when none are given (NVIDIA/TensorRT-LLM
 * tensorrt_llm/bench/build/tuning.py, calc_engine_setting and finetune_setting): the requests
 * the KV cache holds at isl + osl over the tp x pp GPUs, capped at 4096 and divided by pp,
 * rounded up; tokens = that x (1 + isl/osl), capped at 32768, rounded up, at least isl (no
 * chunked prefill). */
void gpv_trtllm_bench_limits(const gp_model *m, const gp_gpu *g, gp_dtype weights, gp_dtype kv, int tp, int pp,
                             int64_t isl, int64_t osl, int64_t *max_batch, int64_t *max_tokens);

/* One published serving run as gpuplan's inputs. */
typedef enum gpv_serve_bench {
    GPV_BENCH_TRTLLM = 0, /* trtllm-bench throughput (TensorRT-LLM perf overview) */
    GPV_BENCH_VLLM_AMD,   /* AMD's vLLM (ROCm) throughput table */
} gpv_serve_bench;

typedef struct gpv_serve_run {
    gpv_serve_bench bench;
    gp_model m;
    const gp_gpu *g;
    gp_workload w;
    gp_layout l;
    gpi_engine_profile prof; /* the engine's profile with the benchmark's own limits */
    gp_traffic t;            /* the burst one replica (one attention-DP rank) serves */
    int64_t max_model_len;
    double measured; /* output tokens/s of the whole GPU group */
    int dp_balance;  /* settings.attention_dp_balance: the attention-DP ranks' context
                        work aligned (gpi_perf_params.dp_balance) */
} gpv_serve_run;

/* 1 when case c ran TensorRT-LLM 0.x's TensorRT engine on the C++ runtime (settings.backend
 * "tensorrt"): mapped without Python host work per sequence, so it does not inform that fit. */
int gpv_serve_cpp_runtime(json_t *c);
/* Map case c; 1 when it is one of these runs and every input it needs is stated. */
int gpv_serve_run_map(const gp_catalog *cat, json_t *c, gpv_serve_run *out);
/* The step model's parameters as the product sets them for this engine and layout
 * (gpi_perf_params_profile); the harness then puts its fitted constants in place. */
void gpv_serve_run_params(const gpv_serve_run *r, gpi_perf_params *pp);
/* Predicted output tokens/s of the whole GPU group (NAN when the library refuses it). */
double gpv_serve_run_predict(const gp_catalog *cat, const gpv_serve_run *r, const gpi_perf_params *pp);

#endif
