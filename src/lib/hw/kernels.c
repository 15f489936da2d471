/*
 * kernels.c: achievable hardware rates (data/kernels.json) precomputed per catalog GPU and
 * link, and the arithmetic accessors the step-time models call (kernels.h).
 *
 * Load-time work: each GPU's GEMM rate per format (its published MAMF, or its peak times the
 * efficiency of the relative "gemm_relatives" names), its HBM achievable bandwidth, its
 * attention curves (its own published points, else the H100's curves scaled by the ratio of
 * the two GPUs' bf16 MAMF), and each link's bus-bandwidth fractions on a grid of powers of two.
 * Hot-path work: interpolation on those grids.
 */
#include "internal.h"
#include "hw/kernels.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define REF_GPU "H100-SXM-80GB" /* the GPU whose attention curves are published in full */

struct gpi_kernels {
    gpi_kernel_fit fit;
    gpi_gpu_rates *gpus;
    size_t n_gpus;
    gpi_link_curve *links;
    size_t n_links;
    gpi_link_curve scale_out;
};

/* ---- small helpers -------------------------------------------------------------------- */

static double num(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}
static const char *str(json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}
static int streq(const char *a, const char *b)
{
    return a && b && gpi_strcaseeq(a, b);
}

/* Linear interpolation of the points [[x, y], ...] (x ascending after log2) at log2 x = lx,
 * clamped at both ends. Returns 0 when there are no points. */
static double interp_log2(json_t *pts, double lx)
{
    size_t n = json_array_size(pts);
    double px = 0, py = 0;
    for (size_t i = 0; i < n; i++) {
        json_t *p = json_array_get(pts, i);
        double x = log2(json_number_value(json_array_get(p, 0))), y = json_number_value(json_array_get(p, 1));
        if (i == 0 && lx <= x)
            return y;
        if (i > 0 && lx <= x)
            return x > px ? py + (y - py) * (lx - px) / (x - px) : y;
        px = x, py = y;
    }
    return py;
}

static double max_y(json_t *pts)
{
    double m = 0;
    size_t i;
    json_t *p;
    json_array_foreach(pts, i, p)
    {
        double y = json_number_value(json_array_get(p, 1));
        m = y > m ? y : m;
    }
    return m;
}

static json_t *find_by_id(json_t *arr, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) if (streq(str(e, "id"), id)) return e;
    return NULL;
}

static gp_status bad(gp_error *err, const char *field, const char *msg, const char *what)
{
    gpi_error_set_path(err, "kernels.json");
    gpi_error_set_field(err, field);
    return gpi_fail(err, GP_EPARSE, "kernels.json: %s%s%s", msg, what ? ": " : "", what ? what : "");
}

/* ---- fit ------------------------------------------------------------------------------ */

/* The likely ranges of "fit": the dense pool (range_p10/p90, required), the MoE pool
 * (range_moe_p10/p90, else the dense one's) and range_by_model_type (optional):
 * {model_type: {p10, p90, cases}}. */
static gp_status load_ranges(json_t *o, gpi_kernel_fit *f, gp_error *err)
{
    gpi_range_table *t = &f->ranges;
    memset(t, 0, sizeof *t);
    double p10 = num(o, "range_p10"), p90 = num(o, "range_p90");
    gp_status st = gpi_range_set_pool(t, 0, p10, p90, "kernels.json", "fit.range_p10", err);
    if (!st && json_is_number(json_object_get(o, "range_moe_p10")))
        p10 = num(o, "range_moe_p10");
    if (!st && json_is_number(json_object_get(o, "range_moe_p90")))
        p90 = num(o, "range_moe_p90");
    if (!st)
        st = gpi_range_set_pool(t, 1, p10, p90, "kernels.json", "fit.range_moe_p10", err);
    json_t *map = json_object_get(o, "range_by_model_type"), *v;
    if (st || !map)
        return st;
    if (!json_is_object(map))
        return bad(err, "fit.range_by_model_type", "'range_by_model_type' must be an object", NULL);
    const char *key;
    json_object_foreach(map, key, v)
    {
        json_t *c = json_object_get(v, "cases"), *lo = json_object_get(v, "p10"), *hi = json_object_get(v, "p90");
        st = gpi_range_add_type(
            t, key, json_is_number(lo) ? json_number_value(lo) : NAN, json_is_number(hi) ? json_number_value(hi) : NAN,
            json_is_integer(c) ? json_integer_value(c) : 0, "kernels.json", "fit.range_by_model_type", err);
        if (st)
            return st;
    }
    return GP_OK;
}

