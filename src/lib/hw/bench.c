/*
 * bench.c: gpuplan probe --bench (docs/calibration.md, "probe --bench"): short
 * microbenchmarks of this machine's GPUs, written as a calibration profile.
 *
 * The CUDA runtime, cuBLASLt and NCCL are loaded at run time (dlopen), as probe.c loads NVML;
 * the few types and constants used are declared here with the values of the CUDA 12 headers
 * (cuda_runtime_api.h, library_types.h, cublasLt.h, nccl.h), so the build needs none of them.
 * Device pointers are never touched by the host. All state lives in one struct per run.
 *
 *   GEMM     D = A^T B (cublasLtMatmul, "TN", the layout fp8 requires), fp32 accumulate,
 *            bf16 and fp8 E4M3 inputs, bf16 output; TFLOP/s = 2 m n k / time
 *   HBM      a device-to-device copy: (read + write) 2 x bytes / time
 *   NCCL     all-reduce and all-gather of fp32 over every GPU, bus bandwidth as nccl-tests
 *            defines it: all-reduce bytes/t x 2(n-1)/n, all-gather (n-1)/n (PERFORMANCE.md)
 * Each point: 2 warm-up runs, then `iterations` timed between two CUDA events.
 */
#include "internal.h"
#include "hw/kernels.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the subset of the CUDA 12 headers used ---------------------------------------------- */
#define CUDA_MEMCPY_D2D      3 /* cudaMemcpyDeviceToDevice */
#define CUDA_R_32F           0 /* cudaDataType_t */
#define CUDA_R_16BF          14
#define CUDA_R_8F_E4M3       28
#define CUBLAS_COMPUTE_32F   68 /* cublasComputeType_t */
#define CUBLASLT_DESC_TRANSA 3  /* cublasLtMatmulDescAttributes_t CUBLASLT_MATMUL_DESC_TRANSA */
#define CUBLAS_OP_T          1
#define NCCL_FLOAT32         7 /* ncclDataType_t ncclFloat32 */
#define NCCL_SUM             0
#define BENCH_MAX_GPUS       8
#define BENCH_PROP_BYTES     16384 /* more than any cudaDeviceProp; its first field is char name[256] */

typedef int (*cu_int_fn)(int);
typedef int (*cu_pint_fn)(int *);
typedef int (*cu_void_fn)(void);
typedef int (*cu_prop_fn)(void *, int);
typedef int (*cu_meminfo_fn)(size_t *, size_t *);
typedef int (*cu_malloc_fn)(void **, size_t);
typedef int (*cu_ptr_fn)(void *);
typedef int (*cu_memcpy_fn)(void *, const void *, size_t, int, void *);
typedef int (*cu_pptr_fn)(void **);
typedef int (*cu_rec_fn)(void *, void *);
typedef int (*cu_elapsed_fn)(float *, void *, void *);
typedef const char *(*cu_errstr_fn)(int);
typedef int (*lt_desc_fn)(void **, int, int);
typedef int (*lt_attr_fn)(void *, int, const void *, size_t);
typedef int (*lt_layout_fn)(void **, int, uint64_t, uint64_t, int64_t);
typedef int (*lt_matmul_fn)(void *, void *, const void *, const void *, void *, const void *, void *, const void *,
                            const void *, void *, void *, void *, const void *, void *, size_t, void *);
typedef int (*nc_init_fn)(void **, int, const int *);
typedef int (*nc_ar_fn)(const void *, void *, size_t, int, int, void *, void *);
typedef int (*nc_ag_fn)(const void *, void *, size_t, int, void *, void *);

typedef struct cuda_api {
    void *lib;
    cu_pint_fn device_count;
    cu_int_fn set_device;
    cu_prop_fn props;
    cu_meminfo_fn mem_info;
    cu_malloc_fn malloc_;
    cu_ptr_fn free_, event_sync, event_destroy, stream_sync;
    cu_memcpy_fn memcpy_async;
    cu_pptr_fn event_create, stream_create;
    cu_rec_fn event_record;
    cu_elapsed_fn elapsed;
    cu_errstr_fn errstr;
} cuda_api;

