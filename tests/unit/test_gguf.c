/*
 * test_gguf.c: the GGUF header reader (src/lib/model/gguf.c).
 *
 * A small GGUF v3 writer below builds headers in memory; tests either pass them to
 * gpi_model_from_gguf_buffer with the full file size (the data section need not be in memory),
 * or write them to a file under a mkdtemp() folder and ftruncate() it to the full size: a
 * sparse file, so the 40 GB Llama-3.1-70B Q4_K file costs a few KB of disk.
 * Expected figures are worked out by hand in the comments from ggml's block definitions
 * (ggml/src/ggml-common.h, llama.cpp).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ggml type ids (ggml.h enum ggml_type) */
enum {
    T_F32 = 0,
    T_F16 = 1,
    T_Q4_0 = 2,
    T_Q4_1 = 3,
    T_Q5_0 = 6,
    T_Q5_1 = 7,
    T_Q8_0 = 8,
    T_Q8_1 = 9,
    T_Q2_K = 10,
    T_Q3_K = 11,
    T_Q4_K = 12,
    T_Q5_K = 13,
    T_Q6_K = 14,
    T_Q8_K = 15,
    T_IQ2_XXS = 16,
    T_IQ2_XS = 17,
    T_IQ3_XXS = 18,
    T_IQ1_S = 19,
    T_IQ4_NL = 20,
    T_IQ3_S = 21,
    T_IQ2_S = 22,
    T_IQ4_XS = 23,
    T_I8 = 24,
    T_I16 = 25,
    T_I32 = 26,
    T_I64 = 27,
    T_F64 = 28,
    T_IQ1_M = 29,
    T_BF16 = 30,
    T_TQ1_0 = 34,
    T_TQ2_0 = 35,
    T_MXFP4 = 39,
    T_NVFP4 = 40,
    T_Q1_0 = 41,
    T_Q2_0 = 42,
};
/* GGUF value types */
enum { V_U8 = 0, V_I32 = 5, V_F32 = 6, V_BOOL = 7, V_STR = 8, V_ARR = 9, V_U64 = 10 };

/* ---- a GGUF v3 writer ---------------------------------------------------------------------- */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    uint64_t n_kv, n_tensors;
    uint64_t data_end; /* next free data offset (tensors placed one after another) */
    uint32_t alignment;
} wbuf;

static void w_bytes(wbuf *w, const void *b, size_t n)
{
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->n + n)
            cap *= 2;
        w->p = realloc(w->p, cap);
        assert_non_null(w->p);
        w->cap = cap;
    }
    memcpy(w->p + w->n, b, n);
    w->n += n;
}

static void w_u32(wbuf *w, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    w_bytes(w, b, 4);
}

static void w_u64(wbuf *w, uint64_t v)
{
    w_u32(w, (uint32_t)v);
    w_u32(w, (uint32_t)(v >> 32));
}

static void w_str(wbuf *w, const char *s)
{
    w_u64(w, strlen(s));
    w_bytes(w, s, strlen(s));
}

/* magic, version, and two counts patched by w_finish */
static void w_begin(wbuf *w, uint32_t version)
{
    memset(w, 0, sizeof *w);
    w->alignment = 32;
    w_bytes(w, "GGUF", 4);
    w_u32(w, version);
    w_u64(w, 0);
    w_u64(w, 0);
}

static void w_finish(wbuf *w)
{
    for (int i = 0; i < 8; i++) {
        w->p[8 + i] = (uint8_t)(w->n_tensors >> (8 * i));
        w->p[16 + i] = (uint8_t)(w->n_kv >> (8 * i));
    }
}

static void kv_u32(wbuf *w, const char *key, uint32_t v)
{
    w_str(w, key);
    w_u32(w, 4);
    w_u32(w, v);
    w->n_kv++;
}

static void kv_u64(wbuf *w, const char *key, uint64_t v)
{
    w_str(w, key);
    w_u32(w, V_U64);
    w_u64(w, v);
    w->n_kv++;
}

static void kv_f32(wbuf *w, const char *key)
{
    w_str(w, key);
    w_u32(w, V_F32);
    w_u32(w, 0x3f800000u); /* 1.0 */
    w->n_kv++;
}

static void kv_str(wbuf *w, const char *key, const char *v)
{
    w_str(w, key);
    w_u32(w, V_STR);
    w_str(w, v);
    w->n_kv++;
}

static void kv_arr_u32(wbuf *w, const char *key, const uint32_t *v, uint64_t n)
{
    w_str(w, key);
    w_u32(w, V_ARR);
    w_u32(w, 4);
    w_u64(w, n);
    for (uint64_t i = 0; i < n; i++)
        w_u32(w, v[i]);
    w->n_kv++;
}

/* tokenizer.ggml.tokens with n tokens "t<i>" padded to `width` bytes */
static void kv_tokens(wbuf *w, uint64_t n, size_t width)
{
    char tok[64];
    w_str(w, "tokenizer.ggml.tokens");
    w_u32(w, V_ARR);
    w_u32(w, V_STR);
    w_u64(w, n);
    for (uint64_t i = 0; i < n; i++) {
        snprintf(tok, sizeof tok, "t%0*llu", (int)(width - 1), (unsigned long long)i);
        w_str(w, tok);
    }
    w->n_kv++;
}

/* A tensor info at an explicit data offset. */
static void tensor_at(wbuf *w, const char *name, uint32_t n_dims, const uint64_t *dims, uint32_t type, uint64_t offset)
{
    w_str(w, name);
    w_u32(w, n_dims);
    for (uint32_t i = 0; i < n_dims; i++)
        w_u64(w, dims[i]);
    w_u32(w, type);
    w_u64(w, offset);
    w->n_tensors++;
}

/* A tensor info placed after the previous one (aligned), as llama.cpp writes them. */
static void tensor(wbuf *w, const char *name, uint64_t d0, uint64_t d1, uint32_t type)
{
    uint64_t dims[2] = {d0, d1};
    uint64_t off = (w->data_end + w->alignment - 1) / w->alignment * w->alignment;
    tensor_at(w, name, d1 ? 2 : 1, dims, type, off);
    w->data_end = off + gpi_ggml_type_bytes(type, d1 ? d0 * d1 : d0);
}

/* The file size a writer's header + data section implies. */
static uint64_t w_file_size(const wbuf *w)
{
    uint64_t start = (w->n + w->alignment - 1) / w->alignment * w->alignment;
    return start + w->data_end;
}

