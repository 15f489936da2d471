/*
 * capacity.c: the cheapest serving setup for a load under latency targets
 * (docs/serving.md, "Capacity search").
 *
 * For each candidate GPU type and each tensor-parallel degree (1, 2, 4, 8, ... inside the
 * GPU's scale-up domain, or over PCIe up to 8 when it has none), the KV pool of a replica
 * comes from the memory model (gp_memory_estimate with the engine's accounting), the step
 * time from gp_step_model, and the number of serving replicas n is the smallest for which
 * a simulation of one replica carrying 1/n of the load meets the p99 targets (doubling, then
 * bisection; latency grows with load, so the search is monotone). Redundancy adds replicas
 * that may fail. Setups are ranked by price per hour, then GPU count. The reasons say which
 * of the three limits applies (the weights do not fit one GPU, the latency target needs TP,
 * the load needs replicas), with the numbers, and when one larger GPU beats two smaller.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- prices (USD per GPU-hour) ---------------------------------------------------------
 * On-demand rates of one provider family for comparability: RunPod per the Deploybase
 * aggregator (March 2026; its first column, which matches RunPod Secure Cloud's H100 SXM
 * $2.69 quoted by Spheron, 2026-05-22); AMD from the Cliff Center research note
 * (2026-05-18: MI300X median $1.99, MI325X TensorWave $1.95). Collected in
 * shared/reference/hardware.json ("prices"); dated, approximate, low confidence. A GPU
 * without a price is searched only when named. */
typedef struct price_row {
    const char *gpu;
    double usd_per_hour;
} price_row;

static const price_row prices[] = {
    {"L40S", 0.79},          {"A100-SXM-80GB", 1.39}, {"H100-SXM-80GB", 2.69}, {"H200-SXM-141GB", 3.59},
    {"B200", 5.98},          {"RTX-PRO-6000", 0.89},  {"RTX-5090", 0.69},      {"RTX-4090", 0.34},
    {"MI300X", 1.99},        {"MI325X", 1.95},
};

/* Requests simulated per evaluation: enough for a stable p99 (100+ samples in the top 1%),
 * few enough that a search of hundreds of evaluations runs in seconds. */
#define GP_SEARCH_MIN_REQUESTS 1000
#define GP_SEARCH_MAX_REQUESTS 4000
#define GP_SEARCH_REQUESTS_PER_USER 10
/* Largest TP tried over PCIe (no scale-up domain), as vLLM deployments on PCIe servers do. */
#define GP_SEARCH_MAX_PCIE_TP 8
/* TensorRT-LLM defaults: BuildConfig max_batch_size 2048, max_num_tokens 8192, KV cache
 * kv_cache_free_gpu_mem_fraction 0.9 of the memory left after weights and activations. */
#define GP_TRTLLM_MAX_BATCH 2048
#define GP_TRTLLM_MAX_TOKENS 8192
#define GP_TRTLLM_KV_FRACTION 0.90
/* vLLM scheduler defaults (EngineArgs): max_num_batched_tokens 2048 (8192 on >= 70 GiB
 * non-A100 GPUs for `vllm serve`), max_num_seqs 256. */
#define GP_VLLM_TOKENS 2048
#define GP_VLLM_BIG_TOKENS 8192

double gp_gpu_hourly_price(const gp_gpu *gpu)
{
    for (size_t i = 0; gpu && i < sizeof prices / sizeof prices[0]; i++)
        if (gpi_strcaseeq(prices[i].gpu, gpu->id))
            return prices[i].usd_per_hour;
    return 0.0;
}

/* Price the search ranks by: the catalog's data/prices.json on-demand rate (gpus[].
 * on_demand_usd_per_hour, overridable with --data-dir), else the table above. */
