/*
 * json.c: the one JSON writer (fit, train, serve, plan, models, GPUs). Key names follow the interface contract
 * (docs/cli.md, docs/scenario.md); a key that does not apply is 0 or null, never absent. Every document goes out
 * through gpi_json_text.
 */
#include "json.h"
#include "text.h"
#include "messages.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gp_status gpi_json_text(json_t *doc, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    char *s = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    if (!s)
        return gpi_fail(err, GP_ENOMEM, "out of memory building the JSON document");
    size_t n = strlen(s);
    char *t = realloc(s, n + 2);
    if (!t) {
        free(s);
        return gpi_fail(err, GP_ENOMEM, "out of memory building the JSON document");
    }
    t[n++] = '\n';
    t[n] = '\0';
    *text = t;
    *len = n;
    return GP_OK;
}

json_t *gpi_json_layout(const gp_layout *l)
{
    json_t *o = json_pack("{si si si si si si sI ss sb si sI si}", "tp", l->tp, "pp", l->pp, "dp", l->dp, "cp", l->cp,
                          "ep", l->ep, "zero", l->zero, "micro_batch", (json_int_t)l->micro_batch, "recompute",
                          gp_recompute_name(l->recompute), "sequence_parallel", l->sequence_parallel, "virtual_stages",
                          l->virtual_stages, "global_batch", (json_int_t)l->global_batch, "gpus", gp_layout_gpus(l));
    if (o && l->recompute_modules) { /* Megatron-Core's selective modules, as --recompute-modules takes them */
        char mods[96];
        gpi_recompute_modules_format(l->recompute_modules, ",", mods, sizeof mods);
        json_object_set_new(o, "recompute_modules", json_string(mods));
    }
    return o;
}

json_t *gpi_json_memory(const gp_memory *m)
{
    json_t *c = json_pack("{sI sI sI sI sI sI}", "weights", (json_int_t)m->weights, "kv_cache", (json_int_t)m->kv_cache,
                          "activations", (json_int_t)m->activations, "gradients", (json_int_t)m->gradients, "optimizer",
                          (json_int_t)m->optimizer, "overhead", (json_int_t)m->overhead);
    return json_pack("{sI sI sI sb so sI}", "per_gpu_bytes", (json_int_t)m->per_gpu, "capacity_bytes",
                     (json_int_t)m->capacity, "headroom_bytes", (json_int_t)m->headroom, "fits", m->fits, "components",
                     c, "cpu_offload_bytes", (json_int_t)m->cpu_offload);
}

json_t *gpi_json_kv(const gp_memory *m)
{
    return json_pack("{sI sI sI sf sI}", "bytes", (json_int_t)m->kv_cache_bytes, "tokens", (json_int_t)m->kv_tokens,
                     "blocks", (json_int_t)m->kv_blocks, "max_concurrency", m->max_concurrency, "engine_budget_bytes",
                     (json_int_t)m->engine_budget);
}

json_t *gpi_json_reasons(const gp_reason *r, int n)
{
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++)
        json_array_append_new(a, json_pack("{ss ss}", "code", gp_reason_name(r[i].code), "message", r[i].message));
    return a;
}

/* ---- fit ---- */

json_t *gpi_json_fit(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_fit_result *r)
{
    json_t *larger = json_array();
    for (int i = 0; larger && i < r->n_larger; i++)
        json_array_append_new(
            larger, json_pack("{ss sI}", "gpu", r->larger[i], "capacity_bytes", (json_int_t)r->larger_capacity[i]));
    /* "fits": the job as asked (one GPU unless a layout is given); "layout_found": some layout does */
    json_t *verdict = json_pack("{sb sb si so* so* sI sI so*}", "fits", r->asked_fits, "single_gpu_sufficient",
                                r->single_gpu_sufficient, "min_gpus", r->min_gpus, "min_layout",
                                r->fits ? gpi_json_layout(&r->min_layout) : NULL, "reasons",
                                gpi_json_reasons(r->reasons, r->n_reasons), "max_context", (json_int_t)r->max_context,
                                "max_batch", (json_int_t)r->max_batch, "larger_gpus", larger);
    json_t *lower = json_array();
    for (int i = 0; lower && i < r->n_lower; i++)
        json_array_append_new(lower, json_pack("{ss sI}", "dtype", gp_dtype_name(r->lower[i]), "per_gpu_bytes",
                                               (json_int_t)r->lower_bytes[i]));
    if (verdict) {
        json_object_set_new(verdict, "layout_found", json_boolean(r->fits));
        json_object_set_new(verdict, "asked_valid", json_boolean(r->asked_valid));
        json_object_set_new(verdict, "context_capped", json_boolean(r->context_capped));
        json_object_set_new(verdict, "lower_precisions_fit_one_gpu", lower);
    } else
        json_decref(lower);
    json_t *o =
        json_pack("{ss ss ss ss ss so* so* so* so*}", "model", m->id, "gpu", gpu->id, "task", gp_task_name(w->task),
                  "dtype", gp_dtype_name(w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : m->dtype), "engine",
                  gp_engine_name(w->engine), "layout", gpi_json_layout(&r->asked), "memory",
                  gpi_json_memory(&r->asked_memory), "verdict", verdict, "kv_cache", gpi_json_kv(&r->asked_memory));
    if (o && r->fits)
        json_object_set_new(o, "recommended",
                            json_pack("{so* so* so*}", "layout", gpi_json_layout(&r->min_layout), "memory",
                                      gpi_json_memory(&r->min_memory), "kv_cache", gpi_json_kv(&r->min_memory)));
    return o;
}

/* ---- serve ---- */

static json_t *stats_json(const gp_latency_stats *s)
{
    return json_pack("{sf sf sf sf sf}", "mean_s", s->mean, "p50_s", s->p50, "p90_s", s->p90, "p99_s", s->p99, "max_s",
                     s->max);
}