typedef struct lt_api {
    void *lib;
    cu_pptr_fn create;
    cu_ptr_fn destroy, desc_destroy, layout_destroy;
    lt_desc_fn desc_create;
    lt_attr_fn set_attr;
    lt_layout_fn layout_create;
    lt_matmul_fn matmul;
} lt_api;

typedef struct nccl_api {
    void *lib;
    nc_init_fn init_all;
    cu_ptr_fn destroy;
    nc_ar_fn all_reduce;
    nc_ag_fn all_gather;
    cu_void_fn group_start, group_end;
} nccl_api;

typedef struct bench {
    cuda_api cu;
    lt_api lt;
    nccl_api nc;
    const gp_bench_opts *o;
    gp_bench_result *out;
    int iters, step, steps;
    void *ev0, *ev1;
} bench;

static void *load(const char *given, const char *a, const char *b)
{
    if (given && *given)
        return dlopen(given, RTLD_NOW | RTLD_LOCAL);
    void *h = dlopen(a, RTLD_NOW | RTLD_LOCAL);
    return h ? h : b ? dlopen(b, RTLD_NOW | RTLD_LOCAL) : NULL;
}

#define SYM(lib, dst, name) (*(void **)(&(dst)) = dlsym((lib), (name)), (dst) != NULL)

static gp_status load_cuda(bench *b, gp_error *err)
{
    cuda_api *c = &b->cu;
    c->lib = load(b->o->cudart_path, "libcudart.so", "libcudart.so.12");
    if (!c->lib)
        return gpi_fail(err, GP_ENOTFOUND, "the CUDA runtime (%s) is not on this machine: --bench needs it",
                        b->o->cudart_path && *b->o->cudart_path ? b->o->cudart_path : "libcudart.so");
    int ok = SYM(c->lib, c->device_count, "cudaGetDeviceCount") && SYM(c->lib, c->set_device, "cudaSetDevice") &&
             SYM(c->lib, c->mem_info, "cudaMemGetInfo") && SYM(c->lib, c->malloc_, "cudaMalloc") &&
             SYM(c->lib, c->free_, "cudaFree") && SYM(c->lib, c->memcpy_async, "cudaMemcpyAsync") &&
             SYM(c->lib, c->event_create, "cudaEventCreate") && SYM(c->lib, c->event_record, "cudaEventRecord") &&
             SYM(c->lib, c->event_sync, "cudaEventSynchronize") && SYM(c->lib, c->elapsed, "cudaEventElapsedTime") &&
             SYM(c->lib, c->event_destroy, "cudaEventDestroy") && SYM(c->lib, c->stream_create, "cudaStreamCreate") &&
             SYM(c->lib, c->stream_sync, "cudaStreamSynchronize") && SYM(c->lib, c->errstr, "cudaGetErrorString");
    if (ok && !SYM(c->lib, c->props, "cudaGetDeviceProperties_v2"))
        ok = SYM(c->lib, c->props, "cudaGetDeviceProperties");
    return ok ? GP_OK : gpi_fail(err, GP_EUNSUPPORTED, "the CUDA runtime lacks a function --bench needs");
}

static gp_status load_lt(bench *b, gp_error *err)
{
    lt_api *l = &b->lt;
    l->lib = load(b->o->cublaslt_path, "libcublasLt.so", "libcublasLt.so.12");
    if (!l->lib)
        return gpi_fail(err, GP_ENOTFOUND, "cuBLASLt (%s) is not on this machine: --bench needs it",
                        b->o->cublaslt_path && *b->o->cublaslt_path ? b->o->cublaslt_path : "libcublasLt.so");
    int ok = SYM(l->lib, l->create, "cublasLtCreate") && SYM(l->lib, l->destroy, "cublasLtDestroy") &&
             SYM(l->lib, l->desc_create, "cublasLtMatmulDescCreate") &&
             SYM(l->lib, l->desc_destroy, "cublasLtMatmulDescDestroy") &&
             SYM(l->lib, l->set_attr, "cublasLtMatmulDescSetAttribute") &&
             SYM(l->lib, l->layout_create, "cublasLtMatrixLayoutCreate") &&
             SYM(l->lib, l->layout_destroy, "cublasLtMatrixLayoutDestroy") && SYM(l->lib, l->matmul, "cublasLtMatmul");
    return ok ? GP_OK : gpi_fail(err, GP_EUNSUPPORTED, "cuBLASLt lacks a function --bench needs");
}

