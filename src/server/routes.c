/*
 * routes.c: what `gpuplan web` answers, as a table of method + path -> handler.
 *
 *   GET  /  /index.html /app.js /style.css   the page (embedded at build time, web/)
 *   GET  /api/health                         {"ok": true, "version": ...}
 *   GET  /api/models                         = gpuplan model list --json
 *   GET  /api/gpus                           = gpuplan gpus --json
 *   POST /api/fit|train|serve|plan           a scenario document -> = gpuplan CMD ... --json
 *
 * A scenario is checked before it reaches a command: a JSON object (400 with the parser's
 * message, line, column and byte position if not), keys that are flag names, no key that
 * names a file or changes the output (the API reads and writes no files), the model a catalog
 * id or an inline config.json object, and bounds on the work asked for (users, requests,
 * tokens, GPUs). Errors are {"error": {"status", "message", ...}}.
 */
#include "server.h"
#include "cli.h"
#include "web_assets.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPS_MAX_KEYS 64        /* keys in one scenario */
#define GPS_MAX_LIST 32        /* values in one list ("gpu": [...]) */

/* Keys the API refuses: they name files (read or written) or change what the command prints. */
static const char *const refused_keys[] = {
    "trace", "data_dir", "profile", "out", "export", "scenario", "file", "config", "output", "dir", "path", "nvml",
    "help", "json", "format",
};
static const char *const refused_suffixes[] = {"_file", "_dir", "_path", "_out"};

/* Bounds on the work one request may ask for (values above are refused with 400). */
static const struct {
    const char *key;
    double max;
} work_caps[] = {
    {"users", 10000},          {"requests", 50000},     {"prompt_tokens", 131072}, {"output_tokens", 32768},
    {"replicas", 1024},        {"max_num_seqs", 4096},  {"gpus", 65536},           {"max_gpus", 65536},
    {"top", 1000},             {"context", 10000000},   {"batch", 1000000},
};

typedef void (*handler_fn)(gps_server *s, const gps_request *req, gps_response *res, const char *arg);

static void static_file(gps_server *s, const gps_request *req, gps_response *res, const char *arg)
{
    (void)s, (void)req;
    for (const gpi_embedded_file *f = gps_web_files; f->name; f++)
        if (strcmp(f->name, arg) == 0) {
            const char *dot = strrchr(arg, '.');
            res->status = 200;
            res->content_type = !dot                     ? "application/octet-stream"
                                : !strcmp(dot, ".html") ? "text/html; charset=utf-8"
                                : !strcmp(dot, ".js")   ? "text/javascript; charset=utf-8"
                                : !strcmp(dot, ".css")  ? "text/css; charset=utf-8"
                                                        : "application/octet-stream";
            res->body = (char *)f->bytes;
            res->len = f->size;
            res->body_static = 1;
            return;
        }
    gps_respond_error(res, 404, "no such file");
}

static void api_health(gps_server *s, const gps_request *req, gps_response *res, const char *arg)
{
    (void)s, (void)req, (void)arg;
    gps_respond_json(res, 200, json_pack("{sb ss}", "ok", 1, "version", GP_VERSION_STRING));
}

static void respond_command(gps_response *res, int rc, json_t *result, const char *msg)
{
    if (rc == EXIT_OK && result) {
        gps_respond_json(res, 200, result);
        return;
    }
    json_decref(result);
    int status = rc == EXIT_OK ? 500 : rc == EXIT_USAGE ? 400 : 422;
    gps_respond_json(res, status,
                     json_pack("{s{si ss si}}", "error", "status", status, "message",
                               msg[0] ? msg : rc == EXIT_OK ? "the command gave no JSON document" : "request failed",
                               "exit_code", rc));
}

