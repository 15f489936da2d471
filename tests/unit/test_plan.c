/*
 * test_plan.c: the plan (src/lib/decide/plan.c) and its report (src/lib/render/): invariants
 * any correct plan holds (allowed options break no rule and are sorted by total; excluded ones
 * name a rule; the profile's n+1 reaches the search; cost arithmetic between options), and the
 * report's formats (self-contained HTML with SVG, pt-BR words, JSON keys of the contract).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static gp_catalog *cat;
static gp_model m8b;
static gp_plan_request req;
static gp_plan_result res; /* large: static */

static int setup(void **state)
{
    (void)state;
    gp_error err;
    if (gp_catalog_open(NULL, &cat, &err) != GP_OK || gp_catalog_find_model(cat, "llama-3.1-8b", &m8b, &err) != GP_OK)
        return -1;
    /* Llama-3.1-8B for 20 users (500 + 100 tokens), p99 TTFT 1 s, on H100; health data,
     * BRL, 12 months; bf16 and int4 */
    gpi_plan_request_defaults(&req);
    req.model = &m8b;
    req.traffic.arrival = GP_ARRIVAL_CLOSED_LOOP;
    req.traffic.users = 20;
    req.traffic.prompt.mean = 500;
    req.traffic.output.mean = 100;
    req.traffic.seed = 1;
    req.slo.ttft_s = 1.0;
    const gp_gpu *h100;
    if (gp_catalog_find_gpu(cat, "h100", &h100, &err) != GP_OK)
        return -1;
    req.gpus[req.n_gpus++] = h100;
    req.dtypes[req.n_dtypes++] = GP_DTYPE_BF16;
    req.dtypes[req.n_dtypes++] = GP_DTYPE_INT4;
    snprintf(req.compliance, sizeof req.compliance, "health");
    snprintf(req.currency, sizeof req.currency, "BRL");
    req.horizon_months = 12;
    return gpi_plan(cat, &req, &res, &err) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

static void test_options_and_exclusions(void **state)
{
    (void)state;
    assert_true(res.serving);
    assert_string_equal(res.currency, "BRL");
    assert_float_equal(res.per_usd, 5.2356, 1e-12);
    /* health asks n+1 though the request did not */
    assert_int_equal(res.redundancy, 1);
    assert_true(res.n_options > 0);
    assert_true(res.n_excluded > 0);
    assert_int_equal(res.recommended, 0);
    for (int i = 0; i < res.n_options; i++) {
        const gp_plan_option *o = &res.options[i];
        assert_int_equal(o->rank, i + 1);
        assert_true(o->compliance.allowed);
        /* health: only in Brazil, only dedicated, only >= 8-bit weights, a spare replica */
        assert_string_equal(o->deployment.country, "BR");
        assert_false(o->deployment.shared);
        assert_int_equal(o->dtype, GP_DTYPE_BF16);
        assert_true(o->serve_rel.spares >= 1);
        assert_int_equal(o->replicas, o->serve_rel.serving + o->serve_rel.spares);
        assert_int_equal(o->gpus_total, o->layout.tp * o->replicas);
        assert_true(o->serve.sim.ttft.p99 <= 1.0);
        if (i > 0)
            assert_true(res.options[i - 1].cost.total <= o->cost.total);
        /* total = upfront + 12 x monthly, the last point of the curve */
        assert_float_equal(o->cost.total, o->cost.upfront + 12 * o->cost.monthly, 1e-6 * o->cost.total);
        assert_float_equal(o->cost.cumulative[12], o->cost.total, 1e-9 * o->cost.total);
    }
    for (int i = 0; i < res.n_excluded; i++) {
        const gp_plan_option *o = &res.excluded[i];
        assert_false(o->compliance.allowed);
        assert_true(o->compliance.n_violated >= 1);
        assert_true(strlen(res.profile.rules[o->compliance.violated[0]].citation) > 0);
    }
}

static void test_cost_relations(void **state)
{
    (void)state;
    /* the same setup rented in Sao Paulo from a hyperscaler costs 1.35 x the US hyperscaler
     * (region multiplier), GPU-hour for GPU-hour */
    const gp_plan_option *br = NULL, *us = NULL;
    for (int i = 0; i < res.n_excluded; i++) {
        const gp_plan_option *o = &res.excluded[i];
        if (o->dtype != GP_DTYPE_BF16)
            continue;
        if (!strcmp(o->deployment.id, "hyperscaler-br"))
            br = o;
        if (!strcmp(o->deployment.id, "hyperscaler-us"))
            us = o;
    }
    assert_non_null(br);
    assert_non_null(us);
    assert_float_equal(br->cost.gpu_hour_on_demand, 1.35 * us->cost.gpu_hour_on_demand, 1e-9);
    /* H100 hyperscaler: $4.25 x 5.2356 = R$22.2513 per GPU-hour in the US region */
    assert_float_equal(us->cost.gpu_hour_on_demand, 4.25 * 5.2356, 1e-9);
    /* int4 options are excluded by the precision floor (and only then by the others) */
    int int4 = 0;
    for (int i = 0; i < res.n_excluded; i++)
        if (res.excluded[i].dtype == GP_DTYPE_INT4) {
            int hit = 0;
            for (int k = 0; k < res.excluded[i].compliance.n_violated; k++)
                hit |= !strcmp(res.profile.rules[res.excluded[i].compliance.violated[k]].id, "health.min_precision");
            assert_true(hit);
            int4++;
        }
    assert_true(int4 > 0);
    /* the recommended option has a launch command for vLLM with its TP */
    assert_string_equal(res.launch_engine, "vllm");
    char tp[64];
    snprintf(tp, sizeof tp, "--tensor-parallel-size %d", res.options[0].layout.tp);
    assert_non_null(strstr(res.launch_command, tp));
}

static void test_report(void **state)
{
    (void)state;
    char *s;
    size_t n;
    gp_error err;
    gpi_report_opts o = {GPI_REPORT_HTML, "en", NULL, NULL};
    assert_int_equal(gpi_report_render(&req, &res, &o, &s, &n, &err), GP_OK);
    assert_int_equal(strlen(s), n);
    assert_non_null(strstr(s, "<!DOCTYPE html>"));
    assert_non_null(strstr(s, "<svg"));
    assert_null(strstr(s, "http://"));
    assert_null(strstr(s, "https://"));
    assert_null(strstr(s, "src="));
    assert_null(strstr(s, "<script"));
    assert_non_null(strstr(s, "health.in_country"));
    gpi_report_free(s);
    o.lang = "pt-BR";
    assert_int_equal(gpi_report_render(&req, &res, &o, &s, &n, &err), GP_OK);
    assert_non_null(strstr(s, "Apêndice: opções excluídas pelas regras de dados"));
    /* the decision up front, in Brazilian Portuguese with its money and numbers */
    assert_non_null(strstr(s, "Investimento inicial (CapEx): "));
    assert_non_null(strstr(s, "Custo total de propriedade em 12 meses"));
    assert_null(strstr(s, "BRL 1"));
    assert_null(strstr(s, "As regras abaixo"));
    assert_null(strstr(s, "Precision unknown"));
    /* citations in Portuguese too */
    assert_non_null(strstr(s, "dados pessoais sensíveis, inclusive de saúde"));
    assert_null(strstr(s, "sensitive personal data, including health"));
    assert_non_null(strstr(s, "lang=\"pt-BR\""));
    gpi_report_free(s);
    o.format = GPI_REPORT_JSON;
    o.lang = "en";
    assert_int_equal(gpi_report_render(&req, &res, &o, &s, &n, &err), GP_OK);
    json_t *j = json_loads(s, 0, NULL);
    assert_non_null(j);
    json_t *opt = json_array_get(json_object_get(j, "options"), 0);
    const char *keys[] = {"hardware", "layout", "memory", "perf", "cost", "compliance"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        assert_non_null(json_object_get(opt, keys[k]));
    json_t *ex = json_array_get(json_object_get(j, "excluded"), 0);
    assert_true(json_is_string(json_object_get(ex, "rule")));
    assert_true(json_is_string(json_object_get(ex, "citation")));
    assert_true(json_is_object(json_object_get(j, "recommended")));
    json_decref(j);
    gpi_report_free(s);
    o.format = GPI_REPORT_MARKDOWN;
    assert_int_equal(gpi_report_render(&req, &res, &o, &s, &n, &err), GP_OK);
    assert_non_null(strstr(s, "| --- |") ? strstr(s, "| --- |") : strstr(s, "|---|"));
    gpi_report_free(s);
    o.lang = "fr";
    assert_int_equal(gpi_report_render(&req, &res, &o, &s, &n, &err), GP_EINVAL);
    assert_string_equal(err.field, "lang");
}

/* Break-even only against rentals the rules allow (issue 16): every owned option names an
 * allowed rental of the same setup, and its month is the first m with upfront + m x monthly
 * <= m x the rental's monthly, worked out here from the two curves' parts. */
static void test_break_even_allowed_only(void **state)
{
    (void)state;
    int owned = 0;
    for (int i = 0; i < res.n_options; i++) {
        const gp_plan_option *o = &res.options[i];
        if (o->deployment.kind != GP_DEPLOY_OWNED)
            continue;
        owned++;
        const gp_plan_option *vs = NULL;
        for (int j = 0; j < res.n_options; j++)
            if (!strcmp(res.options[j].deployment.id, o->break_even_vs) && !strcmp(res.options[j].gpu, o->gpu) &&
                res.options[j].dtype == o->dtype && res.options[j].gpus_total == o->gpus_total)
                vs = &res.options[j];
        assert_non_null(vs); /* among the allowed options, never an excluded one */
        assert_true(vs->compliance.allowed);
        assert_int_not_equal(vs->deployment.kind, GP_DEPLOY_OWNED);
        int m = 0;
        if (vs->cost.monthly > o->cost.monthly) {
            m = (int)ceil(o->cost.upfront / (vs->cost.monthly - o->cost.monthly) - 1e-9);
            if (m > res.horizon_months)
                m = 0;
        }
        assert_int_equal(o->break_even_month, m);
    }
    assert_true(owned > 0);
}

/* The shopping list: servers = ceil(GPUs / 8) for the H100 (DGX H100: 8 GPUs, 8U), rack units
 * 8 per server, IT power GPUs x 700 W x 1.8214 (prices.json system_power_factor) */
static void test_servers_power_rack(void **state)
{
    (void)state;
    for (int i = 0; i < res.n_options; i++) {
        const gp_plan_option *o = &res.options[i];
        assert_int_equal(o->cost.gpus_per_server, 8);
        assert_int_equal(o->cost.servers, (o->gpus_total + 7) / 8);
        assert_int_equal(o->cost.rack_units, 8 * o->cost.servers);
        assert_float_equal(o->cost.power_kw, o->gpus_total * 0.700 * 1.8214, 1e-9);
        /* capex is the month-0 point of the curve, opex the slope */
        assert_float_equal(o->cost.cumulative[0], o->cost.upfront, 1e-6);
        assert_true(fabs(o->cost.cumulative[1] - o->cost.cumulative[0] - o->cost.monthly) < 1e-6 * o->cost.monthly);
    }
}

/* The decision: alternatives of each kind are the cheapest of that kind (allowed first),
 * risks have the file's what-ifs, and the redundancy rule is priced at its spare's share. */
static void test_decision(void **state)
{
    (void)state;
    const gp_plan_option *rec = &res.options[res.recommended];
    for (int k = 0; k < GP_ALT_KIND_COUNT; k++) {
        const gp_plan_alternative *a = &res.alternatives[k];
        if (a->option < 0)
            continue;
        const gp_plan_option *o = &res.options[a->option];
        assert_true(o != rec);
        assert_float_equal(a->extra, o->cost.total - rec->cost.total, 1e-6);
        for (int i = 0; i < a->option; i++) /* nothing cheaper of the same kind but the recommendation */
            if (&res.options[i] != rec && k <= GP_ALT_OWNED)
                assert_int_not_equal((int)res.options[i].deployment.kind, k);
    }
    /* health allows no shared cloud: the cloud alternative is an excluded one, with its rule */
    assert_int_equal(res.alternatives[GP_ALT_CLOUD].option, -1);
    assert_true(res.alternatives[GP_ALT_CLOUD].excluded >= 0);
    int fx = 0;
    for (int i = 0; i < res.n_risks; i++)
        if (res.risks[i].kind == GP_RISK_EXCHANGE_RATE) {
            fx = 1;
            /* 20% of what is priced in dollars: everything but the Brazilian power bill */
            assert_float_equal(res.risks[i].parameter, 0.20, 1e-12);
            assert_float_equal(res.risks[i].size, 0.2 * (rec->cost.total - 12 * rec->cost.power_monthly), 1e-6);
        }
    assert_true(fx);
    for (int i = 0; i < res.n_rule_prices; i++) {
        const gp_rule *r = &res.profile.rules[res.rule_prices[i].rule];
        if (r->kind == GP_RULE_REDUNDANCY) {
            assert_true(res.rule_prices[i].priced);
            assert_float_equal(res.rule_prices[i].saving, rec->cost.total / rec->replicas, 1e-6);
        }
    }
}

/* Consumer cards (RTX 4090: no NVLink, GeForce licence) in a production plan: out, with
 * gpuplan's own rule, unless allow_consumer; and marked in the catalog */
static void test_consumer(void **state)
{
    (void)state;
    const gp_gpu *rtx;
    assert_int_equal(gp_catalog_find_gpu(cat, "rtx-4090", &rtx, NULL), GP_OK);
    assert_true(rtx->consumer);
    const gp_gpu *h100;
    assert_int_equal(gp_catalog_find_gpu(cat, "h100", &h100, NULL), GP_OK);
    assert_false(h100->consumer);
    gp_plan_request r = req;
    r.n_gpus = 0;
    r.gpus[r.n_gpus++] = rtx;
    r.n_dtypes = 1;
    r.dtypes[0] = GP_DTYPE_BF16;
    snprintf(r.compliance, sizeof r.compliance, "none");
    r.redundancy = 1; /* production: a spare */
    gp_plan_result *out = calloc(1, sizeof *out);
    assert_non_null(out);
    assert_int_equal(gpi_plan(cat, &r, out, NULL), GP_OK);
    assert_int_equal(out->n_options, 0);
    assert_true(out->n_excluded > 0);
    assert_string_equal(out->profile.rules[out->excluded[0].compliance.violated[0]].id, "production.datacenter_gpu");
    r.allow_consumer = 1;
    assert_int_equal(gpi_plan(cat, &r, out, NULL), GP_OK);
    assert_true(out->n_options > 0);
    /* no redundancy asked, no profile: a lab's plan, consumer cards allowed */
    r.allow_consumer = 0;
    r.redundancy = 0;
    assert_int_equal(gpi_plan(cat, &r, out, NULL), GP_OK);
    assert_true(out->n_options > 0);
    free(out);
}

static void test_errors(void **state)
{
    (void)state;
    gp_plan_request r = req;
    gp_plan_result *out = calloc(1, sizeof *out);
    gp_error err;
    assert_non_null(out);
    snprintf(r.currency, sizeof r.currency, "XYZ");
    assert_int_equal(gpi_plan(cat, &r, out, &err), GP_ENOTFOUND);
    assert_string_equal(err.field, "currency");
    r = req;
    snprintf(r.compliance, sizeof r.compliance, "nope");
    assert_int_equal(gpi_plan(cat, &r, out, &err), GP_ENOTFOUND);
    assert_string_equal(err.field, "compliance");
    r = req;
    r.horizon_months = 0;
    assert_int_equal(gpi_plan(cat, &r, out, &err), GP_EINVAL);
    assert_string_equal(err.field, "horizon_months");
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_options_and_exclusions),
        cmocka_unit_test(test_cost_relations),
        cmocka_unit_test(test_report),
        cmocka_unit_test(test_break_even_allowed_only),
        cmocka_unit_test(test_servers_power_rack),
        cmocka_unit_test(test_decision),
        cmocka_unit_test(test_consumer),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
