/*
 * text_catalog.c: what a model is (`gpuplan model show`), the catalog's models and GPUs as
 * tables (`gpuplan model list`, `gpuplan gpus`) and this machine's GPUs (`gpuplan probe`), as
 * the text the CLI prints; their JSON is json.c's (gp_model_json, gp_catalog_models_json,
 * gp_catalog_gpus_json, gp_probe_json). Renders into memory.
 */
#include "json.h"
#include "text.h"

#include <stdlib.h>
#include <string.h>

static void print_part(gpi_buf *tb, const char *name, int64_t v, int64_t total)
{
    char a[40];
    if (v)
        gpi_buf_printf(tb, "    %-16s %20s  %5.1f%%\n", name, gpi_fmt_count(a, sizeof a, v),
                       100.0 * (double)v / (double)total);
}

static void print_model(gpi_buf *tb, const gp_model *m, const gp_param_breakdown *p)
{
    char a[64], b[64], c[64];
    gpi_buf_printf(tb, "%s", m->name);
    if (strcmp(m->id, m->name))
        gpi_buf_printf(tb, "  [%s]", m->id);
    if (m->origin == GP_ORIGIN_CATALOG)
        gpi_buf_printf(tb, "\n  from the built-in catalog (data/models.json)\n");
    else
        gpi_buf_printf(tb, "\n  from %s: %s\n", gp_model_origin_name(m->origin), m->source);
    gpi_buf_printf(tb, "\nArchitecture (%s)\n", m->model_type);
    gpi_buf_printf(tb, "  %lld layers, hidden %lld, vocab %s, context %s tokens\n", (long long)m->layers,
                   (long long)m->hidden, gpi_fmt_count(a, sizeof a, m->vocab),
                   gpi_fmt_count(b, sizeof b, m->max_context));
    if (m->kv_lora_rank > 0)
        gpi_buf_printf(tb, "  attention: %s, %lld heads, latent %lld + rotary %lld, q rank %lld\n",
                       gp_model_attention_name(m), (long long)m->heads, (long long)m->kv_lora_rank,
                       (long long)m->qk_rope_head_dim, (long long)m->q_lora_rank);
    else
        gpi_buf_printf(tb, "  attention: %s, %lld query heads, %lld KV heads, head dim %lld\n",
                       gp_model_attention_name(m), (long long)m->heads, (long long)m->kv_heads, (long long)m->head_dim);
    if (m->sliding_window > 0)
        gpi_buf_printf(tb, "  sliding window: %lld of %lld layers attend to the last %lld tokens only\n",
                       (long long)m->sliding_layers, (long long)m->layers, (long long)m->sliding_window);
    if (m->experts > 0)
        gpi_buf_printf(tb, "  MoE: %lld routed experts (top-%lld) of width %lld, %lld shared, %lld dense layers\n",
                       (long long)m->experts, (long long)m->experts_active, (long long)m->moe_ffn,
                       (long long)m->shared_experts, (long long)m->dense_layers);
    if (m->experts == 0 || m->dense_layers > 0)
        gpi_buf_printf(tb, "  MLP: %s, width %lld\n", m->mlp == GP_MLP_GATED ? "gated (SwiGLU/GeGLU)" : "plain (GELU)",
                       (long long)m->ffn);
    gpi_buf_printf(tb, "  embeddings %s; stored as %s%s%s\n", m->tied_embeddings ? "tied to the output head" : "untied",
                   gp_dtype_name(m->dtype), m->quant_method[0] ? ", quantized: " : "", m->quant_method);

    int64_t total = gp_model_total_params(m);
    gpi_buf_printf(tb, "\nParameters: %s (%s)", gpi_fmt_count(a, sizeof a, total),
                   gpi_fmt_si(b, sizeof b, (double)total));
    if (m->experts > 0)
        gpi_buf_printf(tb, ", active per token %s (%s)", gpi_fmt_count(c, sizeof c, p->active),
                       gpi_fmt_si(b, sizeof b, (double)p->active));
    gpi_buf_printf(tb, "\n");
    if (m->has_exact) {
        gpi_buf_printf(tb, "  exact, from the weight files' headers: %s parameters in %lld tensors, %s\n",
                       gpi_fmt_count(a, sizeof a, m->exact_params), (long long)m->exact_tensors,
                       gpi_fmt_bytes(b, sizeof b, (double)m->exact_bytes));
        gpi_buf_printf(tb, "  from config.json's architecture:       %s%s\n", gpi_fmt_count(a, sizeof a, p->total),
                       p->total == m->exact_params ? "  (equal)" : "  (differs: see notes)");
        for (int i = 0; i < m->n_dtype_stats; i++)
            gpi_buf_printf(tb, "    %-10s %6lld tensors %20s elements  %s\n", m->dtype_stats[i].name,
                           (long long)m->dtype_stats[i].tensors, gpi_fmt_count(a, sizeof a, m->dtype_stats[i].elements),
                           gpi_fmt_bytes(b, sizeof b, (double)m->dtype_stats[i].bytes));
    }
    if (m->published_params > 0)
        gpi_buf_printf(tb, "  published: %s%s\n", gpi_fmt_count(a, sizeof a, m->published_params),
                       m->published_params == total ? " (equal)" : "");
    gpi_buf_printf(tb, "  by part (from the architecture):\n");
    print_part(tb, "embedding", p->embedding, p->total);
    print_part(tb, "positions", p->position, p->total);
    print_part(tb, "attention", p->attention, p->total);
    print_part(tb, "mlp", p->mlp_dense, p->total);
    print_part(tb, "routed experts", p->experts_routed, p->total);
    print_part(tb, "shared experts", p->experts_shared, p->total);
    print_part(tb, "router", p->router, p->total);
    print_part(tb, "norms", p->norms, p->total);
    print_part(tb, "output head", p->head, p->total);

    gpi_buf_printf(tb, "\nWeight bytes by precision (linear layers quantized; embeddings, head, norms at 16 bits)\n");
    for (size_t i = 0; i < (size_t)GPI_SHOWN_DTYPES; i++)
        gpi_buf_printf(tb, "  %-6s %s\n", gp_dtype_name(gpi_shown_dtypes[i]),
                       gpi_fmt_bytes(a, sizeof a, (double)gp_model_weight_bytes(m, gpi_shown_dtypes[i])));
    if (m->has_exact)
        gpi_buf_printf(tb, "  as stored in the files: %s\n", gpi_fmt_bytes(a, sizeof a, (double)m->exact_bytes));

    uint64_t kv16 = gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16);
    int64_t ctx = m->max_context > 0 ? m->max_context : 4096;
    gpi_buf_printf(tb, "\nKV cache: %s bytes per token at bf16 (%s at fp8)", gpi_fmt_count(a, sizeof a, (int64_t)kv16),
                   gpi_fmt_count(b, sizeof b, (int64_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_FP8)));
    gpi_buf_printf(tb, "; one %s-token sequence: %s\n", gpi_fmt_count(c, sizeof c, ctx),
                   gpi_fmt_bytes(a, sizeof a, (double)gp_model_kv_bytes(m, GP_DTYPE_BF16, ctx)));
    if (m->sliding_window > 0)
        gpi_buf_printf(tb, "  (%lld sliding-window layers hold at most %lld tokens each)\n",
                       (long long)m->sliding_layers, (long long)m->sliding_window);
    double f0 = gp_model_forward_flops_per_token(m, 0), f4k = gp_model_forward_flops_per_token(m, 4096);
    gpi_buf_printf(tb, "\nFLOPs per token: forward %s (at 4,096 tokens of context %s); training %s (3x forward)\n",
                   gpi_fmt_si(a, sizeof a, f0), gpi_fmt_si(b, sizeof b, f4k), gpi_fmt_si(c, sizeof c, 3 * f0));
    if (m->notes[0]) {
        gpi_buf_printf(tb, "\nNotes\n");
        char buf[GP_NOTE_MAX];
        memcpy(buf, m->notes, sizeof buf);
        for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n"))
            gpi_buf_printf(tb, "  - %s\n", line);
    }
}