static double catalog_price(const gp_catalog *cat, const gp_gpu *gpu)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(gpi_catalog_prices(cat), "gpus"), i, e) {
        if (gpi_strcaseeq(json_string_value(json_object_get(e, "id")), gpu->id)) {
            json_t *v = json_object_get(e, "on_demand_usd_per_hour");
            if (json_is_number(v) && json_number_value(v) > 0)
                return json_number_value(v);
            break;
        }
    }
    return gp_gpu_hourly_price(gpu);
}

static const char *const reason_names[GP_SERVE_REASON_COUNT] = {
    "one_gpu_enough", "model_does_not_fit", "concurrency", "latency", "redundancy", "larger_gpu_better", "no_setup",
};

const char *gp_serve_reason_name(gp_serve_reason_code c)
{
    return (unsigned)c < GP_SERVE_REASON_COUNT ? reason_names[c] : "?";
}

gp_status gp_serve_sched_config(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                                int64_t max_model_len, gp_sched_config *sc, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(sc, 0, sizeof *sc);
    gp_workload ww = *w;
    ww.task = GP_TASK_INFER;
    ww.context = max_model_len > 0 ? max_model_len : 4096;
    ww.batch = 1;
    int trt = w->engine == GP_ENGINE_TRTLLM;
    int big = (double)gpu->memory_bytes >= 70.0 * 1073741824.0 && strncmp(gpu->id, "A100", 4) != 0;
    /* TensorRT-LLM is sized as vLLM at utilization 1.0 with GP_TRTLLM_KV_FRACTION of the
     * blocks (calibrated this way on its cases); the rest by the engine's own accounting */
    if (trt || ww.engine == GP_ENGINE_NONE || ww.engine == GP_ENGINE_LLAMACPP)
        ww.engine = GP_ENGINE_VLLM;
    if (trt || ww.block_size <= 0)
        ww.block_size = trt ? 16 : ww.block_size;
    if (trt)
        ww.gpu_memory_utilization = 1.0;
    if (ww.max_num_batched_tokens <= 0)
        ww.max_num_batched_tokens = trt ? GP_TRTLLM_MAX_TOKENS : big ? GP_VLLM_BIG_TOKENS : GP_VLLM_TOKENS;
    gp_layout ll = *l;
    ll.dp = 1;
    gp_memory mem;
    gp_status st = gp_memory_estimate(m, gpu, &ww, &ll, &mem, err);
    if (st)
        return st;
    int64_t blocks = mem.kv_blocks;
    if (trt)
        blocks = (int64_t)floor((double)blocks * GP_TRTLLM_KV_FRACTION);
    if (blocks < 1) {
        gpi_error_set_field(err, "gpu");
        return gpi_fail(err, GP_EINVAL,
                        "%s: weights %.1f GB + activations %.1f GB per GPU leave no room for the KV cache in %.1f GB",
                        gpu->id, (double)mem.weights / 1e9, (double)mem.activations / 1e9,
                        (double)mem.engine_budget / 1e9);
    }
    sc->kv_blocks = blocks;
    sc->block_size = mem.kv_block_size > 0 ? mem.kv_block_size : 16;
    sc->max_num_batched_tokens = ww.max_num_batched_tokens;
    sc->max_num_seqs = w->max_num_seqs > 0 && !trt ? w->max_num_seqs : trt ? GP_TRTLLM_MAX_BATCH : 256;
    sc->max_model_len = max_model_len;
    sc->reserve_full = trt;
    return GP_OK;
}

/* ---- one (GPU, TP): the fewest replicas meeting the targets ---------------------------- */

typedef struct eval_ctx {
    const gp_catalog *cat;
    const gp_capacity_request *req;
    int64_t prompt_mean, output_mean;
} eval_ctx;

static int meets(const gp_sim_result *r, const gp_slo *slo)
{
    if (r->requests <= 0)
        return 0;
    if (slo->ttft_s > 0 && r->ttft.p99 > slo->ttft_s)
        return 0;
    if (slo->tpot_s > 0 && r->tpot.p99 > slo->tpot_s)
        return 0;
    return 1;
}