static json_t *option_json(const gp_serve_option *o)
{
    json_t *j = json_pack("{si si si}", "dp", o->dp > 0 ? o->dp : 1, "gpus_per_replica", o->gpus_per_replica,
                          "nodes_per_replica", o->nodes_per_replica);
    json_t *base =
        json_pack("{ss si si si si si sf sb sI sf sf sf sf sf}", "gpu", o->gpu, "tp", o->tp, "pp", o->pp, "ep", o->ep,
                  "replicas", o->replicas, "gpus_total", o->gpus_total, "usd_per_hour", o->usd_per_hour, "meets",
                  o->meets, "kv_tokens_per_replica", (json_int_t)o->kv_tokens, "max_concurrency_per_replica",
                  o->max_concurrency, "ttft_p99_s", o->sim.ttft.p99, "tpot_p99_s", o->sim.tpot.p99,
                  "single_request_ttft_s", o->single_ttft_s, "single_request_tpot_s", o->single_tpot_s);
    if (j && base)
        json_object_update_missing_new(j, base);
    else
        json_decref(base);
    /* the load one replica carries, for the page's throughput-vs-latency chart */
    if (j)
        json_object_set_new(j, "per_replica_throughput_tokens_per_s", json_real(o->sim.output_tokens_per_s));
    return j;
}

static const char *const length_names[GP_LENGTH_COUNT] = {"fixed", "uniform", "exponential", "lognormal"};

/* The traffic as simulated, defaults included (they are part of the answer). */
static json_t *traffic_json(const gp_serve_answer *a)
{
    const gp_traffic *t = &a->traffic;
    json_t *o =
        json_pack("{ss sf sf sf sf sb sf sb}", "lengths", length_names[t->prompt.dist], "prompt_mean", t->prompt.mean,
                  "output_mean", t->output.mean, "lognormal_sigma",
                  t->prompt.dist == GP_LENGTH_LOGNORMAL ? t->prompt.sigma : 0.0, "think_time_s", t->think_time_s,
                  "users_in_lockstep", t->lockstep, "prefix_hit", t->prefix_hit, "default_load", a->default_load);
    if (o && a->spec.draft_tokens > 0)
        json_object_set_new(o, "spec_decode",
                            json_pack("{si sf sf}", "draft_tokens", a->spec.draft_tokens, "acceptance",
                                      a->spec.acceptance, "draft_cost", a->spec.draft_cost));
    return o;
}

static json_t *pool_json(const gp_disagg_pool *p)
{
    return json_pack("{ss si si si si si si si sf sf sf sf}", "gpu", p->gpu, "tp", p->tp, "pp", p->pp, "ep", p->ep,
                     "dp", p->dp, "instances", p->instances, "gpus_per_instance", p->gpus_per_instance, "gpus_total",
                     p->gpus_total, "usd_per_hour", p->usd_per_hour, "ttft_p99_s", p->sim.ttft.p99, "tpot_p99_s",
                     p->sim.tpot.p99, "requests_per_s_per_instance", p->sim.requests_per_s);
}

static json_t *disagg_json(const gp_disagg_result *d)
{
    json_t *o = json_pack("{sb sb ss sf sf sf sf sf si ss}", "found", d->found, "pays", d->pays, "kv_link", d->kv_link,
                          "kv_transfer_s", d->kv_transfer_s, "request_rate", d->request_rate, "ttft_p99_s",
                          d->ttft_p99_s, "tpot_p99_s", d->tpot_p99_s, "usd_per_hour", d->usd_per_hour, "gpus_total",
                          d->gpus_total, "why", d->why);
    if (!o)
        return NULL;
    json_object_set_new(o, "prefill", pool_json(&d->prefill));
    json_object_set_new(o, "decode", pool_json(&d->decode));
    if (d->has_aggregated)
        json_object_set_new(o, "aggregated",
                            json_pack("{ss si si si si sf}", "gpu", d->aggregated.gpu, "tp", d->aggregated.tp, "ep",
                                      d->aggregated.ep, "gpus_total", d->aggregated.gpus_total, "replicas",
                                      d->aggregated.replicas, "usd_per_hour", d->aggregated.usd_per_hour));
    return o;
}

/* key_low / key_high beside key: the likely range from the signed error percentiles of
 * comparable held-out runs (gp_serve_answer.error_p10 / p90). A rate (throughput) divides by
 * 1 + error, a time (latency) multiplies. */
void gpi_serve_range(double v, int is_rate, double p10, double p90, double *lo, double *hi)
{
    *lo = is_rate ? v / (1.0 + p90) : v * (1.0 + p10);
    *hi = is_rate ? v / (1.0 + p10) : v * (1.0 + p90);
}

double gpi_serve_scale(const gp_serve_answer *a)
{
    return (a->serving > 0 ? a->serving : 1) * (a->found && a->best.dp > 1 ? a->best.dp : 1);
}

void gpi_json_serve_range(json_t *o, const char *key, double v, int is_rate, double p10, double p90)
{
    char k[64];
    double lo, hi;
    gpi_serve_range(v, is_rate, p10, p90, &lo, &hi);
    snprintf(k, sizeof k, "%s_low", key);
    json_object_set_new(o, k, json_real(lo));
    snprintf(k, sizeof k, "%s_high", key);
    json_object_set_new(o, k, json_real(hi));
}

static void serve_perf_ranges(json_t *perf, const gp_serve_answer *a, double k)
{
    const gp_sim_result *s = &a->best.sim;
    const double p10 = a->error_p10, p90 = a->error_p90;
    const struct {
        const char *key;
        double v;
        int rate;
    } f[] = {
        {"throughput_tokens_per_s", s->output_tokens_per_s * k, 1},
        {"total_tokens_per_s", s->total_tokens_per_s * k, 1},
        {"requests_per_s", s->requests_per_s * k, 1},
        {"per_replica_throughput_tokens_per_s", s->output_tokens_per_s, 1},
        {"ttft_p50_s", s->ttft.p50, 0},
        {"ttft_p90_s", s->ttft.p90, 0},
        {"ttft_p99_s", s->ttft.p99, 0},
        {"tpot_p50_s", s->tpot.p50, 0},
        {"tpot_p90_s", s->tpot.p90, 0},
        {"tpot_p99_s", s->tpot.p99, 0},
        {"e2e_p50_s", s->e2e.p50, 0},
        {"e2e_p90_s", s->e2e.p90, 0},
        {"e2e_p99_s", s->e2e.p99, 0},
        {"single_request_ttft_s", a->best.single_ttft_s, 0},
        {"single_request_tpot_s", a->best.single_tpot_s, 0},
    };
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        gpi_json_serve_range(perf, f[i].key, f[i].v, f[i].rate, p10, p90);
    json_object_set_new(
        perf, "error_range",
        json_pack("{sf sf ss si}", "p10", p10, "p90", p90, "basis", a->error_basis, "cases", a->error_cases));
}

