/*
 * sim.c: discrete-event simulation of one continuous-batching engine replica
 * (docs/serving.md, "Simulator"). The rules follow vLLM's V1 scheduler
 * (vllm/v1/core/sched/scheduler.py; Kwon et al. 2023 for paged KV, Agrawal et al. 2024
 * (Sarathi-Serve) for chunked prefill under a token budget):
 *  - each step has a token budget (max_num_batched_tokens); running sequences are served
 *    first, in admission order: a decoding sequence takes 1 token, a sequence still in
 *    prefill takes min(remaining prompt, budget) (chunked prefill);
 *  - KV is paged in blocks of block_size tokens, allocated as tokens are computed; when the
 *    pool is empty the most recently admitted running sequence is preempted: its blocks are
 *    freed and it goes back to the front of the queue, to be recomputed (prompt + tokens
 *    generated so far) when readmitted;
 *  - waiting requests are admitted in arrival order while the budget, max_num_seqs and free
 *    blocks allow, and not in a step that preempted (with reserve_full, as TensorRT-LLM's
 *    GUARANTEED_NO_EVICT policy, only when the request's whole prompt + output fits);
 *  - a sequence whose every token has KV samples one token at the end of the step: the first
 *    at TTFT, the last finishes the request.
 * Step durations come from gpi_step_time. Time advances step by step; with nothing to run it
 * jumps to the next arrival. Memory: the waiting queue is a ring buffer grown by doubling,
 * the running set a fixed array, results three arrays of the request count, all allocated
 * once per call.
 */
