/*
 * train.c: gp_train_run: training step time, TFLOP/s, MFU and time to train. Three modes:
 *  - fixed: every layout dimension given (tp, pp, dp, micro_batch, zero, recompute): that one
 *    layout evaluated, whether or not it fits, and said so;
 *  - search: every valid layout of `gpus` GPUs (gpi_train_search), the top ones, the Pareto front;
 *  - deadline: the smallest GPU count finishing `tokens` within `deadline`.
 * With `scaling`, the best layout at 1, 2, 4 ... up to the count (a scaling table).
 */
#include "run_impl.h"
#include "render/json.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int64_t given_product(const gp_layout *g)
{
    return (int64_t)(g->tp > 0 ? g->tp : 1) * (g->pp > 0 ? g->pp : 1) * (g->dp > 0 ? g->dp : 1) *
           (g->cp > 0 ? g->cp : 1);
}

static int all_fixed(const gp_scenario *sc, const gp_layout *g)
{
    return g->tp > 0 && g->pp > 0 && g->dp > 0 && g->micro_batch > 0 && gp_scenario_has(sc, "zero") &&
           (gp_scenario_has(sc, "recompute") || gp_scenario_has(sc, "recompute_modules"));
}

/* The GPU count and the usage rules; *gpus gets the count (0: deadline search). */
static gp_status check_question(const gp_scenario *sc, const gp_layout *g, int64_t *gpus, gp_error *err)
{
    if (sc->task == GP_TASK_INFER)
        return gpi_usage(err, "task", "--task takes train, lora or qlora here (inference: 'gpuplan serve')");
    int64_t prod = given_product(g), n = sc->gpus;
    if (n == 0 && sc->deadline <= 0 && g->tp > 0 && g->pp > 0 && g->dp > 0)
        n = prod;
    if (n == 0 && sc->deadline <= 0)
        return gpi_usage(err, "gpus", "give --gpus N, or --deadline D with --tokens N to find the GPU count");
    if (n == 0 && sc->tokens <= 0)
        return gpi_usage(err, "tokens", "--deadline needs --tokens (how many tokens must be trained by then)");
    if (n > 0 && sc->deadline > 0)
        return gpi_usage(err, "deadline", "give --gpus or --deadline, not both");
    if (n > 0 && n % prod != 0)
        return gpi_usage(err, "gpus", "the given degrees (tp x pp x dp x cp = %lld) do not divide --gpus %lld",
                         (long long)prod, (long long)n);
    if (all_fixed(sc, g) && n != prod)
        return gpi_usage(err, "gpus", "tp x pp x dp x cp = %lld, but --gpus is %lld", (long long)prod, (long long)n);
    if (sc->rank != GP_RANK_TIME && sc->price_per_gpu_hour <= 0)
        return gpi_usage(err, "rank", "--rank %s needs --price-per-gpu-hour",
                         sc->rank == GP_RANK_COST ? "cost" : "tokens-per-dollar");
    *gpus = n;
    return GP_OK;
}

static gp_status intra_link(const gp_catalog *cat, const gp_gpu *gpu, const char *name, const gpi_link **out,
                            gp_error *err)
{
    if (strcasecmp(name, "nvlink") == 0) {
        *out = gpi_catalog_gpu_link(cat, gpu);
        if (!*out || (*out)->kind != GPI_LINK_SCALE_UP)
            return gpi_usage(err, "intra_node", "%s has no NVLink; use --intra-node pcie or a link id", gpu->id);
        return GP_OK;
    }
    if (strcasecmp(name, "pcie") == 0) {
        char id[16];
        snprintf(id, sizeof id, "pcie%d", gpu->pcie_gen > 0 ? gpu->pcie_gen : 4);
        return gpi_catalog_find_link(cat, id, out, err);
    }
    gp_status st = gpi_catalog_find_link(cat, name, out, err);
    if (!st && (*out)->kind == GPI_LINK_SCALE_OUT)
        return gpi_usage(err, "intra_node", "--intra-node takes a link inside a node (nvlink, pcie, ...), not '%s'",
                         name);
    return st;
}

