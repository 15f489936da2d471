/* web_assets.h: the web page's files (web/), embedded at build time by
 * cmake/EmbedScript.cmake into the table gps_web_files of gps_web_file rows (CMakeLists.txt,
 * gp_embed_files_as). */
#ifndef GPS_WEB_ASSETS_H
#define GPS_WEB_ASSETS_H
#include <stddef.h>

typedef struct gps_web_file {
    const char *name;           /* "web/index.html" */
    const unsigned char *bytes; /* contents, NUL-terminated */
    size_t size;                /* bytes, terminator excluded */
} gps_web_file;

/* Ended by a row whose name is NULL. */
extern const gps_web_file gps_web_files[];

#endif