/* Simulate one replica carrying 1/n of the load. */
static gp_status sim_share(const eval_ctx *c, const gp_step_model *sm, const gp_sched_config *sc, int n,
                           gp_sim_result *out, gp_error *err)
{
    gp_traffic t = c->req->traffic;
    if (t.arrival == GP_ARRIVAL_CLOSED_LOOP) {
        t.users = (t.users + n - 1) / n;
        if (t.requests <= 0) {
            int64_t r = t.users * GP_SEARCH_REQUESTS_PER_USER;
            t.requests = r < GP_SEARCH_MIN_REQUESTS ? GP_SEARCH_MIN_REQUESTS : r > GP_SEARCH_MAX_REQUESTS ? GP_SEARCH_MAX_REQUESTS : r;
            if (t.requests < 3 * t.users)
                t.requests = 3 * t.users;
        }
    } else if (t.arrival == GP_ARRIVAL_POISSON || t.arrival == GP_ARRIVAL_FIXED_RATE) {
        t.rate /= n;
        if (t.requests <= 0)
            t.requests = GP_SEARCH_MAX_REQUESTS / 2;
    }
    return gp_simulate(sm, sc, &t, &c->req->slo, out, err);
}

typedef struct tp_eval {
    int fits, latency_ok, meets;
    int replicas_serving;     /* n */
    gp_sched_config sc;
    gp_step_model sm;
    double single_ttft, single_tpot;
    gp_sim_result sim, sim_fewer;
    int has_fewer;
    char why[GP_ERROR_MSG_MAX];
} tp_eval;

static gp_status eval_tp(const eval_ctx *c, const gp_gpu *g, int tp, tp_eval *e, gp_error *err)
{
    memset(e, 0, sizeof *e);
    const gp_capacity_request *rq = c->req;
    gp_layout l;
    gp_layout_defaults(&l);
    l.tp = tp;
    int64_t maxlen = c->prompt_mean + c->output_mean;
    if (rq->traffic.prompt.max > 0 && rq->traffic.output.max > 0)
        maxlen = rq->traffic.prompt.max + rq->traffic.output.max;
    gp_error e2;
    gp_error_clear(&e2);
    if (gp_serve_sched_config(rq->model, g, rq->w, &l, maxlen, &e->sc, &e2) != GP_OK) {
        snprintf(e->why, sizeof e->why, "%s", e2.msg);
        return GP_OK;
    }
    if (e->sc.kv_blocks * e->sc.block_size < maxlen) {
        snprintf(e->why, sizeof e->why, "%s TP%d: the KV cache holds %lld tokens, less than one %lld-token request",
                 g->id, tp, (long long)(e->sc.kv_blocks * e->sc.block_size), (long long)maxlen);
        return GP_OK;
    }
    e->fits = 1;
    const gp_link *link = NULL;
    if (c->cat && tp > g->scale_up_domain) {
        char id[16];
        snprintf(id, sizeof id, "pcie%d", g->pcie_gen > 0 ? g->pcie_gen : 4);
        if (gp_catalog_find_link(c->cat, id, &link, NULL) != GP_OK)
            link = NULL;
    }
    gp_error_clear(&e2);
    if (gp_step_model_init(rq->model, g, link, rq->w, &l, rq->params, &e->sm, &e2) != GP_OK) {
        e->fits = 0; /* a catalog entry without peak figures cannot be timed: skipped */
        snprintf(e->why, sizeof e->why, "%s", e2.msg);
        return GP_OK;
    }
    gp_status st;
    gp_batch_shape b;
    gp_batch_prefill(&b, (double)c->prompt_mean);
    e->single_ttft = gp_step_time(&e->sm, &b, NULL);
    gp_batch_decode(&b, 1, (double)c->prompt_mean + (double)c->output_mean / 2.0);
    e->single_tpot = gp_step_time(&e->sm, &b, NULL);
    const gp_slo *slo = &rq->slo;
    if ((slo->ttft_s > 0 && e->single_ttft > slo->ttft_s) || (slo->tpot_s > 0 && e->single_tpot > slo->tpot_s)) {
        snprintf(e->why, sizeof e->why,
                 "%s TP%d: one request alone already takes TTFT %.3f s and TPOT %.1f ms (targets %.3g s, %.3g ms)",
                 g->id, tp, e->single_ttft, e->single_tpot * 1e3, slo->ttft_s, slo->tpot_s * 1e3);
        return GP_OK;
    }
    e->latency_ok = 1;
    /* doubling, then bisection on the number of serving replicas */
    int max_n = rq->max_replicas > 0 ? rq->max_replicas : 1024;
    int lo = 0, hi = 0; /* lo misses (0: none tried), hi meets */
    gp_sim_result r, r_lo;
    memset(&r_lo, 0, sizeof r_lo);
    int n = 1;
    for (;;) {
        if ((st = sim_share(c, &e->sm, &e->sc, n, &r, err)))
            return st;
        if (meets(&r, slo)) {
            hi = n;
            e->sim = r;
            break;
        }
        lo = n;
        r_lo = r;
        if (n >= max_n) {
            snprintf(e->why, sizeof e->why, "%s TP%d: %d replicas still miss the targets (p99 TTFT %.3f s, TPOT %.1f ms)",
                     g->id, tp, n, r.ttft.p99, r.tpot.p99 * 1e3);
            return GP_OK;
        }
        n = n * 2 > max_n ? max_n : n * 2;
    }
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if ((st = sim_share(c, &e->sm, &e->sc, mid, &r, err)))
            return st;
        if (meets(&r, slo)) {
            hi = mid;
            e->sim = r;
        } else {
            lo = mid;
            r_lo = r;
        }
    }
    e->meets = 1;
    e->replicas_serving = hi;
    if (lo > 0) {
        e->has_fewer = 1;
        e->sim_fewer = r_lo;
    }
    return GP_OK;
}

