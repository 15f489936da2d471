/*
 * gguf.c: a GGUF file's header -> gp_model (metadata and tensor infos; tensor data is never
 * read). Specification: ggml's docs/gguf.md; tensor types: ggml.h (enum ggml_type),
 * ggml-common.h (block structs) and ggml.c (type_traits). docs/formats-gguf.md has the details.
 *
 * Binary layout (little-endian; versions 2 and 3 share it; version 1 had u32 counts):
 *
 *   byte 0   u32    magic             "GGUF" = 0x47 0x47 0x55 0x46
 *        4   u32    version           2 or 3
 *        8   u64    tensor_count
 *       16   u64    metadata_kv_count
 *       24   metadata_kv_count x  { string key; u32 value_type; value }
 *            tensor_count x       { string name; u32 n_dims (<= 4);
 *                                   u64 dims[n_dims] (innermost first: ne[0] is the row);
 *                                   u32 ggml_type; u64 offset (from the data section start) }
 *            padding up to a multiple of general.alignment (u32 key; default 32)
 *            data section: each tensor at data_start + offset, ggml_nbytes long
 *
 *   string = u64 byte length + UTF-8 bytes (no NUL)
 *   value  = UINT8 0 | INT8 1 | UINT16 2 | INT16 3 | UINT32 4 | INT32 5 | FLOAT32 6 |
 *            BOOL 7 (1 byte) | STRING 8 | ARRAY 9 (u32 elem_type, u64 n, n values; arrays may
 *            nest) | UINT64 10 | INT64 11 | FLOAT64 12
 *
 * Safety: no count is trusted. Every read is checked against the bytes left in the buffer and in
 * the file; counts are checked against what the file could hold before anything is allocated
 * (a metadata pair takes at least 13 bytes, a tensor info at least 24) and against the
 * GPI_MAX_GGUF_* caps. The only allocation is one record per metadata pair. Tensor infos are
 * read twice (the data section starts after the last one) instead of being stored.
 */
#include "internal.h"
#include "model/ggml_types.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ============================================================================================
 * Bounded reader
 * ========================================================================================== */

enum {
    V_UINT8 = 0,
    V_INT8,
    V_UINT16,
    V_INT16,
    V_UINT32,
    V_INT32,
    V_FLOAT32,
    V_BOOL,
    V_STRING,
    V_ARRAY,
    V_UINT64,
    V_INT64,
    V_FLOAT64,
    V_COUNT
};
static const uint8_t value_size[V_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
static const char *const value_type_names[V_COUNT] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                                      "int32",  "float32", "bool",   "string", "array",
                                                      "uint64", "int64",   "float64"};

#define GGUF_HEADER_BYTES      24u
#define GGUF_MIN_KV_BYTES      13u /* key length (8) + value type (4) + a 1-byte value */
#define GGUF_MIN_TENSOR_BYTES  24u /* name length (8) + n_dims (4) + type (4) + offset (8) */
#define GGUF_MAX_DIMS          4u
#define GGUF_MAX_NESTING       8 /* arrays of arrays, deeper than any real file */
#define GGUF_DEFAULT_ALIGNMENT 32u
#define GGUF_NAME_COPY         128 /* tensor names and keys copied for messages (ggml: <64) */

typedef struct rd {
    const uint8_t *buf;
    uint64_t len;       /* bytes in buf */
    uint64_t file_size; /* bytes in the whole file (>= len) */
    uint64_t pos;
    const char *name; /* for messages */
    gp_error *err;
    int need_more; /* a read ran past buf but not past the file */
} rd;

