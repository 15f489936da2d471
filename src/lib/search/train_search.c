/*
 * train_search.c: every valid parallel layout of a training run on N GPUs, ranked.
 *
 * The space (docs/performance.md, "The layout search"):
 *   tp  powers of two dividing the query heads, the KV heads (Megatron needs whole query
 *       groups per rank) and N, at most the GPUs of one node unless TP across nodes is
 *       allowed (or TP is given);
 *   cp  powers of two dividing the sequence and N/tp, at most GP_SEARCH_MAX_CP, each rank
 *       keeping at least GP_SEARCH_MIN_CP_TOKENS tokens;
 *   pp  every divisor of N/(tp x cp) up to the layers; stages may be uneven (the slowest
 *       holds ceil(L/pp) layers) but none may be empty: (pp-1) x ceil(L/pp) < L;
 *   dp  = N / (tp x cp x pp), and must divide the global batch;
 *   ep  (MoE) divisors of the routed experts that divide tp x dp;
 *   micro-batch  divisors of global_batch / dp up to GP_SEARCH_MAX_MICRO_BATCH, so that
 *       micro-batch x dp x accumulation = global batch exactly;
 *   ZeRO 0..3 (1..3 only when dp x cp > 1: otherwise they are ZeRO-0);
 *   recomputation none, selective, full;
 *   virtual stages 1, or (pp > 1) divisors v of the fullest stage's ceil(L/pp) layers up to
 *       GP_SEARCH_MAX_VSTAGES, with the micro-batches a multiple of pp (Megatron's rule);
 *       uneven stages interleave too (Llama 3 405B: 126 layers on PP 16, first and last
 *       stages one layer lighter, interleaved; Llama 3 paper sec. 3.3.2);
 *   sequence parallelism on whenever tp > 1 (the same bytes as the all-reduces it replaces,
 *       Korthikanti et al. 2022 sec. 4.2.2, and less memory: never worse).
 * A dimension the caller fixes is used as given (its soft limits -- power of two, node
 * size, the CP and micro-batch bounds -- do not apply; the divisibility rules do).
 *
 * Each valid layout gets gpi_memory_estimate; a layout that fits gets gpi_train_perf_estimate.
 * The best top_k by the ranking are kept by insertion in a fixed array, the Pareto front of
 * (step time, memory per GPU) in a fixed buffer allocated once per call. Nothing is
 * allocated per layout.
 */
#include "internal.h"
#include "perf/train_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bounds of the searched space (docs/performance.md) ---- */
#define GP_SEARCH_MAX_CP 32 /* Llama 3 long-context training used CP 16 */
/* Each CP rank keeps at least this many tokens: NVIDIA NeMo's Llama 3.1 405B recipe runs CP 2
 * at 8,192 (4,096 per rank), Llama 3's long-context stage CP 16 at 131,072 (8,192 per rank).
 * Below it, ring-attention chunks are too small to hide the KV exchange and the attention
 * kernels lose efficiency -- costs the step-time model does not charge, so the search does
 * not offer them (a fixed --cp is still evaluated). */
#define GP_SEARCH_MIN_CP_TOKENS        4096
#define GP_SEARCH_MAX_MICRO_BATCH      64        /* beyond this the activations of any LLM overflow */
#define GP_SEARCH_MAX_VSTAGES          8         /* Megatron interleaving rarely goes past 4-8 */
#define GP_SEARCH_DEFAULT_BATCH_TOKENS 4194304.0 /* 4M tokens per step (Llama 2, GPT-3 175B: 3.2M) */
#define GP_SEARCH_DEFAULT_MAX_GPUS     65536
#define GP_SEARCH_DEFAULT_TOP_K        5
#define GP_SEARCH_PARETO_BUF           1024 /* front kept internally; thinned to GP_TRAIN_TOP_MAX */
#define GP_SEARCH_MAX_LIST             64   /* values of one dimension per search */

void gpi_train_search_defaults(gp_train_search_opts *o)
{
    memset(o, 0, sizeof *o);
    o->top_k = GP_SEARCH_DEFAULT_TOP_K;
    o->rank = GP_RANK_TIME;
    o->max_gpus = GP_SEARCH_DEFAULT_MAX_GPUS;
}

/* A candidate as the search keeps it (no `why` text until the end). */
typedef struct cand {
    gp_layout l;
    gp_train_perf p;
    gp_memory mem;
    double key; /* lower is better */
    double cost;
} cand;

typedef struct state {
    int64_t evaluated, valid, fitting;
    int n_top, top_k;
    cand top[GP_TRAIN_TOP_MAX];
    int n_pareto;
    int pareto_overflow;
    cand *pareto; /* GP_SEARCH_PARETO_BUF entries */
    /* the valid layout needing the least memory, for the "nothing fits" reason */
    int have_smallest;
    gp_layout smallest;
    gp_memory smallest_mem;
    int64_t global_batch;
    /* the best layout of each TP degree (by log2) and with / without pipelining, to say why
     * the winner beat the other ways of splitting */
    int have_tp[16], have_pp[2];
    cand best_tp[16], best_pp[2];
} state;

