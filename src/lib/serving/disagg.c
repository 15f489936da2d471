/*
 * disagg.c: disaggregated prefill and decode (docs/serving.md, "Disaggregated serving").
 *
 * Prefill and decode run on separate pools of engines (DistServe, Zhong et al. 2024;
 * Splitwise, Patel et al. 2024; vLLM and SGLang's prefill/decode disaggregation): a prefill
 * instance computes the prompt and its first token, the KV cache moves to a decode instance
 * over NVLink, InfiniBand or RoCE, which generates the rest. Decode steps then carry no
 * prefill chunks (TPOT no longer pays for other users' prompts) and each pool takes the GPU
 * type and layout that suits its phase. Cost: the KV transfer on every request's TTFT, and
 * two pools to size.
 *
 * The search: the decode pool first (a closed loop of the users, each instance carrying
 * users / y with prompts already in its cache), the cheapest that meets p99 TPOT; its
 * request rate is what the prefill pool must carry, as an open (Poisson) load of x
 * instances each computing prompts with one output token, the cheapest meeting
 * p99 TTFT - transfer. The two choices are independent given the rate, so the cheapest pair
 * is the pair of cheapest pools.
 */
#include "serving.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Requests per simulated instance (as the capacity search). */
#define GP_DISAGG_REQUESTS 1500

typedef struct pool_ctx {
    const gp_catalog *cat;
    const gpi_capacity_request *req;
    int decode;         /* 1: decode pool (closed loop), 0: prefill (open loop) */
    double rate;        /* prefill: requests/s of the whole load */
    double ttft_budget; /* prefill: TTFT target less the KV transfer */
} pool_ctx;

static gp_status pool_sim(const pool_ctx *c, const gpi_step_model *sm, const gpi_sched_config *sc, int n, int full,
                          gp_sim_result *r, gp_error *err)
{
    gp_traffic t = c->req->traffic;
    gp_slo slo = c->req->slo;
    int ranks = n * (sm->dp > 1 ? sm->dp : 1);
    t.requests = GP_DISAGG_REQUESTS;
    if (c->decode) {
        t.users = (t.users + ranks - 1) / ranks;
        if (t.requests < 3 * t.users)
            t.requests = 3 * t.users;
        t.prefix_hit = 0.9999;                 /* the prompt's KV arrived from prefill; one token is computed */
        slo.ttft_s = c->req->slo.ttft_s / 2.0; /* waiting for a decode slot: half the TTFT budget */
    } else {
        t.arrival = GP_ARRIVAL_POISSON;
        t.rate = c->rate / ranks;
        memset(&t.output, 0, sizeof t.output);
        t.output.dist = GP_LENGTH_FIXED;
        t.output.mean = 1;
        slo.ttft_s = c->ttft_budget;
        slo.tpot_s = 0;
    }
    return full ? gpi_simulate(sm, sc, &t, &slo, r, err) : gpi_simulate_until_miss(sm, sc, &t, &slo, r, err);
}

static int pool_meets(const pool_ctx *c, const gp_sim_result *r)
{
    if (r->requests <= 0 || r->stopped_early)
        return 0;
    if (c->decode)
        return (c->req->slo.tpot_s <= 0 || r->tpot.p99 <= c->req->slo.tpot_s) &&
               r->ttft.p99 <= c->req->slo.ttft_s / 2.0;
    return r->ttft.p99 <= c->ttft_budget;
}

/* Fewest instances of one layout meeting the pool's target (doubling, then bisection);
 * 0 if none up to 1024. */
static gp_status fewest(const pool_ctx *c, const gpi_step_model *sm, const gpi_sched_config *sc, int *n_out,
                        gp_sim_result *best, gp_error *err)
{
    int lo = 0, hi = 0, n = 1;
    gp_sim_result r;
    gp_status st;
    *n_out = 0;
    double prev = INFINITY;
    for (;;) {
        if ((st = pool_sim(c, sm, sc, n, 0, &r, err)))
            return st;
        if (pool_meets(c, &r)) {
            hi = n;
            break;
        }
        double cur = c->decode ? r.tpot.p99 : r.ttft.p99;
        lo = n;
        if (n >= 1024 || (n >= 4 && cur > 0.9 * prev))
            return GP_OK; /* more instances no longer help */
        prev = cur;
        n *= 2;
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if ((st = pool_sim(c, sm, sc, mid, 0, &r, err)))
            return st;
        if (pool_meets(c, &r))
            hi = mid;
        else
            lo = mid;
    }
    *n_out = hi;
    return pool_sim(c, sm, sc, hi, 1, best, err);
}

