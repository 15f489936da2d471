/*
 * render.h: pieces shared by the report renderers (report.c, svg.c). Library-internal.
 */
#ifndef GPI_RENDER_H
#define GPI_RENDER_H

#include "internal.h"

/* A growable NUL-terminated string; `failed` sticks after an allocation failure. */
typedef struct gpi_buf {
    char *s;
    size_t len, cap;
    int failed;
} gpi_buf;

void gpi_buf_printf(gpi_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Append text escaped for HTML/SVG (& < > " '). */
void gpi_buf_html(gpi_buf *b, const char *s);

/* A series of (x, y) for a line chart. */
typedef struct gpi_series {
    const char *name;
    const double *y; /* y[0..n-1] at x = 0..n-1 */
    int n;
} gpi_series;

/* Stacked horizontal bars: one bar per row, one segment per component. */
#define GPI_SVG_MAX_COMPONENTS 6
typedef struct gpi_bar {
    char label[96];
    double value[GPI_SVG_MAX_COMPONENTS];
    double capacity; /* a tick at this value (0: none) */
} gpi_bar;

/* Inline SVG charts (no external references; colours from a fixed palette). */
void gpi_svg_stacked_bars(gpi_buf *b, const char *title, const char *unit, const char *const *components,
                          int n_components, const gpi_bar *bars, int n_bars, const char *capacity_label);
void gpi_svg_lines(gpi_buf *b, const char *title, const char *x_label, const char *y_label, const gpi_series *series,
                   int n_series, int mark_x, const char *mark_label);
/* Scatter with one colour per group; x = GPUs, y = throughput. */
typedef struct gpi_point {
    const char *group;
    double x, y;
    int filled; /* 1: meets the targets */
} gpi_point;
void gpi_svg_scatter(gpi_buf *b, const char *title, const char *x_label, const char *y_label, const gpi_point *pts,
                     int n);

#endif
