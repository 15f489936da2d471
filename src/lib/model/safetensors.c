/*
 * safetensors.c: exact tensor tallies from safetensors headers, and model folders
 * (config.json + *.safetensors shards).
 *
 * Binary layout of a .safetensors file (https://github.com/huggingface/safetensors):
 *
 *   offset 0        8 bytes   N: unsigned 64-bit little-endian length of the header
 *   offset 8        N bytes   header: UTF-8 JSON object, possibly padded with trailing spaces
 *   offset 8+N      ...       data: the tensors' bytes, back to back
 *
 *   header = {
 *     "__metadata__": { "format": "pt", ... },              optional; string -> string
 *     "<tensor name>": { "dtype": "BF16",                    one of the types in st_dtypes
 *                        "shape": [4096, 4096],              [] is a scalar (1 element)
 *                        "data_offsets": [begin, end] },     relative to offset 8+N; end
 *     ...                                                    exclusive
 *   }
 *
 * Only the 8 + N header bytes are ever read; the weights are not. Every field is checked
 * (docs/formats-safetensors.md lists the checks and their limits): the header length against
 * GPI_MAX_SAFETENSORS_HEADER and the file size, the JSON syntax (duplicate keys rejected), each
 * entry's types, the dtype name, the element count (checked products that must fit int64), that
 * data_offsets span exactly the tensor's bytes and lie inside the file, and that no two spans
 * share a byte (sorted by start; gaps are allowed). A header is validated completely before
 * any tensor is added to the model, so a failed scan leaves the model unchanged.
 *
 * Cost: time O(N + T log T) for T tensors; memory is the N-byte buffer, one entry's Jansson
 * tree at a time (bounded by entry_limits) and 32 bytes per tensor. A 100 MB header of 1.46
 * million tensors peaks at 250 MB (it took 2.0 GB as one Jansson tree).
 */
#include "internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define ST_PATH_MAX   4096
#define ST_INDEX_NAME "model.safetensors.index.json"

/* ---- element types ------------------------------------------------------------------------ */

/* The safetensors dtype names and their storage size in bits (sub-byte types are packed, so a
 * tensor's byte size is elements * bits / 8 and must come out whole). */
typedef struct st_dtype {
    const char *name;
    unsigned bits;
    gp_dtype plain; /* the gp_dtype a whole model stored in this type is said to use, or 0 */
} st_dtype;

static const st_dtype st_dtypes[] = {
    {"BOOL", 8, GP_DTYPE_UNKNOWN},    {"U8", 8, GP_DTYPE_UNKNOWN},      {"I8", 8, GP_DTYPE_UNKNOWN},
    {"F8_E4M3", 8, GP_DTYPE_UNKNOWN}, {"F8_E5M2", 8, GP_DTYPE_UNKNOWN}, {"F8_E8M0", 8, GP_DTYPE_UNKNOWN},
    {"I16", 16, GP_DTYPE_UNKNOWN},    {"U16", 16, GP_DTYPE_UNKNOWN},    {"F16", 16, GP_DTYPE_F16},
    {"BF16", 16, GP_DTYPE_BF16},      {"I32", 32, GP_DTYPE_UNKNOWN},    {"U32", 32, GP_DTYPE_UNKNOWN},
    {"F32", 32, GP_DTYPE_F32},        {"I64", 64, GP_DTYPE_UNKNOWN},    {"U64", 64, GP_DTYPE_UNKNOWN},
    {"F64", 64, GP_DTYPE_F64},        {"F4", 4, GP_DTYPE_UNKNOWN},      {"F6_E2M3", 6, GP_DTYPE_UNKNOWN},
    {"F6_E3M2", 6, GP_DTYPE_UNKNOWN},
};

static const st_dtype *find_dtype(const char *name)
{
    for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
        if (strcmp(st_dtypes[i].name, name) == 0)
            return &st_dtypes[i];
    return NULL;
}

/* ---- small helpers ------------------------------------------------------------------------ */

static uint64_t read_le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

/* A file offset as gp_error stores it (-1 if it does not fit). */
static int64_t err_offset(uint64_t off)
{
    return off > (uint64_t)INT64_MAX ? -1 : (int64_t)off;
}

/* Fail with path, field (may be NULL) and offset (-1: none) set; the message is prefixed with
 * the file name. */
