/*
 * text_serve.c: a serving answer as text (`gpuplan serve`): the load, the setup (or the
 * cheapest that meets the targets) with its latency, throughput, likely range and KV use, why
 * this many GPUs, the other setups and the disaggregated pools. Renders into memory
 * (gp_result_text).
 */
#include "json.h"
#include "text.h"

#include <string.h>

static const char *const length_names[GP_LENGTH_COUNT] = {"fixed", "uniform", "exponential", "lognormal"};

static void print_lat(gpi_buf *tb, const char *name, const gp_latency_stats *s, double scale, const char *unit)
{
    gpi_buf_printf(tb, "    %-6s p50 %8.3f  p90 %8.3f  p99 %8.3f  mean %8.3f %s\n", name, s->p50 * scale,
                   s->p90 * scale, s->p99 * scale, s->mean * scale, unit);
}

static void print_traffic(gpi_buf *tb, const gp_serve_answer *a)
{
    const gp_traffic *t = &a->traffic;
    gpi_buf_printf(tb, "Traffic: ");
    if (a->default_load)
        gpi_buf_printf(tb, "no load given, so 256 closed-loop users; ");
    if (t->prompt.dist == GP_LENGTH_LOGNORMAL)
        gpi_buf_printf(tb, "lengths log-normal (sigma %.2g; clipped at %lld and %lld tokens)", t->prompt.sigma,
                       (long long)t->prompt.max, (long long)t->output.max);
    else
        gpi_buf_printf(tb, "lengths %s", length_names[t->prompt.dist]);
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        gpi_buf_printf(tb, ", users %s", t->lockstep ? "starting together" : "starting spread over about one request");
    gpi_buf_printf(tb, ", prefix-cache hits %.0f%%", t->prefix_hit * 100);
    if (a->spec.draft_tokens > 0)
        gpi_buf_printf(tb, ", speculative decoding %d draft token%s at %.0f%% acceptance", a->spec.draft_tokens,
                       a->spec.draft_tokens > 1 ? "s" : "", a->spec.acceptance * 100);
    gpi_buf_printf(tb, ".\n");
}

