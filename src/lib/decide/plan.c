/*
 * plan.c: the whole decision (docs/scenario.md). For each weight precision and candidate GPU
 * type, the setup that carries the load (serving: gpi_capacity_search; training:
 * gpi_train_search), its reliability (spares for an availability target; checkpoint overhead),
 * then one option per deployment (cloud, bare metal, owned; data/prices.json), each costed
 * over the horizon and checked against the data-sensitivity profile (data/compliance.json).
 * Options a rule excludes go to `excluded` with the rules; the rest are ranked by total cost
 * over the horizon (serving) or cost per run (training), then GPU count.
 */
#include "decide.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpi_plan_request_defaults(gp_plan_request *r)
{
    memset(r, 0, sizeof *r);
    gpi_workload_defaults(&r->w, GP_TASK_INFER);
    gpi_train_search_defaults(&r->train);
    gpi_strlcpy(r->compliance, "none", sizeof r->compliance);
    gpi_strlcpy(r->currency, "USD", sizeof r->currency);
    r->horizon_months = 36;
    r->egress_tb_per_month = -1;
    gpi_reliability_defaults(&r->reliability);
}

/* What one (GPU, precision) setup is, before deployments multiply it. */
typedef struct setup {
    const gp_gpu *gpu;
    gp_dtype dtype;
    gp_layout layout;
    int replicas, gpus_total, spares;
    gp_memory memory;
    gp_serve_option serve;
    double throughput, requests_per_s, tokens_per_month;
    gp_serve_reliability serve_rel;
    gp_train_perf train;
    gp_train_reliability train_rel;
} setup;

