/*
 * internal.h: declarations shared inside libgpuplan (gpi_ prefix). Never installed.
 */
#ifndef GPI_INTERNAL_H
#define GPI_INTERNAL_H

#include "gpuplan.h"
#include "private/base.h"
#include "private/train.h"
#include "private/serve.h"
#include "private/export.h"
#include "private/plan.h"
#include "private/calibrate.h"
#include "private/scenario.h"
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>

/* ---- safety limits for parsers (named so tests and docs can cite them) ---- */
#define GPI_MAX_SAFETENSORS_HEADER 100000000u             /* the format's own cap (safetensors MAX_HEADER_SIZE) */
#define GPI_MAX_GGUF_TENSORS       1000000u               /* tensor infos in one GGUF */
#define GPI_MAX_GGUF_KV            100000u                /* metadata pairs in one GGUF */
#define GPI_MAX_GGUF_STRING        (16u * 1024u * 1024u)  /* one string */
#define GPI_MAX_GGUF_ARRAY         (64u * 1024u * 1024u)  /* elements of one array */
#define GPI_MAX_GGUF_HEADER        (512u * 1024u * 1024u) /* bytes of header read into memory */
#define GPI_MAX_CONFIG_BYTES       (16u * 1024u * 1024u)  /* a config.json */
#define GPI_MAX_SHARDS             4096                   /* safetensors shards in one folder */
#define GPI_MAX_DIM                ((int64_t)1 << 40)     /* any single architecture dimension */

/* ---- limits every size computation holds (docs/reliability.md, "Limits") ----
 * Tokens and sequences are at most 2^32 each, so tokens x sequences (2^64) is never formed in
 * int64: it is computed in double and converted with gpi_u64_from_double. One memory figure
 * per GPU is at most 2^60 bytes (1.15 EB), so the sum of the eight components of gp_memory
 * stays below 2^63 and the signed headroom cannot overflow. */
#define GPI_MAX_TOKENS ((int64_t)1 << 32)  /* context, seq, prompt or output tokens */
#define GPI_MAX_SEQS   ((int64_t)1 << 32)  /* batch, micro-batch, max_num_seqs */
#define GPI_MAX_BYTES  ((uint64_t)1 << 60) /* any one memory figure per GPU */

/* ---- checked arithmetic (core/checked.c): false on overflow, *out untouched ---- */
bool gpi_mul_u64_checked(uint64_t a, uint64_t b, uint64_t *out);
bool gpi_add_u64_checked(uint64_t a, uint64_t b, uint64_t *out);
bool gpi_mul_i64_checked(int64_t a, int64_t b, int64_t *out);
bool gpi_add_i64_checked(int64_t a, int64_t b, int64_t *out);
/* double -> integer without undefined behaviour: false for NaN, +-inf, negatives (u64), and
 * values beyond the limit or the type. */
bool gpi_u64_from_double(double v, uint64_t limit, uint64_t *out);
bool gpi_i64_from_double(double v, int64_t lo, int64_t hi, int64_t *out);
/* Saturating conversions (NaN -> 0) for figures that are only shown or compared. */
uint64_t gpi_u64_sat(double v);
int64_t gpi_i64_sat(double v);
/* "200 MB", "16.8 MB", "512 bytes": decimal units, as the rest of the output uses. */
void gpi_format_bytes(char *buf, size_t n, double bytes);

/* ---- work budget (core/budget.c) ---- */
/* Resolved limits of w (NULL: the defaults). */
double gpi_work_limit(const gp_work *w);
uint64_t gpi_work_max_bytes(const gp_work *w);
/* Before allocating: refuse (GP_ELIMIT) when `units` more work or `bytes` of memory would pass
 * the budget. `what` says what is asked ("a simulation of 50000 requests"), `hint` what to
 * lower ("lower --requests"). Does not spend. */
gp_status gpi_work_reserve(const gp_work *w, double units, double bytes, const char *what, const char *hint,
                           gp_error *err);