static int load_nccl(bench *b)
{
    nccl_api *n = &b->nc;
    n->lib = load(b->o->nccl_path, "libnccl.so.2", "libnccl.so");
    return n->lib && SYM(n->lib, n->init_all, "ncclCommInitAll") && SYM(n->lib, n->destroy, "ncclCommDestroy") &&
           SYM(n->lib, n->all_reduce, "ncclAllReduce") && SYM(n->lib, n->all_gather, "ncclAllGather") &&
           SYM(n->lib, n->group_start, "ncclGroupStart") && SYM(n->lib, n->group_end, "ncclGroupEnd");
}

static void progress(bench *b, const char *what)
{
    if (b->o->progress)
        b->o->progress(b->o->progress_ctx, what, b->step, b->steps);
    b->step++;
}

static gp_bench_point *add_point(bench *b, const char *what, double value)
{
    gp_bench_result *r = b->out;
    if (r->n_points >= GP_BENCH_MAX_POINTS || !(value > 0) || !isfinite(value))
        return NULL;
    gp_bench_point *p = &r->points[r->n_points++];
    memset(p, 0, sizeof *p);
    gpi_strlcpy(p->what, what, sizeof p->what);
    p->value = value;
    return p;
}

/* Seconds per repetition of the work `run` queues on stream 0, between two events. */
typedef int (*work_fn)(bench *b, void *ctx);
static double time_it(bench *b, work_fn run, void *ctx, void *stream)
{
    for (int i = 0; i < 2; i++)
        if (run(b, ctx))
            return NAN;
    if (b->cu.event_record(b->ev0, stream))
        return NAN;
    for (int i = 0; i < b->iters; i++)
        if (run(b, ctx))
            return NAN;
    float ms = 0;
    if (b->cu.event_record(b->ev1, stream) || b->cu.event_sync(b->ev1) || b->cu.elapsed(&ms, b->ev0, b->ev1))
        return NAN;
    return ms > 0 ? (double)ms * 1e-3 / b->iters : NAN;
}

/* ---- GEMM ------------------------------------------------------------------------------ */

typedef struct gemm_ctx {
    void *handle, *desc, *la, *lb, *ld, *a, *bm, *d, *ws;
    size_t ws_size;
} gemm_ctx;

static int gemm_run(bench *b, void *ctx)
{
    gemm_ctx *g = ctx;
    const float alpha = 1.0f, beta = 0.0f;
    return b->lt.matmul(g->handle, g->desc, &alpha, g->a, g->la, g->bm, g->lb, &beta, g->d, g->ld, g->d, g->ld, NULL,
                        g->ws, g->ws_size, NULL);
}

static void gemm_layouts_free(bench *b, gemm_ctx *g)
{
    void *const ls[3] = {g->la, g->lb, g->ld};
    for (int i = 0; i < 3; i++)
        if (ls[i])
            b->lt.layout_destroy(ls[i]);
    if (g->desc)
        b->lt.desc_destroy(g->desc);
    g->la = g->lb = g->ld = g->desc = NULL;
}

