/*
 * budget.c: the work budget of one question (include/gpuplan.h, "Work budget and progress").
 *
 * A question estimates its work and memory before it allocates (gpi_work_reserve) and counts
 * what it does (gpi_work_spend), so no request can make the library run or allocate without
 * bound: the largest budget is GP_WORK_MAX units and GPI_WORK_BYTES_LARGE bytes.
 */
#include "internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gpi_work_init(gp_work *w, int allow_large)
{
    memset(w, 0, sizeof *w);
    w->limit = allow_large ? GPI_WORK_LARGE : GPI_WORK_DEFAULT;
    w->max_bytes = allow_large ? GPI_WORK_BYTES_LARGE : GPI_WORK_BYTES_DEFAULT;
}

double gpi_work_limit(const gp_work *w)
{
    if (!w || !(w->limit > 0))
        return GPI_WORK_DEFAULT;
    return w->limit < GP_WORK_MAX ? w->limit : GP_WORK_MAX;
}

/* What to tell a caller whose budget is not yet the largest. */
static const char *raise_hint(double limit)
{
    return limit >= GP_WORK_MAX ? "" : ", or raise the work budget (max_work; the CLI's --max-work)";
}

uint64_t gpi_work_max_bytes(const gp_work *w)
{
    if (!w || w->max_bytes == 0)
        return GPI_WORK_BYTES_DEFAULT;
    return w->max_bytes < GPI_WORK_BYTES_LARGE ? w->max_bytes : GPI_WORK_BYTES_LARGE;
}

gp_status gpi_work_reserve(const gp_work *w, double units, double bytes, const char *what, const char *hint,
                           gp_error *err)
{
    double used = w ? w->used : 0.0, limit = gpi_work_limit(w);
    double max_bytes = (double)gpi_work_max_bytes(w);
    const char *more = raise_hint(limit);
    if (!(units >= 0) || used + units > limit) {
        return gpi_fail(err, GP_ELIMIT,
                        "%s is about %.3g units of work (one running sequence in one engine step), over the "
                        "%.3g left of this question's budget of %.3g: %s%s",
                        what, units, limit - used > 0 ? limit - used : 0.0, limit, hint, more);
    }
    if (!(bytes >= 0) || bytes > max_bytes) {
        char b[48], m[48];
        gpi_format_bytes(b, sizeof b, bytes);
        gpi_format_bytes(m, sizeof m, max_bytes);
        return gpi_fail(err, GP_ELIMIT, "%s needs %s of memory, over the budget of %s: %s", what,
                        isfinite(bytes) ? b : "an unbounded amount", m, hint); /* max_work does not raise it */
    }
    return GP_OK;
}

gp_status gpi_work_spend(gp_work *w, double units, gp_error *err)
{
    if (!w)
        return GP_OK;
    w->used += units;
    double limit = gpi_work_limit(w);
    if (w->used > limit)
        return gpi_fail(err, GP_ELIMIT,
                        "this question took more than its budget of %.3g units of work (preemptions or a long "
                        "search): lower the load or the search size%s",
                        limit, raise_hint(limit));
    if (w->progress && w->used >= w->next_report) {
        w->next_report = w->used + GPI_WORK_PROGRESS_EVERY;
        if (w->progress(w->progress_ctx, w->used, limit))
            return gpi_fail(err, GP_ECANCELED, "canceled after %.3g units of work", w->used);
    }
    return GP_OK;
}

void gpi_work_stage(gp_work *w, int inner, const char *stage, int step, int steps, const char *fmt, ...)
{
    if (!w)
        return;
    if (inner && w->stage && strcmp(w->stage, stage) != 0) { /* an outer question's stage stays */
        if (w->progress)
            (void)w->progress(w->progress_ctx, w->used, gpi_work_limit(w));
        return;
    }
    w->stage = stage;
    w->step = step;
    w->steps = steps;
    w->item[0] = '\0';
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(w->item, sizeof w->item, fmt, ap);
        va_end(ap);
    }
    if (w->progress)
        (void)w->progress(w->progress_ctx, w->used, gpi_work_limit(w)); /* a cancel is seen at the next spend */
}
