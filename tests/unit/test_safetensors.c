/*
 * test_safetensors.c: safetensors header scanning and model folders.
 *
 * Every test writes its own tiny files under a mkdtemp() folder in /tmp. Big models are
 * written as sparse files: the real header, then ftruncate() to the full size, so a 141 GB
 * Llama-3.1-70B checkpoint costs a few hundred KB of disk. Expected figures are worked out by
 * hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------------------ */

typedef struct fixture {
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/gp_st_XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

/* Remove dir and everything under it (our folders are at most two levels deep). */
static void rm_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
            rm_tree(p);
        else
            unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    fixture *f = *state;
    rm_tree(f->dir);
    free(f);
    return 0;
}

static void le64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* The first 8 + N bytes of a safetensors file whose header is `header`. */
static uint8_t *make_buf(const char *header, size_t *len)
{
    size_t n = strlen(header);
    uint8_t *b = malloc(8 + n);
    assert_non_null(b);
    le64(b, n);
    memcpy(b + 8, header, n);
    *len = 8 + n;
    return b;
}

/* Write a safetensors file: the header, then a sparse data section of data_size bytes. */
static void write_st(const char *path, const char *header, uint64_t data_size)
{
    size_t len;
    uint8_t *b = make_buf(header, &len);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, b, len), (ssize_t)len);
    assert_int_equal(ftruncate(fd, (off_t)(len + data_size)), 0);
    close(fd);
    free(b);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void path_in(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb");
    assert_non_null(in);
    FILE *out = fopen(to, "wb");
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
}

static const gp_dtype_stat *stat_of(const gp_model *m, const char *name)
{
    for (int i = 0; i < m->n_dtype_stats; i++)
        if (strcmp(m->dtype_stats[i].name, name) == 0)
            return &m->dtype_stats[i];
    return NULL;
}

/* Scan header + data_size bytes of data and expect a failure: code, a piece of the message,
 * the offset (-2: don't check) and the field (NULL: don't check). The model must be left
 * untouched. */
static void expect_error(const char *header, uint64_t data_size, gp_status code, const char *msg_part, int64_t offset,
                         const char *field)
{
    size_t len;
    uint8_t *b = make_buf(header, &len);
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    gp_status st = gpi_safetensors_scan_buffer(b, len, len + data_size, "bad.safetensors", &m, &err);
    free(b);
    if (st != code || !strstr(err.msg, msg_part))
        print_error("header %s\n  got status %d, message: %s\n", header, st, err.msg);
    assert_int_equal(st, code);
    assert_int_equal(err.code, code);
    assert_non_null(strstr(err.msg, msg_part));
    assert_non_null(strstr(err.msg, "bad.safetensors"));
    assert_string_equal(err.path, "bad.safetensors");
    if (offset != -2)
        assert_int_equal(err.offset, offset);
    if (field)
        assert_string_equal(err.field, field);
    assert_int_equal(m.has_exact, 0);
    assert_int_equal(m.exact_tensors, 0);
    assert_int_equal(m.exact_params, 0);
    assert_int_equal(m.n_dtype_stats, 0);
}

/* The three-tensor header of the brief. Data section: 64 + 32 + 30 = 126 bytes.
 *   a: BF16 [4,8]     = 32 elements x 2 bytes = 64 bytes  at [0, 64)
 *   b: F32  [8]       =  8 elements x 4 bytes = 32 bytes  at [64, 96)
 *   c: F8_E4M3 [2,3,5]= 30 elements x 1 byte  = 30 bytes  at [96, 126)
 * exact_params = 32 + 8 + 30 = 70; exact_bytes = 126. */
static const char three_tensors[] = "{\"__metadata__\":{\"format\":\"pt\"},"
                                    "\"a\":{\"dtype\":\"BF16\",\"shape\":[4,8],\"data_offsets\":[0,64]},"
                                    "\"b\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[64,96]},"
                                    "\"c\":{\"dtype\":\"F8_E4M3\",\"shape\":[2,3,5],\"data_offsets\":[96,126]}}";

static void check_three(const gp_model *m)
{
    assert_int_equal(m->has_exact, 1);
    assert_int_equal(m->exact_tensors, 3);
    assert_int_equal(m->exact_params, 70);
    assert_int_equal(m->exact_buffers, 0);
    assert_int_equal(m->exact_bytes, 126);
    assert_int_equal(m->n_dtype_stats, 3);
    const gp_dtype_stat *s = stat_of(m, "BF16");
    assert_non_null(s);
    assert_int_equal(s->tensors, 1);
    assert_int_equal(s->elements, 32);
    assert_int_equal(s->bytes, 64);
    s = stat_of(m, "F32");
    assert_non_null(s);
    assert_int_equal(s->tensors, 1);
    assert_int_equal(s->elements, 8);
    assert_int_equal(s->bytes, 32);
    s = stat_of(m, "F8_E4M3");
    assert_non_null(s);
    assert_int_equal(s->tensors, 1);
    assert_int_equal(s->elements, 30);
    assert_int_equal(s->bytes, 30);
}

/* ---- single files: valid ------------------------------------------------------------------ */

static void test_three_tensors_buffer(void **state)
{
    (void)state;
    size_t len;
    uint8_t *b = make_buf(three_tensors, &len);
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    assert_int_equal(gpi_safetensors_scan_buffer(b, len, len + 126, "t.safetensors", &m, &err), GP_OK);
    check_three(&m);
    /* scanning it again adds to the tallies: 140 params, 252 bytes, still 3 dtype rows */
    assert_int_equal(gpi_safetensors_scan_buffer(b, len, len + 126, "t.safetensors", &m, &err), GP_OK);
    assert_int_equal(m.exact_params, 140);
    assert_int_equal(m.exact_bytes, 252);
    assert_int_equal(m.n_dtype_stats, 3);
    assert_int_equal(stat_of(&m, "BF16")->tensors, 2);
    free(b);
}

