/*
 * test_train_search.c: invariants of the training layout search (gpi_train_search). Layout
 * counts are worked out by hand in the comments from the rules of src/lib/search/
 * train_search.c (docs/performance.md, "The layout search"); the 405B case is issue 4's
 * done-when: TP 8 inside the node, pipeline stages across nodes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static gp_catalog *cat;
static const gp_gpu *h100;
static gp_cluster node8;           /* H100 HGX: 8 per node, NVLink 4, IB NDR */
static gp_train_search_result res; /* large: static */

/* layers L, hidden 16, 4 heads, 2 KV heads, ffn 32, vocab 100 (test_model.c's tiny model
 * at L = 2) */
static void tiny(gp_model *m, int layers)
{
    char cfg[512];
    snprintf(cfg, sizeof cfg,
             "{\"model_type\": \"llama\", \"vocab_size\": 100, \"hidden_size\": 16,\n"
             " \"num_hidden_layers\": %d, \"num_attention_heads\": 4, \"num_key_value_heads\": 2,\n"
             " \"intermediate_size\": 32, \"tie_word_embeddings\": false, \"max_position_embeddings\": 64}",
             layers);
    assert_int_equal(gp_model_from_hf_config_text(cfg, strlen(cfg), "tiny", m, NULL), GP_OK);
}

static int setup(void **state)
{
    (void)state;
    if (gp_catalog_open(NULL, &cat, NULL) != GP_OK)
        return -1;
    if (gp_catalog_find_gpu(cat, "H100-SXM-80GB", &h100, NULL) != GP_OK)
        return -1;
    gpi_cluster_defaults(&node8, cat, h100, NULL);
    return node8.gpus_per_node == 8 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

static void train_workload(gp_workload *w, int64_t seq)
{
    gpi_workload_defaults(w, GP_TASK_TRAIN);
    w->seq = seq;
}

static int same_split(const gp_layout *a, const gp_layout *b)
{
    return a->tp == b->tp && a->pp == b->pp && a->dp == b->dp && a->cp == b->cp && a->ep == b->ep &&
           a->micro_batch == b->micro_batch && a->virtual_stages == b->virtual_stages;
}

/* What every result must satisfy: sorted top list of distinct splits, each fitting, on
 * exactly the GPUs searched, with micro-batch x DP x accumulation = global batch; a Pareto
 * front where no point dominates another, and that no top layout beats. */
static void check_invariants(const gp_train_search_result *r, int64_t gb)
{
    for (int i = 0; i < r->n_top; i++) {
        const gp_train_candidate *c = &r->top[i];
        assert_true(c->memory.fits);
        assert_true(c->memory.per_gpu <= c->memory.capacity);
        assert_int_equal(gp_layout_gpus(&c->layout), r->gpus);
        assert_int_equal(c->layout.global_batch, gb);
        assert_int_equal(c->layout.micro_batch * c->layout.dp * c->perf.micro_batches, gb);
        assert_true(c->perf.step_time_s > 0);
        assert_true(c->why[0] != '\0');
        if (i > 0)
            assert_true(r->top[i - 1].perf.step_time_s <= c->perf.step_time_s);
        for (int j = 0; j < i; j++)
            assert_false(same_split(&r->top[j].layout, &c->layout));
    }
    for (int i = 0; i < r->n_pareto; i++) {
        const gp_train_candidate *a = &r->pareto[i];
        assert_true(a->memory.fits);
        for (int j = 0; j < r->n_pareto; j++) {
            const gp_train_candidate *b = &r->pareto[j];
            if (i != j)
                assert_false(b->perf.step_time_s <= a->perf.step_time_s && b->memory.per_gpu <= a->memory.per_gpu);
        }
        for (int j = 0; j < r->n_top; j++) { /* nothing kept strictly dominates a front point */
            const gp_train_candidate *b = &r->top[j];
            assert_false(b->perf.step_time_s < a->perf.step_time_s && b->memory.per_gpu < a->memory.per_gpu);
        }
    }
    assert_true(r->evaluated >= r->valid);
    assert_true(r->valid >= r->fitting);
}

/*
 * Tiny model (2 layers, 4 heads, 2 KV heads) on 8 GPUs of one node, seq 512, global batch 8.
 * tp: powers of two dividing 4 heads and 2 KV heads: {1, 2}. cp: 512 / 2 < 4,096 tokens, so
 * {1}. pp: divisors of 8/tp up to 2 layers: {1, 2} (pp 2: 1 layer per stage, none empty).
 * (tp, pp, dp) = (1,1,8) (1,2,4) (2,1,4) (2,2,2). Micro-batches: divisors of 8/dp:
 * dp 8 {1}, dp 4 {1,2}, dp 2 {1,2,4}. Virtual stages: pp 2 has ceil(2/2) = 1 layer: {1}.
 * ZeRO 0..3 (dp > 1 everywhere), recomputation 4 ways (none, selective, full, op): 16 per split.
 * Splits: 1 + 2 + 2 + 3 = 8, layouts 8 x 16 = 128; all fit (a few kB).
 */
static void test_tiny_count_by_hand(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m, 2);
    gp_workload w;
    train_workload(&w, 512);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 8;
    o.fixed.global_batch = 8;
    o.top_k = GP_TRAIN_TOP_MAX;
    gp_error err;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_int_equal(res.gpus, 8);
    assert_int_equal(res.valid, 128);
    assert_int_equal(res.evaluated, 128);
    assert_int_equal(res.fitting, 128);
    assert_int_equal(res.n_top, 8); /* one per split */
    assert_true(res.n_pareto >= 1);
    check_invariants(&res, 8);
    for (int i = 0; i < res.n_top; i++) {
        assert_true(res.top[i].layout.tp <= 2);
        assert_int_equal(res.top[i].layout.cp, 1);
        assert_int_equal(res.top[i].layout.sequence_parallel, res.top[i].layout.tp > 1);
    }
    assert_int_equal(res.reasons[0].code, GP_REASON_FITS);

    /* top_k 3: the same best three, in the same order */
    gp_train_candidate first3[3];
    memcpy(first3, res.top, sizeof first3);
    o.top_k = 3;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_int_equal(res.n_top, 3);
    for (int i = 0; i < 3; i++)
        assert_true(same_split(&res.top[i].layout, &first3[i].layout));
}