static json_t *serve_perf_json(const gp_serve_answer *a)
{
    const gp_sim_result *s = &a->best.sim;
    double k = gpi_serve_scale(a);
    json_t *perf = json_pack("{sf sf sf sf sf sf sf sf sf sf sf sf sf sf sf sf sf}", "ttft_p50_s", s->ttft.p50,
                             "ttft_p90_s", s->ttft.p90, "ttft_p99_s", s->ttft.p99, "tpot_p50_s", s->tpot.p50,
                             "tpot_p90_s", s->tpot.p90, "tpot_p99_s", s->tpot.p99, "e2e_p50_s", s->e2e.p50, "e2e_p90_s",
                             s->e2e.p90, "e2e_p99_s", s->e2e.p99, "throughput_tokens_per_s", s->output_tokens_per_s * k,
                             "total_tokens_per_s", s->total_tokens_per_s * k, "requests_per_s", s->requests_per_s * k,
                             "goodput_requests_per_s", s->goodput_requests_per_s * k, "slo_attainment",
                             s->slo_attainment, "single_request_ttft_s", a->best.single_ttft_s, "single_request_tpot_s",
                             a->best.single_tpot_s, "per_replica_throughput_tokens_per_s", s->output_tokens_per_s);
    if (perf) {
        json_object_set_new(perf, "ttft", stats_json(&s->ttft));
        json_object_set_new(perf, "tpot", stats_json(&s->tpot));
        json_object_set_new(perf, "e2e", stats_json(&s->e2e));
        json_object_set_new(perf, "host_wait_share", json_real(s->host_wait_share));
        serve_perf_ranges(perf, a, k);
    }
    return perf;
}

static json_t *serve_reasons_json(const gp_capacity_result *cr)
{
    json_t *a = json_array();
    for (int i = 0; a && i < cr->n_reasons; i++)
        json_array_append_new(a, json_pack("{ss ss}", "code", gp_serve_reason_name(cr->reasons[i].code), "message",
                                           cr->reasons[i].message));
    return a;
}

json_t *gpi_json_serve(const gp_model *m, const gp_workload *w, const gp_scenario *sc, const gp_serve_answer *a)
{
    const gp_capacity_result *cr = a->search;
    const gp_sim_result *s = &a->best.sim;
    int f = a->found;
    json_t *options = json_array();
    for (int i = 0; options && i < cr->n_options; i++)
        json_array_append_new(options, option_json(&cr->options[i]));
    const gp_serve_option *b = &a->best;
    json_t *layout =
        json_pack("{si si si si si si si si}", "tp", f ? b->tp : 0, "pp", f ? b->pp : 0, "ep", f ? b->ep : 0, "dp",
                  f ? (b->dp > 0 ? b->dp : 1) : 0, "replicas", f ? b->replicas : 0, "gpus_total", f ? b->gpus_total : 0,
                  "gpus_per_replica", f ? b->gpus_per_replica : 0, "nodes_per_replica", f ? b->nodes_per_replica : 0);
    json_t *kv = json_pack("{sf sI sf sf sI sf}", "max_concurrency", a->best.max_concurrency, "tokens_per_replica",
                           (json_int_t)a->best.kv_tokens, "utilization_mean", s->kv_utilization_mean,
                           "utilization_peak", s->kv_utilization_peak, "preemptions", (json_int_t)s->preemptions,
                           "mean_running_sequences", s->mean_running);
    json_t *slo = json_pack("{sb so? so? si ss}", "met", f && a->best.meets, "ttft_p99_s",
                            sc->ttft_p99 > 0 ? json_real(sc->ttft_p99) : NULL, "tpot_p99_s",
                            sc->tpot_p99 > 0 ? json_real(sc->tpot_p99) : NULL, "redundancy", sc->redundancy,
                            "evaluated_with", sc->redundancy > 0 ? "one replica down" : "all replicas");
    json_t *o = json_pack("{ss ss ss ss sb so* so* so* so* so* so* sf sI}", "model", m->id, "gpu", f ? a->best.gpu : "",
                          "engine", gp_engine_name(w->engine), "mode",
                          a->mode == GP_SERVE_MODE_SEARCH ? "search" : "evaluate", "found", f, "layout", layout, "perf",
                          serve_perf_json(a), "kv_cache", kv, "slo", slo, "reasons", serve_reasons_json(cr), "options",
                          options, "usd_per_hour", a->best.usd_per_hour, "requests_simulated", (json_int_t)s->requests);
    if (o && cr->has_fewer)
        json_object_set_new(o, "one_replica_fewer", option_json(&cr->fewer));
    if (o)
        json_object_set_new(o, "traffic", traffic_json(a));
    if (o && a->disagg)
        json_object_set_new(o, "disagg", disagg_json(a->disagg));
    return o;
}

/* ---- train ---- */

const char *gpi_rank_name(int r)
{
    return r == GP_RANK_COST ? "cost" : r == GP_RANK_TOKENS_PER_DOLLAR ? "tokens-per-dollar" : "time";
}

static json_t *train_perf_json(const gp_train_perf *p, double cost)
{
    json_t *b =
        json_pack("{sf sf sf sf sf sf sf sf sf}", "compute_s", p->compute_s, "memory_s", p->memory_s, "tp_comm_s",
                  p->tp_comm_s, "cp_comm_s", p->cp_comm_s, "ep_comm_s", p->ep_comm_s, "pp_comm_s", p->pp_comm_s,
                  "dp_comm_s", p->dp_comm_s, "bubble_s", p->bubble_s, "optimizer_s", p->optimizer_s);
    json_t *j = json_pack("{sf sf sf sf sf sf sf sf sf sf sf sI so* sf}", "step_time_s", p->step_time_s, "tokens_per_s",
                          p->tokens_per_s, "tokens_per_s_per_gpu", p->tokens_per_s_per_gpu, "model_tflops_per_gpu",
                          p->model_tflops_per_gpu, "hw_tflops_per_gpu", p->hw_tflops_per_gpu, "mfu", p->mfu, "hfu",
                          p->hfu, "time_to_train_s", p->time_to_train_s, "model_flops_per_token",
                          p->model_flops_per_token, "hw_flops_per_token", p->hw_flops_per_token, "bubble_fraction",
                          p->step_time_s > 0 ? p->bubble_s / p->step_time_s : 0.0, "micro_batches",
                          (json_int_t)p->micro_batches, "breakdown", b, "cost", cost);
    /* the likely range: the 10th-90th percentile of the error on published runs */
    json_t *o = json_pack("{sf sf sf sf sf sf sf sf}", "step_time_s_low", p->step_time_s_low, "step_time_s_high",
                          p->step_time_s_high, "tokens_per_s_low", p->tokens_per_s_low, "tokens_per_s_high",
                          p->tokens_per_s_high, "model_tflops_per_gpu_low", p->model_tflops_per_gpu_low,
                          "model_tflops_per_gpu_high", p->model_tflops_per_gpu_high, "time_to_train_s_low",
                          p->time_to_train_s_low, "time_to_train_s_high", p->time_to_train_s_high);
    if (j && o)
        json_object_update(j, o);
    json_decref(o);
    /* whose runs the range comes from: a model type, "MoE" or "dense" (range_cases 0 for those) */
    if (j) {
        json_object_set_new(j, "range_basis", json_string(p->range_basis));
        json_object_set_new(j, "range_cases", json_integer(p->range_cases));
    }
    return j;
}