gp_status gpi_run_cluster(const gp_catalog *cat, const gp_gpu *gpu, const gp_scenario *sc, gp_cluster *c,
                          gp_error *err);
gp_status gpi_run_cluster(const gp_catalog *cat, const gp_gpu *gpu, const gp_scenario *sc, gp_cluster *c, gp_error *err)
{
    const gpi_link *inter = NULL, *intra = NULL;
    gp_status st;
    if (sc->inter_node[0] && (st = gpi_catalog_find_link(cat, sc->inter_node, &inter, err)) != GP_OK)
        return st;
    if (inter && inter->kind != GPI_LINK_SCALE_OUT)
        return gpi_usage(err, "inter_node",
                         "--inter-node takes a network between nodes (ib-ndr, ib-hdr, roce-400, ...), "
                         "not '%s'",
                         sc->inter_node);
    gpi_cluster_defaults(c, cat, gpu, inter);
    if (sc->intra_node[0]) {
        if ((st = intra_link(cat, gpu, sc->intra_node, &intra, err)) != GP_OK)
            return st;
        gpi_cluster_set_link(c, cat, intra, 0);
    }
    if (sc->framework[0]) {
        c->framework = gpi_framework_parse(sc->framework);
        if (c->framework == GP_FRAMEWORK_COUNT)
            return gpi_usage(err, "framework", "--framework takes megatron, fsdp or deepspeed, not '%s'",
                             sc->framework);
    }
    c->ep_overlap = sc->ep_overlap;
    c->cuda_graphs = (gp_cuda_graphs)sc->cuda_graphs;
    c->ep_dispatcher = (gp_ep_dispatcher)sc->ep_dispatcher;
    c->fp8_recipe = (gp_fp8_recipe)sc->fp8_recipe;
    c->tp_overlap = sc->tp_overlap;
    if (sc->gpus_per_node > 0)
        c->gpus_per_node = (int)sc->gpus_per_node;
    return GP_OK;
}

/* One layout, evaluated whether or not it fits. */
static gp_status fixed_layout(gp_result *r, gp_error *err)
{
    gp_train_search_result *res = r->tres;
    gp_layout l = r->given;
    if (l.cp < 1)
        l.cp = 1;
    if (l.ep < 1)
        l.ep = 1;
    if (l.virtual_stages < 1)
        l.virtual_stages = 1;
    if (l.global_batch < 1)
        l.global_batch = (int64_t)l.dp * l.micro_batch;
    if (l.tp > 1)
        l.sequence_parallel = 1;
    gp_train_candidate *cd = &res->top[0];
    cd->layout = l;
    gp_status st = gpi_memory_estimate(&r->model, r->gpu, &r->w, &l, &cd->memory, err);
    if (!st)
        st = gpi_train_perf_estimate(&r->model, r->gpu, &r->train.cluster, &r->w, &l, r->sc.tokens, &cd->perf, err);
    if (st)
        return st;
    double secs = r->sc.tokens > 0 ? cd->perf.time_to_train_s : cd->perf.step_time_s;
    double price = r->sc.price_per_gpu_hour > 0 ? r->sc.price_per_gpu_hour : 1.0;
    cd->cost = price * (double)cd->perf.gpus * secs / 3600.0;
    res->n_top = 1;
    res->gpus = gp_layout_gpus(&l);
    res->evaluated = res->valid = 1;
    res->fitting = cd->memory.fits;
    if (!cd->memory.fits) {
        res->n_reasons = 1;
        res->reasons[0].code = GP_REASON_NO_LAYOUT_FITS;
        snprintf(res->reasons[0].message, sizeof res->reasons[0].message,
                 "this layout needs %.1f GB per GPU, more than the %.1f GB of a %s", (double)cd->memory.per_gpu / 1e9,
                 (double)cd->memory.capacity / 1e9, r->gpu->id);
    }
    return GP_OK;
}