/* Fixed dimensions are respected: tp 2 and pp 2 leave dp 2 and micro-batches {1,2,4}:
 * 3 x 4 ZeRO x 4 recompute = 48 layouts; ZeRO 1 and full recomputation fixed too: 3. */
static void test_fixed_dims(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m, 2);
    gp_workload w;
    train_workload(&w, 512);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 8;
    o.fixed.global_batch = 8;
    o.fixed.tp = 2;
    o.fixed.pp = 2;
    o.top_k = GP_TRAIN_TOP_MAX;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, NULL), GP_OK);
    assert_int_equal(res.valid, 48);
    assert_int_equal(res.n_top, 3);
    check_invariants(&res, 8);
    for (int i = 0; i < res.n_top; i++) {
        assert_int_equal(res.top[i].layout.tp, 2);
        assert_int_equal(res.top[i].layout.pp, 2);
        assert_int_equal(res.top[i].layout.dp, 2);
    }
    for (int i = 0; i < res.n_pareto; i++)
        assert_int_equal(res.pareto[i].layout.tp, 2);
    o.fix_zero = 1;
    o.fixed.zero = 1;
    o.fix_recompute = 1;
    o.fixed.recompute = GP_RECOMPUTE_FULL;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, NULL), GP_OK);
    assert_int_equal(res.valid, 3);
    for (int i = 0; i < res.n_top; i++) {
        assert_int_equal(res.top[i].layout.zero, 1);
        assert_int_equal(res.top[i].layout.recompute, GP_RECOMPUTE_FULL);
    }
    /* micro-batch 2 fixed too: one layout */
    o.fixed.micro_batch = 2;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, NULL), GP_OK);
    assert_int_equal(res.valid, 1);
    assert_int_equal(res.n_top, 1);
    assert_int_equal(res.top[0].perf.micro_batches, 2); /* 8 / (2 x 2) */
}

