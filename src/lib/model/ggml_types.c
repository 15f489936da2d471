/*
 * ggml_types.c: the ggml tensor types a GGUF file may hold (enum ggml_type of ggml.h), with
 * their block sizes and bytes per block (the block structs of ggml-common.h, type_traits of
 * ggml.c) and the gp_dtype each is modelled as (docs/formats-gguf.md). gguf.c reads through it.
 */
#include "internal.h"
#include "model/ggml_types.h"

#define QK_K 256

/* Index = ggml type id (enum ggml_type, ggml.h). Bytes per block from the block structs of
 * ggml-common.h, e.g. block_q4_K = d, dmin (2 x fp16) + scales[12] + qs[QK_K/2] = 144. */
const ggml_type_row gpi_ggml_types[GGML_TYPE_TABLE_SIZE] = {
    [0] = {"F32", 1, 4, GP_DTYPE_F32, 0},
    [1] = {"F16", 1, 2, GP_DTYPE_F16, 0},
    [2] = {"Q4_0", 32, 18, GP_DTYPE_INT4, 1}, /* fp16 d + 16 nibble bytes */
    [3] = {"Q4_1", 32, 20, GP_DTYPE_INT4, 1}, /* fp16 d, m + 16 */
    /* 4, 5: Q4_2, Q4_3, removed from ggml */
    [6] = {"Q5_0", 32, 22, GP_DTYPE_INT4, 1},       /* fp16 d + qh[4] + 16 */
    [7] = {"Q5_1", 32, 24, GP_DTYPE_INT4, 1},       /* fp16 d, m + qh[4] + 16 */
    [8] = {"Q8_0", 32, 34, GP_DTYPE_INT8, 1},       /* fp16 d + 32 int8 */
    [9] = {"Q8_1", 32, 36, GP_DTYPE_INT8, 1},       /* fp16 d, s + 32 int8 */
    [10] = {"Q2_K", QK_K, 84, GP_DTYPE_INT4, 1},    /* scales[16] + qs[64] + fp16 d, dmin */
    [11] = {"Q3_K", QK_K, 110, GP_DTYPE_INT4, 1},   /* hmask[32] + qs[64] + scales[12] + fp16 d */
    [12] = {"Q4_K", QK_K, 144, GP_DTYPE_INT4, 1},   /* fp16 d, dmin + scales[12] + qs[128] */
    [13] = {"Q5_K", QK_K, 176, GP_DTYPE_INT4, 1},   /* fp16 d, dmin + scales[12] + qh[32] + qs[128] */
    [14] = {"Q6_K", QK_K, 210, GP_DTYPE_INT8, 1},   /* ql[128] + qh[64] + scales[16] + fp16 d */
    [15] = {"Q8_K", QK_K, 292, GP_DTYPE_INT8, 1},   /* f32 d + qs[256] + int16 bsums[16] */
    [16] = {"IQ2_XXS", QK_K, 66, GP_DTYPE_INT4, 1}, /* fp16 d + u16 qs[32] */
    [17] = {"IQ2_XS", QK_K, 74, GP_DTYPE_INT4, 1},  /* fp16 d + u16 qs[32] + scales[8] */
    [18] = {"IQ3_XXS", QK_K, 98, GP_DTYPE_INT4, 1}, /* fp16 d + qs[96] */
    [19] = {"IQ1_S", QK_K, 50, GP_DTYPE_INT4, 1},   /* fp16 d + qs[32] + u16 qh[8] */
    [20] = {"IQ4_NL", 32, 18, GP_DTYPE_INT4, 1},    /* fp16 d + qs[16] */
    [21] = {"IQ3_S", QK_K, 110, GP_DTYPE_INT4, 1},  /* fp16 d + qs[64] + qh[8] + signs[32] + scales[4] */
    [22] = {"IQ2_S", QK_K, 82, GP_DTYPE_INT4, 1},   /* fp16 d + qs[64] + qh[8] + scales[8] */
    [23] = {"IQ4_XS", QK_K, 136, GP_DTYPE_INT4, 1}, /* fp16 d + u16 scales_h + scales_l[4] + qs[128] */
    [24] = {"I8", 1, 1, GP_DTYPE_UNKNOWN, 0},
    [25] = {"I16", 1, 2, GP_DTYPE_UNKNOWN, 0},
    [26] = {"I32", 1, 4, GP_DTYPE_UNKNOWN, 0},
    [27] = {"I64", 1, 8, GP_DTYPE_UNKNOWN, 0},
    [28] = {"F64", 1, 8, GP_DTYPE_F64, 0},
    [29] = {"IQ1_M", QK_K, 56, GP_DTYPE_INT4, 1}, /* qs[32] + qh[16] + scales[8] */
    [30] = {"BF16", 1, 2, GP_DTYPE_BF16, 0},
    /* 31-33: Q4_0_4_4, Q4_0_4_8, Q4_0_8_8, removed from GGUF files */
    [34] = {"TQ1_0", QK_K, 54, GP_DTYPE_INT4, 1}, /* qs[48] + qh[4] + fp16 d */
    [35] = {"TQ2_0", QK_K, 66, GP_DTYPE_INT4, 1}, /* qs[64] + fp16 d */
    /* 36-38: IQ4_NL_4_4, IQ4_NL_4_8, IQ4_NL_8_8, removed */
    [39] = {"MXFP4", 32, 17, GP_DTYPE_MXFP4, 1}, /* E8M0 e + qs[16] */
    /* newer than docs/gguf.md (llama.cpp master): */
    [40] = {"NVFP4", 64, 36, GP_DTYPE_FP4, 1},  /* UE4M3 d[4] (one per 16) + qs[32] */
    [41] = {"Q1_0", 128, 18, GP_DTYPE_INT4, 1}, /* fp16 d + qs[16] */
    [42] = {"Q2_0", 64, 18, GP_DTYPE_INT4, 1},  /* fp16 d + qs[16] */
};

const char *const gpi_ggml_removed_types[GGML_TYPE_TABLE_SIZE] = {
    [4] = "Q4_2",      [5] = "Q4_3",        [31] = "Q4_0_4_4",   [32] = "Q4_0_4_8",
    [33] = "Q4_0_8_8", [36] = "IQ4_NL_4_4", [37] = "IQ4_NL_4_8", [38] = "IQ4_NL_8_8",
};

const ggml_type_row *gpi_ggml_type_row(uint32_t type)
{
    if (type >= GGML_TYPE_TABLE_SIZE || !gpi_ggml_types[type].name)
        return NULL;
    return &gpi_ggml_types[type];
}

const char *gpi_ggml_type_name(uint32_t type)
{
    const ggml_type_row *t = gpi_ggml_type_row(type);
    return t ? t->name : NULL;
}

uint64_t gpi_ggml_type_row_bytes(const ggml_type_row *t, uint64_t n, int *overflow)
{
    *overflow = 0;
    if (n % t->block)
        return 0;
    uint64_t blocks = n / t->block;
    if (blocks > UINT64_MAX / t->size) {
        *overflow = 1;
        return 0;
    }
    return blocks * t->size;
}

uint64_t gpi_ggml_type_bytes(uint32_t type, uint64_t n)
{
    const ggml_type_row *t = gpi_ggml_type_row(type);
    int overflow;
    return t ? gpi_ggml_type_row_bytes(t, n, &overflow) : 0;
}
