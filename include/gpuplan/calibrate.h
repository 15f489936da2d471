/*
 * gpuplan/calibrate.h: measured runs, as a team's own tools print them, read into one form so
 * that gpuplan can be calibrated on the team's own cluster (docs/calibration.md).
 *
 * A run set holds runs read from one or more files. Each file's format is found from its
 * content, never from its name alone:
 *   - JSON Lines: one scenario document per line (the keys of docs/scenario.md) plus
 *     "command": "train" | "serve", a "measured" object and an optional "id";
 *   - CSV: a header row naming the same keys (scenario keys, "command", "id", and the
 *     measured keys), one run a row;
 *   - a Megatron-LM / NeMo training log (its "arguments" block and its iteration lines);
 *   - a torchtitan training log (its "step: ... tps: ... tflops: ... mfu: ..." lines);
 *   - a `vllm bench serve` (benchmark_serving.py) result JSON, or the "Serving Benchmark
 *     Result" block it (and sglang.bench_serving) prints;
 *   - `trtllm-bench` throughput output (its "PERFORMANCE OVERVIEW" block);
 *   - nccl-tests / rccl-tests output (bus bandwidth by message size).
 *
 * What a log does not say (which GPU, often which model) comes from the defaults the caller
 * passes: a scenario JSON object whose keys fill in what the file leaves out; the file's own
 * figures win over the defaults.
 *
 * Thread safety: a run set is not shared; distinct run sets may be used from distinct threads.
 */
#ifndef GPUPLAN_CALIBRATE_H
#define GPUPLAN_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a run measured. */
typedef enum gp_run_kind {
    GP_RUN_TRAIN = 1,      /* a training job: throughput per GPU, step time */
    GP_RUN_SERVE = 2,      /* a serving benchmark: tokens/s, TTFT, TPOT */
    GP_RUN_COLLECTIVE = 3  /* a collective benchmark: bus bandwidth by message size */
} gp_run_kind;

/* Where a run came from. */
typedef enum gp_run_format {
    GP_RUNFMT_JSONL = 1,
    GP_RUNFMT_CSV,
    GP_RUNFMT_MEGATRON,
    GP_RUNFMT_TORCHTITAN,
    GP_RUNFMT_VLLM_BENCH,
    GP_RUNFMT_TRTLLM_BENCH,
    GP_RUNFMT_NCCL_TESTS,
    GP_RUNFMT_SERVE_TEXT  /* the "Serving Benchmark Result" block of vllm bench serve / sglang.bench_serving */
} gp_run_format;

/* Short name of a format ("megatron-log"); never NULL. */
GP_API const char *gp_run_format_name(gp_run_format f);

/* Collective operations nccl-tests measures. */
typedef enum gp_collective_op {
    GP_COLL_UNKNOWN = 0,
    GP_COLL_ALL_REDUCE,
    GP_COLL_ALL_GATHER,
    GP_COLL_REDUCE_SCATTER,
    GP_COLL_ALL_TO_ALL
} gp_collective_op;

/* Name of an operation ("all_reduce"); never NULL. */
GP_API const char *gp_collective_op_name(gp_collective_op op);

#define GP_RUN_ID_MAX 96
#define GP_RUN_MAX_POINTS 64 /* message sizes kept from one collective benchmark */

/* One measured run. Figures a source did not give are NaN. */
typedef struct gp_run {
    char id[GP_RUN_ID_MAX];  /* the line's "id", or FILE:LINE */
    gp_run_kind kind;
    gp_run_format format;
    int line;                /* 1-based line of the file where the run is (its first line) */
    /* The scenario as a compact JSON object (keys of docs/scenario.md), owned by the set.
       For a collective run it holds "gpu", "gpus" (ranks) and what the defaults gave. */
    const char *scenario_json;
    /* training */
    double model_tflops_per_gpu, hw_tflops_per_gpu, mfu, tokens_per_s_per_gpu, step_time_s;
    /* serving; request_rate_per_s is +inf for a saturating load (offline throughput) */
    double output_tokens_per_s, total_tokens_per_s, ttft_p50_s, tpot_p50_s, request_rate_per_s;
    /* collective */
    gp_collective_op op;
    int ranks;
    int points;                             /* how many sizes below are filled */
    double bytes[GP_RUN_MAX_POINTS];        /* message size, bytes */
    double busbw_gbps[GP_RUN_MAX_POINTS];   /* bus bandwidth, GB/s (10^9 bytes/s) */
    int samples;             /* log lines (iterations, steps) the figures are medians of */
} gp_run;

typedef struct gp_runset gp_runset;

/* A new, empty run set; NULL when out of memory. Free with gp_runset_free. */
GP_API gp_runset *gp_runset_new(void);
GP_API void gp_runset_free(gp_runset *set);

/* Read the file at path (at most 64 MiB), detect its format and append its runs to set.
   defaults_json: NULL or a JSON object of scenario keys for what the file does not say.
   On failure nothing is appended and err names the file, line (and column) and field. */
GP_API gp_status gp_runset_read(gp_runset *set, const char *path, const char *defaults_json, gp_error *err);

/* The same from memory: name is used in messages and ids (a file name); text need not be
   NUL-terminated. */
GP_API gp_status gp_runset_parse(gp_runset *set, const char *name, const char *text, size_t len,
                                 const char *defaults_json, gp_error *err);

/* Number of runs, and run i (borrowed; valid until the set is freed or added to). */
GP_API size_t gp_runset_count(const gp_runset *set);
GP_API const gp_run *gp_runset_get(const gp_runset *set, size_t i);

#ifdef __cplusplus
}
#endif

#endif
