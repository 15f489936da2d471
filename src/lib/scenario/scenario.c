/*
 * scenario.c: filling a gp_scenario from flags' text or a JSON object, through the key table
 * (keys.c). One parser per key type; every message names the key (as the user wrote it: a
 * flag or a scenario key) and what it takes.
 */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FIELD(sc, k, type) ((type *)((char *)(sc) + (k)->offset))

/* The headline question (the architecture proposal's "Scenario JSON" example). */
static const char example_scenario[] = "{\n"
                                       "  \"model\": \"meta-llama/Llama-3.1-70B\",\n"
                                       "  \"task\": \"infer\",\n"
                                       "  \"users\": 300, \"prompt_tokens\": 2000, \"output_tokens\": 400,\n"
                                       "  \"ttft_p99\": 1.0, \"tpot_p99\": 0.05, \"redundancy\": \"n+1\",\n"
                                       "  \"gpu\": [\"H100-SXM-80GB\", \"H200-SXM-141GB\"],\n"
                                       "  \"dtype\": [\"bf16\", \"fp8\", \"int4\"],\n"
                                       "  \"currency\": \"BRL\", \"horizon_months\": 36,\n"
                                       "  \"compliance\": \"health\"\n"
                                       "}\n";

const char *gp_scenario_example(void)
{
    return example_scenario;
}

void gp_scenario_init(gp_scenario *sc, unsigned command)
{
    memset(sc, 0, sizeof *sc);
    sc->version = GP_SCENARIO_VERSION;
    sc->command = command;
    sc->task = command == GP_CMD_TRAIN ? GP_TASK_TRAIN : GP_TASK_INFER;
    sc->tied_embeddings = -1;
    sc->prompt_tokens = 1000;
    sc->output_tokens = 200;
    sc->seed = 1;
    sc->top = 5;
    sc->max_gpus = 65536;
    sc->egress_tb_per_month = -1;
    sc->lengths = command == GP_CMD_SERVE ? GP_LENGTH_LOGNORMAL : GP_LENGTH_FIXED;
}

static size_t key_index(const gp_scenario_key *k)
{
    return (size_t)(k - gp_scenario_key_at(0));
}

static int bit(const uint64_t *set, size_t i)
{
    return (int)((set[i / 64] >> (i % 64)) & 1u);
}

int gp_scenario_has(const gp_scenario *sc, const char *name)
{
    const gp_scenario_key *k = gp_scenario_key_find(name);
    return k && bit(sc->set, key_index(k));
}

/* ---- one value ------------------------------------------------------------------------- */

/* "--kv-dtype" or "scenario key 'kv_dtype'" into buf. */
static const char *label(const gp_scenario_key *k, gp_scenario_source src, char *buf, size_t n)
{
    if (src == GP_SRC_FLAG) {
        snprintf(buf, n, "--%s", k->name);
        for (char *p = buf + 2; *p; p++)
            if (*p == '_')
                *p = '-';
    } else
        snprintf(buf, n, "scenario key '%s'", k->name);
    return buf;
}

static gp_status bad(gp_error *err, const gp_scenario_key *k, gp_scenario_source src, const char *what,
                     const char *value)
{
    char l[96];
    gp_status st =
        gpi_fail(err, GP_EINVAL, "%s takes %s, not '%.200s'", label(k, src, l, sizeof l), what, value ? value : "");
    gpi_error_set_field(err, k->name);
    return st;
}

static gp_status bad_range(gp_error *err, const gp_scenario_key *k, gp_scenario_source src, const char *kind,
                           const char *value)
{
    char what[160];
    snprintf(what, sizeof what, "%s from %.15g to %.15g%s%s", kind, k->min, k->max, k->unit[0] ? " " : "", k->unit);
    return bad(err, k, src, what, value);
}

typedef struct suffix_row {
    char suffix; /* case-insensitive; '\0' for none */
    double multiplier;
} suffix_row;

static const suffix_row token_suffixes[] = {{'\0', 1},  {'k', 1e3},  {'m', 1e6}, {'b', 1e9},
                                            {'g', 1e9}, {'t', 1e12}, {'p', 1e15}};
static const suffix_row duration_suffixes[] = {{'\0', 1},   {'s', 1},     {'m', 60},
                                               {'h', 3600}, {'d', 86400}, {'w', 604800}};

/* A number with at most one unit letter; 0 ok. */
static int parse_scaled(const char *s, const suffix_row *rows, size_t n, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || (*end && end[1]))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)*end) == rows[i].suffix) {
            *out = v * rows[i].multiplier;
            return isfinite(*out) ? 0 : -1;
        }
    return -1;
}

