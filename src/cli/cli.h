/*
 * cli.h: shared pieces of the gpuplan command-line front end. The CLI only turns flags into
 * library calls and results into text or JSON; it holds no planning logic.
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include <gpuplan.h>
#include <jansson.h>
#include <getopt.h>
#include <stdio.h>

/* Exit codes (docs/cli.md): success, bad input, bad usage. */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* Options every command accepts. */
typedef struct cli_common {
    int json;               /* --json: machine-readable output on stdout */
    FILE *err;              /* where messages go (stderr; the web server captures them) */
    json_t *result;         /* with capture set: the --json document, instead of printing */
    int capture;
    const char *data_dir;   /* --data-dir DIR: user data overriding the built-in data files */
    gp_catalog *cat;        /* opened lazily by cli_catalog() */
    const gp_model *model;  /* the web API's inline model (a config.json object), used when
                               --model is absent; NULL otherwise */
    int allow_large;        /* --allow-large: the library's largest work budget */
    gp_work work;           /* the command's work budget (cli_work) */
    double work_start_s, work_printed_s; /* progress on stderr after a second */
} cli_common;

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv, cli_common *common);
    const char *summary;
} cli_command;

/* Long options shared by all commands; merged into each command's table. */
#define CLI_COMMON_OPTS                                        \
    {"json", no_argument, NULL, 'J'},                          \
    {"data-dir", required_argument, NULL, 'D'},                \
    {"allow-large", no_argument, NULL, 'A'},                   \
    {"help", no_argument, NULL, 'h'}

/* Handle a common option; returns 1 if it was one. */
int cli_common_opt(int opt, const char *arg, cli_common *common);

/* The command's work budget (docs/reliability.md): the default, or with --allow-large the
 * largest; progress goes to stderr once the work has run a second (not when captured). */
gp_work *cli_work(cli_common *common);

/* The catalog (built-in + --data-dir), opened on first use; NULL after printing an error. */
gp_catalog *cli_catalog(cli_common *common);

