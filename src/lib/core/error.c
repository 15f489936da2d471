/* error.c: status names and the gp_error filler. */
#include "internal.h"

#include <stdio.h>
#include <string.h>
#include <ctype.h>

static const char *const status_names[GP_STATUS_COUNT] = {
    [GP_OK] = "ok",
    [GP_EINVAL] = "invalid value",
    [GP_EIO] = "i/o error",
    [GP_EPARSE] = "parse error",
    [GP_ENOTFOUND] = "not found",
    [GP_EUNSUPPORTED] = "unsupported",
    [GP_ELIMIT] = "limit exceeded",
    [GP_ENOMEM] = "out of memory",
    [GP_EUSAGE] = "usage error",
    [GP_ECANCELED] = "canceled",
};
_Static_assert(sizeof status_names / sizeof status_names[0] == GP_STATUS_COUNT, "one name per status");

const char *gp_version(void)
{
    return GP_VERSION_STRING;
}

const char *gp_status_str(gp_status code)
{
    if ((int)code < 0 || code >= GP_STATUS_COUNT || !status_names[code])
        return "unknown status";
    return status_names[code];
}

void gp_error_clear(gp_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->offset = -1;
}

gp_status gpi_fail(gp_error *err, gp_status code, const char *fmt, ...)
{
    if (err) {
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return code;
}

void gpi_error_set_path(gp_error *err, const char *path)
{
    if (err && path)
        gpi_strlcpy(err->path, path, sizeof err->path);
}

void gpi_error_set_field(gp_error *err, const char *field)
{
    if (err && field)
        gpi_strlcpy(err->field, field, sizeof err->field);
}

void gpi_strlcpy(char *dst, const char *src, size_t n)
{
    if (!n)
        return;
    size_t i = 0;
    if (src)
        for (; i + 1 < n && src[i]; i++)
            dst[i] = src[i];
    dst[i] = '\0';
}

void gpi_note(char *notes, size_t n, const char *fmt, ...)
{
    size_t used = strnlen(notes, n);
    if (used + 2 >= n)
        return;
    if (used) {
        notes[used++] = '\n';
        notes[used] = '\0';
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(notes + used, n - used, fmt, ap);
    va_end(ap);
}

int gpi_strcaseeq(const char *a, const char *b)
{
    if (!a || !b)
        return 0;
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int gpi_ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && gpi_strcaseeq(s + ls - lx, suffix);
}

void gpi_reason_add(gp_reason *reasons, int *n, int max, gp_reason_code code, const char *fmt, ...)
{
    if (*n >= max)
        return;
    gp_reason *x = &reasons[(*n)++];
    x->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->message, sizeof x->message, fmt, ap);
    va_end(ap);
}
