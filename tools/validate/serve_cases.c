/* serve_cases.c: serving cases' mapping shared by the harness and bench (serve_cases.h). */
#include "serve_cases.h"

#include <math.h>
#include <string.h>

static int has(const char *s, const char *sub) { return s && sub && strstr(s, sub) != NULL; }

int64_t gpv_trtllm_requests(int64_t isl, int64_t osl)
{
    if (isl + osl <= 256)
        return 30000;
    if (isl >= 20000)
        return 1000;
    if (isl + osl > 4000 || osl >= 4096 || (isl >= 1000 && osl >= 2000))
        return 1500;
    return 3000;
}

gp_dtype gpv_serve_precision(const char *p)
{
    if (has(p, "nvfp4") || has(p, "FP4"))
        return GP_DTYPE_FP4;
    if (has(p, "mxfp4"))
        return GP_DTYPE_MXFP4;
    return GP_DTYPE_FP8;
}

int gpv_serve_model(const gp_catalog *cat, json_t *mj, gp_model *m)
{
    const char *preset = json_string_value(json_object_get(mj, "preset"));
    const char *name = json_string_value(json_object_get(mj, "name"));
    static const struct { const char *pattern, *id; } maps[] = {
        {"Llama 3.3 70B", "llama-3.3-70b"},   {"Llama 3.1 405B", "llama-3.1-405b"}, {"Llama 3.1 70B", "llama-3.1-70b"},
        {"Llama 3.1 8B", "llama-3.1-8b"},     {"Llama-3.1-405B", "llama-3.1-405b"}, {"Llama-3.1-70B", "llama-3.1-70b"},
        {"Llama-3.1-8B", "llama-3.1-8b"},
    };
    if (preset && gp_catalog_find_model(cat, preset, m, NULL) == GP_OK)
        return 1;
    for (size_t i = 0; name && i < sizeof maps / sizeof maps[0]; i++)
        if (has(name, maps[i].pattern))
            return gp_catalog_find_model(cat, maps[i].id, m, NULL) == GP_OK;
    return 0;
}

const gp_gpu *gpv_serve_gpu(const gp_catalog *cat, const char *g)
{
    static const struct { const char *pattern, *id; } maps[] = {
        {"H200", "H200-SXM-141GB"}, {"H100", "H100-SXM-80GB"}, {"GB200", "GB200"}, {"B200", "B200"},
        {"RTX-PRO-6000", "RTX-PRO-6000"}, {"MI300X", "MI300X"}, {"GB300", "GB300"},
    };
    const gp_gpu *out = NULL;
    for (size_t i = 0; g && i < sizeof maps / sizeof maps[0]; i++)
        if (has(g, maps[i].pattern))
            return gp_catalog_find_gpu(cat, maps[i].id, &out, NULL) == GP_OK ? out : NULL;
    return NULL;
}

static int par_int(json_t *par, const char *key)
{
    json_t *v = json_object_get(par, key);
    double d = json_is_number(v) ? json_number_value(v) : NAN;
    return d > 0 ? (int)d : 1;
}

void gpv_serve_layout(json_t *par, gp_layout *l)
{
    l->tp = par_int(par, "tp");
    l->pp = par_int(par, "pp");
    l->ep = par_int(par, "ep");
    l->dp = 1;
    if (json_is_true(json_object_get(par, "attention_dp")) && l->ep > 1) {
        l->dp = l->tp; /* attention DP over the TP ranks, experts spread over them */
        l->tp = 1;
    }
}
