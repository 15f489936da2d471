/*
 * test_export.c: launch configurations (gpi_export_render) compared byte for byte with the
 * golden files under tests/golden/<engine>/<case>/; tests/golden/README.md explains every
 * expected value (where each number comes from). Plus the engine table, task/engine
 * mismatches, unsupported layouts, and the one-line command for reports.
 *
 * GP_GOLDEN_UPDATE=1 rewrites the golden files from the current output (then review the diff
 * against README.md by hand before committing).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "export/export_impl.h"

static gp_catalog *cat;

static int setup(void **state)
{
    (void)state;
    return gp_catalog_open(NULL, &cat, NULL) == GP_OK ? 0 : -1;
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

static const gp_gpu *h100(void)
{
    const gp_gpu *g = NULL;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &g, NULL), GP_OK);
    return g;
}

static char *read_all(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *p = malloc(cap);
    size_t n;
    while (p && (n = fread(p + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            char *q = realloc(p, cap * 2);
            if (!q) {
                free(p);
                p = NULL;
                break;
            }
            p = q;
            cap *= 2;
        }
    }
    fclose(f);
    if (p)
        p[len] = '\0';
    return p;
}

/* Compare every rendered file with tests/golden/<dir>/<file name>. */
static void check_golden(const char *dir, const gp_export_files *f, int n_expected)
{
    assert_int_equal(f->n, n_expected);
    const char *update = getenv("GP_GOLDEN_UPDATE");
    for (int i = 0; i < f->n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/golden/%s/%s", GP_SOURCE_DIR, dir, f->files[i].name);
        assert_int_equal(strlen(f->files[i].content), f->files[i].len);
        if (update && *update == '1') {
            char d[1024];
            snprintf(d, sizeof d, "%s/tests/golden/%s", GP_SOURCE_DIR, dir);
            char *slash = strrchr(d, '/');
            *slash = '\0';
            mkdir(d, 0777);
            *slash = '/';
            mkdir(d, 0777);
            FILE *o = fopen(path, "wb");
            assert_non_null(o);
            fwrite(f->files[i].content, 1, f->files[i].len, o);
            fclose(o);
            continue;
        }
        char *want = read_all(path);
        if (!want)
            fail_msg("missing golden file %s", path);
        if (strcmp(want, f->files[i].content) != 0) {
            const char *a = want, *b = f->files[i].content;
            int line = 1;
            while (*a && *a == *b) {
                if (*a == '\n')
                    line++;
                a++, b++;
            }
            fprintf(stderr, "%s differs at line %d\n--- got ---\n%s", path, line, f->files[i].content);
            free(want);
            fail_msg("golden mismatch: %s line %d", path, line);
        }
        free(want);
    }
}

static void render_ok(gpi_export_target e, const gpi_export_job *job, gp_export_files *f)
{
    gp_error err;
    gp_status st = gpi_export_render(e, job, f, &err);
    if (st != GP_OK)
        fail_msg("render %s: %s", gpi_export_engine_name(e), err.msg);
}

/* ---- serving ------------------------------------------------------------------------------ */

static void test_vllm_llama70b_tp2(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-70b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 8192;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 2;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l;
    gp_export_files f;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    check_golden("vllm/llama-3.1-70b-tp2", &f, 1);
    assert_string_equal(f.command,
                        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 2 "
                        "--pipeline-parallel-size 1 --max-model-len 8192 --gpu-memory-utilization 0.9 "
                        "--max-num-seqs 256 --dtype bfloat16 --served-model-name llama-3.1-70b --host 0.0.0.0 "
                        "--port 8000 --api-key \"$API_KEY\"");
    assert_int_equal(f.files[0].executable, 1);
    gp_export_files_free(&f);
    assert_int_equal(f.n, 0);

    char line[256];
    assert_int_equal(gpi_export_command(GPI_EXPORT_VLLM, &job, line, sizeof line, NULL), GP_OK);
    assert_int_equal(strncmp(line, "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 2", 60), 0);
    char tiny[16];
    assert_int_equal(gpi_export_command(GPI_EXPORT_VLLM, &job, tiny, sizeof tiny, NULL), GP_OK);
    assert_string_equal(tiny, "vllm serve meta"); /* truncated, NUL-terminated */
}

