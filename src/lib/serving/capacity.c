/*
 * capacity.c: the cheapest serving setup for a load under latency targets
 * (docs/serving.md, "Capacity search").
 *
 * For each candidate GPU type and each tensor-parallel degree (1, 2, 4, 8, ... inside the
 * GPU's scale-up domain, or over PCIe up to 8 when it has none), the KV pool of a replica
 * comes from the memory model (gpi_memory_estimate with the engine's accounting), the step
 * time from gpi_step_model, and the number of serving replicas n is the smallest for which
 * a simulation of one replica carrying 1/n of the load meets the p99 targets (doubling, then
 * bisection; latency grows with load, so the search is monotone). Redundancy adds replicas
 * that may fail. Setups are ranked by price per hour, then GPU count. The reasons say which
 * of the three limits applies (the weights do not fit one GPU, the latency target needs TP,
 * the load needs replicas), with the numbers, and when one larger GPU beats two smaller.
 */
#include "serving.h"
#include "render/messages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requests simulated per evaluation: enough for a stable p99 (100+ samples in the top 1%),
 * few enough that a search of hundreds of evaluations runs in seconds. */
#define GP_SEARCH_MIN_REQUESTS      1000
#define GP_SEARCH_MAX_REQUESTS      4000
#define GP_SEARCH_REQUESTS_PER_USER 10
/* Largest TP tried over PCIe (no scale-up domain), as vLLM deployments on PCIe servers do. */
#define GP_SEARCH_MAX_PCIE_TP 8
/* TensorRT-LLM defaults: BuildConfig max_batch_size 2048, max_num_tokens 8192, KV cache
 * kv_cache_free_gpu_mem_fraction 0.9 of the memory left after weights and activations. */
#define GP_TRTLLM_MAX_BATCH   2048
#define GP_TRTLLM_MAX_TOKENS  8192
#define GP_TRTLLM_KV_FRACTION 0.90
/* vLLM scheduler defaults (EngineArgs.get_batch_defaults): max_num_batched_tokens 2048 and
 * max_num_seqs 256 (8192 and 1024 on >= 70 GiB non-A100 GPUs for `vllm serve`). The built-in
 * fallback when no catalog is given; data/engines.json holds these with their sources. */
#define GP_VLLM_TOKENS     2048
#define GP_VLLM_BIG_TOKENS 8192
#define GP_VLLM_SEQS       256
#define GP_VLLM_BIG_SEQS   1024

/* Price the search ranks by: the catalog's data/prices.json on-demand rate (gpus[].
 * on_demand_usd_per_hour, overridable with --data-dir); a GPU without one is searched only
 * when named. */
double gpi_serve_price(const gp_catalog *cat, const gp_gpu *gpu)
{
    return gpi_catalog_gpu_price(cat, gpu);
}

static const char *const reason_names[GP_SERVE_REASON_COUNT] = {
    "one_gpu_enough",    "model_does_not_fit", "concurrency", "latency",         "redundancy",
    "larger_gpu_better", "no_setup",           "multi_node",  "expert_parallel",
};

const char *gp_serve_reason_name(gp_serve_reason_code c)
{
    return (unsigned)c < GP_SERVE_REASON_COUNT ? reason_names[c] : "?";
}

/* The built-in rules when no profile is given (no catalog): TensorRT-LLM's, else vLLM's
 * (the same figures as data/engines.json, whose sources they carry). */
static void builtin_profile(const gp_gpu *gpu, gp_engine e, gpi_engine_profile *p)
{
    memset(p, 0, sizeof *p);
    int trt = e == GP_ENGINE_TRTLLM;
    int big = gpu->vllm_large_device; /* data/gpus.json (docs/hardware.md) */
    p->max_num_batched_tokens = trt ? GP_TRTLLM_MAX_TOKENS : big ? GP_VLLM_BIG_TOKENS : GP_VLLM_TOKENS;
    p->max_num_seqs = trt ? GP_TRTLLM_MAX_BATCH : big ? GP_VLLM_BIG_SEQS : GP_VLLM_SEQS;
    p->block_size = 16;
    p->kv_fraction = trt ? GP_TRTLLM_KV_FRACTION : 0.0;
    p->reserve_full = trt;
}

/* The captured batch sizes decode steps are padded to: the profile's, up to its largest
 * captured batch (vLLM, SGLang: cuda_graph_max_batch) or, without one, the engine's batch
 * cap of one micro-batch (TensorRT-LLM captures no graph above max_batch_size; a pipelined
 * replica holds pp micro-batches of it). */
static void graph_sizes(const gpi_engine_profile *prof, int pp, gpi_sched_config *sc)
{
    if (!prof->cuda_graphs)
        return;
    int64_t cap = prof->cuda_graph_max_batch > 0 ? prof->cuda_graph_max_batch : sc->max_num_seqs / (pp > 1 ? pp : 1);
    for (int i = 0; i < prof->n_graph_sizes && i < GPI_MAX_GRAPH_SIZES; i++)
        if (prof->graph_sizes[i] <= cap)
            sc->graph_sizes[sc->n_graph_sizes++] = prof->graph_sizes[i];
}

double gpi_graph_batch(const gpi_sched_config *sc, double batch)
{
    for (int i = 0; sc && i < sc->n_graph_sizes; i++)
        if ((double)sc->graph_sizes[i] >= batch)
            return (double)sc->graph_sizes[i];
    return batch;
}

/* The scheduler's figures and the memory they come from; sc->kv_blocks 0 when the weights
 * and activations leave no room for one KV block (the caller words that). */
