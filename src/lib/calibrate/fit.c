/*
 * fit.c: gpuplan calibrate (docs/calibration.md, "The fit").
 *
 * Runs are grouped by GPU type, use (training / serving), compute precision and serving
 * engine: one profile entry per group, so nothing fitted on one group reaches another.
 * In a group, the error of a run is e = ln(predicted / measured) and the fit minimises the
 * sum of e^2 (a log error treats 20% too fast and 20% too slow alike):
 *   1. each candidate parameter alone (training: GEMM, attention, HBM, collective scales;
 *      serving: GEMM scale, HBM scale, per-step overhead), by golden-section search over
 *      its physically possible range in log space; the best one is kept;
 *   2. with three runs or more, the best second parameter (coordinate descent over both),
 *      kept only when it lowers the leave-one-out error by at least one point: a parameter
 *      the runs cannot tell apart from the first is not added.
 * Leave-one-out: each run predicted by the fit on the others; before calibration that is
 * simply the uncalibrated error. Collective benchmarks (nccl-tests) give the bus-bandwidth
 * scales directly: measured bus bandwidth at the largest sizes / the model's.
 */
#include "calibrate_impl.h"
#include "hw/kernels.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GOLDEN_ITERS 12 /* bracket shrinks to 0.618^12 = 0.3% of the log range */
/* A weak pull of every parameter towards the published model (1): a direction the runs do
   not constrain (HBM bandwidth of a compute-bound benchmark) stays where it was instead of
   wandering to a bound. The weight is that of one run 3% off per e-fold change. */
#define PRIOR_WEIGHT   0.001
#define DESCENT_ROUNDS 2
#define MIN_LOO_GAIN   0.01 /* a second parameter must lower the LOO median by 1 point */
#define WARN_RESIDUAL  0.15 /* a run still this far off after the fit is reported */
#define OVERHEAD_MIN_S 1e-4 /* log search of the step overhead starts here */

typedef struct fitter {
    gpi_cal_case *cases;
    const int *idx; /* the group's cases */
    int n;
    int skip; /* leave out the runs i with i % folds == skip (-1: none) */
    int folds;
    int use;
    double base_overhead; /* serving: the engine's step overhead the prior pulls towards */
} fitter;

static double objective(const fitter *f, const double *theta)
{
    double s = 0.0;
    for (int i = 0; i < f->n; i++) {
        if (f->skip >= 0 && i % f->folds == f->skip)
            continue;
        const gpi_cal_case *cc = &f->cases[f->idx[i]];
        double p = gpi_cal_case_predict(cc, theta);
        double e = isfinite(p) && p > 0 ? log(p / cc->measured) : 10.0;
        s += e * e;
    }
    for (int p = 0; p < GP_CALP_COUNT; p++)
        if (theta[p] > 0 && (p != GP_CALP_OVERHEAD || f->base_overhead > 0)) {
            double l = log(theta[p] / (p == GP_CALP_OVERHEAD ? f->base_overhead : 1.0));
            s += PRIOR_WEIGHT * l * l;
        }
    return s;
}

static void range_of(int p, int use, double *lo, double *hi)
{
    gpi_cal_param_range((gp_cal_param)p, use, lo, hi);
    if (p == GP_CALP_OVERHEAD && *lo < OVERHEAD_MIN_S)
        *lo = OVERHEAD_MIN_S;
}

/* Golden-section search of parameter p in log space, the others held. */
static void search1(const fitter *f, int p, double *theta)
{
    double lo, hi;
    range_of(p, f->use, &lo, &hi);
    double a = log(lo), b = log(hi);
    const double g = 0.6180339887498949;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    theta[p] = exp(x1);
    double f1 = objective(f, theta);
    theta[p] = exp(x2);
    double f2 = objective(f, theta);
    for (int it = 0; it < GOLDEN_ITERS; it++) {
        if (f1 <= f2) {
            b = x2, x2 = x1, f2 = f1;
            x1 = b - g * (b - a);
            theta[p] = exp(x1);
            f1 = objective(f, theta);
        } else {
            a = x1, x1 = x2, f1 = f2;
            x2 = a + g * (b - a);
            theta[p] = exp(x2);
            f2 = objective(f, theta);
        }
    }
    theta[p] = exp(f1 <= f2 ? x1 : x2);
}