static void note(gp_plan_result *out, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void note(gp_plan_result *out, const char *fmt, ...)
{
    if (out->n_notes >= GP_PLAN_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out->notes[out->n_notes++], GP_ERROR_MSG_MAX, fmt, ap);
    va_end(ap);
}

static gp_status serve_setup(const gp_catalog *cat, const gp_plan_request *req, const gp_workload *w, const gp_gpu *g,
                             int redundancy, const gpi_prices *prices, gp_plan_result *out, setup *s, int *found,
                             gp_error *err)
{
    *found = 0;
    gp_capacity_result *cr = calloc(1, sizeof *cr);
    if (!cr)
        return gpi_fail(err, GP_ENOMEM, "out of memory planning");
    gpi_capacity_request cq;
    memset(&cq, 0, sizeof cq);
    cq.model = req->model;
    cq.w = w;
    cq.traffic = req->traffic;
    cq.slo = req->slo;
    cq.redundancy = redundancy;
    const gp_gpu *one[1] = {g};
    cq.gpus = one;
    cq.n_gpus = 1;
    cq.fixed_tp = req->fixed_tp;
    gp_status st = gpi_capacity_search(cat, &cq, cr, err);
    if (st) {
        free(cr);
        return st;
    }
    for (int i = 0; i < cr->n_options && out->n_points < GP_PLAN_MAX_POINTS; i++) {
        const gp_serve_option *o = &cr->options[i];
        if (!o->fits)
            continue;
        gp_plan_point *pt = &out->points[out->n_points++];
        gpi_strlcpy(pt->gpu, g->id, sizeof pt->gpu);
        pt->dtype = w->dtype;
        pt->gpus = o->gpus_total;
        pt->throughput_tokens_per_s =
            o->sim.output_tokens_per_s * (o->replicas - redundancy > 0 ? o->replicas - redundancy : 1);
        pt->meets = o->meets;
    }
    if (!cr->found) {
        char why[GP_ERROR_MSG_MAX] = "no setup up to the search limits meets the targets";
        for (int i = 0; i < cr->n_reasons; i++)
            if (cr->reasons[i].code == GP_SERVE_MODEL_DOES_NOT_FIT || cr->reasons[i].code == GP_SERVE_NO_SETUP) {
                gpi_strlcpy(why, cr->reasons[i].message, sizeof why);
                break;
            }
        note(out, "%s in %s: %s", g->id, gp_dtype_name(w->dtype), why);
        free(cr);
        return GP_OK;
    }
    memset(s, 0, sizeof *s);
    s->gpu = g;
    s->dtype = w->dtype;
    s->serve = cr->best;
    free(cr);
    gpi_layout_defaults(&s->layout);
    s->layout.tp = s->serve.tp;
    s->layout.pp = s->serve.pp > 0 ? s->serve.pp : 1;
    int serving = s->serve.replicas - redundancy;
    if (serving < 1)
        serving = 1;
    st = gpi_serve_reliability_estimate(&req->reliability, s->layout.tp, serving, redundancy, req->availability,
                                        &s->serve_rel, err);
    if (st)
        return st;
    s->spares = s->serve_rel.spares;
    s->replicas = serving + s->spares;
    s->layout.dp = s->replicas;
    s->gpus_total = s->layout.tp * s->layout.pp * s->replicas;
    s->throughput = s->serve.sim.output_tokens_per_s * serving;
    s->requests_per_s = s->serve.sim.requests_per_s * serving;
    s->tokens_per_month = s->throughput * 3600.0 * prices->hours_per_month;
    /* memory per GPU under the engine's accounting, at the request's full length */
    gp_workload mw = *w;
    mw.context = (int64_t)(req->traffic.prompt.max > 0 ? req->traffic.prompt.max : req->traffic.prompt.mean) +
                 (int64_t)(req->traffic.output.max > 0 ? req->traffic.output.max : req->traffic.output.mean);
    if (mw.context < 1)
        mw.context = 4096;
    mw.batch = 1;
    gp_layout ml = s->layout;
    ml.dp = 1;
    gp_error local;
    gp_error_clear(&local);
    if (gpi_memory_estimate(req->model, g, &mw, &ml, &s->memory, &local) == GP_OK && s->memory.kv_cache_bytes > 0)
        s->memory.kv_cache = s->memory.kv_cache_bytes; /* the pool the engine allocates */
    *found = 1;
    return GP_OK;
}

static gp_status train_setup(const gp_catalog *cat, const gp_plan_request *req, const gp_workload *w, const gp_gpu *g,
                             gp_plan_result *out, setup *s, int *found, gp_error *err)
{
    *found = 0;
    gp_train_search_result *sr = calloc(1, sizeof *sr);
    if (!sr)
        return gpi_fail(err, GP_ENOMEM, "out of memory planning");
    gp_cluster c;
    gpi_cluster_defaults(&c, cat, g, NULL);
    gp_train_search_opts o = req->train;
    if (o.top_k < 1)
        o.top_k = 1;
    gp_status st = gpi_train_search(req->model, g, &c, w, &o, sr, err);
    if (st || sr->n_top == 0) {
        if (st == GP_OK || st == GP_EINVAL) {
            note(out, "%s in %s: %s", g->id, gp_dtype_name(w->dtype),
                 sr->n_reasons ? sr->reasons[0].message
                 : st          ? err->msg
                               : "no layout fits");
            gp_error_clear(err);
            st = GP_OK;
        }
        free(sr);
        return st;
    }
    memset(s, 0, sizeof *s);
    s->gpu = g;
    s->dtype = w->dtype;
    s->layout = sr->top[0].layout;
    s->train = sr->top[0].perf;
    s->memory = sr->top[0].memory;
    s->gpus_total = s->train.gpus > 0 ? s->train.gpus : gp_layout_gpus(&s->layout);
    s->replicas = 1;
    free(sr);
    /* checkpoint: full training writes weights + optimizer state (master weights and moments);
     * LoRA/QLoRA only the adapters' state, which is what the optimizer memory holds */
    /* optimizer bytes per parameter as gpuplan.h's gp_optimizer documents them */
    static const double opt_bytes[GP_OPT_COUNT] = {12.0, 6.0, 8.0, 4.0};
    double ckpt;
    if (w->task == GP_TASK_TRAIN)
        ckpt = (double)gp_model_weight_bytes(req->model, w->dtype) +
               (double)gp_model_total_params(req->model) *
                   opt_bytes[(unsigned)w->optimizer < GP_OPT_COUNT ? w->optimizer : 0];
    else
        ckpt = (double)s->memory.optimizer * s->layout.tp * s->layout.pp;
    st = gpi_train_reliability_estimate(&req->reliability, s->gpus_total, s->train.time_to_train_s, ckpt, &s->train_rel,
                                        err);
    if (st)
        return st;
    *found = 1;
    return GP_OK;
}

static int cmp_options(const void *a, const void *b, int serving)
{
    const gp_plan_option *x = a, *y = b;
    double cx = serving ? x->cost.total : x->cost.per_run, cy = serving ? y->cost.total : y->cost.per_run;
    if (cx != cy)
        return cx < cy ? -1 : 1;
    if (x->gpus_total != y->gpus_total)
        return x->gpus_total < y->gpus_total ? -1 : 1;
    return strcmp(x->deployment.id, y->deployment.id);
}
static int cmp_serving(const void *a, const void *b)
{
    return cmp_options(a, b, 1);
}
static int cmp_training(const void *a, const void *b)
{
    return cmp_options(a, b, 0);
}

static int same_setup(const gp_plan_option *a, const gp_plan_option *b)
{
    return !strcmp(a->gpu, b->gpu) && a->dtype == b->dtype && a->gpus_total == b->gpus_total &&
           a->layout.tp == b->layout.tp && a->replicas == b->replicas;
}

/* Owned options: the month owning breaks even with renting the same setup, against the
 * cheapest rental (cloud or bare metal) the data rules allow: an excluded rental is not an
 * alternative anyone could pick. No allowed rental: no break-even (break_even_vs ""). */
static void break_even(gp_plan_option *list, int n, gp_plan_option *all, int n_all)
{
    for (int i = 0; i < n; i++) {
        gp_plan_option *o = &list[i];
        if (o->deployment.kind != GP_DEPLOY_OWNED)
            continue;
        const gp_plan_option *best = NULL;
        for (int j = 0; j < n_all; j++) {
            const gp_plan_option *c = &all[j];
            if (c->deployment.kind != GP_DEPLOY_OWNED && c->compliance.allowed && same_setup(o, c) &&
                (!best || c->cost.total < best->cost.total))
                best = c;
        }
        if (best) {
            o->break_even_month = gpi_cost_break_even_month(&o->cost, &best->cost);
            gpi_strlcpy(o->break_even_vs, best->deployment.id, sizeof o->break_even_vs);
        }
    }
}

/* Consumer GPUs stay out of production plans (a spare or an availability target was asked)
 * even under a profile without a datacenter_gpu rule: gpuplan adds its own rule, so the
 * exclusion names a reason and a citation like every other. --allow-consumer lifts it. */
static void production_rule(const gp_plan_request *req, gp_plan_result *out)
{
    gp_profile *p = &out->profile;
    int has = 0;
    for (int i = 0; i < p->n_rules; i++)
        has |= p->rules[i].kind == GP_RULE_DATACENTER_GPU;
    if (has || req->allow_consumer || !out->serving || (out->redundancy < 1 && req->availability <= 0) ||
        p->n_rules >= GP_PROFILE_MAX_RULES)
        return;
    gp_rule *r = &p->rules[p->n_rules++];
    memset(r, 0, sizeof *r);
    gpi_strlcpy(r->id, "production.datacenter_gpu", sizeof r->id);
    r->kind = GP_RULE_DATACENTER_GPU;
    gpi_strlcpy(
        r->citation,
        "NVIDIA 'License For Customer Use of NVIDIA GeForce Software', section 2.1.3 (No Datacenter Deployment)",
        sizeof r->citation);
    gpi_strlcpy(r->citation_pt,
                "Licença da NVIDIA para uso do software GeForce, seção 2.1.3 (proibição de uso em datacenter)",
                sizeof r->citation_pt);
    gpi_strlcpy(r->url, "https://www.nvidia.com/en-us/drivers/geforce-license/", sizeof r->url);
    gpi_strlcpy(r->text_en,
                "A production service (spares or an availability target were asked) runs on datacenter GPUs: consumer "
                "GeForce cards carry a driver licence that excludes datacenter deployment and lack datacenter ECC and "
                "NVLink. Use --allow-consumer to include them.",
                sizeof r->text_en);
    gpi_strlcpy(r->text_pt,
                "Um serviço em produção (com réplicas de reserva ou meta de disponibilidade) roda em GPUs de "
                "datacenter: as placas GeForce de consumo têm licença de driver que proíbe o uso em datacenter e não "
                "têm ECC nem NVLink de datacenter. Use --allow-consumer para incluí-las.",
                sizeof r->text_pt);
}

static int deployment_wanted(const gp_plan_request *req, const gp_deployment *d)
{
    if (req->n_deployments <= 0)
        return 1;
    for (int i = 0; i < req->n_deployments && i < GP_PRICES_MAX_DEPLOYMENTS; i++)
        if (gpi_strcaseeq(req->deployments[i], d->id))
            return 1;
    return 0;
}

gpi_export_target gpi_plan_launch_job(const gp_catalog *cat, const gp_plan_request *req, const gp_plan_result *res,
                                      int option, gpi_export_job *job, gp_workload *w, gp_layout *l)
{
    const gp_plan_option *o = &res->options[option];
    *w = req->w;
    w->dtype = o->dtype;
    gpi_export_target eng = GPI_EXPORT_VLLM;
    if (!res->serving)
        eng = GPI_EXPORT_MEGATRON;
    else if (w->engine == GP_ENGINE_SGLANG)
        eng = GPI_EXPORT_SGLANG;
    else if (w->engine == GP_ENGINE_TRTLLM)
        eng = GPI_EXPORT_TRTLLM;
    if (res->serving) /* the engine must admit the longest request */
        w->context = (int64_t)(req->traffic.prompt.max > 0 ? req->traffic.prompt.max : req->traffic.prompt.mean) +
                     (int64_t)(req->traffic.output.max > 0 ? req->traffic.output.max : req->traffic.output.mean);
    *l = o->layout;
    if (res->serving)
        l->dp = 1; /* one replica's command; replicas run it on separate nodes */
    gpi_export_job_defaults(job);
    job->model = req->model;
    job->w = w;
    job->l = l;
    const gp_gpu *g = NULL;
    gp_catalog_find_gpu(cat, o->gpu, &g, NULL);
    job->gpu = g;
    job->train_tokens = res->serving ? 0 : req->train.train_tokens;
    if (res->serving) { /* the service: every replica behind one endpoint (docs/export.md) */
        job->replicas = o->replicas > 1 ? o->replicas : 1;
        job->chat = 1;
        job->catalog = cat;
        job->profiles = cat;
        for (int i = 0; i < o->compliance.n_obligations && i < GP_PROFILE_MAX_RULES; i++)
            if (res->profile.rules[o->compliance.obligations[i]].kind == GP_RULE_AUDIT_LOGGING)
                job->audit_log = 1;
    }
    return eng;
}

/* The request's own bounds: horizon and token counts (before any cast of them). */
static gp_status check_request(const gp_plan_request *req, gp_error *err)
{
    if (req->horizon_months < 1 || req->horizon_months > GP_COST_MAX_MONTHS) {
        gpi_error_set_field(err, "horizon_months");
        return gpi_fail(err, GP_EINVAL, "horizon_months must be 1 to %d, not %d", GP_COST_MAX_MONTHS,
                        req->horizon_months);
    }
    /* token counts before any cast of them (docs/reliability.md, "Limits") */
    const gp_length_spec *ls[2] = {&req->traffic.prompt, &req->traffic.output};
    for (int i = 0; i < 2; i++)
        if (!(ls[i]->mean >= 0 && ls[i]->mean <= (double)GPI_MAX_TOKENS) || ls[i]->min < 0 ||
            ls[i]->min > GPI_MAX_TOKENS || ls[i]->max < 0 || ls[i]->max > GPI_MAX_TOKENS) {
            gpi_error_set_field(err, i ? "output_tokens" : "prompt_tokens");
            return gpi_fail(err, GP_EINVAL, "%s lengths must be 1 to 2^32 (4,294,967,296) tokens",
                            i ? "output" : "prompt");
        }
    return GP_OK;
}

/* Prices, currency, the data profile and the deployments asked; the plan's header fields. */
static gp_status load_terms(const gp_catalog *cat, const gp_plan_request *req, gpi_prices *prices, gp_plan_result *out,
                            gp_error *err)
{
    gp_status st = gpi_prices_load(cat, prices, err);
    if (!st)
        st = gpi_prices_rate(prices, req->currency, &out->per_usd, err);
    if (!st)
        st = gpi_compliance_profile(cat, req->compliance, &out->profile, err);
    if (st)
        return st;
    for (int i = 0; i < req->n_deployments; i++)
        if (!gpi_prices_find_deployment(prices, req->deployments[i])) {
            gpi_error_set_field(err, "deployment");
            return gpi_fail(err, GP_ENOTFOUND, "unknown deployment '%s' (prices.json 'deployments')",
                            req->deployments[i]);
        }
    gpi_strlcpy(out->currency, req->currency[0] ? req->currency : "USD", sizeof out->currency);
    gpi_strlcpy(out->prices_as_of, prices->as_of, sizeof out->prices_as_of);
    out->horizon_months = req->horizon_months;
    out->serving = req->w.task == GP_TASK_INFER;
    int redundancy = req->redundancy;
    if (out->serving && gpi_compliance_redundancy(&out->profile) > redundancy)
        redundancy = gpi_compliance_redundancy(&out->profile);
    out->redundancy = out->serving ? redundancy : 0;
    production_rule(req, out);
    return GP_OK;
}

/* The candidates: the request's GPUs, or every catalog GPU with a price; its precisions, or
 * the workload's ("unknown" is the model's own precision: say which). */
typedef struct candidates {
    const gp_gpu *gpus[GP_PLAN_MAX_GPUS];
    int n_gpus;
    gp_dtype dtypes[GP_PLAN_MAX_DTYPES];
    int n_dtypes;
} candidates;

static void list_candidates(const gp_catalog *cat, const gp_plan_request *req, const gpi_prices *prices, candidates *c)
{
    c->n_gpus = 0;
    for (int i = 0; i < req->n_gpus && c->n_gpus < GP_PLAN_MAX_GPUS; i++)
        c->gpus[c->n_gpus++] = req->gpus[i];
    if (c->n_gpus == 0)
        for (size_t i = 0; i < gp_catalog_gpu_count(cat) && c->n_gpus < GP_PLAN_MAX_GPUS; i++) {
            const gpi_gpu_price *gp = gpi_prices_find_gpu(prices, gp_catalog_gpu_at(cat, i)->id);
            if (gp && gp->on_demand_usd_per_hour > 0)
                c->gpus[c->n_gpus++] = gp_catalog_gpu_at(cat, i);
        }
    c->n_dtypes = 0;
    for (int i = 0; i < req->n_dtypes && i < GP_PLAN_MAX_DTYPES; i++)
        c->dtypes[c->n_dtypes++] = req->dtypes[i];
    if (c->n_dtypes == 0)
        c->dtypes[c->n_dtypes++] = req->w.dtype;
    for (int i = 0; i < c->n_dtypes; i++)
        if (c->dtypes[i] == GP_DTYPE_UNKNOWN)
            c->dtypes[i] = req->model->quant != GP_DTYPE_UNKNOWN ? req->model->quant : req->model->dtype;
}

/* The options being built: every (setup, deployment), allowed or not. */
typedef struct option_list {
    gp_plan_option *v;
    int n;
    double egress_total;
    int egress_n;
} option_list;

/* One option per deployment of the setup, costed and checked against the data rules. */
static gp_status price_setup(const gp_catalog *cat, const gp_plan_request *req, const gpi_prices *prices,
                             const setup *s, gp_plan_result *out, option_list *all, gp_error *err)
{
    double egress = req->egress_tb_per_month >= 0 ? req->egress_tb_per_month
                                                  : s->tokens_per_month * prices->egress_bytes_per_output_token / 1e12;
    all->egress_total += egress;
    all->egress_n++;
    int priced = 0;
    for (int k = 0; k < prices->n_deployments && all->n < GP_PLAN_MAX_OPTIONS * 2; k++) {
        const gp_deployment *d = &prices->deployments[k];
        if (!deployment_wanted(req, d))
            continue;
        gpi_cost_input ci = {s->gpu,
                             s->gpus_total,
                             d,
                             req->horizon_months,
                             egress,
                             s->tokens_per_month,
                             out->serving ? 0 : s->train_rel.time_to_train_s / 3600.0};
        gp_plan_option *o = &all->v[all->n];
        memset(o, 0, sizeof *o);
        gp_status st = gpi_cost_estimate(prices, &ci, out->currency, &o->cost, err);
        if (st)
            return st;
        if (!o->cost.available)
            continue;
        priced++;
        gpi_strlcpy(o->gpu, s->gpu->id, sizeof o->gpu);
        o->dtype = s->dtype;
        o->deployment = *d;
        o->layout = s->layout;
        o->replicas = s->replicas;
        o->gpus_total = s->gpus_total;
        o->memory = s->memory;
        o->serve = s->serve;
        o->throughput_tokens_per_s = out->serving ? s->throughput : s->train.tokens_per_s;
        o->requests_per_s = s->requests_per_s;
        if (out->serving)
            gpi_serve_error_range(cat, req->model, &o->error_p10, &o->error_p90, NULL, 0, NULL);
        o->serve_rel = s->serve_rel;
        o->train = s->train;
        o->train_rel = s->train_rel;
        o->consumer = s->gpu->consumer;
        gpi_compliance_subject cs = {d, s->dtype, out->serving ? s->spares : -1,
                                     s->gpu->consumer && !req->allow_consumer};
        gpi_compliance_check(&out->profile, &cs, &o->compliance);
        all->n++;
    }
    if (!priced)
        note(out, "%s in %s: %s", s->gpu->id, gp_dtype_name(s->dtype),
             "no price for this GPU in any deployment considered (prices.json)");
    return GP_OK;
}

/* Every (precision, GPU): the setup that carries the load, then its options. */
static gp_status evaluate_candidates(const gp_catalog *cat, const gp_plan_request *req, const gpi_prices *prices,
                                     const candidates *c, gp_plan_result *out, option_list *all, gp_error *err)
{
    gp_work *work = out->serving ? req->traffic.work : req->train.work;
    const int total = c->n_dtypes * c->n_gpus;
    for (int di = 0; di < c->n_dtypes; di++) {
        for (int gi = 0; gi < c->n_gpus; gi++) {
            gp_workload w = req->w;
            w.dtype = c->dtypes[di];
            if (out->serving && w.engine == GP_ENGINE_NONE)
                w.engine = GP_ENGINE_VLLM;
            gpi_work_stage(work, 0, "sizing", di * c->n_gpus + gi, total, "%s %s", c->gpus[gi]->id,
                           gp_dtype_name(w.dtype));
            setup s;
            int found = 0;
            gp_status st = out->serving
                               ? serve_setup(cat, req, &w, c->gpus[gi], out->redundancy, prices, out, &s, &found, err)
                               : train_setup(cat, req, &w, c->gpus[gi], out, &s, &found, err);
            if (!st && found)
                st = price_setup(cat, req, prices, &s, out, all, err);
            if (st)
                return st;
        }
    }
    return GP_OK;
}

/* Allowed options ranked (cost, then GPU count), excluded ones apart, owning's break-even. */
static void rank_options(option_list *all, gp_plan_result *out)
{
    out->egress_tb_per_month = all->egress_n ? all->egress_total / all->egress_n : 0;
    break_even(all->v, all->n, all->v, all->n);
    for (int i = 0; i < all->n; i++) {
        if (all->v[i].compliance.allowed && out->n_options < GP_PLAN_MAX_OPTIONS)
            out->options[out->n_options++] = all->v[i];
        else if (!all->v[i].compliance.allowed && out->n_excluded < GP_PLAN_MAX_OPTIONS)
            out->excluded[out->n_excluded++] = all->v[i];
    }
    qsort(out->options, (size_t)out->n_options, sizeof out->options[0], out->serving ? cmp_serving : cmp_training);
    qsort(out->excluded, (size_t)out->n_excluded, sizeof out->excluded[0], out->serving ? cmp_serving : cmp_training);
    for (int i = 0; i < out->n_options; i++)
        out->options[i].rank = i + 1;
    if (out->n_options > 0)
        out->recommended = 0;
}

/* The recommended option's launch command (docs/export.md), or a note saying why not. */
static void launch_command(const gp_catalog *cat, const gp_plan_request *req, gp_plan_result *out)
{
    if (out->n_options <= 0)
        return;
    gp_workload w;
    gp_layout l;
    gpi_export_job job;
    gpi_export_target eng = gpi_plan_launch_job(cat, req, out, out->recommended, &job, &w, &l);
    gp_error local;
    gp_error_clear(&local);
    if (gpi_export_command(eng, &job, out->launch_command, sizeof out->launch_command, &local) == GP_OK)
        gpi_strlcpy(out->launch_engine, gpi_export_engine_name(eng), sizeof out->launch_engine);
    else {
        out->launch_command[0] = 0;
        note(out, "launch command not generated: %s", local.msg);
    }
}

gp_status gpi_plan(const gp_catalog *cat, const gp_plan_request *req, gp_plan_result *out, gp_error *err)
{
    gp_error_clear(err);
    memset(out, 0, sizeof *out);
    out->recommended = -1;
    if (!cat || !req || !req->model)
        return gpi_fail(err, GP_EINVAL, "plan: a catalog, a request and a model are needed");
    gp_status st = check_request(req, err);
    if (st)
        return st;
    /* one budget for every search of the plan (docs/reliability.md, "Bounded work") */
    gp_work local_work;
    gp_plan_request local_req;
    if (!req->traffic.work || !req->train.work) {
        gpi_work_init(&local_work, 0);
        local_req = *req;
        gp_work *wk = req->traffic.work ? req->traffic.work : req->train.work ? req->train.work : &local_work;
        local_req.traffic.work = local_req.train.work = wk;
        req = &local_req;
    }
    gpi_prices *prices = calloc(1, sizeof *prices);
    candidates *c = calloc(1, sizeof *c);
    option_list all = {calloc(GP_PLAN_MAX_OPTIONS * 2, sizeof *all.v), 0, 0, 0};
    if (!prices || !c || !all.v)
        st = gpi_fail(err, GP_ENOMEM, "out of memory planning");
    if (!st)
        st = load_terms(cat, req, prices, out, err);
    if (!st) {
        list_candidates(cat, req, prices, c);
        st = evaluate_candidates(cat, req, prices, c, out, &all, err);
    }
    if (!st) {
        rank_options(&all, out);
        out->pue = prices->pue;
        gpi_plan_decide(prices, out);
        launch_command(cat, req, out);
    }
    free(all.v);
    free(c);
    free(prices);
    return st;
}
