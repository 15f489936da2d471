/*
 * predict.c: a measured run's scenario -> the library's prediction of the figure it measured,
 * under trial calibration values (docs/calibration.md, "How a run is predicted").
 *
 * The trial values go into a copy of the catalog's GPU row as one calibration entry, so a run
 * is predicted through exactly the hooks a profile later drives (train.c, infer.c): what the
 * fit sees is what every command will see.
 */
#include "calibrate_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Serving benchmarks are simulated with at most this many requests: the throughput of a
 * saturating load settles well before (the ramp-down tail is a few batches). */
#define GPI_CAL_MAX_SIM_REQUESTS 1000

/* Fail naming the run and the field: case_fail(err, run, field, fmt, extra) with fmt taking
   the run's id and then `extra` (a string). */
#define case_fail(err, r, field, fmt, a)                                                                               \
    (gpi_error_set_field(err, field), gpi_fail(err, GP_EINVAL, fmt, (r)->id, nz(a)))
static const char *nz(const char *s)
{
    return s ? s : "";
}

/* The run's scenario keys (less what the readers add for people: "framework") into sc. */
static gp_status scenario_of(const gpi_measured_run *r, gp_scenario *sc, gp_error *err)
{
    gp_scenario_init(sc, GP_CMD_TRAIN | GP_CMD_SERVE | GP_CMD_PLAN);
    json_t *o = json_loads(r->scenario_json ? r->scenario_json : "{}", 0, NULL);
    if (!o)
        return gpi_fail(err, GP_EPARSE, "run %s: its scenario is not a JSON object", r->id);
    json_object_del(o, "framework");
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    gp_status st = gp_scenario_parse_json(sc, text, strlen(text), r->id, GP_SRC_FILE, err);
    free(text);
    return st;
}

/* The model a log names; a chat or instruct fine-tune that the catalog does not list is its
 * base model's architecture ("meta-llama/Llama-3.1-8B-Instruct" -> "meta-llama/Llama-3.1-8B":
 * fine-tuning changes weights, not shapes). */
static gp_status resolve_model(const gp_catalog *cat, const char *name, gp_model *m, gp_error *err)
{
    gp_status st = gp_model_resolve(cat, name, m, err);
    if (st != GP_ENOTFOUND && st != GP_EINVAL)
        return st;
    static const char *const suffixes[] = {"-Instruct", "-Chat", "-it", "-chat-hf", "-hf"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (!gpi_ends_with(name, suffixes[i]))
            continue;
        char base[GP_SCENARIO_PATH_MAX];
        snprintf(base, sizeof base, "%.*s", (int)(strlen(name) - strlen(suffixes[i])), name);
        if (gp_model_resolve(cat, base, m, NULL) == GP_OK)
            return GP_OK;
    }
    return st;
}

