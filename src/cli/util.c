/* util.c: errors, number parsing, formatting and JSON output for the CLI. */
#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int cli_common_opt(int opt, const char *arg, cli_common *common)
{
    switch (opt) {
    case 'J': common->json = 1; return 1;
    case 'D': common->data_dir = arg; return 1;
    case 'A': common->allow_large = 1; return 1;
    default: return 0;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cli_progress(void *ctx, double done, double limit)
{
    cli_common *c = ctx;
    double t = now_s() - c->work_start_s;
    if (t >= 1.0 && t - c->work_printed_s >= 1.0) {
        c->work_printed_s = t;
        fprintf(c->err ? c->err : stderr, "gpuplan: working, %.0f s: %.3g of at most %.3g units of work (%.0f%%)\n", t,
                done, limit, 100.0 * done / limit);
    }
    return 0;
}

gp_work *cli_work(cli_common *common)
{
    gp_work_init(&common->work, common->allow_large);
    if (!common->capture) {
        common->work.progress = cli_progress;
        common->work.progress_ctx = common;
        common->work_start_s = now_s();
        common->work_printed_s = 0;
    }
    return &common->work;
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
        cli_usage_error(common, cmd, "--%s takes a whole number from %lld to %lld, not '%s'", flag,
                        (long long)min, (long long)max, s ? s : "");
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(cli_common *common, const char *cmd, const char *flag, const char *s, double min, double max,
                     double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s ? s : "", &end);
    if (!s || !*s || *end || errno || !isfinite(v) || v < min || v > max) {
        cli_usage_error(common, cmd, "--%s takes a number from %g to %g, not '%s'", flag, min, max, s ? s : "");
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
    if (common && common->capture) { /* the web server takes the document itself */
        json_decref(common->result);
        common->result = v;
        return EXIT_OK;
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

/* ---- numbers with unit suffixes: one table per kind ---- */

typedef struct suffix_row {
    char suffix;       /* case-insensitive; '\0' for none */
    double multiplier;
} suffix_row;

static const suffix_row token_suffixes[] = {
    {'\0', 1}, {'k', 1e3}, {'m', 1e6}, {'b', 1e9}, {'g', 1e9}, {'t', 1e12}, {'p', 1e15}};
static const suffix_row duration_suffixes[] = {
    {'\0', 1}, {'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};

static int parse_scaled(const char *s, const suffix_row *rows, size_t n, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s ? s : "", &end);
    if (!s || end == s || errno || !isfinite(v) || v <= 0)
        return -1;
    if (*end && end[1])
        return -1; /* one suffix letter at most */
    for (size_t i = 0; i < n; i++) {
        if (tolower((unsigned char)*end) == rows[i].suffix) {
            v *= rows[i].multiplier;
            if (v > max)
                return -1;
            *out = v;
            return 0;
        }
    }
    return -1;
}

int cli_parse_tokens(const char *s, double *out)
{
    return parse_scaled(s, token_suffixes, sizeof token_suffixes / sizeof token_suffixes[0], 1e18, out);
}

int cli_parse_duration(const char *s, double *out)
{
    return parse_scaled(s, duration_suffixes, sizeof duration_suffixes / sizeof duration_suffixes[0], 1e12, out);
}

int cli_parse_redundancy(const char *s, int *out)
{
    if (!s)
        return -1;
    if (!strcmp(s, "none") || !strcmp(s, "n") || !strcmp(s, "0")) {
        *out = 0;
        return 0;
    }
    if ((s[0] == 'n' || s[0] == 'N') && s[1] == '+' && s[2] >= '0' && s[2] <= '9' && !s[3]) {
        *out = s[2] - '0';
        return 0;
    }
    if (s[0] >= '0' && s[0] <= '9' && !s[1]) {
        *out = s[0] - '0';
        return 0;
    }
    return -1;
}