static json_t *candidate_json(const gp_train_candidate *c, int rank)
{
    return json_pack("{si so* so* so* sf ss}", "rank", rank, "layout", gpi_json_layout(&c->layout), "perf",
                     train_perf_json(&c->perf, c->cost), "memory", gpi_json_memory(&c->memory), "cost", c->cost, "why",
                     c->why);
}

static json_t *scaling_json(const gp_train_answer *a)
{
    json_t *arr = json_array();
    double base = 0;
    int base_gpus = 0;
    for (int i = 0; arr && i < a->n_rows; i++) {
        const gp_train_scale_row *r = &a->rows[i];
        if (r->ok && base == 0) {
            base = r->best.perf.tokens_per_s_per_gpu;
            base_gpus = r->gpus;
        }
        double eff = r->ok && base > 0 ? r->best.perf.tokens_per_s_per_gpu / base : 0.0;
        json_array_append_new(arr, json_pack("{si so* sf sf sf sf sf si sb}", "gpus", r->gpus, "layout",
                                             r->ok ? gpi_json_layout(&r->best.layout) : NULL, "step_time_s",
                                             r->ok ? r->best.perf.step_time_s : 0.0, "tokens_per_s",
                                             r->ok ? r->best.perf.tokens_per_s : 0.0, "tokens_per_s_per_gpu",
                                             r->ok ? r->best.perf.tokens_per_s_per_gpu : 0.0, "mfu",
                                             r->ok ? r->best.perf.mfu : 0.0, "efficiency", eff, "baseline_gpus",
                                             base_gpus, "crosses_nodes", r->gpus > a->cluster.gpus_per_node));
    }
    return arr;
}

json_t *gpi_json_train(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                       const gp_train_answer *a)
{
    const gp_train_search_result *res = a->res;
    const gp_train_candidate *best = res->n_top > 0 ? &res->top[0] : NULL;
    const gp_cluster *cl = &a->cluster;
    json_t *cands = json_array(), *pareto = json_array();
    for (int i = 0; cands && i < res->n_top; i++)
        json_array_append_new(cands, candidate_json(&res->top[i], i + 1));
    for (int i = 0; pareto && i < res->n_pareto; i++)
        json_array_append_new(pareto, candidate_json(&res->pareto[i], i + 1));
    json_t *cluster =
        json_pack("{si ss sf ss sf}", "gpus_per_node", cl->gpus_per_node, "intra_node", cl->intra_name, "intra_gbps",
                  cl->intra_gbps, "inter_node", cl->inter_name, "inter_gbps", cl->inter_gbps);
    json_t *search = json_pack("{ss sI sI sI sf ss}", "mode", a->mode, "evaluated", (json_int_t)res->evaluated, "valid",
                               (json_int_t)res->valid, "fitting", (json_int_t)res->fitting, "seconds", a->seconds,
                               "rank", gpi_rank_name(sc->rank));
    json_t *o = json_pack("{ss ss ss sI sI si sf sf so* so* so* so* so* so* so* so*}", "model", m->id, "gpu", gpu->id,
                          "task", gp_task_name(w->task), "seq", (json_int_t)w->seq, "global_batch",
                          (json_int_t)a->global_batch, "gpus", res->gpus, "tokens", sc->tokens, "deadline_s",
                          sc->deadline, "cluster", cluster, "layout", best ? gpi_json_layout(&best->layout) : NULL,
                          "perf", best ? train_perf_json(&best->perf, best->cost) : NULL, "memory",
                          best ? gpi_json_memory(&best->memory) : NULL, "candidates", cands, "pareto", pareto, "search",
                          search, "reasons", gpi_json_reasons(res->reasons, res->n_reasons));
    if (o && best)
        json_object_set_new(o, "why", json_string(best->why));
    if (o && sc->scaling)
        json_object_set_new(o, "scaling", scaling_json(a));
    return o;
}

/* ---- models ---- */

const gp_dtype gpi_shown_dtypes[GPI_SHOWN_DTYPES] = {GP_DTYPE_F32,  GP_DTYPE_BF16, GP_DTYPE_FP8,  GP_DTYPE_INT8,
                                                     GP_DTYPE_INT4, GP_DTYPE_NF4,  GP_DTYPE_MXFP4};

/* ---- plan (docs/cli.md "plan") ---- */

const char *gpi_rule_text(const gp_rule *r, int pt_br)
{
    return pt_br ? r->text_pt : r->text_en;
}
const char *gpi_rule_citation(const gp_rule *r, int pt_br)
{
    return pt_br && r->citation_pt[0] ? r->citation_pt : r->citation;
}

void gpi_plan_question(char *out, size_t n, const gp_plan_request *req, const gp_plan_result *res, int pt_br)
{
    const char *model = req->model ? (req->model->name[0] ? req->model->name : req->model->id) : "?";
    if (!res->serving) {
        snprintf(out, n, pt_br ? "Treinar %s com %.3g tokens" : "Train %s on %.3g tokens", model,
                 req->train.train_tokens);
        return;
    }
    const gp_traffic *t = &req->traffic;
    char load[96];
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        snprintf(load, sizeof load, pt_br ? "%lld usuários simultâneos" : "%lld concurrent users", (long long)t->users);
    else
        snprintf(load, sizeof load, pt_br ? "%.3g requisições/s" : "%.3g requests/s", t->rate);
    char ttft[64] = "", tpot[64] = "", v[32];
    if (req->slo.ttft_s > 0)
        snprintf(ttft, sizeof ttft, ", TTFT p99 <= %s s",
                 gpi_fmt_num(v, sizeof v, req->slo.ttft_s, req->slo.ttft_s < 1 ? 2 : 1, pt_br));
    if (req->slo.tpot_s > 0)
        snprintf(tpot, sizeof tpot, ", TPOT p99 <= %s s", gpi_fmt_num(v, sizeof v, req->slo.tpot_s, 3, pt_br));
    snprintf(out, n, pt_br ? "Servir %s a %s (%.0f + %.0f tokens)%s%s" : "Serve %s to %s (%.0f + %.0f tokens)%s%s",
             model, load, t->prompt.mean, t->output.mean, ttft, tpot);
}

