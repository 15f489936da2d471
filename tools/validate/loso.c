/*
 * loso.c: leave-one-source-out. For each model and each source S among its cases, the
 * model's fitted constants are searched again on the cases of every other source, and S's
 * cases are predicted with those constants. The error on S is then an error on data the
 * constants never saw, which is what a user's new case gets.
 *
 * The search is coordinate descent on each constant's grid (gpv_param). By default it starts at
 * the shipped values and moves one constant at a time one grid step while the objective
 * (vfit_objective over the fit set) improves, until no step improves. A blind model
 * (gpv_model.blind) starts every fit from its priors instead, and again from GPV_STARTS - 1
 * fixed grid points, keeping the best descent, so a held-out fit never starts from values
 * fitted on the held-out source, and per pass scans each constant's whole grid (the
 * objective's plateaus stop unit steps early); it is also fitted on every source, which is
 * the fit the model ships. A constant that no case
 * of the fit set reads is not fitted: it takes its prior (gpv_model.priors), so a constant
 * fitted on one source alone never reaches that source's held-out prediction. Predictions are cached
 * per case and per grid point of the constants the case reads (gpv_model.depends), so the
 * folds share the expensive simulations, and the cases of one grid point are predicted on
 * several threads (each prediction is an independent library call).
 */
#include "loso.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GPV_MAX_PASSES 60
/* Predictions of one grid point run on up to this many threads (GPV_THREADS overrides the
 * number of processors). */
#define GPV_MAX_THREADS 16

typedef struct centry {
    int k[GPV_MAX_PARAMS]; /* grid offsets from the shipped values, masked */
    vrows rows;
} centry;

typedef struct ccase {
    json_t *c;
    char source[64];
    unsigned dep;
    centry *e;
    int ne, cap;
    int *slot; /* open-addressing index of e by grid point: entry + 1, 0 empty */
    int nslot; /* a power of two, at least twice ne */
} ccase;

typedef struct fitctx {
    const gp_catalog *cat;
    const gpv_model *model;
    double dflt[GPV_MAX_PARAMS];
    int kmin[GPV_MAX_PARAMS], kmax[GPV_MAX_PARAMS];
    int kprior[GPV_MAX_PARAMS]; /* grid offset of each constant's prior */
    ccase *cases;
    int ncases;
    int evaluations, oom;
} fitctx;

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double vfit_objective(const vrows *rs)
{
    double *e = malloc((size_t)(rs->n > 0 ? rs->n : 1) * sizeof *e);
    if (!e)
        return HUGE_VAL;
    int n = 0;
    for (int i = 0; i < rs->n; i++)
        if (!rs->r[i].bound)
            e[n++] = fabs((rs->r[i].predicted - rs->r[i].measured) / rs->r[i].measured * 100.0);
    qsort(e, (size_t)n, sizeof *e, cmp_double);
    double med = n ? (n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2) : 0;
    double p90 = n ? e[(int)(0.9 * n) < n ? (int)(0.9 * n) : n - 1] : 0;
    free(e);
    return med + 0.3 * p90;
}

double vfit_objective_huber(const vrows *rs)
{
    double sum = 0.0;
    int n = 0;
    for (int i = 0; i < rs->n; i++) {
        const vrow *r = &rs->r[i];
        if (r->bound || !(r->predicted > 0) || !(r->measured > 0))
            continue;
        double e = fabs(log(r->predicted / r->measured));
        sum += e < VFIT_HUBER_DELTA ? e * e / (2.0 * VFIT_HUBER_DELTA) : e - VFIT_HUBER_DELTA / 2.0;
        n++;
    }
    return n ? 100.0 * sum / n : 0.0;
}

static void values_of(const fitctx *f, const int *k, double *v)
{
    for (int i = 0; i < f->model->nparams; i++)
        v[i] = f->dflt[i] + k[i] * f->model->params[i].step;
}

static unsigned key_hash(const int *key)
{
    unsigned h = 2166136261u;
    for (int i = 0; i < GPV_MAX_PARAMS; i++)
        h = (h ^ (unsigned)key[i]) * 16777619u;
    return h;
}

