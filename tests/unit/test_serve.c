/*
 * test_serve.c: step latency, the serving simulator and the capacity search. Expected values
 * are worked out by hand in the comments (a tiny model on a made-up GPU with round peak
 * figures and efficiencies of 1), or are invariants that hold for any correct simulator
 * (one request alone, Little's law, preemption under a tiny KV pool, determinism).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "internal.h"

/* tiny model (tests/unit/test_model.c): 2 layers, d 16, 4 heads of 4, 2 KV heads, ffn 32,
 * vocab 100, untied. Linear parameters 4,608 (attention 2 x 768, MLP 2 x 1,536); head
 * 1,600; KV 2 layers x 2 heads x 4 x (k, v) x 2 B = 64 B per token. */
static void tiny(gp_model *m)
{
    static const char cfg[] =
        "{\"model_type\": \"llama\", \"vocab_size\": 100, \"hidden_size\": 16,\n"
        " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
        " \"intermediate_size\": 32, \"tie_word_embeddings\": false, \"max_position_embeddings\": 4096}";
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "tiny", m, NULL), GP_OK);
}

/* a GPU with 1 TFLOP/s (bf16), 1 GB/s of HBM and 1 GB/s per direction of NVLink */
static void round_gpu(gp_gpu *g)
{
    memset(g, 0, sizeof *g);
    snprintf(g->id, sizeof g->id, "ROUND");
    g->memory_bytes = 1000000000ULL;
    g->hbm_bandwidth_gbps = 1.0;
    g->tflops[GP_DTYPE_BF16] = 1.0;
    g->scale_up_gbps_bidir = 2.0;
    g->scale_up_domain = 8;
}

static const gpi_perf_params ideal = {.compute_efficiency = 1.0, .bandwidth_efficiency = 1.0, .expert_imbalance = 1.0};

/* The step model of `m` on the round GPU at `hbm_gbps`, BF16, TP `tp`, ideal efficiencies. */
static void step_model_of(const gp_model *m, gpi_step_model *sm, int tp, double hbm_gbps)
{
    gp_gpu g;
    round_gpu(&g);
    g.hbm_bandwidth_gbps = hbm_gbps;
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.dtype = GP_DTYPE_BF16;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = tp;
    assert_int_equal(gpi_step_model_init(m, &g, NULL, &w, &l, &ideal, sm, NULL), GP_OK);
}

static void step_model(gpi_step_model *sm, int tp, double hbm_gbps)
{
    gp_model m;
    tiny(&m);
    step_model_of(&m, sm, tp, hbm_gbps);
}

/*
 * Decode, batch 1, context 10, by hand:
 *   linear: 4,608 params x 2 B = 9,216 B / 1 GB/s = 9.216 us (FLOPs 9,216 / 1 TFLOP/s: 9.2 ns)
 *   attention: pairs 11 x 2 x 4 heads x (4 + 4) x 2 layers = 1,408 FLOPs (1.4 ns);
 *              KV (10 read + 1 written) x 64 B = 704 B: 0.704 us
 *   head: 100 x 16 x 2 B = 3,200 B: 3.2 us
 *   total 13.12 us.
 */
static void test_decode_by_hand(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_batch_shape b;
    gpi_batch_decode(NULL, &b, 1, 10);
    gpi_step_breakdown d;
    double t = gpi_step_time(&sm, &b, &d);
    assert_float_equal(d.linear_s, 9.216e-6, 1e-12);
    assert_float_equal(d.attention_s, 0.704e-6, 1e-12);
    assert_float_equal(d.head_s, 3.2e-6, 1e-12);
    assert_float_equal(t, 13.12e-6, 1e-12);
    assert_false(d.compute_bound);
}

/*
 * Prefill of 1,000 tokens with unlimited bandwidth (10^6 GB/s): compute-bound.
 *   linear: 1,000 x 9,216 FLOPs = 9.216 MFLOP: 9.216 us
 *   attention: 1,000 x 1,001 / 2 = 500,500 pairs x 128 FLOPs = 64.064 MFLOP: 64.064 us
 *   head: one sampled row, 3,200 FLOPs: 3.2 ns
 *   total 73.2832 us.
 */

