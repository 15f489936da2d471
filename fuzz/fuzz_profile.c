/* libFuzzer target: the calibration profile reader (calibrate/profile.c). A profile either
 * fails with a message and leaves the catalog as it was, or applies values that all lie in
 * their physically possible ranges. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_gpu(const gp_gpu *g)
{
    if (g->n_cal < 0 || g->n_cal > GP_GPU_CAL_MAX)
        abort();
    for (int i = 0; i < g->n_cal; i++) {
        const gp_gpu_cal *c = &g->cal[i];
        const double v[GP_CALP_COUNT] = {c->gemm_scale, c->attn_scale, c->hbm_scale, c->comm_scale, c->step_overhead_s};
        for (int p = 0; p < GP_CALP_COUNT; p++) {
            double lo, hi;
            gpi_cal_param_range((gp_cal_param)p, c->use, &lo, &hi);
            int unset = p == GP_CALP_OVERHEAD ? v[p] == -1.0 : v[p] == 1.0;
            if (!unset && !(v[p] >= lo && v[p] <= hi))
                abort();
        }
    }
    if (g->cal_intra_scale != 0 && !(g->cal_intra_scale >= 0.05 && g->cal_intra_scale <= 1.25))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static gp_catalog *cat;
    if (!cat && gp_catalog_open(NULL, &cat, NULL) != GP_OK)
        return 0;
    const gp_gpu *g0 = gp_catalog_gpu_at(cat, 0);
    gp_gpu before = *g0;
    gp_error err;
    gp_error_clear(&err);
    gp_status st = gpi_catalog_apply_profile_text(cat, "fuzz", (const char *)data, size, &err);
    if (st != GP_OK && (!err.msg[0] || memcmp(&before, g0, sizeof before) != 0))
        abort();
    for (size_t i = 0; i < gp_catalog_gpu_count(cat); i++)
        check_gpu(gp_catalog_gpu_at(cat, i));
    return 0;
}