static void test_vllm_mixtral_ep_fp8(void **state)
{
    (void)state;
    gp_model m;
    model("mixtral-8x7b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 32768;
    w.dtype = GP_DTYPE_FP8;
    w.kv_dtype = GP_DTYPE_FP8;
    w.max_num_seqs = 128;
    w.gpu_memory_utilization = 0.92;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 2, l.dp = 2, l.ep = 4;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l, job.port = 9000;
    gp_export_files f;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    check_golden("vllm/mixtral-8x7b-tp2-dp2-ep4-fp8", &f, 1);
    gp_export_files_free(&f);
}

static void test_vllm_multinode(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-405b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 8, l.pp = 2;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l, job.gpus_per_node = 8;
    gp_export_files f;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    check_golden("vllm/llama-3.1-405b-tp8-pp2-2nodes", &f, 1);
    assert_non_null(strstr(f.notes, "multi-node"));
    gp_export_files_free(&f);
}

static void test_sglang_llama70b_tp2(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-70b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 8192;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 2;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l;
    gp_export_files f;
    render_ok(GPI_EXPORT_SGLANG, &job, &f);
    check_golden("sglang/llama-3.1-70b-tp2", &f, 1);
    gp_export_files_free(&f);
}

static void test_tgi_llama8b(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.max_num_seqs = 64;
    gp_layout l;
    gpi_layout_defaults(&l);
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l, job.port = 8080;
    gp_export_files f;
    render_ok(GPI_EXPORT_TGI, &job, &f);
    check_golden("tgi/llama-3.1-8b-1gpu", &f, 1);
    gp_export_files_free(&f);

    /* TGI has no pipeline parallelism */
    l.pp = 2;
    gp_error err;
    assert_int_equal(gpi_export_render(GPI_EXPORT_TGI, &job, &f, &err), GP_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "pipeline"));
    assert_int_equal(f.n, 0);
}

static void test_llamacpp_gguf(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 8192;
    w.batch = 4;
    w.kv_dtype = GP_DTYPE_INT8;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 2;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l;
    job.model_path = "/models/Llama-3.1-8B-Q4_K_M.gguf";
    gp_export_files f;
    render_ok(GPI_EXPORT_LLAMACPP, &job, &f);
    check_golden("llamacpp/llama-3.1-8b-2gpu-4slots", &f, 1);
    gp_export_files_free(&f);
}

static void test_trtllm_llama70b(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-70b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 16384;
    w.max_num_batched_tokens = 8192;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 4, l.pp = 2;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l;
    gp_export_files f;
    render_ok(GPI_EXPORT_TRTLLM, &job, &f);
    check_golden("trtllm/llama-3.1-70b-tp4-pp2", &f, 2);
    gp_export_files_free(&f);
}

/* ---- training ----------------------------------------------------------------------------- */

static void test_deepspeed_llama8b_zero3(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    w.offload = GP_OFFLOAD_OPTIMIZER;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 16, l.zero = 3, l.micro_batch = 2, l.global_batch = 256;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l, job.gpus_per_node = 8;
    gp_export_files f;
    render_ok(GPI_EXPORT_DEEPSPEED, &job, &f);
    check_golden("deepspeed/llama-3.1-8b-zero3-2nodes", &f, 3);
    assert_string_equal(f.files[0].name, "ds_config.json");
    assert_int_equal(f.files[0].executable, 0);
    gp_export_files_free(&f);

    /* parameter offload needs ZeRO-3; PP needs Megatron */
    w.offload = GP_OFFLOAD_PARAMS;
    l.zero = 2;
    gp_error err;
    assert_int_equal(gpi_export_render(GPI_EXPORT_DEEPSPEED, &job, &f, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "ZeRO-3"));
    w.offload = GP_OFFLOAD_NONE;
    l.pp = 2, l.dp = 8;
    assert_int_equal(gpi_export_render(GPI_EXPORT_DEEPSPEED, &job, &f, &err), GP_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "megatron"));
}

static void megatron_job(gp_model *m, gp_workload *w, gp_layout *l, gpi_export_job *job)
{
    model("llama-3.1-70b", m);
    gpi_workload_defaults(w, GP_TASK_TRAIN);
    w->seq = 8192;
    gpi_layout_defaults(l);
    l->tp = 8, l->pp = 4, l->dp = 2, l->virtual_stages = 2, l->sequence_parallel = 1, l->zero = 1;
    l->micro_batch = 1, l->global_batch = 512, l->recompute = GP_RECOMPUTE_SELECTIVE;
    gpi_export_job_defaults(job);
    job->model = m, job->gpu = h100(), job->w = w, job->l = l, job->gpus_per_node = 8;
}

