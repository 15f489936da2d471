/*
 * private/export.h: the launch-file renderers behind gp_export_run and gp_result_plan_export.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_EXPORT_H
#define GPI_PRIVATE_EXPORT_H

#include "gpuplan.h"
#include "private/base.h"

/* ---- from include/gpuplan/export.h ---- */
/* What an export can target: the serving engines (gp_engine's, as each is launched) and the
 * training launchers. Not a second engine enum of the API: the public one is gp_engine; this
 * is the export module's table index (tools/api_rename.sh names it gpi_export_target). */
typedef enum gpi_export_target {
    GPI_EXPORT_VLLM = 0,      /* vllm serve */
    GPI_EXPORT_SGLANG,        /* python -m sglang.launch_server */
    GPI_EXPORT_TGI,           /* text-generation-launcher (docker run) */
    GPI_EXPORT_LLAMACPP,      /* llama-server */
    GPI_EXPORT_TRTLLM,        /* trtllm-serve + extra LLM API options YAML */
    GPI_EXPORT_DEEPSPEED,     /* ds_config.json + deepspeed launcher */
    GPI_EXPORT_MEGATRON,      /* torchrun pretrain_gpt.py with Megatron-LM arguments */
    GPI_EXPORT_TORCHRUN_FSDP, /* torchrun + a PyTorch FSDP configuration snippet */
    GPI_EXPORT_SLURM,         /* sbatch script wrapping srun + torchrun (Megatron-LM) */
    GPI_EXPORT_COUNT
} gpi_export_target;

/* What an engine runs: serving (inference) or training. */
typedef enum gpi_export_kind {
    GPI_EXPORT_KIND_SERVE = 0,
    GPI_EXPORT_KIND_TRAIN = 1,
} gpi_export_kind;

/* CLI spelling ("vllm", "torchrun-fsdp"); "unknown" for out-of-range values. */
const char *gpi_export_engine_name(gpi_export_target e);

/* Parse a name, case-insensitively (accepts "llama.cpp", "llama-cpp", "tensorrt-llm",
 * "trt-llm", "fsdp", "torchrun", "sbatch" as aliases). GPI_EXPORT_COUNT if unknown. */
gpi_export_target gpi_export_engine_parse(const char *name);

/* Serving or training engine. */
gpi_export_kind gpi_export_engine_kind(gpi_export_target e);

/* Engine version whose flags the export uses ("vLLM 0.11.0"); "" for out-of-range values. */
const char *gpi_export_engine_version(gpi_export_target e);

#define GPI_EXPORT_PATH_MAX 512

/* The job to launch. Borrowed pointers must outlive the render call. */
typedef struct gpi_export_job {
    const gp_model *model;  /* architecture (Megatron shape flags) and dtype; required */
    const char *model_path; /* what the engine loads: HF repo id, local folder or .gguf
                               (NULL/"": model->name, else model->id) */
    const gp_gpu *gpu;      /* may be NULL (used in comments only) */
    const gp_workload *w;   /* task, dtype, kv_dtype, context/seq, batch, optimizer,
                               offload, gpu_memory_utilization, max_num_seqs, ...; required */
    const gp_layout *l;     /* tp, pp, dp, cp, ep, zero, recompute, micro/global batch;
                               required */
    int gpus_per_node;      /* GPUs per node (0: 8, or fewer when the job is smaller) */
    int nodes;              /* nodes (0: ceil(gpus of the layout / gpus_per_node)) */
    /* serving */
    int64_t max_model_len; /* 0: w->context */
    int port;              /* 0: 8000 */
    /* training */
    char train_data[GPI_EXPORT_PATH_MAX]; /* dataset path/prefix ("" : a placeholder) */
    double train_tokens;                  /* 0: train-iters placeholder; else iters = tokens/(gbs*seq) */
    const char *job_name;                 /* Slurm job name (NULL: "gpuplan") */
    const char *time_limit;               /* Slurm --time (NULL: "24:00:00") */
    int cpus_per_task;                    /* Slurm --cpus-per-task (0: 16) */
    int ep_overlap;                       /* Megatron-LM: hide the EP all-to-all behind another micro-batch's
                                             expert GEMMs (--overlap-moe-expert-parallel-comm), where
                                             Megatron-Core admits it (docs/export.md); 0: off, its default */
    int ep_dispatcher;                    /* Megatron-LM: gp_ep_dispatcher, the EP token dispatcher */
    /* serving service (docs/export.md "What a service needs") */
    int replicas;               /* model copies behind one endpoint (0: 1; the engine's own DP is one copy);
                                   more than one adds deploy.yaml (Kubernetes) and serve.sbatch */
    const char *api_key_env;    /* environment variable holding the API key (NULL: "API_KEY";
                                   "": no key); the key itself is never written into a file */
    int audit_log;              /* 1: log every request (a data profile asks for audit logs) */
    int chat;                   /* 1: a chat service: serve the family's Instruct checkpoint when
                                   the catalog has one (id "<model>-instruct") */
    const gp_catalog *catalog;  /* for the Instruct checkpoint (NULL: serve the model as given) */
    const gp_catalog *profiles; /* engine profiles (data/engines.json): the settings the prediction
                                   assumes that a launch file must state, TensorRT-LLM's CUDA-graph
                                   sizes (NULL: the engine's own defaults) */
    const char *served_name;    /* name clients ask for (NULL: the catalog id) */
    const char *host;           /* address the server listens on (NULL: "0.0.0.0", all) */
} gpi_export_job;

/* The task an engine runs when the job does not say: megatron, deepspeed, torchrun-fsdp and
 * slurm train (a job left at infer becomes train), serving engines infer. `asked` is kept when
 * the engine can run it. */
gp_task gpi_export_engine_task(gpi_export_target e, gp_task asked);

/* Fill a job with defaults (all zero/NULL, gpus_per_node 0 = auto, port 8000). */
void gpi_export_job_defaults(gpi_export_job *job);

/* Render the launch files for `engine`. `out` is caller-owned; on success it holds n files
 * (free with gp_export_files_free), on failure nothing (already freed). Errors:
 * GP_EINVAL when the engine does not run the job's task (e.g. megatron for inference, vllm
 * for training) or a field is out of range; GP_EUNSUPPORTED for a layout the engine cannot
 * express (e.g. pipeline parallelism in llama.cpp); GP_ENOMEM. */
gp_status gpi_export_render(gpi_export_target engine, const gpi_export_job *job, gp_export_files *out, gp_error *err);

/* The main command line of a job on an engine, one line, into buf (truncated safely to cap).
 * Same errors as gpi_export_render. */
gp_status gpi_export_command(gpi_export_target engine, const gpi_export_job *job, char *buf, size_t cap, gp_error *err);

#endif /* GPI_PRIVATE_EXPORT_H */
