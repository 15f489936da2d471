/*
 * test_limits.c: every numeric input of the memory, performance and serving entry points at
 * its limits (docs/reliability.md, "Limits"). Properties, not figures: every result is finite
 * and non-negative, an answer past what the arithmetic holds is a clear GP_ELIMIT naming the
 * field, and results are monotonic where they must be (more context never means less KV
 * memory; once a value is too large, every larger value is too). Also the regression tests of
 * the arithmetic rows of issue 17 (rows 3, 4, 5) and the work budget.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static gp_catalog *cat;
static const gp_gpu *h100;

static int setup(void **state)
{
    (void)state;
    if (gp_catalog_open(NULL, &cat, NULL) != GP_OK)
        return -1;
    return gp_catalog_find_gpu(cat, "H100-SXM-80GB", &h100, NULL) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

static void model(const char *id, gp_model *m)
{
    assert_int_equal(gp_catalog_find_model(cat, id, m, NULL), GP_OK);
}

/* ---- the helpers ------------------------------------------------------------------------ */

static void test_checked_helpers(void **state)
{
    (void)state;
    uint64_t u = 7;
    int64_t i = 7;
    assert_true(gpi_mul_u64_checked((uint64_t)1 << 32, (uint64_t)1 << 31, &u));
    assert_true(u == (uint64_t)1 << 63);
    assert_false(gpi_mul_u64_checked((uint64_t)1 << 32, (uint64_t)1 << 32, &u));
    assert_false(gpi_add_u64_checked(UINT64_MAX, 1, &u));
    assert_false(gpi_mul_i64_checked(INT64_MAX / 2 + 1, 2, &i));
    assert_false(gpi_mul_i64_checked(INT64_MIN, -1, &i));
    assert_true(gpi_mul_i64_checked(-3, 5, &i) && i == -15);
    assert_false(gpi_add_i64_checked(INT64_MAX, 1, &i));
    assert_false(gpi_add_i64_checked(INT64_MIN, -1, &i));
    /* double -> integer: NaN, infinities, negatives and 2^64 are refused, not cast */
    assert_false(gpi_u64_from_double(NAN, UINT64_MAX, &u));
    assert_false(gpi_u64_from_double(INFINITY, UINT64_MAX, &u));
    assert_false(gpi_u64_from_double(-1.0, UINT64_MAX, &u));
    assert_false(gpi_u64_from_double(18446744073709551616.0, UINT64_MAX, &u));
    assert_false(gpi_u64_from_double(1e19, (uint64_t)1 << 60, &u));
    assert_true(gpi_u64_from_double(1e18, (uint64_t)1 << 60, &u) && u == 1000000000000000000u);
    assert_false(gpi_i64_from_double(1e19, 1, INT64_MAX, &i));
    assert_false(gpi_i64_from_double(9223372036854775808.0, 1, INT64_MAX, &i));
    assert_true(gpi_u64_sat(1e30) == UINT64_MAX && gpi_u64_sat(NAN) == 0 && gpi_u64_sat(-5) == 0);
    assert_true(gpi_i64_sat(1e30) == INT64_MAX && gpi_i64_sat(-1e30) == INT64_MIN);
    char b[32];
    gpi_format_bytes(b, sizeof b, 200e6); /* issue 17 row 10: a 200 MB file */
    assert_string_equal(b, "200 MB");
    gpi_format_bytes(b, sizeof b, 16777217.0);
    assert_string_equal(b, "16.8 MB");
    gpi_format_bytes(b, sizeof b, 512.0);
    assert_string_equal(b, "512 bytes");
}

/* ---- row 3: KV cache past 2^64 bytes ----------------------------------------------------- */

/*
 * Llama-3.1-8B keeps 32 layers x 2 (K, V) x 8 KV heads x 128 x 2 B = 131,072 = 2^17 bytes per
 * token. 2^32 tokens x 65,536 sequences: 2^17 x 2^48 = 2^65 bytes, past 2^64 (it wrapped to
 * 0 and 'fit' said one GPU was enough). 2^32 tokens x 1 sequence: exactly 2^49 bytes.
 */
