/* cmd_probe.c: `gpuplan probe`: the GPUs of this machine through NVML (loaded at run time,
 * so gpuplan runs where there is no NVIDIA driver, and says so), mapped to catalog entries;
 * and `--gpu local`, which plans on the probed GPU. GPUPLAN_NVML_LIB or --nvml names the
 * library (tests use a fake one). The text and JSON are gp_probe_text's and gp_probe_json's. */
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

int cmd_probe(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS,
                                         {"nvml", required_argument, NULL, 5001},
                                         {"bench", no_argument, NULL, 5002},
                                         {"out", required_argument, NULL, 5003},
                                         {"cudart", required_argument, NULL, 5004},
                                         {"cublaslt", required_argument, NULL, 5005},
                                         {"nccl", required_argument, NULL, 5006},
                                         {0, 0, 0, 0}};
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
    char *text = NULL;
    size_t len = 0;
    gp_error rerr;
    st = common->json ? gp_probe_json(cat, p, path, p ? NULL : err.msg, &text, &len, &rerr)
                      : gp_probe_text(cat, p, p ? NULL : err.msg, &text, &len, &rerr);
    gp_probe_free(p);
    return st == GP_OK ? cli_print_text(text, len) : cli_error(common, &rerr);
}
