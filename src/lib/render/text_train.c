/*
 * text_train.c: a training answer as text (`gpuplan train`): the layout and its step-time
 * breakdown, or the search's best with the top layouts, why each ranks where it does, the
 * Pareto front and the scaling table. Renders into memory (gp_result_text).
 */
#include "json.h"
#include "text.h"

#include <string.h>

static const char *fmt_duration(char *buf, size_t n, double s)
{
    if (s <= 0)
        snprintf(buf, n, "-");
    else if (s >= 2 * 86400.0)
        snprintf(buf, n, "%.1f days", s / 86400.0);
    else if (s >= 2 * 3600.0)
        snprintf(buf, n, "%.1f hours", s / 3600.0);
    else if (s >= 120.0)
        snprintf(buf, n, "%.1f min", s / 60.0);
    else
        snprintf(buf, n, "%.3g s", s);
    return buf;
}

/* ---- text -------------------------------------------------------------------------- */

static void print_layout_line(gpi_buf *tb, const gp_layout *l)
{
    gpi_buf_printf(tb, "TP %d x PP %d", l->tp, l->pp);
    if (l->virtual_stages > 1)
        gpi_buf_printf(tb, " (%d interleaved)", l->virtual_stages);
    if (l->cp > 1)
        gpi_buf_printf(tb, " x CP %d", l->cp);
    gpi_buf_printf(tb, " x DP %d", l->dp);
    if (l->ep > 1)
        gpi_buf_printf(tb, ", EP %d", l->ep);
    gpi_buf_printf(tb, ", ZeRO-%d, micro-batch %lld, recompute %s", l->zero, (long long)l->micro_batch,
                   gp_recompute_name(l->recompute));
    if (l->recompute_modules) {
        char mods[96];
        gpi_recompute_modules_format(l->recompute_modules, ", ", mods, sizeof mods);
        gpi_buf_printf(tb, " (%s)", mods);
    }
    gpi_buf_printf(tb, "%s", l->sequence_parallel && l->tp > 1 ? ", sequence parallel" : "");
}

static void print_breakdown(gpi_buf *tb, const gp_train_perf *p)
{
    static const char *const names[9] = {"compute", "memory-bound", "TP comm", "CP comm",  "EP comm",
                                         "PP comm", "DP comm",      "bubble",  "optimizer"};
    double v[9] = {p->compute_s, p->memory_s,  p->tp_comm_s, p->cp_comm_s,  p->ep_comm_s,
                   p->pp_comm_s, p->dp_comm_s, p->bubble_s,  p->optimizer_s};
    double total = p->step_time_s > 0 ? p->step_time_s : 1;
    for (int i = 0; i < 9; i++) {
        int n = (int)(v[i] / total * 50.0 + 0.5);
        gpi_buf_printf(tb, "    %-13s %9.4f s %5.1f%%  ", names[i], v[i], 100.0 * v[i] / total);
        for (int k = 0; k < n; k++)
            gpi_buf_printf(tb, "%c", '#');
        if (!n)
            gpi_buf_printf(tb, "%c", v[i] > 0 ? '.' : ' ');
        gpi_buf_printf(tb, "%c", '\n');
    }
}

/* The likely range and whose published runs it comes from; a model type's range that leaves the
 * estimate outside says which way gpuplan has erred on that architecture. */
static void print_range(gpi_buf *tb, const gp_train_perf *p)
{
    char a[64], b[64];
    gpi_buf_printf(tb, "  likely range   %s-%s tokens/s (10th-90th percentile of the error on ",
                   gpi_fmt_si(a, sizeof a, p->tokens_per_s_low), gpi_fmt_si(b, sizeof b, p->tokens_per_s_high));
    /* the ends are estimate / (1 + p90) and estimate / (1 + p10) */
    double p10 = p->tokens_per_s_high > 0 ? p->tokens_per_s / p->tokens_per_s_high - 1.0 : 0.0;
    double p90 = p->tokens_per_s_low > 0 ? p->tokens_per_s / p->tokens_per_s_low - 1.0 : 0.0;
    gpi_text_range_source(tb, p->range_basis, p->range_cases, "training", "", p10, p90);
}

