/*
 * text.c: answers as the text the CLI prints (gp_result_text): fit's memory bars and verdict
 * (in the question's language, the message table of messages.c), the sizing table, and the
 * number formats every text answer shares. The train and serve answers are text_train.c and
 * text_serve.c, the catalog's and probe's text_catalog.c, calibration's text_calibrate.c.
 * Renders into memory.
 */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gp_status gpi_buf_take(gpi_buf *b, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    if (!b->failed && !b->s)
        gpi_buf_printf(b, "%s", ""); /* an empty text is still a string */
    if (b->failed) {
        free(b->s);
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering text");
    }
    *text = b->s;
    *len = b->len;
    return GP_OK;
}

/* ---- numbers ---------------------------------------------------------------------------- */

const char *gpi_fmt_count(char *buf, size_t n, int64_t v)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%lld", (long long)(v < 0 ? -v : v));
    size_t len = strlen(digits), o = 0;
    if (v < 0 && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < n; i++) {
        if (i && (len - i) % 3 == 0 && o + 1 < n)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *gpi_fmt_si(char *buf, size_t n, double v)
{
    const char *unit[] = {"", "K", "M", "B", "T", "P"};
    int i = 0;
    while (fabs(v) >= 1000.0 && i < 5) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, i ? "%.2f %s" : "%.0f%s", v, unit[i]);
    return buf;
}

const char *gpi_fmt_bytes(char *buf, size_t n, double bytes)
{
    if (bytes < 1e6)
        snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
    else if (bytes < 1e9)
        snprintf(buf, n, "%.1f MB (%.1f MiB)", bytes / 1e6, bytes / 1048576.0);
    else
        snprintf(buf, n, "%.1f GB (%.1f GiB)", bytes / 1e9, bytes / 1073741824.0);
    return buf;
}

void gpi_text_range_source(gpi_buf *tb, const char *basis, int cases, const char *fallback, const char *tail,
                           double p10, double p90)
{
    if (cases > 0)
        gpi_buf_printf(tb, "%d published %s runs", cases, basis);
    else
        gpi_buf_printf(tb, "published %s runs", basis[0] ? basis : fallback);
    const char *lean = p10 > 0   ? "; gpuplan has mostly been optimistic on them"
                       : p90 < 0 ? "; gpuplan has mostly been pessimistic on them"
                                 : "";
    gpi_buf_printf(tb, "%s%s)\n", tail, lean);
}

const char *gpi_fmt_cuda(char *buf, size_t n, int v)
{
    if (v > 0)
        snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(buf, n, "unknown");
    return buf;
}

/* ---- fit -------------------------------------------------------------------------------- */

/* "    name          12.34 GB  " with the name padded by characters (UTF-8), the number by locale */
static void bar_label(gpi_buf *tb, const char *name, uint64_t bytes, const char *lang)
{
    char b[64];
    int chars = 0;
    for (const char *p = name; *p; p++)
        chars += ((unsigned char)*p & 0xC0) != 0x80;
    gpi_buf_printf(tb, "    %s%*s %9s GB  ", name, chars < 12 ? 12 - chars : 0, "",
                   gp_format_number(b, sizeof b, (double)bytes / 1e9, 2, lang));
}

static void bar(gpi_buf *tb, const char *name, uint64_t bytes, double scale, const char *lang)
{
    if (!bytes)
        return;
    int n = (int)((double)bytes * scale + 0.5);
    if (n > 50)
        n = 50;
    bar_label(tb, name, bytes, lang);
    for (int i = 0; i < n; i++)
        gpi_buf_printf(tb, "%s", "#");
    if (!n)
        gpi_buf_printf(tb, "%s", ".");
    gpi_buf_printf(tb, "\n");
}

