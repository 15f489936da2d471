/*
 * validate.h: gpuplan-validate, the accuracy harness (tools/validate/). It maps the published
 * measurements of validation/(name).jsonl to gpuplan's inputs, predicts each with the library and
 * reports the errors (docs/validation.md). It links libgpuplan only, never the CLI.
 *
 * One file per group of categories maps its cases: memory.c (infer_memory, train_memory,
 * finetune_memory), train.c (train_throughput), serve.c (infer_throughput); map.c holds the
 * helpers they share, loso.c the leave-one-source-out refits, report.c the statistics and
 * the Markdown report.
 *
 * A performance model plugs in as a gpv_model: a function that predicts a case given a
 * parameter set (the constants it fits on cases), the grid each constant is searched on, and
 * the shipped values. The harness reports the shipped values' errors and, for every source,
 * the errors when the constants are refitted on the other sources only.
 */
#ifndef GPV_VALIDATE_H
#define GPV_VALIDATE_H

#include "internal.h" /* libgpuplan's private declarations (src/lib): the harness maps cases onto modules */

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#define GIB 1073741824.0

/* One compared figure of one case. */
typedef struct vrow {
    char id[96];
    char category[24];
    char source[64];  /* the case's source key (vcase_source) */
    char gpu_gen[24]; /* the GPU generation of the case (vcase_gpu_generation) */
    /* groups of the bias report, where the model tags them ("" otherwise) */
    char precision[12];  /* "16-bit", "fp8", "fp4" */
    char moe[8];         /* "dense", "MoE" */
    char framework[16];  /* "megatron", "fsdp", "deepspeed" */
    char group[32];      /* dense or MoE and the precision as stated (vcase_group) */
    char model_type[64]; /* the model's architecture (gp_model.model_type: "gpt_oss", "llama") */
    char quantity[48];
    double measured, predicted; /* same unit */
    char unit[8];
    int bound; /* 1: a pass/fail bound check, error not counted */
    int pass;
} vrow;

/* The rows of a run (grown as needed). */
typedef struct vrows {
    vrow *r;
    int n, cap;
    int oom; /* a row could not be stored */
} vrows;

void vrows_free(vrows *rs);

/* Add a compared figure / a pass-fail bound for case c. */
void vadd(vrows *rs, json_t *c, const char *quantity, double measured, double predicted, const char *unit);
/* The last row's model architecture (gp_model.model_type), for the model_type group. */
void vtag_model_type(vrows *rs, const gp_model *m);
void vadd_bound(vrows *rs, json_t *c, const char *quantity, double limit, double predicted, const char *unit, int pass);

/* Map a case's model / GPU to gpuplan's; 0 if unknown. */
int vmap_model(const gp_catalog *cat, json_t *c, gp_model *m);
const gp_gpu *vmap_gpu(const gp_catalog *cat, json_t *c);
/* A number of an object (NAN if absent), an integer field ("FSDP 8" -> 8). */
double vnum(json_t *obj, const char *key);
int vint(json_t *obj, const char *key, int dflt);
/* Case-insensitive substring test. */
int vcontains(const char *hay, const char *needle);
/* The Megatron-Core selective modules a case's recompute text names ("selective (layernorm,
 * moe)": GP_RECOMPUTE_LAYERNORM | GP_RECOMPUTE_MOE); 0 where it names none (core_attn). */
unsigned vrecompute_modules(const char *r);

/* The source key of a case: its `source_id` when given, else the first word of `source`
 * (a repository owner/name, a URL's owner/name, or the first author), lower case. */
void vcase_source(json_t *c, char *out, size_t n);
/* The GPU generation of a case's `hardware.gpu` ("Ampere", "Hopper", ...; "unknown"). */
void vcase_gpu_generation(json_t *c, char *out, size_t n);
/* "MoE" (model.moe) or "dense", then the precision: settings.precision as the case states it
 * normalized to the format it names ("fp8", "nvfp4", "mxfp4", ...; "fp8" when the model's name
 * or the TensorRT-LLM perf table says so),
 * else "16-bit" ("MoE nvfp4", "dense 16-bit"). */
void vcase_group(json_t *c, char *out, size_t n);
/* train_throughput cases naming a catalog model and their layout (train_presets.c), predicted
 * with the training constants v (gpv_model_train_throughput's) */
void validate_train_preset(const gp_catalog *cat, json_t *c, const double *v, vrows *rs);
/* gpi_train_perf_estimate with the training constants v in place of the catalog's fit (train.c) */
gp_status vtrain_estimate(const gp_model *m, const gp_gpu *g, const gp_cluster *cl, const gp_workload *w,
                          const gp_layout *l, const double *v, gp_train_perf *out);
/* Tag the last row with the groups the training bias report reads (precision, dense / MoE,
 * framework) */
void vtrain_tag(vrows *rs, const gp_model *m, const gp_workload *w, const gp_cluster *cl);

/* ---- models: what the harness predicts with, and what it may refit ------------------- */
#define GPV_MAX_PARAMS 8

/* One fitted constant and the grid it is searched on: lo, lo + step, ..., hi. */
typedef struct gpv_param {
    const char *name, *unit;
    double lo, hi, step;
} gpv_param;

typedef struct gpv_model {
    const char *category; /* the cases it predicts */
    int nparams;          /* 0: nothing fitted on cases */
    const gpv_param *params;
    /* the shipped values of the constants (the library's, read from `cat` where they are data) */
    void (*defaults)(const gp_catalog *cat, double *v);
    /* the values a constant takes in a fit where no case reads it (NULL: the shipped ones);
     * a constant fitted on one source alone must not carry that source into its own
     * held-out prediction. Each must lie on the constant's grid. */
    void (*priors)(const gp_catalog *cat, double *v);
    unsigned (*depends)(json_t *c); /* bit i: the case's prediction reads constant i (NULL: all) */
    /* add the rows of case c predicted with constants v (nothing when it cannot be mapped) */
    void (*predict)(const gp_catalog *cat, json_t *c, const double *v, vrows *rs);
    /* 0: each held-out fit descends in unit grid steps from the shipped values (cheap when a
     * prediction is a simulation). 1 (blind): each fit starts from the priors, not from the
     * shipped all-data values, and scans every constant's whole grid per pass; the harness
     * also fits on every source (held out: none), which is what the model ships. */
    int blind;
    /* what each fit minimises over the fit set's rows (NULL: vfit_objective, loso.h) */
    double (*objective)(const vrows *rs);
} gpv_model;

extern const gpv_model gpv_model_infer_memory, gpv_model_train_memory, gpv_model_finetune_memory,
    gpv_model_train_throughput, gpv_model_infer_throughput;

/* Statistics of one group of rows: absolute and signed errors in percent. */
typedef struct vstats {
    int n, bounds, bounds_passed;
    double median, p90, worst, median_signed;
    double p10_signed, p90_signed; /* the signed error's 10th / 90th percentiles (the range) */
} vstats;

/* Rows of `category` (NULL: any) whose GPU generation, else source, matches (NULL: any). */
void vstats_of(const vrows *rs, const char *category, const char *source, const char *gpu_gen, vstats *out);

#endif