static void test_three_tensors_file(void **state)
{
    fixture *f = *state;
    char p[256];
    path_in(p, sizeof p, f->dir, "three.safetensors");
    write_st(p, three_tensors, 126);
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_OK);
    check_three(&m);
    assert_int_equal(err.code, GP_OK);
}

/* Only the header is read: a file with 1 TiB of (sparse) data after a 1-tensor header. */
static void test_header_only_huge_file(void **state)
{
    fixture *f = *state;
    char p[256];
    path_in(p, sizeof p, f->dir, "huge.safetensors");
    /* U8 [1099511627776] = 2^40 elements of 1 byte = 1 TiB */
    write_st(p,
             "{\"w\":{\"dtype\":\"U8\",\"shape\":[1099511627776],"
             "\"data_offsets\":[0,1099511627776]}}",
             (uint64_t)1 << 40);
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_OK);
    assert_int_equal(m.exact_params, (int64_t)1 << 40);
    assert_int_equal(m.exact_bytes, (uint64_t)1 << 40);
}

/* Scalars, empty tensors, sub-byte types, trailing padding, every dtype name. */
static void test_shapes_and_types(void **state)
{
    (void)state;
    /* s: F32 []       scalar: 1 element, 4 bytes       [0, 4)
     * z: BF16 [0, 5]  0 elements, 0 bytes              [4, 4)
     * q: F4 [3, 4]    12 x 4 bits = 48 bits = 6 bytes  [4, 10)
     * x: F6_E2M3 [4]  4 x 6 bits = 24 bits = 3 bytes   [10, 13)
     * y: F6_E3M2 [4, 2] 8 x 6 = 48 bits = 6 bytes      [13, 19)
     * Total: 1 + 0 + 12 + 4 + 8 = 25 elements, 19 bytes; the header ends in padding spaces. */
    const char *h = "{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]},"
                    "\"z\":{\"dtype\":\"BF16\",\"shape\":[0,5],\"data_offsets\":[4,4]},"
                    "\"q\":{\"dtype\":\"F4\",\"shape\":[3,4],\"data_offsets\":[4,10]},"
                    "\"x\":{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[10,13]},"
                    "\"y\":{\"dtype\":\"F6_E3M2\",\"shape\":[4,2],\"data_offsets\":[13,19]}}    ";
    size_t len;
    uint8_t *b = make_buf(h, &len);
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    assert_int_equal(gpi_safetensors_scan_buffer(b, len, len + 19, NULL, &m, &err), GP_OK);
    free(b);
    assert_int_equal(m.exact_tensors, 5);
    assert_int_equal(m.exact_params, 25);
    assert_int_equal(m.exact_bytes, 19);
    assert_int_equal(stat_of(&m, "F4")->bytes, 6);
    assert_int_equal(stat_of(&m, "F6_E2M3")->bytes, 3);
    assert_int_equal(stat_of(&m, "BF16")->elements, 0);

    /* Each dtype name with its element size: shape [2] takes 2 x size bytes. */
    static const struct {
        const char *name;
        int size;
    } types[] = {
        {"BOOL", 1}, {"U8", 1},   {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1}, {"F8_E8M0", 1}, {"I16", 2}, {"U16", 2},
        {"F16", 2},  {"BF16", 2}, {"I32", 4}, {"U32", 4},     {"F32", 4},     {"I64", 8},     {"U64", 8}, {"F64", 8},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char hdr[160];
        snprintf(hdr, sizeof hdr, "{\"t\":{\"dtype\":\"%s\",\"shape\":[2],\"data_offsets\":[0,%d]}}", types[i].name,
                 2 * types[i].size);
        b = make_buf(hdr, &len);
        gpi_model_init(&m);
        assert_int_equal(gpi_safetensors_scan_buffer(b, len, len + 2 * (size_t)types[i].size, "t", &m, &err), GP_OK);
        assert_int_equal(m.exact_bytes, 2 * types[i].size);
        assert_string_equal(m.dtype_stats[0].name, types[i].name);
        free(b);
    }

    /* metadata only: a valid file with no tensors */
    b = make_buf("{\"__metadata__\":{}}", &len);
    gpi_model_init(&m);
    assert_int_equal(gpi_safetensors_scan_buffer(b, len, len, "t", &m, &err), GP_OK);
    assert_int_equal(m.exact_tensors, 0);
    assert_int_equal(m.has_exact, 1);
    free(b);
}

/* ---- single files: every error ------------------------------------------------------------ */

/* Errors of the 8-byte length field: offset 0. */
static void test_error_header_length(void **state)
{
    (void)state;
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    uint8_t b[16] = {0};

    /* 5 bytes: too short for the length itself */
    assert_int_equal(gpi_safetensors_scan_buffer(b, 5, 5, "short", &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "short: truncated: 5 bytes"));
    assert_int_equal(err.offset, 0);

    /* N = 0 */
    assert_int_equal(gpi_safetensors_scan_buffer(b, 16, 16, "zero", &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "header length 0 is absurd"));
    assert_int_equal(err.offset, 0);

    /* N = the format's cap (100,000,000) + 1 */
    le64(b, (uint64_t)GPI_MAX_SAFETENSORS_HEADER + 1);
    assert_int_equal(gpi_safetensors_scan_buffer(b, 16, (uint64_t)1 << 40, "big", &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "header length 100000001 is absurd"));
    assert_string_equal(err.path, "big");

    /* N = 2^64 - 1: absurd, no overflow */
    le64(b, UINT64_MAX);
    assert_int_equal(gpi_safetensors_scan_buffer(b, 16, 16, "max", &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "header length 18446744073709551615 is absurd"));

    /* N = 9 but the file is 16 bytes: 8 follow the length */
    le64(b, 9);
    assert_int_equal(gpi_safetensors_scan_buffer(b, 16, 16, "trunc", &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "truncated: the header length says 9 bytes but only 8 follow"));
    assert_int_equal(err.offset, 0);

    /* N = 8, file 100 bytes, but the caller passed only 12 bytes of it */
    le64(b, 8);
    assert_int_equal(gpi_safetensors_scan_buffer(b, 12, 100, "partial", &m, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "the buffer holds 12 bytes but the header needs 16"));

    /* a buffer longer than the file */
    assert_int_equal(gpi_safetensors_scan_buffer(b, 16, 10, "odd", &m, &err), GP_EINVAL);
    assert_int_equal(m.exact_tensors, 0);
    assert_int_equal(m.has_exact, 0);
}

