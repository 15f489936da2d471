/*
 * serve.c: gp_serve_run: serving latency and throughput under a load. Two modes:
 *  - search (users or a finite rate, no replicas given): the cheapest GPU type x layout x
 *    replicas meeting the targets (gpi_capacity_search), with the reasons; with `disagg`,
 *    disaggregated prefill and decode pools beside it (gpi_disagg_search);
 *  - evaluate (replicas given, rate inf, or a trace): one setup, the given TP or the smallest
 *    that holds the longest request (with the given PP, attention DP and EP), simulated with
 *    the load shared over its replicas and attention-DP ranks.
 * With no load, 256 closed-loop users (the engines' default running-sequence cap). Before
 * simulating, the work is checked against the run's budget; the simulation polls the run's
 * deadline.
 */
#include "run_impl.h"
#include "render/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Simulations a search runs, about: GPU types x layouts x replica counts bisected. */
#define RUN_SEARCH_SIMS_PER_GPU 40

int gpi_spec_decode_parse(const char *s, gp_spec_decode *sp)
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

static gp_status check_question(const gp_scenario *sc, gp_error *err)
{
    int loads = (sc->users > 0) + gp_scenario_has(sc, "rate") + (sc->trace[0] != '\0');
    if (loads != 1)
        return gpi_usage(err, "users", "give exactly one load: --users N, --rate R (or inf), or --trace FILE");
    if (sc->task != GP_TASK_INFER)
        return gpi_usage(err, "task", "serve is for --task infer");
    if (sc->redundancy && (isinf(sc->rate) || sc->trace[0]))
        return gpi_usage(err, "redundancy", "--redundancy needs a steady load (--users or a finite --rate)");
    if (sc->trace[0] && sc->replicas > 1)
        return gpi_usage(err, "replicas", "a trace is replayed on one replica; --replicas must be 1");
    return GP_OK;
}

/* One scheduler's share of the load (n = replicas x attention-DP ranks): the search's own share of the load
 * (gpi_capacity_share), so evaluate mode simulates as many requests per scheduler as the search does; a burst's
 * requests are split too. */
static gp_traffic share(const gp_traffic *t, int n)
{
    gp_traffic tr = gpi_capacity_share(t, n);
    if (tr.arrival == GP_ARRIVAL_BURST)
        tr.requests = (tr.requests + n - 1) / n;
    return tr;
}

double gpi_serve_work(const gp_traffic *t, const gp_scenario *sc, int search, size_t n_gpus)
{
    gp_traffic one = share(t, 1);
    double per_request = (double)sc->output_tokens + (double)sc->prompt_tokens / 512.0 + 1.0;
    if (t->arrival == GP_ARRIVAL_TRACE)
        return (double)t->trace_len * 1e3;
    return (double)one.requests * per_request * (search ? (double)n_gpus * RUN_SEARCH_SIMS_PER_GPU : 1.0);
}

/* The smallest TP (or the given one) whose KV pool holds the longest request, under the
 * engine's profile (data/engines.json, as the search sizes it; prof NULL: built-in rules). */
static gp_status pick_tp(const gp_catalog *cat, gp_result *r, gp_layout *l, gpi_sched_config *scfg,
                         gpi_engine_profile *prof, gp_error *err)
{
    static const int tps[] = {1, 2, 4, 8, 16, 32, 64};
    const gp_scenario *sc = &r->sc;
    int64_t max_len = r->serve.max_len;
    int ok = 0;
    for (size_t k = 0; k < sizeof tps / sizeof tps[0] && !ok; k++) {
        if (sc->tp > 0 && tps[k] != sc->tp)
            continue;
        l->tp = sc->tp > 0 ? (int)sc->tp : tps[k];
        gp_error_clear(err);
        int has = gpi_engine_profile_get(cat, r->w.engine, r->gpu, l->tp, prof, NULL) == GP_OK;
        ok = gpi_serve_sched_config_profile(&r->model, r->gpu, &r->w, l, max_len, has ? prof : NULL, scfg, err) ==
                 GP_OK &&
             scfg->kv_blocks * scfg->block_size >= max_len;
        if (!has)
            prof->id[0] = '\0';
    }
    if (ok)
        return GP_OK;
    if (err && !err->msg[0])
        snprintf(err->msg, sizeof err->msg, "%s holds no %lld-token request at any TP up to 64", r->gpu->id,
                 (long long)max_len);
    if (err)
        err->code = GP_EINVAL;
    return GP_EINVAL;
}

