/*
 * runs_logs.c: training and benchmark logs as their tools print them.
 *
 * Megatron-LM prints its arguments once ("  tensor_model_parallel_size ........ 8", from
 * megatron/training/arguments.py _print_args) and one line per logged iteration with
 * "elapsed time per iteration (ms): 5444.9 | throughput per GPU (TFLOP/s/GPU): 239.8"
 * (megatron/training/training.py training_log). torchtitan prints
 * "step:  4  loss: 7.6  ...  tps: 10,050  tflops: 314.71  mfu: 13.99%" (tps and tflops per
 * GPU; torchtitan/train.py). trtllm-bench prints "Key: value" blocks ending in
 * "PERFORMANCE OVERVIEW". nccl-tests prints a header naming its columns ("size count type
 * redop root time algbw busbw #wrong ...") and a row per message size.
 *
 * Logged iterations include the warm-up: figures are the median of the lines after the
 * first tenth (gpi_samples_steady_median), and `samples` says how many lines were read.
 */
#include "calibrate/runs_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Megatron-LM ---- */

/* "  name ............ value" -> name, value (NUL-terminated copies); 1 when it is one. */
static int megatron_arg(const gpi_line *ln, char *name, size_t nn, char *value, size_t nv)
{
    const char *p = ln->s, *end = ln->s + ln->len;
    while (p < end && *p == ' ')
        p++;
    const char *n0 = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    size_t nlen = (size_t)(p - n0);
    if (nlen == 0 || nlen >= nn || p + 3 >= end || p[0] != ' ' || p[1] != '.' || p[2] != '.')
        return 0;
    while (p < end && (*p == ' ' || *p == '.'))
        p++;
    size_t vlen = (size_t)(end - p);
    while (vlen && isspace((unsigned char)p[vlen - 1]))
        vlen--;
    if (vlen == 0 || vlen >= nv)
        return 0;
    memcpy(name, n0, nlen);
    name[nlen] = '\0';
    memcpy(value, p, vlen);
    value[vlen] = '\0';
    return 1;
}

/* Megatron argument -> scenario key, for the integer ones. */
static const struct {
    const char *arg, *key;
} megatron_ints[] = {
    {"tensor_model_parallel_size", "tp"},
    {"pipeline_model_parallel_size", "pp"},
    {"context_parallel_size", "cp"},
    {"expert_model_parallel_size", "ep"},
    {"world_size", "gpus"},
    {"micro_batch_size", "micro_batch"},
    {"global_batch_size", "global_batch"},
    {"seq_length", "seq"},
    {"num_layers", "layers"},
    {"hidden_size", "hidden"},
    {"ffn_hidden_size", "ffn"},
    {"num_attention_heads", "heads"},
    {"padded_vocab_size", "vocab"},
    {"num_experts", "experts"},
    {"moe_router_topk", "experts_active"},
    {"moe_ffn_hidden_size", "moe_ffn"},
};

static void megatron_int(json_t *scn, const char *key, const char *value)
{
    char *end;
    long long v = strtoll(value, &end, 10);
    if (end != value && *end == '\0' && v > 0 && v < ((long long)1 << 40))
        json_object_set_new(scn, key, json_integer(v));
}

/* The arguments that are not plain integers. */
static void megatron_other(json_t *scn, json_t *args)
{
    const char *gqa = json_string_value(json_object_get(args, "group_query_attention"));
    const char *groups = json_string_value(json_object_get(args, "num_query_groups"));
    if (gqa && strcmp(gqa, "True") == 0 && groups)
        megatron_int(scn, "kv_heads", groups);
    const char *fp8 = json_string_value(json_object_get(args, "fp8"));
    const char *bf16 = json_string_value(json_object_get(args, "bf16"));
    const char *fp16 = json_string_value(json_object_get(args, "fp16"));
    if (fp8 && strcmp(fp8, "None") != 0)
        json_object_set_new(scn, "dtype", json_string("fp8"));
    else if (bf16 && strcmp(bf16, "True") == 0)
        json_object_set_new(scn, "dtype", json_string("bf16"));
    else if (fp16 && strcmp(fp16, "True") == 0)
        json_object_set_new(scn, "dtype", json_string("fp16"));
    const char *rg = json_string_value(json_object_get(args, "recompute_granularity"));
    if (rg)
        json_object_set_new(scn, "recompute", json_string(strcmp(rg, "None") == 0 ? "none" : rg));
    const char *sp = json_string_value(json_object_get(args, "sequence_parallel"));
    if (sp && strcmp(sp, "True") == 0)
        json_object_set_new(scn, "sequence_parallel", json_true());
    const char *dist = json_string_value(json_object_get(args, "use_distributed_optimizer"));
    if (dist && strcmp(dist, "True") == 0)
        json_object_set_new(scn, "zero", json_integer(1));
}

