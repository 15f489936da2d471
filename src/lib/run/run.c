/*
 * run.c: what every question shares on its way from a scenario to the library: the model,
 * the GPU, the workload and layout, the load, the run's deadline and work budget, and the
 * result object with its accessors.
 */
#include "run_impl.h"
#include "render/json.h"
#include "render/text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double gp_run_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void gp_run_ctx_defaults(gp_run_ctx *ctx)
{
    memset(ctx, 0, sizeof *ctx);
}

/* The guard's gp_work reports to the run's progress callback. */
static int guard_progress(void *arg, double done, double limit)
{
    const gpi_guard *g = arg;
    const gp_work *w = &g->work;
    gp_run_progress p = {w->stage ? w->stage : "working", w->item, w->step, w->steps, done, limit,
                         gp_run_clock() - g->start_s};
    g->ctx->progress(g->ctx->progress_arg, &p);
    return 0;
}

gp_status gpi_guard_init(gpi_guard *g, const gp_run_ctx *ctx, const gp_scenario *sc, gp_error *err)
{
    memset(g, 0, sizeof *g);
    g->ctx = ctx;
    g->start_s = gp_run_clock();
    int api = ctx && ctx->api;
    double front = ctx && ctx->max_work > 0 ? ctx->max_work : api ? GP_RUN_API_WORK : GP_RUN_DEFAULT_WORK;
    g->budget = front;
    if (sc && sc->max_work > 0) {
        if (api && sc->max_work > front) {
            gpi_error_set_field(err, "max_work");
            return gpi_fail(err, GP_ELIMIT,
                            "scenario key 'max_work': %.3g is above this server's work budget of %.3g "
                            "per request",
                            sc->max_work, front);
        }
        g->budget = sc->max_work;
    }
    if (g->budget > GP_WORK_MAX)
        g->budget = GP_WORK_MAX;
    gpi_work_init(&g->work, 1);
    g->work.limit = g->budget;
    if (api)
        g->work.max_bytes = GPI_WORK_BYTES_DEFAULT;
    if (ctx && ctx->progress) {
        g->work.progress = guard_progress;
        g->work.progress_ctx = g;
    }
    return GP_OK;
}

int gpi_guard_stop(void *guard)
{
    const gp_run_ctx *c = ((const gpi_guard *)guard)->ctx;
    if (!c)
        return 0;
    if (c->cancel && c->cancel(c->cancel_arg))
        return 1;
    return c->deadline_s > 0 && gp_run_clock() > c->deadline_s;
}

gp_status gpi_run_budget(const gpi_guard *g, double work, const char *what, gp_error *err)
{
    const int api = g->ctx && g->ctx->api;
    if (!(work <= g->budget))
        return gpi_fail(err, GP_ELIMIT,
                        "%s asks for about %.3g simulated token-steps, above the %sbudget of %.3g: "
                        "ask for fewer requests, users or output tokens, or fix the GPU and TP%s",
                        what, work, api ? "web API's " : "", g->budget,
                        api || g->budget >= GP_WORK_MAX ? ""
                                                        : ", or raise the budget (max_work, --max-work; at most 1e12)");
    return GP_OK;
}

gp_status gpi_usage(gp_error *err, const char *field, const char *fmt, ...)
{
    if (err) {
        gp_error_clear(err);
        err->code = GP_EUSAGE;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        if (field)
            gpi_error_set_field(err, field);
    }
    return GP_EUSAGE;
}

gp_result *gpi_result_new(unsigned command, const gp_scenario *sc)
{
    gp_result *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->version = GP_RESULT_VERSION;
    r->command = command;
    r->sc = *sc;
    return r;
}

void gp_result_free(gp_result *r)
{
    if (!r)
        return;
    free(r->cr);
    free(r->dr);
    free(r->tres);
    free(r->preq);
    free(r->pres);
    if (r->files)
        gp_export_files_free(r->files);
    free(r->files);
    free(r->table);
    free(r->json);
    free(r);
}

gp_status gpi_run_finish(gp_result *r, json_t *doc, gp_error *err)
{
    return gpi_json_text(doc, &r->json, &r->json_len, err);
}

gp_status gpi_run_end(gp_result *r, gp_status st, json_t *doc, gp_result **out, gp_error *err)
{
    if (st == GP_OK && !r->json)
        st = gpi_run_finish(r, doc, err);
    else
        json_decref(doc);
    if (st != GP_OK) {
        gp_result_free(r);
        return st;
    }
    *out = r;
    return GP_OK;
}

/* ---- the model ---- */

static const char *const arch_keys[] = {"layers",         "hidden",  "heads",          "kv_heads",
                                        "head_dim",       "ffn",     "vocab",          "experts",
                                        "experts_active", "moe_ffn", "shared_experts", "tied_embeddings"};