static gp_status sched_config(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                              int64_t max_model_len, const gpi_engine_profile *prof, gpi_sched_config *sc,
                              gp_memory *mem_out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(sc, 0, sizeof *sc);
    gpi_engine_profile bp;
    if (!prof) {
        builtin_profile(gpu, w->engine, &bp);
        prof = &bp;
    }
    gp_workload ww = *w;
    ww.task = GP_TASK_INFER;
    ww.context = max_model_len > 0 ? max_model_len : 4096;
    ww.batch = 1;
    /* an engine whose KV is a fraction of the free memory (TensorRT-LLM) is sized as vLLM at
     * utilization 1.0 with that fraction of the blocks (calibrated this way on its cases);
     * the rest by the engine's own accounting */
    int frac = prof->kv_fraction > 0;
    if (frac || ww.engine == GP_ENGINE_NONE || ww.engine == GP_ENGINE_LLAMACPP || ww.engine == GP_ENGINE_TRTLLM)
        ww.engine = GP_ENGINE_VLLM;
    if (frac || ww.block_size <= 0)
        ww.block_size = frac ? prof->block_size : ww.block_size;
    if (frac)
        ww.gpu_memory_utilization = 1.0;
    if (ww.max_num_batched_tokens <= 0)
        ww.max_num_batched_tokens = prof->max_num_batched_tokens;
    gp_layout ll = *l;
    if (!(ll.dp > 1 && ll.ep > 1))
        ll.dp = 1; /* replicas; attention DP ranks inside one keep theirs (one pool each) */
    gp_memory *mem = mem_out;
    gp_status st = gpi_memory_estimate(m, gpu, &ww, &ll, mem, err);
    if (st)
        return st;
    int64_t blocks = mem->kv_blocks;
    if (frac)
        blocks = (int64_t)floor((double)blocks * prof->kv_fraction);
    if (blocks < 1)
        return GP_OK; /* sc->kv_blocks 0 */
    sc->kv_blocks = blocks;
    sc->block_size = mem->kv_block_size > 0 ? mem->kv_block_size : prof->block_size;
    sc->max_num_batched_tokens = ww.max_num_batched_tokens;
    sc->max_num_seqs = w->max_num_seqs > 0 && !frac ? w->max_num_seqs : prof->max_num_seqs;
    sc->max_model_len = max_model_len;
    sc->reserve_full = prof->reserve_full;
    graph_sizes(prof, l->pp, sc);
    return GP_OK;
}

gp_status gpi_serve_sched_config_profile(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                                         int64_t max_model_len, const gpi_engine_profile *prof, gpi_sched_config *sc,
                                         gp_error *err)
{
    gp_memory mem;
    gp_status st = sched_config(m, gpu, w, l, max_model_len, prof, sc, &mem, err);
    if (st == GP_OK && sc->kv_blocks < 1) {
        gpi_error_set_field(err, "gpu");
        return gpi_fail(err, GP_EINVAL,
                        "%s: weights %.1f GB + activations %.1f GB per GPU leave no room for the KV cache in %.1f GB",
                        gpu->id, (double)mem.weights / 1e9, (double)mem.activations / 1e9,
                        (double)mem.engine_budget / 1e9);
    }
    return st;
}

gp_status gpi_serve_sched_config(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *l,
                                 int64_t max_model_len, gpi_sched_config *sc, gp_error *err)
{
    return gpi_serve_sched_config_profile(m, gpu, w, l, max_model_len, NULL, sc, err);
}

/* ---- one (GPU, TP): the fewest replicas meeting the targets ---------------------------- */

typedef struct eval_ctx {
    const gp_catalog *cat;
    const gpi_capacity_request *req;
    int64_t prompt_mean, output_mean;
} eval_ctx;

static int meets(const gp_sim_result *r, const gp_slo *slo)
{
    if (r->requests <= 0 || r->stopped_early)
        return 0;
    if (slo->ttft_s > 0 && r->ttft.p99 > slo->ttft_s)
        return 0;
    if (slo->tpot_s > 0 && r->tpot.p99 > slo->tpot_s)
        return 0;
    return 1;
}

gp_traffic gpi_capacity_share(const gp_traffic *t, int n)
{
    gp_traffic s = *t;
    if (s.arrival == GP_ARRIVAL_CLOSED_LOOP) {
        s.users = (s.users + n - 1) / n;
        if (s.requests <= 0) {
            int64_t r = s.users * GP_SEARCH_REQUESTS_PER_USER;
            s.requests = r < GP_SEARCH_MIN_REQUESTS   ? GP_SEARCH_MIN_REQUESTS
                         : r > GP_SEARCH_MAX_REQUESTS ? GP_SEARCH_MAX_REQUESTS
                                                      : r;
            if (s.requests < 3 * s.users)
                s.requests = 3 * s.users;
        }
    } else if (s.arrival == GP_ARRIVAL_POISSON || s.arrival == GP_ARRIVAL_FIXED_RATE) {
        s.rate /= n;
        if (s.requests <= 0)
            s.requests = GP_SEARCH_MAX_REQUESTS / 2;
    }
    return s;
}

/* Simulate one replica carrying 1/n of the load. */
static gp_status sim_share_full(const eval_ctx *c, const gpi_step_model *sm, const gpi_sched_config *sc, int replicas,
                                int full, gp_sim_result *out, gp_error *err)
{
    gp_traffic t = c->req->traffic;
    /* each attention-DP rank schedules its own share (vLLM and SGLang balance requests over
     * the ranks); the simulation is one rank's, the step model adds the others' MoE tokens */
    t = gpi_capacity_share(&t, replicas * (sm->dp > 1 ? sm->dp : 1));
    return full ? gpi_simulate(sm, sc, &t, &c->req->slo, out, err)
                : gpi_simulate_until_miss(sm, sc, &t, &c->req->slo, out, err);
}