static json_t *megatron_scenario(json_t *args)
{
    json_t *scn = json_object();
    if (!scn)
        return NULL;
    for (size_t i = 0; i < sizeof megatron_ints / sizeof megatron_ints[0]; i++) {
        const char *v = json_string_value(json_object_get(args, megatron_ints[i].arg));
        if (v)
            megatron_int(scn, megatron_ints[i].key, v);
    }
    megatron_other(scn, args);
    json_object_set_new(scn, "framework", json_string("megatron"));
    return scn;
}

typedef struct megatron_scan {
    json_t *args;
    gpi_samples iter_ms, tflops;
    int first_line;
} megatron_scan;

static void megatron_line(megatron_scan *m, const gpi_line *ln)
{
    char name[96], value[256];
    double v;
    if (gpi_number_after(ln, "elapsed time per iteration (ms):", &v) && v > 0) {
        if (!m->first_line)
            m->first_line = ln->no;
        gpi_samples_push(&m->iter_ms, v);
        if (gpi_number_after(ln, "throughput per GPU (TFLOP/s/GPU):", &v) && v > 0)
            gpi_samples_push(&m->tflops, v);
    } else if (megatron_arg(ln, name, sizeof name, value, sizeof value)) {
        json_object_set_new(m->args, name, json_string(value));
    }
}

gp_status gpi_runs_megatron(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    megatron_scan m = {.args = json_object()};
    if (!m.args)
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    while (gpi_lines_next(&it, &ln))
        megatron_line(&m, &ln);
    gp_status st = GP_OK;
    gpi_measured_run r;
    gpi_run_init(&r, GPI_RUN_TRAIN, GPI_RUNFMT_MEGATRON, m.first_line);
    r.samples = (int)m.iter_ms.n;
    r.step_time_s = gpi_samples_steady_median(&m.iter_ms) / 1000.0;
    if (m.tflops.n)
        r.model_tflops_per_gpu = gpi_samples_steady_median(&m.tflops);
    json_t *scn = megatron_scenario(m.args);
    json_int_t gbs = json_integer_value(json_object_get(scn, "global_batch"));
    json_int_t seq = json_integer_value(json_object_get(scn, "seq"));
    json_int_t gpus = json_integer_value(json_object_get(scn, "gpus"));
    if (gbs > 0 && seq > 0 && gpus > 0 && r.step_time_s > 0)
        r.tokens_per_s_per_gpu = (double)gbs * (double)seq / r.step_time_s / (double)gpus;
    if (!scn)
        st = gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    else if (!(r.step_time_s > 0)) {
        json_decref(scn);
        st = gpi_runs_fail(err, name, 0, NULL, GP_EPARSE, "no \"elapsed time per iteration (ms)\" figure in the log");
    } else
        st = gpi_runset_add(set, &r, scn, name, err);
    json_decref(m.args);
    gpi_samples_free(&m.iter_ms);
    gpi_samples_free(&m.tflops);
    return st;
}

/* ---- torchtitan ---- */

gp_status gpi_runs_torchtitan(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    gpi_samples tps = {0}, tflops = {0}, mfu = {0};
    gpi_lines it;
    gpi_line ln;
    int first = 0;
    gpi_lines_init(&it, text, len);
    while (gpi_lines_next(&it, &ln)) {
        double v;
        if (!gpi_memstr(ln.s, ln.len, "step:") || !gpi_number_after(&ln, "tps:", &v) || !(v > 0))
            continue;
        if (!first)
            first = ln.no;
        gpi_samples_push(&tps, v);
        if (gpi_number_after(&ln, "tflops:", &v) && v > 0)
            gpi_samples_push(&tflops, v);
        if (gpi_number_after(&ln, "mfu:", &v) && v > 0 && v <= 100)
            gpi_samples_push(&mfu, v / 100.0);
    }
    gp_status st;
    gpi_measured_run r;
    gpi_run_init(&r, GPI_RUN_TRAIN, GPI_RUNFMT_TORCHTITAN, first);
    r.samples = (int)tps.n;
    r.tokens_per_s_per_gpu = gpi_samples_steady_median(&tps);
    if (tflops.n)
        r.model_tflops_per_gpu = gpi_samples_steady_median(&tflops);
    if (mfu.n)
        r.mfu = gpi_samples_steady_median(&mfu);
    if (!(r.tokens_per_s_per_gpu > 0)) {
        st = gpi_runs_fail(err, name, 0, NULL, GP_EPARSE, "no \"step: ... tps: N\" line in the log");
    } else {
        json_t *scn = json_pack("{s:s}", "framework", "fsdp");
        st = scn ? gpi_runset_add(set, &r, scn, name, err) : gpi_fail(err, GP_ENOMEM, "out of memory");
    }
    gpi_samples_free(&tps);
    gpi_samples_free(&tflops);
    gpi_samples_free(&mfu);
    return st;
}

