/* cmd_gpus.c: `gpuplan gpus`: the accelerator catalog (gp_catalog_gpus_text / _json). */
#include "cli.h"

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
    char *text = NULL;
    size_t len = 0;
    gp_status st = common->json ? gp_catalog_gpus_json(cat, sel, &text, &len, &err)
                                : gp_catalog_gpus_text(cat, sel, &text, &len, &err);
    return st == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
}
