/*
 * keys.c: the scenario key table, the one vocabulary of gpuplan's questions
 * (include/gpuplan/scenario.h says how to add a key: one row here, one field there).
 *
 * Ranges are what the arithmetic downstream holds (sizes in int64, products of two such
 * values in double); api_max is the web API's bound on one request's work (docs/web.md).
 * Every flag is the key with '-' for '_' (the interface contract (docs/cli.md, docs/scenario.md)).
 */
#include "run/run_impl.h"

#include <math.h>
#include <string.h>
#include <strings.h>

/* ---- enum parsers: value >= 0, or -1 ---- */
/* clang-format off */
static int parse_task(const char *s) { gp_task t = gpi_task_parse(s); return t < GP_TASK_COUNT ? (int)t : -1; }
static int parse_optimizer(const char *s) { gp_optimizer o = gpi_optimizer_parse(s); return o < GP_OPT_COUNT ? (int)o : -1; }
static int parse_offload(const char *s) { gp_offload o = gpi_offload_parse(s); return o < GP_OFFLOAD_COUNT ? (int)o : -1; }
static int parse_recompute(const char *s) { gp_recompute r = gpi_recompute_parse(s); return r < GP_RECOMPUTE_COUNT ? (int)r : -1; }
static int parse_dtype(const char *s) { gp_dtype d = gpi_dtype_parse(s); return d != GP_DTYPE_UNKNOWN ? (int)d : -1; }
static int parse_format(const char *s) { gpi_report_format f = gpi_report_format_parse(s); return f < GPI_REPORT_FORMAT_COUNT ? (int)f : -1; }
static int parse_lang(const char *s) { return !strcmp(s, "en") ? 0 : !strcmp(s, "pt-BR") ? 1 : -1; }
static int parse_cuda_graphs(const char *s) { gp_cuda_graphs g = gpi_cuda_graphs_parse(s); return g < GP_CUDA_GRAPHS_COUNT ? (int)g : -1; }
static int parse_ep_dispatcher(const char *s) { gp_ep_dispatcher d = gpi_ep_dispatcher_parse(s); return d < GP_EP_DISPATCHER_COUNT ? (int)d : -1; }
static int parse_fp8_recipe(const char *s) { gp_fp8_recipe r = gpi_fp8_recipe_parse(s); return r < GP_FP8_RECIPE_COUNT ? (int)r : -1; }
static int parse_arrival(const char *s) { return !strcmp(s, "poisson") ? 0 : !strcmp(s, "fixed") ? 1 : -1; }

/* clang-format on */

static int parse_lengths(const char *s)
{
    if (!strcmp(s, "lognormal") || !strcmp(s, "log-normal"))
        return GP_LENGTH_LOGNORMAL;
    return !strcmp(s, "fixed")         ? GP_LENGTH_FIXED
           : !strcmp(s, "exponential") ? GP_LENGTH_EXPONENTIAL
           : !strcmp(s, "uniform")     ? GP_LENGTH_UNIFORM
                                       : -1;
}

/* "K:A[:C]" (1-16 draft tokens, acceptance in (0, 1), cost in [0, 1]) or "mtp": 0 ok. */
/* Megatron-Core's --recompute-modules names, comma-separated: 0 ok. */
static int parse_recompute_modules(const char *s)
{
    unsigned mods;
    return gpi_recompute_modules_parse(s, &mods, NULL) == 0 && mods != 0 ? 0 : -1;
}

static int parse_spec(const char *s)
{
    gp_spec_decode sp;
    return gpi_spec_decode_parse(s, &sp);
}

static int parse_rank(const char *s)
{
    return !strcasecmp(s, "time")                ? GP_RANK_TIME
           : !strcasecmp(s, "cost")              ? GP_RANK_COST
           : !strcasecmp(s, "tokens-per-dollar") ? GP_RANK_TOKENS_PER_DOLLAR
                                                 : -1;
}

