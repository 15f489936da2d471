/*
 * serve_cases.h: the mapping of published serving runs (validation/serve_trtllm.jsonl, the
 * TensorRT-LLM rows of public.jsonl, serve_amd_mi300x.jsonl) to gpuplan's inputs, shared by
 * the accuracy harness (tools/validate/serve.c) and bench/bench_serve_cases.c so the two
 * read a case the same way. docs/serving.md ("Validation") explains each rule.
 */
#ifndef GPV_SERVE_CASES_H
#define GPV_SERVE_CASES_H

#include <gpuplan.h>
#include <jansson.h>
#include <stdint.h>

/* trtllm-bench requests per ISL/OSL row (TensorRT-LLM perf-overview "Reproducing" table:
 * 30000 for 128/128, 3000 for the mid rows, 1500 for the long ones, 1000 for 20000/2000). */
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

#endif