static gp_status st_fail(gp_error *err, gp_status code, const char *file, const char *field, int64_t offset,
                         const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static gp_status st_fail(gp_error *err, gp_status code, const char *file, const char *field, int64_t offset,
                         const char *fmt, ...)
{
    if (!err)
        return code;
    char tail[GP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    gpi_error_set_path(err, file);
    gpi_error_set_field(err, field);
    err->offset = offset;
    return gpi_fail(err, code, "%s: %s", file, tail);
}

/* ---- one tensor entry --------------------------------------------------------------------- */

typedef struct tensor_info {
    const st_dtype *dtype;
    int64_t elements;
    uint64_t bytes;
} tensor_info;

/* Read a JSON integer >= 0; 0 on success. */
static int get_uint(json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* Validate one "<name>": {...} entry. `data_start` is 8+N (file offset of the data section),
 * `data_size` the bytes after it. Tensor names are cut to 100 characters in messages. */
static gp_status parse_tensor(const char *file, const char *key, json_t *v, uint64_t data_start, uint64_t data_size,
                              tensor_info *ti, gp_error *err)
{
    if (!json_is_object(v))
        return st_fail(err, GP_EPARSE, file, key, -1,
                       "tensor '%.100s': its entry must be an object with dtype, shape and "
                       "data_offsets",
                       key);

    /* dtype */
    json_t *dt = json_object_get(v, "dtype");
    if (!dt)
        return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': no \"dtype\"", key);
    if (!json_is_string(dt))
        return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': \"dtype\" must be a string", key);
    ti->dtype = find_dtype(json_string_value(dt));
    if (!ti->dtype)
        return st_fail(err, GP_EUNSUPPORTED, file, key, -1,
                       "tensor '%.100s': unknown dtype \"%.32s\" (known: BOOL, U8, I8, F8_E4M3, "
                       "F8_E5M2, F8_E8M0, I16, U16, F16, BF16, I32, U32, F32, I64, U64, F64, F4, "
                       "F6_E2M3, F6_E3M2)",
                       key, json_string_value(dt));

    /* shape: the element count is the product of the dimensions; 1 for a scalar ([]) and 0
     * if any dimension is 0; otherwise every partial product must fit int64. */
    json_t *shape = json_object_get(v, "shape");
    if (!shape)
        return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': no \"shape\"", key);
    if (!json_is_array(shape))
        return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': \"shape\" must be an array of whole numbers",
                       key);
    size_t rank = json_array_size(shape), i;
    int has_zero = 0;
    for (i = 0; i < rank; i++) {
        json_t *d = json_array_get(shape, i);
        if (!json_is_integer(d))
            return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': shape[%zu] is not a whole number", key, i);
        if (json_integer_value(d) < 0)
            return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': shape[%zu] is negative (%lld)", key, i,
                           (long long)json_integer_value(d));
        if (json_integer_value(d) == 0)
            has_zero = 1;
    }
    int64_t n = 1;
    if (has_zero)
        n = 0;
    else
        for (i = 0; i < rank; i++) {
            int64_t d = (int64_t)json_integer_value(json_array_get(shape, i));
            if (n > INT64_MAX / d)
                return st_fail(err, GP_EPARSE, file, key, -1,
                               "tensor '%.100s': the element count overflows at shape[%zu] "
                               "(the product of the dimensions must fit in 63 bits)",
                               key, i);
            n *= d;
        }
    ti->elements = n;
    if ((uint64_t)n > UINT64_MAX / ti->dtype->bits)
        return st_fail(err, GP_EPARSE, file, key, -1,
                       "tensor '%.100s': %lld elements of %s is too many bytes to address", key, (long long)n,
                       ti->dtype->name);
    uint64_t bits = (uint64_t)n * ti->dtype->bits;
    if (bits % 8 != 0)
        return st_fail(err, GP_EPARSE, file, key, -1,
                       "tensor '%.100s': %lld elements of the %u-bit type %s do not fill whole "
                       "bytes",
                       key, (long long)n, ti->dtype->bits, ti->dtype->name);
    ti->bytes = bits / 8;

    /* data_offsets */
    json_t *offs = json_object_get(v, "data_offsets");
    if (!offs)
        return st_fail(err, GP_EPARSE, file, key, -1, "tensor '%.100s': no \"data_offsets\"", key);
    uint64_t begin, end;
    if (!json_is_array(offs) || json_array_size(offs) != 2 || get_uint(json_array_get(offs, 0), &begin) ||
        get_uint(json_array_get(offs, 1), &end))
        return st_fail(err, GP_EPARSE, file, key, -1,
                       "tensor '%.100s': \"data_offsets\" must be [begin, end], two whole "
                       "numbers >= 0",
                       key);
    if (end < begin)
        return st_fail(err, GP_EPARSE, file, key, err_offset(data_start + begin),
                       "tensor '%.100s': data_offsets end (%llu) is before begin (%llu)", key, (unsigned long long)end,
                       (unsigned long long)begin);
    if (end - begin != ti->bytes)
        return st_fail(err, GP_EPARSE, file, key, err_offset(data_start + begin),
                       "tensor '%.100s': data_offsets span %llu bytes but %lld elements of %s "
                       "take %llu",
                       key, (unsigned long long)(end - begin), (long long)n, ti->dtype->name,
                       (unsigned long long)ti->bytes);
    if (end > data_size)
        return st_fail(err, GP_EPARSE, file, key, err_offset(data_start + begin),
                       "tensor '%.100s': truncated data: it ends at byte %llu of the file but "
                       "the file has %llu",
                       key, (unsigned long long)(data_start + end), (unsigned long long)(data_start + data_size));
    return GP_OK;
}

/* "__metadata__" must map strings to strings. */
static gp_status check_metadata(const char *file, json_t *v, gp_error *err)
{
    if (!json_is_object(v))
        return st_fail(err, GP_EPARSE, file, "__metadata__", -1, "\"__metadata__\" must be an object of strings");
    const char *k;
    json_t *s;
    json_object_foreach(v, k, s) if (!json_is_string(s)) return st_fail(
        err, GP_EPARSE, file, "__metadata__", -1, "\"__metadata__\" value of \"%.100s\" is not a string", k);
    return GP_OK;
}

/* ---- walking the header an entry at a time ------------------------------------------------
 * Jansson's tree of a whole 100 MB header took 2 GB. The header is a flat object, so it is
 * walked with gpi_json_scan_value, and each entry alone goes through Jansson (strict syntax,
 * duplicate keys inside it) and is freed: memory is the header buffer plus 32 bytes per tensor
 * for the overlap and duplicate-name checks. */

typedef struct header_walk {
    const char *s;
    size_t len, pos;
    const char *file;
    uint64_t data_start, data_size;
    int first; /* no entry read yet */
} header_walk;

/* One tensor's data span and where its key is, for the overlap and duplicate checks. */
typedef struct span {
    uint64_t begin, end, hash;
    size_t key_at;
} span;

/* An entry: shape and offsets need a handful of values; metadata may hold many strings. */
static const gpi_json_limits entry_limits = {8, 4096, 64};
static const gpi_json_limits metadata_limits = {2, (size_t)1 << 17, 1};

static size_t ws(const header_walk *w, size_t i)
{
    while (i < w->len && (w->s[i] == ' ' || w->s[i] == '\t' || w->s[i] == '\n' || w->s[i] == '\r'))
        i++;
    return i;
}

static gp_status malformed(const header_walk *w, gp_error *err, size_t at, const char *what)
{
    return st_fail(err, GP_EPARSE, w->file, NULL, err_offset(8 + (uint64_t)at),
                   "header JSON is malformed at byte %llu: %s", (unsigned long long)(8 + (uint64_t)at), what);
}

/* Parse the span [at, end) of the header with Jansson. */
static json_t *load_span(const header_walk *w, size_t at, size_t end, int flags, gp_error *err, gp_status *st)
{
    json_error_t je;
    json_t *v = json_loadb(w->s + at, end - at, flags | JSON_REJECT_DUPLICATES, &je);
    if (!v) {
        uint64_t off = 8 + (uint64_t)at + (uint64_t)(je.position > 0 ? je.position : 0);
        *st = st_fail(err, GP_EPARSE, w->file, NULL, err_offset(off), "header JSON is malformed at byte %llu: %s",
                      (unsigned long long)off, je.text);
    }
    return v;
}

static gp_status walk_begin(header_walk *w, gp_error *err)
{
    w->pos = ws(w, 0);
    if (w->pos >= w->len || w->s[w->pos] != '{')
        return st_fail(err, GP_EPARSE, w->file, NULL, 8, "the header is not a JSON object");
    w->pos++;
    w->first = 1;
    return GP_OK;
}

/* The next "key": value of the header object into *key (a JSON string) and *val; *key NULL at
 * the closing brace (then only padding may follow). */
static gp_status walk_next(header_walk *w, json_t **key, json_t **val, size_t *key_at, gp_error *err)
{
    *key = *val = NULL;
    size_t i = ws(w, w->pos);
    if (i < w->len && w->s[i] == '}') {
        size_t end = ws(w, i + 1); /* the format pads the header with spaces */
        if (end < w->len)
            return malformed(w, err, end, "text after the header object");
        w->pos = end;
        return GP_OK;
    }
    if (!w->first) {
        if (i >= w->len || w->s[i] != ',')
            return malformed(w, err, i, "expected ',' or '}' after an entry");
        i = ws(w, i + 1);
    }
    w->first = 0;
    if (i >= w->len || w->s[i] != '"')
        return malformed(w, err, i, "expected a tensor name");
    gpi_json_counts n = {0};
    gp_error se;
    gp_error_clear(&se);
    size_t end = i;
    if (gpi_json_scan_value(w->s, w->len, &end, &entry_limits, &n, &se))
        return malformed(w, err, (size_t)se.offset, se.msg);
    gp_status st = GP_OK;
    *key_at = i;
    if (!(*key = load_span(w, i, end, JSON_DECODE_ANY, err, &st)))
        return st;
    i = ws(w, end);
    if (i >= w->len || w->s[i] != ':') {
        json_decref(*key);
        *key = NULL;
        return malformed(w, err, i, "expected ':' after a tensor name");
    }
    end = ++i;
    memset(&n, 0, sizeof n);
    const int meta = strcmp(json_string_value(*key), "__metadata__") == 0;
    if ((st = gpi_json_scan_value(w->s, w->len, &end, meta ? &metadata_limits : &entry_limits, &n, &se))) {
        json_decref(*key);
        *key = NULL;
        if (st == GP_ELIMIT)
            return st_fail(err, GP_ELIMIT, w->file, meta ? "__metadata__" : NULL, err_offset(8 + (uint64_t)se.offset),
                           "header entry at byte %llu: %s (a tensor entry holds dtype, shape and data_offsets)",
                           (unsigned long long)(8 + (uint64_t)i), se.msg);
        return malformed(w, err, (size_t)se.offset, se.msg);
    }
    if (!(*val = load_span(w, i, end, JSON_DECODE_ANY, err, &st))) {
        json_decref(*key);
        *key = NULL;
        return st;
    }
    w->pos = end;
    return GP_OK;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int cmp_span_begin(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->key_at < y->key_at ? -1 : x->key_at > y->key_at;
}

static int cmp_span_hash(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->hash != y->hash)
        return x->hash < y->hash ? -1 : 1;
    return x->key_at < y->key_at ? -1 : x->key_at > y->key_at;
}

/* The name of the tensor whose key starts at header byte `at`, for a message. */
static void key_name(const header_walk *w, size_t at, char *out, size_t n)
{
    size_t end = at;
    gpi_json_counts c = {0};
    json_t *k = NULL;
    gp_status st;
    if (gpi_json_scan_value(w->s, w->len, &end, &entry_limits, &c, NULL) == GP_OK)
        k = load_span(w, at, end, JSON_DECODE_ANY, NULL, &st);
    gpi_strlcpy(out, k ? json_string_value(k) : "?", n);
    json_decref(k);
}

/* No byte of the data section belongs to two tensors; no name appears twice. Gaps between
 * tensors are allowed (docs/formats-safetensors.md). */
static gp_status check_spans(const header_walk *w, span *v, size_t n, gp_error *err)
{
    char a[128], b[128];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_span_hash);
    for (size_t i = 1; i < n; i++)
        if (v[i].hash == v[i - 1].hash) {
            key_name(w, v[i - 1].key_at, a, sizeof a);
            key_name(w, v[i].key_at, b, sizeof b);
            if (strcmp(a, b) == 0)
                return st_fail(err, GP_EPARSE, w->file, b, err_offset(8 + (uint64_t)v[i].key_at),
                               "tensor '%.100s' appears twice in the header (duplicate object key)", b);
        }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_span_begin);
    uint64_t reach = 0;
    size_t holder = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].end == v[i].begin)
            continue; /* an empty tensor takes no byte */
        if (i > 0 && v[i].begin < reach) {
            key_name(w, v[holder].key_at, a, sizeof a);
            key_name(w, v[i].key_at, b, sizeof b);
            return st_fail(err, GP_EPARSE, w->file, b, err_offset(w->data_start + v[i].begin),
                           "tensor '%.100s': tensors overlap: its bytes [%llu, %llu) of the data section "
                           "share bytes with tensor '%.100s' [%llu, %llu)",
                           b, (unsigned long long)v[i].begin, (unsigned long long)v[i].end, a,
                           (unsigned long long)v[holder].begin, (unsigned long long)v[holder].end);
        }
        if (v[i].end > reach) {
            reach = v[i].end;
            holder = i;
        }
    }
    return GP_OK;
}

