/*
 * engines.c: engine profiles from data/engines.json (docs/serving.md, "Engine profiles"):
 * each engine's default scheduling rules, resolved for one GPU type and TP by its tiers.
 */
#include "serving.h"

#include <math.h>
#include <string.h>

/* A bound on eager_layer_us (0.1 s per layer): far above any engine's dispatch of one layer,
 * so a misplaced unit in a user's engines.json is refused, not simulated. */
#define GPI_EAGER_LAYER_MAX_S 0.1

static const char *profile_id(gp_engine e)
{
    switch (e) {
    case GP_ENGINE_SGLANG: return "sglang";
    case GP_ENGINE_TRTLLM: return "trtllm";
    default: return "vllm"; /* TGI, llama.cpp and the generic accounting: vLLM's rules */
    }
}

/* A tier holds when every condition it names holds. */
static int tier_holds(json_t *t, const gp_gpu *gpu, int tp)
{
    double gib = (double)gpu->memory_bytes / 1073741824.0;
    json_t *v;
    if ((v = json_object_get(t, "min_gib")) && !(gib >= json_number_value(v)))
        return 0;
    if ((v = json_object_get(t, "below_gib")) && !(gib < json_number_value(v)))
        return 0;
    if ((v = json_object_get(t, "min_tp")) && !(tp >= json_number_value(v)))
        return 0;
    if ((v = json_object_get(t, "below_tp")) && !(tp < json_number_value(v)))
        return 0;
    if ((v = json_object_get(t, "vllm_large_device")) && json_is_boolean(v) &&
        json_is_true(v) != (gpu->vllm_large_device != 0))
        return 0; /* the GPU's field (data/gpus.json): vLLM's large-device rule lives there once */
    const char *not_gpu = json_string_value(json_object_get(t, "not_gpu"));
    if (not_gpu && strncmp(gpu->id, not_gpu, strlen(not_gpu)) == 0)
        return 0;
    const char *only = json_string_value(json_object_get(t, "gpu"));
    if (only && strncmp(gpu->id, only, strlen(only)) != 0)
        return 0;
    return 1;
}

/* A number, or the value of the first tier that holds (0 when none). */
static double tiered(json_t *e, const char *key, const gp_gpu *gpu, int tp)
{
    json_t *v = json_object_get(e, key);
    if (json_is_number(v))
        return json_number_value(v);
    size_t i;
    json_t *t;
    json_array_foreach(v, i, t) if (tier_holds(t, gpu, tp)) return json_number_value(json_object_get(t, "value"));
    return 0.0;
}

static json_t *find_engine(const gp_catalog *cat, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(gpi_catalog_engines(cat), "engines"), i, e)
    {
        const char *eid = json_string_value(json_object_get(e, "id"));
        if (eid && gpi_strcaseeq(eid, id))
            return e;
    }
    return NULL;
}

/* cuda_graph_batch_sizes: numbers and [first, last, step] ranges (both ends included), in
 * ascending order, expanded into out->graph_sizes. 0: none listed or the list is valid;
 * -1: a size below 1, a range without a positive step, sizes out of order or more than
 * GPI_MAX_GRAPH_SIZES of them. */
static int add_size(gpi_engine_profile *out, double v)
{
    if (!(v >= 1 && v <= 1e9) || out->n_graph_sizes >= GPI_MAX_GRAPH_SIZES ||
        (out->n_graph_sizes > 0 && (int64_t)v <= out->graph_sizes[out->n_graph_sizes - 1]))
        return -1;
    out->graph_sizes[out->n_graph_sizes++] = (int64_t)v;
    return 0;
}

static int graph_sizes(json_t *e, gpi_engine_profile *out)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(e, "cuda_graph_batch_sizes"), i, v)
    {
        if (json_is_number(v)) {
            if (add_size(out, json_number_value(v)))
                return -1;
            continue;
        }
        double a = json_number_value(json_array_get(v, 0)), b = json_number_value(json_array_get(v, 1));
        double step = json_number_value(json_array_get(v, 2));
        if (json_array_size(v) != 3 || !(step >= 1) || !(b >= a) || (b - a) / step >= GPI_MAX_GRAPH_SIZES)
            return -1;
        for (double x = a; x <= b; x += step)
            if (add_size(out, x))
                return -1;
    }
    return 0;
}

