/*
 * runs.c: the run set, the format detector and the helpers every reader shares.
 *
 * A file's format is found from its content (docs/calibration.md): a measured log says what
 * tool wrote it in lines no other tool prints ("elapsed time per iteration (ms)" for
 * Megatron-LM, "PERFORMANCE OVERVIEW" for trtllm-bench, an "algbw"/"busbw" header for
 * nccl-tests, "tps:" with "tflops:" for torchtitan); JSON is a vLLM result when its top level
 * has "output_throughput", JSON Lines otherwise; a first line with a "command" column is CSV.
 */
#include "calibrate/runs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct run_slot {
    gpi_measured_run run;
    char *scenario_text; /* owned; run.scenario_json points here */
} run_slot;

struct gpi_runset {
    run_slot *runs;
    size_t n, cap;
    json_t *defaults; /* the caller's defaults for the file being read, or NULL */
};

gpi_runset *gpi_runset_new(void)
{
    return calloc(1, sizeof(gpi_runset));
}

void gpi_runset_free(gpi_runset *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        free(set->runs[i].scenario_text);
    free(set->runs);
    json_decref(set->defaults);
    free(set);
}

size_t gpi_runset_count(const gpi_runset *set)
{
    return set ? set->n : 0;
}

const gpi_measured_run *gpi_runset_get(const gpi_runset *set, size_t i)
{
    return set && i < set->n ? &set->runs[i].run : NULL;
}

size_t gpi_runset_mark(const gpi_runset *set)
{
    return set->n;
}

void gpi_runset_rollback(gpi_runset *set, size_t mark)
{
    while (set->n > mark)
        free(set->runs[--set->n].scenario_text);
}

const char *gpi_run_format_name(gpi_run_format f)
{
    switch (f) {
    case GPI_RUNFMT_JSONL: return "jsonl";
    case GPI_RUNFMT_CSV: return "csv";
    case GPI_RUNFMT_MEGATRON: return "megatron-log";
    case GPI_RUNFMT_TORCHTITAN: return "torchtitan-log";
    case GPI_RUNFMT_VLLM_BENCH: return "vllm-bench-json";
    case GPI_RUNFMT_TRTLLM_BENCH: return "trtllm-bench";
    case GPI_RUNFMT_NCCL_TESTS: return "nccl-tests";
    case GPI_RUNFMT_SERVE_TEXT: return "serving-benchmark-text";
    }
    return "unknown";
}

const char *gpi_collective_op_name(gpi_collective_op op)
{
    switch (op) {
    case GPI_COLLECTIVE_ALL_REDUCE: return "all_reduce";
    case GPI_COLLECTIVE_ALL_GATHER: return "all_gather";
    case GPI_COLLECTIVE_REDUCE_SCATTER: return "reduce_scatter";
    case GPI_COLLECTIVE_ALL_TO_ALL: return "alltoall";
    case GPI_COLLECTIVE_UNKNOWN: break;
    }
    return "unknown";
}

gp_status gpi_runs_fail(gp_error *err, const char *name, int line, const char *field, gp_status code, const char *fmt,
                        ...)
{
    if (!err)
        return code;
    char msg[GP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (line > 0)
        gpi_fail(err, code, "%s:%d: %s", name, line, msg);
    else
        gpi_fail(err, code, "%s: %s", name, msg);
    gpi_error_set_path(err, name);
    err->line = line;
    if (field)
        gpi_error_set_field(err, field);
    return code;
}

void gpi_run_init(gpi_measured_run *r, gpi_run_kind kind, gpi_run_format format, int line)
{
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->format = format;
    r->line = line;
    r->model_tflops_per_gpu = r->hw_tflops_per_gpu = r->mfu = NAN;
    r->tokens_per_s_per_gpu = r->step_time_s = NAN;
    r->output_tokens_per_s = r->total_tokens_per_s = r->ttft_p50_s = r->tpot_p50_s = NAN;
    r->request_rate_per_s = INFINITY;
}

/* Fill the keys the scenario lacks from the defaults. */
static int apply_defaults(json_t *scenario, const json_t *defaults)
{
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)defaults, key, v)
    {
        if (!json_object_get(scenario, key) && json_object_set(scenario, key, v) != 0)
            return -1;
    }
    return 0;
}

