/* cmd_plan.c: `gpuplan plan [SCENARIO.json] [flags]`: the whole decision (docs/scenario.md):
 * options ranked with what each costs over the horizon, the ones the data rules exclude and
 * why, and a report (text, JSON, Markdown, HTML). A scenario document is the same flags as
 * JSON keys (cli_scenario_argv); flags after it override it. With nothing given, the built-in
 * example runs: Llama-3.1-70B for 300 users, health data in Brazil, 36 months, in BRL. */
#include "cli.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The built-in example (shared/design/architecture.md, "Scenario JSON"; issue 6 done-when). */
static const char builtin_scenario[] =
    "{\n"
    "  \"model\": \"meta-llama/Llama-3.1-70B\",\n"
    "  \"task\": \"infer\",\n"
    "  \"users\": 300, \"prompt_tokens\": 2000, \"output_tokens\": 400,\n"
    "  \"ttft_p99\": 1.0, \"tpot_p99\": 0.05, \"redundancy\": \"n+1\",\n"
    "  \"gpu\": [\"H100-SXM-80GB\", \"H200-SXM-141GB\"],\n"
    "  \"dtype\": [\"bf16\", \"fp8\", \"int4\"],\n"
    "  \"currency\": \"BRL\", \"horizon_months\": 36,\n"
    "  \"compliance\": \"health\"\n"
    "}\n";

static const char plan_help[] =
    "usage: gpuplan plan [SCENARIO.json] [flags]\n\n"
    "The whole decision: for each candidate GPU (--gpu, repeatable) and weight precision\n"
    "(--dtype, repeatable), the setup that carries the load (serving: --users/--rate with\n"
    "--ttft-p99/--tpot-p99) or the job (training: --task train --tokens T --gpus N|--deadline D),\n"
    "times each deployment (cloud, bare metal, owned; data/prices.json), costed over the horizon,\n"
    "checked against a data profile (data/compliance.json) and ranked. SCENARIO.json holds the\n"
    "same flags as keys (docs/scenario.md); flags given after it override it. Without a file or\n"
    "--model, runs the built-in example (Llama-3.1-70B, 300 users, health data in Brazil, 36\n"
    "months, BRL), refined by any flags given (gpuplan plan --format html --lang pt-BR).\n\n"
    "decision:\n"
    "  --compliance P       none (default), health, finance, public-sector\n"
    "  --currency C         BRL, USD (default), or any currency in prices.json\n"
    "  --horizon-months N   months to cost (default 36, at most 120)\n"
    "  --deployment ID      consider only these deployments (repeatable; default all)\n"
    "  --availability F     serving: fraction of time the load must be served (0.999)\n"
    "  --allow-consumer     keep consumer GPUs (GeForce) in regulated and production plans\n"
    "  --report-html        with --json: the HTML report as the key report_html (the web page's download)\n"
    "  --egress-tb-per-month X  data moved out per month (default: from output tokens)\n"
    "report:\n"
    "  --format F           text (default), json, markdown, html (one self-contained file)\n"
    "  --lang L             en (default), pt-BR\n"
    "  --out FILE           write the report to FILE instead of stdout\n"
    "  --export DIR         write the recommended option's launch files into DIR\n"
    "serving (as gpuplan serve): --users --rate --think-time --requests --prompt-tokens\n"
    "  --output-tokens --lengths --arrival --seed --ttft-p99 --tpot-p99 --redundancy --max-num-seqs\n"
    "training (as gpuplan train): --tokens --gpus --deadline --max-gpus --allow-tp-across-nodes\n\n";

enum {
    O_USERS = 3001, O_RATE, O_REQUESTS, O_PROMPT, O_OUTPUT, O_TTFT, O_TPOT, O_REDUNDANCY, O_SEED, O_THINK,
    O_MAXSEQS, O_LENGTHS, O_ARRIVAL, O_REPLICAS, O_TRACE,
    O_GPUS = 4001, O_TOKENS, O_DEADLINE, O_MAXGPUS, O_TPACROSS, O_GPN, O_INTRA, O_INTER, O_TOP, O_RANK, O_PRICE,
    O_SCALING,
    O_COMPLIANCE = 5001, O_CURRENCY, O_HORIZON, O_FORMAT, O_LANG, O_OUT, O_EXPORT, O_AVAIL, O_EGRESS, O_DEPLOY,
    O_TITLE, O_CONSUMER, O_REPORT_HTML
};

