/* cmd_serve.c: `gpuplan serve`: serving latency and throughput under a load, and the
 * cheapest setup (GPU type, TP, replicas) meeting latency targets, with the reasons. */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char serve_help[] =
    "usage: gpuplan serve --model X (--users N | --rate R | --trace FILE) [options] [--json]\n\n"
    "Simulates a continuous-batching engine (vLLM-like: chunked prefill, paged KV, preemption)\n"
    "under the load and reports TTFT, TPOT and end-to-end latency (p50/p90/p99), throughput and\n"
    "KV use. With targets (--ttft-p99, --tpot-p99) and no fixed setup, searches the cheapest GPU\n"
    "type x TP x replicas that meets them, and says why fewer GPUs would not.\n\n"
    "traffic:\n"
    "  --users N            closed loop: N users, each sends, waits for the answer, thinks, sends\n"
    "  --think-time S       closed loop: mean think time in seconds (exponential; default 0)\n"
    "  --rate R             open loop: R requests/s (Poisson); 'inf' = all at once (saturating\n"
    "                       load, as offline throughput benchmarks measure)\n"
    "  --arrival A          poisson (default) or fixed (evenly spaced) for --rate\n"
    "  --trace FILE         arrivals and lengths from CSV (arrival_s,prompt_tokens,output_tokens)\n"
    "                       or JSONL ({\"arrival_s\":..,\"prompt_tokens\":..,\"output_tokens\":..})\n"
    "  --requests N         requests to simulate (default: 10 per user, 1000..4000; inf: 1000)\n"
    "  --prompt-tokens N    prompt length (default 1000)\n"
    "  --output-tokens N    output length (default 200)\n"
    "  --lengths D          lognormal (default: sigma 0.5, means as above, capped at 4x),\n"
    "                       exponential (capped at 4x), uniform (0.5x..1.5x), or fixed (every\n"
    "                       request alike and closed-loop users starting together: the old mode)\n"
    "  --prefix-hit F       fraction of each prompt found in the prefix cache (default 0)\n"
    "  --spec-decode K:A[:C] speculative decoding: K draft tokens, acceptance A, draft cost C of a\n"
    "                       target step (default 0.05); 'mtp' = DeepSeek MTP (1 token, 0.8, 0.02)\n"
    "  --seed N             random seed (default 1); same seed, same answer\n"
    "targets and setup:\n"
    "  --ttft-p99 S         p99 time to first token target, seconds\n"
    "  --tpot-p99 S         p99 time per output token target, seconds\n"
    "  --redundancy R       n+1 (one spare replica), n+2, or none (default)\n"
    "  --replicas N         evaluate this many replicas instead of searching\n"
    "  --max-num-seqs N     running sequences per replica (default 256; trtllm 2048)\n"
    "  --gpu ID, --tp N     fix the GPU type / TP (otherwise every priced GPU and TP is tried)\n"
    "  --ep N, --dp N       MoE: expert parallelism over N GPUs; attention data parallelism with N\n"
    "                       ranks inside a replica (ep = tp x dp; vLLM --enable-expert-parallel)\n"
    "  --pp N               pipeline stages (across nodes when the replica exceeds one)\n"
    "  --inter-node L       network between nodes: ib-ndr (default), ib-xdr, roce-400, ...\n"
    "  --disagg             also size disaggregated prefill and decode pools and compare\n"
    "With no load, 256 closed-loop users (the engines' default running-sequence cap).\n\n";

enum { MODE_SEARCH, MODE_EVAL };

typedef struct serve_opts {
    int64_t users, requests, prompt, output, replicas, max_seqs;
    double rate, ttft, tpot, think;
    int rate_set, rate_inf, redundancy, gpu_given, fixed_arrival, disagg;
    gp_length_dist lengths;
    const char *trace, *inter;
    uint64_t seed;
    double prefix_hit;
    gp_spec_decode spec;
} serve_opts;

static int parse_spec(const char *s, gp_spec_decode *sp)
{
    if (!strcmp(s, "mtp")) { /* DeepSeek-V3 MTP: 1 draft token, ~85-90% acceptance (DeepSeek-V3 report, 5.4.3) */
        sp->draft_tokens = 1;
        sp->acceptance = 0.8;
        sp->draft_cost = 0.02;
        return 0;
    }
    char *end;
    long k = strtol(s, &end, 10);
    if (end == s || *end != ':' || k < 1 || k > 16)
        return -1;
    double a = strtod(end + 1, &end);
    double c = 0.05;
    if (*end == ':')
        c = strtod(end + 1, &end);
    if (*end || !(a > 0 && a < 1) || !(c >= 0 && c <= 1))
        return -1;
    sp->draft_tokens = (int)k;
    sp->acceptance = a;
    sp->draft_cost = c;
    return 0;
}