#define OVERRIDE(field)                                                                                                \
    if (gp_scenario_has(sc, #field))                                                                                   \
    m->field = sc->field

static gp_status model_of(const gp_catalog *cat, const gpi_measured_run *r, const gp_scenario *sc, gp_model *m,
                          gp_error *err)
{
    memset(m, 0, sizeof *m);
    if (sc->has_inline_model)
        *m = sc->inline_model;
    else if (sc->model[0]) {
        gp_status st = resolve_model(cat, sc->model, m, err);
        if (st)
            return st;
    } else if (!gp_scenario_has(sc, "layers") || !gp_scenario_has(sc, "hidden") || !gp_scenario_has(sc, "heads"))
        return case_fail(err, r, "model",
                         "run %s: which model? the run names none: pass --model (or layers, hidden, heads)%s", NULL);
    else {
        m->dtype = GP_DTYPE_BF16;
        m->norms_per_layer = 2;
        m->vocab = 32000;
        snprintf(m->id, sizeof m->id, "explicit");
    }
    OVERRIDE(layers);
    OVERRIDE(hidden);
    OVERRIDE(heads);
    OVERRIDE(kv_heads);
    OVERRIDE(head_dim);
    OVERRIDE(ffn);
    OVERRIDE(vocab);
    OVERRIDE(experts);
    OVERRIDE(experts_active);
    OVERRIDE(moe_ffn);
    OVERRIDE(shared_experts);
    if (m->kv_heads <= 0)
        m->kv_heads = m->heads;
    if (m->head_dim <= 0 && m->heads > 0)
        m->head_dim = m->hidden / m->heads;
    if (m->ffn <= 0 && !m->experts)
        m->ffn = 4 * m->hidden;
    if (sc->tied_embeddings >= 0)
        m->tied_embeddings = sc->tied_embeddings;
    return gp_model_validate(m, err);
}

static gp_status gpu_of(const gp_catalog *cat, const gpi_measured_run *r, const gp_scenario *sc, gp_gpu *g,
                        gp_error *err)
{
    if (sc->gpu.n < 1)
        return case_fail(err, r, "gpu", "run %s: which GPU? the run names none: pass --gpu%s", NULL);
    const gp_gpu *cg;
    gp_status st = gp_catalog_find_gpu(cat, sc->gpu.v[sc->gpu.n - 1], &cg, err);
    if (st)
        return st;
    *g = *cg;
    g->n_cal = 0; /* the fit starts from the uncalibrated rates */
    g->cal_intra_scale = g->cal_inter_scale = 0;
    return GP_OK;
}

static gp_dtype dtype_of(const gp_scenario *sc, gp_dtype dflt)
{
    gp_dtype d = sc->dtype.n > 0 ? gpi_dtype_parse(sc->dtype.v[sc->dtype.n - 1]) : GP_DTYPE_UNKNOWN;
    return d != GP_DTYPE_UNKNOWN ? d : dflt;
}

static gp_status train_layout(const gpi_measured_run *r, const gp_scenario *sc, gpi_cal_case *cc, gp_error *err)
{
    gp_layout *l = &cc->l;
    gpi_layout_defaults(l);
    l->tp = sc->tp > 0 ? (int)sc->tp : 1;
    l->pp = sc->pp > 0 ? (int)sc->pp : 1;
    l->cp = sc->cp > 0 ? (int)sc->cp : 1;
    l->ep = sc->ep > 0 ? (int)sc->ep : 1;
    l->zero = (int)sc->zero;
    l->micro_batch = sc->micro_batch > 0 ? sc->micro_batch : 1;
    l->recompute = (gp_recompute)sc->recompute;
    l->sequence_parallel = sc->sequence_parallel;
    l->virtual_stages = sc->virtual_stages > 0 ? (int)sc->virtual_stages : 1;
    int64_t cell = (int64_t)l->tp * l->pp * l->cp;
    if (sc->dp > 0)
        l->dp = (int)sc->dp;
    else if (sc->gpus > 0 && sc->gpus % cell == 0)
        l->dp = (int)(sc->gpus / cell);
    else
        return case_fail(err, r, "gpus", "run %s: how many GPUs? give gpus (or dp): %s", "tp x pp x cp must divide it");
    int64_t unit = (int64_t)l->dp * l->micro_batch;
    l->global_batch = sc->global_batch > 0 ? sc->global_batch : unit;
    if (l->global_batch % unit != 0) { /* a log's global batch with another micro-batch: round up */
        l->global_batch = (l->global_batch / unit + 1) * unit;
    }
    return GP_OK;
}

static gp_status train_case(const gp_catalog *cat, const gpi_measured_run *r, const gp_scenario *sc, gpi_cal_case *cc,
                            gp_error *err)
{
    gpi_workload_defaults(&cc->w, GP_TASK_TRAIN);
    if (gp_scenario_has(sc, "seq"))
        cc->w.seq = sc->seq;
    cc->w.dtype = dtype_of(sc, GP_DTYPE_BF16);
    gp_status st = train_layout(r, sc, cc, err);
    if (st)
        return st;
    const gpi_link *inter = NULL;
    if (sc->inter_node[0] && (st = gpi_catalog_find_link(cat, sc->inter_node, &inter, err)))
        return st;
    gpi_cluster_defaults(&cc->cluster, cat, &cc->gpu, inter);
    if (sc->gpus_per_node > 0)
        cc->cluster.gpus_per_node = (int)sc->gpus_per_node;
    cc->dtype = gpi_cal_dtype(cc->w.dtype == GP_DTYPE_FP8 || cc->w.dtype == GP_DTYPE_FP4 ? cc->w.dtype : GP_DTYPE_BF16);
    /* the figure compared: the first the run gives, in this order */
    const struct {
        const char *name;
        double v;
    } q[] = {{"model_tflops_per_gpu", r->model_tflops_per_gpu},
             {"hw_tflops_per_gpu", r->hw_tflops_per_gpu},
             {"tokens_per_s_per_gpu", r->tokens_per_s_per_gpu},
             {"mfu", r->mfu},
             {"step_time_s", r->step_time_s}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (isfinite(q[i].v) && q[i].v > 0) {
            cc->quantity = q[i].name;
            cc->measured = q[i].v;
            return GP_OK;
        }
    return case_fail(err, r, "measured", "run %s: no training figure to compare (%s)",
                     "model_tflops_per_gpu, hw_tflops_per_gpu, tokens_per_s_per_gpu, mfu or step_time_s");
}

static gp_status serve_traffic(const gp_scenario *sc, gpi_cal_case *cc)
{
    gp_traffic *t = &cc->t;
    memset(t, 0, sizeof *t);
    t->seed = sc->seed > 0 ? (uint64_t)sc->seed : 1;
    t->prompt.mean = (double)sc->prompt_tokens;
    t->output.mean = (double)sc->output_tokens;
    t->requests = sc->requests > 0 ? sc->requests : 1000;
    if (sc->users > 0) {
        t->arrival = GP_ARRIVAL_CLOSED_LOOP;
        t->users = sc->users;
        t->think_time_s = sc->think_time;
    } else if (gp_scenario_has(sc, "rate") && isfinite(sc->rate)) {
        t->arrival = GP_ARRIVAL_POISSON;
        t->rate = sc->rate;
    } else
        t->arrival = GP_ARRIVAL_BURST; /* saturating load unless the run says the rate */
    if (t->requests > GPI_CAL_MAX_SIM_REQUESTS)
        t->requests = GPI_CAL_MAX_SIM_REQUESTS;
    return GP_OK;
}

static gp_status serve_case(const gp_catalog *cat, const gpi_measured_run *r, const gp_scenario *sc, gpi_cal_case *cc,
                            gp_error *err)
{
    gpi_workload_defaults(&cc->w, GP_TASK_INFER);
    gp_engine en = sc->engine[0] ? gpi_engine_parse(sc->engine) : GP_ENGINE_VLLM;
    cc->w.engine = en < GP_ENGINE_COUNT && en != GP_ENGINE_NONE ? en : GP_ENGINE_VLLM;
    cc->w.dtype = dtype_of(sc, cc->m.quant != GP_DTYPE_UNKNOWN ? cc->m.quant : cc->m.dtype);
    if (gp_scenario_has(sc, "kv_dtype"))
        cc->w.kv_dtype = (gp_dtype)sc->kv_dtype;
    if (gp_scenario_has(sc, "gpu_memory_utilization"))
        cc->w.gpu_memory_utilization = sc->gpu_memory_utilization;
    if (gp_scenario_has(sc, "max_num_batched_tokens"))
        cc->w.max_num_batched_tokens = sc->max_num_batched_tokens;
    gpi_layout_defaults(&cc->l);
    cc->l.tp = sc->tp > 0 ? (int)sc->tp : 1;
    cc->l.pp = sc->pp > 0 ? (int)sc->pp : 1;
    cc->l.ep = sc->ep > 0 ? (int)sc->ep : 1;
    serve_traffic(sc, cc);
    int64_t maxlen = sc->prompt_tokens + sc->output_tokens;
    gp_status st = gpi_serve_sched_config(&cc->m, &cc->gpu, &cc->w, &cc->l, maxlen, &cc->sched, err);
    if (st)
        return st;
    if (sc->max_num_seqs > 0)
        cc->sched.max_num_seqs = sc->max_num_seqs;
    (void)cat;
    gp_dtype wt = cc->w.dtype != GP_DTYPE_UNKNOWN ? cc->w.dtype : GP_DTYPE_BF16;
    cc->dtype = gpi_cal_dtype(wt);
    cc->engine = cc->w.engine;
    const struct {
        const char *name;
        double v;
    } q[] = {{"output_tokens_per_s", r->output_tokens_per_s},
             {"total_tokens_per_s", r->total_tokens_per_s},
             {"tpot_p50_s", r->tpot_p50_s},
             {"ttft_p50_s", r->ttft_p50_s}};
    for (size_t i = 0; i < sizeof q / sizeof q[0]; i++)
        if (isfinite(q[i].v) && q[i].v > 0) {
            cc->quantity = q[i].name;
            cc->measured = q[i].v;
            return GP_OK;
        }
    return case_fail(err, r, "measured", "run %s: no serving figure to compare (%s)",
                     "output_tokens_per_s, total_tokens_per_s, tpot_p50_s or ttft_p50_s");
}

gp_status gpi_cal_case_init(const gp_catalog *cat, const gpi_measured_run *r, gpi_cal_case *cc, gp_error *err)
{
    memset(cc, 0, sizeof *cc);
    cc->run = r;
    cc->cat = cat;
    cc->use = r->kind == GPI_RUN_TRAIN ? GP_CAL_TRAIN : GP_CAL_SERVE;
    gp_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    gp_status st = scenario_of(r, sc, err);
    if (!st)
        st = model_of(cat, r, sc, &cc->m, err);
    if (!st)
        st = gpu_of(cat, r, sc, &cc->gpu, err);
    if (!st)
        st = r->kind == GPI_RUN_TRAIN ? train_case(cat, r, sc, cc, err) : serve_case(cat, r, sc, cc, err);
    free(sc);
    if (st && err && !strstr(err->msg, r->id)) { /* say which run */
        char msg[GP_ERROR_MSG_MAX + GP_RUN_ID_MAX + 8];
        snprintf(msg, sizeof msg, "run %s: %s", r->id, err->msg);
        gpi_strlcpy(err->msg, msg, sizeof err->msg);
    }
    return st;
}

/* A copy of the case's GPU row carrying the trial values as its one calibration entry. */
static void trial_gpu(const gpi_cal_case *cc, const double *theta, gp_gpu *g)
{
    *g = cc->gpu;
    gp_gpu_cal *c = &g->cal[0];
    memset(c, 0, sizeof *c);
    c->use = cc->use;
    c->dtype = cc->dtype;
    c->engine = cc->use == GP_CAL_SERVE ? cc->engine : 0;
    c->runs = 1;
    c->gemm_scale = theta[GP_CALP_GEMM];
    c->attn_scale = theta[GP_CALP_ATTN];
    c->hbm_scale = theta[GP_CALP_HBM];
    c->comm_scale = theta[GP_CALP_COMM];
    c->step_overhead_s = theta[GP_CALP_OVERHEAD];
    g->n_cal = 1;
}

static double train_figure(const gpi_cal_case *cc, const gp_train_perf *p)
{
    const char *q = cc->quantity;
    return !strcmp(q, "model_tflops_per_gpu")   ? p->model_tflops_per_gpu
           : !strcmp(q, "hw_tflops_per_gpu")    ? p->hw_tflops_per_gpu
           : !strcmp(q, "tokens_per_s_per_gpu") ? p->tokens_per_s_per_gpu
           : !strcmp(q, "mfu")                  ? p->mfu
                                                : p->step_time_s;
}

static double serve_figure(const gpi_cal_case *cc, const gp_sim_result *r)
{
    const char *q = cc->quantity;
    return !strcmp(q, "output_tokens_per_s")  ? r->output_tokens_per_s
           : !strcmp(q, "total_tokens_per_s") ? r->total_tokens_per_s
           : !strcmp(q, "tpot_p50_s")         ? r->tpot.p50
                                              : r->ttft.p50;
}

double gpi_cal_case_predict(const gpi_cal_case *cc, const double *theta)
{
    gp_gpu g;
    trial_gpu(cc, theta, &g);
    if (cc->use == GP_CAL_TRAIN) {
        gp_train_perf p;
        if (gpi_train_perf_estimate(&cc->m, &g, &cc->cluster, &cc->w, &cc->l, 0, &p, NULL) != GP_OK)
            return NAN;
        return train_figure(cc, &p);
    }
    gpi_step_model sm;
    if (gpi_step_model_init(&cc->m, &g, NULL, &cc->w, &cc->l, NULL, &sm, NULL) != GP_OK)
        return NAN;
    gpi_step_model_use_rates(&sm, cc->cat, &cc->gpu, NULL); /* as gp_serve_run does */
    gp_sim_result res;
    if (gpi_simulate(&sm, &cc->sched, &cc->t, NULL, &res, NULL) != GP_OK)
        return NAN;
    return serve_figure(cc, &res);
}

void gpi_cal_theta_identity(double *theta)
{
    for (int i = 0; i < GP_CALP_COUNT; i++)
        theta[i] = 1.0;
    theta[GP_CALP_OVERHEAD] = -1.0; /* keep the engine's */
}