static void test_error_json(void **state)
{
    (void)state;
    /* The header is walked an entry at a time (issue 17: Jansson's tree of a 100 MB header
     * took 2 GB); a structural error is reported at its own byte, 8 + its header position.
     * {"a":}  '}' is header byte 5, where a value was expected -> file offset 13. */
    expect_error("{\"a\":}", 0, GP_EPARSE, "header JSON is malformed at byte 13", 13, NULL);
    /* cut short after a valid entry (header bytes 0-51): the end, byte 52 -> 60 */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}", 1, GP_EPARSE, "expected ',' or '}'",
                 60, NULL);
    /* duplicate keys: the first entry takes header bytes 0-51, ',' is 52, the second "a"
     * starts at 53 -> 8 + 53 = 61 */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
                 "\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}",
                 2, GP_EPARSE, "duplicate object key", 61, "a");
    /* a duplicate key inside an entry (Jansson, on the entry alone) */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "duplicate object key", -2, NULL);
    /* trailing garbage after the object: {} x -> 'x' is header byte 3 -> 11 */
    expect_error("{} x", 0, GP_EPARSE, "text after the header object", 11, NULL);
    /* a trailing comma is malformed: {"a":{...},} */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},}", 1, GP_EPARSE,
                 "expected a tensor name", -2, NULL);
    /* an entry too large for one tensor (a shape of 5,000 dimensions) is refused before
     * Jansson builds it */
    {
        char big[16 * 5000 + 128];
        size_t at = (size_t)snprintf(big, sizeof big, "{\"w\":{\"dtype\":\"U8\",\"shape\":[1");
        for (int i = 1; i < 5000; i++)
            at += (size_t)snprintf(big + at, sizeof big - at, ",1");
        snprintf(big + at, sizeof big - at, "],\"data_offsets\":[0,1]}}");
        expect_error(big, 1, GP_ELIMIT, "too many values", -2, NULL);
    }
    /* an integer too big for int64 is a syntax error in Jansson */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[99999999999999999999],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "too big integer", -2, NULL);
    /* not an object: offset 8 (the header's first byte) */
    expect_error("[1,2]", 0, GP_EPARSE, "the header is not a JSON object", 8, NULL);
    /* a bare string is not an object either: offset 8 */
    expect_error("\"x\"", 0, GP_EPARSE, "the header is not a JSON object", 8, NULL);
    /* metadata */
    expect_error("{\"__metadata__\":[1]}", 0, GP_EPARSE, "\"__metadata__\" must be an object", -1, "__metadata__");
    expect_error("{\"__metadata__\":{\"format\":\"pt\",\"n\":3}}", 0, GP_EPARSE,
                 "\"__metadata__\" value of \"n\" is not a string", -1, "__metadata__");
}

static void test_error_entries(void **state)
{
    (void)state;
    /* entry not an object */
    expect_error("{\"w\":[1]}", 0, GP_EPARSE, "tensor 'w': its entry must be an object", -1, "w");
    /* missing fields */
    expect_error("{\"w\":{\"shape\":[1],\"data_offsets\":[0,1]}}", 1, GP_EPARSE, "tensor 'w': no \"dtype\"", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"data_offsets\":[0,1]}}", 1, GP_EPARSE, "tensor 'w': no \"shape\"", -1,
                 "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1]}}", 1, GP_EPARSE, "tensor 'w': no \"data_offsets\"", -1, "w");
    /* wrong types */
    expect_error("{\"w\":{\"dtype\":8,\"shape\":[1],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "\"dtype\" must be a string", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":\"1\",\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "\"shape\" must be an array", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1.0],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "shape[0] is not a whole number", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[2,null],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "shape[1] is not a whole number", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0]}}", 1, GP_EPARSE,
                 "\"data_offsets\" must be [begin, end]", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1,2]}}", 2, GP_EPARSE,
                 "\"data_offsets\" must be [begin, end]", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[\"0\",1]}}", 1, GP_EPARSE,
                 "\"data_offsets\" must be [begin, end]", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[-1,0]}}", 1, GP_EPARSE,
                 "\"data_offsets\" must be [begin, end]", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":{\"0\":1}}}", 1, GP_EPARSE,
                 "\"data_offsets\" must be [begin, end]", -1, "w");
    /* unknown dtype: well-formed, unsupported */
    expect_error("{\"w\":{\"dtype\":\"Q4_K\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1, GP_EUNSUPPORTED,
                 "tensor 'w': unknown dtype \"Q4_K\"", -1, "w");
    expect_error("{\"w\":{\"dtype\":\"bf16\",\"shape\":[1],\"data_offsets\":[0,2]}}", 2, GP_EUNSUPPORTED,
                 "unknown dtype \"bf16\"", -1, "w");
}

