/*
 * fit.c: the verdict. Does the workload fit on one GPU of the type; if not, the smallest
 * number of that GPU (and the layout) that holds it, why, how much context and concurrency
 * that setup holds, and which single larger GPU of the catalog would hold it alone.
 *
 * Search order (docs/memory.md, "The verdict"): GPU counts from 1 upward; at each count,
 * inference tries tensor parallelism inside the scale-up domain first (it splits weights and
 * KV cache with no pipeline bubble), then pipeline stages across domains; training tries
 * ZeRO stages 0..3 over data parallelism, then TP (with sequence parallelism), then PP.
 * Inference layouts are what deployments use: TP a power of two inside the scale-up domain,
 * and pipeline stages only once TP fills the domain (TP 8 x PP 2 = 16 GPUs, not PP 11).
 * The first count with a layout that fits is the answer; at that count the first layout
 * tried wins: fewest pipeline stages, then smallest TP, then lowest ZeRO stage.
 */
#include "internal.h"
#include "render/messages.h"

#include <stdio.h>
#include <string.h>

#define GP_FIT_MAX_GPUS     16384
#define GP_PCIE_SERVER_GPUS 8 /* GPUs in a typical PCIe server (8-slot chassis) */
#define GB                  1e9

static const char *const reason_names[GP_REASON_COUNT] = {"fits",
                                                          "weights_exceed_vram",
                                                          "kv_cache_exceeds_vram",
                                                          "training_state_exceeds_vram",
                                                          "activations_exceed_vram",
                                                          "larger_gpu_fits",
                                                          "no_layout_fits",
                                                          "invalid_layout",
                                                          "context_above_model_max",
                                                          "lower_precision_fits",
                                                          "units"};

const char *gp_reason_name(gp_reason_code c)
{
    return (unsigned)c < GP_REASON_COUNT ? reason_names[c] : "?";
}

/* A reason in English and Brazilian Portuguese from the message table (render/messages.c). */
static void say(gp_fit_result *r, gp_reason_code code, gpi_msg_id id, const gpi_msg_arg *args, int nargs)
{
    if (r->n_reasons >= GP_MAX_REASONS)
        return;
    gp_reason *x = &r->reasons[r->n_reasons++];
    x->code = code;
    gpi_msg_args(x->message, sizeof x->message, id, 0, args, nargs);
    gpi_msg_args(x->message_pt, sizeof x->message_pt, id, 1, args, nargs);
}
#define SAY(r, code, id, ...)                                                                                          \
    say(r, code, id, (const gpi_msg_arg[]){__VA_ARGS__},                                                               \
        (int)(sizeof((gpi_msg_arg[]){__VA_ARGS__}) / sizeof(gpi_msg_arg)))

void gpi_fit_set_lang(gp_fit_result *r, const char *lang)
{
    if (!r || !lang || strcmp(lang, "pt-BR"))
        return;
    for (int i = 0; i < r->n_reasons; i++)
        if (r->reasons[i].message_pt[0])
            memcpy(r->reasons[i].message, r->reasons[i].message_pt, sizeof r->reasons[i].message);
}

static int fits(const gp_model *m, const gp_gpu *g, const gp_workload *w, const gp_layout *l, gp_memory *mem)
{
    gp_memory tmp;
    if (!mem)
        mem = &tmp;
    return gpi_memory_estimate(m, g, w, l, mem, NULL) == GP_OK && mem->fits;
}

static int tp_valid(const gp_model *m, int tp)
{
    return m->heads % tp == 0;
}

/* Next GPU count to try: every count to 64, then multiples of 8 to 1024, then powers of 2. */
static int next_count(int n)
{
    if (n < 64)
        return n + 1;
    if (n < 1024)
        return n + 8;
    return n * 2;
}

