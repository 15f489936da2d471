/*
 * test_cost.c: the cost model (src/lib/decide/cost.c, docs/cost.md) on hand-made prices with
 * round numbers, every expected value worked out in the comments; then the built-in
 * data/prices.json as the catalog loads it (its dated figures, and the capacity search reading
 * its GPU prices).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static gpi_prices P; /* large: static */

/* prices: GPU "ROUND" at $2.00/h on-demand (no reserved quote), 40% off reserved, from 12
 * months; $30,000 to buy; servers 1.5x the GPU price and 2x its TDP in wall power; PUE 1.5;
 * 730 h a month; US power $0.10/kWh, hosting $200/kW-month; BRL at 5; egress $90/TB. */
static void round_prices(void)
{
    memset(&P, 0, sizeof P);
    P.hours_per_month = 730;
    P.reserved_discount = 0.4;
    P.reserved_min_months = 12;
    P.hyperscaler_ratio = 1.5;
    P.system_multiplier = 1.5;
    P.system_power_factor = 2.0;
    P.pue = 1.5;
    P.amortization_months = 36;
    P.egress_usd_per_tb = 90;
    P.n_gpus = 1;
    snprintf(P.gpus[0].gpu, sizeof P.gpus[0].gpu, "ROUND");
    P.gpus[0].on_demand_usd_per_hour = 2.0;
    P.gpus[0].purchase_usd = 30000;
    P.n_countries = 1;
    snprintf(P.countries[0].country, sizeof P.countries[0].country, "US");
    P.countries[0].power_usd_per_kwh = 0.10;
    P.countries[0].hosting_usd_per_kw_month = 200;
    P.n_currencies = 2;
    snprintf(P.currencies[0].code, 8, "USD");
    P.currencies[0].per_usd = 1;
    snprintf(P.currencies[1].code, 8, "BRL");
    P.currencies[1].per_usd = 5;
}

static void round_gpu(gp_gpu *g)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "ROUND");
    g->tdp_w = 700;
}

static gp_deployment dep(gp_deploy_kind kind, gp_price_tier tier, double region)
{
    gp_deployment d;
    memset(&d, 0, sizeof d);
    snprintf(d.id, sizeof d.id, "d");
    snprintf(d.country, sizeof d.country, "US");
    d.kind = kind;
    d.tier = tier;
    d.region_multiplier = region;
    return d;
}

static void test_cloud(void **state)
{
    (void)state;
    round_prices();
    gp_gpu g;
    round_gpu(&g);
    gp_deployment d = dep(GP_DEPLOY_CLOUD, GP_TIER_NEOCLOUD, 1.0);
    gp_cost c;
    gp_error err;
    /* 6 months < 12: on-demand. 8 GPUs x $2.00 = $16/h; x 730 = $11,680 + 2 TB x $90 = $180
     * -> $11,860 a month; 6 months = $71,160 */
    gpi_cost_input in = {&g, 8, &d, 6, 2.0, 0, 0};
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &c, &err), GP_OK);
    assert_true(c.available);
    assert_false(c.reserved);
    assert_float_equal(c.hourly, 16.0, 1e-9);
    assert_float_equal(c.egress_monthly, 180.0, 1e-9);
    assert_float_equal(c.monthly, 11860.0, 1e-6);
    assert_float_equal(c.total, 71160.0, 1e-6);
    assert_float_equal(c.cumulative[0], 0.0, 1e-9);
    /* 12 months: reserved, $2.00 x (1 - 0.4) = $1.20 per GPU-hour; 8 x 1.20 = $9.60/h;
     * x 730 = $7,008 + $180 = $7,188 a month; 12 months = $86,256; in BRL x 5 = 431,280 */
    in.horizon_months = 12;
    assert_int_equal(gpi_cost_estimate(&P, &in, "BRL", &c, &err), GP_OK);
    assert_true(c.reserved);
    assert_float_equal(c.gpu_hour_reserved, 6.0, 1e-9); /* 1.20 x 5 */
    assert_float_equal(c.total, 431280.0, 1e-6);
    /* cost per million tokens: 1e9 output tokens a month for 12 months = 1.2e10 tokens;
     * 431,280 / 1.2e10 x 1e6 = 35.94 BRL */
    in.output_tokens_per_month = 1e9;
    assert_int_equal(gpi_cost_estimate(&P, &in, "BRL", &c, &err), GP_OK);
    assert_float_equal(c.per_million_tokens, 35.94, 1e-6);
    /* hyperscaler tier with no quote: 2.00 x 1.5 = $3.00; region 1.35 -> $4.05 on-demand */
    gp_deployment h = dep(GP_DEPLOY_CLOUD, GP_TIER_HYPERSCALER, 1.35);
    assert_float_equal(gpi_prices_gpu_hour(&P, &g, &h, 0), 4.05, 1e-9);
    /* ... and reserved 4.05 x 0.6 = 2.43 */
    assert_float_equal(gpi_prices_gpu_hour(&P, &g, &h, 1), 2.43, 1e-9);
    /* unknown currency: an error naming the field */
    assert_int_equal(gpi_cost_estimate(&P, &in, "EUR", &c, &err), GP_ENOTFOUND);
    assert_string_equal(err.field, "currency");
    /* bad horizon */
    in.horizon_months = 0;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &c, &err), GP_EINVAL);
}