/* Rebuild the index of cc's entries with room for twice as many. 0, or 1 when out of memory. */
static int reindex(ccase *cc)
{
    int n = cc->nslot ? 2 * cc->nslot : 64;
    int *slot = calloc((size_t)n, sizeof *slot);
    if (!slot)
        return 1;
    for (int j = 0; j < cc->ne; j++) {
        unsigned h = key_hash(cc->e[j].k) & (unsigned)(n - 1);
        while (slot[h])
            h = (h + 1) & (unsigned)(n - 1);
        slot[h] = j + 1;
    }
    free(cc->slot);
    cc->slot = slot;
    cc->nslot = n;
    return 0;
}

/* The cache entry of case cc at grid point k (masked to the constants it reads); *fresh set
 * when it was just added (its rows still to compute). NULL when out of memory. */
static centry *cache_entry(fitctx *f, ccase *cc, const int *k, int *fresh)
{
    int key[GPV_MAX_PARAMS] = {0};
    for (int i = 0; i < f->model->nparams; i++)
        key[i] = cc->dep >> i & 1u ? k[i] : 0;
    *fresh = 0;
    unsigned h = cc->nslot ? key_hash(key) & (unsigned)(cc->nslot - 1) : 0;
    for (; cc->nslot && cc->slot[h]; h = (h + 1) & (unsigned)(cc->nslot - 1))
        if (memcmp(cc->e[cc->slot[h] - 1].k, key, sizeof key) == 0)
            return &cc->e[cc->slot[h] - 1];
    if (cc->ne == cc->cap) {
        int cap = cc->cap ? 2 * cc->cap : 8;
        centry *e = realloc(cc->e, (size_t)cap * sizeof *e);
        if (!e) {
            f->oom = 1;
            return NULL;
        }
        cc->e = e;
        cc->cap = cap;
    }
    if (2 * (cc->ne + 1) > cc->nslot && reindex(cc)) {
        f->oom = 1;
        return NULL;
    }
    centry *e = &cc->e[cc->ne++];
    memset(e, 0, sizeof *e);
    memcpy(e->k, key, sizeof key);
    h = key_hash(key) & (unsigned)(cc->nslot - 1);
    while (cc->slot[h])
        h = (h + 1) & (unsigned)(cc->nslot - 1);
    cc->slot[h] = cc->ne;
    *fresh = 1;
    return e;
}

static void compute_entry(const fitctx *f, const ccase *cc, centry *e)
{
    double v[GPV_MAX_PARAMS];
    values_of(f, e->k, v);
    f->model->predict(f->cat, cc->c, v, &e->rows);
    /* a blind fit caches thousands of grid points per case: keep only the rows made */
    if (e->rows.n > 0 && e->rows.n < e->rows.cap) {
        vrow *r = realloc(e->rows.r, (size_t)e->rows.n * sizeof *r);
        if (r) {
            e->rows.r = r;
            e->rows.cap = e->rows.n;
        }
    }
}

/* The rows of case cc at grid point k, computed here when not cached. */
static const vrows *predict_cached(fitctx *f, ccase *cc, const int *k)
{
    int fresh;
    centry *e = cache_entry(f, cc, k, &fresh);
    if (e && fresh) {
        compute_entry(f, cc, e);
        f->evaluations++;
    }
    return e ? &e->rows : NULL;
}

/* ---- predictions of one grid point, in parallel (the library shares nothing between calls) */
typedef struct job {
    ccase *cc;
    centry *e;
} job;

typedef struct jobs {
    const fitctx *f;
    job *j;
    int n;
    atomic_int next;
} jobs;

static void *worker(void *arg)
{
    jobs *js = arg;
    for (int i; (i = atomic_fetch_add(&js->next, 1)) < js->n;)
        compute_entry(js->f, js->j[i].cc, js->j[i].e);
    return NULL;
}

static int thread_count(void)
{
    const char *env = getenv("GPV_THREADS");
    long n = env && *env ? strtol(env, NULL, 10) : sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > GPV_MAX_THREADS ? GPV_MAX_THREADS : (int)n;
}

