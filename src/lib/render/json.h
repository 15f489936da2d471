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
/* "time", "cost", "tokens-per-dollar" (gp_rank_by). */
const char *gpi_rank_name(int r);
/* Replicas x attention-DP ranks a serving answer's figures scale by: the simulation is one
 * attention-DP rank of one replica; the answer's throughput is that times this. */
double gpi_serve_scale(const gp_serve_answer *a);
/* A figure's likely range from the signed error percentiles p10 / p90: a rate divides by
 * 1 + error, a time multiplies (docs/serving.md "Ranges"). */
void gpi_serve_range(double v, int is_rate, double p10, double p90, double *lo, double *hi);
json_t *gpi_json_train(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                       const gp_train_answer *a);
/* The plan's document (docs/cli.md "plan"): texts in pt-BR when pt_br; `question` replaces
 * the question gpuplan words (NULL: gpi_plan_question). */
json_t *gpi_json_plan(const gp_plan_request *req, const gp_plan_result *res, int pt_br, const char *question);
/* The question a plan answers, in words ("Serve Llama-3.1-70B to 300 concurrent users ..."). */
void gpi_plan_question(char *out, size_t n, const gp_plan_request *req, const gp_plan_result *res, int pt_br);
/* A data rule's text and citation in the language asked. */
const char *gpi_rule_text(const gp_rule *r, int pt_br);
const char *gpi_rule_citation(const gp_rule *r, int pt_br);
json_t *gpi_json_model(const gp_model *m, const gp_param_breakdown *p);
json_t *gpi_json_gpu(const gp_gpu *g);
#define GPI_SHOWN_DTYPES 7
extern const gp_dtype gpi_shown_dtypes[GPI_SHOWN_DTYPES]; /* precisions `model show` lists */

#endif
