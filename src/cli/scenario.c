/*
 * scenario.c: flags -> a gp_scenario, through the library's key table: every key a command
 * takes is a long flag (the key with '-' for '_'), so flags, scenario files and the web API
 * are one vocabulary (docs/scenario.md). Also the shared path of the question commands: parse,
 * run, report an error.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define CLI_OPT_BASE 1000

typedef struct cli_optset {
    struct option opts[GP_SCENARIO_MAX_KEYS + 4];
    char names[GP_SCENARIO_MAX_KEYS][64];
} cli_optset;

/* The getopt table of a command: its keys, then --json, --data-dir, --help. */
static void build_opts(unsigned command, cli_optset *o)
{
    size_t n = 0;
    for (size_t i = 0; i < gp_scenario_key_count() && n < GP_SCENARIO_MAX_KEYS; i++) {
        const gp_scenario_key *k = gp_scenario_key_at(i);
        if (!(k->commands & command))
            continue;
        snprintf(o->names[n], sizeof o->names[n], "%s", k->name);
        for (char *p = o->names[n]; *p; p++)
            if (*p == '_')
                *p = '-';
        int arg = k->type != GP_KEY_BOOL      ? required_argument
                  : k->flags & GP_KEYF_OPTARG ? optional_argument
                                              : no_argument;
        o->opts[n] = (struct option){o->names[n], arg, NULL, CLI_OPT_BASE + (int)i};
        n++;
    }
    o->opts[n++] = (struct option){"json", no_argument, NULL, 'J'};
    o->opts[n++] = (struct option){"data-dir", required_argument, NULL, 'D'};
    o->opts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    o->opts[n] = (struct option){NULL, 0, NULL, 0};
}

/* One option getopt returned; EXIT_* code. */
static int take(cli_common *common, const char *cmd, int c, const char *arg, gp_scenario *sc, char **argv, int *help)
{
    const gp_scenario_key *k = NULL;
    if (c == 'h') {
        *help = 1;
        return EXIT_OK;
    }
    if (c == ':')
        return cli_usage_error(common, cmd, "option '%s' needs a value", argv[optind - 1]);
    if (c == '?')
        return cli_usage_error(common, cmd, "unknown option '%s'", argv[optind - 1]);
    if (cli_common_opt(c, arg, common))
        return EXIT_OK;
    if (c == 'm')
        k = gp_scenario_key_find("model");
    else if (c == 'g')
        k = gp_scenario_key_find("gpu");
    else if (c >= CLI_OPT_BASE)
        k = gp_scenario_key_at((size_t)(c - CLI_OPT_BASE));
    if (!k)
        return cli_usage_error(common, cmd, "unknown option '%s'", argv[optind - 1]);
    gp_error err;
    if (gp_scenario_set(sc, k, arg, GP_SRC_FLAG, &err) != GP_OK)
        return cli_usage_error(common, cmd, "%s", err.msg);
    return EXIT_OK;
}

int cli_parse_flags(cli_common *common, const char *cmd, int argc, char **argv, gp_scenario *sc, int *help,
                    const char **pos, int max_pos, int *n_pos)
{
    cli_optset *o = malloc(sizeof *o);
    if (!o)
        return cli_usage_error(common, cmd, "out of memory");
    build_opts(sc->command, o);
    optind = 1;
    opterr = 0;
    int c, rc = EXIT_OK;
    *n_pos = 0;
    /* '+' is not used: positional arguments may come anywhere (gnu order) */
    while (rc == EXIT_OK && !*help && (c = getopt_long(argc, argv, ":hm:g:", o->opts, NULL)) != -1)
        rc = take(common, cmd, c, optarg, sc, argv, help);
    for (int i = optind; rc == EXIT_OK && !*help && i < argc; i++) {
        if (*n_pos >= max_pos)
            rc = cli_usage_error(common, cmd, "unexpected argument '%s'", argv[i]);
        else
            pos[(*n_pos)++] = argv[i];
    }
    free(o);
    return rc;
}

void cli_print_help(const char *intro, unsigned command)
{
    size_t n = gp_scenario_help(command, NULL, 0);
    char *buf = malloc(n + 1);
    printf("%s", intro);
    if (buf) {
        gp_scenario_help(command, buf, n + 1);
        fputs(buf, stdout);
        free(buf);
    }
    printf("  %-26s %s\n  %-26s %s\n", "--json", "machine-readable output on stdout", "--data-dir DIR",
           "JSON files overriding the built-in data/*.json");
}

void cli_run_ctx(gp_run_ctx *ctx)
{
    gp_run_ctx_defaults(ctx);
    ctx->nvml_path = cli_nvml_path(NULL);
}

int cli_run_question(cli_common *common, const char *cmd, int argc, char **argv, const char *help_text, gp_result **out)
{
    *out = NULL;
    gp_scenario *sc = malloc(sizeof *sc);
    if (!sc)
        return cli_usage_error(common, cmd, "out of memory");
    gp_scenario_init(sc, gp_command_parse(cmd));
    int help = 0, n_pos = 0;
    int rc = cli_parse_flags(common, cmd, argc, argv, sc, &help, NULL, 0, &n_pos);
    if (rc == EXIT_OK && help) {
        cli_print_help(help_text, sc->command);
        free(sc);
        return -1; /* help printed: the caller returns EXIT_OK */
    }
    gp_catalog *cat = rc == EXIT_OK ? cli_catalog(common) : NULL;
    if (rc == EXIT_OK && !cat)
        rc = EXIT_INPUT;
    if (rc == EXIT_OK)
        rc = cli_apply_profile(common, cat, sc);
    if (rc == EXIT_OK) {
        gp_run_ctx ctx;
        cli_run_ctx(&ctx);
        cli_progress progress;
        cli_progress_start(&progress, common, cmd);
        cli_progress_wire(&progress, &ctx);
        gp_error err;
        gp_status st = gp_run(cat, sc, &ctx, out, &err);
        cli_progress_end(&progress, st == GP_OK);
        if (st != GP_OK)
            rc = cli_run_error(common, cmd, &err);
    }
    free(sc);
    return rc;
}

int cli_answer(cli_common *common, const char *cmd, int argc, char **argv, const char *help_text)
{
    gp_result *r = NULL;
    int rc = cli_run_question(common, cmd, argc, argv, help_text, &r);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    gp_status st = common->json ? gp_result_json(r, &text, &len, &err) : gp_result_text(r, &text, &len, &err);
    gp_result_free(r);
    return st == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
}
