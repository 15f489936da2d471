/*
 * test_engine_rules.c: the engines' own start-up rules, checked on exported launch files.
 *
 * Each rule is what the engine validates before it touches a GPU, with the engine's source
 * file and line at the version the exports follow (docs/engines.md, docs/export.md). The
 * checker reads only the rendered text (command-line flags, exported variables, the JSON and
 * YAML beside them), as the engine would, and runs on every golden export (tests/golden/) and
 * on exports generated over a grid of models x layouts x precisions x engines.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* ---- a launch file as flags ------------------------------------------------------------- */

#define MAXF 160
typedef struct flags {
    int n;
    char key[MAXF][64];
    char val[MAXF][320];
    char text[65536]; /* the file with continuation lines joined */
} flags;

static void parse_flags(const char *content, flags *f)
{
    memset(f, 0, sizeof *f);
    size_t k = 0;
    for (const char *p = content; *p && k + 1 < sizeof f->text; p++) {
        if (p[0] == '\\' && p[1] == '\n') {
            p++;
            continue;
        }
        f->text[k++] = *p;
    }
    const char *p = f->text;
    while ((p = strstr(p, " --")) != NULL) {
        p += 1;
        const char *e = p;
        while (*e && *e != ' ' && *e != '\n' && *e != '=')
            e++;
        if (f->n >= MAXF)
            break;
        snprintf(f->key[f->n], sizeof f->key[0], "%.*s", (int)(e - p), p);
        const char *v = e;
        while (*v == ' ')
            v++;
        if (*v && *v != '\n' && strncmp(v, "--", 2) != 0) {
            const char *ve = v;
            while (*ve && *ve != ' ' && *ve != '\n')
                ve++;
            snprintf(f->val[f->n], sizeof f->val[0], "%.*s", (int)(ve - v), v);
        }
        f->n++;
        p = e;
    }
}

static const char *flag(const flags *f, const char *key)
{
    for (int i = 0; i < f->n; i++)
        if (!strcmp(f->key[i], key))
            return f->val[i];
    return NULL;
}

static long long iflag(const flags *f, const char *key, long long dflt)
{
    const char *v = flag(f, key);
    return v && *v ? atoll(v) : dflt;
}

/* The number after `key` in the text (0 if absent). */
static long long sbatch_num(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    return p ? atoll(p + strlen(key)) : 0;
}

/* "NAME=${NAME:-value}" or "export NAME=value" in the script; NULL if absent. */
static const char *var(const flags *f, const char *name, char *buf, size_t n)
{
    char pat[96];
    snprintf(pat, sizeof pat, "\nexport %s=", name);
    const char *p = strstr(f->text, pat);
    if (!p) {
        snprintf(pat, sizeof pat, "\n%s=${%s:-", name, name);
        p = strstr(f->text, pat);
    }
    if (!p)
        return NULL;
    p += strlen(pat);
    size_t k = 0;
    while (p[k] && p[k] != '}' && p[k] != ' ' && p[k] != '\n' && k + 1 < n)
        k++;
    snprintf(buf, n, "%.*s", (int)k, p);
    return buf;
}

/* ---- reporting -------------------------------------------------------------------------- */

typedef struct report {
    char where[256];
    int failures;
    int checks;
    int quiet; /* the checker's own tests: failures are expected, not printed */
} report;

