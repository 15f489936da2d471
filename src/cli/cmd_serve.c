/* cmd_serve.c: `gpuplan serve`: serving latency and throughput under a load, and the
 * cheapest setup (GPU type, layout, replicas) meeting latency targets, with the reasons
 * (gp_serve_run); this file only prints the answer. */
#include "cli.h"

#include <string.h>

static const char serve_help[] =
    "usage: gpuplan serve --model X (--users N | --rate R | --trace FILE) [options] [--json]\n\n"
    "Simulates a continuous-batching engine (vLLM-like: chunked prefill, paged KV, preemption)\n"
    "under the load and reports TTFT, TPOT and end-to-end latency (p50/p90/p99), throughput and\n"
    "KV use. With targets (--ttft-p99, --tpot-p99) and no fixed setup, searches the cheapest GPU\n"
    "type x TP x replicas that meets them, and says why fewer GPUs would not. MoE models: --ep and\n"
    "--dp (attention data parallelism, ep = tp x dp); --pp splits a replica over nodes; --disagg\n"
    "also sizes disaggregated prefill and decode pools. With no load, 256 closed-loop users.\n\n"
    "Flags:\n";

static const char *const length_names[GP_LENGTH_COUNT] = {"fixed", "uniform", "exponential", "lognormal"};

static void print_lat(const char *name, const gp_latency_stats *s, double scale, const char *unit)
{
    printf("    %-6s p50 %8.3f  p90 %8.3f  p99 %8.3f  mean %8.3f %s\n", name, s->p50 * scale, s->p90 * scale,
           s->p99 * scale, s->mean * scale, unit);
}

static void print_traffic(const gp_serve_answer *a)
{
    const gp_traffic *t = &a->traffic;
    printf("Traffic: ");
    if (a->default_load)
        printf("no load given, so 256 closed-loop users; ");
    if (t->prompt.dist == GP_LENGTH_LOGNORMAL)
        printf("lengths log-normal (sigma %.2g; clipped at %lld and %lld tokens)", t->prompt.sigma,
               (long long)t->prompt.max, (long long)t->output.max);
    else
        printf("lengths %s", length_names[t->prompt.dist]);
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        printf(", users %s", t->lockstep ? "starting together" : "starting spread over about one request");
    printf(", prefix-cache hits %.0f%%", t->prefix_hit * 100);
    if (a->spec.draft_tokens > 0)
        printf(", speculative decoding %d draft token%s at %.0f%% acceptance", a->spec.draft_tokens,
               a->spec.draft_tokens > 1 ? "s" : "", a->spec.acceptance * 100);
    printf(".\n");
}

static void print_load(const gp_result *res, const gp_serve_answer *a)
{
    const gp_model *m = gp_result_model(res);
    const gp_scenario *sc = gp_result_scenario(res);
    const gp_traffic *t = &a->traffic;
    char b[64];
    printf("%s on ", m->name[0] ? m->name : m->id);
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        printf("%s users (think %.3g s)", cli_fmt_count(b, sizeof b, sc->users), sc->think_time);
    else if (t->arrival == GP_ARRIVAL_BURST)
        printf("a saturating load (%lld requests at once)", (long long)t->requests);
    else if (t->arrival == GP_ARRIVAL_TRACE)
        printf("trace %s (%zu requests)", sc->trace, a->trace_len);
    else
        printf("%.4g requests/s", sc->rate);
    if (t->arrival != GP_ARRIVAL_TRACE)
        printf(", %lld prompt + %lld output tokens", (long long)sc->prompt_tokens, (long long)sc->output_tokens);
    printf(", engine %s", gp_engine_name(gp_result_workload(res)->engine));
    if (sc->ttft_p99 > 0 || sc->tpot_p99 > 0)
        printf("; targets p99 TTFT %.3g s, p99 TPOT %.3g ms", sc->ttft_p99, sc->tpot_p99 * 1e3);
    if (sc->redundancy)
        printf(", n+%d", sc->redundancy);
    printf("\n");
    print_traffic(a);
    printf("\n");
}

/* "TP8", "TP2 x PP2", "TP1 x DP8 EP8" */
static void layout_name(const gp_serve_option *o, char *buf, size_t n)
{
    int k = snprintf(buf, n, "TP%d", o->tp);
    if (o->pp > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " x PP%d", o->pp);
    if (o->dp > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " x DP%d", o->dp);
    if (o->ep > 1 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " EP%d", o->ep);
}

static void print_reasons(const gp_capacity_result *cr)
{
    for (int i = 0; i < cr->n_reasons; i++)
        printf("  - [%s] %s\n", gp_serve_reason_name(cr->reasons[i].code), cr->reasons[i].message);
}

static void print_options(const gp_capacity_result *cr)
{
    printf("\nSetups that meet the targets (cheapest replica count per GPU type and TP):\n");
    printf("  %-16s %-18s %8s %5s %9s %10s %10s\n", "GPU", "layout", "replicas", "GPUs", "$/h", "p99 TTFT", "p99 TPOT");
    for (int i = 0; i < cr->n_options; i++) {
        const gp_serve_option *o = &cr->options[i];
        char lay[64];
        layout_name(o, lay, sizeof lay);
        printf("  %-16s %-18s %8d %5d %9.2f %9.3fs %8.1fms\n", o->gpu, lay, o->replicas, o->gpus_total, o->usd_per_hour,
               o->sim.ttft.p99, o->sim.tpot.p99 * 1e3);
    }
}

