/*
 * gpuplan/plan.h: what a plan's answer holds (included by gpuplan.h; not a header of its own).
 *
 * gp_plan_run (gpuplan/run.h) answers with the request as the scenario built it
 * (gp_plan_request) and the ranked options (gp_plan_result): per candidate GPU and precision, a
 * serving capacity search or a training layout search, times every deployment, costed
 * (docs/cost.md), checked against the data rules (docs/compliance.md; guidance, not legal
 * advice) and sized for failures; gp_result_report renders its report (text, Markdown,
 * self-contained HTML) and gp_result_plan_export an option's launch files. Prices, cost,
 * rules and reliability are computed by the library's own modules (src/lib/private/plan.h).
 *
 * Ownership: plain values inside a gp_result; pointers in them borrow the result or the
 * catalog. Thread safety: read-only once returned.
 */
#ifndef GPUPLAN_PLAN_H
#define GPUPLAN_PLAN_H

/* ---- 1. prices and cost ----------------------------------------------------------------- */

#define GP_PRICES_MAX_DEPLOYMENTS 16
#define GP_SOURCE_MAX             512

typedef enum gp_deploy_kind {
    GP_DEPLOY_CLOUD = 0, /* rented by the hour (on-demand, or reserved for long horizons) */
    GP_DEPLOY_BAREMETAL, /* dedicated servers rented monthly (priced at reserved rates) */
    GP_DEPLOY_OWNED,     /* bought: purchase up front, power and hosting monthly */
    GP_DEPLOY_KIND_COUNT
} gp_deploy_kind;

typedef enum gp_price_tier {
    GP_TIER_NEOCLOUD = 0, /* specialty GPU clouds (RunPod, Lambda, ...) */
    GP_TIER_HYPERSCALER,  /* AWS, Azure, GCP, Oracle */
    GP_TIER_COUNT
} gp_price_tier;

typedef struct gp_deployment {
    char id[48]; /* "hyperscaler-br" */
    char name[128];
    char name_pt[128]; /* in Brazilian Portuguese ("" : name) */
    gp_deploy_kind kind;
    gp_price_tier tier;       /* which hourly column prices it */
    char country[8];          /* ISO 3166-1 alpha-2 of where the GPUs are */
    int shared;               /* 1: shared (multi-tenant) public cloud */
    int audit_logging;        /* 1: access/audit logs are available */
    double region_multiplier; /* x hourly prices in this region (1: none) */
    char source[GP_SOURCE_MAX];
} gp_deployment;

/* Longest horizon a cost curve holds (10 years). */
#define GP_COST_MAX_MONTHS 120

/* The cost of one option, in the chosen currency (amounts) with their USD base. */
typedef struct gp_cost {
    char currency[8];
    double per_usd; /* exchange rate used */
    gp_deploy_kind kind;
    int available;             /* 0: no price for this GPU here (the option is dropped) */
    int reserved;              /* cloud: priced at reserved rates (horizon >= min months) */
    double gpu_hour_on_demand; /* per GPU-hour, on-demand (cloud/bare metal) */
    double gpu_hour_reserved;  /* per GPU-hour, reserved */
    double hourly;             /* whole option, per hour, at the rate used */
    double upfront;            /* owned: servers bought in month 0 */
    double power_monthly;      /* owned: energy x PUE */
    double hosting_monthly;    /* owned: colocation per kW */
    double egress_monthly;     /* cloud/bare metal */
    double monthly;            /* recurring per month (excludes upfront) */
    double monthly_amortized;  /* monthly + upfront / amortization months */
    double total;              /* over the horizon: upfront + monthly x months */
    double per_million_tokens; /* total / output tokens over the horizon x 10^6 (0: n/a) */
    double per_run;            /* training: one run (cloud: hourly x hours; owned:
                                  monthly_amortized x hours / hours_per_month) */
    double power_kw;           /* IT load of the servers (every kind: what is rented draws it too) */
    int months;                /* horizon */
    int servers;               /* ceil(GPUs / GPUs per server) */
    int gpus_per_server;
    int rack_units;                            /* servers x rack units of one */
    double usd_exposed;                        /* part of total priced in USD (exchange-rate exposure), in `currency` */
    double cumulative[GP_COST_MAX_MONTHS + 1]; /* spent by the end of month m (0: upfront) */
} gp_cost;

