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
    "  --lengths D          fixed (default), exponential (means as above, capped at 4x), uniform\n"
    "                       (0.5x..1.5x)\n"
    "  --seed N             random seed (default 1); same seed, same answer\n"
    "targets and setup:\n"
    "  --ttft-p99 S         p99 time to first token target, seconds\n"
    "  --tpot-p99 S         p99 time per output token target, seconds\n"
    "  --redundancy R       n+1 (one spare replica), n+2, or none (default)\n"
    "  --replicas N         evaluate this many replicas instead of searching\n"
    "  --max-num-seqs N     running sequences per replica (default 256; trtllm 2048)\n"
    "  --gpu ID, --tp N     fix the GPU type / TP (otherwise every priced GPU and TP is tried)\n\n";

enum { MODE_SEARCH, MODE_EVAL };

typedef struct serve_opts {
    int64_t users, requests, prompt, output, replicas, max_seqs;
    double rate, ttft, tpot, think;
    int rate_set, rate_inf, redundancy, gpu_given, fixed_arrival;
    gp_length_dist lengths;
    const char *trace;
    uint64_t seed;
} serve_opts;

static json_t *stats_json(const gp_latency_stats *s)
{
    return json_pack("{sf sf sf sf sf}", "mean_s", s->mean, "p50_s", s->p50, "p90_s", s->p90, "p99_s", s->p99,
                     "max_s", s->max);
}

static json_t *option_json(const gp_serve_option *o)
{
    return json_pack("{ss si si si si si sf sb sI sf sf sf sf sf}", "gpu", o->gpu, "tp", o->tp, "pp", o->pp, "ep", o->ep,
                     "replicas", o->replicas, "gpus_total", o->gpus_total, "usd_per_hour", o->usd_per_hour, "meets",
                     o->meets, "kv_tokens_per_replica", (json_int_t)o->kv_tokens, "max_concurrency_per_replica",
                     o->max_concurrency, "ttft_p99_s", o->sim.ttft.p99, "tpot_p99_s", o->sim.tpot.p99,
                     "single_request_ttft_s", o->single_ttft_s, "single_request_tpot_s", o->single_tpot_s);
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
                                         {0, 0, 0, 0}};
    cli_model_opts mo;
    cli_workload_opts wo;
    cli_model_opts_init(&mo);
    cli_workload_opts_init(&wo);
    serve_opts so = {0};
    so.prompt = 1000;
    so.output = 200;
    so.seed = 1;
    so.lengths = GP_LENGTH_FIXED;
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
            else if (!strcmp(optarg, "exponential")) so.lengths = GP_LENGTH_EXPONENTIAL;
            else if (!strcmp(optarg, "uniform")) so.lengths = GP_LENGTH_UNIFORM;
            else return cli_usage_error(common, "serve", "--lengths takes fixed, exponential or uniform, not '%s'", optarg);
            continue;
        case 3015:
            if (!strcmp(optarg, "poisson")) so.fixed_arrival = 0;
            else if (!strcmp(optarg, "fixed")) so.fixed_arrival = 1;
            else return cli_usage_error(common, "serve", "--arrival takes poisson or fixed, not '%s'", optarg);
            continue;
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
    if (wo.given.pp > 1 || wo.given.ep > 1)
        return cli_usage_error(common, "serve", "serve models TP and replicas; --pp and --ep are not simulated yet");

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
    if (so.lengths == GP_LENGTH_EXPONENTIAL) {
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
        if (gp_capacity_search(cat, &req, cr, &err) != GP_OK) {
            rc = cli_error(common, &err);
            goto out;
        }
        found = cr->found;
        best = cr->best;
    } else {
        /* evaluate one setup: the given TP, or the smallest that holds the model */
        int replicas = so.replicas > 0 ? (int)so.replicas : 1;
        int tps[] = {1, 2, 4, 8, 16, 32, 64};
        gp_sched_config sc;
        gp_layout l;
        gp_layout_defaults(&l);
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
        if (l.tp > gpu->scale_up_domain)
            link = gp_catalog_gpu_link(cat, gpu);
        if (link && link->kind == GP_LINK_SCALE_UP)
            link = NULL;
        if (gp_step_model_init(&m, gpu, link, &wo.w, &l, NULL, &sm, &err) != GP_OK) {
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
        gp_sim_result sim;
        if (gp_simulate(&sm, &sc, &tr, &slo, &sim, &err) != GP_OK) {
            rc = cli_error(common, &err);
            goto out;
        }
        snprintf(best.gpu, sizeof best.gpu, "%s", gpu->id);
        best.tp = l.tp;
        best.pp = best.ep = 1;
        best.replicas = replicas;
        best.gpus_total = l.tp * replicas;
        best.usd_per_hour = gp_gpu_hourly_price(gpu) * best.gpus_total;
        best.fits = 1;
        best.kv_tokens = sc.kv_blocks * sc.block_size;
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
        double scale = serving > 0 ? serving : 1;
        if (common->json) {
            json_t *reasons = json_array();
            for (int i = 0; i < cr->n_reasons; i++)
                json_array_append_new(reasons, json_pack("{ss ss}", "code", gp_serve_reason_name(cr->reasons[i].code),
                                                         "message", cr->reasons[i].message));
            json_t *options = json_array();
            for (int i = 0; i < cr->n_options; i++)
                json_array_append_new(options, option_json(&cr->options[i]));
            json_t *layout = json_pack("{si si si si si}", "tp", found ? best.tp : 0, "pp", found ? 1 : 0, "ep",
                                       found ? 1 : 0, "replicas", found ? best.replicas : 0, "gpus_total",
                                       found ? best.gpus_total : 0);
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
        printf("\n\n");
        if (!found) {
            printf("No setup meets the targets.\n");
            for (int i = 0; i < cr->n_reasons; i++)
                printf("  - [%s] %s\n", gp_serve_reason_name(cr->reasons[i].code), cr->reasons[i].message);
            goto out;
        }
        printf("%s: %d replica%s x TP%d on %s = %d GPU%s", mode == MODE_SEARCH ? "Cheapest setup" : "Setup",
               best.replicas, best.replicas > 1 ? "s" : "", best.tp, best.gpu, best.gpus_total,
               best.gpus_total > 1 ? "s" : "");
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
            printf("  %-16s %4s %8s %5s %9s %10s %10s\n", "GPU", "TP", "replicas", "GPUs", "$/h", "p99 TTFT", "p99 TPOT");
            for (int i = 0; i < cr->n_options; i++) {
                const gp_serve_option *o = &cr->options[i];
                printf("  %-16s %4d %8d %5d %9.2f %9.3fs %8.1fms\n", o->gpu, o->tp, o->replicas, o->gpus_total,
                       o->usd_per_hour, o->sim.ttft.p99, o->sim.tpot.p99 * 1e3);
            }
        }
    }
out:
    free(cr);
    gp_trace_free(trace);
    return rc;
}