gp_status gpi_runset_add(gpi_runset *set, gpi_measured_run *r, json_t *scenario, const char *name, gp_error *err)
{
    gp_status st = gpi_run_check_ranges(r, name, err);
    if (st != GP_OK) {
        json_decref(scenario);
        return st;
    }
    if (set->n >= GPI_RUNS_MAX_RUNS) {
        json_decref(scenario);
        return gpi_runs_fail(err, name, r->line, NULL, GP_ELIMIT, "more than %d runs in one set", GPI_RUNS_MAX_RUNS);
    }
    if (set->n == set->cap) {
        size_t cap = set->cap ? set->cap * 2 : 16;
        run_slot *p = realloc(set->runs, cap * sizeof *p);
        if (!p) {
            json_decref(scenario);
            return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
        }
        set->runs = p;
        set->cap = cap;
    }
    char *text = NULL;
    if (set->defaults && apply_defaults(scenario, set->defaults) == 0)
        text = json_dumps(scenario, JSON_COMPACT | JSON_SORT_KEYS);
    else if (!set->defaults)
        text = json_dumps(scenario, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(scenario);
    if (!text)
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    if (!r->id[0])
        snprintf(r->id, sizeof r->id, "%.80s:%d", name, r->line);
    run_slot *slot = &set->runs[set->n++];
    slot->run = *r;
    slot->scenario_text = text;
    slot->run.scenario_json = text;
    return GP_OK;
}

/* ---- lines and numbers ---- */

void gpi_lines_init(gpi_lines *it, const char *text, size_t len)
{
    it->p = text;
    it->end = text + len;
    it->no = 0;
}

int gpi_lines_next(gpi_lines *it, gpi_line *out)
{
    if (it->p >= it->end)
        return 0;
    const char *nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
    const char *stop = nl ? nl : it->end;
    out->s = it->p;
    out->len = (size_t)(stop - it->p);
    if (out->len && out->s[out->len - 1] == '\r')
        out->len--;
    out->no = ++it->no;
    it->p = nl ? nl + 1 : it->end;
    return 1;
}

const char *gpi_memstr(const char *s, size_t len, const char *needle)
{
    size_t m = strlen(needle);
    if (m == 0 || m > len)
        return m == 0 ? s : NULL;
    for (size_t i = 0; i + m <= len; i++)
        if (s[i] == needle[0] && memcmp(s + i, needle, m) == 0)
            return s + i;
    return NULL;
}

int gpi_number_after(const gpi_line *ln, const char *label, double *out)
{
    const char *at = gpi_memstr(ln->s, ln->len, label);
    if (!at)
        return 0;
    const char *p = at + strlen(label), *end = ln->s + ln->len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == ':'))
        p++;
    char buf[64];
    size_t k = 0;
    for (; p < end && k + 1 < sizeof buf; p++) {
        if (*p == ',' && k > 0 && p + 1 < end && isdigit((unsigned char)p[1]))
            continue; /* thousands separator: "10,050" */
        if (!(isdigit((unsigned char)*p) || *p == '.' || *p == '-' || *p == '+' || *p == 'e' || *p == 'E'))
            break;
        buf[k++] = *p;
    }
    buf[k] = '\0';
    if (k == 0)
        return 0;
    char *stop;
    errno = 0;
    double v = strtod(buf, &stop);
    if (stop == buf || *stop != '\0' || errno == ERANGE || !isfinite(v))
        return 0;
    *out = v;
    return 1;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double gpi_median(double *xs, size_t n)
{
    if (n == 0)
        return NAN;
    qsort(xs, n, sizeof *xs, cmp_double);
    return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

int gpi_samples_push(gpi_samples *s, double x)
{
    if (s->n >= GPI_RUNS_MAX_SAMPLES)
        return -1;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 64;
        double *p = realloc(s->v, cap * sizeof *p);
        if (!p)
            return -1;
        s->v = p;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return 0;
}

void gpi_samples_free(gpi_samples *s)
{
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

double gpi_samples_steady_median(gpi_samples *s)
{
    if (s->n == 0)
        return NAN;
    size_t skip = s->n >= 3 ? (s->n / 10 > 1 ? s->n / 10 : 1) : 0;
    return gpi_median(s->v + skip, s->n - skip);
}

/* ---- detection ---- */

static int first_line_has_command_column(const char *text, size_t len)
{
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    if (!gpi_lines_next(&it, &ln))
        return 0;
    return ln.len > 0 && memchr(ln.s, ',', ln.len) && gpi_memstr(ln.s, ln.len, "command");
}

static const char *skip_space_and_comments(const char *p, const char *end)
{
    if (end - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF)
        p += 3; /* UTF-8 byte-order mark */
    for (;;) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p >= end || *p != '#')
            return p;
        const char *nl = memchr(p, '\n', (size_t)(end - p)); /* a "# comment" line */
        p = nl ? nl + 1 : end;
    }
}

