/*
 * main.c: gpuplan's command-line entry point: a table of subcommands, each with its own
 * getopt_long table (cmd_*.c). Exit codes: 0 success, 1 bad input, 2 bad usage.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int cmd_help(int argc, char **argv, cli_common *common);
static int cmd_version(int argc, char **argv, cli_common *common);

static const cli_command commands[] = {
    {"model", cmd_model, "what a model is: parameters, bytes, KV cache per token, FLOPs (show, list)"},
    {"fit", cmd_fit, "memory per GPU for a workload and layout; one GPU or several, and why"},
    {"train", cmd_train, "training step time, TFLOP/s, MFU, time to train; the layout search"},
    {"gpus", cmd_gpus, "the GPU catalog: memory, bandwidth, peak TFLOP/s, links"},
    {"serve", cmd_serve, "serving latency, throughput and the cheapest setup under latency targets"},
    {"plan", cmd_plan, "the whole decision: options ranked with cost, data rules and a report"},
    {"export", cmd_export, "launch commands and config files for an engine (vLLM ... Megatron, Slurm)"},
    {"table", cmd_table, "the classic sizing table: 8B/13B/70B/405B, rules of thumb vs gpuplan"},
    {"web", cmd_web, "local web page and JSON API (127.0.0.1:8080)"},
    {"probe", cmd_probe, "the GPUs of this machine (NVML) and their catalog entries"},
    {"calibrate", cmd_calibrate, "fit a profile of this cluster's rates on its own measured runs (--profile)"},
    {"version", cmd_version, "print the version"},
    {"help", cmd_help, "list the commands"},
};

static int cmd_version(int argc, char **argv, cli_common *common)
{
    (void)argc, (void)argv;
    if (common->json) {
        char *text = NULL;
        size_t len = 0;
        gp_error err;
        return gp_version_json(&text, &len, &err) == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
    }
    printf("gpuplan %s\n", GP_VERSION_STRING);
    return EXIT_OK;
}

static void print_commands(FILE *f)
{
    fprintf(f, "usage: gpuplan COMMAND [OPTIONS]    (gpuplan COMMAND --help for its options)\n\n"
               "gpuplan answers: does this model, with this workload, fit on one GPU, and if not,\n"
               "how many, of which kind, split how, at what speed and cost.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nevery command takes --json (machine-readable output), --data-dir DIR\n"
               "(JSON files overriding the built-in data/*.json) and --profile FILE (a calibration\n"
               "profile from 'gpuplan calibrate' or 'probe --bench'). With no command, gpuplan\n"
               "runs its built-in example: serving Llama-3.1-70B to 300 users under health-data\n"
               "rules in Brazil, ranked with costs in BRL ('gpuplan plan').\n");
}

static int cmd_help(int argc, char **argv, cli_common *common)
{
    (void)argc, (void)argv, (void)common;
    print_commands(stdout);
    return EXIT_OK;
}

/* The built-in example: the whole decision for the headline question (plan's example). */
static int run_default(cli_common *common)
{
    char *argv[] = {"plan", NULL};
    printf("gpuplan %s: built-in example, 'gpuplan plan' (run 'gpuplan help' for every command)\n\n",
           GP_VERSION_STRING);
    return cmd_plan(1, argv, common);
}

int main(int argc, char **argv)
{
    cli_common common = {0};
    const char *env_dir = getenv("GPUPLAN_DATA_DIR");
    if (env_dir && *env_dir)
        common.data_dir = env_dir;
    int rc;
    if (argc < 2) {
        rc = run_default(&common);
    } else if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_commands(stdout);
        rc = EXIT_OK;
    } else if (strcmp(argv[1], "--version") == 0) {
        rc = cmd_version(0, NULL, &common);
    } else {
        const cli_command *cmd = NULL;
        for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
            if (strcmp(argv[1], commands[i].name) == 0)
                cmd = &commands[i];
        if (!cmd) {
            fprintf(stderr, "gpuplan: unknown command '%s'\n\n", argv[1]);
            print_commands(stderr);
            rc = EXIT_USAGE;
        } else
            rc = cmd->run(argc - 1, argv + 1, &common);
    }
    gp_catalog_free(common.cat);
    return rc;
}
