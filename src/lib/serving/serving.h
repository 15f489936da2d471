/* serving.h: what the serving files share inside the library (not installed). */
#ifndef GP_SERVING_H
#define GP_SERVING_H

#include "internal.h"

/* gp_simulate that stops as soon as more counted requests miss a p99 target of `slo` than
 * a p99 allows (the result then has stopped_early = 1): the capacity search only needs to
 * know that a setup misses. */
gp_status gpi_simulate_until_miss(const gp_step_model *sm, const gp_sched_config *sc, const gp_traffic *t,
                                  const gp_slo *slo, gp_sim_result *out, gp_error *err);

#endif