/* Pass 1 over the header: every entry valid, totals, spans disjoint. *spans is the caller's
 * to free. */
static gp_status validate_entries(header_walk *w, span **spans, int64_t *tensors, int64_t *elements, uint64_t *bytes,
                                  gp_error *err)
{
    size_t cap = 0, n = 0;
    gp_status st = walk_begin(w, err);
    while (!st) {
        json_t *k, *v;
        size_t key_at;
        if ((st = walk_next(w, &k, &v, &key_at, err)) || !k)
            break;
        const char *key = json_string_value(k);
        if (strcmp(key, "__metadata__") == 0) {
            st = check_metadata(w->file, v, err);
        } else {
            tensor_info ti;
            uint64_t begin = 0;
            st = parse_tensor(w->file, key, v, w->data_start, w->data_size, &ti, err);
            if (!st && ti.elements > INT64_MAX - *elements)
                st = st_fail(err, GP_ELIMIT, w->file, key, -1, "more than 2^63 elements in one file");
            if (!st && n == cap) {
                size_t nc = cap ? 2 * cap : 256;
                span *nv = realloc(*spans, nc * sizeof *nv);
                if (!nv)
                    st = gpi_fail(err, GP_ENOMEM, "%s: out of memory", w->file);
                else
                    *spans = nv, cap = nc;
            }
            if (!st) {
                get_uint(json_array_get(json_object_get(v, "data_offsets"), 0), &begin);
                (*spans)[n++] = (span){begin, begin + ti.bytes, name_hash(key), key_at};
                *bytes += ti.bytes; /* each span lies inside the data section: no wrap */
                *elements += ti.elements;
                (*tensors)++;
            }
        }
        json_decref(k);
        json_decref(v);
    }
    if (!st)
        st = check_spans(w, *spans, n, err);
    return st;
}