/* A whole number: digits, or a real with no fraction ("1e9" from JSON). */
static int parse_int(const char *s, double *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*s && !*end && !errno) {
        *out = (double)v;
        return 0;
    }
    errno = 0;
    double d = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(d) || d != floor(d) || fabs(d) > 9.2e18)
        return -1;
    *out = d;
    return 0;
}

static gp_status set_number(gp_scenario *sc, const gp_scenario_key *k, const char *v, gp_scenario_source src,
                            gp_error *err)
{
    double d = 0;
    int rc;
    if (k->type == GP_KEY_INT)
        rc = parse_int(v, &d);
    else if (k->type == GP_KEY_TOKENS)
        rc = parse_scaled(v, token_suffixes, sizeof token_suffixes / sizeof token_suffixes[0], &d);
    else if (k->type == GP_KEY_DURATION)
        rc = parse_scaled(v, duration_suffixes, sizeof duration_suffixes / sizeof duration_suffixes[0], &d);
    else if ((k->flags & GP_KEYF_INF) && (!strcmp(v, "inf") || !strcmp(v, "infinity"))) {
        *FIELD(sc, k, double) = INFINITY;
        return GP_OK;
    } else {
        char *end;
        errno = 0;
        d = strtod(v, &end);
        rc = end == v || *end || errno || !isfinite(d) ? -1 : 0;
    }
    if (rc || d < k->min || d > k->max)
        return k->choices && rc ? bad(err, k, src, k->choices, v)
                                : bad_range(err, k, src, k->type == GP_KEY_INT ? "a whole number" : "a number", v);
    if (k->type == GP_KEY_INT)
        *FIELD(sc, k, int64_t) = d >= 9.2e18 ? INT64_MAX : (int64_t)d;
    else
        *FIELD(sc, k, double) = d;
    return GP_OK;
}

static gp_status set_bool(gp_scenario *sc, const gp_scenario_key *k, const char *v, gp_scenario_source src,
                          gp_error *err)
{
    int on;
    if (!v || !strcmp(v, "1") || !strcmp(v, "true"))
        on = 1;
    else if (!strcmp(v, "0") || !strcmp(v, "false"))
        on = 0;
    else
        return bad(err, k, src, "0 or 1 (true or false)", v);
    *FIELD(sc, k, int) = on;
    return GP_OK;
}

static gp_status set_list(gp_scenario *sc, const gp_scenario_key *k, const char *v, gp_scenario_source src,
                          gp_error *err)
{
    gp_scenario_list *l = FIELD(sc, k, gp_scenario_list);
    size_t i = key_index(k);
    if (src == GP_SRC_FLAG && !bit(sc->from_flags, i))
        l->n = 0; /* flags after a scenario file replace its list */
    char lab[96];
    if (l->n >= (int)k->max || l->n >= GP_SCENARIO_LIST_MAX) {
        gp_status st = gpi_fail(err, GP_EINVAL, "%s: at most %.0f values", label(k, src, lab, sizeof lab), k->max);
        gpi_error_set_field(err, k->name);
        return st;
    }
    if (strlen(v) >= sizeof l->v[0] || !*v)
        return bad(err, k, src, "a name of 1 to 63 characters", v);
    if (k->parse && k->parse(v) < 0)
        return bad(err, k, src, k->choices ? k->choices : "a known name", v);
    gpi_strlcpy(l->v[l->n++], v, sizeof l->v[0]);
    return GP_OK;
}