static void run_jobs(const fitctx *f, job *j, int n)
{
    jobs js = {f, j, n, 0};
    pthread_t th[GPV_MAX_THREADS];
    int nt = thread_count(), started = 0;
    if (nt > n)
        nt = n;
    for (int t = 1; t < nt; t++)
        if (pthread_create(&th[started], NULL, worker, &js) == 0)
            started++;
    worker(&js);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

/* Every case not from `held_out` at grid point k, computed where not cached. */
static void ensure_fold(fitctx *f, const char *held_out, const int *k)
{
    job *j = malloc((size_t)(f->ncases > 0 ? f->ncases : 1) * sizeof *j);
    if (!j) {
        f->oom = 1;
        return;
    }
    int n = 0;
    for (int c = 0; c < f->ncases; c++) {
        int fresh;
        if (strcmp(f->cases[c].source, held_out) == 0)
            continue;
        centry *e = cache_entry(f, &f->cases[c], k, &fresh);
        if (e && fresh)
            j[n++] = (job){&f->cases[c], e};
    }
    run_jobs(f, j, n);
    f->evaluations += n;
    free(j);
}

static void append_rows(vrows *dst, const vrows *src, int *oom)
{
    for (int i = 0; i < src->n; i++) {
        if (dst->n == dst->cap) {
            int cap = dst->cap ? 2 * dst->cap : 256;
            vrow *r = realloc(dst->r, (size_t)cap * sizeof *r);
            if (!r) {
                *oom = 1;
                return;
            }
            dst->r = r;
            dst->cap = cap;
        }
        dst->r[dst->n++] = src->r[i];
    }
}

/* The objective over every case not from `held_out` at grid point k; its row count in *rows. */
static double fold_objective(fitctx *f, const char *held_out, const int *k, int *rows)
{
    ensure_fold(f, held_out, k);
    vrows fit = {0};
    for (int j = 0; j < f->ncases; j++) {
        if (strcmp(f->cases[j].source, held_out) == 0)
            continue;
        const vrows *r = predict_cached(f, &f->cases[j], k);
        if (r)
            append_rows(&fit, r, &f->oom);
    }
    double obj = f->model->objective ? f->model->objective(&fit) : vfit_objective(&fit);
    if (rows)
        *rows = fit.n;
    vrows_free(&fit);
    return obj;
}

/* The constants some case of the fit set reads (and whose rows it produces). */
static unsigned fold_reads(fitctx *f, const char *held_out)
{
    unsigned mask = 0;
    int k0[GPV_MAX_PARAMS] = {0};
    for (int j = 0; j < f->ncases; j++) {
        if (strcmp(f->cases[j].source, held_out) == 0)
            continue;
        const vrows *r = predict_cached(f, &f->cases[j], k0);
        if (r && r->n > 0)
            mask |= f->cases[j].dep;
    }
    return mask;
}

/* One constant's best grid value with the others held (a blind model's line scan): moves
 * k[i] there when it beats *best. 1 when it moved. */
static int scan_constant(fitctx *f, const char *held_out, int *k, int i, double *best)
{
    int at = k[i], best_k = k[i];
    for (int j = f->kmin[i]; j <= f->kmax[i] && !f->oom; j++) {
        if (j == at)
            continue;
        k[i] = j;
        double o = fold_objective(f, held_out, k, NULL);
        if (o < *best - 1e-9) {
            *best = o;
            best_k = j;
        }
    }
    k[i] = best_k;
    return best_k != at;
}

/* One constant moved in unit steps while the objective improves. 1 when it moved. */
static int step_constant(fitctx *f, const char *held_out, int *k, int i, double *best)
{
    int moved = 0;
    for (int d = -1; d <= 1; d += 2) {
        while (k[i] + d >= f->kmin[i] && k[i] + d <= f->kmax[i]) {
            k[i] += d;
            double o = fold_objective(f, held_out, k, NULL);
            if (o < *best - 1e-9) {
                *best = o;
                moved = 1;
            } else {
                k[i] -= d;
                break;
            }
        }
    }
    return moved;
}

/* A blind model's escape from a point no single constant improves: every pair of constants
 * moved one grid step each, in the four diagonal directions (the median-based objective has
 * ridges along pairs: a GEMM fraction against its shape penalty, an attention fraction against
 * the launch floor). Moves to the first pair that improves; 1 when it moved. */
static int pair_step(fitctx *f, const char *held_out, unsigned reads, int *k, double *best)
{
    int n = f->model->nparams;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (!(reads >> i & 1u) || !(reads >> j & 1u))
                continue;
            for (int di = -1; di <= 1; di += 2)
                for (int dj = -1; dj <= 1; dj += 2) {
                    if (k[i] + di < f->kmin[i] || k[i] + di > f->kmax[i] || k[j] + dj < f->kmin[j] ||
                        k[j] + dj > f->kmax[j])
                        continue;
                    k[i] += di, k[j] += dj;
                    double o = fold_objective(f, held_out, k, NULL);
                    if (o < *best - 1e-9) {
                        *best = o;
                        return 1;
                    }
                    k[i] -= di, k[j] -= dj;
                }
        }
    return 0;
}

