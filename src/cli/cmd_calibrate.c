/*
 * cmd_calibrate.c: gpuplan calibrate RUNS... --out PROFILE.json (docs/calibration.md).
 * Thin: the flags become the defaults for what the logs do not say, gp_calibrate_run does
 * the work, and the result is printed.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#define CAL_MAX_FILES    256
#define CAL_MAX_DEFAULTS 64

static const char calibrate_help[] =
    "usage: gpuplan calibrate RUNS... [--out PROFILE.json] [--model M --gpu G --gpus N ...]\n\n"
    "Reads measured runs (JSON Lines or CSV in gpuplan's form, Megatron-LM/NeMo and torchtitan\n"
    "logs, vllm bench serve results, trtllm-bench output, nccl-tests output), predicts each,\n"
    "fits the fewest physical parameters that explain them, and writes a profile that\n"
    "--profile applies to every command. Any scenario key given as a flag (--model, --gpu,\n"
    "--gpus, --tp, --seq, --dtype, --engine, ...) fills in what a log does not say.\n\n"
    "  --out FILE         write the profile there (only on success)\n"
    "  --max-params N     parameters per entry at most (2)\n"
    "  --json             the profile and the errors as JSON\n"
    "  --data-dir DIR     user data files\n";

/* The defaults given as flags: scenario keys and their text, typed by the library. */
typedef struct cal_defaults {
    const char *keys[CAL_MAX_DEFAULTS], *values[CAL_MAX_DEFAULTS];
    size_t n;
} cal_defaults;

/* --key value / --key=value for a scenario key: into the defaults. */
static int add_default(cli_common *common, cal_defaults *defs, const char *name, const char *value)
{
    const gp_scenario_key *k = gp_scenario_key_find(name);
    if (!k || k->type == GP_KEY_BOOL)
        return cli_usage_error(common, "calibrate", "unknown option '--%s'", name);
    if (!value)
        return cli_usage_error(common, "calibrate", "--%s needs a value", name);
    if (defs->n >= CAL_MAX_DEFAULTS)
        return cli_usage_error(common, "calibrate", "at most %d scenario keys", CAL_MAX_DEFAULTS);
    defs->keys[defs->n] = k->name;
    defs->values[defs->n++] = value;
    return 0;
}

static int parse_args(int argc, char **argv, cli_common *common, gp_calibrate_opts *o, const char **files,
                      cal_defaults *defs)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0) {
            if (o->n_paths >= CAL_MAX_FILES)
                return cli_usage_error(common, "calibrate", "at most %d run files", CAL_MAX_FILES);
            files[o->n_paths++] = a;
            continue;
        }
        char name[64];
        const char *eq = strchr(a + 2, '=');
        size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
        snprintf(name, sizeof name, "%.*s", (int)(len < 63 ? len : 63), a + 2);
        const char *val = eq ? eq + 1 : NULL;
        if (!strcmp(name, "help")) {
            fputs(calibrate_help, stdout);
            return -1;
        }
        if (!strcmp(name, "json")) {
            common->json = 1;
            continue;
        }
        if (!val && i + 1 < argc)
            val = argv[++i];
        if (!val)
            return cli_usage_error(common, "calibrate", "--%s needs a value", name);
        if (!strcmp(name, "out"))
            o->out_path = val;
        else if (!strcmp(name, "data-dir"))
            common->data_dir = val;
        else if (!strcmp(name, "max-params")) {
            int64_t n;
            if (cli_parse_i64(common, "calibrate", "max-params", val, 1, 2, &n))
                return EXIT_USAGE;
            o->max_params = (int)n;
        } else if (add_default(common, defs, name, val))
            return EXIT_USAGE;
    }
    if (o->n_paths == 0)
        return cli_usage_error(common, "calibrate", "give the files of measured runs");
    return 0;
}

int cmd_calibrate(int argc, char **argv, cli_common *common)
{
    gp_calibrate_opts o;
    memset(&o, 0, sizeof o);
    const char *files[CAL_MAX_FILES];
    cal_defaults defs = {.n = 0};
    int rc = parse_args(argc, argv, common, &o, files, &defs);
    if (rc)
        return rc < 0 ? EXIT_OK : rc;
    o.paths = files;
    o.default_keys = defs.keys;
    o.default_values = defs.values;
    o.n_defaults = defs.n;
    gp_catalog *cat = cli_catalog(common);
    gp_calibrate_result *r = cat ? calloc(1, sizeof *r) : NULL;
    if (!r)
        return EXIT_INPUT;
    gp_error err;
    cli_progress progress;
    cli_progress_start(&progress, common, "calibrate");
    if (progress.on) {
        o.progress = cli_progress_report;
        o.progress_arg = &progress;
    }
    gp_status st = gp_calibrate_run(cat, &o, r, &err);
    cli_progress_end(&progress, st == GP_OK);
    char *text = NULL;
    size_t len = 0;
    if (st == GP_OK)
        st = common->json ? gp_profile_json(r->profile_json, &text, &len, &err)
                          : gp_calibrate_text(r, o.out_path, &text, &len, &err);
    rc = st == GP_OK ? cli_print_text(text, len) : cli_error(common, &err);
    gp_calibrate_result_free(r);
    free(r);
    return rc;
}

/* ---- gpuplan probe --bench ------------------------------------------------------------- */

static void bench_progress(void *ctx, const char *step, int done, int total)
{
    FILE *f = ctx;
    fprintf(f, "\rgpuplan probe --bench: [%2d/%2d] %-20s", done + 1 > total ? total : done + 1, total, step);
    if (done + 1 >= total)
        fputc('\n', f);
    fflush(f);
}

int cli_probe_bench_opt(int i, const char *arg, int *bench, const char **out, const char *libs[3])
{
    if (i == 0)
        *bench = 1;
    else if (i == 1)
        *out = arg;
    else
        libs[i - 2] = arg;
    return 1;
}

int cli_probe_bench(cli_common *common, gp_catalog *cat, const char *const libs[3], const char *out)
{
    gp_bench_opts o;
    memset(&o, 0, sizeof o);
    o.cudart_path = libs[0];
    o.cublaslt_path = libs[1];
    o.nccl_path = libs[2];
    o.progress = bench_progress;
    o.progress_ctx = cli_err(common);
    gp_bench_result *r = calloc(1, sizeof *r);
    gp_error err;
    if (!r)
        return EXIT_INPUT;
    int rc = EXIT_OK;
    if (gp_bench_run(cat, &o, r, &err) != GP_OK)
        rc = cli_error(common, &err);
    if (rc == EXIT_OK && out) {
        FILE *f = fopen(out, "w");
        if (!f || fputs(r->profile_json, f) < 0 || fputc('\n', f) == EOF) {
            fprintf(cli_err(common), "gpuplan: cannot write %s\n", out);
            rc = EXIT_INPUT;
        }
        if (f && fclose(f) != 0)
            rc = EXIT_INPUT;
        if (rc != EXIT_OK)
            remove(out);
    }
    char *text = NULL;
    size_t len = 0;
    if (rc == EXIT_OK && (common->json ? gp_profile_json(r->profile_json, &text, &len, &err)
                                       : gp_bench_text(r, out, &text, &len, &err)) != GP_OK)
        rc = cli_error(common, &err);
    else if (rc == EXIT_OK)
        cli_print_text(text, len);
    gp_bench_result_free(r);
    free(r);
    return rc;
}