static void fill_option(gp_serve_option *o, const gp_catalog *cat, const gp_gpu *g, int tp, const tp_eval *e,
                        int replicas, int64_t maxlen, const gp_sim_result *sim)
{
    memset(o, 0, sizeof *o);
    snprintf(o->gpu, sizeof o->gpu, "%s", g->id);
    o->tp = tp;
    o->pp = 1;
    o->ep = 1;
    o->replicas = replicas;
    o->gpus_total = tp * replicas;
    o->usd_per_hour = catalog_price(cat, g) * o->gpus_total;
    o->fits = e->fits;
    o->meets = e->meets;
    o->kv_tokens = e->sc.kv_blocks * e->sc.block_size;
    o->max_concurrency = maxlen > 0 ? (double)o->kv_tokens / (double)maxlen : 0;
    if (sim)
        o->sim = *sim;
    o->single_ttft_s = e->single_ttft;
    o->single_tpot_s = e->single_tpot;
}

static void add_reason(gp_capacity_result *r, gp_serve_reason_code code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void add_reason(gp_capacity_result *r, gp_serve_reason_code code, const char *fmt, ...)
{
    if (r->n_reasons >= GP_SERVE_MAX_REASONS)
        return;
    gp_serve_reason *x = &r->reasons[r->n_reasons++];
    x->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->message, sizeof x->message, fmt, ap);
    va_end(ap);
}

/* a better than b: cheaper; then fewer GPUs; then lower p99 TTFT */
static int better(const gp_serve_option *a, const gp_serve_option *b)
{
    if (a->usd_per_hour > 0 && b->usd_per_hour > 0 && fabs(a->usd_per_hour - b->usd_per_hour) > 1e-9)
        return a->usd_per_hour < b->usd_per_hour;
    if (a->gpus_total != b->gpus_total)
        return a->gpus_total < b->gpus_total;
    return a->sim.ttft.p99 < b->sim.ttft.p99;
}

#define MAX_GPU_TYPES 64
#define MAX_TPS 8