static void test_fit_kv_overflow(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = (int64_t)1 << 32;
    w.batch = 65536;
    gp_fit_result *r = calloc(1, sizeof *r);
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, r, &err), GP_ELIMIT);
    assert_string_equal(err.field, "batch");
    assert_non_null(strstr(err.msg, "36.9 EB")); /* 2^65 = 3.69e19 bytes */
    w.batch = 1;
    gp_memory mem;
    gp_layout l;
    gpi_layout_defaults(&l);
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_true(mem.kv_cache == (uint64_t)1 << 49);
    assert_false(mem.fits);
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, r, NULL), GP_OK);
    assert_false(r->single_gpu_sufficient);
    free(r);
}

/*
 * A 1000-layer inline config (issue 17 row 3): 1000 x 2 x 512 KV heads x 128 x 2 B =
 * 262,144,000 bytes per token; 131,072 tokens = 34,359,738,368,000 bytes (exact in double),
 * and 2^20 such sequences (3.6e19 bytes) pass 2^64: refused, never 0 tokens.
 */
static void test_thousand_layers(void **state)
{
    (void)state;
    static const char cfg[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 32000, \"hidden_size\": 65536,\n"
        " \"num_hidden_layers\": 1000, \"num_attention_heads\": 512, \"num_key_value_heads\": 512,\n"
        " \"intermediate_size\": 4096, \"max_position_embeddings\": 131072}";
    gp_model m;
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "config.json", &m, NULL), GP_OK);
    assert_true(gp_model_kv_bytes_per_token(&m, GP_DTYPE_BF16) == 262144000u);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 131072;
    w.engine = GP_ENGINE_VLLM;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_true(mem.kv_cache == 34359738368000u);
    assert_false(mem.fits);
    assert_int_equal(mem.kv_tokens, 0); /* the weights alone overrun the budget: no pool */
    w.batch = 1 << 20;
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_ELIMIT);
    assert_string_equal(err.field, "batch");
}

/* Training at 2^32 tokens without flash attention: the s^2 scores (4 x 32 heads x 2^64 bytes)
 * are past 2^60: an error naming --seq, not activations cast to a wrapped value. */
static void test_train_seq_overflow(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.seq = (int64_t)1 << 32;
    w.flash_attention = 0;
    gp_layout l;
    gpi_layout_defaults(&l);
    gp_memory mem;
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_ELIMIT);
    assert_string_equal(err.field, "seq");
    assert_non_null(strstr(err.msg, "flash attention"));
    w.flash_attention = 1; /* linear in s: 2^32 tokens are about 10^15 bytes, counted */
    assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL), GP_OK);
    assert_true(mem.activations > (uint64_t)1 << 45 && !mem.fits);
}

/* Inputs out of range are refused with the field named. */
static void test_ranges_named(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gp_layout l;
    gp_memory mem;
    gp_error err;
    struct {
        const char *field;
        int what;
        int64_t v;
    } cases[] = {
        {"context", 0, ((int64_t)1 << 32) + 1},
        {"batch", 1, 0},
        {"seq", 2, -5},
        {"max_num_seqs", 3, ((int64_t)1 << 33)},
        {"block_size", 4, -1},
        {"optimizer", 5, 99},
        {"tp", 6, 1 << 20},
        {"layout", 7, 1 << 16},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gpi_workload_defaults(&w, GP_TASK_INFER);
        gpi_layout_defaults(&l);
        switch (cases[i].what) {
        case 0: w.context = cases[i].v; break;
        case 1: w.batch = cases[i].v; break;
        case 2:
            w.task = GP_TASK_TRAIN;
            w.seq = cases[i].v;
            break;
        case 3: w.max_num_seqs = cases[i].v; break;
        case 4: w.block_size = cases[i].v; break;
        case 5: w.optimizer = (gp_optimizer)cases[i].v; break;
        case 6: l.tp = (int)cases[i].v; break;
        default:
            l.dp = (int)cases[i].v;
            l.cp = 1024;
            break; /* 2^26 GPUs */
        }
        gp_error_clear(&err);
        assert_int_equal(gpi_memory_estimate(&m, h100, &w, &l, &mem, &err), GP_EINVAL);
        assert_string_equal(err.field, cases[i].field);
    }
    gpi_layout_defaults(&l);
    l.tp = l.pp = l.dp = l.cp = 65536;
    assert_true(gp_layout_gpus(&l) == 2147483647); /* 2^64 saturates, no wrap */
}

/* ---- the sweep ------------------------------------------------------------------------- */