static json_t *plan_rule_json(const gp_rule *r, int pt_br)
{
    return json_pack("{ss ss ss ss ss}", "rule", r->id, "kind", gpi_rule_kind_name(r->kind), "citation",
                     gpi_rule_citation(r, pt_br), "url", r->url, "text", gpi_rule_text(r, pt_br));
}

/* An option's perf object; a serving option's figures carry their likely range (docs/serving.md,
 * "Ranges"). */
static json_t *plan_option_perf_json(const gp_plan_result *res, const gp_plan_option *o)
{
    if (!res->serving)
        return json_pack("{sf sf sf sf sf sf}", "step_time_s", o->train.step_time_s, "tokens_per_s",
                         o->train.tokens_per_s, "mfu", o->train.mfu, "time_to_train_s", o->train.time_to_train_s,
                         "time_to_train_with_failures_s", o->train_rel.time_to_train_s, "model_tflops_per_gpu",
                         o->train.model_tflops_per_gpu);
    json_t *perf =
        json_pack("{sf sf sf sf sf sf sf sf}", "ttft_p50_s", o->serve.sim.ttft.p50, "ttft_p99_s", o->serve.sim.ttft.p99,
                  "tpot_p50_s", o->serve.sim.tpot.p50, "tpot_p99_s", o->serve.sim.tpot.p99, "throughput_tokens_per_s",
                  o->throughput_tokens_per_s, "requests_per_s", o->requests_per_s, "max_concurrency",
                  o->serve.max_concurrency, "slo_attainment", o->serve.sim.slo_attainment);
    const struct {
        const char *key;
        double v;
        int rate;
    } f[] = {
        {"ttft_p50_s", o->serve.sim.ttft.p50, 0},
        {"ttft_p99_s", o->serve.sim.ttft.p99, 0},
        {"tpot_p50_s", o->serve.sim.tpot.p50, 0},
        {"tpot_p99_s", o->serve.sim.tpot.p99, 0},
        {"throughput_tokens_per_s", o->throughput_tokens_per_s, 1},
        {"requests_per_s", o->requests_per_s, 1},
    };
    for (size_t i = 0; perf && i < sizeof f / sizeof f[0]; i++)
        gpi_json_serve_range(perf, f[i].key, f[i].v, f[i].rate, o->error_p10, o->error_p90);
    return perf;
}

static json_t *plan_option_json(const gp_plan_result *res, const gp_plan_option *o, int pt_br)
{
    const gp_deployment *d = &o->deployment;
    json_t *hw =
        json_pack("{ss ss si s{ss ss ss ss sb sb}}", "gpu", o->gpu, "dtype", gp_dtype_name(o->dtype), "gpus_total",
                  o->gpus_total, "deployment", "id", d->id, "name", d->name, "kind", gpi_deploy_kind_name(d->kind),
                  "country", d->country, "shared", d->shared, "audit_logging", d->audit_logging);
    json_t *layout = json_pack("{si si si si si si si ss}", "tp", o->layout.tp, "pp", o->layout.pp, "dp", o->layout.dp,
                               "cp", o->layout.cp, "ep", o->layout.ep, "replicas", o->replicas, "gpus_total",
                               o->gpus_total, "recompute", gp_recompute_name(o->layout.recompute));
    json_object_set_new(layout, "zero", json_integer(o->layout.zero));
    const gp_memory *m = &o->memory;
    json_t *memory =
        json_pack("{sI sI s{sI sI sI sI sI sI}}", "per_gpu_bytes", (json_int_t)m->per_gpu, "capacity_bytes",
                  (json_int_t)m->capacity, "components", "weights", (json_int_t)m->weights, "kv_cache",
                  (json_int_t)m->kv_cache, "activations", (json_int_t)m->activations, "gradients",
                  (json_int_t)m->gradients, "optimizer", (json_int_t)m->optimizer, "overhead", (json_int_t)m->overhead);
    json_t *perf = plan_option_perf_json(res, o);
    const gp_cost *c = &o->cost;
    json_t *cumulative = json_array();
    for (int i = 0; i <= c->months; i++)
        json_array_append_new(cumulative, json_real(c->cumulative[i]));
    json_t *cost =
        json_pack("{ss sf ss ss sf sf sf sf sf sf sf sf sf sf sf sf si ss so}", "currency", c->currency, "per_usd",
                  c->per_usd, "kind", gpi_deploy_kind_name(c->kind), "pricing",
                  c->kind == GP_DEPLOY_OWNED ? "owned"
                  : c->reserved              ? "reserved"
                                             : "on-demand",
                  "gpu_hour_on_demand", c->gpu_hour_on_demand, "gpu_hour_reserved", c->gpu_hour_reserved, "hourly",
                  c->hourly, "upfront", c->upfront, "monthly", c->monthly, "monthly_amortized", c->monthly_amortized,
                  "power_monthly", c->power_monthly, "hosting_monthly", c->hosting_monthly, "egress_monthly",
                  c->egress_monthly, "total", c->total, "per_million_tokens", c->per_million_tokens, "per_run",
                  c->per_run, "horizon_months", c->months, "break_even_vs", o->break_even_vs, "cumulative", cumulative);
    json_object_set_new(cost, "break_even_month",
                        o->break_even_month > 0 ? json_integer(o->break_even_month) : json_null());
    /* investment and running cost apart (capex / opex), and what to buy or rent */
    json_object_set_new(cost, "capex", json_real(c->upfront));
    json_object_set_new(cost, "opex_monthly", json_real(c->monthly));
    json_object_set_new(hw, "servers", json_integer(c->servers));
    json_object_set_new(hw, "gpus_per_server", json_integer(c->gpus_per_server));
    json_object_set_new(hw, "rack_units", json_integer(c->rack_units));
    json_object_set_new(hw, "power_kw", json_real(c->power_kw));
    json_object_set_new(hw, "consumer", json_boolean(o->consumer));
    json_object_set_new(json_object_get(hw, "deployment"), "name_pt",
                        json_string(d->name_pt[0] ? d->name_pt : d->name));
    json_t *violated = json_array(), *oblig = json_array();
    for (int i = 0; i < o->compliance.n_violated; i++)
        json_array_append_new(violated, plan_rule_json(&res->profile.rules[o->compliance.violated[i]], pt_br));
    for (int i = 0; i < o->compliance.n_obligations; i++)
        json_array_append_new(oblig, plan_rule_json(&res->profile.rules[o->compliance.obligations[i]], pt_br));
    json_t *comp = json_pack("{ss sb so so}", "profile", res->profile.id, "allowed", o->compliance.allowed, "violated",
                             violated, "obligations", oblig);
    json_t *rel;
    if (res->serving)
        rel = json_pack("{sf si si sf sf}", "replica_availability", o->serve_rel.replica_availability,
                        "serving_replicas", o->serve_rel.serving, "spare_replicas", o->serve_rel.spares, "availability",
                        o->serve_rel.availability, "target", o->serve_rel.target);
    else
        rel = json_pack("{sf sf sf sf sf}", "job_mtbf_s",
                        isfinite(o->train_rel.job_mtbf_s) ? o->train_rel.job_mtbf_s : 0.0, "expected_interruptions",
                        o->train_rel.expected_interruptions, "checkpoint_s", o->train_rel.checkpoint_s,
                        "checkpoint_interval_s", o->train_rel.checkpoint_interval_s, "overhead_fraction",
                        o->train_rel.overhead_fraction);
    json_t *opt = json_pack("{si so so so so so so so}", "rank", o->rank, "hardware", hw, "layout", layout, "memory",
                            memory, "perf", perf, "cost", cost, "compliance", comp, "reliability", rel);
    if (!o->compliance.allowed && o->compliance.n_violated > 0) {
        const gp_rule *r = &res->profile.rules[o->compliance.violated[0]];
        json_object_set_new(opt, "rule", json_string(r->id));
        json_object_set_new(opt, "citation", json_string(gpi_rule_citation(r, pt_br)));
        json_object_set_new(opt, "reason", json_string(gpi_rule_text(r, pt_br)));
    }
    return opt;
}

