/* workload_opts.c: workload, layout and hardware flags shared by fit/train/serve/plan. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

const char cli_workload_help[] =
    "hardware:\n"
    "  --gpu ID             GPU type (default H100-SXM-80GB; see 'gpuplan gpus')\n"
    "workload:\n"
    "  --task T             infer (default), train, lora, qlora\n"
    "  --dtype T            weights precision: bf16 fp16 fp32 fp8 int8 int4 nf4 mxfp4 fp4\n"
    "                       (default: as the model is stored)\n"
    "  --kv-dtype T         KV-cache precision (default: 16-bit)\n"
    "  --context N          inference: tokens per sequence, prompt + output (default 4096)\n"
    "  --batch N            inference: concurrent sequences (default 1)\n"
    "  --seq N              training: sequence length (default 4096)\n"
    "  --optimizer O        adamw (default), adam8bit, sgd, adafactor\n"
    "  --offload O          none, optimizer, params\n"
    "  --lora-rank N        LoRA/QLoRA adapter rank (default 16)\n"
    "  --no-flash-attention store the s^2 attention matrix (eager attention)\n"
    "engine (inference):\n"
    "  --engine E           none (default), vllm, sglang, tgi, trtllm, llamacpp\n"
    "  --gpu-memory-utilization F   fraction of device memory the engine may use (0.9)\n"
    "  --block-size N       KV block size in tokens (16)\n"
    "  --max-num-batched-tokens N   prefill chunk the engine profiles (2048)\n"
    "layout (any given is fixed, the rest searched):\n"
    "  --tp N --pp N --dp N --cp N --ep N --zero 0..3 --micro-batch N --global-batch N\n"
    "  --recompute none|selective|full|op  --sequence-parallel  --virtual-stages N\n";

/* --gpu local: the first GPU NVML reports, mapped to its catalog entry (gpuplan probe). */
const char *cli_nvml_path(const char *given)
{
    if (given && *given)
        return given;
    const char *env = getenv("GPUPLAN_NVML_LIB");
    return env && *env ? env : NULL;
}

int cli_gpu_local(cli_common *common, const char *cmd, const char **id)
{
    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return -1;
    gp_probe *p = NULL;
    gp_error err;
    if (gp_probe_open(cli_nvml_path(NULL), &p, &err) != GP_OK) {
        cli_usage_error(common, cmd, "--gpu local: %s", err.msg);
        return -1;
    }
    int rc = -1;
    const gp_gpu *g = NULL;
    if (gp_probe_gpu_count(p) == 0)
        cli_usage_error(common, cmd, "--gpu local: NVML lists no GPU on this machine");
    else if (gp_probe_match(cat, gp_probe_gpu_at(p, 0), &g, &err) != GP_OK)
        cli_usage_error(common, cmd, "--gpu local: %s", err.msg);
    else {
        *id = g->id; /* lives as long as the catalog */
        rc = 0;
    }
    gp_probe_free(p);
    return rc;
}

void cli_workload_opts_init(cli_workload_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gpu = "H100-SXM-80GB";
    gp_workload_defaults(&o->w, GP_TASK_INFER);
    memset(&o->given, 0, sizeof o->given);
    o->given.recompute = GP_RECOMPUTE_NONE;
}

#define ENUM_OPT(FIELD, PARSE, COUNT, FLAG, CHOICES)                                           \
    do {                                                                                     \
        int v_ = (int)PARSE(arg);                                                            \
        if (v_ >= (int)(COUNT)) {                                                            \
            cli_usage_error(common, cmd, "--" FLAG " takes one of " CHOICES ", not '%s'", arg);      \
            return -1;                                                                       \
        }                                                                                    \
        FIELD = v_;                                                                          \
    } while (0)