static void rule(report *r, int ok, const char *source, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void rule(report *r, int ok, const char *source, const char *fmt, ...)
{
    r->checks++;
    if (ok)
        return;
    r->failures++;
    if (r->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: breaks %s: ", r->where, source);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* The API key is a variable reference, never a literal; the server listens beyond localhost. */
static void service_rules(report *r, const flags *f, const char *host_flag)
{
    const char *key = flag(f, "--api-key");
    rule(r, !key || key[0] == '"' || key[0] == '$', "docs/export.md (API key)", "--api-key %s is a literal", key);
    const char *host = flag(f, host_flag);
    rule(r, host && strcmp(host, "127.0.0.1") && strcmp(host, "localhost"), "docs/export.md (--host)",
         "%s missing or local-only: a load balancer cannot reach it", host_flag);
}

static double dflag(const flags *f, const char *key, double dflt)
{
    const char *v = flag(f, key);
    return v && *v ? atof(v) : dflt;
}

/* A plan that counts quantized weights serves quantized weights: a flag that makes them at
 * load time, a converted file (quantize.sh / .gguf), or a pre-quantized checkpoint. */
static void quant_rules(report *r, const flags *f, int have_quantize_sh, const char *online_flag)
{
    if (strstr(f->text, "weights (pre-quantized checkpoint); max model len"))
        return; /* the checkpoint carries its quantization (its quantization_config) */
    const char *layout = strstr(f->text, "weights; max model len");
    if (!layout)
        return;
    const char *start = layout > f->text ? layout - 1 : layout; /* the space before "weights" */
    while (start > f->text && start[-1] != ' ')
        start--;
    int low = !strncmp(start, "int4", 4) || !strncmp(start, "int8", 4) || !strncmp(start, "nf4", 3) ||
              !strncmp(start, "fp8", 3) || !strncmp(start, "mxfp4", 5) || !strncmp(start, "fp4", 3);
    if (!low)
        return;
    int ok = have_quantize_sh || (online_flag && flag(f, online_flag)) || strstr(f->text, ".gguf");
    rule(r, ok, "docs/export.md (quantized weights)", "the header says %.*s weights but a 16-bit checkpoint is served",
         (int)(layout - 1 - start), start);
}

/* ---- per engine ------------------------------------------------------------------------- */

/* vLLM: vllm/config/cache.py at commit 002f10e0 (CacheConfig) and vllm/engine/arg_utils.py at
 * commit 99d7eb5d (the v0.11.x engine args docs/engines.md lists). */
static void vllm_rules(report *r, const flags *f, int qsh)
{
    double u = dflag(f, "--gpu-memory-utilization", 0.9);
    rule(r, u > 0 && u <= 1, "vllm/config/cache.py@002f10e0:103 CacheConfig.gpu_memory_utilization Field(gt=0, le=1)",
         "%g", u);
    const char *kv = flag(f, "--kv-cache-dtype");
    static const char *const kv_ok[] = {"auto", "float16", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2"};
    int known = !kv;
    for (size_t i = 0; kv && i < sizeof kv_ok / sizeof kv_ok[0]; i++)
        known |= !strcmp(kv, kv_ok[i]);
    rule(r, known, "vllm/config/cache.py@002f10e0:39, :111 CacheDType (the values in v0.11 and later)", "%s",
         kv ? kv : "");
    rule(r, iflag(f, "--max-num-seqs", 1) >= 1, "vllm/config/scheduler.py (max_num_seqs >= 1)", "%s", "");
    /* v0.11 sets the bitsandbytes load format itself; older releases (v0.6/v0.7 arg_utils.py
     * EngineArgs.__post_init__) refuse either without the other: the export writes both */
    const char *q = flag(f, "--quantization"), *lf = flag(f, "--load-format");
    rule(r, (q && !strcmp(q, "bitsandbytes")) == (lf && !strcmp(lf, "bitsandbytes")),
         "vLLM v0.6/v0.7 arg_utils.py (\"BitsAndBytes quantization and QLoRA adapter only support 'bitsandbytes' load "
         "format\", and the converse)",
         "%s", "");
    service_rules(r, f, "--host");
    quant_rules(r, f, qsh, "--quantization");
}

static void sglang_rules(report *r, const flags *f, int qsh)
{
    double u = dflag(f, "--mem-fraction-static", 0.9);
    rule(r, u > 0 && u < 1,
         "docs/export.md (SGLang mem_fraction_static in (0, 1): weights + KV pool; no SGLang check was found)", "%g",
         u);
    const char *q = flag(f, "--quantization");
    const char *lf = flag(f, "--load-format");
    rule(r, !q || strcmp(q, "bitsandbytes") || (lf && !strcmp(lf, "bitsandbytes")),
         "sglang python/sglang/srt/server_args.py@469c63e5 (bitsandbytes needs --load-format bitsandbytes)", "%s", "");
    const char *kv = flag(f, "--kv-cache-dtype");
    rule(r, !kv || !strcmp(kv, "auto") || !strncmp(kv, "fp8_", 4),
         "sglang python/sglang/srt/server_args.py@469c63e5 (kv_cache_dtype choices)", "%s", kv ? kv : "");
    if (flag(f, "--nnodes"))
        rule(r, flag(f, "--dist-init-addr") && flag(f, "--node-rank"),
             "sglang python/sglang/srt/server_args.py@469c63e5 (--nnodes > 1 needs --dist-init-addr and --node-rank)",
             "%s", "");
    service_rules(r, f, "--host");
    quant_rules(r, f, qsh, "--quantization");
}

static void tgi_rules(report *r, const flags *f, int qsh)
{
    rule(r, !(flag(f, "--dtype") && flag(f, "--quantize")),
         "TGI v3.3.7 server/text_generation_server/cli.py:117 (only one of dtype and quantize)", "%s", "");
    /* a pre-quantized checkpoint sets quantize from its quantization_config (main.rs:2082, :2168),
     * so --dtype with it fails the same check */
    rule(r,
         !(flag(f, "--dtype") && (strstr(f->text, "fp8 weights") || strstr(f->text, "int4 weights")) &&
           !flag(f, "--quantize")),
         "TGI v3.3.7 launcher/src/main.rs:2168 + cli.py:117 (--dtype with a quantized checkpoint)", "%s", "");
    long long in = iflag(f, "--max-input-tokens", 0), tot = iflag(f, "--max-total-tokens", 0);
    rule(r, !in || !tot || in < tot, "TGI v3.3.7 launcher/src/main.rs:2158 (max_input_tokens < max_total_tokens)",
         "%lld >= %lld", in, tot);
    long long pre = iflag(f, "--max-batch-prefill-tokens", 0);
    rule(r, !pre || pre >= in, "TGI v3.3.7 launcher/src/main.rs (max_batch_prefill_tokens >= max_input_tokens)", "%s",
         "");
    double u = dflag(f, "--cuda-memory-fraction", 1);
    rule(r, u > 0 && u <= 1, "TGI launcher (cuda_memory_fraction in (0, 1])", "%g", u);
    service_rules(r, f, "--hostname");
    quant_rules(r, f, qsh, "--quantize");
}

static void llamacpp_rules(report *r, const flags *f)
{
    const char *v = flag(f, "--cache-type-v");
    const char *fa = flag(f, "--flash-attn");
    rule(
        r, !v || !strcmp(v, "f16") || !strcmp(v, "bf16") || (fa && strcmp(fa, "off")),
        "llama.cpp src/llama-context.cpp@4c7103b9 llama_init_from_model (\"quantized V cache requires flash_attn to be "
        "enabled\")",
        "%s", "");
    long long ctx = iflag(f, "--ctx-size", 0), par = iflag(f, "--parallel", 1);
    rule(r, par >= 1 && ctx % par == 0, "llama.cpp tools/server (each of --parallel slots gets ctx-size/parallel)",
         "%lld %% %lld", ctx, par);
    const char *m = flag(f, "--model");
    rule(r, m && gpi_ends_with(m, ".gguf"), "llama.cpp common/arg.cpp (--model is a GGUF file)", "%s", m ? m : "");
    service_rules(r, f, "--host");
}

static void trtllm_rules(report *r, const flags *f, const char *yaml)
{
    long long tok = iflag(f, "--max_num_tokens", 8192), seq = iflag(f, "--max_seq_len", 0);
    int chunked = yaml && strstr(yaml, "enable_chunked_prefill: true");
    rule(r, !seq || tok >= seq || chunked,
         "TensorRT-LLM llm_args.py@fcd3f316 BaseLlmArgs (max_num_tokens default 8192, enable_chunked_prefill default "
         "False: a longer prompt is refused)",
         "%lld < %lld", tok, seq);
    int tp = (int)iflag(f, "--tp_size", 1), pp = (int)iflag(f, "--pp_size", 1);
    int per_node = (int)iflag(f, "--gpus_per_node", 8);
    long long cp = iflag(f, "--cp_size", 1);
    long long ranks =
        sbatch_num(f->text, "srun --mpi=pmix --nodes ") ? sbatch_num(f->text, " --ntasks ") : tp * pp * cp;
    rule(r, ranks == (long long)tp * pp * cp,
         "TensorRT-LLM llm_args.py@fcd3f316 (the MPI world is TP x PP x CP: srun --ntasks)", "%lld", ranks);
    if (tp * pp > per_node)
        rule(r, strstr(f->text, "trtllm-llmapi-launch") && (strstr(f->text, "srun") || strstr(f->text, "mpirun")),
             "TensorRT-LLM commands/serve.py@00209af1 + trtllm-llmapi-launch (multi-node ranks come from MPI: srun or "
             "mpirun)",
             "%s", "");
    double u = dflag(f, "--kv_cache_free_gpu_memory_fraction", 0.9);
    rule(r, u >= 0 && u <= 1,
         "tensorrt_llm/llmapi/llm_args.py@fcd3f316 KvCacheConfig.validate_free_gpu_memory_fraction (0 <= v <= 1)", "%g",
         u);
    service_rules(r, f, "--host");
}

/* Megatron-LM core_v0.19.0: megatron/training/arguments.py (A) and
 * megatron/core/transformer/transformer_config.py (T). */
static void pipeline_rules(report *r, const flags *f, long long layers, long long pp)
{
    long long first = iflag(f, "--decoder-first-pipeline-num-layers", 0);
    long long last = iflag(f, "--decoder-last-pipeline-num-layers", 0);
    long long lpvs = iflag(f, "--num-layers-per-virtual-pipeline-stage", 0);
    long long vpp = iflag(f, "--num-virtual-stages-per-pipeline-rank", lpvs && pp ? layers / pp / lpvs : 1);
    rule(r,
         (lpvs > 0) + (flag(f, "--num-virtual-stages-per-pipeline-rank") != NULL) +
                 (flag(f, "--pipeline-model-parallel-layout") != NULL) <=
             1,
         "Megatron A:893 (one way to give virtual stages)", "%s", "");
    if (!first && !last) {
        rule(r, layers % pp == 0, "Megatron A:963 (layers divisible by PP)", "%lld %% %lld", layers, pp);
        if (lpvs)
            rule(r, (layers / pp) % lpvs == 0,
                 "Megatron A:938 (layers per stage divisible by layers per virtual stage)", "%s", "");
    } else {
        rule(r, !lpvs, "Megatron A:921 (uneven stages take --num-virtual-stages-per-pipeline-rank)", "%s", "");
        long long mid_layers = layers - first - last, mid_stages = pp - (first > 0) - (last > 0);
        rule(r, first >= 0 && last >= 0, "Megatron T:1998/:2017 (first/last stage layers > 0)", "%s", "");
        rule(r, (mid_layers != 0) == (mid_stages != 0), "Megatron T:2036 (middle layers iff middle stages)", "%s", "");
        rule(r, !mid_stages || mid_layers % mid_stages == 0,
             "Megatron T:2044 (middle layers divisible by middle stages)", "%lld %% %lld", mid_layers, mid_stages);
        rule(r,
             vpp <= 1 || (first % vpp == 0 && last % vpp == 0 && (!mid_stages || (mid_layers / mid_stages) % vpp == 0)),
             "Megatron T:2005/:2024/:2058 (every stage's layers divisible by virtual stages)", "%s", "");
    }
    if (vpp > 1)
        rule(r, pp > 1, "Megatron A:968 (interleaving needs PP > 1)", "%s", "");
}

/* --overlap-moe-expert-parallel-comm (core_v0.19.0 transformer_config.py:2669-2713). */
static void moe_overlap_rules(report *r, const flags *f, long long pp)
{
    if (!flag(f, "--overlap-moe-expert-parallel-comm"))
        return;
    const char *disp = flag(f, "--moe-token-dispatcher-type"), *gran = flag(f, "--recompute-granularity");
    long long vpp = iflag(f, "--num-virtual-stages-per-pipeline-rank", 0);
    rule(r, iflag(f, "--expert-model-parallel-size", 1) > 1, "Megatron T:2680 (EP overlap needs EP > 1)", "%s", "");
    rule(r, disp && (!strcmp(disp, "alltoall") || !strcmp(disp, "flex")),
         "Megatron T:2683 (EP overlap needs the alltoall or flex dispatcher)", "%s",
         disp ? disp : "(default allgather)");
    rule(r, !gran || strcmp(gran, "full"), "Megatron T:2688 (EP overlap refuses full recomputation)", "%s", "");
    rule(r, !flag(f, "--recompute-method") && !flag(f, "--recompute-num-layers"),
         "Megatron T:2691/:2694 (EP overlap: no recompute method or layer count)", "%s", "");
    rule(r, flag(f, "--bf16") || flag(f, "--fp16"), "Megatron T:2702 (EP overlap needs a bf16 or fp16 model)", "%s",
         "");
    rule(r, pp <= 1 || vpp > 1 || flag(f, "--num-layers-per-virtual-pipeline-stage"),
         "Megatron T:2674 (EP overlap with PP > 1 needs virtual pipeline stages)", "%s", "");
}

/* --recompute-modules (nargs '*': the words up to the next flag), core_v0.19.0
 * transformer_config.py:1768-1827: known names, moe_act only with --moe-grouped-gemm, mla_up_proj
 * only with --multi-latent-attention, fp8 with moe_act or layernorm not under delayed scaling
 * (the default --fp8-recipe). Selective granularity is where the modules are read. */
static void recompute_module_rules(report *r, const flags *f)
{
    const char *p = strstr(f->text, " --recompute-modules ");
    if (!p)
        return;
    static const char *const known[] = {"core_attn", "moe_act", "layernorm",      "mla_up_proj",
                                        "mlp",       "moe",     "shared_experts", "gdn_norm_out"};
    int moe_act = 0, layernorm = 0, mla = 0;
    p += strlen(" --recompute-modules ");
    while (*p && *p != '\n') {
        while (*p == ' ')
            p++;
        size_t n = strcspn(p, " \n");
        if (n == 0 || strncmp(p, "--", 2) == 0)
            break;
        int ok = 0;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok |= strlen(known[i]) == n && strncmp(known[i], p, n) == 0;
        rule(r, ok, "Megatron T:1780 (recompute modules are known names)", "%.*s", (int)n, p);
        moe_act |= n == 7 && !strncmp(p, "moe_act", 7);
        layernorm |= n == 9 && !strncmp(p, "layernorm", 9);
        mla |= n == 11 && !strncmp(p, "mla_up_proj", 11);
        p += n;
    }
    const char *gran = flag(f, "--recompute-granularity");
    rule(r, gran && !strcmp(gran, "selective"), "Megatron T:1766 (modules are read under selective granularity)", "%s",
         gran ? gran : "(none)");
    rule(r, !moe_act || flag(f, "--moe-grouped-gemm"), "Megatron T:1786 (moe_act needs --moe-grouped-gemm)", "%s", "");
    rule(r, !mla || flag(f, "--multi-latent-attention"), "Megatron T:1791 (mla_up_proj needs MLA)", "%s", "");
    const char *recipe = flag(f, "--fp8-recipe");
    rule(r, !flag(f, "--fp8-format") || !(moe_act || layernorm) || (recipe && strcmp(recipe, "delayed")),
         "Megatron T:1825 (fp8 moe_act/layernorm recompute refuses delayed scaling, the default recipe)", "%s",
         recipe ? recipe : "(delayed)");
}

static void megatron_rules(report *r, const flags *f)
{
    long long tp = iflag(f, "--tensor-model-parallel-size", 1), pp = iflag(f, "--pipeline-model-parallel-size", 1);
    long long cp = iflag(f, "--context-parallel-size", 1);
    long long world = iflag(f, "--nnodes", 1) * iflag(f, "--nproc-per-node", 1);
    rule(r, world % (tp * pp * cp) == 0, "Megatron A:430 (world divisible by TP x PP x CP)", "%lld", world);
    long long dp = world / (tp * pp * cp);
    long long mbs = iflag(f, "--micro-batch-size", 1), gbs = iflag(f, "--global-batch-size", mbs * dp);
    rule(r, mbs > 0 && gbs % (mbs * dp) == 0,
         "Megatron core/num_microbatches_calculator.py:381 (global batch divisible by micro x DP)", "%lld %% %lld", gbs,
         mbs * dp);
    char env[32];
    const char *cdmc = var(f, "CUDA_DEVICE_MAX_CONNECTIONS", env, sizeof env);
    int fsdp = flag(f, "--use-megatron-fsdp") != NULL;
    const char *ckpt = flag(f, "--ckpt-format");
    if (fsdp) {
        rule(r, !cdmc || strcmp(cdmc, "1"), "Megatron A:1143 (FSDP needs CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset)",
             "%s", "");
        rule(r, ckpt && !strcmp(ckpt, "fsdp_dtensor"),
             "Megatron A:1146 (Megatron-FSDP needs --ckpt-format fsdp_dtensor)", "%s", "");
    } else if (tp > 1 || cp > 1)
        rule(r, cdmc && !strcmp(cdmc, "1"),
             "Megatron A:1437 (TP/CP before Blackwell needs CUDA_DEVICE_MAX_CONNECTIONS=1)", "%s", "");
    rule(r, !ckpt || strcmp(ckpt, "fsdp_dtensor") || fsdp, "Megatron A:1621 (fsdp_dtensor only with Megatron-FSDP)",
         "%s", "");
    rule(r, !flag(f, "--optimizer-cpu-offload") || flag(f, "--use-precision-aware-optimizer"),
         "Megatron A:1804 (optimizer CPU offload needs --use-precision-aware-optimizer)", "%s", "");
    rule(r, !(flag(f, "--lr-warmup-iters") && flag(f, "--lr-warmup-fraction")),
         "Megatron A:1246 (one of lr-warmup-fraction and lr-warmup-iters)", "%s", "");
    pipeline_rules(r, f, iflag(f, "--num-layers", 0), pp);
    moe_overlap_rules(r, f, pp);
    recompute_module_rules(r, f);
    rule(r, flag(f, "--save") != NULL, "docs/export.md (a training run keeps checkpoints: --save)", "%s", "");
}

/* DeepSpeed v0.19.5 deepspeed/runtime/config.py and runtime/engine.py. */
static void deepspeed_rules(report *r, const char *json, const flags *launch)
{
    json_error_t e;
    json_t *c = json_loads(json, 0, &e);
    rule(r, c != NULL, "DeepSpeed config.py:690 (the config is JSON)", "%s", e.text);
    if (!c)
        return;
    long long world = iflag(launch, "--num_nodes", 1) * iflag(launch, "--num_gpus", 1);
    long long tb = json_integer_value(json_object_get(c, "train_batch_size"));
    long long mb = json_integer_value(json_object_get(c, "train_micro_batch_size_per_gpu"));
    long long ga = json_integer_value(json_object_get(c, "gradient_accumulation_steps"));
    rule(r, tb > 0 && mb > 0 && ga > 0, "DeepSpeed config.py:918 (batch sizes > 0)", "%s", "");
    rule(r, tb == mb * ga * world,
         "DeepSpeed config.py:924 (train_batch_size = micro x gradient_accumulation x world; world counts every rank, "
         "config.py:712)",
         "%lld != %lld x %lld x %lld", tb, mb, ga, world);
    json_t *z = json_object_get(c, "zero_optimization");
    long long stage = json_integer_value(json_object_get(z, "stage"));
    int off_opt = json_object_get(z, "offload_optimizer") != NULL,
        off_par = json_object_get(z, "offload_param") != NULL;
    rule(r, !off_par || stage == 3, "DeepSpeed runtime/zero/config.py (offload_param only with stage 3)", "%s", "");
    rule(r, !off_opt || stage >= 1, "DeepSpeed runtime/zero/config.py (offload_optimizer needs ZeRO 1-3)", "%s", "");
    rule(r, !off_opt || json_object_get(c, "optimizer"),
         "DeepSpeed runtime/engine.py:1998 (ZeRO-Offload refuses a client optimizer: zero_force_ds_cpu_optimizer)",
         "%s", "");
    json_t *sch = json_object_get(c, "scheduler");
    if (sch &&
        !strcmp(json_string_value(json_object_get(sch, "type")) ? json_string_value(json_object_get(sch, "type")) : "",
                "WarmupCosineLR")) {
        json_t *p = json_object_get(sch, "params");
        rule(r,
             json_integer_value(json_object_get(p, "warmup_num_steps")) > 0 &&
                 json_integer_value(json_object_get(p, "total_num_steps")) > 0,
             "DeepSpeed runtime/lr_schedules.py:845 (WarmupCosineLR steps are positive integers)", "%s", "");
    }
    long long tp = json_integer_value(json_object_get(json_object_get(c, "tensor_parallel"), "autotp_size"));
    rule(r, tp <= 1 || world % tp == 0, "DeepSpeed AutoTP (autotp_size divides the world)", "%s", "");
    json_decref(c);
}

static void slurm_rules(report *r, const flags *f)
{
    long long nodes = 0, gpn = 0;
    const char *p = strstr(f->text, "#SBATCH --nodes=");
    if (p)
        nodes = atoll(p + 16);
    p = strstr(f->text, "#SBATCH --gpus-per-node=");
    if (p)
        gpn = atoll(p + 24);
    if (strstr(f->text, "torchrun")) {
        rule(r, nodes == iflag(f, "--nnodes", 0), "Slurm + torchrun (srun starts one torchrun per node)", "%s", "");
        rule(r, gpn == iflag(f, "--nproc-per-node", 0), "torchrun --nproc-per-node = --gpus-per-node", "%s", "");
        rule(r, strstr(f->text, "#SBATCH --mem=0") != NULL, "docs/export.md (Slurm --mem=0: all of each node's memory)",
             "%s", "");
    }
    if (strstr(f->text, "pretrain_gpt.py"))
        megatron_rules(r, f);
}

/* torchrun + FSDP: the batch the module states is micro x accumulation x ranks, and torchrun
 * starts one process per GPU of the layout (torch/distributed/run.py --nproc-per-node). */
static long long py_const(const char *text, const char *name)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\n%s = ", name);
    const char *p = strstr(text, pat);
    return p ? atoll(p + strlen(pat)) : -1;
}

static void fsdp_rules(report *r, const flags *launch, const char *py)
{
    long long mb = py_const(py, "MICRO_BATCH"), ga = py_const(py, "GRAD_ACCUM"), gb = py_const(py, "GLOBAL_BATCH");
    long long world = iflag(launch, "--nnodes", 1) * iflag(launch, "--nproc-per-node", 1);
    rule(r, mb > 0 && ga > 0 && gb == mb * ga * world, "FSDP data parallelism (global = micro x accumulation x ranks)",
         "%lld != %lld x %lld x %lld", gb, mb, ga, world);
    rule(r, strstr(py, "ShardingStrategy.") != NULL, "torch.distributed.fsdp (a ShardingStrategy member)", "%s", "");
}

/* ---- replicas: what runs each copy ------------------------------------------------------ */

/* GPUs one server needs: TP x PP (x DP where the server runs its DP copies itself), in
 * whichever engine's spelling the command uses. */
static long long copy_gpus(const flags *f)
{
    long long tp = iflag(f, "--tensor-parallel-size", iflag(f, "--tp-size", iflag(f, "--tp_size", 1)));
    long long pp = iflag(f, "--pipeline-parallel-size", iflag(f, "--pp-size", iflag(f, "--pp_size", 1)));
    long long dp = iflag(f, "--data-parallel-size", iflag(f, "--dp-size", 1)); /* vLLM, SGLang: in one server */
    return tp * pp * dp * iflag(f, "--cp_size", 1);
}

/* A variable the command expands must be set before the shell expands it ("X=1 cmd "$X""
 * expands $X before X is set; "export X=1; cmd" does not). */
static void expanded_after_set(report *r, const char *text, const char *name, const char *source)
{
    char use[64], set[64];
    snprintf(use, sizeof use, "\"$%s", name);
    snprintf(set, sizeof set, "export %s=", name);
    const char *u = strstr(text, use);
    if (!u)
        return;
    const char *s = strstr(text, set);
    rule(r, s && s < u, source, "$%s is expanded before it is set", name);
}

/* serve.sbatch: the allocation holds the copy; multi-node copies start one process per node
 * (SGLang --nnodes, vLLM over Ray) or one MPI rank per GPU (TensorRT-LLM). */
static void serve_sbatch_rules(report *r, const char *text)
{
    flags *f = malloc(sizeof *f);
    assert_non_null(f);
    parse_flags(text, f);
    long long nodes = sbatch_num(f->text, "#SBATCH --nodes="), gpn = sbatch_num(f->text, "#SBATCH --gpus-per-node=");
    long long tasks = sbatch_num(f->text, "#SBATCH --ntasks-per-node=");
    rule(r, nodes >= 1 && gpn >= 1 && strstr(f->text, "#SBATCH --array=0-"), "Slurm sbatch (an array of allocations)",
         "%s", "");
    rule(r, nodes * gpn >= copy_gpus(f), "Slurm sbatch (the allocation holds TP x PP GPUs)", "%lld x %lld < %lld",
         nodes, gpn, copy_gpus(f));
    if (strstr(f->text, "trtllm-serve")) {
        long long sn = sbatch_num(f->text, "srun --mpi=pmix --nodes "), st = sbatch_num(f->text, "--ntasks-per-node ");
        long long ranks = sbatch_num(f->text, " --ntasks ");
        rule(r, (nodes == 1 && !sn) || (sn == nodes && st == tasks && ranks == copy_gpus(f) && ranks <= nodes * tasks),
             "Slurm srun within sbatch (the ranks fit the allocation: one per GPU)", "%s", "");
        trtllm_rules(r, f, NULL);
    } else if (nodes > 1) {
        rule(r, strstr(f->text, "srun --nodes=") && iflag(f, "--nnodes", nodes) == nodes,
             "Slurm srun (one process per node of the allocation)", "%s", "");
        if (strstr(f->text, "vllm serve"))
            rule(r, strstr(f->text, "ray start --head") && strstr(f->text, "ray start --address="),
                 "vLLM multi-node (Ray head on node 0, workers join it)", "%s", "");
        expanded_after_set(r, f->text, "NODE_RANK",
                           "POSIX sh (an assignment before a command does not reach its words)");
    }
    free(f);
}

/* One LeaderWorkerSet group runs one copy: size pods x GPUs per pod hold TP x PP; TensorRT-LLM's
 * leader starts one MPI rank per GPU of the group over ssh to the workers' sshd. */
static const char *ctr_args(json_t *pod_template)
{
    json_t *c = json_array_get(json_object_get(json_object_get(pod_template, "spec"), "containers"), 0);
    return json_string_value(json_array_get(json_object_get(c, "args"), 0));
}

static long long ctr_gpus(json_t *pod_template)
{
    json_t *c = json_array_get(json_object_get(json_object_get(pod_template, "spec"), "containers"), 0);
    json_t *g = json_object_get(json_object_get(json_object_get(c, "resources"), "limits"), "nvidia.com/gpu");
    return json_is_integer(g) ? json_integer_value(g) : json_is_string(g) ? atoll(json_string_value(g)) : 0;
}

static void files_written(report *r, const char *args)
{
    const char *y = strstr(args, "--extra_llm_api_options ");
    if (!y)
        return;
    char name[128];
    snprintf(name, sizeof name, "cat > %.*s ", (int)strcspn(y + 24, " \n"), y + 24);
    rule(r, strstr(args, name) != NULL, "TensorRT-LLM serve.py (--extra_llm_api_options names a file the pod has)",
         "%s", "");
}

static void k8s_group_rules(report *r, json_t *item, const char *kind)
{
    flags *f = malloc(sizeof *f);
    assert_non_null(f);
    int lws = !strcmp(kind, "LeaderWorkerSet");
    json_t *lwt = json_object_get(json_object_get(item, "spec"), "leaderWorkerTemplate");
    json_t *lead =
        lws ? json_object_get(lwt, "leaderTemplate") : json_object_get(json_object_get(item, "spec"), "template");
    const char *la = ctr_args(lead);
    if (la) {
        parse_flags(la, f);
        long long size = lws ? json_integer_value(json_object_get(lwt, "size")) : 1;
        rule(r, size * ctr_gpus(lead) >= copy_gpus(f), "LeaderWorkerSet size x GPUs per pod hold TP x PP",
             "%lld x %lld < %lld", size, ctr_gpus(lead), copy_gpus(f));
        files_written(r, la);
        expanded_after_set(r, la, "NODE_RANK", "POSIX sh (an assignment before a command does not reach its words)");
        if (lws && strstr(la, "trtllm-serve")) {
            const char *wa = ctr_args(json_object_get(lwt, "workerTemplate"));
            rule(r,
                 strstr(la, "mpirun") && sbatch_num(la, "-np ") == copy_gpus(f) &&
                     copy_gpus(f) <= size * ctr_gpus(lead) && strstr(la, "trtllm-llmapi-launch"),
                 "TensorRT-LLM multi-node (mpirun starts one rank per GPU of the group through trtllm-llmapi-launch)",
                 "%s", "");
            rule(r, wa && strstr(wa, "sshd") && strstr(wa, " -D"), "mpirun over ssh (the workers run sshd)", "%s", "");
        }
        if (lws && strstr(la, "vllm serve")) {
            const char *wa = ctr_args(json_object_get(lwt, "workerTemplate"));
            rule(r, strstr(la, "ray start --head") && wa && strstr(wa, "ray start --address=$LWS_LEADER_ADDRESS"),
                 "vLLM multi-node (Ray head on the leader, workers join it)", "%s", "");
        }
    }
    free(f);
}

/* ---- Kubernetes manifests against tests/k8s/schema.json ---------------------------------- */

static json_t *k8s_schema(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/k8s/schema.json", GP_SOURCE_DIR);
    json_t *s = json_load_file(path, 0, NULL);
    assert_non_null(s);
    return s;
}

static int type_ok(json_t *v, const char *t)
{
    if (!strcmp(t, "string"))
        return json_is_string(v);
    if (!strcmp(t, "integer"))
        return json_is_integer(v);
    if (!strcmp(t, "object"))
        return json_is_object(v);
    if (!strcmp(t, "array"))
        return json_is_array(v);
    if (!strcmp(t, "boolean"))
        return json_is_boolean(v);
    if (!strcmp(t, "number"))
        return json_is_number(v);
    if (!strcmp(t, "int-or-string"))
        return json_is_integer(v) || json_is_string(v);
    if (!strcmp(t, "quantity"))
        return json_is_integer(v) || json_is_string(v);
    return 0;
}

/* Check v against definition `def`: required fields present, known fields only, types, and
 * nested definitions ("$ref" for objects, "items" for arrays). */
static void k8s_check(report *r, json_t *defs, const char *def, json_t *v, const char *path)
{
    json_t *d = json_object_get(defs, def);
    rule(r, d != NULL, "tests/k8s/schema.json", "no definition %s", def);
    if (!d)
        return;
    rule(r, json_is_object(v), "Kubernetes OpenAPI", "%s is not an object (%s)", path, def);
    if (!json_is_object(v))
        return;
    size_t i;
    json_t *req;
    json_array_foreach(json_object_get(d, "required"), i, req)
        rule(r, json_object_get(v, json_string_value(req)) != NULL, "Kubernetes OpenAPI (required)", "%s.%s (%s)", path,
             json_string_value(req), def);
    json_t *props = json_object_get(d, "properties");
    if (json_is_true(json_object_get(d, "additionalProperties")))
        return;
    const char *k;
    json_t *val;
    json_object_foreach(v, k, val)
    {
        json_t *p = json_object_get(props, k);
        rule(r, p != NULL, "Kubernetes OpenAPI (unknown field)", "%s.%s (%s)", path, k, def);
        if (!p)
            continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s.%s", path, k);
        const char *ref = json_string_value(json_object_get(p, "$ref"));
        const char *t = json_string_value(json_object_get(p, "type"));
        if (ref)
            k8s_check(r, defs, ref, val, sub);
        else if (t) {
            rule(r, type_ok(val, t), "Kubernetes OpenAPI (type)", "%s is not %s", sub, t);
            const char *items = json_string_value(json_object_get(p, "items"));
            size_t j;
            json_t *it;
            if (items && json_is_array(val))
                json_array_foreach(val, j, it)
                {
                    if (!json_object_get(defs, items))
                        rule(r, type_ok(it, items), "Kubernetes OpenAPI (type)", "%s[%zu] is not %s", sub, j, items);
                    else
                        k8s_check(r, defs, items, it, sub);
                }
            const char *values = json_string_value(json_object_get(p, "values"));
            if (values && json_is_object(val)) {
                const char *kk;
                json_t *vv;
                json_object_foreach(val, kk, vv)
                    rule(r, type_ok(vv, values), "Kubernetes OpenAPI (map values)", "%s.%s is not %s", sub, kk, values);
            }
        }
    }
}

/* What kubectl and the API server ask of every object beyond its OpenAPI definition. */
static void k8s_object_rules(report *r, json_t *obj_rules, json_t *it, const char *kind)
{
    size_t i;
    json_t *req;
    json_array_foreach(json_object_get(obj_rules, "required"), i, req)
        rule(r, json_object_get(it, json_string_value(req)) != NULL, "kubectl apply (apiVersion, kind, metadata)",
             "%s has no %s", kind, json_string_value(req));
    json_array_foreach(json_object_get(obj_rules, "metadata_required"), i, req)
        rule(r, json_is_string(json_object_get(json_object_get(it, "metadata"), json_string_value(req))),
             "Kubernetes API server (metadata.name)", "%s has no metadata.%s", kind, json_string_value(req));
}

static void k8s_rules(report *r, const char *json)
{
    json_t *schema = k8s_schema();
    json_t *defs = json_object_get(schema, "definitions");
    json_t *kinds = json_object_get(schema, "kinds");
    json_t *doc = json_loads(json, 0, NULL);
    rule(r, doc != NULL, "kubectl apply -f (JSON)", "deploy.json is not JSON");
    if (doc) {
        k8s_check(r, defs, "List", doc, "List");
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(doc, "items"), i, it)
        {
            const char *kind = json_string_value(json_object_get(it, "kind"));
            const char *api = json_string_value(json_object_get(it, "apiVersion"));
            json_t *k = json_object_get(kinds, kind ? kind : "");
            rule(r, k && api && !strcmp(api, json_string_value(json_object_get(k, "apiVersion"))),
                 "tests/k8s/schema.json (kinds)", "%s %s", api ? api : "?", kind ? kind : "?");
            if (k)
                k8s_check(r, defs, json_string_value(json_object_get(k, "definition")), it, kind);
            if (kind && strcmp(kind, "Service"))
                k8s_group_rules(r, it, kind);
            k8s_object_rules(r, json_object_get(schema, "object"), it, kind ? kind : "?");
            /* the API key comes from a Secret, GPUs are requested, readiness is probed */
            char *text = json_dumps(it, 0);
            if (text && strstr(text, "\"containers\"")) {
                rule(r, strstr(text, "secretKeyRef") != NULL, "docs/export.md (API key from a Secret)", "%s", kind);
                rule(r, strstr(text, "nvidia.com/gpu") != NULL, "docs/export.md (GPU requests)", "%s", kind);
                rule(r, strstr(text, "readinessProbe") != NULL, "docs/export.md (readiness probe)", "%s", kind);
            }
            free(text);
        }
    }
    json_decref(doc);
    json_decref(schema);
}

/* ---- one export ------------------------------------------------------------------------- */

typedef struct file_view {
    const char *name;
    const char *content;
} file_view;

static const char *find(const file_view *fs, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(fs[i].name, name))
            return fs[i].content;
    return NULL;
}

/* Check every file of one export; returns the failures. */
static int check_export_q(const char *where, const file_view *fs, int n, int quiet)
{
    report r;
    memset(&r, 0, sizeof r);
    r.quiet = quiet;
    snprintf(r.where, sizeof r.where, "%s", where);
    flags *f = malloc(sizeof *f);
    assert_non_null(f);
    const char *launch = find(fs, n, "launch.sh");
    int qsh = find(fs, n, "quantize.sh") != NULL;
    if (launch) {
        parse_flags(launch, f);
        if (strstr(f->text, "vllm serve"))
            vllm_rules(&r, f, qsh);
        else if (strstr(f->text, "sglang.launch_server"))
            sglang_rules(&r, f, qsh);
        else if (strstr(f->text, "text-generation-launcher"))
            tgi_rules(&r, f, qsh);
        else if (strstr(f->text, "llama-server"))
            llamacpp_rules(&r, f);
        else if (strstr(f->text, "trtllm-serve"))
            trtllm_rules(&r, f, find(fs, n, "extra_llm_api_options.yaml"));
        else if (strstr(f->text, "pretrain_gpt.py"))
            megatron_rules(&r, f);
        const char *ds = find(fs, n, "ds_config.json");
        if (ds)
            deepspeed_rules(&r, ds, f);
    }
    const char *sb = find(fs, n, "job.sbatch");
    if (sb) {
        parse_flags(sb, f);
        slurm_rules(&r, f);
    }
    const char *py = find(fs, n, "fsdp_config.py");
    if (py && (launch || sb))
        fsdp_rules(&r, f, py); /* f holds the launcher last parsed (launch.sh or job.sbatch) */
    const char *ssb = find(fs, n, "serve.sbatch");
    if (ssb)
        serve_sbatch_rules(&r, ssb);
    const char *k8s = find(fs, n, "deploy.json");
    if (k8s)
        k8s_rules(&r, k8s);
    free(f);
    return r.failures;
}

static int check_export(const char *where, const file_view *fs, int n)
{
    return check_export_q(where, fs, n, 0);
}

/* The checker's own cases: the failures counted are the rules the old exports broke. */
static int caught(const char *where, const file_view *fs, int n)
{
    return check_export_q(where, fs, n, 1);
}

/* ---- the golden set ---------------------------------------------------------------------- */

static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *p = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (p) {
        size_t got = fread(p, 1, (size_t)n, fp);
        p[got] = '\0';
    }
    fclose(fp);
    return p;
}

