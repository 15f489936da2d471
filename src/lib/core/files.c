/* files.c: bounded file reading and access to the embedded data files. */
#include "internal.h"
#include "core/embedded.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *gpi_embedded(const char *name, size_t *size)
{
    for (const gpi_embedded_file *f = gpi_embedded_files; f->name; f++) {
        if (strcmp(f->name, name) == 0) {
            if (size)
                *size = f->size;
            return (const char *)f->bytes;
        }
    }
    return NULL;
}

gp_status gpi_read_file_prefix(const char *path, size_t max, uint8_t **out, size_t *len, uint64_t *file_size,
                               gp_error *err)
{
    *out = NULL;
    *len = 0;
    struct stat st;
    if (stat(path, &st) != 0) {
        gpi_error_set_path(err, path);
        return gpi_fail(err, errno == ENOENT ? GP_ENOTFOUND : GP_EIO, "%s: %s", path, strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) {
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_EIO, "%s: not a regular file", path);
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_EIO, "%s: %s", path, strerror(errno));
    }
    uint64_t size = (uint64_t)st.st_size;
    size_t want = size < max ? (size_t)size : max;
    uint8_t *buf = malloc(want + 1);
    if (!buf) {
        fclose(f);
        return gpi_fail(err, GP_ENOMEM, "%s: out of memory reading %zu bytes", path, want);
    }
    size_t got = fread(buf, 1, want, f);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        gpi_error_set_path(err, path);
        return gpi_fail(err, GP_EIO, "%s: read error", path);
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    if (file_size)
        *file_size = size;
    return GP_OK;
}