/* The first key a profile needs that `e` lacks (a number or a list of tiers), NULL if none. */
static const char *missing_key(json_t *e)
{
    static const char *const needed[] = {"max_num_batched_tokens", "max_num_seqs", "block_size"};
    for (size_t k = 0; k < sizeof needed / sizeof needed[0]; k++) {
        json_t *v = json_object_get(e, needed[k]);
        if (!json_is_number(v) && !json_is_array(v))
            return needed[k];
    }
    return NULL;
}

gp_status gpi_engines_check(struct json_t *engines, gp_error *err)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(engines, "engines"), i, e)
    {
        const char *id = json_string_value(json_object_get(e, "id"));
        gpi_engine_profile p;
        memset(&p, 0, sizeof p);
        if (graph_sizes(e, &p)) {
            gpi_error_set_path(err, "engines.json");
            gpi_error_set_field(err, "cuda_graph_batch_sizes");
            return gpi_fail(err, GP_EPARSE,
                            "engines.json profile \"%s\": cuda_graph_batch_sizes must list sizes of at least 1 and "
                            "[first, last, step] ranges in ascending order, at most %d sizes",
                            id ? id : "?", GPI_MAX_GRAPH_SIZES);
        }
        json_t *eager = json_object_get(e, "eager_layer_us");
        if (eager && !(json_is_number(eager) && json_number_value(eager) >= 0 &&
                       json_number_value(eager) * 1e-6 <= GPI_EAGER_LAYER_MAX_S)) {
            gpi_error_set_path(err, "engines.json");
            gpi_error_set_field(err, "eager_layer_us");
            return gpi_fail(err, GP_EPARSE,
                            "engines.json profile \"%s\": eager_layer_us must be a number of microseconds per "
                            "layer from 0 to 100000",
                            id ? id : "?");
        }
        const char *missing = missing_key(e);
        if (missing) {
            gpi_error_set_path(err, "engines.json");
            gpi_error_set_field(err, missing);
            return gpi_fail(err, GP_EPARSE,
                            "engines.json profile \"%s\" has no %s: a profile replaces the built-in one of the "
                            "same id whole, so copy it from data/engines.json and change what you need",
                            id ? id : "?", missing);
        }
    }
    return GP_OK;
}

gp_status gpi_engine_profile_get(const gp_catalog *cat, gp_engine engine, const gp_gpu *gpu, int tp,
                                 gpi_engine_profile *out, gp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *id = profile_id(engine);
    json_t *e = cat && gpu ? find_engine(cat, id) : NULL;
    if (!e) {
        gpi_error_set_path(err, "engines.json");
        return gpi_fail(err, GP_ENOTFOUND, "engines.json has no profile \"%s\"", id);
    }
    gpi_strlcpy(out->id, id, sizeof out->id);
    const char *rel = json_string_value(json_object_get(e, "release"));
    gpi_strlcpy(out->release, rel ? rel : "", sizeof out->release);
    out->chunked_prefill = json_is_true(json_object_get(e, "chunked_prefill"));
    out->max_num_batched_tokens = (int64_t)tiered(e, "max_num_batched_tokens", gpu, tp);
    out->max_num_seqs = (int64_t)tiered(e, "max_num_seqs", gpu, tp);
    out->block_size = (int64_t)tiered(e, "block_size", gpu, tp);
    out->kv_fraction = tiered(e, "kv_fraction", gpu, tp);
    out->reserve_full = json_is_true(json_object_get(e, "reserve_full"));
    out->cuda_graphs = json_is_true(json_object_get(e, "cuda_graphs"));
    out->cuda_graph_max_batch = (int64_t)tiered(e, "cuda_graph_max_batch", gpu, tp);
    graph_sizes(e, out); /* checked when the catalog opened (gpi_engines_check) */
    out->step_overhead_s = tiered(e, "step_overhead_ms", gpu, tp) * 1e-3;
    out->seq_overhead_s = tiered(e, "seq_overhead_ms", gpu, tp) * 1e-3;
    out->eager_layer_s = tiered(e, "eager_layer_us", gpu, tp) * 1e-6;
    out->host_overlap = json_is_true(json_object_get(e, "host_overlap"));
    out->host_overlap_pp = json_is_true(json_object_get(e, "host_overlap_pp"));
    if (out->max_num_batched_tokens < 1 || out->max_num_seqs < 1 || out->block_size < 1 || out->kv_fraction < 0 ||
        out->kv_fraction > 1 || out->step_overhead_s < 0 || out->seq_overhead_s < 0 ||
        !(out->eager_layer_s >= 0 && out->eager_layer_s <= GPI_EAGER_LAYER_MAX_S)) {
        gpi_error_set_path(err, "engines.json");
        gpi_error_set_field(err, id);
        return gpi_fail(err, GP_EPARSE,
                        "engines.json profile \"%s\": max_num_batched_tokens, max_num_seqs and block_size must be "
                        "at least 1, kv_fraction in [0, 1], overheads non-negative, eager_layer_us at most 100000",
                        id);
    }
    return GP_OK;
}

