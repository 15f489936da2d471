/*
 * dtype.c: the element types of weights and caches, as a table.
 *
 * Storage bits include the scales and zero points a format keeps per group:
 *   int4 (GPTQ/AWQ, group 128): 4 bits + fp16 scale/128 + packed 4-bit zero/128 = 4.15625
 *   nf4 (bitsandbytes, QLoRA double quantization, Dettmers et al. 2023 section 3):
 *       4 bits + 8-bit absmax per 64 + fp32 second-level scale per 64*256 = 4.126953125
 *   mxfp4 (OCP Microscaling spec v1.0): 4-bit E2M1 + 8-bit E8M0 scale per 32 = 4.25
 *   fp4 (NVFP4, NVIDIA Blackwell): 4-bit E2M1 + 8-bit E4M3 scale per 16 = 4.5
 *   fp8 / int8: 8 bits; their per-tensor or per-channel scales are < 0.01% and ignored.
 */
#include "internal.h"

typedef struct dtype_row {
    const char *name;    /* the CLI's spelling */
    double bits;         /* storage bits per element, scales included */
    const char *aliases; /* space-separated other spellings */
} dtype_row;

static const dtype_row dtype_table[GP_DTYPE_COUNT] = {
    [GP_DTYPE_UNKNOWN] = {"unknown", 0.0, ""},
    [GP_DTYPE_F32] = {"fp32", 32.0, "f32 float32 float"},
    [GP_DTYPE_F16] = {"fp16", 16.0, "f16 float16 half"},
    [GP_DTYPE_BF16] = {"bf16", 16.0, "bfloat16"},
    [GP_DTYPE_FP8] = {"fp8", 8.0, "f8 e4m3 fp8_e4m3 float8_e4m3fn e5m2 fp8_e5m2 f8_e4m3 f8_e5m2"},
    [GP_DTYPE_INT8] = {"int8", 8.0, "i8 w8a8 q8 llm.int8"},
    [GP_DTYPE_INT4] = {"int4", 4.0 + 16.0 / 128 + 4.0 / 128, "i4 gptq awq q4 w4a16"},
    [GP_DTYPE_NF4] = {"nf4", 4.0 + 8.0 / 64 + 32.0 / (64 * 256), "bnb4 qlora"},
    [GP_DTYPE_MXFP4] = {"mxfp4", 4.0 + 8.0 / 32, "mx4"},
    [GP_DTYPE_FP4] = {"fp4", 4.0 + 8.0 / 16, "nvfp4 f4"},
    [GP_DTYPE_F64] = {"fp64", 64.0, "f64 float64 double"},
};

const char *gp_dtype_name(gp_dtype t)
{
    if ((int)t < 0 || t >= GP_DTYPE_COUNT)
        return "unknown";
    return dtype_table[t].name;
}

double gp_dtype_bits(gp_dtype t)
{
    if ((int)t <= 0 || t >= GP_DTYPE_COUNT)
        return 0.0;
    return dtype_table[t].bits;
}

static int word_in_list(const char *word, const char *list)
{
    char buf[32];
    while (*list) {
        size_t n = 0;
        while (list[n] && list[n] != ' ')
            n++;
        if (n && n < sizeof buf) {
            for (size_t i = 0; i < n; i++)
                buf[i] = list[i];
            buf[n] = '\0';
            if (gpi_strcaseeq(buf, word))
                return 1;
        }
        list += n;
        while (*list == ' ')
            list++;
    }
    return 0;
}

gp_dtype gpi_dtype_parse(const char *name)
{
    if (!name)
        return GP_DTYPE_UNKNOWN;
    for (int t = 1; t < GP_DTYPE_COUNT; t++)
        if (gpi_strcaseeq(name, dtype_table[t].name) || word_in_list(name, dtype_table[t].aliases))
            return (gp_dtype)t;
    return GP_DTYPE_UNKNOWN;
}
