/*
 * board.c: the decision around a ranked plan (docs/cost.md, "The decision"): for the
 * recommended option, the best alternative of each kind (rent in a cloud, rent bare metal, own,
 * another GPU, other weights) with the break-even month against each rental, the risks sized
 * with the what-ifs of data/prices.json ("risks"), and the price of each data rule (the
 * cheapest option that rule alone excludes). Numbers only: the report words them.
 */
#include "decide.h"

#include <string.h>

static const char *const alt_names[GP_ALT_KIND_COUNT] = {"cloud", "baremetal", "owned", "other_gpu", "other_precision"};
static const char *const risk_names[GP_RISK_KIND_COUNT] = {"exchange_rate", "import_duty", "price_confidence",
                                                           "lead_time", "utilization"};

const char *gpi_alt_kind_name(gp_alt_kind k)
{
    return (unsigned)k < GP_ALT_KIND_COUNT ? alt_names[k] : "?";
}
const char *gpi_risk_kind_name(gp_risk_kind k)
{
    return (unsigned)k < GP_RISK_KIND_COUNT ? risk_names[k] : "?";
}

static double metric(const gp_plan_result *r, const gp_plan_option *o)
{
    return r->serving ? o->cost.total : o->cost.per_run;
}

static int is_kind(const gp_plan_option *rec, const gp_plan_option *o, gp_alt_kind k)
{
    switch (k) {
    case GP_ALT_CLOUD: return o->deployment.kind == GP_DEPLOY_CLOUD;
    case GP_ALT_BAREMETAL: return o->deployment.kind == GP_DEPLOY_BAREMETAL;
    case GP_ALT_OWNED: return o->deployment.kind == GP_DEPLOY_OWNED;
    case GP_ALT_OTHER_GPU: return strcmp(o->gpu, rec->gpu) != 0;
    default: return o->dtype != rec->dtype;
    }
}

/* Lists are ranked cheapest first: the first match is the cheapest. */
static int first_of(const gp_plan_option *rec, const gp_plan_option *list, int n, gp_alt_kind k)
{
    for (int i = 0; i < n; i++)
        if (&list[i] != rec && is_kind(rec, &list[i], k))
            return i;
    return -1;
}

static void alternatives(gp_plan_result *out)
{
    const gp_plan_option *rec = &out->options[out->recommended];
    for (int k = 0; k < GP_ALT_KIND_COUNT; k++) {
        gp_plan_alternative *a = &out->alternatives[k];
        a->kind = (gp_alt_kind)k;
        a->option = first_of(rec, out->options, out->n_options, a->kind);
        a->excluded = a->option < 0 ? first_of(rec, out->excluded, out->n_excluded, a->kind) : -1;
        a->break_even_month = -1;
        if (a->option < 0)
            continue;
        const gp_plan_option *o = &out->options[a->option];
        a->extra = metric(out, o) - metric(out, rec);
        if (out->serving && rec->deployment.kind == GP_DEPLOY_OWNED && o->deployment.kind != GP_DEPLOY_OWNED)
            a->break_even_month = gpi_cost_break_even_month(&rec->cost, &o->cost);
    }
    /* the runner-up: the cheapest option that decides own vs rent the other way */
    out->runner_up = -1;
    for (int i = 0; i < out->n_options && out->runner_up < 0; i++)
        if (i != out->recommended &&
            (out->options[i].deployment.kind == GP_DEPLOY_OWNED) != (rec->deployment.kind == GP_DEPLOY_OWNED))
            out->runner_up = i;
    if (out->runner_up < 0 && out->n_options > 1)
        out->runner_up = out->recommended == 0 ? 1 : 0;
}

static gp_plan_risk *risk(gp_plan_result *out, gp_risk_kind k, double parameter)
{
    if (out->n_risks >= GP_PLAN_MAX_RISKS)
        return NULL;
    gp_plan_risk *r = &out->risks[out->n_risks++];
    memset(r, 0, sizeof *r);
    r->kind = k;
    r->parameter = parameter;
    return r;
}

/* The same-setup rental an owned option breaks even with (its break_even_vs), or NULL. */
static const gp_plan_option *bridge(const gp_plan_result *out, const gp_plan_option *rec)
{
    for (int i = 0; i < out->n_options; i++) {
        const gp_plan_option *o = &out->options[i];
        if (!strcmp(o->deployment.id, rec->break_even_vs) && !strcmp(o->gpu, rec->gpu) && o->dtype == rec->dtype &&
            o->gpus_total == rec->gpus_total)
            return o;
    }
    return NULL;
}

