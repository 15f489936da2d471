/* libFuzzer target: the serving trace reader (CSV or JSONL of arrival, prompt, output tokens),
 * then the simulator on what it accepted (a small engine and a tight work budget, so every
 * accepted trace is either simulated or refused by the budget, in bounded time).
 * The reader takes a path, so each input is written to a private temporary file first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/gp_fuzz_trace_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    if (write(fd, data, size) != (ssize_t)size) {
        close(fd);
        unlink(path);
        return 0;
    }
    close(fd);
    gp_trace_request *t = NULL;
    size_t n = 0;
    gp_error err;
    gp_status st = gpi_trace_read(path, &t, &n, &err);
    unlink(path);
    if (st != GP_OK && !err.msg[0])
        abort(); /* every failure explains itself */
    if (st == GP_OK && n > 0 && !t)
        abort();
    if (st == GP_OK) {
        gp_model m;
        gpi_model_init(&m);
        m.layers = 2;
        m.hidden = 64;
        m.heads = 4;
        m.kv_heads = 2;
        m.head_dim = 16;
        m.ffn = 128;
        m.vocab = 256;
        gp_gpu g;
        memset(&g, 0, sizeof g);
        g.memory_bytes = (uint64_t)80 << 30;
        g.hbm_bandwidth_gbps = 3350;
        g.tflops[GP_DTYPE_BF16] = 989;
        g.scale_up_domain = 8;
        gp_workload w;
        gpi_workload_defaults(&w, GP_TASK_INFER);
        gp_layout l;
        gpi_layout_defaults(&l);
        gpi_step_model sm;
        gpi_sched_config sc;
        memset(&sc, 0, sizeof sc);
        sc.max_num_seqs = 64;
        sc.max_num_batched_tokens = 2048;
        sc.kv_blocks = 4096;
        sc.block_size = 16;
        gp_work wk;
        gpi_work_init(&wk, 0);
        wk.limit = 2e5;
        gp_traffic tr;
        memset(&tr, 0, sizeof tr);
        tr.arrival = GP_ARRIVAL_TRACE;
        tr.trace = t;
        tr.trace_len = n;
        tr.work = &wk;
        gp_sim_result r;
        if (gpi_step_model_init(&m, &g, NULL, &w, &l, NULL, &sm, NULL) == GP_OK) {
            gp_error e2;
            gp_status s2 = gpi_simulate(&sm, &sc, &tr, NULL, &r, &e2);
            if (s2 != GP_OK && !e2.msg[0])
                abort();
            if (s2 == GP_OK && (!isfinite(r.ttft.max) || r.ttft.max < 0 || r.requests + r.rejected > (int64_t)n))
                abort();
        }
    }
    gpi_trace_free(t);
    return 0;
}
