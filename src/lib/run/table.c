/*
 * table.c: gp_table_run: the classic LLM sizing table (7B/13B/70B/405B class) computed from
 * the catalog's real configs, the rules of thumb side by side with gpuplan's accounting.
 *
 * Every figure comes from the library: gp_model_total_params, gpi_memory_estimate on one GPU
 * (the whole job on one device) and gpi_fit (the smallest layout of the GPU that holds it). The
 * only arithmetic here is the rules of thumb themselves (run.h) and percentages of the totals.
 */
#include "run_impl.h"
#include "render/json.h"

#include <stdlib.h>
#include <string.h>

/* The rows: one real catalog model per classic size class. */
static const char *const table_models[GP_TABLE_ROWS] = {"llama-3.1-8b", "llama-2-13b", "llama-3.1-70b",
                                                        "llama-3.1-405b"};

static void layout_label(const gp_fit_result *r, char *buf, size_t n)
{
    if (!r->fits) {
        snprintf(buf, n, "none");
        return;
    }
    const gp_layout *l = &r->min_layout;
    size_t o = (size_t)snprintf(buf, n, "%dx", r->min_gpus);
    if (l->tp > 1 && o < n)
        o += (size_t)snprintf(buf + o, n - o, " TP%d", l->tp);
    if (l->pp > 1 && o < n)
        o += (size_t)snprintf(buf + o, n - o, " PP%d", l->pp);
    if (l->dp > 1 && o < n)
        o += (size_t)snprintf(buf + o, n - o, " DP%d", l->dp);
    if (l->zero > 0 && o < n)
        snprintf(buf + o, n - o, " ZeRO-%d", l->zero);
}

