/*
 * serve.c: gp_serve_run: serving latency and throughput under a load. Two modes:
 *  - search (users or a finite rate, no replicas given): the cheapest GPU type x TP x replicas
 *    meeting the targets (gp_capacity_search), with the reasons;
 *  - evaluate (replicas given, rate inf, or a trace): one setup, the given TP or the smallest
 *    that holds the longest request, simulated with the load shared over its replicas.
 * Before simulating, the work is checked against the run's budget; the simulation polls the
 * run's deadline.
 */
#include "run_impl.h"
#include "render/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The capacity search's request counts (src/lib/serving/capacity.c, sim_share): evaluate mode
 * simulates as many requests per replica as the search does, so both modes agree. */
#define RUN_REQUESTS_PER_USER 10
#define RUN_MIN_REQUESTS      1000
#define RUN_MAX_REQUESTS      4000
/* Simulations a search runs, about: GPU types x TPs x replica counts bisected. */
#define RUN_SEARCH_SIMS_PER_GPU 40

static gp_status check_question(const gp_scenario *sc, gp_error *err)
{
    int loads = (sc->users > 0) + gp_scenario_has(sc, "rate") + (sc->trace[0] != '\0');
    if (loads != 1)
        return gpi_usage(err, "users", "give exactly one load: --users N, --rate R (or inf), or --trace FILE");
    if (sc->task != GP_TASK_INFER)
        return gpi_usage(err, "task", "serve is for --task infer");
    if (sc->redundancy && (isinf(sc->rate) || sc->trace[0]))
        return gpi_usage(err, "redundancy", "--redundancy needs a steady load (--users or a finite --rate)");
    if (sc->pp > 1 || sc->ep > 1)
        return gpi_usage(err, "pp", "serve models TP and replicas; --pp and --ep are not simulated yet");
    if (sc->trace[0] && sc->replicas > 1)
        return gpi_usage(err, "replicas", "a trace is replayed on one replica; --replicas must be 1");
    return GP_OK;
}

/* One replica's share of the load, with the search's request counts. */
static gp_traffic share(const gp_traffic *t, int replicas)
{
    gp_traffic tr = *t;
    if (tr.arrival == GP_ARRIVAL_CLOSED_LOOP) {
        tr.users = (tr.users + replicas - 1) / replicas;
        if (tr.requests <= 0) {
            int64_t n = tr.users * RUN_REQUESTS_PER_USER;
            tr.requests = n < RUN_MIN_REQUESTS ? RUN_MIN_REQUESTS : n > RUN_MAX_REQUESTS ? RUN_MAX_REQUESTS : n;
            if (tr.requests < 3 * tr.users)
                tr.requests = 3 * tr.users;
        }
    } else if (tr.arrival == GP_ARRIVAL_POISSON || tr.arrival == GP_ARRIVAL_FIXED_RATE) {
        tr.rate /= replicas;
        if (tr.requests <= 0)
            tr.requests = RUN_MAX_REQUESTS / 2;
    } else if (tr.arrival == GP_ARRIVAL_BURST)
        tr.requests = (tr.requests + replicas - 1) / replicas;
    return tr;
}

double gpi_serve_work(const gp_traffic *t, const gp_scenario *sc, int search, size_t n_gpus)
{
    gp_traffic one = share(t, 1);
    double per_request = (double)sc->output_tokens + (double)sc->prompt_tokens / 512.0 + 1.0;
    double requests = (double)one.requests;
    if (t->arrival == GP_ARRIVAL_TRACE)
        return (double)t->trace_len * 1e3;
    return requests * per_request * (search ? (double)n_gpus * RUN_SEARCH_SIMS_PER_GPU : 1.0);
}

