/*
 * json_scan.c: a structural pass over JSON text before Jansson builds a tree of it.
 *
 * Jansson's tree costs about 50-200 bytes per value (an empty object costs most), so 16 MiB of
 * `[{},{},...]` became 1.26 GB. This pass walks the text once, keeping only a stack of the
 * open containers, counts values, keys and containers and measures the depth, and refuses
 * input past the caller's limits before anything is allocated. It also finds the byte span of
 * one value (gpi_json_span), so a large document can be parsed an entry at a time. It checks
 * structure (brackets, commas, colons, string ends) only; Jansson still parses each accepted
 * value strictly (numbers, escapes, UTF-8, duplicate keys).
 */
#include "internal.h"

#include <string.h>

#define SCAN_STACK_MAX 256

static size_t skip_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* Past a string starting at s[i] == '"'; len (past the end) if unterminated. */
static size_t skip_string(const char *s, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return (size_t)-1;
}

/* Past a number or literal (true, false, null): the characters they may hold. */
static size_t skip_scalar(const char *s, size_t len, size_t i)
{
    size_t start = i;
    while (i < len && ((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'z') || s[i] == '-' || s[i] == '+' ||
                       s[i] == '.' || s[i] == 'E'))
        i++;
    return i > start ? i : (size_t)-1;
}

static gp_status scan_fail(gp_error *err, gp_status code, size_t at, const char *what)
{
    if (err)
        err->offset = (int64_t)at;
    return gpi_fail(err, code, "%s", what); /* the caller places err->offset in its file */
}

/* What may come next inside the containers open. */
typedef enum want { W_VALUE, W_KEY, W_KEY_OR_END, W_VALUE_OR_END, W_COMMA_OR_END } want;

/* A ',' or a closing bracket after a value; returns the new state, or -1 on a syntax error. */
static int after_value(const char *s, size_t *i, char *stack, int *depth)
{
    char c = s[*i], top = stack[*depth - 1];
    (*i)++;
    if (c == ',')
        return top == '{' ? W_KEY : W_VALUE;
    if ((c == '}' && top == '{') || (c == ']' && top == '['))
        return (*depth)--, W_COMMA_OR_END;
    return -1;
}

/* One value (and everything inside it) from s[*pos]; *pos ends just past it. */
gp_status gpi_json_scan_value(const char *s, size_t len, size_t *pos, const gpi_json_limits *lim, gpi_json_counts *n,
                              gp_error *err)
{
    char stack[SCAN_STACK_MAX]; /* '{' or '[' per open container */
    int depth = 0;
    int max_depth = lim->max_depth < SCAN_STACK_MAX ? lim->max_depth : SCAN_STACK_MAX;
    size_t i = *pos;
    want w = W_VALUE;
    for (;;) {
        i = skip_ws(s, len, i);
        if (i >= len)
            return scan_fail(err, GP_EPARSE, i, "the JSON text ends inside a value");
        char c = s[i];
        if (w == W_COMMA_OR_END || ((w == W_KEY_OR_END || w == W_VALUE_OR_END) && (c == '}' || c == ']'))) {
            int next = after_value(s, &i, stack, &depth);
            if (next < 0)
                return scan_fail(err, GP_EPARSE, i - 1, "expected ',' or the end of the container");
            w = (want)next;
            if (depth == 0)
                break;
            continue;
        }
        if (w == W_KEY || w == W_KEY_OR_END) {
            if (c != '"')
                return scan_fail(err, GP_EPARSE, i, "expected a key");
            i = skip_string(s, len, i);
            if (i == (size_t)-1)
                return scan_fail(err, GP_EPARSE, len, "unterminated key");
            if (++n->keys + n->values > lim->max_items)
                return scan_fail(err, GP_ELIMIT, i, "too many keys");
            i = skip_ws(s, len, i);
            if (i >= len || s[i] != ':')
                return scan_fail(err, GP_EPARSE, i, "expected ':' after a key");
            i++;
            w = W_VALUE;
            continue;
        }
        /* a value */
        if (++n->values + n->keys > lim->max_items)
            return scan_fail(err, GP_ELIMIT, i, "too many values");
        if (c == '{' || c == '[') {
            if (++n->containers > lim->max_containers)
                return scan_fail(err, GP_ELIMIT, i, "too many objects and arrays");
            if (depth >= max_depth)
                return scan_fail(err, GP_ELIMIT, i, "nested too deep");
            stack[depth++] = c;
            if (depth > n->depth)
                n->depth = depth;
            i++;
            w = c == '{' ? W_KEY_OR_END : W_VALUE_OR_END;
            continue;
        }
        size_t end = c == '"' ? skip_string(s, len, i) : skip_scalar(s, len, i);
        if (end == (size_t)-1)
            return scan_fail(err, GP_EPARSE, c == '"' ? len : i,
                             c == '"' ? "unterminated string" : "unexpected character");
        i = end;
        w = W_COMMA_OR_END;
        if (depth == 0)
            break;
    }
    *pos = i;
    return GP_OK;
}

gp_status gpi_json_scan(const char *s, size_t len, const gpi_json_limits *lim, gpi_json_counts *n, gp_error *err)
{
    memset(n, 0, sizeof *n);
    size_t pos = 0;
    gp_status st = gpi_json_scan_value(s, len, &pos, lim, n, err);
    if (st)
        return st;
    pos = skip_ws(s, len, pos);
    if (pos < len)
        return scan_fail(err, GP_EPARSE, pos, "text after the JSON value");
    return GP_OK;
}
