/*
 * cli.h: shared pieces of the gpuplan command-line front end. The CLI turns flags into a
 * scenario (the library's key table gives every flag), calls one library run function and
 * prints its result as text or JSON; it holds no planning logic.
 */
#ifndef GP_CLI_H
#define GP_CLI_H

#include <gpuplan.h>
#include <getopt.h>
#include <stdio.h>

/* Exit codes (docs/cli.md): success, bad input, bad usage. */
enum { EXIT_OK = 0, EXIT_INPUT = 1, EXIT_USAGE = 2 };

/* Options every command accepts. */
typedef struct cli_common {
    int json;             /* --json: machine-readable output on stdout */
    FILE *err;            /* where messages go (stderr) */
    const char *data_dir; /* --data-dir DIR: user data overriding the built-in data files */
    gp_catalog *cat;      /* opened lazily by cli_catalog() */
} cli_common;

typedef struct cli_command {
    const char *name;
    int (*run)(int argc, char **argv, cli_common *common);
    const char *summary;
} cli_command;

/* Long options shared by all commands (commands outside the key table: web, probe, gpus). */
#define CLI_COMMON_OPTS                                                                                                \
    {"json", no_argument, NULL, 'J'}, {"data-dir", required_argument, NULL, 'D'},                                      \
    {                                                                                                                  \
        "help", no_argument, NULL, 'h'                                                                                 \
    }

/* Handle a common option; returns 1 if it was one. */
int cli_common_opt(int opt, const char *arg, cli_common *common);

/* The catalog (built-in + --data-dir), opened on first use; NULL after printing an error. */
gp_catalog *cli_catalog(cli_common *common);

/* Where messages go: common->err, else stderr. */
FILE *cli_err(cli_common *common);
/* Print a library error to stderr as "gpuplan: <message>" (+ location). Returns EXIT_INPUT. */
int cli_error(cli_common *common, const gp_error *err);
/* A run function's error: GP_EUSAGE as a usage error (EXIT_USAGE), else cli_error. */
int cli_run_error(cli_common *common, const char *cmd, const gp_error *err);
/* Print a usage error and a hint to stderr. Returns EXIT_USAGE. */
int cli_usage_error(cli_common *common, const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Parse a number with a range check; on failure print a usage error and return -1. */
int cli_parse_i64(cli_common *common, const char *cmd, const char *flag, const char *s, int64_t min, int64_t max,
                  int64_t *out);

/* Print a document (gp_result_json, gp_result_text and the like) to stdout, then free it. EXIT_OK. */
int cli_print_text(char *text, size_t len);

/* Write a document to path (exec: mode 0755); on failure "gpuplan: CMD: cannot write PATH:
 * why" on stderr and EXIT_INPUT. */
int cli_write_file(cli_common *common, const char *cmd, const char *path, const char *data, size_t len, int exec);
/* Write launch files under dir (created if missing), each announced on `announce` as
 * "<prefix>wrote PATH" (NULL: silent). EXIT_* code. */
int cli_write_files(cli_common *common, const char *cmd, const char *dir, const gp_export_files *f, FILE *announce,
                    const char *prefix);
/* ---- flags from the key table ---- */
/* Parse argv (argv[0] = the command) into sc: every key of the command is a long flag
 * (--kv-dtype), -m is --model and -g --gpu, plus --json, --data-dir and --help (*help set).
 * At most `max_pos` positional arguments go to pos[] (*n_pos). Usage errors are printed:
 * returns EXIT_OK or EXIT_USAGE. */
int cli_parse_flags(cli_common *common, const char *cmd, int argc, char **argv, gp_scenario *sc, int *help,
                    const char **pos, int max_pos, int *n_pos);
/* Help: the intro, then one line per key of the command (from the key table). */
void cli_print_help(const char *intro, unsigned command);
/* The run context of a CLI run (no deadline; NVML from GPUPLAN_NVML_LIB). */
void cli_run_ctx(gp_run_ctx *ctx);

/* ---- progress on stderr (progress.c) ---- */
typedef struct cli_progress {
    FILE *f;
    const char *cmd;
    int on, forced;         /* printing at all; asked by GPUPLAN_PROGRESS=1 (from the first report) */
    double start_s, last_s; /* gp_run_clock() at the start; seconds after it of the last line (-1: none) */
    int lines;              /* progress lines printed (a final line follows only if some were) */
} cli_progress;
/* Decide whether to print (a terminal, or GPUPLAN_PROGRESS=1; GPUPLAN_PROGRESS=0: never). */
void cli_progress_start(cli_progress *p, cli_common *common, const char *cmd);
/* Point a run context's progress callback at p (when p prints at all). */
void cli_progress_wire(cli_progress *p, gp_run_ctx *ctx);
/* The callback (gp_run_progress_fn): one throttled line. */
void cli_progress_report(void *arg, const gp_run_progress *r);
/* The final line ("done in 2.3 s" or "stopped after ..."), if a progress line was printed. */
void cli_progress_end(cli_progress *p, int ok);
/* Parse flags and run the question: *out the result (EXIT_OK), or the exit code after printing
 * the error. *help: --help was asked (nothing run). */
int cli_run_question(cli_common *common, const char *cmd, int argc, char **argv, const char *help_text,
                     gp_result **out);
/* A question from flags to print: cli_run_question, then the result's JSON (--json) or text
 * (gp_result_text) on stdout. EXIT_* code. */
int cli_answer(cli_common *common, const char *cmd, int argc, char **argv, const char *help_text);

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
int cmd_calibrate(int argc, char **argv, cli_common *common);
/* gpuplan probe --bench [--out FILE] (cmd_calibrate.c): libs = cudart, cublaslt, nccl paths. */
int cli_probe_bench(cli_common *common, gp_catalog *cat, const char *const libs[3], const char *out);
/* probe's option #i of --bench, --out, --cudart, --cublaslt, --nccl into its variables; 1. */
int cli_probe_bench_opt(int i, const char *arg, int *bench, const char **out, const char *libs[3]);
/* The scenario's --profile (a calibration profile, docs/calibration.md) applied to the catalog,
 * and a line on stderr saying so; EXIT_OK, or EXIT_INPUT after printing why not. */
int cli_apply_profile(cli_common *common, gp_catalog *cat, const gp_scenario *sc);
int cmd_probe(int argc, char **argv, cli_common *common);

/* The NVML library to load: `given`, else $GPUPLAN_NVML_LIB, else NULL (the default). */
const char *cli_nvml_path(const char *given);

#endif
