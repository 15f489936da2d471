/*
 * bench_search.c: speed of the training layout search (gpi_train_search) on the case of
 * issue 4: Llama-3.1-405B on 16,384 H100-SXM-80GB, sequence 8,192, global batch 2,048.
 * Prints layouts evaluated per second, valid layouts (memory estimated) per second, and
 * milliseconds per whole search, over repeated searches on one core.
 *
 * usage: bench_search [REPEATS] [MODEL] [GPUS]   (defaults: 20 llama-3.1-405b 16384)
 */
#include "internal.h" /* libgpuplan's private declarations (src/lib): the harness and benches test modules */

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    const char *model = argc > 2 ? argv[2] : "llama-3.1-405b";
    int gpus = argc > 3 ? atoi(argv[3]) : 16384;
    if (reps < 1 || gpus < 1) {
        fprintf(stderr, "usage: bench_search [REPEATS] [MODEL] [GPUS]\n");
        return 2;
    }
    gp_error err;
    gp_catalog *cat = NULL;
    gp_model m;
    const gp_gpu *gpu;
    if (gp_catalog_open(NULL, &cat, &err) != GP_OK || gp_catalog_find_model(cat, model, &m, &err) != GP_OK ||
        gp_catalog_find_gpu(cat, "H100-SXM-80GB", &gpu, &err) != GP_OK) {
        fprintf(stderr, "bench_search: %s\n", err.msg);
        gp_catalog_free(cat);
        return 1;
    }
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, gpu, NULL);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = 8192;
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = gpus;
    o.fixed.global_batch = 2048;
    o.train_tokens = 15.6e12;
    static gp_train_search_result r; /* large: keep it off the stack */
    double best = 1e30, total = 0;
    for (int i = 0; i < reps; i++) {
        double t0 = now_s();
        if (gpi_train_search(&m, gpu, &c, &w, &o, &r, &err) != GP_OK) {
            fprintf(stderr, "bench_search: %s\n", err.msg);
            gp_catalog_free(cat);
            return 1;
        }
        double dt = now_s() - t0;
        total += dt;
        if (dt < best)
            best = dt;
    }
    printf("search: %s on %d x %s, seq 8192, global batch 2048\n", m.id, gpus, gpu->id);
    printf("layouts per search: %lld evaluated, %lld valid, %lld fit memory\n", (long long)r.evaluated,
           (long long)r.valid, (long long)r.fitting);
    printf("repeats: %d; ms per search: best %.3f, mean %.3f\n", reps, best * 1e3, total / reps * 1e3);
    printf("layouts evaluated per second: %.3g (valid: %.3g)\n", (double)r.evaluated / best, (double)r.valid / best);
    if (r.n_top > 0)
        printf("best: TP %d PP %d DP %d CP %d mb %lld ZeRO-%d recompute %s v %d: %.3f s/step, MFU %.1f%%\n",
               r.top[0].layout.tp, r.top[0].layout.pp, r.top[0].layout.dp, r.top[0].layout.cp,
               (long long)r.top[0].layout.micro_batch, r.top[0].layout.zero,
               gp_recompute_name(r.top[0].layout.recompute), r.top[0].layout.virtual_stages, r.top[0].perf.step_time_s,
               100.0 * r.top[0].perf.mfu);
    gp_catalog_free(cat);
    return 0;
}