/* The cheapest pool over the candidate GPU types and layouts. */
static gp_status best_pool(const pool_ctx *c, const gp_gpu *const *cands, size_t nc, gp_disagg_pool *out,
                           gpi_step_model *sm_out, gp_error *err)
{
    const gpi_capacity_request *rq = c->req;
    memset(out, 0, sizeof *out);
    int64_t maxlen = (int64_t)ceil(rq->traffic.prompt.mean + rq->traffic.output.mean);
    if (rq->traffic.prompt.max > 0 && rq->traffic.output.max > 0)
        maxlen = rq->traffic.prompt.max + rq->traffic.output.max;
    for (size_t gi = 0; gi < nc; gi++) {
        const gp_gpu *g = cands[gi];
        double price = gpi_serve_price(c->cat, g);
        gp_layout ls[MAX_LAYOUTS];
        int nl = gpi_serve_layouts(rq, g, ls);
        for (int k = 0; k < nl; k++) {
            const gp_layout *l = &ls[k];
            int gpus = l->tp * l->pp * l->dp;
            if (out->found && price > 0 && gpus * price >= out->usd_per_hour)
                continue; /* one instance already costs more than the best pool */
            gpi_sched_config sc;
            gpi_step_model sm;
            const gpi_link *intra, *inter;
            gpi_serve_links(c->cat, rq, g, &intra, &inter);
            gp_error e2;
            gpi_engine_profile prof, *pf = &prof;
            if (gpi_engine_profile_get(c->cat, rq->w->engine, g, l->tp, &prof, NULL) != GP_OK)
                pf = NULL;
            gpi_perf_params pp;
            gpi_serve_params(rq, pf, l->pp, &pp);
            if (gpi_serve_sched_config_profile(rq->model, g, rq->w, l, maxlen, pf, &sc, &e2) != GP_OK ||
                sc.kv_blocks * sc.block_size < maxlen ||
                gpi_step_model_init_nodes(rq->model, g, intra, inter, rq->w, l, &pp, &sm, &e2) != GP_OK)
                continue;
            gpi_step_model_use_rates(&sm, c->cat, g, inter);
            if (c->decode)
                sc.spec = rq->spec;
            int n;
            gp_sim_result r;
            gp_status st = fewest(c, &sm, &sc, &n, &r, err);
            if (st)
                return st;
            if (!n || (out->found && n * gpus * price >= out->usd_per_hour))
                continue;
            out->found = 1;
            snprintf(out->gpu, sizeof out->gpu, "%s", g->id);
            out->tp = l->tp;
            out->pp = l->pp;
            out->ep = l->ep;
            out->dp = l->dp;
            out->instances = n;
            out->gpus_per_instance = gpus;
            out->gpus_total = n * gpus;
            out->usd_per_hour = out->gpus_total * price;
            out->sim = r;
            *sm_out = sm;
        }
    }
    return GP_OK;
}

static const gp_gpu *find_cand(const gp_catalog *cat, const gpi_capacity_request *req, const char *id)
{
    for (size_t i = 0; i < req->n_gpus; i++)
        if (!strcmp(req->gpus[i]->id, id))
            return req->gpus[i];
    const gp_gpu *g = NULL;
    return cat && gp_catalog_find_gpu(cat, id, &g, NULL) == GP_OK ? g : NULL;
}

/* KV path: NVLink when both instances fit one scale-up domain together, else the network. */
static void kv_path(const gp_catalog *cat, const gpi_capacity_request *req, const gpi_link *kv_link,
                    gp_disagg_result *out, const gpi_step_model *psm)
{
    const gp_gpu *pg = find_cand(cat, req, out->prefill.gpu), *dg = find_cand(cat, req, out->decode.gpu);
    double bw = 0;
    int same_domain = pg && dg && pg == dg && pg->scale_up_domain > 1 && !kv_link &&
                      out->prefill.gpus_per_instance + out->decode.gpus_per_instance <= pg->scale_up_domain;
    if (same_domain) {
        bw = pg->scale_up_gbps_bidir / 2.0 * 1e9;
        snprintf(out->kv_link, sizeof out->kv_link, "NVLink (one node)");
    } else {
        const gpi_link *l = kv_link;
        if (!l && cat && gpi_catalog_find_link(cat, "ib-ndr", &l, NULL) != GP_OK)
            l = NULL;
        bw = (l ? l->bw_gbps_per_direction : 50.0) * 1e9;
        snprintf(out->kv_link, sizeof out->kv_link, "%s", l ? l->id : "ib-ndr");
    }
    int senders = out->prefill.tp < out->decode.tp ? out->prefill.tp : out->decode.tp;
    out->kv_transfer_s = gpi_kv_transfer_time(psm, ceil(req->traffic.prompt.mean), bw, senders);
}