#include "serving.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- deterministic PRNG: xoshiro256** seeded by splitmix64 (Blackman & Vigna 2018) ---- */
typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed)
{
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&seed);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* uniform in [0, 1) */
static double rng_uniform(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}
static double rng_exp(rng *r, double mean)
{
    return -mean * log(1.0 - rng_uniform(r));
}
/* standard normal (Box-Muller; one of the pair is used) */
static double rng_normal(rng *r)
{
    double u = 1.0 - rng_uniform(r), v = rng_uniform(r);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

void gpi_length_default(gp_length_spec *ls, double mean)
{
    memset(ls, 0, sizeof *ls);
    ls->dist = GP_LENGTH_LOGNORMAL;
    ls->mean = mean;
    ls->sigma = GPI_LOGNORMAL_SIGMA;
    ls->min = 1;
    ls->max = (int64_t)ceil(4.0 * mean);
}

static int64_t draw_length(rng *r, const gp_length_spec *ls)
{
    int64_t lo = ls->min > 0 ? ls->min : 1, hi = ls->max > 0 ? ls->max : GPI_MAX_TOKENS, v;
    switch (ls->dist) {
    case GP_LENGTH_UNIFORM: v = lo + (int64_t)(rng_uniform(r) * (double)(hi - lo + 1)); break;
    case GP_LENGTH_EXPONENTIAL: v = (int64_t)llround(rng_exp(r, ls->mean)); break;
    case GP_LENGTH_LOGNORMAL: {
        /* mean = exp(mu + sigma^2 / 2) */
        double sg = ls->sigma > 0 ? ls->sigma : GPI_LOGNORMAL_SIGMA;
        double x = exp(log(ls->mean) - sg * sg / 2.0 + sg * rng_normal(r));
        v = x < 9e15 ? (int64_t)llround(x) : INT64_MAX / 4;
        break;
    }
    default: v = (int64_t)llround(ls->mean); break;
    }
    return v < lo ? lo : v > hi ? hi : v;
}

/* ---- requests and queues ------------------------------------------------------------- */
typedef struct req {
    double arrival, first_token;
    int64_t prompt, output;
    int64_t len;      /* tokens that exist: prompt + generated */
    int64_t computed; /* tokens whose KV is in the cache */
    int64_t generated;
    int64_t blocks;
    int64_t index;  /* issue order */
    int64_t user;   /* closed loop: who sent it */
    int64_t cached; /* prompt tokens found in the prefix cache */
    int64_t draft;  /* speculative tokens verified this step */
    int group;      /* pipeline micro-batch the sequence travels in */
    double ready;   /* pipeline: when its last token leaves the last stage */
} req;

typedef struct deque {
    req *v;
    size_t cap, head, n;
} deque;

static int dq_grow(deque *q)
{
    size_t nc = q->cap ? q->cap * 2 : 1024;
    req *nv = malloc(nc * sizeof *nv);
    if (!nv)
        return -1;
    for (size_t i = 0; i < q->n; i++)
        nv[i] = q->v[(q->head + i) % q->cap];
    free(q->v);
    q->v = nv;
    q->cap = nc;
    q->head = 0;
    return 0;
}

static int dq_push_back(deque *q, const req *r)
{
    if (q->n == q->cap && dq_grow(q))
        return -1;
    q->v[(q->head + q->n) % q->cap] = *r;
    q->n++;
    return 0;
}

static int dq_push_front(deque *q, const req *r)
{
    if (q->n == q->cap && dq_grow(q))
        return -1;
    q->head = (q->head + q->cap - 1) % q->cap;
    q->v[q->head] = *r;
    q->n++;
    return 0;
}

static req *dq_front(deque *q)
{
    return &q->v[q->head];
}
static void dq_pop_front(deque *q)
{
    q->head = (q->head + 1) % q->cap;
    q->n--;
}

/* min-heap of (time, user) for closed-loop think times */
typedef struct hnode {
    double t;
    int64_t user;
} hnode;

static void heap_push(hnode *h, int64_t *n, hnode x)
{
    int64_t i = (*n)++;
    while (i > 0) {
        int64_t p = (i - 1) / 2;
        if (h[p].t <= x.t)
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static hnode heap_pop(hnode *h, int64_t *n)
{
    hnode top = h[0], x = h[--(*n)];
    int64_t i = 0;
    for (;;) {
        int64_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].t < h[c].t)
            c++;
        if (x.t <= h[c].t)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = x;
    return top;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Percentile with linear interpolation between closest ranks (numpy's default). */
static double pct(const double *sorted, int64_t n, double q)
{
    if (n <= 0)
        return 0.0;
    double pos = q * (double)(n - 1);
    int64_t i = (int64_t)pos;
    if (i >= n - 1)
        return sorted[n - 1];
    return sorted[i] + (sorted[i + 1] - sorted[i]) * (pos - (double)i);
}

static void stats(double *v, int64_t n, gp_latency_stats *s)
{
    memset(s, 0, sizeof *s);
    if (n <= 0)
        return;
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += v[i];
    s->mean = sum / (double)n;
    s->p50 = pct(v, n, 0.50);
    s->p90 = pct(v, n, 0.90);
    s->p99 = pct(v, n, 0.99);
    s->max = v[n - 1];
}

static int64_t ceil_div(int64_t a, int64_t b)
{
    return (a + b - 1) / b;
}

/* The simulation's whole state, so helpers stay small. */
typedef struct sim {
    const gpi_step_model *sm;
    const gpi_sched_config *sc;
    const gp_traffic *t;
    rng r;
    deque waiting;
    req *running;
    int64_t n_running;
    int64_t free_blocks;
    int64_t issued;      /* requests created so far */
    int64_t total;       /* requests to create */
    double next_arrival; /* open loop / trace / burst: time of request `issued` */
    hnode *heap;         /* closed loop: users' next send times */
    int64_t heap_n;
    /* results per request, by issue index */
    double *ttft, *tpot, *e2e;
    double *arrival_of;
    int64_t *out_tokens, *in_tokens;
    unsigned char *done; /* 1 completed, 2 rejected */
    int64_t preemptions, steps, rejected;
    gp_work *work;  /* the question's budget: running + 1 units a step */
    int64_t *sched; /* tokens scheduled this step, parallel to running[] */
    int64_t finished;
    int64_t slot; /* pipeline: the micro-batch (group) scheduled next */
    int pp;       /* micro-batches in flight (pipeline stages) */
    double now;
    double kv_time, kv_peak, run_time, busy, host_wait;
    const gp_slo *stop_slo; /* stop once a p99 target is certainly missed (NULL: never) */
    int64_t count_lo, count_hi, miss_ttft, miss_tpot, miss_limit;
    int stop;
    int empty_slots; /* pipeline: consecutive slots with nothing ready */
    /* attention DP without balance: steps with a context chunk on this rank and the GPU time
     * those chunks added beyond the step's decode work (dp_wait_s) */
    int64_t ctx_steps;
    double ctx_extra_s;
} sim;

static void make_request(sim *s, int64_t user, double at, req *q)
{
    memset(q, 0, sizeof *q);
    q->index = s->issued++;
    q->user = user;
    q->arrival = at;
    if (s->t->arrival == GP_ARRIVAL_TRACE) {
        const gp_trace_request *tr = &s->t->trace[q->index];
        q->prompt = tr->prompt_tokens > 0 ? tr->prompt_tokens : 1;
        q->output = tr->output_tokens > 0 ? tr->output_tokens : 1;
    } else {
        q->prompt = draw_length(&s->r, &s->t->prompt);
        q->output = draw_length(&s->r, &s->t->output);
    }
    q->len = q->prompt;
    if (s->t->prefix_hit > 0) {
        q->cached = (int64_t)floor(s->t->prefix_hit * (double)q->prompt);
        if (q->cached >= q->prompt)
            q->cached = q->prompt - 1;
        q->computed = q->cached;
    }
    s->arrival_of[q->index] = at;
    s->in_tokens[q->index] = q->prompt;
    s->out_tokens[q->index] = q->output;
}

static void schedule_next_open_arrival(sim *s)
{
    if (s->issued >= s->total) {
        s->next_arrival = INFINITY;
        return;
    }
    switch (s->t->arrival) {
    case GP_ARRIVAL_POISSON: s->next_arrival += rng_exp(&s->r, 1.0 / s->t->rate); break;
    case GP_ARRIVAL_FIXED_RATE: s->next_arrival = (double)s->issued / s->t->rate; break;
    case GP_ARRIVAL_TRACE: s->next_arrival = s->t->trace[s->issued].arrival_s; break;
    default: /* burst */ s->next_arrival = 0.0; break;
    }
}

/* A request that can never run (too long for max_model_len or the whole pool). */
static int never_fits(const sim *s, const req *q)
{
    int64_t need = q->prompt + q->output;
    if (s->sc->max_model_len > 0 && need > s->sc->max_model_len)
        return 1;
    return ceil_div(need, s->sc->block_size) > s->sc->kv_blocks;
}

static void user_done(sim *s, int64_t user, double now)
{
    if (s->t->arrival != GP_ARRIVAL_CLOSED_LOOP || s->issued + s->heap_n >= s->total)
        return;
    double think = s->t->think_time_s > 0 ? rng_exp(&s->r, s->t->think_time_s) : 0.0;
    heap_push(s->heap, &s->heap_n, (hnode){now + think, user});
}

/* Move every arrival at or before `now` into the waiting queue. */
static int admit_arrivals(sim *s, double now)
{
    req q;
    if (s->t->arrival == GP_ARRIVAL_CLOSED_LOOP) {
        while (s->heap_n > 0 && s->heap[0].t <= now && s->issued < s->total) {
            hnode h = heap_pop(s->heap, &s->heap_n);
            make_request(s, h.user, h.t, &q);
            if (never_fits(s, &q)) {
                s->done[q.index] = 2;
                s->rejected++;
                user_done(s, h.user, h.t);
                continue;
            }
            if (dq_push_back(&s->waiting, &q))
                return -1;
        }
        return 0;
    }
    while (s->next_arrival <= now && s->issued < s->total) {
        make_request(s, -1, s->next_arrival, &q);
        schedule_next_open_arrival(s);
        if (never_fits(s, &q)) {
            s->done[q.index] = 2;
            s->rejected++;
            continue;
        }
        if (dq_push_back(&s->waiting, &q))
            return -1;
    }
    return 0;
}

static double next_event_time(const sim *s)
{
    if (s->t->arrival == GP_ARRIVAL_CLOSED_LOOP)
        return s->heap_n > 0 && s->issued < s->total ? s->heap[0].t : INFINITY;
    return s->issued < s->total ? s->next_arrival : INFINITY;
}

/* Preempt the last running sequence: free its KV, recompute it later. */
static int preempt_last(sim *s)
{
    req *v = &s->running[--s->n_running];
    s->free_blocks += v->blocks;
    v->blocks = 0;
    v->computed = v->cached; /* the prefix cache still holds the shared prefix */
    v->draft = 0;
    s->preemptions++;
    return dq_push_front(&s->waiting, v);
}

/* ---- input limits and the work budget (docs/reliability.md) ---------------------------- */

static int tokens_ok(int64_t v, int64_t lo)
{
    return v >= lo && v <= GPI_MAX_TOKENS;
}

static int length_ok(const gp_length_spec *l)
{
    return (unsigned)l->dist < GP_LENGTH_COUNT && tokens_ok(l->min, 0) && tokens_ok(l->max, 0) &&
           (l->dist == GP_LENGTH_UNIFORM || (l->mean >= 1 && l->mean <= (double)GPI_MAX_TOKENS));
}

/* Every count the loop adds stays in int64: tokens of one request <= 2^33, blocks <= 2^40. */
static gp_status sim_check_limits(const gpi_sched_config *sc, const gp_traffic *t, int64_t total, gp_error *err)
{
    if (sc->max_num_seqs > GPI_MAX_SEQS || sc->max_num_batched_tokens > GPI_MAX_TOKENS ||
        sc->block_size > GPI_MAX_TOKENS || sc->kv_blocks > ((int64_t)1 << 40) || sc->max_model_len < 0 ||
        sc->max_model_len > 2 * GPI_MAX_TOKENS)
        return gpi_fail(err, GP_EINVAL,
                        "the engine's limits must be at most 2^32 sequences, tokens and block size, "
                        "and 2^40 KV blocks");
    if (t->arrival == GP_ARRIVAL_TRACE) {
        for (int64_t i = 0; i < total; i++) {
            const gp_trace_request *r = &t->trace[i];
            if (!(r->arrival_s >= 0 && r->arrival_s <= 1e12) || !tokens_ok(r->prompt_tokens, 0) ||
                !tokens_ok(r->output_tokens, 0))
                return gpi_fail(err, GP_EINVAL,
                                "trace request %lld: arrival must be 0 to 1e12 s and token counts "
                                "1 to 2^32 (4,294,967,296)",
                                (long long)i + 1);
        }
    } else if (!length_ok(&t->prompt) || !length_ok(&t->output)) {
        gpi_error_set_field(err, !length_ok(&t->prompt) ? "prompt_tokens" : "output_tokens");
        return gpi_fail(err, GP_EINVAL, "prompt and output lengths must be 1 to 2^32 (4,294,967,296) tokens");
    }
    return GP_OK;
}

static double mean_length(const gp_length_spec *l)
{
    double lo = l->min > 0 ? (double)l->min : 1.0, hi = l->max > 0 ? (double)l->max : (double)GPI_MAX_TOKENS;
    double m = l->dist == GP_LENGTH_UNIFORM ? (lo + hi) / 2.0 : l->mean;
    return m < lo ? lo : m > hi ? hi : m;
}

/* Before allocating: the simulation's work (sequence-steps: every request needs its prompt
 * chunks and one step per output token) and memory must fit the budget. */
static gp_status sim_reserve(const gpi_sched_config *sc, const gp_traffic *t, int64_t total, const gp_work *work,
                             gp_error *err)
{
    const double chunk = (double)sc->max_num_batched_tokens;
    double units = 0, prompt = 0, output = 0;
    if (t->arrival == GP_ARRIVAL_TRACE) {
        for (int64_t i = 0; i < total; i++) {
            prompt += (double)t->trace[i].prompt_tokens;
            output += (double)t->trace[i].output_tokens;
            units += ceil((double)t->trace[i].prompt_tokens / chunk) + (double)t->trace[i].output_tokens;
        }
        prompt /= (double)total;
        output /= (double)total;
    } else {
        prompt = mean_length(&t->prompt);
        output = mean_length(&t->output);
        units = (double)total * (ceil(prompt / chunk) + output);
    }
    /* results (6 arrays of 8 bytes + 1) and the waiting queue (grown by doubling) per request;
     * the running set per sequence; the heap per closed-loop user */
    double bytes = (double)total * (6.0 * 8.0 + 1.0 + 2.0 * (double)sizeof(req)) +
                   (double)sc->max_num_seqs * ((double)sizeof(req) + 8.0) +
                   (t->arrival == GP_ARRIVAL_CLOSED_LOOP ? (double)t->users * (double)sizeof(hnode) : 0.0);
    char what[160];
    snprintf(what, sizeof what, "a simulation of %lld requests of about %.0f prompt and %.0f output tokens",
             (long long)total, prompt, output);
    return gpi_work_reserve(work, units, bytes, what, "lower the requests, users or token counts", err);
}

static gp_status check_traffic(const gpi_sched_config *sc, const gp_traffic *t, int64_t *total_out, gp_error *err)
{
    if (sc->max_num_seqs < 1 || sc->max_num_batched_tokens < 1 || sc->kv_blocks < 1 || sc->block_size < 1)
        return gpi_fail(err, GP_EINVAL, "the engine needs at least one sequence, one batched token and one KV block");
    if (sc->spec.draft_tokens < 0 || sc->spec.draft_tokens > 16 ||
        (sc->spec.draft_tokens > 0 &&
         !(sc->spec.acceptance > 0 && sc->spec.acceptance < 1 && sc->spec.draft_cost >= 0 && sc->spec.draft_cost <= 1)))
        return gpi_fail(
            err, GP_EINVAL,
            "speculative decoding needs 1 to 16 draft tokens, an acceptance rate in (0, 1) and a draft cost "
            "in [0, 1] of a target step");
    if ((unsigned)t->arrival >= GP_ARRIVAL_COUNT)
        return gpi_fail(err, GP_EINVAL, "unknown arrival process");
    if (!(t->prefix_hit >= 0 && t->prefix_hit < 1))
        return gpi_fail(err, GP_EINVAL, "the prefix-cache hit rate must be in [0, 1), not %g", t->prefix_hit);
    int64_t total = t->requests;
    if (t->arrival == GP_ARRIVAL_TRACE) {
        if (!t->trace || t->trace_len == 0)
            return gpi_fail(err, GP_EINVAL, "a trace arrival process needs a non-empty trace");
        if (total <= 0 || total > (int64_t)t->trace_len)
            total = (int64_t)t->trace_len;
        for (int64_t i = 1; i < total; i++)
            if (t->trace[i].arrival_s < t->trace[i - 1].arrival_s)
                return gpi_fail(err, GP_EINVAL, "trace arrivals must not decrease (request %lld)", (long long)i + 1);
    }
    if (total < 1 || total > ((int64_t)1 << 31))
        return gpi_fail(err, GP_EINVAL, "requests must be between 1 and 2^31, not %lld", (long long)total);
    if ((t->arrival == GP_ARRIVAL_POISSON || t->arrival == GP_ARRIVAL_FIXED_RATE) &&
        !(t->rate > 0 && isfinite(t->rate)))
        return gpi_fail(err, GP_EINVAL,
                        "an open-loop arrival rate must be a positive finite number (use burst for inf)");
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP && (t->users < 1 || t->users > ((int64_t)1 << 24) || t->think_time_s < 0))
        return gpi_fail(err, GP_EINVAL, "a closed loop needs 1 to 2^24 users and a non-negative think time");
    if (t->arrival != GP_ARRIVAL_TRACE) {
        if ((unsigned)t->prompt.dist >= GP_LENGTH_COUNT || (unsigned)t->output.dist >= GP_LENGTH_COUNT ||
            !(t->prompt.mean >= 1 || t->prompt.dist == GP_LENGTH_UNIFORM) ||
            !(t->output.mean >= 1 || t->output.dist == GP_LENGTH_UNIFORM) || !(t->prompt.mean < 1e12) ||
            !(t->output.mean < 1e12) || !(t->prompt.sigma >= 0 && t->prompt.sigma <= 4) ||
            !(t->output.sigma >= 0 && t->output.sigma <= 4))
            return gpi_fail(err, GP_EINVAL,
                            "prompt and output lengths must be at least 1 token (log-normal sigma 0 to 4)");
    }
    *total_out = total;
    return GP_OK;
}

static void sim_free(sim *s)
{
    free(s->waiting.v);
    free(s->running);
    free(s->sched);
    free(s->ttft);
    free(s->tpot);
    free(s->e2e);
    free(s->arrival_of);
    free(s->out_tokens);
    free(s->in_tokens);
    free(s->done);
    free(s->heap);
}

static gp_status sim_alloc(sim *s, gp_error *err)
{
    size_t n = (size_t)s->total, seqs = (size_t)s->sc->max_num_seqs;
    s->running = malloc(seqs * sizeof *s->running);
    s->sched = malloc(seqs * sizeof *s->sched);
    s->ttft = malloc(n * sizeof *s->ttft);
    s->tpot = malloc(n * sizeof *s->tpot);
    s->e2e = malloc(n * sizeof *s->e2e);
    s->arrival_of = malloc(n * sizeof *s->arrival_of);
    s->out_tokens = malloc(n * sizeof *s->out_tokens);
    s->in_tokens = malloc(n * sizeof *s->in_tokens);
    s->done = calloc(n, 1);
    int closed = s->t->arrival == GP_ARRIVAL_CLOSED_LOOP;
    if (closed)
        s->heap = malloc((size_t)s->t->users * sizeof *s->heap);
    if (!s->running || !s->sched || !s->ttft || !s->tpot || !s->e2e || !s->arrival_of || !s->out_tokens ||
        !s->in_tokens || !s->done || (closed && !s->heap))
        return gpi_fail(err, GP_ENOMEM, "out of memory for %lld simulated requests", (long long)s->total);
    return GP_OK;
}

/* Closed-loop users start spread over one think time, or, without think time, over about
 * one request's duration (prefill + output decode steps at the concurrency), so that they
 * do not move in lockstep; `lockstep` keeps the old all-at-t=0 start. */
static double closed_loop_spread(const sim *s)
{
    const gp_traffic *t = s->t;
    if (t->think_time_s > 0)
        return t->think_time_s;
    if (t->lockstep)
        return 0.0;
    gpi_batch_shape b;
    double prompt = t->prompt.dist == GP_LENGTH_UNIFORM ? (t->prompt.min + t->prompt.max) / 2.0 : t->prompt.mean;
    double out = t->output.dist == GP_LENGTH_UNIFORM ? (t->output.min + t->output.max) / 2.0 : t->output.mean;
    double conc = (double)(t->users < s->sc->max_num_seqs ? t->users : s->sc->max_num_seqs);
    gpi_batch_prefill(s->sm, &b, prompt);
    double ttft = gpi_step_time(s->sm, &b, NULL);
    gpi_batch_decode(s->sm, &b, conc, prompt + out / 2.0);
    return ttft * conc / 4.0 + out * gpi_step_time(s->sm, &b, NULL);
}

static void seed_arrivals(sim *s)
{
    const gp_traffic *t = s->t;
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP) {
        double spread = closed_loop_spread(s);
        for (int64_t u = 0; u < t->users && u < s->total; u++)
            heap_push(s->heap, &s->heap_n, (hnode){spread > 0 ? rng_uniform(&s->r) * spread : 0.0, u});
    } else if (t->arrival == GP_ARRIVAL_POISSON) {
        s->next_arrival = rng_exp(&s->r, 1.0 / t->rate);
    } else if (t->arrival == GP_ARRIVAL_TRACE) {
        s->next_arrival = t->trace[0].arrival_s;
    } else {
        s->next_arrival = 0.0;
    }
}

/* Tokens a running sequence asks for: the rest of its prompt, or 1 when decoding (1 + the
 * draft tokens under speculative decoding, never past its output). */
static int64_t wants(const sim *s, req *q)
{
    int64_t want = q->len - q->computed;
    q->draft = 0;
    if (want == 1 && q->generated > 0 && s->sc->spec.draft_tokens > 0) {
        int64_t left = q->output - q->generated - 1;
        q->draft = left < s->sc->spec.draft_tokens ? (left > 0 ? left : 0) : s->sc->spec.draft_tokens;
        want += q->draft;
    }
    return want;
}

/* Schedule the running sequences of this micro-batch, then admit waiting ones. Returns the
 * budget left, -1 on out of memory; *preempted tells whether it preempted. */
static int64_t schedule(sim *s, int *preempted)
{
    const gpi_sched_config *sc = s->sc;
    const int64_t bs = sc->block_size;
    const int group = (int)(s->slot % s->pp);
    int64_t budget = sc->max_num_batched_tokens, i;
    *preempted = 0;
    for (i = 0; i < s->n_running; i++)
        s->sched[i] = 0;
    for (i = 0; i < s->n_running && budget > 0; i++) {
        req *q = &s->running[i];
        if (q->group != group || q->ready > s->now)
            continue;
        int64_t want = wants(s, q);
        if (want > budget) {
            want = budget;
            q->draft = 0;
        }
        /* blocks to add: none while the tokens fit the blocks held (no division per step) */
        int64_t end = q->computed + want;
        int64_t need = end <= q->blocks * bs ? 0 : ceil_div(end, bs) - q->blocks;
        while (need > s->free_blocks && s->n_running > i + 1) {
            if (preempt_last(s))
                return -1;
            *preempted = 1;
        }
        if (need > s->free_blocks) { /* even alone it cannot grow: preempt it too */
            if (preempt_last(s))
                return -1;
            *preempted = 1;
            break;
        }
        if (need > 0) {
            s->free_blocks -= need;
            q->blocks += need;
        }
        s->sched[i] = want;
        budget -= want;
    }
    while (!*preempted && budget > 0 && s->waiting.n > 0 && s->n_running < sc->max_num_seqs) {
        req *q = dq_front(&s->waiting);
        int64_t want = q->len - q->computed;
        if (want > budget)
            want = budget;
        int64_t need = ceil_div(sc->reserve_full ? q->prompt + q->output : q->computed + want, bs) - q->blocks;
        if (need > s->free_blocks)
            break;
        s->free_blocks -= need;
        q->blocks += need;
        q->group = group;
        q->draft = 0;
        s->running[s->n_running] = *q;
        s->sched[s->n_running] = want;
        s->n_running++;
        dq_pop_front(&s->waiting);
        budget -= want;
    }
    return budget;
}

/* GPU time of a step's attention, dense GEMMs and LM head: the work of one attention-DP rank
 * alone (the routed experts and their communication carry every rank's tokens). */
static double rank_s(const gpi_step_model *sm, const gpi_batch_shape *b)
{
    gpi_step_breakdown d;
    gpi_step_time(sm, b, &d);
    return d.linear_s + d.attention_s + d.head_s;
}

/* Attention DP whose ranks schedule their own context chunks (gpi_perf_params.dp_balance 0):
 * the MoE layers of every step synchronise the dp ranks, so a step runs as long as its
 * slowest rank's attention and dense work. The simulated rank stands for each of them: a
 * step in which it runs a context chunk adds that chunk's time (`ctx_s`, measured here); a
 * step in which it runs none waits, with probability 1 - (1 - p)^(dp - 1), for another rank's
 * chunk, p being the share of steps with a chunk so far and its time their mean. */
static double dp_wait_s(sim *s, double ctx_s)
{
    const gpi_step_model *sm = s->sm;
    if (sm->dp <= 1 || sm->params.dp_balance)
        return 0.0;
    if (ctx_s > 0) {
        s->ctx_steps++;
        s->ctx_extra_s += ctx_s;
        return 0.0;
    }
    if (s->ctx_steps <= 0 || s->steps <= 0)
        return 0.0;
    double p = (double)s->ctx_steps / (double)(s->steps + 1);
    p = p < 1.0 ? p : 1.0;
    return (1.0 - pow(1.0 - p, (double)(sm->dp - 1))) * s->ctx_extra_s / (double)s->ctx_steps;
}

/* A decode-only step under CUDA-graph padding (gpi_sched_config.graph_sizes): the GPU runs
 * the captured batch, each dummy row one token attending to itself; the host works on the
 * real sequences only. Returns the step's time and leaves its breakdown in `d`. */
static double graph_padded(const sim *s, const gpi_batch_shape *b, gpi_step_breakdown *d)
{
    double pad = gpi_graph_batch(s->sc, b->tokens) - b->tokens;
    if (!(pad > 0))
        return gpi_step_time(s->sm, b, d);
    gpi_batch_shape pb = *b;
    pb.tokens += pad, pb.sampled += pad, pb.attn_pairs += pad, pb.win_pairs += pad;
    gpi_step_time(s->sm, &pb, d);
    double gpu = d->total_s - d->overhead_s;
    d->overhead_s = gpi_step_host_s(&s->sm->params, gpu, b->sampled, 0.0);
    d->total_s = gpu + d->overhead_s;
    return d->total_s;
}

/* Host time of dispatching one micro-batch's pass kernel by kernel, for a step with a context
 * chunk: TensorRT-LLM and SGLang capture CUDA graphs of decode batches only, so such a step
 * runs eagerly (docs/serving.md, "Eager steps"). Decode steps replay a graph; those above the
 * largest captured size are not charged (the runs checked here capture up to their batch cap). */
static double eager_s(const sim *s, const gpi_batch_shape *b, const gpi_batch_shape *dec)
{
    double per_layer = s->sm->params.eager_layer_s;
    if (!(per_layer > 0) || !(dec->tokens < b->tokens))
        return 0.0;
    return per_layer * s->sm->layers / (double)(s->pp > 1 ? s->pp : 1);
}

/* The step's shape and duration: one micro-batch's pass; with pp stages in flight the
 * engine starts a micro-batch every 1/pp of a full pass (plus the per-step overhead). */
static double step_duration(sim *s, int *spec, double *host_s)
{
    gpi_batch_shape b, dec; /* dec: the decode part alone */
    memset(&b, 0, sizeof b);
    memset(&dec, 0, sizeof dec);
    *spec = 0;
    for (int64_t i = 0; i < s->n_running; i++) {
        const req *q = &s->running[i];
        double c = (double)q->computed, k = (double)s->sched[i];
        if (k <= 0)
            continue;
        int decode = q->computed >= q->prompt;
        gpi_batch_add(s->sm, &b, k, c, !decode);
        int last = q->computed + s->sched[i] >= q->len;
        if (last)
            b.sampled += 1 + (double)q->draft; /* verification samples every draft position */
        *spec |= q->draft > 0;
        if (decode) {
            gpi_batch_add(s->sm, &dec, k, c, 0);
            dec.sampled += last ? 1 + (double)q->draft : 0.0;
        }
    }
    gpi_step_breakdown d;
    double dt = dec.tokens == b.tokens && !*spec ? graph_padded(s, &b, &d) : gpi_step_time(s->sm, &b, &d);
    if (s->sm->dp > 1 && !s->sm->params.dp_balance) {
        double ctx = dec.tokens < b.tokens ? rank_s(s->sm, &b) - rank_s(s->sm, &dec) : 0.0;
        dt += dp_wait_s(s, ctx > 0 ? ctx : (dec.tokens < b.tokens ? 1e-12 : 0.0));
    }
    double eager = eager_s(s, &b, &dec);
    if (eager > 0) {
        double gpu = dt - d.overhead_s;
        d.overhead_s = gpi_step_host_s(&s->sm->params, gpu, b.sampled, eager);
        dt = gpu + d.overhead_s;
    }
    if (*spec)
        dt += (double)s->sc->spec.draft_tokens * s->sc->spec.draft_cost * dt;
    /* a slot of the pipeline: 1/pp of the micro-batch's GPU pass, plus the host's work on
     * that micro-batch (hidden behind the slot's GPU work under an overlap scheduler) */
    *host_s = d.overhead_s;
    if (s->pp > 1) {
        double gpu = (dt - d.overhead_s) / (double)s->pp;
        *host_s = gpi_step_host_s(&s->sm->params, gpu, b.sampled, eager);
        dt = gpu + *host_s;
    }
    return dt;
}

static void finish_request(sim *s, req *q, double at)
{
    int64_t idx = q->index;
    s->done[idx] = 1;
    s->ttft[idx] = q->first_token - q->arrival;
    s->e2e[idx] = at - q->arrival;
    s->tpot[idx] = q->output > 1 ? (s->e2e[idx] - s->ttft[idx]) / (double)(q->output - 1) : 0.0;
    s->free_blocks += q->blocks;
    s->finished++;
    user_done(s, q->user, at);
    if (s->stop_slo && idx >= s->count_lo && idx < s->count_hi) {
        s->miss_ttft += s->stop_slo->ttft_s > 0 && s->ttft[idx] > s->stop_slo->ttft_s;
        s->miss_tpot += s->stop_slo->tpot_s > 0 && q->output > 1 && s->tpot[idx] > s->stop_slo->tpot_s;
        if (s->miss_ttft > s->miss_limit || s->miss_tpot > s->miss_limit)
            s->stop = 1;
    }
}

/* Tokens sampled by a sequence that completed its scheduled tokens: 1, or under
 * speculative decoding 1 + the accepted drafts (each accepted with probability a until the
 * first rejection). */
static int64_t accepted(sim *s, const req *q)
{
    int64_t a = 0;
    while (a < q->draft && rng_uniform(&s->r) < s->sc->spec.acceptance)
        a++;
    return a;
}

static void advance(sim *s, double dt)
{
    /* a token leaves the pipeline after the remaining stages (pp - 1 more slots) */
    double out_at = s->now + (double)(s->pp - 1) * dt;
    int64_t w = 0;
    for (int64_t i = 0; i < s->n_running; i++) {
        req *q = &s->running[i];
        int64_t k = s->sched[i];
        int done = 0;
        if (k > 0 && q->computed + k >= q->len) {
            int64_t a = q->draft > 0 ? accepted(s, q) : 0;
            int64_t gen = 1 + a;
            q->computed = q->len + a;
            q->len += gen;
            q->ready = out_at;
            q->generated += gen;
            if (q->generated == gen)
                q->first_token = out_at;
            if (q->generated >= q->output) {
                finish_request(s, q, out_at);
                done = 1;
            }
        } else {
            q->computed += k;
        }
        q->draft = 0;
        if (!done) {
            if (w != i)
                s->running[w] = *q;
            w++;
        }
    }
    s->n_running = w;
}

/* One scheduler iteration: 0 go on, 1 finished (nothing left), <0 error status. */
static gp_status step_once(sim *s, int *stop, gp_error *err)
{
    *stop = 0;
    if (admit_arrivals(s, s->now))
        return gpi_fail(err, GP_ENOMEM, "out of memory for the waiting queue");
    if (s->n_running == 0 && s->waiting.n == 0) {
        double nx = next_event_time(s);
        if (!isfinite(nx))
            *stop = 1; /* nothing left to arrive */
        else if (nx > s->now)
            s->now = nx;
        return GP_OK;
    }
    int preempted;
    int64_t budget = schedule(s, &preempted);
    if (budget < 0)
        return gpi_fail(err, GP_ENOMEM, "out of memory for the waiting queue");
    if (budget == s->sc->max_num_batched_tokens) {
        /* nothing scheduled: after a preemption retry; another micro-batch may have work;
         * else wait for the next arrival */
        if (preempted) /* a retry is work too */
            return gpi_work_spend(s->work, 1.0, err);
        if (s->pp > 1 && s->n_running > 0) {
            s->slot++;
            if (++s->empty_slots >= s->pp) { /* every micro-batch is still in the pipeline */
                double first = INFINITY;
                for (int64_t i = 0; i < s->n_running; i++)
                    if (s->running[i].ready > s->now && s->running[i].ready < first)
                        first = s->running[i].ready;
                s->empty_slots = 0;
                if (isfinite(first))
                    s->now = first;
            }
            return GP_OK;
        }
        double nx = next_event_time(s);
        if (!isfinite(nx))
            return gpi_fail(err, GP_EINVAL, "the scheduler cannot make progress (KV pool too small for one request)");
        if (nx > s->now)
            s->now = nx;
        return GP_OK;
    }
    int spec;
    double host = 0.0;
    double dt = step_duration(s, &spec, &host);
    s->host_wait += host < dt ? host : dt;
    double used = (double)(s->sc->kv_blocks - s->free_blocks) / (double)s->sc->kv_blocks;
    s->kv_time += used * dt;
    s->run_time += (double)s->n_running * dt;
    s->busy += dt;
    if (used > s->kv_peak)
        s->kv_peak = used;
    s->now += dt;
    s->steps++;
    gp_status wst = gpi_work_spend(s->work, (double)s->n_running + 1.0, err);
    if (wst)
        return wst;
    s->slot++;
    s->empty_slots = 0;
    advance(s, dt);
    return GP_OK;
}

static void count_window(const gp_traffic *t, int64_t total, int64_t *lo, int64_t *hi)
{
    *lo = 0;
    *hi = total;
    if (t->arrival == GP_ARRIVAL_CLOSED_LOOP && total >= 3 * t->users) {
        *lo = t->users;
        *hi = total - t->users;
    }
}

/* Closed loop: each user's first request (the start-up) and the last N issued (the drain)
 * are left out when there are at least 3N requests. */
static void collect(sim *s, const gp_slo *slo, gp_sim_result *out)
{
    const gp_traffic *t = s->t;
    int64_t lo, hi;
    count_window(t, s->total, &lo, &hi);
    int64_t nc = 0, nt = 0, good = 0;
    double first = INFINITY, last = 0, out_tok = 0, in_tok = 0;
    double *tp = s->tpot; /* compact in place: tpot only for outputs > 1 token */
    for (int64_t i = lo; i < hi; i++) {
        if (s->done[i] != 1)
            continue;
        double fin = s->arrival_of[i] + s->e2e[i];
        if (s->arrival_of[i] < first)
            first = s->arrival_of[i];
        if (fin > last)
            last = fin;
        out_tok += (double)s->out_tokens[i];
        in_tok += (double)s->in_tokens[i];
        int ok = (!slo || slo->ttft_s <= 0 || s->ttft[i] <= slo->ttft_s) &&
                 (!slo || slo->tpot_s <= 0 || s->tpot[i] <= slo->tpot_s);
        good += ok;
        s->ttft[nc] = s->ttft[i];
        s->e2e[nc] = s->e2e[i];
        if (s->out_tokens[i] > 1)
            tp[nt++] = s->tpot[i];
        nc++;
    }
    out->requests = nc;
    out->rejected = s->rejected;
    out->duration_s = nc ? last - first : 0.0;
    stats(s->ttft, nc, &out->ttft);
    stats(tp, nt, &out->tpot);
    stats(s->e2e, nc, &out->e2e);
    if (out->duration_s > 0) {
        out->requests_per_s = (double)nc / out->duration_s;
        out->output_tokens_per_s = out_tok / out->duration_s;
        out->total_tokens_per_s = (out_tok + in_tok) / out->duration_s;
        out->goodput_requests_per_s = (double)good / out->duration_s;
    }
    out->slo_attainment = nc ? (double)good / (double)nc : 0.0;
    out->kv_utilization_mean = s->busy > 0 ? s->kv_time / s->busy : 0.0;
    out->kv_utilization_peak = s->kv_peak;
    out->mean_running = s->busy > 0 ? s->run_time / s->busy : 0.0;
    out->host_wait_share = s->busy > 0 ? s->host_wait / s->busy : 0.0;
    out->preemptions = s->preemptions;
    out->steps = s->steps;
}

static gp_status simulate(const gpi_step_model *sm, const gpi_sched_config *sc, const gp_traffic *t, const gp_slo *slo,
                          int stop_on_miss, gp_sim_result *out, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    memset(out, 0, sizeof *out);
    if (!sm || !sc || !t)
        return gpi_fail(err, GP_EINVAL, "simulate: step model, scheduler and traffic are required");
    int64_t total = 0;
    gp_status st = check_traffic(sc, t, &total, err);
    if (!st)
        st = sim_check_limits(sc, t, total, err);
    if (st)
        return st;
    gp_work local_work;
    gp_work *work = t->work;
    if (!work) { /* a call of its own: the default budget, counted here */
        gpi_work_init(&local_work, 0);
        work = &local_work;
    }
    if ((st = sim_reserve(sc, t, total, work, err)))
        return st;
    sim s;
    memset(&s, 0, sizeof s);
    s.sm = sm;
    s.sc = sc;
    s.t = t;
    s.work = work;
    s.total = total;
    s.free_blocks = sc->kv_blocks;
    s.pp = sm->pp > 1 ? sm->pp : 1;
    rng_seed(&s.r, t->seed);
    if ((st = sim_alloc(&s, err))) {
        sim_free(&s);
        return st;
    }
    if (stop_on_miss && slo && (slo->ttft_s > 0 || slo->tpot_s > 0)) {
        s.stop_slo = slo;
        count_window(t, total, &s.count_lo, &s.count_hi);
        /* more than 1% of the samples above the target, with a margin of one rank for the
         * interpolation, puts the p99 above it */
        s.miss_limit = (int64_t)floor(0.01 * (double)(s.count_hi - s.count_lo)) + 1;
    }
    seed_arrivals(&s);
    s.now = next_event_time(&s);
    if (!(s.now >= 0))
        s.now = 0;
    int stop = 0;
    for (uint64_t polls = 0; !st && !stop && !s.stop && s.finished + s.rejected < total; polls++) {
        if (t->cancel && (polls & 1023) == 0 && t->cancel(t->cancel_arg))
            st = gpi_fail(err, GP_ELIMIT,
                          "the simulation was stopped: past the request's deadline or the server is stopping");
        else
            st = step_once(&s, &stop, err);
    }
    if (!st)
        collect(&s, slo, out);
    out->stopped_early = s.stop;
    sim_free(&s);
    return st;
}

gp_status gpi_simulate(const gpi_step_model *sm, const gpi_sched_config *sc, const gp_traffic *t, const gp_slo *slo,
                       gp_sim_result *out, gp_error *err)
{
    return simulate(sm, sc, t, slo, 0, out, err);
}

gp_status gpi_simulate_until_miss(const gpi_step_model *sm, const gpi_sched_config *sc, const gp_traffic *t,
                                  const gp_slo *slo, gp_sim_result *out, gp_error *err)
{
    return simulate(sm, sc, t, slo, 1, out, err);
}

/* ---- traces ------------------------------------------------------------------------------ */

void gpi_trace_free(gp_trace_request *t)
{
    free(t);
}

static int parse_csv_line(char *line, gp_trace_request *r)
{
    char *end;
    double a = strtod(line, &end);
    if (end == line || *end != ',')
        return -1;
    char *p = end + 1;
    long long pr = strtoll(p, &end, 10);
    if (end == p || *end != ',')
        return -1;
    p = end + 1;
    long long o = strtoll(p, &end, 10);
    if (end == p)
        return -1;
    while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
        end++;
    if (*end && *end != ',')
        return -1;
    r->arrival_s = a;
    r->prompt_tokens = pr;
    r->output_tokens = o;
    return 0;
}

/* A token count from a JSON number: out of [1, 2^32] (or not whole) becomes -1 (refused). */
static int64_t trace_tokens(double v)
{
    int64_t n;
    if (v != floor(v) || !gpi_i64_from_double(v, 1, GPI_MAX_TOKENS, &n))
        return -1;
    return n;
}

static double json_num_any(json_t *o, const char *const *keys, int *found)
{
    for (int i = 0; keys[i]; i++) {
        json_t *v = json_object_get(o, keys[i]);
        if (json_is_number(v)) {
            *found = 1;
            return json_number_value(v);
        }
    }
    *found = 0;
    return 0;
}

static gp_status trace_fail(gp_error *err, gp_status code, const char *path, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;
static gp_status trace_fail(gp_error *err, gp_status code, const char *path, int line, const char *fmt, ...)
{
    gpi_error_set_path(err, path);
    if (!err)
        return code;
    err->line = line;
    char msg[GP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gpi_fail(err, code, "%s:%d: %s", path, line, msg);
}

/* One non-blank line p of a trace (a JSON object or CSV) into *r, checked; *skip: a CSV
 * header (the first line, starting with a letter). prev_arrival < 0: the first request. */
static gp_status trace_line(const char *path, int line, char *p, double prev_arrival, gp_trace_request *r, int *skip,
                            gp_error *err)
{
    static const char *const k_arr[] = {"arrival_s", "arrival_time", "timestamp", "arrival", NULL};
    static const char *const k_in[] = {"prompt_tokens", "input_tokens", "input_length", "prompt_len", NULL};
    static const char *const k_out[] = {"output_tokens", "output_length", "output_len", NULL};
    *skip = 0;
    if (*p == '{') {
        json_error_t je;
        json_t *o = json_loads(p, 0, &je);
        int fa, fi, fo;
        if (o) {
            r->arrival_s = json_num_any(o, k_arr, &fa);
            /* tokens read as double and range-checked before the cast (a cast of 1e19
             * to int64 is undefined) */
            r->prompt_tokens = trace_tokens(json_num_any(o, k_in, &fi));
            r->output_tokens = trace_tokens(json_num_any(o, k_out, &fo));
            json_decref(o);
        }
        if (!o || !fa || !fi || !fo)
            return trace_fail(err, GP_EPARSE, path, line,
                              "a trace line needs arrival_s, prompt_tokens and output_tokens%s%s", o ? "" : ": ",
                              o ? "" : je.text);
    } else if (parse_csv_line(p, r)) {
        if (prev_arrival < 0 && line == 1 && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
            *skip = 1; /* a CSV header */
            return GP_OK;
        }
        return trace_fail(err, GP_EPARSE, path, line, "expected 'arrival_s,prompt_tokens,output_tokens'");
    }
    if (!(r->arrival_s >= 0 && r->arrival_s <= 1e12) || !tokens_ok(r->prompt_tokens, 1) ||
        !tokens_ok(r->output_tokens, 1) || (prev_arrival >= 0 && r->arrival_s < prev_arrival))
        return trace_fail(err, GP_EINVAL, path, line,
                          "arrival must be 0 to 1e12 s and not decrease; token counts 1 to 2^32 (4,294,967,296)");
    return GP_OK;
}

gp_status gpi_trace_read(const char *path, gp_trace_request **out, size_t *n, gp_error *err)
{
    gp_error_clear(err); /* no stale offset or field from an earlier call */
    *out = NULL;
    *n = 0;
    uint8_t *buf;
    size_t len;
    uint64_t fsz;
    gp_status st = gpi_read_file_prefix(path, 1u << 30, &buf, &len, &fsz, err);
    if (st)
        return st;
    if (fsz > len) {
        free(buf);
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_ELIMIT, "trace %s is larger than 1 GiB", path);
    }
    size_t cap = 1024, cnt = 0;
    gp_trace_request *v = malloc(cap * sizeof *v);
    if (!v) {
        free(buf);
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", path);
    }
    char *s = (char *)buf;
    int line = 0;
    while (*s && st == GP_OK) {
        char *e = strchr(s, '\n');
        if (e)
            *e = '\0';
        line++;
        char *p = s;
        while (*p == ' ' || *p == '\t' || *p == '\r')
            p++;
        s = e ? e + 1 : s + strlen(s);
        if (!*p || *p == '#')
            continue;
        gp_trace_request r;
        int skip;
        st = trace_line(path, line, p, cnt ? v[cnt - 1].arrival_s : -1.0, &r, &skip, err);
        if (st || skip)
            continue;
        if (cnt == cap) {
            gp_trace_request *nv = realloc(v, 2 * cap * sizeof *v);
            if (!nv) {
                st = gpi_fail(err, GP_ENOMEM, "out of memory reading %s", path);
                continue;
            }
            v = nv;
            cap *= 2;
        }
        v[cnt++] = r;
    }
    free(buf);
    if (st == GP_OK && cnt == 0) {
        gpi_error_set_path(err, path);
        st = gpi_fail(err, GP_EPARSE, "trace %s has no requests", path);
    }
    if (st) {
        free(v);
        return st;
    }
    *out = v;
    *n = cnt;
    return GP_OK;
}
