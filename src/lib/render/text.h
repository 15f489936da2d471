/*
 * text.h: the answers as the text the CLI prints, rendered into memory (text.c, text_train.c,
 * text_serve.c, text_catalog.c); gp_result_text and the catalog's *_text functions return
 * them. Library-internal.
 */
#ifndef GPI_TEXT_H
#define GPI_TEXT_H

#include "render.h"

/* The buffer's text into *text / *len (the caller frees it with gp_text_free); GP_ENOMEM
 * (buffer released) if an append failed. */
gp_status gpi_buf_take(gpi_buf *b, char **text, size_t *len, gp_error *err);

/* Human formats into caller buffers; each returns buf. */
const char *gpi_fmt_count(char *buf, size_t n, int64_t v);    /* 70,553,706,496 */
const char *gpi_fmt_bytes(char *buf, size_t n, double bytes); /* 141.1 GB (131.4 GiB) */
const char *gpi_fmt_si(char *buf, size_t n, double v);        /* 70.55 B, 1.23 T */
const char *gpi_fmt_cuda(char *buf, size_t n, int v);         /* NVML's 12040: "12.4"; 0: "unknown" */

/* The end of a likely range's line, whose runs it comes from: "N published <basis> runs" for an
 * architecture (cases > 0), "published <basis> runs" for a pool (`fallback` when basis is ""),
 * then `tail`, then which way gpuplan has mostly erred where [p10, p90] leaves 0 out, and ")\n". */
void gpi_text_range_source(gpi_buf *tb, const char *basis, int cases, const char *fallback, const char *tail,
                           double p10, double p90);

/* One answer each (gpuplan fit, train, serve, table). */
void gpi_text_fit(gpi_buf *tb, const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                  const gp_fit_result *r);
void gpi_text_train(gpi_buf *tb, const gp_model *m, const gp_gpu *gpu, const gp_workload *w, const gp_scenario *sc,
                    const gp_train_answer *a);
void gpi_text_serve(gpi_buf *tb, const gp_model *m, const gp_workload *w, const gp_scenario *sc,
                    const gp_serve_answer *a);
void gpi_text_table(gpi_buf *tb, const gp_table_row *rows, size_t n, const gp_gpu *gpu, const gp_workload *wi,
                    const gp_workload *wt);

#endif
