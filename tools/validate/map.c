/*
 * map.c: helpers every mapper shares: result rows, and the model and GPU names of the cases
 * mapped to catalog entries. A case is mapped only from what it states (model, GPU, layout,
 * settings); its `note` decides the comparison (docs/validation.md).
 */
#include "validate.h"
#include "private/base.h"

#include <stdlib.h>
#include <string.h>

void vrows_free(vrows *rs)
{
    free(rs->r);
    rs->r = NULL;
    rs->n = rs->cap = 0;
}

static vrow *vrow_new(vrows *rs)
{
    if (rs->n == rs->cap) {
        int cap = rs->cap ? 2 * rs->cap : 256;
        vrow *r = realloc(rs->r, (size_t)cap * sizeof *r);
        if (!r) {
            rs->oom = 1;
            return NULL;
        }
        rs->r = r;
        rs->cap = cap;
    }
    vrow *r = &rs->r[rs->n++];
    memset(r, 0, sizeof *r);
    return r;
}

void vtag_model_type(vrows *rs, const gp_model *m)
{
    if (rs->n > 0)
        snprintf(rs->r[rs->n - 1].model_type, sizeof rs->r[rs->n - 1].model_type, "%s", m->model_type);
}

void vadd(vrows *rs, json_t *c, const char *quantity, double measured, double predicted, const char *unit)
{
    vrow *r = vrow_new(rs);
    if (!r)
        return;
    snprintf(r->id, sizeof r->id, "%s", json_string_value(json_object_get(c, "id")));
    snprintf(r->category, sizeof r->category, "%s", json_string_value(json_object_get(c, "category")));
    vcase_source(c, r->source, sizeof r->source);
    vcase_gpu_generation(c, r->gpu_gen, sizeof r->gpu_gen);
    vcase_group(c, r->group, sizeof r->group);
    /* the bias report's tags from the case (training's vtrain_tag refines them from the model) */
    snprintf(r->moe, sizeof r->moe, "%s", strncmp(r->group, "MoE", 3) == 0 ? "MoE" : "dense");
    snprintf(r->precision, sizeof r->precision, "%s",
             vcontains(r->group, "fp4")   ? "fp4"
             : vcontains(r->group, "fp8") ? "fp8"
                                          : "16-bit");
    snprintf(r->quantity, sizeof r->quantity, "%s", quantity);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    r->measured = measured;
    r->predicted = predicted;
}

void vadd_bound(vrows *rs, json_t *c, const char *quantity, double limit, double predicted, const char *unit, int pass)
{
    int n = rs->n;
    vadd(rs, c, quantity, limit, predicted, unit);
    if (rs->n == n)
        return;
    rs->r[rs->n - 1].bound = 1;
    rs->r[rs->n - 1].pass = pass;
}

/* Model names in the cases -> a catalog id, or an explicit architecture (LLaMA-1, from
 * Touvron et al. 2023 Table 2 and the HF configs: vocab 32,000, SwiGLU, untied). */
typedef struct model_map {
    const char *pattern;                       /* case-insensitive substring of model.name */
    const char *catalog;                       /* catalog id, or NULL */
    int64_t layers, hidden, heads, ffn, vocab; /* explicit, when catalog is NULL */
} model_map;

static const model_map model_maps[] = {
    {"Qwen2-7B", "qwen2.5-7b", 0, 0, 0, 0, 0}, /* same architecture as Qwen2.5-7B (note of the case) */
    {"Llama 3.1 8B", "llama-3.1-8b", 0, 0, 0, 0, 0},   {"Llama-3.1-8B", "llama-3.1-8b", 0, 0, 0, 0, 0},
    {"Llama-3.1-70B", "llama-3.1-70b", 0, 0, 0, 0, 0}, {"Llama-2-7B", "llama-2-7b", 0, 0, 0, 0, 0},
    {"Llama-2-70B", "llama-2-70b", 0, 0, 0, 0, 0},     {"Vicuna 13B", NULL, 40, 5120, 40, 13824, 32000},
    {"Guanaco 65B", NULL, 80, 8192, 64, 22016, 32000}, {"Guanaco 33B", NULL, 60, 6656, 52, 17920, 32000},
    {"Guanaco 13B", NULL, 40, 5120, 40, 13824, 32000}, {"Guanaco 7B", NULL, 32, 4096, 32, 11008, 32000},
    {"LLaMA-65B", NULL, 80, 8192, 64, 22016, 32000},   {"LLaMA-7B", NULL, 32, 4096, 32, 11008, 32000},
};

