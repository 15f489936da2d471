/*
 * svg.c: small inline SVG charts for the HTML report (stacked bars, lines, scatter). Output
 * is plain SVG markup with fixed sizes and a fixed palette, no scripts, fonts or links, so
 * the report opens offline and prints.
 */
#include "render.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gpi_buf_printf(gpi_buf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    for (;;) {
        size_t room = b->cap - b->len;
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? room : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if (b->s && (size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
}

void gpi_buf_html(gpi_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': gpi_buf_printf(b, "&amp;"); break;
        case '<': gpi_buf_printf(b, "&lt;"); break;
        case '>': gpi_buf_printf(b, "&gt;"); break;
        case '"': gpi_buf_printf(b, "&quot;"); break;
        case '\'': gpi_buf_printf(b, "&#39;"); break;
        default: gpi_buf_printf(b, "%c", *s); break;
        }
    }
}

static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
#define PALETTE_N (sizeof palette / sizeof palette[0])

/* A "nice" upper bound for an axis: 1, 2 or 5 x 10^k at or above v. */
static double nice_max(double v)
{
    if (v <= 0)
        return 1;
    double e = pow(10, floor(log10(v)));
    double m = v / e;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * e;
}

static void text(gpi_buf *b, double x, double y, const char *anchor, int size, const char *s)
{
    gpi_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">", x, y, anchor, size);
    gpi_buf_html(b, s);
    gpi_buf_printf(b, "</text>");
}

static void fmt_num(char *out, size_t n, double v)
{
    double a = fabs(v);
    if (a >= 1e9)
        snprintf(out, n, "%.3gG", v / 1e9);
    else if (a >= 1e6)
        snprintf(out, n, "%.3gM", v / 1e6);
    else if (a >= 1e3)
        snprintf(out, n, "%.3gk", v / 1e3);
    else
        snprintf(out, n, "%.3g", v);
}

void gpi_svg_stacked_bars(gpi_buf *b, const char *title, const char *unit, const char *const *components,
                          int n_components, const gpi_bar *bars, int n_bars, const char *capacity_label)
{
    const double left = 230, right = 30, top = 40, row = 26, w = 760;
    double h = top + row * n_bars + 60;
    double max = 0;
    for (int i = 0; i < n_bars; i++) {
        double sum = 0;
        for (int k = 0; k < n_components; k++)
            sum += bars[i].value[k];
        if (sum > max)
            max = sum;
        if (bars[i].capacity > max)
            max = bars[i].capacity;
    }
    max = nice_max(max);
    double plot = w - left - right;
    gpi_buf_printf(b,
                   "<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                   "height=\"%.0f\" role=\"img\">",
                   w, h, w, h);
    text(b, w / 2, 20, "middle", 14, title);
    for (int t = 0; t <= 4; t++) {
        double x = left + plot * t / 4;
        char lab[32];
        fmt_num(lab, sizeof lab, max * t / 4);
        gpi_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", x, top - 4, x,
                       top + row * n_bars);
        text(b, x, top + row * n_bars + 14, "middle", 10, lab);
    }
    text(b, left + plot / 2, top + row * n_bars + 30, "middle", 11, unit);
    for (int i = 0; i < n_bars; i++) {
        double y = top + row * i, x = left;
        text(b, left - 6, y + row * 0.62, "end", 11, bars[i].label);
        for (int k = 0; k < n_components; k++) {
            double wd = plot * bars[i].value[k] / max;
            if (wd <= 0)
                continue;
            gpi_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>", x,
                           y + 3, wd, row - 6, palette[k % PALETTE_N]);
            gpi_buf_html(b, components[k]);
            gpi_buf_printf(b, "</title></rect>");
            x += wd;
        }
        if (bars[i].capacity > 0) {
            double cx = left + plot * bars[i].capacity / max;
            gpi_buf_printf(b,
                           "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                           "stroke-width=\"2\"/>",
                           cx, y + 1, cx, y + row - 1);
        }
    }
    /* legend */
    double lx = left, ly = h - 14;
    for (int k = 0; k < n_components; k++) {
        gpi_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"10\" height=\"10\" fill=\"%s\"/>", lx, ly - 9,
                       palette[k % PALETTE_N]);
        text(b, lx + 14, ly, "start", 10, components[k]);
        lx += 14 + 7.0 * (double)strlen(components[k]) + 12;
    }
    if (capacity_label) {
        gpi_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-width=\"2\"/>",
                       lx, ly - 10, lx, ly + 1);
        text(b, lx + 6, ly, "start", 10, capacity_label);
    }
    gpi_buf_printf(b, "</svg>\n");
}

