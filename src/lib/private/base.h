/*
 * private/base.h: work budgets, parsers of the enums, model file scanners, memory and fit, links.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_BASE_H
#define GPI_PRIVATE_BASE_H

#include "gpuplan.h"

/* ---- from include/gpuplan.h ---- */
#define GPI_WORK_DEFAULT       4e8                   /* seconds (15x the built-in plan example): the web API */
#define GPI_WORK_LARGE         4e10                  /* minutes: gpi_work_init(w, 1) */
#define GPI_WORK_PER_LAYOUT    50.0                  /* units one evaluated training layout counts */
#define GPI_WORK_BYTES_DEFAULT ((uint64_t)512 << 20) /* memory one question may allocate */
#define GPI_WORK_BYTES_LARGE   ((uint64_t)8 << 30)

/* Progress of a long question: `done` units of at most `limit`. Return nonzero to cancel (the
 * call then returns GP_ECANCELED): a server uses it for a per-request deadline. Called from
 * the thread doing the work, about every GPI_WORK_PROGRESS_EVERY units. */
typedef int (*gpi_progress_fn)(void *ctx, double done, double limit);

#define GPI_WORK_PROGRESS_EVERY 1e6

/* A budget for one question, shared by the calls it makes. Not shared between threads. */
struct gp_work {
    double limit;             /* units allowed (<= 0: GPI_WORK_DEFAULT; at most GP_WORK_MAX) */
    uint64_t max_bytes;       /* allocation allowed (0: GPI_WORK_BYTES_DEFAULT; at most _LARGE) */
    double used;              /* units spent so far (the library adds to it) */
    gpi_progress_fn progress; /* NULL: no progress reports */
    void *progress_ctx;
    double next_report; /* internal: `used` at the next progress call */
    /* where the question is, for a progress callback to show (set by the library; the
     * progress callback is also called when the stage or the candidate changes) */
    const char *stage; /* "layout search", "capacity search", "simulation", "sizing"; or NULL */
    char item[64];     /* the candidate being worked on ("H100-SXM-80GB bf16"), or "" */
    int step, steps;   /* candidates done of the stage's total (steps 0: not counted) */
};

/* The default budget, or with allow_large the largest one (what the run functions use: their
 * own gp_run_ctx.max_work governs below it). */
void gpi_work_init(gp_work *w, int allow_large);

/* Parse a dtype name (case-insensitive; accepts aliases such as "bfloat16", "float16",
 * "e4m3", "gptq", "awq", "q4"). Returns GP_DTYPE_UNKNOWN if not recognised. */
gp_dtype gpi_dtype_parse(const char *name);

/* Read only the header of one .safetensors file and add its tensors to m's exact tallies. */
gp_status gpi_safetensors_scan_file(const char *path, gp_model *m, gp_error *err);

/* Same over a buffer holding the file's first bytes; `file_size` is the file's full size
 * (used to check that every tensor's data lies inside the file). */
gp_status gpi_safetensors_scan_buffer(const uint8_t *buf, size_t len, uint64_t file_size, const char *name, gp_model *m,
                                      gp_error *err);

/* Same over a buffer holding the file's first bytes (`file_size` as above). */
gp_status gpi_model_from_gguf_buffer(const uint8_t *buf, size_t len, uint64_t file_size, const char *name,
                                     gp_model *out, gp_error *err);

/* Name of a ggml tensor type id ("Q4_K"), NULL if unknown; bytes of `n` elements of it
 * (0 if the type is unknown or n is not a multiple of its block). */
const char *gpi_ggml_type_name(uint32_t type);

uint64_t gpi_ggml_type_bytes(uint32_t type, uint64_t n);

gp_task gpi_task_parse(const char *s); /* GP_TASK_COUNT if unknown */

gp_recompute gpi_recompute_parse(const char *s); /* GP_RECOMPUTE_COUNT if unknown */

/* Megatron-Core's --recompute-modules names, comma- or space-separated ("layernorm,moe_act"),
 * to GP_RECOMPUTE_* bits: 0 and *out set, or -1 with *bad at the first unknown name. */
int gpi_recompute_modules_parse(const char *s, unsigned *out, const char **bad);

/* The modules of `mods` by Megatron's names, separated by `sep` ("layernorm moe"), in buf of
 * size n (always terminated); the effective set: 0 under selective is core_attn. */
void gpi_recompute_modules_format(unsigned mods, const char *sep, char *buf, size_t n);

/* The modules a layout recomputes selectively: its recompute_modules, core_attn where it names
 * none, 0 unless GP_RECOMPUTE_SELECTIVE. */
unsigned gpi_recompute_modules_of(const gp_layout *l);

/* GP_EINVAL (field recompute_modules) where the layout's modules are unknown bits, go with
 * other than selective recomputation, or name moe_act / mla_up_proj for a model without
 * experts / MLA (Megatron-Core refuses those at start-up). */
gp_status gpi_recompute_modules_check(const gp_model *m, const gp_layout *l, gp_error *err);

gp_optimizer gpi_optimizer_parse(const char *s); /* GP_OPT_COUNT if unknown */

gp_offload gpi_offload_parse(const char *s); /* GP_OFFLOAD_COUNT if unknown */

gp_engine gpi_engine_parse(const char *s); /* GP_ENGINE_COUNT if unknown */

/* Sensible defaults: bf16, context 4096, batch 1, seq 4096, AdamW, flash attention,
 * vLLM-style parameters at their documented defaults. */
