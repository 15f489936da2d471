/* ggml_types.h: the ggml tensor type table (ggml_types.c). Library-internal. */
#ifndef GPI_GGML_TYPES_H
#define GPI_GGML_TYPES_H

#include "internal.h"

typedef struct ggml_type_row {
    const char *name; /* ggml_type_name(), upper-cased as GGUF tools print it; NULL: unknown */
    uint32_t block;   /* elements per block (ggml blck_size) */
    uint32_t size;    /* bytes per block (ggml type_size = sizeof(block_*)) */
    gp_dtype dtype;   /* nearest gp_dtype: the float type, or what a quantized type is
                         modelled as (see docs/formats-gguf.md) */
    int quantized;    /* ggml is_quantized */
} ggml_type_row;

#define GGML_TYPE_TABLE_SIZE 43

/* Index = ggml type id; a row whose name is NULL is not a type. */
extern const ggml_type_row gpi_ggml_types[GGML_TYPE_TABLE_SIZE];
/* Names of the ids ggml removed from GGUF files (NULL elsewhere), for the error message. */
extern const char *const gpi_ggml_removed_types[GGML_TYPE_TABLE_SIZE];

/* The row of a type id, NULL if unknown. */
const ggml_type_row *gpi_ggml_type_row(uint32_t type);
/* Bytes of n elements; 0 if n is not a whole number of blocks. *overflow set if it does not
 * fit in 64 bits. */
uint64_t gpi_ggml_type_row_bytes(const ggml_type_row *t, uint64_t n, int *overflow);

#endif