int vcontains(const char *hay, const char *needle)
{
    if (!hay || !needle)
        return 0;
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] && ((hay[i] | 32) == (needle[i] | 32) || hay[i] == needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return 0;
}

int vmap_model(const gp_catalog *cat, json_t *c, gp_model *m)
{
    const char *name = json_string_value(json_object_get(json_object_get(c, "model"), "name"));
    for (size_t i = 0; i < sizeof model_maps / sizeof model_maps[0]; i++) {
        if (!vcontains(name, model_maps[i].pattern))
            continue;
        if (model_maps[i].catalog)
            return gp_catalog_find_model(cat, model_maps[i].catalog, m, NULL) == GP_OK;
        memset(m, 0, sizeof *m);
        m->layers = model_maps[i].layers;
        m->hidden = model_maps[i].hidden;
        m->heads = m->kv_heads = model_maps[i].heads;
        m->head_dim = m->hidden / m->heads;
        m->ffn = model_maps[i].ffn;
        m->vocab = model_maps[i].vocab;
        m->norms_per_layer = 2;
        m->dtype = GP_DTYPE_F16;
        snprintf(m->id, sizeof m->id, "%s", model_maps[i].pattern);
        return gp_model_validate(m, NULL) == GP_OK;
    }
    return 0;
}

const gp_gpu *vmap_gpu(const gp_catalog *cat, json_t *c)
{
    const char *g = json_string_value(json_object_get(json_object_get(c, "hardware"), "gpu"));
    static const struct {
        const char *pattern, *id;
    } maps[] = {
        {"A100-80GB", "A100-SXM-80GB"}, {"A100-SXM4-80GB", "A100-SXM-80GB"}, {"RTX 3090", "RTX-3090"},
        {"H100-80GB", "H100-SXM-80GB"}, {"H100 96GB", "H100-NVL-94GB"},      {"H100", "H100-SXM-80GB"},
    };
    for (size_t i = 0; g && i < sizeof maps / sizeof maps[0]; i++) {
        if (vcontains(g, maps[i].pattern)) {
            const gp_gpu *out;
            return gp_catalog_find_gpu(cat, maps[i].id, &out, NULL) == GP_OK ? out : NULL;
        }
    }
    return NULL;
}