/* Standard llama-family metadata. */
static void llama_kv(wbuf *w, const char *arch, uint32_t layers, uint32_t hidden, uint32_t heads, uint32_t kv_heads,
                     uint32_t ffn, uint32_t ctx)
{
    char key[128];
    kv_str(w, "general.architecture", arch);
    kv_str(w, "general.name", "Test Model");
#define ARCH_KEY(suffix) (snprintf(key, sizeof key, "%s.%s", arch, suffix), key)
    kv_u32(w, ARCH_KEY("block_count"), layers);
    kv_u32(w, ARCH_KEY("embedding_length"), hidden);
    kv_u32(w, ARCH_KEY("attention.head_count"), heads);
    kv_u32(w, ARCH_KEY("attention.head_count_kv"), kv_heads);
    if (ffn)
        kv_u32(w, ARCH_KEY("feed_forward_length"), ffn);
    kv_u32(w, ARCH_KEY("context_length"), ctx);
    kv_f32(w, ARCH_KEY("attention.layer_norm_rms_epsilon"));
#undef ARCH_KEY
}

typedef struct fixture {
    char dir[64];
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    strcpy(f->dir, "/tmp/gp_gguf_XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    rmdir(f->dir); /* tests unlink their files */
    free(f);
    return 0;
}

/* Write the header to dir/name and extend the file (sparsely) to `size` bytes. */
static void write_sparse(const char *path, const wbuf *w, uint64_t size)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(w->p, 1, w->n, fp), w->n);
    assert_int_equal(fflush(fp), 0);
    assert_int_equal(ftruncate(fileno(fp), (off_t)size), 0);
    fclose(fp);
}

static void expect_error(const wbuf *w, size_t len, uint64_t file_size, gp_status code, const char *msg_part,
                         int64_t offset, const char *field)
{
    gp_model m;
    gp_error err;
    gp_status st = gpi_model_from_gguf_buffer(w->p, len, file_size, "bad.gguf", &m, &err);
    if (st != code || !strstr(err.msg, msg_part) || err.offset != offset || (field && strcmp(err.field, field) != 0))
        print_error("got status %d offset %lld field '%s' msg '%s'\n", (int)st, (long long)err.offset, err.field,
                    err.msg);
    assert_int_equal(st, code);
    assert_non_null(strstr(err.msg, msg_part));
    assert_non_null(strstr(err.msg, "bad.gguf")); /* names the file */
    assert_string_equal(err.path, "bad.gguf");
    assert_int_equal(err.offset, offset);
    if (field)
        assert_string_equal(err.field, field);
}

/* ---- type table ---------------------------------------------------------------------------- */

static void test_type_sizes(void **state)
{
    (void)state;
    /* bytes of 256 elements; block struct sizes from ggml-common.h:
     *   F32 4*256; F16/BF16 2*256; I8..I64 and F64 by width
     *   block_q4_0 = fp16 d + qs[16] = 18 per 32       -> 8 blocks = 144
     *   block_q4_1 = fp16 d, m + qs[16] = 20 per 32     -> 160
     *   block_q5_0 = fp16 d + qh[4] + qs[16] = 22       -> 176
     *   block_q5_1 = 2 fp16 + qh[4] + qs[16] = 24       -> 192
     *   block_q8_0 = fp16 d + qs[32] = 34               -> 272
     *   block_q8_1 = 2 fp16 + qs[32] = 36               -> 288
     *   block_q2_K = scales[16] + qs[64] + 2 fp16 = 84 per 256
     *   block_q3_K = hmask[32] + qs[64] + scales[12] + fp16 = 110
     *   block_q4_K = 2 fp16 + scales[12] + qs[128] = 144
     *   block_q5_K = 2 fp16 + scales[12] + qh[32] + qs[128] = 176
     *   block_q6_K = ql[128] + qh[64] + scales[16] + fp16 = 210
     *   block_q8_K = f32 d + qs[256] + int16 bsums[16] = 292
     *   block_iq2_xxs = fp16 + u16 qs[32] = 66; iq2_xs = 66 + scales[8] = 74
     *   block_iq3_xxs = fp16 + qs[96] = 98; iq1_s = fp16 + qs[32] + u16 qh[8] = 50
     *   block_iq4_nl = fp16 + qs[16] = 18 per 32 -> 144
     *   block_iq3_s = fp16 + qs[64] + qh[8] + signs[32] + scales[4] = 110
     *   block_iq2_s = fp16 + qs[64] + qh[8] + scales[8] = 82
     *   block_iq4_xs = fp16 + u16 scales_h + scales_l[4] + qs[128] = 136
     *   block_iq1_m = qs[32] + qh[16] + scales[8] = 56
     *   block_tq1_0 = qs[48] + qh[4] + fp16 = 54; block_tq2_0 = qs[64] + fp16 = 66
     *   block_mxfp4 = e + qs[16] = 17 per 32 -> 136
     *   block_nvfp4 = d[4] + qs[32] = 36 per 64 -> 144
     *   block_q1_0 = fp16 + qs[16] = 18 per 128 -> 36; block_q2_0 = 18 per 64 -> 72 */
    static const struct {
        uint32_t type;
        const char *name;
        uint64_t bytes;
    } rows[] = {
        {T_F32, "F32", 1024},       {T_F16, "F16", 512},       {T_Q4_0, "Q4_0", 144},      {T_Q4_1, "Q4_1", 160},
        {T_Q5_0, "Q5_0", 176},      {T_Q5_1, "Q5_1", 192},     {T_Q8_0, "Q8_0", 272},      {T_Q8_1, "Q8_1", 288},
        {T_Q2_K, "Q2_K", 84},       {T_Q3_K, "Q3_K", 110},     {T_Q4_K, "Q4_K", 144},      {T_Q5_K, "Q5_K", 176},
        {T_Q6_K, "Q6_K", 210},      {T_Q8_K, "Q8_K", 292},     {T_IQ2_XXS, "IQ2_XXS", 66}, {T_IQ2_XS, "IQ2_XS", 74},
        {T_IQ3_XXS, "IQ3_XXS", 98}, {T_IQ1_S, "IQ1_S", 50},    {T_IQ4_NL, "IQ4_NL", 144},  {T_IQ3_S, "IQ3_S", 110},
        {T_IQ2_S, "IQ2_S", 82},     {T_IQ4_XS, "IQ4_XS", 136}, {T_I8, "I8", 256},          {T_I16, "I16", 512},
        {T_I32, "I32", 1024},       {T_I64, "I64", 2048},      {T_F64, "F64", 2048},       {T_IQ1_M, "IQ1_M", 56},
        {T_BF16, "BF16", 512},      {T_TQ1_0, "TQ1_0", 54},    {T_TQ2_0, "TQ2_0", 66},     {T_MXFP4, "MXFP4", 136},
        {T_NVFP4, "NVFP4", 144},    {T_Q1_0, "Q1_0", 36},      {T_Q2_0, "Q2_0", 72},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        assert_non_null(gpi_ggml_type_name(rows[i].type));
        assert_string_equal(gpi_ggml_type_name(rows[i].type), rows[i].name);
        assert_int_equal(gpi_ggml_type_bytes(rows[i].type, 256), rows[i].bytes);
    }
    /* removed and unknown ids */
    static const uint32_t gone[] = {4, 5, 31, 32, 33, 36, 37, 38, 43, 1000, UINT32_MAX};
    for (size_t i = 0; i < sizeof gone / sizeof gone[0]; i++) {
        assert_null(gpi_ggml_type_name(gone[i]));
        assert_int_equal(gpi_ggml_type_bytes(gone[i], 256), 0);
    }
    /* not a whole number of blocks */
    assert_int_equal(gpi_ggml_type_bytes(T_Q4_K, 100), 0);
    assert_int_equal(gpi_ggml_type_bytes(T_Q8_0, 48), 0);
    assert_int_equal(gpi_ggml_type_bytes(T_F32, 3), 12);
    assert_int_equal(gpi_ggml_type_bytes(T_Q8_0, 0), 0);
    /* 64-bit overflow: 2^63 F64 elements would be 2^66 bytes */
    assert_int_equal(gpi_ggml_type_bytes(T_F64, (uint64_t)1 << 63), 0);
}

