/*
 * gpuplan/run.h: one function per question (included by gpuplan.h).
 *
 *   gp_fit_run    does it fit, on how many GPUs, and why          (gpuplan fit,   POST /api/fit)
 *   gp_train_run  step time, MFU, time to train; layout search    (gpuplan train, POST /api/train)
 *   gp_serve_run  latency and throughput under a load; capacity   (gpuplan serve, POST /api/serve)
 *   gp_plan_run   the whole decision, ranked with cost and rules  (gpuplan plan,  POST /api/plan)
 *
 * Each takes a scenario (gpuplan/scenario.h), the catalog and a run context, and returns an
 * opaque result: gp_result_json() renders the document the CLI's --json prints and the web API
 * answers (one writer, src/lib/render/json.c); typed accessors give the figures for a text
 * rendering. Every mode of a question (serve's search and evaluate, train's search, deadline
 * and fixed layout, its scaling table) lives here; a front end parses, calls one function,
 * prints.
 *
 * Ownership: *out is allocated by the run function, freed with gp_result_free (NULL is fine);
 * pointers from accessors live as long as the result. The catalog is borrowed (read-only) and
 * must outlive the result.
 * Thread safety: runs share nothing; one catalog may serve concurrent runs in many threads.
 * Errors: GP_EUSAGE for a question that is incomplete or contradictory (two loads, no model),
 * GP_ELIMIT when the context's deadline or work budget is exceeded, else what the library
 * says (GP_EINVAL, GP_ENOTFOUND, GP_EIO ...), with err->field naming the key at fault.
 */
#ifndef GPUPLAN_RUN_H
#define GPUPLAN_RUN_H

#include <stddef.h>
#include <stdint.h>

#define GP_RESULT_VERSION 1

typedef struct gp_run_ctx {
    double deadline_s;        /* stop (GP_ELIMIT) once gp_run_clock() passes this; 0: none */
    int (*cancel)(void *arg); /* non-zero: stop now (a server shutting down); NULL: never */
    void *cancel_arg;
    int api;                     /* 1: a web API request: no files read, model from the catalog
                                    or inline, the API's bounds (gp_scenario_check_api_bounds) */
    double max_work;             /* work budget: simulated requests x steps per request summed
                                    over a search (0: GP_RUN_DEFAULT_WORK, API: GP_RUN_API_WORK).
                                    The scenario's max_work replaces it; in an API context it
                                    may only lower it (a larger one is refused, GP_ELIMIT) */
    const char *nvml_path;       /* gpu "local": the NVML library (NULL: the default) */
    gp_run_progress_fn progress; /* where a long run stands (gpuplan.h); NULL: not reported */
    void *progress_arg;
} gp_run_ctx;

/* The budget when none is given (the CLI): 1e11 simulated token-steps (a 300-user search of
 * every GPU is ~5e8); the web API: 1e10. One number for both the estimate made before
 * anything runs and the count kept while it runs; at most GP_WORK_MAX (the key max_work,
 * the CLI's --max-work, raises it; docs/reliability.md). */
#define GP_RUN_DEFAULT_WORK 1e11
#define GP_RUN_API_WORK     1e10

/* Monotonic seconds (for deadline_s = gp_run_clock() + budget). Thread-safe. */
GP_API double gp_run_clock(void);
/* Fill *ctx with the defaults: no deadline, no cancel, no progress, CLI mode (api 0),
 * max_work 0 (GP_RUN_DEFAULT_WORK). ctx must not be NULL. */
GP_API void gp_run_ctx_defaults(gp_run_ctx *ctx);

typedef struct gp_result gp_result;

/* The run functions. Parameters, the same for each:
 *   cat  the catalog (borrowed, read-only; must outlive *out);
 *   sc   the question (read; sc->command need not match: each answers its own question);
 *   ctx  deadline, cancel, budget, progress (NULL: gp_run_ctx_defaults);
 *   out  set to a new result on GP_OK, to NULL on failure; free with gp_result_free;
 *   err  optional.
 * Any number may run at once on one catalog (each on its own thread). */
GP_API gp_status gp_fit_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                            gp_error *err);
GP_API gp_status gp_train_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                              gp_error *err);
GP_API gp_status gp_serve_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                              gp_error *err);
GP_API gp_status gp_plan_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                             gp_error *err);
/* The question named by sc->command (fit, train, serve, plan, export, table); GP_EINVAL when
 * it names none (sc NULL too). */
GP_API gp_status gp_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                        gp_error *err);
/* Free a result and everything its accessors returned (NULL: no-op). */
GP_API void gp_result_free(gp_result *r);

/* GP_RESULT_VERSION of the result (0 for NULL). */
GP_API int gp_result_version(const gp_result *r);
/* The question it answers, one GP_CMD_* bit (0 for NULL). */
GP_API unsigned gp_result_command(const gp_result *r);
/* The JSON document (indented, keys in order, ending in a newline; docs/cli.md gives its keys):
 * malloc'd NUL-terminated into *text (NULL on failure), its length in *len; free with
 * gp_text_free. GP_EINVAL for a NULL result; GP_ENOMEM. Thread-safe on a shared result. */