static gp_status sim_share(const eval_ctx *c, const gpi_step_model *sm, const gpi_sched_config *sc, int replicas,
                           gp_sim_result *out, gp_error *err)
{
    return sim_share_full(c, sm, sc, replicas, 0, out, err);
}

typedef struct tp_eval {
    int fits, latency_ok, meets;
    int replicas_serving; /* n */
    gp_layout l;
    gpi_sched_config sc;
    gpi_step_model sm;
    double single_ttft, single_tpot;
    gp_sim_result sim, sim_fewer;
    int has_fewer;
    char why[GP_ERROR_MSG_MAX], why_pt[GP_ERROR_MSG_MAX]; /* why it does not fit or meet the targets */
} tp_eval;

/* A message of the table in both languages into en and pt (each GP_ERROR_MSG_MAX long). */
static void both(char *en, char *pt, gpi_msg_id id, const gpi_msg_arg *args, int n)
{
    gpi_msg_args(en, GP_ERROR_MSG_MAX, id, 0, args, n);
    gpi_msg_args(pt, GP_ERROR_MSG_MAX, id, 1, args, n);
}
#define ARGS(...)       (const gpi_msg_arg[]){__VA_ARGS__}, (int)(sizeof((gpi_msg_arg[]){__VA_ARGS__}) / sizeof(gpi_msg_arg))
#define WHY(e, id, ...) both((e)->why, (e)->why_pt, id, ARGS(__VA_ARGS__))

static int layout_gpus(const gp_layout *l)
{
    return l->tp * l->pp * l->dp;
}

/* "TP8", "TP2 x PP2", "TP1 x DP8 EP8" */
static void layout_name(const gp_layout *l, char *buf, size_t n)
{
    int k = snprintf(buf, n, "TP%d", l->tp);
    if (l->pp > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " x PP%d", l->pp);
    if (l->dp > 1 && k > 0 && (size_t)k < n)
        k += snprintf(buf + k, n - (size_t)k, " x DP%d", l->dp);
    if (l->ep > 1 && k > 0 && (size_t)k < n)
        snprintf(buf + k, n - (size_t)k, " EP%d", l->ep);
}

/* Links for a layout: PCIe inside a PCIe server, the network between nodes. */
void gpi_serve_links(const gp_catalog *cat, const gpi_capacity_request *rq, const gp_gpu *g, const gpi_link **intra,
                     const gpi_link **inter)
{
    *intra = NULL;
    *inter = rq->inter_node;
    if (!cat)
        return;
    if (g->scale_up_domain <= 1)
        *intra = gpi_catalog_gpu_host_link(cat, g); /* PCIe of its generation (data/links.json) */
    if (!*inter && gpi_catalog_find_link(cat, "ib-ndr", inter, NULL) != GP_OK)
        *inter = NULL;
}

/* Largest decode batch whose step stays within the TPOT target (one rank), by bisection on
 * the step model; the KV pool and max_num_seqs cap it. */