static void test_megatron_llama70b(void **state)
{
    (void)state;
    gp_model m;
    gp_workload w;
    gp_layout l;
    gpi_export_job job;
    megatron_job(&m, &w, &l, &job);
    gp_export_files f;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    check_golden("megatron/llama-3.1-70b-tp8-pp4-dp2-vpp2", &f, 1);
    gp_export_files_free(&f);

    /* the engine implies the task: a job left at infer trains on Megatron (the same files);
     * a training job cannot be exported to vLLM */
    gp_error err;
    w.task = GP_TASK_INFER;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    check_golden("megatron/llama-3.1-70b-tp8-pp4-dp2-vpp2", &f, 1);
    gp_export_files_free(&f);
    w.task = GP_TASK_TRAIN;
    assert_int_equal(gpi_export_render(GPI_EXPORT_VLLM, &job, &f, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "serving engine"));
    /* 512 sequences are not a whole number of micro-batch 3 x DP 2 */
    l.micro_batch = 3;
    assert_int_equal(gpi_export_render(GPI_EXPORT_MEGATRON, &job, &f, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "global batch 512"));
    /* 80 layers / 4 stages = 20; 3 virtual stages do not divide it */
    l.micro_batch = 1, l.virtual_stages = 3;
    assert_int_equal(gpi_export_render(GPI_EXPORT_MEGATRON, &job, &f, &err), GP_EINVAL);
}

static void test_torchrun_fsdp(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-8b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 16, l.zero = 3, l.micro_batch = 1, l.global_batch = 128, l.recompute = GP_RECOMPUTE_FULL;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l, job.gpus_per_node = 8;
    gp_export_files f;
    render_ok(GPI_EXPORT_TORCHRUN_FSDP, &job, &f);
    check_golden("torchrun-fsdp/llama-3.1-8b-16gpu-fullshard", &f, 2);
    gp_export_files_free(&f);

    gp_error err;
    l.tp = 2, l.dp = 8;
    assert_int_equal(gpi_export_render(GPI_EXPORT_TORCHRUN_FSDP, &job, &f, &err), GP_EUNSUPPORTED);
}

static void test_slurm_megatron(void **state)
{
    (void)state;
    gp_model m;
    model("llama-3.1-70b", &m);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_TRAIN);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = 8, l.pp = 2, l.dp = 2, l.sequence_parallel = 1, l.zero = 1;
    l.micro_batch = 1, l.global_batch = 256, l.recompute = GP_RECOMPUTE_FULL;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &m, job.gpu = h100(), job.w = &w, job.l = &l, job.gpus_per_node = 8;
    job.train_tokens = 1e11;
    job.time_limit = "2-00:00:00";
    job.job_name = "llama70b";
    snprintf(job.train_data, sizeof job.train_data, "/data/fineweb_text_document");
    gp_export_files f;
    render_ok(GPI_EXPORT_SLURM, &job, &f);
    check_golden("slurm/llama-3.1-70b-32gpu", &f, 1);
    gp_export_files_free(&f);
}

/* ---- the issue-14 rows: each export now passes the engine's own start-up rule ----------- */

static gpi_export_job job_for(gp_model *m, gp_workload *w, gp_layout *l, const char *id, gp_task task)
{
    model(id, m);
    gpi_workload_defaults(w, task);
    gpi_layout_defaults(l);
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = m, job.gpu = h100(), job.w = w, job.l = l, job.gpus_per_node = 8;
    return job;
}

static void expect_in(const gp_export_files *f, int file, const char *text)
{
    if (!strstr(f->files[file].content, text))
        fail_msg("%s lacks '%s'", f->files[file].name, text);
}