static gp_status load_fit(json_t *root, gpi_kernel_fit *f, gp_error *err)
{
    json_t *o = json_object_get(root, "fit");
    f->gemm_half_dim = num(o, "gemm_half_dim");
    f->gemm_train_fraction = num(o, "gemm_train_fraction");
    f->attn_train_fraction = num(o, "attn_train_fraction");
    f->attn_train_fraction_cudnn = json_is_number(json_object_get(o, "attn_train_fraction_cudnn"))
                                       ? num(o, "attn_train_fraction_cudnn")
                                       : f->attn_train_fraction;
    f->elementwise_h = num(o, "elementwise_h");
    f->elementwise_f = num(o, "elementwise_f");
    f->layer_overhead_s = num(o, "layer_overhead_us") * 1e-6;
    f->moe_imbalance = json_is_number(json_object_get(o, "moe_imbalance")) ? num(o, "moe_imbalance") : 1.0;
    f->grouped_gemm_eff =
        json_is_number(json_object_get(o, "grouped_gemm_efficiency")) ? num(o, "grouped_gemm_efficiency") : 1.0;
    if (f->gemm_half_dim < 0 || f->gemm_train_fraction <= 0 || f->gemm_train_fraction > 2 ||
        f->attn_train_fraction <= 0 || f->attn_train_fraction > 2 || f->attn_train_fraction_cudnn <= 0 ||
        f->attn_train_fraction_cudnn > 2 || f->elementwise_h < 0 || f->elementwise_f < 0 || f->layer_overhead_s < 0 ||
        f->moe_imbalance < 1 || !(f->grouped_gemm_eff > 0 && f->grouped_gemm_eff <= 1))
        return bad(err, "fit",
                   "'fit' needs gemm_half_dim >= 0, gemm_train_fraction and attn_train_fraction in (0, 2], "
                   "elementwise_h/f, layer_overhead_us >= 0, moe_imbalance >= 1, grouped_gemm_efficiency in (0, 1]",
                   NULL);
    return load_ranges(o, f, err);
}

/* ---- GEMM ----------------------------------------------------------------------------- */

static const char *const kdt_names[GPI_K_COUNT] = {"bf16",  "fp8",  "fp8_block", "mxfp8", "nvfp4",
                                                   "mxfp4", "int8", "w8",        "w4"};

static double gemm_entry(json_t *gemm, const char *gpu, const char *dtype)
{
    size_t i;
    json_t *e;
    json_array_foreach(gemm, i,
                       e) if (streq(str(e, "gpu"), gpu) && streq(str(e, "dtype"), dtype)) return num(e, "tflops") *
        1e12;
    return 0.0;
}

static double peak16(const gp_gpu *g)
{
    return (g->tflops[GP_DTYPE_BF16] > 0 ? g->tflops[GP_DTYPE_BF16] : g->tflops[GP_DTYPE_F16]) * 1e12;
}

/* The catalog GPU a GPU without figures borrows its efficiencies from. */
static const gp_gpu *relative_of(json_t *root, const gp_gpu *g, const gp_gpu *gpus, size_t n)
{
    json_t *rel = json_object_get(root, "gemm_relatives");
    const char *r = str(rel, g->id);
    char key[48];
    if (!r) {
        snprintf(key, sizeof key, "*%s", g->vendor);
        r = str(rel, key);
    }
    for (size_t i = 0; r && i < n; i++)
        if (streq(gpus[i].id, r))
            return &gpus[i];
    return NULL;
}

