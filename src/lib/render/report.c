/*
 * report.c: a plan as text, JSON, Markdown or one self-contained HTML file (inline CSS and
 * SVG charts from svg.c; no scripts, fonts, images or links to fetch), in English or
 * Brazilian Portuguese. Renders into memory; the caller writes it where it wants.
 */
#include "json.h"
#include "messages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- words ------------------------------------------------------------------------------- */

typedef struct words {
    const char *title, *profile, *currency, *horizon, *months, *prices_as_of, *options_serve, *options_train,
        *excluded, *recommended, *rank, *gpu, *precision, *deployment, *setup, *gpus, *ttft, *throughput,
        *train_time, *monthly, *total, *per_mtok, *per_run, *break_even, *never, *rule, *citation, *notes,
        *launch, *disclaimer, *memory_chart, *cost_chart, *scaling_chart, *month_axis, *cost_axis, *gpus_axis,
        *tokens_axis, *bytes_axis, *capacity, *obligations, *reliability, *no_options, *upfront, *vs,
        *replicas_word, *spares, *availability, *interruptions, *ckpt, *overhead, *egress, *charts, *why,
        *likely, *tok_s;
    const char *components[6];
} words;

static const words en = {
    "GPU plan", "Data profile", "Currency", "Horizon", "months", "Prices as of",
    "Options, ranked by total cost over the horizon", "Options, ranked by cost per training run",
    "Excluded by the data rules", "Recommended", "#", "GPU", "Precision", "Deployment", "Setup", "GPUs",
    "p99 TTFT", "Output tokens/s", "Time to train", "Per month", "Total", "Per million tokens", "Per run",
    "Owning breaks even", "not within the horizon", "Rule", "Citation", "Notes", "Launch command",
    "Disclaimer", "Memory per GPU by component", "Cumulative cost: renting vs owning",
    "Throughput vs GPU count", "month", "cumulative cost", "GPUs", "output tokens/s", "bytes per GPU",
    "device memory", "Obligations", "Reliability", "No option is allowed: every setup breaks a data rule or has no price.",
    "upfront", "vs", "replicas", "spare", "availability", "expected interruptions", "checkpoint every",
    "failure overhead", "egress", "Charts", "Why",
    "Likely (10th-90th percentile of the error on published runs):", "output tokens/s",
    {"weights", "KV cache", "activations", "gradients", "optimizer", "overhead"},
};

static const words pt = {
    "Plano de GPUs", "Perfil de dados", "Moeda", "Horizonte", "meses", "Preços de",
    "Opções, ordenadas pelo custo total no horizonte", "Opções, ordenadas pelo custo por treinamento",
    "Excluídas pelas regras de dados", "Recomendada", "#", "GPU", "Precisão", "Implantação", "Configuração",
    "GPUs", "TTFT p99", "Tokens de saída/s", "Tempo de treino", "Por mês", "Total", "Por milhão de tokens",
    "Por treinamento", "Comprar se paga em", "fora do horizonte", "Regra", "Fonte", "Observações",
    "Comando de execução", "Aviso", "Memória por GPU por componente", "Custo acumulado: alugar vs comprar",
    "Vazão vs número de GPUs", "mês", "custo acumulado", "GPUs", "tokens de saída/s", "bytes por GPU",
    "memória do dispositivo", "Obrigações", "Confiabilidade",
    "Nenhuma opção permitida: toda configuração viola uma regra de dados ou não tem preço.",
    "investimento inicial", "vs", "réplicas", "reserva", "disponibilidade", "interrupções esperadas",
    "checkpoint a cada", "sobrecarga de falhas", "tráfego de saída", "Gráficos", "Motivo",
    "Provável (percentis 10-90 do erro em execuções publicadas):", "tokens de saída/s",
    {"pesos", "cache KV", "ativações", "gradientes", "otimizador", "sobrecarga"},
};

static int is_pt(const gp_report_opts *o) { return o && o->lang && (o->lang[0] == 'p' || o->lang[0] == 'P'); }

static const char *dep_name_pt(const char *kind)
{
    return !strcmp(kind, "cloud") ? "nuvem" : !strcmp(kind, "baremetal") ? "bare metal dedicado" : "próprio";
}

