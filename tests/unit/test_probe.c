/* test_probe.c: gp_probe against a fake NVML (tests/fake_nvml), a missing one, and the
 * device-name -> catalog mapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "internal.h"

#ifndef GP_FAKE_NVML
#error "GP_FAKE_NVML (the fake library's path) is set by tests/CMakeLists.txt"
#endif

static void absent_library_says_so(void **state)
{
    (void)state;
    gp_probe *p = (gp_probe *)1;
    gp_error err;
    assert_int_equal(gp_probe_open("/nonexistent/libnvidia-ml.so.1", &p, &err), GP_ENOTFOUND);
    assert_null(p);
    assert_non_null(strstr(err.msg, "NVML not found"));
    assert_non_null(strstr(err.msg, "no NVIDIA driver"));
    gp_probe_free(NULL);
    assert_int_equal(gp_probe_gpu_count(NULL), 0);
    assert_null(gp_probe_gpu_at(NULL, 0));
}

static void library_without_nvml_symbols(void **state)
{
    (void)state;
    gp_probe *p = NULL;
    gp_error err;
    assert_int_equal(gp_probe_open("libm.so.6", &p, &err), GP_EUNSUPPORTED);
    assert_null(p);
    assert_non_null(strstr(err.msg, "lacks NVML entry points"));
}

static void fake_h100_node(void **state)
{
    (void)state;
    unsetenv("FAKE_NVML_COUNT");
    unsetenv("FAKE_NVML_NAME");
    gp_probe *p = NULL;
    gp_error err;
    assert_int_equal(gp_probe_open(GP_FAKE_NVML, &p, &err), GP_OK);
    assert_int_equal(gp_probe_gpu_count(p), 8);
    assert_string_equal(gp_probe_driver_version(p), "550.54.15");
    assert_int_equal(gp_probe_cuda_version(p), 12040);
    const gp_probe_gpu *g = gp_probe_gpu_at(p, 3);
    assert_non_null(g);
    assert_int_equal(g->index, 3);
    assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
    assert_true(g->memory_total_bytes == (uint64_t)81559 << 20);
    assert_true(g->memory_free_bytes == ((uint64_t)81559 << 20) - ((uint64_t)4 << 30));
    assert_int_equal(g->pcie_gen, 5);
    assert_int_equal(g->pcie_width, 16);
    assert_int_equal(g->pcie_gen_max, 5);
    assert_int_equal(g->pcie_width_max, 16);
    assert_int_equal(g->nvlink_active, 18);
    assert_non_null(strstr(g->uuid, "GPU-"));
    assert_null(gp_probe_gpu_at(p, 8));

    gp_catalog *cat = NULL;
    assert_int_equal(gp_catalog_open(NULL, &cat, &err), GP_OK);
    const gp_gpu *c = NULL;
    assert_int_equal(gp_probe_match(cat, g, &c, &err), GP_OK);
    assert_string_equal(c->id, "H100-SXM-80GB");
    gp_catalog_free(cat);

    /* two handles are independent loads */
    gp_probe *q = NULL;
    assert_int_equal(gp_probe_open(GP_FAKE_NVML, &q, &err), GP_OK);
    gp_probe_free(p);
    assert_int_equal(gp_probe_gpu_count(q), 8);
    gp_probe_free(q);
}