/* bf16 and fp8 rates of `g` (measured, else its relative's efficiency x its own peak). */
static void gemm_base(json_t *root, const gp_gpu *g, const gp_gpu *gpus, size_t n, gpi_gpu_rates *r)
{
    json_t *gemm = json_object_get(root, "gemm");
    const gp_gpu *rel = relative_of(root, g, gpus, n);
    double p16 = peak16(g), p8 = g->tflops[GP_DTYPE_FP8] * 1e12;
    double own16 = gemm_entry(gemm, g->id, "bf16"), own8 = gemm_entry(gemm, g->id, "fp8");
    double rel16 = rel ? gemm_entry(gemm, rel->id, "bf16") / peak16(rel) : 0.0;
    double rel8 = rel && rel->tflops[GP_DTYPE_FP8] > 0
                      ? gemm_entry(gemm, rel->id, "fp8") / (rel->tflops[GP_DTYPE_FP8] * 1e12)
                      : 0.0;
    /* NVIDIA's H100 ratio of fp8 to bf16 efficiency, for GPUs whose relative has no fp8 row */
    const gp_gpu *ref = NULL;
    for (size_t i = 0; i < n; i++)
        if (streq(gpus[i].id, REF_GPU))
            ref = &gpus[i];
    double ratio8 = ref && ref->tflops[GP_DTYPE_FP8] > 0 && gemm_entry(gemm, REF_GPU, "bf16") > 0
                        ? (gemm_entry(gemm, REF_GPU, "fp8") / (ref->tflops[GP_DTYPE_FP8] * 1e12)) /
                              (gemm_entry(gemm, REF_GPU, "bf16") / peak16(ref))
                        : 1.0;
    r->gemm_measured[GPI_K_BF16] = own16 > 0;
    r->gemm[GPI_K_BF16] = own16 > 0 ? own16 : p16 * (rel16 > 0 ? rel16 : 0.8);
    double eff16 = p16 > 0 ? r->gemm[GPI_K_BF16] / p16 : 0.8;
    r->gemm_measured[GPI_K_FP8] = own8 > 0;
    if (own8 > 0)
        r->gemm[GPI_K_FP8] = own8;
    else if (p8 > 0)
        r->gemm[GPI_K_FP8] = p8 * (rel8 > 0 ? rel8 : eff16 * ratio8);
    else
        r->gemm[GPI_K_FP8] = r->gemm[GPI_K_BF16]; /* no fp8 tensor cores: runs in 16 bits */
}

static void gemm_rates(json_t *root, const gp_gpu *g, const gp_gpu *gpus, size_t n, gpi_gpu_rates *r)
{
    json_t *gemm = json_object_get(root, "gemm");
    gemm_base(root, g, gpus, n, r);
    double p8 = g->tflops[GP_DTYPE_FP8] * 1e12, p4 = g->tflops[GP_DTYPE_FP4] * 1e12,
           pi8 = g->tflops[GP_DTYPE_INT8] * 1e12;
    double eff8 = p8 > 0 ? r->gemm[GPI_K_FP8] / p8 : 0.0, eff16 = peak16(g) > 0 ? r->gemm[GPI_K_BF16] / peak16(g) : 0.8;
    double block = gemm_entry(gemm, g->id, "fp8_block");
    const gp_gpu *rel = relative_of(root, g, gpus, n);
    /* block scaling borrows the Hopper DeepGEMM gain only through an explicit relative (not
     * the vendor default): on Blackwell it is native, the tensor-scaled rate */
    int explicit_rel = str(json_object_get(root, "gemm_relatives"), g->id) != NULL;
    if (block <= 0 && p8 > 0 && rel && explicit_rel && gemm_entry(gemm, rel->id, "fp8_block") > 0 &&
        gemm_entry(gemm, rel->id, "fp8") > 0)
        block = r->gemm[GPI_K_FP8] * gemm_entry(gemm, rel->id, "fp8_block") / gemm_entry(gemm, rel->id, "fp8");
    r->gemm_measured[GPI_K_FP8_BLOCK] = gemm_entry(gemm, g->id, "fp8_block") > 0;
    r->gemm[GPI_K_FP8_BLOCK] = block > 0 ? block : r->gemm[GPI_K_FP8];
    r->gemm[GPI_K_MXFP8] = r->gemm[GPI_K_FP8];
    r->gemm[GPI_K_NVFP4] = p4 > 0 && eff8 > 0 ? p4 * eff8 : r->gemm[GPI_K_FP8];
    r->gemm[GPI_K_MXFP4] = r->gemm[GPI_K_NVFP4];
    r->gemm[GPI_K_INT8] = pi8 > 0 ? pi8 * eff16 : r->gemm[GPI_K_BF16];
    r->gemm[GPI_K_W8] = r->gemm[GPI_K_BF16];
    r->gemm[GPI_K_W4] = r->gemm[GPI_K_BF16];
    for (int k = 0; k < GPI_K_COUNT; k++) {
        double own = gemm_entry(gemm, g->id, kdt_names[k]);
        if (own > 0 && k != GPI_K_BF16 && k != GPI_K_FP8) {
            r->gemm[k] = own;
            r->gemm_measured[k] = 1;
        }
    }
}

/* ---- HBM ------------------------------------------------------------------------------ */