static json_t *stats_json(const gp_latency_stats *s)
{
    return json_pack("{sf sf sf sf sf}", "mean_s", s->mean, "p50_s", s->p50, "p90_s", s->p90, "p99_s", s->p99,
                     "max_s", s->max);
}

static json_t *option_json_base(const gp_serve_option *o);

static const char *const length_names[GP_LENGTH_COUNT] = {"fixed", "uniform", "exponential", "lognormal"};

/* The traffic as simulated, defaults included (they are part of the answer). */
static json_t *traffic_json(const gp_traffic *t, const serve_opts *so, int default_load)
{
    json_t *o = json_pack("{ss sf sf sf sf sb sf sb}", "lengths", length_names[t->prompt.dist], "prompt_mean",
                          t->prompt.mean, "output_mean", t->output.mean, "lognormal_sigma",
                          t->prompt.dist == GP_LENGTH_LOGNORMAL ? t->prompt.sigma : 0.0, "think_time_s", t->think_time_s,
                          "users_in_lockstep", t->lockstep, "prefix_hit", t->prefix_hit, "default_load", default_load);
    if (so->spec.draft_tokens > 0)
        json_object_set_new(o, "spec_decode", json_pack("{si sf sf}", "draft_tokens", so->spec.draft_tokens, "acceptance",
                                                        so->spec.acceptance, "draft_cost", so->spec.draft_cost));
    return o;
}

static void print_traffic(const gp_traffic *t, const serve_opts *so, int default_load)
{
    printf("Traffic: ");
    if (default_load)
        printf("no load given, so 256 closed-loop users; ");
    if (t->prompt.dist == GP_LENGTH_LOGNORMAL)
        printf("lengths log-normal (sigma %.2g; clipped at %lld and %lld tokens)", t->prompt.sigma,
               (long long)t->prompt.max, (long long)t->output.max);
    else
        printf("lengths %s", length_names[t->prompt.dist]);
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        printf(", users %s", t->lockstep ? "starting together" : "starting spread over about one request");
    printf(", prefix-cache hits %.0f%%", t->prefix_hit * 100);
    if (so->spec.draft_tokens > 0)
        printf(", speculative decoding %d draft token%s at %.0f%% acceptance", so->spec.draft_tokens,
               so->spec.draft_tokens > 1 ? "s" : "", so->spec.acceptance * 100);
    printf(".\n");
}

static json_t *option_json(const gp_serve_option *o)
{
    json_t *j = json_pack("{si si si}", "dp", o->dp > 0 ? o->dp : 1, "gpus_per_replica", o->gpus_per_replica,
                          "nodes_per_replica", o->nodes_per_replica);
    json_object_update_missing_new(j, option_json_base(o));
    return j;
}

static json_t *option_json_base(const gp_serve_option *o)
{
    return json_pack("{ss si si si si si sf sb sI sf sf sf sf sf}", "gpu", o->gpu, "tp", o->tp, "pp", o->pp, "ep", o->ep,
                     "replicas", o->replicas, "gpus_total", o->gpus_total, "usd_per_hour", o->usd_per_hour, "meets",
                     o->meets, "kv_tokens_per_replica", (json_int_t)o->kv_tokens, "max_concurrency_per_replica",
                     o->max_concurrency, "ttft_p99_s", o->sim.ttft.p99, "tpot_p99_s", o->sim.tpot.p99,
                     "single_request_ttft_s", o->single_ttft_s, "single_request_tpot_s", o->single_tpot_s);
}

static void cli_layout_name(const gp_serve_option *o, char *buf, size_t n)
{
    int k = snprintf(buf, n, "TP%d", o->tp);
    if (o->pp > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " x PP%d", o->pp);
    if (o->dp > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " x DP%d", o->dp);
    if (o->ep > 1 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " EP%d", o->ep);
}

static json_t *pool_json(const gp_disagg_pool *p)
{
    return json_pack("{ss si si si si si si si sf sf sf sf}", "gpu", p->gpu, "tp", p->tp, "pp", p->pp, "ep", p->ep, "dp",
                     p->dp, "instances", p->instances, "gpus_per_instance", p->gpus_per_instance, "gpus_total",
                     p->gpus_total, "usd_per_hour", p->usd_per_hour, "ttft_p99_s", p->sim.ttft.p99, "tpot_p99_s",
                     p->sim.tpot.p99, "requests_per_s_per_instance", p->sim.requests_per_s);
}

static json_t *disagg_json(const gp_disagg_result *d)
{
    json_t *o = json_pack("{sb sb ss sf sf sf sf sf si ss}", "found", d->found, "pays", d->pays, "kv_link", d->kv_link,
                          "kv_transfer_s", d->kv_transfer_s, "request_rate", d->request_rate, "ttft_p99_s",
                          d->ttft_p99_s, "tpot_p99_s", d->tpot_p99_s, "usd_per_hour", d->usd_per_hour, "gpus_total",
                          d->gpus_total, "why", d->why);
    json_object_set_new(o, "prefill", pool_json(&d->prefill));
    json_object_set_new(o, "decode", pool_json(&d->decode));
    if (d->has_aggregated)
        json_object_set_new(o, "aggregated", json_pack("{ss si si si si sf}", "gpu", d->aggregated.gpu, "tp",
                                                       d->aggregated.tp, "ep", d->aggregated.ep, "gpus_total",
                                                       d->aggregated.gpus_total, "replicas", d->aggregated.replicas,
                                                       "usd_per_hour", d->aggregated.usd_per_hour));
    return o;
}