/*
 * Host work (docs/serving.md, "Host work"), on the decode of test_decode_by_hand with 1 us per
 * step and 10 us per sequence. Batch 4, context 10: linear 9.216 us (weights), attention
 * (40 + 4) x 64 B = 2.816 us, head 3.2 us: GPU 15.232 us; host 4 x 10 = 40 us.
 *   serial:  15.232 + 1 + 40 = 56.232 us;
 *   overlap: the host's 40 us hide 15.232 of GPU work: 15.232 + 1 + (40 - 15.232) = 41 us.
 * Batch 1: GPU 13.12 us, host 10 us: overlapped, the host hides entirely: 13.12 + 1 us.
 */
static void test_host_work_by_hand(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    sm.params.step_overhead_s = 1e-6;
    sm.params.seq_overhead_s = 10e-6;
    gpi_batch_shape b;
    gpi_batch_decode(NULL, &b, 4, 10);
    gpi_step_breakdown d;
    assert_float_equal(gpi_step_time(&sm, &b, &d), 56.232e-6, 1e-12);
    assert_float_equal(d.overhead_s, 41e-6, 1e-12);
    sm.params.host_overlap = 1;
    assert_float_equal(gpi_step_time(&sm, &b, &d), 41e-6, 1e-12);
    assert_float_equal(d.overhead_s, 41e-6 - 15.232e-6, 1e-12);
    gpi_batch_decode(NULL, &b, 1, 10);
    assert_float_equal(gpi_step_time(&sm, &b, NULL), 14.12e-6, 1e-12);
    /* the helper the simulator's pipeline slots use: host beyond a 3 us slot of GPU work */
    assert_float_equal(gpi_step_host_s(&sm.params, 3e-6, 4, 0.0), 1e-6 + 37e-6, 1e-15);
    sm.params.host_overlap = 0;
    assert_float_equal(gpi_step_host_s(&sm.params, 3e-6, 4, 0.0), 1e-6 + 40e-6, 1e-15);
}

/*
 * Sliding window (docs/serving.md, "Sliding window"): the tiny model with a window of 4 keys
 * on one of its 2 layers (share 1/2).
 *   gpi_batch_add, 3 decode tokens after 2 cached: full layer 3 + 4 + 5 = 12 pairs, 2 read;
 *   sliding layer min(p, 4) over positions 3, 4, 5 = 3 + 4 + 4 = 11 pairs, min(2, 4) = 2 read.
 *   The same as a context chunk: the window is not applied, 12 pairs on both.
 *   Decode, batch 1, context 10: full 11 pairs / 10 read, sliding 4 / 4: averaged 7.5 pairs
 *   (960 FLOPs, 1 ns) and 7 read: KV (7 + 1 written) x 64 B = 512 B: 0.512 us; with linear
 *   9.216 and head 3.2 us (test_decode_by_hand), 12.928 us.
 */
static void test_sliding_window_by_hand(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m);
    m.sliding_window = 4;
    m.sliding_layers = 1;
    gpi_step_model sm;
    step_model_of(&m, &sm, 1, 1.0);
    gpi_batch_shape b;
    memset(&b, 0, sizeof b);
    gpi_batch_add(&sm, &b, 3, 2, 0);
    assert_float_equal(b.attn_pairs, 12, 1e-12);
    assert_float_equal(b.win_pairs, 11, 1e-12);
    assert_float_equal(b.win_kv_tokens, 2, 1e-12);
    memset(&b, 0, sizeof b);
    gpi_batch_add(&sm, &b, 3, 2, 1);
    assert_float_equal(b.win_pairs, 12, 1e-12);
    gpi_batch_decode(&sm, &b, 1, 10);
    gpi_step_breakdown d;
    assert_float_equal(gpi_step_time(&sm, &b, &d), 12.928e-6, 1e-12);
    assert_float_equal(d.attention_s, 0.512e-6, 1e-12);
}