static void hbm_rate(json_t *root, const gp_gpu *g, gpi_gpu_rates *r)
{
    double frac = 0.0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "hbm"), i, e)
    {
        if (streq(str(e, "gpu"), g->id) || (!frac && streq(str(e, "vendor"), g->vendor)))
            frac = num(e, "fraction");
    }
    r->hbm_peak = g->hbm_bandwidth_gbps * 1e9;
    r->hbm = r->hbm_peak * (frac > 0 ? frac : 0.85);
}

/* ---- attention ------------------------------------------------------------------------ */

static const char *const attn_names[GPI_ATTN_KERNEL_COUNT] = {"fa2", "fa3", "cudnn"};

static json_t *attn_entry(json_t *attn, const char *gpu, int kernel, int pass, int causal, int head_dim)
{
    size_t i;
    json_t *e;
    json_array_foreach(attn, i, e)
    {
        if (streq(str(e, "gpu"), gpu) && streq(str(e, "kernel"), attn_names[kernel]) &&
            streq(str(e, "pass"), pass ? "bwd" : "fwd") && json_is_true(json_object_get(e, "causal")) == causal &&
            (int)num(e, "head_dim") == head_dim)
            return e;
    }
    return NULL;
}

static double seq_point(int i)
{
    return log2(512.0) + i;
}

/* The reference GPU's curve for (kernel, pass, causal), head dim 128; missing combinations
 * follow the rule of data/kernels.json "attention_derivation". */
static void ref_curves(json_t *attn, double ref[GPI_ATTN_KERNEL_COUNT][2][2][GPI_ATTN_SEQ_POINTS])
{
    for (int k = 0; k < GPI_ATTN_KERNEL_COUNT; k++)
        for (int p = 0; p < 2; p++)
            for (int c = 0; c < 2; c++) {
                json_t *e = attn_entry(attn, REF_GPU, k, p, c, 128);
                for (int i = 0; i < GPI_ATTN_SEQ_POINTS; i++)
                    ref[k][p][c][i] =
                        e ? interp_log2(json_object_get(e, "points_seq_tflops"), seq_point(i)) * 1e12 : 0.0;
            }
    for (int k = 0; k < GPI_ATTN_KERNEL_COUNT; k++)
        for (int i = 0; i < GPI_ATTN_SEQ_POINTS; i++) {
            double f = ref[k][0][0][i], fc = ref[k][0][1][i];
            if (ref[k][1][1][i] <= 0 && f > 0)
                ref[k][1][1][i] = ref[k][1][0][i] * fc / f; /* causal backward: the forward's causal share */
        }
}

static gpi_attn_kernel default_kernel(json_t *root, const gp_gpu *g)
{
    json_t *m = json_object_get(root, "attention_kernels");
    const char *k = str(m, g->id);
    if (!k)
        k = str(m, "*");
    for (int i = 0; k && i < GPI_ATTN_KERNEL_COUNT; i++)
        if (streq(k, attn_names[i]))
            return (gpi_attn_kernel)i;
    return GPI_ATTN_FA2;
}

/* A GPU's own forward or backward curve: its points when it has three or more; with fewer,
 * the reference curve scaled to pass through them (the mean ratio at its points). */
static void own_curve(json_t *e, const double ref[GPI_ATTN_SEQ_POINTS], double fallback_scale,
                      double out[GPI_ATTN_SEQ_POINTS])
{
    json_t *pts = json_object_get(e, "points_seq_tflops");
    size_t n = json_array_size(pts);
    double scale = fallback_scale;
    if (e && n > 0 && n < 3) {
        double sum = 0;
        int used = 0;
        for (size_t j = 0; j < n; j++) {
            json_t *p = json_array_get(pts, j);
            double lx = log2(json_number_value(json_array_get(p, 0))) - log2(512.0);
            int i = lx <= 0 ? 0 : lx >= GPI_ATTN_SEQ_POINTS - 1 ? GPI_ATTN_SEQ_POINTS - 1 : (int)(lx + 0.5);
            if (ref[i] > 0) {
                sum += json_number_value(json_array_get(p, 1)) * 1e12 / ref[i];
                used++;
            }
        }
        scale = used ? sum / used : fallback_scale;
    }
    for (int i = 0; i < GPI_ATTN_SEQ_POINTS; i++)
        out[i] = e && n >= 3 ? interp_log2(pts, seq_point(i)) * 1e12 : ref[i] * scale;
}

