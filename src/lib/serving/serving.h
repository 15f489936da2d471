/* serving.h: what the serving files share inside the library (not installed). */
#ifndef GP_SERVING_H
#define GP_SERVING_H

#include "internal.h"

/* gpi_simulate that stops as soon as more counted requests miss a p99 target of `slo` than
 * a p99 allows (the result then has stopped_early = 1): the capacity search only needs to
 * know that a setup misses. */
gp_status gpi_simulate_until_miss(const gpi_step_model *sm, const gpi_sched_config *sc, const gp_traffic *t,
                                  const gp_slo *slo, gp_sim_result *out, gp_error *err);

#define MAX_LAYOUTS 48

/* The perf parameters of a search at pipeline degree pp: req->params, else
 * gpi_perf_params_profile. */
void gpi_serve_params(const gpi_capacity_request *rq, const gpi_engine_profile *prof, int pp, gpi_perf_params *out);

/* Price per GPU-hour the searches rank by (data/prices.json, else the built-in table). */
double gpi_serve_price(const gp_catalog *cat, const gp_gpu *gpu);
/* Replica layouts of GPU type g the search tries, fewest GPUs first (at most MAX_LAYOUTS). */
int gpi_serve_layouts(const gpi_capacity_request *rq, const gp_gpu *g, gp_layout *out);
/* PCIe inside a PCIe server (NULL otherwise) and the network between nodes. */
void gpi_serve_links(const gp_catalog *cat, const gpi_capacity_request *rq, const gp_gpu *g, const gpi_link **intra,
                     const gpi_link **inter);

#endif
