/* resolve.c: `--model X` -> a catalog entry, a config.json, a model folder or a .gguf. */
#include "internal.h"

#include <sys/stat.h>

gp_status gp_model_resolve(const gp_catalog *cat, const char *spec, gp_model *out, gp_error *err)
{
    gp_error_clear(err);
    if (!spec || !*spec) {
        gpi_error_set_field(err, "model");
        return gpi_fail(err, GP_EINVAL,
                        "no model given: name a catalog id, a config.json, a model folder or a .gguf file");
    }
    struct stat st;
    if (stat(spec, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return gp_model_from_folder(spec, out, err);
        if (gpi_ends_with(spec, ".gguf"))
            return gp_model_from_gguf_file(spec, out, err);
        if (gpi_ends_with(spec, ".safetensors")) {
            gpi_error_set_path(err, spec);
            return gpi_fail(err, GP_EINVAL,
                            "%s: give the model folder (with its config.json), not one .safetensors shard", spec);
        }
        return gp_model_from_hf_config_file(spec, out, err);
    }
    if (cat)
        return gp_catalog_find_model(cat, spec, out, err);
    return gpi_fail(err, GP_ENOTFOUND, "no such file or catalog model: '%s'", spec);
}
