/*
 * private/train.h: the training model and layout search behind gp_train_run.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_TRAIN_H
#define GPI_PRIVATE_TRAIN_H

#include "gpuplan.h"
#include "private/base.h"

/* ---- from include/gpuplan/train.h ---- */
/* "megatron" (also "nemo", "megatron-core"), "fsdp" ("torchtitan", "fsdp2"), "deepspeed";
 * GP_FRAMEWORK_COUNT if unknown. */
gp_framework gpi_framework_parse(const char *s);

const char *gpi_framework_name(gp_framework f);

/* "none", "layer", "full" (also "full_iteration"); GP_CUDA_GRAPHS_COUNT if unknown. */
gp_cuda_graphs gpi_cuda_graphs_parse(const char *s);

const char *gpi_cuda_graphs_name(gp_cuda_graphs g);
/* "alltoall", "deepep", "hybridep" (any case; "flex": deepep); GP_EP_DISPATCHER_COUNT when
 * unknown or NULL. */
gp_ep_dispatcher gpi_ep_dispatcher_parse(const char *s);
const char *gpi_ep_dispatcher_name(gp_ep_dispatcher d);
/* "default", "fused" (also "te"), "tensorwise", "rowwise"; GP_FP8_RECIPE_COUNT if unknown. */
gp_fp8_recipe gpi_fp8_recipe_parse(const char *s);
const char *gpi_fp8_recipe_name(gp_fp8_recipe r);

/* Defaults for a GPU: its scale-up domain as the node (8 for PCIe cards), its own scale-up
 * bandwidth (or PCIe of its generation) inside, and one `inter` link per GPU between nodes
 * (`inter` may be NULL: InfiniBand NDR, 50 GB/s per GPU). */
void gpi_cluster_defaults(gp_cluster *c, const gp_catalog *cat, const gp_gpu *gpu, const gpi_link *inter);

/* Replace the link inside (inter = 0) or between (inter = 1) nodes by a catalog link: its
 * bandwidth, name and measured bus-bandwidth curve. */
void gpi_cluster_set_link(gp_cluster *c, const gp_catalog *cat, const gpi_link *link, int inter);

/* Estimate a training step. The workload gives the sequence length and precision (bf16 or
 * fp8 compute), the layout the split, micro-batch and global batch (global_batch 0: dp x
 * micro_batch). train_tokens > 0 fills time_to_train_s. */
gp_status gpi_train_perf_estimate(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c, const gp_workload *w,
                                  const gp_layout *l, double train_tokens, gp_train_perf *out, gp_error *err);

void gpi_train_search_defaults(gp_train_search_opts *o);

/* Enumerate every valid layout for the GPU count, evaluate memory and step time (no
 * allocation per layout), keep the top_k by the ranking and the Pareto front. */
gp_status gpi_train_search(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c, const gp_workload *w,
                           const gp_train_search_opts *o, gp_train_search_result *out, gp_error *err);

#endif /* GPI_PRIVATE_TRAIN_H */
