/*
 * runs_impl.h: what the readers of measured runs share (runs*.c). Private to the library.
 */
#ifndef GPI_RUNS_IMPL_H
#define GPI_RUNS_IMPL_H

#include "internal.h"
#include "gpuplan/calibrate.h"

#include <stddef.h>

/* Limits that keep a hostile file bounded (docs/calibration.md). */
#define GPI_RUNS_MAX_FILE    (64u * 1024u * 1024u) /* one input file */
#define GPI_RUNS_MAX_LINE    (64u * 1024u)         /* one JSON Lines / CSV line */
#define GPI_RUNS_MAX_RUNS    100000                /* runs in one set */
#define GPI_RUNS_MAX_COLUMNS 256                   /* CSV columns */
#define GPI_RUNS_MAX_SAMPLES 1000000               /* log lines a median is taken over */

/* A line of the input: [s, s+len), 1-based number. */
typedef struct gpi_line {
    const char *s;
    size_t len;
    int no;
} gpi_line;

/* Iterate over the lines of text; returns 0 at the end. */
typedef struct gpi_lines {
    const char *p, *end;
    int no;
} gpi_lines;
void gpi_lines_init(gpi_lines *it, const char *text, size_t len);
int gpi_lines_next(gpi_lines *it, gpi_line *out);

/* Does [s, s+len) contain needle? */
const char *gpi_memstr(const char *s, size_t len, const char *needle);

/* The number that follows `label` in the line (thousands commas allowed, as torchtitan and
   trtllm-bench print them); 1 and *out when found and finite, else 0. */
int gpi_number_after(const gpi_line *ln, const char *label, double *out);

/* Start a run: zeroed, figures NaN, kind/format/line set. */
void gpi_run_init(gpi_measured_run *r, gpi_run_kind kind, gpi_run_format format, int line);

/* Median of xs[0..n) (sorts xs); NaN when n == 0. */
double gpi_median(double *xs, size_t n);

/* A growing array of doubles for log samples, capped at GPI_RUNS_MAX_SAMPLES. */
typedef struct gpi_samples {
    double *v;
    size_t n, cap;
} gpi_samples;
int gpi_samples_push(gpi_samples *s, double x); /* 0, or -1 when full / out of memory */
void gpi_samples_free(gpi_samples *s);
/* Median of the samples after dropping the warm-up: the first max(1, n/10) of them when there
   are at least 3, none otherwise. */
double gpi_samples_steady_median(gpi_samples *s);

/* Add a run to the set; scenario is a JSON object (stolen reference: the set keeps it, and
   the defaults fill the keys it lacks). */
gp_status gpi_runset_add(gpi_runset *set, gpi_measured_run *r, json_t *scenario, const char *name, gp_error *err);

/* Fail with FILE:LINE (and field) set. */
gp_status gpi_runs_fail(gp_error *err, const char *name, int line, const char *field, gp_status code, const char *fmt,
                        ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;

/* The readers, one per format: each appends to set or fails leaving it as it was. */
gp_status gpi_runs_jsonl(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_csv(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_megatron(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_torchtitan(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_vllm(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_trtllm(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_serve_text(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);
gp_status gpi_runs_nccl(gpi_runset *set, const char *name, const char *text, size_t len, gp_error *err);

/* Set a measured key (JSON Lines / CSV vocabulary) on a run; GP_EINVAL for an unknown key or
   a value outside its physical range (the message names both). */
gp_status gpi_run_set_measured(gpi_measured_run *r, const char *key, double v, const char *name, int line,
                               gp_error *err);

/* Every figure of the run inside its key's range (GP_EINVAL naming the key otherwise). */
gp_status gpi_run_check_ranges(const gpi_measured_run *r, const char *name, gp_error *err);

/* Number of runs now in the set (to roll back a reader that fails half-way). */
size_t gpi_runset_mark(const gpi_runset *set);
void gpi_runset_rollback(gpi_runset *set, size_t mark);

#endif