/* The decision around the recommendation (plan.h "the decision"): indexes become the
 * options' ranks, or the excluded option's deployment and rule. */
static json_t *plan_ref_json(const gp_plan_result *res, int option, int excluded)
{
    if (option >= 0) {
        const gp_plan_option *o = &res->options[option];
        return json_pack("{si ss ss ss si sf}", "rank", o->rank, "gpu", o->gpu, "dtype", gp_dtype_name(o->dtype),
                         "deployment", o->deployment.id, "gpus_total", o->gpus_total, "total",
                         res->serving ? o->cost.total : o->cost.per_run);
    }
    if (excluded >= 0) {
        const gp_plan_option *o = &res->excluded[excluded];
        return json_pack("{sn ss ss ss si sf ss}", "rank", "gpu", o->gpu, "dtype", gp_dtype_name(o->dtype),
                         "deployment", o->deployment.id, "gpus_total", o->gpus_total, "total",
                         res->serving ? o->cost.total : o->cost.per_run, "excluded_by",
                         o->compliance.n_violated ? res->profile.rules[o->compliance.violated[0]].id : "");
    }
    return json_null();
}

static json_t *plan_decision_json(const gp_plan_result *res)
{
    json_t *alts = json_object(), *risks = json_array(), *rules = json_array();
    for (int k = 0; k < GP_ALT_KIND_COUNT; k++) {
        const gp_plan_alternative *a = &res->alternatives[k];
        json_t *j = json_pack("{so}", "option", plan_ref_json(res, a->option, a->excluded));
        json_object_set_new(j, "extra", a->option >= 0 ? json_real(a->extra) : json_null());
        json_object_set_new(j, "break_even_month",
                            a->break_even_month > 0    ? json_integer(a->break_even_month)
                            : a->break_even_month == 0 ? json_integer(0)
                                                       : json_null());
        json_object_set_new(alts, gpi_alt_kind_name(a->kind), j);
    }
    for (int i = 0; i < res->n_risks; i++) {
        const gp_plan_risk *r = &res->risks[i];
        json_array_append_new(risks, json_pack("{ss sf sf sf sb si}", "risk", gpi_risk_kind_name(r->kind), "parameter",
                                               r->parameter, "size", r->size, "runner_up_size", r->alt_size, "flips",
                                               r->flips, "low_confidence", r->low_confidence));
    }
    for (int i = 0; i < res->n_rule_prices; i++) {
        const gp_plan_rule_price *rp = &res->rule_prices[i];
        json_array_append_new(rules, json_pack("{ss so so}", "rule", res->profile.rules[rp->rule].id,
                                               "cheapest_excluded", plan_ref_json(res, -1, rp->excluded), "price",
                                               rp->priced ? json_real(rp->saving) : json_null()));
    }
    return json_pack("{so so so so}", "alternatives", alts, "runner_up", plan_ref_json(res, res->runner_up, -1),
                     "risks", risks, "rule_prices", rules);
}

json_t *gpi_json_plan(const gp_plan_request *req, const gp_plan_result *res, int pt_br, const char *question)
{
    char q[512];
    gpi_plan_question(q, sizeof q, req, res, pt_br);
    json_t *options = json_array(), *excluded = json_array(), *notes = json_array(), *points = json_array();
    for (int i = 0; i < res->n_options; i++)
        json_array_append_new(options, plan_option_json(res, &res->options[i], pt_br));
    for (int i = 0; i < res->n_excluded; i++)
        json_array_append_new(excluded, plan_option_json(res, &res->excluded[i], pt_br));
    for (int i = 0; i < res->n_notes; i++)
        json_array_append_new(notes, json_string(res->notes[i]));
    for (int i = 0; i < res->n_points; i++)
        json_array_append_new(points, json_pack("{ss ss si sf sb}", "gpu", res->points[i].gpu, "dtype",
                                                gp_dtype_name(res->points[i].dtype), "gpus", res->points[i].gpus,
                                                "throughput_tokens_per_s", res->points[i].throughput_tokens_per_s,
                                                "meets", res->points[i].meets));
    json_t *rec = res->recommended >= 0 ? plan_option_json(res, &res->options[res->recommended], pt_br) : json_null();
    json_t *j = json_pack(
        "{ss ss ss s{ss ss ss} ss sf si ss sf si so so so so so s{ss ss} ss}", "question", question ? question : q,
        "task", res->serving ? "serve" : "train", "model", req->model ? req->model->id : "", "profile", "id",
        res->profile.id, "name", pt_br ? res->profile.name_pt : res->profile.name_en, "jurisdiction",
        res->profile.jurisdiction, "currency", res->currency, "per_usd", res->per_usd, "horizon_months",
        res->horizon_months, "prices_as_of", res->prices_as_of, "egress_tb_per_month", res->egress_tb_per_month,
        "redundancy", res->redundancy, "options", options, "excluded", excluded, "recommended", rec, "notes", notes,
        "scaling", points, "launch", "engine", res->launch_engine, "command", res->launch_command, "disclaimer",
        pt_br ? res->profile.disclaimer_pt : res->profile.disclaimer_en);
    if (j && res->recommended >= 0)
        json_object_set_new(j, "decision", plan_decision_json(res));
    return j;
}