/* "none", "n", "0" -> 0; "n+K" or "K" (one digit) -> K. */
static int parse_redundancy(const char *s)
{
    if (!strcmp(s, "none") || !strcmp(s, "n") || !strcmp(s, "0"))
        return 0;
    if ((s[0] == 'n' || s[0] == 'N') && s[1] == '+' && s[2] >= '0' && s[2] <= '9' && !s[3])
        return s[2] - '0';
    if (s[0] >= '0' && s[0] <= '9' && !s[1])
        return s[0] - '0';
    return -1;
}

/* ---- the table ---- */
#define M   (GP_CMD_FIT | GP_CMD_TRAIN | GP_CMD_SERVE | GP_CMD_PLAN | GP_CMD_EXPORT | GP_CMD_MODEL) /* model */
#define W   (GP_CMD_FIT | GP_CMD_TRAIN | GP_CMD_SERVE | GP_CMD_PLAN | GP_CMD_EXPORT)                /* workload */
#define S   (GP_CMD_SERVE | GP_CMD_PLAN)                                                            /* serving */
#define T   (GP_CMD_TRAIN | GP_CMD_PLAN)                                                            /* training */
#define BIG 4294967296.0    /* 2^32: tokens of one sequence, sequences of a batch */
#define DIM 1099511627776.0 /* 2^40: one architecture dimension (GPI_MAX_DIM) */

/* KEYF: explicit field; KEY: the field is the key's name. */
#define KEYF(NAME, TYPE, MIN, MAX, API, UNIT, CHOICES, CMDS, FLAGS, FIELD, PARSE, HELP)                                \
    {                                                                                                                  \
        NAME, GP_KEY_##TYPE, MIN, MAX, API, UNIT, CHOICES, CMDS, FLAGS, HELP, offsetof(gp_scenario, FIELD),            \
            sizeof(((gp_scenario *)0)->FIELD), PARSE                                                                   \
    }
