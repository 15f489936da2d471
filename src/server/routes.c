/*
 * routes.c: what `gpuplan web` answers, as a table of method + path -> handler.
 *
 *   GET  /  /index.html /app.js /style.css   the page (embedded at build time, web/)
 *   GET  /api/health                         {"ok": true, "version": ...}
 *   GET  /api/models                         = gpuplan model list --json
 *   GET  /api/gpus                           = gpuplan gpus --json
 *   POST /api/fit|train|serve|plan           a scenario document -> = gpuplan CMD ... --json
 *
 * A scenario goes straight to the library: gp_scenario_parse_json (exact keys of the key
 * table; keys naming files refused; 400 with the parser's line, column and byte position on a
 * syntax error), the API's bounds on one request's work, a catalog check of the model name,
 * then the question's run function under the request's deadline, and its JSON document.
 * Errors are {"error": {"status", "code", "message", "field", ...}}.
 */
#include "server.h"
#include "web_assets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*handler_fn)(gps_server *s, const gps_request *req, gps_response *res, const char *arg);

static void static_file(gps_server *s, const gps_request *req, gps_response *res, const char *arg)
{
    (void)s, (void)req;
    for (const gps_web_file *f = gps_web_files; f->name; f++)
        if (strcmp(f->name, arg) == 0) {
            const char *dot = strrchr(arg, '.');
            res->status = 200;
            res->content_type = !dot                    ? "application/octet-stream"
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

static void respond_text(gps_response *res, gp_status st, char *text, size_t len, const gp_error *err)
{
    if (st != GP_OK) {
        gps_respond_gp_error(res, 500, err);
        return;
    }
    res->status = 200;
    res->content_type = "application/json";
    res->body = text;
    res->len = len;
    res->body_static = 0;
}

static void api_models(gps_server *s, const gps_request *req, gps_response *res, const char *arg)
{
    (void)req, (void)arg;
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    gp_status st = gp_catalog_models_json(gps_catalog(s), &text, &len, &err);
    respond_text(res, st, text, len, &err);
}

static void api_gpus(gps_server *s, const gps_request *req, gps_response *res, const char *arg)
{
    (void)req, (void)arg;
    char *text = NULL;
    size_t len = 0;
    gp_error err;
    gp_status st = gp_catalog_gpus_json(gps_catalog(s), NULL, &text, &len, &err);
    respond_text(res, st, text, len, &err);
}

/* HTTP status of a library error: the question as asked is wrong (400), the library refused
 * the input (422), or the request ran out of time (503). */
static int status_of(const gp_error *err, const gp_run_ctx *ctx)
{
    if (err->code == GP_EUSAGE || err->code == GP_EPARSE)
        return 400;
    if (err->code == GP_ELIMIT)
        return gp_run_clock() > ctx->deadline_s || ctx->cancel(ctx->cancel_arg) ? 503 : 400;
    return 422;
}

/* A string model must be a catalog id: the API reads no files. */
static gp_status check_model(gps_server *s, const gp_scenario *sc, gp_error *err)
{
    if (!sc->model[0])
        return GP_OK;
    gp_model *m = malloc(sizeof *m);
    gp_status st = m ? gp_catalog_find_model(gps_catalog(s), sc->model, m, err) : GP_ENOMEM;
    free(m);
    if (st == GP_OK)
        return GP_OK;
    gp_error_clear(err);
    err->code = GP_EINVAL;
    snprintf(err->field, sizeof err->field, "model");
    snprintf(err->msg, sizeof err->msg,
             "scenario key 'model': '%.200s' is not in the catalog (GET /api/models lists it); the web API reads no "
             "files: give a catalog id, or the config.json itself as an object",
             sc->model);
    return GP_EINVAL;
}

/* POST /api/CMD: arg is the command. */
static void api_question(gps_server *s, const gps_request *req, gps_response *res, const char *cmd)
{
    gp_scenario *sc = malloc(sizeof *sc);
    gp_error err;
    gp_error_clear(&err);
    if (!sc) {
        gps_respond_error(res, 500, "out of memory");
        return;
    }
    gp_scenario_init(sc, gp_command_parse(cmd));
    gp_status st = gp_scenario_parse_json(sc, req->body, req->body_len, "scenario", GP_SRC_API, &err);
    if (!st)
        st = gp_scenario_check_api_bounds(sc, &err);
    if (!st)
        st = check_model(s, sc, &err);
    if (st) {
        gps_respond_gp_error(res, 400, &err);
        free(sc);
        return;
    }
    gp_run_ctx ctx;
    gps_run_ctx(s, &ctx);
    gp_result *r = NULL;
    st = gp_run(gps_catalog(s), sc, &ctx, &r, &err);
    free(sc);
    if (st) {
        gps_respond_gp_error(res, status_of(&err, &ctx), &err);
        return;
    }
    char *text = NULL;
    size_t len = 0;
    st = gp_result_json(r, &text, &len, &err);
    gp_result_free(r);
    respond_text(res, st, text, len, &err);
}

static const struct route {
    const char *method;
    const char *path;
    handler_fn handler;
    const char *arg;
} routes[] = {
    {"GET", "/", static_file, "web/index.html"},   {"GET", "/index.html", static_file, "web/index.html"},
    {"GET", "/app.js", static_file, "web/app.js"}, {"GET", "/style.css", static_file, "web/style.css"},
    {"GET", "/api/health", api_health, NULL},      {"GET", "/api/models", api_models, NULL},
    {"GET", "/api/gpus", api_gpus, NULL},          {"POST", "/api/fit", api_question, "fit"},
    {"POST", "/api/train", api_question, "train"}, {"POST", "/api/serve", api_question, "serve"},
    {"POST", "/api/plan", api_question, "plan"},
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
    if (path_known) {
        gps_respond_error(res, 405, "method not allowed on this path");
        res->allow = strncmp(req->path, "/api/", 5) == 0 && strcmp(req->path, "/api/health") &&
                             strcmp(req->path, "/api/models") && strcmp(req->path, "/api/gpus")
                         ? "POST"
                         : "GET, HEAD";
    } else
        gps_respond_error(res, 404,
                          "no such path (the API: GET /api/models, GET /api/gpus, POST /api/fit|train|serve|plan)");
}