static void print_load(gpi_buf *tb, const gp_model *m, const gp_workload *w, const gp_scenario *sc,
                       const gp_serve_answer *a)
{
    const gp_traffic *t = &a->traffic;
    char b[64];
    gpi_buf_printf(tb, "%s on ", m->name[0] ? m->name : m->id);
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        gpi_buf_printf(tb, "%s users (think %.3g s)", gpi_fmt_count(b, sizeof b, sc->users), sc->think_time);
    else if (t->arrival == GP_ARRIVAL_BURST)
        gpi_buf_printf(tb, "a saturating load (%lld requests at once)", (long long)t->requests);
    else if (t->arrival == GP_ARRIVAL_TRACE)
        gpi_buf_printf(tb, "trace %s (%zu requests)", sc->trace, a->trace_len);
    else
        gpi_buf_printf(tb, "%.4g requests/s", sc->rate);
    if (t->arrival != GP_ARRIVAL_TRACE)
        gpi_buf_printf(tb, ", %lld prompt + %lld output tokens", (long long)sc->prompt_tokens,
                       (long long)sc->output_tokens);
    gpi_buf_printf(tb, ", engine %s", gp_engine_name(w->engine));
    if (sc->ttft_p99 > 0 || sc->tpot_p99 > 0)
        gpi_buf_printf(tb, "; targets p99 TTFT %.3g s, p99 TPOT %.3g ms", sc->ttft_p99, sc->tpot_p99 * 1e3);
    if (sc->redundancy)
        gpi_buf_printf(tb, ", n+%d", sc->redundancy);
    gpi_buf_printf(tb, "\n");
    print_traffic(tb, a);
    gpi_buf_printf(tb, "\n");
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

static void print_reasons(gpi_buf *tb, const gp_capacity_result *cr)
{
    for (int i = 0; i < cr->n_reasons; i++)
        gpi_buf_printf(tb, "  - [%s] %s\n", gp_serve_reason_name(cr->reasons[i].code), cr->reasons[i].message);
}

static void print_options(gpi_buf *tb, const gp_capacity_result *cr)
{
    gpi_buf_printf(tb, "\nSetups that meet the targets (cheapest replica count per GPU type and TP):\n");
    gpi_buf_printf(tb, "  %-16s %-18s %8s %5s %9s %10s %10s\n", "GPU", "layout", "replicas", "GPUs", "$/h", "p99 TTFT",
                   "p99 TPOT");
    for (int i = 0; i < cr->n_options; i++) {
        const gp_serve_option *o = &cr->options[i];
        char lay[64];
        layout_name(o, lay, sizeof lay);
        gpi_buf_printf(tb, "  %-16s %-18s %8d %5d %9.2f %9.3fs %8.1fms\n", o->gpu, lay, o->replicas, o->gpus_total,
                       o->usd_per_hour, o->sim.ttft.p99, o->sim.tpot.p99 * 1e3);
    }
}

/* At or above this share of the time waiting on the host, the host is the bottleneck: a step
 * then lasts as long as the host's work, whatever the GPU. */
#define GPI_HOST_BOUND_SHARE 0.5

/* How long the GPU waits on the engine's host (docs/serving.md, "Host work"), and what that
 * means for the choice of GPU when it is most of the time. */
static void print_host_wait(gpi_buf *tb, double share)
{
    gpi_buf_printf(tb, "  engine host work: the GPU waits on it %.0f%% of the time", share * 100);
    if (share >= GPI_HOST_BOUND_SHARE)
        gpi_buf_printf(tb, "; the CPU side sets the pace, so a faster GPU would barely help: more replicas would");
    gpi_buf_printf(tb, "\n");
}

static void print_setup(gpi_buf *tb, const gp_scenario *sc, const gp_serve_answer *a)
{
    const gp_serve_option *best = &a->best;
    const gp_sim_result *s = &best->sim;
    int search = a->mode == GP_SERVE_MODE_SEARCH, serving = a->serving;
    double k = gpi_serve_scale(a); /* the simulation is one attention-DP rank of one replica */
    char b[64], lay[64];
    layout_name(best, lay, sizeof lay);
    gpi_buf_printf(tb, "%s: %d replica%s x %s on %s = %d GPU%s", search ? "Cheapest setup" : "Setup", best->replicas,
                   best->replicas > 1 ? "s" : "", lay, best->gpu, best->gpus_total, best->gpus_total > 1 ? "s" : "");
    if (best->nodes_per_replica > 1)
        gpi_buf_printf(tb, ", %d nodes per replica", best->nodes_per_replica);
    if (best->usd_per_hour > 0)
        gpi_buf_printf(tb, " ($%.2f/h at on-demand prices)", best->usd_per_hour);
    gpi_buf_printf(tb, "\n  per replica: KV cache %s tokens = %.1f concurrent %lld-token sequences\n",
                   gpi_fmt_count(b, sizeof b, best->kv_tokens), best->max_concurrency, (long long)a->max_len);
    gpi_buf_printf(tb, "  one request alone: TTFT %.3f s, TPOT %.1f ms\n", best->single_ttft_s,
                   best->single_tpot_s * 1e3);
    if (search && sc->redundancy)
        gpi_buf_printf(tb, "  latency with %d replica%s down (%d serving):\n", sc->redundancy,
                       sc->redundancy > 1 ? "s" : "", serving);
    else
        gpi_buf_printf(tb, "  latency (%lld requests simulated per replica):\n", (long long)s->requests);
    print_lat(tb, "TTFT", &s->ttft, 1.0, "s");
    print_lat(tb, "TPOT", &s->tpot, 1e3, "ms");
    print_lat(tb, "E2E", &s->e2e, 1.0, "s");
    gpi_buf_printf(
        tb, "  throughput: %.0f output tokens/s, %.0f total tokens/s, %.2f requests/s (%d serving replica%s)\n",
        s->output_tokens_per_s * k, s->total_tokens_per_s * k, s->requests_per_s * k, serving, serving > 1 ? "s" : "");
    /* the likely range: the 10th-90th percentile of the error on comparable published runs */
    double r[3][2];
    gpi_serve_range(s->output_tokens_per_s * k, 1, a->error_p10, a->error_p90, &r[0][0], &r[0][1]);
    gpi_serve_range(s->ttft.p99, 0, a->error_p10, a->error_p90, &r[1][0], &r[1][1]);
    gpi_serve_range(s->tpot.p99, 0, a->error_p10, a->error_p90, &r[2][0], &r[2][1]);
    gpi_buf_printf(tb,
                   "  likely range   %.0f-%.0f output tokens/s; p99 TTFT %.3f-%.3f s, p99 TPOT %.1f-%.1f ms\n"
                   "                 (10th-90th percentile of the error on ",
                   r[0][0], r[0][1], r[1][0], r[1][1], r[2][0] * 1e3, r[2][1] * 1e3);
    gpi_text_range_source(tb, a->error_basis, a->error_cases, "serving", " held out of the fit", a->error_p10,
                          a->error_p90);
    gpi_buf_printf(
        tb, "  KV cache use: mean %.0f%%, peak %.0f%%; %.1f sequences running on average; %lld preemptions\n",
        s->kv_utilization_mean * 100, s->kv_utilization_peak * 100, s->mean_running, (long long)s->preemptions);
    print_host_wait(tb, s->host_wait_share);
    if (sc->ttft_p99 > 0 || sc->tpot_p99 > 0)
        gpi_buf_printf(tb, "  targets: %s (goodput %.2f requests/s, %.1f%% of requests within both)\n",
                       best->meets ? "met" : "MISSED", s->goodput_requests_per_s * k, s->slo_attainment * 100);
}

static void print_disagg(gpi_buf *tb, const gp_disagg_result *d)
{
    gpi_buf_printf(tb, "\nDisaggregated prefill/decode:\n");
    if (!d->found) {
        gpi_buf_printf(tb, "  %s\n", d->why);
        return;
    }
    const gp_disagg_pool *p = &d->prefill, *q = &d->decode;
    gpi_buf_printf(tb, "  prefill: %d x TP%d%s on %s = %d GPUs ($%.2f/h), p99 TTFT in prefill %.3f s\n", p->instances,
                   p->tp, p->ep > 1 ? " EP" : "", p->gpu, p->gpus_total, p->usd_per_hour, p->sim.ttft.p99);
    gpi_buf_printf(tb, "  decode:  %d x TP%d%s%s on %s = %d GPUs ($%.2f/h), p99 TPOT %.1f ms\n", q->instances, q->tp,
                   q->dp > 1 ? " x DP" : "", q->ep > 1 ? " EP" : "", q->gpu, q->gpus_total, q->usd_per_hour,
                   q->sim.tpot.p99 * 1e3);
    gpi_buf_printf(tb,
                   "  KV transfer %.1f ms per request over %s; p99 TTFT %.3f s, p99 TPOT %.1f ms; %.2f requests/s\n",
                   d->kv_transfer_s * 1e3, d->kv_link, d->ttft_p99_s, d->tpot_p99_s * 1e3, d->request_rate);
    gpi_buf_printf(tb, "  %s.\n", d->why);
}

void gpi_text_serve(gpi_buf *tb, const gp_model *m, const gp_workload *w, const gp_scenario *sc,
                    const gp_serve_answer *a)
{
    const gp_capacity_result *cr = a->search;
    print_load(tb, m, w, sc, a);
    if (!a->found) {
        gpi_buf_printf(tb, "No setup meets the targets.\n");
        print_reasons(tb, cr);
        return;
    }
    print_setup(tb, sc, a);
    if (cr->n_reasons) {
        gpi_buf_printf(tb, "\nWhy this many GPUs:\n");
        print_reasons(tb, cr);
    }
    if (cr->n_options > 1)
        print_options(tb, cr);
    if (a->disagg)
        print_disagg(tb, a->disagg);
}