/* ---- the header --------------------------------------------------------------------------- */

/* Called once per tensor after the whole header validated (model folders use it to cross-check
 * the index and to tell which tensors the config does not count). */
typedef struct scan_hook {
    void (*on_tensor)(void *ctx, const char *tensor, int64_t elements, int is_param);
    void *ctx;
} scan_hook;

static gp_status scan_header(const uint8_t *buf, size_t len, uint64_t file_size, const char *name, gp_model *m,
                             const scan_hook *hook, gp_error *err)
{
    if (!name)
        name = "safetensors";
    if (!m || (!buf && len))
        return st_fail(err, GP_EINVAL, name, NULL, -1, "no model or no buffer to scan");
    if (len > file_size)
        return st_fail(err, GP_EINVAL, name, NULL, -1,
                       "the buffer (%zu bytes) is longer than the file size given (%llu)", len,
                       (unsigned long long)file_size);
    if (file_size < 8)
        return st_fail(err, GP_EPARSE, name, NULL, 0,
                       "truncated: %llu bytes is too short for a safetensors file (it starts "
                       "with an 8-byte header length)",
                       (unsigned long long)file_size);
    if (len < 8)
        return st_fail(err, GP_EINVAL, name, NULL, 0,
                       "the buffer holds %zu bytes: it needs at least the 8-byte header length", len);
    const uint64_t n = read_le64(buf);
    if (n == 0)
        return st_fail(err, GP_EPARSE, name, NULL, 0, "header length 0 is absurd: not a safetensors file");
    if (n > GPI_MAX_SAFETENSORS_HEADER)
        return st_fail(err, GP_ELIMIT, name, NULL, 0,
                       "header length %llu is absurd (the format's limit is %u bytes): not a "
                       "safetensors file?",
                       (unsigned long long)n, GPI_MAX_SAFETENSORS_HEADER);
    if (n > file_size - 8)
        return st_fail(err, GP_EPARSE, name, NULL, 0,
                       "truncated: the header length says %llu bytes but only %llu follow it", (unsigned long long)n,
                       (unsigned long long)(file_size - 8));
    if (n > len - 8)
        return st_fail(err, GP_EINVAL, name, NULL, 0, "the buffer holds %zu bytes but the header needs %llu", len,
                       (unsigned long long)(8 + n));
    const uint64_t data_start = 8 + n, data_size = file_size - data_start;

    header_walk hw = {(const char *)buf + 8, (size_t)n, 0, name, data_start, data_size, 1};
    span *spans = NULL;
    int64_t tensors = 0, elements = 0;
    uint64_t bytes = 0;
    /* Pass 1: validate every entry and the file's totals; the model is not touched. */
    gp_status st = validate_entries(&hw, &spans, &tensors, &elements, &bytes, err);
    /* The model's running totals (several shards) must not overflow either. */
    if (!st && (elements > INT64_MAX - m->exact_params - m->exact_buffers || bytes > UINT64_MAX - m->exact_bytes ||
                tensors > INT64_MAX - m->exact_tensors))
        st = st_fail(err, GP_ELIMIT, name, NULL, -1, "the model's exact totals would overflow 64 bits");
    free(spans);
    if (st)
        return st;

    /* Pass 2: add them (cannot fail: every entry parsed and validated above). */
    hw.pos = 0;
    walk_begin(&hw, NULL);
    for (;;) {
        json_t *k = NULL, *v = NULL;
        size_t key_at;
        if (walk_next(&hw, &k, &v, &key_at, NULL) != GP_OK || !k)
            break;
        const char *key = json_string_value(k);
        if (strcmp(key, "__metadata__") != 0) {
            tensor_info ti;
            parse_tensor(name, key, v, data_start, data_size, &ti, NULL);
            int64_t params_before = m->exact_params;
            gpi_model_add_tensor(m, key, ti.dtype->name, ti.elements, ti.bytes);
            if (hook && hook->on_tensor)
                hook->on_tensor(hook->ctx, key, ti.elements, m->exact_params != params_before || ti.elements == 0);
        }
        json_decref(k);
        json_decref(v);
    }
    /* An empty header ({} or metadata only) still means "read from files". */
    m->has_exact = 1;
    return GP_OK;
}

gp_status gpi_safetensors_scan_buffer(const uint8_t *buf, size_t len, uint64_t file_size, const char *name, gp_model *m,
                                      gp_error *err)
{
    gp_error_clear(err);
    return scan_header(buf, len, file_size, name, m, NULL, err);
}