/* One shape in one input type; 0 if measured. */
static int gemm_point(bench *b, gemm_ctx *g, int type, gp_dtype dt, double m, double n, double k)
{
    const int op = CUBLAS_OP_T;
    int bad = b->lt.desc_create(&g->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F) ||
              b->lt.set_attr(g->desc, CUBLASLT_DESC_TRANSA, &op, sizeof op) ||
              b->lt.layout_create(&g->la, type, (uint64_t)k, (uint64_t)m, (int64_t)k) ||
              b->lt.layout_create(&g->lb, type, (uint64_t)k, (uint64_t)n, (int64_t)k) ||
              b->lt.layout_create(&g->ld, CUDA_R_16BF, (uint64_t)m, (uint64_t)n, (int64_t)m);
    double t = bad ? NAN : time_it(b, gemm_run, g, NULL);
    gemm_layouts_free(b, g);
    gp_bench_point *p = add_point(b, "gemm", 2.0 * m * n * k / t / 1e12);
    if (!p)
        return -1;
    p->dtype = dt, p->m = m, p->n = n, p->k = k;
    return 0;
}

/* The grid: square sizes, a decode-like skinny product and an MLP-like wide one. */
static const double gemm_shapes[][3] = {
    {1024, 1024, 1024}, {4096, 4096, 4096}, {8192, 8192, 8192}, {16, 8192, 8192}, {8192, 28672, 8192}};
#define N_SHAPES (sizeof gemm_shapes / sizeof gemm_shapes[0])
#define MAX_MK   (8192.0 * 8192.0)
#define MAX_KN   (8192.0 * 28672.0)

static void bench_gemm(bench *b)
{
    gemm_ctx g;
    memset(&g, 0, sizeof g);
    g.ws_size = 32u << 20;
    if (b->lt.create(&g.handle) || b->cu.malloc_(&g.a, (size_t)(MAX_MK * 2)) ||
        b->cu.malloc_(&g.bm, (size_t)(MAX_KN * 2)) || b->cu.malloc_(&g.d, (size_t)(MAX_KN * 2)) ||
        b->cu.malloc_(&g.ws, g.ws_size)) {
        b->step += 2 * (int)N_SHAPES;
    } else {
        static const struct {
            int type;
            gp_dtype dt;
        } types[] = {{CUDA_R_16BF, GP_DTYPE_BF16}, {CUDA_R_8F_E4M3, GP_DTYPE_FP8}};
        for (size_t t = 0; t < 2; t++)
            for (size_t i = 0; i < N_SHAPES; i++) {
                progress(b, types[t].dt == GP_DTYPE_BF16 ? "GEMM bf16" : "GEMM fp8");
                gemm_point(b, &g, types[t].type, types[t].dt, gemm_shapes[i][0], gemm_shapes[i][1], gemm_shapes[i][2]);
            }
    }
    void *const bufs[4] = {g.a, g.bm, g.d, g.ws};
    for (int i = 0; i < 4; i++)
        if (bufs[i])
            b->cu.free_(bufs[i]);
    if (g.handle)
        b->lt.destroy(g.handle);
}

/* ---- HBM --------------------------------------------------------------------------------- */

typedef struct copy_ctx {
    void *src, *dst;
    size_t bytes;
} copy_ctx;

static int copy_run(bench *b, void *ctx)
{
    copy_ctx *c = ctx;
    return b->cu.memcpy_async(c->dst, c->src, c->bytes, CUDA_MEMCPY_D2D, NULL);
}

static void bench_hbm(bench *b, size_t free_bytes)
{
    progress(b, "HBM copy");
    copy_ctx c = {NULL, NULL, (size_t)1 << 30};
    while (c.bytes > ((size_t)1 << 20) && c.bytes * 4 > free_bytes)
        c.bytes /= 2;
    if (!b->cu.malloc_(&c.src, c.bytes) && !b->cu.malloc_(&c.dst, c.bytes)) {
        gp_bench_point *p = add_point(b, "memcpy", 2.0 * (double)c.bytes / time_it(b, copy_run, &c, NULL) / 1e9);
        if (p)
            p->bytes = (double)c.bytes;
    }
    if (c.src)
        b->cu.free_(c.src);
    if (c.dst)
        b->cu.free_(c.dst);
}

/* ---- NCCL ------------------------------------------------------------------------------ */

typedef struct coll_ctx {
    int n, gather;
    void *comms[BENCH_MAX_GPUS], *streams[BENCH_MAX_GPUS], *send[BENCH_MAX_GPUS], *recv[BENCH_MAX_GPUS];
    size_t bytes; /* the whole buffer: all-reduce's, all-gather's output */
} coll_ctx;

