/* cmd_web.c: `gpuplan web`: the local web page and JSON API (src/server/, docs/web.md).
 * Serves until SIGINT or SIGTERM, then stops cleanly (requests in flight finish). */
#include "cli.h"
#include "server.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

static const char web_help[] =
    "usage: gpuplan web [--port 8080] [--bind 127.0.0.1] [--threads N] [--max-body BYTES]\n"
    "                   [--timeout S] [--data-dir DIR] [--profile PROFILE.json]\n\n"
    "Serves a page (embedded in the binary; works offline) where you pick a model, a workload\n"
    "and hardware and see the verdict, memory, ranked options, cost and launch command; and a\n"
    "JSON API returning what the CLI's --json returns:\n"
    "  POST /api/fit|train|serve|plan   a scenario document ({\"model\": \"llama-3.1-70b\", ...})\n"
    "  GET  /api/models, /api/gpus      the catalog\n\n"
    "  --port N             TCP port (default 8080; 0: any free port, printed at start)\n"
    "  --bind ADDR          address to listen on (default 127.0.0.1: this machine only).\n"
    "                       Anything else lets others on the network use the planner.\n"
    "  --threads N          questions answered at once (default 4)\n"
    "  --max-body BYTES     largest request body (default 262144; 413 past it)\n"
    "  --timeout S          close idle connections after S seconds (default 10)\n"
    "  --request-timeout S  stop a question after S seconds with 503 (default 10)\n"
    "  --profile FILE       a calibration profile (gpuplan calibrate, probe --bench): every\n"
    "                       answer of the page and the API uses it (docs/calibration.md)\n"
    "Stops on Ctrl-C (SIGINT) or SIGTERM.\n";

int cmd_web(int argc, char **argv, cli_common *common)
{
    static const struct option opts[] = {CLI_COMMON_OPTS,
                                         {"port", required_argument, NULL, 6001},
                                         {"bind", required_argument, NULL, 6002},
                                         {"threads", required_argument, NULL, 6003},
                                         {"max-body", required_argument, NULL, 6004},
                                         {"timeout", required_argument, NULL, 6005},
                                         {"request-timeout", required_argument, NULL, 6006},
                                         {"profile", required_argument, NULL, 6007},
                                         {0, 0, 0, 0}};
    gps_config cfg = {GPS_DEFAULT_BIND,      GPS_DEFAULT_PORT,      GPS_DEFAULT_THREADS,
                      GPS_DEFAULT_MAX_BODY,  GPS_DEFAULT_TIMEOUT_S, NULL,
                      GPS_DEFAULT_REQUEST_S, cli_nvml_path(NULL),   NULL};
    int64_t v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'h': printf("%s", web_help); return EXIT_OK;
        case 6001:
            if (cli_parse_i64(common, "web", "port", optarg, 0, 65535, &v))
                return EXIT_USAGE;
            cfg.port = (int)v;
            continue;
        case 6002: cfg.bind = optarg; continue;
        case 6003:
            if (cli_parse_i64(common, "web", "threads", optarg, 1, 64, &v))
                return EXIT_USAGE;
            cfg.threads = (int)v;
            continue;
        case 6004:
            if (cli_parse_i64(common, "web", "max-body", optarg, 1024, 64 << 20, &v))
                return EXIT_USAGE;
            cfg.max_body = (size_t)v;
            continue;
        case 6005:
            if (cli_parse_i64(common, "web", "timeout", optarg, 1, 3600, &v))
                return EXIT_USAGE;
            cfg.timeout_s = (unsigned)v;
            continue;
        case 6006:
            if (cli_parse_i64(common, "web", "request-timeout", optarg, 1, 3600, &v))
                return EXIT_USAGE;
            cfg.request_s = (double)v;
            continue;
        case 6007: cfg.profile = optarg; continue;
        default:
            if (cli_common_opt(c, optarg, common))
                continue;
            return cli_usage_error(common, "web", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(common, "web", "unexpected argument '%s'", argv[optind]);
    cfg.data_dir = common->data_dir;

    /* Block the stop signals before the server's threads start (they inherit the mask), then
     * wait for one here. SIGPIPE stays blocked: a client hanging up is not fatal. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGHUP);
    sigaddset(&stop, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    gps_server *s = NULL;
    char msg[512];
    if (gps_start(&cfg, &s, msg, sizeof msg) != 0) {
        fprintf(common->err ? common->err : stderr, "gpuplan web: %s\n", msg);
        return EXIT_INPUT;
    }
    if (cfg.profile)
        fprintf(stderr, "gpuplan web: %s\n", gp_catalog_profile_note(gps_catalog(s)));
    const char *bind = cfg.bind;
    int v6 = strchr(bind, ':') != NULL;
    printf("gpuplan web: serving http://%s%s%s:%d/ (Ctrl-C stops)\n", v6 ? "[" : "", bind, v6 ? "]" : "", gps_port(s));
    if (strncmp(bind, "127.", 4) != 0 && strcmp(bind, "::1") != 0)
        fprintf(stderr,
                "gpuplan web: warning: listening on %s, not loopback: anyone who can reach this machine can "
                "use the planner\n",
                bind);
    fflush(stdout);
    sigdelset(&stop, SIGPIPE);
    int sig = 0;
    sigwait(&stop, &sig);
    printf("gpuplan web: stopping (signal %d)\n", sig);
    fflush(stdout);
    gps_stop(s);
    return EXIT_OK;
}