/* Read the length, check it, then read exactly 8 + N bytes and scan them. */
static gp_status scan_file(const char *path, gp_model *m, const scan_hook *hook, gp_error *err)
{
    uint8_t *buf;
    size_t len;
    uint64_t size;
    gp_status st = gpi_read_file_prefix(path, 8, &buf, &len, &size, err);
    if (st)
        return st;
    /* A short file or a bad length: the scanner reports it from these 8 bytes. */
    uint64_t n = len < 8 ? 0 : read_le64(buf);
    if (n == 0 || n > GPI_MAX_SAFETENSORS_HEADER || n > size - 8) {
        st = scan_header(buf, len, size, path, m, hook, err);
        free(buf);
        return st;
    }
    free(buf);
    st = gpi_read_file_prefix(path, (size_t)(8 + n), &buf, &len, &size, err);
    if (st)
        return st;
    if (len < 8 + n) /* the file shrank in between */
        st = st_fail(err, GP_EPARSE, path, NULL, err_offset(len),
                     "truncated: the file ended after %zu of the %llu header bytes", len, (unsigned long long)(8 + n));
    else
        st = scan_header(buf, len, size, path, m, hook, err);
    free(buf);
    return st;
}

gp_status gpi_safetensors_scan_file(const char *path, gp_model *m, gp_error *err)
{
    gp_error_clear(err);
    if (!path || !m)
        return gpi_fail(err, GP_EINVAL, "gpi_safetensors_scan_file: no path or no model");
    return scan_file(path, m, NULL, err);
}

/* ---- model folders ------------------------------------------------------------------------ */

/* What a folder scan learns about the tensors, beyond the model's tallies. */
typedef struct folder_ctx {
    const gp_model *m;
    json_t *weight_map; /* the index's tensor -> shard map (borrowed), or NULL */
    json_t *seen;       /* tensor names met so far (a set) */
    const char *shard;  /* file name of the shard being scanned */
    int64_t duplicates; /* tensors met in more than one shard */
    int64_t unlisted;   /* tensors the weight_map does not name */
    int64_t misplaced;  /* tensors found in another shard than the weight_map says */
    const char *first_unlisted;
    /* parameters in tensors that an architecture count from config.json does not cover */
    int64_t vision, mtp, quant_meta;
} folder_ctx;

/* The block index of "layers.<i>." in a tensor name, or -1. */
static int64_t layer_index(const char *name)
{
    for (const char *p = strstr(name, "layers."); p; p = strstr(p + 1, "layers.")) {
        if (p != name && p[-1] != '.')
            continue;
        const char *q = p + 7;
        int64_t i = 0;
        int digits = 0;
        while (*q >= '0' && *q <= '9' && digits < 12) {
            i = i * 10 + (*q++ - '0');
            digits++;
        }
        if (digits && (*q == '.' || *q == '\0'))
            return i;
    }
    return -1;
}

/* Quantization metadata: scales, zero points and bitsandbytes state stored beside weights. */
static int is_quant_meta(const char *name)
{
    static const char *const leaves[] = {
        "scale",
        "scales",
        "qzeros",
        "g_idx",
        "weight_scale",
        "weight_scale_inv",
        "input_scale",
        "output_scale",
        "k_scale",
        "v_scale",
        "weight_zero_point",
        "input_zero_point",
        "absmax",
        "quant_map",
        "nested_absmax",
        "nested_quant_map",
        "weight_scale_2",
    };
    const char *dot = strrchr(name, '.');
    const char *leaf = dot ? dot + 1 : name;
    if (strncmp(leaf, "quant_state", 11) == 0 || strstr(name, ".quant_state."))
        return 1;
    for (size_t i = 0; i < sizeof leaves / sizeof leaves[0]; i++)
        if (strcmp(leaf, leaves[i]) == 0)
            return 1;
    return 0;
}

static void folder_on_tensor(void *vctx, const char *tensor, int64_t elements, int is_param)
{
    folder_ctx *c = vctx;
    if (json_object_get(c->seen, tensor))
        c->duplicates++;
    else
        json_object_set_new(c->seen, tensor, json_true());
    if (c->weight_map) {
        json_t *where = json_object_get(c->weight_map, tensor);
        if (!where) {
            if (!c->unlisted++)
                c->first_unlisted = json_object_iter_key(json_object_iter_at(c->seen, tensor));
        } else if (!json_is_string(where) || strcmp(json_string_value(where), c->shard) != 0)
            c->misplaced++;
    }
    if (!is_param)
        return;
    int64_t li = layer_index(tensor);
    if (strstr(tensor, "vision") || strstr(tensor, "visual") || strstr(tensor, "multi_modal_projector") ||
        strstr(tensor, "mm_projector"))
        c->vision += elements;
    else if (strstr(tensor, "mtp") || (c->m->layers > 0 && li >= c->m->layers))
        c->mtp += elements;
    else if (is_quant_meta(tensor))
        c->quant_meta += elements;
}

static gp_status join_path(char *out, const char *dir, const char *file, gp_error *err)
{
    int n = snprintf(out, ST_PATH_MAX, "%s/%s", dir, file);
    if (n < 0 || n >= ST_PATH_MAX) {
        gpi_error_set_path(err, dir);
        return gpi_fail(err, GP_EINVAL, "%s: path too long (limit %d bytes)", dir, ST_PATH_MAX - 1);
    }
    return GP_OK;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

static int names_add(name_list *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    size_t len = strlen(s);
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, s, len + 1);
    l->v[l->n++] = copy;
    return 0;
}

/* Parse the index: the distinct shard names of weight_map go into `shards`; *map_out gets the
 * parsed document (the caller frees it) whose "weight_map" the cross-check uses. */
