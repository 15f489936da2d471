/*
 * runs_table.c: runs written by hand or by a script: JSON Lines (one scenario document a line,
 * with "command" and "measured") and CSV (one run a row, the same keys as columns).
 *
 * The measured keys and the range each must lie in (a figure outside it is a typo or a unit
 * mix-up, and is refused with the key named):
 */
#include "calibrate/runs_impl.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct measured_key {
    const char *name;
    gpi_run_kind kind;
    size_t offset;   /* of the double in gpi_measured_run */
    double min, max; /* exclusive min, inclusive max */
} measured_key;

#define MK(n, k, lo, hi)                                                                                               \
    {                                                                                                                  \
#n, k, offsetof(gpi_measured_run, n), lo, hi                                                                   \
    }
static const measured_key measured_keys[] = {
    /* 1e5 TFLOP/s per GPU is 40x a B200's dense FP4 peak: above it is a unit error */
    MK(model_tflops_per_gpu, GPI_RUN_TRAIN, 0, 1e5),
    MK(hw_tflops_per_gpu, GPI_RUN_TRAIN, 0, 1e5),
    MK(mfu, GPI_RUN_TRAIN, 0, 1),
    MK(tokens_per_s_per_gpu, GPI_RUN_TRAIN, 0, 1e9),
    MK(step_time_s, GPI_RUN_TRAIN, 0, 1e7),
    MK(output_tokens_per_s, GPI_RUN_SERVE, 0, 1e9),
    MK(total_tokens_per_s, GPI_RUN_SERVE, 0, 1e9),
    MK(ttft_p50_s, GPI_RUN_SERVE, 0, 1e5),
    MK(tpot_p50_s, GPI_RUN_SERVE, 0, 1e3),
};
#undef MK
#define N_MEASURED (sizeof measured_keys / sizeof measured_keys[0])

static const measured_key *find_measured(const char *key)
{
    for (size_t i = 0; i < N_MEASURED; i++)
        if (strcmp(measured_keys[i].name, key) == 0)
            return &measured_keys[i];
    return NULL;
}

gp_status gpi_run_set_measured(gpi_measured_run *r, const char *key, double v, const char *name, int line,
                               gp_error *err)
{
    const measured_key *mk = find_measured(key);
    if (!mk)
        return gpi_runs_fail(err, name, line, key, GP_EINVAL,
                             "unknown measured key '%s' (training: model_tflops_per_gpu, hw_tflops_per_gpu, mfu, "
                             "tokens_per_s_per_gpu, step_time_s; serving: output_tokens_per_s, "
                             "total_tokens_per_s, ttft_p50_s, tpot_p50_s)",
                             key);
    if (mk->kind != r->kind)
        return gpi_runs_fail(err, name, line, key, GP_EINVAL, "'%s' is a %s figure, but the run is a %s run", key,
                             mk->kind == GPI_RUN_TRAIN ? "training" : "serving",
                             r->kind == GPI_RUN_TRAIN ? "training" : "serving");
    if (!isfinite(v) || v <= mk->min || v > mk->max)
        return gpi_runs_fail(err, name, line, key, GP_EINVAL, "'%s' = %g is outside (%g, %g]", key, v, mk->min,
                             mk->max);
    *(double *)((char *)r + mk->offset) = v;
    return GP_OK;
}

gp_status gpi_run_check_ranges(const gpi_measured_run *r, const char *name, gp_error *err)
{
    for (size_t i = 0; i < N_MEASURED; i++) {
        const measured_key *mk = &measured_keys[i];
        double v = *(const double *)((const char *)r + mk->offset);
        if (!isnan(v) && (!isfinite(v) || v <= mk->min || v > mk->max))
            return gpi_runs_fail(err, name, r->line, mk->name, GP_EINVAL, "'%s' = %g is outside (%g, %g]", mk->name, v,
                                 mk->min, mk->max);
    }
    for (int i = 0; i < r->points; i++)
        if (!(r->bytes[i] > 0) || !(r->busbw_gbps[i] >= 0) || !isfinite(r->busbw_gbps[i]))
            return gpi_runs_fail(err, name, r->line, "busbw", GP_EINVAL,
                                 "a bus bandwidth row is not a positive size "
                                 "with a finite bandwidth");
    return GP_OK;
}

static gp_status parse_command(const char *cmd, gpi_run_kind *kind, const char *name, int line, gp_error *err)
{
    if (cmd && strcmp(cmd, "train") == 0)
        *kind = GPI_RUN_TRAIN;
    else if (cmd && strcmp(cmd, "serve") == 0)
        *kind = GPI_RUN_SERVE;
    else
        return gpi_runs_fail(err, name, line, "command", GP_EINVAL, "\"command\" must be \"train\" or \"serve\"%s%s%s",
                             cmd ? " (not \"" : "", cmd ? cmd : "", cmd ? "\")" : "");
    return GP_OK;
}