const char *gp_model_origin_name(gp_model_origin o)
{
    static const char *const names[GP_ORIGIN_COUNT] = {"flags", "catalog", "config.json",
                                                       "model folder (config.json + safetensors)", "gguf"};
    return o < GP_ORIGIN_COUNT ? names[o] : "?";
}

const char *gp_model_attention_name(const gp_model *m)
{
    if (m->kv_lora_rank > 0)
        return "MLA (multi-head latent attention)";
    if (m->kv_heads == 1 && m->heads > 1)
        return "MQA";
    if (m->kv_heads < m->heads)
        return "GQA";
    return "MHA";
}

json_t *gpi_json_model(const gp_model *m, const gp_param_breakdown *p)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", json_string(m->id));
    json_object_set_new(o, "name", json_string(m->name));
    json_object_set_new(o, "model_type", json_string(m->model_type));
    json_object_set_new(o, "origin", json_string(gp_model_origin_name(m->origin)));
    json_object_set_new(o, "source", json_string(m->source));
    json_object_set_new(o, "params_total", json_integer(gp_model_total_params(m)));
    json_object_set_new(o, "params_active", json_integer(p->active));
    json_object_set_new(o, "params_from_config", json_integer(p->total));
    json_object_set_new(o, "layers", json_integer(m->layers));
    json_object_set_new(o, "hidden", json_integer(m->hidden));
    json_object_set_new(o, "heads", json_integer(m->heads));
    json_object_set_new(o, "kv_heads", json_integer(m->kv_heads));
    json_object_set_new(o, "head_dim", json_integer(m->head_dim));
    json_object_set_new(o, "ffn", json_integer(m->ffn));
    json_object_set_new(o, "vocab", json_integer(m->vocab));
    json_object_set_new(o, "max_context", json_integer(m->max_context));
    json_object_set_new(o, "experts", json_integer(m->experts));
    json_object_set_new(o, "experts_active", json_integer(m->experts_active));
    json_object_set_new(o, "moe_ffn", json_integer(m->moe_ffn));
    json_object_set_new(o, "shared_experts", json_integer(m->shared_experts));
    json_object_set_new(o, "tied_embeddings", json_boolean(m->tied_embeddings));
    json_object_set_new(o, "attention", json_string(gp_model_attention_name(m)));
    json_object_set_new(o, "kv_lora_rank", json_integer(m->kv_lora_rank));
    json_object_set_new(o, "sliding_window", json_integer(m->sliding_window));
    json_object_set_new(o, "sliding_layers", json_integer(m->sliding_layers));
    json_object_set_new(o, "dtype", json_string(gp_dtype_name(m->dtype)));
    json_object_set_new(o, "quantization", json_string(m->quant_method[0] ? m->quant_method : "none"));
    json_object_set_new(o, "weight_bytes", json_integer((json_int_t)gp_model_weight_bytes(m, GP_DTYPE_UNKNOWN)));
    json_object_set_new(o, "kv_bytes_per_token",
                        json_integer((json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16)));

    json_t *parts =
        json_pack("{sI sI sI sI sI sI sI sI sI}", "embedding", (json_int_t)p->embedding, "position",
                  (json_int_t)p->position, "attention", (json_int_t)p->attention, "mlp", (json_int_t)p->mlp_dense,
                  "experts_routed", (json_int_t)p->experts_routed, "experts_shared", (json_int_t)p->experts_shared,
                  "router", (json_int_t)p->router, "norms", (json_int_t)p->norms, "head", (json_int_t)p->head);
    json_object_set_new(o, "params_by_part", parts);
    json_t *wb = json_object();
    for (size_t i = 0; i < GPI_SHOWN_DTYPES; i++)
        json_object_set_new(wb, gp_dtype_name(gpi_shown_dtypes[i]),
                            json_integer((json_int_t)gp_model_weight_bytes(m, gpi_shown_dtypes[i])));
    json_object_set_new(o, "weight_bytes_by_dtype", wb);
    json_t *kv = json_object();
    json_object_set_new(kv, "bf16", json_integer((json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16)));
    json_object_set_new(kv, "fp8", json_integer((json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_FP8)));
    json_object_set_new(o, "kv_bytes_per_token_by_dtype", kv);
    int64_t ctx = m->max_context > 0 ? m->max_context : 4096;
    json_object_set_new(o, "kv_bytes_max_context_bf16",
                        json_integer((json_int_t)gp_model_kv_bytes(m, GP_DTYPE_BF16, ctx)));
    double f0 = gp_model_forward_flops_per_token(m, 0);
    json_object_set_new(o, "forward_flops_per_token", json_real(f0));
    json_object_set_new(o, "forward_flops_per_token_at_4096", json_real(gp_model_forward_flops_per_token(m, 4096)));
    json_object_set_new(o, "training_flops_per_token", json_real(3.0 * f0));
    if (m->has_exact) {
        json_t *ex = json_object();
        json_object_set_new(ex, "params", json_integer(m->exact_params));
        json_object_set_new(ex, "buffers", json_integer(m->exact_buffers));
        json_object_set_new(ex, "tensors", json_integer(m->exact_tensors));
        json_object_set_new(ex, "bytes", json_integer((json_int_t)m->exact_bytes));
        json_object_set_new(ex, "extra_params", json_integer(m->exact_extra_params));
        json_t *types = json_array();
        for (int i = 0; i < m->n_dtype_stats; i++)
            json_array_append_new(types, json_pack("{ss sI sI sI}", "type", m->dtype_stats[i].name, "tensors",
                                                   (json_int_t)m->dtype_stats[i].tensors, "elements",
                                                   (json_int_t)m->dtype_stats[i].elements, "bytes",
                                                   (json_int_t)m->dtype_stats[i].bytes));
        json_object_set_new(ex, "by_type", types);
        json_object_set_new(o, "exact", ex);
    } else
        json_object_set_new(o, "exact", json_null());
    json_object_set_new(o, "published_params", json_integer(m->published_params));
    json_object_set_new(o, "published_active_params", json_integer(m->published_active_params));
    json_t *notes = json_array();
    char buf[GP_NOTE_MAX];
    memcpy(buf, m->notes, sizeof buf);
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        json_array_append_new(notes, json_string(line));
    json_object_set_new(o, "notes", notes);
    return o;
}