/* Coordinate descent from k over the constants in `reads`, *best the objective at k. */
static void descend(fitctx *f, const char *held_out, unsigned reads, int *k, double *best)
{
    for (int pass = 0, moved = 1; moved && pass < GPV_MAX_PASSES && !f->oom; pass++) {
        moved = 0;
        for (int i = 0; i < f->model->nparams; i++)
            if (reads >> i & 1u)
                moved |=
                    f->model->blind ? scan_constant(f, held_out, k, i, best) : step_constant(f, held_out, k, i, best);
        if (!moved && f->model->blind)
            moved = pair_step(f, held_out, reads, k, best);
    }
}

/* Where a blind fit's descents start besides the priors: every constant it reads at the same
 * quarter of its grid (GPV_STARTS - 1 of them, fixed, never the shipped values). The median-based
 * objective is a landscape of steps and ridges; a descent from one point can stop on a ledge
 * another start passes, and the best of the descents is kept. */
#define GPV_STARTS 4

/* Coordinate descent over the constants the fit set reads, from the shipped values (k = 0) or,
 * for a blind model, from the priors and GPV_STARTS - 1 fixed points (the best is kept); the
 * constants no case reads take their priors. The best grid point in k; the rows fitted
 * returned. held_out "" fits on every source. */
static int fit_without(fitctx *f, const char *held_out, int *k)
{
    memset(k, 0, GPV_MAX_PARAMS * sizeof *k);
    unsigned reads = fold_reads(f, held_out);
    for (int i = 0; i < f->model->nparams; i++)
        if (f->model->blind || !(reads >> i & 1u))
            k[i] = f->kprior[i];
    int rows = 0;
    double best = fold_objective(f, held_out, k, &rows);
    if (rows == 0)
        return 0;
    descend(f, held_out, reads, k, &best);
    for (int s = 1; f->model->blind && s < GPV_STARTS && !f->oom; s++) {
        int t[GPV_MAX_PARAMS];
        memcpy(t, k, sizeof t);
        for (int i = 0; i < f->model->nparams; i++)
            if (reads >> i & 1u)
                t[i] = f->kmin[i] + (f->kmax[i] - f->kmin[i]) * s / GPV_STARTS;
        double o = fold_objective(f, held_out, t, NULL);
        descend(f, held_out, reads, t, &o);
        if (o < best - 1e-9) {
            best = o;
            memcpy(k, t, sizeof t);
        }
    }
    return rows;
}