static void print_result(gpi_buf *tb, const gp_train_candidate *best, const gp_scenario *to, int fixed)
{
    const gp_train_perf *p = &best->perf;
    char a[64], b[64];
    gpi_buf_printf(tb, "%s: ", fixed ? "Layout" : "Best layout");
    print_layout_line(tb, &best->layout);
    gpi_buf_printf(tb, "\n  step time %.4g s (%lld micro-batches per replica)\n", p->step_time_s,
                   (long long)p->micro_batches);
    print_breakdown(tb, p);
    gpi_buf_printf(tb, "  throughput     %s tokens/s, %s tokens/s per GPU\n", gpi_fmt_si(a, sizeof a, p->tokens_per_s),
                   gpi_fmt_si(b, sizeof b, p->tokens_per_s_per_gpu));
    print_range(tb, p);
    gpi_buf_printf(tb, "  TFLOP/s/GPU    %.1f model (MFU %.1f%%), %.1f hardware (HFU %.1f%%)\n",
                   p->model_tflops_per_gpu, 100.0 * p->mfu, p->hw_tflops_per_gpu, 100.0 * p->hfu);
    if (to->tokens > 0) {
        char lo[64], hi[64];
        gpi_buf_printf(tb, "  time to train  %s tokens: %s (likely %s-%s)\n", gpi_fmt_si(a, sizeof a, to->tokens),
                       fmt_duration(b, sizeof b, p->time_to_train_s),
                       fmt_duration(lo, sizeof lo, p->time_to_train_s_low),
                       fmt_duration(hi, sizeof hi, p->time_to_train_s_high));
    }
    if (to->price_per_gpu_hour > 0)
        gpi_buf_printf(tb, "  cost           %.4g at %.4g per GPU-hour (%s)\n", best->cost, to->price_per_gpu_hour,
                       to->tokens > 0 ? "whole run" : "per step");
    gpi_buf_printf(tb, "  memory per GPU %.1f GB of %.1f GB (%s)\n", (double)best->memory.per_gpu / 1e9,
                   (double)best->memory.capacity / 1e9, best->memory.fits ? "fits" : "does NOT fit");
    if (best->why[0])
        gpi_buf_printf(tb, "  why: %s\n", best->why);
}

static void print_table_header(gpi_buf *tb)
{
    gpi_buf_printf(tb, "  %3s %4s %4s %3s %5s %3s %4s %4s %2s %-9s %9s %10s %6s %7s\n", "#", "TP", "PP", "CP", "DP",
                   "EP", "ZeRO", "mb", "v", "recompute", "step s", "tok/s/GPU", "MFU", "mem GB");
}

static void print_table_row(gpi_buf *tb, int i, const gp_train_candidate *c)
{
    const gp_layout *l = &c->layout;
    gpi_buf_printf(tb, "  %3d %4d %4d %3d %5d %3d %4d %4lld %2d %-9s %9.4g %10.1f %5.1f%% %7.1f\n", i, l->tp, l->pp,
                   l->cp, l->dp, l->ep, l->zero, (long long)l->micro_batch, l->virtual_stages,
                   gp_recompute_name(l->recompute), c->perf.step_time_s, c->perf.tokens_per_s_per_gpu,
                   100.0 * c->perf.mfu, (double)c->memory.per_gpu / 1e9);
}

/* ---- scaling ---- */

static void print_scaling(gpi_buf *tb, const gp_train_scale_row *rows, int n, const gp_cluster *c)
{
    char a[32], b[32];
    gpi_buf_printf(
        tb, "\nScaling (best layout at each count; efficiency = tokens/s per GPU vs the smallest count that fits):\n");
    gpi_buf_printf(tb, "  %6s  %-34s %12s %12s %6s %6s\n", "GPUs", "layout", "tokens/s", "tok/s/GPU", "MFU", "eff.");
    double base = 0;
    int said_node = 0, said_eff = 0;
    for (int i = 0; i < n; i++) {
        const gp_train_scale_row *r = &rows[i];
        if (!r->ok) {
            gpi_buf_printf(tb, "  %6d  %-34s\n", r->gpus, "(no layout fits)");
            continue;
        }
        const gp_layout *l = &r->best.layout;
        const gp_train_perf *p = &r->best.perf;
        if (base == 0)
            base = p->tokens_per_s_per_gpu;
        double eff = p->tokens_per_s_per_gpu / base;
        char lay[64];
        snprintf(lay, sizeof lay, "TP %d PP %d CP %d DP %d%s", l->tp, l->pp, l->cp, l->dp, l->zero ? " ZeRO" : "");
        if (l->zero)
            snprintf(lay + strlen(lay), sizeof lay - strlen(lay), "-%d", l->zero);
        gpi_buf_printf(tb, "  %6d  %-34s %12s %12s %5.1f%% %5.1f%%", r->gpus, lay,
                       gpi_fmt_si(a, sizeof a, p->tokens_per_s), gpi_fmt_si(b, sizeof b, p->tokens_per_s_per_gpu),
                       100.0 * p->mfu, 100.0 * eff);
        if (!said_node && r->gpus > c->gpus_per_node) {
            gpi_buf_printf(tb, "  <- beyond one node: traffic crosses %s", c->inter_name);
            said_node = 1;
        } else if (!said_eff && eff < 0.8) {
            gpi_buf_printf(tb, "  <- efficiency below 80%%: adding GPUs stops paying");
            said_eff = 1;
        }
        if (said_node == 1 && !said_eff && eff < 0.8) {
            gpi_buf_printf(tb, " (and efficiency below 80%%)");
            said_eff = 1;
        }
        if (said_node == 1)
            said_node = 2;
        gpi_buf_printf(tb, "\n");
    }
}