/* The smallest layout with n GPUs that fits, or 0. `given` fixes dimensions > 0 in it. */
static int search_count(const gp_model *m, const gp_gpu *g, const gp_workload *w, const gp_layout *base,
                        const gp_layout *given, int n, gp_layout *best, gp_memory *best_mem)
{
    /* GPUs TP may span: the scale-up domain, or a PCIe server's 8 GPUs for cards without
     * NVLink (TP over PCIe works, slower: the performance model charges for it) */
    int domain = g->scale_up_domain >= GP_PCIE_SERVER_GPUS ? g->scale_up_domain : GP_PCIE_SERVER_GPUS;
    int max_tp = 1;
    while (max_tp * 2 <= domain && tp_valid(m, max_tp * 2))
        max_tp *= 2;
    for (int pp = 1; pp <= n && pp <= m->layers; pp++) {
        if (n % pp || (given && given->pp > 0 && given->pp != pp))
            continue;
        for (int tp = 1; tp <= n / pp; tp *= 2) {
            if ((n / pp) % tp || !tp_valid(m, tp) || (given && given->tp > 0 && given->tp != tp))
                continue;
            if (tp > domain && !(given && given->tp == tp))
                continue; /* TP stays inside the scale-up domain unless forced */
            if (w->task == GP_TASK_INFER && pp > 1 && tp < max_tp && !(given && (given->tp > 0 || given->pp > 0)))
                continue; /* pipeline across domains only once TP fills one */
            int dp = n / (pp * tp);
            if (w->task == GP_TASK_INFER && dp != 1)
                continue; /* replicas add no memory room for one model copy */
            if (given && given->dp > 0 && given->dp != dp)
                continue;
            for (int zero = 0; zero <= (w->task == GP_TASK_INFER ? 0 : 3); zero++) {
                if (given && given->zero > 0 && given->zero != zero)
                    continue;
                if (zero > 0 && dp == 1)
                    break;
                gp_layout l = *base;
                l.tp = tp;
                l.pp = pp;
                l.dp = dp;
                l.zero = zero;
                l.sequence_parallel = base->sequence_parallel || (tp > 1 && w->task != GP_TASK_INFER);
                if (l.global_batch > 0 && l.global_batch % ((int64_t)dp * l.micro_batch) != 0)
                    continue;
                if (fits(m, g, w, &l, best_mem)) {
                    *best = l;
                    return 1;
                }
            }
        }
    }
    return 0;
}