/* Fit the parameters ps[0..np) (the rest at identity). */
static double fit_set(const fitter *f, const int *ps, int np, double *theta)
{
    gpi_cal_theta_identity(theta);
    for (int r = 0; r < (np > 1 ? DESCENT_ROUNDS : 1); r++)
        for (int i = 0; i < np; i++)
            search1(f, ps[i], theta);
    return objective(f, theta);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median_of(double *v, int n)
{
    if (n <= 0)
        return NAN;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double rel_err(double pred, double meas)
{
    return isfinite(pred) ? fabs(pred / meas - 1.0) : 1.0;
}

/* Leave-one-out median error of a parameter set (NaN below two runs): each run predicted by a
 * fit without it. Above MAX_FOLDS runs, the runs are dealt into MAX_FOLDS folds and each fold
 * is left out in turn (k-fold cross-validation: still no run judges a fit it was part of). */
#define MAX_FOLDS 6
static double loo_error(fitter *f, const int *ps, int np)
{
    if (f->n < 2)
        return NAN;
    double *e = malloc(sizeof *e * (size_t)f->n);
    if (!e)
        return NAN;
    f->folds = f->n < MAX_FOLDS ? f->n : MAX_FOLDS;
    for (int j = 0; j < f->folds; j++) {
        double theta[GP_CALP_COUNT];
        f->skip = j;
        fit_set(f, ps, np, theta);
        f->skip = -1;
        for (int i = j; i < f->n; i += f->folds) {
            const gpi_cal_case *cc = &f->cases[f->idx[i]];
            e[i] = rel_err(gpi_cal_case_predict(cc, theta), cc->measured);
        }
    }
    double m = median_of(e, f->n);
    free(e);
    return m;
}

static int candidates(int use, int *out)
{
    int n = 0;
    if (use == GP_CAL_TRAIN) {
        out[n++] = GP_CALP_GEMM, out[n++] = GP_CALP_ATTN, out[n++] = GP_CALP_HBM, out[n++] = GP_CALP_COMM;
    } else {
        out[n++] = GP_CALP_GEMM, out[n++] = GP_CALP_HBM, out[n++] = GP_CALP_OVERHEAD;
    }
    return n;
}

/* Step 1 and 2 of the method; the chosen set into ps, its leave-one-out error into *loo;
 * returns its size. */
static int select_params(fitter *f, int max_params, int *ps, double *theta, double *loo)
{
    int cand[GP_CALP_COUNT], nc = candidates(f->use, cand);
    double best = INFINITY, t[GP_CALP_COUNT];
    for (int i = 0; i < nc; i++) {
        double o = fit_set(f, &cand[i], 1, t);
        if (o < best - 1e-12) {
            best = o;
            ps[0] = cand[i];
            memcpy(theta, t, sizeof t);
        }
    }
    int np = 1;
    if (max_params < 2 || f->n < 3) {
        *loo = loo_error(f, ps, 1);
        return np;
    }
    int two[2] = {ps[0], -1};
    double best2 = INFINITY;
    for (int i = 0; i < nc; i++) {
        if (cand[i] == ps[0])
            continue;
        int trial[2] = {ps[0], cand[i]};
        double o = fit_set(f, trial, 2, t);
        if (o < best2) {
            best2 = o;
            two[1] = cand[i];
        }
    }
    double loo1 = loo_error(f, ps, 1), loo2 = two[1] < 0 ? INFINITY : loo_error(f, two, 2);
    if (!(loo2 <= loo1 - MIN_LOO_GAIN)) {
        *loo = loo1;
        return np;
    }
    *loo = loo2;
    ps[1] = two[1];
    fit_set(f, ps, 2, theta);
    return 2;
}

static void warn(gp_calibrate_result *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void warn(gp_calibrate_result *out, const char *fmt, ...)
{
    if (out->n_warnings >= GP_CAL_MAX_WARNINGS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->warnings[out->n_warnings++], GP_ERROR_MSG_MAX, fmt, ap);
    va_end(ap);
}

static const char *use_label(int use)
{
    return use == GP_CAL_TRAIN ? "train" : use == GP_CAL_SERVE ? "serve" : "collective";
}

static void group_label(const gp_calibrate_group *g, char *buf, size_t n)
{
    if (g->use == GP_CAL_SERVE)
        snprintf(buf, n, "%s, serve %s %s", g->gpu, gp_dtype_name(g->dtype), gp_engine_name((gp_engine)g->engine));
    else if (g->use == GP_CAL_TRAIN)
        snprintf(buf, n, "%s, train %s", g->gpu, gp_dtype_name(g->dtype));
    else
        snprintf(buf, n, "%s, collectives", g->gpu);
}

/* Fit one group of training or serving runs and fill its errors and warnings. */
static void fit_group(gpi_cal_case *cases, const int *idx, int n, gp_calibrate_group *g, int max_params,
                      gp_calibrate_result *out)
{
    fitter f = {cases, idx, n, -1, 1, g->use, 0.0};
    if (g->use == GP_CAL_SERVE) {
        gpi_perf_params pp;
        gpi_perf_params_defaults(&pp, (gp_engine)g->engine);
        f.base_overhead = pp.step_overhead_s;
    }
    double *e = malloc(sizeof *e * (size_t)n);
    for (int i = 0; i < n && e; i++)
        e[i] = rel_err(cases[idx[i]].before, cases[idx[i]].measured);
    g->err_before = g->loo_before = e ? median_of(e, n) : NAN;
    if (n < 2)
        g->loo_before = NAN;
    int ps[2];
    double theta[GP_CALP_COUNT];
    int np = select_params(&f, max_params, ps, theta, &g->loo_after);
    double identity[GP_CALP_COUNT];
    gpi_cal_theta_identity(identity);
    for (int p = 0; p < GP_CALP_COUNT; p++) {
        g->value[p] = theta[p];
        g->replaces[p] = identity[p];
    }
    if (g->use == GP_CAL_SERVE) {
        gpi_perf_params pp;
        gpi_perf_params_defaults(&pp, (gp_engine)g->engine);
        g->replaces[GP_CALP_OVERHEAD] = pp.step_overhead_s;
    }
    char label[160];
    group_label(g, label, sizeof label);
    for (int k = 0; k < np; k++) {
        int p = ps[k];
        double lo, hi;
        range_of(p, g->use, &lo, &hi);
        g->fitted[p] = 1;
        g->at_bound[p] = theta[p] <= lo * 1.01 || theta[p] >= hi * 0.99;
        if (g->at_bound[p])
            warn(out,
                 "%s: %s wants to go beyond its physically possible range (%g..%g; fitted %.3g): the runs "
                 "disagree with the model beyond what its parameters can explain",
                 label, gp_cal_param_name((gp_cal_param)p), lo, hi, theta[p]);
    }
    for (int i = 0; i < n && e; i++) {
        gpi_cal_case *cc = &cases[idx[i]];
        cc->after = gpi_cal_case_predict(cc, theta);
        e[i] = rel_err(cc->after, cc->measured);
        if (e[i] > WARN_RESIDUAL)
            warn(out,
                 "run %s (%s) is still %.0f%% off after calibration: it disagrees with the other runs beyond "
                 "what the fitted parameters can explain",
                 cc->run->id, label, 100.0 * e[i]);
    }
    g->err_after = e ? median_of(e, n) : NAN;
    free(e);
    if (n == 1)
        warn(out,
             "%s: fitted on one run, so nothing checks it (no leave-one-out error): add runs of other sizes "
             "or layouts before trusting it far from that run",
             label);
}

/* ---- collective benchmarks ------------------------------------------------------------ */

/* Messages at least this large are bandwidth-bound (a ring step's latency of microseconds is
   under 1% of moving 64 MiB at hundreds of GB/s): only they say what the bus bandwidth is. */
#define BANDWIDTH_BOUND_BYTES (64.0 * 1048576.0)

/* The model's bus bandwidth (GB/s) for the run's collective at one size: the link's measured
 * curve (data/kernels.json) on the bandwidth the group has, as the training model uses it
 * (train.c, coll_time: across nodes a node's NICs pool, min(intra, GPUs per node x NIC)). */
static double model_bus_at(const gp_cluster *c, int inter, gpi_collective_op op, double bytes)
{
    double gbps = c->intra_gbps;
    if (inter && c->inter_gbps * c->gpus_per_node < gbps)
        gbps = c->inter_gbps * c->gpus_per_node;
    gpi_coll_op o = op == GPI_COLLECTIVE_ALL_GATHER       ? GPI_COLL_ALL_GATHER
                    : op == GPI_COLLECTIVE_REDUCE_SCATTER ? GPI_COLL_REDUCE_SCATTER
                    : op == GPI_COLLECTIVE_ALL_TO_ALL     ? GPI_COLL_ALL_TO_ALL
                                                          : GPI_COLL_ALL_REDUCE;
    double bus = gpi_collective_busbw(inter ? c->inter_curve : c->intra_curve, o, bytes, gbps);
    return bus > 0 ? bus / 1e9 : gbps * gpi_nccl_efficiency();
}

/* Measured over modelled bus bandwidth at the largest bandwidth-bound sizes (the top quarter of
   those points, at least one; their median); NaN when the benchmark stopped below
   BANDWIDTH_BOUND_BYTES. */
static double busbw_ratio(const gpi_measured_run *r, const gp_cluster *c, int inter)
{
    double v[GPI_RUN_MAX_POINTS];
    int first = 0, n = 0;
    while (first < r->points && r->bytes[first] < BANDWIDTH_BOUND_BYTES)
        first++;
    int big = r->points - first, k = big / 4 > 0 ? big / 4 : 1;
    for (int i = r->points - k; big > 0 && i < r->points; i++)
        if (r->busbw_gbps[i] > 0)
            v[n++] = r->busbw_gbps[i] / model_bus_at(c, inter, r->op, r->bytes[i]);
    return median_of(v, n);
}

static gp_status collective_gpu(const gp_catalog *cat, const gpi_measured_run *r, const gp_gpu **g, gp_error *err)
{
    json_t *o = json_loads(r->scenario_json ? r->scenario_json : "{}", 0, NULL);
    json_t *gv = json_object_get(o, "gpu");
    const char *name = json_is_string(gv)  ? json_string_value(gv)
                       : json_is_array(gv) ? json_string_value(json_array_get(gv, 0))
                                           : NULL;
    gp_status st;
    if (!name) {
        gpi_error_set_field(err, "gpu");
        st = gpi_fail(err, GP_EINVAL, "run %s: which GPU? the collective benchmark names none: pass --gpu", r->id);
    } else
        st = gp_catalog_find_gpu(cat, name, g, err);
    json_decref(o);
    return st;
}

/* The cluster the run's collective ran on: the GPU's defaults, with the run's inter_node and
 * gpus_per_node if it names them; *inter when its ranks span nodes. */
static void run_cluster(const gp_catalog *cat, const gp_gpu *g, const gpi_measured_run *r, gp_cluster *c, int *inter)
{
    json_t *o = json_loads(r->scenario_json ? r->scenario_json : "{}", 0, NULL);
    const gpi_link *link = NULL;
    const char *ln = json_string_value(json_object_get(o, "inter_node"));
    if (ln)
        gpi_catalog_find_link(cat, ln, &link, NULL);
    json_t *gpn = json_object_get(o, "gpus_per_node");
    gp_gpu raw = *g;
    raw.cal_intra_scale = raw.cal_inter_scale = 0;
    gpi_cluster_defaults(c, cat, &raw, link);
    if (json_is_integer(gpn) && json_integer_value(gpn) > 0 && json_integer_value(gpn) <= 4096)
        c->gpus_per_node = (int)json_integer_value(gpn);
    json_decref(o);
    *inter = (r->ranks > 0 ? r->ranks : 2) > c->gpus_per_node;
}

static void fit_collectives(const gp_catalog *cat, const gpi_runset *set, const gp_gpu *g, gp_calibrate_group *grp,
                            gp_calibrate_result *out)
{
    double intra[64], inter[64];
    int ni = 0, nx = 0;
    for (size_t i = 0; i < gpi_runset_count(set); i++) {
        const gpi_measured_run *r = gpi_runset_get(set, i);
        const gp_gpu *rg;
        if (r->kind != GPI_RUN_COLLECTIVE || collective_gpu(cat, r, &rg, NULL) || strcmp(rg->id, g->id))
            continue;
        int x;
        gp_cluster c;
        run_cluster(cat, g, r, &c, &x);
        double s = busbw_ratio(r, &c, x);
        if (!isfinite(s)) {
            warn(out,
                 "%s: the collective benchmark at line %d stops at %.0f KiB, where latency, not bus bandwidth, "
                 "sets the time: run it up to 256 MB or more (nccl-tests -e 1G) to calibrate the bandwidth",
                 g->id, r->line, r->points > 0 ? r->bytes[r->points - 1] / 1024.0 : 0.0);
            continue;
        }
        if (x && nx < 64)
            inter[nx++] = s;
        else if (!x && ni < 64)
            intra[ni++] = s;
        grp->runs++;
    }
    double lo = 0.05, hi = 1.25;
    double si = median_of(intra, ni), sx = median_of(inter, nx);
    grp->value[0] = ni ? fmin(fmax(si, lo), hi) : NAN; /* slot 0: inside a node */
    grp->value[1] = nx ? fmin(fmax(sx, lo), hi) : NAN; /* slot 1: across nodes */
    grp->fitted[0] = ni > 0, grp->fitted[1] = nx > 0;
    grp->replaces[0] = grp->replaces[1] = 1.0;
    grp->err_before = grp->err_after = grp->loo_before = grp->loo_after = NAN;
    for (int k = 0; k < 2; k++) {
        double raw = k ? sx : si;
        if (grp->fitted[k] && (raw < lo || raw > hi)) {
            grp->at_bound[k] = 1;
            warn(out,
                 "%s: the collective benchmarks' bus bandwidth %s is %.2f x the model's, outside the physically "
                 "possible %g..%g: check the GPU named for them",
                 g->id, k ? "across nodes" : "inside a node", raw, lo, hi);
        }
    }
}

/* ---- grouping --------------------------------------------------------------------------- */

static int same_group(const gp_calibrate_group *g, const gpi_cal_case *cc)
{
    return g->use == cc->use && !strcmp(g->gpu, cc->gpu.id) && g->dtype == cc->dtype &&
           (cc->use == GP_CAL_TRAIN || g->engine == cc->engine);
}

static gp_status assign_groups(gpi_cal_case *cases, int n, gp_calibrate_result *out, gp_error *err)
{
    for (int i = 0; i < n; i++) {
        int k = 0;
        while (k < out->n_groups && !same_group(&out->groups[k], &cases[i]))
            k++;
        if (k == out->n_groups) {
            if (k >= GP_CAL_MAX_GROUPS)
                return gpi_fail(err, GP_ELIMIT,
                                "more than %d kinds of run (GPU x use x precision x engine) in one calibration",
                                GP_CAL_MAX_GROUPS);
            gp_calibrate_group *g = &out->groups[out->n_groups++];
            memset(g, 0, sizeof *g);
            gpi_strlcpy(g->gpu, cases[i].gpu.id, sizeof g->gpu);
            g->use = cases[i].use;
            g->dtype = cases[i].dtype;
            g->engine = cases[i].use == GP_CAL_SERVE ? cases[i].engine : 0;
        }
        cases[i].group = k;
        out->groups[k].runs++;
    }
    return GP_OK;
}

static gp_status collective_groups(const gp_catalog *cat, const gpi_runset *set, gp_calibrate_result *out,
                                   gp_error *err)
{
    for (size_t i = 0; i < gpi_runset_count(set); i++) {
        const gpi_measured_run *r = gpi_runset_get(set, i);
        if (r->kind != GPI_RUN_COLLECTIVE)
            continue;
        const gp_gpu *g;
        gp_status st = collective_gpu(cat, r, &g, err);
        if (st)
            return st;
        int k = 0;
        while (k < out->n_groups && !(out->groups[k].use == 3 && !strcmp(out->groups[k].gpu, g->id)))
            k++;
        if (k < out->n_groups)
            continue;
        if (k >= GP_CAL_MAX_GROUPS)
            return gpi_fail(err, GP_ELIMIT, "more than %d kinds of run in one calibration", GP_CAL_MAX_GROUPS);
        gp_calibrate_group *grp = &out->groups[out->n_groups++];
        memset(grp, 0, sizeof *grp);
        gpi_strlcpy(grp->gpu, g->id, sizeof grp->gpu);
        grp->use = 3;
        fit_collectives(cat, set, g, grp, out);
    }
    return GP_OK;
}

/* ---- the profile document ----------------------------------------------------------- */

static json_t *num_or_null(double x)
{
    return isfinite(x) ? json_real(x) : json_null();
}

static json_t *entry_json(const gp_calibrate_group *g, int gi, const gpi_cal_case *cases, int n)
{
    json_t *params = json_object();
    for (int p = 0; p < GP_CALP_COUNT; p++) {
        if (!g->fitted[p])
            continue;
        double lo, hi;
        gpi_cal_param_range((gp_cal_param)p, g->use, &lo, &hi);
        json_object_set_new(params, gp_cal_param_name((gp_cal_param)p),
                            json_pack("{s:o s:o s:[f,f] s:b}", "value", num_or_null(g->value[p]), "replaces",
                                      num_or_null(g->replaces[p]), "range", lo, hi, "at_bound", g->at_bound[p]));
    }
    json_t *res = json_array();
    for (int i = 0; i < n; i++) {
        if (cases[i].group != gi)
            continue;
        json_array_append_new(res, json_pack("{s:s s:s s:f s:o s:o}", "id", cases[i].run->id, "quantity",
                                             cases[i].quantity, "measured", cases[i].measured, "before",
                                             num_or_null(cases[i].before), "after", num_or_null(cases[i].after)));
    }
    return json_pack(
        "{s:s s:s s:s s:i s:o s:o s:o s:o s:o s:o}", "use", use_label(g->use), "dtype", gp_dtype_name(g->dtype),
        "engine", g->use == GP_CAL_SERVE ? gp_engine_name((gp_engine)g->engine) : "none", "runs", g->runs, "params",
        params, "error_before", num_or_null(g->err_before), "error_after", num_or_null(g->err_after),
        "loo_error_before", num_or_null(g->loo_before), "loo_error_after", num_or_null(g->loo_after), "residuals", res);
}

static json_t *gpu_json(const gp_calibrate_result *out, const char *gpu, const gpi_cal_case *cases, int n)
{
    json_t *entries = json_array(), *o = json_pack("{s:s}", "gpu", gpu);
    for (int k = 0; k < out->n_groups; k++) {
        const gp_calibrate_group *g = &out->groups[k];
        if (strcmp(g->gpu, gpu))
            continue;
        if (g->use == 3) {
            json_t *co = json_pack("{s:i}", "runs", g->runs);
            if (g->fitted[0])
                json_object_set_new(co, "intra_scale", json_real(g->value[0]));
            if (g->fitted[1])
                json_object_set_new(co, "inter_scale", json_real(g->value[1]));
            json_object_set_new(o, "collective", co);
        } else
            json_array_append_new(entries, entry_json(g, k, cases, n));
    }
    json_object_set_new(o, "entries", entries);
    return o;
}

static char *profile_text(const gp_calibrate_result *out, const gp_calibrate_opts *o, const gpi_cal_case *cases, int n)
{
    json_t *srcs = json_array(), *warns = json_array(), *gpus = json_array();
    for (size_t i = 0; i < o->n_paths; i++) {
        const char *b = strrchr(o->paths[i], '/');
        json_array_append_new(srcs, json_string(b ? b + 1 : o->paths[i]));
    }
    for (int i = 0; i < out->n_warnings; i++)
        json_array_append_new(warns, json_string(out->warnings[i]));
    for (int k = 0; k < out->n_groups; k++) {
        int seen = 0;
        for (int j = 0; j < k; j++)
            seen |= !strcmp(out->groups[j].gpu, out->groups[k].gpu);
        if (!seen)
            json_array_append_new(gpus, gpu_json(out, out->groups[k].gpu, cases, n));
    }
    json_t *doc = json_pack("{s:i s:s s:o s:i s:o s:o}", "gpuplan_profile", GP_PROFILE_VERSION, "created_by",
                            "gpuplan calibrate " GP_VERSION_STRING, "sources", srcs, "runs", out->runs_used, "warnings",
                            warns, "gpus", gpus);
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(doc);
    return text;
}

/* ---- the run ---------------------------------------------------------------------------- */

/* Tell the caller where calibration stands (its progress callback, if any). */
static void cal_progress(const gp_calibrate_opts *o, double start_s, const char *stage, int step, int steps,
                         const char *item)
{
    if (!o->progress)
        return;
    gp_run_progress p = {stage, item ? item : "", step, steps, 0, 0, gp_run_clock() - start_s};
    o->progress(o->progress_arg, &p);
}

/* The defaults given as scenario keys and their flag text (o->default_keys), as the JSON object
 * the readers take, each value typed by the key table: an integer key's whole number as an
 * integer, a number key's number as a number, anything else as text. malloc'd; NULL: no memory. */
static char *defaults_text(const gp_calibrate_opts *o)
{
    json_t *defs = json_object();
    for (size_t i = 0; defs && i < o->n_defaults; i++) {
        const gp_scenario_key *k = gp_scenario_key_find(o->default_keys[i]);
        const char *value = o->default_values[i];
        char *end;
        double v = strtod(value, &end);
        int whole = *value && !*end;
        json_t *j = k && k->type == GP_KEY_INT && whole && v == floor(v) ? json_integer((json_int_t)v)
                    : k && k->type == GP_KEY_NUMBER && whole             ? json_real(v)
                                                                         : json_string(value);
        json_object_set_new(defs, k ? k->name : o->default_keys[i], j);
    }
    char *text = defs ? json_dumps(defs, JSON_COMPACT) : NULL;
    json_decref(defs);
    return text;
}

static gp_status read_runs(const gp_calibrate_opts *o, gpi_runset *set, double start_s, gp_error *err)
{
    if (o->n_paths == 0)
        return gpi_fail(err, GP_EINVAL, "calibrate: give at least one file of measured runs");
    char *built = !o->defaults_json && o->default_keys ? defaults_text(o) : NULL;
    if (!o->defaults_json && o->default_keys && !built)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    const char *defaults = o->defaults_json ? o->defaults_json : built;
    gp_status st = GP_OK;
    for (size_t i = 0; !st && i < o->n_paths; i++) {
        const char *base = strrchr(o->paths[i], '/');
        cal_progress(o, start_s, "reading runs", (int)i, (int)o->n_paths, base ? base + 1 : o->paths[i]);
        st = gpi_runset_read(set, o->paths[i], defaults, err);
    }
    free(built);
    return st;
}

static gp_status map_cases(const gp_catalog *cat, const gpi_runset *set, gpi_cal_case **cases, int *n, gp_error *err)
{
    size_t total = gpi_runset_count(set);
    *cases = calloc(total ? total : 1, sizeof **cases);
    if (!*cases)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    *n = 0;
    for (size_t i = 0; i < total; i++) {
        const gpi_measured_run *r = gpi_runset_get(set, i);
        if (r->kind == GPI_RUN_COLLECTIVE)
            continue;
        gpi_cal_case *cc = &(*cases)[*n];
        gp_status st = gpi_cal_case_init(cat, r, cc, err);
        if (st)
            return st;
        double id[GP_CALP_COUNT];
        gpi_cal_theta_identity(id);
        cc->before = gpi_cal_case_predict(cc, id);
        if (!isfinite(cc->before)) {
            gpi_error_set_field(err, "run");
            return gpi_fail(err, GP_EINVAL,
                            "run %s: gpuplan cannot predict it (the layout does not fit or is invalid "
                            "for the model): check its GPUs and parallel degrees",
                            r->id);
        }
        (*n)++;
    }
    return GP_OK;
}

static void fill_residuals(const gpi_cal_case *cases, int n, gp_calibrate_result *out)
{
    for (int i = 0; i < n && out->n_residuals < GP_CAL_MAX_RESIDUALS; i++) {
        gp_calibrate_residual *r = &out->residuals[out->n_residuals++];
        gpi_strlcpy(r->id, cases[i].run->id, sizeof r->id);
        r->group = cases[i].group;
        gpi_strlcpy(r->quantity, cases[i].quantity, sizeof r->quantity);
        r->measured = cases[i].measured;
        r->before = cases[i].before;
        r->after = cases[i].after;
    }
}

static gp_status write_profile(const char *path, const char *text, gp_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_EIO, "%s: cannot write the profile: %s", path, strerror(errno));
    }
    int bad = fputs(text, f) < 0 || fputc('\n', f) == EOF;
    bad |= fclose(f) != 0;
    if (bad) {
        remove(path);
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_EIO, "%s: writing the profile failed", path);
    }
    return GP_OK;
}