static void test_prefill_by_hand(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1e6);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 1000);
    gpi_step_breakdown d;
    double t = gpi_step_time(&sm, &b, &d);
    assert_float_equal(d.linear_s, 9.216e-6, 1e-12);
    assert_float_equal(d.attention_s, 64.064e-6, 1e-12);
    assert_float_equal(t, 73.2832e-6, 1e-11);
    assert_true(d.compute_bound);
}

/*
 * TP 2: every weight phase halves (4.608 + 1.6 us), KV heads 2 -> 1 per GPU (0.352 us),
 * and 2 layers x 2 all-reduces of one token's 16 x 2 B = 32 B, ring 2 (t-1)/t = 1 x 32 B
 * over 1 GB/s = 32 ns each: 128 ns. Total 4.608 + 0.352 + 1.6 + 0.128 = 6.688 us.
 */
static void test_tp_allreduce_by_hand(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 2, 1.0);
    gpi_batch_shape b;
    gpi_batch_decode(NULL, &b, 1, 10);
    gpi_step_breakdown d;
    double t = gpi_step_time(&sm, &b, &d);
    assert_float_equal(d.comm_s, 128e-9, 1e-15);
    assert_float_equal(t, 6.688e-6, 1e-12);
}

/* A scheduler with room for everything. */
static void roomy(gpi_sched_config *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->max_num_seqs = 256;
    sc->max_num_batched_tokens = 8192;
    sc->kv_blocks = 100000;
    sc->block_size = 16;
}

static void fixed_traffic(gp_traffic *t, gp_arrival_kind k, int64_t requests, double prompt, double output)
{
    memset(t, 0, sizeof *t);
    t->arrival = k;
    t->requests = requests;
    t->prompt.mean = prompt;
    t->output.mean = output;
    t->seed = 7;
}

/* One request alone: TTFT is the prefill step; TPOT the mean of its decode steps, which is
 * the decode step at the mean context (step time is linear in context when bandwidth-bound):
 * contexts 100..103 for 5 output tokens -> 101.5. */
static void test_one_request_alone(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc;
    roomy(&sc);
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 100, 5);
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_int_equal(r.requests, 1);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 100);
    double prefill = gpi_step_time(&sm, &b, NULL);
    gpi_batch_decode(NULL, &b, 1, 101.5);
    double decode = gpi_step_time(&sm, &b, NULL);
    assert_float_equal(r.ttft.p50, prefill, 1e-15);
    assert_float_equal(r.tpot.p50, decode, 1e-15);
    assert_float_equal(r.e2e.p50, prefill + 4 * decode, 1e-14);
    assert_int_equal(r.steps, 5);
    assert_int_equal(r.preemptions, 0);
}

/*
 * CUDA-graph padding (docs/serving.md, "Simulator rules"): one request alone with the captured
 * sizes {4}: its decode steps run 4 rows, 3 of them dummies of one token each. Beside the
 * unpadded decode (test_one_request_alone) the weights, head and compute barely move (memory-
 * bound at 1 GB/s); each dummy writes one token's KV, 64 B: + 3 x 64 B = 0.192 us per step.
 * The host works on the real sequence only: with 10 us per sequence (serial), + 10 us, not 40.
 * The prefill step (a context chunk) is not padded.
 */
static void test_graph_padding_by_hand(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc;
    roomy(&sc);
    sc.graph_sizes[0] = 4;
    sc.n_graph_sizes = 1;
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 100, 5);
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 100);
    double prefill = gpi_step_time(&sm, &b, NULL);
    gpi_batch_decode(NULL, &b, 1, 101.5);
    double decode = gpi_step_time(&sm, &b, NULL);
    assert_float_equal(r.ttft.p50, prefill, 1e-15);
    assert_float_equal(r.tpot.p50, decode + 0.192e-6, 1e-12);
    sm.params.seq_overhead_s = 10e-6;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_float_equal(r.tpot.p50, decode + 0.192e-6 + 10e-6, 1e-12);
    /* a batch above the largest captured size runs as it is */
    assert_float_equal(gpi_graph_batch(&sc, 5), 5, 1e-15);
    assert_float_equal(gpi_graph_batch(&sc, 3), 4, 1e-15);
}