double vnum(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

int vint(json_t *obj, const char *key, int dflt)
{
    json_t *v = json_object_get(obj, key);
    if (json_is_integer(v))
        return (int)json_integer_value(v);
    if (json_is_string(v)) { /* "FSDP 8" */
        const char *s = json_string_value(v);
        while (*s && (*s < '0' || *s > '9'))
            s++;
        if (*s)
            return atoi(s);
    }
    return dflt;
}

void vcase_source(json_t *c, char *out, size_t n)
{
    const char *s = json_string_value(json_object_get(c, "source_id"));
    if (s && *s) {
        snprintf(out, n, "%s", s);
        return;
    }
    s = json_string_value(json_object_get(c, "source"));
    if (!s)
        s = "unknown";
    static const char *const prefixes[] = {"https://", "http://", "www.", "github.com/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
            s += strlen(prefixes[i]);
    size_t len = 0, slashes = 0;
    while (s[len] && s[len] != ' ' && s[len] != '\t' && !(s[len] == '/' && ++slashes == 2))
        len++;
    while (len > 0 && strchr(",;:.'", s[len - 1])) /* "kipply," and "Dettmers'" */
        len--;
    if (len == 0)
        s = "unknown", len = strlen(s);
    size_t o = 0;
    for (; o < len && o + 1 < n; o++)
        out[o] = (char)(s[o] >= 'A' && s[o] <= 'Z' ? s[o] + 32 : s[o]);
    out[o] = 0;
}

void vcase_gpu_generation(json_t *c, char *out, size_t n)
{
    /* first match wins: longer names before their prefixes (GB200 before B200, A100 before A10) */
    static const struct {
        const char *pattern, *gen;
    } gens[] = {
        {"RTX-PRO-6000", "Blackwell"},
        {"RTX PRO 6000", "Blackwell"},
        {"RTX-6000-ADA", "Ada"},
        {"RTX-50", "Blackwell"},
        {"RTX-40", "Ada"},
        {"RTX-30", "Ampere"},
        {"GB300", "Blackwell"},
        {"GB200", "Blackwell"},
        {"B300", "Blackwell"},
        {"B200", "Blackwell"},
        {"RTX 50", "Blackwell"},
        {"GH200", "Hopper"},
        {"H200", "Hopper"},
        {"H100", "Hopper"},
        {"H800", "Hopper"},
        {"H20", "Hopper"},
        {"L40", "Ada"},
        {"L4", "Ada"},
        {"RTX 40", "Ada"},
        {"A100", "Ampere"},
        {"A800", "Ampere"},
        {"A10", "Ampere"},
        {"A30", "Ampere"},
        {"A40", "Ampere"},
        {"A6000", "Ampere"},
        {"RTX 30", "Ampere"},
        {"V100", "Volta"},
        {"T4", "Turing"},
        {"MI355", "CDNA4"},
        {"MI350", "CDNA4"},
        {"MI325", "CDNA3"},
        {"MI300", "CDNA3"},
        {"MI250", "CDNA2"},
    };
    const char *g = json_string_value(json_object_get(json_object_get(c, "hardware"), "gpu"));
    for (size_t i = 0; g && i < sizeof gens / sizeof gens[0]; i++) {
        if (vcontains(g, gens[i].pattern)) {
            snprintf(out, n, "%s", gens[i].gen);
            return;
        }
    }
    snprintf(out, n, "%s", "unknown");
}

void vcase_group(json_t *c, char *out, size_t n)
{
    /* the formats a precision text names, most specific first; anything else is 16-bit */
    static const char *const formats[] = {"nvfp4", "mxfp4", "mxfp8", "fp4", "float8", "fp8", "int8", "int4", "nf4"};
    json_t *model = json_object_get(c, "model");
    const char *prec = json_string_value(json_object_get(json_object_get(c, "settings"), "precision"));
    const char *name = json_string_value(json_object_get(model, "name"));
    const char *id = json_string_value(json_object_get(c, "id"));
    const char *p = NULL;
    for (size_t i = 0; prec && !p && i < sizeof formats / sizeof formats[0]; i++)
        if (vcontains(prec, formats[i]))
            p = strcmp(formats[i], "float8") == 0 ? "fp8" : formats[i];
    /* the TensorRT-LLM perf-overview rows of public.jsonl run FP8 ModelOpt checkpoints */
    if (!p && !(prec && *prec) && ((name && vcontains(name, "FP8")) || (id && vcontains(id, "trtllm-"))))
        p = "fp8";
    snprintf(out, n, "%s %s", json_is_true(json_object_get(model, "moe")) ? "MoE" : "dense", p ? p : "16-bit");
}

unsigned vrecompute_modules(const char *r)
{
    unsigned mods = 0;
    const char *p = r ? strchr(r, '(') : NULL;
    while (p && *p) {
        size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
        if (n == 0) {
            p++;
            continue;
        }
        char word[32];
        unsigned one = 0;
        if (n < sizeof word) {
            memcpy(word, p, n);
            word[n] = '\0';
            if (strcmp(word, "shared_expert") == 0) /* a source's singular */
                one = GP_RECOMPUTE_SHARED_EXPERTS;
            else if (gpi_recompute_modules_parse(word, &one, NULL) != 0)
                one = 0; /* a word that names no module ("recompute", "modules") */
        }
        mods |= one;
        p += n;
    }
    return mods;
}