static void attn_rates(json_t *root, const gp_gpu *g, double ref_mamf, gpi_gpu_rates *r)
{
    json_t *attn = json_object_get(root, "attention");
    double ref[GPI_ATTN_KERNEL_COUNT][2][2][GPI_ATTN_SEQ_POINTS];
    ref_curves(attn, ref);
    double scale = ref_mamf > 0 ? r->gemm[GPI_K_BF16] / ref_mamf : 1.0;
    for (int k = 0; k < GPI_ATTN_KERNEL_COUNT; k++) {
        json_t *own_f = attn_entry(attn, g->id, k, 0, 0, 128), *own_b = attn_entry(attn, g->id, k, 1, 0, 128);
        double f[GPI_ATTN_SEQ_POINTS], b[GPI_ATTN_SEQ_POINTS];
        own_curve(own_f, ref[k][0][0], scale, f);
        if (own_b)
            own_curve(own_b, ref[k][1][0], scale, b);
        for (int i = 0; i < GPI_ATTN_SEQ_POINTS; i++) {
            double rf = ref[k][0][0][i], rb = ref[k][1][0][i];
            if (!own_b)
                b[i] = rf > 0 ? f[i] * rb / rf : 0.0; /* the reference's backward/forward ratio */
            r->attn[k][0][0][i] = f[i];
            r->attn[k][1][0][i] = b[i];
            r->attn[k][0][1][i] = rf > 0 ? f[i] * ref[k][0][1][i] / rf : f[i];
            r->attn[k][1][1][i] = rb > 0 ? b[i] * ref[k][1][1][i] / rb : b[i];
        }
    }
    r->attn_default = default_kernel(root, g);
}

/* GPUs the "attention_relatives" map names take their relative's curves, scaled by the
 * ratio of the two bf16 MAMFs (after every GPU's own curves are built). */
static void attn_relatives(json_t *root, const gp_gpu *gpus, size_t n, gpi_gpu_rates *rates)
{
    json_t *rel = json_object_get(root, "attention_relatives");
    for (size_t i = 0; i < n; i++) {
        const char *r = str(rel, gpus[i].id);
        for (size_t j = 0; r && j < n; j++) {
            if (j == i || !streq(gpus[j].id, r) || rates[j].gemm[GPI_K_BF16] <= 0)
                continue;
            double scale = rates[i].gemm[GPI_K_BF16] / rates[j].gemm[GPI_K_BF16];
            for (int k = 0; k < GPI_ATTN_KERNEL_COUNT; k++)
                for (int p = 0; p < 2; p++)
                    for (int c = 0; c < 2; c++)
                        for (int q = 0; q < GPI_ATTN_SEQ_POINTS; q++)
                            rates[i].attn[k][p][c][q] = rates[j].attn[k][p][c][q] * scale;
        }
    }
}

/* "attention_adjust": a published speed-up of one pass on named GPUs (Blackwell Ultra's
 * doubled exponential units: forward x 1.35). */
static void attn_adjust(json_t *root, const gp_gpu *gpus, size_t n, gpi_gpu_rates *rates)
{
    size_t a;
    json_t *e;
    json_array_foreach(json_object_get(root, "attention_adjust"), a, e)
    {
        double f = num(e, "factor");
        int pass = streq(str(e, "pass"), "bwd") ? 1 : 0;
        size_t j;
        json_t *gid;
        json_array_foreach(json_object_get(e, "gpus"), j, gid)
        {
            for (size_t i = 0; f > 0 && i < n; i++) {
                if (!streq(gpus[i].id, json_string_value(gid)))
                    continue;
                for (int k = 0; k < GPI_ATTN_KERNEL_COUNT; k++)
                    for (int c = 0; c < 2; c++)
                        for (int q = 0; q < GPI_ATTN_SEQ_POINTS; q++)
                            rates[i].attn[k][pass][c][q] *= f;
            }
        }
    }
}

/* ---- collectives ---------------------------------------------------------------------- */

/* Fractions of the link bandwidth on the size grid for one curve entry. */
static void curve_fracs(json_t *colls, json_t *e, double out[GPI_COLL_POINTS])
{
    json_t *pts = json_object_get(e, "points_bytes_busbw_gbps");
    double spec = num(e, "link_gbps_per_direction");
    json_t *shape_e = find_by_id(colls, str(e, "shape_from"));
    json_t *shape = shape_e ? json_object_get(shape_e, "points_bytes_busbw_gbps") : pts;
    double peak = max_y(pts), speak = max_y(shape);
    for (int i = 0; i < GPI_COLL_POINTS; i++) {
        double s = speak > 0 ? interp_log2(shape, GPI_COLL_LOG2_MIN + i) / speak : 0.0;
        out[i] = spec > 0 ? peak / spec * s : 0.0;
    }
}

