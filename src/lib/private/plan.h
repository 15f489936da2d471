/*
 * private/plan.h: prices, cost, data rules, reliability and the plan behind gp_plan_run.
 * Declarations libgpuplan's modules share; never installed, not part of the API (the
 * functions are hidden in libgpuplan.so). docs/architecture.md, "Public and private".
 */
#ifndef GPI_PRIVATE_PLAN_H
#define GPI_PRIVATE_PLAN_H

#include "gpuplan.h"
#include "private/base.h"
#include "private/train.h"
#include "private/serve.h"
#include "private/export.h"

/* ---- from include/gpuplan/plan.h ---- */
#define GPI_PRICES_MAX_GPUS 64

#define GPI_PRICES_MAX_COUNTRIES 16

#define GPI_PRICES_MAX_CURRENCIES 16

typedef struct gpi_gpu_price {
    char gpu[64];                    /* catalog GPU id */
    double on_demand_usd_per_hour;   /* specialty cloud (neocloud) on-demand, per GPU; 0: none */
    double reserved_usd_per_hour;    /* 1-year reserved; 0: on-demand x (1 - reserved_discount) */
    double hyperscaler_usd_per_hour; /* hyperscaler on-demand; 0: on-demand x hyperscaler_ratio */
    double purchase_usd;             /* one GPU; 0: unknown (no owned option) */
    char source[GP_SOURCE_MAX];
} gpi_gpu_price;

const char *gpi_deploy_kind_name(gp_deploy_kind k); /* "cloud", "baremetal", "owned" */

typedef struct gpi_country_costs {
    char country[8];
    double power_usd_per_kwh;        /* converted from the file's currency */
    double hosting_usd_per_kw_month; /* colocation, per kW of IT load */
    char source[GP_SOURCE_MAX];
} gpi_country_costs;

typedef struct gpi_currency {
    char code[8];   /* "BRL" */
    double per_usd; /* units of this currency per US dollar */
    char as_of[32];
    char source[GP_SOURCE_MAX];
} gpi_currency;

/* One server of a GPU type: how many GPUs it holds and its height in the rack. */
typedef struct gpi_server_spec {
    char gpu[64];
    int gpus_per_server;
    int rack_units;
    char source[GP_SOURCE_MAX];
} gpi_server_spec;

#define GPI_PRICES_MAX_LOW_CONFIDENCE 32

typedef struct gpi_price_risks {
    double exchange_rate_move; /* fraction the local currency may lose against USD */
    int n_import_duties;
    char import_duty_country[GPI_PRICES_MAX_COUNTRIES][8];
    double import_duty[GPI_PRICES_MAX_COUNTRIES]; /* fraction of the purchase, by country */
    double lead_time_months;                      /* from order to servers running */
    double utilization_low;                       /* fraction of the planned load in the what-if */
    int n_low_confidence;                         /* GPU or deployment ids whose prices are low-confidence */
    char low_confidence[GPI_PRICES_MAX_LOW_CONFIDENCE][48];
} gpi_price_risks;

/* Everything of data/prices.json, USD unless stated. */
typedef struct gpi_prices {
    char as_of[32];
    int n_gpus;
    gpi_gpu_price gpus[GPI_PRICES_MAX_GPUS];
    int n_deployments;
    gp_deployment deployments[GP_PRICES_MAX_DEPLOYMENTS];
    int n_countries;
    gpi_country_costs countries[GPI_PRICES_MAX_COUNTRIES];
    int n_currencies;
    gpi_currency currencies[GPI_PRICES_MAX_CURRENCIES];
    double egress_usd_per_tb; /* data moved out to the internet, per 10^12 bytes */
    /* constants (each sourced in the file) */
    double hours_per_month;     /* 730 */
    double reserved_discount;   /* fraction off on-demand for a 1-year reservation */
    int reserved_min_months;    /* horizon from which cloud options use reserved rates */
    double hyperscaler_ratio;   /* hyperscaler / neocloud on-demand */
    double system_multiplier;   /* server price per GPU / GPU price */
    double system_power_factor; /* server wall power / GPUs' TDP */
    double pue;                 /* facility energy / IT energy */
    int amortization_months;    /* straight-line life of owned servers */
    double egress_bytes_per_output_token;
    /* servers (prices.json "servers"): what one server of a GPU holds */
    int n_servers;
    gpi_server_spec servers[GPI_PRICES_MAX_GPUS];
    gpi_server_spec server_default; /* a GPU without a row */
    /* what-ifs the report sizes its risks with (prices.json "risks") */
    gpi_price_risks risks;
} gpi_prices;

/* Read the catalog's prices (built-in data/prices.json, overridden by --data-dir). */
gp_status gpi_prices_load(const gp_catalog *cat, gpi_prices *out, gp_error *err);

/* Price row of a GPU (case-insensitive id), NULL if none. */
const gpi_gpu_price *gpi_prices_find_gpu(const gpi_prices *p, const char *gpu_id);

const gp_deployment *gpi_prices_find_deployment(const gpi_prices *p, const char *id);

/* Units of `code` per USD; GP_ENOTFOUND (field "currency") if the file has no such rate. */
gp_status gpi_prices_rate(const gpi_prices *p, const char *code, double *per_usd, gp_error *err);

/* The server spec of a GPU (the file's default when it has no row of its own). */
const gpi_server_spec *gpi_prices_server(const gpi_prices *p, const char *gpu_id);

/* Is this GPU's or deployment's price marked low-confidence in the file? */
int gpi_prices_low_confidence(const gpi_prices *p, const char *id);

