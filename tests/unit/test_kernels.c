/*
 * test_kernels.c: the hardware-rate accessors (src/lib/hw/kernels.c) against figures worked
 * by hand from data/kernels.json's published points and rules (each comment shows the sum).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "hw/kernels.h"

static gp_catalog *cat;

static int setup(void **state)
{
    (void)state;
    return gp_catalog_open(NULL, &cat, NULL) == GP_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    gp_catalog_free(cat);
    return 0;
}

static const gpi_gpu_rates *rates(const char *id)
{
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(cat, id, &g, NULL), GP_OK);
    const gpi_gpu_rates *r = gpi_gpu_rates_of(cat, g);
    assert_non_null(r);
    return r;
}

#define near(a, b, rel) assert_true(fabs((a) - (b)) <= (rel)*fabs(b))

static void gemm_large_and_small(void **state)
{
    (void)state;
    const gpi_gpu_rates *h = rates("H100-SXM-80GB");
    /* MAMF 794.5 TF (ml-engineering table); 8192 x 1024 x 4096: d = 1024, half_dim 100
     * (kernels.json "fit"), s = 1024 / 1124 = 0.911032 -> 723.82 TF. Roofline: 2mnk / (2 (mk + kn + mn)) = 6.872e10
     * / 9.227e7 = 744.7 FLOP/B x 3015 GB/s = 2245 TF: compute-bound. */
    near(gpi_gemm_rate(h, GPI_K_BF16, 8192, 1024, 4096), 723.82e12, 1e-4);
    /* decode, 1 x 8192 x 8192: intensity 2 x 8192^2 / (2 (8192 + 8192^2 + 8192)) = 0.999756;
     * HBM achievable 0.90 x 3350 GB/s = 3015 GB/s -> 3.0143 TF (memory-bound) */
    near(gpi_gemm_rate(h, GPI_K_BF16, 1, 8192, 8192), 3.0143e12, 1e-3);
    /* its own fp8 row: 1402.6 at a large shape, s(8192) = 8192 / 8292 */
    near(gpi_gemm_rate(h, GPI_K_FP8, 8192, 8192, 8192), 1402.6e12 * 8192.0 / 8292.0, 1e-6);
    assert_true(h->gemm_measured[GPI_K_BF16] && h->gemm_measured[GPI_K_FP8]);
    /* NVFP4 on B200, a small-K expert GEMM (1024 x 2048 x 768): the FP4 rate is derived,
     * 9000 TF x the FP8 efficiency 3432.5 / 4500 = 6865 TF, x s(768) = 768 / 868 -> 6074 TF.
     * Roofline with 0.5625-byte inputs (FP4 + one FP8 scale per 16) and a BF16 output:
     * 2mnk = 3.22123e9 FLOPs over 0.5625 x (786,432 + 1,572,864) + 2 x 2,097,152 = 5,521,408 B
     * = 583.41 FLOP/B x 0.9 x 7700 GB/s = 4043.0 TF: memory-bound, the output's bytes first
     * (with the output counted at FP4's half byte it read 10,018 TF, compute-bound). */
    const gpi_gpu_rates *b = rates("B200");
    near(gpi_gemm_rate(b, GPI_K_NVFP4, 1024, 2048, 768), 583.41 * 6930e9, 1e-4);
}

static void grouped_gemm(void **state)
{
    (void)state;
    const gpi_gpu_rates *h = rates("H100-SXM-80GB");
    /* DeepGEMM's masked grouped shape: 4 experts of M = 256, N = 4096, K = 7168, fp8.
     * compute 1402.6 x 256 / 356 = 1008.59 TF; roofline 2mnk / (mk + kn + 2 mn) (FP8 inputs,
     * BF16 output) = 1.5032e10 / 3.3294e7 = 451.5 FLOP/B x 3015 GB/s = 1361 TF: compute-bound. x grouped efficiency
     * 0.9 (kernels.json) = 907.73 TF (DeepGEMM measured 932 on H800). FLOPs 4 x 2 x 256 x
     * 4096 x 7168 = 6.01295e10 -> 66.242 us */
    near(gpi_grouped_gemm_s(h, GPI_K_FP8, 6.0129542144e10, 256, 4096, 7168, 1.0), 6.6242e-5, 2e-4);
    /* decode: 8 experts of M = 1: each reads its 4096 x 7168 fp8 weights (29.36 MB), 8 of them
     * 234.9 MB at 3015 GB/s = 77.92 us, / 0.9 = 86.58 us; FLOPs 8 x 2 x 4096 x 7168 */
    near(gpi_grouped_gemm_s(h, GPI_K_FP8, 8.0 * 2 * 4096 * 7168, 1, 4096, 7168, 1.0), 8.6594e-5, 3e-4);
    /* the fraction divides the rate; nothing to do is 0 s */
    near(gpi_grouped_gemm_s(h, GPI_K_FP8, 6.0129542144e10, 256, 4096, 7168, 0.5), 2 * 6.6242e-5, 2e-4);
    assert_true(gpi_grouped_gemm_s(h, GPI_K_FP8, 0, 256, 4096, 7168, 1.0) == 0.0);
}

