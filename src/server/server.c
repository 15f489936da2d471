/*
 * server.c: the HTTP side of `gpuplan web`: a libmicrohttpd daemon with a thread per
 * connection, bound to loopback unless told otherwise. It reads a request body up to a cap (413 past it), then
 * hands method, path and body to routes.c and sends back what it answers. Idle clients are cut
 * off by the connection timeout, bodies arriving slower than a minimum rate are dropped, open
 * connections are capped in all and per client address, and each connection's memory is
 * bounded. Questions run concurrently (the library shares nothing between runs), at most
 * `threads` at once: a counting semaphore hands out the planning slots, so every connection's
 * question waits for the first free slot whichever connection it came on (a pool that binds a
 * connection to the worker that accepted it can leave a worker idle while another queues).
 * A question that finds no slot within half its deadline is answered 503 with Retry-After; each
 * question has a deadline and stops early when the server stops.
 * All state lives in the gps_server handle.
 */
#include "server.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <errno.h>
#include <netinet/in.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

struct gps_server {
    struct MHD_Daemon *daemon;
    gp_catalog *cat;     /* read-only once started: shared by the connection threads */
    sem_t slots;         /* planning slots: the --threads questions that may run at once */
    atomic_int stopping; /* set by gps_stop: questions in flight stop */
    double request_s;    /* deadline of one question */
    const char *nvml_path;
    size_t max_body;
    int loopback; /* bound to a loopback address: check the Host header */
    int port;
};

/* One request's upload, kept between the access handler's calls. */
typedef struct conn_state {
    char *body;
    size_t len, cap;
    int too_big;
    double started; /* when the headers arrived (gp_run_clock) */
} conn_state;

const gp_catalog *gps_catalog(const gps_server *s)
{
    return s->cat;
}

int gps_port(const gps_server *s)
{
    return s ? s->port : 0;
}

void gps_respond_json(gps_response *res, int status, json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(doc);
    if (!text) {
        res->status = 500;
        res->content_type = "application/json";
        res->body = (char *)"{\"error\": {\"status\": 500, \"message\": \"out of memory\"}}\n";
        res->len = strlen(res->body);
        res->body_static = 1;
        return;
    }
    size_t n = strlen(text);
    char *body = realloc(text, n + 2); /* the CLI ends its document with a newline */
    if (body) {
        body[n++] = '\n';
        body[n] = '\0';
        text = body;
    }
    res->status = status;
    res->content_type = "application/json";
    res->body = text;
    res->len = n;
    res->body_static = 0;
}

void gps_respond_error(gps_response *res, int status, const char *message)
{
    gps_respond_json(res, status, json_pack("{s{si ss}}", "error", "status", status, "message", message));
}

static const char *code_name(gp_status st)
{
    static const char *const names[] = {"ok",    "invalid",       "io",   "parse", "not_found", "unsupported",
                                        "limit", "out_of_memory", "usage"};
    return (size_t)st < sizeof names / sizeof names[0] ? names[st] : "error";
}

void gps_respond_gp_error(gps_response *res, int status, const gp_error *err)
{
    json_t *e = json_pack("{si ss ss ss si}", "status", status, "code", code_name(err->code), "message",
                          err->msg[0] ? err->msg : gp_status_str(err->code), "field", err->field, "exit_code",
                          status == 400 ? 2 : 1);
    if (e && err->line > 0) {
        json_object_set_new(e, "line", json_integer(err->line));
        json_object_set_new(e, "column", json_integer(err->column));
    }
    if (e && err->offset >= 0)
        json_object_set_new(e, "position", json_integer(err->offset));
    gps_respond_json(res, status, e ? json_pack("{so}", "error", e) : NULL);
}

static int server_stopping(void *arg)
{
    return atomic_load((atomic_int *)arg) != 0;
}

void gps_run_ctx(gps_server *s, gp_run_ctx *ctx)
{
    gp_run_ctx_defaults(ctx);
    ctx->api = 1;
    ctx->deadline_s = gp_run_clock() + s->request_s;
    ctx->cancel = server_stopping;
    ctx->cancel_arg = &s->stopping;
    ctx->nvml_path = s->nvml_path;
}

/* ---- libmicrohttpd callbacks ---------------------------------------------------------------- */

