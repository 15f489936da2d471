/*
 * profile.c: calibration profiles (docs/calibration.md): read one, check every value against
 * its physically possible range, and apply it to the catalog's GPU rows, where the training
 * and serving models read it (gpi_cal_find, gpi_cal_step_model).
 *
 * The ranges: a scale never lifts a rate above what the hardware can reach. Training GEMMs
 * run at 0.80 of the GPU's maximum achievable matmul rate (data/kernels.json "fit"): at most
 * x1.25, the measured maximum itself; attention at 0.3-0.4 of its kernel's benchmark rate:
 * at most x2.5; memory-bound work at 0.9 of HBM bandwidth: at most x1.11 (the datasheet);
 * collectives at the measured bus-bandwidth curves (0.80 of the link without one): at most
 * x1.25. Serving GEMMs at 0.50 of the peak (infer.c): at most x2.0; HBM at 0.85: at most
 * x1.17. The lower bounds (x0.2, x0.05 for links) only keep a broken run from driving a rate
 * to zero; a step overhead is 0..0.1 s.
 */
#include "internal.h"
#include "runs_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const param_names[GP_CALP_COUNT] = {"gemm_scale", "attn_scale", "hbm_scale", "comm_scale",
                                                       "step_overhead_s"};

const char *gp_cal_param_name(gp_cal_param p)
{
    return (unsigned)p < GP_CALP_COUNT ? param_names[p] : NULL;
}

void gpi_cal_param_range(gp_cal_param p, int use, double *min, double *max)
{
    static const double train[GP_CALP_COUNT][2] = {{0.2, 1.25}, {0.2, 2.5}, {0.2, 1.11}, {0.05, 1.25}, {0, 0}};
    static const double serve[GP_CALP_COUNT][2] = {{0.2, 2.0}, {0, 0}, {0.2, 1.17}, {0, 0}, {0.0, 0.1}};
    const double(*t)[2] = use == GP_CAL_TRAIN ? train : use == GP_CAL_SERVE ? serve : NULL;
    *min = t && (unsigned)p < GP_CALP_COUNT ? t[p][0] : 0.0;
    *max = t && (unsigned)p < GP_CALP_COUNT ? t[p][1] : 0.0;
}

gp_dtype gpi_cal_dtype(gp_dtype t)
{
    switch (t) {
    case GP_DTYPE_FP8:
    case GP_DTYPE_INT8:
    case GP_DTYPE_F32: return t;
    case GP_DTYPE_FP4:
    case GP_DTYPE_MXFP4: return GP_DTYPE_FP4;
    default: return GP_DTYPE_BF16;
    }
}

double gpi_cal_scale(double s)
{
    return isfinite(s) && s > 0 ? s : 1.0;
}

const gp_gpu_cal *gpi_cal_find(const gp_gpu *g, int use, gp_dtype dt, int engine)
{
    if (!g || g->n_cal <= 0)
        return NULL;
    gp_dtype k = gpi_cal_dtype(dt);
    for (int i = 0; i < g->n_cal && i < GP_GPU_CAL_MAX; i++) {
        const gp_gpu_cal *c = &g->cal[i];
        /* serving without an engine uses vLLM's constants (gpi_perf_params_defaults): so do we */
        int same_engine = c->engine == engine || (engine == GP_ENGINE_NONE && c->engine == GP_ENGINE_VLLM);
        if (c->use == use && c->dtype == k && (use == GP_CAL_TRAIN || same_engine))
            return c;
    }
    return NULL;
}

void gpi_cal_step_model(const gp_gpu *g, gp_dtype dt, int engine, gpi_step_model *sm)
{
    const gp_gpu_cal *c = gpi_cal_find(g, GP_CAL_SERVE, dt, engine);
    if (!c)
        return;
    sm->cal_gemm = gpi_cal_scale(c->gemm_scale);
    sm->cal_hbm = gpi_cal_scale(c->hbm_scale);
    sm->peak_flops *= gpi_cal_scale(c->gemm_scale);
    sm->attn_peak_flops *= gpi_cal_scale(c->gemm_scale);
    sm->hbm_bytes_per_s *= gpi_cal_scale(c->hbm_scale);
    if (c->step_overhead_s >= 0)
        sm->params.step_overhead_s = c->step_overhead_s;
}

/* ---- reading ---------------------------------------------------------------------------- */

typedef struct pending {
    char gpu[64];
    gp_gpu_cal cal[GP_GPU_CAL_MAX];
    int n_cal;
    double intra, inter;
    int coll_runs;
} pending;