GP_API gp_status gp_result_json(const gp_result *r, char **text, size_t *len, gp_error *err);
/* Free a text the library returned (gp_result_json, gp_result_report, the catalog and model
 * documents). NULL: no-op. */
GP_API void gp_text_free(char *text);
/* The answer as the text `gpuplan fit|train|serve|table` prints (plan: gp_result_report),
 * malloc'd into *text, free with gp_text_free. GP_EINVAL for an export (its files are the
 * answer, gp_result_export). */
GP_API gp_status gp_result_text(const gp_result *r, char **text, size_t *len, gp_error *err);

/* ---- what each answer holds ----
 * Accessors return a pointer into the result (borrowed: valid until gp_result_free, never to
 * be freed or changed), or NULL for a NULL result or one of another question. Thread-safe:
 * a result is read-only once returned and may be read from several threads. */
GP_API const gp_model *gp_result_model(const gp_result *r);
GP_API const gp_gpu *gp_result_gpu(const gp_result *r); /* the GPU asked (plan: NULL) */
GP_API const gp_workload *gp_result_workload(const gp_result *r);
GP_API const gp_scenario *gp_result_scenario(const gp_result *r);

GP_API const gp_fit_result *gp_result_fit(const gp_result *r);

typedef enum gp_serve_mode { GP_SERVE_MODE_SEARCH = 0, GP_SERVE_MODE_EVALUATE } gp_serve_mode;

typedef struct gp_serve_answer {
    gp_serve_mode mode;
    int found;                        /* a setup (search: meeting the targets) */
    gp_serve_option best;             /* the setup */
    int serving;                      /* replicas carrying the load (search with n+1: one fewer) */
    int64_t max_len;                  /* longest request, prompt + output tokens */
    gp_traffic traffic;               /* the load as simulated (trace: borrowed pointer cleared) */
    size_t trace_len;                 /* requests in the trace (trace load) */
    const gp_capacity_result *search; /* reasons, options, one_replica_fewer (evaluate: empty) */
    int default_load;                 /* no load given: 256 closed-loop users (the engines' default cap) */
    gp_spec_decode spec;              /* speculative decoding asked (draft_tokens 0: off) */
    const gp_disagg_result *disagg;   /* disaggregated pools (disagg asked), else NULL */
    /* the likely range: the 10th and 90th percentiles of the signed throughput error
     * (predicted / measured - 1) on comparable published runs held out of every fit
     * (data/engines.json error_ranges, docs/serving.md "Ranges"); 0 and 0: none known.
     * A throughput X is likely in [X / (1 + p90), X / (1 + p10)], a latency L in
     * [L x (1 + p10), L x (1 + p90)]. Comparable: the same model architecture where the file
     * has its range, else dense or MoE models */
    double error_p10, error_p90;
    char error_basis[32]; /* whose runs: the model type ("gpt_oss"), "MoE" or "dense"; "" none */
    int error_cases;      /* the architecture's runs (0 for the dense / MoE pools) */
} gp_serve_answer;
GP_API const gp_serve_answer *gp_result_serve(const gp_result *r);

#define GP_TRAIN_MAX_SCALE_ROWS 24

typedef struct gp_train_scale_row {
    int gpus, ok;
    gp_train_candidate best;
} gp_train_scale_row;

typedef struct gp_train_answer {
    const char *mode; /* "search", "deadline", "fixed" */
    int fixed;        /* one layout evaluated */
    gp_cluster cluster;
    const gp_train_search_result *res;
    int64_t global_batch;
    double seconds; /* time the search took */
    int n_rows;     /* the scaling table (scaling asked) */
    gp_train_scale_row rows[GP_TRAIN_MAX_SCALE_ROWS];
} gp_train_answer;
GP_API const gp_train_answer *gp_result_train(const gp_result *r);

GP_API const gp_plan_request *gp_result_plan_request(const gp_result *r);
GP_API const gp_plan_result *gp_result_plan(const gp_result *r);
/* The plan's report in the scenario's format (key format: text, markdown, html; json is
 * gp_result_json) and language (key lang): malloc'd into *text, length *len; free with
 * gp_text_free. GP_EINVAL when r is not a plan's; GP_ENOMEM. */
GP_API gp_status gp_result_report(const gp_result *r, char **text, size_t *len, gp_error *err);
/* The launch files of plan option `option` (an index into gp_result_plan(r)->options; < 0:
 * the recommended one), rendered for the engine the option runs on, as `gpuplan plan --export`
 * writes them (docs/export.md).
 * cat: the catalog the plan was run with (borrowed). out: caller-owned; on GP_OK it holds the
 * files, free their contents with gp_export_files_free; on failure it is left empty.
 * Errors: GP_EINVAL (NULL argument, option out of range), GP_EUSAGE (r is not a plan's),
 * GP_ENOTFOUND (no option is allowed: nothing to export), else the renderer's (GP_EINVAL,
 * GP_EUNSUPPORTED for a layout the engine cannot express, GP_ENOMEM).
 * Thread safety: reads r and cat only; distinct `out`s may be filled concurrently. */
