/*
 * test_calibrate.c: calibration profiles (calibrate/profile.c) and the fit (calibrate/fit.c):
 * what a profile changes and what it leaves alone, bad profiles, a planted parameter found
 * again, and the done-when check on published runs of one source and GPU type:
 * calibrated on a third, the other two thirds predicted within 8% median and better than
 * without the profile (docs/calibration.md shows the same tables).
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

#include "calibrate/calibrate_impl.h"

static gp_catalog *open_cat(void)
{
    gp_catalog *cat;
    gp_error err;
    assert_int_equal(gp_catalog_open(NULL, &cat, &err), GP_OK);
    return cat;
}

static gp_status apply(gp_catalog *cat, const char *text, gp_error *err)
{
    gp_error_clear(err);
    return gpi_catalog_apply_profile_text(cat, "p.json", text, strlen(text), err);
}

static const char serve_profile[] =
    "{\"gpuplan_profile\": 1, \"gpus\": [{\"gpu\": \"H100-SXM-80GB\", \"entries\": [{\"use\": \"serve\", \"dtype\": "
    "\"bf16\", \"engine\": \"vllm\", \"runs\": 6, \"params\": {\"gemm_scale\": {\"value\": 0.9}, \"hbm_scale\": 0.8, "
    "\"step_overhead_s\": 0.004}}]}]}";

static void step_model(const gp_catalog *cat, const char *gpu_id, gp_dtype dt, gpi_step_model *sm)
{
    const gp_gpu *g;
    gp_model m;
    assert_int_equal(gp_catalog_find_gpu(cat, gpu_id, &g, NULL), GP_OK);
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.engine = GP_ENGINE_VLLM;
    w.dtype = dt;
    gp_layout l;
    gpi_layout_defaults(&l);
    assert_int_equal(gpi_step_model_init(&m, g, NULL, &w, &l, NULL, sm, NULL), GP_OK);
}

/* A serving entry multiplies exactly that GPU's GEMM and HBM rates by its scales and
 * replaces the step overhead; another GPU and another precision are untouched. */
static void test_profile_scales_only_its_entry(void **state)
{
    (void)state;
    gp_catalog *plain = open_cat(), *cal = open_cat();
    gp_error err;
    assert_int_equal(apply(cal, serve_profile, &err), GP_OK);
    assert_string_equal(gp_catalog_profile_note(cal),
                        "calibrated on 6 runs of H100-SXM-80GB (serve bf16 vllm) from p.json");
    gpi_step_model a, b;
    step_model(plain, "H100-SXM-80GB", GP_DTYPE_BF16, &a);
    step_model(cal, "H100-SXM-80GB", GP_DTYPE_BF16, &b);
    assert_float_equal(b.peak_flops / a.peak_flops, 0.9, 1e-12);
    assert_float_equal(b.hbm_bytes_per_s / a.hbm_bytes_per_s, 0.8, 1e-12);
    assert_float_equal(b.params.step_overhead_s, 0.004, 1e-15);
    step_model(plain, "H100-SXM-80GB", GP_DTYPE_FP8, &a); /* a precision it saw no run of */
    step_model(cal, "H100-SXM-80GB", GP_DTYPE_FP8, &b);
    assert_float_equal(b.peak_flops, a.peak_flops, 0);
    assert_float_equal(b.params.step_overhead_s, a.params.step_overhead_s, 0);
    step_model(plain, "A100-SXM-80GB", GP_DTYPE_BF16, &a); /* another GPU type */
    step_model(cal, "A100-SXM-80GB", GP_DTYPE_BF16, &b);
    assert_float_equal(b.hbm_bytes_per_s, a.hbm_bytes_per_s, 0);
    gp_catalog_free(plain);
    gp_catalog_free(cal);
}

/* A training entry: with every other rate 1, a compute-only change of the GEMM rate by 0.5
 * at least halves nothing else: the step cannot get faster, and the bf16 entry leaves an
 * fp8 step alone. */