static void fill_best(const gp_catalog *cat, gp_result *r, const gp_layout *l, const gpi_sched_config *scfg,
                      const gpi_step_model *sm, int replicas)
{
    const gp_scenario *sc = &r->sc;
    gp_serve_option *b = &r->serve.best;
    gpi_strlcpy(b->gpu, r->gpu->id, sizeof b->gpu);
    b->tp = l->tp;
    b->pp = l->pp;
    b->ep = l->ep;
    b->dp = l->dp;
    b->gpus_per_replica = l->tp * l->pp * l->dp;
    b->nodes_per_replica = sm->nodes;
    b->replicas = replicas;
    b->gpus_total = b->gpus_per_replica * replicas;
    b->usd_per_hour = gpi_catalog_gpu_price(cat, r->gpu) * b->gpus_total; /* data/prices.json, --data-dir */
    b->fits = 1;
    b->kv_tokens = scfg->kv_blocks * scfg->block_size * l->dp;
    b->max_concurrency = r->serve.max_len > 0 ? (double)b->kv_tokens / (double)r->serve.max_len : 0;
    gpi_batch_shape bs;
    gpi_batch_prefill(sm, &bs, (double)sc->prompt_tokens);
    b->single_ttft_s = gpi_step_time(sm, &bs, NULL);
    gpi_batch_decode(sm, &bs, 1, (double)sc->prompt_tokens + (double)sc->output_tokens / 2.0);
    b->single_tpot_s = gpi_step_time(sm, &bs, NULL);
    b->meets = (sc->ttft_p99 <= 0 || b->sim.ttft.p99 <= sc->ttft_p99) &&
               (sc->tpot_p99 <= 0 || b->sim.tpot.p99 <= sc->tpot_p99);
}

/* Evaluate mode: one setup. */
static gp_status evaluate(const gp_catalog *cat, gp_result *r, const gp_traffic *t, const gpi_link *inter,
                          gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    int replicas = sc->replicas > 0 ? (int)sc->replicas : 1;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.pp = sc->pp > 0 ? (int)sc->pp : 1;
    l.dp = sc->dp > 0 ? (int)sc->dp : 1;
    l.ep = sc->ep > 0 ? (int)sc->ep : 1;
    gpi_sched_config scfg;
    gpi_engine_profile prof;
    gp_status st = pick_tp(cat, r, &l, &scfg, &prof, err);
    if (st)
        return st;
    gpi_perf_params pp; /* the search's: the profile's per-step and host costs */
    gpi_perf_params_profile(&pp, r->w.engine, prof.id[0] ? &prof : NULL, l.pp);
    const gpi_link *link = r->gpu->scale_up_domain <= 1 ? gpi_catalog_gpu_link(cat, r->gpu) : NULL;
    if (link && link->kind != GPI_LINK_HOST)
        link = NULL;
    if (!inter && gpi_catalog_find_link(cat, "ib-ndr", &inter, NULL) != GP_OK)
        inter = NULL;
    gpi_step_model sm;
    if ((st = gpi_step_model_init_nodes(&r->model, r->gpu, link, inter, &r->w, &l, &pp, &sm, err)) != GP_OK)
        return st;
    gpi_step_model_use_rates(&sm, cat, r->gpu, inter); /* data/kernels.json rates, as the search uses */
    gp_traffic tr = share(t, replicas * l.dp);
    gp_slo slo = {sc->ttft_p99, sc->tpot_p99};
    scfg.spec = r->serve.spec;
    if ((st = gpi_simulate(&sm, &scfg, &tr, &slo, &r->serve.best.sim, err)) != GP_OK)
        return st;
    fill_best(cat, r, &l, &scfg, &sm, replicas);
    r->serve.found = 1;
    r->serve.serving = replicas;
    return GP_OK;
}