/* ---- a tiny model with every kind of type -------------------------------------------------- */

/*
 * llama, 2 layers, hidden 256, 4 heads of 64, 2 KV heads, ffn 512, vocab 320.
 * Bytes per tensor (GGUF dims are [in, out]):
 *   token_embd [256,320] Q8_0      81920/32 = 2560 blocks x 34   =  87040
 *   blk.0.attn_norm [256] F32      256 x 4                         =   1024
 *   blk.0.attn_q [256,256] Q4_K    65536/256 = 256 x 144           =  36864
 *   blk.0.attn_k [256,128] Q5_K    32768/256 = 128 x 176           =  22528
 *   blk.0.attn_v [256,128] Q6_K    128 x 210                       =  26880
 *   blk.0.attn_output [256,256] IQ4_XS 256 x 136                   =  34816
 *   blk.0.ffn_norm [256] F32                                       =   1024
 *   blk.0.ffn_gate [256,512] Q2_K  131072/256 = 512 x 84           =  43008
 *   blk.0.ffn_up [256,512] Q3_K    512 x 110                       =  56320
 *   blk.0.ffn_down [512,256] MXFP4 131072/32 = 4096 x 17           =  69632
 *   blk.1.attn_norm [256] F16      256 x 2                         =    512
 *   blk.1.attn_q [256,256] BF16    65536 x 2                       = 131072
 *   blk.1.attn_k [256,128] Q4_0    32768/32 = 1024 x 18            =  18432
 *   blk.1.attn_v [256,128] Q5_1    1024 x 24                       =  24576
 *   blk.1.attn_output [256,256] IQ2_XXS 256 x 66                   =  16896
 *   blk.1.ffn_norm [256] F32                                       =   1024
 *   blk.1.ffn_gate [256,512] TQ2_0 512 x 66                        =  33792
 *   blk.1.ffn_up [256,512] IQ1_M   512 x 56                        =  28672
 *   blk.1.ffn_down [512,256] Q8_0  4096 x 34                       = 139264
 *   output_norm [256] F32                                          =   1024
 *   output [256,320] Q6_K          81920/256 = 320 x 210           =  67200
 *   total                                                          = 841600
 * Parameters: embedding 81920 + head 81920 + per layer (q 65536 + k 32768 + v 32768 +
 * o 65536 + 3 x 131072 + 2 x 256 = 590336) x 2 + final norm 256 = 1,344,768.
 * Dominant quantized type by bytes: Q8_0 (87040 + 139264 = 226304) ahead of Q6_K (94080).
 */
static void build_tiny(wbuf *w)
{
    w_begin(w, 3);
    llama_kv(w, "llama", 2, 256, 4, 2, 512, 2048);
    kv_u32(w, "general.file_type", 7);
    kv_tokens(w, 320, 4);
    tensor(w, "token_embd.weight", 256, 320, T_Q8_0);
    tensor(w, "blk.0.attn_norm.weight", 256, 0, T_F32);
    tensor(w, "blk.0.attn_q.weight", 256, 256, T_Q4_K);
    tensor(w, "blk.0.attn_k.weight", 256, 128, T_Q5_K);
    tensor(w, "blk.0.attn_v.weight", 256, 128, T_Q6_K);
    tensor(w, "blk.0.attn_output.weight", 256, 256, T_IQ4_XS);
    tensor(w, "blk.0.ffn_norm.weight", 256, 0, T_F32);
    tensor(w, "blk.0.ffn_gate.weight", 256, 512, T_Q2_K);
    tensor(w, "blk.0.ffn_up.weight", 256, 512, T_Q3_K);
    tensor(w, "blk.0.ffn_down.weight", 512, 256, T_MXFP4);
    tensor(w, "blk.1.attn_norm.weight", 256, 0, T_F16);
    tensor(w, "blk.1.attn_q.weight", 256, 256, T_BF16);
    tensor(w, "blk.1.attn_k.weight", 256, 128, T_Q4_0);
    tensor(w, "blk.1.attn_v.weight", 256, 128, T_Q5_1);
    tensor(w, "blk.1.attn_output.weight", 256, 256, T_IQ2_XXS);
    tensor(w, "blk.1.ffn_norm.weight", 256, 0, T_F32);
    tensor(w, "blk.1.ffn_gate.weight", 256, 512, T_TQ2_0);
    tensor(w, "blk.1.ffn_up.weight", 256, 512, T_IQ1_M);
    tensor(w, "blk.1.ffn_down.weight", 512, 256, T_Q8_0);
    tensor(w, "output_norm.weight", 256, 0, T_F32);
    tensor(w, "output.weight", 256, 320, T_Q6_K);
    w_finish(w);
}

static uint64_t stat_bytes(const gp_model *m, const char *name, int64_t *tensors)
{
    for (int i = 0; i < m->n_dtype_stats; i++)
        if (strcmp(m->dtype_stats[i].name, name) == 0) {
            if (tensors)
                *tensors = m->dtype_stats[i].tensors;
            return m->dtype_stats[i].bytes;
        }
    return 0;
}