gp_status gp_scenario_set(gp_scenario *sc, const gp_scenario_key *k, const char *v, gp_scenario_source src,
                          gp_error *err)
{
    gp_error_clear(err);
    if (!sc || !k)
        return gpi_fail(err, GP_EINVAL, "gp_scenario_set needs a scenario and a key");
    if (!v && k->type != GP_KEY_BOOL) {
        char lab[96];
        gp_status st = gpi_fail(err, GP_EINVAL, "%s needs a value", label(k, src, lab, sizeof lab));
        gpi_error_set_field(err, k->name);
        return st;
    }
    gp_status st = GP_OK;
    switch (k->type) {
    case GP_KEY_INT:
    case GP_KEY_NUMBER:
    case GP_KEY_TOKENS:
    case GP_KEY_DURATION: st = set_number(sc, k, v, src, err); break;
    case GP_KEY_BOOL: st = set_bool(sc, k, v, src, err); break;
    case GP_KEY_LIST: st = set_list(sc, k, v, src, err); break;
    case GP_KEY_ENUM: {
        int e = k->parse(v);
        if (e < 0)
            return bad(err, k, src, k->choices, v);
        *FIELD(sc, k, int) = e;
        break;
    }
    case GP_KEY_MODEL:
        sc->has_inline_model = 0;
        /* fall through */
    case GP_KEY_STRING:
        if (strlen(v) >= k->size)
            return bad(err, k, src, "a shorter value", "...");
        if (k->parse && k->parse(v) < 0)
            return bad(err, k, src, k->choices, v);
        gpi_strlcpy(FIELD(sc, k, char), v, k->size);
        break;
    default: return gpi_fail(err, GP_EINVAL, "key '%s' has no parser", k->name);
    }
    if (st != GP_OK)
        return st;
    size_t i = key_index(k);
    sc->set[i / 64] |= (uint64_t)1 << (i % 64);
    if (src == GP_SRC_FLAG)
        sc->from_flags[i / 64] |= (uint64_t)1 << (i % 64);
    return GP_OK;
}

/* ---- a JSON document --------------------------------------------------------------------- */

#define GP_SCENARIO_MAX_DOC_KEYS 64

static const char *const doc_keys[] = {"description", "name", "notes", "$schema"};

static int is_doc_key(const char *key)
{
    for (size_t i = 0; i < sizeof doc_keys / sizeof doc_keys[0]; i++)
        if (!strcmp(key, doc_keys[i]))
            return 1;
    return 0;
}

static gp_status unknown_key(const gp_scenario *sc, const char *name, const char *key, gp_error *err)
{
    const gp_scenario_key *near = gpi_scenario_key_nearest(key, sc->command);
    char hint[128] = "";
    if (near)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near->name);
    gp_status st = gpi_fail(err, GP_EINVAL,
                            "%s: unknown key '%.100s' for %s (keys are the long flags with '_' for "
                            "'-', exactly; see docs/scenario.md)%s",
                            name, key, gp_command_name(sc->command), hint);
    gpi_error_set_field(err, key);
    return st;
}

static gp_status set_inline_model(gp_scenario *sc, json_t *v, gp_error *err)
{
    char *text = json_dumps(v, JSON_COMPACT);
    if (!text)
        return gpi_fail(err, GP_ENOMEM, "out of memory");
    gp_status st = gp_model_from_hf_config_text(text, strlen(text), "config.json", &sc->inline_model, err);
    free(text);
    if (st != GP_OK && err) {
        char m[GP_ERROR_MSG_MAX];
        snprintf(m, sizeof m, "scenario key 'model': %.480s", err->msg);
        gpi_strlcpy(err->msg, m, sizeof err->msg);
        gpi_error_set_field(err, "model");
    }
    if (st != GP_OK)
        return st;
    sc->has_inline_model = 1;
    sc->model[0] = '\0';
    size_t i = key_index(gp_scenario_key_find("model"));
    sc->set[i / 64] |= (uint64_t)1 << (i % 64);
    return GP_OK;
}

/* One scalar JSON value of key k. */
static gp_status set_json_scalar(gp_scenario *sc, const gp_scenario_key *k, json_t *v, gp_scenario_source src,
                                 gp_error *err)
{
    char buf[64];
    const char *text = buf;
    if (json_is_string(v))
        text = json_string_value(v);
    else if (json_is_integer(v))
        snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, sizeof buf, "%.17g", json_real_value(v));
    else if (json_is_boolean(v) && k->type == GP_KEY_BOOL)
        text = json_is_true(v) ? "1" : "0";
    else {
        gp_status st = gpi_fail(err, GP_EINVAL, "scenario key '%s' takes %s", k->name,
                                k->type == GP_KEY_BOOL   ? "true or false"
                                : k->type == GP_KEY_LIST ? "a string or a list of strings"
                                                         : "a number or a string");
        gpi_error_set_field(err, k->name);
        return st;
    }
    return gp_scenario_set(sc, k, text, src, err);
}

