/* util.c: errors, number parsing, formatting and output for the CLI. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cli_common_opt(int opt, const char *arg, cli_common *common)
{
    switch (opt) {
    case 'J': common->json = 1; return 1;
    case 'D': common->data_dir = arg; return 1;
    default: return 0;
    }
}

gp_catalog *cli_catalog(cli_common *common)
{
    if (common->cat)
        return common->cat;
    gp_error err;
    if (gp_catalog_open(common->data_dir, &common->cat, &err) != GP_OK) {
        cli_error(common, &err);
        return NULL;
    }
    return common->cat;
}

FILE *cli_err(cli_common *common)
{
    return common && common->err ? common->err : stderr;
}

int cli_apply_profile(cli_common *common, gp_catalog *cat, const gp_scenario *sc)
{
    if (!cat || !sc || !gp_scenario_has(sc, "profile"))
        return EXIT_OK;
    gp_error err;
    if (gp_catalog_apply_profile(cat, sc->profile, &err) != GP_OK)
        return cli_error(common, &err);
    fprintf(cli_err(common), "gpuplan: %s\n", gp_catalog_profile_note(cat));
    return EXIT_OK;
}

int cli_error(cli_common *common, const gp_error *err)
{
    FILE *f = cli_err(common);
    fprintf(f, "gpuplan: %s\n", err->msg[0] ? err->msg : gp_status_str(err->code));
    if (err->field[0] && !strstr(err->msg, err->field))
        fprintf(f, "  (field: %s)\n", err->field);
    if (err->offset >= 0 && err->line == 0 && !strstr(err->msg, "offset"))
        fprintf(f, "  (at byte offset %lld)\n", (long long)err->offset);
    return EXIT_INPUT;
}

int cli_usage_error(cli_common *common, const char *cmd, const char *fmt, ...)
{
    FILE *f = cli_err(common);
    va_list ap;
    fprintf(f, "gpuplan %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fprintf(f, "\n(see 'gpuplan %s --help')\n", cmd);
    return EXIT_USAGE;
}

int cli_parse_i64(cli_common *common, const char *cmd, const char *flag, const char *s, int64_t min, int64_t max,
                  int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s ? s : "", &end, 10);
    if (!s || !*s || *end || errno || v < min || v > max) {
        cli_usage_error(common, cmd, "--%s takes a whole number from %lld to %lld, not '%s'", flag, (long long)min,
                        (long long)max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_run_error(cli_common *common, const char *cmd, const gp_error *err)
{
    if (err->code == GP_EUSAGE)
        return cli_usage_error(common, cmd, "%s", err->msg);
    return cli_error(common, err);
}

int cli_print_text(char *text, size_t len)
{
    fwrite(text, 1, len, stdout);
    gp_text_free(text);
    return EXIT_OK;
}

const char *cli_nvml_path(const char *given)
{
    if (given && *given)
        return given;
    const char *env = getenv("GPUPLAN_NVML_LIB");
    return env && *env ? env : NULL;
}

int cli_write_file(cli_common *common, const char *cmd, const char *path, const char *data, size_t len, int exec)
{
    FILE *f = fopen(path, "wb");
    int bad = !f || fwrite(data, 1, len, f) != len;
    if ((f && fclose(f)) || bad) {
        fprintf(cli_err(common), "gpuplan: %s: cannot write %s: %s\n", cmd, path, strerror(errno));
        return EXIT_INPUT;
    }
    if (exec)
        chmod(path, 0755);
    return EXIT_OK;
}

int cli_write_files(cli_common *common, const char *cmd, const char *dir, const gp_export_files *f, FILE *announce,
                    const char *prefix)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(cli_err(common), "gpuplan: %s: cannot create %s: %s\n", cmd, dir, strerror(errno));
        return EXIT_INPUT;
    }
    for (int i = 0; i < f->n; i++) {
        char path[4096];
        int n = snprintf(path, sizeof path, "%s/%s", dir, f->files[i].name);
        if (n < 0 || (size_t)n >= sizeof path) {
            fprintf(cli_err(common), "gpuplan: %s: path too long under %s\n", cmd, dir);
            return EXIT_INPUT;
        }
        int rc = cli_write_file(common, cmd, path, f->files[i].content, f->files[i].len, f->files[i].executable);
        if (rc != EXIT_OK)
            return rc;
        if (announce)
            fprintf(announce, "%swrote %s\n", prefix, path);
    }
    return EXIT_OK;
}