static void test_golden(void **state)
{
    (void)state;
    char root[1024];
    snprintf(root, sizeof root, "%s/tests/golden", GP_SOURCE_DIR);
    DIR *engines = opendir(root);
    assert_non_null(engines);
    int cases = 0, failures = 0;
    struct dirent *e;
    while ((e = readdir(engines)) != NULL) {
        if (e->d_name[0] == '.' || strchr(e->d_name, '.'))
            continue;
        char edir[1400];
        snprintf(edir, sizeof edir, "%s/%s", root, e->d_name);
        DIR *cs = opendir(edir);
        if (!cs)
            continue;
        struct dirent *c;
        while ((c = readdir(cs)) != NULL) {
            if (c->d_name[0] == '.')
                continue;
            char cdir[1800];
            snprintf(cdir, sizeof cdir, "%s/%s", edir, c->d_name);
            DIR *files = opendir(cdir);
            if (!files)
                continue;
            file_view fs[GP_EXPORT_MAX_FILES];
            char names[GP_EXPORT_MAX_FILES][256];
            int n = 0;
            struct dirent *x;
            while ((x = readdir(files)) != NULL && n < GP_EXPORT_MAX_FILES) {
                if (x->d_name[0] == '.')
                    continue;
                char fp[2200];
                snprintf(fp, sizeof fp, "%s/%s", cdir, x->d_name);
                snprintf(names[n], sizeof names[n], "%s", x->d_name);
                fs[n].name = names[n];
                fs[n].content = slurp(fp);
                if (fs[n].content)
                    n++;
            }
            closedir(files);
            failures += check_export(cdir, fs, n);
            for (int i = 0; i < n; i++)
                free((void *)fs[i].content);
            cases++;
        }
        closedir(cs);
    }
    closedir(engines);
    assert_true(cases >= 11);
    assert_int_equal(failures, 0);
}

