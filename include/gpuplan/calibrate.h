/*
 * gpuplan/calibrate.h: calibration on a team's own cluster (docs/calibration.md): fit a profile
 * on measured runs as the team's own tools print them (gp_calibrate_run), measure this
 * machine's GPUs (gp_bench_run), apply a profile to a catalog (gp_catalog_apply_profile).
 *
 * gp_calibrate_run reads runs from files whose format is found from their content, never from
 * the name alone:
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
 * Thread safety: gp_calibrate_run and gp_bench_run share nothing between calls (the catalog is
 * only read); gp_catalog_apply_profile changes the catalog and needs it to itself.
 */
#ifndef GPUPLAN_CALIBRATE_H
#define GPUPLAN_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================================================
 * Profiles: fitted rates of a GPU type, applied by the catalog (docs/calibration.md)
 * ========================================================================================== */

#define GP_PROFILE_VERSION 1

/* The parameters a profile may hold, each a multiplier of a rate the models use (1: unchanged)
 * except step_overhead_s (seconds). */
typedef enum gp_cal_param {
    GP_CALP_GEMM = 0, /* achievable GEMM rate */
    GP_CALP_ATTN,     /* attention kernels' rate (training) */
    GP_CALP_HBM,      /* achievable HBM bandwidth */
    GP_CALP_COMM,     /* collectives' bus bandwidth (training) */
    GP_CALP_OVERHEAD, /* per engine step (serving), seconds */
    GP_CALP_COUNT
} gp_cal_param;

/* "gemm_scale" ...; NULL past the end. Constant string. */
GP_API const char *gp_cal_param_name(gp_cal_param p);

/* Read a profile (at most 4 MiB) and apply it to the catalog's GPU rows: each
 * entry changes only its GPU type, and only predictions of its use, precision and engine.
 * All or nothing: on failure (syntax: FILE:LINE:COLUMN; a value out of its range, an unknown
 * key or GPU: the field) the catalog is unchanged. It changes the catalog: call it before the
 * catalog is shared, never while another thread reads it. */
GP_API gp_status gp_catalog_apply_profile(gp_catalog *cat, const char *path, gp_error *err);
/* What the applied profile is, for the output to say so: "calibrated on 6 runs of
 * H100-SXM-80GB (train bf16) from prof.json"; "" when none (or cat is NULL). Borrowed from the
 * catalog. */
GP_API const char *gp_catalog_profile_note(const gp_catalog *cat);

/* ============================================================================================
 * gpuplan calibrate: fit a profile on measured runs
 * ========================================================================================== */

typedef struct gp_calibrate_opts {
    const char *const *paths; /* run files (any format above) */
    size_t n_paths;
    const char *defaults_json;   /* scenario keys for what the files do not say (NULL: none) */
    const char *out_path;        /* write the profile there on success (NULL: do not write) */
    int max_params;              /* parameters per entry at most (0: 2) */
    gp_run_progress_fn progress; /* stages "reading runs" (file i of n) and "fitting" (entry k of
                                    n); NULL: not reported */
    void *progress_arg;
    /* defaults as flags give them (defaults_json NULL): n_defaults scenario keys ("gpus") and
       their text ("16"), each typed by the key table; NULL: none */
    const char *const *default_keys, *const *default_values;
    size_t n_defaults;
} gp_calibrate_opts;

#define GP_CAL_MAX_GROUPS    16
#define GP_CAL_MAX_RESIDUALS 256
#define GP_CAL_MAX_WARNINGS  8

/* One fitted entry: the runs of one GPU type, use, precision (and serving engine). */
typedef struct gp_calibrate_group {
    char gpu[64];
    int use; /* GP_CAL_TRAIN, GP_CAL_SERVE, or 3: collective benchmarks */
    gp_dtype dtype;
    int engine;
    int runs;
    int fitted[GP_CALP_COUNT]; /* 1: the parameter was fitted (collectives: slot 0 the scale
                                  inside a node, slot 1 across nodes) */
    double value[GP_CALP_COUNT], replaces[GP_CALP_COUNT];
    int at_bound[GP_CALP_COUNT];
    /* median absolute relative error of the runs, in-sample and leave-one-out (each run
       predicted by a fit on the others), before and after calibration; NaN when undefined */
    double err_before, err_after, loo_before, loo_after;
} gp_calibrate_group;

#define GP_RUN_ID_MAX 96 /* a run's id: the line's "id", or FILE:LINE */

typedef struct gp_calibrate_residual {
    char id[GP_RUN_ID_MAX];
    int group;                      /* index into groups */
    char quantity[32];              /* "model_tflops_per_gpu" */
    double measured, before, after; /* after: the fitted prediction; relative errors = x/measured - 1 */
} gp_calibrate_residual;