static int64_t max_fitting(const gp_model *m, const gp_gpu *g, const gp_workload *w0, const gp_layout *l,
                           int what /* 0 context, 1 batch */, int64_t limit)
{
    gp_workload w = *w0;
    int64_t lo = 0, hi = limit;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (what == 0) {
            if (w.task == GP_TASK_INFER)
                w.context = mid;
            else
                w.seq = mid;
        } else if (w.task == GP_TASK_INFER)
            w.batch = mid;
        if (what == 1 && w.task != GP_TASK_INFER) {
            gp_layout l2 = *l;
            l2.micro_batch = mid;
            l2.global_batch = 0;
            if (fits(m, g, &w, &l2, NULL))
                lo = mid;
            else
                hi = mid - 1;
            continue;
        }
        if (fits(m, g, &w, l, NULL))
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Can the asked layout run at all? TP must divide the attention heads (each GPU holds whole
 * heads: vLLM's and Megatron's check) and pipeline stages cannot outnumber the layers. If not,
 * the reason names the TP degrees that would, and *search drops the bad dimension so the
 * answer is the smallest valid layout. */
static void check_asked(const gp_model *m, const gp_gpu *gpu, const gp_layout *given, gp_layout *search,
                        gp_fit_result *out)
{
    out->asked_valid = 1;
    if (!given)
        return;
    if (given->tp > 0 && !tp_valid(m, given->tp)) {
        char ok[96] = "";
        int domain = gpu->scale_up_domain >= GP_PCIE_SERVER_GPUS ? gpu->scale_up_domain : GP_PCIE_SERVER_GPUS;
        for (int tp = 1; tp <= domain; tp *= 2)
            if (tp_valid(m, tp))
                snprintf(ok + strlen(ok), sizeof ok - strlen(ok), "%s%d", ok[0] ? ", " : "", tp);
        SAY(out, GP_REASON_INVALID_LAYOUT, MSG_FIT_BAD_TP, GPI_N(given->tp, 0), GPI_N(m->heads, 0), GPI_S(ok));
        out->asked_valid = 0;
        search->tp = 0;
    }
    if (given->pp > 0 && given->pp > m->layers) {
        SAY(out, GP_REASON_INVALID_LAYOUT, MSG_FIT_BAD_PP, GPI_N(given->pp, 0), GPI_N(m->layers, 0));
        out->asked_valid = 0;
        search->pp = 0;
    }
}

/* Sizes are GB (10^9 bytes) throughout; the marketed size is usually GiB and the device
 * reports less than it. One sentence so "80 GB" in the list and "85.5 GB" here agree. */
static void explain_units(const gp_gpu *gpu, gp_fit_result *out)
{
    double gib = (double)gpu->memory_bytes / 1073741824.0;
    SAY(out, GP_REASON_UNITS, MSG_FIT_UNITS, GPI_S(gpu->id), GPI_N(gpu->memory_marketed_gb, 0),
        GPI_N((double)gpu->memory_bytes / GB, 1), GPI_N(gib, 1));
}

/* When the asked weights do not fit one GPU: would 8-bit weights (fp8 where the GPU computes
 * it, int8) fit it? 8 bits is the floor of gpuplan's strictest data profile (health), so these
 * are allowed under every profile. */
static void lower_precision(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *one,
                            gp_fit_result *out)
{
    gp_dtype asked = w->dtype != GP_DTYPE_UNKNOWN ? w->dtype : (m->quant ? m->quant : m->dtype);
    if (w->task != GP_TASK_INFER || gp_dtype_bits(asked) <= 8)
        return;
    static const gp_dtype cand[2] = {GP_DTYPE_FP8, GP_DTYPE_INT8};
    char list[2][160] = {"", ""};
    for (int i = 0; i < 2; i++) {
        if (cand[i] == GP_DTYPE_FP8 && gpu->tflops[GP_DTYPE_FP8] <= 0)
            continue;
        gp_workload lw = *w;
        lw.dtype = cand[i];
        gp_memory mm;
        if (!fits(m, gpu, &lw, one, &mm))
            continue;
        out->lower[out->n_lower] = cand[i];
        out->lower_bytes[out->n_lower++] = mm.per_gpu;
        for (int pt = 0; pt < 2; pt++) {
            char item[96];
            gpi_msg_args(item, sizeof item, MSG_FIT_LOWER_ITEM, pt,
                         (const gpi_msg_arg[]){GPI_S(gp_dtype_name(cand[i])), GPI_N((double)mm.per_gpu / GB, 1),
                                               GPI_N((double)gpu->memory_bytes / GB, 1)},
                         3);
            snprintf(list[pt] + strlen(list[pt]), sizeof list[pt] - strlen(list[pt]), "%s%s", list[pt][0] ? ", " : "",
                     item);
        }
    }
    if (out->n_lower && out->n_reasons < GP_MAX_REASONS) {
        SAY(out, GP_REASON_LOWER_PRECISION_FITS, MSG_FIT_LOWER, GPI_S(gpu->id), GPI_S(list[0]));
        gpi_msg_args(out->reasons[out->n_reasons - 1].message_pt, GP_ERROR_MSG_MAX, MSG_FIT_LOWER, 1,
                     (const gpi_msg_arg[]){GPI_S(gpu->id), GPI_S(list[1])}, 2);
    }
}

/* "N x GPU (layout) hold it ...", with the layout's words in each language. */
static void say_hold(gp_fit_result *out, gp_reason_code code, const gp_gpu *gpu, const gp_workload *w, double cap)
{
    const gp_layout *l = &out->min_layout;
    int infer = w->task == GP_TASK_INFER;
    char how[2][128];
    for (int pt = 0; pt < 2; pt++)
        gpi_msg_args(how[pt], sizeof how[pt], infer ? MSG_FIT_HOW_INFER : MSG_FIT_HOW_TRAIN, pt,
                     (const gpi_msg_arg[]){GPI_N(l->tp, 0), GPI_N(l->pp, 0), GPI_N(l->dp, 0), GPI_N(l->zero, 0)}, 4);
    gpi_msg_arg a[9] = {GPI_N(out->min_gpus, 0),
                        GPI_S(gpu->id),
                        GPI_S(how[0]),
                        GPI_N((double)out->min_memory.per_gpu / GB, 1),
                        GPI_N(cap / GB, 1),
                        GPI_N(out->max_batch, 0),
                        GPI_N(w->context, 0),
                        GPI_N((double)out->max_batch * (double)w->context, 0),
                        GPI_N(out->max_context, 0)};
    gpi_msg_id id = infer ? MSG_FIT_HOLD_INFER : MSG_FIT_HOLD_TRAIN;
    int before = out->n_reasons;
    say(out, code, id, a, infer ? 9 : 5);
    a[2] = GPI_S(how[1]);
    if (out->n_reasons > before)
        gpi_msg_args(out->reasons[out->n_reasons - 1].message_pt, GP_ERROR_MSG_MAX, id, 1, a, infer ? 9 : 5);
}

/* "One larger GPU holds it alone: ..." with up to four of them. */
static void say_larger(gp_fit_result *out)
{
    char list[2][256] = {"", ""};
    for (int pt = 0; pt < 2; pt++)
        for (int i = 0; i < out->n_larger && i < 4; i++) {
            char item[96];
            gpi_msg_args(item, sizeof item, MSG_FIT_LARGER_ITEM, pt,
                         (const gpi_msg_arg[]){GPI_S(out->larger[i]), GPI_N((double)out->larger_capacity[i] / GB, 0)},
                         2);
            size_t used = strlen(list[pt]);
            snprintf(list[pt] + used, sizeof list[pt] - used, "%s%s", i ? ", " : "", item);
        }
    if (out->n_reasons >= GP_MAX_REASONS)
        return;
    SAY(out, GP_REASON_LARGER_GPU_FITS, MSG_FIT_LARGER, GPI_S(list[0]));
    gpi_msg_args(out->reasons[out->n_reasons - 1].message_pt, GP_ERROR_MSG_MAX, MSG_FIT_LARGER, 1,
                 (const gpi_msg_arg[]){GPI_S(list[1])}, 1);
}

/* The layout every count starts from: one GPU, the given layout's other settings. */
static void base_layout(const gp_layout *given, gp_layout *base)
{
    gpi_layout_defaults(base);
    if (!given)
        return;
    base->micro_batch = given->micro_batch > 0 ? given->micro_batch : 1;
    base->global_batch = given->global_batch;
    base->recompute = given->recompute;
    base->sequence_parallel = given->sequence_parallel;
    base->virtual_stages = given->virtual_stages > 0 ? given->virtual_stages : 1;
    base->cp = given->cp > 0 ? given->cp : 1;
    base->ep = given->ep > 0 ? given->ep : 1;
}

/* Why one GPU of the type is or is not enough (the first reason). */
static void say_one_gpu(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *base,
                        const gp_memory *one_mem, gp_fit_result *out)
{
    const double cap = (double)gpu->memory_bytes;
    if (one_mem->fits) {
        SAY(out, GP_REASON_FITS, MSG_FIT_FITS, GPI_S(gpu->id), GPI_N((double)one_mem->per_gpu / GB, 1),
            GPI_N(cap / GB, 1), GPI_N((double)one_mem->headroom / GB, 1));
    } else if (w->task == GP_TASK_INFER) {
        if ((double)one_mem->weights + (double)one_mem->overhead > cap)
            SAY(out, GP_REASON_WEIGHTS_EXCEED_VRAM, MSG_FIT_WEIGHTS, GPI_N((double)one_mem->weights / GB, 1),
                GPI_S(gpu->id), GPI_N(cap / GB, 1));
        else if ((double)(one_mem->weights + one_mem->kv_cache + one_mem->overhead) > cap)
            SAY(out, GP_REASON_KV_CACHE_EXCEEDS_VRAM, MSG_FIT_KV, GPI_N((double)one_mem->weights / GB, 1),
                GPI_N(cap / GB, 1), GPI_N(w->batch, 0), GPI_N(w->context, 0),
                GPI_N((double)(one_mem->weights + one_mem->kv_cache + one_mem->overhead + one_mem->activations) / GB -
                          cap / GB,
                      1));
        else
            SAY(out, GP_REASON_ACTIVATIONS_EXCEED_VRAM, MSG_FIT_PREFILL, GPI_N((double)one_mem->activations / GB, 1));
    } else {
        double states = (double)(one_mem->weights + one_mem->gradients + one_mem->optimizer);
        if (states + (double)one_mem->overhead > cap)
            SAY(out, GP_REASON_TRAINING_STATE_EXCEEDS_VRAM, MSG_FIT_TRAIN_STATE, GPI_N(states / GB, 1),
                GPI_N(states / (double)gp_model_total_params(m), 1), GPI_S(gpu->id), GPI_N(cap / GB, 1));
        else
            SAY(out, GP_REASON_ACTIVATIONS_EXCEED_VRAM, MSG_FIT_TRAIN_ACT, GPI_N(states / GB, 1), GPI_N(w->seq, 0),
                GPI_N(base->micro_batch, 0), GPI_N((double)one_mem->per_gpu / GB - cap / GB, 1));
    }
}

/* The smallest count and layout of this GPU that fits, with the longest context and largest
 * batch it holds; or the reason none does. */
static void smallest_layout(const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_layout *base,
                            const gp_layout *given, int one_fits, int first_reason, gp_fit_result *out)
{
    for (int n = 1; n <= GP_FIT_MAX_GPUS; n = next_count(n)) {
        if (search_count(m, gpu, w, base, given, n, &out->min_layout, &out->min_memory)) {
            out->fits = 1;
            out->min_gpus = n;
            break;
        }
    }
    if (!out->fits) {
        gpi_msg_id job = w->task == GP_TASK_INFER ? MSG_FIT_JOB_SERVE : MSG_FIT_JOB_TRAIN;
        int before = out->n_reasons;
        SAY(out, GP_REASON_NO_LAYOUT_FITS, MSG_FIT_NO_LAYOUT, GPI_N(GP_FIT_MAX_GPUS, 0), GPI_S(gpu->id),
            GPI_S(gpi_msg(job, 0)));
        if (out->n_reasons > before)
            gpi_msg_args(out->reasons[out->n_reasons - 1].message_pt, GP_ERROR_MSG_MAX, MSG_FIT_NO_LAYOUT, 1,
                         (const gpi_msg_arg[]){GPI_N(GP_FIT_MAX_GPUS, 0), GPI_S(gpu->id), GPI_S(gpi_msg(job, 1))}, 3);
        return;
    }
    const gp_layout *l = &out->min_layout;
    /* no longer than the model itself takes (engines refuse more) */
    int64_t ctx_limit = w->task == GP_TASK_INFER ? (m->max_context > 0 ? m->max_context : 1 << 22) : 1 << 22;
    out->max_context = max_fitting(m, gpu, w, l, 0, ctx_limit);
    out->context_capped = w->task == GP_TASK_INFER && m->max_context > 0 && out->max_context == m->max_context;
    out->max_batch = max_fitting(m, gpu, w, l, 1, 1 << 20);
    if (!one_fits)
        say_hold(out, out->reasons[first_reason].code, gpu, w, (double)gpu->memory_bytes);
}

/* Catalog GPUs larger than this one that hold the job alone, smallest first. */
static void larger_gpus(const gp_catalog *cat, const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                        const gp_layout *one, gp_fit_result *out)
{
    for (size_t i = 0; i < gp_catalog_gpu_count(cat) && out->n_larger < GP_MAX_ALTERNATIVES; i++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, i);
        if (g == gpu || g->memory_bytes <= gpu->memory_bytes)
            continue;
        gp_memory mm;
        if (fits(m, g, w, one, &mm)) {
            int k = out->n_larger++;
            /* keep sorted by capacity, smallest first */
            while (k > 0 && out->larger_capacity[k - 1] > g->memory_bytes) {
                memcpy(out->larger[k], out->larger[k - 1], sizeof out->larger[k]);
                out->larger_capacity[k] = out->larger_capacity[k - 1];
                k--;
            }
            gpi_strlcpy(out->larger[k], g->id, sizeof out->larger[k]);
            out->larger_capacity[k] = g->memory_bytes;
        }
    }
    if (out->n_larger > 0)
        say_larger(out);
}