static void test_megatron_rows(void **state)
{
    (void)state;
    gp_model m;
    gp_workload w;
    gp_layout l;
    gp_export_files f;
    /* DeepSeek-V3, 61 layers on PP 8: no even split; middle stages 8 layers each (61 / 8 = 7.6,
     * rounded up), 6 x 8 = 48, the remaining 13 as first 6 + last 7 (transformer_config.py:2044) */
    gpi_export_job job = job_for(&m, &w, &l, "deepseek-v3", GP_TASK_TRAIN);
    l.tp = 8, l.pp = 8, l.dp = 4, l.ep = 8, l.zero = 1, l.sequence_parallel = 1, l.global_batch = 512;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    check_golden("megatron/deepseek-v3-tp8-pp8-dp4-ep8-uneven", &f, 1);
    expect_in(&f, 0, "--decoder-first-pipeline-num-layers 6 \\");
    expect_in(&f, 0, "--decoder-last-pipeline-num-layers 7 \\");
    gp_export_files_free(&f);
    int64_t first, last;
    /* PP 16: middle 14 stages of 4 = 56, rest 5 = 2 + 3 */
    assert_int_equal(gpx_pipeline_split(61, 16, 1, &first, &last), 1);
    assert_int_equal(first, 2);
    assert_int_equal(last, 3);
    /* 80 layers on PP 4 split evenly; with 2 virtual stages 20 per stage divide too */
    assert_int_equal(gpx_pipeline_split(80, 4, 2, &first, &last), 0);
    /* PP 2 of 61: first 30, last 31, no middle stage */
    assert_int_equal(gpx_pipeline_split(61, 2, 1, &first, &last), 1);
    assert_int_equal(first + last, 61);
    /* 3 layers cannot fill 4 stages */
    assert_int_equal(gpx_pipeline_split(3, 4, 1, &first, &last), -1);

    /* Qwen3-30B-A3B on 8 GPUs, EP 8, with the EP all-to-all overlap asked: Megatron-Core admits
     * it (EP > 1, alltoall dispatcher, no full recomputation, PP 1: transformer_config.py:2669-2699),
     * so --overlap-moe-expert-parallel-comm follows the dispatcher flag */
    job = job_for(&m, &w, &l, "qwen3-30b-a3b", GP_TASK_TRAIN);
    l.dp = 8, l.ep = 8, l.zero = 1, l.global_batch = 512;
    job.ep_overlap = 1;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    check_golden("megatron/qwen3-30b-a3b-dp8-ep8-overlap", &f, 1);
    expect_in(&f, 0, "--moe-token-dispatcher-type alltoall \\\n  --overlap-moe-expert-parallel-comm \\");
    gp_export_files_free(&f);
    /* the same on PP 2 without virtual stages: Megatron-Core would assert (:2674), so the flag is
     * left out and the export says why */
    l.pp = 2, l.dp = 4, l.global_batch = 256;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    assert_null(strstr(f.files[0].content, "--overlap-moe-expert-parallel-comm"));
    assert_non_null(strstr(f.notes, "EP all-to-all overlap left out"));
    gp_export_files_free(&f);
    /* the flex dispatcher asked (--ep-dispatcher deepep): Megatron-Core's flex token dispatcher
     * with its DeepEP backend (core_v0.19.0 transformer_config.py moe_token_dispatcher_type,
     * moe_flex_dispatcher_backend), in place of the alltoall flag */
    job.ep_dispatcher = GP_EP_DISPATCHER_DEEPEP;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    expect_in(&f, 0, "--moe-token-dispatcher-type flex --moe-flex-dispatcher-backend deepep \\");
    assert_null(strstr(f.files[0].content, "--moe-token-dispatcher-type alltoall"));
    gp_export_files_free(&f);
    job.ep_dispatcher = GP_EP_DISPATCHER_ALLTOALL;

    /* ZeRO-3 with optimizer offload: Megatron-FSDP (CUDA_DEVICE_MAX_CONNECTIONS unset,
     * fsdp_dtensor checkpoints) and the precision-aware optimizer (arguments.py:1143, :1146, :1804);
     * no --task: the engine implies training */
    job = job_for(&m, &w, &l, "llama-3.1-8b", gpi_export_engine_task(GPI_EXPORT_MEGATRON, GP_TASK_INFER));
    assert_int_equal(w.task, GP_TASK_TRAIN);
    w.offload = GP_OFFLOAD_OPTIMIZER;
    l.dp = 8, l.zero = 3, l.global_batch = 64;
    render_ok(GPI_EXPORT_MEGATRON, &job, &f);
    check_golden("megatron/llama-3.1-8b-zero3-offload", &f, 1);
    expect_in(&f, 0, "unset CUDA_DEVICE_MAX_CONNECTIONS");
    expect_in(&f, 0, "--ckpt-format fsdp_dtensor");
    expect_in(&f, 0, "--use-precision-aware-optimizer");
    gp_export_files_free(&f);
    assert_int_equal(gpi_export_engine_task(GPI_EXPORT_VLLM, GP_TASK_INFER), GP_TASK_INFER);
    assert_int_equal(gpi_export_engine_task(GPI_EXPORT_SLURM, GP_TASK_LORA), GP_TASK_LORA);
}

