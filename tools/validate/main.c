/*
 * main.c: gpuplan-validate, the accuracy harness beside the gpuplan command. It reads the
 * published measurements of validation/(name).jsonl (every file of the directory, or the files
 * and directories given with --cases), maps each case to gpuplan's inputs, predicts it with
 * libgpuplan, prints each case's error and a summary per category, and with --out writes
 * the Markdown report (docs/validation.md). Exit codes: 0 success, 1 bad input, 2 bad usage.
 */
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EXIT_INPUT        1
#define EXIT_USAGE        2
#define GPV_MAX_PATHS     64
#define GPV_DEFAULT_CASES "validation"

typedef struct vopts {
    const char *paths[GPV_MAX_PATHS];
    int npaths;
    const char *categories[GPV_MAX_PATHS]; /* --category: only these (none: every category) */
    int ncategories;
    const char *out, *data_dir;
    int json, loso;
} vopts;

static const char usage[] =
    "usage: gpuplan-validate [--cases FILE|DIR]... [--category NAME]... [--loso] [--out FILE.md] [--json]\n"
    "                        [--data-dir DIR]\n\n"
    "Maps the published measurements in the validation cases (JSON Lines; a directory means its\n"
    "*.jsonl files; default: ./validation) to gpuplan, prints each case's error and a summary per\n"
    "category (median, 90th percentile and worst absolute error), and with --out writes the\n"
    "Markdown report (docs/validation.md). --loso adds leave-one-source-out figures: each\n"
    "source predicted with the model's fitted constants refitted on the other sources only.\n"
    "--category NAME keeps only that category's cases (train_throughput, infer_throughput, ...).\n"
    "--data-dir DIR overrides the built-in data/*.json.\n";

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "gpuplan-validate: %s%s\n\n%s", what, arg, usage);
    return EXIT_USAGE;
}

/* 0 on success, else the exit code (help printed: -1). */
static int parse_args(int argc, char **argv, vopts *o)
{
    static const struct option opts[] = {
        {"cases", required_argument, NULL, 'c'},    {"out", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, 'j'},           {"data-dir", required_argument, NULL, 'd'},
        {"loso", no_argument, NULL, 'l'},           {"help", no_argument, NULL, 'h'},
        {"category", required_argument, NULL, 'k'}, {0, 0, 0, 0}};
    memset(o, 0, sizeof *o);
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "hc:o:", opts, NULL)) != -1) {
        switch (c) {
        case 'h': printf("%s", usage); return -1;
        case 'c':
            if (o->npaths == GPV_MAX_PATHS)
                return usage_error("more than 64 --cases paths (give a directory)", "");
            o->paths[o->npaths++] = optarg;
            break;
        case 'o': o->out = optarg; break;
        case 'j': o->json = 1; break;
        case 'd': o->data_dir = optarg; break;
        case 'l': o->loso = 1; break;
        case 'k':
            if (o->ncategories == GPV_MAX_PATHS)
                return usage_error("more than 64 --category names", "");
            o->categories[o->ncategories++] = optarg;
            break;
        default: return usage_error("unknown option or missing value: ", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return usage_error("unexpected argument: ", argv[optind]);
    for (int i = 0; i < o->ncategories; i++) {
        int known = 0;
        for (int k = 0; k < GPV_NCATEGORIES && !known; k++)
            known = strcmp(o->categories[i], gpv_categories[k]) == 0;
        if (!known)
            return usage_error("unknown --category (train_throughput, infer_throughput, infer_memory, train_memory, "
                               "finetune_memory): ",
                               o->categories[i]);
    }
    if (o->npaths == 0)
        o->paths[o->npaths++] = GPV_DEFAULT_CASES;
    return 0;
}

static const gpv_model *const models[] = {
    &gpv_model_infer_memory,     &gpv_model_train_memory,     &gpv_model_finetune_memory,
    &gpv_model_train_throughput, &gpv_model_infer_throughput,
};
#define NMODELS ((int)(sizeof models / sizeof models[0]))

/* Every case predicted with the shipped constants of its category's model. */
static void predict_all(const gp_catalog *cat, json_t *cases, vrows *rs)
{
    size_t i;
    json_t *cs;
    json_array_foreach(cases, i, cs)
    {
        const char *name = json_string_value(json_object_get(cs, "category"));
        for (int k = 0; name && k < NMODELS; k++) {
            if (strcmp(name, models[k]->category))
                continue;
            double v[GPV_MAX_PARAMS] = {0};
            if (models[k]->nparams > 0)
                models[k]->defaults(cat, v);
            models[k]->predict(cat, cs, v, rs);
        }
    }
}

static int blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Read one JSON Lines file; every case must be a JSON object. */
static int read_file(const char *path, json_t *cases)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "gpuplan-validate: cannot open the validation cases '%s': %s (give --cases FILE|DIR)\n", path,
                strerror(errno));
        return EXIT_INPUT;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (getline(&line, &cap, f) > 0) {
        lineno++;
        if (blank(line))
            continue;
        json_error_t jerr;
        json_t *cs = json_loads(line, 0, &jerr);
        if (!json_is_object(cs)) {
            fprintf(stderr, "gpuplan-validate: %s:%d:%d: %s\n", path, lineno, cs ? 1 : jerr.column,
                    cs ? "a case must be a JSON object" : jerr.text);
            json_decref(cs);
            rc = EXIT_INPUT;
            break;
        }
        if (json_array_append_new(cases, cs)) {
            rc = EXIT_INPUT;
            break;
        }
    }
    free(line);
    fclose(f);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every *.jsonl of a directory, in name order. */
static int read_dir(const char *dir, json_t *cases)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "gpuplan-validate: cannot read the directory '%s': %s\n", dir, strerror(errno));
        return EXIT_INPUT;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && !rc;) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".jsonl") || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            char **grown = realloc(names, (cap = cap ? 2 * cap : 16) * sizeof *names);
            if (!grown)
                rc = EXIT_INPUT;
            else
                names = grown;
        }
        if (!rc && !(names[n] = malloc(strlen(dir) + len + 2)))
            rc = EXIT_INPUT;
        if (!rc)
            sprintf(names[n++], "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (!rc && n == 0) {
        fprintf(stderr, "gpuplan-validate: no *.jsonl files in '%s'\n", dir);
        rc = EXIT_INPUT;
    }
    if (names)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        if (!rc)
            rc = read_file(names[i], cases);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* Whether a case belongs to a category --category asked for (every case without one). */
