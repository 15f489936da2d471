/* cmd_model.c: `gpuplan model show X` and `gpuplan model list` (the text is
 * gp_model_text's and gp_catalog_models_text's). */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static const char show_help[] =
    "usage: gpuplan model show [MODEL] [--model X] [architecture flags] [--json]\n"
    "       gpuplan model list [--json]\n\n"
    "What a model is: architecture, total and active parameters (exact from safetensors/GGUF\n"
    "headers when given files), parameters by part, weight bytes at each precision, KV-cache\n"
    "bytes per token, FLOPs per token.\n\n";

static int model_show(int argc, char **argv, cli_common *common)
{
    gp_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return cli_usage_error(common, "model show", "out of memory");
    gp_scenario_init(sc, GP_CMD_MODEL);
    const char *pos[1] = {NULL};
    int help = 0, n_pos = 0;
    int rc = cli_parse_flags(common, "model show", argc, argv, sc, &help, pos, 1, &n_pos);
    gp_error err;
    if (rc == EXIT_OK && help)
        cli_print_help(show_help, GP_CMD_MODEL);
    else if (rc == EXIT_OK && n_pos && sc->model[0])
        rc = cli_usage_error(common, "model show", "give one model");
    else if (rc == EXIT_OK && n_pos && gp_scenario_set(sc, gp_scenario_key_find("model"), pos[0], GP_SRC_FLAG, &err))
        rc = cli_usage_error(common, "model show", "%s", err.msg);
    gp_catalog *cat = rc == EXIT_OK && !help ? cli_catalog(common) : NULL;
    if (rc == EXIT_OK && !help && !cat)
        rc = EXIT_INPUT;
    gp_model m;
    char *text = NULL;
    size_t len = 0;
    if (cat && gp_scenario_model(cat, sc, NULL, &m, &err) != GP_OK)
        rc = cli_run_error(common, "model show", &err);
    else if (cat && (common->json ? gp_model_json(&m, &text, &len, &err) : gp_model_text(&m, &text, &len, &err)))
        rc = cli_error(common, &err);
    else if (cat)
        rc = cli_print_text(text, len);
    free(sc);
    return rc;
}

static int model_list(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if (c == 'h') {
            printf("%s", show_help);
            return EXIT_OK;
        }
        if (!cli_common_opt(c, optarg, common))
            return cli_usage_error(common, "model list", "unknown option '%s'", argv[optind - 1]);
    }
    gp_catalog *cat = cli_catalog(common);
    if (!cat)
        return EXIT_INPUT;
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    gp_status st =
        common->json ? gp_catalog_models_json(cat, &text, &len, &err) : gp_catalog_models_text(cat, &text, &len, &err);
    return st == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
}

int cmd_model(int argc, char **argv, cli_common *common)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        cli_print_help(show_help, GP_CMD_MODEL);
        return argc < 2 ? EXIT_USAGE : EXIT_OK;
    }
    if (strcmp(argv[1], "show") == 0)
        return model_show(argc - 1, argv + 1, common);
    if (strcmp(argv[1], "list") == 0)
        return model_list(argc - 1, argv + 1, common);
    return cli_usage_error(common, "model", "unknown subcommand '%s' (show, list)", argv[1]);
}