typedef struct ctx {
    const gp_model *m;
    const gp_gpu *gpu;
    const gp_cluster *c;
    const gp_workload *w;
    const gp_train_search_opts *o;
    gp_error *err; /* first estimator error, if any */
    gp_status st;
    gp_param_breakdown params; /* the model's counts, made once for every layout */
    gp_work *work;             /* the question's budget (GPI_WORK_PER_LAYOUT per layout) */
} ctx;

static int64_t default_global_batch(const gp_workload *w)
{
    double seqs = GP_SEARCH_DEFAULT_BATCH_TOKENS / (double)w->seq;
    int64_t gb = 1;
    while ((double)(gb * 2) <= seqs)
        gb *= 2;
    return gb;
}

static double rank_key(const gp_train_search_opts *o, const gp_train_perf *p, double cost)
{
    switch (o->rank) {
    case GP_RANK_COST: return cost;
    case GP_RANK_TOKENS_PER_DOLLAR: {
        /* tokens per dollar = tokens_per_s x 3600 / (price x gpus); negated: lower is better */
        double price = o->price_per_gpu_hour > 0 ? o->price_per_gpu_hour : 1.0;
        return -(p->tokens_per_s * 3600.0 / (price * (double)p->gpus));
    }
    default: return o->train_tokens > 0 ? p->time_to_train_s : p->step_time_s;
    }
}

static double run_cost(const gp_train_search_opts *o, const gp_train_perf *p)
{
    double price = o->price_per_gpu_hour > 0 ? o->price_per_gpu_hour : 1.0; /* GPU-hours */
    double secs = o->train_tokens > 0 ? p->time_to_train_s : p->step_time_s;
    return price * (double)p->gpus * secs / 3600.0;
}

static int same_split(const gp_layout *a, const gp_layout *b)
{
    return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
           a->micro_batch == b->micro_batch && a->virtual_stages == b->virtual_stages;
}

static int tp_class(int tp)
{
    int k = 0;
    while (tp > 1 && k < 15) {
        tp >>= 1;
        k++;
    }
    return k;
}

/* The top list holds the best layout of each distinct split (degrees, micro-batch, virtual
 * stages): ZeRO stage and recomputation are chosen per split, so the list shows different
 * ways of splitting the model rather than one split with every ZeRO stage. */
static void keep_top(state *s, const cand *c)
{
    int n = s->n_top;
    if (n == s->top_k && !(c->key < s->top[n - 1].key))
        return;
    for (int j = 0; j < n; j++)
        if (same_split(&s->top[j].l, &c->l)) {
            if (!(c->key < s->top[j].key))
                return;
            memmove(&s->top[j], &s->top[j + 1], sizeof s->top[0] * (size_t)(n - j - 1));
            s->n_top = --n;
            break;
        }
    if (n == s->top_k && !(c->key < s->top[n - 1].key))
        return;
    int i = n < s->top_k ? n : n - 1;
    /* strict <: an earlier layout with the same key stays ahead (deterministic order) */
    while (i > 0 && c->key < s->top[i - 1].key) {
        s->top[i] = s->top[i - 1];
        i--;
    }
    s->top[i] = *c;
    if (n < s->top_k)
        s->n_top++;
}

static void keep_pareto(state *s, const cand *c)
{
    const double t = c->p.step_time_s;
    const uint64_t mb = c->mem.per_gpu;
    for (int i = 0; i < s->n_pareto; i++) {
        const cand *q = &s->pareto[i];
        if (q->p.step_time_s <= t && q->mem.per_gpu <= mb)
            return; /* dominated (or equal: the first one stays) */
    }
    int k = 0;
    for (int i = 0; i < s->n_pareto; i++) {
        const cand *q = &s->pareto[i];
        if (t <= q->p.step_time_s && mb <= q->mem.per_gpu)
            continue; /* the new point dominates q */
        if (k != i)
            s->pareto[k] = *q;
        k++;
    }
    s->n_pareto = k;
    if (k < GP_SEARCH_PARETO_BUF)
        s->pareto[s->n_pareto++] = *c;
    else
        s->pareto_overflow = 1;
}

/* One complete layout: the cross-dimension rules, memory, step time, ranking. */
static void consider(ctx *x, state *s, const gp_layout *l)
{
    if (x->st ||
        (x->o->cancel && (s->evaluated & 255) == 0 && x->o->cancel(x->o->cancel_arg) &&
         (x->st = gpi_fail(x->err, GP_ELIMIT,
                           "the layout search was stopped: past the request's deadline or the server is stopping"))))
        return;
    if ((x->st = gpi_work_spend(x->work, GPI_WORK_PER_LAYOUT, x->err)) != GP_OK)
        return; /* over the budget or canceled: the search stops with that error */
    s->evaluated++;
    s->valid++;
    cand c;
    if (gpi_memory_estimate(x->m, x->gpu, x->w, l, &c.mem, NULL) != GP_OK) {
        s->valid--; /* a rule the memory model enforces that the search did not anticipate */
        return;
    }
    if (!s->have_smallest || c.mem.per_gpu < s->smallest_mem.per_gpu) {
        s->have_smallest = 1;
        s->smallest = *l;
        s->smallest_mem = c.mem;
    }
    if (!c.mem.fits)
        return;
    gp_status st = gpi_train_perf_estimate_p(x->m, &x->params, x->gpu, x->c, x->w, l, x->o->train_tokens, &c.p, x->err);
    if (st != GP_OK) {
        if (x->st == GP_OK)
            x->st = st;
        s->valid--;
        return;
    }
    s->fitting++;
    c.l = *l;
    c.cost = run_cost(x->o, &c.p);
    c.key = rank_key(x->o, &c.p, c.cost);
    keep_top(s, &c);
    keep_pareto(s, &c);
    int k = tp_class(l->tp), q = l->pp > 1;
    if (!s->have_tp[k] || c.key < s->best_tp[k].key) {
        s->have_tp[k] = 1;
        s->best_tp[k] = c;
    }
    if (!s->have_pp[q] || c.key < s->best_pp[q].key) {
        s->have_pp[q] = 1;
        s->best_pp[q] = c;
    }
}