static int any_arch_key(const gp_scenario *sc)
{
    for (size_t i = 0; i < sizeof arch_keys / sizeof arch_keys[0]; i++)
        if (gp_scenario_has(sc, arch_keys[i]))
            return 1;
    return 0;
}

static void custom_model(gp_model *m)
{
    m->norms_per_layer = 2;
    m->dtype = GP_DTYPE_BF16;
    m->origin = GP_ORIGIN_FLAGS;
    gpi_strlcpy(m->id, "custom", sizeof m->id);
    gpi_strlcpy(m->name, "custom model (from flags)", sizeof m->name);
    gpi_strlcpy(m->model_type, "custom", sizeof m->model_type);
    gpi_strlcpy(m->source, "flags", sizeof m->source);
}

static void apply_arch(const gp_scenario *sc, gp_model *m)
{
    int default_head_dim = m->heads > 0 && m->head_dim == m->hidden / m->heads;
    int default_kv = m->kv_heads == m->heads;
#define SET(K)                                                                                                         \
    do {                                                                                                               \
        if (gp_scenario_has(sc, #K))                                                                                   \
            m->K = sc->K;                                                                                              \
    } while (0)
    SET(layers);
    SET(hidden);
    SET(heads);
    SET(ffn);
    SET(vocab);
    SET(experts);
    SET(experts_active);
    SET(moe_ffn);
    SET(shared_experts);
#undef SET
    if (gp_scenario_has(sc, "tied_embeddings"))
        m->tied_embeddings = sc->tied_embeddings;
    if (gp_scenario_has(sc, "kv_heads"))
        m->kv_heads = sc->kv_heads;
    else if (default_kv || m->kv_heads == 0)
        m->kv_heads = m->heads;
    if (gp_scenario_has(sc, "head_dim"))
        m->head_dim = sc->head_dim;
    else if ((default_head_dim || m->head_dim == 0) && m->heads > 0)
        m->head_dim = m->hidden / m->heads;
    if (m->experts > 0 && m->moe_ffn == 0)
        m->moe_ffn = m->ffn;
    if (m->has_exact) { /* file-exact tallies describe the file, not the edited architecture */
        m->has_exact = 0;
        gpi_note(m->notes, sizeof m->notes,
                 "architecture edited by flags: exact counts from the files no longer apply");
    }
}

gp_status gpi_run_model(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_model *m, gp_error *err)
{
    memset(m, 0, sizeof *m);
    gp_status st = GP_OK;
    if (sc->model[0] && ctx && ctx->api) {
        if (gp_catalog_find_model(cat, sc->model, m, err) != GP_OK) {
            st = gpi_fail(err, GP_EINVAL,
                          "scenario key 'model': '%.200s' is not in the catalog (GET /api/models lists "
                          "it); the web API reads no files: give a catalog id, or the config.json "
                          "itself as an object",
                          sc->model);
            gpi_error_set_field(err, "model");
            return st;
        }
    } else if (sc->model[0]) {
        if ((st = gp_model_resolve(cat, sc->model, m, err)) != GP_OK)
            return st;
    } else if (sc->has_inline_model) {
        *m = sc->inline_model;
    } else if (!any_arch_key(sc)) {
        return gpi_usage(err, "model",
                         "which model? give --model X, or the architecture with --layers, --hidden, "
                         "--heads, --ffn and --vocab");
    } else
        custom_model(m);
    if (!any_arch_key(sc))
        return GP_OK;
    apply_arch(sc, m);
    return gp_model_validate(m, err);
}

/* ---- hardware ---- */

const char *gpi_run_gpu_name(const gp_scenario *sc)
{
    return sc->gpu.n > 0 ? sc->gpu.v[sc->gpu.n - 1] : "H100-SXM-80GB";
}

static gp_status local_gpu(const gp_catalog *cat, const gp_run_ctx *ctx, const gp_gpu **gpu, gp_error *err)
{
    gp_probe *p = NULL;
    gp_error e;
    if (gp_probe_open(ctx ? ctx->nvml_path : NULL, &p, &e) != GP_OK)
        return gpi_usage(err, "gpu", "--gpu local: %s", e.msg);
    gp_status st = GP_OK;
    if (gp_probe_gpu_count(p) == 0)
        st = gpi_usage(err, "gpu", "--gpu local: NVML lists no GPU on this machine");
    else if (gp_probe_match(cat, gp_probe_gpu_at(p, 0), gpu, &e) != GP_OK)
        st = gpi_usage(err, "gpu", "--gpu local: %s", e.msg);
    gp_probe_free(p);
    return st;
}

gp_status gpi_run_gpu(const gp_catalog *cat, const char *name, const gp_run_ctx *ctx, const gp_gpu **gpu, gp_error *err)
{
    if (!strcmp(name, "local"))
        return local_gpu(cat, ctx, gpu, err);
    return gp_catalog_find_gpu(cat, name, gpu, err);
}

/* ---- workload, layout, load ---- */

gp_status gpi_run_workload(const gp_scenario *sc, gp_workload *w, gp_error *err)
{
    gpi_workload_defaults(w, (gp_task)sc->task);
    if (sc->dtype.n > 0)
        w->dtype = gpi_dtype_parse(sc->dtype.v[sc->dtype.n - 1]);
    if (gp_scenario_has(sc, "kv_dtype"))
        w->kv_dtype = (gp_dtype)sc->kv_dtype;
#define SET(K)                                                                                                         \
    do {                                                                                                               \
        if (gp_scenario_has(sc, #K))                                                                                   \
            w->K = sc->K;                                                                                              \
    } while (0)
    SET(context);
    SET(batch);
    SET(seq);
    SET(lora_rank);
    SET(gpu_memory_utilization);
    SET(block_size);
    SET(max_num_batched_tokens);
    SET(max_num_seqs);
#undef SET
    if (gp_scenario_has(sc, "optimizer"))
        w->optimizer = (gp_optimizer)sc->optimizer;
    if (gp_scenario_has(sc, "offload"))
        w->offload = (gp_offload)sc->offload;
    if (sc->no_flash_attention)
        w->flash_attention = 0;
    if (sc->engine[0]) {
        gp_engine e = gpi_engine_parse(sc->engine);
        if (e >= GP_ENGINE_COUNT)
            return gpi_usage(err, "engine", "--engine takes one of none, vllm, sglang, tgi, trtllm, llamacpp, not '%s'",
                             sc->engine);
        w->engine = e;
    }
    return GP_OK;
}

void gpi_run_layout(const gp_scenario *sc, gp_layout *l)
{
    memset(l, 0, sizeof *l);
    l->recompute = GP_RECOMPUTE_NONE;
    l->tp = (int)sc->tp;
    l->pp = (int)sc->pp;
    l->dp = (int)sc->dp;
    l->cp = (int)sc->cp;
    l->ep = (int)sc->ep;
    l->zero = (int)sc->zero;
    l->micro_batch = sc->micro_batch;
    l->global_batch = sc->global_batch;
    l->virtual_stages = (int)sc->virtual_stages;
    l->sequence_parallel = sc->sequence_parallel;
    if (gp_scenario_has(sc, "recompute"))
        l->recompute = (gp_recompute)sc->recompute;
    /* named modules mean selective recomputation (Megatron-Core: --recompute-granularity
     * selective --recompute-modules ...); the key's parser has checked the names */
    if (gp_scenario_has(sc, "recompute_modules") &&
        gpi_recompute_modules_parse(sc->recompute_modules, &l->recompute_modules, NULL) == 0 &&
        !gp_scenario_has(sc, "recompute"))
        l->recompute = GP_RECOMPUTE_SELECTIVE;
}

void gpi_run_traffic(const gp_scenario *sc, gp_traffic *t)
{
    memset(t, 0, sizeof *t);
    t->seed = (uint64_t)sc->seed;
    t->requests = sc->requests;
    t->prompt.dist = t->output.dist = (gp_length_dist)sc->lengths;
    t->prompt.mean = (double)sc->prompt_tokens;
    t->output.mean = (double)sc->output_tokens;
    if (sc->command == GP_CMD_SERVE) { /* serve's traffic model (docs/serving.md, "Traffic") */
        t->prefix_hit = sc->prefix_hit;
        t->lockstep = sc->lengths == GP_LENGTH_FIXED;
    }
    if (sc->lengths == GP_LENGTH_LOGNORMAL) {
        gpi_length_default(&t->prompt, (double)sc->prompt_tokens);
        gpi_length_default(&t->output, (double)sc->output_tokens);
    } else if (sc->lengths == GP_LENGTH_EXPONENTIAL) {
        t->prompt.max = 4 * sc->prompt_tokens;
        t->output.max = 4 * sc->output_tokens;
    } else if (sc->lengths == GP_LENGTH_UNIFORM) {
        t->prompt.min = sc->prompt_tokens / 2 > 0 ? sc->prompt_tokens / 2 : 1;
        t->prompt.max = sc->prompt_tokens + sc->prompt_tokens / 2;
        t->output.min = sc->output_tokens / 2 > 0 ? sc->output_tokens / 2 : 1;
        t->output.max = sc->output_tokens + sc->output_tokens / 2;
    }
    if (sc->users > 0) {
        t->arrival = GP_ARRIVAL_CLOSED_LOOP;
        t->users = sc->users;
        t->think_time_s = sc->think_time;
    } else if (isinf(sc->rate)) {
        t->arrival = GP_ARRIVAL_BURST;
        if (t->requests <= 0)
            t->requests = 1000;
    } else {
        t->arrival = sc->arrival ? GP_ARRIVAL_FIXED_RATE : GP_ARRIVAL_POISSON;
        t->rate = sc->rate;
    }
}

gp_status gp_scenario_model(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_model *out,
                            gp_error *err)
{
    gp_error_clear(err);
    return gpi_run_model(cat, sc, ctx, out, err);
}

gp_status gpi_scenario_workload(const gp_scenario *sc, gp_workload *w, gp_error *err)
{
    gp_error_clear(err);
    return gpi_run_workload(sc, w, err);
}

void gpi_scenario_layout(const gp_scenario *sc, gp_layout *given)
{
    gpi_run_layout(sc, given);
}

/* ---- the result ---- */

gp_status gp_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out, gp_error *err)
{
    switch (sc ? sc->command : 0) {
    case GP_CMD_FIT: return gp_fit_run(cat, sc, ctx, out, err);
    case GP_CMD_TRAIN: return gp_train_run(cat, sc, ctx, out, err);
    case GP_CMD_SERVE: return gp_serve_run(cat, sc, ctx, out, err);
    case GP_CMD_PLAN: return gp_plan_run(cat, sc, ctx, out, err);
    case GP_CMD_EXPORT: return gp_export_run(cat, sc, ctx, out, err);
    case GP_CMD_TABLE: return gp_table_run(cat, sc, ctx, out, err);
    default: return gpi_fail(err, GP_EINVAL, "gp_run: the scenario names no question (fit, train, serve, plan)");
    }
}

int gp_result_version(const gp_result *r)
{
    return r ? r->version : 0;
}
unsigned gp_result_command(const gp_result *r)
{
    return r ? r->command : 0;
}
const gp_model *gp_result_model(const gp_result *r)
{
    return r ? &r->model : NULL;
}
const gp_gpu *gp_result_gpu(const gp_result *r)
{
    return r ? r->gpu : NULL;
}
const gp_workload *gp_result_workload(const gp_result *r)
{
    return r ? &r->w : NULL;
}
const gp_scenario *gp_result_scenario(const gp_result *r)
{
    return r ? &r->sc : NULL;
}
const gp_fit_result *gp_result_fit(const gp_result *r)
{
    return r && r->command == GP_CMD_FIT ? &r->fit : NULL;
}
const gp_serve_answer *gp_result_serve(const gp_result *r)
{
    return r && r->command == GP_CMD_SERVE ? &r->serve : NULL;
}
const gp_train_answer *gp_result_train(const gp_result *r)
{
    return r && r->command == GP_CMD_TRAIN ? &r->train : NULL;
}
const gp_plan_request *gp_result_plan_request(const gp_result *r)
{
    return r ? r->preq : NULL;
}
const gp_plan_result *gp_result_plan(const gp_result *r)
{
    return r ? r->pres : NULL;
}
const gp_table_answer *gp_result_table(const gp_result *r)
{
    return r ? r->table : NULL;
}
const gp_export_files *gp_result_export(const gp_result *r)
{
    return r ? r->files : NULL;
}
const gp_layout *gp_result_layout(const gp_result *r)
{
    return r && r->command == GP_CMD_EXPORT ? &r->layout : NULL;
}

gp_status gp_result_json(const gp_result *r, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    if (!r || !r->json)
        return gpi_fail(err, GP_EINVAL, "no result to render");
    *text = malloc(r->json_len + 1);
    if (!*text)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    memcpy(*text, r->json, r->json_len + 1);
    *len = r->json_len;
    return GP_OK;
}

gp_status gp_result_text(const gp_result *r, char **text, size_t *len, gp_error *err)
{
    *text = NULL;
    *len = 0;
    if (r && r->command == GP_CMD_PLAN)
        return gp_result_report(r, text, len, err);
    gpi_buf b = {0};
    if (r && r->command == GP_CMD_FIT)
        gpi_text_fit(&b, &r->model, r->gpu, &r->w, &r->sc, &r->fit);
    else if (r && r->command == GP_CMD_TRAIN)
        gpi_text_train(&b, &r->model, r->gpu, &r->w, &r->sc, &r->train);
    else if (r && r->command == GP_CMD_SERVE)
        gpi_text_serve(&b, &r->model, &r->w, &r->sc, &r->serve);
    else if (r && r->command == GP_CMD_TABLE && r->table)
        gpi_text_table(&b, r->table->rows, (size_t)r->table->n, r->gpu, &r->table->infer, &r->table->train);
    else
        return gpi_fail(err, GP_EINVAL, "no text for this result (an export's files: gp_result_export)");
    return gpi_buf_take(&b, text, len, err);
}
