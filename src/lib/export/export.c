/*
 * export.c: launch configurations for serving and training engines (gpi_export_render).
 *
 * One table row per engine (name, aliases, kind, version of the flags used, default port,
 * renderer); this file resolves the job's defaults once (gpx_ctx) and the renderers in
 * vllm.c ... slurm.c turn it into text. Flags and keys come only from docs/engines.md;
 * docs/export.md maps each to the gpuplan field it comes from and lists the start-up rules.
 */
#include "export_impl.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gpx_engine_row {
    const char *name;    /* CLI spelling */
    const char *aliases; /* '|'-separated, matched case-insensitively */
    gpi_export_kind kind;
    const char *label;   /* display name */
    const char *version; /* version of the engine whose flags/keys are used */
    int default_port;    /* serving: the engine's own default (0: none) */
    gpx_render_fn render;
} gpx_engine_row;

static const gpx_engine_row engines[GPI_EXPORT_COUNT] = {
    [GPI_EXPORT_VLLM] = {"vllm", "vllm-serve", GPI_EXPORT_KIND_SERVE, "vLLM",
                         "vLLM v0.11.x (engine args at commit 99d7eb5d)", 8000, gpx_render_vllm},
    [GPI_EXPORT_SGLANG] = {"sglang", "sgl", GPI_EXPORT_KIND_SERVE, "SGLang", "SGLang main at commit 001067ff (2026)",
                           30000, gpx_render_sglang},
    [GPI_EXPORT_TGI] = {"tgi", "text-generation-inference|text-generation-launcher", GPI_EXPORT_KIND_SERVE, "TGI",
                        "TGI v3.3.7 (commit db931fcf)", 3000, gpx_render_tgi},
    [GPI_EXPORT_LLAMACPP] = {"llamacpp", "llama.cpp|llama-cpp|llama_cpp|llama-server", GPI_EXPORT_KIND_SERVE,
                             "llama.cpp", "llama.cpp commit 145b6280 (late 2025)", 8080, gpx_render_llamacpp},
    [GPI_EXPORT_TRTLLM] = {"trtllm", "tensorrt-llm|tensorrt_llm|trt-llm|trtllm-serve", GPI_EXPORT_KIND_SERVE,
                           "TensorRT-LLM", "TensorRT-LLM trtllm-serve at commit 00209af1", 8000, gpx_render_trtllm},
    [GPI_EXPORT_DEEPSPEED] = {"deepspeed", "ds", GPI_EXPORT_KIND_TRAIN, "DeepSpeed", "DeepSpeed v0.19.5", 0,
                              gpx_render_deepspeed},
    [GPI_EXPORT_MEGATRON] = {"megatron", "megatron-lm|megatron_lm", GPI_EXPORT_KIND_TRAIN, "Megatron-LM",
                             "Megatron-LM core_v0.19.0; torchrun at PyTorch commit 010929fd", 0, gpx_render_megatron},
    [GPI_EXPORT_TORCHRUN_FSDP] = {"torchrun-fsdp", "torchrun|fsdp|torchrun_fsdp|pytorch-fsdp", GPI_EXPORT_KIND_TRAIN,
                                  "torchrun + FSDP", "PyTorch torchrun at commit 010929fd (2.9+ era)", 0,
                                  gpx_render_torchrun},
    [GPI_EXPORT_SLURM] = {"slurm", "sbatch", GPI_EXPORT_KIND_TRAIN, "Slurm",
                          "Slurm 26.05 sbatch; torchrun at PyTorch commit 010929fd; Megatron-LM core_v0.19.0", 0,
                          gpx_render_slurm},
};

_Static_assert(sizeof engines / sizeof engines[0] == GPI_EXPORT_COUNT, "one row per engine");

const char *gpi_export_engine_name(gpi_export_target e)
{
    return (unsigned)e < GPI_EXPORT_COUNT ? engines[e].name : "unknown";
}

const char *gpi_export_engine_version(gpi_export_target e)
{
    return (unsigned)e < GPI_EXPORT_COUNT ? engines[e].version : "";
}