#define KEY(NAME, TYPE, MIN, MAX, UNIT, CMDS, HELP)                                                                    \
    KEYF(#NAME, TYPE, MIN, MAX, 0, UNIT, NULL, CMDS, 0, NAME, NULL, HELP)
#define KEY_API(NAME, TYPE, MIN, MAX, API, UNIT, CMDS, HELP)                                                           \
    KEYF(#NAME, TYPE, MIN, MAX, API, UNIT, NULL, CMDS, 0, NAME, NULL, HELP)
#define KEY_ENUM(NAME, CHOICES, CMDS, PARSE, HELP) KEYF(#NAME, ENUM, 0, 0, 0, "", CHOICES, CMDS, 0, NAME, PARSE, HELP)
#define KEY_STR(NAME, CMDS, FLAGS, HELP)           KEYF(#NAME, STRING, 0, 0, 0, "", NULL, CMDS, FLAGS, NAME, NULL, HELP)

/* clang-format off */
static const gp_scenario_key keys[] = {
    /* model */
    KEYF("model", MODEL, 0, 0, 0, "", NULL, M, 0, model, NULL,
         "catalog id/alias/HF repo (llama-3.1-70b), a config.json, a model folder or a .gguf"),
    KEY(layers, INT, 1, DIM, "", M, "decoder layers (explicit architecture, alone or over --model)"),
    KEY(hidden, INT, 1, DIM, "", M, "model width"),
    KEY(heads, INT, 1, DIM, "", M, "attention (query) heads"),
    KEY(kv_heads, INT, 1, DIM, "", M, "key/value heads"),
    KEY(head_dim, INT, 1, DIM, "", M, "width of one head"),
    KEY(ffn, INT, 0, DIM, "", M, "MLP inner width"),
    KEY(vocab, INT, 1, DIM, "", M, "vocabulary size"),
    KEY(experts, INT, 0, DIM, "", M, "routed experts (MoE)"),
    KEY(experts_active, INT, 0, DIM, "", M, "routed experts per token"),
    KEY(moe_ffn, INT, 0, DIM, "", M, "inner width of one expert"),
    KEY(shared_experts, INT, 0, DIM, "", M, "always-active shared experts"),
    KEYF("tied_embeddings", BOOL, 0, 1, 0, "", "0, 1", M, GP_KEYF_OPTARG, tied_embeddings, NULL,
         "output head shares the input embedding (=0|1)"),
    /* hardware */
    KEYF("gpu", LIST, 1, GP_PLAN_MAX_GPUS, 0, "", NULL, W | GP_CMD_TABLE, 0, gpu, NULL,
         "GPU type (default H100-SXM-80GB; 'local': this machine's; plan: repeat to compare)"),
    KEY_API(gpus, INT, 1, 1048576, 65536, "GPUs", GP_CMD_TRAIN | GP_CMD_PLAN | GP_CMD_EXPORT,
            "training: GPUs to use (default with tp/pp/dp given: their product)"),
    KEY(gpus_per_node, INT, 1, 4096, "GPUs", GP_CMD_TRAIN | GP_CMD_EXPORT | GP_CMD_PLAN,
        "GPUs sharing the scale-up link (default: the GPU's NVLink domain)"),
    KEY_STR(intra_node, T, 0, "link inside a node: nvlink (the GPU's own), pcie, or a link id"),
    KEY_STR(inter_node, T | GP_CMD_SERVE, 0, "link between nodes: ib-ndr (default), ib-hdr, roce-400, ..."),
    KEY_STR(framework, T, 0, "training stack: megatron (default), fsdp (FSDP2/torchtitan), deepspeed"),
    KEY(ep_overlap, BOOL, 0, 1, "", T | GP_CMD_EXPORT,
        "Megatron-Core: hide the EP all-to-all behind expert GEMMs (--overlap-moe-expert-parallel-comm)"),
    KEY_ENUM(ep_dispatcher, "alltoall, deepep, hybridep", T | GP_CMD_EXPORT, parse_ep_dispatcher,
             "Megatron-Core MoE: how EP moves tokens: alltoall (default, NCCL), deepep or hybridep (one copy per node)"),
    KEY_ENUM(cuda_graphs, "none, layer, full", T, parse_cuda_graphs,
             "CUDA graphs the stack replays: none (default), layer (each static layer), full (the iteration)"),
    KEY_ENUM(fp8_recipe, "default, fused, tensorwise, rowwise", T, parse_fp8_recipe,
             "fp8 training's casts: default (the framework's), fused (Transformer Engine), tensorwise or rowwise (torchao)"),
    KEY(tp_overlap, BOOL, 0, 1, "", T,
        "FSDP stacks: async TP hides the forward's TP collectives behind its GEMMs (torchtitan)"),
    KEY_API(max_gpus, INT, 1, 1048576, 65536, "GPUs", T, "upper bound of the deadline search (65536)"),
    KEY_STR(profile, W, GP_KEYF_FILE, "calibration profile (gpuplan calibrate, probe --bench): this cluster's rates"),
    /* workload */
    KEY_ENUM(task, "infer, train, lora, qlora", W, parse_task, "infer (default), train, lora, qlora"),
    KEYF("dtype", LIST, 1, GP_PLAN_MAX_DTYPES, 0, "", "bf16, fp16, fp32, fp8, int8, int4, nf4, mxfp4 or fp4", W, 0,
         dtype, parse_dtype, "weights precision (default: as stored; plan: repeat to compare)"),
    KEY_ENUM(kv_dtype, "bf16, fp16, fp32, fp8, int8, int4, nf4, mxfp4 or fp4", W, parse_dtype,
             "KV-cache precision (default: 16-bit)"),
    KEY_API(context, INT, 1, BIG, 10000000, "tokens", W | GP_CMD_TABLE,
            "inference: tokens per sequence, prompt + output (4096)"),
    KEY_API(batch, INT, 1, BIG, 1000000, "sequences", W, "inference: concurrent sequences (1)"),
    KEY(seq, INT, 1, BIG, "tokens", W | GP_CMD_TABLE, "training: sequence length (4096)"),
    KEY_ENUM(optimizer, "adamw, adam8bit, sgd, adafactor", W, parse_optimizer, "adamw (default), adam8bit, sgd, adafactor"),
    KEY_ENUM(offload, "none, optimizer, params", W, parse_offload, "none, optimizer, params"),
    KEY(lora_rank, INT, 1, 65536, "", W, "LoRA/QLoRA adapter rank (16)"),
    KEYF("no_flash_attention", BOOL, 0, 1, 0, "", NULL, W, GP_KEYF_NEGATE, no_flash_attention, NULL,
         "store the s^2 attention matrix (eager attention)"),
    KEYF("engine", STRING, 0, 0, 0, "", "none, vllm, sglang, tgi, trtllm, llamacpp", W, 0, engine, NULL,
         "engine: none (default), vllm, sglang, tgi, trtllm, llamacpp (export: also deepspeed, megatron, "
         "torchrun-fsdp, slurm)"),
    KEY(gpu_memory_utilization, NUMBER, 0.01, 1.0, "", W, "fraction of device memory the engine may use (0.9)"),
    KEY(block_size, INT, 1, 4096, "tokens", W, "KV block size in tokens (16)"),
    KEY(max_num_batched_tokens, INT, 1, BIG, "tokens", W, "prefill chunk the engine profiles (2048)"),
    KEY_API(max_num_seqs, INT, 1, 1048576, 4096, "sequences", S | GP_CMD_EXPORT,
            "running sequences per replica (256; trtllm 2048)"),
    /* layout */
    KEY(tp, INT, 1, 4096, "", W, "tensor parallel degree (any layout dimension given is fixed, the rest searched)"),
    KEY(pp, INT, 1, 4096, "", W, "pipeline stages"),
    KEY(dp, INT, 1, 1048576, "", W, "data parallel replicas"),
    KEY(cp, INT, 1, 4096, "", W, "context parallel degree"),
    KEY(ep, INT, 1, 4096, "", W, "expert parallel degree"),
    KEY(zero, INT, 0, 3, "", W, "ZeRO stage 0..3 (3 = FSDP full shard)"),
    KEY(micro_batch, INT, 1, 1048576, "sequences", W, "sequences per micro-batch"),
    KEY(global_batch, INT, 1, BIG, "sequences", W, "sequences per optimizer step"),
    KEY_ENUM(recompute, "none, selective, full, op", W, parse_recompute, "none, selective, full, op"),
    KEYF("recompute_modules", STRING, 0, 0, 0, "",
         "core_attn, layernorm, mlp, moe, moe_act, shared_experts, mla_up_proj (comma-separated)", GP_CMD_TRAIN | GP_CMD_EXPORT, 0,
         recompute_modules, parse_recompute_modules,
         "Megatron-Core selective recomputation by module: layernorm,moe_act (implies --recompute selective)"),
    KEY(sequence_parallel, BOOL, 0, 1, "", W, "Megatron sequence parallelism"),
    KEY(virtual_stages, INT, 1, 64, "", W, "interleaved pipeline chunks per stage"),
    /* serving load and targets */
    KEY_API(users, INT, 1, 16777216, 10000, "users", S,
            "closed loop: N users, each sends, waits for the answer, thinks, sends"),
    KEY(think_time, NUMBER, 0, 1e6, "s", S, "closed loop: mean think time in seconds (exponential; 0)"),
    KEYF("rate", NUMBER, 1e-6, 1e9, 0, "requests/s", NULL, S, GP_KEYF_INF, rate, NULL,
         "open loop: requests/s (Poisson); 'inf' = all at once (saturating load)"),
    KEY_ENUM(arrival, "poisson or fixed", S, parse_arrival, "poisson (default) or fixed (evenly spaced) for --rate"),
    KEYF("trace", STRING, 0, 0, 0, "", NULL, S, GP_KEYF_FILE, trace, NULL,
         "arrivals and lengths from CSV (arrival_s,prompt_tokens,output_tokens) or JSONL"),
    KEY_API(requests, INT, 1, 1073741824, 50000, "requests", S,
            "requests to simulate (default: 10 per user, 1000..4000; inf: 1000)"),
    KEY_API(prompt_tokens, INT, 1, 16777216, 131072, "tokens", S, "prompt length (1000)"),
    KEY_API(output_tokens, INT, 1, 16777216, 32768, "tokens", S, "output length (200)"),
    KEY_ENUM(lengths, "lognormal, fixed, exponential or uniform", S, parse_lengths,
             "serve: lognormal (default; sigma 0.5, capped at 4x); plan: fixed (default); exponential, uniform"),
    KEY(prefix_hit, NUMBER, 0, 0.99, "fraction", GP_CMD_SERVE, "fraction of each prompt found in the prefix cache (0)"),
    KEYF("spec_decode", STRING, 0, 0, 0, "", "K:ACCEPTANCE[:COST] (1-16 tokens, acceptance in (0, 1)) or mtp",
         GP_CMD_SERVE, 0, spec_decode, parse_spec, "speculative decoding: K draft tokens, acceptance A, draft cost C; mtp"),
    KEY(disagg, BOOL, 0, 1, "", GP_CMD_SERVE, "also size disaggregated prefill and decode pools and compare"),
    KEY(seed, INT, 0, 9223372036854775807.0, "", S, "random seed (1); same seed, same answer"),
    KEY(ttft_p99, NUMBER, 1e-6, 1e6, "s", S, "p99 time to first token target, seconds"),
    KEY(tpot_p99, NUMBER, 1e-6, 1e6, "s", S, "p99 time per output token target, seconds"),
    KEY_ENUM(redundancy, "n+1, n+2, ... or none", S, parse_redundancy, "n+1 (one spare replica), n+2, or none"),
    KEY_API(replicas, INT, 1, 65536, 1024, "replicas", S | GP_CMD_EXPORT,
            "serve: evaluate this many replicas instead of searching; export: copies behind one endpoint"),
    KEY_API(max_work, NUMBER, 1, GP_WORK_MAX, GP_RUN_API_WORK, "units", S | T | GP_CMD_EXPORT,
            "work budget of the searches and simulations (1e11; the web API's 1e10 at most; docs/reliability.md)"),
    /* training run */
    KEYF("tokens", TOKENS, 1, 1e18, 0, "tokens", "a count such as 15e12, 15T, 300B or 2.5M", T | GP_CMD_EXPORT, 0,
         tokens, NULL, "tokens to train: 15e12, 15T, 300B, 2.5M"),
    KEYF("deadline", DURATION, 1, 1e12, 0, "s", "a duration such as 30d, 12h, 90m or 3600 (seconds)", T, 0, deadline,
         NULL, "without --gpus: the smallest GPU count finishing --tokens within it (30d, 12h)"),
    KEY_API(top, INT, 1, GP_TRAIN_TOP_MAX, 1000, "layouts", T, "layouts to list (5)"),
    KEY_ENUM(rank, "time, cost or tokens-per-dollar", T, parse_rank, "time (default), cost, tokens-per-dollar"),
    KEY(price_per_gpu_hour, NUMBER, 0, 1e6, "per GPU-hour", T, "price of one GPU-hour (cost ranking)"),
    KEY(scaling, BOOL, 0, 1, "", T, "throughput and efficiency from 1 GPU up to N (powers of two)"),
    KEY(allow_tp_across_nodes, BOOL, 0, 1, "", T, "let TP groups span the inter-node network"),
    /* decision and report */
    KEY_STR(compliance, GP_CMD_PLAN, 0, "data profile: none (default), health, finance, public-sector"),
    KEY_STR(currency, GP_CMD_PLAN, 0, "BRL, USD (default), or any currency in prices.json"),
    KEY(horizon_months, INT, 1, GP_COST_MAX_MONTHS, "months", GP_CMD_PLAN, "months to cost (36)"),
    KEYF("deployment", LIST, 1, GP_PRICES_MAX_DEPLOYMENTS, 0, "", NULL, GP_CMD_PLAN, 0, deployment, NULL,
         "consider only these deployments (repeatable; default all)"),
    KEY(availability, NUMBER, 0, 0.999999, "fraction", GP_CMD_PLAN, "serving: fraction of time the load is served"),
    KEY(allow_consumer, BOOL, 0, 1, "", GP_CMD_PLAN, "keep consumer GPUs (GeForce) in regulated and production plans"),
    KEY(egress_tb_per_month, NUMBER, 0, 1e9, "TB/month", GP_CMD_PLAN, "data moved out per month (default: from tokens)"),
    KEYF("format", STRING, 0, 0, 0, "", "text, json, markdown or html", GP_CMD_PLAN, GP_KEYF_FILE, format, parse_format,
         "report: text (default), json, markdown, html"),
    KEYF("lang", STRING, 0, 0, 0, "", "en or pt-BR", GP_CMD_PLAN | GP_CMD_FIT | GP_CMD_SERVE, 0, lang, parse_lang,
         "language of the report (plan), of the verdict's reasons and text (fit) and of serve's reasons: en, pt-BR"),
    KEY_STR(title, GP_CMD_PLAN, 0, "report title"),
    KEY(report_html, BOOL, 0, 1, "", GP_CMD_PLAN, "with --json: include the HTML report as report_html"),
    KEY_STR(out, GP_CMD_PLAN | GP_CMD_EXPORT, GP_KEYF_FILE, "write the report (export: the files) there"),
    KEYF("export", STRING, 0, 0, 0, "", NULL, GP_CMD_PLAN, GP_KEYF_FILE, export_dir, NULL,
         "write the recommended option's launch files into this directory"),
    /* export */
    KEY_STR(model_path, GP_CMD_EXPORT, GP_KEYF_FILE, "what the engine loads (default: HF repo, folder or .gguf)"),
    KEY(port, INT, 1, 65535, "", GP_CMD_EXPORT, "serving port (default: the engine's own)"),
    KEY_STR(data, GP_CMD_EXPORT, GP_KEYF_FILE, "training: dataset path"),
    KEY_STR(time, GP_CMD_EXPORT, 0, "Slurm time limit HH:MM:SS (24:00:00)"),
    KEY_STR(job_name, GP_CMD_EXPORT, 0, "Slurm job name (gpuplan)"),
    KEY_STR(api_key_env, GP_CMD_EXPORT, 0, "serving: environment variable holding the API key (API_KEY; \"\": none)"),
    KEY(audit_log, BOOL, 0, 1, "", GP_CMD_EXPORT, "serving: log every request"),
};
/* clang-format on */

size_t gp_scenario_key_count(void)
{
    return sizeof keys / sizeof keys[0];
}

const gp_scenario_key *gp_scenario_key_at(size_t i)
{
    return i < gp_scenario_key_count() ? &keys[i] : NULL;
}

/* Same name, '-' and '_' alike. */
static int same_key(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_')))
            return 0;
    return *a == *b;
}

const gp_scenario_key *gp_scenario_key_find(const char *name)
{
    for (size_t i = 0; name && i < gp_scenario_key_count(); i++)
        if (same_key(keys[i].name, name))
            return &keys[i];
    return NULL;
}

/* Edit distance (insertions, deletions, substitutions), capped at 9. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > 63 || m > 63)
        return 9;
    int row[64];
    for (size_t j = 0; j <= m; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= n; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= m; j++) {
            int up = row[j];
            int sub = diag + (a[i - 1] != b[j - 1]);
            int best = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[m] < 9 ? row[m] : 9;
}

const gp_scenario_key *gpi_scenario_key_nearest(const char *name, unsigned commands)
{
    const gp_scenario_key *best = NULL;
    int best_d = 3; /* at most two edits away, or a beginning of the key */
    size_t n = name ? strlen(name) : 0;
    for (size_t i = 0; n && i < gp_scenario_key_count(); i++) {
        if (commands && !(keys[i].commands & commands))
            continue;
        int d = strncmp(keys[i].name, name, n) == 0 ? 1 : distance(name, keys[i].name);
        if (d < best_d) {
            best_d = d;
            best = &keys[i];
        }
    }
    return best;
}

unsigned gp_command_parse(const char *name)
{
    static const char *const names[] = {"fit", "train", "serve", "plan", "export", "table", "model"};
    for (unsigned i = 0; name && i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i]))
            return 1u << i;
    return 0;
}

const char *gp_command_name(unsigned cmd)
{
    static const char *const names[] = {"fit", "train", "serve", "plan", "export", "table", "model"};
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++)
        if (cmd == 1u << i)
            return names[i];
    return "gpuplan";
}
