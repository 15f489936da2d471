/*
 * test_verdict.c: the verdict's semantics (src/lib/decide/fit.c, issue 16): "fits" is the job
 * as asked, an impossible layout says why, the context stops at the model's maximum with a
 * warning, 8-bit weights are named when they would fit one GPU, and GB vs GiB is explained.
 * Expected values worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "internal.h"

static gp_catalog *cat;
static const gp_gpu *h100;

static int setup(void **state)
{
    (void)state;
    return gp_catalog_open(NULL, &cat, NULL) == GP_OK && gp_catalog_find_gpu(cat, "h100", &h100, NULL) == GP_OK ? 0
                                                                                                                : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

static const gp_reason *reason(const gp_fit_result *r, gp_reason_code c)
{
    for (int i = 0; i < r->n_reasons; i++)
        if (r->reasons[i].code == c)
            return &r->reasons[i];
    return NULL;
}

/* Llama-3.1-70B in bf16 (70,553,706,496 parameters x 2 bytes = 141.1 GB) does not fit one H100
 * (85.5 GB): "fits" is false though two GPUs hold it. In fp8 the weights are 70.6 GB, plus
 * 4,096 tokens x 327,680 bytes of KV (80 layers x 8 KV heads x 128 x 2 x 2 bytes) = 1.3 GB and
 * the overheads: under 85.5 GB, so one H100 holds it with 8-bit weights. */
static void test_fits_is_as_asked(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-70b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.dtype = GP_DTYPE_BF16;
    gp_fit_result r;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_false(r.asked_fits);
    assert_false(r.single_gpu_sufficient);
    assert_true(r.fits); /* a layout exists: 2 x TP2 */
    assert_int_equal(r.min_gpus, 2);
    assert_non_null(reason(&r, GP_REASON_LOWER_PRECISION_FITS));
    assert_true(r.n_lower >= 1);
    assert_int_equal(r.lower[0], GP_DTYPE_FP8);
    assert_true(r.lower_bytes[0] > 70.5e9 && r.lower_bytes[0] < 85.5e9);
    /* the device reports 81,559 MiB = 85,520,809,984 bytes = 85.5 GB = 79.6 GiB */
    const gp_reason *u = reason(&r, GP_REASON_UNITS);
    assert_non_null(u);
    assert_non_null(strstr(u->message, "85.5 GB"));
    assert_non_null(strstr(u->message, "79.6 GiB"));
    /* asked on two GPUs (TP 2), the same job fits as asked */
    gp_layout l;
    memset(&l, 0, sizeof l);
    l.tp = 2;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, &l, &r, NULL), GP_OK);
    assert_true(r.asked_valid);
    assert_true(r.asked_fits);
}

/* TP 3 cannot split 64 heads (64 / 3 is not whole): the asked layout is invalid, says so, and
 * the search still answers with the smallest valid layout (TP 2) instead of "no layout fits". */
static void test_invalid_layout(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-70b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.dtype = GP_DTYPE_BF16;
    gp_layout l;
    memset(&l, 0, sizeof l);
    l.tp = 3;
    gp_fit_result r;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, &l, &r, NULL), GP_OK);
    assert_false(r.asked_valid);
    assert_false(r.asked_fits);
    assert_false(r.asked_memory.fits);
    const gp_reason *why = reason(&r, GP_REASON_INVALID_LAYOUT);
    assert_non_null(why);
    assert_non_null(strstr(why->message, "64 attention heads"));
    assert_null(reason(&r, GP_REASON_NO_LAYOUT_FITS));
    assert_true(r.fits);
    assert_int_equal(r.min_layout.tp, 2);
}

/* Mistral-7B takes 32,768 tokens (max_position_embeddings): asking 131,072 warns, and the
 * longest sequence reported stops at 32,768 though memory would hold more. */
static void test_context_cap(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "mistral-7b", &m, NULL), GP_OK);
    assert_int_equal(m.max_context, 32768);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.context = 131072;
    gp_fit_result r;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    assert_non_null(reason(&r, GP_REASON_CONTEXT_ABOVE_MODEL_MAX));
    assert_int_equal(r.max_context, 32768);
    assert_true(r.context_capped);
    assert_string_equal(gp_reason_name(GP_REASON_CONTEXT_ABOVE_MODEL_MAX), "context_above_model_max");
}