static void print_setup(const gp_scenario *sc, const gp_serve_answer *a)
{
    const gp_serve_option *best = &a->best;
    const gp_sim_result *s = &best->sim;
    int search = a->mode == GP_SERVE_MODE_SEARCH, serving = a->serving;
    /* the simulation is one attention-DP rank of one replica */
    double k = (serving > 0 ? serving : 1) * (best->dp > 1 ? best->dp : 1);
    char b[64], lay[64];
    layout_name(best, lay, sizeof lay);
    printf("%s: %d replica%s x %s on %s = %d GPU%s", search ? "Cheapest setup" : "Setup", best->replicas,
           best->replicas > 1 ? "s" : "", lay, best->gpu, best->gpus_total, best->gpus_total > 1 ? "s" : "");
    if (best->nodes_per_replica > 1)
        printf(", %d nodes per replica", best->nodes_per_replica);
    if (best->usd_per_hour > 0)
        printf(" ($%.2f/h at on-demand prices)", best->usd_per_hour);
    printf("\n  per replica: KV cache %s tokens = %.1f concurrent %lld-token sequences\n",
           cli_fmt_count(b, sizeof b, best->kv_tokens), best->max_concurrency, (long long)a->max_len);
    printf("  one request alone: TTFT %.3f s, TPOT %.1f ms\n", best->single_ttft_s, best->single_tpot_s * 1e3);
    if (search && sc->redundancy)
        printf("  latency with %d replica%s down (%d serving):\n", sc->redundancy, sc->redundancy > 1 ? "s" : "",
               serving);
    else
        printf("  latency (%lld requests simulated per replica):\n", (long long)s->requests);
    print_lat("TTFT", &s->ttft, 1.0, "s");
    print_lat("TPOT", &s->tpot, 1e3, "ms");
    print_lat("E2E", &s->e2e, 1.0, "s");
    printf("  throughput: %.0f output tokens/s, %.0f total tokens/s, %.2f requests/s (%d serving replica%s)\n",
           s->output_tokens_per_s * k, s->total_tokens_per_s * k, s->requests_per_s * k, serving,
           serving > 1 ? "s" : "");
    /* the likely range: the 10th-90th percentile of the error on comparable published runs */
    double lo = 1.0 + a->error_p10, hi = 1.0 + a->error_p90;
    printf("  likely range   %.0f-%.0f output tokens/s; p99 TTFT %.3f-%.3f s, p99 TPOT %.1f-%.1f ms\n"
           "                 (10th-90th percentile of the error on published runs held out of the fit)\n",
           s->output_tokens_per_s * k / hi, s->output_tokens_per_s * k / lo, s->ttft.p99 * lo, s->ttft.p99 * hi,
           s->tpot.p99 * lo * 1e3, s->tpot.p99 * hi * 1e3);
    printf("  KV cache use: mean %.0f%%, peak %.0f%%; %.1f sequences running on average; %lld preemptions\n",
           s->kv_utilization_mean * 100, s->kv_utilization_peak * 100, s->mean_running, (long long)s->preemptions);
    if (sc->ttft_p99 > 0 || sc->tpot_p99 > 0)
        printf("  targets: %s (goodput %.2f requests/s, %.1f%% of requests within both)\n",
               best->meets ? "met" : "MISSED", s->goodput_requests_per_s * k, s->slo_attainment * 100);
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
           q->dp > 1 ? " x DP" : "", q->ep > 1 ? " EP" : "", q->gpu, q->gpus_total, q->usd_per_hour,
           q->sim.tpot.p99 * 1e3);
    printf("  KV transfer %.1f ms per request over %s; p99 TTFT %.3f s, p99 TPOT %.1f ms; %.2f requests/s\n",
           d->kv_transfer_s * 1e3, d->kv_link, d->ttft_p99_s, d->tpot_p99_s * 1e3, d->request_rate);
    printf("  %s.\n", d->why);
}

int cmd_serve(int argc, char **argv, cli_common *common)
{
    gp_result *res = NULL;
    int rc = cli_run_question(common, "serve", argc, argv, serve_help, &res);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    if (common->json) {
        rc = cli_print_result_json(common, res);
        gp_result_free(res);
        return rc;
    }
    const gp_serve_answer *a = gp_result_serve(res);
    const gp_capacity_result *cr = a->search;
    print_load(res, a);
    if (!a->found) {
        printf("No setup meets the targets.\n");
        print_reasons(cr);
    } else {
        print_setup(gp_result_scenario(res), a);
        if (cr->n_reasons) {
            printf("\nWhy this many GPUs:\n");
            print_reasons(cr);
        }
        if (cr->n_options > 1)
            print_options(cr);
        if (a->disagg)
            print_disagg(a->disagg);
    }
    gp_result_free(res);
    return EXIT_OK;
}
