/*
 * fit.c: gp_fit_run: memory per GPU for the workload and layout asked, and the verdict (one
 * GPU or the smallest count that holds it, and why), as gpuplan fit and POST /api/fit answer.
 */
#include "run_impl.h"
#include "render/json.h"

gp_status gp_fit_run(const gp_catalog *cat, const gp_scenario *sc, const gp_run_ctx *ctx, gp_result **out,
                     gp_error *err)
{
    gp_error_clear(err);
    *out = NULL;
    gp_result *r = gpi_result_new(GP_CMD_FIT, sc);
    if (!r)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    gp_status st = gpi_run_model(cat, sc, ctx, &r->model, err);
    if (!st)
        st = gpi_run_gpu(cat, gpi_run_gpu_name(sc), ctx, &r->gpu, err);
    if (!st)
        st = gpi_run_workload(sc, &r->w, err);
    if (!st) {
        gpi_run_layout(sc, &r->given);
        if (r->w.task != GP_TASK_INFER && r->given.micro_batch == 0)
            r->given.micro_batch = 1;
        st = gpi_fit(cat, &r->model, r->gpu, &r->w, &r->given, &r->fit, err);
        if (!st)
            gpi_fit_set_lang(&r->fit, sc->lang); /* the reasons in the question's language */
    }
    return gpi_run_end(r, st, st ? NULL : gpi_json_fit(&r->model, r->gpu, &r->w, &r->fit), out, err);
}
