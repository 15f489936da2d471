/*
 * export_impl.h: shared pieces of the exporters (src/lib/export/). Never installed.
 *
 * Every exporter renders into bounded growable buffers (gpx_buf, capped at GPX_MAX_FILE_BYTES;
 * going past the cap or failing to allocate marks the buffer failed and is reported as
 * GP_ELIMIT / GP_ENOMEM, never a silent truncation of a file).
 */
#ifndef GPX_EXPORT_IMPL_H
#define GPX_EXPORT_IMPL_H

#include "internal.h"

#define GPX_MAX_FILE_BYTES (1u << 20) /* one generated file at most */

typedef struct gpx_buf {
    char *p; /* NUL-terminated when len > 0 */
    size_t len;
    size_t cap;
    int failed; /* 0 ok, GP_ENOMEM or GP_ELIMIT */
} gpx_buf;

void gpx_buf_init(gpx_buf *b);
void gpx_buf_free(gpx_buf *b);
/* Append formatted text (bounded by GPX_MAX_FILE_BYTES). */
void gpx_add(gpx_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A command line under construction: tokens (a flag with its value, or a word), one per item. */
#define GPX_MAX_ARGS 96
#define GPX_ARG_MAX  320
typedef struct gpx_cmd {
    int n;
    int overflow;
    char arg[GPX_MAX_ARGS][GPX_ARG_MAX];
} gpx_cmd;

void gpx_cmd_init(gpx_cmd *c);
/* Append one token group, printf-style ("--tp-size %d"). */
void gpx_arg(gpx_cmd *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Write the command into b: tokens joined by " \\\n<indent>" (shell continuation). */
void gpx_cmd_lines(gpx_buf *b, const gpx_cmd *c, const char *indent);
/* Write the command on one line into dst (size n), truncating. */
void gpx_cmd_line(char *dst, size_t n, const gpx_cmd *c);

/* Quote s for a POSIX shell when it holds anything beyond [A-Za-z0-9_./:@%+=,-]. */
const char *gpx_shq(char *dst, size_t n, const char *s);

/* The job with every default resolved, as each exporter reads it. */
typedef struct gpx_ctx {
    gpi_export_target engine;
    const gpi_export_job *job;
    const gp_model *m;
    const gp_workload *w;               /* &wl */
    gp_workload wl;                     /* the job's workload, its task as the engine implies it */
    gp_layout l;                        /* every degree >= 1; micro/global batch filled (training) */
    const char *engine_label;           /* "vLLM" */
    const char *version;                /* version of the engine whose flags are used */
    char model_path[GP_ERROR_PATH_MAX]; /* what the engine loads (shell-quoted when needed) */
    char model_path_raw[GP_ERROR_PATH_MAX];
    char gpu_id[64];
    int replica_gpus; /* tp * pp * cp: GPUs holding one model copy */
    int gpus;         /* replica_gpus * dp */
    int gpus_per_node;
    int nodes;
    int64_t max_model_len; /* serving */
    int64_t max_num_seqs;  /* serving */
    int port;
    gp_dtype weights;    /* precision asked for the weights */
    gp_dtype act;        /* 16-bit activation/compute dtype (bf16, fp16 or fp32) */
    int prequantized;    /* the checkpoint carries its own quantization */
    gp_dtype planned;    /* weights the plan asked, when the checkpoint's own differ */
    int64_t grad_accum;  /* training: global / (micro x dp) */
    int64_t train_iters; /* training: 0 unknown */
    char data_path[GPI_EXPORT_PATH_MAX];
    /* serving service */
    int replicas;         /* model copies behind one endpoint (>= 1) */
    char api_key_env[64]; /* "" : no API key */
    int audit_log;
    char served_name[GP_NAME_MAX];
    char host[64];
    int instruct;          /* the model path is the family's Instruct checkpoint */
    const char *k8s_setup; /* deploy.c: shell lines a container runs before the engine, or NULL */
} gpx_ctx;

/* Serving helpers (serve.c). The API key line ("API_KEY=${API_KEY:?...}") for launch.sh. */
void gpx_api_key_var(gpx_buf *b, const gpx_ctx *c);
/* The service flags of an OpenAI-style server, in this order: the served model name
 * (name_flag; NULL: the engine has none), the host (host_flag: --host, TGI's --hostname), the
 * port, and the API key from its environment variable. The engine adds its own request log. */
void gpx_service_args(const gpx_ctx *c, gpx_cmd *cmd, const char *name_flag, const char *host_flag);
/* Quantized weights the engine cannot make at start-up: the converted checkpoint's path
 * (shell-quoted) for the launch command, and quantize.sh, the exact conversion command, run
 * once before launch.sh. `tool` is "llm-compressor" (vLLM, SGLang, TGI: compressed-tensors),
 * "modelopt" (TensorRT-LLM) or "gguf" (llama.cpp). gpx_quant_known: a scheme exists. */
int gpx_quant_known(const gpx_ctx *c, const char *tool);
int gpx_quant_path(const gpx_ctx *c, const char *tool, char *path, size_t n);
gp_status gpx_quantize_file(const gpx_ctx *c, const char *tool, gp_export_files *out, gp_error *err);
/* Kubernetes manifests (deploy.json) and a Slurm array (serve.sbatch) running c->replicas
 * copies of the launch command behind one endpoint (deploy.c). `health` is the engine's
 * readiness path ("/health"); `setup` (or NULL): shell lines the container runs first, writing the
 * files launch.sh reads from its folder (TensorRT-LLM's YAML). */
gp_status gpx_deploy_files(const gpx_ctx *c, const gpx_cmd *cmd, const char *health, const char *setup,
                           gp_export_files *out, gp_error *err);

/* Opening comment lines shared by every file ("# " prefix given). */
void gpx_header(gpx_buf *b, const gpx_ctx *c, const char *prefix, const char *what);

/* "#!/usr/bin/env bash", the header as "# " comments, "set -euo pipefail" and a blank line. */
void gpx_sh_preamble(gpx_buf *b, const gpx_ctx *c, const char *name);

/* Hand b's text to out as a new file (b is reset). Fails on a failed buffer or too many files. */
gp_status gpx_emit(gp_export_files *out, const char *name, gpx_buf *b, int executable, gp_error *err);
/* Add a caveat to out->notes. */
void gpx_note(gp_export_files *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Renderers, one per engine (vllm.c, sglang.c, ...). Each fills out->command and the files. */
typedef gp_status (*gpx_render_fn)(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_vllm(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_sglang(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_tgi(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_llamacpp(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_trtllm(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_deepspeed(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_megatron(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_torchrun(const gpx_ctx *c, gp_export_files *out, gp_error *err);
gp_status gpx_render_slurm(const gpx_ctx *c, gp_export_files *out, gp_error *err);

/* Shared by megatron.c and slurm.c: pretrain_gpt.py and its arguments. */
gp_status gpx_megatron_args(const gpx_ctx *c, gpx_cmd *cmd, gp_export_files *out, gp_error *err);
/* Decoder layers over pipeline stages: 0 even, 1 uneven (*first, *last layers on the first and
 * last stage, the rest even), -1 impossible (megatron.c, Megatron-LM's rules). */
int gpx_pipeline_split(int64_t layers, int pp, int vpp, int64_t *first, int64_t *last);
/* The shell variables those arguments read (DATA_PATH, TOKENIZER, TRAIN_ITERS, LR, ...). */
void gpx_megatron_vars(gpx_buf *b, const gpx_ctx *c);
/* Shared by torchrun.c and slurm.c: the FSDP configuration module (fsdp_config.py). */
gp_status gpx_fsdp_file(const gpx_ctx *c, gp_export_files *out, gp_error *err);
/* The torchrun launcher tokens; `slurm` uses $SLURM_* and $MASTER_ADDR for rendezvous. */
void gpx_torchrun_args(const gpx_ctx *c, gpx_cmd *cmd, int slurm);

/* Name of a dtype as engines spell it: "bfloat16", "float16", "float32". */
const char *gpx_torch_dtype(gp_dtype t);

#endif