gp_status gp_model_json(const gp_model *m, char **text, size_t *len, gp_error *err)
{
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (st != GP_OK)
        return st;
    return gpi_json_text(gpi_json_model(m, &p), text, len, err);
}

/* ---- catalog ---- */

json_t *gpi_json_gpu(const gp_gpu *g)
{
    json_t *t = json_object();
    static const gp_dtype ts[] = {GP_DTYPE_F64, GP_DTYPE_F32,  GP_DTYPE_BF16, GP_DTYPE_F16,
                                  GP_DTYPE_FP8, GP_DTYPE_INT8, GP_DTYPE_FP4};
    for (size_t i = 0; t && i < sizeof ts / sizeof ts[0]; i++)
        json_object_set_new(t, gp_dtype_name(ts[i]), g->tflops[ts[i]] > 0 ? json_real(g->tflops[ts[i]]) : json_null());
    if (t)
        json_object_set_new(t, "tf32", g->tf32_tflops > 0 ? json_real(g->tf32_tflops) : json_null());
    return json_pack("{ss ss ss sf sI sf so* s{ss sf si} si sf si sb}", "id", g->id, "vendor", g->vendor, "name",
                     g->name, "memory_marketed_gb", g->memory_marketed_gb, "memory_bytes", (json_int_t)g->memory_bytes,
                     "hbm_bandwidth_gbps", g->hbm_bandwidth_gbps, "dense_tflops", t, "scale_up", "name",
                     g->scale_up_name, "bw_gbps_bidir", g->scale_up_gbps_bidir, "domain_size", g->scale_up_domain,
                     "pcie_gen", g->pcie_gen, "tdp_w", g->tdp_w, "launch_year", g->launch_year, "consumer",
                     g->consumer);
}

gp_status gp_catalog_gpus_json(const gp_catalog *cat, const gp_gpu *only, char **text, size_t *len, gp_error *err)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < gp_catalog_gpu_count(cat); i++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, i);
        if (!only || g == only)
            json_array_append_new(arr, gpi_json_gpu(g));
    }
    return gpi_json_text(json_pack("{so*}", "gpus", arr), text, len, err);
}

gp_status gp_catalog_models_json(const gp_catalog *cat, char **text, size_t *len, gp_error *err)
{
    json_t *arr = json_array();
    gp_model *m = malloc(sizeof *m);
    for (size_t i = 0; arr && m && i < gp_catalog_model_count(cat); i++) {
        gp_param_breakdown p;
        if (gp_catalog_model_at(cat, i, m, err) != GP_OK || gp_model_params(m, &p, err) != GP_OK) {
            json_decref(arr);
            free(m);
            *text = NULL;
            return err ? err->code : GP_EINVAL;
        }
        json_array_append_new(arr,
                              json_pack("{ss ss ss sI sI sI sI sI}", "id", m->id, "name", m->name, "model_type",
                                        m->model_type, "params_total", (json_int_t)p.total, "params_active",
                                        (json_int_t)p.active, "max_context", (json_int_t)m->max_context,
                                        "kv_bytes_per_token", (json_int_t)gp_model_kv_bytes_per_token(m, GP_DTYPE_BF16),
                                        "experts", (json_int_t)m->experts));
    }
    free(m);
    return gpi_json_text(json_pack("{so*}", "models", arr), text, len, err);
}

void gp_text_free(char *text)
{
    free(text);
}

/* ---- this machine (gpuplan probe --json) ---- */

gp_status gp_probe_json(const gp_catalog *cat, const gp_probe *p, const char *nvml_path, const char *why, char **text,
                        size_t *len, gp_error *err)
{
    char cuda[32];
    gpi_fmt_cuda(cuda, sizeof cuda, gp_probe_cuda_version(p));
    json_t *gpus = json_array();
    for (size_t i = 0; gpus && i < gp_probe_gpu_count(p); i++) {
        const gp_probe_gpu *g = gp_probe_gpu_at(p, i);
        const gp_gpu *cg = NULL;
        gp_error merr;
        gp_probe_match(cat, g, &cg, &merr);
        json_array_append_new(
            gpus, json_pack("{si ss ss sI sI si si si si si ss? ss?}", "index", g->index, "name", g->name, "uuid",
                            g->uuid, "memory_total_bytes", (json_int_t)g->memory_total_bytes, "memory_free_bytes",
                            (json_int_t)g->memory_free_bytes, "pcie_gen", g->pcie_gen, "pcie_width", g->pcie_width,
                            "pcie_gen_max", g->pcie_gen_max, "pcie_width_max", g->pcie_width_max, "nvlink_active",
                            g->nvlink_active, "catalog_id", cg ? cg->id : NULL, "catalog_note", cg ? NULL : merr.msg));
    }
    json_t *o = json_pack("{s{sb ss ss? ss? si ss?} so si}", "nvml", "available", p != NULL, "library",
                          nvml_path ? nvml_path : GP_PROBE_DEFAULT_NVML, "message", p ? NULL : why, "cuda_version",
                          gp_probe_cuda_version(p) > 0 ? cuda : NULL, "cuda_version_raw", gp_probe_cuda_version(p),
                          "driver_version", p && gp_probe_driver_version(p)[0] ? gp_probe_driver_version(p) : NULL,
                          "gpus", gpus, "gpu_count", (int)gp_probe_gpu_count(p));
    return gpi_json_text(o, text, len, err);
}

/* ---- profiles and the version ---- */

gp_status gp_profile_json(const char *profile_json, char **text, size_t *len, gp_error *err)
{
    return gpi_json_text(profile_json ? json_loads(profile_json, 0, NULL) : NULL, text, len, err);
}

gp_status gp_version_json(char **text, size_t *len, gp_error *err)
{
    return gpi_json_text(json_pack("{s:s}", "version", GP_VERSION_STRING), text, len, err);
}
