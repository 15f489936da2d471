/*
 * cost.c: prices (data/prices.json through the catalog) and the cost of one option over a
 * horizon (docs/cost.md).
 *
 *  cloud      hourly = GPUs x price per GPU-hour (tier column x region multiplier); reserved
 *             rates once the horizon reaches the reservation term; + egress per TB
 *  bare metal dedicated servers rented monthly: GPUs x reserved rate x hours per month
 *  owned      upfront = GPUs x purchase x system multiplier (servers bought in month 0);
 *             power = GPUs x TDP x system power factor x PUE x hours x price per kWh;
 *             hosting = GPUs x TDP x system power factor (kW of IT load) x colocation per kW
 * Every constant comes from the file, with its source beside it.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const deploy_kind_names[GP_DEPLOY_KIND_COUNT] = {"cloud", "baremetal", "owned"};

const char *gpi_deploy_kind_name(gp_deploy_kind k)
{
    return (unsigned)k < GP_DEPLOY_KIND_COUNT ? deploy_kind_names[k] : "?";
}

static double num(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : 0.0;
}

static const char *str(json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : "";
}

/* A constant: {"value": x, "source": "..."}; a missing or non-positive one is an error. */
static gp_status constant(json_t *root, const char *key, double *out, gp_error *err)
{
    json_t *c = json_object_get(json_object_get(root, "constants"), key);
    json_t *v = json_is_object(c) ? json_object_get(c, "value") : c;
    if (!json_is_number(v) || json_number_value(v) < 0) {
        gpi_error_set_path(err, "prices.json");
        gpi_error_set_field(err, key);
        return gpi_fail(err, GP_EPARSE, "prices.json: constants.%s needs a non-negative number 'value'", key);
    }
    *out = json_number_value(v);
    return GP_OK;
}

static gp_status bad_entry(gp_error *err, const char *list, size_t i, const char *field, const char *what)
{
    gpi_error_set_path(err, "prices.json");
    gpi_error_set_field(err, field);
    return gpi_fail(err, GP_EPARSE, "prices.json: %s[%zu].%s %s", list, i, field, what);
}

static void server_spec(json_t *e, gpi_server_spec *s)
{
    gpi_strlcpy(s->gpu, str(e, "id"), sizeof s->gpu);
    s->gpus_per_server = num(e, "gpus_per_server") >= 1 ? (int)num(e, "gpus_per_server") : 8;
    s->rack_units = num(e, "rack_units") >= 1 ? (int)num(e, "rack_units") : 4;
    gpi_strlcpy(s->source, str(e, "source"), sizeof s->source);
}

/* "servers" and "risks": optional blocks; without them a server is 8 GPUs in 4U and the
 * what-ifs have the defaults docs/cost.md gives. */
static void load_servers_and_risks(json_t *root, gpi_prices *out)
{
    json_t *sv = json_object_get(root, "servers");
    server_spec(json_object_get(sv, "default"), &out->server_default);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(sv, "gpus"), i, e)
    {
        if (out->n_servers < GPI_PRICES_MAX_GPUS)
            server_spec(e, &out->servers[out->n_servers++]);
    }
    json_t *r = json_object_get(root, "risks");
    gpi_price_risks *k = &out->risks;
    k->exchange_rate_move =
        json_object_get(r, "exchange_rate_move") ? num(json_object_get(r, "exchange_rate_move"), "value") : 0.2;
    k->lead_time_months =
        json_object_get(r, "lead_time_months") ? num(json_object_get(r, "lead_time_months"), "value") : 3;
    k->utilization_low =
        json_object_get(r, "utilization_low") ? num(json_object_get(r, "utilization_low"), "value") : 0.5;
    const char *key;
    json_t *v;
    json_object_foreach(json_object_get(r, "import_duty"), key, v)
    {
        if (k->n_import_duties >= GPI_PRICES_MAX_COUNTRIES)
            break;
        gpi_strlcpy(k->import_duty_country[k->n_import_duties], key, sizeof k->import_duty_country[0]);
        k->import_duty[k->n_import_duties++] = num(v, "value");
    }
    json_array_foreach(json_object_get(r, "low_confidence_prices"), i, e)
    {
        if (json_is_string(e) && k->n_low_confidence < GPI_PRICES_MAX_LOW_CONFIDENCE)
            gpi_strlcpy(k->low_confidence[k->n_low_confidence++], json_string_value(e), sizeof k->low_confidence[0]);
    }
}