/* A serving run's offered load: the scenario's "rate" when it has one, else saturating. */
static gp_status take_rate(gpi_measured_run *r, json_t *scenario, const char *name, int line, gp_error *err)
{
    json_t *rate = json_object_get(scenario, "rate");
    if (!rate || r->kind != GPI_RUN_SERVE)
        return GP_OK;
    if (json_is_string(rate) && strcmp(json_string_value(rate), "inf") == 0)
        return GP_OK;
    double v = json_number_value(rate);
    if (!json_is_number(rate) || !(v > 0) || !isfinite(v))
        return gpi_runs_fail(err, name, line, "rate", GP_EINVAL, "\"rate\" must be a positive number or \"inf\"");
    r->request_rate_per_s = v;
    return GP_OK;
}

static gp_status take_id(gpi_measured_run *r, json_t *v, const char *name, int line, gp_error *err)
{
    if (!v)
        return GP_OK;
    if (!json_is_string(v) || strlen(json_string_value(v)) >= GP_RUN_ID_MAX)
        return gpi_runs_fail(err, name, line, "id", GP_EINVAL, "\"id\" must be a string of under %d characters",
                             GP_RUN_ID_MAX);
    gpi_strlcpy(r->id, json_string_value(v), sizeof r->id);
    return GP_OK;
}

/* A scenario value is a number, a string, true/false or a flat list of those. */
static int scenario_value_ok(json_t *v)
{
    if (json_is_array(v)) {
        size_t i;
        json_t *e;
        json_array_foreach(v, i, e)
        {
            if (json_is_array(e) || json_is_object(e) || json_is_null(e))
                return 0;
        }
        return 1;
    }
    return !json_is_object(v) && !json_is_null(v);
}

/* One run from an object holding command, id, measured and scenario keys (steals obj). */
static gp_status run_from_object(gpi_runset *set, json_t *obj, json_t *measured, gpi_run_format fmt, const char *name,
                                 int line, gp_error *err)
{
    gpi_measured_run r;
    gpi_run_kind kind = GPI_RUN_TRAIN;
    json_t *cmd = json_object_get(obj, "command");
    gp_status st = parse_command(json_string_value(cmd), &kind, name, line, err);
    gpi_run_init(&r, kind, fmt, line);
    if (st == GP_OK)
        st = take_id(&r, json_object_get(obj, "id"), name, line, err);
    const char *key;
    json_t *v;
    json_object_foreach(measured, key, v)
    {
        if (st != GP_OK)
            break;
        if (!json_is_number(v))
            st = gpi_runs_fail(err, name, line, key, GP_EINVAL, "measured '%s' must be a number", key);
        else
            st = gpi_run_set_measured(&r, key, json_number_value(v), name, line, err);
    }
    if (st == GP_OK && json_object_size(measured) == 0)
        st = gpi_runs_fail(err, name, line, "measured", GP_EINVAL, "the run has no measured figure");
    json_object_del(obj, "command");
    json_object_del(obj, "id");
    json_object_del(obj, "measured");
    json_object_foreach(obj, key, v)
    {
        int inline_model = !strcmp(key, "model") && json_is_object(v); /* a config.json object */
        if (st == GP_OK && !inline_model && !scenario_value_ok(v))
            st = gpi_runs_fail(err, name, line, key, GP_EINVAL,
                               "scenario key '%s' must be a number, a string, true/false or a list of those", key);
    }
    if (st == GP_OK)
        st = take_rate(&r, obj, name, line, err);
    if (st != GP_OK) {
        json_decref(obj);
        return st;
    }
    return gpi_runset_add(set, &r, obj, name, err);
}

static int blank(const gpi_line *ln)
{
    for (size_t i = 0; i < ln->len; i++)
        if (!isspace((unsigned char)ln->s[i]))
            return ln->s[i] == '#' ? 1 : 0; /* a comment line counts as blank */
    return 1;
}