/* ---- trtllm-bench ---- */

/* The text after "Label:" on a line, trimmed, into buf; 1 when found. */
static int text_after(const gpi_line *ln, const char *label, char *buf, size_t n)
{
    size_t m = strlen(label);
    const char *p = ln->s;
    while (p < ln->s + ln->len && *p == ' ')
        p++;
    if ((size_t)(ln->s + ln->len - p) < m || memcmp(p, label, m) != 0)
        return 0;
    p += m;
    const char *end = ln->s + ln->len;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    size_t k = (size_t)(end - p);
    while (k && isspace((unsigned char)p[k - 1]))
        k--;
    if (k == 0 || k >= n)
        return 0;
    memcpy(buf, p, k);
    buf[k] = '\0';
    return 1;
}

static void trtllm_dtype(json_t *scn, const char *quant, const char *kv)
{
    static const struct {
        const char *trt, *ours;
    } map[] = {{"FP8", "fp8"},    {"NVFP4", "fp4"}, {"W4A16_AWQ", "int4"}, {"W4A16", "int4"},
               {"W8A16", "int8"}, {"INT8", "int8"}, {"FP4", "fp4"}};
    for (size_t i = 0; quant && i < sizeof map / sizeof map[0]; i++)
        if (strcmp(quant, map[i].trt) == 0)
            json_object_set_new(scn, "dtype", json_string(map[i].ours));
    if (kv && (strcmp(kv, "FP8") == 0 || strcmp(kv, "fp8") == 0))
        json_object_set_new(scn, "kv_dtype", json_string("fp8"));
}

typedef struct trt_scan {
    json_t *scn;
    gpi_measured_run r;
    char quant[64], kv[64];
} trt_scan;

static void trtllm_line(trt_scan *t, const gpi_line *ln)
{
    static const struct {
        const char *label, *key;
    } ints[] = {{"Number of requests:", "requests"},
                {"Average Input Length (tokens):", "prompt_tokens"},
                {"Average Output Length (tokens):", "output_tokens"},
                {"TP Size:", "tp"},
                {"PP Size:", "pp"},
                {"EP Size:", "ep"},
                {"Max Runtime Batch Size:", "batch"}};
    char buf[256];
    double v;
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
        if (text_after(ln, ints[i].label, buf, sizeof buf) && gpi_number_after(ln, ints[i].label, &v) && v >= 1 &&
            v < 1e12)
            json_object_set_new(t->scn, ints[i].key, json_integer((json_int_t)llround(v)));
    if (text_after(ln, "Model:", buf, sizeof buf))
        json_object_set_new(t->scn, "model", json_string(buf));
    text_after(ln, "Quantization:", t->quant, sizeof t->quant);
    text_after(ln, "KV Cache Dtype:", t->kv, sizeof t->kv);
    if (gpi_number_after(ln, "Total Output Throughput (tokens/sec):", &v))
        t->r.output_tokens_per_s = v;
    if (gpi_number_after(ln, "Total Token Throughput (tokens/sec):", &v))
        t->r.total_tokens_per_s = v;
    if (gpi_number_after(ln, "[TTFT] P50", &v))
        t->r.ttft_p50_s = v / 1000.0;
    if (gpi_number_after(ln, "[TPOT] P50", &v))
        t->r.tpot_p50_s = v / 1000.0;
}

gp_status gpi_runs_trtllm(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    trt_scan t = {.scn = json_object()};
    if (!t.scn)
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    gpi_run_init(&t.r, GPI_RUN_SERVE, GPI_RUNFMT_TRTLLM_BENCH, 1);
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    while (gpi_lines_next(&it, &ln))
        trtllm_line(&t, &ln);
    trtllm_dtype(t.scn, t.quant[0] ? t.quant : NULL, t.kv[0] ? t.kv : NULL);
    json_object_set_new(t.scn, "engine", json_string("trtllm"));
    json_object_set_new(t.scn, "rate", json_string("inf")); /* trtllm-bench throughput: all requests at once */
    if (!(t.r.output_tokens_per_s > 0)) {
        json_decref(t.scn);
        return gpi_runs_fail(err, name, 0, NULL, GP_EPARSE, "no \"Total Output Throughput (tokens/sec)\" figure");
    }
    return gpi_runset_add(set, &t.r, t.scn, name, err);
}