/* The file's named constants (hours per month, discounts, PUE, ...). */
static gp_status load_constants(json_t *root, gpi_prices *out, gp_error *err)
{
    double v;
    gp_status st;
    if ((st = constant(root, "hours_per_month", &out->hours_per_month, err)) ||
        (st = constant(root, "reserved_discount", &out->reserved_discount, err)) ||
        (st = constant(root, "hyperscaler_ratio", &out->hyperscaler_ratio, err)) ||
        (st = constant(root, "system_multiplier", &out->system_multiplier, err)) ||
        (st = constant(root, "system_power_factor", &out->system_power_factor, err)) ||
        (st = constant(root, "pue", &out->pue, err)) ||
        (st = constant(root, "egress_bytes_per_output_token", &out->egress_bytes_per_output_token, err)))
        return st;
    if ((st = constant(root, "reserved_min_months", &v, err)))
        return st;
    out->reserved_min_months = (int)v;
    if ((st = constant(root, "amortization_months", &v, err)))
        return st;
    out->amortization_months = v >= 1 ? (int)v : 1;
    if (out->hours_per_month <= 0 || out->reserved_discount >= 1)
        return gpi_fail(err, GP_EPARSE, "prices.json: hours_per_month must be > 0 and reserved_discount < 1");
    out->egress_usd_per_tb = num(json_object_get(root, "egress"), "usd_per_tb");
    return GP_OK;
}

static gp_status load_currencies(json_t *root, gpi_prices *out, gp_error *err)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "currencies"), i, e)
    {
        if (out->n_currencies >= GPI_PRICES_MAX_CURRENCIES)
            break;
        gpi_currency *c = &out->currencies[out->n_currencies];
        if (!*str(e, "id") || num(e, "per_usd") <= 0)
            return bad_entry(err, "currencies", i, "per_usd", "must be a positive number with an 'id'");
        gpi_strlcpy(c->code, str(e, "id"), sizeof c->code);
        c->per_usd = num(e, "per_usd");
        gpi_strlcpy(c->as_of, str(e, "as_of"), sizeof c->as_of);
        gpi_strlcpy(c->source, str(e, "source"), sizeof c->source);
        out->n_currencies++;
    }
    return GP_OK;
}

/* Power and hosting per country, power converted to USD at the currencies' rates. */
static gp_status load_countries(json_t *root, gpi_prices *out, gp_error *err)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "countries"), i, e)
    {
        if (out->n_countries >= GPI_PRICES_MAX_COUNTRIES)
            break;
        gpi_country_costs *c = &out->countries[out->n_countries];
        gpi_strlcpy(c->country, str(e, "id"), sizeof c->country);
        double rate = 1.0;
        const char *cur = str(e, "power_currency");
        if (*cur && !gpi_strcaseeq(cur, "USD")) {
            rate = 0;
            for (int k = 0; k < out->n_currencies; k++)
                if (gpi_strcaseeq(out->currencies[k].code, cur))
                    rate = out->currencies[k].per_usd;
            if (rate <= 0)
                return bad_entry(err, "countries", i, "power_currency",
                                 "names a currency with no rate in 'currencies'");
        }
        c->power_usd_per_kwh = num(e, "power_price_per_kwh") / rate;
        c->hosting_usd_per_kw_month = num(e, "hosting_usd_per_kw_month");
        snprintf(c->source, sizeof c->source, "power: %.200s; hosting: %.200s", str(e, "power_source"),
                 str(e, "hosting_source"));
        out->n_countries++;
    }
    return GP_OK;
}