static void test_profile_train_entry(void **state)
{
    (void)state;
    gp_catalog *plain = open_cat(), *cal = open_cat();
    gp_error err;
    assert_int_equal(apply(cal,
                           "{\"gpuplan_profile\": 1, \"gpus\": [{\"gpu\": \"H100-SXM-80GB\", \"entries\": "
                           "[{\"use\": \"train\", \"dtype\": \"bf16\", \"runs\": 2, \"params\": "
                           "{\"gemm_scale\": 0.5}}]}]}",
                           &err),
                     GP_OK);
    gp_model m;
    assert_int_equal(gp_catalog_find_model(plain, "llama-3.1-8b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 8, l.zero = 3;
    gp_train_perf p0, p1;
    const gp_gpu *g0, *g1;
    gp_catalog_find_gpu(plain, "H100-SXM-80GB", &g0, NULL);
    gp_catalog_find_gpu(cal, "H100-SXM-80GB", &g1, NULL);
    gp_cluster c0, c1;
    gpi_cluster_defaults(&c0, plain, g0, NULL);
    gpi_cluster_defaults(&c1, cal, g1, NULL);
    assert_int_equal(gpi_train_perf_estimate(&m, g0, &c0, &w, &l, 0, &p0, NULL), GP_OK);
    assert_int_equal(gpi_train_perf_estimate(&m, g1, &c1, &w, &l, 0, &p1, NULL), GP_OK);
    /* the matmul part of compute doubles: compute_s grows by more than 1.5x (attention is
       not GEMM) and at most 2x */
    assert_true(p1.compute_s > 1.5 * p0.compute_s && p1.compute_s <= 2.0 * p0.compute_s + 1e-12);
    assert_float_equal(p1.memory_s, p0.memory_s, 1e-12);
    w.dtype = GP_DTYPE_FP8;
    assert_int_equal(gpi_train_perf_estimate(&m, g0, &c0, &w, &l, 0, &p0, NULL), GP_OK);
    assert_int_equal(gpi_train_perf_estimate(&m, g1, &c1, &w, &l, 0, &p1, NULL), GP_OK);
    assert_float_equal(p1.step_time_s, p0.step_time_s, 0);
    gp_catalog_free(plain);
    gp_catalog_free(cal);
}

static void expect_bad(const char *text, gp_status code, const char *field)
{
    gp_catalog *cat = open_cat();
    gp_error err;
    assert_int_equal(apply(cat, text, &err), code);
    if (field)
        assert_string_equal(err.field, field);
    assert_non_null(strstr(err.msg, "p.json"));
    const gp_gpu *g;
    gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL);
    assert_int_equal(g->n_cal, 0); /* all or nothing */
    assert_string_equal(gp_catalog_profile_note(cat), "");
    gp_catalog_free(cat);
}

static void test_profile_bad_input(void **state)
{
    (void)state;
    /* a GEMM scale of 1.5 would run training GEMMs at 0.80 x 1.5 = 120% of the peak */
    expect_bad("{\"gpuplan_profile\": 1, \"gpus\": [{\"gpu\": \"H100-SXM-80GB\", \"entries\": [{\"use\": \"train\", "
               "\"dtype\": \"bf16\", \"runs\": 1, \"params\": {\"gemm_scale\": 1.5}}]}]}",
               GP_EINVAL, "gemm_scale");
    expect_bad("{\"gpuplan_profile\": 1, \"gpus\": [{\"gpu\": \"H999\", \"entries\": []}]}", GP_EINVAL, "gpu");
    expect_bad("{\"gpuplan_profile\": 1, \"gpus\": [], \"colour\": 1}", GP_EINVAL, "colour");
    expect_bad("{\"gpuplan_profile\": 2, \"gpus\": []}", GP_EINVAL, "gpuplan_profile");
    /* attention is a training parameter only */
    expect_bad("{\"gpuplan_profile\": 1, \"gpus\": [{\"gpu\": \"H100-SXM-80GB\", \"entries\": [{\"use\": \"serve\", "
               "\"dtype\": \"bf16\", \"runs\": 1, \"params\": {\"attn_scale\": 1.0}}]}]}",
               GP_EINVAL, "attn_scale");
    gp_catalog *cat = open_cat();
    gp_error err;
    assert_int_equal(apply(cat, "{\"gpuplan_profile\": 1,\n  \"gpus\": [,]}", &err), GP_EPARSE);
    assert_int_equal(err.line, 2);
    gp_catalog_free(cat);
}

/* ---- the fit ---------------------------------------------------------------------------- */

static char *write_lines(const char *const *lines, int n, const char *tag)
{
    static char path[4][256];
    static int next;
    char *p = path[next++ % 4];
    snprintf(p, 256, "calib_%s_%d.jsonl", tag, (int)getpid());
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    for (int i = 0; i < n; i++)
        fputs(lines[i], f);
    fclose(f);
    return p;
}

/* Runs whose figures are the model's own at gemm_scale 0.9: the fit finds 0.9 again. */

/* What gp_calibrate_run reported to its progress callback. */
typedef struct cal_seen {
    int reading, fitting, steps;
    char item[96];
} cal_seen;

static void record_progress(void *arg, const gp_run_progress *p)
{
    cal_seen *s = arg;
    if (!strcmp(p->stage, "reading runs"))
        s->reading++;
    else if (!strcmp(p->stage, "fitting")) {
        s->fitting++;
        s->steps = p->steps;
        snprintf(s->item, sizeof s->item, "%s", p->item);
    }
}

static void test_planted_gemm_scale(void **state)
{
    (void)state;
    gp_catalog *cat = open_cat();
    const char *proto[] = {
        "{\"command\": \"train\", \"model\": \"llama-3.1-8b\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 8, \"zero\": 3, "
        "\"seq\": 4096, \"measured\": {\"model_tflops_per_gpu\": 1}}",
        "{\"command\": \"train\", \"model\": \"llama-3.1-70b\", \"gpu\": \"H100-SXM-80GB\", \"gpus\": 64, \"tp\": 8, "
        "\"seq\": 4096, \"global_batch\": 64, \"measured\": {\"model_tflops_per_gpu\": 1}}"};
    char lines[2][1024];
    const char *ptr[2];
    for (int i = 0; i < 2; i++) {
        gpi_runset *set = gpi_runset_new();
        assert_int_equal(gpi_runset_parse(set, "x", proto[i], strlen(proto[i]), NULL, NULL), GP_OK);
        gpi_cal_case cc;
        assert_int_equal(gpi_cal_case_init(cat, gpi_runset_get(set, 0), &cc, NULL), GP_OK);
        double th[GP_CALP_COUNT];
        gpi_cal_theta_identity(th);
        th[GP_CALP_GEMM] = 0.9;
        double v = gpi_cal_case_predict(&cc, th);
        gpi_runset_free(set);
        char fig[32];
        snprintf(fig, sizeof fig, "%.6f", v);
        snprintf(lines[i], sizeof lines[i], "%.*s%s}}\n", (int)(strstr(proto[i], "1}}") - proto[i]), proto[i], fig);
        ptr[i] = lines[i];
    }
    const char *path = write_lines(ptr, 2, "planted");
    cal_seen seen = {0};
    gp_calibrate_opts o = {&path, 1, NULL, NULL, 1, record_progress, &seen, NULL, NULL, 0};
    gp_calibrate_result *r = calloc(1, sizeof *r);
    gp_error err;
    assert_int_equal(gp_calibrate_run(cat, &o, r, &err), GP_OK);
    assert_int_equal(r->n_groups, 1);
    /* where it stood: one file read, one entry (H100, train, its dtype) fitted */
    assert_int_equal(seen.reading, 1);
    assert_int_equal(seen.fitting, 1);
    assert_int_equal(seen.steps, 1);
    assert_non_null(strstr(seen.item, "H100-SXM-80GB train"));
    assert_true(r->groups[0].fitted[GP_CALP_GEMM]);
    assert_float_equal(r->groups[0].value[GP_CALP_GEMM], 0.9, 0.01);
    assert_true(r->groups[0].err_after < 0.005);
    gp_calibrate_result_free(r);
    free(r);
    remove(path);
    gp_catalog_free(cat);
}

/* ---- done when: a third calibrates, two thirds are predicted --------------------------- */

typedef struct split_stats {
    double before, after; /* median absolute error of the held-out runs */
    int held;
} split_stats;

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Calibrate on lines i % 3 == 0 of the file, predict the rest through the calibrated
 * catalog (the path every command takes) and the plain one. */
static void third_split(const char *file, int max_params, split_stats *out)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/runs/%s", GP_SOURCE_DIR, file);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[512][2048];
    const char *cal_lines[256], *held_lines[512];
    int nc = 0, nh = 0, i = 0;
    while (i < 512 && fgets(buf[i], sizeof buf[i], f)) {
        if (i % 3 == 0)
            cal_lines[nc++] = buf[i];
        else
            held_lines[nh++] = buf[i];
        i++;
    }
    fclose(f);
    const char *cal_path = write_lines(cal_lines, nc, "third");
    char prof[256];
    snprintf(prof, sizeof prof, "calib_profile_%d.json", (int)getpid());
    gp_catalog *plain = open_cat(), *cal = open_cat();
    gp_calibrate_opts o = {&cal_path, 1, NULL, prof, max_params, NULL, NULL, NULL, NULL, 0};
    gp_calibrate_result *r = calloc(1, sizeof *r);
    gp_error err;
    if (gp_calibrate_run(plain, &o, r, &err) != GP_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(gp_catalog_apply_profile(cal, prof, &err), GP_OK);
    const char *held_path = write_lines(held_lines, nh, "held");
    gpi_runset *set = gpi_runset_new();
    assert_int_equal(gpi_runset_read(set, held_path, NULL, &err), GP_OK);
    double *eb = calloc((size_t)nh, sizeof *eb), *ea = calloc((size_t)nh, sizeof *ea);
    for (int k = 0; k < nh; k++) {
        gpi_cal_case cc;
        assert_int_equal(gpi_cal_case_init(plain, gpi_runset_get(set, (size_t)k), &cc, &err), GP_OK);
        double id[GP_CALP_COUNT];
        gpi_cal_theta_identity(id);
        eb[k] = fabs(gpi_cal_case_predict(&cc, id) / cc.measured - 1.0);
        /* the calibrated catalog's own row, as gp_catalog_find_gpu gives it to a command */
        const gp_gpu *g;
        gp_catalog_find_gpu(cal, cc.gpu.id, &g, NULL);
        double pred;
        if (cc.use == GP_CAL_TRAIN) {
            gp_train_perf p;
            gp_cluster c;
            gpi_cluster_defaults(&c, cal, g, NULL);
            assert_int_equal(gpi_train_perf_estimate(&cc.m, g, &c, &cc.w, &cc.l, 0, &p, NULL), GP_OK);
            pred = p.model_tflops_per_gpu;
        } else {
            gpi_step_model sm;
            gp_sim_result res;
            assert_int_equal(gpi_step_model_init(&cc.m, g, NULL, &cc.w, &cc.l, NULL, &sm, NULL), GP_OK);
            gpi_step_model_use_rates(&sm, cal, g, NULL); /* as gp_serve_run does */
            assert_int_equal(gpi_simulate(&sm, &cc.sched, &cc.t, NULL, &res, NULL), GP_OK);
            pred = res.output_tokens_per_s;
        }
        ea[k] = fabs(pred / cc.measured - 1.0);
    }
    qsort(eb, (size_t)nh, sizeof *eb, cmp_d);
    qsort(ea, (size_t)nh, sizeof *ea, cmp_d);
    out->held = nh;
    out->before = nh % 2 ? eb[nh / 2] : 0.5 * (eb[nh / 2 - 1] + eb[nh / 2]);
    out->after = nh % 2 ? ea[nh / 2] : 0.5 * (ea[nh / 2 - 1] + ea[nh / 2]);
    print_message("%s: calibrated on %d, %d held out: median error %.1f%% before, %.1f%% after\n", file, nc, nh,
                  100 * out->before, 100 * out->after);
    free(eb);
    free(ea);
    gpi_runset_free(set);
    gp_calibrate_result_free(r);
    free(r);
    remove(cal_path);
    remove(held_path);
    remove(prof);
    gp_catalog_free(plain);
    gp_catalog_free(cal);
}

/* llm-foundry's H100 BF16 tables (validation/train_mpt_h100.jsonl, 70 rows) */
static void test_done_when_training(void **state)
{
    (void)state;
    split_stats s;
    third_split("mpt_h100_bf16.jsonl", 2, &s);
    assert_int_equal(s.held, 46);
    assert_true(s.after < 0.08);
    assert_true(s.after < s.before);
}

/* TensorRT-LLM v1.0 perf-overview, Llama 3.1 405B FP8 on 8 x H100 (10 rows). The uncalibrated
 * step model is within the 8% here too since it counts element-wise traffic and TensorRT-LLM's
 * all-reduce + RMSNorm fusion (6.1% on the 6 held-out rows, 7.7% before); calibrating on 4
 * rows must then keep them within it, and improve them where the model alone is not. */
static void test_done_when_serving(void **state)
{
    (void)state;
    split_stats s;
    third_split("trtllm_h100_fp8_405b.jsonl", 1, &s);
    assert_int_equal(s.held, 6);
    assert_true(s.after < 0.08);
    assert_true(s.before < 0.08 || s.after < s.before);
}

/* nccl-tests across two 8 x H100 nodes (tests/data/runs/nccl_allreduce_16xh100_a3mega.txt):
 * 16 ranks > 8 per node, so the scale is the one across nodes. The model: NCCL pools a node's
 * NICs, min(NVLink 450, 8 x 50 GB/s InfiniBand NDR) = 400 GB/s, on the scale-out curve of
 * data/kernels.json (4 x 8 B200 over EFA: 377.34 GB/s of 400 at 4 GiB, 380.39 at 8 GiB).
 * Measured: the top quarter of the 8 sizes of 64 MiB and more, 4 and 8 GiB: 330.58 / 377.34 =
 * 0.87608 and 338.82 / 380.39 = 0.89072, median 0.88340. A benchmark that stops at 64 KiB
 * (latency-bound) gives nothing to fit, and calibrate says so. */
static void test_collective_scale(void **state)
{
    (void)state;
    gp_catalog *cat = open_cat();
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/runs/nccl_allreduce_16xh100_a3mega.txt", GP_SOURCE_DIR);
    const char *paths[1] = {path};
    gp_calibrate_opts o = {paths, 1, "{\"gpu\": \"H100-SXM-80GB\"}", NULL, 0, NULL, NULL, NULL, NULL, 0};
    gp_calibrate_result *r = calloc(1, sizeof *r);
    gp_error err;
    assert_int_equal(gp_calibrate_run(cat, &o, r, &err), GP_OK);
    assert_int_equal(r->n_groups, 1);
    assert_int_equal(r->groups[0].use, 3);
    assert_false(r->groups[0].fitted[0]);
    assert_true(r->groups[0].fitted[1]);
    assert_float_equal(r->groups[0].value[1], (330.58 / 377.34 + 338.82 / 380.39) / 2.0, 1e-4);
    gp_calibrate_result_free(r);
    /* the same default given as flag text (`calibrate --gpu H100-SXM-80GB`): the same fit */
    const char *keys[1] = {"gpu"}, *values[1] = {"H100-SXM-80GB"};
    gp_calibrate_opts f = {paths, 1, NULL, NULL, 0, NULL, NULL, keys, values, 1};
    assert_int_equal(gp_calibrate_run(cat, &f, r, &err), GP_OK);
    assert_int_equal(r->n_groups, 1);
    assert_float_equal(r->groups[0].value[1], (330.58 / 377.34 + 338.82 / 380.39) / 2.0, 1e-4);
    gp_calibrate_result_free(r);
    snprintf(path, sizeof path, "%s/tests/data/runs/nccl_allreduce_2xgb10.txt", GP_SOURCE_DIR);
    assert_int_equal(gp_calibrate_run(cat, &o, r, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "latency"));
    free(r);
    gp_catalog_free(cat);
}

/* ---- probe --bench against the fake CUDA runtime, cuBLASLt and NCCL (tests/fake_cuda) ---- */

static int progress_calls;
static void count_progress(void *ctx, const char *step, int done, int total)
{
    (void)ctx, (void)step;
    assert_true(done >= 0 && done <= total);
    progress_calls++;
}

static void test_bench_fake(void **state)
{
    (void)state;
    setenv("FAKE_CUDA_DEVICES", "2", 1);
    gp_catalog *cat = open_cat();
    gp_bench_opts o = {GP_FAKE_CUDA, GP_FAKE_CUDA, GP_FAKE_CUDA, 0, 0, count_progress, NULL};
    gp_bench_result *r = calloc(1, sizeof *r);
    gp_error err;
    progress_calls = 0;
    if (gp_bench_run(cat, &o, r, &err) != GP_OK)
        fail_msg("%s", err.msg);
    assert_string_equal(r->gpu_id, "H100-SXM-80GB"); /* "NVIDIA H100 80GB HBM3", 80 GB */
    assert_int_equal(r->devices, 2);
    /* 5 shapes x 2 dtypes + 1 copy + 4 sizes x 2 collectives = 19 points, 20 progress calls */
    assert_int_equal(r->n_points, 19);
    assert_int_equal(progress_calls, 20);
    for (int i = 0; i < r->n_points; i++) {
        const gp_bench_point *p = &r->points[i];
        double want = !strcmp(p->what, "gemm")     ? (p->dtype == GP_DTYPE_FP8 ? 1300 : 700)
                      : !strcmp(p->what, "memcpy") ? 3000
                                                   : 300; /* the fake's rates (fake_cuda.c) */
        assert_float_equal(p->value, want, want * 1e-4);
    }
    /* the profile over the training model's rates (data/kernels.json): H100 bf16 maximum
       achievable matmul 794.5 TFLOP/s x 8192/(8192 + 100) x training share 0.80 (data/kernels.json
       "fit", the all-data fit of issue 11's blind multi-start refit on the Huber objective; 0.725,
       0.80, 0.825, 0.85, 0.825 and 0.85 before) = 627.93; gemm 700 / 627.93 = 1.1148. HBM 0.9 x 3,350 = 3,015 GB/s:
       3000 / 3015 = 0.9950. NVLink 4's all-reduce curve (8 x H200 with NVLS) at 1 GiB: 463.58 GB/s: 300 / 463.58 =
       0.6471 */
    gp_catalog *cal = open_cat();
    assert_int_equal(gpi_catalog_apply_profile_text(cal, "bench.json", r->profile_json, strlen(r->profile_json), &err),
                     GP_OK);
    const gp_gpu *g;
    gp_catalog_find_gpu(cal, "H100-SXM-80GB", &g, NULL);
    const gp_gpu_cal *c = gpi_cal_find(g, GP_CAL_TRAIN, GP_DTYPE_BF16, 0);
    assert_non_null(c);
    assert_float_equal(c->gemm_scale, 700.0 / (794.5 * 8192.0 / 8292.0 * 0.80), 1e-4);
    assert_float_equal(c->hbm_scale, 3000.0 / 3015.0, 1e-4);
    assert_float_equal(g->cal_intra_scale, 300.0 / 463.58, 1e-4);
    assert_non_null(gpi_cal_find(g, GP_CAL_TRAIN, GP_DTYPE_FP8, 0));
    gp_bench_result_free(r);
    /* one GPU: no collectives; no fp8: no fp8 entry */
    setenv("FAKE_CUDA_DEVICES", "1", 1);
    setenv("FAKE_CUDA_NO_FP8", "1", 1);
    assert_int_equal(gp_bench_run(cat, &o, r, &err), GP_OK);
    assert_int_equal(r->n_points, 6);
    assert_null(strstr(r->profile_json, "collective"));
    assert_null(strstr(r->profile_json, "\"fp8\""));
    gp_bench_result_free(r);
    unsetenv("FAKE_CUDA_NO_FP8");
    gp_bench_opts none = {"/nonexistent/libcudart.so", NULL, NULL, 0, 0, NULL, NULL};
    assert_int_equal(gp_bench_run(cat, &none, r, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "CUDA runtime"));
    free(r);
    gp_catalog_free(cat);
    gp_catalog_free(cal);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_profile_scales_only_its_entry),
        cmocka_unit_test(test_profile_train_entry),
        cmocka_unit_test(test_profile_bad_input),
        cmocka_unit_test(test_planted_gemm_scale),
        cmocka_unit_test(test_done_when_training),
        cmocka_unit_test(test_done_when_serving),
        cmocka_unit_test(test_collective_scale),
        cmocka_unit_test(test_bench_fake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