static void test_tiny_model(void **state)
{
    fixture *f = *state;
    wbuf w;
    build_tiny(&w);
    char path[128];
    snprintf(path, sizeof path, "%s/tiny-model.Q8_0.gguf", f->dir);
    write_sparse(path, &w, w_file_size(&w));

    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_gguf_file(path, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.origin, GP_ORIGIN_GGUF);
    assert_string_equal(m.id, "tiny-model.Q8_0");
    assert_string_equal(m.name, "Test Model");
    assert_string_equal(m.model_type, "llama");
    assert_string_equal(m.source, path);
    assert_int_equal(m.layers, 2);
    assert_int_equal(m.hidden, 256);
    assert_int_equal(m.heads, 4);
    assert_int_equal(m.kv_heads, 2);
    assert_int_equal(m.head_dim, 64);
    assert_int_equal(m.ffn, 512);
    assert_int_equal(m.vocab, 320);
    assert_int_equal(m.max_context, 2048);
    assert_int_equal(m.tied_embeddings, 0);
    assert_int_equal(m.mlp, GP_MLP_GATED);
    assert_int_equal(m.norm, GP_NORM_RMS);
    assert_int_equal(m.norms_per_layer, 2);

    assert_int_equal(m.has_exact, 1);
    assert_int_equal(m.exact_tensors, 21);
    assert_int_equal(m.exact_params, 1344768);
    assert_int_equal(m.exact_buffers, 0);
    assert_int_equal(m.exact_bytes, 841600);
    gp_param_breakdown p;
    assert_int_equal(gp_model_params(&m, &p, NULL), GP_OK);
    assert_int_equal(p.total, 1344768);

    /* one row per type: 16 types */
    assert_int_equal(m.n_dtype_stats, 16);
    int64_t n = 0;
    assert_int_equal(stat_bytes(&m, "Q8_0", &n), 226304);
    assert_int_equal(n, 2);
    assert_int_equal(stat_bytes(&m, "F32", &n), 4096);
    assert_int_equal(n, 4);
    assert_int_equal(stat_bytes(&m, "Q6_K", NULL), 94080);
    assert_int_equal(stat_bytes(&m, "MXFP4", NULL), 69632);
    assert_int_equal(stat_bytes(&m, "IQ1_M", NULL), 28672);
    assert_int_equal(stat_bytes(&m, "BF16", NULL), 131072);

    assert_string_equal(m.quant_method, "Q8_0");
    assert_int_equal(m.quant, GP_DTYPE_INT8);
    assert_int_equal(m.quant_group, 32);
    assert_int_equal(m.dtype, GP_DTYPE_BF16); /* the only float matrix */
    assert_non_null(strstr(m.notes, "general.file_type 7 (MOSTLY_Q8_0)"));
    unlink(path);
    free(w.p);
}

/* ---- Llama-3.1-70B at Q4_K, as llama.cpp names its tensors ---------------------------------- */

static int64_t ref_int(json_t *cfg, const char *key)
{
    json_t *v = json_object_get(cfg, key);
    assert_true(json_is_integer(v));
    return json_integer_value(v);
}

/*
 * Shape from tests/data/models/llama-3.1-70b.json: 80 layers, hidden 8192, 64 heads,
 * 8 KV heads (head_dim 128), ffn 28672, vocab 128256, untied.
 * Q4_K: 144 bytes per 256 elements.
 *   token_embd [8192,128256]: 1,050,673,152 el = 4,104,192 blocks -> 591,003,648 bytes
 *   per layer: attn_q, attn_output [8192,8192] 67,108,864 el -> 37,748,736 bytes each
 *              attn_k, attn_v [8192,1024] 8,388,608 el -> 4,718,592 bytes each
 *              ffn_gate, ffn_up [8192,28672], ffn_down [28672,8192]: 234,881,024 el
 *                  -> 132,120,576 bytes each
 *              attn_norm, ffn_norm [8192] F32 -> 32,768 bytes each
 *              = 75,497,472 + 9,437,184 + 396,361,728 + 65,536 = 481,361,920 bytes
 *   80 layers: 38,508,953,600; output_norm 32,768; output.weight 591,003,648;
 *   rope_freqs [64] F32: 256
 *   total bytes = 591,003,648 + 38,508,953,600 + 32,768 + 591,003,648 + 256 = 39,690,993,920
 * Parameters: 70,553,706,496 (the published count); rope_freqs's 64 floats are a buffer.
 */
static void test_llama31_70b(void **state)
{
    fixture *f = *state;
    json_error_t jerr;
    json_t *cfg = json_load_file(GP_TEST_DATA_DIR "/models/llama-3.1-70b.json", 0, &jerr);
    assert_non_null(cfg);
    const int64_t L = ref_int(cfg, "num_hidden_layers"), h = ref_int(cfg, "hidden_size"),
                  H = ref_int(cfg, "num_attention_heads"), KV = ref_int(cfg, "num_key_value_heads"),
                  F = ref_int(cfg, "intermediate_size"), V = ref_int(cfg, "vocab_size"),
                  ctx = ref_int(cfg, "max_position_embeddings");
    json_decref(cfg);
    assert_int_equal(L, 80);
    const int64_t d = h / H, kvd = KV * d;

    wbuf w;
    w_begin(&w, 3);
    llama_kv(&w, "llama", (uint32_t)L, (uint32_t)h, (uint32_t)H, (uint32_t)KV, (uint32_t)F, (uint32_t)ctx);
    kv_u32(&w, "llama.rope.dimension_count", (uint32_t)d);
    kv_u32(&w, "llama.vocab_size", (uint32_t)V);
    kv_u32(&w, "general.file_type", 15);
    kv_u32(&w, "general.alignment", 32);
    tensor(&w, "rope_freqs.weight", 64, 0, T_F32);
    tensor(&w, "token_embd.weight", (uint64_t)h, (uint64_t)V, T_Q4_K);
    char name[64];
    for (int64_t i = 0; i < L; i++) {
#define BLK(s) (snprintf(name, sizeof name, "blk.%lld.%s", (long long)i, s), name)
        tensor(&w, BLK("attn_norm.weight"), (uint64_t)h, 0, T_F32);
        tensor(&w, BLK("attn_q.weight"), (uint64_t)h, (uint64_t)h, T_Q4_K);
        tensor(&w, BLK("attn_k.weight"), (uint64_t)h, (uint64_t)kvd, T_Q4_K);
        tensor(&w, BLK("attn_v.weight"), (uint64_t)h, (uint64_t)kvd, T_Q4_K);
        tensor(&w, BLK("attn_output.weight"), (uint64_t)h, (uint64_t)h, T_Q4_K);
        tensor(&w, BLK("ffn_norm.weight"), (uint64_t)h, 0, T_F32);
        tensor(&w, BLK("ffn_gate.weight"), (uint64_t)h, (uint64_t)F, T_Q4_K);
        tensor(&w, BLK("ffn_up.weight"), (uint64_t)h, (uint64_t)F, T_Q4_K);
        tensor(&w, BLK("ffn_down.weight"), (uint64_t)F, (uint64_t)h, T_Q4_K);
#undef BLK
    }
    tensor(&w, "output_norm.weight", (uint64_t)h, 0, T_F32);
    tensor(&w, "output.weight", (uint64_t)h, (uint64_t)V, T_Q4_K);
    w_finish(&w);

    char path[128];
    snprintf(path, sizeof path, "%s/Meta-Llama-3.1-70B-Q4_K_M.gguf", f->dir);
    uint64_t size = w_file_size(&w);
    write_sparse(path, &w, size);

    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_gguf_file(path, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_string_equal(m.id, "Meta-Llama-3.1-70B-Q4_K_M");
    assert_int_equal(m.layers, 80);
    assert_int_equal(m.hidden, 8192);
    assert_int_equal(m.heads, 64);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.ffn, 28672);
    assert_int_equal(m.vocab, 128256);
    assert_int_equal(m.max_context, 131072);
    assert_int_equal(m.tied_embeddings, 0);
    assert_int_equal(m.exact_tensors, 2 + 80 * 9 + 2);
    assert_int_equal(m.exact_params, 70553706496LL);
    assert_int_equal(m.exact_buffers, 64);
    assert_int_equal(m.exact_bytes, 39690993920ULL);
    gp_param_breakdown p;
    assert_int_equal(gp_model_params(&m, &p, &err), GP_OK);
    assert_int_equal(p.total, 70553706496LL);
    assert_int_equal(gp_model_total_params(&m), 70553706496LL);
    assert_int_equal(stat_bytes(&m, "Q4_K", NULL), 39690993920ULL - 81 * 2 * 32768 + 32768 - 256);
    assert_string_equal(m.quant_method, "Q4_K");
    assert_int_equal(m.quant, GP_DTYPE_INT4);
    assert_int_equal(m.quant_group, 256);
    assert_int_equal(m.dtype, GP_DTYPE_F16);
    assert_non_null(strstr(m.notes, "MOSTLY_Q4_K_M"));

    /* cut the file short by one byte: the last tensor's data runs past the end */
    assert_int_equal(truncate(path, (off_t)(size - 1)), 0);
    st = gp_model_from_gguf_file(path, &m, &err);
    assert_int_equal(st, GP_EPARSE);
    assert_non_null(strstr(err.msg, "truncated file"));
    assert_non_null(strstr(err.msg, "output.weight"));
    assert_non_null(strstr(err.msg, path));
    assert_string_equal(err.field, "output.weight");
    assert_int_equal(err.offset, (int64_t)(size - 591003648));
    unlink(path);
    free(w.p);
}

