/* cmd_probe.c: `gpuplan probe`: the GPUs of this machine through NVML (loaded at run time,
 * so gpuplan runs where there is no NVIDIA driver, and says so), mapped to catalog entries;
 * and `--gpu local`, which plans on the probed GPU. GPUPLAN_NVML_LIB or --nvml names the
 * library (tests use a fake one). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char probe_help[] =
    "usage: gpuplan probe [--nvml LIB] [--json]\n\n"
    "Lists the GPUs of this machine as NVML reports them (name, memory total and free, PCIe\n"
    "generation and width, active NVLink links, driver and CUDA versions) and the catalog\n"
    "entry each one is. NVML (libnvidia-ml.so.1, part of the NVIDIA driver) is loaded at run\n"
    "time: without it, probe says so and lists no GPUs. '--gpu local' in fit/train/serve\n"
    "plans on the first probed GPU.\n\n"
    "  --nvml LIB           the NVML library to load (default $GPUPLAN_NVML_LIB, else\n"
    "                       libnvidia-ml.so.1)\n"
    "  --json               machine-readable output\n"
    "  --bench              microbenchmarks instead (GEMM, HBM, NCCL; docs/calibration.md)\n"
    "  --out FILE           with --bench: write them as a profile for --profile\n"
    "  --cudart/--cublaslt/--nccl LIB   with --bench: the libraries to load\n";

static void cuda_text(char *buf, size_t n, int v)
{
    if (v > 0)
        snprintf(buf, n, "%d.%d", v / 1000, (v % 1000) / 10);
    else
        snprintf(buf, n, "unknown");
}

int cmd_probe(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, {"nvml", required_argument, NULL, 5001},
                                         {"bench", no_argument, NULL, 5002}, {"out", required_argument, NULL, 5003},
                                         {"cudart", required_argument, NULL, 5004},
                                         {"cublaslt", required_argument, NULL, 5005},
                                         {"nccl", required_argument, NULL, 5006}, {0, 0, 0, 0}};
    const char *lib = NULL, *bench_libs[3] = {NULL, NULL, NULL}, *out = NULL;
    int bench = 0;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s", probe_help);
            return EXIT_OK;
        }
        if (c == 5001) {
            lib = optarg;
            continue;
        }
        if (c >= 5002 && c <= 5006 && cli_probe_bench_opt(c - 5002, optarg, &bench, &out, bench_libs))
            continue; /* --bench and its options (cmd_calibrate.c) */
        if (!cli_common_opt(c, optarg, common))
            return cli_usage_error(common, "probe", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error(common, "probe", "unexpected argument '%s'", argv[optind]);
    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return EXIT_INPUT;
    if (bench || out)
        return bench ? cli_probe_bench(common, cat, bench_libs, out)
                     : cli_usage_error(common, "probe", "--out goes with --bench");
    const char *path = cli_nvml_path(lib);
    gp_probe *p = NULL;
    gp_error err;
    gp_status st = gp_probe_open(path, &p, &err);
    if (st != GP_OK && st != GP_ENOTFOUND)
        return cli_error(common, &err);
    char cuda[32];
    cuda_text(cuda, sizeof cuda, gp_probe_cuda_version(p));
    if (common->json) {
        json_t *gpus = json_array();
        for (size_t i = 0; i < gp_probe_gpu_count(p); i++) {
            const gp_probe_gpu *g = gp_probe_gpu_at(p, i);
            const gp_gpu *cg = NULL;
            gp_error merr;
            gp_probe_match(cat, g, &cg, &merr);
            json_array_append_new(
                gpus,
                json_pack("{si ss ss sI sI si si si si si ss? ss?}", "index", g->index, "name", g->name, "uuid",
                          g->uuid, "memory_total_bytes", (json_int_t)g->memory_total_bytes, "memory_free_bytes",
                          (json_int_t)g->memory_free_bytes, "pcie_gen", g->pcie_gen, "pcie_width", g->pcie_width,
                          "pcie_gen_max", g->pcie_gen_max, "pcie_width_max", g->pcie_width_max, "nvlink_active",
                          g->nvlink_active, "catalog_id", cg ? cg->id : NULL, "catalog_note", cg ? NULL : merr.msg));
        }
        json_t *o = json_pack("{s{sb ss ss? ss? si ss?} so si}", "nvml", "available", p != NULL, "library",
                              path ? path : GP_PROBE_DEFAULT_NVML, "message", p ? NULL : err.msg, "cuda_version",
                              gp_probe_cuda_version(p) > 0 ? cuda : NULL, "cuda_version_raw", gp_probe_cuda_version(p),
                              "driver_version", p && gp_probe_driver_version(p)[0] ? gp_probe_driver_version(p) : NULL,
                              "gpus", gpus, "gpu_count", (int)gp_probe_gpu_count(p));
        gp_probe_free(p);
        return cli_print_json(common, o);
    }
    if (!p) {
        printf("probe: %s.\nNo GPUs listed; plan with --gpu ID (see 'gpuplan gpus').\n", err.msg);
        return EXIT_OK;
    }
    printf("NVML: driver %s, CUDA %s, %zu GPU%s\n\n",
           gp_probe_driver_version(p)[0] ? gp_probe_driver_version(p) : "unknown", cuda, gp_probe_gpu_count(p),
           gp_probe_gpu_count(p) == 1 ? "" : "s");
    if (gp_probe_gpu_count(p) > 0)
        printf("%3s  %-32s %10s %10s %-10s %6s  %s\n", "#", "name", "total GB", "free GB", "PCIe", "NVLink", "catalog");
    for (size_t i = 0; i < gp_probe_gpu_count(p); i++) {
        const gp_probe_gpu *g = gp_probe_gpu_at(p, i);
        const gp_gpu *cg = NULL;
        gp_error merr;
        char pcie[32];
        snprintf(pcie, sizeof pcie, "gen%d x%d", g->pcie_gen, g->pcie_width);
        gp_probe_match(cat, g, &cg, &merr);
        printf("%3d  %-32.32s %10.1f %10.1f %-10s %6d  %s\n", g->index, g->name, (double)g->memory_total_bytes / 1e9,
               (double)g->memory_free_bytes / 1e9, pcie, g->nvlink_active, cg ? cg->id : "(no catalog entry)");
    }
    gp_probe_free(p);
    return EXIT_OK;
}