/* The same verdict in Brazilian Portuguese (gpi_fit_set_lang "pt-BR"): the weights of
 * Llama-3.1-70B in bf16 are 70,553,706,496 x 2 = 141,107,412,992 bytes = 141,1 GB with a decimal
 * comma; the H100 reports 85,5 GB = 79,6 GiB; TP 3 does not divide 64 heads. */
static void test_reasons_pt_br(void **state)
{
    (void)state;
    gp_model m;
    assert_int_equal(gp_catalog_find_model(cat, "llama-3.1-70b", &m, NULL), GP_OK);
    gp_workload w;
    gpi_workload_defaults(&w, GP_TASK_INFER);
    w.dtype = GP_DTYPE_BF16;
    gp_fit_result r;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, NULL, &r, NULL), GP_OK);
    gpi_fit_set_lang(&r, "pt-BR");
    const gp_reason *wgt = reason(&r, GP_REASON_WEIGHTS_EXCEED_VRAM);
    assert_non_null(wgt);
    assert_non_null(strstr(wgt->message, "Só os pesos têm 141,1 GB; uma H100-SXM-80GB tem 85,5 GB"));
    const gp_reason *u = reason(&r, GP_REASON_UNITS);
    assert_non_null(u);
    assert_non_null(strstr(u->message, "85,5 GB (79,6 GiB)"));
    assert_non_null(strstr(reason(&r, GP_REASON_LOWER_PRECISION_FITS)->message, "Com pesos de 8 bits"));
    assert_non_null(strstr(reason(&r, GP_REASON_LARGER_GPU_FITS)->message, "Uma GPU maior comporta o modelo sozinha"));
    gp_layout l;
    memset(&l, 0, sizeof l);
    l.tp = 3;
    assert_int_equal(gpi_fit(cat, &m, h100, &w, &l, &r, NULL), GP_OK);
    gpi_fit_set_lang(&r, "en"); /* English stays English */
    assert_non_null(strstr(reason(&r, GP_REASON_INVALID_LAYOUT)->message, "64 attention heads"));
    gpi_fit_set_lang(&r, "pt-BR");
    assert_non_null(strstr(reason(&r, GP_REASON_INVALID_LAYOUT)->message, "3 não divide as 64 cabeças de atenção"));
    /* numbers by locale through the public formatter */
    char b[32];
    assert_string_equal(gp_format_number(b, sizeof b, 1234567.85, 1, "pt-BR"), "1.234.567,9");
    assert_string_equal(gp_format_number(b, sizeof b, 1234567.85, 1, "en"), "1,234,567.9");
    assert_string_equal(gp_text(b, sizeof b, "fit.verdict_one", "pt-BR", NULL, 0), "Veredito: UMA GPU basta.");
    assert_string_equal(gp_text(b, sizeof b, "no.such.key", "pt-BR", NULL, 0), "");
    /* a word agrees with its count ({2|sequência|sequências}): one, then several */
    char h[160];
    const char *one[5] = {"Llama", "H100", "1", "4096", "bf16"}, *many[5] = {"Llama", "H100", "1.024", "4096", "bf16"};
    assert_string_equal(gp_text(h, sizeof h, "fit.head_infer", "pt-BR", one, 5),
                        "Llama em H100: inferência, 1 sequência de 4096 tokens, pesos bf16");
    assert_string_equal(gp_text(h, sizeof h, "fit.head_infer", "pt-BR", many, 5),
                        "Llama em H100: inferência, 1.024 sequências de 4096 tokens, pesos bf16");
    assert_string_equal(gp_text(h, sizeof h, "fit.head_infer", "en", one, 5),
                        "Llama on H100: inference, 1 x 4096-token sequence, weights bf16");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fits_is_as_asked),
        cmocka_unit_test(test_invalid_layout),
        cmocka_unit_test(test_context_cap),
        cmocka_unit_test(test_reasons_pt_br),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