/*
 * Uneven stages and interleaving, 5 layers on 4 GPUs, tp fixed 1, global batch 4:
 * pp 4 puts ceil(5/4) = 2 layers per stage: 3 x 2 = 6 >= 5 leaves the last stage empty:
 * rejected (1 evaluated). pp 1 (dp 4): micro-batch {1}, 16 layouts (4 ZeRO x 4 recompute). pp 2 (dp 2): ceil(5/2)
 * = 3 layers on the fullest stage, virtual stages {1, 3}; micro-batches {1, 2} give 2 and 1
 * micro-batches; v 3 needs them to be a multiple of pp 2: (mb 1, v 1), (mb 1, v 3), (mb 2,
 * v 1) valid, (mb 2, v 3) rejected: 3 x 16 = 48. Valid 16 + 48 = 64; evaluated 64 + 2 = 66.
 */
static void test_uneven_and_interleaved(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m, 5);
    gp_workload w;
    train_workload(&w, 512);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 4;
    o.fixed.tp = 1;
    o.fixed.global_batch = 4;
    o.top_k = GP_TRAIN_TOP_MAX;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, NULL), GP_OK);
    assert_int_equal(res.valid, 64);
    assert_int_equal(res.evaluated, 66);
    check_invariants(&res, 4);
    int saw_v3 = 0;
    for (int i = 0; i < res.n_top; i++) {
        assert_true(res.top[i].layout.pp <= 2);
        saw_v3 |= res.top[i].layout.virtual_stages == 3;
    }
    assert_true(saw_v3);
    /* pp 4 given explicitly is an error naming the field */
    gp_error err;
    o.fixed.pp = 4;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_EINVAL);
    assert_string_equal(err.field, "pp");
}

/* TP stays inside the node unless allowed across: 16 GPUs of nodes of 2, a 4-head model. */
static void test_tp_scale_up_domain(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m, 2);
    gp_workload w;
    train_workload(&w, 512);
    gp_cluster c = node8;
    c.gpus_per_node = 2;
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 16;
    o.fixed.global_batch = 16;
    o.top_k = GP_TRAIN_TOP_MAX;
    assert_int_equal(gpi_train_search(&m, h100, &c, &w, &o, &res, NULL), GP_OK);
    for (int i = 0; i < res.n_top; i++)
        assert_true(res.top[i].layout.tp <= 2);
    for (int i = 0; i < res.n_pareto; i++)
        assert_true(res.pareto[i].layout.tp <= 2);
    /* forced: TP 2 is the most the 2 KV heads allow, so allowing more changes nothing here;
     * a fixed tp 2 across a 1-GPU node is evaluated as given */
    c.gpus_per_node = 1;
    o.fixed.tp = 2;
    assert_int_equal(gpi_train_search(&m, h100, &c, &w, &o, &res, NULL), GP_OK);
    assert_true(res.n_top > 0);
    assert_int_equal(res.top[0].layout.tp, 2);
}

/* Bad inputs are errors naming the field; a model that fits nowhere is a reason, not an error. */
static void test_errors_and_reasons(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m, 2);
    gp_workload w;
    train_workload(&w, 512);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    gp_error err;
    o.gpus = 0; /* no count and no deadline */
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_EINVAL);
    assert_string_equal(err.field, "gpus");
    o.gpus = 8;
    o.fixed.tp = 3; /* does not divide 4 heads */
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_EINVAL);
    assert_string_equal(err.field, "tp");
    o.fixed.tp = 0;
    o.top_k = 0;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_EINVAL);
    assert_string_equal(err.field, "top_k");
    o.top_k = 5;
    gp_workload inf;
    gpi_workload_defaults(&inf, GP_TASK_INFER);
    assert_int_equal(gpi_train_search(&m, h100, &node8, &inf, &o, &res, &err), GP_EINVAL);

    /* Llama-3.1-405B on one node: 405 B x 16 bytes of model state / 8 GPUs = 810 GB each
     * before any ZeRO sharding; ZeRO-3 over 8 still leaves 810 GB per GPU. Nothing fits. */
    gp_model big;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-405b", &big, NULL), GP_OK);
    train_workload(&w, 8192);
    o.fixed.global_batch = 64;
    assert_int_equal(gpi_train_search(&big, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_int_equal(res.n_top, 0);
    assert_int_equal(res.fitting, 0);
    assert_true(res.valid > 0);
    assert_true(res.n_reasons >= 1);
    assert_int_equal(res.reasons[0].code, GP_REASON_NO_LAYOUT_FITS);
}

/* Ranking by cost: cost = price x GPUs x time to train / 3600, and with one GPU count the
 * order is the order by time (cost is proportional to time there). */
static void test_rank_cost(void **state)
{
    (void)state;
    gp_model m;
    tiny(&m, 2);
    gp_workload w;
    train_workload(&w, 512);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 8;
    o.fixed.global_batch = 8;
    o.train_tokens = 1e9;
    o.rank = GP_RANK_COST;
    o.price_per_gpu_hour = 2.0;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, NULL), GP_OK);
    assert_true(res.n_top > 1);
    for (int i = 0; i < res.n_top; i++) {
        const gp_train_candidate *c = &res.top[i];
        assert_float_equal(c->cost, 2.0 * 8 * c->perf.time_to_train_s / 3600.0, 1e-9 * c->cost + 1e-12);
        if (i > 0)
            assert_true(res.top[i - 1].cost <= c->cost);
    }
    assert_non_null(strstr(res.top[0].why, "cheapest"));
}