/*
 * Eager steps (docs/serving.md, "Eager steps"): kernel dispatch overlaps the GPU in either
 * loop; under the overlap scheduler it shares the host with the per-sequence work.
 * Step overhead 1 us, 10 us per sequence, 4 sequences (40 us), GPU 50 us:
 *   overlap, dispatch 30 us: 40 + 30 = 70 > 50: 1 + 20 = 21 us; dispatch 5 us: 45 < 50: 1 us;
 *   serial, dispatch 30 us: 40 + max(30 - 50, 0) = 40: 41 us; dispatch 80 us: 40 + 30: 71 us.
 * In the simulator, one request alone, 2 layers at 1 ms each, serial: its prefill step (a
 * context chunk) takes max(GPU, 2 ms) = 2 ms (the tiny model's prefill is microseconds); its
 * decode steps replay a graph and are not charged.
 */
static void test_eager_dispatch_by_hand(void **state)
{
    (void)state;
    gpi_perf_params p = {.step_overhead_s = 1e-6, .seq_overhead_s = 10e-6, .host_overlap = 1};
    assert_float_equal(gpi_step_host_s(&p, 50e-6, 4, 30e-6), 21e-6, 1e-15);
    assert_float_equal(gpi_step_host_s(&p, 50e-6, 4, 5e-6), 1e-6, 1e-15);
    p.host_overlap = 0;
    assert_float_equal(gpi_step_host_s(&p, 50e-6, 4, 30e-6), 41e-6, 1e-15);
    assert_float_equal(gpi_step_host_s(&p, 50e-6, 4, 80e-6), 71e-6, 1e-15);

    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    sm.layers = 2;
    sm.params.eager_layer_s = 1e-3;
    gpi_sched_config sc;
    roomy(&sc);
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 100, 5);
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 100);
    assert_true(gpi_step_time(&sm, &b, NULL) < 1e-3);
    gpi_batch_decode(NULL, &b, 1, 101.5);
    double decode = gpi_step_time(&sm, &b, NULL);
    assert_float_equal(r.ttft.p50, 2e-3, 1e-15);
    assert_float_equal(r.tpot.p50, decode, 1e-15);
}

/*
 * The share of the time the GPU waits on the host (gp_sim_result.host_wait_share): one request
 * alone, 1 ms of per-step overhead, serial host: five steps (its prefill and four decodes) each
 * wait 1 ms, so 5 ms of prefill + 4 x decode (at the mean context 101.5) + 5 ms.
 */
static void test_host_wait_share_by_hand(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc;
    roomy(&sc);
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 100, 5);
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_float_equal(r.host_wait_share, 0.0, 1e-15); /* no host work: the GPU never waits */
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 100);
    double prefill = gpi_step_time(&sm, &b, NULL);
    gpi_batch_decode(NULL, &b, 1, 101.5);
    double decode = gpi_step_time(&sm, &b, NULL);
    sm.params.step_overhead_s = 1e-3;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_float_equal(r.host_wait_share, 5e-3 / (prefill + 4 * decode + 5e-3), 1e-12);
}

/* Little's law on a closed loop: N users = throughput x (response time + think time). */
static void test_littles_law(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    sm.params.step_overhead_s = 1e-3; /* steps of ~1 ms */
    gpi_sched_config sc;
    roomy(&sc);
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_CLOSED_LOOP, 20000, 50, 20);
    t.users = 16;
    t.think_time_s = 0.05;
    t.prompt.dist = t.output.dist = GP_LENGTH_EXPONENTIAL;
    t.prompt.max = 400;
    t.output.max = 100;
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    double n = r.requests_per_s * (r.e2e.mean + t.think_time_s);
    assert_true(fabs(n - 16.0) / 16.0 < 0.03);
}