/* GET lists: arg is the command line ("model list"). */
static void api_list(gps_server *s, const gps_request *req, gps_response *res, const char *arg)
{
    (void)req;
    char line[64], *argv[4] = {NULL, NULL, NULL, NULL}, *save = NULL;
    int argc = 0;
    snprintf(line, sizeof line, "%s", arg);
    for (char *tok = strtok_r(line, " ", &save); tok && argc < 3; tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    json_t *result = NULL;
    char msg[1024];
    int rc = gps_run_command(s, argc, argv, NULL, &result, msg, sizeof msg);
    respond_command(res, rc, result, msg);
}

/* getopt_long takes any unambiguous abbreviation of a long flag ("--tra" is "--trace"), so a
 * key is refused when it is a refused key or a beginning of one, or a refused key followed by
 * '_' (the start of a longer flag naming the same thing: "trace_file"). A beginning of
 * "model" ("mod") would skip the catalog check: refused too. */
static int key_refused(const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; i < sizeof refused_keys / sizeof refused_keys[0]; i++) {
        size_t k = strlen(refused_keys[i]);
        if (strncmp(refused_keys[i], key, n) == 0)
            return 1;
        if (n > k && strncmp(key, refused_keys[i], k) == 0 && key[k] == '_' && strcmp(key, "output_tokens") != 0)
            return 1;
    }
    if (n < 5 && strncmp("model", key, n) == 0)
        return 1;
    for (size_t i = 0; i < sizeof refused_suffixes / sizeof refused_suffixes[0]; i++) {
        size_t k = strlen(refused_suffixes[i]);
        if (n > k && strcmp(key + n - k, refused_suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

static int key_is_flag_name(const char *key)
{
    size_t n = strlen(key);
    if (n == 0 || n > 64 || key[0] == '_')
        return 0;
    for (const char *p = key; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return 0;
    return 1;
}

/* A value's number, from a number or a numeric string; NAN if neither. */
static double number_of(json_t *v)
{
    if (json_is_number(v))
        return json_number_value(v);
    if (json_is_string(v)) {
        char *end;
        double d = strtod(json_string_value(v), &end);
        return end != json_string_value(v) && *end == '\0' ? d : NAN;
    }
    return NAN;
}

/* Check one scenario value against the work caps; 0 ok, else message written. */
static int check_cap(const char *key, json_t *v, char *msg, size_t n)
{
    for (size_t i = 0; i < sizeof work_caps / sizeof work_caps[0]; i++)
        if (strcmp(key, work_caps[i].key) == 0) {
            double d = number_of(v);
            if (!isnan(d) && d > work_caps[i].max) {
                snprintf(msg, n, "scenario key '%s': %g is above this server's bound of %g per request", key, d,
                         work_caps[i].max);
                return -1;
            }
        }
    return 0;
}

/* Check a catalog model name; 0 ok. */
static int check_model_name(gps_server *s, json_t *v, char *msg, size_t n)
{
    if (!json_is_string(v)) {
        snprintf(msg, n, "scenario key 'model' must be a catalog id (\"llama-3.1-70b\") or a config.json object");
        return -1;
    }
    gp_model *m = malloc(sizeof *m);
    gp_error err;
    int ok = m && gp_catalog_find_model(gps_catalog(s), json_string_value(v), m, &err) == GP_OK;
    free(m);
    if (!ok) {
        snprintf(msg, n,
                 "scenario key 'model': '%.200s' is not in the catalog (GET /api/models lists it); the web API reads "
                 "no files: give a catalog id, or the config.json itself as an object",
                 json_string_value(v));
        return -1;
    }
    return 0;
}

/* POST /api/CMD: arg is the command. */
/* An uploaded calibration profile (an object; a file name stays refused): its text, taken out
 * of the scenario (NULL if none). */
static char *take_profile(json_t *doc)
{
    json_t *prof = json_object_get(doc, "profile");
    if (!json_is_object(prof))
        return NULL;
    char *text = json_dumps(prof, JSON_COMPACT);
    json_object_del(doc, "profile");
    return text;
}

static void api_command(gps_server *s, const gps_request *req, gps_response *res, const char *cmd)
{
    json_error_t jerr;
    json_t *doc = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc) {
        gps_respond_json(res, 400,
                         json_pack("{s{si ss si si si}}", "error", "status", 400, "message", jerr.text, "line",
                                   jerr.line, "column", jerr.column, "position", jerr.position));
        return;
    }
    char msg[1024];
    msg[0] = '\0';
    gp_model *inline_model = NULL;
    char *profile = NULL;
    int status = 400;
    if (!json_is_object(doc)) {
        snprintf(msg, sizeof msg, "a scenario must be a JSON object of flags ({\"model\": \"llama-3.1-70b\", ...})");
        goto fail;
    }
    if (json_object_size(doc) > GPS_MAX_KEYS) {
        snprintf(msg, sizeof msg, "a scenario has at most %d keys", GPS_MAX_KEYS);
        goto fail;
    }
    profile = take_profile(doc);
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        if (!key_is_flag_name(key)) {
            snprintf(msg, sizeof msg, "scenario key '%.100s' is not a flag name (lower case, digits, '_')", key);
            goto fail;
        }
        if (key_refused(key)) {
            snprintf(msg, sizeof msg,
                     "scenario key '%s' is refused by the web API: it reads and writes no files and always answers "
                     "JSON (give the model as a catalog id or an inline config.json object)",
                     key);
            goto fail;
        }
        if (json_is_array(v)) {
            if (json_array_size(v) > GPS_MAX_LIST) {
                snprintf(msg, sizeof msg, "scenario key '%s': at most %d values", key, GPS_MAX_LIST);
                goto fail;
            }
            size_t i;
            json_t *e;
            json_array_foreach(v, i, e) {
                if (check_cap(key, e, msg, sizeof msg))
                    goto fail;
                if (!strcmp(key, "model") && check_model_name(s, e, msg, sizeof msg))
                    goto fail;
            }
        } else if (check_cap(key, v, msg, sizeof msg)) {
            goto fail;
        } else if (!strcmp(key, "model") && !json_is_object(v) && check_model_name(s, v, msg, sizeof msg)) {
            goto fail;
        }
    }
    json_t *model = json_object_get(doc, "model");
    if (json_is_object(model)) { /* an inline config.json */
        char *text = json_dumps(model, JSON_COMPACT);
        inline_model = malloc(sizeof *inline_model);
        gp_error err;
        gp_error_clear(&err);
        int ok = text && inline_model &&
                 gp_model_from_hf_config_text(text, strlen(text), "config.json", inline_model, &err) == GP_OK;
        free(text);
        if (!ok) {
            snprintf(msg, sizeof msg, "scenario key 'model': %s", err.msg[0] ? err.msg : "out of memory");
            goto fail;
        }
        json_object_del(doc, "model");
    }
    int argc = 0;
    char **argv = NULL;
    {
        /* cli_scenario_argv reports through a cli_common; catch its message */
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        cli_common c;
        memset(&c, 0, sizeof c);
        c.err = f;
        int rc = f ? cli_scenario_argv(&c, cmd, doc, &argc, &argv) : EXIT_INPUT;
        if (f)
            fclose(f);
        if (rc != EXIT_OK) {
            snprintf(msg, sizeof msg, "%s", text ? text : "out of memory");
            char *hint = strstr(msg, "\n(see");
            if (hint)
                *hint = '\0';
            free(text);
            goto fail;
        }
        free(text);
    }
    json_t *result = NULL;
    int rc = gps_run_command_profiled(s, argc, argv, inline_model, profile, &result, msg, sizeof msg);
    cli_argv_free(argc, argv);
    free(inline_model);
    free(profile);
    json_decref(doc);
    respond_command(res, rc, result, msg);
    return;
fail:
    free(inline_model);
    free(profile);
    json_decref(doc);
    gps_respond_error(res, status, msg);
}

static const struct route {
    const char *method;
    const char *path;
    handler_fn handler;
    const char *arg;
} routes[] = {
    {"GET", "/", static_file, "web/index.html"},
    {"GET", "/index.html", static_file, "web/index.html"},
    {"GET", "/app.js", static_file, "web/app.js"},
    {"GET", "/style.css", static_file, "web/style.css"},
    {"GET", "/api/health", api_health, NULL},
    {"GET", "/api/models", api_list, "model list"},
    {"GET", "/api/gpus", api_list, "gpus"},
    {"POST", "/api/fit", api_command, "fit"},
    {"POST", "/api/train", api_command, "train"},
    {"POST", "/api/serve", api_command, "serve"},
    {"POST", "/api/plan", api_command, "plan"},
};

void gps_route(gps_server *s, const gps_request *req, gps_response *res)
{
    const char *method = strcmp(req->method, "HEAD") == 0 ? "GET" : req->method;
    int path_known = 0;
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strcmp(routes[i].path, req->path) != 0)
            continue;
        path_known = 1;
        if (strcmp(routes[i].method, method) == 0) {
            routes[i].handler(s, req, res, routes[i].arg);
            return;
        }
    }
    if (path_known)
        gps_respond_error(res, 405, "method not allowed on this path");
    else
        gps_respond_error(res, 404, "no such path (the API: GET /api/models, GET /api/gpus, POST /api/fit|train|serve|plan)");
}