int cli_workload_opt(cli_common *common, const char *cmd, int opt, const char *arg, cli_workload_opts *o)
{
    int64_t v;
    const int64_t big = (int64_t)1 << 32;
    switch (opt) {
    case 'g': o->gpu = arg; return strcmp(arg, "local") == 0 && cli_gpu_local(common, cmd, &o->gpu) ? -1 : 1;
    case 2001: ENUM_OPT(o->w.task, gp_task_parse, GP_TASK_COUNT, "task", "infer, train, lora, qlora"); return 1;
    case 2002:
    case 2003: {
        gp_dtype t = gp_dtype_parse(arg);
        if (t == GP_DTYPE_UNKNOWN) {
            cli_usage_error(common, cmd, "--%s takes bf16, fp16, fp32, fp8, int8, int4, nf4, mxfp4 or fp4, not '%s'",
                            opt == 2002 ? "dtype" : "kv-dtype", arg);
            return -1;
        }
        if (opt == 2002) o->w.dtype = t; else o->w.kv_dtype = t;
        return 1;
    }
    case 2004: if (cli_parse_i64(common, cmd, "context", arg, 1, big, &o->w.context)) return -1; o->context_set = 1; return 1;
    case 2005: if (cli_parse_i64(common, cmd, "batch", arg, 1, big, &o->w.batch)) return -1; return 1;
    case 2006: if (cli_parse_i64(common, cmd, "seq", arg, 1, big, &o->w.seq)) return -1; return 1;
    case 2007: ENUM_OPT(o->w.optimizer, gp_optimizer_parse, GP_OPT_COUNT, "optimizer", "adamw, adam8bit, sgd, adafactor"); return 1;
    case 2008: ENUM_OPT(o->w.offload, gp_offload_parse, GP_OFFLOAD_COUNT, "offload", "none, optimizer, params"); return 1;
    case 2009: if (cli_parse_i64(common, cmd, "lora-rank", arg, 1, 65536, &o->w.lora_rank)) return -1; return 1;
    case 2010: o->w.flash_attention = 0; return 1;
    case 2011: ENUM_OPT(o->w.engine, gp_engine_parse, GP_ENGINE_COUNT, "engine", "none, vllm, sglang, tgi, trtllm, llamacpp"); return 1;
    case 2012: if (cli_parse_double(common, cmd, "gpu-memory-utilization", arg, 0.01, 1.0, &o->w.gpu_memory_utilization)) return -1; return 1;
    case 2013: if (cli_parse_i64(common, cmd, "block-size", arg, 1, 4096, &o->w.block_size)) return -1; return 1;
    case 2014: if (cli_parse_i64(common, cmd, "max-num-batched-tokens", arg, 1, big, &o->w.max_num_batched_tokens)) return -1; return 1;
    case 2101: if (cli_parse_i64(common, cmd, "tp", arg, 1, 4096, &v)) return -1; o->given.tp = (int)v; return 1;
    case 2102: if (cli_parse_i64(common, cmd, "pp", arg, 1, 4096, &v)) return -1; o->given.pp = (int)v; return 1;
    case 2103: if (cli_parse_i64(common, cmd, "dp", arg, 1, 1 << 20, &v)) return -1; o->given.dp = (int)v; return 1;
    case 2104: if (cli_parse_i64(common, cmd, "cp", arg, 1, 4096, &v)) return -1; o->given.cp = (int)v; return 1;
    case 2105: if (cli_parse_i64(common, cmd, "ep", arg, 1, 4096, &v)) return -1; o->given.ep = (int)v; return 1;
    case 2106: if (cli_parse_i64(common, cmd, "zero", arg, 0, 3, &v)) return -1; o->given.zero = (int)v; return 1;
    case 2107: if (cli_parse_i64(common, cmd, "micro-batch", arg, 1, 1 << 20, &o->given.micro_batch)) return -1; return 1;
    case 2108: if (cli_parse_i64(common, cmd, "global-batch", arg, 1, big, &o->given.global_batch)) return -1; return 1;
    case 2109: ENUM_OPT(o->given.recompute, gp_recompute_parse, GP_RECOMPUTE_COUNT, "recompute", "none, selective, full, op"); return 1;
    case 2110: o->given.sequence_parallel = 1; return 1;
    case 2111: if (cli_parse_i64(common, cmd, "virtual-stages", arg, 1, 64, &v)) return -1; o->given.virtual_stages = (int)v; return 1;
    default: return 0;
    }
}