static int coll_run(bench *b, void *ctx)
{
    coll_ctx *c = ctx;
    int bad = b->nc.group_start();
    for (int i = 0; i < c->n && !bad; i++)
        bad = c->gather ? b->nc.all_gather(c->send[i], c->recv[i], c->bytes / 4 / (size_t)c->n, NCCL_FLOAT32,
                                           c->comms[i], c->streams[i])
                        : b->nc.all_reduce(c->send[i], c->recv[i], c->bytes / 4, NCCL_FLOAT32, NCCL_SUM, c->comms[i],
                                           c->streams[i]);
    return bad | b->nc.group_end();
}

static int coll_setup(bench *b, coll_ctx *c, size_t max_bytes)
{
    int devs[BENCH_MAX_GPUS];
    for (int i = 0; i < c->n; i++)
        devs[i] = i;
    if (b->nc.init_all(c->comms, c->n, devs))
        return -1;
    for (int i = 0; i < c->n; i++)
        if (b->cu.set_device(i) || b->cu.stream_create(&c->streams[i]) || b->cu.malloc_(&c->send[i], max_bytes) ||
            b->cu.malloc_(&c->recv[i], max_bytes))
            return -1;
    return b->cu.set_device(0);
}

static void coll_teardown(bench *b, coll_ctx *c)
{
    for (int i = 0; i < c->n; i++) {
        b->cu.set_device(i);
        if (c->send[i])
            b->cu.free_(c->send[i]);
        if (c->recv[i])
            b->cu.free_(c->recv[i]);
        if (c->comms[i])
            b->nc.destroy(c->comms[i]);
    }
    b->cu.set_device(0);
}

static const double coll_sizes[] = {1 << 20, 16 << 20, 256 << 20, 1024.0 * (1 << 20)};
#define N_COLL (sizeof coll_sizes / sizeof coll_sizes[0])

static void bench_collectives(bench *b, int n, size_t free_bytes)
{
    coll_ctx c;
    memset(&c, 0, sizeof c);
    c.n = n;
    size_t max_bytes = (size_t)coll_sizes[N_COLL - 1];
    while (max_bytes > ((size_t)1 << 20) && max_bytes * 4 > free_bytes)
        max_bytes /= 2;
    if (coll_setup(b, &c, max_bytes) == 0) {
        for (int op = 0; op < 2; op++)
            for (size_t i = 0; i < N_COLL; i++) {
                progress(b, op ? "NCCL all-gather" : "NCCL all-reduce");
                c.gather = op;
                c.bytes = (size_t)coll_sizes[i] <= max_bytes ? (size_t)coll_sizes[i] : max_bytes;
                double t = time_it(b, coll_run, &c, c.streams[0]);
                for (int k = 0; k < n; k++)
                    b->cu.stream_sync(c.streams[k]);
                double factor = op ? (double)(n - 1) / n : 2.0 * (n - 1) / n;
                gp_bench_point *p = add_point(b, op ? "all_gather" : "all_reduce", (double)c.bytes / t * factor / 1e9);
                if (p)
                    p->bytes = (double)c.bytes;
            }
    }
    coll_teardown(b, &c);
}

/* ---- the profile ------------------------------------------------------------------------- */

static const gp_bench_point *find_gemm(const gp_bench_result *r, gp_dtype dt, double m, double n, double k)
{
    for (int i = 0; i < r->n_points; i++) {
        const gp_bench_point *p = &r->points[i];
        if (!strcmp(p->what, "gemm") && p->dtype == dt && p->m == m && p->n == n && p->k == k)
            return p;
    }
    return NULL;
}

static json_t *param_json(double measured_over_model, gp_cal_param p, int *clamped)
{
    double lo, hi;
    gpi_cal_param_range(p, GP_CAL_TRAIN, &lo, &hi);
    double v = fmin(fmax(measured_over_model, lo), hi);
    *clamped |= v != measured_over_model;
    return json_pack("{s:f s:f s:[f,f] s:b}", "value", v, "replaces", 1.0, "range", lo, hi, "at_bound",
                     v != measured_over_model);
}