#define MAX_PENDING 64

/* Fail naming the file and field: the format takes name, field, a, b (all strings). */
#define pfail(err, name, field, fmt, a, b)                                                                             \
    (gpi_error_set_path(err, name), gpi_error_set_field(err, field),                                                   \
     gpi_fail(err, GP_EINVAL, fmt, name, field, nz(a), nz(b)))
static const char *nz(const char *s)
{
    return s ? s : "";
}

/* Only the keys listed (space-separated) may appear in o. */
static gp_status check_keys(json_t *o, const char *allowed, const char *name, const char *where, gp_error *err)
{
    const char *k;
    json_t *v;
    json_object_foreach(o, k, v)
    {
        char pat[80];
        snprintf(pat, sizeof pat, " %s ", k);
        char list[512];
        snprintf(list, sizeof list, " %s ", allowed);
        if (!strstr(list, pat))
            return pfail(err, name, k, "%s: unknown key '%s' in %s (expected one of: %s)", where, allowed);
    }
    return GP_OK;
}

static gp_status read_number(json_t *v, double min, double max, const char *name, const char *field, double *out,
                             gp_error *err)
{
    if (json_is_object(v))
        v = json_object_get(v, "value");
    if (!json_is_number(v) || !isfinite(json_number_value(v)))
        return pfail(err, name, field, "%s: '%s' must be a number (or an object with a number 'value')%s%s", NULL,
                     NULL);
    double x = json_number_value(v);
    if (x < min || x > max) {
        char range[96];
        snprintf(range, sizeof range, "%g is outside the physically possible range %g..%g", x, min, max);
        return pfail(err, name, field, "%s: '%s': %s%s", range, NULL);
    }
    *out = x;
    return GP_OK;
}

static int parse_use(const char *s)
{
    return !s ? 0 : !strcmp(s, "train") ? GP_CAL_TRAIN : !strcmp(s, "serve") ? GP_CAL_SERVE : 0;
}

static gp_status read_params(json_t *params, gp_gpu_cal *c, const char *name, gp_error *err)
{
    c->gemm_scale = c->attn_scale = c->hbm_scale = c->comm_scale = 1.0;
    c->step_overhead_s = -1.0;
    double *slot[GP_CALP_COUNT] = {&c->gemm_scale, &c->attn_scale, &c->hbm_scale, &c->comm_scale, &c->step_overhead_s};
    if (!json_is_object(params))
        return pfail(err, name, "params", "%s: '%s' must be an object of fitted parameters%s%s", NULL, NULL);
    const char *k;
    json_t *v;
    json_object_foreach(params, k, v)
    {
        int p = -1;
        for (int i = 0; i < GP_CALP_COUNT; i++)
            if (!strcmp(k, param_names[i]))
                p = i;
        double lo, hi;
        if (p >= 0)
            gpi_cal_param_range((gp_cal_param)p, c->use, &lo, &hi);
        if (p < 0 || (lo == 0 && hi == 0))
            return pfail(err, name, k, "%s: unknown parameter '%s' for this use (%s)%s",
                         c->use == GP_CAL_TRAIN ? "training: gemm_scale, attn_scale, hbm_scale, comm_scale"
                                                : "serving: gemm_scale, hbm_scale, step_overhead_s",
                         NULL);
        gp_status st = read_number(v, lo, hi, name, k, slot[p], err);
        if (st)
            return st;
    }
    return GP_OK;
}

static gp_status read_entry(json_t *e, gp_gpu_cal *c, const char *name, gp_error *err)
{
    memset(c, 0, sizeof *c);
    gp_status st = check_keys(e,
                              "use dtype engine runs params error_before error_after loo_error_before "
                              "loo_error_after residuals note",
                              name, "a profile entry", err);
    if (st)
        return st;
    c->use = parse_use(json_string_value(json_object_get(e, "use")));
    if (!c->use)
        return pfail(err, name, "use", "%s: '%s' must be \"train\" or \"serve\"%s%s", NULL, NULL);
    gp_dtype dt = gpi_dtype_parse(json_string_value(json_object_get(e, "dtype")));
    if (dt == GP_DTYPE_UNKNOWN)
        return pfail(err, name, "dtype", "%s: '%s' must name a precision (bf16, fp8, fp4, ...)%s%s", NULL, NULL);
    c->dtype = gpi_cal_dtype(dt);
    const char *eng = json_string_value(json_object_get(e, "engine"));
    gp_engine en = eng ? gpi_engine_parse(eng) : GP_ENGINE_NONE;
    if (en >= GP_ENGINE_COUNT)
        return pfail(err, name, "engine", "%s: '%s' names no engine (vllm, sglang, tgi, trtllm, llamacpp, none)%s%s",
                     NULL, NULL);
    c->engine = c->use == GP_CAL_SERVE ? (int)en : 0;
    json_t *runs = json_object_get(e, "runs");
    if (!json_is_integer(runs) || json_integer_value(runs) < 1 || json_integer_value(runs) > GPI_RUNS_MAX_RUNS)
        return pfail(err, name, "runs", "%s: '%s' must be the number of runs fitted (1..100000)%s%s", NULL, NULL);
    c->runs = (int)json_integer_value(runs);
    return read_params(json_object_get(e, "params"), c, name, err);
}