/* ---- nccl-tests / rccl-tests ---- */

typedef struct nccl_scan {
    int col_busbw, col_algbw, col_redop, ncols; /* from the header; -1 until seen */
    int ranks, first;
    char redop[16];
    gpi_measured_run r;
} nccl_scan;

/* Copy a token without the "[N]" rank prefixes MPI launchers add ("-1[0]" -> "-1"). */
static size_t strip_rank_tags(const char *t, size_t k, char *out, size_t n)
{
    size_t j = 0;
    for (size_t i = 0; i < k && j + 1 < n; i++) {
        if (t[i] == '[') {
            size_t e = i + 1;
            while (e < k && isdigit((unsigned char)t[e]))
                e++;
            if (e < k && t[e] == ']' && e > i + 1) {
                i = e;
                continue;
            }
        }
        out[j++] = t[i];
    }
    out[j] = '\0';
    return j;
}

/* Split a line into whitespace-separated tokens; a leading lone "#" is dropped. */
static int tokens(const gpi_line *ln, char tok[][32], int max)
{
    int n = 0;
    const char *p = ln->s, *end = ln->s + ln->len;
    while (p < end && n < max) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        const char *t0 = p;
        while (p < end && !isspace((unsigned char)*p))
            p++;
        size_t k = (size_t)(p - t0);
        if (k == 0)
            break;
        if (n == 0 && k == 1 && *t0 == '#')
            continue;
        if (strip_rank_tags(t0, k, tok[n], 32) > 0)
            n++;
    }
    return n;
}

static void nccl_header(nccl_scan *s, char tok[][32], int n)
{
    s->col_busbw = s->col_algbw = s->col_redop = -1;
    for (int i = 0; i < n; i++) {
        if (strcmp(tok[i], "busbw") == 0 && s->col_busbw < 0)
            s->col_busbw = i;
        if (strcmp(tok[i], "algbw") == 0 && s->col_algbw < 0)
            s->col_algbw = i;
        if (strcmp(tok[i], "redop") == 0)
            s->col_redop = i;
    }
    s->ncols = n;
}

static void nccl_row(nccl_scan *s, char tok[][32], int n, int line)
{
    if (s->col_busbw < 0 || n < s->ncols - 1 || n <= s->col_busbw || s->r.points >= GPI_RUN_MAX_POINTS)
        return;
    char *end;
    double bytes = strtod(tok[0], &end);
    if (*end || !(bytes > 0) || bytes > 1e15)
        return;
    double bw = strtod(tok[s->col_busbw], &end);
    if (*end || !(bw >= 0) || bw > 1e5)
        return;
    if (!s->first)
        s->first = line;
    if (s->col_redop >= 0 && s->col_redop < n)
        gpi_strlcpy(s->redop, tok[s->col_redop], sizeof s->redop);
    s->r.bytes[s->r.points] = bytes;
    s->r.busbw_gbps[s->r.points] = bw;
    s->r.points++;
}