gp_status gp_model_text(const gp_model *m, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (st != GP_OK)
        return st;
    gpi_buf tb = {0};
    print_model(&tb, m, &p);
    return gpi_buf_take(&tb, text, len, err);
}

/* Release a half-built text after a failed lookup; err says why. */
static gp_status text_fail(gpi_buf *b, const gp_error *err)
{
    free(b->s);
    return err && err->code != GP_OK ? err->code : GP_EINVAL;
}

gp_status gp_catalog_models_text(const gp_catalog *cat, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    gpi_buf tb = {0};
    gpi_buf_printf(&tb, "%-24s %-40s %10s %10s %9s %8s\n", "id", "hugging face repo", "params", "active", "context",
                   "KV/tok");
    for (size_t i = 0; i < gp_catalog_model_count(cat); i++) {
        gp_model m;
        gp_param_breakdown p;
        if (gp_catalog_model_at(cat, i, &m, err) != GP_OK || gp_model_params(&m, &p, err) != GP_OK)
            return text_fail(&tb, err);
        char a[32], b[32], k[32];
        gpi_buf_printf(&tb, "%-24s %-40s %10s %10s %9lld %8s\n", m.id, m.name, gpi_fmt_si(a, sizeof a, (double)p.total),
                       gpi_fmt_si(b, sizeof b, (double)p.active), (long long)m.max_context,
                       gpi_fmt_count(k, sizeof k, (int64_t)gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16)));
    }
    return gpi_buf_take(&tb, text, len, err);
}

