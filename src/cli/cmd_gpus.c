/* cmd_gpus.c: `gpuplan gpus`: the accelerator catalog. */
#include "cli.h"

#include <string.h>

int cmd_gpus(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, {"gpu", required_argument, NULL, 'g'}, {0, 0, 0, 0}};
    const char *only = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hg:", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("usage: gpuplan gpus [--gpu ID] [--json] [--data-dir DIR]\n\n"
                   "The accelerator catalog (data/gpus.json; docs/hardware.md gives every source):\n"
                   "memory the device reports, HBM bandwidth, dense peak TFLOP/s per precision,\n"
                   "scale-up link and domain, PCIe generation, TDP.\n");
            return EXIT_OK;
        }
        if (c == 'g') {
            only = optarg;
            continue;
        }
        if (!cli_common_opt(c, optarg, common))
            return cli_usage_error(common, "gpus", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        only = argv[optind];
    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return EXIT_INPUT;
    const gp_gpu *sel = NULL;
    gp_error err;
    if (only && gp_catalog_find_gpu(cat, only, &sel, &err) != GP_OK)
        return cli_error(common, &err);
    if (common->json) {
        char *text = NULL;
        size_t len = 0;
        return gp_catalog_gpus_json(cat, sel, &text, &len, &err) == GP_OK ? cli_print_text(text, len)
                                                                          : cli_error(common, &err);
    }
    printf("%-16s %-8s %9s %9s %8s %8s %8s %-28s %5s %5s\n", "id", "vendor", "mem GiB", "HBM GB/s", "bf16 TF", "fp8 TF",
           "fp4 TF", "scale-up (GB/s bidir, GPUs)", "PCIe", "TDP W");
    for (size_t i = 0; i < gp_catalog_gpu_count(cat); i++) {
        const gp_gpu *g = gp_catalog_gpu_at(cat, i);
        if (sel && g != sel)
            continue;
        char su[64], f8[16], f4[16];
        snprintf(su, sizeof su, "%.20s %.0f x%d", g->scale_up_name, g->scale_up_gbps_bidir, g->scale_up_domain);
        snprintf(f8, sizeof f8, g->tflops[GP_DTYPE_FP8] > 0 ? "%.0f" : "-", g->tflops[GP_DTYPE_FP8]);
        snprintf(f4, sizeof f4, g->tflops[GP_DTYPE_FP4] > 0 ? "%.0f" : "-", g->tflops[GP_DTYPE_FP4]);
        printf("%-16s %-8s %9.1f %9.0f %8.0f %8s %8s %-28s %5d %5.0f%s\n", g->id, g->vendor,
               (double)g->memory_bytes / 1073741824.0, g->hbm_bandwidth_gbps, g->tflops[GP_DTYPE_BF16], f8, f4, su,
               g->pcie_gen, g->tdp_w, g->consumer ? "  consumer card (GeForce licence: no datacenter use)" : "");
    }
    return EXIT_OK;
}
