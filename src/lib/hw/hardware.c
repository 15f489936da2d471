/*
 * hardware.c: what the catalog says about one GPU beyond its row: the links it uses (by id,
 * data/gpus.json `scale_up_link` and the PCIe link of its `pcie_gen` in data/links.json),
 * its price (data/prices.json, with --data-dir overrides), and the engine rules stated as
 * GPU fields (`vllm_large_device`). Every figure comes from the data files (docs/hardware.md,
 * docs/data.md); the only constants here say what holds for a GPU the catalog did not load.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

/* A GPU built by hand (not read from data/gpus.json) gets no link figures from the catalog:
 * its PCIe link is taken as Gen4 x16, data/links.json `pcie4` (31.5 GB/s per direction). */
#define GPI_PCIE_FALLBACK_GEN  4
#define GPI_PCIE_FALLBACK_GBPS 31.5

/* vLLM's large-device rule (vllm/engine/arg_utils.py, the EngineArgs batch defaults:
 * `device_memory >= 70 * GiB_bytes and "a100" not in device_name`, the A100 carve-out of
 * vLLM PR #17885), for a user's gpus.json entry without the field. */
#define GPI_VLLM_LARGE_DEVICE_BYTES (70.0 * 1073741824.0)

int gpi_gpu_vllm_large_rule(const gp_gpu *gpu)
{
    return (double)gpu->memory_bytes >= GPI_VLLM_LARGE_DEVICE_BYTES && !strstr(gpu->id, "A100") &&
           !strstr(gpu->name, "A100");
}

double gpi_gpu_pcie_gbps(const gp_gpu *gpu)
{
    return gpu && gpu->pcie_gbps > 0 ? gpu->pcie_gbps : GPI_PCIE_FALLBACK_GBPS;
}

const gpi_link *gpi_catalog_gpu_host_link(const gp_catalog *cat, const gp_gpu *gpu)
{
    char id[32];
    const gpi_link *out = NULL;
    snprintf(id, sizeof id, "pcie%d", gpu->pcie_gen > 0 ? gpu->pcie_gen : GPI_PCIE_FALLBACK_GEN);
    return gpi_catalog_find_link(cat, id, &out, NULL) == GP_OK ? out : NULL;
}

const gpi_link *gpi_catalog_gpu_link(const gp_catalog *cat, const gp_gpu *gpu)
{
    /* a scale-up domain of more than a 2-GPU bridge runs TP over its fabric; a bridge or a
     * PCIe-only card over PCIe */
    const gpi_link *out = NULL;
    if (gpu->scale_up_link[0] && gpu->scale_up_domain > 2 &&
        gpi_catalog_find_link(cat, gpu->scale_up_link, &out, NULL) == GP_OK)
        return out;
    return gpi_catalog_gpu_host_link(cat, gpu);
}

gp_status gpi_gpu_resolve_links(const gp_catalog *cat, gp_gpu *gpu, const char *file, gp_error *err)
{
    const gpi_link *l = NULL;
    if (gpu->scale_up_link[0] && gpi_catalog_find_link(cat, gpu->scale_up_link, &l, NULL) != GP_OK) {
        gpi_error_set_path(err, file);
        gpi_error_set_field(err, "scale_up_link");
        return gpi_fail(err, GP_EPARSE, "%s: GPU %s names scale_up_link '%s', which links.json does not have", file,
                        gpu->id, gpu->scale_up_link);
    }
    const gpi_link *host = gpi_catalog_gpu_host_link(cat, gpu);
    gpu->pcie_gbps = host ? host->bw_gbps_per_direction : 0.0;
    return GP_OK;
}

double gpi_catalog_gpu_price(const gp_catalog *cat, const gp_gpu *gpu)
{
    size_t i;
    json_t *e;
    if (!cat || !gpu)
        return 0.0;
    json_array_foreach(json_object_get(gpi_catalog_prices(cat), "gpus"), i, e)
    {
        if (!gpi_strcaseeq(json_string_value(json_object_get(e, "id")), gpu->id))
            continue;
        json_t *v = json_object_get(e, "on_demand_usd_per_hour");
        return json_is_number(v) && json_number_value(v) > 0 ? json_number_value(v) : 0.0;
    }
    return 0.0;
}

double gpi_gpu_hourly_price(const gp_gpu *gpu)
{
    /* the built-in data/prices.json only (no --data-dir): parsed for this call */
    size_t len;
    const char *text = gpi_embedded("data/prices.json", &len);
    json_t *root = text ? json_loadb(text, len, 0, NULL) : NULL;
    double usd = 0.0;
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(root, "gpus"), i, e)
    {
        json_t *v = json_object_get(e, "on_demand_usd_per_hour");
        if (gpu && gpi_strcaseeq(json_string_value(json_object_get(e, "id")), gpu->id) && json_is_number(v))
            usd = json_number_value(v) > 0 ? json_number_value(v) : 0.0;
    }
    json_decref(root);
    return usd;
}