/* Evaluate mode: the given TP or the smallest holding the longest request. */
static gp_status evaluate(const gp_catalog *cat, gp_result *r, const gp_traffic *t, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gp_serve_answer *a = &r->serve;
    int replicas = sc->replicas > 0 ? (int)sc->replicas : 1;
    static const int tps[] = {1, 2, 4, 8, 16, 32, 64};
    gp_sched_config scfg;
    gp_layout l;
    gp_layout_defaults(&l);
    int ok = 0;
    for (size_t k = 0; k < sizeof tps / sizeof tps[0] && !ok; k++) {
        if (sc->tp > 0 && tps[k] != sc->tp)
            continue;
        l.tp = sc->tp > 0 ? (int)sc->tp : tps[k];
        gp_error_clear(err);
        ok = gp_serve_sched_config(&r->model, r->gpu, &r->w, &l, a->max_len, &scfg, err) == GP_OK &&
             scfg.kv_blocks * scfg.block_size >= a->max_len;
    }
    if (!ok) {
        if (err && !err->msg[0])
            snprintf(err->msg, sizeof err->msg, "%s holds no %lld-token request at any TP up to 64", r->gpu->id,
                     (long long)a->max_len);
        if (err)
            err->code = GP_EINVAL;
        return GP_EINVAL;
    }
    const gp_link *link = l.tp > r->gpu->scale_up_domain ? gp_catalog_gpu_link(cat, r->gpu) : NULL;
    if (link && link->kind == GP_LINK_SCALE_UP)
        link = NULL;
    gp_step_model sm;
    gp_status st = gp_step_model_init(&r->model, r->gpu, link, &r->w, &l, NULL, &sm, err);
    if (st)
        return st;
    gp_traffic tr = share(t, replicas);
    gp_slo slo = {sc->ttft_p99, sc->tpot_p99};
    gp_serve_option *b = &a->best;
    if ((st = gp_simulate(&sm, &scfg, &tr, &slo, &b->sim, err)) != GP_OK)
        return st;
    gpi_strlcpy(b->gpu, r->gpu->id, sizeof b->gpu);
    b->tp = l.tp;
    b->pp = b->ep = 1;
    b->replicas = replicas;
    b->gpus_total = l.tp * replicas;
    b->usd_per_hour = gp_gpu_hourly_price(r->gpu) * b->gpus_total;
    b->fits = 1;
    b->kv_tokens = scfg.kv_blocks * scfg.block_size;
    b->max_concurrency = a->max_len > 0 ? (double)b->kv_tokens / (double)a->max_len : 0;
    gp_batch_shape bs;
    gp_batch_prefill(&bs, (double)sc->prompt_tokens);
    b->single_ttft_s = gp_step_time(&sm, &bs, NULL);
    gp_batch_decode(&bs, 1, (double)sc->prompt_tokens + (double)sc->output_tokens / 2.0);
    b->single_tpot_s = gp_step_time(&sm, &bs, NULL);
    b->meets = (slo.ttft_s <= 0 || b->sim.ttft.p99 <= slo.ttft_s) && (slo.tpot_s <= 0 || b->sim.tpot.p99 <= slo.tpot_s);
    a->found = 1;
    a->serving = replicas;
    return GP_OK;
}

static gp_status search(const gp_catalog *cat, gp_result *r, const gp_traffic *t, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gp_capacity_request req;
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
    gp_status st = gp_capacity_search(cat, &req, r->cr, err);
    if (st)
        return st;
    r->serve.found = r->cr->found;
    r->serve.best = r->cr->best;
    r->serve.serving = r->cr->found ? r->cr->best.replicas - sc->redundancy : 0;
    return GP_OK;
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
    gpi_guard guard = {ctx};
    t.cancel = gpi_guard_stop;
    t.cancel_arg = &guard;
    a->max_len = longest(sc, &t);
    a->trace_len = trace_len;
    int steady =
        t.arrival == GP_ARRIVAL_CLOSED_LOOP || t.arrival == GP_ARRIVAL_POISSON || t.arrival == GP_ARRIVAL_FIXED_RATE;
    a->mode = steady && sc->replicas == 0 ? GP_SERVE_MODE_SEARCH : GP_SERVE_MODE_EVALUATE;
    size_t n_gpus = sc->gpu.n > 0 ? 1 : gp_catalog_gpu_count(cat);
    gp_status st =
        gpi_run_budget(ctx, gpi_serve_work(&t, sc, a->mode == GP_SERVE_MODE_SEARCH, n_gpus), "this load", err);
    if (!st)
        st = a->mode == GP_SERVE_MODE_SEARCH ? search(cat, r, &t, err) : evaluate(cat, r, &t, err);
    a->traffic = t;
    a->traffic.trace = NULL; /* freed below */
    a->traffic.cancel = NULL;
    a->traffic.cancel_arg = NULL;
    return st;
}

gp_status gp_serve_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                       gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_status st = check_question(sc, err);
    if (st)
        return st;
    gp_result *r = gpi_result_new(GP_CMD_SERVE, sc);
    if (!r || !(r->cr = calloc(1, sizeof *r->cr))) {
        gp_result_free(r);
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    }
    r->serve.search = r->cr;
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
        st = gp_trace_read(sc->trace, &trace, &trace_len, err);
    if (!st)
        st = run_mode(cat, r, ctx, trace, trace_len, err);
    gp_trace_free(trace);
    if (!st)
        st = gpi_run_finish(r, gpi_json_serve(&r->model, &r->w, sc, &r->serve), err);
    if (st) {
        gp_result_free(r);
        return st;
    }
    *out = r;
    return GP_OK;
}