static void check_memory(const gp_memory *m)
{
    const uint64_t lim = GPI_MAX_BYTES;
    assert_true(m->weights <= lim && m->kv_cache <= lim && m->activations <= lim && m->gradients <= lim &&
                m->optimizer <= lim && m->overhead <= lim && m->per_gpu <= 8 * lim);
    assert_true(m->kv_tokens >= 0 && m->kv_blocks >= 0 && isfinite(m->max_concurrency) && m->max_concurrency >= 0);
    assert_true(m->headroom == (int64_t)m->capacity - (int64_t)m->per_gpu);
}

/* Powers of two from 1 to 2^32 (and 2^32 itself): context, batch, seq. */
#define SWEEP_MAX 33

static const char *const sweep_models[] = {"llama-3.1-8b", "llama-3.1-405b", "deepseek-v3",
                                           "mixtral-8x7b", "gemma-2-27b",    "gpt-oss-120b"};

static void sweep_infer(const gp_model *m, gp_engine e)
{
    gp_layout l;
    gpi_layout_defaults(&l);
    for (int bi = 0; bi < SWEEP_MAX; bi += 4) {
        uint64_t prev_kv = 0;
        int limited = 0;
        for (int ci = 0; ci < SWEEP_MAX; ci++) {
            gp_workload w;
            gpi_workload_defaults(&w, GP_TASK_INFER);
            w.engine = e;
            w.context = (int64_t)1 << ci;
            w.batch = (int64_t)1 << bi;
            gp_memory mem;
            gp_status st = gpi_memory_estimate(m, h100, &w, &l, &mem, NULL);
            assert_true(st == GP_OK || st == GP_ELIMIT);
            if (st == GP_ELIMIT) {
                limited = 1;
                continue;
            }
            assert_false(limited); /* once too large, every larger context is too */
            check_memory(&mem);
            assert_true(mem.kv_cache >= prev_kv); /* more context never means less KV memory */
            prev_kv = mem.kv_cache;
        }
    }
}

static void sweep_train(const gp_model *m, gp_task task)
{
    for (int flash = 0; flash <= 1; flash++) {
        for (int rc = 0; rc < GP_RECOMPUTE_COUNT; rc++) {
            gp_layout l;
            gpi_layout_defaults(&l);
            l.recompute = (gp_recompute)rc;
            uint64_t prev = 0;
            int limited = 0;
            for (int si = 0; si < SWEEP_MAX; si += 2) {
                gp_workload w;
                gpi_workload_defaults(&w, task);
                w.seq = (int64_t)1 << si;
                w.flash_attention = flash;
                gp_memory mem;
                gp_status st = gpi_memory_estimate(m, h100, &w, &l, &mem, NULL);
                assert_true(st == GP_OK || st == GP_ELIMIT);
                if (st == GP_ELIMIT) {
                    limited = 1;
                    continue;
                }
                assert_false(limited);
                check_memory(&mem);
                assert_true(mem.activations >= prev); /* a longer sequence never needs less */
                prev = mem.activations;
                gp_cluster c;
                gpi_cluster_defaults(&c, cat, h100, NULL);
                gp_train_perf p;
                if (gpi_train_perf_estimate(m, h100, &c, &w, &l, 1e12, &p, NULL) == GP_OK)
                    assert_true(isfinite(p.step_time_s) && p.step_time_s >= 0 && isfinite(p.mfu) && p.mfu >= 0 &&
                                isfinite(p.time_to_train_s) && p.time_to_train_s >= 0);
            }
        }
    }
}

static void sweep_model_quantities(const gp_model *m)
{
    double prev_flops = 0;
    uint64_t prev_kv = 0;
    for (int ci = 0; ci < 63; ci++) {
        int64_t ctx = (int64_t)1 << ci;
        double f = gp_model_forward_flops_per_token(m, ctx);
        assert_true(isfinite(f) && f > 0 && f >= prev_flops);
        prev_flops = f;
        uint64_t kv = gp_model_kv_bytes(m, GP_DTYPE_BF16, ctx); /* saturates, never wraps */
        assert_true(kv >= prev_kv);
        prev_kv = kv;
    }
    assert_true(gp_model_kv_bytes(m, GP_DTYPE_BF16, INT64_MAX) >= prev_kv);
}