static void risks(const gpi_prices *p, gp_plan_result *out)
{
    const gp_plan_option *rec = &out->options[out->recommended];
    const gp_plan_option *alt = out->runner_up >= 0 ? &out->options[out->runner_up] : NULL;
    double rt = metric(out, rec), at = alt ? metric(out, alt) : 0;
    int owned = rec->deployment.kind == GP_DEPLOY_OWNED;
    gp_plan_risk *r;
    if (!gpi_strcaseeq(out->currency, "USD") && p->risks.exchange_rate_move > 0 &&
        (r = risk(out, GP_RISK_EXCHANGE_RATE, p->risks.exchange_rate_move))) {
        r->size =
            r->parameter * rec->cost.usd_exposed * (out->serving ? 1.0 : rt / (rec->cost.total ? rec->cost.total : 1));
        r->alt_size = alt ? r->parameter * alt->cost.usd_exposed *
                                (out->serving ? 1.0 : at / (alt->cost.total ? alt->cost.total : 1))
                          : 0;
    }
    double duty = gpi_prices_import_duty(p, rec->deployment.country);
    if (owned && duty > 0 && (r = risk(out, GP_RISK_IMPORT_DUTY, duty))) {
        r->size = duty * rec->cost.upfront * (out->serving ? 1.0 : rt / (rec->cost.total ? rec->cost.total : 1));
        r->alt_size = alt && alt->deployment.kind == GP_DEPLOY_OWNED
                          ? gpi_prices_import_duty(p, alt->deployment.country) * alt->cost.upfront
                          : 0;
    }
    int low = (gpi_prices_low_confidence(p, rec->gpu) || gpi_prices_low_confidence(p, rec->deployment.id)) |
              (alt && (gpi_prices_low_confidence(p, alt->gpu) || gpi_prices_low_confidence(p, alt->deployment.id)))
                  << 1;
    if (low && (r = risk(out, GP_RISK_PRICE_CONFIDENCE, alt && rt > 0 ? (at - rt) / rt : 0)))
        r->low_confidence = low;
    const gp_plan_option *b = owned && out->serving ? bridge(out, rec) : NULL;
    if (owned && p->risks.lead_time_months > 0 && (r = risk(out, GP_RISK_LEAD_TIME, p->risks.lead_time_months)))
        r->size = b ? r->parameter * (b->cost.monthly - rec->cost.monthly) : 0;
    if (out->serving && p->risks.utilization_low > 0 && p->risks.utilization_low < 1 &&
        (r = risk(out, GP_RISK_UTILIZATION, p->risks.utilization_low))) {
        /* owned servers cost the same idle; rented capacity shrinks with the load */
        r->size = owned ? 0 : -(1 - r->parameter) * rt;
        r->alt_size = !alt || alt->deployment.kind == GP_DEPLOY_OWNED ? 0 : -(1 - r->parameter) * at;
    }
    for (int i = 0; i < out->n_risks && alt; i++)
        out->risks[i].flips =
            out->risks[i].kind != GP_RISK_PRICE_CONFIDENCE && rt + out->risks[i].size > at + out->risks[i].alt_size;
}

/* Each rule's price: the cheapest excluded option that this rule alone excludes. */
static void rule_prices(gp_plan_result *out)
{
    const gp_plan_option *rec = &out->options[out->recommended];
    out->n_rule_prices = 0;
    for (int r = 0; r < out->profile.n_rules && r < GP_PROFILE_MAX_RULES; r++) {
        gp_plan_rule_price *rp = &out->rule_prices[out->n_rule_prices++];
        rp->rule = r;
        rp->excluded = -1;
        rp->saving = 0;
        rp->priced = 0;
        const gp_rule *rule = &out->profile.rules[r];
        if (rule->kind == GP_RULE_REDUNDANCY && out->serving && rec->replicas > 0) {
            /* the spares the rule asks for, at the recommended option's cost per replica */
            int spares = rule->replicas < rec->serve_rel.spares ? rule->replicas : rec->serve_rel.spares;
            rp->saving = metric(out, rec) * spares / rec->replicas;
            rp->priced = 1;
            continue;
        }
        for (int i = 0; i < out->n_excluded; i++) {
            const gp_compliance_verdict *v = &out->excluded[i].compliance;
            if (v->n_violated == 1 && v->violated[0] == r) {
                rp->excluded = i;
                rp->saving = metric(out, rec) - metric(out, &out->excluded[i]);
                rp->priced = 1;
                break;
            }
        }
    }
}

void gpi_plan_decide(const gpi_prices *prices, gp_plan_result *out)
{
    out->runner_up = -1;
    out->n_risks = 0;
    out->n_rule_prices = 0;
    for (int k = 0; k < GP_ALT_KIND_COUNT; k++) {
        out->alternatives[k].kind = (gp_alt_kind)k;
        out->alternatives[k].option = out->alternatives[k].excluded = out->alternatives[k].break_even_month = -1;
    }
    if (out->recommended < 0 || out->recommended >= out->n_options)
        return;
    alternatives(out);
    risks(prices, out);
    rule_prices(out);
}