static void test_error_sizes(void **state)
{
    (void)state;
    /* negative dimension */
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[4,-2],\"data_offsets\":[0,8]}}", 8, GP_EPARSE,
                 "tensor 'w': shape[1] is negative (-2)", -1, "w");
    /* 2^32 x 2^31 = 2^63 > INT64_MAX: overflows at shape[1] */
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[4294967296,2147483648],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "the element count overflows at shape[1]", -1, "w");
    /* 2^31 x 2^31 x 2 = 2^63 overflows at shape[2] even though [2^31, 2^31] fits */
    expect_error("{\"w\":{\"dtype\":\"U8\",\"shape\":[2147483648,2147483648,2],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "overflows at shape[2]", -1, "w");
    /* 2^62 elements fit int64 but x 64 bits = 2^68 bits does not fit 64 bits */
    expect_error("{\"w\":{\"dtype\":\"F64\",\"shape\":[4611686018427387904],\"data_offsets\":[0,1]}}", 1, GP_EPARSE,
                 "too many bytes to address", -1, "w");
    /* F4 [3]: 12 bits is not a whole number of bytes */
    expect_error("{\"w\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2, GP_EPARSE,
                 "3 elements of the 4-bit type F4 do not fill whole bytes", -1, "w");
    /* end < begin: offset = 8 + N + begin; N = 53 here -> 8 + 53 + 4 = 65 */
    const char *h = "{\"w\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[4,3]}}";
    assert_int_equal(strlen(h), 53);
    expect_error(h, 8, GP_EPARSE, "data_offsets end (3) is before begin (4)", 65, "w");
    /* span 10 bytes for BF16 [4] = 8 bytes; N = 56 -> offset 8 + 56 + 2 = 66 */
    h = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[2,12]}}";
    assert_int_equal(strlen(h), 56);
    expect_error(h, 12, GP_EPARSE, "data_offsets span 10 bytes but 4 elements of BF16 take 8", 66, "w");
    /* data truncated: [0,8] with only 7 bytes of data; N = 55, so the file is 8 + 55 + 7 = 70
     * bytes, the tensor would end at 8 + 55 + 8 = 71; offset = its first byte, 8 + 55 = 63 */
    h = "{\"w\":{\"dtype\":\"BF16\",\"shape\":[4],\"data_offsets\":[0,8]}}";
    assert_int_equal(strlen(h), 55);
    expect_error(h, 7, GP_EPARSE, "tensor 'w': truncated data: it ends at byte 71 of the file but the file has 70", 63,
                 "w");
    /* overlap: two 8-byte tensors both at [0, 8) of 8 data bytes; the second one trips it;
     * offset = its first byte, 8 + N + 0 with N = 105 */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
                 "\"b\":{\"dtype\":\"I8\",\"shape\":[8],\"data_offsets\":[0,8]}}",
                 8, GP_EPARSE, "tensor 'b': tensors overlap", 113, "b");
    /* issue 17 row 9: an overlap plus a gap. a [0,8), b [4,12) overlaps a, c [16,20) leaves
     * the gap [12,16): the sum of spans (20 of 20 data bytes) no longer hides the overlap */
    expect_error(
        "{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
        "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]},"
        "\"c\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[16,20]}}",
        20, GP_EPARSE,
        "tensor 'b': tensors overlap: its bytes [4, 12) of the data section share bytes with tensor 'a' [0, 8)", -2,
        "b");
    /* listed in reverse order, the later-starting one is named */
    expect_error("{\"c\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[16,20]},"
                 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[4,12]},"
                 "\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]}}",
                 20, GP_EPARSE, "tensor 'b': tensors overlap", -2, "b");
    /* an error after a valid tensor leaves the model untouched (checked by expect_error) */
    expect_error("{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
                 "\"b\":{\"dtype\":\"U8\",\"shape\":[8]}}",
                 8, GP_EPARSE, "no \"data_offsets\"", -1, "b");
}

static void test_error_files(void **state)
{
    fixture *f = *state;
    char p[256];
    gp_model m;
    gpi_model_init(&m);
    gp_error err;
    path_in(p, sizeof p, f->dir, "nope.safetensors");
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_ENOTFOUND);
    assert_string_equal(err.path, p);

    /* 3-byte file */
    path_in(p, sizeof p, f->dir, "tiny.safetensors");
    write_text(p, "abc");
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "tiny.safetensors: truncated: 3 bytes"));

    /* a text file: its first 8 bytes read as a huge length; nothing more is read */
    path_in(p, sizeof p, f->dir, "text.safetensors");
    write_text(p, "hello world, this is not a safetensors file");
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "is absurd"));
    assert_int_equal(err.offset, 0);

    /* header length 1000 in a 20-byte file */
    path_in(p, sizeof p, f->dir, "cut.safetensors");
    uint8_t b[20] = {0};
    le64(b, 1000);
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    fwrite(b, 1, sizeof b, fp);
    fclose(fp);
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "says 1000 bytes but only 12 follow"));

    /* a folder named like a shard */
    path_in(p, sizeof p, f->dir, "dir.safetensors");
    assert_int_equal(mkdir(p, 0755), 0);
    assert_int_equal(gpi_safetensors_scan_file(p, &m, &err), GP_EIO);
    assert_int_equal(m.exact_tensors, 0);
}

/* ---- folders ------------------------------------------------------------------------------ */

/* A tiny Llama: h = 8, 1 layer, 2 heads of 4, ffn 16, vocab 10, untied. By hand:
 *   embed 10*8 = 80, lm_head 80, q/k/v/o 4 x 8*8 = 256, gate/up/down 3 x 16*8 = 384,
 *   norms 8 + 8 + final 8 = 24.  Total 824 parameters. */