static gp_status read_collective(json_t *co, pending *pd, const char *name, gp_error *err)
{
    gp_status st = check_keys(co, "intra_scale inter_scale runs residuals note", name, "'collective'", err);
    if (st)
        return st;
    json_t *a = json_object_get(co, "intra_scale"), *b = json_object_get(co, "inter_scale");
    if (a && (st = read_number(a, 0.05, 1.25, name, "intra_scale", &pd->intra, err)))
        return st;
    if (b && (st = read_number(b, 0.05, 1.25, name, "inter_scale", &pd->inter, err)))
        return st;
    json_t *runs = json_object_get(co, "runs");
    pd->coll_runs = json_is_integer(runs) && json_integer_value(runs) > 0 ? (int)json_integer_value(runs) : 1;
    return GP_OK;
}

static gp_status read_gpu(gp_catalog *cat, json_t *g, pending *pd, const char *name, gp_error *err)
{
    memset(pd, 0, sizeof *pd);
    gp_status st = check_keys(g, "gpu collective entries note", name, "a 'gpus' item", err);
    if (st)
        return st;
    const char *id = json_string_value(json_object_get(g, "gpu"));
    if (!id || !gpi_catalog_gpu_mut(cat, id))
        return pfail(err, name, "gpu", "%s: '%s' %s names no GPU of the catalog (see 'gpuplan gpus')%s",
                     id ? id : "(missing)", NULL);
    gpi_strlcpy(pd->gpu, gpi_catalog_gpu_mut(cat, id)->id, sizeof pd->gpu);
    json_t *co = json_object_get(g, "collective");
    if (co && !json_is_object(co))
        return pfail(err, name, "collective", "%s: '%s' must be an object%s%s", NULL, NULL);
    if (co && (st = read_collective(co, pd, name, err)))
        return st;
    json_t *entries = json_object_get(g, "entries");
    if (entries && !json_is_array(entries))
        return pfail(err, name, "entries", "%s: '%s' must be an array%s%s", NULL, NULL);
    if (json_array_size(entries) > GP_GPU_CAL_MAX)
        return pfail(err, name, "entries", "%s: '%s': more than 8 entries for one GPU%s%s", NULL, NULL);
    size_t i;
    json_t *e;
    json_array_foreach(entries, i, e)
    {
        if (!json_is_object(e))
            return pfail(err, name, "entries", "%s: every item of '%s' must be an object%s%s", NULL, NULL);
        if ((st = read_entry(e, &pd->cal[pd->n_cal], name, err)))
            return st;
        pd->n_cal++;
    }
    return GP_OK;
}

static gp_status read_profile(gp_catalog *cat, json_t *root, pending *pd, int *n, const char *name, gp_error *err)
{
    if (!json_is_object(root))
        return pfail(err, name, "gpuplan_profile", "%s: a profile is a JSON object with '%s' and 'gpus'%s%s", NULL,
                     NULL);
    gp_status st = check_keys(root, "gpuplan_profile description created_by sources runs warnings gpus calibration",
                              name, "the profile", err);
    if (st)
        return st;
    json_t *ver = json_object_get(root, "gpuplan_profile");
    if (!json_is_integer(ver) || json_integer_value(ver) != GP_PROFILE_VERSION)
        return pfail(err, name, "gpuplan_profile", "%s: '%s' must be 1 (the profile format version)%s%s", NULL, NULL);
    json_t *gpus = json_object_get(root, "gpus");
    if (!json_is_array(gpus) || json_array_size(gpus) > MAX_PENDING)
        return pfail(err, name, "gpus", "%s: '%s' must be an array of at most 64 GPU types%s%s", NULL, NULL);
    size_t i;
    json_t *g;
    json_array_foreach(gpus, i, g)
    {
        if (!json_is_object(g))
            return pfail(err, name, "gpus", "%s: every item of '%s' must be an object%s%s", NULL, NULL);
        if ((st = read_gpu(cat, g, &pd[i], name, err)))
            return st;
    }
    *n = (int)json_array_size(gpus);
    return GP_OK;
}

