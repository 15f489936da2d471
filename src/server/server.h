/*
 * server.h: gpuplan's local HTTP/JSON server (libmicrohttpd, a thread per connection).
 *
 * server.c owns the daemon, the limits, the planning slots and the catalog (read-only, shared
 * by the connection threads); routes.c maps method + path to a handler (a table) and answers a scenario
 * document by calling the library directly: scenario -> run function -> JSON. Requests run
 * concurrently, each under its own deadline; nothing here includes the CLI. docs/web.md
 * describes the API and its limits.
 */
#ifndef GPS_SERVER_H
#define GPS_SERVER_H

#include <gpuplan.h>
#include <jansson.h>
#include <stddef.h>

/* ---- limits (docs/web.md) ---- */
#define GPS_DEFAULT_PORT      8080
#define GPS_DEFAULT_BIND      "127.0.0.1"
#define GPS_DEFAULT_THREADS   4
#define GPS_DEFAULT_MAX_BODY  (256u * 1024u) /* bytes of one request body; 413 past it */
#define GPS_DEFAULT_TIMEOUT_S 10             /* an idle connection is closed after this */
#define GPS_MAX_CONNECTIONS   256            /* open connections at once */
#define GPS_MAX_PER_IP        32             /* open connections from one client address */
#define GPS_CONNECTION_MEMORY (64u * 1024u)  /* libmicrohttpd's buffer per connection */
#define GPS_DEFAULT_REQUEST_S 10             /* a question stops (503) after this many seconds */
#define GPS_MIN_BODY_RATE     1024           /* bytes/s a body must arrive at, after ... */
#define GPS_MIN_RATE_GRACE_S  2              /* ... this many seconds (slower: the connection is closed) */

typedef struct gps_config {
    const char *bind;      /* an IPv4 or IPv6 address; 127.0.0.1 unless told otherwise */
    int port;              /* 0: any free port (gps_port tells which) */
    int threads;           /* questions answered at once (planning slots) */
    size_t max_body;       /* bytes */
    unsigned timeout_s;    /* idle connection timeout */
    const char *data_dir;  /* --data-dir for the catalog, or NULL */
    double request_s;      /* deadline of one question, seconds (0: GPS_DEFAULT_REQUEST_S) */
    const char *nvml_path; /* "gpu": "local" (NULL: the default NVML) */
    const char *profile;   /* a calibration profile (docs/calibration.md) every answer uses, or NULL */
} gps_config;

typedef struct gps_server gps_server;

/* Start serving; on failure write why into msg and return -1. */
int gps_start(const gps_config *cfg, gps_server **out, char *msg, size_t msg_size);
/* The port actually bound. */
int gps_port(const gps_server *s);
/* Stop serving and free: questions in flight are cancelled (they stop within milliseconds),
 * then the daemon's threads are joined. NULL is fine. */
void gps_stop(gps_server *s);

/* ---- what routes.c sees ---- */
typedef struct gps_request {
    const char *method; /* "GET", "POST", ... */
    const char *path;   /* "/api/fit" (no query string) */
    const char *body;   /* NUL-terminated; "" when none */
    size_t body_len;
} gps_request;

typedef struct gps_response {
    int status; /* HTTP status */
    const char *content_type;
    char *body; /* malloc'd, or borrowed when body_static */
    size_t len;
    int body_static;   /* body is embedded data: do not free */
    const char *allow; /* 405: the methods the path takes (the Allow header) */
    int retry_after;   /* 503 busy: send Retry-After: 1 */
} gps_response;

/* Fill res for req (routes.c). Never fails: errors are responses. */
void gps_route(gps_server *s, const gps_request *req, gps_response *res);

/* The server's catalog (read-only, shared by readers). */
const gp_catalog *gps_catalog(const gps_server *s);

/* The run context of one request: the server's deadline from now, its stop flag, API mode. */
void gps_run_ctx(gps_server *s, gp_run_ctx *ctx);

/* Response helpers (server.c). */
void gps_respond_json(gps_response *res, int status, json_t *doc); /* takes doc */
void gps_respond_error(gps_response *res, int status, const char *message);
/* {"error": {"status", "code", "message", "field", "exit_code", ...}} from a library error. */
void gps_respond_gp_error(gps_response *res, int status, const gp_error *err);

#endif