static gp_status search(const gp_catalog *cat, gp_result *r, const gp_traffic *t, const gpi_link *inter, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gpi_capacity_request req;
    memset(&req, 0, sizeof req);
    req.model = &r->model;
    req.w = &r->w;
    req.traffic = *t;
    req.slo.ttft_s = sc->ttft_p99;
    req.slo.tpot_s = sc->tpot_p99;
    req.redundancy = sc->redundancy;
    const gp_gpu *one[1] = {r->gpu};
    if (sc->gpu.n > 0) {
        req.gpus = one;
        req.n_gpus = 1;
    }
    req.fixed_tp = (int)sc->tp;
    /* a layout given in part: the pipeline and attention DP not named are 1; EP is searched */
    int some = sc->tp > 0 || sc->pp > 0 || sc->dp > 0 || sc->ep > 0;
    req.fixed_pp = sc->pp > 0 ? (int)sc->pp : some ? 1 : 0;
    req.fixed_ep = (int)sc->ep;
    req.fixed_dp = sc->dp > 0 ? (int)sc->dp : some ? 1 : 0;
    req.inter_node = inter;
    req.spec = r->serve.spec;
    gp_status st = gpi_capacity_search(cat, &req, r->cr, err);
    if (st)
        return st;
    r->serve.found = r->cr->found;
    r->serve.best = r->cr->best;
    r->serve.serving = r->cr->found ? r->cr->best.replicas - sc->redundancy : 0;
    if (!sc->disagg)
        return GP_OK;
    if (!(r->dr = calloc(1, sizeof *r->dr)))
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    r->serve.disagg = r->dr;
    return gpi_disagg_search(cat, &req, inter, r->dr, err);
}

/* The longest request of the load (the KV pool must hold one). */
static int64_t longest(const gp_scenario *sc, const gp_traffic *t)
{
    int64_t maxlen = sc->prompt_tokens + sc->output_tokens;
    if (sc->lengths != GP_LENGTH_FIXED)
        maxlen = t->prompt.max + t->output.max;
    if (t->arrival == GP_ARRIVAL_TRACE) {
        maxlen = 0;
        for (size_t i = 0; i < t->trace_len; i++)
            if (t->trace[i].prompt_tokens + t->trace[i].output_tokens > maxlen)
                maxlen = t->trace[i].prompt_tokens + t->trace[i].output_tokens;
    }
    return maxlen;
}

/* The network between nodes asked (NULL: the library's default). */
static gp_status inter_link(const gp_catalog *cat, const gp_scenario *sc, const gpi_link **out, gp_error *err)
{
    *out = NULL;
    if (!sc->inter_node[0])
        return GP_OK;
    gp_status st = gpi_catalog_find_link(cat, sc->inter_node, out, err);
    if (!st && (*out)->kind != GPI_LINK_SCALE_OUT)
        return gpi_usage(err, "inter_node",
                         "--inter-node takes a network between nodes (ib-ndr, roce-400, ...), not '%s'",
                         sc->inter_node);
    return st;
}

