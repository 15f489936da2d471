/*
 * plan.c: gp_plan_run: the whole decision (gpi_plan): for each candidate GPU and precision, the
 * setup that carries the load or the job, priced per deployment over the horizon, checked
 * against the data rules and ranked; its document from the one JSON writer (gpi_json_plan,
 * render/json.c), and the report in the scenario's format on demand (gp_result_report).
 */
#include "run_impl.h"
#include "render/json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Keys plan takes only to refuse them: they fix or describe one setup; plan searches. */
static const struct {
    const char *key, *why;
} refused[] = {
    {"replicas", "--replicas fixes a setup; plan searches replicas (use 'gpuplan serve --replicas')"},
    {"trace", "--trace replays a fixed load; plan sizes for --users or --rate (use 'gpuplan serve --trace')"},
    {"gpus_per_node", NULL},
    {"intra_node", NULL},
    {"inter_node", NULL},
    {"top", NULL},
    {"rank", NULL},
    {"price_per_gpu_hour", NULL},
    {"scaling", NULL},
};

static gp_status check_question(const gp_scenario *sc, gp_error *err)
{
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (gp_scenario_has(sc, refused[i].key)) {
            if (refused[i].why)
                return gpi_usage(err, refused[i].key, "%s", refused[i].why);
            return gpi_usage(err, refused[i].key,
                             "'%s' is a 'gpuplan train' key plan does not take yet: plan uses "
                             "the GPU's default node shape and ranks by cost (docs/scenario.md)",
                             refused[i].key);
        }
    if (isinf(sc->rate))
        return gpi_usage(err, "rate",
                         "--rate inf is a benchmark load; plan sizes a steady load (--users or a finite --rate)");
    if (sc->task == GP_TASK_INFER && (sc->users > 0) + gp_scenario_has(sc, "rate") != 1)
        return gpi_usage(err, "users", "serving: give exactly one load, --users N or --rate R (or --task train)");
    if (sc->task != GP_TASK_INFER && (sc->tokens <= 0 || (sc->gpus <= 0 && sc->deadline <= 0)))
        return gpi_usage(err, "tokens", "training: give --tokens T and --gpus N or --deadline D");
    return GP_OK;
}

static gp_status candidates(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_plan_request *req,
                            gp_error *err)
{
    for (int i = 0; i < sc->dtype.n && req->n_dtypes < GP_PLAN_MAX_DTYPES; i++)
        req->dtypes[req->n_dtypes++] = gpi_dtype_parse(sc->dtype.v[i]);
    for (int i = 0; i < sc->gpu.n && req->n_gpus < GP_PLAN_MAX_GPUS; i++) {
        gp_status st = gpi_run_gpu(cat, sc->gpu.v[i], ctx, &req->gpus[req->n_gpus], err);
        if (st)
            return st;
        req->n_gpus++;
    }
    for (int i = 0; i < sc->deployment.n && req->n_deployments < GP_PRICES_MAX_DEPLOYMENTS; i++)
        gpi_strlcpy(req->deployments[req->n_deployments++], sc->deployment.v[i], sizeof req->deployments[0]);
    return GP_OK;
}

static gp_status build_request(const gp_catalog *cat, gp_result *r, const gp_run_ctx *ctx, gpi_guard *guard,
                               gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gp_plan_request *req = r->preq;
    gpi_plan_request_defaults(req);
    req->model = &r->model;
    req->w = r->w;
    gp_status st = candidates(cat, sc, ctx, req, err);
    if (st)
        return st;
    gp_layout given;
    gpi_run_layout(sc, &given);
    req->fixed_tp = given.tp;
    if (req->w.task == GP_TASK_INFER) {
        gpi_run_traffic(sc, &req->traffic);
        req->traffic.cancel = gpi_guard_stop;
        req->traffic.cancel_arg = guard;
        req->traffic.work = &guard->work;
        req->slo.ttft_s = sc->ttft_p99;
        req->slo.tpot_s = sc->tpot_p99;
        req->redundancy = sc->redundancy;
        req->availability = sc->availability;
        size_t n_gpus = req->n_gpus > 0 ? (size_t)req->n_gpus : gp_catalog_gpu_count(cat);
        size_t n_dtypes = req->n_dtypes > 0 ? (size_t)req->n_dtypes : 1;
        if ((st = gpi_run_budget(guard, gpi_serve_work(&req->traffic, sc, 1, n_gpus * n_dtypes), "this plan", err)))
            return st;
    } else {
        req->train.train_tokens = sc->tokens;
        req->train.gpus = (int)sc->gpus;
        req->train.deadline_s = sc->deadline;
        if (gp_scenario_has(sc, "max_gpus"))
            req->train.max_gpus = (int)sc->max_gpus;
        req->train.allow_tp_across_nodes = sc->allow_tp_across_nodes;
        req->train.fixed = given;
        req->train.rank = GP_RANK_TIME;
        req->train.top_k = 1;
        req->train.cancel = gpi_guard_stop;
        req->train.cancel_arg = guard;
        req->train.work = &guard->work;
    }
    gpi_strlcpy(req->compliance, sc->compliance[0] ? sc->compliance : "none", sizeof req->compliance);
    gpi_strlcpy(req->currency, sc->currency[0] ? sc->currency : "USD", sizeof req->currency);
    if (sc->horizon_months > 0)
        req->horizon_months = (int)sc->horizon_months;
    req->egress_tb_per_month = sc->egress_tb_per_month;
    req->allow_consumer = sc->allow_consumer;
    return GP_OK;
}

