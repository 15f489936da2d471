/* cmd_plan.c: `gpuplan plan [SCENARIO.json] [flags]`: the whole decision (docs/scenario.md):
 * options ranked with what each costs over the horizon, the ones the data rules exclude and
 * why, and a report (text, JSON, Markdown, HTML). A scenario document is the same flags as
 * JSON keys (gp_scenario_parse_json, the library's key table); flags after it override it. With
 * nothing given, the built-in example (gp_scenario_example) runs: Llama-3.1-70B for 300 users,
 * health data in Brazil, 36 months, in BRL. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CLI_SCENARIO_MAX (1u << 20) /* bytes of a scenario file */

static const char plan_help[] =
    "usage: gpuplan plan [SCENARIO.json] [flags]\n\n"
    "The whole decision: for each candidate GPU (--gpu, repeatable) and weight precision\n"
    "(--dtype, repeatable), the setup that carries the load (serving: --users/--rate with\n"
    "--ttft-p99/--tpot-p99) or the job (training: --task train --tokens T --gpus N|--deadline D),\n"
    "times each deployment (cloud, bare metal, owned; data/prices.json), costed over the horizon,\n"
    "checked against a data profile (data/compliance.json) and ranked. SCENARIO.json holds the\n"
    "same flags as keys (docs/scenario.md); flags given after it override it. Without a file or\n"
    "--model, runs the built-in example (Llama-3.1-70B, 300 users, health data in Brazil, 36\n"
    "months, BRL), refined by any flags given (gpuplan plan --format html --lang pt-BR).\n\n"
    "Flags:\n";

/* --export DIR: the recommended option's launch files (gp_result_plan_export, docs/export.md). */
static int export_winner(cli_common *common, const char *dir, const gp_result *r, const gp_catalog *cat)
{
    gp_export_files files;
    gp_error err;
    gp_status st = gp_result_plan_export(cat, r, -1, &files, &err);
    int rc = st == GP_OK
                 ? cli_write_files(common, "plan", dir, &files, common->json ? NULL : cli_err(common), "gpuplan: ")
             : st == GP_ENOTFOUND ? (fprintf(cli_err(common), "gpuplan: plan: %s\n", err.msg), EXIT_INPUT)
                                  : cli_error(common, &err);
    gp_export_files_free(&files);
    return rc;
}

/* The scenario file (or the built-in example) into sc; EXIT_* code. */
static int read_scenario(cli_common *common, const char *path, gp_scenario *sc)
{
    const char *text = gp_scenario_example();
    size_t len = strlen(text);
    char *buf = NULL;
    gp_error err;
    if (path) {
        FILE *f = fopen(path, "rb");
        buf = f ? malloc(CLI_SCENARIO_MAX + 1) : NULL;
        len = buf ? fread(buf, 1, CLI_SCENARIO_MAX + 1, f) : 0;
        if (f)
            fclose(f);
        if (!buf || len > CLI_SCENARIO_MAX) {
            free(buf);
            fprintf(cli_err(common), "gpuplan: plan: cannot read %s: %s\n", path,
                    buf ? "larger than 1 MiB" : strerror(errno));
            return EXIT_INPUT;
        }
        text = buf;
    }
    gp_status st = gp_scenario_parse_json(sc, text, len, path ? path : "built-in example", GP_SRC_FILE, &err);
    free(buf);
    return st == GP_OK ? EXIT_OK : cli_error(common, &err);
}

/* Does the command line name a model (then the built-in example is not the base)? */
static int names_model(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--model", 7) || !strcmp(argv[i], "-m") || !strncmp(argv[i], "--layers", 8) ||
            !strncmp(argv[i], "--help", 6) || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

/* Print (or write) the answer in the format asked; --export writes the winner's files. */
static int output(cli_common *common, const gp_result *r, const gp_catalog *cat)
{
    const gp_scenario *sc = gp_result_scenario(r);
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    int json = common->json || !strcmp(sc->format, "json");
    gp_status st = json ? gp_result_json(r, &text, &len, &err) : gp_result_report(r, &text, &len, &err);
    if (st != GP_OK)
        return cli_error(common, &err);
    int rc = sc->export_dir[0] ? export_winner(common, sc->export_dir, r, cat) : EXIT_OK;
    if (rc == EXIT_OK && sc->out[0])
        rc = cli_write_file(common, "plan", sc->out, text, len, 0);
    else if (rc == EXIT_OK)
        fwrite(text, 1, len, stdout);
    gp_text_free(text);
    return rc;
}

int cmd_plan(int argc, char **argv, cli_common *common)
{
    gp_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return cli_usage_error(common, "plan", "out of memory");
    gp_scenario_init(sc, GP_CMD_PLAN);
    int file = argc > 1 && argv[1][0] != '-', rc = EXIT_OK, help = 0, n_pos = 0;
    if (file || !names_model(argc, argv))
        rc = read_scenario(common, file ? argv[1] : NULL, sc);
    if (rc == EXIT_OK) { /* flags after the file override it */
        argv[file] = argv[0];
        rc = cli_parse_flags(common, "plan", argc - file, argv + file, sc, &help, NULL, 0, &n_pos);
    }
    gp_catalog *cat = rc == EXIT_OK && !help ? cli_catalog(common) : NULL;
    if (help)
        cli_print_help(plan_help, GP_CMD_PLAN);
    else if (rc == EXIT_OK && !cat)
        rc = EXIT_INPUT;
    else if (rc == EXIT_OK && (rc = cli_apply_profile(common, cat, sc)) != EXIT_OK)
        ;
    else if (rc == EXIT_OK) {
        gp_run_ctx ctx;
        cli_run_ctx(&ctx);
        cli_progress progress;
        cli_progress_start(&progress, common, "plan");
        cli_progress_wire(&progress, &ctx);
        gp_result *r = NULL;
        gp_error err;
        gp_status st = gp_plan_run(cat, sc, &ctx, &r, &err);
        cli_progress_end(&progress, st == GP_OK);
        rc = st == GP_OK ? output(common, r, cat) : cli_run_error(common, "plan", &err);
        gp_result_free(r);
    }
    free(sc);
    return rc;
}