/* The memory per GPU as bars, in the question's language (the library's message table). */
static void print_memory(gpi_buf *tb, const char *title, const gp_memory *m, const gp_workload *w, const char *lang)
{
    double top = (double)(m->per_gpu > m->capacity ? m->per_gpu : m->capacity);
    double scale = 50.0 / top;
    char a[64], b[64], line[512], f[16];
    gp_format_number(a, sizeof a, (double)m->per_gpu / 1e9, 1, lang);
    gp_format_number(b, sizeof b, (double)m->capacity / 1e9, 1, lang);
    gp_text(f, sizeof f, m->fits ? "fit.fits" : "fit.not_fits", lang, NULL, 0);
    gpi_buf_printf(tb, "%s\n",
                   gp_text(line, sizeof line, "fit.memory", lang, (const char *const[]){title, a, b, f}, 4));
    static const char *const keys[7] = {"fit.weights",   "fit.kv_cache", "fit.activations", "fit.gradients",
                                        "fit.optimizer", "fit.overhead", "fit.capacity"};
    const uint64_t parts[6] = {m->weights, m->kv_cache, m->activations, m->gradients, m->optimizer, m->overhead};
    char name[7][32];
    for (int i = 0; i < 7; i++)
        gp_text(name[i], sizeof name[i], keys[i], lang, NULL, 0);
    for (int i = 0; i < 6; i++)
        bar(tb, name[i], parts[i], scale, lang);
    bar_label(tb, name[6], m->capacity, lang);
    int n = (int)((double)m->capacity * scale + 0.5);
    for (int i = 0; i < n; i++)
        gpi_buf_printf(tb, "%s", "-");
    gpi_buf_printf(tb, "|\n");
    if (m->cpu_offload)
        gpi_buf_printf(tb, "    offloaded to CPU memory: %.2f GB per GPU\n", (double)m->cpu_offload / 1e9);
    if (w->engine != GP_ENGINE_NONE && w->task == GP_TASK_INFER)
        gpi_buf_printf(
            tb,
            "    %s: budget %.2f GB (%.2f x CUDA-visible memory); KV cache %.2f GB = %s tokens in %s blocks of %lld;"
            " max concurrency at %lld tokens: %.2fx\n",
            gp_engine_name(w->engine), (double)m->engine_budget / 1e9, w->gpu_memory_utilization,
            (double)m->kv_cache_bytes / 1e9, gpi_fmt_count(a, sizeof a, m->kv_tokens),
            gpi_fmt_count(b, sizeof b, m->kv_blocks), (long long)m->kv_block_size, (long long)w->context,
            m->max_concurrency);
}

void gpi_text_fit(gpi_buf *tb, const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                  const gp_fit_result *r)
{
    const char *lang = sc->lang[0] ? sc->lang : "en";
    char a[64], b[64], c[64], title[256], n[6][24];
    const char *dt = gp_dtype_name(w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : (m->quant ? m->quant : m->dtype));
    if (w->task == GP_TASK_INFER)
        gp_text(title, sizeof title, "fit.head_infer", lang,
                (const char *const[]){m->name, gpu->id, gp_format_number(a, sizeof a, (double)w->batch, 0, lang),
                                      gp_format_number(b, sizeof b, (double)w->context, 0, lang), dt},
                5);
    else {
        snprintf(n[0], sizeof n[0], "%lld", (long long)(sc->micro_batch ? sc->micro_batch : 1));
        gp_text(title, sizeof title, "fit.head_train", lang,
                (const char *const[]){m->name, gpu->id, gp_task_name(w->task),
                                      gp_format_number(a, sizeof a, (double)w->seq, 0, lang), n[0],
                                      gp_optimizer_name(w->optimizer), dt},
                7);
    }
    gpi_buf_printf(tb, "%s\n\n", title);
    snprintf(n[0], sizeof n[0], "%d", r->asked.tp);
    snprintf(n[1], sizeof n[1], "%d", r->asked.pp);
    snprintf(n[2], sizeof n[2], "%d", r->asked.dp);
    gp_text(title, sizeof title, "fit.asked_layout", lang,
            (const char *const[]){n[0], n[1], n[2], r->asked.zero ? ", ZeRO" : ""}, 4);
    print_memory(tb, title, &r->asked_memory, w, lang);
    gpi_buf_printf(tb, "\n%s\n",
                   gp_text(title, sizeof title,
                           r->single_gpu_sufficient ? "fit.verdict_one"
                           : r->fits                ? "fit.verdict_several"
                                                    : "fit.verdict_none",
                           lang, NULL, 0));
    for (int i = 0; i < r->n_reasons; i++) /* already in the question's language (gpi_fit_set_lang) */
        gpi_buf_printf(tb, "  - [%s] %s\n", gp_reason_name(r->reasons[i].code), r->reasons[i].message);
    if (r->fits && (r->min_gpus > 1 || gp_layout_gpus(&r->asked) != 1)) {
        gpi_buf_printf(tb, "\n");
        const int v[6] = {r->min_gpus, 0, r->min_layout.tp, r->min_layout.pp, r->min_layout.dp, r->min_layout.zero};
        for (int i = 0; i < 6; i++)
            snprintf(n[i], sizeof n[i], "%d", v[i]);
        gp_text(title, sizeof title, "fit.smallest_setup", lang,
                (const char *const[]){n[0], gpu->id, n[2], n[3], n[4], n[5]}, 6);
        print_memory(tb, title, &r->min_memory, w, lang);
    }
    if (r->fits && w->task == GP_TASK_INFER)
        gpi_buf_printf(tb, "\n%s\n",
                       gp_text(title, sizeof title, "fit.on_setup", lang,
                               (const char *const[]){gp_format_number(a, sizeof a, (double)r->max_batch, 0, lang),
                                                     gp_format_number(b, sizeof b, (double)w->context, 0, lang),
                                                     gp_format_number(c, sizeof c, (double)r->max_context, 0, lang)},
                               3));
}