/* Divisors of n up to `max`, ascending, into out (at most GP_SEARCH_MAX_LIST). */
static int divisors(int64_t n, int64_t max, int64_t *out)
{
    int k = 0;
    for (int64_t d = 1; d <= n && d <= max && k < GP_SEARCH_MAX_LIST; d++)
        if (n % d == 0)
            out[k++] = d;
    return k;
}

static int stage_nonempty(int64_t L, int pp)
{
    int64_t per = (L + pp - 1) / pp;
    return (int64_t)(pp - 1) * per < L;
}

/* The TP degrees (powers of two within a node, or across nodes when allowed) and CP degrees
 * (powers of two leaving enough tokens per rank) to try on n GPUs; a fixed one alone. */
static void tp_cp_degrees(const ctx *x, int n, int64_t *tps, int *ntp, int64_t *cps, int *ncp)
{
    const gp_layout *f = &x->o->fixed;
    int tp_max = x->o->allow_tp_across_nodes ? n : (x->c->gpus_per_node < n ? x->c->gpus_per_node : n);
    *ntp = *ncp = 0;
    if (f->tp > 0)
        tps[(*ntp)++] = f->tp;
    else
        for (int64_t t = 1; t <= tp_max && *ntp < GP_SEARCH_MAX_LIST; t *= 2)
            tps[(*ntp)++] = t;
    if (f->cp > 0)
        cps[(*ncp)++] = f->cp;
    else
        for (int64_t c = 1; c <= GP_SEARCH_MAX_CP && *ncp < GP_SEARCH_MAX_LIST; c *= 2)
            if (c == 1 || x->w->seq / c >= GP_SEARCH_MIN_CP_TOKENS)
                cps[(*ncp)++] = c;
}

/* Every ZeRO stage and recomputation (or the fixed ones) of one complete split. */
static void search_memory_options(ctx *x, state *s, gp_layout *l, int dp, int cp)
{
    const gp_train_search_opts *o = x->o;
    const gp_layout *f = &o->fixed;
    const int z0 = o->fix_zero ? f->zero : 0, z1 = o->fix_zero ? f->zero : (dp * cp > 1 ? 3 : 0);
    const int r0 = o->fix_recompute ? (int)f->recompute : 0;
    const int r1 = o->fix_recompute ? (int)f->recompute : GP_RECOMPUTE_COUNT - 1;
    for (int z = z0; z <= z1; z++) {
        l->zero = z;
        for (int r = r0; r <= r1; r++) {
            l->recompute = (gp_recompute)r;
            /* the modules a user named go with selective recomputation only */
            l->recompute_modules = r == GP_RECOMPUTE_SELECTIVE ? f->recompute_modules : 0;
            consider(x, s, l);
            if (x->st != GP_OK)
                return;
        }
    }
}

/* Every expert-parallel degree, micro-batch and interleaving of one (TP, CP, PP, DP) split;
 * each rejection by a cross-dimension rule counts once as evaluated. */
static void search_split(ctx *x, state *s, int tp, int cp, int pp, int dp)
{
    const gp_model *m = x->m;
    const gp_layout *f = &x->o->fixed;
    const int64_t L = m->layers, gb = s->global_batch;
    int64_t mbs[GP_SEARCH_MAX_LIST], eps[GP_SEARCH_MAX_LIST], vss[GP_SEARCH_MAX_LIST];
    int nmb = 0, nep = 0, nvs = 0;
    if (f->micro_batch > 0) {
        if ((gb / dp) % f->micro_batch != 0) {
            s->evaluated++;
            return;
        }
        mbs[nmb++] = f->micro_batch;
    } else
        nmb = divisors(gb / dp, GP_SEARCH_MAX_MICRO_BATCH, mbs);
    if (m->experts <= 0)
        eps[nep++] = 1;
    else if (f->ep > 0)
        eps[nep++] = f->ep;
    else
        nep = divisors(m->experts, m->experts, eps);
    if (f->virtual_stages > 0)
        vss[nvs++] = f->virtual_stages;
    else if (pp > 1)
        nvs = divisors((L + pp - 1) / pp, GP_SEARCH_MAX_VSTAGES, vss);
    else
        vss[nvs++] = 1;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = tp;
    l.cp = cp;
    l.pp = pp;
    l.dp = dp;
    l.global_batch = gb;
    l.sequence_parallel = tp > 1 ? 1 : f->sequence_parallel;
    for (int ie = 0; ie < nep; ie++) {
        l.ep = (int)eps[ie];
        if (m->experts > 0 && (m->experts % l.ep != 0 || ((int64_t)tp * dp) % l.ep != 0)) {
            s->evaluated++;
            continue;
        }
        for (int im = 0; im < nmb; im++) {
            l.micro_batch = mbs[im];
            const int64_t micro = gb / ((int64_t)dp * l.micro_batch);
            for (int iv = 0; iv < nvs; iv++) {
                l.virtual_stages = (int)vss[iv];
                if (l.virtual_stages > 1 &&
                    (pp == 1 || ((L + pp - 1) / pp) % l.virtual_stages != 0 || micro % pp != 0)) {
                    s->evaluated++;
                    continue;
                }
                search_memory_options(x, s, &l, dp, cp);
                if (x->st != GP_OK)
                    return;
            }
        }
    }
}