static gp_status run_mode(const gp_catalog *cat, gp_result *r, const gp_run_ctx *ctx, gp_trace_request *trace,
                          size_t trace_len, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gp_serve_answer *a = &r->serve;
    gp_traffic t;
    gpi_run_traffic(sc, &t);
    if (sc->trace[0]) {
        t.arrival = GP_ARRIVAL_TRACE;
        t.trace = trace;
        t.trace_len = trace_len;
    }
    gpi_guard guard;
    gp_status st = gpi_guard_init(&guard, ctx, sc, err);
    if (st)
        return st;
    t.cancel = gpi_guard_stop;
    t.cancel_arg = &guard;
    t.work = &guard.work;
    a->max_len = longest(sc, &t);
    a->trace_len = trace_len;
    int steady =
        t.arrival == GP_ARRIVAL_CLOSED_LOOP || t.arrival == GP_ARRIVAL_POISSON || t.arrival == GP_ARRIVAL_FIXED_RATE;
    a->mode = steady && sc->replicas == 0 ? GP_SERVE_MODE_SEARCH : GP_SERVE_MODE_EVALUATE;
    size_t n_gpus = (sc->gpu.n > 0 ? 1 : gp_catalog_gpu_count(cat)) * (sc->disagg ? 2 : 1);
    const gpi_link *inter = NULL;
    st = inter_link(cat, sc, &inter, err);
    if (!st && sc->disagg &&
        (a->mode != GP_SERVE_MODE_SEARCH || t.arrival != GP_ARRIVAL_CLOSED_LOOP || sc->ttft_p99 <= 0 ||
         sc->tpot_p99 <= 0))
        st =
            gpi_usage(err, "disagg", "--disagg needs --users N and both --ttft-p99 and --tpot-p99 (and no --replicas)");
    if (!st)
        st = gpi_run_budget(&guard, gpi_serve_work(&t, sc, a->mode == GP_SERVE_MODE_SEARCH, n_gpus), "this load", err);
    if (!st && a->mode != GP_SERVE_MODE_SEARCH)
        gpi_work_stage(&guard.work, 0, "simulation", 0, 0, "%s", r->gpu->id);
    if (!st)
        st = a->mode == GP_SERVE_MODE_SEARCH ? search(cat, r, &t, inter, err) : evaluate(cat, r, &t, inter, err);
    a->traffic = t;
    a->traffic.trace = NULL; /* freed by the caller */
    a->traffic.cancel = NULL;
    a->traffic.cancel_arg = NULL;
    a->traffic.work = NULL;
    return st;
}

/* The result with the scenario's defaults applied: no load is 256 users; speculative decoding. */
static gp_status start(const gp_scenario *sc, gp_result **out, gp_error *err)
{
    gp_result *r = gpi_result_new(GP_CMD_SERVE, sc);
    *out = r;
    if (!r || !(r->cr = calloc(1, sizeof *r->cr)))
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    r->serve.search = r->cr;
    if (sc->users <= 0 && !gp_scenario_has(sc, "rate") && !sc->trace[0]) {
        r->sc.users = 256; /* no load given: the engines' default running-sequence cap */
        r->serve.default_load = 1;
    }
    if (sc->spec_decode[0] && gpi_spec_decode_parse(sc->spec_decode, &r->serve.spec))
        return gpi_usage(err, "spec_decode", "--spec-decode takes K:ACCEPTANCE[:COST] or mtp, not '%s'",
                         sc->spec_decode);
    return check_question(&r->sc, err);
}

gp_status gp_serve_run(const gp_catalog *cat, const gp_scenario *scenario, const gp_run_ctx *ctx, gp_result **out,
                       gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_result *r = NULL;
    gp_status st = start(scenario, &r, err);
    const gp_scenario *sc = r ? &r->sc : scenario;
    if (!st)
        st = gpi_run_model(cat, sc, ctx, &r->model, err);
    if (!st)
        st = gpi_run_gpu(cat, gpi_run_gpu_name(sc), ctx, &r->gpu, err);
    if (!st)
        st = gpi_run_workload(sc, &r->w, err);
    if (!st && r->w.engine == GP_ENGINE_NONE)
        r->w.engine = GP_ENGINE_VLLM;
    gp_trace_request *trace = NULL;
    size_t trace_len = 0;
    if (!st && sc->trace[0])
        st = gpi_trace_read(sc->trace, &trace, &trace_len, err);
    if (!st)
        st = run_mode(cat, r, ctx, trace, trace_len, err);
    if (!st)
        gpi_serve_error_range(cat, &r->model, &r->serve.error_p10, &r->serve.error_p90, r->serve.error_basis,
                              sizeof r->serve.error_basis, &r->serve.error_cases);
    if (!st)
        gpi_capacity_set_lang(r->cr, sc->lang); /* the reasons in the question's language */
    gpi_trace_free(trace);
    return gpi_run_end(r, st, st ? NULL : gpi_json_serve(&r->model, &r->w, sc, &r->serve), out, err);
}
