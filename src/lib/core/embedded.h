/* Data files embedded at build time (cmake/EmbedScript.cmake generates the table). */
#ifndef GPI_EMBEDDED_H
#define GPI_EMBEDDED_H
#include <stddef.h>

typedef struct gpi_embedded_file {
    const char *name;           /* path relative to the source tree: "data/gpus.json" */
    const unsigned char *bytes; /* contents, NUL-terminated */
    size_t size;                /* bytes, terminator excluded */
} gpi_embedded_file;

/* The table, ended by a row whose name is NULL. */
extern const gpi_embedded_file gpi_embedded_files[];

#endif