static const struct option plan_opts[] = {CLI_COMMON_OPTS,
                                          CLI_MODEL_OPTS,
                                          CLI_WORKLOAD_OPTS,
                                          {"users", required_argument, NULL, O_USERS},
                                          {"rate", required_argument, NULL, O_RATE},
                                          {"requests", required_argument, NULL, O_REQUESTS},
                                          {"prompt-tokens", required_argument, NULL, O_PROMPT},
                                          {"output-tokens", required_argument, NULL, O_OUTPUT},
                                          {"ttft-p99", required_argument, NULL, O_TTFT},
                                          {"tpot-p99", required_argument, NULL, O_TPOT},
                                          {"redundancy", required_argument, NULL, O_REDUNDANCY},
                                          {"seed", required_argument, NULL, O_SEED},
                                          {"think-time", required_argument, NULL, O_THINK},
                                          {"max-num-seqs", required_argument, NULL, O_MAXSEQS},
                                          {"lengths", required_argument, NULL, O_LENGTHS},
                                          {"arrival", required_argument, NULL, O_ARRIVAL},
                                          {"replicas", required_argument, NULL, O_REPLICAS},
                                          {"trace", required_argument, NULL, O_TRACE},
                                          {"gpus", required_argument, NULL, O_GPUS},
                                          {"tokens", required_argument, NULL, O_TOKENS},
                                          {"deadline", required_argument, NULL, O_DEADLINE},
                                          {"max-gpus", required_argument, NULL, O_MAXGPUS},
                                          {"allow-tp-across-nodes", no_argument, NULL, O_TPACROSS},
                                          {"gpus-per-node", required_argument, NULL, O_GPN},
                                          {"intra-node", required_argument, NULL, O_INTRA},
                                          {"inter-node", required_argument, NULL, O_INTER},
                                          {"top", required_argument, NULL, O_TOP},
                                          {"rank", required_argument, NULL, O_RANK},
                                          {"price-per-gpu-hour", required_argument, NULL, O_PRICE},
                                          {"scaling", no_argument, NULL, O_SCALING},
                                          {"compliance", required_argument, NULL, O_COMPLIANCE},
                                          {"currency", required_argument, NULL, O_CURRENCY},
                                          {"horizon-months", required_argument, NULL, O_HORIZON},
                                          {"format", required_argument, NULL, O_FORMAT},
                                          {"lang", required_argument, NULL, O_LANG},
                                          {"out", required_argument, NULL, O_OUT},
                                          {"export", required_argument, NULL, O_EXPORT},
                                          {"availability", required_argument, NULL, O_AVAIL},
                                          {"allow-consumer", no_argument, NULL, O_CONSUMER},
                                          {"report-html", no_argument, NULL, O_REPORT_HTML},
                                          {"egress-tb-per-month", required_argument, NULL, O_EGRESS},
                                          {"deployment", required_argument, NULL, O_DEPLOY},
                                          {"title", required_argument, NULL, O_TITLE},
                                          {0, 0, 0, 0}};

/* Scenario keys that are not flags (documentation inside the file). */
static const char *const doc_keys[] = {"description", "name", "$schema", "notes", NULL};

typedef struct plan_opts_t {
    cli_model_opts mo;
    cli_workload_opts wo;
    int64_t users, requests, prompt, output, max_seqs, max_gpus, gpus;
    double rate, ttft, tpot, think, tokens, deadline, availability, egress;
    int rate_set, rate_inf, redundancy, fixed_arrival, tp_across, horizon, allow_consumer, report_html;
    gp_length_dist lengths;
    uint64_t seed;
    const char *compliance, *currency, *format, *lang, *out, *export_dir, *title;
    int n_gpu, gpu_from_flags;
    char *gpu[GP_PLAN_MAX_GPUS];
    int n_dtype, dtype_from_flags;
    gp_dtype dtype[GP_PLAN_MAX_DTYPES];
    int n_deploy;
    const char *deploy[GP_PRICES_MAX_DEPLOYMENTS];
    int pass; /* 0: scenario, 1: command line */
} plan_opts_t;

