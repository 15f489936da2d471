/*
 * fake_cuda.c: one stand-in library for the CUDA runtime, cuBLASLt and NCCL, exporting the
 * symbols `gpuplan probe --bench` loads (src/lib/hw/bench.c), so the bench is tested where no
 * GPU exists. Device memory is never touched: cudaMalloc hands out small host blocks. Time is
 * a fake clock that each queued operation advances by a fixed rate, so the figures the bench
 * reports are known in advance:
 *   GEMM  2 m n k / 700 TFLOP/s (bf16) or / 1300 TFLOP/s (fp8 E4M3)
 *   copy  bytes / 1.5 TB/s        (the bench reports read + write: 3,000 GB/s)
 *   NCCL  all-reduce bytes x 2(n-1)/n / 300 GB/s, all-gather bytes x (n-1)/n / 300 GB/s
 *         (the bench reports bus bandwidth: 300 GB/s)
 * Environment: FAKE_CUDA_DEVICES=N (default 2), FAKE_CUDA_NAME (default
 * "NVIDIA H100 80GB HBM3"), FAKE_CUDA_NO_FP8=1 (fp8 matmuls fail, as on an A100).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

static double fake_clock; /* seconds */
static int fake_ndev;     /* devices in the last ncclCommInitAll */
static size_t nccl_bytes; /* bytes queued inside the current group */
static int nccl_gather;

typedef struct layout {
    uint64_t rows, cols;
    int type;
} layout;

EXPORT int cudaGetDeviceCount(int *n);
EXPORT int cudaSetDevice(int d);
EXPORT int cudaGetDeviceProperties_v2(void *prop, int d);
EXPORT int cudaMemGetInfo(size_t *free_b, size_t *total);
EXPORT int cudaMalloc(void **p, size_t n);
EXPORT int cudaFree(void *p);
EXPORT int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);
EXPORT int cudaEventCreate(void **e);
EXPORT int cudaEventRecord(void *e, void *stream);
EXPORT int cudaEventSynchronize(void *e);
EXPORT int cudaEventElapsedTime(float *ms, void *a, void *b);
EXPORT int cudaEventDestroy(void *e);
EXPORT int cudaStreamCreate(void **s);
EXPORT int cudaStreamSynchronize(void *s);
EXPORT const char *cudaGetErrorString(int e);
EXPORT int cublasLtCreate(void **h);
EXPORT int cublasLtDestroy(void *h);
EXPORT int cublasLtMatmulDescCreate(void **d, int compute, int scale);
EXPORT int cublasLtMatmulDescDestroy(void *d);
EXPORT int cublasLtMatmulDescSetAttribute(void *d, int attr, const void *buf, size_t n);
EXPORT int cublasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld);
EXPORT int cublasLtMatrixLayoutDestroy(void *l);
EXPORT int cublasLtMatmul(void *h, void *desc, const void *alpha, const void *A, void *Ad, const void *B, void *Bd,
                          const void *beta, const void *C, void *Cd, void *D, void *Dd, const void *algo, void *ws,
                          size_t wss, void *stream);
EXPORT int ncclCommInitAll(void **comms, int n, const int *devs);
EXPORT int ncclCommDestroy(void *c);
EXPORT int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, void *comm, void *stream);
EXPORT int ncclAllGather(const void *s, void *r, size_t count, int type, void *comm, void *stream);
EXPORT int ncclGroupStart(void);
EXPORT int ncclGroupEnd(void);

static int ndev(void)
{
    const char *s = getenv("FAKE_CUDA_DEVICES");
    return s ? atoi(s) : 2;
}