static double max_decode_batch(const eval_ctx *c, const tp_eval *e)
{
    double hi = (double)e->sc.max_num_seqs, ctx = (double)c->prompt_mean + (double)c->output_mean / 2.0;
    double kv = (double)(e->sc.kv_blocks * e->sc.block_size) / (ctx > 1 ? ctx : 1);
    if (kv < hi)
        hi = kv;
    if (c->req->slo.tpot_s <= 0 || hi < 1)
        return hi > 1 ? hi : 1;
    gpi_batch_shape b;
    gpi_batch_decode(&e->sm, &b, hi, ctx);
    if (gpi_step_time(&e->sm, &b, NULL) <= c->req->slo.tpot_s)
        return hi;
    double lo = 1;
    for (int i = 0; i < 20 && hi - lo > 1; i++) {
        double mid = floor((lo + hi) / 2);
        gpi_batch_decode(&e->sm, &b, mid, ctx);
        if (gpi_step_time(&e->sm, &b, NULL) <= c->req->slo.tpot_s)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* A starting guess for the replica count: the closed loop's users over what one replica
 * decodes within the TPOT target (the search checks below and above it). */
static int replicas_guess(const eval_ctx *c, const tp_eval *e, int max_n)
{
    const gp_traffic *t = &c->req->traffic;
    if (t->arrival != GP_ARRIVAL_CLOSED_LOOP)
        return 1;
    double per = max_decode_batch(c, e) * (double)(e->l.dp > 1 ? e->l.dp : 1);
    double n = ceil((double)t->users / (per > 1 ? per : 1));
    return n < 1 ? 1 : n > max_n ? max_n : (int)n;
}

/* Memory and the single-request latencies of one layout: 0 when it cannot serve. */
static gp_status eval_fit(const eval_ctx *c, const gp_gpu *g, tp_eval *e, int64_t maxlen)
{
    const gpi_capacity_request *rq = c->req;
    char name[48];
    layout_name(&e->l, name, sizeof name);
    gp_error e2;
    gp_error_clear(&e2);
    gpi_engine_profile prof, *pf = &prof;
    if (gpi_engine_profile_get(c->cat, rq->w->engine, g, e->l.tp, &prof, NULL) != GP_OK)
        pf = NULL;
    gpi_perf_params pp;
    gpi_serve_params(rq, pf, e->l.pp, &pp);
    gp_memory mem;
    if (sched_config(rq->model, g, rq->w, &e->l, maxlen, pf, &e->sc, &mem, &e2) != GP_OK) {
        WHY(e, MSG_SERVE_WHY_ERROR, GPI_S(g->id), GPI_S(name), GPI_S(e2.msg));
        return GP_OK;
    }
    if (e->sc.kv_blocks < 1) {
        WHY(e, MSG_SERVE_WHY_NO_KV, GPI_S(g->id), GPI_S(name), GPI_N((double)mem.weights / 1e9, 1),
            GPI_N((double)mem.activations / 1e9, 1), GPI_N((double)mem.engine_budget / 1e9, 1));
        return GP_OK;
    }
    e->sc.spec = rq->spec;
    if (e->sc.kv_blocks * e->sc.block_size < maxlen) {
        WHY(e, MSG_SERVE_WHY_KV, GPI_S(g->id), GPI_S(name), GPI_N(e->sc.kv_blocks * e->sc.block_size, 0),
            GPI_N(maxlen, 0));
        return GP_OK;
    }
    const gpi_link *intra, *inter;
    gpi_serve_links(c->cat, rq, g, &intra, &inter);
    gp_error_clear(&e2);
    if (gpi_step_model_init_nodes(rq->model, g, intra, inter, rq->w, &e->l, &pp, &e->sm, &e2) != GP_OK) {
        WHY(e, MSG_SERVE_WHY_PLAIN, GPI_S(e2.msg)); /* no peak figures, or a layout the model refuses */
        return GP_OK;
    }
    gpi_step_model_use_rates(&e->sm, c->cat, g, inter);
    e->fits = 1;
    gpi_batch_shape b;
    gpi_batch_prefill(&e->sm, &b, (double)c->prompt_mean);
    e->single_ttft = gpi_step_time(&e->sm, &b, NULL);
    gpi_batch_decode(&e->sm, &b, 1, (double)c->prompt_mean + (double)c->output_mean / 2.0);
    e->single_tpot = gpi_step_time(&e->sm, &b, NULL);
    const gp_slo *slo = &rq->slo;
    if ((slo->ttft_s > 0 && e->single_ttft > slo->ttft_s) || (slo->tpot_s > 0 && e->single_tpot > slo->tpot_s)) {
        WHY(e, MSG_SERVE_WHY_ALONE, GPI_S(g->id), GPI_S(name), GPI_N(e->single_ttft, 3), GPI_N(e->single_tpot * 1e3, 1),
            GPI_G(slo->ttft_s, 3), GPI_G(slo->tpot_s * 1e3, 3));
        return GP_OK;
    }
    e->latency_ok = 1;
    return GP_OK;
}

static gp_status eval_layout(const eval_ctx *c, const gp_gpu *g, const gp_layout *l, tp_eval *e, gp_error *err)
{
    memset(e, 0, sizeof *e);
    e->l = *l;
    const gpi_capacity_request *rq = c->req;
    int64_t maxlen = c->prompt_mean + c->output_mean;
    if (rq->traffic.prompt.max > 0 && rq->traffic.output.max > 0)
        maxlen = rq->traffic.prompt.max + rq->traffic.output.max;
    gp_status st = eval_fit(c, g, e, maxlen);
    if (st || !e->latency_ok)
        return st;
    const gp_slo *slo = &rq->slo;
    char name[48];
    layout_name(l, name, sizeof name);
    /* from the guess: down while the count below also meets, else doubling up; then
     * bisection between the last miss and the first meet */
    int max_n = rq->max_replicas > 0 ? rq->max_replicas : 1024;
    int n = replicas_guess(c, e, max_n), lo = 0, hi = 0; /* lo misses (0: none), hi meets */
    gp_sim_result r, r_lo;
    memset(&r_lo, 0, sizeof r_lo);
    for (;;) {
        if ((st = sim_share(c, &e->sm, &e->sc, n, &r, err)))
            return st;
        if (meets(&r, slo)) {
            hi = n;
            e->sim = r;
            if (lo > 0 || n == 1)
                break;
            n = n / 2 > 1 ? n / 2 : 1; /* is the guess too high? */
            if (n == hi)
                break;
            continue;
        }
        double prev = lo > 0 ? r_lo.ttft.p99 + r_lo.tpot.p99 * 100.0 : INFINITY;
        lo = n;
        r_lo = r;
        if (hi)
            break;
        /* more replicas stop helping once one rank carries one user, or when doubling them
         * no longer shortens the tail (a latency floor: the longest prompts' prefill) */
        const gp_traffic *tr = &rq->traffic;
        int floor_hit =
            tr->arrival == GP_ARRIVAL_CLOSED_LOOP && (tr->users + (int64_t)n * l->dp - 1) / ((int64_t)n * l->dp) <= 1;
        floor_hit |= n >= 4 && r.ttft.p99 + r.tpot.p99 * 100.0 > 0.9 * prev;
        if (n >= max_n || floor_hit) {
            WHY(e, MSG_SERVE_WHY_REPLICAS, GPI_S(g->id), GPI_S(name), GPI_N(n, 0), GPI_N(r.ttft.p99, 3),
                GPI_N(r.tpot.p99 * 1e3, 1));
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

static void fill_option(gp_serve_option *o, const gp_catalog *cat, const gp_gpu *g, const tp_eval *e, int replicas,
                        int64_t maxlen, const gp_sim_result *sim)
{
    memset(o, 0, sizeof *o);
    snprintf(o->gpu, sizeof o->gpu, "%s", g->id);
    o->tp = e->l.tp;
    o->pp = e->l.pp;
    o->ep = e->l.ep;
    o->dp = e->l.dp;
    o->gpus_per_replica = layout_gpus(&e->l);
    int node = gpi_serve_node_gpus(g);
    o->nodes_per_replica = (o->gpus_per_replica + node - 1) / node;
    o->replicas = replicas;
    o->gpus_total = o->gpus_per_replica * replicas;
    o->usd_per_hour = gpi_serve_price(cat, g) * o->gpus_total;
    o->fits = e->fits;
    o->meets = e->meets;
    /* per replica: every attention-DP rank holds its own pool */
    o->kv_tokens = e->sc.kv_blocks * e->sc.block_size * (e->l.dp > 1 ? e->l.dp : 1);
    o->max_concurrency = maxlen > 0 ? (double)o->kv_tokens / (double)maxlen : 0;
    if (sim)
        o->sim = *sim;
    o->single_ttft_s = e->single_ttft;
    o->single_tpot_s = e->single_tpot;
}

/* A reason in English and Brazilian Portuguese from the message table (render/messages.c). */
static void say(gp_capacity_result *r, gp_serve_reason_code code, gpi_msg_id id, const gpi_msg_arg *args, int n)
{
    if (r->n_reasons >= GP_SERVE_MAX_REASONS)
        return;
    gp_serve_reason *x = &r->reasons[r->n_reasons++];
    x->code = code;
    both(x->message, x->message_pt, id, args, n);
}
#define SAY(r, code, id, ...) say(r, code, id, ARGS(__VA_ARGS__))

void gpi_capacity_set_lang(gp_capacity_result *r, const char *lang)
{
    if (!r || !lang || strcmp(lang, "pt-BR"))
        return;
    for (int i = 0; i < r->n_reasons; i++)
        if (r->reasons[i].message_pt[0])
            memcpy(r->reasons[i].message, r->reasons[i].message_pt, sizeof r->reasons[i].message);
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

/* Layouts of one replica on GPU type g, fewest GPUs first: TP inside a node (NVLink domain,
 * or up to 8 over PCIe); for MoE models also EP = TP and attention DP x EP over the node
 * (vLLM --data-parallel-size N --enable-expert-parallel, SGLang --enable-dp-attention);
 * then over nodes: PP across nodes with TP inside (vLLM's documented multi-node layout),
 * TP across 2 nodes, and for MoE, attention DP x EP across nodes. */
static int push_layout(gp_layout *v, int n, int tp, int pp, int dp, int ep)
{
    if (n >= MAX_LAYOUTS)
        return n;
    gpi_layout_defaults(&v[n]);
    v[n].tp = tp;
    v[n].pp = pp;
    v[n].dp = dp;
    v[n].ep = ep;
    return n + 1;
}

static int layout_allowed(const gpi_capacity_request *rq, const gp_layout *l, int node, int max_nodes)
{
    const gp_model *m = rq->model;
    if (m->heads % l->tp != 0 || (m->kv_heads > 0 && m->kv_heads % l->tp != 0 && l->tp % m->kv_heads != 0))
        return 0;
    if (l->pp > m->layers || (m->experts > 0 && l->ep > 1 && m->experts % l->ep != 0))
        return 0;
    if ((layout_gpus(l) + node - 1) / node > max_nodes)
        return 0;
    if ((rq->fixed_tp > 0 && l->tp != rq->fixed_tp) || (rq->fixed_pp > 0 && l->pp != rq->fixed_pp) ||
        (rq->fixed_ep > 0 && l->ep != rq->fixed_ep) || (rq->fixed_dp > 0 && l->dp != rq->fixed_dp))
        return 0;
    return 1;
}

int gpi_serve_layouts(const gpi_capacity_request *rq, const gp_gpu *g, gp_layout *out)
{
    gp_layout v[MAX_LAYOUTS];
    int n = 0, node = gpi_serve_node_gpus(g), moe = rq->model->experts > 0;
    int max_nodes = rq->max_nodes > 0 ? rq->max_nodes : 4;
    for (int tp = 1; tp <= node; tp *= 2) {
        n = push_layout(v, n, tp, 1, 1, 1);
        if (moe && tp > 1)
            n = push_layout(v, n, tp, 1, 1, tp);
        for (int dp = 2; moe && tp * dp <= node; dp *= 2)
            n = push_layout(v, n, tp, 1, dp, tp * dp);
    }
    for (int nodes = 2; nodes <= max_nodes; nodes *= 2) {
        n = push_layout(v, n, node, nodes, 1, 1);
        if (moe)
            n = push_layout(v, n, node, nodes, 1, node);
        n = push_layout(v, n, node * nodes, 1, 1, 1);
        if (moe) {
            n = push_layout(v, n, node * nodes, 1, 1, node * nodes);
            n = push_layout(v, n, node, 1, nodes, node * nodes);
            n = push_layout(v, n, 1, 1, node * nodes, node * nodes);
        }
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (layout_allowed(rq, &v[i], node, max_nodes))
            out[k++] = v[i];
    /* fewest GPUs per replica first (stable: the order above breaks ties) */
    for (int i = 1; i < k; i++)
        for (int j = i; j > 0 && layout_gpus(&out[j]) < layout_gpus(&out[j - 1]); j--) {
            gp_layout x = out[j];
            out[j] = out[j - 1];
            out[j - 1] = x;
        }
    return k;
}

/* per GPU type: the smallest layout that fits, why smaller ones fail, the best option */
typedef struct per_gpu {
    int has_best;
    gp_serve_option best;
    int fit_gpus; /* GPUs of the smallest fitting layout */
    gp_layout fit_layout;
    char fit_why[GP_ERROR_MSG_MAX], fit_why_pt[GP_ERROR_MSG_MAX]; /* why layouts below it fail (memory) */
    char lat_why[GP_ERROR_MSG_MAX], lat_why_pt[GP_ERROR_MSG_MAX]; /* why fitting layouts failed latency */
    int has_fewer;
    gp_serve_option fewer;
    tp_eval best_e; /* the best option's step model and scheduler */
    int has_at_fit; /* the smallest fitting layout met the targets */
    gp_serve_option at_fit;
    int has_one_node, has_multi_node; /* best single-node and multi-node options */
    gp_serve_option one_node, multi_node;
    int skipped_multi_node;  /* one node held the model; multi-node layouts not tried */
    int has_tp_only, has_ep; /* MoE: best TP-only and best EP option */
    gp_serve_option tp_only, ep;
} per_gpu;

static void note_kinds(per_gpu *pg, const gp_serve_option *o)
{
    if (o->nodes_per_replica <= 1 && (!pg->has_one_node || better(o, &pg->one_node))) {
        pg->has_one_node = 1;
        pg->one_node = *o;
    }
    if (o->nodes_per_replica > 1 && (!pg->has_multi_node || better(o, &pg->multi_node))) {
        pg->has_multi_node = 1;
        pg->multi_node = *o;
    }
    if (o->ep <= 1 && (!pg->has_tp_only || better(o, &pg->tp_only))) {
        pg->has_tp_only = 1;
        pg->tp_only = *o;
    }
    if (o->ep > 1 && (!pg->has_ep || better(o, &pg->ep))) {
        pg->has_ep = 1;
        pg->ep = *o;
    }
}

/* Every layout of one GPU type; `bound` is the cheapest setup found so far over all types
 * (0: none): a layout whose one replica (+ spares) already costs more is skipped. */
static gp_status search_gpu(const eval_ctx *c, const gp_gpu *g, double bound, gp_capacity_result *out, per_gpu *pg,
                            gp_error *err)
{
    const gpi_capacity_request *req = c->req;
    memset(pg, 0, sizeof *pg);
    gp_layout ls[MAX_LAYOUTS];
    int nl = gpi_serve_layouts(req, g, ls);
    double price = gpi_serve_price(c->cat, g);
    int64_t maxlen = c->prompt_mean + c->output_mean;
    for (int k = 0; k < nl; k++) {
        double floor_cost = (double)layout_gpus(&ls[k]) * (1 + req->redundancy) * price;
        if (price > 0 && ((pg->has_best && floor_cost > pg->best.usd_per_hour) || (bound > 0 && floor_cost > bound)))
            continue; /* one replica of this layout costs more than the best setup */
        if (pg->fit_gpus && pg->fit_gpus <= gpi_serve_node_gpus(g) && layout_gpus(&ls[k]) > gpi_serve_node_gpus(g) &&
            !(req->fixed_pp > 1 || req->fixed_tp > gpi_serve_node_gpus(g))) {
            pg->skipped_multi_node = 1;
            continue; /* one node holds the model: spanning nodes only adds network collectives */
        }
        tp_eval e;
        gp_status st = eval_layout(c, g, &ls[k], &e, err);
        if (st)
            return st;
        if (!e.fits) {
            if (!pg->fit_gpus) {
                memcpy(pg->fit_why, e.why, sizeof pg->fit_why);
                memcpy(pg->fit_why_pt, e.why_pt, sizeof pg->fit_why_pt);
            }
            continue;
        }
        if (!pg->fit_gpus) {
            pg->fit_gpus = layout_gpus(&ls[k]);
            pg->fit_layout = ls[k];
        }
        if (!e.meets) {
            if (!pg->has_best && !pg->lat_why[0]) {
                memcpy(pg->lat_why, e.why, sizeof pg->lat_why);
                memcpy(pg->lat_why_pt, e.why_pt, sizeof pg->lat_why_pt);
            }
            continue;
        }
        gp_serve_option o;
        fill_option(&o, c->cat, g, &e, e.replicas_serving + req->redundancy, maxlen, &e.sim);
        note_kinds(pg, &o);
        if (layout_gpus(&ls[k]) == pg->fit_gpus && !pg->has_at_fit) {
            pg->has_at_fit = 1;
            pg->at_fit = o;
        }
        if (!pg->has_best || better(&o, &pg->best)) {
            pg->has_best = 1;
            pg->best = o;
            pg->has_fewer = e.has_fewer;
            pg->best_e = e;
            if (e.has_fewer)
                fill_option(&pg->fewer, c->cat, g, &e, e.replicas_serving - 1 + req->redundancy, maxlen, &e.sim_fewer);
        }
        if (out->n_options < GP_SERVE_MAX_CANDIDATES)
            out->options[out->n_options++] = o;
    }
    return GP_OK;
}

static void option_name(const gp_serve_option *o, char *buf, size_t n)
{
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = o->tp;
    l.pp = o->pp;
    l.dp = o->dp > 0 ? o->dp : 1;
    l.ep = o->ep;
    layout_name(&l, buf, n);
}

/* Why one node or several, and why EP or TP for the MoE layers. */
static void explain_layout(gp_capacity_result *out, const per_gpu *pg, const gp_serve_option *best)
{
    char a[48], b[48];
    option_name(best, a, sizeof a);
    if (best->nodes_per_replica > 1 && !pg->has_one_node) {
        char why[GP_ERROR_MSG_MAX + 2], why_pt[GP_ERROR_MSG_MAX + 2];
        snprintf(why, sizeof why, "%s%s", pg->fit_why[0] ? ": " : "", pg->fit_why);
        snprintf(why_pt, sizeof why_pt, "%s%s", pg->fit_why[0] ? ": " : "", pg->fit_why_pt);
        SAY(out, GP_SERVE_MULTI_NODE, MSG_SERVE_SPANS, GPI_N(best->nodes_per_replica, 0), GPI_S(a),
            GPI_N(best->gpus_per_replica, 0), GPI_S(best->gpu), GPI_S2(why, why_pt));
    } else if (best->nodes_per_replica <= 1 && pg->has_multi_node) {
        option_name(&pg->multi_node, b, sizeof b);
        SAY(out, GP_SERVE_MULTI_NODE, MSG_SERVE_ONE_NODE_BEATS, GPI_S(a), GPI_S(b), GPI_N(pg->multi_node.gpus_total, 0),
            GPI_N(pg->multi_node.usd_per_hour, 2), GPI_N(best->gpus_total, 0), GPI_N(best->usd_per_hour, 2));
    } else if (best->nodes_per_replica <= 1 && pg->skipped_multi_node) {
        SAY(out, GP_SERVE_MULTI_NODE, MSG_SERVE_ONE_NODE_HOLDS, GPI_S(a), GPI_S(best->gpu));
    } else if (best->nodes_per_replica > 1 && pg->has_one_node) {
        option_name(&pg->one_node, b, sizeof b);
        SAY(out, GP_SERVE_MULTI_NODE, MSG_SERVE_SPAN_CHEAPER, GPI_S(a), GPI_N(best->nodes_per_replica, 0), GPI_S(b),
            GPI_N(pg->one_node.gpus_total, 0), GPI_N(pg->one_node.usd_per_hour, 2));
    }
    if (best->ep > 1 && pg->has_tp_only) {
        option_name(&pg->tp_only, b, sizeof b);
        SAY(out, GP_SERVE_EXPERT_PARALLEL, MSG_SERVE_EP_BEATS, GPI_S(a), GPI_S(b), GPI_N(pg->tp_only.gpus_total, 0),
            GPI_N(pg->tp_only.usd_per_hour, 2));
    } else if (best->ep <= 1 && pg->has_ep) {
        option_name(&pg->ep, b, sizeof b);
        SAY(out, GP_SERVE_EXPERT_PARALLEL, MSG_SERVE_TP_BEATS, GPI_S(a), GPI_S(b), GPI_N(pg->ep.gpus_total, 0),
            GPI_N(pg->ep.usd_per_hour, 2));
    }
}

static void explain(gp_capacity_result *out, const gpi_capacity_request *req, const per_gpu *pg, int64_t maxlen)
{
    const gp_serve_option *best = &out->best;
    const gp_slo *slo = &req->slo;
    int serving = best->replicas - req->redundancy;
    char a[48], f[48];
    option_name(best, a, sizeof a);
    if (best->gpus_total == 1)
        SAY(out, GP_SERVE_ONE_GPU_ENOUGH, MSG_SERVE_ONE_GPU, GPI_S(best->gpu), GPI_N(best->sim.ttft.p99, 3),
            GPI_N(best->sim.tpot.p99 * 1e3, 1));
    if (pg->fit_gpus > 1 && pg->fit_why[0])
        SAY(out, GP_SERVE_MODEL_DOES_NOT_FIT, MSG_SERVE_NOT_FIT, GPI_S(best->gpu), GPI_S2(pg->fit_why, pg->fit_why_pt));
    option_name(&pg->at_fit, f, sizeof f);
    if (best->gpus_per_replica > pg->fit_gpus && pg->lat_why[0])
        SAY(out, GP_SERVE_LATENCY, MSG_SERVE_LATENCY, GPI_S(a), GPI_S2(pg->lat_why, pg->lat_why_pt));
    else if (best->gpus_per_replica > pg->fit_gpus && pg->has_at_fit)
        SAY(out, GP_SERVE_LATENCY, MSG_SERVE_LATENCY_FEW, GPI_S(a), GPI_S(f), GPI_G(slo->tpot_s * 1e3, 3),
            GPI_N(pg->at_fit.single_tpot_s * 1e3, 1), GPI_N(pg->at_fit.gpus_total, 0),
            GPI_N(pg->at_fit.usd_per_hour, 2), GPI_N(best->gpus_total, 0), GPI_N(best->usd_per_hour, 2));
    explain_layout(out, pg, best);
    if (serving > 1) {
        if (pg->has_fewer)
            SAY(out, GP_SERVE_CONCURRENCY, MSG_SERVE_CONCURRENCY, GPI_N(serving, 0), GPI_N(serving - 1, 0),
                GPI_N(pg->fewer.sim.ttft.p99, 3), GPI_N(pg->fewer.sim.tpot.p99 * 1e3, 1), GPI_G(slo->ttft_s, 3),
                GPI_G(slo->tpot_s * 1e3, 3), GPI_N(best->max_concurrency, 0), GPI_N(maxlen, 0));
        else
            SAY(out, GP_SERVE_CONCURRENCY, MSG_SERVE_CONCURRENCY_N, GPI_N(serving, 0));
    }
    if (req->redundancy > 0)
        SAY(out, GP_SERVE_REDUNDANCY, MSG_SERVE_REDUNDANCY, GPI_N(req->redundancy, 0), GPI_N(serving, 0));
}

/* one larger GPU vs two smaller: a meeting type whose replica uses fewer, larger GPUs */
static void explain_larger(gp_capacity_result *out, const gp_gpu *const *cands, size_t nc, const int *type_has,
                           const gp_serve_option *type_best)
{
    const gp_serve_option *best = &out->best;
    for (size_t a = 0; a < nc; a++) {
        if (!type_has[a])
            continue;
        for (size_t b = 0; b < nc; b++) {
            if (!type_has[b] || a == b)
                continue;
            const gp_serve_option *L = &type_best[a], *S = &type_best[b];
            if (cands[a]->memory_bytes > cands[b]->memory_bytes && 2 * L->gpus_per_replica <= S->gpus_per_replica &&
                better(L, S) && (!strcmp(L->gpu, best->gpu) || !strcmp(S->gpu, best->gpu))) {
                SAY(out, GP_SERVE_LARGER_GPU_BETTER, MSG_SERVE_LARGER, GPI_S(L->gpu), GPI_N(L->tp, 0),
                    GPI_N(L->gpus_per_replica, 0), GPI_N(L->gpus_total, 0), GPI_N(L->usd_per_hour, 2), GPI_S(S->gpu),
                    GPI_N(S->tp, 0), GPI_N(S->gpus_per_replica, 0), GPI_N(S->gpus_total, 0), GPI_N(S->usd_per_hour, 2));
                return;
            }
        }
    }
}

/* Candidate GPU types: those named, or every priced catalog GPU, cheapest first (so the
 * cost bound prunes early). */
static gp_status candidates(const gp_catalog *cat, const gpi_capacity_request *req, const gp_gpu **cands, size_t *nc,
                            gp_error *err)
{
    *nc = 0;
    if (req->gpus && req->n_gpus > 0) {
        for (size_t i = 0; i < req->n_gpus && *nc < MAX_GPU_TYPES; i++)
            cands[(*nc)++] = req->gpus[i];
        return GP_OK;
    }
    if (!cat)
        return gpi_fail(err, GP_EINVAL, "capacity search needs candidate GPUs or a catalog");
    for (size_t i = 0; i < gp_catalog_gpu_count(cat) && *nc < MAX_GPU_TYPES; i++)
        if (gpi_serve_price(cat, gp_catalog_gpu_at(cat, i)) > 0)
            cands[(*nc)++] = gp_catalog_gpu_at(cat, i);
    return *nc ? GP_OK : gpi_fail(err, GP_EINVAL, "no candidate GPU");
}

/* The request's bounds, before any arithmetic on them (docs/reliability.md, "Limits"). */
static gp_status check_request(const gpi_capacity_request *req, gp_error *err)
{
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
            return gpi_fail(err, GP_EINVAL, "%s lengths must be 1 to 2^32 (4,294,967,296) tokens",
                            i ? "output" : "prompt");
        }
    if (req->max_nodes < 0 || req->max_nodes > 64)
        return gpi_fail(err, GP_EINVAL, "max_nodes must be 0 (default 4) to 64");
    return GP_OK;
}

gp_status gpi_capacity_search(const gp_catalog *cat, const gpi_capacity_request *req, gp_capacity_result *out,
                              gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_status st = check_request(req, err);
    if (st)
        return st;
    const gp_traffic *t = &req->traffic;
    const gp_gpu *cands[MAX_GPU_TYPES];
    size_t nc = 0;
    if ((st = candidates(cat, req, cands, &nc, err)))
        return st;
    gp_work local_work; /* one budget for every simulation of the search */
    gpi_capacity_request local_req;
    if (!req->traffic.work) {
        gpi_work_init(&local_work, 0);
        local_req = *req;
        local_req.traffic.work = &local_work;
        req = &local_req;
    }
    eval_ctx c = {cat, req, 0, 0};
    c.prompt_mean =
        (int64_t)llround(t->prompt.dist == GP_LENGTH_UNIFORM ? (t->prompt.min + t->prompt.max) / 2.0 : t->prompt.mean);
    c.output_mean =
        (int64_t)llround(t->output.dist == GP_LENGTH_UNIFORM ? (t->output.min + t->output.max) / 2.0 : t->output.mean);
    if (c.prompt_mean < 1 || c.output_mean < 1)
        return gpi_fail(err, GP_EINVAL, "prompt and output lengths must be at least 1 token");
    int64_t maxlen = c.prompt_mean + c.output_mean;

    per_gpu *pg = malloc(sizeof *pg * 2);
    if (!pg)
        return gpi_fail(err, GP_ENOMEM, "out of memory searching");
    per_gpu *cur = &pg[0], *best_pg = &pg[1];
    int have_best = 0;
    gp_serve_option type_best[MAX_GPU_TYPES];
    int type_has[MAX_GPU_TYPES];
    memset(type_has, 0, sizeof type_has);
    char last_why[GP_ERROR_MSG_MAX + 2] = "", last_why_pt[GP_ERROR_MSG_MAX + 2] = "";
    for (size_t gi = 0; gi < nc; gi++) {
        gpi_work_stage(req->traffic.work, 1, "capacity search", (int)gi, (int)nc, "%s", cands[gi]->id);
        if ((st = search_gpu(&c, cands[gi], have_best ? best_pg->best.usd_per_hour : 0.0, out, cur, err))) {
            free(pg);
            return st;
        }
        if (cur->lat_why[0] || cur->fit_why[0]) {
            snprintf(last_why, sizeof last_why, ": %s", cur->lat_why[0] ? cur->lat_why : cur->fit_why);
            snprintf(last_why_pt, sizeof last_why_pt, ": %s", cur->lat_why[0] ? cur->lat_why_pt : cur->fit_why_pt);
        }
        if (!cur->has_best)
            continue;
        type_has[gi] = 1;
        type_best[gi] = cur->best;
        if (!have_best || better(&cur->best, &best_pg->best)) {
            have_best = 1;
            per_gpu *x = best_pg;
            best_pg = cur;
            cur = x;
        }
    }
    if (!have_best) {
        SAY(out, GP_SERVE_NO_SETUP, MSG_SERVE_NO_SETUP, GPI_N(req->max_nodes > 0 ? req->max_nodes : 4, 0),
            GPI_S2(last_why, last_why_pt));
        free(pg);
        return GP_OK;
    }
    out->found = 1;
    out->best = best_pg->best;
    if (best_pg->has_fewer && best_pg->fewer.sim.stopped_early) {
        /* the evidence (one replica fewer misses) in full, not cut at the first certain miss */
        const tp_eval *e = &best_pg->best_e;
        if ((st = sim_share_full(&c, &e->sm, &e->sc, e->replicas_serving - 1, 1, &best_pg->fewer.sim, err))) {
            free(pg);
            return st;
        }
    }
    out->has_fewer = best_pg->has_fewer;
    out->fewer = best_pg->fewer;
    explain(out, req, best_pg, maxlen);
    explain_larger(out, cands, nc, type_has, type_best);
    free(pg);
    return GP_OK;
}
