/*
 * train_internal.h (private): the training step estimate with the model's parameter counts
 * already made, for the layout search, which evaluates millions of layouts of one model
 * (gp_model_params would otherwise run once per layout).
 */
#ifndef GPI_TRAIN_INTERNAL_H
#define GPI_TRAIN_INTERNAL_H

#include "internal.h"

gp_status gpi_train_perf_estimate_p(const gp_model *m, const gp_param_breakdown *p, const gp_gpu *gpu,
                                    const gp_cluster *c, const gp_workload *w, const gp_layout *l, double train_tokens,
                                    gp_train_perf *out, gp_error *err);

/* Whether Megatron-Core admits its EP all-to-all overlap (--overlap-moe-expert-parallel-comm)
 * for this model and layout: an MoE model, EP > 1, no full recomputation, and interleaved
 * virtual stages when PP > 1 (core_v0.19.0 transformer_config.py:2674-2699). The step model
 * and the Megatron exporter apply the option only where this holds. */
int gpi_ep_overlap_admitted(const gp_model *m, const gp_layout *l);

#endif
