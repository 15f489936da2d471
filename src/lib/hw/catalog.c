/*
 * catalog.c: the built-in data (data/models.json, data/gpus.json, embedded at build time),
 * optionally extended or overridden by a user's files of the same shape.
 *
 * Models stay as their JSON config until asked for: gp_catalog_model_at() runs the same
 * config.json reader a user's file goes through, so a catalog entry is exactly as good as
 * the published config it copies.
 */
#include "internal.h"
#include "hw/kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gp_catalog {
    json_t *models; /* array of model entries (owned) */
    gp_gpu *gpus;   /* GPU rows */
    size_t n_gpus;
    json_t *gpu_aliases; /* array parallel to gpus: aliases arrays (owned) */
    gpi_link *links;
    size_t n_links;
    json_t *link_aliases;         /* array parallel to links (owned) */
    json_t *prices;               /* data/prices.json, merged with the user's (owned) */
    json_t *compliance;           /* data/compliance.json, merged with the user's (owned) */
    char profile_note[512];       /* the calibration profile applied (gp_catalog_apply_profile) */
    gpi_kernels *kernels;         /* data/kernels.json, precomputed per GPU and link (owned) */
    json_t *engines;              /* data/engines.json, merged with the user's (owned) */
    gpi_range_table serve_ranges; /* its error_ranges, checked */
};

gp_gpu *gpi_catalog_gpu_mut(gp_catalog *cat, const char *id)
{
    for (size_t i = 0; cat && id && i < cat->n_gpus; i++)
        if (gpi_strcaseeq(cat->gpus[i].id, id))
            return &cat->gpus[i];
    return NULL;
}

void gpi_catalog_set_profile_note(gp_catalog *cat, const char *note)
{
    gpi_strlcpy(cat->profile_note, note, sizeof cat->profile_note);
}

const char *gp_catalog_profile_note(const gp_catalog *cat)
{
    return cat ? cat->profile_note : "";
}