static gp_status read_index(const char *path, name_list *shards, json_t **doc_out, gp_error *err)
{
    *doc_out = NULL;
    uint8_t *buf;
    size_t len;
    uint64_t size;
    gp_status st = gpi_read_file_prefix(path, (size_t)GPI_MAX_SAFETENSORS_HEADER + 1, &buf, &len, &size, err);
    if (st)
        return st;
    if (size > GPI_MAX_SAFETENSORS_HEADER) {
        free(buf);
        char b[48];
        gpi_format_bytes(b, sizeof b, (double)size);
        return st_fail(err, GP_ELIMIT, path, NULL, -1,
                       "a %s file is too large for a safetensors index (the limit is 100 MB, %u bytes)", b,
                       GPI_MAX_SAFETENSORS_HEADER);
    }
    /* an index is {"metadata": {...}, "weight_map": {tensor: shard}}: bound Jansson's tree
     * (DeepSeek-V3's lists 91,991 tensors, 2 x 91,991 + a few keys and values) */
    static const gpi_json_limits index_limits = {8, (size_t)1 << 20, 64};
    gpi_json_counts counts;
    gp_error scan_err;
    gp_error_clear(&scan_err);
    if (gpi_json_scan((const char *)buf, len, &index_limits, &counts, &scan_err) == GP_ELIMIT) {
        free(buf);
        return st_fail(err, GP_ELIMIT, path, NULL, scan_err.offset,
                       "%s: a safetensors index may nest %d deep and hold %zu keys and values", scan_err.msg,
                       index_limits.max_depth, index_limits.max_items);
    }
    json_error_t jerr;
    json_t *doc = json_loadb((const char *)buf, len, JSON_REJECT_DUPLICATES, &jerr);
    free(buf);
    if (!doc) {
        if (err) {
            err->line = jerr.line;
            err->column = jerr.column;
        }
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_EPARSE, "%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
    }
    json_t *map = json_object_get(doc, "weight_map");
    if (!json_is_object(map)) {
        json_decref(doc);
        return st_fail(err, GP_EPARSE, path, "weight_map", -1,
                       "no \"weight_map\" object: a safetensors index maps tensor names to "
                       "shard files");
    }
    json_t *set = json_object();
    if (!set) {
        json_decref(doc);
        return gpi_fail(err, GP_ENOMEM, "%s: out of memory", path);
    }
    const char *tensor;
    json_t *v;
    json_object_foreach(map, tensor, v)
    {
        const char *file = json_string_value(v);
        if (!file) {
            st = st_fail(err, GP_EPARSE, path, tensor, -1, "weight_map entry '%.100s' must be a shard file name",
                         tensor);
            break;
        }
        if (!*file || strchr(file, '/') || strstr(file, "..") || strchr(file, '\\')) {
            st = st_fail(err, GP_EINVAL, path, tensor, -1,
                         "weight_map entry '%.100s' names shard \"%.100s\": shard names must "
                         "be plain file names in the folder (no '/' or '..')",
                         tensor, file);
            break;
        }
        if (json_object_get(set, file))
            continue;
        if (json_object_size(set) >= GPI_MAX_SHARDS) {
            st = st_fail(err, GP_ELIMIT, path, "weight_map", -1, "more than %d shard files (limit)", GPI_MAX_SHARDS);
            break;
        }
        if (json_object_set_new(set, file, json_true()) || names_add(shards, file)) {
            st = gpi_fail(err, GP_ENOMEM, "%s: out of memory", path);
            break;
        }
    }
    json_decref(set);
    if (st) {
        json_decref(doc);
        names_free(shards);
        return st;
    }
    if (shards->n > 1) /* qsort's base may not be NULL, even for 0 elements */
        qsort(shards->v, shards->n, sizeof *shards->v, cmp_str);
    *doc_out = doc;
    return GP_OK;
}

/* Every *.safetensors file of the folder (hidden files skipped), sorted. */
static gp_status list_shards(const char *dir, name_list *shards, gp_error *err)
{
    DIR *d = opendir(dir);
    if (!d) {
        gpi_error_set_path(err, dir);
        return gpi_fail(err, GP_EIO, "%s: %s", dir, strerror(errno));
    }
    gp_status st = GP_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !gpi_ends_with(e->d_name, ".safetensors"))
            continue;
        if (shards->n >= GPI_MAX_SHARDS) {
            st = st_fail(err, GP_ELIMIT, dir, NULL, -1, "more than %d .safetensors files (limit)", GPI_MAX_SHARDS);
            break;
        }
        if (names_add(shards, e->d_name)) {
            st = gpi_fail(err, GP_ENOMEM, "%s: out of memory", dir);
            break;
        }
    }
    closedir(d);
    if (st)
        names_free(shards);
    else if (shards->n > 1)
        qsort(shards->v, shards->n, sizeof *shards->v, cmp_str);
    return st;
}

/* ---- complete shard sets ------------------------------------------------------------------
 * Hugging Face names shards PREFIX-IIIII-of-NNNNN.safetensors. A folder holding 1 of 4 shards
 * loaded as a model a quarter of its size ("fits one L4", issue 17 row 7): every set named
 * so must be whole, and every file an index names must exist. */

typedef struct shard_name {
    size_t prefix_len; /* PREFIX is name[0, prefix_len) */
    unsigned long index, count;
    int index_width, count_width;
} shard_name;

/* Parse PREFIX-IIIII-of-NNNNN.safetensors; 0 if the name has another form. */
static int parse_shard_name(const char *name, shard_name *out)
{
    size_t len = strlen(name), ext = strlen(".safetensors");
    if (len <= ext || !gpi_ends_with(name, ".safetensors"))
        return 0;
    size_t end = len - ext, p = end;
    while (p > 0 && name[p - 1] >= '0' && name[p - 1] <= '9')
        p--;
    if (p == end || end - p > 9 || p < 4 || strncmp(name + p - 4, "-of-", 4) != 0)
        return 0;
    size_t q = p - 4, r = q;
    while (r > 0 && name[r - 1] >= '0' && name[r - 1] <= '9')
        r--;
    if (r == q || q - r > 9 || r < 1 || name[r - 1] != '-')
        return 0;
    out->prefix_len = r - 1;
    out->index = strtoul(name + r, NULL, 10);
    out->count = strtoul(name + p, NULL, 10);
    out->index_width = (int)(q - r);
    out->count_width = (int)(end - p);
    return 1;
}

static int has_name(const name_list *l, const char *s)
{
    size_t lo = 0, hi = l->n; /* l is sorted */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->v[mid], s);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Append a missing file's name to the message list (the first few) and count it. */
static void note_missing(char *list, size_t n, size_t *count, const char *name)
{
    size_t used = strlen(list);
    if ((*count)++ < 4) {
        if (used)
            gpi_strlcpy(list + used, ", ", n - used);
        used = strlen(list);
        gpi_strlcpy(list + used, name, n - used); /* a long name is cut: the message names a few */
    } else if (*count == 5)
        gpi_strlcpy(list + used, ", ...", n - used);
}