/* KV for 10 blocks of 16 tokens: four 30 + 30 requests need 4 blocks each at the end, 16 in
 * all, so the scheduler must preempt; every request still completes. */
static void test_preemption_when_kv_tiny(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc;
    roomy(&sc);
    sc.kv_blocks = 10;
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 4, 30, 30);
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_int_equal(r.requests, 4);
    assert_true(r.preemptions > 0);
    assert_true(r.kv_utilization_peak <= 1.0);
    /* with reserve_full (TensorRT-LLM's policy) nothing is ever preempted */
    sc.reserve_full = 1;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_int_equal(r.requests, 4);
    assert_int_equal(r.preemptions, 0);
    /* a request larger than the whole pool is rejected, not simulated forever */
    fixed_traffic(&t, GP_ARRIVAL_BURST, 2, 200, 10);
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_int_equal(r.rejected, 2);
}

/* Same seed, same answer; another seed, another Poisson sample. */
static void test_deterministic(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    sm.params.step_overhead_s = 1e-3;
    gpi_sched_config sc;
    roomy(&sc);
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_POISSON, 3000, 40, 10);
    t.rate = 200;
    gp_sim_result a, b;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &a, NULL), GP_OK);
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &b, NULL), GP_OK);
    assert_memory_equal(&a, &b, sizeof a);
    t.seed = 8;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &b, NULL), GP_OK);
    assert_true(a.ttft.p99 != b.ttft.p99);
    /* an open loop below capacity carries its rate: 200 requests/s within 5% */
    assert_true(fabs(a.requests_per_s - 200.0) / 200.0 < 0.05);
}

static void test_trace_and_errors(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc;
    roomy(&sc);
    gp_trace_request tr[3] = {{0.0, 10, 3}, {0.5, 20, 4}, {0.25, 5, 2}};
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_TRACE;
    t.trace = tr;
    t.trace_len = 3;
    gp_sim_result r;
    gp_error err;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_EINVAL); /* not sorted */
    tr[2].arrival_s = 1.0;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_OK);
    assert_int_equal(r.requests, 3);
    /* the requests are far apart: each runs alone, TTFT = its prefill step */
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 10);
    double p10 = gpi_step_time(&sm, &b, NULL);
    assert_true(r.ttft.max >= p10);
    sc.kv_blocks = 0;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, &err), GP_EINVAL);
}

/* Twice the users need more replicas (Llama-3.1-8B on H100, TP1 fixed). */
static void test_capacity_more_users_more_replicas(void **state)
{
    (void)state;
    gp_catalog *cat;
    assert_int_equal(gp_catalog_open(NULL, &cat, NULL), GP_OK);
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-8b", &m, NULL), GP_OK);
    const gp_gpu *h100;
    assert_int_equal(gp_catalog_find_gpu(cat, "H100-SXM-80GB", &h100, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.engine = GP_ENGINE_VLLM;
    gpi_capacity_request rq;
    memset(&rq, 0, sizeof rq);
    rq.model = &m;
    rq.w = &w;
    fixed_traffic(&rq.traffic, GP_ARRIVAL_CLOSED_LOOP, 0, 1000, 100);
    rq.traffic.users = 64;
    rq.slo.ttft_s = 0.5;
    rq.slo.tpot_s = 0.02;
    const gp_gpu *one[1] = {h100};
    rq.gpus = one;
    rq.n_gpus = 1;
    rq.fixed_tp = 1;
    static gp_capacity_result a, b;
    assert_int_equal(gpi_capacity_search(cat, &rq, &a, NULL), GP_OK);
    rq.traffic.users = 128;
    assert_int_equal(gpi_capacity_search(cat, &rq, &b, NULL), GP_OK);
    assert_true(a.found && b.found);
    assert_true(b.best.replicas > a.best.replicas);
    assert_true(b.best.sim.ttft.p99 <= 0.5 && b.best.sim.tpot.p99 <= 0.02);
    /* n+1 adds exactly one replica to the same serving count */
    rq.redundancy = 1;
    assert_int_equal(gpi_capacity_search(cat, &rq, &a, NULL), GP_OK);
    assert_int_equal(a.best.replicas, b.best.replicas + 1);
    int has_red = 0;
    for (int i = 0; i < a.n_reasons; i++)
        has_red |= a.reasons[i].code == GP_SERVE_REDUNDANCY;
    assert_true(has_red);
    gp_catalog_free(cat);
}

/* tiny MoE: the tiny model's shape with 16 routed experts of ffn 32, top-2 (Mixtral-style) */
static void tiny_moe(gp_model *m)
{
    static const char cfg[] = "{\"model_type\": \"mixtral\", \"vocab_size\": 100, \"hidden_size\": 16,\n"
                              " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
                              " \"intermediate_size\": 32, \"num_local_experts\": 16, \"num_experts_per_tok\": 2,\n"
                              " \"tie_word_embeddings\": false, \"max_position_embeddings\": 4096}";
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "tiny-moe", m, NULL), GP_OK);
}

