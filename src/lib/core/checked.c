/*
 * checked.c: arithmetic on sizes that cannot overflow silently.
 *
 * Every count of tokens, bytes, FLOPs or requests the library computes either fits the width
 * it is computed in at the accepted input limits (docs/reliability.md, "Limits"), or goes
 * through one of these helpers, which report overflow instead of wrapping. Conversions from
 * double (where physical quantities are computed) to integers go through gpi_u64_from_double /
 * gpi_i64_from_double: a C cast of a double outside the integer's range is undefined
 * behaviour, and these refuse NaN, infinities, negatives and values past the limit instead.
 */
#include "internal.h"

#include <math.h>
#include <stdio.h>

bool gpi_mul_u64_checked(uint64_t a, uint64_t b, uint64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return !__builtin_mul_overflow(a, b, out);
#else
    if (a != 0 && b > UINT64_MAX / a)
        return false;
    *out = a * b;
    return true;
#endif
}

bool gpi_add_u64_checked(uint64_t a, uint64_t b, uint64_t *out)
{
    if (b > UINT64_MAX - a)
        return false;
    *out = a + b;
    return true;
}

bool gpi_mul_i64_checked(int64_t a, int64_t b, int64_t *out)
{
#if defined(__GNUC__) || defined(__clang__)
    return !__builtin_mul_overflow(a, b, out);
#else
    if (a == 0 || b == 0) {
        *out = 0;
        return true;
    }
    if ((a > 0 && b > 0 && a > INT64_MAX / b) || (a < 0 && b < 0 && a < INT64_MAX / b) ||
        (a > 0 && b < 0 && b < INT64_MIN / a) || (a < 0 && b > 0 && a < INT64_MIN / b))
        return false;
    *out = a * b;
    return true;
#endif
}

bool gpi_add_i64_checked(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return false;
    *out = a + b;
    return true;
}

bool gpi_u64_from_double(double v, uint64_t limit, uint64_t *out)
{
    /* written so that NaN fails every comparison and lands in the refusal */
    if (!(v >= 0.0) || !(v <= (double)limit) || !(v < 18446744073709551616.0))
        return false;
    *out = (uint64_t)v;
    return true;
}

bool gpi_i64_from_double(double v, int64_t lo, int64_t hi, int64_t *out)
{
    if (!(v >= (double)lo) || !(v <= (double)hi) || !(v < 9223372036854775808.0))
        return false;
    *out = (int64_t)v;
    return true;
}

uint64_t gpi_u64_sat(double v)
{
    if (!(v > 0.0))
        return 0;
    if (!(v < 18446744073709551616.0))
        return UINT64_MAX;
    return (uint64_t)v;
}

int64_t gpi_i64_sat(double v)
{
    if (isnan(v))
        return 0;
    if (!(v < 9223372036854775808.0))
        return INT64_MAX;
    if (!(v >= -9223372036854775808.0))
        return INT64_MIN;
    return (int64_t)v;
}

void gpi_format_bytes(char *buf, size_t n, double bytes)
{
    static const char *const units[] = {"bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"};
    int u = 0;
    double v = bytes;
    while (v >= 1000.0 && u < 8) {
        v /= 1000.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, n, "%.0f bytes", v);
    else
        snprintf(buf, n, "%.*f %s", v < 10.0 ? 2 : v < 100.0 ? 1 : 0, v, units[u]);
}
