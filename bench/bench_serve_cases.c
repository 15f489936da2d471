/*
 * bench_serve_cases.c: the serving step model and simulator (on the measured rates of
 * data/kernels.json, as the capacity search runs them) against published throughput
 * measurements: validation/serve_trtllm.jsonl, serve_amd_mi300x.jsonl, the TensorRT-LLM rows
 * of public.jsonl, and the SGLang multi-node decode rows. A working tool, not the project's
 * validation harness (tools/validate/ is): it prints each case and the error per group
 * (source, precision, MoE vs dense) as median |error|, p90 |error| and median signed error.
 *
 * The mapping of each case (trtllm-bench with its own batch limits, AMD's vLLM table) is
 * tools/validate/serve_cases.c, the harness's; docs/serving.md ("Checks against published
 * serving runs") explains it. Parameters are the product's for the engine and layout (the
 * engine profile's overheads and host work), not the harness's leave-one-source-out refits.
 * Usage: bench_serve_cases [--verbose] FILE.jsonl...
 */
#include "internal.h"
#include "serve_cases.h" /* tools/validate/: the mapping the accuracy harness uses */

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROWS   2048
#define MAX_GROUPS 64

typedef struct row {
    char group[96];
    double err; /* predicted / measured - 1 */
} row;

static row rows[MAX_ROWS];
static int n_rows;

static int has(const char *s, const char *sub)
{
    return s && sub && strstr(s, sub) != NULL;
}

static void add(const char *id, const char *group, double meas, double pred, int verbose)
{
    if (isnan(pred) || !(meas > 0) || n_rows >= MAX_ROWS)
        return;
    row *r = &rows[n_rows++];
    snprintf(r->group, sizeof r->group, "%s", group);
    r->err = pred / meas - 1.0;
    if (verbose)
        printf("%-60s %-34s meas %9.0f pred %9.0f %+6.1f%%\n", id, group, meas, pred, 100 * r->err);
}

static void case_one(const gp_catalog *cat, json_t *c, const char *file, int verbose)
{
    gpv_serve_run r;
    if (!gpv_serve_run_map(cat, c, &r))
        return;
    gpi_perf_params pp;
    gpv_serve_run_params(&r, &pp); /* the product's parameters for the engine and layout */
    char group[96];
    const char *src = r.bench == GPV_BENCH_VLLM_AMD ? "amd-vllm" : has(file, "public") ? "trtllm-public" : "trtllm-v1";
    snprintf(group, sizeof group, "%s %s %s", src, gp_dtype_name(r.w.dtype), r.m.experts > 0 ? "moe" : "dense");
    add(json_string_value(json_object_get(c, "id")), group, r.measured, gpv_serve_run_predict(cat, &r, &pp), verbose);
}

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmpd);
    double k = p * (n - 1);
    int i = (int)k;
    return i + 1 < n ? v[i] + (v[i + 1] - v[i]) * (k - i) : v[n - 1];
}

static void summary(const char *name, int (*in)(const row *, const char *), const char *key)
{
    static double a[MAX_ROWS], s[MAX_ROWS];
    int n = 0;
    for (int i = 0; i < n_rows; i++)
        if (in(&rows[i], key)) {
            a[n] = fabs(rows[i].err);
            s[n++] = rows[i].err;
        }
    if (n)
        printf("%-36s %4d  median %5.1f%%  p90 %5.1f%%  signed %+6.1f%%\n", name, n, 100 * pct(a, n, 0.5),
               100 * pct(a, n, 0.9), 100 * pct(s, n, 0.5));
}

static int in_group(const row *r, const char *k)
{
    return strcmp(r->group, k) == 0;
}
static int in_word(const row *r, const char *k)
{
    return k[0] == '\0' || strstr(r->group, k) != NULL;
}

int main(int argc, char **argv)
{
    gp_catalog *cat;
    gp_error err;
    int verbose = 0;
    if (gp_catalog_open(NULL, &cat, &err)) {
        fprintf(stderr, "bench_serve_cases: %s\n", err.msg);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--verbose")) {
            verbose = 1;
            continue;
        }
        json_error_t je;
        FILE *f = fopen(argv[i], "r");
        char line[16384];
        while (f && fgets(line, sizeof line, f)) {
            json_t *c = json_loads(line, 0, &je);
            if (c && !strcmp(json_string_value(json_object_get(c, "category"))
                                 ? json_string_value(json_object_get(c, "category"))
                                 : "",
                             "infer_throughput"))
                case_one(cat, c, argv[i], verbose);
            json_decref(c);
        }
        if (f)
            fclose(f);
    }
    char seen[MAX_GROUPS][96];
    int ns = 0;
    for (int i = 0; i < n_rows; i++) {
        int k = 0;
        while (k < ns && strcmp(seen[k], rows[i].group))
            k++;
        if (k == ns && ns < MAX_GROUPS)
            memcpy(seen[ns++], rows[i].group, sizeof rows[i].group);
    }
    for (int k = 0; k < ns; k++)
        summary(seen[k], in_group, seen[k]);
    static const char *const words[] = {"trtllm-public", "trtllm-v1", "amd-vllm", "bf16", "fp8",
                                        "fp4",           "mxfp4",     " moe",     "dense"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
        summary(words[k], in_word, words[k]);
    summary("all", in_word, "");
    gp_catalog_free(cat);
    return 0;
}
