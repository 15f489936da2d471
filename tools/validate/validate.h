/*
 * validate.h: gpuplan-validate, the accuracy harness (tools/validate/). It maps the published
 * measurements of validation/(name).jsonl to gpuplan's inputs, predicts each with the library and
 * reports the errors (docs/validation.md). It links libgpuplan only, never the CLI.
 *
 * One file per group of categories maps its cases: memory.c (infer_memory, train_memory,
 * finetune_memory), train.c (train_throughput), serve.c (infer_throughput); map.c holds the
 * helpers they share, report.c the statistics and the Markdown report.
 */
#ifndef GPV_VALIDATE_H
#define GPV_VALIDATE_H

#include <gpuplan.h>
#include <gpuplan/serve.h>
#include <gpuplan/train.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#define GIB 1073741824.0

/* One compared figure of one case. */
typedef struct vrow {
    char id[96];
    char category[24];
    char quantity[48];
    double measured, predicted; /* same unit */
    char unit[8];
    int bound;                  /* 1: a pass/fail bound check, error not counted */
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
void vadd_bound(vrows *rs, json_t *c, const char *quantity, double limit, double predicted, const char *unit,
                int pass);

/* Map a case's model / GPU to gpuplan's; 0 if unknown. */
int vmap_model(const gp_catalog *cat, json_t *c, gp_model *m);
const gp_gpu *vmap_gpu(const gp_catalog *cat, json_t *c);
/* A number of an object (NAN if absent), an integer field ("FSDP 8" -> 8). */
double vnum(json_t *obj, const char *key);
int vint(json_t *obj, const char *key, int dflt);
/* Case-insensitive substring test. */
int vcontains(const char *hay, const char *needle);

/* Per-category mappers: each adds rows for the case if it can map it. */
void validate_infer_memory(const gp_catalog *cat, json_t *c, vrows *rs);
void validate_train_memory(const gp_catalog *cat, json_t *c, vrows *rs);
void validate_finetune_memory(const gp_catalog *cat, json_t *c, vrows *rs);
/* train_throughput cases naming a catalog model and their layout (train_presets.c) */
void validate_train_preset(const gp_catalog *cat, json_t *c, vrows *rs);
void validate_train_throughput(const gp_catalog *cat, json_t *c, vrows *rs);
void validate_infer_throughput(const gp_catalog *cat, json_t *c, vrows *rs);

/* Statistics of one group of rows: absolute errors in percent. */
typedef struct vstats {
    int n, bounds, bounds_passed;
    double median, p90, worst;
} vstats;

/* Summary of the rows of one category. */
void vstats_category(const vrows *rs, const char *category, vstats *out);

#endif