static int wanted(const vopts *o, json_t *c)
{
    const char *cat = json_string_value(json_object_get(c, "category"));
    for (int i = 0; i < o->ncategories; i++)
        if (cat && strcmp(cat, o->categories[i]) == 0)
            return 1;
    return o->ncategories == 0;
}

static int read_cases(const vopts *o, json_t *cases)
{
    for (int i = 0; i < o->npaths; i++) {
        struct stat st;
        int rc = stat(o->paths[i], &st) == 0 && S_ISDIR(st.st_mode) ? read_dir(o->paths[i], cases)
                                                                    : read_file(o->paths[i], cases);
        if (rc)
            return rc;
    }
    for (size_t i = json_array_size(cases); i-- > 0;)
        if (!wanted(o, json_array_get(cases, i)))
            json_array_remove(cases, i);
    return 0;
}

static int write_outputs(const vopts *o, const vrows *rs, const vloso *l, int cases)
{
    if (o->out) {
        FILE *md = fopen(o->out, "w");
        if (!md) {
            fprintf(stderr, "gpuplan-validate: cannot write '%s': %s\n", o->out, strerror(errno));
            return EXIT_INPUT;
        }
        vreport_markdown(rs, l, md, cases);
        if (fclose(md) != 0) {
            fprintf(stderr, "gpuplan-validate: error writing '%s'\n", o->out);
            return EXIT_INPUT;
        }
    }
    if (!o->json) {
        vreport_text(rs, l, stdout);
        return EXIT_SUCCESS;
    }
    json_t *doc = vreport_json(rs, l);
    if (!doc) {
        fprintf(stderr, "gpuplan-validate: out of memory building JSON\n");
        return EXIT_INPUT;
    }
    json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(doc);
    return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
    vopts o;
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? EXIT_SUCCESS : rc;
    gp_catalog *cat = NULL;
    gp_error err;
    if (gp_catalog_open(o.data_dir, &cat, &err) != GP_OK) {
        fprintf(stderr, "gpuplan-validate: %s\n", err.msg[0] ? err.msg : gp_status_str(err.code));
        return EXIT_INPUT;
    }
    vrows rs = {0};
    vloso loso = {0};
    json_t *cases = json_array();
    rc = cases ? read_cases(&o, cases) : EXIT_INPUT;
    if (!rc)
        predict_all(cat, cases, &rs);
    if (!rc && o.loso && vloso_run(cat, models, NMODELS, cases, &loso))
        rc = EXIT_INPUT;
    if (!rc && (rs.oom || loso.rows.oom)) {
        fprintf(stderr, "gpuplan-validate: out of memory storing the rows\n");
        rc = EXIT_INPUT;
    }
    if (!rc)
        rc = write_outputs(&o, &rs, o.loso ? &loso : NULL, (int)json_array_size(cases));
    json_decref(cases);
    vloso_free(&loso);
    vrows_free(&rs);
    gp_catalog_free(cat);
    return rc;
}