/* Enumerate every layout on n GPUs into s. */
static void search_count(ctx *x, state *s, int n)
{
    const gp_model *m = x->m;
    const gp_workload *w = x->w;
    const gp_layout *f = &x->o->fixed;
    const int64_t L = m->layers;
    const int mla = m->kv_lora_rank > 0;
    const int64_t gb = f->global_batch > 0 ? f->global_batch : default_global_batch(w);
    s->global_batch = gb;
    gpi_work_stage(x->work, 1, "layout search", 0, 0, "%d GPU%s", n, n == 1 ? "" : "s");

    int64_t tps[GP_SEARCH_MAX_LIST], cps[GP_SEARCH_MAX_LIST], pps[GP_SEARCH_MAX_LIST];
    int ntp, ncp;
    tp_cp_degrees(x, n, tps, &ntp, cps, &ncp);
    for (int it = 0; it < ntp; it++) {
        const int tp = (int)tps[it];
        if (m->heads % tp != 0 || (!mla && m->kv_heads % tp != 0) || n % tp != 0)
            continue; /* not a candidate: the per-dimension rules */
        for (int ic = 0; ic < ncp; ic++) {
            const int cp = (int)cps[ic];
            if (w->seq % cp != 0 || (n / tp) % cp != 0)
                continue;
            const int64_t rest = n / tp / cp;
            int npp = 0;
            if (f->pp > 0) {
                if (rest % f->pp == 0)
                    pps[npp++] = f->pp;
            } else
                npp = divisors(rest, L, pps);
            for (int ip = 0; ip < npp; ip++) {
                const int pp = (int)pps[ip];
                const int dp = (int)(rest / pp);
                if (f->dp > 0 && dp != f->dp)
                    continue;
                /* cross-dimension rules on the partial layout: each rejection counts once */
                if (pp > L || !stage_nonempty(L, pp) || gb % dp != 0) {
                    s->evaluated++;
                    continue;
                }
                search_split(x, s, tp, cp, pp, dp);
                if (x->st != GP_OK)
                    return;
            }
        }
    }
}

/* ---- explanations ------------------------------------------------------------------- */

static const char *const part_names[9] = {"compute",          "memory-bound work", "TP communication",
                                          "CP communication", "EP all-to-all",     "pipeline sends",
                                          "DP communication", "pipeline bubble",   "optimizer"};

static void parts(const gp_train_perf *p, double out[9])
{
    out[0] = p->compute_s;
    out[1] = p->memory_s;
    out[2] = p->tp_comm_s;
    out[3] = p->cp_comm_s;
    out[4] = p->ep_comm_s;
    out[5] = p->pp_comm_s;
    out[6] = p->dp_comm_s;
    out[7] = p->bubble_s;
    out[8] = p->optimizer_s;
}

