/*
 * train_internal.h (private): the training step estimate with the model's parameter counts
 * already made, for the layout search, which evaluates millions of layouts of one model
 * (gp_model_params would otherwise run once per layout).
 */
#ifndef GPI_TRAIN_INTERNAL_H
#define GPI_TRAIN_INTERNAL_H

#include "gpuplan.h"

gp_status gpi_train_perf_estimate_p(const gp_model *m, const gp_param_breakdown *p, const gp_gpu *gpu,
                                    const gp_cluster *c, const gp_workload *w, const gp_layout *l,
                                    double train_tokens, gp_train_perf *out, gp_error *err);

#endif