static void gemm_derivations(void **state)
{
    (void)state;
    /* H100 PCIe: peak 756.5 x H100 SXM efficiency 794.5 / 989.5 = 607.41 TF */
    near(rates("H100-PCIE-80GB")->gemm[GPI_K_BF16], 607.41e12, 1e-4);
    assert_false(rates("H100-PCIE-80GB")->gemm_measured[GPI_K_BF16]);
    /* H200: "H200 is the same" as H100 in bf16 (794.5); its own fp8 row 1453.4 */
    near(rates("H200-SXM-141GB")->gemm[GPI_K_BF16], 794.5e12, 1e-9);
    near(rates("H200-SXM-141GB")->gemm[GPI_K_FP8], 1453.4e12, 1e-9);
    /* A100: no fp8 tensor cores, fp8 runs at the bf16 MAMF 271.2 */
    near(rates("A100-SXM-80GB")->gemm[GPI_K_FP8], 271.2e12, 1e-9);
    /* B200 NVFP4: fp4 peak 9000 x its fp8 efficiency 3432.5 / 4500 = 6865 TF */
    near(rates("B200")->gemm[GPI_K_NVFP4], 6865e12, 1e-6);
    /* weight-only int4 computes in 16 bits: the bf16 rate */
    near(rates("B200")->gemm[GPI_K_W4], 1745e12, 1e-9);
    /* block-scaled fp8 on Hopper: DeepGEMM's 1550 */
    near(rates("H100-SXM-80GB")->gemm[GPI_K_FP8_BLOCK], 1550e12, 1e-9);
    /* MI300X fp8: peak 2614.9 x bf16 eff (668.4 / 1307.4) x H100's fp8/bf16 efficiency ratio
     * (1402.6 / 1979) / (794.5 / 989.5): 2614.9 x 0.511244 x 0.882681 = 1180.0 TF */
    near(rates("MI300X")->gemm[GPI_K_FP8], 1180.0e12, 2e-4);
}

static void attention(void **state)
{
    (void)state;
    const gpi_gpu_rates *h = rates("H100-SXM-80GB");
    assert_int_equal(h->attn_default, GPI_ATTN_CUDNN);
    /* FA3 paper: cuDNN forward, d128, 2k: 617 TF full, 484 causal; backward 465 */
    near(gpi_attn_rate(h, GPI_ATTN_DEFAULT, 0, 0, 128, 2048), 617e12, 1e-9);
    near(gpi_attn_rate(h, GPI_ATTN_CUDNN, 0, 1, 128, 2048), 484e12, 1e-9);
    near(gpi_attn_rate(h, GPI_ATTN_CUDNN, 1, 0, 128, 2048), 465e12, 1e-9);
    /* 3000 lies (3000 - 2048) / 2048 = 0.46484 of the way to 4096 (609): 617 - 8 x 0.46484 */
    near(gpi_attn_rate(h, GPI_ATTN_CUDNN, 0, 0, 128, 3000), 613.28e12, 1e-4);
    /* causal backward is not published: bwd x fwd_causal / fwd = 465 x 484 / 617 = 364.76 */
    near(gpi_attn_rate(h, GPI_ATTN_CUDNN, 1, 1, 128, 2048), 364.76e12, 1e-4);
    /* head dim 64: x 324 / 370 (FA2's d64 / d128 at 16k) */
    near(gpi_attn_rate(h, GPI_ATTN_FA2, 0, 0, 64, 16384), 370e12 * 324.0 / 370.0, 1e-9);
    /* A100 FA2: its two anchors 156 @ 512 and 228 @ 16k against H100 FA2 309 and 370 give a
     * scale (156/309 + 228/370) / 2 = 0.560532; at 512: 309 x 0.560532 = 173.20 TF */
    near(gpi_attn_rate(rates("A100-SXM-80GB"), GPI_ATTN_DEFAULT, 0, 0, 128, 512), 173.20e12, 1e-4);
    /* B200 cuDNN: its one anchor, 1605 / 1.3 = 1234.6 -> 1235 @ 16k, on H100's cuDNN 595: at
     * 16k exactly 1235 */
    near(gpi_attn_rate(rates("B200"), GPI_ATTN_CUDNN, 0, 0, 128, 16384), 1235e12, 1e-9);
}