static int fitctx_init(fitctx *f, const gp_catalog *cat, const gpv_model *m, json_t *cases)
{
    memset(f, 0, sizeof *f);
    f->cat = cat;
    f->model = m;
    double prior[GPV_MAX_PARAMS] = {0};
    if (m->nparams > 0) {
        m->defaults(cat, f->dflt);
        (m->priors ? m->priors : m->defaults)(cat, prior);
    }
    for (int i = 0; i < m->nparams; i++) {
        const gpv_param *p = &m->params[i];
        f->kmin[i] = (int)ceil((p->lo - f->dflt[i]) / p->step - 1e-9);
        f->kmax[i] = (int)floor((p->hi - f->dflt[i]) / p->step + 1e-9);
        f->kprior[i] = (int)lround((prior[i] - f->dflt[i]) / p->step);
    }
    f->cases = calloc(json_array_size(cases) + 1, sizeof *f->cases);
    if (!f->cases)
        return 1;
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        const char *cat_name = json_string_value(json_object_get(c, "category"));
        if (!cat_name || strcmp(cat_name, m->category))
            continue;
        ccase *cc = &f->cases[f->ncases++];
        cc->c = c;
        vcase_source(c, cc->source, sizeof cc->source);
        cc->dep = m->depends ? m->depends(c) : ~0u;
    }
    return 0;
}

static void fitctx_free(fitctx *f)
{
    for (int j = 0; j < f->ncases; j++) {
        for (int e = 0; e < f->cases[j].ne; e++)
            vrows_free(&f->cases[j].e[e].rows);
        free(f->cases[j].e);
        free(f->cases[j].slot);
    }
    free(f->cases);
}

static int add_fit(vloso *out, const fitctx *f, const char *source, int rows, const int *k)
{
    vfit *fits = realloc(out->fits, (size_t)(out->nfits + 1) * sizeof *fits);
    if (!fits)
        return 1;
    out->fits = fits;
    vfit *v = &out->fits[out->nfits++];
    memset(v, 0, sizeof *v);
    v->model = f->model;
    snprintf(v->source, sizeof v->source, "%s", source);
    v->train_rows = rows;
    values_of(f, k, v->v);
    return 0;
}

/* Whether a source's cases give any row (the unmapped ones have nothing to hold out). */
static int source_has_rows(fitctx *f, const char *source)
{
    int k0[GPV_MAX_PARAMS] = {0};
    for (int j = 0; j < f->ncases; j++) {
        if (strcmp(f->cases[j].source, source))
            continue;
        const vrows *r = predict_cached(f, &f->cases[j], k0);
        if (r && r->n > 0)
            return 1;
    }
    return 0;
}

/* Every source of one model: refit without it, predict it. */
static int run_model(const gp_catalog *cat, const gpv_model *m, json_t *cases, vloso *out)
{
    fitctx f;
    if (fitctx_init(&f, cat, m, cases)) {
        fitctx_free(&f);
        return 1;
    }
    int rc = 0;
    if (m->nparams > 0) { /* the fit on every source: where the shipped constants should sit
                           * (reported, never used for a prediction) */
        int k[GPV_MAX_PARAMS] = {0};
        int rows = fit_without(&f, "", k);
        rc = add_fit(out, &f, "", rows, k);
    }
    for (int j = 0; j < f.ncases && !rc && !f.oom; j++) {
        int seen = 0;
        for (int i = 0; i < j && !seen; i++)
            seen = strcmp(f.cases[i].source, f.cases[j].source) == 0;
        if (seen || !source_has_rows(&f, f.cases[j].source))
            continue;
        int k[GPV_MAX_PARAMS] = {0};
        int rows = m->nparams > 0 ? fit_without(&f, f.cases[j].source, k) : 0;
        if (m->nparams > 0)
            rc = add_fit(out, &f, f.cases[j].source, rows, k);
        for (int i = j; i < f.ncases && !rc; i++) {
            if (strcmp(f.cases[i].source, f.cases[j].source))
                continue;
            const vrows *r = predict_cached(&f, &f.cases[i], k);
            if (r)
                append_rows(&out->rows, r, &f.oom);
        }
    }
    out->evaluations += f.evaluations;
    if (f.oom)
        rc = 1;
    fitctx_free(&f);
    return rc;
}

int vloso_run(const gp_catalog *cat, const gpv_model *const *models, int nmodels, json_t *cases, vloso *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < nmodels; i++)
        if (run_model(cat, models[i], cases, out))
            return 1;
    return 0;
}

void vloso_free(vloso *l)
{
    vrows_free(&l->rows);
    free(l->fits);
    memset(l, 0, sizeof *l);
}