static void test_sweep(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof sweep_models / sizeof sweep_models[0]; i++) {
        gp_model m;
        model(sweep_models[i], &m);
        sweep_model_quantities(&m);
        sweep_infer(&m, GP_ENGINE_NONE);
        sweep_infer(&m, GP_ENGINE_VLLM);
        sweep_infer(&m, GP_ENGINE_TRTLLM);
        sweep_train(&m, GP_TASK_TRAIN);
        sweep_train(&m, GP_TASK_QLORA);
    }
}

/* Architecture dimensions at their limit (2^40 each): refused or counted, never wrapped. */
static void test_sweep_architecture(void **state)
{
    (void)state;
    gp_model base;
    model("llama-3.1-8b", &base);
    int64_t *fields[] = {&base.layers,      &base.hidden,        &base.heads, &base.kv_heads,
                         &base.head_dim,    &base.ffn,           &base.vocab, &base.shared_expert_ffn,
                         &base.learned_pos, &base.sliding_window};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        for (int k = 0; k <= 41; k += 5) {
            gp_model m = base;
            *(int64_t *)((char *)&m + ((char *)fields[i] - (char *)&base)) = (int64_t)1 << k;
            gp_param_breakdown p;
            if (gp_model_params(&m, &p, NULL) != GP_OK)
                continue;
            assert_true(p.total > 0 && p.active > 0 && p.active <= p.total && p.total <= (int64_t)2e15);
            gp_workload w;
            gpi_workload_defaults(&w, GP_TASK_INFER);
            gp_layout l;
            gpi_layout_defaults(&l);
            gp_memory mem;
            gp_status st = gpi_memory_estimate(&m, h100, &w, &l, &mem, NULL);
            assert_true(st == GP_OK || st == GP_ELIMIT || st == GP_EINVAL);
            if (st == GP_OK)
                check_memory(&mem);
            double f = gp_model_forward_flops_per_token(&m, 1 << 20);
            assert_true(isfinite(f) && f >= 0);
        }
    }
}

/* Every other numeric input of gpi_memory_estimate, powers of two to past its limit: an answer
 * within 2^60 bytes per figure, or a named refusal. KV bytes never fall as max_num_seqs or the
 * micro-batch grow. */
static void test_sweep_workload_layout(void **state)
{
    (void)state;
    gp_model m;
    model("mixtral-8x7b", &m); /* MoE: ep applies */
    for (int what = 0; what < 12; what++) {
        uint64_t prev_act = 0;
        for (int k = 0; k <= 40; k += 2) {
            int64_t v = (int64_t)1 << k;
            gp_workload w;
            gpi_workload_defaults(&w, what >= 6 ? GP_TASK_TRAIN : GP_TASK_INFER);
            w.engine = GP_ENGINE_VLLM;
            gp_layout l;
            gpi_layout_defaults(&l);
            switch (what) {
            case 0: w.block_size = v; break;
            case 1: w.max_num_seqs = v; break;
            case 2: w.max_num_batched_tokens = v; break;
            case 3: w.gpu_memory_utilization = 1.0 / (double)v; break;
            case 4: l.tp = (int)(v < (1 << 30) ? v : 1 << 30); break;
            case 5:
                l.ep = (int)(v < (1 << 30) ? v : 1 << 30);
                l.dp = 8;
                break;
            case 6: l.micro_batch = v; break;
            case 7: l.global_batch = v; break;
            case 8:
                l.pp = (int)(v < 32 ? v : 32);
                l.virtual_stages = (int)(v < (1 << 30) ? v : 1 << 30);
                break;
            case 9:
                w.task = GP_TASK_LORA;
                w.lora_rank = v;
                break;
            case 10:
                l.dp = (int)(v < (1 << 30) ? v : 1 << 30);
                l.zero = 3;
                break;
            default:
                l.cp = (int)(v < (1 << 30) ? v : 1 << 30);
                w.seq = (int64_t)1 << 32;
                break;
            }
            gp_memory mem;
            gp_error err;
            gp_error_clear(&err);
            gp_status st = gpi_memory_estimate(&m, h100, &w, &l, &mem, &err);
            assert_true(st == GP_OK || st == GP_EINVAL || st == GP_ELIMIT);
            if (st != GP_OK) {
                assert_true(err.msg[0] != '\0' && err.field[0] != '\0');
                continue;
            }
            check_memory(&mem);
            if (what == 1 || what == 6) { /* more sequences profiled / per micro-batch */
                assert_true(mem.activations >= prev_act);
                prev_act = mem.activations;
            }
        }
    }
}

/* ---- rows 4 and 5: the simulator's inputs and its budget -------------------------------- */