static gp_status moe_model(gpi_step_model *sm, int tp, int dp, int ep)
{
    gp_model m;
    tiny_moe(&m);
    gp_gpu g;
    round_gpu(&g);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.dtype = GP_DTYPE_BF16;
    gp_layout l;
    gpi_layout_defaults(&l);
    l.tp = tp;
    l.dp = dp;
    l.ep = ep;
    return gpi_step_model_init_nodes(&m, &g, NULL, NULL, &w, &l, &ideal, sm, NULL);
}

/* Attention DP x EP: 16 GPUs over nodes of 8 (round_gpu's scale-up domain): each GPU's
 * exchange reaches 15 others, 7 of them in its node: intra share 7/15; 2 nodes. The MoE
 * layers see dp = 16 ranks' tokens. Over nodes the exchange is an all-to-all that sends a token
 * once to each other GPU holding one of its k = 2 experts: 16 experts, one per GPU, a GPU holds
 * neither with probability (15 / 16) x (14 / 15) = 0.875, so 15 x 0.125 = 1.875 copies, each
 * d(16) x (2 + 2) B (16-bit dispatch and combine), x 2 MoE layers = 240 B.
 * Inside one node (tp 2, dp 4, ep 8) attention DP all-gathers the ranks' tokens and
 * reduce-scatters the outputs: (8 - 1) x d(16) x (2 + 2) B / tp 2 x 2 MoE layers = 448 B.
 * EP inside TP (tp 8, ep 8, no DP): an all-to-all that sends a token once to each other GPU
 * holding one of its k = 2 experts; 16 experts, 2 per GPU: a GPU holds neither with
 * probability (14 x 13) / (16 x 15) = 0.758333, so 7 x 0.241667 = 1.691667 copies, each
 * d(16) x (2 + 2) B, split over tp 8, x 2 MoE layers = 27.06667 B. */
static void test_attention_dp_ep(void **state)
{
    (void)state;
    gpi_step_model sm;
    assert_int_equal(moe_model(&sm, 1, 16, 16), GP_OK);
    assert_int_equal(sm.nodes, 2);
    assert_true(fabs(sm.a2a_intra_share - 7.0 / 15.0) < 1e-12);
    assert_true(fabs(sm.expert_token_scale - 16.0) < 1e-12);
    assert_true(fabs(sm.a2a_bytes_per_token - 240.0) < 1e-9);
    assert_int_equal(sm.moe_allgather, 0);
    assert_true(fabs(sm.expert_shards - 16.0) < 1e-12);
    assert_int_equal(moe_model(&sm, 8, 1, 8), GP_OK);
    assert_int_equal(sm.moe_allgather, 0);
    assert_true(fabs(sm.a2a_bytes_per_token - 7.0 * (1.0 - 182.0 / 240.0) * 16.0 * 4.0 / 8.0 * 2.0) < 1e-9);
    assert_true(fabs(sm.a2a_bytes_per_token - 27.06667) < 1e-4);
    /* inside one node: no share crosses the network */
    assert_int_equal(moe_model(&sm, 2, 4, 8), GP_OK);
    assert_int_equal(sm.nodes, 1);
    assert_true(fabs(sm.a2a_intra_share - 1.0) < 1e-12);
    assert_int_equal(sm.moe_allgather, 1);
    assert_true(fabs(sm.a2a_bytes_per_token - 448.0) < 1e-9);
    /* attention DP needs ep = tp x dp, and a MoE model */
    gp_error err;
    assert_int_equal(moe_model(&sm, 2, 4, 4), GP_EINVAL);
    gp_model m;
    tiny(&m);
    gp_gpu g;
    round_gpu(&g);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    gp_layout l;
    gpi_layout_defaults(&l);
    l.dp = 2;
    l.ep = 2;
    assert_int_equal(gpi_step_model_init_nodes(&m, &g, NULL, NULL, &w, &l, &ideal, &sm, &err), GP_EINVAL);
}