static gp_status candidates_of(const gp_catalog *cat, const gpi_capacity_request *req, const gp_gpu **v, size_t *n,
                               gp_error *err)
{
    *n = 0;
    if (req->gpus && req->n_gpus > 0) {
        for (size_t i = 0; i < req->n_gpus && *n < 64; i++)
            v[(*n)++] = req->gpus[i];
    } else if (cat) {
        for (size_t i = 0; i < gp_catalog_gpu_count(cat) && *n < 64; i++)
            if (gpi_serve_price(cat, gp_catalog_gpu_at(cat, i)) > 0)
                v[(*n)++] = gp_catalog_gpu_at(cat, i);
    }
    return *n ? GP_OK : gpi_fail(err, GP_EINVAL, "disaggregated search: no candidate GPU");
}

static void compare(gp_disagg_result *out)
{
    if (!out->found) {
        snprintf(out->why, sizeof out->why, "no prefill/decode split meets the targets%s",
                 out->has_aggregated ? "; the aggregated setup does" : "");
        return;
    }
    if (!out->has_aggregated) {
        out->pays = 1;
        snprintf(out->why, sizeof out->why, "disaggregation meets the targets and no aggregated setup does");
        return;
    }
    const gp_serve_option *a = &out->aggregated;
    out->pays = out->usd_per_hour < a->usd_per_hour - 1e-9;
    snprintf(out->why, sizeof out->why,
             "%s: %d prefill + %d decode GPUs at $%.2f/h against %d aggregated GPUs at $%.2f/h. Decode steps "
             "without prefill chunks keep TPOT low at large batches; the price is a KV transfer of %.1f ms per "
             "request over %s and a prefill pool sized for the peak of prompts",
             out->pays ? "disaggregation pays" : "disaggregation does not pay", out->prefill.gpus_total,
             out->decode.gpus_total, out->usd_per_hour, a->gpus_total, a->usd_per_hour, out->kv_transfer_s * 1e3,
             out->kv_link);
}

gp_status gpi_disagg_search(const gp_catalog *cat, const gpi_capacity_request *req, const gpi_link *kv_link,
                            gp_disagg_result *out, gp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!req || !req->model || !req->w)
        return gpi_fail(err, GP_EINVAL, "disaggregated search: model and workload are required");
    if (req->traffic.arrival != GP_ARRIVAL_CLOSED_LOOP || req->slo.ttft_s <= 0 || req->slo.tpot_s <= 0)
        return gpi_fail(err, GP_EINVAL, "disaggregated search needs users (a closed loop) and both p99 targets");
    gp_work local_work; /* one budget for both searches (docs/reliability.md) */
    gpi_capacity_request local_req;
    if (!req->traffic.work) {
        gpi_work_init(&local_work, 0);
        local_req = *req;
        local_req.traffic.work = &local_work;
        req = &local_req;
    }
    const gp_gpu *cands[64];
    size_t nc;
    gp_status st = candidates_of(cat, req, cands, &nc, err);
    if (st)
        return st;
    gp_capacity_result *agg = calloc(1, sizeof *agg);
    if (!agg)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    st = gpi_capacity_search(cat, req, agg, err);
    if (!st && agg->found) {
        out->has_aggregated = 1;
        out->aggregated = agg->best;
    }
    free(agg);
    if (st)
        return st;
    pool_ctx dc = {cat, req, 1, 0, 0};
    gpi_step_model dsm, psm;
    if ((st = best_pool(&dc, cands, nc, &out->decode, &dsm, err)) || !out->decode.found) {
        compare(out);
        return st;
    }
    int ranks = out->decode.instances * (out->decode.dp > 1 ? out->decode.dp : 1);
    out->request_rate = out->decode.sim.requests_per_s * ranks;
    /* the KV transfer is known once both pools are: size prefill for the target less a first
     * guess (the network), then check with the chosen pair */
    /* the decode side of TTFT: waiting for a slot and the first step, at p99 */
    double first_step = out->decode.sim.ttft.p99;
    pool_ctx pc = {cat, req, 0, out->request_rate, 0};
    double guess = gpi_kv_transfer_time(&dsm, ceil(req->traffic.prompt.mean), 50e9, out->decode.tp);
    pc.ttft_budget = req->slo.ttft_s - guess - first_step;
    if (pc.ttft_budget > 0 && (st = best_pool(&pc, cands, nc, &out->prefill, &psm, err)))
        return st;
    if (out->prefill.found) {
        kv_path(cat, req, kv_link, out, &psm);
        out->found = 1;
        out->ttft_p99_s = out->prefill.sim.ttft.p99 + out->kv_transfer_s + first_step;
        out->tpot_p99_s = out->decode.sim.tpot.p99;
        out->usd_per_hour = out->prefill.usd_per_hour + out->decode.usd_per_hour;
        out->gpus_total = out->prefill.gpus_total + out->decode.gpus_total;
    }
    compare(out);
    return GP_OK;
}