gp_status gp_catalog_gpus_text(const gp_catalog *cat, const gp_gpu *only, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    gpi_buf tb = {0};
    gpi_buf_printf(&tb, "%-16s %-8s %9s %9s %8s %8s %8s %-28s %5s %5s\n", "id", "vendor", "mem GiB", "HBM GB/s",
                   "bf16 TF", "fp8 TF", "fp4 TF", "scale-up (GB/s bidir, GPUs)", "PCIe", "TDP W");
    for (size_t i = 0; i < gp_catalog_gpu_count(cat); i++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, i);
        if (only && g != only)
            continue;
        char su[64], f8[16], f4[16];
        snprintf(su, sizeof su, "%.20s %.0f x%d", g->scale_up_name, g->scale_up_gbps_bidir, g->scale_up_domain);
        snprintf(f8, sizeof f8, g->tflops[GP_DTYPE_FP8] > 0 ? "%.0f" : "-", g->tflops[GP_DTYPE_FP8]);
        snprintf(f4, sizeof f4, g->tflops[GP_DTYPE_FP4] > 0 ? "%.0f" : "-", g->tflops[GP_DTYPE_FP4]);
        gpi_buf_printf(&tb, "%-16s %-8s %9.1f %9.0f %8.0f %8s %8s %-28s %5d %5.0f%s\n", g->id, g->vendor,
                       (double)g->memory_bytes / 1073741824.0, g->hbm_bandwidth_gbps, g->tflops[GP_DTYPE_BF16], f8, f4,
                       su, g->pcie_gen, g->tdp_w,
                       g->consumer ? "  consumer card (GeForce licence: no datacenter use)" : "");
    }
    return gpi_buf_take(&tb, text, len, err);
}

gp_status gp_probe_text(const gp_catalog *cat, const gp_probe *p, const char *why, char **text, size_t *len,
                        gp_error *err)
{
    gpi_buf tb = {0};
    if (!p) {
        gpi_buf_printf(&tb, "probe: %s.\nNo GPUs listed; plan with --gpu ID (see 'gpuplan gpus').\n", why ? why : "");
        return gpi_buf_take(&tb, text, len, err);
    }
    char cuda[32];
    gpi_fmt_cuda(cuda, sizeof cuda, gp_probe_cuda_version(p));
    gpi_buf_printf(&tb, "NVML: driver %s, CUDA %s, %zu GPU%s\n\n",
                   gp_probe_driver_version(p)[0] ? gp_probe_driver_version(p) : "unknown", cuda, gp_probe_gpu_count(p),
                   gp_probe_gpu_count(p) == 1 ? "" : "s");
    if (gp_probe_gpu_count(p) > 0)
        gpi_buf_printf(&tb, "%3s  %-32s %10s %10s %-10s %6s  %s\n", "#", "name", "total GB", "free GB", "PCIe",
                       "NVLink", "catalog");
    for (size_t i = 0; i < gp_probe_gpu_count(p); i++) {
        const gp_probe_gpu *g = gp_probe_gpu_at(p, i);
        const gp_gpu *cg = NULL;
        gp_error merr;
        char pcie[32];
        snprintf(pcie, sizeof pcie, "gen%d x%d", g->pcie_gen, g->pcie_width);
        gp_probe_match(cat, g, &cg, &merr);
        gpi_buf_printf(&tb, "%3d  %-32.32s %10.1f %10.1f %-10s %6d  %s\n", g->index, g->name,
                       (double)g->memory_total_bytes / 1e9, (double)g->memory_free_bytes / 1e9, pcie, g->nvlink_active,
                       cg ? cg->id : "(no catalog entry)");
    }
    return gpi_buf_take(&tb, text, len, err);
}