void gpi_perf_params_profile(gpi_perf_params *p, gp_engine engine, const gpi_engine_profile *prof, int pp)
{
    gpi_perf_params_defaults(p, engine);
    if (prof && prof->id[0]) {
        p->step_overhead_s = prof->step_overhead_s;
        p->seq_overhead_s = prof->seq_overhead_s;
        p->eager_layer_s = prof->eager_layer_s;
        p->host_overlap = prof->host_overlap && (pp <= 1 || prof->host_overlap_pp);
    }
}

void gpi_serve_params(const gpi_capacity_request *rq, const gpi_engine_profile *prof, int pp, gpi_perf_params *out)
{
    if (rq->params) {
        *out = *rq->params;
        return;
    }
    gpi_perf_params_profile(out, rq->w->engine, prof, pp);
}

/* One entry of error_ranges.groups: an architecture's ("model_type") or a pool's ("moe"). */
static gp_status load_range(json_t *g, gpi_range_table *t, gp_error *err)
{
    json_t *lo = json_object_get(g, "p10"), *hi = json_object_get(g, "p90"), *n = json_object_get(g, "cases");
    double p10 = json_is_number(lo) ? json_number_value(lo) : NAN,
           p90 = json_is_number(hi) ? json_number_value(hi) : NAN;
    json_t *type = json_object_get(g, "model_type");
    if (!type)
        return gpi_range_set_pool(t, json_is_true(json_object_get(g, "moe")), p10, p90, "engines.json",
                                  "error_ranges.groups", err);
    return gpi_range_add_type(t, json_string_value(type), p10, p90, json_is_integer(n) ? json_integer_value(n) : 0,
                              "engines.json", "error_ranges.groups", err);
}

gp_status gpi_serve_ranges_load(struct json_t *engines, gpi_range_table *t, gp_error *err)
{
    memset(t, 0, sizeof *t);
    json_t *groups = json_object_get(json_object_get(engines, "error_ranges"), "groups"), *g;
    if (groups && !json_is_array(groups)) {
        gpi_error_set_path(err, "engines.json");
        gpi_error_set_field(err, "error_ranges.groups");
        return gpi_fail(err, GP_EPARSE, "engines.json: error_ranges.groups must be a list");
    }
    size_t i;
    json_array_foreach(groups, i, g)
    {
        gp_status st = load_range(g, t, err);
        if (st)
            return st;
    }
    return GP_OK;
}

void gpi_serve_error_range(const gp_catalog *cat, const gp_model *m, double *p10, double *p90, char *basis,
                           size_t basis_len, int *cases)
{
    const gpi_range *r = gpi_range_pick(gpi_catalog_serve_ranges(cat), m ? m->model_type : NULL, m && m->experts > 0);
    *p10 = r ? r->p10 : 0.0, *p90 = r ? r->p90 : 0.0;
    if (cases)
        *cases = r ? r->cases : 0;
    if (basis && basis_len)
        gpi_strlcpy(basis, r ? r->basis : "", basis_len);
}
