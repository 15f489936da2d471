/*
 * ranges.c: the likely ranges every estimate carries (private/base.h, "likely ranges").
 *
 * A range is the 10th-90th percentile of the signed error gpuplan made on comparable published
 * runs held out of the fit; docs/performance.md section 14 and docs/serving.md "Ranges" say how
 * they are measured. Training's come from data/kernels.json, serving's from
 * data/engines.json; both are checked here when the catalog opens, so a bad range in a user's
 * --data-dir file is an error naming its field rather than a silently missing range.
 */
#include "internal.h"

#include <math.h>
#include <string.h>

static gp_status bad_range(gp_error *err, const char *file, const char *field, const char *what, const char *type)
{
    gpi_error_set_path(err, file);
    gpi_error_set_field(err, field);
    return gpi_fail(err, GP_EPARSE, "%s: %s%s%s%s%s", file, field, type ? " \"" : "", type ? type : "",
                    type ? "\"" : "", what);
}

static int bounds_ok(double p10, double p90)
{
    return isfinite(p10) && isfinite(p90) && p10 > -0.9 && p10 <= p90 && p90 < 10.0;
}

gp_status gpi_range_set_pool(gpi_range_table *t, int moe, double p10, double p90, const char *file, const char *field,
                             gp_error *err)
{
    if (!bounds_ok(p10, p90) || p10 > 0 || p90 < 0)
        return bad_range(err, file, field, ": a pool's range needs -0.9 < p10 <= 0 <= p90 < 10", NULL);
    if (t->has_pool[moe ? 1 : 0])
        return bad_range(err, file, field, moe ? ": the MoE pool is listed twice" : ": the dense pool is listed twice",
                         NULL);
    gpi_range *r = &t->pool[moe ? 1 : 0];
    gpi_strlcpy(r->basis, moe ? "MoE" : "dense", sizeof r->basis);
    r->p10 = p10, r->p90 = p90, r->cases = 0;
    t->has_pool[moe ? 1 : 0] = 1;
    return GP_OK;
}

gp_status gpi_range_add_type(gpi_range_table *t, const char *type, double p10, double p90, long long cases,
                             const char *file, const char *field, gp_error *err)
{
    if (!type || !type[0] || strlen(type) >= sizeof t->type[0].basis)
        return bad_range(err, file, field, ": a model type's name has 1 to 31 characters", NULL);
    if (!bounds_ok(p10, p90) || cases < 1 || cases > 999999)
        return bad_range(err, file, field, " needs -0.9 < p10 <= p90 < 10 and cases from 1 to 999999", type);
    for (int i = 0; i < t->n_types; i++)
        if (strcmp(t->type[i].basis, type) == 0)
            return bad_range(err, file, field, " is listed twice", type);
    if (t->n_types >= GPI_RANGE_TYPES_MAX)
        return bad_range(err, file, field, ": at most 16 model types", NULL);
    gpi_range *r = &t->type[t->n_types++];
    gpi_strlcpy(r->basis, type, sizeof r->basis);
    r->p10 = p10, r->p90 = p90, r->cases = (int)cases;
    return GP_OK;
}

const gpi_range *gpi_range_pick(const gpi_range_table *t, const char *model_type, int moe)
{
    if (!t)
        return NULL;
    for (int i = 0; model_type && model_type[0] && i < t->n_types; i++)
        if (strcmp(t->type[i].basis, model_type) == 0)
            return &t->type[i];
    return t->has_pool[moe ? 1 : 0] ? &t->pool[moe ? 1 : 0] : NULL;
}