static const char tiny_config[] = "{\"model_type\":\"llama\",\"hidden_size\":8,\"num_hidden_layers\":1,"
                                  "\"num_attention_heads\":2,\"num_key_value_heads\":2,\"intermediate_size\":16,"
                                  "\"vocab_size\":10,\"tie_word_embeddings\":false%s}";

typedef struct tspec {
    char name[96];
    const char *dtype;
    int64_t shape[2];
    int rank;
} tspec;

static int64_t dtype_size(const char *dt)
{
    return strcmp(dt, "F32") == 0 ? 4 : strcmp(dt, "F16") == 0 || strcmp(dt, "BF16") == 0 ? 2 : 1;
}

static int64_t spec_elements(const tspec *t)
{
    int64_t n = 1;
    for (int i = 0; i < t->rank; i++)
        n *= t->shape[i];
    return n;
}

/* Write tensors [from, to) of t as one sparse shard file. Returns its data bytes. */
static int64_t write_shard(const char *path, const tspec *t, size_t from, size_t to)
{
    char *hdr = NULL;
    size_t hlen = 0;
    FILE *ms = open_memstream(&hdr, &hlen);
    assert_non_null(ms);
    fputs("{\"__metadata__\":{\"format\":\"pt\"}", ms);
    int64_t off = 0;
    for (size_t i = from; i < to; i++) {
        int64_t bytes = spec_elements(&t[i]) * dtype_size(t[i].dtype);
        fprintf(ms, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t[i].name, t[i].dtype);
        for (int d = 0; d < t[i].rank; d++)
            fprintf(ms, "%s%lld", d ? "," : "", (long long)t[i].shape[d]);
        fprintf(ms, "],\"data_offsets\":[%lld,%lld]}", (long long)off, (long long)(off + bytes));
        off += bytes;
    }
    fputs("}", ms);
    fclose(ms);
    write_st(path, hdr, (uint64_t)off);
    free(hdr);
    return off;
}

/* Split t over `shards` files model-0000i-of-0000n.safetensors in dir (at tensor boundaries
 * cut[]), and write the index unless with_index is 0. */
static void write_model(const char *dir, const tspec *t, size_t n, const size_t *cut, int shards, int with_index)
{
    char p[512];
    char *idx = NULL;
    size_t ilen = 0;
    FILE *ms = open_memstream(&idx, &ilen);
    assert_non_null(ms);
    int64_t total = 0;
    size_t from = 0;
    int first = 1;
    fputs("{\"weight_map\":{", ms);
    for (int s = 0; s < shards; s++) {
        size_t to = s + 1 == shards ? n : cut[s];
        char name[64];
        snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", s + 1, shards);
        path_in(p, sizeof p, dir, name);
        total += write_shard(p, t, from, to);
        for (size_t i = from; i < to; i++) {
            fprintf(ms, "%s\n  \"%s\": \"%s\"", first ? "" : ",", t[i].name, name);
            first = 0;
        }
        from = to;
    }
    fprintf(ms, "},\n\"metadata\":{\"total_size\":%lld}}\n", (long long)total);
    fclose(ms);
    if (with_index) {
        path_in(p, sizeof p, dir, "model.safetensors.index.json");
        write_text(p, idx);
    }
    free(idx);
}

static void add(tspec *t, size_t *n, const char *name, const char *dtype, int64_t a, int64_t b)
{
    snprintf(t[*n].name, sizeof t[*n].name, "%s", name);
    t[*n].dtype = dtype;
    t[*n].shape[0] = a;
    t[*n].shape[1] = b;
    t[*n].rank = b ? 2 : 1;
    (*n)++;
}

/* The Llama tensor set of a config: kv = kv_heads * head_dim. With inv_freq, each layer also
 * stores a rotary inv_freq buffer of head_dim/2 floats (Llama-2 checkpoints). */
static tspec *llama_tensors(int64_t layers, int64_t h, int64_t kv, int64_t ffn, int64_t vocab, const char *dt,
                            int64_t inv_freq, size_t *n)
{
    tspec *t = calloc((size_t)(layers * 10 + 3), sizeof *t);
    assert_non_null(t);
    *n = 0;
    char nm[96];
    add(t, n, "model.embed_tokens.weight", dt, vocab, h);
    for (int64_t l = 0; l < layers; l++) {
        static const char *const parts[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
                                            "self_attn.o_proj", "mlp.gate_proj",    "mlp.up_proj",
                                            "mlp.down_proj",    "input_layernorm",  "post_attention_layernorm"};
        const int64_t rows[] = {h, kv, kv, h, ffn, ffn, h, h, h};
        const int64_t cols[] = {h, h, h, h, h, h, ffn, 0, 0};
        for (int i = 0; i < 9; i++) {
            snprintf(nm, sizeof nm, "model.layers.%lld.%s.weight", (long long)l, parts[i]);
            add(t, n, nm, dt, rows[i], cols[i]);
        }
        if (inv_freq) {
            snprintf(nm, sizeof nm, "model.layers.%lld.self_attn.rotary_emb.inv_freq", (long long)l);
            add(t, n, nm, "F32", inv_freq, 0);
        }
    }
    add(t, n, "model.norm.weight", dt, h, 0);
    add(t, n, "lm_head.weight", dt, vocab, h);
    return t;
}

static void make_dir(char *out, size_t n, const fixture *f, const char *name)
{
    path_in(out, n, f->dir, name);
    assert_int_equal(mkdir(out, 0755), 0);
}

static void write_config(const char *dir, const char *extra)
{
    char cfg[512], p[512];
    snprintf(cfg, sizeof cfg, tiny_config, extra);
    path_in(p, sizeof p, dir, "config.json");
    write_text(p, cfg);
}