static enum MHD_Result send_response(struct MHD_Connection *conn, gps_response *res)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(
        res->len, res->body, res->body_static ? MHD_RESPMEM_PERSISTENT : MHD_RESPMEM_MUST_FREE);
    if (!r) {
        if (!res->body_static)
            free(res->body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, res->content_type ? res->content_type : "text/plain");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
    MHD_add_response_header(r, "Cache-Control", "no-store");
    if (res->allow)
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, res->allow);
    if (res->retry_after)
        MHD_add_response_header(r, MHD_HTTP_HEADER_RETRY_AFTER, "1");
    if (res->content_type && !strncmp(res->content_type, "text/html", 9))
        MHD_add_response_header(r, "Content-Security-Policy",
                                "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
                                "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
    enum MHD_Result ok = MHD_queue_response(conn, (unsigned)res->status, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result send_error(struct MHD_Connection *conn, int status, const char *message)
{
    gps_response res;
    memset(&res, 0, sizeof res);
    gps_respond_error(&res, status, message);
    if (status == 405)
        res.allow = "GET, HEAD, POST";
    return send_response(conn, &res);
}

/* With a loopback bind, only requests addressed to a loopback name are served: a web page
 * elsewhere cannot reach the API by pointing its own host name at 127.0.0.1 (DNS rebinding). */
static int host_allowed(const char *host)
{
    if (!host)
        return 1; /* HTTP/1.0 clients send none */
    static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncmp(host, names[i], n) == 0 && (host[n] == '\0' || host[n] == ':'))
            return 1;
    }
    return 0;
}

/* Wait for a planning slot for at most half the question's deadline (the run then has its
 * own full deadline): 0 with a slot held, -1 without. */
static int take_slot(gps_server *s, double started)
{
    double until = started + 0.5 * s->request_s, now;
    while ((now = gp_run_clock()) < until && !atomic_load(&s->stopping)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        double wait = until - now < 0.25 ? until - now : 0.25; /* wake to see the stop flag */
        long ns = ts.tv_nsec + (long)(wait * 1e9);
        ts.tv_sec += ns / 1000000000L;
        ts.tv_nsec = ns % 1000000000L;
        if (sem_timedwait(&s->slots, &ts) == 0)
            return 0;
        if (errno != ETIMEDOUT && errno != EINTR)
            return -1;
    }
    return -1;
}

/* Route one complete request; a question (POST) inside a planning slot, and no slot within
 * half its deadline is a 503. */