gp_task gpi_export_engine_task(gpi_export_target e, gp_task asked)
{
    if ((unsigned)e < GPI_EXPORT_COUNT && engines[e].kind == GPI_EXPORT_KIND_TRAIN && asked == GP_TASK_INFER)
        return GP_TASK_TRAIN;
    return asked;
}

gpi_export_kind gpi_export_engine_kind(gpi_export_target e)
{
    return (unsigned)e < GPI_EXPORT_COUNT ? engines[e].kind : GPI_EXPORT_KIND_SERVE;
}

gpi_export_target gpi_export_engine_parse(const char *name)
{
    if (!name)
        return GPI_EXPORT_COUNT;
    for (int i = 0; i < GPI_EXPORT_COUNT; i++) {
        if (gpi_strcaseeq(name, engines[i].name))
            return (gpi_export_target)i;
        const char *a = engines[i].aliases;
        size_t n = strlen(name);
        while (a && *a) {
            const char *bar = strchr(a, '|');
            size_t len = bar ? (size_t)(bar - a) : strlen(a);
            if (len == n) {
                size_t k = 0;
                while (k < n && tolower((unsigned char)a[k]) == tolower((unsigned char)name[k]))
                    k++;
                if (k == n)
                    return (gpi_export_target)i;
            }
            a = bar ? bar + 1 : NULL;
        }
    }
    return GPI_EXPORT_COUNT;
}

void gpi_export_job_defaults(gpi_export_job *job)
{
    if (!job)
        return;
    memset(job, 0, sizeof *job);
    job->port = 0;
}

/* ---- bounded buffers --------------------------------------------------------------------- */

void gpx_buf_init(gpx_buf *b)
{
    memset(b, 0, sizeof *b);
}

void gpx_buf_free(gpx_buf *b)
{
    free(b->p);
    gpx_buf_init(b);
}