/* The tiny Llama over two shards with an index: the exact count equals the config's. */
static void test_folder_index_two_shards(void **state)
{
    fixture *f = *state;
    char dir[256];
    make_dir(dir, sizeof dir, f, "tiny-llama");
    write_config(dir, ",\"torch_dtype\":\"bfloat16\"");
    size_t n;
    tspec *t = llama_tensors(1, 8, 8, 16, 10, "BF16", 0, &n);
    assert_int_equal(n, 12); /* embed, 9 per layer, norm, head */
    size_t cut[] = {6};
    write_model(dir, t, n, cut, 2, 1);
    free(t);
    /* a stray shard the index does not name is ignored */
    char p[512];
    path_in(p, sizeof p, dir, "stray.safetensors");
    write_text(p, "garbage");

    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_folder(dir, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.origin, GP_ORIGIN_HF_FOLDER);
    assert_string_equal(m.id, "tiny-llama");
    assert_string_equal(m.source, dir);
    assert_int_equal(m.has_exact, 1);
    assert_int_equal(m.exact_tensors, 12);
    assert_int_equal(m.exact_params, 824);
    assert_int_equal(m.exact_bytes, 1648);
    assert_int_equal(m.exact_extra_params, 0);
    assert_int_equal(gp_model_total_params(&m), 824);
    assert_int_equal(m.dtype, GP_DTYPE_BF16);
    assert_null(strstr(m.notes, "parameters")); /* nothing to reconcile */

    /* a trailing slash gives the same id */
    char dir2[300];
    snprintf(dir2, sizeof dir2, "%s/", dir);
    assert_int_equal(gp_model_from_folder(dir2, &m, &err), GP_OK);
    assert_string_equal(m.id, "tiny-llama");
    assert_int_equal(m.exact_params, 824);
}

/* No index: every *.safetensors in name order; hidden files and other files skipped. The
 * config names no dtype, so the dominant float type of the tensors (F16) is taken. */
static void test_folder_no_index(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "noindex");
    write_config(dir, "");
    size_t n;
    tspec *t = llama_tensors(1, 8, 8, 16, 10, "F16", 0, &n);
    t[0].dtype = "F32"; /* embed (80 el) in F32, the other 744 in F16 */
    /* "b-second" gets tensors 0..5, "a-first" 6..11: a-first is scanned first */
    path_in(p, sizeof p, dir, "b-second.safetensors");
    write_shard(p, t, 0, 6);
    path_in(p, sizeof p, dir, "a-first.safetensors");
    write_shard(p, t, 6, n);
    free(t);
    path_in(p, sizeof p, dir, ".hidden.safetensors");
    write_text(p, "not scanned");
    path_in(p, sizeof p, dir, "README.md");
    write_text(p, "not scanned");

    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_OK);
    assert_int_equal(m.exact_params, 824);
    /* bytes: 80 x 4 + 744 x 2 = 320 + 1488 = 1808 */
    assert_int_equal(m.exact_bytes, 1808);
    assert_string_equal(m.dtype_stats[0].name, "F16"); /* a-first.safetensors came first */
    assert_string_equal(m.dtype_stats[1].name, "F32");
    assert_int_equal(m.dtype, GP_DTYPE_F16);
}

/* Tensors the config does not count: an MTP-like layer, a vision tensor, a quant scale. */
static void test_folder_extra_params(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "extras");
    write_config(dir, ",\"torch_dtype\":\"bfloat16\"");
    size_t n;
    tspec *t = llama_tensors(1, 8, 8, 16, 10, "BF16", 0, &n);
    tspec *all = calloc(n + 3, sizeof *all);
    assert_non_null(all);
    memcpy(all, t, n * sizeof *t);
    free(t);
    /* + layer 1 q_proj [8,8] = 64 (layer 1 >= num_hidden_layers 1: MTP)
     * + visual.patch_embed.proj.weight F32 [4,4] = 16
     * + model.layers.0.mlp.down_proj.weight_scale F32 [8] = 8
     * extra = 64 + 16 + 8 = 88; exact = 824 + 88 = 912 */
    add(all, &n, "model.layers.1.self_attn.q_proj.weight", "BF16", 8, 8);
    add(all, &n, "visual.patch_embed.proj.weight", "F32", 4, 4);
    add(all, &n, "model.layers.0.mlp.down_proj.weight_scale", "F32", 8, 0);
    path_in(p, sizeof p, dir, "model.safetensors");
    write_shard(p, all, 0, n);
    free(all);

    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_OK);
    assert_int_equal(m.exact_params, 912);
    assert_int_equal(m.exact_extra_params, 88);
    assert_non_null(strstr(m.notes, "88 parameters more than the config's architecture count (824)"));
    assert_non_null(strstr(m.notes, "16 in vision/multimodal tensors"));
    assert_non_null(strstr(m.notes, "64 in multi-token-prediction (MTP) layers"));
    assert_non_null(strstr(m.notes, "8 in quantization scales/zeros"));
}