static json_t *curve_for(json_t *colls, const char *link, const char *op, const char *scope)
{
    size_t i;
    json_t *e;
    json_array_foreach(colls, i, e) if (streq(str(e, "link"), link) && streq(str(e, "op"), op) &&
                                        streq(str(e, "scope"), scope)) return e;
    return NULL;
}

/* One link's curve: the all-reduce curve the "link_curves" map names; all-gather and
 * reduce-scatter at the link's ring asymptote where one is published (no in-switch
 * reduction for them); all-to-all at DeepEP's asymptote where published, else the ring's. */
static void link_curve(json_t *root, const char *curve_id, double scale, gpi_link_curve *lc)
{
    json_t *colls = json_object_get(root, "collectives");
    json_t *base = find_by_id(colls, curve_id);
    memset(lc, 0, sizeof *lc);
    if (!base)
        return;
    double ar[GPI_COLL_POINTS];
    curve_fracs(colls, base, ar);
    const char *link = str(base, "link"), *scope = str(base, "scope");
    double spec = num(base, "link_gbps_per_direction"), peak = max_y(json_object_get(base, "points_bytes_busbw_gbps"));
    json_t *ring = curve_for(colls, link, "ring", scope), *a2a = curve_for(colls, link, "all_to_all", scope);
    double ring_asym = ring && spec > 0 ? max_y(json_object_get(ring, "points_bytes_busbw_gbps")) / spec : 0.0;
    double a2a_asym = a2a && num(a2a, "link_gbps_per_direction") > 0
                          ? max_y(json_object_get(a2a, "points_bytes_busbw_gbps")) / num(a2a, "link_gbps_per_direction")
                          : 0.0;
    double ar_asym = spec > 0 ? peak / spec : 0.0;
    json_t *gpus = json_object_get(base, "gpus");
    lc->ranks = json_is_integer(gpus) && json_integer_value(gpus) > 0 && json_integer_value(gpus) < 1 << 20
                    ? (int)json_integer_value(gpus)
                    : 0;
    for (int i = 0; i < GPI_COLL_POINTS; i++) {
        double shape = ar_asym > 0 ? ar[i] / ar_asym : 0.0;
        double rg = ring_asym > 0 ? ring_asym * shape : ar[i];
        lc->frac[GPI_COLL_ALL_REDUCE][i] = ar[i] * scale;
        lc->frac[GPI_COLL_ALL_GATHER][i] = rg * scale;
        lc->frac[GPI_COLL_REDUCE_SCATTER][i] = rg * scale;
        lc->frac[GPI_COLL_ALL_TO_ALL][i] = (a2a_asym > 0 ? a2a_asym * shape : rg) * scale;
    }
}

static void link_curves(json_t *root, const gpi_link *links, size_t n, gpi_kernels *k)
{
    json_t *map = json_object_get(root, "link_curves");
    const char *so = str(map, "*scale_out");
    for (size_t i = 0; i < n; i++) {
        const char *id = str(map, links[i].id);
        double scale = strncmp(links[i].id, "ethernet", 8) == 0 ? 0.5 : 1.0; /* TCP, no RDMA */
        if (!id && links[i].kind == GPI_LINK_SCALE_OUT)
            id = so;
        link_curve(root, id ? id : "", scale, &k->links[i]);
    }
    link_curve(root, so ? so : "", 1.0, &k->scale_out);
}

/* ---- load ----------------------------------------------------------------------------- */

static gp_status check_entries(json_t *root, gp_error *err)
{
    static const char *const lists[] = {"gemm", "attention", "hbm", "collectives"};
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
        json_t *a = json_object_get(root, lists[l]);
        if (!json_is_array(a))
            return bad(err, lists[l], "expected an array", lists[l]);
        size_t i;
        json_t *e;
        json_array_foreach(a, i, e)
        {
            if (!json_is_object(e) || !str(e, "id") ||
                (!json_object_get(e, "source") && !json_object_get(e, "derived")))
                return bad(err, lists[l], "every entry needs an 'id' and a 'source' or 'derived' rule", lists[l]);
        }
    }
    return GP_OK;
}