/* Parse one argv (scenario or command line) into o. EXIT_* code. */
static int parse_args(int argc, char **argv, cli_common *common, plan_opts_t *o, int *help)
{
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hm:g:", plan_opts, NULL)) != -1) {
        if (c == 'h') {
            *help = 1;
            return EXIT_OK;
        }
        if (c == '?' || c == ':')
            return cli_usage_error(common, "plan", "unknown option or missing value: '%s'", argv[optind - 1]);
        if (cli_common_opt(c, optarg, common))
            continue;
        int64_t v;
        switch (c) {
        case 'g':
            if (o->pass == 1 && !o->gpu_from_flags) {
                for (int i = 0; i < o->n_gpu; i++)
                    free(o->gpu[i]);
                o->n_gpu = 0;
                o->gpu_from_flags = 1;
            }
            if (o->n_gpu >= GP_PLAN_MAX_GPUS)
                return cli_usage_error(common, "plan", "at most %d candidate GPUs", GP_PLAN_MAX_GPUS);
            o->gpu[o->n_gpu] = strdup(optarg);
            if (!o->gpu[o->n_gpu])
                return cli_usage_error(common, "plan", "out of memory");
            o->n_gpu++;
            continue;
        case 2002: {
            if (o->pass == 1 && !o->dtype_from_flags) {
                o->n_dtype = 0;
                o->dtype_from_flags = 1;
            }
            gp_dtype d = gp_dtype_parse(optarg);
            if (d == GP_DTYPE_UNKNOWN)
                return cli_usage_error(common, "plan", "--dtype: unknown precision '%s'", optarg);
            if (o->n_dtype >= GP_PLAN_MAX_DTYPES)
                return cli_usage_error(common, "plan", "at most %d precisions to compare", GP_PLAN_MAX_DTYPES);
            o->dtype[o->n_dtype++] = d;
            continue;
        }
        case O_USERS: if (cli_parse_i64(common, "plan", "users", optarg, 1, 1 << 24, &o->users)) return EXIT_USAGE; continue;
        case O_RATE:
            if (!strcmp(optarg, "inf"))
                return cli_usage_error(common, "plan", "--rate inf is a benchmark load; plan sizes a steady load (--users or a finite --rate)");
            if (cli_parse_double(common, "plan", "rate", optarg, 1e-6, 1e9, &o->rate)) return EXIT_USAGE;
            o->rate_set = 1;
            continue;
        case O_REQUESTS: if (cli_parse_i64(common, "plan", "requests", optarg, 1, 1 << 30, &o->requests)) return EXIT_USAGE; continue;
        case O_PROMPT: if (cli_parse_i64(common, "plan", "prompt-tokens", optarg, 1, 1 << 24, &o->prompt)) return EXIT_USAGE; continue;
        case O_OUTPUT: if (cli_parse_i64(common, "plan", "output-tokens", optarg, 1, 1 << 24, &o->output)) return EXIT_USAGE; continue;
        case O_TTFT: if (cli_parse_double(common, "plan", "ttft-p99", optarg, 1e-6, 1e6, &o->ttft)) return EXIT_USAGE; continue;
        case O_TPOT: if (cli_parse_double(common, "plan", "tpot-p99", optarg, 1e-6, 1e6, &o->tpot)) return EXIT_USAGE; continue;
        case O_REDUNDANCY:
            if (cli_parse_redundancy(optarg, &o->redundancy))
                return cli_usage_error(common, "plan", "--redundancy takes n+1, n+2, ... or none, not '%s'", optarg);
            continue;
        case O_SEED: if (cli_parse_i64(common, "plan", "seed", optarg, 0, INT64_MAX, &v)) return EXIT_USAGE; o->seed = (uint64_t)v; continue;
        case O_THINK: if (cli_parse_double(common, "plan", "think-time", optarg, 0, 1e6, &o->think)) return EXIT_USAGE; continue;
        case O_MAXSEQS: if (cli_parse_i64(common, "plan", "max-num-seqs", optarg, 1, 1 << 20, &o->max_seqs)) return EXIT_USAGE; continue;
        case O_LENGTHS:
            if (!strcmp(optarg, "fixed")) o->lengths = GP_LENGTH_FIXED;
            else if (!strcmp(optarg, "exponential")) o->lengths = GP_LENGTH_EXPONENTIAL;
            else if (!strcmp(optarg, "uniform")) o->lengths = GP_LENGTH_UNIFORM;
            else return cli_usage_error(common, "plan", "--lengths takes fixed, exponential or uniform, not '%s'", optarg);
            continue;
        case O_ARRIVAL:
            if (!strcmp(optarg, "poisson")) o->fixed_arrival = 0;
            else if (!strcmp(optarg, "fixed")) o->fixed_arrival = 1;
            else return cli_usage_error(common, "plan", "--arrival takes poisson or fixed, not '%s'", optarg);
            continue;
        case O_REPLICAS:
            return cli_usage_error(common, "plan", "--replicas fixes a setup; plan searches replicas (use 'gpuplan serve --replicas')");
        case O_TRACE:
            return cli_usage_error(common, "plan", "--trace replays a fixed load; plan sizes for --users or --rate (use 'gpuplan serve --trace')");
        case O_GPUS: if (cli_parse_i64(common, "plan", "gpus", optarg, 1, 1 << 20, &o->gpus)) return EXIT_USAGE; continue;
        case O_TOKENS:
            if (cli_parse_tokens(optarg, &o->tokens))
                return cli_usage_error(common, "plan", "--tokens takes a count such as 15T, 300B or 2.5e12, not '%s'", optarg);
            continue;
        case O_DEADLINE:
            if (cli_parse_duration(optarg, &o->deadline))
                return cli_usage_error(common, "plan", "--deadline takes a duration such as 30d, 12h, 90m or 3600, not '%s'", optarg);
            continue;
        case O_MAXGPUS: if (cli_parse_i64(common, "plan", "max-gpus", optarg, 1, 1 << 20, &o->max_gpus)) return EXIT_USAGE; continue;
        case O_TPACROSS: o->tp_across = 1; continue;
        case O_CONSUMER: o->allow_consumer = 1; continue;
        case O_REPORT_HTML: o->report_html = 1; continue;
        case O_GPN: case O_INTRA: case O_INTER: case O_TOP: case O_RANK: case O_PRICE: case O_SCALING:
            return cli_usage_error(common, "plan", "'%s' is a 'gpuplan train' flag plan does not take yet: plan uses the "
                                   "GPU's default node shape and ranks by cost (docs/scenario.md)", argv[optind - 1]);
        case O_COMPLIANCE: o->compliance = optarg; continue;
        case O_CURRENCY: o->currency = optarg; continue;
        case O_HORIZON: if (cli_parse_i64(common, "plan", "horizon-months", optarg, 1, GP_COST_MAX_MONTHS, &v)) return EXIT_USAGE; o->horizon = (int)v; continue;
        case O_FORMAT:
            if (gp_report_format_parse(optarg) == GP_REPORT_FORMAT_COUNT)
                return cli_usage_error(common, "plan", "--format takes text, json, markdown or html, not '%s'", optarg);
            o->format = optarg;
            continue;
        case O_LANG:
            if (strcmp(optarg, "en") && strcmp(optarg, "pt-BR"))
                return cli_usage_error(common, "plan", "--lang takes en or pt-BR, not '%s'", optarg);
            o->lang = optarg;
            continue;
        case O_OUT: o->out = optarg; continue;
        case O_EXPORT: o->export_dir = optarg; continue;
        case O_AVAIL: if (cli_parse_double(common, "plan", "availability", optarg, 0, 0.999999, &o->availability)) return EXIT_USAGE; continue;
        case O_EGRESS: if (cli_parse_double(common, "plan", "egress-tb-per-month", optarg, 0, 1e9, &o->egress)) return EXIT_USAGE; continue;
        case O_DEPLOY:
            if (o->n_deploy >= GP_PRICES_MAX_DEPLOYMENTS)
                return cli_usage_error(common, "plan", "at most %d deployments", GP_PRICES_MAX_DEPLOYMENTS);
            o->deploy[o->n_deploy++] = optarg;
            continue;
        case O_TITLE: o->title = optarg; continue;
        default: break;
        }
        int r = cli_model_opt(common, "plan", c, optarg, &o->mo);
        if (r == 0)
            r = cli_workload_opt(common, "plan", c, optarg, &o->wo);
        if (r < 0)
            return EXIT_USAGE;
        if (r == 0)
            return cli_usage_error(common, "plan", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind < argc)
        return cli_usage_error(common, "plan", "unexpected argument '%s' (one scenario file, first)", argv[optind]);
    return EXIT_OK;
}