static void step_model(gpi_step_model *sm)
{
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    assert_int_equal(gpi_step_model_init(&m, h100, NULL, &w, &l, NULL, sm, NULL), GP_OK);
}

static gpi_sched_config sched(void)
{
    gpi_sched_config sc;
    memset(&sc, 0, sizeof sc);
    sc.max_num_seqs = 256;
    sc.max_num_batched_tokens = 8192;
    sc.kv_blocks = 100000;
    sc.block_size = 16;
    return sc;
}

static void test_step_time_limits(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm);
    double prev = 0;
    for (int k = 0; k < 64; k += 3) {
        gpi_batch_shape b;
        gpi_batch_decode(NULL, &b, ldexp(1, k), 1e9);
        double t = gpi_step_time(&sm, &b, NULL);
        assert_true(isfinite(t) && t >= prev);
        prev = t;
    }
}

static char *write_temp(const char *text)
{
    char *path = strdup("/tmp/gp_limits_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* Issue 17 row 4: a trace token count of 1e19 (undefined behaviour when cast), INT64_MAX
 * tokens (a sum that overflowed), and 2^32 + 1 are refused with the line. */
static void test_trace_tokens(void **state)
{
    (void)state;
    const char *bad[] = {"{\"arrival_s\": 0, \"prompt_tokens\": 1e19, \"output_tokens\": 1}\n",
                         "0,9223372036854775807,1\n", "0,100,4294967297\n",
                         "{\"arrival_s\": 1e300, \"prompt_tokens\": 1, \"output_tokens\": 1}\n",
                         "{\"arrival_s\": 0, \"prompt_tokens\": 1.5, \"output_tokens\": 1}\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *p = write_temp(bad[i]);
        gp_trace_request *t = NULL;
        size_t n = 0;
        gp_error err;
        gp_error_clear(&err);
        assert_int_equal(gpi_trace_read(p, &t, &n, &err), GP_EINVAL);
        assert_int_equal(err.line, 1);
        assert_null(t);
        unlink(p);
        free(p);
    }
    /* through the API as well: the simulator checks a caller's trace */
    gpi_step_model sm;
    step_model(&sm);
    gpi_sched_config sc = sched();
    gp_trace_request tr[2] = {{0, 100, 10}, {1, INT64_MAX, 1}};
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_TRACE;
    t.trace = tr;
    t.trace_len = 2;
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_EINVAL);
}

/* Issue 17 row 5: --users 2^24, --requests 2^30 --rate inf: refused before allocating (these
 * took 3.7-5.9 GB and minutes). 2^24 users x 3 requests each x (1 prefill step + 200 output
 * steps) = 1.0e10 units, over the default 4e8; 2^30 requests x 201 = 2.2e11. */
static void test_sim_budget(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm);
    gpi_sched_config sc = sched();
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_CLOSED_LOOP;
    t.users = (int64_t)1 << 24;
    t.requests = 3 * t.users;
    t.prompt.mean = 1000;
    t.output.mean = 200;
    gp_sim_result r;
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "raise the work budget (max_work"));
    t.arrival = GP_ARRIVAL_BURST;
    t.requests = (int64_t)1 << 30;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_ELIMIT);
    /* the large budget is bounded too: 2^31 requests are 4.3e11 units, over 4e10 */
    gp_work wk;
    gpi_work_init(&wk, 1);
    t.work = &wk;
    t.requests = (int64_t)1 << 31;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_ELIMIT);
    /* a limit past GP_WORK_MAX (1e12) counts as 1e12: 2^31 requests x 1001 steps = 2.1e12 */
    wk.limit = 1e15;
    t.output.mean = 1000;
    gp_error_clear(&err);
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "budget of 1e+12"));
    t.output.mean = 200;
    /* tokens past 2^32 per request are refused, not overflowed */
    t.requests = 10;
    t.prompt.mean = 1e19;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_EINVAL);
    t.prompt.mean = 5e9; /* past 2^32 */
    gp_error_clear(&err);
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_EINVAL);
    assert_string_equal(err.field, "prompt_tokens");
    /* a limit below the default is honoured: 100 requests x 201 = 20,100 units > 10,000 */
    t.prompt.mean = 1000;
    t.requests = 100;
    gpi_work_init(&wk, 0);
    wk.limit = 10000;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_ELIMIT);
    wk.limit = 1e6;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_true(wk.used > 0 && wk.used <= 1e6);
}