/* ---- 2. data rules ---------------------------------------------------------------------- */

typedef enum gp_rule_kind {
    GP_RULE_IN_COUNTRY = 0,  /* GPUs in the profile's jurisdiction */
    GP_RULE_DEDICATED,       /* no shared public cloud */
    GP_RULE_MIN_WEIGHT_BITS, /* no weights below min_bits */
    GP_RULE_REDUNDANCY,      /* at least `replicas` spare replicas */
    GP_RULE_AUDIT_LOGGING,   /* audit logs available (an obligation on every option) */
    GP_RULE_DATACENTER_GPU,  /* no consumer (GeForce) GPUs (gp_gpu.consumer) */
    GP_RULE_KIND_COUNT
} gp_rule_kind;

#define GP_PROFILE_MAX_RULES 12
#define GP_RULE_TEXT_MAX     640

typedef struct gp_rule {
    char id[64]; /* "health.in_country" */
    gp_rule_kind kind;
    double min_bits;                    /* GP_RULE_MIN_WEIGHT_BITS */
    int replicas;                       /* GP_RULE_REDUNDANCY */
    char citation[GP_RULE_TEXT_MAX];    /* the norm, article by article */
    char citation_pt[GP_RULE_TEXT_MAX]; /* the same in Brazilian Portuguese ("": citation) */
    char url[256];
    char text_en[GP_RULE_TEXT_MAX];
    char text_pt[GP_RULE_TEXT_MAX]; /* pt-BR */
} gp_rule;

typedef struct gp_profile {
    char id[32]; /* "health" */
    char name_en[128], name_pt[128];
    char jurisdiction[8]; /* country the in_country rules mean */
    int n_rules;
    gp_rule rules[GP_PROFILE_MAX_RULES];
    char disclaimer_en[GP_RULE_TEXT_MAX], disclaimer_pt[GP_RULE_TEXT_MAX];
    char redundancy_why_en[GP_RULE_TEXT_MAX], redundancy_why_pt[GP_RULE_TEXT_MAX]; /* its default, said */
} gp_profile;

typedef struct gp_compliance_verdict {
    int allowed; /* no rule excludes it */
    int n_violated;
    int violated[GP_PROFILE_MAX_RULES]; /* indexes into profile->rules, in rule order */
    int n_obligations;
    int obligations[GP_PROFILE_MAX_RULES]; /* rules met that still ask something (audit logs) */
} gp_compliance_verdict;

/* ---- 3. reliability --------------------------------------------------------------------- */

typedef struct gp_reliability_params {
    double gpu_failures_per_hour;                /* per GPU (includes its share of host/network faults) */
    double mttr_hours;                           /* time to replace a failed replica (serving) */
    double restart_s;                            /* training: relaunch and reload after an interruption */
    double checkpoint_write_bytes_per_s_per_gpu; /* training: sharded checkpoint write rate */
} gp_reliability_params;

typedef struct gp_train_reliability {
    double job_mtbf_s;             /* mean time between interruptions of the whole job */
    double expected_interruptions; /* over the run, with overheads */
    double checkpoint_s;           /* time to write one checkpoint */
    double checkpoint_interval_s;  /* Young/Daly optimum of compute between checkpoints */
    double overhead_fraction;      /* wall time / failure-free time - 1 */
    double time_to_train_s;        /* with checkpoints, lost work and restarts */
} gp_train_reliability;

