/*
 * bench_sim.c: speed of the serving simulator. Simulates 1,000,000 requests of Llama-3.1-8B
 * on one H100 (vLLM accounting, 256 running sequences at most): a closed loop of 256 users
 * and a Poisson load, 512-token prompts and 128-token outputs (exponential), and prints the
 * requests simulated per second of wall time. Usage: bench_sim [requests]
 */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 1000000;
    gp_catalog *cat;
    gp_error err;
    gp_model m;
    const gp_gpu *g;
    if (gp_catalog_open(NULL, &cat, &err) || gp_catalog_find_model(cat, "llama-3.1-8b", &m, &err) ||
        gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.engine = GP_ENGINE_VLLM;
    gp_layout l;
    gpi_layout_defaults(&l);
    gpi_sched_config sc;
    gpi_step_model sm;
    if (gpi_serve_sched_config(&m, g, &w, &l, 4096, &sc, &err) ||
        gpi_step_model_init(&m, g, NULL, &w, &l, NULL, &sm, &err)) {
        fprintf(stderr, "bench_sim: %s\n", err.msg);
        return 1;
    }
    gpi_step_model_use_rates(&sm, cat, g, NULL); /* as the capacity search runs it */
    for (int k = 0; k < 2; k++) {
        gp_traffic t;
        memset(&t, 0, sizeof t);
        t.requests = n;
        t.seed = 1;
        gp_work wk; /* a benchmark asks for the largest budget (docs/reliability.md) */
        gpi_work_init(&wk, 1);
        t.work = &wk;
        t.prompt.dist = t.output.dist = GP_LENGTH_EXPONENTIAL;
        t.prompt.mean = 512;
        t.prompt.max = 2048;
        t.output.mean = 128;
        t.output.max = 1024;
        if (k == 0) {
            t.arrival = GP_ARRIVAL_CLOSED_LOOP;
            t.users = 256;
        } else {
            t.arrival = GP_ARRIVAL_POISSON;
            t.rate = 40;
        }
        gp_sim_result r;
        double t0 = now_s();
        if (gpi_simulate(&sm, &sc, &t, NULL, &r, &err)) {
            fprintf(stderr, "bench_sim: %s\n", err.msg);
            return 1;
        }
        double dt = now_s() - t0;
        printf("%-22s %lld requests, %lld steps in %.2f s: %.0f requests/s simulated (%.0f simulated s; "
               "p99 TTFT %.3f s, %.0f output tok/s)\n",
               k == 0 ? "closed loop, 256 users" : "Poisson, 40 req/s", (long long)n, (long long)r.steps, dt,
               (double)n / dt, r.duration_s, r.ttft.p99, r.output_tokens_per_s);
    }
    gp_catalog_free(cat);
    return 0;
}