static void test_deepspeed_autotp(void **state)
{
    (void)state;
    gp_model m;
    gp_workload w;
    gp_layout l;
    gp_export_files f;
    /* TP 2 x DP 8 = 16 ranks, micro 2, global 64: accumulation 64 / (2 x 8) = 4; DeepSpeed
     * counts all 16 ranks: train_batch_size 2 x 4 x 16 = 128 (config.py:924) */
    gpi_export_job job = job_for(&m, &w, &l, "llama-3.1-8b", GP_TASK_TRAIN);
    l.tp = 2, l.dp = 8, l.zero = 2, l.micro_batch = 2, l.global_batch = 64;
    render_ok(GPI_EXPORT_DEEPSPEED, &job, &f);
    check_golden("deepspeed/llama-3.1-8b-autotp2-dp8", &f, 3);
    expect_in(&f, 0, "\"train_batch_size\": 128,");
    expect_in(&f, 0, "\"gradient_accumulation_steps\": 4,");
    gp_export_files_free(&f);
}

static void test_serving_rows(void **state)
{
    (void)state;
    gp_model m;
    gp_workload w;
    gp_layout l;
    gp_export_files f;
    /* TGI, DeepSeek-V3's own fp8 checkpoint on 8 GPUs: no --dtype (cli.py:117) */
    gpi_export_job job = job_for(&m, &w, &l, "deepseek-v3", GP_TASK_INFER);
    l.tp = 8;
    render_ok(GPI_EXPORT_TGI, &job, &f);
    check_golden("tgi/deepseek-v3-fp8-tp8", &f, 1);
    assert_null(strstr(f.files[0].content, "--dtype"));
    gp_export_files_free(&f);
    /* a plan in bf16 gets the fp8 checkpoint as it is, with a note; int4 cannot be made from it */
    w.dtype = GP_DTYPE_BF16;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    assert_non_null(strstr(f.notes, "served as it is"));
    expect_in(&f, 0, "fp8 weights (pre-quantized checkpoint)");
    gp_export_files_free(&f);
    w.dtype = GP_DTYPE_INT4;
    gp_error err;
    assert_int_equal(gpi_export_render(GPI_EXPORT_VLLM, &job, &f, &err), GP_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "--model-path"));

    /* llama.cpp, flash attention off but an int8 (q8_0) KV cache: --flash-attn on */
    job = job_for(&m, &w, &l, "llama-3.1-8b", GP_TASK_INFER);
    w.flash_attention = 0, w.kv_dtype = GP_DTYPE_INT8;
    job.model_path = "/models/Llama-3.1-8B-Q4_K_M.gguf";
    render_ok(GPI_EXPORT_LLAMACPP, &job, &f);
    check_golden("llamacpp/llama-3.1-8b-q8kv-noflash", &f, 1);
    expect_in(&f, 0, "--flash-attn on \\");
    gp_export_files_free(&f);

    /* TensorRT-LLM, 405B TP 8 x PP 2 over 2 nodes, context 32768: srun + trtllm-llmapi-launch,
     * max_num_tokens 32768 (the context; no prefill chunk planned) */
    job = job_for(&m, &w, &l, "llama-3.1-405b", GP_TASK_INFER);
    w.context = 32768;
    l.tp = 8, l.pp = 2;
    render_ok(GPI_EXPORT_TRTLLM, &job, &f);
    check_golden("trtllm/llama-3.1-405b-tp8-pp2-2nodes", &f, 2);
    expect_in(&f, 0, "srun --mpi=pmix --nodes 2 --ntasks 16 --ntasks-per-node 8 trtllm-llmapi-launch \\");
    expect_in(&f, 0, "--max_num_tokens 32768 \\");
    expect_in(&f, 1, "enable_chunked_prefill: false");
    gp_export_files_free(&f);

    /* SGLang with nf4: --quantization bitsandbytes --load-format bitsandbytes */
    job = job_for(&m, &w, &l, "llama-3.1-8b", GP_TASK_INFER);
    w.dtype = GP_DTYPE_NF4;
    render_ok(GPI_EXPORT_SGLANG, &job, &f);
    check_golden("sglang/llama-3.1-8b-nf4", &f, 1);
    expect_in(&f, 0, "--load-format bitsandbytes \\");
    gp_export_files_free(&f);

    /* vLLM int4: the 16-bit repo is converted by quantize.sh (W4A16) and launch.sh serves that */
    job = job_for(&m, &w, &l, "llama-3.1-70b", GP_TASK_INFER);
    w.dtype = GP_DTYPE_INT4;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    check_golden("vllm/llama-3.1-70b-int4-w4a16", &f, 2);
    expect_in(&f, 0, "vllm serve Llama-3.1-70B-W4A16 \\");
    assert_string_equal(f.files[1].name, "quantize.sh");
    expect_in(&f, 1, "scheme=\"W4A16\"");
    gp_export_files_free(&f);

    /* vLLM TP 2 x DP 2 with planned EP 2: vLLM runs EP = TP x DP = 4 and the file says so */
    job = job_for(&m, &w, &l, "mixtral-8x7b", GP_TASK_INFER);
    l.tp = 2, l.dp = 2, l.ep = 2;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    expect_in(&f, 0, "run as EP 4");
    gp_export_files_free(&f);
}