void gpi_workload_defaults(gp_workload *w, gp_task task);

/* tp = pp = dp = cp = ep = 1, zero 0, micro_batch 1, no recomputation. */
void gpi_layout_defaults(gp_layout *l);

/* Estimate memory per GPU for a model, GPU, workload and layout. */
gp_status gpi_memory_estimate(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                              gp_memory *out, gp_error *err);

/* Decide: does the workload fit on one `gpu`; if not, the smallest count and layout that
 * does (inference: TP inside the scale-up domain, then PP; training: ZeRO/FSDP, TP, PP,
 * offload), the reasons, and larger catalog GPUs (cat may be NULL) that hold it alone.
 * `given` fixes the layout dimensions that are > 0 in it... (NULL: search from 1 GPU). */
gp_status gpi_fit(const gp_catalog *cat, const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                  const gp_layout *given, gp_fit_result *out, gp_error *err);

/* The verdict's reasons in a language: "pt-BR" puts each reason's Portuguese sentence (numbers
 * written 1.234,5) in `message`; "en" or NULL leaves them in English. */
void gpi_fit_set_lang(gp_fit_result *r, const char *lang);

/* An interconnect (data/links.json). */
typedef enum gpi_link_kind {
    GPI_LINK_SCALE_UP = 0, /* NVLink / NVSwitch / Infinity Fabric inside a node or rack */
    GPI_LINK_HOST,         /* PCIe between GPUs of one host */
    GPI_LINK_SCALE_OUT,    /* InfiniBand / RoCE / Ethernet between nodes */
    GPI_LINK_KIND_COUNT
} gpi_link_kind;

typedef struct gpi_link {
    char id[48]; /* "nvlink4", "pcie5", "ib-ndr" */
    char name[96];
    gpi_link_kind kind;
    double bw_gbps_per_direction; /* per GPU, one direction, GB/s */
    double latency_us;            /* small-message latency, 0 if no source gave one */
} gpi_link;

size_t gpi_catalog_link_count(const gp_catalog *cat);

/* Borrowed pointer valid until gp_catalog_free. */
const gpi_link *gpi_catalog_link_at(const gp_catalog *cat, size_t i);

gp_status gpi_catalog_find_link(const gp_catalog *cat, const char *name, const gpi_link **out, gp_error *err);

/* The link tensor parallelism of a GPU runs over: its scale-up fabric (gpus.json
 * `scale_up_link`) when its domain is larger than a 2-GPU bridge, else its PCIe link; NULL if
 * the catalog has none. */
const gpi_link *gpi_catalog_gpu_link(const gp_catalog *cat, const gp_gpu *gpu);

/* The PCIe x16 link of the GPU's generation (links.json `pcie<gen>`; Gen4 when unknown). */
const gpi_link *gpi_catalog_gpu_host_link(const gp_catalog *cat, const gp_gpu *gpu);

/* On-demand price per GPU-hour in USD from data/prices.json (with --data-dir overrides);
 * 0 when the catalog has none. */
double gpi_catalog_gpu_price(const gp_catalog *cat, const gp_gpu *gpu);

/* ---- likely ranges (core/ranges.c) ----
 * Every predicted time and throughput carries the 10th and 90th percentiles of the signed error
 * (predicted / measured - 1) on comparable published runs held out of the fit: training's from
 * data/kernels.json "fit", serving's from data/engines.json "error_ranges". Comparable: the
 * same model architecture (gp_model.model_type) where the validation set holds enough of its
 * runs, else dense or MoE models. Both files load into a gpi_range_table at catalog load. */
#define GPI_RANGE_TYPES_MAX 16

typedef struct gpi_range {
    char basis[32]; /* the model type ("llama", "gpt_oss"), or "dense" / "MoE" for a pool */
    double p10, p90;
    int cases; /* the architecture's runs; 0 for a pool */
} gpi_range;

typedef struct gpi_range_table {
    gpi_range pool[2]; /* [0] dense, [1] MoE models */
    int has_pool[2];
    gpi_range type[GPI_RANGE_TYPES_MAX];
    int n_types;
} gpi_range_table;

/* Sets the dense (moe 0) or MoE pool's range of `t` after checking it: -0.9 < p10 <= 0 <= p90
 * < 10 (a pool holds the estimate itself), not set before. On a bad range returns GP_EPARSE
 * naming `file` and `field`. */
gp_status gpi_range_set_pool(gpi_range_table *t, int moe, double p10, double p90, const char *file, const char *field,
                             gp_error *err);

/* Adds model architecture `type`'s range to `t` after checking it: a name of 1-31 characters
 * not already in `t`, -0.9 < p10 <= p90 < 10 (it may lie to one side of 0: gpuplan has then
 * erred one way on nearly all its runs), `cases` from 1 to 999,999, at most
 * GPI_RANGE_TYPES_MAX types. On a bad one returns GP_EPARSE naming `file`, `field` and the type. */
gp_status gpi_range_add_type(gpi_range_table *t, const char *type, double p10, double p90, long long cases,
                             const char *file, const char *field, gp_error *err);

/* The range for a model: its architecture's where `t` has one (model_type non-empty), else the
 * dense or MoE pool's; NULL when `t` is NULL or has neither. */
const gpi_range *gpi_range_pick(const gpi_range_table *t, const char *model_type, int moe);

#endif /* GPI_PRIVATE_BASE_H */