/* ---- other families ------------------------------------------------------------------------ */

/* DeepSeek-V2-Lite metadata as llama.cpp's converter writes it, without tensors: MLA + MoE
 * from the keys alone; the count must match the config's 15,706,484,224. */
static void test_deepseek2_metadata(void **state)
{
    (void)state;
    wbuf w;
    w_begin(&w, 3);
    llama_kv(&w, "deepseek2", 27, 2048, 16, 16, 10944, 163840);
    kv_u64(&w, "deepseek2.vocab_size", 102400); /* any integer type is accepted */
    kv_u32(&w, "deepseek2.expert_count", 64);
    kv_u32(&w, "deepseek2.expert_used_count", 6);
    kv_u32(&w, "deepseek2.expert_shared_count", 2);
    kv_u32(&w, "deepseek2.expert_feed_forward_length", 1408);
    kv_u32(&w, "deepseek2.leading_dense_block_count", 1);
    kv_u32(&w, "deepseek2.attention.kv_lora_rank", 512);
    kv_u32(&w, "deepseek2.rope.dimension_count", 64);
    kv_u32(&w, "deepseek2.attention.key_length", 192);
    kv_u32(&w, "deepseek2.attention.value_length", 128);
    w_finish(&w);
    gp_model m;
    gp_error err;
    gp_status st = gpi_model_from_gguf_buffer(w.p, w.n, w.n, "dsv2-lite.gguf", &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.has_exact, 0);
    assert_int_equal(m.kv_lora_rank, 512);
    assert_int_equal(m.q_lora_rank, 0);
    assert_int_equal(m.qk_nope_head_dim, 128);
    assert_int_equal(m.qk_rope_head_dim, 64);
    assert_int_equal(m.v_head_dim, 128);
    assert_int_equal(m.experts, 64);
    assert_int_equal(m.dense_layers, 1);
    assert_int_equal(m.vocab, 102400);
    assert_non_null(strstr(m.notes, "no token_embd.weight"));
    gp_param_breakdown p;
    assert_int_equal(gp_model_params(&m, &p, NULL), GP_OK);
    assert_int_equal(p.total, 15706484224LL);
    assert_int_equal(p.active, 2661150208LL);
    free(w.p);
}

/* Structure read from the tensors: a gemma2-like block (4 norms, tied), a plain-MLP LayerNorm
 * block with biases (falcon-like), per-layer arrays and sliding windows. */
