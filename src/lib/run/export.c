/*
 * export.c: gp_export_run: the launch files of a layout on an engine (gpi_export_render).
 * Layout dimensions not given come from gpuplan: gpi_fit's smallest layout (inference; the fit
 * keeps generic accounting, so the layout is the one `gpuplan fit` recommends for the same
 * keys) or the best gpi_train_search layout (training).
 */
#include "run_impl.h"
#include "render/json.h"

#include <stdlib.h>
#include <string.h>

static gp_status check_question(const gp_scenario *sc, gpi_export_target *eng, gp_task *task, gp_error *err)
{
    static const char engines[] = "vllm, sglang, tgi, llamacpp, trtllm, deepspeed, megatron, torchrun-fsdp, slurm";
    if (!sc->engine[0])
        return gpi_usage(err, "engine", "give --engine E (%s)", engines);
    *eng = gpi_export_engine_parse(sc->engine);
    if (*eng == GPI_EXPORT_COUNT)
        return gpi_usage(err, "engine", "unknown engine '%s' (%s)", sc->engine, engines);
    *task = gpi_export_engine_task(*eng, (gp_task)sc->task); /* megatron, deepspeed, ... train */
    int infer = *task == GP_TASK_INFER;
    gpi_export_kind kind = gpi_export_engine_kind(*eng);
    if (kind == GPI_EXPORT_KIND_TRAIN && infer)
        return gpi_usage(err, "task",
                         "%s launches training, but the task is infer: add --task train|lora|qlora, or "
                         "export inference with vllm, sglang, tgi, llamacpp or trtllm",
                         gpi_export_engine_name(*eng));
    if (kind == GPI_EXPORT_KIND_SERVE && !infer)
        return gpi_usage(err, "task",
                         "%s is a serving engine, but the task is %s: export training with deepspeed, "
                         "megatron, torchrun-fsdp or slurm",
                         gpi_export_engine_name(*eng), gp_task_name(*task));
    return GP_OK;
}

/* Inference: the given layout if TP and PP are both given, else gpi_fit's smallest. */
static gp_status infer_layout(const gp_catalog *cat, gp_result *r, gp_error *err)
{
    gp_layout *l = &r->layout;
    const gp_layout *g = &r->given;
    gpi_layout_defaults(l);
    if (g->tp > 0 && g->pp > 0) {
        l->tp = g->tp, l->pp = g->pp;
        if (g->dp > 0)
            l->dp = g->dp;
        if (g->ep > 0)
            l->ep = g->ep;
        if (g->cp > 0)
            l->cp = g->cp;
        return GP_OK;
    }
    gp_workload w = r->w;
    w.engine = GP_ENGINE_NONE; /* the fit keeps generic accounting */
    gp_status st = gpi_fit(cat, &r->model, r->gpu, &w, g, &r->fit, err);
    if (st)
        return st;
    if (!r->fit.fits)
        return gpi_fail(err, GP_EINVAL, "%s does not fit on any layout of %s up to the search limit: %s", r->model.id,
                        r->gpu->id, r->fit.n_reasons ? r->fit.reasons[0].message : "");
    *l = r->fit.min_layout;
    if (g->dp > 0)
        l->dp = g->dp;
    return GP_OK;
}

/* Training: the given layout if tp, pp and dp are given, else the best searched one. */
static gp_status train_layout(gp_result *r, const gp_cluster *cl, const gp_run_ctx *ctx, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    const gp_layout *g = &r->given;
    gp_layout *l = &r->layout;
    int64_t prod =
        (int64_t)(g->tp > 0 ? g->tp : 1) * (g->pp > 0 ? g->pp : 1) * (g->dp > 0 ? g->dp : 1) * (g->cp > 0 ? g->cp : 1);
    if (g->tp > 0 && g->pp > 0 && g->dp > 0 && (sc->gpus == 0 || sc->gpus == prod)) {
        *l = *g;
        if (l->cp < 1)
            l->cp = 1;
        if (l->ep < 1)
            l->ep = 1;
        if (l->virtual_stages < 1)
            l->virtual_stages = 1;
        if (l->micro_batch < 1)
            l->micro_batch = 1;
        if (l->global_batch < 1)
            l->global_batch = (int64_t)l->dp * l->micro_batch;
        if (l->tp > 1)
            l->sequence_parallel = 1;
        return GP_OK;
    }
    if (sc->gpus == 0)
        return gpi_usage(err, "gpus", "training: give --gpus N (or --tp, --pp and --dp) for the layout");
    if (sc->gpus % prod != 0)
        return gpi_usage(err, "gpus", "the given degrees (tp x pp x dp x cp = %lld) do not divide --gpus %lld",
                         (long long)prod, (long long)sc->gpus);
    gp_train_search_opts so;
    gpi_train_search_defaults(&so);
    so.gpus = (int)sc->gpus;
    so.train_tokens = sc->tokens;
    so.fixed = *g;
    so.fix_zero = gp_scenario_has(sc, "zero");
    so.fix_recompute = gp_scenario_has(sc, "recompute") || gp_scenario_has(sc, "recompute_modules");
    so.top_k = 1;
    gpi_guard guard; /* the run's budget, deadline and progress, as train's search has them */
    gp_status st = gpi_guard_init(&guard, ctx, sc, err);
    if (st)
        return st;
    so.cancel = gpi_guard_stop;
    so.cancel_arg = &guard;
    so.work = &guard.work;
    gp_train_search_result *res = malloc(sizeof *res);
    if (!res)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    st = gpi_train_search(&r->model, r->gpu, cl, &r->w, &so, res, err);
    if (!st && res->n_top == 0)
        st = gpi_fail(err, GP_EINVAL, "no layout of %lld x %s fits %s: %s", (long long)sc->gpus, r->gpu->id,
                      r->model.id, res->n_reasons ? res->reasons[0].message : "");
    if (!st)
        *l = res->top[0].layout;
    free(res);
    return st;
}