int cudaGetDeviceCount(int *n)
{
    *n = ndev();
    return 0;
}
int cudaSetDevice(int d)
{
    return d >= 0 && d < ndev() ? 0 : 101;
}
int cudaGetDeviceProperties_v2(void *prop, int d)
{
    const char *name = getenv("FAKE_CUDA_NAME");
    (void)d;
    snprintf((char *)prop, 256, "%s", name ? name : "NVIDIA H100 80GB HBM3");
    return 0;
}
int cudaMemGetInfo(size_t *free_b, size_t *total)
{
    *total = 85520809984u;
    *free_b = 84000000000u;
    return 0;
}
int cudaMalloc(void **p, size_t n)
{
    (void)n;
    *p = malloc(16);
    return *p ? 0 : 2;
}
int cudaFree(void *p)
{
    free(p);
    return 0;
}
int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
    (void)dst, (void)src, (void)kind, (void)stream;
    fake_clock += (double)n / 1.5e12;
    return 0;
}
int cudaEventCreate(void **e)
{
    *e = malloc(sizeof(double));
    return *e ? 0 : 2;
}
int cudaEventRecord(void *e, void *stream)
{
    (void)stream;
    *(double *)e = fake_clock;
    return 0;
}
int cudaEventSynchronize(void *e)
{
    (void)e;
    return 0;
}
int cudaEventElapsedTime(float *ms, void *a, void *b)
{
    *ms = (float)((*(double *)b - *(double *)a) * 1e3);
    return 0;
}
int cudaEventDestroy(void *e)
{
    free(e);
    return 0;
}
int cudaStreamCreate(void **s)
{
    static char st[8];
    *s = st;
    return 0;
}
int cudaStreamSynchronize(void *s)
{
    (void)s;
    return 0;
}
const char *cudaGetErrorString(int e)
{
    (void)e;
    return "fake error";
}

int cublasLtCreate(void **h)
{
    *h = malloc(1);
    return 0;
}
int cublasLtDestroy(void *h)
{
    free(h);
    return 0;
}
int cublasLtMatmulDescCreate(void **d, int compute, int scale)
{
    (void)compute, (void)scale;
    *d = malloc(1);
    return 0;
}
int cublasLtMatmulDescDestroy(void *d)
{
    free(d);
    return 0;
}
int cublasLtMatmulDescSetAttribute(void *d, int attr, const void *buf, size_t n)
{
    (void)d, (void)attr, (void)buf, (void)n;
    return 0;
}
int cublasLtMatrixLayoutCreate(void **l, int type, uint64_t rows, uint64_t cols, int64_t ld)
{
    (void)ld;
    layout *x = malloc(sizeof *x);
    if (!x)
        return 3;
    x->rows = rows, x->cols = cols, x->type = type;
    *l = x;
    return 0;
}
int cublasLtMatrixLayoutDestroy(void *l)
{
    free(l);
    return 0;
}
int cublasLtMatmul(void *h, void *desc, const void *alpha, const void *A, void *Ad, const void *B, void *Bd,
                   const void *beta, const void *C, void *Cd, void *D, void *Dd, const void *algo, void *ws, size_t wss,
                   void *stream)
{
    (void)h, (void)desc, (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)Cd, (void)D, (void)algo, (void)ws;
    (void)wss, (void)stream;
    const layout *a = Ad, *b = Bd, *d = Dd; /* A: k x m (transposed), B: k x n, D: m x n */
    int fp8 = a->type == 28;
    if (fp8 && getenv("FAKE_CUDA_NO_FP8"))
        return 15; /* CUBLAS_STATUS_NOT_SUPPORTED */
    fake_clock += 2.0 * (double)d->rows * (double)d->cols * (double)b->rows / (fp8 ? 1300e12 : 700e12);
    return 0;
}

int ncclCommInitAll(void **comms, int n, const int *devs)
{
    (void)devs;
    fake_ndev = n;
    for (int i = 0; i < n; i++)
        comms[i] = malloc(1);
    return 0;
}
int ncclCommDestroy(void *c)
{
    free(c);
    return 0;
}
int ncclAllReduce(const void *s, void *r, size_t count, int type, int op, void *comm, void *stream)
{
    (void)s, (void)r, (void)type, (void)op, (void)comm, (void)stream;
    nccl_bytes = count * 4, nccl_gather = 0;
    return 0;
}
int ncclAllGather(const void *s, void *r, size_t count, int type, void *comm, void *stream)
{
    (void)s, (void)r, (void)type, (void)comm, (void)stream;
    nccl_bytes = count * 4 * (size_t)fake_ndev, nccl_gather = 1;
    return 0;
}
int ncclGroupStart(void)
{
    nccl_bytes = 0;
    return 0;
}
int ncclGroupEnd(void)
{
    double n = fake_ndev;
    fake_clock += (double)nccl_bytes * (nccl_gather ? (n - 1) / n : 2 * (n - 1) / n) / 300e9;
    return 0;
}
