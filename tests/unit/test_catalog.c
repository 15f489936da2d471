/*
 * test_catalog.c: what the catalog says about a GPU beyond its row (src/lib/hw/hardware.c,
 * docs/hardware.md): its links found by id, its PCIe bandwidth from data/links.json, its
 * price from data/prices.json (and a --data-dir override of it), and the vLLM large-device
 * field. Expected values are the published figures the data files cite, or worked out by
 * hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static const gp_gpu *gpu(const gp_catalog *cat, const char *id)
{
    const gp_gpu *g = NULL;
    if (gp_catalog_find_gpu(cat, id, &g, NULL) != GP_OK)
        fail_msg("no GPU %s in the catalog", id);
    return g;
}

static void test_links_by_id(void **state)
{
    (void)state;
    gp_catalog *cat;
    assert_int_equal(gp_catalog_open(NULL, &cat, NULL), GP_OK);
    /* HGX H100: 8 GPUs on NVLink 4, 450 GB/s per direction (18 links x 25 GB/s) */
    const gpi_link *l = gpi_catalog_gpu_link(cat, gpu(cat, "H100-SXM-80GB"));
    assert_non_null(l);
    assert_string_equal(l->id, "nvlink4");
    assert_float_equal(l->bw_gbps_per_direction, 450.0, 1e-9);
    /* MI355X: its own Infinity Fabric generation (7 x 76.5 GB/s links), not MI300X's */
    assert_string_equal(gpi_catalog_gpu_link(cat, gpu(cat, "MI355X"))->id, "infinity-fabric-mi355x");
    /* a 2-GPU bridge (RTX 3090) and a PCIe-only card (L40S): TP beyond 2 crosses PCIe Gen4 */
    assert_string_equal(gpi_catalog_gpu_link(cat, gpu(cat, "RTX-3090"))->id, "pcie4");
    assert_string_equal(gpi_catalog_gpu_link(cat, gpu(cat, "L40S"))->id, "pcie4");
    /* PCIe x16 per direction by generation (PCI-SIG): Gen3 15.75, Gen4 31.5, Gen5 63, Gen6 121 GB/s */
    assert_float_equal(gpu(cat, "T4")->pcie_gbps, 15.75, 1e-9);
    assert_float_equal(gpu(cat, "A100-SXM-80GB")->pcie_gbps, 31.5, 1e-9);
    assert_float_equal(gpu(cat, "H100-SXM-80GB")->pcie_gbps, 63.0, 1e-9);
    assert_float_equal(gpu(cat, "B300")->pcie_gbps, 121.0, 1e-9);
    assert_string_equal(gpi_catalog_gpu_host_link(cat, gpu(cat, "B300"))->id, "pcie6");
    /* a GPU built by hand has no catalog links: Gen4 x16 is assumed */
    gp_gpu hand;
    memset(&hand, 0, sizeof hand);
    assert_float_equal(gpi_gpu_pcie_gbps(&hand), 31.5, 1e-9);
    gp_catalog_free(cat);
}

static void test_vllm_large_device(void **state)
{
    (void)state;
    gp_catalog *cat;
    assert_int_equal(gp_catalog_open(NULL, &cat, NULL), GP_OK);
    /* vLLM's rule: >= 70 GiB = 75,161,927,680 bytes and not an A100. H100 SXM reports
     * 85,520,809,984 bytes: large. A100 80GB (85,899,345,920): an A100, not large. L40S
     * (48,305,799,168): too small. */
    assert_true(gpu(cat, "H100-SXM-80GB")->vllm_large_device);
    assert_false(gpu(cat, "A100-SXM-80GB")->vllm_large_device);
    assert_false(gpu(cat, "L40S")->vllm_large_device);
    assert_true(gpu(cat, "MI300X")->vllm_large_device);
    /* GH200 480GB: nvidia-smi 97,871 MiB x 1,048,576 = 102,625,181,696 bytes (95.58 GiB): large;
     * "gh200-480gb" names it (480 GB is the superchip with its Grace CPU's LPDDR5X) */
    assert_true(gpu(cat, "gh200-480gb")->vllm_large_device);
    assert_true(gpu(cat, "GH200")->memory_bytes == 102625181696ULL);
    assert_string_equal(gpu(cat, "gh200")->id, "GH200");
    /* the data field and the rule agree on every built-in GPU */
    for (size_t i = 0; i < gp_catalog_gpu_count(cat); i++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, i);
        if (g->vllm_large_device != gpi_gpu_vllm_large_rule(g))
            fail_msg("%s: vllm_large_device %d, the rule says %d", g->id, g->vllm_large_device,
                     gpi_gpu_vllm_large_rule(g));
    }
    gp_catalog_free(cat);
}

static void write_file(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void remove_file(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    unlink(path);
}

static void test_prices_and_overrides(void **state)
{
    (void)state;
    gp_catalog *cat;
    assert_int_equal(gp_catalog_open(NULL, &cat, NULL), GP_OK);
    /* RunPod Secure Cloud H100 SXM on demand, $2.69/h (data/prices.json's source) */
    assert_float_equal(gpi_catalog_gpu_price(cat, gpu(cat, "H100-SXM-80GB")), 2.69, 1e-12);
    assert_float_equal(gpi_gpu_hourly_price(gpu(cat, "H100-SXM-80GB")), 2.69, 1e-12);
    /* no on-demand quote for A100 40GB (0 in the file): no price */
    assert_float_equal(gpi_catalog_gpu_price(cat, gpu(cat, "A100-SXM-40GB")), 0.0, 0);
    gp_catalog_free(cat);

    char dir[] = "/tmp/gp_test_catalog_XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_file(dir, "prices.json", "{\"gpus\": [{\"id\": \"H100-SXM-80GB\", \"on_demand_usd_per_hour\": 10}]}\n");
    assert_int_equal(gp_catalog_open(dir, &cat, NULL), GP_OK);
    assert_float_equal(gpi_catalog_gpu_price(cat, gpu(cat, "H100-SXM-80GB")), 10.0, 1e-12);
    assert_float_equal(gpi_catalog_gpu_price(cat, gpu(cat, "H200-SXM-141GB")), 3.59, 1e-12); /* untouched */
    gp_catalog_free(cat);
    remove_file(dir, "prices.json");

    /* a user's GPU naming a link the catalog lacks is refused, naming the field */
    write_file(dir, "gpus.json",
               "{\"gpus\": [{\"id\": \"X1\", \"memory_bytes\": 1000, \"scale_up_link\": \"nvlink9\"}]}\n");
    gp_error err;
    assert_int_equal(gp_catalog_open(dir, &cat, &err), GP_EPARSE);
    assert_string_equal(err.field, "scale_up_link");
    assert_non_null(strstr(err.msg, "nvlink9"));
    /* without the field, a user's 96 GB GPU gets the vLLM rule: 96e9 >= 75.2e9, large */
    write_file(dir, "gpus.json", "{\"gpus\": [{\"id\": \"X2\", \"memory_bytes\": 96000000000}]}\n");
    assert_int_equal(gp_catalog_open(dir, &cat, NULL), GP_OK);
    assert_true(gpu(cat, "X2")->vllm_large_device);
    assert_float_equal(gpu(cat, "X2")->pcie_gbps, 31.5, 1e-9); /* no pcie_gen: Gen4 */
    gp_catalog_free(cat);
    remove_file(dir, "gpus.json");
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_links_by_id),
        cmocka_unit_test(test_vllm_large_device),
        cmocka_unit_test(test_prices_and_overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