/* Reject unknown scenario keys by name, before they become flags. */
static int check_keys(cli_common *common, const char *path, json_t *doc)
{
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) {
        int ok = 0;
        for (size_t i = 0; doc_keys[i]; i++)
            ok |= !strcmp(key, doc_keys[i]);
        char flag[128];
        snprintf(flag, sizeof flag, "%s", key);
        for (char *p = flag; *p; p++)
            if (*p == '_')
                *p = '-';
        for (size_t i = 0; !ok && plan_opts[i].name; i++)
            ok = !strcmp(plan_opts[i].name, flag) && strcmp(flag, "help");
        if (!ok) {
            gp_error e;
            gp_error_clear(&e);
            e.code = GP_EINVAL;
            snprintf(e.path, sizeof e.path, "%s", path);
            snprintf(e.field, sizeof e.field, "%s", key);
            snprintf(e.msg, sizeof e.msg, "%s: unknown key '%s' (keys are plan's long flags with '_' for '-'; see docs/scenario.md)",
                     path, key);
            return cli_error(common, &e);
        }
    }
    return EXIT_OK;
}

static int write_file(cli_common *common, const char *path, const char *data, size_t len, int exec)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len) {
        if (f)
            fclose(f);
        fprintf(common->err ? common->err : stderr, "gpuplan: plan: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    if (fclose(f)) {
        fprintf(common->err ? common->err : stderr, "gpuplan: plan: cannot write %s: %s\n", path, strerror(errno));
        return EXIT_INPUT;
    }
    if (exec)
        chmod(path, 0755);
    return EXIT_OK;
}