#if defined(__GNUC__)
__attribute__((format(printf, 5, 6)))
#endif
static gp_status
fail_at(rd *r, gp_status code, uint64_t at, const char *field, const char *fmt, ...)
{
    if (r->err) {
        char msg[GP_ERROR_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        gpi_fail(r->err, code, "%s: %s", r->name, msg);
        gpi_error_set_path(r->err, r->name);
        if (field)
            gpi_error_set_field(r->err, field);
        r->err->offset = at > (uint64_t)INT64_MAX ? -1 : (int64_t)at;
    }
    return code;
}

/* Copy a file string for messages: printable ASCII kept, other bytes as '?', truncated. */
static void copy_name(char *dst, size_t n, const uint8_t *s, uint64_t len)
{
    size_t i = 0;
    for (; i + 1 < n && i < len; i++)
        dst[i] = (s[i] >= 0x20 && s[i] < 0x7f) ? (char)s[i] : '?';
    dst[i] = '\0';
}

/* Are n more bytes readable at r->pos? */
static gp_status need(rd *r, uint64_t n, const char *what, const char *field)
{
    if (n <= r->len - r->pos)
        return GP_OK;
    if (n <= r->file_size - r->pos) {
        r->need_more = 1;
        if (r->len >= GPI_MAX_GGUF_HEADER)
            return fail_at(r, GP_ELIMIT, r->pos, field, "the header is larger than the %u-byte limit (%s at byte %llu)",
                           GPI_MAX_GGUF_HEADER, what, (unsigned long long)r->pos);
        return fail_at(r, GP_EPARSE, r->pos, field,
                       "truncated header: %s at byte %llu needs %llu bytes but only the first %llu "
                       "bytes of the file were read",
                       what, (unsigned long long)r->pos, (unsigned long long)n, (unsigned long long)r->len);
    }
    return fail_at(r, GP_EPARSE, r->pos, field, "truncated file: %s at byte %llu needs %llu bytes but only %llu remain",
                   what, (unsigned long long)r->pos, (unsigned long long)n,
                   (unsigned long long)(r->file_size - r->pos));
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

#define TRY(expr)                                                                                                      \
    do {                                                                                                               \
        gp_status try_st_ = (expr);                                                                                    \
        if (try_st_ != GP_OK)                                                                                          \
            return try_st_;                                                                                            \
    } while (0)

static gp_status rd_u32(rd *r, uint32_t *v, const char *what, const char *field)
{
    TRY(need(r, 4, what, field));
    *v = le32(r->buf + r->pos);
    r->pos += 4;
    return GP_OK;
}

static gp_status rd_u64(rd *r, uint64_t *v, const char *what, const char *field)
{
    TRY(need(r, 8, what, field));
    *v = le64(r->buf + r->pos);
    r->pos += 8;
    return GP_OK;
}

static gp_status rd_string(rd *r, const uint8_t **s, uint64_t *len, const char *what, const char *field)
{
    uint64_t at = r->pos;
    TRY(rd_u64(r, len, what, field));
    if (*len > r->file_size - r->pos)
        return fail_at(r, GP_EPARSE, at, field, "%s at byte %llu claims %llu bytes but only %llu remain in the file",
                       what, (unsigned long long)at, (unsigned long long)*len,
                       (unsigned long long)(r->file_size - r->pos));
    if (*len > GPI_MAX_GGUF_STRING)
        return fail_at(r, GP_ELIMIT, at, field,
                       "%s at byte %llu is %llu bytes long: over the %u-byte limit for one string", what,
                       (unsigned long long)at, (unsigned long long)*len, GPI_MAX_GGUF_STRING);
    TRY(need(r, *len, what, field));
    *s = r->buf + r->pos;
    r->pos += *len;
    return GP_OK;
}

/* Skip one value of `type`, checking it; `key` names the pair in errors. */
static gp_status skip_value(rd *r, uint32_t type, int depth, const char *key)
{
    if (type >= V_COUNT)
        return fail_at(r, GP_EPARSE, r->pos, key, "metadata '%s': unknown value type %u", key, type);
    if (value_size[type]) {
        TRY(need(r, value_size[type], "a metadata value", key));
        r->pos += value_size[type];
        return GP_OK;
    }
    if (type == V_STRING) {
        const uint8_t *s;
        uint64_t n;
        return rd_string(r, &s, &n, "a string value", key);
    }
    /* array */
    uint64_t at = r->pos, n;
    uint32_t et;
    TRY(rd_u32(r, &et, "an array's element type", key));
    TRY(rd_u64(r, &n, "an array's length", key));
    if (et >= V_COUNT)
        return fail_at(r, GP_EPARSE, at, key, "metadata '%s': array of unknown value type %u", key, et);
    if (depth >= GGUF_MAX_NESTING)
        return fail_at(r, GP_ELIMIT, at, key, "metadata '%s': arrays nested deeper than %d", key, GGUF_MAX_NESTING);
    uint64_t min = value_size[et] ? value_size[et] : et == V_STRING ? 8u : 12u;
    if (n > (r->file_size - r->pos) / min)
        return fail_at(r, GP_EPARSE, at, key,
                       "metadata '%s': an array of %llu %s values cannot fit in the %llu bytes "
                       "left in the file",
                       key, (unsigned long long)n, value_type_names[et], (unsigned long long)(r->file_size - r->pos));
    if (n > GPI_MAX_GGUF_ARRAY)
        return fail_at(r, GP_ELIMIT, at, key, "metadata '%s': an array of %llu values exceeds the limit of %u", key,
                       (unsigned long long)n, GPI_MAX_GGUF_ARRAY);
    if (value_size[et]) {
        TRY(need(r, n * value_size[et], "an array's values", key));
        r->pos += n * value_size[et];
        return GP_OK;
    }
    for (uint64_t i = 0; i < n; i++)
        TRY(skip_value(r, et, depth + 1, key));
    return GP_OK;
}

/* ============================================================================================
 * Metadata pairs
 * ========================================================================================== */

typedef struct kvrec {
    const uint8_t *key;
    uint64_t key_len;
    uint32_t type;
    uint32_t elem_type; /* arrays */
    uint64_t n;         /* arrays: element count */
    uint64_t pos;       /* byte offset of the pair */
    uint64_t vpos;      /* byte offset of the value (arrays: of the first element) */
} kvrec;

typedef struct gguf {
    rd r;
    uint32_t version;
    uint64_t n_tensors, n_kv;
    kvrec *kv;
    const uint8_t *arch; /* general.architecture */
    uint64_t arch_len;
    char arch_c[72]; /* printable copy */
    uint32_t alignment;
    uint64_t tinfo_pos; /* first tensor info */
    uint64_t data_start;
} gguf;

static int key_is(const kvrec *k, const char *key)
{
    size_t n = strlen(key);
    return k->key_len == n && memcmp(k->key, key, n) == 0;
}

static const kvrec *find_key(const gguf *g, const char *key)
{
    for (uint64_t i = 0; i < g->n_kv; i++)
        if (key_is(&g->kv[i], key))
            return &g->kv[i];
    return NULL;
}

/* "{arch}.suffix" */
static const kvrec *find_arch_key(const gguf *g, const char *suffix, char *full, size_t full_n)
{
    snprintf(full, full_n, "%s.%s", g->arch_c, suffix);
    size_t sl = strlen(suffix);
    for (uint64_t i = 0; i < g->n_kv; i++) {
        const kvrec *k = &g->kv[i];
        if (k->key_len == g->arch_len + 1 + sl && memcmp(k->key, g->arch, g->arch_len) == 0 &&
            k->key[g->arch_len] == '.' && memcmp(k->key + g->arch_len + 1, suffix, sl) == 0)
            return k;
    }
    return NULL;
}

static gp_status read_metadata(gguf *g)
{
    rd *r = &g->r;
    for (uint64_t i = 0; i < g->n_kv; i++) {
        kvrec *k = &g->kv[i];
        char field[32];
        snprintf(field, sizeof field, "metadata[%llu]", (unsigned long long)i);
        k->pos = r->pos;
        TRY(rd_string(r, &k->key, &k->key_len, "a metadata key", field));
        char key[GGUF_NAME_COPY];
        copy_name(key, sizeof key, k->key, k->key_len);
        TRY(rd_u32(r, &k->type, "a metadata value type", key));
        k->vpos = r->pos;
        if (k->type == V_ARRAY && r->len - r->pos >= 12) {
            k->elem_type = le32(r->buf + r->pos);
            k->n = le64(r->buf + r->pos + 4);
            k->vpos = r->pos + 12;
        }
        TRY(skip_value(r, k->type, 0, key));
    }
    return GP_OK;
}

/* ============================================================================================
 * Tensor infos
 * ========================================================================================== */

typedef struct tinfo {
    uint64_t pos; /* byte offset of the info */
    const uint8_t *name;
    uint64_t name_len;
    char cname[GGUF_NAME_COPY]; /* printable copy */
    uint32_t n_dims;
    uint64_t dims[GGUF_MAX_DIMS];
    uint32_t type;
    const ggml_type_row *row;
    uint64_t offset;
    int64_t elements;
    uint64_t bytes;
} tinfo;

static gp_status read_tinfo(gguf *g, uint64_t index, tinfo *t)
{
    rd *r = &g->r;
    char field[32];
    snprintf(field, sizeof field, "tensor[%llu]", (unsigned long long)index);
    t->pos = r->pos;
    TRY(rd_string(r, &t->name, &t->name_len, "a tensor name", field));
    copy_name(t->cname, sizeof t->cname, t->name, t->name_len);
    const char *nm = t->cname;
    uint64_t at = r->pos;
    TRY(rd_u32(r, &t->n_dims, "a tensor's dimension count", nm));
    if (t->n_dims > GGUF_MAX_DIMS)
        return fail_at(r, GP_EPARSE, at, nm, "tensor '%s' has %u dimensions; GGUF allows at most %u", nm, t->n_dims,
                       GGUF_MAX_DIMS);
    uint64_t elements = 1;
    for (uint32_t d = 0; d < t->n_dims; d++) {
        at = r->pos;
        TRY(rd_u64(r, &t->dims[d], "a tensor dimension", nm));
        if (t->dims[d] > (uint64_t)INT64_MAX)
            return fail_at(r, GP_EPARSE, at, nm, "tensor '%s': dimension %u is %llu, over 2^63-1", nm, d,
                           (unsigned long long)t->dims[d]);
        if (t->dims[d] && elements > (uint64_t)INT64_MAX / t->dims[d])
            return fail_at(r, GP_EPARSE, at, nm, "tensor '%s': the product of its dimensions overflows a 64-bit count",
                           nm);
        elements *= t->dims[d];
    }
    at = r->pos;
    TRY(rd_u32(r, &t->type, "a tensor type", nm));
    t->row = gpi_ggml_type_row(t->type);
    if (!t->row) {
        const char *removed = t->type < GGML_TYPE_TABLE_SIZE ? gpi_ggml_removed_types[t->type] : NULL;
        if (removed)
            return fail_at(r, GP_EUNSUPPORTED, at, nm,
                           "tensor '%s' has ggml type %u (%s), which ggml removed from GGUF files; "
                           "convert the model again",
                           nm, t->type, removed);
        return fail_at(r, GP_EUNSUPPORTED, at, nm, "tensor '%s' has ggml type id %u, which this reader does not know",
                       nm, t->type);
    }
    uint64_t row_len = t->n_dims ? t->dims[0] : 1;
    if (row_len % t->row->block)
        return fail_at(r, GP_EPARSE, at, nm,
                       "tensor '%s': its row length (dimension 0) %llu is not a multiple of the %s "
                       "block size %u",
                       nm, (unsigned long long)row_len, t->row->name, t->row->block);
    at = r->pos;
    TRY(rd_u64(r, &t->offset, "a tensor data offset", nm));
    int overflow;
    t->elements = (int64_t)elements;
    t->bytes = gpi_ggml_type_row_bytes(t->row, elements, &overflow);
    if (overflow)
        return fail_at(r, GP_EPARSE, at, nm, "tensor '%s': %llu elements of %s cannot fit in any file", nm,
                       (unsigned long long)elements, t->row->name);
    return GP_OK;
}

/* ============================================================================================
 * What the tensors show about the architecture
 * ========================================================================================== */

typedef struct evidence {
    int64_t blk_tensors; /* tensors named blk.N.* */
    int has_output, has_embd;
    uint64_t embd_dims[2];
    int qkv_bias, o_bias, mlp_bias, qk_norm, gate, up, layer_norm, sinks;
    int expert_bias, router_bias, score_bias, shexp_gate, mla_q_lora;
    int norms_blk0;
    uint64_t exps_ffn; /* ffn_up_exps dims[1] */
    uint64_t type_bytes[GGML_TYPE_TABLE_SIZE];
    uint64_t float_matrix_bytes[GGML_TYPE_TABLE_SIZE]; /* >= 2-D tensors of float types */
    int64_t misaligned, overlapping;
} evidence;

static int starts(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void observe(evidence *ev, const tinfo *t)
{
    const char *n = t->cname;
    ev->type_bytes[t->type] += t->bytes;
    if (!t->row->quantized && t->n_dims >= 2)
        ev->float_matrix_bytes[t->type] += t->bytes;
    if (strcmp(n, "output.weight") == 0)
        ev->has_output = 1;
    if (strcmp(n, "token_embd.weight") == 0 && t->n_dims == 2) {
        ev->has_embd = 1;
        ev->embd_dims[0] = t->dims[0];
        ev->embd_dims[1] = t->dims[1];
    }
    if (!starts(n, "blk."))
        return;
    const char *p = n + 4;
    if (*p < '0' || *p > '9')
        return;
    int layer0 = p[0] == '0' && p[1] == '.';
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p != '.')
        return;
    const char *s = p + 1; /* the part after blk.N. */
    ev->blk_tensors++;
    if (!strcmp(s, "attn_q.bias") || !strcmp(s, "attn_qkv.bias") || !strcmp(s, "attn_k.bias"))
        ev->qkv_bias = 1;
    else if (!strcmp(s, "attn_output.bias"))
        ev->o_bias = 1;
    else if (!strcmp(s, "ffn_up.bias") || !strcmp(s, "ffn_down.bias"))
        ev->mlp_bias = 1;
    else if (starts(s, "attn_q_norm.") || starts(s, "attn_k_norm."))
        ev->qk_norm = 1;
    else if (!strcmp(s, "attn_norm.bias"))
        ev->layer_norm = 1;
    else if (starts(s, "attn_sinks"))
        ev->sinks = 1;
    else if (!strcmp(s, "ffn_gate_exps.bias") || !strcmp(s, "ffn_up_exps.bias") || !strcmp(s, "ffn_down_exps.bias"))
        ev->expert_bias = 1;
    else if (!strcmp(s, "ffn_gate_inp.bias"))
        ev->router_bias = 1;
    else if (starts(s, "exp_probs_b"))
        ev->score_bias = 1;
    else if (starts(s, "ffn_gate_inp_shexp"))
        ev->shexp_gate = 1;
    else if (starts(s, "attn_q_a."))
        ev->mla_q_lora = 1;
    if (starts(s, "ffn_gate.") || starts(s, "ffn_gate_exps.") || starts(s, "ffn_gate_shexp."))
        ev->gate = 1;
    if (starts(s, "ffn_up"))
        ev->up = 1;
    if (!strcmp(s, "ffn_up_exps.weight") && t->n_dims == 3)
        ev->exps_ffn = t->dims[1];
    /* normalisation vectors of block 0, q/k and MLA latent norms excepted (attention owns them) */
    size_t sl = strlen(s);
    if (layer0 && sl >= 11 && strcmp(s + sl - 11, "norm.weight") == 0 && !starts(s, "attn_q_norm.") &&
        !starts(s, "attn_k_norm.") && !starts(s, "attn_q_a_norm.") && !starts(s, "attn_kv_a_norm."))
        ev->norms_blk0++;
}

/* ============================================================================================
 * Metadata -> gp_model
 * ========================================================================================== */

typedef enum { WIN_NONE, WIN_ALL, WIN_HALF, WIN_GEMMA3 } window_kind;

typedef struct arch_row {
    const char *arch; /* general.architecture as llama.cpp writes it */
    gp_mlp_kind mlp;
    gp_norm_kind norm;
    int norms_per_layer;
    int qkv_bias, o_bias, mlp_bias, qk_norm, sinks;
    window_kind window; /* which layers use {arch}.attention.sliding_window */
} arch_row;

/* Defaults when the file has no blk.* tensors to show the structure (llama.cpp llama-arch.cpp
 * names; the flags match the hf_config.c families). */
static const arch_row arches[] = {
    {"llama", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, WIN_ALL},
    {"mistral3", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, WIN_ALL},
    {"qwen2", GP_MLP_GATED, GP_NORM_RMS, 2, 1, 0, 0, 0, 0, WIN_NONE},
    {"qwen2moe", GP_MLP_GATED, GP_NORM_RMS, 2, 1, 0, 0, 0, 0, WIN_NONE},
    {"qwen3", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 1, 0, WIN_NONE},
    {"qwen3moe", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 1, 0, WIN_NONE},
    {"gemma", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, WIN_NONE},
    {"gemma2", GP_MLP_GATED, GP_NORM_RMS, 4, 0, 0, 0, 0, 0, WIN_HALF},
    {"gemma3", GP_MLP_GATED, GP_NORM_RMS, 4, 0, 0, 0, 1, 0, WIN_GEMMA3},
    {"phi3", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, WIN_ALL},
    {"deepseek2", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, WIN_NONE},
    {"gpt-oss", GP_MLP_GATED, GP_NORM_RMS, 2, 1, 1, 0, 0, 1, WIN_HALF},
    {"gptoss", GP_MLP_GATED, GP_NORM_RMS, 2, 1, 1, 0, 0, 1, WIN_HALF}, /* Ollama's spelling */
    {"falcon", GP_MLP_PLAIN, GP_NORM_LAYER, 2, 0, 0, 0, 0, 0, WIN_NONE},
    {"gpt2", GP_MLP_PLAIN, GP_NORM_LAYER, 2, 1, 1, 1, 0, 0, WIN_NONE},
    {"gptneox", GP_MLP_PLAIN, GP_NORM_LAYER, 2, 1, 1, 1, 0, 0, WIN_NONE},
};
static const arch_row generic_arch = {"", GP_MLP_GATED, GP_NORM_RMS, 2, 0, 0, 0, 0, 0, WIN_ALL};

typedef struct mapper {
    gguf *g;
    gp_model *m;
    const evidence *ev;
    const arch_row *fam; /* set by map_family */
    char arch[72];
} mapper;

static const char *value_type_name(uint32_t t)
{
    return t < V_COUNT ? value_type_names[t] : "?";
}

/* A non-negative integer at p of integer type t; -1 if negative; -2 if not an integer type. */
static int64_t int_at(const uint8_t *p, uint32_t t, uint64_t *u)
{
    switch (t) {
    case V_UINT8: *u = p[0]; return 0;
    case V_INT8:
        if ((int8_t)p[0] < 0)
            return -1;
        *u = p[0];
        return 0;
    case V_UINT16: *u = (uint64_t)p[0] | (uint64_t)p[1] << 8; return 0;
    case V_INT16:
        if (p[1] & 0x80)
            return -1;
        *u = (uint64_t)p[0] | (uint64_t)p[1] << 8;
        return 0;
    case V_UINT32: *u = le32(p); return 0;
    case V_INT32:
        if (p[3] & 0x80)
            return -1;
        *u = le32(p);
        return 0;
    case V_UINT64: *u = le64(p); return 0;
    case V_INT64:
        if (p[7] & 0x80)
            return -1;
        *u = le64(p);
        return 0;
    case V_BOOL: *u = p[0] != 0; return 0;
    default: return -2;
    }
}

/* Read {arch}.suffix as a dimension (0..2^40). An array of integers (one per layer) gives its
 * largest element (*per_layer set when the elements differ). Absent: 0 and *found = 0. */
static gp_status get_dim(mapper *mp, const char *suffix, int64_t *out, int *found, int *per_layer)
{
    char key[160];
    const kvrec *k = find_arch_key(mp->g, suffix, key, sizeof key);
    rd *r = &mp->g->r;
    *out = 0;
    if (found)
        *found = 0;
    if (per_layer)
        *per_layer = 0;
    if (!k)
        return GP_OK;
    uint32_t t = k->type == V_ARRAY ? k->elem_type : k->type;
    uint64_t n = k->type == V_ARRAY ? k->n : 1;
    if (t == V_BOOL || t >= V_COUNT || !value_size[t] || t == V_FLOAT32 || t == V_FLOAT64)
        return fail_at(r, GP_EINVAL, k->pos, key, "metadata '%s' must be an integer (it is %s%s)", key,
                       k->type == V_ARRAY ? "an array of " : "", value_type_name(t));
    uint64_t best = 0, least = UINT64_MAX;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t v;
        if (int_at(r->buf + k->vpos + i * value_size[t], t, &v) < 0)
            return fail_at(r, GP_EINVAL, k->pos, key, "metadata '%s' is negative", key);
        if (v > (uint64_t)GPI_MAX_DIM)
            return fail_at(r, GP_EINVAL, k->pos, key, "metadata '%s' is %llu: out of range (0 to 2^40)", key,
                           (unsigned long long)v);
        if (v > best)
            best = v;
        if (v < least)
            least = v;
    }
    *out = (int64_t)best;
    if (found)
        *found = 1;
    if (per_layer) /* an array whose values differ */
        *per_layer = n > 1 && least != best;
    return GP_OK;
}

static gp_status need_dim(mapper *mp, const char *suffix, int64_t *out)
{
    int found;
    TRY(get_dim(mp, suffix, out, &found, NULL));
    if (!found) {
        char key[160];
        find_arch_key(mp->g, suffix, key, sizeof key);
        return fail_at(&mp->g->r, GP_EINVAL, GGUF_HEADER_BYTES, key,
                       "the metadata has no '%s', which the model's shape needs", key);
    }
    return GP_OK;
}

/* A string value, or NULL (absent or another type). */
static const uint8_t *get_str(const gguf *g, const kvrec *k, uint64_t *len)
{
    if (!k || k->type != V_STRING)
        return NULL;
    *len = le64(g->r.buf + k->vpos);
    return g->r.buf + k->vpos + 8;
}

static const char *ftype_name(uint64_t ft)
{
    /* enum llama_ftype (llama.h) */
    static const char *const names[] = {
        [0] = "ALL_F32",           [1] = "MOSTLY_F16",     [2] = "MOSTLY_Q4_0",    [3] = "MOSTLY_Q4_1",
        [7] = "MOSTLY_Q8_0",       [8] = "MOSTLY_Q5_0",    [9] = "MOSTLY_Q5_1",    [10] = "MOSTLY_Q2_K",
        [11] = "MOSTLY_Q3_K_S",    [12] = "MOSTLY_Q3_K_M", [13] = "MOSTLY_Q3_K_L", [14] = "MOSTLY_Q4_K_S",
        [15] = "MOSTLY_Q4_K_M",    [16] = "MOSTLY_Q5_K_S", [17] = "MOSTLY_Q5_K_M", [18] = "MOSTLY_Q6_K",
        [19] = "MOSTLY_IQ2_XXS",   [20] = "MOSTLY_IQ2_XS", [21] = "MOSTLY_Q2_K_S", [22] = "MOSTLY_IQ3_XS",
        [23] = "MOSTLY_IQ3_XXS",   [24] = "MOSTLY_IQ1_S",  [25] = "MOSTLY_IQ4_NL", [26] = "MOSTLY_IQ3_S",
        [27] = "MOSTLY_IQ3_M",     [28] = "MOSTLY_IQ2_S",  [29] = "MOSTLY_IQ2_M",  [30] = "MOSTLY_IQ4_XS",
        [31] = "MOSTLY_IQ1_M",     [32] = "MOSTLY_BF16",   [36] = "MOSTLY_TQ1_0",  [37] = "MOSTLY_TQ2_0",
        [38] = "MOSTLY_MXFP4_MOE", [39] = "MOSTLY_NVFP4",  [40] = "MOSTLY_Q1_0",
    };
    if (ft < sizeof names / sizeof names[0] && names[ft])
        return names[ft];
    return "unknown";
}

/* Model field (gp_model_validate's name) -> GGUF key suffix, to point errors at the file. */
static const char *field_key(const char *field)
{
    static const char *const map[][2] = {
        {"layers", "block_count"},
        {"hidden", "embedding_length"},
        {"heads", "attention.head_count"},
        {"kv_heads", "attention.head_count_kv"},
        {"head_dim", "attention.key_length"},
        {"ffn", "feed_forward_length"},
        {"vocab", "vocab_size"},
        {"experts", "expert_count"},
        {"experts_active", "expert_used_count"},
        {"moe_ffn", "expert_feed_forward_length"},
        {"shared_experts", "expert_shared_count"},
        {"kv_lora_rank", "attention.kv_lora_rank"},
        {"q_lora_rank", "attention.q_lora_rank"},
        {"sliding_window", "attention.sliding_window"},
        {"max_context", "context_length"},
        {"dense_layers", "leading_dense_block_count"},
        {"qk_nope_head_dim", "attention.key_length"},
        {"sliding_layers", "attention.sliding_window"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(field, map[i][0]) == 0)
            return map[i][1];
    return NULL;
}

/* general.architecture -> the family's defaults (flags a file's tensors may override later) */
static gp_status map_family(mapper *mp)
{
    gguf *g = mp->g;
    gp_model *m = mp->m;
    rd *r = &g->r;
    const kvrec *ka = find_key(g, "general.architecture");
    uint64_t alen = 0;
    const uint8_t *arch = get_str(g, ka, &alen);
    if (!ka)
        return fail_at(r, GP_EINVAL, GGUF_HEADER_BYTES, "general.architecture",
                       "the metadata has no 'general.architecture'");
    if (!arch || alen == 0 || alen > 63)
        return fail_at(r, GP_EINVAL, ka->pos, "general.architecture",
                       "'general.architecture' must be a string of 1 to 63 bytes");
    g->arch = arch;
    g->arch_len = alen;
    copy_name(g->arch_c, sizeof g->arch_c, arch, alen);
    copy_name(mp->arch, sizeof mp->arch, arch, alen);
    gpi_strlcpy(m->model_type, mp->arch, sizeof m->model_type);

    mp->fam = NULL;
    for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++)
        if (strcmp(arches[i].arch, mp->arch) == 0)
            mp->fam = &arches[i];
    if (!mp->fam) {
        mp->fam = &generic_arch;
        gpi_note(m->notes, sizeof m->notes,
                 "GGUF architecture '%s' is not a known family: read with the standard keys as a "
                 "Llama-like decoder; check the counts",
                 mp->arch);
    }
    const arch_row *fam = mp->fam;
    m->mlp = fam->mlp;
    m->norm = fam->norm;
    m->norms_per_layer = fam->norms_per_layer;
    m->qkv_bias = fam->qkv_bias;
    m->o_bias = fam->o_bias;
    m->mlp_bias = fam->mlp_bias;
    m->qk_norm = fam->qk_norm;
    m->attn_sinks = fam->sinks;

    uint64_t slen;
    const uint8_t *s = get_str(g, find_key(g, "general.name"), &slen);
    if (s && slen)
        copy_name(m->name, sizeof m->name, s, slen);
    return GP_OK;
}

/* Layers, widths, heads and context; per-layer arrays give their largest value, with a note. */
static gp_status map_shape(mapper *mp)
{
    gp_model *m = mp->m;
    int found, per_layer;
    TRY(need_dim(mp, "block_count", &m->layers));
    TRY(need_dim(mp, "embedding_length", &m->hidden));
    TRY(get_dim(mp, "attention.head_count", &m->heads, &found, &per_layer));
    if (!found)
        TRY(need_dim(mp, "attention.head_count", &m->heads));
    if (per_layer)
        gpi_note(m->notes, sizeof m->notes, "%s.attention.head_count varies by layer: the largest (%lld) is used",
                 mp->arch, (long long)m->heads);
    TRY(get_dim(mp, "attention.head_count_kv", &m->kv_heads, &found, &per_layer));
    if (per_layer)
        gpi_note(m->notes, sizeof m->notes, "%s.attention.head_count_kv varies by layer: the largest (%lld) is used",
                 mp->arch, (long long)m->kv_heads);
    if (m->kv_heads == 0)
        m->kv_heads = m->heads;
    TRY(get_dim(mp, "attention.key_length", &m->head_dim, &found, NULL));
    if (!found && m->heads > 0)
        m->head_dim = m->hidden / m->heads;
    TRY(get_dim(mp, "feed_forward_length", &m->ffn, &found, &per_layer));
    if (per_layer)
        gpi_note(m->notes, sizeof m->notes,
                 "%s.feed_forward_length varies by layer: the largest (%lld) is used for every "
                 "layer, so the architecture count is an upper bound (the exact count is from the "
                 "tensors)",
                 mp->arch, (long long)m->ffn);
    return get_dim(mp, "context_length", &m->max_context, NULL, NULL);
}

/* Vocabulary: the embedding's rows, else {arch}.vocab_size, else the tokenizer's token count. */
static gp_status map_vocab(mapper *mp)
{
    gp_model *m = mp->m;
    const evidence *ev = mp->ev;
    int64_t vocab_key = 0, n_tokens = 0;
    TRY(get_dim(mp, "vocab_size", &vocab_key, NULL, NULL));
    const kvrec *kt = find_key(mp->g, "tokenizer.ggml.tokens");
    if (kt && kt->type == V_ARRAY && kt->n <= (uint64_t)GPI_MAX_DIM)
        n_tokens = (int64_t)kt->n;
    if (ev->has_embd && ev->embd_dims[1] <= (uint64_t)GPI_MAX_DIM)
        m->vocab = (int64_t)ev->embd_dims[1];
    else if (vocab_key > 0)
        m->vocab = vocab_key;
    else
        m->vocab = n_tokens;
    if (!ev->has_embd && m->vocab > 0)
        gpi_note(m->notes, sizeof m->notes, "no token_embd.weight tensor: vocabulary %lld taken from the metadata",
                 (long long)m->vocab);
    if (m->vocab == 0)
        return fail_at(&mp->g->r, GP_EINVAL, GGUF_HEADER_BYTES, "tokenizer.ggml.tokens",
                       "no vocabulary size: no token_embd.weight tensor, %s.vocab_size or "
                       "tokenizer.ggml.tokens",
                       mp->arch);
    return GP_OK;
}

/* Mixture of experts: counts, widths, shared experts and the router's biases. */
static gp_status map_moe(mapper *mp)
{
    gp_model *m = mp->m;
    const evidence *ev = mp->ev;
    int found;
    TRY(get_dim(mp, "expert_count", &m->experts, NULL, NULL));
    if (m->experts <= 0)
        return GP_OK;
    TRY(get_dim(mp, "expert_used_count", &m->experts_active, NULL, NULL));
    TRY(get_dim(mp, "expert_feed_forward_length", &m->moe_ffn, &found, NULL));
    if (!found) /* Mixtral (llama arch): feed_forward_length is the expert's width */
        m->moe_ffn = ev->exps_ffn && ev->exps_ffn <= (uint64_t)GPI_MAX_DIM ? (int64_t)ev->exps_ffn : m->ffn;
    TRY(get_dim(mp, "expert_shared_count", &m->shared_experts, NULL, NULL));
    int64_t shared_ffn = 0;
    TRY(get_dim(mp, "expert_shared_feed_forward_length", &shared_ffn, &found, NULL));
    if (found && shared_ffn > 0) {
        if (m->shared_experts == 0)
            m->shared_experts = 1;
        m->shared_expert_ffn = shared_ffn;
    }
    m->shared_expert_gate = ev->shexp_gate || (ev->blk_tensors == 0 && !strcmp(mp->arch, "qwen2moe"));
    TRY(get_dim(mp, "leading_dense_block_count", &m->dense_layers, NULL, NULL));
    m->expert_bias = ev->expert_bias || (ev->blk_tensors == 0 && mp->fam->sinks);
    m->router_bias = ev->router_bias || (ev->blk_tensors == 0 && mp->fam->sinks);
    m->router_score_bias = ev->score_bias;
    return GP_OK;
}

/* Multi-head latent attention (DeepSeek-V2/V3). */
static gp_status map_mla(mapper *mp)
{
    gp_model *m = mp->m;
    TRY(get_dim(mp, "attention.kv_lora_rank", &m->kv_lora_rank, NULL, NULL));
    if (m->kv_lora_rank <= 0)
        return GP_OK;
    int found;
    int64_t kl = 0, vl = 0;
    TRY(get_dim(mp, "attention.q_lora_rank", &m->q_lora_rank, NULL, NULL));
    TRY(get_dim(mp, "rope.dimension_count", &m->qk_rope_head_dim, NULL, NULL));
    /* newer conversions store the absorbed-MLA widths in key_length/value_length and the
     * per-head ones in *_mla */
    TRY(get_dim(mp, "attention.key_length_mla", &kl, &found, NULL));
    if (!found)
        TRY(get_dim(mp, "attention.key_length", &kl, NULL, NULL));
    TRY(get_dim(mp, "attention.value_length_mla", &vl, &found, NULL));
    if (!found)
        TRY(get_dim(mp, "attention.value_length", &vl, NULL, NULL));
    m->qk_nope_head_dim = kl - m->qk_rope_head_dim;
    m->v_head_dim = vl;
    m->head_dim = kl;
    m->kv_heads = m->heads;
    return GP_OK;
}

/* Sliding-window attention: which layers slide, from the pattern key or the family's rule. */
static gp_status map_window(mapper *mp)
{
    gp_model *m = mp->m;
    int64_t window = 0;
    TRY(get_dim(mp, "attention.sliding_window", &window, NULL, NULL));
    if (window <= 0)
        return GP_OK;
    char key[160];
    const kvrec *kp = find_arch_key(mp->g, "attention.sliding_window_pattern", key, sizeof key);
    int64_t sliding = -1;
    if (kp && kp->type == V_ARRAY && kp->elem_type == V_BOOL) {
        sliding = 0; /* one flag per layer: true = sliding */
        for (uint64_t i = 0; i < kp->n; i++)
            sliding += mp->g->r.buf[kp->vpos + i] != 0;
    } else if (kp) {
        int64_t pattern = 0;
        TRY(get_dim(mp, "attention.sliding_window_pattern", &pattern, NULL, NULL));
        if (pattern > 0) /* every pattern-th layer is global */
            sliding = m->layers - m->layers / pattern;
    }
    if (sliding < 0) {
        switch (mp->fam->window) {
        case WIN_HALF: sliding = (m->layers + 1) / 2; break;
        case WIN_GEMMA3: sliding = m->layers - m->layers / 6; break;
        case WIN_ALL: sliding = m->layers; break;
        default: sliding = 0; break;
        }
    }
    if (sliding > m->layers)
        sliding = m->layers;
    if (sliding > 0) {
        m->sliding_window = window;
        m->sliding_layers = sliding;
    }
    return GP_OK;
}

/* The structure the tensors themselves show overrides the family's defaults. */
static void map_tensor_structure(const mapper *mp)
{
    gp_model *m = mp->m;
    const evidence *ev = mp->ev;
    const arch_row *fam = mp->fam;
    if (ev->blk_tensors > 0) {
        m->qkv_bias = ev->qkv_bias;
        m->o_bias = ev->o_bias;
        m->mlp_bias = ev->mlp_bias;
        m->qk_norm = ev->qk_norm;
        m->attn_sinks = ev->sinks;
        m->norm = ev->layer_norm ? GP_NORM_LAYER : GP_NORM_RMS;
        if (ev->up)
            m->mlp = ev->gate ? GP_MLP_GATED : GP_MLP_PLAIN;
        if (ev->norms_blk0 > 0)
            m->norms_per_layer = ev->norms_blk0;
    }
    m->tied_embeddings = (mp->g->n_tensors > 0 && !ev->has_output) ||
                         (mp->g->n_tensors == 0 && fam->arch[0] && !strncmp(fam->arch, "gemma", 5));
}

static gp_status map_model(gguf *g, const evidence *ev, gp_model *m)
{
    mapper mp = {g, m, ev, NULL, ""};
    TRY(map_family(&mp));
    TRY(map_shape(&mp));
    TRY(map_vocab(&mp));
    TRY(map_moe(&mp));
    TRY(map_mla(&mp));
    TRY(map_window(&mp));
    map_tensor_structure(&mp);

    const kvrec *kf = find_key(g, "general.file_type");
    uint64_t ft;
    if (kf && kf->type != V_ARRAY && int_at(g->r.buf + kf->vpos, kf->type, &ft) == 0)
        gpi_note(m->notes, sizeof m->notes, "general.file_type %llu (%s)", (unsigned long long)ft, ftype_name(ft));
    return GP_OK;
}

/* quant_method / quant / dtype from the bytes per type */
static void map_storage(const evidence *ev, gp_model *m)
{
    int best_q = -1, best_f = -1;
    for (int t = 0; t < GGML_TYPE_TABLE_SIZE; t++) {
        if (!gpi_ggml_types[t].name)
            continue;
        if (gpi_ggml_types[t].quantized && ev->type_bytes[t] > 0 &&
            (best_q < 0 || ev->type_bytes[t] > ev->type_bytes[best_q]))
            best_q = t;
        if (ev->float_matrix_bytes[t] > 0 && (best_f < 0 || ev->float_matrix_bytes[t] > ev->float_matrix_bytes[best_f]))
            best_f = t;
    }
    if (best_q >= 0) {
        gpi_strlcpy(m->quant_method, gpi_ggml_types[best_q].name, sizeof m->quant_method);
        m->quant = gpi_ggml_types[best_q].dtype;
        m->quant_group = gpi_ggml_types[best_q].block;
    }
    if (best_f >= 0 && gpi_ggml_types[best_f].dtype != GP_DTYPE_UNKNOWN)
        m->dtype = gpi_ggml_types[best_f].dtype;
    else
        m->dtype = GP_DTYPE_F16; /* quantized matrices: llama.cpp computes in F16/F32 */
}

/* ============================================================================================
 * The parse
 * ========================================================================================== */

static gp_status parse_header(gguf *g)
{
    rd *r = &g->r;
    TRY(need(r, 4, "the magic", "magic"));
    if (memcmp(r->buf, "GGUF", 4) != 0)
        return fail_at(r, GP_EPARSE, 0, "magic",
                       "not a GGUF file: it starts with bytes %02x %02x %02x %02x, not \"GGUF\"", r->buf[0], r->buf[1],
                       r->buf[2], r->buf[3]);
    r->pos = 4;
    TRY(rd_u32(r, &g->version, "the version", "version"));
    if (g->version == 1)
        return fail_at(r, GP_EUNSUPPORTED, 4, "version",
                       "GGUF version 1 is not supported (it used 32-bit counts); convert the "
                       "model again with a current llama.cpp");
    if (g->version != 2 && g->version != 3) {
        if ((g->version & 0xffffu) == 0 && (g->version >> 24) >= 1 && (g->version >> 24) <= 3)
            return fail_at(r, GP_EUNSUPPORTED, 4, "version",
                           "a big-endian GGUF file (version %u byte-swapped) is not supported", g->version >> 24);
        return fail_at(r, GP_EUNSUPPORTED, 4, "version", "GGUF version %u is not supported (versions 2 and 3 are)",
                       g->version);
    }
    TRY(rd_u64(r, &g->n_tensors, "tensor_count", "tensor_count"));
    TRY(rd_u64(r, &g->n_kv, "metadata_kv_count", "metadata_kv_count"));
    uint64_t room = r->file_size - GGUF_HEADER_BYTES;
    if (g->n_kv > room / GGUF_MIN_KV_BYTES)
        return fail_at(r, GP_EPARSE, 16, "metadata_kv_count",
                       "metadata_kv_count %llu cannot fit in a file of %llu bytes", (unsigned long long)g->n_kv,
                       (unsigned long long)r->file_size);
    if (g->n_tensors > (room - g->n_kv * GGUF_MIN_KV_BYTES) / GGUF_MIN_TENSOR_BYTES)
        return fail_at(r, GP_EPARSE, 8, "tensor_count", "tensor_count %llu cannot fit in a file of %llu bytes",
                       (unsigned long long)g->n_tensors, (unsigned long long)r->file_size);
    if (g->n_kv > GPI_MAX_GGUF_KV)
        return fail_at(r, GP_ELIMIT, 16, "metadata_kv_count", "metadata_kv_count %llu exceeds the limit of %u",
                       (unsigned long long)g->n_kv, GPI_MAX_GGUF_KV);
    if (g->n_tensors > GPI_MAX_GGUF_TENSORS)
        return fail_at(r, GP_ELIMIT, 8, "tensor_count", "tensor_count %llu exceeds the limit of %u",
                       (unsigned long long)g->n_tensors, GPI_MAX_GGUF_TENSORS);
    if (g->n_kv) {
        g->kv = calloc((size_t)g->n_kv, sizeof *g->kv);
        if (!g->kv)
            return fail_at(r, GP_ENOMEM, 16, "metadata_kv_count", "out of memory for %llu metadata records",
                           (unsigned long long)g->n_kv);
    }
    TRY(read_metadata(g));

    g->alignment = GGUF_DEFAULT_ALIGNMENT;
    const kvrec *ka = find_key(g, "general.alignment");
    if (ka) {
        if (ka->type != V_UINT32)
            return fail_at(r, GP_EPARSE, ka->pos, "general.alignment",
                           "'general.alignment' must be a uint32 (it is %s)", value_type_name(ka->type));
        uint32_t a = le32(r->buf + ka->vpos);
        if (a == 0 || (a & (a - 1)) != 0)
            return fail_at(r, GP_EPARSE, ka->pos, "general.alignment",
                           "'general.alignment' is %u: it must be a power of two", a);
        g->alignment = a;
    }
    return GP_OK;
}

static gp_status parse_tensors(gguf *g, gp_model *m, evidence *ev)
{
    rd *r = &g->r;
    tinfo t;
    g->tinfo_pos = r->pos;
    for (uint64_t i = 0; i < g->n_tensors; i++)
        TRY(read_tinfo(g, i, &t));
    uint64_t pad = (g->alignment - r->pos % g->alignment) % g->alignment;
    g->data_start = r->pos + pad;

    /* second pass: data bounds and tallies */
    r->pos = g->tinfo_pos;
    uint64_t prev_end = 0;
    for (uint64_t i = 0; i < g->n_tensors; i++) {
        TRY(read_tinfo(g, i, &t));
        uint64_t start = g->data_start + t.offset; /* data_start < 2^63: no wrap */
        if (t.offset > UINT64_MAX - g->data_start || start > r->file_size || t.bytes > r->file_size - start) {
            int wraps = t.offset > UINT64_MAX - g->data_start;
            /* the data's byte if it is a file offset at all, else the tensor info's */
            uint64_t at = wraps || start > (uint64_t)INT64_MAX ? t.pos : start;
            return fail_at(r, GP_EPARSE, at, t.cname,
                           "truncated file: tensor '%s' (%s, %llu bytes) at data offset %llu "
                           "(byte %llu) runs past the end of the file (%llu bytes)",
                           t.cname, t.row->name, (unsigned long long)t.bytes, (unsigned long long)t.offset,
                           (unsigned long long)(wraps ? 0 : start), (unsigned long long)r->file_size);
        }
        if (t.offset % g->alignment)
            ev->misaligned++;
        if (t.offset < prev_end)
            ev->overlapping++;
        if (t.offset + t.bytes > prev_end)
            prev_end = t.offset + t.bytes;
        observe(ev, &t);
        gpi_model_add_tensor(m, t.cname, t.row->name, t.elements, t.bytes);
    }
    if (ev->misaligned)
        gpi_note(m->notes, sizeof m->notes,
                 "%lld tensor(s) have data offsets that are not multiples of the alignment (%u); "
                 "llama.cpp would refuse this file",
                 (long long)ev->misaligned, g->alignment);
    if (ev->overlapping)
        gpi_note(m->notes, sizeof m->notes, "%lld tensor(s) overlap the data of an earlier tensor",
                 (long long)ev->overlapping);
    return GP_OK;
}

/* Re-point a gp_model_validate error at the file: the GGUF key and its byte offset. */
static void explain_validate_error(gguf *g, gp_error *err)
{
    if (!err)
        return;
    char field[GP_ERROR_FIELD_MAX], msg[GP_ERROR_MSG_MAX];
    gpi_strlcpy(field, err->field, sizeof field);
    gpi_strlcpy(msg, err->msg, sizeof msg);
    const char *suffix = field_key(field);
    uint64_t at = GGUF_HEADER_BYTES;
    char key[160] = "";
    if (suffix && g->arch) {
        const kvrec *k = find_arch_key(g, suffix, key, sizeof key);
        if (k)
            at = k->pos;
    }
    fail_at(&g->r, err->code, at, key[0] ? key : field, "%s (metadata '%s')", msg, key[0] ? key : field);
}

static gp_status parse(const uint8_t *buf, size_t len, uint64_t file_size, const char *name, gp_model *out,
                       gp_error *err, int *need_more)
{
    gguf g;
    memset(&g, 0, sizeof g);
    if (file_size < len)
        len = (size_t)file_size; /* bytes past the file's end are not the file's */
    g.r = (rd){buf, len, file_size, 0, name, err, 0};
    evidence *ev = calloc(1, sizeof *ev);
    if (!ev)
        return gpi_fail(err, GP_ENOMEM, "%s: out of memory", name);
    gp_status st = parse_header(&g);
    if (st == GP_OK)
        st = parse_tensors(&g, out, ev);
    if (st == GP_OK)
        st = map_model(&g, ev, out);
    if (st == GP_OK) {
        map_storage(ev, out);
        const kvrec *ks = find_key(&g, "split.count");
        uint64_t n_split = 0;
        if (ks && ks->type != V_ARRAY && int_at(g.r.buf + ks->vpos, ks->type, &n_split) == 0 && n_split > 1) {
            gpi_note(out->notes, sizeof out->notes,
                     "this is one part of a GGUF split into %llu files: its %lld tensors are not "
                     "the whole model, so exact counts are not reported",
                     (unsigned long long)n_split, (long long)out->exact_tensors);
            out->has_exact = 0;
            out->exact_params = out->exact_buffers = out->exact_tensors = 0;
            out->exact_bytes = 0;
        }
        st = gp_model_validate(out, err);
        if (st != GP_OK)
            explain_validate_error(&g, err);
    }
    *need_more = g.r.need_more;
    free(g.kv);
    free(ev);
    return st;
}

/* File name without directories and without a ".gguf" suffix. */
static void id_from_name(char *dst, size_t n, const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    gpi_strlcpy(dst, base, n);
    size_t bl = strlen(dst);
    if (bl > 5 && gpi_ends_with(dst, ".gguf"))
        dst[bl - 5] = '\0';
}

static void finish(gp_model *out, const char *name)
{
    out->origin = GP_ORIGIN_GGUF;
    gpi_strlcpy(out->source, name, sizeof out->source);
    id_from_name(out->id, sizeof out->id, name);
    if (!out->name[0])
        gpi_strlcpy(out->name, out->id, sizeof out->name);
}

gp_status gpi_model_from_gguf_buffer(const uint8_t *buf, size_t len, uint64_t file_size, const char *name,
                                     gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    if (!name)
        name = "GGUF buffer";
    if (!out || (!buf && len)) {
        gpi_error_set_path(err, name);
        return gpi_fail(err, GP_EINVAL, "%s: no model or buffer given", name);
    }
    gpi_model_init(out);
    static const uint8_t empty[1] = {0};
    int more;
    gp_status st = parse(buf ? buf : empty, buf ? len : 0, file_size, name, out, err, &more);
    if (st != GP_OK) {
        gpi_model_init(out);
        return st;
    }
    finish(out, name);
    return GP_OK;
}

#define GGUF_FIRST_READ (4u * 1024u * 1024u)

gp_status gp_model_from_gguf_file(const char *path, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    if (!path || !out)
        return gpi_fail(err, GP_EINVAL, "gp_model_from_gguf_file: no path or model given");
    /* Read a prefix; if the header runs past it, read a larger one (headers with a big
     * tokenizer run to tens of MB; the tensor data after them is never read). */
    size_t want = GGUF_FIRST_READ;
    for (;;) {
        uint8_t *buf;
        size_t len;
        uint64_t size;
        gp_status st = gpi_read_file_prefix(path, want, &buf, &len, &size, err);
        if (st != GP_OK)
            return st;
        int more = 0;
        gpi_model_init(out);
        st = parse(buf, len, size, path, out, err, &more);
        free(buf);
        if (st == GP_OK) {
            finish(out, path);
            return GP_OK;
        }
        gpi_model_init(out);
        if (!more || len < want || want >= GPI_MAX_GGUF_HEADER)
            return st;
        want = want > GPI_MAX_GGUF_HEADER / 8 ? GPI_MAX_GGUF_HEADER : want * 8;
        gp_error_clear(err);
    }
}