static gp_status load_deployments(json_t *root, gpi_prices *out, gp_error *err)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "deployments"), i, e)
    {
        if (out->n_deployments >= GP_PRICES_MAX_DEPLOYMENTS)
            break;
        gp_deployment *d = &out->deployments[out->n_deployments];
        const char *kind = str(e, "kind");
        d->kind = !strcmp(kind, "owned")       ? GP_DEPLOY_OWNED
                  : !strcmp(kind, "baremetal") ? GP_DEPLOY_BAREMETAL
                  : !strcmp(kind, "cloud")     ? GP_DEPLOY_CLOUD
                                               : GP_DEPLOY_KIND_COUNT;
        if (d->kind == GP_DEPLOY_KIND_COUNT)
            return bad_entry(err, "deployments", i, "kind", "must be cloud, baremetal or owned");
        if (!*str(e, "country"))
            return bad_entry(err, "deployments", i, "country", "is required (ISO 3166 code)");
        gpi_strlcpy(d->id, str(e, "id"), sizeof d->id);
        gpi_strlcpy(d->name, str(e, "name"), sizeof d->name);
        gpi_strlcpy(d->name_pt, str(e, "name_pt"), sizeof d->name_pt);
        d->tier = !strcmp(str(e, "tier"), "hyperscaler") ? GP_TIER_HYPERSCALER : GP_TIER_NEOCLOUD;
        gpi_strlcpy(d->country, str(e, "country"), sizeof d->country);
        d->shared = json_is_true(json_object_get(e, "shared"));
        d->audit_logging = json_is_true(json_object_get(e, "audit_logging"));
        d->region_multiplier = num(e, "region_multiplier") > 0 ? num(e, "region_multiplier") : 1.0;
        gpi_strlcpy(d->source, str(e, "source"), sizeof d->source);
        out->n_deployments++;
    }
    return GP_OK;
}

static void load_gpu_prices(json_t *root, gpi_prices *out)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "gpus"), i, e)
    {
        if (out->n_gpus >= GPI_PRICES_MAX_GPUS)
            break;
        gpi_gpu_price *g = &out->gpus[out->n_gpus];
        gpi_strlcpy(g->gpu, str(e, "id"), sizeof g->gpu);
        g->on_demand_usd_per_hour = num(e, "on_demand_usd_per_hour");
        g->reserved_usd_per_hour = num(e, "reserved_usd_per_hour");
        g->hyperscaler_usd_per_hour = num(e, "hyperscaler_usd_per_hour");
        g->purchase_usd = num(e, "purchase_usd");
        gpi_strlcpy(g->source, str(e, "source"), sizeof g->source);
        out->n_gpus++;
    }
}

gp_status gpi_prices_load(const gp_catalog *cat, gpi_prices *out, gp_error *err)
{
    gp_error_clear(err);
    memset(out, 0, sizeof *out);
    json_t *root = gpi_catalog_prices(cat);
    if (!json_is_object(root))
        return gpi_fail(err, GP_ENOTFOUND, "the catalog has no prices (data/prices.json)");
    gpi_strlcpy(out->as_of, str(root, "as_of"), sizeof out->as_of);
    gp_status st;
    if ((st = load_constants(root, out, err)) || (st = load_currencies(root, out, err)) ||
        (st = load_countries(root, out, err)) || (st = load_deployments(root, out, err)))
        return st;
    load_gpu_prices(root, out);
    load_servers_and_risks(root, out);
    return GP_OK;
}

const gpi_server_spec *gpi_prices_server(const gpi_prices *p, const char *gpu_id)
{
    for (int i = 0; p && gpu_id && i < p->n_servers; i++)
        if (gpi_strcaseeq(p->servers[i].gpu, gpu_id))
            return &p->servers[i];
    return p ? &p->server_default : NULL;
}

int gpi_prices_low_confidence(const gpi_prices *p, const char *id)
{
    for (int i = 0; p && id && i < p->risks.n_low_confidence; i++)
        if (gpi_strcaseeq(p->risks.low_confidence[i], id))
            return 1;
    return 0;
}