/* Spend units; reports progress; GP_ELIMIT past the limit, GP_ECANCELED when the callback
 * asks. w may be NULL (then only the default limit applies, tracked by the caller's local). */
gp_status gpi_work_spend(gp_work *w, double units, gp_error *err);
/* Say where the question is (w->stage, step of steps, the candidate printf-style; fmt may be
 * NULL) and report progress now. inner: a search inside a larger question (the capacity
 * search of a plan) keeps the outer stage another name set, and only reports. w may be NULL. */
void gpi_work_stage(gp_work *w, int inner, const char *stage, int step, int steps, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* ---- JSON before Jansson (core/json_scan.c): bounded memory for hostile documents ---- */
typedef struct gpi_json_limits {
    int max_depth;         /* nesting of objects and arrays */
    size_t max_items;      /* values + keys */
    size_t max_containers; /* objects + arrays (Jansson's costliest values) */
} gpi_json_limits;
typedef struct gpi_json_counts {
    size_t values, keys, containers;
    int depth;
} gpi_json_counts;
/* Structure and counts of a whole text (one value, whitespace around it); GP_ELIMIT past a
 * limit, GP_EPARSE on broken structure; err->offset is the byte at fault. Counts accumulate. */
gp_status gpi_json_scan(const char *s, size_t len, const gpi_json_limits *lim, gpi_json_counts *n, gp_error *err);
/* One value from s[*pos] (leading whitespace skipped); *pos ends just past it. */
gp_status gpi_json_scan_value(const char *s, size_t len, size_t *pos, const gpi_json_limits *lim, gpi_json_counts *n,
                              gp_error *err);

/* ---- errors ---- */
/* Fill err (if not NULL) and return code. printf-style message. */
gp_status gpi_fail(gp_error *err, gp_status code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void gpi_error_set_path(gp_error *err, const char *path);
/* Append a reason (code + printf-style sentence) to reasons[*n] if *n < max. */
void gpi_reason_add(gp_reason *reasons, int *n, int max, gp_reason_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
void gpi_error_set_field(gp_error *err, const char *field);

/* ---- strings ---- */
/* Copy src into dst (size n), always NUL-terminated, truncating. */
void gpi_strlcpy(char *dst, const char *src, size_t n);
/* Append a line to a note buffer (size n), with '\n' separators, truncating. */
void gpi_note(char *notes, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
int gpi_strcaseeq(const char *a, const char *b);
/* Does s end with suffix (case-insensitive)? */
int gpi_ends_with(const char *s, const char *suffix);

/* ---- embedded data ---- */
/* Borrowed bytes of an embedded data file ("data/models.json"), NULL if absent. */
const char *gpi_embedded(const char *name, size_t *size);

/* ---- calibration profiles (src/lib/calibrate/profile.c, docs/calibration.md) ---- */
/* The precision a calibration entry is keyed by: the GEMM path of a compute dtype (every
 * 16-bit and weight-only type: bf16; fp8; int8; fp4 and mxfp4: fp4; f32). */
gp_dtype gpi_cal_dtype(gp_dtype t);
/* The GPU's entry for (use, precision, engine; training: engine 0), or NULL. */
const gp_gpu_cal *gpi_cal_find(const gp_gpu *g, int use, gp_dtype dt, int engine);
/* A scale of 0 (or not finite) means 1: unchanged. */
double gpi_cal_scale(double s);
/* Apply the GPU's serving entry (if any) to a step model's rates and overhead. */
void gpi_cal_step_model(const gp_gpu *g, gp_dtype dt, int engine, gpi_step_model *sm);
/* The catalog's GPU row with this id, to apply a profile to (NULL if none). */
gp_gpu *gpi_catalog_gpu_mut(gp_catalog *cat, const char *id);
/* The catalog's note on the profile applied ("" if none); set it. */
void gpi_catalog_set_profile_note(gp_catalog *cat, const char *note);

/* The training model's uncalibrated rates (perf/train.c): FLOP/s of a GEMM of width d in a
 * compute dtype, bytes/s of memory-bound work, the share of a link NCCL reaches. */
double gpi_train_gemm_rate(const gp_catalog *cat, const gp_gpu *g, gp_dtype dt, double m, double n, double k);
double gpi_train_hbm_rate(const gp_catalog *cat, const gp_gpu *g);
double gpi_nccl_efficiency(void);

/* The serving step's time beyond its GPU work `gpu_s` (perf/infer.c, docs/serving.md "Host
 * work", "Eager steps"): the per-step overhead plus the host's per-sequence work on
 * `sequences`, which an overlap scheduler (p->host_overlap) hides behind the GPU work up to its
 * length, plus `eager_s`, the kernel-by-kernel dispatch of a step that runs without a CUDA
 * graph (gpi_perf_params.eager_layer_s x its layers; 0 for a step replayed from a graph),
 * which overlaps the GPU work in either loop and shares the host with the per-sequence work
 * under an overlap scheduler. */
double gpi_step_host_s(const gpi_perf_params *p, double gpu_s, double sequences, double eager_s);
/* The 10th and 90th percentiles of the signed serving-throughput error on comparable held-out
 * published runs (data/engines.json error_ranges; serving/engines.c): the model architecture's
 * own (m->model_type) where the file has one, else the dense or MoE pool's; basis names which
 * (the model type, "MoE" or "dense"; NULL: not wanted) and *cases the architecture's runs (0 for
 * a pool). 0 and 0 (basis "") when the catalog has none. */
void gpi_serve_error_range(const gp_catalog *cat, const gp_model *m, double *p10, double *p90, char *basis,
                           size_t basis_len, int *cases);

/* ---- decision data (catalog.c) ---- */
/* Borrowed parsed data/prices.json and data/compliance.json (merged with --data-dir). */
json_t *gpi_catalog_prices(const gp_catalog *cat);
json_t *gpi_catalog_engines(const gp_catalog *cat); /* data/engines.json (serving profiles) */
/* Its error_ranges, checked at load (gpi_serve_ranges_load); NULL for a NULL catalog. */
const gpi_range_table *gpi_catalog_serve_ranges(const gp_catalog *cat);
json_t *gpi_catalog_compliance(const gp_catalog *cat);

/* ---- hardware (hw/hardware.c) ---- */
/* Fill the GPU's link figures from the catalog's links (its PCIe bandwidth); GP_EPARSE when
 * its scale_up_link names no link. */
gp_status gpi_gpu_resolve_links(const gp_catalog *cat, gp_gpu *gpu, const char *file, gp_error *err);
/* vLLM's large-device rule from memory and name, for a gpus.json entry without the field. */
int gpi_gpu_vllm_large_rule(const gp_gpu *gpu);
/* The GPU's PCIe x16 bandwidth per direction, GB/s (Gen4 for a GPU built by hand). */
double gpi_gpu_pcie_gbps(const gp_gpu *gpu);

/* ---- files ---- */
/* Read at most max bytes of a file's start into a malloc'd buffer (NUL-terminated);
 * *file_size gets the whole file's size. */
gp_status gpi_read_file_prefix(const char *path, size_t max, uint8_t **out, size_t *len, uint64_t *file_size,
                               gp_error *err);

/* ---- models ---- */
/* Fill a gp_model from a parsed Hugging Face config object (borrowed). */
gp_status gpi_model_from_hf_json(json_t *root, const char *name, gp_model *out, gp_error *err);
/* Reset a model to all-zero defaults. */
void gpi_model_init(gp_model *m);
/* Add one tensor's tally to m (exact counts). `type_name` is the file's type string. */
void gpi_model_add_tensor(gp_model *m, const char *tensor_name, const char *type_name, int64_t elements,
                          uint64_t bytes);

#endif