/* Print a library error to stderr as "gpuplan: <message>" (+ location). Returns EXIT_INPUT. */
int cli_error(cli_common *common, const gp_error *err);
/* Print a usage error and a hint to stderr. Returns EXIT_USAGE. */
int cli_usage_error(cli_common *common, const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Parse numbers with range checks; on failure print a usage error and return -1. */
int cli_parse_i64(cli_common *common, const char *cmd, const char *flag, const char *s, int64_t min, int64_t max,
                  int64_t *out);
int cli_parse_double(cli_common *common, const char *cmd, const char *flag, const char *s, double min, double max,
                     double *out);

/* "15T", "300B", "2.5M", "4096": a count of tokens; "30d", "12h", "90m", "45s", "2w",
 * "3600": seconds; "n+1", "none", "2": spare replicas. 0 on success, -1 if malformed. */
int cli_parse_tokens(const char *s, double *out);
int cli_parse_duration(const char *s, double *out);
int cli_parse_redundancy(const char *s, int *out);

/* Print a JSON value to stdout (indented), then release it. Returns EXIT_OK. */
int cli_print_json(cli_common *common, json_t *v);

/* Human formatting into caller buffers. */
const char *cli_fmt_count(char *buf, size_t n, int64_t v);       /* 70,553,706,496 */
const char *cli_fmt_bytes(char *buf, size_t n, double bytes);    /* 141.1 GB (131.4 GiB) */
const char *cli_fmt_si(char *buf, size_t n, double v);           /* 70.55 B, 1.23 T */

/* ---- model selection flags (--model and explicit architecture), shared by commands ---- */
typedef struct cli_model_opts {
    const char *spec;                  /* --model */
    int64_t layers, hidden, heads, kv_heads, head_dim, ffn, vocab;
    int64_t experts, experts_active, moe_ffn, shared_experts;
    int tied;                          /* -1 unset, 0/1 */
    int any_override;
} cli_model_opts;

#define CLI_MODEL_OPTS                                              \
    {"model", required_argument, NULL, 'm'},                        \
    {"layers", required_argument, NULL, 1001},                      \
    {"hidden", required_argument, NULL, 1002},                      \
    {"heads", required_argument, NULL, 1003},                       \
    {"kv-heads", required_argument, NULL, 1004},                    \
    {"head-dim", required_argument, NULL, 1005},                    \
    {"ffn", required_argument, NULL, 1006},                         \
    {"vocab", required_argument, NULL, 1007},                       \
    {"experts", required_argument, NULL, 1008},                     \
    {"experts-active", required_argument, NULL, 1009},              \
    {"moe-ffn", required_argument, NULL, 1010},                     \
    {"shared-experts", required_argument, NULL, 1011},              \
    {"tied-embeddings", optional_argument, NULL, 1012}

void cli_model_opts_init(cli_model_opts *o);
/* Handle a model option: 1 handled, 0 not a model option, -1 bad value (message printed). */
int cli_model_opt(cli_common *common, const char *cmd, int opt, const char *arg, cli_model_opts *o);
/* Build the model: resolve --model (if any), then apply explicit fields. EXIT_* code. */
int cli_model_build(const char *cmd, cli_model_opts *o, cli_common *common, gp_model *out);
/* cli_model_build, then the catalog and the GPU named (--gpu): the preamble of fit, train,
 * serve and export. EXIT_* code. */
int cli_model_and_gpu(const char *cmd, cli_model_opts *mo, const char *gpu_name, cli_common *common,
                      gp_model *m, gp_catalog **cat, const gp_gpu **gpu);
/* Help text for the model flags. */
extern const char cli_model_help[];

/* ---- workload, layout and hardware flags ---- */
typedef struct cli_workload_opts {
    const char *gpu;       /* --gpu */
    gp_workload w;
    gp_layout given;       /* layout dimensions given (0: search) */
    int context_set;
} cli_workload_opts;

#define CLI_WORKLOAD_OPTS                                            \
    {"gpu", required_argument, NULL, 'g'},                           \
    {"task", required_argument, NULL, 2001},                         \
    {"dtype", required_argument, NULL, 2002},                        \
    {"kv-dtype", required_argument, NULL, 2003},                     \
    {"context", required_argument, NULL, 2004},                      \
    {"batch", required_argument, NULL, 2005},                        \
    {"seq", required_argument, NULL, 2006},                          \
    {"optimizer", required_argument, NULL, 2007},                    \
    {"offload", required_argument, NULL, 2008},                      \
    {"lora-rank", required_argument, NULL, 2009},                    \
    {"no-flash-attention", no_argument, NULL, 2010},                 \
    {"engine", required_argument, NULL, 2011},                       \
    {"gpu-memory-utilization", required_argument, NULL, 2012},       \
    {"block-size", required_argument, NULL, 2013},                   \
    {"max-num-batched-tokens", required_argument, NULL, 2014},       \
    {"tp", required_argument, NULL, 2101},                           \
    {"pp", required_argument, NULL, 2102},                           \
    {"dp", required_argument, NULL, 2103},                           \
    {"cp", required_argument, NULL, 2104},                           \
    {"ep", required_argument, NULL, 2105},                           \
    {"zero", required_argument, NULL, 2106},                         \
    {"micro-batch", required_argument, NULL, 2107},                  \
    {"global-batch", required_argument, NULL, 2108},                 \
    {"recompute", required_argument, NULL, 2109},                    \
    {"sequence-parallel", no_argument, NULL, 2110},                  \
    {"virtual-stages", required_argument, NULL, 2111}

void cli_workload_opts_init(cli_workload_opts *o);
/* 1 handled, 0 not a workload option, -1 bad value (message printed). */
int cli_workload_opt(cli_common *common, const char *cmd, int opt, const char *arg, cli_workload_opts *o);
extern const char cli_workload_help[];

/* ---- scenario documents ---- */
/* Turn a scenario object into argv for `cmd` (argv[0] = cmd): keys are long flags with '_'
 * for '-'; true switches a flag on, a list repeats it. Free with cli_argv_free. */
int cli_scenario_argv(cli_common *common, const char *cmd, json_t *doc, int *argc, char ***argv);
void cli_argv_free(int argc, char **argv);
/* Run a command by name with argv (argv[0] = name); EXIT_USAGE if no such command. */
int cli_run_command(cli_common *common, int argc, char **argv);

/* ---- commands ---- */
int cmd_fit(int argc, char **argv, cli_common *common);
int cmd_model(int argc, char **argv, cli_common *common);
int cmd_gpus(int argc, char **argv, cli_common *common);
int cmd_table(int argc, char **argv, cli_common *common);
int cmd_serve(int argc, char **argv, cli_common *common);
int cmd_train(int argc, char **argv, cli_common *common);
int cmd_plan(int argc, char **argv, cli_common *common);
int cmd_export(int argc, char **argv, cli_common *common);
int cmd_web(int argc, char **argv, cli_common *common);
int cmd_probe(int argc, char **argv, cli_common *common);

/* `--gpu local` (cmd_probe.c): the catalog id of this machine's first GPU, probed through NVML
 * (GPUPLAN_NVML_LIB names the library); 0, or -1 after printing why not. */
int cli_gpu_local(cli_common *common, const char *cmd, const char **id);
/* The NVML library to load: `given`, else $GPUPLAN_NVML_LIB, else NULL (the default). */
const char *cli_nvml_path(const char *given);

#endif