static gp_status render(const gp_catalog *cat, gp_result *r, const gp_cluster *cl, gp_error *err)
{
    const gp_scenario *sc = &r->sc;
    gpi_export_job job;
    gpi_export_job_defaults(&job);
    job.model = &r->model;
    job.model_path = sc->model_path[0] ? sc->model_path : NULL;
    job.gpu = r->gpu;
    job.w = &r->w;
    job.l = &r->layout;
    job.gpus_per_node = cl->gpus_per_node;
    job.port = (int)sc->port;
    job.train_tokens = sc->tokens;
    if (sc->data[0])
        gpi_strlcpy(job.train_data, sc->data, sizeof job.train_data);
    job.job_name = sc->job_name[0] ? sc->job_name : NULL;
    job.time_limit = sc->time[0] ? sc->time : NULL;
    job.replicas = (int)sc->replicas;
    job.api_key_env = gp_scenario_has(sc, "api_key_env") ? sc->api_key_env : NULL;
    job.audit_log = sc->audit_log;
    job.ep_overlap = sc->ep_overlap;
    job.ep_dispatcher = sc->ep_dispatcher;
    job.profiles = cat;
    if (!(r->files = calloc(1, sizeof *r->files)))
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    return gpi_export_render((gpi_export_target)r->export_engine, &job, r->files, err);
}

static json_t *export_json(const gp_result *r)
{
    const gp_export_files *f = r->files;
    const gp_layout *l = &r->layout;
    json_t *files = json_array(), *notes = json_array();
    for (int i = 0; files && i < f->n; i++)
        json_array_append_new(files, json_pack("{ss ss sb}", "name", f->files[i].name, "content", f->files[i].content,
                                               "executable", f->files[i].executable));
    char buf[sizeof f->notes];
    memcpy(buf, f->notes, sizeof buf);
    char *save = NULL;
    for (char *line = strtok_r(buf, "\n", &save); notes && line; line = strtok_r(NULL, "\n", &save))
        json_array_append_new(notes, json_string(line));
    gpi_export_target e = (gpi_export_target)r->export_engine;
    json_t *o =
        json_pack("{ss ss ss ss ss* si si si si si si so* so*}", "engine", gpi_export_engine_name(e), "engine_version",
                  gpi_export_engine_version(e), "model", r->model.id, "gpu", r->gpu->id, "out",
                  r->sc.out[0] ? r->sc.out : NULL, "tp", l->tp, "pp", l->pp, "dp", l->dp, "cp", l->cp > 0 ? l->cp : 1,
                  "ep", l->ep > 0 ? l->ep : 1, "gpus", gp_layout_gpus(l), "files", files, "notes", notes);
    if (o)
        json_object_set_new(o, "command", json_string(f->command));
    return o;
}

gp_status gp_export_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                        gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gpi_export_target eng = GPI_EXPORT_COUNT;
    gp_task task = GP_TASK_INFER;
    gp_status st = check_question(sc, &eng, &task, err);
    if (st)
        return st;
    gp_result *r = gpi_result_new(GP_CMD_EXPORT, sc);
    if (!r)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    r->export_engine = (int)eng;
    gp_scenario s2 = *sc;
    s2.engine[0] = '\0'; /* the export target, not the accounting engine */
    s2.task = (int)task;
    st = gpi_run_model(cat, sc, ctx, &r->model, err);
    if (!st)
        st = gpi_run_gpu(cat, gpi_run_gpu_name(sc), ctx, &r->gpu, err);
    if (!st)
        st = gpi_run_workload(&s2, &r->w, err);
    gp_cluster cl;
    if (!st) {
        gpi_run_layout(sc, &r->given);
        st = gpi_recompute_modules_check(&r->model, &r->given, err);
    }
    if (!st) {
        gpi_cluster_defaults(&cl, cat, r->gpu, NULL);
        if (sc->gpus_per_node > 0)
            cl.gpus_per_node = (int)sc->gpus_per_node;
        st = task == GP_TASK_INFER ? infer_layout(cat, r, err) : train_layout(r, &cl, ctx, err);
    }
    if (!st)
        st = render(cat, r, &cl, err);
    return gpi_run_end(r, st, st ? NULL : export_json(r), out, err);
}
