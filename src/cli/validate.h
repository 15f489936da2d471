/*
 * validate.h: shared pieces of `gpuplan validate`: the result rows and the helpers that map a
 * published case (shared/validation/public.jsonl) to gpuplan's inputs. One file per group of
 * categories (validate_memory.c, validate_train.c, validate_serve.c) maps its cases.
 */
#ifndef GP_VALIDATE_H
#define GP_VALIDATE_H

#include "cli.h"

#include <math.h>

#define VALIDATE_MAX_ROWS 2048

typedef struct vrow {
    char id[96];
    char category[24];
    char quantity[48];
    double measured, predicted; /* same unit */
    char unit[8];
    int bound;                  /* 1: a pass/fail bound check, error not counted */
    int pass;
} vrow;

typedef struct vrows {
    vrow r[VALIDATE_MAX_ROWS];
    int n;
} vrows;

/* Add a compared figure / a pass-fail bound for case c. */
void vadd(vrows *rs, json_t *c, const char *quantity, double measured, double predicted, const char *unit);
void vadd_bound(vrows *rs, json_t *c, const char *quantity, double limit, double predicted, const char *unit,
                int pass);

/* Map a case's model / GPU to gpuplan's; 0 if unknown. */
int vmap_model(gp_catalog *cat, json_t *c, gp_model *m);
const gp_gpu *vmap_gpu(gp_catalog *cat, json_t *c);
/* A number of an object (NAN if absent), an integer field ("FSDP 8" -> 8). */
double vnum(json_t *obj, const char *key);
int vint(json_t *obj, const char *key, int dflt);
/* Case-insensitive substring test. */
int vcontains(const char *hay, const char *needle);

/* Per-category mappers: each adds rows for the case if it can map it. */
void validate_infer_memory(gp_catalog *cat, json_t *c, vrows *rs);
void validate_train_memory(gp_catalog *cat, json_t *c, vrows *rs);
void validate_finetune_memory(gp_catalog *cat, json_t *c, vrows *rs);
void validate_train_throughput(gp_catalog *cat, json_t *c, vrows *rs);
void validate_infer_throughput(gp_catalog *cat, json_t *c, vrows *rs);

#endif