/* A training entry for one precision: GEMM scale from the 8192^3 product over the model's rate
 * for it (the GPU's achievable rate in data/kernels.json at that shape x the fitted training
 * share), HBM scale from the copy over the model's achievable bandwidth. */
static json_t *train_entry(const gp_catalog *cat, const gp_gpu *g, const gp_bench_result *r, gp_dtype dt, int *clamped)
{
    const gp_bench_point *p = find_gemm(r, dt, 8192, 8192, 8192);
    double model = gpi_train_gemm_rate(cat, g, dt, 8192, 8192, 8192) / 1e12;
    if (!p || !(model > 0))
        return NULL;
    json_t *params = json_object();
    json_object_set_new(params, "gemm_scale", param_json(p->value / model, GP_CALP_GEMM, clamped));
    int runs = 1;
    for (int i = 0; i < r->n_points; i++)
        if (!strcmp(r->points[i].what, "memcpy") && gpi_train_hbm_rate(cat, g) > 0) {
            json_object_set_new(
                params, "hbm_scale",
                param_json(r->points[i].value * 1e9 / gpi_train_hbm_rate(cat, g), GP_CALP_HBM, clamped));
            runs++;
        }
    return json_pack("{s:s s:s s:i s:o s:s}", "use", "train", "dtype", gp_dtype_name(dt), "runs", runs, "params",
                     params, "note", "gpuplan probe --bench: GEMM 8192^3 and a device copy");
}

/* Bus bandwidth of all-reduce at its largest size over the model's at that size. */
static json_t *collective_json(const gp_catalog *cat, const gp_gpu *g, const gp_bench_result *r, int *clamped)
{
    const gp_bench_point *best = NULL;
    for (int i = 0; i < r->n_points; i++)
        if (!strcmp(r->points[i].what, "all_reduce") && (!best || r->points[i].bytes >= best->bytes))
            best = &r->points[i];
    gp_cluster c;
    gp_gpu raw = *g;
    raw.cal_intra_scale = raw.cal_inter_scale = 0;
    gpi_cluster_defaults(&c, cat, &raw, NULL);
    if (!best)
        return NULL;
    /* the model's bus bandwidth at that size: the link's measured curve (data/kernels.json) */
    double model = gpi_collective_busbw(c.intra_curve, GPI_COLL_ALL_REDUCE, best->bytes, c.intra_gbps) / 1e9;
    if (!(model > 0))
        model = c.intra_gbps * gpi_nccl_efficiency();
    double s = best->value / model, v = fmin(fmax(s, 0.05), 1.25);
    *clamped |= v != s;
    return json_pack("{s:f s:i s:s}", "intra_scale", v, "runs", 1, "note",
                     "gpuplan probe --bench: NCCL all-reduce bus bandwidth at the largest size");
}

static char *bench_profile(const gp_catalog *cat, const gp_gpu *g, const gp_bench_result *r)
{
    int clamped = 0;
    json_t *entries = json_array();
    const gp_dtype dts[2] = {GP_DTYPE_BF16, GP_DTYPE_FP8};
    for (int i = 0; i < 2; i++) {
        json_t *e =
            dts[i] == GP_DTYPE_FP8 && !(g->tflops[GP_DTYPE_FP8] > 0) ? NULL : train_entry(cat, g, r, dts[i], &clamped);
        if (e)
            json_array_append_new(entries, e);
    }
    json_t *gpu = json_pack("{s:s s:o}", "gpu", g->id, "entries", entries);
    json_t *co = r->devices > 1 ? collective_json(cat, g, r, &clamped) : NULL;
    if (co)
        json_object_set_new(gpu, "collective", co);
    char desc[256];
    snprintf(desc, sizeof desc, "microbenchmarks of %d x %s%s", r->devices, r->device_name,
             clamped ? " (a measured rate beyond its physical range was clamped)" : "");
    json_t *doc =
        json_pack("{s:i s:s s:s s:i s:[o]}", "gpuplan_profile", GP_PROFILE_VERSION, "created_by",
                  "gpuplan probe --bench " GP_VERSION_STRING, "description", desc, "runs", r->n_points, "gpus", gpu);
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
    json_decref(doc);
    return text;
}