/* ---- the generated grid ------------------------------------------------------------------ */

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

typedef struct grid_layout {
    int tp, pp, dp, ep, zero, vpp;
    gp_offload offload;
} grid_layout;

static int render_and_check(gpi_export_target eng, const gpi_export_job *job, const char *what, int *rendered)
{
    gp_export_files *f = malloc(sizeof *f);
    assert_non_null(f);
    gp_error err;
    int failures = 0;
    if (gpi_export_render(eng, job, f, &err) == GP_OK) {
        file_view fs[GP_EXPORT_MAX_FILES];
        for (int i = 0; i < f->n; i++)
            fs[i].name = f->files[i].name, fs[i].content = f->files[i].content;
        failures = check_export(what, fs, f->n);
        (*rendered)++;
        gp_export_files_free(f);
    } else
        /* a refusal names its reason */
        assert_true(strlen(err.msg) > 10);
    free(f);
    return failures;
}

static void test_grid(void **state)
{
    (void)state;
    static const char *const models[] = {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b",
                                         "mixtral-8x7b", "deepseek-v3",   "qwen2.5-72b"};
    static const gp_dtype dtypes[] = {GP_DTYPE_BF16, GP_DTYPE_FP8, GP_DTYPE_INT8, GP_DTYPE_INT4, GP_DTYPE_NF4};
    static const grid_layout layouts[] = {
        {1, 1, 1, 1, 0, 1, GP_OFFLOAD_NONE},      {2, 1, 1, 1, 1, 1, GP_OFFLOAD_NONE},
        {8, 1, 2, 1, 2, 1, GP_OFFLOAD_NONE},      {8, 2, 2, 8, 3, 1, GP_OFFLOAD_NONE},
        {4, 8, 2, 4, 1, 1, GP_OFFLOAD_NONE},      {8, 16, 1, 8, 1, 1, GP_OFFLOAD_NONE},
        {2, 1, 8, 1, 3, 1, GP_OFFLOAD_OPTIMIZER}, {8, 4, 2, 1, 1, 2, GP_OFFLOAD_NONE},
    };
    int failures = 0, rendered = 0;
    for (size_t mi = 0; mi < sizeof models / sizeof models[0]; mi++) {
        gp_model m;
        assert_int_equal(gp_catalog_find_model(cat, models[mi], &m, NULL), GP_OK);
        for (size_t li = 0; li < sizeof layouts / sizeof layouts[0]; li++)
            for (size_t di = 0; di < sizeof dtypes / sizeof dtypes[0]; di++)
                for (int e = 0; e < GPI_EXPORT_COUNT; e++) {
                    const grid_layout *g = &layouts[li];
                    gp_workload w;
                    gpi_workload_defaults(&w, gpi_export_engine_task((gpi_export_target)e, GP_TASK_INFER));
                    w.dtype = dtypes[di];
                    w.context = 32768;
                    w.kv_dtype = di % 2 ? GP_DTYPE_FP8 : GP_DTYPE_INT8;
                    w.flash_attention = (int)(li % 2);
                    w.offload = g->offload;
                    gp_layout l;
                    gpi_layout_defaults(&l);
                    l.tp = g->tp, l.pp = g->pp, l.dp = g->dp, l.ep = g->ep, l.zero = g->zero;
                    l.virtual_stages = g->vpp, l.sequence_parallel = 1;
                    l.micro_batch = 1 + (int64_t)(li % 2), l.global_batch = 16 * l.micro_batch * l.dp;
                    if (li % 4 == 1) { /* Megatron-Core's selective modules, as each model admits them */
                        l.recompute = GP_RECOMPUTE_SELECTIVE;
                        l.recompute_modules = m.experts > 0 ? GP_RECOMPUTE_LAYERNORM | GP_RECOMPUTE_MOE_ACT
                                                            : GP_RECOMPUTE_LAYERNORM | GP_RECOMPUTE_MLP;
                        if (m.kv_lora_rank > 0)
                            l.recompute_modules |= GP_RECOMPUTE_MLA_UP_PROJ;
                    }
                    gpi_export_job job;
                    gpi_export_job_defaults(&job);
                    job.model = &m, job.w = &w, job.l = &l, job.gpus_per_node = 8;
                    job.replicas = (int)(li % 3) + 1, job.audit_log = (int)(di % 2), job.chat = 1;
                    job.catalog = cat;
                    job.ep_overlap = (int)(di % 2); /* Megatron: --overlap-moe-expert-parallel-comm where admitted */
                    char what[160];
                    snprintf(what, sizeof what, "%s %s TP%d PP%d DP%d EP%d ZeRO-%d %s", gpi_export_engine_name(e),
                             models[mi], g->tp, g->pp, g->dp, g->ep, g->zero, gp_dtype_name(dtypes[di]));
                    failures += render_and_check((gpi_export_target)e, &job, what, &rendered);
                }
    }
    fprintf(stderr, "grid: %d exports rendered and checked\n", rendered);
    assert_true(rendered > 300);
    assert_int_equal(failures, 0);
}