static void test_owned_and_break_even(void **state)
{
    (void)state;
    round_prices();
    gp_gpu g;
    round_gpu(&g);
    gp_deployment own = dep(GP_DEPLOY_OWNED, GP_TIER_NEOCLOUD, 1.0),
                  cloud = dep(GP_DEPLOY_CLOUD, GP_TIER_NEOCLOUD, 1.0);
    gp_cost o, c;
    gp_error err;
    /* 8 GPUs: upfront 8 x 30,000 x 1.5 = $360,000; IT load 8 x 700 W x 2.0 = 11.2 kW;
     * power 11.2 x 1.5 (PUE) x 730 h x $0.10 = $1,226.40; hosting 11.2 x $200 = $2,240;
     * monthly $3,466.40; over 120 months 360,000 + 415,968 = $775,968; amortized monthly
     * 3,466.40 + 360,000 / 36 = $13,466.40 */
    gpi_cost_input in = {&g, 8, &own, 120, 2.0, 0, 0};
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &o, &err), GP_OK);
    assert_true(o.available);
    assert_float_equal(o.upfront, 360000.0, 1e-6);
    assert_float_equal(o.power_kw, 11.2, 1e-9);
    assert_float_equal(o.power_monthly, 1226.4, 1e-6);
    assert_float_equal(o.hosting_monthly, 2240.0, 1e-6);
    assert_float_equal(o.egress_monthly, 0.0, 1e-9); /* transit is inside hosting */
    assert_float_equal(o.total, 775968.0, 1e-6);
    assert_float_equal(o.monthly_amortized, 13466.4, 1e-6);
    /* the same 8 GPUs rented (reserved, $7,188 a month as in test_cloud): owning catches up
     * when 360,000 + 3,466.40 m <= 7,188 m, m >= 360,000 / 3,721.60 = 96.73: month 97 */
    in.deployment = &cloud;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &c, &err), GP_OK);
    assert_int_equal(gpi_cost_break_even_month(&o, &c), 97);
    /* over 36 months it never does */
    in.horizon_months = 36;
    gp_cost o36, c36;
    in.deployment = &own;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &o36, &err), GP_OK);
    in.deployment = &cloud;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &c36, &err), GP_OK);
    assert_int_equal(gpi_cost_break_even_month(&o36, &c36), 0);
    /* training: a 730-hour run costs one amortized month owned ($13,466.40) and, rented, 730 h
     * x 8 GPUs x $2.00 on-demand = $11,680: a one-month run cannot use a one-year reservation
     * however long the horizon */
    in.run_hours = 730;
    in.deployment = &own;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &o36, &err), GP_OK);
    assert_float_equal(o36.per_run, 13466.4, 1e-6);
    in.deployment = &cloud;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &c36, &err), GP_OK);
    assert_float_equal(c36.per_run, 11680.0, 1e-6);
    /* bare metal is rented by the month: a 100-hour run pays one month of 8 x $1.20 reserved x
     * 730 h = $7,008 (plus the month's egress, 2 TB x $90 = $180) */
    gp_deployment bm = dep(GP_DEPLOY_BAREMETAL, GP_TIER_NEOCLOUD, 1.0);
    in.deployment = &bm;
    in.run_hours = 100;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &c36, &err), GP_OK);
    assert_float_equal(c36.per_run, 7188.0, 1e-6);
    /* 8 GPUs with no server row of their own: the default server of the file (zeroed here: 8
     * GPUs in 4U): one server, 4 rack units; the rented GPUs draw 11.2 kW like owned ones */
    assert_int_equal(c36.servers, 1);
    assert_int_equal(c36.rack_units, 4);
    assert_float_equal(c36.power_kw, 11.2, 1e-9);
    /* no purchase price: no owned option */
    P.gpus[0].purchase_usd = 0;
    in.deployment = &own;
    assert_int_equal(gpi_cost_estimate(&P, &in, "USD", &o36, &err), GP_OK);
    assert_false(o36.available);
}