gp_status gp_capacity_search(const gp_catalog *cat, const gp_capacity_request *req, gp_capacity_result *out,
                             gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (!req || !req->model || !req->w)
        return gpi_fail(err, GP_EINVAL, "capacity search: model and workload are required");
    const gp_traffic *t = &req->traffic;
    if (t->arrival != GP_ARRIVAL_CLOSED_LOOP && t->arrival != GP_ARRIVAL_POISSON && t->arrival != GP_ARRIVAL_FIXED_RATE)
        return gpi_fail(err, GP_EINVAL, "capacity search needs a load: users (closed loop) or a finite request rate");
    if (req->redundancy < 0 || req->redundancy > 16)
        return gpi_fail(err, GP_EINVAL, "redundancy must be 0 to 16 spare replicas");
    /* before any arithmetic on them (docs/reliability.md, "Limits") */
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP && (t->users < 1 || t->users > ((int64_t)1 << 24)))
        return gpi_fail(err, GP_EINVAL, "users must be between 1 and 2^24 (16,777,216), not %lld", (long long)t->users);
    if (t->arrival != GP_ARRIVAL_CLOSED_LOOP && !(t->rate > 0 && isfinite(t->rate)))
        return gpi_fail(err, GP_EINVAL, "the request rate must be a positive finite number");
    if (t->requests < 0 || t->requests > ((int64_t)1 << 31) || req->max_replicas < 0 || req->max_replicas > (1 << 20))
        return gpi_fail(err, GP_EINVAL, "requests must be 0 to 2^31 and max_replicas 0 to 2^20");
    const gp_length_spec *ls[2] = {&t->prompt, &t->output};
    for (int i = 0; i < 2; i++)
        if (!(ls[i]->mean >= 0 && ls[i]->mean <= (double)GPI_MAX_TOKENS) || ls[i]->min < 0 ||
            ls[i]->min > GPI_MAX_TOKENS || ls[i]->max < 0 || ls[i]->max > GPI_MAX_TOKENS) {
            gpi_error_set_field(err, i ? "output_tokens" : "prompt_tokens");
            return gpi_fail(err, GP_EINVAL, "%s lengths must be 1 to 2^32 (4,294,967,296) tokens", i ? "output" : "prompt");
        }
    const gp_gpu *cands[MAX_GPU_TYPES];
    size_t nc = 0;
    if (req->gpus && req->n_gpus > 0) {
        for (size_t i = 0; i < req->n_gpus && nc < MAX_GPU_TYPES; i++)
            cands[nc++] = req->gpus[i];
    } else {
        if (!cat)
            return gpi_fail(err, GP_EINVAL, "capacity search needs candidate GPUs or a catalog");
        for (size_t i = 0; i < gp_catalog_gpu_count(cat) && nc < MAX_GPU_TYPES; i++)
            if (catalog_price(cat, gp_catalog_gpu_at(cat, i)) > 0)
                cands[nc++] = gp_catalog_gpu_at(cat, i);
    }
    if (nc == 0)
        return gpi_fail(err, GP_EINVAL, "no candidate GPU");
    gp_work local_work; /* one budget for every simulation of the search */
    gp_capacity_request local_req;
    if (!req->traffic.work) {
        gp_work_init(&local_work, 0);
        local_req = *req;
        local_req.traffic.work = &local_work;
        req = &local_req;
    }
    eval_ctx c = {cat, req, 0, 0};
    c.prompt_mean = (int64_t)llround(t->prompt.dist == GP_LENGTH_UNIFORM ? (t->prompt.min + t->prompt.max) / 2.0 : t->prompt.mean);
    c.output_mean = (int64_t)llround(t->output.dist == GP_LENGTH_UNIFORM ? (t->output.min + t->output.max) / 2.0 : t->output.mean);
    if (c.prompt_mean < 1 || c.output_mean < 1)
        return gpi_fail(err, GP_EINVAL, "prompt and output lengths must be at least 1 token");
    int64_t maxlen = c.prompt_mean + c.output_mean;

    /* per GPU type: the smallest TP that fits, why smaller TPs fail, the best option */
    typedef struct per_gpu {
        int best_tp;         /* 0: none meets */
        gp_serve_option best;
        int fit_tp;          /* smallest TP holding the model */
        char fit_why[GP_ERROR_MSG_MAX];   /* why TP below fit_tp fails (memory) */
        char lat_why[GP_ERROR_MSG_MAX];   /* why fit_tp..best_tp-1 fail latency */
        int has_fewer;
        gp_serve_option fewer;
        int has_at_fit;      /* the smallest fitting TP met the targets, with more GPUs */
        gp_serve_option at_fit;
    } per_gpu;
    static const int tps[MAX_TPS] = {1, 2, 4, 8, 16, 32, 64, 72};
    per_gpu pg;
    int have_best = 0;
    gp_serve_option best;
    memset(&best, 0, sizeof best);
    per_gpu best_pg;
    memset(&best_pg, 0, sizeof best_pg);
    const gp_gpu *best_gpu = NULL;
    /* per GPU type summary for the larger-vs-smaller comparison */
    gp_serve_option type_best[MAX_GPU_TYPES];
    int type_has[MAX_GPU_TYPES];
    memset(type_has, 0, sizeof type_has);
    for (size_t gi = 0; gi < nc; gi++) {
        const gp_gpu *g = cands[gi];
        memset(&pg, 0, sizeof pg);
        int domain = g->scale_up_domain > 1 ? g->scale_up_domain : GP_SEARCH_MAX_PCIE_TP;
        for (int k = 0; k < MAX_TPS; k++) {
            int tp = tps[k];
            if (tp > domain || (req->fixed_tp > 0 && tp != req->fixed_tp))
                continue;
            if (req->model->heads % tp != 0)
                continue;
            tp_eval e;
            gp_status st = eval_tp(&c, g, tp, &e, err);
            if (st)
                return st;
            if (!e.fits) {
                if (!pg.fit_tp)
                    snprintf(pg.fit_why, sizeof pg.fit_why, "%s", e.why);
                continue;
            }
            if (!pg.fit_tp)
                pg.fit_tp = tp;
            if (!e.meets) {
                if (!pg.best_tp)
                    snprintf(pg.lat_why, sizeof pg.lat_why, "%s", e.why);
                continue;
            }
            gp_serve_option o;
            fill_option(&o, cat, g, tp, &e, e.replicas_serving + req->redundancy, maxlen, &e.sim);
            if (tp == pg.fit_tp) {
                pg.has_at_fit = 1;
                pg.at_fit = o;
            }
            if (!pg.best_tp || better(&o, &pg.best)) {
                pg.best_tp = tp;
                pg.best = o;
                pg.has_fewer = e.has_fewer;
                if (e.has_fewer)
                    fill_option(&pg.fewer, cat, g, tp, &e, e.replicas_serving - 1 + req->redundancy, maxlen, &e.sim_fewer);
            }
            if (out->n_options < GP_SERVE_MAX_CANDIDATES)
                out->options[out->n_options++] = o;
            /* a larger TP costs at least tp x price per replica: stop once one replica of
             * the next TP is dearer than the best setup of this type */
            if (catalog_price(cat, g) > 0 &&
                2.0 * tp * (1 + req->redundancy) * catalog_price(cat, g) > pg.best.usd_per_hour)
                break;
        }
        if (pg.best_tp) {
            type_has[gi] = 1;
            type_best[gi] = pg.best;
            if (!have_best || better(&pg.best, &best)) {
                have_best = 1;
                best = pg.best;
                best_pg = pg;
                best_gpu = g;
            }
        }
    }
    if (!have_best) {
        add_reason(out, GP_SERVE_NO_SETUP, "no GPU type and TP up to its scale-up domain meets the targets%s%s",
                   pg.lat_why[0] || pg.fit_why[0] ? ": " : "", pg.lat_why[0] ? pg.lat_why : pg.fit_why);
        return GP_OK;
    }
    out->found = 1;
    out->best = best;
    out->has_fewer = best_pg.has_fewer;
    out->fewer = best_pg.fewer;
    const gp_slo *slo = &req->slo;
    int serving = best.replicas - req->redundancy;
    if (best.gpus_total == 1)
        add_reason(out, GP_SERVE_ONE_GPU_ENOUGH, "one %s meets the targets: p99 TTFT %.3f s, p99 TPOT %.1f ms", best.gpu,
                   best.sim.ttft.p99, best.sim.tpot.p99 * 1e3);
    if (best_pg.fit_tp > 1)
        add_reason(out, GP_SERVE_MODEL_DOES_NOT_FIT, "the model does not fit one %s: %s", best.gpu, best_pg.fit_why);
    if (best.tp > best_pg.fit_tp && best_pg.lat_why[0])
        add_reason(out, GP_SERVE_LATENCY, "TP%d is needed for latency: %s", best.tp, best_pg.lat_why);
    else if (best.tp > best_pg.fit_tp && best_pg.has_at_fit)
        add_reason(out, GP_SERVE_LATENCY,
                   "TP%d per replica for latency: TP%d holds the model but meets p99 TPOT %.3g ms only with few "
                   "users per replica (one request alone: TPOT %.1f ms), needing %d GPUs ($%.2f/h) against %d ($%.2f/h)",
                   best.tp, best_pg.at_fit.tp, slo->tpot_s * 1e3, best_pg.at_fit.single_tpot_s * 1e3,
                   best_pg.at_fit.gpus_total, best_pg.at_fit.usd_per_hour, best.gpus_total, best.usd_per_hour);
    if (serving > 1) {
        if (best_pg.has_fewer)
            add_reason(out, GP_SERVE_CONCURRENCY,
                       "the load needs %d serving replicas: with %d, each replica's p99 TTFT is %.3f s and p99 TPOT "
                       "%.1f ms (targets %.3g s, %.3g ms; a replica holds %.0f concurrent %lld-token sequences in KV)",
                       serving, serving - 1, best_pg.fewer.sim.ttft.p99, best_pg.fewer.sim.tpot.p99 * 1e3, slo->ttft_s,
                       slo->tpot_s * 1e3, best.max_concurrency, (long long)maxlen);
        else
            add_reason(out, GP_SERVE_CONCURRENCY, "the load needs %d serving replicas", serving);
    }
    if (req->redundancy > 0)
        add_reason(out, GP_SERVE_REDUNDANCY,
                   "n+%d: %d replica%s more, so that with %d down the other %d still meet the targets", req->redundancy,
                   req->redundancy, req->redundancy > 1 ? "s" : "", req->redundancy, serving);
    /* one larger GPU vs two smaller: a meeting type whose replica uses fewer, larger GPUs */
    for (size_t a = 0; a < nc; a++) {
        if (!type_has[a])
            continue;
        for (size_t b = 0; b < nc; b++) {
            if (!type_has[b] || a == b)
                continue;
            const gp_serve_option *L = &type_best[a], *S = &type_best[b];
            if (cands[a]->memory_bytes > cands[b]->memory_bytes && 2 * L->tp <= S->tp && better(L, S) &&
                (L == &best || !strcmp(L->gpu, best.gpu) || !strcmp(S->gpu, best.gpu))) {
                add_reason(out, GP_SERVE_LARGER_GPU_BETTER,
                           "%s at TP%d (%d per replica, %d GPUs, $%.2f/h) serves better than %s at TP%d (%d per "
                           "replica, %d GPUs, $%.2f/h): fewer, larger GPUs hold the weights and more KV with less "
                           "tensor-parallel traffic",
                           L->gpu, L->tp, L->tp, L->gpus_total, L->usd_per_hour, S->gpu, S->tp, S->tp, S->gpus_total,
                           S->usd_per_hour);
                goto larger_done;
            }
        }
    }
larger_done:
    (void)best_gpu;
    return GP_OK;
}