/* ---- the answer ------------------------------------------------------------------------ */

static void print_header(gpi_buf *tb, const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                         const gp_train_answer *a)
{
    const gp_cluster *cl = &a->cluster;
    const gp_train_search_result *r = a->res;
    char x[64], y[64], z[32];
    gpi_buf_printf(
        tb, "%s training (%s) on %s x %s: %s GPUs per node, %s %.0f GB/s inside, %s %.0f GB/s between nodes\n", m->name,
        gp_task_name(w->task), r->gpus > 0 ? gpi_fmt_count(x, sizeof x, r->gpus) : "?", gpu->id,
        gpi_fmt_count(y, sizeof y, cl->gpus_per_node), cl->intra_name, cl->intra_gbps, cl->inter_name, cl->inter_gbps);
    gpi_buf_printf(tb, "sequence %s, global batch %s sequence%s (%s tokens per step), %s\n",
                   gpi_fmt_count(x, sizeof x, w->seq), gpi_fmt_count(z, sizeof z, a->global_batch),
                   a->global_batch == 1 ? "" : "s", gpi_fmt_si(y, sizeof y, (double)a->global_batch * (double)w->seq),
                   gp_optimizer_name(w->optimizer));
    if (sc->deadline > 0) {
        const gp_train_candidate *best = r->n_top > 0 ? &r->top[0] : NULL;
        gpi_buf_printf(tb, "deadline %s for %s tokens: ", fmt_duration(x, sizeof x, sc->deadline),
                       gpi_fmt_si(y, sizeof y, sc->tokens));
        if (best && best->perf.time_to_train_s <= sc->deadline)
            gpi_buf_printf(tb, "smallest GPU count found: %d\n", r->gpus);
        else
            gpi_buf_printf(tb, "NOT met with up to %lld GPUs%s\n", (long long)sc->max_gpus,
                           best ? "; the best at the largest count tried follows" : "");
    }
    gpi_buf_printf(tb, "\n");
}

static void print_tables(gpi_buf *tb, const gp_train_answer *a, const gp_scenario *sc)
{
    const gp_train_search_result *res = a->res;
    if (res->n_top > 1) {
        gpi_buf_printf(tb, "\nTop %d by %s (each the best ZeRO stage and recomputation of its split):\n", res->n_top,
                       gpi_rank_name(sc->rank));
        print_table_header(tb);
        for (int i = 0; i < res->n_top; i++) {
            print_table_row(tb, i + 1, &res->top[i]);
            if (i > 0)
                gpi_buf_printf(tb, "        %s\n", res->top[i].why);
        }
    }
    if (res->n_pareto > 0) {
        gpi_buf_printf(tb,
                       "\nPareto front, step time vs memory per GPU (no other layout is both faster and smaller):\n");
        print_table_header(tb);
        for (int i = 0; i < res->n_pareto; i++)
            print_table_row(tb, i + 1, &res->pareto[i]);
    }
}

void gpi_text_train(gpi_buf *tb, const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                    const gp_train_answer *a)
{
    const gp_train_search_result *res = a->res;
    const gp_train_candidate *best = res->n_top > 0 ? &res->top[0] : NULL;
    print_header(tb, m, gpu, w, sc, a);
    if (best)
        print_result(tb, best, sc, a->fixed);
    else
        gpi_buf_printf(tb, "No layout fits, so there is no step time to show. Why:\n");
    for (int i = 0; i < res->n_reasons; i++)
        if (!best || res->reasons[i].code != GP_REASON_FITS)
            gpi_buf_printf(tb, "%s[%s] %s\n", best ? "  " : "", gp_reason_name(res->reasons[i].code),
                           res->reasons[i].message);
    if (best && !a->fixed)
        print_tables(tb, a, sc);
    if (sc->scaling)
        print_scaling(tb, a->rows, a->n_rows, &a->cluster);
    char x[64], y[64], z[32];
    gpi_buf_printf(tb, "\nEvaluated %s layouts (%s valid, %s fit in memory) in %.1f ms.\n",
                   gpi_fmt_count(x, sizeof x, res->evaluated), gpi_fmt_count(y, sizeof y, res->valid),
                   gpi_fmt_count(z, sizeof z, res->fitting), a->seconds * 1e3);
}