/* Which collective: the test's own name when the output has it, else from the file name. */
static gpi_collective_op nccl_op(const char *text, size_t len, const char *name, const char *redop)
{
    static const struct {
        const char *word;
        gpi_collective_op op;
    } words[] = {{"all_reduce", GPI_COLLECTIVE_ALL_REDUCE},
                 {"all_gather", GPI_COLLECTIVE_ALL_GATHER},
                 {"reduce_scatter", GPI_COLLECTIVE_REDUCE_SCATTER},
                 {"alltoall", GPI_COLLECTIVE_ALL_TO_ALL}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (gpi_memstr(text, len < 4096 ? len : 4096, words[i].word) || strstr(name, words[i].word))
            return words[i].op;
    return strcmp(redop, "sum") == 0 ? GPI_COLLECTIVE_ALL_REDUCE : GPI_COLLECTIVE_UNKNOWN;
}

gp_status gpi_runs_nccl(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    nccl_scan s = {.col_busbw = -1, .col_algbw = -1, .col_redop = -1};
    gpi_run_init(&s.r, GPI_RUN_COLLECTIVE, GPI_RUNFMT_NCCL_TESTS, 0);
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    char tok[24][32];
    while (gpi_lines_next(&it, &ln)) {
        int n = tokens(&ln, tok, 24);
        if (n >= 2 && strcmp(tok[0], "Rank") == 0)
            s.ranks++;
        else if (n >= 4 && strcmp(tok[0], "size") == 0 && strcmp(tok[1], "count") == 0)
            nccl_header(&s, tok, n);
        else if (n > 0 && isdigit((unsigned char)tok[0][0]))
            nccl_row(&s, tok, n, ln.no);
    }
    if (s.r.points == 0)
        return gpi_runs_fail(err, name, 0, NULL, GP_EPARSE,
                             "no bus-bandwidth row under a \"size count ... busbw\" header");
    s.r.line = s.first;
    s.r.ranks = s.ranks;
    s.r.op = nccl_op(text, len, name, s.redop);
    json_t *scn = json_object();
    if (!scn)
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    if (s.ranks > 0)
        json_object_set_new(scn, "gpus", json_integer(s.ranks));
    return gpi_runset_add(set, &s.r, scn, name, err);
}

/* ---- the "Serving Benchmark Result" block (vllm bench serve, sglang.bench_serving) ---- */

typedef struct serve_text_scan {
    json_t *scn;
    gpi_measured_run r;
    double done, in_tokens, out_tokens;
} serve_text_scan;

static void serve_text_line(serve_text_scan *t, const gpi_line *ln)
{
    char buf[128];
    double v;
    if (gpi_number_after(ln, "Successful requests:", &v))
        t->done = v;
    if (gpi_number_after(ln, "Total input tokens:", &v))
        t->in_tokens = v;
    if (gpi_number_after(ln, "Total generated tokens:", &v))
        t->out_tokens = v;
    if (gpi_number_after(ln, "Output token throughput (tok/s):", &v))
        t->r.output_tokens_per_s = v;
    if (gpi_number_after(ln, "Total Token throughput (tok/s):", &v) ||
        gpi_number_after(ln, "Total token throughput (tok/s):", &v))
        t->r.total_tokens_per_s = v;
    if (gpi_number_after(ln, "Median TTFT (ms):", &v))
        t->r.ttft_p50_s = v / 1000.0;
    if (gpi_number_after(ln, "Median TPOT (ms):", &v))
        t->r.tpot_p50_s = v / 1000.0;
    if (gpi_number_after(ln, "Traffic request rate:", &v) && v > 0)
        t->r.request_rate_per_s = v;
    if (gpi_number_after(ln, "Max request concurrency:", &v) && v >= 1 && v < 1e9)
        json_object_set_new(t->scn, "users", json_integer((json_int_t)v));
    if (text_after(ln, "Backend:", buf, sizeof buf) && strncmp(buf, "sglang", 6) == 0)
        json_object_set_new(t->scn, "engine", json_string("sglang"));
}

gp_status gpi_runs_serve_text(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    serve_text_scan t = {.scn = json_object()};
    if (!t.scn)
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    gpi_run_init(&t.r, GPI_RUN_SERVE, GPI_RUNFMT_SERVE_TEXT, 1);
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    while (gpi_lines_next(&it, &ln)) {
        if (!t.r.line || gpi_memstr(ln.s, ln.len, "Serving Benchmark Result"))
            t.r.line = ln.no;
        serve_text_line(&t, &ln);
    }
    if (t.done >= 1 && t.done < 1e12) {
        json_object_set_new(t.scn, "requests", json_integer((json_int_t)t.done));
        double in = t.in_tokens / t.done, out = t.out_tokens / t.done;
        if (in >= 1 && in < 1e9)
            json_object_set_new(t.scn, "prompt_tokens", json_integer((json_int_t)llround(in)));
        if (out >= 1 && out < 1e9)
            json_object_set_new(t.scn, "output_tokens", json_integer((json_int_t)llround(out)));
        t.r.samples = t.done < 1e9 ? (int)t.done : 1000000000;
    }
    if (isfinite(t.r.request_rate_per_s))
        json_object_set_new(t.scn, "rate", json_real(t.r.request_rate_per_s));
    else
        json_object_set_new(t.scn, "rate", json_string("inf"));
    if (!json_object_get(t.scn, "engine"))
        json_object_set_new(t.scn, "engine", json_string("vllm"));
    if (!(t.r.output_tokens_per_s > 0)) {
        json_decref(t.scn);
        return gpi_runs_fail(err, name, 0, NULL, GP_EPARSE, "no \"Output token throughput (tok/s)\" figure");
    }
    return gpi_runset_add(set, &t.r, t.scn, name, err);
}
