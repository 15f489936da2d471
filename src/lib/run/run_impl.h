/*
 * run_impl.h: what the run functions (src/lib/run/) share: the result object and the steps
 * from a scenario to the library's inputs. Library-internal.
 */
#ifndef GPI_RUN_IMPL_H
#define GPI_RUN_IMPL_H

#include "internal.h"

struct gp_result {
    int version;
    unsigned command;
    gp_scenario sc;
    gp_model model;
    const gp_gpu *gpu;
    gp_workload w;
    gp_layout given;
    gp_fit_result fit;
    gp_serve_answer serve;
    gp_capacity_result *cr;
    gp_disagg_result *dr;
    gp_train_answer train;
    gp_train_search_result *tres;
    gp_plan_request *preq;
    gp_plan_result *pres;
    gp_table_answer *table; /* table */
    gp_export_files *files; /* export */
    gp_layout layout;       /* export: the layout rendered */
    int export_engine;      /* gpi_export_target */
    char *json;             /* the document (gpi_json_text) */
    size_t json_len;
};

/* A run's stop check, budget and progress: passed as cancel/cancel_arg and work to the
 * simulations and searches. */
typedef struct gpi_guard {
    const gp_run_ctx *ctx;
    double budget;  /* the run's work budget: the scenario's max_work, else the context's or
                       the front end's default (CLI 1e11, API 1e10), at most GP_WORK_MAX */
    double start_s; /* gp_run_clock() when the run began (progress's elapsed time) */
    gp_work work;   /* the library's count for the run, at `budget` (the estimate before and the
                       count during are one number); API runs keep the default memory; its
                       progress goes to ctx->progress */
} gpi_guard;
int gpi_guard_stop(void *guard);
/* GP_ELIMIT (field max_work) when an API context's scenario asks more than the API allows. */
gp_status gpi_guard_init(gpi_guard *g, const gp_run_ctx *ctx, const gp_scenario *sc, gp_error *err);

gp_result *gpi_result_new(unsigned command, const gp_scenario *sc);
/* GP_EUSAGE with a message; field names the key at fault (may be NULL). */
gp_status gpi_usage(gp_error *err, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* GP_ELIMIT if `work` (simulated token-steps, estimated before anything runs) is over the
 * run's budget. */
gp_status gpi_run_budget(const gpi_guard *g, double work, const char *what, gp_error *err);

/* The model of a scenario (catalog id, path, inline config, explicit architecture). */
gp_status gpi_run_model(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_model *m,
                        gp_error *err);
/* A GPU by name ("local": this machine's first, through NVML). */
gp_status gpi_run_gpu(const gp_catalog *cat, const char *name, const gp_run_ctx *ctx, const gp_gpu **gpu,
                      gp_error *err);
/* The GPU a one-GPU question asks about (the last given, or H100-SXM-80GB). */
const char *gpi_run_gpu_name(const gp_scenario *sc);
/* Workload and fixed layout dimensions from the keys given. */
gp_status gpi_run_workload(const gp_scenario *sc, gp_workload *w, gp_error *err);
void gpi_run_layout(const gp_scenario *sc, gp_layout *given);
/* The serving load of the scenario's users / rate keys (not trace). */
void gpi_run_traffic(const gp_scenario *sc, gp_traffic *t);
/* Simulated token-steps a serving question asks for: requests x tokens each, times the
 * simulations a search over n_gpus GPU types runs (search) or one (evaluate). */
double gpi_serve_work(const gp_traffic *t, const gp_scenario *sc, int search, size_t n_gpus);
/* "K:A[:C]" (K draft tokens 1-16, acceptance in (0, 1), draft cost in [0, 1], default 0.05) or
 * "mtp" (DeepSeek-V3's multi-token prediction: 1 token, 0.8, 0.02): 0, or -1 if malformed. */
int gpi_spec_decode_parse(const char *s, gp_spec_decode *out);
/* The finished document into r->json. */
gp_status gpi_run_finish(gp_result *r, json_t *doc, gp_error *err);
/* How every run function ends: st GP_OK: the document (doc, taken; NULL when r->json is
 * already written) into r->json and r into *out; else r freed and st returned. Build doc only
 * when st is GP_OK ("st ? NULL : gpi_json_...(...)"). */
gp_status gpi_run_end(gp_result *r, gp_status st, json_t *doc, gp_result **out, gp_error *err);

#endif