/* --export DIR: the recommended option's launch files (gp_export_render, docs/export.md). */
static int export_winner(cli_common *common, const char *dir, const gp_plan_request *req, const gp_plan_result *res,
                         const gp_catalog *cat)
{
    if (res->recommended < 0) {
        fprintf(common->err ? common->err : stderr, "gpuplan: plan: --export: no option is allowed, nothing to export\n");
        return EXIT_INPUT;
    }
    gp_workload w;
    gp_layout l;
    gp_export_job job;
    gp_export_engine eng = gp_plan_launch_job(cat, req, res, res->recommended, &job, &w, &l);
    gp_export_files files;
    memset(&files, 0, sizeof files);
    gp_error err;
    gp_error_clear(&err);
    if (gp_export_render(eng, &job, &files, &err) != GP_OK)
        return cli_error(common, &err);
    int rc = EXIT_OK;
    if (mkdir(dir, 0755) && errno != EEXIST) {
        fprintf(common->err ? common->err : stderr, "gpuplan: plan: cannot create %s: %s\n", dir, strerror(errno));
        rc = EXIT_INPUT;
    }
    for (int i = 0; rc == EXIT_OK && i < files.n; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files.files[i].name);
        rc = write_file(common, path, files.files[i].content, files.files[i].len, files.files[i].executable);
        if (rc == EXIT_OK && !common->json)
            fprintf(common->err ? common->err : stderr, "gpuplan: wrote %s\n", path);
    }
    gp_export_files_free(&files);
    return rc;
}

/* Does the command line name a model (then the built-in example is not the base)? */
static int names_model(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "--model", 7) || !strcmp(argv[i], "-m") || !strncmp(argv[i], "--layers", 8) ||
            !strncmp(argv[i], "--help", 6) || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