gp_status gpi_kernels_load(json_t *root, const gp_gpu *gpus, size_t n_gpus, const gpi_link *links, size_t n_links,
                           gpi_kernels **out, gp_error *err)
{
    *out = NULL;
    gp_status st = check_entries(root, err);
    gpi_kernels *k = st ? NULL : calloc(1, sizeof *k);
    if (st)
        return st;
    if (!k)
        return gpi_fail(err, GP_ENOMEM, "out of memory loading kernels.json");
    k->gpus = calloc(n_gpus ? n_gpus : 1, sizeof *k->gpus);
    k->links = calloc(n_links ? n_links : 1, sizeof *k->links);
    k->n_gpus = n_gpus, k->n_links = n_links;
    if (!k->gpus || !k->links) {
        gpi_kernels_free(k);
        return gpi_fail(err, GP_ENOMEM, "out of memory loading kernels.json");
    }
    st = load_fit(root, &k->fit, err);
    if (st) {
        gpi_kernels_free(k);
        return st;
    }
    double ref_mamf = gemm_entry(json_object_get(root, "gemm"), REF_GPU, "bf16");
    for (size_t i = 0; i < n_gpus; i++) {
        gpi_gpu_rates *r = &k->gpus[i];
        gemm_rates(root, &gpus[i], gpus, n_gpus, r);
        hbm_rate(root, &gpus[i], r);
        attn_rates(root, &gpus[i], ref_mamf, r);
        r->fit = &k->fit;
    }
    attn_relatives(root, gpus, n_gpus, k->gpus);
    attn_adjust(root, gpus, n_gpus, k->gpus);
    link_curves(root, links, n_links, k);
    *out = k;
    return GP_OK;
}

void gpi_kernels_free(gpi_kernels *k)
{
    if (!k)
        return;
    free(k->gpus);
    free(k->links);
    free(k);
}

const gpi_gpu_rates *gpi_kernels_gpu(const gpi_kernels *k, size_t i)
{
    return k && i < k->n_gpus ? &k->gpus[i] : NULL;
}
const gpi_link_curve *gpi_kernels_link(const gpi_kernels *k, size_t i)
{
    return k && i < k->n_links ? &k->links[i] : NULL;
}
const gpi_link_curve *gpi_kernels_scale_out(const gpi_kernels *k)
{
    return k ? &k->scale_out : NULL;
}
const gpi_kernel_fit *gpi_kernels_fit(const gpi_kernels *k)
{
    return k ? &k->fit : NULL;
}

const gpi_gpu_rates *gpi_gpu_rates_of(const gp_catalog *cat, const gp_gpu *gpu)
{
    const gpi_kernels *k = gpi_catalog_kernels(cat);
    if (!k || !gpu)
        return NULL;
    size_t n = gp_catalog_gpu_count(cat);
    for (size_t i = 0; i < n; i++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, i);
        if (g == gpu || streq(g->id, gpu->id))
            return gpi_kernels_gpu(k, i);
    }
    return NULL;
}

const gpi_link_curve *gpi_link_curve_of(const gp_catalog *cat, const char *link_id)
{
    const gpi_kernels *k = gpi_catalog_kernels(cat);
    size_t n = cat ? gpi_catalog_link_count(cat) : 0;
    for (size_t i = 0; k && link_id && i < n; i++) {
        const gpi_link *l = gpi_catalog_link_at(cat, i);
        if (streq(l->id, link_id))
            return gpi_kernels_link(k, i);
    }
    return NULL;
}

/* ---- hot path ------------------------------------------------------------------------- */

/* Bytes per element of a GEMM's activation input (m x k) and weights (k x n), block scales
 * included (NVFP4: one FP8 scale per 16 elements, MXFP4: one E8M0 per 32); the output (m x n)
 * is 16-bit in every format (FP8 and FP4 GEMMs write BF16). Weight-only formats read 16-bit
 * activations. */
static void operand_bytes(gpi_kdtype dt, double *act, double *wt)
{
    switch (dt) {
    case GPI_K_BF16: *act = 2.0, *wt = 2.0; return;
    case GPI_K_NVFP4: *act = *wt = 0.5 + 1.0 / 16.0; return;
    case GPI_K_MXFP4: *act = *wt = 0.5 + 1.0 / 32.0; return;
    case GPI_K_W4: *act = 2.0, *wt = 0.5; return;
    case GPI_K_W8: *act = 2.0, *wt = 1.0; return;
    default: *act = *wt = 1.0; return;
    }
}