gp_status gpi_runs_jsonl(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    while (gpi_lines_next(&it, &ln)) {
        if (blank(&ln))
            continue;
        if (ln.len > GPI_RUNS_MAX_LINE)
            return gpi_runs_fail(err, name, ln.no, NULL, GP_ELIMIT, "a line of %zu bytes (the limit is %u)", ln.len,
                                 GPI_RUNS_MAX_LINE);
        json_error_t jerr;
        json_t *obj = json_loadb(ln.s, ln.len, 0, &jerr);
        if (!obj || !json_is_object(obj)) {
            gp_status st = gpi_runs_fail(err, name, ln.no, NULL, GP_EPARSE, "%s",
                                         obj ? "a line must be a JSON object" : jerr.text);
            if (err && !obj)
                err->column = jerr.column;
            json_decref(obj);
            return st;
        }
        json_t *measured = json_incref(json_object_get(obj, "measured"));
        gp_status st = GP_OK;
        if (!json_is_object(measured))
            st = gpi_runs_fail(err, name, ln.no, "measured", GP_EINVAL,
                               "each line needs a \"measured\" object (e.g. {\"mfu\": 0.41})");
        if (st == GP_OK)
            st = run_from_object(set, obj, measured, GPI_RUNFMT_JSONL, name, ln.no, err);
        else
            json_decref(obj);
        json_decref(measured);
        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

/* ---- CSV (RFC 4180: quoted fields with "" for a quote; no newlines inside fields) ---- */

typedef struct csv_row {
    char *cells[GPI_RUNS_MAX_COLUMNS];
    int n;
    char buf[GPI_RUNS_MAX_LINE + 1];
} csv_row;

static int csv_split(const gpi_line *ln, csv_row *row)
{
    size_t k = 0, i = 0;
    row->n = 0;
    while (i <= ln->len) {
        if (row->n >= GPI_RUNS_MAX_COLUMNS)
            return -1;
        row->cells[row->n++] = row->buf + k;
        int quoted = i < ln->len && ln->s[i] == '"';
        i += (size_t)quoted;
        for (; i < ln->len; i++) {
            char c = ln->s[i];
            if (quoted && c == '"') {
                if (i + 1 < ln->len && ln->s[i + 1] == '"') {
                    row->buf[k++] = '"';
                    i++;
                    continue;
                }
                quoted = 0;
                continue;
            }
            if (!quoted && c == ',')
                break;
            row->buf[k++] = c;
        }
        if (quoted)
            return -2;
        row->buf[k++] = '\0';
        i++; /* past the comma (or the end) */
    }
    return 0;
}

/* A CSV cell as a JSON value: a number, true/false, or a string; NULL for an empty cell. */
static json_t *csv_value(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    if (!*s)
        return NULL;
    if (strcmp(s, "true") == 0)
        return json_true();
    if (strcmp(s, "false") == 0)
        return json_false();
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (end != s && *end == '\0' && errno != ERANGE && isfinite(v)) {
        if (v == floor(v) && fabs(v) < 9e15)
            return json_integer((json_int_t)v);
        return json_real(v);
    }
    return json_string(s);
}

static gp_status csv_row_to_run(gpi_runset *set, csv_row *hdr, csv_row *row, const char *name, int line, gp_error *err)
{
    if (row->n != hdr->n)
        return gpi_runs_fail(err, name, line, NULL, GP_EPARSE, "%d columns, but the header has %d", row->n, hdr->n);
    json_t *obj = json_object(), *measured = json_object();
    for (int c = 0; c < hdr->n && obj && measured; c++) {
        json_t *v = csv_value(row->cells[c]);
        if (!v)
            continue;
        if (find_measured(hdr->cells[c]))
            json_object_set_new(measured, hdr->cells[c], v);
        else
            json_object_set_new(obj, hdr->cells[c], v);
    }
    if (!obj || !measured) {
        json_decref(obj);
        json_decref(measured);
        return gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    }
    gp_status st = run_from_object(set, obj, measured, GPI_RUNFMT_CSV, name, line, err);
    json_decref(measured);
    return st;
}

gp_status gpi_runs_csv(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err)
{
    csv_row *hdr = malloc(sizeof *hdr), *row = malloc(sizeof *row);
    gp_status st = hdr && row ? GP_OK : gpi_fail(err, GP_ENOMEM, "out of memory reading %s", name);
    gpi_lines it;
    gpi_line ln;
    gpi_lines_init(&it, text, len);
    int have_header = 0;
    while (st == GP_OK && gpi_lines_next(&it, &ln)) {
        if (blank(&ln))
            continue;
        if (ln.len > GPI_RUNS_MAX_LINE) {
            st = gpi_runs_fail(err, name, ln.no, NULL, GP_ELIMIT, "a line of %zu bytes (the limit is %u)", ln.len,
                               GPI_RUNS_MAX_LINE);
            break;
        }
        csv_row *dst = have_header ? row : hdr;
        int rc = csv_split(&ln, dst);
        if (rc != 0) {
            st = gpi_runs_fail(err, name, ln.no, NULL, rc == -1 ? GP_ELIMIT : GP_EPARSE, "%s",
                               rc == -1 ? "more than 256 columns" : "a quoted field is not closed");
            break;
        }
        if (!have_header) {
            have_header = 1;
            continue;
        }
        st = csv_row_to_run(set, hdr, row, name, ln.no, err);
    }
    free(hdr);
    free(row);
    return st;
}