/* The plan's document from the one JSON writer; with report_html, the HTML report inside it. */
static gp_status plan_json(gp_result *r, gp_error *err)
{
    const int pt_br = r->sc.lang[0] == 'p';
    json_t *doc = gpi_json_plan(r->preq, r->pres, pt_br, NULL);
    if (doc && r->sc.report_html) { /* the web page's report download: the HTML inside the JSON */
        gpi_report_opts ro = {GPI_REPORT_HTML, pt_br ? "pt-BR" : "en", r->sc.title[0] ? r->sc.title : NULL, NULL};
        char *html = NULL;
        size_t len = 0;
        gp_status st = gpi_report_render(r->preq, r->pres, &ro, &html, &len, err);
        if (st != GP_OK) {
            json_decref(doc);
            return st;
        }
        json_object_set_new(doc, "report_html", json_string(html));
        gpi_report_free(html);
    }
    return gpi_run_finish(r, doc, err);
}

gp_status gp_result_report(const gp_result *r, char **text, size_t *len, gp_error *err)
{
    if (!r || r->command != GP_CMD_PLAN)
        return gpi_fail(err, GP_EINVAL, "a report is a plan's");
    gpi_report_opts ro = {GPI_REPORT_TEXT, r->sc.lang[0] ? r->sc.lang : "en", r->sc.title[0] ? r->sc.title : NULL,
                          NULL};
    if (r->sc.format[0])
        ro.format = gpi_report_format_parse(r->sc.format);
    return gpi_report_render(r->preq, r->pres, &ro, text, len, err);
}

gp_status gp_plan_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                      gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_status st = check_question(sc, err);
    if (st)
        return st;
    gp_result *r = gpi_result_new(GP_CMD_PLAN, sc);
    if (!r || !(r->preq = calloc(1, sizeof *r->preq)) || !(r->pres = calloc(1, sizeof *r->pres))) {
        gp_result_free(r);
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    }
    gpi_guard guard;
    st = gpi_guard_init(&guard, ctx, sc, err);
    if (!st)
        st = gpi_run_model(cat, sc, ctx, &r->model, err);
    if (!st)
        st = gpi_run_workload(sc, &r->w, err);
    if (!st)
        st = build_request(cat, r, ctx, &guard, err);
    if (!st)
        st = gpi_plan(cat, r->preq, r->pres, err);
    if (!st) {
        r->preq->traffic.cancel = NULL; /* the guard lives on this stack */
        r->preq->traffic.cancel_arg = NULL;
        r->preq->train.cancel = NULL;
        r->preq->train.cancel_arg = NULL;
        r->preq->traffic.work = r->preq->train.work = NULL;
        r->preq->model = &r->model;
        st = plan_json(r, err);
    }
    return gpi_run_end(r, st, NULL, out, err); /* plan_json wrote the document */
}

gp_status gp_result_plan_export(const gp_catalog *cat, const gp_result *r, int option, gp_export_files *out,
                                gp_error *err)
{
    if (!cat || !r || !out)
        return gpi_fail(err, GP_EINVAL, "plan export: catalog, result and output are required");
    memset(out, 0, sizeof *out);
    if (r->command != GP_CMD_PLAN || !r->preq || !r->pres)
        return gpi_fail(err, GP_EUSAGE, "plan export: the result is not a plan's");
    if (option < 0)
        option = r->pres->recommended;
    if (option < 0)
        return gpi_fail(err, GP_ENOTFOUND, "--export: no option is allowed, nothing to export");
    if (option >= r->pres->n_options)
        return gpi_fail(err, GP_EINVAL, "plan export: option %d is out of range (the plan has %d)", option,
                        r->pres->n_options);
    gp_workload w;
    gp_layout l;
    gpi_export_job job;
    gpi_export_target eng = gpi_plan_launch_job(cat, r->preq, r->pres, option, &job, &w, &l);
    return gpi_export_render(eng, &job, out, err);
}