static void test_builtin_prices(void **state)
{
    (void)state;
    gp_catalog *cat;
    gp_error err;
    assert_int_equal(gp_catalog_open(NULL, &cat, &err), GP_OK);
    assert_int_equal(gpi_prices_load(cat, &P, &err), GP_OK);
    double brl;
    /* data/prices.json: BCB PTAX 2026-02-04, bid 5.2353 / offer 5.2359, midpoint 5.2356 */
    assert_int_equal(gpi_prices_rate(&P, "BRL", &brl, &err), GP_OK);
    assert_float_equal(brl, 5.2356, 1e-9);
    /* Sao Paulo power R$0.671/kWh / 5.2356 = $0.128161 */
    int found = 0;
    for (int i = 0; i < P.n_countries; i++)
        if (!strcmp(P.countries[i].country, "BR")) {
            assert_float_equal(P.countries[i].power_usd_per_kwh, 0.671 / 5.2356, 1e-12);
            found = 1;
        }
    assert_true(found);
    /* every deployment has a country; the in-country/dedicated tests need both kinds */
    assert_non_null(gpi_prices_find_deployment(&P, "hyperscaler-br"));
    assert_non_null(gpi_prices_find_deployment(&P, "owned-br"));
    assert_false(gpi_prices_find_deployment(&P, "owned-br")->shared);
    assert_true(gpi_prices_find_deployment(&P, "hyperscaler-br")->shared);
    /* the capacity search ranks by the catalog's on-demand price: H100 $2.69 per GPU-hour,
     * so a setup of g GPUs costs 2.69 g per hour */
    const gpi_gpu_price *h = gpi_prices_find_gpu(&P, "h100-sxm-80gb");
    assert_non_null(h);
    assert_float_equal(h->on_demand_usd_per_hour, 2.69, 1e-12);
    gp_catalog_free(cat);
}

static void test_user_prices_override(void **state)
{
    (void)state;
    /* a user's prices.json replaces the H100 row by id and one constant by key */
    char dir[] = "/tmp/gp_prices_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/prices.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"constants\": {\"pue\": {\"value\": 1.2, \"source\": \"test\"}},\n"
          " \"gpus\": [{\"id\": \"H100-SXM-80GB\", \"on_demand_usd_per_hour\": 1.00, \"purchase_usd\": 20000}]}\n",
          f);
    fclose(f);
    gp_catalog *cat;
    gp_error err;
    assert_int_equal(gp_catalog_open(dir, &cat, &err), GP_OK);
    assert_int_equal(gpi_prices_load(cat, &P, &err), GP_OK);
    assert_float_equal(P.pue, 1.2, 1e-12);
    assert_float_equal(gpi_prices_find_gpu(&P, "H100-SXM-80GB")->on_demand_usd_per_hour, 1.0, 1e-12);
    assert_float_equal(P.hours_per_month, 730, 1e-12); /* untouched constants stay */
    gp_catalog_free(cat);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cloud),
        cmocka_unit_test(test_owned_and_break_even),
        cmocka_unit_test(test_builtin_prices),
        cmocka_unit_test(test_user_prices_override),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