/* The checker itself: each rule catches the export it is for (the issue's rows). */
static void test_checker_catches(void **state)
{
    (void)state;
    file_view meg = {"launch.sh",
                     "#!/bin/sh\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\ntorchrun --nnodes 8 --nproc-per-node 8 "
                     "pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 1 "
                     "--use-megatron-fsdp --num-layers 80 --micro-batch-size 1 --global-batch-size 64 "
                     "--save x\n"};
    assert_int_equal(caught("fsdp with CDMC=1, no fsdp_dtensor", &meg, 1), 2);
    file_view pp = {"launch.sh",
                    "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py --pipeline-model-parallel-size "
                    "8 --num-layers 61 --save x\n"};
    assert_int_equal(caught("61 layers on PP 8", &pp, 1), 1);
    file_view ovl = {"launch.sh",
                     "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py --pipeline-model-parallel-size "
                     "2 --num-layers 48 --num-experts 128 --overlap-moe-expert-parallel-comm "
                     "--recompute-granularity full --recompute-method uniform --bf16 --save x\n"};
    assert_int_equal(caught("EP overlap without EP, dispatcher or VPP; full recompute", &ovl, 1), 5);
    /* fp8 (delayed scaling by default) recomputing layernorm and moe_act, moe_act without the
     * grouped GEMM, an unknown module, and modules under full granularity */
    file_view rcm = {"launch.sh",
                     "torchrun --nnodes 1 --nproc-per-node 8 pretrain_gpt.py --num-layers 48 --fp8-format hybrid "
                     "--recompute-granularity full --recompute-modules layernorm moe_act attn --bf16 --save x\n"};
    assert_int_equal(caught("fp8 delayed with layernorm/moe_act, no grouped GEMM, unknown name, full", &rcm, 1), 4);
    file_view ds[2] = {{"launch.sh", "deepspeed --num_nodes 2 --num_gpus 8 train.py\n"},
                       {"ds_config.json", "{\"train_batch_size\": 64, \"train_micro_batch_size_per_gpu\": 2, "
                                          "\"gradient_accumulation_steps\": 4, \"zero_optimization\": {\"stage\": 3, "
                                          "\"offload_optimizer\": {\"device\": \"cpu\"}}}"}};
    assert_int_equal(caught("64 != 2 x 4 x 16, no optimizer block", ds, 2), 2);
    file_view tgi = {"launch.sh", "# Layout: 8 x H100 (1 node); fp8 weights; max model len 4096\n"
                                  "text-generation-launcher --model-id x --dtype bfloat16 --quantize fp8 "
                                  "--hostname 0.0.0.0\n"};
    assert_int_equal(caught("dtype with quantize", &tgi, 1), 1);
    file_view lc = {"launch.sh", "llama-server --model a.gguf --ctx-size 8 --parallel 1 --flash-attn off "
                                 "--cache-type-v q8_0 --host 0.0.0.0\n"};
    assert_int_equal(caught("q8_0 V without flash attention", &lc, 1), 1);
    file_view tr = {"launch.sh", "trtllm-serve x --tp_size 8 --pp_size 2 --max_seq_len 32768 --max_num_tokens 8192\n"};
    assert_int_equal(caught("trtllm: 16 GPUs without MPI, 8192 < 32768, localhost", &tr, 1), 3);
    file_view sg = {"launch.sh", "python -m sglang.launch_server --model-path x --quantization bitsandbytes "
                                 "--api-key sk-123 --host 0.0.0.0\n"};
    assert_int_equal(caught("sglang nf4 without load format, literal key", &sg, 1), 2);
    file_view q = {"launch.sh", "# Layout: 2 x H100 (1 node), TP 2; int4 weights; max model len 4096\n"
                                "vllm serve meta-llama/Llama-3.1-70B --host 0.0.0.0\n"};
    assert_int_equal(caught("int4 plan serving the 16-bit checkpoint", &q, 1), 1);
    /* a misspelt field (readinesProbe), no metadata.name: unknown field, API server refusal,
     * and no readiness probe */
    file_view k8 = {
        "deploy.json",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": \"apps/v1\", \"kind\": "
        "\"Deployment\", \"metadata\": {}, \"spec\": {\"selector\": {}, \"template\": {\"spec\": "
        "{\"containers\": [{\"name\": \"engine\", \"args\": [\"vllm serve x\"], \"env\": [{\"name\": \"K\", "
        "\"valueFrom\": {\"secretKeyRef\": {\"key\": \"api-key\"}}}], \"resources\": {\"limits\": "
        "{\"nvidia.com/gpu\": 1}}, \"readinesProbe\": {}}]}}}}]}"};
    assert_int_equal(caught("misspelt readinessProbe, no name", &k8, 1), 3);
    /* the first LWS export: "NODE_RANK=... cmd --node-rank "$NODE_RANK"" expands $NODE_RANK
     * before the assignment; a TensorRT-LLM pod naming a YAML it does not have */
    file_view lws = {"deploy.json",
                     "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": "
                     "\"leaderworkerset.x-k8s.io/v1\", \"kind\": \"LeaderWorkerSet\", \"metadata\": {\"name\": \"x\"}, "
                     "\"spec\": {\"leaderWorkerTemplate\": {\"size\": 2, \"workerTemplate\": {}, \"leaderTemplate\": "
                     "{\"spec\": {\"containers\": [{\"name\": \"engine\", \"args\": [\"NODE_RANK=$LWS_WORKER_INDEX "
                     "python -m sglang.launch_server --tp-size 16 --nnodes 2 --node-rank \\\"$NODE_RANK\\\"\"], "
                     "\"env\": [{\"name\": \"K\", \"valueFrom\": {\"secretKeyRef\": {\"key\": \"k\"}}}], "
                     "\"resources\": {\"limits\": {\"nvidia.com/gpu\": 8}}, \"readinessProbe\": {}}]}}}}}]}"};
    assert_int_equal(caught("NODE_RANK set after it is expanded", &lws, 1), 1);
    file_view trd = {
        "deploy.json",
        "{\"apiVersion\": \"v1\", \"kind\": \"List\", \"items\": [{\"apiVersion\": \"apps/v1\", \"kind\": "
        "\"Deployment\", \"metadata\": {\"name\": \"x\"}, \"spec\": {\"selector\": {}, \"template\": "
        "{\"spec\": {\"containers\": [{\"name\": \"engine\", \"args\": [\"trtllm-serve x --tp_size 2 "
        "--extra_llm_api_options extra_llm_api_options.yaml --host 0.0.0.0\"], \"env\": [{\"name\": \"K\", "
        "\"valueFrom\": {\"secretKeyRef\": {\"key\": \"k\"}}}], \"resources\": {\"limits\": "
        "{\"nvidia.com/gpu\": 2}}, \"readinessProbe\": {}}]}}}}]}"};
    assert_int_equal(caught("trtllm pod without its YAML", &trd, 1), 1);
    /* a 2-node TensorRT-LLM replica in a Slurm task of 1 rank per node */
    file_view sb = {"serve.sbatch",
                    "#SBATCH --array=0-1\n#SBATCH --nodes=2\n#SBATCH --ntasks-per-node=1\n"
                    "#SBATCH --gpus-per-node=8\nsrun --mpi=pmix --nodes 2 --ntasks 16 --ntasks-per-node 8 "
                    "trtllm-llmapi-launch trtllm-serve x --tp_size 8 --pp_size 2 --max_seq_len 8 "
                    "--host 0.0.0.0\n"};
    assert_int_equal(caught("trtllm ranks beyond the allocation's tasks", &sb, 1), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_catches),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_grid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