GP_API gp_status gp_result_plan_export(const gp_catalog *cat, const gp_result *r, int option, gp_export_files *out,
                                       gp_error *err);

/* ---- table: the classic sizing table (gpuplan table) ---- */
/* Rules of thumb, bytes per parameter: inference at 16-bit weights; training with AdamW in
 * mixed precision 2 (weights) + 2 (gradients) + 12 (fp32 master, momentum, variance),
 * Rajbhandari et al. 2020 (ZeRO), section 3, commonly quoted as 12-18 bytes/param. */
#define GP_TABLE_RULE_INFER_BYTES 2
#define GP_TABLE_RULE_TRAIN_BYTES 16
#define GP_TABLE_RULE_TRAIN_LOW   12
#define GP_TABLE_RULE_TRAIN_HIGH  18
#define GP_TABLE_ROWS             4

typedef struct gp_table_part {
    gp_memory one;     /* the whole job on one GPU (TP = PP = DP = 1) */
    gp_fit_result fit; /* the smallest layout of the GPU that holds it */
    char layout[64];   /* "2x TP2", "1x", "none" */
} gp_table_part;

typedef struct gp_table_row {
    gp_model m;
    int64_t params;
    gp_table_part infer, train;
} gp_table_row;

typedef struct gp_table_answer {
    int n;
    gp_table_row rows[GP_TABLE_ROWS]; /* one real catalog model per size class: 8B, 13B, 70B, 405B */
    gp_workload infer, train;         /* one bf16 sequence of `context` tokens; AdamW at `seq`, micro-batch 1 */
} gp_table_answer;

/* Every row through the library (the memory of the job on one GPU, fit's smallest layout);
 * keys gpu, context (default 8192), seq (4096). Parameters as the run functions above;
 * gp_result_table gives the rows. */
GP_API gp_status gp_table_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                              gp_error *err);
GP_API const gp_table_answer *gp_result_table(const gp_result *r);

/* ---- a scenario's pieces, for a front end that asks the library something else ---- */
/* The model a scenario names (catalog id, path, inline config.json, explicit architecture over
 * either) into `out`, as the run functions build it; ctx NULL: the defaults (in an API context
 * no file is read). Errors as gp_model_resolve, with err->field "model". Thread-safe. */
GP_API gp_status gp_scenario_model(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_model *out,
                                   gp_error *err);

/* ---- export: the launch files of the planned layout (gpuplan export) ---- */
/* The layout given (inference: tp and pp; training: tp, pp, dp) or the one gpuplan recommends
 * (fit's smallest; the best of the training layout search), rendered for sc->engine. Files are
 * returned, not written (gp_result_export). Parameters as the run functions above. */
GP_API gp_status gp_export_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                               gp_error *err);
GP_API const gp_export_files *gp_result_export(const gp_result *r);
/* export: the layout exported (NULL for another question). */
GP_API const gp_layout *gp_result_layout(const gp_result *r);

/* ---- the catalog as documents (GET /api/models, /api/gpus; gpuplan model list, gpus) ----
 * Each writes a malloc'd NUL-terminated JSON text into *text (length *len; NULL on failure),
 * freed with gp_text_free. Errors: GP_ENOMEM; the model's own (gp_model_params) for
 * gp_model_json. Thread-safe: they only read the catalog or model. */
GP_API gp_status gp_catalog_models_json(const gp_catalog *cat, char **text, size_t *len, gp_error *err);
/* `only`: one GPU (NULL: every GPU of the catalog). */
GP_API gp_status gp_catalog_gpus_json(const gp_catalog *cat, const gp_gpu *only, char **text, size_t *len,
                                      gp_error *err);
/* Where a model came from ("catalog", "config.json", ...; "?" out of range) and its attention
 * ("MHA", "GQA", "MQA", "MLA (...)"; m not NULL). Constant strings, never NULL; thread-safe. */
GP_API const char *gp_model_origin_name(gp_model_origin o);
GP_API const char *gp_model_attention_name(const gp_model *m);
/* {"version": GP_VERSION_STRING} (gpuplan version --json). */
GP_API gp_status gp_version_json(char **text, size_t *len, gp_error *err);
/* One model (gpuplan model show --json). */
GP_API gp_status gp_model_json(const gp_model *m, char **text, size_t *len, gp_error *err);
/* The same as the text the CLI prints: `gpuplan model show` (architecture, parameters by part,
 * weight bytes at each precision, KV cache, FLOPs), `gpuplan model list` and `gpuplan gpus`
 * (one row each; `only` as above). malloc'd into *text, free with gp_text_free. */
GP_API gp_status gp_model_text(const gp_model *m, char **text, size_t *len, gp_error *err);
GP_API gp_status gp_catalog_models_text(const gp_catalog *cat, char **text, size_t *len, gp_error *err);
GP_API gp_status gp_catalog_gpus_text(const gp_catalog *cat, const gp_gpu *only, char **text, size_t *len,
                                      gp_error *err);

#endif /* GPUPLAN_RUN_H */