typedef struct gp_serve_reliability {
    double replica_availability; /* MTBF / (MTBF + MTTR) of one replica */
    int serving;                 /* replicas the load needs */
    int spares;                  /* extra replicas for the target */
    double availability;         /* P(at least `serving` replicas up) with the spares */
    double target;               /* asked (0: none) */
} gp_serve_reliability;

/* ---- 4. the plan ------------------------------------------------------------------------ */

#define GP_PLAN_MAX_GPUS    16
#define GP_PLAN_MAX_DTYPES  4
#define GP_PLAN_MAX_OPTIONS 128
#define GP_PLAN_MAX_NOTES   16
#define GP_PLAN_MAX_POINTS  64

typedef struct gp_plan_request {
    const gp_model *model;
    gp_workload w; /* task, engine, kv_dtype, ...; dtype from dtypes[] */
    int n_dtypes;  /* weight precisions to compare (0: w.dtype) */
    gp_dtype dtypes[GP_PLAN_MAX_DTYPES];
    int n_gpus; /* candidate GPU types (0: every priced catalog GPU) */
    const gp_gpu *gpus[GP_PLAN_MAX_GPUS];
    int fixed_tp; /* serving: > 0 fixes TP */
    /* serving (task infer) */
    gp_traffic traffic;
    gp_slo slo;
    int redundancy;      /* spare replicas asked (the profile may ask more) */
    double availability; /* target fraction of time the load is served (0: none) */
    /* training (task train/lora/qlora) */
    gp_train_search_opts train; /* gpus or deadline, tokens, fixed layout */
    /* decision */
    char compliance[32]; /* profile id ("none") */
    char currency[8];    /* "USD", "BRL" */
    int horizon_months;
    double egress_tb_per_month; /* < 0: from the output tokens served */
    int n_deployments;          /* deployment ids to consider (0: all in prices) */
    char deployments[GP_PRICES_MAX_DEPLOYMENTS][48];
    gp_reliability_params reliability;
    int allow_consumer; /* 1: keep consumer GPUs in regulated/production plans */
} gp_plan_request;

typedef struct gp_plan_option {
    int rank; /* 1-based among allowed options; 0: excluded */
    char gpu[64];
    gp_dtype dtype;
    gp_deployment deployment;
    gp_layout layout; /* per replica (serving) or the whole job (training) */
    int replicas;     /* serving: total incl. spares; training: 1 */
    int gpus_total;
    gp_memory memory; /* per GPU */
    /* serving */
    gp_serve_option serve;          /* the capacity search's setup (latencies, KV) */
    double throughput_tokens_per_s; /* output tokens/s of the serving replicas */
    double requests_per_s;
    double error_p10, error_p90; /* serving: the likely range, as gp_serve_answer's */
    gp_serve_reliability serve_rel;
    /* training */
    gp_train_perf train;
    gp_train_reliability train_rel;
    /* decision */
    gp_cost cost;
    int break_even_month;   /* owned: vs renting the same setup (0: none in horizon) */
    char break_even_vs[48]; /* the deployment compared with */
    gp_compliance_verdict compliance;
    int consumer; /* the GPU is a consumer card (gp_gpu.consumer) */
} gp_plan_option;

typedef struct gp_plan_point { /* throughput vs GPU count (a chart) */
    char gpu[64];
    gp_dtype dtype;
    int gpus;
    double throughput_tokens_per_s;
    int meets;
} gp_plan_point;

/* The best alternative of one kind to the recommendation (docs/cost.md, "The decision"). */
typedef enum gp_alt_kind {
    GP_ALT_CLOUD = 0,       /* rent by the hour in a cloud */
    GP_ALT_BAREMETAL,       /* rent dedicated servers by the month */
    GP_ALT_OWNED,           /* buy the servers */
    GP_ALT_OTHER_GPU,       /* another GPU type (e.g. one bigger GPU instead of several) */
    GP_ALT_OTHER_PRECISION, /* other weights (quantize, or keep 16-bit) */
    GP_ALT_KIND_COUNT
} gp_alt_kind;

