/* web_assets.h: the web page's files (web/), embedded at build time by
 * cmake/EmbedScript.cmake into the table gps_web_files (CMakeLists.txt, gp_embed_files_as).
 * The row type has the layout and name of the library's embedded-data row (src/lib/core/
 * embedded.h), which the generated file expects; the two headers are never included together. */
#ifndef GPS_WEB_ASSETS_H
#define GPS_WEB_ASSETS_H
#include <stddef.h>

typedef struct gpi_embedded_file {
    const char *name;           /* "web/index.html" */
    const unsigned char *bytes; /* contents, NUL-terminated */
    size_t size;                /* bytes, terminator excluded */
} gpi_embedded_file;

/* Ended by a row whose name is NULL. */
extern const gpi_embedded_file gps_web_files[];

#endif