/* Which reader a text is for; NULL when none recognises it. */
static gp_status (*detect(const char *text, size_t len))(gpi_runset *, const char *, const char *, size_t, gp_error *)
{
    const char *p = skip_space_and_comments(text, text + len);
    size_t rest = (size_t)(text + len - p);
    if (rest && *p == '{') {
        gpi_lines it;
        gpi_line ln;
        memset(&ln, 0, sizeof ln);
        gpi_lines_init(&it, p, rest);
        gpi_lines_next(&it, &ln); /* rest > 0: there is a first line */
        int one_line_object = ln.len > 1 && gpi_memstr(ln.s, ln.len, "\"measured\"") != NULL;
        if (!one_line_object && gpi_memstr(p, rest, "\"output_throughput\""))
            return gpi_runs_vllm;
        return gpi_runs_jsonl;
    }
    if (gpi_memstr(text, len, "elapsed time per iteration (ms)"))
        return gpi_runs_megatron;
    if (gpi_memstr(text, len, "PERFORMANCE OVERVIEW") && gpi_memstr(text, len, "Request Throughput (req/sec)"))
        return gpi_runs_trtllm;
    if (gpi_memstr(text, len, "Serving Benchmark Result") && gpi_memstr(text, len, "Output token throughput (tok/s):"))
        return gpi_runs_serve_text;
    if (gpi_memstr(text, len, "algbw") && gpi_memstr(text, len, "busbw"))
        return gpi_runs_nccl;
    if (gpi_memstr(text, len, "tps:") && gpi_memstr(text, len, "tflops:") && gpi_memstr(text, len, "step:"))
        return gpi_runs_torchtitan;
    if (first_line_has_command_column(text, len))
        return gpi_runs_csv;
    return NULL;
}

static gp_status set_defaults(gpi_runset *set, const char *name, const char *defaults_json, gp_error *err)
{
    json_decref(set->defaults);
    set->defaults = NULL;
    if (!defaults_json)
        return GP_OK;
    json_error_t jerr;
    json_t *d = json_loads(defaults_json, 0, &jerr);
    if (!d || !json_is_object(d)) {
        json_decref(d);
        return gpi_runs_fail(err, name, 0, NULL, GP_EINVAL,
                             "the defaults for this file must be a JSON object of scenario keys");
    }
    set->defaults = d;
    return GP_OK;
}

gp_status gpi_runset_parse(gpi_runset *set, const char *name, const char *text, size_t len, const char *defaults_json,
                           gp_error *err)
{
    if (!set || !text)
        return gpi_fail(err, GP_EINVAL, "gpi_runset_parse: no run set or no text");
    if (!name)
        name = "(input)";
    if (len > GPI_RUNS_MAX_FILE)
        return gpi_runs_fail(err, name, 0, NULL, GP_ELIMIT, "%zu bytes is over the %u-byte limit for a run file", len,
                             GPI_RUNS_MAX_FILE);
    gp_status (*reader)(gpi_runset *, const char *, const char *, size_t, gp_error *) = detect(text, len);
    if (!reader)
        return gpi_runs_fail(
            err, name, 0, NULL, GP_EUNSUPPORTED,
            "not a format gpuplan reads: expected JSON Lines with \"command\" and \"measured\", "
            "a CSV with a \"command\" column, a Megatron-LM, NeMo or torchtitan log, a "
            "`vllm bench serve` result (JSON or its printed block), trtllm-bench output or nccl-tests output");
    gp_status st = set_defaults(set, name, defaults_json, err);
    if (st != GP_OK)
        return st;
    size_t mark = gpi_runset_mark(set);
    st = reader(set, name, text, len, err);
    if (st == GP_OK && gpi_runset_mark(set) == mark)
        st = gpi_runs_fail(err, name, 0, NULL, GP_EPARSE, "no measured run found in the file");
    if (st != GP_OK)
        gpi_runset_rollback(set, mark);
    json_decref(set->defaults);
    set->defaults = NULL;
    return st;
}

gp_status gpi_runset_read(gpi_runset *set, const char *path, const char *defaults_json, gp_error *err)
{
    if (!set || !path)
        return gpi_fail(err, GP_EINVAL, "gpi_runset_read: no run set or no path");
    uint8_t *bytes = NULL;
    size_t len = 0;
    uint64_t size = 0;
    gp_status st = gpi_read_file_prefix(path, GPI_RUNS_MAX_FILE + 1u, &bytes, &len, &size, err);
    if (st != GP_OK)
        return st;
    if (size > GPI_RUNS_MAX_FILE) {
        free(bytes);
        return gpi_runs_fail(err, path, 0, NULL, GP_ELIMIT,
                             "the file has %llu bytes, over the %u-byte limit for a run file", (unsigned long long)size,
                             GPI_RUNS_MAX_FILE);
    }
    st = gpi_runset_parse(set, path, (const char *)bytes, len, defaults_json, err);
    free(bytes);
    return st;
}
