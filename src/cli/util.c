/* util.c: errors, number parsing, formatting and output for the CLI. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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

static FILE *err_stream(cli_common *common)
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
    fprintf(err_stream(common), "gpuplan: %s\n", gp_catalog_profile_note(cat));
    return EXIT_OK;
}

int cli_error(cli_common *common, const gp_error *err)
{
    FILE *f = err_stream(common);
    fprintf(f, "gpuplan: %s\n", err->msg[0] ? err->msg : gp_status_str(err->code));
    if (err->field[0] && !strstr(err->msg, err->field))
        fprintf(f, "  (field: %s)\n", err->field);
    if (err->offset >= 0 && err->line == 0 && !strstr(err->msg, "offset"))
        fprintf(f, "  (at byte offset %lld)\n", (long long)err->offset);
    return EXIT_INPUT;
}

int cli_usage_error(cli_common *common, const char *cmd, const char *fmt, ...)
{
    FILE *f = err_stream(common);
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

int cli_print_json(cli_common *common, json_t *v)
{
    if (!v) {
        fprintf(err_stream(common), "gpuplan: out of memory building JSON\n");
        return EXIT_INPUT;
    }
    json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    fputc('\n', stdout);
    json_decref(v);
    return EXIT_OK;
}

const char *cli_fmt_count(char *buf, size_t n, int64_t v)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%lld", (long long)(v < 0 ? -v : v));
    size_t len = strlen(digits), o = 0;
    if (v < 0 && o + 1 < n)
        buf[o++] = '-';
    for (size_t i = 0; i < len && o + 1 < n; i++) {
        if (i && (len - i) % 3 == 0 && o + 1 < n)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

const char *cli_fmt_si(char *buf, size_t n, double v)
{
    const char *unit[] = {"", "K", "M", "B", "T", "P"};
    int i = 0;
    while (fabs(v) >= 1000.0 && i < 5) {
        v /= 1000.0;
        i++;
    }
    snprintf(buf, n, i ? "%.2f %s" : "%.0f%s", v, unit[i]);
    return buf;
}

const char *cli_fmt_bytes(char *buf, size_t n, double bytes)
{
    if (bytes < 1e6)
        snprintf(buf, n, "%.1f KiB", bytes / 1024.0);
    else if (bytes < 1e9)
        snprintf(buf, n, "%.1f MB (%.1f MiB)", bytes / 1e6, bytes / 1048576.0);
    else
        snprintf(buf, n, "%.1f GB (%.1f GiB)", bytes / 1e9, bytes / 1073741824.0);
    return buf;
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

int cli_print_result_json(cli_common *common, const gp_result *r)
{
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    if (gp_result_json(r, &text, &len, &err) != GP_OK)
        return cli_error(common, &err);
    return cli_print_text(text, len);
}

const char *cli_nvml_path(const char *given)
{
    if (given && *given)
        return given;
    const char *env = getenv("GPUPLAN_NVML_LIB");
    return env && *env ? env : NULL;
}
