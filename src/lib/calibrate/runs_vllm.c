/*
 * runs_vllm.c: a `vllm bench serve` (benchmarks/benchmark_serving.py) result JSON.
 *
 * The result object's top level holds the run's settings and figures ("model_id",
 * "num_prompts", "request_rate", "max_concurrency", "completed", "total_input_tokens",
 * "total_output_tokens", "output_throughput", "total_token_throughput", "median_ttft_ms",
 * "median_tpot_ms"; vllm/benchmarks/serve.py, v0.11 and later) beside per-request arrays
 * ("ttfts", "itls", "generated_texts") that can hold millions of values. The reader walks the
 * top level once and parses only the scalar values it needs, so memory stays constant
 * whatever the arrays hold.
 */
#include "calibrate/runs_impl.h"

#include <math.h>
#include <string.h>

typedef struct span {
    const char *s;
    size_t len;
} span;

static const char *wanted[] = {"model_id",
                               "num_prompts",
                               "request_rate",
                               "max_concurrency",
                               "completed",
                               "total_input_tokens",
                               "total_output_tokens",
                               "output_throughput",
                               "total_token_throughput",
                               "median_ttft_ms",
                               "median_tpot_ms",
                               NULL};
#define N_WANTED (sizeof wanted / sizeof wanted[0] - 1)

static const char *ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* Past a JSON string starting at p (a quote); NULL when it is not closed. */
static const char *skip_string(const char *p, const char *end)
{
    for (p++; p < end; p++) {
        if (*p == '\\')
            p++;
        else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* Past one JSON value starting at p: nested values are skipped by counting brackets. */
static const char *skip_value(const char *p, const char *end)
{
    size_t depth = 0;
    while (p < end) {
        char c = *p;
        if (c == '"') {
            p = skip_string(p, end);
            if (!p)
                return NULL;
            if (depth == 0)
                return p;
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if (c == '}' || c == ']') {
            if (depth == 0)
                return p; /* the end of the enclosing object: a scalar ended here */
            if (--depth == 0)
                return p + 1;
        } else if (depth == 0 && c == ',')
            return p;
        p++;
    }
    return depth == 0 ? p : NULL;
}

static int wanted_index(const char *key, size_t klen)
{
    for (size_t i = 0; i < N_WANTED; i++)
        if (strlen(wanted[i]) == klen && memcmp(wanted[i], key, klen) == 0)
            return (int)i;
    return -1;
}

/* Walk the top-level object, recording the spans of the wanted values. Returns NULL on
   success, or where the text stops being a JSON object. */
static const char *scan_top(const char *text, size_t len, span *vals)
{
    const char *p = ws(text, text + len), *end = text + len;
    if (p >= end || *p != '{')
        return p;
    p = ws(p + 1, end);
    while (p < end && *p != '}') {
        if (*p != '"')
            return p;
        const char *k0 = p + 1, *k1 = skip_string(p, end);
        if (!k1)
            return p;
        p = ws(k1, end);
        if (p >= end || *p != ':')
            return p;
        const char *v0 = ws(p + 1, end), *v1 = skip_value(v0, end);
        if (!v1 || v1 == v0)
            return v0;
        int w = wanted_index(k0, (size_t)(k1 - 1 - k0));
        if (w >= 0) {
            vals[w].s = v0;
            vals[w].len = (size_t)(v1 - v0);
        }
        p = ws(v1, end);
        if (p < end && *p == ',')
            p = ws(p + 1, end);
    }
    return p < end ? NULL : p;
}

/* The value of a wanted key as a number (Python's json writes inf as Infinity); NaN if absent. */
static double number_of(const span *v)
{
    if (!v->s)
        return NAN;
    if ((v->len == 8 && memcmp(v->s, "Infinity", 8) == 0) || (v->len == 5 && memcmp(v->s, "\"inf\"", 5) == 0))
        return INFINITY;
    json_t *j = json_loadb(v->s, v->len, JSON_DECODE_ANY, NULL);
    double x = json_is_number(j) ? json_number_value(j) : NAN;
    json_decref(j);
    return x;
}

static void set_int(json_t *scn, const char *key, double v)
{
    if (isfinite(v) && v >= 1 && v < 1e12)
        json_object_set_new(scn, key, json_integer((json_int_t)llround(v)));
}

static json_t *vllm_scenario(const span *vals)
{
    json_t *scn = json_object();
    if (!scn)
        return NULL;
    json_t *model = vals[0].s ? json_loadb(vals[0].s, vals[0].len, JSON_DECODE_ANY, NULL) : NULL;
    if (json_is_string(model))
        json_object_set(scn, "model", model);
    json_decref(model);
    set_int(scn, "requests", number_of(&vals[1]));
    double rate = number_of(&vals[2]);
    if (isfinite(rate) && rate > 0)
        json_object_set_new(scn, "rate", json_real(rate));
    else
        json_object_set_new(scn, "rate", json_string("inf"));
    set_int(scn, "users", number_of(&vals[3]));
    double done = number_of(&vals[4]);
    if (done >= 1) {
        set_int(scn, "prompt_tokens", number_of(&vals[5]) / done);
        set_int(scn, "output_tokens", number_of(&vals[6]) / done);
    }
    json_object_set_new(scn, "engine", json_string("vllm"));
    return scn;
}

gp_status gpi_runs_vllm(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    span vals[N_WANTED];
    memset(vals, 0, sizeof vals);
    const char *bad = scan_top(text, len, vals);
    if (bad) {
        gp_status st = gpi_runs_fail(err, name, 0, NULL, GP_EPARSE, "not a JSON object at byte %td", bad - text);
        if (err)
            err->offset = bad - text;
        return st;
    }
    gpi_measured_run r;
    gpi_run_init(&r, GPI_RUN_SERVE, GPI_RUNFMT_VLLM_BENCH, 1);
    r.output_tokens_per_s = number_of(&vals[7]);
    r.total_tokens_per_s = number_of(&vals[8]);
    r.ttft_p50_s = number_of(&vals[9]) / 1000.0;
    r.tpot_p50_s = number_of(&vals[10]) / 1000.0;
    if (!(r.output_tokens_per_s > 0) || !isfinite(r.output_tokens_per_s))
        return gpi_runs_fail(err, name, 0, "output_throughput", GP_EPARSE,
                             "a vLLM result needs a positive \"output_throughput\"");
    double rate = number_of(&vals[2]);
    if (isfinite(rate) && rate > 0)
        r.request_rate_per_s = rate;
    double done = number_of(&vals[4]);
    r.samples = done >= 1 && done < 1e9 ? (int)done : 0;
    json_t *scn = vllm_scenario(vals);
    if (!scn)
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    return gpi_runset_add(set, &r, scn, name, err);
}
