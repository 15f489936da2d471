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

#include <stdio.h>
#include <string.h>

#define GP_FIT_MAX_GPUS 16384
#define GP_PCIE_SERVER_GPUS 8 /* GPUs in a typical PCIe server (8-slot chassis) */
#define GB 1e9

static const char *const reason_names[GP_REASON_COUNT] = {
    "fits", "weights_exceed_vram", "kv_cache_exceeds_vram", "training_state_exceeds_vram",
    "activations_exceed_vram", "larger_gpu_fits", "no_layout_fits", "invalid_layout",
    "context_above_model_max", "lower_precision_fits", "units"};

const char *gp_reason_name(gp_reason_code c)
{
    return (unsigned)c < GP_REASON_COUNT ? reason_names[c] : "?";
}

#define add_reason(r, code, ...) gpi_reason_add((r)->reasons, &(r)->n_reasons, GP_MAX_REASONS, code, __VA_ARGS__)

static int fits(const gp_model *m, const gp_gpu *g, const gp_workload *w, const gp_layout *l, gp_memory *mem)
{
    gp_memory tmp;
    if (!mem)
        mem = &tmp;
    return gp_memory_estimate(m, g, w, l, mem, NULL) == GP_OK && mem->fits;
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
        add_reason(out, GP_REASON_INVALID_LAYOUT,
                   "Tensor parallelism %d cannot run: %d does not divide the model's %lld attention heads (each GPU must hold whole heads). Use TP %s.",
                   given->tp, given->tp, (long long)m->heads, ok);
        out->asked_valid = 0;
        search->tp = 0;
    }
    if (given->pp > 0 && given->pp > m->layers) {
        add_reason(out, GP_REASON_INVALID_LAYOUT, "Pipeline parallelism %d cannot run: the model has only %lld layers.",
                   given->pp, (long long)m->layers);
        out->asked_valid = 0;
        search->pp = 0;
    }
}

/* Sizes are GB (10^9 bytes) throughout; the marketed size is usually GiB and the device
 * reports less than it. One sentence so "80 GB" in the list and "85.5 GB" here agree. */
static void explain_units(const gp_gpu *gpu, gp_fit_result *out)
{
    double gib = (double)gpu->memory_bytes / 1073741824.0;
    add_reason(out, GP_REASON_UNITS,
               "Sizes are in GB of 10^9 bytes. The %s is sold as %.0f GB (in fact GiB, 2^30 bytes); the device reports %.1f GB (%.1f GiB), the figure used here.",
               gpu->id, gpu->memory_marketed_gb, (double)gpu->memory_bytes / GB, gib);
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
    char list[160] = "";
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
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s (%.1f GB of %.1f GB)", list[0] ? ", " : "",
                 gp_dtype_name(cand[i]), (double)mm.per_gpu / GB, (double)gpu->memory_bytes / GB);
    }
    if (out->n_lower)
        add_reason(out, GP_REASON_LOWER_PRECISION_FITS,
                   "With 8-bit weights one %s holds it: %s. 8-bit weights change outputs little and every gpuplan data profile allows them; check the quality on your task.",
                   gpu->id, list);
}