/* Best layout at 1, 2, 4 ... n_max GPUs. */
static gp_status scaling(gp_result *r, const gp_train_search_opts *base, gp_train_search_result *tmp, gp_error *err)
{
    gp_train_answer *a = &r->train;
    int n_max = r->tres->gpus;
    for (int64_t n = 1; a->n_rows < GP_TRAIN_MAX_SCALE_ROWS; n *= 2) {
        int g = n < n_max ? (int)n : n_max;
        gp_train_search_opts o = *base;
        o.gpus = g;
        o.top_k = 1;
        o.deadline_s = 0;
        gp_train_scale_row *row = &a->rows[a->n_rows++];
        memset(row, 0, sizeof *row);
        row->gpus = g;
        if (g % given_product(&o.fixed) == 0) { /* a fixed product that does not divide g: no layout */
            gp_status st = gpi_train_search(&r->model, r->gpu, &a->cluster, &r->w, &o, tmp, err);
            if (st)
                return st;
            if (tmp->n_top > 0) {
                row->ok = 1;
                row->best = tmp->top[0];
            }
        }
        if (g == n_max)
            break;
    }
    return GP_OK;
}

static gp_status run_search(gp_result *r, int64_t gpus, const gp_run_ctx *ctx, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gp_train_answer *a = &r->train;
    gpi_guard guard;
    gp_status st = gpi_guard_init(&guard, ctx, sc, err);
    if (st)
        return st;
    gp_train_search_opts so;
    gpi_train_search_defaults(&so);
    so.gpus = (int)gpus;
    so.deadline_s = sc->deadline;
    so.train_tokens = sc->tokens;
    so.fixed = r->given;
    so.fix_zero = gp_scenario_has(sc, "zero");
    so.fix_recompute = gp_scenario_has(sc, "recompute") || gp_scenario_has(sc, "recompute_modules");
    so.top_k = (int)sc->top;
    so.rank = (gp_rank_by)sc->rank;
    so.price_per_gpu_hour = sc->price_per_gpu_hour;
    so.allow_tp_across_nodes = sc->allow_tp_across_nodes;
    so.max_gpus = (int)sc->max_gpus;
    so.cancel = gpi_guard_stop;
    so.cancel_arg = &guard;
    so.work = &guard.work;
    double t0 = gp_run_clock();
    a->fixed = all_fixed(sc, &r->given);
    a->mode = a->fixed ? "fixed" : gpus > 0 ? "search" : "deadline";
    st = a->fixed ? fixed_layout(r, err) : gpi_train_search(&r->model, r->gpu, &a->cluster, &r->w, &so, r->tres, err);
    a->seconds = gp_run_clock() - t0;
    if (!st && sc->scaling && r->tres->gpus > 0) {
        gp_train_search_result *tmp = malloc(sizeof *tmp);
        st = tmp ? scaling(r, &so, tmp, err) : gpi_fail(err, GP_ENOMEM, "out of memory");
        free(tmp);
    }
    const gp_train_search_result *res = r->tres;
    a->global_batch = res->n_top > 0          ? res->top[0].layout.global_batch
                      : res->global_batch > 0 ? res->global_batch
                                              : r->given.global_batch;
    return st;
}

gp_status gp_train_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                       gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_result *r = gpi_result_new(GP_CMD_TRAIN, sc);
    if (!r || !(r->tres = calloc(1, sizeof *r->tres))) {
        gp_result_free(r);
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    }
    r->train.res = r->tres;
    gpi_run_layout(sc, &r->given);
    int64_t gpus = 0;
    gp_status st = check_question(sc, &r->given, &gpus, err);
    if (!st)
        st = gpi_run_model(cat, sc, ctx, &r->model, err);
    if (!st)
        st = gpi_recompute_modules_check(&r->model, &r->given, err);
    if (!st)
        st = gpi_run_gpu(cat, gpi_run_gpu_name(sc), ctx, &r->gpu, err);
    if (!st)
        st = gpi_run_workload(sc, &r->w, err);
    if (!st)
        st = gpi_run_cluster(cat, r->gpu, sc, &r->train.cluster, err);
    if (!st)
        st = run_search(r, gpus, ctx, err);
    return gpi_run_end(r, st, st ? NULL : gpi_json_train(&r->model, r->gpu, &r->w, sc, &r->train), out, err);
}