static void test_structure_from_tensors(void **state)
{
    (void)state;
    wbuf w;
    w_begin(&w, 2);
    llama_kv(&w, "gemma2", 2, 256, 4, 2, 512, 8192);
    kv_u32(&w, "gemma2.attention.sliding_window", 4096);
    kv_u32(&w, "gemma2.attention.key_length", 128);
    tensor(&w, "token_embd.weight", 256, 300, T_F16);
    for (int i = 0; i < 2; i++) {
        char n[64];
        static const char *const norms[] = {"attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm"};
        for (int k = 0; k < 4; k++) {
            snprintf(n, sizeof n, "blk.%d.%s.weight", i, norms[k]);
            tensor(&w, n, 256, 0, T_F32);
        }
        snprintf(n, sizeof n, "blk.%d.attn_q.weight", i);
        tensor(&w, n, 256, 512, T_F16);
        snprintf(n, sizeof n, "blk.%d.attn_k.weight", i);
        tensor(&w, n, 256, 256, T_F16);
        snprintf(n, sizeof n, "blk.%d.attn_v.weight", i);
        tensor(&w, n, 256, 256, T_F16);
        snprintf(n, sizeof n, "blk.%d.attn_output.weight", i);
        tensor(&w, n, 512, 256, T_F16);
        snprintf(n, sizeof n, "blk.%d.ffn_gate.weight", i);
        tensor(&w, n, 256, 512, T_F16);
        snprintf(n, sizeof n, "blk.%d.ffn_up.weight", i);
        tensor(&w, n, 256, 512, T_F16);
        snprintf(n, sizeof n, "blk.%d.ffn_down.weight", i);
        tensor(&w, n, 512, 256, T_F16);
    }
    tensor(&w, "output_norm.weight", 256, 0, T_F32);
    w_finish(&w);
    gp_model m;
    gp_error err;
    gp_status st = gpi_model_from_gguf_buffer(w.p, w.n, w_file_size(&w), "g2.gguf", &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.norms_per_layer, 4);
    assert_int_equal(m.tied_embeddings, 1);
    assert_int_equal(m.head_dim, 128);
    assert_int_equal(m.sliding_window, 4096);
    assert_int_equal(m.sliding_layers, 1);
    assert_string_equal(m.quant_method, "");
    assert_int_equal(m.quant, GP_DTYPE_UNKNOWN);
    assert_int_equal(m.dtype, GP_DTYPE_F16);
    gp_param_breakdown p;
    assert_int_equal(gp_model_params(&m, &p, NULL), GP_OK);
    assert_int_equal(p.total, m.exact_params);
    free(w.p);

    /* plain MLP, LayerNorm, biases everywhere; per-layer ffn array */
    w_begin(&w, 3);
    llama_kv(&w, "falcon", 2, 64, 2, 1, 0, 2048);
    static const uint32_t ffn_per_layer[] = {256, 128};
    kv_arr_u32(&w, "falcon.feed_forward_length", ffn_per_layer, 2);
    tensor(&w, "token_embd.weight", 64, 100, T_F32);
    for (int i = 0; i < 2; i++) {
        char n[64];
        uint64_t ffn = ffn_per_layer[i];
        snprintf(n, sizeof n, "blk.%d.attn_norm.weight", i);
        tensor(&w, n, 64, 0, T_F32);
        snprintf(n, sizeof n, "blk.%d.attn_norm.bias", i);
        tensor(&w, n, 64, 0, T_F32);
        snprintf(n, sizeof n, "blk.%d.attn_qkv.weight", i);
        tensor(&w, n, 64, 128, T_F32);
        snprintf(n, sizeof n, "blk.%d.attn_qkv.bias", i);
        tensor(&w, n, 128, 0, T_F32);
        snprintf(n, sizeof n, "blk.%d.attn_output.weight", i);
        tensor(&w, n, 64, 64, T_F32);
        snprintf(n, sizeof n, "blk.%d.attn_output.bias", i);
        tensor(&w, n, 64, 0, T_F32);
        snprintf(n, sizeof n, "blk.%d.ffn_up.weight", i);
        tensor(&w, n, 64, ffn, T_F32);
        snprintf(n, sizeof n, "blk.%d.ffn_up.bias", i);
        tensor(&w, n, ffn, 0, T_F32);
        snprintf(n, sizeof n, "blk.%d.ffn_down.weight", i);
        tensor(&w, n, ffn, 64, T_F32);
        snprintf(n, sizeof n, "blk.%d.ffn_down.bias", i);
        tensor(&w, n, 64, 0, T_F32);
    }
    tensor(&w, "output_norm.weight", 64, 0, T_F32);
    tensor(&w, "output_norm.bias", 64, 0, T_F32);
    w_finish(&w);
    st = gpi_model_from_gguf_buffer(w.p, w.n, w_file_size(&w), "falcon.gguf", &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.mlp, GP_MLP_PLAIN);
    assert_int_equal(m.norm, GP_NORM_LAYER);
    assert_int_equal(m.norms_per_layer, 1);
    assert_int_equal(m.qkv_bias, 1);
    assert_int_equal(m.o_bias, 1);
    assert_int_equal(m.mlp_bias, 1);
    assert_int_equal(m.ffn, 256);
    assert_int_equal(m.tied_embeddings, 1);
    assert_non_null(strstr(m.notes, "varies by layer"));
    assert_int_equal(m.dtype, GP_DTYPE_F32);
    free(w.p);
}

/* The file reader grows its read when the header passes the first 4 MiB; a buffer holding
 * only part of the header is a "truncated header" error. */
static void test_large_header(void **state)
{
    fixture *f = *state;
    wbuf w;
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 64, 2, 2, 128, 512);
    kv_tokens(&w, 200000, 24); /* 200000 x (8 + 24) = 6.4 MB of tokenizer */
    tensor(&w, "output_norm.weight", 64, 0, T_F32);
    w_finish(&w);
    assert_true(w.n > 4u * 1024 * 1024);
    char path[128];
    snprintf(path, sizeof path, "%s/big.gguf", f->dir);
    write_sparse(path, &w, w_file_size(&w));
    gp_model m;
    gp_error err;
    gp_status st = gp_model_from_gguf_file(path, &m, &err);
    if (st)
        print_error("%s\n", err.msg);
    assert_int_equal(st, GP_OK);
    assert_int_equal(m.vocab, 200000); /* from tokenizer.ggml.tokens */
    assert_int_equal(m.tied_embeddings, 1);
    unlink(path);

    /* only the first 1 MiB in memory: truncated, at the token string that crosses it */
    st = gpi_model_from_gguf_buffer(w.p, 1u << 20, w_file_size(&w), "big.gguf", &m, &err);
    assert_int_equal(st, GP_EPARSE);
    assert_non_null(strstr(err.msg, "truncated header"));
    assert_string_equal(err.field, "tokenizer.ggml.tokens");
    assert_true(err.offset > (1 << 20) - 40 && err.offset < (1 << 20));
    free(w.p);
}

/* ---- rejections ---------------------------------------------------------------------------- */

static void test_errors_header(void **state)
{
    (void)state;
    wbuf w;
    build_tiny(&w);
    uint64_t size = w_file_size(&w);

    /* bad magic */
    w.p[0] = 'X';
    expect_error(&w, w.n, size, GP_EPARSE, "not a GGUF file", 0, "magic");
    w.p[0] = 'G';
    /* too short for the magic */
    expect_error(&w, 2, 2, GP_EPARSE, "truncated file", 0, "magic");
    /* version 1, 4, big-endian 3 */
    w.p[4] = 1;
    expect_error(&w, w.n, size, GP_EUNSUPPORTED, "version 1 is not supported", 4, "version");
    w.p[4] = 4;
    expect_error(&w, w.n, size, GP_EUNSUPPORTED, "version 4 is not supported", 4, "version");
    w.p[4] = 0;
    w.p[7] = 3;
    expect_error(&w, w.n, size, GP_EUNSUPPORTED, "big-endian", 4, "version");
    w.p[7] = 0;
    w.p[4] = 3;
    /* the file ends inside the counts */
    expect_error(&w, 20, 20, GP_EPARSE, "truncated file", 16, "metadata_kv_count");

    /* counts that cannot fit: 2^40 tensors in a small file */
    uint8_t saved[16];
    memcpy(saved, w.p + 8, 16);
    w.p[8 + 5] = 1;
    expect_error(&w, w.n, size, GP_EPARSE, "tensor_count 1099511627797 cannot fit in a file of", 8, "tensor_count");
    memcpy(w.p + 8, saved, 16);
    w.p[16 + 4] = 1;
    expect_error(&w, w.n, size, GP_EPARSE, "metadata_kv_count 4294967307 cannot fit", 16, "metadata_kv_count");
    memcpy(w.p + 8, saved, 16);
    /* over the caps, in a file big enough to hold them */
    uint64_t n = GPI_MAX_GGUF_TENSORS + 1u;
    for (int i = 0; i < 8; i++)
        w.p[8 + i] = (uint8_t)(n >> (8 * i));
    expect_error(&w, w.n, (uint64_t)1 << 40, GP_ELIMIT, "exceeds the limit of 1000000", 8, "tensor_count");
    memcpy(w.p + 8, saved, 16);
    n = GPI_MAX_GGUF_KV + 1u;
    for (int i = 0; i < 8; i++)
        w.p[16 + i] = (uint8_t)(n >> (8 * i));
    expect_error(&w, w.n, (uint64_t)1 << 40, GP_ELIMIT, "exceeds the limit of 100000", 16, "metadata_kv_count");
    memcpy(w.p + 8, saved, 16);

    /* the header is cut inside the tensor infos (2 bytes into output.weight's type) */
    expect_error(&w, w.n - 10, w.n - 10, GP_EPARSE, "truncated file", (int64_t)(w.n - 12), "output.weight");
    /* the buffer holds part of a longer file: truncated header, naming what was read */
    expect_error(&w, w.n - 10, size, GP_EPARSE, "only the first", (int64_t)(w.n - 12), "output.weight");
    free(w.p);
}