static void print_disagg(const gp_disagg_result *d)
{
    printf("\nDisaggregated prefill/decode:\n");
    if (!d->found) {
        printf("  %s\n", d->why);
        return;
    }
    const gp_disagg_pool *p = &d->prefill, *q = &d->decode;
    printf("  prefill: %d x TP%d%s on %s = %d GPUs ($%.2f/h), p99 TTFT in prefill %.3f s\n", p->instances, p->tp,
           p->ep > 1 ? " EP" : "", p->gpu, p->gpus_total, p->usd_per_hour, p->sim.ttft.p99);
    printf("  decode:  %d x TP%d%s%s on %s = %d GPUs ($%.2f/h), p99 TPOT %.1f ms\n", q->instances, q->tp,
           q->dp > 1 ? " x DP" : "", q->ep > 1 ? " EP" : "", q->gpu, q->gpus_total, q->usd_per_hour, q->sim.tpot.p99 * 1e3);
    printf("  KV transfer %.1f ms per request over %s; p99 TTFT %.3f s, p99 TPOT %.1f ms; %.2f requests/s\n",
           d->kv_transfer_s * 1e3, d->kv_link, d->ttft_p99_s, d->tpot_p99_s * 1e3, d->request_rate);
    printf("  %s.\n", d->why);
}

static void print_lat(const char *name, const gp_latency_stats *s, double scale, const char *unit)
{
    printf("    %-6s p50 %8.3f  p90 %8.3f  p99 %8.3f  mean %8.3f %s\n", name, s->p50 * scale, s->p90 * scale,
           s->p99 * scale, s->mean * scale, unit);
}