static void collectives(void **state)
{
    (void)state;
    /* A100 NVLink 3, nccl-tests: 1 GiB 229.04 GB/s, 16 GiB 234.89 (link 300 GB/s) */
    const gpi_link_curve *nv3 = gpi_link_curve_of(cat, "nvlink3");
    near(gpi_collective_busbw(nv3, GPI_COLL_ALL_REDUCE, 1073741824.0, 300), 229.04e9, 1e-9);
    near(gpi_collective_busbw(nv3, GPI_COLL_ALL_REDUCE, 1e12, 300), 234.89e9, 1e-9); /* clamped */
    /* 1.5 GiB: halfway between 1 GiB (229.04) and 2 GiB (231.41) = 230.225 */
    near(gpi_collective_busbw(nv3, GPI_COLL_ALL_REDUCE, 1.5 * 1073741824.0, 300), 230.225e9, 1e-9);
    /* H200 NVLink 4: all-reduce with NVLS 482.26 at 16 GiB; all-gather at the ring's 367.61 */
    const gpi_link_curve *nv4 = gpi_link_curve_of(cat, "nvlink4");
    near(gpi_collective_busbw(nv4, GPI_COLL_ALL_REDUCE, 17179869184.0, 450), 482.26e9, 1e-9);
    near(gpi_collective_busbw(nv4, GPI_COLL_ALL_GATHER, 17179869184.0, 450), 367.61e9, 1e-9);
    /* ... and at 16 MiB the ring asymptote times the NVLS curve's shape: 367.61 x 219.89 / 482.26 */
    near(gpi_collective_busbw(nv4, GPI_COLL_REDUCE_SCATTER, 16777216.0, 450), 367.61e9 * 219.89 / 482.26, 1e-9);
    /* all-to-all over NVLink 4: DeepEP's 155.5 of 160 GB/s (H800), large message */
    near(gpi_collective_busbw(nv4, GPI_COLL_ALL_TO_ALL, 17179869184.0, 450), 450e9 * 155.5 / 160.0, 1e-9);
    /* IB NDR: the 4-node B200 curve, 381.8 of the 8 pooled NICs' 400 GB/s */
    near(gpi_collective_busbw(gpi_link_curve_of(cat, "ib-ndr"), GPI_COLL_ALL_REDUCE, 17179869184.0, 400), 381.8e9,
         1e-9);
    /* ... measured on 4 nodes x 8 GPUs (data/kernels.json efa400-b200x32-allreduce "gpus": 32): the
     * training model reads it at size x 32 / n for a ring of n ranks; NVLink 3's on 8 */
    assert_int_equal(gpi_link_curve_of(cat, "ib-ndr")->ranks, 32);
    assert_int_equal(nv3->ranks, 8);
    /* PCIe 4 (31.5 GB/s): the RTX 5090 PCIe 5 share 28 / 63, so 14.0 GB/s at large sizes */
    near(gpi_collective_busbw(gpi_link_curve_of(cat, "pcie4"), GPI_COLL_ALL_REDUCE, 17179869184.0, 31.5), 14.0e9, 1e-9);
    /* ... on the shape of a PCIe ring (4x RTX PRO 6000, NCCL, voipmonitor/rtx6kpro): 2 MiB in
     * 152.1 us = 1.5 x 2097152 / 152.1e-6 = 20.682 GB/s of the 28.118 at 32 MiB, so PCIe 4 gives
     * 14.0 x 20.682 / 28.118 = 10.298 GB/s at 2 MiB (the A100 NVLink shape gave 2.16) and the
     * full 14.0 from 32 MiB up */
    near(gpi_collective_busbw(gpi_link_curve_of(cat, "pcie4"), GPI_COLL_ALL_REDUCE, 2097152.0, 31.5),
         14.0e9 * 20.682 / 28.118, 1e-9);
    near(gpi_collective_busbw(gpi_link_curve_of(cat, "pcie4"), GPI_COLL_ALL_REDUCE, 33554432.0, 31.5), 14.0e9, 1e-9);
    /* TCP Ethernet: half the RDMA curve: 12.5 GB/s x 0.9545 x 0.5 = 5.966 */
    near(gpi_collective_busbw(gpi_link_curve_of(cat, "ethernet-100"), GPI_COLL_ALL_REDUCE, 17179869184.0, 12.5),
         12.5e9 * 381.8 / 400 * 0.5, 1e-9);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void user_file_errors_and_refit(void **state)
{
    (void)state;
    char dir[] = "/tmp/gp_kernels_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/kernels.json", dir);
    /* a 'fit' object replaces the fitted constants key by key */
    write_file(path, "{\"fit\": {\"gemm_half_dim\": 0}}");
    gp_catalog *c2;
    assert_int_equal(gp_catalog_open(dir, &c2, NULL), GP_OK);
    const gp_gpu *g;
    assert_int_equal(gp_catalog_find_gpu(c2, "H100-SXM-80GB", &g, NULL), GP_OK);
    /* half dim 0: s = 1, the MAMF itself */
    near(gpi_gemm_rate(gpi_gpu_rates_of(c2, g), GPI_K_BF16, 8192, 1024, 4096), 794.5e12, 1e-9);
    gp_catalog_free(c2);
    /* an entry without a source is refused, naming the list */
    write_file(path, "{\"gemm\": [{\"id\": \"x\", \"gpu\": \"H100-SXM-80GB\", \"dtype\": \"bf16\", \"tflops\": 1}]}");
    gp_error err;
    assert_int_equal(gp_catalog_open(dir, &c2, &err), GP_EPARSE);
    assert_string_equal(err.field, "gemm");
    write_file(path, "{\"fit\": {\"gemm_train_fraction\": -1}}");
    assert_int_equal(gp_catalog_open(dir, &c2, &err), GP_EPARSE);
    assert_string_equal(err.field, "fit");
    /* a model architecture's own range: found by its model_type; others get their pool's (the
     * built-in file's, which the user's 'fit' did not replace: dense -0.123 .. +0.151) */
    write_file(path, "{\"fit\": {\"range_by_model_type\": {\"gpt_oss\": {\"p10\": 0.1, \"p90\": 0.5, "
                     "\"cases\": 16}}, \"range_p10\": -0.2, \"range_p90\": 0.3}}");
    assert_int_equal(gp_catalog_open(dir, &c2, NULL), GP_OK);
    const gpi_range_table *t = &gpi_kernels_fit(gpi_catalog_kernels(c2))->ranges;
    const gpi_range *r = gpi_range_pick(t, "gpt_oss", 1);
    assert_non_null(r);
    near(r->p10, 0.1, 1e-12), near(r->p90, 0.5, 1e-12);
    assert_int_equal(r->cases, 16);
    assert_string_equal(r->basis, "gpt_oss");
    r = gpi_range_pick(t, "llama", 0); /* no range of its own: the dense pool, no count */
    assert_non_null(r);
    near(r->p10, -0.2, 1e-12), near(r->p90, 0.3, 1e-12);
    assert_string_equal(r->basis, "dense");
    assert_int_equal(r->cases, 0);
    assert_string_equal(gpi_range_pick(t, "", 1)->basis, "MoE");
    assert_null(gpi_range_pick(NULL, "gpt_oss", 1));
    gp_catalog_free(c2);
    /* a pool's range must hold the estimate itself (p10 <= 0 <= p90) */
    write_file(path, "{\"fit\": {\"range_p10\": 0.05, \"range_p90\": 0.3}}");
    assert_int_equal(gp_catalog_open(dir, &c2, &err), GP_EPARSE);
    assert_string_equal(err.field, "fit.range_p10");
    write_file(path, "{\"fit\": {\"range_moe_p10\": -0.95}}");
    assert_int_equal(gp_catalog_open(dir, &c2, &err), GP_EPARSE);
    assert_string_equal(err.field, "fit.range_moe_p10");
    /* refused: p90 below p10, no count of runs, p10 at -0.9 or a missing bound, not an object, an
     * empty name, p90 of 10 (an 11x error) or more */
    const char *bad[] = {"{\"x\": {\"p10\": 0.2, \"p90\": 0.1, \"cases\": 3}}",
                         "{\"x\": {\"p10\": 0.1, \"p90\": 0.2}}",
                         "{\"x\": {\"p10\": -0.9, \"p90\": 0.2, \"cases\": 3}}",
                         "{\"x\": {\"p90\": 0.2, \"cases\": 3}}",
                         "[1]",
                         "{\"\": {\"p10\": 0.1, \"p90\": 0.2, \"cases\": 3}}",
                         "{\"x\": {\"p10\": 0.1, \"p90\": 12, \"cases\": 3}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char text[256];
        snprintf(text, sizeof text, "{\"fit\": {\"range_by_model_type\": %s}}", bad[i]);
        write_file(path, text);
        assert_int_equal(gp_catalog_open(dir, &c2, &err), GP_EPARSE);
        assert_string_equal(err.field, "fit.range_by_model_type");
    }
    /* at most 16 architectures */
    char many[2048] = "{\"fit\": {\"range_by_model_type\": {";
    for (int i = 0; i < 17; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s\"t%d\": {\"p10\": 0, \"p90\": 0, \"cases\": 1}",
                 i ? ", " : "", i);
    strcat(many, "}}}");
    write_file(path, many);
    assert_int_equal(gp_catalog_open(dir, &c2, &err), GP_EPARSE);
    assert_string_equal(err.field, "fit.range_by_model_type");
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gemm_large_and_small), cmocka_unit_test(grouped_gemm),
        cmocka_unit_test(gemm_derivations),     cmocka_unit_test(attention),
        cmocka_unit_test(collectives),          cmocka_unit_test(user_file_errors_and_refit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
