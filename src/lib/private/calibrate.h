/*
 * private/calibrate.h: measured runs and profiles behind gp_calibrate_run.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_CALIBRATE_H
#define GPI_PRIVATE_CALIBRATE_H

#include "gpuplan.h"
#include "private/base.h"

/* ---- from include/gpuplan/calibrate.h ---- */
/* What a run measured. */
typedef enum gpi_run_kind {
    GPI_RUN_TRAIN = 1,     /* a training job: throughput per GPU, step time */
    GPI_RUN_SERVE = 2,     /* a serving benchmark: tokens/s, TTFT, TPOT */
    GPI_RUN_COLLECTIVE = 3 /* a collective benchmark: bus bandwidth by message size */
} gpi_run_kind;

/* Where a run came from. */
typedef enum gpi_run_format {
    GPI_RUNFMT_JSONL = 1,
    GPI_RUNFMT_CSV,
    GPI_RUNFMT_MEGATRON,
    GPI_RUNFMT_TORCHTITAN,
    GPI_RUNFMT_VLLM_BENCH,
    GPI_RUNFMT_TRTLLM_BENCH,
    GPI_RUNFMT_NCCL_TESTS,
    GPI_RUNFMT_SERVE_TEXT /* the "Serving Benchmark Result" block of vllm bench serve / sglang.bench_serving */
} gpi_run_format;

/* Short name of a format ("megatron-log"); never NULL. */
const char *gpi_run_format_name(gpi_run_format f);

/* Collective operations nccl-tests measures. */
typedef enum gpi_collective_op {
    GPI_COLLECTIVE_UNKNOWN = 0,
    GPI_COLLECTIVE_ALL_REDUCE,
    GPI_COLLECTIVE_ALL_GATHER,
    GPI_COLLECTIVE_REDUCE_SCATTER,
    GPI_COLLECTIVE_ALL_TO_ALL
} gpi_collective_op;

/* Name of an operation ("all_reduce"); never NULL. */
const char *gpi_collective_op_name(gpi_collective_op op);

#define GPI_RUN_MAX_POINTS 64 /* message sizes kept from one collective benchmark */

/* One measured run. Figures a source did not give are NaN. */
typedef struct gpi_measured_run {
    char id[GP_RUN_ID_MAX]; /* the line's "id", or FILE:LINE */
    gpi_run_kind kind;
    gpi_run_format format;
    int line; /* 1-based line of the file where the run is (its first line) */
    /* The scenario as a compact JSON object (keys of docs/scenario.md), owned by the set.
       For a collective run it holds "gpu", "gpus" (ranks) and what the defaults gave. */
    const char *scenario_json;
    /* training */
    double model_tflops_per_gpu, hw_tflops_per_gpu, mfu, tokens_per_s_per_gpu, step_time_s;
    /* serving; request_rate_per_s is +inf for a saturating load (offline throughput) */
    double output_tokens_per_s, total_tokens_per_s, ttft_p50_s, tpot_p50_s, request_rate_per_s;
    /* collective */
    gpi_collective_op op;
    int ranks;
    int points;                            /* how many sizes below are filled */
    double bytes[GPI_RUN_MAX_POINTS];      /* message size, bytes */
    double busbw_gbps[GPI_RUN_MAX_POINTS]; /* bus bandwidth, GB/s (10^9 bytes/s) */
    int samples;                           /* log lines (iterations, steps) the figures are medians of */
} gpi_measured_run;

typedef struct gpi_runset gpi_runset;

/* A new, empty run set; NULL when out of memory. Free with gpi_runset_free. */
gpi_runset *gpi_runset_new(void);

void gpi_runset_free(gpi_runset *set);

/* Read the file at path (at most 64 MiB), detect its format and append its runs to set.
   defaults_json: NULL or a JSON object of scenario keys for what the file does not say.
   On failure nothing is appended and err names the file, line (and column) and field. */
gp_status gpi_runset_read(gpi_runset *set, const char *path, const char *defaults_json, gp_error *err);

/* The same from memory: name is used in messages and ids (a file name); text need not be
   NUL-terminated. */
gp_status gpi_runset_parse(gpi_runset *set, const char *name, const char *text, size_t len, const char *defaults_json,
                           gp_error *err);

/* Number of runs, and run i (borrowed; valid until the set is freed or added to). */
size_t gpi_runset_count(const gpi_runset *set);

const gpi_measured_run *gpi_runset_get(const gpi_runset *set, size_t i);

#define GPI_PROFILE_MAX_BYTES (4u * 1024u * 1024u)

/* The physically possible range of a parameter for a use (GP_CAL_TRAIN / GP_CAL_SERVE): a
 * scale never makes a rate exceed the datasheet peak; 0 / 0 when the use has no such
 * parameter. */
void gpi_cal_param_range(gp_cal_param p, int use, double *min, double *max);

/* The same from memory (`name` for messages). */
gp_status gpi_catalog_apply_profile_text(gp_catalog *cat, const char *name, const char *text, size_t len,
                                         gp_error *err);

#endif /* GPI_PRIVATE_CALIBRATE_H */