/* Attention-DP ranks wait for each other's prefill (docs/serving.md, section 5): one request
 * of 100 prompt and 3 output tokens on one of dp = 4 unbalanced ranks. Step 1 runs its
 * prefill (a context step: it waits for nobody, so TTFT is unchanged) and records that chunk's
 * attention + dense + LM-head time c (its decode part is empty). Steps 2 and 3 run decode only:
 * the share of steps with a chunk is then 1/2 and 1/3 (the current step counted), so they wait
 * (1 - (1/2)^3) c = 7/8 c and (1 - (2/3)^3) c = 19/27 c for another rank's. Balanced ranks
 * (gpi_perf_params.dp_balance) wait for none. */
static void test_dp_ranks_wait(void **state)
{
    (void)state;
    gpi_step_model sm;
    assert_int_equal(moe_model(&sm, 1, 4, 4), GP_OK);
    gpi_sched_config sc;
    roomy(&sc);
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 100, 3);
    gp_sim_result unbalanced, balanced;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &unbalanced, NULL), GP_OK);
    sm.params.dp_balance = 1;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &balanced, NULL), GP_OK);
    gpi_batch_shape b;
    gpi_batch_prefill(NULL, &b, 100);
    gpi_step_breakdown d;
    gpi_step_time(&sm, &b, &d);
    double c = d.linear_s + d.attention_s + d.head_s;
    assert_true(c > 0);
    assert_true(fabs(unbalanced.ttft.p50 - balanced.ttft.p50) <= 1e-15);
    assert_true(fabs(unbalanced.e2e.p50 - balanced.e2e.p50 - (7.0 / 8.0 + 19.0 / 27.0) * c) <= 1e-9 * c);
}

/* Default lengths: log-normal around the mean, clipped at 4x; the spread shows in the
 * percentiles (p99 above p50) where fixed lengths in a lockstep loop have none. */
static void test_lognormal_spread(void **state)
{
    (void)state;
    gp_length_spec ls;
    gpi_length_default(&ls, 500);
    assert_int_equal(ls.dist, GP_LENGTH_LOGNORMAL);
    assert_true(fabs(ls.sigma - GPI_LOGNORMAL_SIGMA) < 1e-12);
    assert_int_equal(ls.max, 2000);
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc = {.max_num_seqs = 64, .max_num_batched_tokens = 4096, .kv_blocks = 100000, .block_size = 16};
    gp_traffic t;
    memset(&t, 0, sizeof t);
    t.arrival = GP_ARRIVAL_CLOSED_LOOP;
    t.users = 8;
    t.requests = 400;
    t.seed = 3;
    gpi_length_default(&t.prompt, 50);
    gpi_length_default(&t.output, 20);
    gp_sim_result r;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &r, NULL), GP_OK);
    assert_true(r.e2e.p99 > 1.5 * r.e2e.p50);
    assert_true(r.ttft.p99 > r.ttft.p50);
}

/* Speculative decoding: one request alone, output 101 tokens. Without it, 100 decode steps
 * after the first token; with 3 drafts accepted at 0.9, each step yields 1 + E[accepted]
 * = 1 + 0.9 + 0.81 + 0.729 = 3.44 tokens on average, so about 100 / 3.44 = 29 steps: far
 * fewer (and never fewer than 100 / 4 = 25). */