gp_status gp_fit(const gp_catalog *cat, const gp_model *m, const gp_gpu *gpu, const gp_workload *w,
                 const gp_layout *given, gp_fit_result *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    gp_layout base;
    gp_layout_defaults(&base);
    if (given) {
        base.micro_batch = given->micro_batch > 0 ? given->micro_batch : 1;
        base.global_batch = given->global_batch;
        base.recompute = given->recompute;
        base.sequence_parallel = given->sequence_parallel;
        base.virtual_stages = given->virtual_stages > 0 ? given->virtual_stages : 1;
        base.cp = given->cp > 0 ? given->cp : 1;
        base.ep = given->ep > 0 ? given->ep : 1;
    }
    /* the layout as asked: given dimensions, others at 1 */
    out->asked = base;
    if (given) {
        if (given->tp > 0) out->asked.tp = given->tp;
        if (given->pp > 0) out->asked.pp = given->pp;
        if (given->dp > 0) out->asked.dp = given->dp;
        if (given->zero > 0) out->asked.zero = given->zero;
        if (out->asked.tp > 1 && w->task != GP_TASK_INFER && !given->sequence_parallel)
            out->asked.sequence_parallel = 1;
    }
    gp_status st = gp_memory_estimate(m, gpu, w, &out->asked, &out->asked_memory, err);
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
    st = gp_memory_estimate(m, gpu, w, &one, &one_mem, err);
    if (st)
        return st;
    out->single_gpu_sufficient = one_mem.fits;
    const double cap = (double)gpu->memory_bytes;
    const char *what = w->task == GP_TASK_INFER ? "serve" : "train";

    int first_reason = out->n_reasons; /* why one GPU is or is not enough */
    if (one_mem.fits) {
        add_reason(out, GP_REASON_FITS,
                   "One %s holds it: %.1f GB needed of %.1f GB, %.1f GB to spare.", gpu->id,
                   (double)one_mem.per_gpu / GB, cap / GB, (double)one_mem.headroom / GB);
    } else if (w->task == GP_TASK_INFER) {
        if ((double)one_mem.weights + (double)one_mem.overhead > cap)
            add_reason(out, GP_REASON_WEIGHTS_EXCEED_VRAM,
                       "The weights alone are %.1f GB; one %s has %.1f GB, so the model must be split over several GPUs.",
                       (double)one_mem.weights / GB, gpu->id, cap / GB);
        else if ((double)(one_mem.weights + one_mem.kv_cache + one_mem.overhead) > cap)
            add_reason(out, GP_REASON_KV_CACHE_EXCEEDS_VRAM,
                       "The weights fit (%.1f GB of %.1f GB), but the KV cache for %lld sequences of %lld tokens needs %.1f GB more than is left.",
                       (double)one_mem.weights / GB, cap / GB, (long long)w->batch, (long long)w->context,
                       (double)(one_mem.weights + one_mem.kv_cache + one_mem.overhead + one_mem.activations) / GB - cap / GB);
        else
            add_reason(out, GP_REASON_ACTIVATIONS_EXCEED_VRAM,
                       "Weights and KV cache fit, but the prefill activations (%.1f GB) do not.",
                       (double)one_mem.activations / GB);
    } else {
        double states = (double)(one_mem.weights + one_mem.gradients + one_mem.optimizer);
        if (states + (double)one_mem.overhead > cap)
            add_reason(out, GP_REASON_TRAINING_STATE_EXCEEDS_VRAM,
                       "Weights, gradients and optimizer states need %.1f GB (%.1f bytes per parameter); one %s has %.1f GB.",
                       states / GB, states / (double)gp_model_total_params(m), gpu->id, cap / GB);
        else
            add_reason(out, GP_REASON_ACTIVATIONS_EXCEED_VRAM,
                       "The model states fit (%.1f GB), but the activations of a %lld-token micro-batch of %lld need %.1f GB more.",
                       states / GB, (long long)w->seq, (long long)base.micro_batch,
                       (double)one_mem.per_gpu / GB - cap / GB);
    }

    /* the smallest count and layout of this GPU that fits */
    for (int n = 1; n <= GP_FIT_MAX_GPUS; n = next_count(n)) {
        if (search_count(m, gpu, w, &base, given, n, &out->min_layout, &out->min_memory)) {
            out->fits = 1;
            out->min_gpus = n;
            break;
        }
    }
    if (!out->fits) {
        add_reason(out, GP_REASON_NO_LAYOUT_FITS,
                   "No layout of up to %d %s fits this %s job as asked: reduce the context, batch or precision, or enable recomputation/offload.",
                   GP_FIT_MAX_GPUS, gpu->id, what);
    } else {
        const gp_layout *l = &out->min_layout;
        /* no longer than the model itself takes (engines refuse more) */
        int64_t ctx_limit = w->task == GP_TASK_INFER ? (m->max_context > 0 ? m->max_context : 1 << 22) : 1 << 22;
        out->max_context = max_fitting(m, gpu, w, l, 0, ctx_limit);
        out->context_capped = w->task == GP_TASK_INFER && m->max_context > 0 && out->max_context == m->max_context;
        out->max_batch = max_fitting(m, gpu, w, l, 1, 1 << 20);
        if (!one_mem.fits) {
            char how[128];
            if (w->task == GP_TASK_INFER)
                snprintf(how, sizeof how, "tensor parallel %d x pipeline %d", l->tp, l->pp);
            else
                snprintf(how, sizeof how, "TP %d x PP %d x DP %d with ZeRO-%d", l->tp, l->pp, l->dp, l->zero);
            double kv_tokens = (double)out->max_batch * (double)w->context;
            if (w->task == GP_TASK_INFER)
                add_reason(out, out->reasons[first_reason].code,
                           "%d x %s (%s) hold it: %.1f GB per GPU of %.1f GB; room for %lld concurrent %lld-token sequences (%.0f tokens of KV cache), or one sequence of up to %lld tokens.",
                           out->min_gpus, gpu->id, how, (double)out->min_memory.per_gpu / GB, cap / GB,
                           (long long)out->max_batch, (long long)w->context, kv_tokens, (long long)out->max_context);
            else
                add_reason(out, out->reasons[first_reason].code, "%d x %s (%s) hold it: %.1f GB per GPU of %.1f GB.",
                           out->min_gpus, gpu->id, how, (double)out->min_memory.per_gpu / GB, cap / GB);
        }
    }

    if (w->task == GP_TASK_INFER && m->max_context > 0 && w->context > m->max_context)
        add_reason(out, GP_REASON_CONTEXT_ABOVE_MODEL_MAX,
                   "Warning: the context asked (%lld tokens) is longer than the model's maximum of %lld tokens; engines refuse longer sequences (vLLM: max_model_len above max_position_embeddings), so plan for %lld.",
                   (long long)w->context, (long long)m->max_context, (long long)m->max_context);
    if (!one_mem.fits)
        lower_precision(m, gpu, w, &one, out);
    out->asked_fits = out->asked_valid && out->asked_memory.fits;
    explain_units(gpu, out);

    /* one larger GPU instead of several smaller ones */
    if (!one_mem.fits && cat) {
        for (size_t i = 0; i < gp_catalog_gpu_count(cat) && out->n_larger < GP_MAX_ALTERNATIVES; i++) {
            const gp_gpu *g = gp_catalog_gpu_at(cat, i);
            if (g == gpu || g->memory_bytes <= gpu->memory_bytes)
                continue;
            gp_memory mm;
            if (fits(m, g, w, &one, &mm)) {
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
        if (out->n_larger > 0) {
            char list[256] = "";
            for (int i = 0; i < out->n_larger && i < 4; i++) {
                size_t used = strlen(list);
                snprintf(list + used, sizeof list - used, "%s%s (%.0f GB)", i ? ", " : "", out->larger[i],
                         (double)out->larger_capacity[i] / GB);
            }
            add_reason(out, GP_REASON_LARGER_GPU_FITS,
                       "One larger GPU holds it alone: %s. A single GPU needs no inter-GPU synchronization, so it is usually faster and simpler than several smaller ones.",
                       list);
        }
    }
    return GP_OK;
}