static gp_status check_shard_set(const char *dir, const name_list *shards, int has_index, gp_error *err)
{
    char missing[GP_ERROR_MSG_MAX / 2] = "", path[ST_PATH_MAX];
    size_t n_missing = 0;
    struct stat sb;
    for (size_t i = 0; has_index && i < shards->n; i++)
        if (join_path(path, dir, shards->v[i], NULL) != GP_OK || stat(path, &sb) != 0)
            note_missing(missing, sizeof missing, &n_missing, shards->v[i]);
    for (size_t i = 0; i < shards->n; i++) {
        shard_name sn, other;
        if (!parse_shard_name(shards->v[i], &sn))
            continue;
        int seen = 0; /* check each PREFIX-of-NNNNN set once */
        for (size_t j = 0; j < i && !seen; j++)
            seen = parse_shard_name(shards->v[j], &other) && other.count == sn.count &&
                   other.prefix_len == sn.prefix_len && strncmp(shards->v[i], shards->v[j], sn.prefix_len) == 0;
        if (seen)
            continue;
        if (sn.count == 0 || sn.count > GPI_MAX_SHARDS)
            return st_fail(err, GP_ELIMIT, dir, shards->v[i], -1, "shard '%s' says the model has %lu shards (limit %d)",
                           shards->v[i], sn.count, GPI_MAX_SHARDS);
        for (unsigned long k = 1; k <= sn.count; k++) {
            char want[ST_PATH_MAX];
            snprintf(want, sizeof want, "%.*s-%0*lu-of-%0*lu.safetensors", (int)sn.prefix_len, shards->v[i],
                     sn.index_width, k, sn.count_width, sn.count);
            if (!has_name(shards, want))
                note_missing(missing, sizeof missing, &n_missing, want);
        }
    }
    if (n_missing == 0)
        return GP_OK;
    gpi_error_set_field(err, "shards");
    return st_fail(err, GP_ENOTFOUND, dir, "shards", -1,
                   "the shard set is incomplete: %zu file%s missing (%s); a model with shards missing would "
                   "be counted smaller than it is",
                   n_missing, n_missing == 1 ? " is" : "s are", missing);
}

/* Does config.json name the storage dtype (torch_dtype / dtype, at the top or in
 * text_config)? gp_model cannot tell "bf16 by default" from "bf16 as stated". */
static int config_names_dtype(const char *config_path)
{
    uint8_t *buf;
    size_t len;
    uint64_t size;
    if (gpi_read_file_prefix(config_path, GPI_MAX_CONFIG_BYTES, &buf, &len, &size, NULL))
        return 0;
    json_t *root = json_loadb((const char *)buf, len, 0, NULL);
    free(buf);
    int named = 0;
    json_t *objs[2] = {root, json_object_get(root, "text_config")};
    for (int i = 0; i < 2 && !named; i++) {
        const char *keys[2] = {"torch_dtype", "dtype"};
        for (int k = 0; k < 2 && !named; k++) {
            const char *s = json_string_value(json_object_get(objs[i], keys[k]));
            named = s && gpi_dtype_parse(s) != GP_DTYPE_UNKNOWN;
        }
    }
    json_decref(root);
    return named;
}

/* The plain float type holding the most elements (F16/BF16/F32/F64), or UNKNOWN. */
static gp_dtype dominant_float(const gp_model *m)
{
    gp_dtype best = GP_DTYPE_UNKNOWN;
    int64_t most = 0;
    for (int i = 0; i < m->n_dtype_stats; i++) {
        const st_dtype *t = find_dtype(m->dtype_stats[i].name);
        if (t && t->plain != GP_DTYPE_UNKNOWN && m->dtype_stats[i].elements > most) {
            most = m->dtype_stats[i].elements;
            best = t->plain;
        }
    }
    return best;
}

/* Explain how the exact count from the files relates to the config's architecture count. */
static void reconcile(gp_model *m, const folder_ctx *c)
{
    if (m->exact_buffers > 0)
        gpi_note(m->notes, sizeof m->notes,
                 "%lld elements of buffers (rotary inv_freq and the like) are stored in the "
                 "files but are not parameters: the exact count leaves them out",
                 (long long)m->exact_buffers);
    gp_param_breakdown p;
    if (gp_model_params(m, &p, NULL) != GP_OK)
        return;
    const int64_t cfg = p.total, exact = m->exact_params;
    if (exact > cfg) {
        int64_t extra = exact - cfg;
        m->exact_extra_params = extra;
        char parts[384] = "";
        size_t used = 0;
        const struct {
            const char *what;
            int64_t n;
        } cats[] = {
            {"vision/multimodal tensors", c->vision},
            {"multi-token-prediction (MTP) layers", c->mtp},
            {"quantization scales/zeros", c->quant_meta},
        };
        int64_t explained = 0;
        for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
            if (cats[i].n <= 0 || used >= sizeof parts)
                continue;
            int w = snprintf(parts + used, sizeof parts - used, "%s%lld in %s", used ? ", " : "; of them ",
                             (long long)cats[i].n, cats[i].what);
            used += w > 0 ? (size_t)w : 0;
            explained += cats[i].n;
        }
        if (explained > 0 && explained < extra && used < sizeof parts)
            snprintf(parts + used, sizeof parts - used, ", %lld unexplained", (long long)(extra - explained));
        else if (explained > extra && used < sizeof parts)
            snprintf(parts + used, sizeof parts - used, " (the other tensors hold %lld fewer than the config implies)",
                     (long long)(explained - extra));
        gpi_note(m->notes, sizeof m->notes,
                 "the files hold %lld parameters more than the config's architecture count "
                 "(%lld)%s",
                 (long long)extra, (long long)cfg, explained ? parts : ": no tensor name says why");
    } else if (exact < cfg) {
        int packed = m->quant != GP_DTYPE_UNKNOWN;
        for (int i = 0; i < m->n_dtype_stats; i++) {
            const st_dtype *t = find_dtype(m->dtype_stats[i].name);
            if (t && (t->bits < 8 || (t->plain == GP_DTYPE_UNKNOWN && t->name[0] != 'F')))
                packed = 1; /* I32 qweight, U8 4-bit pairs, F4 ... */
        }
        gpi_note(m->notes, sizeof m->notes,
                 "the files hold %lld parameters fewer than the config's architecture count "
                 "(%lld): %s",
                 (long long)(cfg - exact), (long long)cfg,
                 packed ? "packed quantized weights store several parameters per element"
                        : "a shard or tensor may be missing, or the config describes a "
                          "different model");
    }
}