typedef struct gp_calibrate_result {
    int runs_read, runs_used;
    int n_groups;
    gp_calibrate_group groups[GP_CAL_MAX_GROUPS];
    int n_residuals;
    gp_calibrate_residual residuals[GP_CAL_MAX_RESIDUALS];
    int n_warnings;
    char warnings[GP_CAL_MAX_WARNINGS][GP_ERROR_MSG_MAX];
    char *profile_json; /* the profile document (owned; gp_calibrate_result_free) */
} gp_calibrate_result;

/* Read the runs, predict each with the library, fit the fewest parameters per entry that
 * explain them (bounded search on log error, leave-one-out to add a second), and on success
 * write the profile to o->out_path. On failure nothing is written and err names the file
 * and line (or the run). *out is the caller's (large: heap it); on GP_OK free what it holds
 * with gp_calibrate_result_free. cat: read only. */
GP_API gp_status gp_calibrate_run(const gp_catalog *cat, const gp_calibrate_opts *o, gp_calibrate_result *out,
                                  gp_error *err);
/* Free what a result holds (profile_json), not the struct itself. NULL: no-op. */
GP_API void gp_calibrate_result_free(gp_calibrate_result *r);
/* The result as the text `gpuplan calibrate` prints (out_path: where the profile was written,
 * NULL: nowhere); malloc'd into *text, free with gp_text_free. */
GP_API gp_status gp_calibrate_text(const gp_calibrate_result *r, const char *out_path, char **text, size_t *len,
                                   gp_error *err);
/* A profile document (gp_calibrate_result's or gp_bench_result's profile_json) as `--json`
 * prints it: indented by 2, keys in order, ending in a newline; free with gp_text_free. */
GP_API gp_status gp_profile_json(const char *profile_json, char **text, size_t *len, gp_error *err);

/* ============================================================================================
 * gpuplan probe --bench: microbenchmarks of this machine's GPUs, as a profile
 * ========================================================================================== */

/* The CUDA runtime, cuBLASLt and NCCL are loaded at run time (dlopen), like NVML in probe.c:
 * gpuplan builds without them, and where they are absent the bench fails with GP_ENOTFOUND
 * saying which. Measured: dense GEMM TFLOP/s over a grid of shapes in bf16 and fp8 (fp8 where
 * the GPU takes it), HBM bandwidth (a device-to-device copy, read + write), and with two GPUs
 * or more NCCL all-reduce and all-gather bus bandwidth by message size. */
#define GP_BENCH_MAX_POINTS 48

typedef struct gp_bench_opts {
    const char *cudart_path;   /* NULL: libcudart.so, then libcudart.so.12 */
    const char *cublaslt_path; /* NULL: libcublasLt.so, then libcublasLt.so.12 */
    const char *nccl_path;     /* NULL: libnccl.so.2 (only with 2 GPUs or more) */
    int iterations;            /* timed repeats per point after 2 warm-ups (0: 10) */
    int max_gpus;              /* GPUs to use for collectives (0: all, at most 8) */
    /* called before each step (no printing in the library: the caller shows it) */
    void (*progress)(void *ctx, const char *step, int done, int total);
    void *progress_ctx;
} gp_bench_opts;

typedef struct gp_bench_point {
    char what[16];  /* "gemm", "memcpy", "all_reduce", "all_gather" */
    gp_dtype dtype; /* gemm */
    double m, n, k; /* gemm shape */
    double bytes;   /* memcpy / collective size */
    double value;   /* gemm TFLOP/s; memcpy GB/s (read + write); bus GB/s */
} gp_bench_point;

typedef struct gp_bench_result {
    int devices;
    char device_name[96]; /* as the CUDA runtime names device 0 */
    char gpu_id[64];      /* its catalog entry */
    int n_points;
    gp_bench_point points[GP_BENCH_MAX_POINTS];
    char *profile_json; /* owned: gp_bench_result_free */
} gp_bench_result;

/* Measure this machine with options o (required; zero fields take their defaults) into *out (the caller's), with a
 * profile of the figures (out->profile_json) for gp_catalog_apply_profile; the device is matched to its catalog entry
 * (cat, read only). GP_EINVAL without cat or o; GP_ENOTFOUND naming the missing library or device. Runs work on the
 * GPUs for seconds: one bench at a time per machine. */
GP_API gp_status gp_bench_run(const gp_catalog *cat, const gp_bench_opts *o, gp_bench_result *out, gp_error *err);
/* Free what a result holds (profile_json), not the struct itself. NULL: no-op. */
GP_API void gp_bench_result_free(gp_bench_result *r);
/* The points as the text `gpuplan probe --bench` prints (out_path: where the profile was
 * written, NULL: nowhere); its JSON is gp_profile_json's. Free with gp_text_free. */
GP_API gp_status gp_bench_text(const gp_bench_result *r, const char *out_path, char **text, size_t *len, gp_error *err);

#ifdef __cplusplus
}
#endif

#endif