/* Fewer parameters than the config: lm_head missing; and index/shard mismatches. */
static void test_folder_mismatches(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "mismatch");
    write_config(dir, ",\"torch_dtype\":\"bfloat16\"");
    size_t n;
    tspec *t = llama_tensors(1, 8, 8, 16, 10, "BF16", 0, &n);
    path_in(p, sizeof p, dir, "model-00001-of-00002.safetensors");
    write_shard(p, t, 0, n - 2); /* norm and lm_head not written */
    add(t, &n, "model.extra.weight", "BF16", 2, 0);
    path_in(p, sizeof p, dir, "model-00002-of-00002.safetensors");
    write_shard(p, t, n - 1, n); /* in a shard, not in the index */
    free(t);
    /* The index lists the 12 tiny-Llama tensors in shard 1, except layer 0's q_proj, which it
     * puts in shard 2 (where it is not); model.extra.weight it does not list. */
    t = llama_tensors(1, 8, 8, 16, 10, "BF16", 0, &n);
    char *idx = NULL;
    size_t ilen = 0;
    FILE *ms = open_memstream(&idx, &ilen);
    fputs("{\"weight_map\":{", ms);
    for (size_t i = 0; i < n; i++)
        fprintf(ms, "%s\"%s\":\"%s\"", i ? "," : "", t[i].name,
                i == 1 ? "model-00002-of-00002.safetensors" : "model-00001-of-00002.safetensors");
    fputs("}}", ms);
    fclose(ms);
    free(t);
    path_in(p, sizeof p, dir, "model.safetensors.index.json");
    write_text(p, idx);
    free(idx);

    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_folder(dir, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    /* exact: 824 - 8 (norm) - 80 (lm_head) + 2 (extra) = 738 */
    assert_int_equal(m.exact_params, 738);
    assert_int_equal(m.exact_extra_params, 0);
    assert_non_null(strstr(m.notes, "the index lists 2 tensors that no shard holds (first: 'model.norm.weight')"));
    assert_non_null(strstr(m.notes, "1 tensors in the shards are not in the index (first: 'model.extra.weight')"));
    /* layer 0 q_proj is listed in shard 2 but found in shard 1 */
    assert_non_null(strstr(m.notes, "1 tensors are in another shard than the index says"));
    assert_non_null(strstr(m.notes, "86 parameters fewer than the config's architecture count (824)"));
    assert_non_null(strstr(m.notes, "a shard or tensor may be missing"));
}

/* Issue 17 row 7: a folder with 1 of 4 shards loaded as a model a quarter of its size ("fits
 * one L4"). Without an index, the names say how many shards there are; each missing one is
 * named. Shard names whose counts disagree are two incomplete sets. */
static void test_folder_incomplete_shards(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "partial");
    write_config(dir, "");
    path_in(p, sizeof p, dir, "model-00001-of-00004.safetensors");
    write_st(p, "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2);
    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "3 files are missing (model-00002-of-00004.safetensors, "
                                    "model-00003-of-00004.safetensors, model-00004-of-00004.safetensors)"));
    assert_int_equal(m.has_exact, 0);
    /* a second set that disagrees on the count: 00002-of-00003 leaves 00001 and 00003 of it */
    path_in(p, sizeof p, dir, "model-00002-of-00003.safetensors");
    write_st(p, "{\"v\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2);
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "5 files are missing"));
    assert_non_null(strstr(err.msg, "model-00001-of-00003.safetensors"));
    /* a whole set of 2 loads */
    make_dir(dir, sizeof dir, f, "whole");
    write_config(dir, "");
    path_in(p, sizeof p, dir, "model-00001-of-00002.safetensors");
    write_st(p, "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2);
    path_in(p, sizeof p, dir, "model-00002-of-00002.safetensors");
    write_st(p, "{\"v\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2);
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_OK);
    assert_int_equal(m.exact_tensors, 2);
}

/* An index is bounded before Jansson parses it, and a too-large one is named by its real size. */
static void test_folder_index_limits(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "bigindex");
    write_config(dir, "");
    path_in(p, sizeof p, dir, "model.safetensors.index.json");
    char text[1024] = "{\"weight_map\":{},\"x\":[";
    for (int i = 0; i < 70; i++) /* 72 objects and arrays: over the 64 an index may hold */
        strcat(text, i ? ",[]" : "[]");
    strcat(text, "]}");
    write_text(p, text);
    gp_model m;
    gp_error err;
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "too many objects and arrays"));
    int fd = open(p, O_WRONLY | O_TRUNC);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, 200000000), 0); /* sparse */
    close(fd);
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "a 200 MB file is too large for a safetensors index"));
}

static void test_folder_errors(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    gp_model m;
    gp_error err;

    /* not a folder */
    path_in(p, sizeof p, f->dir, "absent");
    assert_int_equal(gp_model_from_folder(p, &m, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "no such folder"));

    /* no config.json */
    make_dir(dir, sizeof dir, f, "noconfig");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "no config.json in"));
    assert_non_null(strstr(err.msg, "a model folder needs the Hugging Face config"));

    /* config only: fine, with a note */
    write_config(dir, "");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_OK);
    assert_int_equal(m.has_exact, 0);
    assert_int_equal(m.origin, GP_ORIGIN_HF_FOLDER);
    assert_non_null(strstr(m.notes, "no safetensors shards in the folder"));
    assert_int_equal(gp_model_total_params(&m), 824);

    /* a broken shard: its error, naming it */
    path_in(p, sizeof p, dir, "model.safetensors");
    write_st(p, "{\"w\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 1);
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "model.safetensors: tensor 'w': truncated data"));
    assert_string_equal(err.path, p);

    /* index naming a shard that is not there */
    path_in(p, sizeof p, dir, "model.safetensors.index.json");
    write_text(p, "{\"weight_map\":{\"w\":\"model-00001-of-00002.safetensors\"}}");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ENOTFOUND);
    assert_non_null(strstr(err.msg, "the shard set is incomplete: 2 files are missing "
                                    "(model-00001-of-00002.safetensors, model-00002-of-00002.safetensors)"));
    assert_string_equal(err.field, "shards");

    /* shard names with a path */
    write_text(p, "{\"weight_map\":{\"w\":\"../x.safetensors\"}}");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_EINVAL);
    assert_non_null(strstr(err.msg, "no '/' or '..'"));
    assert_string_equal(err.field, "w");
    write_text(p, "{\"weight_map\":{\"w\":\"sub/x.safetensors\"}}");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_EINVAL);
    write_text(p, "{\"weight_map\":{\"w\":7}}");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "must be a shard file name"));
    write_text(p, "{\"metadata\":{}}");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "no \"weight_map\" object"));

    /* index syntax: file:line:column. The stray ',' before '}' on line 4: Jansson stops at
     * the '}' in column 3. */
    write_text(p, "{\n  \"weight_map\": {\n    \"a\": \"x\",\n  }\n}\n");
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_EPARSE);
    assert_int_equal(err.line, 4);
    assert_int_equal(err.column, 3);
    assert_non_null(strstr(err.msg, "model.safetensors.index.json:4:3:"));

    /* more than GPI_MAX_SHARDS distinct shards */
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    fputs("{\"weight_map\":{", fp);
    for (int i = 0; i <= GPI_MAX_SHARDS; i++)
        fprintf(fp, "%s\"t%d\":\"s%d.safetensors\"", i ? "," : "", i, i);
    fputs("}}", fp);
    fclose(fp);
    assert_int_equal(gp_model_from_folder(dir, &m, &err), GP_ELIMIT);
    assert_non_null(strstr(err.msg, "more than 4096 shard files"));
}

