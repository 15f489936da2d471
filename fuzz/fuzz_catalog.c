/* libFuzzer target: a user's data file (--data-dir) merged into the built-in catalog. The
 * input becomes DIR/models.json, gpus.json, links.json, prices.json, compliance.json,
 * kernels.json or engines.json (chosen by its first byte); opening the catalog must succeed or fail with a message, and
 * every model it then holds must load or fail cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const names[] = {"models.json",     "gpus.json",    "links.json",  "prices.json",
                                        "compliance.json", "kernels.json", "engines.json"};
    if (size < 1)
        return 0;
    char dir[] = "/tmp/gp_fuzz_cat_XXXXXX";
    if (!mkdtemp(dir))
        return 0;
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, names[data[0] % 7]);
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(data + 1, 1, size - 1, f);
        fclose(f);
    }
    gp_catalog *cat = NULL;
    gp_error err;
    gp_status st = gp_catalog_open(dir, &cat, &err);
    unlink(path);
    rmdir(dir);
    if (st != GP_OK) {
        if (!err.msg[0])
            abort();
        return 0;
    }
    for (size_t i = 0; i < gp_catalog_model_count(cat); i++) {
        gp_model m;
        if (gp_catalog_model_at(cat, i, &m, &err) != GP_OK && !err.msg[0])
            abort();
    }
    for (size_t i = 0; i < gp_catalog_gpu_count(cat); i++)
        if (gp_catalog_gpu_at(cat, i)->memory_bytes == 0)
            abort();
    gp_catalog_free(cat);
    return 0;
}
