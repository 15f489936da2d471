/*
 * server.h: gpuplan's local HTTP/JSON server (libmicrohttpd, a thread pool).
 *
 * server.c owns the daemon, the limits, the catalog and the one mutex under which commands
 * run (they parse flags with getopt's global state); routes.c maps method + path to a
 * handler (a table) and turns scenario documents into command runs. docs/web.md describes
 * the API and its limits.
 */
#ifndef GPS_SERVER_H
#define GPS_SERVER_H

#include <gpuplan.h>
#include <jansson.h>
#include <stddef.h>

/* ---- limits (docs/web.md) ---- */
#define GPS_DEFAULT_PORT 8080
#define GPS_DEFAULT_BIND "127.0.0.1"
#define GPS_DEFAULT_THREADS 4
#define GPS_DEFAULT_MAX_BODY (256u * 1024u)  /* bytes of one request body; 413 past it */
#define GPS_DEFAULT_TIMEOUT_S 10             /* an idle connection is closed after this */
#define GPS_MAX_CONNECTIONS 256              /* open connections at once */

typedef struct gps_config {
    const char *bind;      /* an IPv4 or IPv6 address; 127.0.0.1 unless told otherwise */
    int port;              /* 0: any free port (gps_port tells which) */
    int threads;           /* thread pool size */
    size_t max_body;       /* bytes */
    unsigned timeout_s;    /* idle connection timeout */
    const char *data_dir;  /* --data-dir for the catalog, or NULL */
    const char *profile;   /* --profile: a calibration profile every answer uses, or NULL */
} gps_config;

typedef struct gps_server gps_server;

/* Start serving; on failure write why into msg and return -1. */
int gps_start(const gps_config *cfg, gps_server **out, char *msg, size_t msg_size);
/* The port actually bound. */
int gps_port(const gps_server *s);
/* Stop serving (waits for requests in flight) and free. NULL is fine. */
void gps_stop(gps_server *s);

/* ---- what routes.c sees ---- */
typedef struct gps_request {
    const char *method;    /* "GET", "POST", ... */
    const char *path;      /* "/api/fit" (no query string) */
    const char *body;      /* NUL-terminated; "" when none */
    size_t body_len;
} gps_request;

typedef struct gps_response {
    int status;                 /* HTTP status */
    const char *content_type;
    char *body;                 /* malloc'd, or borrowed when body_static */
    size_t len;
    int body_static;            /* body is embedded data: do not free */
} gps_response;

/* Fill res for req (routes.c). Never fails: errors are responses. */
void gps_route(gps_server *s, const gps_request *req, gps_response *res);

/* The server's catalog (read-only, shared by readers). */
const gp_catalog *gps_catalog(const gps_server *s);

/* Run a gpuplan command (argv[0] = its name) in-process with --json, under the server's
 * mutex: *result gets its JSON document (owned by the caller) or NULL; msg gets what it
 * wrote as messages (trimmed). Returns the command's exit code (EXIT_OK, _INPUT, _USAGE). */
int gps_run_command(gps_server *s, int argc, char **argv, const gp_model *inline_model, json_t **result, char *msg,
                    size_t msg_size);
/* The same with a calibration profile uploaded with the request (its JSON text; NULL: none):
 * the command runs on a catalog of its own with the server's profile and then this one
 * applied (docs/calibration.md). A bad profile returns EXIT_INPUT with its message. */
int gps_run_command_profiled(gps_server *s, int argc, char **argv, const gp_model *inline_model, const char *profile,
                             json_t **result, char *msg, size_t msg_size);

/* Response helpers (server.c). */
void gps_respond_json(gps_response *res, int status, json_t *doc); /* takes doc */
void gps_respond_error(gps_response *res, int status, const char *message);

#endif