static void fake_environment_variants(void **state)
{
    (void)state;
    gp_probe *p = NULL;
    gp_error err;
    setenv("FAKE_NVML_COUNT", "0", 1);
    assert_int_equal(gp_probe_open(GP_FAKE_NVML, &p, &err), GP_OK);
    assert_int_equal(gp_probe_gpu_count(p), 0);
    gp_probe_free(p);

    setenv("FAKE_NVML_COUNT", "1000", 1); /* more than we read: capped */
    assert_int_equal(gp_probe_open(GP_FAKE_NVML, &p, &err), GP_OK);
    assert_int_equal(gp_probe_gpu_count(p), GP_PROBE_MAX_GPUS);
    gp_probe_free(p);
    unsetenv("FAKE_NVML_COUNT");

    setenv("FAKE_NVML_INIT_FAIL", "1", 1);
    assert_int_equal(gp_probe_open(GP_FAKE_NVML, &p, &err), GP_EIO);
    assert_null(p);
    assert_non_null(strstr(err.msg, "Driver Not Loaded"));
    unsetenv("FAKE_NVML_INIT_FAIL");

    setenv("FAKE_NVML_NVLINKS", "0", 1);
    setenv("FAKE_NVML_NAME", "NVIDIA A100 80GB PCIe", 1);
    assert_int_equal(gp_probe_open(GP_FAKE_NVML, &p, &err), GP_OK);
    assert_int_equal(gp_probe_gpu_at(p, 0)->nvlink_active, 0);
    assert_string_equal(gp_probe_gpu_at(p, 0)->name, "NVIDIA A100 80GB PCIe");
    gp_probe_free(p);
    unsetenv("FAKE_NVML_NVLINKS");
    unsetenv("FAKE_NVML_NAME");
}

static void names_map_to_catalog(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        uint64_t mib;
        const char *id;
    } cases[] = {
        {"Tesla V100-SXM2-32GB", 32510, "V100-SXM-32GB"},
        {"NVIDIA A100-SXM4-40GB", 40960, "A100-SXM-40GB"},
        {"NVIDIA A100-SXM4-80GB", 81920, "A100-SXM-80GB"},
        {"NVIDIA A100 80GB PCIe", 81920, "A100-PCIE-80GB"},
        {"NVIDIA H100 80GB HBM3", 81559, "H100-SXM-80GB"},
        {"NVIDIA H100 PCIe", 81559, "H100-PCIE-80GB"},
        {"NVIDIA H100 NVL", 95830, "H100-NVL-94GB"},
        {"NVIDIA H200", 143771, "H200-SXM-141GB"},
        {"NVIDIA H200 NVL", 143771, "H200-NVL-141GB"},
        {"NVIDIA H20", 97871, "H20"},
        {"NVIDIA B200", 183359, "B200"},
        {"NVIDIA L40S", 46068, "L40S"},
        {"NVIDIA L40", 46068, "L40"},
        {"NVIDIA L4", 23034, "L4"},
        {"NVIDIA A10G", 23028, "A10G"},
        {"NVIDIA GeForce RTX 4090", 24564, "RTX-4090"},
        {"NVIDIA RTX 6000 Ada Generation", 49140, "RTX-6000-ADA"},
        {"NVIDIA RTX PRO 6000 Blackwell Server Edition", 97887, "RTX-PRO-6000"},
    };
    gp_catalog *cat = NULL;
    gp_error err;
    assert_int_equal(gp_catalog_open(NULL, &cat, &err), GP_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gp_probe_gpu g;
        memset(&g, 0, sizeof g);
        snprintf(g.name, sizeof g.name, "%s", cases[i].name);
        g.memory_total_bytes = cases[i].mib << 20;
        const gp_gpu *c = NULL;
        if (gp_probe_match(cat, &g, &c, &err) != GP_OK)
            fail_msg("%s: %s", cases[i].name, err.msg);
        if (strcmp(c->id, cases[i].id) != 0)
            fail_msg("%s mapped to %s, expected %s", cases[i].name, c->id, cases[i].id);
    }
    gp_probe_gpu g;
    memset(&g, 0, sizeof g);
    snprintf(g.name, sizeof g.name, "Quadro K620");
    const gp_gpu *c = NULL;
    assert_int_equal(gp_probe_match(cat, &g, &c, &err), GP_ENOTFOUND);
    assert_null(c);
    assert_non_null(strstr(err.msg, "Quadro K620"));
    gp_catalog_free(cat);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(absent_library_says_so), cmocka_unit_test(library_without_nvml_symbols),
        cmocka_unit_test(fake_h100_node),         cmocka_unit_test(fake_environment_variants),
        cmocka_unit_test(names_map_to_catalog),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