/* The folder's config.json -> out; *dtype_given: whether the config names the weights' dtype. */
static gp_status read_folder_config(const char *dir, gp_model *out, int *dtype_given, gp_error *err)
{
    char path[ST_PATH_MAX];
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        gpi_error_set_path(err, dir);
        return gpi_fail(err, GP_ENOTFOUND, "%s: no such folder", dir);
    }
    gp_status st = join_path(path, dir, "config.json", err);
    if (st)
        return st;
    if (stat(path, &sb) != 0) {
        gpi_error_set_path(err, dir);
        return gpi_fail(err, GP_ENOTFOUND, "no config.json in %s: a model folder needs the Hugging Face config", dir);
    }
    st = gp_model_from_hf_config_file(path, out, err);
    if (st)
        return st;
    *dtype_given = config_names_dtype(path);
    return GP_OK;
}

/* id: the folder's base name (trailing slashes ignored); source: the folder as given */
static void set_folder_identity(const char *dir, gp_model *out)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    size_t base = dl;
    while (base > 0 && dir[base - 1] != '/')
        base--;
    char id[GP_NAME_MAX];
    size_t idl = dl - base < sizeof id - 1 ? dl - base : sizeof id - 1;
    memcpy(id, dir + base, idl);
    id[idl] = '\0';
    gpi_strlcpy(out->id, id, sizeof out->id);
    gpi_strlcpy(out->name, id, sizeof out->name);
    gpi_strlcpy(out->source, dir, sizeof out->source);
    out->origin = GP_ORIGIN_HF_FOLDER;
}

/* Scan every shard's header into out; with an index, a shard it names must exist. */
static gp_status scan_shards(const char *dir, const name_list *shards, int has_index, folder_ctx *ctx, gp_model *out,
                             gp_error *err)
{
    char path[ST_PATH_MAX];
    struct stat sb;
    scan_hook hook = {folder_on_tensor, ctx};
    for (size_t i = 0; i < shards->n; i++) {
        gp_status st = join_path(path, dir, shards->v[i], err);
        if (st != GP_OK)
            return st;
        if (has_index && stat(path, &sb) != 0) {
            gpi_error_set_path(err, path);
            return gpi_fail(err, GP_ENOTFOUND, "%s/" ST_INDEX_NAME " names shard '%s', which is not in the folder", dir,
                            shards->v[i]);
        }
        ctx->shard = shards->v[i];
        if ((st = scan_file(path, out, &hook, err)) != GP_OK)
            return st;
    }
    return GP_OK;
}

/* Notes on where the shards and the index disagree, and on tensors met twice. */
static void note_shard_mismatches(const folder_ctx *ctx, gp_model *out)
{
    if (ctx->weight_map) {
        int64_t missing = 0;
        const char *first_missing = NULL, *k;
        json_t *v;
        json_object_foreach(ctx->weight_map, k, v) if (!json_object_get(ctx->seen, k) && !missing++) first_missing = k;
        if (missing)
            gpi_note(out->notes, sizeof out->notes, "the index lists %lld tensors that no shard holds (first: '%.80s')",
                     (long long)missing, first_missing);
        if (ctx->unlisted)
            gpi_note(out->notes, sizeof out->notes, "%lld tensors in the shards are not in the index (first: '%.80s')",
                     (long long)ctx->unlisted, ctx->first_unlisted ? ctx->first_unlisted : "");
        if (ctx->misplaced)
            gpi_note(out->notes, sizeof out->notes, "%lld tensors are in another shard than the index says",
                     (long long)ctx->misplaced);
    }
    if (ctx->duplicates)
        gpi_note(out->notes, sizeof out->notes, "%lld tensors appear in more than one shard and are counted each time",
                 (long long)ctx->duplicates);
}

gp_status gp_model_from_folder(const char *dir, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    if (!dir || !out)
        return gpi_fail(err, GP_EINVAL, "gp_model_from_folder: no folder or no model");
    int dtype_given = 0;
    gp_status st = read_folder_config(dir, out, &dtype_given, err);
    if (st)
        return st;
    set_folder_identity(dir, out);

    /* the shards: named by the index if there is one, else every *.safetensors */
    char path[ST_PATH_MAX];
    struct stat sb;
    name_list shards = {0};
    json_t *index = NULL;
    if ((st = join_path(path, dir, ST_INDEX_NAME, err)) != GP_OK)
        return st;
    const int has_index = stat(path, &sb) == 0;
    st = has_index ? read_index(path, &shards, &index, err) : list_shards(dir, &shards, err);
    if (st)
        return st;

    if ((st = check_shard_set(dir, &shards, has_index, err)) != GP_OK) {
        names_free(&shards);
        json_decref(index);
        return st;
    }
    folder_ctx ctx = {0};
    ctx.m = out;
    ctx.weight_map = index ? json_object_get(index, "weight_map") : NULL;
    ctx.seen = json_object();
    if (!ctx.seen)
        st = gpi_fail(err, GP_ENOMEM, "%s: out of memory", dir);
    else
        st = scan_shards(dir, &shards, has_index, &ctx, out, err);
    if (st == GP_OK && shards.n == 0) {
        gpi_note(out->notes, sizeof out->notes,
                 "no safetensors shards in the folder: counts come from config.json alone");
    } else if (st == GP_OK) {
        note_shard_mismatches(&ctx, out);
        if (!dtype_given) {
            gp_dtype t = dominant_float(out);
            if (t != GP_DTYPE_UNKNOWN)
                out->dtype = t;
        }
        reconcile(out, &ctx);
    }
    json_decref(ctx.seen);
    json_decref(index);
    names_free(&shards);
    return st;
}