/* ---- the sizing table (gpuplan table) ------------------------------------------------------ */

#define TABLE_GB 1e9

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

static double gb(uint64_t bytes)
{
    return (double)bytes / TABLE_GB;
}

void gpi_text_table(gpi_buf *tb, const gp_table_row *rows, size_t n, const gp_gpu *gpu, const gp_workload *wi,
                    const gp_workload *wt)
{
    char a[64], b[64];
    gpi_buf_printf(tb, "LLM memory by size class on %s (%.1f GB each); GB = 10^9 bytes, bf16 weights\n\n", gpu->id,
                   gb(gpu->memory_bytes));

    gpi_buf_printf(tb, "Inference: 1 sequence of %s tokens, bf16 KV cache, no serving engine\n",
                   gpi_fmt_count(a, sizeof a, wi->context));
    gpi_buf_printf(tb, "  %-15s %9s  %8s %8s  %8s %8s %8s  %7s  %s\n", "", "", "weights", "weights", "KV", "act.+", "",
                   "rule", "min GPUs");
    gpi_buf_printf(tb, "  %-15s %9s  %8s %8s  %8s %8s %8s  %7s  %s\n", "model", "params", "2 B/par", "gpuplan", "cache",
                   "overhd", "total", "misses", "(layout)");
    for (size_t k = 0; k < n; k++) {
        const gp_table_row *r = &rows[k];
        const gp_memory *i = &r->infer.one;
        gpi_buf_printf(tb, "  %-15s %9s  %8.1f %8.1f  %8.1f %8.1f %8.1f  %6.1f%%  %s\n", r->m.id,
                       gpi_fmt_si(b, sizeof b, (double)r->params),
                       gb((uint64_t)(GP_TABLE_RULE_INFER_BYTES * r->params)), gb(i->weights), gb(i->kv_cache),
                       gb(i->activations + i->overhead), gb(i->per_gpu),
                       pct((double)(i->kv_cache + i->activations + i->overhead), (double)i->per_gpu), r->infer.layout);
    }

    gpi_buf_printf(
        tb, "\nFull training: AdamW mixed precision, %s-token sequences, micro-batch 1, selective recomputation\n",
        gpi_fmt_count(a, sizeof a, wt->seq));
    gpi_buf_printf(tb, "  %-15s %9s  %8s %11s %8s  %8s %8s %8s  %7s  %s\n", "", "", "states", "range", "states",
                   "activ-", "", "", "rule", "min GPUs");
    gpi_buf_printf(tb, "  %-15s %9s  %8s %11s %8s  %8s %8s %8s  %7s  %s\n", "model", "params", "16 B/par",
                   "12-18 B/par", "gpuplan", "ations", "overhd", "total", "misses", "(layout)");
    for (size_t k = 0; k < n; k++) {
        const gp_table_row *r = &rows[k];
        const gp_memory *t = &r->train.one;
        char range[32];
        snprintf(range, sizeof range, "%.0f-%.0f", gb((uint64_t)(GP_TABLE_RULE_TRAIN_LOW * r->params)),
                 gb((uint64_t)(GP_TABLE_RULE_TRAIN_HIGH * r->params)));
        gpi_buf_printf(
            tb, "  %-15s %9s  %8.1f %11s %8.1f  %8.1f %8.1f %8.1f  %6.1f%%  %s\n", r->m.id,
            gpi_fmt_si(b, sizeof b, (double)r->params), gb((uint64_t)(GP_TABLE_RULE_TRAIN_BYTES * r->params)), range,
            gb(t->weights + t->gradients + t->optimizer), gb(t->activations), gb(t->overhead), gb(t->per_gpu),
            pct((double)(t->activations + t->overhead), (double)t->per_gpu), r->train.layout);
    }

    gpi_buf_printf(tb,
                   "\nTotals are the whole job on one device; min GPUs is the smallest layout of %s that fits\n"
                   "(as gpuplan fit finds it).\n",
                   gpu->id);
    gpi_buf_printf(tb, "The rules of thumb (2 B/param to serve, 16 B/param = 2 + 2 + 12 to train with AdamW) count\n"
                       "model states only; \"rule misses\" is the share of the total they leave out: the KV cache at\n"
                       "the stated context, activations, and runtime overhead (CUDA context, allocator slack).\n");
}