static void test_service_replicas(void **state)
{
    (void)state;
    gp_model m;
    gp_workload w;
    gp_layout l;
    gp_export_files f;
    /* the default plan's job: Llama-3.1-70B (chat: the Instruct checkpoint), 5 replicas of
     * TP 2, audit logs asked: --enable-log-requests, deploy.json (Deployment of 5 + Service),
     * serve.sbatch (array 0-4) */
    gpi_export_job job = job_for(&m, &w, &l, "llama-3.1-70b", GP_TASK_INFER);
    w.context = 2400, w.dtype = GP_DTYPE_FP8;
    l.tp = 2;
    job.replicas = 5, job.audit_log = 1, job.chat = 1, job.catalog = cat;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    check_golden("vllm/llama-3.1-70b-instruct-5-replicas", &f, 3);
    expect_in(&f, 0, "vllm serve meta-llama/Llama-3.1-70B-Instruct \\");
    expect_in(&f, 0, "--enable-log-requests");
    expect_in(&f, 1, "\"replicas\": 5,");
    expect_in(&f, 1, "\"secretKeyRef\"");
    expect_in(&f, 2, "#SBATCH --array=0-4");
    gp_export_files_free(&f);
    /* 405B TP 8 x PP 2 replicas span 2 nodes (16 GPUs / 8 per node): a LeaderWorkerSet of
     * groups of size 2, and a Slurm array whose tasks each hold 2 nodes (Ray head on node 0) */
    job = job_for(&m, &w, &l, "llama-3.1-405b", GP_TASK_INFER);
    l.tp = 8, l.pp = 2;
    job.replicas = 2;
    render_ok(GPI_EXPORT_VLLM, &job, &f);
    assert_int_equal(f.n, 3);
    expect_in(&f, 1, "\"kind\": \"LeaderWorkerSet\"");
    expect_in(&f, 1, "\"size\": 2,");
    expect_in(&f, 2, "#SBATCH --nodes=2\n");
    expect_in(&f, 2, "#SBATCH --array=0-1\n");
    expect_in(&f, 2, "exec ray start --address=$HEAD_ADDR:6379 --block");
    gp_export_files_free(&f);
    /* TensorRT-LLM, the same 2-node replicas x 2: LWS pods reach each other over ssh and the
     * leader starts 2 x 8 = 16 MPI ranks; the Slurm task starts them with srun (8 per node) */
    render_ok(GPI_EXPORT_TRTLLM, &job, &f);
    check_golden("trtllm/llama-3.1-405b-tp8-pp2-2nodes-2-replicas", &f, 4);
    expect_in(&f, 2, "mpirun --allow-run-as-root -np 16 -H $HOSTS");
    expect_in(&f, 2, "\"secretName\": \"llama-3-1-405b-ssh\"");
    expect_in(&f, 3, "#SBATCH --ntasks-per-node=8\n");
    expect_in(&f, 3, "srun --mpi=pmix --nodes 2 --ntasks 16 --ntasks-per-node 8 trtllm-llmapi-launch");
    gp_export_files_free(&f);
    /* SGLang over 2 nodes: every node runs the server with its NODE_RANK exported first */
    render_ok(GPI_EXPORT_SGLANG, &job, &f);
    check_golden("sglang/llama-3.1-405b-tp8-pp2-2nodes-2-replicas", &f, 3);
    expect_in(&f, 1, "export NODE_RANK=$LWS_WORKER_INDEX HEAD_ADDR=$LWS_LEADER_ADDRESS; ");
    expect_in(&f, 2, "export NODE_RANK=$SLURM_NODEID HEAD_ADDR=$HEAD_ADDR; ");
    gp_export_files_free(&f);
    /* an API key variable that is no shell name, or a negative replica count, is refused */
    gp_error err;
    job.api_key_env = "MY-KEY";
    assert_int_equal(gpi_export_render(GPI_EXPORT_VLLM, &job, &f, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "shell variable"));
    job.api_key_env = NULL, job.replicas = -1;
    assert_int_equal(gpi_export_render(GPI_EXPORT_VLLM, &job, &f, &err), GP_EINVAL);
}