static void merge_entry(gp_gpu *g, const gp_gpu_cal *c)
{
    for (int i = 0; i < g->n_cal; i++)
        if (g->cal[i].use == c->use && g->cal[i].dtype == c->dtype && g->cal[i].engine == c->engine) {
            g->cal[i] = *c;
            return;
        }
    if (g->n_cal < GP_GPU_CAL_MAX)
        g->cal[g->n_cal++] = *c;
}

static const char *use_name(int use)
{
    return use == GP_CAL_TRAIN ? "train" : "serve";
}

/* "calibrated on 6 runs of H100-SXM-80GB (train bf16, serve fp8 vllm) from prof.json" */
static void make_note(const pending *pd, int n, const char *name, char *buf, size_t size)
{
    int runs = 0;
    char what[384] = "";
    for (int i = 0; i < n; i++) {
        size_t len = strlen(what);
        snprintf(what + len, sizeof what - len, "%s%s (", len ? "; " : "", pd[i].gpu);
        for (int j = 0; j < pd[i].n_cal; j++) {
            const gp_gpu_cal *c = &pd[i].cal[j];
            runs += c->runs;
            len = strlen(what);
            snprintf(what + len, sizeof what - len, "%s%s %s%s%s", j ? ", " : "", use_name(c->use),
                     gp_dtype_name(c->dtype), c->use == GP_CAL_SERVE ? " " : "",
                     c->use == GP_CAL_SERVE ? gp_engine_name((gp_engine)c->engine) : "");
        }
        runs += pd[i].coll_runs;
        len = strlen(what);
        snprintf(what + len, sizeof what - len, "%s%s)", pd[i].n_cal && pd[i].coll_runs ? ", " : "",
                 pd[i].coll_runs ? "collectives" : "");
    }
    snprintf(buf, size, "calibrated on %d run%s of %s from %s", runs, runs == 1 ? "" : "s", what, name);
}

gp_status gpi_catalog_apply_profile_text(gp_catalog *cat, const char *name, const char *text, size_t len, gp_error *err)
{
    if (!name)
        name = "profile";
    if (!cat || !text)
        return gpi_fail(err, GP_EINVAL, "apply profile: catalog and text are required");
    if (len > GPI_PROFILE_MAX_BYTES) {
        gpi_error_set_path(err, name);
        return gpi_fail(err, GP_ELIMIT, "%s: a profile is at most 4 MiB", name);
    }
    json_error_t je;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!root) {
        gpi_error_set_path(err, name);
        if (err) {
            err->line = je.line;
            err->column = je.column;
            err->offset = je.position;
        }
        return gpi_fail(err, GP_EPARSE, "%s:%d:%d: %s", name, je.line, je.column, je.text);
    }
    pending *pd = calloc(MAX_PENDING, sizeof *pd);
    if (!pd) {
        json_decref(root);
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    }
    int n = 0;
    gp_status st = read_profile(cat, root, pd, &n, name, err);
    json_decref(root);
    if (st == GP_OK) {
        for (int i = 0; i < n; i++) {
            gp_gpu *g = gpi_catalog_gpu_mut(cat, pd[i].gpu);
            for (int j = 0; j < pd[i].n_cal; j++)
                merge_entry(g, &pd[i].cal[j]);
            if (pd[i].intra > 0)
                g->cal_intra_scale = pd[i].intra;
            if (pd[i].inter > 0)
                g->cal_inter_scale = pd[i].inter;
            g->cal_collective_runs += pd[i].coll_runs;
        }
        char note[512];
        const char *base = strrchr(name, '/');
        make_note(pd, n, base ? base + 1 : name, note, sizeof note);
        gpi_catalog_set_profile_note(cat, note);
    }
    free(pd);
    return st;
}

gp_status gp_catalog_apply_profile(gp_catalog *cat, const char *path, gp_error *err)
{
    uint8_t *buf;
    size_t len;
    uint64_t size;
    gp_status st = gpi_read_file_prefix(path, GPI_PROFILE_MAX_BYTES + 1, &buf, &len, &size, err);
    if (st)
        return st;
    st = gpi_catalog_apply_profile_text(cat, path, (const char *)buf, len, err);
    free(buf);
    return st;
}