static void test_errors_metadata(void **state)
{
    (void)state;
    wbuf w;
    /* a key whose length runs past the file */
    w_begin(&w, 3);
    w_u64(&w, 1000);
    w_bytes(&w, "general", 7);
    w.n_kv = 1;
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EPARSE, "claims 1000 bytes but only 7 remain", 24, "metadata[0]");
    /* ... over the string cap in a file big enough */
    expect_error(&w, w.n, (uint64_t)1 << 40, GP_EPARSE, "only the first 39 bytes", 32, "metadata[0]");
    free(w.p);
    w_begin(&w, 3);
    w_u64(&w, (uint64_t)GPI_MAX_GGUF_STRING + 1);
    w.n_kv = 1;
    w_finish(&w);
    expect_error(&w, w.n, (uint64_t)1 << 40, GP_ELIMIT, "over the 16777216-byte limit", 24, "metadata[0]");
    free(w.p);

    /* unknown value type 13 */
    w_begin(&w, 3);
    kv_str(&w, "general.architecture", "llama");
    w_str(&w, "llama.block_count");
    w_u32(&w, 13);
    w_u32(&w, 2);
    w.n_kv++;
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EPARSE, "unknown value type 13", (int64_t)(w.n - 4), "llama.block_count");
    free(w.p);

    /* an array whose elements cannot fit; an array of unknown type; one over the cap */
    w_begin(&w, 3);
    w_str(&w, "tokenizer.ggml.scores");
    w_u32(&w, V_ARR);
    w_u32(&w, V_F32);
    w_u64(&w, 1000);
    w_u32(&w, 0);
    w.n_kv = 1;
    w_finish(&w);
    size_t arr_at = 24 + 8 + strlen("tokenizer.ggml.scores") + 4;
    expect_error(&w, w.n, w.n, GP_EPARSE, "an array of 1000 float32 values cannot fit", (int64_t)arr_at,
                 "tokenizer.ggml.scores");
    w.p[arr_at] = 77;
    expect_error(&w, w.n, w.n, GP_EPARSE, "array of unknown value type 77", (int64_t)arr_at, "tokenizer.ggml.scores");
    w.p[arr_at] = V_U8;
    uint64_t big = (uint64_t)GPI_MAX_GGUF_ARRAY + 1;
    for (int i = 0; i < 8; i++)
        w.p[arr_at + 4 + i] = (uint8_t)(big >> (8 * i));
    expect_error(&w, w.n, (uint64_t)1 << 40, GP_ELIMIT, "exceeds the limit of 67108864", (int64_t)arr_at,
                 "tokenizer.ggml.scores");
    free(w.p);

    /* arrays nested 9 deep */
    w_begin(&w, 3);
    w_str(&w, "x.nested");
    w_u32(&w, V_ARR);
    for (int i = 0; i < 9; i++) {
        w_u32(&w, V_ARR);
        w_u64(&w, 1);
    }
    w_u32(&w, V_U8);
    w_u64(&w, 0);
    w.n_kv = 1;
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_ELIMIT, "nested deeper than 8", 24 + 16 + 4 + 8 * 12, "x.nested");
    free(w.p);

    /* bad alignment */
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 64, 2, 2, 128, 512);
    size_t align_at = w.n;
    kv_u32(&w, "general.alignment", 48);
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EPARSE, "must be a power of two", (int64_t)align_at, "general.alignment");
    free(w.p);

    /* missing essentials; a wrongly typed one */
    w_begin(&w, 3);
    kv_str(&w, "general.name", "x");
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EINVAL, "no 'general.architecture'", 24, "general.architecture");
    free(w.p);
    w_begin(&w, 3);
    kv_str(&w, "general.architecture", "qwen2");
    kv_u32(&w, "qwen2.embedding_length", 64);
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EINVAL, "no 'qwen2.block_count'", 24, "qwen2.block_count");
    free(w.p);
    w_begin(&w, 3);
    kv_str(&w, "general.architecture", "qwen2");
    kv_u32(&w, "qwen2.block_count", 2);
    kv_u32(&w, "qwen2.embedding_length", 64);
    kv_u32(&w, "qwen2.vocab_size", 64);
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EINVAL, "no 'qwen2.attention.head_count'", 24, "qwen2.attention.head_count");
    free(w.p);
    w_begin(&w, 3);
    kv_str(&w, "general.architecture", "llama");
    size_t bc_at = w.n;
    kv_str(&w, "llama.block_count", "eighty");
    w_finish(&w);
    expect_error(&w, w.n, w.n, GP_EINVAL, "must be an integer (it is string)", (int64_t)bc_at, "llama.block_count");
    free(w.p);

    /* a model that fails gp_model_validate: 7 KV heads for 64 query heads */
    w_begin(&w, 3);
    llama_kv(&w, "llama", 2, 256, 4, 3, 512, 2048);
    kv_u32(&w, "llama.vocab_size", 100);
    w_finish(&w);
    /* head_count_kv is the 4th pair: 24 + general.architecture (8+20+4+8+5) + general.name
     * (8+12+4+8+10) + block_count (8+17+4+4) + embedding_length (8+22+4+4) + head_count
     * (8+26+4+4) */
    expect_error(&w, w.n, w.n, GP_EINVAL, "must divide heads", 24 + 45 + 42 + 33 + 38 + 42,
                 "llama.attention.head_count_kv");
    free(w.p);
}