/* ---- the run ------------------------------------------------------------------------------ */

static gp_status identify(bench *b, const gp_catalog *cat, const gp_gpu **g, size_t *free_bytes, gp_error *err)
{
    char *prop = calloc(1, BENCH_PROP_BYTES);
    size_t total = 0;
    int bad = !prop || b->cu.set_device(0) || b->cu.props(prop, 0) || b->cu.mem_info(free_bytes, &total);
    if (!bad) {
        prop[255] = '\0';
        gpi_strlcpy(b->out->device_name, prop, sizeof b->out->device_name);
    }
    free(prop);
    if (bad)
        return gpi_fail(err, GP_EIO, "the CUDA runtime could not describe GPU 0");
    gp_probe_gpu dev;
    memset(&dev, 0, sizeof dev);
    gpi_strlcpy(dev.name, b->out->device_name, sizeof dev.name);
    dev.memory_total_bytes = total;
    gp_status st = gp_probe_match(cat, &dev, g, err);
    if (!st)
        gpi_strlcpy(b->out->gpu_id, (*g)->id, sizeof b->out->gpu_id);
    return st;
}

static gp_status run_bench(bench *b, const gp_catalog *cat, gp_error *err)
{
    gp_status st = load_cuda(b, err);
    if (!st)
        st = load_lt(b, err);
    int n = 0;
    if (!st && (b->cu.device_count(&n) || n < 1))
        st = gpi_fail(err, GP_ENOTFOUND, "the CUDA runtime sees no GPU on this machine");
    const gp_gpu *g = NULL;
    size_t free_bytes = 0;
    if (!st)
        st = identify(b, cat, &g, &free_bytes, err);
    if (st)
        return st;
    int max = b->o->max_gpus > 0 && b->o->max_gpus < BENCH_MAX_GPUS ? b->o->max_gpus : BENCH_MAX_GPUS;
    b->out->devices = n < max ? n : max;
    int coll = b->out->devices > 1 && load_nccl(b);
    b->steps = 2 * (int)N_SHAPES + 1 + (coll ? 2 * (int)N_COLL : 0);
    if (b->cu.event_create(&b->ev0) || b->cu.event_create(&b->ev1))
        return gpi_fail(err, GP_EIO, "the CUDA runtime could not create timing events");
    bench_gemm(b);
    bench_hbm(b, free_bytes);
    if (coll)
        bench_collectives(b, b->out->devices, free_bytes);
    progress(b, "done");
    b->out->profile_json = bench_profile(cat, g, b->out);
    if (!b->out->profile_json)
        return gpi_fail(err, GP_EIO, "no benchmark gave a figure on %s: nothing to write", b->out->device_name);
    return GP_OK;
}

gp_status gp_bench_run(const gp_catalog *cat, const gp_bench_opts *o, gp_bench_result *out, gp_error *err)
{
    memset(out, 0, sizeof *out);
    gp_error_clear(err);
    if (!cat || !o)
        return gpi_fail(err, GP_EINVAL, "bench: catalog and options are required");
    bench b;
    memset(&b, 0, sizeof b);
    b.o = o;
    b.out = out;
    b.iters = o->iterations > 0 && o->iterations <= 1000 ? o->iterations : 10;
    gp_status st = run_bench(&b, cat, err);
    if (b.ev0)
        b.cu.event_destroy(b.ev0);
    if (b.ev1)
        b.cu.event_destroy(b.ev1);
    void *const libs[3] = {b.nc.lib, b.lt.lib, b.cu.lib};
    for (int i = 0; i < 3; i++)
        if (libs[i])
            dlclose(libs[i]);
    return st;
}

void gp_bench_result_free(gp_bench_result *r)
{
    if (!r)
        return;
    free(r->profile_json);
    r->profile_json = NULL;
}