static void test_spec_decode_steps(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc = {.max_num_seqs = 8, .max_num_batched_tokens = 4096, .kv_blocks = 100000, .block_size = 16};
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 10, 101);
    gp_sim_result plain, spec;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &plain, NULL), GP_OK);
    assert_int_equal(plain.steps, 101); /* 1 prefill + 100 decode */
    sc.spec.draft_tokens = 3;
    sc.spec.acceptance = 0.9;
    sc.spec.draft_cost = 0.0;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &spec, NULL), GP_OK);
    assert_true(spec.steps >= 1 + 25 && spec.steps <= 1 + 40);
    assert_true(spec.tpot.p50 < plain.tpot.p50);
    sc.spec.acceptance = 1.5;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &spec, NULL), GP_EINVAL);
}

/* Prefix cache: a 100-token prompt with 90% cached computes 10 tokens: the first step's
 * chunk is 10, so TTFT is that of a 10-token chunk after 90 cached, less than the full
 * prompt's prefill. */
static void test_prefix_hit(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc = {.max_num_seqs = 8, .max_num_batched_tokens = 4096, .kv_blocks = 100000, .block_size = 16};
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 100, 2);
    gp_sim_result cold, warm;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &cold, NULL), GP_OK);
    t.prefix_hit = 0.9;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &warm, NULL), GP_OK);
    gpi_batch_shape b = {.tokens = 10, .sampled = 1, .attn_pairs = 10 * 90 + 10 * 11 / 2.0, .kv_tokens = 90};
    assert_true(fabs(warm.ttft.p50 - gpi_step_time(&sm, &b, NULL)) < 1e-12);
    assert_true(warm.ttft.p50 <= cold.ttft.p50);
    t.prefix_hit = 1.0;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &warm, NULL), GP_EINVAL);
}

/* Pipeline: two stages, one request: each token waits a full pass (both stage slots), so the
 * time per output token is the whole pass (the step of the unpipelined model). */
static void test_pipeline_decode(void **state)
{
    (void)state;
    gpi_step_model sm;
    step_model(&sm, 1, 1.0);
    gpi_sched_config sc = {.max_num_seqs = 8, .max_num_batched_tokens = 4096, .kv_blocks = 100000, .block_size = 16};
    gp_traffic t;
    fixed_traffic(&t, GP_ARRIVAL_BURST, 1, 10, 11);
    gp_sim_result one, two;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &one, NULL), GP_OK);
    sm.pp = 2;
    assert_int_equal(gpi_simulate(&sm, &sc, &t, NULL, &two, NULL), GP_OK);
    /* no per-step overhead in `ideal`: a slot is half a pass and a token leaves after two */
    assert_true(fabs(two.tpot.p50 - one.tpot.p50) < 1e-9 * one.tpot.p50 + 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_by_hand),
        cmocka_unit_test(test_host_work_by_hand),
        cmocka_unit_test(test_eager_dispatch_by_hand),
        cmocka_unit_test(test_host_wait_share_by_hand),
        cmocka_unit_test(test_sliding_window_by_hand),
        cmocka_unit_test(test_graph_padding_by_hand),
        cmocka_unit_test(test_prefill_by_hand),
        cmocka_unit_test(test_tp_allreduce_by_hand),
        cmocka_unit_test(test_one_request_alone),
        cmocka_unit_test(test_littles_law),
        cmocka_unit_test(test_preemption_when_kv_tiny),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_trace_and_errors),
        cmocka_unit_test(test_capacity_more_users_more_replicas),
        cmocka_unit_test(test_attention_dp_ep),
        cmocka_unit_test(test_dp_ranks_wait),
        cmocka_unit_test(test_lognormal_spread),
        cmocka_unit_test(test_spec_decode_steps),
        cmocka_unit_test(test_prefix_hit),
        cmocka_unit_test(test_pipeline_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