/* Appends printf-style text to buf (size n), truncating. */
static void app(char *buf, size_t n, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static void app(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

/* The dimensions where a differs from b: "TP 4 vs 8, PP 32 vs 16" (with_b), or only a's
 * values, "TP 4, PP 32". */
static void layout_diff(const gp_layout *a, const gp_layout *b, int with_b, char *buf, size_t n)
{
    buf[0] = '\0';
    const char *sep = "";
#define DIFF(NAME, FIELD, CAST, FMT)                                                                                   \
    if (a->FIELD != b->FIELD) {                                                                                        \
        app(buf, n, "%s" NAME " " FMT, sep, (CAST)a->FIELD);                                                           \
        if (with_b)                                                                                                    \
            app(buf, n, " vs " FMT, (CAST)b->FIELD);                                                                   \
        sep = ", ";                                                                                                    \
    }
    DIFF("TP", tp, int, "%d")
    DIFF("PP", pp, int, "%d")
    DIFF("DP", dp, int, "%d")
    DIFF("CP", cp, int, "%d")
    DIFF("EP", ep, int, "%d")
    DIFF("micro-batch", micro_batch, long long, "%lld")
    DIFF("ZeRO", zero, int, "%d")
    DIFF("virtual stages", virtual_stages, int, "%d")
#undef DIFF
    if (a->recompute != b->recompute) {
        app(buf, n, "%srecompute %s", sep, gp_recompute_name(a->recompute));
        if (with_b)
            app(buf, n, " vs %s", gp_recompute_name(b->recompute));
        sep = ", ";
    }
    if (!buf[0])
        app(buf, n, "same degrees");
}

/* The component where a spends most more than b (returns its index, delta in *d), or -1. */
static int worst_part(const gp_train_perf *a, const gp_train_perf *b, double *d)
{
    double pa[9], pb[9];
    parts(a, pa);
    parts(b, pb);
    int k = -1;
    *d = 0;
    for (int i = 0; i < 9; i++)
        if (pa[i] - pb[i] > *d) {
            *d = pa[i] - pb[i];
            k = i;
        }
    return k;
}

static const char *rank_word(gp_rank_by r)
{
    return r == GP_RANK_COST ? "cheapest" : r == GP_RANK_TOKENS_PER_DOLLAR ? "most tokens per dollar" : "fastest";
}

/* "; the best with TP 4 (PP 8, DP 256) is 19.0% slower, +1017 ms compute" */
static void versus(const cand *win, const cand *alt, const char *label, char *buf, size_t n)
{
    char diff[160];
    double d;
    layout_diff(&alt->l, &win->l, 0, diff, sizeof diff);
    int k = worst_part(&alt->p, &win->p, &d);
    app(buf, n, "; %s (%s) is %.1f%% slower", label, diff, 100.0 * (alt->p.step_time_s / win->p.step_time_s - 1.0));
    if (k >= 0 && d >= 0.0005)
        app(buf, n, ", +%.0f ms %s", d * 1e3, part_names[k]);
}

/* Why a candidate ranks where it does, derived from its step-time breakdown: the winner's
 * features and how much slower the runner-up, the best of another TP degree and the best of
 * the other pipelining choice are (and where their time goes); any other candidate: how it
 * differs from #1 and where its extra time goes. */
static void explain(const ctx *x, const state *s, const cand *c, int rank, const cand *first, const cand *next,
                    char *buf, size_t n)
{
    const gp_layout *l = &c->l;
    const gp_cluster *cl = x->c;
    const gp_train_perf *p = &c->p;
    buf[0] = '\0';
    if (rank == 0) {
        app(buf, n, "%s", rank_word(x->o->rank));
        const char *sep = ": ";
        if (l->tp > 1) {
            int inside = l->tp <= cl->gpus_per_node;
            app(buf, n, "%sTP %d %s %s", sep, l->tp, inside ? "on" : "across nodes over",
                inside ? (cl->intra_name[0] ? cl->intra_name : "the node's links")
                       : (cl->inter_name[0] ? cl->inter_name : "the network"));
            sep = ", ";
        }
        if (l->pp > 1) {
            app(buf, n, "%sPP %d %s (%lld layers on the fullest stage", sep, l->pp,
                gp_layout_gpus(l) > cl->gpus_per_node ? "across nodes" : "in the node",
                (long long)((x->m->layers + l->pp - 1) / l->pp));
            if (l->virtual_stages > 1)
                app(buf, n, ", %d interleaved chunks", l->virtual_stages);
            app(buf, n, ") with %.1f%% bubble at %lld micro-batches", 100.0 * p->bubble_s / p->step_time_s,
                (long long)p->micro_batches);
            sep = ", ";
        }
        if (l->cp > 1) {
            app(buf, n, "%sCP %d", sep, l->cp);
            sep = ", ";
        }
        if (l->ep > 1) {
            app(buf, n, "%sEP %d", sep, l->ep);
            sep = ", ";
        }
        if (l->dp > 1) {
            app(buf, n, "%sDP %d with ZeRO-%d (%.1f%% of the step is exposed gradient traffic)", sep, l->dp, l->zero,
                100.0 * p->dp_comm_s / p->step_time_s);
            sep = ", ";
        }
        if (l->recompute != GP_RECOMPUTE_NONE) {
            app(buf, n, "%s%s recomputation", sep, gp_recompute_name(l->recompute));
            if (l->recompute_modules) {
                char mods[96];
                gpi_recompute_modules_format(l->recompute_modules, ", ", mods, sizeof mods);
                app(buf, n, " (%s)", mods);
            }
            sep = ", ";
        }
        app(buf, n, "%s%.1f of %.1f GB per GPU", sep, (double)c->mem.per_gpu / 1e9, (double)c->mem.capacity / 1e9);
        if (next)
            versus(c, next, "#2", buf, n);
        /* the best of another TP degree (the closest), and of the other pipelining choice */
        const cand *alt = NULL;
        for (int k = 0; k < 16; k++)
            if (s->have_tp[k] && s->best_tp[k].l.tp != l->tp && (!alt || s->best_tp[k].key < alt->key))
                alt = &s->best_tp[k];
        char label[64];
        if (alt && !(next && same_split(&alt->l, &next->l))) {
            snprintf(label, sizeof label, "the best with TP %d", alt->l.tp);
            versus(c, alt, label, buf, n);
        }
        const cand *other = s->have_pp[l->pp == 1] ? &s->best_pp[l->pp == 1] : NULL;
        if (other && !(next && same_split(&other->l, &next->l)) && !(alt && same_split(&other->l, &alt->l)))
            versus(c, other, l->pp > 1 ? "the best without PP" : "the best with PP", buf, n);
        app(buf, n, ".");
        return;
    }
    char diff[160];
    layout_diff(l, &first->l, 1, diff, sizeof diff);
    double slower = 100.0 * (p->step_time_s / first->p.step_time_s - 1.0);
    app(buf, n, "%s: %.1f%% %s than #1", diff, fabs(slower), slower >= 0 ? "slower" : "faster");
    double d;
    int k = worst_part(p, &first->p, &d);
    if (k >= 0 && d >= 0.0005)
        app(buf, n, ", mostly +%.0f ms %s", d * 1e3, part_names[k]);
    if (c->mem.per_gpu + 500000000ull < first->mem.per_gpu)
        app(buf, n, ", but %.1f GB less memory per GPU", (double)(first->mem.per_gpu - c->mem.per_gpu) / 1e9);
    app(buf, n, ".");
}

static void pareto_why(const cand *c, int i, int n, char *buf, size_t len)
{
    buf[0] = '\0';
    if (i == 0)
        app(buf, len, "fastest step of the front");
    else if (i == n - 1)
        app(buf, len, "least memory per GPU of the front");
    else
        app(buf, len, "no layout is both faster and smaller");
    app(buf, len, ": %.3f s per step, %.1f GB per GPU.", c->p.step_time_s, (double)c->mem.per_gpu / 1e9);
}

static void to_candidate(const cand *c, gp_train_candidate *out)
{
    memset(out, 0, sizeof *out);
    out->layout = c->l;
    out->perf = c->p;
    out->memory = c->mem;
    out->cost = c->cost;
}

static int cmp_time(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->p.step_time_s != y->p.step_time_s)
        return x->p.step_time_s < y->p.step_time_s ? -1 : 1;
    return x->mem.per_gpu < y->mem.per_gpu ? -1 : x->mem.per_gpu > y->mem.per_gpu;
}

#define add_reason(r, code, ...) gpi_reason_add((r)->reasons, &(r)->n_reasons, GP_MAX_REASONS, code, __VA_ARGS__)

static void state_reset(state *s, int top_k)
{
    cand *buf = s->pareto;
    memset(s, 0, sizeof *s);
    s->top_k = top_k;
    s->pareto = buf;
}

/* Fill the result from the state of the final GPU count. */
static void finish(const ctx *x, state *s, int gpus, gp_train_search_result *out)
{
    out->gpus = gpus;
    out->n_top = s->n_top;
    for (int i = 0; i < s->n_top; i++) {
        to_candidate(&s->top[i], &out->top[i]);
        explain(x, s, &s->top[i], i, &s->top[0], i == 0 && s->n_top > 1 ? &s->top[1] : NULL, out->top[i].why,
                sizeof out->top[i].why);
    }
    qsort(s->pareto, (size_t)s->n_pareto, sizeof s->pareto[0], cmp_time);
    int np = s->n_pareto;
    int keep = np < GP_TRAIN_TOP_MAX ? np : GP_TRAIN_TOP_MAX;
    for (int i = 0; i < keep; i++) {
        /* evenly spaced along the front, both ends kept */
        int src = keep == np ? i : (int)((double)i * (np - 1) / (keep - 1) + 0.5);
        to_candidate(&s->pareto[src], &out->pareto[i]);
        pareto_why(&s->pareto[src], i, keep, out->pareto[i].why, sizeof out->pareto[i].why);
    }
    out->n_pareto = keep;
}

static gp_status check_inputs(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c, const gp_workload *w,
                              const gp_train_search_opts *o, gp_error *err)
{
    if (!m || !gpu || !c || !w || !o)
        return gpi_fail(err, GP_EINVAL, "gpi_train_search needs a model, a GPU, a cluster, a workload and options");
    gp_param_breakdown p;
    gp_status st = gp_model_params(m, &p, err);
    if (st)
        return st;
    const gp_layout *f = &o->fixed;
#define BAD(FIELD, ...)                                                                                                \
    do {                                                                                                               \
        gpi_error_set_field(err, FIELD);                                                                               \
        return gpi_fail(err, GP_EINVAL, __VA_ARGS__);                                                                  \
    } while (0)
    if (w->task == GP_TASK_INFER)
        BAD("task", "the layout search is for training (task train, lora or qlora), not inference");
    if (w->seq < 1 || w->seq > ((int64_t)1 << 32))
        BAD("seq", "the sequence length must be between 1 and 2^32, not %lld", (long long)w->seq);
    if (c->gpus_per_node < 1)
        BAD("gpus_per_node", "the cluster needs at least 1 GPU per node");
    if (o->top_k < 1 || o->top_k > GP_TRAIN_TOP_MAX)
        BAD("top_k", "top_k must be between 1 and %d, not %d", GP_TRAIN_TOP_MAX, o->top_k);
    if ((unsigned)o->rank >= GP_RANK_COUNT)
        BAD("rank", "unknown ranking %d", (int)o->rank);
    if (o->gpus < 0 || (o->gpus == 0 && (o->deadline_s <= 0 || o->train_tokens <= 0)))
        BAD("gpus", "give a GPU count, or a deadline and the tokens to train so the search can find the count");
    if (o->gpus == 0 && o->max_gpus < 1)
        BAD("max_gpus", "max_gpus must be at least 1 for the deadline search");
    if (o->train_tokens < 0 || o->deadline_s < 0 || o->price_per_gpu_hour < 0)
        BAD("train_tokens", "tokens, deadline and price cannot be negative");
    if (f->tp < 0 || f->pp < 0 || f->dp < 0 || f->cp < 0 || f->ep < 0 || f->micro_batch < 0 || f->global_batch < 0 ||
        f->virtual_stages < 0)
        BAD("layout", "fixed layout dimensions must be positive (0: searched)");
    if (o->fix_zero && (f->zero < 0 || f->zero > 3))
        BAD("zero", "ZeRO stage must be 0 to 3, not %d", f->zero);
    if (o->fix_recompute && (unsigned)f->recompute >= GP_RECOMPUTE_COUNT)
        BAD("recompute", "unknown recomputation %d", (int)f->recompute);
    if (f->tp > 0 && (m->heads % f->tp != 0 || (m->kv_lora_rank == 0 && m->kv_heads % f->tp != 0)))
        BAD("tp", "tp=%d must divide the %lld query heads and the %lld KV heads", f->tp, (long long)m->heads,
            (long long)m->kv_heads);
    if (f->pp > m->layers)
        BAD("pp", "pp=%d exceeds the model's %lld layers", f->pp, (long long)m->layers);
    if (f->pp > 0 && !stage_nonempty(m->layers, f->pp))
        BAD("pp", "pp=%d leaves the last stage empty: %lld layers at ceil(%lld/%d) = %lld per stage", f->pp,
            (long long)m->layers, (long long)m->layers, f->pp, (long long)((m->layers + f->pp - 1) / f->pp));
    if (f->cp > 0 && w->seq % f->cp != 0)
        BAD("cp", "cp=%d must divide the sequence length %lld", f->cp, (long long)w->seq);
    if (f->ep > 1 && (m->experts <= 0 || m->experts % f->ep != 0))
        BAD("ep", "ep=%d must divide the %lld routed experts", f->ep, (long long)m->experts);
    int64_t fixed_prod =
        (int64_t)(f->tp > 0 ? f->tp : 1) * (f->pp > 0 ? f->pp : 1) * (f->dp > 0 ? f->dp : 1) * (f->cp > 0 ? f->cp : 1);
    if (o->gpus > 0 && o->gpus % fixed_prod != 0)
        BAD("gpus", "the fixed degrees multiply to %lld, which does not divide %d GPUs", (long long)fixed_prod,
            o->gpus);
    if (f->global_batch > 0 && f->dp > 0 && f->global_batch % f->dp != 0)
        BAD("global_batch", "global batch %lld is not a multiple of dp=%d", (long long)f->global_batch, f->dp);
    if (f->global_batch > 0 && f->dp > 0 && f->micro_batch > 0 && f->global_batch % (f->dp * f->micro_batch) != 0)
        BAD("global_batch", "global batch %lld is not a multiple of dp x micro-batch = %lld",
            (long long)f->global_batch, (long long)(f->dp * f->micro_batch));
#undef BAD
    return GP_OK;
}

/* Best rank key at n GPUs into *t (time to train or step time of the best layout); 0 if none fits. */
static int best_at(ctx *x, state *s, int n, gp_train_search_result *out, double *t)
{
    state_reset(s, 1);
    search_count(x, s, n);
    out->evaluated += s->evaluated;
    out->valid += s->valid;
    out->fitting += s->fitting;
    if (!s->n_top)
        return 0;
    *t = s->top[0].p.time_to_train_s;
    return 1;
}

static void fmt_duration(double s, char *buf, size_t n)
{
    if (s >= 86400.0 * 2)
        snprintf(buf, n, "%.1f days", s / 86400.0);
    else if (s >= 3600.0 * 2)
        snprintf(buf, n, "%.1f hours", s / 3600.0);
    else
        snprintf(buf, n, "%.0f s", s);
}

/* Deadline mode: the smallest GPU count whose best layout trains in time. 1, 2, 4 .. up to a
 * node, then doubling nodes; refine between the last count that missed and the first that met
 * it (multiples of a node past one node). *n: that count, or the last one tried (with a
 * reason) when none meets it; *met: 1 when the deadline is met. */
static gp_status deadline_count(ctx *x, state *s, gp_train_search_result *out, int *n, int *met)
{
    const gp_train_search_opts *o = x->o;
    const int gpn = x->c->gpus_per_node;
    int lo = 0, hi = 0, max = o->max_gpus;
    double t = 0, t_last = 0;
    int have_last = 0;
    char a[64], b[64];
    *met = 0;
    for (int k = 1; k <= max;) {
        int ok = best_at(x, s, k, out, &t);
        if (x->st)
            return x->st;
        if (ok) {
            t_last = t;
            have_last = 1;
        }
        if (ok && t <= o->deadline_s) {
            hi = k;
            break;
        }
        lo = k;
        int next = k * 2;
        if (k < gpn && next > gpn)
            next = gpn;
        if (next > max && k < max)
            next = max;
        k = next;
        if (k == lo)
            break;
    }
    if (!hi) {
        fmt_duration(o->deadline_s, a, sizeof a);
        if (have_last) {
            fmt_duration(t_last, b, sizeof b);
            add_reason(
                out, GP_REASON_NO_LAYOUT_FITS,
                "the deadline of %s is not met even with %d GPUs: the best layout there trains %.3g tokens in %s", a,
                lo, o->train_tokens, b);
        } else
            add_reason(out, GP_REASON_NO_LAYOUT_FITS,
                       "no layout up to %d GPUs fits in memory, so no count meets the deadline of %s", max, a);
        *n = lo;
        return GP_OK;
    }
    /* refine in (lo, hi]: integers inside one node, multiples of the node beyond */
    int unit = lo >= gpn ? gpn : 1;
    int klo = lo / unit, khi = hi / unit;
    while (khi - klo > 1) {
        int mid = klo + (khi - klo) / 2;
        int ok = best_at(x, s, mid * unit, out, &t);
        if (x->st)
            return x->st;
        if (ok && t <= o->deadline_s)
            khi = mid;
        else
            klo = mid;
    }
    *n = khi * unit;
    *met = 1;
    return GP_OK;
}

/* ", most of it activations (1238477.0 GB): a shorter sequence ..." when one part of a layout's
 * memory is most of it: what to change; "" otherwise. */
static void largest_part(const gp_memory *mem, char *buf, size_t n)
{
    const uint64_t states = mem->weights + mem->gradients + mem->optimizer;
    buf[0] = '\0';
    if (mem->activations * 2 > mem->per_gpu)
        snprintf(buf, n, ", most of it activations (%.1f GB): a shorter sequence (--seq) is needed",
                 (double)mem->activations / 1e9);
    else if (states * 2 > mem->per_gpu)
        snprintf(buf, n, ", most of it weights, gradients and optimizer state (%.1f GB): more GPUs are needed",
                 (double)states / 1e9);
}

/* Why the search at n GPUs came out as it did. */
static void search_reasons(const ctx *x, const state *s, int n, int deadline_met, gp_train_search_result *out)
{
    const gp_model *m = x->m;
    const gp_train_search_opts *o = x->o;
    char a[64], b[64];
    if (s->valid == 0)
        add_reason(out, GP_REASON_NO_LAYOUT_FITS,
                   "no valid layout for %d GPU%s: data parallelism must divide the global batch of %lld sequences, "
                   "TP the %lld heads and %lld KV heads, PP the GPUs left (at most %lld layers)",
                   n, n == 1 ? "" : "s", (long long)s->global_batch, (long long)m->heads, (long long)m->kv_heads,
                   (long long)m->layers);
    else if (s->fitting == 0 && s->have_smallest) {
        char most[160];
        largest_part(&s->smallest_mem, most, sizeof most);
        add_reason(
            out, GP_REASON_NO_LAYOUT_FITS,
            "none of the %lld valid layouts for %d GPU%s fits in %.1f GB: the smallest (TP %d, PP %d, DP %d, CP %d, "
            "ZeRO-%d, recompute %s, micro-batch %lld) needs %.1f GB per GPU%s",
            (long long)s->valid, n, n == 1 ? "" : "s", (double)s->smallest_mem.capacity / 1e9, s->smallest.tp,
            s->smallest.pp, s->smallest.dp, s->smallest.cp, s->smallest.zero, gp_recompute_name(s->smallest.recompute),
            (long long)s->smallest.micro_batch, (double)s->smallest_mem.per_gpu / 1e9, most);
    } else if (s->fitting > 0) {
        add_reason(out, GP_REASON_FITS, "%lld of %lld valid layouts for %d GPU%s fit in memory; ranked by %s",
                   (long long)s->fitting, (long long)s->valid, n, n == 1 ? "" : "s",
                   o->rank == GP_RANK_COST                ? "cost"
                   : o->rank == GP_RANK_TOKENS_PER_DOLLAR ? "tokens per dollar"
                                                          : "time");
        if (deadline_met) {
            fmt_duration(out->top[0].perf.time_to_train_s, a, sizeof a);
            fmt_duration(o->deadline_s, b, sizeof b);
            add_reason(out, GP_REASON_FITS, "%d GPUs is the smallest count found meeting the deadline: %s <= %s", n, a,
                       b);
        }
    }
    if (s->pareto_overflow)
        add_reason(out, GP_REASON_FITS, "the Pareto front had more than %d layouts; later ones were dropped",
                   GP_SEARCH_PARETO_BUF);
}

gp_status gpi_train_search(const gp_model *m, const gp_gpu *gpu, const gp_cluster *c, const gp_workload *w,
                           const gp_train_search_opts *o, gp_train_search_result *out, gp_error *err)
{
    gp_error_clear(err);
    if (!out)
        return gpi_fail(err, GP_EINVAL, "gpi_train_search needs a result to fill");
    memset(out, 0, sizeof *out);
    gp_status st = check_inputs(m, gpu, c, w, o, err);
    if (st)
        return st;
    gp_work local_work;
    gpi_work_init(&local_work, 0);
    ctx x = {m, gpu, c, w, o, err, GP_OK, {0}, o->work ? o->work : &local_work};
    st = gp_model_params(m, &x.params, err);
    if (st)
        return st;
    state s;
    memset(&s, 0, sizeof s);
    s.pareto = malloc(sizeof(cand) * GP_SEARCH_PARETO_BUF);
    if (!s.pareto)
        return gpi_fail(err, GP_ENOMEM, "out of memory for the layout search");

    int n = o->gpus, deadline_met = 0;
    if (n == 0)
        st = deadline_count(&x, &s, out, &n, &deadline_met);
    if (st == GP_OK && n >= 1) {
        state_reset(&s, o->top_k);
        search_count(&x, &s, n);
        st = x.st;
        if (st == GP_OK) {
            out->global_batch = s.global_batch;
            out->evaluated += s.evaluated;
            out->valid += s.valid;
            out->fitting += s.fitting;
            finish(&x, &s, n, out);
            search_reasons(&x, &s, n, deadline_met, out);
        }
    }
    free(s.pareto);
    return st;
}