static gp_status set_json_value(gp_scenario *sc, const gp_scenario_key *k, json_t *v, gp_scenario_source src,
                                gp_error *err)
{
    if (k->type == GP_KEY_MODEL && json_is_object(v))
        return set_inline_model(sc, v, err);
    if (!json_is_array(v))
        return set_json_scalar(sc, k, v, src, err);
    if (k->type != GP_KEY_LIST) {
        gp_status st = gpi_fail(err, GP_EINVAL, "scenario key '%s' takes one value, not a list", k->name);
        gpi_error_set_field(err, k->name);
        return st;
    }
    size_t i;
    json_t *e;
    json_array_foreach(v, i, e)
    {
        gp_status st = set_json_scalar(sc, k, e, src, err);
        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

static gp_status parse_object(gp_scenario *sc, json_t *doc, const char *name, gp_scenario_source src, gp_error *err)
{
    if (!json_is_object(doc))
        return gpi_fail(err, GP_EINVAL,
                        "%s: a scenario must be a JSON object of keys ({\"model\": \"llama-3.1-70b\", ...})", name);
    if (json_object_size(doc) > GP_SCENARIO_MAX_DOC_KEYS)
        return gpi_fail(err, GP_ELIMIT, "%s: a scenario has at most %d keys", name, GP_SCENARIO_MAX_DOC_KEYS);
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v)
    {
        if (is_doc_key(key))
            continue;
        const gp_scenario_key *k = gp_scenario_key_find(key);
        if (!k || strcmp(k->name, key) != 0 || !(k->commands & sc->command))
            return unknown_key(sc, name, key, err);
        if (src == GP_SRC_API && (k->flags & GP_KEYF_FILE)) {
            gp_status st = gpi_fail(err, GP_EINVAL,
                                    "scenario key '%s' is refused by the web API: it reads and writes "
                                    "no files and always answers JSON (give the model as a catalog id "
                                    "or an inline config.json object)",
                                    key);
            gpi_error_set_field(err, key);
            return st;
        }
        gp_status st = set_json_value(sc, k, v, src, err);
        if (st != GP_OK)
            return st;
    }
    return GP_OK;
}

gp_status gp_scenario_parse_json(gp_scenario *sc, const char *text, size_t len, const char *name,
                                 gp_scenario_source src, gp_error *err)
{
    gp_error_clear(err);
    if (!sc || (!text && len))
        return gpi_fail(err, GP_EINVAL, "gp_scenario_parse_json needs a scenario and a text");
    name = name ? name : "scenario";
    json_error_t jerr;
    json_t *doc = json_loadb(text ? text : "", len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        gp_status st = gpi_fail(err, GP_EPARSE, "%s:%d:%d: %s", name, jerr.line, jerr.column, jerr.text);
        if (err) {
            err->line = jerr.line;
            err->column = jerr.column;
            err->offset = jerr.position;
        }
        return st;
    }
    gp_status st = parse_object(sc, doc, name, src, err);
    json_decref(doc);
    return st;
}

/* ---- bounds and help -------------------------------------------------------------------- */

gp_status gp_scenario_check_api_bounds(const gp_scenario *sc, gp_error *err)
{
    gp_error_clear(err);
    for (size_t i = 0; i < gp_scenario_key_count(); i++) {
        const gp_scenario_key *k = gp_scenario_key_at(i);
        if (k->api_max <= 0 || !bit(sc->set, i))
            continue;
        double v = k->type == GP_KEY_INT ? (double)*(const int64_t *)((const char *)sc + k->offset)
                                         : *(const double *)((const char *)sc + k->offset);
        if (v > k->api_max) {
            gp_status st = gpi_fail(err, GP_ELIMIT,
                                    "scenario key '%s': %.15g is above this server's bound of %.15g "
                                    "per request",
                                    k->name, v, k->api_max);
            gpi_error_set_field(err, k->name);
            return st;
        }
    }
    return GP_OK;
}

static const char *placeholder(const gp_scenario_key *k)
{
    static const char *const names[GP_KEY_TYPE_COUNT] = {" N", " X", "", " S", " S", " N", " D", " S", " X"};
    if (k->flags & GP_KEYF_OPTARG)
        return "[=0|1]";
    return names[k->type];
}

size_t gp_scenario_help(unsigned command, char *buf, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < gp_scenario_key_count(); i++) {
        const gp_scenario_key *k = gp_scenario_key_at(i);
        if (!(k->commands & command))
            continue;
        char flag[96];
        snprintf(flag, sizeof flag, "--%s%s", k->name, placeholder(k));
        for (char *p = flag + 2; *p && *p != ' ' && *p != '['; p++)
            if (*p == '_')
                *p = '-';
        char *dst = buf && used < size ? buf + used : NULL;
        int n = snprintf(dst, dst ? size - used : 0, "  %-26s %s\n", flag, k->help);
        if (n > 0)
            used += (size_t)n;
    }
    return used;
}