/* Done-when: Llama-3.1-70B's real tensor set, 3 sparse shards + index, its published config.
 * Per layer: q 8192^2 = 67,108,864; k, v 1024*8192 = 8,388,608 each; o 67,108,864;
 * gate, up, down 28672*8192 = 234,881,024 each; two norms 8192 each:
 *   134,217,728 + 16,777,216 + 704,643,072 + 16,384 = 855,654,400 per layer
 *   x 80 = 68,452,352,000
 * embed + lm_head 2 x 128256*8192 = 2,101,346,304; final norm 8192.
 * Total 70,553,706,496 (the published count); BF16: 141,107,412,992 bytes. */
static void test_folder_llama31_70b(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "Llama-3.1-70B");
    path_in(p, sizeof p, dir, "config.json");
    copy_file(GP_TEST_DATA_DIR "/models/llama-3.1-70b.json", p);
    size_t n;
    tspec *t = llama_tensors(80, 8192, 1024, 28672, 128256, "BF16", 0, &n);
    assert_int_equal(n, 1 + 80 * 9 + 2);
    size_t cut[] = {1 + 27 * 9, 1 + 54 * 9}; /* embed + layers 0-26 | 27-53 | 54-79 + norm, head */
    write_model(dir, t, n, cut, 3, 1);
    free(t);

    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_folder(dir, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.exact_tensors, 723);
    assert_int_equal(m.exact_params, 70553706496LL);
    assert_int_equal(m.exact_bytes, 2ULL * 70553706496ULL);
    assert_int_equal(m.exact_buffers, 0);
    assert_int_equal(m.exact_extra_params, 0);
    assert_int_equal(m.n_dtype_stats, 1);
    assert_string_equal(m.dtype_stats[0].name, "BF16");
    gp_param_breakdown pb;
    assert_int_equal(gp_model_params(&m, &pb, &err), GP_OK);
    assert_int_equal(pb.total, m.exact_params);
    assert_null(strstr(m.notes, "parameters more"));
    assert_null(strstr(m.notes, "parameters fewer"));
}

/* Llama-2-7b: 32 rotary inv_freq buffers of head_dim/2 = 64 F32 each = 2,048 elements.
 * Config count: embed + head 2 x 32000*4096 = 262,144,000; per layer 4 x 4096^2 = 67,108,864
 * + 3 x 11008*4096 = 135,266,304 + 8,192 = 202,383,360, x 32 = 6,476,267,520; final 4096.
 * Total 6,738,415,616; the published 6,738,417,664 adds the 2,048 buffer elements. */
static void test_folder_llama2_inv_freq(void **state)
{
    fixture *f = *state;
    char dir[256], p[512];
    make_dir(dir, sizeof dir, f, "Llama-2-7b-hf");
    path_in(p, sizeof p, dir, "config.json");
    copy_file(GP_TEST_DATA_DIR "/models/llama-2-7b.json", p);
    size_t n;
    tspec *t = llama_tensors(32, 4096, 4096, 11008, 32000, "F16", 64, &n);
    assert_int_equal(n, 1 + 32 * 10 + 2);
    size_t cut[] = {1 + 16 * 10};
    write_model(dir, t, n, cut, 2, 1);
    free(t);

    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_folder(dir, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.exact_params, 6738415616LL);
    assert_int_equal(m.exact_buffers, 2048);
    assert_int_equal(m.exact_params + m.exact_buffers, 6738417664LL);
    /* bytes: 6,738,415,616 x 2 + 2,048 x 4 = 13,476,831,232 + 8,192 */
    assert_int_equal(m.exact_bytes, 13476839424ULL);
    assert_int_equal(m.exact_extra_params, 0);
    assert_non_null(strstr(m.notes, "2048 elements of buffers (rotary inv_freq"));
    assert_non_null(strstr(m.notes, "are not parameters"));
    assert_int_equal(m.dtype, GP_DTYPE_F16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_tensors_buffer),
        cmocka_unit_test_setup_teardown(test_three_tensors_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_header_only_huge_file, setup, teardown),
        cmocka_unit_test(test_shapes_and_types),
        cmocka_unit_test(test_error_header_length),
        cmocka_unit_test(test_error_json),
        cmocka_unit_test(test_error_entries),
        cmocka_unit_test(test_error_sizes),
        cmocka_unit_test_setup_teardown(test_error_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_index_two_shards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_no_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_extra_params, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_mismatches, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_incomplete_shards, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_index_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_llama31_70b, setup, teardown),
        cmocka_unit_test_setup_teardown(test_folder_llama2_inv_freq, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