gp_status gpi_fit(const gp_catalog *cat, const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                  const gp_layout *given, gp_fit_result *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_layout base;
    base_layout(given, &base);
    /* the layout as asked: given dimensions, others at 1 */
    out->asked = base;
    if (given) {
        if (given->tp > 0)
            out->asked.tp = given->tp;
        if (given->pp > 0)
            out->asked.pp = given->pp;
        if (given->dp > 0)
            out->asked.dp = given->dp;
        if (given->zero > 0)
            out->asked.zero = given->zero;
        if (out->asked.tp > 1 && w->task != GP_TASK_INFER && !given->sequence_parallel)
            out->asked.sequence_parallel = 1;
    }
    gp_status st = gpi_memory_estimate(m, gpu, w, &out->asked, &out->asked_memory, err);
    if (st)
        return st;

    gp_layout search_given;
    if (given)
        search_given = *given;
    check_asked(m, gpu, given, &search_given, out);
    if (given)
        given = &search_given;
    if (!out->asked_valid)
        out->asked_memory.fits = 0;

    /* one GPU of this type, everything else as asked */
    gp_layout one = base;
    gp_memory one_mem;
    st = gpi_memory_estimate(m, gpu, w, &one, &one_mem, err);
    if (st)
        return st;
    out->single_gpu_sufficient = one_mem.fits;
    int first_reason = out->n_reasons; /* why one GPU is or is not enough */
    say_one_gpu(m, gpu, w, &base, &one_mem, out);
    smallest_layout(m, gpu, w, &base, given, one_mem.fits, first_reason, out);

    if (w->task == GP_TASK_INFER && m->max_context > 0 && w->context > m->max_context)
        SAY(out, GP_REASON_CONTEXT_ABOVE_MODEL_MAX, MSG_FIT_CONTEXT_MAX, GPI_N(w->context, 0),
            GPI_N(m->max_context, 0));
    if (!one_mem.fits)
        lower_precision(m, gpu, w, &one, out);
    out->asked_fits = out->asked_valid && out->asked_memory.fits;
    explain_units(gpu, out);

    /* one larger GPU instead of several smaller ones */
    if (!one_mem.fits && cat)
        larger_gpus(cat, m, gpu, w, &one, out);
    return GP_OK;
}