static void question(char *out, size_t n, const gp_plan_request *req, const gp_plan_result *res, int pt_br)
{
    const char *model = req->model ? (req->model->name[0] ? req->model->name : req->model->id) : "?";
    if (!res->serving) {
        snprintf(out, n, pt_br ? "Treinar %s com %.3g tokens" : "Train %s on %.3g tokens", model, req->train.train_tokens);
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
        snprintf(ttft, sizeof ttft, ", TTFT p99 <= %s s", gpi_fmt_num(v, sizeof v, req->slo.ttft_s, req->slo.ttft_s < 1 ? 2 : 1, pt_br));
    if (req->slo.tpot_s > 0)
        snprintf(tpot, sizeof tpot, ", TPOT p99 <= %s s", gpi_fmt_num(v, sizeof v, req->slo.tpot_s, 3, pt_br));
    snprintf(out, n, pt_br ? "Servir %s a %s (%.0f + %.0f tokens)%s%s" : "Serve %s to %s (%.0f + %.0f tokens)%s%s", model,
             load, t->prompt.mean, t->output.mean, ttft, tpot);
}

static const char *rule_text(const gp_rule *r, int pt_br) { return pt_br ? r->text_pt : r->text_en; }
static const char *cite(const gp_rule *r, int pt_br) { return pt_br && r->citation_pt[0] ? r->citation_pt : r->citation; }

static void setup_str(char *out, size_t n, const gp_plan_option *o, int serving, const words *W)
{
    if (serving)
        snprintf(out, n, "%d x TP%d (%d %s)", o->replicas, o->layout.tp, o->serve_rel.spares, W->spares);
    else
        snprintf(out, n, "TP%d PP%d DP%d ZeRO-%d", o->layout.tp, o->layout.pp, o->layout.dp, o->layout.zero);
}

static const char *break_even_str(char *out, size_t n, const gp_plan_option *o, const words *W)
{
    if (o->deployment.kind != GP_DEPLOY_OWNED || !o->break_even_vs[0])
        snprintf(out, n, "-");
    else if (o->break_even_month > 0)
        snprintf(out, n, "%s %d %s %s", W->month_axis, o->break_even_month, W->vs, o->break_even_vs);
    else
        snprintf(out, n, "%s (%s %s)", W->never, W->vs, o->break_even_vs);
    return out;
}

/* ---- JSON (interface.md "plan") -------------------------------------------------------- */

static json_t *rule_json(const gp_rule *r, int pt_br)
{
    return json_pack("{ss ss ss ss ss}", "rule", r->id, "kind", gp_rule_kind_name(r->kind), "citation", cite(r, pt_br),
                     "url", r->url, "text", rule_text(r, pt_br));
}

static json_t *option_json(const gp_plan_result *res, const gp_plan_option *o, int pt_br)
{
    const gp_deployment *d = &o->deployment;
    json_t *hw = json_pack("{ss ss si s{ss ss ss ss sb sb}}", "gpu", o->gpu, "dtype", gp_dtype_name(o->dtype),
                           "gpus_total", o->gpus_total, "deployment", "id", d->id, "name", d->name, "kind",
                           gp_deploy_kind_name(d->kind), "country", d->country, "shared", d->shared, "audit_logging",
                           d->audit_logging);
    json_t *layout = json_pack("{si si si si si si si ss}", "tp", o->layout.tp, "pp", o->layout.pp, "dp", o->layout.dp,
                               "cp", o->layout.cp, "ep", o->layout.ep, "replicas", o->replicas, "gpus_total",
                               o->gpus_total, "recompute", gp_recompute_name(o->layout.recompute));
    json_object_set_new(layout, "zero", json_integer(o->layout.zero));
    const gp_memory *m = &o->memory;
    json_t *memory = json_pack("{sI sI s{sI sI sI sI sI sI}}", "per_gpu_bytes", (json_int_t)m->per_gpu,
                               "capacity_bytes", (json_int_t)m->capacity, "components", "weights",
                               (json_int_t)m->weights, "kv_cache", (json_int_t)m->kv_cache, "activations",
                               (json_int_t)m->activations, "gradients", (json_int_t)m->gradients, "optimizer",
                               (json_int_t)m->optimizer, "overhead", (json_int_t)m->overhead);
    json_t *perf;
    if (res->serving) {
        perf = json_pack("{sf sf sf sf sf sf sf sf}", "ttft_p50_s", o->serve.sim.ttft.p50, "ttft_p99_s",
                         o->serve.sim.ttft.p99, "tpot_p50_s", o->serve.sim.tpot.p50, "tpot_p99_s", o->serve.sim.tpot.p99,
                         "throughput_tokens_per_s", o->throughput_tokens_per_s, "requests_per_s", o->requests_per_s,
                         "max_concurrency", o->serve.max_concurrency, "slo_attainment", o->serve.sim.slo_attainment);
        /* the likely range (docs/serving.md, "Ranges") */
        const struct { const char *key; double v; int rate; } f[] = {
            {"ttft_p50_s", o->serve.sim.ttft.p50, 0}, {"ttft_p99_s", o->serve.sim.ttft.p99, 0},
            {"tpot_p50_s", o->serve.sim.tpot.p50, 0}, {"tpot_p99_s", o->serve.sim.tpot.p99, 0},
            {"throughput_tokens_per_s", o->throughput_tokens_per_s, 1}, {"requests_per_s", o->requests_per_s, 1},
        };
        for (size_t i = 0; perf && i < sizeof f / sizeof f[0]; i++)
            gpi_json_serve_range(perf, f[i].key, f[i].v, f[i].rate, o->error_p10, o->error_p90);
    } else
        perf = json_pack("{sf sf sf sf sf sf}", "step_time_s", o->train.step_time_s, "tokens_per_s",
                         o->train.tokens_per_s, "mfu", o->train.mfu, "time_to_train_s", o->train.time_to_train_s,
                         "time_to_train_with_failures_s", o->train_rel.time_to_train_s, "model_tflops_per_gpu",
                         o->train.model_tflops_per_gpu);
    const gp_cost *c = &o->cost;
    json_t *cumulative = json_array();
    for (int i = 0; i <= c->months; i++)
        json_array_append_new(cumulative, json_real(c->cumulative[i]));
    json_t *cost = json_pack("{ss sf ss ss sf sf sf sf sf sf sf sf sf sf sf sf si ss so}", "currency", c->currency,
                             "per_usd", c->per_usd, "kind", gp_deploy_kind_name(c->kind), "pricing",
                             c->kind == GP_DEPLOY_OWNED ? "owned" : c->reserved ? "reserved" : "on-demand",
                             "gpu_hour_on_demand", c->gpu_hour_on_demand, "gpu_hour_reserved", c->gpu_hour_reserved,
                             "hourly", c->hourly, "upfront", c->upfront, "monthly", c->monthly, "monthly_amortized",
                             c->monthly_amortized, "power_monthly", c->power_monthly, "hosting_monthly",
                             c->hosting_monthly, "egress_monthly", c->egress_monthly, "total", c->total,
                             "per_million_tokens", c->per_million_tokens, "per_run", c->per_run, "horizon_months",
                             c->months, "break_even_vs", o->break_even_vs, "cumulative", cumulative);
    json_object_set_new(cost, "break_even_month", o->break_even_month > 0 ? json_integer(o->break_even_month) : json_null());
    /* investment and running cost apart (capex / opex), and what to buy or rent */
    json_object_set_new(cost, "capex", json_real(c->upfront));
    json_object_set_new(cost, "opex_monthly", json_real(c->monthly));
    json_object_set_new(hw, "servers", json_integer(c->servers));
    json_object_set_new(hw, "gpus_per_server", json_integer(c->gpus_per_server));
    json_object_set_new(hw, "rack_units", json_integer(c->rack_units));
    json_object_set_new(hw, "power_kw", json_real(c->power_kw));
    json_object_set_new(hw, "consumer", json_boolean(o->consumer));
    json_object_set_new(json_object_get(hw, "deployment"), "name_pt", json_string(d->name_pt[0] ? d->name_pt : d->name));
    json_t *violated = json_array(), *oblig = json_array();
    for (int i = 0; i < o->compliance.n_violated; i++)
        json_array_append_new(violated, rule_json(&res->profile.rules[o->compliance.violated[i]], pt_br));
    for (int i = 0; i < o->compliance.n_obligations; i++)
        json_array_append_new(oblig, rule_json(&res->profile.rules[o->compliance.obligations[i]], pt_br));
    json_t *comp = json_pack("{ss sb so so}", "profile", res->profile.id, "allowed", o->compliance.allowed, "violated",
                             violated, "obligations", oblig);
    json_t *rel;
    if (res->serving)
        rel = json_pack("{sf si si sf sf}", "replica_availability", o->serve_rel.replica_availability,
                        "serving_replicas", o->serve_rel.serving, "spare_replicas", o->serve_rel.spares,
                        "availability", o->serve_rel.availability, "target", o->serve_rel.target);
    else
        rel = json_pack("{sf sf sf sf sf}", "job_mtbf_s", isfinite(o->train_rel.job_mtbf_s) ? o->train_rel.job_mtbf_s : 0.0,
                        "expected_interruptions", o->train_rel.expected_interruptions, "checkpoint_s",
                        o->train_rel.checkpoint_s, "checkpoint_interval_s", o->train_rel.checkpoint_interval_s,
                        "overhead_fraction", o->train_rel.overhead_fraction);
    json_t *opt = json_pack("{si so so so so so so so}", "rank", o->rank, "hardware", hw, "layout", layout, "memory",
                            memory, "perf", perf, "cost", cost, "compliance", comp, "reliability", rel);
    if (!o->compliance.allowed && o->compliance.n_violated > 0) {
        const gp_rule *r = &res->profile.rules[o->compliance.violated[0]];
        json_object_set_new(opt, "rule", json_string(r->id));
        json_object_set_new(opt, "citation", json_string(cite(r, pt_br)));
        json_object_set_new(opt, "reason", json_string(rule_text(r, pt_br)));
    }
    return opt;
}

/* The decision around the recommendation (plan.h "the decision"): indexes become the
 * options' ranks, or the excluded option's deployment and rule. */
static json_t *ref_json(const gp_plan_result *res, int option, int excluded)
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

static json_t *decision_json(const gp_plan_result *res)
{
    json_t *alts = json_object(), *risks = json_array(), *rules = json_array();
    for (int k = 0; k < GP_ALT_KIND_COUNT; k++) {
        const gp_plan_alternative *a = &res->alternatives[k];
        json_t *j = json_pack("{so}", "option", ref_json(res, a->option, a->excluded));
        json_object_set_new(j, "extra", a->option >= 0 ? json_real(a->extra) : json_null());
        json_object_set_new(j, "break_even_month", a->break_even_month > 0 ? json_integer(a->break_even_month)
                                                   : a->break_even_month == 0 ? json_integer(0) : json_null());
        json_object_set_new(alts, gp_alt_kind_name(a->kind), j);
    }
    for (int i = 0; i < res->n_risks; i++) {
        const gp_plan_risk *r = &res->risks[i];
        json_array_append_new(risks, json_pack("{ss sf sf sf sb si}", "risk", gp_risk_kind_name(r->kind), "parameter",
                                               r->parameter, "size", r->size, "runner_up_size", r->alt_size, "flips",
                                               r->flips, "low_confidence", r->low_confidence));
    }
    for (int i = 0; i < res->n_rule_prices; i++) {
        const gp_plan_rule_price *rp = &res->rule_prices[i];
        json_array_append_new(rules, json_pack("{ss so so}", "rule", res->profile.rules[rp->rule].id, "cheapest_excluded",
                                               ref_json(res, -1, rp->excluded), "price",
                                               rp->priced ? json_real(rp->saving) : json_null()));
    }
    return json_pack("{so so so so}", "alternatives", alts, "runner_up", ref_json(res, res->runner_up, -1), "risks",
                     risks, "rule_prices", rules);
}

static json_t *plan_json(const gp_plan_request *req, const gp_plan_result *res, const gp_report_opts *opts)
{
    int pt_br = is_pt(opts);
    char q[512];
    question(q, sizeof q, req, res, pt_br);
    json_t *options = json_array(), *excluded = json_array(), *notes = json_array(), *points = json_array();
    for (int i = 0; i < res->n_options; i++)
        json_array_append_new(options, option_json(res, &res->options[i], pt_br));
    for (int i = 0; i < res->n_excluded; i++)
        json_array_append_new(excluded, option_json(res, &res->excluded[i], pt_br));
    for (int i = 0; i < res->n_notes; i++)
        json_array_append_new(notes, json_string(res->notes[i]));
    for (int i = 0; i < res->n_points; i++)
        json_array_append_new(points, json_pack("{ss ss si sf sb}", "gpu", res->points[i].gpu, "dtype",
                                                gp_dtype_name(res->points[i].dtype), "gpus", res->points[i].gpus,
                                                "throughput_tokens_per_s", res->points[i].throughput_tokens_per_s,
                                                "meets", res->points[i].meets));
    json_t *rec = res->recommended >= 0 ? option_json(res, &res->options[res->recommended], pt_br) : json_null();
    json_t *j = json_pack("{ss ss ss s{ss ss ss} ss sf si ss sf si so so so so so s{ss ss} ss}", "question",
                     opts && opts->question ? opts->question : q, "task", res->serving ? "serve" : "train", "model",
                     req->model ? req->model->id : "", "profile", "id", res->profile.id, "name",
                     pt_br ? res->profile.name_pt : res->profile.name_en, "jurisdiction", res->profile.jurisdiction,
                     "currency", res->currency, "per_usd", res->per_usd, "horizon_months", res->horizon_months,
                     "prices_as_of", res->prices_as_of, "egress_tb_per_month", res->egress_tb_per_month, "redundancy",
                     res->redundancy, "options", options, "excluded", excluded, "recommended", rec, "notes", notes,
                     "scaling", points, "launch", "engine", res->launch_engine, "command", res->launch_command,
                     "disclaimer", pt_br ? res->profile.disclaimer_pt : res->profile.disclaimer_en);
    if (j && res->recommended >= 0)
        json_object_set_new(j, "decision", decision_json(res));
    return j;
}

/* ---- text and Markdown ------------------------------------------------------------------ */

static void rows(gpi_buf *b, const gp_plan_result *res, const gp_plan_option *list, int n, int md, const words *W,
                 int pt_br, int excluded)
{
    char a[64], c[64], e[64], f[96], s[64];
    if (md) {
        gpi_buf_printf(b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", excluded ? W->rule : W->rank,
                       W->gpu, W->precision, W->deployment, W->setup, W->gpus, res->serving ? W->ttft : W->train_time,
                       W->upfront, W->monthly, W->total, res->serving ? W->per_mtok : W->per_run, W->break_even);
        gpi_buf_printf(b, "|---|---|---|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    } else {
        gpi_buf_printf(b, "  %-26s %-16s %-9s %-15s %-18s %5s %9s %16s %14s %16s %18s  %s\n", excluded ? W->rule : W->rank,
                       W->gpu, W->precision, W->deployment, W->setup, W->gpus, res->serving ? W->ttft : W->train_time,
                       W->upfront, W->monthly, W->total, res->serving ? W->per_mtok : W->per_run, W->break_even);
    }
    for (int i = 0; i < n; i++) {
        const gp_plan_option *o = &list[i];
        char first[80];
        if (excluded)
            snprintf(first, sizeof first, "%s", res->profile.rules[o->compliance.violated[0]].id);
        else
            snprintf(first, sizeof first, "%d", o->rank);
        setup_str(s, sizeof s, o, res->serving, W);
        char lat[32];
        if (res->serving)
            (void)gpi_fmt_num(lat, sizeof lat - 3, o->serve.sim.ttft.p99, 3, pt_br), strcat(lat, " s");
        else
            (void)gpi_fmt_num(lat, sizeof lat - 3, o->train_rel.time_to_train_s / 86400, 1, pt_br), strcat(lat, " d");
        gpi_fmt_money(a, sizeof a, o->cost.monthly, res->currency, pt_br);
        gpi_fmt_money(c, sizeof c, o->cost.total, res->currency, pt_br);
        gpi_fmt_money(e, sizeof e, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
        char u[64];
        if (o->cost.upfront > 0)
            gpi_fmt_money(u, sizeof u, o->cost.upfront, res->currency, pt_br);
        else
            snprintf(u, sizeof u, "-");
        break_even_str(f, sizeof f, o, W);
        if (md)
            gpi_buf_printf(b, "| %s | %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", first, o->gpu,
                           gp_dtype_name(o->dtype), o->deployment.id, s, o->gpus_total, lat, u, a, c, e, f);
        else
            gpi_buf_printf(b, "  %-26s %-16s %-9s %-15s %-18s %5d %9s %16s %14s %16s %18s  %s\n", first, o->gpu,
                           gp_dtype_name(o->dtype), o->deployment.id, s, o->gpus_total, lat, u, a, c, e, f);
    }
}

static void render_text(gpi_buf *b, const gp_plan_request *req, const gp_plan_result *res, const gp_report_opts *opts,
                        int md)
{
    int pt_br = is_pt(opts);
    const words *W = pt_br ? &pt : &en;
    char q[512];
    question(q, sizeof q, req, res, pt_br);
    const char *h1 = md ? "# " : "", *h2 = md ? "\n## " : "\n";
    gpi_buf_printf(b, "%s%s: %s\n\n", h1, opts && opts->title ? opts->title : W->title, opts && opts->question ? opts->question : q);
    char rate[32];
    gpi_fmt_num(rate, sizeof rate, res->per_usd, 4, pt_br);
    gpi_buf_printf(b, "%s%s: %s (%s)%s%s: %s (1 USD = %s %s)%s%s: %d %s%s%s: %s\n", md ? "- " : "", W->profile,
                   res->profile.id, pt_br ? res->profile.name_pt : res->profile.name_en, md ? "\n- " : "; ",
                   W->currency, res->currency, rate, res->currency, md ? "\n- " : "; ", W->horizon,
                   res->horizon_months, W->months, md ? "\n- " : "; ", W->prices_as_of, res->prices_as_of);
    gpi_render_decision(b, res, pt_br, md ? 1 : 0);
    if (res->recommended >= 0) {
        const gp_plan_option *o = &res->options[res->recommended];
        char s[64], t[64], m[64];
        setup_str(s, sizeof s, o, res->serving, W);
        gpi_fmt_money(t, sizeof t, o->cost.total, res->currency, pt_br);
        gpi_fmt_money(m, sizeof m, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
        gpi_buf_printf(b, "%s%s: %s %s, %s (%s), %s = %d GPUs; %s %s / %d %s; %s %s\n", h2, W->recommended,
                       o->gpu, gp_dtype_name(o->dtype), o->deployment.id,
                       pt_br ? dep_name_pt(gp_deploy_kind_name(o->deployment.kind)) : gp_deploy_kind_name(o->deployment.kind),
                       s, o->gpus_total, W->total, t, res->horizon_months, W->months,
                       res->serving ? W->per_mtok : W->per_run, m);
        if (res->serving) {
            double lo = 1.0 + o->error_p10, hi = 1.0 + o->error_p90;
            char t1[32], t2[32], l1[32], l2[32];
            gpi_buf_printf(b, "%s%s %s-%s %s, p99 TTFT %s-%s s\n", md ? "\n" : "  ", W->likely,
                           gpi_fmt_num(t1, sizeof t1, o->throughput_tokens_per_s / hi, 0, pt_br),
                           gpi_fmt_num(t2, sizeof t2, o->throughput_tokens_per_s / lo, 0, pt_br), W->tok_s,
                           gpi_fmt_num(l1, sizeof l1, o->serve.sim.ttft.p99 * lo, 3, pt_br),
                           gpi_fmt_num(l2, sizeof l2, o->serve.sim.ttft.p99 * hi, 3, pt_br));
        }
        if (res->launch_command[0])
            gpi_buf_printf(b, "%s%s (%s):\n%s%s\n%s", md ? "\n" : "  ", W->launch, res->launch_engine,
                           md ? "\n```sh\n" : "    ", res->launch_command, md ? "```\n" : "");
    }
    gpi_buf_printf(b, "%s%s\n%s", h2, res->serving ? W->options_serve : W->options_train, md ? "\n" : "");
    if (res->n_options)
        rows(b, res, res->options, res->n_options, md, W, pt_br, 0);
    else
        gpi_buf_printf(b, "  %s\n", W->no_options);
    if (res->n_excluded) {
        gpi_buf_printf(b, "%s%s\n%s", h2, gpi_msg(MSG_APPENDIX, pt_br), md ? "\n" : "");
        rows(b, res, res->excluded, res->n_excluded, md, W, pt_br, 1);
        /* each rule that excluded something, once, with its citation */
        gpi_buf_printf(b, "%s", md ? "\n" : "\n");
        for (int r = 0; r < res->profile.n_rules; r++) {
            int used = 0;
            for (int i = 0; i < res->n_excluded && !used; i++)
                for (int k = 0; k < res->excluded[i].compliance.n_violated; k++)
                    used |= res->excluded[i].compliance.violated[k] == r;
            if (!used)
                continue;
            const gp_rule *rule = &res->profile.rules[r];
            gpi_buf_printf(b, "%s[%s] %s (%s: %s)\n", md ? "- " : "  - ", rule->id, rule_text(rule, pt_br), W->citation,
                           cite(rule, pt_br));
        }
    }
    int any_oblig = 0;
    for (int r = 0; r < res->profile.n_rules; r++)
        if (res->profile.rules[r].kind == GP_RULE_AUDIT_LOGGING) {
            if (!any_oblig++)
                gpi_buf_printf(b, "%s%s\n%s", h2, W->obligations, md ? "\n" : "");
            gpi_buf_printf(b, "%s[%s] %s (%s)\n", md ? "- " : "  - ", res->profile.rules[r].id,
                           rule_text(&res->profile.rules[r], pt_br), cite(&res->profile.rules[r], pt_br));
        }
    if (res->recommended >= 0) {
        const gp_plan_option *o = &res->options[res->recommended];
        gpi_buf_printf(b, "%s%s\n%s", h2, W->reliability, md ? "\n" : "");
        if (res->serving)
        {
            char av[32];
            gpi_fmt_num(av, sizeof av - 2, o->serve_rel.availability * 100, 4, pt_br);
            strcat(av, "%");
            gpi_buf_printf(b, "%s%d %s + %d %s; %s %s\n", md ? "- " : "  ", o->serve_rel.serving, W->replicas_word,
                           o->serve_rel.spares, W->spares, W->availability, av);
        }
        else
            gpi_buf_printf(b, "%s%s %.1f; %s %.0f s; %s %.1f%%\n", md ? "- " : "  ", W->interruptions,
                           o->train_rel.expected_interruptions, W->ckpt, o->train_rel.checkpoint_interval_s, W->overhead,
                           o->train_rel.overhead_fraction * 100);
    }
    if (res->n_notes) {
        gpi_buf_printf(b, "%s%s\n%s", h2, W->notes, md ? "\n" : "");
        for (int i = 0; i < res->n_notes; i++)
            gpi_buf_printf(b, "%s%s\n", md ? "- " : "  - ", res->notes[i]);
    }
    const char *disc = pt_br ? res->profile.disclaimer_pt : res->profile.disclaimer_en;
    if (disc[0])
        gpi_buf_printf(b, "%s%s\n%s%s\n", h2, W->disclaimer, md ? "\n" : "  ", disc);
}

/* ---- HTML ----------------------------------------------------------------------------------- */

static void html_table(gpi_buf *b, const gp_plan_result *res, const gp_plan_option *list, int n, const words *W,
                       int pt_br, int excluded)
{
    gpi_buf_printf(b, "<table><thead><tr><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th>"
                      "<th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th><th>%s</th></tr></thead><tbody>\n",
                   excluded ? W->rule : W->rank, W->gpu, W->precision, W->deployment, W->setup, W->gpus,
                   res->serving ? W->ttft : W->train_time, W->throughput, W->upfront,
                   W->monthly, W->total,
                   res->serving ? W->per_mtok : W->per_run, excluded ? W->citation : W->break_even);
    for (int i = 0; i < n; i++) {
        const gp_plan_option *o = &list[i];
        char s[64], a[64], c[64], e[64], f[96], u[64];
        setup_str(s, sizeof s, o, res->serving, W);
        gpi_fmt_money(a, sizeof a, o->cost.monthly, res->currency, pt_br);
        gpi_fmt_money(c, sizeof c, o->cost.total, res->currency, pt_br);
        gpi_fmt_money(e, sizeof e, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
        if (o->cost.upfront > 0)
            gpi_fmt_money(u, sizeof u, o->cost.upfront, res->currency, pt_br);
        else
            snprintf(u, sizeof u, "-");
        gpi_buf_printf(b, "<tr%s><td>", !excluded && o->rank == 1 ? " class=\"best\"" : "");
        if (excluded) {
            for (int k = 0; k < o->compliance.n_violated; k++) {
                gpi_buf_printf(b, "%s<code>", k ? "<br>" : "");
                gpi_buf_html(b, res->profile.rules[o->compliance.violated[k]].id);
                gpi_buf_printf(b, "</code>");
            }
        } else {
            gpi_buf_printf(b, "%d", o->rank);
        }
        gpi_buf_printf(b, "</td><td>");
        gpi_buf_html(b, o->gpu);
        if (o->consumer)
            gpi_buf_printf(b, " <small>(%s)</small>", pt_br ? "placa de consumo" : "consumer card");
        gpi_buf_printf(b, "</td><td>%s</td><td>", gp_dtype_name(o->dtype));
        gpi_buf_html(b, pt_br && o->deployment.name_pt[0] ? o->deployment.name_pt : o->deployment.name);
        gpi_buf_printf(b, "</td><td>%s</td><td class=\"n\">%d</td>", s, o->gpus_total);
        if (res->serving)
        {
            char l[32], t[32];
            gpi_fmt_num(l, sizeof l, o->serve.sim.ttft.p99, 3, pt_br);
            gpi_fmt_num(t, sizeof t, o->throughput_tokens_per_s, 0, pt_br);
            gpi_buf_printf(b, "<td class=\"n\">%s s</td><td class=\"n\">%s</td>", l, t);
        }
        else
            gpi_buf_printf(b, "<td class=\"n\">%.1f d</td><td class=\"n\">%.0f</td>", o->train_rel.time_to_train_s / 86400,
                           o->throughput_tokens_per_s);
        gpi_buf_printf(b, "<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                       u, a, c, e);
        if (excluded)
            gpi_buf_html(b, cite(&res->profile.rules[o->compliance.violated[0]], pt_br));
        else
            gpi_buf_html(b, break_even_str(f, sizeof f, o, W));
        gpi_buf_printf(b, "</td></tr>\n");
    }
    gpi_buf_printf(b, "</tbody></table>\n");
}

static void html_charts(gpi_buf *b, const gp_plan_result *res, const words *W)
{
    /* memory per GPU: one bar per distinct setup (GPU, precision, TP) */
    gpi_bar bars[24];
    int nb = 0;
    for (int pass = 0; pass < 2; pass++) {
        const gp_plan_option *list = pass ? res->excluded : res->options;
        int n = pass ? res->n_excluded : res->n_options;
        for (int i = 0; i < n && nb < 24; i++) {
            const gp_plan_option *o = &list[i];
            char label[96];
            snprintf(label, sizeof label, "%s %s TP%d", o->gpu, gp_dtype_name(o->dtype), o->layout.tp);
            int dup = 0;
            for (int k = 0; k < nb; k++)
                dup |= !strcmp(bars[k].label, label);
            if (dup)
                continue;
            gpi_bar *bar = &bars[nb++];
            memset(bar, 0, sizeof *bar);
            gpi_strlcpy(bar->label, label, sizeof bar->label);
            const gp_memory *m = &o->memory;
            double v[6] = {(double)m->weights, (double)m->kv_cache, (double)m->activations, (double)m->gradients,
                           (double)m->optimizer, (double)m->overhead};
            memcpy(bar->value, v, sizeof v);
            bar->capacity = (double)m->capacity;
        }
    }
    gpi_buf_printf(b, "<figure>");
    gpi_svg_stacked_bars(b, W->memory_chart, W->bytes_axis, W->components, 6, bars, nb, W->capacity);
    gpi_buf_printf(b, "</figure>\n");

    /* cumulative cost of the recommended setup in each deployment */
    if (res->recommended >= 0) {
        const gp_plan_option *best = &res->options[res->recommended];
        gpi_series series[GP_PRICES_MAX_DEPLOYMENTS];
        char names[GP_PRICES_MAX_DEPLOYMENTS][64];
        int ns = 0, mark = 0;
        for (int pass = 0; pass < 2; pass++) {
            const gp_plan_option *list = pass ? res->excluded : res->options;
            int n = pass ? res->n_excluded : res->n_options;
            for (int i = 0; i < n && ns < GP_PRICES_MAX_DEPLOYMENTS; i++) {
                const gp_plan_option *o = &list[i];
                if (strcmp(o->gpu, best->gpu) || o->dtype != best->dtype || o->gpus_total != best->gpus_total)
                    continue;
                snprintf(names[ns], sizeof names[ns], "%s%s", o->deployment.id,
                         pass ? " (x)" : o == best ? (W == &pt ? " (recomendada)" : " (recommended)") : "");
                series[ns].name = names[ns];
                series[ns].y = o->cost.cumulative;
                series[ns].n = o->cost.months + 1;
                if (o == best && o->deployment.kind == GP_DEPLOY_OWNED && o->break_even_month > 0)
                    mark = o->break_even_month; /* the recommendation's, against the allowed rental */
                ns++;
            }
        }
        char title[160], ylab[64], ml[128];
        snprintf(title, sizeof title, "%s (%s %s)", W->cost_chart, best->gpu, gp_dtype_name(best->dtype));
        snprintf(ylab, sizeof ylab, "%s (%s)", W->cost_axis, res->currency);
        snprintf(ml, sizeof ml, "%s: %s %d %s %s", W->break_even, W->month_axis, mark, W->vs, best->break_even_vs);
        gpi_buf_printf(b, "<figure>");
        gpi_svg_lines(b, title, W->month_axis, ylab, series, ns, mark, mark ? ml : NULL);
        gpi_buf_printf(b, "</figure>\n");
    }
    if (res->n_points > 0) {
        gpi_point pts[GP_PLAN_MAX_POINTS];
        char groups[GP_PLAN_MAX_POINTS][80];
        for (int i = 0; i < res->n_points; i++) {
            snprintf(groups[i], sizeof groups[i], "%s %s", res->points[i].gpu, gp_dtype_name(res->points[i].dtype));
            pts[i].group = groups[i];
            pts[i].x = res->points[i].gpus;
            pts[i].y = res->points[i].throughput_tokens_per_s;
            pts[i].filled = res->points[i].meets;
        }
        gpi_buf_printf(b, "<figure>");
        gpi_svg_scatter(b, W->scaling_chart, W->gpus_axis, W->tokens_axis, pts, res->n_points);
        gpi_buf_printf(b, "</figure>\n");
    }
}

static void render_html(gpi_buf *b, const gp_plan_request *req, const gp_plan_result *res, const gp_report_opts *opts)
{
    int pt_br = is_pt(opts);
    const words *W = pt_br ? &pt : &en;
    char q[512];
    question(q, sizeof q, req, res, pt_br);
    const char *title = opts && opts->title ? opts->title : W->title;
    gpi_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"%s\"><head><meta charset=\"utf-8\"><title>", pt_br ? "pt-BR" : "en");
    gpi_buf_html(b, title);
    gpi_buf_printf(b, "</title><style>\n"
                      "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;max-width:1100px;margin:2em auto;color:#222;padding:0 1em}\n"
                      "table{border-collapse:collapse;width:100%%;font-size:13px;margin:0.5em 0 1.5em}\n"
                      "th,td{border-bottom:1px solid #ddd;padding:4px 6px;text-align:left;vertical-align:top}\n"
                      "td.n{text-align:right;white-space:nowrap}tr.best{background:#eef7ee}\n"
                      "pre{background:#f4f4f4;padding:0.8em;white-space:pre-wrap;word-break:break-all;font-size:12px}\n"
                      ".box{border:1px solid #9c9;background:#f6fbf6;padding:0.6em 1em;margin:1em 0}\n"
                      ".disc{font-size:12px;color:#555;border-top:1px solid #ccc;margin-top:2em;padding-top:0.5em}\n"
                      "figure{margin:1em 0;page-break-inside:avoid}svg{max-width:100%%;height:auto;font-family:sans-serif}\n"
                      ".board{border:2px solid #2a6;padding:0.2em 1.2em 0.8em;margin:1em 0;background:#fbfefb}.board h2{margin-top:0.8em}\n"
                      "@media print{@page{size:A4;margin:14mm}body{margin:0;max-width:none;font-size:11px}"
                      ".board{page-break-after:always;border:none;padding:0}.box,pre,figure,tr{page-break-inside:avoid}"
                      "h2.appendix{page-break-before:always}table{font-size:9px}}\n"
                      "</style></head><body>\n<h1>");
    gpi_buf_html(b, title);
    gpi_buf_printf(b, "</h1>\n<p><strong>");
    gpi_buf_html(b, opts && opts->question ? opts->question : q);
    gpi_buf_printf(b, "</strong></p>\n<ul><li>%s: <code>", W->profile);
    gpi_buf_html(b, res->profile.id);
    gpi_buf_printf(b, "</code> ");
    gpi_buf_html(b, pt_br ? res->profile.name_pt : res->profile.name_en);
    char rate[32];
    gpi_fmt_num(rate, sizeof rate, res->per_usd, 4, pt_br);
    gpi_buf_printf(b, "</li><li>%s: %s (1 USD = %s %s)</li><li>%s: %d %s</li><li>%s: ", W->currency, res->currency,
                   rate, res->currency, W->horizon, res->horizon_months, W->months, W->prices_as_of);
    gpi_buf_html(b, res->prices_as_of);
    gpi_buf_printf(b, "; %s %.2f TB/%s</li></ul>\n", W->egress, res->egress_tb_per_month, W->month_axis);
    gpi_render_decision(b, res, pt_br, 2);
    if (res->recommended >= 0) {
        const gp_plan_option *o = &res->options[res->recommended];
        char s[64], t[64], m[64];
        setup_str(s, sizeof s, o, res->serving, W);
        gpi_fmt_money(t, sizeof t, o->cost.total, res->currency, pt_br);
        gpi_fmt_money(m, sizeof m, res->serving ? o->cost.per_million_tokens : o->cost.per_run, res->currency, pt_br);
        gpi_buf_printf(b, "<div class=\"box\"><h2>%s</h2><p><strong>", W->recommended);
        gpi_buf_html(b, o->gpu);
        gpi_buf_printf(b, " %s</strong>, ", gp_dtype_name(o->dtype));
        gpi_buf_html(b, pt_br && o->deployment.name_pt[0] ? o->deployment.name_pt : o->deployment.name);
        gpi_buf_printf(b, ": %s = %d GPUs. %s: %s / %d %s; %s: %s.</p>\n", s, o->gpus_total, W->total, t,
                       res->horizon_months, W->months, res->serving ? W->per_mtok : W->per_run, m);
        if (res->launch_command[0]) {
            gpi_buf_printf(b, "<p>%s (%s):</p><pre>", W->launch, res->launch_engine);
            gpi_buf_html(b, res->launch_command);
            gpi_buf_printf(b, "</pre>\n");
        }
        gpi_buf_printf(b, "</div>\n");
    }
    gpi_buf_printf(b, "<h2>%s</h2>\n", res->serving ? W->options_serve : W->options_train);
    if (res->n_options)
        html_table(b, res, res->options, res->n_options, W, pt_br, 0);
    else
        gpi_buf_printf(b, "<p>%s</p>\n", W->no_options);
    if (res->n_excluded) {
        gpi_buf_printf(b, "<h2 class=\"appendix\">%s</h2>\n", gpi_msg(MSG_APPENDIX, pt_br));
        html_table(b, res, res->excluded, res->n_excluded, W, pt_br, 1);
        gpi_buf_printf(b, "<ul>");
        for (int r = 0; r < res->profile.n_rules; r++) {
            const gp_rule *rule = &res->profile.rules[r];
            gpi_buf_printf(b, "<li><code>");
            gpi_buf_html(b, rule->id);
            gpi_buf_printf(b, "</code>: ");
            gpi_buf_html(b, rule_text(rule, pt_br));
            gpi_buf_printf(b, " <em>");
            gpi_buf_html(b, cite(rule, pt_br));
            gpi_buf_printf(b, "</em></li>\n"); /* the norms' addresses are in the JSON and docs/compliance.md:
                                                 the HTML file names nothing outside itself */
        }
        gpi_buf_printf(b, "</ul>\n");
    }
    gpi_buf_printf(b, "<h2>%s</h2>\n", W->charts);
    html_charts(b, res, W);
    if (res->n_notes) {
        gpi_buf_printf(b, "<h2>%s</h2><ul>", W->notes);
        for (int i = 0; i < res->n_notes; i++) {
            gpi_buf_printf(b, "<li>");
            gpi_buf_html(b, res->notes[i]);
            gpi_buf_printf(b, "</li>");
        }
        gpi_buf_printf(b, "</ul>\n");
    }
    const char *disc = pt_br ? res->profile.disclaimer_pt : res->profile.disclaimer_en;
    gpi_buf_printf(b, "<p class=\"disc\"><strong>%s.</strong> ", W->disclaimer);
    gpi_buf_html(b, disc[0] ? disc : (pt_br ? "Estimativas; confira os preços e as premissas em docs/cost.md."
                                            : "Estimates; check prices and assumptions in docs/cost.md."));
    gpi_buf_printf(b, " gpuplan %s.</p>\n</body></html>\n", GP_VERSION_STRING);
}

gp_report_format gp_report_format_parse(const char *s)
{
    static const char *const names[GP_REPORT_FORMAT_COUNT] = {"text", "json", "markdown", "html"};
    for (int i = 0; s && i < GP_REPORT_FORMAT_COUNT; i++)
        if (gpi_strcaseeq(s, names[i]))
            return (gp_report_format)i;
    if (s && (gpi_strcaseeq(s, "md") || gpi_strcaseeq(s, "txt")))
        return gpi_strcaseeq(s, "md") ? GP_REPORT_MARKDOWN : GP_REPORT_TEXT;
    return GP_REPORT_FORMAT_COUNT;
}

gp_status gp_report_render(const gp_plan_request *req, const gp_plan_result *res, const gp_report_opts *opts,
                           char **out, size_t *len, gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    if (len)
        *len = 0;
    if (!req || !res)
        return gpi_fail(err, GP_EINVAL, "report: a request and a plan are needed");
    gp_report_format f = opts ? opts->format : GP_REPORT_TEXT;
    if (opts && opts->lang && !gpi_strcaseeq(opts->lang, "en") && !gpi_strcaseeq(opts->lang, "pt-BR") &&
        !gpi_strcaseeq(opts->lang, "pt")) {
        gpi_error_set_field(err, "lang");
        return gpi_fail(err, GP_EINVAL, "unknown report language '%s' (en, pt-BR)", opts->lang);
    }
    gpi_buf b = {0};
    if (f == GP_REPORT_JSON) {
        json_t *j = plan_json(req, res, opts);
        char *s = j ? json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) : NULL;
        json_decref(j);
        if (!s)
            return gpi_fail(err, GP_ENOMEM, "out of memory rendering JSON");
        gpi_buf_printf(&b, "%s\n", s);
        free(s);
    } else if (f == GP_REPORT_HTML) {
        render_html(&b, req, res, opts);
    } else if (f == GP_REPORT_TEXT || f == GP_REPORT_MARKDOWN) {
        render_text(&b, req, res, opts, f == GP_REPORT_MARKDOWN);
    } else {
        gpi_error_set_field(err, "format");
        return gpi_fail(err, GP_EINVAL, "unknown report format (text, json, markdown, html)");
    }
    if (b.failed) {
        free(b.s);
        return gpi_fail(err, GP_ENOMEM, "out of memory rendering the report");
    }
    *out = b.s;
    if (len)
        *len = b.len;
    return GP_OK;
}

void gp_report_free(char *s) { free(s); }