static gp_status calibrate(const gp_catalog *cat, const gp_calibrate_opts *o, gpi_runset *set, gp_calibrate_result *out,
                           gp_error *err)
{
    const double start_s = gp_run_clock();
    gp_status st = read_runs(o, set, start_s, err);
    if (st)
        return st;
    out->runs_read = (int)gpi_runset_count(set);
    gpi_cal_case *cases = NULL;
    int n = 0;
    st = map_cases(cat, set, &cases, &n, err);
    if (!st)
        st = assign_groups(cases, n, out, err);
    int *idx = st ? NULL : malloc(sizeof *idx * (size_t)(n ? n : 1));
    if (!st && !idx)
        st = gpi_fail(err, GP_ENOMEM, "out of memory");
    for (int k = 0; !st && k < out->n_groups; k++) {
        char item[96];
        snprintf(item, sizeof item, "%s %s %s", out->groups[k].gpu,
                 out->groups[k].use == GP_CAL_TRAIN ? "train" : "serve", gp_dtype_name(out->groups[k].dtype));
        cal_progress(o, start_s, "fitting", k, out->n_groups, item);
        int m = 0;
        for (int i = 0; i < n; i++)
            if (cases[i].group == k)
                idx[m++] = i;
        fit_group(cases, idx, m, &out->groups[k], o->max_params > 0 ? o->max_params : 2, out);
    }
    free(idx);
    if (!st)
        st = collective_groups(cat, set, out, err);
    out->runs_used = n;
    for (int k = 0; k < out->n_groups; k++)
        if (out->groups[k].use == 3)
            out->runs_used += out->groups[k].runs;
    if (!st) {
        fill_residuals(cases, n, out);
        out->profile_json = profile_text(out, o, cases, n);
        if (!out->profile_json)
            st = gpi_fail(err, GP_ENOMEM, "out of memory writing the profile");
    }
    free(cases);
    return st;
}