static enum MHD_Result answer(gps_server *s, struct MHD_Connection *conn, const char *method, const char *url,
                              const conn_state *st)
{
    gps_response res;
    memset(&res, 0, sizeof res);
    int slot = strcmp(method, "POST") == 0; /* GETs (the page, health, the catalog) are cheap */
    if (slot && take_slot(s, st->started) != 0) {
        gps_respond_error(&res, 503,
                          "the server is busy: every planning slot stayed taken for half "
                          "this question's deadline; retry shortly");
        res.retry_after = 1;
        return send_response(conn, &res);
    }
    gps_request req = {method, url, st->body ? st->body : "", st->len};
    gps_route(s, &req, &res);
    if (slot)
        sem_post(&s->slots);
    return send_response(conn, &res);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    gps_server *s = cls;
    conn_state *st = *con_cls;
    if (!st) { /* first call: headers only */
        if (s->loopback && !host_allowed(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
            return send_error(conn, 403, "this server answers requests to 127.0.0.1 or localhost only");
        if (strcmp(method, "GET") != 0 && strcmp(method, "POST") != 0 && strcmp(method, "HEAD") != 0)
            return send_error(conn, 405, "only GET and POST are served");
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl && strtoull(cl, NULL, 10) > s->max_body) {
            char m[128];
            snprintf(m, sizeof m, "request body too large (at most %zu bytes)", s->max_body);
            return send_error(conn, 413, m);
        }
        st = calloc(1, sizeof *st);
        if (!st)
            return MHD_NO;
        st->started = gp_run_clock();
        *con_cls = st;
        return MHD_YES;
    }
    if (*upload_data_size > 0) { /* a piece of the body */
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        double t = gp_run_clock() - st->started;
        if (t > GPS_MIN_RATE_GRACE_S && (double)(st->len + n) < t * GPS_MIN_BODY_RATE)
            return MHD_NO; /* slower than the minimum rate: close the connection */
        if (st->too_big || n > s->max_body - st->len) {
            st->too_big = 1; /* keep reading (and dropping) until the end, then answer 413 */
            return MHD_YES;
        }
        if (st->len + n + 1 > st->cap) {
            size_t cap = st->cap ? st->cap : 4096;
            while (cap < st->len + n + 1)
                cap *= 2;
            if (cap > s->max_body + 1)
                cap = s->max_body + 1;
            char *b = realloc(st->body, cap);
            if (!b)
                return MHD_NO;
            st->body = b;
            st->cap = cap;
        }
        memcpy(st->body + st->len, upload_data, n);
        st->len += n;
        st->body[st->len] = '\0';
        return MHD_YES;
    }
    if (st->too_big) {
        char m[128];
        snprintf(m, sizeof m, "request body too large (at most %zu bytes)", s->max_body);
        return send_error(conn, 413, m);
    }
    return answer(s, conn, method, url, st);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls, (void)conn, (void)toe;
    conn_state *st = *con_cls;
    if (st) {
        free(st->body);
        free(st);
        *con_cls = NULL;
    }
}

int gps_start(const gps_config *cfg, gps_server **out, char *msg, size_t msg_size)
{
    *out = NULL;
    const char *bind = cfg->bind && *cfg->bind ? cfg->bind : GPS_DEFAULT_BIND;
    struct sockaddr_in a4;
    struct sockaddr_in6 a6;
    struct sockaddr *addr;
    /* a thread per connection: a question blocks only its own connection while it waits for
     * a planning slot or runs */
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_AUTO;
    int loopback;
    memset(&a4, 0, sizeof a4);
    memset(&a6, 0, sizeof a6);
    if (inet_pton(AF_INET, bind, &a4.sin_addr) == 1) {
        a4.sin_family = AF_INET;
        a4.sin_port = htons((uint16_t)cfg->port);
        addr = (struct sockaddr *)&a4;
        loopback = (ntohl(a4.sin_addr.s_addr) >> 24) == 127;
    } else if (inet_pton(AF_INET6, bind, &a6.sin6_addr) == 1) {
        a6.sin6_family = AF_INET6;
        a6.sin6_port = htons((uint16_t)cfg->port);
        addr = (struct sockaddr *)&a6;
        flags |= MHD_USE_IPv6;
        loopback = memcmp(&a6.sin6_addr, &in6addr_loopback, sizeof a6.sin6_addr) == 0;
    } else {
        snprintf(msg, msg_size, "--bind takes an IPv4 or IPv6 address (127.0.0.1, ::1, 0.0.0.0), not '%s'", bind);
        return -1;
    }
    gps_server *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(msg, msg_size, "out of memory");
        return -1;
    }
    s->max_body = cfg->max_body ? cfg->max_body : GPS_DEFAULT_MAX_BODY;
    s->request_s = cfg->request_s > 0 ? cfg->request_s : GPS_DEFAULT_REQUEST_S;
    s->nvml_path = cfg->nvml_path;
    atomic_init(&s->stopping, 0);
    s->loopback = loopback;
    gp_error err;
    if (gp_catalog_open(cfg->data_dir, &s->cat, &err) != GP_OK) {
        snprintf(msg, msg_size, "%s", err.msg);
        free(s);
        return -1;
    }
    /* applied once, before any worker thread reads the catalog */
    if (cfg->profile && gp_catalog_apply_profile(s->cat, cfg->profile, &err) != GP_OK) {
        snprintf(msg, msg_size, "%s", err.msg);
        gp_catalog_free(s->cat);
        free(s);
        return -1;
    }
    unsigned threads = cfg->threads > 0 ? (unsigned)cfg->threads : GPS_DEFAULT_THREADS;
    if (sem_init(&s->slots, 0, threads) != 0) {
        snprintf(msg, msg_size, "cannot create %u planning slots", threads);
        gp_catalog_free(s->cat);
        free(s);
        return -1;
    }
    s->daemon = MHD_start_daemon(
        flags, (uint16_t)cfg->port, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR, addr,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)(cfg->timeout_s ? cfg->timeout_s : GPS_DEFAULT_TIMEOUT_S),
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)GPS_MAX_CONNECTIONS, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
        (unsigned)GPS_MAX_PER_IP, MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)GPS_CONNECTION_MEMORY,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_END);
    if (!s->daemon) {
        snprintf(msg, msg_size, "cannot listen on %s port %d (in use, or not an address of this machine?)", bind,
                 cfg->port);
        sem_destroy(&s->slots);
        gp_catalog_free(s->cat);
        free(s);
        return -1;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info ? info->port : cfg->port;
    *out = s;
    return 0;
}

void gps_stop(gps_server *s)
{
    if (!s)
        return;
    atomic_store(&s->stopping, 1); /* questions in flight poll this and stop */
    MHD_stop_daemon(s->daemon);    /* joins the connection threads: no slot is held after it */
    sem_destroy(&s->slots);
    gp_catalog_free(s->cat);
    free(s);
}
