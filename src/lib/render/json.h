/*
 * json.h: the one JSON writer (json.c): every document the CLI's --json prints and the web API
 * answers is built here from library structs and dumped by gpi_json_text. Library-internal.
 */
#ifndef GPI_JSON_H
#define GPI_JSON_H

#include "internal.h"

/* Dump doc (taken: released here) indented by 2, keys in insertion order, with a final
 * newline, into a malloc'd *text. GP_ENOMEM if doc is NULL (a failed build) or memory runs out. */
gp_status gpi_json_text(json_t *doc, char **text, size_t *len, gp_error *err);

json_t *gpi_json_layout(const gp_layout *l);
json_t *gpi_json_memory(const gp_memory *m);
json_t *gpi_json_kv(const gp_memory *m);
json_t *gpi_json_reasons(const gp_reason *r, int n);
json_t *gpi_json_fit(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_fit_result *r);
json_t *gpi_json_serve(const gp_model *m, const gp_workload *w, const gp_scenario *sc, const gp_serve_answer *a);
/* key_low and key_high beside key in o: value v's likely range from the signed error
 * percentiles p10 / p90 (a rate divides by 1 + error, a time multiplies; docs/serving.md). */
void gpi_json_serve_range(json_t *o, const char *key, double v, int is_rate, double p10, double p90);
json_t *gpi_json_train(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                       const gp_train_answer *a);
json_t *gpi_json_model(const gp_model *m, const gp_param_breakdown *p);
json_t *gpi_json_gpu(const gp_gpu *g);
#define GPI_SHOWN_DTYPES 7
extern const gp_dtype gpi_shown_dtypes[GPI_SHOWN_DTYPES]; /* precisions `model show` lists */

#endif