typedef struct gp_plan_alternative {
    gp_alt_kind kind;
    int option;           /* index into options: the cheapest allowed one of the kind (-1: none) */
    int excluded;         /* none allowed: index into excluded of the cheapest (-1: none) */
    double extra;         /* its total (serving) or cost per run (training) - the recommended's */
    int break_even_month; /* recommended owned vs this rental: month (0: not within the horizon;
                             -1: not applicable) */
} gp_plan_alternative;

typedef enum gp_risk_kind {
    GP_RISK_EXCHANGE_RATE = 0, /* the local currency loses `parameter` against USD */
    GP_RISK_IMPORT_DUTY,       /* owned: import duty `parameter` x purchase, not in the price */
    GP_RISK_PRICE_CONFIDENCE,  /* prices marked low-confidence; `parameter`: the gap that reverses
                                  the ranking, as a fraction of the recommended total */
    GP_RISK_LEAD_TIME,         /* owned: `parameter` months to delivery, bridged by renting */
    GP_RISK_UTILIZATION,       /* the load is `parameter` of the plan: rented capacity shrinks, owned
                                  does not */
    GP_RISK_KIND_COUNT
} gp_risk_kind;

typedef struct gp_plan_risk {
    gp_risk_kind kind;
    double parameter;   /* the what-if (see gp_risk_kind) */
    double size;        /* extra cost of the recommended option under it (currency) */
    double alt_size;    /* the same what-if on the runner-up */
    int flips;          /* 1: under it the runner-up costs less than the recommendation */
    int low_confidence; /* price confidence: bit 0 the recommended's prices, bit 1 the runner-up's */
} gp_plan_risk;

/* What a data rule costs: the cheapest option only that rule excludes, vs the recommendation. */
typedef struct gp_plan_rule_price {
    int rule;      /* index into profile.rules */
    int excluded;  /* index into excluded (-1: the rule alone excludes nothing cheaper) */
    double saving; /* recommended total - that option's total (> 0: the rule costs this);
                      a redundancy rule: the share of the spares it asks for */
    int priced;    /* 1: saving is meaningful */
} gp_plan_rule_price;

#define GP_PLAN_MAX_RISKS 8

typedef struct gp_plan_result {
    int serving; /* 1: serving plan, 0: training plan */
    gp_profile profile;
    char currency[8];
    double per_usd;
    int horizon_months;
    int redundancy; /* spare replicas the search used */
    int n_options;  /* allowed, best first */
    gp_plan_option options[GP_PLAN_MAX_OPTIONS];
    int n_excluded; /* dropped by a rule, with it */
    gp_plan_option excluded[GP_PLAN_MAX_OPTIONS];
    int recommended; /* index into options, -1 if none */
    int n_points;
    gp_plan_point points[GP_PLAN_MAX_POINTS];
    int n_notes; /* GPUs or precisions without a setup, and why */
    char notes[GP_PLAN_MAX_NOTES][GP_ERROR_MSG_MAX];
    char prices_as_of[32];
    double egress_tb_per_month;
    char launch_engine[32];    /* engine of launch_command ("vllm") */
    char launch_command[4096]; /* the recommended option's launch command ("": none) */
    /* the decision (docs/cost.md "The decision"): filled when there is a recommendation */
    gp_plan_alternative alternatives[GP_ALT_KIND_COUNT]; /* by kind */
    int runner_up; /* index into options of the cheapest other option (-1: none) */
    int n_risks;
    gp_plan_risk risks[GP_PLAN_MAX_RISKS];
    int n_rule_prices;
    gp_plan_rule_price rule_prices[GP_PROFILE_MAX_RULES];
    double pue; /* facility energy / IT energy (prices.json), for "from the grid" */
} gp_plan_result;

/* ---- report ------------------------------------------------------------------------------ */

#endif /* GPUPLAN_PLAN_H */