void gpi_svg_lines(gpi_buf *b, const char *title, const char *x_label, const char *y_label, const gpi_series *series,
                   int n_series, int mark_x, const char *mark_label)
{
    const double left = 90, right = 180, top = 40, bottom = 50, w = 760, h = 360;
    double plot_w = w - left - right, plot_h = h - top - bottom;
    double ymax = 0;
    int xmax = 1;
    for (int s = 0; s < n_series; s++) {
        for (int i = 0; i < series[s].n; i++)
            if (series[s].y[i] > ymax)
                ymax = series[s].y[i];
        if (series[s].n - 1 > xmax)
            xmax = series[s].n - 1;
    }
    ymax = nice_max(ymax);
    gpi_buf_printf(b,
                   "<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                   "height=\"%.0f\" role=\"img\">",
                   w, h, w, h);
    text(b, (left + w - right) / 2, 20, "middle", 14, title);
    for (int t = 0; t <= 4; t++) {
        double y = top + plot_h * (1 - t / 4.0);
        char lab[32];
        fmt_num(lab, sizeof lab, ymax * t / 4);
        gpi_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", left, y,
                       left + plot_w, y);
        text(b, left - 6, y + 4, "end", 10, lab);
    }
    int step = xmax <= 12 ? 1 : xmax <= 48 ? 6 : 12;
    for (int x = 0; x <= xmax; x += step) {
        char lab[16];
        snprintf(lab, sizeof lab, "%d", x);
        text(b, left + plot_w * x / xmax, top + plot_h + 14, "middle", 10, lab);
    }
    text(b, left + plot_w / 2, h - 12, "middle", 11, x_label);
    gpi_buf_printf(
        b, "<text x=\"16\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">",
        top + plot_h / 2, top + plot_h / 2);
    gpi_buf_html(b, y_label);
    gpi_buf_printf(b, "</text>");
    /* drawn last to first: the first series (the recommendation) lies on top, thicker; series
     * named "... (x)" (excluded by a rule) are dashed */
    for (int s = n_series - 1; s >= 0; s--) {
        const char *nm = series[s].name ? series[s].name : "";
        size_t nl = strlen(nm);
        int dashed = nl >= 3 && !strcmp(nm + nl - 3, "(x)");
        gpi_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"",
                       palette[s % PALETTE_N], s == 0 ? "4" : "1.5", dashed ? " stroke-dasharray=\"5 3\"" : "");
        for (int i = 0; i < series[s].n; i++)
            gpi_buf_printf(b, "%.1f,%.1f ", left + plot_w * i / xmax, top + plot_h * (1 - series[s].y[i] / ymax));
        gpi_buf_printf(b, "\"/>");
    }
    for (int s = 0; s < n_series; s++) {
        double ly = top + 14 + 18.0 * s;
        gpi_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"3\" fill=\"%s\"/>", left + plot_w + 10,
                       ly - 4, palette[s % PALETTE_N]);
        text(b, left + plot_w + 26, ly, "start", 10, series[s].name);
    }
    if (mark_x > 0 && mark_x <= xmax) {
        double x = left + plot_w * mark_x / xmax;
        gpi_buf_printf(b,
                       "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" "
                       "stroke-dasharray=\"4 3\"/>",
                       x, top, x, top + plot_h);
        if (mark_label) /* left of the line in the right half, clear of the legend */
            text(b, mark_x * 2 > xmax ? x - 4 : x + 4, top + 12, mark_x * 2 > xmax ? "end" : "start", 10, mark_label);
    }
    gpi_buf_printf(b, "</svg>\n");
}

void gpi_svg_scatter(gpi_buf *b, const char *title, const char *x_label, const char *y_label, const gpi_point *pts,
                     int n)
{
    const double left = 90, right = 180, top = 40, bottom = 50, w = 760, h = 360;
    double plot_w = w - left - right, plot_h = h - top - bottom;
    double xmax = 0, ymax = 0;
    for (int i = 0; i < n; i++) {
        if (pts[i].x > xmax)
            xmax = pts[i].x;
        if (pts[i].y > ymax)
            ymax = pts[i].y;
    }
    xmax = nice_max(xmax);
    ymax = nice_max(ymax);
    const char *groups[PALETTE_N];
    int n_groups = 0;
    gpi_buf_printf(b,
                   "<svg viewBox=\"0 0 %.0f %.0f\" width=\"%.0f\" "
                   "height=\"%.0f\" role=\"img\">",
                   w, h, w, h);
    text(b, (left + w - right) / 2, 20, "middle", 14, title);
    for (int t = 0; t <= 4; t++) {
        double y = top + plot_h * (1 - t / 4.0), x = left + plot_w * t / 4.0;
        char lab[32];
        fmt_num(lab, sizeof lab, ymax * t / 4);
        gpi_buf_printf(b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>", left, y,
                       left + plot_w, y);
        text(b, left - 6, y + 4, "end", 10, lab);
        fmt_num(lab, sizeof lab, xmax * t / 4);
        text(b, x, top + plot_h + 14, "middle", 10, lab);
    }
    text(b, left + plot_w / 2, h - 12, "middle", 11, x_label);
    gpi_buf_printf(
        b, "<text x=\"16\" y=\"%.1f\" font-size=\"11\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">",
        top + plot_h / 2, top + plot_h / 2);
    gpi_buf_html(b, y_label);
    gpi_buf_printf(b, "</text>");
    for (int i = 0; i < n; i++) {
        int g = 0;
        while (g < n_groups && strcmp(groups[g], pts[i].group))
            g++;
        if (g == n_groups && n_groups < (int)PALETTE_N)
            groups[n_groups++] = pts[i].group;
        if (g >= (int)PALETTE_N)
            g = PALETTE_N - 1;
        const char *col = palette[g];
        gpi_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" stroke=\"%s\" stroke-width=\"2\" fill=\"%s\"/>",
                       left + plot_w * pts[i].x / xmax, top + plot_h * (1 - pts[i].y / ymax), col,
                       pts[i].filled ? col : "#fff");
    }
    for (int g = 0; g < n_groups; g++) {
        double ly = top + 14 + 18.0 * g;
        gpi_buf_printf(b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\"/>", left + plot_w + 16, ly - 3,
                       palette[g]);
        text(b, left + plot_w + 26, ly, "start", 10, groups[g]);
    }
    gpi_buf_printf(b, "</svg>\n");
}