double gpi_gemm_rate(const gpi_gpu_rates *r, gpi_kdtype dt, double m, double n, double k)
{
    if (!r || dt < 0 || dt >= GPI_K_COUNT || m <= 0 || n <= 0 || k <= 0)
        return 0.0;
    double d = m < n ? m : n;
    d = d < k ? d : k;
    double half = r->fit ? r->fit->gemm_half_dim : 0.0;
    double compute = r->gemm[dt] * d / (d + half);
    double a, w;
    operand_bytes(dt, &a, &w);
    double intensity = 2.0 * m * n * k / (a * m * k + w * k * n + 2.0 * m * n);
    double memory = intensity * r->hbm;
    return compute < memory ? compute : memory;
}

double gpi_grouped_gemm_s(const gpi_gpu_rates *r, gpi_kdtype dt, double flops, double m, double n, double k,
                          double fraction)
{
    if (!(flops > 0) || !(fraction > 0))
        return 0.0;
    double eff = r && r->fit && r->fit->grouped_gemm_eff > 0 ? r->fit->grouped_gemm_eff : 1.0;
    double rate = gpi_gemm_rate(r, dt, m, n, k) * eff * fraction;
    return rate > 0 ? flops / rate : 0.0;
}

/* Position of v on a grid of powers of two starting at 2^lo: index and weight. */
static inline void grid_pos(double v, int lo, int points, int *i, double *t)
{
    int e;
    double f = frexp(v, &e);                           /* v = f x 2^e, f in [0.5, 1) */
    double x = (double)(e - 1 - lo) + (2.0 * f - 1.0); /* ~log2(v) - lo, linear between powers */
    if (x <= 0) {
        *i = 0, *t = 0.0;
        return;
    }
    if (x >= points - 1) {
        *i = points - 2, *t = 1.0;
        return;
    }
    *i = (int)x;
    *t = x - *i;
}

double gpi_attn_rate(const gpi_gpu_rates *r, gpi_attn_kernel kernel, int pass, int causal, double head_dim, double seq)
{
    if (!r || seq <= 0)
        return 0.0;
    int k = kernel >= GPI_ATTN_DEFAULT || kernel < 0 ? r->attn_default : kernel;
    int i;
    double t;
    grid_pos(seq, 9, GPI_ATTN_SEQ_POINTS, &i, &t);
    const double *c = r->attn[k][pass ? 1 : 0][causal ? 1 : 0];
    double rate = c[i] * (1.0 - t) + c[i + 1] * t;
    /* head dim (data/kernels.json "head_dim_rule"): H100 FA2 d64 = 324/370 of d128 */
    if (head_dim > 0 && head_dim < 128)
        rate *= head_dim <= 64 ? 324.0 / 370.0 : 1.0 - (1.0 - 324.0 / 370.0) * (128.0 - head_dim) / 64.0;
    return rate;
}

double gpi_hbm_bw(const gpi_gpu_rates *r)
{
    return r ? r->hbm : 0.0;
}

double gpi_collective_busbw(const gpi_link_curve *lc, gpi_coll_op op, double bytes, double link_gbps)
{
    if (!lc || op < 0 || op >= GPI_COLL_COUNT || bytes <= 0 || link_gbps <= 0)
        return 0.0;
    int i;
    double t;
    grid_pos(bytes, GPI_COLL_LOG2_MIN, GPI_COLL_POINTS, &i, &t);
    const double *f = lc->frac[op];
    return link_gbps * 1e9 * (f[i] * (1.0 - t) + f[i + 1] * t);
}

double gpi_gemm_rate_cat(const gp_catalog *cat, const gp_gpu *gpu, gpi_kdtype dt, double m, double n, double k)
{
    return gpi_gemm_rate(gpi_gpu_rates_of(cat, gpu), dt, m, n, k);
}

gpi_kdtype gpi_kdtype_of(gp_dtype dt)
{
    switch (dt) {
    case GP_DTYPE_FP8: return GPI_K_FP8;
    case GP_DTYPE_FP4: return GPI_K_NVFP4;
    case GP_DTYPE_MXFP4: return GPI_K_MXFP4;
    case GP_DTYPE_INT8: return GPI_K_INT8;
    case GP_DTYPE_INT4:
    case GP_DTYPE_NF4: return GPI_K_W4;
    default: return GPI_K_BF16;
    }
}