int cmd_serve(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS,
                                         CLI_MODEL_OPTS,
                                         CLI_WORKLOAD_OPTS,
                                         {"users", required_argument, NULL, 3001},
                                         {"rate", required_argument, NULL, 3002},
                                         {"requests", required_argument, NULL, 3003},
                                         {"prompt-tokens", required_argument, NULL, 3004},
                                         {"output-tokens", required_argument, NULL, 3005},
                                         {"trace", required_argument, NULL, 3006},
                                         {"ttft-p99", required_argument, NULL, 3007},
                                         {"tpot-p99", required_argument, NULL, 3008},
                                         {"redundancy", required_argument, NULL, 3009},
                                         {"seed", required_argument, NULL, 3010},
                                         {"think-time", required_argument, NULL, 3011},
                                         {"max-num-seqs", required_argument, NULL, 3012},
                                         {"replicas", required_argument, NULL, 3013},
                                         {"lengths", required_argument, NULL, 3014},
                                         {"arrival", required_argument, NULL, 3015},
                                         {"prefix-hit", required_argument, NULL, 3016},
                                         {"spec-decode", required_argument, NULL, 3017},
                                         {"inter-node", required_argument, NULL, 3018},
                                         {"disagg", no_argument, NULL, 3019},
                                         {0, 0, 0, 0}};
    cli_model_opts mo;
    cli_workload_opts wo;
    cli_model_opts_init(&mo);
    cli_workload_opts_init(&wo);
    serve_opts so = {0};
    so.prompt = 1000;
    so.output = 200;
    so.seed = 1;
    so.lengths = GP_LENGTH_LOGNORMAL;
    int c;
    int64_t v;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:g:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s%s%s  --json               machine-readable output\n", serve_help, cli_model_help, cli_workload_help);
            return EXIT_OK;
        }
        if (cli_common_opt(c, optarg, common))
            continue;
        switch (c) {
        case 3001: if (cli_parse_i64(common, "serve", "users", optarg, 1, 1 << 24, &so.users)) return EXIT_USAGE; continue;
        case 3002:
            if (!strcmp(optarg, "inf") || !strcmp(optarg, "infinity")) {
                so.rate_inf = 1;
            } else if (cli_parse_double(common, "serve", "rate", optarg, 1e-6, 1e9, &so.rate)) {
                return EXIT_USAGE;
            }
            so.rate_set = 1;
            continue;
        case 3003: if (cli_parse_i64(common, "serve", "requests", optarg, 1, 1 << 30, &so.requests)) return EXIT_USAGE; continue;
        case 3004: if (cli_parse_i64(common, "serve", "prompt-tokens", optarg, 1, 1 << 24, &so.prompt)) return EXIT_USAGE; continue;
        case 3005: if (cli_parse_i64(common, "serve", "output-tokens", optarg, 1, 1 << 24, &so.output)) return EXIT_USAGE; continue;
        case 3006: so.trace = optarg; continue;
        case 3007: if (cli_parse_double(common, "serve", "ttft-p99", optarg, 1e-6, 1e6, &so.ttft)) return EXIT_USAGE; continue;
        case 3008: if (cli_parse_double(common, "serve", "tpot-p99", optarg, 1e-6, 1e6, &so.tpot)) return EXIT_USAGE; continue;
        case 3009:
            if (cli_parse_redundancy(optarg, &so.redundancy))
                return cli_usage_error(common, "serve", "--redundancy takes n+1, n+2, ... or none, not '%s'", optarg);
            continue;
        case 3010: if (cli_parse_i64(common, "serve", "seed", optarg, 0, INT64_MAX, &v)) return EXIT_USAGE; so.seed = (uint64_t)v; continue;
        case 3011: if (cli_parse_double(common, "serve", "think-time", optarg, 0, 1e6, &so.think)) return EXIT_USAGE; continue;
        case 3012: if (cli_parse_i64(common, "serve", "max-num-seqs", optarg, 1, 1 << 20, &so.max_seqs)) return EXIT_USAGE; continue;
        case 3013: if (cli_parse_i64(common, "serve", "replicas", optarg, 1, 1 << 16, &so.replicas)) return EXIT_USAGE; continue;
        case 3014:
            if (!strcmp(optarg, "fixed")) so.lengths = GP_LENGTH_FIXED;
            else if (!strcmp(optarg, "lognormal") || !strcmp(optarg, "log-normal")) so.lengths = GP_LENGTH_LOGNORMAL;
            else if (!strcmp(optarg, "exponential")) so.lengths = GP_LENGTH_EXPONENTIAL;
            else if (!strcmp(optarg, "uniform")) so.lengths = GP_LENGTH_UNIFORM;
            else return cli_usage_error(common, "serve", "--lengths takes lognormal, fixed, exponential or uniform, not '%s'", optarg);
            continue;
        case 3015:
            if (!strcmp(optarg, "poisson")) so.fixed_arrival = 0;
            else if (!strcmp(optarg, "fixed")) so.fixed_arrival = 1;
            else return cli_usage_error(common, "serve", "--arrival takes poisson or fixed, not '%s'", optarg);
            continue;
        case 3016: if (cli_parse_double(common, "serve", "prefix-hit", optarg, 0, 0.99, &so.prefix_hit)) return EXIT_USAGE; continue;
        case 3017:
            if (parse_spec(optarg, &so.spec))
                return cli_usage_error(common, "serve", "--spec-decode takes K:ACCEPTANCE[:COST] (1-16 tokens, acceptance in (0, 1)) or mtp, not '%s'", optarg);
            continue;
        case 3018: so.inter = optarg; continue;
        case 3019: so.disagg = 1; continue;
        case 'g': so.gpu_given = 1; break;
        default: break;
        }
        int r = cli_model_opt(common, "serve", c, optarg, &mo);
        if (r == 0)
            r = cli_workload_opt(common, "serve", c, optarg, &wo);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return cli_usage_error(common, "serve", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error(common, "serve", "unexpected argument '%s'", argv[optind]);
    int loads = (so.users > 0) + so.rate_set + (so.trace != NULL);
    int default_load = loads == 0;
    if (default_load) {
        so.users = 256;
        loads = 1;
    }
    if (loads != 1)
        return cli_usage_error(common, "serve", "give exactly one load: --users N, --rate R (or inf), or --trace FILE");
    if (wo.w.task != GP_TASK_INFER)
        return cli_usage_error(common, "serve", "serve is for --task infer");
    if (so.redundancy && (so.rate_inf || so.trace))
        return cli_usage_error(common, "serve", "--redundancy needs a steady load (--users or a finite --rate)");

    gp_model m;
    int rc = cli_model_build("serve", &mo, common, &m);
    if (rc)
        return rc;
    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return EXIT_INPUT;
    gp_error err;
    gp_error_clear(&err);
    const gp_gpu *gpu = NULL;
    if (gp_catalog_find_gpu(cat, wo.gpu, &gpu, &err) != GP_OK)
        return cli_error(common, &err);
    if (wo.w.engine == GP_ENGINE_NONE)
        wo.w.engine = GP_ENGINE_VLLM;
    if (so.max_seqs > 0)
        wo.w.max_num_seqs = so.max_seqs;
    const gp_link *inter = NULL, *inter_given = NULL;
    if (so.inter && gp_catalog_find_link(cat, so.inter, &inter, &err) != GP_OK)
        return cli_error(common, &err);
    if (inter && inter->kind != GP_LINK_SCALE_OUT)
        return cli_usage_error(common, "serve", "--inter-node takes a network between nodes (ib-ndr, roce-400, ...), not '%s'", so.inter);
    inter_given = inter;

    gp_trace_request *trace = NULL;
    size_t trace_len = 0;
    if (so.trace && gp_trace_read(so.trace, &trace, &trace_len, &err) != GP_OK)
        return cli_error(common, &err);

    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.work = cli_work(common); /* one budget for the search or the simulation */
    t.seed = so.seed;
    t.requests = so.requests;
    t.prompt.dist = t.output.dist = so.lengths;
    t.prompt.mean = (double)so.prompt;
    t.output.mean = (double)so.output;
    t.prefix_hit = so.prefix_hit;
    t.lockstep = so.lengths == GP_LENGTH_FIXED;
    if (so.lengths == GP_LENGTH_LOGNORMAL) {
        gp_length_default(&t.prompt, (double)so.prompt);
        gp_length_default(&t.output, (double)so.output);
    } else if (so.lengths == GP_LENGTH_EXPONENTIAL) {
        t.prompt.max = 4 * so.prompt;
        t.output.max = 4 * so.output;
    } else if (so.lengths == GP_LENGTH_UNIFORM) {
        t.prompt.min = so.prompt / 2 > 0 ? so.prompt / 2 : 1;
        t.prompt.max = so.prompt + so.prompt / 2;
        t.output.min = so.output / 2 > 0 ? so.output / 2 : 1;
        t.output.max = so.output + so.output / 2;
    }
    int64_t maxlen = so.prompt + so.output;
    if (so.lengths != GP_LENGTH_FIXED)
        maxlen = t.prompt.max + t.output.max;
    if (so.users > 0) {
        t.arrival = GP_ARRIVAL_CLOSED_LOOP;
        t.users = so.users;
        t.think_time_s = so.think;
    } else if (so.rate_inf) {
        t.arrival = GP_ARRIVAL_BURST;
        if (t.requests <= 0)
            t.requests = 1000;
    } else if (so.rate_set) {
        t.arrival = so.fixed_arrival ? GP_ARRIVAL_FIXED_RATE : GP_ARRIVAL_POISSON;
        t.rate = so.rate;
    } else {
        t.arrival = GP_ARRIVAL_TRACE;
        t.trace = trace;
        t.trace_len = trace_len;
        maxlen = 0;
        for (size_t i = 0; i < trace_len; i++)
            if (trace[i].prompt_tokens + trace[i].output_tokens > maxlen)
                maxlen = trace[i].prompt_tokens + trace[i].output_tokens;
    }
    gp_slo slo = {so.ttft, so.tpot};
    int mode = (t.arrival == GP_ARRIVAL_CLOSED_LOOP || t.arrival == GP_ARRIVAL_POISSON ||
                t.arrival == GP_ARRIVAL_FIXED_RATE) && so.replicas == 0 ? MODE_SEARCH : MODE_EVAL;

    gp_capacity_result *cr = calloc(1, sizeof *cr);
    if (!cr) {
        gp_trace_free(trace);
        fprintf(stderr, "gpuplan: out of memory\n");
        return EXIT_INPUT;
    }
    gp_serve_option best;
    memset(&best, 0, sizeof best);
    int found = 0;
    gp_disagg_result *dr = NULL;
    if (so.disagg && (mode != MODE_SEARCH || t.arrival != GP_ARRIVAL_CLOSED_LOOP || so.ttft <= 0 || so.tpot <= 0)) {
        free(cr);
        gp_trace_free(trace);
        return cli_usage_error(common, "serve", "--disagg needs --users N and both --ttft-p99 and --tpot-p99 (and no --replicas)");
    }
    rc = EXIT_OK;
    if (mode == MODE_SEARCH) {
        gp_capacity_request req;
        memset(&req, 0, sizeof req);
        req.model = &m;
        req.w = &wo.w;
        req.traffic = t;
        req.slo = slo;
        req.redundancy = so.redundancy;
        const gp_gpu *one[1] = {gpu};
        if (so.gpu_given) {
            req.gpus = one;
            req.n_gpus = 1;
        }
        req.fixed_tp = wo.given.tp;
        /* a layout given in part: the pipeline and attention DP not named are 1; EP is searched */
        int some = wo.given.tp > 0 || wo.given.pp > 0 || wo.given.dp > 0 || wo.given.ep > 0;
        req.fixed_pp = wo.given.pp > 0 ? wo.given.pp : some ? 1 : 0;
        req.fixed_ep = wo.given.ep;
        req.fixed_dp = wo.given.dp > 0 ? wo.given.dp : some ? 1 : 0;
        req.inter_node = inter;
        req.spec = so.spec;
        if (gp_capacity_search(cat, &req, cr, &err) != GP_OK) {
            rc = cli_error(common, &err);
            goto out;
        }
        found = cr->found;
        best = cr->best;
        if (so.disagg) {
            dr = calloc(1, sizeof *dr);
            if (!dr || gp_disagg_search(cat, &req, inter_given, dr, &err) != GP_OK) {
                rc = dr ? cli_error(common, &err) : EXIT_INPUT;
                goto out;
            }
        }
    } else {
        /* evaluate one setup: the given TP, or the smallest that holds the model */
        int replicas = so.replicas > 0 ? (int)so.replicas : 1;
        int tps[] = {1, 2, 4, 8, 16, 32, 64};
        gp_sched_config sc;
        gp_layout l;
        gp_layout_defaults(&l);
        l.pp = wo.given.pp > 0 ? wo.given.pp : 1;
        l.dp = wo.given.dp > 0 ? wo.given.dp : 1;
        l.ep = wo.given.ep > 0 ? wo.given.ep : 1;
        int ok = 0;
        for (size_t k = 0; k < sizeof tps / sizeof tps[0] && !ok; k++) {
            if (wo.given.tp > 0 && tps[k] != wo.given.tp)
                continue;
            l.tp = wo.given.tp > 0 ? wo.given.tp : tps[k];
            gp_error_clear(&err);
            ok = gp_serve_sched_config(&m, gpu, &wo.w, &l, maxlen, &sc, &err) == GP_OK &&
                 sc.kv_blocks * sc.block_size >= maxlen;
        }
        if (!ok) {
            if (!err.msg[0])
                snprintf(err.msg, sizeof err.msg, "%s holds no %lld-token request at any TP up to 64", gpu->id,
                         (long long)maxlen);
            err.code = GP_EINVAL;
            rc = cli_error(common, &err);
            goto out;
        }
        gp_step_model sm;
        const gp_link *link = NULL;
        if (gpu->scale_up_domain <= 1)
            link = gp_catalog_gpu_link(cat, gpu);
        if (link && link->kind != GP_LINK_HOST)
            link = NULL;
        if (!inter && gp_catalog_find_link(cat, "ib-ndr", &inter, NULL) != GP_OK)
            inter = NULL;
        if (gp_step_model_init_nodes(&m, gpu, link, inter, &wo.w, &l, NULL, &sm, &err) != GP_OK) {
            rc = cli_error(common, &err);
            goto out;
        }
        gp_traffic tr = t;
        if (tr.arrival == GP_ARRIVAL_CLOSED_LOOP)
            tr.users = (tr.users + replicas - 1) / replicas;
        else if (tr.arrival == GP_ARRIVAL_POISSON || tr.arrival == GP_ARRIVAL_FIXED_RATE)
            tr.rate /= replicas;
        else if (tr.arrival == GP_ARRIVAL_BURST)
            tr.requests = (tr.requests + replicas - 1) / replicas;
        if (tr.arrival == GP_ARRIVAL_CLOSED_LOOP && tr.requests <= 0)
            tr.requests = tr.users * 10 < 1000 ? 1000 : tr.users * 10;
        if ((tr.arrival == GP_ARRIVAL_POISSON || tr.arrival == GP_ARRIVAL_FIXED_RATE) && tr.requests <= 0)
            tr.requests = 2000;
        if (tr.arrival == GP_ARRIVAL_TRACE && replicas > 1) {
            fprintf(stderr, "gpuplan: serve: a trace is replayed on one replica; --replicas must be 1\n");
            rc = EXIT_USAGE;
            goto out;
        }
        sc.spec = so.spec;
        if (l.dp > 1) { /* one attention-DP rank carries 1/dp of the replica's load */
            if (tr.arrival == GP_ARRIVAL_CLOSED_LOOP)
                tr.users = (tr.users + l.dp - 1) / l.dp;
            else if (tr.arrival == GP_ARRIVAL_POISSON || tr.arrival == GP_ARRIVAL_FIXED_RATE)
                tr.rate /= l.dp;
            else if (tr.arrival == GP_ARRIVAL_BURST)
                tr.requests = (tr.requests + l.dp - 1) / l.dp;
        }
        gp_sim_result sim;
        if (gp_simulate(&sm, &sc, &tr, &slo, &sim, &err) != GP_OK) {
            rc = cli_error(common, &err);
            goto out;
        }
        snprintf(best.gpu, sizeof best.gpu, "%s", gpu->id);
        best.tp = l.tp;
        best.pp = l.pp;
        best.ep = l.ep;
        best.dp = l.dp;
        best.gpus_per_replica = l.tp * l.pp * l.dp;
        best.nodes_per_replica = sm.nodes;
        best.replicas = replicas;
        best.gpus_total = best.gpus_per_replica * replicas;
        best.usd_per_hour = gp_gpu_hourly_price(gpu) * best.gpus_total;
        best.fits = 1;
        best.kv_tokens = sc.kv_blocks * sc.block_size * l.dp;
        best.max_concurrency = maxlen > 0 ? (double)best.kv_tokens / (double)maxlen : 0;
        best.sim = sim;
        gp_batch_shape b;
        gp_batch_prefill(&b, (double)so.prompt);
        best.single_ttft_s = gp_step_time(&sm, &b, NULL);
        gp_batch_decode(&b, 1, (double)so.prompt + (double)so.output / 2.0);
        best.single_tpot_s = gp_step_time(&sm, &b, NULL);
        best.meets = (slo.ttft_s <= 0 || sim.ttft.p99 <= slo.ttft_s) && (slo.tpot_s <= 0 || sim.tpot.p99 <= slo.tpot_s);
        found = 1;
    }

    {
        int serving = found ? best.replicas - (mode == MODE_SEARCH ? so.redundancy : 0) : 0;
        const gp_sim_result *s = &best.sim;
        /* the simulation is one attention-DP rank of one replica */
        double scale = (serving > 0 ? serving : 1) * (found && best.dp > 1 ? best.dp : 1);
        if (common->json) {
            json_t *reasons = json_array();
            for (int i = 0; i < cr->n_reasons; i++)
                json_array_append_new(reasons, json_pack("{ss ss}", "code", gp_serve_reason_name(cr->reasons[i].code),
                                                         "message", cr->reasons[i].message));
            json_t *options = json_array();
            for (int i = 0; i < cr->n_options; i++)
                json_array_append_new(options, option_json(&cr->options[i]));
            json_t *layout = json_pack("{si si si si si si si si}", "tp", found ? best.tp : 0, "pp", found ? best.pp : 0,
                                       "ep", found ? best.ep : 0, "dp", found ? (best.dp > 0 ? best.dp : 1) : 0,
                                       "replicas", found ? best.replicas : 0, "gpus_total", found ? best.gpus_total : 0,
                                       "gpus_per_replica", found ? best.gpus_per_replica : 0, "nodes_per_replica",
                                       found ? best.nodes_per_replica : 0);
            json_t *perf = json_pack(
                "{sf sf sf sf sf sf sf sf sf sf sf sf sf sf sf sf sf}", "ttft_p50_s", s->ttft.p50, "ttft_p90_s",
                s->ttft.p90, "ttft_p99_s", s->ttft.p99, "tpot_p50_s", s->tpot.p50, "tpot_p90_s", s->tpot.p90,
                "tpot_p99_s", s->tpot.p99, "e2e_p50_s", s->e2e.p50, "e2e_p90_s", s->e2e.p90, "e2e_p99_s", s->e2e.p99,
                "throughput_tokens_per_s", s->output_tokens_per_s * scale, "total_tokens_per_s",
                s->total_tokens_per_s * scale, "requests_per_s", s->requests_per_s * scale, "goodput_requests_per_s",
                s->goodput_requests_per_s * scale, "slo_attainment", s->slo_attainment, "single_request_ttft_s",
                best.single_ttft_s, "single_request_tpot_s", best.single_tpot_s, "per_replica_throughput_tokens_per_s",
                s->output_tokens_per_s);
            json_object_set_new(perf, "ttft", stats_json(&s->ttft));
            json_object_set_new(perf, "tpot", stats_json(&s->tpot));
            json_object_set_new(perf, "e2e", stats_json(&s->e2e));
            json_t *kv = json_pack("{sf sI sf sf sI sf}", "max_concurrency", best.max_concurrency, "tokens_per_replica",
                                   (json_int_t)best.kv_tokens, "utilization_mean", s->kv_utilization_mean,
                                   "utilization_peak", s->kv_utilization_peak, "preemptions", (json_int_t)s->preemptions,
                                   "mean_running_sequences", s->mean_running);
            int met = found && best.meets;
            json_t *sl = json_pack("{sb so? so? si ss}", "met", met, "ttft_p99_s", so.ttft > 0 ? json_real(so.ttft) : NULL,
                                   "tpot_p99_s", so.tpot > 0 ? json_real(so.tpot) : NULL, "redundancy", so.redundancy,
                                   "evaluated_with", so.redundancy > 0 ? "one replica down" : "all replicas");
            json_t *o = json_pack("{ss ss ss ss sb so so so so so so sf sI}", "model", m.id, "gpu", found ? best.gpu : "",
                                  "engine", gp_engine_name(wo.w.engine), "mode",
                                  mode == MODE_SEARCH ? "search" : "evaluate", "found", found, "layout", layout, "perf",
                                  perf, "kv_cache", kv, "slo", sl, "reasons", reasons, "options", options,
                                  "usd_per_hour", best.usd_per_hour, "requests_simulated", (json_int_t)s->requests);
            if (cr->has_fewer)
                json_object_set_new(o, "one_replica_fewer", option_json(&cr->fewer));
            json_object_set_new(o, "traffic", traffic_json(&t, &so, default_load));
            if (dr)
                json_object_set_new(o, "disagg", disagg_json(dr));
            rc = cli_print_json(common, o);
            goto out;
        }
        char a[64];
        printf("%s on ", m.name[0] ? m.name : m.id);
        if (t.arrival == GP_ARRIVAL_CLOSED_LOOP)
            printf("%s users (think %.3g s)", cli_fmt_count(a, sizeof a, so.users), so.think);
        else if (t.arrival == GP_ARRIVAL_BURST)
            printf("a saturating load (%lld requests at once)", (long long)t.requests);
        else if (t.arrival == GP_ARRIVAL_TRACE)
            printf("trace %s (%zu requests)", so.trace, trace_len);
        else
            printf("%.4g requests/s", so.rate);
        if (t.arrival != GP_ARRIVAL_TRACE)
            printf(", %lld prompt + %lld output tokens", (long long)so.prompt, (long long)so.output);
        printf(", engine %s", gp_engine_name(wo.w.engine));
        if (so.ttft > 0 || so.tpot > 0)
            printf("; targets p99 TTFT %.3g s, p99 TPOT %.3g ms", so.ttft, so.tpot * 1e3);
        if (so.redundancy)
            printf(", n+%d", so.redundancy);
        printf("\n");
        print_traffic(&t, &so, default_load);
        printf("\n");
        if (!found) {
            printf("No setup meets the targets.\n");
            for (int i = 0; i < cr->n_reasons; i++)
                printf("  - [%s] %s\n", gp_serve_reason_name(cr->reasons[i].code), cr->reasons[i].message);
            goto out;
        }
        char lay[64];
        cli_layout_name(&best, lay, sizeof lay);
        printf("%s: %d replica%s x %s on %s = %d GPU%s", mode == MODE_SEARCH ? "Cheapest setup" : "Setup",
               best.replicas, best.replicas > 1 ? "s" : "", lay, best.gpu, best.gpus_total,
               best.gpus_total > 1 ? "s" : "");
        if (best.nodes_per_replica > 1)
            printf(", %d nodes per replica", best.nodes_per_replica);
        if (best.usd_per_hour > 0)
            printf(" ($%.2f/h at on-demand prices)", best.usd_per_hour);
        printf("\n  per replica: KV cache %s tokens = %.1f concurrent %lld-token sequences\n",
               cli_fmt_count(a, sizeof a, best.kv_tokens), best.max_concurrency, (long long)maxlen);
        printf("  one request alone: TTFT %.3f s, TPOT %.1f ms\n", best.single_ttft_s, best.single_tpot_s * 1e3);
        if (mode == MODE_SEARCH && so.redundancy)
            printf("  latency with %d replica%s down (%d serving):\n", so.redundancy, so.redundancy > 1 ? "s" : "", serving);
        else
            printf("  latency (%lld requests simulated per replica):\n", (long long)s->requests);
        print_lat("TTFT", &s->ttft, 1.0, "s");
        print_lat("TPOT", &s->tpot, 1e3, "ms");
        print_lat("E2E", &s->e2e, 1.0, "s");
        printf("  throughput: %.0f output tokens/s, %.0f total tokens/s, %.2f requests/s (%d serving replica%s)\n",
               s->output_tokens_per_s * scale, s->total_tokens_per_s * scale, s->requests_per_s * scale, serving,
               serving > 1 ? "s" : "");
        printf("  KV cache use: mean %.0f%%, peak %.0f%%; %.1f sequences running on average; %lld preemptions\n",
               s->kv_utilization_mean * 100, s->kv_utilization_peak * 100, s->mean_running, (long long)s->preemptions);
        if (so.ttft > 0 || so.tpot > 0)
            printf("  targets: %s (goodput %.2f requests/s, %.1f%% of requests within both)\n",
                   best.meets ? "met" : "MISSED", s->goodput_requests_per_s * scale, s->slo_attainment * 100);
        if (cr->n_reasons) {
            printf("\nWhy this many GPUs:\n");
            for (int i = 0; i < cr->n_reasons; i++)
                printf("  - [%s] %s\n", gp_serve_reason_name(cr->reasons[i].code), cr->reasons[i].message);
        }
        if (cr->n_options > 1) {
            printf("\nSetups that meet the targets (cheapest replica count per GPU type and TP):\n");
            printf("  %-16s %-18s %8s %5s %9s %10s %10s\n", "GPU", "layout", "replicas", "GPUs", "$/h", "p99 TTFT", "p99 TPOT");
            for (int i = 0; i < cr->n_options; i++) {
                const gp_serve_option *o = &cr->options[i];
                cli_layout_name(o, lay, sizeof lay);
                printf("  %-16s %-18s %8d %5d %9.2f %9.3fs %8.1fms\n", o->gpu, lay, o->replicas, o->gpus_total,
                       o->usd_per_hour, o->sim.ttft.p99, o->sim.tpot.p99 * 1e3);
            }
        }
        if (dr)
            print_disagg(dr);
    }
out:
    free(dr);
    free(cr);
    gp_trace_free(trace);
    return rc;
}