/* Import duty on bought hardware in a country (fraction; 0 if none known). */
double gpi_prices_import_duty(const gpi_prices *p, const char *country);

/* Price per GPU-hour of a GPU on a cloud/bare-metal deployment (USD): on-demand or
 * reserved column of the deployment's tier x region multiplier. 0 if unknown. */
double gpi_prices_gpu_hour(const gpi_prices *p, const gp_gpu *gpu, const gp_deployment *d, int reserved);

typedef struct gpi_cost_input {
    const gp_gpu *gpu;
    int gpus; /* GPUs of the whole option */
    const gp_deployment *deployment;
    int horizon_months;             /* 1 .. GP_COST_MAX_MONTHS */
    double egress_tb_per_month;     /* data moved out (cloud and bare metal pay it) */
    double output_tokens_per_month; /* serving: for cost per million tokens (0: none) */
    double run_hours;               /* training: hours of one run (0: serving) */
} gpi_cost_input;

/* Cost of one option. GP_EINVAL on a bad horizon or GPU count; an option without a price is
 * GP_OK with available = 0. */
gp_status gpi_cost_estimate(const gpi_prices *p, const gpi_cost_input *in, const char *currency, gp_cost *out,
                            gp_error *err);

/* First month m (1..months) by whose end `owned` has cost no more than `rented`; 0 if none
 * within the horizon. */
int gpi_cost_break_even_month(const gp_cost *owned, const gp_cost *rented);

const char *gpi_rule_kind_name(gp_rule_kind k); /* "in_country" */

/* Load a profile by id (case-insensitive) from the catalog's compliance data.
 * GP_ENOTFOUND naming the known profiles (field "compliance"). */
gp_status gpi_compliance_profile(const gp_catalog *cat, const char *id, gp_profile *out, gp_error *err);

typedef struct gpi_compliance_subject {
    const gp_deployment *deployment;
    gp_dtype weight_dtype; /* precision the weights are served/trained in */
    int spare_replicas;    /* redundancy the option has (serving); -1: n/a */
    int consumer_gpu;      /* 1: a consumer card (gp_gpu.consumer) */
} gpi_compliance_subject;

/* Check one option against a profile. */
void gpi_compliance_check(const gp_profile *p, const gpi_compliance_subject *s, gp_compliance_verdict *out);

/* Spare replicas the profile asks for (max over its redundancy rules, 0 if none). */
int gpi_compliance_redundancy(const gp_profile *p);

/* Sourced defaults (docs/cost.md, "Reliability"). */
void gpi_reliability_defaults(gp_reliability_params *p);

/* Training under failures: `gpus` GPUs, failure-free time `time_s`, `checkpoint_bytes`
 * written per checkpoint (sharded over the GPUs). */
gp_status gpi_train_reliability_estimate(const gp_reliability_params *p, int gpus, double time_s,
                                         double checkpoint_bytes, gp_train_reliability *out, gp_error *err);

/* Smallest spare count s >= min_spares with P(Binomial(serving + s, a) >= serving) >= target
 * (target 0: s = min_spares). */
gp_status gpi_serve_reliability_estimate(const gp_reliability_params *p, int gpus_per_replica, int serving,
                                         int min_spares, double target, gp_serve_reliability *out, gp_error *err);

/* Defaults: task infer, no load, compliance "none", USD, 36 months, egress from tokens,
 * reliability defaults. */
void gpi_plan_request_defaults(gp_plan_request *r);

const char *gpi_alt_kind_name(gp_alt_kind k); /* "cloud", "baremetal", "owned", "other_gpu", "other_precision" */

const char *gpi_risk_kind_name(gp_risk_kind k); /* "exchange_rate", ... */

/* Plan. `out` is large (caller-owned, heap it). */
gp_status gpi_plan(const gp_catalog *cat, const gp_plan_request *req, gp_plan_result *out, gp_error *err);

/* The launch job of option `option` of a plan (one replica's command when serving): the
 * engine to export for, and *job filled to borrow *w and *l, which this fills too. The same
 * job gives the report's command line and `plan --export`'s files. */
gpi_export_target gpi_plan_launch_job(const gp_catalog *cat, const gp_plan_request *req, const gp_plan_result *res,
                                      int option, gpi_export_job *job, gp_workload *w, gp_layout *l);

typedef enum gpi_report_format {
    GPI_REPORT_TEXT = 0,
    GPI_REPORT_JSON,
    GPI_REPORT_MARKDOWN,
    GPI_REPORT_HTML, /* one self-contained file: inline CSS and SVG, no external URL */
    GPI_REPORT_FORMAT_COUNT
} gpi_report_format;

gpi_report_format gpi_report_format_parse(const char *s); /* FORMAT_COUNT if unknown */

typedef struct gpi_report_opts {
    gpi_report_format format;
    const char *lang;     /* "en" (default) or "pt-BR" */
    const char *title;    /* NULL: a title from the question */
    const char *question; /* the question in one line (NULL: none) */
} gpi_report_opts;

/* Render a plan into a malloc'd NUL-terminated string (*out, length *len); free it with
 * gpi_report_free. JSON keys follow shared/design/interface.md ("plan"). */
gp_status gpi_report_render(const gp_plan_request *req, const gp_plan_result *res, const gpi_report_opts *opts,
                            char **out, size_t *len, gp_error *err);

void gpi_report_free(char *s);

#endif /* GPI_PRIVATE_PLAN_H */