/* ---- the engine table ------------------------------------------------------------------- */

static void test_names(void **state)
{
    (void)state;
    for (int e = 0; e < GPI_EXPORT_COUNT; e++) {
        assert_int_equal(gpi_export_engine_parse(gpi_export_engine_name((gpi_export_target)e)), e);
        assert_true(strlen(gpi_export_engine_version((gpi_export_target)e)) > 0);
    }
    assert_int_equal(gpi_export_engine_parse("llama.cpp"), GPI_EXPORT_LLAMACPP);
    assert_int_equal(gpi_export_engine_parse("TensorRT-LLM"), GPI_EXPORT_TRTLLM);
    assert_int_equal(gpi_export_engine_parse("fsdp"), GPI_EXPORT_TORCHRUN_FSDP);
    assert_int_equal(gpi_export_engine_parse("sbatch"), GPI_EXPORT_SLURM);
    assert_int_equal(gpi_export_engine_parse("vllmx"), GPI_EXPORT_COUNT);
    assert_int_equal(gpi_export_engine_parse(""), GPI_EXPORT_COUNT);
    assert_int_equal(gpi_export_engine_parse(NULL), GPI_EXPORT_COUNT);
    assert_string_equal(gpi_export_engine_name(GPI_EXPORT_COUNT), "unknown");
    assert_int_equal(gpi_export_engine_kind(GPI_EXPORT_SGLANG), GPI_EXPORT_KIND_SERVE);
    assert_int_equal(gpi_export_engine_kind(GPI_EXPORT_SLURM), GPI_EXPORT_KIND_TRAIN);
    gp_export_files f;
    gp_error err;
    assert_int_equal(gpi_export_render(GPI_EXPORT_VLLM, NULL, &f, &err), GP_EINVAL);
    assert_int_equal(gpi_export_render(GPI_EXPORT_COUNT, NULL, &f, &err), GP_EINVAL);
    gp_export_files_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vllm_llama70b_tp2), cmocka_unit_test(test_vllm_mixtral_ep_fp8),
        cmocka_unit_test(test_vllm_multinode),    cmocka_unit_test(test_sglang_llama70b_tp2),
        cmocka_unit_test(test_tgi_llama8b),       cmocka_unit_test(test_llamacpp_gguf),
        cmocka_unit_test(test_trtllm_llama70b),   cmocka_unit_test(test_deepspeed_llama8b_zero3),
        cmocka_unit_test(test_megatron_llama70b), cmocka_unit_test(test_torchrun_fsdp),
        cmocka_unit_test(test_slurm_megatron),    cmocka_unit_test(test_megatron_rows),
        cmocka_unit_test(test_deepspeed_autotp),  cmocka_unit_test(test_serving_rows),
        cmocka_unit_test(test_service_replicas),  cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