gp_status gp_calibrate_run(const gp_catalog *cat, const gp_calibrate_opts *o, gp_calibrate_result *out, gp_error *err)
{
    memset(out, 0, sizeof *out);
    gp_error_clear(err);
    if (!cat || !o)
        return gpi_fail(err, GP_EINVAL, "calibrate: catalog and options are required");
    gpi_runset *set = gpi_runset_new();
    if (!set)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    gp_status st = calibrate(cat, o, set, out, err);
    gpi_runset_free(set);
    int fitted = 0;
    for (int k = 0; k < out->n_groups; k++)
        for (int p = 0; p < GP_CALP_COUNT; p++)
            fitted |= out->groups[k].fitted[p];
    if (!st && !fitted)
        st = gpi_fail(err, GP_EINVAL, "calibrate: no run gave a parameter to fit%s%s",
                      out->n_warnings ? ": " : " (the files hold no run gpuplan can compare)",
                      out->n_warnings ? out->warnings[0] : "");
    if (!st && o->out_path)
        st = write_profile(o->out_path, out->profile_json, err);
    if (st) {
        free(out->profile_json);
        out->profile_json = NULL;
    }
    return st;
}

void gp_calibrate_result_free(gp_calibrate_result *r)
{
    if (!r)
        return;
    free(r->profile_json);
    r->profile_json = NULL;
}