/* Size one part (inference or training) of a row through the library. */
static gp_status size_part(const gp_catalog *cat, const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                           gp_recompute recompute, gp_table_part *out, gp_error *err)
{
    gp_layout one;
    gpi_layout_defaults(&one);
    one.recompute = recompute;
    gp_status st = gpi_memory_estimate(m, gpu, w, &one, &out->one, err);
    if (st)
        return st;
    gp_layout given; /* nothing fixed but the micro-batch and the recomputation */
    memset(&given, 0, sizeof given);
    given.micro_batch = 1;
    given.recompute = recompute;
    if ((st = gpi_fit(cat, m, gpu, w, &given, &out->fit, err)) != GP_OK)
        return st;
    layout_label(&out->fit, out->layout, sizeof out->layout);
    return GP_OK;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

static json_t *table_layout_json(const gp_table_part *p)
{
    if (!p->fit.fits)
        return json_null();
    const gp_layout *l = &p->fit.min_layout;
    return json_pack("{ss si si si si si sb}", "label", p->layout, "gpus", p->fit.min_gpus, "tp", l->tp, "pp", l->pp,
                     "dp", l->dp, "zero", l->zero, "sequence_parallel", l->sequence_parallel);
}

static json_t *row_json(const gp_table_row *r, const gp_workload *wi, const gp_workload *wt)
{
    const gp_memory *i = &r->infer.one, *t = &r->train.one;
    const double it = (double)i->per_gpu, tt = (double)t->per_gpu;
    const uint64_t states = t->weights + t->gradients + t->optimizer;
    json_t *inf = json_pack(
        "{ss sI sI sI sI sI sI sI sI sI so sI sb s{sf sf sf sf}}", "dtype", gp_dtype_name(wi->dtype), "context",
        (json_int_t)wi->context, "batch", (json_int_t)wi->batch, "rule_of_thumb_weights_bytes",
        (json_int_t)(GP_TABLE_RULE_INFER_BYTES * r->params), "weights_bytes", (json_int_t)i->weights, "kv_cache_bytes",
        (json_int_t)i->kv_cache, "activations_bytes", (json_int_t)i->activations, "overhead_bytes",
        (json_int_t)i->overhead, "total_bytes", (json_int_t)i->per_gpu, "min_gpus", (json_int_t)r->infer.fit.min_gpus,
        "min_layout", table_layout_json(&r->infer), "min_per_gpu_bytes", (json_int_t)r->infer.fit.min_memory.per_gpu,
        "single_gpu_sufficient", r->infer.fit.single_gpu_sufficient, "rule_of_thumb_leaves_out_pct", "kv_cache",
        pct((double)i->kv_cache, it), "activations", pct((double)i->activations, it), "overhead",
        pct((double)i->overhead, it), "total", pct((double)(i->kv_cache + i->activations + i->overhead), it));
    json_t *tr = json_pack(
        "{ss ss sI sI ss sI sI sI sI sI sI sI sI sI sI sI so sI sb s{sf sf sf}}", "optimizer",
        gp_optimizer_name(wt->optimizer), "dtype", gp_dtype_name(wt->dtype), "seq", (json_int_t)wt->seq, "micro_batch",
        (json_int_t)1, "recompute", gp_recompute_name(GP_RECOMPUTE_SELECTIVE), "rule_of_thumb_states_bytes",
        (json_int_t)(GP_TABLE_RULE_TRAIN_BYTES * r->params), "rule_of_thumb_low_bytes",
        (json_int_t)(GP_TABLE_RULE_TRAIN_LOW * r->params), "rule_of_thumb_high_bytes",
        (json_int_t)(GP_TABLE_RULE_TRAIN_HIGH * r->params), "model_states_bytes", (json_int_t)states, "weights_bytes",
        (json_int_t)t->weights, "gradients_bytes", (json_int_t)t->gradients, "optimizer_bytes",
        (json_int_t)t->optimizer, "activations_bytes", (json_int_t)t->activations, "overhead_bytes",
        (json_int_t)t->overhead, "total_bytes", (json_int_t)t->per_gpu, "min_gpus", (json_int_t)r->train.fit.min_gpus,
        "min_layout", table_layout_json(&r->train), "min_per_gpu_bytes", (json_int_t)r->train.fit.min_memory.per_gpu,
        "single_gpu_sufficient", r->train.fit.single_gpu_sufficient, "rule_of_thumb_leaves_out_pct", "activations",
        pct((double)t->activations, tt), "overhead", pct((double)t->overhead, tt), "total",
        pct((double)(t->activations + t->overhead), tt));
    return json_pack("{ss ss sI so so}", "model", r->m.id, "name", r->m.name, "params", (json_int_t)r->params,
                     "inference", inf, "training", tr);
}

static gp_status size_rows(const gp_catalog *cat, const gp_gpu *gpu, gp_table_answer *a, gp_error *err)
{
    for (int k = 0; k < GP_TABLE_ROWS; k++) {
        gp_table_row *r = &a->rows[k];
        gp_status st = gp_catalog_find_model(cat, table_models[k], &r->m, err);
        if (st)
            return st;
        r->params = gp_model_total_params(&r->m);
        if ((st = size_part(cat, &r->m, gpu, &a->infer, GP_RECOMPUTE_NONE, &r->infer, err)) != GP_OK ||
            (st = size_part(cat, &r->m, gpu, &a->train, GP_RECOMPUTE_SELECTIVE, &r->train, err)) != GP_OK)
            return st;
        a->n = k + 1;
    }
    return GP_OK;
}

static json_t *table_json(const gp_table_answer *a, const gp_gpu *gpu)
{
    json_t *arr = json_array();
    for (int k = 0; arr && k < a->n; k++) {
        json_t *row = row_json(&a->rows[k], &a->infer, &a->train);
        if (row) {
            json_object_set_new(row, "gpu", json_string(gpu->id));
            json_object_set_new(row, "gpu_memory_bytes", json_integer((json_int_t)gpu->memory_bytes));
        }
        json_array_append_new(arr, row);
    }
    return arr;
}

gp_status gp_table_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                       gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_result *r = gpi_result_new(GP_CMD_TABLE, sc);
    if (!r || !(r->table = calloc(1, sizeof *r->table))) {
        gp_result_free(r);
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    }
    gp_table_answer *a = r->table;
    gpi_workload_defaults(&a->infer, GP_TASK_INFER);
    a->infer.dtype = a->infer.kv_dtype = GP_DTYPE_BF16;
    a->infer.context = gp_scenario_has(sc, "context") ? sc->context : 8192;
    a->infer.batch = 1;
    gpi_workload_defaults(&a->train, GP_TASK_TRAIN);
    a->train.dtype = GP_DTYPE_BF16;
    a->train.seq = gp_scenario_has(sc, "seq") ? sc->seq : 4096;
    a->train.optimizer = GP_OPT_ADAMW;
    gp_status st = gpi_run_gpu(cat, gpi_run_gpu_name(sc), ctx, &r->gpu, err);
    if (!st)
        st = size_rows(cat, r->gpu, a, err);
    return gpi_run_end(r, st, st ? NULL : table_json(a, r->gpu), out, err);
}