int cmd_plan(int argc, char **argv, cli_common *common)
{
    plan_opts_t *o = calloc(1, sizeof *o);
    gp_plan_request *req = calloc(1, sizeof *req);
    gp_plan_result *res = calloc(1, sizeof *res);
    json_t *doc = NULL;
    char **sargv = NULL;
    int sargc = 0, rc = EXIT_OK, help = 0;
    char *report = NULL;
    if (!o || !req || !res) {
        rc = cli_usage_error(common, "plan", "out of memory");
        goto out;
    }
    cli_model_opts_init(&o->mo);
    cli_workload_opts_init(&o->wo);
    o->prompt = 1000;
    o->output = 200;
    o->seed = 1;
    o->egress = -1;
    o->lengths = GP_LENGTH_FIXED;

    /* the scenario: a file named first, or the built-in example when nothing is given */
    const char *path = NULL;
    int first_flag = 1;
    if (argc > 1 && argv[1][0] != '-') {
        path = argv[1];
        first_flag = 2;
        json_error_t jerr;
        doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
        if (!doc) {
            gp_error e;
            gp_error_clear(&e);
            e.code = GP_EPARSE;
            snprintf(e.path, sizeof e.path, "%s", path);
            e.line = jerr.line;
            e.column = jerr.column;
            snprintf(e.msg, sizeof e.msg, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
            rc = cli_error(common, &e);
            goto out;
        }
    } else if (!names_model(argc, argv)) {
        path = "built-in example"; /* flags alone (--format html, --lang pt-BR) refine it */
        doc = json_loads(builtin_scenario, 0, NULL);
    }
    if (doc) {
        if (!json_is_object(doc)) {
            rc = cli_usage_error(common, "plan", "%s: a scenario must be a JSON object of flags", path);
            goto out;
        }
        if ((rc = check_keys(common, path, doc)))
            goto out;
        for (size_t i = 0; doc_keys[i]; i++)
            json_object_del(doc, doc_keys[i]);
        if ((rc = cli_scenario_argv(common, "plan", doc, &sargc, &sargv)))
            goto out;
        o->pass = 0;
        if ((rc = parse_args(sargc, sargv, common, o, &help)))
            goto out;
    }
    /* flags after the file override it */
    o->pass = 1;
    {
        int n = argc - first_flag + 1;
        char **av = calloc((size_t)n + 1, sizeof *av);
        if (!av) {
            rc = cli_usage_error(common, "plan", "out of memory");
            goto out;
        }
        av[0] = argv[0];
        for (int i = first_flag; i < argc; i++)
            av[i - first_flag + 1] = argv[i];
        rc = parse_args(n, av, common, o, &help);
        free(av);
        if (rc)
            goto out;
    }
    if (help) {
        printf("%s%s%s  --json               machine-readable output (= --format json)\n", plan_help, cli_model_help,
               cli_workload_help);
        goto out;
    }

    gp_model m;
    if ((rc = cli_model_build("plan", &o->mo, common, &m)))
        goto out;
    gp_catalog *cat = cli_catalog(common);
    if (!cat) {
        rc = EXIT_INPUT;
        goto out;
    }
    gp_error err;
    gp_error_clear(&err);
    gp_plan_request_defaults(req);
    req->model = &m;
    req->w = o->wo.w;
    for (int i = 0; i < o->n_dtype; i++)
        req->dtypes[req->n_dtypes++] = o->dtype[i];
    for (int i = 0; i < o->n_gpu; i++) {
        const gp_gpu *g = NULL;
        if (gp_catalog_find_gpu(cat, o->gpu[i], &g, &err) != GP_OK) {
            rc = cli_error(common, &err);
            goto out;
        }
        req->gpus[req->n_gpus++] = g;
    }
    req->fixed_tp = o->wo.given.tp;
    int serving = req->w.task == GP_TASK_INFER;
    if (serving) {
        if ((o->users > 0) + o->rate_set != 1) {
            rc = cli_usage_error(common, "plan", "serving: give exactly one load, --users N or --rate R (or --task train)");
            goto out;
        }
        if (o->max_seqs > 0)
            req->w.max_num_seqs = o->max_seqs;
        gp_traffic *t = &req->traffic;
        t->work = cli_work(common);
        t->seed = o->seed;
        t->requests = o->requests;
        t->prompt.dist = t->output.dist = o->lengths;
        t->prompt.mean = (double)o->prompt;
        t->output.mean = (double)o->output;
        if (o->lengths == GP_LENGTH_EXPONENTIAL) {
            t->prompt.max = 4 * o->prompt;
            t->output.max = 4 * o->output;
        } else if (o->lengths == GP_LENGTH_UNIFORM) {
            t->prompt.min = o->prompt / 2 > 0 ? o->prompt / 2 : 1;
            t->prompt.max = o->prompt + o->prompt / 2;
            t->output.min = o->output / 2 > 0 ? o->output / 2 : 1;
            t->output.max = o->output + o->output / 2;
        }
        if (o->users > 0) {
            t->arrival = GP_ARRIVAL_CLOSED_LOOP;
            t->users = o->users;
            t->think_time_s = o->think;
        } else {
            t->arrival = o->fixed_arrival ? GP_ARRIVAL_FIXED_RATE : GP_ARRIVAL_POISSON;
            t->rate = o->rate;
        }
        req->slo.ttft_s = o->ttft;
        req->slo.tpot_s = o->tpot;
        req->redundancy = o->redundancy;
        req->availability = o->availability;
    } else {
        if (o->tokens <= 0 || (o->gpus <= 0 && o->deadline <= 0)) {
            rc = cli_usage_error(common, "plan", "training: give --tokens T and --gpus N or --deadline D");
            goto out;
        }
        req->train.work = cli_work(common);
        req->train.train_tokens = o->tokens;
        req->train.gpus = (int)o->gpus;
        req->train.deadline_s = o->deadline;
        if (o->max_gpus > 0)
            req->train.max_gpus = (int)o->max_gpus;
        req->train.allow_tp_across_nodes = o->tp_across;
        req->train.fixed = o->wo.given;
        req->train.rank = GP_RANK_TIME;
        req->train.top_k = 1;
    }
    snprintf(req->compliance, sizeof req->compliance, "%s", o->compliance ? o->compliance : "none");
    snprintf(req->currency, sizeof req->currency, "%s", o->currency ? o->currency : "USD");
    if (o->horizon > 0)
        req->horizon_months = o->horizon;
    req->egress_tb_per_month = o->egress;
    req->allow_consumer = o->allow_consumer;
    for (int i = 0; i < o->n_deploy; i++)
        snprintf(req->deployments[req->n_deployments++], sizeof req->deployments[0], "%s", o->deploy[i]);

    if (gp_plan(cat, req, res, &err) != GP_OK) {
        rc = cli_error(common, &err);
        goto out;
    }
    gp_report_opts ro = {GP_REPORT_TEXT, o->lang ? o->lang : "en", o->title, NULL};
    ro.format = common->json ? GP_REPORT_JSON : o->format ? gp_report_format_parse(o->format) : GP_REPORT_TEXT;
    size_t len = 0;
    if (gp_report_render(req, res, &ro, &report, &len, &err) != GP_OK) {
        rc = cli_error(common, &err);
        goto out;
    }
    if (o->export_dir && (rc = export_winner(common, o->export_dir, req, res, cat)))
        goto out;
    if (o->out) {
        rc = write_file(common, o->out, report, len, 0);
    } else if (ro.format == GP_REPORT_JSON) {
        json_t *j = json_loads(report, 0, NULL);
        if (j && o->report_html) { /* the web page's report download: the HTML inside the JSON */
            gp_report_opts ho = ro;
            char *html = NULL;
            ho.format = GP_REPORT_HTML;
            if (gp_report_render(req, res, &ho, &html, NULL, &err) == GP_OK)
                json_object_set_new(j, "report_html", json_string(html));
            gp_report_free(html);
        }
        rc = cli_print_json(common, j);
    } else {
        fwrite(report, 1, len, stdout);
    }
out:
    gp_report_free(report);
    cli_argv_free(sargc, sargv);
    json_decref(doc);
    if (o)
        for (int i = 0; i < o->n_gpu; i++)
            free(o->gpu[i]);
    free(o);
    free(req);
    free(res);
    return rc;
}
