/*
 * text_calibrate.c: a calibration (`gpuplan calibrate`) and a microbenchmark run (`gpuplan
 * probe --bench`) as the text the CLI prints: each fitted entry with what it replaces and the
 * errors before and after, every run's residuals, the benchmark points. Their JSON is the
 * profile itself (gp_profile_json). Renders into memory.
 */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *use_name(int use)
{
    return use == GP_CAL_TRAIN ? "train" : use == GP_CAL_SERVE ? "serve" : "collective";
}

static void pct(char *buf, size_t n, double x)
{
    if (isfinite(x))
        snprintf(buf, n, "%.1f%%", 100.0 * x);
    else
        snprintf(buf, n, "n/a");
}

static void print_group(gpi_buf *tb, const gp_calibrate_group *g)
{
    char b1[16], b2[16], b3[16], b4[16];
    if (g->use == 3) {
        gpi_buf_printf(tb, "%s, collectives (%d run%s):", g->gpu, g->runs, g->runs == 1 ? "" : "s");
        if (g->fitted[0])
            gpi_buf_printf(tb, " bus bandwidth inside a node x%.3f", g->value[0]);
        if (g->fitted[1])
            gpi_buf_printf(tb, " across nodes x%.3f", g->value[1]);
        gpi_buf_printf(tb, "\n");
        return;
    }
    gpi_buf_printf(tb, "%s, %s %s%s%s (%d run%s):\n", g->gpu, use_name(g->use), gp_dtype_name(g->dtype),
                   g->use == GP_CAL_SERVE ? " " : "",
                   g->use == GP_CAL_SERVE ? gp_engine_name((gp_engine)g->engine) : "", g->runs,
                   g->runs == 1 ? "" : "s");
    for (int p = 0; p < GP_CALP_COUNT; p++)
        if (g->fitted[p])
            gpi_buf_printf(tb, "  %-16s %.4g (replaces %.4g)%s\n", gp_cal_param_name((gp_cal_param)p), g->value[p],
                           g->replaces[p], g->at_bound[p] ? "  at its physical bound" : "");
    pct(b1, sizeof b1, g->err_before), pct(b2, sizeof b2, g->err_after);
    pct(b3, sizeof b3, g->loo_before), pct(b4, sizeof b4, g->loo_after);
    gpi_buf_printf(tb, "  median error: %s before, %s after; leave-one-out: %s before, %s after\n", b1, b2, b3, b4);
}

static void print_result(gpi_buf *tb, const gp_calibrate_result *r, const char *out)
{
    gpi_buf_printf(tb, "calibrated on %d of %d runs read\n\n", r->runs_used, r->runs_read);
    for (int k = 0; k < r->n_groups; k++)
        print_group(tb, &r->groups[k]);
    if (r->n_residuals)
        gpi_buf_printf(tb, "\n%-40s %-22s %12s %9s %9s\n", "run", "figure", "measured", "before", "after");
    for (int i = 0; i < r->n_residuals; i++) {
        const gp_calibrate_residual *x = &r->residuals[i];
        gpi_buf_printf(tb, "%-40.40s %-22s %12.4g %+8.1f%% %+8.1f%%\n", x->id, x->quantity, x->measured,
                       100.0 * (x->before / x->measured - 1.0), 100.0 * (x->after / x->measured - 1.0));
    }
    for (int i = 0; i < r->n_warnings; i++)
        gpi_buf_printf(tb, "%swarning: %s\n", i ? "" : "\n", r->warnings[i]);
    if (out)
        gpi_buf_printf(tb, "\nprofile written to %s: use it with --profile %s\n", out, out);
    else
        gpi_buf_printf(tb, "\n(no --out: nothing written)\n");
}

gp_status gp_calibrate_text(const gp_calibrate_result *r, const char *out_path, char **text, size_t *len, gp_error *err)
{
    gpi_buf tb = {0};
    print_result(&tb, r, out_path);
    return gpi_buf_take(&tb, text, len, err);
}

static void print_bench(gpi_buf *tb, const gp_bench_result *r)
{
    gpi_buf_printf(tb, "%d x %s (catalog: %s)\n\n", r->devices, r->device_name, r->gpu_id);
    for (int i = 0; i < r->n_points; i++) {
        const gp_bench_point *p = &r->points[i];
        if (!strcmp(p->what, "gemm"))
            gpi_buf_printf(tb, "  GEMM %-5s %6.0f x %6.0f x %6.0f  %8.1f TFLOP/s\n", gp_dtype_name(p->dtype), p->m,
                           p->n, p->k, p->value);
        else
            gpi_buf_printf(tb, "  %-10s %10.0f MiB          %8.1f GB/s%s\n", p->what, p->bytes / 1048576.0, p->value,
                           strcmp(p->what, "memcpy") ? " bus" : " (read + write)");
    }
}

gp_status gp_bench_text(const gp_bench_result *r, const char *out_path, char **text, size_t *len, gp_error *err)
{
    gpi_buf tb = {0};
    print_bench(&tb, r);
    if (out_path)
        gpi_buf_printf(&tb, "\nprofile written to %s: use it with --profile %s\n", out_path, out_path);
    return gpi_buf_take(&tb, text, len, err);
}
