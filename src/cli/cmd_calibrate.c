/*
 * cmd_calibrate.c: gpuplan calibrate RUNS... --out PROFILE.json (docs/calibration.md).
 * Thin: the flags become the defaults for what the logs do not say, gp_calibrate_run does
 * the work, and the result is printed.
 */
#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CAL_MAX_FILES 256

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

static const char *use_name(int use) { return use == GP_CAL_TRAIN ? "train" : use == GP_CAL_SERVE ? "serve" : "collective"; }

static void pct(char *buf, size_t n, double x)
{
    if (isfinite(x))
        snprintf(buf, n, "%.1f%%", 100.0 * x);
    else
        snprintf(buf, n, "n/a");
}

static void print_group(const gp_calibrate_group *g)
{
    char b1[16], b2[16], b3[16], b4[16];
    if (g->use == 3) {
        printf("%s, collectives (%d run%s):", g->gpu, g->runs, g->runs == 1 ? "" : "s");
        if (g->fitted[0])
            printf(" bus bandwidth inside a node x%.3f", g->value[0]);
        if (g->fitted[1])
            printf(" across nodes x%.3f", g->value[1]);
        printf("\n");
        return;
    }
    printf("%s, %s %s%s%s (%d run%s):\n", g->gpu, use_name(g->use), gp_dtype_name(g->dtype),
           g->use == GP_CAL_SERVE ? " " : "", g->use == GP_CAL_SERVE ? gp_engine_name((gp_engine)g->engine) : "", g->runs,
           g->runs == 1 ? "" : "s");
    for (int p = 0; p < GP_CALP_COUNT; p++)
        if (g->fitted[p])
            printf("  %-16s %.4g (replaces %.4g)%s\n", gp_cal_param_name((gp_cal_param)p), g->value[p], g->replaces[p],
                   g->at_bound[p] ? "  at its physical bound" : "");
    pct(b1, sizeof b1, g->err_before), pct(b2, sizeof b2, g->err_after);
    pct(b3, sizeof b3, g->loo_before), pct(b4, sizeof b4, g->loo_after);
    printf("  median error: %s before, %s after; leave-one-out: %s before, %s after\n", b1, b2, b3, b4);
}

static void print_result(const gp_calibrate_result *r, const char *out)
{
    printf("calibrated on %d of %d runs read\n\n", r->runs_used, r->runs_read);
    for (int k = 0; k < r->n_groups; k++)
        print_group(&r->groups[k]);
    if (r->n_residuals)
        printf("\n%-40s %-22s %12s %9s %9s\n", "run", "figure", "measured", "before", "after");
    for (int i = 0; i < r->n_residuals; i++) {
        const gp_calibrate_residual *x = &r->residuals[i];
        printf("%-40.40s %-22s %12.4g %+8.1f%% %+8.1f%%\n", x->id, x->quantity, x->measured,
               100.0 * (x->before / x->measured - 1.0), 100.0 * (x->after / x->measured - 1.0));
    }
    for (int i = 0; i < r->n_warnings; i++)
        printf("%swarning: %s\n", i ? "" : "\n", r->warnings[i]);
    if (out)
        printf("\nprofile written to %s: use it with --profile %s\n", out, out);
    else
        printf("\n(no --out: nothing written)\n");
}

/* --key value / --key=value for a scenario key: into the defaults object. */
static int add_default(cli_common *common, json_t *defs, const char *name, const char *value)
{
    const gp_scenario_key *k = gp_scenario_key_find(name);
    if (!k || k->type == GP_KEY_BOOL)
        return cli_usage_error(common, "calibrate", "unknown option '--%s'", name);
    if (!value)
        return cli_usage_error(common, "calibrate", "--%s needs a value", name);
    char *end;
    double v = strtod(value, &end);
    json_t *j = (k->type == GP_KEY_INT && *value && !*end && v == floor(v)) ? json_integer((json_int_t)v)
                : (k->type == GP_KEY_NUMBER && *value && !*end)            ? json_real(v)
                                                                          : json_string(value);
    char key[64];
    snprintf(key, sizeof key, "%s", k->name);
    json_object_set_new(defs, key, j);
    return 0;
}

static int parse_args(int argc, char **argv, cli_common *common, gp_calibrate_opts *o, const char **files, json_t *defs)
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
    json_t *defs = json_object();
    int rc = parse_args(argc, argv, common, &o, files, defs);
    if (rc) {
        json_decref(defs);
        return rc < 0 ? EXIT_OK : rc;
    }
    o.paths = files;
    char *dtext = json_dumps(defs, JSON_COMPACT);
    json_decref(defs);
    o.defaults_json = dtext;
    gp_catalog *cat = cli_catalog(common);
    if (!cat) {
        free(dtext);
        return EXIT_INPUT;
    }
    gp_calibrate_result *r = calloc(1, sizeof *r);
    gp_error err;
    cli_progress progress;
    cli_progress_start(&progress, common, "calibrate");
    if (progress.on) {
        o.progress = cli_progress_report;
        o.progress_arg = &progress;
    }
    gp_status st = r ? gp_calibrate_run(cat, &o, r, &err) : GP_ENOMEM;
    cli_progress_end(&progress, st == GP_OK);
    free(dtext);
    if (st != GP_OK) {
        rc = r ? cli_error(common, &err) : EXIT_INPUT;
    } else if (common->json) {
        json_t *doc = json_loads(r->profile_json, 0, NULL);
        rc = cli_print_json(common, doc);
    } else {
        print_result(r, o.out_path);
        rc = EXIT_OK;
    }
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

static void print_bench(const gp_bench_result *r)
{
    printf("%d x %s (catalog: %s)\n\n", r->devices, r->device_name, r->gpu_id);
    for (int i = 0; i < r->n_points; i++) {
        const gp_bench_point *p = &r->points[i];
        if (!strcmp(p->what, "gemm"))
            printf("  GEMM %-5s %6.0f x %6.0f x %6.0f  %8.1f TFLOP/s\n", gp_dtype_name(p->dtype), p->m, p->n, p->k, p->value);
        else
            printf("  %-10s %10.0f MiB          %8.1f GB/s%s\n", p->what, p->bytes / 1048576.0, p->value,
                   strcmp(p->what, "memcpy") ? " bus" : " (read + write)");
    }
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
    o.progress_ctx = common->err ? common->err : stderr;
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
            fprintf(common->err ? common->err : stderr, "gpuplan: cannot write %s\n", out);
            rc = EXIT_INPUT;
        }
        if (f && fclose(f) != 0)
            rc = EXIT_INPUT;
        if (rc != EXIT_OK)
            remove(out);
    }
    if (rc == EXIT_OK && common->json)
        rc = cli_print_json(common, json_loads(r->profile_json, 0, NULL));
    else if (rc == EXIT_OK) {
        print_bench(r);
        if (out)
            printf("\nprofile written to %s: use it with --profile %s\n", out, out);
    }
    gp_bench_result_free(r);
    free(r);
    return rc;
}