static void test_errors_tensors(void **state)
{
    (void)state;
    wbuf w;
    gp_model m;
    gp_error err;
    uint64_t dims5[5] = {256, 1, 1, 1, 1};
    size_t at;

    /* 5 dimensions */
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 256, 4, 4, 512, 512);
    at = w.n + 8 + strlen("blk.0.attn_q.weight");
    tensor_at(&w, "blk.0.attn_q.weight", 5, dims5, T_F32, 0);
    w_finish(&w);
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EPARSE, "has 5 dimensions", (int64_t)at, "blk.0.attn_q.weight");
    free(w.p);

    /* unknown and removed tensor types */
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 256, 4, 4, 512, 512);
    kv_u32(&w, "llama.vocab_size", 32);
    at = w.n + 8 + strlen("blk.0.attn_q.weight") + 4 + 16;
    tensor(&w, "blk.0.attn_q.weight", 256, 256, T_F32);
    w_finish(&w);
    w.p[at] = 99;
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EUNSUPPORTED, "tensor 'blk.0.attn_q.weight' has ggml type id 99",
                 (int64_t)at, "blk.0.attn_q.weight");
    w.p[at] = 31;
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EUNSUPPORTED, "type 31 (Q4_0_4_4)", (int64_t)at, "blk.0.attn_q.weight");
    /* a row that is not whole blocks: 256 wide is fine for Q4_K, 100 is not */
    w.p[at] = T_Q4_K;
    assert_int_equal(gpi_model_from_gguf_buffer(w.p, w.n, (uint64_t)1 << 30, "ok.gguf", &m, &err), GP_OK);
    w.p[at - 16] = 100; /* dims[0] = 100 */
    w.p[at - 15] = 0;
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EPARSE,
                 "row length (dimension 0) 100 is not a multiple of the Q4_K block size 256", (int64_t)at,
                 "blk.0.attn_q.weight");
    free(w.p);

    /* dimensions whose product overflows */
    uint64_t huge[3] = {(uint64_t)1 << 32, (uint64_t)1 << 31, 2};
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 256, 4, 4, 512, 512);
    at = w.n + 8 + 1 + 4 + 8; /* 2^32 x 2^31 = 2^63 already overflows at dims[1] */
    tensor_at(&w, "t", 3, huge, T_F32, 0);
    w_finish(&w);
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EPARSE, "product of its dimensions overflows", (int64_t)at, "t");
    huge[0] = (uint64_t)1 << 63;
    free(w.p);
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 256, 4, 4, 512, 512);
    at = w.n + 8 + 1 + 4;
    tensor_at(&w, "t", 1, huge, T_F32, 0);
    w_finish(&w);
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EPARSE, "over 2^63-1", (int64_t)at, "t");
    free(w.p);
    /* 2^62 F32 elements: 2^64 bytes */
    huge[0] = (uint64_t)1 << 62;
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 256, 4, 4, 512, 512);
    at = w.n + 8 + 1 + 4 + 8 + 4;
    tensor_at(&w, "t", 1, huge, T_F32, 0);
    w_finish(&w);
    expect_error(&w, w.n, (uint64_t)1 << 30, GP_EPARSE, "cannot fit in any file", (int64_t)at, "t");
    free(w.p);

    /* data past the end of the file, and an offset that wraps */
    build_tiny(&w);
    uint64_t size = w_file_size(&w);
    uint64_t data_start = (w.n + 31) / 32 * 32;
    expect_error(&w, w.n, size - 1, GP_EPARSE, "runs past the end of the file",
                 (int64_t)(data_start + w.data_end - 67200), "output.weight");
    /* the last 8 bytes of the header are output.weight's offset */
    memset(w.p + w.n - 8, 0xff, 8);
    expect_error(&w, w.n, size, GP_EPARSE, "truncated file: tensor 'output.weight'",
                 (int64_t)(w.n - 8 - 4 - 16 - 4 - 8 - strlen("output.weight")), "output.weight");
    free(w.p);

    /* misaligned and overlapping offsets are reported, not refused */
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 64, 2, 2, 128, 512);
    kv_u32(&w, "llama.vocab_size", 10);
    uint64_t d1[1] = {64};
    tensor_at(&w, "output_norm.weight", 1, d1, T_F32, 4);
    tensor_at(&w, "blk.0.attn_norm.weight", 1, d1, T_F32, 64);
    w_finish(&w);
    assert_int_equal(gpi_model_from_gguf_buffer(w.p, w.n, w.n + 1024, "odd.gguf", &m, &err), GP_OK);
    assert_non_null(strstr(m.notes, "not multiples of the alignment"));
    assert_non_null(strstr(m.notes, "overlap"));
    free(w.p);

    /* split files: exact counts withheld */
    build_tiny(&w);
    free(w.p);
    w_begin(&w, 3);
    llama_kv(&w, "llama", 1, 64, 2, 2, 128, 512);
    kv_u32(&w, "llama.vocab_size", 10);
    w_str(&w, "split.count");
    w_u32(&w, 2); /* uint16 */
    w_bytes(&w, "\x03\x00", 2);
    w.n_kv++;
    tensor(&w, "output_norm.weight", 64, 0, T_F32);
    w_finish(&w);
    assert_int_equal(gpi_model_from_gguf_buffer(w.p, w.n, w_file_size(&w), "s-00001-of-00003.gguf", &m, &err), GP_OK);
    assert_int_equal(m.has_exact, 0);
    assert_int_equal(m.exact_params, 0);
    assert_non_null(strstr(m.notes, "split into 3 files"));
    assert_string_equal(m.id, "s-00001-of-00003");
    free(w.p);

    /* bad arguments, a missing file */
    assert_int_equal(gpi_model_from_gguf_buffer(NULL, 10, 10, NULL, &m, &err), GP_EINVAL);
    assert_int_equal(gpi_model_from_gguf_buffer(NULL, 0, 0, NULL, &m, &err), GP_EPARSE);
    assert_non_null(strstr(err.msg, "GGUF buffer"));
    assert_int_equal(gp_model_from_gguf_file("/nonexistent/x.gguf", &m, &err), GP_ENOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_type_sizes),
        cmocka_unit_test_setup_teardown(test_tiny_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_llama31_70b, setup, teardown),
        cmocka_unit_test(test_deepseek2_metadata),
        cmocka_unit_test(test_structure_from_tensors),
        cmocka_unit_test_setup_teardown(test_large_header, setup, teardown),
        cmocka_unit_test(test_errors_header),
        cmocka_unit_test(test_errors_metadata),
        cmocka_unit_test(test_errors_tensors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