double gpi_prices_import_duty(const gpi_prices *p, const char *country)
{
    for (int i = 0; p && country && i < p->risks.n_import_duties; i++)
        if (gpi_strcaseeq(p->risks.import_duty_country[i], country))
            return p->risks.import_duty[i];
    return 0.0;
}

const gpi_gpu_price *gpi_prices_find_gpu(const gpi_prices *p, const char *gpu_id)
{
    for (int i = 0; p && gpu_id && i < p->n_gpus; i++)
        if (gpi_strcaseeq(p->gpus[i].gpu, gpu_id))
            return &p->gpus[i];
    return NULL;
}

const gp_deployment *gpi_prices_find_deployment(const gpi_prices *p, const char *id)
{
    for (int i = 0; p && id && i < p->n_deployments; i++)
        if (gpi_strcaseeq(p->deployments[i].id, id))
            return &p->deployments[i];
    return NULL;
}

gp_status gpi_prices_rate(const gpi_prices *p, const char *code, double *per_usd, gp_error *err)
{
    if (!code || !*code || gpi_strcaseeq(code, "USD")) {
        *per_usd = 1.0;
        return GP_OK;
    }
    for (int i = 0; i < p->n_currencies; i++)
        if (gpi_strcaseeq(p->currencies[i].code, code)) {
            *per_usd = p->currencies[i].per_usd;
            return GP_OK;
        }
    char known[256] = "";
    for (int i = 0; i < p->n_currencies; i++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", i ? ", " : "", p->currencies[i].code);
    gpi_error_set_field(err, "currency");
    return gpi_fail(err, GP_ENOTFOUND,
                    "no exchange rate for currency '%s' (prices.json has %s; add one with --data-dir)", code, known);
}

double gpi_prices_gpu_hour(const gpi_prices *p, const gp_gpu *gpu, const gp_deployment *d, int reserved)
{
    const gpi_gpu_price *g = gpi_prices_find_gpu(p, gpu ? gpu->id : NULL);
    if (!g || !d || d->kind == GP_DEPLOY_OWNED)
        return 0.0;
    double od = g->on_demand_usd_per_hour, rs = g->reserved_usd_per_hour;
    if (d->tier == GP_TIER_HYPERSCALER) {
        od = g->hyperscaler_usd_per_hour > 0 ? g->hyperscaler_usd_per_hour : od * p->hyperscaler_ratio;
        rs = 0; /* hyperscaler reservations: the same discount off its own on-demand rate */
    }
    if (rs <= 0)
        rs = od * (1.0 - p->reserved_discount);
    return (reserved ? rs : od) * d->region_multiplier;
}

static const gpi_country_costs *country(const gpi_prices *p, const char *code)
{
    for (int i = 0; i < p->n_countries; i++)
        if (gpi_strcaseeq(p->countries[i].country, code))
            return &p->countries[i];
    return NULL;
}

/* One training run: owned, its share of the amortized month; cloud, on-demand hours unless the
 * run itself lasts a reservation term; bare metal, whole months of rent (it is rented by the
 * month). */
static double run_cost(const gpi_prices *p, const gpi_cost_input *in, const gp_deployment *d, const gp_cost *c)
{
    double hpm = p->hours_per_month;
    if (d->kind == GP_DEPLOY_OWNED)
        return c->monthly_amortized * in->run_hours / hpm;
    if (d->kind == GP_DEPLOY_BAREMETAL)
        return ceil(in->run_hours / hpm) * c->monthly;
    int reserve = in->run_hours >= p->reserved_min_months * hpm;
    double per_gpu = reserve ? c->gpu_hour_reserved : c->gpu_hour_on_demand;
    return per_gpu * in->gpus * in->run_hours;
}

gp_status gpi_cost_estimate(const gpi_prices *p, const gpi_cost_input *in, const char *currency, gp_cost *out,
                            gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (!in->gpu || !in->deployment || in->gpus < 1)
        return gpi_fail(err, GP_EINVAL, "cost: an option needs a GPU, a deployment and at least one GPU");
    if (in->horizon_months < 1 || in->horizon_months > GP_COST_MAX_MONTHS) {
        gpi_error_set_field(err, "horizon_months");
        return gpi_fail(err, GP_EINVAL, "the horizon must be 1 to %d months, not %d", GP_COST_MAX_MONTHS,
                        in->horizon_months);
    }
    double rate;
    gp_status st = gpi_prices_rate(p, currency, &rate, err);
    if (st)
        return st;
    gpi_strlcpy(out->currency, currency && *currency ? currency : "USD", sizeof out->currency);
    out->per_usd = rate;
    const gp_deployment *d = in->deployment;
    out->kind = d->kind;
    out->months = in->horizon_months;
    double n = in->gpus, hpm = p->hours_per_month;
    const gpi_server_spec *sv = gpi_prices_server(p, in->gpu->id);
    out->gpus_per_server = sv && sv->gpus_per_server > 0 ? sv->gpus_per_server : 8;
    out->servers = (in->gpus + out->gpus_per_server - 1) / out->gpus_per_server;
    out->rack_units = out->servers * (sv && sv->rack_units > 0 ? sv->rack_units : 4);
    out->power_kw = n * in->gpu->tdp_w * p->system_power_factor / 1000.0;
    double usd_upfront = 0, usd_monthly = 0, usd_hourly = 0, usd_egress = 0, usd_power = 0, usd_hosting = 0;
    if (d->kind == GP_DEPLOY_OWNED) {
        const gpi_gpu_price *g = gpi_prices_find_gpu(p, in->gpu->id);
        const gpi_country_costs *cc = country(p, d->country);
        if (!g || g->purchase_usd <= 0 || !cc || in->gpu->tdp_w <= 0)
            return GP_OK; /* available = 0: no purchase price, country costs or TDP */
        usd_upfront = n * g->purchase_usd * p->system_multiplier;
        usd_power = out->power_kw * p->pue * hpm * cc->power_usd_per_kwh;
        usd_hosting = out->power_kw * cc->hosting_usd_per_kw_month;
        usd_monthly = usd_power + usd_hosting;
        usd_hourly = usd_monthly / hpm;
    } else {
        double od = gpi_prices_gpu_hour(p, in->gpu, d, 0), rs = gpi_prices_gpu_hour(p, in->gpu, d, 1);
        if (od <= 0)
            return GP_OK;
        out->gpu_hour_on_demand = od * rate;
        out->gpu_hour_reserved = rs * rate;
        out->reserved = d->kind == GP_DEPLOY_BAREMETAL || in->horizon_months >= p->reserved_min_months;
        usd_hourly = n * (out->reserved ? rs : od);
        usd_egress = in->egress_tb_per_month * p->egress_usd_per_tb;
        usd_monthly = usd_hourly * hpm + usd_egress;
    }
    out->available = 1;
    out->hourly = usd_hourly * rate;
    out->upfront = usd_upfront * rate;
    out->power_monthly = usd_power * rate;
    out->hosting_monthly = usd_hosting * rate;
    out->egress_monthly = usd_egress * rate;
    out->monthly = usd_monthly * rate;
    out->monthly_amortized = out->monthly + out->upfront / p->amortization_months;
    for (int m = 0; m <= in->horizon_months; m++)
        out->cumulative[m] = out->upfront + out->monthly * m;
    out->total = out->cumulative[in->horizon_months];
    /* what a weaker local currency would raise: everything but the local power bill */
    out->usd_exposed = (out->total - out->power_monthly * in->horizon_months) * (rate != 1.0);
    if (in->output_tokens_per_month > 0)
        out->per_million_tokens = out->total / (in->output_tokens_per_month * in->horizon_months) * 1e6;
    if (in->run_hours > 0)
        out->per_run = run_cost(p, in, d, out);
    return GP_OK;
}

int gpi_cost_break_even_month(const gp_cost *owned, const gp_cost *rented)
{
    if (!owned->available || !rented->available)
        return 0;
    int months = owned->months < rented->months ? owned->months : rented->months;
    for (int m = 1; m <= months; m++)
        if (owned->cumulative[m] <= rented->cumulative[m])
            return m;
    return 0;
}