static gp_status load_json(const char *text, size_t len, const char *name, json_t **out, gp_error *err)
{
    json_error_t jerr;
    *out = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
    if (*out)
        return GP_OK;
    if (err) {
        gpi_error_set_path(err, name);
        err->line = jerr.line;
        err->column = jerr.column;
        err->offset = jerr.position;
    }
    return gpi_fail(err, GP_EPARSE, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
}

static gp_status load_user_file(const char *dir, const char *file, json_t **out, gp_error *err)
{
    *out = NULL;
    char path[GP_ERROR_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    uint8_t *buf;
    size_t len;
    uint64_t size;
    gp_error local;
    gp_error_clear(&local);
    gp_status st = gpi_read_file_prefix(path, GPI_MAX_CONFIG_BYTES + 1, &buf, &len, &size, &local);
    if (st == GP_ENOTFOUND)
        return GP_OK; /* a data dir need not override every file */
    if (st) {
        if (err)
            *err = local;
        return st;
    }
    /* a user's data file: its real size when too large, and Jansson's tree bounded before it
     * is built (docs/reliability.md, "Files") */
    static const gpi_json_limits data_limits = {32, (size_t)1 << 20, (size_t)1 << 16};
    gpi_json_counts counts;
    if (size > GPI_MAX_CONFIG_BYTES) {
        char b[48];
        gpi_format_bytes(b, sizeof b, (double)size);
        gpi_error_set_path(err, path);
        st = gpi_fail(err, GP_ELIMIT, "%s: a %s file is too large for a data file (the limit is %u bytes)", path, b,
                      GPI_MAX_CONFIG_BYTES);
    } else if (gpi_json_scan((const char *)buf, len, &data_limits, &counts, &local) == GP_ELIMIT) {
        gpi_error_set_path(err, path);
        if (err)
            err->offset = local.offset;
        st = gpi_fail(err, GP_ELIMIT, "%s: %s (a data file may nest %d deep and hold %zu values and keys)", path,
                      local.msg, data_limits.max_depth, data_limits.max_items);
    } else
        st = load_json((const char *)buf, len, path, out, err);
    free(buf);
    return st;
}

/* Merge the entries of `key` in `user` into `base` (same "id" replaces, new ids append). */
static gp_status merge_entries(json_t *base, json_t *user, const char *key, const char *name, gp_error *err)
{
    json_t *ub = json_object_get(user, key), *bb = json_object_get(base, key);
    if (!json_is_array(ub)) {
        gpi_error_set_path(err, name);
        gpi_error_set_field(err, key);
        return gpi_fail(err, GP_EPARSE, "%s: expected an array '%s'", name, key);
    }
    size_t i;
    json_t *e;
    json_array_foreach(ub, i, e)
    {
        const char *id = json_string_value(json_object_get(e, "id"));
        if (!id) {
            gpi_error_set_path(err, name);
            gpi_error_set_field(err, "id");
            return gpi_fail(err, GP_EPARSE, "%s: entry %zu of '%s' has no string 'id'", name, i, key);
        }
        size_t j;
        json_t *b;
        int replaced = 0;
        json_array_foreach(bb, j, b)
        {
            if (gpi_strcaseeq(json_string_value(json_object_get(b, "id")), id)) {
                json_array_set(bb, j, e);
                replaced = 1;
                break;
            }
        }
        if (!replaced)
            json_array_append(bb, e);
    }
    return GP_OK;
}

static double num_or_zero(json_t *v)
{
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static gp_status parse_gpu(json_t *e, gp_gpu *g, const char *name, gp_error *err)
{
    memset(g, 0, sizeof *g);
    const char *id = json_string_value(json_object_get(e, "id"));
    json_t *mem = json_object_get(e, "memory_bytes");
    if (!id || !json_is_integer(mem) || json_integer_value(mem) <= 0) {
        gpi_error_set_path(err, name);
        gpi_error_set_field(err, id ? "memory_bytes" : "id");
        return gpi_fail(err, GP_EPARSE, "%s: GPU entry %s needs a string 'id' and a positive integer 'memory_bytes'",
                        name, id ? id : "(no id)");
    }
    gpi_strlcpy(g->id, id, sizeof g->id);
    gpi_strlcpy(g->vendor, json_string_value(json_object_get(e, "vendor")), sizeof g->vendor);
    gpi_strlcpy(g->name, json_string_value(json_object_get(e, "name")), sizeof g->name);
    g->memory_marketed_gb = num_or_zero(json_object_get(e, "memory_marketed_gb"));
    g->memory_bytes = (uint64_t)json_integer_value(mem);
    g->hbm_bandwidth_gbps = num_or_zero(json_object_get(e, "hbm_bandwidth_gbps"));
    json_t *t = json_object_get(e, "dense_tflops");
    g->tflops[GP_DTYPE_F64] = num_or_zero(json_object_get(t, "fp64"));
    g->tflops[GP_DTYPE_F32] = num_or_zero(json_object_get(t, "fp32"));
    g->tf32_tflops = num_or_zero(json_object_get(t, "tf32"));
    g->tflops[GP_DTYPE_BF16] = num_or_zero(json_object_get(t, "bf16"));
    g->tflops[GP_DTYPE_F16] = num_or_zero(json_object_get(t, "fp16"));
    g->tflops[GP_DTYPE_FP8] = num_or_zero(json_object_get(t, "fp8"));
    g->tflops[GP_DTYPE_INT8] = num_or_zero(json_object_get(t, "int8"));
    double fp4 = num_or_zero(json_object_get(t, "fp4"));
    g->tflops[GP_DTYPE_FP4] = fp4;
    g->tflops[GP_DTYPE_MXFP4] = fp4;
    /* Weight-only 4-bit formats (int4, nf4) dequantize to 16 bits before the matmul. */
    g->tflops[GP_DTYPE_INT4] = g->tflops[GP_DTYPE_BF16] > 0 ? g->tflops[GP_DTYPE_BF16] : g->tflops[GP_DTYPE_F16];
    g->tflops[GP_DTYPE_NF4] = g->tflops[GP_DTYPE_INT4];
    json_t *su = json_object_get(e, "scale_up");
    gpi_strlcpy(g->scale_up_name,
                json_is_string(json_object_get(su, "name")) ? json_string_value(json_object_get(su, "name")) : "none",
                sizeof g->scale_up_name);
    g->scale_up_gbps_bidir = num_or_zero(json_object_get(su, "bw_gbps_bidir"));
    g->scale_up_domain = (int)num_or_zero(json_object_get(su, "domain_size"));
    if (g->scale_up_domain < 1)
        g->scale_up_domain = 1;
    g->pcie_gen = (int)num_or_zero(json_object_get(e, "pcie_gen"));
    gpi_strlcpy(g->scale_up_link, json_string_value(json_object_get(e, "scale_up_link")), sizeof g->scale_up_link);
    json_t *large = json_object_get(e, "vllm_large_device");
    g->vllm_large_device = json_is_boolean(large) ? json_is_true(large) : gpi_gpu_vllm_large_rule(g);
    g->tdp_w = num_or_zero(json_object_get(e, "tdp_w"));
    g->launch_year = (int)num_or_zero(json_object_get(e, "launch_year"));
    g->consumer = json_is_object(json_object_get(e, "consumer")) || json_is_true(json_object_get(e, "consumer"));
    return GP_OK;
}

/* prices.json / compliance.json: the built-in file, then a user's file of the same name in
 * data_dir: its arrays (`keys`) merge by id, its objects' keys replace one by one, its other
 * values replace. */
static gp_status load_decision_file(const char *data_dir, const char *file, const char *const *keys, json_t **out,
                                    gp_error *err)
{
    char emb[64];
    snprintf(emb, sizeof emb, "data/%s", file);
    size_t len;
    const char *text = gpi_embedded(emb, &len);
    if (!text)
        return gpi_fail(err, GP_ENOTFOUND, "built-in %s missing", emb);
    gp_status st = load_json(text, len, emb, out, err);
    if (st || !data_dir)
        return st;
    json_t *user = NULL;
    st = load_user_file(data_dir, file, &user, err);
    if (st || !user)
        return st;
    char name[GP_ERROR_PATH_MAX];
    snprintf(name, sizeof name, "%s/%s", data_dir, file);
    const char *key;
    json_t *v;
    json_object_foreach(user, key, v)
    {
        int is_list = 0;
        for (size_t k = 0; keys[k]; k++)
            is_list |= strcmp(keys[k], key) == 0;
        if (is_list)
            st = merge_entries(*out, user, key, name, err);
        else if (json_is_object(v) && json_is_object(json_object_get(*out, key)))
            json_object_update(json_object_get(*out, key), v);
        else
            json_object_set(*out, key, v);
        if (st)
            break;
    }
    json_decref(user);
    return st;
}

json_t *gpi_catalog_prices(const gp_catalog *cat)
{
    return cat ? cat->prices : NULL;
}
json_t *gpi_catalog_compliance(const gp_catalog *cat)
{
    return cat ? cat->compliance : NULL;
}
const gpi_kernels *gpi_catalog_kernels(const gp_catalog *cat)
{
    return cat ? cat->kernels : NULL;
}
const gpi_range_table *gpi_catalog_serve_ranges(const gp_catalog *cat)
{
    return cat ? &cat->serve_ranges : NULL;
}

json_t *gpi_catalog_engines(const gp_catalog *cat)
{
    return cat ? cat->engines : NULL;
}

/* data/kernels.json (merged with the user's like prices.json), precomputed for the GPUs and
 * links just loaded (src/lib/hw/kernels.c). */
static gp_status load_kernels(const char *data_dir, gp_catalog *cat, gp_error *err)
{
    static const char *const lists[] = {"gemm", "attention", "hbm", "collectives", NULL};
    json_t *root = NULL;
    gp_status st = load_decision_file(data_dir, "kernels.json", lists, &root, err);
    if (!st)
        st = gpi_kernels_load(root, cat->gpus, cat->n_gpus, cat->links, cat->n_links, &cat->kernels, err);
    json_decref(root);
    return st;
}

void gp_catalog_free(gp_catalog *cat)
{
    if (!cat)
        return;
    json_decref(cat->models);
    json_decref(cat->gpu_aliases);
    json_decref(cat->link_aliases);
    json_decref(cat->prices);
    json_decref(cat->compliance);
    gpi_kernels_free(cat->kernels);
    json_decref(cat->engines);
    free(cat->gpus);
    free(cat->links);
    free(cat);
}

/* A built-in data file, parsed. */
static gp_status load_builtin(const char *file, json_t **out, gp_error *err)
{
    size_t len;
    const char *text = gpi_embedded(file, &len);
    return text ? load_json(text, len, file, out, err) : gpi_fail(err, GP_ENOTFOUND, "built-in %s missing", file);
}

/* A user's `file` in data_dir (if present) merged into root's `key` entries by id. */
static gp_status merge_user_file(const char *data_dir, const char *file, const char *key, json_t *root, gp_error *err)
{
    json_t *user = NULL;
    gp_status st = load_user_file(data_dir, file, &user, err);
    if (!st && user) {
        char name[GP_ERROR_PATH_MAX];
        snprintf(name, sizeof name, "%s/%s", data_dir, file);
        st = merge_entries(root, user, key, name, err);
    }
    json_decref(user);
    return st;
}

static gp_status parse_link(json_t *e, gpi_link *k, gp_error *err)
{
    const char *id = json_string_value(json_object_get(e, "id"));
    json_t *bw = json_object_get(e, "bw_gbps_per_direction");
    if (!id || !json_is_number(bw) || json_number_value(bw) <= 0) {
        gpi_error_set_field(err, id ? "bw_gbps_per_direction" : "id");
        return gpi_fail(err, GP_EPARSE,
                        "links.json: link %s needs a string 'id' and a positive 'bw_gbps_per_direction'",
                        id ? id : "(no id)");
    }
    gpi_strlcpy(k->id, id, sizeof k->id);
    gpi_strlcpy(k->name, json_string_value(json_object_get(e, "name")), sizeof k->name);
    const char *kind = json_string_value(json_object_get(e, "kind"));
    k->kind = kind && strcmp(kind, "host") == 0        ? GPI_LINK_HOST
              : kind && strcmp(kind, "scale_out") == 0 ? GPI_LINK_SCALE_OUT
                                                       : GPI_LINK_SCALE_UP;
    k->bw_gbps_per_direction = json_number_value(bw);
    k->latency_us = num_or_zero(json_object_get(e, "latency_us"));
    return GP_OK;
}

/* The link rows and their aliases from data/links.json (merged). */
static gp_status build_links(gp_catalog *cat, json_t *lroot, gp_error *err)
{
    json_t *ll = json_object_get(lroot, "links");
    cat->n_links = json_array_size(ll);
    cat->links = calloc(cat->n_links ? cat->n_links : 1, sizeof *cat->links);
    cat->link_aliases = json_array();
    if (!cat->links || !cat->link_aliases)
        return gpi_fail(err, GP_ENOMEM, "out of memory opening the catalog");
    for (size_t i = 0; i < cat->n_links; i++) {
        json_t *e = json_array_get(ll, i);
        gp_status st = parse_link(e, &cat->links[i], err);
        if (st)
            return st;
        json_t *al = json_object_get(e, "aliases");
        json_array_append_new(cat->link_aliases, json_is_array(al) ? json_incref(al) : json_array());
    }
    return GP_OK;
}

/* The model entries (kept as JSON) and the GPU rows, each GPU's links resolved by id. */
static gp_status build_models_gpus(gp_catalog *cat, json_t *mroot, json_t *groot, gp_error *err)
{
    cat->models = json_incref(json_object_get(mroot, "models"));
    json_t *gl = json_object_get(groot, "gpus");
    cat->n_gpus = json_array_size(gl);
    cat->gpus = calloc(cat->n_gpus ? cat->n_gpus : 1, sizeof *cat->gpus);
    cat->gpu_aliases = json_array();
    if (!cat->models || !cat->gpus || !cat->gpu_aliases)
        return gpi_fail(err, GP_ENOMEM, "out of memory opening the catalog");
    gp_status st = GP_OK;
    for (size_t i = 0; !st && i < cat->n_gpus; i++) {
        json_t *e = json_array_get(gl, i);
        st = parse_gpu(e, &cat->gpus[i], "gpus.json", err);
        if (!st)
            st = gpi_gpu_resolve_links(cat, &cat->gpus[i], "gpus.json", err);
        json_t *al = json_object_get(e, "aliases");
        json_array_append_new(cat->gpu_aliases, json_is_array(al) ? json_incref(al) : json_array());
    }
    return st;
}

/* models.json, gpus.json and links.json: built in, then the user's files merged by id. */
static gp_status load_tables(const char *data_dir, json_t **mroot, json_t **groot, json_t **lroot, gp_error *err)
{
    gp_status st = load_builtin("data/models.json", mroot, err);
    if (!st)
        st = load_builtin("data/gpus.json", groot, err);
    if (!st)
        st = load_builtin("data/links.json", lroot, err);
    if (!st && data_dir)
        st = merge_user_file(data_dir, "models.json", "models", *mroot, err);
    if (!st && data_dir)
        st = merge_user_file(data_dir, "gpus.json", "gpus", *groot, err);
    if (!st && data_dir)
        st = merge_user_file(data_dir, "links.json", "links", *lroot, err);
    return st;
}

gp_status gp_catalog_open(const char *data_dir, gp_catalog **out, gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_catalog *cat = calloc(1, sizeof *cat);
    if (!cat)
        return gpi_fail(err, GP_ENOMEM, "out of memory opening the catalog");
    json_t *mroot = NULL, *groot = NULL, *lroot = NULL;
    gp_status st = load_tables(data_dir, &mroot, &groot, &lroot, err);
    if (!st)
        st = build_links(cat, lroot, err);
    if (!st)
        st = build_models_gpus(cat, mroot, groot, err);
    if (!st) {
        static const char *const price_lists[] = {"gpus", "deployments", "countries", "currencies", NULL};
        st = load_decision_file(data_dir, "prices.json", price_lists, &cat->prices, err);
    }
    if (!st) {
        static const char *const rule_lists[] = {"profiles", NULL};
        st = load_decision_file(data_dir, "compliance.json", rule_lists, &cat->compliance, err);
    }
    if (!st)
        st = load_kernels(data_dir, cat, err);
    if (!st) {
        static const char *const engine_lists[] = {"engines", NULL};
        st = load_decision_file(data_dir, "engines.json", engine_lists, &cat->engines, err);
        if (!st)
            st = gpi_engines_check(cat->engines, err);
        if (!st)
            st = gpi_serve_ranges_load(cat->engines, &cat->serve_ranges, err);
    }
    json_decref(mroot);
    json_decref(groot);
    json_decref(lroot);
    if (st) {
        gp_catalog_free(cat);
        return st;
    }
    *out = cat;
    return GP_OK;
}

size_t gp_catalog_model_count(const gp_catalog *cat)
{
    return json_array_size(cat->models);
}

gp_status gp_catalog_model_at(const gp_catalog *cat, size_t i, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    json_t *e = json_array_get(cat->models, i);
    if (!e)
        return gpi_fail(err, GP_ENOTFOUND, "catalog has no model #%zu", i);
    const char *id = json_string_value(json_object_get(e, "id"));
    char name[GP_NAME_MAX + 32];
    snprintf(name, sizeof name, "catalog entry '%s'", id ? id : "?");
    gp_status st = gpi_model_from_hf_json(json_object_get(e, "config"), name, out, err);
    if (st)
        return st;
    out->origin = GP_ORIGIN_CATALOG;
    gpi_strlcpy(out->id, id, sizeof out->id);
    const char *repo = json_string_value(json_object_get(e, "hf_repo"));
    gpi_strlcpy(out->name, repo && *repo ? repo : id, sizeof out->name);
    gpi_strlcpy(out->source, "catalog", sizeof out->source);
    json_t *pp = json_object_get(e, "published_params");
    if (!json_is_integer(pp))
        pp = json_object_get(e, "published_params_rounded");
    out->published_params = json_is_number(pp) ? (int64_t)json_number_value(pp) : 0;
    json_t *pa = json_object_get(e, "published_active_params");
    if (!json_is_integer(pa))
        pa = json_object_get(e, "published_active_params_rounded");
    out->published_active_params = json_is_number(pa) ? (int64_t)json_number_value(pa) : 0;
    return GP_OK;
}

static int entry_matches(json_t *e, const char *name)
{
    if (gpi_strcaseeq(json_string_value(json_object_get(e, "id")), name) ||
        gpi_strcaseeq(json_string_value(json_object_get(e, "hf_repo")), name))
        return 1;
    size_t k;
    json_t *a;
    json_array_foreach(json_object_get(e, "aliases"), k, a) if (gpi_strcaseeq(json_string_value(a), name)) return 1;
    return 0;
}

gp_status gp_catalog_find_model(const gp_catalog *cat, const char *name, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    size_t i;
    json_t *e;
    json_array_foreach(cat->models, i, e) if (entry_matches(e, name)) return gp_catalog_model_at(cat, i, out, err);
    /* "org/Model" not in the catalog: try its last component as an id */
    const char *slash = strrchr(name, '/');
    if (slash && slash[1]) {
        json_array_foreach(cat->models, i, e) if (entry_matches(e, slash + 1)) return gp_catalog_model_at(cat, i, out,
                                                                                                          err);
    }
    gpi_error_set_field(err, "model");
    return gpi_fail(err, GP_ENOTFOUND,
                    "unknown model '%s': not a catalog id, alias or repo (see 'gpuplan model list'), "
                    "nor an existing config.json, model folder or .gguf file",
                    name);
}

size_t gp_catalog_gpu_count(const gp_catalog *cat)
{
    return cat->n_gpus;
}

const gp_gpu *gp_catalog_gpu_at(const gp_catalog *cat, size_t i)
{
    return i < cat->n_gpus ? &cat->gpus[i] : NULL;
}

gp_status gp_catalog_find_gpu(const gp_catalog *cat, const char *name, const gp_gpu **out, gp_error *err)
{
    gp_error_clear(err);
    for (size_t i = 0; i < cat->n_gpus; i++) {
        if (gpi_strcaseeq(cat->gpus[i].id, name)) {
            *out = &cat->gpus[i];
            return GP_OK;
        }
        size_t k;
        json_t *a;
        json_array_foreach(json_array_get(cat->gpu_aliases, i), k, a)
        {
            if (gpi_strcaseeq(json_string_value(a), name)) {
                *out = &cat->gpus[i];
                return GP_OK;
            }
        }
    }
    *out = NULL;
    gpi_error_set_field(err, "gpu");
    return gpi_fail(err, GP_ENOTFOUND, "unknown GPU '%s' (see 'gpuplan gpus' for the catalog)", name);
}

size_t gpi_catalog_link_count(const gp_catalog *cat)
{
    return cat->n_links;
}

const gpi_link *gpi_catalog_link_at(const gp_catalog *cat, size_t i)
{
    return i < cat->n_links ? &cat->links[i] : NULL;
}

gp_status gpi_catalog_find_link(const gp_catalog *cat, const char *name, const gpi_link **out, gp_error *err)
{
    gp_error_clear(err);
    for (size_t i = 0; i < cat->n_links; i++) {
        int hit = gpi_strcaseeq(cat->links[i].id, name);
        size_t k;
        json_t *a;
        json_array_foreach(json_array_get(cat->link_aliases, i), k, a) hit |= gpi_strcaseeq(json_string_value(a), name);
        if (hit) {
            *out = &cat->links[i];
            return GP_OK;
        }
    }
    *out = NULL;
    gpi_error_set_field(err, "link");
    return gpi_fail(
        err, GP_ENOTFOUND,
        "unknown interconnect '%s' (links: nvlink3, nvlink4, nvlink5, pcie4, pcie5, ib-hdr, ib-ndr, roce-400, ...)",
        name);
}