static int cancel_after(void *ctx, double done, double limit)
{
    (void)limit;
    int *calls = ctx;
    ++*calls;
    return done > 1.5e6; /* the second report */
}

/* The progress callback sees the work and can cancel it (a server's deadline). */
static void test_progress_cancel(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm);
    gpi_sched_config sc = sched();
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_BURST;
    t.requests = 20000;
    t.prompt.mean = 1000;
    t.output.mean = 200; /* 20,000 x 201 = 4.0e6 units: reports at 0, 1e6, 2e6 */
    int calls = 0;
    gp_work wk;
    gpi_work_init(&wk, 0);
    wk.progress = cancel_after;
    wk.progress_ctx = &calls;
    t.work = &wk;
    gp_sim_result r;
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_ECANCELED);
    assert_true(calls >= 2 && calls <= 3);
    assert_string_equal(gp_status_str(GP_ECANCELED), "canceled");
}

/* A capacity search shares one budget over all its simulations. */
static void test_capacity_budget(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.engine = GP_ENGINE_VLLM;
    gpi_capacity_request rq;
    memset(&rq, 0, sizeof rq);
    rq.model = &m;
    rq.w = &w;
    rq.traffic.arrival = GP_ARRIVAL_CLOSED_LOOP;
    rq.traffic.users = 100;
    rq.traffic.prompt.mean = 1000;
    rq.traffic.output.mean = 200;
    rq.slo.ttft_s = 2;
    const gp_gpu *g[1] = {h100};
    rq.gpus = g;
    rq.n_gpus = 1;
    gp_work wk;
    gpi_work_init(&wk, 0);
    wk.limit = 2e5; /* one simulation of 1000 requests is 2.0e5 units: the second is refused */
    rq.traffic.work = &wk;
    gp_capacity_result *res = calloc(1, sizeof *res);
    assert_int_equal(gpi_capacity_search(cat, &rq, res, NULL), GP_ELIMIT);
    rq.traffic.users = (int64_t)1 << 25;
    gp_error err;
    gp_error_clear(&err);
    assert_int_equal(gpi_capacity_search(cat, &rq, res, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "2^24"));
    free(res);
}

/* gpi_plan casts the token counts it is given: out of range they are refused first. */
static void test_plan_lengths(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_plan_request *rq = calloc(1, sizeof *rq);
    gp_plan_result *res = calloc(1, sizeof *res);
    gpi_plan_request_defaults(rq);
    rq->model = &m;
    rq->traffic.arrival = GP_ARRIVAL_CLOSED_LOOP;
    rq->traffic.users = 10;
    rq->traffic.prompt.mean = 1e300;
    rq->traffic.output.mean = 200;
    gp_error err;
    assert_int_equal(gpi_plan(cat, rq, res, &err), GP_EINVAL);
    assert_string_equal(err.field, "prompt_tokens");
    free(rq);
    free(res);
}

/* A --data-dir file is bounded like a config.json: real size when too large, structure
 * counted before Jansson builds a tree (70,000 empty objects: over the 65,536 allowed). */
static void test_data_dir_bounded(void **state)
{
    (void)state;
    char dir[] = "/tmp/gp_limits_dd_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/models.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputc('[', f);
    for (int i = 0; i < 70000; i++)
        fputs(i ? ",{}" : "{}", f);
    fputc(']', f);
    fclose(f);
    gp_catalog *c = NULL;
    gp_error err;
    assert_int_equal(gp_catalog_open(dir, &c, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "too many objects and arrays"));
    assert_int_equal(truncate(path, 200000000), 0);
    assert_int_equal(gp_catalog_open(dir, &c, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "a 200 MB file"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checked_helpers),    cmocka_unit_test(test_fit_kv_overflow),
        cmocka_unit_test(test_thousand_layers),    cmocka_unit_test(test_train_seq_overflow),
        cmocka_unit_test(test_ranges_named),       cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_sweep_architecture), cmocka_unit_test(test_sweep_workload_layout),
        cmocka_unit_test(test_step_time_limits),   cmocka_unit_test(test_trace_tokens),
        cmocka_unit_test(test_sim_budget),         cmocka_unit_test(test_progress_cancel),
        cmocka_unit_test(test_capacity_budget),    cmocka_unit_test(test_plan_lengths),
        cmocka_unit_test(test_data_dir_bounded),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