/* Deadline mode: the count found meets the deadline; one node fewer does not. */
static void test_deadline(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-70b", &m, NULL), GP_OK);
    gp_workload w;
    train_workload(&w, 8192);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 0;
    o.train_tokens = 1e12;
    o.deadline_s = 30 * 86400.0;
    o.fixed.global_batch = 1024;
    gp_error err;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_true(res.n_top > 0);
    int n = res.gpus;
    assert_true(n > 8 && n % 8 == 0);
    assert_true(res.top[0].perf.time_to_train_s <= o.deadline_s);
    /* 70 B x 6 x 1e12 FLOPs = 4.2e23 in 30 days at <= 989 TFLOP/s per GPU needs at least
     * 4.2e23 / (2,592,000 s x 989e12) = 164 GPUs even at 100% MFU */
    assert_true(n >= 164);
    o.gpus = n - 8;
    o.deadline_s = 0;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_true(res.n_top == 0 || res.top[0].perf.time_to_train_s > 30 * 86400.0);

    /* unreachable: 1 day with at most 16 GPUs: the best layouts at 16 GPUs are returned,
     * with the reason first */
    o.gpus = 0;
    o.deadline_s = 86400.0;
    o.max_gpus = 16;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_int_equal(res.gpus, 16);
    assert_true(res.n_top == 0 || res.top[0].perf.time_to_train_s > 86400.0);
    assert_true(res.n_reasons >= 1);
    assert_int_equal(res.reasons[0].code, GP_REASON_NO_LAYOUT_FITS);
    assert_non_null(strstr(res.reasons[0].message, "deadline"));
}

/*
 * Issue 4's done-when: Llama-3.1-405B, 16,384 H100-SXM-80GB, seq 8,192, global batch 2,048.
 * Runs of this size use TP 8 inside the HGX node and pipeline stages across nodes (Llama 3:
 * TP 8, PP 16; NeMo's 405B recipe: TP 8, PP 8, CP 2, interleaved).
 */
static void test_405b_done_when(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-405b", &m, NULL), GP_OK);
    gp_workload w;
    train_workload(&w, 8192);
    gp_train_search_opts o;
    gpi_train_search_defaults(&o);
    o.gpus = 16384;
    o.fixed.global_batch = 2048;
    gp_error err;
    assert_int_equal(gpi_train_search(&m, h100, &node8, &w, &o, &res, &err), GP_OK);
    assert_true(res.n_top > 0);
    const gp_layout *l = &res.top[0].layout;
    assert_int_equal(l->tp, 8);
    assert_true(l->pp > 1);
    assert_int_equal(gp_layout_gpus(l), 16384);
    check_invariants(&res, 2048);
    for (int i = 0; i < res.n_top; i++)
        assert_true(res.top[i].layout.tp <= 8);
    /* the why names the winner's TP and PP */
    assert_non_null(strstr(res.top[0].why, "TP 8"));
    assert_non_null(strstr(res.top[0].why, "PP "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiny_count_by_hand),
        cmocka_unit_test(test_fixed_dims),
        cmocka_unit_test(test_uneven_and_interleaved),
        cmocka_unit_test(test_tp_scale_up_domain),
        cmocka_unit_test(test_errors_and_reasons),
        cmocka_unit_test(test_rank_cost),
        cmocka_unit_test(test_deadline),
        cmocka_unit_test(test_405b_done_when),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