void gpx_add(gpx_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    char small[1];
    va_list ap2;
    va_copy(ap2, ap);
    int need = vsnprintf(small, 0, fmt, ap2);
    va_end(ap2);
    if (need < 0) {
        va_end(ap);
        b->failed = GP_EINVAL;
        return;
    }
    size_t want = b->len + (size_t)need + 1;
    if (want > GPX_MAX_FILE_BYTES) {
        va_end(ap);
        b->failed = GP_ELIMIT;
        return;
    }
    if (want > b->cap) {
        size_t cap = b->cap ? b->cap : 1024;
        while (cap < want)
            cap *= 2;
        if (cap > GPX_MAX_FILE_BYTES)
            cap = GPX_MAX_FILE_BYTES;
        char *p = realloc(b->p, cap);
        if (!p) {
            va_end(ap);
            b->failed = GP_ENOMEM;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)need;
}

void gpx_cmd_init(gpx_cmd *c)
{
    c->n = 0;
    c->overflow = 0;
}

void gpx_arg(gpx_cmd *c, const char *fmt, ...)
{
    if (c->n >= GPX_MAX_ARGS) {
        c->overflow = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int r = vsnprintf(c->arg[c->n], GPX_ARG_MAX, fmt, ap);
    va_end(ap);
    if (r < 0 || r >= GPX_ARG_MAX)
        c->overflow = 1;
    c->n++;
}

void gpx_cmd_lines(gpx_buf *b, const gpx_cmd *c, const char *indent)
{
    for (int i = 0; i < c->n; i++)
        gpx_add(b, "%s%s", i ? indent : "", c->arg[i]), gpx_add(b, "%s", i + 1 < c->n ? " \\\n" : "\n");
}

void gpx_cmd_line(char *dst, size_t n, const gpx_cmd *c)
{
    if (!n)
        return;
    dst[0] = '\0';
    size_t len = 0;
    for (int i = 0; i < c->n && len + 1 < n; i++) {
        int r = snprintf(dst + len, n - len, "%s%s", i ? " " : "", c->arg[i]);
        if (r < 0)
            break;
        len += (size_t)r;
    }
}

const char *gpx_shq(char *dst, size_t n, const char *s)
{
    int plain = *s != '\0';
    for (const char *p = s; *p; p++)
        if (!isalnum((unsigned char)*p) && !strchr("_./:@%+=,-", *p))
            plain = 0;
    if (plain) {
        gpi_strlcpy(dst, s, n);
        return dst;
    }
    size_t len = 0;
    if (n < 3) {
        if (n)
            dst[0] = '\0';
        return dst;
    }
    dst[len++] = '\'';
    for (const char *p = s; *p && len + 5 < n; p++) {
        if (*p == '\'') {
            memcpy(dst + len, "'\\''", 4);
            len += 4;
        } else
            dst[len++] = *p;
    }
    dst[len++] = '\'';
    dst[len] = '\0';
    return dst;
}

const char *gpx_torch_dtype(gp_dtype t)
{
    switch (t) {
    case GP_DTYPE_F16: return "float16";
    case GP_DTYPE_F32: return "float32";
    default: return "bfloat16";
    }
}

void gpx_note(gp_export_files *out, const char *fmt, ...)
{
    char line[GP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    gpi_note(out->notes, sizeof out->notes, "%s", line);
}

gp_status gpx_emit(gp_export_files *out, const char *name, gpx_buf *b, int executable, gp_error *err)
{
    if (b->failed) {
        gp_status st = (gp_status)b->failed;
        gpx_buf_free(b);
        return gpi_fail(err, st, st == GP_ENOMEM ? "out of memory rendering %s" : "%s would exceed %u bytes", name,
                        GPX_MAX_FILE_BYTES);
    }
    if (out->n >= GP_EXPORT_MAX_FILES) {
        gpx_buf_free(b);
        return gpi_fail(err, GP_ELIMIT, "more than %d files for one export", GP_EXPORT_MAX_FILES);
    }
    if (!b->p) {
        b->p = malloc(1);
        if (!b->p)
            return gpi_fail(err, GP_ENOMEM, "out of memory rendering %s", name);
        b->p[0] = '\0';
    }
    gp_export_file *f = &out->files[out->n++];
    gpi_strlcpy(f->name, name, sizeof f->name);
    f->content = b->p;
    f->len = b->len;
    f->executable = executable;
    gpx_buf_init(b);
    return GP_OK;
}

void gpx_header(gpx_buf *b, const gpx_ctx *c, const char *prefix, const char *what)
{
    const gp_layout *l = &c->l;
    char nodes[48];
    if (c->nodes == 1)
        snprintf(nodes, sizeof nodes, "1 node");
    else
        snprintf(nodes, sizeof nodes, "%d nodes x %d", c->nodes, c->gpus_per_node);
    gpx_add(b, "%s%s generated by gpuplan %s for %s\n", prefix, what, GP_VERSION_STRING,
            c->m->name[0] ? c->m->name : c->m->id);
    gpx_add(b, "%sFlags and keys checked against %s (docs/engines.md; rules: docs/export.md)\n", prefix, c->version);
    if (engines[c->engine].kind == GPI_EXPORT_KIND_SERVE)
        gpx_add(b, "%sLayout: %d x %s (%s), TP %d, PP %d, DP %d, EP %d; %s weights%s; max model len %lld\n", prefix,
                c->gpus, c->gpu_id, nodes, l->tp, l->pp, l->dp, l->ep, gp_dtype_name(c->weights),
                c->prequantized ? " (pre-quantized checkpoint)" : "", (long long)c->max_model_len);
    else
        gpx_add(b,
                "%sLayout: %d x %s (%s), TP %d, PP %d, DP %d, CP %d, EP %d, ZeRO-%d, recompute %s; "
                "%s %s, seq %lld, micro-batch %lld, global batch %lld\n",
                prefix, c->gpus, c->gpu_id, nodes, l->tp, l->pp, l->dp, l->cp, l->ep, l->zero,
                gp_recompute_name(l->recompute), gp_task_name(c->w->task), gp_dtype_name(c->weights),
                (long long)c->w->seq, (long long)l->micro_batch, (long long)l->global_batch);
}

void gpx_sh_preamble(gpx_buf *b, const gpx_ctx *c, const char *name)
{
    gpx_add(b, "#!/usr/bin/env bash\n");
    gpx_header(b, c, "# ", name);
    gpx_add(b, "set -euo pipefail\n\n");
}

/* ---- resolving the job ------------------------------------------------------------------- */

static int is_float16ish(gp_dtype t)
{
    return t == GP_DTYPE_BF16 || t == GP_DTYPE_F16 || t == GP_DTYPE_F32;
}

/* What the engine loads: the given path, the weight file or folder read, the family's Instruct
 * checkpoint for a chat service (catalog id "<id>-instruct"), or the catalog's repo. */
static void resolve_path(gpx_ctx *c, const gpi_export_job *job)
{
    const gp_model *m = job->model;
    const char *path = job->model_path && job->model_path[0] ? job->model_path : NULL;
    if (!path && (m->origin == GP_ORIGIN_GGUF || m->origin == GP_ORIGIN_HF_FOLDER) && m->source[0])
        path = m->source;
    gp_model *inst = NULL;
    if (!path && job->chat && job->catalog && m->origin == GP_ORIGIN_CATALOG && !gpi_ends_with(m->id, "-instruct")) {
        char id[GP_NAME_MAX + 16];
        snprintf(id, sizeof id, "%s-instruct", m->id);
        inst = malloc(sizeof *inst);
        if (inst && gp_catalog_find_model(job->catalog, id, inst, NULL) == GP_OK && inst->name[0]) {
            path = inst->name;
            c->instruct = 1;
        }
    }
    if (!path)
        path = strchr(m->name, '/') ? m->name : m->id;
    gpi_strlcpy(c->model_path_raw, path, sizeof c->model_path_raw);
    gpx_shq(c->model_path, sizeof c->model_path, path);
    free(inst);
}

static gp_status resolve_service(gpx_ctx *c, const gpi_export_job *job, gp_error *err)
{
    if (job->replicas < 0 || job->replicas > 4096)
        return gpi_fail(err, GP_EINVAL, "replicas must be 1 to 4096, not %d", job->replicas);
    c->replicas = job->replicas > 0 ? job->replicas : 1;
    const char *key = job->api_key_env ? job->api_key_env : "API_KEY";
    int ok = strlen(key) < sizeof c->api_key_env && !isdigit((unsigned char)key[0]);
    for (const char *p = key; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_')
            ok = 0;
    if (!ok)
        return gpi_fail(err, GP_EINVAL,
                        "API key variable '%s' is not a shell variable name (letters, digits, _; not starting "
                        "with a digit)",
                        key);
    gpi_strlcpy(c->api_key_env, key, sizeof c->api_key_env);
    c->audit_log = job->audit_log != 0;
    const char *base = strrchr(c->model_path_raw, '/');
    const char *name = job->served_name && job->served_name[0] ? job->served_name
                       : c->instruct                           ? (base ? base + 1 : c->model_path_raw)
                                                               : c->m->id;
    char q[GP_NAME_MAX];
    gpi_strlcpy(c->served_name, gpx_shq(q, sizeof q, name), sizeof c->served_name);
    gpi_strlcpy(c->host, job->host && job->host[0] ? gpx_shq(q, sizeof q, job->host) : "0.0.0.0", sizeof c->host);
    return GP_OK;
}

/* The weights the engine loads. A checkpoint that carries its own quantization (DeepSeek-V3's
 * fp8) is served as it is: a plan in more bits gets it with a note (less memory than planned); a
 * plan in fewer bits needs another checkpoint (--model-path), since the engines load, not
 * re-quantize, a quantized one. */
static gp_status resolve_weights(gpx_ctx *c, const gpi_export_job *job, gp_error *err)
{
    const gp_model *m = job->model;
    gp_dtype asked = c->w->dtype;
    c->prequantized = m->quant != GP_DTYPE_UNKNOWN;
    c->weights = asked != GP_DTYPE_UNKNOWN ? asked : (m->quant != GP_DTYPE_UNKNOWN ? m->quant : m->dtype);
    if (c->weights == GP_DTYPE_UNKNOWN)
        c->weights = GP_DTYPE_BF16;
    int given_path = job->model_path && job->model_path[0];
    if (c->prequantized && asked != GP_DTYPE_UNKNOWN && asked != m->quant && !given_path &&
        engines[c->engine].kind == GPI_EXPORT_KIND_SERVE) {
        if (gp_dtype_bits(asked) < gp_dtype_bits(m->quant))
            return gpi_fail(err, GP_EUNSUPPORTED,
                            "%s is stored in %s (its own quantization): %s cannot make %s weights from it; plan "
                            "with --dtype %s or give --model-path a %s checkpoint",
                            m->name[0] ? m->name : m->id, gp_dtype_name(m->quant), c->engine_label,
                            gp_dtype_name(asked), gp_dtype_name(m->quant), gp_dtype_name(asked));
        c->planned = asked;
        c->weights = m->quant;
    }
    return GP_OK;
}

/* The job's task against the engine's kind (after the task the engine implies). */
static gp_status resolve_task(gpx_ctx *c, gpi_export_target e, const gpi_export_job *job, gp_error *err)
{
    const gpx_engine_row *row = &engines[e];
    c->wl = *job->w;
    if ((unsigned)c->wl.task < GP_TASK_COUNT)
        c->wl.task = gpi_export_engine_task(e, c->wl.task); /* megatron & co. train */
    c->engine = e;
    c->job = job;
    c->m = job->model;
    c->w = &c->wl;
    c->engine_label = row->label;
    c->version = row->version;
    if ((unsigned)c->wl.task >= GP_TASK_COUNT)
        return gpi_fail(err, GP_EINVAL, "unknown task %d", (int)c->wl.task);
    int infer = c->wl.task == GP_TASK_INFER;
    if (row->kind == GPI_EXPORT_KIND_SERVE && !infer)
        return gpi_fail(err, GP_EINVAL,
                        "%s is a serving engine, but this job is %s (training): export it with deepspeed, megatron, "
                        "torchrun-fsdp or slurm",
                        row->name, gp_task_name(c->wl.task));
    return GP_OK;
}

/* Degrees >= 1, GPU counts, and (training) the batch split into whole accumulation steps. */
static gp_status resolve_layout(gpx_ctx *c, const gpi_export_job *job, int infer, gp_error *err)
{
    gp_layout l = *job->l;
    if (l.tp < 0 || l.pp < 0 || l.dp < 0 || l.cp < 0 || l.ep < 0 || l.virtual_stages < 0 || l.micro_batch < 0 ||
        l.global_batch < 0 || l.zero < 0 || l.zero > 3)
        return gpi_fail(err, GP_EINVAL, "layout degrees must be >= 1 (zero 0..3)");
    if (l.tp == 0)
        l.tp = 1;
    if (l.pp == 0)
        l.pp = 1;
    if (l.dp == 0)
        l.dp = 1;
    if (l.cp == 0)
        l.cp = 1;
    if (l.ep == 0)
        l.ep = 1;
    if (l.virtual_stages == 0)
        l.virtual_stages = 1;
    if (l.tp > 65536 || l.pp > 65536 || l.dp > (1 << 20) || l.cp > 65536 || l.ep > 65536)
        return gpi_fail(err, GP_EINVAL, "layout degree out of range");
    int64_t replica = (int64_t)l.tp * l.pp * l.cp;
    int64_t gpus = replica * l.dp;
    if (gpus > (1 << 22))
        return gpi_fail(err, GP_EINVAL, "%lld GPUs is beyond what an export can describe", (long long)gpus);
    if (!infer) {
        if (l.micro_batch == 0)
            l.micro_batch = 1;
        if (l.global_batch == 0)
            l.global_batch = l.micro_batch * l.dp;
        if (l.global_batch % (l.micro_batch * l.dp) != 0)
            return gpi_fail(err, GP_EINVAL,
                            "global batch %lld is not a multiple of micro-batch %lld x DP %d: no whole number of "
                            "gradient-accumulation steps",
                            (long long)l.global_batch, (long long)l.micro_batch, l.dp);
        c->grad_accum = l.global_batch / (l.micro_batch * l.dp);
        if (c->w->seq <= 0)
            return gpi_fail(err, GP_EINVAL, "training needs a sequence length (--seq)");
    }
    c->l = l;
    c->replica_gpus = (int)replica;
    c->gpus = (int)gpus;
    return GP_OK;
}

static gp_status resolve_nodes(gpx_ctx *c, const gpi_export_job *job, int infer, gp_error *err)
{
    if (job->gpus_per_node < 0 || job->nodes < 0)
        return gpi_fail(err, GP_EINVAL, "GPUs per node and nodes must be >= 1");
    c->gpus_per_node = job->gpus_per_node > 0 ? job->gpus_per_node : (c->gpus < 8 ? c->gpus : 8);
    c->nodes = job->nodes > 0 ? job->nodes : (c->gpus + c->gpus_per_node - 1) / c->gpus_per_node;
    if ((int64_t)c->nodes * c->gpus_per_node < c->gpus)
        return gpi_fail(err, GP_EINVAL, "%d node%s of %d GPUs hold %d GPUs, fewer than the layout's %d", c->nodes,
                        c->nodes == 1 ? "" : "s", c->gpus_per_node, c->nodes * c->gpus_per_node, c->gpus);
    if (!infer && c->nodes > 1 && c->gpus % c->gpus_per_node != 0)
        return gpi_fail(err, GP_EINVAL,
                        "%d GPUs do not fill nodes of %d evenly; launchers start the same number of processes "
                        "on every node",
                        c->gpus, c->gpus_per_node);
    if (!infer && c->nodes > 1)
        c->nodes = c->gpus / c->gpus_per_node;
    c->max_model_len = job->max_model_len > 0 ? job->max_model_len : c->w->context;
    if (infer && c->max_model_len <= 0)
        return gpi_fail(err, GP_EINVAL, "serving needs a context length (--context)");
    c->max_num_seqs = c->w->max_num_seqs > 0 ? c->w->max_num_seqs : 256;
    if (job->port < 0 || job->port > 65535)
        return gpi_fail(err, GP_EINVAL, "port %d is out of range", job->port);
    c->port = job->port > 0 ? job->port : engines[c->engine].default_port;
    return GP_OK;
}

/* Training: iterations from the token count, and the dataset path. */
static void resolve_training(gpx_ctx *c, const gpi_export_job *job)
{
    if (job->train_tokens > 0) {
        double per_step = (double)c->l.global_batch * (double)c->w->seq;
        double iters = job->train_tokens / per_step;
        c->train_iters = (int64_t)iters;
        if ((double)c->train_iters < iters)
            c->train_iters++;
    }
    char q[GPI_EXPORT_PATH_MAX];
    gpx_shq(q, sizeof q, job->train_data[0] ? job->train_data : "/path/to/dataset_text_document");
    gpi_strlcpy(c->data_path, q, sizeof c->data_path);
}

static gp_status resolve(gpi_export_target e, const gpi_export_job *job, gpx_ctx *c, gp_error *err)
{
    memset(c, 0, sizeof *c);
    if ((unsigned)e >= GPI_EXPORT_COUNT)
        return gpi_fail(err, GP_EINVAL, "unknown export engine %d", (int)e);
    if (!job || !job->model || !job->w || !job->l)
        return gpi_fail(err, GP_EINVAL, "an export needs a model, a workload and a layout");
    gp_status st = resolve_task(c, e, job, err);
    int infer = c->wl.task == GP_TASK_INFER;
    if (st == GP_OK)
        st = resolve_layout(c, job, infer, err);
    if (st == GP_OK)
        st = resolve_nodes(c, job, infer, err);
    if (st == GP_OK)
        st = resolve_weights(c, job, err);
    if (st != GP_OK)
        return st;
    const gp_model *m = job->model;
    c->act = is_float16ish(c->weights) ? c->weights : (is_float16ish(m->dtype) ? m->dtype : GP_DTYPE_BF16);
    gpi_strlcpy(c->gpu_id, job->gpu ? job->gpu->id : "GPU", sizeof c->gpu_id);
    resolve_path(c, job);
    st = resolve_service(c, job, err);
    if (st == GP_OK && !infer)
        resolve_training(c, job);
    return st;
}

/* ---- public entry points ----------------------------------------------------------------- */

void gp_export_files_free(gp_export_files *out)
{
    if (!out)
        return;
    for (int i = 0; i < out->n && i < GP_EXPORT_MAX_FILES; i++)
        free(out->files[i].content);
    char engine[sizeof out->engine];
    memcpy(engine, out->engine, sizeof engine);
    memset(out, 0, sizeof *out);
    memcpy(out->engine, engine, sizeof engine);
}

/* The caveats go into the launch file itself (before its "set -euo pipefail"), not only to the
 * caller: a plan written with --export keeps them. */
static gp_status notes_into_file(gp_export_files *out, gp_error *err)
{
    if (!out->notes[0])
        return GP_OK;
    for (int i = 0; i < out->n; i++) {
        gp_export_file *f = &out->files[i];
        char *at = f->executable ? strstr(f->content, "set -euo pipefail\n") : NULL;
        if (!at)
            continue;
        gpx_buf b;
        gpx_buf_init(&b);
        gpx_add(&b, "%.*s# Notes from gpuplan (also printed by the export):\n", (int)(at - f->content), f->content);
        const char *p = out->notes;
        while (*p) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            gpx_add(&b, "#  - %.*s\n", len, p);
            p += len + (nl ? 1 : 0);
        }
        gpx_add(&b, "%s", at);
        if (b.failed) {
            gpx_buf_free(&b);
            return gpi_fail(err, GP_ENOMEM, "out of memory adding notes to %s", f->name);
        }
        free(f->content);
        f->content = b.p;
        f->len = b.len;
        return GP_OK;
    }
    return GP_OK;
}

gp_status gpi_export_render(gpi_export_target engine, const gpi_export_job *job, gp_export_files *out, gp_error *err)
{
    if (!out)
        return gpi_fail(err, GP_EINVAL, "no output for the export");
    memset(out, 0, sizeof *out);
    gpi_strlcpy(out->engine, gpi_export_engine_name(engine), sizeof out->engine);
    gpx_ctx c;
    gp_status st = resolve(engine, job, &c, err);
    if (st != GP_OK)
        return st;
    if (c.planned != GP_DTYPE_UNKNOWN)
        gpx_note(out,
                 "the checkpoint is stored in %s (its own quantization) and is served as it is: less memory "
                 "than the %s weights planned",
                 gp_dtype_name(c.weights), gp_dtype_name(c.planned));
    st = engines[engine].render(&c, out, err);
    if (st == GP_OK)
        st = notes_into_file(out, err);
    if (st != GP_OK)
        gp_export_files_free(out);
    return st;
}

gp_status gpi_export_command(gpi_export_target engine, const gpi_export_job *job, char *buf, size_t cap, gp_error *err)
{
    if (!buf || !cap)
        return gpi_fail(err, GP_EINVAL, "no buffer for the command");
    buf[0] = '\0';
    gp_export_files *f = malloc(sizeof *f);
    if (!f)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    gp_status st = gpi_export_render(engine, job, f, err);
    if (st == GP_OK)
        gpi_strlcpy(buf, f->command, cap);
    gp_export_files_free(f);
    free(f);
    return st;
}
